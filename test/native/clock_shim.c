/* A wall clock that steps, for tests of the pool's timed waits: linked
 * into the plain-C tests (test_os.c, test_pool.c: clock_shim_step()), and
 * built as a shared object that test/clock.test.js preloads into node
 * (LD_PRELOAD), where the step comes when the file named by
 * KDFPOOL_CLOCK_STEP_FILE appears (KDFPOOL_CLOCK_STEP_S seconds, default
 * 3600). Linux only: the real clocks are read with the raw system call.
 *
 * Why ahead. A test cannot step the kernel's wall clock (that needs
 * CAP_SYS_TIME and moves every process on the machine). A wait on the wall
 * clock goes wrong through the gap between the time the process read and
 * the clock the kernel's wait then runs on: "now + 200 ms", read just
 * before the wall clock is stepped back an hour, ends an hour and 200 ms
 * later. Reading the wall clock an hour ahead of the kernel's gives every
 * such wait that gap, from the step on. (The other gap, a step forward,
 * makes such waits end at once: they spin, but still end.) The monotonic
 * clocks are never changed: a wait on them must not see the step at all.
 *
 * Every definition here replaces the C library's for the whole process:
 * the executable's own symbols (or a preloaded object's) come first. */
#define _GNU_SOURCE
#include "clock_shim.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static _Atomic int64_t step_ns;
/* The preloaded case: the file whose appearance steps the clock. */
static const char *step_file;
static int64_t file_step_ns;
static atomic_int file_seen;

__attribute__((constructor)) static void read_environment(void) {
  step_file = getenv("KDFPOOL_CLOCK_STEP_FILE");
  const char *s = getenv("KDFPOOL_CLOCK_STEP_S");
  file_step_ns = (s != NULL ? strtoll(s, NULL, 10) : 3600) * 1000000000LL;
}

void clock_shim_step(int64_t ns) { atomic_store(&step_ns, ns); }

static int64_t wall_step(void) {
  if (step_file != NULL && !atomic_load(&file_seen) && access(step_file, F_OK) == 0) {
    atomic_store(&step_ns, file_step_ns);
    atomic_store(&file_seen, 1);
  }
  return atomic_load(&step_ns);
}

static int is_wall_clock(clockid_t clk) {
  return clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE || clk == CLOCK_TAI;
}

int clock_gettime(clockid_t clk, struct timespec *ts) {
  if (syscall(SYS_clock_gettime, (long)clk, ts) != 0) return -1;
  if (!is_wall_clock(clk)) return 0;
  int64_t ns = (int64_t)ts->tv_nsec + wall_step();
  ts->tv_sec += (time_t)(ns / 1000000000LL);
  ts->tv_nsec = (long)(ns % 1000000000LL);
  if (ts->tv_nsec < 0) {
    ts->tv_sec--;
    ts->tv_nsec += 1000000000L;
  }
  return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return -1;
  tv->tv_sec = ts.tv_sec;
  tv->tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
  if (tz != NULL) {
    struct timezone *zone = tz;
    zone->tz_minuteswest = 0;
    zone->tz_dsttime = 0;
  }
  return 0;
}

time_t time(time_t *out) {
  struct timespec ts;
  if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}
