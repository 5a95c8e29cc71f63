/* Plain-C test of src/pool/pool.c (with its OS seam), meant to run under ThreadSanitizer and
 * AddressSanitizer as well as in a normal build. No timing asserts: jobs
 * that must stay running wait on a gate that the test opens. */
#define _GNU_SOURCE
#include "common/status.h"
#include "pool/pool.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

#define ASSERT(cond)                                                               \
  do {                                                                             \
    if (cond) {                                                                    \
      passed++;                                                                    \
    } else {                                                                       \
      failed++;                                                                    \
      fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                              \
  } while (0)

#define ASSERT_EQ(a, b) ASSERT((long long)(a) == (long long)(b))

/* ---- a gate that blocked jobs wait on ---- */

typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int open;
  int waiting; /* how many jobs are inside the gate */
} gate;

static void gate_init(gate *g) {
  pthread_mutex_init(&g->lock, NULL);
  pthread_cond_init(&g->cond, NULL);
  g->open = 0;
  g->waiting = 0;
}

static void gate_pass(gate *g) {
  pthread_mutex_lock(&g->lock);
  g->waiting++;
  pthread_cond_broadcast(&g->cond);
  while (!g->open) pthread_cond_wait(&g->cond, &g->lock);
  g->waiting--;
  pthread_mutex_unlock(&g->lock);
}

static void gate_wait_for(gate *g, int n) {
  pthread_mutex_lock(&g->lock);
  while (g->waiting < n) pthread_cond_wait(&g->cond, &g->lock);
  pthread_mutex_unlock(&g->lock);
}

static void gate_open(gate *g) {
  pthread_mutex_lock(&g->lock);
  g->open = 1;
  pthread_cond_broadcast(&g->cond);
  pthread_mutex_unlock(&g->lock);
}

static void gate_destroy(gate *g) {
  pthread_cond_destroy(&g->cond);
  pthread_mutex_destroy(&g->lock);
}

/* ---- test jobs ---- */

typedef struct {
  pool_job base; /* first, so a pool_job* is a test_job* */
  gate *gate;
  atomic_int *concurrent, *max_concurrent;
  size_t arena_size;
  int result;
  atomic_int done_calls;
  atomic_int status;
  atomic_int *done_counter;
} test_job;

static int job_work(pool_job *j, pool_worker *w) {
  test_job *job = (test_job *)j;
  if (job->concurrent != NULL) {
    int now = atomic_fetch_add(job->concurrent, 1) + 1;
    int seen = atomic_load(job->max_concurrent);
    while (now > seen && !atomic_compare_exchange_weak(job->max_concurrent, &seen, now)) {
    }
  }
  if (job->arena_size != 0) {
    unsigned char *mem = pool_worker_arena(w, job->arena_size);
    if (mem == NULL) return STATUS_ENOMEM;
    memset(mem, 0xAB, job->arena_size);
  }
  if (job->gate != NULL) gate_pass(job->gate);
  if (job->concurrent != NULL) atomic_fetch_sub(job->concurrent, 1);
  return job->result;
}

static void job_done(pool_job *j, int status) {
  test_job *job = (test_job *)j;
  atomic_store(&job->status, status);
  atomic_fetch_add(&job->done_calls, 1);
  if (job->done_counter != NULL) atomic_fetch_add(job->done_counter, 1);
}

static void job_init(test_job *job) {
  memset(job, 0, sizeof *job);
  job->base.work = job_work;
  job->base.done = job_done;
  atomic_init(&job->done_calls, 0);
  atomic_init(&job->status, 1);
}

static void wait_done(test_job *job) {
  while (atomic_load(&job->done_calls) == 0) usleep(100);
}

static void wait_counter(atomic_int *c, int n) {
  while (atomic_load(c) < n) usleep(100);
}

static pool *make_pool(unsigned threads, unsigned max_queue, uint64_t max_memory) {
  pool_options o;
  memset(&o, 0, sizeof o);
  o.name = "test";
  o.threads = threads;
  o.max_queue = max_queue;
  o.max_memory = max_memory;
  pool *p = NULL;
  int rc = pool_create(&p, &o);
  ASSERT_EQ(rc, 0);
  if (p == NULL) exit(1);
  return p;
}

