/* Which digest a PBKDF2 name means (pbkdf2_digest.c), resolved as
 * node:crypto resolves it. */
#ifndef KDF_PBKDF2_DIGEST_H
#define KDF_PBKDF2_DIGEST_H

#include "kdf/sha/sha.h"

/* Resolves `name` (fetch: also try a provider fetch, as node >= 24 does).
 * Returns 0 with exactly one of *sha (our SHA layer) and *md (an EVP_MD of
 * the host's OpenSSL) set; STATUS_EDIGEST if nobody knows the name;
 * STATUS_EUNAVAILABLE if it needs OpenSSL and the host has none. */
int kdf_pbkdf2_digest(const char *name, int fetch, const kdf_sha_desc **sha, const void **md);

#endif
