/* The scheduler's parts on their own (src/pool/tree.c, keys.c, estimate.c,
 * sched.c): the order tree against a brute-force sorted array, the keys'
 * bounded memory, learned run times and the start-time prediction against
 * a brute-force list scheduler, and the tags start-time fair queuing
 * gives. test/native/sim_sched.c checks the whole discipline over time.
 * Build and run: make -f test/native/sched.mk [SAN=address|undefined] */
#include "check.h"
#include "common/status.h"
#include "pool/admit.h"
#include "pool/estimate.h"
#include "pool/keys.h"
#include "pool/sched.h"
#include "pool/tree.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long pool_steps;

/* The pool's clock, as the parts are given it. */
#define NOW 1000000000000ull

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(uint64_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return n != 0 ? rng_state % n : rng_state;
}

static unsigned log2_ceil(unsigned n) {
  unsigned b = 0;
  while ((1u << b) < n) b++;
  return b;
}

/* ---- tree ---- */

typedef struct {
  tree_node node;
  int in;
} item;

static int item_before(const item *a, const item *b) {
  return a->node.k1 < b->node.k1 || (a->node.k1 == b->node.k1 && a->node.k2 < b->node.k2);
}

/* Heights, aggregates, parent links and order, from the root down. */
static int tree_ok(const tree_node *n, const tree_node *parent, int *height, uint64_t *sum,
                   unsigned *count) {
  if (n == NULL) {
    *height = 0;
    *sum = 0;
    *count = 0;
    return 1;
  }
  int hl, hr;
  uint64_t sl, sr;
  unsigned cl, cr;
  if (n->parent != parent) return 0;
  if (!tree_ok(n->left, n, &hl, &sl, &cl) || !tree_ok(n->right, n, &hr, &sr, &cr)) return 0;
  if (hl - hr > 1 || hr - hl > 1) return 0;
  *height = 1 + (hl > hr ? hl : hr);
  *sum = sl + sr + n->weight;
  *count = cl + cr + 1;
  return n->height == *height && n->sum == *sum && n->count == *count;
}

static void test_tree_random(void) {
  enum { N = 3000 };
  item *items = calloc(N, sizeof *items);
  tree t = { 0 };
  unsigned in = 0, max_steps = 0;
  for (unsigned op = 0; op < 40000; op++) {
    item *it = &items[rnd(N)];
    pool_steps = 0;
    if (!it->in) {
      it->node.k1 = rnd(50); /* many equal k1: ties go by k2 */
      it->node.k2 = op;
      it->node.weight = rnd(1000);
      tree_insert(&t, &it->node);
      it->in = 1;
      in++;
    } else {
      tree_remove(&t, &it->node);
      it->in = 0;
      in--;
    }
    if (pool_steps > max_steps) max_steps = (unsigned)pool_steps;
    /* The kept ends against walks down from the root, after every step. */
    const tree_node *lo = t.root, *hi = t.root;
    while (lo != NULL && lo->left != NULL) lo = lo->left;
    while (hi != NULL && hi->right != NULL) hi = hi->right;
    CHECK(tree_first(&t) == lo);
    CHECK(tree_last(&t) == hi);
    if (op % 997 == 0) {
      int h;
      uint64_t s;
      unsigned c;
      CHECK(tree_ok(t.root, NULL, &h, &s, &c));
      CHECK_EQ(c, in);
      /* In-order walk: sorted, and every member present. */
      unsigned seen = 0;
      const item *prev = NULL;
      for (tree_node *n = tree_first(&t); n != NULL; n = tree_next(n), seen++) {
        const item *x = (const item *)n;
        CHECK(prev == NULL || item_before(prev, x));
        prev = x;
      }
      CHECK_EQ(seen, in);
      /* Backwards: the same members, in reverse. */
      unsigned back = 0;
      for (tree_node *n = tree_last(&t); n != NULL; n = tree_prev(n)) back++;
      CHECK_EQ(back, in);
      /* upto() against a brute-force sum, for a few k1. */
      for (unsigned q = 0; q < 5; q++) {
        uint64_t k = rnd(52), want_s = 0, got_s;
        unsigned want_c = 0, got_c;
        for (unsigned i = 0; i < N; i++) {
          if (items[i].in && items[i].node.k1 <= k) {
            want_s += items[i].node.weight;
            want_c++;
          }
        }
        tree_before(&t, k, UINT64_MAX, &got_s, &got_c);
        CHECK_EQ(got_s, want_s);
        CHECK_EQ(got_c, want_c);
      }
      CHECK(tree_first(&t) == NULL || ((item *)tree_first(&t))->in);
    }
  }
  /* An AVL tree of n nodes is at most 1.44 log2(n) deep; insert and remove
   * walk a path down and back up. */
  CHECK_MSG(max_steps <= 6 * log2_ceil(N) + 8, "steps per operation %u", max_steps);
  free(items);
}

