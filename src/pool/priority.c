/* Priority 'auto': low while the worker gets the CPU, the JS thread's own
 * priority while other processes starve it.
 *
 * DESIGN
 *
 * Why. 'low' (SCHED_BATCH, nice 19) keeps the event loop ahead of the
 * pool's threads, but a thread at nice 19 gets a weight of 15 against
 * 1024 for each busy nice-0 process beside it: with one such process per
 * CPU, logins nearly stop. 'normal' keeps its share there but competes
 * with the event loop at equal weight. The signal that tells the two
 * apart is the worker's own: the share of the time it was runnable that
 * it spent on a CPU (Linux's schedstat: run and run-queue wait, per
 * thread). Beside its own event loop a low worker still runs most of the
 * time it wants to; behind other busy processes it waits nearly all of it.
 * How long the queue waits says nothing about which of the two it is.
 *
 * The rule (priority_decide), over windows of at least PRIORITY_WINDOW_NS
 * looked at where the worker takes a job: a worker at low goes up when it
 * ran less than 1/4 of its runnable time while the process as a whole used
 * less than 9/10 of its CPUs (what holds the CPU is outside the process;
 * the event loop and the process's own threads keep their precedence, as
 * with 'low', even on one CPU); raised, it goes back down when it ran more
 * than 3/4, or when the process used 9/10 of its CPUs and more (nobody
 * else wants them). Beside its own event loop a low worker runs ~0.8 of
 * the time, raised behind one busy process per CPU ~0.4-0.5 (the process
 * itself then gets about half its CPUs), low behind them under 0.1: the
 * thresholds sit between those, and no window can meet both the way up
 * and the way down (that gap is the hysteresis). A worker whose queue
 * drains stays where it is: the next window (the next job) decides, so a
 * starved worker does not start every burst starved again. At most one
 * change per window, per worker.
 *
 * How. An unprivileged thread can lower its own priority but never raise it
 * again (nice down needs CAP_SYS_NICE or RLIMIT_NICE, which services do not
 * have). So 'auto' does not renice at all: each worker is two threads. Its
 * own thread (started by the JS thread, so at the base priority) starts its
 * twin first, which inherits that base, then sets itself low; the twin stays
 * at the base, never above it, and names itself "kdf+<pool>-<n>". The
 * worker (its arena, its host slot, its place in the loop) is held by one
 * of the two at a time, and handed over under the pool lock at the top of
 * the loop, where it holds no job; the other waits on `turn`, without the
 * pool lock. Changing level costs a hand-over, never a setpriority(). The
 * twin leaves only with its worker: when the worker's own thread exits for
 * good it tells the twin (`gone`) and joins it (the twin no longer needs
 * the pool lock, which the pool's closer may hold while it joins the
 * worker), so a worker that exits and is started again gets a new pair.
 *
 * Where there is no per-thread schedstat (other systems, a kernel without
 * it), or the process already runs at nice 19 (low is the base there), no
 * twin is started and 'auto' is 'low'. Twins start with their workers'
 * threads only: in a pool switched to 'auto' later (its workers may be low
 * already, and could not start a twin at the base), 'auto' is 'low'. */
#define _POSIX_C_SOURCE 200809L
#include "pool/priority.h"

#include "common/fault.h"
#include "pool/os.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct priority_twin {
  void *(*main)(void *); /* what the twin runs: worker_main(w) */
  pthread_t thread;
  /* The hand-over. `lock` is taken after the pool lock, never before it,
   * and a thread waits on `turn` without the pool lock: a twin told to end
   * never needs the pool lock again, so the worker's own thread may join it
   * while the pool's closer holds that lock (worker.c's exit path). */
  pthread_mutex_t lock;
  pthread_cond_t turn; /* `ready`, `raised` or `gone` changed */
  /* Written under both locks (where the writer holds the pool's), read
   * under either. */
  int ready;  /* `thread` is set: the twin may compare itself with it */
  int raised; /* 1: the twin holds the worker, 0: the worker's own thread */
  int gone;   /* the worker's own thread left for good: the twin ends */
  /* The window, of the thread that holds the worker (under the lock). */
  int started;                              /* the window has its first counters */
  uint64_t next_ns;                         /* no look before this pool_now_ns() */
  uint64_t since_ns, run0, wait0, process0; /* the counters at its start */
};

/* Whether the calling thread is w's twin (no thread-local variables: in a
 * shared object they would need the dynamic loader's __tls_get_addr, which
 * the prebuilt binaries must not import). `thread` is written by the
 * worker's own thread before `ready`, and the twin reads it only after
 * seeing `ready` under the lock. */
static int is_twin(const pool_worker *w) {
  return w->twin != NULL && pthread_equal(pthread_self(), w->twin->thread);
}

