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

/* The promises to clients at most `most` that lie in [from, from + width):
 * one window. A due or free entry before `from` wraps past it. */
static unsigned count_from(const retry_seconds *r, uint64_t from, uint64_t width, double most) {
  unsigned n = 0;
  for (unsigned i = 0; i < RETRY_SECONDS_MEMORY; i++)
    n += (unsigned)(r->at_ns[i] - from < width) & (unsigned)(r->level[i] <= most);
  return n;
}

unsigned retry_seconds_counted(const retry_seconds *r, uint64_t at_ns, double level,
                               uint64_t window_ns) {
  return count_from(r, at_ns - window_ns + 1, 2 * window_ns - 1, level + RETRY_SECONDS_SLACK);
}

unsigned retry_seconds_tell(retry_seconds *r, uint64_t now, uint64_t hint_ns, uint64_t step_ns,
                            unsigned places, double level) {
  uint64_t window;
  unsigned room;
  retry_seconds_window(step_ns, places, &window, &room);
  uint64_t first = hint_ns / SECOND_NS + (hint_ns % SECOND_NS != 0);
  if (first == 0) first = 1;
  if (first > UINT32_MAX - RETRY_SECONDS_SPREAD) first = UINT32_MAX - RETRY_SECONDS_SPREAD;

  /* What counts against candidate k: a promise to a client placed no
   * later, within `window` of the return at now + (first + k) s, i.e. at
   * most width - 1 past `from`. A due promise (at <= now) counts against
   * none, every candidate being a second or more away: at - from wraps.
   * The first second with room ends the search (most refusals look at
   * one). The first pass is count_from's, and also finds the entry the
   * promise will take: one that has come due, else the heaviest client's
   * if heavier than this one (else it is not kept). */
  uint64_t from = now + first * SECOND_NS - window + 1; /* first >= 1 s > window */
  uint64_t width = 2 * window - 1;
  double most = level + RETRY_SECONDS_SLACK;
  unsigned pick = 0, fewest = UINT32_MAX, due = RETRY_SECONDS_MEMORY, heaviest = 0;
  for (unsigned k = 0; k <= RETRY_SECONDS_SPREAD; k++, from += SECOND_NS) {
    unsigned n = 0;
    if (k == 0) {
      for (unsigned i = 0; i < RETRY_SECONDS_MEMORY; i++) {
        uint64_t at = r->at_ns[i];
        double l = r->level[i];
        n += (unsigned)(at - from < width) & (unsigned)(l <= most);
        due = at <= now ? i : due;
        heaviest = l > r->level[heaviest] ? i : heaviest;
      }
    } else {
      n = count_from(r, from, width, most);
    }
    if (n < room) {
      pick = k;
      break;
    }
    if (n < fewest) fewest = n, pick = k;
  }
  int slot = due < RETRY_SECONDS_MEMORY   ? (int)due
             : r->level[heaviest] > level ? (int)heaviest
                                          : -1;
  if (slot >= 0) {
    r->at_ns[slot] = now + (first + pick) * SECOND_NS;
    r->level[slot] = level;
  }
  return (unsigned)(first + pick);
}
