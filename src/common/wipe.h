/* Small helpers shared by the KDF files. No OpenSSL here so that the plain-C
 * tests can build the algorithms on their own. */
#ifndef KDF_UTIL_H
#define KDF_UTIL_H

#include <stddef.h>

/* Zeroes memory in a way the compiler may not remove as a dead store. */
void kdf_wipe(void *p, size_t n);

/* Reads the pool's stop flag, which another thread raises at process exit.
 * An atomic load, because a plain read of it would be a data race. */
static inline int kdf_should_stop(const volatile int *stop) {
  return stop != NULL && __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

#endif
