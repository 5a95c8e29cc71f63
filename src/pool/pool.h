/* A bounded pthread pool: a fixed set of worker threads, a queue with a
 * hard bound on waiting jobs (FIFO, or fair between client keys: start-time
 * fair queuing), deadlines that fire, a memory budget for the jobs that
 * run, and per-worker scratch memory that is reused between jobs.
 *
 * It knows nothing of Node-API or of cryptography: a job is a struct with a
 * `work` function (run on a pool thread) and a `done` function (told how the
 * job ended). See the DESIGN comment at the top of pool.c.
 *
 * Errors are STATUS_E* codes from common/status.h, the project's one list:
 * the pool uses only the neutral ones (EINVAL, ENOMEM, ECANCELED, EFULL,
 * ECLOSED, EMEMLIMIT, ETIMEDOUT, and EIO for host slot files), so callers need no translation table. OS
 * specifics (thread names, priorities, CPU and memory limits, arena pages,
 * the clock) live behind pool/os.h. */
#ifndef POOL_POOL_H
#define POOL_POOL_H

#include "pool/tree.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pool pool;
typedef struct pool_job pool_job;
typedef struct pool_worker pool_worker;

/* Runs on a pool thread. Returns 0 or a negative STATUS_E* code; the pool only
 * uses the sign (completed vs failed counters). */
typedef int (*pool_work_fn)(pool_job *job, pool_worker *worker);

/* Called exactly once per accepted job, after which the pool never touches
 * the job again. `status` is what `work` returned, or one of
 *   STATUS_ECLOSED    the pool closed while the job was queued,
 *   STATUS_ETIMEDOUT  its deadline passed while it was queued,
 *   STATUS_EMEMLIMIT  a reconfiguration shrank the budget below the job's need,
 *   STATUS_ECANCELED  pool_cancel_owner() removed it,
 *   STATUS_EDISPLACED a call served before it took its place in a full
 *                     queue (see pool_submit); retry_after_ns says when
 *                     its key would be served.
 * After STATUS_ETIMEDOUT too, retry_after_ns holds the pool's estimate.
 * Runs on a pool thread, or on the thread that closed/reconfigured the pool,
 * and never with a pool lock held. */
typedef void (*pool_done_fn)(pool_job *job, int status);

/* Runs a batch (see below) on a pool thread: jobs[0] is the head, the
 * others came from behind it in queue order. It must report each job
 * with pool_batch_done() as soon as that job ends; jobs it has not
 * reported when it returns end with the status it returns. Reporting the
 * last job frees the worker's reservation and arena: after that it must
 * not touch the arena. */
typedef int (*pool_work_batch_fn)(pool_job **jobs, unsigned n, pool_worker *worker);

enum pool_job_state { POOL_JOB_NEW, POOL_JOB_QUEUED, POOL_JOB_RUNNING, POOL_JOB_DONE };

