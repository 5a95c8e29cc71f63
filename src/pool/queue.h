/* The queue of waiting jobs (queue.c). Its discipline (per-key deficit round-robin) is
 * queue.c's alone: other files reach waiting jobs only through these
 * functions, never through the jobs' or the pool's links. The lock is held
 * for each, queue_finish() excepted. */
#ifndef POOL_QUEUE_H
#define POOL_QUEUE_H

#include "pool/internal.h"

/* A job out of the queue is no longer QUEUED, from this moment and under
 * the lock: pool_cancel() must never take a job whose `done` is about to
 * be called by whoever removed it. */
void queue_remove(pool *p, pool_job *job);

/* The job that should start next, or NULL when none waits: the next in
 * deficit round-robin over the keys. It stays the head until the queue
 * changes. */
pool_job *queue_head(const pool *p);

/* Whether queued job `x` may ride in a batch behind `head`. Riders are not
 * charged to their key's turn, so a key may not ride behind its own head
 * while other keys wait (it would take several jobs per turn), and no
 * heavier key may ride behind a lighter one's head (it would slow that
 * head down). Lighter or equal keys may: they gain a start. With one key
 * (no fairKey anywhere) every compatible job may ride, as in FIFO. */
int queue_may_ride(const pool *p, const pool_job *head, const pool_job *x);

/* The head leaves the queue to run, charged to its key's turn (a job that
 * leaves any other way, queue_remove(), is not). */
void queue_start(pool *p, pool_job *job);

/* The job that arrived right after `job` (which is queued) among those
 * still waiting, or NULL: how a batch looks through the window behind its
 * head, in arrival order. */
pool_job *queue_after(const pool *p, const pool_job *job);

/* The head reached the front after its deadline: it leaves the queue
 * unrun, counted as shed, with a retry hint set. */
void queue_shed(pool *p, pool_job *job);

/* Empties the queue (lock held); returns the jobs as a list for
 * queue_finish(), each already marked as no longer queued. */
pool_job *queue_take_all(pool *p);

/* Removes every waiting job for which take(job, arg) is non-zero, each
 * marked as no longer queued; returns them as a list for queue_finish(),
 * and their number in *n. */
pool_job *queue_take_if(pool *p, int (*take)(const pool_job *job, const void *arg), const void *arg,
                        unsigned *n);

/* Calls `done` on a list of jobs taken from the queue, outside the lock. */
void queue_finish(pool_job *list, int status);

#endif
