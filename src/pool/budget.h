/* The memory budget and the workers' arenas (budget.c). The lock is held
 * on entry to each of these, and on return. */
#ifndef POOL_BUDGET_H
#define POOL_BUDGET_H

#include "pool/internal.h"

#include <stdint.h>

enum budget_claim { CLAIM_RUN, CLAIM_RETRY, CLAIM_WAIT };

/* May worker w start `job` (the head) now? CLAIM_RUN: its memory is
 * reserved. CLAIM_RETRY: an arena was unmapped (the lock was dropped), look
 * again. CLAIM_WAIT: only a running job can free what it needs. */
enum budget_claim budget_claim(pool *p, pool_worker *w, const pool_job *job);

/* Gives back what budget_claim() reserved for a head that w does not
 * start yet. */
void budget_unclaim(pool *p, pool_worker *w);

/* Unmaps w's arena, which must not be busy. The lock is dropped meanwhile;
 * the bytes stay in `held` until they are really gone. */
void budget_drop_arena(pool *p, pool_worker *w);

/* The part of a job's memory that it allocates for itself (its output),
 * charged beside the arena; the rest is scratch, held in the arena. */
static inline uint64_t budget_job_own(const pool_job *job) {
  return job->output < job->memory ? job->output : job->memory;
}

/* Lock held; w runs a batch. Raises w's reservation so that one arena
 * holds `scratch` bytes and `own` bytes are charged beside it (the jobs'
 * outputs), if the budget has room for that right now; returns 0 if so. Never waits: a partner that does not fit simply stays queued.
 * The new charge replaces w's old one, and covers an arena of w's too
 * small for `scratch` until pool_worker_arena() has unmapped it (the old
 * arena is smaller than the reservation, and the two never coexist). */
int budget_reserve_batch(pool *p, pool_worker *w, uint64_t scratch, uint64_t own);

/* Lock held. w's run ended: the reservation beyond the arena goes back,
 * and the arena becomes idle (any worker may now trade or unmap it): a
 * head waiting for memory may fit now. */
void budget_release(pool *p, pool_worker *w);

#endif
