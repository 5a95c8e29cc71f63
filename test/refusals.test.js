'use strict';

// Refusals are quiet: a PoolSaturatedError is a real Error whose `stack` is
// one line (no frames are captured: a saturated pool makes them by the
// hundred thousand, and frameworks log err.stack for each), naming the
// pool and the reason. A deadline refusal says how long the call would
// have waited and what its deadline was, since it comes with room left in
// the queue. One truth for the client: the message (what frameworks put
// in a 503's or 429's body) and the log line give the seconds of
// Retry-After, and the message names no pool. What it costs is bench/refusals.js's
// subject, not a test's.

const test = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { once } = require('node:events');
const { format, inspect } = require('node:util');
const { isNativeError } = require('node:util').types;
const kdf = require('..');
const errors = require('../lib/errors');
const { gate, heldPool } = require('./helpers/gate');
const { until } = require('./helpers/until');

const ONE_LINE = /^PoolSaturatedError \[ERR_KDF_POOL_SATURATED\]: [^\n]+$/;

// Until `ms` milliseconds have passed since `since` (performance.now()).
const past = (since, ms) => until(() => performance.now() - since > ms, `${ms} ms to pass`);

const TAGS = { queue_full: 'queue full', deadline: 'deadline', displaced: 'displaced' };

// The shape every refusal keeps, whatever its reason.
function assertRefusal(err, reason, pool) {
  assert.ok(err instanceof kdf.PoolSaturatedError, `expected PoolSaturatedError, got ${err && err.stack}`);
  assert.ok(err instanceof Error);
  assert.ok(isNativeError(err), 'a real Error, not an object with Error.prototype');
  assert.equal(err.name, 'PoolSaturatedError');
  assert.equal(err.code, 'ERR_KDF_POOL_SATURATED');
  assert.equal(err.retryable, true);
  assert.equal(err.reason, reason);
  assert.equal(err.pool, pool);
  assert.ok(Number.isInteger(err.retryAfterMs) && err.retryAfterMs >= 1);
  const status = err.scope === 'client' ? 429 : 503;
  assert.equal(err.scope, reason === 'displaced' ? 'client' : 'pool');
  assert.deepEqual([err.status, err.statusCode, err.expose], [status, status, true]);
  assert.equal(Object.keys(err.headers).includes('retry-after'), true);
  const seconds = err.headers['retry-after'];
  assert.ok(Number(seconds) >= Math.ceil(err.retryAfterMs / 1000), `Retry-After ${seconds} for a hint of ${err.retryAfterMs} ms`);
  assert.match(err.stack, ONE_LINE);
  // console.error(err), util.inspect: the same one line.
  assert.equal(inspect(err), err.stack);
  assert.equal(format(err), err.stack);
  // The client's message and the log line: Retry-After's seconds, no other figure to retry at.
  assert.equal(err.message, `The pool is saturated (${TAGS[reason]}); retry in ${seconds} s`);
  assert.ok(err.stack.endsWith(`; retry in ${seconds} s`), err.stack);
  assert.doesNotMatch(err.stack, /retry in \d+ ms/);
  // The pool's name goes to the log line only.
  assert.ok(!err.message.includes(pool), err.message);
}

test('a full queue: a one-line stack naming the pool and the reason', async () => {
  const { pool, held } = await heldPool({ name: 'login', maxQueue: 0 });
  try {
    const err = await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    assertRefusal(err, 'queue_full', 'login');
    assert.match(err.stack, /^PoolSaturatedError \[ERR_KDF_POOL_SATURATED\]: pool "login" is saturated \(queue full\); retry in \d+ s$/);
    // The callback form gets the same error.
    const viaCallback = await new Promise((resolve) => {
      pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', (e) => resolve(e));
    });
    assertRefusal(viaCallback, 'queue_full', 'login');
  } finally {
    held.release();
    await pool.close();
  }
});

test('the default pool is named as such (a created pool may be called "default")', async () => {
  const { threads, maxQueue } = kdf.stats();
  kdf.configure({ maxQueue: 0 });
  const gates = Array.from({ length: threads }, () => gate());
  const named = await heldPool({ name: 'default', maxQueue: 0 });
  try {
    await until(() => kdf.stats().running === threads, 'gates to hold every thread');
    const err = await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    assertRefusal(err, 'queue_full', 'default');
    assert.match(err.stack, /: the default pool is saturated \(queue full\); retry in \d+ s$/);
    const other = await named.pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    assertRefusal(other, 'queue_full', 'default');
    assert.match(other.stack, /: pool "default" is saturated/);
  } finally {
    for (const g of gates) g.release();
    named.held.release();
    await named.pool.close();
    kdf.configure({ maxQueue });
  }
});

