/* Priority 'auto' (priority.c): a worker that runs low while it gets the
 * CPU and at the JS thread's priority while other processes starve it.
 * worker.c calls these hooks; nothing else does. */
#ifndef POOL_PRIORITY_H
#define POOL_PRIORITY_H

#include "pool/internal.h"

#include <stdint.h>

/* The rule's window: a worker judges its share of the CPU over at least
 * this much wall time (at the points where it takes a job), and only when
 * it was runnable for at least half of it. */
#define PRIORITY_WINDOW_NS 100000000u

/* The rule, for the thread that holds the worker: `raised` is 0 while it
 * runs on its low thread, 1 on its twin; `run_ns` and `wait_ns` what that
 * thread spent on a CPU and waiting for one (runnable) over a window;
 * `process_ns` the CPU time of the whole process over it, `capacity_ns`
 * the window's wall time times the CPUs the process may use. Returns the
 * level the worker should run at next:
 *   low -> raised  when run < 1/4 of run + wait (it is starved) and the
 *                  process used under 9/10 of its CPUs (so what starves
 *                  it is outside the process: the event loop and the
 *                  process's own threads keep winning, as with 'low')
 *   raised -> low  when run > 3/4 of run + wait (it gets the CPU again),
 *                  or the process used 9/10 of its CPUs or more (nobody
 *                  else wants them)
 * Between the two the level stays (hysteresis). Pure. */
int priority_decide(int raised, uint64_t run_ns, uint64_t wait_ns, uint64_t process_ns,
                    uint64_t capacity_ns);

/* First thing on a worker thread, lock not held. On a twin: names it
 * "kdf+<pool>-<n>", waits without the pool lock until it holds the worker
 * and returns 1, or returns -1 once the worker has left (the twin ends). On the worker's own thread, before it
 * names itself: with 'auto', starts its twin (which runs `main`, worker.c's
 * worker_main, with `w`), at this thread's priority, the base; returns 0. */
int priority_start(pool *p, pool_worker *w, void *(*main)(void *));

/* Applies `priority` to the calling worker thread (in place of
 * os_thread_set_priority, for every priority): 'auto' is low on the
 * worker's own thread and normal on its twin. Lock not held. */
void priority_apply(pool *p, pool_worker *w, pool_priority priority);

/* Lock held, at the top of the worker loop, before anything of `w` is
 * touched. Returns 0: go on (this thread holds the worker); 1: the worker
 * moved and came back, or the rule was looked at: look again (`continue`);
 * -1: this thread is a twin that must end now (the lock is released:
 * return from the thread). */
int priority_turn(pool *p, pool_worker *w);

/* Lock held, when the loop ends. On the worker's own thread: 0. On its
 * twin: hands the worker back, then waits; 1 when it holds the worker
 * again (`goto next`), -1 when it must end (lock released). */
int priority_leave(pool *p, pool_worker *w);

/* The worker's own thread, leaving for good: lock held, before it marks
 * itself exited, tells the twin to end; after its last unlock, joins it. */
void priority_stop(pool *p, pool_worker *w);
void priority_join(pool_worker *w);

#ifdef POOL_TEST_HOOKS
/* Test builds: the counters the rule reads come from these instead of
 * os_thread_sched_stat (given whether the caller is a twin) and
 * os_process_cpu_ns (NULL, NULL restores them). */
void priority_observe(int (*stat)(int raised, uint64_t *run_ns, uint64_t *wait_ns),
                      uint64_t (*process)(void));
/* 1 when the calling thread is w's twin (the worker runs raised). */
int priority_thread_raised(const pool_worker *w);
#endif

#endif
