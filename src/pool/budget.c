/* The memory budget and the workers' arenas (see Memory in the DESIGN
 * comment of pool.c): every change to `held`, each worker's charge and
 * reservation, and the arenas' pages, so that held <= max_memory is kept
 * (and, in test builds, checked) in this one file. Lock held unless said
 * otherwise. A leaf: it calls only the OS seam. */
#define _POSIX_C_SOURCE 200809L
#include "pool/budget.h"

#include "common/stop.h"
#include "pool/internal.h"
#include "pool/os.h"
#include "pool/pool.h"
#include "pool/prefault.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef POOL_CHECK_INVARIANTS
/* Test builds: recount everything and abort on any disagreement. */
static void check_budget(pool *p) {
  uint64_t held = p->releasing, bytes = p->releasing;
  int ok = 1;
  for (unsigned i = 0; i < p->workers_len; i++) {
    const pool_worker *w = p->workers[i];
    if (w == NULL) continue;
    uint64_t charge = (w->arena_size > w->reserved ? w->arena_size : w->reserved) + w->own;
    if (charge != w->charge || (w->arena == NULL) != (w->arena_size == 0)) ok = 0;
    held += charge;
    bytes += w->arena_size;
  }
  if (held < p->ceiling) p->ceiling = held;
  if (held > p->max_memory && held > p->ceiling) ok = 0;
  if (held != p->held || bytes != p->arena_bytes) ok = 0;
  if (!ok) {
    fprintf(stderr,
            "pool: budget invariant broken: held %llu (counted %llu), arena bytes %llu "
            "(counted %llu), max_memory %llu\n",
            (unsigned long long)held, (unsigned long long)p->held, (unsigned long long)bytes,
            (unsigned long long)p->arena_bytes, (unsigned long long)p->max_memory);
    abort();
  }
}
#else
static void check_budget(pool *p) { (void)p; }
#endif

static void recharge(pool *p, pool_worker *w) {
  uint64_t charge = (w->arena_size > w->reserved ? w->arena_size : w->reserved) + w->own;
  p->held = p->held - w->charge + charge;
  w->charge = charge;
}

/* How much an arena for `size` bytes maps: 2 MiB multiples, so a slightly
 * larger next job does not remap and transparent huge pages can back it,
 * unless that would not fit in `room` (the budget less the job's own
 * allocations) at all. */
static uint64_t arena_len(uint64_t room, uint64_t size) {
  const uint64_t huge = (uint64_t)2 << 20, page = 4096;
  if (size == 0) size = 1;
  uint64_t len = (size + huge - 1) & ~(huge - 1);
  if (len <= room) return len;
  len = (size + page - 1) & ~(page - 1);
  return len <= room ? len : size;
}

/* The budget less `own` bytes (0 if they alone exceed it). */
static uint64_t room_beside(const pool *p, uint64_t own) {
  return own < p->max_memory ? p->max_memory - own : 0;
}

void budget_drop_arena(pool *p, pool_worker *w) {
  void *mem = w->arena;
  size_t size = w->arena_size;
  if (mem == NULL) return;
  w->arena = NULL;
  w->arena_size = 0;
  w->arena_busy = 0;
  recharge(p, w);
  p->releasing += size;
  p->held += size;
  check_budget(p);
  pthread_mutex_unlock(&p->lock);
  os_arena_unmap(mem, size);
  pthread_mutex_lock(&p->lock);
  p->releasing -= size;
  p->held -= size;
  p->arena_bytes -= size;
  check_budget(p);
  if (p->queued != 0) pthread_cond_broadcast(&p->wake);
}

/* Idle arenas: not used by any job, so any worker may trade or unmap them. */
static pool_worker *largest_idle_arena(pool *p, const pool_worker *except, uint64_t *total) {
  pool_worker *best = NULL;
  *total = 0;
  for (unsigned i = 0; i < p->workers_len; i++) {
    pool_worker *x = p->workers[i];
    if (x == NULL || x == except || x->arena == NULL || x->arena_busy) continue;
    *total += x->arena_size;
    if (best == NULL || x->arena_size > best->arena_size) best = x;
  }
  return best;
}

static pool_worker *idle_arena_at_least(pool *p, const pool_worker *except, uint64_t size) {
  pool_worker *best = NULL;
  for (unsigned i = 0; i < p->workers_len; i++) {
    pool_worker *x = p->workers[i];
    if (x == NULL || x == except || x->arena == NULL || x->arena_busy || x->arena_size < size)
      continue;
    if (best == NULL || x->arena_size < best->arena_size) best = x;
  }
  return best;
}

