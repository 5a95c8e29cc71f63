#!/usr/bin/env node
'use strict';

// PBKDF2 side by side, in one run: node:crypto vs kdfpool, async and sync.
//
// 1. Single-op latency: the four implementations take turns (the order
//    rotates every round, so none always runs on a warmer cache or a cooler
//    core); median of ROUNDS each. Ratios are crypto / kdf (speed-up).
// 2. Saturated throughput: SAT_IN_FLIGHT (32) calls kept in flight, node's
//    and kdfpool's runs alternating, median of SAT_REPEATS; jobs of one
//    digest queue together, so kdfpool runs them as batches of interleaved
//    chains. Ratio = kdfpool ops/s / node ops/s.
// 3. Completion overhead: JOBS jobs of 1 iteration with IN_FLIGHT kept in
//    flight, so the cost is almost all submit + thread hop + completion.
//
//   node bench/pbkdf2.js [--quick] [--json] [--goals] [--normal]
//   --normal: kdfpool threads at normal priority, as node's libuv threads
//   --goals: only issue 13's cases (single op and saturated), no overhead run

const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');
const { promisify } = require('node:util');
const kdf = require('..');
const { median, fmtMs, fmtRatio, table, keepInFlight } = require('./stats');

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const JSON_OUT = argv.includes('--json');
const GOALS = argv.includes('--goals');
// --normal: pool threads at the JS thread's priority, like libuv's (the
// default 'auto' runs low until other processes starve it).
if (argv.includes('--normal')) kdf.configure({ priority: 'normal' });
const SAT_IN_FLIGHT = 32;
const SAT_REPEATS = QUICK ? 3 : 5;

const ROUNDS = QUICK ? 15 : 21;
const JOBS = QUICK ? 5000 : 20000;
const IN_FLIGHT = 256;
const OVERHEAD_REPEATS = 3;

const CASES = [
  { digest: 'sha256', iterations: 100000, keylen: 32 },
  { digest: 'sha256', iterations: 100000, keylen: 64 },
  { digest: 'sha512', iterations: 210000, keylen: 64 },
  ...(GOALS ? [] : [{ digest: 'sha1', iterations: 100000, keylen: 20 }]),
];

// Saturated cases: jobs per measured run (enough for several seconds of
// node's work on 2 cores).
const SAT_CASES = [
  { digest: 'sha256', iterations: 100000, keylen: 32, jobs: QUICK ? 64 : 128 },
  { digest: 'sha512', iterations: 210000, keylen: 64, jobs: QUICK ? 32 : 64 },
];

const PASSWORD = 'correct horse battery staple';
const SALT = crypto.randomBytes(16);
const cryptoPbkdf2 = promisify(crypto.pbkdf2);

const IMPLS = {
  'crypto.pbkdf2': (c) => cryptoPbkdf2(PASSWORD, SALT, c.iterations, c.keylen, c.digest),
  'kdf.pbkdf2': (c) => kdf.pbkdf2(PASSWORD, SALT, c.iterations, c.keylen, c.digest),
  'crypto.pbkdf2Sync': (c) => crypto.pbkdf2Sync(PASSWORD, SALT, c.iterations, c.keylen, c.digest),
  'kdf.pbkdf2Sync': (c) => kdf.pbkdf2Sync(PASSWORD, SALT, c.iterations, c.keylen, c.digest),
};
const NAMES = Object.keys(IMPLS);

async function timeOnce(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function singleOp(c) {
  // Same bytes from all four, and every pool thread warmed up.
  const keys = await Promise.all(NAMES.map((n) => IMPLS[n](c)));
  for (const k of keys) if (!k.equals(keys[0])) throw new Error(`output mismatch for ${c.digest}`);

  const samples = Object.fromEntries(NAMES.map((n) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < NAMES.length; i++) {
      const name = NAMES[(round + i) % NAMES.length];
      samples[name].push(await timeOnce(() => IMPLS[name](c)));
    }
  }
  const med = Object.fromEntries(NAMES.map((n) => [n, median(samples[n])]));
  return {
    ...c,
    medianMs: med,
    asyncSpeedup: med['crypto.pbkdf2'] / med['kdf.pbkdf2'],
    syncSpeedup: med['crypto.pbkdf2Sync'] / med['kdf.pbkdf2Sync'],
  };
}

// Runs `jobs` jobs with `inFlight` outstanding; resolves with µs per job.
async function saturate(submit, jobs, inFlight) {
  return ((await keepInFlight(submit, jobs, inFlight)) * 1000) / jobs;
}

const OVERHEAD_IMPLS = {
  'crypto.pbkdf2': (cb) => crypto.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', cb),
  'kdf.pbkdf2 (promise)': (cb) => kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256').then(() => cb(null), cb),
  'kdf.pbkdf2 (callback)': (cb) => kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', cb),
};

async function saturated(c) {
  const impls = {
    'crypto.pbkdf2': (cb) => crypto.pbkdf2(PASSWORD, SALT, c.iterations, c.keylen, c.digest, cb),
    'kdf.pbkdf2': (cb) => kdf.pbkdf2(PASSWORD, SALT, c.iterations, c.keylen, c.digest, cb),
  };
  const names = Object.keys(impls);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) await saturate(impls[n], SAT_IN_FLIGHT, SAT_IN_FLIGHT); // warm-up
  for (let r = 0; r < SAT_REPEATS; r++) {
    for (let i = 0; i < names.length; i++) {
      const n = names[(r + i) % names.length];
      samples[n].push(1e6 / (await saturate(impls[n], c.jobs, SAT_IN_FLIGHT)));
    }
  }
  const ops = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
  const { batched, completed } = kdf.stats();
  return { ...c, opsPerSec: ops, ratio: ops['kdf.pbkdf2'] / ops['crypto.pbkdf2'], batchedShare: batched / completed };
}

