/* The SHA family (FIPS 180-4) as our own code: SHA-1, SHA-224, SHA-256,
 * SHA-384, SHA-512, SHA-512/224 and SHA-512/256, with no OpenSSL, so the
 * addon loads in hosts that export none (Bun, Deno).
 *
 * Two levels:
 *   - raw compression on a state kept in native words (kdf_sha_state), for
 *     PBKDF2's hot loop: two compressions per iteration and no conversion
 *     of the chaining state through bytes;
 *   - a streaming context (init / update / final) for HMAC key preparation
 *     and the first PBKDF2 iteration.
 *
 * Three compression functions serve all seven algorithms (SHA-1; SHA-256
 * for SHA-224; SHA-512 for the other four), each in variants chosen once
 * per process at run time: portable C everywhere; SHA-NI (SHA-1/256) and
 * BMI2, AVX2 or AVX-512VL (SHA-512) on x86-64; the ARMv8 crypto extensions
 * (SHA-1/256, and SHA-512 where the CPU has it) on arm64. Every variant
 * takes the same native state, so a state can move between variants (tests
 * rely on it).
 *
 * PBKDF2-HMAC's loop, per output block (blk = U, then SHA padding for a
 * message of one block plus one digest, laid out once):
 *
 *   kdf_sha_compress_fn f = kdf_sha_compressor(d);   // once per job
 *   for (it = 1; it < iterations; it++) {
 *     w = istate; f(&w, blk, 1); kdf_sha_store(d, &w, blk);
 *     w = ostate; f(&w, blk, 1); kdf_sha_store(d, &w, blk);
 *     for (i = 0; i < 8; i++) t.w64[i] ^= w.w64[i];  // XOR in native words
 *   }
 *   kdf_sha_store(d, &t, out);
 *
 * istate/ostate come from kdf_sha_init + kdf_sha_update(pad) on the
 * contexts (c.state after one block). Contexts and states are plain values:
 * copy them by assignment (HMAC restarts from the keyed context that way).
 *
 * Independent chains interleave to hide the latency of the SHA
 * instructions: compress_x2 compresses two states one block each, and the
 * lane kernels (kdf_sha_lanes) run whole PBKDF2 iterations on several
 * chains at once, with U and T kept in registers — the blocks T_1, T_2, ...
 * of one key, or keys of several jobs with the same digest. */
#ifndef KDF_SHA_H
#define KDF_SHA_H

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

/* NULL for an out-of-range alg. */
const kdf_sha_desc *kdf_sha_get(kdf_sha_alg alg);
/* By name, OpenSSL's spellings ("sha1", "sha512-224", also "SHA512/224");
 * NULL if unknown. */
const kdf_sha_desc *kdf_sha_by_name(const char *name);

/* ---- run-time variants ---------------------------------------------------- */

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

typedef struct {
  /* "portable"; x86-64: "bmi2", "avx2", "avx512" (SHA-512 only, for CPUs
   * without SHA-NI), "shani" (SHA-1/256 on SHA-NI, SHA-512 as "avx2"),
   * "shani-avx512" (SHA-512 as "avx512"); arm64: "armce" (SHA-1/256 on the
   * crypto extensions, SHA-512 portable), "armce-sha512" (SHA-512 too). */
  const char *name;
  kdf_sha_compress_fn compress[KDF_SHA_CORE_COUNT];
  kdf_sha_compress_x2_fn compress_x2[KDF_SHA_CORE_COUNT]; /* NULL where absent */
  kdf_sha_lanes_fn lanes[KDF_SHA_CORE_COUNT];             /* never NULL */
  uint8_t lane_count[KDF_SHA_CORE_COUNT];                 /* most lanes per call, >= 1 */
} kdf_sha_variant;

/* The variant in use: the best for this CPU, picked once (thread-safe),
 * unless kdf_sha_force chose another. Never NULL. */
const kdf_sha_variant *kdf_sha_select(void);

/* Forces a variant by name; NULL or "auto" returns to the best. Returns 0, or
 * -1 (choice unchanged) if the name is unknown or the CPU lacks it. For tests
 * and benches: pick before hashing, jobs in flight keep what they loaded. */
