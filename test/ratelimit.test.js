'use strict';

// The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers-11):
// with a pool's `rateLimitHeaders` option, every refusal (at submit, and a
// queued call displaced later) carries `RateLimit-Policy` (the pool's name,
// q = threads + maxQueue "concurrent-requests") and `RateLimit` (r=0, t =
// its Retry-After) beside Retry-After; without it, Retry-After alone.
// kdf.rateLimitHeaders(pool) gives the places left now for other answers.
// Both fields are checked against the draft's Structured Fields syntax.
// Express's default handler and the framework entries send err.headers as
// they are, so they send the fields too.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { gate, heldPool } = require('./helpers/gate');
const { until } = require('./helpers/until');

// A List of one Item: an sf-string, then ;key=value parameters (integers,
// or an sf-string for qu), as sections 3 and 4 of the draft write them.
const POLICY = /^"([A-Za-z0-9_.]+)";q=([0-9]+);qu="concurrent-requests"$/;
const LIMIT = /^"([A-Za-z0-9_.]+)";r=([0-9]+)(?:;t=([0-9]+))?$/;

test('with rateLimitHeaders, a refusal carries RateLimit-Policy and RateLimit (r=0, t = Retry-After)', async () => {
  const { pool, held } = await heldPool({ name: 'rl', maxQueue: 2, rateLimitHeaders: true });
  try {
    assert.deepEqual(kdf.rateLimitHeaders(pool), { 'ratelimit-policy': '"rl";q=3;qu="concurrent-requests"', ratelimit: '"rl";r=2' });
    const queued = [pool.pbkdf2('pw', 'salt', 1, 32, 'sha256'), pool.pbkdf2('pw', 'salt', 1, 32, 'sha256')];
    assert.deepEqual(kdf.rateLimitHeaders(pool).ratelimit, '"rl";r=0');
    const err = await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    assert.deepEqual([err.code, err.name, err.scope, err.status], ['ERR_KDF_POOL_SATURATED', 'PoolSaturatedError', 'pool', 503]);
    assert.deepEqual(Object.keys(err.headers), ['retry-after', 'ratelimit-policy', 'ratelimit']);
    const [, name, q] = err.headers['ratelimit-policy'].match(POLICY);
    assert.deepEqual([name, q], ['rl', '3']);
    const [, limitName, r, t] = err.headers.ratelimit.match(LIMIT);
    assert.deepEqual([limitName, r, t], ['rl', '0', err.headers['retry-after']]);
    held.release();
    await Promise.all(queued);
    assert.deepEqual(kdf.rateLimitHeaders(pool).ratelimit, '"rl";r=3');
  } finally {
    held.release();
    await pool.close();
  }
});

test('a queued call displaced later (a client over its share, 429) carries them too', async () => {
  const { pool, held } = await heldPool({ name: 'rld', maxQueue: 3, rateLimitHeaders: true });
  try {
    // The flooder's third call stands two jobs behind a newcomer: it gives way.
    const flood = [0, 1, 2].map(() => pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { fairKey: 'flooder' }).then(() => null, (e) => e));
    await until(() => pool.stats().queued === 3, 'the flood to fill the queue');
    const user = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { fairKey: 'user' });
    await until(() => pool.stats().displaced === 1, 'the user to displace one flood call');
    held.release();
    await user;
    const [err] = (await Promise.all(flood)).filter((e) => e !== null);
    assert.deepEqual([err.code, err.name, err.reason, err.scope, err.status], ['ERR_KDF_POOL_SATURATED', 'PoolSaturatedError', 'displaced', 'client', 429]);
    assert.equal(err.headers['ratelimit-policy'], '"rld";q=4;qu="concurrent-requests"');
    assert.equal(err.headers.ratelimit, `"rld";r=0;t=${err.headers['retry-after']}`);
  } finally {
    held.release();
    await pool.close();
  }
});

test('without the option (the default) a refusal has Retry-After alone; configure() turns it on for the default pool', async () => {
  const { pool, held } = await heldPool({ name: 'rlo', maxQueue: 0 });
  try {
    const err = await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    assert.deepEqual(Object.keys(err.headers), ['retry-after']);
  } finally {
    held.release();
    await pool.close();
  }
  const { threads, maxQueue } = kdf.stats();
  try {
    kdf.configure({ threads: 1, maxQueue: 0, rateLimitHeaders: true });
    const held2 = gate(kdf);
    held2.done.catch(() => {});
    try {
      await until(() => kdf.stats().running === 1, 'the gate to hold the default pool');
      const err = await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
      assert.equal(err.headers['ratelimit-policy'], '"default";q=1;qu="concurrent-requests"');
      assert.match(err.headers.ratelimit, LIMIT);
    } finally {
      held2.release();
      await held2.done;
    }
  } finally {
    kdf.configure({ threads, maxQueue, rateLimitHeaders: false });
  }
});

test('bad arguments: rateLimitHeaders must be a boolean, rateLimitHeaders() needs a pool', () => {
  assert.throws(() => kdf.createPool({ rateLimitHeaders: 1 }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  assert.throws(() => kdf.configure({ rateLimitHeaders: 'yes' }), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  assert.throws(() => kdf.rateLimitHeaders({}), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
  assert.throws(() => kdf.rateLimitHeaders(undefined), { code: 'ERR_INVALID_ARG_TYPE', name: 'TypeError' });
});

test('Express\'s default handler and the better-auth entry send the RateLimit fields with the refusal', async () => {
  const express = require('express');
  const { listen, close, saturate, captureStderr } = require('./helpers/frameworks');
  const { password } = require('../lib/frameworks/better-auth');
  const pool = kdf.createPool({ name: 'rlfw', threads: 1, maxQueue: 0, rateLimitHeaders: true });
  const app = express();
  app.post('/login', async (req, res) => res.json({ ok: await pool.verify(stored, 'pw') }));
  const stored = await pool.hash('pw', { algorithm: 'pbkdf2-sha256', iterations: 1000 });
  const server = app.listen(0, '127.0.0.1');
  const port = await listen(server);
  const release = await saturate(pool);
  const stderr = captureStderr(); // Express's default handler prints the refusal's one line
  try {
    const res = await fetch(`http://127.0.0.1:${port}/login`, { method: 'POST' });
    await res.body.cancel();
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('ratelimit-policy'), '"rlfw";q=1;qu="concurrent-requests"');
    assert.equal(res.headers.get('ratelimit'), `"rlfw";r=0;t=${res.headers.get('retry-after')}`);
    // better-auth: its APIError carries the refusal's headers, the fields included.
    await assert.rejects(password({ pool }).verify({ hash: stored, password: 'pw' }), (err) => {
      assert.equal(err.name, 'APIError');
      assert.equal(err.headers['ratelimit-policy'], '"rlfw";q=1;qu="concurrent-requests"');
      assert.match(err.headers.ratelimit, LIMIT);
      return true;
    });
  } finally {
    stderr.stop();
    await release();
    await close(server);
    await pool.close();
  }
});
