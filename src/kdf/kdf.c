/* The dispatch table: for each algorithm id, how to unpack its slots into
 * typed parameters (the only code that knows the slot layout) and how to
 * call its prepare and run. */
#include "kdf/kdf.h"

#include "common/status.h"
#include "kdf/openssl.h"

#include <string.h>

/* Slot names for the numbers of each algorithm (see kdf.h). */
enum { PBKDF2_ITERATIONS, PBKDF2_FETCH };
enum { SCRYPT_N, SCRYPT_R, SCRYPT_P, SCRYPT_MAXMEM };
enum { ARGON2_TYPE, ARGON2_VERSION, ARGON2_LANES, ARGON2_MEMORY_KIB, ARGON2_PASSES };
enum { BCRYPT_COST, BCRYPT_MINOR };

typedef struct {
  int (*prepare)(kdf_request *r); /* unpack slots, then the algorithm's prepare */
  int (*run)(kdf_request *r, void *scratch, size_t scratch_size, const volatile int *stop);
} kdf_algorithm;

static int pbkdf2_prepare(kdf_request *r) {
  kdf_pbkdf2_params *p = &r->params.pbkdf2;
  p->pwd = r->in[0];
  p->pwdlen = r->in_len[0];
  p->salt = r->in[1];
  p->saltlen = r->in_len[1];
  p->iterations = r->num[PBKDF2_ITERATIONS];
  p->fetch = r->num[PBKDF2_FETCH] != 0;
  p->digest = r->name;
  p->out = r->out;
  p->outlen = r->outlen;
  p->error = r->error;
  p->error_len = sizeof r->error;
  int rc = kdf_pbkdf2_prepare(p, &r->memory);
  if (rc == 0) r->cost_ns = kdf_pbkdf2_cost_ns(p);
  return rc;
}

static int pbkdf2_run(kdf_request *r, void *scratch, size_t size, const volatile int *stop) {
  return kdf_pbkdf2_run(&r->params.pbkdf2, scratch, size, stop);
}

static int scrypt_prepare(kdf_request *r) {
  kdf_scrypt_params *p = &r->params.scrypt;
  p->pwd = r->in[0];
  p->pwdlen = r->in_len[0];
  p->salt = r->in[1];
  p->saltlen = r->in_len[1];
  p->N = r->num[SCRYPT_N];
  p->r = r->num[SCRYPT_R];
  p->p = r->num[SCRYPT_P];
  p->maxmem = r->num[SCRYPT_MAXMEM];
  p->out = r->out;
  p->outlen = r->outlen;
  p->error = r->error;
  p->error_len = sizeof r->error;
  int rc = kdf_scrypt_prepare(p, &r->memory);
  if (rc == 0) r->cost_ns = kdf_scrypt_cost_ns(p);
  return rc;
}

static int scrypt_run(kdf_request *r, void *scratch, size_t size, const volatile int *stop) {
  return kdf_scrypt_run(&r->params.scrypt, scratch, size, stop);
}

static int argon2_prepare(kdf_request *r) {
  kdf_argon2_params *p = &r->params.argon2;
  if (r->num[ARGON2_TYPE] > KDF_ARGON2ID) return STATUS_EINVAL;
  if (r->num[ARGON2_VERSION] != KDF_ARGON2_VERSION_10 &&
      r->num[ARGON2_VERSION] != KDF_ARGON2_VERSION_13)
    return STATUS_EINVAL;
  if (r->num[ARGON2_LANES] > UINT32_MAX || r->num[ARGON2_MEMORY_KIB] > UINT32_MAX ||
      r->num[ARGON2_PASSES] > UINT32_MAX)
    return STATUS_EINVAL;
  p->type = (kdf_argon2_type)r->num[ARGON2_TYPE];
  p->version = (uint32_t)r->num[ARGON2_VERSION];
  p->pwd = r->in[0];
  p->pwdlen = r->in_len[0];
  p->salt = r->in[1];
  p->saltlen = r->in_len[1];
  p->secret = r->in[2];
  p->secretlen = r->in_len[2];
  p->ad = r->in[3];
  p->adlen = r->in_len[3];
  p->lanes = (uint32_t)r->num[ARGON2_LANES];
  p->m_cost = (uint32_t)r->num[ARGON2_MEMORY_KIB];
  p->t_cost = (uint32_t)r->num[ARGON2_PASSES];
  p->out = r->out;
  p->outlen = r->outlen;
  int rc = kdf_argon2_prepare(p, &r->memory);
  if (rc == 0) r->cost_ns = kdf_argon2_cost_ns(p);
  return rc;
}

