/* Plain-C tests for the SHA layer (src/kdf/sha), run against every
 * compression variant this CPU supports, forced one by one.
 *
 * Expected values: the FIPS 180-4 examples and NIST CAVP short messages
 * ("abc", "", the 448- and 896-bit messages, one million 'a'), and, for
 * random inputs, OpenSSL's libcrypto (linked into this test only: the
 * layer itself never uses OpenSSL). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cross builds (arm64 under qemu) may lack an arm64 libcrypto: with
 * -DSHA_TEST_NO_OPENSSL the random inputs are checked against the portable
 * variant instead, which the native build checks against OpenSSL. */
#ifndef SHA_TEST_NO_OPENSSL
#include <openssl/evp.h>
#endif

#include "../../src/kdf/sha/sha.h"
#include "check.h"

static size_t unhex(uint8_t *out, const char *hex) {
  size_t n = 0;
  for (; hex[0] && hex[1]; hex += 2) {
    unsigned v;
    sscanf(hex, "%2x", &v);
    out[n++] = (uint8_t)v;
  }
  return n;
}

/* xorshift64*: reproducible inputs, seed printed on failure. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
}

/* ---- known answers ---------------------------------------------------------- */

static const char *const messages[4] = {
  "abc",
  "",
  "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
  ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopq"
   "rsmnopqrstnopqrstu"),
};

static const char *const message_names[5] = { "abc", "empty", "448-bit", "896-bit", "million-a" };

