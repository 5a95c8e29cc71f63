/* SHA-1 and SHA-256 compressions on the ARMv8 cryptography extensions
 * (SHA1C/P/M/H/SU0/SU1, SHA256H/H2/SU0/SU1). Compiled on arm64 only; the
 * rest of the build stays at the baseline ISA and reaches these through
 * kdf_sha_select, which checks HWCAP_SHA1/SHA2 first. SHA-512 has its own
 * instructions from ARMv8.2 (FEAT_SHA512: Neoverse V1/V2 as in Graviton 3
 * and 4, Apple cores), in a separate variant because many arm64 servers
 * (Graviton 2, Ampere Altra) have SHA-256 but not SHA-512.
 *
 * The instructions take the state in natural order (ABCD, EFGH), so the
 * native state loads and stores without shuffles. */
#include "sha_arm.h"

#ifdef KDF_SHA_HAVE_ARM

/* clang before 16 declares the SHA intrinsics only when the whole file is
 * built for SHA2 (its arm_neon.h tests the macro); the functions below
 * carry the target attribute, which is what the code generator needs, so
 * claiming the macro for the header alone is safe. GCC and newer clang
 * declare them regardless. */
#if defined(__clang__) && !defined(__ARM_FEATURE_SHA2)
#define __ARM_FEATURE_SHA2 1
#endif
#if defined(__clang__) && !defined(__ARM_FEATURE_SHA512)
#define __ARM_FEATURE_SHA512 1
#endif
#include "sha_body.h"

#include <arm_neon.h>

#if defined(__clang__)
/* Named features, not "crypto": clang 16 and later (Apple's too) no
 * longer let "crypto" or "sha3" alone turn on the SHA-2 feature that the
 * intrinsics check and the SHA-512 instructions need (the code generator
 * fails with "Cannot select"). clang 14 takes these names too. */
#define TARGET    __attribute__((target("sha2")))
#define TARGET512 __attribute__((target("sha2,sha3")))
#else
#define TARGET    __attribute__((target("+crypto")))
/* GCC's arm_neon.h declares the SHA-512 intrinsics under this target. */
#define TARGET512 __attribute__((target("arch=armv8.2-a+sha3")))
#endif

/* Big-endian words from 16 bytes. */
#define LOAD_BE(p) vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p)))

/* ---- SHA-256 --------------------------------------------------------------- */

/* Four rounds on m (W for group g), then, while later groups need it, m
 * becomes W for group g + 4. */
#define RND4(m, m1, m2, m3, g, sched)                                 \
  do {                                                                \
    uint32x4_t wk_ = vaddq_u32(m, vld1q_u32(kdf_sha256_k + 4 * (g))); \
    uint32x4_t s0_ = s0;                                              \
    if (sched) m = vsha256su1q_u32(vsha256su0q_u32(m, m1), m2, m3);   \
    s0 = vsha256hq_u32(s0, s1, wk_);                                  \
    s1 = vsha256h2q_u32(s1, s0_, wk_);                                \
  } while (0)

TARGET void kdf_sha256_compress_armce(kdf_sha_state *st, const uint8_t *p, size_t n) {
  uint32x4_t s0 = vld1q_u32(st->w32), s1 = vld1q_u32(st->w32 + 4);
  for (; n > 0; n--, p += 64) {
    const uint32x4_t abcd = s0, efgh = s1;
    uint32x4_t m0 = LOAD_BE(p), m1 = LOAD_BE(p + 16), m2 = LOAD_BE(p + 32), m3 = LOAD_BE(p + 48);
    RND4(m0, m1, m2, m3, 0, 1);
    RND4(m1, m2, m3, m0, 1, 1);
    RND4(m2, m3, m0, m1, 2, 1);
    RND4(m3, m0, m1, m2, 3, 1);
    RND4(m0, m1, m2, m3, 4, 1);
    RND4(m1, m2, m3, m0, 5, 1);
    RND4(m2, m3, m0, m1, 6, 1);
    RND4(m3, m0, m1, m2, 7, 1);
    RND4(m0, m1, m2, m3, 8, 1);
    RND4(m1, m2, m3, m0, 9, 1);
    RND4(m2, m3, m0, m1, 10, 1);
    RND4(m3, m0, m1, m2, 11, 1);
    RND4(m0, m1, m2, m3, 12, 0);
    RND4(m1, m2, m3, m0, 13, 0);
    RND4(m2, m3, m0, m1, 14, 0);
    RND4(m3, m0, m1, m2, 15, 0);
    s0 = vaddq_u32(s0, abcd);
    s1 = vaddq_u32(s1, efgh);
  }
  vst1q_u32(st->w32, s0);
  vst1q_u32(st->w32 + 4, s1);
}

