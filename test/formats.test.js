'use strict';

// The registry of other frameworks' stored formats (lib/phc/formats/index.js)
// as a whole: the stored-length bound covers the longest string of each
// format that the limits accept (and refuses one character more before
// parsing), every format's string needs a rehash under any target (exact
// included), requiredLimits() reads them all, and every framework's default
// parameters fit the default limits, also on the slowest CPU variants.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const native = require('../lib/native');
const { DEFAULT_LIMITS, maxStoredLength } = require('../lib/phc/limits');

const MAX = maxStoredLength(DEFAULT_LIMITS);
const b64 = (n) => Buffer.alloc(n, 0xa5).toString('base64');
const unpadded = (n) => b64(n).replace(/=+$/, '');
const BIG = '4294967295';

// The longest string of each format at the default limits (1024-byte
// fields, the widest numbers), whatever else the limits say of it.
const LONGEST = {
  'better-auth': `${'ab'.repeat(16)}:${'cd'.repeat(64)}`,
  'Django pbkdf2': `pbkdf2_sha256$${BIG}$${'s'.repeat(1024)}$${b64(32)}`,
  'Django scrypt': `scrypt$${BIG}$${'s'.repeat(1024)}$${BIG}$${BIG}$${b64(64)}`,
  'Django argon2': `argon2$argon2id$v=19$m=${BIG},t=${BIG},p=${BIG},data=${unpadded(1024)}$${unpadded(1024)}$${unpadded(1024)}`,
  'Werkzeug': `pbkdf2:sha512:${BIG}$${'s'.repeat(1024)}$${'ab'.repeat(64)}`,
  'ASP.NET v3': (() => {
    const head = Buffer.alloc(13);
    head[0] = 1;
    head.writeUInt32BE(2, 1);
    head.writeUInt32BE(1000, 5);
    head.writeUInt32BE(1024, 9);
    return Buffer.concat([head, Buffer.alloc(2048, 1)]).toString('base64');
  })(),
  'Spring scrypt': `{scrypt@SpringSecurity_v5_8}$ff0801$${b64(1024)}$${b64(1024)}`,
  'Spring argon2': `{argon2@SpringSecurity_v5_8}$argon2id$v=19$m=${BIG},t=${BIG},p=${BIG},data=${unpadded(1024)}` +
    `$${unpadded(1024)}$${unpadded(1024)}`,
};

describe('the stored-length bound covers every format', () => {
  for (const [what, stored] of Object.entries(LONGEST)) {
    test(`${what}: ${stored.length} characters are parsed; one more is refused unparsed`, async () => {
      assert.ok(stored.length <= MAX, `${stored.length} <= ${MAX}`);
      // It may verify (false) or be refused for a parameter, not for its length.
      const refusal = await kdf.verify(stored, 'pw').then(() => null, (err) => err);
      assert.ok(refusal === null || refusal.limit !== 'storedLength', refusal && refusal.message);
      const longer = stored + 'x'.repeat(MAX + 1 - stored.length);
      await assert.rejects(kdf.verify(longer, 'pw'), { code: 'ERR_KDF_HASH_LIMIT', limit: 'storedLength' });
      assert.throws(() => kdf.needsRehash(longer), { code: 'ERR_KDF_HASH_LIMIT', limit: 'storedLength' });
    });
  }
});

describe('every format needs a rehash, under any target, at no less than its cost', () => {
  const samples = [
    require('./vectors/better-auth.json').vectors[0].hash,
    require('./vectors/django.json').published[0].hash,
    require('./vectors/django-node.json').vectors[0].hash,
    require('./vectors/werkzeug.json').vectors[0].hash,
    require('./vectors/aspnet.json').published[0].hash,
    require('./vectors/spring.json').published[3].hash,
  ];
  const targets = [undefined, {}, { exact: true }, { algorithm: 'pbkdf2-sha256', iterations: 1 },
    { algorithm: 'scrypt', ln: 1, r: 1, p: 1 }, { algorithm: 'bcrypt', cost: 4 }, { memory: 8, passes: 1 }];
  for (const stored of samples) {
    test(stored.slice(0, 32), () => {
      for (const target of targets) {
        assert.equal(kdf.needsRehash(stored, kdf.rehashTarget(stored, target)), true, JSON.stringify(target));
      }
      assert.equal(kdf.needsRehash(stored, kdf.rehashTarget(stored), 'a password'), true);
    });
  }

  test('requiredLimits reads them all; the defaults accept them all', () => {
    assert.deepEqual(kdf.requiredLimits(samples).hashLimits, {});
  });
});

describe("every framework's default parameters fit the default limits", () => {
  const hex = (n) => 'ab'.repeat(n);
  const text = (n) => 's'.repeat(n);
  const aspnet = (prf, iterations) => {
    const head = Buffer.alloc(13);
    head[0] = 1;
    head.writeUInt32BE(prf, 1);
    head.writeUInt32BE(iterations, 5);
    head.writeUInt32BE(16, 9);
    return Buffer.concat([head, Buffer.alloc(48, 1)]).toString('base64');
  };
  const DEFAULTS = {
    'better-auth': `${hex(16)}:${hex(64)}`,
    'Django pbkdf2_sha256 (5.2)': `pbkdf2_sha256$1000000$${text(22)}$${b64(32)}`,
    'Django scrypt': `scrypt$16384$${text(22)}$8$1$${b64(64)}`,
    'Django argon2': `argon2$argon2id$v=19$m=102400,t=2,p=8$${unpadded(22)}$${unpadded(32)}`,
    'Django bcrypt_sha256': 'bcrypt_sha256$$2b$12$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka',
    'ASP.NET Identity (.NET 7)': aspnet(2, 100000),
    'ASP.NET Identity (.NET Core 3-6)': aspnet(1, 10000),
    'Spring {pbkdf2}': `{pbkdf2}${hex(40)}`,
    'Spring {pbkdf2@SpringSecurity_v5_8}': `{pbkdf2@SpringSecurity_v5_8}${hex(48)}`,
    'Spring {scrypt@SpringSecurity_v5_8}': `{scrypt@SpringSecurity_v5_8}$100801$${b64(16)}$${b64(32)}`,
    'Spring {argon2@SpringSecurity_v5_8}': `{argon2@SpringSecurity_v5_8}$argon2id$v=19$m=16384,t=2,p=1$${unpadded(16)}$${unpadded(32)}`,
    'Spring {bcrypt}': '{bcrypt}$2a$10$dXJ3SW6G7P50lGmMkkmwe.20cQQubK3.HZWzG3YB1tlRy.fqvM/BG',
    'Werkzeug scrypt': `scrypt:32768:8:1$${text(16)}$${hex(64)}`,
    'Werkzeug pbkdf2': `pbkdf2:sha256:1000000$${text(16)}$${hex(32)}`,
  };
  const FAMILIES = { sha: 'portable', scrypt: 'portable', argon2: 'portable' };

  test('on the CPU variant that runs', () => {
    for (const [what, stored] of Object.entries(DEFAULTS)) {
      assert.deepEqual(kdf.requiredLimits([stored]).hashLimits, {}, what);
    }
  });

  test('with every family forced to its portable code (the slowest)', () => {
    try {
      for (const [family, variant] of Object.entries(FAMILIES)) {
        assert.equal(native.testing.forceVariant(family, variant), true, family);
      }
      for (const [what, stored] of Object.entries(DEFAULTS)) {
        assert.deepEqual(kdf.requiredLimits([stored]).hashLimits, {}, what);
      }
    } finally {
      for (const family of Object.keys(FAMILIES)) native.testing.forceVariant(family, 'auto');
    }
  });
});
