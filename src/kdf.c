/* Dispatch from a kdf_request to the algorithm files, and the scratch-memory
 * policy: pool workers lend their arena, synchronous calls allocate. */
#include "kdf.h"

#include "kdf_errors.h"

#include <stdio.h>
#include <string.h>

#include <openssl/err.h>

void kdf_capture_openssl_error(kdf_request *r, const char *fallback) {
  unsigned long e = ERR_get_error();
  if (e != 0) {
    ERR_error_string_n(e, r->error, sizeof r->error);
  } else {
    snprintf(r->error, sizeof r->error, "%s", fallback);
  }
  ERR_clear_error();
}

int kdf_prepare(kdf_request *r) {
  r->error[0] = '\0';
  r->memory = 0;
  for (int i = 0; i < KDF_MAX_INPUTS; i++)
    if (r->in[i] == NULL && r->in_len[i] != 0) return KDF_EINVAL;
  switch (r->alg) {
    case KDF_ALG_PBKDF2: return kdf_pbkdf2_prepare(r);
    default: return KDF_EINVAL;
  }
}

int kdf_run(kdf_request *r, pool_worker *w) {
  const volatile int *stop = w != NULL ? pool_worker_stop_flag(w) : NULL;
  int rc;
  switch (r->alg) {
    case KDF_ALG_PBKDF2: rc = kdf_pbkdf2_run(r, stop); break;
    default: rc = KDF_EINVAL; break;
  }
  return rc;
}
