#include "common/wipe.h"

#include <string.h>

/* A call through a volatile pointer cannot be proven to be memset, so the
 * compiler must keep it even when the buffer is freed right after. */
static void *(*const volatile wipe_memset)(void *, int, size_t) = memset;

void secure_wipe(void *p, size_t n) {
  if (p != NULL && n != 0) wipe_memset(p, 0, n);
}

/* Not inlined, so that its frame lies where the caller's callees' frames
 * were; the asm keeps the area from being optimized away. */
__attribute__((noinline)) void secure_wipe_stack(void) {
  unsigned char area[SECURE_WIPE_STACK_BYTES];
  secure_wipe(area, sizeof area);
  __asm__ __volatile__("" : : "r"(area) : "memory");
}
