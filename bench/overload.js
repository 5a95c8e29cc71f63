#!/usr/bin/env node
'use strict';

// Overload, as the clients of a login service see it: what a refusal tells
// them and whether acting on it works. One pool of 2 threads, PBKDF2-SHA256
// logins of 2-8 ms (iterations calibrated on this machine first), three
// scenarios, each run side by side for
//
//   crypto     crypto.pbkdf2 on libuv's pool (2 threads here): never
//              refuses, so every login waits as long as it takes
//   fifo       kdfpool without fairKey: one shared key, a FIFO queue
//   fair       kdfpool with a fairKey per client
//
// Scenarios:
//   cold       a fresh pool (no job has finished yet): jobs are submitted
//              until the first refusal; its retryAfterMs against the time
//              the accepted jobs really take to drain
//   retrying   12 closed-loop clients, maxQueue 4: a refused client sleeps
//              retryAfterMs and tries again. The share of those retries
//              that are admitted, and the login time (first try to key).
//              Twice: sleeping the millisecond hint, and sleeping what an
//              HTTP client that honours Retry-After sleeps (the header's
//              whole seconds) plus a 20 ms round trip
//   flooder    one client keeps 40 calls in flight and retries at once
//              (1 ms after a refusal, never at the hint);
//              legitimate users (a key each) arrive at 40 % of capacity,
//              retry at the hint and give up after 2 s. maxQueue 16. Their
//              success rate and login time, against the same users on an
//              idle pool
//   flooders   a flood from 100 and from 1,000 keys: each keeps one call in
//              flight and comes back 20 ms after a refusal; the same users
//
//   node bench/overload.js            about 90 s
//   node bench/overload.js --quick    about 35 s
//   node bench/overload.js --seconds 5 --json
//
// Writes bench/overload-results.md and bench/overload.svg.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep, setImmediate: tick } = require('node:timers/promises');
const { percentile, fmtMs, fmtRatio, table } = require('./stats');

// libuv's pool gets the same 2 threads as ours; it is sized at start-up.
if (process.env.UV_THREADPOOL_SIZE !== '2') {
  const r = spawnSync(process.execPath, process.argv.slice(1), {
    stdio: 'inherit',
    env: { ...process.env, UV_THREADPOOL_SIZE: '2' },
  });
  process.exit(r.status === null ? 1 : r.status);
}

const kdf = require('..');

const args = process.argv.slice(2);
const QUICK = args.includes('--quick');
const JSON_OUT = args.includes('--json');
const secondsArg = args.indexOf('--seconds');
const SECONDS = secondsArg >= 0 ? Number(args[secondsArg + 1]) : QUICK ? 3 : 8;
const THREADS = 2;
const GIVE_UP_MS = 2000;

const log = (...a) => process.stderr.write(`${a.join(' ')}\n`);

// Iterations per ms of one PBKDF2-SHA256 chain on this machine, measured
// with the same library that runs the jobs (a lone job, no batch).
function calibrate() {
  const n = 20000;
  kdf.pbkdf2Sync('warm', 'salt', n, 32, 'sha256');
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    kdf.pbkdf2Sync('pw', 'salt', n, 32, 'sha256');
    best = Math.min(best, performance.now() - t);
  }
  return n / best;
}
const ITER_PER_MS = calibrate();

// A deterministic stream of job sizes (2-8 ms), the same for every row.
function jobSizes(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.round(ITER_PER_MS * (2 + (6 * s) / 2 ** 32));
  };
}
const MEAN_JOB_MS = 5;
const CAPACITY_PER_S = (THREADS * 1000) / MEAN_JOB_MS;

const pbkdf2Promise = (iterations) =>
  new Promise((resolve, reject) => {
    crypto.pbkdf2('password', 'salt', iterations, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key)));
  });

