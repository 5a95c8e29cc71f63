'use strict';

// tune(): the hash() options that take about `targetMs` per hash on this
// machine with `concurrency` hashes running at once, within a memory
// budget. The procedure is libsodium's and RFC 9106's (section 4): the
// memory per hash first, from the budget and the hashes that run at once,
// then the time cost that meets the latency. Every candidate is measured
// through hash() on a pool's own threads (so the CPU variant that runs, the
// pool's arenas and its batching are what is timed), starting from the
// cheapest of the minimums.
//
// It never proposes less than the minimums of OWASP's Password Storage
// Cheat Sheet
// (https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html),
// where each row of a table is as strong as the others:
//   Argon2id  m=47104 KiB t=1; m=19456 t=2; m=12288 t=3; m=9216 t=4;
//             m=7168 t=5; all p=1 (the first two "do not use with Argon2i")
//   scrypt    N=2^17 r=8 p=1; 2^16/8/2; 2^15/8/3; 2^14/8/5; 2^13/8/10
//   bcrypt    work factor (cost) 10
//   PBKDF2    HMAC-SHA256 600,000 iterations; HMAC-SHA512 210,000
//             (HMAC-SHA1 1,300,000: hash() does not write PBKDF2-SHA1)
// When even the minimum takes longer than the target, the answer is the
// minimum, with `minimumsBind: true`.
//
// The plan (which parameters for how much work: "units", e.g. KiB-passes)
// is a pure function of the units and the budget, so its monotony is
// checked without timing (test/tune.test.js); the measurements only say how
// many units the target buys (a secant through the closest two).

const crypto = require('node:crypto');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const native = require('./native');
const errors = require('./errors');
const v = require('./validate');
const { DEFAULT_LIMITS } = require('./phc/limits');
const { requiredLimits } = require('./phc/required');

const ALGORITHMS = Object.freeze(['argon2id', 'argon2i', 'argon2d', 'scrypt', 'pbkdf2-sha256', 'pbkdf2-sha512', 'bcrypt']);
const OPTION_KEYS = ['algorithm', 'targetMs', 'concurrency', 'maxMemory'];
const MAX_TARGET_MS = 10000;
const MAX_CANDIDATES = 5; // measured plans, the last one always fully
const MEASURE_MS = 500; // about how long one candidate is timed (see measure())
// A target far above this is approached through a probe of about this
// long first: its time per unit, at the memory the target's plan uses,
// extrapolates to the target within a few per cent, where one from the
// cheapest minimum (milliseconds) may be off by half and cost a whole
// measurement of the target each time.
const PROBE_MS = 1000;
// Measuring stops once it has spent this many targets (plus MEASURE_MS)
// with a candidate fully measured: a 10 s target takes seconds, not minutes.
const SPEND_TARGETS = 2;
const TAG_LENGTH = 32; // hash()'s default output, reserved beside the memory
const KIB = 1024;
const MIB_IN_KIB = 1024;

// ------------------------------------------------------------ OWASP's minimums

// Argon2 rows (memory KiB, passes), p=1, for Argon2id and Argon2d (tobtu's
// table, the sheet's source, gives both the same); `notArgon2i`: not a row
// for Argon2i.
const ARGON2_ROWS = Object.freeze([
  { memory: 47104, passes: 1, notArgon2i: true },
  { memory: 19456, passes: 2, notArgon2i: true },
  { memory: 12288, passes: 3 },
  { memory: 9216, passes: 4 },
  { memory: 7168, passes: 5 },
]);
// scrypt rows, r = 8.
const SCRYPT_R = 8;
// How far over `units` the plan may go to keep N (memory) rather than drop
// to a smaller N with more p: the rows cost the same within 25 %.
const SCRYPT_SLACK = 1.25;
const SCRYPT_ROWS = Object.freeze([
  { ln: 17, p: 1 },
  { ln: 16, p: 2 },
  { ln: 15, p: 3 },
  { ln: 14, p: 5 },
  { ln: 13, p: 10 },
]);
const PBKDF2_MIN = Object.freeze({ 'pbkdf2-sha256': 600000, 'pbkdf2-sha512': 210000 });
const BCRYPT_MIN_COST = 10;
const BCRYPT_MAX_COST = 31;

