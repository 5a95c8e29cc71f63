/* The queue of waiting jobs and admission (see Flow in the DESIGN comment
 * of pool.c): submit, cancel, the wait estimate and the retry hints, and
 * the queue's discipline: per-key deficit round-robin (fair.c keeps the
 * books, this file decides). The discipline is this file's alone: no other
 * file walks the queue's links; they reach waiting jobs only through
 * queue.h. Queue functions expect the lock held, queue_finish() excepted. */
#define _POSIX_C_SOURCE 200809L
#include "pool/queue.h"

#include "common/status.h"
#include "pool/hostslots.h"
#include "pool/internal.h"
#include "pool/pool.h"
#include "pool/seek.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* What `job` is expected to cost here: its predicted cost scaled by what
 * this pool has observed, or the average run time when it brings none
 * (0, unknown, before any job has run: such jobs then count as equal for
 * fair shares, and estimate no wait). */
static uint64_t expected_cost(const pool *p, const pool_job *job) {
  if (job->cost_ns != 0) {
    uint64_t scale = p->cost_scale_x1024 != 0 ? p->cost_scale_x1024 : 1024;
    double ns = (double)job->cost_ns * (double)scale / 1024.0;
    return ns >= 1e18 ? (uint64_t)1e18 : (uint64_t)ns + 1;
  }
  return p->avg_run_ns;
}

static int queue_push(pool *p, pool_job *job) {
  if (fair_push(&p->fair, job, expected_cost(p, job)) != 0) return -1;
  job->next = NULL;
  job->prev = p->tail;
  if (p->tail != NULL)
    p->tail->next = job;
  else
    p->head = job;
  p->tail = job;
  p->queued++;
  return 0;
}

static void unlink_arrival(pool *p, pool_job *job) {
  if (job->prev != NULL)
    job->prev->next = job->next;
  else
    p->head = job->next;
  if (job->next != NULL)
    job->next->prev = job->prev;
  else
    p->tail = job->prev;
  job->prev = job->next = NULL;
  job->state = POOL_JOB_DONE;
  p->queued--;
}

void queue_remove(pool *p, pool_job *job) {
  fair_remove(&p->fair, job);
  unlink_arrival(p, job);
}

void queue_start(pool *p, pool_job *job) {
  fair_take(&p->fair, job);
  unlink_arrival(p, job);
}

pool_job *queue_head(const pool *p) { return fair_next(&p->fair); }

int queue_may_ride(const pool *p, const pool_job *head, const pool_job *x) {
  if (x->fair_key == head->fair_key) return p->fair.active == 1;
  return fair_job_key_work(x) <= fair_job_key_work(head);
}

pool_job *queue_after(const pool *p, const pool_job *job) {
  (void)p;
  return job->next;
}

pool_job *queue_take_if(pool *p, int (*take)(const pool_job *job, const void *arg), const void *arg,
                        unsigned *n) {
  pool_job *taken = NULL, **tail = &taken;
  *n = 0;
  for (pool_job *job = p->head, *next; job != NULL; job = next) {
    next = job->next;
    if (!take(job, arg)) continue;
    queue_remove(p, job);
    *tail = job;
    tail = &job->next;
    (*n)++;
  }
  return taken;
}

pool_job *queue_take_all(pool *p) {
  pool_job *list = p->head;
  for (pool_job *job = list; job != NULL; job = job->next) {
    fair_remove(&p->fair, job);
    job->state = POOL_JOB_DONE;
  }
  p->head = p->tail = NULL;
  p->queued = 0;
  return list;
}

void queue_finish(pool_job *list, int status) {
  while (list != NULL) {
    pool_job *next = list->next;
    list->prev = list->next = NULL;
    list->done(list, status);
    list = next;
  }
}

/* Lock held. The pool's concurrency as the fraction den / num: its
 * threads, or with host slots its share of the host's slots (slots / live
 * members, each member assumed as loaded as this one), unless its threads
 * are fewer. The share may be below one. */
