/* PBKDF2 (RFC 8018 section 5.2) with HMAC (RFC 2104), byte-identical to
 * node:crypto's pbkdf2 for every digest it accepts.
 *
 * Limits and units: iterations 1..2^31-1, key length 0..2^31-1 bytes (the
 * JS layer enforces node's ranges); password and salt any length.
 *
 * Every job polls the stop flag every few milliseconds of work, whatever
 * the digest, so that process exit never waits for a long derivation.
 *
 * Two engines:
 *   - The SHA family (SHA-1, SHA-224/256, SHA-384/512, SHA-512/224 and
 *     SHA-512/256) runs on our own layer (kdf/sha: SHA-NI, AVX2, AVX-512 or
 *     ARMv8 when the CPU has them). HMAC's inner and outer states are
 *     computed once, and every iteration after the first is exactly two
 *     raw compressions of a block laid out once: both HMAC messages are one
 *     block of pad plus one digest, so they share the same padding.
 *   - Every other digest (SHA-3, BLAKE2, SM3, RIPEMD-160, MD5, ...) runs an
 *     HMAC loop of ours over the host's OpenSSL EVP (kdf/openssl.h): inner
 *     and outer contexts keyed once and copied per HMAC, as OpenSSL's own
 *     HMAC does. A one-iteration dry run through PKCS5_PBKDF2_HMAC (the
 *     call node:crypto makes) first, so that digests OpenSSL refuses (XOF
 *     SHAKE, MD4 without the legacy provider, ...) fail with its own error.
 *
 * Digest names resolve as in node:crypto (pbkdf2_digest.c). */
#include "kdf/pbkdf2.h"

#include "common/status.h"
#include "common/stop.h"
#include "common/wipe.h"
#include "kdf/cpu.h"
#include "kdf/openssl.h"
#include "kdf/pbkdf2_digest.h"

#include <limits.h>
#include <pthread.h>
#include <string.h>

/* Stop polling: SHA family every this many iterations (a few ms at most),
 * EVP digests (slower per call) more often; long passwords and salts are
 * absorbed in chunks of ABSORB_CHUNK bytes between polls. */
#define SHA_ITERATIONS_PER_POLL 4096u
#define EVP_ITERATIONS_PER_POLL 256u
#define ABSORB_CHUNK            (1u << 20)

/* The largest HMAC block of any EVP digest (SHA3-224: 144 bytes). */
#define EVP_MAX_HMAC_BLOCK 256

/* ---- SHA family, on our layer -------------------------------------------- */

/* kdf_sha_update in chunks, polling between them. 0 or STATUS_ESTOPPED. */
static int absorb(kdf_sha_ctx *c, const uint8_t *data, size_t len, const volatile int *stop) {
  while (len > ABSORB_CHUNK) {
    kdf_sha_update(c, data, ABSORB_CHUNK);
    data += ABSORB_CHUNK;
    len -= ABSORB_CHUNK;
    if (stop_requested(stop)) return STATUS_ESTOPPED;
  }
  if (len != 0) kdf_sha_update(c, data, len);
  return 0;
}

/* The lane engine. Every output block T_i of every job in a batch is one
 * chain (a kdf_sha_lane); the variant's lane kernel runs up to `width` of
 * them interleaved. Chains start in order — the first job's blocks first,
 * then the next job's — whenever a slot is free; a chain whose job has
 * fewer iterations retires early and the next pending block takes its
 * slot, so jobs of different iteration counts share a batch without
 * waiting for each other. A job is reported (done) as soon as its last
 * block is stored, and never touched again. */
typedef struct {
  const kdf_pbkdf2_params *p;
  kdf_sha_state istate, ostate; /* HMAC keyed states */
  kdf_sha_ctx sctx;             /* the inner context with the salt absorbed */
  size_t next;                  /* offset of the next block to start */
  unsigned open;                /* its chains in flight */
  int ended;
} pjob;

typedef struct {
  kdf_sha_lane lane;
  pjob *job;
  size_t off;
  uint64_t left;
} slot;

/* HMAC states and the salted inner context of one job (absorbing long
 * passwords and salts with stop polls). 0 or STATUS_ESTOPPED. */
