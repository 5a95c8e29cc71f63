'use strict';

// passport-local with express-session on Express 5, as docs/frameworks.md's
// recipe builds it (no kdfpool entry: Express's default handler answers a
// refusal by itself), on loopback: sign-in, session and sign-out, from a
// form and from JSON; a wrong password's 401; a saturated pool's 503 with
// Retry-After, at most one stderr line per refusal (Express's handler
// prints err.stack), which gives Retry-After's seconds; a legacy hash
// upgraded on sign-in; the client's address reaching the pool; an unknown
// user answered and costing as a wrong password, for every target and
// password length; a rotating pepper's rehash done once.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
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
let server;
let port;
const secret = crypto.randomBytes(16).toString('hex');

before(async () => {
  ({ createApp } = await recipe('passport'));
  pool = kdf.createPool({ name: 'passprt', threads: 1, maxQueue: 0, fairKey: keys.fairKey });
  users = new Map([
    ['alice', { name: 'alice', hash: await pool.hash(PASSWORD) }],
    ['bob', { name: 'bob', hash: await pool.hash(PASSWORD, { algorithm: 'bcrypt', cost: 4 }) }],
  ]);
  server = http.createServer(createApp({ pool, users, secret }));
  port = await listen(server);
});

after(async () => {
  if (server) await close(server);
  if (pool) await pool.close();
});

test('sign-in, session and sign-out; the client\'s address reaches the pool', async () => {
  const c = client(port);
  assert.equal((await c.request('GET', '/me')).status, 401);
  keys.seen.length = 0;
  const ok = await c.request('POST', '/login', { form: { username: 'alice', password: PASSWORD } });
  assert.equal(ok.status, 200, ok.body);
  assert.deepEqual(ok.json(), { user: 'alice' });
  assert.deepEqual(keys.seen, ['127.0.0.1']);
  assert.deepEqual((await c.request('GET', '/me')).json(), { user: 'alice' });
  assert.equal((await c.request('POST', '/logout')).status, 204);
  assert.equal((await c.request('GET', '/me')).status, 401);
});

test('a JSON login signs in as a form does; a wrong one is the same 401', async () => {
  const c = client(port);
  const ok = await c.request('POST', '/login', { json: { username: 'alice', password: PASSWORD } });
  assert.equal(ok.status, 200, ok.body);
  assert.deepEqual(ok.json(), { user: 'alice' });
  assert.deepEqual((await c.request('GET', '/me')).json(), { user: 'alice' });
  const wrong = await client(port).request('POST', '/login', { json: { username: 'alice', password: `${PASSWORD}!` } });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body, 'Unauthorized');
});

test('a wrong password or an unknown user: passport\'s 401', async () => {
  const c = client(port);
  for (const [username, password] of [['alice', `${PASSWORD}!`], ['mallory', PASSWORD]]) {
    const wrong = await c.request('POST', '/login', { form: { username, password } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body, 'Unauthorized');
    assert.equal((await c.request('GET', '/me')).status, 401);
  }
});

test('a legacy hash is upgraded on sign-in', async () => {
  const c = client(port);
  const ok = await c.request('POST', '/login', { form: { username: 'bob', password: PASSWORD } });
  assert.equal(ok.status, 200, ok.body);
  assert.match(users.get('bob').hash, /^\$argon2id\$/);
  assert.equal(kdf.needsRehash(users.get('bob').hash), false);
});

test('a saturated pool: 503 with Retry-After from Express\'s default handler, one stderr line per refusal at most', async () => {
  const c = client(port);
  const signIn = () => c.request('POST', '/login', { form: { username: 'alice', password: PASSWORD } });
  const saturated = await whileSaturated(pool, [signIn, signIn, signIn, signIn]);
  for (const a of saturated.answers) {
    assert.equal(a.status, 503, a.body);
    assert.match(a.headers['retry-after'], /^[1-9][0-9]*$/);
    // Express's development body is the refusal's log line: Retry-After's seconds, no other figure.
    assert.match(a.body, new RegExp(`retry in ${a.headers['retry-after']} s`));
    assert.doesNotMatch(a.body, /retry in \d+ ms/);
  }
  assertQuietRefusals(saturated);
  // The log line, one per refusal: the pool's name and Retry-After's seconds.
  assert.equal(saturated.lines.length, saturated.answers.length, saturated.lines.join('\n'));
  for (const [i, line] of saturated.lines.entries()) {
    assert.ok(line.endsWith(`pool "passprt" is saturated (queue full); retry in ${saturated.answers[i].headers['retry-after']} s`), line);
  }
  assert.equal((await c.request('GET', '/me')).status, 401);
  assert.equal((await signIn()).status, 200, 'served again once the thread is free');
});

// Last: these build apps of their own, and passport's strategy is global
// (the last app built serves every app's logins).

test('an unknown user costs and answers what a wrong password does: every target, every password length', async (t) => {
  for (const [i, [name, target]] of Object.entries(UNKNOWN_USER_TARGETS).entries()) {
    const own = kdf.createPool({ name: `pp.u${i}`, threads: 1, priority: 'normal' });
    const known = new Map([['alice', { name: 'alice', hash: await own.hash(PASSWORD, target) }]]);
    const app = http.createServer(createApp({ pool: own, users: known, target, secret }));
    try {
      const p = await listen(app);
      await assertUnknownUserAlike(t, {
        pool: own, submissions, label: name,
        attempt: (kind, password) => client(p).request('POST', '/login',
          { form: { username: kind === 'existing' ? 'alice' : 'mallory', password } }),
        answerOf: (r) => ({ status: r.status, body: r.body, type: r.headers['content-type'] }),
      });
    } finally {
      await close(app);
      await own.close();
    }
  }
});

test('rotating peppers: a sign-in rehashes once, on the pool that hashes', async () => {
  const { pool: own, hash, target } = await rotatedPool(kdf, 'pp.rot', PASSWORD);
  const known = new Map([['alice', { name: 'alice', hash }]]);
  const app = http.createServer(createApp({ pool: own, users: known, target, secret }));
  try {
    const p = await listen(app);
    await assertRehashedOnce(own, async () => {
      const ok = await client(p).request('POST', '/login', { form: { username: 'alice', password: PASSWORD } });
      assert.equal(ok.status, 200, ok.body);
    }, () => known.get('alice').hash);
  } finally {
    await close(app);
    await own.close();
  }
});
