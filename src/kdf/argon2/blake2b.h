/* BLAKE2b (RFC 7693): any digest length 1..64, optional key 0..64 bytes.
 * Plain portable C; Argon2 uses it for H0, H' and nothing hot. */
#ifndef KDF_BLAKE2B_H
#define KDF_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

#define KDF_BLAKE2B_OUTBYTES 64
#define KDF_BLAKE2B_KEYBYTES 64
#define KDF_BLAKE2B_BLOCKBYTES 128

typedef struct {
  uint64_t h[8];
  uint64_t t[2];           /* bytes hashed so far, 128-bit little endian */
  uint8_t buf[KDF_BLAKE2B_BLOCKBYTES];
  size_t buflen;           /* bytes waiting in buf, 0..128 */
  size_t outlen;
} kdf_blake2b_state;

/* 0 on success, STATUS_EINVAL if outlen is not 1..64 or keylen > 64 (or key is
 * NULL with keylen > 0). */
int kdf_blake2b_init(kdf_blake2b_state *s, size_t outlen, const void *key,
                     size_t keylen);
void kdf_blake2b_update(kdf_blake2b_state *s, const void *in, size_t inlen);
/* Writes s->outlen bytes and wipes the state. */
void kdf_blake2b_final(kdf_blake2b_state *s, uint8_t *out);
/* One-shot; same return codes as kdf_blake2b_init. */
int kdf_blake2b(uint8_t *out, size_t outlen, const void *in, size_t inlen,
                const void *key, size_t keylen);

#endif
