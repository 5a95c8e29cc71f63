#include "kdf/argon2/blake2b.h"

#include "common/status.h"
#include "common/wipe.h"

#include <string.h>

static const uint64_t blake2b_iv[8] = { 0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                                        0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                                        0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                        0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL };

/* Message schedule (RFC 7693 section 2.7); rounds 10 and 11 reuse 0 and 1. */
static const uint8_t blake2b_sigma[12][16] = {
  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
  { 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
  { 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
  { 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
  { 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
  { 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
  { 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
  { 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
  { 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
  { 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
  { 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 }
};

static uint64_t load64_le(const uint8_t *p) {
  return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
         ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) |
         ((uint64_t)p[7] << 56);
}

static void store64_le(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

#define B2B_G(a, b, c, d, x, y)     \
  do {                              \
    v[a] = v[a] + v[b] + (x);       \
    v[d] = rotr64(v[d] ^ v[a], 32); \
    v[c] = v[c] + v[d];             \
    v[b] = rotr64(v[b] ^ v[c], 24); \
    v[a] = v[a] + v[b] + (y);       \
    v[d] = rotr64(v[d] ^ v[a], 16); \
    v[c] = v[c] + v[d];             \
    v[b] = rotr64(v[b] ^ v[c], 63); \
  } while (0)

static void blake2b_compress(kdf_blake2b_state *s, const uint8_t *block, int last) {
  uint64_t v[16], m[16];
  for (int i = 0; i < 16; i++) m[i] = load64_le(block + 8 * i);
  for (int i = 0; i < 8; i++) {
    v[i] = s->h[i];
    v[i + 8] = blake2b_iv[i];
  }
  v[12] ^= s->t[0];
  v[13] ^= s->t[1];
  if (last) v[14] = ~v[14];
  for (int r = 0; r < 12; r++) {
    const uint8_t *sg = blake2b_sigma[r];
    B2B_G(0, 4, 8, 12, m[sg[0]], m[sg[1]]);
    B2B_G(1, 5, 9, 13, m[sg[2]], m[sg[3]]);
    B2B_G(2, 6, 10, 14, m[sg[4]], m[sg[5]]);
    B2B_G(3, 7, 11, 15, m[sg[6]], m[sg[7]]);
    B2B_G(0, 5, 10, 15, m[sg[8]], m[sg[9]]);
    B2B_G(1, 6, 11, 12, m[sg[10]], m[sg[11]]);
    B2B_G(2, 7, 8, 13, m[sg[12]], m[sg[13]]);
    B2B_G(3, 4, 9, 14, m[sg[14]], m[sg[15]]);
  }
  for (int i = 0; i < 8; i++) s->h[i] ^= v[i] ^ v[i + 8];
  secure_wipe(v, sizeof v);
  secure_wipe(m, sizeof m);
}

static void blake2b_add_count(kdf_blake2b_state *s, uint64_t n) {
  s->t[0] += n;
  if (s->t[0] < n) s->t[1]++;
}

int kdf_blake2b_init(kdf_blake2b_state *s, size_t outlen, const void *key, size_t keylen) {
  if (s == NULL || outlen == 0 || outlen > KDF_BLAKE2B_OUTBYTES || keylen > KDF_BLAKE2B_KEYBYTES ||
      (key == NULL && keylen != 0))
    return STATUS_EINVAL;
  memcpy(s->h, blake2b_iv, sizeof s->h);
  /* Parameter block: digest length, key length, fanout 1, depth 1. */
  s->h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
  s->t[0] = s->t[1] = 0;
  s->buflen = 0;
  s->outlen = outlen;
  memset(s->buf, 0, sizeof s->buf);
  if (keylen > 0) {
    /* The key, zero padded, is the first full block. */
    memcpy(s->buf, key, keylen);
    s->buflen = KDF_BLAKE2B_BLOCKBYTES;
  }
  return 0;
}

void kdf_blake2b_update(kdf_blake2b_state *s, const void *in, size_t inlen) {
  const uint8_t *p = (const uint8_t *)in;
  /* A full buffer is only compressed once more input arrives, because the
   * last block must be compressed with the final flag. */
  while (inlen > 0) {
    if (s->buflen == KDF_BLAKE2B_BLOCKBYTES) {
      blake2b_add_count(s, KDF_BLAKE2B_BLOCKBYTES);
      blake2b_compress(s, s->buf, 0);
      s->buflen = 0;
    }
    if (s->buflen == 0) {
      /* Fast path: whole blocks straight from the input, keeping the last
       * one (it may be the final block). */
      while (inlen > KDF_BLAKE2B_BLOCKBYTES) {
        blake2b_add_count(s, KDF_BLAKE2B_BLOCKBYTES);
        blake2b_compress(s, p, 0);
        p += KDF_BLAKE2B_BLOCKBYTES;
        inlen -= KDF_BLAKE2B_BLOCKBYTES;
      }
    }
    size_t take = KDF_BLAKE2B_BLOCKBYTES - s->buflen;
    if (take > inlen) take = inlen;
    memcpy(s->buf + s->buflen, p, take);
    s->buflen += take;
    p += take;
    inlen -= take;
  }
}

void kdf_blake2b_final(kdf_blake2b_state *s, uint8_t *out) {
  uint8_t full[KDF_BLAKE2B_OUTBYTES];
  blake2b_add_count(s, (uint64_t)s->buflen);
  memset(s->buf + s->buflen, 0, KDF_BLAKE2B_BLOCKBYTES - s->buflen);
  blake2b_compress(s, s->buf, 1);
  for (int i = 0; i < 8; i++) store64_le(full + 8 * i, s->h[i]);
  memcpy(out, full, s->outlen);
  secure_wipe(full, sizeof full);
  secure_wipe(s, sizeof *s);
}

int kdf_blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen, const void *key,
                size_t keylen) {
  kdf_blake2b_state s;
  int rc = kdf_blake2b_init(&s, outlen, key, keylen);
  if (rc != 0) return rc;
  kdf_blake2b_update(&s, in, inlen);
  kdf_blake2b_final(&s, out);
  return 0;
}

int kdf_blake2b_prepare(const kdf_blake2b_params *p, size_t *memory) {
  *memory = 0;
  return p->outlen >= 1 && p->outlen <= KDF_BLAKE2B_OUTBYTES && p->keylen <= KDF_BLAKE2B_KEYBYTES
             ? 0
             : STATUS_EINVAL;
}

int kdf_blake2b_run(const kdf_blake2b_params *p, void *scratch, size_t scratch_size,
                    const volatile int *stop) {
  (void)scratch;
  (void)scratch_size;
  (void)stop;
  return kdf_blake2b(p->out, p->outlen, p->in, p->inlen, p->key, p->keylen);
}
