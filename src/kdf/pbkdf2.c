/* PBKDF2 (RFC 8018 section 5.2) with HMAC (RFC 2104), byte-identical to
 * node:crypto's pbkdf2 for every digest it accepts.
 *
 * Limits and units: iterations 1..2^31-1, key length 0..2^31-1 bytes (the
 * JS layer enforces node's ranges); password and salt any length.
 *
 * Two engines:
 *   - SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512 run a loop of our own on
 *     OpenSSL's raw compression functions (SHA*_Transform, which use SHA-NI
 *     or AVX2 when the CPU has them). HMAC's inner and outer states are
 *     computed once, and every iteration after the first is exactly two
 *     compressions of a block laid out once: both HMAC messages are one
 *     block of pad plus one digest, so they share the same padding. This is
 *     about twice as fast as PKCS5_PBKDF2_HMAC, which re-enters the EVP
 *     layer for every HMAC, and it lets us stop when the process exits.
 *   - Every other digest (SHA-3, SHA-512/256, BLAKE2, MD5, ...) goes through
 *     PKCS5_PBKDF2_HMAC, the call node:crypto makes. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "kdf/pbkdf2.h"

#include "common/status.h"
#include "common/stop.h"
#include "common/wipe.h"
#include "kdf/openssl.h"

#include <limits.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/sha.h>

/* Stop polling interval: a few milliseconds of work at most. */
#define STOP_CHECK_EVERY 4096u

typedef union {
  SHA_CTX sha1;
  SHA256_CTX sha256;
  SHA512_CTX sha512;
} any_ctx;

/* What the fast loop needs to know about one hash function. */
typedef struct {
  size_t block; /* compression block, bytes */
  size_t hlen;  /* digest, bytes */
  size_t words; /* state words that form the digest */
  int wide;     /* 64-bit words (SHA-384/512) */
  void (*init)(any_ctx *c);
  void (*update)(any_ctx *c, const uint8_t *d, size_t n);
  void (*final)(uint8_t *md, any_ctx *c);
  void (*transform)(any_ctx *c, const uint8_t *block);
  void (*get)(const any_ctx *c, uint64_t *w);
  void (*set)(any_ctx *c, const uint64_t *w);
} hash_shape;

/* ---- per-function adapters over OpenSSL's low-level API ---- */

static void sha1_init(any_ctx *c) { SHA1_Init(&c->sha1); }
static void sha1_update(any_ctx *c, const uint8_t *d, size_t n) { SHA1_Update(&c->sha1, d, n); }
static void sha1_final(uint8_t *md, any_ctx *c) { SHA1_Final(md, &c->sha1); }
static void sha1_transform(any_ctx *c, const uint8_t *b) { SHA1_Transform(&c->sha1, b); }
static void sha1_get(const any_ctx *c, uint64_t *w) {
  w[0] = c->sha1.h0;
  w[1] = c->sha1.h1;
  w[2] = c->sha1.h2;
  w[3] = c->sha1.h3;
  w[4] = c->sha1.h4;
}
static void sha1_set(any_ctx *c, const uint64_t *w) {
  c->sha1.h0 = (SHA_LONG)w[0];
  c->sha1.h1 = (SHA_LONG)w[1];
  c->sha1.h2 = (SHA_LONG)w[2];
  c->sha1.h3 = (SHA_LONG)w[3];
  c->sha1.h4 = (SHA_LONG)w[4];
}

static void sha224_init(any_ctx *c) { SHA224_Init(&c->sha256); }
static void sha256_init(any_ctx *c) { SHA256_Init(&c->sha256); }
/* SHA224_Update/Final are SHA256's with the context's md_len deciding. */
static void sha256_update(any_ctx *c, const uint8_t *d, size_t n) {
  SHA256_Update(&c->sha256, d, n);
}
static void sha256_final(uint8_t *md, any_ctx *c) { SHA256_Final(md, &c->sha256); }
static void sha256_transform(any_ctx *c, const uint8_t *b) { SHA256_Transform(&c->sha256, b); }
static void sha256_get(const any_ctx *c, uint64_t *w) {
  for (int i = 0; i < 8; i++) w[i] = c->sha256.h[i];
}
static void sha256_set(any_ctx *c, const uint64_t *w) {
  for (int i = 0; i < 8; i++) c->sha256.h[i] = (SHA_LONG)w[i];
}

