/* Plain-C test of priority 'auto' (src/pool/priority.c), under
 * ThreadSanitizer, AddressSanitizer and UBSan as well as in a normal build:
 * the rule alone (priority_decide), then the pool's workers moving between
 * their two threads as the rule says, with the CPU counters the rule reads
 * made up by the test (priority_observe): a worker that is starved goes up
 * and stays up while it keeps half its share, comes back down once it gets
 * the CPU again, never changes more than once per window, hands the worker
 * back when 'auto' is switched off, and leaves cleanly (shrink, grow, close)
 * from either thread. No timing asserts: each wait is for an event, bounded
 * only as a hang detector. */
#define _GNU_SOURCE
#include "check.h"
#include "common/status.h"
#include "pool/os.h"
#include "pool/pool.h"
#include "pool/priority.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the made-up CPU counters ---- */

/* Per mille of its runnable time that a thread runs, for the worker's own
 * (low) thread and for its twin. */
static atomic_int own_share, twin_share;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Each call charges the wall time since the thread's last call as runnable
 * time, split by the share of the thread's kind. */
static int fake_stat(int raised, uint64_t *run_ns, uint64_t *wait_ns) {
  static _Thread_local uint64_t last, run, wait;
  uint64_t now = now_ns();
  if (last != 0) {
    uint64_t d = now - last;
    int share = atomic_load(raised ? &twin_share : &own_share);
    run += d * (uint64_t)share / 1000;
    wait += d - d * (uint64_t)share / 1000;
  }
  last = now;
  *run_ns = run;
  *wait_ns = wait;
  return 0;
}

/* Per mille of the process's CPUs that the process itself uses. */
static atomic_int process_share;

static uint64_t fake_process(void) {
  static uint64_t start;
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static uint64_t used, last;
  pthread_mutex_lock(&lock);
  uint64_t now = now_ns();
  if (start == 0) start = last = now;
  /* As if two CPUs: the capacity priority.c computes is wall * CPUs. */
  used += (now - last) * os_cpu_count() * (uint64_t)atomic_load(&process_share) / 1000;
  last = now;
  uint64_t out = used;
  pthread_mutex_unlock(&lock);
  return out;
}

/* ---- jobs that say where they ran ---- */

typedef struct {
  pool_job base;
  atomic_int done;
  int raised; /* priority_thread_raised() where it ran */
} where_job;

static int where_work(pool_job *j, pool_worker *w) {
  where_job *job = (where_job *)j;
  job->raised = priority_thread_raised(w);
  usleep(2000); /* a job of a couple of ms: a window is tens of them */
  return 0;
}

static void where_done(pool_job *j, int status) {
  (void)status;
  atomic_store(&((where_job *)j)->done, 1);
}

/* Runs one job on `p` and returns whether it ran raised. */
static int run_one(pool *p) {
  where_job job;
  memset(&job, 0, sizeof job);
  job.base.work = where_work;
  job.base.done = where_done;
  atomic_init(&job.done, 0);
  int rc = pool_submit(p, &job.base);
  CHECK_EQ(rc, 0);
  if (rc != 0) return -1;
  while (!atomic_load(&job.done)) usleep(100);
  return job.raised;
}

/* Runs jobs one at a time until one runs at `raised`; how many it took, or
 * -1 after `limit` (a hang detector: a window is 100 ms, a job 2 ms). */
static int until(pool *p, int raised, int limit) {
  for (int i = 1; i <= limit; i++) {
    if (run_one(p) == raised) return i;
  }
  return -1;
}

static pool *make_pool(unsigned threads, pool_priority priority) {
  pool_options o;
  memset(&o, 0, sizeof o);
  o.name = "prio";
  o.threads = threads;
  o.priority = priority;
  pool *p = NULL;
  CHECK_EQ(pool_create(&p, &o), 0);
  if (p == NULL) exit(1);
  return p;
}

static void set_priority(pool *p, pool_priority priority) {
  pool_options o;
  memset(&o, 0, sizeof o);
  o.priority = priority;
  CHECK_EQ(pool_reconfigure(p, &o), 0);
}

static void set_threads(pool *p, unsigned threads) {
  pool_options o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  CHECK_EQ(pool_reconfigure(p, &o), 0);
}

/* ---- the rule alone ---- */

