/* What the pool takes from the machine, through the OS seam (pool/os.h):
 * the clock every deadline and run time is read on, the defaults for a
 * pool's size and memory budget, and the process's one key for hashing
 * client names. A leaf: it calls nothing else of the pool, so every other
 * file may call it. */
#include "common/siphash.h"
#include "pool/os.h"
#include "pool/pool.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* One key per process (not per pool, not per thread): the same name is
 * the same key on every pool, from every environment. */
static uint8_t name_key[16];
static pthread_once_t name_key_once = PTHREAD_ONCE_INIT;

/* Where the system's source fails: the clock, the stack's address (ASLR)
 * and the key's, mixed: unpredictable enough from outside that a client
 * cannot choose names whose keys collide with another client's. */
static void weak_key(void) {
  uint64_t x = os_monotonic_ns() ^ (uint64_t)(uintptr_t)&x ^ ((uint64_t)(uintptr_t)name_key << 17);
  for (size_t i = 0; i < sizeof name_key; i++) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    name_key[i] = (uint8_t)x;
  }
}

static void make_name_key(void) {
  if (os_random(name_key, sizeof name_key) != 0) weak_key();
}

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