/* threads=1, max_queue=2: three jobs are accepted, the fourth is refused. */
static void test_full_queue(void) {
  pool *p = make_pool(1, 2, 0);
  gate g;
  gate_init(&g);
  test_job jobs[4];
  for (int i = 0; i < 4; i++) {
    job_init(&jobs[i]);
    jobs[i].gate = &g;
  }
  ASSERT_EQ(pool_submit(p, &jobs[0].base), 0);
  gate_wait_for(&g, 1); /* the first is running, so the next two wait */
  ASSERT_EQ(pool_submit(p, &jobs[1].base), 0);
  ASSERT_EQ(pool_submit(p, &jobs[2].base), 0);
  ASSERT_EQ(pool_submit(p, &jobs[3].base), STATUS_EFULL);
  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.running, 1);
  ASSERT_EQ(s.queued, 2);
  ASSERT_EQ(s.submitted, 3);
  ASSERT_EQ(s.rejected, 1);
  gate_open(&g);
  for (int i = 0; i < 3; i++) {
    wait_done(&jobs[i]);
    ASSERT_EQ(atomic_load(&jobs[i].status), 0);
  }
  pool_destroy(p);
  for (int i = 0; i < 3; i++) ASSERT_EQ(atomic_load(&jobs[i].done_calls), 1);
  ASSERT_EQ(atomic_load(&jobs[3].done_calls), 0);
  gate_destroy(&g);
}

/* Many producers race on submit; every accepted job completes exactly once. */
#define PRODUCERS    8
#define PER_PRODUCER 2000

typedef struct {
  pool *p;
  test_job *jobs;
  atomic_int *done_counter;
  int refused;
} producer_arg;

static void *producer(void *arg) {
  producer_arg *a = arg;
  for (int i = 0; i < PER_PRODUCER; i++) {
    test_job *job = &a->jobs[i];
    job_init(job);
    job->done_counter = a->done_counter;
    job->result = (i % 7 == 0) ? STATUS_EINVAL : 0;
    while (pool_submit(a->p, &job->base) == STATUS_EFULL) {
      a->refused++;
      sched_yield();
    }
  }
  return NULL;
}

static void test_many_producers(void) {
  pool *p = make_pool(4, 16, 0);
  atomic_int done_counter;
  atomic_init(&done_counter, 0);
  pthread_t threads[PRODUCERS];
  producer_arg args[PRODUCERS];
  for (int i = 0; i < PRODUCERS; i++) {
    args[i].p = p;
    args[i].jobs = calloc(PER_PRODUCER, sizeof(test_job));
    args[i].done_counter = &done_counter;
    args[i].refused = 0;
    pthread_create(&threads[i], NULL, producer, &args[i]);
  }
  long refused = 0;
  for (int i = 0; i < PRODUCERS; i++) {
    pthread_join(threads[i], NULL);
    refused += args[i].refused;
  }
  wait_counter(&done_counter, PRODUCERS * PER_PRODUCER);
  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.submitted, PRODUCERS * PER_PRODUCER);
  ASSERT_EQ(s.completed + s.failed, PRODUCERS * PER_PRODUCER);
  ASSERT_EQ(s.rejected, refused);
  long expect_failed = 0;
  for (int i = 0; i < PER_PRODUCER; i++) expect_failed += (i % 7 == 0);
  ASSERT_EQ(s.failed, expect_failed * PRODUCERS);
  pool_destroy(p);
  int exactly_once = 1;
  for (int i = 0; i < PRODUCERS; i++) {
    for (int j = 0; j < PER_PRODUCER; j++)
      if (atomic_load(&args[i].jobs[j].done_calls) != 1) exactly_once = 0;
    free(args[i].jobs);
  }
  ASSERT(exactly_once);
}

/* Destroy with jobs queued: queued ones end with STATUS_ECLOSED, running ones
 * finish normally, and destroy returns only after the threads are gone. */
typedef struct {
  pool *p;
} destroy_arg;

static void *destroyer(void *arg) {
  pool_destroy(((destroy_arg *)arg)->p);
  return NULL;
}

