/* bcrypt (EksBlowfish, Provos & Mazieres 1999) as OpenBSD's bcrypt(3) and
 * npm `bcrypt` compute it.
 *
 * Input: the password bytes exactly as given (a JS string as UTF-8; a NUL
 * inside the password is an ordinary byte, as in npm `bcrypt` 6 and
 * bcryptjs), the 16 raw salt bytes, cost 4..31 (2^cost rounds) and the minor
 * version letter 'a', 'b' or 'y'. The key schedule uses the password plus
 * its terminating NUL, at most 72 bytes. Output: the 23 raw hash bytes that
 * the $2?$ string encodes (31 radix-64 characters). */
#ifndef KDF_BCRYPT_H
#define KDF_BCRYPT_H

#include <stddef.h>
#include <stdint.h>

#define KDF_BCRYPT_SALT_LEN  16
#define KDF_BCRYPT_HASH_LEN  23
#define KDF_BCRYPT_MIN_COST  4
#define KDF_BCRYPT_MAX_COST  31
#define KDF_BCRYPT_MAX_KEY   72
/* Computations kdf_bcrypt_lanes() runs interleaved on one thread. */
#define KDF_BCRYPT_MAX_LANES 4

typedef struct {
  const uint8_t *pwd;
  size_t pwdlen;
  const uint8_t *salt;
  size_t saltlen; /* must be KDF_BCRYPT_SALT_LEN */
  uint64_t cost;  /* KDF_BCRYPT_MIN_COST..KDF_BCRYPT_MAX_COST */
  uint64_t minor; /* 'a', 'b' or 'y' */
  uint8_t *out;
  size_t outlen; /* must be KDF_BCRYPT_HASH_LEN */
} kdf_bcrypt_params;

/* The KDF contract (see kdf/kdf.h). prepare: STATUS_EINVAL unless cost,
 * minor, salt and output lengths are as above; no scratch memory. run: as
 * kdf_bcrypt() below. */
int kdf_bcrypt_prepare(const kdf_bcrypt_params *p, size_t *memory);

/* After a successful prepare: the job's predicted run time under load,
 * lanes formed (bench/calibrate.js on x86-64: 16 us per key-schedule
 * round; one variant, plain C). */
uint64_t kdf_bcrypt_cost_ns(const kdf_bcrypt_params *p);
int kdf_bcrypt_run(const kdf_bcrypt_params *p, void *scratch, size_t scratch_size,
                   const volatile int *stop);

/* The core, on raw arguments. Returns 0 or a negative STATUS_E* code
 * (STATUS_EINVAL for a bad cost or minor, STATUS_ESTOPPED if *stop became
 * non-zero). On failure out is zeroed. */
int kdf_bcrypt(const uint8_t *pwd, size_t pwdlen, const uint8_t salt[KDF_BCRYPT_SALT_LEN],
               unsigned cost, char minor, uint8_t out[KDF_BCRYPT_HASH_LEN],
               const volatile int *stop);

/* n (1..KDF_BCRYPT_MAX_LANES) independent computations, interleaved on the
 * calling thread: each lane's Blowfish chain is latency-bound, so 4 lanes
 * take about the time of 1.1 (see bcrypt.c). Lanes may differ in every
 * parameter; a lane's result is byte for byte what kdf_bcrypt() gives for
 * it. rc[j] is lane j's status (0, STATUS_EINVAL for that lane's bad
 * arguments, STATUS_ESTOPPED for all lanes still running when *stop became
 * non-zero); a failed lane's out is zeroed. Returns STATUS_ESTOPPED if
 * stopped, STATUS_EINVAL for a bad n, else 0. Every lane's state is wiped. */
int kdf_bcrypt_lanes(const kdf_bcrypt_params *const lanes[], unsigned n, int rc[],
                     const volatile int *stop);

#endif
