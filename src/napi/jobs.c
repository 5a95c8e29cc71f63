/* Jobs: their lifetime, and the work functions a pool thread runs. See
 * jobs.h. */
#include "napi/jobs.h"

#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"
#include "napi/args.h"

#include <stdlib.h>
#include <string.h>

job *job_new(env_state *es) {
  /* A kept job is zeroed already (free_job_here() wiped it): no
   * allocation and no memset, which a cheap call otherwise pays for a
   * kilobyte it mostly leaves zero. */
  job *j = env_take_spare(es);
  if (j == NULL && (j = KDF_CALLOC(1, sizeof *j)) == NULL) return NULL;
  env_ref(es);
  j->env = es;
  return j;
}

/* Wipes the job and what it owns, and frees what it owns; returns its
 * environment (NULL if it had none). */
static env_state *wipe_job(job *j) {
  secure_wipe(j->storage, j->storage_len);
  KDF_FREE(j->storage);
  if (j->req.out != NULL && j->req.out != j->out_room) {
    secure_wipe(j->req.out, j->req.outlen);
    KDF_FREE(j->req.out);
  }
  if (j->ticket != NULL) {
    __atomic_store_n(&j->ticket->j, NULL, __ATOMIC_RELEASE);
    ticket_unref(j->ticket);
  }
  env_state *es = j->env;
  secure_wipe(j, sizeof *j);
  return es;
}

void free_job(job *j) {
  env_state *es = wipe_job(j);
  KDF_FREE(j);
  if (es != NULL) env_unref(es);
}

void free_job_here(job *j) {
  env_state *es = wipe_job(j);
  if (es == NULL || !env_keep_spare(es, j)) KDF_FREE(j);
  if (es != NULL) env_unref(es);
}

uint64_t job_reserved(const job *j) {
  const uint64_t memory = j->req.memory, out = j->req.outlen;
  return out > UINT64_MAX - memory ? UINT64_MAX : memory + out;
}

int job_add_ticket(job *j) {
  if ((j->ticket = KDF_CALLOC(1, sizeof *j->ticket)) == NULL) return STATUS_ENOMEM;
  j->ticket->j = j;
  j->ticket->refs = 1;
  return 0;
}

void ticket_ref(ticket *t) { __atomic_add_fetch(&t->refs, 1, __ATOMIC_ACQ_REL); }

void ticket_unref(ticket *t) {
  if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) KDF_FREE(t);
}

void ticket_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ticket_unref(data);
}

/* ---- test builds: who watches the pool threads run ---- */

#ifdef KDFPOOL_TESTING
static run_observer observer; /* atomic: read by every job, unlocked */

void jobs_observe_runs(run_observer fn) { __atomic_store_n(&observer, fn, __ATOMIC_RELEASE); }

static run_observer watching(void) { return __atomic_load_n(&observer, __ATOMIC_ACQUIRE); }
#else
typedef void (*run_observer)(uint64_t start_ns, uint64_t end_ns);
static run_observer watching(void) { return NULL; }
#endif

/* ---- work ---- */

/* Pool thread. Memory-hard jobs borrow the worker's arena: it is kept
 * between jobs, because faulting fresh pages costs more than hashing them
 * (the KDF wipes what it used). */
int job_work(pool_job *base, pool_worker *w) {
  job *j = (job *)base;
  run_observer seen = watching();
  uint64_t start = seen != NULL ? pool_now_ns() : 0;
  int rc = bind_output(&j->req, j->out_room);
  if (rc != 0) return rc;
  size_t size = j->req.memory;
  void *scratch = NULL;
  if (size != 0 && (scratch = pool_worker_arena(w, size)) == NULL) return STATUS_ENOMEM;
  rc = kdf_run(&j->req, scratch, size, pool_worker_stop_flag(w));
  if (seen != NULL) seen(start, pool_now_ns());
  return rc;
}

/* Pool thread: a batch of jobs with one batch key (kdf_batch_key).
 * Each job is reported to the pool the moment the KDF reports it, so a
 * short job settles without waiting for the batch. */
typedef struct {
  pool_worker *w;
  pool_job *jobs[POOL_MAX_BATCH];
  /* The observer (test builds) gets one interval per batch, the thread's
   * occupation, ended just before the last job is reported: the pool gives
   * the worker's host slot back with that report. */
  unsigned left;
  run_observer seen;
  uint64_t start;
} batch_ctx;

static void report(batch_ctx *b, pool_job *job, int status) {
  if (--b->left == 0 && b->seen != NULL) b->seen(b->start, pool_now_ns());
  pool_batch_done(b->w, job, status);
}

static void batch_job_done(void *ctx, size_t i, int status) {
  batch_ctx *b = ctx;
  report(b, b->jobs[i], status);
}

int job_work_batch(pool_job **jobs, unsigned n, pool_worker *w) {
  batch_ctx b = { w, { NULL }, n, watching(), 0 };
  if (b.seen != NULL) b.start = pool_now_ns();
  kdf_request *rs[POOL_MAX_BATCH];
  size_t m = 0;
  for (unsigned i = 0; i < n; i++) {
    job *j = (job *)jobs[i];
    int rc = bind_output(&j->req, j->out_room);
    if (rc != 0) {
      report(&b, jobs[i], rc);
      continue;
    }
    b.jobs[m] = jobs[i];
    rs[m++] = &j->req;
  }
  /* Memory-hard batches (scrypt) share one arena, each job's part after
   * the previous ones'; the pool reserved the sum (batch_collect). */
  size_t size = 0;
  for (size_t i = 0; i < m; i++) size += rs[i]->memory;
  void *scratch = NULL;
  if (size != 0 && (scratch = pool_worker_arena(w, size)) == NULL) {
    for (size_t i = 0; i < m; i++) report(&b, b.jobs[i], STATUS_ENOMEM);
    return STATUS_ENOMEM;
  }
  kdf_run_batch(rs, m, scratch, size, pool_worker_stop_flag(w), batch_job_done, &b);
  /* Never reached with jobs left (kdf_run_batch reports every job); were
   * one left, the pool would report it after we return. */
  if (b.seen != NULL && b.left != 0) b.seen(b.start, pool_now_ns());
  return STATUS_EINVAL; /* never used: kdf_run_batch reports every job */
}

/* Calling thread (a *Sync call), which is the environment's JS thread:
 * scratch comes from the environment's arena, kept for its next call
 * within the bound of pool/arena.h; nothing polls a stop flag. The KDF
 * wipes what it used, as in a pool worker's arena. */
int run_here(env_state *es, kdf_request *r) {
  if (r->memory == 0) return kdf_run(r, NULL, 0, NULL);
  void *scratch = pool_arena_take(&es->sync_arena, r->memory);
  if (scratch == NULL) return STATUS_ENOMEM;
  int rc = kdf_run(r, scratch, r->memory, NULL);
  pool_arena_keep(&es->sync_arena, registry_sync_arena_limit());
  return rc;
}
