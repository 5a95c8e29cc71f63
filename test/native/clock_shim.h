/* A wall clock that tests can step (clock_shim.c). Linux only. */
#ifndef TEST_CLOCK_SHIM_H
#define TEST_CLOCK_SHIM_H

#include <stdint.h>

/* From now on, every read of the wall clock (clock_gettime of a realtime
 * clock, gettimeofday, time) in this process gives the real time plus
 * `ns` (0: the real time again). */
void clock_shim_step(int64_t ns);

#endif
