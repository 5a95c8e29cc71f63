/* Node-API glue: the only file that includes node_api.h. It knows nothing of
 * algorithms: it copies the caller's bytes and numbers into a kdf_request,
 * submits a job to a pool, and settles the job's promise on the JS thread.
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
 *
 * Process exit. OpenSSL tears itself down in an atexit handler registered
 * when node started. Ours is registered later, so it runs first: it stops
 * and joins every pool thread, so none is inside OpenSSL during its cleanup.
 *
 * Never napi_create_async_work or uv_queue_work: those run on libuv's
 * thread pool, the one this project exists to keep free. */
#define NAPI_VERSION 8
#include <node_api.h>

#include "kdf/kdf.h"
#include "common/status.h"
#include "common/wipe.h"
#include "pool/pool.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAPI_CALL(env, call, fail_value)                                   \
  do {                                                                     \
    napi_status status_ = (call);                                          \
    if (status_ != napi_ok) {                                              \
      throw_napi_failure((env), status_);                                  \
      return (fail_value);                                                 \
    }                                                                      \
  } while (0)

typedef struct env_state env_state;
typedef struct ticket ticket;

typedef struct job {
  pool_job base; /* first: the pool hands back a pool_job* */
  kdf_request req;
  env_state *env;
  pool *pool;
  struct pool_handle *handle; /* for cancel: is the pool still open? */
  napi_deferred deferred;
  int status;
  int counted;            /* counted in env->in_flight (JS thread only) */
  int resolves_undefined; /* a pool-close notification, not a KDF */
  ticket *ticket;         /* set when the caller may cancel (AbortSignal) */
  struct job *next_done;
  uint8_t *storage; /* inputs then output, one allocation, wiped on free */
  size_t storage_len;
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
  pthread_mutex_t lock; /* guards closed and the finished list */
  int closed;
  job *done_head, *done_tail;
  int refs; /* atomic: environment + TSFN + unfreed jobs */
  napi_threadsafe_function tsfn;
  /* JS thread only: */
  unsigned in_flight;
  napi_ref make_error;
};

/* A pool as JS sees it: the default one, or one from createPool(). */
typedef struct pool_handle {
  pool *p;
  env_state *owner; /* NULL for the process-wide default pool */
  int closed;       /* close begun, `p` no longer usable; owner's JS thread only */
} pool_handle;

/* ---- process-wide state ---- */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_handle g_default;
/* Every live pool, for the exit handler, with its handle for pools made by
 * createPool() (so an environment can close the pools it made). */
typedef struct {
  pool *p;
  pool_handle *handle; /* NULL for the default pool, or once collected */
  env_state *owner;
} registry_entry;
static registry_entry *g_pools;
static size_t g_pools_len, g_pools_cap;
static int g_exiting;
static pthread_once_t g_atexit_once = PTHREAD_ONCE_INIT;

static void stop_all_pools_at_exit(void) {
  pthread_mutex_lock(&g_lock);
  g_exiting = 1;
  for (size_t i = 0; i < g_pools_len; i++) pool_stop_for_exit(g_pools[i].p);
  pthread_mutex_unlock(&g_lock);
}

static void register_atexit(void) { atexit(stop_all_pools_at_exit); }

/* g_lock held. */
static int registry_add(pool *p, pool_handle *handle, env_state *owner) {
  if (g_pools_len == g_pools_cap) {
    size_t cap = g_pools_cap ? g_pools_cap * 2 : 8;
    registry_entry *grown = realloc(g_pools, cap * sizeof *grown);
    if (grown == NULL) return STATUS_ENOMEM;
    g_pools = grown;
    g_pools_cap = cap;
  }
  g_pools[g_pools_len].p = p;
  g_pools[g_pools_len].handle = handle;
  g_pools[g_pools_len].owner = owner;
  g_pools_len++;
  return 0;
}

static void registry_remove(pool *p) {
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_pools_len; i++) {
    if (g_pools[i].p == p) {
      g_pools[i] = g_pools[--g_pools_len];
      break;
    }
  }
  pthread_mutex_unlock(&g_lock);
}

/* The handle is about to be freed: the registry must not point at it. */
static void registry_forget_handle(const pool_handle *h) {
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_pools_len; i++)
    if (g_pools[i].handle == h) g_pools[i].handle = NULL;
  pthread_mutex_unlock(&g_lock);
}

/* The default pool, created on first use (or by configure()). *created
 * tells whether this call made it (with the options `o`). */
static int default_pool_made(pool_handle **out, const pool_options *o, int *created) {
  pthread_mutex_lock(&g_lock);
  int rc = 0;
  *created = 0;
  if (g_default.p == NULL) {
    *created = 1;
    pool_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (o != NULL) defaults = *o;
    defaults.name = "default";
    if (g_exiting) rc = STATUS_ECLOSED;
    else rc = pool_create(&g_default.p, &defaults);
    if (rc == 0 && (rc = registry_add(g_default.p, NULL, NULL)) != 0) {
      pool_destroy(g_default.p);
      g_default.p = NULL;
    }
  }
  pthread_mutex_unlock(&g_lock);
  *out = rc == 0 ? &g_default : NULL;
  return rc;
}

