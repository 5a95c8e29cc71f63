/* Host slots as the pool's workers use them (see Host slots in the
 * DESIGN comment of pool.c; the lock files are pool/hostslots.c): the one
 * seeker that polls for a slot, giving a slot back with courtesy to the
 * other pools, and the count of live members the wait estimate uses. Lock
 * held unless said otherwise. */
#define _POSIX_C_SOURCE 200809L
#include "pool/seek.h"

#include "pool/budget.h"
#include "pool/hostslots.h"
#include "pool/internal.h"
#include "pool/pool.h"
#include "pool/wake.h"

#include <pthread.h>
#include <stdint.h>

#define SLOT_POLL_MIN_NS 50000u   /* 50 us */
#define SLOT_POLL_MAX_NS 1000000u /* 1 ms */

int seek_give_slot(pool_worker *w, int ask) {
  host_slots *hs = w->slot_owner;
  if (hs == NULL) return 0;
  w->slot_owner = NULL;
  host_slots_give(hs, w->slot);
  int others = ask && host_slots_others_want(hs);
  host_slots_unref(hs);
  w->slot = -1;
  return others ? 2 : 1;
}

void seek_slot_given(pool *p, int gave) {
  /* Courtesy: the others poll at most SLOT_POLL_MAX_NS apart; staying
   * away for two of their periods lets every one of them try once. */
  if (gave == 2) p->slot_courtesy_ns = pool_now_ns() + 2 * SLOT_POLL_MAX_NS;
  /* This pool's seeker may take it now (unless courtesy holds it back). */
  if (p->seeker != NULL) pthread_cond_broadcast(&p->wake);
}

void seek_drop_slot(pool *p, pool_worker *w) {
  if (w->slot_owner == NULL) return;
  pthread_mutex_unlock(&p->lock);
  int gave = seek_give_slot(w, 0);
  pthread_mutex_lock(&p->lock);
  seek_slot_given(p, gave);
}

/* Says (or stops saying) that this pool waits for a slot of `hs`; the lock
 * is dropped meanwhile. */
static void want_slot(pool *p, host_slots *hs, int wanting) {
  p->slot_wanted = wanting;
  host_slots_ref(hs);
  pthread_mutex_unlock(&p->lock);
  host_slots_want(hs, wanting);
  host_slots_unref(hs);
  pthread_mutex_lock(&p->lock);
}

int seek_ready(pool *p, pool_worker *w) {
  if (w->slot_owner == p->hosts) return 1; /* also: none configured, none held */
  budget_unclaim(p, w);
  if (w->slot_owner != NULL) { /* from a setting reconfigure has replaced */
    seek_drop_slot(p, w);
    return 0;
  }
  if (p->seeker != NULL && p->seeker != w) {
    wake_sleep(p, NULL);
    return 0;
  }
  p->seeker = w;
  uint64_t now = pool_now_ns();
  if (now < p->slot_courtesy_ns) {
    p->slot_wait_ns += wake_nap(p, p->slot_courtesy_ns - now);
    return 0;
  }
  host_slots *hs = p->hosts;
  int wanted = p->slot_wanted;
  host_slots_ref(hs);
  pthread_mutex_unlock(&p->lock);
  int slot = host_slots_take(hs);
  unsigned members = slot < 0 ? host_slots_members(hs) : 0;
  /* Waiting is said once, and unsaid with the slot (see DESIGN). */
  if ((slot < 0) != wanted) host_slots_want(hs, slot < 0);
  if (slot < 0) host_slots_unref(hs); /* outside the lock: it may close files */
  pthread_mutex_lock(&p->lock);
  if (p->hosts == hs) p->slot_wanted = slot < 0;
  if (slot >= 0) {
    w->slot_owner = hs; /* the reference taken above is now the worker's */
    w->slot = slot;
    w->slot_backoff_ns = 0;
    p->seeker = NULL;
    /* The job after the head will want a seeker of its own. */
    if (p->queued > 1) pthread_cond_signal(&p->wake);
    return 0;
  }
  if (p->hosts == hs) p->host_members = members;
  uint64_t period = w->slot_backoff_ns * 2;
  if (period < SLOT_POLL_MIN_NS) period = SLOT_POLL_MIN_NS;
  if (period > SLOT_POLL_MAX_NS) period = SLOT_POLL_MAX_NS;
  w->slot_backoff_ns = period;
  p->slot_wait_ns += wake_nap(p, period);
  return 0;
}

int seek_stop(pool *p, pool_worker *w) {
  if (p->seeker != w) return 0;
  p->seeker = NULL;
  w->slot_backoff_ns = 0;
  if (!p->slot_wanted || p->hosts == NULL) return 0;
  want_slot(p, p->hosts, 0);
  return 1;
}

void seek_refresh_members(pool *p) {
  pthread_mutex_lock(&p->lock);
  host_slots *hs = p->hosts;
  if (hs != NULL) host_slots_ref(hs);
  pthread_mutex_unlock(&p->lock);
  if (hs == NULL) return;
  unsigned members = host_slots_members(hs);
  pthread_mutex_lock(&p->lock);
  if (p->hosts == hs) p->host_members = members;
  pthread_mutex_unlock(&p->lock);
  host_slots_unref(hs);
}