test('a deadline refusal with room in the queue gives the estimated wait and the deadline', async () => {
  const pool = kdf.createPool({ name: 'dlq', threads: 1, maxQueue: 128 });
  try {
    // Held 20 ms: the pool learns a run time far above the 1 ms deadline below.
    const first = gate(pool);
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    await past(performance.now(), 20);
    first.release();
    await first.done;
    const second = gate(pool);
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const err = await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { maxWaitMs: 1 }).then(() => null, (e) => e);
    second.release();
    await second.done;
    assertRefusal(err, 'deadline', 'dlq');
    assert.ok(pool.stats().queued < 128);
    const wait = err.retryAfterMs;
    assert.equal(err.stack, `PoolSaturatedError [ERR_KDF_POOL_SATURATED]: pool "dlq" is saturated (deadline): the call would wait about ${wait} ms for a thread, ` +
      `longer than its deadline (maxWaitMs 1 ms), so it is refused at once although the queue has room; retry in ${err.headers['retry-after']} s`);
  } finally {
    await pool.close();
  }
});

test('a call shed at its deadline says it waited past it and never ran', async () => {
  // A fresh pool knows no run times: the call is let in, then shed.
  const { pool, held } = await heldPool({ name: 'shed', maxWaitMs: 1 });
  try {
    const since = performance.now();
    const late = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    await past(since, 2);
    held.release();
    const err = await late;
    assertRefusal(err, 'deadline', 'shed');
    assert.match(err.stack,
      /: pool "shed" is saturated \(deadline\): the call waited in the queue past its deadline \(maxWaitMs 1 ms\) and was dropped unrun; retry in \d+ s$/);
    assert.equal(pool.stats().shed, 1);
  } finally {
    await pool.close();
  }
});

test('a displaced call names the pool and why it gave way', async () => {
  const { pool, held } = await heldPool({ name: 'fair', maxQueue: 2 });
  try {
    const heavy = [1, 2].map((i) => pool.pbkdf2('pw', 'salt', 100 + i, 32, 'sha256', { fairKey: 'heavy' })
      .then(() => null, (e) => e));
    const light = pool.pbkdf2('pw', 'salt', 50, 32, 'sha256', { fairKey: 'light' });
    const err = await heavy[1];
    assertRefusal(err, 'displaced', 'fair');
    assert.match(err.stack, /: pool "fair" is saturated \(displaced\): a call placed more than one job ahead of this one in the service order took its place in the full queue; retry in \d+ s$/);
    held.release();
    await light;
    assert.equal(await heavy[0], null);
  } finally {
    await pool.close();
  }
});

test('Error.stackTraceLimit is left as it was, and refusals stay one line where it cannot be written', async () => {
  const saved = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  try {
    Error.stackTraceLimit = 7;
    assert.match(errors.saturated(5).stack, ONE_LINE);
    assert.equal(Error.stackTraceLimit, 7);
    // Frozen (as under --frozen-intrinsics or a lockdown): not writable.
    Object.defineProperty(Error, 'stackTraceLimit', { value: 3, writable: false, configurable: true });
    const err = errors.saturated(5, 'queue_full', { pool: 'login' });
    assert.match(err.stack, ONE_LINE);
    assert.equal(err.stack, 'PoolSaturatedError [ERR_KDF_POOL_SATURATED]: pool "login" is saturated (queue full); retry in 1 s');
    assert.equal(Error.stackTraceLimit, 3);
  } finally {
    Object.defineProperty(Error, 'stackTraceLimit', saved);
  }
  // Made by hand (a test double, an app's own mapping): the same shape.
  const own = new kdf.PoolSaturatedError('busy', 1500);
  assert.equal(own.stack, 'PoolSaturatedError [ERR_KDF_POOL_SATURATED]: busy');
  assert.deepEqual([own.reason, own.retryAfterMs, own.headers['retry-after']], ['queue_full', 1500, '2']);
  assert.ok(isNativeError(own));
});

// Express 5's default handler writes console.error(err) for every error.
test('Express\'s default handler logs one line per refusal', async () => {
  const express = require('express');
  const { pool, held } = await heldPool({ name: 'login', maxQueue: 0 });
  const app = express();
  app.set('env', 'production'); // Express logs err.stack for every error except under env 'test'
  app.get('/login', async (req, res) => { res.json(await pool.hash('pw', { algorithm: 'bcrypt', cost: 4 })); });
  const server = http.createServer(app);
  const logged = [];
  const answers = [];
  const consoleError = console.error;
  console.error = (...args) => { logged.push(format(...args)); };
  try {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address();
    for (let i = 0; i < 5; i++) {
      answers.push(await new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port, path: '/login', agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve([res.statusCode, res.headers['retry-after']]));
        }).on('error', reject);
      }));
    }
    for (const [status, retryAfter] of answers) {
      assert.equal(status, 503);
      assert.match(retryAfter, /^[1-9][0-9]*$/);
    }
    // Express logs each error after its answer (setImmediate).
    await until(() => logged.length >= 5, 'Express to log the refusals');
  } finally {
    console.error = consoleError;
    server.close();
    held.release();
    await pool.close();
  }
  const lines = logged.join('\n').split('\n');
  assert.equal(lines.length, 5, lines.join('\n'));
  for (const [i, line] of lines.entries()) {
    assert.match(line, /^PoolSaturatedError \[ERR_KDF_POOL_SATURATED\]: pool "login" is saturated \(queue full\); retry in \d+ s$/);
    assert.ok(line.endsWith(`retry in ${answers[i][1]} s`), `${line} against Retry-After ${answers[i][1]}`);
  }
});
