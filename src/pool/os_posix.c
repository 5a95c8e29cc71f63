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

/* Host slot lock files: flock() locks belong to the open file description,
 * so each os_lock_open() is a lock of its own, even within this process.
 * The path is the caller's directory (lib/ made it, owner-only) and a name
 * of ours; O_NOFOLLOW refuses a link planted in its place. */
int os_lock_open(const char *dir, const char *name, int create, os_lock *out) {
  char path[4096];
  *out = OS_LOCK_NONE;
  int n = snprintf(path, sizeof path, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= sizeof path) return STATUS_EIO;
  int fd;
  do {
    fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return STATUS_EIO;
  *out = (os_lock)fd;
  return 0;
}

int os_lock_try(os_lock f, int shared) {
  int rc;
  do {
    rc = flock((int)f, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc == 0) return 1;
  return errno == EWOULDBLOCK ? 0 : STATUS_EIO;
}

void os_lock_release(os_lock f) { (void)flock((int)f, LOCK_UN); }

void os_lock_close(os_lock f) {
  if (f != OS_LOCK_NONE) (void)close((int)f);
}

os_lock os_lock_dir(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return OS_LOCK_NONE;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
    close(fd);
    return OS_LOCK_NONE;
  }
  return (os_lock)fd;
}
