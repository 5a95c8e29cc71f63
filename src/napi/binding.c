/* The module: its init and teardown, and the functions lib/ calls (submit,
 * runSync, predictCost, cancel, pools, stats, constants). The top of src/napi/: it
 * calls the other files, none calls it. Never napi_create_async_work or
 * uv_queue_work: those run on libuv's thread pool, the one this project
 * exists to keep free.
 *
 * A job's path: submit() copies the inputs into a job (args.c, jobs.c) and
 * queues it on a pool; a pool thread runs it (jobs.c) and hands it to its
 * environment's completion channel, which settles it on the JS thread
 * through lib/'s completion handler (completions.c). What native code
 * refuses, here or on a pool thread, reaches lib/ as one record shape
 * (record.c), which lib/errors.js turns into the error. */
#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"
#include "napi/args.h"
#include "napi/build.h"
#include "napi/completions.h"
#include "napi/env.h"
#include "napi/jobs.h"
#include "napi/record.h"
#include "napi/registry.h"
#include "napi/testing.h"

#include <stdlib.h>
#include <string.h>

/* ---- jobs ---- */

_Static_assert(KDF_COST_CLASSES <= POOL_COST_CLASSES, "the pool learns every KDF cost class apart");

/* submit(pool, alg, name, outlen, maxWaitMs, cancellable, id, fairKey,
 * n0, n1, n2, n3, n4, n5, ...inputs) -> undefined (or a cancel ticket when
 * cancellable) once the job is queued: it then ends through lib/'s
 * completion handler under `id`, a number lib/ chose (see completions.c).
 * A record (record.h) when the job is refused before it is queued.
 * maxWaitMs = 0: no deadline. fairKey: the caller's client name (a string,
 * hashed here with the process's one key: pool_fair_key), or undefined
 * for none. The numbers (0 for those the algorithm has not) and the
 * inputs (as many as it has, at most KDF_MAX_INPUTS) come one by one, not
 * in arrays: Node-API reads an array element with a generic property
 * lookup, which was most of a cheap call's submit. The job reserves its
 * scratch memory plus its output from the pool's budget. */
static napi_value js_submit(napi_env env, napi_callback_info info) {
  enum { FIRST_NUMBER = 8, FIRST_INPUT = FIRST_NUMBER + KDF_MAX_NUMBERS };
  napi_value argv[FIRST_INPUT + KDF_MAX_INPUTS], result;
  size_t argc;
  env_state *es =
      js_args_var(env, info, FIRST_INPUT, FIRST_INPUT + KDF_MAX_INPUTS, argv, &argc, "submit");
  if (es == NULL) return NULL;
  drain_owed(env, es);
  uint64_t max_wait_ms = 0, fair_key = 0;
  uint32_t id = 0;
  bool cancellable = false;
  if (get_u64(env, argv[4], &max_wait_ms) != 0 ||
      napi_get_value_bool(env, argv[5], &cancellable) != napi_ok ||
      napi_get_value_uint32(env, argv[6], &id) != napi_ok ||
      get_fair_key(env, argv[7], &fair_key) != 0) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL",
                          "submit(): bad maxWaitMs, cancellable, id or fair key");
    return NULL;
  }
  int rc;
  pool_handle *h = get_pool(env, argv[0], &rc);
  if (h == NULL && rc == 0) return NULL; /* not a pool handle: TypeError pending */
  /* From job_new() on, every failure path ends in free_job(), which owns
   * the job's reference to `es` and its ticket. */
  job *j = NULL;
  if (rc == 0 && (j = job_new(es)) == NULL) rc = STATUS_ENOMEM;
  if (rc == 0) {
    request_values v = { .alg = argv[1], .name = argv[2], .outlen = argv[3] };
    memcpy(v.num, argv + FIRST_NUMBER, sizeof v.num);
    memcpy(v.in, argv + FIRST_INPUT, (argc - FIRST_INPUT) * sizeof *v.in);
    rc = build_request(env, &v, &j->req, &j->storage, &j->storage_len);
  }
  if (rc == 0) j->out_room = inline_output(&j->req, j->storage, j->storage_len);
  if (rc == 0) rc = prepare_request(&j->req);
  if (rc == 0 && j->req.outlen > SIZE_MAX - j->req.memory) rc = STATUS_EMEMLIMIT;
  if (rc == 0 && cancellable) rc = job_add_ticket(j);
  if (rc == 0) {
    j->base.work = job_work;
    j->base.done = job_done;
    j->base.memory = j->req.memory + j->req.outlen;
    j->base.output = j->req.outlen; /* malloc'ed by bind_output(), not in the arena */
    j->base.owner = es;
    j->base.max_wait_ns = max_wait_ms * 1000000u;
    j->base.fair_key = fair_key;
    j->base.cost_ns = j->req.cost_ns;
    j->base.cost_class = kdf_cost_class(&j->req);
    /* PBKDF2 jobs of one digest run interleaved when they queue together. */
    j->base.batch_key = kdf_batch_key(&j->req, &j->base.batch_max);
    if (j->base.batch_key != 0) j->base.work_batch = job_work_batch;
    j->pool = h->p;
    j->handle = h;
    j->id = id;
    rc = pool_submit(h->p, &j->base);
  }
  if (rc != 0) {
    /* Refused synchronously: lib/ turns the record into an error. A closed
     * pool may already be freed by its closer thread. */
    record_info refusal = { rc,
                            j != NULL ? j->req.error : NULL,
                            h != NULL && !h->closed ? h->p : NULL,
                            j != NULL ? job_reserved(j) : 0,
                            0,
                            j != NULL ? j->base.retry_after_ns : 0,
                            j != NULL ? j->base.retry_after_s : 0 };
    result = make_record(env, &refusal);
    if (j != NULL) free_job_here(j);
    return result;
  }
  /* From here the job is the pool's: it ends through the completion
   * handler, which runs on this thread, after we return. Nothing below may
   * fail in a way that loses it: a ticket that cannot be made is null (the
   * call then cannot be cancelled, only dropped by lib/). */
  count_in_flight(env, es, j);
  if (!cancellable) {
    napi_get_undefined(env, &result);
    return result;
  }
  ticket_ref(j->ticket);
  if (make_handle(env, j->ticket, ticket_finalize, HANDLE_TICKET, &result) != napi_ok) {
    /* No JS object: JS's reference was never taken; an untagged one's
     * finalizer drops it. */
    if (result == NULL) ticket_unref(j->ticket);
    napi_get_null(env, &result);
  }
  return result;
}

