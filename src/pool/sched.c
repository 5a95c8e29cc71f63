/* Start-time fair queuing on virtual time (sched.h). */
#include "pool/sched.h"

#include <stddef.h>

#define JOB_OF(node, member) ((pool_job *)(void *)((char *)(node)-offsetof(pool_job, member)))

int sched_init(sched *s) {
  *s = (sched){ 0 };
  return keys_init(&s->keys);
}

void sched_free(sched *s) {
  keys_free(&s->keys);
  *s = (sched){ 0 };
}

static uint64_t later(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The start tag of a job of a key with record `rec`. */
static uint64_t tag_of(const sched *s, const key_record *rec) {
  return later(s->vtime, rec->finish);
}

/* A key's recent use as a rank among equal tags: 0 for none (under a
 * microsecond), else 2^SCHED_RANK_BITS levels per doubling of the use (its
 * bit length and the next SCHED_RANK_BITS bits), at most 64 * 2^8. Less use
 * first. */
static uint64_t use_rank(const key_record *rec, uint64_t now) {
  double use = keys_use(rec, now);
  if (use < 1000) return 0;
  uint64_t u = use >= 1.8e19 ? UINT64_MAX : (uint64_t)use;
  unsigned bits = 64 - (unsigned)__builtin_clzll(u);
  uint64_t next = bits > 1 + SCHED_RANK_BITS
                      ? (u >> (bits - 1 - SCHED_RANK_BITS)) & ((1u << SCHED_RANK_BITS) - 1)
                      : (u << (1 + SCHED_RANK_BITS - bits)) & ((1u << SCHED_RANK_BITS) - 1);
  return 1 + (uint64_t)(bits - 1) * (1u << SCHED_RANK_BITS) + next;
}

/* The order among equal tags: less recent use first, then arrival. */
static uint64_t order_of(const key_record *rec, uint64_t arrival, uint64_t now) {
  return use_rank(rec, now) << SCHED_ARRIVAL_BITS | (arrival & SCHED_ARRIVAL_MASK);
}

void sched_place(const sched *s, uint64_t key, uint64_t now, uint64_t *tag, uint64_t *order) {
  const key_state *k = keys_find(&s->keys, key);
  key_record rec = k != NULL ? k->rec : keys_recall(&s->keys, key, s->vtime, now);
  *tag = tag_of(s, &rec);
  *order = order_of(&rec, s->seq + 1, now);
}

uint64_t sched_tag(const sched *s, uint64_t key, uint64_t now) {
  uint64_t tag, order;
  sched_place(s, key, now, &tag, &order);
  return tag;
}

/* A job with a deadline: at the list's end if it comes no earlier than
 * the last listed (arrivals only grow, so the list stays in (deadline,
 * arrival) order), else in the tree. */
static void deadline_add(sched *s, pool_job *job) {
  job->dl_next = NULL;
  if (s->dl_last == NULL || s->dl_last->deadline_ns <= job->deadline_ns) {
    job->dl_listed = 1;
    job->dl_prev = s->dl_last;
    if (s->dl_last != NULL)
      s->dl_last->dl_next = job;
    else
      s->dl_first = job;
    s->dl_last = job;
    return;
  }
  job->dl_listed = 0;
  job->dl_prev = NULL;
  tree_insert(&s->deadlines, &job->deadline_node);
}

static void deadline_drop(sched *s, pool_job *job) {
  if (!job->dl_listed) {
    tree_remove(&s->deadlines, &job->deadline_node);
    return;
  }
  if (job->dl_prev != NULL)
    job->dl_prev->dl_next = job->dl_next;
  else
    s->dl_first = job->dl_next;
  if (job->dl_next != NULL)
    job->dl_next->dl_prev = job->dl_prev;
  else
    s->dl_last = job->dl_prev;
  job->dl_prev = job->dl_next = NULL;
  job->dl_listed = 0;
}

int sched_push(sched *s, pool_job *job, uint64_t now) {
  key_state *k = keys_open(&s->keys, job->fair_key, s->vtime, now);
  if (k == NULL) return -1;
  uint64_t tag = tag_of(s, &k->rec), arrival = ++s->seq;
  job->tag = tag;
  job->order_node.k1 = tag;
  job->order_node.k2 = order_of(&k->rec, arrival, now);
  job->order_node.weight = job->expect_ns;
  tree_insert(&s->order, &job->order_node);
  if (job->deadline_ns != 0) {
    job->deadline_node.k1 = job->deadline_ns;
    job->deadline_node.k2 = arrival;
    job->deadline_node.weight = 0;
    deadline_add(s, job);
  }
  k->rec.finish = tag + (job->expect_ns != 0 ? job->expect_ns : 1);
  s->vmax = later(s->vmax, k->rec.finish);
  keys_append(k, job);
  return 0;
}

/* Out of both trees and its key's list; the key's state goes once empty. */
static void leave(sched *s, pool_job *job, uint64_t now) {
  tree_remove(&s->order, &job->order_node);
  if (job->deadline_ns != 0) deadline_drop(s, job);
  key_state *k = job->key_state;
  keys_unlink(k, job);
  if (k->queued == 0) keys_close(&s->keys, k, s->vtime, now);
}

void sched_remove(sched *s, pool_job *job, uint64_t now) {
  key_state *k = job->key_state;
  if (k->tail == job) k->rec.finish = job->tag; /* not charged for work it was refused */
  leave(s, job, now);
}

/* A head starts at `now`: the rate window moves on. */
static void measure_rate(sched *s, uint64_t now) {
  if (!s->rate_open || now < s->rate_t0) {
    s->rate_open = 1;
    s->rate_v0 = s->vtime;
    s->rate_t0 = now;
    return;
  }
  uint64_t dt = now - s->rate_t0;
  if (dt < SCHED_RATE_WINDOW_NS) return;
  double r = (double)(s->vtime - s->rate_v0) / (double)dt;
  s->vrate = s->vrate > 0 ? s->vrate + (r - s->vrate) / 4 : r;
  s->rate_v0 = s->vtime;
  s->rate_t0 = now;
}

uint64_t sched_reach_ns(const sched *s, uint64_t tag) {
  if (!(s->vrate > 0) || tag <= s->vtime) return 0;
  double ns = (double)(tag - s->vtime) / s->vrate;
  return ns >= 1e15 ? (uint64_t)1e15 : (uint64_t)ns;
}

void sched_start(sched *s, pool_job *job, int head, uint64_t now) {
  if (head) {
    s->vtime = later(s->vtime, job->tag);
    measure_rate(s, now);
  }
  keys_charge(&job->key_state->rec, (double)job->expect_ns, now);
  leave(s, job, now);
}

void sched_refused(sched *s, const pool_job *job, uint64_t now) {
  keys_refused(&s->keys, job->fair_key, job->expect_ns, s->vtime, now);
}

void sched_idle(sched *s) {
  s->vtime = s->vmax;
  s->rate_open = 0; /* the jump is no measure of a busy pool */
}

pool_job *sched_head(const sched *s) {
  tree_node *n = tree_first(&s->order);
  return n != NULL ? JOB_OF(n, order_node) : NULL;
}

pool_job *sched_after(const pool_job *job) {
  tree_node *n = tree_next(&job->order_node);
  return n != NULL ? JOB_OF(n, order_node) : NULL;
}

pool_job *sched_last(const sched *s) {
  tree_node *n = tree_last(&s->order);
  return n != NULL ? JOB_OF(n, order_node) : NULL;
}

pool_job *sched_earliest(const sched *s) {
  tree_node *n = tree_first(&s->deadlines);
  pool_job *tree_first_job = n != NULL ? JOB_OF(n, deadline_node) : NULL, *listed = s->dl_first;
  if (tree_first_job == NULL) return listed;
  if (listed == NULL) return tree_first_job;
  const tree_node *a = &listed->deadline_node, *b = n;
  return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2) ? listed : tree_first_job;
}

void sched_ahead(const sched *s, uint64_t tag, uint64_t seq, uint64_t *work, unsigned *n) {
  tree_before(&s->order, tag, seq, work, n);
}