function argon2Rows(algorithm) {
  return algorithm === 'argon2i' ? ARGON2_ROWS.filter((row) => !row.notArgon2i) : ARGON2_ROWS;
}

// The fewest passes a row allows at `memory` KiB (Infinity below every row).
function argon2MinPasses(rows, memory) {
  return Math.min(...rows.filter((row) => memory >= row.memory).map((row) => row.passes), Infinity);
}

// The least memory a row allows with `passes`.
function argon2MinMemory(rows, passes) {
  return Math.min(...rows.filter((row) => passes >= row.passes).map((row) => row.memory), Infinity);
}

// The fewest scrypt p a row allows for N = 2^ln with block size r (a larger
// r counts as the memory it adds: N * r against the row's N * 8).
function scryptMinP(ln, r) {
  const blocks = 2 ** ln * r;
  return Math.min(...SCRYPT_ROWS.filter((row) => blocks >= 2 ** row.ln * SCRYPT_R).map((row) => row.p), Infinity);
}

// ------------------------------------------------------------ units of work

// What each algorithm's time is proportional to: KiB-passes, 1 KiB blocks
// of scrypt's ROMix per N (N * r * p), PBKDF2 iterations, bcrypt's 2^cost.
function unitsOf(algorithm, o) {
  if (algorithm.startsWith('argon2')) return o.memory * o.passes;
  if (algorithm === 'scrypt') return 2 ** o.ln * o.r * o.p;
  if (algorithm === 'bcrypt') return 2 ** o.cost;
  return o.iterations;
}

// Bytes one hash reserves from the pool's budget, output included (the
// pool's rule: scrypt 128 r (N + p + 2), Argon2 its memory).
function memoryOf(algorithm, o) {
  if (algorithm.startsWith('argon2')) return o.memory * KIB + TAG_LENGTH;
  if (algorithm === 'scrypt') return 128 * o.r * (2 ** o.ln + o.p + 2) + TAG_LENGTH;
  return 0;
}

// ------------------------------------------------------------ the plan

/**
 * The hash() parameters for `units` of work (targetMs / ms per unit), within
 * `budget` bytes per hash and the pool's limits. Returns { options (without
 * `algorithm`), bind (OWASP's minimum costs more than `units`: options are
 * the minimum), fits (the memory fits the budget) }. Pure; exported for
 * tests.
 */
function plan(algorithm, units, budget, limits = DEFAULT_LIMITS) {
  if (algorithm.startsWith('argon2')) return planArgon2(algorithm, units, budget, limits);
  if (algorithm === 'scrypt') return planScrypt(units, budget, limits);
  if (algorithm === 'bcrypt') {
    const cost = Math.min(BCRYPT_MAX_COST, Math.max(BCRYPT_MIN_COST, Math.round(Math.log2(Math.max(1, units)))));
    return { options: { cost }, bind: 2 ** BCRYPT_MIN_COST > units * Math.SQRT2, fits: true };
  }
  const min = PBKDF2_MIN[algorithm];
  const iterations = Math.max(min, Math.round(units / 1000) * 1000);
  return { options: { iterations }, bind: min > units, fits: true };
}

// Memory first: the budget per hash (whole MiB, at most the limit
// argon2Memory); then the fewest passes that reach `units` within it and
// that a row allows with the memory they leave (units / passes, rounded up
// to a MiB). When no row allows what `units` asks for, the row that costs
// least (ties: the one with more memory).
function planArgon2(algorithm, units, budget, limits) {
  const rows = argon2Rows(algorithm);
  const capKiB = Math.min(limits.argon2Memory, Math.floor((budget - TAG_LENGTH) / KIB));
  const cap = Math.floor(capKiB / MIB_IN_KIB) * MIB_IN_KIB;
  const argon2 = (memory, passes, bind, fits = true) => ({ options: { memory, passes, parallelism: 1 }, bind, fits });
  const fitting = rows.filter((row) => row.memory <= cap);
  if (fitting.length === 0) {
    const smallest = rows[rows.length - 1];
    return argon2(smallest.memory, smallest.passes, true, false);
  }
  const cheapest = fitting.reduce((a, b) => (b.memory * b.passes < a.memory * a.passes ? b : a));
  const mostPasses = rows[rows.length - 1].passes;
  for (let passes = Math.max(argon2MinPasses(rows, cap), Math.ceil(units / cap)); ; passes++) {
    const memory = Math.ceil(units / passes / MIB_IN_KIB) * MIB_IN_KIB;
    if (memory >= argon2MinMemory(rows, passes)) return argon2(memory, passes, false);
    if (passes >= mostPasses) {
      // Past the last row's passes its memory is the floor: the cheapest
      // row, unless `units` asks for more (a budget near that floor).
      if (units <= cheapest.memory * cheapest.passes) break;
      return argon2(argon2MinMemory(rows, passes), passes, false);
    }
  }
  return argon2(cheapest.memory, cheapest.passes, true);
}

