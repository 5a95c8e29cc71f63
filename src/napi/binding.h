/* Node-API glue, shared by the files of src/napi/ (the only code that
 * includes node_api.h). It knows nothing of algorithms: it copies the
 * caller's bytes and numbers into a kdf_request, submits a job to a pool,
 * and settles the job's promise on the JS thread.
 *
 * Per environment (main thread and each worker_thread) there is one
 * env_state: a threadsafe function (TSFN) that wakes the JS thread, and a
 * list of finished jobs. A pool thread that finishes a job appends it to the
 * list of the job's environment and calls the TSFN only when the list was
 * empty, so a burst of completions costs one wake-up. The TSFN is referenced
 * only while the environment has jobs in flight, so an idle pool never keeps
 * the process alive.
 *
 * Lifetime. An env_state is shared by its environment, its TSFN and every
 * job it submitted that has not been freed (a reference count). When the
 * environment goes away (cleanup hook) or the TSFN is finalized, `closed`
 * is set under the env lock; from then on pool threads free finished jobs
 * themselves and never touch the TSFN, which may already be gone. Queued
 * jobs of a departing environment are cancelled; its running jobs keep
 * their pool slot until they end, then are freed unseen.
 */
#ifndef NAPI_BINDING_H
#define NAPI_BINDING_H

#define NAPI_VERSION 8
#include "kdf/kdf.h"
#include "pool/arena.h"
#include "pool/pool.h"

#include <node_api.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define NAPI_CALL(env, call, fail_value)  \
  do {                                    \
    napi_status status_ = (call);         \
    if (status_ != napi_ok) {             \
      throw_napi_failure((env), status_); \
      return (fail_value);                \
    }                                     \
  } while (0)

/* Outputs up to this many bytes live in the job's input allocation, and
 * reach JS through the shared transfer memory (completions.c). */
#define INLINE_OUTPUT_MAX 256

typedef struct env_state env_state;
typedef struct ticket ticket;

typedef struct job {
  pool_job base; /* first: the pool hands back a pool_job* */
  kdf_request req;
  env_state *env;
  pool *pool;
  struct pool_handle *handle; /* for cancel: is the pool still open? */
  uint32_t id;                /* lib/'s number for the promise this job settles */
  int status;
  int counted;            /* counted in env->in_flight (JS thread only) */
  int resolves_undefined; /* a pool-close notification, not a KDF */
  ticket *ticket;         /* set when the caller may cancel (AbortSignal) */
  struct job *next_done;
  uint8_t *storage; /* the inputs (and a small output), one allocation, wiped on free */
  size_t storage_len;
  /* req.out: in `storage` (out_room) when small; otherwise allocated when
   * the job starts to run (a queued job holds only its inputs), wiped and
   * freed with the job. */
  uint8_t *out_room;
} job;

/* What JS holds to cancel a job: it outlives the job (the JS object may be
 * collected later), so the job clears `j` when it is freed. Both sides hold
 * a reference. Used on the JS thread only, except that a job freed during
 * environment teardown drops its reference from a pool thread. */
struct ticket {
  job *j;
  int refs; /* atomic */
};

struct env_state {
  pthread_mutex_t lock; /* guards closed, wake_owed and the finished list */
  int closed;
  /* A wake-up of the JS thread failed while the list was non-empty: the
   * next completion calls the TSFN even though the list is not empty, and
   * the JS thread drains the list on its next call into us. */
  int wake_owed;
  job *done_head, *done_tail;
  int refs; /* atomic: environment + TSFN + unfreed jobs */
  napi_threadsafe_function tsfn;
  /* JS thread only: */
  unsigned in_flight;
  napi_ref make_error;
  /* lib/'s completion handler and the memory it reads finished jobs from
   * (see completions.c): one ArrayBuffer, `meta` then `transfer`. */
  napi_ref on_done;
  napi_ref shared_ref;
  uint32_t *meta;
  uint8_t *transfer;
  /* Scratch of this environment's *Sync calls, kept between them; dropped
   * by releaseSyncArena() (lib/'s idle timer) and at environment teardown. */
  pool_arena sync_arena;
};

/* A pool as JS sees it: the default one, or one from createPool(). */
typedef struct pool_handle {
  pool *p;
  env_state *owner; /* NULL for the process-wide default pool */
  int closed;       /* close begun, `p` no longer usable; owner's JS thread only */
} pool_handle;

/* Every live pool, for the exit handler, with its handle for pools made by
 * createPool() (so an environment can close the pools it made). */
typedef struct {
  pool *p;
  pool_handle *handle; /* NULL for the default pool, or once collected */
  env_state *owner;
} registry_entry;

