/* The one shape in which a refusal or a failed job reaches JS: a plain
 * object
 *   { status, message?, retryAfterMs?, memoryNeeded?, maxMemory? }
 * that lib/errors.js fromRecord() turns into the error the caller sees (it
 * decides the class, code and message, so that sync and async calls with
 * the same bad input raise the same error). Every native function that can
 * refuse returns one instead of its result; a failed job is handed to lib/'s
 * completion handler as one. */
#ifndef NAPI_RECORD_H
#define NAPI_RECORD_H

#include "napi/env.h"
#include "pool/pool.h"

#include <stdint.h>

typedef struct {
  int status; /* a negative STATUS_E* code: the record's `status` */
  /* Native code's own words (OpenSSL's, a KDF's), used where the status has
   * no fixed text (EINVAL, ECRYPTO): `message`; NULL or "" for none. */
  const char *message;
  /* The pool that refused, while it is certainly alive: EMEMLIMIT gets
   * `maxMemory` from it. NULL when it may be gone (a job that ended) or
   * there is none. */
  pool *p;
  /* EMEMLIMIT: what the job would reserve, its scratch memory plus its
   * output (`memoryNeeded`), and the budget that refused it when `p` is
   * NULL (0: unknown). */
  uint64_t memory_needed;
  uint64_t max_memory;
  /* EFULL, ETIMEDOUT, EDISPLACED: the pool's retry hint for the job
   * (pool_job.retry_after_ns), as `retryAfterMs`; and its whole seconds
   * (retry_after_s), as `retryAfterSeconds` when more than the hint
   * rounded up (what lib/ takes when there is none). */
  uint64_t retry_after_ns;
  unsigned retry_after_s;
} record_info;

/* The record for `info`; NULL with an exception pending on failure. EFULL,
 * ETIMEDOUT and EDISPLACED also get `retryAfterMs`, and `retryAfterSeconds`
 * when spread (their status is their reason: lib/errors.js names it). */
napi_value make_record(napi_env env, const record_info *info);

#endif
