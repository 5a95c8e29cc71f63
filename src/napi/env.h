/* One Node environment (the main thread, or a worker_thread) as the addon
 * sees it, and the Node-API failure helpers every file of src/napi/ uses.
 * The bottom of src/napi/: it calls nothing else of this folder.
 *
 * An env_state is shared by its environment, its threadsafe function and
 * every job it submitted that has not been freed (a reference count); the
 * last env_unref() frees it. Its completion channel (the fields under
 * `lock`, the TSFN, lib/'s handler) belongs to completions.c; its *Sync
 * arena to the calls that run on the JS thread (jobs.c's run_here()). */
#ifndef NAPI_ENV_H
#define NAPI_ENV_H

#define NAPI_VERSION 8
#include "pool/arena.h"

#include <node_api.h>
#include <pthread.h>
#include <stdint.h>

/* The one Node-API status check: on failure, throw (unless an exception is
 * already pending) and return `fail_value`. */
#define NAPI_CALL(env, call, fail_value)  \
  do {                                    \
    napi_status status_ = (call);         \
    if (status_ != napi_ok) {             \
      throw_napi_failure((env), status_); \
      return (fail_value);                \
    }                                     \
  } while (0)

/* An Error with code ERR_KDF_INTERNAL and Node-API's last message, unless
 * an exception is already pending. */
void throw_napi_failure(napi_env env, napi_status status);
/* A TypeError with code ERR_KDF_INVALID_HANDLE, unless one is pending. */
void throw_type_error_once(napi_env env, const char *msg);

struct job;

typedef struct env_state {
  int refs; /* atomic: environment + TSFN + unfreed jobs */
  /* The completion channel (completions.c). */
  pthread_mutex_t lock; /* guards closed, wake_owed and the finished list */
  int closed;
  /* A wake-up of the JS thread failed while the list was non-empty: the
   * next completion calls the TSFN even though the list is not empty, and
   * the JS thread drains the list on its next call into us. Written under
   * the lock with atomic stores: drain_owed() looks without it first. */
  int wake_owed;
  struct job *done_head, *done_tail;
  napi_threadsafe_function tsfn;
  /* JS thread only: */
  unsigned in_flight;
  /* lib/'s completion handler and the memory it reads finished jobs from:
   * one ArrayBuffer, `meta` then `transfer`. */
  napi_ref on_done;
  napi_ref shared_ref;
  uint32_t *meta;
  uint8_t *transfer;
  /* Scratch of this environment's *Sync calls, kept between them; dropped
   * by releaseSyncArena() (lib/'s idle timer) and at environment teardown. */
  pool_arena sync_arena;
  /* Blocks kept for reuse (env_keep_spare), linked through their first
   * word; freed with the state. */
  void *spares;
  unsigned n_spares;
} env_state;

/* A new state with two references (the environment's and the TSFN's);
 * NULL with an exception pending on failure. */
env_state *env_new(napi_env env);
/* This environment's state; NULL with an exception pending before init. */
env_state *env_get(napi_env env);
void env_ref(env_state *es);
/* Drops a reference; the last one frees the state and its spare blocks. */
void env_unref(env_state *es);

/* JS thread, for blocks of one size (jobs.c's jobs): keeps a zeroed block
 * of at least a pointer's size for env_take_spare(), up to ENV_SPARES_MAX
 * of them; 0 (the caller frees it) when that many are kept. The first
 * word holds the link while kept. */
#define ENV_SPARES_MAX 256
int env_keep_spare(env_state *es, void *block);
/* JS thread: a kept block, zeroed again, or NULL. */
void *env_take_spare(env_state *es);

#endif
