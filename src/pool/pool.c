/* DESIGN
 *
 * Threads. A pool owns `threads` worker threads, named "kdf-<name>-<n>". The
 * threads that submit, cancel, reconfigure or destroy are the pool's users
 * (in kdfpool: Node's JS threads, one per environment). No other thread is
 * involved: finished jobs are handed to their `done` function on the worker
 * that ran them, and it is done's business to move them elsewhere.
 *
 * Ownership. One mutex guards everything in `struct pool` except the per-
 * worker arenas, which only their own worker touches while it runs. A job is
 * the submitter's until pool_submit() returns 0, the pool's until `done` is
 * called, and the submitter's again from inside `done`. `work` and `done`
 * always run without the lock held, so they may call back into the pool.
 *
 * Flow. pool_submit() appends to a FIFO queue unless `max_queue` jobs are
 * already waiting (jobs that run do not count), and never blocks. An idle
 * worker takes the job at the head of the queue if its memory fits in what
 * is left of the budget; otherwise every worker waits until a running job
 * gives memory back. Taking only the head keeps the order strictly FIFO, so
 * a large job cannot be starved by a stream of small ones. A job keeps its
 * thread and its memory reservation until `work` returns, whatever happened
 * to the caller that submitted it.
 *
 * Shutdown. pool_destroy() closes the queue, calls `done(STATUS_ECLOSED)` for
 * every waiting job, lets running jobs finish and joins every thread.
 * pool_stop_for_exit() is for exit(): it raises a flag that long jobs poll,
 * drops the queue without callbacks and joins the threads, so no worker is
 * inside a library while the library's own exit handlers run.
 *
 * Portability. This file is pthreads and C11 only; thread names,
 * priorities, CPU and memory limits, arena pages and the clock differ per
 * system and sit behind pool/os.h (os_linux.c, os_posix.c). Errors are the
 * neutral STATUS_E* codes of common/status.h.
 *
 * Resizing. Lowering `threads` makes workers with an index at or above the
 * new count exit once their current job ends; raising it reuses those slots
 * (joining threads that already exited) and starts new ones. */
#define _POSIX_C_SOURCE 200809L
#include "pool/pool.h"

#include "common/status.h"
#include "pool/os.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum worker_state { WORKER_ALIVE, WORKER_EXITED };

struct pool_worker {
  pool *p;
  unsigned index;
  pthread_t thread;
  enum worker_state state; /* written by the worker, under the lock */
  int joined;              /* claimed by a joiner, under the lock; the worker never reads it */
  unsigned priority_generation;
  unsigned arena_generation;
  /* Only this worker touches the arena while it is alive. */
  void *arena;
  size_t arena_size;
};

struct pool {
  pthread_mutex_t lock;
  pthread_cond_t wake;   /* workers: a job, memory, a resize or shutdown */
  pthread_cond_t exited; /* a worker left its loop for good */
  char name[16];

  unsigned threads; /* target number of workers */
  unsigned max_queue;
  uint64_t max_memory;
  uint64_t memory_in_use;
  pool_priority priority;
  unsigned priority_generation;
  unsigned arena_generation;
  unsigned arena_idle_ms;

  pool_job *head, *tail;
  unsigned queued, running;

  uint64_t submitted, completed, failed, rejected, cancelled, expired;
  uint64_t avg_run_ns;
  uint64_t arena_maps, arena_bytes;

  uint64_t wait_ring[POOL_WINDOW], run_ring[POOL_WINDOW];
  unsigned wait_pos, wait_count, run_pos, run_count;

  pool_worker **workers; /* slots 0..workers_len-1, never shrinks */
  unsigned workers_len;

  int closing;
  volatile int stop; /* written with __atomic builtins: long jobs poll it unlocked */
};

uint64_t pool_now_ns(void) { return os_monotonic_ns(); }

/* ---- queue (lock held) ---- */

static void queue_push(pool *p, pool_job *job) {
  job->next = NULL;
  job->prev = p->tail;
  if (p->tail != NULL)
    p->tail->next = job;
  else
    p->head = job;
  p->tail = job;
  p->queued++;
}

/* A job out of the queue is no longer QUEUED, from this moment and under
 * the lock: pool_cancel() must never take a job whose `done` is about to
 * be called by whoever removed it. */
