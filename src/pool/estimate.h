/* What the scheduler expects jobs to cost, and when a job would start.
 *
 * Run time. A job comes with a predicted cost (pool_job.cost_ns, the
 * KDF's own model of this machine and CPU variant) and a cost class (the
 * submitter's: one per algorithm and digest). Its expected run time is
 *     POOL_JOB_OVERHEAD_NS + scale[class] * cost_ns,
 * where the fixed overhead is what every job pays whatever its size
 * (taking it, binding its output, reporting it) and scale[class] is
 * learned from the jobs of that class that ran: the ratio of two sums,
 * observed run time beyond the overhead over predicted cost, both decayed
 * by predicted cost (a job's weight falls to 1/e once ESTIMATE_HORIZON_NS
 * of predicted work of its class has come after it) and both starting at
 * a prior of 5 ms of predicted work at scale 1. So a job counts in
 * proportion to its predicted cost: a thousand 1-iteration jobs, whose run
 * is all overhead, move the scale of 100,000-iteration jobs of the same
 * class by a fraction of a percent, and classes never share a scale. One
 * observation is clamped to within 8x of the current scale either way, so
 * one preempted job cannot swing it; a real change of speed still gets
 * through in a few jobs. Jobs that predict nothing (cost 0) are expected
 * to take the moving average of their class's run times.
 *
 * Share of a thread. A batch of n jobs on one thread runs them side by
 * side, so a job's share of a thread is its run time over the class's
 * average batch size, once jobs of the class have run. Before, nothing
 * says how the class's batches fill, and the share is a cold guess. A
 * batchable job's cost (batch_max > 1) is the KDF's model of its share of
 * a full batch (src/kdf's tables are measured with the pool saturated);
 * its true share lies between that and batch_max times it (a batch never
 * takes less than one of its jobs alone), so the guess is the geometric
 * mean, cost * sqrt(batch_max): within sqrt(batch_max) of the truth either
 * way (2x for PBKDF2-SHA256's 4 lanes). A job that does not batch is
 * guessed at its cost. The expected share weighs the guess by 1 in a cold
 * class, halving with each job of the class that runs, and what the jobs
 * did by the rest: a cold pool's hints rest on the guess, a warm one's on
 * its jobs within a dozen of them, however small.
 *
 * Start time. With threads free at f_1..f_m (0 for an idle one) and n jobs
 * ahead worth `work` of thread time, a job starts when the first thread is
 * free after the n jobs ahead have each started on the thread free first
 * (list scheduling, each job ahead taken as the average work / n): the
 * (n+1)-th smallest of { f_i + j * work/n : j >= 0 }. It never exceeds the
 * time at which the work ahead would be done if it could be split evenly
 * across threads (that water level is an upper bound), and it is 0 when a
 * thread is idle and nothing is ahead.
 *
 * A data structure only, under the pool's lock; no clock of its own. */
#ifndef POOL_ESTIMATE_H
#define POOL_ESTIMATE_H

#include "pool/pool.h"

#include <stdint.h>

#define POOL_JOB_OVERHEAD_NS 2000u
#define ESTIMATE_HORIZON_NS  (50ull * 1000 * 1000)

typedef struct {
  double spent[POOL_COST_CLASSES];       /* decayed sum of run time beyond the overhead */
  double predicted[POOL_COST_CLASSES];   /* decayed sum of predicted cost */
  double cold[POOL_COST_CLASSES];        /* the cold guess's weight in a share: 1, halved per job */
  uint64_t mean_run[POOL_COST_CLASSES];  /* moving average of run time, jobs with cost 0 */
  unsigned batch_x16[POOL_COST_CLASSES]; /* moving average of jobs per start, x16 */
} estimate;

void estimate_init(estimate *e);
/* The learned scale of a class (1.0 before any of its jobs ran). */
double estimate_scale(const estimate *e, unsigned cls);
/* The cold guess's weight (0..1) in the expected share of a job of class
 * `cls` and cost `cost_ns` (0 for a job that predicts nothing). */
double estimate_cold(const estimate *e, unsigned cls, uint64_t cost_ns);
/* Expected run time of a job, and its share of a thread's time. */
uint64_t estimate_run_ns(const estimate *e, unsigned cls, uint64_t cost_ns);
/* batch_max: the most jobs its batches take (1: it runs alone). */
uint64_t estimate_thread_ns(const estimate *e, unsigned cls, uint64_t cost_ns, unsigned batch_max);
/* A job of the class ran for run_ns; a start of the class took n jobs. */
void estimate_learn(estimate *e, unsigned cls, uint64_t cost_ns, uint64_t run_ns);
void estimate_batch(estimate *e, unsigned cls, unsigned n);
/* How much longer a job that started at `started` and was expected to end
 * at `expected_end` will run, at `now`: what is left of its expected time,
 * and nothing once that has passed. A job that has run longer than
 * expected may end any moment; guessing more would refuse calls at submit
 * for a wait nobody can predict (a deadline refusal at submit must mean
 * the call would really wait that long), and the timer sheds them anyway
 * if the wait turns out long. */
uint64_t estimate_left_ns(uint64_t started, uint64_t expected_end, uint64_t now);
/* When (ns from now) a job would start: `busy_left` holds the time left of
 * each of `nbusy` busy threads, `threads` counts the busy and the idle
 * ones, and n jobs worth `work` of thread time are ahead of it. */
uint64_t estimate_start_ns(const uint64_t *busy_left, unsigned nbusy, unsigned threads,
                           uint64_t work, unsigned n);
/* A bound estimate_start_ns() never exceeds, in O(nbusy): by the time the
 * last busy thread is free and the work ahead has been shared out, plus
 * one job, every job ahead has started. For a deadline far away it spares
 * the search. */
uint64_t estimate_start_bound_ns(const uint64_t *busy_left, unsigned nbusy, unsigned threads,
                                 uint64_t work, unsigned n);

#endif