// A contender: submit(iterations, clientKey) -> Promise<Buffer>, and close().
function contender(kind, maxQueue) {
  if (kind === 'crypto') return { submit: (it) => pbkdf2Promise(it), close: async () => {} };
  const pool = kdf.createPool({ threads: THREADS, maxQueue, priority: 'normal' });
  const withKey = kind === 'fair';
  return {
    submit: (it, key) => pool.pbkdf2('password', 'salt', it, 32, 'sha256', withKey ? { fairKey: key } : undefined),
    close: () => pool.close(),
  };
}

const isSaturated = (err) => err instanceof kdf.PoolSaturatedError;

// ---- cold: the first refusal's hint against the real drain time ----

async function cold(kind) {
  const c = contender(kind, 64);
  const size = jobSizes(7);
  const pending = [];
  let hint = null;
  const t0 = performance.now();
  for (let i = 0; i < 10000 && hint === null; i++) {
    const p = c.submit(size(), 'cold');
    // A refusal rejects at once; an accepted job is still pending after a turn.
    const state = await Promise.race([p.then(() => 'done', (e) => e), tick().then(() => 'pending')]);
    if (state instanceof Error) {
      if (!isSaturated(state)) throw state;
      hint = state.retryAfterMs;
    } else {
      pending.push(p);
    }
  }
  const refusedAt = performance.now();
  await Promise.all(pending);
  const drainMs = performance.now() - refusedAt;
  await c.close();
  return { kind, accepted: pending.length, hintMs: hint, drainMs, ratio: hint / drainMs, tookMs: refusedAt - t0 };
}

// ---- retrying: closed-loop clients that sleep the hint ----

// What a client sleeps after a refusal: the hint, or (retryAfter) what an
// HTTP client honouring the Retry-After header sleeps: the header's whole
// seconds, plus a round trip.
const sleepFor = (err, retryAfter) => (retryAfter ? Number(err.headers['retry-after']) * 1000 + 20 : err.retryAfterMs);

