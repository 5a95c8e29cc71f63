/* The pool's one seam to the operating system. The pool's other files are
 * portable pthreads C; everything that differs between systems is here,
 * one file per system:
 *   os_linux.c  Linux (glibc and musl): cgroup v1/v2 limits, SCHED_BATCH,
 *               per-thread nice
 *   os_posix.c  other POSIX systems (macOS, the BSDs): sysconf/sysctl,
 *               quality-of-service classes on macOS
 *   os_win.c    Windows
 * gyp/binding.gyp compiles exactly one of them, plus, on every POSIX
 * system, os_unix.c (thread start, mmap'ed arenas, the clock and its
 * timed waits: nearly the same calls everywhere) and os_flock.c (the
 * host-slot directory and lock files). Every function here but
 * os_thread_start may fail quietly: the pool treats names, priorities and
 * limits as preferences. */
#ifndef POOL_OS_H
#define POOL_OS_H

#include "pool/pool.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* Starts a pool thread running fn(arg). Pool threads never take signals:
 * they belong to the process's main thread (Node installs its handlers
 * there), so POSIX systems start it with every signal blocked; Windows has
 * no signal masks. Returns pthread_create()'s result (0 or an error
 * number); a fault injection site (common/fault.h). */
int os_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

/* Names the calling thread; the name is cut to what the system keeps
 * (15 characters on Linux). */
void os_thread_set_name(const char *name);

/* The calling thread's own scheduling priority, as `base` for
 * os_thread_set_priority: read on the thread that creates a pool (the JS
 * thread), so that the pool's priorities are relative to the process's. */
int os_priority_base(void);

/* Applies a pool priority to the calling thread only (never to the
 * process: that would also slow the JS thread), relative to `base` and
 * never above it. Never given POOL_PRIORITY_MIXED or POOL_PRIORITY_AUTO:
 * the pool turns those into normal or low per worker before calling. */
void os_thread_set_priority(pool_priority priority, int base);

/* The calling thread's time on a CPU and waiting for one while runnable,
 * since it started, in ns (Linux: /proc/thread-self/schedstat). 0, or -1
 * where the system does not say (then priority 'auto' is 'low'). */
int os_thread_sched_stat(uint64_t *run_ns, uint64_t *wait_ns);

/* CPU time of the whole process (every thread), ns; 0 where unknown. */
uint64_t os_process_cpu_ns(void);

/* CPUs this process may really use: affinity reduced by a CPU quota
 * (cgroup), at least 1. */
unsigned os_cpu_count(void);

/* The memory this process may use, in bytes: the smaller of physical memory
 * and a memory limit (cgroup); UINT64_MAX when unknown. */
uint64_t os_memory_limit(void);

/* Scratch memory for a worker: `size` bytes, 64-byte aligned and zeroed,
 * and not yet faulted in: the caller does that with pool_prefault()
 * (prefault.h), a step at a time, so that a stop for exit interrupts it
 * (test/native/test_os.c checks both, on each POSIX implementation). NULL
 * on failure. Freed only with os_arena_unmap(mem, size). */
void *os_arena_map(size_t size);
void os_arena_unmap(void *mem, size_t size);

/* Monotonic clock, nanoseconds: the pool's clock (pool_now_ns), which a
 * step of the wall clock (NTP, an administrator, a resumed VM) never
 * moves. */
uint64_t os_monotonic_ns(void);

/* A condition variable whose timed waits (os_cond_wait_until) run on
 * os_monotonic_ns()'s clock, never on the wall clock: a wall clock stepped
 * back by an hour would otherwise hold a deadline, an idle arena or a
 * host-slot poll for that hour. Every condition variable of the pool is
 * made here, so none waits on the wall clock by accident. Linux (glibc,
 * musl) and the BSDs give the condition CLOCK_MONOTONIC
 * (pthread_condattr_setclock); macOS, which has no such attribute, and
 * Windows (winpthreads, whose absolute waits are converted from the wall
 * clock) wait relative times, which no wall-clock step moves. Returns
 * pthread_cond_init()'s result (or the attribute's error). */
int os_cond_init_monotonic(pthread_cond_t *c);

/* pthread_cond_wait() on c, with m held as for it, ending at the latest
 * when os_monotonic_ns() reaches deadline_ns. 0 when woken (perhaps
 * spuriously: the caller looks again, as after any condition wait),
 * ETIMEDOUT only once the deadline has passed on that clock. */
int os_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline_ns);

/* Fills buf with len bytes from the system's random source, for seeds
 * (pool_fair_key's): 0, or -1 if the source failed (machine.c then falls
 * back on the clock and addresses). */
int os_random(void *buf, size_t len);

/* A mutex for locks held for a few hundred nanoseconds by several threads
 * at once (the pool's): where the system has one (glibc's adaptive kind), a
 * kind that spins briefly before it sleeps, so that a short wait is not a
 * futex round trip for both sides; elsewhere (musl, macOS, Windows) the
 * default mutex. Returns pthread_mutex_init()'s result. */
int os_mutex_init(pthread_mutex_t *m);

/* Lets another runnable thread on this CPU go first (a worker that waits
 * a few microseconds for the next submit, see pool.c's Wake-ups). */
void os_thread_yield(void);

/* Lock files for host slots (pool/hostslots.c). A lock belongs to the open
 * file (the description or handle), not to the process or the thread: two
 * os_lock_open() of one path conflict even inside one process, and the
 * kernel drops the lock when the file is closed, which includes the
 * process dying (SIGKILL, OOM kill). POSIX flock(), Windows LockFileEx().
 * Never fcntl() record locks: those belong to the process, so two pools of
 * one process would not exclude each other, and closing any descriptor of
 * the file would drop every lock the process holds on it. */
typedef intptr_t os_lock;
#define OS_LOCK_NONE ((os_lock)-1)

/* Opens the host-slot directory `path` and checks that it is private to
 * this user; every lock file is then opened through the handle, so the
 * directory checked is the one used for as long as it is open, whatever is
 * later renamed or planted at its path. Never through a link (the last
 * component), never inherited by child processes. Checked: POSIX, a
 * directory owned by the effective uid with no permission bits for group
 * or others; Windows, which has no uid or mode bits, a directory that is
 * not a reparse point (link, junction), held open without delete sharing
 * so that nobody renames or removes it meanwhile (who may create files in
 * it is left to its ACL: the per-user temporary folder's keeps other users
 * out). While open, it also holds a shared lock on the directory where
 * cleaners of temporary folders respect one (flock: systemd-tmpfiles; a
 * preference only). 0, or STATUS_EIO: missing, not a directory, or not
 * private. os_lock_close() closes it. */
int os_dir_open(const char *path, os_lock *out);
/* Opens `name` in the directory `dir` (from os_dir_open), creating it,
 * owner-only, if `create`; never following a symbolic link and never
 * inherited by child processes (a child that kept the file open would keep
 * its lock after we die). 0 or STATUS_EIO (which includes: missing and not
 * `create`). */
int os_lock_open(os_lock dir, const char *name, int create, os_lock *out);
/* Takes the file's lock without waiting, exclusive or `shared`: 1 taken,
 * 0 held (exclusively, or at all for an exclusive one) through another
 * open file, STATUS_EIO on error. */
int os_lock_try(os_lock f, int shared);
void os_lock_release(os_lock f);
/* Closes the file or directory, and with it any lock it holds. */
void os_lock_close(os_lock f);

#endif