static int job_keys(const kdf_sha_desc *d, pjob *j, const volatile int *stop) {
  uint8_t key[KDF_SHA_MAX_BLOCK], pad[KDF_SHA_MAX_BLOCK];
  const size_t bs = d->block_size;
  kdf_sha_ctx c;
  int rc = 0;
  memset(key, 0, sizeof key);
  if (j->p->pwdlen > bs) {
    kdf_sha_init(&c, d);
    rc = absorb(&c, j->p->pwd, j->p->pwdlen, stop);
    if (rc != 0) goto out;
    kdf_sha_final(&c, key);
  } else if (j->p->pwdlen > 0) {
    memcpy(key, j->p->pwd, j->p->pwdlen);
  }
  for (size_t i = 0; i < bs; i++) pad[i] = key[i] ^ 0x36;
  kdf_sha_init(&c, d);
  kdf_sha_update(&c, pad, bs);
  j->istate = c.state;
  /* The salt is the same for every output block: absorb it once (scrypt's
   * second step salts with up to 2 GiB). */
  j->sctx = c;
  rc = absorb(&j->sctx, j->p->salt, j->p->saltlen, stop);
  if (rc != 0) goto out;
  for (size_t i = 0; i < bs; i++) pad[i] = key[i] ^ 0x5c;
  kdf_sha_init(&c, d);
  kdf_sha_update(&c, pad, bs);
  j->ostate = c.state;
out:
  secure_wipe(key, sizeof key);
  secure_wipe(pad, sizeof pad);
  secure_wipe(&c, sizeof c);
  return rc;
}

/* Starts the chain of the job's next block in s: U1 = HMAC(salt || i). */
static void start_chain(const kdf_sha_desc *d, pjob *j, slot *s) {
  uint8_t u[KDF_SHA_MAX_DIGEST], counter[4];
  const uint32_t index = (uint32_t)(j->next / d->digest_size) + 1;
  kdf_sha_ctx c = j->sctx;
  for (int b = 0; b < 4; b++) counter[b] = (uint8_t)(index >> (24 - 8 * b));
  kdf_sha_update(&c, counter, 4);
  kdf_sha_final(&c, u);
  kdf_sha_init(&c, d);
  c.state = j->ostate;
  c.bytes = d->block_size;
  kdf_sha_update(&c, u, d->digest_size);
  kdf_sha_finish(&c);
  s->lane.istate = j->istate;
  s->lane.ostate = j->ostate;
  s->lane.u = s->lane.t = c.state;
  s->job = j;
  s->off = j->next;
  s->left = j->p->iterations - 1;
  j->next += d->digest_size;
  j->open++;
  secure_wipe(u, sizeof u);
  secure_wipe(&c, sizeof c);
}

static void end_job(pjob *j, int rc, int *rcs, size_t i, kdf_pbkdf2_done_fn done, void *ctx) {
  if (rc != 0) secure_wipe(j->p->out, j->p->outlen);
  j->ended = 1;
  j->p = NULL; /* the job may be freed from here on */
  secure_wipe(&j->istate, sizeof j->istate);
  secure_wipe(&j->ostate, sizeof j->ostate);
  secure_wipe(&j->sctx, sizeof j->sctx);
  rcs[i] = rc;
  if (done != NULL) done(ctx, i, rc);
}

/* At most KDF_PBKDF2_MAX_BATCH jobs, all on digest d. Never inlined: its
 * frame, with whatever the compiler spilled there, must lie below the
 * caller's, where the caller's secure_wipe_stack() reaches. */