static void test_rule(void) {
  const uint64_t ms = 1000000;
  const uint64_t cap = 200 * ms;  /* a window of 100 ms on 2 CPUs */
  const uint64_t quiet = 60 * ms; /* the process used 30 % of them */
  /* Low: up only below a quarter, and only when the process left CPUs to others. */
  CHECK_EQ(priority_decide(0, 100 * ms, 0, quiet, cap), 0);
  CHECK_EQ(priority_decide(0, 80 * ms, 20 * ms, quiet, cap), 0); /* beside its own event loop */
  CHECK_EQ(priority_decide(0, 26 * ms, 74 * ms, quiet, cap), 0);
  CHECK_EQ(priority_decide(0, 25 * ms, 75 * ms, quiet, cap), 0); /* exactly 1/4: stays */
  CHECK_EQ(priority_decide(0, 24 * ms, 76 * ms, quiet, cap), 1);
  CHECK_EQ(priority_decide(0, 2 * ms, 98 * ms, quiet, cap), 1); /* behind busy processes */
  /* Starved by its own process (the event loop or its threads use 9/10 of
   * the CPUs and more, say on one CPU): it stays low, as 'low' would. */
  CHECK_EQ(priority_decide(0, 2 * ms, 98 * ms, 180 * ms, cap), 0);
  CHECK_EQ(priority_decide(0, 2 * ms, 98 * ms, 179 * ms, cap), 1);
  CHECK_EQ(priority_decide(0, 2 * ms, 98 * ms, 250 * ms, cap), 0);
  CHECK_EQ(priority_decide(0, 2 * ms, 98 * ms, 0, 0), 0); /* no capacity known */
  /* Raised: down above three quarters, or once the process has its CPUs
   * to itself (9/10 of them and more). */
  CHECK_EQ(priority_decide(1, 50 * ms, 50 * ms, quiet, cap), 1); /* its fair share beside them */
  CHECK_EQ(priority_decide(1, 60 * ms, 40 * ms, 100 * ms, cap), 1);
  CHECK_EQ(priority_decide(1, 75 * ms, 25 * ms, quiet, cap), 1); /* exactly 3/4: stays */
  CHECK_EQ(priority_decide(1, 76 * ms, 24 * ms, quiet, cap), 0);
  CHECK_EQ(priority_decide(1, 10 * ms, 90 * ms, quiet, cap), 1);
  CHECK_EQ(priority_decide(1, 100 * ms, 0, quiet, cap), 0);
  CHECK_EQ(priority_decide(1, 50 * ms, 50 * ms, 179 * ms, cap), 1);
  CHECK_EQ(priority_decide(1, 50 * ms, 50 * ms, 180 * ms, cap), 0); /* a busy process of its own */
  CHECK_EQ(priority_decide(1, 10 * ms, 90 * ms, 250 * ms, cap), 0);
  /* Nothing runnable: no change either way. */
  CHECK_EQ(priority_decide(0, 0, 0, quiet, cap), 0);
  CHECK_EQ(priority_decide(1, 0, 0, quiet, cap), 1);
  /* Hysteresis: no window sends a worker both up from low and down from
   * raised. */
  for (uint64_t run = 0; run <= 100; run++) {
    for (uint64_t used = 0; used <= cap; used += cap / 40) {
      int up = priority_decide(0, run * ms, (100 - run) * ms, used, cap);
      int down = !priority_decide(1, run * ms, (100 - run) * ms, used, cap);
      CHECK_MSG(!(up && down), "share %llu%%, process %llu ms: both up and down",
                (unsigned long long)run, (unsigned long long)(used / ms));
    }
  }
  /* Counters of a long window. */
  CHECK_EQ(priority_decide(0, UINT64_C(1) << 58, UINT64_C(1) << 60, UINT64_C(1) << 58,
                           UINT64_C(1) << 60),
           1);
}

/* ---- the workers ---- */

static void test_up_and_down(void) {
  atomic_store(&own_share, 900);
  atomic_store(&twin_share, 900);
  pool *p = make_pool(1, POOL_PRIORITY_AUTO);
  /* Getting the CPU: it stays low (100 jobs, two windows and more). */
  int raised = 0;
  for (int i = 0; i < 100; i++) raised += run_one(p);
  CHECK_EQ(raised, 0);

  /* Starved: up within a few windows; then, at half a share, it stays up. */
  atomic_store(&own_share, 50);
  atomic_store(&twin_share, 500);
  CHECK_MSG(until(p, 1, 2000) > 0, "a starved worker never went up");
  int low = 0;
  for (int i = 0; i < 150; i++) low += run_one(p) == 0;
  CHECK_EQ(low, 0);

  /* The CPU comes back: down, and it stays down. */
  atomic_store(&twin_share, 950);
  atomic_store(&own_share, 800);
  CHECK_MSG(until(p, 0, 2000) > 0, "a raised worker never came down");
  raised = 0;
  for (int i = 0; i < 150; i++) raised += run_one(p);
  CHECK_EQ(raised, 0);
  pool_destroy(p);
}

