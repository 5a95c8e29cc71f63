/* Whole-second retry hints (retry_seconds.c), for clients that can only be
 * told whole seconds: HTTP's Retry-After.
 *
 * A refusal's hint (admit.c) is in nanoseconds, and refusals that come
 * together are told successive times. Rounded up to whole seconds, those
 * times become one: clients refused in the same moment would all come back
 * in the same moment a second later, and find as many places as a moment
 * holds. So each refusal is told the first whole second, from its own
 * hint's rounded up to RETRY_SECONDS_SPREAD more, at which fewer than
 * `room` other returns are promised within a window around it:
 *   - window: `room` start intervals (a job's share of the threads: how
 *     long the pool takes to start that many jobs) either side of the
 *     return, at most RETRY_SECONDS_WINDOW_MAX_NS;
 *   - room: the queue's places, at most what the window starts and at
 *     most half the memory (so that the memory holds two windows' worth);
 *   - only promises to clients placed no later than this one count: those
 *     whose level (the place's start tag in the call's own job times; see
 *     admit.c) is at most RETRY_SECONDS_SLACK (jobs) above its own. A
 *     client placed far later is served after it, whenever both come
 *     back, so a flood's own promises never push a light client's return
 *     back.
 * When every second up to the spread is taken, the one with the fewest
 * promises (the earliest of them) is told.
 *
 * The memory is RETRY_SECONDS_MEMORY promises. A new one takes the place
 * of one that has come due, or else of the promise to the client
 * placed last, if it is placed after this one (otherwise it is not
 * kept): a flood's many refusals cannot push the promises of light
 * clients out of it.
 *
 * A data structure only: the pool's lock guards it; every call is
 * O(RETRY_SECONDS_MEMORY), one pass without a branch that depends on
 * the data but one, and allocates nothing (a refusal costs a few hundred
 * instructions more: refusals come by the hundred thousand a second when
 * a service is overloaded). */
#ifndef POOL_RETRY_SECONDS_H
#define POOL_RETRY_SECONDS_H

#include <stdint.h>

#define RETRY_SECONDS_MEMORY        64
#define RETRY_SECONDS_SPREAD        2
#define RETRY_SECONDS_WINDOW_MAX_NS (500ull * 1000 * 1000)
#define RETRY_SECONDS_SLACK         2.0

/* Promise i: when the client was told to come back (at_ns[i]; 0: a free
 * entry), and its level when told. Two arrays, so that a count reads
 * only what it compares. */
typedef struct {
  uint64_t at_ns[RETRY_SECONDS_MEMORY];
  double level[RETRY_SECONDS_MEMORY];
} retry_seconds;

/* The window and room for jobs `step_ns` apart (>= 1) on a queue of
 * `places` (>= 1 used). */
void retry_seconds_window(uint64_t step_ns, unsigned places, uint64_t *window_ns, unsigned *room);

/* How many promises the memory holds that count against a return at
 * `at_ns` of a client at `level`, for `window_ns`. */
unsigned retry_seconds_counted(const retry_seconds *r, uint64_t at_ns, double level,
                               uint64_t window_ns);

/* The whole seconds (>= 1) to tell a client at `level` refused at `now`
 * whose hint is `hint_ns`, for jobs `step_ns` apart on a queue of
 * `places`; the promise is remembered. */
unsigned retry_seconds_tell(retry_seconds *r, uint64_t now, uint64_t hint_ns, uint64_t step_ns,
                            unsigned places, double level);

#endif