static void concurrency(const pool *p, uint64_t *num, uint64_t *den) {
  *num = 1;
  *den = p->threads ? p->threads : 1;
  if (p->hosts != NULL) {
    uint64_t slots = host_slots_count(p->hosts), members = p->host_members ? p->host_members : 1;
    if (slots < *den * members) {
      *num = members;
      *den = slots;
    }
  }
}

/* Lock held. The expected run time of one start: the moving average once
 * jobs have run; before that, the queued jobs' own expected costs. */
static double run_estimate(const pool *p) {
  if (p->avg_run_ns != 0) return (double)p->avg_run_ns;
  return p->queued != 0 ? (double)p->fair.work / p->queued : 0;
}

static double batch_size(const pool *p) {
  return p->avg_batch_x16 > 16 ? p->avg_batch_x16 / 16.0 : 1.0;
}

/* Lock held. The time between two starts of the busy pool: one run per
 * thread (of its share of the host), `batch` jobs a start. */
static double start_interval(const pool *p) {
  uint64_t num, den;
  concurrency(p, &num, &den);
  return run_estimate(p) * (double)num / ((double)den * batch_size(p));
}

/* Lock held. How long a job with `before` of queued work ahead of it would
 * wait to start: nothing while a thread is free for it; else it starts once
 * all the starts ahead of it but one per thread have ended. In work: the
 * work ahead, a whole run for each busy worker and one for its own start,
 * less one run per thread, over the pool's concurrency and its batches.
 * With host slots the other members are taken to be as loaded as this
 * pool, so the host holds `num` times this work for `den` of its slots. */
static uint64_t wait_behind(const pool *p, double before) {
  uint64_t num, den;
  concurrency(p, &num, &den);
  uint64_t ahead = (uint64_t)p->queued + p->busy + 1;
  if (ahead * num <= den) return 0;
  double run = run_estimate(p);
  double work = (before + (p->busy + 1) * run) * (double)num - (double)den * run;
  if (work <= 0) return 0;
  double ns = work / ((double)den * batch_size(p));
  return ns >= 1e18 ? (uint64_t)1e18 : (uint64_t)ns;
}

/* Lock held. The wait of a job of `key` costing `cost` (fair_work_before:
 * its key's queued work, meanwhile at most as much of each other key's). */
static uint64_t wait_for(const pool *p, uint64_t key, uint64_t cost) {
  return wait_behind(p, (double)fair_work_before(&p->fair, key, cost));
}

/* Lock held. The wait of a job behind every queued one. */
static uint64_t estimate_wait_locked(const pool *p) { return wait_behind(p, (double)p->fair.work); }

/* ---- retry hints and reservations (see Fairness in pool.c) ---- */

/* Lock held. Jobs that wait for a thread, and the places there are for
 * them: jobs riding in a batch behind its head count as waiting, and a
 * thread that is free makes a place (a job it is about to take is not
 * waiting), so a pool holds at most threads + max_queue jobs, batched or
 * not. Held reservations take places too. */
static unsigned waiting(const pool *p) {
  return p->queued + (p->running > p->busy ? p->running - p->busy : 0);
}

static unsigned places_taken(const pool *p) { return waiting(p) + p->fair.held; }

/* Threads with no job: a job one of them takes at once never waits, so it
 * needs no place in the queue, whatever places reservations hold. */
static unsigned idle_threads(const pool *p) {
  return p->threads > p->busy ? p->threads - p->busy : 0;
}

static unsigned places(const pool *p) {
  return p->max_queue + (p->threads > p->busy ? p->threads - p->busy : 0);
}

/* Pending reservations take no place, only a turn in line; held ones are
 * at most the places there are. A pool that queues nothing (max_queue 0)
 * promises no place either. */
static unsigned reservation_cap(const pool *p) {
  return p->max_queue == 0 ? 0 : POOL_MAX_RESERVATIONS;
}

/* Lock held. Reservations kept past their time end, and the places that
 * are free go to the pending ones, oldest first. Nothing to do (and
 * nothing done) when there are none. */
