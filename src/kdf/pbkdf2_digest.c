/* Digest names, resolved as node:crypto resolves them for PBKDF2: with
 * OpenSSL, by EVP_get_digestbyname (SHA-family results, by NID, move to our
 * SHA layer), and on node >= 24 by a provider fetch when that knows no such
 * name; without OpenSSL (Bun, Deno), from the table below, which holds
 * every spelling node accepts for the SHA family (test/digests.test.js
 * compares it with node); other names node knows give STATUS_EUNAVAILABLE.
 * Answers found are kept (see "names already resolved"). */
#include "kdf/pbkdf2_digest.h"

#include "common/status.h"
#include "kdf/openssl.h"

#include <pthread.h>
#include <string.h>

#include <openssl/obj_mac.h> /* NIDs: constants only */

/* ---- names --------------------------------------------------------------- */

/* Without OpenSSL: every name node:crypto (EVP_get_digestbyname) accepts for
 * the SHA family, compared without regard to case as OpenSSL does. */
static const struct {
  const char *name;
  kdf_sha_alg alg;
} sha_names[] = {
  { "sha1", KDF_SHA1 },
  { "SHA-1", KDF_SHA1 },
  { "RSA-SHA1", KDF_SHA1 },
  { "RSA-SHA1-2", KDF_SHA1 },
  { "sha1WithRSAEncryption", KDF_SHA1 },
  { "ssl3-sha1", KDF_SHA1 },
  { "1.3.14.3.2.26", KDF_SHA1 },
  { "sha224", KDF_SHA224 },
  { "SHA-224", KDF_SHA224 },
  { "SHA2-224", KDF_SHA224 },
  { "RSA-SHA224", KDF_SHA224 },
  { "sha224WithRSAEncryption", KDF_SHA224 },
  { "2.16.840.1.101.3.4.2.4", KDF_SHA224 },
  { "sha256", KDF_SHA256 },
  { "SHA-256", KDF_SHA256 },
  { "SHA2-256", KDF_SHA256 },
  { "RSA-SHA256", KDF_SHA256 },
  { "sha256WithRSAEncryption", KDF_SHA256 },
  { "2.16.840.1.101.3.4.2.1", KDF_SHA256 },
  { "sha384", KDF_SHA384 },
  { "SHA-384", KDF_SHA384 },
  { "SHA2-384", KDF_SHA384 },
  { "RSA-SHA384", KDF_SHA384 },
  { "sha384WithRSAEncryption", KDF_SHA384 },
  { "2.16.840.1.101.3.4.2.2", KDF_SHA384 },
  { "sha512", KDF_SHA512 },
  { "SHA-512", KDF_SHA512 },
  { "SHA2-512", KDF_SHA512 },
  { "RSA-SHA512", KDF_SHA512 },
  { "sha512WithRSAEncryption", KDF_SHA512 },
  { "2.16.840.1.101.3.4.2.3", KDF_SHA512 },
  { "sha512-224", KDF_SHA512_224 },
  { "SHA-512/224", KDF_SHA512_224 },
  { "SHA2-512/224", KDF_SHA512_224 },
  { "RSA-SHA512/224", KDF_SHA512_224 },
  { "sha512-224WithRSAEncryption", KDF_SHA512_224 },
  { "2.16.840.1.101.3.4.2.5", KDF_SHA512_224 },
  { "sha512-256", KDF_SHA512_256 },
  { "SHA-512/256", KDF_SHA512_256 },
  { "SHA2-512/256", KDF_SHA512_256 },
  { "RSA-SHA512/256", KDF_SHA512_256 },
  { "sha512-256WithRSAEncryption", KDF_SHA512_256 },
  { "2.16.840.1.101.3.4.2.6", KDF_SHA512_256 },
};

/* Without OpenSSL: names node:crypto (20 to 26) knows outside the SHA
 * family. They need the host's OpenSSL (STATUS_EUNAVAILABLE); any other
 * name is unknown (STATUS_EDIGEST), as in node. */