static void queue_remove(pool *p, pool_job *job) {
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

/* Empties the queue (lock held); returns the jobs as a list for
 * finish_list(), each already marked as no longer queued. */
static pool_job *queue_take_all(pool *p) {
  pool_job *list = p->head;
  for (pool_job *job = list; job != NULL; job = job->next) job->state = POOL_JOB_DONE;
  p->head = p->tail = NULL;
  p->queued = 0;
  return list;
}

/* Calls `done` on a detached list of jobs, outside the lock. */
static void finish_list(pool_job *list, int status) {
  while (list != NULL) {
    pool_job *next = list->next;
    list->prev = list->next = NULL;
    list->done(list, status);
    list = next;
  }
}

static void ring_add(uint64_t *ring, unsigned *pos, unsigned *count, uint64_t v) {
  ring[*pos] = v;
  *pos = (*pos + 1) % POOL_WINDOW;
  if (*count < POOL_WINDOW) (*count)++;
}

/* ---- per-thread settings ---- */

static void set_thread_name(const pool *p, unsigned index) {
  char name[32];
  snprintf(name, sizeof name, "kdf-%s-%u", p->name, index);
  os_thread_set_name(name);
}

/* ---- arenas ---- */

static void arena_release(pool_worker *w) {
  if (w->arena == NULL) return;
  os_arena_unmap(w->arena, w->arena_size);
  pool *p = w->p;
  pthread_mutex_lock(&p->lock);
  p->arena_bytes -= w->arena_size;
  pthread_mutex_unlock(&p->lock);
  w->arena = NULL;
  w->arena_size = 0;
}

void *pool_worker_arena(pool_worker *w, size_t size) {
  if (size == 0) size = 1;
  if (w->arena != NULL && w->arena_size >= size) return w->arena;
  arena_release(w);
  /* Round up to 2 MiB so a slightly larger next job does not remap, and so
   * transparent huge pages can back it. */
  const size_t huge = (size_t)2 << 20;
  if (size > SIZE_MAX - huge) return NULL;
  size_t len = (size + huge - 1) & ~(huge - 1);
  void *mem = os_arena_map(len);
  if (mem == NULL) return NULL;
  w->arena = mem;
  w->arena_size = len;
  pool *p = w->p;
  pthread_mutex_lock(&p->lock);
  p->arena_maps++;
  p->arena_bytes += len;
  pthread_mutex_unlock(&p->lock);
  return mem;
}

const volatile int *pool_worker_stop_flag(pool_worker *w) { return &w->p->stop; }

/* ---- worker ---- */

static int worker_should_exit(const pool *p, const pool_worker *w) {
  return p->closing || p->stop || w->index >= p->threads;
}

static void run_job(pool *p, pool_worker *w, pool_job *job) {
  /* Lock held on entry and on return. */
  uint64_t now = pool_now_ns();
  queue_remove(p, job);
  if (job->deadline_ns != 0 && now > job->deadline_ns) {
    p->expired++;
    pthread_mutex_unlock(&p->lock);
    job->done(job, STATUS_ETIMEDOUT);
    pthread_mutex_lock(&p->lock);
    return;
  }
  job->state = POOL_JOB_RUNNING;
  job->started_ns = now;
  p->running++;
  p->memory_in_use += job->memory;
  ring_add(p->wait_ring, &p->wait_pos, &p->wait_count, now - job->queued_ns);
  pthread_mutex_unlock(&p->lock);

  int rc = job->work(job, w);
  uint64_t end = pool_now_ns();

  pthread_mutex_lock(&p->lock);
  job->finished_ns = end;
  uint64_t took = end - job->started_ns;
  p->running--;
  p->memory_in_use -= job->memory;
  if (rc < 0)
    p->failed++;
  else
    p->completed++;
  if (p->avg_run_ns == 0) {
    p->avg_run_ns = took;
  } else {
    int64_t delta = (int64_t)took - (int64_t)p->avg_run_ns;
    p->avg_run_ns = (uint64_t)((int64_t)p->avg_run_ns + delta / 8);
  }
  ring_add(p->run_ring, &p->run_pos, &p->run_count, took);
  /* Workers that wait for memory at the head of the queue may fit now. */
  if (job->memory != 0 && p->head != NULL) pthread_cond_broadcast(&p->wake);
  /* Kept scratch memory counts against the budget too: when the arenas and
   * the running jobs together exceed it, this worker gives its arena back
   * (the next job maps afresh: slower, but the budget holds). */
  int trim = w->arena != NULL && p->arena_bytes + p->memory_in_use > p->max_memory;
  job->state = POOL_JOB_DONE;
  pthread_mutex_unlock(&p->lock);

  if (trim) arena_release(w);
  job->done(job, rc);
  pthread_mutex_lock(&p->lock);
}

static void *worker_main(void *arg) {
  pool_worker *w = arg;
  pool *p = w->p;
  set_thread_name(p, w->index);

  pthread_mutex_lock(&p->lock);
  unsigned priority_generation = p->priority_generation;
  pool_priority priority = p->priority;
  pthread_mutex_unlock(&p->lock);
  os_thread_set_priority(priority);

  pthread_mutex_lock(&p->lock);
next:
  while (!worker_should_exit(p, w)) {
    if (priority_generation != p->priority_generation) {
      priority_generation = p->priority_generation;
      priority = p->priority;
      pthread_mutex_unlock(&p->lock);
      os_thread_set_priority(priority);
      pthread_mutex_lock(&p->lock);
      continue;
    }
    if (w->arena_generation != p->arena_generation) {
      w->arena_generation = p->arena_generation;
      pthread_mutex_unlock(&p->lock);
      arena_release(w);
      pthread_mutex_lock(&p->lock);
      continue;
    }
    pool_job *job = p->head;
    if (job != NULL && p->memory_in_use + job->memory <= p->max_memory) {
      run_job(p, w, job);
      continue;
    }
    if (w->arena == NULL) {
      pthread_cond_wait(&p->wake, &p->lock);
      continue;
    }
    /* Holding scratch memory: give it back after a quiet period. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += p->arena_idle_ms / 1000;
    until.tv_nsec += (long)(p->arena_idle_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    if (pthread_cond_timedwait(&p->wake, &p->lock, &until) == ETIMEDOUT &&
        (p->head == NULL || p->memory_in_use + p->head->memory > p->max_memory)) {
      pthread_mutex_unlock(&p->lock);
      arena_release(w);
      pthread_mutex_lock(&p->lock);
    }
  }
  pthread_mutex_unlock(&p->lock);
  arena_release(w);
  pthread_mutex_lock(&p->lock);
  /* The pool may have grown back while the lock was free; start_worker()
   * counts on a worker that is still ALIVE to keep going. */
  if (!worker_should_exit(p, w)) goto next;
  /* After this the thread touches nothing of the pool, so joining it with
   * the lock held cannot deadlock. */
  w->state = WORKER_EXITED;
  pthread_cond_broadcast(&p->exited);
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

/* Starts the worker for slot `index`. Lock held. */
static int start_worker(pool *p, unsigned index) {
  if (index >= p->workers_len) {
    pool_worker **grown = realloc(p->workers, (size_t)(index + 1) * sizeof *grown);
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
    w = calloc(1, sizeof *w);
    if (w == NULL) return STATUS_ENOMEM;
    w->p = p;
    w->index = index;
    p->workers[index] = w;
  }
  w->state = WORKER_ALIVE;
  w->joined = 0;
  w->arena_generation = p->arena_generation;

  /* Pool threads never take signals: they belong to the process's main
   * thread (Node installs its handlers there). Windows has no signal masks. */
#ifndef _WIN32
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
#endif
  int rc = pthread_create(&w->thread, NULL, worker_main, w);
#ifndef _WIN32
  pthread_sigmask(SIG_SETMASK, &old, NULL);
#endif
  if (rc != 0) {
    w->state = WORKER_EXITED;
    w->joined = 1;
    return STATUS_ENOMEM;
  }
  return 0;
}

static void join_all(pool *p) {
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

/* ---- public ---- */

int pool_create(pool **out, const pool_options *opts) {
  *out = NULL;
  pool_options o;
  memset(&o, 0, sizeof o);
  if (opts != NULL) o = *opts;
  if (o.threads == 0) o.threads = pool_default_threads();
  if (o.threads > POOL_MAX_THREADS) return STATUS_EINVAL;
  if (o.max_queue == 0) o.max_queue = POOL_DEFAULT_QUEUE_PER_THREAD * o.threads;
  if (o.max_queue > POOL_MAX_QUEUE) return STATUS_EINVAL;
  if (o.max_memory == 0) o.max_memory = pool_default_max_memory();
  if (o.arena_idle_ms == 0) o.arena_idle_ms = POOL_DEFAULT_ARENA_IDLE_MS;
  if (o.priority == POOL_PRIORITY_UNSET) o.priority = POOL_DEFAULT_PRIORITY;
  if (o.priority > POOL_PRIORITY_IDLE) return STATUS_EINVAL;

  pool *p = calloc(1, sizeof *p);
  if (p == NULL) return STATUS_ENOMEM;
  if (pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return STATUS_ENOMEM;
  }
  /* Timed waits use CLOCK_REALTIME deadlines (the portable default). */
  if (pthread_cond_init(&p->wake, NULL) != 0) {
    pthread_mutex_destroy(&p->lock);
    free(p);
    return STATUS_ENOMEM;
  }
  if (pthread_cond_init(&p->exited, NULL) != 0) {
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p);
    return STATUS_ENOMEM;
  }
  /* "kdf-" + name + "-NN" must fit Linux's 15-character thread names. */
  snprintf(p->name, 8, "%s", o.name != NULL && o.name[0] != '\0' ? o.name : "pool");
  p->threads = o.threads;
  p->max_queue = o.max_queue;
  p->max_memory = o.max_memory;
  p->priority = o.priority;
  p->arena_idle_ms = o.arena_idle_ms;

  pthread_mutex_lock(&p->lock);
  int rc = 0;
  for (unsigned i = 0; i < o.threads && rc == 0; i++) rc = start_worker(p, i);
  if (rc != 0) p->closing = 1;
  pthread_mutex_unlock(&p->lock);
  if (rc != 0) {
    pthread_cond_broadcast(&p->wake);
    pool_destroy(p);
    return rc;
  }
  *out = p;
  return 0;
}

/* Lock held. */
static uint64_t estimate_wait_locked(const pool *p) {
  uint64_t threads = p->threads ? p->threads : 1;
  uint64_t ahead = (uint64_t)p->queued + p->running + 1;
  /* A new job starts once all but threads-1 of the jobs ahead of it have
   * ended; the pool ends about `threads` jobs per average run time. */
  if (ahead <= threads) return 0;
  return (ahead - threads) * p->avg_run_ns / threads;
}

uint64_t pool_max_memory(pool *p) {
  pthread_mutex_lock(&p->lock);
  uint64_t max = p->max_memory;
  pthread_mutex_unlock(&p->lock);
  return max;
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
   * yet when the next submit arrives. */
  else if (p->queued >= p->max_queue + (p->threads > p->running ? p->threads - p->running : 0))
    rc = STATUS_EFULL;
  else if (job->deadline_ns != 0 && now + estimate_wait_locked(p) > job->deadline_ns)
    rc = STATUS_ETIMEDOUT; /* it would start too late: say so now, not later */
  if (rc != 0) {
    if (rc == STATUS_ETIMEDOUT)
      p->expired++;
    else
      p->rejected++;
    pthread_mutex_unlock(&p->lock);
    return rc;
  }
  job->state = POOL_JOB_QUEUED;
  job->queued_ns = now;
  job->started_ns = job->finished_ns = 0;
  queue_push(p, job);
  p->submitted++;
  pthread_cond_signal(&p->wake);
  pthread_mutex_unlock(&p->lock);
  return 0;
}

int pool_cancel(pool *p, pool_job *job) {
  pthread_mutex_lock(&p->lock);
  int rc = STATUS_EINVAL;
  if (job->state == POOL_JOB_QUEUED) {
    queue_remove(p, job);
    p->cancelled++;
    rc = 0;
  }
  pthread_mutex_unlock(&p->lock);
  return rc;
}

unsigned pool_cancel_owner(pool *p, const void *owner) {
  pool_job *taken = NULL, **tail = &taken;
  unsigned n = 0;
  pthread_mutex_lock(&p->lock);
  for (pool_job *job = p->head, *next; job != NULL; job = next) {
    next = job->next;
    if (job->owner != owner) continue;
    queue_remove(p, job);
    *tail = job;
    tail = &job->next;
    n++;
  }
  p->cancelled += n;
  pthread_mutex_unlock(&p->lock);
  finish_list(taken, STATUS_ECANCELED);
  return n;
}

int pool_reconfigure(pool *p, const pool_options *o) {
  if (o->threads > POOL_MAX_THREADS || o->max_queue > POOL_MAX_QUEUE ||
      o->priority > POOL_PRIORITY_IDLE)
    return STATUS_EINVAL;
  pool_job *evicted = NULL, **tail = &evicted;
  int rc = 0;
  pthread_mutex_lock(&p->lock);
  if (p->closing || p->stop) {
    pthread_mutex_unlock(&p->lock);
    return STATUS_ECLOSED;
  }
  if (o->max_queue != 0) p->max_queue = o->max_queue;
  if (o->arena_idle_ms != 0) p->arena_idle_ms = o->arena_idle_ms;
  if (o->max_memory != 0) {
    p->max_memory = o->max_memory;
    /* A waiting job that can never fit again would block the queue head. */
    for (pool_job *job = p->head, *next; job != NULL; job = next) {
      next = job->next;
      if (job->memory <= p->max_memory) continue;
      queue_remove(p, job);
      *tail = job;
      tail = &job->next;
      p->cancelled++;
    }
  }
  if (o->priority != POOL_PRIORITY_UNSET && o->priority != p->priority) {
    p->priority = o->priority;
    p->priority_generation++;
  }
  /* Reconfiguring is also the moment to hand back idle scratch memory. */
  p->arena_generation++;
  if (o->threads != 0 && o->threads != p->threads) {
    unsigned old = p->threads;
    p->threads = o->threads;
    for (unsigned i = old; i < o->threads && rc == 0; i++) rc = start_worker(p, i);
    if (rc != 0) {
      /* Keep the threads that did start. */
      unsigned started = old;
      while (started < p->workers_len && p->workers[started] != NULL &&
             p->workers[started]->state == WORKER_ALIVE)
        started++;
      p->threads = started;
    }
  }
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  finish_list(evicted, STATUS_EMEMLIMIT);
  return rc;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void percentiles(uint64_t *v, unsigned n, pool_percentiles *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return;
  qsort(v, n, sizeof *v, cmp_u64);
  out->p50_ns = v[(n - 1) / 2];
  out->p99_ns = v[(unsigned)(((uint64_t)n * 99 + 99) / 100) - 1];
  out->max_ns = v[n - 1];
}

void pool_get_stats(pool *p, pool_stats *s) {
  static const size_t ring_bytes = sizeof(uint64_t) * POOL_WINDOW;
  uint64_t *waits = malloc(ring_bytes), *runs = malloc(ring_bytes);
  memset(s, 0, sizeof *s);
  pthread_mutex_lock(&p->lock);
  s->threads = p->threads;
  s->running = p->running;
  s->queued = p->queued;
  s->max_queue = p->max_queue;
  s->submitted = p->submitted;
  s->completed = p->completed;
  s->failed = p->failed;
  s->rejected = p->rejected;
  s->cancelled = p->cancelled;
  s->expired = p->expired;
  s->memory_in_use = p->memory_in_use;
  s->max_memory = p->max_memory;
  s->avg_run_ns = p->avg_run_ns;
  s->priority = p->priority;
  s->arena_maps = p->arena_maps;
  s->arena_bytes = p->arena_bytes;
  unsigned nw = p->wait_count, nr = p->run_count;
  if (waits != NULL) memcpy(waits, p->wait_ring, ring_bytes);
  if (runs != NULL) memcpy(runs, p->run_ring, ring_bytes);
  pthread_mutex_unlock(&p->lock);
  if (waits != NULL) percentiles(waits, nw, &s->wait);
  if (runs != NULL) percentiles(runs, nr, &s->run);
  free(waits);
  free(runs);
}

uint64_t pool_estimate_wait_ns(pool *p) {
  pthread_mutex_lock(&p->lock);
  uint64_t ns = estimate_wait_locked(p);
  pthread_mutex_unlock(&p->lock);
  return ns;
}

void pool_close(pool *p) {
  pthread_mutex_lock(&p->lock);
  p->closing = 1;
  p->cancelled += p->queued;
  pool_job *taken = queue_take_all(p);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  finish_list(taken, STATUS_ECLOSED);
  join_all(p);
}

void pool_free(pool *p) {
  for (unsigned i = 0; i < p->workers_len; i++) free(p->workers[i]);
  free(p->workers);
  pthread_cond_destroy(&p->exited);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

void pool_destroy(pool *p) {
  if (p == NULL) return;
  pool_close(p);
  pool_free(p);
}

void pool_stop_for_exit(pool *p) {
  pthread_mutex_lock(&p->lock);
  __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
  p->closing = 1;
  (void)queue_take_all(p); /* dropped: nobody is left to tell */
  pthread_cond_broadcast(&p->wake);
  /* Another thread (a pool_close() in progress) may have claimed some
   * threads for joining; what matters here is that none is still working. */
  for (;;) {
    int alive = 0;
    for (unsigned i = 0; i < p->workers_len; i++)
      if (p->workers[i] != NULL && p->workers[i]->state == WORKER_ALIVE) alive = 1;
    if (!alive) break;
    pthread_cond_wait(&p->exited, &p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  join_all(p);
}

/* ---- machine defaults ---- */

unsigned pool_default_threads(void) {
  unsigned n = os_cpu_count();
  if (n < 1) n = 1;
  if (n > POOL_MAX_THREADS) n = POOL_MAX_THREADS;
  return n;
}

uint64_t pool_default_max_memory(void) {
  const uint64_t floor = (uint64_t)64 << 20;
  uint64_t total = os_memory_limit();
  if (total == UINT64_MAX) return (uint64_t)1 << 30;
  uint64_t quarter = total / 4;
  return quarter < floor ? floor : quarter;
}
