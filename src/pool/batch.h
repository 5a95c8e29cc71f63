/* Batches (batch.c). */
#ifndef POOL_BATCH_H
#define POOL_BATCH_H

#include "pool/internal.h"

/* Runs `head`, which w has claimed (it has a batch_key and a work_batch),
 * together with the compatible jobs behind it, all claimed at `now`. Lock
 * held on entry and on return (dropped while the batch runs). */
void batch_run(pool *p, pool_worker *w, pool_job *head, uint64_t now);

#endif
