/* DESIGN
 *
 * Threads. A pool owns `threads` worker threads, named "kdf-<name>-<n>",
 * and one timer thread, "kdfdl-<name>" (see Deadlines). The threads that
 * submit, cancel, reconfigure or destroy are the pool's users (in kdfpool:
 * Node's JS threads, one per environment). No other thread is involved:
 * finished jobs are handed to their `done` function on the worker that ran
 * them (a shed one on the timer), and it is done's business to move them
 * elsewhere.
 *
 * Ownership. One mutex guards everything in `struct pool` except the per-
 * worker arenas, which only their own worker touches while it runs, and
 * the inbox (see Inbox), whose few fields are atomics. A job is
 * the submitter's until pool_submit() returns 0, the pool's until `done` is
 * called, and the submitter's again from inside `done`. `work` and `done`
 * always run without the lock held, so they may call back into the pool.
 *
 * Flow. pool_submit() queues a job unless the pool holds threads +
 * max_queue jobs already (running or waiting) and no queued one stands far
 * enough after it to give way, and it keeps no promised place whose turn
 * has come (see Fairness); it never blocks. An idle
 * worker takes the head of the queue, the job the discipline serves next,
 * if its memory fits in what is left of the budget; otherwise every worker
 * waits until a running job gives memory back. Taking only the head keeps
 * the order, so a large job cannot be starved by a stream of small ones. A
 * job keeps its thread and its memory reservation until `work` returns,
 * whatever happened to the caller that submitted it.
 *
 * Fairness. Jobs carry a client key (0: the one key shared by jobs that
 * name none, so without keys the queue is FIFO), a predicted cost and a
 * cost class. The discipline is start-time fair queuing (SFQ: Goyal, Vin
 * and Cheng, SIGCOMM 1996) over each job's expected thread time, with the
 * system virtual time V of WF2Q+ (Bennett and Zhang, SIGCOMM 1996; sched.h):
 * a job's start tag is max(V, its key's finish, its key's refusal mark),
 * its key's finish moves on by its expected time, the queue serves the
 * smallest (tag, arrival), and each start moves V by the job's expected
 * time over the keys backlogged (those with queued jobs, and those turned
 * away whose charge is ahead of V: a flood waiting at the door), then up
 * to the head's tag. V so grows by at most the work served and never
 * stands still while jobs start, one-shot keys or not: a client that has
 * had its share is level with newcomers within a round. A key's place is
 * its finish and its mark; nothing else moves it. The properties below hold, and
 * test/native/sim_sched.c checks them after every event of a simulation
 * on a virtual clock, under six traffic models (mixed keys and flooders;
 * one-shot keys with a returning client; Zipf per-IP keys over 10,000
 * clients; one flooder or 100 or 1,000 flooding keys beside polite users;
 * 12 clients retrying at the millisecond hint; 12 at Retry-After's whole
 * seconds), each with three cost classes, batches, aborts, deadlines,
 * resizes and closes; test/native/mutants.sh plants each wrong and expects
 * the simulation to fail:
 *   - work-conserving: a thread never idles while a job it may start (its
 *     memory fits) waits;
 *   - order: a worker starts the queued job with the smallest tag; a
 *     batch's riders come from the POOL_BATCH_WINDOW jobs served right
 *     after it, none expected to run longer than it (a batch ends when
 *     its head does);
 *   - virtual time: each start moves V by the job's expected time over the
 *     keys backlogged (counted the long way in the simulator), or to the
 *     next head's tag when that is further;
 *   - bounded lag: while key A has queued jobs, no key B starts more work
 *     than A advances, plus A's lead when it began to wait, plus three of
 *     B's jobs (one at its tag, one at a place promised to it before A
 *     waited, one on a tie; plus the window's riders where batches run);
 *   - charge only for work done: a job that leaves unrun (cancel, abort,
 *     deadline, displacement, close) leaves its key's queued jobs and next
 *     place where they would be had it never been queued, wherever it
 *     stood among them (riders started ahead of older jobs of their key
 *     stay charged, at their expected time); a call refused before the
 *     place promised to its key was due is charged one job past V, its key
 *     at most SCHED_REFUSAL_LEAD (4) jobs ahead; nothing else is charged;
 *   - no idle place: a call is refused 'queue_full' only when threads +
 *     max_queue jobs are in the pool and no queued one stands more than one
 *     of its jobs after it, nor any rider that holds a place against it (a
 *     rider under way cannot give way, so a call its key is not behind
 *     takes a place beyond it);
 *   - no churn among equals: the queued job served last gives way to a
 *     call only when it stands more than one of the caller's jobs after it
 *     (its tag past the caller's by more than the caller's expected time):
 *     keys level with each other never displace one another;
 *   - hints bounded by the drain: every refusal's hint is at most twice
 *     the time until its promised place would start (list scheduling of
 *     the running remainders and the queued work before it) plus one job;
 *   - progress: a refused call is promised its place (promise.h). Back
 *     inside the window of its hint, it takes that place, and once the
 *     jobs placed before it have started it enters even when the places
 *     are taken (beyond the bound, by at most the promises kept: 256). A
 *     client refused while level with V and returning at its hints is so
 *     served within 3 calls, whatever else arrives, where run times are as
 *     expected, no batch holds places and the queue has a place; a client
 *     served within the current round waits as V catches up (a closed loop
 *     that asks again the moment it is served), and one whose hint came
 *     early because jobs ahead overran comes back again;
 *   - memory: a key has a state while it has queued jobs, and then, while
 *     its finish or mark is ahead of V, a place in a fixed table of
 *     KEYS_MEMORY (16,384) entries (keys.h): bounded for any number of
 *     keys; a flood from more keys than that has some forgotten, which count
 *     as newcomers. An idle pool forgets how far ahead anyone was (V jumps
 *     past them);
 *   - cost: O(log queued) per submit, start, cancel and shed, plus O(1) for
 *     the key and O(256) over the promises' keys, and O(log charged) per
 *     charge and per mark V passes (a heap of the charged keys); a removal
 *     that tags a key's later jobs again costs O(log queued) for each, once
 *     per key per bulk removal; nothing walks keys;
 *   - every accepted job ends exactly once.
 * test/native/sim_overload.c runs the overload benchmark's scenarios on a
 * virtual clock and checks their goals: retries admitted at the hint, one
 * flooder, and 100 and 1,000 flooding keys (users' p99 within 5x an idle
 * pool's). What fair queuing does not give: calls from keys each served
 * about as rarely as a user and never turned away (a low-rate botnet) are
 * not told from users, nor is a flood spread over more keys than the
 * memory holds.
 * A cheap job submitted through the inbox (see Inbox) keeps all of these:
 * it is admitted by the same code, in arrival order, by the next holder of
 * the lock, which a free thread is at once; its submit is an O(1) push.
 * The simulator drives sched.c and admit.c directly; the inbox's own
 * bounds and wake-ups are test/native/test_pool.c's (test_inbox_*).
 * admit.c decides; sched.c keeps the order; keys.c the memory; promise.c
 * the places promised.
 *
 * Estimates and hints (estimate.h). A job's expected run time is a fixed
 * overhead plus its predicted cost times a scale learned per cost class
 * (so cheap jobs never move an expensive class's estimate), and its share
 * of a thread that over its class's batch size. A job placed at (S, order)
 * starts, by list scheduling, after the queued jobs placed before it (one
 * tree query), on threads free when their running jobs' expected time runs
 * out (never priced at zero; a job past its expected end may end any
 * moment). A refusal's hint is that start time for the place it is
 * promised, plus a quarter (run times vary; a client back before its
 * place is reached is refused again); refusals that come together are told
 * successive start intervals, never past twice the start plus one
 * interval. No virtual-time term: a hint is bounded by the drain. A client
 * that can only be told whole seconds (Retry-After) is told its hint
 * rounded up, or up to RETRY_SECONDS_SPREAD (2) seconds more when a
 * queue's places of returns are already promised around that moment to
 * clients placed no later than it (retry_seconds.h): rounding would
 * otherwise bring every client refused in one moment back in one moment,
 * to as many places as a moment holds; its promised place is kept until
 * those seconds plus 250 ms. sim_sched checks the seconds told against
 * every pending promise at each refusal.
 *
 * Deadlines. A job may carry a deadline. At submit, a job that would start
 * after it is refused (ETIMEDOUT) and never queued; a queued job whose
 * deadline passes is shed at that moment (ETIMEDOUT, with a hint) by the
 * pool's timer thread (deadline.c), which sleeps until the earliest
 * deadline of a queued job: the workers cannot, since they are all busy
 * exactly when deadlines pass. A worker that finds a head past its
 * deadline before the timer has woken sheds it too.
 *
 * Memory. `held` is every byte the pool answers for: each worker's charge
 * (the larger of its arena and the arena reservation of the job it runs,
 * plus that job's own allocations: its output, which lives beside the
 * arena and never in it) plus arenas on their way back to the OS. held <= max_memory at every
 * instant (check_budget() asserts it in test builds): a reservation is taken
 * before memory is mapped and given back only after it is unmapped. Arenas
 * are not pinned to their worker while no job uses them: the worker that
 * claims the head may trade its arena for a big enough idle one, or unmap
 * idle arenas (its own first) until the head fits. So kept arenas never
 * block the head, and only running jobs make it wait.
 *
 * Wake-ups. Workers sleep on one condition variable. Whatever may let the
 * head start, or changes which job is the head, wakes them: a submit, a
 * cancel, a job that ends and frees memory or an arena, an arena unmapped,
 * a reconfigure, a worker that leaves, close. A submit signals only when
 * more workers sleep than it has already signalled, and after it lets go
 * of the lock: a worker that is awake looks at the queue before it sleeps,
 * so it needs no signal, and short jobs from a busy JS thread would
 * otherwise pay a futex wake (and the woken worker a wait on the lock) per
 * job. `waking` may undercount (a timeout, another signal or a spurious
 * wake-up also takes one off), which only costs a signal; it never
 * overcounts, because a signal is counted only while a worker sleeps that
 * no counted signal is meant for. A worker whose queue has just run dry
 * lingers for POOL_LINGER_NS before it sleeps, yielding its CPU while it
 * watches `submit_seq`: when jobs of a microsecond come from a JS thread
 * one by one, workers drain the queue faster than it fills, and without
 * lingering each job would find them asleep. A lingering worker stands for
 * one queued job, so a submit still signals a sleeper for the jobs beyond
 * those the lingering and signalled workers will take. It lingers once per
 * time it runs dry, so an idle pool sleeps, and only after a run shorter
 * than the linger: after long jobs, sleeping lets the next burst gather in
 * the queue and start as one batch.
 *
 * Inbox. A submit of a cheap job (predicted under POOL_INBOX_MAX_COST_NS,
 * 100 us) does not take the lock: it pushes the job on a lock-free stack,
 * and whoever holds the lock next on the queue's behalf (a worker at the
 * top of its loop, the timer, another submit, cancel, stats, reconfigure)
 * admits the stack's jobs in the order they came, each exactly as a submit
 * under the lock would (queue_take_inbox: estimate, admit_decide, push):
 * the discipline and its properties are the same code. A JS thread that
 * submits microsecond jobs one after another otherwise waits for the lock
 * behind workers that hold it to end and claim jobs as fast, and most of
 * its time per job went there. A job may be pushed only within bounds the
 * lock published when it last looked (inbox_publish): `room`, the places
 * free then, of which each push takes one (one 64-bit word, {limit,
 * taken}, so that jobs taken out and pushed meanwhile are both counted and
 * the queue bound holds exactly); a deadline no earlier than the timer's
 * next wake-up (the timer looks at the stack when it wakes, so a queued
 * job is shed at its deadline wherever it waits) and at least twice the
 * queue's wait bound away, with the room filled, plus 10 ms; memory within
 * the budget; a pool with no host slots, open. Outside those bounds the
 * submit takes the lock as before, so refusals at submit stay synchronous;
 * within them a refusal is still possible, when the admission under the
 * lock decides so (the pool stopped, a key's state could not be made), and
 * comes through `done`. Wake-ups: a push, then a read of `sleeping`; a
 * worker about to sleep counts itself in `sleeping`, then looks at the
 * stack, and sleeps only if it is empty (all four sequentially
 * consistent), so one of the two sees the other: a submit that sees a
 * sleeper no submit has signalled yet (`waking` never overcounts, and a
 * signalled one looks at the stack when it wakes) takes the lock to wake
 * it, as any submit would. A push also
 * bumps `submit_seq`, which ends a linger. Close and exit shut the stack
 * (a sentinel no push gets past); the jobs still on it end as queued jobs
 * do, closed or dropped.
 *
 * Ends. A worker counts a job's end (running, stats, memory, the learned
 * estimate) under the lock the moment `work` returns, as one step with
 * whatever it does next under the lock (take the next head, or find none),
 * and calls `done` as soon as it lets go of the lock: before it runs the
 * next job, lingers, sleeps, waits for a slot or leaves. So a job of a
 * microsecond costs a worker one hold of the lock, not three (end, look
 * again, claim), and the JS thread's submits meet a free lock more often.
 * Whoever sees a job's `done` sees its end counted. A batch's last job
 * ends with the run the same way; the jobs before it end and are reported
 * the moment work_batch reports them.
 *
 * Shutdown. pool_destroy() closes the queue, calls `done(STATUS_ECLOSED)` for
 * every waiting job, lets running jobs finish and joins every thread, the
 * timer's included. pool_stop_for_exit() is for exit(): it raises the stop
 * flag of every worker, which long jobs poll (and which ends a new arena's
 * faulting-in after the step in progress, prefault.c), drops the queue
 * without callbacks and joins the threads, so no worker is inside a
 * library while the library's own exit handlers run. A gone owner (an
 * environment torn down) has its queued jobs cancelled and the stop flag
 * of the workers that run only its jobs raised (pool_cancel_owner).
 *
 * Portability. The pool's files are pthreads and C11 only; starting a
 * thread, thread names, priorities, CPU and memory limits, arena pages and
 * the clock differ per system and sit behind pool/os.h (os_linux.c,
 * os_posix.c, os_win.c). Every timed wait (deadlines, idle arenas,
 * host-slot polls) runs on the monotonic clock of pool_now_ns(), never the
 * wall clock, which may be stepped (os_cond_wait_until). Errors are the
 * neutral STATUS_E* codes of common/status.h.
 *
 * Batches. A job may carry a batch_key: the worker that takes it as the
 * head also takes compatible jobs (same key and work_batch, deadline not
 * passed, memory that fits, a predicted cost no more than the head's:
 * sched_may_ride) from the POOL_BATCH_WINDOW jobs right behind it, and
 * runs them in one work_batch call. The batch so ends when its head does:
 * a job placed before the riders, which the batch serves out of order,
 * waits for the one job the thread took, never for a longer rider. Each job of a batch counts as running, keeps its own wait and run
 * time (work_batch reports each job with pool_batch_done the moment it
 * ends, and `done` is called then), and can no longer be cancelled. The
 * head's reservation covers the whole batch and goes back when the batch
 * ends. A partner whose memory is not within it raises the worker's
 * reservation so that one arena holds the whole batch (the batch's work
 * splits it), but only with what the budget has free at that moment,
 * under the same held <= max_memory rule; it never waits for memory, it
 * just stays queued. That extra memory may make a memory-hungry head
 * behind the batch wait, for at most this batch's run. The order holds
 * for heads: a worker still starts only the head, and no head starts
 * later because of batching; a job within the window may start before
 * incompatible jobs served ahead of it, by riding along with an earlier
 * head, never from further back than the window. The wait estimate
 * divides a job's run by its class's average batch size; the queue bound
 * counts the jobs riding behind a head as waiting, so a pool holds at most
 * threads + max_queue jobs, batched or not.
 *
 * Priorities. Each worker applies the pool's priority to itself, when it
 * starts and when the priority changes (between jobs). 'mixed' is the one
 * that depends on the worker: by index against the CPU count, so the first
 * CPUs-1 workers share the JS thread's priority and the others run low.
 * 'auto' (priority.c) gives each worker a second thread at the base
 * priority and moves the worker to it while other processes starve it.
 *
 * Resizing. Lowering `threads` makes workers with an index at or above the
 * new count exit once their current job ends; raising it reuses those slots
 * (joining threads that already exited) and starts new ones.
 *
 * Host slots (opt-in, pool/hostslots.h). Every pool on the host configured
 * with the same key shares `slots` running jobs: a worker starts the head
 * only while it holds a slot (a lock file), taken after budget_claim()
 * says the head's memory fits (so a job that waits for memory holds no
 * slot) and given back as soon as the job ends (an idle worker holding one
 * would waste it for the whole host). The head stays in the queue while its
 * worker looks for a slot, so cancel, abort, deadlines and close work as
 * before. One worker per pool, the `seeker`, polls: it tries every slot
 * without waiting, outside the pool lock, and if none is free sleeps on
 * `wake` for 50 us doubling to 1 ms, so whatever wakes the workers (cancel,
 * close, reconfigure, a slot given back in this pool) also wakes it at
 * once. The other workers sleep as usual. A polling pool says so (a shared
 * lock on the key's `want` file), and a pool that gives a slot back while
 * another one waits stays away for two poll periods (courtesy) so that the
 * other gets it: otherwise the releasing worker, which tries at once, would
 * keep the slots while the others sleep. Nobody waiting, no pause. Workers
 * hold a reference to the slots object of the slot they hold, so
 * reconfigure may swap or drop it while jobs run. A slot stands for a
 * thread's CPU: a batch, one thread's work, holds one slot, given back
 * with its last job.
 *
 * Files. One concern each. A file calls only files below it in this list,
 * never one above (so they form no cycle), and reaches another file's
 * state only through that file's header; internal.h holds struct pool and
 * struct pool_worker, which they share.
 *   pool.c       this comment; create, reconfigure, close, free, stop for exit
 *   worker.c     the worker loop, priorities, thread names, start and join
 *   priority.c   priority 'auto': the rule, the twin threads, the hand-over
 *   batch.c      batches: collect the window, run, pool_batch_done
 *   deadline.c   the timer thread that sheds jobs at their deadline
 *   stats.c      what a start and an end count, the windows, pool_get_stats
 *   queue.c      the queue: submit, cancel, shed, what leaves unrun, the view
 *                of the pool admission decides on, the inbox's admission;
 *                no other file touches the queued jobs but through queue.h
 *   seek.c       host slots as workers use them: the seeker, courtesy, members
 *   budget.c     the memory budget and arenas, pool_worker_arena
 *   prefault.c   faulting in a new arena a step at a time (a stop for exit ends it)
 *   wake.c       waits on `wake`, and the linger
 *   inbox.c      the lock-free stack of cheap submits and its published bounds
 *   admit.c      admission, displacement, retry hints (pure decisions)
 *   retry_seconds.c  whole-second hints spread over the seconds (Retry-After)
 *   promise.c    places promised with a refusal, and their windows
 *   sched.c      the discipline: tags, virtual time, the service order
 *   keys.c       key states and the bounded memory of finish tags and marks
 *   tree.c       the intrusive order-statistics tree sched.c keeps jobs in
 *   estimate.c   learned run times and predicted start times
 *   machine.c    the clock; the default size and budget; the fair-key hash
 *   hostslots.c  the host slots' lock files; os_*.c: the OS seam (os.h) */
