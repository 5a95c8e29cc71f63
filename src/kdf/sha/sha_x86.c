/* x86-64 compressions: SHA-1 and SHA-256 on the SHA extensions (SHA-NI),
 * after Intel's reference ("Intel SHA Extensions", 2013), one chain or two
 * interleaved; SHA-512 with BMI2 rotates and a message schedule in AVX2 or
 * AVX-512VL registers. Compiled on x86-64 only; the rest of the build
 * stays at the baseline ISA and reaches these through kdf_sha_select,
 * which checks CPUID first.
 *
 * The sha256rnds2 instruction keeps the state as ABEF and CDGH, and SHA-1's
 * as DCBA plus E in a lane of its own; the native state is shuffled in and
 * out once per call, not per block. */
#include "sha.h"

#ifdef KDF_SHA_HAVE_X86

#include "sha_body.h"

#include <immintrin.h>

#define TARGET __attribute__((target("sha,sse4.1")))

/* ---- SHA-256 --------------------------------------------------------------- */

#define K4(g) _mm_loadu_si128((const __m128i *)(kdf_sha256_k + 4 * (g)))

/* Four rounds on W[4g..4g+3] (m) plus K; sha256rnds2 does two at a time
 * and takes its W+K pair from the low half. */
#define RND4(s0, s1, m, g)                  \
  do {                                      \
    __m128i k_ = _mm_add_epi32(m, K4(g));   \
    s1 = _mm_sha256rnds2_epu32(s1, s0, k_); \
    k_ = _mm_shuffle_epi32(k_, 0x0e);       \
    s0 = _mm_sha256rnds2_epu32(s0, s1, k_); \
  } while (0)

/* next = W for the group after cur; prev starts becoming the one 3 later. */
#define SCHED2(cur, prev, next) \
  next = _mm_sha256msg2_epu32(_mm_add_epi32(next, _mm_alignr_epi8(cur, prev, 4)), cur)
#define SCHED1(cur, prev) prev = _mm_sha256msg1_epu32(prev, cur)

#define LOADW(p, i, mask) _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p) + (i)), mask)

/* Group g (rounds 4g..4g+3) of chain X (a variable prefix: X##s0 = ABEF,
 * X##s1 = CDGH, X##m0..3 the schedule ring, X##p the block). Groups 0-3
 * load their words; the schedule steps run only while later groups need
 * them (msg2 up to group 14, msg1 up to group 12). */
