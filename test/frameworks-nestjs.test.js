'use strict';

// NestJS 12 (@nestjs/passport with passport-local, Express platform) with
// kdfpool/nestjs's PoolRefusalFilter, as docs/frameworks.md's recipe (in
// TypeScript, compiled here) builds it, on loopback: sign-in; a wrong
// password's 401; a saturated pool's 503 with Retry-After and Nest's error
// body, at most one stderr line per refusal (none: Nest does not log an
// HttpException); the client's address reaching the pool; the filter as
// an APP_FILTER provider; and what Nest does without the filter. A refusal's
// message gives Retry-After's seconds and names no pool; an unknown user
// is answered and costs as a wrong password, for every target and password
// length; a rotating pepper's rehash is done once.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { submissions } = require('./helpers/submissions'); // before kdfpool loads
const kdf = require('..');
const {
  listen, close, client, recipe, whileSaturated, assertQuietRefusals, keysSeen, assertUnknownUserAlike, rotatedPool,
  assertRehashedOnce, UNKNOWN_USER_TARGETS,
} = require('./helpers/frameworks');

const PASSWORD = 'correct horse battery staple';
const keys = keysSeen(kdf.currentFairKey);
let createApp;
let pool;
let users;
let app;
let port;

before(async () => {
  ({ createApp } = await recipe('nestjs', 'ts'));
  pool = kdf.createPool({ name: 'nest', threads: 1, maxQueue: 0, fairKey: keys.fairKey });
  users = new Map([
    ['alice', { name: 'alice', hash: await pool.hash(PASSWORD) }],
    ['bob', { name: 'bob', hash: await pool.hash(PASSWORD, { algorithm: 'scrypt', ln: 10 }) }],
  ]);
  app = await createApp({ pool, users });
  await app.init();
  port = await listen(app.getHttpServer());
});

after(async () => {
  if (app) {
    await close(app.getHttpServer());
    await app.close();
  }
  if (pool) await pool.close();
});

test('sign-in; a wrong password or an unknown user is Nest\'s 401; the client\'s address reaches the pool', async () => {
  const c = client(port);
  keys.seen.length = 0;
  const ok = await c.request('POST', '/login', { json: { username: 'alice', password: PASSWORD } });
  assert.equal(ok.status, 201, ok.body); // Nest's default for a POST
  assert.deepEqual(ok.json(), { user: 'alice' });
  assert.deepEqual(keys.seen, ['127.0.0.1']);
  for (const [username, password] of [['alice', `${PASSWORD}!`], ['mallory', PASSWORD]]) {
    const wrong = await c.request('POST', '/login', { json: { username, password } });
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.json(), { statusCode: 401, message: 'Unauthorized' });
  }
});

test('a legacy hash is upgraded on sign-in', async () => {
  const ok = await client(port).request('POST', '/login', { json: { username: 'bob', password: PASSWORD } });
  assert.equal(ok.status, 201, ok.body);
  assert.match(users.get('bob').hash, /^\$argon2id\$/);
});

test('a saturated pool: 503 with Retry-After and Nest\'s error body, one stderr line per refusal at most', async () => {
  const c = client(port);
  const signIn = () => c.request('POST', '/login', { json: { username: 'alice', password: PASSWORD } });
  const saturated = await whileSaturated(pool, [signIn, signIn, signIn, signIn]);
  assertQuietRefusals(saturated);
  for (const a of saturated.answers) {
    assert.equal(a.status, 503, a.body);
    assert.match(a.headers['retry-after'], /^[1-9][0-9]*$/);
    const body = a.json();
    assert.deepEqual(Object.keys(body).sort(), ['message', 'statusCode']);
    assert.equal(body.statusCode, 503);
    // Retry-After's seconds, and no pool's name: that goes to the logs.
    assert.equal(body.message, `The pool is saturated (queue full); retry in ${a.headers['retry-after']} s`);
  }
  assert.equal((await signIn()).status, 201, 'served again once the thread is free');
});

