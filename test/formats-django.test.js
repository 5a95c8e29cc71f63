'use strict';

// Django's stored passwords (lib/phc/formats/django.js): pbkdf2_sha256,
// pbkdf2_sha1, scrypt, argon2, bcrypt_sha256 and bcrypt strings, from
// Python's hashlib (test/vectors/make-django.py), npm argon2 and bcrypt
// (make-django-node.js) and Django's own test suite, verify true and false
// and always need a rehash; malformed ones are InvalidHashError with
// nothing queued; the limits apply before any work.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const python = require('./vectors/django.json');
const node = require('./vectors/django-node.json');
const {
  assertVerifies, assertMalformed, assertOverLimit, wrongPasswords: wrong, workOf,
} = require('./helpers/formats');

let pool;
before(() => {
  pool = kdf.createPool({ name: 'django', threads: 2, priority: 'normal' });
});
after(() => pool.close());

describe('Django vectors', () => {
  for (const [source, list] of [['hashlib', python.generated], ['Django tests', python.published], ['npm argon2/bcrypt', node.vectors]]) {
    for (const v of list) {
      test(`${source}: ${v.hash.slice(0, 40)}…`, () => assertVerifies(pool, v.hash, [v.password], wrong(v.password)));
    }
  }

  test('bcrypt reads 72 bytes; bcrypt_sha256 all of them, through hex(sha256)', async () => {
    const [plain, sha] = node.truncation;
    assert.equal(await pool.verify(plain.hash, plain.also), true);
    assert.equal(await pool.verify(sha.hash, sha.password), true);
    assert.equal(await pool.verify(sha.hash, sha.not), false);
  });

  test('needsRehash is true even against a target of the same algorithm and cost; a cheaper one at the string\'s cost', () => {
    const stored = python.published[0].hash; // pbkdf2_sha256, 390000 iterations
    assert.equal(kdf.needsRehash(stored, { algorithm: 'pbkdf2-sha256', iterations: 390000 }), true);
    assert.equal(kdf.needsRehash(stored, { algorithm: 'pbkdf2-sha256', iterations: 1 }), false);
    const next = kdf.rehashTarget(stored, { algorithm: 'pbkdf2-sha256', iterations: 1 });
    assert.deepEqual(next, { algorithm: 'pbkdf2-sha256', iterations: 390000 });
    assert.equal(kdf.needsRehash(stored, next), true);
  });

  test('a Django user signs in and moves to the target, at no less than the string\'s cost', async () => {
    const v = python.published[0];
    const target = { algorithm: 'argon2id', memory: 8192, passes: 1 };
    assert.equal(await pool.verify(v.hash, v.password, target), true);
    const next = kdf.rehashTarget(v.hash, target);
    assert.equal(kdf.needsRehash(v.hash, next), true);
    const upgraded = await pool.hash(v.password, next);
    assert.ok(workOf(upgraded) >= workOf(v.hash));
    assert.equal(kdf.needsRehash(upgraded, kdf.rehashTarget(upgraded, target)), false);
    assert.equal(await pool.verify(upgraded, v.password), true);
  });
});

