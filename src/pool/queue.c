/* The queue of waiting jobs and admission (see Flow in the DESIGN comment
 * of pool.c): submit, cancel, the wait estimate, and the queue's
 * discipline, today FIFO. The discipline is this file's alone: no other
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

void queue_push(pool *p, pool_job *job) {
  job->next = NULL;
  job->prev = p->tail;
  if (p->tail != NULL)
    p->tail->next = job;
  else
    p->head = job;
  p->tail = job;
  p->queued++;
}

void queue_remove(pool *p, pool_job *job) {
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

pool_job *queue_head(const pool *p) { return p->head; }

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
  for (pool_job *job = list; job != NULL; job = job->next) job->state = POOL_JOB_DONE;
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

/* Lock held. */
static uint64_t estimate_wait_locked(const pool *p) {
  uint64_t threads = p->threads ? p->threads : 1;
  uint64_t ahead = (uint64_t)p->queued + p->busy + 1;
  uint64_t batch = p->avg_batch_x16 > 16 ? p->avg_batch_x16 : 16;
  /* A new job starts once all but threads-1 of the starts ahead of it have
   * ended; the pool ends about `threads` starts, of `batch` jobs each, per
   * average run time. With host slots the pool runs at share = slots /
   * members starts at once (members: live pools with the key, each assumed
   * as loaded as this one: the host has members * ahead starts ahead and
   * ends `slots` per run time), unless its threads are fewer. The share may
   * be below one, so it is kept as the fraction den / num. */
  uint64_t num = 1, den = threads;
  if (p->hosts != NULL) {
    uint64_t slots = host_slots_count(p->hosts), members = p->host_members ? p->host_members : 1;
    if (slots < threads * members) {
      num = members;
      den = slots;
    }
  }
  if (ahead * num <= den) return 0;
  return (ahead * num - den) * p->avg_run_ns * 16 / (den * batch);
}

int pool_submit(pool *p, pool_job *job) {
  pthread_mutex_lock(&p->lock);
  int rc = 0;
  uint64_t now = pool_now_ns();
  if (p->closing || p->stop)
    rc = STATUS_ECLOSED;
  else if (job->memory > p->max_memory)
    rc = STATUS_EMEMLIMIT;
  /* max_queue bounds jobs that wait for a thread: a job that an idle
   * worker is about to take is not waiting, even if it has not been taken
   * yet when the next submit arrives. Jobs riding in a batch behind its
   * head count as waiting, so a pool still holds at most threads +
   * max_queue jobs, batched or not. */
  else if (p->queued + (p->running > p->busy ? p->running - p->busy : 0) >=
           p->max_queue + (p->threads > p->busy ? p->threads - p->busy : 0))
    rc = STATUS_EFULL;
  else if (job->deadline_ns != 0 && now + estimate_wait_locked(p) > job->deadline_ns)
    rc = STATUS_ETIMEDOUT; /* it would start too late: say so now, not later */
  if (rc != 0) {
    p->rejected++;
    if (rc == STATUS_EFULL || rc == STATUS_ETIMEDOUT) p->refused++; /* retryable */
    pthread_mutex_unlock(&p->lock);
    return rc;
  }
  job->state = POOL_JOB_QUEUED;
  job->queued_ns = now;
  job->started_ns = job->finished_ns = 0;
  queue_push(p, job);
  p->submitted++;
  __atomic_store_n(&p->submit_seq, p->submit_seq + 1, __ATOMIC_RELEASE);
  int signal = p->sleeping > p->waking && p->queued > p->waking + p->lingering;
  if (signal) p->waking++;
  pthread_mutex_unlock(&p->lock);
  if (signal) pthread_cond_signal(&p->wake);
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