static void test_shutdown_with_queue(void) {
  pool *p = make_pool(2, 32, 0);
  gate g;
  gate_init(&g);
  atomic_int done_counter;
  atomic_init(&done_counter, 0);
  test_job jobs[12];
  for (int i = 0; i < 12; i++) {
    job_init(&jobs[i]);
    jobs[i].gate = &g;
    jobs[i].done_counter = &done_counter;
    ASSERT_EQ(pool_submit(p, &jobs[i].base), 0);
  }
  gate_wait_for(&g, 2);
  pthread_t t;
  destroy_arg arg = { p };
  pthread_create(&t, NULL, destroyer, &arg);
  wait_counter(&done_counter, 10); /* the ten waiting jobs were cancelled */
  gate_open(&g);
  pthread_join(t, NULL);
  int closed = 0, ok = 0, once = 1;
  for (int i = 0; i < 12; i++) {
    int st = atomic_load(&jobs[i].status);
    if (st == STATUS_ECLOSED) closed++;
    if (st == 0) ok++;
    if (atomic_load(&jobs[i].done_calls) != 1) once = 0;
  }
  ASSERT_EQ(closed, 10);
  ASSERT_EQ(ok, 2);
  ASSERT(once);
  gate_destroy(&g);
}

/* Budget 64, eight jobs of 32, four threads: never more than two at once;
 * a job of 128 is refused at submit. */
static void test_memory_budget(void) {
  pool *p = make_pool(4, 16, 64);
  atomic_int concurrent, max_concurrent, done_counter;
  atomic_init(&concurrent, 0);
  atomic_init(&max_concurrent, 0);
  atomic_init(&done_counter, 0);
  gate g;
  gate_init(&g);
  test_job jobs[8];
  for (int i = 0; i < 8; i++) {
    job_init(&jobs[i]);
    jobs[i].base.memory = 32;
    jobs[i].gate = &g;
    jobs[i].concurrent = &concurrent;
    jobs[i].max_concurrent = &max_concurrent;
    jobs[i].done_counter = &done_counter;
    ASSERT_EQ(pool_submit(p, &jobs[i].base), 0);
  }
  gate_wait_for(&g, 2);
  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.running, 2);
  ASSERT_EQ(s.queued, 6);
  ASSERT_EQ(s.memory_in_use, 64);
  test_job big;
  job_init(&big);
  big.base.memory = 128;
  ASSERT_EQ(pool_submit(p, &big.base), STATUS_EMEMLIMIT);
  gate_open(&g);
  wait_counter(&done_counter, 8);
  ASSERT(atomic_load(&max_concurrent) <= 2);
  pool_get_stats(p, &s);
  ASSERT_EQ(s.memory_in_use, 0);
  ASSERT_EQ(s.completed, 8);
  pool_destroy(p);
  gate_destroy(&g);
}

/* Cancel: a queued job comes back without `done`; a running one does not. */
static void test_cancel(void) {
  pool *p = make_pool(1, 8, 0);
  gate g;
  gate_init(&g);
  test_job running, queued, other;
  job_init(&running);
  job_init(&queued);
  job_init(&other);
  running.gate = &g;
  int owner_a = 0, owner_b = 0;
  queued.base.owner = &owner_a;
  other.base.owner = &owner_b;
  ASSERT_EQ(pool_submit(p, &running.base), 0);
  gate_wait_for(&g, 1);
  ASSERT_EQ(pool_submit(p, &queued.base), 0);
  ASSERT_EQ(pool_submit(p, &other.base), 0);
  ASSERT_EQ(pool_cancel(p, &running.base), STATUS_EINVAL);
  ASSERT_EQ(pool_cancel(p, &queued.base), 0);
  ASSERT_EQ(pool_cancel(p, &queued.base), STATUS_EINVAL);
  ASSERT_EQ(pool_cancel_owner(p, &owner_b), 1);
  ASSERT_EQ(atomic_load(&other.status), STATUS_ECANCELED);
  gate_open(&g);
  wait_done(&running);
  ASSERT_EQ(atomic_load(&running.status), 0);
  ASSERT_EQ(atomic_load(&queued.done_calls), 0);
  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.cancelled, 2);
  pool_destroy(p);
  gate_destroy(&g);
}

/* Jobs that close() or cancel_owner() took out of the queue are no longer
 * cancellable, even before their own `done` runs: cancelling one from a
 * sibling's `done` must not touch the queue or skip its `done`. */
static pool *sibling_pool;
static test_job *sibling_target;
static atomic_int sibling_cancel_rc;

static void done_cancels_sibling(pool_job *j, int status) {
  if (sibling_target != NULL) {
    atomic_store(&sibling_cancel_rc, pool_cancel(sibling_pool, &sibling_target->base));
    sibling_target = NULL;
  }
  job_done(j, status);
}

