/* The module: the functions lib/ calls (submit, runSync, cancel, pools,
 * stats, constants) and their registration. Never napi_create_async_work or
 * uv_queue_work: those run on libuv's thread pool, the one this project
 * exists to keep free. */
#include "napi/binding.h"

#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* submit(pool, alg, inputs, numbers, name, outlen, maxWaitMs, cancellable, id)
 * -> undefined (or a cancel ticket when cancellable) once the job is
 * queued: it then ends through lib/'s completion handler under `id`, a
 * number lib/ chose (see completions.c). A negative STATUS_E* number (or
 * [code, message]) when the job is refused before it is queued.
 * maxWaitMs = 0: no deadline. The job reserves its scratch memory plus its
 * output from the pool's budget. */
static napi_value js_submit(napi_env env, napi_callback_info info) {
  napi_value argv[9], result;
  env_state *es = js_args(env, info, 9, argv, "submit");
  if (es == NULL) return NULL;
  drain_owed(env, es);
  uint64_t max_wait_ms = 0;
  uint32_t id = 0;
  bool cancellable = false;
  if (get_u64(env, argv[6], &max_wait_ms) != 0 ||
      napi_get_value_bool(env, argv[7], &cancellable) != napi_ok ||
      napi_get_value_uint32(env, argv[8], &id) != napi_ok) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", "submit(): bad maxWaitMs, cancellable or id");
    return NULL;
  }
  int rc;
  pool_handle *h = get_pool(env, argv[0], &rc);
  if (h == NULL && rc == 0) return NULL; /* not a pool handle: TypeError pending */
  /* From job_new() on, every failure path ends in free_job(), which owns
   * the job's reference to `es` and its ticket. */
  job *j = NULL;
  if (rc == 0 && (j = job_new(es)) == NULL) rc = STATUS_ENOMEM;
  if (rc == 0) rc = build_request(env, argv + 1, &j->req, &j->storage, &j->storage_len);
  if (rc == 0) j->out_room = inline_output(&j->req, j->storage, j->storage_len);
  if (rc == 0) rc = prepare_request(&j->req);
  if (rc == 0 && j->req.outlen > SIZE_MAX - j->req.memory) rc = STATUS_EMEMLIMIT;
  if (rc == 0 && cancellable) {
    if ((j->ticket = KDF_CALLOC(1, sizeof *j->ticket)) == NULL) {
      rc = STATUS_ENOMEM;
    } else {
      j->ticket->j = j;
      j->ticket->refs = 1; /* the job's; JS takes its own below */
    }
  }
  if (rc == 0) {
    j->base.work = job_work;
    j->base.done = job_done;
    j->base.memory = j->req.memory + j->req.outlen;
    j->base.owner = es;
    j->base.deadline_ns = max_wait_ms != 0 ? pool_now_ns() + max_wait_ms * 1000000u : 0;
    /* PBKDF2 jobs of one digest run interleaved when they queue together. */
    j->base.batch_key = kdf_batch_key(&j->req, &j->base.batch_max);
    if (j->base.batch_key != 0) j->base.work_batch = job_work_batch;
    j->pool = h->p;
    j->handle = h;
    j->id = id;
    rc = pool_submit(h->p, &j->base);
  }
  if (rc != 0) {
    /* Refused synchronously: the caller turns the code into an error. */
    result = refusal(env, rc, j != NULL ? j->req.error : NULL);
    if (j != NULL) free_job(j);
    return result;
  }
  /* From here the job is the pool's: it ends through the completion
   * handler, which runs on this thread, after we return. Nothing below may
   * fail in a way that loses it: a ticket that cannot be made is null (the
   * call then cannot be cancelled, only dropped by lib/). */
  count_in_flight(env, es, j);
  napi_value handle;
  if (!cancellable) {
    napi_get_undefined(env, &handle);
    return handle;
  }
  __atomic_add_fetch(&j->ticket->refs, 1, __ATOMIC_ACQ_REL);
  if (napi_create_external(env, j->ticket, on_ticket_free, NULL, &handle) != napi_ok) {
    ticket_unref(j->ticket); /* no JS object: JS's reference was never taken */
    napi_get_null(env, &handle);
  } else if (napi_type_tag_object(env, handle, &TICKET_TAG) != napi_ok) {
    napi_get_null(env, &handle); /* the external's finalizer drops JS's reference */
  }
  return handle;
}