static int argon2_run(kdf_request *r, void *scratch, size_t size, const volatile int *stop) {
  return kdf_argon2_run(&r->params.argon2, scratch, size, stop);
}

static int bcrypt_prepare(kdf_request *r) {
  kdf_bcrypt_params *p = &r->params.bcrypt;
  p->pwd = r->in[0];
  p->pwdlen = r->in_len[0];
  p->salt = r->in[1];
  p->saltlen = r->in_len[1];
  p->cost = r->num[BCRYPT_COST];
  p->minor = r->num[BCRYPT_MINOR];
  p->out = r->out;
  p->outlen = r->outlen;
  int rc = kdf_bcrypt_prepare(p, &r->memory);
  if (rc == 0) r->cost_ns = kdf_bcrypt_cost_ns(p);
  return rc;
}

static int bcrypt_run(kdf_request *r, void *scratch, size_t size, const volatile int *stop) {
  return kdf_bcrypt_run(&r->params.bcrypt, scratch, size, stop);
}

static int blake2b_prepare(kdf_request *r) {
  kdf_blake2b_params *p = &r->params.blake2b;
  p->in = r->in[0];
  p->inlen = r->in_len[0];
  p->key = r->in[1];
  p->keylen = r->in_len[1];
  p->out = r->out;
  p->outlen = r->outlen;
  return kdf_blake2b_prepare(p, &r->memory);
}

static int blake2b_run(kdf_request *r, void *scratch, size_t size, const volatile int *stop) {
  return kdf_blake2b_run(&r->params.blake2b, scratch, size, stop);
}

static const kdf_algorithm algorithms[] = {
  [KDF_ALG_PBKDF2] = { pbkdf2_prepare, pbkdf2_run },
  [KDF_ALG_SCRYPT] = { scrypt_prepare, scrypt_run },
  [KDF_ALG_ARGON2] = { argon2_prepare, argon2_run },
  [KDF_ALG_BCRYPT] = { bcrypt_prepare, bcrypt_run },
  [KDF_ALG_BLAKE2B] = { blake2b_prepare, blake2b_run },
};

/* Reports a chunk's request i as the caller's request first + i. */
typedef struct {
  kdf_done_fn done;
  void *ctx;
  size_t first;
} kdf_batch_chunk;

static void batch_chunk_done(void *c, size_t i, int status) {
  const kdf_batch_chunk *x = c;
  x->done(x->ctx, x->first + i, status);
}

static const kdf_algorithm *lookup(kdf_alg alg) {
  size_t i = (size_t)alg;
  if (i >= sizeof algorithms / sizeof algorithms[0] || algorithms[i].prepare == NULL) return NULL;
  return &algorithms[i];
}

int kdf_prepare(kdf_request *r) {
  r->error[0] = '\0';
  r->memory = 0;
  r->cost_ns = 0;
  memset(&r->params, 0, sizeof r->params);
  for (int i = 0; i < KDF_MAX_INPUTS; i++)
    if (r->in[i] == NULL && r->in_len[i] != 0) return STATUS_EINVAL;
  const kdf_algorithm *a = lookup(r->alg);
  return a != NULL ? a->prepare(r) : STATUS_EINVAL;
}