/* cancel(ticket) -> true if the job was still queued (it never runs, and
 * the completion handler never hears of it: lib/ settles the call), false
 * if it already started or ended (a running job keeps its thread until it
 * finishes; its output is then wiped, never handed to JS). */
static napi_value js_cancel(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  env_state *es = js_args(env, info, 1, argv, "cancel");
  if (es == NULL) return NULL;
  ticket *t = get_handle(env, argv[0], HANDLE_TICKET);
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
    free_job_here(j);
    removed = true;
  } else if (j != NULL) {
    j->dropped = 1; /* lib/ settles the call now (see completions.c) */
  }
  NAPI_CALL(env, napi_get_boolean(env, removed, &result), NULL);
  return result;
}

/* runSync(alg, inputs, numbers, name, outlen) -> Buffer, or a record like
 * submit(). Runs on the calling thread. */
static napi_value js_run_sync(napi_env env, napi_callback_info info) {
  napi_value argv[5], result;
  env_state *es = js_args(env, info, 5, argv, "runSync");
  if (es == NULL) return NULL;
  drain_owed(env, es);
  kdf_request *r = KDF_CALLOC(1, sizeof *r);
  uint8_t *storage = NULL;
  size_t storage_len = 0;
  request_values v;
  int rc = r == NULL ? STATUS_ENOMEM : request_values_from_arrays(env, argv, &v);
  if (rc == 0) rc = build_request(env, &v, r, &storage, &storage_len);
  if (rc == 0) rc = prepare_request(r);
  uint8_t *room = rc == 0 ? inline_output(r, storage, storage_len) : NULL;
  if (rc == 0) rc = bind_output(r, room);
  if (rc == 0) rc = run_here(es, r);
  if (rc == 0) {
    rc = napi_create_buffer_copy(env, r->outlen, r->out, NULL, &result) == napi_ok ? 0
                                                                                   : STATUS_ENOMEM;
  }
  if (rc != 0) {
    record_info refusal = { .status = rc, .message = r != NULL ? r->error : NULL };
    result = make_record(env, &refusal);
  }
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

/* [a, b] as a JS array of two numbers, or NULL. */
static napi_value number_pair(napi_env env, double a, double b) {
  napi_value pair, v;
  if (napi_create_array_with_length(env, 2, &pair) != napi_ok) return NULL;
  if (napi_create_double(env, a, &v) != napi_ok || napi_set_element(env, pair, 0, v) != napi_ok)
    return NULL;
  if (napi_create_double(env, b, &v) != napi_ok || napi_set_element(env, pair, 1, v) != napi_ok)
    return NULL;
  return pair;
}

/* predictCost(alg, inputs, numbers, name, outlen) -> [costNs, memory]:
 * the run time predicted for a job with these arguments on the CPU variant
 * that would run it now (the pool's own model, kdf_<alg>_cost_ns) and the
 * memory it would reserve, without running it; a record when kdf_prepare()
 * refuses it. lib/phc/ prices stored hashes with it, so the hash limits and
 * the pool's hints and fair shares share one model. */
static napi_value js_predict_cost(napi_env env, napi_callback_info info) {
  napi_value argv[5], result = NULL;
  if (js_args(env, info, 5, argv, "predictCost") == NULL) return NULL;
  kdf_request *r = KDF_CALLOC(1, sizeof *r);
  uint8_t *storage = NULL;
  size_t storage_len = 0;
  request_values v;
  int rc = r == NULL ? STATUS_ENOMEM : request_values_from_arrays(env, argv, &v);
  if (rc == 0) rc = build_request(env, &v, r, &storage, &storage_len);
  if (rc == 0) rc = prepare_request(r);
  if (rc == 0) {
    result = number_pair(env, (double)r->cost_ns, (double)r->memory);
    if (result == NULL) rc = STATUS_ENOMEM;
  }
  if (rc != 0) {
    record_info refusal = { .status = rc, .message = r != NULL ? r->error : NULL };
    result = make_record(env, &refusal);
  }
  secure_wipe(storage, storage_len);
  KDF_FREE(storage);
  if (r != NULL) secure_wipe(r, sizeof *r);
  KDF_FREE(r);
  return result;
}

/* variant(family) -> the name of the CPU variant that runs `family` now
 * ("sha", "argon2", "scrypt", "bcrypt"), or undefined: what kdf.tune()
 * reports beside what it measured. */
static napi_value js_variant(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  char family[16];
  size_t len;
  if (js_args(env, info, 1, argv, "variant") == NULL) return NULL;
  const char *name = NULL;
  if (napi_get_value_string_utf8(env, argv[0], family, sizeof family, &len) == napi_ok)
    name = kdf_variant(family);
  if (name == NULL) {
    NAPI_CALL(env, napi_get_undefined(env, &result), NULL);
  } else {
    NAPI_CALL(env, napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &result), NULL);
  }
  return result;
}