/* cancel(ticket) -> true if the job was still queued (it never runs, and
 * the completion handler never hears of it: lib/ settles the call), false
 * if it already started or ended (a running job keeps its thread until it
 * finishes, and then ends as usual). */
static napi_value js_cancel(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  env_state *es = js_args(env, info, 1, argv, "cancel");
  if (es == NULL) return NULL;
  ticket *t = get_handle(env, argv[0], &TICKET_TAG, "a cancel ticket");
  if (t == NULL) return NULL;
  drain_owed(env, es);
  bool removed = false;
  job *j = __atomic_load_n(&t->j, __ATOMIC_ACQUIRE);
  /* A closed pool may already be freed by its closer thread; its queued
   * jobs were (or are being) rejected by the close anyway. */
  int open = j != NULL && (j->handle == NULL || !j->handle->closed);
  if (open && pool_cancel(j->pool, &j->base) == 0) {
    /* Ours again, and this is the JS thread: free it now. */
    uncount_job(env, es, j);
    free_job(j);
    removed = true;
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
  KDF_FREE(h);
}

/* createPool(options, name) -> external handle, or a negative code. */
static napi_value js_create_pool(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result;
  char name[16] = "pool";
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  env_state *es = get_env_state(env);
  if (es == NULL) return NULL;
  pool_options o;
  pool_option_text text;
  int rc = argc < 2 ? STATUS_EINVAL : read_pool_options(env, argv[0], &o, &text);
  size_t copied;
  if (rc == 0 && napi_get_value_string_utf8(env, argv[1], name, sizeof name, &copied) != napi_ok)
    rc = STATUS_EINVAL;
  pool_handle *h = NULL;
  if (rc == 0) {
    h = KDF_CALLOC(1, sizeof *h);
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
    KDF_FREE(h);
    NAPI_CALL(env, napi_create_int32(env, rc, &result), NULL);
    return result;
  }
  if (napi_create_external(env, h, on_pool_handle_free, NULL, &result) != napi_ok) {
    close_pool_handle(h, NULL);
    registry_forget_handle(h);
    KDF_FREE(h);
    throw_napi_failure(env, napi_generic_failure);
    return NULL;
  }
  /* If only the tag fails, the external's finalizer closes and frees. */
  NAPI_CALL(env, napi_type_tag_object(env, result, &POOL_HANDLE_TAG), NULL);
  return result;
}

/* closePool(handle, id) -> undefined: the completion handler resolves `id`
 * with undefined once the pool's threads are gone (queued jobs reject with
 * STATUS_ECLOSED first); or a negative code if it was already closed. */
static napi_value js_close_pool(napi_env env, napi_callback_info info) {
  napi_value argv[2], result;
  env_state *es = js_args(env, info, 2, argv, "closePool");
  if (es == NULL) return NULL;
  uint32_t id = 0;
  if (napi_get_value_uint32(env, argv[1], &id) != napi_ok) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", "closePool(): bad id");
    return NULL;
  }
  pool_handle *h = get_handle(env, argv[0], &POOL_HANDLE_TAG, "a pool handle");
  if (h == NULL) return NULL;
  drain_owed(env, es);
  if (h->closed) {
    NAPI_CALL(env, napi_create_int32(env, STATUS_ECLOSED, &result), NULL);
    return result;
  }
  job *notify = job_new(es);
  if (notify == NULL) {
    NAPI_CALL(env, napi_create_int32(env, STATUS_ENOMEM, &result), NULL);
    return result;
  }
  notify->resolves_undefined = 1;
  notify->id = id;
  /* Its completion is only handled on this thread, after we return. */
  count_in_flight(env, es, notify);
  close_pool_handle(h, notify);
  napi_get_undefined(env, &result);
  return result;
}