/* ---- SHA-1 ----------------------------------------------------------------- */

/* Four rounds with function op (c: choose, p: parity, m: majority) and
 * constant k on m (W for group g), then m becomes W for group g + 4 while
 * later groups need it. e alternates between two scalars: sha1h of the
 * old A is the E of the next group. */
#define RND1(op, k, m, m1, m2, m3, sched)                       \
  do {                                                          \
    uint32x4_t wk_ = vaddq_u32(m, vdupq_n_u32(k));              \
    uint32_t e_next_ = vsha1h_u32(vgetq_lane_u32(abcd, 0));     \
    if (sched) m = vsha1su1q_u32(vsha1su0q_u32(m, m1, m2), m3); \
    abcd = op(abcd, e, wk_);                                    \
    e = e_next_;                                                \
  } while (0)

#define C1 0x5a827999u
#define C2 0x6ed9eba1u
#define C3 0x8f1bbcdcu
#define C4 0xca62c1d6u

TARGET void kdf_sha1_compress_armce(kdf_sha_state *st, const uint8_t *p, size_t n) {
  uint32x4_t abcd = vld1q_u32(st->w32);
  uint32_t e = st->w32[4];
  for (; n > 0; n--, p += 64) {
    const uint32x4_t abcd_save = abcd;
    const uint32_t e_save = e;
    uint32x4_t m0 = LOAD_BE(p), m1 = LOAD_BE(p + 16), m2 = LOAD_BE(p + 32), m3 = LOAD_BE(p + 48);
    RND1(vsha1cq_u32, C1, m0, m1, m2, m3, 1);
    RND1(vsha1cq_u32, C1, m1, m2, m3, m0, 1);
    RND1(vsha1cq_u32, C1, m2, m3, m0, m1, 1);
    RND1(vsha1cq_u32, C1, m3, m0, m1, m2, 1);
    RND1(vsha1cq_u32, C1, m0, m1, m2, m3, 1);
    RND1(vsha1pq_u32, C2, m1, m2, m3, m0, 1);
    RND1(vsha1pq_u32, C2, m2, m3, m0, m1, 1);
    RND1(vsha1pq_u32, C2, m3, m0, m1, m2, 1);
    RND1(vsha1pq_u32, C2, m0, m1, m2, m3, 1);
    RND1(vsha1pq_u32, C2, m1, m2, m3, m0, 1);
    RND1(vsha1mq_u32, C3, m2, m3, m0, m1, 1);
    RND1(vsha1mq_u32, C3, m3, m0, m1, m2, 1);
    RND1(vsha1mq_u32, C3, m0, m1, m2, m3, 1);
    RND1(vsha1mq_u32, C3, m1, m2, m3, m0, 1);
    RND1(vsha1mq_u32, C3, m2, m3, m0, m1, 1);
    RND1(vsha1pq_u32, C4, m3, m0, m1, m2, 1);
    RND1(vsha1pq_u32, C4, m0, m1, m2, m3, 0);
    RND1(vsha1pq_u32, C4, m1, m2, m3, m0, 0);
    RND1(vsha1pq_u32, C4, m2, m3, m0, m1, 0);
    RND1(vsha1pq_u32, C4, m3, m0, m1, m2, 0);
    abcd = vaddq_u32(abcd, abcd_save);
    e += e_save;
  }
  vst1q_u32(st->w32, abcd);
  st->w32[4] = e;
}

