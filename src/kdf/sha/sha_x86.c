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
#include "sha_x86.h"

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

/* ---- PBKDF2 lanes on SHA-NI (SHA-224/256) ---------------------------------- */

/* Each chain keeps its keyed states, T, and the block it compresses next
 * in registers for a whole call: an iteration is two compressions with the
 * digest turned into message words by four shuffles, no bytes in memory.
 * The chain's critical path is the sha256rnds2 sequence; interleaving 2-4
 * chains group by group fills its latency with the other chains' work, up
 * to the instruction's throughput. Variables are per chain prefix X: X##i
 * and X##o the keyed states (ABEF, CDGH), X##t T, X##s0/s1 the running
 * state, X##m0..3 the message ring. */
#define LGROUP(X, g, cur, prev, next)                            \
  do {                                                           \
    RND4(X##s0, X##s1, X##cur, g);                               \
    if ((g) >= 3 && (g) <= 14) SCHED2(X##cur, X##prev, X##next); \
    if ((g) >= 1 && (g) <= 12) SCHED1(X##cur, X##prev);          \
  } while (0)

#define LANE_DECL(X, l) \
  __m128i X##i0, X##i1, X##o0, X##o1, X##t0, X##t1, X##s0, X##s1, X##m0, X##m1, X##m2, X##m3;
/* The next block from a digest in ABEF/CDGH form: [A B C D], [E F G H]
 * masked and padded (SHA-224 owns seven words), then constant padding. */
#define LANE_MSG(X)                                                                     \
  do {                                                                                  \
    __m128i feba_ = _mm_shuffle_epi32(X##s0, 0x1b);                                     \
    __m128i dchg_ = _mm_shuffle_epi32(X##s1, 0xb1);                                     \
    X##m0 = _mm_blend_epi16(feba_, dchg_, 0xf0);                                        \
    X##m1 = _mm_or_si128(_mm_and_si128(_mm_alignr_epi8(dchg_, feba_, 8), keep1), pad1); \
    X##m2 = pad2;                                                                       \
    X##m3 = pad3;                                                                       \
  } while (0)
#define LANE_IN(X, l)                         \
  load256(&lanes[l]->istate, &X##i0, &X##i1); \
  load256(&lanes[l]->ostate, &X##o0, &X##o1); \
  load256(&lanes[l]->t, &X##t0, &X##t1);      \
  load256(&lanes[l]->u, &X##s0, &X##s1);      \
  LANE_MSG(X);
#define LANE_INNER(X, l) \
  X##s0 = X##i0;         \
  X##s1 = X##i1;
#define LANE_MID(X, l)                 \
  X##s0 = _mm_add_epi32(X##s0, X##i0); \
  X##s1 = _mm_add_epi32(X##s1, X##i1); \
  LANE_MSG(X);                         \
  X##s0 = X##o0;                       \
  X##s1 = X##o1;
#define LANE_END(X, l)                 \
  X##s0 = _mm_add_epi32(X##s0, X##o0); \
  X##s1 = _mm_add_epi32(X##s1, X##o1); \
  X##t0 = _mm_xor_si128(X##t0, X##s0); \
  X##t1 = _mm_xor_si128(X##t1, X##s1); \
  LANE_MSG(X);
#define LANE_OUT(X, l)                  \
  store256(&lanes[l]->t, X##t0, X##t1); \
  store256(&lanes[l]->u, X##s0, X##s1);

#define EACH1(M)                   M(a_, 0)
#define EACH2(M)                   EACH1(M) M(b_, 1)
#define EACH3(M)                   EACH2(M) M(c_, 2)
#define EACH4(M)                   EACH3(M) M(d_, 3)
#define STEPS1(g, cur, prev, next) LGROUP(a_, g, cur, prev, next)
#define STEPS2(g, cur, prev, next) \
  STEPS1(g, cur, prev, next);      \
  LGROUP(b_, g, cur, prev, next)
#define STEPS3(g, cur, prev, next) \
  STEPS2(g, cur, prev, next);      \
  LGROUP(c_, g, cur, prev, next)
#define STEPS4(g, cur, prev, next) \
  STEPS3(g, cur, prev, next);      \
  LGROUP(d_, g, cur, prev, next)

/* In a loop iteration: block 1 (inner, keyed with ipad) on every chain
 * group by group, then block 2 (outer). If n is 0 the lanes are stored back
 * unchanged (u goes through LANE_MSG and back, which keeps its digest
 * words). */
#define LANES256(EACH, STEPS) \
  EACH(LANE_DECL)             \
  EACH(LANE_IN)               \
  for (; n > 0; n--) {        \
    EACH(LANE_INNER)          \
    BLOCK256(STEPS);          \
    EACH(LANE_MID)            \
    BLOCK256(STEPS);          \
    EACH(LANE_END)            \
  }                           \
  EACH(LANE_OUT)

TARGET static void lanes256_1(kdf_sha_lane *const *lanes, uint64_t n, __m128i keep1, __m128i pad1,
                              __m128i pad2, __m128i pad3){ LANES256(EACH1, STEPS1) } TARGET
    static void lanes256_2(kdf_sha_lane *const *lanes, uint64_t n, __m128i keep1, __m128i pad1,
                           __m128i pad2, __m128i pad3){ LANES256(EACH2, STEPS2) } TARGET
    static void lanes256_3(kdf_sha_lane *const *lanes, uint64_t n, __m128i keep1, __m128i pad1,
                           __m128i pad2, __m128i pad3){ LANES256(EACH3, STEPS3) } TARGET
    static void lanes256_4(kdf_sha_lane *const *lanes, uint64_t n, __m128i keep1, __m128i pad1,
                           __m128i pad2, __m128i pad3){ LANES256(EACH4, STEPS4) }

TARGET void kdf_sha256_lanes_shani(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k,
                                   uint64_t n) {
  uint64_t keep[16], pad[16];
  kdf_sha_lane_template(d, keep, pad);
#define V4(a, i) _mm_set_epi32((int)a[i + 3], (int)a[i + 2], (int)a[i + 1], (int)a[i])
  const __m128i keep1 = V4(keep, 4), pad1 = V4(pad, 4), pad2 = V4(pad, 8), pad3 = V4(pad, 12);
#undef V4
  /* The mask takes the message words from the digest; words 0-3 always
   * are digest words (SHA-224 and SHA-256 own at least seven). */
  while (k > 0) {
    size_t now = k > 4 ? 4 : k;
    switch (now) {
      case 1:
        lanes256_1(lanes, n, keep1, pad1, pad2, pad3);
        break;
      case 2:
        lanes256_2(lanes, n, keep1, pad1, pad2, pad3);
        break;
      case 3:
        lanes256_3(lanes, n, keep1, pad1, pad2, pad3);
        break;
      default:
        lanes256_4(lanes, n, keep1, pad1, pad2, pad3);
        break;
    }
    lanes += now;
    k -= now;
  }
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

/* ---- PBKDF2 lanes for SHA-384/512 in vector registers ----------------------- */

/* One chain per 64-bit element: the rounds of 4 (AVX2) or 8 (AVX-512)
 * independent chains run as one instruction stream, so the rounds' long
 * dependency chain is paid once for all of them. Lanes beyond k compute
 * a copy of lane 0 and are discarded. One or two chains go to the scalar
 * rounds instead: measured (sha_bench lanes, Zen 4, ns per iteration per
 * chain) scalar 306-358, AVX-512 lanes k=1 634, k=2 315-324, k=3 213-221,
 * k=8 78-83; AVX2 k=2 445-469, k=3 298-311, k=4 225-234. The body is written once over the
 * V_* operations, defined per instruction set below. */
#define V_S0(x) V_XOR3(V_ROR(x, 28), V_ROR(x, 34), V_ROR(x, 39))
#define V_S1(x) V_XOR3(V_ROR(x, 14), V_ROR(x, 18), V_ROR(x, 41))
#define V_s0(x) V_XOR3(V_ROR(x, 1), V_ROR(x, 8), V_SHR(x, 7))
#define V_s1(x) V_XOR3(V_ROR(x, 19), V_ROR(x, 61), V_SHR(x, 6))

/* Round t = r + i with the variables renamed by the caller (d and h
 * updated), the schedule just in time in the 16-entry ring W. */
#define VR(a, b, c, d, e, f, g, h, i)                                                             \
  do {                                                                                            \
    if (r > 0)                                                                                    \
      W[i] = V_ADD(V_ADD(W[i], V_s1(W[((i) + 14) & 15])),                                         \
                   V_ADD(W[((i) + 9) & 15], V_s0(W[((i) + 1) & 15])));                            \
    V_T t1_ = V_ADD(V_ADD(h, V_S1(e)),                                                            \
                    V_ADD(V_CH(e, f, g), V_ADD(W[i], V_SET1((long long)kdf_sha512_k[r + (i)])))); \
    d = V_ADD(d, t1_);                                                                            \
    h = V_ADD(t1_, V_ADD(V_S0(a), V_MAJ(a, b, c)));                                               \
  } while (0)

#define VR8(i)                         \
  VR(a, b, c, d, e, f, g, h, (i) + 0); \
  VR(h, a, b, c, d, e, f, g, (i) + 1); \
  VR(g, h, a, b, c, d, e, f, (i) + 2); \
  VR(f, g, h, a, b, c, d, e, (i) + 3); \
  VR(e, f, g, h, a, b, c, d, (i) + 4); \
  VR(d, e, f, g, h, a, b, c, (i) + 5); \
  VR(c, d, e, f, g, h, a, b, (i) + 6); \
  VR(b, c, d, e, f, g, h, a, (i) + 7)

/* out = st + compress(st, W); W is consumed. */
#define VCOMPRESS(st, out)                          \
  do {                                              \
    V_T a = st[0], b = st[1], c = st[2], d = st[3]; \
    V_T e = st[4], f = st[5], g = st[6], h = st[7]; \
    for (int r = 0; r < 80; r += 16) {              \
      VR8(0);                                       \
      VR8(8);                                       \
    }                                               \
    out[0] = V_ADD(a, st[0]);                       \
    out[1] = V_ADD(b, st[1]);                       \
    out[2] = V_ADD(c, st[2]);                       \
    out[3] = V_ADD(d, st[3]);                       \
    out[4] = V_ADD(e, st[4]);                       \
    out[5] = V_ADD(f, st[5]);                       \
    out[6] = V_ADD(g, st[6]);                       \
    out[7] = V_ADD(h, st[7]);                       \
  } while (0)

/* Gathers word j of one state from every lane (lane 0 again for the
 * unused ones), and scatters back the first k. */
#define V_GATHER(dst, field)                                                      \
  for (int j = 0; j < 8; j++) {                                                   \
    for (size_t l = 0; l < V_N; l++) tmp[l] = lanes[l < k ? l : 0]->field.w64[j]; \
    dst[j] = V_LOAD(tmp);                                                         \
  }
#define V_SCATTER(src, field)                                       \
  for (int j = 0; j < 8; j++) {                                     \
    V_STORE(tmp, src[j]);                                           \
    for (size_t l = 0; l < k; l++) lanes[l]->field.w64[j] = tmp[l]; \
  }

#define LANES512_BODY                                                                           \
  uint64_t keep[16], pad[16];                                                                   \
  kdf_sha_lane_template(d, keep, pad);                                                          \
  _Alignas(64) uint64_t tmp[V_N];                                                               \
  V_T I[8], O[8], T[8], U[8], W[16];                                                            \
  while (k > 0) {                                                                               \
    size_t now = k > V_N ? V_N : k, kk = k;                                                     \
    k = now;                                                                                    \
    if (now < 3) { /* see above */                                                              \
      kdf_sha_lanes_on(d, V_COMPRESS, lanes, now, n);                                           \
      break;                                                                                    \
    }                                                                                           \
    V_GATHER(I, istate);                                                                        \
    V_GATHER(O, ostate);                                                                        \
    V_GATHER(T, t);                                                                             \
    V_GATHER(U, u);                                                                             \
    for (uint64_t it = 0; it < n; it++) {                                                       \
      for (int j = 0; j < 16; j++)                                                              \
        W[j] = j < 8 ? V_OR(V_AND(U[j], V_SET1((long long)keep[j])), V_SET1((long long)pad[j])) \
                     : V_SET1((long long)pad[j]);                                               \
      VCOMPRESS(I, U);                                                                          \
      for (int j = 0; j < 16; j++)                                                              \
        W[j] = j < 8 ? V_OR(V_AND(U[j], V_SET1((long long)keep[j])), V_SET1((long long)pad[j])) \
                     : V_SET1((long long)pad[j]);                                               \
      VCOMPRESS(O, U);                                                                          \
      for (int j = 0; j < 8; j++) T[j] = V_XOR(T[j], U[j]);                                     \
    }                                                                                           \
    V_SCATTER(T, t);                                                                            \
    V_SCATTER(U, u);                                                                            \
    lanes += now;                                                                               \
    k = kk - now;                                                                               \
  }                                                                                             \
  /* The keyed states and chains passed through these locals. */                                \
  kdf_sha_wipe(tmp, sizeof tmp);                                                                \
  kdf_sha_wipe(I, sizeof I);                                                                    \
  kdf_sha_wipe(O, sizeof O);                                                                    \
  kdf_sha_wipe(T, sizeof T);                                                                    \
  kdf_sha_wipe(U, sizeof U);                                                                    \
  kdf_sha_wipe(W, sizeof W);

#define V_T             __m256i
#define V_N             4
#define V_COMPRESS      kdf_sha512_compress_avx2
#define V_ADD           _mm256_add_epi64
#define V_XOR           _mm256_xor_si256
#define V_AND           _mm256_and_si256
#define V_OR            _mm256_or_si256
#define V_SHR           _mm256_srli_epi64
#define V_ROR(x, n)     _mm256_or_si256(_mm256_srli_epi64(x, n), _mm256_slli_epi64(x, 64 - (n)))
#define V_XOR3(x, y, z) _mm256_xor_si256(_mm256_xor_si256(x, y), z)
#define V_CH(e, f, g)   _mm256_xor_si256(g, _mm256_and_si256(e, _mm256_xor_si256(f, g)))
#define V_MAJ(a, b, c) \
  _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, _mm256_or_si256(a, b)))
#define V_SET1        _mm256_set1_epi64x
#define V_LOAD(p)     _mm256_load_si256((const __m256i *)(p))
#define V_STORE(p, v) _mm256_store_si256((__m256i *)(p), v)

__attribute__((target("avx2"))) void kdf_sha512_lanes_avx2(const kdf_sha_desc *d,
                                                           kdf_sha_lane *const *lanes, size_t k,
                                                           uint64_t n) {
  LANES512_BODY
}

#undef V_T
#undef V_N
#undef V_COMPRESS
#undef V_ADD
#undef V_XOR
#undef V_AND
#undef V_OR
#undef V_SHR
#undef V_ROR
#undef V_XOR3
#undef V_CH
#undef V_MAJ
#undef V_SET1
#undef V_LOAD
#undef V_STORE

/* AVX-512: native 64-bit rotates, and one vpternlogq for each three-input
 * function (0x96 XOR, 0xca select for Ch, 0xe8 majority). */
#define V_T             __m512i
#define V_N             8
#define V_COMPRESS      kdf_sha512_compress_avx512
#define V_ADD           _mm512_add_epi64
#define V_XOR           _mm512_xor_si512
#define V_AND           _mm512_and_si512
#define V_OR            _mm512_or_si512
#define V_SHR           _mm512_srli_epi64
#define V_ROR           _mm512_ror_epi64
#define V_XOR3(x, y, z) _mm512_ternarylogic_epi64(x, y, z, 0x96)
#define V_CH(e, f, g)   _mm512_ternarylogic_epi64(e, f, g, 0xca)
#define V_MAJ(a, b, c)  _mm512_ternarylogic_epi64(a, b, c, 0xe8)
#define V_SET1          _mm512_set1_epi64
#define V_LOAD(p)       _mm512_load_si512((const void *)(p))
#define V_STORE(p, v)   _mm512_store_si512((void *)(p), v)

__attribute__((target("avx512f"))) void kdf_sha512_lanes_avx512(const kdf_sha_desc *d,
                                                                kdf_sha_lane *const *lanes,
                                                                size_t k, uint64_t n) {
  LANES512_BODY
}

#else
/* ISO C wants a declaration in every translation unit. */
typedef int kdf_sha_x86_unused;
#endif
