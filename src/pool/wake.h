/* Wake-ups: every wait of a worker on the pool's `wake` condition, and
 * the linger of a worker whose queue ran dry (wake.c). The lock is held on
 * entry and on return of each, and dropped meanwhile. */
#ifndef POOL_WAKE_H
#define POOL_WAKE_H

#include "pool/internal.h"

#include <stdint.h>

/* How long a worker whose queue ran dry waits for a submit before it
 * sleeps (see Wake-ups). Long enough to span a JS thread's gap between two
 * submits in a burst of short jobs, short against any real job. */
#define POOL_LINGER_NS 50000u

/* w waits up to POOL_LINGER_NS for a submit, yielding its CPU. */
void wake_linger(pool *p, pool_worker *w);

/* Sleeps on `wake` until *until_ns (pool_now_ns clock, which the wait
 * uses too: a step of the wall clock moves nothing), or without a timeout
 * if until_ns is NULL. Returns pthread_cond_wait's result, or
 * os_cond_wait_until's (ETIMEDOUT once *until_ns has passed). */
int wake_sleep(pool *p, const uint64_t *until_ns);

/* Sleeps on `wake` for at most `ns`; every wake-up of the pool ends it
 * early. Returns the time slept. */
uint64_t wake_nap(pool *p, uint64_t ns);

#endif