int kdf_sha_force(const char *name);

/* The variants this build has, best last, whether or not the CPU supports
 * them; kdf_sha_supported says which can run. */
const kdf_sha_variant *const *kdf_sha_variants(size_t *count);
int kdf_sha_supported(const kdf_sha_variant *v);

/* The selected compression function for an algorithm. Callers in a loop
 * fetch it once. */
kdf_sha_compress_fn kdf_sha_compressor(const kdf_sha_desc *d);

/* The selected lane kernel for an algorithm and how many lanes it takes
 * per call (the best interleave measured on SHA-NI; the vector width for
 * SHA-512 on AVX2/AVX-512; 1 where chains run one after another). */
kdf_sha_lanes_fn kdf_sha_lanes(const kdf_sha_desc *d, size_t *count);

/* The message block of an HMAC-over-a-digest compression in native words:
 * word i is (u[i] & keep[i]) | pad[i], u being the previous digest (a
 * state); SHA padding for one block plus one digest. For 32-bit cores
 * only the low halves count. Lane kernels build their blocks from it. */
void kdf_sha_lane_template(const kdf_sha_desc *d, uint64_t keep[16], uint64_t pad[16]);

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

/* Reads state_words big-endian words (a full-length digest) into st. */
void kdf_sha_load(const kdf_sha_desc *d, const uint8_t *in, kdf_sha_state *st);

/* ---- streaming ------------------------------------------------------------ */

typedef struct {
  const kdf_sha_desc *desc;
  kdf_sha_compress_fn compress;
  kdf_sha_state state;
  uint64_t bytes; /* message length so far (below 2^61: the bit count fits) */
  size_t fill;    /* bytes waiting in buf */
  uint8_t buf[KDF_SHA_MAX_BLOCK];
} kdf_sha_ctx;

void kdf_sha_init(kdf_sha_ctx *c, const kdf_sha_desc *d);
void kdf_sha_update(kdf_sha_ctx *c, const void *data, size_t len);
/* Writes digest_size bytes and wipes the context. */
void kdf_sha_final(kdf_sha_ctx *c, uint8_t *out);
/* Pads and compresses the tail, leaving the result in c->state (native
 * words) instead of bytes; the context is done afterwards. */
void kdf_sha_finish(kdf_sha_ctx *c);
/* One call: digest of data into out (digest_size bytes). */
void kdf_sha_digest(const kdf_sha_desc *d, const void *data, size_t len, uint8_t *out);

/* Zeroes memory the compiler may not elide. */
void kdf_sha_wipe(void *p, size_t n);

/* ---- variant entry points (sha.c builds the variant tables from these) ---- */

void kdf_sha1_compress_portable(kdf_sha_state *st, const uint8_t *blocks, size_t n);
/* Lane kernels on the variant's compress (one chain after another) and on
 * its compress_x2 (pairs); any core. */
void kdf_sha_lanes_serial(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n);
void kdf_sha_lanes_pairs(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n);
/* The same on given compressions (sha_portable.c): what the two above run,
 * and what a vector lane kernel falls back to for few lanes. f2 may be
 * NULL (then all run on f). */
void kdf_sha_lanes_on(const kdf_sha_desc *d, kdf_sha_compress_fn f, kdf_sha_lane *const *lanes,
                      size_t k, uint64_t n);
void kdf_sha_lanes_pairs_on(const kdf_sha_desc *d, kdf_sha_compress_fn f, kdf_sha_compress_x2_fn f2,
                            kdf_sha_lane *const *lanes, size_t k, uint64_t n);
void kdf_sha256_compress_portable(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_portable(kdf_sha_state *st, const uint8_t *blocks, size_t n);

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

#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define KDF_SHA_HAVE_ARM 1
void kdf_sha1_compress_armce(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha256_compress_armce(kdf_sha_state *st, const uint8_t *blocks, size_t n);
void kdf_sha512_compress_armce(kdf_sha_state *st, const uint8_t *blocks, size_t n);
#endif

#endif
