'use strict';

// Per-client fairness (fairKey): the option on every call that takes
// options, displacement of the job served last, names that never leave
// lib/, and every accepted call settling exactly once under random aborts,
// displacements and closes. The discipline itself (tags, lag, displacement
// rules) is tested in C: test/native/test_sched.c, its simulation
// sim_sched.c, and test_pool.c. No timing asserts: threads are held by
// gates.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const util = require('node:util');
const fc = require('fast-check');
const kdf = require('..');
const { callOptions } = require('../lib/submit');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { scaled } = require('./helpers/scale');

const pbkdf2Expect = (it) => crypto.pbkdf2Sync('pw', 'salt', it, 32, 'sha256');

test('fairKey is accepted by every call that takes options, and checked like node checks options', async () => {
  const pool = kdf.createPool({ threads: 1 });
  try {
    const opts = { fairKey: 'client-1' };
    assert.deepEqual(await pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', opts), pbkdf2Expect(10));
    assert.equal((await pool.scrypt('pw', 'salt', 16, { N: 16, fairKey: 'c' })).length, 16);
    const argon = await pool.argon2('argon2id', {
      message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 16, memory: 8, passes: 1, fairKey: 'c',
    });
    assert.equal(argon.length, 16);
    const phc = await pool.hash('pw', { algorithm: 'pbkdf2-sha256', iterations: 1000, fairKey: 'c' });
    assert.equal(await pool.verify(phc, 'pw', { fairKey: 'c' }), true);
    assert.equal(pool.verifySync(phc, 'pw', { fairKey: 'c' }), true);
    const key = await new Promise((resolve, reject) => {
      pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', opts, (err, k) => (err ? reject(err) : resolve(k)));
    });
    assert.deepEqual(key, pbkdf2Expect(10));
    assert.deepEqual(await kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256', opts), pbkdf2Expect(10));

    for (const [bad, code] of [[42, 'ERR_INVALID_ARG_TYPE'], [null, 'ERR_INVALID_ARG_TYPE'],
      [{}, 'ERR_INVALID_ARG_TYPE'], ['', 'ERR_OUT_OF_RANGE'], ['x'.repeat(1025), 'ERR_OUT_OF_RANGE']]) {
      await assert.rejects(pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: bad }), { code });
      await assert.rejects(pool.hash('pw', { fairKey: bad }), { code });
      assert.throws(() => pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: bad }, () => {}), { code });
    }
    assert.deepEqual(await pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: 'x'.repeat(1024) }), pbkdf2Expect(10));
    // A misspelling in node's options objects is named, not ignored.
    await assert.rejects(pool.scrypt('pw', 'salt', 16, { N: 16, fairkey: 'c' }),
      { code: 'ERR_INVALID_ARG_VALUE', message: /did you mean "fairKey"\?/ });
  } finally {
    await pool.close();
  }
});

test('a full queue: the job served last gives way to a call served before it, with a hint', async () => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 3 });
  const g = gate(pool);
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const heavy = [1, 2, 3].map((i) => pool.pbkdf2('pw', 'salt', 100 + i, 32, 'sha256', { fairKey: 'heavy' }));
    const settled = heavy.map((p) => p.then(() => 'ok', (err) => err));
    const light = pool.pbkdf2('pw', 'salt', 50, 32, 'sha256', { fairKey: 'light' });
    const displaced = await settled[2];
    assert.ok(displaced instanceof kdf.PoolSaturatedError);
    assert.equal(displaced.code, 'ERR_KDF_POOL_SATURATED');
    assert.equal(displaced.reason, 'displaced');
    assert.equal(displaced.retryable, true);
    assert.ok(Number.isInteger(displaced.retryAfterMs) && displaced.retryAfterMs >= 1);
    assert.match(displaced.stack, /placed more than one job ahead of this one/); // the log line; the message is the client's
    // The heavy key itself is refused: its call would be served last.
    await assert.rejects(pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: 'heavy' }),
      { code: 'ERR_KDF_POOL_SATURATED', reason: 'queue_full' });
    const s = pool.stats();
    assert.equal(s.displaced, 1);
    assert.equal(s.queued, 3);
    assert.equal(s.keys, 2);
    g.release();
    await g.done;
    assert.deepEqual(await light, pbkdf2Expect(50));
    assert.equal(await settled[0], 'ok');
    assert.equal(await settled[1], 'ok');
    const end = pool.stats();
    assert.equal(end.keys, 0);
    assert.equal(end.submitted, end.completed + end.failed + end.cancelled + end.shed + end.displaced);
  } finally {
    g.release();
    await pool.close();
  }
});

