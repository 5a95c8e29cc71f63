/* What every file of the SHA layer shares below the variant choice: the
 * descriptor, the native state and a PBKDF2 lane, the function types a
 * variant fills in, a state stored as bytes, and the helpers that both
 * the picker (sha.c) and the kernels (sha_portable.c, sha_x86.c,
 * sha_arm.c) run, defined in sha_core.c. The kernels include this and
 * their own header, never sha.h: the folder depends one way, sha.c -> the
 * kernels -> sha_core.c (scripts/check-layers.js keeps it so). */
#ifndef KDF_SHA_CORE_H
#define KDF_SHA_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum {
  KDF_SHA1,
  KDF_SHA224,
  KDF_SHA256,
  KDF_SHA384,
  KDF_SHA512,
  KDF_SHA512_224,
  KDF_SHA512_256,
  KDF_SHA_ALG_COUNT
} kdf_sha_alg;

/* Which compression function an algorithm runs on. */
typedef enum { KDF_SHA_CORE1, KDF_SHA_CORE256, KDF_SHA_CORE512, KDF_SHA_CORE_COUNT } kdf_sha_core;

#define KDF_SHA_MAX_BLOCK  128
#define KDF_SHA_MAX_DIGEST 64

/* Chaining state in native words: h[0..4] of w32 for SHA-1, h[0..7] of w32
 * for SHA-224/256, h[0..7] of w64 for the SHA-512 family. */
typedef union {
  uint32_t w32[8];
  uint64_t w64[8];
} kdf_sha_state;

/* Compresses n whole blocks (block_size bytes each, any alignment). */
typedef void (*kdf_sha_compress_fn)(kdf_sha_state *st, const uint8_t *blocks, size_t n);

/* Two independent chains, one block each, interleaved; a and b must differ. */
typedef void (*kdf_sha_compress_x2_fn)(kdf_sha_state *a, const uint8_t *block_a, kdf_sha_state *b,
                                       const uint8_t *block_b);

typedef struct {
  kdf_sha_alg alg;
  const char *name; /* "sha256", "sha512-256", ... (OpenSSL's spelling) */
  kdf_sha_core core;
  uint8_t block_size;  /* 64 or 128 bytes */
  uint8_t digest_size; /* bytes written by final / store */
  uint8_t state_words; /* words of the state compressed: 5 or 8 */
  uint8_t word_size;   /* 4 or 8 bytes */
  kdf_sha_state iv;
} kdf_sha_desc;

/* One PBKDF2-HMAC chain (the computation of one output block T_i): its
 * keyed HMAC states, the last U and the XOR of every U so far, all in native
 * words. Only the first digest_size bytes of u and t mean anything. */
typedef struct {
  kdf_sha_state istate, ostate;
  kdf_sha_state u, t;
} kdf_sha_lane;

/* n more iterations on each of k distinct lanes (1 <= k <= the count
 * kdf_sha_lanes gave): u = HMAC(key, u), t ^= u. */
typedef void (*kdf_sha_lanes_fn)(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k,
                                 uint64_t n);

/* Writes the first digest_size bytes of the state, big-endian. Inline:
 * PBKDF2 calls it twice per iteration, and a truncated digest (SHA-224,
 * SHA-384, SHA-512/224) must not touch the padding that follows it. */
static inline void kdf_sha_store(const kdf_sha_desc *d, const kdf_sha_state *st, uint8_t *out) {
  size_t n = d->digest_size, i = 0;
  if (d->word_size == 8) {
    for (; i + 8 <= n && i < 64; i += 8) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      uint64_t v = __builtin_bswap64(st->w64[i / 8]);
      memcpy(out + i, &v, 8);
#else
      for (int b = 0; b < 8; b++) out[i + (size_t)b] = (uint8_t)(st->w64[i / 8] >> (56 - 8 * b));
#endif
    }
    for (; i < n; i++) out[i] = (uint8_t)(st->w64[i / 8] >> (56 - 8 * (i % 8)));
  } else {
    for (; i < n && i < 32; i += 4) { /* the bound tells GCC what n can be */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      uint32_t v = __builtin_bswap32(st->w32[i / 4]);
      memcpy(out + i, &v, 4);
#else
      for (int b = 0; b < 4; b++) out[i + (size_t)b] = (uint8_t)(st->w32[i / 4] >> (24 - 8 * b));
#endif
    }
  }
}

/* ---- helpers (sha_core.c) ------------------------------------------------- */

/* Zeroes memory the compiler may not elide. */
void kdf_sha_wipe(void *p, size_t n);

/* The message block of an HMAC-over-a-digest compression in native words:
 * word i is (u[i] & keep[i]) | pad[i], u being the previous digest (a
 * state); SHA padding for one block plus one digest. For 32-bit cores
 * only the low halves count. Lane kernels build their blocks from it. */
void kdf_sha_lane_template(const kdf_sha_desc *d, uint64_t keep[16], uint64_t pad[16]);

/* Whole PBKDF2 iterations on given compressions: one chain after another
 * on f, or pairs on f2 (NULL: all on f). The picker's serial and pair
 * lane kernels run them on the chosen variant's compressions, and a
 * vector lane kernel falls back to them for few lanes. */
void kdf_sha_lanes_on(const kdf_sha_desc *d, kdf_sha_compress_fn f, kdf_sha_lane *const *lanes,
                      size_t k, uint64_t n);
void kdf_sha_lanes_pairs_on(const kdf_sha_desc *d, kdf_sha_compress_fn f, kdf_sha_compress_x2_fn f2,
                            kdf_sha_lane *const *lanes, size_t k, uint64_t n);

#endif
