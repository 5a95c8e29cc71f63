/* scrypt (RFC 7914), byte-identical to node:crypto's scrypt.
 *
 * Limits and units: N, r, p and maxmem (bytes) are accepted exactly when
 * OpenSSL's EVP_PBE_scrypt accepts them, which is what node:crypto checks:
 * N a power of two >= 2 and < 2^(16 r), p * r < 2^30, 128 r p <= INT_MAX,
 * and 128 r (N + p + 2) <= maxmem. Key length 0..2^31-1 bytes (the JS layer
 * enforces node's range); password and salt up to INT_MAX bytes (the limit
 * of PKCS5_PBKDF2_HMAC).
 *
 * Working memory, in bytes, all from the caller's 64-byte aligned buffer
 * (the pool worker's arena, reused between jobs, because faulting in fresh
 * pages costs more than hashing them; EVP_PBE_scrypt would malloc its own):
 *   B  128 r p    the PBKDF2 output, p blocks of 128 r bytes
 *   V  128 r N    ROMix's table
 *   X  128 r      ROMix's current block
 *   Y  128 r      BlockMix's output, swapped with X every step
 * 128 r (N + p + 2) in all: exactly the sum OpenSSL compares with maxmem.
 *
 * PBKDF2-HMAC-SHA256 with one iteration (for B and for the key) is two
 * OpenSSL calls per job; Salsa20/8, BlockMix and ROMix are ours:
 *   - x86-64 (blockmix_sse2.c): 128-bit vectors (SSE2 is in the ABI), 16 words
 *     of every 64-byte block stored permuted, so that each vector is one
 *     diagonal of the Salsa matrix and a round is 4 vector steps plus 3
 *     shuffles. Salsa20/8 is one chain of dependent steps, so wider vectors
 *     do not help: an AVX-512VL build (one vprold per rotate) measured the
 *     same as SSE2 here, and was dropped.
 *   - elsewhere, or forced "portable" through kdf/cpu.h
 *     (blockmix_portable.c): plain C, natural layout.
 * XOR and the copy into V are folded into BlockMix: ROMix's first loop
 * writes each BlockMix output straight into the next V slot, the second
 * XORs V[j] in while it reads X. */
#include "kdf/scrypt/scrypt.h"

#include "common/status.h"
#include "common/stop.h"
#include "common/wipe.h"
#include "kdf/cpu.h"
#include "kdf/openssl.h"
#include "kdf/scrypt/internal.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

/* Poll the stop flag about every this many Salsa20/8 calls: ~0.1 ms apart. */
#define SALSA_CALLS_PER_POLL 2048

/* ---- sizes --------------------------------------------------------------- */

/* 128 r (N + p + 2) bytes, or 0 when it does not fit in size_t. */
static size_t memory_needed(uint64_t N, uint64_t r, uint64_t p) {
  uint64_t blocks = N + p + 2;
  if (r == 0 || N > UINT64_MAX - p - 2 || blocks > UINT64_MAX / 128 / r) return 0;
  uint64_t bytes = 128 * r * blocks;
  if (bytes > SIZE_MAX) return 0;
  return (size_t)bytes;
}

/* ---- implementation choice ---------------------------------------------- */

/* Same order as `variants`; kdf_cpu_has() is false for the NULL one. */
static const scrypt_impl *const impls[] = {
  &kdf_scrypt_blockmix_portable,
#ifdef SCRYPT_HAVE_X86
  &kdf_scrypt_blockmix_sse2,
#else
  NULL,
#endif
};

static const kdf_cpu_variant variants[] = {
  { "portable", KDF_CPU_NONE },
  { "sse2", KDF_CPU_SSE2 },
};

static kdf_cpu_selector selector = { variants, (int)(sizeof variants / sizeof variants[0]), -1 };

int kdf_scrypt_force_variant(const char *name) { return kdf_cpu_force(&selector, name); }

const char *kdf_scrypt_variant(void) { return variants[kdf_cpu_select(&selector)].name; }

static const scrypt_impl *impl_get(void) { return impls[kdf_cpu_select(&selector)]; }

/* ---- ROMix ----------------------------------------------------------------- */

/* B_i = ROMix(B_i) (RFC 7914 section 5) for one 128 r byte block `b`, with
 * V (N blocks), X and Y as working memory in the implementation's layout.
 * Raises *v_used to the number of V blocks written, so that the caller
 * wipes only those: wiping pages never touched would fault them all in.
 * Returns 0 or STATUS_ESTOPPED. */
static int romix(const scrypt_impl *im, uint8_t *b, uint32_t *v, uint32_t *x, uint32_t *y, size_t r,
                 uint64_t N, const volatile int *stop, uint64_t *v_used) {
  const size_t words = 32 * r;
  const size_t line_words = 64 / sizeof(uint32_t);
  const uint64_t mask = N - 1;
  const uint64_t poll = SALSA_CALLS_PER_POLL / (2 * r) + 1;
  uint64_t until_poll = poll;

  /* V[0] = B_i; V[k + 1] = BlockMix(V[k]); X = BlockMix(V[N - 1]). */
  im->load(v, b, 2 * r);
  uint32_t *cur = v;
  for (uint64_t k = 0; k + 1 < N; k++, cur += words) {
    if (--until_poll == 0) {
      if (stop_requested(stop)) {
        if (*v_used < k + 1) *v_used = k + 1;
        return STATUS_ESTOPPED;
      }
      until_poll = poll;
    }
    im->mix(cur, NULL, cur + words, r);
  }
  *v_used = N;
  uint64_t j = im->mix(cur, NULL, x, r);

  /* X = BlockMix(X ^ V[Integerify(X) mod N]), N times; N is even, so the
   * result ends in x. */
  uint32_t *in = x, *out = y, *t;
  for (uint64_t k = 0; k < N; k++) {
    if (--until_poll == 0) {
      if (stop_requested(stop)) return STATUS_ESTOPPED;
      until_poll = poll;
    }
    const uint32_t *vj = v + (size_t)(j & mask) * words;
    /* The index is known only now; ask for the whole block at once rather
     * than one cache miss after another as BlockMix walks it. */
    for (size_t w = 0; w < words; w += line_words) __builtin_prefetch(vj + w, 0, 3);
    j = im->mix(in, vj, out, r);
    t = in;
    in = out;
    out = t;
  }
  im->store(b, in, 2 * r);
  return 0;
}