#define _POSIX_C_SOURCE 200809L
#include "pool/pool.h"

#include "common/fault.h"
#include "common/status.h"
#include "pool/deadline.h"
#include "pool/estimate.h"
#include "pool/hostslots.h"
#include "pool/inbox.h"
#include "pool/internal.h"
#include "pool/os.h"
#include "pool/queue.h"
#include "pool/sched.h"
#include "pool/worker.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pool_create(pool **out, const pool_options *opts) {
  *out = NULL;
  pool_options o;
  memset(&o, 0, sizeof o);
  if (opts != NULL) o = *opts;
  if (o.threads == 0) o.threads = pool_default_threads();
  if (o.threads > POOL_MAX_THREADS) return STATUS_EINVAL;
  if (o.max_queue == 0)
    o.max_queue = POOL_DEFAULT_QUEUE_PER_THREAD * o.threads;
  else if (o.max_queue == POOL_QUEUE_NONE)
    o.max_queue = 0;
  else if (o.max_queue > POOL_MAX_QUEUE)
    return STATUS_EINVAL;
  if (o.max_memory == 0) o.max_memory = pool_default_max_memory();
  if (o.arena_idle_ms == 0) o.arena_idle_ms = POOL_DEFAULT_ARENA_IDLE_MS;
  if (o.priority == POOL_PRIORITY_UNSET) o.priority = POOL_DEFAULT_PRIORITY;
  if (o.priority > POOL_PRIORITY_LAST) return STATUS_EINVAL;

  if (o.host_dir != NULL && (o.host_slots == 0 || o.host_slots > POOL_MAX_HOST_SLOTS))
    return STATUS_EINVAL;

  pool *p = KDF_CALLOC(1, sizeof *p);
  if (p == NULL) return STATUS_ENOMEM;
  int rc = STATUS_ENOMEM;
  if (sched_init(&p->sched) != 0) goto free_pool;
  estimate_init(&p->estimate);
  if (o.host_dir != NULL) {
    rc = host_slots_open(&p->hosts, o.host_dir, o.host_key, o.host_slots);
    if (rc != 0) goto free_sched;
    rc = STATUS_ENOMEM;
  }
  if (os_mutex_init(&p->lock) != 0) goto free_hosts;
  /* Timed waits run on the pool's monotonic clock (see Portability). */
  if (os_cond_init_monotonic(&p->wake) != 0) goto free_lock;
  if (os_cond_init_monotonic(&p->exited) != 0) goto free_wake;
  if (os_cond_init_monotonic(&p->timer_wake) != 0) goto free_exited;
  /* "kdf-" + name + "-NN" must fit Linux's 15-character thread names. */
  snprintf(p->name, 8, "%s", o.name != NULL && o.name[0] != '\0' ? o.name : "pool");
  p->threads = o.threads;
  p->max_queue = o.max_queue;
  p->max_memory = o.max_memory;
  p->priority = o.priority;
  p->priority_base = os_priority_base();
  p->arena_idle_ms = o.arena_idle_ms;

  p->timer_joined = 1; /* nothing to join until it starts */
  rc = deadline_start(p);
  pthread_mutex_lock(&p->lock);
  for (unsigned i = 0; i < o.threads && rc == 0; i++) rc = worker_start(p, i);
  if (rc != 0) p->closing = 1;
  pthread_mutex_unlock(&p->lock);
  if (rc != 0) {
    pthread_cond_broadcast(&p->wake);
    pool_destroy(p);
    return rc;
  }
  *out = p;
  return 0;

