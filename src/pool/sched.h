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
 * served in order of S, and among equal tags (clients that virtual time
 * has caught up with, newcomers among them) by
 *   - recent use: the key's recent demand (what it was served and, a
 *     little, what it was turned away), decaying in real time (keys.h), in
 *     256 ranks per doubling (fine enough to tell a client that was
 *     served one job more than another, among clients that have each
 *     been served a few hundred lately): a client that has not asked
 *     lately goes
 *     before one that has, so a flood spread over many keys, each caught
 *     up, still gives way to newcomers;
 *   - then arrival.
 * The order key is (S, rank << SCHED_ARRIVAL_BITS | arrival): unique, and
 * the next job is always the smallest. The key's record lives in its state
 * while it has queued jobs and then, while it still counts, in the keys'
 * bounded memory. When nothing is queued or running, vtime jumps to the
 * largest finish handed out (`vmax`): an idle pool forgets how far ahead
 * anyone was (use still decays in real time).
 *
 * A job that leaves unrun (cancel, deadline, displacement) takes its tag
 * with it; if it was its key's newest, the key's finish goes back to that
 * tag, so a key is not charged for work it was refused. (An older one
 * leaves a gap its key's later jobs do not close: a key that aborts is
 * charged for what it queued.) A job that starts adds its expected time to
 * its key's use.
 *
 * The order is one AVL tree of the queued jobs (tree.h) weighted by
 * expected thread time, so the work ahead of any place is one O(log n)
 * query. Deadlines are kept in a list of the jobs that came in deadline
 * order (a deadline no earlier than the list's last: with one maxWaitMs,
 * every job), O(1) to add and remove, and a second tree for the others;
 * the earliest is the first of either. Every operation is
 * O(log queued) plus O(1) for the key (a hash bucket, one memory set):
 * nothing walks the keys. A data structure only, under the pool's lock;
 * `now` is the pool's clock, passed in. */
#ifndef POOL_SCHED_H
#define POOL_SCHED_H

#include "pool/keys.h"
#include "pool/pool.h"
#include "pool/tree.h"

#include <stdint.h>

/* An arrival number's bits in a job's order key, and a use rank's bits per
 * doubling; the rest of the key is the rank (sched.c), at most 2^14 (1 +
 * 63 * 2^8 + 255): 15 bits. 2^49 arrivals is 17 years of a million calls a
 * second; past that the number wraps (masked), which only reorders jobs
 * tied on tag and rank for a moment. */
#define SCHED_ARRIVAL_BITS 49
#define SCHED_RANK_BITS    8
#define SCHED_ARRIVAL_MASK ((1ull << SCHED_ARRIVAL_BITS) - 1)

typedef struct {
  tree order; /* queued jobs by (tag, order): the service order */
  /* Queued jobs that have a deadline, by (deadline, arrival): those that
   * came in that order in a list (dl_first .. dl_last), the others in a
   * tree. */
  pool_job *dl_first, *dl_last;
  tree deadlines;
  keys keys;
  uint64_t vtime; /* the start tag of the latest head to start */
  uint64_t vmax;  /* the largest finish tag handed out */
  uint64_t seq;   /* arrivals so far */
  /* How fast virtual time moves while the pool is busy (virtual ns per ns,
   * 0 until measured): over windows of SCHED_RATE_WINDOW_NS of starts,
   * smoothed; a window that an idle jump fell into is dropped. */
  double vrate;
  uint64_t rate_v0, rate_t0;
  int rate_open;
} sched;

#define SCHED_RATE_WINDOW_NS (20ull * 1000 * 1000)

/* 0, or -1 when out of memory. */
int sched_init(sched *s);
/* The queue must be empty. */
void sched_free(sched *s);

/* Where a job of `key` would stand if queued now: its start tag, and its
 * order among equal tags (use rank and the next arrival number). */
void sched_place(const sched *s, uint64_t key, uint64_t now, uint64_t *tag, uint64_t *order);
/* The start tag alone. */
uint64_t sched_tag(const sched *s, uint64_t key, uint64_t now);
/* Queues `job` (fair_key, deadline_ns and expect_ns set) where
 * sched_place() says. 0, or -1 when a new key's state cannot be allocated. */
int sched_push(sched *s, pool_job *job, uint64_t now);
/* Takes a queued job out unrun (cancel, deadline, displacement, close). */
void sched_remove(sched *s, pool_job *job, uint64_t now);
/* Takes a queued job out to run: `head` for the job sched_head() gave
 * (it moves virtual time), 0 for one riding in its batch. */
void sched_start(sched *s, pool_job *job, int head, uint64_t now);
/* A call (`job`: fair_key and expect_ns set) was turned away at `now`:
 * refused at submit, or a queued job displaced or shed. Its key's demand
 * counts it (keys_refused). */
void sched_refused(sched *s, const pool_job *job, uint64_t now);
/* Nothing is queued or running: virtual time jumps to vmax. */
void sched_idle(sched *s);
/* In how long virtual time reaches `tag` at the measured rate (0 if it has,
 * or no rate is known yet): a call placed at `tag` is not served before. */
uint64_t sched_reach_ns(const sched *s, uint64_t tag);

/* The next job to serve (smallest tag), the job served after `job`, the
 * job served last; NULL when there is none. */
pool_job *sched_head(const sched *s);
pool_job *sched_after(const pool_job *job);
pool_job *sched_last(const sched *s);
/* The queued job whose deadline comes first, or NULL. */
pool_job *sched_earliest(const sched *s);
/* The expected thread time, and the number, of the queued jobs served
 * before a job placed at (tag, order). */
void sched_ahead(const sched *s, uint64_t tag, uint64_t order, uint64_t *work, unsigned *n);

/* Whether `job` (queued, or started from the queue: it keeps its place)
 * is served before a job placed at (tag, order). */
static inline int sched_placed_before(const pool_job *job, uint64_t tag, uint64_t order) {
  return job->tag < tag || (job->tag == tag && job->order_node.k2 < order);
}

static inline unsigned sched_queued(const sched *s) { return tree_count(&s->order); }
static inline unsigned sched_keys(const sched *s) { return s->keys.nkeys; }

#endif
