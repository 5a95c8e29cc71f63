/* scrypt's BlockMix on 128-bit vectors (x86-64, where SSE2 is part of the
 * ABI). The layout trick is described below; wider vectors do not help,
 * because Salsa20/8 is one chain of dependent steps. */
#include "kdf/scrypt/internal.h"

#ifdef SCRYPT_HAVE_X86

#include <emmintrin.h>

/* ---- Salsa20/8 and BlockMix, 128-bit vectors (x86-64) ----------------------- */

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

static inline v4u rotl_v(v4u x, int n) { return (x << n) | (x >> (32 - n)); }

/* Lane i of the result is lane (i + k) mod 4 of x. */
static inline v4u lanes_1(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x39); }
static inline v4u lanes_2(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x4E); }
static inline v4u lanes_3(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x93); }

/* Same contract as blockmix_c, on the permuted layout. */
uint64_t kdf_scrypt_mix_sse2(const uint32_t *in32, const uint32_t *xv32, uint32_t *out32,
                             size_t r) {
  const v4u *in = (const v4u *)in32, *xv = (const v4u *)xv32;
  v4u *out = (v4u *)out32;
  const size_t last = (2 * r - 1) * 4;
  v4u a = in[last], b = in[last + 1], c = in[last + 2], d = in[last + 3];
  if (xv != NULL) {
    a ^= xv[last];
    b ^= xv[last + 1];
    c ^= xv[last + 2];
    d ^= xv[last + 3];
  }
  for (size_t i = 0; i < 2 * r; i++) {
    const v4u *s = in + 4 * i;
    a ^= s[0];
    b ^= s[1];
    c ^= s[2];
    d ^= s[3];
    if (xv != NULL) {
      const v4u *t = xv + 4 * i;
      a ^= t[0];
      b ^= t[1];
      c ^= t[2];
      d ^= t[3];
    }
    const v4u a0 = a, b0 = b, c0 = c, d0 = d;
#if defined(__clang__)
#pragma unroll
#else
#pragma GCC unroll 4
#endif
    for (int round = 0; round < 4; round++) {
      /* columns */
      b ^= rotl_v(a + d, 7);
      c ^= rotl_v(b + a, 9);
      d ^= rotl_v(c + b, 13);
      a ^= rotl_v(d + c, 18);
      /* rows: a keeps its place, the others turn so each lane is one row */
      b = lanes_3(b);
      c = lanes_2(c);
      d = lanes_1(d);
      d ^= rotl_v(a + b, 7);
      c ^= rotl_v(d + a, 9);
      b ^= rotl_v(c + d, 13);
      a ^= rotl_v(b + c, 18);
      b = lanes_1(b);
      c = lanes_2(c);
      d = lanes_3(d);
    }
    a += a0;
    b += b0;
    c += c0;
    d += d0;
    v4u *o = out + 4 * ((i >> 1) + (i & 1) * r);
    o[0] = a;
    o[1] = b;
    o[2] = c;
    o[3] = d;
  }
  return (uint64_t)a[0] | (uint64_t)d[1] << 32;
}

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
  kdf_scrypt_mix_sse2, scrypt_load_permuted, scrypt_store_permuted, { mix_sse2_x2, 2 }
};

#else

/* ISO C wants at least one declaration per file. */
typedef int kdf_scrypt_blockmix_sse2_unused;

#endif /* SCRYPT_HAVE_X86 */
