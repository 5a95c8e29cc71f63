/* The overload benchmark's scenarios (bench/overload.js) on a virtual
 * clock, against the pool's own admission (admit.c), discipline (sched.c)
 * and estimates (estimate.c): what the policy does when nothing else
 * (a loaded machine, a JS thread, timers) is in the way. A deterministic
 * check of the policy's goals, beside the benchmark that measures the real
 * thing:
 *
 *   retrying   12 closed-loop clients, 2 threads, maxQueue 4, jobs of 2-8
 *              ms; a refused client sleeps its hint (or its Retry-After:
 *              the whole seconds it is told, plus 20 ms): at least 80 %
 *              of the retries made at the hint are admitted;
 *   flooder    one client keeps 40 calls in flight, retrying 1 ms after a
 *              refusal; users (a new key each) arrive at 40 % of capacity,
 *              retry at the hint and give up after 2 s: at least 99 % log
 *              in, p99 at most 3x the same users' on an idle pool;
 *   flooders   100 and 1,000 keys, each keeping one call in flight and
 *              coming back 20 ms after a refusal, and the same users: at
 *              least 95 % log in, p99 at most 5x idle (the flooders turned
 *              away count as backlogged while their charge lasts: sched.h).
 *
 * Usage: sim_overload [-v | --limits | --batches] (-v prints the figures;
 * --limits also floods from 10,000 to 40,000 keys, past the keys' memory,
 * and adds a low-rate botnet: calls at 0.5x to 2x capacity, each from an
 * address that has not called lately, as users' are; --batches runs the
 * scenarios as the real pool runs the benchmark's jobs, in 4-lane batches
 * answered a JS turn later, and prints the figures without checking them:
 * the goals are checked one job per thread). */
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

#define MS        1000000ull
#define THREADS   2
#define MAX_CALLS 400000
#define MAX_LANES 4
#define WINDOW    16 /* POOL_BATCH_WINDOW: where a batch's riders come from */

/* How the pool runs jobs. By default one job per thread, each answered
 * the moment it ends: the policy alone. --batches models what the real
 * pool adds on the benchmark's jobs (PBKDF2-SHA256 on SHA-NI): a thread
 * takes the head and up to 3 compatible jobs behind it and runs them on 4
 * interleaved lanes (each lane slower the more run: `lane_slowdown`), the
 * riders count as waiting; an ended job reaches its client a JS turn
 * later, and a timer set to a hint fires at its whole milliseconds plus a
 * turn. */
static unsigned lanes = 1;
static uint64_t js_turn_ns = 0;
/* A lane's time per unit of a lone job's work, with k lanes running
 * (x86-64 SHA-NI, 4-lane SHA-256: 1.7x a lone chain with all four). */
static const double lane_slowdown[MAX_LANES + 1] = { 1, 1, 1.2, 1.45, 1.7 };

/* ---- the pool on a virtual clock ---- */

typedef struct call call;
typedef void (*answer_fn)(call *c, int status);

struct call {
  pool_job base; /* first */
  uint64_t run_ns;
  int client; /* index of the client that made it */
  answer_fn answer;
  int in_use; /* submitted and not yet answered: its slot is not reused */
};

typedef struct {
  uint64_t now;
  sched s;
  estimate e;
  admit_hints hints;
  unsigned max_queue, queued, running, busy;
  /* Each thread's batch: its calls and each one's lone work left (ns),
   * as of `progressed`; `ends` is the next end of one of them. */
  call *batch[THREADS][MAX_LANES];
  double left[THREADS][MAX_LANES];
  unsigned batch_len[THREADS], open[THREADS];
  uint64_t started[THREADS], progressed[THREADS], ends[THREADS], expect_end[THREADS];
} vpool;

static vpool P;

static unsigned busy_left(const void *ctx, uint64_t now, uint64_t *left) {
  (void)ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < THREADS; i++)
    if (P.open[i] != 0) left[n++] = estimate_left_ns(P.started[i], P.expect_end[i], now);
  return n;
}

/* Of each busy thread's jobs under way, those placed before (tag, order),
 * less the one the thread stands for (queue.c's riders_before). */
static unsigned riders_before(const void *ctx, uint64_t key, uint64_t tag, uint64_t order) {
  (void)ctx;
  unsigned n = 0;
  for (unsigned i = 0; i < THREADS; i++) {
    unsigned before = 0;
    for (unsigned k = 0; k < P.batch_len[i]; k++) {
      const call *c = P.batch[i][k];
      if (c != NULL) before += sched_rider_holds(&P.s, &c->base, key, tag, order);
    }
    if (P.open[i] != 0) n += before < P.open[i] - 1 ? before : P.open[i] - 1;
  }
  return n;
}

