#!/usr/bin/env node
'use strict';

// Overload, as the clients of a login service see it: what a refusal tells
// them and whether acting on it works. One pool of 2 threads, PBKDF2-SHA256
// logins of 2-8 ms (iterations calibrated on this machine first), each
// scenario run side by side for
//
//   crypto     crypto.pbkdf2 on libuv's pool (2 threads here): never
//              refuses, so every login waits as long as it takes
//   fifo       kdfpool without fairKey: one shared key, a FIFO queue
//   fair       kdfpool with a fairKey per client
//
// Counted as clients count: a call is admitted only when it completes. A
// call refused at submit is `refused`; a call accepted and later
// `displaced` (a client served before it took its place) or `shed` (its
// deadline passed in the queue) is a refusal after a wait, each in its own
// column. The pools have maxWaitMs 2000 (as long as the users below wait);
// a 'deadline' refusal that comes 10 ms or more after its submit counts as
// shed, one that comes at once as refused.
//
// Scenarios:
//   capacity   what kdfpool really serves: 32 calls in flight, each from a
//              new fairKey, completions per second. The one-shot and Zipf
//              rows offer 90 % of this measured figure (a nominal rate
//              below the real capacity makes no refusal and proves nothing)
//   cold       a fresh pool (no job has finished yet): jobs are submitted
//              until the first refusal; its retryAfterMs against the time
//              the accepted jobs really take to drain
//   retrying   12 equal closed-loop clients, maxQueue 4: a refused client
//              sleeps and tries the same login again. Three ways of
//              sleeping: `retryAfterMs`; and what an HTTP client honouring
//              Retry-After sleeps (the header's whole seconds) plus 20 ms
//              or 100 ms. Retries completed / retries made (the share
//              admitted and completed), and churn: displacements per
//              completed job among these equal clients
//   flooder    one client keeps 40 calls in flight and retries 1 ms after
//              a refusal (never at the hint); legitimate users (a key
//              each) arrive at 40 % of the nominal capacity, retry at the
//              hint and give up after 2 s. maxQueue 16. Their success rate
//              and login time, against the same users on an idle pool
//   flooders   a flood from 100 and from 1,000 keys: each keeps one call in
//              flight and comes back 20 ms after a refusal; the same users
//   one-shot   Poisson arrivals at 85 % of the measured capacity, each a
//              call from a new fairKey (per-IP keys of distinct users: one
//              call, no retry), plus 4 returning clients adding ~5 %: each
//              logs in (retrying at the hint, giving up past 2 s), is
//              served, thinks (exponential, mean 4 / (5 % of capacity)) and
//              comes back. maxQueue 16. For the returning clients: attempts
//              to success, and each refusal's hint against the real drain
//   zipf       Poisson arrivals at 90 % of the measured capacity, each a
//              login from one of 10,000 clients drawn from Zipf(s = 1),
//              keyed by client (per-IP keys: the heaviest sends ~10 % of
//              the calls), retrying at the hint, giving up past 2 s.
//              maxQueue 16. Admitted share, login p99, hint against drain
//
// The real drain of a refusal: the time from the refusal until every call
// accepted before it (submitted earlier and not refused at submit) has
// settled: completed, displaced or shed. An upper bound on when the refused
// call would have started had it been queued in FIFO order, and the wait a
// client served no later than the calls already queued faces. hint ÷ drain
// > 2 is a hint too long; the retry's own wait cannot show that (a client
// waits the hint whatever it is). For a heavy key (Zipf's first clients)
// the drain is no bound: lighter keys arriving after it are served first.
//
//   node bench/overload.js                 about 4 min (5 s rows, 8 s at
//                                          Retry-After); writes
//                                          bench/overload-results.md and
//                                          bench/overload.svg
//   node bench/overload.js --quick         about 45 s (1.5 s rows, 3 s at
//                                          Retry-After, no crypto rows
//                                          where it cannot keep up)
//   --seconds <s>   seconds per row        --json   the results as JSON
//   --digest sha512 (8 AVX-512 lanes where the CPU has them)
//   --rows <list>   some of cold,retrying,flooders,oneshot,zipf
//   --out <file.md> writes the report there and the chart beside it
//
// Only the full run with the defaults (none of --quick, --seconds,
// --digest, --rows) writes the committed files.

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
const native = require('../lib/native');

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const QUICK = args.includes('--quick');
const JSON_OUT = args.includes('--json');
const SECONDS_ARG = option('--seconds');
const SECONDS = SECONDS_ARG !== undefined ? Number(SECONDS_ARG) : QUICK ? 1.5 : 5;
// Retry-After rows sleep whole seconds: they need longer to make retries.
const RA_SECONDS = SECONDS_ARG !== undefined ? Math.max(3, SECONDS) : QUICK ? 3 : 8;
const DIGEST = option('--digest') || 'sha256';
const OUT = option('--out');
const ROW_NAMES = ['cold', 'retrying', 'flooders', 'oneshot', 'zipf'];
const ROWS = option('--rows') !== undefined ? option('--rows').split(',') : ROW_NAMES;
const WRITE_DEFAULT = !QUICK && SECONDS_ARG === undefined && option('--digest') === undefined
  && option('--rows') === undefined;
