/* Whole-second retry hints (retry_seconds.h). */
#include "pool/retry_seconds.h"

#include <stdint.h>

#define SECOND_NS 1000000000ull

void retry_seconds_window(uint64_t step_ns, unsigned places, uint64_t *window_ns, unsigned *room) {
  if (step_ns == 0) step_ns = 1;
  uint64_t fit = RETRY_SECONDS_WINDOW_MAX_NS / step_ns; /* starts the widest window holds */
  uint64_t n = places ? places : 1;
  if (n > RETRY_SECONDS_MEMORY / 2) n = RETRY_SECONDS_MEMORY / 2;
  if (n > fit) n = fit;
  if (n == 0) n = 1; /* one job takes longer than the widest window: room for one */
  *room = (unsigned)n;
  uint64_t w = n * step_ns;
  *window_ns = w < RETRY_SECONDS_WINDOW_MAX_NS ? w : RETRY_SECONDS_WINDOW_MAX_NS;
}

static int counts_against(const retry_promise *e, uint64_t at_ns, double level,
                          uint64_t window_ns) {
  if (e->at_ns == 0 || e->level > level + RETRY_SECONDS_SLACK) return 0;
  uint64_t apart = e->at_ns > at_ns ? e->at_ns - at_ns : at_ns - e->at_ns;
  return apart < window_ns;
}

unsigned retry_seconds_counted(const retry_seconds *r, uint64_t at_ns, double level,
                               uint64_t window_ns) {
  unsigned n = 0;
  for (unsigned i = 0; i < RETRY_SECONDS_MEMORY; i++)
    n += (unsigned)counts_against(&r->promised[i], at_ns, level, window_ns);
  return n;
}

unsigned retry_seconds_tell(retry_seconds *r, uint64_t now, uint64_t hint_ns, uint64_t step_ns,
                            unsigned places, double level) {
  uint64_t window;
  unsigned room;
  retry_seconds_window(step_ns, places, &window, &room);
  uint64_t first = hint_ns / SECOND_NS + (hint_ns % SECOND_NS != 0);
  if (first == 0) first = 1;
  if (first > UINT32_MAX - RETRY_SECONDS_SPREAD) first = UINT32_MAX - RETRY_SECONDS_SPREAD;

  /* One pass: what counts against each candidate second, and the entry a
   * new promise would take (a passed one, else the heaviest client's). A
   * promise due by now counts against none: every candidate is a second
   * or more away, a window at most half of one. */
  unsigned counted[RETRY_SECONDS_SPREAD + 1] = { 0 };
  int slot = -1, heaviest = -1;
  for (unsigned i = 0; i < RETRY_SECONDS_MEMORY; i++) {
    const retry_promise *e = &r->promised[i];
    if (e->at_ns <= now) {
      if (slot < 0) slot = (int)i;
      continue;
    }
    if (heaviest < 0 || e->level > r->promised[heaviest].level) heaviest = (int)i;
    for (unsigned k = 0; k <= RETRY_SECONDS_SPREAD; k++)
      counted[k] += (unsigned)counts_against(e, now + (first + k) * SECOND_NS, level, window);
  }
  unsigned pick = 0;
  for (unsigned k = 0; k <= RETRY_SECONDS_SPREAD; k++) {
    if (counted[k] < room) {
      pick = k;
      break;
    }
    if (counted[k] < counted[pick]) pick = k;
  }
  if (slot < 0 && heaviest >= 0 && r->promised[heaviest].level > level) slot = heaviest;
  if (slot >= 0) r->promised[slot] = (retry_promise){ now + (first + pick) * SECOND_NS, level };
  return (unsigned)(first + pick);
}