static admit_view view(void) {
  admit_view v = { .threads = THREADS,
                   .max_queue = P.max_queue,
                   .slowdown = 1,
                   .busy_left = busy_left,
                   .riders_before = riders_before,
                   .ctx = NULL,
                   .estimate = &P.e };
  /* As the pool: riders wait (they hold places), a free thread is one. */
  v.waiting = P.queued + (P.running - P.busy);
  v.places = P.max_queue + (THREADS - P.busy);
  for (unsigned i = 0; i < THREADS; i++)
    if (P.open[i] != 0 && P.expect_end[i] > v.busy_until) v.busy_until = P.expect_end[i];
  return v;
}

/* When thread i's next job ends, from its lanes' work left. */
static void next_end(unsigned i) {
  double least = 1e300;
  for (unsigned k = 0; k < P.batch_len[i]; k++)
    if (P.batch[i][k] != NULL && P.left[i][k] < least) least = P.left[i][k];
  P.ends[i] = P.progressed[i] + (uint64_t)(least * lane_slowdown[P.open[i]] + 0.5);
}

static void dispatch(void) {
  for (unsigned i = 0; i < THREADS; i++) {
    if (P.open[i] != 0) continue;
    call *head = (call *)sched_head(&P.s);
    if (head == NULL) return;
    call *jobs[MAX_LANES] = { head };
    unsigned n = 1;
    pool_job *x = sched_after(&head->base);
    for (unsigned seen = 0; x != NULL && seen < WINDOW && n < lanes; seen++, x = sched_after(x))
      if (sched_may_ride(&head->base, x)) jobs[n++] = (call *)x;
    uint64_t longest = 0;
    for (unsigned k = 0; k < n; k++) {
      sched_start(&P.s, &jobs[k]->base);
      P.batch[i][k] = jobs[k];
      P.left[i][k] = (double)jobs[k]->run_ns;
      uint64_t run = estimate_run_ns(&P.e, jobs[k]->base.cost_class, jobs[k]->base.cost_ns);
      if (run > longest) longest = run;
    }
    estimate_batch(&P.e, head->base.cost_class, n);
    P.queued -= n;
    P.running += n;
    P.busy++;
    P.batch_len[i] = P.open[i] = n;
    P.started[i] = P.progressed[i] = P.now;
    P.expect_end[i] = P.now + longest;
    next_end(i);
  }
}

static void expire(void) {
  for (pool_job *j; (j = sched_earliest(&P.s)) != NULL && j->deadline_ns <= P.now;) {
    sched_remove(&P.s, j);
    P.queued--;
    admit_view v = view();
    admit_hint_retry(&P.s, &v, &P.hints, j, P.now);
    ((call *)j)->answer((call *)j, STATUS_ETIMEDOUT);
  }
}

/* Submits; refusals and displacements are answered at once. */
static void submit(call *c) {
  c->base.expect_ns = estimate_thread_ns(&P.e, c->base.cost_class, c->base.cost_ns,
                                         c->base.batch_key != 0 ? c->base.batch_max : 1);
  admit_view v = view();
  pool_job *victim;
  admit_place place;
  int rc = admit_decide(&P.s, &v, &P.hints, &c->base, P.now, &victim, &place);
  if (rc != 0) {
    c->answer(c, rc);
    return;
  }
  sched_push(&P.s, &c->base, place.tag, place.order);
  if (place.kept != NULL) promises_drop(&P.hints.kept, place.kept);
  P.queued++;
  if (victim != NULL) {
    sched_remove(&P.s, victim);
    P.queued--;
    admit_view w = view();
    admit_hint_retry(&P.s, &w, &P.hints, victim, P.now);
    ((call *)victim)->answer((call *)victim, STATUS_EDISPLACED);
  }
  dispatch();
}

/* ---- clients: timed wake-ups ---- */

typedef struct {
  uint64_t at;
  int client;
} wake;

static wake wakes[MAX_CALLS];
static unsigned nwakes;

