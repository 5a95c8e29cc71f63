/* NEON block fill (AArch64, where Advanced SIMD is part of the ABI): the
 * SSSE3 fill's plan on 128-bit NEON registers, two 64-bit words each. A row
 * is registers 8r..8r+7 and a column is registers c, 8+c, ..., 56+c; P works
 * on (a, b, c, d) as two registers each, two independent chains; the
 * diagonal step uses ext (vextq_u64) where SSSE3 uses palignr. Rotations by
 * 24 and 16 are one byte shuffle (tbl), by 32 a word swap within each lane
 * (rev64), by 63 a shift and an insert (sri). Built only for little-endian
 * AArch64; elsewhere this file is empty. */
#include "kdf/argon2/internal.h"

#if defined(ARGON2_HAVE_NEON)

#include <arm_neon.h>

/* clang-format off */
/* BlaMka on both lanes: x + y + 2 * lo32(x) * lo32(y). */
static inline uint64x2_t bl(uint64x2_t x, uint64x2_t y) {
  uint64x2_t m = vmull_u32(vmovn_u64(x), vmovn_u64(y));
  return vaddq_u64(vaddq_u64(x, y), vaddq_u64(m, m));
}

static inline uint64x2_t rot32(uint64x2_t x) {
  return vreinterpretq_u64_u32(vrev64q_u32(vreinterpretq_u32_u64(x)));
}

static inline uint64x2_t rot24(uint64x2_t x) {
  static const uint8_t k[16] = { 3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10 };
  return vreinterpretq_u64_u8(vqtbl1q_u8(vreinterpretq_u8_u64(x), vld1q_u8(k)));
}

static inline uint64x2_t rot16(uint64x2_t x) {
  static const uint8_t k[16] = { 2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9 };
  return vreinterpretq_u64_u8(vqtbl1q_u8(vreinterpretq_u8_u64(x), vld1q_u8(k)));
}

static inline uint64x2_t rot63(uint64x2_t x) {
  return vsriq_n_u64(vshlq_n_u64(x, 1), x, 63);
}

#define GB2(a0, b0, c0, d0, a1, b1, c1, d1)                 \
  do {                                                      \
    a0 = bl(a0, b0); a1 = bl(a1, b1);                       \
    d0 = rot32(veorq_u64(d0, a0));                          \
    d1 = rot32(veorq_u64(d1, a1));                          \
    c0 = bl(c0, d0); c1 = bl(c1, d1);                       \
    b0 = rot24(veorq_u64(b0, c0));                          \
    b1 = rot24(veorq_u64(b1, c1));                          \
    a0 = bl(a0, b0); a1 = bl(a1, b1);                       \
    d0 = rot16(veorq_u64(d0, a0));                          \
    d1 = rot16(veorq_u64(d1, a1));                          \
    c0 = bl(c0, d0); c1 = bl(c1, d1);                       \
    b0 = rot63(veorq_u64(b0, c0));                          \
    b1 = rot63(veorq_u64(b1, c1));                          \
  } while (0)

/* vextq_u64(lo, hi, 1) is (lo[1], hi[0]).
 * b = (v4 v5)(v6 v7) -> (v5 v6)(v7 v4); c swaps halves;
 * d = (v12 v13)(v14 v15) -> (v15 v12)(v13 v14). */
#define DIAG(b0, b1, c0, c1, d0, d1)                        \
  do {                                                      \
    uint64x2_t t0 = vextq_u64(b0, b1, 1);                   \
    uint64x2_t t1 = vextq_u64(b1, b0, 1);                   \
    b0 = t0; b1 = t1;                                       \
    t0 = c0; c0 = c1; c1 = t0;                              \
    t0 = vextq_u64(d1, d0, 1);                              \
    t1 = vextq_u64(d0, d1, 1);                              \
    d0 = t0; d1 = t1;                                       \
  } while (0)

#define UNDIAG(b0, b1, c0, c1, d0, d1)                      \
  do {                                                      \
    uint64x2_t t0 = vextq_u64(b1, b0, 1);                   \
    uint64x2_t t1 = vextq_u64(b0, b1, 1);                   \
    b0 = t0; b1 = t1;                                       \
    t0 = c0; c0 = c1; c1 = t0;                              \
    t0 = vextq_u64(d0, d1, 1);                              \
    t1 = vextq_u64(d1, d0, 1);                              \
    d0 = t0; d1 = t1;                                       \
  } while (0)

/* ld1/st1 of 64-bit elements: no alignment beyond the words' own. */
static inline uint64x2_t ld(const uint64_t *p) { return vld1q_u64(p); }

static inline void st(uint64_t *p, uint64x2_t v) { vst1q_u64(p, v); }

void argon2_fill_neon(argon2_block *dst, const argon2_block *prev,
                      const argon2_block *ref, int xor_dst,
                      argon2_block *scratch) {
  const uint64_t *x = prev->v, *y = ref->v;
  uint64_t *s = scratch[0].v, *o = dst->v;

  for (unsigned r = 0; r < 8; r++) {
    const unsigned w = 16 * r;
    uint64x2_t a0 = veorq_u64(ld(x + w), ld(y + w));
    uint64x2_t a1 = veorq_u64(ld(x + w + 2), ld(y + w + 2));
    uint64x2_t b0 = veorq_u64(ld(x + w + 4), ld(y + w + 4));
    uint64x2_t b1 = veorq_u64(ld(x + w + 6), ld(y + w + 6));
    uint64x2_t c0 = veorq_u64(ld(x + w + 8), ld(y + w + 8));
    uint64x2_t c1 = veorq_u64(ld(x + w + 10), ld(y + w + 10));
    uint64x2_t d0 = veorq_u64(ld(x + w + 12), ld(y + w + 12));
    uint64x2_t d1 = veorq_u64(ld(x + w + 14), ld(y + w + 14));
    GB2(a0, b0, c0, d0, a1, b1, c1, d1);
    DIAG(b0, b1, c0, c1, d0, d1);
    GB2(a0, b0, c0, d0, a1, b1, c1, d1);
    UNDIAG(b0, b1, c0, c1, d0, d1);
    st(s + w, a0); st(s + w + 2, a1); st(s + w + 4, b0); st(s + w + 6, b1);
    st(s + w + 8, c0); st(s + w + 10, c1);
    st(s + w + 12, d0); st(s + w + 14, d1);
  }

  for (unsigned c = 0; c < 8; c++) {
    const unsigned w = 2 * c;
    uint64x2_t a0 = ld(s + w), a1 = ld(s + w + 16);
    uint64x2_t b0 = ld(s + w + 32), b1 = ld(s + w + 48);
    uint64x2_t c0 = ld(s + w + 64), c1 = ld(s + w + 80);
    uint64x2_t d0 = ld(s + w + 96), d1 = ld(s + w + 112);
    GB2(a0, b0, c0, d0, a1, b1, c1, d1);
    DIAG(b0, b1, c0, c1, d0, d1);
    GB2(a0, b0, c0, d0, a1, b1, c1, d1);
    UNDIAG(b0, b1, c0, c1, d0, d1);
    uint64x2_t t[8] = { a0, a1, b0, b1, c0, c1, d0, d1 };
    for (unsigned k = 0; k < 8; k++) {
      const unsigned p = 16 * k + w;
      uint64x2_t v = veorq_u64(t[k], veorq_u64(ld(x + p), ld(y + p)));
      if (xor_dst) v = veorq_u64(v, ld(o + p));
      st(o + p, v);
    }
  }
}

#else
typedef int argon2_fill_neon_unused;
#endif
/* clang-format on */
