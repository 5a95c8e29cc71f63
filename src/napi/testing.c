/* native.testing (test builds only, KDFPOOL_TESTING): every export the
 * tests use and users must not, registered by testing_register().
 *   gate(poolName, id) -> ticket | record
 *                      a job that holds one thread of a pool until
 *                      release(ticket): tests hold threads on an event
 *                      instead of long KDF jobs. poolName: a pool this
 *                      environment made with createPool() (by its name),
 *                      or null for the default pool. It settles through
 *                      lib/'s completion handler under `id` like any job:
 *                      undefined once released; STATUS_ECLOSED when its
 *                      pool closes, STATUS_ESTOPPED at process exit,
 *                      STATUS_ECANCELED when its environment goes away,
 *                      so it never holds up a teardown.
 *   release(ticket) -> boolean   opens a gate (false: it had ended)
 *   forceVariant(family, name) -> boolean
 *                      forces the CPU variant of Argon2's block fill,
 *                      scrypt's BlockMix or the SHA layer ("sha": PBKDF2
 *                      and its lane kernels; "auto" restores the best).
 *                      Process-wide and not synchronized with running
 *                      jobs: tests call it with the pool idle.
 *   runLog(on) -> [[start, end, ...], dropped]
 *                      the intervals (ns, monotonic clock, which on Linux
 *                      is one clock for every process) in which pool
 *                      threads ran a job, or a batch, since the last call;
 *                      `on` turns logging on or off from now. The host
 *                      slots tests merge several processes' logs to find
 *                      how many threads ever ran KDF work at once.
 *   schedSteps() -> number   steps the pools' schedulers have taken so far
 *                      (pool/steps.h: tree nodes, hash links, memory ways),
 *                      every pool and thread together: what a test reads
 *                      around a call to see it walk O(log n), not O(keys)
 *   syncArenaStats() -> { maps, bytes, processBytes }
 *                      this environment's *Sync arena (times mapped, bytes
 *                      held now) and what every environment's arenas hold.
 *   sanitizerHeapBytes() -> number   (AddressSanitizer builds only) the
 *                      bytes malloc'ed and not freed: the soak bounds this
 *                      under ASan instead of RSS, which there grows with
 *                      the quarantine, shadow memory and allocator caches.
 *   faults             (fault builds only, KDFPOOL_FAULTS) arms
 *                      common/fault.c's injector, for test/faults.test.js:
 *     arm(n[, filter])  the n-th fault site reached from now fails, once
 *                       (only sites whose name contains `filter`, if given)
 *     disarm(), reset() (count back to 0, disarmed)
 *     count()           sites reached since reset
 *     injected()        failures injected since reset
 *     live()            allocations made through the wrappers, not yet freed
 *     liveBytes()       their bytes (malloc'ed ones): the soak bounds it per job
 *     leakPerJob(bytes) from now on every job the pools end leaks `bytes`
 *                       (0: stop), to prove the soak's bound catches it
 *     lastInjected()    name of the site that failed last since reset, or null
 *     sites()           names of the sites reached so far (since load)
 *     allSites()        names of every site compiled in */
#ifdef KDFPOOL_TESTING
#include "napi/testing.h"

#include "common/fault.h"
#include "common/status.h"
#include "common/stop.h"
#include "kdf/kdf.h"
#include "napi/args.h"
#include "napi/completions.h"
#include "napi/jobs.h"
#include "napi/record.h"
#include "napi/registry.h"
#include "pool/os.h" /* the pool's monotonic condition waits, for gates */

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- gates ---- */

/* A gate is a job whose one input, in its storage, is its state word: 0
 * shut, 1 open. The word is written and read under `gate_lock`; opening a
 * gate wakes every waiting one, and each looks at its own word. */
static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
/* Made by the first gate() (gate_cond_ready): its polls wait on the pool's
 * monotonic clock, like the pool's own waits, so that a test that steps
 * the wall clock does not hold a gate past what ends it. */
static pthread_cond_t gate_opened;
static pthread_once_t gate_once = PTHREAD_ONCE_INIT;
static int gate_cond_rc;

static void gate_cond_init(void) { gate_cond_rc = os_cond_init_monotonic(&gate_opened); }

static int gate_cond_ready(void) {
  pthread_once(&gate_once, gate_cond_init);
  return gate_cond_rc == 0;
}

/* How often a shut gate looks at what ends it without a release. */
#define GATE_POLL_NS 10000000u