__attribute__((noinline)) static void run_lanes(const kdf_sha_desc *d,
                                                const kdf_pbkdf2_params *const *ps, size_t n,
                                                const volatile int *stop, int *rcs,
                                                kdf_pbkdf2_done_fn done, void *ctx) {
  pjob jobs[KDF_PBKDF2_MAX_BATCH];
  slot slots[KDF_PBKDF2_MAX_BATCH];
  kdf_sha_lane *active[KDF_PBKDF2_MAX_BATCH];
  size_t width, used = 0, next_job = 0;
  const kdf_sha_lanes_fn fn = kdf_sha_lanes(d, &width);
  int rc = 0;
  if (width > KDF_PBKDF2_MAX_BATCH) width = KDF_PBKDF2_MAX_BATCH;
  memset(jobs, 0, sizeof jobs);
  memset(slots, 0, sizeof slots);

  for (size_t i = 0; i < n && rc == 0; i++) {
    jobs[i].p = ps[i];
    if (ps[i]->iterations < 1) {
      end_job(&jobs[i], STATUS_EINVAL, rcs, i, done, ctx);
      continue;
    }
    rc = job_keys(d, &jobs[i], stop);
    if (rc == 0 && ps[i]->outlen == 0) end_job(&jobs[i], 0, rcs, i, done, ctx);
  }
  while (rc == 0) {
    /* Fill free slots with the earliest jobs' pending blocks. */
    for (size_t s = 0; s < width; s++) {
      if (slots[s].job != NULL) continue;
      while (next_job < n &&
             (jobs[next_job].ended || jobs[next_job].next >= jobs[next_job].p->outlen))
        next_job++;
      if (next_job == n) break;
      start_chain(d, &jobs[next_job], &slots[s]);
    }
    uint64_t step = SHA_ITERATIONS_PER_POLL;
    used = 0;
    for (size_t s = 0; s < width; s++) {
      if (slots[s].job == NULL) continue;
      active[used++] = &slots[s].lane;
      if (slots[s].left < step) step = slots[s].left;
    }
    if (used == 0) break;
    if (step > 0) fn(d, active, used, step);
    /* Retire finished chains: the block goes out, the slot is free. */
    for (size_t s = 0; s < width; s++) {
      slot *x = &slots[s];
      if (x->job == NULL) continue;
      x->left -= step;
      if (x->left != 0) continue;
      uint8_t t[KDF_SHA_MAX_DIGEST];
      pjob *j = x->job;
      const size_t take =
          j->p->outlen - x->off < d->digest_size ? j->p->outlen - x->off : d->digest_size;
      kdf_sha_store(d, &x->lane.t, t);
      memcpy(j->p->out + x->off, t, take);
      secure_wipe(t, sizeof t);
      secure_wipe(x, sizeof *x);
      if (--j->open == 0 && j->next >= j->p->outlen)
        end_job(j, 0, rcs, (size_t)(j - jobs), done, ctx);
    }
    if (stop_requested(stop)) rc = STATUS_ESTOPPED;
  }
  for (size_t i = 0; i < n; i++)
    if (!jobs[i].ended) end_job(&jobs[i], rc != 0 ? rc : STATUS_EINVAL, rcs, i, done, ctx);
  secure_wipe(slots, sizeof slots);
  secure_wipe(jobs, sizeof jobs);
}

size_t kdf_pbkdf2_batch_width(const kdf_pbkdf2_params *p) {
  size_t width;
  if (p->sha == NULL) return 0;
  (void)kdf_sha_lanes(p->sha, &width);
  return width > KDF_PBKDF2_MAX_BATCH ? KDF_PBKDF2_MAX_BATCH : width;
}

/* Reports a chunk's job i as the caller's job first + i. */
typedef struct {
  kdf_pbkdf2_done_fn done;
  void *ctx;
  size_t first;
} chunk_ctx;

static void chunk_done(void *c, size_t i, int rc) {
  const chunk_ctx *x = c;
  x->done(x->ctx, x->first + i, rc);
}

void kdf_pbkdf2_run_batch(const kdf_pbkdf2_params *const *ps, size_t n, const volatile int *stop,
                          kdf_pbkdf2_done_fn done, void *ctx) {
  int rcs[KDF_PBKDF2_MAX_BATCH];
  for (size_t first = 0; first < n; first += KDF_PBKDF2_MAX_BATCH) {
    size_t m = n - first < KDF_PBKDF2_MAX_BATCH ? n - first : KDF_PBKDF2_MAX_BATCH;
    const kdf_sha_desc *d = ps[first]->sha;
    int same = d != NULL;
    for (size_t i = 0; i < m; i++) same &= ps[first + i]->sha == d;
    if (!same) { /* not a batch the engine takes: every job fails alike */
      for (size_t i = 0; i < m; i++) {
        secure_wipe(ps[first + i]->out, ps[first + i]->outlen);
        if (done != NULL) done(ctx, first + i, STATUS_EINVAL);
      }
      continue;
    }
    chunk_ctx cc = { done, ctx, first };
    run_lanes(d, ps + first, m, stop, rcs, done != NULL ? chunk_done : NULL, &cc);
    secure_wipe_stack(); /* the kernels' spills: HMAC states among them */
  }
  secure_wipe(rcs, sizeof rcs);
}

int kdf_pbkdf2_sha(const kdf_sha_desc *d, const uint8_t *pwd, size_t pwdlen, const uint8_t *salt,
                   size_t saltlen, uint64_t iterations, uint8_t *out, size_t outlen,
                   const volatile int *stop) {
  kdf_pbkdf2_params p;
  const kdf_pbkdf2_params *ps[1] = { &p };
  int rc = STATUS_EINVAL;
  memset(&p, 0, sizeof p);
  p.pwd = pwd;
  p.pwdlen = pwdlen;
  p.salt = salt;
  p.saltlen = saltlen;
  p.iterations = iterations;
  p.out = out;
  p.outlen = outlen;
  p.sha = d;
  run_lanes(d, ps, 1, stop, &rc, NULL, NULL);
  secure_wipe_stack(); /* the kernels' spills: HMAC states among them */
  return rc;
}

