'use strict';

// kdf.readiness(pool, options): the state machine on a given clock (not
// ready only after `saturatedForMs` of saturated samples in a row, ready
// again only after `recoverForMs` of calm ones, a single calm or saturated
// sample restarting the count), the sample's verdict from two stats()
// (refusals for a full pool, not displacements; the predicted queue wait
// with queueWaitMs), a real pool held full by a gate going not ready and
// back, the HTTP handler, and its options' errors.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { ReadinessState, verdict } = require('../lib/readiness');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

test('the state machine: not ready after saturatedForMs saturated, ready after recoverForMs calm, streaks restart', () => {
  const s = new ReadinessState({ saturatedForMs: 1000, recoverForMs: 3000 }, 0);
  assert.equal(s.ready, true);
  // Saturated from t=100: still ready at 1099, not ready at 1100.
  assert.equal(s.observe('refusing', 100), true);
  assert.equal(s.observe('refusing', 1099), true);
  // One calm sample restarts the count.
  assert.equal(s.observe(null, 1100), true);
  assert.equal(s.observe('refusing', 1200), true);
  assert.equal(s.observe('queue_wait', 2199), true);
  assert.equal(s.observe('refusing', 2200), false);
  assert.deepEqual(s.status(), { ready: false, saturated: true, reason: 'refusing', sinceMs: 2200 });
  // Calm from 2300; a saturated sample at 4000 restarts; ready at 7100.
  assert.equal(s.observe(null, 2300), false);
  assert.deepEqual(s.status(), { ready: false, saturated: false, reason: 'refusing', sinceMs: 2200 });
  assert.equal(s.observe('refusing', 4000), false);
  assert.equal(s.observe(null, 4100), false);
  assert.equal(s.observe(null, 7099), false);
  assert.equal(s.observe(null, 7100), true);
  assert.deepEqual(s.status(), { ready: true, saturated: false, reason: null, sinceMs: 7100 });
  // saturatedForMs 0: the first saturated sample.
  const eager = new ReadinessState({ saturatedForMs: 0, recoverForMs: 0 }, 0);
  assert.equal(eager.observe('refusing', 5), false);
  assert.equal(eager.observe(null, 6), true);
});

test('a sample\'s verdict: refusals of a full pool, not displacements; the predicted wait only with queueWaitMs', () => {
  const base = { refused: 10, displaced: 4, estimatedWaitMs: 0 };
  assert.equal(verdict(base, { ...base }, 0), null);
  assert.equal(verdict(base, { ...base, refused: 11 }, 0), 'refusing');
  assert.equal(verdict(base, { ...base, refused: 12, displaced: 6 }, 0), null, 'displaced calls: the pool serves both clients');
  assert.equal(verdict(base, { ...base, estimatedWaitMs: 900 }, 0), null);
  assert.equal(verdict(base, { ...base, estimatedWaitMs: 900 }, 500), 'queue_wait');
  assert.equal(verdict(base, { ...base, estimatedWaitMs: 500 }, 500), null);
});

test('a pool held full goes not ready while it refuses, then ready again once calm; the handler answers 503 then 200', async () => {
  const pool = kdf.createPool({ name: 'ready', threads: 1, maxQueue: 0 });
  const probe = kdf.readiness(pool, { saturatedForMs: 30, recoverForMs: 30, intervalMs: 10 });
  const held = gate(pool);
  held.done.catch(() => {});
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    assert.equal(probe.ready, true, 'held but refusing nothing yet');
    // Keep refusing until the probe gives up on the replica.
    const refusals = [];
    await until(() => {
      refusals.push(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').catch((e) => e));
      return !probe.ready;
    }, 'the probe to say not ready');
    const errs = await Promise.all(refusals);
    assert.ok(errs.every((e) => e.code === 'ERR_KDF_POOL_SATURATED' && e.scope === 'pool'));
    assert.deepEqual({ ...probe.status(), sinceMs: 0 }, { ready: false, saturated: true, reason: 'refusing', sinceMs: 0 });
    const busy = answer(probe);
    assert.equal(busy.status, 503);
    assert.deepEqual(JSON.parse(busy.body).reason, 'refusing');
    held.release();
    await until(() => probe.ready, 'the probe to say ready again');
    const ok = answer(probe);
    assert.equal(ok.status, 200);
    assert.equal(JSON.parse(ok.body).ready, true);
  } finally {
    held.release();
    probe.close();
    await pool.close();
  }
  assert.equal(probe.ready, false, 'a closed probe is not ready');
  assert.equal(probe.status().reason, 'closed');
});

test('a closed pool makes its probe not ready for good', async () => {
  const pool = kdf.createPool({ name: 'gone', threads: 1 });
  const probe = kdf.readiness(pool, { intervalMs: 10 });
  await pool.close();
  await until(() => !probe.ready, 'the probe to see the pool closed');
  assert.equal(probe.status().reason, 'closed');
  probe.close();
});

test('the default pool (the module) is a pool too', () => {
  const probe = kdf.readiness(kdf);
  assert.equal(probe.ready, true);
  probe.close();
});

// What probe.handler writes, through a stand-in response.
function answer(probe) {
  const out = {};
  probe.handler({}, {
    writeHead(status, headers) {
      out.status = status;
      out.headers = headers;
    },
    end(body) {
      out.body = body;
    },
  });
  assert.equal(out.headers['Cache-Control'], 'no-store');
  return out;
}

test('bad arguments: ERR_INVALID_ARG_TYPE, ERR_OUT_OF_RANGE, an unknown option', () => {
  assert.throws(() => kdf.readiness({}), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  assert.throws(() => kdf.readiness(null), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  assert.throws(() => kdf.readiness(kdf, { saturatedForMs: -1 }), { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
  assert.throws(() => kdf.readiness(kdf, { intervalMs: 1 }), { code: 'ERR_OUT_OF_RANGE', name: 'RangeError' });
  assert.throws(() => kdf.readiness(kdf, { recoverForMs: '5' }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  assert.throws(() => kdf.readiness(kdf, { saturatedForMS: 5 }), { code: 'ERR_INVALID_ARG_VALUE', name: 'TypeError' });
});
