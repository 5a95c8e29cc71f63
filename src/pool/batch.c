/* Batches (see Batches in the DESIGN comment of pool.c): the head and the
 * compatible jobs from the window behind it, run in one work_batch call
 * on one worker, each job started, counted and reported on its own. */
#define _POSIX_C_SOURCE 200809L
#include "pool/batch.h"

#include "pool/budget.h"
#include "pool/internal.h"
#include "pool/pool.h"
#include "pool/queue.h"
#include "pool/sched.h"
#include "pool/seek.h"
#include "pool/stats.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Lock held; `head` is claimed by w. Fills jobs[] with the head and the
 * compatible jobs from the window behind it. Every job's scratch must fit
 * in w's arena reservation and its output beside it; a partner that does
 * not fit raises them, from what the budget has free at this moment, or is
 * skipped. */
static unsigned batch_collect(pool *p, pool_worker *w, pool_job *head, pool_job **jobs,
                              uint64_t now) {
  unsigned n = 0, max = head->batch_max < POOL_MAX_BATCH ? head->batch_max : POOL_MAX_BATCH;
  uint64_t own = budget_job_own(head), scratch = head->memory - own;
  jobs[n++] = head;
  pool_job *x = queue_after(p, head);
  for (unsigned seen = 0; x != NULL && seen < POOL_BATCH_WINDOW && n < max;
       seen++, x = queue_after(p, x)) {
    if (x->batch_key != head->batch_key || x->work_batch != head->work_batch) continue;
    if (!sched_may_ride(head, x)) continue;                    /* the batch ends with its head */
    if (x->deadline_ns != 0 && now > x->deadline_ns) continue; /* the timer sheds it */
    uint64_t x_own = budget_job_own(x), x_scratch = x->memory - x_own;
    if (x_scratch > UINT64_MAX - scratch || x_own > UINT64_MAX - own ||
        budget_reserve_batch(p, w, scratch + x_scratch, own + x_own) != 0)
      continue;
    scratch += x_scratch;
    own += x_own;
    jobs[n++] = x;
  }
  return n;
}

void batch_run(pool *p, pool_worker *w, pool_job *head, uint64_t now) {
  pool_job *jobs[POOL_MAX_BATCH];
  unsigned n = batch_collect(p, w, head, jobs, now);
  for (unsigned i = 0; i < n; i++) {
    queue_start(p, jobs[i]); /* riders are work served: virtual time moves */
    stats_job_started(p, jobs[i], now);
  }
  p->batched += n - 1;
  w->batch = jobs;
  w->batch_len = n;
  w->batch_last = n;
  memset(w->batch_ended, 0, sizeof w->batch_ended);
  stats_run_started(p, w, jobs, n, now);
  worker_unlock_reporting(p, w);

  int rc = head->work_batch(jobs, n, w);
  /* Jobs work_batch did not report end with its status, now. (batch_ended
   * is this thread's to write, under the lock, so others may read it under
   * the lock.) */
  for (unsigned i = 0; i < n; i++)
    if (!w->batch_ended[i] && i != w->batch_last) pool_batch_done(w, jobs[i], rc);
  /* The last job ends with the run, in the same step, as a lone job does:
   * whoever sees no job running sees the worker idle too. Host slots: a
   * batch runs on one thread, so it holds one slot, which goes back before
   * anybody hears that its last job ended. */
  unsigned last = w->batch_last;
  int gave = seek_give_slot(w, 1);
  pthread_mutex_lock(&p->lock);
  w->batch_ended[last] = 1;
  if (gave) seek_slot_given(p, gave);
  stats_job_ended(p, jobs[last], w->batch_last_status, w->batch_last_end);
  stats_run_ended(p, w);
  queue_settle(p);
  budget_release(p, w);
  w->batch = NULL;
  w->batch_len = 0;
  w->ended = jobs[last];
  w->ended_status = w->batch_last_status;
}

void pool_batch_done(pool_worker *w, pool_job *job, int status) {
  pool *p = w->p;
  unsigned i = 0;
  while (i < w->batch_len && w->batch[i] != job) i++;
  if (i == w->batch_len || w->batch_ended[i] || i == w->batch_last)
    abort(); /* not in this batch, or twice */
  uint64_t end = pool_now_ns();
  /* The last job is batch_run()'s to count, with the run's end, and the
   * worker's to report. (Only this thread writes batch_ended: it may count
   * it unlocked.) */
  unsigned open = 0;
  for (unsigned k = 0; k < w->batch_len; k++) open += k != i && !w->batch_ended[k];
  if (open == 0) {
    w->batch_last = i;
    w->batch_last_status = status;
    w->batch_last_end = end;
    return;
  }
  pthread_mutex_lock(&p->lock);
  w->batch_ended[i] = 1;
  stats_job_ended(p, job, status, end);
  queue_place_freed(p, end);
  pthread_mutex_unlock(&p->lock);
  job->done(job, status);
}
