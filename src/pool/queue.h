/* The queue of waiting jobs (queue.c). Its discipline (sched.c) is
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

/* The job that should start next, or NULL when none waits: the smallest
 * start tag. It stays the head until the queue changes. */
pool_job *queue_head(const pool *p);

/* The job served right after `job` (which is queued), or NULL: how a batch
 * looks through the window behind its head, in service order. */
pool_job *queue_after(const pool *p, const pool_job *job);

/* A queued job leaves to run: the head or a job riding in its batch
 * (either moves virtual time: sched.h). */
void queue_start(pool *p, pool_job *job);

/* Nothing queued and nothing running: the discipline forgets who used the
 * pool (sched_idle). Called wherever the last job may have left. */
void queue_settle(pool *p);

/* A queued job's deadline passed at `now`: it leaves the queue unrun,
 * counted as shed, with a retry hint set. */
void queue_shed(pool *p, pool_job *job, uint64_t now);

/* Sheds every queued job whose deadline is at or before `now`; returns
 * them as a list for queue_finish(). */
pool_job *queue_take_expired(pool *p, uint64_t now);

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

/* What admitting the inbox leaves to do once the lock is let go: jobs to
 * report (refused, or displaced, each with its status), sleeping workers
 * to signal, the deadline timer to tell. `publish`: publish the inbox's
 * room even if the inbox is empty (after a change of the bounds). */
typedef struct {
  pool_job *turned;
  unsigned wake;
  int tell_timer;
  int publish;
} queue_intake;
#define QUEUE_INTAKE_INIT \
  { NULL, 0, 0, 0 }

/* Lock held. Admits the jobs submitted through the inbox (inbox.h), in
 * the order they came, each as pool_submit() admits under the lock, and
 * publishes what the next submits may do without the lock. Every holder
 * of the lock that looks at the queue on a submitter's behalf, or may
 * sleep while the inbox holds jobs, calls this first. */
void queue_take_inbox(pool *p, queue_intake *in);

/* Lock held. A place freed at `now` outside the worker loop (a batch's
 * job that ended before its run): the inbox hears of it before the job's
 * `done` runs, so a client that calls again at once need not take the lock. */
void queue_place_freed(pool *p, uint64_t now);

/* Lock held on entry and on return: queue_take_inbox(), then what it left
 * to do, the signals under the lock and the reports with it let go (for
 * the threads that loop under the lock: workers, the timer). Returns 1 if
 * it let go of the lock meanwhile: the caller looks again. */
int queue_take_inbox_here(pool *p);

/* Lock not held: signals and reports what queue_take_inbox() left to do.
 * May be called under the lock when `in` holds no job to report. */
void queue_intake_finish(pool *p, queue_intake *in);

#endif
