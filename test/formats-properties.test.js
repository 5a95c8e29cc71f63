'use strict';

// fast-check properties of the other frameworks' formats (lib/phc/formats/),
// with independent makers (test/fuzz/foreign.js: node:crypto following each
// framework's recipe) and the fuzz oracle (test/fuzz/oracle.js):
// - any password, salt and (cheap) parameters: the framework's string
//   verifies with that password, not with another, and needs a rehash;
// - any single edit of such a string: verify() answers a boolean or refuses
//   with InvalidHashError / HashLimitError and queues nothing, needsRehash()
//   agrees on "malformed", and a `true` is only ever for a string that means
//   the same KDF computation as the original (or a prefix of its output);
// - any generated foreign-looking string (test/fuzz/phc-arbitrary.js's
//   FOREIGN): the same refusal rules.
// Run counts are small for CI; KDFPOOL_PROPERTY_RUNS raises them.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fc = require('fast-check');
const kdf = require('..');
const { make } = require('./fuzz/foreign');
const { meaning, sameMeaning } = require('./fuzz/oracle');
const { FOREIGN } = require('./fuzz/phc-arbitrary');

const RUNS = Number(process.env.KDFPOOL_PROPERTY_RUNS || 40);
const LIMITS = { pbkdf2Iterations: 2000, scryptMemory: 1 << 20, argon2Memory: 1024, bcryptCost: 5 };

let pool;
before(() => {
  pool = kdf.createPool({ name: 'fprop', threads: 2, priority: 'normal', maxQueue: 1024, hashLimits: LIMITS });
});
after(() => pool.close());

const PASSWORD = fc.oneof(fc.string({ maxLength: 24 }), fc.string({ unit: 'grapheme', maxLength: 8 }));
const SALT_TEXT = fc.stringMatching(/^[A-Za-z0-9]{1,24}$/);
const BYTES = (min, max) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b));
const SCRYPT = fc.record({ N: fc.constantFrom(2, 4, 16, 64), r: fc.integer({ min: 1, max: 4 }), p: fc.integer({ min: 1, max: 2 }) });

// Arbitraries of makers: (password) -> a stored string of one format.
const MAKERS = fc.oneof(
  fc.tuple(SALT_TEXT, fc.constantFrom('sha1', 'sha256'), fc.integer({ min: 1, max: 20 }))
    .map(([salt, d, n]) => (pw) => make.django.pbkdf2(pw, salt, d, n)),
  fc.tuple(SALT_TEXT, SCRYPT).map(([salt, s]) => (pw) => make.django.scrypt(pw, salt, s.N, s.r, s.p)),
  fc.tuple(SALT_TEXT, fc.constantFrom('sha1', 'sha224', 'sha256', 'sha384', 'sha512'), fc.integer({ min: 1, max: 20 }))
    .map(([salt, d, n]) => (pw) => make.werkzeug.pbkdf2(pw, salt, d, n)),
  fc.tuple(SALT_TEXT, SCRYPT).map(([salt, s]) => (pw) => make.werkzeug.scrypt(pw, salt, s.N, s.r, s.p)),
  fc.tuple(BYTES(16, 40), fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 16, max: 70 }))
    .map(([salt, prf, n, len]) => (pw) => make.aspnet.v3(pw, salt, prf, n, len)),
  BYTES(16, 16).map((salt) => (pw) => make.aspnet.v2(pw, salt)),
  fc.tuple(BYTES(1, 40), SCRYPT, fc.integer({ min: 10, max: 64 }))
    .map(([salt, s, len]) => (pw) => make.spring.scrypt(pw, salt, s.N, s.r, s.p, len)),
);

const INVALID = 'ERR_KDF_INVALID_HASH';
const LIMIT = 'ERR_KDF_HASH_LIMIT';

// verify()'s answer with the refusal rules: a boolean, or InvalidHashError
// / HashLimitError with nothing queued and needsRehash() agreeing.
async function answer(stored, pw) {
  const before = pool.stats().submitted;
  let refused = null;
  const result = await pool.verify(stored, pw).catch((err) => {
    refused = err;
  });
  if (refused === null) {
    assert.equal(typeof result, 'boolean');
    assert.doesNotThrow(() => kdf.needsRehash(stored, { limits: LIMITS }));
    return result;
  }
  assert.ok([INVALID, LIMIT].includes(refused.code), `${refused.code}: ${refused.stack}`);
  assert.equal(pool.stats().submitted, before, `nothing queued for ${JSON.stringify(stored)}`);
  if (refused.code === INVALID) assert.throws(() => kdf.needsRehash(stored), { code: INVALID });
  return refused.code;
}

test('any password, salt and parameters: true, false for another, needs a rehash', async () => {
  await fc.assert(fc.asyncProperty(MAKERS, PASSWORD, async (maker, pw) => {
    const stored = maker(pw);
    assert.equal(await pool.verify(stored, pw), true, stored);
    // Not pw + NUL: HMAC pads its key with zeros, so PBKDF2 and scrypt
    // cannot tell "" from "\0" (nor can the frameworks).
    assert.equal(await pool.verify(stored, `x${pw}`), false);
    assert.equal(kdf.needsRehash(stored, kdf.rehashTarget(stored)), true); // due, at no less than its cost
  }), { numRuns: RUNS });
});

const EDIT = fc.tuple(fc.nat(), fc.constantFrom('cut', 'drop', 'insert', 'replace', 'append'),
  fc.constantFrom('$', ':', '=', 'A', 'a', '0', 'f', 'F', '+', '/', '-', '{', '}', ' ', '\n', '\u00e9', 'zz'));

function edit(s, [at, how, ch]) {
  const i = at % (s.length + 1);
  switch (how) {
    case 'cut': return s.slice(0, i);
    case 'drop': return s.slice(0, i) + s.slice(i + 1);
    case 'insert': return s.slice(0, i) + ch + s.slice(i);
    case 'replace': return s.slice(0, i) + ch + s.slice(i + 1);
    default: return s + ch;
  }
}

test('any single edit: a boolean or a refusal before any work; true only for the same computation', async () => {
  await fc.assert(fc.asyncProperty(MAKERS, PASSWORD, EDIT, async (maker, pw, change) => {
    const original = maker(pw);
    const stored = edit(original, change);
    const result = await answer(stored, pw);
    if (result === true && stored !== original) {
      assert.ok(sameMeaning(meaning(stored), meaning(original), true), `${original} -> ${stored} verified`);
    }
  }), { numRuns: RUNS * 4 });
});

test('generated foreign-looking strings: a boolean or a refusal before any work', async () => {
  await fc.assert(fc.asyncProperty(FOREIGN, PASSWORD, async (stored, pw) => {
    await answer(stored, pw);
  }), { numRuns: RUNS * 6 });
});
