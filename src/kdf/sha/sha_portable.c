/* Portable C compressions for SHA-1, SHA-256 and SHA-512 (FIPS 180-4
 * sections 6.1.2, 6.2.2, 6.4.2). Every variant falls back to these, and
 * SHA-512 runs only here on every CPU, so they are written for speed: the
 * rounds are unrolled with the eight working variables renamed instead of
 * shifted, and the message schedule lives in a 16-word ring computed just in
 * time, which keeps it in registers or L1. */
#include "sha_portable.h"

#include "sha_body.h"

/* ---- SHA-1 ----------------------------------------------------------------- */

#define ROL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

/* W[i] for i >= 16, in the ring W[0..15]. */
#define W1(i) \
  (W[(i)&15] = ROL32(W[((i) + 13) & 15] ^ W[((i) + 8) & 15] ^ W[((i) + 2) & 15] ^ W[(i)&15], 1))

#define F1(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define F2(b, c, d) ((b) ^ (c) ^ (d))
#define F3(b, c, d) (((b) & (c)) | ((d) & ((b) | (c))))

#define R1(f, k, a, b, c, d, e, w)             \
  do {                                         \
    e += ROL32(a, 5) + f(b, c, d) + (k) + (w); \
    b = ROL32(b, 30);                          \
  } while (0)

/* Five rounds, renaming the variables so no value moves. */
#define R1X5(f, k, i, w)             \
  R1(f, k, a, b, c, d, e, w(i));     \
  R1(f, k, e, a, b, c, d, w(i + 1)); \
  R1(f, k, d, e, a, b, c, w(i + 2)); \
  R1(f, k, c, d, e, a, b, w(i + 3)); \
  R1(f, k, b, c, d, e, a, w(i + 4))

#define W1LOAD(i) (W[i] = kdf_sha_be32(p + 4 * (i)))

void kdf_sha1_compress_portable(kdf_sha_state *st, const uint8_t *p, size_t n) {
  uint32_t *h = st->w32;
  for (; n > 0; n--, p += 64) {
    uint32_t W[16];
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    R1X5(F1, 0x5a827999, 0, W1LOAD);
    R1X5(F1, 0x5a827999, 5, W1LOAD);
    R1X5(F1, 0x5a827999, 10, W1LOAD);
    R1(F1, 0x5a827999, a, b, c, d, e, W1LOAD(15));
    R1(F1, 0x5a827999, e, a, b, c, d, W1(16));
    R1(F1, 0x5a827999, d, e, a, b, c, W1(17));
    R1(F1, 0x5a827999, c, d, e, a, b, W1(18));
    R1(F1, 0x5a827999, b, c, d, e, a, W1(19));
    R1X5(F2, 0x6ed9eba1, 20, W1);
    R1X5(F2, 0x6ed9eba1, 25, W1);
    R1X5(F2, 0x6ed9eba1, 30, W1);
    R1X5(F2, 0x6ed9eba1, 35, W1);
    R1X5(F3, 0x8f1bbcdc, 40, W1);
    R1X5(F3, 0x8f1bbcdc, 45, W1);
    R1X5(F3, 0x8f1bbcdc, 50, W1);
    R1X5(F3, 0x8f1bbcdc, 55, W1);
    R1X5(F2, 0xca62c1d6, 60, W1);
    R1X5(F2, 0xca62c1d6, 65, W1);
    R1X5(F2, 0xca62c1d6, 70, W1);
    R1X5(F2, 0xca62c1d6, 75, W1);
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
  }
}

/* ---- SHA-256 --------------------------------------------------------------- */

void kdf_sha256_compress_portable(kdf_sha_state *st, const uint8_t *p, size_t n) {
  uint32_t *h = st->w32;
  for (; n > 0; n--, p += 64) kdf_sha256_block(h, p);
}

/* ---- SHA-512 --------------------------------------------------------------- */

void kdf_sha512_compress_portable(kdf_sha_state *st, const uint8_t *p, size_t n) {
  uint64_t *h = st->w64;
  for (; n > 0; n--, p += 128) kdf_sha512_block(h, p);
}