struct pool_job {
  /* Set by the submitter. */
  pool_work_fn work;
  pool_done_fn done;
  size_t memory;        /* bytes reserved from the budget while it runs */
  uint64_t deadline_ns; /* pool_now_ns() clock; 0 = none */
  /* Or, with deadline_ns 0: how long it may wait from its submit (0 =
   * none), made a deadline_ns by pool_submit() from the clock it reads
   * anyway, so that a submit reads the clock once. */
  uint64_t max_wait_ns;
  const void *owner; /* tag for pool_cancel_owner(); may be NULL */
  /* Of `memory`, the bytes the job allocates for itself while it runs (its
   * output) rather than in the worker's arena: they are charged on top of
   * the arena, never mapped in it, so the budget counts each byte once and
   * every byte once. The rest of `memory` is the scratch the job asks of
   * pool_worker_arena(). */
  size_t output;
  /* Batching, optional (zero: the job always runs alone through `work`).
   * A worker that takes this job as the head also takes, from the
   * POOL_BATCH_WINDOW jobs right behind it, those with the same non-zero
   * batch_key and work_batch (up to batch_max jobs in all, head
   * included) whose deadline has not passed and whose memory fits in the
   * head's reservation, and runs them all in one work_batch call. What
   * the key means is the submitter's business. */
  uint64_t batch_key;
  unsigned batch_max;
  pool_work_batch_fn work_batch;
  /* Fairness, optional. fair_key names the caller's client (a keyed hash
   * of its name; 0 = the one key shared by every job that names none):
   * jobs are served in start-time fair queuing over the keys, and under
   * overload the key furthest ahead gives way (see Fairness in pool.c).
   * cost_ns is the predicted run time on this machine (0 = unknown: its
   * class's average run time), cost_class the submitter's class for it
   * (< POOL_COST_CLASSES, one per algorithm and digest), of which the
   * pool learns its own scale (see estimate.h). */
  uint64_t fair_key;
  uint64_t cost_ns;
  unsigned cost_class;
  /* Set by the pool when it refuses the job (pool_submit returns EFULL or
   * ETIMEDOUT) or ends it unrun (EDISPLACED, ETIMEDOUT): in how long a
   * retry from the same key should be served, in ns; and for a client
   * that can only be told whole seconds (Retry-After), the seconds: at
   * least retry_after_ns rounded up, more when other clients were told
   * to come back at that moment (see retry_seconds.h). */
  uint64_t retry_after_ns;
  unsigned retry_after_s;
  /* Owned by the pool (read-only for others once submitted). */
  pool_job *prev, *next;               /* lists of jobs the pool hands back (queue_finish) */
  tree_node order_node, deadline_node; /* sched.h's two orders */
  pool_job *dl_prev, *dl_next;         /* sched.h's deadline list, when dl_listed */
  int dl_listed;
  pool_job *key_prev, *key_next; /* the queued jobs of its key, oldest first */
  struct key_state *key_state;
  uint64_t tag; /* its start tag (sched.h) */
  /* How sched.c recomputes its tag when an older job of its key leaves
   * unrun: virtual time when it was queued, the finish its tag started
   * from, and the expected time of its key's jobs started before it out
   * of order (batch riders). */
  uint64_t vpush, floor, carry;
  uint64_t expect_ns; /* its expected share of a thread's time, when queued */
  enum pool_job_state state;
  uint64_t queued_ns, started_ns, finished_ns;
  int intake_status; /* came through the inbox and was turned away: why, until reported */
};

/* Priorities that JS may name (native.constants.priorities), by the names
 * lib/ accepts. 0 (POOL_PRIORITY_UNSET) means: pool_create: the default;
 * pool_reconfigure: keep.
 *   normal  SCHED_OTHER, nice 0: like the JS thread
 *   low     SCHED_BATCH + nice 19, see os_linux.c
 *   idle    SCHED_IDLE: only CPU time nobody else wants
 *   mixed   per worker: with C = os_cpu_count(), workers 0 .. C-2 are
 *           normal and every worker from index C-1 on is low. At most C-1
 *           of the pool's threads compete with the JS thread at its own
 *           weight, so it keeps a core; the rest take only what is left.
 *           (C threads, the default: C-1 normal + 1 low; 1 CPU: all low.)
 *           The pool resolves it (worker.c); the OS layer never sees it.
 *   auto    the default: per worker and over time, low while the worker
 *           gets the CPU, normal while other processes starve it
 *           (priority.c; bench/service.js chose it); where that cannot be
 *           told (no per-thread schedstat), low.
 * Every one is relative to the creating thread's priority, never above it. */
#define POOL_PRIORITY_MAP(XX) \
  XX(NORMAL, normal, 1)       \
  XX(LOW, low, 2)             \
  XX(IDLE, idle, 3)           \
  XX(MIXED, mixed, 4)         \
  XX(AUTO, auto, 5)

typedef enum {
  POOL_PRIORITY_UNSET = 0,
#define XX(upper, lower, value) POOL_PRIORITY_##upper = (value),
  POOL_PRIORITY_MAP(XX)
#undef XX
} pool_priority;

/* The highest value in POOL_PRIORITY_MAP: what validation accepts. */
#define POOL_PRIORITY_LAST    POOL_PRIORITY_AUTO
#define POOL_DEFAULT_PRIORITY POOL_PRIORITY_AUTO

typedef struct {
  const char *name;    /* thread names are "kdf-<name>-<n>", cut to 15 chars */
  unsigned threads;    /* 0 = pool_default_threads() */
  unsigned max_queue;  /* waiting jobs; 0 = POOL_DEFAULT_QUEUE_PER_THREAD * threads,
                          POOL_QUEUE_NONE = none may wait */
  uint64_t max_memory; /* bytes; 0 = pool_default_max_memory() */
  pool_priority priority;
  unsigned arena_idle_ms; /* free a worker's scratch memory after this idle time; 0 = default */
  /* Host slots (pool/hostslots.h): with host_dir set, a job starts only on
   * a worker that holds one of `host_slots` slots shared by every pool on
   * the host that names the same directory. host_key is only shown in
   * stats. pool_reconfigure: host_dir NULL keeps the current setting,
   * host_off removes it. */
  const char *host_dir;
  const char *host_key;
  unsigned host_slots;
  int host_off;
} pool_options;

