#!/usr/bin/env node
'use strict';

/**
 * Soak: a mixed load over every KDF and every lifecycle path of kdfpool,
 * checking the invariants that matter over time.
 *
 *   node scripts/soak.js [--seconds N] [--seed S] [--json] [--quiet]
 *
 * Load (all at once, for N seconds):
 * - mixed jobs on the default pool: pbkdf2 (sha1, sha256, sha512, sha3-256,
 *   md5), scrypt, argon2d/i/id, hash()/verify() over argon2id, scrypt,
 *   pbkdf2-sha256 and bcrypt; promise and callback forms; each job maybe
 *   with an AbortSignal fired before submit, while queued or while running,
 *   and/or a small maxWaitMs deadline;
 * - bursts that overflow a small queue (saturation refusals);
 * - a pool with a small memory budget fed scrypt/Argon2 jobs near (and over)
 *   that budget;
 * - configure() resizes of the default pool (threads 1..4, maxQueue,
 *   maxMemory);
 * - createPool()/close() cycles, half drained before close (stats identity
 *   checked), half closed with jobs queued and running;
 * - worker_threads that use kdfpool (the process-wide default pool) and are
 *   terminated mid-job.
 *
 * Checks (exit code 1 on any violation):
 * - every job settles exactly once (promises tracked, callbacks counted),
 *   nothing pending after draining; every error has a string `code` and one
 *   of the codes expected for that job; results are right (pbkdf2/scrypt
 *   bytes spot-checked against node:crypto, verify() true/false as expected);
 * - for each pool, once drained: submitted == completed + failed + cancelled + shed;
 * - no unhandled rejection, no uncaught exception;
 * - RSS, open fds (/proc/self/fd) and kdf* threads (/proc/self/task/N/comm)
 *   sampled every second; after the load, with every extra pool closed:
 *   kdf threads == the default pool's threads + its timer, fds <= warm-up + FD_SLACK,
 *   RSS (final, and the largest sample of the second half of the run) <=
 *   warm-up + RSS_SLACK_MB (warm-up = the largest sample in the first
 *   quarter of the run). KDFPOOL_SOAK_RSS_SLACK_MB overrides the slack, or
 *   with 'none' reports RSS without bounding it: the sanitized run does,
 *   because under AddressSanitizer RSS follows its quarantine, shadow
 *   memory and allocator caches (CI saw 287 -> 694 MiB in 10 s with no
 *   leak), not what is still in use;
 * - in an AddressSanitizer build of the addon (native.testing.sanitizerHeapBytes),
 *   what RSS cannot say there: the process's malloc'ed bytes not yet freed,
 *   once drained, <= warm-up + HEAP_SLACK_MB (KDFPOOL_SOAK_HEAP_SLACK_MB);
 * - in a fault build (KDFPOOL_FAULTS=1, which the sanitized run uses), the
 *   addon's own live malloc'ed bytes (native.testing.faults.liveBytes,
 *   counted by the allocation wrappers, so nothing of V8's or Node's moves
 *   it), compared between two drained points: after a warm-up phase (a
 *   quarter of the run, at least 2 s) and at the end. Growth above
 *   max(LEAK_SLACK_BYTES, LEAK_BYTES_PER_JOB x jobs settled in between) is a
 *   leak: 32 B/job by default (KDFPOOL_SOAK_LEAK_BYTES_PER_JOB), so a leak
 *   of 64 bytes per job fails the run. KDFPOOL_SOAK_INJECT_LEAK=<bytes>
 *   makes every job leak that much on purpose (faults.leakPerJob), to show
 *   that it does (test/soak.test.js).
 */

const path = require('node:path');
const fs = require('node:fs');
const crypto = require('node:crypto');
const { Worker } = require('node:worker_threads');

const ROOT = path.resolve(__dirname, '..');
const kdf = require(ROOT);
const native = require(path.join(ROOT, 'lib', 'native'));

