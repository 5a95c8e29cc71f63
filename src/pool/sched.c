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

uint64_t sched_tag(const sched *s, uint64_t key) {
  const key_state *k = keys_find(&s->keys, key);
  return later(s->vtime, k != NULL ? k->finish : keys_recall(&s->keys, key, s->vtime));
}

int sched_push(sched *s, pool_job *job) {
  key_state *k = keys_open(&s->keys, job->fair_key, s->vtime);
  if (k == NULL) return -1;
  uint64_t tag = later(s->vtime, k->finish);
  uint64_t seq = ++s->seq;
  job->tag = tag;
  job->order_node.k1 = tag;
  job->order_node.k2 = seq;
  job->order_node.weight = job->expect_ns;
  tree_insert(&s->order, &job->order_node);
  if (job->deadline_ns != 0) {
    job->deadline_node.k1 = job->deadline_ns;
    job->deadline_node.k2 = seq;
    job->deadline_node.weight = 0;
    tree_insert(&s->deadlines, &job->deadline_node);
  }
  k->finish = tag + (job->expect_ns != 0 ? job->expect_ns : 1);
  s->vmax = later(s->vmax, k->finish);
  keys_append(k, job);
  return 0;
}

/* Out of both trees and its key's list; the key's state goes once empty. */
static void leave(sched *s, pool_job *job) {
  tree_remove(&s->order, &job->order_node);
  if (job->deadline_ns != 0) tree_remove(&s->deadlines, &job->deadline_node);
  key_state *k = job->key_state;
  keys_unlink(k, job);
  if (k->queued == 0) keys_close(&s->keys, k, s->vtime);
}

void sched_remove(sched *s, pool_job *job) {
  key_state *k = job->key_state;
  if (k->tail == job) k->finish = job->tag; /* not charged for work it was refused */
  leave(s, job);
}

void sched_start(sched *s, pool_job *job, int head) {
  if (head) s->vtime = later(s->vtime, job->tag);
  leave(s, job);
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

void sched_ahead(const sched *s, uint64_t tag, uint64_t *work, unsigned *n) {
  tree_upto(&s->order, tag, work, n);
}