#define POOL_DEFAULT_QUEUE_PER_THREAD 64
#define POOL_DEFAULT_ARENA_IDLE_MS    10000
#define POOL_MAX_THREADS              1024
#define POOL_MAX_QUEUE                (1u << 20)
/* max_queue for a pure semaphore: a job is accepted only if a thread is
 * free for it, anything else is refused at once (EFULL). 0 cannot say this
 * because 0 means "the default" in zeroed options. */
#define POOL_QUEUE_NONE               UINT_MAX
#define POOL_MAX_HOST_SLOTS           1024
#define POOL_HOST_KEY_MAX             256

typedef struct {
  uint64_t p50_ns, p99_ns, max_ns;
} pool_percentiles;

/* Counters. Every accepted job is counted once in `submitted` and ends as
 * exactly one of completed, failed, cancelled, shed or displaced, so at
 * every instant
 *   submitted == completed + failed + cancelled + shed + displaced + running + queued.
 * A call refused at submit is not submitted: it is counted in `rejected`.
 * `refused` counts the retryable refusals, wherever they happen: at submit
 * because the queue is full or the deadline would pass, in the queue
 * (`shed` at their deadline, `displaced`): the number an HTTP 429 counter
 * wants. */
typedef struct {
  /* running: jobs (each of a batch counts); busy: threads in a job or a batch. */
  unsigned threads, running, busy, queued, max_queue;
  uint64_t submitted; /* accepted jobs */
  uint64_t completed; /* ran, work returned 0 */
  uint64_t failed;    /* ran, work returned < 0 */
  uint64_t cancelled; /* left the queue without running (cancel, close, budget shrink, exit) */
  uint64_t shed;      /* their deadline passed while they were queued: never ran */
  uint64_t displaced; /* gave their place to a call served before them: never ran */
  uint64_t rejected;  /* refused at submit (full, deadline, over budget, closed) */
  uint64_t refused;   /* retryable refusals: full or deadline at submit, plus shed */
  uint64_t
      batched; /* jobs that ran in a batch another job headed (counted in completed/failed too) */
  uint64_t inboxed; /* submitted through the inbox, without the lock (see Inbox in pool.c) */
  uint64_t memory_in_use, max_memory;
  unsigned keys; /* fair keys with queued jobs (a count; keys themselves are never kept) */
  unsigned
      remembered; /* keys without queued jobs still ahead of virtual time (at most KEYS_MEMORY) */
  uint64_t avg_run_ns;        /* moving average of run time */
  pool_percentiles wait, run; /* over the last POOL_WINDOW jobs that started */
  pool_priority priority;
  uint64_t arena_maps;  /* times a worker mapped new scratch memory */
  uint64_t arena_bytes; /* scratch memory mapped right now (never above max_memory) */
  /* Host slots; host_slots == 0 when none are set. */
  unsigned host_slots;
  unsigned host_held;    /* slots this pool holds now: one per worker running a job or a batch */
  unsigned host_members; /* live pools using the key, this one included */
  uint64_t host_wait_ns; /* total time workers waited for a free slot */
  char host_key[POOL_HOST_KEY_MAX + 1];
} pool_stats;

#define POOL_WINDOW 1024

/* Cost classes (pool_job.cost_class): how many the pool learns apart. */
#define POOL_COST_CLASSES 16

/* Batches: how far behind the head a batch looks, and its most jobs. */
#define POOL_BATCH_WINDOW 16
#define POOL_MAX_BATCH    16

/* Creates a pool and starts its threads. Returns 0 or STATUS_EINVAL/STATUS_ENOMEM,
 * or STATUS_EIO when the host slot files cannot be opened. */
int pool_create(pool **out, const pool_options *opts);

/* Queues a job. Never blocks. Returns 0 (accepted: `done` will be called
 * exactly once) or, without calling `done`:
 *   STATUS_EFULL      max_queue jobs wait and none is served after this
 *                     one would be (see Fairness in pool.c),
 *   STATUS_EMEMLIMIT  job->memory exceeds the whole budget,
 *   STATUS_ETIMEDOUT  job->deadline_ns is set and the job would start
 *                     after it (the start time estimate.h predicts, from
 *                     the running jobs and the work served before it),
 *   STATUS_ENOMEM     a new key's state could not be allocated,
 *   STATUS_ECLOSED    the pool is closing.
 * After EFULL and ETIMEDOUT, job->retry_after_ns says when to retry.
 *
 * When max_queue jobs wait, the job served last gives way to this one if
 * this one would be served before it: it ends with STATUS_EDISPLACED and
 * a hint. A queued job whose deadline passes ends with STATUS_ETIMEDOUT at
 * that moment, whether or not a thread is free.
 *
 * A cheap job (cost_ns at most POOL_INBOX_MAX_COST_NS) may be accepted
 * without the lock, through the inbox (see Inbox in pool.c), and admitted
 * under the lock moments later, within bounds under which that admission
 * lets it in; should it refuse it after all (the pool stopped meanwhile,
 * a key's state could not be made), the job ends through `done` with the
 * refusal's status (and hint), like a job turned away from the queue. A deadline may be given as max_wait_ns
 * instead of deadline_ns (from the clock this call reads). */