static const struct {
  kdf_sha_alg alg;
  const char *hex[5]; /* messages[0..3], then one million 'a' */
} known[] = {
  { KDF_SHA1,
    {
        "a9993e364706816aba3e25717850c26c9cd0d89d",
        "da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        "a49b2446a02c645bf419f995b67091253a04a259",
        "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    } },
  { KDF_SHA224,
    {
        "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
        "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f",
        "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
        "c97ca9a559850ce97a04a96def6d99a9e0e0e2ab14e6b8df265fc0b3",
        "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67",
    } },
  { KDF_SHA256,
    {
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    } },
  { KDF_SHA384,
    {
        "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
        "8086072ba1e7cc2358baeca134c825a7",
        "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
        "274edebfe76f65fbd51ad2f14898b95b",
        "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6"
        "b0455a8520bc4e6f5fe95b1fe3c8452b",
        "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
        "fcc7c71a557e2db966c3e9fa91746039",
        "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
        "07b8b3dc38ecc4ebae97ddd87f3d8985",
    } },
  { KDF_SHA512,
    {
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
        "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
        "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
        "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445",
        "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
        "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
        "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
        "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
    } },
  { KDF_SHA512_224,
    {
        "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa",
        "6ed0dd02806fa89e25de060c19d3ac86cabb87d6a0ddd05c333b84f4",
        "e5302d6d54bb242275d1e7622d68df6eb02dedd13f564c13dbda2174",
        "23fec5bb94d60b23308192640b0c453335d664734fe40e7268674af9",
        "37ab331d76f0d36de422bd0edeb22a28accd487b7a8453ae965dd287",
    } },
  { KDF_SHA512_256,
    {
        "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23",
        "c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a",
        "bde8e1f9f19bb9fd3406c90ec6bc47bd36d8ada9f11880dbc8a22a7078b6a461",
        "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a",
        "9a59a052930187a97038cae692f30708aa6491923ef5194394dc68d56c74fb21",
    } },
};

static void test_known(const char *variant) {
  static uint8_t million[1000000];
  memset(million, 'a', sizeof million);
  for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
    const kdf_sha_desc *d = kdf_sha_get(known[k].alg);
    uint8_t got[KDF_SHA_MAX_DIGEST], want[KDF_SHA_MAX_DIGEST];
    char what[64];
    for (int m = 0; m < 5; m++) {
      size_t n = unhex(want, known[k].hex[m]);
      snprintf(what, sizeof what, "known %s", message_names[m]);
      if (m < 4)
        kdf_sha_digest(d, messages[m], strlen(messages[m]), got);
      else
        kdf_sha_digest(d, million, sizeof million, got);
      CHECK_MSG(n == d->digest_size && memcmp(got, want, n) == 0, "%s %s [%s]", what, d->name,
                variant);
      if (m == 4) {
        /* The same million bytes in 1000-byte updates: never block-aligned. */
        kdf_sha_ctx c;
        kdf_sha_init(&c, d);
        for (size_t i = 0; i < sizeof million; i += 1000) kdf_sha_update(&c, million + i, 1000);
        kdf_sha_final(&c, got);
        CHECK_MSG(memcmp(got, want, n) == 0, "%s %s [%s]", "known million-a in 1000-byte updates",
                  d->name, variant);
      }
    }
  }
}

/* ---- OpenSSL agreement ------------------------------------------------------ */

#ifndef SHA_TEST_NO_OPENSSL
static const EVP_MD *openssl_md(kdf_sha_alg alg) {
  switch (alg) {
    case KDF_SHA1:
      return EVP_sha1();
    case KDF_SHA224:
      return EVP_sha224();
    case KDF_SHA256:
      return EVP_sha256();
    case KDF_SHA384:
      return EVP_sha384();
    case KDF_SHA512:
      return EVP_sha512();
    case KDF_SHA512_224:
      return EVP_sha512_224();
    case KDF_SHA512_256:
      return EVP_sha512_256();
    default:
      return NULL;
  }
}

static size_t reference(const kdf_sha_desc *d, const uint8_t *msg, size_t len, uint8_t *out) {
  unsigned n = 0;
  EVP_Digest(msg, len, out, &n, openssl_md(d->alg), NULL);
  return n;
}
#define REFERENCE "OpenSSL"
#else
static size_t reference(const kdf_sha_desc *d, const uint8_t *msg, size_t len, uint8_t *out) {
  size_t count;
  kdf_sha_ctx c;
  kdf_sha_init(&c, d);
  c.compress = kdf_sha_variants(&count)[0]->compress[d->core];
  kdf_sha_update(&c, msg, len);
  kdf_sha_final(&c, out);
  return d->digest_size;
}
#define REFERENCE "portable"
#endif

/* Random lengths 0..1000, fed in 1 to 4 updates cut at random points (so
 * updates start and end on every offset within a block). */
static void test_random(const char *variant, int rounds) {
  uint8_t msg[1000], got[KDF_SHA_MAX_DIGEST], want[KDF_SHA_MAX_DIGEST];
  for (int a = 0; a < KDF_SHA_ALG_COUNT; a++) {
    const kdf_sha_desc *d = kdf_sha_get((kdf_sha_alg)a);
    int ok = 1;
    for (int r = 0; r < rounds && ok; r++) {
      size_t len = (size_t)(rnd() % 1001);
      fill(msg, len);
      size_t wlen = reference(d, msg, len, want);
      kdf_sha_ctx c;
      kdf_sha_init(&c, d);
      size_t at = 0;
      int parts = 1 + (int)(rnd() % 4);
      for (int p = 1; p < parts; p++) {
        size_t cut = at + (size_t)(rnd() % (len - at + 1));
        kdf_sha_update(&c, msg + at, cut - at);
        at = cut;
      }
      kdf_sha_update(&c, msg + at, len - at);
      kdf_sha_final(&c, got);
      ok = wlen == d->digest_size && memcmp(got, want, wlen) == 0;
      if (!ok) printf("  length %zu, %d updates\n", len, parts);
    }
    CHECK_MSG(ok, "%s %s [%s]", "random lengths vs " REFERENCE, d->name, variant);
  }
}

/* ---- raw compression across variants ---------------------------------------- */

/* Random states and 1..4 random blocks: each variant must match portable,
 * so a state can move between variants (and the x2 entry points must
 * match two single calls). */
static void test_raw(const kdf_sha_variant *v, int rounds) {
  const kdf_sha_variant *const *all;
  size_t count;
  all = kdf_sha_variants(&count);
  const kdf_sha_variant *ref = all[0];
  static const kdf_sha_alg core_alg[KDF_SHA_CORE_COUNT] = { KDF_SHA1, KDF_SHA256, KDF_SHA512 };
  for (int core = 0; core < KDF_SHA_CORE_COUNT; core++) {
    const kdf_sha_desc *d = kdf_sha_get(core_alg[core]);
    uint8_t blocks[4 * KDF_SHA_MAX_BLOCK];
    int ok = 1, ok2 = 1;
    for (int r = 0; r < rounds; r++) {
      kdf_sha_state s1, s2, s3, s4;
      size_t n = 1 + (size_t)(rnd() % 4);
      fill((uint8_t *)&s1, sizeof s1);
      if (d->state_words == 5) memset(&s1.w32[5], 0, 3 * sizeof(uint32_t));
      fill(blocks, sizeof blocks);
      s2 = s1;
      ref->compress[core](&s1, blocks, n);
      v->compress[core](&s2, blocks, n);
      ok &= memcmp(&s1, &s2, sizeof s1) == 0;
      if (v->compress_x2[core] != NULL) {
        fill((uint8_t *)&s3, sizeof s3);
        s4 = s3;
        s2 = s1;
        ref->compress[core](&s1, blocks, 1);
        ref->compress[core](&s3, blocks + d->block_size, 1);
        v->compress_x2[core](&s2, blocks, &s4, blocks + d->block_size);
        ok2 &= memcmp(&s1, &s2, sizeof s1) == 0 && memcmp(&s3, &s4, sizeof s3) == 0;
      }
    }
    CHECK_MSG(ok, "%s %s [%s]", "raw compression vs portable", d->name, v->name);
    if (v->compress_x2[core] != NULL)
      CHECK_MSG(ok2, "%s %s [%s]", "x2 vs two single", d->name, v->name);
  }
}

/* ---- PBKDF2 lanes ------------------------------------------------------------ */

/* One lane the slow way: the digest written into a padded block as bytes,
 * two portable compressions per iteration. */
static void lane_reference(const kdf_sha_desc *d, kdf_sha_lane *x, uint64_t n) {
  const kdf_sha_compress_fn f = kdf_sha_variants(&(size_t){ 0 })[0]->compress[d->core];
  uint8_t blk[KDF_SHA_MAX_BLOCK] = { 0 };
  blk[d->digest_size] = 0x80;
  uint64_t bits = (uint64_t)(d->block_size + d->digest_size) * 8;
  for (int b = 0; b < 8; b++) blk[d->block_size - 1 - (size_t)b] = (uint8_t)(bits >> (8 * b));
  for (uint64_t it = 0; it < n; it++) {
    kdf_sha_store(d, &x->u, blk);
    x->u = x->istate;
    f(&x->u, blk, 1);
    kdf_sha_store(d, &x->u, blk);
    x->u = x->ostate;
    f(&x->u, blk, 1);
    for (int i = 0; i < 8; i++) x->t.w64[i] ^= x->u.w64[i];
  }
}

/* The variant's lane kernel on k random lanes (1 up to three more than it
 * takes per call, so partial and repeated passes run too) for random
 * iteration counts, 0 included: every lane's u and t digests must equal the
 * reference's. */
static void test_lanes(const kdf_sha_variant *v, int rounds) {
  for (int a = 0; a < KDF_SHA_ALG_COUNT; a++) {
    const kdf_sha_desc *d = kdf_sha_get((kdf_sha_alg)a);
    size_t most = (size_t)v->lane_count[d->core] + 3;
    int ok = 1;
    for (int r = 0; r < rounds; r++) {
      kdf_sha_lane got[12], want[12];
      kdf_sha_lane *ptr[12];
      size_t k = 1 + (size_t)(rnd() % most);
      uint64_t n = r == 0 ? 70 : rnd() % 7;
      if (k > 12) k = 12;
      for (size_t l = 0; l < k; l++) {
        fill((uint8_t *)&want[l], sizeof want[l]);
        got[l] = want[l];
        ptr[l] = &got[l];
        lane_reference(d, &want[l], n);
      }
      v->lanes[d->core](d, ptr, k, n);
      for (size_t l = 0; l < k; l++) {
        uint8_t g[KDF_SHA_MAX_DIGEST], w[KDF_SHA_MAX_DIGEST];
        kdf_sha_store(d, &got[l].t, g);
        kdf_sha_store(d, &want[l].t, w);
        ok &= memcmp(g, w, d->digest_size) == 0;
        kdf_sha_store(d, &got[l].u, g);
        kdf_sha_store(d, &want[l].u, w);
        ok &= memcmp(g, w, d->digest_size) == 0;
      }
    }
    CHECK_MSG(ok, "%s %s [%s]", "lanes vs one chain at a time", d->name, v->name);
  }
}

/* ---- PBKDF2 on the layer -------------------------------------------------------- */

/* PBKDF2-HMAC written the way sha.h describes (raw compressions on native
 * states, digest stored into the padded block each time), checked against
 * OpenSSL's PKCS5_PBKDF2_HMAC: the truncated digests (SHA-224, SHA-384,
 * SHA-512/224) must not clobber the padding that follows them. */
static void pbkdf2(const kdf_sha_desc *d, const uint8_t *pwd, size_t pwdlen, const uint8_t *salt,
                   size_t saltlen, uint32_t iterations, uint8_t *out, size_t outlen) {
  uint8_t key[KDF_SHA_MAX_BLOCK] = { 0 }, pad[KDF_SHA_MAX_BLOCK], blk[KDF_SHA_MAX_BLOCK];
  uint8_t u[KDF_SHA_MAX_DIGEST], counter[4];
  size_t bs = d->block_size, hl = d->digest_size;
  kdf_sha_ctx ictx, octx, c;
  kdf_sha_compress_fn f = kdf_sha_compressor(d);
  if (pwdlen > bs)
    kdf_sha_digest(d, pwd, pwdlen, key);
  else if (pwdlen > 0)
    memcpy(key, pwd, pwdlen);
  for (size_t i = 0; i < bs; i++) pad[i] = key[i] ^ 0x36;
  kdf_sha_init(&ictx, d);
  kdf_sha_update(&ictx, pad, bs);
  for (size_t i = 0; i < bs; i++) pad[i] = key[i] ^ 0x5c;
  kdf_sha_init(&octx, d);
  kdf_sha_update(&octx, pad, bs);
  memset(blk, 0, sizeof blk);
  blk[hl] = 0x80;
  uint64_t bits = (uint64_t)(bs + hl) * 8;
  for (int b = 0; b < 8; b++) blk[bs - 1 - (size_t)b] = (uint8_t)(bits >> (8 * b));
  for (uint32_t index = 1, done = 0; done < outlen; done += (uint32_t)hl, index++) {
    kdf_sha_state w, t;
    for (int b = 0; b < 4; b++) counter[b] = (uint8_t)(index >> (24 - 8 * b));
    c = ictx;
    kdf_sha_update(&c, salt, saltlen);
    kdf_sha_update(&c, counter, 4);
    kdf_sha_final(&c, u);
    c = octx;
    kdf_sha_update(&c, u, hl);
    kdf_sha_finish(&c);
    t = c.state;
    kdf_sha_store(d, &t, blk);
    for (uint32_t it = 1; it < iterations; it++) {
      w = ictx.state;
      f(&w, blk, 1);
      kdf_sha_store(d, &w, blk);
      w = octx.state;
      f(&w, blk, 1);
      kdf_sha_store(d, &w, blk);
      for (int i = 0; i < 8; i++) t.w64[i] ^= w.w64[i];
    }
    kdf_sha_store(d, &t, u);
    memcpy(out + done, u, outlen - done < hl ? outlen - done : hl);
  }
}

static void test_pbkdf2(const char *variant) {
#ifndef SHA_TEST_NO_OPENSSL
  uint8_t pwd[300], salt[64], got[200], want[200];
  for (int a = 0; a < KDF_SHA_ALG_COUNT; a++) {
    const kdf_sha_desc *d = kdf_sha_get((kdf_sha_alg)a);
    int ok = 1;
    for (int r = 0; r < 12 && ok; r++) {
      /* Passwords around the block size (hashed when longer), 1..3 output
       * blocks with a partial last one. */
      size_t pwdlen = (size_t)(rnd() % 300), saltlen = (size_t)(rnd() % 64);
      size_t outlen = 1 + (size_t)(rnd() % 200);
      uint32_t iters = 1 + (uint32_t)(rnd() % 300);
      fill(pwd, pwdlen);
      fill(salt, saltlen);
      pbkdf2(d, pwd, pwdlen, salt, saltlen, iters, got, outlen);
      PKCS5_PBKDF2_HMAC((const char *)pwd, (int)pwdlen, salt, (int)saltlen, (int)iters,
                        openssl_md(d->alg), (int)outlen, want);
      ok = memcmp(got, want, outlen) == 0;
      if (!ok) printf("  pwd %zu salt %zu out %zu iterations %u\n", pwdlen, saltlen, outlen, iters);
    }
    CHECK_MSG(ok, "%s %s [%s]", "PBKDF2 loop vs PKCS5_PBKDF2_HMAC", d->name, variant);
  }
#else
  /* RFC 6070's second vector (SHA-1, 2 iterations), without OpenSSL. */
  uint8_t got[20], want[20];
  unhex(want, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957");
  pbkdf2(kdf_sha_get(KDF_SHA1), (const uint8_t *)"password", 8, (const uint8_t *)"salt", 4, 2, got,
         20);
  CHECK_MSG(memcmp(got, want, 20) == 0, "%s %s [%s]", "PBKDF2 RFC 6070 #2", "sha1", variant);
#endif
}

/* ---- API edges -------------------------------------------------------------- */

static void test_api(void) {
  CHECK_MSG(kdf_sha_by_name("sha256") == kdf_sha_get(KDF_SHA256), "by_name sha256  []");
  CHECK_MSG(kdf_sha_by_name("SHA512/256") == kdf_sha_get(KDF_SHA512_256), "by_name SHA512/256  []");
  CHECK_MSG(kdf_sha_by_name("sha512-224") == kdf_sha_get(KDF_SHA512_224), "by_name sha512-224  []");
  CHECK_MSG(kdf_sha_by_name("md5") == NULL, "by_name md5  []");
  CHECK_MSG(kdf_sha_get(KDF_SHA_ALG_COUNT) == NULL, "get out of range  []");
  CHECK_MSG(kdf_sha_force("no-such-variant") == -1, "force unknown  []");
  CHECK_MSG(kdf_sha_force("auto") == 0 && kdf_sha_select() != NULL, "force auto  []");

  /* finish + store == final; load(store(state)) == state. */
  for (int a = 0; a < KDF_SHA_ALG_COUNT; a++) {
    const kdf_sha_desc *d = kdf_sha_get((kdf_sha_alg)a);
    uint8_t full[KDF_SHA_MAX_DIGEST], out1[KDF_SHA_MAX_DIGEST], out2[KDF_SHA_MAX_DIGEST];
    kdf_sha_ctx c;
    kdf_sha_init(&c, d);
    kdf_sha_update(&c, "abc", 3);
    kdf_sha_finish(&c);
    kdf_sha_store(d, &c.state, out1);
    kdf_sha_digest(d, "abc", 3, out2);
    CHECK_MSG(memcmp(out1, out2, d->digest_size) == 0, "%s %s [%s]", "finish+store == digest",
              d->name, "");
    kdf_sha_desc wide = *d;
    wide.digest_size = (uint8_t)(d->state_words * d->word_size);
    kdf_sha_state back;
    kdf_sha_store(&wide, &c.state, full);
    kdf_sha_load(d, full, &back);
    CHECK_MSG(memcmp(&back, &c.state, (size_t)d->state_words * d->word_size) == 0, "%s %s [%s]",
              "load(store)", d->name, "");
  }
}

/* ---- first use from several threads ------------------------------------------ */

/* The variant is picked lazily on first use: threads that race on it must
 * all get a working one (run under SAN=thread to check the access itself). */
static void *digest_abc(void *arg) {
  uint8_t got[32], want[32];
  unhex(want, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  kdf_sha_digest(kdf_sha_get(KDF_SHA256), "abc", 3, got);
  *(int *)arg = memcmp(got, want, 32) == 0;
  return NULL;
}

static void test_first_use_threads(void) {
  pthread_t t[4];
  int ok[4] = { 0 };
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, digest_abc, &ok[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  CHECK_MSG(ok[0] && ok[1] && ok[2] && ok[3], "first use from 4 threads sha256 [auto]");
}

int main(void) {
  const kdf_sha_variant *const *all;
  size_t count;
  test_first_use_threads(); /* first: nothing has picked a variant yet */
  all = kdf_sha_variants(&count);
  test_api();
  for (size_t i = 0; i < count; i++) {
    if (!kdf_sha_supported(all[i])) {
      printf("skip variant %s (CPU lacks it)\n", all[i]->name);
      continue;
    }
    if (kdf_sha_force(all[i]->name) != 0 || kdf_sha_select() != all[i]) {
      CHECK_MSG(0, "%s %s [%s]", "force", "", all[i]->name);
      continue;
    }
    test_known(all[i]->name);
    test_random(all[i]->name, 400);
    test_pbkdf2(all[i]->name);
    test_raw(all[i], 2000);
    test_lanes(all[i], 60);
  }
  kdf_sha_force(NULL);
  printf("sha (best variant %s): %d passed, %d failed\n", kdf_sha_select()->name, check_passed,
         check_failed);
  return check_exit();
}
