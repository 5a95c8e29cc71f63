/* Portable block fill: plain C, correct on any CPU. */
#include "kdf/argon2/internal.h"

/* clang-format off */
static uint64_t rotr64(uint64_t x, unsigned n) {
  return (x >> n) | (x << (64 - n));
}

/* BlaMka: a + b + 2 * lo32(a) * lo32(b), all mod 2^64. */
static uint64_t blamka(uint64_t a, uint64_t b) {
  uint64_t m = (uint64_t)(uint32_t)a * (uint32_t)b;
  return a + b + 2 * m;
}

#define GB(a, b, c, d)                   \
  do {                                   \
    a = blamka(a, b);                    \
    d = rotr64(d ^ a, 32);               \
    c = blamka(c, d);                    \
    b = rotr64(b ^ c, 24);               \
    a = blamka(a, b);                    \
    d = rotr64(d ^ a, 16);               \
    c = blamka(c, d);                    \
    b = rotr64(b ^ c, 63);               \
  } while (0)

/* The permutation P on sixteen words t[base + off(k)], k = 0..15, where
 * off(k) = k for a row and (k / 2) * 16 + k % 2 for a column. */
static inline void blamka_p(uint64_t *t, unsigned base, int column) {
  uint64_t v[16];
  for (unsigned k = 0; k < 16; k++)
    v[k] = t[base + (column ? (k / 2) * 16 + k % 2 : k)];
  GB(v[0], v[4], v[8], v[12]);
  GB(v[1], v[5], v[9], v[13]);
  GB(v[2], v[6], v[10], v[14]);
  GB(v[3], v[7], v[11], v[15]);
  GB(v[0], v[5], v[10], v[15]);
  GB(v[1], v[6], v[11], v[12]);
  GB(v[2], v[7], v[8], v[13]);
  GB(v[3], v[4], v[9], v[14]);
  for (unsigned k = 0; k < 16; k++)
    t[base + (column ? (k / 2) * 16 + k % 2 : k)] = v[k];
}

void argon2_fill_portable(argon2_block *dst, const argon2_block *prev,
                          const argon2_block *ref, int xor_dst,
                          argon2_block *scratch) {
  uint64_t *r = scratch[0].v; /* R = prev ^ ref, kept for the final XOR */
  uint64_t *z = scratch[1].v; /* working copy that becomes Z */
  for (unsigned i = 0; i < ARGON2_QWORDS; i++) {
    r[i] = prev->v[i] ^ ref->v[i];
    z[i] = r[i];
  }
  for (unsigned row = 0; row < 8; row++) blamka_p(z, 16 * row, 0);
  for (unsigned col = 0; col < 8; col++) blamka_p(z, 2 * col, 1);
  if (xor_dst) {
    for (unsigned i = 0; i < ARGON2_QWORDS; i++) dst->v[i] ^= z[i] ^ r[i];
  } else {
    for (unsigned i = 0; i < ARGON2_QWORDS; i++) dst->v[i] = z[i] ^ r[i];
  }
}
/* clang-format on */
