/* Counters and percentiles (stats.c). The lock is held for each. */
#ifndef POOL_STATS_H
#define POOL_STATS_H

#include "pool/internal.h"

#include <stdint.h>

/* `job`, just taken from the queue, runs from `now`: it counts as running,
 * its memory as in use, and its wait goes into the wait-time window. */
void stats_job_started(pool *p, pool_job *job, uint64_t now);

/* Lock held. `job` ran and ended at `end` with `rc`: the counters, the
 * moving average and the run-time window. */
void stats_job_ended(pool *p, pool_job *job, int rc, uint64_t end);

/* A worker started `n` jobs at once (1: a job alone): the moving average
 * of jobs per start, which the wait estimate divides by. */
void stats_batch_size(pool *p, unsigned n);

#endif
