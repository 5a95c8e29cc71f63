/* The queue's discipline: start-time fair queuing (Goyal, Vin and Cheng,
 * 1996) over the jobs' expected thread time, with a bounded memory of the
 * clients it served. Its properties are stated under "Fairness" in the
 * DESIGN comment of pool.c; test/native/sim_sched.c checks them at every
 * step of a simulation on a virtual clock.
 *
 * Tags. Virtual time `vtime` is the start tag of the latest job to start
 * as the head. A job of key k queued now gets the start tag
 *     S = max(vtime, finish(k))
 * and moves finish(k) to S + its expected thread time (at least 1): a key's
 * jobs get consecutive tags, and a key that has had more than its share
 * lately (its finish ahead of vtime) starts that far back. Queued jobs are
 * served in order of (S, arrival), so the next job is always the one with
 * the smallest tag. finish(k) lives in the key's state while it has queued
 * jobs and then, while still ahead of vtime, in the keys' bounded memory
 * (keys.h). When nothing is queued or running, vtime jumps to the largest
 * finish handed out (`vmax`): an idle pool forgets who used it.
 *
 * A job that leaves unrun (cancel, deadline, displacement) takes its tag
 * with it; if it was its key's newest, the key's finish goes back to that
 * tag, so a key is not charged for work it was refused. (An older one
 * leaves a gap its key's later jobs do not close: a key that aborts is
 * charged for what it queued.)
 *
 * The order is one AVL tree of the queued jobs (tree.h) weighted by
 * expected thread time, so the work ahead of any tag is one O(log n)
 * query; deadlines are a second tree of the same jobs. Every operation is
 * O(log queued) plus O(1) for the key (a hash bucket, one memory set):
 * nothing walks the keys. A data structure only, under the pool's lock. */
#ifndef POOL_SCHED_H
#define POOL_SCHED_H

#include "pool/keys.h"
#include "pool/pool.h"
#include "pool/tree.h"

#include <stdint.h>

typedef struct {
  tree order;     /* queued jobs by (tag, arrival): the service order */
  tree deadlines; /* queued jobs that have a deadline, by (deadline, arrival) */
  keys keys;
  uint64_t vtime; /* the start tag of the latest head to start */
  uint64_t vmax;  /* the largest finish tag handed out */
  uint64_t seq;   /* arrivals so far */
} sched;

/* 0, or -1 when out of memory. */
int sched_init(sched *s);
/* The queue must be empty. */
void sched_free(sched *s);

/* The start tag a job of `key` queued now would get. */
uint64_t sched_tag(const sched *s, uint64_t key);
/* Queues `job` (fair_key, deadline_ns and expect_ns set) at the tag
 * sched_tag() gives. 0, or -1 when a new key's state cannot be allocated. */
int sched_push(sched *s, pool_job *job);
/* Takes a queued job out unrun (cancel, deadline, displacement, close). */
void sched_remove(sched *s, pool_job *job);
/* Takes a queued job out to run: `head` for the job sched_head() gave
 * (it moves virtual time), 0 for one riding in its batch. */
void sched_start(sched *s, pool_job *job, int head);
/* Nothing is queued or running: virtual time jumps to vmax. */
void sched_idle(sched *s);

/* The next job to serve (smallest tag), the job served after `job`, the
 * job served last; NULL when there is none. */
pool_job *sched_head(const sched *s);
pool_job *sched_after(const pool_job *job);
pool_job *sched_last(const sched *s);
/* The queued job whose deadline comes first, or NULL. */
pool_job *sched_earliest(const sched *s);
/* The expected thread time, and the number, of the queued jobs a new job
 * with start tag `tag` would be served after. */
void sched_ahead(const sched *s, uint64_t tag, uint64_t *work, unsigned *n);

static inline unsigned sched_queued(const sched *s) { return tree_count(&s->order); }
static inline unsigned sched_keys(const sched *s) { return s->keys.nkeys; }

#endif