static int default_pool(pool_handle **out, const pool_options *o) {
  int created;
  return default_pool_made(out, o, &created);
}

/* ---- errors ---- */

static void throw_napi_failure(napi_env env, napi_status status) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  const napi_extended_error_info *info = NULL;
  napi_get_last_error_info(env, &info);
  const char *msg = info != NULL && info->error_message != NULL ? info->error_message
                                                                 : "Node-API call failed";
  (void)status;
  napi_throw_error(env, "ERR_KDF_INTERNAL", msg);
}

/* Builds the JS error for a status through lib/'s factory, so that every
 * error class and code is decided in one place (lib/errors.js). */
static napi_value make_error(napi_env env, env_state *es, int status, const char *detail) {
  napi_value factory, argv[2], result = NULL, global;
  napi_create_int32(env, status, &argv[0]);
  napi_create_string_utf8(env, detail != NULL && detail[0] != '\0' ? detail : status_message(status),
                          NAPI_AUTO_LENGTH, &argv[1]);
  if (es->make_error != NULL && napi_get_reference_value(env, es->make_error, &factory) == napi_ok &&
      factory != NULL) {
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

static void env_unref(env_state *es) {
  if (__atomic_sub_fetch(&es->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  pthread_mutex_destroy(&es->lock);
  free(es);
}

static void ticket_unref(ticket *t) {
  if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0) free(t);
}

static void free_job(job *j) {
  secure_wipe(j->storage, j->storage_len);
  free(j->storage);
  if (j->ticket != NULL) {
    __atomic_store_n(&j->ticket->j, NULL, __ATOMIC_RELEASE);
    ticket_unref(j->ticket);
  }
  env_state *es = j->env;
  secure_wipe(j, sizeof *j);
  free(j);
  if (es != NULL) env_unref(es);
}

static void free_list(job *list) {
  while (list != NULL) {
    job *next = list->next_done;
    free_job(list);
    list = next;
  }
}

/* Pool thread (or the thread that cancelled the job). */
static void job_done(pool_job *base, int status) {
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
  int was_empty = es->done_head == NULL;
  if (was_empty) es->done_head = j; else es->done_tail->next_done = j;
  es->done_tail = j;
  /* Under the lock: `closed` cannot flip, so the TSFN is still alive. */
  if (was_empty) napi_call_threadsafe_function(es->tsfn, NULL, napi_tsfn_nonblocking);
  pthread_mutex_unlock(&es->lock);
}

/* Pool thread. Memory-hard jobs borrow the worker's arena: it is kept
 * between jobs, because faulting fresh pages costs more than hashing them
 * (the KDF wipes what it used). */
static int job_work(pool_job *base, pool_worker *w) {
  job *j = (job *)base;
  size_t size = j->req.memory;
  void *scratch = NULL;
  if (size != 0 && (scratch = pool_worker_arena(w, size)) == NULL) return STATUS_ENOMEM;
  return kdf_run(&j->req, scratch, size, pool_worker_stop_flag(w));
}

/* Calling thread: scratch is allocated for this one run and freed (already
 * wiped by the KDF); nothing polls a stop flag. */
static int run_here(kdf_request *r) {
  void *scratch = NULL;
  if (r->memory != 0 && posix_memalign(&scratch, 64, r->memory) != 0) return STATUS_ENOMEM;
  int rc = kdf_run(r, scratch, r->memory, NULL);
  free(scratch);
  return rc;
}

/* Counts a job whose promise is out in JS: while any is, the TSFN keeps the
 * loop alive (like node's own crypto jobs). */
static void count_in_flight(napi_env env, env_state *es, job *j) {
  j->counted = 1;
  if (es->in_flight++ == 0) napi_ref_threadsafe_function(env, es->tsfn);
}

static void settle(napi_env env, env_state *es, job *j) {
  if (j->counted) {
    j->counted = 0;
    if (--es->in_flight == 0) napi_unref_threadsafe_function(env, es->tsfn);
  }
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  if (j->deferred != NULL) {
    napi_value value;
    if (j->status == 0 && j->resolves_undefined) {
      napi_get_undefined(env, &value);
      napi_resolve_deferred(env, j->deferred, value);
    } else if (j->status == 0 &&
               napi_create_buffer_copy(env, j->req.outlen, j->req.out, NULL, &value) == napi_ok) {
      napi_resolve_deferred(env, j->deferred, value);
    } else {
      int status = j->status == 0 ? STATUS_ENOMEM : j->status;
      napi_reject_deferred(env, j->deferred, make_error(env, es, status, j->req.error));
    }
    j->deferred = NULL;
  }
  napi_close_handle_scope(env, scope);
}

/* JS thread, through the TSFN; env is NULL while the environment is being
 * torn down, and then there is nobody left to tell. */
static void on_completions(napi_env env, napi_value js_cb, void *context, void *data) {
  (void)js_cb;
  (void)data;
  env_state *es = context;
  pthread_mutex_lock(&es->lock);
  job *list = es->done_head;
  es->done_head = es->done_tail = NULL;
  pthread_mutex_unlock(&es->lock);
  while (list != NULL) {
    job *next = list->next_done;
    if (env != NULL) settle(env, es, list);
    free_job(list);
    list = next;
  }
}

static void close_env_state(env_state *es) {
  pthread_mutex_lock(&es->lock);
  es->closed = 1;
  job *list = es->done_head;
  es->done_head = es->done_tail = NULL;
  pthread_mutex_unlock(&es->lock);
  free_list(list);
}

static void on_tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  env_state *es = data;
  close_env_state(es);
  env_unref(es);
}

/* ---- closing pools made by createPool() ---- */

typedef struct {
  pool *p;
  job *notify; /* resolved once the threads are gone; may be NULL */
} closer_arg;

static void close_now(pool *p, job *notify) {
  pool_close(p);
  registry_remove(p);
  pool_free(p);
  if (notify != NULL) job_done(&notify->base, 0);
}

/* Joins on a thread of its own: a running job may take a while to finish,
 * and the JS thread must not wait for it. */
static void *closer_main(void *arg) {
  closer_arg c = *(closer_arg *)arg;
  free(arg);
  close_now(c.p, c.notify);
  return NULL;
}

/* JS thread of the pool's owner. */
static int close_pool_handle(pool_handle *h, job *notify) {
  if (h->closed) return STATUS_ECLOSED;
  h->closed = 1;
  closer_arg *c = malloc(sizeof *c);
  pthread_attr_t attr;
  pthread_t thread;
  int started = 0;
  if (c != NULL && pthread_attr_init(&attr) == 0) {
    c->p = h->p;
    c->notify = notify;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    started = pthread_create(&thread, &attr, closer_main, c) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
  }
  if (!started) {
    /* No thread to spare: close here, blocking, rather than not at all. */
    free(c);
    close_now(h->p, notify);
  }
  return 0;
}

/* The environment is going away (worker terminated, or normal exit). */
static void on_env_cleanup(void *arg) {
  env_state *es = arg;
  close_env_state(es);
  /* Close the pools this environment made; nobody is left to use them. */
  for (;;) {
    pool_handle *h = NULL;
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < g_pools_len && h == NULL; i++)
      if (g_pools[i].owner == es && g_pools[i].handle != NULL && !g_pools[i].handle->closed)
        h = g_pools[i].handle;
    pthread_mutex_unlock(&g_lock);
    if (h == NULL) break;
    close_pool_handle(h, NULL);
  }
  /* Its waiting jobs will never be wanted: take them out of the shared
   * queue (their done() sees `closed` and frees them). */
  pthread_mutex_lock(&g_lock);
  pool *shared = g_default.p;
  pthread_mutex_unlock(&g_lock);
  if (shared != NULL) pool_cancel_owner(shared, es);
}

/* ---- argument helpers ---- */

static env_state *get_env_state(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok || data == NULL) {
    napi_throw_error(env, "ERR_KDF_INTERNAL", "kdfpool is not initialised in this environment");
    return NULL;
  }
  return data;
}