/* ---- other digests, on the host's OpenSSL --------------------------------- */

/* The same PBKDF2-HMAC over EVP. 0, STATUS_ECRYPTO (an EVP call failed) or
 * STATUS_ESTOPPED. */
static int evp_pbkdf2(const kdf_openssl_api *o, const EVP_MD *md, const kdf_pbkdf2_params *p,
                      const volatile int *stop) {
  uint8_t key[EVP_MAX_HMAC_BLOCK], pad[EVP_MAX_HMAC_BLOCK];
  uint8_t u[EVP_MAX_MD_SIZE], t[EVP_MAX_MD_SIZE], counter[4];
  const int size = o->md_size(md), block = o->md_block_size(md);
  EVP_MD_CTX *ictx = o->ctx_new(), *octx = o->ctx_new(), *sctx = o->ctx_new(), *c = o->ctx_new();
  unsigned int n;
  int rc = STATUS_ECRYPTO;

  memset(key, 0, sizeof key);
  if (ictx == NULL || octx == NULL || sctx == NULL || c == NULL || size <= 0 ||
      size > EVP_MAX_MD_SIZE || block <= 0 || block > EVP_MAX_HMAC_BLOCK)
    goto out;
  const size_t hl = (size_t)size, bs = (size_t)block;

  if (p->pwdlen > bs) {
    if (o->digest_init(c, md, NULL) != 1) goto out;
    for (size_t off = 0; off < p->pwdlen; off += ABSORB_CHUNK) {
      size_t take = p->pwdlen - off < ABSORB_CHUNK ? p->pwdlen - off : ABSORB_CHUNK;
      if (o->digest_update(c, p->pwd + off, take) != 1) goto out;
      if (stop_requested(stop)) goto stopped;
    }
    if (o->digest_final(c, key, &n) != 1) goto out;
  } else if (p->pwdlen > 0) {
    memcpy(key, p->pwd, p->pwdlen);
  }
  for (size_t i = 0; i < bs; i++) pad[i] = key[i] ^ 0x36;
  if (o->digest_init(ictx, md, NULL) != 1 || o->digest_update(ictx, pad, bs) != 1) goto out;
  for (size_t i = 0; i < bs; i++) pad[i] = key[i] ^ 0x5c;
  if (o->digest_init(octx, md, NULL) != 1 || o->digest_update(octx, pad, bs) != 1) goto out;
  if (o->ctx_copy(sctx, ictx) != 1) goto out;
  for (size_t off = 0; off < p->saltlen; off += ABSORB_CHUNK) {
    size_t take = p->saltlen - off < ABSORB_CHUNK ? p->saltlen - off : ABSORB_CHUNK;
    if (o->digest_update(sctx, p->salt + off, take) != 1) goto out;
    if (stop_requested(stop)) goto stopped;
  }

  uint32_t index = 1;
  for (size_t done = 0; done < p->outlen; done += hl, index++) {
    if (stop_requested(stop)) goto stopped;
    for (int b = 0; b < 4; b++) counter[b] = (uint8_t)(index >> (24 - 8 * b));
    if (o->ctx_copy(c, sctx) != 1 || o->digest_update(c, counter, 4) != 1 ||
        o->digest_final(c, u, &n) != 1 || o->ctx_copy(c, octx) != 1 ||
        o->digest_update(c, u, hl) != 1 || o->digest_final(c, u, &n) != 1)
      goto out;
    memcpy(t, u, hl);
    for (uint64_t it = 1; it < p->iterations; it++) {
      if (o->ctx_copy(c, ictx) != 1 || o->digest_update(c, u, hl) != 1 ||
          o->digest_final(c, u, &n) != 1 || o->ctx_copy(c, octx) != 1 ||
          o->digest_update(c, u, hl) != 1 || o->digest_final(c, u, &n) != 1)
        goto out;
      for (size_t i = 0; i < hl; i++) t[i] ^= u[i];
      if ((it % EVP_ITERATIONS_PER_POLL) == 0 && stop_requested(stop)) goto stopped;
    }
    memcpy(p->out + done, t, p->outlen - done < hl ? p->outlen - done : hl);
  }
  rc = 0;
  goto out;

stopped:
  rc = STATUS_ESTOPPED;
out:
  /* EVP_MD_CTX_free wipes the digest state (the keyed pads) it frees. */
  o->ctx_free(ictx);
  o->ctx_free(octx);
  o->ctx_free(sctx);
  o->ctx_free(c);
  secure_wipe(key, sizeof key);
  secure_wipe(pad, sizeof pad);
  secure_wipe(u, sizeof u);
  secure_wipe(t, sizeof t);
  return rc;
}

