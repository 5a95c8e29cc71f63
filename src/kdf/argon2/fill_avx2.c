/* AVX2 block fill. A block is 8 rows x 8 16-byte registers; a row is 16
 * words v0..v15 and each ymm holds four of them (a = v0..3, b = v4..7,
 * c = v8..11, d = v12..15), so the column step of P works lane by lane and
 * the diagonal step needs lane rotations of b, c, d. Four rows (then four
 * columns) go through P together for instruction-level parallelism. The
 * row pass writes to scratch; the column pass gathers each column's halves
 * from it and writes dst. Compiled with a function-level target attribute,
 * called only when the CPU has AVX2. */
#include "kdf/argon2/internal.h"

#if defined(ARGON2_HAVE_X86)

#include <immintrin.h>

/* clang-format off */
#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i bl2(__m256i x, __m256i y) {
  __m256i m = _mm256_mul_epu32(x, y);
  return _mm256_add_epi64(_mm256_add_epi64(x, y), _mm256_add_epi64(m, m));
}

AVX2 static inline __m256i rot32(__m256i x) {
  return _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1));
}

AVX2 static inline __m256i rot24(__m256i x) {
  const __m256i k = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14,
                                     15, 8, 9, 10, 3, 4, 5, 6, 7, 0, 1, 2, 11,
                                     12, 13, 14, 15, 8, 9, 10);
  return _mm256_shuffle_epi8(x, k);
}

AVX2 static inline __m256i rot16(__m256i x) {
  const __m256i k = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13,
                                     14, 15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10,
                                     11, 12, 13, 14, 15, 8, 9);
  return _mm256_shuffle_epi8(x, k);
}

AVX2 static inline __m256i rot63(__m256i x) {
  return _mm256_xor_si256(_mm256_srli_epi64(x, 63), _mm256_add_epi64(x, x));
}

#define FOR4(X) X(0) X(1) X(2) X(3)

/* One GB on four lanes, for four independent groups (0..3) at once, step by
 * step across the groups so their dependency chains overlap. */
#define GB_A1(g) a##g = bl2(a##g, b##g);
#define GB_D1(g) d##g = rot32(_mm256_xor_si256(d##g, a##g));
#define GB_C1(g) c##g = bl2(c##g, d##g);
#define GB_B1(g) b##g = rot24(_mm256_xor_si256(b##g, c##g));
#define GB_A2(g) a##g = bl2(a##g, b##g);
#define GB_D2(g) d##g = rot16(_mm256_xor_si256(d##g, a##g));
#define GB_C2(g) c##g = bl2(c##g, d##g);
#define GB_B2(g) b##g = rot63(_mm256_xor_si256(b##g, c##g));
#define GB4()                                                     \
  FOR4(GB_A1) FOR4(GB_D1) FOR4(GB_C1) FOR4(GB_B1)                 \
  FOR4(GB_A2) FOR4(GB_D2) FOR4(GB_C2) FOR4(GB_B2)

/* Move (v4..7, v8..11, v12..15) so lane i holds the i-th diagonal. */
#define DIAG(g)                                                   \
  b##g = _mm256_permute4x64_epi64(b##g, _MM_SHUFFLE(0, 3, 2, 1)); \
  c##g = _mm256_permute4x64_epi64(c##g, _MM_SHUFFLE(1, 0, 3, 2)); \
  d##g = _mm256_permute4x64_epi64(d##g, _MM_SHUFFLE(2, 1, 0, 3));
#define UNDIAG(g)                                                 \
  b##g = _mm256_permute4x64_epi64(b##g, _MM_SHUFFLE(2, 1, 0, 3)); \
  c##g = _mm256_permute4x64_epi64(c##g, _MM_SHUFFLE(1, 0, 3, 2)); \
  d##g = _mm256_permute4x64_epi64(d##g, _MM_SHUFFLE(0, 3, 2, 1));

#define P4() GB4() FOR4(DIAG) GB4() FOR4(UNDIAG)

