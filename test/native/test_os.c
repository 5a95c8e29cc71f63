/* The POSIX side of the pool's OS seam (pool/os.h), built once with each
 * implementation this machine can compile: os_linux.c, and os_posix.c
 * (macOS and the BSDs), both over the os_unix.c they share
 * (test/native/os.mk). What the pool relies on and cannot see from above:
 *   - an arena comes back zeroed and NOT faulted in (no page resident), so
 *     that pool_prefault() does the faulting in 2 MiB steps that look at
 *     the stop flag: a stop after step k leaves the rest untouched, and a
 *     full run makes every page resident and every byte zero;
 *   - a pool thread starts with every signal blocked;
 *   - timed waits run on the pool's monotonic clock: a step of the wall
 *     clock (clock_shim.c) changes none.
 * Residency is read with mincore(), so this runs on Linux only; nothing
 * here runs macOS, so os_posix.c's macOS branches (QoS classes, sysctl)
 * and os_unix.c's (relative timed waits) are built by
 * scripts/prebuild.sh but not run. */
#define _GNU_SOURCE
#include "check.h"
#include "clock_shim.h"
#include "pool/os.h"
#include "pool/prefault.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define ARENA ((size_t)64 << 20) /* 32 steps */

/* Bytes of the pages spanning [mem, mem + size) that are resident now. */
static size_t resident(void *mem, size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;
  uintptr_t from = (uintptr_t)mem & ~(uintptr_t)(page - 1);
  size_t len = (uintptr_t)mem + size - from, pages = (len + page - 1) / page;
  unsigned char *vec = malloc(pages);
  if (vec == NULL || mincore((void *)from, len, vec) != 0) {
    free(vec);
    return SIZE_MAX;
  }
  for (size_t i = 0; i < pages; i++) n += vec[i] & 1;
  free(vec);
  return n * page;
}

static volatile int stop_flag;
static unsigned long stop_after;

static void stop_at(unsigned long steps, const volatile int *stop) {
  (void)stop;
  if (steps == stop_after) stop_flag = 1;
}

static void test_arena_untouched_until_prefault(void) {
  void *mem = os_arena_map(ARENA);
  CHECK(mem != NULL);
  if (mem == NULL) return;
  CHECK(((uintptr_t)mem & 63) == 0);
  size_t before = resident(mem, ARENA);
  CHECK_MSG(before <= POOL_PREFAULT_STEP,
            "a fresh arena has %zu of %zu bytes resident: it was faulted in "
            "(zeroed) when mapped, where no stop flag can end it",
            before, ARENA);

  /* A stop after the second step: nothing past the third step is touched. */
  stop_flag = 0;
  stop_after = 2;
  pool_prefault_observe(stop_at);
  CHECK_EQ(pool_prefault(mem, ARENA, &stop_flag), -1);
  pool_prefault_observe(NULL);
  size_t stopped = resident(mem, ARENA);
  CHECK_MSG(stopped >= 2 * POOL_PREFAULT_STEP && stopped <= 4 * POOL_PREFAULT_STEP,
            "stopped after 2 steps of %zu bytes: %zu bytes resident", POOL_PREFAULT_STEP, stopped);

  /* Without a stop: every page resident, every byte zero. */
  CHECK_EQ(pool_prefault(mem, ARENA, NULL), 0);
  CHECK_EQ(resident(mem, ARENA), ARENA);
  const unsigned char *bytes = mem;
  size_t nonzero = 0;
  for (size_t i = 0; i < ARENA; i++) nonzero += bytes[i] != 0;
  CHECK_EQ(nonzero, 0);
  os_arena_unmap(mem, ARENA);
}

static void *report_mask(void *arg) {
  sigset_t *mask = arg;
  pthread_sigmask(SIG_BLOCK, NULL, mask);
  return NULL;
}

static void test_thread_starts_with_signals_blocked(void) {
  sigset_t mask;
  sigemptyset(&mask);
  pthread_t t;
  CHECK_EQ(os_thread_start(&t, report_mask, &mask), 0);
  CHECK_EQ(pthread_join(t, NULL), 0);
  int unblocked = 0;
  for (int sig = 1; sig < 32; sig++)
    if (sig != SIGKILL && sig != SIGSTOP && !sigismember(&mask, sig)) unblocked++;
  CHECK_EQ(unblocked, 0);
  /* The creating thread's own mask is left as it was. */
  sigset_t own;
  pthread_sigmask(SIG_BLOCK, NULL, &own);
  CHECK_EQ(sigismember(&own, SIGINT), 0);
}

static void test_clock(void) {
  uint64_t a = os_monotonic_ns(), b = os_monotonic_ns();
  CHECK(a > 0 && b >= a);
}

