/* Counters and percentiles (see pool_stats in pool.h): what a job's start
 * and end count, the moving averages, the windows of wait and run times,
 * and the snapshot pool_get_stats() takes of them. Lock held unless said
 * otherwise. */
#define _POSIX_C_SOURCE 200809L
#include "pool/stats.h"

#include "common/fault.h"
#include "pool/estimate.h"
#include "pool/hostslots.h"
#include "pool/internal.h"
#include "pool/pool.h"
#include "pool/queue.h"
#include "pool/sched.h"
#include "pool/seek.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ring_add(uint64_t *ring, unsigned *pos, unsigned *count, uint64_t v) {
  ring[*pos] = v;
  *pos = (*pos + 1) % POOL_WINDOW;
  if (*count < POOL_WINDOW) (*count)++;
}

void stats_job_started(pool *p, pool_job *job, uint64_t now) {
  job->state = POOL_JOB_RUNNING;
  job->started_ns = now;
  p->running++;
  p->memory_in_use += job->memory;
  ring_add(p->wait_ring, &p->wait_pos, &p->wait_count, now - job->queued_ns);
}

void stats_job_ended(pool *p, pool_job *job, int rc, uint64_t end) {
  KDF_JOB_LEAK_POINT(); /* fault builds: the soak's proof that it sees a leak per job */
  job->finished_ns = end;
  uint64_t took = end - job->started_ns;
  p->running--;
  p->memory_in_use -= job->memory;
  if (rc < 0)
    p->failed++;
  else
    p->completed++;
  if (p->avg_run_ns == 0) {
    p->avg_run_ns = took;
  } else {
    int64_t delta = (int64_t)took - (int64_t)p->avg_run_ns;
    p->avg_run_ns = (uint64_t)((int64_t)p->avg_run_ns + delta / 8);
  }
  ring_add(p->run_ring, &p->run_pos, &p->run_count, took);
  estimate_learn(&p->estimate, job->cost_class, job->cost_ns, took);
  job->state = POOL_JOB_DONE;
}

void stats_run_started(pool *p, pool_worker *w, pool_job *const *jobs, unsigned n, uint64_t now) {
  uint64_t longest = 0;
  for (unsigned i = 0; i < n; i++) {
    uint64_t run = estimate_run_ns(&p->estimate, jobs[i]->cost_class, jobs[i]->cost_ns);
    if (run > longest) longest = run;
  }
  p->busy++;
  w->job = jobs[0];
  w->started_ns = now;
  w->expect_end_ns = now + longest;
  if (w->expect_end_ns > p->runs_end_ns) p->runs_end_ns = w->expect_end_ns;
  __atomic_store_n(&w->stop, __atomic_load_n(&p->stop, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
  estimate_batch(&p->estimate, jobs[0]->cost_class, n);
}

void stats_run_ended(pool *p, pool_worker *w) {
  w->job = NULL;
  if (p->busy <= 1) p->runs_end_ns = 0; /* the last run ends (budget_release counts it) */
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void percentiles(uint64_t *v, unsigned n, pool_percentiles *out) {
  memset(out, 0, sizeof *out);
  if (n == 0) return;
  qsort(v, n, sizeof *v, cmp_u64);
  out->p50_ns = v[(n - 1) / 2];
  out->p99_ns = v[(unsigned)(((uint64_t)n * 99 + 99) / 100) - 1];
  out->max_ns = v[n - 1];
}

void pool_get_stats(pool *p, pool_stats *s) {
  static const size_t ring_bytes = sizeof(uint64_t) * POOL_WINDOW;
  seek_refresh_members(p);
  uint64_t *waits = KDF_MALLOC(ring_bytes), *runs = KDF_MALLOC(ring_bytes);
  memset(s, 0, sizeof *s);
  queue_intake in = QUEUE_INTAKE_INIT;
  pthread_mutex_lock(&p->lock);
  queue_take_inbox(p, &in); /* what was submitted counts as queued */
  s->threads = p->threads;
  s->running = p->running;
  s->busy = p->busy;
  s->queued = p->queued;
  s->max_queue = p->max_queue;
  s->submitted = p->submitted;
  s->completed = p->completed;
  s->failed = p->failed;
  s->rejected = p->rejected;
  s->cancelled = p->cancelled;
  s->shed = p->shed;
  s->displaced = p->displaced;
  s->keys = sched_keys(&p->sched);
  s->remembered = keys_remembered(&p->sched.keys, p->sched.vtime);
  s->refused = p->refused;
  s->batched = p->batched;
  s->inboxed = p->inboxed;
  s->memory_in_use = p->memory_in_use;
  s->max_memory = p->max_memory;
  s->avg_run_ns = p->avg_run_ns;
  s->priority = p->priority;
  s->arena_maps = p->arena_maps;
  s->arena_bytes = p->arena_bytes;
  host_slots *hs = p->hosts;
  if (hs != NULL) {
    host_slots_ref(hs);
    s->host_slots = host_slots_count(hs);
    s->host_members = p->host_members;
    s->host_wait_ns = p->slot_wait_ns;
    snprintf(s->host_key, sizeof s->host_key, "%s", host_slots_key(hs));
  }
  unsigned nw = p->wait_count, nr = p->run_count;
  if (waits != NULL) memcpy(waits, p->wait_ring, ring_bytes);
  if (runs != NULL) memcpy(runs, p->run_ring, ring_bytes);
  pthread_mutex_unlock(&p->lock);
  queue_intake_finish(p, &in);
  if (hs != NULL) {
    s->host_held = host_slots_held(hs);
    host_slots_unref(hs);
  }
  if (waits != NULL) percentiles(waits, nw, &s->wait);
  if (runs != NULL) percentiles(runs, nr, &s->run);
  KDF_FREE(waits);
  KDF_FREE(runs);
}
