/* Dispatch from a kdf_request to the algorithm files, and the scratch-memory
 * policy: pool workers lend their arena (kept between jobs, because faulting
 * fresh pages costs more than hashing them), synchronous calls allocate. */
#include "kdf/kdf.h"

#include "kdf/argon2/blake2b.h"
#include "kdf/argon2/argon2.h"
#include "kdf/bcrypt.h"
#include "common/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

/* Slot names for the numbers of each algorithm (see kdf.h). */
enum { ARGON2_TYPE, ARGON2_VERSION, ARGON2_LANES, ARGON2_MEMORY_KIB, ARGON2_PASSES };
enum { BCRYPT_COST, BCRYPT_MINOR };

void kdf_capture_openssl_error(kdf_request *r, const char *fallback) {
  unsigned long e = ERR_get_error();
  if (e != 0) {
    ERR_error_string_n(e, r->error, sizeof r->error);
  } else {
    snprintf(r->error, sizeof r->error, "%s", fallback);
  }
  ERR_clear_error();
}

static int argon2_params(const kdf_request *r, kdf_argon2_params *p) {
  memset(p, 0, sizeof *p);
  if (r->num[ARGON2_TYPE] > KDF_ARGON2ID) return STATUS_EINVAL;
  if (r->num[ARGON2_VERSION] != KDF_ARGON2_VERSION_10 &&
      r->num[ARGON2_VERSION] != KDF_ARGON2_VERSION_13)
    return STATUS_EINVAL;
  if (r->num[ARGON2_LANES] > UINT32_MAX || r->num[ARGON2_MEMORY_KIB] > UINT32_MAX ||
      r->num[ARGON2_PASSES] > UINT32_MAX)
    return STATUS_EINVAL;
  p->type = (kdf_argon2_type)r->num[ARGON2_TYPE];
  p->version = (uint32_t)r->num[ARGON2_VERSION];
  p->pwd = r->in[0];
  p->pwdlen = r->in_len[0];
  p->salt = r->in[1];
  p->saltlen = r->in_len[1];
  p->secret = r->in[2];
  p->secretlen = r->in_len[2];
  p->ad = r->in[3];
  p->adlen = r->in_len[3];
  p->lanes = (uint32_t)r->num[ARGON2_LANES];
  p->m_cost = (uint32_t)r->num[ARGON2_MEMORY_KIB];
  p->t_cost = (uint32_t)r->num[ARGON2_PASSES];
  p->out = r->out;
  p->outlen = r->outlen;
  return kdf_argon2_check(p);
}

static int bcrypt_check(const kdf_request *r) {
  uint64_t cost = r->num[BCRYPT_COST], minor = r->num[BCRYPT_MINOR];
  if (cost < KDF_BCRYPT_MIN_COST || cost > KDF_BCRYPT_MAX_COST) return STATUS_EINVAL;
  if (minor != 'a' && minor != 'b' && minor != 'y') return STATUS_EINVAL;
  if (r->in_len[1] != KDF_BCRYPT_SALT_LEN || r->outlen != KDF_BCRYPT_HASH_LEN) return STATUS_EINVAL;
  return 0;
}

int kdf_prepare(kdf_request *r) {
  kdf_argon2_params ap;
  int rc;
  r->error[0] = '\0';
  r->memory = 0;
  for (int i = 0; i < KDF_MAX_INPUTS; i++)
    if (r->in[i] == NULL && r->in_len[i] != 0) return STATUS_EINVAL;
  switch (r->alg) {
    case KDF_ALG_PBKDF2:
      return kdf_pbkdf2_prepare(r);
    case KDF_ALG_SCRYPT:
      return kdf_scrypt_prepare(r);
    case KDF_ALG_ARGON2:
      rc = argon2_params(r, &ap);
      if (rc == 0) r->memory = kdf_argon2_memory_size(&ap);
      return rc;
    case KDF_ALG_BCRYPT:
      return bcrypt_check(r);
    case KDF_ALG_BLAKE2B:
      return r->outlen >= 1 && r->outlen <= 64 && r->in_len[1] <= 64 ? 0 : STATUS_EINVAL;
    default:
      return STATUS_EINVAL;
  }
}

/* Scratch memory for a memory-hard job. */
static void *scratch(pool_worker *w, size_t size) {
  if (w != NULL) return pool_worker_arena(w, size);
  void *mem = NULL;
  return posix_memalign(&mem, 64, size ? size : 64) == 0 ? mem : NULL;
}

int kdf_run(kdf_request *r, pool_worker *w) {
  const volatile int *stop = w != NULL ? pool_worker_stop_flag(w) : NULL;
  kdf_argon2_params ap;
  void *mem = NULL;
  int rc;
  switch (r->alg) {
    case KDF_ALG_PBKDF2:
      return kdf_pbkdf2_run(r, stop);
    case KDF_ALG_SCRYPT:
      if ((mem = scratch(w, r->memory)) == NULL) return STATUS_ENOMEM;
      rc = kdf_scrypt_run(r, mem, r->memory, stop);
      break;
    case KDF_ALG_ARGON2:
      if ((rc = argon2_params(r, &ap)) != 0) return rc;
      if ((mem = scratch(w, r->memory)) == NULL) return STATUS_ENOMEM;
      rc = kdf_argon2(&ap, mem, r->memory, stop);
      break;
    case KDF_ALG_BCRYPT:
      if ((rc = bcrypt_check(r)) != 0) return rc;
      return kdf_bcrypt(r->in[0], r->in_len[0], r->in[1], (unsigned)r->num[BCRYPT_COST],
                        (char)r->num[BCRYPT_MINOR], r->out, stop);
    case KDF_ALG_BLAKE2B:
      return kdf_blake2b(r->out, r->outlen, r->in[0], r->in_len[0], r->in[1], r->in_len[1]);
    default:
      return STATUS_EINVAL;
  }
  /* Arena memory stays with the worker (already wiped by the KDF). */
  if (w == NULL) free(mem);
  return rc;
}
