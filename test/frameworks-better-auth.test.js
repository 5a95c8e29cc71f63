'use strict';

// better-auth 1.7 with kdfpool/better-auth, as docs/frameworks.md's recipe
// builds it, on loopback with better-auth's memory adapter: sign-up,
// sign-in, session and sign-out; a wrong password's 401; a saturated pool's
// 503 with Retry-After and better-auth's error body (whose message gives
// Retry-After's seconds and names no pool), at most one stderr line per
// refusal; a user created by better-auth's own default hasher signing in
// after the switch, upgraded to kdfpool's target then at no less than its
// cost; an unknown user answered and costing as a wrong password, for
// every target and password length (a bcrypt target and a password past
// 72 bytes included); a rotating pepper's rehash done once.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { submissions } = require('./helpers/submissions'); // before kdfpool loads
const kdf = require('..');
const {
  listen, close, client, recipe, saturate, whileSaturated, assertQuietRefusals, keysSeen, assertUnknownUserAlike,
  assertRehashedOnce, UNKNOWN_USER_TARGETS,
} = require('./helpers/frameworks');
const { workOf } = require('./helpers/formats');

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
    // Retry-After's seconds, and no pool's name: that goes to the logs.
    assert.equal(body.message, `The pool is saturated (queue full); retry in ${a.headers['retry-after']} s`);
  }
  assert.equal(db.user.some((u) => u.email === 'bob@example.com'), false, 'a refused sign-up creates no user');
  assert.equal((await signIn()).status, 200, 'served again once the thread is free');
});

test('a user of better-auth\'s default hasher signs in after the switch and is rehashed, at no less than its cost', async () => {
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
  // Argon2id at no less than better-auth's scrypt (N=16384, r=16, p=1,
  // 64-byte key) by the pool's cost model: its 32 MiB at least, more
  // passes than the default's 2 (which cost about a third of it).
  const [, memory, passes] = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=1\$/.exec(upgraded).map(Number);
  assert.ok(memory >= 32768 && passes >= 2, upgraded);
  const ratio = workOf(upgraded) / workOf(legacy);
  assert.ok(ratio >= 1, `the rehash costs ${ratio.toFixed(2)}x better-auth's own hash`);
  assert.ok(workOf(await kdf.hash('x')) < workOf(legacy), 'the default target alone would have cost less');
  assert.equal(kdf.needsRehash(upgraded, kdf.rehashTarget(upgraded)), false);
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

test('an unknown user costs and answers what a wrong password does: every target, every password length', async (t) => {
  const { kdfpool: kdfpoolPlugin } = require('../lib/frameworks/better-auth');
  for (const [i, [name, target]] of Object.entries(UNKNOWN_USER_TARGETS).entries()) {
    const own = kdf.createPool({ name: `ba.u${i}`, threads: 1, priority: 'normal' });
    // The entry itself with each target (the recipe passes its target the same way).
    const auth = betterAuth({ database: memoryAdapter(freshDb()), emailAndPassword: { enabled: true },
      plugins: [kdfpoolPlugin({ pool: own, target })] });
    const app = createServer(auth);
    try {
      const p = await listen(app);
      const c = client(p, { origin: 'http://127.0.0.1' });
      const up = await c.request('POST', '/api/auth/sign-up/email', { json: { email: 'alice@example.com', password: PASSWORD, name: 'A' } });
      assert.equal(up.status, 200, up.body);
      await assertUnknownUserAlike(t, {
        pool: own, submissions, label: name,
        attempt: (kind, password) => client(p, { origin: 'http://127.0.0.1' }).request('POST', '/api/auth/sign-in/email',
          { json: { email: kind === 'existing' ? 'alice@example.com' : 'mallory@example.com', password } }),
        answerOf: (r) => ({ status: r.status, body: r.body, type: r.headers['content-type'] }),
        // better-auth's own warning names the case ("Invalid password", "User not found"),
        // after a timestamp: its words, server-side; the rest of the line must match.
        lineOf: (line) => line.replace(/^\S+/, '<time>').replace(/(Invalid password|User not found)$/, '<no such credential>'),
      });
    } finally {
      await close(app);
      await own.close();
    }
  }
});

test('rotating peppers: a sign-in rehashes once, on the pool that hashes', async () => {
  const keysOf = { k1: 'pepper-one-8c1e', k2: 'pepper-two-5f0a' };
  const T = { memory: 256, passes: 1 };
  const database = freshDb();
  // Signed up while k1 was current; then served by a pool where k2 is.
  const old = kdf.createPool({ name: 'ba.r1', threads: 1, secret: { current: 'k1', keys: { k1: keysOf.k1 } } });
  const own = kdf.createPool({ name: 'ba.r2', threads: 1, secret: { current: 'k2', keys: keysOf } });
  const before = createServer(createAuth(memoryAdapter(database), old, T));
  const app = createServer(createAuth(memoryAdapter(database), own, T));
  try {
    const c = client(await listen(before), { origin: 'http://127.0.0.1' });
    const up = await c.request('POST', '/api/auth/sign-up/email', { json: { email: 'dave@example.com', password: PASSWORD, name: 'D' } });
    assert.equal(up.status, 200, up.body);
    const p = await listen(app);
    const user = () => database.user.find((u) => u.email === 'dave@example.com');
    await assertRehashedOnce(own, async () => {
      const ok = await client(p, { origin: 'http://127.0.0.1' }).request('POST', '/api/auth/sign-in/email',
        { json: { email: 'dave@example.com', password: PASSWORD } });
      assert.equal(ok.status, 200, ok.body);
    }, () => database.account.find((a) => a.userId === user().id).password);
  } finally {
    await close(before);
    await close(app);
    await old.close();
    await own.close();
  }
});
