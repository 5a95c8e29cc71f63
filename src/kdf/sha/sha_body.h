/* Private to src/kdf/sha: byte order helpers, the round constants, and the
 * SHA-256 and SHA-512 block bodies as always-inline functions, so a variant
 * file can compile the same C under a wider target (BMI2's rorx for
 * SHA-512 on x86) without a second copy of the rounds. */
#ifndef KDF_SHA_BODY_H
#define KDF_SHA_BODY_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define KDF_SHA_INLINE static inline __attribute__((always_inline))
#else
#define KDF_SHA_INLINE static inline
#endif

/* The round constants (FIPS 180-4 sections 4.2.2, 4.2.3), in sha_core.c. */
extern const uint32_t kdf_sha256_k[64];
extern const uint64_t kdf_sha512_k[80];

/* Shifts compile to one load + bswap (or movbe) on GCC and Clang. */
KDF_SHA_INLINE uint32_t kdf_sha_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

KDF_SHA_INLINE uint64_t kdf_sha_be64(const uint8_t *p) {
  return (uint64_t)kdf_sha_be32(p) << 32 | kdf_sha_be32(p + 4);
}

KDF_SHA_INLINE void kdf_sha_put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

KDF_SHA_INLINE void kdf_sha_put64(uint8_t *p, uint64_t v) {
  kdf_sha_put32(p, (uint32_t)(v >> 32));
  kdf_sha_put32(p + 4, (uint32_t)v);
}

#define KDF_ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))
#define KDF_ROR64(x, n) (((x) >> (n)) | ((x) << (64 - (n))))

/* Ch and Maj in the forms with one operation less than FIPS's. */
#define KDF_CH(x, y, z)  ((z) ^ ((x) & ((y) ^ (z))))
#define KDF_MAJ(x, y, z) (((x) & (y)) | ((z) & ((x) | (y))))

/* One round with the variables renamed by the caller: d and h are updated,
 * nothing else moves. */
#define KDF_R256(a, b, c, d, e, f, g, h, k, w)                                                  \
  do {                                                                                          \
    h += (KDF_ROR32(e, 6) ^ KDF_ROR32(e, 11) ^ KDF_ROR32(e, 25)) + KDF_CH(e, f, g) + (k) + (w); \
    d += h;                                                                                     \
    h += (KDF_ROR32(a, 2) ^ KDF_ROR32(a, 13) ^ KDF_ROR32(a, 22)) + KDF_MAJ(a, b, c);            \
  } while (0)

#define KDF_W256(W, i)                                                                   \
  (W[(i)&15] += (KDF_ROR32(W[((i) + 14) & 15], 17) ^ KDF_ROR32(W[((i) + 14) & 15], 19) ^ \
                 (W[((i) + 14) & 15] >> 10)) +                                           \
                W[((i) + 9) & 15] +                                                      \
                (KDF_ROR32(W[((i) + 1) & 15], 7) ^ KDF_ROR32(W[((i) + 1) & 15], 18) ^    \
                 (W[((i) + 1) & 15] >> 3)))

/* Eight rounds from round i (a literal, so every index below is a constant
 * and the ring stays in registers where the target has enough). */
#define KDF_LOAD256_8(i)                                                                        \
  KDF_R256(a, b, c, d, e, f, g, h, K[(i) + 0], (W[(i) + 0] = kdf_sha_be32(p + 4 * ((i) + 0)))); \
  KDF_R256(h, a, b, c, d, e, f, g, K[(i) + 1], (W[(i) + 1] = kdf_sha_be32(p + 4 * ((i) + 1)))); \
  KDF_R256(g, h, a, b, c, d, e, f, K[(i) + 2], (W[(i) + 2] = kdf_sha_be32(p + 4 * ((i) + 2)))); \
  KDF_R256(f, g, h, a, b, c, d, e, K[(i) + 3], (W[(i) + 3] = kdf_sha_be32(p + 4 * ((i) + 3)))); \
  KDF_R256(e, f, g, h, a, b, c, d, K[(i) + 4], (W[(i) + 4] = kdf_sha_be32(p + 4 * ((i) + 4)))); \
  KDF_R256(d, e, f, g, h, a, b, c, K[(i) + 5], (W[(i) + 5] = kdf_sha_be32(p + 4 * ((i) + 5)))); \
  KDF_R256(c, d, e, f, g, h, a, b, K[(i) + 6], (W[(i) + 6] = kdf_sha_be32(p + 4 * ((i) + 6)))); \
  KDF_R256(b, c, d, e, f, g, h, a, K[(i) + 7], (W[(i) + 7] = kdf_sha_be32(p + 4 * ((i) + 7))));

#define KDF_SCHED256_8(i)                                             \
  KDF_R256(a, b, c, d, e, f, g, h, K[(i) + 0], KDF_W256(W, (i) + 0)); \
  KDF_R256(h, a, b, c, d, e, f, g, K[(i) + 1], KDF_W256(W, (i) + 1)); \
  KDF_R256(g, h, a, b, c, d, e, f, K[(i) + 2], KDF_W256(W, (i) + 2)); \
  KDF_R256(f, g, h, a, b, c, d, e, K[(i) + 3], KDF_W256(W, (i) + 3)); \
  KDF_R256(e, f, g, h, a, b, c, d, K[(i) + 4], KDF_W256(W, (i) + 4)); \
  KDF_R256(d, e, f, g, h, a, b, c, K[(i) + 5], KDF_W256(W, (i) + 5)); \
  KDF_R256(c, d, e, f, g, h, a, b, K[(i) + 6], KDF_W256(W, (i) + 6)); \
  KDF_R256(b, c, d, e, f, g, h, a, K[(i) + 7], KDF_W256(W, (i) + 7));