/* The `n` arguments of an internal function called by lib/ (it always
 * passes them all), and this environment's state; NULL with an exception
 * pending otherwise. */
static env_state *js_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
                          const char *fn) {
  size_t argc = n;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  env_state *es = get_env_state(env);
  if (es != NULL && argc < n) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s() takes %zu arguments", fn, n);
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", msg);
    return NULL;
  }
  return es;
}

/* Pool handle from a JS value: null/undefined = the default pool. */
static pool_handle *get_pool(napi_env env, napi_value v, int *rc) {
  napi_valuetype t;
  *rc = 0;
  if (napi_typeof(env, v, &t) != napi_ok || t == napi_null || t == napi_undefined) {
    pool_handle *h = NULL;
    *rc = default_pool(&h, NULL);
    return h;
  }
  void *data = NULL;
  if (t != napi_external || napi_get_value_external(env, v, &data) != napi_ok || data == NULL) {
    *rc = STATUS_EINVAL;
    return NULL;
  }
  pool_handle *h = data;
  if (h->closed) *rc = STATUS_ECLOSED;
  return h;
}

static int get_u64(napi_env env, napi_value v, uint64_t *out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return STATUS_EINVAL;
  if (!(d >= 0) || d > 9007199254740991.0 || floor(d) != d) return STATUS_EINVAL;
  *out = (uint64_t)d;
  return 0;
}

/* Reads the bytes of a Uint8Array (lib/validate.js's toBytes turns every
 * accepted input type into one); undefined and null read as empty. The
 * pointer is only valid until we return to JS. */