#define GROUP(X, g, cur, prev, next)                             \
  do {                                                           \
    if ((g) < 4) X##cur = LOADW(X##p, g, mask);                  \
    RND4(X##s0, X##s1, X##cur, g);                               \
    if ((g) >= 3 && (g) <= 14) SCHED2(X##cur, X##prev, X##next); \
    if ((g) >= 1 && (g) <= 12) SCHED1(X##cur, X##prev);          \
  } while (0)

/* The sixteen groups of one block, each through STEP(g, cur, prev, next). */
#define BLOCK256(STEP)  \
  STEP(0, m0, m3, m1);  \
  STEP(1, m1, m0, m2);  \
  STEP(2, m2, m1, m3);  \
  STEP(3, m3, m2, m0);  \
  STEP(4, m0, m3, m1);  \
  STEP(5, m1, m0, m2);  \
  STEP(6, m2, m1, m3);  \
  STEP(7, m3, m2, m0);  \
  STEP(8, m0, m3, m1);  \
  STEP(9, m1, m0, m2);  \
  STEP(10, m2, m1, m3); \
  STEP(11, m3, m2, m0); \
  STEP(12, m0, m3, m1); \
  STEP(13, m1, m0, m2); \
  STEP(14, m2, m1, m3); \
  STEP(15, m3, m2, m0)

#define ONE(g, cur, prev, next) GROUP(a_, g, cur, prev, next)
/* Two chains group by group: each sha256rnds2 waits on the previous one of
 * its chain (a latency of several cycles), and the other chain's fills the
 * gap. */
#define TWO(g, cur, prev, next)  \
  GROUP(a_, g, cur, prev, next); \
  GROUP(b_, g, cur, prev, next)

TARGET static inline void load256(const kdf_sha_state *st, __m128i *abef, __m128i *cdgh) {
  __m128i dcba = _mm_loadu_si128((const __m128i *)st->w32);
  __m128i hgfe = _mm_loadu_si128((const __m128i *)st->w32 + 1);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
  *abef = _mm_alignr_epi8(cdab, efgh, 8);
  *cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
}

TARGET static inline void store256(kdf_sha_state *st, __m128i abef, __m128i cdgh) {
  __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
  _mm_storeu_si128((__m128i *)st->w32, _mm_blend_epi16(feba, dchg, 0xf0));
  _mm_storeu_si128((__m128i *)st->w32 + 1, _mm_alignr_epi8(dchg, feba, 8));
}

TARGET void kdf_sha256_compress_shani(kdf_sha_state *st, const uint8_t *p, size_t n) {
  const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i a_s0, a_s1;
  load256(st, &a_s0, &a_s1);
  for (; n > 0; n--, p += 64) {
    const uint8_t *a_p = p;
    const __m128i abef = a_s0, cdgh = a_s1;
    __m128i a_m0, a_m1, a_m2, a_m3;
    BLOCK256(ONE);
    a_s0 = _mm_add_epi32(a_s0, abef);
    a_s1 = _mm_add_epi32(a_s1, cdgh);
  }
  store256(st, a_s0, a_s1);
}

TARGET void kdf_sha256_compress_shani_x2(kdf_sha_state *a, const uint8_t *pa, kdf_sha_state *b,
                                         const uint8_t *pb) {
  const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  const uint8_t *a_p = pa, *b_p = pb;
  __m128i a_s0, a_s1, b_s0, b_s1, a_m0, a_m1, a_m2, a_m3, b_m0, b_m1, b_m2, b_m3;
  load256(a, &a_s0, &a_s1);
  load256(b, &b_s0, &b_s1);
  const __m128i a_abef = a_s0, a_cdgh = a_s1, b_abef = b_s0, b_cdgh = b_s1;
  BLOCK256(TWO);
  store256(a, _mm_add_epi32(a_s0, a_abef), _mm_add_epi32(a_s1, a_cdgh));
  store256(b, _mm_add_epi32(b_s0, b_abef), _mm_add_epi32(b_s1, b_cdgh));
}

/* ---- SHA-1 ----------------------------------------------------------------- */

/* Group g (rounds 4g..4g+3) of chain X (variable prefix as for SHA-256;
 * X##abcd, X##e0/X##e1 alternate between carrying E into sha1rnds4 and
 * saving A for the next group's sha1nexte). After the rounds, while later
 * groups need them: W for the next group (msg2, to group 18), the one
 * three on (msg1, to 16), the one two on (xor, to 17). */
#define GROUP1(X, g, cur, prev, next, next2, eu, en, f)                       \
  do {                                                                        \
    if ((g) < 4) X##cur = LOADW(X##p, g, mask1);                              \
    if ((g) == 0)                                                             \
      X##eu = _mm_add_epi32(X##eu, X##cur);                                   \
    else                                                                      \
      X##eu = _mm_sha1nexte_epu32(X##eu, X##cur);                             \
    X##en = X##abcd;                                                          \
    X##abcd = _mm_sha1rnds4_epu32(X##abcd, X##eu, f);                         \
    if ((g) >= 3 && (g) <= 18) X##next = _mm_sha1msg2_epu32(X##next, X##cur); \
    if ((g) >= 1 && (g) <= 16) X##prev = _mm_sha1msg1_epu32(X##prev, X##cur); \
    if ((g) >= 2 && (g) <= 17) X##next2 = _mm_xor_si128(X##next2, X##cur);    \
  } while (0)

/* The twenty groups of one block, each through STEP. */
#define BLOCK1(STEP)                   \
  STEP(0, m0, m3, m1, m2, e0, e1, 0);  \
  STEP(1, m1, m0, m2, m3, e1, e0, 0);  \
  STEP(2, m2, m1, m3, m0, e0, e1, 0);  \
  STEP(3, m3, m2, m0, m1, e1, e0, 0);  \
  STEP(4, m0, m3, m1, m2, e0, e1, 0);  \
  STEP(5, m1, m0, m2, m3, e1, e0, 1);  \
  STEP(6, m2, m1, m3, m0, e0, e1, 1);  \
  STEP(7, m3, m2, m0, m1, e1, e0, 1);  \
  STEP(8, m0, m3, m1, m2, e0, e1, 1);  \
  STEP(9, m1, m0, m2, m3, e1, e0, 1);  \
  STEP(10, m2, m1, m3, m0, e0, e1, 2); \
  STEP(11, m3, m2, m0, m1, e1, e0, 2); \
  STEP(12, m0, m3, m1, m2, e0, e1, 2); \
  STEP(13, m1, m0, m2, m3, e1, e0, 2); \
  STEP(14, m2, m1, m3, m0, e0, e1, 2); \
  STEP(15, m3, m2, m0, m1, e1, e0, 3); \
  STEP(16, m0, m3, m1, m2, e0, e1, 3); \
  STEP(17, m1, m0, m2, m3, e1, e0, 3); \
  STEP(18, m2, m1, m3, m0, e0, e1, 3); \
  STEP(19, m3, m2, m0, m1, e1, e0, 3);
#define ONE1(g, cur, prev, next, next2, eu, en, f) GROUP1(a_, g, cur, prev, next, next2, eu, en, f)
#define TWO1(g, cur, prev, next, next2, eu, en, f)  \
  GROUP1(a_, g, cur, prev, next, next2, eu, en, f); \
  GROUP1(b_, g, cur, prev, next, next2, eu, en, f)

#define MASK1 _mm_set_epi64x(0x0001020304050607ll, 0x08090a0b0c0d0e0fll)

TARGET static inline void load1(const kdf_sha_state *st, __m128i *abcd, __m128i *e) {
  *abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)st->w32), 0x1b);
  *e = _mm_set_epi32((int)st->w32[4], 0, 0, 0);
}

