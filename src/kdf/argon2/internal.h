/* Private to the Argon2 files: the block type and the block-fill variants
 * that argon2.c picks from at run time (through kdf/cpu.h). */
#ifndef KDF_ARGON2_INTERNAL_H
#define KDF_ARGON2_INTERNAL_H

#include <stdint.h>

#define ARGON2_QWORDS 128 /* 64-bit words per 1024-byte block */

typedef struct {
  uint64_t v[ARGON2_QWORDS];
} argon2_block;

/* Computes G(prev, ref) (RFC 9106 section 3.5) into dst; when xor_dst is
 * non-zero the result is XORed into dst's old contents instead (version 0x13,
 * passes after the first). dst must not alias prev or ref. scratch is two
 * blocks of working space owned by the caller, which wipes it once at the end
 * (so no variant needs to wipe a stack copy per block). No alignment is
 * assumed of any pointer: variants use unaligned loads and stores, which cost
 * nothing extra on the 64-byte aligned memory the pool hands out. */
typedef void (*argon2_fill_fn)(argon2_block *dst, const argon2_block *prev, const argon2_block *ref,
                               int xor_dst, argon2_block *scratch);

void argon2_fill_portable(argon2_block *dst, const argon2_block *prev, const argon2_block *ref,
                          int xor_dst, argon2_block *scratch);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ARGON2_HAVE_X86 1
void argon2_fill_ssse3(argon2_block *dst, const argon2_block *prev, const argon2_block *ref,
                       int xor_dst, argon2_block *scratch);
void argon2_fill_avx2(argon2_block *dst, const argon2_block *prev, const argon2_block *ref,
                      int xor_dst, argon2_block *scratch);
void argon2_fill_avx512(argon2_block *dst, const argon2_block *prev, const argon2_block *ref,
                        int xor_dst, argon2_block *scratch);
#endif

#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__AARCH64EL__)
#define ARGON2_HAVE_NEON 1
void argon2_fill_neon(argon2_block *dst, const argon2_block *prev, const argon2_block *ref,
                      int xor_dst, argon2_block *scratch);
#endif

#endif
