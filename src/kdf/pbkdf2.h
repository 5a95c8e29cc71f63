/* PBKDF2 (RFC 8018 section 5.2) with HMAC over any digest OpenSSL knows by
 * name, byte-identical to node:crypto's pbkdf2. */
#ifndef KDF_PBKDF2_H
#define KDF_PBKDF2_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *pwd;
  size_t pwdlen;
  const uint8_t *salt;
  size_t saltlen;
  uint64_t iterations; /* 1..INT_MAX */
  const char *digest;  /* OpenSSL name, as node:crypto looks it up */
  uint8_t *out;
  size_t outlen; /* 0..INT_MAX */
  /* Set by prepare: the OpenSSL digest (an EVP_MD). */
  const void *md;
  /* Out: OpenSSL's message when run fails with STATUS_ECRYPTO. */
  char *error;
  size_t error_len;
} kdf_pbkdf2_params;

/* The KDF contract (see kdf/kdf.h). prepare: looks the digest up (the same
 * lookup node:crypto does: STATUS_EDIGEST if unknown), checks the ranges and
 * sets md; needs no scratch memory. run: 0, STATUS_EINVAL, STATUS_ECRYPTO or
 * STATUS_ESTOPPED; `out` is zeroed on failure. */
int kdf_pbkdf2_prepare(kdf_pbkdf2_params *p, size_t *memory);
int kdf_pbkdf2_run(const kdf_pbkdf2_params *p, void *scratch, size_t scratch_size,
                   const volatile int *stop);

#endif