#ifdef POOL_TEST_HOOKS
static int (*stat_hook)(int raised, uint64_t *run_ns, uint64_t *wait_ns); /* atomic */
static uint64_t (*process_hook)(void);                                    /* atomic */

void priority_observe(int (*stat)(int raised, uint64_t *run_ns, uint64_t *wait_ns),
                      uint64_t (*process)(void)) {
  __atomic_store_n(&stat_hook, stat, __ATOMIC_RELEASE);
  __atomic_store_n(&process_hook, process, __ATOMIC_RELEASE);
}

int priority_thread_raised(const pool_worker *w) { return is_twin(w); }

static int sched_stat(int raised, uint64_t *run_ns, uint64_t *wait_ns) {
  int (*fn)(int, uint64_t *, uint64_t *) = __atomic_load_n(&stat_hook, __ATOMIC_ACQUIRE);
  return fn != NULL ? fn(raised, run_ns, wait_ns) : os_thread_sched_stat(run_ns, wait_ns);
}

static uint64_t process_cpu(void) {
  uint64_t (*fn)(void) = __atomic_load_n(&process_hook, __ATOMIC_ACQUIRE);
  return fn != NULL ? fn() : os_process_cpu_ns();
}
#else
static int sched_stat(int raised, uint64_t *run_ns, uint64_t *wait_ns) {
  (void)raised;
  return os_thread_sched_stat(run_ns, wait_ns);
}

static uint64_t process_cpu(void) { return os_process_cpu_ns(); }
#endif

int priority_decide(int raised, uint64_t run_ns, uint64_t wait_ns, uint64_t process_ns,
                    uint64_t capacity_ns) {
  /* Deltas over one window: far from overflowing these products. */
  uint64_t runnable = run_ns + wait_ns;
  if (runnable == 0) return raised;
  if (raised) /* ran over 3/4, or the process has its CPUs to itself: down */
    return run_ns * 4 > runnable * 3 || process_ns * 10 >= capacity_ns * 9 ? 0 : 1;
  if (run_ns * 4 >= runnable) return 0;     /* ran at least 1/4: stays */
  return process_ns * 10 < capacity_ns * 9; /* the CPUs went outside: up */
}

static void *twin_main(void *arg) {
  pool_worker *w = arg;
  priority_twin *t = w->twin;
  /* Until its worker's thread has stored `thread`, is_twin() cannot tell. */
  pthread_mutex_lock(&t->lock);
  while (!t->ready) pthread_cond_wait(&t->turn, &t->lock);
  pthread_mutex_unlock(&t->lock);
  return t->main(arg);
}

/* The worker's own thread, at its start (so at the base priority): starts
 * its twin, which inherits that priority. Without one (no data, no memory,
 * no thread) 'auto' stays 'low'. */
static void start_twin(pool *p, pool_worker *w, void *(*main)(void *)) {
  uint64_t run, wait;
  if (p->priority_base >= 19 || sched_stat(0, &run, &wait) != 0) return;
  priority_twin *t = KDF_CALLOC(1, sizeof *t);
  if (t == NULL) return;
  t->main = main;
  if (pthread_mutex_init(&t->lock, NULL) != 0) {
    KDF_FREE(t);
    return;
  }
  if (os_cond_init_monotonic(&t->turn) != 0) {
    pthread_mutex_destroy(&t->lock);
    KDF_FREE(t);
    return;
  }
  w->twin = t; /* before the twin runs: it reads it */
  if (os_thread_start(&t->thread, twin_main, w) != 0) {
    w->twin = NULL;
    pthread_cond_destroy(&t->turn);
    pthread_mutex_destroy(&t->lock);
    KDF_FREE(t);
    return;
  }
  pthread_mutex_lock(&p->lock);
  pthread_mutex_lock(&t->lock);
  t->ready = 1;
  pthread_cond_broadcast(&t->turn);
  pthread_mutex_unlock(&t->lock);
  pthread_mutex_unlock(&p->lock);
}

int priority_start(pool *p, pool_worker *w, void *(*main)(void *)) {
  if (is_twin(w)) {
    char name[32];
    snprintf(name, sizeof name, "kdf+%s-%u", p->name, w->index);
    os_thread_set_name(name);
    /* A twin touches the pool only once it holds the worker. Otherwise a
     * worker that leaves at once would wait, as it ends, for a twin that
     * waits for the pool lock, held by whoever joins the worker (a
     * reconfigure that grows the pool back joins it under the lock). */
    priority_twin *t = w->twin;
    pthread_mutex_lock(&t->lock);
    while (!t->raised && !t->gone) pthread_cond_wait(&t->turn, &t->lock);
    int held = t->raised;
    pthread_mutex_unlock(&t->lock);
    return held ? 1 : -1;
  }
  pthread_mutex_lock(&p->lock);
  pool_priority priority = p->priority;
  pthread_mutex_unlock(&p->lock);
  if (priority == POOL_PRIORITY_AUTO) start_twin(p, w, main);
  return 0;
}

