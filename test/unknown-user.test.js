'use strict';

// Unknown users cost the same: verifyUnknown(password[, options]) resolves
// false after the work of a real failed verify at the target `options`
// names (hash()'s; default: hash()'s defaults) on the same pool: the same
// KDF job (algorithm, parameters, input sizes, the pepper's current key),
// the same queueing (signal, maxWaitMs, fairKey) and limits. Shown two
// ways: the native submissions of both are recorded and compared field by
// field (deterministic), and their run times are compared (median within
// 10 %, interleaved samples of the job's own native run time from the
// tracing channel, which a loaded machine disturbs far less than wall time).
// No dummy hash is computed first: the first call submits one job.

const test = require('node:test');
const assert = require('node:assert/strict');
const dc = require('node:diagnostics_channel');

// Before lib/ loads: the addon's submissions recorded, field by field.
const { submissions } = require('./helpers/submissions');
const kdf = require('..');
const { gate } = require('./helpers/gate');


const K1 = 'rotated-out-pepper';
const K2 = Buffer.from('current-pepper-77');
const NAMED = { current: 'k2', keys: { k1: K1, k2: K2 } };

const TARGETS = {
  'argon2id, pool pepper, associated data': { memory: 256, passes: 2, parallelism: 2, tagLength: 48, saltLength: 24, associatedData: 'tenant-a' },
  'argon2i, the call\'s own pepper': { algorithm: 'argon2i', memory: 64, passes: 3, secret: 'call-pepper' },
  'argon2d, the call\'s named keys': { algorithm: 'argon2d', memory: 64, passes: 1, secret: { current: 'b', keys: { a: 'x', b: 'call-b' } } },
  scrypt: { algorithm: 'scrypt', ln: 6, r: 4, p: 2, tagLength: 40, saltLength: 20 },
  'pbkdf2-sha512': { algorithm: 'pbkdf2-sha512', iterations: 1000, saltLength: 12 },
  'pbkdf2-sha256': { algorithm: 'pbkdf2-sha256', iterations: 1000 },
  bcrypt: { algorithm: 'bcrypt', cost: 5 },
};

test('verifyUnknown submits the job a real failed verify submits: same KDF, parameters, sizes, pepper, queueing', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'uu.job', secret: NAMED });
  try {
    for (const [name, target] of Object.entries(TARGETS)) {
      const stored = await pool.hash('the right password', target);
      const call = { ...target, maxWaitMs: 5000, fairKey: 'client-7' };
      const real = await submissions(async () => assert.equal(await pool.verify(stored, 'a wrong password', call), false));
      const unknown = await submissions(async () => assert.equal(await pool.verifyUnknown('a wrong password', call), false));
      assert.equal(real.length, 1, name);
      assert.deepEqual(unknown, real, name);
      if (target.algorithm === undefined) assert.equal(unknown[0].secret, K2.toString('hex'), 'the current key');
      // On the calling thread too.
      const realSync = await submissions(() => assert.equal(pool.verifySync(stored, 'a wrong password', target), false));
      const unknownSync = await submissions(() => assert.equal(pool.verifyUnknownSync('a wrong password', target), false));
      assert.deepEqual(unknownSync, realSync, `${name} (sync)`);
      assert.equal(realSync[0].queueing, 'sync');
    }
    // The default target is hash()'s defaults (argon2id, 19 MiB), on the default pool too.
    const stored = await kdf.hash('the right password');
    const real = await submissions(() => kdf.verify(stored, 'a wrong password'));
    const unknown = await submissions(() => kdf.verifyUnknown('a wrong password'));
    assert.deepEqual(unknown, real);
    assert.deepEqual(unknown[0].numbers.slice(2, 5), [1, 19456, 2]);
  } finally {
    await pool.close();
  }
});

