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
 * of one key, or keys of several jobs with the same digest.
 *
 * This is the picker's header (sha.c). The types, kdf_sha_store and the
 * helpers every variant shares are sha_core.h's (sha_core.c); each
 * variant file has its own header (sha_portable.h, sha_x86.h, sha_arm.h)
 * and includes sha_core.h, never this one. */
#ifndef KDF_SHA_H
#define KDF_SHA_H

#include "sha_core.h"

#include <stddef.h>
#include <stdint.h>

/* NULL for an out-of-range alg. */
const kdf_sha_desc *kdf_sha_get(kdf_sha_alg alg);
/* By name, OpenSSL's spellings ("sha1", "sha512-224", also "SHA512/224");
 * NULL if unknown. */
const kdf_sha_desc *kdf_sha_by_name(const char *name);

/* ---- run-time variants ---------------------------------------------------- */

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

/* ---- lane kernels on the chosen variant ---------------------------------- */

/* Lane kernels on the variant's compress (one chain after another) and on
 * its compress_x2 (pairs); any core. The variant tables name them. */
void kdf_sha_lanes_serial(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n);
void kdf_sha_lanes_pairs(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n);

#endif