/* releaseSyncArena(): lib/'s idle timer ran out; the next *Sync call maps
 * its scratch afresh. */
static napi_value js_release_sync_arena(napi_env env, napi_callback_info info) {
  env_state *es = js_args(env, info, 0, NULL, "releaseSyncArena");
  if (es == NULL) return NULL;
  pool_arena_drop(&es->sync_arena);
  return NULL;
}

/* setCompletionHandler(fn) -> ArrayBuffer: fn(count, extras) is called
 * with finished jobs (completions.c); the ArrayBuffer is the memory it
 * reads them from. One per environment. */
static napi_value js_set_completion_handler(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  env_state *es = js_args(env, info, 1, argv, "setCompletionHandler");
  if (es == NULL) return NULL;
  return completions_set_handler(env, es, argv[0]);
}

/* ---- pools ---- */

/* A record for a pool operation's status; `what` is its message. */
static napi_value pool_refusal(napi_env env, int rc, const char *what) {
  record_info refusal = { .status = rc, .message = what };
  return make_record(env, &refusal);
}

static void on_pool_handle_free(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  pool_handle *h = data;
  /* Collected while open: nothing can submit to it any more. JS keeps a
   * pool with jobs in flight reachable, so this only closes idle pools. */
  if (!h->closed) registry_close(h, NULL);
  registry_forget(h);
  KDF_FREE(h);
}

