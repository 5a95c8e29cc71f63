/* How a job ends (see completions.h).
 *
 * Per environment there is one env_state (env.h) with a threadsafe function
 * that wakes the JS thread, and a list of finished jobs. A pool thread that
 * finishes a job appends it to the list of the job's environment and calls
 * the TSFN only when the list was empty, so a burst of completions costs
 * one wake-up. The TSFN is referenced only while the environment has jobs
 * in flight.
 *
 * When the environment goes away (cleanup hook) or the TSFN is finalized,
 * `closed` is set under the env lock; from then on pool threads free
 * finished jobs themselves and never touch the TSFN, which may already be
 * gone. Queued jobs of a departing environment are cancelled; its running
 * jobs keep their pool slot until they end, then are freed unseen. */
#include "napi/completions.h"

#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"
#include "napi/args.h"
#include "napi/record.h"

#include <string.h>

/* What lib/'s completion handler reads, per call: up to COMPLETION_CHUNK
 * jobs as (id, kind, length, wait_us, run_us) in `meta`, and the outputs
 * of the COMPLETION_BYTES kind in `transfer`, one after another (at most
 * TRANSFER_BYTES, wiped when the handler returns). wait_us and run_us are
 * the job's time in the queue and on a thread (what tracing and metrics
 * report per job); NOT_RUN_US for a job that never started. */
#define COMPLETION_CHUNK 64
#define TRANSFER_BYTES   (64 * INLINE_OUTPUT_MAX)
#define META_WORDS       5
#define META_BYTES       (COMPLETION_CHUNK * META_WORDS * sizeof(uint32_t))
#define NOT_RUN_US       UINT32_MAX
enum completion_kind {
  COMPLETION_BYTES = 0,  /* resolve with a copy of the next `length` bytes of transfer */
  COMPLETION_VALUE = 1,  /* resolve with extras[i] (a large Buffer, or undefined) */
  COMPLETION_ERROR = 2,  /* reject with the error made from extras[i], a record (record.h) */
  COMPLETION_DROPPED = 3 /* its call settled when aborted; the output was wiped unseen */
};

static void free_list(job *list) {
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
  /* The pool is alive now (it calls us), maybe not when the JS thread
   * builds the record: take the budget that dropped the job here. */
  if (status == STATUS_EMEMLIMIT && j->pool != NULL) j->budget = pool_max_memory(j->pool);
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
    __atomic_store_n(&es->wake_owed, st != napi_ok && st != napi_closing, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&es->lock);
}

/* Counts a job whose promise is out in JS: while any is, the TSFN keeps the
 * loop alive (like node's own crypto jobs). */
void count_in_flight(napi_env env, env_state *es, job *j) {
  j->counted = 1;
  if (es->in_flight++ == 0) napi_ref_threadsafe_function(env, es->tsfn);
}

void uncount_job(napi_env env, env_state *es, job *j) {
  if (!j->counted) return;
  j->counted = 0;
  if (--es->in_flight == 0) napi_unref_threadsafe_function(env, es->tsfn);
}

/* A failed job's record. Without words of its own, a job that failed as it
 * ran carries its status's text (status_message). */
static napi_value failure(napi_env env, const job *j) {
  int status = j->status == 0 ? STATUS_ENOMEM : j->status;
  record_info info = { status,
                       j->req.error[0] != '\0' ? j->req.error : status_message(status),
                       NULL,
                       job_reserved(j),
                       j->budget,
                       j->base.retry_after_ns,
                       j->base.retry_after_s };
  return make_record(env, &info);
}

/* ns -> us, saturating below NOT_RUN_US (a wait of 71 minutes reads as that). */
static uint32_t micros(uint64_t ns) {
  uint64_t us = ns / 1000;
  return us < NOT_RUN_US ? (uint32_t)us : NOT_RUN_US - 1;
}

