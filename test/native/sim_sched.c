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
 *   batch hold       a batch ends when its head does (no rider expected
 *                    to run longer): a job placed before the riders waits
 *                    for the one job the thread took;
 *   virtual time     each start moves it by the job's expected time over
 *                    the keys backlogged (WF2Q+: with queued jobs, or a
 *                    refusal mark ahead of it; counted the long way), or
 *                    to the next head's tag when that is further;
 *   hint vs drain   every refusal's hint is at most twice the time until
 *                    its promised place would start (list scheduling of
 *                    what runs and is queued before it) plus one job;
 *   progress         a client refused while level with virtual time and
 *                    returning at its hints is served within
 *                    PROGRESS_ATTEMPTS calls, where run times are as
 *                    expected, no batch runs and the queue has a place;
 *   charges          a key's queued jobs and next place are where they
 *                    would be had its unrun jobs never been queued
 *                    (riders started ahead of older jobs carried at their
 *                    expected time);
 *   no churn         a displaced job stood more than one of the caller's
 *                    jobs behind it;
 *   bounded lag      while key A has queued jobs, no key B starts more
 *                    work than A advances, plus A's lead when it began to
 *                    wait, plus three of B's jobs (one at its tag, one
 *                    at a place promised before A waited, one on a tie;
 *                    plus the batch window's riders where batches run);
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

#define MAX_THREADS       6
#define MAX_KEYS          12
#define MAX_JOBS          2500
#define WINDOW            16 /* POOL_BATCH_WINDOW */
#define MAX_BATCH         4
#define MAX_CLIENTS       1100
/* A polite client (one that returns at its hints) is served within this
 * many calls of a request: pool.c's DESIGN comment, Progress. */
#define PROGRESS_ATTEMPTS 3

/* Traffic models (one per seed): the mixed random keys and flooders of
 * before; one-shot keys with a returning client; per-IP keys drawn from
 * a Zipf distribution over 10,000 clients; one flooder, or 100 or 1,000
 * flooding keys, beside polite users; 12 clients retrying at the ms hint;
 * 12 retrying at the whole seconds plus a round trip. Every model mixes
 * three cost classes (Argon2id, PBKDF2, bcrypt alike: different costs,
 * some batching), deadlines that shed, cancels, resizes and closes. */
enum { M_MIXED, M_ONESHOT, M_ZIPF, M_FLOOD, M_RETRY_MS, M_RETRY_S, M_MODELS };
static const char *const model_names[M_MODELS] = { "mixed", "one-shot", "zipf",
                                                   "flood", "retry-ms", "retry-s" };

enum { NEW, QUEUED, RUNNING, ENDED, REFUSED };

typedef struct {
  pool_job base; /* first: the discipline hands back pool_job pointers */
  unsigned key;
  unsigned group;  /* batch group, 0: runs alone */
  double factor;   /* run time over expected run time */
  int state, ends; /* ends: how many times it ended (must be 1 once accepted) */
  uint64_t end_at; /* when it ends, while running */
  unsigned thread;
  int client; /* the client that sent it, or -1 */
  /* The charge reference: what places it besides its key's finish, and a
   * promised tag; whether its key's log still holds it. */
  uint64_t vref, ptag;
  int promised, logged;
  uint64_t lead; /* how far its key's finish was ahead of virtual time */
} job;

/* A client that comes back: after its call is served (a think time), and
 * after a refusal (polite: at its hint; not: almost at once). */