/* createPool(options, name) -> pool handle, or a record. */
static napi_value js_create_pool(napi_env env, napi_callback_info info) {
  napi_value argv[2], result;
  env_state *es = js_args(env, info, 2, argv, "createPool");
  if (es == NULL) return NULL;
  pool_options o;
  pool_option_text text;
  pool_handle *h = NULL;
  int rc = read_pool_options(env, argv[0], &o, &text);
  if (rc == 0 && (h = KDF_CALLOC(1, sizeof *h)) == NULL) rc = STATUS_ENOMEM;
  size_t copied;
  if (rc == 0 &&
      napi_get_value_string_utf8(env, argv[1], h->name, sizeof h->name, &copied) != napi_ok)
    rc = STATUS_EINVAL;
  if (rc == 0) {
    o.name = h->name;
    h->owner = es;
    rc = registry_create(h, &o);
  }
  if (rc != 0) {
    KDF_FREE(h);
    return pool_refusal(env, rc, "createPool() failed");
  }
  napi_status st = make_handle(env, h, on_pool_handle_free, HANDLE_POOL, &result);
  if (result == NULL) {
    registry_close(h, NULL);
    registry_forget(h);
    KDF_FREE(h);
  }
  /* If only the tag failed, the external's finalizer closes and frees. */
  NAPI_CALL(env, st, NULL);
  return result;
}

/* closePool(handle, id) -> undefined: the completion handler resolves `id`
 * with undefined once the pool's threads are gone (queued jobs reject with
 * STATUS_ECLOSED first); or a record if it was already closed. */
static napi_value js_close_pool(napi_env env, napi_callback_info info) {
  napi_value argv[2], result;
  env_state *es = js_args(env, info, 2, argv, "closePool");
  if (es == NULL) return NULL;
  uint32_t id = 0;
  if (napi_get_value_uint32(env, argv[1], &id) != napi_ok) {
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", "closePool(): bad id");
    return NULL;
  }
  pool_handle *h = get_handle(env, argv[0], HANDLE_POOL);
  if (h == NULL) return NULL;
  drain_owed(env, es);
  if (h->closed) return pool_refusal(env, STATUS_ECLOSED, "closePool() failed");
  job *notify = job_new(es);
  if (notify == NULL) return pool_refusal(env, STATUS_ENOMEM, "closePool() failed");
  notify->base.done = job_done;
  notify->resolves_undefined = 1;
  notify->id = id;
  /* Its completion is only handled on this thread, after we return. */
  count_in_flight(env, es, notify);
  registry_close(h, &notify->base);
  napi_get_undefined(env, &result);
  return result;
}

/* configure(options) -> undefined, or a record. */
static napi_value js_configure(napi_env env, napi_callback_info info) {
  napi_value argv[1], result;
  if (js_args(env, info, 1, argv, "configure") == NULL) return NULL;
  pool_options o;
  pool_option_text text;
  int rc = read_pool_options(env, argv[0], &o, &text);
  if (rc == 0) {
    /* Another environment may create the default pool at the same moment:
     * if this call did not create it, the options still apply. */
    pool_handle *h;
    int created;
    rc = registry_default(&h, &o, &created);
    if (rc == 0 && !created) rc = pool_reconfigure(h->p, &o);
  }
  if (rc != 0) return pool_refusal(env, rc, "configure() failed");
  napi_get_undefined(env, &result);
  return result;
}

static napi_status set_value(napi_env env, napi_value obj, const char *key, napi_value v) {
  return napi_set_named_property(env, obj, key, v);
}

static napi_status set_number(napi_env env, napi_value obj, const char *key, double value) {
  napi_value v;
  napi_status st = napi_create_double(env, value, &v);
  return st == napi_ok ? set_value(env, obj, key, v) : st;
}

/* { p50, p99, max } in ms. */
static napi_status set_percentiles(napi_env env, napi_value obj, const char *key,
                                   const pool_percentiles *pc) {
  napi_value o;
  napi_status st = napi_create_object(env, &o);
  if (st == napi_ok) st = set_number(env, o, "p50", (double)pc->p50_ns / 1e6);
  if (st == napi_ok) st = set_number(env, o, "p99", (double)pc->p99_ns / 1e6);
  if (st == napi_ok) st = set_number(env, o, "max", (double)pc->max_ns / 1e6);
  return st == napi_ok ? set_value(env, obj, key, o) : st;
}