static int get_bytes(napi_env env, napi_value v, const uint8_t **data, size_t *len) {
  napi_valuetype t;
  bool is;
  *data = NULL;
  *len = 0;
  if (napi_typeof(env, v, &t) != napi_ok) return STATUS_EINVAL;
  if (t == napi_undefined || t == napi_null) return 0;
  napi_typedarray_type type;
  napi_value ab;
  size_t offset;
  void *p = NULL;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is ||
      napi_get_typedarray_info(env, v, &type, len, &p, &ab, &offset) != napi_ok ||
      type != napi_uint8_array)
    return STATUS_EINVAL;
  *data = p;
  return 0;
}

/* Fills a request from (alg, inputs[], numbers[], name, outlen) and copies
 * every input into one allocation that the request then owns. */
static int build_request(napi_env env, napi_value *argv, kdf_request *r, uint8_t **storage,
                         size_t *storage_len) {
  int32_t alg;
  uint32_t n_in = 0, n_num = 0;
  napi_value inputs = argv[0 + 1], numbers = argv[1 + 1];
  const uint8_t *src[KDF_MAX_INPUTS] = {0};
  memset(r, 0, sizeof *r);
  *storage = NULL;
  *storage_len = 0;
  if (napi_get_value_int32(env, argv[0], &alg) != napi_ok) return STATUS_EINVAL;
  r->alg = (kdf_alg)alg;
  if (napi_get_array_length(env, inputs, &n_in) != napi_ok || n_in > KDF_MAX_INPUTS) return STATUS_EINVAL;
  if (napi_get_array_length(env, numbers, &n_num) != napi_ok || n_num > KDF_MAX_NUMBERS) return STATUS_EINVAL;
  size_t total = 0;
  for (uint32_t i = 0; i < n_in; i++) {
    napi_value v;
    if (napi_get_element(env, inputs, i, &v) != napi_ok) return STATUS_EINVAL;
    if (get_bytes(env, v, &src[i], &r->in_len[i]) != 0) return STATUS_EINVAL;
    if (r->in_len[i] > SIZE_MAX / 2 - total) return STATUS_ENOMEM;
    total += r->in_len[i];
  }
  for (uint32_t i = 0; i < n_num; i++) {
    napi_value v;
    if (napi_get_element(env, numbers, i, &v) != napi_ok) return STATUS_EINVAL;
    if (get_u64(env, v, &r->num[i]) != 0) return STATUS_EINVAL;
  }
  napi_valuetype t;
  if (napi_typeof(env, argv[3], &t) == napi_ok && t == napi_string) {
    size_t copied;
    if (napi_get_value_string_utf8(env, argv[3], r->name, sizeof r->name, &copied) != napi_ok)
      return STATUS_EINVAL;
    /* A longer name than we can hold is not a digest anybody has. */
    if (copied >= sizeof r->name - 1) return STATUS_EDIGEST;
  }
  uint64_t outlen;
  if (get_u64(env, argv[4], &outlen) != 0 || outlen > SIZE_MAX / 2 - total) return STATUS_EINVAL;
  r->outlen = (size_t)outlen;
  *storage_len = total + r->outlen;
  *storage = malloc(*storage_len ? *storage_len : 1);
  if (*storage == NULL) return STATUS_ENOMEM;
  size_t off = 0;
  for (uint32_t i = 0; i < n_in; i++) {
    if (r->in_len[i] != 0) memcpy(*storage + off, src[i], r->in_len[i]);
    r->in[i] = *storage + off;
    off += r->in_len[i];
  }
  r->out = *storage + off;
  return 0;
}

/* ---- exported functions ---- */

/* A refusal for lib/ to turn into an error: the code, or [code, message]
 * when native code has a message of its own (OpenSSL's, read on the thread
 * that failed). lib/ decides the class, so that sync and async calls with
 * the same bad input raise the same error. */
static napi_value refusal(napi_env env, int rc, const char *message) {
  napi_value code, result;
  NAPI_CALL(env, napi_create_int32(env, rc, &code), NULL);
  if (message == NULL || message[0] == '\0') return code;
  napi_value text;
  NAPI_CALL(env, napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text), NULL);
  NAPI_CALL(env, napi_create_array_with_length(env, 2, &result), NULL);
  napi_set_element(env, result, 0, code);
  napi_set_element(env, result, 1, text);
  return result;
}

static void on_ticket_free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ticket_unref(data);
}

/* submit(pool, alg, inputs, numbers, name, outlen, maxWaitMs, cancellable)
 * -> Promise<Buffer> (or [promise, ticket] when cancellable), or a negative
 * KDF_E* number (or [code, message]) when the job is refused before it is
 * queued. maxWaitMs = 0: no deadline. */
