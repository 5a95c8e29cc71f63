/* Unpacking what lib/ passes: numbers, byte arrays (copied, never held
 * across threads), the generic request slots, pool options and the typed
 * handles given to JS. Only the shape is checked here; argument policy is
 * lib/'s, algorithm limits are kdf/'s. */
#include "napi/args.h"

#include "common/fault.h"
#include "common/status.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

env_state *js_args_var(napi_env env, napi_callback_info info, size_t min, size_t max,
                       napi_value *argv, size_t *argc, const char *fn) {
  *argc = max;
  NAPI_CALL(env, napi_get_cb_info(env, info, argc, argv, NULL, NULL), NULL);
  env_state *es = env_get(env);
  if (es != NULL && *argc < min) {
    char msg[64];
    snprintf(msg, sizeof msg, "%s() takes %zu arguments", fn, min);
    napi_throw_type_error(env, "ERR_KDF_INTERNAL", msg);
    return NULL;
  }
  if (*argc > max) *argc = max; /* only `max` were read */
  return es;
}

env_state *js_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
                   const char *fn) {
  size_t argc;
  return js_args_var(env, info, n, n, argv, &argc, fn);
}

/* ---- handles ---- */

/* Random values: a tag only has to differ from every other tag in the
 * process. */
static const napi_type_tag tags[] = {
  [HANDLE_POOL] = { 0x6b6466706f6f6c31ULL, 0x9e3779b97f4a7c15ULL },
  [HANDLE_TICKET] = { 0x6b64667469636b31ULL, 0xc2b2ae3d27d4eb4fULL },
};
static const char *const kinds[] = {
  [HANDLE_POOL] = "a pool handle",
  [HANDLE_TICKET] = "a cancel ticket",
};

napi_status make_handle(napi_env env, void *data, napi_finalize finalize, handle_kind kind,
                        napi_value *out) {
  napi_status st = napi_create_external(env, data, finalize, NULL, out);
  if (st != napi_ok) {
    *out = NULL;
    return st;
  }
  return napi_type_tag_object(env, *out, &tags[kind]);
}

void *get_handle(napi_env env, napi_value v, handle_kind kind) {
  napi_valuetype t;
  bool tagged = false;
  void *data = NULL;
  if (napi_typeof(env, v, &t) == napi_ok && t == napi_external &&
      napi_check_object_type_tag(env, v, &tags[kind], &tagged) == napi_ok && tagged &&
      napi_get_value_external(env, v, &data) == napi_ok && data != NULL)
    return data;
  char msg[96];
  snprintf(msg, sizeof msg, "Expected %s made by kdfpool", kinds[kind]);
  throw_type_error_once(env, msg);
  return NULL;
}

pool_handle *get_pool(napi_env env, napi_value v, int *rc) {
  napi_valuetype t;
  *rc = 0;
  if (v == NULL ||
      (napi_typeof(env, v, &t) == napi_ok && (t == napi_null || t == napi_undefined))) {
    pool_handle *h = NULL;
    *rc = registry_default(&h, NULL, NULL);
    return h;
  }
  pool_handle *h = get_handle(env, v, HANDLE_POOL);
  if (h != NULL && h->closed) *rc = STATUS_ECLOSED;
  return h;
}

/* ---- numbers, bytes, requests ---- */

int get_u64(napi_env env, napi_value v, uint64_t *out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return STATUS_EINVAL;
  if (!(d >= 0) || d > 9007199254740991.0 || floor(d) != d) return STATUS_EINVAL;
  *out = (uint64_t)d;
  return 0;
}

/* Whether `v` is undefined. Asked only once a read has failed:
 * napi_typeof costs as much as several reads. */
static int is_undefined(napi_env env, napi_value v) {
  napi_valuetype t;
  return napi_typeof(env, v, &t) == napi_ok && t == napi_undefined;
}

int get_fair_key(napi_env env, napi_value v, uint64_t *out) {
  /* One byte more than the longest name, to tell a name that fits. */
  char name[FAIR_KEY_MAX_BYTES + 1];
  size_t len;
  if (napi_get_value_string_utf8(env, v, name, sizeof name, &len) != napi_ok) {
    *out = 0;
    return is_undefined(env, v) ? 0 : -1;
  }
  if (len > FAIR_KEY_MAX_BYTES - 1) return -1;
  *out = pool_fair_key(name, len);
  return 0;
}

/* Reads the bytes of a Uint8Array (lib/validate.js's toBytes turns every
 * accepted input type into one) or null (empty), given its type `t`. The
 * pointer is only valid until we return to JS. */
static int get_bytes(napi_env env, napi_value v, napi_valuetype t, const uint8_t **data,
                     size_t *len) {
  *data = NULL;
  *len = 0;
  if (t == napi_null) return 0;
  napi_typedarray_type type;
  napi_value ab;
  size_t offset;
  void *p = NULL;
  bool is;
  if (t != napi_object || napi_is_typedarray(env, v, &is) != napi_ok || !is ||
      napi_get_typedarray_info(env, v, &type, len, &p, &ab, &offset) != napi_ok ||
      type != napi_uint8_array)
    return STATUS_EINVAL;
  *data = p;
  return 0;
}