/* Timed waits on the pool's clock (os_cond_wait_until), with the wall
 * clock read an hour ahead of the kernel's, as after a step back of an
 * hour (clock_shim.c): a wait that ends when it should, ETIMEDOUT only
 * past its deadline, a wake-up that ends a wait early, and a deadline
 * already passed. A wait on the wall clock would last the hour: the
 * waiter gets a 2 s hang bound (not a timing assert), then is woken. */
typedef struct {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  uint64_t deadline;
  int waiting, rc, past;
  atomic_int done;
} timed_wait;

static void *wait_until_deadline(void *arg) {
  timed_wait *t = arg;
  pthread_mutex_lock(&t->lock);
  t->waiting = 1;
  t->rc = os_cond_wait_until(&t->cond, &t->lock, t->deadline);
  t->past = os_monotonic_ns() >= t->deadline;
  pthread_mutex_unlock(&t->lock);
  atomic_store(&t->done, 1);
  return NULL;
}

/* Starts a waiter until `after_ns` from now; `wake`: signals it once it
 * waits. Returns whether it ended within the hang bound. */
static int run_waiter(timed_wait *t, uint64_t after_ns, int wake) {
  pthread_mutex_init(&t->lock, NULL);
  CHECK_EQ(os_cond_init_monotonic(&t->cond), 0);
  t->deadline = os_monotonic_ns() + after_ns;
  t->waiting = t->rc = t->past = 0;
  atomic_init(&t->done, 0);
  pthread_t thread;
  CHECK_EQ(pthread_create(&thread, NULL, wait_until_deadline, t), 0);
  for (int waiting = 0; wake && !waiting; usleep(100)) {
    pthread_mutex_lock(&t->lock);
    waiting = t->waiting; /* then it is inside the wait: it holds no lock */
    if (waiting) pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&t->lock);
  }
  for (int i = 0; i < 20000 && !atomic_load(&t->done); i++) usleep(100);
  int ended = atomic_load(&t->done);
  while (!atomic_load(&t->done)) { /* stuck on the wall clock: free it */
    pthread_mutex_lock(&t->lock);
    pthread_cond_signal(&t->cond);
    pthread_mutex_unlock(&t->lock);
    usleep(1000);
  }
  pthread_join(thread, NULL);
  pthread_cond_destroy(&t->cond);
  pthread_mutex_destroy(&t->lock);
  return ended;
}

static void test_timed_waits_ignore_the_wall_clock(void) {
  struct timespec wall0, wall1;
  uint64_t mono0 = os_monotonic_ns();
  clock_gettime(CLOCK_REALTIME, &wall0);
  clock_shim_step(3600 * 1000000000LL);
  clock_gettime(CLOCK_REALTIME, &wall1);
  uint64_t mono1 = os_monotonic_ns();
  /* The step is seen by the wall clock, not by the pool's clock. */
  CHECK(wall1.tv_sec - wall0.tv_sec >= 3599);
  CHECK(mono1 - mono0 < 1000000000ull);

  timed_wait t;
  CHECK_MSG(run_waiter(&t, 50000000, 0),
            "a 50 ms wait outlived its 2 s bound: it runs on the wall clock");
  CHECK_EQ(t.rc, ETIMEDOUT);
  CHECK(t.past);
  /* Woken long before its deadline (10 s): 0, deadline not passed. */
  CHECK(run_waiter(&t, 10000000000ull, 1));
  CHECK_EQ(t.rc, 0);
  CHECK(!t.past);
  /* A deadline already passed: ETIMEDOUT at once. */
  CHECK(run_waiter(&t, 0, 0));
  CHECK_EQ(t.rc, ETIMEDOUT);
  CHECK(t.past);
  clock_shim_step(0);
}

/* The seed source: filled, and not the same bytes twice. */
static void test_random(void) {
  uint8_t a[32] = { 0 }, b[32] = { 0 }, zero[32] = { 0 };
  CHECK_EQ(os_random(a, sizeof a), 0);
  CHECK_EQ(os_random(b, sizeof b), 0);
  CHECK(memcmp(a, zero, sizeof a) != 0);
  CHECK(memcmp(a, b, sizeof a) != 0);
  CHECK_EQ(os_random(a, 0), 0);
}

int main(void) {
  test_arena_untouched_until_prefault();
  test_random();
  test_thread_starts_with_signals_blocked();
  test_clock();
  test_timed_waits_ignore_the_wall_clock();
  printf("os (%s): %d passed, %d failed\n", OS_IMPL, check_passed, check_failed);
  return check_exit();
}
