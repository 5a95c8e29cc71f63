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
 *   - x86-64: 128-bit vectors (SSE2 is part of the ABI) with the 16 words
 *     of every 64-byte block stored permuted, so that each vector is one
 *     diagonal of the Salsa matrix and a round is 4 vector steps plus 3
 *     shuffles. Salsa20/8 is one chain of dependent steps, so wider vectors
 *     do not help: an AVX-512VL build (one vprold per rotate) measured the
 *     same as SSE2 here, and was dropped.
 *   - elsewhere (or forced "portable", see kdf/cpu.h): plain C, natural layout.
 * XOR and the copy into V are folded into BlockMix: ROMix's first loop
 * writes each BlockMix output straight into the next V slot, the second
 * XORs V[j] in while it reads X. */
#include "kdf/scrypt/scrypt.h"

#include "common/status.h"
#include "common/stop.h"
#include "common/wipe.h"
#include "kdf/cpu.h"
#include "kdf/openssl.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SCRYPT_HAVE_X86 1
#include <emmintrin.h>
#endif

#define WORDS_PER_SALSA_BLOCK 16

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

/* ---- Salsa20/8 and BlockMix, plain C --------------------------------------- */

static inline uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

static inline uint32_t load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

/* clang-format off */
/* x = Salsa20/8(x), in place: RFC 7914 section 3. */
static inline void salsa8_c(uint32_t x[16]) {
  uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7];
  uint32_t x8 = x[8], x9 = x[9], x10 = x[10], x11 = x[11], x12 = x[12], x13 = x[13], x14 = x[14],
           x15 = x[15];
  for (int i = 0; i < 8; i += 2) {
    /* columns */
    x4 ^= rotl32(x0 + x12, 7);   x9 ^= rotl32(x5 + x1, 7);
    x14 ^= rotl32(x10 + x6, 7);  x3 ^= rotl32(x15 + x11, 7);
    x8 ^= rotl32(x4 + x0, 9);    x13 ^= rotl32(x9 + x5, 9);
    x2 ^= rotl32(x14 + x10, 9);  x7 ^= rotl32(x3 + x15, 9);
    x12 ^= rotl32(x8 + x4, 13);  x1 ^= rotl32(x13 + x9, 13);
    x6 ^= rotl32(x2 + x14, 13);  x11 ^= rotl32(x7 + x3, 13);
    x0 ^= rotl32(x12 + x8, 18);  x5 ^= rotl32(x1 + x13, 18);
    x10 ^= rotl32(x6 + x2, 18);  x15 ^= rotl32(x11 + x7, 18);
    /* rows */
    x1 ^= rotl32(x0 + x3, 7);    x6 ^= rotl32(x5 + x4, 7);
    x11 ^= rotl32(x10 + x9, 7);  x12 ^= rotl32(x15 + x14, 7);
    x2 ^= rotl32(x1 + x0, 9);    x7 ^= rotl32(x6 + x5, 9);
    x8 ^= rotl32(x11 + x10, 9);  x13 ^= rotl32(x12 + x15, 9);
    x3 ^= rotl32(x2 + x1, 13);   x4 ^= rotl32(x7 + x6, 13);
    x9 ^= rotl32(x8 + x11, 13);  x14 ^= rotl32(x13 + x12, 13);
    x0 ^= rotl32(x3 + x2, 18);   x5 ^= rotl32(x4 + x7, 18);
    x10 ^= rotl32(x9 + x8, 18);  x15 ^= rotl32(x14 + x13, 18);
  }
  x[0] += x0;   x[1] += x1;   x[2] += x2;   x[3] += x3;
  x[4] += x4;   x[5] += x5;   x[6] += x6;   x[7] += x7;
  x[8] += x8;   x[9] += x9;   x[10] += x10; x[11] += x11;
  x[12] += x12; x[13] += x13; x[14] += x14; x[15] += x15;
}

/* clang-format on */
/* out = BlockMix(in ^ xv) (xv may be NULL); returns Integerify(out), the
 * first 8 bytes of out's last 64-byte block as a little-endian number.
 * in, xv and out hold 2r blocks of 16 words each; out must not overlap. */
static uint64_t blockmix_c(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r) {
  uint32_t x[16];
  const size_t last = (2 * r - 1) * WORDS_PER_SALSA_BLOCK;
  for (int k = 0; k < 16; k++) x[k] = in[last + k] ^ (xv != NULL ? xv[last + k] : 0);
  for (size_t i = 0; i < 2 * r; i++) {
    const uint32_t *s = in + i * WORDS_PER_SALSA_BLOCK;
    if (xv != NULL) {
      const uint32_t *t = xv + i * WORDS_PER_SALSA_BLOCK;
      for (int k = 0; k < 16; k++) x[k] ^= s[k] ^ t[k];
    } else {
      for (int k = 0; k < 16; k++) x[k] ^= s[k];
    }
    salsa8_c(x);
    /* Even blocks go to the first half of out, odd ones to the second. */
    memcpy(out + ((i >> 1) + (i & 1) * r) * WORDS_PER_SALSA_BLOCK, x, sizeof x);
  }
  return (uint64_t)x[0] | (uint64_t)x[1] << 32;
}

static void load_c(uint32_t *dst, const uint8_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks * WORDS_PER_SALSA_BLOCK; k++) dst[k] = load_le32(src + 4 * k);
}

