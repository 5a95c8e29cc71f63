/* How a job ends: its promise is settled on its environment's JS thread,
 * woken through one threadsafe function per environment; errors are built
 * by lib/'s factory. See binding.h for the lifetime rules. */
#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"
#include "napi/binding.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

void throw_napi_failure(napi_env env, napi_status status) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  const napi_extended_error_info *info = NULL;
  napi_get_last_error_info(env, &info);
  const char *msg =
      info != NULL && info->error_message != NULL ? info->error_message : "Node-API call failed";
  (void)status;
  napi_throw_error(env, "ERR_KDF_INTERNAL", msg);
}

/* A TypeError with code ERR_KDF_INVALID_HANDLE, unless one is pending. */
void throw_type_error_once(napi_env env, const char *msg) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) napi_throw_type_error(env, "ERR_KDF_INVALID_HANDLE", msg);
}

/* Builds the JS error for a status through lib/'s factory, so that every
 * error class and code is decided in one place (lib/errors.js). */
napi_value make_error(napi_env env, env_state *es, int status, const char *detail) {
  napi_value factory, argv[2], result = NULL, global;
  napi_create_int32(env, status, &argv[0]);
  napi_create_string_utf8(env,
                          detail != NULL && detail[0] != '\0' ? detail : status_message(status),
                          NAPI_AUTO_LENGTH, &argv[1]);
  if (es->make_error != NULL &&
      napi_get_reference_value(env, es->make_error, &factory) == napi_ok && factory != NULL) {
    napi_get_global(env, &global);
    if (napi_call_function(env, global, factory, 2, argv, &result) == napi_ok) return result;
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
  }
  /* Only when lib/ has not installed its factory (yet): a code of our own. */
  char name[32];
  napi_value code;
  snprintf(name, sizeof name, "KDF_%s", status_name(status));
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, argv[1], &result);
  return result;
}

/* ---- env_state ---- */

