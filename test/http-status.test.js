'use strict';

// The HTTP shape of kdfpool's errors, as `http-errors` gives its own: a
// refusal because the pool is full is 503, one because the client is over
// its share 429, both with Retry-After in whole seconds (rounded up) and a
// message for the client; a closed pool 503, and nothing else carries a
// status (the server's data, its configuration and internal failures are a
// 500, which is what frameworks answer for an error without one).
// http-errors itself is the reference.

const test = require('node:test');
const assert = require('node:assert/strict');
const createError = require('http-errors');
const kdf = require('..');
const errors = require('../lib/errors');
const native = require('../lib/native');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

// The fields a framework's default error handler reads.
function httpFields(err) {
  return { status: err.status, statusCode: err.statusCode, expose: err.expose, headers: err.headers };
}

test('a full pool is a 503, a client over its share a 429, as http-errors makes them, with Retry-After in whole seconds rounded up', () => {
  for (const [ms, seconds] of [[1, '1'], [999, '1'], [1000, '1'], [1001, '2'], [2500, '3'], [60000, '60']]) {
    const full = errors.saturated(ms);
    assert.ok(full instanceof kdf.PoolSaturatedError);
    assert.equal(full.scope, 'pool');
    const reference = createError(503, full.message, { headers: { 'retry-after': seconds }, expose: true });
    assert.deepEqual(httpFields(full), httpFields(reference), `retryAfterMs ${ms}`);
    const overShare = errors.saturated(ms, 'queue_full', undefined, undefined, true);
    assert.equal(overShare.scope, 'client');
    assert.deepEqual(httpFields(overShare), httpFields(createError(429, overShare.message, { headers: { 'retry-after': seconds } })));
  }
  // A displaced call gave its place to a call placed more than one job ahead: its own demand.
  assert.deepEqual([errors.saturated(1500, 'displaced')].map((e) => [e.scope, httpFields(e)]),
    [['client', { status: 429, statusCode: 429, expose: true, headers: { 'retry-after': '2' } }]]);
  assert.deepEqual([errors.saturated(1500, 'deadline')].map((e) => [e.scope, httpFields(e)]),
    [['pool', { status: 503, statusCode: 503, expose: true, headers: { 'retry-after': '2' } }]]);
  for (const [status, overShare] of [[status => status.EFULL, true], [status => status.ETIMEDOUT, true],
    [status => status.EFULL, undefined], [status => status.EDISPLACED, undefined]]) {
    const record = { status: status(native.constants.status), retryAfterMs: 10, overShare };
    const err = errors.fromRecord(record);
    const client = overShare === true || record.status === native.constants.status.EDISPLACED;
    assert.deepEqual([err.code, err.name, err.retryable, err.scope, err.status],
      ['ERR_KDF_POOL_SATURATED', 'PoolSaturatedError', true, client ? 'client' : 'pool', client ? 429 : 503]);
  }
});

test('a closed pool is a 503 whose message is not for the client', () => {
  const err = new kdf.PoolClosedError();
  assert.deepEqual(httpFields(err), httpFields(createError(503)));
  assert.equal(err.expose, false);
  assert.equal(err.headers, undefined);
});

test('the server-side errors carry no status (a 500 everywhere)', () => {
  const serverSide = [
    new kdf.MemoryLimitError(2 ** 30, 2 ** 20),
    errors.hashOverLimit('bcrypt cost', 31, 'bcryptCost', 16),
    errors.invalidHash('no algorithm'),
    new kdf.KdfError('Out of memory', 'ERR_KDF_OUT_OF_MEMORY'),
    new kdf.AbortError(),
    errors.invalidArgType('password', 'a string', 1),
  ];
  for (const err of serverSide) {
    assert.deepEqual(httpFields(err), { status: undefined, statusCode: undefined, expose: undefined, headers: undefined },
      err.name);
  }
});

test('the errors a pool really raises carry them', async () => {
  const pool = kdf.createPool({ name: 'httpst', threads: 1, maxQueue: 0 });
  const held = gate(pool);
  held.done.catch(() => {});
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  let refused;
  try {
    refused = await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
  } finally {
    held.release();
    await pool.close();
  }
  assert.ok(refused instanceof kdf.PoolSaturatedError);
  assert.equal(refused.scope, 'pool');
  assert.equal(refused.status, 503);
  assert.deepEqual(refused.headers, { 'retry-after': String(Math.ceil(refused.retryAfterMs / 1000)) });
  const closed = await pool.hash('pw').then(() => null, (e) => e);
  assert.ok(closed instanceof kdf.PoolClosedError);
  assert.equal(closed.statusCode, 503);
  const stored = kdf.hashSync('pw', { algorithm: 'bcrypt', cost: 4 }).replace('$04$', '$31$');
  const limited = await kdf.verify(stored, 'pw').then(() => null, (e) => e);
  assert.ok(limited instanceof kdf.HashLimitError);
  assert.equal(limited.status, undefined);
});

test('the default pool has a deadline (maxWaitMs 2000) that configure() changes or removes', () => {
  assert.equal(kdf.stats().maxWaitMs, 2000);
  try {
    kdf.configure({ maxWaitMs: 0 });
    assert.equal(kdf.stats().maxWaitMs, 0);
  } finally {
    kdf.configure({ maxWaitMs: 2000 });
  }
  // Pools of createPool() have none unless given one.
  const pool = kdf.createPool({ name: 'nodl', threads: 1 });
  assert.equal(pool.stats().maxWaitMs, 0);
  return pool.close();
});
