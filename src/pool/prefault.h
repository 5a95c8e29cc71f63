/* Faulting in a fresh arena's pages before a job uses them (pool/os.h maps
 * them zeroed but not yet touched), one step at a time, so that a worker
 * asked to stop for process exit stops after the step it is in rather
 * than after the last page: touching 4 GiB takes seconds, and exit waits
 * for every worker. */
#ifndef POOL_PREFAULT_H
#define POOL_PREFAULT_H

#include <stddef.h>

/* Bytes touched between two looks at the stop flag: 512 pages of 4 KiB
 * (one huge page), well under a millisecond of page faults. */
#define POOL_PREFAULT_STEP ((size_t)2 << 20)

/* Writes one byte of every 4 KiB of mem[0..size): every page of a system
 * whose pages are 4 KiB or larger, each already zero. Looks at `stop`
 * (may be NULL: never stops) before each step. 0 when all of it is
 * faulted in; -1 when it stopped first (the caller unmaps it). */
int pool_prefault(void *mem, size_t size, const volatile int *stop);

#ifdef POOL_TEST_HOOKS
/* Test builds: fn is called after each step with the number of steps done
 * so far and the stop flag pool_prefault() was given (fn may block; NULL
 * removes it). */
void pool_prefault_observe(void (*fn)(unsigned long steps, const volatile int *stop));
#endif

#endif