/* ---- keys' memory ---- */

static void test_memory_bounded(void) {
  keys k;
  CHECK_EQ(keys_init(&k), 0);
  uint64_t vtime = 1000;
  /* Remember many more keys than fit: the table holds at most KEYS_MEMORY,
   * and the ones furthest ahead survive. */
  for (uint64_t id = 1; id <= 20000; id++) {
    key_state *s = keys_open(&k, id, vtime);
    CHECK(s != NULL);
    s->rec.finish = vtime + id; /* later ids further ahead */
    keys_close(&k, s, vtime);
  }
  CHECK(keys_remembered(&k, vtime) <= KEYS_MEMORY);
  CHECK(keys_remembered(&k, vtime) >= KEYS_MEMORY * 3 / 4);
  CHECK_EQ(keys_recall(&k, 20000, vtime).finish, vtime + 20000); /* the furthest ahead */
  unsigned early = 0;
  for (uint64_t id = 1; id <= 1000; id++) early += keys_recall(&k, id, vtime).finish != 0;
  CHECK(early < 50); /* the least ahead gave way */
  /* Once virtual time passes a finish, it is forgotten (free). */
  CHECK_EQ(keys_recall(&k, 20000, vtime + 20000).finish, 0);
  CHECK_EQ(keys_remembered(&k, vtime + 20001), 0);
  /* Opening a remembered key takes its record out of the memory into its
   * state, and closing it puts it back. */
  unsigned before = keys_remembered(&k, vtime);
  key_state *s = keys_open(&k, 19999, vtime);
  CHECK_EQ(s->rec.finish, vtime + 19999);
  CHECK_EQ(keys_remembered(&k, vtime), before - 1);
  keys_close(&k, s, vtime);
  CHECK_EQ(keys_remembered(&k, vtime), before);
  CHECK_EQ(keys_recall(&k, 19999, vtime).finish, vtime + 19999);
  /* Key 0, the shared key, is remembered apart. */
  s = keys_open(&k, 0, vtime);
  s->rec.finish = vtime + 5;
  keys_close(&k, s, vtime);
  CHECK_EQ(keys_recall(&k, 0, vtime).finish, vtime + 5);
  CHECK_EQ(k.nkeys, 0);
  keys_free(&k);
}

/* ---- estimates ---- */

/* Brute-force list scheduling: the start time of the job after n jobs of
 * `c` each, with threads free at f[] (idle: 0). */
static double brute_start(const uint64_t *left, unsigned nbusy, unsigned threads, double c,
                          unsigned n) {
  double free_at[64];
  unsigned m = threads > nbusy ? threads : nbusy;
  for (unsigned i = 0; i < m; i++) free_at[i] = i < nbusy ? (double)left[i] : 0;
  for (unsigned j = 0; j <= n; j++) {
    unsigned best = 0;
    for (unsigned i = 1; i < m; i++)
      if (free_at[i] < free_at[best]) best = i;
    if (j == n) return free_at[best];
    free_at[best] += c;
  }
  return 0;
}

/* The charged keys (keys_backlogged): against a count the long way, over
 * random charges, opens, closes, evictions (more ids than the memory
 * holds) and virtual time passing the marks. */
static unsigned charged_the_long_way(const keys *k, uint64_t vtime) {
  unsigned n = k->nkeys + (k->shared.mark > vtime);
  if (k->memory != NULL)
    for (unsigned i = 0; i < KEYS_MEMORY; i++) n += k->memory[i].rec.mark > vtime;
  return n;
}

