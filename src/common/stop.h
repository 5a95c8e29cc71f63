/* The stop flag that long computations poll. The pool raises it from
 * another thread at process exit; whoever runs the job hands the algorithm
 * a pointer to it (or NULL: never stops). */
#ifndef COMMON_STOP_H
#define COMMON_STOP_H

/* An atomic load, because a plain read of a flag another thread writes
 * would be a data race. */
static inline int stop_requested(const volatile int *stop) {
  return stop != NULL && __atomic_load_n(stop, __ATOMIC_RELAXED) != 0;
}

#endif