const FD_SLACK = 8;
// External memory (Buffers, ArrayBuffers: keys handed to JS, the completion
// transfer area) once drained and collected, against its warm-up.
const EXTERNAL_SLACK_MB = 64;
const RSS_BOUNDED = process.env.KDFPOOL_SOAK_RSS_SLACK_MB !== 'none';
const RSS_SLACK_MB = RSS_BOUNDED ? Number(process.env.KDFPOOL_SOAK_RSS_SLACK_MB || 96) : null;
const HEAP_SLACK_MB = Number(process.env.KDFPOOL_SOAK_HEAP_SLACK_MB || 2);
const DRAIN_TIMEOUT_MS = 60000;
const LEAK_BYTES_PER_JOB = Number(process.env.KDFPOOL_SOAK_LEAK_BYTES_PER_JOB || 32);
const LEAK_SLACK_BYTES = 4096;

// ---------------------------------------------------------------- options

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };
const SECONDS = Number(opt('--seconds', 20));
let seed = Number(opt('--seed', Date.now() % 1e9)) >>> 0;
const JSON_OUT = argv.includes('--json');
const QUIET = argv.includes('--quiet');
const rand = () => { // mulberry32
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const rint = (n) => Math.floor(rand() * n);
const pick = (a) => a[rint(a.length)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => { if (!QUIET && !JSON_OUT) console.log(...a); };

// ---------------------------------------------------------------- bookkeeping

const violations = [];
const violation = (what) => { if (violations.length < 200) violations.push(what); if (!JSON_OUT) console.error(`VIOLATION: ${what}`); };
process.on('unhandledRejection', (r) => violation(`unhandled rejection: ${(r && r.stack) || r}`));
process.on('uncaughtException', (e) => violation(`uncaught exception: ${(e && e.stack) || e}`));

const outcomes = Object.create(null); // "op: outcome" -> count
const count = (key) => { outcomes[key] = (outcomes[key] || 0) + 1; };
const pending = new Set();
let started = 0;
let settled = 0;

const EXPECTED = new Set(['ERR_KDF_POOL_SATURATED', 'ABORT_ERR', 'ERR_KDF_MEMORY_LIMIT', 'ERR_KDF_POOL_CLOSED']);

/** Track one job: exactly one settlement, a coded error of an expected kind. */
function track(op, promise, check, extraExpected) {
  const job = { op };
  pending.add(job);
  started++;
  let n = 0;
  const done = () => {
    n++;
    if (n > 1) violation(`${op}: settled ${n} times`);
    pending.delete(job);
    settled++;
  };
  return promise.then((v) => {
    done();
    count(`${op}: ok`);
    if (check) { const bad = check(v); if (bad) violation(`${op}: wrong result: ${bad}`); }
    return null;
  }, (e) => {
    done();
    const code = e && typeof e.code === 'string' ? e.code : null;
    if (!code) { violation(`${op}: error without a string code: ${e && e.stack}`); return; }
    const key = code === 'ERR_KDF_POOL_SATURATED' ? `${code}/${e.reason}` : code;
    count(`${op}: ${key}`);
    if (!EXPECTED.has(code) && !(extraExpected && extraExpected.has(code))) violation(`${op}: unexpected error ${code}: ${e.message}`);
    return e;
  });
}

// Deadline refusals at submit, per pool, measured as the synchronous change
// of stats().shed across the call (README: `shed` also counts them, while
// `submitted` does not).
const shedAtSubmit = Object.create(null);
function submit(pool, o, call) {
  if (!o || !o.maxWaitMs) return call();
  let before;
  try { before = pool.stats(); } catch { return call(); }
  const p = call();
  try {
    const d = pool.stats().shed - before.shed;
    if (d > 0) shedAtSubmit[before.name] = (shedAtSubmit[before.name] || 0) + d;
  } catch { /* closed meanwhile */ }
  return p;
}

/** A client backs off when refused, as the README's 429 handler would. */
function backoff(err) {
  return err && err.code === 'ERR_KDF_POOL_SATURATED' ? sleep(Math.min(50, Math.max(1, err.retryAfterMs || 1))) : null;
}

/** Callback form as a tracked promise; a second callback is a violation. */
function viaCallback(op, call) {
  return new Promise((resolve, reject) => {
    let calls = 0;
    call((err, key) => {
      calls++;
      if (calls > 1) { violation(`${op}: callback called ${calls} times`); return; }
      if (err) reject(err); else resolve(key);
    });
  });
}

// ---------------------------------------------------------------- job factory

const DIGESTS = ['sha1', 'sha256', 'sha512', 'sha3-256', 'md5'];
const PASSWORDS = ['pw', 'correct horse battery staple', 'Ünïcødé'];

/** Per-call options: sometimes a signal (aborted before, soon, or later), sometimes a deadline. */
function callOptions() {
  const o = {};
  const r = rand();
  if (r < 0.05) o.signal = AbortSignal.abort(new Error('before submit'));
  else if (r < 0.15) { const c = new AbortController(); setTimeout(() => c.abort(), rint(3)); o.signal = c.signal; } // queued
  else if (r < 0.22) { const c = new AbortController(); setTimeout(() => c.abort(), 2 + rint(20)); o.signal = c.signal; } // running
  if (rand() < 0.15) o.maxWaitMs = 1 + rint(20);
  return o;
}

function pbkdf2Job(pool, form) {
  const pw = pick(PASSWORDS); const salt = crypto.randomBytes(8);
  const it = 200 + rint(3000); const len = pick([16, 32, 64, 100]); const dg = pick(DIGESTS);
  const check = rand() < 0.2 ? (key) => (crypto.pbkdf2Sync(pw, salt, it, len, dg).equals(key) ? null : `pbkdf2 ${dg} bytes differ from node:crypto`) : null;
  const o = callOptions();
  const op = `pbkdf2-${dg}${form === 'cb' ? '(cb)' : ''}`;
  if (form === 'cb') return track(op, viaCallback(op, (cb) => submit(pool, o, () => pool.pbkdf2(pw, salt, it, len, dg, o, cb))), check);
  return track(op, submit(pool, o, () => pool.pbkdf2(pw, salt, it, len, dg, o)), check);
}

function scryptJob(pool, N = pick([256, 1024, 2048]), r = 8) {
  const pw = pick(PASSWORDS); const salt = crypto.randomBytes(8);
  const check = rand() < 0.1 ? (key) => (crypto.scryptSync(pw, salt, 32, { N, r, p: 1, maxmem: 256 * N * r }).equals(key) ? null : 'scrypt bytes differ from node:crypto') : null;
  const o = { N, r, p: 1, maxmem: 256 * N * r, ...callOptions() };
  return track('scrypt', submit(pool, o, () => pool.scrypt(pw, salt, 32, o)), check);
}

function argon2Job(pool, memory = pick([64, 256, 1024, 4096])) {
  const alg = pick(['argon2d', 'argon2i', 'argon2id']);
  const params = { message: pick(PASSWORDS), nonce: crypto.randomBytes(16), parallelism: pick([1, 1, 2]), tagLength: 32, memory, passes: 1 + rint(2) };
  const o = callOptions();
  return track(alg, submit(pool, o, () => pool.argon2(alg, params, o)), (key) => (key.length === 32 ? null : `tag length ${key.length}`));
}

const HASH_OPTS = {
  argon2id: { algorithm: 'argon2id', memory: 256, passes: 1 },
  scrypt: { algorithm: 'scrypt', ln: 8, r: 8 },
  'pbkdf2-sha256': { algorithm: 'pbkdf2-sha256', iterations: 1000 },
  bcrypt: { algorithm: 'bcrypt', cost: 4 },
};

function hashVerifyJob(pool) {
  const alg = pick(Object.keys(HASH_OPTS));
  const pw = pick(PASSWORDS);
  const o = { ...HASH_OPTS[alg], ...callOptions() };
  const p = submit(pool, o, () => pool.hash(pw, o)).then(async (phc) => {
    // The verifies run without signals: their answers are checked.
    const [good, bad] = await Promise.all([pool.verify(phc, pw), pool.verify(phc, pw + 'x')]);
    if (good !== true || bad !== false) throw Object.assign(new Error(`verify(${phc}) gave ${good}/${bad}`), { code: 'SOAK_WRONG_VERIFY' });
    if (kdf.needsRehash(phc, HASH_OPTS[alg]) !== false) throw Object.assign(new Error(`needsRehash(${phc}) against its own options`), { code: 'SOAK_WRONG_REHASH' });
    return phc;
  });
  return track(`hash+verify ${alg}`, p);
}

function mixedJob(pool) {
  const r = rand();
  if (r < 0.35) return pbkdf2Job(pool, rand() < 0.3 ? 'cb' : 'promise');
  if (r < 0.55) return scryptJob(pool);
  if (r < 0.8) return argon2Job(pool);
  return hashVerifyJob(pool);
}

// ---------------------------------------------------------------- samplers

function kdfThreads() {
  let n = 0;
  for (const t of fs.readdirSync('/proc/self/task')) {
    try { if (fs.readFileSync(`/proc/self/task/${t}/comm`, 'utf8').startsWith('kdf')) n++; } catch { /* exited */ }
  }
  return n;
}
const fds = () => fs.readdirSync('/proc/self/fd').length;
const rssMb = () => Math.round(process.memoryUsage.rss() / 1048576);
// A full collection, with or without --expose-gc.
function collectGarbage() {
  if (typeof global.gc === 'function') return global.gc();
  require('node:v8').setFlagsFromString('--expose-gc');
  return require('node:vm').runInNewContext('gc')();
}
const externalMb = () => Math.round((process.memoryUsage().external / 1048576) * 10) / 10;
// Only in an AddressSanitizer build of the addon: live malloc'ed bytes.
const heapBytes = native.testing && native.testing.sanitizerHeapBytes;
const heapMb = typeof heapBytes === 'function'
  ? () => Math.round((heapBytes() / 1048576) * 10) / 10
  : () => undefined;
const samples = [];
function sample(label) {
  const st = kdf.stats();
  const s = { t: Math.round((Date.now() - T0) / 100) / 10, rssMb: rssMb(), externalMb: externalMb(), heapMb: heapMb(), fds: fds(), kdfThreads: kdfThreads(), defaultThreads: st.threads, running: st.running, queued: st.queued, label };
  samples.push(s);
  return s;
}

// ---------------------------------------------------------------- identity

function identity(st) {
  const sum = st.completed + st.failed + st.cancelled + st.shed;
  const atSubmit = shedAtSubmit[st.name] || 0;
  return { ok: st.submitted === sum, gap: sum - st.submitted, shedAtSubmit: atSubmit,
    // shedAtSubmit is an upper bound (a queue-front shed by a pool thread
    // between the two stats() reads counts too), so "explained" = 0 <= gap <= it.
    explained: sum - st.submitted >= 0 && sum - st.submitted <= atSubmit,
    submitted: st.submitted, completed: st.completed, failed: st.failed, cancelled: st.cancelled, shed: st.shed, rejected: st.rejected, aborted: st.aborted };
}
const poolReports = [];
function checkIdentity(name, st) {
  const id = identity(st);
  poolReports.push({ name, ...id });
  if (!id.ok) {
    violation(`pool ${name}: submitted ${id.submitted} != completed ${id.completed} + failed ${id.failed} + cancelled ${id.cancelled} + shed ${id.shed} (= ${id.submitted + id.gap}); ` +
      (id.explained ? `the gap ${id.gap} is within the ${id.shedAtSubmit} deadline refusals at submit observed, which stats().shed counts and stats().submitted does not (test/fuzz/repro/stats-identity-shed-at-submit.js)`
        : `NOT explained by the ${id.shedAtSubmit} deadline refusals at submit observed`));
  }
}

async function drained(pool, timeoutMs = DRAIN_TIMEOUT_MS) {
  const t = Date.now();
  for (;;) {
    const st = pool.stats();
    if (st.running === 0 && st.queued === 0) return st;
    if (Date.now() - t > timeoutMs) { violation(`pool ${st.name} not drained after ${timeoutMs} ms: running ${st.running}, queued ${st.queued}`); return st; }
    await sleep(20);
  }
}

// ---------------------------------------------------------------- loads

let stopping = false;
const T0 = Date.now();
const WARMUP_MS = Math.min(SECONDS * 1000, Math.max(2000, SECONDS * 250));
let until = T0 + WARMUP_MS; // the warm-up phase first, then the rest (main)
const running = () => !stopping && Date.now() < until;

async function mixedLoad() { // keeps ~6 jobs in flight on the default pool
  const inflight = new Set();
  while (running()) {
    while (inflight.size < 6) { const p = mixedJob(kdf).then(backoff); inflight.add(p); p.finally(() => inflight.delete(p)); }
    await Promise.race(inflight);
  }
  await Promise.all(inflight);
}

async function burstLoad() { // overflow a small queue
  const pool = kdf.createPool({ name: 'burst', threads: 1, maxQueue: 4, priority: 'normal' });
  while (running()) {
    const jobs = [];
    for (let i = 0; i < 16; i++) jobs.push(pbkdf2Job(pool, 'promise'));
    await Promise.all(jobs);
    await sleep(50 + rint(200));
  }
  checkIdentity('burst', await drained(pool));
  await pool.close();
}

async function memoryLoad() { // jobs near and over an 8 MiB budget
  const pool = kdf.createPool({ name: 'mem', threads: 2, maxQueue: 32, maxMemory: 8 * 1024 * 1024, priority: 'normal' });
  const memErr = new Set(['ERR_KDF_MEMORY_LIMIT']);
  while (running()) {
    const jobs = [];
    for (let i = 0; i < 6; i++) {
      const r = rand();
      if (r < 0.45) jobs.push(argon2Job(pool, pick([3072, 4096, 6144, 8000])));
      else if (r < 0.9) jobs.push(scryptJob(pool, pick([2048, 4096, 8192]), 8)); // 2, 4, 8 MiB (+ a little)
      else jobs.push(track('argon2 over budget', pool.argon2('argon2id', { message: 'pw', nonce: Buffer.alloc(16), parallelism: 1, tagLength: 16, memory: 16384, passes: 1 }), () => 'accepted a job over the whole budget', memErr));
    }
    await Promise.all(jobs);
  }
  checkIdentity('mem', await drained(pool));
  await pool.close();
}

let configures = 0;
async function configureLoad() {
  while (running()) {
    await sleep(200 + rint(400));
    if (!running()) break;
    try {
      kdf.configure({ threads: 1 + rint(4), maxQueue: pick([4, 8, 32, 128]), maxMemory: pick([16, 32, 64, 128]) * 1024 * 1024 });
      configures++;
    } catch (e) { violation(`configure threw: ${e.code} ${e.message}`); }
  }
}

let poolCycles = 0;
async function poolCycleLoad() {
  let i = 0;
  while (running()) {
    const name = `c${i++ % 1000}`;
    const pool = kdf.createPool({ name, threads: 1 + rint(2), maxQueue: 16, maxMemory: 32 * 1024 * 1024, priority: 'normal' });
    const jobs = [];
    for (let k = 0; k < 4 + rint(10); k++) jobs.push(mixedJob(pool));
    if (rand() < 0.5) { // drain, check the identity, close
      await Promise.all(jobs);
      checkIdentity(name, await drained(pool));
      await pool.close();
    } else { // close with jobs queued and running: queued ones reject with PoolClosedError
      await sleep(rint(10));
      await pool.close();
      await Promise.all(jobs);
      try { pool.stats(); violation(`stats() on closed pool ${name} did not throw`); } catch (e) {
        if (e.code !== 'ERR_KDF_POOL_CLOSED') violation(`stats() on closed pool ${name}: ${e.code}`);
      }
    }
    poolCycles++;
  }
}

const WORKER_SRC = `
const { parentPort, workerData } = require('node:worker_threads');
const kdf = require(workerData.root);
let n = 0;
async function one() {
  const r = n++ % 4;
  try {
    if (r === 0) await kdf.pbkdf2('pw', 'salt', 3000, 32, 'sha256');
    else if (r === 1) await kdf.scrypt('pw', 'salt', 32, { N: 1024, r: 8, p: 1 });
    else if (r === 2) await kdf.argon2('argon2id', { message: 'pw', nonce: Buffer.alloc(16), parallelism: 1, tagLength: 32, memory: 1024, passes: 1 });
    else { const h = await kdf.hash('pw', { algorithm: 'bcrypt', cost: 4 }); if (!(await kdf.verify(h, 'pw'))) throw Object.assign(new Error('verify false'), { code: 'SOAK_WRONG_VERIFY' }); }
    parentPort.postMessage('ok');
  } catch (e) {
    parentPort.postMessage(typeof e.code === 'string' ? 'err:' + e.code : 'nocode:' + e.message);
    if (e.code === 'ERR_KDF_POOL_SATURATED') await new Promise((r) => setTimeout(r, Math.min(50, e.retryAfterMs || 5)));
  }
}
(async () => { for (;;) await Promise.all([one(), one(), one()]); })();
`;

let workersStarted = 0;
let workersTerminated = 0;
async function workerLoad() {
  while (running()) {
    const w = new Worker(WORKER_SRC, { eval: true, workerData: { root: ROOT } });
    workersStarted++;
    w.on('message', (m) => {
      count(`worker job: ${m}`);
      if (m.startsWith('nocode:')) violation(`worker job error without a code: ${m}`);
      else if (m.startsWith('err:') && !EXPECTED.has(m.slice(4))) violation(`worker job: unexpected ${m}`);
    });
    w.on('error', (e) => violation(`worker error: ${e && e.stack}`));
    await sleep(100 + rint(900));
    await w.terminate();
    workersTerminated++;
  }
}

// ---------------------------------------------------------------- main

// Every tracked job settled, the default pool idle (terminated workers'
// running jobs end too), closed pools' threads gone.
async function drainAll() {
  const t = Date.now();
  while (pending.size && Date.now() - t < DRAIN_TIMEOUT_MS) await sleep(20);
  if (pending.size) violation(`${pending.size} jobs never settled: ${[...pending].slice(0, 5).map((j) => j.op).join(', ')}`);
  kdf.configure({ threads: 2, maxQueue: 128, maxMemory: 64 * 1024 * 1024 });
  checkIdentity('default', await drained(kdf));
  await sleep(500); // let closed pools' threads finish exiting
}

const faults = native.testing && native.testing.faults;
const liveBytes = faults && typeof faults.liveBytes === 'function' ? () => faults.liveBytes() : null;

async function main() {
  kdf.configure({ threads: 2, maxQueue: 128, maxMemory: 64 * 1024 * 1024, priority: 'normal' });
  log(`soak: ${SECONDS} s, seed ${seed}, pid ${process.pid}`);
  const inject = Number(process.env.KDFPOOL_SOAK_INJECT_LEAK || 0);
  if (inject > 0) {
    if (!faults) { console.error('KDFPOOL_SOAK_INJECT_LEAK needs a fault build (KDFPOOL_FAULTS=1 npm run build)'); process.exit(2); }
    faults.leakPerJob(inject);
    log(`  injecting a leak of ${inject} bytes per job`);
  }
  sample('start');
  const sampler = setInterval(() => {
    const s = sample('load');
    log(`  t=${s.t}s rss ${s.rssMb} MiB, fds ${s.fds}, kdf threads ${s.kdfThreads} (default pool ${s.defaultThreads}), running ${s.running}, queued ${s.queued}, jobs ${started} started / ${settled} settled`);
  }, 1000);

  const loads = () => Promise.all([mixedLoad(), burstLoad(), memoryLoad(), configureLoad(), poolCycleLoad(), workerLoad()]);
  await loads(); // warm-up: caches and tables reach their working size
  await drainAll();
  const leakBase = liveBytes && { bytes: liveBytes(), settled };
  until = T0 + SECONDS * 1000;
  await loads();
  stopping = true;
  clearInterval(sampler);
  await drainAll();
  collectGarbage(); // Buffers' memory goes back with a collection
  const fin = sample('final');

  // Bounds. Warm-up: the largest samples in the first quarter of the run.
  const loadSamples = samples.filter((s) => s.label === 'load');
  const warm = loadSamples.filter((s) => s.t <= Math.max(2, SECONDS / 4));
  const warmRss = Math.max(...warm.map((s) => s.rssMb), samples[0].rssMb);
  const warmFds = Math.max(...warm.map((s) => s.fds), samples[0].fds);
  const maxThreads = Math.max(...samples.map((s) => s.kdfThreads));
  const late = loadSamples.filter((s) => s.t > SECONDS / 2);
  const lateRss = late.length ? Math.max(...late.map((s) => s.rssMb)) : fin.rssMb;
  const warmExternal = Math.max(...warm.map((s) => s.externalMb), samples[0].externalMb);
  const bounds = {
    // The default pool's workers and its deadline timer (kdfdl-default).
    kdfThreads: { final: fin.kdfThreads, expected: fin.defaultThreads + 1, max: maxThreads, ok: fin.kdfThreads === fin.defaultThreads + 1 },
    fds: { warmup: warmFds, final: fin.fds, bound: warmFds + FD_SLACK, ok: fin.fds <= warmFds + FD_SLACK },
    rssMb: { warmup: warmRss, final: fin.rssMb, max: Math.max(...samples.map((s) => s.rssMb)), lateMax: lateRss,
      bound: RSS_BOUNDED ? warmRss + RSS_SLACK_MB : null,
      ok: !RSS_BOUNDED || (fin.rssMb <= warmRss + RSS_SLACK_MB && lateRss <= warmRss + RSS_SLACK_MB) },
    externalMb: { warmup: warmExternal, final: fin.externalMb, max: Math.max(...samples.map((s) => s.externalMb)),
      bound: warmExternal + EXTERNAL_SLACK_MB, ok: fin.externalMb <= warmExternal + EXTERNAL_SLACK_MB },
  };
  if (fin.heapMb !== undefined) {
    const warmHeap = Math.max(...warm.map((s) => s.heapMb), samples[0].heapMb);
    bounds.heapMb = { warmup: warmHeap, final: fin.heapMb, max: Math.max(...samples.map((s) => s.heapMb)),
      bound: warmHeap + HEAP_SLACK_MB, ok: fin.heapMb <= warmHeap + HEAP_SLACK_MB };
    if (!bounds.heapMb.ok) violation(`malloc'ed bytes once drained ${fin.heapMb} MiB > warm-up ${warmHeap} MiB + ${HEAP_SLACK_MB} MiB`);
  }
  if (leakBase) {
    const jobs = settled - leakBase.settled, grown = liveBytes() - leakBase.bytes;
    const bound = Math.max(LEAK_SLACK_BYTES, LEAK_BYTES_PER_JOB * jobs);
    bounds.nativeBytes = { warmup: leakBase.bytes, final: grown + leakBase.bytes, jobs,
      perJob: jobs ? Math.round((grown / jobs) * 10) / 10 : 0, bound, ok: grown <= bound };
    if (!bounds.nativeBytes.ok) violation(`the addon's live malloc'ed bytes grew by ${grown} over ${jobs} jobs (${bounds.nativeBytes.perJob} B/job) > ${bound} (${LEAK_BYTES_PER_JOB} B/job): a leak`);
  }
  if (!bounds.kdfThreads.ok) violation(`kdf threads after the load: ${fin.kdfThreads}, expected the default pool's ${fin.defaultThreads} and its timer`);
  if (!bounds.fds.ok) violation(`open fds ${fin.fds} > warm-up ${warmFds} + ${FD_SLACK}`);
  if (!bounds.externalMb.ok) violation(`external memory once drained ${fin.externalMb} MiB > warm-up ${warmExternal} MiB + ${EXTERNAL_SLACK_MB} MiB`);
  if (!bounds.rssMb.ok) violation(`RSS final ${fin.rssMb} MiB or second-half max ${lateRss} MiB > warm-up ${warmRss} MiB + ${RSS_SLACK_MB} MiB`);

  const report = {
    seconds: SECONDS, seed: Number(opt('--seed', 0)) || undefined, jobs: { started, settled, pending: pending.size },
    outcomes, configures, poolCycles, workers: { started: workersStarted, terminated: workersTerminated },
    pools: poolReports.filter((p) => !/^c\d/.test(p.name)), cyclePoolsChecked: poolReports.filter((p) => /^c\d/.test(p.name)).length,
    cyclePoolIdentityFailures: poolReports.filter((p) => /^c\d/.test(p.name) && !p.ok).length,
    bounds, samples: samples.filter((s, i) => i % Math.max(1, Math.floor(samples.length / 12)) === 0 || s.label === 'final'),
    violations,
  };
  if (JSON_OUT) console.log(JSON.stringify(report));
  else {
    console.log(`\nsoak: ${started} jobs started, ${settled} settled, ${pending.size} pending; ${configures} configure() calls, ${poolCycles} pool cycles, ${workersStarted} workers started / ${workersTerminated} terminated`);
    console.log('outcomes:');
    for (const k of Object.keys(outcomes).sort()) console.log(`  ${k.padEnd(48)} ${outcomes[k]}`);
    console.log('stats identity (submitted == completed + failed + cancelled + shed):');
    for (const p of report.pools) console.log(`  ${p.name.padEnd(8)} ${p.ok ? 'ok  ' : 'FAIL'} submitted ${p.submitted} completed ${p.completed} failed ${p.failed} cancelled ${p.cancelled} shed ${p.shed} (rejected ${p.rejected}, aborted ${p.aborted}); gap ${p.gap}, deadline refusals at submit ${p.shedAtSubmit}${p.ok ? '' : p.explained ? ' -> gap explained by them' : ' -> NOT explained'}`);
    console.log(`  ${report.cyclePoolsChecked} drained createPool cycles checked, ${report.cyclePoolIdentityFailures} failed`);
    console.log(`kdf threads: final ${bounds.kdfThreads.final} (default pool and timer ${bounds.kdfThreads.expected}), max seen ${bounds.kdfThreads.max}`);
    console.log(`fds: warm-up ${bounds.fds.warmup}, final ${bounds.fds.final}, bound ${bounds.fds.bound}`);
    console.log(`RSS: warm-up ${bounds.rssMb.warmup} MiB, max ${bounds.rssMb.max} MiB, second-half max ${bounds.rssMb.lateMax} MiB, final ${bounds.rssMb.final} MiB, ${RSS_BOUNDED ? `bound (second-half max and final) ${bounds.rssMb.bound} MiB` : 'not bounded (KDFPOOL_SOAK_RSS_SLACK_MB=none)'}`);
    console.log(`external (Buffers): warm-up ${bounds.externalMb.warmup} MiB, max ${bounds.externalMb.max} MiB, final ${bounds.externalMb.final} MiB, bound (final) ${bounds.externalMb.bound} MiB`);
    if (bounds.nativeBytes) console.log(`addon's malloc'ed bytes (fault build), drained: ${bounds.nativeBytes.warmup} -> ${bounds.nativeBytes.final} over ${bounds.nativeBytes.jobs} jobs (${bounds.nativeBytes.perJob} B/job), bound ${bounds.nativeBytes.bound}`);
    if (bounds.heapMb) console.log(`malloc'ed (ASan): warm-up ${bounds.heapMb.warmup} MiB, max ${bounds.heapMb.max} MiB, final ${bounds.heapMb.final} MiB, bound (final) ${bounds.heapMb.bound} MiB`);
    console.log(violations.length ? `FAILED: ${violations.length} violation(s)` : 'OK: no violations');
  }
  process.exitCode = violations.length ? 1 : 0;
}

main().catch((e) => { console.error(e); process.exit(2); });
