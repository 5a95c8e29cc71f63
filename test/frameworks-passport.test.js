'use strict';

// passport-local with express-session on Express 5, as docs/frameworks.md's
// recipe builds it (no kdfpool entry: Express's default handler answers a
// refusal by itself), on loopback: sign-in, session and sign-out; a wrong
// password's 401; a saturated pool's 503 with Retry-After, at most one
// stderr line per refusal (Express's handler prints err.stack); a legacy
// hash upgraded on sign-in; the client's address reaching the pool.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
const kdf = require('..');
const { listen, close, client, recipe, whileSaturated, assertQuietRefusals, keysSeen } = require('./helpers/frameworks');

const PASSWORD = 'correct horse battery staple';
const keys = keysSeen(kdf.currentFairKey);
let pool;
let users;
let server;
let port;

before(async () => {
  const { createApp } = await recipe('passport');
  pool = kdf.createPool({ name: 'passprt', threads: 1, maxQueue: 0, fairKey: keys.fairKey });
  users = new Map([
    ['alice', { name: 'alice', hash: await pool.hash(PASSWORD) }],
    ['bob', { name: 'bob', hash: await pool.hash(PASSWORD, { algorithm: 'bcrypt', cost: 4 }) }],
  ]);
  const unknownUser = await pool.hash(crypto.randomBytes(16));
  server = http.createServer(createApp({ pool, users, unknownUser, secret: crypto.randomBytes(16).toString('hex') }));
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
  }
  assertQuietRefusals(saturated);
  assert.equal((await c.request('GET', '/me')).status, 401);
  assert.equal((await signIn()).status, 200, 'served again once the thread is free');
});