/* Overwrites the stack area where BlockMix kept its Salsa state (spilled
 * registers, the plain-C path's x[16]): the frames of the functions romix()
 * called sat at this depth. noinline so that this frame is where they were. */
__attribute__((noinline)) static void wipe_stack(void) {
  unsigned char area[2048];
  secure_wipe(area, sizeof area);
  __asm__ __volatile__("" : : "r"(area) : "memory");
}

/* ---- entry points ---------------------------------------------------------- */

int kdf_scrypt_prepare(const kdf_scrypt_params *sp, size_t *memory_out) {
  const uint64_t N = sp->N, rr = sp->r, p = sp->p;
  *memory_out = 0;
  /* Exactly node's check: a dry run without password, salt or output. Node
   * reports OpenSSL's queued error, when there is one, in its message. */
  ERR_clear_error();
  if (EVP_PBE_scrypt(NULL, 0, NULL, 0, N, rr, p, sp->maxmem, NULL, 0) != 1) {
    kdf_openssl_error(sp->error, sp->error_len, "");
    return STATUS_EINVAL;
  }
  /* OpenSSL accepts only what fits in maxmem (itself capped to SIZE_MAX),
   * so these can fail only if node's checks change. */
  const size_t memory = memory_needed(N, rr, p);
  if (memory == 0 || 128 * rr * p > INT_MAX) {
    kdf_openssl_error(sp->error, sp->error_len,
                      "scrypt parameters need more memory than this platform can address");
    return STATUS_EINVAL;
  }
  if (sp->pwdlen > INT_MAX || sp->saltlen > INT_MAX || sp->outlen > INT_MAX) {
    kdf_openssl_error(sp->error, sp->error_len,
                      "scrypt password, salt and key are limited to 2147483647 bytes");
    return STATUS_EINVAL;
  }
  *memory_out = memory;
  return 0;
}

int kdf_scrypt_run(const kdf_scrypt_params *sp, void *memory, size_t memory_size,
                   const volatile int *stop) {
  static const unsigned char empty[1] = { 0 };
  const uint64_t N = sp->N, rr = sp->r, p = sp->p;
  const size_t need = memory_needed(N, rr, p);
  int rc = 0;

  /* prepare() accepted these; refuse anything else rather than trust it. */
  if (need == 0 || memory == NULL || memory_size < need || N < 2 || (N & (N - 1)) != 0 || p == 0 ||
      128 * rr * p > INT_MAX || sp->pwdlen > INT_MAX || sp->saltlen > INT_MAX ||
      sp->outlen > INT_MAX) {
    if (sp->out != NULL) memset(sp->out, 0, sp->outlen);
    return STATUS_EINVAL;
  }
  /* Node asks OpenSSL for zero bytes and gets an empty key. */
  if (sp->outlen == 0) return 0;

  const size_t r_ = (size_t)rr, block = 128 * r_, blen = block * (size_t)p;
  uint8_t *b = memory;
  uint32_t *v = (uint32_t *)(void *)(b + blen);
  uint32_t *x = v + (size_t)N * (block / sizeof(uint32_t));
  uint32_t *y = x + block / sizeof(uint32_t);
  const char *pw = sp->pwdlen != 0 ? (const char *)sp->pwd : (const char *)empty;
  const unsigned char *salt = sp->saltlen != 0 ? sp->salt : empty;
  const scrypt_impl *im = impl_get();
  uint64_t v_used = 0;

  /* B = PBKDF2-HMAC-SHA256(P, S, 1, p * 128 * r) */
  if (PKCS5_PBKDF2_HMAC(pw, (int)sp->pwdlen, salt, (int)sp->saltlen, 1, EVP_sha256(), (int)blen,
                        b) != 1) {
    kdf_openssl_error(sp->error, sp->error_len, "PBKDF2 failed");
    rc = STATUS_ECRYPTO;
  }
  for (uint64_t i = 0; rc == 0 && i < p; i++) {
    if (stop_requested(stop)) {
      rc = STATUS_ESTOPPED;
      break;
    }
    rc = romix(im, b + (size_t)i * block, v, x, y, r_, N, stop, &v_used);
  }
  /* DK = PBKDF2-HMAC-SHA256(P, B, 1, dkLen) */
  if (rc == 0 && PKCS5_PBKDF2_HMAC(pw, (int)sp->pwdlen, b, (int)blen, 1, EVP_sha256(),
                                   (int)sp->outlen, sp->out) != 1) {
    kdf_openssl_error(sp->error, sp->error_len, "PBKDF2 failed");
    rc = STATUS_ECRYPTO;
  }
  secure_wipe(b, blen);
  secure_wipe(v, (size_t)v_used * block);
  secure_wipe(x, 2 * block);
  wipe_stack();
  if (rc != 0) memset(sp->out, 0, sp->outlen);
  return rc;
}