describe('malformed Django strings: InvalidHashError, nothing queued', () => {
  const key32 = python.published[0].hash.split('$')[3];
  const scryptKey = python.published[3].hash.split('$')[5];
  const argon2 = python.published[5].hash;
  const bcryptSha = node.vectors[1].hash;
  const cases = {
    'zero iterations': `pbkdf2_sha256$0$seasalt$${key32}`,
    'iterations with a leading zero': `pbkdf2_sha256$0390000$seasalt$${key32}`,
    'iterations over 2^32-1': `pbkdf2_sha256$4294967296$seasalt$${key32}`,
    'signed iterations': `pbkdf2_sha256$+390000$seasalt$${key32}`,
    'empty salt': `pbkdf2_sha256$390000$$${key32}`,
    'salt with a control character': `pbkdf2_sha256$390000$sea\nsalt$${key32}`,
    'unpadded key': `pbkdf2_sha256$390000$seasalt$${key32.replace(/=+$/, '')}`,
    'url-safe key': `pbkdf2_sha256$390000$seasalt$${key32.replace(/\+/g, '-').replace(/\//g, '_')}`,
    'non-canonical key (trailing bits)': `pbkdf2_sha256$390000$seasalt$${key32.slice(0, -2)}d=`,
    'truncated key': `pbkdf2_sha256$390000$seasalt$${key32.slice(0, -4)}`,
    'a SHA-1-sized key under pbkdf2_sha256': `pbkdf2_sha256$390000$seasalt2$${python.published[2].hash.split('$')[3]}`,
    'empty key': 'pbkdf2_sha256$390000$seasalt$',
    'missing field': 'pbkdf2_sha256$390000$seasalt',
    'trailing field': `pbkdf2_sha256$390000$seasalt$${key32}$`,
    'trailing space': `pbkdf2_sha256$390000$seasalt$${key32} `,
    'scrypt N not a power of 2': `scrypt$16000$seasalt$8$1$${scryptKey}`,
    'scrypt N = 1': `scrypt$1$seasalt$8$1$${scryptKey}`,
    'scrypt r = 0': `scrypt$16384$seasalt$0$1$${scryptKey}`,
    'scrypt p = 0': `scrypt$16384$seasalt$8$0$${scryptKey}`,
    'scrypt 32-byte key': `scrypt$16384$seasalt$8$1$${key32}`,
    'scrypt missing p': `scrypt$16384$seasalt$8$${scryptKey}`,
    'argon2 around a scrypt string': 'argon2$scrypt$ln=4,r=1,p=1$c2FsdA$aGFzaGhhc2hoYQ',
    'argon2 with a doubled $': `argon2$${argon2.slice('argon2'.length)}`,
    'argon2 truncated hash': argon2.slice(0, -20),
    'bcrypt_sha256 without the inner $': bcryptSha.replace('bcrypt_sha256$$', 'bcrypt_sha256$'),
    'bcrypt_sha256 around $2x$': bcryptSha.replace('$2b$', '$2x$'),
    'bcrypt truncated': node.vectors[2].hash.slice(0, -1),
    'bcrypt trailing garbage': `${node.vectors[2].hash}x`,
    'md5 (unsupported)': 'md5$seasalt$3f86d0d3d465b7b458c231bf3555c0e3',
    'sha1 (unsupported)': 'sha1$seasalt$cff36ea83f5706ce9aa7454e63e431fc726b2dc8',
    'unsalted sha1 (unsupported)': 'sha1$$6d138ca3ae545631b3abd71a4f076ce759c5700b',
    'crypt (unsupported)': 'crypt$$ab1Hv2Lg7ltQo',
  };
  for (const [what, stored] of Object.entries(cases)) {
    test(what, () => assertMalformed(pool, stored));
  }

  test('the unsupported ones say why: reset these passwords', async () => {
    for (const [what, stored] of Object.entries(cases)) {
      if (what.endsWith('(unsupported)')) await assertMalformed(pool, stored, /not supported: reset these passwords$/);
    }
    // Django's unsalted MD5 hasher writes the bare hex digest; a bare SHA-1 is the same thing.
    for (const pw of ['password', 'hunter2']) {
      for (const digest of ['md5', 'sha1']) {
        const bare = crypto.createHash(digest).update(pw).digest('hex');
        await assertMalformed(pool, bare, /hex digits alone .* not supported: reset these passwords$/);
        await assertMalformed(pool, bare.toUpperCase(), /reset these passwords$/);
      }
    }
  });
});

describe('limits, before any work', () => {
  test("Django's Argon2 default (m=102400, p=8) against smaller limits", async () => {
    const stored = python.published[6].hash;
    await assertOverLimit(pool, stored, { argon2Memory: 65536 }, 'argon2Memory');
    await assertOverLimit(pool, stored, { argon2Lanes: 4 }, 'argon2Lanes');
  });

  test('iterations, scrypt memory and bcrypt cost', async () => {
    await assertOverLimit(pool, python.published[0].hash, { pbkdf2Iterations: 100000 }, 'pbkdf2Iterations');
    await assertOverLimit(pool, python.published[3].hash, { scryptMemory: 1 << 20 }, 'scryptMemory');
    const cost12 = node.vectors.find((v) => v.hash.startsWith('bcrypt_sha256$$2b$12$')).hash;
    await assertOverLimit(pool, cost12, { bcryptCost: 11 }, 'bcryptCost');
  });

  test('requiredLimits reads Django strings', () => {
    const stored = python.published[0].hash.replace('$390000$', '$20000000$');
    assert.deepEqual(kdf.requiredLimits([stored, python.published[6].hash]).hashLimits.pbkdf2Iterations, 20000000);
  });
});