// A bare Nest app whose one route calls `run`: with the filter as an
// APP_FILTER provider, or with no filter at all.
async function bareApp(run, withFilter) {
  const { Controller, Module, Post } = require('@nestjs/common');
  const { APP_FILTER, NestFactory } = require('@nestjs/core');
  const { PoolRefusalFilter } = require('../lib/frameworks/nestjs');
  class Routes {
    go() { return run(); }
  }
  Reflect.decorate([Post('go')], Routes.prototype, 'go', Object.getOwnPropertyDescriptor(Routes.prototype, 'go'));
  Reflect.decorate([Controller()], Routes);
  class AppModule {}
  const providers = withFilter ? [{ provide: APP_FILTER, useClass: PoolRefusalFilter }] : [];
  Reflect.decorate([Module({ controllers: [Routes], providers })], AppModule);
  const nest = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  await nest.init();
  return { nest, port: await listen(nest.getHttpServer()) };
}

test('as an APP_FILTER provider too; a closed pool is 503 with its message hidden; without it Nest drops Retry-After and logs', async () => {
  const closed = kdf.createPool({ name: 'nestc', threads: 1 });
  await closed.close();
  for (const withFilter of [true, false]) {
    let which = 'busy';
    const { nest, port: p } = await bareApp(() => (which === 'busy' ? pool.hash(PASSWORD) : closed.hash(PASSWORD)), withFilter);
    let saturated;
    try {
      saturated = await whileSaturated(pool, [() => client(p).request('POST', '/go'), () => {
        which = 'closed';
        return client(p).request('POST', '/go');
      }]);
    } finally {
      await close(nest.getHttpServer());
      await nest.close();
    }
    const { answers: [busy, shut], lines } = saturated;
    assert.equal(busy.status, 503);
    assert.equal(shut.status, 503);
    assert.deepEqual(shut.json(), { statusCode: 503, message: 'Service Unavailable' });
    if (withFilter) {
      assert.match(busy.headers['retry-after'], /^[1-9][0-9]*$/);
      assert.deepEqual(lines, []);
    } else {
      // Nest 12's own answer to an http-errors-shaped error: no headers, a logged stack.
      assert.equal(busy.headers['retry-after'], undefined);
      assert.ok(lines.length >= 1, 'Nest logs it');
    }
  }
});

// A recipe app of its own on `own` with `target`: { port, stop() }.
async function ownApp(own, known, target) {
  const nest = await createApp({ pool: own, users: known, target });
  await nest.init();
  const p = await listen(nest.getHttpServer());
  return {
    port: p,
    async stop() {
      await close(nest.getHttpServer());
      await nest.close();
    },
  };
}

test('an unknown user costs and answers what a wrong password does: every target, every password length', async (t) => {
  for (const [i, [name, target]] of Object.entries(UNKNOWN_USER_TARGETS).entries()) {
    const own = kdf.createPool({ name: `nest.u${i}`, threads: 1, priority: 'normal' });
    const known = new Map([['alice', { name: 'alice', hash: await own.hash(PASSWORD, target) }]]);
    const served = await ownApp(own, known, target);
    try {
      await assertUnknownUserAlike(t, {
        pool: own, submissions, label: name,
        attempt: (kind, password) => client(served.port).request('POST', '/login',
          { json: { username: kind === 'existing' ? 'alice' : 'mallory', password } }),
        answerOf: (r) => ({ status: r.status, body: r.body, type: r.headers['content-type'] }),
      });
    } finally {
      await served.stop();
      await own.close();
    }
  }
});

test('rotating peppers: a sign-in rehashes once, on the pool that hashes', async () => {
  const { pool: own, hash, target } = await rotatedPool(kdf, 'nest.r', PASSWORD);
  const known = new Map([['alice', { name: 'alice', hash }]]);
  const served = await ownApp(own, known, target);
  try {
    await assertRehashedOnce(own, async () => {
      const ok = await client(served.port).request('POST', '/login', { json: { username: 'alice', password: PASSWORD } });
      assert.equal(ok.status, 201, ok.body);
    }, () => known.get('alice').hash);
  } finally {
    await served.stop();
    await own.close();
  }
});
