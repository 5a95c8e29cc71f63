/* POSIX systems other than Linux (macOS, the BSDs). No per-thread priority
 * without privileges worth relying on, so priorities are a no-op; memory
 * comes from sysctl where sysconf lacks _SC_PHYS_PAGES (macOS); arenas are
 * plain aligned allocations, zeroed once so their pages are faulted in.
 * Host slot lock files use flock(), as on Linux. */
#if defined(__APPLE__)
#define _DARWIN_C_SOURCE
#endif
#include "common/fault.h"
#include "common/status.h"
#include "pool/os.h"

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

/* A new thread inherits its creator's signal mask: block every signal
 * for the creation only, so the thread starts with all of them blocked. */
int os_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg) {
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

int os_priority_base(void) { return 0; }

void os_thread_set_priority(pool_priority priority, int base) {
  (void)priority;
  (void)base;
}

unsigned os_cpu_count(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
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