static void test_charged_keys(void) {
  keys k;
  CHECK_EQ(keys_init(&k), 0);
  uint64_t vtime = 1000, rng = 99;
  enum { OPEN = 64 };
  key_state *open[OPEN] = { 0 };
  unsigned worst_heap = 0;
  for (unsigned step = 0; step < 200000; step++) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    unsigned r = (unsigned)(rng >> 33);
    uint64_t id = r % 3 == 0 ? (uint64_t)(r % 64) : (uint64_t)(r % 40000); /* 0 now and then */
    switch (r % 7) {
      case 0:
      case 1:
      case 2: /* a refusal's charge, a few jobs ahead */
        keys_charge(&k, id, 1 + (r >> 8) % 100, vtime + 400, vtime);
        break;
      case 3: { /* a key gets queued jobs */
        unsigned i = (r >> 4) % OPEN;
        if (open[i] == NULL && keys_find(&k, id) == NULL) open[i] = keys_open(&k, id, vtime);
        break;
      }
      case 4: { /* and its last one leaves */
        unsigned i = (r >> 4) % OPEN;
        if (open[i] != NULL) {
          open[i]->rec.finish = vtime + (r >> 12) % 100;
          keys_close(&k, open[i], vtime);
          open[i] = NULL;
        }
        break;
      }
      default: /* virtual time moves, in spells: the memory fills, then empties */
        if ((step / 20000) % 2 == 1) vtime += (r >> 8) % 9;
        break;
    }
    CHECK_EQ(keys_backlogged(&k, vtime), charged_the_long_way(&k, vtime));
    if (k.ncharged > worst_heap) worst_heap = k.ncharged;
  }
  CHECK(worst_heap > 1000); /* the heap was exercised, evictions too */
  CHECK(worst_heap <= KEYS_MEMORY);
  for (unsigned i = 0; i < OPEN; i++)
    if (open[i] != NULL) keys_close(&k, open[i], vtime);
  /* Past every mark, only keys with queued jobs count, and none is left. */
  CHECK_EQ(keys_backlogged(&k, vtime + 1000), 0);
  CHECK_EQ(k.ncharged, 0);
  keys_free(&k);
}

static void test_start_times(void) {
  for (unsigned trial = 0; trial < 3000; trial++) {
    unsigned threads = 1 + (unsigned)rnd(8), nbusy = (unsigned)rnd(threads + 1);
    uint64_t left[64];
    for (unsigned i = 0; i < nbusy; i++) left[i] = rnd(50) * 100000;
    unsigned n = (unsigned)rnd(40);
    uint64_t c = 1 + rnd(20) * 50000;
    uint64_t got = estimate_start_ns(left, nbusy, threads, c * n, n);
    double want = brute_start(left, nbusy, threads, (double)c, n);
    /* The cheap bound a far deadline is judged on never undercuts it. */
    CHECK(estimate_start_bound_ns(left, nbusy, threads, c * n, n) + 1000 >= got);
    CHECK_MSG(fabs((double)got - want) <= 2000, "threads %u busy %u n %u: %llu vs %.0f", threads,
              nbusy, n, (unsigned long long)got, want);
  }
  /* One long job on one of two threads and nothing ahead: start now. */
  uint64_t long_left[] = { 2800000000ull };
  CHECK_EQ(estimate_start_ns(long_left, 1, 2, 0, 0), 0);
  /* Two jobs of 17 ms ahead: the free thread takes both: 34 ms. */
  uint64_t got = estimate_start_ns(long_left, 1, 2, 34000000, 2);
  CHECK(got >= 33990000 && got <= 34010000);
  /* One thread, busy 2.8 s more: nothing starts before then. */
  CHECK(estimate_start_ns(long_left, 1, 1, 0, 0) == 2800000000ull);
}

