/* The portable C compressions (sha_portable.c): every variant's fallback,
 * and SHA-512's only one on CPUs without its instructions. */
#ifndef KDF_SHA_PORTABLE_H
#define KDF_SHA_PORTABLE_H

#include "sha_core.h"

void kdf_sha1_compress_portable(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha256_compress_portable(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_portable(kdf_sha_state *st, const uint8_t *blocks, size_t n);

#endif
