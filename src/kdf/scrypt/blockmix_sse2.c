/* scrypt's two-lane BlockMix kernel on 128-bit vectors (x86-64, where SSE2
 * is part of the ABI): two independent Salsa20/8 chains, one set of four
 * vectors each. A lone chain runs faster in plain C on the same layout
 * (kdf_scrypt_mix_permuted_c, internal.h says why), which is what this
 * variant uses for one lane. */
#include "kdf/scrypt/internal.h"

#ifdef SCRYPT_HAVE_X86

#include <emmintrin.h>

/* ---- Salsa20/8 on 128-bit vectors (x86-64) --------------------------------- */

/* Word i of a stored block is word 5i mod 16 of the RFC's block: vector 0 is
 * the diagonal (x0, x5, x10, x15), 1 is (x4, x9, x14, x3), 2 is (x8, x13,
 * x2, x7), 3 is (x12, x1, x6, x11). A column step then works on whole
 * vectors, and rotating vectors 1..3 by one, two and three lanes lines the
 * rows up the same way. Word 0 stays in place and word 1 lands at 13, which
 * is all Integerify reads. XOR and addition are lane-wise, so BlockMix never
 * needs to know about the permutation (SCRYPT_PERMUTED, scrypt/internal.h,
 * which also holds the load and store shared with the NEON variant). */

/* GNU vector extensions for the arithmetic: shorter than intrinsics, and
 * the compiler still picks the instructions (a rotate where there is one).
 * may_alias: the buffers are also accessed as uint32_t. */
typedef uint32_t v4u __attribute__((vector_size(16), __may_alias__));

/* Lane i of the result is lane (i + k) mod 4 of x. */
static inline v4u lanes_1(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x39); }
static inline v4u lanes_2(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x4E); }
static inline v4u lanes_3(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x93); }

/* Two lanes: two sets of four vectors (16 registers with the saved
 * inputs, so some of those spill; the loads are off the chains). */
#define LANES_FN              mix_sse2_x2
#define LANES_TARGET          /* SSE2 is in the ABI */
#define LANES_SETS            2
#define LANES_GROUP           1
#define W                     v4u
#define W_LOAD(p, k, off)     ((v4u)_mm_loadu_si128((const __m128i *)(const void *)((p)[k] + (off))))
#define W_STORE(p, k, off, v) _mm_storeu_si128((__m128i *)(void *)((p)[k] + (off)), (__m128i)(v))
#define W_LANES_1(x)          lanes_1(x)
#define W_LANES_2(x)          lanes_2(x)
#define W_LANES_3(x)          lanes_3(x)
#include "kdf/scrypt/lanes_body.h"

const scrypt_impl kdf_scrypt_blockmix_sse2 = {
  kdf_scrypt_mix_permuted_c, scrypt_load_permuted, scrypt_store_permuted, { mix_sse2_x2, 2 }
};

#else

/* ISO C wants at least one declaration per file. */
typedef int kdf_scrypt_blockmix_sse2_unused;

#endif /* SCRYPT_HAVE_X86 */
