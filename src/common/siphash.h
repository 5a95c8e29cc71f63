/* SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit PRF for short
 * inputs. The pool hashes client names (fairKey) with it under one random
 * key per process, so names cannot be read back from keys and nobody
 * outside the process can choose names whose keys collide. */
#ifndef COMMON_SIPHASH_H
#define COMMON_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t siphash24(const uint8_t key[16], const void *data, size_t len);

#endif