if (!(SECONDS > 0)) throw new RangeError('--seconds must be a positive number');
if (ROWS.some((x) => !ROW_NAMES.includes(x))) throw new RangeError(`--rows takes some of ${ROW_NAMES.join(',')}`);
// crypto.pbkdf2 cannot drop a call: where calls arrive faster than it
// serves, its rows last until its backlog drains. --quick leaves those
// reference rows out.
const CRYPTO_OPEN = QUICK ? [] : ['crypto'];

const THREADS = 2;
const GIVE_UP_MS = 2000;
const MAX_WAIT_MS = GIVE_UP_MS;
const SHED_AFTER_MS = 10;
const CLIENTS = 12;

const log = (...a) => process.stderr.write(`${a.join(' ')}\n`);

// The CPU variant that runs SHA now, and how many chains of the digest it
// interleaves (the most jobs a thread batches); from src/kdf/sha/sha.c.
const VARIANT = native.variant('sha') || 'unknown';
const LANES = {
  sha256: { shani: 4, 'shani-avx512': 4 },
  sha512: { avx2: 4, shani: 4, avx512: 8, 'shani-avx512': 8 },
  sha1: { shani: 2, 'shani-avx512': 2 },
};
const LANES_NOW = (LANES[DIGEST] && LANES[DIGEST][VARIANT]) || 1;

// Iterations per ms of one PBKDF2 chain on this machine, measured with the
// same library that runs the jobs (a lone job, no batch).
function calibrate() {
  const n = 20000;
  kdf.pbkdf2Sync('warm', 'salt', n, 32, DIGEST);
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    kdf.pbkdf2Sync('pw', 'salt', n, 32, DIGEST);
    best = Math.min(best, performance.now() - t);
  }
  return n / best;
}
const ITER_PER_MS = calibrate();

// A deterministic stream of uniform numbers in (0, 1).
function uniforms(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
}

// A deterministic stream of job sizes (2-8 ms), the same for every row.
function jobSizes(seed) {
  const u = uniforms(seed);
  return () => Math.round(ITER_PER_MS * (2 + 6 * u()));
}
const MEAN_JOB_MS = 5;
const NOMINAL_PER_S = (THREADS * 1000) / MEAN_JOB_MS;

const pbkdf2Promise = (iterations) =>
  new Promise((resolve, reject) => {
    crypto.pbkdf2('password', 'salt', iterations, 32, DIGEST, (err, key) => (err ? reject(err) : resolve(key)));
  });

// A contender: submit(iterations, clientKey) -> Promise<Buffer>, and close().
function contender(kind, maxQueue) {
  if (kind === 'crypto') return { kind, submit: (it) => pbkdf2Promise(it), close: async () => {} };
  const pool = kdf.createPool({ threads: THREADS, maxQueue, maxWaitMs: MAX_WAIT_MS, priority: 'normal' });
  const withKey = kind === 'fair';
  return {
    kind,
    submit: (it, key) => pool.pbkdf2('password', 'salt', it, 32, DIGEST, withKey ? { fairKey: key } : undefined),
    close: () => pool.close(),
  };
}

const isSaturated = (err) => err instanceof kdf.PoolSaturatedError;

// ---- counting calls as clients count them ----

const tally = () => ({ attempts: 0, completed: 0, refused: 0, displaced: 0, shed: 0 });

/**
 * One call, counted in `t` as its client sees it. Accepted calls (completed,
 * displaced, shed) go into `accepted` as [submit, settle] pairs when given.
 * Resolves { ok, t0, t1, err, outcome }; errors other than refusals throw.
 */