/* ---- the KDF contract ------------------------------------------------------ */

int kdf_pbkdf2_prepare(kdf_pbkdf2_params *p, size_t *memory) {
  *memory = 0;
  p->sha = NULL;
  p->md = NULL;
  if (p->iterations < 1 || p->iterations > INT_MAX || p->outlen > INT_MAX) return STATUS_EINVAL;
  return kdf_pbkdf2_digest(p->digest, p->fetch, &p->sha, &p->md);
}

int kdf_pbkdf2_run(const kdf_pbkdf2_params *p, void *scratch, size_t scratch_size,
                   const volatile int *stop) {
  (void)scratch; /* PBKDF2 is not memory-hard */
  (void)scratch_size;
  if (p->sha != NULL)
    return kdf_pbkdf2_sha(p->sha, p->pwd, p->pwdlen, p->salt, p->saltlen, p->iterations, p->out,
                          p->outlen, stop);
  const kdf_openssl_api *o = kdf_openssl();
  if (p->md == NULL || o == NULL || p->pwdlen > INT_MAX || p->saltlen > INT_MAX) {
    secure_wipe(p->out, p->outlen);
    return STATUS_EINVAL;
  }
  /* The dry run: node's own call, with one iteration and at most one
   * block, fails exactly where node fails (even for an empty key: XOF
   * digests fail then too); its message is OpenSSL's, read here on the
   * thread that failed. */
  const EVP_MD *md = p->md;
  uint8_t probe[EVP_MAX_MD_SIZE];
  const int size = o->md_size(md);
  size_t probe_len = p->outlen < sizeof probe ? p->outlen : sizeof probe;
  if (size > 0 && probe_len > (size_t)size) probe_len = (size_t)size;
  o->err_clear();
  int ok = o->pbkdf2_hmac((const char *)p->pwd, (int)p->pwdlen, p->salt, (int)p->saltlen, 1, md,
                          (int)probe_len, probe) == 1;
  secure_wipe(probe, sizeof probe);
  int rc = ok ? evp_pbkdf2(o, md, p, stop) : STATUS_ECRYPTO;
  if (rc == STATUS_ECRYPTO) kdf_openssl_error(p->error, p->error_len, "Deriving bits failed");
  if (rc != 0) secure_wipe(p->out, p->outlen);
  return rc;
}

/* ns per iteration of one output block, by compression core and SHA
 * variant, with batches formed (bench/calibrate.js on an x86-64 core with
 * SHA-NI and AVX-512; the arm64 rows are not measured here and take the
 * portable figures). A digest of the host's OpenSSL: the last figure. */
static const kdf_cpu_unit_cost sha1_ns[] = {
  { "portable", 190 }, { "bmi2", 155 },        { "avx2", 155 }, { "avx512", 155 },
  { "shani", 60 },     { "shani-avx512", 60 }, { NULL, 0 },
};
static const kdf_cpu_unit_cost sha256_ns[] = {
  { "portable", 360 }, { "bmi2", 360 },        { "avx2", 360 }, { "avx512", 360 },
  { "shani", 46 },     { "shani-avx512", 46 }, { NULL, 0 },
};
static const kdf_cpu_unit_cost sha512_ns[] = {
  { "portable", 430 }, { "bmi2", 410 },         { "avx2", 280 }, { "avx512", 110 },
  { "shani", 280 },    { "shani-avx512", 115 }, { NULL, 0 },
};
#define OPENSSL_DIGEST_NS 500.0

uint64_t kdf_pbkdf2_cost_ns(const kdf_pbkdf2_params *p) {
  const char *variant = kdf_sha_select()->name;
  double ns = OPENSSL_DIGEST_NS;
  size_t digest = 32;
  if (p->sha != NULL) {
    static const kdf_cpu_unit_cost *const by_core[KDF_SHA_CORE_COUNT] = { sha1_ns, sha256_ns,
                                                                          sha512_ns };
    ns = kdf_cpu_unit_ns(by_core[p->sha->core], variant);
    digest = p->sha->digest_size;
  }
  double blocks = p->outlen == 0 ? 1 : (double)((p->outlen + digest - 1) / digest);
  return kdf_cpu_cost_ns((double)p->iterations * blocks, ns);
}
