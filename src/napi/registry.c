/* Process-wide state (see registry.h).
 *
 * Process exit. OpenSSL tears itself down in an atexit handler registered
 * when node started. Ours is registered later, so it runs first: it stops
 * and joins every pool thread, so none is inside OpenSSL during its cleanup.
 * Not so on Windows: there exit() runs node.exe's exit table (OpenSSL's
 * cleanup among it) while our threads still run, and a DLL's atexit()
 * handlers run later still, at DLL_PROCESS_DETACH, after ExitProcess has
 * ended every other thread. So on Windows the stop is registered with
 * OpenSSL itself (OPENSSL_atexit, found in node.exe like the rest of
 * OpenSSL): OPENSSL_cleanup() calls it before it frees anything. A host
 * without OpenSSL has nothing to tear down under the workers.
 *
 * KDFPOOL_EXIT_TRACE=<file> appends one line to that file once the pools
 * have stopped for exit: which hook stopped them, how many pools and how
 * many jobs were running. test/exit-trace.test.js (atexit, Linux) and
 * test/smoke/run.sh (OPENSSL_atexit, Windows node under wine) check it. */
#include "napi/registry.h"

#include "common/fault.h"
#include "common/status.h"
#include "kdf/openssl.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every live pool, for the exit handler, with its handle for pools made by
 * createPool() (so an environment can close the pools it made). */
typedef struct {
  pool *p;
  pool_handle *handle; /* NULL for the default pool, or once collected */
  const void *owner;
  int closing;
} entry;

/* Guards every static below but the once-flags. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pool_handle default_handle = { NULL, NULL, 0, "default" };
static entry *entries;
static size_t entries_len, entries_cap;
static int exiting;

#ifndef _WIN32
#define EXIT_HOOK "atexit"
#else
#define EXIT_HOOK "OPENSSL_atexit"
#endif

static void trace_exit(size_t pools, unsigned long running) {
  const char *path = getenv("KDFPOOL_EXIT_TRACE");
  if (path == NULL || path[0] == '\0') return;
  FILE *f = fopen(path, "a");
  if (f == NULL) return;
  fprintf(f, "kdfpool exit: stopped by %s: %lu pools, %lu jobs were running, every thread joined\n",
          EXIT_HOOK, (unsigned long)pools, running);
  fclose(f);
}

static void stop_all_pools_at_exit(void) {
  unsigned long running = 0;
  pthread_mutex_lock(&lock);
  exiting = 1;
  for (size_t i = 0; i < entries_len; i++) {
    pool_stats s;
    pool_get_stats(entries[i].p, &s);
    running += s.running;
    pool_stop_for_exit(entries[i].p);
  }
  size_t pools = entries_len;
  pthread_mutex_unlock(&lock);
  trace_exit(pools, running);
}

/* Never a DLL's atexit() on Windows: it runs at DLL_PROCESS_DETACH, when no
 * pool thread is left to stop, and waiting for one (or for a lock it held)
 * would hang the exit. */
static void register_atexit(void) {
#ifndef _WIN32
  atexit(stop_all_pools_at_exit);
#else
  (void)kdf_openssl_at_cleanup(stop_all_pools_at_exit);
#endif
}

void registry_init(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, register_atexit);
}

/* `lock` held. */
static int add(pool *p, pool_handle *handle, const void *owner) {
  if (entries_len == entries_cap) {
    size_t cap = entries_cap ? entries_cap * 2 : 8;
    entry *grown = KDF_REALLOC(entries, cap * sizeof *grown);
    if (grown == NULL) return STATUS_ENOMEM;
    entries = grown;
    entries_cap = cap;
  }
  entries[entries_len] = (entry){ p, handle, owner, 0 };
  entries_len++;
  return 0;
}

static void remove_pool(pool *p) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < entries_len; i++) {
    if (entries[i].p == p) {
      entries[i] = entries[--entries_len];
      break;
    }
  }
  pthread_mutex_unlock(&lock);
}

void registry_forget(const pool_handle *h) {
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < entries_len; i++)
    if (entries[i].handle == h) entries[i].handle = NULL;
  pthread_mutex_unlock(&lock);
}