static void sha384_init(any_ctx *c) { SHA384_Init(&c->sha512); }
static void sha512_init(any_ctx *c) { SHA512_Init(&c->sha512); }
static void sha512_update(any_ctx *c, const uint8_t *d, size_t n) {
  SHA512_Update(&c->sha512, d, n);
}
static void sha512_final(uint8_t *md, any_ctx *c) { SHA512_Final(md, &c->sha512); }
static void sha512_transform(any_ctx *c, const uint8_t *b) { SHA512_Transform(&c->sha512, b); }
static void sha512_get(const any_ctx *c, uint64_t *w) {
  for (int i = 0; i < 8; i++) w[i] = c->sha512.h[i];
}
static void sha512_set(any_ctx *c, const uint64_t *w) {
  for (int i = 0; i < 8; i++) c->sha512.h[i] = w[i];
}

static const hash_shape SHAPE_SHA1 = { 64,        20,          5,          0,
                                       sha1_init, sha1_update, sha1_final, sha1_transform,
                                       sha1_get,  sha1_set };
static const hash_shape SHAPE_SHA224 = {
  64, 28, 7, 0, sha224_init, sha256_update, sha256_final, sha256_transform, sha256_get, sha256_set
};
static const hash_shape SHAPE_SHA256 = {
  64, 32, 8, 0, sha256_init, sha256_update, sha256_final, sha256_transform, sha256_get, sha256_set
};
static const hash_shape SHAPE_SHA384 = {
  128, 48, 6, 1, sha384_init, sha512_update, sha512_final, sha512_transform, sha512_get, sha512_set
};
static const hash_shape SHAPE_SHA512 = {
  128, 64, 8, 1, sha512_init, sha512_update, sha512_final, sha512_transform, sha512_get, sha512_set
};

static const hash_shape *shape_for(const EVP_MD *md) {
  switch (EVP_MD_get_type(md)) {
    case NID_sha1:
      return &SHAPE_SHA1;
    case NID_sha224:
      return &SHAPE_SHA224;
    case NID_sha256:
      return &SHAPE_SHA256;
    case NID_sha384:
      return &SHAPE_SHA384;
    case NID_sha512:
      return &SHAPE_SHA512;
    default:
      return NULL;
  }
}

/* Big-endian words <-> bytes, for `n` digest bytes. */
static void store_words(const hash_shape *h, const uint64_t *w, uint8_t *out) {
  if (h->wide) {
    for (size_t i = 0; i < h->words; i++)
      for (int b = 0; b < 8; b++) out[i * 8 + (size_t)b] = (uint8_t)(w[i] >> (56 - 8 * b));
  } else {
    for (size_t i = 0; i < h->words; i++)
      for (int b = 0; b < 4; b++) out[i * 4 + (size_t)b] = (uint8_t)(w[i] >> (24 - 8 * b));
  }
}

static void load_words(const hash_shape *h, const uint8_t *in, uint64_t *w) {
  size_t size = h->wide ? 8 : 4;
  for (size_t i = 0; i < h->words; i++) {
    uint64_t v = 0;
    for (size_t b = 0; b < size; b++) v = (v << 8) | in[i * size + b];
    w[i] = v;
  }
}