// Memory first again: the largest N (r = 8) whose allowed work (a row's
// fewest p for it) is within `units` (give or take the step of one p),
// then p, then r to close the gap, within the budget. When no row is within `units`, the row that costs
// least (ties: the one with more memory).
function planScrypt(units, budget, limits) {
  const fitsMemory = (ln, r, p) => 128 * r * (2 ** ln + p + 2) + TAG_LENGTH <= budget &&
    128 * r * 2 ** ln <= limits.scryptMemory;
  const scrypt = (ln, r, p, bind, fits = true) => ({ options: { ln, r, p }, bind, fits });
  const fitting = SCRYPT_ROWS.filter((row) => fitsMemory(row.ln, SCRYPT_R, row.p));
  if (fitting.length === 0) {
    const smallest = SCRYPT_ROWS[SCRYPT_ROWS.length - 1];
    return scrypt(smallest.ln, SCRYPT_R, smallest.p, true, false);
  }
  const cost = (row) => 2 ** row.ln * SCRYPT_R * row.p;
  const cheapest = fitting.reduce((a, b) => (cost(b) < cost(a) ? b : a));
  let lnMax = cheapest.ln;
  while (lnMax < 30 && fitsMemory(lnMax + 1, SCRYPT_R, 1)) lnMax++;
  for (let ln = lnMax; ln >= SCRYPT_ROWS[SCRYPT_ROWS.length - 1].ln; ln--) {
    const pMin = scryptMinP(ln, SCRYPT_R);
    if (2 ** ln * SCRYPT_R * pMin > units * SCRYPT_SLACK) continue;
    // Each p adds 128 r bytes beside N's: at most what the budget holds.
    const pFit = Math.floor((budget - TAG_LENGTH) / (128 * SCRYPT_R)) - 2 ** ln - 2;
    if (pFit < pMin) continue;
    const p = Math.min(pFit, Math.max(pMin, Math.round(units / (2 ** ln * SCRYPT_R))));
    let r = Math.max(SCRYPT_R, Math.round(units / (2 ** ln * p)));
    while (r > SCRYPT_R && !fitsMemory(ln, r, p)) r--;
    return scrypt(ln, r, p, false);
  }
  return scrypt(cheapest.ln, SCRYPT_R, cheapest.p, true);
}

// ------------------------------------------------------------ options

/**
 * Reads tune()'s options. `bounds`: { threads, maxMemory } the most the
 * pool allows for concurrency and maxMemory (a pool's own; kdf.tune(): no
 * bound but the ranges). Returns { algorithm, targetMs, concurrency?,
 * maxMemory? } (the unset ones left out).
 */
function readOptions(options, bounds, where = 'options') {
  v.validateObject(options, where);
  v.refuseUnknownKeys(options, where, OPTION_KEYS);
  const algorithm = options.algorithm === undefined ? 'argon2id' : options.algorithm;
  v.validateString(algorithm, `${where}.algorithm`);
  if (!ALGORITHMS.includes(algorithm)) {
    throw errors.invalidArgValue(`${where}.algorithm`, algorithm, `must be one of ${ALGORITHMS.map((a) => `'${a}'`).join(', ')}`);
  }
  if (options.targetMs === undefined) throw errors.invalidArgType(`${where}.targetMs`, 'of type number', undefined);
  v.validateInteger(options.targetMs, `${where}.targetMs`, 1, MAX_TARGET_MS);
  const out = { algorithm, targetMs: options.targetMs };
  if (options.concurrency !== undefined) {
    v.validateInteger(options.concurrency, `${where}.concurrency`, 1, bounds.threads);
    out.concurrency = options.concurrency;
  }
  if (options.maxMemory !== undefined) {
    v.validateInteger(options.maxMemory, `${where}.maxMemory`, 1024, bounds.maxMemory);
    out.maxMemory = options.maxMemory;
  }
  return out;
}

