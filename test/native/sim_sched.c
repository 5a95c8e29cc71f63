/* A deterministic simulation of the queue's discipline on a virtual clock:
 * the pool's own admission (admit.c), order (sched.c, keys.c, tree.c) and
 * learned costs (estimate.c), driven the way queue.c, worker.c, batch.c and
 * deadline.c drive them, by random keys, costs, arrivals, aborts,
 * deadlines, batches, resizes and closes. After every event it checks the
 * properties stated under Fairness in the DESIGN comment of pool.c:
 *
 *   work-conserving  no thread is idle while a job waits;
 *   order            a thread always starts the queued job with the
 *                    smallest (tag, arrival); riders of a batch come from
 *                    the window of jobs served right after it;
 *   bounded lag      while key A has queued jobs, no key B starts more
 *                    work than A advances, plus A's lead when it began to
 *                    wait, plus one of B's jobs (plus the batch window's
 *                    riders where batches run);
 *   no idle place    'queue_full' only when threads + max_queue jobs are
 *                    in the pool and none would be served after the caller;
 *                    a displaced job was the one served last, with a tag
 *                    greater than the caller's;
 *   deadlines fire   no job is queued past its deadline; a 'deadline'
 *                    refusal at submit means the job would have started
 *                    after its deadline (list scheduling of the jobs served
 *                    before it, where the run times are what was expected);
 *   whole seconds    a refusal's Retry-After seconds are its hint's,
 *                    rounded up, plus at most RETRY_SECONDS_SPREAD; later
 *                    than the hint's only when at least `room` promises
 *                    to clients placed no later already fall within the
 *                    window of each earlier second; and, while the memory
 *                    has held every pending promise, the first second
 *                    short of `room` is the one told (retry_seconds.h);
 *   exactly once     every accepted job ends once, and key states are
 *                    freed (nkeys == keys with queued jobs; memory bounded);
 *   O(log n)         each operation takes O(log queued) steps (tree nodes,
 *                    hash links, memory ways; start-time search steps are
 *                    O(threads) each).
 *
 * Usage: sim_sched [seeds [first-seed]] (npm test runs a few seeds, the
 * whole chain many: test/native/sched.mk's SEEDS). */
#include "check.h"
#include "common/status.h"
#include "pool/admit.h"
#include "pool/estimate.h"
#include "pool/sched.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long pool_steps;

#define MAX_THREADS 6
#define MAX_KEYS    12
#define MAX_JOBS    2500
#define WINDOW      16 /* POOL_BATCH_WINDOW */
#define MAX_BATCH   4

enum { NEW, QUEUED, RUNNING, ENDED, REFUSED };

typedef struct {
  pool_job base; /* first: the discipline hands back pool_job pointers */
  unsigned key;
  unsigned group;  /* batch group, 0: runs alone */
  double factor;   /* run time over expected run time */
  int state, ends; /* ends: how many times it ended (must be 1 once accepted) */
  uint64_t end_at; /* when it ends, while running */
  unsigned thread;
} job;

typedef struct {
  job *run[MAX_BATCH];
  unsigned n;
  uint64_t started, expect_end;
} thread;

typedef struct {
  uint64_t id;   /* the seed's number, for messages */
  uint64_t seed; /* the generator's state */
  uint64_t now;
  sched s;
  estimate e;
  admit_hints hints;
  /* Every whole-second promise still pending (at > now), as retry_seconds
   * would count them with a memory of any size; `crowded_until`: until
   * then, its memory may have had to drop one. */
  struct {
    uint64_t at;
    double level;
  } promised[MAX_JOBS];
  unsigned npromised;
  uint64_t crowded_until;
  unsigned threads, max_queue;
  thread t[MAX_THREADS];
  unsigned queued, running, busy;
  job jobs[MAX_JOBS];
  unsigned njobs;
  /* Config of this seed. */
  unsigned nkeys, flooders, batches, exact;
  uint64_t mean_gap, base_cost;
  /* Lag: per key, the work started (expected thread time), and for a key
   * with queued jobs, the moment its wait began. */
  double started[MAX_KEYS];
  int waiting[MAX_KEYS];
  double since_started[MAX_KEYS][MAX_KEYS];
  uint64_t head_tag0[MAX_KEYS], lead0[MAX_KEYS];
  double max_cost[MAX_KEYS];
  unsigned long events, refusals_full, refusals_deadline, displaced, shed, cancels, worst_steps;
} sim;

