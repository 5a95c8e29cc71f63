'use strict';

// fairKey without plumbing: the pool option `fairKey` (a function called
// for each call that names no key), the AsyncLocalStorage helpers
// (currentFairKey, runWithFairKey, fairKeyMiddleware) and their errors;
// then on loopback, with Express, Fastify and node:http, one client
// flooding sign-ins from 127.0.0.2 against a user at 127.0.0.3: with the
// middleware and `fairKey: kdf.currentFairKey`, the flood's newest call
// gives its place to the user (deterministic: the thread is held by a
// gate, the queue filled, then the user arrives); without it, the user is
// refused. Express without 'trust proxy' keys by the socket's address,
// whatever X-Forwarded-For says.

const { test, describe, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { listen, close, client, captureStderr } = require('./helpers/frameworks');

const cheap = (pool) => pool.pbkdf2('pw', 'salt', 10, 32, 'sha256');

describe('the pool option fairKey', () => {
  test('called once per call that names no key; a call\'s own key wins; *Sync calls never call it', async () => {
    const calls = [];
    const names = ['a', 'b', undefined, 'a'];
    const pool = kdf.createPool({ name: 'fk1', threads: 1, maxQueue: 8, fairKey: () => { calls.push(1); return names.shift(); } });
    const g = gate(pool);
    try {
      await until(() => pool.stats().running === 1, 'the gate to hold the thread');
      const jobs = [cheap(pool), cheap(pool), cheap(pool), cheap(pool),
        pool.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: 'c' }), pool.hash('pw', { algorithm: 'bcrypt', cost: 4, fairKey: 'c' })];
      assert.equal(calls.length, 4);
      // a, b, the shared key (undefined) and c.
      assert.equal(pool.stats().keys, 4);
      g.release();
      await Promise.all(jobs);
      const phc = pool.hashSync('pw', { algorithm: 'bcrypt', cost: 4 });
      pool.verifySync(phc, 'pw');
      pool.pbkdf2Sync('pw', 'salt', 1, 32, 'sha256');
      assert.equal(calls.length, 4);
      assert.equal(await pool.verify(phc, 'pw'), true);
      assert.equal(calls.length, 5);
    } finally {
      g.release();
      await pool.close();
    }
  });

  test('a throw or a bad key fails the call with ERR_KDF_FAIR_KEY (cause: what went wrong), nothing queued', async () => {
    const thrown = new Error('no client here');
    const cases = [
      [() => { throw thrown; }, (cause) => assert.equal(cause, thrown), /pool "fk2" threw/],
      [() => 42, (cause) => assert.equal(cause.code, 'ERR_INVALID_ARG_TYPE'), /returned an invalid key/],
      [() => null, (cause) => assert.equal(cause.code, 'ERR_INVALID_ARG_TYPE'), /returned an invalid key/],
      [async () => 'k', (cause) => assert.equal(cause.code, 'ERR_INVALID_ARG_TYPE'), /an instance of Promise/],
      [() => '', (cause) => assert.equal(cause.code, 'ERR_OUT_OF_RANGE'), /returned an invalid key/],
      [() => 'x'.repeat(1025), (cause) => assert.equal(cause.code, 'ERR_OUT_OF_RANGE'), /returned an invalid key/],
    ];
    for (const [fairKey, checkCause, message] of cases) {
      const pool = kdf.createPool({ name: 'fk2', threads: 1, fairKey });
      try {
        const phc = pool.hashSync('pw', { algorithm: 'bcrypt', cost: 4 });
        const check = (err) => {
          assert.equal(err.name, 'KdfError');
          assert.equal(err.code, 'ERR_KDF_FAIR_KEY');
          assert.equal(err.retryable, false);
          assert.equal(err.status, undefined, 'the server\'s code: a 500');
          assert.match(err.message, message);
          checkCause(err.cause);
          return true;
        };
        await assert.rejects(cheap(pool), check);
        await assert.rejects(pool.hash('pw'), check);
        await assert.rejects(pool.verify(phc, 'pw'), check);
        await assert.rejects(pool.scrypt('pw', 'salt', 16, { N: 16 }), check);
        const viaCallback = await new Promise((resolve) => {
          pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', (err) => resolve(err));
        });
        check(viaCallback);
        // The call's own key needs no function.
        assert.equal(await pool.verify(phc, 'pw', { fairKey: 'own' }), true);
        assert.equal(pool.stats().submitted, 1);
      } finally {
        await pool.close();
      }
    }
  });

  test('createPool and configure check it; configure sets and null removes the default pool\'s', async () => {
    for (const bad of ['k', 42, {}]) {
      assert.throws(() => kdf.createPool({ fairKey: bad }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /options\.fairKey/ });
      assert.throws(() => kdf.configure({ fairKey: bad }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    }
    const none = kdf.createPool({ fairKey: null, threads: 1 });
    assert.equal((await cheap(none)).length, 32);
    await none.close();
    let calls = 0;
    kdf.configure({ fairKey: () => { calls++; return 'default-pool-client'; } });
    try {
      await cheap(kdf);
      assert.equal(calls, 1);
      kdf.configure({ maxWaitMs: 2000 }); // other options leave it
      await cheap(kdf);
      assert.equal(calls, 2);
      kdf.configure({ fairKey: () => 7 });
      await assert.rejects(cheap(kdf), { code: 'ERR_KDF_FAIR_KEY', message: /^The fairKey function of the default pool returned/ });
    } finally {
      kdf.configure({ fairKey: null });
    }
    await cheap(kdf);
    assert.equal(calls, 2);
  });
});

describe('currentFairKey, runWithFairKey, fairKeyMiddleware', () => {
  test('a key holds inside its function and what it awaits, not outside; nested keys replace it there only', async () => {
    assert.equal(kdf.currentFairKey(), undefined);
    const result = kdf.runWithFairKey('10.0.0.1', async (a, b) => {
      assert.equal(kdf.currentFairKey(), '10.0.0.1');
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(kdf.currentFairKey(), '10.0.0.1');
      assert.equal(kdf.runWithFairKey('tenant-7', () => kdf.currentFairKey()), 'tenant-7');
      assert.equal(kdf.runWithFairKey(undefined, () => kdf.currentFairKey()), undefined);
      assert.equal(kdf.currentFairKey(), '10.0.0.1');
      return a + b;
    }, 1, 2);
    assert.equal(kdf.currentFairKey(), undefined);
    assert.equal(await result, 3);
    assert.throws(() => kdf.runWithFairKey(42, () => {}), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /"key"/ });
    assert.throws(() => kdf.runWithFairKey('k'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /"fn"/ });
  });

  test('the middleware runs next() inside the key; keyOf\'s throw or a non-string key goes to next(err)', () => {
    assert.throws(() => kdf.fairKeyMiddleware('req.ip'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    let seen;
    kdf.fairKeyMiddleware((req) => req.ip)({ ip: '10.1.2.3' }, {}, (err) => { seen = [err, kdf.currentFairKey()]; });
    assert.deepEqual(seen, [undefined, '10.1.2.3']);
    kdf.fairKeyMiddleware(() => undefined)({}, {}, (err) => { seen = [err, kdf.currentFairKey()]; });
    assert.deepEqual(seen, [undefined, undefined]);
    const thrown = new Error('no address');
    kdf.fairKeyMiddleware(() => { throw thrown; })({}, {}, (err) => { seen = err; });
    assert.equal(seen, thrown);
    kdf.fairKeyMiddleware(() => ['10.0.0.1'])({}, {}, (err) => { seen = err; });
    assert.equal(seen.code, 'ERR_INVALID_ARG_TYPE');
    assert.match(seen.message, /keyOf\(req\)/);
    assert.equal(kdf.currentFairKey(), undefined);
  });
});

// A sign-in route on each server, verifying on `pool`; refusals answered
// by the framework's default error handler (node:http: a generic one).
const SERVERS = {
  express(pool, stored, { trustProxy = false } = {}) {
    const express = require('express');
    const app = express();
    app.set('trust proxy', trustProxy);
    app.use(kdf.fairKeyMiddleware((req) => req.ip));
    app.post('/login', async (req, res) => { res.sendStatus((await pool.verify(stored, 'pw')) ? 200 : 401); });
    return http.createServer(app);
  },
  async fastify(pool, stored) {
    const fastify = require('fastify')({ logger: false });
    fastify.addHook('onRequest', kdf.fairKeyMiddleware((request) => request.ip));
    fastify.post('/login', async (request, reply) => reply.code((await pool.verify(stored, 'pw')) ? 200 : 401).send());
    await fastify.ready();
    return fastify.server;
  },
  'node:http'(pool, stored) {
    const record = kdf.fairKeyMiddleware((req) => req.socket.remoteAddress);
    const handle = (req, res) => {
      pool.verify(stored, 'pw').then((ok) => res.writeHead(ok ? 200 : 401).end(),
        (err) => res.writeHead(err.status || 500, err.headers).end());
    };
    return http.createServer((req, res) => record(req, res, () => handle(req, res)));
  },
};

// The flood (3 sign-ins from 127.0.0.2, `headers` each) fills the queue
// of a held pool; then the user's sign-in from 127.0.0.3. Returns the
// answers once the thread is released, and the pool's stats before.
async function floodThenUser(serverOf, fairKey, headers = () => ({})) {
  const pool = kdf.createPool({ name: 'fkflood', threads: 1, maxQueue: 3, fairKey });
  const stored = await pool.hash('pw', { algorithm: 'pbkdf2-sha256', iterations: 1000 });
  const server = await serverOf(pool, stored);
  const port = await listen(server);
  const g = gate(pool);
  const stderr = captureStderr(); // Express's default handler prints each refusal: not what this checks
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const flooder = client(port, { localAddress: '127.0.0.2' });
    const flood = [0, 1, 2].map((i) => flooder.request('POST', '/login', { headers: headers(i) }));
    await until(() => pool.stats().queued === 3, 'the flood to fill the queue');
    const user = client(port, { localAddress: '127.0.0.3' }).request('POST', '/login');
    await until(() => pool.stats().refused === 1, 'one refusal');
    const stats = pool.stats();
    g.release();
    return { flood: await Promise.all(flood), user: await user, stats };
  } finally {
    stderr.stop();
    g.release();
    await close(server);
    await pool.close();
  }
}

for (const name of Object.keys(SERVERS)) {
  test(`${name}: a flooding client gives way to a user; without the key, the user is refused`, async () => {
    const fair = await floodThenUser(SERVERS[name], kdf.currentFairKey);
    assert.equal(fair.stats.keys, 2, 'two clients reached the pool');
    assert.equal(fair.stats.displaced, 1);
    assert.equal(fair.user.status, 200);
    assert.deepEqual(fair.flood.map((a) => a.status).sort(), [200, 200, 429]);
    assert.match(fair.flood.find((a) => a.status === 429).headers['retry-after'], /^[1-9][0-9]*$/);

    const shared = await floodThenUser(SERVERS[name], undefined);
    assert.equal(shared.stats.keys, 1);
    assert.equal(shared.stats.displaced, 0);
    // The flooder's refusal is its own demand (429); the user's, the pool being full (503).
    assert.equal(shared.user.status, 503);
    assert.deepEqual(shared.flood.map((a) => a.status), [200, 200, 200]);
  });
}

test('Express: X-Forwarded-For names the key only where the app trusts a proxy', async () => {
  const spoofed = (i) => ({ 'x-forwarded-for': `198.51.100.${i + 1}` });
  // Not trusted (the default): the flood is one client whatever it claims.
  const untrusted = await floodThenUser(SERVERS.express, kdf.currentFairKey, spoofed);
  assert.equal(untrusted.stats.keys, 2);
  assert.equal(untrusted.user.status, 200);
  // Trusted blindly: each forged address is a client of its own, as light
  // as the user, and the user is the one refused.
  const trusted = await floodThenUser((pool, stored) => SERVERS.express(pool, stored, { trustProxy: true }),
    kdf.currentFairKey, spoofed);
  assert.equal(trusted.stats.keys, 3);
  assert.equal(trusted.stats.displaced, 0);
  assert.equal(trusted.user.status, 503);
});

after(() => kdf.configure({ fairKey: null }));