void priority_apply(pool *p, pool_worker *w, pool_priority priority) {
  if (is_twin(w)) {
    /* A twin runs only while 'auto' raises it: it stays at the base. */
    if (priority == POOL_PRIORITY_AUTO)
      os_thread_set_priority(POOL_PRIORITY_NORMAL, p->priority_base);
    return;
  }
  if (priority == POOL_PRIORITY_AUTO) priority = POOL_PRIORITY_LOW;
  os_thread_set_priority(priority, p->priority_base);
}

/* Pool lock held. Gives the worker to the thread of level `to`. */
static void hand_over(priority_twin *t, int to) {
  t->started = 0;
  t->next_ns = 0; /* the new holder starts its window at once */
  pthread_mutex_lock(&t->lock);
  t->raised = to;
  pthread_cond_broadcast(&t->turn);
  pthread_mutex_unlock(&t->lock);
}

/* Pool lock held on entry, released while waiting. Waits until this thread
 * (`mine`: 1 on the twin) holds the worker: 1, with the pool lock held
 * again; or, on the twin, until it must end: -1, without the pool lock. */
static int wait_turn(pool *p, priority_twin *t, int mine) {
  pthread_mutex_unlock(&p->lock);
  pthread_mutex_lock(&t->lock);
  while (t->raised != mine && !t->gone) pthread_cond_wait(&t->turn, &t->lock);
  int held = t->raised == mine;
  pthread_mutex_unlock(&t->lock);
  if (!held) return -1;
  pthread_mutex_lock(&p->lock);
  return 1;
}

enum { STAY = -1 };

/* Lock held, on the holder. STAY when no window is due; else the lock is
 * released to read the counters, and the level the rule chose is
 * returned (the current one when the window is too short). */
static int look(pool *p, priority_twin *t, int mine) {
  uint64_t now = pool_now_ns();
  if (now < t->next_ns) return STAY;
  pthread_mutex_unlock(&p->lock);
  uint64_t run = 0, wait = 0;
  int ok = sched_stat(mine, &run, &wait) == 0;
  uint64_t process = process_cpu();
  pthread_mutex_lock(&p->lock);
  if (!ok) {
    t->next_ns = UINT64_MAX; /* no data: stay where it is */
    return mine;
  }
  if (!t->started || run < t->run0 || wait < t->wait0 || process < t->process0) {
    t->started = 1;
    t->since_ns = now;
    t->run0 = run;
    t->wait0 = wait;
    t->process0 = process;
    t->next_ns = now + PRIORITY_WINDOW_NS;
    return mine;
  }
  uint64_t dr = run - t->run0, dw = wait - t->wait0;
  if (dr + dw < PRIORITY_WINDOW_NS / 2) {
    /* Mostly idle: the window goes on, looked at again later. */
    t->next_ns = now + PRIORITY_WINDOW_NS / 2;
    return mine;
  }
  uint64_t capacity = (now - t->since_ns) * os_cpu_count(), used = process - t->process0;
  t->since_ns = now;
  t->run0 = run;
  t->wait0 = wait;
  t->process0 = process;
  t->next_ns = now + PRIORITY_WINDOW_NS;
  return priority_decide(mine, dr, dw, used, capacity);
}

int priority_turn(pool *p, pool_worker *w) {
  priority_twin *t = w->twin;
  if (t == NULL) return 0;
  int mine = is_twin(w);
  if (t->raised != mine) return wait_turn(p, t, mine);
  if (p->priority != POOL_PRIORITY_AUTO) {
    if (!mine) return 0;
    hand_over(t, 0); /* 'auto' was switched off: back to the worker's own thread */
    return wait_turn(p, t, 1);
  }
  int want = look(p, t, mine);
  if (want == STAY) return 0;
  if (want == mine) return 1; /* the lock was released: look again */
  hand_over(t, want);
  return wait_turn(p, t, mine);
}

int priority_leave(pool *p, pool_worker *w) {
  priority_twin *t = w->twin;
  if (t == NULL || !is_twin(w)) return 0;
  hand_over(t, 0);
  return wait_turn(p, t, 1);
}

void priority_stop(pool *p, pool_worker *w) {
  (void)p;
  priority_twin *t = w->twin;
  if (t == NULL) return;
  pthread_mutex_lock(&t->lock);
  t->gone = 1;
  pthread_cond_broadcast(&t->turn);
  pthread_mutex_unlock(&t->lock);
}

void priority_join(pool_worker *w) {
  priority_twin *t = w->twin;
  if (t == NULL) return;
  pthread_join(t->thread, NULL);
  pthread_cond_destroy(&t->turn);
  pthread_mutex_destroy(&t->lock);
  w->twin = NULL;
  KDF_FREE(t);
}