static napi_value js_submit(napi_env env, napi_callback_info info) {
  napi_value argv[8], result;
  env_state *es = js_args(env, info, 8, argv, "submit");
  if (es == NULL) return NULL;
  uint64_t max_wait_ms = 0;
  bool cancellable = false;
  if (get_u64(env, argv[6], &max_wait_ms) != 0 ||
      napi_get_value_bool(env, argv[7], &cancellable) != napi_ok) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", "submit(): bad maxWaitMs or cancellable");
    return NULL;
  }
  int rc;
  pool_handle *h = get_pool(env, argv[0], &rc);
  job *j = NULL;
  if (rc == 0) {
    j = calloc(1, sizeof *j);
    if (j == NULL) rc = STATUS_ENOMEM;
  }
  if (rc == 0) rc = build_request(env, argv + 1, &j->req, &j->storage, &j->storage_len);
  if (rc == 0) rc = kdf_prepare(&j->req);
  if (rc == 0) {
    j->base.work = job_work;
    j->base.done = job_done;
    j->base.memory = j->req.memory;
    j->base.owner = es;
    j->base.deadline_ns = max_wait_ms != 0 ? pool_now_ns() + max_wait_ms * 1000000u : 0;
    j->env = es;
    j->pool = h->p;
    j->handle = h;
    if (cancellable) {
      j->ticket = calloc(1, sizeof *j->ticket);
      if (j->ticket == NULL) rc = STATUS_ENOMEM;
      else {
        j->ticket->j = j;
        j->ticket->refs = 1; /* the job's; JS takes its own below */
      }
    }
  }
  if (rc == 0) {
    __atomic_add_fetch(&es->refs, 1, __ATOMIC_ACQ_REL);
    rc = pool_submit(h->p, &j->base);
    if (rc != 0) {
      j->env = NULL;
      env_unref(es);
    }
  }
  if (rc != 0) {
    /* Refused synchronously: the caller turns the code into an error. */
    result = refusal(env, rc, j != NULL ? j->req.error : NULL);
    if (j != NULL) free_job(j);
    return result;
  }
  /* The job may already be finished, but its completion can only be handled
   * on this thread, after we return: creating the promise now is safe. */
  if (napi_create_promise(env, &j->deferred, &result) != napi_ok) {
    j->deferred = NULL;
    throw_napi_failure(env, napi_generic_failure);
    return NULL;
  }
  count_in_flight(env, es, j);
  if (!cancellable) return result;
  napi_value pair, handle;
  __atomic_add_fetch(&j->ticket->refs, 1, __ATOMIC_ACQ_REL);
  if (napi_create_external(env, j->ticket, on_ticket_free, NULL, &handle) != napi_ok) {
    ticket_unref(j->ticket);
    napi_get_null(env, &handle);
  }
  NAPI_CALL(env, napi_create_array_with_length(env, 2, &pair), NULL);
  napi_set_element(env, pair, 0, result);
  napi_set_element(env, pair, 1, handle);
  return pair;
}

/* The one argument of cancel() and closePool(): an external made here.
 * Returns its pointer, or NULL (with *es NULL when an exception is
 * pending). */
static void *external_arg(napi_env env, napi_callback_info info, env_state **es, const char *fn) {
  napi_value argv[1];
  void *data = NULL;
  if ((*es = js_args(env, info, 1, argv, fn)) == NULL) return NULL;
  if (napi_get_value_external(env, argv[0], &data) != napi_ok) return NULL;
  return data;
}

/* cancel(ticket) -> true if the job was still queued (it never runs; its
 * promise rejects with STATUS_ECANCELED), false if it already started or
 * ended (a running job keeps its thread until it finishes). */
static napi_value js_cancel(napi_env env, napi_callback_info info) {
  napi_value result;
  env_state *es;
  void *data = external_arg(env, info, &es, "cancel");
  if (es == NULL) return NULL;
  bool removed = false;
  if (data != NULL) {
    ticket *t = data;
    job *j = __atomic_load_n(&t->j, __ATOMIC_ACQUIRE);
    /* A closed pool may already be freed by its closer thread; its queued
     * jobs were (or are being) rejected by the close anyway. */
    int open = j != NULL && (j->handle == NULL || !j->handle->closed);
    if (open && pool_cancel(j->pool, &j->base) == 0) {
      /* Ours again, and this is the JS thread: settle and free it now. */
      j->status = STATUS_ECANCELED;
      settle(env, es, j);
      free_job(j);
      removed = true;
    }
  }
  NAPI_CALL(env, napi_get_boolean(env, removed, &result), NULL);
  return result;
}

static void on_pool_handle_free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  pool_handle *h = data;
  /* Collected while open: nothing can submit to it any more. JS keeps a
   * pool with jobs in flight reachable, so this only closes idle pools. */
  if (!h->closed) close_pool_handle(h, NULL);
  registry_forget_handle(h);
  free(h);
}

static int read_pool_options(napi_env env, napi_value obj, pool_options *o);

