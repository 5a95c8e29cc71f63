'use strict';

// What the auth-framework tests share: a loopback HTTP client with a
// cookie jar (and a chosen source address: 127.0.0.x are distinct clients
// on Linux's loopback), the recipes of docs/frameworks.md as modules, a
// pool held saturated by a gate, and a count of what reaches stderr.

const assert = require('node:assert/strict');
const dc = require('node:diagnostics_channel');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { once } = require('node:events');
const { gate } = require('./gate');
const { until } = require('./until');

const ROOT = path.join(__dirname, '..', '..');

async function listen(server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server.address().port;
}

function close(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * A client of one server: request(method, path, { json, form, headers })
 * -> { status, headers, body, json() }, sending and keeping the cookies
 * the server sets. `localAddress`: the client's own loopback address.
 */
function client(port, { localAddress = '127.0.0.1', origin } = {}) {
  const cookies = new Map();
  function request(method, urlPath, { json, form, headers = {} } = {}) {
    let body;
    const sent = { ...headers };
    if (json !== undefined) {
      body = JSON.stringify(json);
      sent['content-type'] = 'application/json';
    } else if (form !== undefined) {
      body = new URLSearchParams(form).toString();
      sent['content-type'] = 'application/x-www-form-urlencoded';
    }
    if (body !== undefined) sent['content-length'] = Buffer.byteLength(body);
    if (origin !== undefined) sent.origin = origin;
    if (cookies.size > 0) sent.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers: sent, localAddress, agent: false },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => { text += chunk; });
          res.on('end', () => {
            for (const line of res.headers['set-cookie'] || []) {
              const [pair] = line.split(';');
              const eq = pair.indexOf('=');
              const name = pair.slice(0, eq).trim();
              const value = pair.slice(eq + 1).trim();
              if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(name);
              else cookies.set(name, value);
            }
            resolve({ status: res.statusCode, headers: res.headers, body: text, json: () => JSON.parse(text) });
          });
        });
      req.on('error', reject);
      req.end(body);
    });
  }
  return { request, cookies };
}

// Inside this checkout, so that `kdfpool` resolves to it by its own name:
// not .tmp, which a git worktree may share with another checkout.
const RECIPES = path.join(ROOT, 'build', 'recipes');

/** The code block after `<!-- recipe: name -->` in docs/frameworks.md. */
function recipeSource(name) {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'frameworks.md'), 'utf8');
  const at = doc.indexOf(`<!-- recipe: ${name} -->`);
  assert.ok(at >= 0, `recipe ${name} in docs/frameworks.md`);
  const block = /```(?:js|ts)\n([\s\S]*?)```/.exec(doc.slice(at));
  assert.ok(block, `a code block after recipe ${name}`);
  return block[1];
}

/**
 * A recipe of docs/frameworks.md, written to build/recipes/<name>.<ext>
 * (inside the package, so `kdfpool` resolves to this checkout by its own
 * name) and loaded: 'cjs', 'mjs', or 'ts' (TypeScript with decorators,
 * compiled to CommonJS by the checkout's TypeScript, not type-checked:
 * test/frameworks-types.test.js does that).
 */
async function recipe(name, ext = 'cjs') {
  let code = recipeSource(name);
  if (ext === 'ts') {
    const ts = require('typescript');
    code = ts.transpileModule(code, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
        experimentalDecorators: true, emitDecoratorMetadata: true,
      },
    }).outputText;
    ext = 'cjs';
  }
  fs.mkdirSync(RECIPES, { recursive: true });
  const file = path.join(RECIPES, `${name}.${ext}`);
  fs.writeFileSync(file, code);
  return ext === 'mjs' ? import(file) : require(file);
}

/**
 * Holds every thread of `pool` (made with maxQueue: 0) with gates, so each
 * further call is refused at once; returns release(), which waits for the
 * gates to end.
 */
async function saturate(pool) {
  const { threads } = pool.stats();
  const held = Array.from({ length: threads }, () => gate(pool));
  await until(() => pool.stats().running === threads, 'the gates to hold every thread');
  return async () => {
    for (const g of held) g.release();
    await Promise.all(held.map((g) => g.done));
  };
}

