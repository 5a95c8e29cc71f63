/* Private to scrypt/: the BlockMix variants that scrypt.c picks from at run
 * time (through kdf/cpu.h). Each variant keeps V, X and Y in a layout of its
 * own, so it comes with the load and store that convert a 128 r byte block
 * to and from that layout; ROMix itself is shared. */
#ifndef KDF_SCRYPT_INTERNAL_H
#define KDF_SCRYPT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCRYPT_HAVE_X86 1
#endif

#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__AARCH64EL__)
#define SCRYPT_HAVE_NEON 1
#endif

#define WORDS_PER_SALSA_BLOCK 16

/* mix: out = BlockMix(in ^ xv) (xv may be NULL); returns Integerify(out).
 * in, xv and out hold 2r blocks of 16 words each; out must not overlap. */
typedef struct {
  uint64_t (*mix)(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r);
  void (*load)(uint32_t *dst, const uint8_t *src, size_t salsa_blocks);
  void (*store)(uint8_t *dst, const uint32_t *src, size_t salsa_blocks);
} scrypt_impl;

extern const scrypt_impl kdf_scrypt_blockmix_portable;
#ifdef SCRYPT_HAVE_X86
extern const scrypt_impl kdf_scrypt_blockmix_sse2;
#endif
#ifdef SCRYPT_HAVE_NEON
extern const scrypt_impl kdf_scrypt_blockmix_neon;
#endif

static inline uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

#endif
