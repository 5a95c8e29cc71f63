'use strict';

// Password bounds of the PHC functions: hash(), verify() and needsRehash()
// refuse a password over `passwordLength` bytes (default 4096, Django's;
// a hash limit, so per pool and per call) before it is copied or hashed
// (bcrypt's own 72 bytes: test/bcrypt-truncation.test.js). The raw KDFs
// keep node:crypto's behaviour: no bound there.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const { DEFAULT_LIMITS } = require('../lib/phc/limits');

const TOO_LONG = (limit) => ({ name: 'KdfError', code: 'ERR_KDF_PASSWORD_TOO_LONG', retryable: false, limit, status: 400, statusCode: 400, expose: true });
const SMALL = { memory: 64, passes: 1 };

describe('passwordLength', () => {
  test('the default is 4096 bytes', () => {
    assert.equal(DEFAULT_LIMITS.passwordLength, 4096);
  });

  test('hash, hashSync, verify, verifySync and needsRehash refuse 4097 bytes, accept 4096', async () => {
    const stored = await kdf.hash('pw', SMALL);
    const at = 'a'.repeat(4096);
    const over = 'a'.repeat(4097);
    const before = kdf.stats().submitted;
    for (const pw of [over, Buffer.from(over), new Uint8Array(4097)]) {
      await assert.rejects(kdf.hash(pw, SMALL), TOO_LONG('passwordLength'));
      assert.throws(() => kdf.hashSync(pw, SMALL), TOO_LONG('passwordLength'));
      await assert.rejects(kdf.verify(stored, pw), TOO_LONG('passwordLength'));
      assert.throws(() => kdf.verifySync(stored, pw), TOO_LONG('passwordLength'));
      assert.throws(() => kdf.needsRehash(stored, SMALL, pw), TOO_LONG('passwordLength'));
    }
    assert.equal(kdf.stats().submitted, before, 'nothing was queued');
    await assert.rejects(kdf.verify(stored, over), (err) => {
      assert.equal(err.value, 4097);
      assert.equal(err.max, 4096);
      assert.match(err.message, /4097 bytes, over the limit passwordLength = 4096 bytes/);
      assert.match(err.message, /raise passwordLength in the pool's hashLimits/);
      return true;
    });
    const h = await kdf.hash(at, SMALL);
    assert.equal(await kdf.verify(h, at), true);
    assert.equal(kdf.verifySync(h, at), true);
    assert.equal(kdf.needsRehash(h, SMALL, at), false);
  });

  test('a string is counted in UTF-8 bytes', async () => {
    const stored = await kdf.hash('pw', SMALL);
    await assert.rejects(kdf.verify(stored, 'é'.repeat(2049)), TOO_LONG('passwordLength')); // 4098 bytes
    assert.equal(await kdf.verify(stored, 'é'.repeat(2048)), false); // 4096 bytes
  });

  test('a huge password is refused before it is encoded or hashed', async () => {
    const stored = await kdf.hash('pw', SMALL);
    const huge = 'x'.repeat(100 * 1024 * 1024);
    const before = process.memoryUsage();
    await assert.rejects(kdf.verify(stored, huge), TOO_LONG('passwordLength'));
    await assert.rejects(kdf.hash(huge), TOO_LONG('passwordLength'));
    const after = process.memoryUsage();
    // A UTF-8 copy would have been 100 MiB of Buffer memory.
    assert.ok(after.arrayBuffers - before.arrayBuffers < 50 * 1024 * 1024, `${after.arrayBuffers - before.arrayBuffers}`);
  });

  test('a string longer than the limit in characters is refused without reading it through', async () => {
    // Found in review: Buffer.byteLength walked a whole 2^28-character
    // string (and flattened a lazily joined one, about a second) before the
    // refusal. More characters than the limit means more bytes: its length
    // is the value reported, a lower bound of its bytes.
    const stored = await kdf.hash('pw', SMALL);
    const long = 'é'.repeat(5000); // 10000 bytes
    await assert.rejects(kdf.verify(stored, long), { ...TOO_LONG('passwordLength'), value: 5000, max: 4096 });
    assert.throws(() => kdf.needsRehash(stored, undefined, long), { ...TOO_LONG('passwordLength'), value: 5000 });
    await assert.rejects(kdf.hash(long), { ...TOO_LONG('passwordLength'), value: 5000 });
  });

  test('configurable per pool (hashLimits) and per call (options.limits)', async () => {
    const pw = 'p'.repeat(5000);
    const pool = kdf.createPool({ threads: 1, hashLimits: { passwordLength: 8192 } });
    try {
      const h = await pool.hash(pw, SMALL);
      assert.equal(await pool.verify(h, pw), true);
      await assert.rejects(kdf.verify(h, pw), TOO_LONG('passwordLength'));
      assert.equal(await kdf.verify(h, pw, { limits: { passwordLength: 5000 } }), true);
      assert.equal(kdf.needsRehash(h, { ...SMALL, limits: { passwordLength: 5000 } }, pw), false);
      await assert.rejects(pool.verify(h, 'pw', { limits: { passwordLength: 1 } }), TOO_LONG('passwordLength'));
    } finally {
      await pool.close();
    }
  });

  test('the raw KDFs keep node:crypto\'s behaviour: no bound', async () => {
    const pw = Buffer.alloc(100000, 7);
    assert.deepEqual(await kdf.pbkdf2(pw, 'salt', 2, 32, 'sha256'), crypto.pbkdf2Sync(pw, 'salt', 2, 32, 'sha256'));
    assert.deepEqual(kdf.scryptSync(pw, 'salt', 16, { N: 16 }), crypto.scryptSync(pw, 'salt', 16, { N: 16 }));
  });
});