/* createPool(options, name) -> external handle, or a negative code. */
static napi_value js_create_pool(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  char name[16] = "pool";
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  env_state *es = get_env_state(env);
  if (es == NULL) return NULL;
  pool_options o;
  int rc = argc < 2 ? STATUS_EINVAL : read_pool_options(env, argv[0], &o);
  size_t copied;
  if (rc == 0 && napi_get_value_string_utf8(env, argv[1], name, sizeof name, &copied) != napi_ok)
    rc = STATUS_EINVAL;
  pool_handle *h = NULL;
  if (rc == 0) {
    h = calloc(1, sizeof *h);
    if (h == NULL) rc = STATUS_ENOMEM;
  }
  if (rc == 0) {
    o.name = name;
    h->owner = es;
    pthread_mutex_lock(&g_lock);
    rc = g_exiting ? STATUS_ECLOSED : pool_create(&h->p, &o);
    if (rc == 0 && (rc = registry_add(h->p, h, es)) != 0) pool_destroy(h->p);
    pthread_mutex_unlock(&g_lock);
  }
  if (rc != 0) {
    free(h);
    NAPI_CALL(env, napi_create_int32(env, rc, &result), NULL);
    return result;
  }
  if (napi_create_external(env, h, on_pool_handle_free, NULL, &result) != napi_ok) {
    close_pool_handle(h, NULL);
    registry_forget_handle(h);
    free(h);
    throw_napi_failure(env, napi_generic_failure);
    return NULL;
  }
  return result;
}

/* closePool(handle) -> Promise<undefined> that resolves once the pool's
 * threads are gone (queued jobs reject with STATUS_ECLOSED first), or a
 * negative code if it was already closed. */
static napi_value js_close_pool(napi_env env, napi_callback_info info) {
  napi_value result;
  env_state *es;
  void *data = external_arg(env, info, &es, "closePool");
  if (es == NULL) return NULL;
  if (data == NULL) {
    NAPI_CALL(env, napi_create_int32(env, STATUS_EINVAL, &result), NULL);
    return result;
  }
  pool_handle *h = data;
  if (h->closed) {
    NAPI_CALL(env, napi_create_int32(env, STATUS_ECLOSED, &result), NULL);
    return result;
  }
  job *notify = calloc(1, sizeof *notify);
  if (notify == NULL) {
    NAPI_CALL(env, napi_create_int32(env, STATUS_ENOMEM, &result), NULL);
    return result;
  }
  notify->env = es;
  notify->resolves_undefined = 1;
  __atomic_add_fetch(&es->refs, 1, __ATOMIC_ACQ_REL);
  /* The promise exists before the closer can finish: its completion is
   * only handled on this thread, after we return. */
  if (napi_create_promise(env, &notify->deferred, &result) != napi_ok) {
    free_job(notify);
    throw_napi_failure(env, napi_generic_failure);
    return NULL;
  }
  count_in_flight(env, es, notify);
  close_pool_handle(h, notify);
  return result;
}

/* runSync(alg, inputs, numbers, name, outlen) -> Buffer, or a negative code
 * (or [code, message]) like submit(). Runs on the calling thread. */
static napi_value js_run_sync(napi_env env, napi_callback_info info) {
  napi_value argv[5], result;
  env_state *es = js_args(env, info, 5, argv, "runSync");
  if (es == NULL) return NULL;
  kdf_request *r = calloc(1, sizeof *r);
  uint8_t *storage = NULL;
  size_t storage_len = 0;
  int rc = r == NULL ? STATUS_ENOMEM : build_request(env, argv, r, &storage, &storage_len);
  if (rc == 0) rc = kdf_prepare(r);
  if (rc == 0) rc = run_here(r);
  if (rc == 0) {
    rc = napi_create_buffer_copy(env, r->outlen, r->out, NULL, &result) == napi_ok ? 0 : STATUS_ENOMEM;
  }
  if (rc != 0) result = refusal(env, rc, r != NULL ? r->error : NULL);
  secure_wipe(storage, storage_len);
  free(storage);
  if (r != NULL) secure_wipe(r, sizeof *r);
  free(r);
  return result;
}

static int get_opt_u64(napi_env env, napi_value obj, const char *key, uint64_t *out) {
  bool has = false;
  napi_value v;
  *out = 0;
  if (napi_has_named_property(env, obj, key, &has) != napi_ok || !has) return 0;
  if (napi_get_named_property(env, obj, key, &v) != napi_ok) return STATUS_EINVAL;
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t == napi_undefined) return 0;
  return get_u64(env, v, out);
}

/* Options object -> pool_options (validated in JS; zero = keep/default). */
static int read_pool_options(napi_env env, napi_value obj, pool_options *o) {
  uint64_t threads, max_queue, max_memory, priority, idle;
  memset(o, 0, sizeof *o);
  if (get_opt_u64(env, obj, "threads", &threads) || get_opt_u64(env, obj, "maxQueue", &max_queue) ||
      get_opt_u64(env, obj, "maxMemory", &max_memory) ||
      get_opt_u64(env, obj, "priority", &priority) ||
      get_opt_u64(env, obj, "arenaIdleMs", &idle))
    return STATUS_EINVAL;
  if (threads > POOL_MAX_THREADS || max_queue > POOL_MAX_QUEUE || priority > POOL_PRIORITY_IDLE ||
      idle > UINT32_MAX)
    return STATUS_EINVAL;
  o->threads = (unsigned)threads;
  o->max_queue = (unsigned)max_queue;
  o->max_memory = max_memory;
  o->priority = (pool_priority)priority;
  o->arena_idle_ms = (unsigned)idle;
  return 0;
}

