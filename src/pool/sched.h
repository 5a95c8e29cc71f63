/* The queue's discipline: start-time fair queuing (SFQ: Goyal, Vin and
 * Cheng, SIGCOMM 1996) over the jobs' expected thread time, with the
 * system virtual time of WF2Q+ (Bennett and Zhang, "Hierarchical packet
 * fair queueing algorithms", SIGCOMM 1996) and a bounded memory of the
 * clients it served. Its properties are stated under "Fairness" in the
 * DESIGN comment of pool.c; test/native/sim_sched.c checks them at every
 * step of a simulation on a virtual clock.
 *
 * Tags. A job of key k queued now gets the start tag
 *     S = max(V, F(k), M(k))
 * where V is the system virtual time, F(k) the key's finish (the finish
 * tag of the work it was served or has queued: S + the job's expected
 * thread time, at least 1, once queued) and M(k) its refusal mark (below).
 * Queued jobs are served in order of (S, arrival): the order key is
 * unique, and the next job is always the smallest.
 *
 * Virtual time moves with the work served, as WF2Q+ defines it: each job
 * that starts (a head or a batch's rider) moves V to
 *     max(V + expected time / B, S of the next head)
 * where B is the number of keys backlogged when it starts: those with
 * queued jobs (its own counted), and those whose refusal mark is ahead of
 * V. A charged key is a client still asking for service that the bound on
 * the queue turned away: WF2Q+ divides the work served among every
 * session that has work waiting, and a flood's work waits at the door, not
 * in the queue. Counted, it slows V as its queued jobs would (B is at most
 * the keys with queued jobs plus the keys the memory holds), so a client
 * served in the current round stays ahead of a newcomer until the round
 * ends: a thousand flooding keys that keep one call each in the queue
 * are not level with a user arriving. With B keys backlogged, each served
 * in turn, V advances one of their jobs per round: a key that has had its
 * share is level with V, one that had more is ahead by what it had beyond
 * it. V grows by at most the work served (B >= 1) and never stands still
 * while jobs start, whatever the keys: a stream of one-shot keys (each
 * tagged V) moves it as much as one key would. When nothing is queued or
 * running, V jumps to the largest tag handed out (`vmax`): an idle pool
 * forgets how far ahead anyone was, and every charge.
 *
 * Charges. A key's state is its finish and its mark; nothing else moves
 * its place.
 *   - A job that starts keeps its charge: the key was served that work.
 *   - A job that leaves unrun (cancel, abort, deadline, displacement,
 *     close) takes its charge with it, wherever it stood among its key's
 *     jobs: the key's later jobs are tagged again as if it had never been
 *     queued (each S = max(V when queued, the new finish before it)), and
 *     the key's finish with them. Batch riders that started before older
 *     jobs of their key stay charged (carried, at their expected time).
 *   - A call refused at submit that came before the place promised to
 *     its key was due (promise.h: it asks again and again, as a flood
 *     does) moves the key's mark to max(V, M) + the call's expected time,
 *     at most SCHED_REFUSAL_LEAD of those past V: it is placed behind the
 *     clients that wait their turn, by a bounded amount, counts as
 *     backlogged until V passes its mark, and an idle pool forgets it.
 *     Other refusals, displacements and sheds charge nothing.
 *
 * The order is one AVL tree of the queued jobs (tree.h) weighted by
 * expected thread time, so the work ahead of any place is one O(log n)
 * query. Deadlines are kept in a list of the jobs that came in deadline
 * order (a deadline no earlier than the list's last: with one maxWaitMs,
 * every job), O(1) to add and remove, and a second tree for the others;
 * the earliest is the first of either. A removal that tags a key's later
 * jobs again costs O(log n) for each of them; bulk removals (a deadline's
 * sheds, a close) defer that to one pass per key (sched_flush). Every
 * other operation is O(log queued) plus O(1) for the key (a hash bucket,
 * one memory set), and a charge or a start O(log charged) more for the
 * heap of charged keys (keys.h; a start pays for each mark V passes, once):
 * nothing walks the keys. A data structure only, under the pool's lock. */
#ifndef POOL_SCHED_H
#define POOL_SCHED_H

#include "pool/keys.h"
#include "pool/pool.h"
#include "pool/tree.h"

