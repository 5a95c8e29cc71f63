/* Building the one record shape (see record.h). */
#include "napi/record.h"

#include "common/status.h"

static napi_status set_number(napi_env env, napi_value obj, const char *key, double value) {
  napi_value v;
  napi_status st = napi_create_double(env, value, &v);
  return st == napi_ok ? napi_set_named_property(env, obj, key, v) : st;
}

static napi_status set_string(napi_env env, napi_value obj, const char *key, const char *value) {
  napi_value v;
  napi_status st = napi_create_string_utf8(env, value, NAPI_AUTO_LENGTH, &v);
  return st == napi_ok ? napi_set_named_property(env, obj, key, v) : st;
}

napi_value make_record(napi_env env, const record_info *info) {
  napi_value obj;
  NAPI_CALL(env, napi_create_object(env, &obj), NULL);
  NAPI_CALL(env, set_number(env, obj, "status", info->status), NULL);
  if (info->message != NULL && info->message[0] != '\0')
    NAPI_CALL(env, set_string(env, obj, "message", info->message), NULL);
  /* The refusal's reason is its status (lib/errors.js names it): a
   * saturated pool makes these by the hundred thousand per second, and each
   * property costs a Node-API call and a key lookup. */
  if (info->status == STATUS_EFULL || info->status == STATUS_ETIMEDOUT ||
      info->status == STATUS_EDISPLACED) {
    double ms = (double)info->retry_after_ns / 1e6;
    NAPI_CALL(env, set_number(env, obj, "retryAfterMs", ms), NULL);
    /* Most refusals are told the hint's own seconds, which lib/ works out:
     * a property less to set. */
    uint64_t rounded = info->retry_after_ns / 1000000000 + (info->retry_after_ns % 1000000000 != 0);
    if (info->retry_after_s > rounded && info->retry_after_s > 1)
      NAPI_CALL(env, set_number(env, obj, "retryAfterSeconds", info->retry_after_s), NULL);
  }
  if (info->status == STATUS_EMEMLIMIT) {
    uint64_t budget = info->p != NULL ? pool_max_memory(info->p) : info->max_memory;
    NAPI_CALL(env, set_number(env, obj, "memoryNeeded", (double)info->memory_needed), NULL);
    if (budget != 0) NAPI_CALL(env, set_number(env, obj, "maxMemory", (double)budget), NULL);
  }
  return obj;
}