static const char *const openssl_names[] = {
  "md5",
  "RSA-MD5",
  "md5WithRSAEncryption",
  "ssl3-md5",
  "1.2.840.113549.2.5",
  "md5-sha1",
  "md4",
  "RSA-MD4",
  "md4WithRSAEncryption",
  "1.2.840.113549.2.4",
  "mdc2",
  "RSA-MDC2",
  "mdc2WithRSA",
  "whirlpool",
  "ripemd",
  "ripemd160",
  "ripemd-160",
  "rmd160",
  "RSA-RIPEMD160",
  "ripemd160WithRSA",
  "1.3.36.3.2.1",
  "sm3",
  "RSA-SM3",
  "sm3WithRSAEncryption",
  "1.2.156.10197.1.401",
  "blake2b512",
  "blake2b-512",
  "1.3.6.1.4.1.1722.12.2.1.16",
  "blake2s256",
  "blake2s-256",
  "1.3.6.1.4.1.1722.12.2.2.8",
  "sha3-224",
  "sha3-256",
  "sha3-384",
  "sha3-512",
  "RSA-SHA3-224",
  "RSA-SHA3-256",
  "RSA-SHA3-384",
  "RSA-SHA3-512",
  "id-rsassa-pkcs1-v1_5-with-sha3-224",
  "id-rsassa-pkcs1-v1_5-with-sha3-256",
  "id-rsassa-pkcs1-v1_5-with-sha3-384",
  "id-rsassa-pkcs1-v1_5-with-sha3-512",
  "2.16.840.1.101.3.4.2.7",
  "2.16.840.1.101.3.4.2.8",
  "2.16.840.1.101.3.4.2.9",
  "2.16.840.1.101.3.4.2.10",
  "shake128",
  "shake-128",
  "shake256",
  "shake-256",
  "2.16.840.1.101.3.4.2.11",
  "2.16.840.1.101.3.4.2.12",
  /* OpenSSL 3.2+ (node 22 and later) */
  "keccak-224",
  "keccak-256",
  "keccak-384",
  "keccak-512",
  "keccak-kmac-128",
  "keccak-kmac-256",
  "keccak-kmac128",
  "keccak-kmac256",
  "sha256-192",
  "sha-256/192",
  "sha2-256/192",
};

static int same_name(const char *a, const char *b) {
  for (;; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
    if (x != y) return 0;
    if (x == '\0') return 1;
  }
}

static const kdf_sha_desc *sha_by_node_name(const char *name) {
  for (size_t i = 0; i < sizeof sha_names / sizeof sha_names[0]; i++)
    if (same_name(name, sha_names[i].name)) return kdf_sha_get(sha_names[i].alg);
  return NULL;
}

static int needs_openssl(const char *name) {
  for (size_t i = 0; i < sizeof openssl_names / sizeof openssl_names[0]; i++)
    if (same_name(name, openssl_names[i])) return 1;
  return 0;
}

/* With OpenSSL: the digest EVP_get_digestbyname found, if it is ours. */
static const kdf_sha_desc *sha_by_nid(int nid) {
  switch (nid) {
    case NID_sha1:
      return kdf_sha_get(KDF_SHA1);
    case NID_sha224:
      return kdf_sha_get(KDF_SHA224);
    case NID_sha256:
      return kdf_sha_get(KDF_SHA256);
    case NID_sha384:
      return kdf_sha_get(KDF_SHA384);
    case NID_sha512:
      return kdf_sha_get(KDF_SHA512);
    case NID_sha512_224:
      return kdf_sha_get(KDF_SHA512_224);
    case NID_sha512_256:
      return kdf_sha_get(KDF_SHA512_256);
    default:
      return NULL;
  }
}

/* ---- digests only a provider fetch finds ----------------------------------- */

/* Node >= 24 falls back to EVP_MD_fetch when EVP_get_digestbyname knows no
 * such name (keccak-256, sha256-192, dss1: provider-only names); lib/
 * asks for the same fallback only where the running node does it. A fetch
 * takes a reference to the provider's method object, which is the same
 * object for every fetch of one algorithm: the first reference per object
 * is kept for the life of the process (jobs hold the bare pointer), every
 * later one is given back at once, so repeated calls cost no memory. */
#define FETCHED_MAX 64
static const EVP_MD *fetched_mds[FETCHED_MAX];
static size_t fetched_len;
static pthread_mutex_t fetched_lock = PTHREAD_MUTEX_INITIALIZER;

