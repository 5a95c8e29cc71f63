/* The fair queue's bookkeeping: queued jobs grouped by client key, served in
 * deficit round-robin on their predicted cost, and the reservations that
 * refused keys hold. A data structure only: it takes no lock (the pool's
 * lock guards it), starts no thread and decides no admission; queue.c does
 * (see "Fairness" in the DESIGN comment of pool.c).
 *
 * Keys are opaque 64-bit numbers (the submitter hashes its client names);
 * 0 is the one shared key of jobs that name none, so a queue whose jobs
 * name no key is served in plain FIFO order. A key's state exists while it
 * has queued jobs or a reservation, and is freed (kept on a short spare
 * list) when it has neither. */
#ifndef POOL_FAIR_H
#define POOL_FAIR_H

#include "pool/pool.h"

#include <stdint.h>

typedef struct fair_key fair_key;

/* Where a key's reservation stands. PENDING: it waits for a place in the
 * queue (places that free go to pending reservations first, oldest first);
 * HELD: a place is kept for it, counted against the queue bound; BARRED:
 * it gave one up by calling before it was due, and may take no other
 * until then. */
enum fair_reservation { FAIR_RES_NONE, FAIR_RES_PENDING, FAIR_RES_HELD, FAIR_RES_BARRED };

typedef struct {
  fair_key **buckets;
  unsigned nbuckets, nkeys;
  fair_key *cursor; /* the key whose turn it is; NULL: no job queued */
  unsigned active;  /* keys with queued jobs (the ring's length) */
  uint64_t work;    /* predicted cost of every queued job */
  /* The round-robin quantum: the largest cost queued since the queue was
   * last empty, so a key whose turn comes can always afford its next job
   * and a pick visits at most two keys. */
  uint64_t quantum;
  fair_key *spare;
  unsigned nspare;
  fair_key *pending_head, *pending_tail;
  fair_key *held_head, *held_tail;
  fair_key *barred_head, *barred_tail;
  unsigned pending, held, barred;
} fair_queue;

/* 0, or -1 when out of memory. */
int fair_init(fair_queue *q);
/* Frees every key state; the queue must hold no job. */
void fair_free(fair_queue *q);

/* Appends `job` to its key's jobs with predicted cost `cost` (> 0).
 * Returns 0, or -1 when a new key's state cannot be allocated. */
int fair_push(fair_queue *q, pool_job *job, uint64_t cost);
/* Takes a queued job out without charging its key (cancel, shed,
 * displacement, a ride in a batch). */
void fair_remove(fair_queue *q, pool_job *job);
/* The job deficit round-robin serves next, or NULL. Does not change the
 * queue: fair_take(q, fair_next(q)) does. */
pool_job *fair_next(const fair_queue *q);
/* Takes the job fair_next() returned and charges its key for it. */
void fair_take(fair_queue *q, pool_job *job);

/* Displacement, for a call from key `key` that brings `cost` to a full
 * queue: the newest queued job of the key holding the most queued work,
 * if that key would still hold at least as much as the caller's key after
 * giving it up (so two keys never displace each other in turn); else NULL.
 * Keys that hold no queued job count as holding nothing. */
pool_job *fair_displaceable(const fair_queue *q, uint64_t key, uint64_t cost);

/* The queued work a new job of `key` with `cost` waits behind: its key's
 * own queued work, and meanwhile at most that much plus `cost` of each
 * other key's (the keys take turns). */
uint64_t fair_work_before(const fair_queue *q, uint64_t key, uint64_t cost);

/* Predicted cost of the queued jobs of queued `job`'s key. */
uint64_t fair_job_key_work(const pool_job *job);

/* Predicted cost of the queued jobs of `key` (0 if none). */
uint64_t fair_key_work(const fair_queue *q, uint64_t key);

/* Reservations. */
enum fair_reservation fair_reservation_of(const fair_queue *q, uint64_t key, uint64_t *due_ns);
/* Gives `key` a pending reservation at the back of the line, due at
 * `due_ns` and kept until `until_ns`. Returns 0, or -1 (out of memory, or
 * the key already has one). */
int fair_reserve(fair_queue *q, uint64_t key, uint64_t due_ns, uint64_t until_ns);
/* A pending reservation's new due and keep times; its place in line stays. */
void fair_reschedule(fair_queue *q, uint64_t key, uint64_t due_ns, uint64_t until_ns);
/* The key's reservation ends, and the key may take no other until
 * `until_ns` (it called before its reservation was due). Nothing when it
 * has none. */
void fair_bar(fair_queue *q, uint64_t key, uint64_t until_ns);
/* The key's reservation ends (used or withdrawn). */
void fair_unreserve(fair_queue *q, uint64_t key);
/* Moves up to `places` pending reservations, oldest first, to HELD.
 * Returns how many moved. */
unsigned fair_promote(fair_queue *q, unsigned places);
/* Ends every reservation, and every bar, kept past its `until_ns`. Returns
 * how many HELD ones ended (places given back). */
unsigned fair_expire(fair_queue *q, uint64_t now_ns);
/* Pending reservations ahead of `key`'s in the line (its position, from 0),
 * or the whole line's length if it has none pending. */
unsigned fair_pending_ahead(const fair_queue *q, uint64_t key);

#endif
