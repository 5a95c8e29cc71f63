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

uint64_t admit_wait_ns(const sched *s, const admit_view *v, uint64_t now) {
  return start_after(v, now, tree_sum(&s->order), sched_queued(s), 0);
}

uint64_t admit_wait_bound_ns(const sched *s, const admit_view *v, uint64_t now) {
  uint64_t total = tree_sum(&s->order);
  unsigned n = sched_queued(s);
  uint64_t left = v->busy_until > now ? v->busy_until - now : 0;
  return slowed(v, estimate_start_bound_ns(&left, 1, v->threads, total, n != 0 ? 1 : 0));
}

double admit_level(uint64_t tag, uint64_t expect_ns) {
  return (double)tag / (double)(expect_ns != 0 ? expect_ns : 1);
}

/* The hints for a call placed at `tag` refused at `now` whose job would
 * start in `start` ns: that time, and for refusals that come together,
 * successive start intervals after it (the job's own thread time over the
 * pool's threads), so that they do not all come back at the same moment;
 * never more than twice the start plus one interval (a hint stays bounded
 * by the drain). And those times in whole seconds, spread as
 * retry_seconds.h says. */
static void hint(const admit_view *v, admit_hints *hints, uint64_t now, uint64_t start,
                 uint64_t tag, pool_job *job) {
  uint64_t step = job->expect_ns / (v->threads ? v->threads : 1);
  if (step == 0) step = 1;
  /* A quarter later than the start foretold: run times vary, and a client
   * back before its place is reached is refused again (a round trip and a
   * call lost), while one a little late loses only the margin. Not for a
   * cold guess (estimate.h), in proportion to its weight: the guess is the
   * geometric mean of its bounds, within 2x of the truth either way
   * already. */
  double cold = v->estimate != NULL ? estimate_cold(v->estimate, job->cost_class, job->cost_ns) : 0;
  uint64_t margin = (uint64_t)((double)(start / 4) * (1 - cold));
  uint64_t spread = step * (v->max_queue ? v->max_queue : 1);
  if (spread > start - margin + step) spread = start - margin + step;
  uint64_t lo = now + (start != 0 ? start + margin : 1); /* never "now": it was just refused */
  uint64_t hi = lo + spread;
  uint64_t next = hints->next_ns + step;
  if (next < lo) next = lo;
  if (next > hi) next = hi;
  hints->next_ns = next;
  job->retry_after_ns = next - now;
  job->retry_after_s = retry_seconds_tell(&hints->seconds, now, job->retry_after_ns, step,
                                          v->max_queue, admit_level(tag, job->expect_ns));
}

/* Promises `job`'s key the place (tag, order) for a return inside the
 * window its hints say. */
static void promise_place(admit_hints *hints, const pool_job *job, uint64_t tag, uint64_t order,
                          uint64_t now) {
  promise p = { .key = job->fair_key, .tag = tag, .order = order };
  promise_window(now, job->retry_after_ns, job->retry_after_s, &p.due_ns, &p.until_ns);
  promises_keep(&hints->kept, &p, now);
}

void admit_hint_retry(sched *s, const admit_view *v, admit_hints *hints, pool_job *job,
                      uint64_t now) {
  uint64_t tag, order;
  sched_place(s, job->fair_key, &tag, &order);
  hint(v, hints, now, admit_start_ns(s, v, now, tag, order), tag, job);
  promise_place(hints, job, tag, sched_next_arrival(s), now);
}

/* Of the riders counted in `waiting`, those that hold a place against a
 * call of `key` at (tag, seq) (all of them when the view cannot tell). */
static unsigned riders_holding(const sched *s, const admit_view *v, uint64_t key, uint64_t tag,
                               uint64_t seq) {
  unsigned queued = sched_queued(s);
  unsigned riders = v->waiting > queued ? v->waiting - queued : 0;
  if (riders == 0 || v->riders_before == NULL) return riders;
  unsigned before = v->riders_before(v->ctx, key, tag, seq);
  return before < riders ? before : riders;
}

/* Whether the places are taken for a job placed at (tag, seq). Riders of a
 * batch hold places as queued jobs do, but are under way: one placed after
 * the job would have given way to it were it still queued, and cannot, so
 * the job takes a place beyond it instead (the pool then holds more than
 * threads + max_queue jobs, by at most the riders served after queued
 * ones). Otherwise batching would turn away, with nothing queued to
 * displace, the very calls fairness puts first. */
