'use strict';

// hostSlots throughput, side by side in one run: the same PBKDF2 jobs
//   single   one process, its pool at `slots` threads, no hostSlots
//   cluster  4 node:cluster workers (2 threads each) sharing hostSlots = slots
//   free     the same 4 workers without hostSlots (8 threads on the host)
// Each setup runs in child processes started the same way; the time is
// from the primary's 'run' message to the last worker's results (startup
// excluded). Prints jobs/s and cluster/single: with the host's concurrency
// capped at the single process's, the ratio should be ~1.00 (what hand-
// overs between processes cost). Ratios are paired within each round (see
// main()); jobs/s are medians of every run.
//   node bench/hostslots.js [--jobs 160] [--iterations 100000] [--slots 2] [--rounds 3] [--json]

const cluster = require('node:cluster');
const crypto = require('node:crypto');
const { median, fmtRatio } = require('./stats');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

if (cluster.isWorker) {
  const kdf = require('..');
  const slots = Number(process.env.HS_SLOTS);
  kdf.configure({
    threads: Number(process.env.HS_THREADS),
    maxQueue: 4096, // every job is submitted at once
    // 'normal', not the default 'auto': at nice 19 (until starved) the pools
    // get whatever CPU the machine's other load leaves, and the bench would
    // measure that.
    priority: 'normal',
    hostSlots: slots > 0 ? { key: process.env.HS_KEY, slots } : undefined,
  });
  const native = require('../lib/native');
  // The run log is a test build's (npm run build), not a release build's.
  if (native.testing === undefined) throw new Error('bench/hostslots.js needs a test build of the addon: npm run build');
  process.on('message', async ({ jobs, iterations }) => {
    native.testing.runLog(true);
    const keys = await Promise.all(Array.from({ length: jobs },
      (_, i) => kdf.pbkdf2(`pw${i}`, 'salt', iterations, 32, 'sha256')));
    const [runs] = native.testing.runLog(false);
    process.send({ jobs: keys.length, runs, stats: kdf.stats() });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

function message(w) {
  return new Promise((resolve) => w.once('message', resolve));
}

// Starts `n` workers, waits until all are ready, runs `jobs` jobs spread
// over them; returns jobs per second.
async function measure({ n, threads, slots, key, jobs, iterations, concurrency }) {
  const workers = Array.from({ length: n }, () => cluster.fork({
    HS_KEY: key, HS_SLOTS: String(slots), HS_THREADS: String(threads),
  }));
  await Promise.all(workers.map(message));
  const each = jobs / n;
  const start = process.hrtime.bigint();
  const done = workers.map(message);
  for (const w of workers) w.send({ jobs: each, iterations });
  const reports = await Promise.all(done);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  // Busy fraction of the `slots` slots between the first job's start and
  // the last one's end (run intervals from native.testing.runLog, one monotonic
  // clock for every process): what hand-overs leave idle, whatever CPU the
  // machine's other load leaves us.
  let first = Infinity, last = 0, busy = 0;
  for (const { runs } of reports) {
    for (let i = 0; i < runs.length; i += 2) {
      first = Math.min(first, runs[i]);
      last = Math.max(last, runs[i + 1]);
      busy += runs[i + 1] - runs[i];
    }
  }
  const utilization = busy / ((last - first) * concurrency);
  // Fairness: each worker's share of its runs that started in the first
  // half (0.5 each when the processes take turns; 1 and 0 when some keep
  // the slots until their queue is empty).
  const mid = (first + last) / 2;
  const firstHalf = reports.map(({ runs }) => {
    let n = 0;
    for (let i = 0; i < runs.length; i += 2) n += runs[i] < mid ? 1 : 0;
    return n / (runs.length / 2);
  });
  const waitMs = reports.reduce((sum, r) => sum + (r.stats.hostSlots ? r.stats.hostSlots.waitMs : 0), 0);
  await Promise.all(workers.map((w) => new Promise((resolve) => {
    w.once('exit', resolve);
    w.disconnect();
  })));
  return { rate: jobs / seconds, waitMs, utilization, firstHalf };
}

async function main() {
  const jobs = arg('jobs', 160);
  const iterations = arg('iterations', 100000);
  const slots = arg('slots', 2);
  const rounds = arg('rounds', 3);
  const key = `kdfpool-bench-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  cluster.setupPrimary({ exec: __filename });
  const setups = {
    single: { n: 1, threads: slots, slots: 0, concurrency: slots },
    cluster: { n: 4, threads: 2, slots, concurrency: slots },
    free: { n: 4, threads: 2, slots: 0, concurrency: 8 },
  };
  const rates = { single: [], cluster: [], free: [] };
  let waitMs = 0;
  // Discarded: the first run of a process tree is slower (measured: 2.7 s
  // for what then takes 1.6-1.9 s), which would bias the first round.
  await measure({ ...setups.single, key, jobs, iterations });
  // The machine's other load drifts: each round runs the setups in an
  // order and then in reverse (single cluster free free cluster single),
  // and the ratios are taken within a round, then their median.
  const order = Object.keys(setups);
  const ratios = { cluster: [], free: [] };
  const utilization = { single: [], cluster: [] };
  const shares = [];
  for (let r = 0; r < rounds; r++) {
    const round = { single: 0, cluster: 0, free: 0 };
    for (const name of [...order, ...[...order].reverse()]) {
      const m = await measure({ ...setups[name], key, jobs, iterations });
      rates[name].push(m.rate);
      round[name] += m.rate / 2;
      if (name !== 'free') utilization[name].push(m.utilization);
      if (name === 'cluster') shares.push(...m.firstHalf);
      if (name === 'cluster') waitMs += m.waitMs / 2;
    }
    ratios.cluster.push(round.cluster / round.single);
    ratios.free.push(round.free / round.single);
  }
  // The key was this run's only: its lock directory goes (every worker is gone).
  require('node:fs').rmSync(require('../lib/hostslots').dirFor(key), { recursive: true, force: true });
  const med = Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, median(v)]));
  const result = {
    jobs, iterations, slots, rounds,
    jobsPerSecond: med,
    clusterOverSingle: median(ratios.cluster),
    freeOverSingle: median(ratios.free),
    clusterOverSingleRounds: ratios.cluster.map((x) => Number(x.toFixed(3))),
    slotUtilization: { single: median(utilization.single), cluster: median(utilization.cluster) },
    firstHalfShare: { min: Math.min(...shares), median: median(shares), max: Math.max(...shares) },
    slotWaitMsPerRun: waitMs / rounds,
  };
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`PBKDF2-SHA256 ${iterations} iterations, ${jobs} jobs, medians of ${rounds} rounds`);
  console.log(`  single process, ${slots} threads:           ${med.single.toFixed(1)} jobs/s`);
  console.log(`  cluster of 4, hostSlots ${slots} (8 threads): ${med.cluster.toFixed(1)} jobs/s`);
  console.log(`  cluster of 4, no hostSlots (8 threads):  ${med.free.toFixed(1)} jobs/s`);
  console.log(`  cluster/single: ${fmtRatio(result.clusterOverSingle)} (per round: ${result.clusterOverSingleRounds.join(' ')})` +
    `   free/single: ${fmtRatio(result.freeOverSingle)}`);
  const u = result.slotUtilization;
  console.log(`  slots busy: single ${(100 * u.single).toFixed(1)}%, cluster ${(100 * u.cluster).toFixed(1)}%` +
    ` (cluster/single ${fmtRatio(u.cluster / u.single)}: hand-over cost, independent of the machine's other load)`);
  const f = result.firstHalfShare;
  console.log(`  turns: each cluster worker's share of its runs started in the first half: ` +
    `min ${f.min.toFixed(2)}, median ${f.median.toFixed(2)}, max ${f.max.toFixed(2)} (0.50: fair)`);
  console.log(`  time the cluster's workers waited for a slot: ${result.slotWaitMsPerRun.toFixed(0)} ms per run (summed over workers)`);
}
