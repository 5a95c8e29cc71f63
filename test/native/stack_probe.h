/* Looking for secrets left on the dead stack after a KDF returns (register
 * spills the code cannot wipe by name). Shared by the PBKDF2, Argon2 and
 * bcrypt tests. Reading dead stack is outside the C abstract machine, which
 * is why AddressSanitizer builds skip the tests that use this. Header-only:
 * each test is one translation unit. */
#ifndef TEST_STACK_PROBE_H
#define TEST_STACK_PROBE_H

#include "common/wipe.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A copy of the dead stack, taken before the search, so that the search's
 * own locals (a word it compares, at -O0 kept in its frame) are never
 * taken for leftovers of the code under test. */
static unsigned char probe_copy[4 * SECURE_WIPE_STACK_BYTES];

/* Copies the `depth` bytes below this function's frame (byte by byte: a
 * call to memcpy would put its own frame there first). */
__attribute__((noinline, unused)) static void snapshot_below(size_t depth) {
  unsigned char here[16];
  /* Through an integer, so that no checker takes the reads for reads of
   * `here` (UBSan's object-size check would). */
  volatile uintptr_t top_address = (uintptr_t)here;
  const volatile unsigned char *top = (const volatile unsigned char *)top_address;
  __asm__ __volatile__("" : : "r"(here) : "memory"); /* here stays on the stack */
  for (size_t i = 0; i < depth; i++) probe_copy[i] = top[(ptrdiff_t)i - (ptrdiff_t)depth];
}

/* How many of `words` occur (as stored, in either byte order) in the
 * `depth` bytes (at most sizeof probe_copy) below the frame of this call:
 * the frames of the calls made just before. */
__attribute__((noinline, unused)) static size_t words_below(const uint32_t *words, size_t n,
                                                            size_t depth) {
  if (depth > sizeof probe_copy) depth = sizeof probe_copy;
  snapshot_below(depth);
  size_t found = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t swapped = __builtin_bswap32(words[k]);
    for (size_t at = 0; at + 4 <= depth; at++) {
      uint32_t x;
      memcpy(&x, probe_copy + at, 4);
      if (x == words[k] || x == swapped) {
        found++;
        break;
      }
    }
  }
  return found;
}

/* Overwrites the stack below the caller with a pattern, so that what the
 * test itself left there (it computed the values it then looks for) is
 * gone before the derivation under test runs. */
__attribute__((noinline, unused)) static void scribble_stack(void) {
  unsigned char area[3 * SECURE_WIPE_STACK_BYTES];
  memset(area, 0xa5, sizeof area);
  __asm__ __volatile__("" : : "r"(area) : "memory");
}

/* The control: leaves a copy of bytes[0..n) (n <= 256) in a dead frame,
 * as a spill would, so a test can show that its probe finds such a copy. */
__attribute__((noinline, unused)) static void leave_copy(const uint8_t *bytes, size_t n) {
  volatile uint8_t copy[256];
  for (size_t i = 0; i < n && i < sizeof copy; i++) copy[i] = bytes[i];
}

/* The non-zero 32-bit words of bytes[0..n) at 4-byte steps (zero words
 * would be found anywhere in wiped memory); returns how many. */
__attribute__((unused)) static size_t words_of(const uint8_t *bytes, size_t n, uint32_t *words) {
  size_t count = 0;
  for (size_t i = 0; i + 4 <= n; i += 4) {
    uint32_t w;
    memcpy(&w, bytes + i, 4);
    if (w != 0) words[count++] = w;
  }
  return count;
}

#endif