static void wake_at(uint64_t at, int client) {
  unsigned i = nwakes++;
  while (i > 0 && wakes[(i - 1) / 2].at > at) {
    wakes[i] = wakes[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  wakes[i] = (wake){ at, client };
}

static wake pop_wake(void) {
  wake top = wakes[0], last = wakes[--nwakes];
  unsigned i = 0;
  for (;;) {
    unsigned c = 2 * i + 1;
    if (c >= nwakes) break;
    if (c + 1 < nwakes && wakes[c + 1].at < wakes[c].at) c++;
    if (wakes[c].at >= last.at) break;
    wakes[i] = wakes[c];
    i = c;
  }
  if (nwakes > 0) wakes[i] = last;
  return top;
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t job_ns(void) { return (uint64_t)((2 + 6 * uniform()) * MS); }

/* ---- the clients of a scenario ---- */

enum { USER, FLOODER, LOOP };

typedef struct {
  int kind;
  uint64_t key;
  uint64_t arrived, job;
  int retried, done, ok, in_flight;
  int bot; /* a USER of a low-rate botnet: not counted among the users */
  uint64_t login_ns;
} client;

#define MAX_CLIENTS 200000
static client clients[MAX_CLIENTS];
static unsigned nclients;
static call calls[MAX_CALLS];
static unsigned ncalls;

typedef struct {
  int retry_after; /* retrying clients sleep whole seconds + 20 ms */
  uint64_t end;
  unsigned retries, admitted;
  unsigned logins;
  uint64_t flood_retry_ns;
} scenario;

static scenario S;

static void answered(call *c, int status);

static void send(int id) {
  client *cl = &clients[id];
  /* The next slot whose call has been answered (a flood over 40,000 keys
   * keeps many in the queue at once). */
  unsigned tries = 0;
  while (calls[ncalls % MAX_CALLS].in_use) {
    ncalls++;
    if (++tries == MAX_CALLS) abort(); /* every slot in use */
  }
  call *c = &calls[ncalls++ % MAX_CALLS];
  memset(c, 0, sizeof *c);
  c->in_use = 1;
  c->client = id;
  c->answer = answered;
  c->base.fair_key = cl->key;
  c->base.cost_class = 2;
  c->base.cost_ns = cl->job;
  c->run_ns = cl->job;
  if (cl->retried) S.retries++;
  cl->in_flight = 1;
  submit(c);
}

static void answered(call *c, int status) {
  c->in_use = 0;
  client *cl = &clients[c->client];
  cl->in_flight = 0;
  uint64_t hint = c->base.retry_after_ns;
  if (status == 0) {
    if (cl->retried && cl->kind == LOOP) S.admitted++;
    if (cl->kind == USER) {
      cl->done = cl->ok = 1;
      cl->login_ns = P.now - cl->arrived;
    } else if (P.now < S.end) {
      S.logins++;
      cl->retried = 0;
      cl->arrived = P.now;
      cl->job = job_ns();
      wake_at(P.now + js_turn_ns, (int)(cl - clients));
    }
    return;
  }
  if (status == STATUS_EDISPLACED && cl->retried && cl->kind == LOOP) S.admitted++;
  if (cl->kind == FLOODER) {
    if (P.now < S.end) wake_at(P.now + S.flood_retry_ns, (int)(cl - clients));
    return;
  }
  if (S.retry_after)
    hint = (uint64_t)c->base.retry_after_s * 1000000000 + 20 * MS; /* Retry-After, a round trip */
  else if (js_turn_ns != 0)
    hint = (hint + MS - 1) / MS * MS + js_turn_ns; /* retryAfterMs, a timer */
  if (cl->kind == USER && P.now + hint - cl->arrived > 2000 * MS) {
    cl->done = 1;
    return;
  }
  cl->retried = 1;
  wake_at(P.now + hint, (int)(cl - clients));
}

/* Runs events until `until`: wake-ups and job ends, in time order. */
static void run_until(uint64_t until) {
  for (;;) {
    uint64_t t = until;
    int kind = 0, thr = -1;
    if (nwakes > 0 && wakes[0].at < t) t = wakes[0].at, kind = 1;
    for (int i = 0; i < THREADS; i++)
      if (P.open[i] != 0 && P.ends[i] < t) t = P.ends[i], kind = 2, thr = i;
    const pool_job *dl = sched_earliest(&P.s);
    if (dl != NULL && dl->deadline_ns < t) t = dl->deadline_ns, kind = 3;
    if (t > P.now) P.now = t;
    if (kind == 0) return;
    if (kind == 1) {
      send(pop_wake().client);
    } else if (kind == 2) {
      /* Every lane of the thread moves on; those with no work left end. */
      unsigned i = (unsigned)thr;
      double done = (double)(P.now - P.progressed[i]) / lane_slowdown[P.open[i]];
      call *ended[MAX_LANES];
      unsigned nended = 0;
      for (unsigned k = 0; k < P.batch_len[i]; k++) {
        if (P.batch[i][k] == NULL) continue;
        P.left[i][k] -= done;
        if (P.left[i][k] > 0.5) continue;
        ended[nended++] = P.batch[i][k];
        P.batch[i][k] = NULL;
      }
      P.progressed[i] = P.now;
      P.open[i] -= nended;
      P.running -= nended;
      for (unsigned k = 0; k < nended; k++)
        estimate_learn(&P.e, ended[k]->base.cost_class, ended[k]->base.cost_ns,
                       P.now - P.started[i]);
      if (P.open[i] == 0) {
        P.busy--;
        P.batch_len[i] = 0;
      } else {
        next_end(i);
      }
      if (P.queued == 0 && P.running == 0) sched_idle(&P.s);
      dispatch();
      for (unsigned k = 0; k < nended; k++) ended[k]->answer(ended[k], 0);
    } else {
      expire();
    }
  }
}

static void reset(unsigned max_queue) {
  memset(&P, 0, sizeof P);
  sched_init(&P.s);
  estimate_init(&P.e);
  P.max_queue = max_queue;
  nwakes = ncalls = nclients = 0;
  memset(&S, 0, sizeof S);
}

static void drain(void) {
  S.end = 0;
  run_until(P.now + 60000 * MS);
  sched_free(&P.s);
}

static int cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* ---- scenarios ---- */

static double retrying(int retry_after, double *per_s) {
  reset(4);
  S.retry_after = retry_after;
  S.end = 30000 * MS;
  for (int i = 0; i < 12; i++) {
    client *cl = &clients[nclients++];
    *cl = (client){ .kind = LOOP, .key = 100 + (uint64_t)i, .job = job_ns() };
    wake_at(0, i);
  }
  run_until(S.end);
  *per_s = S.logins / 30.0;
  double share = S.retries ? (double)S.admitted / S.retries : 1;
  drain();
  return share;
}

typedef struct {
  double success, p50_ms, p99_ms;
  unsigned users;
} users_result;

/* Users at 40 % of capacity for 30 s, beside `floods` flooders each
 * keeping `in_flight` calls going (one key each, or one key for all), and
 * a low-rate botnet: calls at `bot_load` x capacity, each from an address
 * not seen lately, behaving as users do. */
static users_result flooded_by(unsigned flood_keys, unsigned in_flight, uint64_t retry_ns,
                               int one_key, double bot_load) {
  reset(16);
  S.end = 30000 * MS;
  S.flood_retry_ns = retry_ns;
  unsigned floods = one_key ? in_flight : flood_keys;
  for (unsigned i = 0; i < floods; i++) {
    client *cl = &clients[nclients];
    *cl = (client){ .kind = FLOODER, .key = one_key ? 7 : 1000000 + i, .job = job_ns() };
    wake_at((uint64_t)(uniform() * 10 * MS), (int)nclients++);
  }
  /* Poisson arrivals: 40 % of 2 threads / 5 ms = 160 users/s. */
  double t = 200.0 * MS, rate = (0.4 + bot_load) * THREADS * 1000.0 / 5.0;
  unsigned first_user = nclients;
  while (t < (double)S.end) {
    client *cl = &clients[nclients];
    *cl = (client){ .kind = USER,
                    .key = 5000000 + nclients,
                    .arrived = (uint64_t)t,
                    .job = job_ns(),
                    .bot = bot_load > 0 && uniform() * (0.4 + bot_load) >= 0.4 };
    wake_at((uint64_t)t, (int)nclients++);
    t += -log(uniform()) / rate * 1e9;
  }
  run_until(S.end + 3000 * MS);
  users_result r = { 0 };
  for (unsigned i = first_user; i < nclients; i++) r.users += !clients[i].bot;
  uint64_t *ok = malloc(sizeof *ok * (r.users ? r.users : 1));
  unsigned n = 0;
  for (unsigned i = first_user; i < nclients; i++)
    if (clients[i].ok && !clients[i].bot) ok[n++] = clients[i].login_ns;
  qsort(ok, n, sizeof *ok, cmp);
  r.success = r.users ? (double)n / r.users : 0;
  r.p50_ms = n ? (double)ok[(n - 1) / 2] / MS : 0;
  r.p99_ms = n ? (double)ok[(n * 99 + 99) / 100 - 1] / MS : 0;
  free(ok);
  drain();
  return r;
}

static users_result flooded(unsigned flood_keys, unsigned in_flight, uint64_t retry_ns,
                            int one_key) {
  return flooded_by(flood_keys, in_flight, retry_ns, one_key, 0);
}

int main(int argc, char **argv) {
  int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  int limits = argc > 1 && strcmp(argv[1], "--limits") == 0;
  int batches = argc > 1 && strcmp(argv[1], "--batches") == 0;
  if (batches) {
    /* What the pool adds: figures to compare with the benchmark's, not
     * checked (bench/overload.js measures the real thing; see
     * docs/benchmarks.md on where it falls short of the goals). */
    lanes = MAX_LANES;
    js_turn_ns = 50000;
    printf("with batches of %u lanes and a JS turn of %.2f ms:\n", lanes, js_turn_ns / 1e6);
  }
  double per_s_ms, per_s_s;
  double ms = retrying(0, &per_s_ms), whole = retrying(1, &per_s_s);
  users_result idle = flooded(0, 0, 0, 0);
  users_result one = flooded(1, 40, 1 * MS, 1);
  users_result k100 = flooded(100, 1, 20 * MS, 0);
  users_result k1000 = flooded(1000, 1, 20 * MS, 0);
  if (limits) {
    /* Up to and past the memory (KEYS_MEMORY clients): what the checks do
     * not cover. */
    for (unsigned keys = 10000; keys <= 40000; keys *= 2) {
      users_result r = flooded(keys, 1, 20 * MS, 0);
      printf("%6u flooding keys  %u users, %.1f %% in, p50 %.1f ms, p99 %.1f ms (%.2fx idle)\n",
             keys, r.users, 100 * r.success, r.p50_ms, r.p99_ms, r.p99_ms / idle.p99_ms);
    }
    /* A low-rate botnet: every call from an address that has not called
     * lately looks like a user, and shares the threads as users do. */
    for (double load = 0.5; load <= 2; load *= 2) {
      users_result r = flooded_by(0, 0, 0, 0, load);
      printf(
          "botnet at %.1fx capacity  %u users, %.1f %% in, p50 %.1f ms, p99 %.1f ms (%.2fx idle)\n",
          load, r.users, 100 * r.success, r.p50_ms, r.p99_ms, r.p99_ms / idle.p99_ms);
    }
  }
  if (verbose || limits || batches) {
    printf("retrying, ms hints: %.1f %% admitted at the hint, %.0f logins/s\n", 100 * ms, per_s_ms);
    printf("retrying, Retry-After + 20 ms: %.1f %% admitted, %.0f logins/s\n", 100 * whole,
           per_s_s);
    const users_result *rows[] = { &idle, &one, &k100, &k1000 };
    const char *names[] = { "idle", "one flooder", "100 flooding keys", "1,000 flooding keys" };
    for (int i = 0; i < 4; i++)
      printf("%-20s %u users, %.1f %% in, p50 %.1f ms, p99 %.1f ms (%.2fx idle)\n", names[i],
             rows[i]->users, 100 * rows[i]->success, rows[i]->p50_ms, rows[i]->p99_ms,
             rows[i]->p99_ms / idle.p99_ms);
  }
  if (batches) return 0;
  CHECK_MSG(ms >= 0.8, "retries at millisecond hints admitted: %.1f %%", 100 * ms);
  CHECK_MSG(whole >= 0.8, "retries at Retry-After + 20 ms admitted: %.1f %%", 100 * whole);
  CHECK_MSG(idle.success == 1, "idle: %.1f %% of users in", 100 * idle.success);
  CHECK_MSG(one.success >= 0.99, "one flooder: %.1f %% of users in", 100 * one.success);
  CHECK_MSG(one.p99_ms <= 3 * idle.p99_ms, "one flooder: p99 %.1f ms, idle %.1f", one.p99_ms,
            idle.p99_ms);
  CHECK_MSG(k100.success >= 0.95, "100 keys: %.1f %% of users in", 100 * k100.success);
  CHECK_MSG(k1000.success >= 0.95, "1,000 keys: %.1f %% of users in", 100 * k1000.success);
  CHECK_MSG(k100.p99_ms <= 5 * idle.p99_ms, "100 keys: p99 %.1f ms, idle %.1f", k100.p99_ms,
            idle.p99_ms);
  CHECK_MSG(k1000.p99_ms <= 5 * idle.p99_ms, "1,000 keys: p99 %.1f ms, idle %.1f", k1000.p99_ms,
            idle.p99_ms);
  printf("sim_overload: %d checks passed, %d failed\n", check_passed, check_failed);
  return check_exit();
}