static void test_learning(void) {
  estimate e;
  estimate_init(&e);
  const unsigned pbkdf2 = 3, scrypt = 9;
  CHECK(estimate_scale(&e, pbkdf2) == 1.0);
  /* Expensive jobs of a class run 1.5x their prediction. */
  for (int i = 0; i < 40; i++)
    estimate_learn(&e, pbkdf2, 10000000, POOL_JOB_OVERHEAD_NS + 15000000);
  double learned = estimate_scale(&e, pbkdf2);
  CHECK(learned > 1.45 && learned < 1.55);
  /* Then a thousand 1-iteration jobs whose run is 20x their 300 ns
   * prediction (fixed costs beyond the overhead): the scale of the class
   * barely moves. */
  for (int i = 0; i < 1000; i++) estimate_learn(&e, pbkdf2, 300, POOL_JOB_OVERHEAD_NS + 6000);
  CHECK_MSG(fabs(estimate_scale(&e, pbkdf2) - learned) / learned < 0.05, "scale %.3f after %.3f",
            estimate_scale(&e, pbkdf2), learned);
  /* Classes never share a scale. */
  CHECK(estimate_scale(&e, scrypt) == 1.0);
  /* One preempted job (100x) moves it at most 8x of its own weight. */
  double before = estimate_scale(&e, pbkdf2);
  estimate_learn(&e, pbkdf2, 10000000, 1000000000);
  CHECK(estimate_scale(&e, pbkdf2) < before * 8);
  /* A real slow-down gets through in a few jobs. */
  for (int i = 0; i < 20; i++) estimate_learn(&e, pbkdf2, 10000000, 40000000);
  CHECK(estimate_scale(&e, pbkdf2) > 3.5);
  /* Jobs that predict nothing: their class's mean run time. */
  CHECK_EQ(estimate_run_ns(&e, 0, 0), 0);
  estimate_learn(&e, 0, 0, 5000000);
  CHECK_EQ(estimate_run_ns(&e, 0, 0), 5000000);
  /* Batches of 4 make a job a quarter of a thread, once a job of the
   * class has run (its scale then says how long a batch's job runs).
   * Before, a batchable job's cost (its share of a full batch) is taken
   * times sqrt(batch_max): the middle, by ratio, of a full batch's share
   * and a lone job's most. A job that does not batch: its cost. */
  estimate_init(&e);
  for (int i = 0; i < 60; i++) estimate_batch(&e, pbkdf2, 4);
  uint64_t run = estimate_run_ns(&e, pbkdf2, 1000000),
           share = estimate_thread_ns(&e, pbkdf2, 1000000, 4);
  CHECK_EQ(share, POOL_JOB_OVERHEAD_NS + 2000000);
  CHECK_EQ(estimate_thread_ns(&e, pbkdf2, 1000000, 16), POOL_JOB_OVERHEAD_NS + 4000000);
  CHECK_EQ(estimate_thread_ns(&e, pbkdf2, 1000000, 1), run);
  /* One job of the class moves it part of the way, a dozen nearly all. */
  estimate_learn(&e, pbkdf2, 1000000, POOL_JOB_OVERHEAD_NS + 1000000);
  run = estimate_run_ns(&e, pbkdf2, 1000000);
  share = estimate_thread_ns(&e, pbkdf2, 1000000, 4);
  CHECK(share < POOL_JOB_OVERHEAD_NS + 2000000 && share * 4 > run + run / 10);
  for (int i = 0; i < 12; i++) estimate_learn(&e, pbkdf2, 1000000, POOL_JOB_OVERHEAD_NS + 1000000);
  run = estimate_run_ns(&e, pbkdf2, 1000000);
  share = estimate_thread_ns(&e, pbkdf2, 1000000, 4);
  CHECK_MSG(share * 4 >= run - run / 10 && share * 4 <= run + run / 10, "share %llu run %llu",
            (unsigned long long)share, (unsigned long long)run);
  /* Tiny jobs too leave the cold guess within a dozen jobs. */
  estimate_init(&e);
  for (int i = 0; i < 60; i++) estimate_batch(&e, pbkdf2, 4);
  for (int i = 0; i < 12; i++) estimate_learn(&e, pbkdf2, 50, POOL_JOB_OVERHEAD_NS + 200);
  share = estimate_thread_ns(&e, pbkdf2, 50, 4);
  CHECK_MSG(share < POOL_JOB_OVERHEAD_NS / 2, "tiny share %llu", (unsigned long long)share);
  CHECK(estimate_thread_ns(&e, scrypt, 1000000, 1) == estimate_run_ns(&e, scrypt, 1000000));
}

/* ---- tags ---- */

static pool_job *jobs_of(unsigned n) {
  pool_job *j = calloc(n, sizeof *j);
  if (j == NULL) abort();
  return j;
}

static void push(sched *s, pool_job *j, uint64_t key, uint64_t cost) {
  j->fair_key = key;
  j->expect_ns = cost;
  CHECK_EQ(sched_push(s, j, 0, 0), 0);
}

static pool_job *take(sched *s) {
  pool_job *j = sched_head(s);
  if (j != NULL) sched_start(s, j);
  return j;
}

static void test_tags(void) {
  sched s;
  CHECK_EQ(sched_init(&s), 0);
  pool_job *j = jobs_of(64);
  /* No keys: one key, FIFO whatever the costs. */
  for (unsigned i = 0; i < 20; i++) push(&s, &j[i], 0, 1 + (i * 7919) % 1000);
  for (unsigned i = 0; i < 20; i++) CHECK(take(&s) == &j[i]);
  CHECK(sched_head(&s) == NULL);
  CHECK_EQ(sched_keys(&s), 0);
  sched_idle(&s);

  /* Key 1 queues 4 jobs of 100 while key 2 waits too: a newcomer (key 3)
   * comes in at virtual time, before key 1's later jobs, and in arrival
   * order among equal tags. */
  uint64_t v = s.vtime;
  for (unsigned i = 0; i < 4; i++) push(&s, &j[i], 1, 100);
  push(&s, &j[4], 2, 100);
  CHECK_EQ(j[3].tag, v + 300);
  CHECK_EQ(j[4].tag, v);
  CHECK(take(&s) == &j[0]); /* B = 2: V moves 50 */
  CHECK_EQ(s.vtime, v + 50);
  push(&s, &j[5], 3, 100);
  CHECK_EQ(j[5].tag, v + 50);
  CHECK(take(&s) == &j[4]);
  CHECK(take(&s) == &j[5]);
  CHECK(take(&s) == &j[1]);
  CHECK(take(&s) == &j[2]);
  CHECK(take(&s) == &j[3]);
  CHECK_EQ(sched_keys(&s), 0);
  sched_idle(&s);
  CHECK_EQ(sched_tag(&s, 1), s.vtime); /* an idle pool forgets */

  /* The work ahead of a tag, and the last job. */
  push(&s, &j[40], 6, 300);
  push(&s, &j[41], 6, 300);
  push(&s, &j[42], 7, 50);
  uint64_t work;
  unsigned n;
  sched_ahead(&s, s.vtime, UINT64_MAX, &work, &n);
  CHECK_EQ(n, 2); /* j40 and j42 at virtual time */
  CHECK_EQ(work, 350);
  CHECK(sched_last(&s) == &j[41]);
  while (take(&s) != NULL) {
  }
  sched_free(&s);
  free(j);
}