TARGET static inline void store1(kdf_sha_state *st, __m128i abcd, __m128i e) {
  _mm_storeu_si128((__m128i *)st->w32, _mm_shuffle_epi32(abcd, 0x1b));
  st->w32[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

TARGET void kdf_sha1_compress_shani(kdf_sha_state *st, const uint8_t *p, size_t n) {
  const __m128i mask1 = MASK1;
  __m128i a_abcd, a_e0, a_e1;
  load1(st, &a_abcd, &a_e0);
  for (; n > 0; n--, p += 64) {
    const uint8_t *a_p = p;
    const __m128i abcd_save = a_abcd, e_save = a_e0;
    __m128i a_m0, a_m1, a_m2, a_m3;
    BLOCK1(ONE1);
    a_e0 = _mm_sha1nexte_epu32(a_e0, e_save);
    a_abcd = _mm_add_epi32(a_abcd, abcd_save);
  }
  store1(st, a_abcd, a_e0);
}

TARGET void kdf_sha1_compress_shani_x2(kdf_sha_state *a, const uint8_t *pa, kdf_sha_state *b,
                                       const uint8_t *pb) {
  const __m128i mask1 = MASK1;
  const uint8_t *a_p = pa, *b_p = pb;
  __m128i a_abcd, a_e0, a_e1, b_abcd, b_e0, b_e1;
  __m128i a_m0, a_m1, a_m2, a_m3, b_m0, b_m1, b_m2, b_m3;
  load1(a, &a_abcd, &a_e0);
  load1(b, &b_abcd, &b_e0);
  const __m128i a_abcd_save = a_abcd, a_e_save = a_e0, b_abcd_save = b_abcd, b_e_save = b_e0;
  BLOCK1(TWO1);
  store1(a, _mm_add_epi32(a_abcd, a_abcd_save), _mm_sha1nexte_epu32(a_e0, a_e_save));
  store1(b, _mm_add_epi32(b_abcd, b_abcd_save), _mm_sha1nexte_epu32(b_e0, b_e_save));
}

/* ---- SHA-512 --------------------------------------------------------------- */

/* The portable rounds again, with BMI2's rorx: three-operand rotates that
 * leave the flags alone, so the rounds need no register copies. */
__attribute__((target("bmi2"))) void kdf_sha512_compress_bmi2(kdf_sha_state *st, const uint8_t *p,
                                                              size_t n) {
  uint64_t *h = st->w64;
  for (; n > 0; n--, p += 128) kdf_sha512_block(h, p);
}

/* The rounds stay scalar (rorx), but the message schedule runs two words
 * at a time in vector registers, 16 rounds ahead of its use, and lands in
 * memory already added to K: the scalar schedule (two sigmas, three adds
 * and the ring traffic per round) was the bottleneck, not the rounds. The
 * ring X[0..7] holds W[16j..16j+15] as eight pairs, so every index is a
 * constant once the macros expand. AVX2 and AVX-512VL differ only in the
 * sigmas: AVX-512VL has 64-bit rotates and a three-way XOR. */

#define VROR(x, n) _mm_or_si128(_mm_srli_epi64(x, n), _mm_slli_epi64(x, 64 - (n)))
#define SIG_AVX2(x, r1, r2, s) \
  _mm_xor_si128(_mm_xor_si128(VROR(x, r1), VROR(x, r2)), _mm_srli_epi64(x, s))
#define SIG_AVX512(x, r1, r2, s) \
  _mm_ternarylogic_epi64(_mm_ror_epi64(x, r1), _mm_ror_epi64(x, r2), _mm_srli_epi64(x, s), 0x96)

/* X[k] = W[t..t+1]: sigma1(W[t-2..t-1]) + W[t-7..t-6] + sigma0(W[t-15..t-14])
 * + W[t-16..t-15], the last being X[k] on entry. Both lanes are
 * independent: W[t+1] needs W[t-1], not W[t]. */
#define VSCHED(SIG, k, t)                                                              \
  do {                                                                                 \
    __m128i w2_ = X[((k) + 7) & 7];                                                    \
    __m128i w15_ = _mm_alignr_epi8(X[((k) + 1) & 7], X[k], 8);                         \
    __m128i w7_ = _mm_alignr_epi8(X[((k) + 5) & 7], X[((k) + 4) & 7], 8);              \
    X[k] = _mm_add_epi64(_mm_add_epi64(X[k], SIG(w15_, 1, 8, 7)),                      \
                         _mm_add_epi64(w7_, SIG(w2_, 19, 61, 6)));                     \
    _mm_store_si128((__m128i *)(wk + ((t)&15)),                                        \
                    _mm_add_epi64(X[k], _mm_loadu_si128((const __m128i *)(K + (t))))); \
  } while (0)

/* Two rounds on wk[t&15], wk[t&15 + 1], renaming the variables by two. */
#define R2(a, b, c, d, e, f, g, h, t)                \
  KDF_R512(a, b, c, d, e, f, g, h, 0, wk[((t)&15)]); \
  KDF_R512(h, a, b, c, d, e, f, g, 0, wk[((t)&15) + 1])

/* Sixteen rounds from t, scheduling W[t+16..t+31] as they free the ring. */
#define R16(SIG, t, more)               \
  R2(a, b, c, d, e, f, g, h, (t));      \
  if (more) VSCHED(SIG, 0, (t) + 16);   \
  R2(g, h, a, b, c, d, e, f, (t) + 2);  \
  if (more) VSCHED(SIG, 1, (t) + 18);   \
  R2(e, f, g, h, a, b, c, d, (t) + 4);  \
  if (more) VSCHED(SIG, 2, (t) + 20);   \
  R2(c, d, e, f, g, h, a, b, (t) + 6);  \
  if (more) VSCHED(SIG, 3, (t) + 22);   \
  R2(a, b, c, d, e, f, g, h, (t) + 8);  \
  if (more) VSCHED(SIG, 4, (t) + 24);   \
  R2(g, h, a, b, c, d, e, f, (t) + 10); \
  if (more) VSCHED(SIG, 5, (t) + 26);   \
  R2(e, f, g, h, a, b, c, d, (t) + 12); \
  if (more) VSCHED(SIG, 6, (t) + 28);   \
  R2(c, d, e, f, g, h, a, b, (t) + 14); \
  if (more) VSCHED(SIG, 7, (t) + 30)

/* The whole function, once per sigma flavour. wk is a 16-entry ring too:
 * W+K for rounds t..t+15 while the schedule writes t+16..t+31 into the
 * slots just read. */
#define SHA512_VEC_BODY(SIG)                                                               \
  const uint64_t *K = kdf_sha512_k;                                                        \
  const __m128i bswap = _mm_set_epi64x(0x08090a0b0c0d0e0fll, 0x0001020304050607ll);        \
  uint64_t *hs = st->w64;                                                                  \
  for (; n > 0; n--, p += 128) {                                                           \
    _Alignas(16) uint64_t wk[16];                                                          \
    __m128i X[8];                                                                          \
    uint64_t a = hs[0], b = hs[1], c = hs[2], d = hs[3];                                   \
    uint64_t e = hs[4], f = hs[5], g = hs[6], h = hs[7];                                   \
    for (int k = 0; k < 8; k++) {                                                          \
      X[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)p + k), bswap);             \
      _mm_store_si128((__m128i *)(wk + 2 * k),                                             \
                      _mm_add_epi64(X[k], _mm_loadu_si128((const __m128i *)(K + 2 * k)))); \
    }                                                                                      \
    R16(SIG, 0, 1);                                                                        \
    R16(SIG, 16, 1);                                                                       \
    R16(SIG, 32, 1);                                                                       \
    R16(SIG, 48, 1);                                                                       \
    R16(SIG, 64, 0);                                                                       \
    hs[0] += a;                                                                            \
    hs[1] += b;                                                                            \
    hs[2] += c;                                                                            \
    hs[3] += d;                                                                            \
    hs[4] += e;                                                                            \
    hs[5] += f;                                                                            \
    hs[6] += g;                                                                            \
    hs[7] += h;                                                                            \
  }

__attribute__((target("avx2,bmi2"))) void kdf_sha512_compress_avx2(kdf_sha_state *st,
                                                                   const uint8_t *p, size_t n) {
  SHA512_VEC_BODY(SIG_AVX2)
}

__attribute__((target("avx512f,avx512vl,avx2,bmi2"))) void kdf_sha512_compress_avx512(
    kdf_sha_state *st, const uint8_t *p, size_t n) {
  SHA512_VEC_BODY(SIG_AVX512)
}

#else
/* ISO C wants a declaration in every translation unit. */
typedef int kdf_sha_x86_unused;
#endif