static void test_detached_jobs_are_not_cancellable(void) {
  for (int variant = 0; variant < 2; variant++) {
    pool *p = make_pool(1, 8, 0);
    gate g;
    gate_init(&g);
    test_job blocker, first, second;
    job_init(&blocker);
    job_init(&first);
    job_init(&second);
    blocker.gate = &g;
    int owner = 0;
    first.base.owner = second.base.owner = &owner;
    first.base.done = done_cancels_sibling;
    ASSERT_EQ(pool_submit(p, &blocker.base), 0);
    gate_wait_for(&g, 1);
    ASSERT_EQ(pool_submit(p, &first.base), 0);
    ASSERT_EQ(pool_submit(p, &second.base), 0);
    sibling_pool = p;
    sibling_target = &second;
    atomic_init(&sibling_cancel_rc, 1);
    if (variant == 0) {
      ASSERT_EQ(pool_cancel_owner(p, &owner), 2);
    } else {
      pthread_t t;
      destroy_arg arg = { p };
      pthread_create(&t, NULL, destroyer, &arg);
      wait_done(&second);
      gate_open(&g);
      pthread_join(t, NULL);
    }
    ASSERT_EQ(atomic_load(&sibling_cancel_rc), STATUS_EINVAL);
    ASSERT_EQ(atomic_load(&second.done_calls), 1);
    ASSERT_EQ(atomic_load(&first.done_calls), 1);
    if (variant == 0) {
      pool_stats s;
      pool_get_stats(p, &s);
      ASSERT_EQ(s.queued, 0);
      gate_open(&g);
      pool_destroy(p);
    }
    gate_destroy(&g);
  }
}

/* A job that reaches the front after its deadline never runs; once run
 * times are known, a job that would start too late is refused at submit. */
static void test_deadline(void) {
  pool *p = make_pool(1, 8, 0);
  gate g;
  gate_init(&g);
  test_job blocker, late;
  job_init(&blocker);
  job_init(&late);
  blocker.gate = &g;
  ASSERT_EQ(pool_submit(p, &blocker.base), 0);
  gate_wait_for(&g, 1);
  /* No run time observed yet: the estimate is 0, so it is admitted... */
  late.base.deadline_ns = pool_now_ns() + 1000000;
  ASSERT_EQ(pool_submit(p, &late.base), 0);
  usleep(5000); /* ...and its deadline passes while the blocker runs */
  gate_open(&g);
  wait_done(&late);
  ASSERT_EQ(atomic_load(&late.status), STATUS_ETIMEDOUT);
  wait_done(&blocker);

  /* The blocker ran >= 5 ms: a job behind another such job with a 1 ms
   * deadline is refused at once, and counted as shed, not rejected. */
  gate g2;
  gate_init(&g2);
  test_job blocker2, refused;
  job_init(&blocker2);
  job_init(&refused);
  blocker2.gate = &g2;
  ASSERT_EQ(pool_submit(p, &blocker2.base), 0);
  gate_wait_for(&g2, 1);
  refused.base.deadline_ns = pool_now_ns() + 1000000;
  ASSERT_EQ(pool_submit(p, &refused.base), STATUS_ETIMEDOUT);
  ASSERT_EQ(atomic_load(&refused.done_calls), 0);
  gate_open(&g2);
  wait_done(&blocker2);

  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.expired, 2);
  ASSERT_EQ(s.rejected, 0);
  pool_destroy(p);
  gate_destroy(&g);
  gate_destroy(&g2);
}

/* Resize while jobs flow: none is lost; the thread count follows. */
static int count_threads(const char *prefix) {
  DIR *d = opendir("/proc/self/task");
  if (d == NULL) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char path[300], comm[64] = { 0 };
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f == NULL) continue;
    if (fgets(comm, sizeof comm, f) != NULL && strncmp(comm, prefix, strlen(prefix)) == 0) n++;
    fclose(f);
  }
  closedir(d);
  return n;
}

