/* scrypt (RFC 7914), byte-identical to node:crypto's scrypt. Limits, units
 * and the memory layout are described at the top of scrypt.c. */
#ifndef KDF_SCRYPT_SCRYPT_H
#define KDF_SCRYPT_SCRYPT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *pwd;
  size_t pwdlen;
  const uint8_t *salt;
  size_t saltlen;
  uint64_t N, r, p;
  uint64_t maxmem; /* bytes, checked as node:crypto checks it */
  uint8_t *out;
  size_t outlen;
  /* Out: node's detail (OpenSSL's text) when prepare fails. */
  char *error;
  size_t error_len;
} kdf_scrypt_params;

/* The KDF contract (see kdf/kdf.h). prepare: checks N, r, p and maxmem
 * exactly as node:crypto does (its OpenSSL dry run, ported, with OpenSSL's
 * error text in `error`) and gives the scratch bytes run() needs;
 * STATUS_EINVAL with `error` set otherwise. run: derives into `out` using
 * the caller's 64-byte aligned scratch (wiped before it returns); 0,
 * STATUS_EINVAL or STATUS_ESTOPPED, with `out` zeroed on failure. */
int kdf_scrypt_prepare(const kdf_scrypt_params *p, size_t *memory);
int kdf_scrypt_run(const kdf_scrypt_params *p, void *scratch, size_t scratch_size,
                   const volatile int *stop);

/* Computations kdf_scrypt_lanes() takes at once. */
#define KDF_SCRYPT_MAX_LANES 4

/* n (1..KDF_SCRYPT_MAX_LANES) independent computations on the calling
 * thread, each byte for byte what kdf_scrypt_run() gives for it. Lanes
 * with the N, r and p of the first valid lane run their ROMix interleaved
 * (kdf_scrypt_lane_width() at a time, each lane's p blocks in turn); any
 * other lane runs alone afterwards. scratch (64-byte aligned) holds each
 * lane's prepare() memory, one region after another in lane order. rc[k]
 * is lane k's status as kdf_scrypt_run() would return it (STATUS_ESTOPPED
 * for every lane still running when *stop became non-zero); a failed lane's
 * out is zeroed and every lane's memory wiped. Returns STATUS_ESTOPPED if
 * stopped, STATUS_EINVAL for a bad n, else 0. */
int kdf_scrypt_lanes(const kdf_scrypt_params *const lanes[], unsigned n, int rc[], void *scratch,
                     size_t scratch_size, const volatile int *stop);

/* How many lanes the chosen variant interleaves (1: none; lanes then run
 * one after another). */
unsigned kdf_scrypt_lane_width(void);

/* The BlockMix variant in use ("portable", "sse2", "avx2", "avx512" or
 * "neon"; the x86 ones differ in their lane kernel only) and the switch that
 * forces one ("auto" or NULL: the best again); through kdf/cpu.h. */
const char *kdf_scrypt_variant(void);

/* After a successful prepare: the job's predicted run time on this CPU's
 * variant under load (see kdf_cpu_unit_ns in kdf/cpu.h). */
uint64_t kdf_scrypt_cost_ns(const kdf_scrypt_params *p);
int kdf_scrypt_force_variant(const char *name);

#endif