free_exited:
  pthread_cond_destroy(&p->exited);
free_wake:
  pthread_cond_destroy(&p->wake);
free_lock:
  pthread_mutex_destroy(&p->lock);
free_hosts:
  host_slots_unref(p->hosts);
free_sched:
  sched_free(&p->sched);
free_pool:
  KDF_FREE(p);
  return rc;
}

static int too_large(const pool_job *job, const void *max_memory) {
  return job->memory > *(const uint64_t *)max_memory;
}

int pool_reconfigure(pool *p, const pool_options *o) {
  if (o->threads > POOL_MAX_THREADS ||
      (o->max_queue > POOL_MAX_QUEUE && o->max_queue != POOL_QUEUE_NONE) ||
      o->priority > POOL_PRIORITY_LAST ||
      (o->host_dir != NULL && (o->host_slots == 0 || o->host_slots > POOL_MAX_HOST_SLOTS)))
    return STATUS_EINVAL;
  pool_job *evicted = NULL;
  int rc = 0;
  /* New host slots are opened before anything changes (files: outside the
   * lock), so a failure leaves the pool as it was. */
  host_slots *hosts = NULL, *old_hosts = NULL;
  pthread_mutex_lock(&p->lock);
  int same = o->host_dir != NULL && host_slots_is(p->hosts, o->host_dir, o->host_slots);
  pthread_mutex_unlock(&p->lock);
  if (o->host_dir != NULL && !same) {
    rc = host_slots_open(&hosts, o->host_dir, o->host_key, o->host_slots);
    if (rc != 0) return rc;
  }
  /* The inbox's jobs come in under the old setting; its room is
   * published again under the new one. */
  queue_intake in = QUEUE_INTAKE_INIT;
  pthread_mutex_lock(&p->lock);
  queue_take_inbox(p, &in);
  if (p->closing || p->stop) {
    pthread_mutex_unlock(&p->lock);
    queue_intake_finish(p, &in);
    host_slots_unref(hosts);
    return STATUS_ECLOSED;
  }
  if (hosts != NULL || o->host_off) {
    /* Running jobs keep the slots they hold (their workers' references);
     * the next job starts under the new setting. */
    old_hosts = p->hosts;
    p->hosts = hosts;
    p->host_members = 0;
    p->slot_wanted = 0; /* unsaid for old_hosts below; the seeker says it again */
    p->slot_courtesy_ns = 0;
  }
  if (o->max_queue != 0) p->max_queue = o->max_queue == POOL_QUEUE_NONE ? 0 : o->max_queue;
  if (o->arena_idle_ms != 0) p->arena_idle_ms = o->arena_idle_ms;
  if (o->max_memory != 0) {
    __atomic_store_n(&p->max_memory, o->max_memory, __ATOMIC_RELAXED);
    /* Nothing new starts until `held` is back under the new budget. */
    p->ceiling = p->held;
    /* A waiting job that can never fit again would block the queue head. */
    unsigned n;
    evicted = queue_take_if(p, too_large, &p->max_memory, &n);
    p->cancelled += n;
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
    for (unsigned i = old; i < o->threads && rc == 0; i++) rc = worker_start(p, i);
    if (rc != 0) {
      /* Keep the threads that did start. */
      unsigned started = old;
      while (started < p->workers_len && p->workers[started] != NULL &&
             p->workers[started]->state == WORKER_ALIVE)
        started++;
      p->threads = started;
    }
  }
  in.publish = 1;
  queue_take_inbox(p, &in);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  queue_intake_finish(p, &in);
  if (old_hosts != NULL) host_slots_want(old_hosts, 0); /* its files may outlive it a while */
  host_slots_unref(old_hosts);
  queue_finish(evicted, STATUS_EMEMLIMIT);
  return rc;
}