static uint64_t rnd(sim *m, uint64_t n) {
  m->seed ^= m->seed << 13;
  m->seed ^= m->seed >> 7;
  m->seed ^= m->seed << 17;
  return n != 0 ? m->seed % n : m->seed;
}

static unsigned log2_ceil(unsigned n) {
  unsigned b = 0;
  while ((1u << b) < n) b++;
  return b;
}

/* ---- the view admission gets, as queue.c builds it ---- */

static unsigned busy_left(const void *ctx, uint64_t now, uint64_t *left) {
  const sim *m = ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < m->threads && i < MAX_THREADS; i++)
    if (m->t[i].n != 0) left[n++] = estimate_left_ns(m->t[i].started, m->t[i].expect_end, now);
  return n;
}

/* Of each busy thread's jobs under way, those placed before (tag, order),
 * less the one the thread stands for (queue.c's riders_before). */
static unsigned riders_before(const void *ctx, uint64_t tag, uint64_t order) {
  const sim *m = ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < MAX_THREADS; i++) {
    const thread *t = &m->t[i];
    unsigned before = 0;
    for (unsigned k = 0; k < t->n; k++) before += sched_placed_before(&t->run[k]->base, tag, order);
    if (t->n != 0) n += before < t->n - 1 ? before : t->n - 1;
  }
  return n;
}

static admit_view view_of(const sim *m) {
  admit_view v = { .threads = m->threads,
                   .max_queue = m->max_queue,
                   .slowdown = 1,
                   .busy_left = busy_left,
                   .riders_before = riders_before,
                   .ctx = m,
                   .estimate = &m->e };
  v.waiting = m->queued + (m->running > m->busy ? m->running - m->busy : 0);
  v.places = m->max_queue + (m->threads > m->busy ? m->threads - m->busy : 0);
  /* The pool keeps a looser bound (the latest since all were idle); the
   * tightest one is what any bound must stay above. */
  for (unsigned i = 0; i < m->threads && i < MAX_THREADS; i++)
    if (m->t[i].n != 0 && m->t[i].expect_end > v.busy_until) v.busy_until = m->t[i].expect_end;
  return v;
}

/* ---- steps ---- */

static void check_steps(sim *m, const char *what, unsigned extra) {
  unsigned bound = 12 * (log2_ceil(m->queued + 2) + 2) + 2 * KEYS_WAYS + extra;
  if (pool_steps > m->worst_steps) m->worst_steps = pool_steps;
  CHECK_MSG(pool_steps <= bound, "seed %llu: %s took %lu steps (bound %u, %u queued)",
            (unsigned long long)m->id, what, pool_steps, bound, m->queued);
}

/* The start-time search: ~40 rounds of one step per busy thread. */
static unsigned search_steps(const sim *m) { return 50 * (m->threads + MAX_THREADS + 1); }

/* ---- lag bookkeeping ---- */

static job *head_of_key(sim *m, unsigned key) {
  job *best = NULL;
  for (unsigned i = 0; i < m->njobs; i++) {
    job *j = &m->jobs[i];
    if (j->state == QUEUED && j->key == key &&
        (best == NULL || j->base.order_node.k2 < best->base.order_node.k2))
      best = j;
  }
  return best;
}

static void lag_begin(sim *m, unsigned key, const job *first) {
  m->waiting[key] = 1;
  for (unsigned b = 0; b < m->nkeys; b++) m->since_started[key][b] = m->started[b];
  m->head_tag0[key] = first->base.tag;
  m->lead0[key] = first->base.tag > m->s.vtime ? first->base.tag - m->s.vtime : 0;
}

