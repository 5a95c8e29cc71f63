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

/* How far a key's record reaches: the floor of its next job's tag. */
static uint64_t reach(const key_record *r) { return later(r->finish, r->mark); }

static uint64_t expect_of(const pool_job *job) { return job->expect_ns != 0 ? job->expect_ns : 1; }

void sched_place(const sched *s, uint64_t key, uint64_t *tag, uint64_t *order) {
  key_record rec = keys_recall(&s->keys, key, s->vtime);
  *tag = later(s->vtime, reach(&rec));
  *order = s->seq + 1;
}

uint64_t sched_tag(const sched *s, uint64_t key) {
  uint64_t tag, order;
  sched_place(s, key, &tag, &order);
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

static void order_insert(sched *s, pool_job *job, uint64_t tag, uint64_t order) {
  job->tag = tag;
  job->order_node.k1 = tag;
  job->order_node.k2 = order;
  job->order_node.weight = job->expect_ns;
  tree_insert(&s->order, &job->order_node);
}

int sched_push(sched *s, pool_job *job, uint64_t tag, uint64_t order) {
  key_state *k = keys_open(&s->keys, job->fair_key, s->vtime);
  if (k == NULL) return -1;
  /* vpush: what places it besides its key's finish (virtual time, the
   * key's mark), kept when it is tagged again. */
  uint64_t floor = k->rec.finish;
  if (order == 0) {
    job->vpush = later(s->vtime, k->rec.mark);
    tag = later(job->vpush, floor);
    order = ++s->seq;
  } else {
    /* A promised place: tagged again, it never moves past it. */
    job->vpush = tag;
  }
  job->floor = floor;
  job->carry = k->tail_carry;
  k->tail_carry = 0;
  order_insert(s, job, tag, order);
  if (job->deadline_ns != 0) {
    job->deadline_node.k1 = job->deadline_ns;
    job->deadline_node.k2 = order;
    job->deadline_node.weight = 0;
    deadline_add(s, job);
  }
  k->rec.finish = later(k->rec.finish, tag) + expect_of(job); /* a promised job is charged too */
  s->vmax = later(s->vmax, k->rec.finish);
  keys_append(k, job);
  return 0;
}

/* Tags again the jobs of `k` from `from` on (from->floor is right; each
 * later one's is the finish before it plus its carry), never later than
 * they were; with `until_same`, stops at the first job after `from` that
 * hands on the finish it did (what follows it stays too). At the end of
 * the key's jobs, its finish follows. */
static void retag(sched *s, key_state *k, pool_job *from, int until_same) {
  uint64_t f = 0;
  for (pool_job *j = from; j != NULL; j = j->key_next) {
    /* What follows it depends on the finish it hands on. */
    uint64_t handed = later(j->floor, j->tag) + expect_of(j);
    if (j != from) j->floor = f + j->carry;
    uint64_t tag = later(j->vpush, j->floor);
    if (tag > j->tag) tag = j->tag;
    if (tag != j->tag) {
      tree_remove(&s->order, &j->order_node);
      order_insert(s, j, tag, j->order_node.k2);
    }
    f = later(j->floor, tag) + expect_of(j); /* a promised job is charged from the floor */
    if (until_same && j != from && f == handed) return;
  }
  k->rec.finish = f + k->tail_carry;
}

static void unstale(sched *s, key_state *k) {
  if (k->stale == NULL) return;
  k->stale = NULL;
  for (unsigned i = 0; i < s->nstale; i++) {
    if (s->stale[i] == k) {
      s->stale[i] = s->stale[--s->nstale];
      return;
    }
  }
}

/* Out of both trees and its key's list; the key's state goes once empty. */
static void leave(sched *s, pool_job *job) {
  tree_remove(&s->order, &job->order_node);
  if (job->deadline_ns != 0) deadline_drop(s, job);
  key_state *k = job->key_state;
  keys_unlink(k, job);
  if (k->queued == 0) {
    unstale(s, k);
    keys_close(&s->keys, k, s->vtime);
  }
}

void sched_defer(sched *s) { s->deferring = 1; }

void sched_flush(sched *s) {
  s->deferring = 0;
  while (s->nstale != 0) {
    key_state *k = s->stale[--s->nstale];
    k->stale = NULL;
    retag(s, k, k->head, 0);
  }
}

void sched_remove(sched *s, pool_job *job) {
  key_state *k = job->key_state;
  pool_job *next = job->key_next;
  if (next == NULL) {
    /* Its finish goes back to the floor its tag started from. */
    k->rec.finish = job->floor + k->tail_carry;
    k->tail_carry += job->carry;
  } else {
    /* The next job starts from its floor; riders carried stay charged. */
    next->floor = job->floor + next->carry;
    next->carry += job->carry;
  }
  leave(s, job);
  if (next == NULL) return;
  if (!s->deferring) {
    retag(s, k, next, 1);
  } else if (k->stale == NULL) {
    if (s->nstale == SCHED_STALE_MAX) {
      sched_flush(s); /* ends the deferral: this removal's still goes on */
      s->deferring = 1;
    }
    k->stale = next;
    s->stale[s->nstale++] = k;
  }
}

void sched_start(sched *s, pool_job *job) {
  key_state *k = job->key_state;
  unsigned backlogged = keys_backlogged(&s->keys, s->vtime); /* its own key among them */
  uint64_t step = expect_of(job) / (backlogged != 0 ? backlogged : 1);
  s->vtime += step != 0 ? step : 1;
  if (job->key_prev != NULL) {
    /* A rider ahead of older jobs of its key: charged, carried for when
     * they leave. */
    uint64_t carried = job->carry + expect_of(job);
    if (job->key_next != NULL)
      job->key_next->carry += carried;
    else
      k->tail_carry += carried;
  }
  leave(s, job);
  pool_job *head = sched_head(s);
  if (head != NULL && head->tag > s->vtime) s->vtime = head->tag;
  s->vmax = later(s->vmax, s->vtime);
}

void sched_refused(sched *s, uint64_t key, uint64_t expect_ns) {
  uint64_t e = expect_ns != 0 ? expect_ns : 1;
  uint64_t mark = keys_charge(&s->keys, key, e, s->vtime + SCHED_REFUSAL_LEAD * e, s->vtime);
  s->vmax = later(s->vmax, mark);
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
  pool_job *tree_first_job = n != NULL ? JOB_OF(n, deadline_node) : NULL, *listed = s->dl_first;
  if (tree_first_job == NULL) return listed;
  if (listed == NULL) return tree_first_job;
  const tree_node *a = &listed->deadline_node, *b = n;
  return a->k1 < b->k1 || (a->k1 == b->k1 && a->k2 < b->k2) ? listed : tree_first_job;
}

void sched_ahead(const sched *s, uint64_t tag, uint64_t seq, uint64_t *work, unsigned *n) {
  tree_before(&s->order, tag, seq, work, n);
}
