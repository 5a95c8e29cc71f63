/* Admission decisions and retry hints (admit.h). */
#include "pool/admit.h"

#include "common/status.h"

#include <stdint.h>

enum { MAX_LEFT = POOL_MAX_THREADS };

static uint64_t slowed(const admit_view *v, uint64_t ns) {
  if (!(v->slowdown > 1)) return ns;
  double scaled = (double)ns * v->slowdown;
  return scaled >= 1e18 ? (uint64_t)1e18 : (uint64_t)scaled;
}

/* In how long a job with n jobs worth `work` ahead starts; with `within`
 * not 0, a cheap bound first, and 0 ("in time") when that bound is
 * within it. */
static uint64_t start_after(const admit_view *v, uint64_t now, uint64_t work, unsigned n,
                            uint64_t within) {
  uint64_t left[MAX_LEFT];
  unsigned nbusy = v->busy_left(v->ctx, now, left);
  if (within != 0 && slowed(v, estimate_start_bound_ns(left, nbusy, v->threads, work, n)) <= within)
    return 0;
  return slowed(v, estimate_start_ns(left, nbusy, v->threads, work, n));
}

uint64_t admit_start_ns(const sched *s, const admit_view *v, uint64_t now, uint64_t tag,
                        uint64_t seq) {
  uint64_t work;
  unsigned n;
  sched_ahead(s, tag, seq, &work, &n);
  return start_after(v, now, work, n, 0);
}

/* When a refused call placed at (tag, seq) may be served: after the jobs
 * queued ahead of it have started, and not before virtual time reaches its
 * tag (clients served less, who come back meanwhile, go first). */
static uint64_t refused_start_ns(const sched *s, const admit_view *v, uint64_t now, uint64_t tag,
                                 uint64_t seq) {
  uint64_t start = admit_start_ns(s, v, now, tag, seq), reach = sched_reach_ns(s, tag);
  return start > reach ? start : reach;
}

uint64_t admit_wait_ns(const sched *s, const admit_view *v, uint64_t now) {
  return start_after(v, now, tree_sum(&s->order), sched_queued(s), 0);
}

uint64_t admit_wait_bound_ns(const sched *s, const admit_view *v, uint64_t now) {
  uint64_t total = tree_sum(&s->order);
  unsigned n = sched_queued(s);
  uint64_t left = v->busy_until > now ? v->busy_until - now : 0;
  return slowed(v, estimate_start_bound_ns(&left, 1, v->threads, total, n != 0 ? 1 : 0));
}

double admit_level(uint64_t order, uint64_t now) {
  double rank = (double)(order >> SCHED_ARRIVAL_BITS);
  return rank / (double)(1u << SCHED_RANK_BITS) + (double)now / (double)KEYS_USE_HALF_LIFE_NS;
}

/* The hints for a call placed at `order` refused at `now` whose job would
 * start in `start` ns: that time, and for refusals that come together,
 * successive start intervals after it (the job's own thread time over the
 * pool's threads), up to a queue's worth of them, so that they do not all
 * come back at the same moment; and those times in whole seconds, spread
 * as retry_seconds.h says. */