/* Pool thread. */
static int gate_work(pool_job *base, pool_worker *w) {
  job *j = (job *)base;
  const volatile int *stop = pool_worker_stop_flag(w);
  int *state = (int *)j->storage;
  for (;;) {
    if (stop_requested(stop)) return STATUS_ESTOPPED;
    if (registry_closing(j->pool)) return STATUS_ECLOSED;
    if (completions_closed(j->env)) return STATUS_ECANCELED;
    uint64_t until = os_monotonic_ns() + GATE_POLL_NS;
    pthread_mutex_lock(&gate_lock);
    if (*state == 0) os_cond_wait_until(&gate_opened, &gate_lock, until);
    int open = *state;
    pthread_mutex_unlock(&gate_lock);
    if (open) return 0;
  }
}

/* The pool gate() names: NULL with an exception pending if there is not
 * exactly one; *rc a status when the default pool cannot be had. */
static pool_handle *named_pool(napi_env env, env_state *es, napi_value v, int *rc) {
  napi_valuetype t;
  pool_handle *h = NULL;
  char name[sizeof h->name];
  size_t len;
  unsigned matches = 0;
  *rc = 0;
  NAPI_CALL(env, napi_typeof(env, v, &t), NULL);
  if (t == napi_null || t == napi_undefined) {
    *rc = registry_default(&h, NULL, NULL);
    return h;
  }
  if (t != napi_string || napi_get_value_string_utf8(env, v, name, sizeof name, &len) != napi_ok) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", "gate(): poolName must be a string or null");
    return NULL;
  }
  h = registry_find(es, name, &matches);
  if (matches != 1) {
    char msg[96];
    snprintf(msg, sizeof msg, "gate(): %u open pools named \"%s\" made by this thread", matches,
             name);
    napi_throw_error(env, "ERR_KDF_INTERNAL", msg);
    return NULL;
  }
  return h;
}

static napi_value js_gate(napi_env env, napi_callback_info info) {
  napi_value argv[2], handle;
  env_state *es = js_args(env, info, 2, argv, "gate");
  if (es == NULL) return NULL;
  drain_owed(env, es);
  uint32_t id;
  NAPI_CALL(env, napi_get_value_uint32(env, argv[1], &id), NULL);
  int rc;
  pool_handle *h = named_pool(env, es, argv[0], &rc);
  if (h == NULL && rc == 0) return NULL;
  if (rc == 0 && !gate_cond_ready()) rc = STATUS_ENOMEM;
  job *j = rc == 0 ? job_new(es) : NULL;
  if (rc == 0 && j == NULL) rc = STATUS_ENOMEM;
  if (rc == 0 && (j->storage = KDF_CALLOC(1, sizeof(int))) == NULL) rc = STATUS_ENOMEM;
  if (rc == 0) {
    j->storage_len = sizeof(int);
    rc = job_add_ticket(j);
  }
  if (rc == 0) {
    /* JS's handle first: once the gate is queued nothing may fail. */
    ticket_ref(j->ticket);
    napi_status st = make_handle(env, j->ticket, ticket_finalize, HANDLE_TICKET, &handle);
    if (handle == NULL) ticket_unref(j->ticket);
    if (st != napi_ok) {
      free_job(j);
      throw_napi_failure(env, st);
      return NULL;
    }
  }
  if (rc == 0) {
    j->base.work = gate_work;
    j->base.done = job_done;
    j->base.owner = es;
    j->pool = h->p;
    j->handle = h;
    j->id = id;
    j->resolves_undefined = 1;
    rc = pool_submit(h->p, &j->base);
  }
  if (rc != 0) {
    record_info refusal = { rc,
                            NULL,
                            h != NULL ? h->p : NULL,
                            0,
                            0,
                            j != NULL ? j->base.retry_after_ns : 0,
                            j != NULL ? j->base.retry_after_s : 0 };
    if (j != NULL) free_job(j);
    return make_record(env, &refusal);
  }
  count_in_flight(env, es, j);
  return handle;
}

static napi_value js_release(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  if (js_args(env, info, 1, argv, "release") == NULL) return NULL;
  ticket *t = get_handle(env, argv[0], HANDLE_TICKET);
  if (t == NULL) return NULL;
  /* A job is freed on this thread (its completion), so `j` stays valid
   * until we return. */
  job *j = __atomic_load_n(&t->j, __ATOMIC_ACQUIRE);
  int gate = j != NULL && j->base.work == gate_work;
  if (gate) {
    pthread_mutex_lock(&gate_lock);
    *(int *)j->storage = 1;
    pthread_cond_broadcast(&gate_opened);
    pthread_mutex_unlock(&gate_lock);
  }
  NAPI_CALL(env, napi_get_boolean(env, gate, &result), NULL);
  return result;
}

/* ---- the run log ---- */

/* Bounded: a test that logs more than this sees `dropped` > 0. */
#define RUN_LOG_MAX 65536
static pthread_mutex_t run_log_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *run_log;
static size_t run_log_len;
static uint64_t run_log_dropped;

