/* scrypt's BlockMix in plain C, on the RFC's natural word order: the
 * variant for every CPU, and the reference the vector variant must match. */
#include "kdf/scrypt/internal.h"

#include <string.h>

/* ---- Salsa20/8 and BlockMix, plain C --------------------------------------- */

static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

/* clang-format off */
/* x = Salsa20/8(x), in place: RFC 7914 section 3. */
static inline void salsa8_c(uint32_t x[16]) {
  uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
  uint32_t x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11], x12 = x[12], x13 = x[13], x14 = x[14],
           x15 = x[15];
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
  x[0] += x0;   x[1] += x1;   x[2] += x2;   x[3] += x3;
  x[4] += x4;   x[5] += x5;   x[6] += x6;   x[7] += x7;
  x[8] += x8;   x[9] += x9;   x[10] += x10; x[11] += x11;
  x[12] += x12; x[13] += x13; x[14] += x14; x[15] += x15;
}

/* clang-format on */
/* out = BlockMix(in ^ xv) (xv may be NULL); returns Integerify(out), the
 * first 8 bytes of out's last 64-byte block as a little-endian number.
 * in, xv and out hold 2r blocks of 16 words each; out must not overlap. */
static uint64_t blockmix_c(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r) {
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
    salsa8_c(x);
    /* Even blocks go to the first half of out, odd ones to the second. */
    memcpy(out + ((i >> 1) + (i & 1) * r) * WORDS_PER_SALSA_BLOCK, x, sizeof x);
  }
  return (uint64_t)x[0] | (uint64_t)x[1] << 32;
}

static void load_c(uint32_t *dst, const uint8_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks * WORDS_PER_SALSA_BLOCK; k++) dst[k] = load_le32(src + 4 * k);
}

static void store_c(uint8_t *dst, const uint32_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks * WORDS_PER_SALSA_BLOCK; k++) store_le32(dst + 4 * k, src[k]);
}

const scrypt_impl kdf_scrypt_blockmix_portable = { blockmix_c, load_c, store_c, { NULL, 1 } };
