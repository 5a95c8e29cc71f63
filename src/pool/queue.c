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
#include "pool/inbox.h"
#include "pool/internal.h"
#include "pool/pool.h"
#include "pool/sched.h"
#include "pool/seek.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the queue ---- */

void queue_remove(pool *p, pool_job *job) {
  sched_remove(&p->sched, job);
  job->state = POOL_JOB_DONE;
  p->queued--;
}

void queue_start(pool *p, pool_job *job) {
  sched_start(&p->sched, job);
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
  sched_defer(&p->sched); /* keys' later jobs tagged again once, at the end */
  for (pool_job *job = queue_head(p), *next; job != NULL; job = next) {
    next = sched_after(job);
    if (!take(job, arg)) continue;
    queue_remove(p, job);
    *tail = job;
    job->next = NULL;
    tail = &job->next;
    (*n)++;
  }
  sched_flush(&p->sched);
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
 * that hold a place against a call of `key` at (tag, order), less the one
 * its thread stands for. */
static unsigned riders_before(const void *ctx, uint64_t key, uint64_t tag, uint64_t order) {
  const pool *p = ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < p->workers_len; i++) {
    const pool_worker *w = p->workers[i];
    if (w == NULL || w->batch == NULL) continue;
    unsigned open = 0, before = 0;
    for (unsigned k = 0; k < w->batch_len; k++) {
      if (w->batch_ended[k]) continue;
      open++;
      before += sched_rider_holds(&p->sched, w->batch[k], key, tag, order);
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
                   .ctx = p,
                   .estimate = &p->estimate };
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
  queue_intake in = QUEUE_INTAKE_INIT;
  pthread_mutex_lock(&p->lock);
  queue_take_inbox(p, &in);
  admit_view v = view_of(p);
  uint64_t ns = admit_wait_ns(&p->sched, &v, pool_now_ns());
  pthread_mutex_unlock(&p->lock);
  queue_intake_finish(p, &in);
  return ns;
}

/* ---- admission and what leaves unrun ---- */

/* Lock held. A queued job is turned away at `now` (shed, displaced): it
 * leaves with a hint and a promised place; its key is uncharged. */
static void turn_away(pool *p, pool_job *job, uint64_t now) {
  queue_remove(p, job);
  admit_view v = view_of(p);
  admit_hint_retry(&p->sched, &v, &p->hints, job, now);
}

void queue_shed(pool *p, pool_job *job, uint64_t now) {
  turn_away(p, job, now);
  p->shed++;
  p->refused++;
}

pool_job *queue_take_expired(pool *p, uint64_t now) {
  pool_job *list = NULL, **tail = &list;
  sched_defer(&p->sched); /* keys' later jobs tagged again once, at the end */
  for (pool_job *job; (job = sched_earliest(&p->sched)) != NULL && job->deadline_ns <= now;) {
    queue_shed(p, job, now);
    job->next = NULL;
    *tail = job;
    tail = &job->next;
  }
  sched_flush(&p->sched);
  queue_settle(p);
  return list;
}

/* Lock held. Admits `job` at `now`, or says why not: a status, with
 * job->retry_after_ns set for EFULL and ETIMEDOUT. On 0 it is queued, and
 * *victim, if not NULL, was turned away for it (its `done`, with
 * STATUS_EDISPLACED, is the caller's to call once the lock is let go);
 * in->wake counts a sleeping worker to signal for it, in->tell_timer says
 * the deadline timer must look again. */
static int admit_locked(pool *p, pool_job *job, uint64_t now, pool_job **victim, queue_intake *in) {
  int rc = 0;
  *victim = NULL;
  if (p->closing || p->stop) {
    rc = STATUS_ECLOSED;
  } else if (job->memory > p->max_memory) {
    rc = STATUS_EMEMLIMIT;
  } else {
    job->expect_ns = estimate_thread_ns(&p->estimate, job->cost_class, job->cost_ns,
                                        job->batch_key != 0 ? job->batch_max : 1);
    admit_view v = view_of(p);
    admit_place place;
    rc = admit_decide(&p->sched, &v, &p->hints, job, now, victim, &place);
    if (rc == 0 && sched_push(&p->sched, job, place.tag, place.order) != 0) {
      rc = STATUS_ENOMEM;
      *victim = NULL;
    } else if (rc == 0 && place.kept != NULL) {
      promises_drop(&p->hints.kept, place.kept);
    }
  }
  if (rc != 0) {
    p->rejected++;
    if (rc == STATUS_EFULL || rc == STATUS_ETIMEDOUT) p->refused++; /* retryable */
    return rc;
  }
  p->queued++;
  if (*victim != NULL) {
    turn_away(p, *victim, now);
    p->displaced++;
    p->refused++;
  }
  job->state = POOL_JOB_QUEUED;
  job->started_ns = job->finished_ns = 0;
  p->submitted++;
  /* The timer sleeps until the earliest deadline it knew of. */
  if (job->deadline_ns != 0 && job->deadline_ns < p->timer_until_ns &&
      sched_earliest(&p->sched) == job)
    in->tell_timer = 1;
  if (p->sleeping > p->waking && p->queued > p->waking + p->lingering) {
    __atomic_store_n(&p->waking, p->waking + 1, __ATOMIC_SEQ_CST);
    in->wake++;
  }
  return 0;
}

/* Lock held. What submits through the inbox may do until the lock looks
 * again (inbox.h): the places free now, and a wait long enough that the
 * queue, those places filled with cheap jobs, cannot make a deadline miss
 * (twice the bound, for the estimate's error). `n_taken`: jobs taken from
 * the inbox since the last publish. */
static void publish_room(pool *p, unsigned n_taken, uint64_t now, int always) {
  admit_view v = view_of(p);
  unsigned room = 0;
  if (!p->closing && !p->stop && p->hosts == NULL && v.places > v.waiting)
    room = v.places - v.waiting;
  uint64_t filled = (uint64_t)room * POOL_INBOX_MAX_COST_NS / (p->threads ? p->threads : 1);
  uint64_t min_wait = 2 * (admit_wait_bound_ns(&p->sched, &v, now) + filled) + POOL_INBOX_MARGIN_NS;
  /* Workers look at every claim: the line the submits write is left
   * alone unless the room moved, jobs were taken, or the least wait
   * rose or halved. */
  if (!always && n_taken == 0 && room == p->inbox_published_room &&
      min_wait <= p->inbox_published_wait_ns && min_wait >= p->inbox_published_wait_ns / 2)
    return;
  p->inbox_published_room = room;
  p->inbox_published_wait_ns = min_wait;
  inbox_publish(p, room, n_taken, min_wait);
}

/* Puts `job` on the intake's list of jobs to report, with `status`. */
static void report_later(queue_intake *in, pool_job *job, int status) {
  job->intake_status = status;
  job->next = in->turned;
  in->turned = job;
}

/* Lock held. queue_take_inbox() but for the publish: admits the inbox's
 * jobs at `now`; returns how many it took. */
static unsigned admit_inbox(pool *p, queue_intake *in, uint64_t now) {
  unsigned n;
  pool_job *list = inbox_take(p, &n);
  p->inboxed += n;
  while (list != NULL) {
    pool_job *job = list, *victim;
    list = job->next;
    job->next = NULL;
    int rc = admit_locked(p, job, now, &victim, in);
    if (rc != 0) report_later(in, job, rc);
    if (victim != NULL) report_later(in, victim, STATUS_EDISPLACED);
  }
  return n;
}

void queue_take_inbox(pool *p, queue_intake *in) {
  uint64_t now = pool_now_ns();
  publish_room(p, admit_inbox(p, in, now), now, in->publish);
  in->publish = 0;
}

int queue_take_inbox_here(pool *p) {
  queue_intake in = QUEUE_INTAKE_INIT;
  queue_take_inbox(p, &in);
  if (in.turned == NULL) {
    queue_intake_finish(p, &in); /* signals only: fine under the lock */
    return 0;
  }
  pthread_mutex_unlock(&p->lock);
  queue_intake_finish(p, &in);
  pthread_mutex_lock(&p->lock);
  return 1;
}

void queue_place_freed(pool *p, uint64_t now) { publish_room(p, 0, now, 0); }

void queue_intake_finish(pool *p, queue_intake *in) {
  for (; in->wake != 0; in->wake--) pthread_cond_signal(&p->wake);
  if (in->tell_timer) pthread_cond_signal(&p->timer_wake);
  in->tell_timer = 0;
  pool_job *list = in->turned;
  in->turned = NULL;
  while (list != NULL) {
    pool_job *job = list;
    list = job->next;
    job->next = NULL;
    job->done(job, job->intake_status);
  }
}

int pool_submit(pool *p, pool_job *job) {
  uint64_t now = pool_now_ns();
  if (job->deadline_ns == 0 && job->max_wait_ns != 0) job->deadline_ns = now + job->max_wait_ns;
  int through_inbox = inbox_try(p, job, now);
  if (through_inbox > 0) return 0;
  queue_intake in = QUEUE_INTAKE_INIT;
  pthread_mutex_lock(&p->lock);
  /* Submits through the inbox came first: they are admitted first (and
   * this one with them, if a sleeping worker sent it here). One publish
   * then says what they and this one left. */
  unsigned taken = admit_inbox(p, &in, now);
  int rc = 0;
  pool_job *victim = NULL;
  if (through_inbox == 0) {
    job->retry_after_ns = 0;
    job->retry_after_s = 0;
    rc = admit_locked(p, job, now, &victim, &in);
    if (rc == 0) {
      job->queued_ns = now;
      __atomic_fetch_add(&p->submit_seq, 1, __ATOMIC_RELEASE);
    }
  }
  publish_room(p, taken, now, rc == 0 && through_inbox == 0); /* a place fewer */
  pthread_mutex_unlock(&p->lock);
  queue_intake_finish(p, &in);
  if (victim != NULL) victim->done(victim, STATUS_EDISPLACED);
  return rc;
}

int pool_cancel(pool *p, pool_job *job) {
  queue_intake in = QUEUE_INTAKE_INIT;
  pthread_mutex_lock(&p->lock);
  queue_take_inbox(p, &in); /* the job may be there */
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
  queue_intake_finish(p, &in);
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
  queue_intake in = QUEUE_INTAKE_INIT;
  pthread_mutex_lock(&p->lock);
  queue_take_inbox(p, &in); /* the owner's jobs there go too */
  pool_job *head = queue_head(p);
  pool_job *taken = queue_take_if(p, owned_by, owner, &n);
  p->cancelled += n;
  if (queue_head(p) != head) pthread_cond_broadcast(&p->wake);
  for (unsigned i = 0; i < p->workers_len; i++) {
    pool_worker *w = p->workers[i];
    if (w != NULL && runs_only_for(w, owner)) __atomic_store_n(&w->stop, 1, __ATOMIC_RELAXED);
  }
  pthread_mutex_unlock(&p->lock);
  queue_intake_finish(p, &in);
  queue_finish(taken, STATUS_ECANCELED);
  return n;
}