/* Starved by its own process (it uses all of its CPUs): the worker stays
 * low, as 'low' would; once the CPUs go elsewhere, it goes up. */
static void test_own_process(void) {
  atomic_store(&own_share, 20);
  atomic_store(&twin_share, 500);
  atomic_store(&process_share, 1000);
  pool *p = make_pool(1, POOL_PRIORITY_AUTO);
  int raised = 0;
  for (int i = 0; i < 150; i++) raised += run_one(p);
  CHECK_EQ(raised, 0);
  atomic_store(&process_share, 300);
  CHECK_MSG(until(p, 1, 2000) > 0, "starved from outside, the worker never went up");
  pool_destroy(p);
}

/* Shares that always call for the other level: one change per window at
 * most, however many jobs run. */
static void test_no_thrash(void) {
  atomic_store(&own_share, 0);
  atomic_store(&twin_share, 1000);
  pool *p = make_pool(1, POOL_PRIORITY_AUTO);
  uint64_t start = now_ns();
  int changes = 0, last = 0;
  for (int i = 0; i < 300; i++) {
    int r = run_one(p);
    if (r != last) changes++;
    last = r;
  }
  uint64_t windows = (now_ns() - start) / PRIORITY_WINDOW_NS + 1;
  CHECK_MSG((uint64_t)changes <= windows, "%d changes in %llu windows", changes,
            (unsigned long long)windows);
  CHECK(changes > 0);
  pool_destroy(p);
}

/* Switched off while raised: the worker goes back to its own thread. */
static void test_switched_off(void) {
  atomic_store(&own_share, 0);
  atomic_store(&twin_share, 500);
  pool *p = make_pool(1, POOL_PRIORITY_AUTO);
  CHECK(until(p, 1, 2000) > 0);
  set_priority(p, POOL_PRIORITY_LOW);
  int raised = 0;
  for (int i = 0; i < 20; i++) raised += run_one(p);
  CHECK_EQ(raised, 0);
  /* And on again: the twin still exists, the rule decides again. */
  set_priority(p, POOL_PRIORITY_AUTO);
  CHECK(until(p, 1, 2000) > 0);
  pool_destroy(p);
}

/* Leaving: a worker that shrinks away while its twin holds it, grows back,
 * and a pool closed while every twin holds its worker. */
static void test_leaving(void) {
  atomic_store(&own_share, 0);
  atomic_store(&twin_share, 500);
  pool *p = make_pool(2, POOL_PRIORITY_AUTO);
  where_job jobs[2];
  /* Both workers up: run pairs until both of a pair ran raised. */
  int both = 0;
  for (int round = 0; round < 2000 && !both; round++) {
    for (int i = 0; i < 2; i++) {
      memset(&jobs[i], 0, sizeof jobs[i]);
      jobs[i].base.work = where_work;
      jobs[i].base.done = where_done;
      atomic_init(&jobs[i].done, 0);
      CHECK_EQ(pool_submit(p, &jobs[i].base), 0);
    }
    for (int i = 0; i < 2; i++)
      while (!atomic_load(&jobs[i].done)) usleep(100);
    both = jobs[0].raised && jobs[1].raised;
  }
  CHECK(both);
  set_threads(p, 1); /* worker 1 leaves from its twin */
  set_threads(p, 2); /* and comes back */
  int ran = 0;
  for (int i = 0; i < 20; i++) ran += run_one(p) >= 0;
  CHECK_EQ(ran, 20);
  pool_destroy(p); /* with the twins holding their workers */

  /* A pool closed while nothing ever went up: twins that never held. */
  atomic_store(&own_share, 1000);
  p = make_pool(2, POOL_PRIORITY_AUTO);
  CHECK_EQ(run_one(p), 0);
  pool_destroy(p);
}

int main(void) {
  atomic_store(&process_share, 300);
  priority_observe(fake_stat, fake_process);
  test_rule();
  test_up_and_down();
  test_own_process();
  test_no_thrash();
  test_switched_off();
  test_leaving();
  priority_observe(NULL, NULL);
  printf("priority: %d passed, %d failed\n", check_passed, check_failed);
  return check_exit();
}
