/* Host slots as the pool's workers use them (seek.c). */
#ifndef POOL_SEEK_H
#define POOL_SEEK_H

#include "pool/internal.h"

/* May w start the head it has just claimed? 1: yes (no host slots, or w
 * holds one). 0: not yet; what budget_claim() reserved was given back and
 * the lock may have been dropped, so the caller looks at the queue again. */
int seek_ready(pool *p, pool_worker *w);

/* w stops looking for a slot (the head went, or it waits for memory).
 * Returns 1 if the lock was dropped (to unsay that the pool waits). */
int seek_stop(pool *p, pool_worker *w);

/* Gives w's slot back, if it holds one: 0 none held, 1 given, 2 given
 * while another pool waits for a slot (only asked after a job: `ask`).
 * Without the pool lock: it calls into the lock files. Only w's own thread
 * touches its slot fields. */
int seek_give_slot(pool_worker *w, int ask);

/* Lock held, after seek_give_slot() returned `gave` (non-zero). */
void seek_slot_given(pool *p, int gave);

/* seek_give_slot() for a worker that did not run a job with it; the lock
 * is dropped meanwhile. */
void seek_drop_slot(pool *p, pool_worker *w);

/* Counts the live members of the pool's host slots again (at most every
 * HOST_SLOTS_MEMBERS_TTL_MS), outside the pool lock: it opens files. */
void seek_refresh_members(pool *p);

#endif
