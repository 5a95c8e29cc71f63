/* The queue of waiting jobs (see Flow and Fairness in the DESIGN comment
 * of pool.c): submit, cancel and what leaves unrun, over the discipline of
 * sched.c, with admit.c deciding admission and hints from a view of the
 * pool (its threads, what they have left, its bound). No other file
 * reaches the queued jobs but through queue.h. Queue functions expect the
 * lock held, queue_finish() excepted. */
#define _POSIX_C_SOURCE 200809L
#include "pool/queue.h"

#include "common/status.h"
#include "pool/admit.h"
#include "pool/estimate.h"
#include "pool/hostslots.h"
#include "pool/internal.h"
#include "pool/pool.h"
#include "pool/sched.h"
#include "pool/seek.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the queue ---- */

void queue_remove(pool *p, pool_job *job) {
  sched_remove(&p->sched, job, pool_now_ns());
  job->state = POOL_JOB_DONE;
  p->queued--;
}

void queue_start(pool *p, pool_job *job, int head, uint64_t now) {
  sched_start(&p->sched, job, head, now);
  job->state = POOL_JOB_DONE; /* not QUEUED: pool_cancel() no longer takes it */
  p->queued--;
}

pool_job *queue_head(const pool *p) { return sched_head(&p->sched); }

pool_job *queue_after(const pool *p, const pool_job *job) {
  (void)p;
  return sched_after(job);
}

void queue_settle(pool *p) {
  if (p->queued == 0 && p->running == 0) sched_idle(&p->sched);
}

pool_job *queue_take_if(pool *p, int (*take)(const pool_job *job, const void *arg), const void *arg,
                        unsigned *n) {
  pool_job *taken = NULL, **tail = &taken;
  *n = 0;
  for (pool_job *job = queue_head(p), *next; job != NULL; job = next) {
    next = sched_after(job);
    if (!take(job, arg)) continue;
    queue_remove(p, job);
    *tail = job;
    job->next = NULL;
    tail = &job->next;
    (*n)++;
  }
  queue_settle(p);
  return taken;
}

static int any(const pool_job *job, const void *arg) {
  (void)job;
  (void)arg;
  return 1;
}

pool_job *queue_take_all(pool *p) {
  unsigned n;
  return queue_take_if(p, any, NULL, &n);
}

void queue_finish(pool_job *list, int status) {
  while (list != NULL) {
    pool_job *next = list->next;
    list->prev = list->next = NULL;
    list->done(list, status);
    list = next;
  }
}

/* ---- what admission sees of the pool ---- */

/* Lock held (ctx: the pool). What each busy worker's run has left, of the
 * workers that take jobs (those above `threads` leave after their run). */
static unsigned busy_left(const void *ctx, uint64_t now, uint64_t *left) {
  const pool *p = ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < p->workers_len && i < p->threads; i++) {
    const pool_worker *w = p->workers[i];
    if (w != NULL && w->job != NULL)
      left[n++] = estimate_left_ns(w->started_ns, w->expect_end_ns, now);
  }
  return n;
}

/* Lock held (ctx: the pool). Of each busy batch's jobs under way, those
 * placed before (tag, order), less the one its thread stands for. */
static unsigned riders_before(const void *ctx, uint64_t tag, uint64_t order) {
  const pool *p = ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < p->workers_len; i++) {
    const pool_worker *w = p->workers[i];
    if (w == NULL || w->batch == NULL) continue;
    unsigned open = 0, before = 0;
    for (unsigned k = 0; k < w->batch_len; k++) {
      if (w->batch_ended[k]) continue;
      open++;
      before += sched_placed_before(w->batch[k], tag, order);
    }
    if (open != 0) n += before < open - 1 ? before : open - 1;
  }
  return n;
}

/* Lock held. Jobs that wait for a thread, and the places there are for
 * them: jobs riding in a batch behind its head count as waiting, and a
 * thread that is free makes a place (a job it is about to take is not
 * waiting), so a pool holds at most threads + max_queue jobs, batched or
 * not. With host slots the pool's share of the host is slots / live
 * members (each member taken as loaded as this one); below its threads,
 * every start comes later by threads / share. */
static admit_view view_of(const pool *p) {
  admit_view v = { .threads = p->threads,
                   .max_queue = p->max_queue,
                   .slowdown = 1,
                   .busy_left = busy_left,
                   .riders_before = riders_before,
                   .busy_until = p->busy != 0 ? p->runs_end_ns : 0,
                   .ctx = p };
  v.waiting = p->queued + (p->running > p->busy ? p->running - p->busy : 0);
  v.places = p->max_queue + (p->threads > p->busy ? p->threads - p->busy : 0);
  if (p->hosts != NULL) {
    uint64_t slots = host_slots_count(p->hosts), members = p->host_members ? p->host_members : 1;
    uint64_t want = (uint64_t)p->threads * members;
    if (slots < want) v.slowdown = (double)want / (double)(slots ? slots : 1);
  }
  return v;
}

uint64_t pool_estimate_wait_ns(pool *p) {
  seek_refresh_members(p);
  pthread_mutex_lock(&p->lock);
  admit_view v = view_of(p);
  uint64_t ns = admit_wait_ns(&p->sched, &v, pool_now_ns());
  pthread_mutex_unlock(&p->lock);
  return ns;
}