static void settle_reservations(pool *p, uint64_t now) {
  if (p->fair.pending + p->fair.held == 0) return;
  fair_expire(&p->fair, now);
  unsigned taken = places_taken(p), room = places(p);
  if (taken < room) fair_promote(&p->fair, room - taken);
}

/* Lock held. When the place of a reservation with `ahead` others before it
 * in line should be free: a place frees with each start, so one start
 * interval for each place ahead and its own, and two more. Starts come in
 * bursts (a batch takes several jobs at once, then its thread is busy for
 * a whole run), so the average interval runs early for a given place; a
 * retry that comes before its place is free is refused again, while one a
 * little late only leaves a place idle for a moment. The margin was set on
 * bench/overload.js (retrying clients): 1.5 intervals let 68 % of retries
 * at the hint in, 2.5 about 82 %, 3.5 about 88 % at 6 % fewer logins/s. */
static uint64_t reservation_due(const pool *p, uint64_t now, unsigned ahead) {
  return now + (uint64_t)(start_interval(p) * (ahead + 3));
}

static uint64_t reservation_until(uint64_t now, uint64_t due) {
  uint64_t grace = due - now > POOL_RESERVATION_GRACE_NS ? due - now : POOL_RESERVATION_GRACE_NS;
  return due + grace;
}

/* Lock held. The hint for a call refused now that holds no reservation:
 * the estimated wait, and for refusals that come together, successive
 * start intervals after it (up to a queue's worth of them), so that they
 * do not all come back at the same moment. */
static uint64_t spread_hint(pool *p, uint64_t now) {
  double step = start_interval(p);
  uint64_t lo = now + estimate_wait_locked(p);
  uint64_t hi = lo + (uint64_t)(step * (p->max_queue ? p->max_queue : 1));
  uint64_t next = p->hint_next_ns + (uint64_t)step;
  if (next < lo) next = lo;
  if (next > hi) next = hi;
  p->hint_next_ns = next;
  return next - now;
}

/* Lock held. `job` finds (or found, if displaced) the queue full: its hint
 * is when it would start if it were queued now, and no earlier than a
 * place can be free for it. A named key also keeps (or takes) its place
 * in the line of reservations, due then, unless `may_reserve` is 0. */
static void refuse_full(pool *p, pool_job *job, uint64_t now, int may_reserve) {
  uint64_t key = job->fair_key;
  uint64_t start = now + wait_for(p, key, expected_cost(p, job));
  enum fair_reservation r = key != 0 ? fair_reservation_of(&p->fair, key, NULL) : FAIR_RES_NONE;
  if (r == FAIR_RES_PENDING) {
    uint64_t due = reservation_due(p, now, fair_pending_ahead(&p->fair, key));
    if (due < start) due = start;
    fair_reschedule(&p->fair, key, due, reservation_until(now, due));
    job->retry_after_ns = due - now;
    return;
  }
  if (r == FAIR_RES_NONE && key != 0 && may_reserve &&
      p->fair.pending + p->fair.held < reservation_cap(p)) {
    uint64_t due = reservation_due(p, now, p->fair.pending);
    if (due < start) due = start;
    if (fair_reserve(&p->fair, key, due, reservation_until(now, due)) == 0) {
      job->retry_after_ns = due - now;
      return;
    }
  }
  uint64_t spread = spread_hint(p, now);
  job->retry_after_ns = spread > start - now ? spread : start - now;
}

void queue_shed(pool *p, pool_job *job) {
  queue_remove(p, job);
  p->shed++;
  p->refused++;
  job->retry_after_ns = spread_hint(p, pool_now_ns());
}

/* Lock held. Whether `job` may take a place, and which queued job it
 * displaces if the queue is full (*victim; NULL: none). Returns 0 or
 * STATUS_EFULL (with the job's hint set). A call from a key before its
 * reservation is due gives the reservation up, and the key may take no
 * other until that time: a client that does not wait for its hint holds
 * no place, and cannot keep one in line by calling again and again. */
