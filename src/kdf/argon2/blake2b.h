/* BLAKE2b (RFC 7693): any digest length 1..64, optional key 0..64 bytes.
 * Plain portable C; Argon2 uses it for H0, H' and nothing hot. */
#ifndef KDF_BLAKE2B_H
#define KDF_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define KDF_BLAKE2B_OUTBYTES   64
#define KDF_BLAKE2B_KEYBYTES   64
#define KDF_BLAKE2B_BLOCKBYTES 128

typedef struct {
  uint64_t h[8];
  uint64_t t[2]; /* bytes hashed so far, 128-bit little endian */
  uint8_t buf[KDF_BLAKE2B_BLOCKBYTES];
  size_t buflen; /* bytes waiting in buf, 0..128 */
  size_t outlen;
} kdf_blake2b_state;

/* 0 on success, STATUS_EINVAL if outlen is not 1..64 or keylen > 64 (or key is
 * NULL with keylen > 0). */
int kdf_blake2b_init(kdf_blake2b_state *s, size_t outlen, const void *key, size_t keylen);
void kdf_blake2b_update(kdf_blake2b_state *s, const void *in, size_t inlen);
/* Writes s->outlen bytes and wipes the state. */
void kdf_blake2b_final(kdf_blake2b_state *s, uint8_t *out);
/* One-shot; same return codes as kdf_blake2b_init. */
int kdf_blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen, const void *key,
                size_t keylen);

/* BLAKE2b as a job (exposed so the JS tests can check our BLAKE2b), on the
 * KDF contract (see kdf/kdf.h): no scratch memory, no stop flag. */
typedef struct {
  const uint8_t *in;
  size_t inlen;
  const uint8_t *key;
  size_t keylen; /* 0..64 */
  uint8_t *out;
  size_t outlen; /* 1..64 */
} kdf_blake2b_params;

int kdf_blake2b_prepare(const kdf_blake2b_params *p, size_t *memory);
int kdf_blake2b_run(const kdf_blake2b_params *p, void *scratch, size_t scratch_size,
                    const volatile int *stop);

#endif