/* Virtual time moves with the work served whatever the keys: one-shot
 * keys (one job each, all tagged V) move it as one key would, so a
 * client served once and back a round later is level with newcomers. */
static void test_virtual_time(void) {
  sched s;
  CHECK_EQ(sched_init(&s), 0);
  pool_job *j = jobs_of(200);
  uint64_t v0 = s.vtime;
  push(&s, &j[0], 1, 100); /* the returning client */
  for (unsigned i = 1; i < 9; i++) push(&s, &j[i], 1000 + i, 100);
  CHECK(take(&s) == &j[0]);
  /* A stream of one-shot keys: 8 queued at all times. */
  for (unsigned i = 9; i < 100; i++) {
    uint64_t before = s.vtime;
    take(&s);
    CHECK(s.vtime > before); /* never stands still */
    push(&s, &j[i], 1000 + i, 100);
  }
  CHECK(s.vtime >= v0 + 91 * 100 / 9);
  /* Key 1 was served one job 91 starts ago: it is level with a newcomer. */
  CHECK_EQ(sched_tag(&s, 1), sched_tag(&s, 999999));
  while (take(&s) != NULL) {
  }
  sched_free(&s);
  free(j);
}

/* A job that leaves unrun takes its charge with it, wherever it stood
 * among its key's jobs: the key's later jobs are tagged as if it had
 * never been queued, at once or at a bulk removal's flush; a rider
 * started ahead of older jobs stays charged; a refusal marks the key one
 * job ahead, at most SCHED_REFUSAL_LEAD. */
static void test_charges(void) {
  sched s;
  CHECK_EQ(sched_init(&s), 0);
  pool_job *j = jobs_of(64);
  uint64_t v = s.vtime;
  /* Newest out: its tag back. */
  push(&s, &j[0], 5, 100);
  push(&s, &j[1], 5, 100);
  CHECK_EQ(sched_tag(&s, 5), v + 200);
  sched_remove(&s, &j[1]);
  CHECK_EQ(sched_tag(&s, 5), v + 100);
  /* Oldest out: the later ones move up. */
  push(&s, &j[2], 5, 100);
  push(&s, &j[3], 5, 100);
  sched_remove(&s, &j[0]);
  CHECK_EQ(j[2].tag, v);
  CHECK_EQ(j[3].tag, v + 100);
  CHECK_EQ(sched_tag(&s, 5), v + 200);
  /* A middle one, in a bulk removal: tagged at the flush. */
  push(&s, &j[4], 5, 100);
  sched_defer(&s);
  sched_remove(&s, &j[3]);
  sched_remove(&s, &j[2]);
  sched_flush(&s);
  CHECK_EQ(j[4].tag, v);
  CHECK_EQ(sched_tag(&s, 5), v + 100);
  /* The case: 7 queued, the 6 oldest shed, newcomers after: the
   * newest runs first. */
  sched_remove(&s, &j[4]);
  CHECK_EQ(sched_keys(&s), 0);
  sched_idle(&s);
  v = s.vtime;
  for (unsigned i = 10; i < 17; i++) push(&s, &j[i], 9, 100);
  sched_defer(&s);
  for (unsigned i = 10; i < 16; i++) sched_remove(&s, &j[i]);
  sched_flush(&s);
  for (unsigned i = 20; i < 24; i++) push(&s, &j[i], 100 + i, 100);
  CHECK(take(&s) == &j[16]);
  while (take(&s) != NULL) {
  }
  sched_idle(&s);
  /* A rider ahead of its key's older job stays charged when that job
   * leaves: its key's next job starts after both. */
  v = s.vtime;
  push(&s, &j[30], 11, 100);
  push(&s, &j[31], 11, 100);
  push(&s, &j[32], 11, 100);
  push(&s, &j[33], 12, 1000); /* another key keeps virtual time back */
  sched_start(&s, &j[31]);    /* a rider: B = 2, V + 50 */
  sched_remove(&s, &j[30]);
  CHECK_EQ(j[32].tag, v + 100); /* after the rider's 100, not at v */
  while (take(&s) != NULL) {
  }
  sched_idle(&s);
  /* Refusals: one job ahead each, at most SCHED_REFUSAL_LEAD. */
  v = s.vtime;
  sched_refused(&s, 40, 100);
  CHECK_EQ(sched_tag(&s, 40), v + 100);
  for (int i = 0; i < 10; i++) sched_refused(&s, 40, 100);
  CHECK_EQ(sched_tag(&s, 40), v + SCHED_REFUSAL_LEAD * 100);
  sched_idle(&s);
  CHECK_EQ(sched_tag(&s, 40), s.vtime);
  sched_free(&s);
  free(j);
}

