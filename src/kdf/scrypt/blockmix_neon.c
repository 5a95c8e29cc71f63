/* scrypt's BlockMix on 128-bit NEON vectors (AArch64, where Advanced SIMD is
 * part of the ABI): the SSE2 variant's plan, with the same permuted layout
 * and therefore the same load and store. Built only for little-endian
 * AArch64; elsewhere this file is empty. */
#include "kdf/scrypt/internal.h"

#ifdef SCRYPT_HAVE_NEON

#include <arm_neon.h>

/* ---- Salsa20/8 and BlockMix, 128-bit vectors (AArch64) ---------------------- */

/* Word i of a stored block is word 5i mod 16 of the RFC's block, as in
 * blockmix_sse2.c: vector 0 is the diagonal (x0, x5, x10, x15), 1 is (x4,
 * x9, x14, x3), 2 is (x8, x13, x2, x7), 3 is (x12, x1, x6, x11). A column
 * step works on whole vectors; rotating vectors 1..3 by one, two and three
 * lanes (ext) lines the rows up. Word 0 stays in place and word 1 lands at
 * 13, which is all Integerify reads. */

/* x rotated left by n: a shift left, then a shift right that inserts
 * (sri). A macro because both shifts need n as an immediate. */
#define ROTL(x, n) vsriq_n_u32(vshlq_n_u32((x), (n)), (x), 32 - (n))

/* One quarter-round step on four lanes: b ^= rotl(x + y, n). */
#define STEP(b, x, y, n) veorq_u32((b), ROTL(vaddq_u32((x), (y)), (n)))

/* Lane i of the result is lane (i + k) mod 4 of x. */
#define LANES(x, k) vextq_u32((x), (x), (k))

/* Same contract as blockmix_c, on the permuted layout. */
static uint64_t blockmix_neon(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r) {
  const size_t last = (2 * r - 1) * WORDS_PER_SALSA_BLOCK;
  uint32x4_t a = vld1q_u32(in + last), b = vld1q_u32(in + last + 4);
  uint32x4_t c = vld1q_u32(in + last + 8), d = vld1q_u32(in + last + 12);
  if (xv != NULL) {
    a = veorq_u32(a, vld1q_u32(xv + last));
    b = veorq_u32(b, vld1q_u32(xv + last + 4));
    c = veorq_u32(c, vld1q_u32(xv + last + 8));
    d = veorq_u32(d, vld1q_u32(xv + last + 12));
  }
  for (size_t i = 0; i < 2 * r; i++) {
    const uint32_t *s = in + i * WORDS_PER_SALSA_BLOCK;
    a = veorq_u32(a, vld1q_u32(s));
    b = veorq_u32(b, vld1q_u32(s + 4));
    c = veorq_u32(c, vld1q_u32(s + 8));
    d = veorq_u32(d, vld1q_u32(s + 12));
    if (xv != NULL) {
      const uint32_t *t = xv + i * WORDS_PER_SALSA_BLOCK;
      a = veorq_u32(a, vld1q_u32(t));
      b = veorq_u32(b, vld1q_u32(t + 4));
      c = veorq_u32(c, vld1q_u32(t + 8));
      d = veorq_u32(d, vld1q_u32(t + 12));
    }
    const uint32x4_t a0 = a, b0 = b, c0 = c, d0 = d;
    for (int round = 0; round < 4; round++) {
      /* columns */
      b = STEP(b, a, d, 7);
      c = STEP(c, b, a, 9);
      d = STEP(d, c, b, 13);
      a = STEP(a, d, c, 18);
      /* rows: a keeps its place, the others turn so each lane is one row */
      b = LANES(b, 3);
      c = LANES(c, 2);
      d = LANES(d, 1);
      d = STEP(d, a, b, 7);
      c = STEP(c, d, a, 9);
      b = STEP(b, c, d, 13);
      a = STEP(a, b, c, 18);
      b = LANES(b, 1);
      c = LANES(c, 2);
      d = LANES(d, 3);
    }
    a = vaddq_u32(a, a0);
    b = vaddq_u32(b, b0);
    c = vaddq_u32(c, c0);
    d = vaddq_u32(d, d0);
    uint32_t *o = out + ((i >> 1) + (i & 1) * r) * WORDS_PER_SALSA_BLOCK;
    vst1q_u32(o, a);
    vst1q_u32(o + 4, b);
    vst1q_u32(o + 8, c);
    vst1q_u32(o + 12, d);
  }
  return (uint64_t)vgetq_lane_u32(a, 0) | (uint64_t)vgetq_lane_u32(d, 1) << 32;
}

/* One lane: kdf_scrypt_lanes() runs NEON lanes one after another. */
const scrypt_impl kdf_scrypt_blockmix_neon = {
  blockmix_neon, scrypt_load_permuted, scrypt_store_permuted, { NULL, 1 }
};

#else

/* ISO C wants at least one declaration per file. */
typedef int kdf_scrypt_blockmix_neon_unused;

#endif /* SCRYPT_HAVE_NEON */
