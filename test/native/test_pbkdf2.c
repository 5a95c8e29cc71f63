/* Plain-C tests for PBKDF2 (kdf/pbkdf2.c) through its KDF contract: RFC 6070,
 * the known answers of test/vectors/pbkdf2.json (shared with the JS suite,
 * turned into a header at build time), agreement of both engines (our SHA
 * layer, our HMAC loop over EVP) with OpenSSL's PKCS5_PBKDF2_HMAC, the
 * error and stop paths, and name resolution without OpenSSL (as in Bun).
 * The binary links libcrypto, which is then in the global scope, so
 * kdf/openssl.c finds it at run time as it finds Node's. Vectors marked
 * slow (2^24 iterations) run only with KDF_SLOW=1. */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "common/status.h"
#include "common/wipe.h"
#include "kdf/openssl.h"
#include "kdf/pbkdf2.h"
#include "kdf/sha/sha.h"
#include "pbkdf2_vectors.h"
#include "stack_probe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

static size_t from_hex(const char *hex, uint8_t *out, size_t cap) {
  size_t n = strlen(hex) / 2;
  if (n > cap) abort();
  for (size_t i = 0; i < n; i++) {
    unsigned byte;
    if (sscanf(hex + 2 * i, "%2x", &byte) != 1) abort();
    out[i] = (uint8_t)byte;
  }
  return n;
}

/* Derives through prepare + run, as kdf.c does. */
static int derive(const char *digest, const uint8_t *pwd, size_t pwdlen, const uint8_t *salt,
                  size_t saltlen, uint64_t iterations, uint8_t *out, size_t outlen,
                  const volatile int *stop, char *error, size_t error_len) {
  kdf_pbkdf2_params p = { .pwd = pwd,
                          .pwdlen = pwdlen,
                          .salt = salt,
                          .saltlen = saltlen,
                          .iterations = iterations,
                          .digest = digest,
                          .out = out,
                          .outlen = outlen,
                          .error = error,
                          .error_len = error_len };
  size_t memory = 1;
  int rc = kdf_pbkdf2_prepare(&p, &memory);
  if (rc != 0) return rc;
  if (memory != 0) return -100;
  return kdf_pbkdf2_run(&p, NULL, 0, stop);
}

static void known_answer(const char *label, const char *digest, const uint8_t *pwd, size_t pwdlen,
                         const uint8_t *salt, size_t saltlen, unsigned iterations, size_t keylen,
                         const char *expected_hex) {
  uint8_t out[256], want[256];
  char what[160];
  size_t n = from_hex(expected_hex, want, sizeof want);
  snprintf(what, sizeof what, "%s %s c=%u dkLen=%zu", label, digest, iterations, keylen);
  int rc = derive(digest, pwd, pwdlen, salt, saltlen, iterations, out, keylen, NULL, NULL, 0);
  CHECK_MSG(rc == 0 && n == keylen && memcmp(out, want, keylen) == 0, "%s", what);
}

