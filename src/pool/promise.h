/* Places promised with a refusal (promise.c), so that a client that comes
 * back when it was told to is served where it stood, whatever came in
 * meanwhile.
 *
 * A refused call is told when the jobs placed before it will have started
 * (admit.c). Calls that arrive in the meantime are placed after it (a
 * later arrival at the same or a later tag), but they are there when it
 * comes back, and would take the places it was promised. So the pool
 * remembers, for each refused key, the place it had (tag, arrival) and the
 * window in which it is to return:
 *   due    the hint less a little (PROMISE_EARLY_NS, at most half the
 *          hint): a timer that fires a hair early still counts;
 *   until  the hint plus PROMISE_LATE_NS or half the hint, and for a
 *          client told whole seconds (Retry-After), those seconds plus
 *          PROMISE_SECONDS_LATE_NS: a round trip and a timer's lateness.
 * A call of that key inside the window takes the promised place (if it
 * is before its own) and, once fewer jobs than the places are placed
 * before it (the drain its hint foretold has come), is admitted even when
 * the places are taken by calls placed after it: the queue then holds
 * more than its bound, by at most the promises kept (PROMISE_MAX). A call before the window forfeits the promise (a client
 * that polls is not helped); after it, the promise is gone.
 *
 * The memory is PROMISE_MAX promises, one per key (a new one replaces the
 * key's own). When it is full, a new promise takes the place of one whose
 * window has passed, or else of the one placed last, if it is placed
 * after the new one; otherwise it is not kept. A flood's refusals, placed
 * after the clients that asked less, cannot push their promises out.
 *
 * A data structure only, under the pool's lock; O(PROMISE_MAX) per call
 * over an array of keys, nothing allocated. */
#ifndef POOL_PROMISE_H
#define POOL_PROMISE_H

#include <stdint.h>

#define PROMISE_MAX             256
#define PROMISE_EARLY_NS        (1ull * 1000 * 1000)
#define PROMISE_LATE_NS         (10ull * 1000 * 1000)
#define PROMISE_SECONDS_LATE_NS (250ull * 1000 * 1000)

typedef struct {
  uint64_t key, tag, order, due_ns, until_ns;
} promise;

typedef struct {
  unsigned n;                   /* entries in use: [0, n) */
  uint64_t keys[PROMISE_MAX];   /* scanned alone */
  promise entries[PROMISE_MAX]; /* entries[i].key == keys[i] */
} promises;

static inline void promises_init(promises *ps) { ps->n = 0; }

/* The window of a promise made at `now` with a hint of `hint_ns` and, if
 * not 0, `seconds` for Retry-After. */
void promise_window(uint64_t now, uint64_t hint_ns, unsigned seconds, uint64_t *due_ns,
                    uint64_t *until_ns);
/* Keeps `p` (see above for when it is not kept). */
void promises_keep(promises *ps, const promise *p, uint64_t now);
/* The promise to `key` that a call at `now` may take, or NULL; one whose
 * window has not come yet is forfeited (*early set: the client asks
 * again before it was told to), one that has passed dropped. */
const promise *promises_due(promises *ps, uint64_t key, uint64_t now, int *early);
/* Takes a promise out (it was kept: its call was admitted). */
void promises_drop(promises *ps, const promise *p);

#endif