static void hint(const admit_view *v, admit_hints *hints, uint64_t now, uint64_t start,
                 uint64_t order, pool_job *job) {
  uint64_t step = job->expect_ns / (v->threads ? v->threads : 1);
  if (step == 0) step = 1;
  /* A quarter later than the start predicted: a prediction is as often
   * early as late, and a client that comes back early is refused again
   * (a round trip lost, and its turn with it), while one that comes a
   * little late loses only the margin. sim_overload --batches: 78 % of
   * the retries at the hint got in, 83 % with it. Not for a cold guess
   * (estimate.h), in proportion to its weight: the guess is already the
   * geometric mean of its bounds, within 2x of the truth either way, and
   * a margin on top would take a cold hint past twice the drain when the
   * batches fill (bench/overload.js's cold row). */
  double cold = v->estimate != NULL ? estimate_cold(v->estimate, job->cost_class, job->cost_ns) : 0;
  uint64_t margin = (uint64_t)((double)(start / 4) * (1 - cold));
  uint64_t lo = now + (start != 0 ? start + margin : 1); /* never "now": it was just refused */
  uint64_t hi = lo + step * (v->max_queue ? v->max_queue : 1);
  uint64_t next = hints->next_ns + step;
  if (next < lo) next = lo;
  if (next > hi) next = hi;
  hints->next_ns = next;
  job->retry_after_ns = next - now;
  job->retry_after_s = retry_seconds_tell(&hints->seconds, now, job->retry_after_ns, step,
                                          v->max_queue, admit_level(order, now));
}

void admit_hint_retry(const sched *s, const admit_view *v, admit_hints *hints, pool_job *job,
                      uint64_t now) {
  uint64_t tag, seq;
  sched_place(s, job->fair_key, now, &tag, &seq);
  hint(v, hints, now, refused_start_ns(s, v, now, tag, seq), seq, job);
}

/* Whether the places are taken for a job placed at (tag, seq). Riders of a
 * batch hold places as queued jobs do, but are under way: one placed after
 * the job would have given way to it were it still queued, and cannot, so
 * the job takes a place beyond it instead (the pool then holds more than
 * threads + max_queue jobs, by at most the riders served after queued
 * ones). Otherwise batching would turn away, with nothing queued to
 * displace, the very calls fairness puts first: a client retrying at its
 * hint whose place came while the threads ran batches. */
static int places_taken(const sched *s, const admit_view *v, uint64_t tag, uint64_t seq) {
  if (v->waiting < v->places) return 0;
  unsigned queued = sched_queued(s);
  unsigned riders = v->waiting > queued ? v->waiting - queued : 0;
  if (riders == 0 || v->riders_before == NULL) return 1;
  unsigned before = v->riders_before(v->ctx, tag, seq);
  return queued + (before < riders ? before : riders) >= v->places;
}

/* The job served last gives way when `places` are taken and `job` would be
 * served before it (its place, (tag, order), is before the last one's:
 * places are unique, so two keys never displace each other in turn); `job`
 * then waits behind the same jobs as if the queue had a place, so its
 * deadline is judged on that. */
int admit_decide(const sched *s, const admit_view *v, admit_hints *hints, pool_job *job,
                 uint64_t now, pool_job **victim) {
  *victim = NULL;
  uint64_t tag, seq;
  sched_place(s, job->fair_key, now, &tag, &seq);
  if (places_taken(s, v, tag, seq)) {
    pool_job *last = sched_last(s);
    if (last == NULL || sched_placed_before(last, tag, seq)) {
      hint(v, hints, now, refused_start_ns(s, v, now, tag, seq), seq, job);
      return STATUS_EFULL;
    }
    *victim = last;
  }
  if (job->deadline_ns != 0) {
    /* Far from its deadline (the default pool's 2 s, microseconds of work
     * ahead), a bound settles it without the search: first one over the
     * whole queue, which needs no walk of the tree (the work ahead of the
     * job, and its average, are at most the queue's work), then one over
     * the jobs ahead of it. */
    uint64_t within = job->deadline_ns > now ? job->deadline_ns - now : 1;
    uint64_t work, start;
    unsigned n;
    /* Over the whole queue: its work stands for the work ahead and for
     * the average job ahead alike. */
    if (admit_wait_bound_ns(s, v, now) <= within) return 0;
    sched_ahead(s, tag, seq, &work, &n);
    start = start_after(v, now, work, n, within);
    if (now + start > job->deadline_ns) {
      *victim = NULL;
      hint(v, hints, now, start, seq, job);
      return STATUS_ETIMEDOUT; /* it would start too late: say so now, not later */
    }
  }
  return 0;
}
