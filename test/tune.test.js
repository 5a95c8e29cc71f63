'use strict';

// kdf.tune(), pool.tune() and `npx kdfpool tune` (lib/tune.js, bin/kdfpool.js):
// argument errors with node's codes; the shape of a result, whose options
// hash() takes and needsRehash() keeps; OWASP's minimums never undercut
// (targets far below them get the minimum and say so); the memory budget
// and the pool's own threads respected; and the plan (parameters for a
// target, from the measured milliseconds per unit) monotonic: a larger
// target never yields weaker parameters. No timing asserts: whatever this
// machine measures, these hold (the measured 0.7-1.4x of the target is a
// row of `npm run bench`).

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const kdf = require('..');
const tuneLib = require('../lib/tune');

const MiB = 2 ** 20;
const CLI = path.join(__dirname, '..', 'bin', 'kdfpool.js');

// Whether hash() options are at least one of OWASP's rows (lib/tune.js).
function meetsMinimum(algorithm, o) {
  if (algorithm.startsWith('argon2')) {
    const rows = tuneLib.ARGON2_ROWS.filter((row) => algorithm !== 'argon2i' || !row.notArgon2i);
    return o.parallelism === 1 && rows.some((row) => o.memory >= row.memory && o.passes >= row.passes);
  }
  if (algorithm === 'scrypt') {
    return o.r >= 8 && tuneLib.SCRYPT_ROWS.some((row) => 2 ** o.ln * o.r >= 2 ** row.ln * 8 && o.p >= row.p);
  }
  if (algorithm === 'bcrypt') return o.cost >= tuneLib.BCRYPT_MIN_COST;
  return o.iterations >= tuneLib.PBKDF2_MIN[algorithm];
}

// b is weaker than a: no cost parameter larger, one smaller (scrypt: its
// memory N * r and p).
function weaker(algorithm, a, b) {
  let pairs;
  if (algorithm.startsWith('argon2')) pairs = [[a.memory, b.memory], [a.passes, b.passes]];
  else if (algorithm === 'scrypt') pairs = [[2 ** a.ln * a.r, 2 ** b.ln * b.r], [a.p, b.p]];
  else if (algorithm === 'bcrypt') pairs = [[a.cost, b.cost]];
  else pairs = [[a.iterations, b.iterations]];
  return pairs.every(([x, y]) => y <= x) && pairs.some(([x, y]) => y < x);
}

