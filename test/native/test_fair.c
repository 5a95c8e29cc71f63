/* The fair queue's bookkeeping (src/pool/fair.c) on its own: deficit
 * round-robin order, displacement, reservations, and that key states are
 * given back. Build and run: make -f test/native/fair.mk [SAN=address|undefined] */
#include "check.h"
#include "pool/fair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pool_job *jobs_of(unsigned n) {
  pool_job *j = calloc(n, sizeof *j);
  if (j == NULL) abort();
  return j;
}

static pool_job *take(fair_queue *q) {
  pool_job *j = fair_next(q);
  if (j != NULL) fair_take(q, j);
  return j;
}

/* No keys: one shared key, served in arrival order whatever the costs. */
static void test_fifo_without_keys(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  pool_job *j = jobs_of(50);
  for (unsigned i = 0; i < 50; i++) CHECK_EQ(fair_push(&q, &j[i], 1 + (i * 7919) % 1000), 0);
  for (unsigned i = 0; i < 50; i++) CHECK(take(&q) == &j[i]);
  CHECK(fair_next(&q) == NULL);
  CHECK_EQ(q.nkeys, 0);
  CHECK_EQ(q.work, 0);
  fair_free(&q);
  free(j);
}

/* Equal costs: keys take turns, one job each, in the order they arrived. */
static void test_round_robin(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  pool_job *j = jobs_of(30);
  /* Key 1 floods first with 20 jobs, then keys 2 and 3 bring 5 each. */
  for (unsigned i = 0; i < 20; i++) {
    j[i].fair_key = 1;
    CHECK_EQ(fair_push(&q, &j[i], 100), 0);
  }
  for (unsigned i = 20; i < 30; i++) {
    j[i].fair_key = 2 + (i % 2);
    CHECK_EQ(fair_push(&q, &j[i], 100), 0);
  }
  CHECK_EQ(q.active, 3);
  unsigned served_23 = 0, position_last_23 = 0;
  for (unsigned n = 0; n < 30; n++) {
    pool_job *t = take(&q);
    CHECK(t != NULL);
    if (t->fair_key != 1) {
      served_23++;
      position_last_23 = n;
    }
  }
  /* Keys 2 and 3 never wait behind more than one job of key 1 per turn:
   * their 10 jobs are served within the first 15. */
  CHECK_EQ(served_23, 10);
  CHECK(position_last_23 < 15);
  CHECK_EQ(q.nkeys, 0);
  fair_free(&q);
  free(j);
}

/* Deficit round-robin: a key of cheap jobs gets as much work done per
 * round as a key of costly ones, so many cheap jobs per costly one. */
static void test_deficit_by_cost(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  pool_job *j = jobs_of(120);
  for (unsigned i = 0; i < 20; i++) {
    j[i].fair_key = 7; /* costly */
    CHECK_EQ(fair_push(&q, &j[i], 1000), 0);
  }
  for (unsigned i = 20; i < 120; i++) {
    j[i].fair_key = 8; /* cheap */
    CHECK_EQ(fair_push(&q, &j[i], 100), 0);
  }
  uint64_t work7 = 0, work8 = 0;
  /* While both keys have work, their shares stay within one quantum. */
  for (unsigned n = 0; n < 60; n++) {
    pool_job *t = take(&q);
    if (t->fair_key == 7)
      work7 += t->fair_cost;
    else
      work8 += t->fair_cost;
    uint64_t diff = work7 > work8 ? work7 - work8 : work8 - work7;
    CHECK(diff <= 2000);
  }
  CHECK(work8 > 0 && work7 > 0);
  while (take(&q) != NULL) {
  }
  CHECK_EQ(q.nkeys, 0);
  fair_free(&q);
  free(j);
}

/* fair_next() is a pure look: asking twice gives the same job, and only
 * fair_take() moves the turn on. */
static void test_next_is_stable(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  pool_job *j = jobs_of(40);
  for (unsigned i = 0; i < 40; i++) {
    j[i].fair_key = i % 5;
    CHECK_EQ(fair_push(&q, &j[i], 10 + (i * 31) % 90), 0);
  }
  for (unsigned n = 0; n < 40; n++) {
    pool_job *a = fair_next(&q), *b = fair_next(&q);
    CHECK(a == b && a != NULL);
    fair_take(&q, a);
  }
  fair_free(&q);
  free(j);
}

/* Removing jobs from anywhere (cancel, shed, batch rides) keeps the ring
 * and the sums right, and frees emptied keys. */
static void test_remove_anywhere(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  pool_job *j = jobs_of(64);
  uint64_t total = 0;
  for (unsigned i = 0; i < 64; i++) {
    j[i].fair_key = 100 + i % 8;
    CHECK_EQ(fair_push(&q, &j[i], i + 1), 0);
    total += i + 1;
  }
  CHECK_EQ(q.work, total);
  for (unsigned i = 0; i < 64; i += 3) {
    fair_remove(&q, &j[i]);
    total -= i + 1;
  }
  CHECK_EQ(q.work, total);
  unsigned left = 0;
  while (take(&q) != NULL) left++;
  CHECK_EQ(left, 64 - 22);
  CHECK_EQ(q.work, 0);
  CHECK_EQ(q.nkeys, 0);
  CHECK_EQ(q.active, 0);
  fair_free(&q);
  free(j);
}

/* The heaviest key gives up its newest job, and only while it would still
 * hold at least as much as the caller's key. */