int request_values_from_arrays(napi_env env, const napi_value *argv, request_values *v) {
  uint32_t n_in = 0, n_num = 0;
  *v = (request_values){ .alg = argv[0], .name = argv[3], .outlen = argv[4] };
  if (napi_get_array_length(env, argv[1], &n_in) != napi_ok || n_in > KDF_MAX_INPUTS)
    return STATUS_EINVAL;
  if (napi_get_array_length(env, argv[2], &n_num) != napi_ok || n_num > KDF_MAX_NUMBERS)
    return STATUS_EINVAL;
  for (uint32_t i = 0; i < n_in; i++)
    if (napi_get_element(env, argv[1], i, &v->in[i]) != napi_ok) return STATUS_EINVAL;
  for (uint32_t i = 0; i < n_num; i++)
    if (napi_get_element(env, argv[2], i, &v->num[i]) != napi_ok) return STATUS_EINVAL;
  return 0;
}

/* Fills a request from its values and copies every input into one
 * allocation that the request then owns. An output of at most
 * INLINE_OUTPUT_MAX bytes gets its room at the end of that allocation
 * (inline_output(); one malloc per job, and no free on the JS thread of
 * memory a pool thread allocated); a larger one is allocated when the job
 * starts (see bind_output()).
 *
 * Nothing here runs JS: numbers and strings are read, never converted, and
 * whatever could run JS (an array's getters) ran before, in
 * request_values_from_arrays() or in lib/. So the pointers into the inputs
 * stay valid until they are copied: the job gets one consistent
 * snapshot. */
int build_request(napi_env env, const request_values *v, kdf_request *r, uint8_t **storage,
                  size_t *storage_len) {
  int32_t alg;
  memset(r, 0, sizeof *r);
  *storage = NULL;
  *storage_len = 0;
  if (napi_get_value_int32(env, v->alg, &alg) != napi_ok) return STATUS_EINVAL;
  r->alg = (kdf_alg)alg;
  /* Each value is read as what it usually is first; only a read that
   * fails asks what it is. */
  for (unsigned i = 0; i < KDF_MAX_NUMBERS; i++)
    if (v->num[i] != NULL && get_u64(env, v->num[i], &r->num[i]) != 0) return STATUS_EINVAL;
  size_t copied;
  /* A name that is not a string is no name (scrypt's, argon2's). */
  if (napi_get_value_string_utf8(env, v->name, r->name, sizeof r->name, &copied) == napi_ok &&
      copied >= sizeof r->name - 1)
    return STATUS_EDIGEST; /* a longer name than we can hold is not a digest anybody has */
  uint64_t outlen;
  if (get_u64(env, v->outlen, &outlen) != 0 || outlen > SIZE_MAX / 2) return STATUS_EINVAL;
  r->outlen = (size_t)outlen;
  /* A string input (lib/ passes PBKDF2's password and salt as given) is
   * read as UTF-8 straight into the job, as Buffer.from(s, 'utf8') would
   * encode it (both replace lone surrogates): no JS copy of a password is
   * left behind for the collector, and the call skips two allocations. */
  const uint8_t *src[KDF_MAX_INPUTS] = { 0 };
  int is_string[KDF_MAX_INPUTS] = { 0 }, given[KDF_MAX_INPUTS] = { 0 };
  size_t total = 0;
  for (unsigned i = 0; i < KDF_MAX_INPUTS; i++) {
    napi_valuetype t;
    if (v->in[i] == NULL) continue;
    if (napi_get_value_string_utf8(env, v->in[i], NULL, 0, &r->in_len[i]) == napi_ok) {
      is_string[i] = 1;
    } else if (napi_typeof(env, v->in[i], &t) != napi_ok) {
      return STATUS_EINVAL;
    } else if (t == napi_undefined) {
      continue;
    } else if (get_bytes(env, v->in[i], t, &src[i], &r->in_len[i]) != 0) {
      return STATUS_EINVAL;
    }
    given[i] = 1;
    if (r->in_len[i] > SIZE_MAX / 2 - total) return STATUS_ENOMEM;
    total += r->in_len[i];
  }
  /* One spare byte: the string reader always ends with a NUL, which the
   * next input overwrites (or the spare byte takes). */
  size_t room = total + 1 + (r->outlen <= INLINE_OUTPUT_MAX ? r->outlen : 0);
  *storage = KDF_MALLOC(room);
  if (*storage == NULL) return STATUS_ENOMEM;
  *storage_len = room;
  size_t off = 0;
  for (unsigned i = 0; i < KDF_MAX_INPUTS; i++) {
    if (!given[i]) continue;
    size_t copied = 0;
    if (is_string[i]) {
      if (napi_get_value_string_utf8(env, v->in[i], (char *)*storage + off, r->in_len[i] + 1,
                                     &copied) != napi_ok ||
          copied != r->in_len[i])
        return STATUS_EINVAL;
    } else if (r->in_len[i] != 0) {
      memcpy(*storage + off, src[i], r->in_len[i]);
    }
    r->in[i] = *storage + off;
    off += r->in_len[i];
  }
  return 0;
}

