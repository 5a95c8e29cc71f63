/* Counters and percentiles (stats.c). The lock is held for each. */
#ifndef POOL_STATS_H
#define POOL_STATS_H

#include "pool/internal.h"

#include <stdint.h>

/* `job`, just taken from the queue, runs from `now`: it counts as running,
 * its memory as in use, and its wait goes into the wait-time window. */
void stats_job_started(pool *p, pool_job *job, uint64_t now);

/* Lock held. `job` ran and ended at `end` with `rc`: the counters, the
 * moving average, what its class learns of its run time (estimate.h) and
 * the run-time window. */
void stats_job_ended(pool *p, pool_job *job, int rc, uint64_t end);

/* Worker w starts a run of the n jobs in jobs[] (jobs[0] the head; n is 1
 * for a job alone) at `now`: it is busy, its stop flag is the pool's, the
 * run is expected to end with the longest of its jobs, and the head's class
 * learns its batch size. */
void stats_run_started(pool *p, pool_worker *w, pool_job *const *jobs, unsigned n, uint64_t now);

/* Worker w's run ended (its last job reported): it runs nothing now. */
void stats_run_ended(pool *p, pool_worker *w);

#endif