/* runSync(alg, inputs, numbers, name, outlen) -> Buffer, or a negative code
 * (or [code, message]) like submit(). Runs on the calling thread. */
static napi_value js_run_sync(napi_env env, napi_callback_info info) {
  napi_value argv[5], result;
  env_state *es = js_args(env, info, 5, argv, "runSync");
  if (es == NULL) return NULL;
  drain_owed(env, es);
  kdf_request *r = KDF_CALLOC(1, sizeof *r);
  uint8_t *storage = NULL;
  size_t storage_len = 0;
  int rc = r == NULL ? STATUS_ENOMEM : build_request(env, argv, r, &storage, &storage_len);
  if (rc == 0) rc = prepare_request(r);
  uint8_t *room = rc == 0 ? inline_output(r, storage, storage_len) : NULL;
  if (rc == 0) rc = bind_output(r, room);
  if (rc == 0) rc = run_here(es, r);
  if (rc == 0) {
    rc = napi_create_buffer_copy(env, r->outlen, r->out, NULL, &result) == napi_ok ? 0
                                                                                   : STATUS_ENOMEM;
  }
  if (rc != 0) result = refusal(env, rc, r != NULL ? r->error : NULL);
  if (r != NULL && r->out != NULL && r->out != room) {
    secure_wipe(r->out, r->outlen);
    KDF_FREE(r->out);
  }
  secure_wipe(storage, storage_len); /* also the output, when it is in there */
  KDF_FREE(storage);
  if (r != NULL) secure_wipe(r, sizeof *r);
  KDF_FREE(r);
  return result;
}

static void set_number(napi_env env, napi_value obj, const char *key, double value) {
  napi_value v;
  napi_create_double(env, value, &v);
  napi_set_named_property(env, obj, key, v);
}

/* releaseSyncArena(): lib/'s idle timer ran out; the next *Sync call maps
 * its scratch afresh. */
static napi_value js_release_sync_arena(napi_env env, napi_callback_info info) {
  env_state *es = js_args(env, info, 0, NULL, "releaseSyncArena");
  if (es == NULL) return NULL;
  pool_arena_drop(&es->sync_arena);
  return NULL;
}

/* syncArenaStats() -> { maps, bytes, processBytes }: this environment's
 * *Sync arena (times mapped, bytes held now) and what the arenas of every
 * environment hold together. */
static napi_value js_sync_arena_stats(napi_env env, napi_callback_info info) {
  napi_value obj;
  env_state *es = js_args(env, info, 0, NULL, "syncArenaStats");
  if (es == NULL) return NULL;
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  set_number(env, obj, "maps", (double)es->sync_arena.maps);
  set_number(env, obj, "bytes", (double)es->sync_arena.size);
  set_number(env, obj, "processBytes", (double)pool_arena_bytes());
  return obj;
}

static napi_value js_configure(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], result;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  pool_options o;
  pool_option_text text;
  int rc = argc < 1 ? STATUS_EINVAL : read_pool_options(env, argv[0], &o, &text);
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

/* stats(pool) -> plain object with every counter (times in ms). */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = { NULL }, obj;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int rc;
  pool_handle *h = get_pool(env, argc > 0 ? argv[0] : NULL, &rc);
  if (h == NULL && rc == 0) return NULL; /* not a pool handle: TypeError pending */
  if (rc != 0) {
    napi_value code;
    NAPI_CALL(env, napi_create_int32(env, rc, &code), NULL);
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
  set_number(env, obj, "shed", (double)s.shed);
  set_number(env, obj, "refused", (double)s.refused);
  set_number(env, obj, "batched", (double)s.batched);
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
  if (s.host_slots != 0) {
    napi_value key;
    set_number(env, obj, "hostSlots", s.host_slots);
    set_number(env, obj, "hostHeld", s.host_held);
    set_number(env, obj, "hostMembers", s.host_members);
    set_number(env, obj, "hostWaitMs", (double)s.host_wait_ns / 1e6);
    NAPI_CALL(env, napi_create_string_utf8(env, s.host_key, NAPI_AUTO_LENGTH, &key), NULL);
    NAPI_CALL(env, napi_set_named_property(env, obj, "hostKey", key), NULL);
  }
  return obj;
}

