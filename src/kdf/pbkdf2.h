/* PBKDF2 (RFC 8018 section 5.2) with HMAC over any digest node:crypto
 * accepts, byte-identical to node:crypto's pbkdf2. */
#ifndef KDF_PBKDF2_H
#define KDF_PBKDF2_H

#include "kdf/sha/sha.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *pwd;
  size_t pwdlen;
  const uint8_t *salt;
  size_t saltlen;
  uint64_t iterations; /* 1..INT_MAX */
  const char *digest;  /* the name as given to node:crypto */
  int fetch;           /* also try OpenSSL's provider fetch, as node >= 24 does */
  uint8_t *out;
  size_t outlen; /* 0..INT_MAX */
  /* Set by prepare: exactly one of them. sha: the SHA family, on our own
   * code; md: any other digest, an OpenSSL EVP_MD of the host. */
  const kdf_sha_desc *sha;
  const void *md;
  /* Out: OpenSSL's message when run fails with STATUS_ECRYPTO. */
  char *error;
  size_t error_len;
} kdf_pbkdf2_params;

/* The KDF contract (see kdf/kdf.h). prepare: resolves the digest name as
 * node:crypto does (STATUS_EDIGEST if nobody knows it; STATUS_EUNAVAILABLE
 * if it needs OpenSSL and the host has none), checks the ranges; needs no
 * scratch memory. run: 0, STATUS_EINVAL, STATUS_ECRYPTO or STATUS_ESTOPPED;
 * `out` is zeroed on failure. */
int kdf_pbkdf2_prepare(kdf_pbkdf2_params *p, size_t *memory);

/* After a successful prepare: the job's predicted run time on this CPU's
 * SHA variant under load (see kdf_cpu_unit_ns in kdf/cpu.h). */
uint64_t kdf_pbkdf2_cost_ns(const kdf_pbkdf2_params *p);
int kdf_pbkdf2_run(const kdf_pbkdf2_params *p, void *scratch, size_t scratch_size,
                   const volatile int *stop);

/* PBKDF2-HMAC over a SHA-family digest on our own code, polling `stop` (may
 * be NULL) every few milliseconds of work, long passwords and salts
 * included. scrypt uses it for its two one-iteration steps. 0 or
 * STATUS_ESTOPPED (out zeroed). */
int kdf_pbkdf2_sha(const kdf_sha_desc *d, const uint8_t *pwd, size_t pwdlen, const uint8_t *salt,
                   size_t saltlen, uint64_t iterations, uint8_t *out, size_t outlen,
                   const volatile int *stop);

/* Batches: jobs with the same SHA-family digest run together, their
 * output blocks as interleaved chains (kdf_sha_lanes). A job with fewer
 * iterations ends first; `done` reports each job as soon as its key is
 * written (0) or it failed (STATUS_ESTOPPED, STATUS_EINVAL: out zeroed),
 * and the engine never touches that job's parameters or output again. */
#define KDF_PBKDF2_MAX_BATCH 8

/* How many jobs are worth running together with this prepared job: the
 * lane kernel's width for its digest (1: no gain on this CPU), 0 for
 * digests on OpenSSL, which never batch. */
size_t kdf_pbkdf2_batch_width(const kdf_pbkdf2_params *p);

typedef void (*kdf_pbkdf2_done_fn)(void *ctx, size_t i, int rc);
/* Runs n prepared SHA-family jobs, all with the same digest (callers
 * batch by digest: a group of eight that mixes digests fails whole with
 * STATUS_EINVAL). `done` is called exactly once per job, on this thread. */
void kdf_pbkdf2_run_batch(const kdf_pbkdf2_params *const *ps, size_t n, const volatile int *stop,
                          kdf_pbkdf2_done_fn done, void *ctx);

#endif