/* Handles given to JS are externals with a type tag, checked on every
 * entry that takes one: a ticket passed as a pool, or a forged object,
 * is a TypeError (ERR_KDF_INVALID_HANDLE), never a wild pointer. */
extern const napi_type_tag POOL_HANDLE_TAG;
extern const napi_type_tag TICKET_TAG;

/* ---- registry.c: process-wide pools, exit handler, closing pools ---- */

/* Guards g_default, g_pools and g_exiting. */
extern pthread_mutex_t g_lock;
extern pool_handle g_default;
extern registry_entry *g_pools;
extern size_t g_pools_len, g_pools_cap;
extern int g_exiting;
extern pthread_once_t g_atexit_once;

void register_atexit(void);
int registry_add(pool *p, pool_handle *handle, env_state *owner);
void registry_remove(pool *p);
void registry_forget_handle(const pool_handle *h);
int default_pool_made(pool_handle **out, const pool_options *o, int *created);
int default_pool(pool_handle **out, const pool_options *o);
int close_pool_handle(pool_handle *h, job *notify);
void on_env_cleanup(void *arg);
uint64_t sync_arena_limit(void);

/* ---- completions.c: errors, job lifetime, the TSFN ---- */

void throw_napi_failure(napi_env env, napi_status status);
void throw_type_error_once(napi_env env, const char *msg);
napi_value make_error(napi_env env, env_state *es, int status, const char *detail);
void env_unref(env_state *es);
void ticket_unref(ticket *t);
job *job_new(env_state *es);
void free_job(job *j);
void drain_owed(napi_env env, env_state *es);
void free_list(job *list);
void job_done(pool_job *base, int status);
int job_work(pool_job *base, pool_worker *w);
int job_work_batch(pool_job **jobs, unsigned n, pool_worker *w);
/* Test hook (native.runLog): while on, the interval of every job or batch
 * a pool thread runs is logged. */
void run_log_enable(int on);
size_t run_log_take(uint64_t **pairs, uint64_t *dropped);
int run_here(env_state *es, kdf_request *r);
void count_in_flight(napi_env env, env_state *es, job *j);
void uncount_job(napi_env env, env_state *es, job *j);
/* What lib/'s completion handler reads, per call: up to COMPLETION_CHUNK
 * jobs as (id, kind, length) in `meta`, and the outputs of the
 * COMPLETION_BYTES kind in `transfer`, one after another (at most
 * TRANSFER_BYTES, wiped when the handler returns). */
#define COMPLETION_CHUNK 64
#define TRANSFER_BYTES   (64 * INLINE_OUTPUT_MAX)
#define SHARED_BYTES     (COMPLETION_CHUNK * 3 * sizeof(uint32_t) + TRANSFER_BYTES)
enum completion_kind {
  COMPLETION_BYTES = 0, /* resolve with a copy of the next `length` bytes of transfer */
  COMPLETION_VALUE = 1, /* resolve with extras[i] (a large Buffer, or undefined) */
  COMPLETION_ERROR = 2  /* reject with extras[i] */
};
void on_completions(napi_env env, napi_value js_cb, void *context, void *data);
void close_env_state(env_state *es);
void on_tsfn_finalize(napi_env env, void *data, void *hint);

#ifdef KDFPOOL_FAULTS
/* ---- faults.c (fault builds only): native.faults ---- */
napi_value make_faults(napi_env env);
#endif

/* ---- args.c: unpacking what lib/ passes ---- */

env_state *get_env_state(napi_env env);
env_state *js_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
                   const char *fn);
napi_value make_handle(napi_env env, void *data, napi_finalize finalize, const napi_type_tag *tag);
void *get_handle(napi_env env, napi_value v, const napi_type_tag *tag, const char *what);
pool_handle *get_pool(napi_env env, napi_value v, int *rc);
int get_u64(napi_env env, napi_value v, uint64_t *out);
int get_bytes(napi_env env, napi_value v, const uint8_t **data, size_t *len);
int build_request(napi_env env, napi_value *argv, kdf_request *r, uint8_t **storage,
                  size_t *storage_len);
int prepare_request(kdf_request *r);
uint8_t *inline_output(const kdf_request *r, uint8_t *storage, size_t storage_len);
int bind_output(kdf_request *r, uint8_t *room);
int get_opt_u64(napi_env env, napi_value obj, const char *key, uint64_t *out);
/* Room for the strings a pool_options points to, which must outlive the
 * pool_create()/pool_reconfigure() call (the pool copies them). */
typedef struct {
  char host_dir[4096];
  char host_key[POOL_HOST_KEY_MAX + 2]; /* + 1: a longer key shows as one that fills it */
} pool_option_text;
int read_pool_options(napi_env env, napi_value obj, pool_options *o, pool_option_text *text);

#endif