static void check_lag(sim *m) {
  for (unsigned a = 0; a < m->nkeys; a++) {
    job *h = head_of_key(m, a);
    if (h == NULL) {
      m->waiting[a] = 0;
      continue;
    }
    if (!m->waiting[a]) lag_begin(m, a, h);
    double advanced = (double)(h->base.tag - m->head_tag0[a]);
    for (unsigned b = 0; b < m->nkeys; b++) {
      if (b == a) continue;
      double got = m->started[b] - m->since_started[a][b];
      double slack = (double)m->lead0[a] + m->max_cost[b] * (m->batches ? WINDOW + 1 : 1) + 1;
      CHECK_MSG(got - advanced <= slack,
                "seed %llu: key %u got %.0f while key %u advanced %.0f (lead %llu, max job %.0f)",
                (unsigned long long)m->id, b, got, a, advanced, (unsigned long long)m->lead0[a],
                m->max_cost[b]);
    }
  }
}

/* ---- whole-second hints ---- */

static unsigned promised_against(const sim *m, uint64_t at, double level, uint64_t window) {
  unsigned n = 0;
  for (unsigned i = 0; i < m->npromised; i++) {
    uint64_t apart = m->promised[i].at > at ? m->promised[i].at - at : at - m->promised[i].at;
    n += m->promised[i].level <= level + RETRY_SECONDS_SLACK && apart < window;
  }
  return n;
}

/* `j` was just told its hints, placed at `order`. */
static void check_seconds(sim *m, const job *j, uint64_t order) {
  const uint64_t second = 1000000000ull;
  unsigned live = 0;
  for (unsigned i = 0; i < m->npromised; i++)
    if (m->promised[i].at > m->now) m->promised[live++] = m->promised[i];
  m->npromised = live;
  uint64_t hint = j->base.retry_after_ns, told = j->base.retry_after_s;
  uint64_t first = hint / second + (hint % second != 0);
  if (first == 0) first = 1;
  CHECK_MSG(told >= first && told <= first + RETRY_SECONDS_SPREAD,
            "seed %llu: hint %llu ns told as %llu s", (unsigned long long)m->id,
            (unsigned long long)hint, (unsigned long long)told);
  double level = admit_level(order, m->now);
  uint64_t step = j->base.expect_ns / (m->threads ? m->threads : 1), window;
  unsigned room;
  retry_seconds_window(step, m->max_queue, &window, &room);
  unsigned n[RETRY_SECONDS_SPREAD + 1], expected = RETRY_SECONDS_SPREAD + 1;
  for (unsigned k = 0; k <= RETRY_SECONDS_SPREAD; k++) {
    n[k] = promised_against(m, m->now + (first + k) * second, level, window);
    if (k < told - first)
      CHECK_MSG(n[k] >= room, "seed %llu: told %llu s, but %llu s had %u of %u promised",
                (unsigned long long)m->id, (unsigned long long)told,
                (unsigned long long)(first + k), n[k], room);
    if (n[k] < room && expected > RETRY_SECONDS_SPREAD) expected = k;
  }
  if (expected > RETRY_SECONDS_SPREAD) /* every second taken: the least taken, the earliest */
    for (unsigned k = expected = 0; k <= RETRY_SECONDS_SPREAD; k++)
      if (n[k] < n[expected]) expected = k;
  if (m->now >= m->crowded_until)
    CHECK_MSG(told == first + expected,
              "seed %llu: told %llu s, not %llu s (%u, %u, %u promised of %u)",
              (unsigned long long)m->id, (unsigned long long)told,
              (unsigned long long)(first + expected), n[0], n[1], n[2], room);
  if (live >= RETRY_SECONDS_MEMORY) {
    uint64_t last = 0;
    for (unsigned i = 0; i < live; i++)
      if (m->promised[i].at > last) last = m->promised[i].at;
    if (last + 1 > m->crowded_until) m->crowded_until = last + 1;
  }
  if (m->npromised < MAX_JOBS) {
    m->promised[m->npromised].at = m->now + told * second;
    m->promised[m->npromised++].level = level;
  }
}

