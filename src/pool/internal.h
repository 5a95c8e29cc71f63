/* What the pool's own files share: struct pool and struct pool_worker.
 * Included only by the pool's .c files; the contract for everyone else is
 * pool/pool.h. One mutex, `lock`, guards every field of struct pool and
 * most of struct pool_worker (see the DESIGN comment in pool.c, and the
 * notes below for the exceptions). Each file's functions that other files
 * call are declared in that file's own header (queue.h, budget.h, ...). */
#ifndef POOL_INTERNAL_H
#define POOL_INTERNAL_H

#include "pool/admit.h"
#include "pool/estimate.h"
#include "pool/hostslots.h"
#include "pool/pool.h"
#include "pool/sched.h"

#include <pthread.h>
#include <stdint.h>

enum worker_state { WORKER_ALIVE, WORKER_EXITED };

typedef struct priority_twin priority_twin;

struct pool_worker {
  pool *p;
  /* The batch being run, this worker's thread only (pool_batch_done). */
  pool_job **batch;
  unsigned char batch_ended[POOL_MAX_BATCH];
  unsigned batch_len;
  unsigned index;
  pthread_t thread;
  enum worker_state state; /* written by the worker, under the lock */
  int joined;              /* claimed by a joiner, under the lock; the worker never reads it */
  unsigned priority_generation;
  unsigned arena_generation;
  /* Under the lock. The arena's bytes are touched only by the job that made
   * it busy; an arena that is not busy may be traded or unmapped by any
   * worker that claims the head. */
  void *arena;
  size_t arena_size;
  int arena_busy;
  uint64_t reserved; /* the running job's arena reservation (mapped or not yet) */
  uint64_t own;      /* the running jobs' own allocations (pool_job.output), beside the arena */
  uint64_t charge;   /* max(arena_size, reserved) + own: this worker's part of `held` */
  /* Host slot held; slot_owner NULL: none. Only the worker's own thread
   * touches these, so they need no lock. */
  host_slots *slot_owner; /* a reference of the worker's */
  int slot;
  uint64_t slot_backoff_ns; /* the seeker's current poll period */
  /* Sleep at once the next time the queue runs dry: its last linger saw no
   * submit, or its last run was longer than a linger (this worker only). */
  int lingered;
  /* What it runs (under the lock): the head it took (NULL: nothing), when
   * it started, and when the run is expected to end (the latest expected
   * end of its jobs): the wait estimate reads what running jobs have left. */
  pool_job *job;
  uint64_t started_ns, expect_end_ns;
  /* The stop flag its jobs poll (pool_worker_stop_flag): raised for exit,
   * for pool_stop_running, or when every job it runs belongs to an owner
   * that is gone; cleared under the lock when it starts a job. */
  volatile int stop;
  /* Priority 'auto' (priority.c): the worker's second thread, or NULL. */
  struct priority_twin *twin;
  /* Under the lock, this worker's own. A job whose end is counted but
   * whose `done` has not been called yet (see Ends in pool.c): reported
   * the next time the worker lets go of the lock. */
  pool_job *ended;
  int ended_status;
  /* The last job of the batch being run, reported (pool_batch_done) but
   * counted by batch_run() with the end of the run: its index (batch_len:
   * none yet), status and end. This worker's thread only. */
  unsigned batch_last;
  int batch_last_status;
  uint64_t batch_last_end;
};

struct pool {
  pthread_mutex_t lock;
  pthread_cond_t wake;   /* workers: a job, memory, a resize or shutdown */
  pthread_cond_t exited; /* a worker left its loop for good */
  char name[16];

  unsigned threads; /* target number of workers */
  unsigned max_queue;
  uint64_t max_memory; /* written under the lock atomically: the inbox reads it unlocked */
  uint64_t memory_in_use;
  pool_priority priority;
  int priority_base; /* the creating thread's own priority (os_priority_base) */
  unsigned priority_generation;
  unsigned arena_generation;
  unsigned arena_idle_ms;