int kdf_run(kdf_request *r, void *scratch, size_t scratch_size, const volatile int *stop) {
  const kdf_algorithm *a = lookup(r->alg);
  return a != NULL ? a->run(r, scratch, scratch_size, stop) : STATUS_EINVAL;
}

uint64_t kdf_batch_key(const kdf_request *r, unsigned *max) {
  *max = 1;
  if (r->alg == KDF_ALG_BCRYPT) {
    /* Lanes of one cost end together, so no lane idles while another
     * finishes its extra rounds. */
    *max = KDF_BCRYPT_MAX_LANES;
    return ((uint64_t)KDF_ALG_BCRYPT << 32) | r->params.bcrypt.cost;
  }
  if (r->alg == KDF_ALG_SCRYPT) {
    /* Lanes of one N, r, p end together (kdf_scrypt_lanes runs others
     * alone). The key holds them exactly: log2 N in 8 bits, r and p in 24
     * each; jobs past that (gigabytes each) do not batch. */
    const kdf_scrypt_params *s = &r->params.scrypt;
    const unsigned width = kdf_scrypt_lane_width();
    if (width < 2 || s->r >= (1u << 24) || s->p >= (1u << 24) || s->N < 2) return 0;
    *max = width < KDF_SCRYPT_MAX_LANES ? width : KDF_SCRYPT_MAX_LANES;
    return ((uint64_t)KDF_ALG_SCRYPT << 56) | ((uint64_t)__builtin_ctzll(s->N) << 48) |
           (s->r << 24) | s->p;
  }
  if (r->alg != KDF_ALG_PBKDF2 || r->params.pbkdf2.sha == NULL) return 0;
  size_t width = kdf_pbkdf2_batch_width(&r->params.pbkdf2);
  if (width < 2) return 0;
  *max = (unsigned)width;
  return ((uint64_t)KDF_ALG_PBKDF2 << 32) | ((uint64_t)r->params.pbkdf2.sha->alg + 1);
}

unsigned kdf_cost_class(const kdf_request *r) {
  enum { OPENSSL_DIGEST = 1 + KDF_SHA_ALG_COUNT, SCRYPT, ARGON2, BCRYPT, COUNT };
  _Static_assert(COUNT <= KDF_COST_CLASSES, "cost classes");
  switch (r->alg) {
    case KDF_ALG_PBKDF2:
      return r->params.pbkdf2.sha != NULL ? 1 + (unsigned)r->params.pbkdf2.sha->alg
                                          : OPENSSL_DIGEST;
    case KDF_ALG_SCRYPT:
      return SCRYPT;
    case KDF_ALG_ARGON2:
      return ARGON2;
    case KDF_ALG_BCRYPT:
      return BCRYPT;
    default:
      return 0;
  }
}

/* bcrypt: KDF_BCRYPT_MAX_LANES requests at a time, interleaved; each chunk's
 * requests end together. */
static void run_bcrypt_batch(kdf_request *const *rs, size_t n, const volatile int *stop,
                             kdf_done_fn done, void *ctx) {
  const kdf_bcrypt_params *ps[KDF_BCRYPT_MAX_LANES];
  int rc[KDF_BCRYPT_MAX_LANES];
  for (size_t first = 0; first < n; first += KDF_BCRYPT_MAX_LANES) {
    size_t m = n - first < KDF_BCRYPT_MAX_LANES ? n - first : KDF_BCRYPT_MAX_LANES;
    for (size_t i = 0; i < m; i++) ps[i] = &rs[first + i]->params.bcrypt;
    kdf_bcrypt_lanes(ps, (unsigned)m, rc, stop);
    for (size_t i = 0; i < m; i++) done(ctx, first + i, rc[i]);
  }
}

/* scrypt: KDF_SCRYPT_MAX_LANES requests at a time, each chunk with its
 * part of scratch; its requests end together. */