/* ---- admission and what leaves unrun ---- */

/* Lock held. A queued job is turned away at `now` (shed, displaced): it
 * leaves with a hint, and its key's demand counts it. */
static void turn_away(pool *p, pool_job *job, uint64_t now) {
  queue_remove(p, job);
  admit_view v = view_of(p);
  admit_hint_retry(&p->sched, &v, &p->hint_next_ns, job, now);
  sched_refused(&p->sched, job, now);
}

void queue_shed(pool *p, pool_job *job, uint64_t now) {
  turn_away(p, job, now);
  p->shed++;
  p->refused++;
}

pool_job *queue_take_expired(pool *p, uint64_t now) {
  pool_job *list = NULL, **tail = &list;
  for (pool_job *job; (job = sched_earliest(&p->sched)) != NULL && job->deadline_ns <= now;) {
    queue_shed(p, job, now);
    job->next = NULL;
    *tail = job;
    tail = &job->next;
  }
  queue_settle(p);
  return list;
}

int pool_submit(pool *p, pool_job *job) {
  pthread_mutex_lock(&p->lock);
  int rc = 0;
  pool_job *victim = NULL;
  uint64_t now = pool_now_ns();
  job->retry_after_ns = 0;
  if (job->deadline_ns == 0 && job->max_wait_ns != 0) job->deadline_ns = now + job->max_wait_ns;
  if (p->closing || p->stop) {
    rc = STATUS_ECLOSED;
  } else if (job->memory > p->max_memory) {
    rc = STATUS_EMEMLIMIT;
  } else {
    job->expect_ns = estimate_thread_ns(&p->estimate, job->cost_class, job->cost_ns,
                                        job->batch_key != 0 ? job->batch_max : 1);
    admit_view v = view_of(p);
    rc = admit_decide(&p->sched, &v, &p->hint_next_ns, job, now, &victim);
    if (rc == STATUS_EFULL || rc == STATUS_ETIMEDOUT) sched_refused(&p->sched, job, now);
    if (rc == 0 && sched_push(&p->sched, job, now) != 0) {
      rc = STATUS_ENOMEM;
      victim = NULL;
    }
  }
  if (rc != 0) {
    p->rejected++;
    if (rc == STATUS_EFULL || rc == STATUS_ETIMEDOUT) p->refused++; /* retryable */
    pthread_mutex_unlock(&p->lock);
    return rc;
  }
  p->queued++;
  if (victim != NULL) {
    turn_away(p, victim, now);
    p->displaced++;
    p->refused++;
  }
  job->state = POOL_JOB_QUEUED;
  job->queued_ns = now;
  job->started_ns = job->finished_ns = 0;
  p->submitted++;
  /* The timer sleeps until the earliest deadline it knew of. */
  int tell_timer = job->deadline_ns != 0 && job->deadline_ns < p->timer_until_ns &&
                   sched_earliest(&p->sched) == job;
  __atomic_store_n(&p->submit_seq, p->submit_seq + 1, __ATOMIC_RELEASE);
  int signal = p->sleeping > p->waking && p->queued > p->waking + p->lingering;
  if (signal) p->waking++;
  pthread_mutex_unlock(&p->lock);
  if (signal) pthread_cond_signal(&p->wake);
  if (tell_timer) pthread_cond_signal(&p->timer_wake);
  if (victim != NULL) victim->done(victim, STATUS_EDISPLACED);
  return 0;
}

int pool_cancel(pool *p, pool_job *job) {
  pthread_mutex_lock(&p->lock);
  int rc = STATUS_EINVAL;
  if (job->state == POOL_JOB_QUEUED) {
    /* The job behind a removed head may fit where the head did not. */
    if (job == queue_head(p)) pthread_cond_broadcast(&p->wake);
    queue_remove(p, job);
    queue_settle(p);
    p->cancelled++;
    rc = 0;
  }
  pthread_mutex_unlock(&p->lock);
  return rc;
}

static int owned_by(const pool_job *job, const void *owner) { return job->owner == owner; }

/* Lock held. Whether every job w runs and has not reported belongs to
 * `owner`. */
static int runs_only_for(const pool_worker *w, const void *owner) {
  if (w->job == NULL) return 0;
  if (w->batch == NULL) return w->job->owner == owner;
  for (unsigned i = 0; i < w->batch_len; i++)
    if (!w->batch_ended[i] && w->batch[i]->owner != owner) return 0;
  return 1;
}

unsigned pool_cancel_owner(pool *p, const void *owner) {
  unsigned n;
  pthread_mutex_lock(&p->lock);
  pool_job *head = queue_head(p);
  pool_job *taken = queue_take_if(p, owned_by, owner, &n);
  p->cancelled += n;
  if (queue_head(p) != head) pthread_cond_broadcast(&p->wake);
  for (unsigned i = 0; i < p->workers_len; i++) {
    pool_worker *w = p->workers[i];
    if (w != NULL && runs_only_for(w, owner)) __atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&p->lock);
  queue_finish(taken, STATUS_ECANCELED);
  return n;
}
