/* Linux: thread names, scheduling and cgroup limits (os_unix.c has what
 * every POSIX system shares: thread start, arena pages, the clock).
 *
 * Priorities. Scheduling policy and nice value are per thread on Linux;
 * setpriority() must get the thread id, because the process id would
 * renice the JS thread. Every priority is relative to the nice value of
 * the thread that created the pool (the JS thread, os_priority_base), and
 * none ever raises a worker above it: in a process
 * already at nice 10, 'normal' is nice 10 and 'low' is nice 19, never 0
 * (which a root process could get, above its own event loop). Going back
 * to the base value needs CAP_SYS_NICE, so failures are ignored: the
 * priority is a preference, not a contract. 'mixed' arrives here already
 * split per worker into 'normal' and 'low' (worker.c, apply_priority).
 *
 * Limits. Containers cap CPUs and memory through cgroups, not through what
 * sysconf() reports: a pool sized to the host's 64 CPUs inside a 2-CPU
 * quota would only add context switches. Both cgroup v2 (cpu.max,
 * memory.max, every level from the process's group up to the root) and v1
 * are read; the smallest limit wins.
 *
 * Lock files (host slots). flock(), not F_OFD_SETLK: both belong to the open
 * file description and die with the process, but flock() is the same call
 * on the other POSIX systems (os_posix.c). Like OFD locks, flock() over NFS
 * is emulated with process-owned locks: the runtime directory must be local. */
#define _GNU_SOURCE
#include "pool/os.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* POOL_PRIORITY_LOW (and 'auto' on a worker's own thread, priority.c) is
 * SCHED_BATCH plus this much nice (on top of the base value, at most 19).
 * Measured on 2 cores with 16 PBKDF2 jobs in flight, 4 KiB readFile p99
 * (idle 0.7 ms), three runs each: normal priority 4.5-10 ms; nice 10
 * 2.4-2.8 ms (sometimes 0.8: bimodal); nice 19 0.5-0.6 ms; SCHED_IDLE
 * 0.7-0.9 ms; KDF throughput equal in all. SCHED_IDLE is not the default
 * because it can starve: its threads run only when nothing else in their
 * group wants the CPU, so busy neighbours stop every login for as long as
 * they run, and an unprivileged thread cannot leave SCHED_IDLE again. Nice
 * 19 keeps a CFS share (weight 15 against 1024 for nice 0): under
 * competing load jobs slow down a lot but always finish, and maxWaitMs
 * sheds what would wait too long. test/priority.test.js checks this; 'auto'
 * moves a worker so starved to a thread at the base priority. */
#define LOW_PRIORITY_NICE 19

void os_thread_set_name(const char *name) {
  char cut[16];
  snprintf(cut, sizeof cut, "%s", name); /* 15 characters + terminator */
  pthread_setname_np(pthread_self(), cut);
}

int os_priority_base(void) {
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid));
  return errno == 0 ? nice : 0;
}

void os_thread_set_priority(pool_priority priority, int base) {
  struct sched_param param;
  memset(&param, 0, sizeof param);
  pid_t tid = (pid_t)syscall(SYS_gettid);
  int low = base + LOW_PRIORITY_NICE;
  if (low > 19) low = 19;
  switch (priority) {
    case POOL_PRIORITY_IDLE:
      (void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
      break;
    case POOL_PRIORITY_LOW:
      (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
      (void)setpriority(PRIO_PROCESS, (id_t)tid, low);
      break;
    case POOL_PRIORITY_NORMAL:
    default:
      (void)pthread_setschedparam(pthread_self(), SCHED_OTHER, &param);
      (void)setpriority(PRIO_PROCESS, (id_t)tid, base);
      break;
  }
}

uint64_t os_process_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int os_thread_sched_stat(uint64_t *run_ns, uint64_t *wait_ns) {
  char path[64], buf[96];
  int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) { /* before Linux 3.17 */
    snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
    fd = open(path, O_RDONLY | O_CLOEXEC);
  }
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  unsigned long long run, wait;
  if (sscanf(buf, "%llu %llu", &run, &wait) != 2) return -1;
  *run_ns = run;
  *wait_ns = wait;
  return 0;
}

/* Reads the first line of a file into buf; 0 on success. */
static int read_line(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  char *ok = fgets(buf, (int)len, f);
  fclose(f);
  return ok == NULL ? -1 : 0;
}

/* The process's cgroup v2 path ("0::/path"), or "" if none. */
static void cgroup2_path(char *out, size_t len) {
  out[0] = '\0';
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (f == NULL) return;
  char line[1024];
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "0::", 3) == 0) {
      line[strcspn(line, "\n")] = '\0';
      snprintf(out, len, "%s", line + 3);
      break;
    }
  }
  fclose(f);
}

