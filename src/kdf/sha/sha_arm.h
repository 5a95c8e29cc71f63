/* The arm64 kernels (sha_arm.c); KDF_SHA_HAVE_ARM where they are built. */
#ifndef KDF_SHA_ARM_H
#define KDF_SHA_ARM_H

#include "sha_core.h"

#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define KDF_SHA_HAVE_ARM 1
void kdf_sha1_compress_armce(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha256_compress_armce(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_armce(kdf_sha_state *st, const uint8_t *blocks, size_t n);
#endif

#endif