static int admission(pool *p, pool_job *job, uint64_t now, int *reserved, pool_job **victim) {
  *victim = NULL;
  *reserved = 0;
  int may_reserve = 1;
  if (job->fair_key != 0) {
    uint64_t due;
    enum fair_reservation r = fair_reservation_of(&p->fair, job->fair_key, &due);
    if (r == FAIR_RES_BARRED) {
      may_reserve = 0;
    } else if (r != FAIR_RES_NONE && now + POOL_EARLY_NS < due) {
      fair_bar(&p->fair, job->fair_key, due);
      settle_reservations(p, now); /* a held place it gave up goes on down the line */
      may_reserve = 0;
    } else {
      *reserved = r == FAIR_RES_HELD;
    }
  }
  if (*reserved || places_taken(p) < places(p) || waiting(p) < idle_threads(p)) return 0;
  *victim = fair_displaceable(&p->fair, job->fair_key, expected_cost(p, job));
  if (*victim != NULL) return 0;
  refuse_full(p, job, now, may_reserve);
  return STATUS_EFULL;
}

int pool_submit(pool *p, pool_job *job) {
  pthread_mutex_lock(&p->lock);
  int rc = 0, reserved = 0;
  pool_job *victim = NULL;
  uint64_t now = pool_now_ns();
  job->retry_after_ns = 0;
  if (p->closing || p->stop) {
    rc = STATUS_ECLOSED;
  } else if (job->memory > p->max_memory) {
    rc = STATUS_EMEMLIMIT;
  } else {
    settle_reservations(p, now);
    rc = admission(p, job, now, &reserved, &victim);
    if (rc == 0 && job->deadline_ns != 0 &&
        now + wait_for(p, job->fair_key, expected_cost(p, job)) > job->deadline_ns) {
      rc = STATUS_ETIMEDOUT; /* it would start too late: say so now, not later */
      job->retry_after_ns = spread_hint(p, now);
    }
    if (rc == 0 && queue_push(p, job) != 0) rc = STATUS_ENOMEM;
  }
  if (rc != 0) {
    p->rejected++;
    if (rc == STATUS_EFULL || rc == STATUS_ETIMEDOUT) p->refused++; /* retryable */
    pthread_mutex_unlock(&p->lock);
    return rc;
  }
  /* Queued, so its key's state stays while the reservation ends. */
  if (reserved) fair_unreserve(&p->fair, job->fair_key);
  if (victim != NULL) {
    queue_remove(p, victim);
    p->displaced++;
    p->refused++;
    refuse_full(p, victim, now, 1);
  }
  job->state = POOL_JOB_QUEUED;
  job->queued_ns = now;
  job->started_ns = job->finished_ns = 0;
  p->submitted++;
  __atomic_store_n(&p->submit_seq, p->submit_seq + 1, __ATOMIC_RELEASE);
  int signal = p->sleeping > p->waking && p->queued > p->waking + p->lingering;
  if (signal) p->waking++;
  pthread_mutex_unlock(&p->lock);
  if (signal) pthread_cond_signal(&p->wake);
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
    p->cancelled++;
    rc = 0;
  }
  pthread_mutex_unlock(&p->lock);
  return rc;
}

static int owned_by(const pool_job *job, const void *owner) { return job->owner == owner; }

unsigned pool_cancel_owner(pool *p, const void *owner) {
  unsigned n;
  pthread_mutex_lock(&p->lock);
  pool_job *head = queue_head(p);
  pool_job *taken = queue_take_if(p, owned_by, owner, &n);
  p->cancelled += n;
  if (queue_head(p) != head) pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  queue_finish(taken, STATUS_ECANCELED);
  return n;
}

uint64_t pool_estimate_wait_ns(pool *p) {
  seek_refresh_members(p);
  pthread_mutex_lock(&p->lock);
  uint64_t ns = estimate_wait_locked(p);
  pthread_mutex_unlock(&p->lock);
  return ns;
}
