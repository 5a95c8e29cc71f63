'use strict';

// better-auth 1.7 with kdfpool/better-auth, as docs/frameworks.md's recipe
// builds it, on loopback with better-auth's memory adapter: sign-up,
// sign-in, session and sign-out; a wrong password's 401; a saturated pool's
// 503 with Retry-After and better-auth's error body, at most one stderr
// line per refusal; and a user created by better-auth's own default
// hasher signing in after the switch, upgraded to kdfpool's target then.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const {
  listen, close, client, recipe, saturate, whileSaturated, assertQuietRefusals, keysSeen,
} = require('./helpers/frameworks');

const PASSWORD = 'correct horse battery staple';
const keys = keysSeen(kdf.currentFairKey);
let betterAuth;
let memoryAdapter;
let createAuth;
let createServer;
let pool;
let db;
let server;
let port;

function freshDb() {
  return { user: [], session: [], account: [], verification: [] };
}

function storedHash(email) {
  const user = db.user.find((u) => u.email === email);
  assert.ok(user, `user ${email}`);
  return db.account.find((a) => a.userId === user.id && a.providerId === 'credential').password;
}

before(async () => {
  process.env.BETTER_AUTH_SECRET = crypto.randomBytes(32).toString('hex');
  process.env.BETTER_AUTH_URL = 'http://127.0.0.1';
  ({ betterAuth } = await import('better-auth'));
  ({ memoryAdapter } = await import('better-auth/adapters/memory'));
  ({ createAuth, createServer } = await recipe('better-auth', 'mjs'));
  // One thread and no queue: sequential requests run, a held thread refuses all.
  pool = kdf.createPool({ name: 'bauth', threads: 1, maxQueue: 0, fairKey: keys.fairKey });
  db = freshDb();
  server = createServer(createAuth(memoryAdapter(db), pool));
  port = await listen(server);
});

after(async () => {
  if (server) await close(server);
  if (pool) await pool.close();
});

test('sign-up, sign-in, session and sign-out; stored hashes are kdfpool\'s; the client\'s address reaches the pool', async () => {
  const c = client(port, { origin: 'http://127.0.0.1' });
  const up = await c.request('POST', '/api/auth/sign-up/email',
    { json: { email: 'alice@example.com', password: PASSWORD, name: 'Alice' } });
  assert.equal(up.status, 200, up.body);
  assert.match(storedHash('alice@example.com'), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal(await kdf.verify(storedHash('alice@example.com'), PASSWORD), true);

  const out = await c.request('POST', '/api/auth/sign-out', { json: {} });
  assert.equal(out.status, 200, out.body);
  assert.equal((await c.request('GET', '/api/auth/get-session')).json(), null);

  keys.seen.length = 0;
  const signIn = await c.request('POST', '/api/auth/sign-in/email', { json: { email: 'alice@example.com', password: PASSWORD } });
  assert.equal(signIn.status, 200, signIn.body);
  assert.equal(signIn.json().user.email, 'alice@example.com');
  assert.deepEqual(keys.seen, ['127.0.0.1'], 'the client\'s address reached the pool');
  const session = await c.request('GET', '/api/auth/get-session');
  assert.equal(session.json().user.email, 'alice@example.com');

  assert.equal((await c.request('POST', '/api/auth/sign-out', { json: {} })).status, 200);
  assert.equal((await c.request('GET', '/api/auth/get-session')).json(), null);
});

test('a wrong password is better-auth\'s 401', async () => {
  const c = client(port, { origin: 'http://127.0.0.1' });
  const wrong = await c.request('POST', '/api/auth/sign-in/email',
    { json: { email: 'alice@example.com', password: `${PASSWORD}!` } });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.json(), { message: 'Invalid email or password', code: 'INVALID_EMAIL_OR_PASSWORD' });
});

test('a saturated pool: 503 with Retry-After and better-auth\'s error body, one stderr line per refusal at most', async () => {
  const c = client(port, { origin: 'http://127.0.0.1' });
  const signIn = () => c.request('POST', '/api/auth/sign-in/email', { json: { email: 'alice@example.com', password: PASSWORD } });
  const signUp = () => c.request('POST', '/api/auth/sign-up/email',
    { json: { email: 'bob@example.com', password: PASSWORD, name: 'Bob' } });
  const saturated = await whileSaturated(pool, [signIn, signIn, signIn, signIn, signUp]);
  assertQuietRefusals(saturated);
  for (const a of saturated.answers) {
    assert.equal(a.status, 503, a.body);
    assert.match(a.headers['retry-after'], /^[1-9][0-9]*$/);
    const body = a.json();
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message']);
    assert.equal(body.code, 'ERR_KDF_POOL_SATURATED');
    assert.match(body.message, /saturated/);
  }
  assert.equal(db.user.some((u) => u.email === 'bob@example.com'), false, 'a refused sign-up creates no user');
  assert.equal((await signIn()).status, 200, 'served again once the thread is free');
});