/* Lock held. The inbox shuts: its jobs, submitted and never queued, are
 * counted as submitted and cancelled; returns them (a list for
 * queue_finish, in the order they came). */
static pool_job *shut_inbox(pool *p) {
  unsigned n;
  pool_job *jobs = inbox_shut(p, &n);
  p->inboxed += n;
  p->submitted += n;
  p->cancelled += n;
  for (pool_job *job = jobs; job != NULL; job = job->next) job->state = POOL_JOB_DONE;
  return jobs;
}

void pool_shut(pool *p) {
  pthread_mutex_lock(&p->lock);
  p->closing = 1;
  pool_job *early = shut_inbox(p);
  p->cancelled += p->queued;
  pool_job *taken = queue_take_all(p);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  queue_finish(early, STATUS_ECLOSED);
  queue_finish(taken, STATUS_ECLOSED);
}

void pool_close(pool *p) {
  pool_shut(p);
  worker_join_all(p);
  deadline_join(p);
  /* Every worker has given its slot back; now the membership goes too. */
  pthread_mutex_lock(&p->lock);
  host_slots *hosts = p->hosts;
  p->hosts = NULL;
  pthread_mutex_unlock(&p->lock);
  host_slots_unref(hosts);
}

void pool_free(pool *p) {
  host_slots_unref(p->hosts); /* left by pool_stop_for_exit(); the threads are gone */
  for (unsigned i = 0; i < p->workers_len; i++) KDF_FREE(p->workers[i]);
  KDF_FREE(p->workers);
  pthread_cond_destroy(&p->timer_wake);
  pthread_cond_destroy(&p->exited);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  sched_free(&p->sched);
  KDF_FREE(p);
}