// ------------------------------------------------------------ measuring

const GENEROUS_LIMITS = Object.freeze(Object.fromEntries(
  Object.keys(DEFAULT_LIMITS).map((key) => [key, key === 'passwordLength' ? DEFAULT_LIMITS[key] : 2 ** 53 - 1])));

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// Rounds of `concurrency` hashes started together, after one round that
// warms the threads and their arenas (a larger arena is mapped and faulted
// in then) when a hash is expected to be short: a hash of a second or more
// dwarfs the faults, and a warm-up would double what it costs. Returns the
// median time of one hash, hashes per second over the rounds, one of the
// strings (for requiredLimits) and `spentMs`, all it took. As many rounds
// as fit MEASURE_MS (3 to 20; 1 of a hash that takes that long). Unless
// `full`, a candidate whose first timed round is far off the target
// (`rough`) is not measured further: its time only rescales the next plan.
async function measure(hashOn, algorithm, o, concurrency, targetMs, full, expectedMs) {
  const password = crypto.randomBytes(16);
  const options = { algorithm, ...o, limits: GENEROUS_LIMITS, maxWaitMs: 0 };
  let phc;
  const timed = async () => {
    const t = performance.now();
    phc = await hashOn(password, options);
    return performance.now() - t;
  };
  const round = () => Promise.all(Array.from({ length: concurrency }, timed));
  const began = performance.now();
  if (!(expectedMs >= MEASURE_MS)) await round();
  const start = performance.now();
  const times = await round();
  const first = median(times);
  if (!full && (first > 3 * targetMs || first < targetMs / 3)) {
    return { ms: first, rough: true, spentMs: performance.now() - began };
  }
  // At least 3 rounds of short hashes; one of a hash that fills MEASURE_MS alone.
  const rounds = Math.min(20, Math.max(first >= MEASURE_MS ? 1 : 3, Math.ceil(MEASURE_MS / Math.max(targetMs, first))));
  for (let i = 1; i < rounds; i++) times.push(...await round());
  const end = performance.now();
  return {
    ms: median(times), perSecond: times.length / ((end - start) / 1000), samples: times.length, phc, rough: false,
    spentMs: end - began,
  };
}

const VARIANT_FAMILY = { argon2id: 'argon2', argon2i: 'argon2', argon2d: 'argon2', scrypt: 'scrypt', bcrypt: 'bcrypt' };

/**
 * Tunes `algorithm` on a pool. `pool`: { hash(password, options), stats() }
 * (a kdfpool Pool); `o`: readOptions()'s result with concurrency and
 * maxMemory filled in. Resolves with the result documented in index.d.ts.
 */