static int fast_pbkdf2(const hash_shape *h, const uint8_t *pwd, size_t pwdlen, const uint8_t *salt,
                       size_t saltlen, uint64_t iterations, uint8_t *out, size_t outlen,
                       const volatile int *stop) {
  uint8_t key[128], pad[128], blk[128], digest[64], counter[4];
  uint64_t istate[8], ostate[8], w[8], t[8];
  any_ctx ictx, octx, c;
  int rc = 0;

  /* HMAC key: hashed when longer than a block, then zero-padded. */
  memset(key, 0, sizeof key);
  if (pwdlen > h->block) {
    h->init(&c);
    h->update(&c, pwd, pwdlen);
    h->final(key, &c);
  } else if (pwdlen > 0) {
    memcpy(key, pwd, pwdlen);
  }
  for (size_t i = 0; i < h->block; i++) pad[i] = key[i] ^ 0x36;
  h->init(&ictx);
  h->update(&ictx, pad, h->block);
  for (size_t i = 0; i < h->block; i++) pad[i] = key[i] ^ 0x5c;
  h->init(&octx);
  h->update(&octx, pad, h->block);
  h->get(&ictx, istate);
  h->get(&octx, ostate);

  /* The block compressed by every later iteration: a digest, then SHA
   * padding for a message of one block plus one digest. */
  memset(blk, 0, sizeof blk);
  blk[h->hlen] = 0x80;
  uint64_t bits = (uint64_t)(h->block + h->hlen) * 8;
  for (int b = 0; b < 8; b++) blk[h->block - 1 - (size_t)b] = (uint8_t)(bits >> (8 * b));

  uint32_t index = 1;
  for (size_t done = 0; done < outlen; done += h->hlen, index++) {
    counter[0] = (uint8_t)(index >> 24);
    counter[1] = (uint8_t)(index >> 16);
    counter[2] = (uint8_t)(index >> 8);
    counter[3] = (uint8_t)index;
    c = ictx;
    h->update(&c, salt, saltlen);
    h->update(&c, counter, 4);
    h->final(digest, &c);
    c = octx;
    h->update(&c, digest, h->hlen);
    h->final(blk, &c); /* U1, written where the loop expects it */
    load_words(h, blk, t);

    for (uint64_t it = 1; it < iterations; it++) {
      h->set(&c, istate);
      h->transform(&c, blk);
      h->get(&c, w);
      store_words(h, w, blk);
      h->set(&c, ostate);
      h->transform(&c, blk);
      h->get(&c, w);
      store_words(h, w, blk);
      for (size_t i = 0; i < h->words; i++) t[i] ^= w[i];
      if ((it % STOP_CHECK_EVERY) == 0 && stop_requested(stop)) {
        rc = STATUS_ESTOPPED;
        goto out;
      }
    }
    store_words(h, t, digest);
    size_t take = outlen - done < h->hlen ? outlen - done : h->hlen;
    memcpy(out + done, digest, take);
  }

out:
  OPENSSL_cleanse(key, sizeof key);
  OPENSSL_cleanse(pad, sizeof pad);
  OPENSSL_cleanse(blk, sizeof blk);
  OPENSSL_cleanse(digest, sizeof digest);
  OPENSSL_cleanse(istate, sizeof istate);
  OPENSSL_cleanse(ostate, sizeof ostate);
  OPENSSL_cleanse(w, sizeof w);
  OPENSSL_cleanse(t, sizeof t);
  OPENSSL_cleanse(&ictx, sizeof ictx);
  OPENSSL_cleanse(&octx, sizeof octx);
  OPENSSL_cleanse(&c, sizeof c);
  if (rc != 0) OPENSSL_cleanse(out, outlen);
  return rc;
}

int kdf_pbkdf2_prepare(kdf_pbkdf2_params *p, size_t *memory) {
  *memory = 0;
  /* The same lookup node:crypto does, so the same names are accepted (and
   * digests the lookup knows but no provider implements fail later, with
   * OpenSSL's own message, exactly as in node). */
  const EVP_MD *md = EVP_get_digestbyname(p->digest);
  if (md == NULL) return STATUS_EDIGEST;
  if (p->iterations < 1 || p->iterations > INT_MAX || p->outlen > INT_MAX) return STATUS_EINVAL;
  p->md = md;
  return 0;
}

int kdf_pbkdf2_run(const kdf_pbkdf2_params *p, void *scratch, size_t scratch_size,
                   const volatile int *stop) {
  (void)scratch; /* PBKDF2 is not memory-hard */
  (void)scratch_size;
  const EVP_MD *md = p->md;
  if (md == NULL) return STATUS_EINVAL;
  const hash_shape *shape = shape_for(md);
  /* keylen 0 still goes through OpenSSL for other digests: node:crypto
   * does, and XOF digests (SHAKE) fail there even then. */
  if (shape != NULL)
    return fast_pbkdf2(shape, p->pwd, p->pwdlen, p->salt, p->saltlen, p->iterations, p->out,
                       p->outlen, stop);
  if (p->pwdlen > INT_MAX || p->saltlen > INT_MAX) return STATUS_EINVAL;
  ERR_clear_error();
  int ok = PKCS5_PBKDF2_HMAC((const char *)p->pwd, (int)p->pwdlen, p->salt, (int)p->saltlen,
                             (int)p->iterations, md, (int)p->outlen, p->out);
  if (ok == 1) return 0;
  OPENSSL_cleanse(p->out, p->outlen);
  kdf_openssl_error(p->error, p->error_len, "Deriving bits failed");
  return STATUS_ECRYPTO;
}