enum budget_claim budget_claim(pool *p, pool_worker *w, const pool_job *job) {
  w->reserved = 0;
  w->own = 0;
  recharge(p, w);
  if (job->memory == 0) return CLAIM_RUN;
  uint64_t own = budget_job_own(job), scratch = job->memory - own;
  if (scratch != 0 && (w->arena == NULL || w->arena_size < scratch)) {
    pool_worker *x = idle_arena_at_least(p, w, scratch);
    if (x != NULL) { /* trade: nothing is mapped or unmapped, `held` stays */
      void *mem = x->arena;
      size_t size = x->arena_size;
      x->arena = w->arena;
      x->arena_size = w->arena_size;
      w->arena = mem;
      w->arena_size = size;
      recharge(p, x);
      recharge(p, w);
    }
  }
  if (scratch != 0 && w->arena != NULL && w->arena_size < scratch) {
    /* Too small for this job: it goes before a larger one is mapped. */
    budget_drop_arena(p, w);
    return CLAIM_RETRY;
  }
  /* New arena bytes to reserve: none if w's arena holds the scratch. */
  uint64_t need = scratch != 0 && w->arena == NULL ? arena_len(room_beside(p, own), scratch) : 0;
  if (p->held - w->charge + (w->arena_size > need ? w->arena_size : need) + own <= p->max_memory) {
    w->reserved = need;
    w->own = own;
    if (scratch != 0 && w->arena != NULL) w->arena_busy = 1;
    recharge(p, w);
    check_budget(p);
    return CLAIM_RUN;
  }
  /* Idle arenas go, w's own first when this job does not use it, if that
   * is enough for the head to fit. */
  uint64_t idle, spare = scratch == 0 ? w->arena_size : 0;
  pool_worker *x = largest_idle_arena(p, w, &idle);
  if (p->held - idle - spare + need + own > p->max_memory) return CLAIM_WAIT;
  budget_drop_arena(p, spare != 0 ? w : x);
  return CLAIM_RETRY;
}

void *pool_worker_arena(pool_worker *w, size_t size) {
  pool *p = w->p;
  void *mem = NULL;
  if (size == 0) size = 1;
  pthread_mutex_lock(&p->lock);
  if (w->arena != NULL && w->arena_size >= size) {
    w->arena_busy = 1;
    mem = w->arena;
    goto out;
  }
  if (w->arena != NULL && w->arena_busy && w->reserved >= size) {
    /* A batch reserved room for a bigger arena (budget_reserve_batch): that
     * charge already covers this smaller one, so it is unmapped with its
     * bytes still counted, and only then is the bigger one mapped. The
     * arena is busy, so no other worker trades or unmaps it meanwhile. */
    void *old = w->arena;
    size_t old_size = w->arena_size;
    pthread_mutex_unlock(&p->lock);
    os_arena_unmap(old, old_size);
    pthread_mutex_lock(&p->lock);
    w->arena = NULL;
    w->arena_size = 0;
    w->arena_busy = 0;
    p->arena_bytes -= old_size;
    recharge(p, w);
    check_budget(p);
  } else if (w->arena != NULL) {
    /* More than the job reserved: trade the reservation for a bigger one. */
    w->reserved = 0;
    budget_drop_arena(p, w);
  }
  uint64_t len = w->reserved;
  if (len < size) {
    /* Not reserved when the job started: only if the budget has room now. */
    if (size > room_beside(p, w->own)) goto out;
    len = arena_len(room_beside(p, w->own), size);
    if (p->held - w->charge + len + w->own > p->max_memory) goto out;
    w->reserved = len;
    recharge(p, w);
    check_budget(p);
  }
  /* Exit is waiting for this worker: map nothing more. */
  if (stop_requested(&p->stop)) goto out;
  pthread_mutex_unlock(&p->lock);
  mem = os_arena_map((size_t)len);
  if (mem != NULL && pool_prefault(mem, (size_t)len, &p->stop) != 0) {
    os_arena_unmap(mem, (size_t)len);
    mem = NULL;
  }
  pthread_mutex_lock(&p->lock);
  if (mem != NULL) {
    w->arena = mem;
    w->arena_size = (size_t)len;
    w->arena_busy = 1;
    p->arena_maps++;
    p->arena_bytes += len;
    recharge(p, w);
  }
  check_budget(p);
out:
  pthread_mutex_unlock(&p->lock);
  return mem;
}

void budget_unclaim(pool *p, pool_worker *w) {
  /* No wake-up: budget_claim() returned CLAIM_RUN without dropping the
   * lock, so nobody saw the reservation (waking would only make the
   * workers chase each other). */
  w->reserved = 0;
  w->own = 0;
  w->arena_busy = 0;
  recharge(p, w);
  check_budget(p);
}

int budget_reserve_batch(pool *p, pool_worker *w, uint64_t scratch, uint64_t own) {
  if (own > p->max_memory || scratch > p->max_memory - own) return -1;
  uint64_t reserved = w->reserved;
  if (scratch > w->arena_size && scratch > reserved)
    reserved = arena_len(room_beside(p, own), scratch);
  uint64_t arena = w->arena_size > reserved ? w->arena_size : reserved;
  if (p->held - w->charge + arena + own > p->max_memory) return -1;
  w->reserved = reserved;
  w->own = own;
  recharge(p, w);
  check_budget(p);
  return 0;
}

void budget_release(pool *p, pool_worker *w) {
  int freed = w->reserved > w->arena_size || w->arena != NULL || w->own != 0;
  w->reserved = 0;
  w->own = 0;
  w->arena_busy = 0;
  p->busy--;
  recharge(p, w);
  check_budget(p);
  if (freed && p->queued != 0) pthread_cond_broadcast(&p->wake);
}

uint64_t pool_max_memory(pool *p) {
  pthread_mutex_lock(&p->lock);
  uint64_t max = p->max_memory;
  pthread_mutex_unlock(&p->lock);
  return max;
}