/**
 * Records what is written to process.stderr (console.error and the
 * frameworks' loggers write there) until stop(), which restores it and
 * returns the lines written.
 */
function captureStderr() {
  const write = process.stderr.write;
  let text = '';
  process.stderr.write = function captured(chunk, encoding, callback) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') process.nextTick(done);
    return true;
  };
  return {
    stop() {
      process.stderr.write = write;
      return text === '' ? [] : text.replace(/\n$/, '').split('\n');
    },
  };
}

/**
 * Sends each of `requests` (functions returning a response promise), one
 * after the other, while every thread of `pool` is held, recording
 * stderr meanwhile. Returns { answers, lines (stderr), refused (by the
 * pool meanwhile) }; the pool is released before it returns.
 */
async function whileSaturated(pool, requests) {
  const release = await saturate(pool);
  const refusedBefore = pool.stats().refused;
  const stderr = captureStderr();
  const answers = [];
  let lines;
  try {
    for (const send of requests) answers.push(await send());
  } finally {
    lines = stderr.stop();
    await release();
  }
  return { answers, lines, refused: pool.stats().refused - refusedBefore };
}

/** At most one stderr line per refusal, and every request refused by the pool. */
function assertQuietRefusals({ answers, lines, refused }) {
  assert.equal(refused, answers.length, 'every request was refused by the pool');
  assert.ok(lines.length <= refused, `${lines.length} stderr lines for ${refused} refusals:\n${lines.join('\n')}`);
}

/**
 * A pool's fairKey function that records the keys it gave (those of
 * kdf.currentFairKey()): proof that the request's key reached the
 * framework's password hook.
 */
function keysSeen(currentFairKey) {
  const seen = [];
  return {
    seen,
    fairKey() {
      const key = currentFairKey();
      seen.push(key);
      return key;
    },
  };
}

// ---------------------------------------------------------------- unknown users

// Targets and passwords an unknown user must be indistinguishable under:
// each family, at costs of half a millisecond to two here; passwords up to and
// past bcrypt's 72 bytes (hash() refuses those for a bcrypt target,
// verify() reads them), in ASCII and in two-byte characters.
const UNKNOWN_USER_TARGETS = Object.freeze({
  argon2id: { memory: 2048, passes: 2 },
  scrypt: { algorithm: 'scrypt', ln: 10, r: 8 },
  'pbkdf2-sha256': { algorithm: 'pbkdf2-sha256', iterations: 20000 },
  bcrypt: { algorithm: 'bcrypt', cost: 5 },
});
const UNKNOWN_USER_PASSWORDS = Object.freeze(['wrong pw', 'w'.repeat(72), 'w'.repeat(100), '\u00e9'.repeat(60)]);

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * What one request does, as the client and the operator see it: the
 * client's answer (`answerOf(response)`), the stderr lines (`lineOf`
 * rewrites each, e.g. a framework's own wording for the two cases), the
 * KDF jobs submitted (`submissions`, test/helpers/submissions.js: field by
 * field) and their native run time on `poolName` (ms, summed).
 */
async function observe(send, { submissions, answerOf, lineOf, poolName }) {
  let runMs = 0;
  const handlers = {
    start() {}, end() {}, asyncStart() {}, error() {},
    asyncEnd: (ctx) => { if (ctx.pool === poolName && typeof ctx.runMs === 'number') runMs += ctx.runMs; },
  };
  const channel = dc.tracingChannel('kdfpool:job');
  channel.subscribe(handlers);
  const stderr = captureStderr();
  let response;
  let lines;
  let jobs;
  try {
    jobs = await submissions(async () => { response = await send(); });
  } finally {
    lines = stderr.stop();
    channel.unsubscribe(handlers);
  }
  return { answer: answerOf(response), lines: lines.map(lineOf), jobs, runMs };
}

/**
 * An unknown user costs and answers what a wrong password for a known user
 * does. `attempt(kind, password)` sends one sign-in for `kind` 'existing'
 * (a known user, a wrong password) or 'missing' (no such user) and returns
 * the response. For every password: the same answer, the same stderr lines
 * and the same KDF jobs, field by field. Then, for `timed` passwords, the
 * native run time of the jobs of each request: the medians of interleaved
 * pairs (the order alternating) within 15 %, pooled over rounds of `pairs`
 * until within 5 % (never a raw time, never a round picked).
 */