async function call(c, iterations, key, t, accepted) {
  const t0 = performance.now();
  t.attempts++;
  try {
    await c.submit(iterations, key);
    const t1 = performance.now();
    t.completed++;
    if (accepted) accepted.push([t0, t1]);
    return { ok: true, t0, t1, outcome: 'completed' };
  } catch (err) {
    if (!isSaturated(err)) throw err;
    const t1 = performance.now();
    let outcome = 'refused';
    if (err.reason === 'displaced') outcome = 'displaced';
    else if (err.reason === 'deadline' && t1 - t0 >= SHED_AFTER_MS) outcome = 'shed';
    t[outcome]++;
    if (accepted && outcome !== 'refused') accepted.push([t0, t1]);
    return { ok: false, t0, t1, err, outcome };
  }
}

/**
 * hint ÷ real drain for each refusal { t, hint }: the drain is the time from
 * t until every accepted call submitted before t has settled.
 */
function drainRatios(accepted, refusals) {
  const calls = [...accepted].sort((a, b) => a[0] - b[0]);
  const maxSettle = [];
  let m = -Infinity;
  for (const [, t1] of calls) maxSettle.push((m = Math.max(m, t1)));
  return refusals.map(({ t, hint }) => {
    let lo = 0;
    let hi = calls.length; // first call submitted at or after t
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (calls[mid][0] < t) lo = mid + 1;
      else hi = mid;
    }
    const drain = lo === 0 ? 0 : Math.max(0, maxSettle[lo - 1] - t);
    return { hint, drain, ratio: drain > 0 ? hint / drain : Infinity };
  });
}

function ratioSummary(rs) {
  const ratios = rs.map((r) => r.ratio);
  return {
    refusals: rs.length,
    ratioP50: percentile(ratios, 50),
    ratioP99: percentile(ratios, 99),
    ratioMax: ratios.length ? Math.max(...ratios) : NaN,
    hintMaxMs: rs.length ? Math.max(...rs.map((r) => r.hint)) : NaN,
  };
}

// Poisson arrivals at `perS` from `from` to `end`: spawn() for each; the
// promises it returned.
async function poisson(perS, from, end, seed, spawn) {
  const u = uniforms(seed);
  const started = [];
  let next = from;
  while (performance.now() < end) {
    const now = performance.now();
    while (next <= now) {
      started.push(spawn());
      next += (-Math.log(u()) / perS) * 1000;
    }
    await sleep(Math.max(1, Math.min(20, next - now)));
  }
  return started;
}

// ---- capacity: what kdfpool really serves, one-shot keys ----

async function capacity() {
  const c = contender('fair', 64);
  const size = jobSizes(37);
  let n = 0;
  let done = 0;
  let stop = false;
  const worker = async () => {
    while (!stop) {
      try {
        await c.submit(size(), `cap-${n++}`);
        done++;
      } catch (err) {
        if (!isSaturated(err)) throw err;
      }
    }
  };
  const workers = Array.from({ length: 32 }, worker);
  await sleep(300);
  const from = done;
  const t = performance.now();
  await sleep(QUICK ? 1000 : 2000);
  const perS = ((done - from) * 1000) / (performance.now() - t);
  stop = true;
  await Promise.all(workers);
  await c.close();
  return perS;
}

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

// ---- retrying: 12 equal closed-loop clients that sleep when refused ----

// The whole seconds an HTTP client honouring Retry-After sleeps.
const retryAfterSeconds = (err) => Number(err.headers && err.headers['retry-after'] !== undefined
  ? err.headers['retry-after'] : err.retryAfterSeconds);

// How a refused client sleeps: mode 'ms' (retryAfterMs), or Retry-After's
// seconds plus a round trip of `extra` ms.
const SLEEPS = {
  ms: { label: 'retryAfterMs', extra: null },
  ra20: { label: 'Retry-After + 20 ms', extra: 20 },
  ra100: { label: 'Retry-After + 100 ms', extra: 100 },
};
const sleepFor = (err, mode) => (SLEEPS[mode].extra === null ? err.retryAfterMs
  : retryAfterSeconds(err) * 1000 + SLEEPS[mode].extra);

