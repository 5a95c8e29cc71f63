/* Micro-benchmark of the SHA layer against OpenSSL's raw transforms (the
 * engine src/kdf_pbkdf2.c runs on today). Not part of the tests:
 *   make -f test/native/sha.mk bench
 *
 * 1. ns of thread CPU time per single-block compression, per variant,
 *    calling with n = 1 as PBKDF2 does.
 * 2. PBKDF2-HMAC's hot loop: 100,000 iterations of SHA-256 and 210,000 of
 *    SHA-512 (two compressions per iteration, digest written back into the
 *    padded block each time). OpenSSL's loop is the one kdf_pbkdf2.c has
 *    (context set / Transform / get / store); ours uses kdf_sha_state
 *    directly. For SHA-256 also two chains through compress_x2 where a
 *    variant has it (the shape of a 64-byte key, or of two jobs), and
 *    SHA-1 one chain vs two.
 *
 * 3. PBKDF2 lanes (`sha_bench N lanes`): each lane kernel with k = 1..its
 *    width chains, as ns per iteration per chain, and what bounds it: the
 *    latency and the throughput of sha256rnds2 on this CPU, timed alone.
 *
 * Each figure is the best of REPS runs (`sha_bench N` for N): see main. */
#define _POSIX_C_SOURCE 200809L
#define OPENSSL_SUPPRESS_DEPRECATED

#include "../../src/kdf/sha/sha.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/sha.h>

#define REPS 9