/* ---- ends ---- */

static void end_job(sim *m, job *j, int status) {
  (void)status;
  j->ends++;
  CHECK_MSG(j->ends == 1, "seed %llu: job %ld ended %d times", (unsigned long long)m->id,
            (long)(j - m->jobs), j->ends);
  j->state = ENDED;
}

static void leave_unrun(sim *m, job *j, int status) {
  pool_steps = 0;
  sched_remove(&m->s, &j->base, m->now);
  check_steps(m, "remove", 0);
  m->queued--;
  if (status == STATUS_ETIMEDOUT || status == STATUS_EDISPLACED) {
    admit_view v = view_of(m);
    pool_steps = 0;
    admit_hint_retry(&m->s, &v, &m->hints, &j->base, m->now);
    check_steps(m, "hint", search_steps(m));
    uint64_t tag, order;
    sched_place(&m->s, j->base.fair_key, m->now, &tag, &order);
    check_seconds(m, j, order);
    sched_refused(&m->s, &j->base, m->now);
    CHECK(j->base.retry_after_ns > 0);
  }
  if (m->queued == 0 && m->running == 0) sched_idle(&m->s);
  end_job(m, j, status);
}

/* ---- starting jobs, as worker.c and batch.c do ---- */

static void start(sim *m, job *j, unsigned ti, int head) {
  pool_steps = 0;
  sched_start(&m->s, &j->base, head, m->now);
  check_steps(m, "start", 0);
  m->queued--;
  m->running++;
  j->state = RUNNING;
  j->thread = ti;
  double run = (double)estimate_run_ns(&m->e, j->base.cost_class, j->base.cost_ns) * j->factor;
  j->end_at = m->now + (uint64_t)run + 1;
  m->started[j->key] += (double)j->base.expect_ns;
  thread *t = &m->t[ti];
  t->run[t->n++] = j;
}

static void dispatch(sim *m) {
  for (unsigned ti = 0; ti < m->threads && ti < MAX_THREADS; ti++) {
    thread *t = &m->t[ti];
    if (t->n != 0) continue;
    pool_steps = 0;
    job *h = (job *)sched_head(&m->s);
    check_steps(m, "head", 0);
    if (h == NULL) return;
    /* Order: the head has the smallest (tag, arrival) of the queued jobs. */
    for (unsigned i = 0; i < m->njobs; i++) {
      const job *x = &m->jobs[i];
      if (x->state != QUEUED) continue;
      CHECK_MSG(x->base.tag > h->base.tag ||
                    (x->base.tag == h->base.tag && x->base.order_node.k2 >= h->base.order_node.k2),
                "seed %llu: the head is not the smallest tag", (unsigned long long)m->id);
    }
    if (h->base.deadline_ns != 0 && m->now > h->base.deadline_ns) {
      CHECK_MSG(0, "seed %llu: a job past its deadline was still queued",
                (unsigned long long)m->id);
    }
    t->n = 0;
    t->started = m->now;
    m->busy++;
    /* Riders: the compatible jobs among the WINDOW served right after it. */
    job *riders[MAX_BATCH];
    unsigned nr = 0;
    if (h->group != 0) {
      pool_job *x = sched_after(&h->base);
      for (unsigned seen = 0; x != NULL && seen < WINDOW && nr + 1 < MAX_BATCH;
           seen++, x = sched_after(x))
        if (((job *)x)->group == h->group) riders[nr++] = (job *)x;
    }
    start(m, h, ti, 1);
    for (unsigned i = 0; i < nr; i++) start(m, riders[i], ti, 0);
    uint64_t longest = 0;
    for (unsigned i = 0; i < t->n; i++) {
      uint64_t run = estimate_run_ns(&m->e, t->run[i]->base.cost_class, t->run[i]->base.cost_ns);
      if (run > longest) longest = run;
    }
    t->expect_end = m->now + longest;
    estimate_batch(&m->e, h->base.cost_class, t->n);
  }
}

