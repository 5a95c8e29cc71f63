/* SSSE3 block fill: each xmm is one of the block's 8x8 16-byte registers,
 * so a row is xmm 8r..8r+7 and a column is xmm c, 8+c, ..., 56+c. P works on
 * (a, b, c, d) as two xmm each, so its two halves form two independent
 * dependency chains; the diagonal step uses palignr. Compiled with a
 * function-level target attribute, called only when the CPU has SSSE3. */
#include "kdf/argon2/internal.h"

#if defined(ARGON2_HAVE_X86)

#include <immintrin.h>

/* clang-format off */
#define SSSE3 __attribute__((target("ssse3")))

SSSE3 static inline __m128i bl(__m128i x, __m128i y) {
  __m128i m = _mm_mul_epu32(x, y);
  return _mm_add_epi64(_mm_add_epi64(x, y), _mm_add_epi64(m, m));
}

SSSE3 static inline __m128i rot32(__m128i x) {
  return _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}

SSSE3 static inline __m128i rot24(__m128i x) {
  const __m128i k = _mm_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15,
                                  8, 9, 10);
  return _mm_shuffle_epi8(x, k);
}

SSSE3 static inline __m128i rot16(__m128i x) {
  const __m128i k = _mm_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14,
                                  15, 8, 9);
  return _mm_shuffle_epi8(x, k);
}

SSSE3 static inline __m128i rot63(__m128i x) {
  return _mm_xor_si128(_mm_srli_epi64(x, 63), _mm_add_epi64(x, x));
}

#define GB2(a0, b0, c0, d0, a1, b1, c1, d1)                 \
  do {                                                      \
    a0 = bl(a0, b0); a1 = bl(a1, b1);                       \
    d0 = rot32(_mm_xor_si128(d0, a0));                      \
    d1 = rot32(_mm_xor_si128(d1, a1));                      \
    c0 = bl(c0, d0); c1 = bl(c1, d1);                       \
    b0 = rot24(_mm_xor_si128(b0, c0));                      \
    b1 = rot24(_mm_xor_si128(b1, c1));                      \
    a0 = bl(a0, b0); a1 = bl(a1, b1);                       \
    d0 = rot16(_mm_xor_si128(d0, a0));                      \
    d1 = rot16(_mm_xor_si128(d1, a1));                      \
    c0 = bl(c0, d0); c1 = bl(c1, d1);                       \
    b0 = rot63(_mm_xor_si128(b0, c0));                      \
    b1 = rot63(_mm_xor_si128(b1, c1));                      \
  } while (0)

/* b = (v4 v5)(v6 v7) -> (v5 v6)(v7 v4); c swaps halves;
 * d = (v12 v13)(v14 v15) -> (v15 v12)(v13 v14). */
#define DIAG(b0, b1, c0, c1, d0, d1)                        \
  do {                                                      \
    __m128i t0 = _mm_alignr_epi8(b1, b0, 8);                \
    __m128i t1 = _mm_alignr_epi8(b0, b1, 8);                \
    b0 = t0; b1 = t1;                                       \
    t0 = c0; c0 = c1; c1 = t0;                              \
    t0 = _mm_alignr_epi8(d0, d1, 8);                        \
    t1 = _mm_alignr_epi8(d1, d0, 8);                        \
    d0 = t0; d1 = t1;                                       \
  } while (0)

#define UNDIAG(b0, b1, c0, c1, d0, d1)                      \
  do {                                                      \
    __m128i t0 = _mm_alignr_epi8(b0, b1, 8);                \
    __m128i t1 = _mm_alignr_epi8(b1, b0, 8);                \
    b0 = t0; b1 = t1;                                       \
    t0 = c0; c0 = c1; c1 = t0;                              \
    t0 = _mm_alignr_epi8(d1, d0, 8);                        \
    t1 = _mm_alignr_epi8(d0, d1, 8);                        \
    d0 = t0; d1 = t1;                                       \
  } while (0)

SSSE3 static inline __m128i ld(const uint64_t *p) {
  return _mm_loadu_si128((const __m128i *)(const void *)p);
}

SSSE3 static inline void st(uint64_t *p, __m128i v) {
  _mm_storeu_si128((__m128i *)(void *)p, v);
}

SSSE3 void argon2_fill_ssse3(argon2_block *dst, const argon2_block *prev,
                             const argon2_block *ref, int xor_dst,
                             argon2_block *scratch) {
  const uint64_t *x = prev->v, *y = ref->v;
  uint64_t *s = scratch[0].v, *o = dst->v;

  for (unsigned r = 0; r < 8; r++) {
    const unsigned w = 16 * r;
    __m128i a0 = _mm_xor_si128(ld(x + w), ld(y + w));
    __m128i a1 = _mm_xor_si128(ld(x + w + 2), ld(y + w + 2));
    __m128i b0 = _mm_xor_si128(ld(x + w + 4), ld(y + w + 4));
    __m128i b1 = _mm_xor_si128(ld(x + w + 6), ld(y + w + 6));
    __m128i c0 = _mm_xor_si128(ld(x + w + 8), ld(y + w + 8));
    __m128i c1 = _mm_xor_si128(ld(x + w + 10), ld(y + w + 10));
    __m128i d0 = _mm_xor_si128(ld(x + w + 12), ld(y + w + 12));
    __m128i d1 = _mm_xor_si128(ld(x + w + 14), ld(y + w + 14));
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
    __m128i a0 = ld(s + w), a1 = ld(s + w + 16);
    __m128i b0 = ld(s + w + 32), b1 = ld(s + w + 48);
    __m128i c0 = ld(s + w + 64), c1 = ld(s + w + 80);
    __m128i d0 = ld(s + w + 96), d1 = ld(s + w + 112);
    GB2(a0, b0, c0, d0, a1, b1, c1, d1);
    DIAG(b0, b1, c0, c1, d0, d1);
    GB2(a0, b0, c0, d0, a1, b1, c1, d1);
    UNDIAG(b0, b1, c0, c1, d0, d1);
    __m128i t[8] = { a0, a1, b0, b1, c0, c1, d0, d1 };
    for (unsigned k = 0; k < 8; k++) {
      const unsigned p = 16 * k + w;
      __m128i v = _mm_xor_si128(t[k], _mm_xor_si128(ld(x + p), ld(y + p)));
      if (xor_dst) v = _mm_xor_si128(v, ld(o + p));
      st(o + p, v);
    }
  }
}

#else
typedef int argon2_fill_ssse3_unused;
#endif
/* clang-format on */