static void store_c(uint8_t *dst, const uint32_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks * WORDS_PER_SALSA_BLOCK; k++) store_le32(dst + 4 * k, src[k]);
}

/* ---- Salsa20/8 and BlockMix, 128-bit vectors (x86-64) ----------------------- */

#ifdef SCRYPT_HAVE_X86

/* Word i of a stored block is word 5i mod 16 of the RFC's block: vector 0 is
 * the diagonal (x0, x5, x10, x15), 1 is (x4, x9, x14, x3), 2 is (x8, x13,
 * x2, x7), 3 is (x12, x1, x6, x11). A column step then works on whole
 * vectors, and rotating vectors 1..3 by one, two and three lanes lines the
 * rows up the same way. Word 0 stays in place and word 1 lands at 13, which
 * is all Integerify reads. XOR and addition are lane-wise, so BlockMix never
 * needs to know about the permutation. */
#define PERMUTED(i) (((i) * 5) & 15)

/* GNU vector extensions for the arithmetic: shorter than intrinsics, and
 * the compiler still picks the instructions (a rotate where there is one).
 * may_alias: the buffers are also accessed as uint32_t. */
typedef uint32_t v4u __attribute__((vector_size(16), __may_alias__));

static inline v4u rotl_v(v4u x, int n) { return (x << n) | (x >> (32 - n)); }

/* Lane i of the result is lane (i + k) mod 4 of x. */
static inline v4u lanes_1(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x39); }
static inline v4u lanes_2(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x4E); }
static inline v4u lanes_3(v4u x) { return (v4u)_mm_shuffle_epi32((__m128i)x, 0x93); }

/* Same contract as blockmix_c, on the permuted layout. */
static uint64_t blockmix_sse2(const uint32_t *in32, const uint32_t *xv32, uint32_t *out32, size_t r) {
  const v4u *in = (const v4u *)in32, *xv = (const v4u *)xv32;
  v4u *out = (v4u *)out32;
  const size_t last = (2 * r - 1) * 4;
  v4u a = in[last], b = in[last + 1], c = in[last + 2], d = in[last + 3];
  if (xv != NULL) {
    a ^= xv[last];
    b ^= xv[last + 1];
    c ^= xv[last + 2];
    d ^= xv[last + 3];
  }
  for (size_t i = 0; i < 2 * r; i++) {
    const v4u *s = in + 4 * i;
    a ^= s[0];
    b ^= s[1];
    c ^= s[2];
    d ^= s[3];
    if (xv != NULL) {
      const v4u *t = xv + 4 * i;
      a ^= t[0];
      b ^= t[1];
      c ^= t[2];
      d ^= t[3];
    }
    const v4u a0 = a, b0 = b, c0 = c, d0 = d;
#if defined(__clang__)
#pragma unroll
#else
#pragma GCC unroll 4
#endif
    for (int round = 0; round < 4; round++) {
      /* columns */
      b ^= rotl_v(a + d, 7);
      c ^= rotl_v(b + a, 9);
      d ^= rotl_v(c + b, 13);
      a ^= rotl_v(d + c, 18);
      /* rows: a keeps its place, the others turn so each lane is one row */
      b = lanes_3(b);
      c = lanes_2(c);
      d = lanes_1(d);
      d ^= rotl_v(a + b, 7);
      c ^= rotl_v(d + a, 9);
      b ^= rotl_v(c + d, 13);
      a ^= rotl_v(b + c, 18);
      b = lanes_1(b);
      c = lanes_2(c);
      d = lanes_3(d);
    }
    a += a0;
    b += b0;
    c += c0;
    d += d0;
    v4u *o = out + 4 * ((i >> 1) + (i & 1) * r);
    o[0] = a;
    o[1] = b;
    o[2] = c;
    o[3] = d;
  }
  return (uint64_t)a[0] | (uint64_t)d[1] << 32;
}

static void load_permuted(uint32_t *dst, const uint8_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks; k++, dst += 16, src += 64)
    for (int i = 0; i < 16; i++) dst[i] = load_le32(src + 4 * PERMUTED(i));
}

static void store_permuted(uint8_t *dst, const uint32_t *src, size_t salsa_blocks) {
  for (size_t k = 0; k < salsa_blocks; k++, dst += 64, src += 16)
    for (int i = 0; i < 16; i++) store_le32(dst + 4 * PERMUTED(i), src[i]);
}

#endif /* SCRYPT_HAVE_X86 */

/* ---- implementation choice ---------------------------------------------- */

typedef struct {
  uint64_t (*mix)(const uint32_t *in, const uint32_t *xv, uint32_t *out, size_t r);
  void (*load)(uint32_t *dst, const uint8_t *src, size_t salsa_blocks);
  void (*store)(uint8_t *dst, const uint32_t *src, size_t salsa_blocks);
} scrypt_impl;

static const scrypt_impl impl_c = { blockmix_c, load_c, store_c };

#ifdef SCRYPT_HAVE_X86
static const scrypt_impl impl_sse2 = { blockmix_sse2, load_permuted, store_permuted };
#endif

/* Same order as `variants`; kdf_cpu_has() is false for the NULL one. */
static const scrypt_impl *const impls[] = {
  &impl_c,
#ifdef SCRYPT_HAVE_X86
  &impl_sse2,
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
static int romix(const scrypt_impl *im, uint8_t *b, uint32_t *v, uint32_t *x, uint32_t *y,
                 size_t r, uint64_t N, const volatile int *stop, uint64_t *v_used) {
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
