'use strict';

// Auth.js (@auth/express, Credentials provider) with kdfpool/authjs, as
// docs/frameworks.md's recipe builds it, on loopback: sign-in, session and
// sign-out; a wrong password's CredentialsSignin redirect; a saturated
// pool's 503 with Retry-After and Auth.js's body for code=rate_limited for a
// client that asked for JSON, and Auth.js's redirect (with Retry-After) for
// a browser's form, at most one stderr line per refusal, which names the
// pool and gives Retry-After's seconds; a legacy hash upgraded on sign-in;
// authorize() without tooManyRequests(): Auth.js's own quiet failure; an
// unknown user answered and costing as a wrong password, for every target
// and password length; a rotating pepper's rehash done once.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
const { submissions } = require('./helpers/submissions'); // before kdfpool loads
const kdf = require('..');
const {
  listen, close, client, recipe, saturate, whileSaturated, assertQuietRefusals, keysSeen, assertUnknownUserAlike,
  rotatedPool, assertRehashedOnce, UNKNOWN_USER_TARGETS,
} = require('./helpers/frameworks');

const PASSWORD = 'correct horse battery staple';
const JSON_REDIRECT = { 'x-auth-return-redirect': '1' };
const keys = keysSeen(kdf.currentFairKey);
let createApp;
let pool;
let users;
let server;
let port;

before(async () => {
  process.env.AUTH_SECRET = crypto.randomBytes(32).toString('hex');
  ({ createApp } = await recipe('authjs', 'mjs'));
  pool = kdf.createPool({ name: 'authjs', threads: 1, maxQueue: 0, fairKey: keys.fairKey });
  users = new Map([
    ['alice@example.com', { id: '1', hash: await pool.hash(PASSWORD) }],
    ['bob@example.com', { id: '2', hash: await pool.hash(PASSWORD, { algorithm: 'pbkdf2-sha256', iterations: 1000 }) }],
  ]);
  server = http.createServer(createApp({ pool, users }));
  port = await listen(server);
});

after(async () => {
  if (server) await close(server);
  if (pool) await pool.close();
});

// Auth.js's sign-in: the CSRF token first, then the credentials callback.
async function signIn(c, email, password, headers = {}) {
  const { csrfToken } = (await c.request('GET', '/auth/csrf')).json();
  return c.request('POST', '/auth/callback/credentials', { form: { csrfToken, email, password }, headers });
}

async function session(c) {
  return (await c.request('GET', '/auth/session')).json();
}

test('sign-in, session and sign-out; the client\'s address reaches the pool', async () => {
  const c = client(port);
  keys.seen.length = 0;
  const ok = await signIn(c, 'alice@example.com', PASSWORD);
  assert.equal(ok.status, 302, ok.body);
  assert.doesNotMatch(ok.headers.location, /error=/);
  assert.deepEqual(keys.seen, ['127.0.0.1']);
  assert.equal((await session(c)).user.email, 'alice@example.com');

  const { csrfToken } = (await c.request('GET', '/auth/csrf')).json();
  const out = await c.request('POST', '/auth/signout', { form: { csrfToken }, headers: JSON_REDIRECT });
  assert.equal(out.status, 200, out.body);
  assert.equal(await session(c), null);

  // A client that asks for JSON (signIn(..., { redirect: false })).
  const json = await signIn(c, 'alice@example.com', PASSWORD, JSON_REDIRECT);
  assert.equal(json.status, 200);
  assert.doesNotMatch(json.json().url, /error=/);
  assert.equal((await session(c)).user.email, 'alice@example.com');
});

test('a wrong password or an unknown user: Auth.js\'s CredentialsSignin redirect', async () => {
  const c = client(port);
  for (const [email, password] of [['alice@example.com', `${PASSWORD}!`], ['mallory@example.com', PASSWORD]]) {
    const redirect = await signIn(c, email, password);
    assert.equal(redirect.status, 302);
    assert.match(redirect.headers.location, /\/auth\/signin\?error=CredentialsSignin&code=credentials$/);
    const json = await signIn(c, email, password, JSON_REDIRECT);
    assert.equal(json.status, 200);
    assert.match(json.json().url, /error=CredentialsSignin&code=credentials$/);
    assert.equal(await session(c), null);
  }
});

test('a legacy hash is upgraded on sign-in', async () => {
  const c = client(port);
  assert.equal(kdf.needsRehash(users.get('bob@example.com').hash), true);
  const ok = await signIn(c, 'bob@example.com', PASSWORD, JSON_REDIRECT);
  assert.doesNotMatch(ok.json().url, /error=/);
  assert.match(users.get('bob@example.com').hash, /^\$argon2id\$/);
  assert.equal(kdf.needsRehash(users.get('bob@example.com').hash), false);
});

