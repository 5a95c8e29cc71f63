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
 *   - x86-64, one lane: plain C (kdf_scrypt_mix_permuted_c) on the layout
 *     of the lane kernels below, where the 16 words of every 64-byte block
 *     are stored permuted so that each 128-bit vector is one diagonal of
 *     the Salsa matrix. Salsa20/8 is one chain of dependent steps: in one
 *     vector every rotate is three instructions and every half round adds
 *     shuffles, so the SSE2 one-lane code took 45-51 ms where plain C takes
 *     27 (below), and was dropped; an AVX-512VL one-lane build (one vprold
 *     per rotate) had measured the same as SSE2.
 *   - lanes (kdf_scrypt_lanes, for the pool's batches): one Salsa20/8
 *     chain keeps the core's vector units mostly idle, so independent
 *     computations of the same N, r, p run their ROMix in lockstep through
 *     a lane kernel (lanes_body.h): SSE2 two sets of xmm (2 lanes); AVX2
 *     two lanes per ymm, one per 128-bit half, two sets (4 lanes);
 *     AVX-512VL the same with vprold (4 lanes). Thread CPU time per lane,
 *     N = 2^14, r = 8, whole derivations ('make -f test/native/scrypt.mk
 *     bench', this 2-core Zen 4 under load from others): one lane 27 ms
 *     (plain C; the old SSE2 one lane 45-51), SSE2 2 lanes 24, AVX2 4 lanes 13,
 *     AVX-512 4 lanes 9.6 (ROMix alone 7.8; one zmm of 4 lanes the same).
 *     One set of two lanes in a ymm is as slow per call as one lane: the
 *     chain's latency, not the width, sets the pace. Single jobs keep the
 *     one-lane path, so their latency is unchanged. In the random-read
 *     loop every lane's next V block is prefetched before any is needed.
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
  &kdf_scrypt_blockmix_sse2,     &kdf_scrypt_blockmix_avx2, &kdf_scrypt_blockmix_avx512,
#else
  NULL,
  NULL,
  NULL,
#endif
#ifdef SCRYPT_HAVE_NEON
  &kdf_scrypt_blockmix_neon,
#else
  NULL,
#endif
};

/* The x86 variants differ only in their lane kernel (one lane is the SSE2
 * code everywhere); see the lane figures at the top of this file. */
static const kdf_cpu_variant variants[] = {
  { "portable", KDF_CPU_NONE },   { "sse2", KDF_CPU_SSE2 }, { "avx2", KDF_CPU_AVX2 },
  { "avx512", KDF_CPU_AVX512VL }, { "neon", KDF_CPU_NEON },
};

static kdf_cpu_selector selector = { variants, (int)(sizeof variants / sizeof variants[0]), -1 };

int kdf_scrypt_force_variant(const char *name) { return kdf_cpu_force(&selector, name); }

const char *kdf_scrypt_variant(void) { return variants[kdf_cpu_select(&selector)].name; }

static const scrypt_impl *impl_get(void) { return impls[kdf_cpu_select(&selector)]; }

unsigned kdf_scrypt_lane_width(void) { return impl_get()->wide.lanes; }

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

/* romix() for n lanes in lockstep through the lane kernel kn: lane l's
 * block b[l] with its own V, X and Y. Lanes past n up to kn->lanes repeat
 * lane 0 (the kernel's width is fixed; a repeated lane writes the same
 * bytes again). All lanes write V alike, so one *v_used serves them all. */
int kdf_scrypt_romix_lanes(const scrypt_impl *im, const scrypt_lane_kernel *kn, unsigned n,
                           uint8_t *const b[], uint32_t *const v[], uint32_t *const x[],
                           uint32_t *const y[], size_t r, uint64_t N, const volatile int *stop,
                           uint64_t *v_used) {
  const size_t words = 32 * r;
  const size_t line_words = 64 / sizeof(uint32_t);
  const uint64_t mask = N - 1;
  const uint64_t poll = SALSA_CALLS_PER_POLL / (2 * r * kn->lanes) + 1;
  uint64_t until_poll = poll;
  const uint32_t *in[SCRYPT_MAX_KERNEL_LANES], *xv[SCRYPT_MAX_KERNEL_LANES];
  uint32_t *out[SCRYPT_MAX_KERNEL_LANES], *lv[SCRYPT_MAX_KERNEL_LANES];
  uint64_t j[SCRYPT_MAX_KERNEL_LANES];
  const unsigned w = kn->lanes;

  if (n == 0 || n > w || w > SCRYPT_MAX_KERNEL_LANES) return STATUS_EINVAL;
  for (unsigned l = 0; l < w; l++) lv[l] = v[l < n ? l : 0];
  for (unsigned l = 0; l < n; l++) im->load(v[l], b[l], 2 * r);
  for (uint64_t k = 0; k + 1 < N; k++) {
    if (--until_poll == 0) {
      if (stop_requested(stop)) {
        if (*v_used < k + 1) *v_used = k + 1;
        return STATUS_ESTOPPED;
      }
      until_poll = poll;
    }
    for (unsigned l = 0; l < w; l++) {
      in[l] = lv[l] + (size_t)k * words;
      out[l] = lv[l] + (size_t)(k + 1) * words;
    }
    kn->mix(in, NULL, out, r, j);
  }
  *v_used = N;
  for (unsigned l = 0; l < w; l++) {
    in[l] = lv[l] + (size_t)(N - 1) * words;
    out[l] = x[l < n ? l : 0];
  }
  kn->mix(in, NULL, out, r, j);

  uint32_t *yy[SCRYPT_MAX_KERNEL_LANES];
  for (unsigned l = 0; l < w; l++) {
    in[l] = x[l < n ? l : 0];
    yy[l] = y[l < n ? l : 0];
  }
  for (uint64_t k = 0; k < N; k++) {
    if (--until_poll == 0) {
      if (stop_requested(stop)) return STATUS_ESTOPPED;
      until_poll = poll;
    }
    for (unsigned l = 0; l < w; l++) {
      /* Every lane's next block is known now: ask for all of them before
       * any is needed, so that their misses overlap each other and the
       * other lanes' Salsa rounds. */
      const uint32_t *vj = lv[l] + (size_t)(j[l] & mask) * words;
      for (size_t i = 0; i < words; i += line_words) __builtin_prefetch(vj + i, 0, 3);
      xv[l] = vj;
      out[l] = (k & 1) == 0 ? yy[l] : x[l < n ? l : 0];
    }
    kn->mix(in, xv, out, r, j);
    for (unsigned l = 0; l < w; l++) in[l] = out[l];
  }
  /* N is even, so the result ends in x. */
  for (unsigned l = 0; l < n; l++) im->store(b[l], x[l], 2 * r);
  return 0;
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
  secure_wipe_stack(); /* BlockMix's Salsa state: spills, the plain-C x[16] */
  if (rc != 0) memset(sp->out, 0, sp->outlen);
  return rc;
}

/* ---- lanes ------------------------------------------------------------------ */

/* One lane of kdf_scrypt_lanes(): its parameters and its part of scratch. */
typedef struct {
  const kdf_scrypt_params *sp;
  uint8_t *b;
  uint32_t *v, *x, *y;
  uint64_t v_used;
} lane;

/* Phase 2 of the lanes that share N, r and p: block i of every lane, in
 * chunks of the lane kernel's width; a chunk of one takes the one-lane
 * path, which is faster than a kernel running copies of it. */
static int romix_group(const scrypt_impl *im, lane *const g[], unsigned n, size_t r, uint64_t N,
                       uint64_t p, const volatile int *stop) {
  const size_t block = 128 * r;
  const unsigned w = im->wide.mix != NULL ? im->wide.lanes : 1;
  for (uint64_t i = 0; i < p; i++) {
    for (unsigned first = 0; first < n; first += w) {
      const unsigned m = n - first < w ? n - first : w;
      if (stop_requested(stop)) return STATUS_ESTOPPED;
      if (m == 1) {
        lane *l = g[first];
        int rc = romix(im, l->b + (size_t)i * block, l->v, l->x, l->y, r, N, stop, &l->v_used);
        if (rc != 0) return rc;
        continue;
      }
      uint8_t *b[SCRYPT_MAX_KERNEL_LANES];
      uint32_t *v[SCRYPT_MAX_KERNEL_LANES], *x[SCRYPT_MAX_KERNEL_LANES],
          *y[SCRYPT_MAX_KERNEL_LANES];
      uint64_t used = 0;
      for (unsigned k = 0; k < m; k++) {
        lane *l = g[first + k];
        b[k] = l->b + (size_t)i * block;
        v[k] = l->v;
        x[k] = l->x;
        y[k] = l->y;
      }
      int rc = kdf_scrypt_romix_lanes(im, &im->wide, m, b, v, x, y, r, N, stop, &used);
      for (unsigned k = 0; k < m; k++)
        if (g[first + k]->v_used < used) g[first + k]->v_used = used;
      if (rc != 0) return rc;
    }
  }
  return 0;
}

int kdf_scrypt_lanes(const kdf_scrypt_params *const lanes[], unsigned n, int rc[], void *scratch,
                     size_t scratch_size, const volatile int *stop) {
  static const uint8_t empty[1] = { 0 };
  lane ls[KDF_SCRYPT_MAX_LANES];
  lane *group[KDF_SCRYPT_MAX_LANES];
  unsigned in_group = 0;
  const kdf_scrypt_params *first = NULL;
  const kdf_sha_desc *sha256 = kdf_sha_get(KDF_SHA256);
  const scrypt_impl *im = impl_get();
  size_t offset = 0;
  int result = 0;

  if (n == 0 || n > KDF_SCRYPT_MAX_LANES) return STATUS_EINVAL;
  /* Each lane's region follows the previous one's; sizes are multiples of
   * 128 bytes, so every region keeps the scratch's 64-byte alignment. A
   * lane whose own run() would refuse it fails alone, as there. */
  for (unsigned k = 0; k < n; k++) {
    const kdf_scrypt_params *sp = lanes[k];
    const size_t need = memory_needed(sp->N, sp->r, sp->p);
    ls[k].sp = sp;
    ls[k].b = NULL;
    ls[k].v_used = 0;
    rc[k] = 0;
    if (need == 0 || scratch == NULL || need > scratch_size - offset || offset > scratch_size ||
        sp->N < 2 || (sp->N & (sp->N - 1)) != 0 || sp->p == 0 || 128 * sp->r * sp->p > INT_MAX ||
        sp->pwdlen > INT_MAX || sp->saltlen > INT_MAX || sp->outlen > INT_MAX) {
      if (sp->out != NULL) memset(sp->out, 0, sp->outlen);
      rc[k] = STATUS_EINVAL;
      continue;
    }
    uint8_t *base = (uint8_t *)scratch + offset;
    offset += need;
    if (sp->outlen == 0) continue; /* an empty key, as node gets */
    /* Lanes that differ from the first in N, r or p would end at another
     * time; they run alone, right here, in their own region. */
    if (first != NULL && (sp->N != first->N || sp->r != first->r || sp->p != first->p)) {
      rc[k] = kdf_scrypt_run(sp, base, need, stop);
      continue;
    }
    if (first == NULL) first = sp;
    const size_t block = 128 * (size_t)sp->r, blen = block * (size_t)sp->p;
    ls[k].b = base;
    ls[k].v = (uint32_t *)(void *)(base + blen);
    ls[k].x = ls[k].v + (size_t)sp->N * (block / sizeof(uint32_t));
    ls[k].y = ls[k].x + block / sizeof(uint32_t);
    group[in_group++] = &ls[k];
  }

  int grc = 0;
  /* B = PBKDF2-HMAC-SHA256(P, S, 1, p * 128 * r), each lane */
  for (unsigned k = 0; grc == 0 && k < in_group; k++) {
    const kdf_scrypt_params *sp = group[k]->sp;
    grc = kdf_pbkdf2_sha(sha256, sp->pwdlen != 0 ? sp->pwd : empty, sp->pwdlen,
                         sp->saltlen != 0 ? sp->salt : empty, sp->saltlen, 1, group[k]->b,
                         128 * (size_t)sp->r * (size_t)sp->p, stop);
  }
  if (grc == 0 && in_group > 0)
    grc = romix_group(im, group, in_group, (size_t)first->r, first->N, first->p, stop);
  for (unsigned k = 0; k < in_group; k++) {
    lane *l = group[k];
    const kdf_scrypt_params *sp = l->sp;
    const size_t block = 128 * (size_t)sp->r, blen = block * (size_t)sp->p;
    int lrc = grc;
    /* DK = PBKDF2-HMAC-SHA256(P, B, 1, dkLen) */
    if (lrc == 0)
      lrc = kdf_pbkdf2_sha(sha256, sp->pwdlen != 0 ? sp->pwd : empty, sp->pwdlen, l->b, blen, 1,
                           sp->out, sp->outlen, stop);
    secure_wipe(l->b, blen);
    secure_wipe(l->v, (size_t)l->v_used * block);
    secure_wipe(l->x, 2 * block);
    if (lrc != 0) memset(sp->out, 0, sp->outlen);
    rc[(size_t)(l - ls)] = lrc;
  }
  secure_wipe_stack(); /* BlockMix's Salsa state: spills, the plain-C x[16] */
  for (unsigned k = 0; k < n; k++)
    if (rc[k] == STATUS_ESTOPPED) result = STATUS_ESTOPPED;
  return result;
}

/* ns per N * r of one job, lanes formed (bench/calibrate.js, x86-64 with
 * AVX-512; neon is not measured here and takes the portable figure). */
static const kdf_cpu_unit_cost romix_ns[] = {
  { "portable", 240 }, { "sse2", 190 }, { "avx2", 100 }, { "avx512", 75 }, { NULL, 0 },
};

uint64_t kdf_scrypt_cost_ns(const kdf_scrypt_params *p) {
  return kdf_cpu_cost_ns((double)p->N * (double)p->r * (double)p->p,
                         kdf_cpu_unit_ns(romix_ns, kdf_scrypt_variant()));
}