static const EVP_MD *fetched(const kdf_openssl_api *o, const char *name) {
  if (o->md_fetch == NULL) return NULL;
  EVP_MD *md = o->md_fetch(NULL, name, NULL);
  if (md == NULL) {
    o->err_clear(); /* the failed fetch queued an error nobody will read */
    return NULL;
  }
  const EVP_MD *kept = NULL;
  pthread_mutex_lock(&fetched_lock);
  for (size_t i = 0; i < fetched_len && kept == NULL; i++)
    if (fetched_mds[i] == md) kept = md;
  if (kept == NULL && fetched_len < FETCHED_MAX) {
    fetched_mds[fetched_len++] = md;
    pthread_mutex_unlock(&fetched_lock);
    return md;
  }
  pthread_mutex_unlock(&fetched_lock);
  /* Already kept (drop this extra reference), or more distinct provider
   * digests than anybody has: refuse rather than hold references
   * without bound. */
  o->md_free(md);
  return kept;
}

/* ---- names already resolved ----------------------------------------------- */

/* EVP_get_digestbyname lowercases the name and takes OpenSSL's global name
 * lock on every call, and every job resolves its digest twice (on the JS
 * thread, to refuse a bad name at once; on the pool thread, when its output
 * is bound): for a one-iteration job that cost more than the derivation,
 * and the pool threads contended with the JS thread for that lock. Its
 * answer for a name does not change while the process runs (fetched
 * digests are kept for the process's life, above), so answers found are
 * kept: append-only, read without a lock, since an entry is complete before
 * the count that covers it is published. Unknown names are not kept, so a
 * caller that tries many cannot fill the table. */
#define RESOLVED_MAX 32
typedef struct {
  char name[64];
  int fetch;
  const kdf_sha_desc *sha;
  const EVP_MD *md;
} resolved_name;
static resolved_name resolved[RESOLVED_MAX];
static unsigned resolved_len; /* atomic */
static pthread_mutex_t resolved_lock = PTHREAD_MUTEX_INITIALIZER;

static const resolved_name *find_resolved(const char *name, int fetch, unsigned len) {
  for (unsigned i = 0; i < len; i++)
    if (resolved[i].fetch == fetch && strcmp(resolved[i].name, name) == 0) return &resolved[i];
  return NULL;
}

static void remember(const char *name, int fetch, const kdf_sha_desc *sha, const EVP_MD *md) {
  size_t n = strlen(name);
  if (n >= sizeof resolved[0].name) return;
  pthread_mutex_lock(&resolved_lock);
  unsigned len = resolved_len;
  if (len < RESOLVED_MAX && find_resolved(name, fetch, len) == NULL) {
    memcpy(resolved[len].name, name, n + 1);
    resolved[len].fetch = fetch;
    resolved[len].sha = sha;
    resolved[len].md = md;
    __atomic_store_n(&resolved_len, len + 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&resolved_lock);
}

/* ---- the lookup ----------------------------------------------------------- */

int kdf_pbkdf2_digest(const char *name, int fetch, const kdf_sha_desc **sha, const void **md_out) {
  *sha = NULL;
  *md_out = NULL;
  const kdf_openssl_api *o = kdf_openssl();
  if (o == NULL) {
    *sha = sha_by_node_name(name);
    if (*sha != NULL) return 0;
    return needs_openssl(name) ? STATUS_EUNAVAILABLE : STATUS_EDIGEST;
  }
  /* The same lookup node:crypto does, so the same names are accepted (and
   * digests the lookup knows but no provider implements fail later, with
   * OpenSSL's own message, exactly as in node). */
  const resolved_name *known =
      find_resolved(name, fetch, __atomic_load_n(&resolved_len, __ATOMIC_ACQUIRE));
  if (known != NULL) {
    *sha = known->sha;
    *md_out = known->md;
    return 0;
  }
  const EVP_MD *md = o->get_digestbyname(name);
  if (md == NULL && fetch) md = fetched(o, name);
  if (md == NULL) return STATUS_EDIGEST;
  *sha = sha_by_nid(o->md_type(md));
  if (*sha == NULL) *md_out = md;
  remember(name, fetch, *sha, *sha == NULL ? md : NULL);
  return 0;
}