/* runLog(on) -> [[start, end, start, end, ...], dropped]: when pool
 * threads ran jobs since the last call (ns, monotonic clock, which on Linux
 * is one clock for every process), one interval per job, or per batch (a
 * batch's jobs run interleaved on one thread); `on` turns logging on or off
 * from now. For tests: the host slots test merges the logs of several
 * processes to find how many threads ever ran KDF work at once. */
static napi_value js_run_log(napi_env env, napi_callback_info info) {
  napi_value argv[1], result, list, v;
  bool on = false;
  if (js_args(env, info, 1, argv, "runLog") == NULL) return NULL;
  NAPI_CALL(env, napi_get_value_bool(env, argv[0], &on), NULL);
  uint64_t *pairs = NULL, dropped = 0;
  size_t n = run_log_take(&pairs, &dropped);
  run_log_enable(on);
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

/* pressure(pool) -> { maxMemory, estimatedWaitMs }: what refusals and
 * verify's limits need, without stats()'s percentile sorting. */
static napi_value js_pressure(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = { NULL }, obj;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int rc;
  pool_handle *h = get_pool(env, argc > 0 ? argv[0] : NULL, &rc);
  if (h == NULL && rc == 0) return NULL; /* not a pool handle: TypeError pending */
  if (rc != 0) {
    NAPI_CALL(env, napi_create_int32(env, rc, &obj), NULL);
    return obj;
  }
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  set_number(env, obj, "maxMemory", (double)pool_max_memory(h->p));
  set_number(env, obj, "estimatedWaitMs", (double)pool_estimate_wait_ns(h->p) / 1e6);
  return obj;
}

/* setErrorFactory(fn): lib/errors.js turns (status, message) into errors. */
/* setCompletionHandler(fn) -> ArrayBuffer: fn(count, extras) is called
 * with finished jobs (completions.c); the ArrayBuffer is the memory it
 * reads them from: COMPLETION_CHUNK x (id, kind, length) as uint32, then
 * the transfer bytes. One per environment. */
static napi_value js_set_completion_handler(napi_env env, napi_callback_info info) {
  napi_value argv[1], shared;
  env_state *es = js_args(env, info, 1, argv, "setCompletionHandler");
  if (es == NULL) return NULL;
  if (es->on_done != NULL) napi_delete_reference(env, es->on_done);
  es->on_done = NULL;
  NAPI_CALL(env, napi_create_reference(env, argv[0], 1, &es->on_done), NULL);
  if (es->shared_ref == NULL) {
    void *data = NULL;
    NAPI_CALL(env, napi_create_arraybuffer(env, SHARED_BYTES, &data, &shared), NULL);
    NAPI_CALL(env, napi_create_reference(env, shared, 1, &es->shared_ref), NULL);
    es->meta = data;
    es->transfer = (uint8_t *)data + COMPLETION_CHUNK * 3 * sizeof(uint32_t);
  } else {
    NAPI_CALL(env, napi_get_reference_value(env, es->shared_ref, &shared), NULL);
  }
  return shared;
}

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
 * of Argon2's block fill, scrypt's BlockMix or the SHA layer ("sha": PBKDF2
 * and its lane kernels; "auto" restores the best).
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

/* sanitizerHeapBytes() -> number, in AddressSanitizer builds only (the
 * sanitized test run): the bytes the process has malloc'ed and not freed.
 * The soak bounds this there instead of RSS, which under ASan grows with
 * its quarantine, shadow memory and allocator caches rather than with
 * what is still in use. */
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
  napi_value result;
  NAPI_CALL(env,
            napi_create_double(env, (double)__sanitizer_get_current_allocated_bytes(), &result),
            NULL);
  return result;
}
#endif

/* ---- constants ---- */