/* The name lib/ accepts for a priority (native.constants.priorities). */
static const char *priority_name(pool_priority p) {
#define XX(upper, lower, value) \
  if (p == POOL_PRIORITY_##upper) return #lower;
  POOL_PRIORITY_MAP(XX)
#undef XX
  return NULL;
}

/* stats(pool, name, aborted, maxWaitMs) -> the object Pool#stats() returns
 * (times in ms), or a record. name, aborted and maxWaitMs are lib/'s own
 * (the pool's name, its calls' aborts and default deadline), copied as
 * given, so that the whole object is built here, in its published order. */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4] = { NULL, NULL, NULL, NULL }, obj, undefined, v;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int rc;
  pool_handle *h = get_pool(env, argv[0], &rc);
  if (h == NULL && rc == 0) return NULL; /* not a pool handle: TypeError pending */
  if (rc != 0) return pool_refusal(env, rc, "stats() failed");
  NAPI_CALL(env, napi_get_undefined(env, &undefined), NULL);
  for (size_t i = 1; i < 4; i++)
    if (argv[i] == NULL) argv[i] = undefined;
  pool_stats s;
  pool_get_stats(h->p, &s);
  const char *priority = priority_name(s.priority);
  napi_status st = napi_create_object(env, &obj);
  if (st == napi_ok) st = set_value(env, obj, "name", argv[1]);
  if (st == napi_ok) st = set_number(env, obj, "threads", s.threads);
  if (st == napi_ok) st = set_number(env, obj, "running", s.running);
  if (st == napi_ok) st = set_number(env, obj, "busyThreads", s.busy);
  if (st == napi_ok) st = set_number(env, obj, "queued", s.queued);
  if (st == napi_ok) st = set_number(env, obj, "maxQueue", s.max_queue);
  if (st == napi_ok) st = set_number(env, obj, "submitted", (double)s.submitted);
  if (st == napi_ok) st = set_number(env, obj, "completed", (double)s.completed);
  if (st == napi_ok) st = set_number(env, obj, "failed", (double)s.failed);
  if (st == napi_ok) st = set_number(env, obj, "rejected", (double)s.rejected);
  if (st == napi_ok) st = set_number(env, obj, "cancelled", (double)s.cancelled);
  if (st == napi_ok) st = set_number(env, obj, "shed", (double)s.shed);
  if (st == napi_ok) st = set_number(env, obj, "displaced", (double)s.displaced);
  if (st == napi_ok) st = set_number(env, obj, "refused", (double)s.refused);
  if (st == napi_ok) st = set_number(env, obj, "batched", (double)s.batched);
  if (st == napi_ok) st = set_value(env, obj, "aborted", argv[2]);
  if (st == napi_ok) st = set_number(env, obj, "memoryInUse", (double)s.memory_in_use);
  if (st == napi_ok) st = set_number(env, obj, "maxMemory", (double)s.max_memory);
  if (st == napi_ok) st = set_number(env, obj, "keys", s.keys);
  if (st == napi_ok) st = set_number(env, obj, "remembered", s.remembered);
  if (st == napi_ok) st = set_value(env, obj, "maxWaitMs", argv[3]);
  if (st == napi_ok && priority != NULL)
    st = napi_create_string_utf8(env, priority, NAPI_AUTO_LENGTH, &v);
  if (st == napi_ok) st = set_value(env, obj, "priority", priority != NULL ? v : undefined);
  if (st == napi_ok) st = set_number(env, obj, "avgRunMs", (double)s.avg_run_ns / 1e6);
  if (st == napi_ok)
    st = set_number(env, obj, "estimatedWaitMs", (double)pool_estimate_wait_ns(h->p) / 1e6);
  if (st == napi_ok) st = set_percentiles(env, obj, "waitMs", &s.wait);
  if (st == napi_ok) st = set_percentiles(env, obj, "runMs", &s.run);
  if (st == napi_ok) st = napi_create_object(env, &v);
  if (st == napi_ok) st = set_number(env, v, "maps", (double)s.arena_maps);
  if (st == napi_ok) st = set_number(env, v, "bytes", (double)s.arena_bytes);
  if (st == napi_ok) st = set_value(env, obj, "arena", v);
  if (st == napi_ok && s.host_slots == 0) st = napi_get_null(env, &v);
  if (st == napi_ok && s.host_slots != 0) {
    napi_value key;
    st = napi_create_object(env, &v);
    if (st == napi_ok) st = napi_create_string_utf8(env, s.host_key, NAPI_AUTO_LENGTH, &key);
    if (st == napi_ok) st = set_value(env, v, "key", key);
    if (st == napi_ok) st = set_number(env, v, "slots", s.host_slots);
    if (st == napi_ok) st = set_number(env, v, "held", s.host_held);
    if (st == napi_ok) st = set_number(env, v, "members", s.host_members);
    if (st == napi_ok) st = set_number(env, v, "waitMs", (double)s.host_wait_ns / 1e6);
  }
  if (st == napi_ok) st = set_value(env, obj, "hostSlots", v);
  NAPI_CALL(env, st, NULL);
  return obj;
}