static void test_reconfigure(void) {
  pool *p = make_pool(2, 4096, 0);
  atomic_int done_counter;
  atomic_init(&done_counter, 0);
  enum { N = 3000 };
  test_job *jobs = calloc(N, sizeof *jobs);
  unsigned sizes[] = { 1, 4, 3, 1, 8, 2 };
  for (int i = 0; i < N; i++) {
    job_init(&jobs[i]);
    jobs[i].done_counter = &done_counter;
    ASSERT_EQ(pool_submit(p, &jobs[i].base), 0);
    if (i % 500 == 0) {
      pool_options o;
      memset(&o, 0, sizeof o);
      o.threads = sizes[(i / 500) % 6];
      ASSERT_EQ(pool_reconfigure(p, &o), 0);
    }
  }
  wait_counter(&done_counter, N);
  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.completed, N);
  ASSERT_EQ(s.threads, sizes[(N - 1) / 500 % 6]);
  pool_options o;
  memset(&o, 0, sizeof o);
  o.threads = 3;
  ASSERT_EQ(pool_reconfigure(p, &o), 0);
  /* Threads that leave on a shrink may still be on their way out. */
  while (count_threads("kdf-test-") != 3) usleep(1000);
  ASSERT_EQ(count_threads("kdf-test-"), 3);
  pool_destroy(p);
  ASSERT_EQ(count_threads("kdf-test-"), 0);
  int once = 1;
  for (int i = 0; i < N; i++)
    if (atomic_load(&jobs[i].done_calls) != 1) once = 0;
  ASSERT(once);
  free(jobs);
}

/* The arena is kept between jobs on one worker. */
static void test_arena_reuse(void) {
  pool *p = make_pool(1, 8, 0);
  test_job a, b, c;
  job_init(&a);
  job_init(&b);
  job_init(&c);
  a.arena_size = 3u << 20;
  b.arena_size = 1u << 20;
  c.arena_size = 9u << 20;
  ASSERT_EQ(pool_submit(p, &a.base), 0);
  wait_done(&a);
  ASSERT_EQ(pool_submit(p, &b.base), 0);
  wait_done(&b);
  pool_stats s;
  pool_get_stats(p, &s);
  ASSERT_EQ(s.arena_maps, 1);
  ASSERT(s.arena_bytes >= (3u << 20));
  ASSERT_EQ(pool_submit(p, &c.base), 0);
  wait_done(&c);
  pool_get_stats(p, &s);
  ASSERT_EQ(s.arena_maps, 2);
  /* Reconfiguring hands idle scratch memory back. */
  pool_options o;
  memset(&o, 0, sizeof o);
  ASSERT_EQ(pool_reconfigure(p, &o), 0);
  for (int i = 0; i < 10000; i++) {
    pool_get_stats(p, &s);
    if (s.arena_bytes == 0) break;
    usleep(1000);
  }
  ASSERT_EQ(s.arena_bytes, 0);
  pool_destroy(p);
}

/* Stop for exit: queued jobs are dropped, running ones see the stop flag. */
static int stop_work(pool_job *j, pool_worker *w) {
  test_job *job = (test_job *)j;
  const volatile int *stop = pool_worker_stop_flag(w);
  gate_pass(job->gate);
  while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) usleep(100);
  return STATUS_ESTOPPED;
}

static void test_stop_for_exit(void) {
  pool *p = make_pool(2, 8, 0);
  gate g;
  gate_init(&g);
  gate_open(&g);
  test_job jobs[5];
  for (int i = 0; i < 5; i++) {
    job_init(&jobs[i]);
    jobs[i].base.work = stop_work;
    jobs[i].gate = &g;
    ASSERT_EQ(pool_submit(p, &jobs[i].base), 0);
  }
  while (1) {
    pool_stats s;
    pool_get_stats(p, &s);
    if (s.running == 2) break;
    usleep(100);
  }
  pool_stop_for_exit(p);
  ASSERT_EQ(count_threads("kdf-test-"), 0);
  test_job late;
  job_init(&late);
  ASSERT_EQ(pool_submit(p, &late.base), STATUS_ECLOSED);
  int stopped = 0, untouched = 0;
  for (int i = 0; i < 5; i++) {
    if (atomic_load(&jobs[i].status) == STATUS_ESTOPPED) stopped++;
    if (atomic_load(&jobs[i].done_calls) == 0) untouched++;
  }
  ASSERT_EQ(stopped, 2);
  ASSERT_EQ(untouched, 3);
  pool_destroy(p);
  gate_destroy(&g);
}

static void test_defaults(void) {
  unsigned n = pool_default_threads();
  ASSERT(n >= 1 && n <= (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
  ASSERT(pool_default_max_memory() >= (64u << 20));
}

int main(void) {
  test_defaults();
  test_full_queue();
  test_many_producers();
  test_shutdown_with_queue();
  test_memory_budget();
  test_cancel();
  test_deadline();
  test_detached_jobs_are_not_cancellable();
  test_reconfigure();
  test_arena_reuse();
  test_stop_for_exit();
  printf("pool: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
