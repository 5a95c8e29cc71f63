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
 * microsecond), else 16 levels per doubling of the use (its bit length and
 * the next 4 bits), at most 64 * 16. Less use first. */
static uint64_t use_rank(const key_record *rec, uint64_t now) {
  double use = keys_use(rec, now);
  if (use < 1000) return 0;
  uint64_t u = use >= 1.8e19 ? UINT64_MAX : (uint64_t)use;
  unsigned bits = 64 - (unsigned)__builtin_clzll(u);
  uint64_t next4 = bits > 5 ? (u >> (bits - 5)) & 15 : (u << (5 - bits)) & 15;
  return 1 + (uint64_t)(bits - 1) * 16 + next4;
}

/* The order among equal tags: less recent use first, then arrival. */
static uint64_t order_of(const key_record *rec, uint64_t arrival, uint64_t now) {
  return use_rank(rec, now) << SCHED_ARRIVAL_BITS | arrival;
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
    tree_insert(&s->deadlines, &job->deadline_node);
  }
  k->rec.finish = tag + (job->expect_ns != 0 ? job->expect_ns : 1);
  s->vmax = later(s->vmax, k->rec.finish);
  keys_append(k, job);
  return 0;
}

/* Out of both trees and its key's list; the key's state goes once empty. */
static void leave(sched *s, pool_job *job, uint64_t now) {
  tree_remove(&s->order, &job->order_node);
  if (job->deadline_ns != 0) tree_remove(&s->deadlines, &job->deadline_node);
  key_state *k = job->key_state;
  keys_unlink(k, job);
  if (k->queued == 0) keys_close(&s->keys, k, s->vtime, now);
}

void sched_remove(sched *s, pool_job *job, uint64_t now) {
  key_state *k = job->key_state;
  if (k->tail == job) k->rec.finish = job->tag; /* not charged for work it was refused */
  leave(s, job, now);
}

void sched_start(sched *s, pool_job *job, int head, uint64_t now) {
  if (head) s->vtime = later(s->vtime, job->tag);
  keys_charge(&job->key_state->rec, (double)job->expect_ns, now);
  leave(s, job, now);
}

void sched_refused(sched *s, const pool_job *job, uint64_t now) {
  keys_refused(&s->keys, job->fair_key, job->expect_ns, s->vtime, now);
}

void sched_idle(sched *s) { s->vtime = s->vmax; }

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
  return n != NULL ? JOB_OF(n, deadline_node) : NULL;
}

void sched_ahead(const sched *s, uint64_t tag, uint64_t seq, uint64_t *work, unsigned *n) {
  tree_before(&s->order, tag, seq, work, n);
}