#include <stdint.h>

/* How many of its jobs' expected time a key's refusal mark may lead
 * virtual time by. */
#define SCHED_REFUSAL_LEAD 4
/* Keys whose jobs a bulk removal left to tag again, at most; one more
 * flushes them first. */
#define SCHED_STALE_MAX    32

typedef struct {
  tree order; /* queued jobs by (tag, arrival): the service order */
  /* Queued jobs that have a deadline, by (deadline, arrival): those that
   * came in that order in a list (dl_first .. dl_last), the others in a
   * tree. */
  pool_job *dl_first, *dl_last;
  tree deadlines;
  keys keys;
  uint64_t vtime; /* V */
  uint64_t vmax;  /* the largest tag or mark handed out */
  uint64_t seq;   /* arrivals so far */
  /* Bulk removal: on while it lasts, and the keys it left stale. */
  int deferring;
  unsigned nstale;
  key_state *stale[SCHED_STALE_MAX];
} sched;

/* 0, or -1 when out of memory. */
int sched_init(sched *s);
/* The queue must be empty. */
void sched_free(sched *s);

/* Where a job of `key` would stand if queued now: its start tag, and its
 * order among equal tags (the next arrival number). */
void sched_place(const sched *s, uint64_t key, uint64_t *tag, uint64_t *order);
/* Takes the next arrival number, for a place promised to a refused call
 * (promise.h): no job queued later is placed before it at its tag. */
static inline uint64_t sched_next_arrival(sched *s) { return ++s->seq; }
/* The start tag alone. */
uint64_t sched_tag(const sched *s, uint64_t key);
/* Queues `job` (fair_key, deadline_ns and expect_ns set) where
 * sched_place() says, or, with `order` not 0, at (tag, order), a place
 * promised to it earlier (admit.h); `tag` then is at most where
 * sched_place() says. 0, or -1 when a new key's state cannot be
 * allocated. */
int sched_push(sched *s, pool_job *job, uint64_t tag, uint64_t order);
/* Takes a queued job out unrun (cancel, deadline, displacement, close),
 * uncharging its key. Between sched_defer() and sched_flush() the key's
 * later jobs are tagged again only at the flush. */
void sched_remove(sched *s, pool_job *job);
void sched_defer(sched *s);
void sched_flush(sched *s);
/* Takes a queued job out to run (the head, or a rider of its batch):
 * virtual time moves. */
void sched_start(sched *s, pool_job *job);
/* A call of `key` expected to take `expect_ns` was refused at submit,
 * before its promised place was due: its key's mark moves. */
void sched_refused(sched *s, uint64_t key, uint64_t expect_ns);
/* Nothing is queued or running: virtual time jumps to vmax. */
void sched_idle(sched *s);

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

/* Whether `rider` (a job of a batch under way) holds a place against a
 * call of `key` placed at (tag, order): when it was placed before it, and
 * is the call's own key's or its key is still behind the call (its next
 * tag before the call's). Riders move virtual time past their tags as
 * they start, all at once: a client whose batch caught it up with V is
 * level with a newcomer, whatever the tags its riders had. */
static inline int sched_rider_holds(const sched *s, const pool_job *rider, uint64_t key,
                                    uint64_t tag, uint64_t order) {
  return sched_placed_before(rider, tag, order) &&
         (rider->fair_key == key || sched_tag(s, rider->fair_key) < tag);
}

/* Whether queued job `x` may ride in a batch headed by `head` (their
 * batch key and work already the same): only when its predicted cost is no
 * more than the head's (an unknown cost, 0, rides only with a head whose
 * cost is unknown too). A batch then ends when its head's job does, and a
 * call placed before the riders (which a batch serves out of order) waits
 * for the one job the thread was taking, never for a longer rider: the
 * lanes make that job slower by the kernel's factor alone (docs/design.md,
 * Batches). */
static inline int sched_may_ride(const pool_job *head, const pool_job *x) {
  return x->cost_ns <= head->cost_ns && (x->cost_ns != 0 || head->cost_ns == 0);
}

static inline unsigned sched_queued(const sched *s) { return tree_count(&s->order); }
static inline unsigned sched_keys(const sched *s) { return s->keys.nkeys; }

#endif
