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

/* The most lanes any variant's lane kernel runs at once. */
#define SCRYPT_MAX_KERNEL_LANES 4

/* A lane kernel: for every lane l < lanes, out[l] = BlockMix(in[l] ^ xv[l])
 * (xv NULL: no XOR) and j[l] = Integerify(out[l]), interleaved on one
 * thread (lanes_body.h). Lanes may share pointers (they then compute and
 * store the same bytes). lanes 1 with mix NULL: the variant has none. */
typedef void (*scrypt_mix_lanes_fn)(const uint32_t *const in[], const uint32_t *const xv[],
                                    uint32_t *const out[], size_t r, uint64_t j[]);
typedef struct {
  scrypt_mix_lanes_fn mix;
  unsigned lanes;
} scrypt_lane_kernel;

/* mix: out = BlockMix(in ^ xv) (xv may be NULL); returns Integerify(out).
 * in, xv and out hold 2r blocks of 16 words each; out must not overlap.
 * wide: what kdf_scrypt_lanes() interleaves independent computations with. */
typedef struct {
  uint64_t (*mix)(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r);
  void (*load)(uint32_t *dst, const uint8_t *src, size_t salsa_blocks);
  void (*store)(uint8_t *dst, const uint32_t *src, size_t salsa_blocks);
  scrypt_lane_kernel wide;
} scrypt_impl;

extern const scrypt_impl kdf_scrypt_blockmix_portable;
/* The one-lane BlockMix of every x86 variant: plain C on the permuted order
 * (blockmix_portable.c). One Salsa20/8 chain is all dependent steps; in
 * general-purpose registers a rotate is one instruction and the four
 * columns run side by side, while in one 128-bit vector a rotate is three
 * and every half round adds shuffles to the chain. Thread CPU time of a
 * whole N = 2^14, r = 8 derivation on this Zen 4: 27 ms this way, 45-51 ms
 * with the SSE2 one-lane code that was used before. */
uint64_t kdf_scrypt_mix_permuted_c(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r);
#ifdef SCRYPT_HAVE_X86
extern const scrypt_impl kdf_scrypt_blockmix_sse2;
extern const scrypt_impl kdf_scrypt_blockmix_avx2;
extern const scrypt_impl kdf_scrypt_blockmix_avx512;
/* Lane kernels that no variant uses, for the lane benchmark only. */
extern const scrypt_lane_kernel kdf_scrypt_avx2_x2, kdf_scrypt_avx512_x2, kdf_scrypt_avx512_z4;
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

/* The word order of the 4-lane SIMD variants (SSE2, NEON): word i of a
 * 64-byte Salsa20 block is kept at position (5 * i) mod 16, so that each
 * diagonal of the 4x4 state is one vector and a round needs only lane
 * rotations. Their load and store convert between that order and the
 * block's bytes; the portable variant keeps the natural order. */
#define SCRYPT_PERMUTED(i) (((i)*5) & 15)

static inline void scrypt_load_permuted(uint32_t *dst, const uint8_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks; k++, dst += 16, src += 64)
    for (int i = 0; i < 16; i++) dst[i] = load_le32(src + 4 * SCRYPT_PERMUTED(i));
}

static inline void scrypt_store_permuted(uint8_t *dst, const uint32_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks; k++, dst += 64, src += 16)
    for (int i = 0; i < 16; i++) store_le32(dst + 4 * SCRYPT_PERMUTED(i), src[i]);
}

/* ROMix of block b[l] of each of n lanes (1..kn->lanes), V (N blocks), X
 * and Y per lane, in lockstep; in scrypt.c, visible here for the lane
 * benchmark (kdf_scrypt_lanes() is the entry point). */
int kdf_scrypt_romix_lanes(const scrypt_impl *im, const scrypt_lane_kernel *kn, unsigned n,
                           uint8_t *const b[], uint32_t *const v[], uint32_t *const x[],
                           uint32_t *const y[], size_t r, uint64_t N, const volatile int *stop,
                           uint64_t *v_used);

#endif
