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
// - Every 50 ms, from stats() of the pools given: busy threads integrated
//   over time, the counter kdfpool_thread_busy_seconds_total. Its rate
//   divided by kdfpool_threads is the pool's utilization over any window,
//   which a gauge read once per scrape (busy 0, 1 or 2 at that instant)
//   gives only as noise; an autoscaler wants the rate (docs/deploy.md).
//   Jobs themselves cannot give it: a batch's jobs run together on one
//   thread, each timing the whole batch.
// The channel carries every pool of the process (the `pool` label names
// it), so jobs of pools not listed still count. Pools created without a
// name (p1, p2, ...) all count as `pool="unnamed"`, their gauges summed, so
// pools that come and go add no series: the label takes the names a
// service chose, 'default' and 'unnamed'. *Sync calls run on the calling
// thread, not on a pool, and are not counted.

const dc = require('node:diagnostics_channel');
const kdf = require('./index');
const errors = require('./errors');
const { JOB_CHANNEL } = require('./tracing');
const { isUnnamed } = require('./pool');

const { performance } = require('node:perf_hooks');

const PREFIX = 'kdfpool_';
// How often busy threads are sampled for kdfpool_thread_busy_seconds_total, ms.
const BUSY_SAMPLE_MS = 50;

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

// The `pool` label of a pool's series.
const poolLabel = (name) => (isUnnamed(name) ? 'unnamed' : name);

function gauges(client, registers, readStats) {
  const gauge = (name, help, pick) => new client.Gauge({
    name: PREFIX + name,
    help,
    labelNames: ['pool'],
    registers,
    collect() {
      this.reset(); // pools removed or closed since the last scrape
      const sums = new Map();
      for (const s of readStats()) {
        const value = pick(s);
        if (value === undefined) continue; // busyThreads: only kdfpool's own pools
        const label = poolLabel(s.name);
        sums.set(label, (sums.get(label) || 0) + value);
      }
      for (const [pool, value] of sums) this.set({ pool }, value);
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

// kdfpool_thread_busy_seconds_total: each pool's busyThreads, sampled
// every BUSY_SAMPLE_MS on an unref'd timer, times the time since the last
// sample. { counter, stop() }.
function busySeconds(client, registers, readStats) {
  const counter = new client.Counter({
    name: `${PREFIX}thread_busy_seconds_total`,
    help: 'Thread-seconds the pool threads spent running jobs (busy threads sampled every 50 ms); '
      + 'its rate over kdfpool_threads is the utilization.',
    labelNames: ['pool'],
    registers,
  });
  let last = performance.now();
  // A pool's series from the moment it is tracked, at 0.
  const track = (s) => counter.inc({ pool: poolLabel(s.name) }, 0);
  for (const s of readStats()) track(s);
  const timer = setInterval(() => {
    const now = performance.now();
    const seconds = (now - last) / 1000;
    last = now;
    // Every pool, idle ones too: a series from the start, so its rate is 0, not absent.
    for (const s of readStats()) counter.inc({ pool: poolLabel(s.name) }, s.busyThreads * seconds);
  }, BUSY_SAMPLE_MS);
  timer.unref();
  return { counter, track, stop: () => clearInterval(timer) };
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
    help: 'Calls the pool turned away, by reason: queue_full, deadline, displaced (retryable), closed, '
      + 'memory_limit; retryable ones by scope: pool (the pool was full, a 503) or client (over its share, a 429).',
    labelNames: ['pool', 'reason', 'scope'],
    registers,
  });
  const busy = busySeconds(client, registers, statsReader(tracked));
  metrics.push(wait, run, jobs, refusals, busy.counter);

  const onSettled = (ctx) => {
    if (ctx.sync) return;
    const pool = poolLabel(ctx.pool);
    jobs.inc({ pool, algorithm: ctx.algorithm, outcome: ctx.outcome });
    if (ctx.outcome === 'refused') {
      const scope = ctx.error && ctx.error.scope;
      refusals.inc(scope === undefined ? { pool, reason: ctx.reason } : { pool, reason: ctx.reason, scope });
    }
    if (ctx.waitMs !== undefined) {
      wait.observe({ pool, algorithm: ctx.algorithm }, ctx.waitMs / 1000);
      run.observe({ pool, algorithm: ctx.algorithm }, ctx.runMs / 1000);
    }
  };
  const channel = dc.tracingChannel(JOB_CHANNEL);
  channel.subscribe({ asyncEnd: onSettled });

  return {
    add(pool) {
      tracked.add(pool);
      busy.track(pool.stats());
    },
    remove(pool) { tracked.delete(pool); },
    stop() {
      busy.stop();
      channel.unsubscribe({ asyncEnd: onSettled });
      for (const m of metrics) register.removeSingleMetric(m.name);
    },
  };
}

module.exports = { registerKdfMetrics, DEFAULT_BUCKETS };
