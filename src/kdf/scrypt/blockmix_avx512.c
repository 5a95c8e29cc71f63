/* scrypt's lane kernels with AVX-512: the AVX2 plan (two sets of two lanes
 * per ymm, one lane per 128-bit half) with AVX-512VL's one-instruction
 * rotate (vprold), which shortens every step of the Salsa chain; and, for
 * the benchmark, four lanes per zmm. Function-level targets; picked only when the CPU has
 * AVX-512F and VL. */
#include "kdf/scrypt/internal.h"

#ifdef SCRYPT_HAVE_X86

#include <immintrin.h>

typedef uint32_t v8u __attribute__((vector_size(32), __may_alias__));
typedef uint32_t v16u __attribute__((vector_size(64), __may_alias__));

#define Y_LOAD(p, k, off)                                                          \
  ((v8u)_mm256_inserti128_si256(                                                   \
      _mm256_castsi128_si256(                                                      \
          _mm_loadu_si128((const __m128i *)(const void *)((p)[2 * (k)] + (off)))), \
      _mm_loadu_si128((const __m128i *)(const void *)((p)[2 * (k) + 1] + (off))), 1))
#define Y_STORE(p, k, off, v)                                       \
  do {                                                              \
    _mm_storeu_si128((__m128i *)(void *)((p)[2 * (k)] + (off)),     \
                     _mm256_castsi256_si128((__m256i)(v)));         \
    _mm_storeu_si128((__m128i *)(void *)((p)[2 * (k) + 1] + (off)), \
                     _mm256_extracti128_si256((__m256i)(v), 1));    \
  } while (0)

#define LANES_TARGET __attribute__((target("avx512f,avx512vl")))
#define LANES_GROUP  2
#define W            v8u
#define W_LOAD       Y_LOAD
#define W_STORE      Y_STORE
#define W_LANES_1(x) ((v8u)_mm256_shuffle_epi32((__m256i)(x), 0x39))
#define W_LANES_2(x) ((v8u)_mm256_shuffle_epi32((__m256i)(x), 0x4E))
#define W_LANES_3(x) ((v8u)_mm256_shuffle_epi32((__m256i)(x), 0x93))

#define LANES_FN   mix_avx512_x2
#define LANES_SETS 1
#include "kdf/scrypt/lanes_body.h"
#undef LANES_FN
#undef LANES_SETS

#define LANES_FN   mix_avx512_x4
#define LANES_SETS 2
#include "kdf/scrypt/lanes_body.h"
#undef LANES_FN
#undef LANES_SETS
#undef LANES_GROUP
#undef W
#undef W_LOAD
#undef W_STORE
#undef W_LANES_1
#undef W_LANES_2
#undef W_LANES_3

/* Four lanes per zmm: lane 4k + g in quarter g. */
#define Z_Q(p, k, g, off) \
  _mm_loadu_si128((const __m128i *)(const void *)((p)[4 * (k) + (g)] + (off)))
#define Z_LOAD(p, k, off)                                                                      \
  ((v16u)_mm512_inserti32x4(                                                                   \
      _mm512_inserti32x4(                                                                      \
          _mm512_inserti32x4(_mm512_castsi128_si512(Z_Q(p, k, 0, off)), Z_Q(p, k, 1, off), 1), \
          Z_Q(p, k, 2, off), 2),                                                               \
      Z_Q(p, k, 3, off), 3))
#define Z_STORE(p, k, off, v)                                       \
  do {                                                              \
    _mm_storeu_si128((__m128i *)(void *)((p)[4 * (k)] + (off)),     \
                     _mm512_castsi512_si128((__m512i)(v)));         \
    _mm_storeu_si128((__m128i *)(void *)((p)[4 * (k) + 1] + (off)), \
                     _mm512_extracti32x4_epi32((__m512i)(v), 1));   \
    _mm_storeu_si128((__m128i *)(void *)((p)[4 * (k) + 2] + (off)), \
                     _mm512_extracti32x4_epi32((__m512i)(v), 2));   \
    _mm_storeu_si128((__m128i *)(void *)((p)[4 * (k) + 3] + (off)), \
                     _mm512_extracti32x4_epi32((__m512i)(v), 3));   \
  } while (0)

#define LANES_FN     mix_avx512_z4
#define LANES_TARGET __attribute__((target("avx512f,avx512vl")))
#define LANES_SETS   1
#define LANES_GROUP  4
#define W            v16u
#define W_LOAD       Z_LOAD
#define W_STORE      Z_STORE
#define W_LANES_1(x) ((v16u)_mm512_shuffle_epi32((__m512i)(x), (_MM_PERM_ENUM)0x39))
#define W_LANES_2(x) ((v16u)_mm512_shuffle_epi32((__m512i)(x), (_MM_PERM_ENUM)0x4E))
#define W_LANES_3(x) ((v16u)_mm512_shuffle_epi32((__m512i)(x), (_MM_PERM_ENUM)0x93))
#include "kdf/scrypt/lanes_body.h"

/* For the benchmark: one set of two lanes (as long a chain as one lane),
 * and four lanes per zmm (as fast as two sets of ymm here, where 512-bit
 * operations take two 256-bit halves). */
const scrypt_lane_kernel kdf_scrypt_avx512_x2 = { mix_avx512_x2, 2 };
const scrypt_lane_kernel kdf_scrypt_avx512_z4 = { mix_avx512_z4, 4 };

const scrypt_impl kdf_scrypt_blockmix_avx512 = {
  kdf_scrypt_mix_permuted_c, scrypt_load_permuted, scrypt_store_permuted, { mix_avx512_x4, 4 }
};

#else

/* ISO C wants at least one declaration per file. */
typedef int kdf_scrypt_blockmix_avx512_unused;

#endif /* SCRYPT_HAVE_X86 */
