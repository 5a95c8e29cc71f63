/* The one description of a KDF job that binding.c needs, and the dispatch to
 * the algorithm files. binding.c copies the caller's bytes and numbers into
 * a kdf_request without knowing what they mean; kdf.c knows which slot is
 * which for each algorithm. No Node-API here. */
#ifndef KDF_H
#define KDF_H

#include <stddef.h>
#include <stdint.h>

#include "pool/pool.h"

/* Algorithm ids, exported to JS by name (native.constants.algorithms).
 * BLAKE2B is not a KDF: exposed (sync) so tests can check our BLAKE2b. */
#define KDF_ALG_MAP(XX) \
  XX(PBKDF2, 1)         \
  XX(SCRYPT, 2)         \
  XX(ARGON2, 3)         \
  XX(BCRYPT, 4)         \
  XX(BLAKE2B, 5)

typedef enum {
#define XX(name, value) KDF_ALG_##name = (value),
  KDF_ALG_MAP(XX)
#undef XX
} kdf_alg;

#define KDF_MAX_INPUTS 4
#define KDF_MAX_NUMBERS 6
#define KDF_ERROR_LEN 256

/* Slots, per algorithm (the JS layer fills them in the same order):
 *   PBKDF2  in: password, salt                 num: iterations            name: digest
 *   SCRYPT  in: password, salt                 num: N, r, p, maxmem
 *   ARGON2  in: message, nonce, secret, ad     num: type, version, lanes, memory KiB, passes
 *   BCRYPT  in: password, salt (16 bytes)      num: cost, minor ('a', 'b' or 'y')
 *   BLAKE2B in: message, key (0..64 bytes)      outlen 1..64
 * outlen is the key length (bcrypt: always 23). */
typedef struct {
  kdf_alg alg;
  const uint8_t *in[KDF_MAX_INPUTS];
  size_t in_len[KDF_MAX_INPUTS];
  uint64_t num[KDF_MAX_NUMBERS];
  char name[64];
  uint8_t *out;
  size_t outlen;
  /* Set by kdf_prepare(). */
  size_t memory;      /* working memory the job will reserve from the budget */
  const void *md;     /* PBKDF2: the OpenSSL digest */
  /* Set by kdf_run() on failure: OpenSSL's text, read on the thread that
   * failed (its error queue is per thread). Empty when there is none. */
  char error[KDF_ERROR_LEN];
} kdf_request;

/* JS thread, before submit: checks what only native code can check (the
 * digest exists, scrypt accepts the parameters, ...) and sets `memory`.
 * Returns 0, STATUS_EDIGEST, STATUS_EINVAL (with `error` set) or STATUS_EMEMLIMIT. */
int kdf_prepare(kdf_request *r);

/* Pool thread (w != NULL: scratch memory comes from the worker's arena) or
 * the calling thread (w == NULL: scratch memory is allocated and freed).
 * Returns 0 or a negative KDF_E* code; on failure r->out is zeroed. */
int kdf_run(kdf_request *r, pool_worker *w);

/* Algorithm entry points used by kdf.c. */
int kdf_pbkdf2_prepare(kdf_request *r);
int kdf_pbkdf2_run(kdf_request *r, const volatile int *stop);
/* scrypt: prepare checks N, r, p and maxmem as node:crypto does and sets
 * r->memory to the working memory run() needs (64-byte aligned buffer,
 * provided by the caller, wiped by run() before it returns). */
int kdf_scrypt_prepare(kdf_request *r);
int kdf_scrypt_run(kdf_request *r, void *memory, size_t memory_size, const volatile int *stop);

/* Writes OpenSSL's first queued error on this thread into r->error, or
 * `fallback` when the queue is empty, and clears the queue. */
void kdf_capture_openssl_error(kdf_request *r, const char *fallback);

#endif