/* Pool thread (jobs.c's observer). */
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

/* ---- the scheduler's step counter (pool/steps.h) ---- */

unsigned long pool_steps;

static napi_value js_sched_steps(napi_env env, napi_callback_info info) {
  napi_value result;
  (void)info;
  NAPI_CALL(
      env, napi_create_double(env, (double)__atomic_load_n(&pool_steps, __ATOMIC_RELAXED), &result),
      NULL);
  return result;
}

static napi_value js_run_log(napi_env env, napi_callback_info info) {
  napi_value argv[1], result, list, v;
  bool on = false;
  if (js_args(env, info, 1, argv, "runLog") == NULL) return NULL;
  NAPI_CALL(env, napi_get_value_bool(env, argv[0], &on), NULL);
  /* Hands the log over and starts a new one. */
  pthread_mutex_lock(&run_log_lock);
  size_t n = run_log_len;
  uint64_t *pairs = run_log, dropped = run_log_dropped;
  run_log = NULL;
  run_log_len = 0;
  run_log_dropped = 0;
  pthread_mutex_unlock(&run_log_lock);
  jobs_observe_runs(on ? run_log_add : NULL);
  napi_status st = napi_create_array_with_length(env, n * 2, &list);
  for (size_t i = 0; st == napi_ok && i < n * 2; i++) {
    st = napi_create_double(env, (double)pairs[i], &v);
    if (st == napi_ok) st = napi_set_element(env, list, (uint32_t)i, v);
  }
  KDF_FREE(pairs);
  NAPI_CALL(env, st, NULL);
  NAPI_CALL(env, napi_create_array_with_length(env, 2, &result), NULL);
  NAPI_CALL(env, napi_set_element(env, result, 0, list), NULL);
  NAPI_CALL(env, napi_create_double(env, (double)dropped, &v), NULL);
  NAPI_CALL(env, napi_set_element(env, result, 1, v), NULL);
  return result;
}

/* ---- probes ---- */

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

static napi_value number(napi_env env, double v) {
  napi_value result;
  NAPI_CALL(env, napi_create_double(env, v, &result), NULL);
  return result;
}

static napi_value js_sync_arena_stats(napi_env env, napi_callback_info info) {
  napi_value obj, v;
  env_state *es = js_args(env, info, 0, NULL, "syncArenaStats");
  if (es == NULL) return NULL;
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  const char *keys[] = { "maps", "bytes", "processBytes" };
  double values[] = { (double)es->sync_arena.maps, (double)es->sync_arena.size,
                      (double)pool_arena_bytes() };
  for (size_t i = 0; i < 3; i++) {
    if ((v = number(env, values[i])) == NULL) return NULL;
    NAPI_CALL(env, napi_set_named_property(env, obj, keys[i], v), NULL);
  }
  return obj;
}

#if defined(__SANITIZE_ADDRESS__)
#define KDFPOOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KDFPOOL_ASAN 1
#endif
#endif
#ifdef KDFPOOL_ASAN
/* From the sanitizer runtime (sanitizer/allocator_interface.h, which gcc
 * does not install). */
size_t __sanitizer_get_current_allocated_bytes(void);

static napi_value js_sanitizer_heap_bytes(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)__sanitizer_get_current_allocated_bytes());
}
#endif

/* ---- faults (fault builds only) ---- */

#ifdef KDFPOOL_FAULTS
static napi_value js_arm(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  uint64_t n = 0;
  char filter[64] = "";
  size_t len;
  if (argc < 1 || get_u64(env, argv[0], &n) != 0 || n == 0) {
    napi_throw_range_error(env, "ERR_OUT_OF_RANGE", "arm(n): n must be a positive integer");
    return NULL;
  }
  napi_valuetype t = napi_undefined;
  if (argc > 1) napi_typeof(env, argv[1], &t);
  if (t == napi_string)
    NAPI_CALL(env, napi_get_value_string_utf8(env, argv[1], filter, sizeof filter, &len), NULL);
  fault_arm((unsigned long)n, filter);
  return NULL;
}

static napi_value js_disarm(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  fault_disarm();
  return NULL;
}

static napi_value js_reset(napi_env env, napi_callback_info info) {
  (void)env;
  (void)info;
  fault_reset();
  return NULL;
}

static napi_value js_count(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_count());
}

static napi_value js_injected(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_injected());
}

static napi_value js_live(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_live());
}

static napi_value js_live_bytes(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, (double)fault_live_bytes());
}