test('a saturated pool: 503 with Retry-After and Auth.js\'s body for JSON, its redirect for a browser; one log line each', async () => {
  const c = client(port);
  // The CSRF tokens first: nothing below but the refused sign-ins may log.
  const tokens = [];
  for (let i = 0; i < 4; i++) tokens.push((await c.request('GET', '/auth/csrf')).json().csrfToken);
  const saturated = await whileSaturated(pool, tokens.map((csrfToken, i) => () => c.request('POST', '/auth/callback/credentials', {
    form: { csrfToken, email: 'alice@example.com', password: PASSWORD }, headers: i % 2 ? JSON_REDIRECT : {},
  })));
  assertQuietRefusals(saturated);
  for (const [i, a] of saturated.answers.entries()) {
    assert.match(a.headers['retry-after'], /^[1-9][0-9]*$/);
    // Auth.js's own answer for a failed sign-in, code=rate_limited: as a
    // 503 to a client that asked for JSON; as its redirect to the sign-in
    // page to a browser (a 503 with a Location shows a blank page).
    if (i % 2) {
      assert.equal(a.status, 503, a.body);
      assert.match(a.json().url, /\/auth\/signin\?error=CredentialsSignin&code=rate_limited$/);
    } else {
      assert.equal(a.status, 302, a.body);
      assert.match(a.headers.location, /\/auth\/signin\?error=CredentialsSignin&code=rate_limited$/);
    }
  }
  // Auth.js's log line for each: the pool and Retry-After's seconds, no other figure.
  assert.equal(saturated.lines.length, saturated.answers.length, saturated.lines.join('\n'));
  for (const [i, line] of saturated.lines.entries()) {
    assert.match(line, /CredentialsSignin: pool "authjs" is saturated \(queue full\); retry in \d+ s/);
    assert.ok(line.includes(`retry in ${saturated.answers[i].headers['retry-after']} s`), line);
  }
  assert.equal(await session(c), null);
  const ok = await signIn(c, 'alice@example.com', PASSWORD, JSON_REDIRECT);
  assert.doesNotMatch(ok.json().url, /error=/, 'served again once the thread is free');
});

test('authorize() alone: a refusal is Auth.js\'s CredentialsSignin with code rate_limited, its cause the refusal', async () => {
  const { authorize, tooManyRequests } = require('../lib/frameworks/authjs');
  const { CredentialsSignin } = await import('@auth/core/errors');
  const refused = authorize(() => pool.verify(users.get('alice@example.com').hash, PASSWORD));
  const release = await saturate(pool);
  try {
    await assert.rejects(refused({}), (err) => {
      assert.ok(err instanceof CredentialsSignin);
      assert.equal(err.type, 'CredentialsSignin');
      assert.equal(err.code, 'rate_limited');
      assert.equal(err.stack, '');
      assert.equal(err.cause.code, 'ERR_KDF_POOL_SATURATED');
      return true;
    });
  } finally {
    await release();
  }
  const closed = kdf.createPool({ name: 'authjsc', threads: 1 });
  await closed.close();
  await assert.rejects(authorize(() => closed.hash(PASSWORD))({}), { code: 'unavailable', type: 'CredentialsSignin' });
  // Anything else passes through unchanged; results too.
  await assert.rejects(authorize(() => kdf.verify('nope', PASSWORD))({}), { name: 'InvalidHashError' });
  assert.deepEqual(await authorize(async (creds) => ({ id: creds.id }))({ id: '7' }), { id: '7' });
  assert.throws(() => authorize('fn'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => tooManyRequests({}), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
});

// An app of its own on `own`, with `target`: { port, stop() }.
async function ownApp(own, known, target) {
  const app = http.createServer(createApp({ pool: own, users: known, target }));
  const p = await listen(app);
  return { port: p, stop: () => close(app) };
}

test('an unknown user costs and answers what a wrong password does: every target, every password length', async (t) => {
  for (const [i, [name, target]] of Object.entries(UNKNOWN_USER_TARGETS).entries()) {
    const own = kdf.createPool({ name: `ajs.u${i}`, threads: 1, priority: 'normal' });
    const known = new Map([['alice@example.com', { id: '1', hash: await own.hash(PASSWORD, target) }]]);
    const served = await ownApp(own, known, target);
    const c = client(served.port);
    try {
      await assertUnknownUserAlike(t, {
        pool: own, submissions, label: name,
        attempt: (kind, password) => signIn(c, kind === 'existing' ? 'alice@example.com' : 'mallory@example.com', password,
          JSON_REDIRECT),
        answerOf: (r) => ({ status: r.status, body: r.json(), location: r.headers.location }),
      });
      // A browser's form post too.
      await assertUnknownUserAlike(t, {
        pool: own, submissions, label: `${name} (form)`, timed: [],
        attempt: (kind, password) => signIn(c, kind === 'existing' ? 'alice@example.com' : 'mallory@example.com', password),
        answerOf: (r) => ({ status: r.status, body: r.body, location: r.headers.location }),
      });
    } finally {
      await served.stop();
      await own.close();
    }
  }
});

test('rotating peppers: a sign-in rehashes once, on the pool that hashes', async () => {
  const { pool: own, hash, target } = await rotatedPool(kdf, 'ajs.r', PASSWORD);
  const known = new Map([['alice@example.com', { id: '1', hash }]]);
  const served = await ownApp(own, known, target);
  try {
    await assertRehashedOnce(own, async () => {
      const ok = await signIn(client(served.port), 'alice@example.com', PASSWORD, JSON_REDIRECT);
      assert.doesNotMatch(ok.json().url, /error=/);
    }, () => known.get('alice@example.com').hash);
  } finally {
    await served.stop();
    await own.close();
  }
});
