/* scrypt's BlockMix in plain C: on the RFC's natural word order, the
 * variant for every CPU and the reference the vector variants must match;
 * and on the permuted order of the 4-lane SIMD variants, their one-lane
 * BlockMix (why: internal.h, at kdf_scrypt_mix_permuted_c). */
#include "kdf/scrypt/internal.h"

#include <string.h>

/* ---- Salsa20/8 and BlockMix, plain C --------------------------------------- */

static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* Where the RFC's word k of a 64-byte block is stored: k itself in the
 * natural order, else (13 k) mod 16, the inverse of SCRYPT_PERMUTED (5 * 13
 * = 65 = 1 mod 16). `permuted` is a constant at every call, so the indices
 * below fold at compile time and both orders cost the same. */
static inline int at(int k, int permuted) { return permuted ? (13 * k) & 15 : k; }

/* clang-format off */
/* x = Salsa20/8(x), in place: RFC 7914 section 3. */
static inline void salsa8_c(uint32_t x[16], int permuted) {
#define X(k) x[at(k, permuted)]
  uint32_t x0 = X(0), x1 = X(1), x2 = X(2), x3 = X(3), x4 = X(4), x5 = X(5), x6 = X(6), x7 = X(7);
  uint32_t x8 = X(8), x9 = X(9), x10 = X(10), x11 = X(11), x12 = X(12), x13 = X(13), x14 = X(14),
           x15 = X(15);
  for (int i = 0; i < 8; i += 2) {
    /* columns */
    x4 ^= rotl32(x0 + x12, 7);   x9 ^= rotl32(x5 + x1, 7);
    x14 ^= rotl32(x10 + x6, 7);  x3 ^= rotl32(x15 + x11, 7);
    x8 ^= rotl32(x4 + x0, 9);    x13 ^= rotl32(x9 + x5, 9);
    x2 ^= rotl32(x14 + x10, 9);  x7 ^= rotl32(x3 + x15, 9);
    x12 ^= rotl32(x8 + x4, 13);  x1 ^= rotl32(x13 + x9, 13);
    x6 ^= rotl32(x2 + x14, 13);  x11 ^= rotl32(x7 + x3, 13);
    x0 ^= rotl32(x12 + x8, 18);  x5 ^= rotl32(x1 + x13, 18);
    x10 ^= rotl32(x6 + x2, 18);  x15 ^= rotl32(x11 + x7, 18);
    /* rows */
    x1 ^= rotl32(x0 + x3, 7);    x6 ^= rotl32(x5 + x4, 7);
    x11 ^= rotl32(x10 + x9, 7);  x12 ^= rotl32(x15 + x14, 7);
    x2 ^= rotl32(x1 + x0, 9);    x7 ^= rotl32(x6 + x5, 9);
    x8 ^= rotl32(x11 + x10, 9);  x13 ^= rotl32(x12 + x15, 9);
    x3 ^= rotl32(x2 + x1, 13);   x4 ^= rotl32(x7 + x6, 13);
    x9 ^= rotl32(x8 + x11, 13);  x14 ^= rotl32(x13 + x12, 13);
    x0 ^= rotl32(x3 + x2, 18);   x5 ^= rotl32(x4 + x7, 18);
    x10 ^= rotl32(x9 + x8, 18);  x15 ^= rotl32(x14 + x13, 18);
  }
  X(0) += x0;   X(1) += x1;   X(2) += x2;   X(3) += x3;
  X(4) += x4;   X(5) += x5;   X(6) += x6;   X(7) += x7;
  X(8) += x8;   X(9) += x9;   X(10) += x10; X(11) += x11;
  X(12) += x12; X(13) += x13; X(14) += x14; X(15) += x15;
#undef X
}

/* clang-format on */
/* out = BlockMix(in ^ xv) (xv may be NULL); returns Integerify(out), the
 * first 8 bytes of out's last 64-byte block as a little-endian number.
 * in, xv and out hold 2r blocks of 16 words each, in the order `permuted`
 * says; out must not overlap. The XORs and copies are word by word, so
 * they need not know the order; only Salsa20/8 and Integerify do. */
static inline uint64_t blockmix_in_order(const uint32_t *in, const uint32_t *xv, uint32_t *out,
                                         size_t r, int permuted) {
  uint32_t x[16];
  const size_t last = (2 * r - 1) * WORDS_PER_SALSA_BLOCK;
  for (int k = 0; k < 16; k++) x[k] = in[last + k] ^ (xv != NULL ? xv[last + k] : 0);
  for (size_t i = 0; i < 2 * r; i++) {
    const uint32_t *s = in + i * WORDS_PER_SALSA_BLOCK;
    if (xv != NULL) {
      const uint32_t *t = xv + i * WORDS_PER_SALSA_BLOCK;
      for (int k = 0; k < 16; k++) x[k] ^= s[k] ^ t[k];
    } else {
      for (int k = 0; k < 16; k++) x[k] ^= s[k];
    }
    salsa8_c(x, permuted);
    /* Even blocks go to the first half of out, odd ones to the second. */
    memcpy(out + ((i >> 1) + (i & 1) * r) * WORDS_PER_SALSA_BLOCK, x, sizeof x);
  }
  return (uint64_t)x[at(0, permuted)] | (uint64_t)x[at(1, permuted)] << 32;
}

static uint64_t blockmix_c(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r) {
  return blockmix_in_order(in, xv, out, r, 0);
}

uint64_t kdf_scrypt_mix_permuted_c(const uint32_t *in, const uint32_t *xv, uint32_t *out,
                                   size_t r) {
  return blockmix_in_order(in, xv, out, r, 1);
}

static void load_c(uint32_t *dst, const uint8_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks * WORDS_PER_SALSA_BLOCK; k++) dst[k] = load_le32(src + 4 * k);
}

static void store_c(uint8_t *dst, const uint32_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks * WORDS_PER_SALSA_BLOCK; k++) store_le32(dst + 4 * k, src[k]);
}

const scrypt_impl kdf_scrypt_blockmix_portable = { blockmix_c, load_c, store_c, { NULL, 1 } };