static napi_value js_leak_per_job(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uint32_t bytes = 0;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  if (argc < 1 || napi_get_value_uint32(env, argv[0], &bytes) != napi_ok) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", "leakPerJob(bytes): bytes must be a number");
    return NULL;
  }
  fault_set_job_leak(bytes);
  return NULL;
}

static napi_value js_last_injected(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  const char *name = fault_last_injected();
  if (name == NULL) {
    NAPI_CALL(env, napi_get_null(env, &result), NULL);
  } else {
    NAPI_CALL(env, napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &result), NULL);
  }
  return result;
}

typedef struct {
  napi_env env;
  napi_value array;
  uint32_t len;
  int reached_only;
} site_list;

static void add_site(const fault_site *site, void *arg) {
  site_list *l = arg;
  if (l->reached_only && __atomic_load_n(&site->hits, __ATOMIC_RELAXED) == 0) return;
  napi_value name;
  if (napi_create_string_utf8(l->env, site->name, NAPI_AUTO_LENGTH, &name) == napi_ok)
    napi_set_element(l->env, l->array, l->len++, name);
}

static napi_value site_names(napi_env env, int reached_only) {
  site_list l = { env, NULL, 0, reached_only };
  NAPI_CALL(env, napi_create_array(env, &l.array), NULL);
  fault_each_site(add_site, &l);
  return l.array;
}

static napi_value js_sites(napi_env env, napi_callback_info info) {
  (void)info;
  return site_names(env, 1);
}

static napi_value js_all_sites(napi_env env, napi_callback_info info) {
  (void)info;
  return site_names(env, 0);
}

static napi_value make_faults(napi_env env) {
  napi_value obj;
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  napi_property_descriptor props[] = {
    { "arm", NULL, js_arm, NULL, NULL, NULL, napi_enumerable, NULL },
    { "disarm", NULL, js_disarm, NULL, NULL, NULL, napi_enumerable, NULL },
    { "reset", NULL, js_reset, NULL, NULL, NULL, napi_enumerable, NULL },
    { "count", NULL, js_count, NULL, NULL, NULL, napi_enumerable, NULL },
    { "injected", NULL, js_injected, NULL, NULL, NULL, napi_enumerable, NULL },
    { "live", NULL, js_live, NULL, NULL, NULL, napi_enumerable, NULL },
    { "liveBytes", NULL, js_live_bytes, NULL, NULL, NULL, napi_enumerable, NULL },
    { "leakPerJob", NULL, js_leak_per_job, NULL, NULL, NULL, napi_enumerable, NULL },
    { "lastInjected", NULL, js_last_injected, NULL, NULL, NULL, napi_enumerable, NULL },
    { "sites", NULL, js_sites, NULL, NULL, NULL, napi_enumerable, NULL },
    { "allSites", NULL, js_all_sites, NULL, NULL, NULL, napi_enumerable, NULL },
  };
  NAPI_CALL(env, napi_define_properties(env, obj, sizeof props / sizeof props[0], props), NULL);
  NAPI_CALL(env, napi_object_freeze(env, obj), NULL);
  return obj;
}
#endif

/* ---- registration ---- */

napi_value testing_register(napi_env env, napi_value exports) {
  napi_value testing;
  NAPI_CALL(env, napi_create_object(env, &testing), NULL);
  napi_property_descriptor props[] = {
    { "gate", NULL, js_gate, NULL, NULL, NULL, napi_enumerable, NULL },
    { "release", NULL, js_release, NULL, NULL, NULL, napi_enumerable, NULL },
    { "forceVariant", NULL, js_force_variant, NULL, NULL, NULL, napi_enumerable, NULL },
    { "runLog", NULL, js_run_log, NULL, NULL, NULL, napi_enumerable, NULL },
    { "schedSteps", NULL, js_sched_steps, NULL, NULL, NULL, napi_enumerable, NULL },
    { "syncArenaStats", NULL, js_sync_arena_stats, NULL, NULL, NULL, napi_enumerable, NULL },
#ifdef KDFPOOL_ASAN
    { "sanitizerHeapBytes", NULL, js_sanitizer_heap_bytes, NULL, NULL, NULL, napi_enumerable,
      NULL },
#endif
  };
  NAPI_CALL(env, napi_define_properties(env, testing, sizeof props / sizeof props[0], props), NULL);
#ifdef KDFPOOL_FAULTS
  napi_value faults = make_faults(env);
  if (faults == NULL) return NULL;
  NAPI_CALL(env, napi_set_named_property(env, testing, "faults", faults), NULL);
#endif
  NAPI_CALL(env, napi_object_freeze(env, testing), NULL);
  NAPI_CALL(env, napi_set_named_property(env, exports, "testing", testing), NULL);
  return testing;
}
#else
typedef int testing_disabled; /* ISO C: a translation unit is not empty */
#endif
