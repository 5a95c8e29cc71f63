/* AVX-512F block fill. The whole block lives in 16 zmm registers.
 * Row pass: zmm group g holds rows 2g and 2g+1, one per 256-bit half, as
 * (a, b, c, d) = (v0..3, v4..7, v8..11, v12..15) of each row.
 * Column pass: zmm group h holds columns 2h and 2h+1 the same way, where a
 * column's (v0..3) are the registers of rows 0 and 1 in that column, etc.
 * Going from one layout to the other is a 4x4 transpose of the registers
 * plus one 128-bit-lane shuffle each. Compiled with a function-level target
 * attribute, called only when the CPU has AVX-512F. */
#include "kdf/argon2/internal.h"

#if defined(ARGON2_HAVE_X86)

#include <immintrin.h>

/* clang-format off */
#define AVX512 __attribute__((target("avx512f")))

AVX512 static inline __m512i bl5(__m512i x, __m512i y) {
  __m512i m = _mm512_mul_epu32(x, y);
  return _mm512_add_epi64(_mm512_add_epi64(x, y), _mm512_add_epi64(m, m));
}

#define XOR(a, b) _mm512_xor_si512(a, b)
#define ROR(a, n) _mm512_ror_epi64(a, n)

#define FOR4(X) X(0) X(1) X(2) X(3)

/* One GB over all lanes of four independent groups g = 0..3, step by step
 * across the groups so their dependency chains overlap. */
#define GB4(A, B, C, D)                                              \
  do {                                                               \
    FOR4(GB_A1) FOR4(GB_D1) FOR4(GB_C1) FOR4(GB_B1)                  \
    FOR4(GB_A2) FOR4(GB_D2) FOR4(GB_C2) FOR4(GB_B2)                  \
  } while (0)
#define GB_A1(g) A##g = bl5(A##g, B##g);
#define GB_D1(g) D##g = ROR(XOR(D##g, A##g), 32);
#define GB_C1(g) C##g = bl5(C##g, D##g);
#define GB_B1(g) B##g = ROR(XOR(B##g, C##g), 24);
#define GB_A2(g) A##g = bl5(A##g, B##g);
#define GB_D2(g) D##g = ROR(XOR(D##g, A##g), 16);
#define GB_C2(g) C##g = bl5(C##g, D##g);
#define GB_B2(g) B##g = ROR(XOR(B##g, C##g), 63);

/* vpermq with an immediate permutes within each 256-bit half. */
#define PERMQ(x, imm) _mm512_permutex_epi64(x, imm)

#define DIAG(g)                                                      \
  B##g = PERMQ(B##g, _MM_SHUFFLE(0, 3, 2, 1));                       \
  C##g = PERMQ(C##g, _MM_SHUFFLE(1, 0, 3, 2));                       \
  D##g = PERMQ(D##g, _MM_SHUFFLE(2, 1, 0, 3));
#define UNDIAG(g)                                                    \
  B##g = PERMQ(B##g, _MM_SHUFFLE(2, 1, 0, 3));                       \
  C##g = PERMQ(C##g, _MM_SHUFFLE(1, 0, 3, 2));                       \
  D##g = PERMQ(D##g, _MM_SHUFFLE(0, 3, 2, 1));

/* P on the four groups held in A0..A3, B0..B3, C0..C3, D0..D3. */
#define P4()                                                         \
  do {                                                               \
    GB4(A, B, C, D);                                                 \
    FOR4(DIAG)                                                       \
    GB4(A, B, C, D);                                                 \
    FOR4(UNDIAG)                                                     \
  } while (0)

AVX512 static inline __m512i ld(const uint64_t *p) {
  return _mm512_loadu_si512((const void *)p);
}