/* ---- admission beside a batch ---- */

static unsigned stub_before;

static unsigned stub_riders_before(const void *ctx, uint64_t key, uint64_t tag, uint64_t order) {
  (void)ctx;
  (void)key;
  (void)tag;
  (void)order;
  return stub_before;
}

static unsigned one_busy(const void *ctx, uint64_t now, uint64_t *left) {
  (void)ctx;
  (void)now;
  left[0] = 1000;
  return 1;
}

/* One thread runs a batch of 4 (3 riders), max_queue 3: the places are
 * taken. Riders placed before a call hold their places against it; one
 * placed after it cannot give way (it is under way), so the call takes a
 * place beyond it. A queued job placed after the call is displaced as
 * ever. */
static void test_riders(void) {
  sched s;
  CHECK_EQ(sched_init(&s), 0);
  pool_job *j = jobs_of(9);
  admit_view v = { .threads = 1,
                   .max_queue = 3,
                   .waiting = 3,
                   .places = 3,
                   .slowdown = 1,
                   .busy_left = one_busy,
                   .busy_until = NOW + 1000,
                   .riders_before = stub_riders_before,
                   .ctx = NULL };
  static admit_hints hints;
  admit_place place;
  pool_job *victim = &j[7];
  for (unsigned i = 0; i < 8; i++) j[i].expect_ns = 100, j[i].fair_key = 10 + i;
  stub_before = 3;
  CHECK_EQ(admit_decide(&s, &v, &hints, &j[0], NOW, &victim, &place), STATUS_EFULL);
  CHECK(victim == NULL && j[0].retry_after_ns > 0);
  stub_before = 2;
  CHECK_EQ(admit_decide(&s, &v, &hints, &j[1], NOW, &victim, &place), 0);
  CHECK(victim == NULL);
  /* Without the view's answer every rider counts. */
  v.riders_before = NULL;
  CHECK_EQ(admit_decide(&s, &v, &hints, &j[2], NOW, &victim, &place), STATUS_EFULL);
  /* One queued (placed before: the same key's older job) and 2 riders before
   * it take the 3 places: refused. (Key 20 was refused 3 times: its queued
   * job is placed 3 jobs after a newcomer's.) */
  v.riders_before = stub_riders_before;
  for (int i = 0; i < 3; i++) sched_refused(&s, 20, 100);
  push(&s, &j[3], 20, 100);
  j[4].fair_key = 20;
  v.waiting = 4; /* 1 queued + 3 riders */
  CHECK_EQ(admit_decide(&s, &v, &hints, &j[4], NOW, &victim, &place), STATUS_EFULL);
  /* A newcomer is placed before that queued job: it displaces it. */
  CHECK_EQ(admit_decide(&s, &v, &hints, &j[5], NOW, &victim, &place), 0);
  CHECK(victim == &j[3]);
  /* With 1 rider before it, queued + 1 < 3: it enters beyond the rest. */
  stub_before = 1;
  CHECK_EQ(admit_decide(&s, &v, &hints, &j[6], NOW, &victim, &place), 0);
  CHECK(victim == NULL);
  while (take(&s) != NULL) {
  }
  sched_free(&s);
  free(j);
}

/* Deadlines are their own order: the earliest first, whatever the tags. */
static void test_deadline_order(void) {
  sched s;
  CHECK_EQ(sched_init(&s), 0);
  pool_job *j = jobs_of(8);
  for (unsigned i = 0; i < 8; i++) {
    j[i].deadline_ns = i % 2 == 0 ? 0 : 1000 - i * 10;
    push(&s, &j[i], i, 100);
  }
  CHECK(sched_earliest(&s) == &j[7]);
  sched_remove(&s, &j[7]);
  CHECK(sched_earliest(&s) == &j[5]);
  sched_start(&s, &j[5]);
  CHECK(sched_earliest(&s) == &j[3]);
  while (take(&s) != NULL) {
  }
  CHECK(sched_earliest(&s) == NULL);
  sched_free(&s);
  free(j);
}