/* configure(options) for the default pool -> 0 or a negative code. */
static napi_value js_configure(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  pool_options o;
  int rc = argc < 1 ? STATUS_EINVAL : read_pool_options(env, argv[0], &o);
  if (rc == 0) {
    /* Another environment may create the default pool at the same moment:
     * if this call did not create it, the options still apply. */
    pool_handle *h;
    int created;
    rc = default_pool_made(&h, &o, &created);
    if (rc == 0 && !created) rc = pool_reconfigure(h->p, &o);
  }
  NAPI_CALL(env, napi_create_int32(env, rc, &result), NULL);
  return result;
}

static void set_number(napi_env env, napi_value obj, const char *key, double value) {
  napi_value v;
  napi_create_double(env, value, &v);
  napi_set_named_property(env, obj, key, v);
}

/* stats(pool) -> plain object with every counter (times in ms). */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL}, obj;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int rc;
  pool_handle *h = get_pool(env, argc > 0 ? argv[0] : NULL, &rc);
  if (h == NULL || rc != 0) {
    napi_value code;
    napi_create_int32(env, rc ? rc : STATUS_EINVAL, &code);
    return code;
  }
  pool_stats s;
  pool_get_stats(h->p, &s);
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  set_number(env, obj, "threads", s.threads);
  set_number(env, obj, "running", s.running);
  set_number(env, obj, "queued", s.queued);
  set_number(env, obj, "maxQueue", s.max_queue);
  set_number(env, obj, "submitted", (double)s.submitted);
  set_number(env, obj, "completed", (double)s.completed);
  set_number(env, obj, "failed", (double)s.failed);
  set_number(env, obj, "rejected", (double)s.rejected);
  set_number(env, obj, "cancelled", (double)s.cancelled);
  set_number(env, obj, "expired", (double)s.expired);
  set_number(env, obj, "memoryInUse", (double)s.memory_in_use);
  set_number(env, obj, "maxMemory", (double)s.max_memory);
  set_number(env, obj, "priority", s.priority);
  set_number(env, obj, "arenaMaps", (double)s.arena_maps);
  set_number(env, obj, "arenaBytes", (double)s.arena_bytes);
  set_number(env, obj, "avgRunMs", (double)s.avg_run_ns / 1e6);
  set_number(env, obj, "waitP50Ms", (double)s.wait.p50_ns / 1e6);
  set_number(env, obj, "waitP99Ms", (double)s.wait.p99_ns / 1e6);
  set_number(env, obj, "waitMaxMs", (double)s.wait.max_ns / 1e6);
  set_number(env, obj, "runP50Ms", (double)s.run.p50_ns / 1e6);
  set_number(env, obj, "runP99Ms", (double)s.run.p99_ns / 1e6);
  set_number(env, obj, "runMaxMs", (double)s.run.max_ns / 1e6);
  set_number(env, obj, "estimatedWaitMs", (double)pool_estimate_wait_ns(h->p) / 1e6);
  return obj;
}

/* pressure(pool) -> { maxMemory, estimatedWaitMs }: what refusals and
 * verify's limits need, without stats()'s percentile sorting. */
static napi_value js_pressure(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = {NULL}, obj;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int rc;
  pool_handle *h = get_pool(env, argc > 0 ? argv[0] : NULL, &rc);
  if (h == NULL || rc != 0) {
    NAPI_CALL(env, napi_create_int32(env, rc ? rc : STATUS_EINVAL, &obj), NULL);
    return obj;
  }
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  set_number(env, obj, "maxMemory", (double)pool_max_memory(h->p));
  set_number(env, obj, "estimatedWaitMs", (double)pool_estimate_wait_ns(h->p) / 1e6);
  return obj;
}

/* setErrorFactory(fn): lib/errors.js turns (status, message) into errors. */
static napi_value js_set_error_factory(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  env_state *es = get_env_state(env);
  if (es == NULL || argc < 1) return NULL;
  if (es->make_error != NULL) napi_delete_reference(env, es->make_error);
  es->make_error = NULL;
  NAPI_CALL(env, napi_create_reference(env, argv[0], 1, &es->make_error), NULL);
  return NULL;
}

/* forceVariant(family, name) -> boolean: for tests, forces the CPU variant
 * of Argon2's block fill or scrypt's BlockMix ("auto" restores the best).
 * Process-wide and not synchronized with running jobs: tests call it with
 * the pool idle. */
static napi_value js_force_variant(napi_env env, napi_callback_info info) {
  napi_value argv[2], result;
  char family[16], name[16];
  size_t len;
  if (js_args(env, info, 2, argv, "forceVariant") == NULL) return NULL;
  int ok = napi_get_value_string_utf8(env, argv[0], family, sizeof family, &len) == napi_ok &&
           napi_get_value_string_utf8(env, argv[1], name, sizeof name, &len) == napi_ok &&
           kdf_force_variant(family, name) == 0;
  NAPI_CALL(env, napi_get_boolean(env, ok, &result), NULL);
  return result;
}

/* ---- constants ---- */

