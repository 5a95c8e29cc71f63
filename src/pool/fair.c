/* Per-key queues in deficit round-robin, and reservations (fair.h).
 *
 * The keys with queued jobs form a ring; `cursor` is the key whose turn it
 * is. A key earns `quantum` when its turn comes and pays each job's cost
 * from what it has earned; when it cannot pay for its next job its turn
 * ends (what it kept carries over) and the next key's begins. Since the
 * quantum is at least the largest queued cost, a key whose turn begins can
 * always pay: finding the next job looks at two keys at most. A key that
 * runs out of jobs leaves the ring and forgets what it had earned, as DRR
 * does, so an idle key cannot save up a burst. */
#include "pool/fair.h"

#include "common/fault.h"

#include <stdlib.h>

struct fair_key {
  uint64_t id;
  fair_key *chain; /* next in its hash bucket */
  /* In the ring while it has queued jobs. */
  fair_key *ring_prev, *ring_next;
  pool_job *head, *tail;
  uint64_t work;    /* predicted cost of its queued jobs */
  uint64_t deficit; /* earned and not yet spent in its current turn */
  int turn_begun;   /* it has earned this turn's quantum */
  /* Its reservation, and its place in the pending or the held list. */
  enum fair_reservation res;
  uint64_t res_due_ns, res_until_ns;
  fair_key *res_prev, *res_next;
};

#define FAIR_MIN_BUCKETS 64
/* Freed key states kept for reuse, so that a stream of calls from keys that
 * come and go does not allocate for each. */
#define FAIR_MAX_SPARE   64

int fair_init(fair_queue *q) {
  *q = (fair_queue){ 0 };
  q->buckets = KDF_CALLOC(FAIR_MIN_BUCKETS, sizeof *q->buckets);
  if (q->buckets == NULL) return -1;
  q->nbuckets = FAIR_MIN_BUCKETS;
  return 0;
}

void fair_free(fair_queue *q) {
  for (unsigned i = 0; i < q->nbuckets; i++) {
    for (fair_key *k = q->buckets[i], *next; k != NULL; k = next) {
      next = k->chain;
      KDF_FREE(k);
    }
  }
  while (q->spare != NULL) {
    fair_key *k = q->spare;
    q->spare = k->chain;
    KDF_FREE(k);
  }
  KDF_FREE(q->buckets);
  *q = (fair_queue){ 0 };
}

/* ---- key states ---- */

static fair_key **bucket_of(const fair_queue *q, uint64_t id) {
  /* Ids are hashes already (the submitter's, seeded); mix once more so a
   * poor hash cannot crowd one bucket. */
  uint64_t h = id * 0x9E3779B97F4A7C15ull;
  return &q->buckets[(h >> 32) & (q->nbuckets - 1)];
}

static fair_key *find(const fair_queue *q, uint64_t id) {
  fair_key *k = *bucket_of(q, id);
  while (k != NULL && k->id != id) k = k->chain;
  return k;
}

/* Doubles the buckets when keys outnumber them; if that allocation fails the
 * chains just grow longer. */
static void grow(fair_queue *q) {
  if (q->nkeys <= q->nbuckets) return;
  unsigned n = q->nbuckets * 2;
  fair_key **b = KDF_CALLOC(n, sizeof *b);
  if (b == NULL) return;
  fair_key **old = q->buckets;
  unsigned oldn = q->nbuckets;
  q->buckets = b;
  q->nbuckets = n;
  for (unsigned i = 0; i < oldn; i++) {
    for (fair_key *k = old[i], *next; k != NULL; k = next) {
      next = k->chain;
      fair_key **slot = bucket_of(q, k->id);
      k->chain = *slot;
      *slot = k;
    }
  }
  KDF_FREE(old);
}

static fair_key *find_or_add(fair_queue *q, uint64_t id) {
  fair_key *k = find(q, id);
  if (k != NULL) return k;
  if (q->spare != NULL) {
    k = q->spare;
    q->spare = k->chain;
    q->nspare--;
  } else {
    k = KDF_MALLOC(sizeof *k);
    if (k == NULL) return NULL;
  }
  *k = (fair_key){ .id = id };
  fair_key **slot = bucket_of(q, id);
  k->chain = *slot;
  *slot = k;
  q->nkeys++;
  grow(q);
  return k;
}

/* Frees a key's state once it has neither queued jobs nor a reservation. */
static void release_if_unused(fair_queue *q, fair_key *k) {
  if (k->head != NULL || k->res != FAIR_RES_NONE) return;
  fair_key **slot = bucket_of(q, k->id);
  while (*slot != k) slot = &(*slot)->chain;
  *slot = k->chain;
  q->nkeys--;
  if (q->nspare < FAIR_MAX_SPARE) {
    k->chain = q->spare;
    q->spare = k;
    q->nspare++;
  } else {
    KDF_FREE(k);
  }
}