/* Deadlines that come in order go to a list, the others to a tree; the
 * earliest is the first of either, through removals from both and from
 * the list's middle and ends, and equal deadlines keep arrival order.
 * Checked against a scan of what is queued after every step. */
static void test_deadline_list(void) {
  sched s;
  CHECK_EQ(sched_init(&s), 0);
  enum { N = 200 };
  pool_job *j = jobs_of(N);
  int queued[N] = { 0 };
  uint64_t rng = 12345;
  for (unsigned i = 0; i < N; i++) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    unsigned r = (unsigned)(rng >> 33);
    /* Mostly ascending (one maxWaitMs), some earlier, some equal, some none. */
    j[i].deadline_ns = r % 10 == 0   ? 0
                       : r % 10 == 1 ? 5000 + r % 300
                                     : 5000 + i * 10 - (r % 3) * 10;
    push(&s, &j[i], i % 7, 100);
    queued[i] = 1;
    if (r % 4 == 0) { /* take one out: a random queued one */
      unsigned k = (r >> 8) % (i + 1);
      if (queued[k]) {
        sched_remove(&s, &j[k]);
        queued[k] = 0;
      }
    } else if (r % 4 == 1) { /* or start the head */
      pool_job *x = take(&s);
      if (x != NULL) queued[x - j] = 0;
    }
    const pool_job *want = NULL;
    for (unsigned k = 0; k <= i; k++) {
      if (!queued[k] || j[k].deadline_ns == 0) continue;
      if (want == NULL || j[k].deadline_ns < want->deadline_ns) want = &j[k];
    }
    CHECK(sched_earliest(&s) == want);
  }
  for (pool_job *x; (x = take(&s)) != NULL;) queued[x - j] = 0;
  CHECK(sched_earliest(&s) == NULL);
  sched_free(&s);
  free(j);
}

/* Displacement needs a margin of more than one of the caller's jobs. */
static void test_gives_way(void) {
  CHECK(!admit_gives_way(100, 100, 100));
  CHECK(!admit_gives_way(200, 100, 100));
  CHECK(admit_gives_way(201, 100, 100));
  CHECK(!admit_gives_way(50, 100, 100));
}

/* Promises: a window around the hint, one per key, forfeited early and
 * gone late; when full, a later-placed one gives way to an earlier. */
static void test_promises(void) {
  static promises ps;
  int early;
  promises_init(&ps);
  uint64_t due, until;
  promise_window(NOW, 20000000, 0, &due, &until);
  CHECK_EQ(due, NOW + 20000000 - PROMISE_EARLY_NS);
  CHECK_EQ(until, NOW + 20000000 + PROMISE_LATE_NS);
  promise_window(NOW, 800, 0, &due, &until);
  CHECK_EQ(due, NOW + 400); /* at most half the hint early */
  promise_window(NOW, 20000000, 2, &due, &until);
  CHECK_EQ(until, NOW + 2000000000ull + PROMISE_SECONDS_LATE_NS);
  promise p = { .key = 7, .tag = 100, .order = 5, .due_ns = NOW + 10, .until_ns = NOW + 20 };
  promises_keep(&ps, &p, NOW);
  CHECK(promises_due(&ps, 8, NOW + 15, &early) == NULL);
  CHECK(promises_due(&ps, 7, NOW + 5, &early) == NULL); /* early: forfeited */
  CHECK(early);
  CHECK(promises_due(&ps, 7, NOW + 15, &early) == NULL);
  promises_keep(&ps, &p, NOW);
  const promise *got = promises_due(&ps, 7, NOW + 15, &early);
  CHECK(got != NULL && got->tag == 100 && got->order == 5);
  promises_drop(&ps, got);
  CHECK_EQ(ps.n, 0);
  promises_keep(&ps, &p, NOW);
  CHECK(promises_due(&ps, 7, NOW + 21, &early) == NULL); /* late: gone */
  CHECK(!early);
  CHECK_EQ(ps.n, 0);
  /* Full: a new promise placed before the last-placed takes its entry. */
  for (unsigned i = 0; i < PROMISE_MAX; i++) {
    promise q = {
      .key = 100 + i, .tag = 1000 + i, .order = i + 1, .due_ns = NOW, .until_ns = NOW + 100
    };
    promises_keep(&ps, &q, NOW);
  }
  promise late = { .key = 1, .tag = 5000, .order = 9999, .due_ns = NOW, .until_ns = NOW + 100 };
  promises_keep(&ps, &late, NOW);
  CHECK(promises_due(&ps, 1, NOW, &early) == NULL); /* placed after all: not kept */
  promise first = { .key = 2, .tag = 10, .order = 9998, .due_ns = NOW, .until_ns = NOW + 100 };
  promises_keep(&ps, &first, NOW);
  CHECK(promises_due(&ps, 2, NOW, &early) != NULL);
  CHECK(promises_due(&ps, 100 + PROMISE_MAX - 1, NOW, &early) ==
        NULL); /* the last placed gave way */
  /* Past their windows, entries are free again. */
  promise again = {
    .key = 1, .tag = 5000, .order = 9999, .due_ns = NOW + 200, .until_ns = NOW + 300
  };
  promises_keep(&ps, &again, NOW + 200);
  CHECK(promises_due(&ps, 1, NOW + 250, &early) != NULL);
}