AVX2 static inline __m256i ld(const uint64_t *p) {
  return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

AVX2 static inline void st(uint64_t *p, __m256i v) {
  _mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* Two 16-byte registers (lo at p, hi at q) as one ymm. */
AVX2 static inline __m256i ld2(const uint64_t *p, const uint64_t *q) {
  __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)p);
  __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)q);
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

AVX2 void argon2_fill_avx2(argon2_block *dst, const argon2_block *prev,
                           const argon2_block *ref, int xor_dst,
                           argon2_block *scratch) {
  const uint64_t *x = prev->v, *y = ref->v;
  uint64_t *s = scratch[0].v, *o = dst->v;
  __m256i a0, b0, c0, d0, a1, b1, c1, d1, a2, b2, c2, d2, a3, b3, c3, d3;

  /* Rows: R = prev ^ ref, then P on each row (four at a time). */
  for (unsigned r = 0; r < 8; r += 4) {
#define LOAD_ROW(g)                                                     \
    {                                                                   \
      const unsigned w = 16 * (r + (g));                                \
      a##g = _mm256_xor_si256(ld(x + w), ld(y + w));                    \
      b##g = _mm256_xor_si256(ld(x + w + 4), ld(y + w + 4));            \
      c##g = _mm256_xor_si256(ld(x + w + 8), ld(y + w + 8));            \
      d##g = _mm256_xor_si256(ld(x + w + 12), ld(y + w + 12));          \
    }
#define STORE_ROW(g)                                                    \
    {                                                                   \
      const unsigned w = 16 * (r + (g));                                \
      st(s + w, a##g); st(s + w + 4, b##g);                             \
      st(s + w + 8, c##g); st(s + w + 12, d##g);                        \
    }
    FOR4(LOAD_ROW)
    P4()
    FOR4(STORE_ROW)
#undef LOAD_ROW
#undef STORE_ROW
  }

  /* Columns: column c's words are (2c, 2c+1) of every row, so its a = rows
   * 0-1, b = rows 2-3, c = rows 4-5, d = rows 6-7. Four columns at a time;
   * columns c+2j and c+2j+1 (groups 2j, 2j+1) share 256-bit row pieces. */
  for (unsigned c = 0; c < 8; c += 4) {
#define LOAD_COL(g)                                                     \
    {                                                                   \
      const unsigned w = 2 * (c + (g));                                 \
      a##g = ld2(s + w, s + w + 16);                                    \
      b##g = ld2(s + w + 32, s + w + 48);                               \
      c##g = ld2(s + w + 64, s + w + 80);                               \
      d##g = ld2(s + w + 96, s + w + 112);                              \
    }
    FOR4(LOAD_COL)
#undef LOAD_COL
    P4()
    /* Row k's words 2c'..2c'+3 (c' = c, c+2) are the k-th halves of
     * columns c' and c'+1. */
#define OUT(u, v, k0, w)                                                \
    {                                                                   \
      __m256i lo = _mm256_permute2x128_si256(u, v, 0x20);               \
      __m256i hi = _mm256_permute2x128_si256(u, v, 0x31);               \
      const unsigned p0 = 16 * (k0) + (w), p1 = p0 + 16;                \
      lo = _mm256_xor_si256(lo, _mm256_xor_si256(ld(x + p0), ld(y + p0))); \
      hi = _mm256_xor_si256(hi, _mm256_xor_si256(ld(x + p1), ld(y + p1))); \
      if (xor_dst) {                                                    \
        lo = _mm256_xor_si256(lo, ld(o + p0));                          \
        hi = _mm256_xor_si256(hi, ld(o + p1));                          \
      }                                                                 \
      st(o + p0, lo);                                                   \
      st(o + p1, hi);                                                   \
    }
    OUT(a0, a1, 0, 2 * c) OUT(b0, b1, 2, 2 * c)
    OUT(c0, c1, 4, 2 * c) OUT(d0, d1, 6, 2 * c)
    OUT(a2, a3, 0, 2 * c + 4) OUT(b2, b3, 2, 2 * c + 4)
    OUT(c2, c3, 4, 2 * c + 4) OUT(d2, d3, 6, 2 * c + 4)
#undef OUT
  }
}

#else
typedef int argon2_fill_avx2_unused;
#endif
/* clang-format on */
