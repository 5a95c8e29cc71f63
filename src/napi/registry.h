/* Every live pool of the process: the default one (created on first use)
 * and those from createPool(), the exit handler that stops them all, and
 * closing a pool without blocking the JS thread. Knows pools and their
 * owners (an opaque environment pointer), nothing of Node-API or jobs. */
#ifndef NAPI_REGISTRY_H
#define NAPI_REGISTRY_H

#include "pool/pool.h"

#include <stdint.h>

/* A pool as JS sees it: the default one, or one from createPool(). */
typedef struct pool_handle {
  pool *p;
  const void *owner; /* the environment that made it; NULL for the default pool */
  int closed;        /* close begun, `p` no longer usable; owner's JS thread only */
  char name[16];     /* createPool()'s name ("default" for the default pool) */
} pool_handle;

/* Once per process: registers the exit handler. */
void registry_init(void);

/* The default pool, created on first use with the options `o` (NULL: the
 * defaults). *created (if not NULL) tells whether this call made it. */
int registry_default(pool_handle **out, const pool_options *o, int *created);

/* Creates h->p from `o` (h->owner and h->name set by the caller) and
 * registers it; STATUS_ECLOSED once the process is exiting. */
int registry_create(pool_handle *h, const pool_options *o);

/* Starts closing a pool made by registry_create(), on a thread of its own:
 * queued jobs end with STATUS_ECLOSED, running ones finish, then the pool
 * is freed and `notify` (may be NULL) is done with status 0. JS thread of
 * the pool's owner. STATUS_ECLOSED if the close had begun already. */
int registry_close(pool_handle *h, pool_job *notify);

/* The handle is about to be freed: the registry must not point at it. */
void registry_forget(const pool_handle *h);

/* The first open pool `owner` made, named `name` (NULL: any name); NULL if
 * none. *matches (if not NULL) counts every one that fits. */
pool_handle *registry_find(const void *owner, const char *name, unsigned *matches);

/* Takes `owner`'s queued jobs out of the default pool (their done() is
 * called with STATUS_ECANCELED). */
void registry_cancel_owner(const void *owner);

#ifdef KDFPOOL_TESTING
/* Test builds (testing.c's gate, which polls it): non-zero once `p` has
 * begun to close (or is no longer registered). Never waits for the
 * registry's lock: the exit handler holds it while it waits for every pool
 * thread, a gate's included; 0 while it is held (ask again later). */
int registry_closing(const pool *p);
#endif

/* What every environment's *Sync arena may keep in all: the default pool's
 * memory budget, or the budget it would be created with. */
uint64_t registry_sync_arena_limit(void);

#endif
