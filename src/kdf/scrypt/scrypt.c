/* scrypt (RFC 7914), byte-identical to node:crypto's scrypt.
 *
 * Limits and units: N, r, p and maxmem (bytes) are accepted exactly when
 * OpenSSL's EVP_PBE_scrypt accepts them, which is what node:crypto checks:
 * N a power of two >= 2 and < 2^(16 r), p * r < 2^30, 128 r p <= INT_MAX,
 * and 128 r (N + p + 2) <= maxmem. Key length 0..2^31-1 bytes (the JS layer
 * enforces node's range); password and salt up to INT_MAX bytes (node's
 * limit, from PKCS5_PBKDF2_HMAC's int lengths).
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
 * Everything is ours, no OpenSSL: PBKDF2-HMAC-SHA256 with one iteration
 * (for B and for the key) runs on kdf/sha and polls the stop flag too (the
 * second step hashes all of B, up to 2 GiB, once per 32 key bytes: the
 * salt is absorbed once, and in chunks); Salsa20/8, BlockMix and ROMix:
 *   - x86-64 (blockmix_sse2.c): 128-bit vectors (SSE2 is in the ABI), 16 words
 *     of every 64-byte block stored permuted, so that each vector is one
 *     diagonal of the Salsa matrix and a round is 4 vector steps plus 3
 *     shuffles. Salsa20/8 is one chain of dependent steps, so wider vectors
 *     do not help: an AVX-512VL build (one vprold per rotate) measured the
 *     same as SSE2 here, and was dropped.
 *   - little-endian AArch64 (blockmix_neon.c): the same plan and layout on
 *     NEON (Advanced SIMD is in that ABI too).
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
#include "kdf/pbkdf2.h"
#include "kdf/scrypt/internal.h"
#include "kdf/sha/sha.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Same order as `variants`; kdf_cpu_has() is false for the NULL ones. */
static const scrypt_impl *const impls[] = {
  &kdf_scrypt_blockmix_portable,
#ifdef SCRYPT_HAVE_X86
  &kdf_scrypt_blockmix_sse2,
#else
  NULL,
#endif
#ifdef SCRYPT_HAVE_NEON
  &kdf_scrypt_blockmix_neon,
#else
  NULL,
#endif
};

static const kdf_cpu_variant variants[] = {
  { "portable", KDF_CPU_NONE },
  { "sse2", KDF_CPU_SSE2 },
  { "neon", KDF_CPU_NEON },
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

/* ---- parameter check ------------------------------------------------------ */

/* OpenSSL's text for EVP_R_MEMORY_LIMIT_EXCEEDED, as node reports it. */
#define MEMORY_LIMIT_EXCEEDED "error:030000AC:digital envelope routines::memory limit exceeded"
#define SCRYPT_PR_MAX         ((1u << 30) - 1)      /* p * r must stay below 2^30 */
#define SCRYPT_MAX_MEM        (1024u * 1024u * 32u) /* OpenSSL's default for maxmem 0 */

/* OpenSSL's scrypt_alg() checks (crypto/evp/pbe_scrypt.c, providers'
 * kdf_scrypt), in its order: 1 if it would accept N, r, p and maxmem. On
 * refusal *detail is the error OpenSSL queues, or NULL where it queues none
 * (N not a power of two >= 2, r or p zero: node then says just "Invalid
 * scrypt params"). r and p above 2^32-1 (OpenSSL's "parameter too large")
 * never get here: the JS layer takes them as uint32, as node does. */
static int params_accepted(uint64_t N, uint64_t r, uint64_t p, uint64_t maxmem,
                           const char **detail) {
  *detail = NULL;
  if (r == 0 || p == 0 || N < 2 || (N & (N - 1)) != 0 || r > UINT32_MAX || p > UINT32_MAX) return 0;
  *detail = MEMORY_LIMIT_EXCEEDED;
  if (p > SCRYPT_PR_MAX / r) return 0;
  if (16 * r <= 63 && N >= ((uint64_t)1 << (16 * r))) return 0;
  const uint64_t blen = p * 128 * r;
  if (blen > INT_MAX) return 0;
  if (N + 2 > (UINT64_MAX / 128) / r) return 0;
  const uint64_t vlen = 128 * r * (N + 2);
  if (blen > UINT64_MAX - vlen) return 0;
  if (maxmem == 0) maxmem = SCRYPT_MAX_MEM;
  if (maxmem > SIZE_MAX) maxmem = SIZE_MAX;
  if (blen + vlen > maxmem) return 0;
  *detail = NULL;
  return 1;
}

static void set_error(const kdf_scrypt_params *sp, const char *msg) {
  if (sp->error != NULL && sp->error_len != 0) snprintf(sp->error, sp->error_len, "%s", msg);
}

/* ---- entry points ---------------------------------------------------------- */

int kdf_scrypt_prepare(const kdf_scrypt_params *sp, size_t *memory_out) {
  const uint64_t N = sp->N, rr = sp->r, p = sp->p;
  *memory_out = 0;
  /* Exactly node's check (a dry run of EVP_PBE_scrypt), with OpenSSL's
   * queued error text that node puts in its message. */
  const char *detail = NULL;
  if (!params_accepted(N, rr, p, sp->maxmem, &detail)) {
    set_error(sp, detail != NULL ? detail : "");
    return STATUS_EINVAL;
  }
  /* OpenSSL accepts only what fits in maxmem (itself capped to SIZE_MAX),
   * so these can fail only if node's checks change. */
  const size_t memory = memory_needed(N, rr, p);
  if (memory == 0 || 128 * rr * p > INT_MAX) {
    set_error(sp, "scrypt parameters need more memory than this platform can address");
    return STATUS_EINVAL;
  }
  if (sp->pwdlen > INT_MAX || sp->saltlen > INT_MAX || sp->outlen > INT_MAX) {
    set_error(sp, "scrypt password, salt and key are limited to 2147483647 bytes");
    return STATUS_EINVAL;
  }
  *memory_out = memory;
  return 0;
}

int kdf_scrypt_run(const kdf_scrypt_params *sp, void *memory, size_t memory_size,
                   const volatile int *stop) {
  static const uint8_t empty[1] = { 0 };
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
  const uint8_t *pw = sp->pwdlen != 0 ? sp->pwd : empty;
  const uint8_t *salt = sp->saltlen != 0 ? sp->salt : empty;
  const kdf_sha_desc *sha256 = kdf_sha_get(KDF_SHA256);
  const scrypt_impl *im = impl_get();
  uint64_t v_used = 0;

  /* B = PBKDF2-HMAC-SHA256(P, S, 1, p * 128 * r) */
  rc = kdf_pbkdf2_sha(sha256, pw, sp->pwdlen, salt, sp->saltlen, 1, b, blen, stop);
  for (uint64_t i = 0; rc == 0 && i < p; i++) {
    if (stop_requested(stop)) {
      rc = STATUS_ESTOPPED;
      break;
    }
    rc = romix(im, b + (size_t)i * block, v, x, y, r_, N, stop, &v_used);
  }
  /* DK = PBKDF2-HMAC-SHA256(P, B, 1, dkLen) */
  if (rc == 0) rc = kdf_pbkdf2_sha(sha256, pw, sp->pwdlen, b, blen, 1, sp->out, sp->outlen, stop);
  secure_wipe(b, blen);
  secure_wipe(v, (size_t)v_used * block);
  secure_wipe(x, 2 * block);
  wipe_stack();
  if (rc != 0) memset(sp->out, 0, sp->outlen);
  return rc;
}
