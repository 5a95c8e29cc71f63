/* The fault injector behind common/fault.h (fault builds only). Counters
 * are atomics: sites are reached from the JS threads and the pool threads
 * at once. "The n-th site from now" is exact for one thread; with several
 * threads it is whichever gets there n-th, which is all a test needs. */
#ifdef KDFPOOL_FAULTS
#define _GNU_SOURCE
#include "common/fault.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

extern fault_site __start_kdfpool_faults[];
extern fault_site __stop_kdfpool_faults[];

static unsigned long g_count;    /* sites reached since reset */
static unsigned long g_injected; /* failures injected since reset */
static long g_countdown;         /* armed: fail when it reaches 0; <= 0 = disarmed */
static long g_live;              /* live allocations through the wrappers */
static long g_live_bytes;        /* their malloc_usable_size(), malloc'ed ones only */
static size_t g_job_leak;        /* bytes each ended job leaks on purpose; 0: none */
static char g_filter[64];        /* armed for sites whose name contains this */
static const char *g_last;       /* name of the site that failed last */

int fault_should_fail(fault_site *site) {
  __atomic_add_fetch(&site->hits, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&g_count, 1, __ATOMIC_RELAXED);
  if (__atomic_load_n(&g_countdown, __ATOMIC_ACQUIRE) <= 0) return 0;
  if (g_filter[0] != '\0' && strstr(site->name, g_filter) == NULL) return 0;
  if (__atomic_sub_fetch(&g_countdown, 1, __ATOMIC_ACQ_REL) != 0) return 0;
  __atomic_add_fetch(&g_injected, 1, __ATOMIC_RELAXED);
  __atomic_store_n(&g_last, site->name, __ATOMIC_RELEASE);
  return 1;
}

static void *counted(void *p) {
  if (p != NULL) __atomic_add_fetch(&g_live, 1, __ATOMIC_RELAXED);
  return p;
}

static void *counted_bytes(void *p) {
  if (p != NULL) __atomic_add_fetch(&g_live_bytes, (long)malloc_usable_size(p), __ATOMIC_RELAXED);
  return counted(p);
}

void *fault_malloc(fault_site *site, size_t n) {
  return fault_should_fail(site) ? NULL : counted_bytes(malloc(n));
}

void *fault_calloc(fault_site *site, size_t n, size_t size) {
  return fault_should_fail(site) ? NULL : counted_bytes(calloc(n, size));
}

void *fault_realloc(fault_site *site, void *p, size_t n) {
  if (fault_should_fail(site)) return NULL;
  long old = p != NULL ? (long)malloc_usable_size(p) : 0;
  void *grown = realloc(p, n);
  if (grown == NULL) return NULL;
  __atomic_add_fetch(&g_live_bytes, (long)malloc_usable_size(grown) - old, __ATOMIC_RELAXED);
  return p == NULL ? counted(grown) : grown;
}

int fault_posix_memalign(fault_site *site, void **p, size_t align, size_t n) {
  if (fault_should_fail(site)) return ENOMEM;
  int rc = posix_memalign(p, align, n);
  if (rc == 0) counted_bytes(*p);
  return rc;
}

/* Small blocks are poisoned when freed and kept in a quarantine for the
 * next QUARANTINE frees before they really go back to malloc, so that a use
 * after free reads 0xa5 bytes (and usually crashes) instead of the old
 * values or someone else's. Large blocks (scratch, outputs) go back at once:
 * holding them would cost real memory. */
#define QUARANTINE     1024
#define QUARANTINE_MAX 4096
static void *g_quarantine[QUARANTINE];
static unsigned g_quarantine_pos;
static pthread_mutex_t g_quarantine_lock = PTHREAD_MUTEX_INITIALIZER;

void fault_free(void *p) {
  if (p == NULL) return;
  __atomic_sub_fetch(&g_live, 1, __ATOMIC_RELAXED);
  size_t size = malloc_usable_size(p);
  __atomic_sub_fetch(&g_live_bytes, (long)size, __ATOMIC_RELAXED);
  if (size > QUARANTINE_MAX) {
    free(p);
    return;
  }
  memset(p, 0xa5, size);
  pthread_mutex_lock(&g_quarantine_lock);
  void *oldest = g_quarantine[g_quarantine_pos];
  g_quarantine[g_quarantine_pos] = p;
  g_quarantine_pos = (g_quarantine_pos + 1) % QUARANTINE;
  pthread_mutex_unlock(&g_quarantine_lock);
  free(oldest);
}

void *fault_mmap(fault_site *site, void *addr, size_t len, int prot, int flags, int fd, long off) {
  if (fault_should_fail(site)) return MAP_FAILED;
  void *p = mmap(addr, len, prot, flags, fd, (off_t)off);
  if (p != MAP_FAILED) counted(p);
  return p;
}

int fault_munmap(void *p, size_t len) {
  int rc = munmap(p, len);
  if (rc == 0) __atomic_sub_fetch(&g_live, 1, __ATOMIC_RELAXED);
  return rc;
}

void fault_arm(unsigned long n, const char *filter) {
  __atomic_store_n(&g_countdown, 0, __ATOMIC_RELEASE);
  size_t len = filter != NULL ? strlen(filter) : 0;
  if (len >= sizeof g_filter) len = sizeof g_filter - 1;
  memcpy(g_filter, filter != NULL ? filter : "", len);
  g_filter[len] = '\0';
  __atomic_store_n(&g_countdown, (long)n, __ATOMIC_RELEASE);
}

void fault_disarm(void) { __atomic_store_n(&g_countdown, 0, __ATOMIC_RELEASE); }

void fault_reset(void) {
  fault_disarm();
  __atomic_store_n(&g_count, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_injected, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_last, NULL, __ATOMIC_RELEASE);
}

const char *fault_last_injected(void) { return __atomic_load_n(&g_last, __ATOMIC_ACQUIRE); }

unsigned long fault_count(void) { return __atomic_load_n(&g_count, __ATOMIC_RELAXED); }
unsigned long fault_injected(void) { return __atomic_load_n(&g_injected, __ATOMIC_RELAXED); }
long fault_live(void) { return __atomic_load_n(&g_live, __ATOMIC_RELAXED); }
long fault_live_bytes(void) { return __atomic_load_n(&g_live_bytes, __ATOMIC_RELAXED); }

void fault_set_job_leak(size_t bytes) { __atomic_store_n(&g_job_leak, bytes, __ATOMIC_RELAXED); }

void fault_job_leak(void) {
  size_t n = __atomic_load_n(&g_job_leak, __ATOMIC_RELAXED);
  if (n != 0) (void)counted_bytes(malloc(n)); /* dropped on purpose */
}

void fault_each_site(void (*fn)(const fault_site *site, void *arg), void *arg) {
  for (fault_site *s = __start_kdfpool_faults; s < __stop_kdfpool_faults; s++) fn(s, arg);
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int fault_disabled;
#endif
