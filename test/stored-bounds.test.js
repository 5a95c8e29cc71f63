'use strict';

// Stored hashes longer than any string the limits accept are refused before
// they are parsed: verify(), verifySync() and needsRehash() never split or
// scan megabytes of hostile input on the event loop. The bound comes from
// the limits (saltLength, hashLength, dataLength), so raising those raises it.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { DEFAULT_LIMITS, maxStoredLength } = require('../lib/phc/limits');

const b64 = (n, byte = 0x41) => Buffer.alloc(n, byte).toString('base64').replace(/=+$/, '');
const LENGTH_LIMIT = { name: 'HashLimitError', code: 'ERR_KDF_HASH_LIMIT', retryable: false, limit: 'storedLength' };

// Counts String.prototype.split / indexOf / RegExp exec calls on strings
// longer than `min` while `fn` runs: the parser's first steps on a string.
function scansOfLongStrings(min, fn) {
  const split = String.prototype.split;
  const exec = RegExp.prototype.exec;
  let scans = 0;
  String.prototype.split = function countedSplit(...args) {
    if (this.length > min) scans++;
    return split.apply(this, args);
  };
  RegExp.prototype.exec = function countedExec(s) {
    if (typeof s === 'string' && s.length > min) scans++;
    return exec.call(this, s);
  };
  const restore = () => {
    String.prototype.split = split;
    RegExp.prototype.exec = exec;
  };
  let out;
  try {
    out = fn();
  } catch (err) {
    restore();
    return { scans, err };
  }
  if (out instanceof Promise) {
    return out.then((value) => ({ scans, value }), (err) => ({ scans, err })).finally(restore);
  }
  restore();
  return { scans, value: out };
}

describe('stored hashes longer than the limits allow', () => {
  // 32 MiB of '$' fields: split() alone made ~16 M strings (~400 MiB).
  let pool;
  before(() => {
    pool = kdf.createPool({ threads: 1 });
  });
  after(() => pool.close());

  const huge = `$argon2id$v=19$m=19456,t=2,p=1$${'$'.repeat(32 * 1024 * 1024)}`;

  for (const [name, call] of [
    ['verify', () => kdf.verify(huge, 'pw')],
    ['verifySync', () => kdf.verifySync(huge, 'pw')],
    ['needsRehash', () => kdf.needsRehash(huge)],
    ['pool.verify', () => pool.verify(huge, 'pw')],
  ]) {
    test(`${name}: HashLimitError naming the bound, and the string is never scanned`, async () => {
      const heapBefore = process.memoryUsage().heapUsed;
      const { scans, err } = await scansOfLongStrings(1024 * 1024, call);
      const grown = process.memoryUsage().heapUsed - heapBefore;
      assert.ok(err, 'refused');
      assert.deepEqual({ name: err.name, code: err.code, retryable: err.retryable, limit: err.limit }, LENGTH_LIMIT);
      assert.equal(err.value, huge.length);
      assert.equal(err.max, maxStoredLength(DEFAULT_LIMITS));
      assert.match(err.message, /saltLength, hashLength and dataLength/);
      assert.equal(scans, 0, 'the parser never ran over the string');
      assert.ok(grown < 16 * 1024 * 1024, `heap grew by ${grown} bytes`);
    });
  }

  test('the bound is a few KiB under the default limits, derived from them', () => {
    const max = maxStoredLength(DEFAULT_LIMITS);
    assert.ok(max > 3 * 1366 && max < 5000, `${max}`);
    // Doubling a field limit raises the bound by that field's base64 length.
    const chars = (bytes) => Math.ceil((bytes * 4) / 3);
    assert.equal(maxStoredLength({ ...DEFAULT_LIMITS, saltLength: 2048 }) - max, chars(2048) - chars(1024));
  });

  test('the longest strings the other limits accept are not refused for their length', async () => {
    const salt = b64(DEFAULT_LIMITS.saltLength);
    const hash = b64(DEFAULT_LIMITS.hashLength);
    const data = b64(DEFAULT_LIMITS.dataLength);
    const longest = [
      `$argon2id$v=19$m=4096,t=1,p=1,data=${data}$${salt}$${hash}`,
      `$scrypt$ln=10,r=8,p=1$${salt}$${hash}`,
      `$pbkdf2-sha512$i=1000,l=${DEFAULT_LIMITS.hashLength}$${salt}$${hash}`,
    ];
    for (const phc of longest) {
      assert.ok(phc.length <= maxStoredLength(DEFAULT_LIMITS));
      // Past every limit: the pre-aborted call stops at submit.
      await assert.rejects(kdf.verify(phc, 'pw', { signal: AbortSignal.abort() }), { name: 'AbortError' });
      assert.equal(typeof kdf.needsRehash(phc), 'boolean');
    }
  });

  test('raised field limits accept longer strings; needsRehash reads options.limits', async () => {
    const phc = `$scrypt$ln=10,r=8,p=1$${b64(8000)}$${b64(32)}`;
    await assert.rejects(kdf.verify(phc, 'pw'), LENGTH_LIMIT);
    assert.throws(() => kdf.needsRehash(phc), LENGTH_LIMIT);
    const limits = { saltLength: 8000 };
    await assert.rejects(kdf.verify(phc, 'pw', { limits, signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(kdf.needsRehash(phc, { algorithm: 'scrypt', limits }), true);
  });
});

test('an error about a stored string quotes at most 32 of its characters, control characters escaped', async () => {
  // Found in review: the messages echoed up to ~4 KiB of the stored string
  // verbatim, so a hostile hash could forge log lines through them.
  const forged = '\n2026-12-02 INFO admin login ok';
  const hostile = [
    `$argon2id$v=19$m=8,t=1,x${forged}${'A'.repeat(3000)},p=1$c2FsdHNhbHQ$aGFzaGhhc2g`,
    `$argon2id$v=19$m=8,t=1,p=1,${forged}=1$c2FsdHNhbHQ$aGFzaGhhc2g`,
    `$argon2id$v=1${forged}$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g`,
    `$x${forged}${'B'.repeat(3000)}$c2FsdA$aGFzaA`,
  ];
  for (const phc of hostile) {
    const err = await kdf.verify(phc, 'pw').then(() => assert.fail('accepted'), (e) => e);
    assert.equal(err.code, 'ERR_KDF_INVALID_HASH', phc.slice(0, 40));
    assert.ok(!/[\n\r]/.test(err.message), `a raw newline in: ${err.message.slice(0, 120)}`);
    assert.ok(err.message.length < 300, `${err.message.length} characters`);
  }
});
