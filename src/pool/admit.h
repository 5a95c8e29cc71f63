/* Admission (admit.c): whether a call enters the queue, which queued job
 * gives way to it, when a refused or displaced call should retry, and the
 * wait estimates behind those answers. Pure decisions over the discipline
 * (sched.h) and the learned costs (estimate.h): no lock, no thread, no
 * clock of its own; queue.c calls it under the pool's lock with a view of
 * the pool, and test/native/sim_sched.c calls it on a virtual clock. See
 * Fairness in the DESIGN comment of pool.c for the rules and their
 * properties. */
#ifndef POOL_ADMIT_H
#define POOL_ADMIT_H

#include "pool/estimate.h"
#include "pool/pool.h"
#include "pool/promise.h"
#include "pool/retry_seconds.h"
#include "pool/sched.h"

#include <stdint.h>

/* What admission sees of the pool besides its queue. */
typedef struct {
  unsigned threads;   /* the pool's thread count */
  unsigned max_queue; /* its queue bound (0: none may wait) */
  unsigned waiting;   /* jobs waiting for a thread: queued ones, and riders of a batch */
  unsigned places;    /* max_queue, plus one for each idle thread */
  /* With host slots the pool's share of the host may be below its threads:
   * every start then comes this much later (>= 1). */
  double slowdown;
  /* Fills left[] (room for `threads` entries) with what each busy thread
   * that takes jobs (not one leaving after a shrink) has left of its run
   * at `now`; returns how many are busy. Called only when an estimate is
   * needed. */
  unsigned (*busy_left)(const void *ctx, uint64_t now, uint64_t *left);
  /* No busy thread's run is expected to end after this (0: none is busy);
   * a bound on what busy_left() would say, read without it. */
  uint64_t busy_until;
  /* Of the riders counted in `waiting`, how many hold a place against a
   * call of `key` placed at (tag, order) (sched_rider_holds): of each busy
   * thread's jobs under way, those that hold one, less the one the thread
   * itself stands for. NULL: all of them. Called only when the places are
   * taken. */
  unsigned (*riders_before)(const void *ctx, uint64_t key, uint64_t tag, uint64_t order);
  const void *ctx;
  /* The pool's learned costs: how cold a refused job's estimate is (NULL:
   * warm). */
  const estimate *estimate;
} admit_view;

/* What the pool remembers of the hints it handed out. */
typedef struct {
  uint64_t next_ns;      /* the latest retry time handed out */
  retry_seconds seconds; /* the whole seconds promised lately (Retry-After) */
  promises kept;         /* the places promised with them */
} admit_hints;

/* Where an admitted job is queued: (tag, order) for sched_push (order 0:
 * where sched_place says), and the promise it keeps, if any. */
typedef struct {
  uint64_t tag, order;
  const promise *kept;
} admit_place;

/* In how long a job placed at (tag, seq) would start: after the queued
 * jobs served before it (sched_ahead), on the threads as busy as they are
 * (estimate_start_ns). */
uint64_t admit_start_ns(const sched *s, const admit_view *v, uint64_t now, uint64_t tag,
                        uint64_t seq);
/* In how long a job queued behind every queued job would start. */
uint64_t admit_wait_ns(const sched *s, const admit_view *v, uint64_t now);
/* An upper bound on admit_wait_ns() taken in O(1): the queue's work and
 * every busy thread busy until the latest expected end (busy_until). */
uint64_t admit_wait_bound_ns(const sched *s, const admit_view *v, uint64_t now);

/* Whether a queued job placed at `victim_tag` gives way to a call placed
 * at `tag` that is expected to take `expect_ns`: only when it stands more
 * than one of the call's jobs behind it. Keys level with each other never
 * displace one another, whatever their arrival. */
static inline int admit_gives_way(uint64_t victim_tag, uint64_t tag, uint64_t expect_ns) {
  return victim_tag > tag && victim_tag - tag > (expect_ns != 0 ? expect_ns : 1);
}

/* Decides for `job` (fair_key, deadline_ns and expect_ns set), at `now`.
 * Returns 0 (it enters at *place, a promise it keeps taken out of
 * `hints`; *victim, if not NULL, is the queued job that gives way to it),
 * STATUS_EFULL or STATUS_ETIMEDOUT (job->retry_after_ns and retry_after_s
 * set, and a place promised; a call that came before its promise was due
 * is charged first: sched_refused). `hints` is the pool's. */
int admit_decide(sched *s, const admit_view *v, admit_hints *hints, pool_job *job, uint64_t now,
                 pool_job **victim, admit_place *place);

/* Sets the retry hints of a job that left the queue unrun at `now` (shed
 * at its deadline, displaced), and promises its key the place a retry
 * would have now. Its key is not charged: it asked once. */
void admit_hint_retry(sched *s, const admit_view *v, admit_hints *hints, pool_job *job,
                      uint64_t now);

/* A client's level for retry_seconds.h: its place's tag in the call's own
 * job times. Tags only grow, so levels taken at different times compare
 * as places do. */
double admit_level(uint64_t tag, uint64_t expect_ns);

#endif