static int places_taken(const sched *s, const admit_view *v, uint64_t key, uint64_t tag,
                        uint64_t seq) {
  if (v->waiting < v->places) return 0;
  return sched_queued(s) + riders_holding(s, v, key, tag, seq) >= v->places;
}

/* Whether the jobs placed before (tag, seq) leave it one of the places: a
 * promised place is taken beyond the bound only once the work placed
 * before it has started, as its hint said (calls placed after it then
 * hold the places). An early hint or a slow run keeps it out. */
static int promise_reached(const sched *s, const admit_view *v, uint64_t key, uint64_t tag,
                           uint64_t seq) {
  uint64_t work;
  unsigned n;
  sched_ahead(s, tag, seq, &work, &n);
  return n + riders_holding(s, v, key, tag, seq) < v->places;
}

/* `job`, placed at (tag, seq), is refused at `now` (`start`: when it would
 * start, if known). A call that came before its promised place was due
 * (`early`: it asks again and again, as a flood does) is charged
 * (sched_refused: one job, boundedly) and promised the place it has then;
 * any other is promised the place it had. The hints are for the place
 * promised. */
static void refuse(sched *s, const admit_view *v, admit_hints *hints, pool_job *job, uint64_t now,
                   uint64_t tag, uint64_t seq, const promise *kept, int early, uint64_t start) {
  if (early) {
    sched_refused(s, job->fair_key, job->expect_ns);
    uint64_t before = tag;
    tag = sched_tag(s, job->fair_key);
    if (tag != before) start = 0;
  }
  if (kept == NULL) seq = sched_next_arrival(s);
  if (start == 0) start = admit_start_ns(s, v, now, tag, seq);
  hint(v, hints, now, start, tag, job);
  promise_place(hints, job, tag, seq, now);
}

/* The promise `job` may keep at `now`: one inside its window, for a place
 * before its own, behind its key's queued jobs. */
static const promise *promise_kept(const sched *s, admit_hints *hints, const pool_job *job,
                                   uint64_t now, uint64_t tag, uint64_t order, int *early) {
  const promise *p = promises_due(&hints->kept, job->fair_key, now, early);
  if (p == NULL || !(p->tag < tag || (p->tag == tag && p->order < order))) return NULL;
  const key_state *k = keys_find(&s->keys, job->fair_key);
  if (k != NULL && k->tail != NULL && k->tail->tag > p->tag) return NULL;
  return p;
}

/* When the places are taken, the job served last gives way if it stands
 * more than one of `job`'s jobs behind it (admit_gives_way), and a job
 * that keeps a promise enters beyond the bound once its place is reached
 * (promise.h; it displaces nobody: its place is as old as its refusal,
 * and virtual time has moved since); otherwise
 * `job` is refused, with the place it had promised for its return. A job
 * that enters waits behind the same jobs as if the queue had a place, so
 * its deadline is judged on that. */
int admit_decide(sched *s, const admit_view *v, admit_hints *hints, pool_job *job, uint64_t now,
                 pool_job **victim, admit_place *place) {
  *victim = NULL;
  uint64_t tag, seq;
  sched_place(s, job->fair_key, &tag, &seq);
  int early;
  const promise *kept = promise_kept(s, hints, job, now, tag, seq, &early);
  *place = (admit_place){ 0 };
  if (kept != NULL) {
    tag = kept->tag;
    seq = kept->order;
    *place = (admit_place){ .tag = tag, .order = seq, .kept = kept };
  }
  if (places_taken(s, v, job->fair_key, tag, seq)) {
    pool_job *last = sched_last(s);
    if (kept == NULL && last != NULL && admit_gives_way(last->tag, tag, job->expect_ns)) {
      *victim = last;
    } else if (kept == NULL || v->max_queue == 0 ||
               !promise_reached(s, v, job->fair_key, tag, seq)) {
      refuse(s, v, hints, job, now, tag, seq, kept, early, 0);
      return STATUS_EFULL;
    }
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
    if (admit_wait_bound_ns(s, v, now) <= within) return 0;
    sched_ahead(s, tag, seq, &work, &n);
    start = start_after(v, now, work, n, within);
    if (now + start > job->deadline_ns) {
      *victim = NULL;
      refuse(s, v, hints, job, now, tag, seq, kept, early, start);
      return STATUS_ETIMEDOUT; /* it would start too late: say so now, not later */
    }
  }
  return 0;
}