test('no dummy is hashed first: one job per call, the target and pepper read at each call', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'uu.one' });
  try {
    const T = { memory: 128, passes: 1 };
    for (let i = 0; i < 3; i++) {
      const before = pool.stats().submitted;
      const jobs = await submissions(() => pool.verifyUnknown('pw', { ...T, passes: 1 + i }));
      assert.equal(jobs.length, 1);
      assert.equal(pool.stats().submitted, before + 1);
      assert.equal(jobs[0].numbers[4], 1 + i, 'passes follow the target of this call');
    }
    // The default pool's pepper, changed by configure(), is used at once.
    try {
      kdf.configure({ secret: { current: 'n1', keys: { n1: 'first' } } });
      const a = await submissions(() => kdf.verifyUnknown('pw', T));
      kdf.configure({ secret: { current: 'n2', keys: { n1: 'first', n2: 'second' } } });
      const b = await submissions(() => kdf.verifyUnknown('pw', T));
      assert.deepEqual([a[0].secret, b[0].secret], [Buffer.from('first').toString('hex'), Buffer.from('second').toString('hex')]);
    } finally {
      kdf.configure({ secret: null });
    }
  } finally {
    await pool.close();
  }
});

test('the same limits, refusals and argument errors as verify', async () => {
  const T = { memory: 1024, passes: 2 };
  const stored = await kdf.hash('pw', T);
  const pool = kdf.createPool({ threads: 1, maxQueue: 0, name: 'uu.lim', hashLimits: { argon2Passes: 1 } });
  try {
    const same = async (real, unknown) => {
      const [a, b] = await Promise.all([real.then(() => null, (e) => e), unknown.then(() => null, (e) => e)]);
      assert.ok(a !== null, 'verify refused');
      assert.deepEqual({ name: b && b.name, code: b && b.code, limit: b && b.limit, reason: b && b.reason },
        { name: a.name, code: a.code, limit: a.limit, reason: a.reason });
    };
    await same(pool.verify(stored, 'pw', T), pool.verifyUnknown('pw', T)); // argon2Passes
    await same(pool.verify(stored, 'p'.repeat(5000), { ...T, limits: { argon2Passes: 2 } }),
      pool.verifyUnknown('p'.repeat(5000), { ...T, limits: { argon2Passes: 2 } })); // passwordLength
    // A full pool refuses both alike (maxQueue 0, its thread held).
    const held = gate(pool);
    try {
      const opts = { memory: 64, passes: 1 };
      const small = await kdf.hash('pw', opts);
      await same(pool.verify(small, 'pw', opts), pool.verifyUnknown('pw', opts));
    } finally {
      held.release();
      await held.done;
    }
    // A signal and a deadline, as for verify.
    await assert.rejects(pool.verifyUnknown('pw', { memory: 64, passes: 1, signal: AbortSignal.abort() }), { name: 'AbortError', code: 'ABORT_ERR' });
  } finally {
    await pool.close();
  }
});