uint8_t *inline_output(const kdf_request *r, uint8_t *storage, size_t storage_len) {
  if (storage == NULL || r->outlen > INLINE_OUTPUT_MAX) return NULL;
  return storage + storage_len - r->outlen;
}

/* Stands in for the output while kdf_prepare() checks a request whose
 * output is not allocated yet; never written: bind_output() replaces it
 * before kdf_run(). */
static uint8_t output_pending[1];

/* kdf_prepare() before the output exists (submit: the job allocates it when
 * it starts). Leaves r->out NULL. */
int prepare_request(kdf_request *r) {
  r->out = output_pending;
  int rc = kdf_prepare(r);
  r->out = NULL;
  return rc;
}

/* Gives a prepared request its output (`room` from inline_output(), or
 * NULL to allocate one) and binds it to the algorithm's parameters:
 * kdf_prepare() copies r->out into them, and it is pure and cheap, so
 * running it again is the one way in. */
int bind_output(kdf_request *r, uint8_t *room) {
  if (r->out == NULL) r->out = room != NULL ? room : KDF_MALLOC(r->outlen ? r->outlen : 1);
  if (r->out == NULL) return STATUS_ENOMEM;
  return kdf_prepare(r);
}

/* *out = 0 when the key is absent or undefined; *present (if not NULL)
 * tells that apart from an explicit 0. */
static int get_opt_u64_present(napi_env env, napi_value obj, const char *key, uint64_t *out,
                               bool *present) {
  bool has = false;
  napi_value v;
  *out = 0;
  if (present != NULL) *present = false;
  if (napi_has_named_property(env, obj, key, &has) != napi_ok || !has) return 0;
  if (napi_get_named_property(env, obj, key, &v) != napi_ok) return STATUS_EINVAL;
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t == napi_undefined) return 0;
  if (present != NULL) *present = true;
  return get_u64(env, v, out);
}

static int get_opt_u64(napi_env env, napi_value obj, const char *key, uint64_t *out) {
  return get_opt_u64_present(env, obj, key, out, NULL);
}

/* A string property into `buf`; absent or undefined: 0 with buf empty.
 * STATUS_EINVAL for anything else, or a string that does not fit. */
static int get_opt_string(napi_env env, napi_value obj, const char *key, char *buf, size_t len) {
  bool has = false;
  napi_value v;
  napi_valuetype t;
  size_t copied;
  buf[0] = '\0';
  if (napi_has_named_property(env, obj, key, &has) != napi_ok || !has) return 0;
  if (napi_get_named_property(env, obj, key, &v) != napi_ok || napi_typeof(env, v, &t) != napi_ok)
    return STATUS_EINVAL;
  if (t == napi_undefined) return 0;
  if (t != napi_string || napi_get_value_string_utf8(env, v, buf, len, &copied) != napi_ok ||
      copied >= len - 1)
    return STATUS_EINVAL;
  return 0;
}

/* Options object -> pool_options (validated in JS; zero = keep/default).
 * Host slots come as hostDir (made by lib/), hostKey, hostSlots, and
 * hostOff = 1 to remove them. */
int read_pool_options(napi_env env, napi_value obj, pool_options *o, pool_option_text *text) {
  uint64_t threads, max_queue, max_memory, priority, idle, host_slots, host_off;
  bool has_queue;
  memset(o, 0, sizeof *o);
  if (get_opt_u64(env, obj, "threads", &threads) ||
      get_opt_u64_present(env, obj, "maxQueue", &max_queue, &has_queue) ||
      get_opt_u64(env, obj, "maxMemory", &max_memory) ||
      get_opt_u64(env, obj, "priority", &priority) || get_opt_u64(env, obj, "arenaIdleMs", &idle) ||
      get_opt_u64(env, obj, "hostSlots", &host_slots) ||
      get_opt_u64(env, obj, "hostOff", &host_off) ||
      get_opt_string(env, obj, "hostDir", text->host_dir, sizeof text->host_dir) ||
      get_opt_string(env, obj, "hostKey", text->host_key, sizeof text->host_key))
    return STATUS_EINVAL;
  if (threads > POOL_MAX_THREADS || max_queue > POOL_MAX_QUEUE || priority > POOL_PRIORITY_LAST ||
      idle > UINT32_MAX || host_slots > POOL_MAX_HOST_SLOTS || host_off > 1)
    return STATUS_EINVAL;
  if (text->host_dir[0] != '\0') {
    if (host_slots == 0) return STATUS_EINVAL;
    o->host_dir = text->host_dir;
    o->host_key = text->host_key;
    o->host_slots = (unsigned)host_slots;
  }
  o->host_off = (int)host_off;
  o->threads = (unsigned)threads;
  /* maxQueue: 0 is a pure semaphore (POOL_QUEUE_NONE), absent keeps/defaults. */
  o->max_queue = has_queue && max_queue == 0 ? POOL_QUEUE_NONE : (unsigned)max_queue;
  o->max_memory = max_memory;
  o->priority = (pool_priority)priority;
  o->arena_idle_ms = (unsigned)idle;
  return 0;
}
