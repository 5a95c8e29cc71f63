/* Wake-ups: every wait of a worker on the pool's `wake` condition, and
 * the linger of a worker whose queue ran dry (wake.c). The lock is held on
 * entry and on return of each, and dropped meanwhile. */
#ifndef POOL_WAKE_H
#define POOL_WAKE_H

#include "pool/internal.h"

#include <stdint.h>
#include <time.h>

/* How long a worker whose queue ran dry waits for a submit before it
 * sleeps (see Wake-ups). Long enough to span a JS thread's gap between two
 * submits in a burst of short jobs, short against any real job. */
#define POOL_LINGER_NS 50000u

/* w waits up to POOL_LINGER_NS for a submit, yielding its CPU. */
void wake_linger(pool *p, pool_worker *w);

/* Sleeps on `wake` until `until` (CLOCK_REALTIME; NULL: no timeout).
 * Returns pthread_cond_(timed)wait's result. */
int wake_sleep(pool *p, const struct timespec *until);

/* Sleeps on `wake` for at most `ns`; every wake-up of the pool ends it
 * early. Returns the time slept. */
uint64_t wake_nap(pool *p, uint64_t ns);

#endif