void pool_destroy(pool *p) {
  if (p == NULL) return;
  pool_close(p);
  pool_free(p);
}

/* Lock held. The pool stops: so does every job that runs. */
static void raise_stop(pool *p) {
  __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
  for (unsigned i = 0; i < p->workers_len; i++)
    if (p->workers[i] != NULL) __atomic_store_n(&p->workers[i]->stop, 1, __ATOMIC_RELAXED);
  pthread_cond_broadcast(&p->timer_wake);
}

void pool_stop_running(pool *p) {
  pthread_mutex_lock(&p->lock);
  raise_stop(p);
  pthread_mutex_unlock(&p->lock);
}

void pool_stop_for_exit(pool *p) {
  pthread_mutex_lock(&p->lock);
  raise_stop(p);
  p->closing = 1;
  (void)shut_inbox(p); /* dropped, as the queue is: nobody is left to tell */
  p->cancelled += p->queued;
  (void)queue_take_all(p); /* dropped: nobody is left to tell */
  pthread_cond_broadcast(&p->wake);
  /* Another thread (a pool_close() in progress) may have claimed some
   * threads for joining; what matters here is that none is still working. */
  for (;;) {
    int alive = p->timer_alive;
    for (unsigned i = 0; i < p->workers_len; i++)
      if (p->workers[i] != NULL && p->workers[i]->state == WORKER_ALIVE) alive = 1;
    if (!alive) break;
    pthread_cond_wait(&p->exited, &p->lock);
  }
  pthread_mutex_unlock(&p->lock);
  worker_join_all(p);
  deadline_join(p);
}
