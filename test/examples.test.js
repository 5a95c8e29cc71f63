'use strict';

// The login server examples, in process on ephemeral loopback ports: right
// and wrong passwords, hash upgrades, 503 + Retry-After under a flood, a
// client that hangs up, and GET /metrics (node:http); the same for the
// Express and Fastify versions.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert');
const http = require('node:http');
const { start, stop } = require('../examples/login-server');
const { until } = require('./helpers/until');
const { gate } = require('./helpers/gate');

const ALICE = { user: 'alice', password: 'correct horse battery staple' };
const BOB = { user: 'bob', password: 'hunter2' };

let server;
let base;

before(async () => {
  // One thread and a queue of 2, so a modest flood saturates it.
  server = await start({ port: 0, host: '127.0.0.1', threads: 1, maxQueue: 2 });
  const { port } = server.address();
  base = `http://127.0.0.1:${port}`;
});

after(async () => {
  if (server) await stop(server);
});

function login(body, init = {}) {
  return fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
}

test('200 for the right password, 401 for a wrong one or an unknown user', async () => {
  const ok = await login(ALICE);
  assert.strictEqual(ok.status, 200);
  assert.deepStrictEqual(await ok.json(), { user: 'alice' });

  const wrong = await login({ ...ALICE, password: 'Correct horse battery staple' });
  assert.strictEqual(wrong.status, 401);
  await wrong.body.cancel();

  // An unknown user costs one verify job too, like the wrong password above.
  const { pool } = server.login;
  const before = pool.stats().completed;
  const unknown = await login({ user: 'mallory', password: 'x' });
  assert.strictEqual(unknown.status, 401);
  await unknown.body.cancel();
  assert.strictEqual(pool.stats().completed, before + 1);
});