/* ---- the ring of keys with queued jobs ---- */

static void ring_join(fair_queue *q, fair_key *k) {
  k->deficit = 0;
  k->turn_begun = 0;
  if (q->cursor == NULL) {
    k->ring_prev = k->ring_next = k;
    q->cursor = k;
  } else {
    /* Last in the round: just before the key whose turn it is. */
    fair_key *c = q->cursor;
    k->ring_next = c;
    k->ring_prev = c->ring_prev;
    c->ring_prev->ring_next = k;
    c->ring_prev = k;
  }
  q->active++;
}

static void ring_leave(fair_queue *q, fair_key *k) {
  if (k->ring_next == k) {
    q->cursor = NULL;
  } else {
    k->ring_prev->ring_next = k->ring_next;
    k->ring_next->ring_prev = k->ring_prev;
    if (q->cursor == k) q->cursor = k->ring_next;
  }
  k->ring_prev = k->ring_next = NULL;
  q->active--;
  if (q->active == 0) q->quantum = 0;
}

/* ---- jobs ---- */

int fair_push(fair_queue *q, pool_job *job, uint64_t cost) {
  fair_key *k = find_or_add(q, job->fair_key);
  if (k == NULL) return -1;
  if (cost == 0) cost = 1;
  job->key_state = k;
  job->fair_cost = cost;
  job->key_next = NULL;
  job->key_prev = k->tail;
  if (k->tail != NULL) {
    k->tail->key_next = job;
  } else {
    k->head = job;
    ring_join(q, k);
  }
  k->tail = job;
  k->work += cost;
  q->work += cost;
  if (cost > q->quantum) q->quantum = cost;
  return 0;
}

void fair_remove(fair_queue *q, pool_job *job) {
  fair_key *k = job->key_state;
  if (job->key_prev != NULL)
    job->key_prev->key_next = job->key_next;
  else
    k->head = job->key_next;
  if (job->key_next != NULL)
    job->key_next->key_prev = job->key_prev;
  else
    k->tail = job->key_prev;
  job->key_prev = job->key_next = NULL;
  job->key_state = NULL;
  k->work -= job->fair_cost;
  q->work -= job->fair_cost;
  if (k->head == NULL) {
    ring_leave(q, k);
    release_if_unused(q, k);
  }
}

/* What key `k` has to spend if its turn is the current one. */
static uint64_t budget(const fair_queue *q, const fair_key *k) {
  return k->deficit + (k->turn_begun ? 0 : q->quantum);
}

pool_job *fair_next(const fair_queue *q) {
  const fair_key *k = q->cursor;
  if (k == NULL) return NULL;
  if (budget(q, k) >= k->head->fair_cost) return k->head;
  return k->ring_next->head;
}

void fair_take(fair_queue *q, pool_job *job) {
  fair_key *k = q->cursor;
  if (!k->turn_begun) {
    k->deficit += q->quantum;
    k->turn_begun = 1;
  }
  if (k->deficit < k->head->fair_cost) {
    /* Its turn ends; the next key's begins. */
    k->turn_begun = 0;
    k = q->cursor = k->ring_next;
    k->deficit += q->quantum;
    k->turn_begun = 1;
  }
  k->deficit -= job->fair_cost;
  fair_remove(q, job);
}

uint64_t fair_job_key_work(const pool_job *job) { return job->key_state->work; }

uint64_t fair_key_work(const fair_queue *q, uint64_t key) {
  const fair_key *k = find(q, key);
  return k == NULL ? 0 : k->work;
}

uint64_t fair_work_before(const fair_queue *q, uint64_t key, uint64_t cost) {
  uint64_t own = fair_key_work(q, key);
  if (q->active <= 1 && (q->cursor == NULL || q->cursor->id == key)) return own;
  uint64_t cap = own + cost, sum = own;
  const fair_key *k = q->cursor;
  for (unsigned i = 0; i < q->active; i++, k = k->ring_next) {
    if (k->id != key) sum += k->work < cap ? k->work : cap;
  }
  return sum;
}

pool_job *fair_displaceable(const fair_queue *q, uint64_t key, uint64_t cost) {
  const fair_key *heaviest = NULL;
  const fair_key *k = q->cursor;
  for (unsigned i = 0; i < q->active; i++, k = k->ring_next) {
    if (heaviest == NULL || k->work > heaviest->work) heaviest = k;
  }
  if (heaviest == NULL || heaviest->id == key) return NULL;
  uint64_t mine = fair_key_work(q, key) + (cost == 0 ? 1 : cost);
  pool_job *newest = heaviest->tail;
  return heaviest->work - newest->fair_cost >= mine ? newest : NULL;
}