test('hard to misuse: a stored hash or a missing password is an argument error, verify(undefined) names verifyUnknown', async () => {
  const stored = await kdf.hash('pw', { memory: 64, passes: 1 });
  // verifyUnknown(stored, password): the password lands in options' place.
  await assert.rejects(kdf.verifyUnknown(stored, 'pw'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => kdf.verifyUnknownSync(stored, 'pw'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(kdf.verifyUnknown(), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /"password"/ });
  await assert.rejects(kdf.verifyUnknown(null), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(kdf.verifyUnknown('pw', { memoryCost: 65536 }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /`memory`/ });
  // The database had no row: verify() refuses it, and says what to call instead.
  for (const missing of [undefined, null]) {
    await assert.rejects(kdf.verify(missing, 'pw'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /verifyUnknown\(password/ });
    assert.throws(() => kdf.verifySync(missing, 'pw'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /verifyUnknown/ });
  }
  await assert.rejects(kdf.verify('', 'pw'), { name: 'InvalidHashError', code: 'ERR_KDF_INVALID_HASH' });
  // Always false, whatever the password.
  for (const pw of ['', 'pw', Buffer.alloc(0), 'x'.repeat(4096)]) assert.equal(await kdf.verifyUnknown(pw, { memory: 64, passes: 1 }), false);
});

// ---------------------------------------------------------------- timing

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Native run times (ms) of `pairs` interleaved real failed verifies (of the
// `stored` strings in turn: users have salts of their own) and unknown-user
// verifies, the order alternating per pair, one job at a time.
async function runTimes(pool, stored, realTarget, unknownTarget, pairs) {
  const times = { real: [], unknown: [] };
  const labels = new Map();
  let label;
  const channel = dc.tracingChannel('kdfpool:job');
  const handlers = {
    start: (ctx) => { if (label !== undefined) labels.set(ctx, label); },
    end() {},
    asyncStart() {},
    asyncEnd: (ctx) => {
      const which = labels.get(ctx);
      if (which !== undefined && typeof ctx.runMs === 'number') times[which].push(ctx.runMs);
      labels.delete(ctx);
    },
    error() {},
  };
  channel.subscribe(handlers);
  let next = 0;
  const once = async (which) => {
    label = which;
    const call = which === 'real'
      ? pool.verify(stored[next++ % stored.length], 'a wrong password', realTarget)
      : pool.verifyUnknown('a wrong password', unknownTarget);
    label = undefined;
    assert.equal(await call, false);
  };
  try {
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? ['real', 'unknown'] : ['unknown', 'real'];
      for (const which of order) await once(which);
    }
  } finally {
    channel.unsubscribe(handlers);
  }
  assert.equal(times.real.length, pairs);
  assert.equal(times.unknown.length, pairs);
  return times;
}

test('timing: verifyUnknown\'s run time is a real failed verify\'s (median within 10 %)', async (t) => {
  // Argon2id at 2 MiB (under a millisecond here), a named pepper: the pool
  // of a login service. 'normal' priority: a loaded host starves 'low' threads
  // unevenly. Warm-up first (the worker's arena is mapped once).
  const pool = kdf.createPool({ threads: 1, priority: 'normal', name: 'uu.time', secret: NAMED });
  try {
    const T = { memory: 2048, passes: 2 };
    const stored = [];
    for (let i = 0; i < 16; i++) stored.push(await pool.hash(`the right password ${i}`, T));
    await runTimes(pool, stored, T, T, 5);
    // Samples pool over rounds (never a round picked): on a loaded machine a
    // burst can move one round's median; more samples settle it.
    const all = { real: [], unknown: [] };
    let ratio;
    for (let round = 0; round < 6; round++) {
      const times = await runTimes(pool, stored, T, T, 80);
      all.real.push(...times.real);
      all.unknown.push(...times.unknown);
      ratio = median(all.unknown) / median(all.real);
      t.diagnostic(`round ${round + 1}: ${all.real.length} pairs, median run real ${median(all.real).toFixed(3)} ms, ` +
        `unknown ${median(all.unknown).toFixed(3)} ms, ratio ${ratio.toFixed(3)}`);
      if (Math.abs(ratio - 1) <= 0.05) break;
    }
    assert.ok(Math.abs(ratio - 1) <= 0.10, `median run time ratio unknown/real = ${ratio.toFixed(3)}, not within 10 %`);

    // The measurement tells targets apart: twice the memory is not "the same".
    const control = await runTimes(pool, stored, T, { ...T, memory: 4096 }, 20);
    const controlRatio = median(control.unknown) / median(control.real);
    t.diagnostic(`control (4 MiB against 2 MiB): ratio ${controlRatio.toFixed(3)}`);
    assert.ok(controlRatio > 1.3, `the harness cannot tell 4 MiB from 2 MiB (ratio ${controlRatio.toFixed(3)})`);
  } finally {
    await pool.close();
  }
});
