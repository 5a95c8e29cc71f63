/* OpenSSL, found at run time in the host process, never at load time.
 *
 * The SHA family is our own code (kdf/sha); OpenSSL serves only the other
 * digests PBKDF2 accepts (SHA-3, BLAKE2, SM3, RIPEMD-160, MD5, ...). Node's
 * binary exports its OpenSSL, Bun's and Deno's export none: an addon with
 * load-time OpenSSL symbols dies there with "undefined symbol". So every
 * OpenSSL function is looked up once, on first use, from the host's global
 * scope; when any is missing, kdf_openssl() is NULL and callers refuse just
 * the digests that need it (STATUS_EUNAVAILABLE).
 *
 * OpenSSL's error queue is per thread: a failure must be read on the thread
 * where it happened (a pool worker), or the message is lost or, worse,
 * another job's. The algorithms that call OpenSSL read it here, right after
 * the failing call. */
#ifndef KDF_OPENSSL_H
#define KDF_OPENSSL_H

#include <stddef.h>

#include <openssl/evp.h> /* types and constants only: no symbol is linked */

/* The functions kdfpool calls, by pointer. */
typedef struct {
  const EVP_MD *(*get_digestbyname)(const char *name);
  int (*md_type)(const EVP_MD *md);
  int (*md_size)(const EVP_MD *md);
  int (*md_block_size)(const EVP_MD *md);
  EVP_MD_CTX *(*ctx_new)(void);
  void (*ctx_free)(EVP_MD_CTX *c);
  int (*ctx_copy)(EVP_MD_CTX *out, const EVP_MD_CTX *in);
  int (*digest_init)(EVP_MD_CTX *c, const EVP_MD *md, ENGINE *e);
  int (*digest_update)(EVP_MD_CTX *c, const void *d, size_t n);
  int (*digest_final)(EVP_MD_CTX *c, unsigned char *md, unsigned int *n);
  int (*pbkdf2_hmac)(const char *pass, int passlen, const unsigned char *salt, int saltlen,
                     int iter, const EVP_MD *md, int keylen, unsigned char *out);
  unsigned long (*err_get)(void);
  void (*err_string)(unsigned long e, char *buf, size_t len);
  void (*err_clear)(void);
  /* Optional (OpenSSL 3 only; NULL elsewhere): the provider fetch that
   * node >= 24 falls back to when EVP_get_digestbyname knows no such name
   * (keccak-256, sha256-192, ...), and the matching release. */
  EVP_MD *(*md_fetch)(OSSL_LIB_CTX *libctx, const char *name, const char *properties);
  void (*md_free)(EVP_MD *md);
} kdf_openssl_api;

/* The host's OpenSSL, or NULL when the host exports none (or a test turned
 * it off). Looked up once, thread-safely; any thread. */
const kdf_openssl_api *kdf_openssl(void);

/* For tests: "none" makes kdf_openssl() NULL (as in Bun or Deno), "auto"
 * restores the lookup. 0, or -1 for another name. Jobs already prepared
 * keep what they resolved. */
int kdf_openssl_force(const char *name);

/* Registers fn with the host's OPENSSL_atexit(): OPENSSL_cleanup() calls it
 * first, before it frees anything, from whatever exit path runs it. 0, or
 * -1 when the host has no OpenSSL (then nothing of OpenSSL is torn down
 * under us either). For Windows, where an addon's own atexit() runs only
 * after every other thread is gone (see napi/registry.c). */
int kdf_openssl_at_cleanup(void (*fn)(void));

/* Writes this thread's first queued OpenSSL error into buf (len bytes), or
 * `fallback` when the queue is empty (or there is no OpenSSL), and clears
 * the queue. */
void kdf_openssl_error(char *buf, size_t len, const char *fallback);

#endif
