'use strict';

// bcrypt reads at most 72 bytes of a password. hash() refuses a longer one
// by default (NIST SP 800-63B rev. 4: verify the entire password; Spring
// Security's CVE-2025-22228 and pyca/bcrypt 5.0 did the same) with
// ERR_KDF_PASSWORD_TOO_LONG, on every path that writes a bcrypt string;
// `truncate: true` keeps the old cut. verify() of stored strings is
// unchanged: a `$2b$` npm bcrypt made from a 100-byte password still
// verifies, as npm bcrypt itself answers. needsRehash(stored, target,
// password) reports such a hash.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const npmBcrypt = require('bcrypt');
const bcryptjs = require('bcryptjs');
const kdf = require('..');

const BCRYPT = { algorithm: 'bcrypt', cost: 4 };
const pw72 = 'k'.repeat(72);
const pw73 = `${pw72}!`;
const pw100 = `${'correct horse battery staple '.repeat(3)}${'x'.repeat(13)}`; // 100 bytes

function tooLong(value) {
  return (err) => {
    assert.deepEqual(
      { name: err.name, code: err.code, retryable: err.retryable, limit: err.limit, value: err.value, max: err.max },
      { name: 'KdfError', code: 'ERR_KDF_PASSWORD_TOO_LONG', retryable: false, limit: 'bcryptPasswordLength', value, max: 72 });
    // The client's input: a 400 that Express and Fastify answer by themselves.
    assert.deepEqual({ status: err.status, statusCode: err.statusCode, expose: err.expose }, { status: 400, statusCode: 400, expose: true });
    assert.match(err.message, /bcrypt reads only the first 72/);
    assert.match(err.message, /argon2id/);
    assert.match(err.message, /truncate: true/);
    assert.ok(err instanceof kdf.KdfError);
    return true;
  };
}

describe('hash() refuses a bcrypt password over 72 bytes by default', () => {
  test('every path: kdf.hash, kdf.hashSync, a created pool\'s hash and hashSync', async () => {
    const pool = kdf.createPool({ threads: 1, name: 'bt.p' });
    try {
      const before = { def: kdf.stats().submitted, own: pool.stats().submitted };
      for (const pw of [pw73, Buffer.from(pw73), new Uint8Array(Buffer.from(pw73)), new Uint8Array(Buffer.from(pw73)).buffer]) {
        await assert.rejects(kdf.hash(pw, BCRYPT), tooLong(73));
        assert.throws(() => kdf.hashSync(pw, BCRYPT), tooLong(73));
        await assert.rejects(pool.hash(pw, BCRYPT), tooLong(73));
        assert.throws(() => pool.hashSync(pw, BCRYPT), tooLong(73));
        // truncate: false says the same explicitly.
        await assert.rejects(kdf.hash(pw, { ...BCRYPT, truncate: false }), tooLong(73));
      }
      // Bytes, not characters: 37 'é' are 74 bytes of UTF-8.
      await assert.rejects(kdf.hash('é'.repeat(37), BCRYPT), tooLong(74));
      assert.throws(() => pool.hashSync('é'.repeat(37), { algorithm: 'bcrypt' }), tooLong(74));
      await assert.rejects(kdf.hash(pw100, { algorithm: 'bcrypt' }), tooLong(100));
      assert.deepEqual({ def: kdf.stats().submitted, own: pool.stats().submitted }, before, 'nothing was queued');
    } finally {
      await pool.close();
    }
  });

  test('72 bytes are accepted, and each of them counts', async () => {
    const h = await kdf.hash(pw72, BCRYPT);
    assert.equal(await kdf.verify(h, pw72), true);
    assert.equal(await kdf.verify(h, `${'k'.repeat(71)}j`), false);
    assert.equal(npmBcrypt.compareSync(pw72, h), true);
    const s = kdf.hashSync('é'.repeat(36), BCRYPT); // 72 bytes
    assert.equal(kdf.verifySync(s, 'é'.repeat(36)), true);
  });

  test('truncate: true keeps the cut: the bytes past the 72nd are ignored', async () => {
    const h = await kdf.hash(pw73, { ...BCRYPT, truncate: true });
    assert.equal(await kdf.verify(h, pw73), true);
    assert.equal(await kdf.verify(h, pw72), true); // the 73rd byte was never read
    assert.equal(npmBcrypt.compareSync(pw73, h), true);
    const s = kdf.hashSync(pw100, { ...BCRYPT, truncate: true });
    assert.equal(kdf.verifySync(s, pw100.slice(0, 72)), true);
  });

  test('truncate is a bcrypt option, and a boolean', async () => {
    await assert.rejects(kdf.hash('pw', { truncate: true }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
    await assert.rejects(kdf.hash('pw', { ...BCRYPT, truncate: 0 }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    await assert.rejects(kdf.hash('pw', { ...BCRYPT, truncate: 'yes' }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  });
});

describe('verify() of existing bcrypt strings is unchanged', () => {
  test('a $2b$ npm bcrypt made from a 100-byte password verifies, as npm bcrypt answers', async () => {
    assert.equal(Buffer.byteLength(pw100), 100);
    const stored = npmBcrypt.hashSync(pw100, 4);
    assert.match(stored, /^\$2b\$04\$/);
    assert.equal(npmBcrypt.compareSync(pw100, stored), true);
    assert.equal(await kdf.verify(stored, pw100), true);
    assert.equal(kdf.verifySync(stored, pw100), true);
    assert.equal(await kdf.verify(stored, Buffer.from(pw100)), true);
    const pool = kdf.createPool({ threads: 1, name: 'bt.v' });
    try {
      assert.equal(await pool.verify(stored, pw100), true);
    } finally {
      await pool.close();
    }
    // As npm bcrypt: the first 72 bytes decide.
    const sameStart = `${pw100.slice(0, 72)}${'y'.repeat(28)}`;
    assert.equal(npmBcrypt.compareSync(sameStart, stored), true);
    assert.equal(await kdf.verify(stored, sameStart), true);
    const otherStart = `X${pw100.slice(1)}`;
    assert.equal(npmBcrypt.compareSync(otherStart, stored), false);
    assert.equal(await kdf.verify(stored, otherStart), false);
  });

  test('bcryptjs $2a$ and $2b$ strings of long passwords verify too', async () => {
    const a = bcryptjs.hashSync(pw100, 4);
    assert.equal(await kdf.verify(a, pw100), true);
    assert.equal(await kdf.verify(a.replace(/^\$2.\$/, '$2a$'), pw100), true);
  });

  test('needsRehash(stored, target, password) reports a bcrypt hash that cut the password', async () => {
    const stored = npmBcrypt.hashSync(pw100, 4);
    assert.equal(kdf.needsRehash(stored, BCRYPT), false);
    assert.equal(kdf.needsRehash(stored, BCRYPT, pw72), false);
    assert.equal(kdf.needsRehash(stored, BCRYPT, pw100), true);
    assert.equal(kdf.needsRehash(stored, BCRYPT, Buffer.from(pw100)), true);
    assert.equal(kdf.needsRehash(stored, undefined, pw100), true); // and under the default target (argon2id)
    // The move it asks for: a target that reads the whole password.
    const moved = await kdf.hash(pw100, { memory: 64, passes: 1 });
    assert.equal(await kdf.verify(moved, pw100), true);
    assert.equal(await kdf.verify(moved, `${pw100.slice(0, 72)}${'y'.repeat(28)}`), false);
    assert.equal(kdf.needsRehash(moved, { memory: 64, passes: 1 }, pw100), false);
  });
});
