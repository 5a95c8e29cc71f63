/* The deadline timer (see Deadlines in the DESIGN comment of pool.c): one
 * thread per pool that sleeps until the earliest deadline of a queued job
 * and sheds every job whose deadline has passed, whether or not a worker
 * is free. Workers are no help here: when the queue is long they are all
 * busy, which is exactly when deadlines pass. Submits that bring an
 * earlier deadline than the one it sleeps until wake it; close and exit
 * wake it to leave. It takes no job and never changes its priority. */
#define _POSIX_C_SOURCE 200809L
#include "pool/deadline.h"

#include "common/status.h"
#include "pool/internal.h"
#include "pool/os.h"
#include "pool/pool.h"
#include "pool/queue.h"
#include "pool/sched.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* Lock held. Sleeps on timer_wake until `deadline` (pool_now_ns clock), or
 * until woken. timer_wake waits on that same monotonic clock (os.h), so a
 * step of the wall clock moves no deadline. */
static void sleep_until(pool *p, uint64_t deadline) {
  os_cond_wait_until(&p->timer_wake, &p->lock, deadline);
}

static void *timer_main(void *arg) {
  pool *p = arg;
  char name[32];
  snprintf(name, sizeof name, "kdfdl-%s", p->name);
  os_thread_set_name(name);
  pthread_mutex_lock(&p->lock);
  while (!p->closing && !p->stop) {
    /* It wakes before the deadline of any job in the inbox (inbox_try). */
    if (queue_take_inbox_here(p)) continue;
    uint64_t now = pool_now_ns();
    pool_job *first = sched_earliest(&p->sched);
    if (first != NULL && first->deadline_ns <= now) {
      pool_job *head = queue_head(p);
      pool_job *shed = queue_take_expired(p, now);
      /* The job behind a removed head may fit where the head did not. */
      if (queue_head(p) != head) pthread_cond_broadcast(&p->wake);
      pthread_mutex_unlock(&p->lock);
      queue_finish(shed, STATUS_ETIMEDOUT);
      pthread_mutex_lock(&p->lock);
      continue;
    }
    if (first != NULL) {
      __atomic_store_n(&p->timer_until_ns, first->deadline_ns, __ATOMIC_RELEASE);
      sleep_until(p, first->deadline_ns);
    } else {
      __atomic_store_n(&p->timer_until_ns, UINT64_MAX, __ATOMIC_RELEASE);
      pthread_cond_wait(&p->timer_wake, &p->lock);
    }
    __atomic_store_n(&p->timer_until_ns, 0, __ATOMIC_RELEASE);
  }
  p->timer_alive = 0;
  pthread_cond_broadcast(&p->exited);
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

int deadline_start(pool *p) {
  pthread_mutex_lock(&p->lock);
  p->timer_alive = 1;
  p->timer_joined = 0;
  pthread_mutex_unlock(&p->lock);
  if (os_thread_start(&p->timer, timer_main, p) != 0) {
    pthread_mutex_lock(&p->lock);
    p->timer_alive = 0;
    p->timer_joined = 1;
    pthread_mutex_unlock(&p->lock);
    return STATUS_ENOMEM;
  }
  return 0;
}

void deadline_join(pool *p) {
  pthread_mutex_lock(&p->lock);
  int mine = !p->timer_joined;
  p->timer_joined = 1;
  pthread_cond_broadcast(&p->timer_wake);
  pthread_mutex_unlock(&p->lock);
  if (mine) pthread_join(p->timer, NULL);
}