test('bad requests are 4xx, not 500', async () => {
  const notJson = await fetch(`${base}/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: '{',
  });
  assert.strictEqual(notJson.status, 400);
  const missing = await login({ user: 'alice' });
  assert.strictEqual(missing.status, 400);
  const get = await fetch(`${base}/login`);
  assert.strictEqual(get.status, 405);
  await Promise.all([notJson, missing, get].map((r) => r.body.cancel()));
});

test('a legacy hash is upgraded on a successful login', async () => {
  const users = server.login.users;
  assert.match(users.get('bob').hash, /^\$pbkdf2-sha256\$/);
  const res = await login(BOB);
  assert.strictEqual(res.status, 200);
  await res.body.cancel();
  assert.match(users.get('bob').hash, /^\$argon2id\$/);

  // And the upgraded hash still verifies.
  const again = await login(BOB);
  assert.strictEqual(again.status, 200);
  await again.body.cancel();
});

test('a flood gets 503 with Retry-After and the RateLimit fields, everything else is 200', async () => {
  const answers = await Promise.all(Array.from({ length: 40 }, async () => {
    const res = await login(ALICE);
    await res.body.cancel();
    return {
      status: res.status, retryAfter: res.headers.get('retry-after'),
      rateLimit: res.headers.get('ratelimit'), policy: res.headers.get('ratelimit-policy'),
    };
  }));
  // No fairKey here: one client, and a full pool is the replica's doing.
  const busy = answers.filter((a) => a.status === 503);
  const others = answers.filter((a) => a.status !== 503);
  assert.ok(busy.length > 0, 'some logins are refused with 503');
  const { threads, maxQueue } = server.login.pool.stats();
  for (const a of busy) {
    assert.match(a.retryAfter, /^\d+$/);
    assert.ok(Number(a.retryAfter) >= 1);
    assert.equal(a.policy, `"login";q=${threads + maxQueue};qu="concurrent-requests"`);
    assert.equal(a.rateLimit, `"login";r=0;t=${a.retryAfter}`);
  }
  for (const a of others) assert.match(a.rateLimit, /^"login";r=[0-9]+$/);
  assert.deepStrictEqual(others.map((a) => a.status), others.map(() => 200));
  assert.ok(server.login.pool.stats().rejected > 0);
});

test('a client that hangs up frees its queue slot', async () => {
  const { pool } = server.login;
  await until(() => pool.stats().queued === 0 && pool.stats().running === 0, 'pool idle');
  const abortedBefore = pool.stats().aborted;

  // Hold the only thread until the end, so that the next login has to
  // wait in the queue.
  const busy = gate(pool);
  await until(() => pool.stats().running === 1, 'the gate holding the thread');
  const cancelledBefore = pool.stats().cancelled;

  const body = JSON.stringify(ALICE);
  const req = http.request(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    agent: false,
  });
  req.on('error', () => {}); // we destroy it on purpose
  req.end(body);
  await until(() => pool.stats().queued === 1, 'the login queued');
  req.destroy();

  await until(() => pool.stats().aborted > abortedBefore, 'the login aborted');
  const s = pool.stats();
  assert.strictEqual(s.queued, 0);
  assert.strictEqual(s.cancelled, cancelledBefore + 1);
  busy.release();
  assert.strictEqual(await busy.done, undefined);
});

test('GET /metrics exposes the pool through kdfpool/prometheus', async () => {
  const res = await fetch(`${base}/metrics`);
  assert.strictEqual(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/plain/);
  const text = await res.text();
  for (const name of ['kdfpool_threads', 'kdfpool_jobs_running', 'kdfpool_jobs_queued',
    'kdfpool_memory_in_use_bytes', 'kdfpool_memory_max_bytes', 'kdfpool_wait_seconds_count',
    'kdfpool_run_seconds_count', 'kdfpool_jobs_total', 'kdfpool_refusals_total']) {
    assert.match(text, new RegExp(`^${name}\\{pool="login"`, 'm'), name);
  }
  assert.match(text, /^kdfpool_threads\{pool="login"\} 1$/m);
  // The flood above was refused: counted by outcome and by reason.
  assert.match(text, /^kdfpool_jobs_total\{pool="login",algorithm="[a-z0-9]+",outcome="refused"\} [1-9]/m);
  assert.match(text, /^kdfpool_refusals_total\{pool="login",reason="[a-z_]+",scope="(pool|client)"\} [1-9]/m);
  // Histograms of the jobs that ran, per job, not rolling quantiles.
  assert.match(text, /^kdfpool_run_seconds_count\{pool="login",algorithm="[a-z0-9]+"\} [1-9]/m);
  assert.doesNotMatch(text, /quantile=/);
});

// The same checks for the Express and Fastify examples: each starts its own
// pool on an ephemeral port.
for (const [name, modulePath, poolOf] of [
  ['express-login.js', '../examples/express-login', (s) => s.login.pool],
  ['fastify-login.js', '../examples/fastify-login', (app) => app.login.pool],
]) {
  describe(name, () => {
    const example = require(modulePath);
    let handle;
    let url;
    let pool;

    before(async () => {
      handle = await example.start({ port: 0, threads: 1, maxQueue: 2 });
      const server = handle.server || handle;
      url = `http://127.0.0.1:${server.address().port}/login`;
      pool = poolOf(handle);
    });

    after(async () => {
      if (handle) await example.stop(handle);
    });

    const post = (body) => fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
    });

    test('200, 401, 400 and a legacy hash upgraded', async () => {
      const ok = await post(ALICE);
      assert.strictEqual(ok.status, 200);
      assert.deepStrictEqual(await ok.json(), { user: 'alice' });
      for (const [body, status] of [[{ ...ALICE, password: 'nope' }, 401], [{ user: 'mallory', password: 'x' }, 401],
        [{ user: 'alice' }, 400]]) {
        const res = await post(body);
        assert.strictEqual(res.status, status, JSON.stringify(body));
        await res.body.cancel();
      }
      const bad = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      assert.strictEqual(bad.status, 400);
      await bad.body.cancel();

      const bob = (handle.login || handle.server.login).users.get('bob');
      assert.match(bob.hash, /^\$pbkdf2-sha256\$/);
      const res = await post(BOB);
      assert.strictEqual(res.status, 200);
      await res.body.cancel();
      assert.match(bob.hash, /^\$argon2id\$/);
    });

    test('a flood gets 503 with Retry-After >= 1, everything else is 200', async () => {
      const answers = await Promise.all(Array.from({ length: 40 }, async () => {
        const res = await post(ALICE);
        await res.body.cancel();
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      }));
      const busy = answers.filter((a) => a.status === 503);
      assert.ok(busy.length > 0, 'some logins are refused with 503');
      for (const a of busy) assert.ok(/^\d+$/.test(a.retryAfter) && Number(a.retryAfter) >= 1, a.retryAfter);
      const others = answers.filter((a) => a.status !== 503);
      assert.deepStrictEqual(others.map((a) => a.status), others.map(() => 200));
    });

    test('a client that hangs up frees its queue slot (requestSignal)', async () => {
      await until(() => pool.stats().queued === 0 && pool.stats().running === 0, 'pool idle');
      const abortedBefore = pool.stats().aborted;
      const busy = gate(pool);
      await until(() => pool.stats().running === 1, 'the gate holding the thread');
      const cancelledBefore = pool.stats().cancelled;
      const body = JSON.stringify(ALICE);
      const req = http.request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        agent: false,
      });
      req.on('error', () => {});
      req.end(body);
      await until(() => pool.stats().queued === 1, 'the login queued');
      req.destroy();
      await until(() => pool.stats().aborted > abortedBefore, 'the login aborted');
      assert.strictEqual(pool.stats().queued, 0);
      assert.strictEqual(pool.stats().cancelled, cancelledBefore + 1);
      busy.release();
      assert.strictEqual(await busy.done, undefined);
    });
  });
}