test('calls without fairKey share one key: a full queue refuses them in FIFO order', async () => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 3 });
  const g = gate(pool);
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const queued = [11, 12, 13].map((i) => pool.pbkdf2('pw', 'salt', i, 32, 'sha256'));
    await assert.rejects(pool.pbkdf2('pw', 'salt', 15, 32, 'sha256'), { reason: 'queue_full' });
    assert.equal(pool.stats().displaced, 0);
    // A named client that has not used the pool is served before the shared
    // key's third job, more than one job after it: that job gives way to it.
    // (The second, one job after it, would not: equals never displace.)
    const named = pool.pbkdf2('pw', 'salt', 14, 32, 'sha256', { fairKey: 'named' });
    await assert.rejects(queued[2], { reason: 'displaced' });
    assert.equal(pool.stats().displaced, 1);
    g.release();
    assert.deepEqual(await queued[0], pbkdf2Expect(11));
    assert.deepEqual(await queued[1], pbkdf2Expect(12));
    assert.deepEqual(await named, pbkdf2Expect(14));
  } finally {
    g.release();
    await pool.close();
  }
});

test('fairKey is hashed in native code: stats and errors show neither the name nor its key', async () => {
  const NAME = 'tenant-7f3a@example.com';
  // What a call hands to native submit(): the name, which native code
  // hashes with the process's one key (pool_fair_key).
  const opts = callOptions({ fairKey: NAME, maxWaitMs: 5 }, 'options', 'own');
  assert.deepEqual(Object.keys(opts).sort(), ['fairKey', 'maxWaitMs']);
  assert.equal(opts.fairKey, NAME);
  const pool = kdf.createPool({ threads: 1, maxQueue: 1 });
  const g = gate(pool);
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const queued = pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: NAME });
    const errs = [];
    errs.push(await pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: `${NAME}-2` }).catch((e) => e));
    errs.push(await pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: NAME }).catch((e) => e));
    errs.push(await pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: 42 }).catch((e) => e));
    assert.equal(errs.length, 3);
    const during = pool.stats();
    g.release();
    await queued;
    const shown = [JSON.stringify(during), util.inspect(pool.stats(), { depth: 5 }),
      ...errs.flatMap((e) => [e.message, e.stack, util.inspect(e), JSON.stringify(e)])].join('\n');
    assert.ok(!shown.includes('tenant'), 'a name shows in stats or errors');
  } finally {
    g.release();
    await pool.close();
  }
});

test('every accepted call settles exactly once under random keys, aborts, displacements and closes', async () => {
  const runs = scaled(40, 8);
  await fc.assert(fc.asyncProperty(
    fc.record({
      threads: fc.integer({ min: 1, max: 2 }),
      maxQueue: fc.integer({ min: 1, max: 4 }),
      calls: fc.array(fc.record({
        key: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
        iterations: fc.integer({ min: 1, max: 20000 }),
        abortAfter: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      }), { minLength: 1, maxLength: 24 }),
      closeAfter: fc.integer({ min: 0, max: 30 }),
    }),
    async ({ threads, maxQueue, calls, closeAfter }) => {
      const pool = kdf.createPool({ threads, maxQueue });
      const g = gate(pool);
      const settled = [];
      const outcomes = [];
      const turns = [];
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i];
        const ac = c.abortAfter === undefined ? undefined : new AbortController();
        const options = { signal: ac && ac.signal, fairKey: c.key === undefined ? undefined : `k${c.key}` };
        settled[i] = 0;
        const p = pool.pbkdf2('pw', 'salt', c.iterations, 32, 'sha256', options);
        outcomes[i] = p.then((key) => {
          settled[i]++;
          assert.deepEqual(key, pbkdf2Expect(c.iterations));
          return 'ok';
        }, (err) => {
          settled[i]++;
          assert.ok(err instanceof kdf.PoolSaturatedError || err.name === 'AbortError' ||
            err instanceof kdf.PoolClosedError, `unexpected ${err && err.stack}`);
          return err.reason || err.name;
        });
        if (ac) turns.push((async () => {
          for (let t = 0; t < c.abortAfter; t++) await new Promise(setImmediate);
          ac.abort();
        })());
        if (i === 2) g.release(); // the first calls queue behind the gate
      }
      g.release();
      for (let t = 0; t < closeAfter; t++) await new Promise(setImmediate);
      await Promise.all([pool.close(), ...turns, g.done.catch(() => {})]);
      await Promise.all(outcomes);
      for (let t = 0; t < 3; t++) await new Promise(setImmediate); // a late second settle would show here
      assert.deepEqual(settled, calls.map(() => 1));
    },
  ), { numRuns: runs });
});
