#!/usr/bin/env node
'use strict';

// Completion path, side by side in one run: jobs/s of 1-iteration PBKDF2
// (pbkdf2('pw', 'salt', 1, 32, 'sha256')) with IN_FLIGHT calls kept
// outstanding, so that the time is almost all per-job overhead: argument
// checks, submit, the hop to a pool thread and back, settling. kdfpool's
// promise and callback forms against crypto.pbkdf2's callback form (which
// runs on libuv's pool). Rounds are interleaved (the order rotates) so that
// load on the machine hits each alike; prints medians and the ratio of each
// to crypto.pbkdf2 (> 1: more jobs/s than crypto.pbkdf2).
//
//   node bench/completions.js [--quick] [--json]

const crypto = require('node:crypto');
const kdf = require('..');
const { median, fmtRatio, table, keepInFlight } = require('./stats');

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const JSON_OUT = argv.includes('--json');

const JOBS = QUICK ? 20000 : 100000;
const IN_FLIGHT = 1000;
const ROUNDS = QUICK ? 3 : 7;

const IMPLS = {
  'crypto.pbkdf2 (callback)': (cb) => crypto.pbkdf2('pw', 'salt', 1, 32, 'sha256', cb),
  'kdf.pbkdf2 (promise)': (cb) => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256').then((key) => cb(null, key), cb),
  'kdf.pbkdf2 (callback)': (cb) => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', cb),
};
const NAMES = Object.keys(IMPLS);

// Runs `jobs` calls with `inFlight` outstanding; resolves with jobs/s.
async function saturate(submit, jobs, inFlight) {
  return jobs / ((await keepInFlight(submit, jobs, inFlight)) / 1000);
}

async function main() {
  // The default queue bound (64 per thread) is below IN_FLIGHT: this
  // measures overhead, not refusals.
  const { maxQueue } = kdf.stats();
  kdf.configure({ maxQueue: Math.max(maxQueue, IN_FLIGHT) });
  const samples = Object.fromEntries(NAMES.map((n) => [n, []]));
  try {
    for (const n of NAMES) await saturate(IMPLS[n], IN_FLIGHT * 5, IN_FLIGHT); // warm-up
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < NAMES.length; i++) {
        const n = NAMES[(round + i) % NAMES.length];
        samples[n].push(await saturate(IMPLS[n], JOBS, IN_FLIGHT));
      }
    }
  } finally {
    kdf.configure({ maxQueue });
  }
  const med = Object.fromEntries(NAMES.map((n) => [n, median(samples[n])]));
  const base = med[NAMES[0]];
  if (JSON_OUT) {
    console.log(JSON.stringify({ node: process.version, jobs: JOBS, inFlight: IN_FLIGHT, rounds: ROUNDS, jobsPerSecond: med }, null, 2));
    return;
  }
  console.log(`PBKDF2-SHA256 1 iteration, ${JOBS} jobs, ${IN_FLIGHT} in flight, median of ${ROUNDS} interleaved rounds;`
    + ` ${kdf.stats().threads} kdfpool threads, UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE || 4}, node ${process.version}`);
  console.log(table(
    ['implementation', 'jobs/s', 'us/job', 'vs crypto.pbkdf2'],
    NAMES.map((n) => [n, Math.round(med[n]).toString(), (1e6 / med[n]).toFixed(2), fmtRatio(med[n] / base)]),
  ));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