static double now_ns(void) {
  struct timespec ts;
  /* CPU time of this thread: time spent preempted by the other
   * engineers' builds does not count. */
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Keeps results alive without printing them. */
static volatile uint8_t sink;

/* ---- per-block compression -------------------------------------------------- */

#define BLOCKS 50000

typedef struct {
  double ns;
} per_block;

static per_block time_ours(kdf_sha_compress_fn f, const kdf_sha_desc *d) {
  uint8_t block[KDF_SHA_MAX_BLOCK] = { 1, 2, 3 };
  kdf_sha_state st = d->iv;
  double t0 = now_ns();
  for (int i = 0; i < BLOCKS; i++) f(&st, block, 1);
  per_block p = { (now_ns() - t0) / BLOCKS };
  sink = (uint8_t)st.w32[0];
  return p;
}

static per_block time_openssl(int core) {
  uint8_t block[KDF_SHA_MAX_BLOCK] = { 1, 2, 3 };
  SHA_CTX c1;
  SHA256_CTX c256;
  SHA512_CTX c512;
  SHA1_Init(&c1);
  SHA256_Init(&c256);
  SHA512_Init(&c512);
  double t0 = now_ns();
  if (core == KDF_SHA_CORE1)
    for (int i = 0; i < BLOCKS; i++) SHA1_Transform(&c1, block);
  else if (core == KDF_SHA_CORE256)
    for (int i = 0; i < BLOCKS; i++) SHA256_Transform(&c256, block);
  else
    for (int i = 0; i < BLOCKS; i++) SHA512_Transform(&c512, block);
  per_block p = { (now_ns() - t0) / BLOCKS };
  sink = (uint8_t)(c1.h0 ^ c256.h[0] ^ c512.h[0]);
  return p;
}

/* ---- PBKDF2 hot loop -------------------------------------------------------- */

/* The block every iteration compresses: a digest, then padding for a
 * message of one block plus one digest. */
static void pad_block(const kdf_sha_desc *d, uint8_t *blk) {
  memset(blk, 0, KDF_SHA_MAX_BLOCK);
  blk[d->digest_size] = 0x80;
  uint64_t bits = (uint64_t)(d->block_size + d->digest_size) * 8;
  for (int b = 0; b < 8; b++) blk[d->block_size - 1 - (size_t)b] = (uint8_t)(bits >> (8 * b));
}

static double loop_ours(const kdf_sha_desc *d, kdf_sha_compress_fn f, uint64_t iters) {
  kdf_sha_state is = d->iv, os = d->iv, t, w;
  uint8_t blk[KDF_SHA_MAX_BLOCK], pad[KDF_SHA_MAX_BLOCK];
  memset(pad, 0x36, sizeof pad);
  f(&is, pad, 1);
  memset(pad, 0x5c, sizeof pad);
  f(&os, pad, 1);
  pad_block(d, blk);
  memset(&t, 0, sizeof t);
  double t0 = now_ns();
  for (uint64_t it = 0; it < iters; it++) {
    w = is;
    f(&w, blk, 1);
    kdf_sha_store(d, &w, blk);
    w = os;
    f(&w, blk, 1);
    kdf_sha_store(d, &w, blk);
    for (int i = 0; i < 8; i++) t.w64[i] ^= w.w64[i];
  }
  double ns = now_ns() - t0;
  sink = (uint8_t)t.w64[0];
  return ns;
}

/* Two chains (two key blocks, or two jobs) in one loop. */
static double loop_ours_x2(const kdf_sha_desc *d, kdf_sha_compress_x2_fn f2, kdf_sha_compress_fn f,
                           uint64_t iters) {
  kdf_sha_state is = d->iv, os = d->iv, t, wa, wb;
  uint8_t ba[KDF_SHA_MAX_BLOCK], bb[KDF_SHA_MAX_BLOCK], pad[KDF_SHA_MAX_BLOCK];
  memset(pad, 0x36, sizeof pad);
  f(&is, pad, 1);
  memset(pad, 0x5c, sizeof pad);
  f(&os, pad, 1);
  pad_block(d, ba);
  pad_block(d, bb);
  bb[0] = 1;
  memset(&t, 0, sizeof t);
  double t0 = now_ns();
  for (uint64_t it = 0; it < iters; it++) {
    wa = is;
    wb = is;
    f2(&wa, ba, &wb, bb);
    kdf_sha_store(d, &wa, ba);
    kdf_sha_store(d, &wb, bb);
    wa = os;
    wb = os;
    f2(&wa, ba, &wb, bb);
    kdf_sha_store(d, &wa, ba);
    kdf_sha_store(d, &wb, bb);
    for (int i = 0; i < 8; i++) t.w64[i] ^= wa.w64[i] ^ wb.w64[i];
  }
  double ns = now_ns() - t0;
  sink = (uint8_t)t.w64[0];
  return ns;
}

/* kdf_pbkdf2.c's loop on OpenSSL, as it is today: set / Transform / get /
 * store through 64-bit words. */
static double loop_openssl256(const kdf_sha_desc *d, uint64_t iters) {
  SHA256_CTX ic, oc, c;
  uint8_t blk[KDF_SHA_MAX_BLOCK], pad[64];
  uint64_t is[8], os[8], w[8], t[8] = { 0 };
  SHA256_Init(&ic);
  memset(pad, 0x36, sizeof pad);
  SHA256_Update(&ic, pad, 64);
  SHA256_Init(&oc);
  memset(pad, 0x5c, sizeof pad);
  SHA256_Update(&oc, pad, 64);
  for (int i = 0; i < 8; i++) is[i] = ic.h[i], os[i] = oc.h[i];
  pad_block(d, blk);
  c = ic;
  double t0 = now_ns();
  for (uint64_t it = 0; it < iters; it++) {
    for (int i = 0; i < 8; i++) c.h[i] = (SHA_LONG)is[i];
    SHA256_Transform(&c, blk);
    for (int i = 0; i < 8; i++) w[i] = c.h[i];
    for (int i = 0; i < 8; i++)
      for (int b = 0; b < 4; b++) blk[i * 4 + b] = (uint8_t)(w[i] >> (24 - 8 * b));
    for (int i = 0; i < 8; i++) c.h[i] = (SHA_LONG)os[i];
    SHA256_Transform(&c, blk);
    for (int i = 0; i < 8; i++) w[i] = c.h[i];
    for (int i = 0; i < 8; i++)
      for (int b = 0; b < 4; b++) blk[i * 4 + b] = (uint8_t)(w[i] >> (24 - 8 * b));
    for (int i = 0; i < 8; i++) t[i] ^= w[i];
  }
  double ns = now_ns() - t0;
  sink = (uint8_t)t[0];
  return ns;
}

static double loop_openssl512(const kdf_sha_desc *d, uint64_t iters) {
  SHA512_CTX ic, oc, c;
  uint8_t blk[KDF_SHA_MAX_BLOCK], pad[128];
  uint64_t is[8], os[8], w[8], t[8] = { 0 };
  SHA512_Init(&ic);
  memset(pad, 0x36, sizeof pad);
  SHA512_Update(&ic, pad, 128);
  SHA512_Init(&oc);
  memset(pad, 0x5c, sizeof pad);
  SHA512_Update(&oc, pad, 128);
  for (int i = 0; i < 8; i++) is[i] = ic.h[i], os[i] = oc.h[i];
  pad_block(d, blk);
  c = ic;
  double t0 = now_ns();
  for (uint64_t it = 0; it < iters; it++) {
    for (int i = 0; i < 8; i++) c.h[i] = is[i];
    SHA512_Transform(&c, blk);
    for (int i = 0; i < 8; i++) w[i] = c.h[i];
    for (int i = 0; i < 8; i++)
      for (int b = 0; b < 8; b++) blk[i * 8 + b] = (uint8_t)(w[i] >> (56 - 8 * b));
    for (int i = 0; i < 8; i++) c.h[i] = os[i];
    SHA512_Transform(&c, blk);
    for (int i = 0; i < 8; i++) w[i] = c.h[i];
    for (int i = 0; i < 8; i++)
      for (int b = 0; b < 8; b++) blk[i * 8 + b] = (uint8_t)(w[i] >> (56 - 8 * b));
    for (int i = 0; i < 8; i++) t[i] ^= w[i];
  }
  double ns = now_ns() - t0;
  sink = (uint8_t)t[0];
  return ns;
}

typedef enum { OURS, OURS_X2, OPENSSL } loop_kind;

static double loop_ms(loop_kind kind, const kdf_sha_variant *v, kdf_sha_alg alg, uint64_t iters) {
  const kdf_sha_desc *d = kdf_sha_get(alg);
  double ns;
  if (kind == OURS)
    ns = loop_ours(d, v->compress[d->core], iters);
  else if (kind == OURS_X2)
    ns = loop_ours_x2(d, v->compress_x2[d->core], v->compress[d->core], iters);
  else if (d->core == KDF_SHA_CORE256)
    ns = loop_openssl256(d, iters);
  else
    ns = loop_openssl512(d, iters);
  return ns / 1e6;
}

/* Engines are timed in turn within each repetition, and each keeps its
 * best time: on a shared machine other processes only ever add time, so
 * the minimum is the closest to the code's own cost, and alternating keeps
 * a burst of load from landing on one engine only. */
typedef struct {
  const char *what, *engine;
  loop_kind kind; /* for loops */
  const kdf_sha_variant *v;
  int core;        /* per-block rows: -1 for a loop row */
  kdf_sha_alg alg; /* loop rows */
  uint64_t iters;
  double best;
} row;

#define MAX_ROWS 64

static row rows[MAX_ROWS];
static int nrows;

static void add_row(const char *what, const char *engine, loop_kind kind, const kdf_sha_variant *v,
                    int core, kdf_sha_alg alg, uint64_t iters) {
  if (nrows >= MAX_ROWS) {
    fprintf(stderr, "sha_bench: more than %d rows\n", MAX_ROWS);
    exit(1);
  }
  rows[nrows++] = (row){ what, engine, kind, v, core, alg, iters, 1e30 };
}

/* One loop row per variant the CPU has (with x2 only where it exists),
 * then OpenSSL's. */
static void add_loops(const char *what, kdf_sha_alg alg, uint64_t iters, loop_kind kind) {
  const kdf_sha_core core = kdf_sha_get(alg)->core;
  size_t count;
  const kdf_sha_variant *const *all = kdf_sha_variants(&count);
  for (size_t i = 0; i < count; i++)
    if (kdf_sha_supported(all[i]) && (kind != OURS_X2 || all[i]->compress_x2[core] != NULL))
      add_row(what, all[i]->name, kind, all[i], -1, alg, iters);
  /* No OpenSSL loop for SHA-1: the question is only what x2 buys there. */
  if (kind == OURS && core != KDF_SHA_CORE1)
    add_row(what, "openssl", OPENSSL, NULL, -1, alg, iters);
}

/* ---- PBKDF2 lanes ------------------------------------------------------------ */

/* ns per iteration per chain: k lanes through `fn` for `iters` iterations. */
static double lanes_ns(kdf_sha_lanes_fn fn, const kdf_sha_desc *d, size_t k, uint64_t iters) {
  kdf_sha_lane lanes[8], *ptr[8];
  for (size_t l = 0; l < k; l++) {
    memset(&lanes[l], (int)(l + 1), sizeof lanes[l]);
    ptr[l] = &lanes[l];
  }
  double t0 = now_ns();
  fn(d, ptr, k, iters);
  double ns = now_ns() - t0;
  sink = (uint8_t)lanes[0].t.w64[0];
  return ns / (double)iters / (double)k;
}

#ifdef KDF_SHA_HAVE_X86
#include <immintrin.h>
/* ns per sha256rnds2: one dependent chain (latency), or 8 independent
 * ones (reciprocal throughput). */
__attribute__((target("sha,sse4.1"))) static double rnds2_ns(int chains) {
  const int n = 2000000;
  __m128i x[8], w = _mm_set1_epi32(7), k = _mm_set1_epi32(3);
  for (int j = 0; j < 8; j++) x[j] = _mm_set1_epi32(j);
  double t0 = now_ns();
  if (chains == 1) {
    for (int i = 0; i < n; i++) x[0] = _mm_sha256rnds2_epu32(x[0], w, k);
  } else {
    for (int i = 0; i < n; i += 8) {
      x[0] = _mm_sha256rnds2_epu32(x[0], w, k);
      x[1] = _mm_sha256rnds2_epu32(x[1], w, k);
      x[2] = _mm_sha256rnds2_epu32(x[2], w, k);
      x[3] = _mm_sha256rnds2_epu32(x[3], w, k);
      x[4] = _mm_sha256rnds2_epu32(x[4], w, k);
      x[5] = _mm_sha256rnds2_epu32(x[5], w, k);
      x[6] = _mm_sha256rnds2_epu32(x[6], w, k);
      x[7] = _mm_sha256rnds2_epu32(x[7], w, k);
    }
  }
  double ns = (now_ns() - t0) / n;
  for (int j = 1; j < 8; j++) x[0] = _mm_xor_si128(x[0], x[j]);
  sink = (uint8_t)_mm_cvtsi128_si32(x[0]);
  return ns;
}
#endif

static void bench_lanes(int reps) {
  size_t count;
  const kdf_sha_variant *const *all = kdf_sha_variants(&count);
  static const kdf_sha_alg algs[] = { KDF_SHA1, KDF_SHA256, KDF_SHA512 };
  printf("PBKDF2 lanes, best of %d: ns per iteration (2 compressions) per chain\n", reps);
  printf("%-8s %-13s %-8s %3s %10s %12s\n", "digest", "variant", "kernel", "k", "ns/it/ch",
         "vs k=1");
  for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++) {
    const kdf_sha_desc *d = kdf_sha_get(algs[a]);
    for (size_t i = 0; i < count; i++) {
      const kdf_sha_variant *v = all[i];
      if (!kdf_sha_supported(v)) continue;
      /* Variants that share a kernel for this core are timed once. */
      int seen = 0;
      for (size_t j = 0; j < i; j++)
        if (kdf_sha_supported(all[j]) && all[j]->lanes[d->core] == v->lanes[d->core] &&
            all[j]->compress[d->core] == v->compress[d->core])
          seen = 1;
      if (seen) continue;
      kdf_sha_force(v->name);
      size_t most =
          d->core == KDF_SHA_CORE256 && v->lane_count[d->core] > 1 ? 4 : v->lane_count[d->core];
      double one = 0;
      for (size_t k = 1; k <= most; k++) {
        double best = 1e30;
        for (int r = 0; r < reps; r++) {
          double ns = lanes_ns(v->lanes[d->core], d, k, d->core == KDF_SHA_CORE512 ? 20000 : 50000);
          if (ns < best) best = ns;
        }
        if (k == 1) one = best;
        printf("%-8s %-13s %-8s %3zu %10.1f %11.2fx\n", d->name, v->name,
               v->lanes[d->core] == kdf_sha_lanes_serial  ? "serial"
               : v->lanes[d->core] == kdf_sha_lanes_pairs ? "pairs"
                                                          : "fused",
               k, best, best / one);
      }
    }
  }
  kdf_sha_force(NULL);
#ifdef KDF_SHA_HAVE_X86
  if (kdf_sha_force("shani") == 0) {
    double lat = 1e30, tput = 1e30;
    for (int r = 0; r < reps; r++) {
      double x = rnds2_ns(1), y = rnds2_ns(8);
      if (x < lat) lat = x;
      if (y < tput) tput = y;
    }
    /* A compression is 32 sha256rnds2 in one dependent sequence. */
    printf("sha256rnds2: latency %.2f ns, reciprocal throughput %.2f ns (ratio %.2f)\n", lat, tput,
           lat / tput);
    printf(
        "bounds per SHA-256 iteration (64 rnds2): one chain >= %.1f ns, any number of chains "
        ">= %.1f ns per chain\n",
        64 * lat, 64 * tput);
    kdf_sha_force(NULL);
  }
#endif
}

