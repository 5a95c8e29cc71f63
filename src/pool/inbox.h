/* The inbox (inbox.c): how a cheap job is submitted without the pool's
 * lock. See Inbox in the DESIGN comment of pool.c. A leaf: it knows the
 * pool's fields, not the queue; queue.c admits what it holds. */
#ifndef POOL_INBOX_H
#define POOL_INBOX_H

#include "pool/internal.h"

#include <stdint.h>

/* Jobs predicted to cost more than this go through the lock: against
 * their run, the lock costs nothing, and their refusals stay synchronous. */
#define POOL_INBOX_MAX_COST_NS 100000u
/* Added to the least wait of a job with a deadline that comes through. */
#define POOL_INBOX_MARGIN_NS   10000000u

/* No lock held. Puts `job` (deadline_ns already made from max_wait_ns) in
 * the inbox if the published room and bounds allow it, submitted at `now`.
 * Returns 0: it did not (submit through the lock); 1: it did and nothing
 * more is needed; -1: it did, and a worker may be asleep: the caller takes
 * the lock, which admits the inbox, and wakes workers as for any submit. */
int inbox_try(pool *p, pool_job *job, uint64_t now);

/* Lock held. Takes every job in the inbox, in the order they came (a list
 * through `next`), and their number in *n. After inbox_shut(): NULL. */
pool_job *inbox_take(pool *p, unsigned *n);

/* Lock held. What the next submits may do without the lock: `room` more
 * jobs, of `n_taken` taken since the last publish, and with at least
 * `min_wait_ns` of deadline; the budget they may ask of the memory, and
 * when the deadline timer wakes next. */
void inbox_publish(pool *p, unsigned room, unsigned n_taken, uint64_t min_wait_ns);

/* Lock held. No job comes through the inbox again (close, exit); returns
 * the jobs that were in it, in order, and their number in *n. */
pool_job *inbox_shut(pool *p, unsigned *n);

/* Whether jobs wait in the inbox (any thread; sequentially consistent:
 * see wake_sleep). */
int inbox_pending(const pool *p);

#endif
