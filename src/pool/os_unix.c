/* What every POSIX system shares, Linux included (os_linux.c and
 * os_posix.c hold what differs): starting a pool thread, keeping the
 * library loaded while one exists, arena pages, the clock and the timed
 * waits on it, and seeds.
 *
 * Arenas. mmap'ed anonymous pages: zero, and not yet faulted in, so that
 * pool/prefault.c faults them in a step at a time and a stop for exit ends
 * the work after the step in progress (a malloc'ed arena would have to be
 * zeroed in one memset, which no stop interrupts). Where the system has
 * transparent huge pages (Linux), the pool rounds arenas to 2 MiB and they
 * are advised as huge pages. */
#if defined(__linux__)
#define _GNU_SOURCE /* dladdr */
#elif defined(__APPLE__)
#define _DARWIN_C_SOURCE
#endif
#include "common/fault.h"
#include "pool/os.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h> /* arc4random_buf on macOS and the BSDs */
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
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

void *os_arena_map(size_t size) {
  void *mem = KDF_MMAP(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
  (void)madvise(mem, size, MADV_HUGEPAGE);
#endif
  return mem;
}

void os_arena_unmap(void *mem, size_t size) {
  if (mem != NULL) KDF_MUNMAP(mem, size);
}

uint64_t os_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec timespec_of(uint64_t ns) {
  struct timespec ts;
  ts.tv_sec = (time_t)(ns / 1000000000u);
  ts.tv_nsec = (long)(ns % 1000000000u);
  return ts;
}

#if defined(__APPLE__)
/* macOS has no pthread_condattr_setclock. Its relative wait runs on the
 * kernel's own timer, which wall-clock steps do not move; the time left is
 * computed afresh from the monotonic clock after each early return. */
int os_cond_init_monotonic(pthread_cond_t *c) { return pthread_cond_init(c, NULL); }

int os_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline_ns) {
  for (;;) {
    uint64_t now = os_monotonic_ns();
    if (now >= deadline_ns) return ETIMEDOUT;
    struct timespec left = timespec_of(deadline_ns - now);
    int rc = pthread_cond_timedwait_relative_np(c, m, &left);
    if (rc != ETIMEDOUT) return rc;
  }
}
#else
/* The condition's clock is the one os_monotonic_ns() reads, so the
 * absolute deadline is the pool's own, and the kernel says when it passed. */
int os_cond_init_monotonic(pthread_cond_t *c) {
  pthread_condattr_t attr;
  int rc = pthread_condattr_init(&attr);
  if (rc != 0) return rc;
  rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  if (rc == 0) rc = pthread_cond_init(c, &attr);
  pthread_condattr_destroy(&attr);
  return rc;
}

int os_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline_ns) {
  struct timespec until = timespec_of(deadline_ns);
  return pthread_cond_timedwait(c, m, &until);
}
#endif

void os_thread_yield(void) { sched_yield(); }

/* getrandom() on Linux (glibc 2.25, musl 1.1.20), arc4random_buf() on
 * macOS and the BSDs, /dev/urandom elsewhere. */
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || defined(__NetBSD__)
int os_random(void *buf, size_t len) {
  arc4random_buf(buf, len);
  return 0;
}
#else
int os_random(void *buf, size_t len) {
  unsigned char *out = buf;
  size_t got = 0;
#if defined(__linux__)
  while (got < len) {
    ssize_t n = getrandom(out + got, len - got, 0);
    if (n > 0)
      got += (size_t)n;
    else if (!(n < 0 && errno == EINTR))
      break;
  }
#endif
  int fd = got < len ? open("/dev/urandom", O_RDONLY | O_CLOEXEC) : -1;
  while (fd >= 0 && got < len) {
    ssize_t n = read(fd, out + got, len - got);
    if (n > 0)
      got += (size_t)n;
    else if (!(n < 0 && errno == EINTR))
      break;
  }
  if (fd >= 0) close(fd);
  return got == len ? 0 : -1;
}
#endif