/* Smallest limit found in `file` from the process's cgroup up to the root;
 * parse() turns a line into a value, UINT64_MAX meaning "no limit". */
static uint64_t cgroup2_min(const char *file, uint64_t (*parse)(const char *)) {
  char rel[1024], path[1200], line[128];
  uint64_t best = UINT64_MAX;
  cgroup2_path(rel, sizeof rel);
  if (rel[0] != '/') return best;
  for (;;) {
    snprintf(path, sizeof path, "/sys/fs/cgroup%s/%s", strcmp(rel, "/") == 0 ? "" : rel, file);
    if (read_line(path, line, sizeof line) == 0) {
      uint64_t v = parse(line);
      if (v < best) best = v;
    }
    char *slash = strrchr(rel, '/');
    if (slash == NULL || slash == rel) {
      if (strcmp(rel, "/") == 0) break;
      strcpy(rel, "/");
      continue;
    }
    *slash = '\0';
  }
  return best;
}

/* "max 100000" or "<quota> <period>" -> CPUs, rounded up. */
static uint64_t parse_cpu_max(const char *line) {
  unsigned long long quota, period;
  if (sscanf(line, "%llu %llu", &quota, &period) != 2 || period == 0) return UINT64_MAX;
  return (quota + period - 1) / period;
}

static uint64_t parse_bytes(const char *line) {
  unsigned long long v;
  if (sscanf(line, "%llu", &v) != 1) return UINT64_MAX;
  return v;
}

static uint64_t cgroup1_cpus(void) {
  char line[128];
  long long quota = -1, period = 0;
  if (read_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", line, sizeof line) == 0 ||
      read_line("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", line, sizeof line) == 0)
    quota = atoll(line);
  if (read_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us", line, sizeof line) == 0 ||
      read_line("/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", line, sizeof line) == 0)
    period = atoll(line);
  if (quota <= 0 || period <= 0) return UINT64_MAX;
  return (uint64_t)((quota + period - 1) / period);
}
unsigned os_cpu_count(void) {
  uint64_t n = 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = (uint64_t)CPU_COUNT(&set);
  uint64_t quota = cgroup2_min("cpu.max", parse_cpu_max);
  if (quota == UINT64_MAX) quota = cgroup1_cpus();
  if (n == 0) n = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
  if (quota < n) n = quota;
  if (n < 1) n = 1;
  return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

uint64_t os_memory_limit(void) {
  uint64_t total = UINT64_MAX;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) total = (uint64_t)pages * (uint64_t)page;
  uint64_t limit = cgroup2_min("memory.max", parse_bytes);
  if (limit == UINT64_MAX) {
    char line[128];
    if (read_line("/sys/fs/cgroup/memory/memory.limit_in_bytes", line, sizeof line) == 0)
      limit = parse_bytes(line);
  }
  return limit < total ? limit : total;
}

/* glibc (with _GNU_SOURCE, defined above) has an adaptive kind that spins
 * up to a bound before it sleeps; its initializer macro tells that the kind
 * exists. musl (and every other libc here) has neither: the pool then gets
 * the default mutex, with the same semantics and a futex round trip on each
 * contended lock instead of a short spin, which only costs throughput of
 * microsecond jobs. A glibc that refuses the kind or the attribute falls
 * back the same way, so the lock is never left uninitialized. */
int os_mutex_init(pthread_mutex_t *m) {
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
  pthread_mutexattr_t attr;
  if (pthread_mutexattr_init(&attr) == 0) {
    int rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    if (rc == 0) rc = pthread_mutex_init(m, &attr);
    pthread_mutexattr_destroy(&attr);
    if (rc == 0) return 0;
  }
#endif
  return pthread_mutex_init(m, NULL);
}