AVX512 void argon2_fill_avx512(argon2_block *dst, const argon2_block *prev,
                               const argon2_block *ref, int xor_dst,
                               argon2_block *scratch) {
  const uint64_t *x = prev->v, *y = ref->v;
  uint64_t *o = dst->v;
  __m512i A0, A1, A2, A3, B0, B1, B2, B3, C0, C1, C2, C3, D0, D1, D2, D3;
  (void)scratch;

  /* Rows 2g, 2g+1: the first zmm of a row is (a, b), the second (c, d);
   * 128-bit chunk shuffles pair up the two rows' a, b, c and d. */
#define LOAD_ROWS(g)                                                        \
  {                                                                         \
    const unsigned w = 32 * (g);                                            \
    __m512i r0 = XOR(ld(x + w), ld(y + w));                                 \
    __m512i r1 = XOR(ld(x + w + 8), ld(y + w + 8));                         \
    __m512i s0 = XOR(ld(x + w + 16), ld(y + w + 16));                       \
    __m512i s1 = XOR(ld(x + w + 24), ld(y + w + 24));                       \
    A##g = _mm512_shuffle_i64x2(r0, s0, _MM_SHUFFLE(1, 0, 1, 0));           \
    B##g = _mm512_shuffle_i64x2(r0, s0, _MM_SHUFFLE(3, 2, 3, 2));           \
    C##g = _mm512_shuffle_i64x2(r1, s1, _MM_SHUFFLE(1, 0, 1, 0));           \
    D##g = _mm512_shuffle_i64x2(r1, s1, _MM_SHUFFLE(3, 2, 3, 2));           \
  }
  FOR4(LOAD_ROWS)
#undef LOAD_ROWS
  P4();

  /* Row group g's k-th register (k = a, b, c, d) holds registers
   * (R[2g][2k], R[2g][2k+1], R[2g+1][2k], R[2g+1][2k+1]); column group k
   * needs them as (R[2g][2k], R[2g+1][2k], R[2g][2k+1], R[2g+1][2k+1]) in its
   * g-th register: a 4x4 transpose of the registers plus one shuffle. */
#define SW(v) v = _mm512_shuffle_i64x2(v, v, _MM_SHUFFLE(3, 1, 2, 0));
#define SWAP(u, v) { __m512i t_ = u; u = v; v = t_; }
#define SW4(g) SW(A##g) SW(B##g) SW(C##g) SW(D##g)
  FOR4(SW4)
  SWAP(A1, B0) SWAP(A2, C0) SWAP(A3, D0)
  SWAP(B2, C1) SWAP(B3, D1) SWAP(C3, D2)
  P4();

  /* Back to rows: the first zmm of row 2g takes chunks 0 and 2 of column
   * groups 0 and 1's g-th register, row 2g+1 chunks 1 and 3; the second zmm
   * the same from column groups 2 and 3. */
#define STORE_ROWS(Q, g)                                                    \
  {                                                                         \
    const unsigned w = 32 * (g);                                            \
    __m512i out[4];                                                         \
    out[0] = _mm512_shuffle_i64x2(Q##0, Q##1, _MM_SHUFFLE(2, 0, 2, 0));     \
    out[1] = _mm512_shuffle_i64x2(Q##2, Q##3, _MM_SHUFFLE(2, 0, 2, 0));     \
    out[2] = _mm512_shuffle_i64x2(Q##0, Q##1, _MM_SHUFFLE(3, 1, 3, 1));     \
    out[3] = _mm512_shuffle_i64x2(Q##2, Q##3, _MM_SHUFFLE(3, 1, 3, 1));     \
    for (unsigned k = 0; k < 4; k++) {                                      \
      const unsigned p = w + 8 * k;                                         \
      __m512i v = XOR(out[k], XOR(ld(x + p), ld(y + p)));                   \
      if (xor_dst) v = XOR(v, ld(o + p));                                   \
      _mm512_storeu_si512((void *)(o + p), v);                              \
    }                                                                       \
  }
  STORE_ROWS(A, 0) STORE_ROWS(B, 1) STORE_ROWS(C, 2) STORE_ROWS(D, 3)
#undef STORE_ROWS
}

#else
typedef int argon2_fill_avx512_unused;
#endif
/* clang-format on */
