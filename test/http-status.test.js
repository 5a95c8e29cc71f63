'use strict';

// The HTTP shape of kdfpool's errors, as `http-errors` gives its own: a
// refusal is 429 with Retry-After in whole seconds (rounded up), a closed
// pool 503, and nothing else carries a status (the server's data, its
// configuration and internal failures are a 500, which is what frameworks
// answer for an error without one). http-errors itself is the reference.

const test = require('node:test');
const assert = require('node:assert/strict');
const createError = require('http-errors');
const kdf = require('..');
const errors = require('../lib/errors');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

// The fields a framework's default error handler reads.
function httpFields(err) {
  return { status: err.status, statusCode: err.statusCode, expose: err.expose, headers: err.headers };
}

test('a refusal is a 429 as http-errors makes it, with Retry-After in whole seconds rounded up', () => {
  for (const [ms, seconds] of [[1, '1'], [999, '1'], [1000, '1'], [1001, '2'], [2500, '3'], [60000, '60']]) {
    const err = errors.saturated(ms);
    assert.ok(err instanceof kdf.PoolSaturatedError);
    const reference = createError(429, err.message, { headers: { 'retry-after': seconds } });
    assert.deepEqual(httpFields(err), httpFields(reference), `retryAfterMs ${ms}`);
  }
  for (const reason of ['deadline', 'displaced']) {
    assert.deepEqual(httpFields(errors.saturated(1500, reason)),
      { status: 429, statusCode: 429, expose: true, headers: { 'retry-after': '2' } });
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
  assert.equal(refused.status, 429);
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
