/* A KDF job as the pool runs it: its inputs, its output, its cancel ticket,
 * and the work functions a pool thread calls (see jobs.c). */
#ifndef NAPI_JOBS_H
#define NAPI_JOBS_H

#include "kdf/kdf.h"
#include "napi/env.h"
#include "napi/registry.h"
#include "pool/pool.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ticket ticket;

typedef struct job {
  pool_job base; /* first: the pool hands back a pool_job* */
  kdf_request req;
  env_state *env; /* holds a reference from job_new() to free_job() */
  pool *pool;
  pool_handle *handle; /* for cancel: is the pool still open? */
  uint32_t id;         /* lib/'s number for the promise this job settles */
  int status;
  uint64_t budget;        /* the pool's maxMemory when it dropped the job (STATUS_EMEMLIMIT) */
  int counted;            /* counted in env->in_flight (JS thread only) */
  int resolves_undefined; /* not a KDF: a pool-close notice, a test's gate */
  int dropped;            /* aborted as it ran: its output goes to nobody (JS thread) */
  ticket *ticket;         /* set when the caller may cancel (AbortSignal) */
  struct job *next_done;
  uint8_t *storage; /* the inputs (and a small output), one allocation, wiped on free */
  size_t storage_len;
  /* req.out: in `storage` (out_room) when small; otherwise allocated when
   * the job starts to run (a queued job holds only its inputs), wiped and
   * freed with the job. */
  uint8_t *out_room;
} job;

/* What JS holds to act on a job: it outlives the job (the JS object may be
 * collected later), so the job clears `j` when it is freed. Both sides hold
 * a reference. Used on the JS thread only, except that a job freed during
 * environment teardown drops its reference from a pool thread. */
struct ticket {
  job *j;
  int refs; /* atomic */
};

/* A zeroed job of `es`, holding a reference to it from the start, so that
 * free_job() may drop one on every path. NULL when out of memory. */
job *job_new(env_state *es);
/* Wipes and frees the job, its inputs and output; clears its ticket. Any
 * thread. */
void free_job(job *j);
/* The same on the JS thread of the job's environment, while it is open:
 * the wiped job is kept for the next job_new() (env_keep_spare). */
void free_job_here(job *j);
/* Bytes the job reserves from its pool's budget while it runs: its scratch
 * memory plus its output (saturating; such a sum is refused anyway). */
uint64_t job_reserved(const job *j);
/* Gives the job a ticket (one reference, the job's); STATUS_ENOMEM. */
int job_add_ticket(job *j);
void ticket_ref(ticket *t);
void ticket_unref(ticket *t);
/* The finalizer of a ticket's JS handle: drops JS's reference. */
void ticket_finalize(napi_env env, void *data, void *hint);

/* Pool thread: runs the job's KDF (pool_job.work). */
int job_work(pool_job *base, pool_worker *w);
/* Pool thread: runs a batch of jobs with one batch key (pool_job.work_batch). */
int job_work_batch(pool_job **jobs, unsigned n, pool_worker *w);
/* The environment's JS thread (a *Sync call): runs a prepared request with
 * the environment's arena as scratch. */
int run_here(env_state *es, kdf_request *r);

#ifdef KDFPOOL_TESTING
/* Test builds: `fn` (NULL: none) is told the interval (pool_now_ns()) of
 * every job, or batch, that a pool thread runs from now on. */
typedef void (*run_observer)(uint64_t start_ns, uint64_t end_ns);
void jobs_observe_runs(run_observer fn);
#endif

#endif