/* Whole seconds (retry_seconds.c): refusals that come together are spread
 * over the seconds, a queue's places to each; heavier clients' promises do
 * not count against a lighter one's, nor push them out of the memory; due
 * ones and ones a window away do not count; the spread is bounded. */
static void test_retry_seconds(void) {
  const uint64_t ms = 1000000, s = 1000 * ms, step = 2500000; /* 5 ms jobs on 2 threads */
  uint64_t window;
  unsigned room;
  retry_seconds_window(step, 4, &window, &room);
  CHECK(room == 4 && window == 10 * ms);
  retry_seconds_window(step, 1000, &window, &room); /* half the memory */
  CHECK(room == RETRY_SECONDS_MEMORY / 2 && window == room * step);
  retry_seconds_window(400 * ms, 4, &window, &room); /* one job is most of the widest window */
  CHECK(room == 1 && window == 400 * ms);
  retry_seconds_window(0, 0, &window, &room);
  CHECK(room == 1 && window == 1);
  retry_seconds_window(step, 4, &window, &room);

  /* Six clients refused in one moment, hints of tens of ms: four places a
   * second. */
  retry_seconds r;
  memset(&r, 0, sizeof r);
  unsigned told[6];
  for (unsigned i = 0; i < 6; i++)
    told[i] = retry_seconds_tell(&r, 5 * s, (17 + 6 * i) * ms, step, 4, 10);
  CHECK(told[0] == 1 && told[3] == 1 && told[4] == 2 && told[5] == 2);
  /* A hint over a second starts from its own second. */
  CHECK_EQ(retry_seconds_tell(&r, 5 * s, 1200 * ms, step, 4, 10), 2);
  /* A window later, the first second is free again; so is a due one. */
  CHECK_EQ(retry_seconds_tell(&r, 5 * s + window, 20 * ms, step, 4, 10), 1);
  CHECK_EQ(retry_seconds_counted(&r, 6 * s, 10, window), 4);
  CHECK_EQ(retry_seconds_counted(&r, 6 * s + window, 10, window), 1);
  CHECK_EQ(retry_seconds_tell(&r, 6 * s, 20 * ms, step, 4, 10), 1); /* 7 s: 3 of 4 */

  /* A flood (level 40: 30 doublings more use) refused 200 times in the
   * same moment: spread to its bound, each second alike; none of its
   * promises counts against a light client, nor pushes a light client's
   * promise out of the memory. */
  memset(&r, 0, sizeof r);
  for (unsigned i = 0; i < 4; i++) CHECK_EQ(retry_seconds_tell(&r, 5 * s, 20 * ms, step, 4, 10), 1);
  for (unsigned i = 0; i < 200; i++) {
    unsigned t = retry_seconds_tell(&r, 5 * s, 20 * ms, step, 4, 40);
    CHECK(t >= 1 && t <= 1 + RETRY_SECONDS_SPREAD);
    CHECK(i >= 8 || t > 1); /* the light clients' four took the first */
  }
  CHECK_EQ(retry_seconds_counted(&r, 6 * s, 10, window), 4);
  CHECK_EQ(retry_seconds_tell(&r, 5 * s, 20 * ms, step, 4, 10 + RETRY_SECONDS_SLACK + 1), 2);
  CHECK_EQ(retry_seconds_tell(&r, 5 * s, 20 * ms, step, 4, 9), 2);
  /* Within the slack, a client counts the others' promises. */
  CHECK_EQ(retry_seconds_tell(&r, 5 * s, 20 * ms, step, 4, 10 + RETRY_SECONDS_SLACK), 2);
}

int main(void) {
  test_tree_random();
  test_memory_bounded();
  test_charged_keys();
  test_start_times();
  test_learning();
  test_tags();
  test_virtual_time();
  test_charges();
  test_gives_way();
  test_promises();
  test_deadline_order();
  test_deadline_list();
  test_riders();
  test_retry_seconds();
  printf("sched: %d passed, %d failed\n", check_passed, check_failed);
  return check_exit();
}