async function assertUnknownUserAlike(t, {
  pool, attempt, submissions, answerOf, lineOf = (line) => line, passwords = UNKNOWN_USER_PASSWORDS,
  timed = [passwords[passwords.length - 1]], pairs = 24, label = '',
}) {
  const how = { submissions, answerOf, lineOf, poolName: pool.stats().name };
  for (const password of passwords) {
    const existing = await observe(() => attempt('existing', password), how);
    const missing = await observe(() => attempt('missing', password), how);
    const what = `${label} ${JSON.stringify(password.slice(0, 12))}… (${Buffer.byteLength(password)} bytes)`;
    assert.deepEqual(missing.answer, existing.answer, `the answer, ${what}`);
    assert.deepEqual(missing.lines, existing.lines, `the stderr lines, ${what}`);
    assert.ok(existing.jobs.length >= 1, `a wrong password is checked, ${what}`);
    assert.deepEqual(missing.jobs, existing.jobs, `the KDF jobs, ${what}`);
  }
  for (const password of timed) {
    const all = { existing: [], missing: [] };
    let ratio;
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < pairs; i++) {
        for (const kind of i % 2 === 0 ? ['existing', 'missing'] : ['missing', 'existing']) {
          all[kind].push((await observe(() => attempt(kind, password), how)).runMs);
        }
      }
      ratio = median(all.missing) / median(all.existing);
      t.diagnostic(`${label} ${Buffer.byteLength(password)}-byte password: ${all.existing.length} pairs, median run ` +
        `existing ${median(all.existing).toFixed(3)} ms, missing ${median(all.missing).toFixed(3)} ms, ratio ${ratio.toFixed(3)}`);
      if (Math.abs(ratio - 1) <= 0.05) break;
    }
    assert.ok(median(all.existing) > 0, 'the runs were timed');
    assert.ok(Math.abs(ratio - 1) <= 0.15, `${label}: median run time ratio missing/existing = ${ratio.toFixed(3)}, not within 15 %`);
  }
}

/**
 * KDF jobs per sign-in on `pool` (its `submitted` counter) for `times`
 * sign-ins by `signIn()`, each asserted to succeed by the caller.
 */
async function jobsPerSignIn(pool, signIn, times = 4) {
  const counts = [];
  for (let i = 0; i < times; i++) {
    const before = pool.stats();
    await signIn();
    const after = pool.stats();
    assert.equal(after.completed - before.completed, after.submitted - before.submitted, 'every job completed');
    counts.push(after.submitted - before.submitted);
  }
  return counts;
}

// A pepper rotated from k1 to k2: the keys, and a cheap Argon2 target.
const ROTATION = Object.freeze({ keys: { k1: 'pepper-one-8c1e', k2: 'pepper-two-5f0a' }, target: { memory: 256, passes: 1 } });

/**
 * A pool `name` whose secret's current key is k2 (k1 kept), and `password`
 * hashed while k1 was current: { pool, hash, target }.
 */
async function rotatedPool(kdf, name, password) {
  const pool = kdf.createPool({ name, threads: 1, secret: { current: 'k2', keys: ROTATION.keys } });
  const hash = await pool.hash(password, { ...ROTATION.target, secret: { current: 'k1', keys: ROTATION.keys } });
  return { pool, hash, target: ROTATION.target };
}

/**
 * Four sign-ins by `signIn()` after a rotation: a verify and a rehash,
 * then one verify each; `stored()` then names k2 (keyid=azI).
 */
async function assertRehashedOnce(pool, signIn, stored) {
  const counts = await jobsPerSignIn(pool, signIn);
  assert.deepEqual(counts, [2, 1, 1, 1], 'a verify and a rehash, then a verify per sign-in');
  assert.match(stored(), /,keyid=azI\$/);
}

module.exports = {
  listen, close, client, recipeSource, recipe, saturate, captureStderr, whileSaturated, assertQuietRefusals, keysSeen,
  assertUnknownUserAlike, jobsPerSignIn, rotatedPool, assertRehashedOnce, UNKNOWN_USER_TARGETS, UNKNOWN_USER_PASSWORDS,
  RECIPES,
};