async function retrying(kind, retryAfter = false) {
  const c = contender(kind, 4);
  const size = jobSizes(11);
  const end = performance.now() + SECONDS * 1000;
  const logins = [];
  let retries = 0;
  let admitted = 0;
  let attemptsMax = 0;
  const client = async (id) => {
    while (performance.now() < end) {
      const start = performance.now();
      const it = size();
      for (let attempt = 1; ; attempt++) {
        try {
          await c.submit(it, `client-${id}`);
          if (attempt > 1) admitted++;
          logins.push(performance.now() - start);
          attemptsMax = Math.max(attemptsMax, attempt);
          break;
        } catch (err) {
          if (!isSaturated(err)) throw err;
          if (attempt > 1 && err.reason !== 'queue_full') admitted++; // got in, then lost its place
          await sleep(sleepFor(err, retryAfter));
          retries++;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: 12 }, (_, i) => client(i)));
  await c.close();
  return {
    kind,
    retryAfter,
    logins: logins.length,
    perS: logins.length / SECONDS,
    retries,
    admittedShare: retries === 0 ? NaN : admitted / retries,
    p50: percentile(logins, 50),
    p99: percentile(logins, 99),
    attemptsMax,
  };
}

// ---- flooder(s) and legitimate users ----

// floodKeys 1: one client with 40 calls in flight, back 1 ms after a
// refusal; floodKeys > 1: that many clients with one call in flight each,
// back 20 ms after a refusal; 0: no flood (the idle baseline).
async function flooded(kind, floodKeys) {
  const c = contender(kind, 16);
  const size = jobSizes(23);
  const floodSize = jobSizes(29);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  let stop = false;
  let floodServed = 0;
  const flooder = async (key, backMs) => {
    while (!stop) {
      try {
        await c.submit(floodSize(), key);
        floodServed++;
      } catch (err) {
        if (!isSaturated(err)) throw err;
        // Never at the hint. One flooder retries at once, in a flooder's
        // terms: on the next timer tick (1 ms). (Retrying on setImmediate
        // would keep this process's one JS thread busy refusing, which a
        // flood over the network does not do to a server: it pays a
        // request's parsing per refusal.)
        await sleep(backMs);
      }
    }
  };
  const floods = floodKeys === 0 ? []
    : floodKeys === 1 ? Array.from({ length: 40 }, () => flooder('flood', 1))
      : Array.from({ length: floodKeys }, (_, i) => flooder(`flood-${i}`, 20));

  const users = [];
  const user = async (id) => {
    const arrived = performance.now();
    const it = size();
    for (;;) {
      try {
        await c.submit(it, `user-${id}`);
        users.push({ ok: true, ms: performance.now() - arrived });
        return;
      } catch (err) {
        if (!isSaturated(err)) throw err;
        const wait = err.retryAfterMs;
        if (performance.now() + wait - arrived > GIVE_UP_MS) {
          users.push({ ok: false, ms: performance.now() - arrived });
          return;
        }
        await sleep(wait);
      }
    }
  };
  // Poisson arrivals at 40 % of capacity, from a fixed seed.
  let s = 12345;
  const uniform = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
  const rate = 0.4 * CAPACITY_PER_S;
  const arrivals = [];
  let next = start + 200; // let the flood fill the queue first
  let id = 0;
  while (performance.now() < end) {
    const now = performance.now();
    while (next <= now) {
      arrivals.push(user(id++));
      next += (-Math.log(uniform()) / rate) * 1000;
    }
    await sleep(Math.max(1, Math.min(20, next - now)));
  }
  await Promise.all(arrivals);
  stop = true;
  await Promise.all(floods);
  await c.close();
  const ok = users.filter((u) => u.ok).map((u) => u.ms);
  return {
    kind,
    users: users.length,
    success: users.length === 0 ? NaN : ok.length / users.length,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    floodPerS: floodServed / SECONDS,
  };
}

async function main() {
  log(`overload: ${ITER_PER_MS.toFixed(0)} PBKDF2-SHA256 iterations/ms; jobs 2-8 ms; ${SECONDS} s per row`);
  const results = {
    iterationsPerMs: ITER_PER_MS, seconds: SECONDS, cold: [], retrying: [], retryAfter: [], flooder: [], flooders100: [], flooders1000: [],
  };
  for (const kind of ['fifo', 'fair']) {
    log(`cold: ${kind}`);
    results.cold.push(await cold(kind));
  }
  for (const kind of ['crypto', 'fifo', 'fair']) {
    log(`retrying: ${kind}`);
    results.retrying.push(await retrying(kind));
  }
  for (const kind of ['fifo', 'fair']) {
    log(`retrying at Retry-After: ${kind}`);
    results.retryAfter.push(await retrying(kind, true));
  }
  log('flooder: idle pool');
  results.idle = await flooded('fair', 0);
  for (const kind of ['crypto', 'fifo', 'fair']) {
    log(`flooder: ${kind}`);
    results.flooder.push(await flooded(kind, 1));
  }
  for (const keys of [100, 1000]) {
    for (const kind of ['crypto', 'fifo', 'fair']) {
      log(`flooders (${keys} keys): ${kind}`);
      results[`flooders${keys}`].push(await flooded(kind, keys));
    }
  }
  if (JSON_OUT) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const report = render(results);
  process.stdout.write(`${report}\n`);
  fs.writeFileSync(path.join(__dirname, 'overload-results.md'), `${report}\n`);
  await drawChart(results);
}

const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '-');