/* maxMemory(pool) -> the pool's memory budget in bytes (what verify()'s
 * limits need, without stats()'s percentile sorting), or a record. */
static napi_value js_max_memory(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1] = { NULL }, result;
  NAPI_CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL), NULL);
  int rc;
  pool_handle *h = get_pool(env, argv[0], &rc);
  if (h == NULL && rc == 0) return NULL; /* not a pool handle: TypeError pending */
  if (rc != 0) return pool_refusal(env, rc, "maxMemory() failed");
  NAPI_CALL(env, napi_create_double(env, (double)pool_max_memory(h->p), &result), NULL);
  return result;
}

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

/* The environment is going away (worker terminated, or normal exit). */
static void on_env_cleanup(void *arg) {
  env_state *es = arg;
  completions_close(es);
  /* This thread's *Sync calls are over for good. */
  pool_arena_drop(&es->sync_arena);
  /* Close the pools this environment made; nobody is left to use them, or
   * to read what their running jobs compute: those stop early too. */
  pool_handle *h;
  while ((h = registry_find(es, NULL, NULL)) != NULL) {
    pool_stop_running(h->p);
    registry_close(h, NULL);
  }
  /* Its waiting jobs will never be wanted: take them out of the shared
   * queue (their done() sees `closed` and frees them). */
  registry_cancel_owner(es);
}

/* Runs after the cleanup hook (Node-API's own teardown was registered
 * before it, and hooks run in reverse order), so it drops the
 * environment's reference last. */
static void on_instance_data_free(napi_env env, void *data, void *hint) {
  (void)hint;
  env_state *es = data;
  completions_forget_handler(env, es);
  env_unref(es);
}

static napi_value init(napi_env env, napi_value exports) {
  registry_init();
  env_state *es = env_new(env);
  if (es == NULL) return NULL;
  if (completions_start(env, es) == NULL) return NULL;
  NAPI_CALL(env, napi_add_env_cleanup_hook(env, on_env_cleanup, es), NULL);
  NAPI_CALL(env, napi_set_instance_data(env, es, on_instance_data_free, NULL), NULL);

  napi_value constants = make_constants(env);
  if (constants == NULL) return NULL;
  napi_value build;
  NAPI_CALL(env, napi_create_string_utf8(env, build_marker(), NAPI_AUTO_LENGTH, &build), NULL);
  napi_property_descriptor props[] = {
    { "constants", NULL, NULL, NULL, NULL, constants, napi_enumerable, NULL },
    { "build", NULL, NULL, NULL, NULL, build, napi_enumerable, NULL },
    { "submit", NULL, js_submit, NULL, NULL, NULL, napi_default, NULL },
    { "runSync", NULL, js_run_sync, NULL, NULL, NULL, napi_default, NULL },
    { "predictCost", NULL, js_predict_cost, NULL, NULL, NULL, napi_default, NULL },
    { "variant", NULL, js_variant, NULL, NULL, NULL, napi_default, NULL },
    { "releaseSyncArena", NULL, js_release_sync_arena, NULL, NULL, NULL, napi_default, NULL },
    { "configure", NULL, js_configure, NULL, NULL, NULL, napi_default, NULL },
    { "stats", NULL, js_stats, NULL, NULL, NULL, napi_default, NULL },
    { "maxMemory", NULL, js_max_memory, NULL, NULL, NULL, napi_default, NULL },
    { "setCompletionHandler", NULL, js_set_completion_handler, NULL, NULL, NULL, napi_default,
      NULL },
    { "cancel", NULL, js_cancel, NULL, NULL, NULL, napi_default, NULL },
    { "createPool", NULL, js_create_pool, NULL, NULL, NULL, napi_default, NULL },
    { "closePool", NULL, js_close_pool, NULL, NULL, NULL, napi_default, NULL },
  };
  NAPI_CALL(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props), NULL);
#ifdef KDFPOOL_TESTING
  if (testing_register(env, exports) == NULL) return NULL;
#endif
  return exports;
}

/* The macro defines exported functions without prior prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT() { return init(env, exports); }
#pragma GCC diagnostic pop
