/* The deadline timer (deadline.c). */
#ifndef POOL_DEADLINE_H
#define POOL_DEADLINE_H

#include "pool/internal.h"

/* Starts the pool's timer thread (lock not held, at pool_create). 0 or
 * STATUS_ENOMEM. */
int deadline_start(pool *p);

/* Joins the timer thread unless another thread has claimed it (lock not
 * held). `closing` or `stop` must be set and timer_wake broadcast. */
void deadline_join(pool *p);

#endif