static int set_int(napi_env env, napi_value obj, const char *key, int32_t value) {
  napi_value v;
  if (napi_create_int32(env, value, &v) != napi_ok) return -1;
  return napi_set_named_property(env, obj, key, v) == napi_ok ? 0 : -1;
}

/* native.constants: { status, algorithms, priorities }, generated from the
 * C lists so that lib/ keeps no copy of them. Frozen: shared by every
 * module of this environment. */
static napi_value make_constants(napi_env env) {
  napi_value constants, status, algorithms, priorities;
  int bad = 0;
  NAPI_CALL(env, napi_create_object(env, &constants), NULL);
  NAPI_CALL(env, napi_create_object(env, &status), NULL);
  NAPI_CALL(env, napi_create_object(env, &algorithms), NULL);
  NAPI_CALL(env, napi_create_object(env, &priorities), NULL);
#define XX(name, value, msg) bad |= set_int(env, status, #name, (value));
  STATUS_MAP(XX)
#undef XX
#define XX(name, value) bad |= set_int(env, algorithms, #name, (value));
  KDF_ALG_MAP(XX)
#undef XX
#define XX(upper, lower, value) bad |= set_int(env, priorities, #lower, (value));
  POOL_PRIORITY_MAP(XX)
#undef XX
  if (bad) {
    throw_napi_failure(env, napi_generic_failure);
    return NULL;
  }
  NAPI_CALL(env, napi_object_freeze(env, status), NULL);
  NAPI_CALL(env, napi_object_freeze(env, algorithms), NULL);
  NAPI_CALL(env, napi_object_freeze(env, priorities), NULL);
  NAPI_CALL(env, napi_set_named_property(env, constants, "status", status), NULL);
  NAPI_CALL(env, napi_set_named_property(env, constants, "algorithms", algorithms), NULL);
  NAPI_CALL(env, napi_set_named_property(env, constants, "priorities", priorities), NULL);
  NAPI_CALL(env, napi_object_freeze(env, constants), NULL);
  return constants;
}

/* ---- module ---- */

/* Runs after the cleanup hook (Node-API's own teardown was registered
 * before it, and hooks run in reverse order), so it drops the
 * environment's reference last. */
static void on_instance_data_free(napi_env env, void *data, void *hint) {
  (void)hint;
  env_state *es = data;
  if (es->make_error != NULL) napi_delete_reference(env, es->make_error);
  es->make_error = NULL;
  env_unref(es);
}

static napi_value init(napi_env env, napi_value exports) {
  pthread_once(&g_atexit_once, register_atexit);

  env_state *es = calloc(1, sizeof *es);
  if (es == NULL) {
    napi_throw_error(env, "ERR_KDF_INTERNAL", "out of memory");
    return NULL;
  }
  if (pthread_mutex_init(&es->lock, NULL) != 0) {
    free(es);
    napi_throw_error(env, "ERR_KDF_INTERNAL", "pthread_mutex_init failed");
    return NULL;
  }
  es->refs = 2; /* the environment and the TSFN */
  napi_value name;
  NAPI_CALL(env, napi_create_string_utf8(env, "kdfpool completions", NAPI_AUTO_LENGTH, &name), NULL);
  NAPI_CALL(env,
            napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, es, on_tsfn_finalize, es,
                                            on_completions, &es->tsfn),
            NULL);
  NAPI_CALL(env, napi_unref_threadsafe_function(env, es->tsfn), NULL);
  NAPI_CALL(env, napi_add_env_cleanup_hook(env, on_env_cleanup, es), NULL);
  NAPI_CALL(env, napi_set_instance_data(env, es, on_instance_data_free, NULL), NULL);

  napi_value constants = make_constants(env);
  if (constants == NULL) return NULL;
  napi_property_descriptor props[] = {
      {"constants", NULL, NULL, NULL, NULL, constants, napi_enumerable, NULL},
      {"submit", NULL, js_submit, NULL, NULL, NULL, napi_default, NULL},
      {"runSync", NULL, js_run_sync, NULL, NULL, NULL, napi_default, NULL},
      {"configure", NULL, js_configure, NULL, NULL, NULL, napi_default, NULL},
      {"stats", NULL, js_stats, NULL, NULL, NULL, napi_default, NULL},
      {"pressure", NULL, js_pressure, NULL, NULL, NULL, napi_default, NULL},
      {"setErrorFactory", NULL, js_set_error_factory, NULL, NULL, NULL, napi_default, NULL},
      {"cancel", NULL, js_cancel, NULL, NULL, NULL, napi_default, NULL},
      {"createPool", NULL, js_create_pool, NULL, NULL, NULL, napi_default, NULL},
      {"closePool", NULL, js_close_pool, NULL, NULL, NULL, napi_default, NULL},
      {"forceVariant", NULL, js_force_variant, NULL, NULL, NULL, napi_default, NULL},
  };
  NAPI_CALL(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props), NULL);
  return exports;
}

/* The macro defines exported functions without prior prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT() { return init(env, exports); }
#pragma GCC diagnostic pop