/* RFC 6070 section 2 (HMAC-SHA1); the 2^24-iteration vector is slow. */
static void rfc6070(int slow) {
  static const struct {
    const char *p, *s;
    size_t plen, slen;
    unsigned c;
    size_t dklen;
    const char *dk;
  } v[] = {
    { "password", "salt", 8, 4, 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6" },
    { "password", "salt", 8, 4, 2, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957" },
    { "password", "salt", 8, 4, 4096, 20, "4b007901b765489abead49d926f721d065a429c1" },
    { "password", "salt", 8, 4, 16777216, 20, "eefe3d61cd4da4e4e9945b3d6ba2158c2634e984" },
    { "passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 24, 36, 4096, 25,
      "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038" },
    { "pass\0word", "sa\0lt", 9, 5, 4096, 16, "56fa6aa75548099dcc37d7f03425e0c3" },
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    if (v[i].c > 100000 && !slow) continue;
    known_answer("RFC 6070", "sha1", (const uint8_t *)v[i].p, v[i].plen, (const uint8_t *)v[i].s,
                 v[i].slen, v[i].c, v[i].dklen, v[i].dk);
  }
}

static void json(int slow) {
  for (size_t i = 0; i < sizeof json_vectors / sizeof json_vectors[0]; i++) {
    uint8_t pwd[256], salt[256];
    if (json_vectors[i].slow && !slow) continue;
    size_t pl = from_hex(json_vectors[i].password_hex, pwd, sizeof pwd);
    size_t sl = from_hex(json_vectors[i].salt_hex, salt, sizeof salt);
    known_answer(json_vectors[i].source, json_vectors[i].digest, pwd, pl, salt, sl,
                 json_vectors[i].iterations, json_vectors[i].keylen, json_vectors[i].expected_hex);
  }
}

/* Our loops (SHA layer; HMAC over EVP) against OpenSSL's generic PBKDF2,
 * over lengths that cross block and digest boundaries (HMAC keys longer
 * than a block are hashed first). */
static void agrees_with_openssl(void) {
  static const char *const digests[] = { "sha1",       "sha224",     "sha256",     "sha384",
                                         "sha512",     "sha512-224", "sha3-256",   "sha3-224",
                                         "sha512-256", "md5",        "blake2b512", "blake2s256",
                                         "sm3",        "ripemd160",  "md5-sha1",   "RSA-SHA256" };
  static const size_t pwd_lens[] = { 0, 1, 63, 64, 65, 127, 128, 129, 300 };
  static const size_t out_lens[] = { 0, 1, 19, 20, 33, 64, 65, 129 };
  uint8_t pwd[300], salt[40], ours[129], theirs[129];
  for (size_t i = 0; i < sizeof pwd; i++) pwd[i] = (uint8_t)(i * 7 + 3);
  for (size_t i = 0; i < sizeof salt; i++) salt[i] = (uint8_t)(i * 13 + 1);
  for (size_t d = 0; d < sizeof digests / sizeof digests[0]; d++) {
    const EVP_MD *md = EVP_get_digestbyname(digests[d]);
    if (md == NULL) continue; /* not in this OpenSSL build */
    for (size_t a = 0; a < sizeof pwd_lens / sizeof pwd_lens[0]; a++) {
      for (size_t b = 0; b < sizeof out_lens / sizeof out_lens[0]; b++) {
        size_t pl = pwd_lens[a], ol = out_lens[b];
        unsigned iterations = 1 + (unsigned)(a * 37 + b * 11) % 50;
        char what[128];
        snprintf(what, sizeof what, "%s pwd=%zu out=%zu c=%u agrees with OpenSSL", digests[d], pl,
                 ol, iterations);
        int rc =
            derive(digests[d], pwd, pl, salt, sizeof salt, iterations, ours, ol, NULL, NULL, 0);
        int ok = PKCS5_PBKDF2_HMAC((const char *)pwd, (int)pl, salt, (int)sizeof salt,
                                   (int)iterations, md, (int)ol, theirs);
        CHECK_MSG(rc == 0 && ok == 1 && memcmp(ours, theirs, ol) == 0, "%s", what);
      }
    }
  }
}

static void errors_and_stop(void) {
  uint8_t out[32];
  char error[256] = "";
  CHECK_MSG(derive("no-such-digest", NULL, 0, NULL, 0, 1, out, 32, NULL, NULL, 0) == STATUS_EDIGEST,
            "unknown digest -> EDIGEST");
  CHECK_MSG(derive("sha256", NULL, 0, NULL, 0, 0, out, 32, NULL, NULL, 0) == STATUS_EINVAL,
            "0 iterations -> EINVAL");
  CHECK_MSG(derive("sha256", NULL, 0, NULL, 0, (uint64_t)1 << 31, out, 32, NULL, NULL, 0) ==
                STATUS_EINVAL,
            "2^31 iterations -> EINVAL");
  /* SHAKE is an XOF: OpenSSL refuses it for HMAC even for 0 bytes, as in node. */
  if (EVP_get_digestbyname("shake128") != NULL) {
    int rc = derive("shake128", (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 1, out, 0, NULL,
                    error, sizeof error);
    CHECK_MSG(rc == STATUS_ECRYPTO && error[0] != '\0',
              "shake128 -> ECRYPTO with OpenSSL's message");
  }
  volatile int stop = 1;
  memset(out, 0xAA, sizeof out);
  int rc = derive("sha256", (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 100000, out, 32,
                  &stop, NULL, 0);
  int zeroed = 1;
  for (size_t i = 0; i < sizeof out; i++) zeroed &= out[i] == 0;
  CHECK_MSG(rc == STATUS_ESTOPPED && zeroed, "raised stop flag -> ESTOPPED, output zeroed");
  /* Defect 5: other digests stop too (they ran inside PKCS5_PBKDF2_HMAC). */
  memset(out, 0xAA, sizeof out);
  rc = derive("sha3-256", (const uint8_t *)"p", 1, (const uint8_t *)"s", 1, 2000000000, out, 32,
              &stop, NULL, 0);
  zeroed = 1;
  for (size_t i = 0; i < sizeof out; i++) zeroed &= out[i] == 0;
  CHECK_MSG(rc == STATUS_ESTOPPED && zeroed,
            "sha3-256, raised stop flag -> ESTOPPED, output zeroed");
  /* Long passwords and salts are absorbed in chunks, polling between them. */
  static uint8_t big[3 << 20];
  rc = derive("sha256", big, sizeof big, NULL, 0, 1, out, 32, &stop, NULL, 0);
  CHECK_MSG(rc == STATUS_ESTOPPED, "sha256, 3 MiB password, raised stop flag -> ESTOPPED");
  rc = derive("sha256", NULL, 0, big, sizeof big, 1, out, 32, &stop, NULL, 0);
  CHECK_MSG(rc == STATUS_ESTOPPED, "sha256, 3 MiB salt, raised stop flag -> ESTOPPED");
}

/* ---- batches ------------------------------------------------------------------ */

typedef struct {
  int calls[16], rc[16], order[16], n;
  volatile int *raise_stop; /* raised when the first job ends */
} batch_log;

static void on_done(void *ctx, size_t i, int rc) {
  batch_log *log = ctx;
  log->calls[i]++;
  log->rc[i] = rc;
  log->order[log->n++] = (int)i;
  if (log->raise_stop != NULL) *log->raise_stop = 1;
}

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545f4914f6cdd1dull;
}

/* Random batches (1..12 jobs of one digest, iteration counts, password,
 * salt and key lengths all differing) under every SHA variant: each key
 * equals OpenSSL's, each job is reported exactly once, and a job with
 * fewer blocks and iterations is not held back by the others. */
static void batches(void) {
  static const char *const digests[] = { "sha1",   "sha224",     "sha256",    "sha384",
                                         "sha512", "sha512-224", "sha512-256" };
  size_t count;
  const kdf_sha_variant *const *all = kdf_sha_variants(&count);
  static uint8_t pwd[12][200], salt[12][40], out[12][200], want[200];
  for (size_t v = 0; v < count; v++) {
    if (!kdf_sha_supported(all[v])) continue;
    kdf_sha_force(all[v]->name);
    for (size_t d = 0; d < sizeof digests / sizeof digests[0]; d++) {
      const EVP_MD *md = EVP_get_digestbyname(digests[d]);
      int ok = 1, once = 1;
      for (int round = 0; round < 12; round++) {
        kdf_pbkdf2_params p[12];
        const kdf_pbkdf2_params *ps[12];
        batch_log log;
        size_t n = 1 + (size_t)(rnd() % 12);
        memset(&log, 0, sizeof log);
        for (size_t i = 0; i < n; i++) {
          size_t memory;
          memset(&p[i], 0, sizeof p[i]);
          p[i].pwdlen = (size_t)(rnd() % 200);
          p[i].saltlen = (size_t)(rnd() % 40);
          for (size_t b = 0; b < p[i].pwdlen; b++) pwd[i][b] = (uint8_t)rnd();
          for (size_t b = 0; b < p[i].saltlen; b++) salt[i][b] = (uint8_t)rnd();
          p[i].pwd = pwd[i];
          p[i].salt = salt[i];
          p[i].iterations = 1 + rnd() % 300;
          p[i].outlen = (size_t)(rnd() % 200);
          p[i].out = out[i];
          p[i].digest = digests[d];
          if (kdf_pbkdf2_prepare(&p[i], &memory) != 0 || p[i].sha == NULL) abort();
          ps[i] = &p[i];
        }
        kdf_pbkdf2_run_batch(ps, n, NULL, on_done, &log);
        once &= log.n == (int)n;
        for (size_t i = 0; i < n; i++) {
          once &= log.calls[i] == 1 && log.rc[i] == 0;
          PKCS5_PBKDF2_HMAC((const char *)pwd[i], (int)p[i].pwdlen, salt[i], (int)p[i].saltlen,
                            (int)p[i].iterations, md, (int)p[i].outlen, want);
          ok &= memcmp(out[i], want, p[i].outlen) == 0;
        }
      }
      char what[160];
      snprintf(what, sizeof what, "%s [%s] random batches agree with OpenSSL", digests[d],
               all[v]->name);
      CHECK_MSG(ok, "%s", what);
      snprintf(what, sizeof what, "%s [%s] every job of a batch reported once", digests[d],
               all[v]->name);
      CHECK_MSG(once, "%s", what);
    }
  }
  kdf_sha_force(NULL);

  /* A short job ends first and its key is right; the stop flag, raised
   * when it ends, stops the long ones (zeroed, ESTOPPED, once each). */
  volatile int stop = 0;
  kdf_pbkdf2_params p[3];
  const kdf_pbkdf2_params *ps[3] = { &p[0], &p[1], &p[2] };
  batch_log log;
  memset(&log, 0, sizeof log);
  log.raise_stop = &stop;
  for (int i = 0; i < 3; i++) {
    size_t memory;
    memset(&p[i], 0, sizeof p[i]);
    p[i].pwd = (const uint8_t *)"password";
    p[i].pwdlen = 8;
    p[i].salt = (const uint8_t *)"salt";
    p[i].saltlen = 4;
    p[i].iterations = i == 1 ? 2 : 50000000;
    p[i].outlen = 40;
    p[i].out = out[i];
    p[i].digest = "sha256";
    memset(out[i], 0xAA, 40);
    if (kdf_pbkdf2_prepare(&p[i], &memory) != 0) abort();
  }
  if (kdf_pbkdf2_batch_width(&p[0]) < 4) { /* the blocks would not all run at once */
    printf("skip: batch order test (SHA-256 lanes narrower than 4 here)\n");
    return;
  }
  kdf_pbkdf2_run_batch(ps, 3, &stop, on_done, &log);
  PKCS5_PBKDF2_HMAC("password", 8, (const uint8_t *)"salt", 4, 2, EVP_sha256(), 40, want);
  int zeroed = 1;
  for (int b = 0; b < 40; b++) zeroed &= out[0][b] == 0 && out[2][b] == 0;
  CHECK_MSG(log.n == 3 && log.order[0] == 1 && log.rc[1] == 0 && memcmp(out[1], want, 40) == 0,
            "batch: the short job ends first, with its key");
  CHECK_MSG(log.calls[0] == 1 && log.calls[2] == 1 && log.rc[0] == STATUS_ESTOPPED &&
                log.rc[2] == STATUS_ESTOPPED && zeroed,
            "batch: stop ends the others once each, ESTOPPED, zeroed");
}

/* As in Bun or Deno: every SHA-family spelling node accepts still works
 * (same bytes as with OpenSSL), other known digests are unavailable,
 * unknown names stay unknown. */
static void without_openssl(void) {
  static const char *const sha_names[] = { "sha256",
                                           "SHA256",
                                           "Sha256",
                                           "RSA-SHA256",
                                           "sha256WithRSAEncryption",
                                           "SHA-256",
                                           "SHA2-256",
                                           "2.16.840.1.101.3.4.2.1",
                                           "sha1",
                                           "ssl3-sha1",
                                           "RSA-SHA1-2",
                                           "SHA-1",
                                           "sha512-256",
                                           "SHA512-256",
                                           "SHA-512/256",
                                           "SHA2-512/256",
                                           "RSA-SHA512/256",
                                           "sha512-224",
                                           "sha384",
                                           "sha512",
                                           "sha224" };
  static const char *const unavailable[] = { "sha3-256",  "SHA3-512", "md5", "blake2b512", "sm3",
                                             "ripemd160", "shake256", "md4", "KECCAK-256" };
  static const char *const unknown[] = { "SHA512/256", "sha-2", "sha256 ", "", "keccak-255" };
  uint8_t with[40], without[40];
  char what[128];
  for (size_t i = 0; i < sizeof sha_names / sizeof sha_names[0]; i++) {
    int a = derive(sha_names[i], (const uint8_t *)"pw", 2, (const uint8_t *)"salt", 4, 3, with,
                   sizeof with, NULL, NULL, 0);
    kdf_openssl_force("none");
    int b = derive(sha_names[i], (const uint8_t *)"pw", 2, (const uint8_t *)"salt", 4, 3, without,
                   sizeof without, NULL, NULL, 0);
    kdf_openssl_force("auto");
    snprintf(what, sizeof what, "no OpenSSL: %s resolves, same bytes", sha_names[i]);
    CHECK_MSG(a == 0 && b == 0 && memcmp(with, without, sizeof with) == 0, "%s", what);
  }
  kdf_openssl_force("none");
  CHECK_MSG(kdf_openssl() == NULL, "forced off: kdf_openssl() is NULL");
  for (size_t i = 0; i < sizeof unavailable / sizeof unavailable[0]; i++) {
    snprintf(what, sizeof what, "no OpenSSL: %s -> EUNAVAILABLE", unavailable[i]);
    CHECK_MSG(derive(unavailable[i], NULL, 0, NULL, 0, 1, without, 8, NULL, NULL, 0) ==
                  STATUS_EUNAVAILABLE,
              "%s", what);
  }
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    snprintf(what, sizeof what, "no OpenSSL: '%s' -> EDIGEST", unknown[i]);
    CHECK_MSG(derive(unknown[i], NULL, 0, NULL, 0, 1, without, 8, NULL, NULL, 0) == STATUS_EDIGEST,
              "%s", what);
  }
  kdf_openssl_force("auto");
  CHECK_MSG(kdf_openssl() != NULL, "libcrypto linked in: found at run time");
}

/* ---- no HMAC state left on the stack ------------------------------------ */

/* The 32-bit words of a chaining state that are not zero (SHA-1 uses 5 of
 * 8 words; the zero ones would be found anywhere in wiped memory). */
static size_t state_words(const kdf_sha_desc *d, const kdf_sha_state *st, uint32_t *words) {
  size_t n = 0;
  size_t count = d->core == KDF_SHA_CORE512 ? 16 : 8;
  for (size_t i = 0; i < count; i++) {
    uint32_t w =
        d->core == KDF_SHA_CORE512 ? (uint32_t)(st->w64[i / 2] >> (32 * (i % 2))) : st->w32[i];
    if (w != 0) words[n++] = w;
  }
  return n;
}

/* HMAC's inner and outer states (the key's SHA state after one padded
 * block) are as good as the password: with them anyone derives keys for
 * any salt. The kernels keep them in registers, and the compiler spills
 * those to the stack, outside any buffer the code wipes by name; before
 * secure_wipe_stack() every word of SHA-256's states was found there. */
__attribute__((noinline)) static void one_derivation(const kdf_sha_desc *d, const uint8_t *pw,
                                                     size_t pwlen, uint8_t *out, size_t outlen,
                                                     int batch) {
  if (batch) {
    kdf_pbkdf2_params p[3];
    const kdf_pbkdf2_params *ps[3];
    for (int i = 0; i < 3; i++) {
      memset(&p[i], 0, sizeof p[i]);
      p[i].pwd = pw;
      p[i].pwdlen = pwlen;
      p[i].salt = (const uint8_t *)"salt";
      p[i].saltlen = 4;
      p[i].iterations = 500;
      p[i].out = out + i * outlen;
      p[i].outlen = outlen;
      p[i].sha = d;
      ps[i] = &p[i];
    }
    kdf_pbkdf2_run_batch(ps, 3, NULL, NULL, NULL);
  } else {
    kdf_pbkdf2_sha(d, pw, pwlen, (const uint8_t *)"salt", 4, 500, out, outlen, NULL);
  }
}

static void no_state_on_stack(void) {
#if defined(__SANITIZE_ADDRESS__)
  printf("stack wipe: skipped (AddressSanitizer build)\n");
#else
  static const char *const digests[] = { "sha1", "sha256", "sha512" };
  static const uint8_t pw[] = "a password that must not stay behind";
  size_t count;
  const kdf_sha_variant *const *all = kdf_sha_variants(&count);
  char what[160];
  for (size_t v = 0; v < count; v++) {
    if (!kdf_sha_supported(all[v])) continue;
    kdf_sha_force(all[v]->name);
    for (size_t k = 0; k < sizeof digests / sizeof digests[0]; k++) {
      const kdf_sha_desc *d = kdf_sha_by_name(digests[k]);
      uint8_t key[KDF_SHA_MAX_BLOCK] = { 0 }, pad[KDF_SHA_MAX_BLOCK];
      uint32_t words[32];
      size_t n = 0;
      memcpy(key, pw, sizeof pw - 1); /* shorter than a block: the key as is */
      for (int outer = 0; outer < 2; outer++) {
        kdf_sha_ctx c;
        for (size_t i = 0; i < d->block_size; i++) pad[i] = key[i] ^ (outer ? 0x5c : 0x36);
        kdf_sha_init(&c, d);
        kdf_sha_update(&c, pad, d->block_size);
        n += state_words(d, &c.state, words + n);
        memset(&c, 0, sizeof c);
      }
      memset(pad, 0, sizeof pad);
      for (int batch = 0; batch < 2; batch++) {
        uint8_t out[3 * 2 * KDF_SHA_MAX_DIGEST];
        scribble_stack();
        /* Two blocks of output: the multi-block kernels too. */
        one_derivation(d, pw, sizeof pw - 1, out, 2 * d->digest_size, batch);
        size_t found = words_below(words, n, SECURE_WIPE_STACK_BYTES);
        snprintf(what, sizeof what, "%s %s %s: %zu of %zu HMAC state words left on the stack",
                 all[v]->name, digests[k], batch ? "batch" : "alone", found, n);
        CHECK_MSG(found == 0, "%s", what);
      }
    }
  }
  kdf_sha_force("auto");
#endif
}

int main(void) {
  const char *env = getenv("KDF_SLOW");
  int slow = env != NULL && strcmp(env, "1") == 0;
  rfc6070(slow);
  json(slow);
  agrees_with_openssl();
  errors_and_stop();
  batches();
  no_state_on_stack();
  without_openssl();
  printf("pbkdf2: %d passed, %d failed%s\n", check_passed, check_failed,
         slow ? "" : " (slow vectors skipped)");
  return check_exit();
}