  /* The queue: its links are queue.c's alone (other files use queue.h);
   * `queued`, the number of waiting jobs, is kept by queue.c and may be
   * read by anyone holding the lock. */
  pool_job *head, *tail; /* arrival order: batches look behind their head in it */
  unsigned queued;
  sched sched;       /* the discipline: the same jobs in service order, by key and by deadline */
  estimate estimate; /* learned run times and start-time predictions */
  /* The hints handed out lately: refusals that come together are told
   * successive times, and whole seconds spread (admit.h). */
  admit_hints hints;
  unsigned running;
  unsigned busy; /* workers inside work or work_batch */
  /* The latest expected end of the runs started since the threads were
   * last all idle: no busy worker's run is expected past it (a bound kept
   * here, beside `busy`, so that a submit far from its deadline need not
   * read every worker's). */
  uint64_t runs_end_ns;
  /* Workers that wait for a submit awake (see Wake-ups). */
  unsigned lingering;

  /* The inbox (inbox.c), on cache lines of their own with what else a
   * submit through it reads or writes: it then misses on at most the line
   * a worker wrote when it last took the inbox in. */
  char inbox_apart[64];
  struct pool_job *inbox_head; /* atomic: newest first, through `next`; INBOX_SHUT once shut */
  /* Atomic: how many jobs it may take (high 32 bits), and how many it
   * took (low 32), since the lock last published the room. */
  uint64_t inbox_room;
  uint64_t inbox_min_wait_ns; /* atomic: the least wait a job with a deadline may have */
  /* Bumped by each submit (atomically: the inbox's without the lock);
   * lingering workers read it unlocked. */
  uint64_t submit_seq;
  /* Workers waiting on `wake`, and how many of them a submit has already
   * signalled (see Wake-ups): written under the lock with atomic stores,
   * read by a submit through the inbox without it. */
  unsigned sleeping, waking;
  char inbox_apart_end[64];
  /* What the lock last published there (queue.c), under the lock. */
  unsigned inbox_published_room;
  uint64_t inbox_published_wait_ns;

  uint64_t submitted, completed, failed, rejected, cancelled, shed, displaced, refused, batched;
  uint64_t inboxed;
  uint64_t avg_run_ns;
  uint64_t arena_maps, arena_bytes; /* arena_bytes includes `releasing` */
  uint64_t held;                    /* see Memory in pool.c's DESIGN */
  uint64_t releasing;               /* detached arenas not yet unmapped */
  uint64_t ceiling; /* held may exceed max_memory only after a shrink, and never grows then */

  uint64_t wait_ring[POOL_WINDOW], run_ring[POOL_WINDOW];
  unsigned wait_pos, wait_count, run_pos, run_count;

  pool_worker **workers; /* slots 0..workers_len-1, never shrinks */
  unsigned workers_len;

  /* Host slots, see DESIGN. */
  host_slots *hosts;         /* NULL: none; a reference of the pool's */
  pool_worker *seeker;       /* the one worker polling for a slot, or NULL */
  unsigned host_members;     /* last count, for the wait estimate */
  int slot_wanted;           /* the seeker said it waits (host_slots_want) */
  uint64_t slot_courtesy_ns; /* no try before this pool_now_ns() */
  uint64_t slot_wait_ns;

  /* The deadline timer (deadline.c): started with the first job that has a
   * deadline; it sheds queued jobs the moment their deadline passes. */
  pthread_cond_t timer_wake;
  pthread_t timer;
  int timer_alive;  /* its thread is in its loop (it clears this, then signals `exited`) */
  int timer_joined; /* claimed by a joiner */
  /* The deadline it sleeps until (0: it is awake; UINT64_MAX: none).
   * Written under the lock with atomic stores: the inbox reads it unlocked. */
  uint64_t timer_until_ns;

  int closing;
  volatile int stop; /* written with __atomic builtins: workers copy it into their own flag */
};

/* Lock held on entry, released on return: lets go of the lock, then
 * reports w's ended job, if any (see Ends in pool.c). */
static inline void worker_unlock_reporting(pool *p, pool_worker *w) {
  pool_job *job = w->ended;
  int status = w->ended_status;
  w->ended = NULL;
  pthread_mutex_unlock(&p->lock);
  if (job != NULL) job->done(job, status);
}

/* Lock held on entry and on return: reports w's ended job, if any,
 * dropping the lock meanwhile. */
static inline void worker_report_ended(pool *p, pool_worker *w) {
  if (w->ended == NULL) return;
  worker_unlock_reporting(p, w);
  pthread_mutex_lock(&p->lock);
}

#endif
