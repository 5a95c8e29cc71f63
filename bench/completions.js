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
//   node bench/completions.js --against <dir> [--runs 3]
//
// --against <dir>: kdfpool's promise form here against the kdfpool
// checkout in <dir> (built), each in its own processes taking turns
// (`runs` each), without keys and, where a build has fairKey, with a
// fairKey per call from 64 clients; prints every run and the ratio of the
// medians (here / there).

const crypto = require('node:crypto');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { median, fmtRatio, table, keepInFlight } = require('./stats');

const argv = process.argv.slice(2);
const QUICK = argv.includes('--quick');
const JSON_OUT = argv.includes('--json');
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const kdf = require(process.env.KDFPOOL_COMPLETIONS_ROOT || '..');

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

// A child of --against: jobs/s of the promise form (mode 'plain' or
// 'fairKey') in this process, for the checkout KDFPOOL_COMPLETIONS_ROOT.
async function child(mode) {
  const clients = Array.from({ length: 64 }, (_, i) => `203.0.113.${i}`);
  let n = 0;
  const submit = mode === 'fairKey'
    ? (cb) => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { fairKey: clients[n++ & 63] }).then((key) => cb(null, key), cb)
    : (cb) => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256').then((key) => cb(null, key), cb);
  kdf.configure({ maxQueue: Math.max(kdf.stats().maxQueue, IN_FLIGHT) });
  await saturate(submit, IN_FLIGHT * 5, IN_FLIGHT);
  const rounds = [];
  for (let r = 0; r < 3; r++) rounds.push(await saturate(submit, JOBS, IN_FLIGHT));
  process.stdout.write(JSON.stringify(median(rounds)));
}

function against(dir, runs) {
  const roots = [path.join(__dirname, '..'), path.resolve(dir)];
  const hasFairKey = (root) => require(path.join(root, 'package.json')) && require('node:fs')
    .readFileSync(path.join(root, 'lib', 'submit.js'), 'utf8').includes('fairKey');
  const modes = ['plain', ...(roots.every(hasFairKey) ? ['fairKey'] : ['fairKey-here'])];
  const measure = (root, mode) => {
    const r = spawnSync(process.execPath, [__filename, '--child', mode === 'fairKey-here' ? 'fairKey' : mode].concat(QUICK ? ['--quick'] : []), {
      env: { ...process.env, KDFPOOL_COMPLETIONS_ROOT: root }, encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${root}: ${r.stderr}`);
    return Number(r.stdout);
  };
  const rows = [];
  for (const mode of modes) {
    // fairKey-here: the other build has no fairKey; its calls without keys
    // are the baseline (the build before the fair queue).
    const runsOf = [[], []];
    for (let i = 0; i < runs; i++) {
      runsOf[0].push(measure(roots[0], mode));
      runsOf[1].push(measure(roots[1], mode === 'fairKey-here' ? 'plain' : mode));
    }
    const [here, there] = runsOf.map((xs) => median(xs));
    rows.push([mode === 'fairKey-here' ? 'fairKey (there: none)' : mode, runsOf[0].map(Math.round).join(' '),
      runsOf[1].map(Math.round).join(' '), fmtRatio(here / there)]);
  }
  console.log(`PBKDF2-SHA256 1 iteration, promise form, ${JOBS} jobs, ${IN_FLIGHT} in flight; jobs/s per run (median of 3 rounds each),`
    + ` runs interleaved; here = ${roots[0]}, there = ${roots[1]}; load ${require('node:os').loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(table(['calls', 'here', 'there', 'here / there (medians)'], rows));
}

const childMode = opt('--child');
(childMode !== undefined ? child(childMode)
  : opt('--against') !== undefined ? Promise.resolve(against(opt('--against'), Number(opt('--runs') || 3)))
    : main()).catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
