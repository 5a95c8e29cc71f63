'use strict';

// The `kdfpool/prometheus` entry: kdfpool's metrics on a prom-client
// registry. prom-client is an optional peer dependency: this file is the
// only one that loads it, and only when registerKdfMetrics() is called.
//
// Two sources, each used for what it can give honestly:
// - Per job, from the `kdfpool:job` tracing channel (lib/tracing.js): the
//   wait and run time histograms and the outcome counters. Histograms of
//   real observations aggregate across instances (sum the buckets, then
//   take quantiles); the rolling p50/p99 of stats() cannot.
// - Per scrape, from stats() of the pools given: the gauges (threads,
//   busy threads, running, queued, queue capacity, memory). A pool that has been closed
//   drops out of them (its stats() throws PoolClosedError); its counters
//   stay, as counters do.
// The channel carries every pool of the process (the `pool` label names
// it), so jobs of pools not listed still count. *Sync calls run on the
// calling thread, not on a pool, and are not counted.

const dc = require('node:diagnostics_channel');
const kdf = require('./index');
const errors = require('./errors');
const { JOB_CHANNEL } = require('./tracing');

const PREFIX = 'kdfpool_';

// Seconds, from a 1-iteration PBKDF2 (microseconds) to a queue wait of
// several seconds.
const DEFAULT_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function loadClient(given) {
  if (given !== undefined) return given;
  try {
    return require('prom-client');
  } catch (err) {
    if (err && err.code === 'MODULE_NOT_FOUND' && /prom-client/.test(err.message)) throw errors.missingPeer('prom-client', 'kdfpool/prometheus');
    throw err;
  }
}

function gauges(client, registers, readStats) {
  const gauge = (name, help, pick) => new client.Gauge({
    name: PREFIX + name,
    help,
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset(); // pools removed or closed since the last scrape
      for (const s of readStats()) {
        const value = pick(s);
        if (value !== undefined) this.set({ pool: s.name }, value); // busyThreads: only kdfpool's own pools
      }
    },
  });
  return [
    gauge('threads', 'Worker threads of the pool.', (s) => s.threads),
    gauge('jobs_running', 'Jobs running on the pool threads now.', (s) => s.running),
    gauge('threads_busy', 'Pool threads running a job or a batch now (at most threads).', (s) => s.busyThreads),
    gauge('jobs_queued', 'Jobs waiting in the pool queue now (the queue depth).', (s) => s.queued),
    gauge('queue_capacity', 'Jobs the queue accepts before refusing (maxQueue).', (s) => s.maxQueue),
    gauge('memory_in_use_bytes', 'KDF working memory reserved by running jobs.', (s) => s.memoryInUse),
    gauge('memory_max_bytes', 'KDF working memory budget of the pool (maxMemory).', (s) => s.maxMemory),
  ];
}

// The stats of every tracked pool; closed pools leave the set. Read by
// each gauge at each scrape: a handful of native reads per pool, and no
// cache that a registry's scrape order or a single-metric read could
// leave stale.
function statsReader(tracked) {
  return function readStats() {
    const all = [];
    for (const pool of tracked) {
      try {
        all.push(pool.stats());
      } catch (err) {
        if (!(err instanceof kdf.PoolClosedError)) throw err;
        tracked.delete(pool);
      }
    }
    return all;
  };
}

/**
 * Registers kdfpool's metrics on `register` (a prom-client Registry) and
 * starts counting jobs. `pools`: the pools whose gauges to export (default:
 * the default pool). options: { client (prom-client, if it is not
 * resolvable from kdfpool), buckets (seconds) }. Returns { add(pool),
 * remove(pool), stop() }; stop() stops counting and unregisters the metrics.
 */
function registerKdfMetrics(register, pools = [kdf], options = {}) {
  const client = loadClient(options.client);
  const registers = [register];
  const buckets = options.buckets || DEFAULT_BUCKETS;
  const tracked = new Set(pools);
  const metrics = gauges(client, registers, statsReader(tracked));

  const wait = new client.Histogram({
    name: `${PREFIX}wait_seconds`,
    help: 'Time each job waited in the pool queue before a thread took it.',
    labelNames: ['pool', 'algorithm'],
    buckets,
    registers,
  });
  const run = new client.Histogram({
    name: `${PREFIX}run_seconds`,
    help: 'Time each job ran on a pool thread.',
    labelNames: ['pool', 'algorithm'],
    buckets,
    registers,
  });
  const jobs = new client.Counter({
    name: `${PREFIX}jobs_total`,
    help: 'Calls by outcome: completed, failed (ran and failed), aborted (AbortSignal), refused (never ran: '
      + 'see kdfpool_refusals_total).',
    labelNames: ['pool', 'algorithm', 'outcome'],
    registers,
  });
  const refusals = new client.Counter({
    name: `${PREFIX}refusals_total`,
    help: 'Calls the pool turned away, by reason: queue_full, deadline, displaced (retryable: a 429), '
      + 'closed, memory_limit.',
    labelNames: ['pool', 'reason'],
    registers,
  });
  metrics.push(wait, run, jobs, refusals);

  const onSettled = (ctx) => {
    if (ctx.sync) return;
    const pool = ctx.pool;
    jobs.inc({ pool, algorithm: ctx.algorithm, outcome: ctx.outcome });
    if (ctx.outcome === 'refused') refusals.inc({ pool, reason: ctx.reason });
    if (ctx.waitMs !== undefined) {
      wait.observe({ pool, algorithm: ctx.algorithm }, ctx.waitMs / 1000);
      run.observe({ pool, algorithm: ctx.algorithm }, ctx.runMs / 1000);
    }
  };
  const channel = dc.tracingChannel(JOB_CHANNEL);
  channel.subscribe({ asyncEnd: onSettled });

  return {
    add(pool) { tracked.add(pool); },
    remove(pool) { tracked.delete(pool); },
    stop() {
      channel.unsubscribe({ asyncEnd: onSettled });
      for (const m of metrics) register.removeSingleMetric(m.name);
    },
  };
}

module.exports = { registerKdfMetrics, DEFAULT_BUCKETS };
