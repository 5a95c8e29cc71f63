'use strict';

// Exposes kdfpool's pool.stats() as Prometheus metrics through prom-client.
//
// prom-client is not a dependency of kdfpool; install it next to your app:
//
//   npm install prom-client
//
// Usage:
//
//   const client = require('prom-client');
//   const { registerKdfMetrics } = require('./prometheus');
//   const pool = kdf.createPool({ name: 'login' });
//   const kdfMetrics = registerKdfMetrics(client.register, [kdf, pool]);
//   ...
//   kdfMetrics.remove(pool);   // BEFORE pool.close(): see below
//   await pool.close();
//
// `pools` are objects with a stats() method: pools from kdf.createPool(), or
// the kdf module itself (its stats() are the default pool's, named
// 'default'). Each series carries a `pool` label with stats().name, so give
// every pool a distinct name.
//
// Nothing is sampled in the background: every value is read from stats()
// when Prometheus scrapes, through the metrics' collect() callbacks.
//
// Closed pools: calling stats() on a pool after close() is not safe in
// kdfpool 0.1.0 (it reads freed native state and can crash or hang the
// process), so remove a pool from the exporter before closing it.

const PREFIX = 'kdfpool_';

// stats() key -> value of the `outcome` label of kdfpool_jobs_total.
const OUTCOMES = ['completed', 'failed', 'rejected', 'aborted', 'shed', 'cancelled'];

// Quantile label values for the p50 / p99 / max fields of waitMs and runMs
// ("1" is the maximum: the 100th percentile of the same window).
const QUANTILES = [['p50', '0.5'], ['p99', '0.99'], ['max', '1']];

/**
 * Registers kdfpool metrics on `register` (a prom-client Registry) for
 * `pools` (an iterable of pools). Returns { add(pool), remove(pool) } to
 * change the set of exported pools later.
 */
function registerKdfMetrics(register, pools = []) {
  const client = require('prom-client');
  const tracked = new Set(pools);
  // One stats() snapshot per scrape and pool, shared by every metric, so
  // the numbers of one scrape are consistent with each other.
  const snapshot = scrapeSnapshot(tracked);
  const registers = [register];

  const gauge = (name, help, pick) => new client.Gauge({
    name: PREFIX + name,
    help,
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset(); // forget pools that were removed
      for (const s of snapshot()) this.set({ pool: s.name }, pick(s));
    },
  });

  gauge('threads', 'Worker threads of the pool.', (s) => s.threads);
  gauge('jobs_running', 'Jobs running on the pool threads now.', (s) => s.running);
  gauge('jobs_queued', 'Jobs waiting in the pool queue now.', (s) => s.queued);
  gauge('queue_capacity', 'Jobs the queue accepts before refusing (maxQueue).', (s) => s.maxQueue);
  gauge('memory_in_use_bytes', 'KDF working memory reserved by running jobs.', (s) => s.memoryInUse);
  gauge('memory_max_bytes', 'KDF working memory budget of the pool (maxMemory).', (s) => s.maxMemory);
  gauge('estimated_wait_seconds', 'Estimated queue wait for a job submitted now.', (s) => s.estimatedWaitMs / 1000);

  percentileGauge(client, registers, snapshot, 'wait_seconds',
    'Time jobs waited in the queue, over the last 1024 jobs (quantile "1" is the max).', (s) => s.waitMs);
  percentileGauge(client, registers, snapshot, 'run_seconds',
    'Time jobs ran on a pool thread, over the last 1024 jobs (quantile "1" is the max).', (s) => s.runMs);

  new client.Counter({
    name: `${PREFIX}jobs_total`,
    help: 'Jobs by outcome since the pool was created. completed/failed: ran; rejected: refused at '
      + 'submit (queue full, over budget, closed); shed: deadline (maxWaitMs); cancelled: left the '
      + 'queue without running; aborted: AbortSignal fired (overlaps cancelled and completed).',
    labelNames: ['pool', 'outcome'],
    registers,
    collect() {
      // The pool owns the running totals; prom-client counters only know
      // inc(), so rebuild them from the totals on every scrape.
      this.reset();
      for (const s of snapshot()) {
        for (const outcome of OUTCOMES) this.inc({ pool: s.name, outcome }, s[outcome]);
      }
    },
  });

  return {
    add(pool) { tracked.add(pool); },
    remove(pool) { tracked.delete(pool); },
  };
}

function percentileGauge(client, registers, snapshot, name, help, pick) {
  return new client.Gauge({
    name: PREFIX + name,
    help,
    labelNames: ['pool', 'quantile'],
    registers,
    collect() {
      this.reset();
      for (const s of snapshot()) {
        const ms = pick(s);
        for (const [key, quantile] of QUANTILES) this.set({ pool: s.name, quantile }, ms[key] / 1000);
      }
    },
  });
}

// Returns a function giving the stats of every tracked pool, read at most
// once per scrape: collect() callbacks of one scrape run in the same tick,
// so the cache is dropped on the next tick.
function scrapeSnapshot(tracked) {
  let cached = null;
  return function snapshot() {
    if (cached === null) {
      cached = Array.from(tracked, (pool) => pool.stats());
      process.nextTick(() => { cached = null; });
    }
    return cached;
  };
}

module.exports = { registerKdfMetrics };