test('a user of better-auth\'s default hasher signs in after the switch and is rehashed to the target', async () => {
  // The same database, served first by better-auth with its own hasher.
  const before = betterAuth({ database: memoryAdapter(db), emailAndPassword: { enabled: true } });
  // NFKC: better-auth normalises before hashing ('ﬁ' is 'fi').
  const legacyPassword = 'ﬁve légacy wörds';
  await before.api.signUpEmail({ body: { email: 'carol@example.com', password: legacyPassword, name: 'Carol' } });
  const legacy = storedHash('carol@example.com');
  assert.match(legacy, /^[0-9a-f]{32}:[0-9a-f]{128}$/, 'better-auth\'s own salt:key');

  const c = client(port, { origin: 'http://127.0.0.1' });
  const wrong = await c.request('POST', '/api/auth/sign-in/email',
    { json: { email: 'carol@example.com', password: 'five légacy wörds!' } });
  assert.equal(wrong.status, 401, wrong.body);
  assert.equal(storedHash('carol@example.com'), legacy, 'no upgrade without a sign-in');

  const signIn = await c.request('POST', '/api/auth/sign-in/email', { json: { email: 'carol@example.com', password: legacyPassword } });
  assert.equal(signIn.status, 200, signIn.body);
  const upgraded = storedHash('carol@example.com');
  assert.match(upgraded, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.equal(kdf.needsRehash(upgraded), false);
  // Of the NFKC form, as better-auth hashed it.
  assert.equal(await kdf.verify(upgraded, legacyPassword.normalize('NFKC')), true);
  assert.equal(await kdf.verify(upgraded, legacyPassword, { normalize: 'NFKC' }), true);

  // The upgraded hash signs in, under either spelling as before the switch, and is kept.
  for (const spelling of [legacyPassword, 'five légacy wörds']) {
    const again = await c.request('POST', '/api/auth/sign-in/email', { json: { email: 'carol@example.com', password: spelling } });
    assert.equal(again.status, 200, again.body);
    assert.equal(storedHash('carol@example.com'), upgraded);
  }
});

test('password() alone: better-auth\'s hooks; options are checked at once', async () => {
  const { password, kdfpool } = require('../lib/frameworks/better-auth');
  const hooks = password({ pool, target: { algorithm: 'scrypt', ln: 10 } });
  const stored = await hooks.hash(PASSWORD);
  assert.match(stored, /^\$scrypt\$ln=10,r=8,p=1\$/);
  assert.equal(await hooks.verify({ hash: stored, password: PASSWORD }), true);
  assert.equal(await hooks.verify({ hash: stored, password: 'nope' }), false);
  // NFKC by default, as better-auth's own hasher; a target may say otherwise.
  assert.equal(await hooks.verify({ hash: await hooks.hash('ﬁ'), password: 'fi' }), true);
  const raw = password({ pool, target: { normalize: undefined } });
  assert.equal(await raw.verify({ hash: await raw.hash('ﬁ'), password: 'fi' }), false);
  const release = await saturate(pool);
  try {
    await assert.rejects(hooks.verify({ hash: stored, password: PASSWORD }), (err) => {
      assert.equal(err.name, 'APIError');
      assert.equal(err.status, 'SERVICE_UNAVAILABLE');
      assert.equal(err.statusCode, 503);
      assert.deepEqual(err.headers, { 'retry-after': err.headers['retry-after'] });
      assert.match(err.headers['retry-after'], /^[1-9][0-9]*$/);
      assert.equal(err.body.code, 'ERR_KDF_POOL_SATURATED');
      return true;
    });
  } finally {
    await release();
  }
  // A malformed stored hash stays what it was (better-auth answers 500).
  await assert.rejects(hooks.verify({ hash: 'not a hash', password: PASSWORD }),
    { name: 'InvalidHashError', code: 'ERR_KDF_INVALID_HASH' });
  for (const make of [password, kdfpool]) {
    assert.throws(() => make({ pool, maxWaitMS: 1 }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
    assert.throws(() => make({ target: { algorithm: 'argon2id', maxWaitMS: 1 } }),
      { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
    assert.throws(() => make({ pool: {} }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => make('pool'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  }
});
