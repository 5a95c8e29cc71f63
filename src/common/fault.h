/* Allocation-failure injection. Every allocation site in src/ (and every
 * other call whose failure the code must survive: pthread_create, waking
 * the JS thread) goes through one of these macros, which name the site by
 * file and line.
 *
 * Normal builds: the macros are the plain calls, nothing more.
 *
 * Fault builds (KDFPOOL_FAULTS defined, gyp/binding.gyp: KDFPOOL_FAULTS=1):
 * each site is a `fault_site` record in its own linker section, so the
 * whole list of sites compiled in is known without reaching them (GNU
 * toolchains on ELF). A process-wide injector counts the sites reached and,
 * once armed with n, makes the n-th site reached from then on fail once
 * (allocation: NULL / MAP_FAILED / an error number). Memory obtained
 * through the wrappers is counted until it is freed through the matching
 * wrapper, so a test can tell that nothing leaked; small freed blocks are
 * poisoned and quarantined, so that a use after free shows. Fault builds
 * need GNU ld section symbols and glibc's malloc_usable_size (Linux). */
#ifndef COMMON_FAULT_H
#define COMMON_FAULT_H

#include <stddef.h>

#ifdef KDFPOOL_FAULTS

typedef struct fault_site {
  const char *name;   /* "src/pool/pool.c:340 calloc" */
  unsigned long hits; /* atomic: times reached */
} fault_site;

/* 1 if the call at `site` must fail now (and counts the visit). */
int fault_should_fail(fault_site *site);

void *fault_malloc(fault_site *site, size_t n);
void *fault_calloc(fault_site *site, size_t n, size_t size);
void *fault_realloc(fault_site *site, void *p, size_t n);
int fault_posix_memalign(fault_site *site, void **p, size_t align, size_t n);
void fault_free(void *p);
void *fault_mmap(fault_site *site, void *addr, size_t len, int prot, int flags, int fd, long off);
int fault_munmap(void *p, size_t len);

/* The injector, for the binding's `faults` export. */
void fault_arm(unsigned long n,
               const char *filter); /* filter: substring of the site name, or NULL */
void fault_disarm(void);
void fault_reset(void);                /* count back to 0, disarmed */
unsigned long fault_count(void);       /* sites reached since the last reset */
unsigned long fault_injected(void);    /* failures injected since the last reset */
long fault_live(void);                 /* live allocations made through the wrappers */
const char *fault_last_injected(void); /* the site that failed last since reset, or NULL */
/* Bytes of the live allocations (malloc'ed ones, by malloc_usable_size; mmap'ed
 * ones are left out): what the soak bounds per job. */
long fault_live_bytes(void);
/* For proving the soak's leak bound: every job the pool ends from now on
 * allocates `bytes` (0: none) through the counted wrapper and drops the
 * pointer, a leak of exactly that much per job. */
void fault_set_job_leak(size_t bytes);
void fault_job_leak(void);
/* Every site compiled in: calls fn for each, with its hit count. */
void fault_each_site(void (*fn)(const fault_site *site, void *arg), void *arg);

#define FAULT_STR_(x) #x
#define FAULT_STR(x)  FAULT_STR_(x)
/* The section holds one record per call site; __start_/__stop_ symbols
 * bound it. A statement expression keeps the record local to the site. */
#define FAULT_SITE(kind)                                                                      \
  ({                                                                                          \
    static fault_site fault_site_ __attribute__((                                             \
        section("kdfpool_faults"), used)) = { __FILE__ ":" FAULT_STR(__LINE__) " " kind, 0 }; \
    &fault_site_;                                                                             \
  })

#define KDF_MALLOC(n)       fault_malloc(FAULT_SITE("malloc"), (n))
#define KDF_CALLOC(n, size) fault_calloc(FAULT_SITE("calloc"), (n), (size))
#define KDF_REALLOC(p, n)   fault_realloc(FAULT_SITE("realloc"), (p), (n))
#define KDF_POSIX_MEMALIGN(pp, align, n) \
  fault_posix_memalign(FAULT_SITE("posix_memalign"), (pp), (align), (n))
#define KDF_FREE(p) fault_free(p)
#define KDF_MMAP(addr, len, prot, flags, fd, off) \
  fault_mmap(FAULT_SITE("mmap"), (addr), (len), (prot), (flags), (fd), (off))
#define KDF_MUNMAP(p, len) fault_munmap((p), (len))
/* pthread_create fails with EAGAIN, as it does when threads run out. */
#define KDF_PTHREAD_CREATE(t, attr, fn, arg)                         \
  (fault_should_fail(FAULT_SITE("pthread_create")) ? 11 /* EAGAIN */ \
                                                   : pthread_create((t), (attr), (fn), (arg)))
/* Any other call that may fail: `call` is skipped and `failed` is the
 * result when the site is chosen. */
#define KDF_FAULT_POINT(name, call, failed) \
  (fault_should_fail(FAULT_SITE(name)) ? (failed) : (call))
/* Where a job ends: the leak of fault_set_job_leak(), if armed. */
#define KDF_JOB_LEAK_POINT() fault_job_leak()

#else

#define KDF_MALLOC(n)                             malloc(n)
#define KDF_CALLOC(n, size)                       calloc((n), (size))
#define KDF_REALLOC(p, n)                         realloc((p), (n))
#define KDF_POSIX_MEMALIGN(pp, align, n)          posix_memalign((pp), (align), (n))
#define KDF_FREE(p)                               free(p)
#define KDF_MMAP(addr, len, prot, flags, fd, off) mmap((addr), (len), (prot), (flags), (fd), (off))
#define KDF_MUNMAP(p, len)                        munmap((p), (len))
#define KDF_PTHREAD_CREATE(t, attr, fn, arg)      pthread_create((t), (attr), (fn), (arg))
#define KDF_FAULT_POINT(name, call, failed)       (call)
#define KDF_JOB_LEAK_POINT()                      ((void)0)

#endif

#endif
