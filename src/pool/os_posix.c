/* POSIX systems other than Linux (macOS, the BSDs). Memory comes from
 * sysctl where sysconf lacks _SC_PHYS_PAGES (macOS); arenas are plain
 * aligned allocations, zeroed once so their pages are faulted in. Host slot
 * lock files use flock(), as on Linux (os_flock.c).
 *
 * Priorities (macOS). What os_linux.c does with per-thread nice, macOS does
 * with a thread's quality-of-service class: setpriority() there renices
 * the whole process (the JS thread too), while pthread_set_qos_class_self_np
 * changes the calling thread only and needs no privilege. The semantics are
 * Linux's: the base is the JS thread's own class (os_priority_base), 'normal'
 * is that class, 'low' is UTILITY and 'idle' BACKGROUND (Apple silicon runs
 * it on the efficiency cores only, like SCHED_IDLE it can wait behind
 * everything), each never above the base. Like on Linux, a failure is
 * ignored: the priority is a preference. The BSDs keep every thread at the
 * process's priority.
 *
 * CPUs (macOS). Like Linux, which counts every logical CPU the process may
 * run on (hyperthreads and, on big.LITTLE arm64, little cores alike), the
 * count is hw.activecpu: all logical CPUs now available, performance and
 * efficiency cores together. macOS has no affinity masks or CPU quotas to
 * reduce it. */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#endif
#include "common/fault.h"
#include "common/status.h"
#include "pool/os.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif
#if defined(__APPLE__)
#include <pthread/qos.h>
#endif

/* Node unloads an addon with the last environment that loaded it (a
 * worker's, often), but our threads outlive environments: a terminated
 * worker's pools close on a thread of their own, and the default pool
 * serves every environment. Once a thread of ours exists the library stays
 * mapped until the process ends: RTLD_NOLOAD finds the copy already loaded,
 * RTLD_NODELETE keeps it. The handle is never closed, on purpose. */
static const char inside_this_library;

static void keep_loaded(void) {
  Dl_info self;
  if (dladdr(&inside_this_library, &self) != 0 && self.dli_fname != NULL)
    (void)dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* A new thread inherits its creator's signal mask: block every signal
 * for the creation only, so the thread starts with all of them blocked. */
int os_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, keep_loaded);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = KDF_PTHREAD_CREATE(thread, NULL, fn, arg);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  return rc;
}

void os_thread_set_name(const char *name) {
  char cut[16];
  snprintf(cut, sizeof cut, "%s", name);
#if defined(__APPLE__)
  pthread_setname_np(cut); /* macOS names only the calling thread */
#elif defined(__FreeBSD__) || defined(__OpenBSD__)
  pthread_set_name_np(pthread_self(), cut);
#else
  (void)cut;
#endif
}

#if defined(__APPLE__)
/* QoS classes are ordered by value (BACKGROUND < UTILITY < DEFAULT <
 * USER_INITIATED < USER_INTERACTIVE), so "never above the base" is a
 * minimum. A thread with no class of its own (UNSPECIFIED) runs as
 * DEFAULT. */
static qos_class_t qos_at_most(qos_class_t want, qos_class_t base) {
  return want < base ? want : base;
}

int os_priority_base(void) {
  qos_class_t own = qos_class_self();
  return (int)(own == QOS_CLASS_UNSPECIFIED ? QOS_CLASS_DEFAULT : own);
}

void os_thread_set_priority(pool_priority priority, int base) {
  qos_class_t ceiling = (qos_class_t)base, qos;
  switch (priority) {
    case POOL_PRIORITY_IDLE:
      qos = qos_at_most(QOS_CLASS_BACKGROUND, ceiling);
      break;
    case POOL_PRIORITY_LOW:
      qos = qos_at_most(QOS_CLASS_UTILITY, ceiling);
      break;
    case POOL_PRIORITY_NORMAL:
    default:
      qos = ceiling;
      break;
  }
  (void)pthread_set_qos_class_self_np(qos, 0);
}
#else
int os_priority_base(void) { return 0; }

void os_thread_set_priority(pool_priority priority, int base) {
  (void)priority;
  (void)base;
}
#endif

uint64_t os_process_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* No per-thread run-queue wait on macOS or the BSDs: 'auto' is 'low'. */
int os_thread_sched_stat(uint64_t *run_ns, uint64_t *wait_ns) {
  (void)run_ns;
  (void)wait_ns;
  return -1;
}

unsigned os_cpu_count(void) {
  long online = -1;
#if defined(__APPLE__)
  int active = 0;
  size_t len = sizeof active;
  if (sysctlbyname("hw.activecpu", &active, &len, NULL, 0) == 0) online = active;
#endif
  if (online < 1) online = sysconf(_SC_NPROCESSORS_ONLN);
  if (online < 1) return 1;
  return online > 0xFFFFFFFL ? 0xFFFFFFFu : (unsigned)online;
}

uint64_t os_memory_limit(void) {
#if defined(__APPLE__)
  uint64_t bytes = 0;
  size_t len = sizeof bytes;
  if (sysctlbyname("hw.memsize", &bytes, &len, NULL, 0) == 0 && bytes != 0) return bytes;
#endif
#if defined(_SC_PHYS_PAGES)
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return (uint64_t)pages * (uint64_t)page;
#endif
  return UINT64_MAX;
}

void *os_arena_map(size_t size) {
  void *mem = NULL;
  if (KDF_POSIX_MEMALIGN(&mem, 64, size) != 0) return NULL;
  memset(mem, 0, size);
  return mem;
}

void os_arena_unmap(void *mem, size_t size) {
  (void)size;
  KDF_FREE(mem);
}

uint64_t os_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int os_mutex_init(pthread_mutex_t *m) { return pthread_mutex_init(m, NULL); }

void os_thread_yield(void) { sched_yield(); }
