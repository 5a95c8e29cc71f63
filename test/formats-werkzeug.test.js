'use strict';

// Werkzeug's (Flask's) stored passwords (lib/phc/formats/werkzeug.js):
// pbkdf2:<digest>:<iterations> and scrypt:<N>:<r>:<p> strings from Python's
// hashlib (test/vectors/make-werkzeug.py) verify true and false and always
// need a rehash; malformed ones are InvalidHashError with nothing queued;
// the limits apply before any work.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const crypto = require('node:crypto');
const { vectors } = require('./vectors/werkzeug.json');
const { assertVerifies, assertMalformed, assertOverLimit, wrongPasswords } = require('./helpers/formats');

let pool;
before(() => {
  pool = kdf.createPool({ name: 'wzeug', threads: 2, priority: 'normal' });
});
after(() => pool.close());

describe('Werkzeug vectors (hashlib, following werkzeug/security.py)', () => {
  for (const v of vectors) {
    test(v.hash.slice(0, 48), () => assertVerifies(pool, v.hash, [v.password], wrongPasswords(v.password)));
  }

  test('a Flask user signs in and moves to the target', async () => {
    const v = vectors.find((x) => x.hash.startsWith('scrypt:32768:8:1$'));
    assert.equal(await pool.verify(v.hash, v.password), true);
    const next = kdf.rehashTarget(v.hash, { algorithm: 'scrypt', ln: 15, r: 8, p: 1 });
    assert.equal(kdf.needsRehash(v.hash, next), true);
    const upgraded = await pool.hash(v.password, kdf.rehashTarget(v.hash, { algorithm: 'argon2id', memory: 8192, passes: 1 }));
    assert.equal(await pool.verify(upgraded, v.password), true);
  });
});

describe('malformed Werkzeug strings: InvalidHashError, nothing queued', () => {
  const pbkdf2 = vectors.find((v) => v.hash.startsWith('pbkdf2:sha256:1000$')).hash;
  const [method, salt, key] = pbkdf2.split('$');
  const scrypt = vectors.find((v) => v.hash.startsWith('scrypt:1024:8:1$')).hash;
  const [, sSalt, sKey] = scrypt.split('$');
  const cases = {
    'no iterations': `pbkdf2:sha256$${salt}$${key}`,
    'no digest': `pbkdf2$${salt}$${key}`,
    'zero iterations': `pbkdf2:sha256:0$${salt}$${key}`,
    'iterations over 2^32-1': `pbkdf2:sha256:99999999999$${salt}$${key}`,
    'iterations with a leading zero': `pbkdf2:sha256:01000$${salt}$${key}`,
    'unknown digest': `pbkdf2:md5:1000$${salt}$${key}`,
    'too many arguments': `${method}:1$${salt}$${key}`,
    'empty salt': `${method}$$${key}`,
    'upper-case hex': `${method}$${salt}$${key.toUpperCase()}`,
    'odd hex': `${method}$${salt}$${key.slice(0, -1)}`,
    'non-hex key': `${method}$${salt}$${key.slice(0, -1)}g`,
    'truncated key': `${method}$${salt}$${key.slice(0, -2)}`,
    'a SHA-256 key under sha512': `pbkdf2:sha512:1000$${salt}$${key}`,
    'trailing field': `${pbkdf2}$`,
    'trailing newline': `${pbkdf2}\n`,
    'scrypt N not a power of 2': `scrypt:1000:8:1$${sSalt}$${sKey}`,
    'scrypt N = 1': `scrypt:1:8:1$${sSalt}$${sKey}`,
    'scrypt r = 0': `scrypt:1024:0:1$${sSalt}$${sKey}`,
    'scrypt two arguments': `scrypt:1024:8$${sSalt}$${sKey}`,
    'scrypt no arguments': `scrypt$${sSalt}$${sKey}`,
    'scrypt 32-byte key': `scrypt:1024:8:1$${sSalt}$${sKey.slice(0, 64)}`,
  };
  for (const [what, stored] of Object.entries(cases)) {
    test(what, () => assertMalformed(pool, stored));
  }

  test('old Werkzeug\'s plain$ and one-digest methods: reset these passwords', async () => {
    const digest = (name) => crypto.createHash(name).update(`${salt}pw`).digest('hex');
    await assertMalformed(pool, 'plain$$hunter2', /"plain\$\.\.\." .* not supported: reset these passwords$/);
    for (const name of ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']) {
      await assertMalformed(pool, `${name}$${salt}$${digest(name)}`, /not supported: reset these passwords$/);
    }
    // The message never repeats the stored string (a plain$ one is the password).
    await assert.rejects(pool.verify('plain$$hunter2', 'x'), (err) => !err.message.includes('hunter2'));
  });
});

describe('limits, before any work', () => {
  test('scrypt memory and PBKDF2 iterations', async () => {
    const scrypt = vectors.find((v) => v.hash.startsWith('scrypt:32768:8:1$')).hash;
    await assertOverLimit(pool, scrypt, { scryptMemory: 16 << 20 }, 'scryptMemory');
    const huge = scrypt.replace('scrypt:32768:8:1$', 'scrypt:1048576:8:1$'); // 1 GiB
    await assertOverLimit(pool, huge, undefined, 'scryptMemory');
    const pbkdf2 = vectors.find((v) => v.hash.startsWith('pbkdf2:sha256:1000$')).hash;
    await assertOverLimit(pool, pbkdf2.replace(':1000$', ':4000000000$'), undefined, 'pbkdf2Iterations');
  });
});
