/* The inbox (inbox.h; Inbox in the DESIGN comment of pool.c). A stack of
 * jobs pushed without the lock, and the bounds under which a submit may
 * push: room, deadline and memory, published by whoever holds the lock.
 * The jobs are admitted by queue.c, exactly as a submit under the lock
 * would be, by the next holder of the lock that looks at the queue. */
#include "pool/inbox.h"

#include "pool/internal.h"
#include "pool/pool.h"

#include <stdint.h>

/* inbox_head once shut: never a job's address. */
#define INBOX_SHUT ((pool_job *)(uintptr_t)1)

static uint32_t room_limit(uint64_t room) { return (uint32_t)(room >> 32); }
static uint32_t room_taken(uint64_t room) { return (uint32_t)room; }

/* Takes one place of the published room; 0 if none is left. */
static int take_room(pool *p) {
  uint64_t room = __atomic_load_n(&p->inbox_room, __ATOMIC_RELAXED);
  do {
    if (room_taken(room) >= room_limit(room)) return 0;
  } while (!__atomic_compare_exchange_n(&p->inbox_room, &room, room + 1, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
  return 1;
}

static void give_room_back(pool *p) { __atomic_fetch_sub(&p->inbox_room, 1, __ATOMIC_RELAXED); }

/* Whether a job with this deadline (0: none) may skip the lock. The timer
 * must already be due to wake by then (it looks at the inbox when it
 * does); and the wait must be long enough that the queue, with the inbox
 * full, cannot make it miss: then a refusal for the deadline stays what it
 * is through the lock, an answer at submit. */
static int deadline_allows(pool *p, uint64_t deadline, uint64_t now) {
  if (deadline == 0) return 1;
  uint64_t timer = __atomic_load_n(&p->timer_until_ns, __ATOMIC_ACQUIRE);
  if (timer == 0 || timer > deadline) return 0;
  return deadline > now &&
         deadline - now >= __atomic_load_n(&p->inbox_min_wait_ns, __ATOMIC_RELAXED);
}

int inbox_try(pool *p, pool_job *job, uint64_t now) {
  if (job->cost_ns == 0 || job->cost_ns > POOL_INBOX_MAX_COST_NS) return 0;
  if (job->memory > __atomic_load_n(&p->max_memory, __ATOMIC_RELAXED)) return 0;
  if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) return 0;
  if (!deadline_allows(p, job->deadline_ns, now)) return 0;
  if (!take_room(p)) return 0;
  job->retry_after_ns = 0;
  job->retry_after_s = 0;
  job->queued_ns = now;
  pool_job *head = __atomic_load_n(&p->inbox_head, __ATOMIC_RELAXED);
  do {
    if (head == INBOX_SHUT) {
      give_room_back(p);
      return 0;
    }
    job->next = head;
  } while (!__atomic_compare_exchange_n(&p->inbox_head, &head, job, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
  /* Sequentially consistent, both: a worker about to sleep counts itself
   * in `sleeping`, then looks at the inbox (wake_sleep). One of the two
   * sees the other, so the job never waits for a worker that sleeps. The
   * bump also ends a linger. Sleepers a submit has signalled already
   * (`waking`, which never overcounts) wake and look at the inbox anyway:
   * only one more than those needs the lock. */
  __atomic_fetch_add(&p->submit_seq, 1, __ATOMIC_SEQ_CST);
  unsigned sleeping = __atomic_load_n(&p->sleeping, __ATOMIC_SEQ_CST);
  return sleeping > __atomic_load_n(&p->waking, __ATOMIC_SEQ_CST) ? -1 : 1;
}

/* Reverses a stack into arrival order, counting it. */
static pool_job *in_order(pool_job *stack, unsigned *n) {
  pool_job *list = NULL;
  unsigned count = 0;
  while (stack != NULL) {
    pool_job *next = stack->next;
    stack->next = list;
    list = stack;
    stack = next;
    count++;
  }
  *n = count;
  return list;
}

pool_job *inbox_take(pool *p, unsigned *n) {
  *n = 0;
  if (__atomic_load_n(&p->inbox_head, __ATOMIC_RELAXED) == NULL) return NULL;
  pool_job *head = __atomic_load_n(&p->inbox_head, __ATOMIC_ACQUIRE);
  do {
    if (head == INBOX_SHUT) return NULL;
  } while (!__atomic_compare_exchange_n(&p->inbox_head, &head, NULL, 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED));
  return in_order(head, n);
}

void inbox_publish(pool *p, unsigned room, unsigned n_taken, uint64_t min_wait_ns) {
  __atomic_store_n(&p->inbox_min_wait_ns, min_wait_ns, __ATOMIC_RELAXED);
  /* The jobs taken leave the count; those pushed meanwhile stay in it. */
  uint64_t old = __atomic_load_n(&p->inbox_room, __ATOMIC_RELAXED), next;
  do {
    next = (uint64_t)room << 32 | (uint32_t)(room_taken(old) - n_taken);
  } while (!__atomic_compare_exchange_n(&p->inbox_room, &old, next, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
}

pool_job *inbox_shut(pool *p, unsigned *n) {
  pool_job *head = __atomic_exchange_n(&p->inbox_head, INBOX_SHUT, __ATOMIC_ACQUIRE);
  /* No room, but the count of places taken stays: a submit that took one
   * before the shut gives it back when it finds the inbox shut. */
  __atomic_fetch_and(&p->inbox_room, (uint64_t)UINT32_MAX, __ATOMIC_RELAXED);
  return in_order(head == INBOX_SHUT ? NULL : head, n);
}

int inbox_pending(const pool *p) {
  pool_job *head = __atomic_load_n(&p->inbox_head, __ATOMIC_SEQ_CST);
  return head != NULL && head != INBOX_SHUT;
}
