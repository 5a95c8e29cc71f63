/* scrypt's lane kernel on 256-bit vectors: each ymm holds the same diagonal
 * of two lanes, one per 128-bit half, where vpshufd turns both halves
 * alike, so two lanes cost the instructions of one; two such sets run
 * interleaved, four lanes in all. Compiled with a
 * function-level target and picked only when the CPU has AVX2. */
#include "kdf/scrypt/internal.h"

#ifdef SCRYPT_HAVE_X86

#include <immintrin.h>

typedef uint32_t v8u __attribute__((vector_size(32), __may_alias__));

/* Lanes p[2k] and p[2k + 1], words off..off+3 of each. */
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

#define LANES_TARGET __attribute__((target("avx2")))
#define LANES_GROUP  2
#define W            v8u
#define W_LOAD       Y_LOAD
#define W_STORE      Y_STORE
#define W_LANES_1(x) ((v8u)_mm256_shuffle_epi32((__m256i)(x), 0x39))
#define W_LANES_2(x) ((v8u)_mm256_shuffle_epi32((__m256i)(x), 0x4E))
#define W_LANES_3(x) ((v8u)_mm256_shuffle_epi32((__m256i)(x), 0x93))

#define LANES_FN   mix_avx2_x2
#define LANES_SETS 1
#include "kdf/scrypt/lanes_body.h"
#undef LANES_FN
#undef LANES_SETS

#define LANES_FN   mix_avx2_x4
#define LANES_SETS 2
#include "kdf/scrypt/lanes_body.h"

/* Two lanes in one set leave the core as idle as one lane does (the
 * chain is as long); two sets of two lanes fill it (scrypt.c, top). */
const scrypt_lane_kernel kdf_scrypt_avx2_x2 = { mix_avx2_x2, 2 };

const scrypt_impl kdf_scrypt_blockmix_avx2 = {
  kdf_scrypt_mix_permuted_c, scrypt_load_permuted, scrypt_store_permuted, { mix_avx2_x4, 4 }
};

#else

/* ISO C wants at least one declaration per file. */
typedef int kdf_scrypt_blockmix_avx2_unused;

#endif /* SCRYPT_HAVE_X86 */