int pool_submit(pool *p, pool_job *job);

/* Removes one queued job. Returns 0 if it was still waiting (it is now the
 * caller's again and `done` will NOT be called), STATUS_EINVAL if it already
 * started or ended (it keeps its slot until `work` returns). */
int pool_cancel(pool *p, pool_job *job);

/* For an owner that is gone: removes every queued job whose owner is
 * `owner` and calls its `done` with STATUS_ECANCELED, and raises the stop
 * flag of every worker whose running jobs all belong to `owner` (they end
 * early with STATUS_ESTOPPED; a batch that also runs another owner's job
 * runs on, since its thread is busy anyway). Returns how many queued jobs
 * were removed. */
unsigned pool_cancel_owner(pool *p, const void *owner);

/* Changes size, queue bound, budget and priority without losing a job:
 * extra threads finish their current job and exit. Zero fields keep their
 * current value. */
int pool_reconfigure(pool *p, const pool_options *opts);

void pool_get_stats(pool *p, pool_stats *out);

/* When a job queued now behind every queued job would start (ns from
 * now): estimate.h's start time, from what the running jobs have left and
 * the queued work. With host slots, the pool's concurrency is its share
 * of the host's slots (slots / live members, at most `threads`), the
 * other members taken as busy as this one. */
uint64_t pool_estimate_wait_ns(pool *p);
/* The memory budget: cheaper than pool_get_stats() when that is all that
 * is wanted (it does not sort the percentile windows). */
uint64_t pool_max_memory(pool *p);

/* The first half of pool_close(), which never blocks: from here on new
 * submits are refused and no thread starts another job; the queued jobs
 * end now, done(STATUS_ECLOSED). Running jobs carry on. Idempotent. */
void pool_shut(pool *p);
/* pool_shut(), then lets running jobs finish and joins every thread. Must
 * not be called from a pool thread. The pool stays allocated until
 * pool_free(). */
void pool_close(pool *p);
void pool_free(pool *p);
/* pool_close() then pool_free(). */
void pool_destroy(pool *p);

/* Raises the stop flag that long jobs poll, and nothing else: for a pool
 * about to be closed whose results nobody will read (its environment is
 * gone). Running jobs end early with STATUS_ESTOPPED, through `done`. */
void pool_stop_running(pool *p);

/* For process exit: raises the stop flag that long jobs poll, drops queued
 * jobs without calling `done`, and returns once no worker is running any
 * more (joining the threads nobody else is joining). The pool is left
 * allocated and refuses new work. */
void pool_stop_for_exit(pool *p);

/* For use inside `work`: */
/* Scratch memory for the running job, 64-byte aligned, at least `size`
 * bytes, kept for later jobs. Up to job->memory it was reserved from the
 * budget when the job started; more only if the budget has room right now.
 * NULL if it cannot be had. */
void *pool_worker_arena(pool_worker *w, size_t size);
/* Inside work_batch, on its thread: `job` (one of the batch) has ended with
 * `status` (0 or a negative code). Its `done` is called now, and its run
 * time and counters are its own; call it once per job. */
void pool_batch_done(pool_worker *w, pool_job *job, int status);
/* The flag long jobs poll: non-zero once their pool stops (process exit,
 * pool_stop_running) or their owner is gone (pool_cancel_owner). It is the
 * worker's, cleared when it starts its next job. */
const volatile int *pool_worker_stop_flag(pool_worker *w);

/* Defaults derived from the machine: the CPUs this process may run on
 * (affinity, reduced by a cgroup CPU quota), and a quarter of the memory
 * limit (cgroup or physical), at least 64 MiB. */
unsigned pool_default_threads(void);
uint64_t pool_default_max_memory(void);

uint64_t pool_now_ns(void);

/* The fair_key of a client named by the `len` bytes at `name`: SipHash-2-4
 * under one random key per process, never 0. */
uint64_t pool_fair_key(const void *name, size_t len);

#endif
