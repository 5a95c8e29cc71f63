/* The x86-64 kernels (sha_x86.c); KDF_SHA_HAVE_X86 where they are built. */
#ifndef KDF_SHA_X86_H
#define KDF_SHA_X86_H

#include "sha_core.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KDF_SHA_HAVE_X86 1
void kdf_sha1_compress_shani(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha256_compress_shani(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_bmi2(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_avx2(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_avx512(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha1_compress_shani_x2(kdf_sha_state *a, const uint8_t *block_a, kdf_sha_state *b,
                                const uint8_t *block_b);
void kdf_sha256_compress_shani_x2(kdf_sha_state *a, const uint8_t *block_a, kdf_sha_state *b,
                                  const uint8_t *block_b);
/* SHA-224/256 lanes on SHA-NI: up to 4 chains interleaved per pass (more
 * run as several passes); how many the pool batches is sha.c's measured
 * choice. SHA-384/512 lanes in vector registers, one chain per 64-bit
 * element: up to 4 per pass on AVX2, 8 on AVX-512. */
void kdf_sha256_lanes_shani(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k,
                            uint64_t n);
void kdf_sha512_lanes_avx2(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n);
void kdf_sha512_lanes_avx512(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k,
                             uint64_t n);
#endif

#endif