int registry_default(pool_handle **out, const pool_options *o, int *created) {
  pthread_mutex_lock(&lock);
  int rc = 0;
  if (created != NULL) *created = 0;
  if (default_handle.p == NULL) {
    if (created != NULL) *created = 1;
    pool_options defaults;
    memset(&defaults, 0, sizeof defaults);
    if (o != NULL) defaults = *o;
    defaults.name = "default";
    if (exiting)
      rc = STATUS_ECLOSED;
    else
      rc = pool_create(&default_handle.p, &defaults);
    if (rc == 0 && (rc = add(default_handle.p, NULL, NULL)) != 0) {
      pool_destroy(default_handle.p);
      default_handle.p = NULL;
    }
  }
  pthread_mutex_unlock(&lock);
  *out = rc == 0 ? &default_handle : NULL;
  return rc;
}

int registry_create(pool_handle *h, const pool_options *o) {
  pthread_mutex_lock(&lock);
  int rc = exiting ? STATUS_ECLOSED : pool_create(&h->p, o);
  if (rc == 0 && (rc = add(h->p, h, h->owner)) != 0) pool_destroy(h->p);
  pthread_mutex_unlock(&lock);
  return rc;
}

pool_handle *registry_find(const void *owner, const char *name, unsigned *matches) {
  pool_handle *found = NULL;
  unsigned n = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < entries_len; i++) {
    pool_handle *h = entries[i].handle;
    if (entries[i].owner != owner || h == NULL || h->closed) continue;
    if (name != NULL && strcmp(h->name, name) != 0) continue;
    if (found == NULL) found = h;
    n++;
  }
  pthread_mutex_unlock(&lock);
  if (matches != NULL) *matches = n;
  return found;
}

void registry_cancel_owner(const void *owner) {
  pthread_mutex_lock(&lock);
  pool *shared = default_handle.p;
  pthread_mutex_unlock(&lock);
  if (shared != NULL) pool_cancel_owner(shared, owner);
}

#ifdef KDFPOOL_TESTING
int registry_closing(const pool *p) {
  if (pthread_mutex_trylock(&lock) != 0) return 0;
  int closing = 1;
  for (size_t i = 0; i < entries_len; i++)
    if (entries[i].p == p) closing = entries[i].closing;
  pthread_mutex_unlock(&lock);
  return closing;
}
#endif

/* ---- the *Sync calls' arenas ---- */

static uint64_t default_max_memory;

static void read_default_max_memory(void) { default_max_memory = pool_default_max_memory(); }

/* The default pool's budget (configure({ maxMemory })) is the one number a
 * service sets for KDF scratch. Until the default pool exists, the budget
 * it would be created with (read once: it comes from cgroup files). */
uint64_t registry_sync_arena_limit(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_mutex_lock(&lock);
  pool *p = default_handle.p;
  uint64_t limit = p != NULL ? pool_max_memory(p) : 0;
  pthread_mutex_unlock(&lock);
  if (p != NULL) return limit;
  pthread_once(&once, read_default_max_memory);
  return default_max_memory;
}

/* ---- closing pools made by createPool() ---- */

typedef struct {
  pool *p;
  pool_job *notify; /* done once the threads are gone; may be NULL */
} closer_arg;

static void close_now(pool *p, pool_job *notify) {
  pool_close(p);
  remove_pool(p);
  pool_free(p);
  if (notify != NULL) notify->done(notify, 0);
}

/* Joins on a thread of its own: a running job may take a while to finish,
 * and the JS thread must not wait for it. */
static void *closer_main(void *arg) {
  closer_arg c = *(closer_arg *)arg;
  KDF_FREE(arg);
  close_now(c.p, c.notify);
  return NULL;
}

int registry_close(pool_handle *h, pool_job *notify) {
  if (h->closed) return STATUS_ECLOSED;
  h->closed = 1;
  /* The queue empties here, before anything learns of the close (a gate,
   * a job ending): a thread that frees up before the closer thread runs
   * must not start a job that close() promised to end. */
  pool_shut(h->p);
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < entries_len; i++)
    if (entries[i].p == h->p) entries[i].closing = 1;
  pthread_mutex_unlock(&lock);
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