static void finish(sim *m, job *j) {
  thread *t = &m->t[j->thread];
  unsigned i = 0;
  while (t->run[i] != j) i++;
  t->run[i] = t->run[--t->n];
  m->running--;
  estimate_learn(&m->e, j->base.cost_class, j->base.cost_ns, j->end_at - t->started);
  end_job(m, j, 0);
  if (t->n == 0) m->busy--;
  if (m->queued == 0 && m->running == 0) sched_idle(&m->s);
}

/* ---- the deadline check: what the job would really have waited ---- */

/* List scheduling of the queued jobs served before tag `tag` (in service
 * order, each its own expected time) on the threads as busy as they are:
 * when a job behind them starts. *longest: the costliest job ahead (the
 * estimate takes the jobs ahead as their average: it may be off by one). */
static uint64_t really_starts(const sim *m, uint64_t tag, uint64_t order, uint64_t *longest) {
  double free_at[MAX_THREADS] = { (double)m->now };
  unsigned n = 0;
  for (unsigned i = 0; i < m->threads && i < MAX_THREADS; i++) {
    double end = (double)m->now;
    if (m->t[i].n != 0 && m->t[i].expect_end > m->now) end = (double)m->t[i].expect_end;
    free_at[n++] = end;
  }
  *longest = 0;
  for (const pool_job *x = sched_head(&m->s);
       x != NULL && (x->tag < tag || (x->tag == tag && x->order_node.k2 < order));
       x = sched_after(x)) {
    if (x->expect_ns > *longest) *longest = x->expect_ns;
    unsigned best = 0;
    for (unsigned i = 1; i < n; i++)
      if (free_at[i] < free_at[best]) best = i;
    free_at[best] += (double)x->expect_ns;
  }
  double first = free_at[0];
  for (unsigned i = 1; i < n; i++)
    if (free_at[i] < first) first = free_at[i];
  return (uint64_t)first - m->now;
}

/* ---- arrivals ---- */

