/* POSIX systems other than Linux (macOS, the BSDs). Memory comes from
 * sysctl where sysconf lacks _SC_PHYS_PAGES (macOS). Thread start, arenas
 * and the clock are os_unix.c's, as on Linux: arenas are mmap'ed and
 * faulted in by pool/prefault.c in steps that look at the stop flag. Host
 * slot lock files use flock(), as on Linux (os_flock.c).
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
#include "pool/os.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
#include <sys/sysctl.h>
#include <sys/types.h>
#endif
#if defined(__APPLE__)
#include <pthread/qos.h>
#endif

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

int os_mutex_init(pthread_mutex_t *m) { return pthread_mutex_init(m, NULL); }
