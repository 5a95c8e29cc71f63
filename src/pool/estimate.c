/* Learned run times and predicted start times (estimate.h). */
#include "pool/estimate.h"

#include "pool/steps.h"

#include <stdint.h>

/* The prior: a scale of 1 worth this much predicted work, so the first
 * jobs of a class only move it as far as their own weight allows. */
#define PRIOR_NS      (5.0 * 1000 * 1000)
#define CLAMP         8.0
/* Start-time search resolution. */
#define RESOLUTION_NS 1000.0

static unsigned class_of(unsigned cls) { return cls < POOL_COST_CLASSES ? cls : 0; }

void estimate_init(estimate *e) {
  for (unsigned i = 0; i < POOL_COST_CLASSES; i++) {
    e->spent[i] = e->predicted[i] = PRIOR_NS;
    e->cold[i] = 1;
    e->mean_run[i] = 0;
    e->batch_x16[i] = 16;
  }
}

double estimate_scale(const estimate *e, unsigned cls) {
  cls = class_of(cls);
  return e->predicted[cls] > 0 ? e->spent[cls] / e->predicted[cls] : 1.0;
}

static uint64_t to_ns(double ns) {
  if (!(ns > 0)) return 0;
  return ns >= 1e18 ? (uint64_t)1e18 : (uint64_t)ns;
}

uint64_t estimate_run_ns(const estimate *e, unsigned cls, uint64_t cost_ns) {
  cls = class_of(cls);
  if (cost_ns == 0) return e->mean_run[cls];
  return to_ns(POOL_JOB_OVERHEAD_NS + estimate_scale(e, cls) * (double)cost_ns);
}

/* sqrt(n) for a batch size, without libm (Newton's method from above). */
static double root(unsigned n) {
  double x = n, r = n;
  for (int i = 0; i < 8; i++) r = (r + x / r) / 2;
  return r;
}

double estimate_cold(const estimate *e, unsigned cls, uint64_t cost_ns) {
  return cost_ns == 0 ? 0 : e->cold[class_of(cls)];
}

uint64_t estimate_thread_ns(const estimate *e, unsigned cls, uint64_t cost_ns, unsigned batch_max) {
  unsigned c = class_of(cls);
  double batch = e->batch_x16[c] > 16 ? e->batch_x16[c] / 16.0 : 1.0;
  double seen = (double)estimate_run_ns(e, c, cost_ns) / batch;
  if (cost_ns == 0 || e->cold[c] <= 0) return to_ns(seen);
  double guess = POOL_JOB_OVERHEAD_NS + (double)cost_ns * (batch_max > 1 ? root(batch_max) : 1.0);
  return to_ns(e->cold[c] * guess + (1 - e->cold[c]) * seen);
}

void estimate_learn(estimate *e, unsigned cls, uint64_t cost_ns, uint64_t run_ns) {
  cls = class_of(cls);
  /* The cold guess's weight halves with each job of the class that runs
   * (below 2^-20 it is gone: no denormals on the path). */
  e->cold[cls] = e->cold[cls] > 1e-6 ? e->cold[cls] / 2 : 0;
  if (cost_ns == 0) {
    if (e->mean_run[cls] == 0) {
      e->mean_run[cls] = run_ns;
    } else {
      int64_t delta = (int64_t)run_ns - (int64_t)e->mean_run[cls];
      e->mean_run[cls] = (uint64_t)((int64_t)e->mean_run[cls] + delta / 8);
    }
    return;
  }
  double cost = (double)cost_ns, scale = estimate_scale(e, cls);
  double beyond = run_ns > POOL_JOB_OVERHEAD_NS ? (double)(run_ns - POOL_JOB_OVERHEAD_NS) : 0;
  if (beyond > cost * scale * CLAMP) beyond = cost * scale * CLAMP;
  if (beyond < cost * scale / CLAMP) beyond = cost * scale / CLAMP;
  /* exp(-cost / horizon), to first order per job: no libm. */
  double keep = (double)ESTIMATE_HORIZON_NS / ((double)ESTIMATE_HORIZON_NS + cost);
  e->spent[cls] = e->spent[cls] * keep + beyond;
  e->predicted[cls] = e->predicted[cls] * keep + cost;
}

void estimate_batch(estimate *e, unsigned cls, unsigned n) {
  cls = class_of(cls);
  /* Rounded, so that it reaches a steady size instead of stopping short. */
  int delta = (int)(n * 16) - (int)e->batch_x16[cls];
  e->batch_x16[cls] = (unsigned)((int)e->batch_x16[cls] + (delta + (delta > 0 ? 4 : -4)) / 8);
  if (e->batch_x16[cls] < 16) e->batch_x16[cls] = 16;
}

uint64_t estimate_left_ns(uint64_t started, uint64_t expected_end, uint64_t now) {
  (void)started;
  return expected_end > now ? expected_end - now : 0;
}

/* Starts, at or before t, of threads free at f (busy ones) and of `idle`
 * threads free now, each taking a job of c every c from when it is free.
 * (The quotients are never negative: truncation is their floor.) */
static double starts_by(const uint64_t *f, unsigned nbusy, unsigned idle, double c, double t) {
  double n = idle * ((double)(uint64_t)(t / c) + 1);
  for (unsigned i = 0; i < nbusy; i++) {
    POOL_STEP();
    if (t >= (double)f[i]) n += (double)(uint64_t)((t - (double)f[i]) / c) + 1;
  }
  return n;
}

uint64_t estimate_start_bound_ns(const uint64_t *busy_left, unsigned nbusy, unsigned threads,
                                 uint64_t work, unsigned n) {
  uint64_t latest = 0;
  for (unsigned i = 0; i < nbusy; i++)
    if (busy_left[i] > latest) latest = busy_left[i];
  if (n == 0) return latest;
  double bound = (double)latest + (double)work / (threads ? threads : 1) + (double)work / n;
  return to_ns(bound);
}

uint64_t estimate_start_ns(const uint64_t *busy_left, unsigned nbusy, unsigned threads,
                           uint64_t work, unsigned n) {
  unsigned idle = threads > nbusy ? threads - nbusy : 0;
  double first = idle > 0 ? 0 : 1e300;
  for (unsigned i = 0; i < nbusy; i++)
    if ((double)busy_left[i] < first) first = (double)busy_left[i];
  if (first == 1e300) first = 0; /* no thread at all: nothing to wait for */
  double c = n > 0 ? (double)work / n : 0;
  if (n == 0 || c <= 0) return to_ns(first);
  /* The smallest t with n + 1 starts by t; one thread alone makes them by hi. */
  double lo = first, hi = first + (double)(n + 1) * c;
  while (hi - lo > RESOLUTION_NS) {
    double mid = lo + (hi - lo) / 2;
    if (starts_by(busy_left, nbusy, idle, c, mid) >= (double)n + 1)
      hi = mid;
    else
      lo = mid;
  }
  return to_ns(hi);
}
