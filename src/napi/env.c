/* Environment state and Node-API failures (see env.h). */
#include "napi/env.h"

#include "common/fault.h"

#include <stdlib.h>
#include <string.h>

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

void throw_type_error_once(napi_env env, const char *msg) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) napi_throw_type_error(env, "ERR_KDF_INVALID_HANDLE", msg);
}

env_state *env_new(napi_env env) {
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
  return es;
}

env_state *env_get(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok || data == NULL) {
    napi_throw_error(env, "ERR_KDF_INTERNAL", "kdfpool is not initialised in this environment");
    return NULL;
  }
  return data;
}

void env_ref(env_state *es) { __atomic_add_fetch(&es->refs, 1, __ATOMIC_ACQ_REL); }

void env_unref(env_state *es) {
  if (__atomic_sub_fetch(&es->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
  /* The JS thread dropped its reference last thing: the spares are ours. */
  while (es->spares != NULL) {
    void *next;
    memcpy(&next, es->spares, sizeof next);
    KDF_FREE(es->spares);
    es->spares = next;
  }
  pthread_mutex_destroy(&es->lock);
  KDF_FREE(es);
}

int env_keep_spare(env_state *es, void *block) {
  if (es->n_spares >= ENV_SPARES_MAX) return 0;
  memcpy(block, &es->spares, sizeof es->spares);
  es->spares = block;
  es->n_spares++;
  return 1;
}

void *env_take_spare(env_state *es) {
  void *block = es->spares;
  if (block == NULL) return NULL;
  memcpy(&es->spares, block, sizeof es->spares);
  memset(block, 0, sizeof es->spares);
  es->n_spares--;
  return block;
}
