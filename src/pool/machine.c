/* What the pool takes from the machine, through the OS seam (pool/os.h):
 * the clock every deadline and run time is read on, the defaults for a
 * pool's size and memory budget, and the process's one key for hashing
 * client names. A leaf: it calls nothing else of the pool, so every other
 * file may call it. */
#include "common/siphash.h"
#include "pool/os.h"
#include "pool/pool.h"

#include <pthread.h>
#include <stdint.h>

/* One key per process (not per pool, not per thread): the same name is
 * the same key on every pool, from every environment. */
static uint8_t name_key[16];
static pthread_once_t name_key_once = PTHREAD_ONCE_INIT;

static void make_name_key(void) { os_random(name_key, sizeof name_key); }

uint64_t pool_fair_key(const void *name, size_t len) {
  pthread_once(&name_key_once, make_name_key);
  uint64_t key = siphash24(name_key, name, len);
  return key != 0 ? key : 1; /* 0 is the key of calls that name none */
}

uint64_t pool_now_ns(void) { return os_monotonic_ns(); }

unsigned pool_default_threads(void) {
  unsigned n = os_cpu_count();
  if (n < 1) n = 1;
  if (n > POOL_MAX_THREADS) n = POOL_MAX_THREADS;
  return n;
}

uint64_t pool_default_max_memory(void) {
  const uint64_t floor = (uint64_t)64 << 20;
  uint64_t total = os_memory_limit();
  if (total == UINT64_MAX) return (uint64_t)1 << 30;
  uint64_t quarter = total / 4;
  return quarter < floor ? floor : quarter;
}
