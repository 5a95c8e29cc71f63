/* The workers (worker.c). The lock is held for worker_start(), and not
 * for worker_join_all(). */
#ifndef POOL_WORKER_H
#define POOL_WORKER_H

#include "pool/internal.h"

/* Starts the worker for slot `index` (growing p->workers as needed): a
 * worker there that has not left yet just keeps going, one that has left
 * is joined and started again. 0 or STATUS_ENOMEM. */
int worker_start(pool *p, unsigned index);

/* Joins every worker thread nobody else has claimed for joining. */
void worker_join_all(pool *p);

#endif
