/* The KDFs behind one contract, and the only place that knows which
 * generic slot means what.
 *
 * The binding copies the caller's bytes and numbers into a kdf_request
 * without knowing what they mean. kdf_prepare() (JS thread) unpacks the
 * slots into the algorithm's typed parameters, lets the algorithm check
 * what only native code can check and learns the scratch memory the job
 * needs; kdf_run() (any thread) runs it. Every algorithm offers the same
 * pair, declared in its own header:
 *
 *   int kdf_<alg>_prepare(kdf_<alg>_params *p, size_t *memory);
 *   int kdf_<alg>_run(const kdf_<alg>_params *p, void *scratch,
 *                     size_t scratch_size, const volatile int *stop);
 *
 * returning 0 or a negative STATUS_E* code (common/status.h), with the
 * output zeroed on failure. Algorithms include neither this header nor
 * anything of the pool or Node-API: scratch memory and the stop flag are
 * handed to them (scripts/check-layers.js enforces this). */
#ifndef KDF_KDF_H
#define KDF_KDF_H

#include "kdf/argon2/argon2.h"
#include "kdf/argon2/blake2b.h"
#include "kdf/bcrypt.h"
#include "kdf/pbkdf2.h"
#include "kdf/scrypt/scrypt.h"

#include <stddef.h>
#include <stdint.h>

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

#define KDF_MAX_INPUTS  4
#define KDF_MAX_NUMBERS 6
#define KDF_ERROR_LEN   256

/* The typed parameters of one job; which member is live follows `alg`. */
typedef union {
  kdf_pbkdf2_params pbkdf2;
  kdf_scrypt_params scrypt;
  kdf_argon2_params argon2;
  kdf_bcrypt_params bcrypt;
  kdf_blake2b_params blake2b;
} kdf_params;

/* Slots, per algorithm (the JS layer fills them in the same order):
 *   PBKDF2  in: password, salt                 num: iterations            name: digest
 *   SCRYPT  in: password, salt                 num: N, r, p, maxmem
 *   ARGON2  in: message, nonce, secret, ad     num: type, version, lanes, memory KiB, passes
 *   BCRYPT  in: password, salt (16 bytes)      num: cost, minor ('a', 'b' or 'y')
 *   BLAKE2B in: message, key (0..64 bytes)     outlen 1..64
 * outlen is the key length (bcrypt: always 23). */
typedef struct {
  /* Filled by the binding. */
  kdf_alg alg;
  const uint8_t *in[KDF_MAX_INPUTS];
  size_t in_len[KDF_MAX_INPUTS];
  uint64_t num[KDF_MAX_NUMBERS];
  char name[64];
  uint8_t *out;
  size_t outlen;
  /* Set by kdf_prepare(). */
  kdf_params params;
  size_t memory;    /* scratch bytes kdf_run() needs; reserved from the pool's budget */
  uint64_t cost_ns; /* predicted run time under load, 1 or more (0: BLAKE2b, not a KDF) */
  /* Set on failure: OpenSSL's text, read on the thread that failed (its
   * error queue is per thread). Empty when there is none. */
  char error[KDF_ERROR_LEN];
} kdf_request;

/* JS thread, before submit. Returns 0, STATUS_EDIGEST, STATUS_EINVAL (with
 * `error` set when there is a message) or STATUS_EMEMLIMIT. */
int kdf_prepare(kdf_request *r);

/* Any thread, after a successful kdf_prepare(). `scratch` holds at least
 * r->memory bytes, 64-byte aligned (NULL when r->memory is 0); `stop` may be
 * NULL. Returns 0 or a negative STATUS_E* code; on failure r->out is zeroed. */
int kdf_run(kdf_request *r, void *scratch, size_t scratch_size, const volatile int *stop);

/* Batching. After a successful kdf_prepare(): a non-zero key shared by
 * exactly the requests that may run together in one kdf_run_batch() (PBKDF2
 * on the same SHA-family digest, where this CPU's lane kernel interleaves
 * more than one chain; bcrypt of the same cost, up to KDF_BCRYPT_MAX_LANES
 * interleaved; scrypt of the same N, r and p, where this CPU's scrypt
 * variant interleaves lanes), and in *max how many are worth it; 0
 * otherwise. */
uint64_t kdf_batch_key(const kdf_request *r, unsigned *max);

/* After a successful kdf_prepare(): which class of run times the request
 * belongs to (0 for what predicts nothing), < KDF_COST_CLASSES. Requests of
 * one class have one ratio of real to predicted run time on a machine
 * (PBKDF2 per digest, since each digest runs on its own kernel; scrypt,
 * Argon2, bcrypt): the pool learns that ratio per class. */
#define KDF_COST_CLASSES 16
unsigned kdf_cost_class(const kdf_request *r);

/* Runs n requests of one batch key; done(ctx, i, status) is called exactly
 * once per request, as soon as it ends (r->out written, or zeroed on
 * failure), after which nothing touches that request. scratch (64-byte
 * aligned, NULL if every request's memory is 0) holds the sum of the
 * requests' memory; request i uses the part after requests 0..i-1's. */
typedef void (*kdf_done_fn)(void *ctx, size_t i, int status);
void kdf_run_batch(kdf_request *const *rs, size_t n, void *scratch, size_t scratch_size,
                   const volatile int *stop, kdf_done_fn done, void *ctx);

/* Forces a CPU variant for tests: family "argon2", "scrypt" or "sha" (the
 * SHA layer: PBKDF2's compressions and lane kernels), name as the
 * algorithm lists it, or "auto"; family "openssl", name "none" (behave as
 * in a host without OpenSSL, e.g. Bun) or "auto". 0, or -1 if unknown or
 * unsupported here. */
int kdf_force_variant(const char *family, const char *name);

/* The CPU variant that runs `family` now ("sha": PBKDF2's compressions,
 * "argon2", "scrypt", "bcrypt"), by the name kdf_force_variant takes; NULL
 * for an unknown family. What kdf.tune() reports beside its measurements. */
const char *kdf_variant(const char *family);

#endif
