'use strict';

// better-auth's default stored hash, hex(salt):hex(key) (lib/phc/formats/
// better-auth.js): strings written by better-auth's own hasher
// (test/vectors/better-auth.json, from make-better-auth.mjs, and fresh ones
// from the installed better-auth) verify exactly as better-auth answers,
// NFKC included; needsRehash() moves them to the target on login; malformed
// strings are InvalidHashError with nothing queued; the limits apply before
// any work. Also the `normalize` option that keeps better-auth's NFKC
// behaviour after the switch.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { vectors } = require('./vectors/better-auth.json');
const { assertVerifies, assertMalformed, assertOverLimit, workOf } = require('./helpers/formats');

let pool;
before(() => {
  pool = kdf.createPool({ name: 'bauth', threads: 2, priority: 'normal' });
});
after(() => pool.close());

describe('better-auth vectors (made by better-auth/crypto hashPassword)', () => {
  for (const v of vectors) {
    test(`${JSON.stringify(v.password).slice(0, 40)}: true for its spellings, false for near misses`, async () => {
      await assertVerifies(pool, v.hash, [v.password, ...v.same], v.other);
    });
  }

  test('a password given as bytes is taken as it is (not normalised)', async () => {
    const v = vectors.find((x) => x.password === '\ufb01le-\uff50\uff41\uff53\uff53');
    assert.equal(await pool.verify(v.hash, Buffer.from('file-pass')), true);
    assert.equal(await pool.verify(v.hash, Buffer.from(v.password)), false);
  });
});

describe('a user created by better-auth signs in after the switch and is rehashed', () => {
  test('fresh strings from the installed better-auth, then the upgrade on login, at no less than their cost', async () => {
    const { hashPassword } = await import('better-auth/crypto');
    // Cheaper than better-auth's scrypt (N=16384, r=16, p=1, 64-byte key),
    // as the default argon2id is.
    const target = { algorithm: 'argon2id', memory: 8192, passes: 1, normalize: 'NFKC' };
    for (const password of ['hunter2', 'Stra\u00dfe \u2460']) {
      const legacy = await hashPassword(password);
      assert.equal(await pool.verify(legacy, password, target), true);
      // The target as given would cost less: not a rehash (never a silent downgrade) ...
      assert.equal(kdf.needsRehash(legacy, target), false);
      // ... unless asked for explicitly.
      assert.equal(kdf.needsRehash(legacy, { ...target, exact: true }), true);
      // The target raised to the string's cost: keeps at least its memory, then passes.
      const next = kdf.rehashTarget(legacy, target);
      assert.equal(next.algorithm, 'argon2id');
      assert.ok(next.memory >= 16384 * 16 * 128 / 1024, `m=${next.memory}`);
      assert.equal(next.normalize, 'NFKC');
      assert.equal(kdf.needsRehash(legacy, next), true);
      const stored = await pool.hash(password, next);
      assert.match(stored, new RegExp(`^\\$argon2id\\$v=19\\$m=${next.memory},t=${next.passes},p=1\\$`));
      const ratio = workOf(stored) / workOf(legacy);
      assert.ok(ratio >= 1, `the rehash costs ${ratio.toFixed(2)}x the string it replaces`);
      // Rehashed once: the next sign-in keeps it.
      assert.equal(kdf.needsRehash(stored, kdf.rehashTarget(stored, target)), false);
      assert.equal(await pool.verify(stored, password, target), true);
      // normalize: 'NFKC' keeps better-auth's rule: a compatibility spelling still signs in.
      assert.equal(await pool.verify(stored, password.normalize('NFKD'), target), true);
      assert.equal(await pool.verify(stored, `${password}!`, target), false);
    }
  });
});

describe('the normalize option', () => {
  test('hash and verify apply it to string passwords', async () => {
    const opts = { algorithm: 'scrypt', ln: 4, r: 1, normalize: 'NFKC' };
    const stored = await pool.hash('\ufb01', opts);
    assert.equal(await pool.verify(stored, 'fi', opts), true);
    assert.equal(await pool.verify(stored, 'fi'), true);
    assert.equal(await pool.verify(stored, '\ufb01'), false); // without the option: the raw form
    assert.equal(kdf.needsRehash(stored, opts), false);
    const nfc = await pool.hash('cafe\u0301', { ...opts, normalize: 'NFC' });
    assert.equal(await pool.verify(nfc, 'caf\u00e9'), true);
  });

  test('a value that is not a normalisation form is refused', async () => {
    for (const normalize of ['nfkc', 'NFKC ', true, 1, null]) {
      await assert.rejects(pool.verify(vectors[0].hash, 'x', { normalize }),
        { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
      await assert.rejects(pool.hash('x', { normalize }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
      assert.throws(() => kdf.needsRehash(vectors[0].hash, { normalize }), { code: 'ERR_INVALID_ARG_VALUE' });
    }
  });

  test('a password that normalisation makes longer than passwordLength is refused before any work', async () => {
    // U+FDFA is 3 bytes of UTF-8 and 33 once NFKC-expanded.
    const pw = '\ufdfa'.repeat(100);
    const before = pool.stats().submitted;
    await assert.rejects(pool.verify(vectors[0].hash, pw, { limits: { passwordLength: 1000 } }),
      { code: 'ERR_KDF_PASSWORD_TOO_LONG', limit: 'passwordLength' });
    await assert.rejects(pool.hash(pw, { normalize: 'NFKC', limits: { passwordLength: 1000 } }),
      { code: 'ERR_KDF_PASSWORD_TOO_LONG', limit: 'passwordLength' });
    assert.equal(pool.stats().submitted, before);
  });
});

describe('malformed better-auth strings: InvalidHashError, nothing queued', () => {
  const [salt, key] = vectors[0].hash.split(':');
  const cases = {
    'upper-case salt': `${salt.toUpperCase()}:${key}`,
    'upper-case key': `${salt}:${key.toUpperCase()}`,
    'short salt': `${salt.slice(2)}:${key}`,
    'long salt': `${salt}00:${key}`,
    'truncated key': `${salt}:${key.slice(0, -2)}`,
    'odd key': `${salt}:${key.slice(0, -1)}`,
    'long key': `${salt}:${key}00`,
    'non-hex key': `${salt}:${key.slice(0, -1)}g`,
    'empty key': `${salt}:`,
    'empty salt': `:${key}`,
    'two colons': `${salt}:${key}:`,
    'trailing space': `${salt}:${key} `,
    'trailing newline': `${salt}:${key}\n`,
    'just a colon': ':',
  };
  for (const [what, stored] of Object.entries(cases)) {
    test(what, () => assertMalformed(pool, stored));
  }
});

describe('limits: better-auth costs scrypt 2^14 r=16 (32 MiB), checked before any work', () => {
  test('scryptMemory and memory', async () => {
    await assertOverLimit(pool, vectors[0].hash, { scryptMemory: 16 * 1024 * 1024 }, 'scryptMemory');
    await assertOverLimit(pool, vectors[0].hash, { memory: 16 * 1024 * 1024 }, 'memory');
  });

  test('the default limits accept it; requiredLimits names nothing', () => {
    assert.deepEqual(kdf.requiredLimits(vectors.map((v) => v.hash)).hashLimits, {});
  });
});
