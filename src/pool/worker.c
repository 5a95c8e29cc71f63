/* The workers (see Threads, Wake-ups, Priorities and Resizing in the
 * DESIGN comment of pool.c): each worker's loop, which sheds, claims and
 * runs the head, lingers and sleeps, and gives back idle memory and
 * slots; its name and priority; starting and joining the threads. */
#define _POSIX_C_SOURCE 200809L
#include "pool/worker.h"

#include "common/fault.h"
#include "common/status.h"
#include "pool/batch.h"
#include "pool/budget.h"
#include "pool/internal.h"
#include "pool/os.h"
#include "pool/pool.h"
#include "pool/priority.h"
#include "pool/queue.h"
#include "pool/seek.h"
#include "pool/stats.h"
#include "pool/wake.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void set_thread_name(const pool *p, unsigned index) {
  char name[32];
  snprintf(name, sizeof name, "kdf-%s-%u", p->name, index);
  os_thread_set_name(name);
}

static int worker_should_exit(const pool *p, const pool_worker *w) {
  return p->closing || p->stop || w->index >= p->threads;
}

/* Lock held on entry and on return. The head's deadline has passed and the
 * timer (deadline.c) has not shed it yet: it never runs, whether or not
 * its memory would fit. */
static void shed_head(pool *p, pool_job *job, uint64_t now) {
  queue_shed(p, job, now);
  queue_settle(p);
  pthread_mutex_unlock(&p->lock);
  job->done(job, STATUS_ETIMEDOUT);
  pthread_mutex_lock(&p->lock);
}

static void run_one(pool *p, pool_worker *w, pool_job *job, uint64_t now);

/* Lock held on entry and on return; `job` is the head, claimed by w. */
static void run_job(pool *p, pool_worker *w, pool_job *job) {
  uint64_t began = pool_now_ns();
  if (job->batch_key != 0 && job->work_batch != NULL) {
    batch_run(p, w, job, began);
  } else {
    run_one(p, w, job, began);
  }
  /* Linger after short runs only: after a long one a wake-up costs little
   * against the job, and a worker that sleeps lets the next burst gather
   * into a batch instead of taking its first job alone. */
  w->lingered = pool_now_ns() - began >= POOL_LINGER_NS;
}

/* Lock held on entry and on return; `job` is the head, claimed by w at
 * `now`. It returns with the job's end counted and the job left to report. */
static void run_one(pool *p, pool_worker *w, pool_job *job, uint64_t now) {
  queue_start(p, job);
  stats_job_started(p, job, now);
  stats_run_started(p, w, &job, 1, now);
  worker_unlock_reporting(p, w);

  int rc = job->work(job, w);
  uint64_t end = pool_now_ns();
  /* Host slots: the slot goes back before anybody hears that the job ended. */
  int gave = seek_give_slot(w, 1);

  pthread_mutex_lock(&p->lock);
  if (gave) seek_slot_given(p, gave);
  stats_job_ended(p, job, rc, end);
  stats_run_ended(p, w);
  queue_settle(p);
  budget_release(p, w);
  w->ended = job;
  w->ended_status = rc;
}

static void *worker_main(void *arg);

/* Applies the pool's priority to this worker. 'mixed' is decided here, by
 * the worker's index, so every OS layer gets it for free: the first C-1
 * workers (C = the CPUs this process may use) are normal, the rest low. A
 * pool that grows or shrinks keeps that split, since indexes stay put.
 * 'auto' is priority.c's (a worker's second thread runs worker_main too). */
static void apply_priority(pool *p, pool_worker *w, pool_priority priority) {
  if (priority == POOL_PRIORITY_MIXED)
    priority = w->index + 1 < os_cpu_count() ? POOL_PRIORITY_NORMAL : POOL_PRIORITY_LOW;
  priority_apply(p, w, priority);
}