int main(int argc, char **argv) {
  static const char *const core_names[KDF_SHA_CORE_COUNT] = { "SHA-1", "SHA-256", "SHA-512" };
  static const kdf_sha_alg core_alg[KDF_SHA_CORE_COUNT] = { KDF_SHA1, KDF_SHA256, KDF_SHA512 };
  const kdf_sha_variant *const *all;
  size_t count;
  int reps = argc > 1 ? atoi(argv[1]) : REPS;
  all = kdf_sha_variants(&count);
  if (argc > 2 && strcmp(argv[2], "lanes") == 0) {
    bench_lanes(reps);
    return 0;
  }

  for (int core = 0; core < KDF_SHA_CORE_COUNT; core++) {
    for (size_t i = 0; i < count; i++)
      if (kdf_sha_supported(all[i]))
        add_row(core_names[core], all[i]->name, OURS, all[i], core, KDF_SHA1, 0);
    add_row(core_names[core], "openssl", OPENSSL, NULL, core, KDF_SHA1, 0);
  }
  add_loops("SHA-1 100k", KDF_SHA1, 100000, OURS);
  add_loops("SHA-1 100k x2 chains", KDF_SHA1, 100000, OURS_X2);
  add_loops("SHA-256 100k", KDF_SHA256, 100000, OURS);
  add_loops("SHA-256 100k x2 chains", KDF_SHA256, 100000, OURS_X2);
  add_loops("SHA-512 210k", KDF_SHA512, 210000, OURS);

  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < nrows; i++) {
      row *w = &rows[i];
      if (w->core >= 0) {
        per_block p = w->kind == OPENSSL
                          ? time_openssl(w->core)
                          : time_ours(w->v->compress[w->core], kdf_sha_get(core_alg[w->core]));
        if (p.ns < w->best) w->best = p.ns;
      } else {
        double ms = loop_ms(w->kind, w->v, w->alg, w->iters);
        if (ms < w->best) w->best = ms;
      }
    }
  }

  printf("best of %d, engines alternating\n", reps);
  printf("%-24s %-13s %10s\n", "per-block (n=1)", "engine", "ns/block");
  for (int i = 0; i < nrows; i++)
    if (rows[i].core >= 0)
      printf("%-24s %-13s %10.1f\n", rows[i].what, rows[i].engine, rows[i].best);
  printf("%-24s %-13s %10s\n", "PBKDF2 loop (2 compr/it)", "engine", "ms");
  for (int i = 0; i < nrows; i++)
    if (rows[i].core < 0)
      printf("%-24s %-13s %10.2f\n", rows[i].what, rows[i].engine, rows[i].best);
  return 0;
}