static void arrive(sim *m) {
  if (m->njobs == MAX_JOBS) return;
  job *j = &m->jobs[m->njobs++];
  memset(j, 0, sizeof *j);
  /* Flooders send most of the calls. */
  j->key =
      rnd(m, 3) != 0 && m->flooders ? (unsigned)rnd(m, m->flooders) : (unsigned)rnd(m, m->nkeys);
  j->base.fair_key = j->key == 0 ? 0 : 0x1000 + j->key; /* key 0: calls that name none */
  j->base.cost_class = 1 + (unsigned)rnd(m, 3);
  j->base.cost_ns = m->base_cost * (1 + rnd(m, 4)) * j->base.cost_class;
  if (rnd(m, 50) == 0) j->base.cost_ns *= 40; /* now and then a very costly one */
  j->factor = m->exact ? 1.0 : 0.6 + (double)rnd(m, 1000) / 1000.0;
  j->group = m->batches && rnd(m, 2) ? j->base.cost_class : 0;
  if (rnd(m, 3) == 0) j->base.deadline_ns = m->now + rnd(m, 40) * m->base_cost;
  j->base.expect_ns = estimate_thread_ns(&m->e, j->base.cost_class, j->base.cost_ns,
                                         j->base.batch_key != 0 ? j->base.batch_max : 1);
  if ((double)j->base.expect_ns > m->max_cost[j->key])
    m->max_cost[j->key] = (double)j->base.expect_ns;

  admit_view v = view_of(m);
  uint64_t tag, order;
  sched_place(&m->s, j->base.fair_key, m->now, &tag, &order);
  if (m->exact) {
    /* Estimates hold: the start time admission predicts is list scheduling
     * of the jobs served first, on what the running jobs have left, within
     * one job ahead (it takes them as their average). */
    uint64_t longest, real = really_starts(m, tag, order, &longest);
    uint64_t est = admit_start_ns(&m->s, &v, m->now, tag, order);
    uint64_t off = est > real ? est - real : real - est;
    CHECK_MSG(off <= longest + 2000, "seed %llu: estimate %llu, list scheduling %llu",
              (unsigned long long)m->id, (unsigned long long)est, (unsigned long long)real);
  }
  pool_job *victim;
  pool_steps = 0;
  int rc = admit_decide(&m->s, &v, &m->hints, &j->base, m->now, &victim);
  check_steps(m, "admit", 2 * search_steps(m));
  if (rc == STATUS_EFULL) {
    /* No idle place: the pool really holds threads + max_queue jobs, and
     * none of them would be served after this one. */
    CHECK_MSG(m->queued + m->running >= m->threads + m->max_queue,
              "seed %llu: queue_full with %u queued and %u running (threads %u, max_queue %u)",
              (unsigned long long)m->id, m->queued, m->running, m->threads, m->max_queue);
    /* ...counting only riders served before it: one served after would
     * have given way, were it still queued. */
    CHECK_MSG(m->queued + riders_before(m, tag, order) >= v.places,
              "seed %llu: queue_full with riders served after it holding places",
              (unsigned long long)m->id);
    const pool_job *last = sched_last(&m->s);
    CHECK(last == NULL || last->tag < tag || (last->tag == tag && last->order_node.k2 < order));
    CHECK(j->base.retry_after_ns > 0);
    check_seconds(m, j, order);
    sched_refused(&m->s, &j->base, m->now);
    m->refusals_full++;
    j->state = REFUSED;
    return;
  }
  if (rc == STATUS_ETIMEDOUT) {
    /* Honest: it would really have started after its deadline, where the
     * run times are what was expected (jobs ahead taken one by one). */
    if (m->exact) {
      uint64_t longest, real = really_starts(m, tag, order, &longest);
      uint64_t slack = longest + 2000; /* one job ahead taken as the average; the search's step */
      CHECK_MSG(m->now + real + slack > j->base.deadline_ns,
                "seed %llu: refused 'deadline' but would start in %llu ns (deadline in %llu)",
                (unsigned long long)m->id, (unsigned long long)real,
                (unsigned long long)(j->base.deadline_ns - m->now));
    }
    check_seconds(m, j, order);
    sched_refused(&m->s, &j->base, m->now);
    m->refusals_deadline++;
    j->state = REFUSED;
    return;
  }
  CHECK_EQ(rc, 0);
  if (m->exact && j->base.deadline_ns != 0) {
    /* And the converse: a job that would start after its deadline is not
     * let in to be shed later. */
    uint64_t longest, real = really_starts(m, tag, order, &longest);
    CHECK_MSG(m->now + real <= j->base.deadline_ns + longest + 2000,
              "seed %llu: admitted, but would start in %llu ns (deadline in %llu)",
              (unsigned long long)m->id, (unsigned long long)real,
              (unsigned long long)(j->base.deadline_ns - m->now));
  }
  if (victim != NULL) {
    CHECK(victim == sched_last(&m->s));
    CHECK(victim->tag > tag || (victim->tag == tag && victim->order_node.k2 > order));
  }
  pool_steps = 0;
  CHECK_EQ(sched_push(&m->s, &j->base, m->now), 0);
  check_steps(m, "push", 0);
  CHECK(j->base.tag == tag);
  CHECK(j->base.order_node.k2 == order);
  j->state = QUEUED;
  m->queued++;
  if (victim != NULL) {
    m->displaced++;
    leave_unrun(m, (job *)victim, STATUS_EDISPLACED);
    /* Its key is not charged for the work it was refused: it was the
     * newest of its key, whose next tag is the one it had. */
    CHECK_EQ(sched_tag(&m->s, victim->fair_key, m->now),
             victim->tag > m->s.vtime ? victim->tag : m->s.vtime);
  }
}

/* ---- other events ---- */

