/* Process-wide state: every live pool (the default one, created on first
 * use, and those from createPool()), the exit handler that stops them, and
 * closing a pool without blocking the JS thread.
 *
 * Process exit. OpenSSL tears itself down in an atexit handler registered
 * when node started. Ours is registered later, so it runs first: it stops
 * and joins every pool thread, so none is inside OpenSSL during its cleanup. */
#include "common/fault.h"
#include "common/status.h"
#include "common/wipe.h"
#include "napi/binding.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- process-wide state ---- */

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
pool_handle g_default;
registry_entry *g_pools;
size_t g_pools_len, g_pools_cap;
int g_exiting;
pthread_once_t g_atexit_once = PTHREAD_ONCE_INIT;

static void stop_all_pools_at_exit(void) {
  pthread_mutex_lock(&g_lock);
  g_exiting = 1;
  for (size_t i = 0; i < g_pools_len; i++) pool_stop_for_exit(g_pools[i].p);
  pthread_mutex_unlock(&g_lock);
}

/* Not on Windows: a DLL's atexit handlers run at DLL_PROCESS_DETACH, after
 * ExitProcess has ended every other thread, so no pool thread is left to
 * stop, and waiting for one (or for a lock it held) would hang the exit. */
void register_atexit(void) {
#ifndef _WIN32
  atexit(stop_all_pools_at_exit);
#else
  (void)stop_all_pools_at_exit;
#endif
}

/* g_lock held. */
int registry_add(pool *p, pool_handle *handle, env_state *owner) {
  if (g_pools_len == g_pools_cap) {
    size_t cap = g_pools_cap ? g_pools_cap * 2 : 8;
    registry_entry *grown = KDF_REALLOC(g_pools, cap * sizeof *grown);
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

void registry_remove(pool *p) {
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
void registry_forget_handle(const pool_handle *h) {
  pthread_mutex_lock(&g_lock);
  for (size_t i = 0; i < g_pools_len; i++)
    if (g_pools[i].handle == h) g_pools[i].handle = NULL;
  pthread_mutex_unlock(&g_lock);
}

/* The default pool, created on first use (or by configure()). *created
 * tells whether this call made it (with the options `o`). */
int default_pool_made(pool_handle **out, const pool_options *o, int *created) {
  pthread_mutex_lock(&g_lock);
  int rc = 0;
  *created = 0;
  if (g_default.p == NULL) {
    *created = 1;
    pool_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (o != NULL) defaults = *o;
    defaults.name = "default";
    if (g_exiting)
      rc = STATUS_ECLOSED;
    else
      rc = pool_create(&g_default.p, &defaults);
    if (rc == 0 && (rc = registry_add(g_default.p, NULL, NULL)) != 0) {
      pool_destroy(g_default.p);
      g_default.p = NULL;
    }
  }
  pthread_mutex_unlock(&g_lock);
  *out = rc == 0 ? &g_default : NULL;
  return rc;
}

int default_pool(pool_handle **out, const pool_options *o) {
  int created;
  return default_pool_made(out, o, &created);
}

/* ---- the *Sync calls' arenas ---- */

static uint64_t g_default_max_memory;
static pthread_once_t g_default_max_memory_once = PTHREAD_ONCE_INIT;

static void read_default_max_memory(void) { g_default_max_memory = pool_default_max_memory(); }

/* What every environment's *Sync arena may keep in all: the default pool's
 * memory budget (configure({ maxMemory })), the one number a service sets
 * for KDF scratch. Until the default pool exists, the budget it would be
 * created with (read once: it comes from cgroup files). */
uint64_t sync_arena_limit(void) {
  pthread_mutex_lock(&g_lock);
  pool *p = g_default.p;
  uint64_t limit = p != NULL ? pool_max_memory(p) : 0;
  pthread_mutex_unlock(&g_lock);
  if (p != NULL) return limit;
  pthread_once(&g_default_max_memory_once, read_default_max_memory);
  return g_default_max_memory;
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
  KDF_FREE(arg);
  close_now(c.p, c.notify);
  return NULL;
}

/* JS thread of the pool's owner. */
int close_pool_handle(pool_handle *h, job *notify) {
  if (h->closed) return STATUS_ECLOSED;
  h->closed = 1;
  closer_arg *c = KDF_MALLOC(sizeof *c);
  pthread_attr_t attr;
  pthread_t thread;
  int started = 0;
  if (c != NULL && pthread_attr_init(&attr) == 0) {
    c->p = h->p;
    c->notify = notify;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
#ifndef _WIN32 /* no signal masks on Windows */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
#endif
    started = KDF_PTHREAD_CREATE(&thread, &attr, closer_main, c) == 0;
#ifndef _WIN32
    pthread_sigmask(SIG_SETMASK, &old, NULL);
#endif
    pthread_attr_destroy(&attr);
  }
  if (!started) {
    /* No thread to spare: close here, blocking, rather than not at all. */
    KDF_FREE(c);
    close_now(h->p, notify);
  }
  return 0;
}

/* The environment is going away (worker terminated, or normal exit). */
void on_env_cleanup(void *arg) {
  env_state *es = arg;
  close_env_state(es);
  /* This thread's *Sync calls are over for good. */
  pool_arena_drop(&es->sync_arena);
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