static void *worker_main(void *arg) {
  pool_worker *w = arg;
  pool *p = w->p;
  /* 'auto': the worker's own thread starts its twin before it takes its
   * name (a new thread inherits it); a twin names itself. */
  int twin = priority_start(p, w, worker_main);
  if (twin < 0) return NULL; /* a twin whose worker left before it ever ran */
  if (twin == 0) set_thread_name(p, w->index);

  pthread_mutex_lock(&p->lock);
  unsigned priority_generation = p->priority_generation;
  pool_priority priority = p->priority;
  pthread_mutex_unlock(&p->lock);
  apply_priority(p, w, priority);

  pthread_mutex_lock(&p->lock);
next:
  while (!worker_should_exit(p, w)) {
    /* Jobs submitted through the inbox join the queue first. */
    if (queue_take_inbox_here(p)) continue;
    /* 'auto': the worker may move to its other thread, or come back. */
    int turn = priority_turn(p, w);
    if (turn < 0) return NULL; /* a twin that ends: lock released */
    if (turn > 0) continue;
    if (priority_generation != p->priority_generation) {
      priority_generation = p->priority_generation;
      priority = p->priority;
      pthread_mutex_unlock(&p->lock);
      apply_priority(p, w, priority);
      pthread_mutex_lock(&p->lock);
      continue;
    }
    if (w->arena_generation != p->arena_generation) {
      w->arena_generation = p->arena_generation;
      budget_drop_arena(p, w);
      continue;
    }
    pool_job *job = queue_head(p);
    if (job != NULL && job->deadline_ns != 0) {
      uint64_t now = pool_now_ns();
      if (now > job->deadline_ns) {
        shed_head(p, job, now);
        continue;
      }
    }
    /* Host slots: looking for one may take a while. */
    if (job != NULL && p->hosts != NULL && w->ended != NULL) {
      worker_report_ended(p, w);
      continue;
    }
    if (job != NULL) {
      enum budget_claim c = budget_claim(p, w, job);
      /* Host slots: the memory fits, but w also needs a slot. */
      if (c == CLAIM_RUN && !seek_ready(p, w)) continue;
      if (c == CLAIM_RUN) run_job(p, w, job); /* gives its slot back */
      if (c != CLAIM_WAIT) continue;
    }
    /* Nothing to start: the ended job is reported (a linger does it as it
     * begins), and a held slot goes back (it would block the host). */
    if (w->ended != NULL && (job != NULL || w->lingered)) {
      worker_report_ended(p, w);
      continue;
    }
    if (seek_stop(p, w)) continue;
    if (w->slot_owner != NULL) {
      seek_drop_slot(p, w);
      continue;
    }
    if (job == NULL && !w->lingered) {
      wake_linger(p, w);
      continue;
    }
    if (w->arena == NULL) {
      wake_sleep(p, NULL);
      continue;
    }
    /* Holding scratch memory: give it back after a quiet period. */
    uint64_t until = pool_now_ns() + (uint64_t)p->arena_idle_ms * 1000000u;
    if (wake_sleep(p, &until) == ETIMEDOUT) budget_drop_arena(p, w);
  }
  worker_report_ended(p, w);
  int stay = priority_leave(p, w); /* a twin hands the worker back */
  if (stay < 0) return NULL;
  if (stay > 0) goto next;
  budget_drop_arena(p, w);
  seek_stop(p, w);
  seek_drop_slot(p, w);
  /* The pool may have grown back while the lock was free; worker_start()
   * counts on a worker that is still ALIVE to keep going. */
  if (!worker_should_exit(p, w)) goto next;
  /* After this the thread touches nothing of the pool, so joining it with
   * the lock held cannot deadlock. A waiting head may have counted on this
   * worker: let the others look again. */
  priority_stop(p, w);
  w->state = WORKER_EXITED;
  if (p->queued != 0) pthread_cond_broadcast(&p->wake);
  pthread_cond_broadcast(&p->exited);
  pthread_mutex_unlock(&p->lock);
  priority_join(w); /* its twin, if any: ends without touching the pool */
  return NULL;
}

int worker_start(pool *p, unsigned index) {
  if (index >= p->workers_len) {
    pool_worker **grown = KDF_REALLOC(p->workers, (size_t)(index + 1) * sizeof *grown);
    if (grown == NULL) return STATUS_ENOMEM;
    for (unsigned i = p->workers_len; i <= index; i++) grown[i] = NULL;
    p->workers = grown;
    p->workers_len = index + 1;
  }
  pool_worker *w = p->workers[index];
  if (w != NULL) {
    if (w->state == WORKER_ALIVE) return 0;        /* it never left: it will keep going */
    if (!w->joined) pthread_join(w->thread, NULL); /* exited: returns at once */
  } else {
    w = KDF_CALLOC(1, sizeof *w);
    if (w == NULL) return STATUS_ENOMEM;
    w->p = p;
    w->index = index;
    p->workers[index] = w;
  }
  w->state = WORKER_ALIVE;
  w->joined = 0;
  w->arena_generation = p->arena_generation;
  w->slot = -1;

  if (os_thread_start(&w->thread, worker_main, w) != 0) {
    w->state = WORKER_EXITED;
    w->joined = 1;
    return STATUS_ENOMEM;
  }
  return 0;
}

void worker_join_all(pool *p) {
  /* Claim the threads under the lock, join them outside it: workers need
   * the lock to leave their loop. */
  pthread_mutex_lock(&p->lock);
  unsigned len = p->workers_len, n = 0;
  pthread_t threads[POOL_MAX_THREADS]; /* slots never exceed the thread cap */
  for (unsigned i = 0; i < len; i++) {
    pool_worker *w = p->workers[i];
    if (w == NULL || w->joined) continue;
    w->joined = 1;
    threads[n++] = w->thread;
  }
  pthread_mutex_unlock(&p->lock);
  for (unsigned i = 0; i < n; i++) pthread_join(threads[i], NULL);
}

const volatile int *pool_worker_stop_flag(pool_worker *w) { return &w->stop; }