static void test_displacement(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  pool_job *j = jobs_of(16);
  for (unsigned i = 0; i < 12; i++) {
    j[i].fair_key = 1;
    CHECK_EQ(fair_push(&q, &j[i], 10), 0);
  }
  for (unsigned i = 12; i < 16; i++) {
    j[i].fair_key = 2;
    CHECK_EQ(fair_push(&q, &j[i], 10), 0);
  }
  CHECK(fair_displaceable(&q, 3, 10) == &j[11]); /* a new key */
  CHECK(fair_displaceable(&q, 2, 10) == &j[11]); /* a lighter key */
  CHECK(fair_displaceable(&q, 1, 10) == NULL);   /* the heaviest itself */
  CHECK(fair_displaceable(&q, 0, 10) == &j[11]); /* the shared key is a key like others */
  /* Key 2 holds 40; with 70 more it would be heavier than key 1 is after
   * giving one up (110): no displacement. */
  CHECK(fair_displaceable(&q, 2, 71) == NULL);
  CHECK(fair_displaceable(&q, 2, 70) == &j[11]);
  /* Equal keys do not displace each other. */
  for (unsigned i = 4; i < 12; i++) fair_remove(&q, &j[i]);
  CHECK_EQ(fair_key_work(&q, 1), 40);
  CHECK(fair_displaceable(&q, 2, 10) == NULL);
  while (take(&q) != NULL) {
  }
  /* Empty queue: nothing to displace. */
  CHECK(fair_displaceable(&q, 9, 1) == NULL);
  fair_free(&q);
  free(j);
}

static void test_reservations(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  uint64_t due = 0;
  CHECK_EQ(fair_reserve(&q, 5, 100, 200), 0);
  CHECK_EQ(fair_reserve(&q, 6, 110, 210), 0);
  CHECK_EQ(fair_reserve(&q, 7, 120, 400), 0);
  CHECK_EQ(fair_reserve(&q, 5, 130, 230), -1); /* one per key */
  CHECK_EQ(q.pending, 3);
  CHECK_EQ(fair_pending_ahead(&q, 5), 0);
  CHECK_EQ(fair_pending_ahead(&q, 7), 2);
  CHECK_EQ(fair_pending_ahead(&q, 99), 3);
  CHECK_EQ(fair_reservation_of(&q, 6, &due), FAIR_RES_PENDING);
  CHECK_EQ(due, 110);
  /* Places go to the oldest first. */
  CHECK_EQ(fair_promote(&q, 1), 1);
  CHECK_EQ(fair_reservation_of(&q, 5, NULL), FAIR_RES_HELD);
  CHECK_EQ(fair_reservation_of(&q, 6, NULL), FAIR_RES_PENDING);
  CHECK_EQ(q.held, 1);
  CHECK_EQ(q.pending, 2);
  /* Used: the place is the job's now. */
  fair_unreserve(&q, 5);
  CHECK_EQ(fair_reservation_of(&q, 5, NULL), FAIR_RES_NONE);
  CHECK_EQ(q.held, 0);
  CHECK_EQ(fair_promote(&q, 5), 2);
  /* Expiry: key 6's (until 210) ends at 210, key 7's (until 400) stays. */
  CHECK_EQ(fair_expire(&q, 209), 0);
  CHECK_EQ(fair_expire(&q, 210), 1);
  CHECK_EQ(fair_reservation_of(&q, 6, NULL), FAIR_RES_NONE);
  CHECK_EQ(fair_reservation_of(&q, 7, NULL), FAIR_RES_HELD);
  /* A pending one expires too, giving back no place. */
  CHECK_EQ(fair_reserve(&q, 8, 300, 350), 0);
  CHECK_EQ(fair_expire(&q, 360), 0);
  CHECK_EQ(fair_reservation_of(&q, 8, NULL), FAIR_RES_NONE);
  CHECK_EQ(q.pending, 0);
  CHECK_EQ(fair_expire(&q, 1000), 1);
  CHECK_EQ(q.nkeys, 0);
  /* A key with a reservation and queued jobs keeps its state until both end. */
  pool_job one = { .fair_key = 11 };
  CHECK_EQ(fair_reserve(&q, 11, 1, 2), 0);
  CHECK_EQ(fair_push(&q, &one, 5), 0);
  CHECK_EQ(q.nkeys, 1);
  CHECK(take(&q) == &one);
  CHECK_EQ(q.nkeys, 1);
  fair_unreserve(&q, 11);
  CHECK_EQ(q.nkeys, 0);
  fair_free(&q);
}

/* Many keys: the buckets grow, every state is given back. */
static void test_many_keys(void) {
  fair_queue q;
  CHECK_EQ(fair_init(&q), 0);
  enum { N = 5000 };
  pool_job *j = jobs_of(N);
  for (unsigned i = 0; i < N; i++) {
    j[i].fair_key = 0x1234567ull * (i + 1);
    CHECK_EQ(fair_push(&q, &j[i], 3), 0);
  }
  CHECK_EQ(q.nkeys, N);
  CHECK(q.nbuckets >= N);
  for (unsigned i = 0; i < N; i++) CHECK(take(&q) == &j[i]); /* one each, in turn */
  CHECK_EQ(q.nkeys, 0);
  CHECK(q.nspare <= 64);
  fair_free(&q);
  free(j);
}

int main(void) {
  test_fifo_without_keys();
  test_round_robin();
  test_deficit_by_cost();
  test_next_is_stable();
  test_remove_anywhere();
  test_displacement();
  test_reservations();
  test_many_keys();
  printf("test_fair: %d passed, %d failed\n", check_passed, check_failed);
  return check_exit();
}