static void cancel_one(sim *m) {
  unsigned queued = 0;
  for (unsigned i = 0; i < m->njobs; i++) queued += m->jobs[i].state == QUEUED;
  if (queued == 0) return;
  unsigned pick = (unsigned)rnd(m, queued);
  for (unsigned i = 0; i < m->njobs; i++) {
    if (m->jobs[i].state == QUEUED && pick-- == 0) {
      m->cancels++;
      leave_unrun(m, &m->jobs[i], STATUS_ECANCELED);
      return;
    }
  }
}

static void expire(sim *m) {
  for (pool_job *j; (j = sched_earliest(&m->s)) != NULL && j->deadline_ns <= m->now;) {
    m->shed++;
    leave_unrun(m, (job *)j, STATUS_ETIMEDOUT);
  }
}

/* Threads shrink (busy ones above the count finish first) or grow; the
 * queue bound changes. As pool_reconfigure does. */
static void resize(sim *m) {
  m->threads = 1 + (unsigned)rnd(m, MAX_THREADS);
  m->max_queue = (unsigned)rnd(m, 12);
}

/* Close: every queued job ends (ECLOSED), running ones finish; then a new
 * pool starts from nothing, as a service would make one. */
static void close_and_reopen(sim *m) {
  while (m->queued > 0) leave_unrun(m, (job *)sched_head(&m->s), STATUS_ECLOSED);
  for (unsigned ti = 0; ti < MAX_THREADS; ti++)
    while (m->t[ti].n != 0) {
      job *j = m->t[ti].run[0];
      m->now = j->end_at > m->now ? j->end_at : m->now;
      finish(m, j);
    }
  CHECK_EQ(m->s.keys.nkeys, 0);
  sched_free(&m->s);
  CHECK_EQ(sched_init(&m->s), 0);
  estimate_init(&m->e);
  memset(m->waiting, 0, sizeof m->waiting);
}

/* ---- invariants after every event ---- */

static void check_state(sim *m) {
  unsigned queued = 0, running = 0, busy = 0;
  unsigned keys_with_jobs = 0, has[MAX_KEYS] = { 0 };
  for (unsigned i = 0; i < m->njobs; i++) {
    const job *j = &m->jobs[i];
    if (j->state == QUEUED) {
      queued++;
      if (!has[j->key]++) keys_with_jobs++;
      CHECK_MSG(j->base.deadline_ns == 0 || j->base.deadline_ns > m->now,
                "seed %llu: queued past its deadline", (unsigned long long)m->id);
    }
    running += j->state == RUNNING;
  }
  for (unsigned ti = 0; ti < MAX_THREADS; ti++) busy += m->t[ti].n != 0;
  /* An idle pool forgets who used it: every key starts at virtual time. */
  if (queued == 0 && running == 0)
    for (unsigned k = 0; k < m->nkeys; k++)
      CHECK_EQ(sched_tag(&m->s, k == 0 ? 0 : 0x1000 + k, m->now), m->s.vtime);
  CHECK_EQ(queued, m->queued);
  CHECK_EQ(queued, sched_queued(&m->s));
  CHECK_EQ(running, m->running);
  CHECK_EQ(busy, m->busy);
  CHECK_EQ(m->s.keys.nkeys, keys_with_jobs);
  /* Work-conserving: no thread of the pool is idle while a job waits. */
  if (queued > 0)
    for (unsigned ti = 0; ti < m->threads && ti < MAX_THREADS; ti++)
      CHECK_MSG(m->t[ti].n != 0, "seed %llu: thread %u idle with %u queued",
                (unsigned long long)m->id, ti, queued);
  check_lag(m);
}

/* ---- one seed ---- */

