/* See prefault.h: faulting in an arena, a step at a time. */
#include "pool/prefault.h"

#include "common/stop.h"

/* The smallest page size kdfpool runs on; larger pages are simply written
 * more than once per page. */
#define PREFAULT_STRIDE ((size_t)4096)

#ifdef POOL_TEST_HOOKS
static void (*observer)(unsigned long steps, const volatile int *stop); /* atomic */

void pool_prefault_observe(void (*fn)(unsigned long steps, const volatile int *stop)) {
  __atomic_store_n(&observer, fn, __ATOMIC_RELEASE);
}

static void observe(unsigned long steps, const volatile int *stop) {
  void (*fn)(unsigned long, const volatile int *) = __atomic_load_n(&observer, __ATOMIC_ACQUIRE);
  if (fn != NULL) fn(steps, stop);
}
#else
static void observe(unsigned long steps, const volatile int *stop) {
  (void)steps;
  (void)stop;
}
#endif

int pool_prefault(void *mem, size_t size, const volatile int *stop) {
  volatile unsigned char *bytes = mem;
  unsigned long steps = 0;
  for (size_t at = 0; at < size; at += POOL_PREFAULT_STEP) {
    if (stop_requested(stop)) return -1;
    size_t end = size - at > POOL_PREFAULT_STEP ? at + POOL_PREFAULT_STEP : size;
    for (size_t off = at; off < end; off += PREFAULT_STRIDE) bytes[off] = 0;
    observe(++steps, stop);
  }
  return 0;
}