static int set_int(napi_env env, napi_value obj, const char *key, int32_t value) {
  napi_value v;
  if (napi_create_int32(env, value, &v) != napi_ok) return -1;
  return napi_set_named_property(env, obj, key, v) == napi_ok ? 0 : -1;
}

/* native.constants: { status, algorithms, priorities, arenaIdleMs }, generated from the
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
  /* How long lib/ lets a *Sync arena sit unused: as long as a worker's. */
  bad |= set_int(env, constants, "arenaIdleMs", POOL_DEFAULT_ARENA_IDLE_MS);
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
  if (es->on_done != NULL) napi_delete_reference(env, es->on_done);
  es->on_done = NULL;
  if (es->shared_ref != NULL) napi_delete_reference(env, es->shared_ref);
  es->shared_ref = NULL;
  es->meta = NULL;
  es->transfer = NULL;
  env_unref(es);
}

static napi_value init(napi_env env, napi_value exports) {
  pthread_once(&g_atexit_once, register_atexit);

  env_state *es = KDF_CALLOC(1, sizeof *es);
  if (es == NULL) {
    napi_throw_error(env, "ERR_KDF_OUT_OF_MEMORY", "Out of memory");
    return NULL;
  }
  if (pthread_mutex_init(&es->lock, NULL) != 0) {
    KDF_FREE(es);
    napi_throw_error(env, "ERR_KDF_INTERNAL", "pthread_mutex_init failed");
    return NULL;
  }
  es->refs = 2; /* the environment and the TSFN */
  napi_value name;
  NAPI_CALL(env, napi_create_string_utf8(env, "kdfpool completions", NAPI_AUTO_LENGTH, &name),
            NULL);
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
    { "constants", NULL, NULL, NULL, NULL, constants, napi_enumerable, NULL },
    { "submit", NULL, js_submit, NULL, NULL, NULL, napi_default, NULL },
    { "runSync", NULL, js_run_sync, NULL, NULL, NULL, napi_default, NULL },
    { "releaseSyncArena", NULL, js_release_sync_arena, NULL, NULL, NULL, napi_default, NULL },
    { "syncArenaStats", NULL, js_sync_arena_stats, NULL, NULL, NULL, napi_default, NULL },
    { "configure", NULL, js_configure, NULL, NULL, NULL, napi_default, NULL },
    { "stats", NULL, js_stats, NULL, NULL, NULL, napi_default, NULL },
    { "pressure", NULL, js_pressure, NULL, NULL, NULL, napi_default, NULL },
    { "setErrorFactory", NULL, js_set_error_factory, NULL, NULL, NULL, napi_default, NULL },
    { "setCompletionHandler", NULL, js_set_completion_handler, NULL, NULL, NULL, napi_default,
      NULL },
    { "cancel", NULL, js_cancel, NULL, NULL, NULL, napi_default, NULL },
    { "createPool", NULL, js_create_pool, NULL, NULL, NULL, napi_default, NULL },
    { "closePool", NULL, js_close_pool, NULL, NULL, NULL, napi_default, NULL },
    { "forceVariant", NULL, js_force_variant, NULL, NULL, NULL, napi_default, NULL },
    { "runLog", NULL, js_run_log, NULL, NULL, NULL, napi_default, NULL },
  };
  NAPI_CALL(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props), NULL);
#ifdef KDFPOOL_ASAN
  napi_value heap_bytes;
  NAPI_CALL(env,
            napi_create_function(env, "sanitizerHeapBytes", NAPI_AUTO_LENGTH,
                                 js_sanitizer_heap_bytes, NULL, &heap_bytes),
            NULL);
  NAPI_CALL(env, napi_set_named_property(env, exports, "sanitizerHeapBytes", heap_bytes), NULL);
#endif
#ifdef KDFPOOL_FAULTS
  napi_value faults = make_faults(env);
  if (faults == NULL) return NULL;
  NAPI_CALL(env, napi_set_named_property(env, exports, "faults", faults), NULL);
#endif
  return exports;
}

/* The macro defines exported functions without prior prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT() { return init(env, exports); }
#pragma GCC diagnostic pop