function render(r) {
  const idleP99 = r.idle.p99;
  const floodRows = (rows) => rows.map((x) => [
    x.kind, String(x.users), pct(x.success), fmtMs(x.p50), fmtMs(x.p99), fmtRatio(x.p99 / idleP99), x.floodPerS.toFixed(0),
  ]);
  const floodHeaders = ['contender', 'users', 'logged in', 'p50 ms', 'p99 ms', 'p99 / idle p99', 'flood jobs/s'];
  return [
    '# Overload benchmark (`npm run bench:overload`)',
    '',
    `One pool of ${THREADS} threads (libuv's pool sized alike for crypto.pbkdf2), PBKDF2-SHA256 logins of`,
    `2-8 ms (${r.iterationsPerMs.toFixed(0)} iterations/ms here), ${r.seconds} s per row. See the header of bench/overload.js.`,
    '',
    '## Cold pool: the first refusal\'s hint against the real drain time (goal 0.5x-2x)',
    '',
    table(['contender', 'accepted', 'retryAfterMs', 'drain ms', 'hint / drain'],
      r.cold.map((x) => [x.kind, String(x.accepted), String(x.hintMs), fmtMs(x.drainMs), fmtRatio(x.ratio)])),
    '',
    '## Retrying clients: 12 closed loops, maxQueue 4, each sleeps when refused',
    '',
    'Sleeping `retryAfterMs`, or (Retry-After) what an HTTP client honouring the header sleeps: its whole seconds, plus 20 ms.',
    '',
    table(['contender', 'sleeps', 'logins/s', 'retries', 'admitted at the hint', 'p50 ms', 'p99 ms', 'most attempts'],
      [...r.retrying, ...r.retryAfter].map((x) => [x.kind, x.retryAfter ? 'Retry-After' : 'retryAfterMs',
        x.perS.toFixed(0), String(x.retries), pct(x.admittedShare), fmtMs(x.p50), fmtMs(x.p99), String(x.attemptsMax)])),
    '',
    '(goal with fairKey: at least 80 % of the retries made at the hint are admitted, either way)',
    '',
    `## One flooder (40 calls in flight, one key) and users at 40 % of capacity, maxQueue 16`,
    '',
    `Idle pool, the same users alone: ${r.idle.users} users, ${pct(r.idle.success)} logged in, p50 ${fmtMs(r.idle.p50)} ms, p99 ${fmtMs(idleP99)} ms.`,
    '',
    table(floodHeaders, floodRows(r.flooder)),
    '',
    '(goal with fairKey: at least 99 % of the users log in, p99 at most 3x the idle pool\'s)',
    '',
    '## Many flooders: 100 and 1,000 keys, each one call in flight, back 20 ms after a refusal',
    '',
    '100 keys:',
    '',
    table(floodHeaders, floodRows(r.flooders100)),
    '',
    '1,000 keys:',
    '',
    table(floodHeaders, floodRows(r.flooders1000)),
    '',
    '(goal with fairKey: at least 95 % of the users log in, p99 at most 5x the idle pool\'s)',
  ].join('\n');
}

async function drawChart(r) {
  const { writeSvg, barPanels } = require('./lib/chart');
  const rows = [
    ...r.retrying.map((x) => ({ label: `retrying: ${x.kind}`, admitted: 100 * x.admittedShare, p99: x.p99 })),
    ...r.retryAfter.map((x) => ({ label: `Retry-After: ${x.kind}`, admitted: 100 * x.admittedShare, p99: x.p99 })),
    { label: 'flooder: idle pool', success: 100 * r.idle.success, p99: r.idle.p99 },
    ...r.flooder.map((x) => ({ label: `flooder: ${x.kind}`, success: 100 * x.success, p99: x.p99 })),
    ...r.flooders100.map((x) => ({ label: `100 flooding keys: ${x.kind}`, success: 100 * x.success, p99: x.p99 })),
    ...r.flooders1000.map((x) => ({ label: `1,000 flooding keys: ${x.kind}`, success: 100 * x.success, p99: x.p99 })),
  ];
  const spec = barPanels(rows, [
    { field: 'admitted', title: 'retries at the hint admitted (%)', better: 'higher', goal: 80, goalFor: (x) => x.label.endsWith('fair') },
    { field: 'success', title: 'users logged in within 2 s (%)', better: 'higher', goal: 99, goalFor: (x) => x.label === 'flooder: fair' },
    { field: 'p99', title: 'login p99 (ms, log scale)', better: 'lower', log: true },
  ], { title: 'kdfpool under overload', subtitle: `${THREADS} threads, PBKDF2 logins of 2-8 ms` });
  await writeSvg(path.join(__dirname, 'overload.svg'), spec);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