void env_unref(env_state *es) {
  if (__atomic_sub_fetch(&es->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  pthread_mutex_destroy(&es->lock);
  KDF_FREE(es);
}

void ticket_unref(ticket *t) {
  if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) KDF_FREE(t);
}

/* A zeroed job of `es`, holding a reference to it from the start, so that
 * free_job() may drop one on every path. */
job *job_new(env_state *es) {
  job *j = KDF_CALLOC(1, sizeof *j);
  if (j == NULL) return NULL;
  __atomic_add_fetch(&es->refs, 1, __ATOMIC_ACQ_REL);
  j->env = es;
  return j;
}

void free_job(job *j) {
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
  KDF_FREE(j);
  if (es != NULL) env_unref(es);
}

void free_list(job *list) {
  while (list != NULL) {
    job *next = list->next_done;
    free_job(list);
    list = next;
  }
}

/* Pool thread (or the thread that cancelled the job). */
void job_done(pool_job *base, int status) {
  job *j = (job *)base;
  env_state *es = j->env;
  j->status = status;
  j->next_done = NULL;
  pthread_mutex_lock(&es->lock);
  if (es->closed) {
    pthread_mutex_unlock(&es->lock);
    free_job(j);
    return;
  }
  int wake = es->done_head == NULL || es->wake_owed;
  if (es->done_head == NULL)
    es->done_head = j;
  else
    es->done_tail->next_done = j;
  es->done_tail = j;
  /* Under the lock: `closed` cannot flip, so the TSFN is still alive. If
   * the call fails, a wake-up is owed (see env_state); napi_closing means
   * the environment is going away, and its cleanup frees the list. */
  if (wake) {
    napi_status st = KDF_FAULT_POINT(
        "napi_call_threadsafe_function",
        napi_call_threadsafe_function(es->tsfn, NULL, napi_tsfn_nonblocking), napi_generic_failure);
    es->wake_owed = st != napi_ok && st != napi_closing;
  }
  pthread_mutex_unlock(&es->lock);
}

/* ---- the run log (test hook, native.runLog) ---- */

/* Bounded: a test that logs more than this sees `dropped` > 0. */
#define RUN_LOG_MAX 65536
static pthread_mutex_t run_log_lock = PTHREAD_MUTEX_INITIALIZER;
static int run_log_on; /* atomic: read by every job, unlocked */
static uint64_t *run_log;
static size_t run_log_len;
static uint64_t run_log_dropped;

void run_log_enable(int on) { __atomic_store_n(&run_log_on, on, __ATOMIC_RELAXED); }

static void run_log_add(uint64_t start, uint64_t end) {
  pthread_mutex_lock(&run_log_lock);
  if (run_log == NULL) run_log = KDF_MALLOC(sizeof *run_log * 2 * RUN_LOG_MAX);
  if (run_log != NULL && run_log_len < RUN_LOG_MAX) {
    run_log[2 * run_log_len] = start;
    run_log[2 * run_log_len + 1] = end;
    run_log_len++;
  } else {
    run_log_dropped++;
  }
  pthread_mutex_unlock(&run_log_lock);
}

/* Hands the log over (the caller frees *pairs) and starts a new one. */
size_t run_log_take(uint64_t **pairs, uint64_t *dropped) {
  pthread_mutex_lock(&run_log_lock);
  size_t n = run_log_len;
  *pairs = run_log;
  *dropped = run_log_dropped;
  run_log = NULL;
  run_log_len = 0;
  run_log_dropped = 0;
  pthread_mutex_unlock(&run_log_lock);
  return n;
}

/* Pool thread. Memory-hard jobs borrow the worker's arena: it is kept
 * between jobs, because faulting fresh pages costs more than hashing them
 * (the KDF wipes what it used). */
int job_work(pool_job *base, pool_worker *w) {
  job *j = (job *)base;
  int logged = __atomic_load_n(&run_log_on, __ATOMIC_RELAXED);
  uint64_t start = logged ? pool_now_ns() : 0;
  int rc = bind_output(&j->req, j->out_room);
  if (rc != 0) return rc;
  size_t size = j->req.memory;
  void *scratch = NULL;
  if (size != 0 && (scratch = pool_worker_arena(w, size)) == NULL) return STATUS_ENOMEM;
  rc = kdf_run(&j->req, scratch, size, pool_worker_stop_flag(w));
  if (logged) run_log_add(start, pool_now_ns());
  return rc;
}

/* Pool thread: a batch of jobs with one batch key (kdf_batch_key).
 * Each job is reported to the pool the moment the KDF reports it, so a
 * short job settles without waiting for the batch. */
typedef struct {
  pool_worker *w;
  pool_job *jobs[POOL_MAX_BATCH];
  /* The run log (when on) gets one interval per batch, the thread's
   * occupation, ended just before the last job is reported: the pool gives
   * the worker's host slot back with that report. */
  unsigned left;
  int logged;
  uint64_t start;
} batch_ctx;

static void report(batch_ctx *b, pool_job *job, int status) {
  if (--b->left == 0 && b->logged) run_log_add(b->start, pool_now_ns());
  pool_batch_done(b->w, job, status);
}

static void batch_job_done(void *ctx, size_t i, int status) {
  batch_ctx *b = ctx;
  report(b, b->jobs[i], status);
}

int job_work_batch(pool_job **jobs, unsigned n, pool_worker *w) {
  batch_ctx b = { w, { NULL }, n, __atomic_load_n(&run_log_on, __ATOMIC_RELAXED), 0 };
  if (b.logged) b.start = pool_now_ns();
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
  if (b.logged && b.left != 0) run_log_add(b.start, pool_now_ns());
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
  pool_arena_keep(&es->sync_arena, sync_arena_limit());
  return rc;
}

/* Counts a job whose promise is out in JS: while any is, the TSFN keeps the
 * loop alive (like node's own crypto jobs). */
void count_in_flight(napi_env env, env_state *es, job *j) {
  j->counted = 1;
  if (es->in_flight++ == 0) napi_ref_threadsafe_function(env, es->tsfn);
}

/* JS thread: the job's promise no longer keeps the loop alive. */
void uncount_job(napi_env env, env_state *es, job *j) {
  if (!j->counted) return;
  j->counted = 0;
  if (--es->in_flight == 0) napi_unref_threadsafe_function(env, es->tsfn);
}

/* JS thread. Hands up to COMPLETION_CHUNK finished jobs from *list to
 * lib/'s handler in one call, handler(count, extras): small outputs are
 * copied into the shared transfer memory, from which lib/ copies them into
 * fresh Buffers (no allocation, backing store or handle per key here);
 * large outputs, pool-close notices and errors go in the `extras` array.
 * The transfer bytes are wiped as soon as the handler returns, and the
 * chunk's jobs are freed. */
static void deliver_chunk(napi_env env, env_state *es, job **list) {
  napi_handle_scope scope;
  job *first = *list, *j = first;
  unsigned n = 0;
  size_t used = 0;
  napi_value extras = NULL, handler = NULL;
  int ok = napi_open_handle_scope(env, &scope) == napi_ok;
  int opened = ok;
  if (ok && (es->on_done == NULL || es->meta == NULL ||
             napi_get_reference_value(env, es->on_done, &handler) != napi_ok || handler == NULL))
    ok = 0;
  for (; j != NULL && n < COMPLETION_CHUNK; j = j->next_done, n++) {
    uint32_t kind = COMPLETION_BYTES;
    size_t len = j->req.outlen;
    napi_value value = NULL;
    if (ok && j->status == 0 && !j->resolves_undefined && len <= INLINE_OUTPUT_MAX) {
      if (used + len > TRANSFER_BYTES) break; /* the next chunk takes it */
      memcpy(es->transfer + used, j->req.out, len);
      used += len;
    } else if (ok && j->status == 0 && j->resolves_undefined) {
      kind = COMPLETION_VALUE;
      len = 0;
      napi_get_undefined(env, &value);
    } else if (ok && j->status == 0 &&
               napi_create_buffer_copy(env, len, j->req.out, NULL, &value) == napi_ok) {
      kind = COMPLETION_VALUE;
    } else if (ok) {
      kind = COMPLETION_ERROR;
      len = 0;
      value = make_error(env, es, j->status == 0 ? STATUS_ENOMEM : j->status, j->req.error);
    }
    uncount_job(env, es, j);
    if (!ok) continue;
    if (value != NULL && extras == NULL && napi_create_array(env, &extras) != napi_ok)
      extras = NULL;
    if (value != NULL && extras != NULL) napi_set_element(env, extras, n, value);
    es->meta[3 * n] = j->id;
    es->meta[3 * n + 1] = kind;
    es->meta[3 * n + 2] = (uint32_t)len;
  }
  *list = j;
  if (ok && n != 0) {
    napi_value argv[2], global, ignored;
    napi_create_uint32(env, n, &argv[0]);
    if (extras != NULL)
      argv[1] = extras;
    else
      napi_get_undefined(env, &argv[1]);
    napi_get_global(env, &global);
    /* The handler only resolves and rejects; were it to throw (or the
     * environment to be stopping), these jobs are simply dropped. */
    if (napi_call_function(env, global, handler, 2, argv, &ignored) != napi_ok)
      napi_get_and_clear_last_exception(env, &ignored);
  }
  if (used != 0) secure_wipe(es->transfer, used);
  if (opened) napi_close_handle_scope(env, scope);
  while (first != j) {
    job *next = first->next_done;
    free_job(first);
    first = next;
  }
}

/* JS thread, through the TSFN; env is NULL while the environment is being
 * torn down, and then there is nobody left to tell. */
void on_completions(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)data;
  env_state *es = context;
  pthread_mutex_lock(&es->lock);
  job *list = es->done_head, *last = es->done_tail;
  es->done_head = es->done_tail = NULL;
  es->wake_owed = 0; /* the list is empty: the next completion wakes us */
  pthread_mutex_unlock(&es->lock);
  if (env == NULL) {
    free_list(list);
    return;
  }
  /* One chunk per call. Node runs the microtasks after each call, so the
   * calls whose promises this settled can submit their next jobs before
   * the next chunk is handed over: the pool threads get work while the JS
   * thread is still settling, instead of sleeping through a long drain. */
  deliver_chunk(env, es, &list);
  if (list == NULL) return;
  pthread_mutex_lock(&es->lock);
  if (es->closed) { /* the environment is going: nobody is left to tell */
    pthread_mutex_unlock(&es->lock);
    free_list(list);
    return;
  }
  if (es->done_head == NULL) es->done_tail = last;
  last->next_done = es->done_head;
  es->done_head = list;
  napi_status st = napi_call_threadsafe_function(es->tsfn, NULL, napi_tsfn_nonblocking);
  es->wake_owed = st != napi_ok && st != napi_closing;
  pthread_mutex_unlock(&es->lock);
}

/* JS thread, on entry to submit, cancel, closePool and runSync: settles
 * the jobs whose wake-up failed, if no completion has come since. */
void drain_owed(napi_env env, env_state *es) {
  pthread_mutex_lock(&es->lock);
  int owed = es->wake_owed && !es->closed;
  pthread_mutex_unlock(&es->lock);
  if (owed) on_completions(env, NULL, es, NULL);
}

void close_env_state(env_state *es) {
  pthread_mutex_lock(&es->lock);
  es->closed = 1;
  job *list = es->done_head;
  es->done_head = es->done_tail = NULL;
  pthread_mutex_unlock(&es->lock);
  free_list(list);
}

void on_tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  env_state *es = data;
  close_env_state(es);
  env_unref(es);
}