/* JS thread. Hands up to COMPLETION_CHUNK finished jobs from *list to
 * lib/'s handler in one call, handler(count, extras): small outputs are
 * copied into the shared transfer memory, from which lib/ copies them into
 * fresh Buffers (no allocation, backing store or handle per key here);
 * large outputs, pool-close notices and failures' records go in the
 * `extras` array. The transfer bytes are wiped as soon as the handler
 * returns, and the chunk's jobs are freed. */
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
    if (ok && j->dropped) {
      /* Aborted while it ran: lib/ settled its call already. The key is
       * never copied into JS memory, where nothing would wipe it; free_job
       * wipes it here. */
      kind = COMPLETION_DROPPED;
      len = 0;
    } else if (ok && j->status == 0 && !j->resolves_undefined && len <= INLINE_OUTPUT_MAX) {
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
      value = failure(env, j);
      if (value == NULL) { /* lib/ then rejects with an internal error */
        napi_value ignored;
        napi_get_and_clear_last_exception(env, &ignored);
      }
    }
    uncount_job(env, es, j);
    if (!ok) continue;
    if (value != NULL && extras == NULL && napi_create_array(env, &extras) != napi_ok)
      extras = NULL;
    if (value != NULL && extras != NULL) napi_set_element(env, extras, n, value);
    uint32_t *m = es->meta + META_WORDS * n;
    m[0] = j->id;
    m[1] = kind;
    m[2] = (uint32_t)len;
    m[3] = j->base.started_ns != 0 ? micros(j->base.started_ns - j->base.queued_ns) : NOT_RUN_US;
    m[4] = j->base.started_ns != 0 ? micros(j->base.finished_ns - j->base.started_ns) : NOT_RUN_US;
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
    free_job_here(first);
    first = next;
  }
}

/* JS thread, through the TSFN; env is NULL while the environment is being
 * torn down, and then there is nobody left to tell. */
static void on_completions(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)data;
  env_state *es = context;
  pthread_mutex_lock(&es->lock);
  job *list = es->done_head, *last = es->done_tail;
  es->done_head = es->done_tail = NULL;
  __atomic_store_n(&es->wake_owed, 0,
                   __ATOMIC_RELAXED); /* the list is empty: the next completion wakes us */
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
  __atomic_store_n(&es->wake_owed, st != napi_ok && st != napi_closing, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&es->lock);
}

void drain_owed(napi_env env, env_state *es) {
  /* Every submit comes here: the lock, which each completion takes too,
   * only when a wake-up is owed (rare; what the lock then reads decides). */
  if (!__atomic_load_n(&es->wake_owed, __ATOMIC_RELAXED)) return;
  pthread_mutex_lock(&es->lock);
  int owed = es->wake_owed && !es->closed;
  pthread_mutex_unlock(&es->lock);
  if (owed) on_completions(env, NULL, es, NULL);
}

void completions_close(env_state *es) {
  pthread_mutex_lock(&es->lock);
  es->closed = 1;
  job *list = es->done_head;
  es->done_head = es->done_tail = NULL;
  pthread_mutex_unlock(&es->lock);
  free_list(list);
}

int completions_closed(env_state *es) {
  pthread_mutex_lock(&es->lock);
  int closed = es->closed;
  pthread_mutex_unlock(&es->lock);
  return closed;
}

static void on_tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  env_state *es = data;
  completions_close(es);
  env_unref(es);
}

napi_value completions_start(napi_env env, env_state *es) {
  napi_value name, result;
  NAPI_CALL(env, napi_create_string_utf8(env, "kdfpool completions", NAPI_AUTO_LENGTH, &name),
            NULL);
  NAPI_CALL(env,
            napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, es, on_tsfn_finalize, es,
                                            on_completions, &es->tsfn),
            NULL);
  NAPI_CALL(env, napi_unref_threadsafe_function(env, es->tsfn), NULL);
  NAPI_CALL(env, napi_get_undefined(env, &result), NULL);
  return result;
}

napi_value completions_set_handler(napi_env env, env_state *es, napi_value fn) {
  napi_value shared;
  if (es->on_done != NULL) napi_delete_reference(env, es->on_done);
  es->on_done = NULL;
  NAPI_CALL(env, napi_create_reference(env, fn, 1, &es->on_done), NULL);
  if (es->shared_ref == NULL) {
    void *data = NULL;
    NAPI_CALL(env, napi_create_arraybuffer(env, META_BYTES + TRANSFER_BYTES, &data, &shared), NULL);
    NAPI_CALL(env, napi_create_reference(env, shared, 1, &es->shared_ref), NULL);
    es->meta = data;
    es->transfer = (uint8_t *)data + META_BYTES;
  } else {
    NAPI_CALL(env, napi_get_reference_value(env, es->shared_ref, &shared), NULL);
  }
  return shared;
}

void completions_forget_handler(napi_env env, env_state *es) {
  if (es->on_done != NULL) napi_delete_reference(env, es->on_done);
  es->on_done = NULL;
  if (es->shared_ref != NULL) napi_delete_reference(env, es->shared_ref);
  es->shared_ref = NULL;
  es->meta = NULL;
  es->transfer = NULL;
}