/* ---- SHA-512 --------------------------------------------------------------- */

/* Two rounds on m (W[2k..2k+1]). The state is four pairs (ab, cd, ef, gh)
 * that the caller renames by one pair per call: gh takes the new ab, cd
 * the new ef. sha512h wants W+K with its halves swapped. */
#define RND2(ab, cd, ef, gh, m, k)                                                   \
  do {                                                                               \
    uint64x2_t wk_ = vaddq_u64(m, vld1q_u64(kdf_sha512_k + 2 * (k)));                \
    uint64x2_t sum_ = vaddq_u64(vextq_u64(wk_, wk_, 1), gh);                         \
    uint64x2_t t_ = vsha512hq_u64(sum_, vextq_u64(ef, gh, 1), vextq_u64(cd, ef, 1)); \
    gh = vsha512h2q_u64(t_, cd, ab);                                                 \
    cd = vaddq_u64(cd, t_);                                                          \
  } while (0)

/* W[2k..2k+1] for k >= 8 into the ring slot of W[2k-16..2k-15]. */
#define SCHED512(k)                                                                         \
  M[(k)&7] = vsha512su1q_u64(vsha512su0q_u64(M[(k)&7], M[((k) + 1) & 7]), M[((k) + 7) & 7], \
                             vextq_u64(M[((k) + 4) & 7], M[((k) + 5) & 7], 1))

/* Eight rounds from pair k; s0..s3 come back to their roles after four. */
#define RND8(k, sched)                               \
  do {                                               \
    if (sched) SCHED512(k);                          \
    RND2(s0, s1, s2, s3, M[(k)&7], k);               \
    if (sched) SCHED512((k) + 1);                    \
    RND2(s3, s0, s1, s2, M[((k) + 1) & 7], (k) + 1); \
    if (sched) SCHED512((k) + 2);                    \
    RND2(s2, s3, s0, s1, M[((k) + 2) & 7], (k) + 2); \
    if (sched) SCHED512((k) + 3);                    \
    RND2(s1, s2, s3, s0, M[((k) + 3) & 7], (k) + 3); \
  } while (0)

TARGET512 void kdf_sha512_compress_armce(kdf_sha_state *st, const uint8_t *p, size_t n) {
  uint64x2_t s0 = vld1q_u64(st->w64), s1 = vld1q_u64(st->w64 + 2);
  uint64x2_t s2 = vld1q_u64(st->w64 + 4), s3 = vld1q_u64(st->w64 + 6);
  for (; n > 0; n--, p += 128) {
    const uint64x2_t ab = s0, cd = s1, ef = s2, gh = s3;
    uint64x2_t M[8];
    for (int k = 0; k < 8; k++) M[k] = vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(p + 16 * k)));
    RND8(0, 0);
    RND8(4, 0);
    RND8(8, 1);
    RND8(12, 1);
    RND8(16, 1);
    RND8(20, 1);
    RND8(24, 1);
    RND8(28, 1);
    RND8(32, 1);
    RND8(36, 1);
    s0 = vaddq_u64(s0, ab);
    s1 = vaddq_u64(s1, cd);
    s2 = vaddq_u64(s2, ef);
    s3 = vaddq_u64(s3, gh);
  }
  vst1q_u64(st->w64, s0);
  vst1q_u64(st->w64 + 2, s1);
  vst1q_u64(st->w64 + 4, s2);
  vst1q_u64(st->w64 + 6, s3);
}

#else
/* ISO C wants a declaration in every translation unit. */
typedef int kdf_sha_arm_unused;
#endif