async function tuneOn(pool, o) {
  const { algorithm, targetMs, concurrency, maxMemory } = o;
  const budget = Math.floor(maxMemory / concurrency);
  // One hash of the smallest minimum must fit the whole budget.
  const smallest = plan(algorithm, 0, 0).options;
  if (memoryOf(algorithm, { r: SCRYPT_R, ...smallest }) > maxMemory) {
    throw errors.outOfRange('options.maxMemory', `>= ${memoryOf(algorithm, { r: SCRYPT_R, ...smallest })} `
      + `(one ${algorithm} hash at OWASP's smallest minimum reserves that much)`, maxMemory);
  }
  const stats = pool.stats();
  // The first candidate is the cheapest minimum: quick to measure, and the
  // answer to any target below it. Each measurement gives the ms per unit
  // that the next plan uses.
  const tried = [];
  const points = []; // [units, ms] of every measurement
  let spentMs = 0;
  let p = plan(algorithm, 0, budget);
  let expectedMs;
  for (let attempt = 0; attempt < MAX_CANDIDATES; attempt++) {
    const seen = tried.find((t) => sameOptions(t.plan.options, p.options));
    if (seen && !seen.m.rough) break; // nothing new to learn
    // Measured fully: a plan seen before only roughly, the minimum, the last chance.
    const full = seen !== undefined || p.bind || attempt === MAX_CANDIDATES - 1;
    const m = await measure(pool.hash, algorithm, p.options, concurrency, targetMs, full, expectedMs);
    spentMs += m.spentMs;
    if (seen) tried.splice(tried.indexOf(seen), 1);
    tried.push({ plan: p, m });
    points.push([unitsOf(algorithm, p.options), m.ms]);
    if (!m.rough && Math.abs(m.ms / targetMs - 1) <= 0.1) break;
    if (!m.rough && spentMs > SPEND_TARGETS * targetMs + MEASURE_MS) break; // enough spent: the closest so far
    // Far below a long target, a probe of PROBE_MS first (see PROBE_MS).
    const longest = Math.max(...points.map(([, ms]) => ms));
    const aimMs = targetMs > PROBE_MS && longest < PROBE_MS / 2 ? PROBE_MS : targetMs;
    p = plan(algorithm, unitsFor(points, aimMs), budget);
    expectedMs = aimMs;
  }
  // The closest fully measured candidate; the minimum binds if the plan
  // from the last measurement is still the minimum.
  // (The minimum and the last chance are measured fully; so, past the
  // spending bound, is the candidate that stopped it.)
  const measuredFully = tried.filter((t) => !t.m.rough);
  const best = measuredFully.reduce((a, b) => (Math.abs(Math.log(b.m.ms / targetMs)) < Math.abs(Math.log(a.m.ms / targetMs)) ? b : a));
  const last = plan(algorithm, unitsFor(points, targetMs), budget);
  const bind = best.plan.bind && last.bind;
  const options = { algorithm, ...best.plan.options };
  const memoryPerHash = memoryOf(algorithm, best.plan.options);
  return {
    algorithm,
    options,
    targetMs,
    measuredMs: round3(best.m.ms),
    ratio: round3(best.m.ms / targetMs),
    concurrency,
    hashesPerSecond: round3(best.m.perSecond),
    minimumsBind: bind,
    memoryPerHash,
    maxMemory,
    fitsBudget: memoryPerHash * concurrency <= maxMemory,
    hashLimits: requiredLimits([best.m.phc]).hashLimits,
    measured: {
      variant: native.variant(VARIANT_FAMILY[algorithm] || 'sha'),
      threads: stats.threads,
      priority: stats.priority,
      samples: best.m.samples,
      candidates: tried.length,
      loadAverage: round3(os.loadavg()[0]),
    },
  };
}

// The units that should take `targetMs`, from the measurements so far
// ([units, ms]): a secant in log-log space through the two closest to the
// target (time is not quite proportional to work: a larger Argon2 or
// scrypt memory leaves the caches), its slope kept within 0.5..2;
// proportional from a single one.
function unitsFor(points, targetMs) {
  const byCloseness = [...points].sort((a, b) => Math.abs(Math.log(a[1] / targetMs)) - Math.abs(Math.log(b[1] / targetMs)));
  const [u1, t1] = byCloseness[0];
  const other = byCloseness.find(([u]) => u !== u1);
  let slope = 1;
  if (other !== undefined) {
    const [u2, t2] = other;
    slope = Math.min(2, Math.max(0.5, Math.log(t2 / t1) / Math.log(u2 / u1)));
  }
  return u1 * (targetMs / t1) ** (1 / slope);
}

function sameOptions(a, b) {
  return Object.keys(a).every((k) => a[k] === b[k]);
}

function round3(x) {
  return Math.round(x * 1000) / 1000;
}

module.exports = {
  readOptions,
  tuneOn,
  plan,
  unitsOf,
  memoryOf,
  ALGORITHMS,
  ARGON2_ROWS,
  SCRYPT_ROWS,
  PBKDF2_MIN,
  BCRYPT_MIN_COST,
  MAX_TARGET_MS,
};