async function retrying(kind, mode) {
  const c = contender(kind, 4);
  const size = jobSizes(11);
  const seconds = mode === 'ms' ? SECONDS : RA_SECONDS;
  const end = performance.now() + seconds * 1000;
  const t = tally();
  const logins = [];
  let retries = 0;
  let retriesCompleted = 0;
  let attemptsMax = 0;
  let abandoned = 0;
  const client = async (id) => {
    while (performance.now() < end) {
      const start = performance.now();
      const it = size();
      for (let attempt = 1; ; attempt++) {
        if (attempt > 1) retries++;
        const r = await call(c, it, `client-${id}`, t);
        if (r.ok) {
          if (attempt > 1) retriesCompleted++;
          logins.push(r.t1 - start);
          attemptsMax = Math.max(attemptsMax, attempt);
          break;
        }
        const wait = sleepFor(r.err, mode);
        // A hint that would keep the client long past the row: it gives up.
        if (r.t1 + wait > end + 5000) {
          abandoned++;
          break;
        }
        await sleep(wait);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
  await c.close();
  return {
    kind,
    mode,
    seconds,
    logins: logins.length,
    perS: logins.length / seconds,
    ...t,
    retries,
    retriesCompleted,
    retryShare: retries === 0 ? NaN : retriesCompleted / retries,
    churn: t.completed === 0 ? NaN : t.displaced / t.completed,
    p50: percentile(logins, 50),
    p99: percentile(logins, 99),
    attemptsMax,
    abandoned,
  };
}

// ---- flooder(s) and legitimate users ----

// A legitimate user: one login, retried at the hint, given up when the next
// try would come more than 2 s after it arrived.
async function login(c, it, key, t, accepted, refusals) {
  const arrived = performance.now();
  for (let attempts = 1; ; attempts++) {
    const r = await call(c, it, key, t, accepted);
    if (r.ok) return { ok: true, ms: r.t1 - arrived, attempts };
    const hint = r.err.retryAfterMs;
    if (refusals) refusals.push({ t: r.t1, hint });
    if (r.t1 + hint - arrived > GIVE_UP_MS) return { ok: false, ms: r.t1 - arrived, attempts };
    await sleep(hint);
  }
}

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
  const flood = tally();
  const flooder = async (key, backMs) => {
    while (!stop) {
      const r = await call(c, floodSize(), key, flood);
      // Never at the hint. One flooder retries at once, in a flooder's
      // terms: on the next timer tick (1 ms). (Retrying on setImmediate
      // would keep this process's one JS thread busy refusing, which a
      // flood over the network does not do to a server: it pays a
      // request's parsing per refusal.)
      if (!r.ok) await sleep(backMs);
    }
  };
  const floods = floodKeys === 0 ? []
    : floodKeys === 1 ? Array.from({ length: 40 }, () => flooder('flood', 1))
      : Array.from({ length: floodKeys }, (_, i) => flooder(`flood-${i}`, 20));

  const t = tally();
  let id = 0;
  // Users at 40 % of the nominal capacity, from 200 ms (the flood fills the
  // queue first).
  const started = await poisson(0.4 * NOMINAL_PER_S, start + 200, end, 12345,
    () => login(c, size(), `user-${id++}`, t));
  const users = await Promise.all(started);
  stop = true;
  await Promise.all(floods);
  await c.close();
  const ok = users.filter((u) => u.ok).map((u) => u.ms);
  return {
    kind,
    floodKeys,
    users: users.length,
    success: users.length === 0 ? NaN : ok.length / users.length,
    ...t,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    floodPerS: flood.completed / SECONDS,
  };
}

// ---- one-shot keys with returning clients ----

const RETURNING = 4;

async function oneShot(kind, capacityPerS) {
  const c = contender(kind, 16);
  const size = jobSizes(31);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  const accepted = [];
  const fresh = tally();
  const back = tally();
  const freshMs = [];
  const refusals = [];
  const logins = [];
  let n = 0;
  const freshCall = async () => {
    const r = await call(c, size(), `fresh-${n++}`, fresh, accepted);
    if (r.ok) freshMs.push(r.t1 - r.t0);
  };
  const thinkMs = (RETURNING * 1000) / (0.05 * capacityPerS);
  const returning = async (i) => {
    const u = uniforms(1000 + i);
    await sleep(200 + thinkMs * u());
    while (performance.now() < end) {
      logins.push(await login(c, size(), `returning-${i}`, back, accepted, refusals));
      await sleep(-Math.log(u()) * thinkMs);
    }
  };
  const clients = Array.from({ length: RETURNING }, (_, i) => returning(i));
  const started = await poisson(0.85 * capacityPerS, start, end, 4242, freshCall);
  await Promise.all([...started, ...clients]);
  await c.close();
  const ok = logins.filter((l) => l.ok);
  const within3 = ok.filter((l) => l.attempts <= 3).length;
  return {
    kind,
    fresh: { ...fresh, admitted: fresh.completed / fresh.attempts, p99: percentile(freshMs, 99) },
    returning: {
      ...back,
      logins: logins.length,
      within3: logins.length === 0 ? NaN : within3 / logins.length,
      attemptsMax: logins.length ? Math.max(...logins.map((l) => l.attempts)) : NaN,
      gaveUp: logins.length - ok.length,
      p99: percentile(ok.map((l) => l.ms), 99),
      ...ratioSummary(drainRatios(accepted, refusals)),
    },
    thinkMs,
  };
}

// ---- Zipf per-IP keys over 10,000 clients ----

const ZIPF_CLIENTS = 10000;

function zipf(seed, clients = ZIPF_CLIENTS, s = 1) {
  const cdf = new Float64Array(clients);
  let sum = 0;
  for (let k = 1; k <= clients; k++) cdf[k - 1] = (sum += 1 / k ** s);
  for (let k = 0; k < clients; k++) cdf[k] /= sum;
  const u = uniforms(seed);
  return () => {
    const x = u();
    let lo = 0;
    let hi = clients - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

async function zipfRow(kind, capacityPerS) {
  const c = contender(kind, 16);
  const size = jobSizes(41);
  const client = zipf(4343);
  const start = performance.now();
  const end = start + SECONDS * 1000;
  const accepted = [];
  const refusals = [];
  const t = tally();
  const started = await poisson(0.9 * capacityPerS, start, end, 4444,
    () => login(c, size(), `ip-${client()}`, t, accepted, refusals));
  const logins = await Promise.all(started);
  await c.close();
  const ok = logins.filter((l) => l.ok).map((l) => l.ms);
  return {
    kind,
    logins: logins.length,
    success: logins.length === 0 ? NaN : ok.length / logins.length,
    ...t,
    admitted: t.completed / t.attempts,
    p50: percentile(ok, 50),
    p99: percentile(ok, 99),
    ...ratioSummary(drainRatios(accepted, refusals)),
  };
}

// ---- goals ----

// Each: what, contender, measured value (shown), and a verdict: 'PASS',
// 'FAIL', or 'n/a' when the row gave nothing to judge (no refusal, say).
function goals(r) {
  const out = [];
  const fair = (rows) => rows.find((x) => x.kind === 'fair');
  const add = (what, contender, value, pass, fmt) => out.push({
    what, contender, value, shown: fmt(value), verdict: Number.isFinite(value) ? (pass(value) ? 'PASS' : 'FAIL') : 'n/a',
  });
  for (const x of r.cold) {
    add('cold pool: first hint / drain within 0.5x-2x', x.kind, x.ratio, (v) => v >= 0.5 && v <= 2, fmtRatio);
  }
  const minShare = { ms: 0.8, ra20: 0.9, ra100: 0.9 };
  for (const mode of Object.keys(SLEEPS)) {
    const x = fair(r.retrying.filter((y) => y.mode === mode));
    if (x === undefined) continue;
    add(`retries at ${SLEEPS[mode].label} completed >= ${100 * minShare[mode]} %`, 'fair', x.retryShare,
      (v) => v >= minShare[mode], pct);
    add(`churn at ${SLEEPS[mode].label}: displaced per completed job <= 5 %`, 'fair', x.churn, (v) => v <= 0.05, pct);
  }
  const flood = (rows, label, share, times) => {
    const x = fair(rows);
    if (x === undefined) return;
    add(`${label}: users logged in >= ${100 * share} %`, 'fair', x.success, (v) => v >= share, pct);
    add(`${label}: users' p99 <= ${times}x idle p99`, 'fair', x.p99 / r.idle.p99, (v) => v <= times, fmtRatio);
  };
  flood(r.flooder, 'one flooder', 0.99, 3);
  flood(r.flooders100, '100 flooding keys', 0.95, 5);
  flood(r.flooders1000, '1,000 flooding keys', 0.95, 5);
  const os = fair(r.oneShot);
  if (os !== undefined) {
    add('one-shot keys: returning clients\' hint / drain p99 <= 2x', 'fair', os.returning.ratioP99, (v) => v <= 2, fmtRatio);
    add('one-shot keys: returning clients\' logins in <= 3 attempts >= 99 %', 'fair', os.returning.within3,
      (v) => v >= 0.99, pct);
  }
  return out;
}

// ---- main ----

async function row(label, run) {
  const t = performance.now();
  log(`${label} ...`);
  const result = await run();
  log(`${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return result;
}

async function main() {
  const began = performance.now();
  log(`overload: SHA variant ${VARIANT} (PBKDF2-${DIGEST.toUpperCase()}: up to ${LANES_NOW} lane(s) per batch); `
    + `${ITER_PER_MS.toFixed(0)} iterations/ms; jobs 2-8 ms; ${SECONDS} s per row, ${RA_SECONDS} s at Retry-After`);
  const r = {
    variant: VARIANT, digest: DIGEST, lanes: LANES_NOW, iterationsPerMs: ITER_PER_MS, seconds: SECONDS, retryAfterSeconds: RA_SECONDS,
    cold: [], retrying: [], idle: null, flooder: [], flooders100: [], flooders1000: [], capacityPerS: null, oneShot: [], zipf: [],
  };
  if (ROWS.includes('cold')) {
    for (const kind of ['fifo', 'fair']) r.cold.push(await row(`cold: ${kind}`, () => cold(kind)));
  }
  if (ROWS.includes('retrying')) {
    for (const mode of Object.keys(SLEEPS)) {
      // crypto.pbkdf2 never refuses: one row, as a reference.
      for (const kind of mode === 'ms' ? ['crypto', 'fifo', 'fair'] : ['fifo', 'fair']) {
        r.retrying.push(await row(`retrying at ${SLEEPS[mode].label}: ${kind}`, () => retrying(kind, mode)));
      }
    }
  }
  if (ROWS.includes('flooders')) {
    r.idle = await row('users on an idle pool', () => flooded('fair', 0));
    for (const [field, keys] of [['flooder', 1], ['flooders100', 100], ['flooders1000', 1000]]) {
      for (const kind of [...CRYPTO_OPEN, 'fifo', 'fair']) {
        r[field].push(await row(`flooding keys ${keys}: ${kind}`, () => flooded(kind, keys)));
      }
    }
  }
  if (ROWS.includes('oneshot') || ROWS.includes('zipf')) {
    r.capacityPerS = await row('capacity (kdfpool, 32 calls in flight, one-shot keys)', capacity);
    log(`capacity: ${r.capacityPerS.toFixed(0)} jobs/s`);
  }
  if (ROWS.includes('oneshot')) {
    for (const kind of [...CRYPTO_OPEN, 'fifo', 'fair']) {
      r.oneShot.push(await row(`one-shot keys with returning clients: ${kind}`, () => oneShot(kind, r.capacityPerS)));
    }
  }
  if (ROWS.includes('zipf')) {
    for (const kind of [...CRYPTO_OPEN, 'fifo', 'fair']) {
      r.zipf.push(await row(`Zipf per-IP keys: ${kind}`, () => zipfRow(kind, r.capacityPerS)));
    }
  }
  r.goals = goals(r);
  log(`overload: ${((performance.now() - began) / 1000).toFixed(0)} s`);
  for (const g of r.goals) log(`${g.verdict.padEnd(4)}  ${g.what} (${g.contender}): ${g.shown}`);
  const report = render(r);
  if (JSON_OUT) process.stdout.write(`${JSON.stringify(r, (k, v) => (v === Infinity ? 'Infinity' : v), 2)}\n`);
  else process.stdout.write(`${report}\n`);
  const md = OUT ? path.resolve(OUT) : WRITE_DEFAULT ? path.join(__dirname, 'overload-results.md') : null;
  if (md) {
    fs.writeFileSync(md, `${report}\n`);
    // The default run's chart is bench/overload.svg (docs link it); --out
    // names its own beside its report.
    await drawChart(r, OUT ? `${md.replace(/\.md$/, '')}.svg` : path.join(__dirname, 'overload.svg'));
    log(`wrote ${md}`);
  }
}

const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '-');
const count = (t) => [String(t.attempts), String(t.refused), String(t.displaced), String(t.shed)];

function render(r) {
  const D = r.digest.toUpperCase();
  const out = [
    '# Overload benchmark (`npm run bench:overload`)',
    '',
    `One pool of ${THREADS} threads (libuv's pool sized alike for crypto.pbkdf2), PBKDF2-${D} logins of 2-8 ms`,
    `(${r.iterationsPerMs.toFixed(0)} iterations/ms here), ${r.seconds} s per row (${r.retryAfterSeconds} s at Retry-After).`,
    `SHA variant: ${r.variant}, up to ${r.lanes} PBKDF2-${D} lane(s) per batch. See the header of bench/overload.js.`,
    '',
    'A call is admitted when it completes. `refused`: at submit; `displaced`, `shed`: accepted, then',
    'refused after a wait (a client served before it took its place; its deadline passed in the queue).',
    '',
    '## Goals',
    '',
    table(['goal', 'contender', 'measured', 'verdict'], r.goals.map((g) => [g.what, g.contender, g.shown, g.verdict])),
  ];
  const section = (lines) => out.push('', ...lines);
  if (r.cold.length) {
    section([
      '## Cold pool: the first refusal\'s hint against the real drain time (goal 0.5x-2x)',
      '',
      table(['contender', 'accepted', 'retryAfterMs', 'drain ms', 'hint / drain'],
        r.cold.map((x) => [x.kind, String(x.accepted), String(x.hintMs), fmtMs(x.drainMs), fmtRatio(x.ratio)])),
    ]);
  }
  if (r.retrying.length) {
    section([
      `## Retrying clients: ${CLIENTS} equal closed loops, maxQueue 4, each sleeps when refused`,
      '',
      'Sleeping `retryAfterMs`, or what an HTTP client honouring Retry-After sleeps: its whole seconds, plus 20 or',
      '100 ms. `retries completed`: retries whose call completed / retries made. `churn`: displaced / completed.',
      '',
      table(['contender', 'sleeps', 'logins/s', 'attempts', 'refused', 'displaced', 'shed', 'retries', 'retries completed',
        'churn', 'p50 ms', 'p99 ms', 'most attempts'],
      r.retrying.map((x) => [x.kind, SLEEPS[x.mode].label, x.perS.toFixed(0), ...count(x), String(x.retries),
        pct(x.retryShare), pct(x.churn), fmtMs(x.p50), fmtMs(x.p99), String(x.attemptsMax)])),
      '',
      '(goals with fairKey: retries completed >= 80 % at retryAfterMs, >= 90 % at Retry-After; churn <= 5 %)',
    ]);
  }
  if (r.idle) {
    const idleP99 = r.idle.p99;
    const floodTable = (rows) => table(['contender', 'users', 'logged in', 'attempts', 'refused', 'displaced', 'shed',
      'p50 ms', 'p99 ms', 'p99 / idle p99', 'flood jobs/s'],
    rows.map((x) => [x.kind, String(x.users), pct(x.success), ...count(x), fmtMs(x.p50), fmtMs(x.p99),
      fmtRatio(x.p99 / idleP99), x.floodPerS.toFixed(0)]));
    section([
      '## One flooder (40 calls in flight, one key) and users at 40 % of nominal capacity, maxQueue 16',
      '',
      `Idle pool, the same users alone: ${r.idle.users} users, ${pct(r.idle.success)} logged in, `
        + `p50 ${fmtMs(r.idle.p50)} ms, p99 ${fmtMs(idleP99)} ms.`,
      '',
      floodTable(r.flooder),
      '',
      '(goal with fairKey: at least 99 % of the users log in, p99 at most 3x the idle pool\'s)',
      '',
      '## Many flooders: 100 and 1,000 keys, each one call in flight, back 20 ms after a refusal',
      '',
      '100 keys:',
      '',
      floodTable(r.flooders100),
      '',
      '1,000 keys:',
      '',
      floodTable(r.flooders1000),
      '',
      '(goal with fairKey: at least 95 % of the users log in, p99 at most 5x the idle pool\'s)',
    ]);
  }
  if (r.capacityPerS !== null) {
    section([`kdfpool's measured capacity before the next rows: ${r.capacityPerS.toFixed(0)} jobs/s (32 calls in flight, `
      + 'one-shot keys).']);
  }
  if (r.oneShot.length) {
    section([
      `## One-shot keys with ${RETURNING} returning clients, at 90 % of the measured capacity, maxQueue 16`,
      '',
      `Calls from new keys at 85 % (one call each, no retry); ${RETURNING} clients log in (retrying at the hint, giving up`,
      `past 2 s), think ${fmtMs(r.oneShot[0].thinkMs)} ms on average and come back (~5 %). drain: from a refusal until`,
      'every call accepted before it has settled.',
      '',
      table(['contender', 'new-key calls', 'admitted', 'p99 ms', 'returning logins', 'in <= 3 attempts',
        'most attempts', 'gave up', 'refusals', 'hint / drain p50', 'p99', 'max', 'longest hint ms', 'login p99 ms'],
      r.oneShot.map((x) => [x.kind, String(x.fresh.attempts), pct(x.fresh.admitted), fmtMs(x.fresh.p99),
        String(x.returning.logins), pct(x.returning.within3), String(x.returning.attemptsMax),
        String(x.returning.gaveUp), String(x.returning.refusals), fmtRatio(x.returning.ratioP50),
        fmtRatio(x.returning.ratioP99), fmtRatio(x.returning.ratioMax), fmtMs(x.returning.hintMaxMs),
        fmtMs(x.returning.p99)])),
      '',
      '(goals with fairKey: the returning clients\' hint / drain p99 at most 2x; 99 % of their logins in at most 3 attempts)',
    ]);
  }
  if (r.zipf.length) {
    section([
      `## Zipf(s = 1) per-IP keys over ${ZIPF_CLIENTS.toLocaleString('en-US')} clients, at 90 % of the measured `
        + 'capacity, maxQueue 16',
      '',
      'Each login retries at the hint and gives up past 2 s. admitted: completed / attempts. hint / drain over every',
      'refusal (no goal: a heavy key\'s call waits for lighter keys that arrive after it).',
      '',
      table(['contender', 'logins', 'logged in', 'attempts', 'refused', 'displaced', 'shed', 'admitted', 'p50 ms',
        'p99 ms', 'refusals', 'hint / drain p50', 'p99'],
      r.zipf.map((x) => [x.kind, String(x.logins), pct(x.success), ...count(x), pct(x.admitted), fmtMs(x.p50),
        fmtMs(x.p99), String(x.refusals), fmtRatio(x.ratioP50), fmtRatio(x.ratioP99)])),
    ]);
  }
  return out.join('\n');
}

async function drawChart(r, file) {
  const { writeSvg, barPanels } = require('./lib/chart');
  const idle = r.idle ? r.idle.p99 : NaN;
  const short = { ms: 'retryAfterMs', ra20: 'Retry-After+20', ra100: 'Retry-After+100' };
  const rows = [
    ...r.retrying.map((x) => ({
      label: `${short[x.mode]}: ${x.kind}`,
      [x.mode === 'ms' ? 'retryMs' : 'retryRa']: 100 * x.retryShare,
      churn: x.kind === 'crypto' ? NaN : 100 * x.churn,
    })),
    ...r.flooder.map((x) => ({ label: `flooder: ${x.kind}`, usersOne: 100 * x.success, p99One: x.p99 / idle })),
    ...[...r.flooders100, ...r.flooders1000].map((x) => ({
      label: `${x.floodKeys.toLocaleString('en-US')} flooding keys: ${x.kind}`, usersMany: 100 * x.success, p99Many: x.p99 / idle,
    })),
    ...r.oneShot.map((x) => ({
      label: `one-shot + returning: ${x.kind}`, hintDrain: x.returning.ratioP99, within3: 100 * x.returning.within3,
    })),
    ...r.zipf.map((x) => ({ label: `Zipf per-IP: ${x.kind}`, zipfAdmitted: 100 * x.admitted })),
  ];
  const isFair = (x) => x.label.endsWith(': fair');
  const spec = barPanels(rows, [
    { field: 'retryMs', title: 'retries at retryAfterMs completed (%)', better: 'higher', goal: 80, goalFor: isFair },
    { field: 'retryRa', title: 'retries at Retry-After completed (%)', better: 'higher', goal: 90, goalFor: isFair },
    { field: 'churn', title: 'displaced per completed job, 12 equal clients (%)', better: 'lower', goal: 5, goalFor: isFair },
    { field: 'usersOne', title: 'one flooder: users logged in within 2 s (%)', better: 'higher', goal: 99, goalFor: isFair },
    { field: 'p99One', title: 'one flooder: users\' p99 / idle p99 (log)', better: 'lower', log: true, goal: 3, goalFor: isFair },
    { field: 'usersMany', title: 'many flooding keys: users logged in (%)', better: 'higher', goal: 95, goalFor: isFair },
    { field: 'p99Many', title: 'many flooding keys: users\' p99 / idle p99 (log)', better: 'lower', log: true, goal: 5, goalFor: isFair },
    { field: 'hintDrain', title: 'returning clients: hint / drain, p99 (log)', better: 'lower', log: true, goal: 2, goalFor: isFair },
    { field: 'within3', title: 'returning clients: logins in <= 3 attempts (%)', better: 'higher', goal: 99, goalFor: isFair },
    { field: 'zipfAdmitted', title: 'Zipf per-IP keys: calls admitted (%)', better: 'higher' },
  ], {
    title: 'kdfpool under overload',
    subtitle: `${THREADS} threads, PBKDF2-${r.digest.toUpperCase()} logins of 2-8 ms, SHA variant ${r.variant}`,
  });
  await writeSvg(file, spec);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
