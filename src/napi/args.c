/* Unpacking what lib/ passes: numbers, byte arrays (copied, never held
 * across threads), the generic request slots and pool options. Only the
 * shape is checked here; argument policy is lib/'s, algorithm limits are
 * kdf/'s. */
#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"
#include "napi/binding.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- argument helpers ---- */

env_state *get_env_state(napi_env env) {
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
env_state *js_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv,
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
pool_handle *get_pool(napi_env env, napi_value v, int *rc) {
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

int get_u64(napi_env env, napi_value v, uint64_t *out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return STATUS_EINVAL;
  if (!(d >= 0) || d > 9007199254740991.0 || floor(d) != d) return STATUS_EINVAL;
  *out = (uint64_t)d;
  return 0;
}

/* Reads the bytes of a Uint8Array (lib/validate.js's toBytes turns every
 * accepted input type into one); undefined and null read as empty. The
 * pointer is only valid until we return to JS. */
int get_bytes(napi_env env, napi_value v, const uint8_t **data, size_t *len) {
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
int build_request(napi_env env, napi_value *argv, kdf_request *r, uint8_t **storage,
                  size_t *storage_len) {
  int32_t alg;
  uint32_t n_in = 0, n_num = 0;
  napi_value inputs = argv[0 + 1], numbers = argv[1 + 1];
  const uint8_t *src[KDF_MAX_INPUTS] = { 0 };
  memset(r, 0, sizeof *r);
  *storage = NULL;
  *storage_len = 0;
  if (napi_get_value_int32(env, argv[0], &alg) != napi_ok) return STATUS_EINVAL;
  r->alg = (kdf_alg)alg;
  if (napi_get_array_length(env, inputs, &n_in) != napi_ok || n_in > KDF_MAX_INPUTS)
    return STATUS_EINVAL;
  if (napi_get_array_length(env, numbers, &n_num) != napi_ok || n_num > KDF_MAX_NUMBERS)
    return STATUS_EINVAL;
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
  *storage = KDF_MALLOC(*storage_len ? *storage_len : 1);
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

int get_opt_u64(napi_env env, napi_value obj, const char *key, uint64_t *out) {
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
int read_pool_options(napi_env env, napi_value obj, pool_options *o) {
  uint64_t threads, max_queue, max_memory, priority, idle;
  memset(o, 0, sizeof *o);
  if (get_opt_u64(env, obj, "threads", &threads) || get_opt_u64(env, obj, "maxQueue", &max_queue) ||
      get_opt_u64(env, obj, "maxMemory", &max_memory) ||
      get_opt_u64(env, obj, "priority", &priority) || get_opt_u64(env, obj, "arenaIdleMs", &idle))
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