async function completionOverhead() {
  // kdfpool's default queue bound (64 per thread) is below IN_FLIGHT; this
  // measures overhead, not refusals, so make room for the whole batch.
  const { maxQueue } = kdf.stats();
  kdf.configure({ maxQueue: Math.max(maxQueue, IN_FLIGHT) });
  try {
    const names = Object.keys(OVERHEAD_IMPLS);
    for (const n of names) await saturate(OVERHEAD_IMPLS[n], 1000, IN_FLIGHT); // warm-up
    const samples = Object.fromEntries(names.map((n) => [n, []]));
    for (let r = 0; r < OVERHEAD_REPEATS; r++) {
      for (const n of names) samples[n].push(await saturate(OVERHEAD_IMPLS[n], JOBS, IN_FLIGHT));
    }
    return Object.fromEntries(names.map((n) => [n, median(samples[n])]));
  } finally {
    kdf.configure({ maxQueue });
  }
}

function print(results, sat, overhead) {
  console.log(`PBKDF2, single op, median of ${ROUNDS} interleaved runs (ms); ${kdf.stats().threads} kdfpool threads at priority ${kdf.stats().priority}, node ${process.version}`);
  console.log(table(
    ['case', ...NAMES, 'async speed-up', 'kdf time / node time', 'sync speed-up'],
    results.map((r) => [
      `${r.digest.toUpperCase()} ${r.iterations / 1000}k it ${r.keylen} B`,
      ...NAMES.map((n) => fmtMs(r.medianMs[n])),
      fmtRatio(r.asyncSpeedup),
      (1 / r.asyncSpeedup).toFixed(2) + 'x',
      fmtRatio(r.syncSpeedup),
    ]),
  ));
  console.log('(speed-up = crypto time / kdfpool time; > 1 means kdfpool is faster)\n');
  console.log(`PBKDF2, saturated: ${SAT_IN_FLIGHT} calls in flight, ops/s, median of ${SAT_REPEATS} alternating runs`);
  console.log(table(
    ['case', 'crypto.pbkdf2', 'kdf.pbkdf2', 'kdf / node'],
    sat.map((r) => [
      `${r.digest.toUpperCase()} ${r.iterations / 1000}k it ${r.keylen} B`,
      r.opsPerSec['crypto.pbkdf2'].toFixed(1),
      r.opsPerSec['kdf.pbkdf2'].toFixed(1),
      fmtRatio(r.ratio),
    ]),
  ));
  console.log(`(jobs that ran batched behind another, whole run: ${(100 * sat[sat.length - 1].batchedShare).toFixed(0)}%)\n`);
  if (overhead === null) return;
  const base = overhead['crypto.pbkdf2'];
  console.log(`Completion overhead: ${JOBS} jobs of 1 iteration, ${IN_FLIGHT} in flight, median of ${OVERHEAD_REPEATS}`);
  console.log(table(
    ['implementation', 'us/job', 'vs crypto.pbkdf2'],
    Object.entries(overhead).map(([n, us]) => [n, us.toFixed(2), fmtRatio(base / us)]),
  ));
}

async function main() {
  const results = [];
  for (const c of CASES) {
    process.stderr.write(`${c.digest} ${c.iterations} ${c.keylen} ...\n`);
    results.push(await singleOp(c));
  }
  const sat = [];
  for (const c of SAT_CASES) {
    process.stderr.write(`saturated ${c.digest} ${c.iterations} ${c.keylen} ...\n`);
    sat.push(await saturated(c));
  }
  let overhead = null;
  if (!GOALS) {
    process.stderr.write('completion overhead ...\n');
    overhead = await completionOverhead();
  }
  if (JSON_OUT) console.log(JSON.stringify({ node: process.version, rounds: ROUNDS, jobs: JOBS, inFlight: IN_FLIGHT, results, saturated: sat, overheadUsPerJob: overhead }, null, 2));
  else print(results, sat, overhead);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
