/* Wake-ups (see the DESIGN comment in pool.c): how workers wait for the
 * pool's `wake` condition, counted so that a submit knows how many sleep,
 * and the short linger of a worker whose queue has just run dry. A leaf
 * but for the clock: the worker loop and the host-slot seeker both wait
 * through here. */
#define _POSIX_C_SOURCE 200809L
#include "pool/wake.h"

#include "pool/inbox.h"
#include "pool/internal.h"
#include "pool/os.h"
#include "pool/pool.h"

#include <pthread.h>
#include <stdint.h>

/* Lock held on entry and on return (dropped meanwhile). w waits up to
 * POOL_LINGER_NS for a submit, yielding its CPU to anything runnable. If
 * one comes, w may linger again next time the queue runs dry (another
 * worker may have taken that job); if none does, it sleeps then. */
void wake_linger(pool *p, pool_worker *w) {
  uint64_t seq = __atomic_load_n(&p->submit_seq, __ATOMIC_SEQ_CST);
  /* A submit through the inbox since the worker looked: no need to wait. */
  if (inbox_pending(p)) return;
  w->lingered = 1;
  p->lingering++;
  worker_unlock_reporting(p, w);
  uint64_t until = pool_now_ns() + POOL_LINGER_NS;
  for (unsigned i = 1;; i++) {
    if (__atomic_load_n(&p->submit_seq, __ATOMIC_ACQUIRE) != seq) {
      w->lingered = 0;
      break;
    }
    if (__atomic_load_n(&p->stop, __ATOMIC_RELAXED)) break;
    if (i % 8 == 0 && pool_now_ns() >= until) break;
    os_thread_yield();
  }
  /* The submit that woke us still holds the lock: wait for it awake, so
   * that its unlock need not wake us through the kernel. */
  while (pthread_mutex_trylock(&p->lock) != 0) os_thread_yield();
  p->lingering--;
}

/* Lock held. Every wait on `wake` goes through here, so that submits know
 * how many workers sleep. `until_ns`: NULL for no timeout. */
int wake_sleep(pool *p, const uint64_t *until_ns) {
  /* Counted, then a look at the inbox, both sequentially consistent: a
   * submit through the inbox pushes, then reads `sleeping` (inbox_try).
   * Either it sees this worker and takes the lock to wake it, or this
   * worker sees its job and does not sleep: the caller looks again. */
  __atomic_store_n(&p->sleeping, p->sleeping + 1, __ATOMIC_SEQ_CST);
  int rc = 0;
  if (!inbox_pending(p))
    rc = until_ns == NULL ? pthread_cond_wait(&p->wake, &p->lock)
                          : os_cond_wait_until(&p->wake, &p->lock, *until_ns);
  __atomic_store_n(&p->sleeping, p->sleeping - 1, __ATOMIC_SEQ_CST);
  if (p->waking > 0) __atomic_store_n(&p->waking, p->waking - 1, __ATOMIC_SEQ_CST);
  return rc;
}

uint64_t wake_nap(pool *p, uint64_t ns) {
  uint64_t start = pool_now_ns(), until = start + ns;
  wake_sleep(p, &until);
  return pool_now_ns() - start;
}
