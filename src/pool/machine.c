/* What the pool takes from the machine, through the OS seam (pool/os.h):
 * the clock every deadline and run time is read on, and the defaults for
 * a pool's size and memory budget. A leaf: it calls nothing else of the
 * pool, so every other file may call it. */
#include "pool/os.h"
#include "pool/pool.h"

#include <stdint.h>

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