test('argument errors: node\'s codes, as rejections', async () => {
  const pool = kdf.createPool({ name: 'tunearg', threads: 2, maxMemory: 64 * MiB });
  try {
    const cases = [
      [undefined, 'ERR_INVALID_ARG_TYPE', TypeError],
      [null, 'ERR_INVALID_ARG_TYPE', TypeError],
      ['argon2id', 'ERR_INVALID_ARG_TYPE', TypeError],
      [{}, 'ERR_INVALID_ARG_TYPE', TypeError], // targetMs is required
      [{ targetMs: '250' }, 'ERR_INVALID_ARG_TYPE', TypeError],
      [{ targetMs: 0 }, 'ERR_OUT_OF_RANGE', RangeError],
      [{ targetMs: 1.5 }, 'ERR_OUT_OF_RANGE', RangeError],
      [{ targetMs: tuneLib.MAX_TARGET_MS + 1 }, 'ERR_OUT_OF_RANGE', RangeError],
      [{ targetMs: 10, algorithm: 'md5' }, 'ERR_INVALID_ARG_VALUE', TypeError],
      [{ targetMs: 10, algorithm: 'pbkdf2-sha1' }, 'ERR_INVALID_ARG_VALUE', TypeError],
      [{ targetMs: 10, algorithm: 7 }, 'ERR_INVALID_ARG_TYPE', TypeError],
      [{ targetMs: 10, targetMS: 20 }, 'ERR_INVALID_ARG_VALUE', TypeError], // a typo is not ignored
      [{ targetMs: 10, concurrency: 0 }, 'ERR_OUT_OF_RANGE', RangeError],
      [{ targetMs: 10, concurrency: 1.5 }, 'ERR_OUT_OF_RANGE', RangeError],
      [{ targetMs: 10, maxMemory: 1023 }, 'ERR_OUT_OF_RANGE', RangeError],
    ];
    for (const [options, code, ErrorClass] of cases) {
      for (const tune of [kdf.tune, pool.tune]) {
        const p = tune(options);
        assert.ok(p instanceof Promise, 'errors are rejections');
        await assert.rejects(p, (err) => err instanceof ErrorClass && err.code === code && err.name === ErrorClass.name,
          `${JSON.stringify(options)} -> ${code}`);
      }
    }
    await assert.rejects(kdf.tune({ targetMs: 10, concurrency: 1025 }), { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
    // A pool's own threads and budget bound what it can measure.
    await assert.rejects(pool.tune({ targetMs: 10, concurrency: 3 }), { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
    await assert.rejects(pool.tune({ targetMs: 10, maxMemory: 64 * MiB + 1 }), { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
    // A budget below one hash at the smallest minimum (Argon2 7 MiB, scrypt 2^13 * 8 KiB).
    await assert.rejects(kdf.tune({ targetMs: 10, maxMemory: 6 * MiB, concurrency: 1 }),
      { code: 'ERR_OUT_OF_RANGE', name: 'RangeError', message: /maxMemory.*OWASP's smallest minimum/ });
    await assert.rejects(pool.tune({ algorithm: 'scrypt', targetMs: 10, maxMemory: 8 * MiB }),
      { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
  } finally {
    await pool.close();
  }
});

test('the result: options hash() takes and needsRehash() keeps, the capacity, what was measured', async () => {
  const r = await kdf.tune({ algorithm: 'bcrypt', targetMs: 1, concurrency: 1 });
  assert.deepEqual(Object.keys(r).sort(), ['algorithm', 'concurrency', 'fitsBudget', 'hashLimits', 'hashesPerSecond',
    'maxMemory', 'measured', 'measuredMs', 'memoryPerHash', 'minimumsBind', 'options', 'ratio', 'targetMs']);
  assert.equal(r.algorithm, 'bcrypt');
  assert.equal(r.options.algorithm, 'bcrypt');
  assert.equal(r.targetMs, 1);
  assert.equal(r.concurrency, 1);
  assert.ok(r.measuredMs > 0 && r.hashesPerSecond > 0);
  assert.equal(r.ratio, Math.round((r.measuredMs / r.targetMs) * 1000) / 1000);
  assert.equal(r.memoryPerHash, 0);
  assert.equal(r.fitsBudget, true);
  assert.deepEqual(r.hashLimits, {});
  assert.deepEqual(Object.keys(r.measured).sort(), ['candidates', 'loadAverage', 'priority', 'samples', 'threads', 'variant']);
  assert.equal(r.measured.variant, 'portable');
  assert.equal(r.measured.threads, 1);
  assert.equal(r.measured.priority, 'normal', 'kdf.tune() measures on a pool of its own at normal priority');
  assert.ok(r.measured.samples >= 3);
  // Nothing hashes bcrypt cost 10 in 1 ms: the minimum binds.
  assert.deepEqual(r.options, { algorithm: 'bcrypt', cost: 10 });
  assert.equal(r.minimumsBind, true);

  const phc = await kdf.hash('pw', r.options);
  assert.ok(await kdf.verify(phc, 'pw'));
  assert.equal(kdf.needsRehash(phc, r.options), false);
  assert.equal(kdf.stats().completed >= 1, true);
});

test('OWASP\'s minimums: a target below them gets the minimum, and says so', async () => {
  for (const algorithm of ['argon2i', 'pbkdf2-sha512']) {
    const r = await kdf.tune({ algorithm, targetMs: 1, concurrency: 1 });
    assert.ok(meetsMinimum(algorithm, r.options), `${algorithm}: ${JSON.stringify(r.options)}`);
    assert.equal(r.minimumsBind, true, `${algorithm} at 1 ms`);
    if (algorithm.startsWith('pbkdf2')) assert.equal(r.options.iterations, tuneLib.PBKDF2_MIN[algorithm]);
    const phc = await kdf.hash('pw', r.options);
    assert.equal(kdf.needsRehash(phc, r.options), false);
  }
});

test('the plan never undercuts a minimum and keeps to the budget, for any target and budget', () => {
  for (const algorithm of tuneLib.ALGORITHMS) {
    for (const budget of [7.5 * MiB, 10 * MiB, 24 * MiB, 100 * MiB, 2 ** 31]) {
      for (let units = 1; units < 1e10; units *= 1.07) {
        const p = tuneLib.plan(algorithm, units, budget);
        assert.ok(meetsMinimum(algorithm, p.options), `${algorithm} ${units} ${budget}: ${JSON.stringify(p.options)}`);
        if (p.fits) assert.ok(tuneLib.memoryOf(algorithm, p.options) <= budget, `${algorithm} ${units}: over the budget`);
        if (p.bind && p.fits) assert.ok(tuneLib.unitsOf(algorithm, p.options) > units, 'binds only below the minimum');
      }
    }
  }
  // Argon2: memory first (all of the per-hash budget, whole MiB), then passes.
  // The cap: the default limit argon2Memory (256 MiB), or the budget less
  // the output in whole MiB; the memory is trimmed by at most one pass's share.
  for (const [budget, cap] of [[512 * MiB, 256 * 1024], [64 * MiB, 63 * 1024]]) {
    const { memory, passes } = tuneLib.plan('argon2id', 1e7, budget).options;
    assert.ok(memory <= cap && memory >= (cap * (passes - 1)) / passes && memory % 1024 === 0, `${memory} KiB, ${passes} passes`);
  }
  // Below the smallest minimum's memory: that minimum, marked as over the budget.
  assert.deepEqual(tuneLib.plan('argon2id', 1e7, 4 * MiB), { options: { memory: 7168, passes: 5, parallelism: 1 }, bind: true, fits: false });
});

test('a larger target never yields weaker parameters (the plan, over every target and budget)', () => {
  for (const algorithm of tuneLib.ALGORITHMS) {
    for (const budget of [7.5 * MiB, 10 * MiB, 40 * MiB, 200 * MiB, 2 ** 31]) {
      let prev;
      for (let units = 100; units < 2e9; units *= 1.003) {
        const p = tuneLib.plan(algorithm, units, budget).options;
        if (prev !== undefined) {
          assert.ok(!weaker(algorithm, prev, p), `${algorithm}, ${budget} B: ${JSON.stringify(prev)} then ${JSON.stringify(p)}`);
          assert.ok(tuneLib.unitsOf(algorithm, p) >= tuneLib.unitsOf(algorithm, prev), `${algorithm}: less work for more units`);
        }
        prev = p;
      }
    }
  }
});

test('a larger target never yields weaker parameters (measured)', async () => {
  const small = await kdf.tune({ algorithm: 'argon2id', targetMs: 1, concurrency: 1 });
  // Eight times what the minimum took here: more than the minimum on any
  // machine, however loaded (a slower machine moves both).
  const large = await kdf.tune({ algorithm: 'argon2id', targetMs: Math.ceil(8 * small.measuredMs), concurrency: 1 });
  assert.equal(small.minimumsBind, true);
  assert.equal(large.minimumsBind, false);
  assert.ok(!weaker('argon2id', small.options, large.options), `${JSON.stringify(large.options)} after ${JSON.stringify(small.options)}`);
  assert.ok(tuneLib.unitsOf('argon2id', large.options) > tuneLib.unitsOf('argon2id', small.options));
});

test('pool.tune() measures on that pool: its threads, its budget, its priority', async () => {
  const pool = kdf.createPool({ name: 'tpool', threads: 2, maxMemory: 40 * MiB, priority: 'low' });
  try {
    const r = await pool.tune({ algorithm: 'argon2id', targetMs: 1 });
    assert.equal(r.concurrency, 2, 'default: all of its threads');
    assert.equal(r.maxMemory, 40 * MiB, 'default: its budget');
    assert.equal(r.measured.threads, 2);
    assert.equal(r.measured.priority, 'low');
    assert.ok(r.memoryPerHash * 2 <= 40 * MiB && r.fitsBudget);
    assert.ok(pool.stats().completed >= r.measured.samples, 'the hashes ran on this pool');
    // Less than the pool's budget: memory per hash from that.
    const one = await pool.tune({ algorithm: 'argon2id', targetMs: 1, concurrency: 1, maxMemory: 10 * MiB });
    assert.equal(one.concurrency, 1);
    assert.ok(one.options.memory * 1024 <= 10 * MiB, JSON.stringify(one.options));
    // A budget too small for the hashes at once: the minimum, marked as not fitting.
    const tight = await pool.tune({ algorithm: 'argon2id', targetMs: 1, maxMemory: 12 * MiB });
    assert.deepEqual(tight.options, { algorithm: 'argon2id', memory: 7168, passes: 5, parallelism: 1 });
    assert.equal(tight.fitsBudget, false);
  } finally {
    await pool.close();
  }
});

test('npx kdfpool tune: a table, --json, usage errors', () => {
  const cli = (...args) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 120000 });
  const help = cli('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: kdfpool tune/);
  for (const args of [[], ['hash'], ['tune', '--frobnicate'], ['tune', '--target-ms'], ['tune', '--target-ms', 'fast'],
    ['tune', '--max-memory', 'lots'], ['tune', '--algorithm', 'md5'], ['tune', '--target-ms', '0']]) {
    const r = cli(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^kdfpool: /);
  }
  const json = cli('tune', '--algorithm', 'pbkdf2-sha512', '--target-ms=1', '--concurrency', '1', '--max-memory', '64MiB', '--json');
  assert.equal(json.status, 0, json.stderr);
  const r = JSON.parse(json.stdout);
  assert.deepEqual(r.options, { algorithm: 'pbkdf2-sha512', iterations: 210000 });
  assert.equal(r.maxMemory, 64 * MiB);
  assert.equal(r.minimumsBind, true);
  const human = cli('tune', '--algorithm', 'bcrypt', '--target-ms', '1', '--concurrency', '1');
  assert.equal(human.status, 0, human.stderr);
  assert.match(human.stdout, /^hash\(\) options +\{ algorithm: 'bcrypt', cost: 10 \}$/m);
  assert.match(human.stdout, /^capacity +[\d.]+ hashes\/s with 1 at once$/m);
  assert.match(human.stdout, /^OWASP minimums +BIND/m);
  assert.match(human.stdout, /^measured on +1 threads, priority normal, bcrypt variant portable/m);
});

// ---------------------------------------------------------------- work done

// tune() on a pool whose hashes take what `model(options)` says, on a clock
// of the test's own (performance.now, which lib/tune.js reads): no time
// passes, so what is asserted is the hashing tune asks for, not how long
// this machine takes. Calls of one round start together and end together.
async function simulatedTune(targetMs, model, concurrency = 2) {
  const { performance } = require('node:perf_hooks');
  let clock = 0;
  const calls = [];
  const pool = {
    stats: () => ({ threads: concurrency, priority: 'normal' }),
    async hash(password, o) {
      const start = clock;
      const ms = model(o);
      calls.push(ms);
      await new Promise(setImmediate);
      clock = Math.max(clock, start + ms);
      return `$argon2id$v=19$m=${o.memory},t=${o.passes},p=${o.parallelism}$c29tZXNhbHRzb21lc2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g`;
    },
  };
  const now = performance.now;
  performance.now = () => clock;
  try {
    const result = await tuneLib.tuneOn(pool, { algorithm: 'argon2id', targetMs, concurrency, maxMemory: 2 ** 30 });
    return { result, calls, spentMs: clock };
  } finally {
    performance.now = now;
  }
}

test('a target near 10 s takes a few times the target in hashing, not minutes', async (t) => {
  // 6 ms for m=19456 t=2 (this machine's figure), proportional to KiB-passes;
  // then time growing faster than the work (caches), and a fixed cost per hash.
  const perUnit = 6 / (19456 * 2);
  const models = {
    proportional: (o) => o.memory * o.passes * perUnit,
    'faster than the work': (o) => 2 + (o.memory * o.passes) ** 1.08 * perUnit * 0.45,
  };
  for (const targetMs of [10000, 8000]) {
    for (const [name, model] of Object.entries(models)) {
      const { result, calls, spentMs } = await simulatedTune(targetMs, model);
      const near = calls.filter((ms) => ms > targetMs / 3).length;
      t.diagnostic(`${targetMs} ms, ${name}: ${calls.length} hashes (${near} near the target), ` +
        `${(spentMs / 1000).toFixed(1)} s of hashing, ratio ${result.ratio}`);
      // The target's own hashes: a probe, then one round (2 hashes) per
      // candidate near it, a few candidates at most.
      assert.ok(spentMs <= 3 * targetMs, `${name}: ${(spentMs / 1000).toFixed(1)} s spent for a ${targetMs / 1000} s target`);
      assert.ok(near <= 6, `${name}: ${near} hashes near the target`);
      assert.ok(result.ratio > 0.8 && result.ratio < 1.25, `${name}: ratio ${result.ratio}`);
    }
  }
  // A short target is measured as before: at least 3 rounds of the answer.
  const short = await simulatedTune(250, models.proportional);
  assert.ok(short.result.measured.samples >= 6, `${short.result.measured.samples} samples`);
});