static void run_scrypt_batch(kdf_request *const *rs, size_t n, uint8_t *scratch,
                             size_t scratch_size, const volatile int *stop, kdf_done_fn done,
                             void *ctx) {
  const kdf_scrypt_params *ps[KDF_SCRYPT_MAX_LANES];
  int rc[KDF_SCRYPT_MAX_LANES];
  size_t offset = 0;
  for (size_t first = 0; first < n; first += KDF_SCRYPT_MAX_LANES) {
    size_t m = n - first < KDF_SCRYPT_MAX_LANES ? n - first : KDF_SCRYPT_MAX_LANES, size = 0;
    for (size_t i = 0; i < m; i++) {
      ps[i] = &rs[first + i]->params.scrypt;
      size += rs[first + i]->memory;
    }
    if (scratch == NULL || size > scratch_size - offset || offset > scratch_size) {
      for (size_t i = 0; i < m; i++) {
        memset(rs[first + i]->out, 0, rs[first + i]->outlen);
        done(ctx, first + i, STATUS_EINVAL);
      }
      continue;
    }
    kdf_scrypt_lanes(ps, (unsigned)m, rc, scratch + offset, size, stop);
    offset += size;
    for (size_t i = 0; i < m; i++) done(ctx, first + i, rc[i]);
  }
}

void kdf_run_batch(kdf_request *const *rs, size_t n, void *scratch, size_t scratch_size,
                   const volatile int *stop, kdf_done_fn done, void *ctx) {
  int bcrypt = n > 0, scrypt = n > 0;
  for (size_t i = 0; i < n; i++) {
    bcrypt &= rs[i]->alg == KDF_ALG_BCRYPT;
    scrypt &= rs[i]->alg == KDF_ALG_SCRYPT;
  }
  if (bcrypt) {
    run_bcrypt_batch(rs, n, stop, done, ctx);
    return;
  }
  if (scrypt) {
    run_scrypt_batch(rs, n, scratch, scratch_size, stop, done, ctx);
    return;
  }
  const kdf_pbkdf2_params *ps[KDF_PBKDF2_MAX_BATCH];
  for (size_t first = 0; first < n; first += KDF_PBKDF2_MAX_BATCH) {
    size_t m = n - first < KDF_PBKDF2_MAX_BATCH ? n - first : KDF_PBKDF2_MAX_BATCH;
    int pbkdf2 = 1;
    for (size_t i = 0; i < m; i++) {
      pbkdf2 &= rs[first + i]->alg == KDF_ALG_PBKDF2;
      ps[i] = &rs[first + i]->params.pbkdf2;
    }
    if (pbkdf2) {
      kdf_batch_chunk c = { done, ctx, first };
      kdf_pbkdf2_run_batch(ps, m, stop, batch_chunk_done, &c);
      continue;
    }
    /* Nothing else batches: one after another, each in scratch's start. */
    for (size_t i = 0; i < m; i++) {
      kdf_request *r = rs[first + i];
      int rc = r->memory == 0 ? kdf_run(r, NULL, 0, stop)
               : scratch != NULL && r->memory <= scratch_size
                   ? kdf_run(r, scratch, scratch_size, stop)
                   : STATUS_EINVAL;
      done(ctx, first + i, rc);
    }
  }
}

int kdf_force_variant(const char *family, const char *name) {
  if (strcmp(family, "sha") == 0) return kdf_sha_force(name);
  if (strcmp(family, "argon2") == 0) return kdf_argon2_force_variant(name);
  if (strcmp(family, "scrypt") == 0) return kdf_scrypt_force_variant(name);
  if (strcmp(family, "openssl") == 0) return kdf_openssl_force(name);
  return -1;
}

const char *kdf_variant(const char *family) {
  if (strcmp(family, "sha") == 0) return kdf_sha_select()->name;
  if (strcmp(family, "argon2") == 0) return kdf_argon2_variant();
  if (strcmp(family, "scrypt") == 0) return kdf_scrypt_variant();
  if (strcmp(family, "bcrypt") == 0) return "portable"; /* one variant, plain C */
  return NULL;
}