typedef struct {
  uint64_t fair_key;
  unsigned key;     /* its index for lag and charges, or MAX_KEYS */
  uint64_t next_at; /* 0: a call in flight */
  uint64_t think;
  unsigned attempts; /* calls for the request under way */
  int polite, exempt;
  unsigned long epoch;
} client;

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
  unsigned model;
  client clients[MAX_CLIENTS];
  unsigned nclients;
  unsigned long epoch; /* resizes and closes so far */
  /* Charges: per key, the jobs it queued since it last had none (started
   * ones stay), its finish then, how many are queued, and the expected
   * time of riders started ahead of its older jobs. */
  unsigned *log[MAX_KEYS], logn[MAX_KEYS], has_q[MAX_KEYS];
  uint64_t log_f0[MAX_KEYS], rider_slack[MAX_KEYS];
  unsigned long worst_attempts, hints_checked, kept_beyond;
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
static unsigned riders_before(const void *ctx, uint64_t key, uint64_t tag, uint64_t order) {
  const sim *m = ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < MAX_THREADS; i++) {
    const thread *t = &m->t[i];
    unsigned before = 0;
    for (unsigned k = 0; k < t->n; k++)
      before += sched_rider_holds(&m->s, &t->run[k]->base, key, tag, order);
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
      /* One more of B's jobs: a place promised to it before A began to
       * wait (promise.h), as old as the refusal that made it. */
      double slack = (double)m->lead0[a] + m->max_cost[b] * (m->batches ? WINDOW + 3 : 3) + 1;
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
static void check_seconds(sim *m, const job *j, uint64_t order /* the place's tag */) {
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
  double level = admit_level(order, j->base.expect_ns);
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

/* ---- charges: a key is where it would be had its unrun jobs never
 * been queued ---- */

/* Its reference finish: its logged jobs replayed in the order they were
 * queued, each placed as sched.h says (promised ones at their place).
 * Checks the queued ones' tags on the way when `check`. */
static uint64_t replay(sim *m, unsigned key, int check) {
  uint64_t f = m->log_f0[key];
  for (unsigned i = 0; i < m->logn[key]; i++) {
    const job *j = &m->jobs[m->log[key][i]];
    if (!j->logged) continue;
    uint64_t e = j->base.expect_ns != 0 ? j->base.expect_ns : 1;
    uint64_t tag = j->promised ? j->ptag : (j->vref > f ? j->vref : f);
    if (check && j->state == QUEUED) {
      /* Riders started ahead of older jobs are carried at their expected
       * time: up to that much earlier than the replay. */
      uint64_t slack = m->rider_slack[key];
      CHECK_MSG(j->base.tag <= tag && tag - j->base.tag <= slack,
                "seed %llu: key %u's job tagged %llu, %llu had its unrun jobs never been queued",
                (unsigned long long)m->id, key, (unsigned long long)j->base.tag,
                (unsigned long long)tag);
    }
    f = (j->promised && f > tag ? f : tag) + e;
  }
  return f;
}

/* `rec`: its key's record before the push, `v` virtual time then. */
static void key_pushed(sim *m, job *j, const admit_place *place, key_record rec, uint64_t v) {
  if (j->key >= MAX_KEYS) return;
  unsigned k = j->key;
  if (m->has_q[k] == 0) {
    m->logn[k] = 0;
    m->log_f0[k] = rec.finish > v ? rec.finish : v; /* a key's state opens level with V */
    m->rider_slack[k] = 0;
  }
  j->vref = v > rec.mark ? v : rec.mark;
  j->promised = place->order != 0;
  j->ptag = place->tag;
  j->logged = 1;
  m->log[k][m->logn[k]++] = (unsigned)(j - m->jobs);
  m->has_q[k]++;
}

/* After its sched_remove: out of the log; once the key has nothing
 * queued, its next place is the replay's (and its mark's). */
static void key_removed(sim *m, job *j) {
  if (j->key >= MAX_KEYS) return;
  unsigned k = j->key;
  j->logged = 0;
  if (--m->has_q[k] != 0) return;
  uint64_t f = replay(m, k, 0), v = m->s.vtime;
  key_record rec = keys_recall(&m->s.keys, j->base.fair_key, v);
  uint64_t want = f > v ? f : v, got = sched_tag(&m->s, j->base.fair_key);
  if (rec.mark > want) want = rec.mark;
  CHECK_MSG(got <= want && want - got <= m->rider_slack[k],
            "seed %llu: key %u left at %llu, %llu had its unrun jobs never been queued",
            (unsigned long long)m->id, k, (unsigned long long)got, (unsigned long long)want);
}

static void check_charges(sim *m) {
  for (unsigned k = 0; k < MAX_KEYS; k++)
    if (m->has_q[k] != 0) replay(m, k, 1);
}

/* ---- hints: bounded by the drain ---- */

static uint64_t really_starts(const sim *m, uint64_t tag, uint64_t order, uint64_t *longest);

/* `j`'s hint, for a place (tag, order): at most twice the time until a
 * job there would really start (list scheduling of what runs and what is
 * served before it), plus one job: the estimate may take one job ahead
 * as the average, and the spread of hints that come together adds at
 * most one start interval. */
static void check_hint(sim *m, const job *j, uint64_t tag, uint64_t order) {
  uint64_t longest, real = really_starts(m, tag, order, &longest);
  uint64_t bound = 2 * (real + longest) + j->base.expect_ns + 4000;
  m->hints_checked++;
  CHECK_MSG(j->base.retry_after_ns <= bound,
            "seed %llu (%s): hint %llu ns for a start in %llu ns (longest ahead %llu)",
            (unsigned long long)m->id, model_names[m->model],
            (unsigned long long)j->base.retry_after_ns, (unsigned long long)real,
            (unsigned long long)longest);
}

/* ---- clients ---- */

static void client_refused(sim *m, job *j) {
  if (j->client < 0) return;
  client *c = &m->clients[j->client];
  /* No promise may be kept: the memory is full, or the pool has no queue
   * (a semaphore: no place beyond its bound). */
  if (m->hints.kept.n >= PROMISE_MAX || m->max_queue == 0) c->exempt = 1;
  /* Nor to a client refused while its finish was ahead of virtual time
   * (served within the current round, as a closed loop that asks again
   * the moment it is served): it waits as virtual time catches up, and
   * the clients level with V go first; worst_attempts reports it. */
  if (j->lead > 0) c->exempt = 1;
  /* Nor when more clients wait on places promised before its own than
   * the queue has places: they go first, a queue's worth per drain. */
  const promise *own = NULL;
  for (unsigned i = 0; i < m->hints.kept.n; i++)
    if (m->hints.kept.keys[i] == c->fair_key) own = &m->hints.kept.entries[i];
  unsigned ahead = 0;
  for (unsigned i = 0; own != NULL && i < m->hints.kept.n; i++) {
    const promise *q = &m->hints.kept.entries[i];
    ahead += q != own && q->until_ns >= m->now &&
             (q->tag < own->tag || (q->tag == own->tag && q->order < own->order));
  }
  if (ahead >= m->max_queue) c->exempt = 1;
  if (!c->polite) /* a flood: back soon, sooner the fewer its keys */
    c->next_at = m->now + m->base_cost / 2 + 1 + rnd(m, m->nclients * m->base_cost / 10 + 1);
  else if (m->model == M_RETRY_S)
    c->next_at = m->now + (uint64_t)j->base.retry_after_s * 1000000000ull + 20000000ull;
  else
    c->next_at = m->now + j->base.retry_after_ns;
}

/* Its request ended: served, or ended by the pool's close or its own
 * cancel. */
static void client_done(sim *m, job *j, int served) {
  if (j->client < 0) return;
  client *c = &m->clients[j->client];
  if (served) {
    /* Where run times are what was expected: a hint that came early
     * because jobs ahead overran is not the discipline's to answer for. */
    /* Nor where batches run: riders hold places until their batch ends,
     * later than the first thread frees (what the hint foretells); a
     * return may find them there once more (worst_attempts reports it). */
    if (c->polite && !c->exempt && c->epoch == m->epoch && m->exact && !m->batches) {
      if (c->attempts > m->worst_attempts) m->worst_attempts = c->attempts;
      CHECK_MSG(c->attempts <= PROGRESS_ATTEMPTS,
                "seed %llu (%s): client %ld returning at its hints took %u calls",
                (unsigned long long)m->id, model_names[m->model], (long)(c - m->clients),
                c->attempts);
    }
  }
  c->attempts = 0;
  c->exempt = 0;
  c->next_at = m->now + 1 + rnd(m, c->think + 1);
}

/* ---- ends ---- */

static void end_job(sim *m, job *j, int status) {
  (void)status;
  j->ends++;
  CHECK_MSG(j->ends == 1, "seed %llu: job %ld ended %d times", (unsigned long long)m->id,
            (long)(j - m->jobs), j->ends);
  j->state = ENDED;
  if (status == 0)
    client_done(m, j, 1);
  else if (status == STATUS_ETIMEDOUT || status == STATUS_EDISPLACED)
    client_refused(m, j);
  else
    client_done(m, j, 0);
}

static void leave_unrun(sim *m, job *j, int status) {
  pool_steps = 0;
  sched_remove(&m->s, &j->base);
  check_steps(m, "remove", 2 * (log2_ceil(m->queued + 2) + 2) * (m->queued + 1));
  m->queued--;
  key_removed(m, j);
  if (status == STATUS_ETIMEDOUT || status == STATUS_EDISPLACED) {
    admit_view v = view_of(m);
    uint64_t tag, order;
    sched_place(&m->s, j->base.fair_key, &tag, &order);
    pool_steps = 0;
    admit_hint_retry(&m->s, &v, &m->hints, &j->base, m->now);
    check_steps(m, "hint", search_steps(m));
    check_hint(m, j, tag, UINT64_MAX);
    check_seconds(m, j, tag);
    CHECK(j->base.retry_after_ns > 0);
  }
  if (m->queued == 0 && m->running == 0) sched_idle(&m->s);
  end_job(m, j, status);
}

/* ---- starting jobs, as worker.c and batch.c do ---- */

/* The keys backlogged at virtual time v, counted the long way: those with
 * queued jobs, and every remembered key whose mark is ahead of v (charged:
 * turned away and still asking). */
static uint64_t backlogged_at(const sim *m, uint64_t v) {
  const keys *k = &m->s.keys;
  uint64_t n = k->nkeys + (k->shared.mark > v);
  if (k->memory != NULL)
    for (unsigned i = 0; i < KEYS_MEMORY; i++) n += k->memory[i].rec.mark > v;
  return n;
}

static void start(sim *m, job *j, unsigned ti) {
  pool_steps = 0;
  if (j->key < MAX_KEYS && j->base.key_prev != NULL) m->rider_slack[j->key] += j->base.expect_ns;
  uint64_t v0 = m->s.vtime, backlogged = backlogged_at(m, v0);
  unsigned charged = m->s.keys.ncharged;
  sched_start(&m->s, &j->base);
  /* Virtual time moves with the work served: the job's expected time over
   * the keys backlogged (WF2Q+), whatever the keys, or to the next head's
   * tag when that is further. */
  uint64_t step = j->base.expect_ns / (backlogged ? backlogged : 1);
  const pool_job *head = sched_head(&m->s);
  CHECK_MSG(m->s.vtime == v0 + (step ? step : 1) ||
                (head != NULL && m->s.vtime == head->tag && head->tag > v0 + (step ? step : 1)),
            "seed %llu: virtual time moved %llu for a start of %llu over %llu keys",
            (unsigned long long)m->id, (unsigned long long)(m->s.vtime - v0),
            (unsigned long long)j->base.expect_ns, (unsigned long long)backlogged);
  /* Amortized: a step for each mark virtual time passed (each paid for by
   * the refusal that made it). */
  check_steps(m, "start", charged - m->s.keys.ncharged);
  m->queued--;
  m->running++;
  j->state = RUNNING;
  j->thread = ti;
  double run = (double)estimate_run_ns(&m->e, j->base.cost_class, j->base.cost_ns) * j->factor;
  j->end_at = m->now + (uint64_t)run + 1;
  if (j->key < MAX_KEYS) {
    m->started[j->key] += (double)j->base.expect_ns;
    m->has_q[j->key]--;
  }
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
        if (((job *)x)->group == h->group && sched_may_ride(&h->base, x)) riders[nr++] = (job *)x;
    }
    start(m, h, ti);
    for (unsigned i = 0; i < nr; i++) start(m, riders[i], ti);
    uint64_t longest = 0;
    for (unsigned i = 0; i < t->n; i++) {
      uint64_t run = estimate_run_ns(&m->e, t->run[i]->base.cost_class, t->run[i]->base.cost_ns);
      if (run > longest) longest = run;
    }
    t->expect_end = m->now + longest;
    /* A batch ends when its head does: a job placed before its riders
     * waits for no more than the one job the thread took. */
    uint64_t head_run = estimate_run_ns(&m->e, h->base.cost_class, h->base.cost_ns);
    CHECK_MSG(longest == head_run, "seed %llu: a batch of %u runs %llu ns, its head %llu",
              (unsigned long long)m->id, t->n, (unsigned long long)longest,
              (unsigned long long)head_run);
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

/* Zipf(1) over n ranks, by inversion of the harmonic sums (n small
 * enough to sum once per call: 10,000). */
static unsigned zipf(sim *m, unsigned n) {
  static double h[10001];
  static unsigned hn;
  if (hn != n) {
    h[0] = 0;
    for (unsigned i = 1; i <= n; i++) h[i] = h[i - 1] + 1.0 / i;
    hn = n;
  }
  double u = (double)rnd(m, 1u << 30) / (double)(1u << 30) * h[n];
  unsigned lo = 1, hi = n;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2;
    if (h[mid] < u)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

static uint64_t key_of(unsigned k) { return k == 0 ? 0 : 0x1000 + k; }

/* The key of an open-loop call of this seed's model. */
static void open_key(sim *m, job *j) {
  switch (m->model) {
    case M_ONESHOT:
      j->key = MAX_KEYS;
      j->base.fair_key = 0x100000 + m->njobs; /* a client never seen again */
      break;
    case M_ZIPF: {
      unsigned r = zipf(m, 10000); /* apart from the clients' keys */
      j->key = MAX_KEYS;
      j->base.fair_key = 0x200000 + r;
      break;
    }
    default: /* flooders send most of the calls */
      j->key = rnd(m, 3) != 0 && m->flooders ? (unsigned)rnd(m, m->flooders)
                                             : (unsigned)rnd(m, m->nkeys);
      j->base.fair_key = key_of(j->key);
  }
}

/* The place promised to a refused call: the one it kept, or (charged if
 * it came early) its key's place now, at the arrival taken for it. */
static void promised_place(sim *m, const job *j, int kept, uint64_t *tag, uint64_t *order) {
  if (kept) return;
  *tag = sched_tag(&m->s, j->base.fair_key);
  *order = m->s.seq;
}

/* A call arrives: an open-loop one (ci < 0) or client ci's. */
static void arrive(sim *m, int ci) {
  if (m->njobs == MAX_JOBS) return;
  job *j = &m->jobs[m->njobs++];
  memset(j, 0, sizeof *j);
  j->client = ci;
  if (ci >= 0) {
    client *c = &m->clients[ci];
    j->key = c->key;
    j->base.fair_key = c->fair_key;
    if (c->attempts++ == 0) c->epoch = m->epoch;
    c->next_at = 0;
  } else {
    open_key(m, j);
  }
  j->base.cost_class = 1 + (unsigned)rnd(m, 3);
  j->base.cost_ns = m->base_cost * (1 + rnd(m, 4)) * j->base.cost_class;
  if (rnd(m, 50) == 0) j->base.cost_ns *= 40; /* now and then a very costly one */
  j->factor = m->exact ? 1.0 : 0.6 + (double)rnd(m, 1000) / 1000.0;
  j->group = m->batches && rnd(m, 2) ? j->base.cost_class : 0;
  /* Polite clients' calls wait as long as it takes (their progress is
   * checked); the rest now and then have a deadline. */
  if ((ci < 0 || !m->clients[ci].polite) && rnd(m, 3) == 0)
    j->base.deadline_ns = m->now + rnd(m, 40) * m->base_cost;
  j->base.expect_ns = estimate_thread_ns(&m->e, j->base.cost_class, j->base.cost_ns,
                                         j->base.batch_key != 0 ? j->base.batch_max : 1);
  if (j->key < MAX_KEYS && (double)j->base.expect_ns > m->max_cost[j->key])
    m->max_cost[j->key] = (double)j->base.expect_ns;

  admit_view v = view_of(m);
  uint64_t tag, order;
  sched_place(&m->s, j->base.fair_key, &tag, &order);
  uint64_t finish = keys_recall(&m->s.keys, j->base.fair_key, m->s.vtime).finish;
  j->lead = finish > m->s.vtime ? finish - m->s.vtime : 0;
  /* The place it is judged at: a promise it keeps (promise.h) is before
   * its own. */
  const promise *peek = NULL;
  int promised = 0;
  for (unsigned i = 0; i < m->hints.kept.n; i++)
    if (m->hints.kept.keys[i] == j->base.fair_key) peek = &m->hints.kept.entries[i];
  if (peek != NULL && peek->due_ns <= m->now && m->now <= peek->until_ns &&
      (peek->tag < tag || (peek->tag == tag && peek->order < order))) {
    const key_state *k = keys_find(&m->s.keys, j->base.fair_key);
    if (k == NULL || k->tail == NULL || k->tail->tag <= peek->tag) {
      tag = peek->tag;
      order = peek->order;
      promised = 1;
    }
  }
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
  admit_place place;
  pool_steps = 0;
  int rc = admit_decide(&m->s, &v, &m->hints, &j->base, m->now, &victim, &place);
  check_steps(m, "admit", 2 * search_steps(m) + PROMISE_MAX);
  if (rc == STATUS_EFULL) {
    /* No idle place: the pool really holds threads + max_queue jobs, and
     * none of them stands more than one of this call's jobs after it. */
    CHECK_MSG(m->queued + m->running >= m->threads + m->max_queue,
              "seed %llu: queue_full with %u queued and %u running (threads %u, max_queue %u)",
              (unsigned long long)m->id, m->queued, m->running, m->threads, m->max_queue);
    /* ...counting only riders served before it: one served after would
     * have given way, were it still queued. */
    CHECK_MSG(m->queued + riders_before(m, j->base.fair_key, tag, order) >= v.places,
              "seed %llu: queue_full with riders served after it holding places",
              (unsigned long long)m->id);
    const pool_job *last = sched_last(&m->s);
    if (!promised) {
      CHECK_MSG(last == NULL || last->tag <= tag + (j->base.expect_ns ? j->base.expect_ns : 1),
                "seed %llu: refused while a job stood more than one of its jobs after it",
                (unsigned long long)m->id);
    } else if (m->max_queue != 0) {
      /* A promise is refused only while the jobs placed before it fill
       * the places. */
      uint64_t work;
      unsigned n;
      sched_ahead(&m->s, tag, order, &work, &n);
      CHECK_MSG(n + riders_before(m, j->base.fair_key, tag, order) >= v.places,
                "seed %llu: a promise refused with %u placed before it (%u places)",
                (unsigned long long)m->id, n, v.places);
    }
    CHECK(j->base.retry_after_ns > 0);
    promised_place(m, j, promised, &tag, &order);
    check_hint(m, j, tag, order);
    check_seconds(m, j, tag);
    m->refusals_full++;
    j->state = REFUSED;
    client_refused(m, j);
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
    promised_place(m, j, promised, &tag, &order);
    check_hint(m, j, tag, order);
    check_seconds(m, j, tag);
    m->refusals_deadline++;
    j->state = REFUSED;
    client_refused(m, j);
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
    /* No churn among equals: the one served last, standing more than one
     * of this call's jobs after it. */
    CHECK(victim == sched_last(&m->s));
    CHECK_MSG(victim->tag > tag + (j->base.expect_ns ? j->base.expect_ns : 1),
              "seed %llu: a job %llu after the caller gave way (its job %llu)",
              (unsigned long long)m->id, (unsigned long long)(victim->tag - tag),
              (unsigned long long)j->base.expect_ns);
  }
  if (m->queued + m->running >= m->threads + m->max_queue && victim == NULL) m->kept_beyond++;
  key_record before = keys_recall(&m->s.keys, j->base.fair_key, m->s.vtime);
  uint64_t v_before = m->s.vtime;
  pool_steps = 0;
  CHECK_EQ(sched_push(&m->s, &j->base, place.tag, place.order), 0);
  check_steps(m, "push", 0);
  if (place.kept != NULL) promises_drop(&m->hints.kept, place.kept);
  CHECK(j->base.tag == tag);
  CHECK(j->base.order_node.k2 == order);
  key_pushed(m, j, &place, before, v_before);
  j->state = QUEUED;
  m->queued++;
  if (victim != NULL) {
    m->displaced++;
    leave_unrun(m, (job *)victim, STATUS_EDISPLACED);
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
  m->epoch++;
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
  memset(&m->hints, 0, sizeof m->hints);
  memset(m->waiting, 0, sizeof m->waiting);
  m->epoch++;
}

/* ---- invariants after every event ---- */

static void check_state(sim *m) {
  unsigned queued = 0, running = 0, busy = 0, keys_with_jobs = 0;
  for (unsigned i = 0; i < m->njobs; i++) {
    const job *j = &m->jobs[i];
    if (j->state == QUEUED) {
      queued++;
      unsigned seen = 0;
      for (unsigned k = 0; k < i && !seen; k++)
        seen = m->jobs[k].state == QUEUED && m->jobs[k].base.fair_key == j->base.fair_key;
      keys_with_jobs += !seen;
      CHECK_MSG(j->base.deadline_ns == 0 || j->base.deadline_ns > m->now,
                "seed %llu: queued past its deadline", (unsigned long long)m->id);
    }
    running += j->state == RUNNING;
  }
  for (unsigned ti = 0; ti < MAX_THREADS; ti++) busy += m->t[ti].n != 0;
  /* An idle pool forgets who used it: every key starts at virtual time. */
  if (queued == 0 && running == 0)
    for (unsigned k = 0; k < m->nkeys; k++) CHECK_EQ(sched_tag(&m->s, key_of(k)), m->s.vtime);
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
  check_charges(m);
}

/* ---- one seed ---- */

static void add_client(sim *m, uint64_t fair_key, unsigned key, int polite, uint64_t think) {
  if (m->nclients == MAX_CLIENTS) return;
  client *c = &m->clients[m->nclients++];
  *c = (client){ .fair_key = fair_key, .key = key, .polite = polite, .think = think };
  c->next_at = 1 + rnd(m, think + 1);
}

/* The model's clients (calls that come back). */
static void add_clients(sim *m) {
  uint64_t b = m->base_cost;
  switch (m->model) {
    case M_ONESHOT: /* one client among one-shot keys, back after each login */
      add_client(m, key_of(1), 1, 1, 20 * b);
      break;
    case M_ZIPF:
      add_client(m, key_of(1), 1, 1, 20 * b);
      add_client(m, key_of(2), 2, 1, 50 * b);
      break;
    case M_FLOOD: { /* one flooder, or 100 or 1,000 keys, and polite users */
      unsigned n = (unsigned[]){ 1, 100, 1000 }[rnd(m, 3)];
      for (unsigned i = 0; i < 4; i++) add_client(m, key_of(1 + i), 1 + i, 1, 60 * b);
      for (unsigned i = 0; i < n; i++) add_client(m, 0x300000 + i, i == 0 ? 5 : MAX_KEYS, 0, b);
      if (m->nkeys < 6) m->nkeys = 6;
      break;
    }
    case M_RETRY_MS:
    case M_RETRY_S:
      for (unsigned i = 0; i < 12; i++) add_client(m, key_of(i), i, 1, b);
      m->nkeys = 12;
      break;
    default:
      break;
  }
}

static void run_seed(uint64_t seed) {
  sim *m = calloc(1, sizeof *m);
  m->id = seed;
  m->seed = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < 8; i++) rnd(m, 0);
  m->model = (unsigned)(seed % M_MODELS);
  m->nkeys = 1 + (unsigned)rnd(m, MAX_KEYS);
  m->flooders = m->model == M_MIXED && rnd(m, 2) ? 1 + (unsigned)rnd(m, m->nkeys) : 0;
  m->batches = rnd(m, 3) == 0;
  m->exact = rnd(m, 2) == 0;
  m->base_cost = 10000 + rnd(m, 100000);
  m->threads = 1 + (unsigned)rnd(m, MAX_THREADS);
  m->max_queue = (unsigned)rnd(m, 12);
  /* Load from half to three times what the threads serve. */
  m->mean_gap = m->base_cost * 2 * 10 / (m->threads * (5 + rnd(m, 25)));
  if (m->max_queue == 0 && m->model != M_MIXED) m->max_queue = 1 + (unsigned)rnd(m, 11);
  add_clients(m);
  for (unsigned k = 0; k < MAX_KEYS; k++) m->log[k] = calloc(MAX_JOBS, sizeof *m->log[k]);
  CHECK_EQ(sched_init(&m->s), 0);
  estimate_init(&m->e);
  /* Closed loops have no open arrivals. */
  int open = m->model != M_RETRY_MS && m->model != M_RETRY_S && m->model != M_FLOOD;
  uint64_t next_arrival = open ? 0 : UINT64_MAX, next_cancel = m->base_cost * rnd(m, 50);
  uint64_t next_resize = m->base_cost * (200 + rnd(m, 400));
  uint64_t next_close = m->base_cost * (1500 + rnd(m, 1500));
  while (m->njobs < MAX_JOBS || m->queued + m->running > 0) {
    /* The next event. */
    uint64_t t = UINT64_MAX;
    int kind = 0;
    if (m->njobs < MAX_JOBS && next_arrival < t) t = next_arrival, kind = 1;
    int ci = -1;
    for (unsigned c = 0; c < m->nclients && m->njobs < MAX_JOBS; c++)
      if (m->clients[c].next_at != 0 && m->clients[c].next_at < t)
        t = m->clients[c].next_at, kind = 7, ci = (int)c;
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
      case 7:
        arrive(m, ci);
        break;
      case 1:
        arrive(m, -1);
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
  CHECK(keys_remembered(&m->s.keys, 0) <= KEYS_MEMORY + 1);
  sched_free(&m->s);
  for (unsigned k = 0; k < MAX_KEYS; k++) free(m->log[k]);
  if (getenv("SIM_VERBOSE") != NULL)
    printf(
        "seed %llu (%s%s): %lu events, %u keys, %u threads, full %lu, deadline %lu, displaced %lu, "
        "shed %lu, cancels %lu, worst steps %lu, hints %lu, worst attempts %lu, beyond %lu\n",
        (unsigned long long)seed, model_names[m->model], m->batches ? ", batches" : "", m->events,
        m->nkeys, m->threads, m->refusals_full, m->refusals_deadline, m->displaced, m->shed,
        m->cancels, m->worst_steps, m->hints_checked, m->worst_attempts, m->kept_beyond);
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