static void run_seed(uint64_t seed) {
  sim *m = calloc(1, sizeof *m);
  m->id = seed;
  m->seed = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < 8; i++) rnd(m, 0);
  m->nkeys = 1 + (unsigned)rnd(m, MAX_KEYS);
  m->flooders = rnd(m, 2) ? 1 + (unsigned)rnd(m, m->nkeys) : 0;
  m->batches = rnd(m, 3) == 0;
  m->exact = rnd(m, 2) == 0;
  m->base_cost = 10000 + rnd(m, 100000);
  m->threads = 1 + (unsigned)rnd(m, MAX_THREADS);
  m->max_queue = (unsigned)rnd(m, 12);
  /* Load from half to three times what the threads serve. */
  m->mean_gap = m->base_cost * 2 * 10 / (m->threads * (5 + rnd(m, 25)));
  CHECK_EQ(sched_init(&m->s), 0);
  estimate_init(&m->e);
  uint64_t next_arrival = 0, next_cancel = m->base_cost * rnd(m, 50);
  uint64_t next_resize = m->base_cost * (200 + rnd(m, 400));
  uint64_t next_close = m->base_cost * (1500 + rnd(m, 1500));
  while (m->njobs < MAX_JOBS || m->queued + m->running > 0) {
    /* The next event. */
    uint64_t t = UINT64_MAX;
    int kind = 0;
    if (m->njobs < MAX_JOBS && next_arrival < t) t = next_arrival, kind = 1;
    job *ending = NULL;
    for (unsigned ti = 0; ti < MAX_THREADS; ti++)
      for (unsigned i = 0; i < m->t[ti].n; i++)
        if (m->t[ti].run[i]->end_at < t)
          t = m->t[ti].run[i]->end_at, kind = 2, ending = m->t[ti].run[i];
    const pool_job *dl = sched_earliest(&m->s);
    if (dl != NULL && dl->deadline_ns < t) t = dl->deadline_ns, kind = 3;
    if (m->njobs < MAX_JOBS) {
      if (next_cancel < t) t = next_cancel, kind = 4;
      if (next_resize < t) t = next_resize, kind = 5;
      if (next_close < t) t = next_close, kind = 6;
    }
    if (kind == 0) break;
    if (t > m->now) m->now = t;
    m->events++;
    switch (kind) {
      case 1:
        arrive(m);
        next_arrival = m->now + rnd(m, 2 * m->mean_gap + 1);
        break;
      case 2:
        finish(m, ending);
        break;
      case 3:
        expire(m);
        break;
      case 4:
        cancel_one(m);
        next_cancel = m->now + m->base_cost * (1 + rnd(m, 60));
        break;
      case 5:
        resize(m);
        next_resize = m->now + m->base_cost * (200 + rnd(m, 400));
        break;
      case 6:
        close_and_reopen(m);
        next_close = m->now + m->base_cost * (1500 + rnd(m, 1500));
        break;
    }
    expire(m);
    dispatch(m);
    check_state(m);
  }
  /* Every accepted job ended exactly once. */
  for (unsigned i = 0; i < m->njobs; i++)
    if (m->jobs[i].state != REFUSED) CHECK_EQ(m->jobs[i].ends, 1);
  CHECK_EQ(m->s.keys.nkeys, 0);
  CHECK(keys_remembered(&m->s.keys, 0, m->now) <= KEYS_MEMORY + 1);
  sched_free(&m->s);
  if (getenv("SIM_VERBOSE") != NULL)
    printf(
        "seed %llu: %lu events, %u keys, %u threads, full %lu, deadline %lu, displaced %lu, "
        "shed %lu, cancels %lu, worst steps %lu\n",
        (unsigned long long)seed, m->events, m->nkeys, m->threads, m->refusals_full,
        m->refusals_deadline, m->displaced, m->shed, m->cancels, m->worst_steps);
  free(m);
}

int main(int argc, char **argv) {
  unsigned seeds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20;
  uint64_t first = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  for (uint64_t seed = first; seed < first + seeds; seed++) {
    int before = check_failed;
    run_seed(seed);
    if (check_failed != before) {
      printf("seed %llu failed\n", (unsigned long long)seed);
      break;
    }
  }
  printf("sim_sched: %u seeds from %llu: %d checks passed, %d failed\n", seeds,
         (unsigned long long)first, check_passed, check_failed);
  return check_exit();
}