/* ---- reservations ---- */

static void res_append(fair_key **head, fair_key **tail, fair_key *k) {
  k->res_next = NULL;
  k->res_prev = *tail;
  if (*tail != NULL)
    (*tail)->res_next = k;
  else
    *head = k;
  *tail = k;
}

static void res_unlink(fair_key **head, fair_key **tail, fair_key *k) {
  if (k->res_prev != NULL)
    k->res_prev->res_next = k->res_next;
  else
    *head = k->res_next;
  if (k->res_next != NULL)
    k->res_next->res_prev = k->res_prev;
  else
    *tail = k->res_prev;
  k->res_prev = k->res_next = NULL;
}

/* Takes `k` out of the list its reservation or bar is in. */
static void res_detach(fair_queue *q, fair_key *k) {
  if (k->res == FAIR_RES_PENDING) {
    res_unlink(&q->pending_head, &q->pending_tail, k);
    q->pending--;
  } else if (k->res == FAIR_RES_HELD) {
    res_unlink(&q->held_head, &q->held_tail, k);
    q->held--;
  } else if (k->res == FAIR_RES_BARRED) {
    res_unlink(&q->barred_head, &q->barred_tail, k);
    q->barred--;
  }
  k->res = FAIR_RES_NONE;
}

/* Ends `k`'s reservation or bar; its state may be freed. */
static void res_end(fair_queue *q, fair_key *k) {
  res_detach(q, k);
  release_if_unused(q, k);
}

enum fair_reservation fair_reservation_of(const fair_queue *q, uint64_t key, uint64_t *due_ns) {
  const fair_key *k = find(q, key);
  if (k == NULL) return FAIR_RES_NONE;
  if (due_ns != NULL) *due_ns = k->res_due_ns;
  return k->res;
}

int fair_reserve(fair_queue *q, uint64_t key, uint64_t due_ns, uint64_t until_ns) {
  fair_key *k = find_or_add(q, key);
  if (k == NULL) return -1;
  if (k->res != FAIR_RES_NONE) return -1;
  k->res = FAIR_RES_PENDING;
  k->res_due_ns = due_ns;
  k->res_until_ns = until_ns;
  res_append(&q->pending_head, &q->pending_tail, k);
  q->pending++;
  return 0;
}

void fair_reschedule(fair_queue *q, uint64_t key, uint64_t due_ns, uint64_t until_ns) {
  fair_key *k = find(q, key);
  if (k == NULL || k->res == FAIR_RES_NONE) return;
  k->res_due_ns = due_ns;
  k->res_until_ns = until_ns;
}

void fair_bar(fair_queue *q, uint64_t key, uint64_t until_ns) {
  fair_key *k = find(q, key);
  if (k == NULL || k->res == FAIR_RES_NONE || k->res == FAIR_RES_BARRED) return;
  res_detach(q, k);
  k->res = FAIR_RES_BARRED;
  k->res_until_ns = until_ns;
  res_append(&q->barred_head, &q->barred_tail, k);
  q->barred++;
}

void fair_unreserve(fair_queue *q, uint64_t key) {
  fair_key *k = find(q, key);
  if (k != NULL && k->res != FAIR_RES_NONE) res_end(q, k);
}

unsigned fair_promote(fair_queue *q, unsigned places) {
  unsigned moved = 0;
  while (moved < places && q->pending_head != NULL) {
    fair_key *k = q->pending_head;
    res_unlink(&q->pending_head, &q->pending_tail, k);
    q->pending--;
    k->res = FAIR_RES_HELD;
    res_append(&q->held_head, &q->held_tail, k);
    q->held++;
    moved++;
  }
  return moved;
}

unsigned fair_expire(fair_queue *q, uint64_t now_ns) {
  unsigned freed = 0;
  for (fair_key *k = q->held_head, *next; k != NULL; k = next) {
    next = k->res_next;
    if (k->res_until_ns <= now_ns) {
      res_end(q, k);
      freed++;
    }
  }
  for (fair_key *k = q->pending_head, *next; k != NULL; k = next) {
    next = k->res_next;
    if (k->res_until_ns <= now_ns) res_end(q, k);
  }
  for (fair_key *k = q->barred_head, *next; k != NULL; k = next) {
    next = k->res_next;
    if (k->res_until_ns <= now_ns) res_end(q, k);
  }
  return freed;
}

unsigned fair_pending_ahead(const fair_queue *q, uint64_t key) {
  unsigned n = 0;
  for (const fair_key *k = q->pending_head; k != NULL; k = k->res_next, n++) {
    if (k->id == key) return n;
  }
  return n;
}