KDF_SHA_INLINE void kdf_sha256_block(uint32_t *hs, const uint8_t *p) {
  const uint32_t *K = kdf_sha256_k;
  uint32_t W[16];
  uint32_t a = hs[0], b = hs[1], c = hs[2], d = hs[3];
  uint32_t e = hs[4], f = hs[5], g = hs[6], h = hs[7];
  KDF_LOAD256_8(0);
  KDF_LOAD256_8(8);
  KDF_SCHED256_8(16);
  KDF_SCHED256_8(24);
  KDF_SCHED256_8(32);
  KDF_SCHED256_8(40);
  KDF_SCHED256_8(48);
  KDF_SCHED256_8(56);
  hs[0] += a;
  hs[1] += b;
  hs[2] += c;
  hs[3] += d;
  hs[4] += e;
  hs[5] += f;
  hs[6] += g;
  hs[7] += h;
}

#define KDF_R512(a, b, c, d, e, f, g, h, k, w)                                                   \
  do {                                                                                           \
    h += (KDF_ROR64(e, 14) ^ KDF_ROR64(e, 18) ^ KDF_ROR64(e, 41)) + KDF_CH(e, f, g) + (k) + (w); \
    d += h;                                                                                      \
    h += (KDF_ROR64(a, 28) ^ KDF_ROR64(a, 34) ^ KDF_ROR64(a, 39)) + KDF_MAJ(a, b, c);            \
  } while (0)

#define KDF_W512(W, i)                                                      \
  (W[(i)&15] +=                                                             \
   (KDF_ROR64(W[((i) + 14) & 15], 19) ^ KDF_ROR64(W[((i) + 14) & 15], 61) ^ \
    (W[((i) + 14) & 15] >> 6)) +                                            \
   W[((i) + 9) & 15] +                                                      \
   (KDF_ROR64(W[((i) + 1) & 15], 1) ^ KDF_ROR64(W[((i) + 1) & 15], 8) ^ (W[((i) + 1) & 15] >> 7)))

/* Eight rounds from round i (a literal, so every index below is a constant
 * and the ring stays in registers where the target has enough). */
#define KDF_LOAD512_8(i)                                                                        \
  KDF_R512(a, b, c, d, e, f, g, h, K[(i) + 0], (W[(i) + 0] = kdf_sha_be64(p + 8 * ((i) + 0)))); \
  KDF_R512(h, a, b, c, d, e, f, g, K[(i) + 1], (W[(i) + 1] = kdf_sha_be64(p + 8 * ((i) + 1)))); \
  KDF_R512(g, h, a, b, c, d, e, f, K[(i) + 2], (W[(i) + 2] = kdf_sha_be64(p + 8 * ((i) + 2)))); \
  KDF_R512(f, g, h, a, b, c, d, e, K[(i) + 3], (W[(i) + 3] = kdf_sha_be64(p + 8 * ((i) + 3)))); \
  KDF_R512(e, f, g, h, a, b, c, d, K[(i) + 4], (W[(i) + 4] = kdf_sha_be64(p + 8 * ((i) + 4)))); \
  KDF_R512(d, e, f, g, h, a, b, c, K[(i) + 5], (W[(i) + 5] = kdf_sha_be64(p + 8 * ((i) + 5)))); \
  KDF_R512(c, d, e, f, g, h, a, b, K[(i) + 6], (W[(i) + 6] = kdf_sha_be64(p + 8 * ((i) + 6)))); \
  KDF_R512(b, c, d, e, f, g, h, a, K[(i) + 7], (W[(i) + 7] = kdf_sha_be64(p + 8 * ((i) + 7))));

#define KDF_SCHED512_8(i)                                             \
  KDF_R512(a, b, c, d, e, f, g, h, K[(i) + 0], KDF_W512(W, (i) + 0)); \
  KDF_R512(h, a, b, c, d, e, f, g, K[(i) + 1], KDF_W512(W, (i) + 1)); \
  KDF_R512(g, h, a, b, c, d, e, f, K[(i) + 2], KDF_W512(W, (i) + 2)); \
  KDF_R512(f, g, h, a, b, c, d, e, K[(i) + 3], KDF_W512(W, (i) + 3)); \
  KDF_R512(e, f, g, h, a, b, c, d, K[(i) + 4], KDF_W512(W, (i) + 4)); \
  KDF_R512(d, e, f, g, h, a, b, c, K[(i) + 5], KDF_W512(W, (i) + 5)); \
  KDF_R512(c, d, e, f, g, h, a, b, K[(i) + 6], KDF_W512(W, (i) + 6)); \
  KDF_R512(b, c, d, e, f, g, h, a, K[(i) + 7], KDF_W512(W, (i) + 7));

KDF_SHA_INLINE void kdf_sha512_block(uint64_t *hs, const uint8_t *p) {
  const uint64_t *K = kdf_sha512_k;
  uint64_t W[16];
  uint64_t a = hs[0], b = hs[1], c = hs[2], d = hs[3];
  uint64_t e = hs[4], f = hs[5], g = hs[6], h = hs[7];
  KDF_LOAD512_8(0);
  KDF_LOAD512_8(8);
  KDF_SCHED512_8(16);
  KDF_SCHED512_8(24);
  KDF_SCHED512_8(32);
  KDF_SCHED512_8(40);
  KDF_SCHED512_8(48);
  KDF_SCHED512_8(56);
  KDF_SCHED512_8(64);
  KDF_SCHED512_8(72);
  hs[0] += a;
  hs[1] += b;
  hs[2] += c;
  hs[3] += d;
  hs[4] += e;
  hs[5] += f;
  hs[6] += g;
  hs[7] += h;
}

#endif
