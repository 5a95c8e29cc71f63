/* Argon2 (RFC 9106), our own core on our own BLAKE2b (RFC 7693).
 *
 * Units: m_cost in KiB (1 KiB = one 1024-byte Argon2 block), t_cost in
 * passes, lanes = parallelism. Limits follow RFC 9106 section 3.1:
 *   1 <= lanes <= 2^24-1, m_cost >= 8*lanes, 1 <= t_cost, 4 <= outlen,
 *   saltlen >= 8 (RFC recommends 16), all lengths < 2^32.
 * version is 0x13 (current) or 0x10 (legacy: blocks are overwritten, not
 * XORed, on passes after the first).
 *
 * The caller owns the working memory: it passes a 64-byte aligned buffer of
 * at least kdf_argon2_memory_size() bytes (the pool keeps one per worker and
 * reuses it, because faulting fresh pages costs more than hashing them).
 * kdf_argon2_run() wipes the part of the buffer it used before returning, since
 * its contents derive from the password. */
#ifndef KDF_ARGON2_ARGON2_H
#define KDF_ARGON2_ARGON2_H

#include <stddef.h>
#include <stdint.h>

typedef enum { KDF_ARGON2D = 0, KDF_ARGON2I = 1, KDF_ARGON2ID = 2 } kdf_argon2_type;

#define KDF_ARGON2_VERSION_10 0x10
#define KDF_ARGON2_VERSION_13 0x13
#define KDF_ARGON2_BLOCK_SIZE 1024
#define KDF_ARGON2_MIN_SALT   8
#define KDF_ARGON2_MIN_OUT    4
#define KDF_ARGON2_MAX_LANES  0xFFFFFF

typedef struct {
  kdf_argon2_type type;
  uint32_t version;
  const uint8_t *pwd;
  size_t pwdlen;
  const uint8_t *salt;
  size_t saltlen;
  const uint8_t *secret;
  size_t secretlen; /* may be NULL/0 */
  const uint8_t *ad;
  size_t adlen; /* may be NULL/0 */
  uint32_t t_cost;
  uint32_t m_cost; /* KiB */
  uint32_t lanes;
  uint8_t *out;
  size_t outlen;
} kdf_argon2_params;

/* The KDF contract (see kdf/kdf.h). prepare: 0 if the parameters are within
 * RFC 9106's limits (STATUS_EINVAL otherwise) and the scratch bytes run()
 * needs in *memory. run: below. */
int kdf_argon2_prepare(const kdf_argon2_params *p, size_t *memory);

/* prepare()'s two halves, for tests and the stored-hash code. */
int kdf_argon2_check(const kdf_argon2_params *p);

/* Bytes of working memory the job needs: 1024 * m' where
 * m' = 4 * lanes * floor(m_cost / (4 * lanes)). */
size_t kdf_argon2_memory_size(const kdf_argon2_params *p);

/* Derives p->outlen bytes into p->out. `memory` is the caller's buffer (see
 * above). `stop` may be NULL; when non-NULL and it becomes non-zero, the
 * function gives up between segments and returns STATUS_ESTOPPED (used when the
 * process exits with jobs running). Returns 0 or a negative STATUS_E* code; on
 * failure p->out is zeroed. */
int kdf_argon2_run(const kdf_argon2_params *p, void *memory, size_t memory_size,
                   const volatile int *stop);

/* The block-fill variant chosen at run time for this CPU ("avx512", "avx2",
 * "ssse3", "neon" or "portable"), and the switch that forces one ("auto" or NULL:
 * the best again; 0, or -1 if unknown or unsupported). Through kdf/cpu.h. */
const char *kdf_argon2_variant(void);

/* After a successful prepare: the job's predicted run time on this CPU's
 * variant under load (see kdf_cpu_unit_ns in kdf/cpu.h). */
uint64_t kdf_argon2_cost_ns(const kdf_argon2_params *p);
int kdf_argon2_force_variant(const char *name);

#endif
