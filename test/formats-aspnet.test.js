'use strict';

// ASP.NET Core Identity's stored passwords (lib/phc/formats/aspnet.js): v2
// and v3 strings from node:crypto (test/vectors/make-aspnet.js) and
// aspnetcore's PasswordHasherTest verify true and false and always need a
// rehash; malformed payloads (Identity's "Failed" for a bad structure) are
// InvalidHashError with nothing queued; the limits apply before any work.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { generated, published } = require('./vectors/aspnet.json');
const { INVALID, assertVerifies, assertMalformed, assertOverLimit, wrongPasswords } = require('./helpers/formats');

let pool;
before(() => {
  pool = kdf.createPool({ name: 'aspnet', threads: 2, priority: 'normal' });
});
after(() => pool.close());

// v3 payload fields -> base64.
function v3(prf, iterations, saltLength, body) {
  const head = Buffer.alloc(13);
  head[0] = 1;
  head.writeUInt32BE(prf, 1);
  head.writeUInt32BE(iterations, 5);
  head.writeUInt32BE(saltLength, 9);
  return Buffer.concat([head, body]).toString('base64');
}

describe('ASP.NET Core Identity vectors', () => {
  for (const v of generated) {
    test(`node:crypto: ${v.hash.slice(0, 24)}…`, () => assertVerifies(pool, v.hash, [v.password], wrongPasswords(v.password)));
  }
  for (const v of published) {
    test(`PasswordHasherTest: ${v.note}`, async () => {
      if (v.result === 'invalid') {
        await assertMalformed(pool, v.hash);
      } else {
        assert.equal(await pool.verify(v.hash, 'my password'), v.result);
        assert.equal(await pool.verify(v.hash, 'my passworD'), false);
        assert.equal(kdf.needsRehash(v.hash, kdf.rehashTarget(v.hash)), true);
      }
    });
  }
});

describe('malformed payloads: InvalidHashError, nothing queued', () => {
  const body = Buffer.alloc(48, 7); // 16-byte salt, 32-byte key
  const good = v3(1, 1000, 16, body);
  const cases = {
    'unknown prf 3': v3(3, 1000, 16, body),
    'prf 2^32-1': v3(0xffffffff, 1000, 16, body),
    'zero iterations': v3(1, 0, 16, body),
    'iterations past a signed 32-bit int': v3(1, 2 ** 31, 16, body),
    'salt under 16 bytes': v3(1, 1000, 15, body),
    'salt leaving a key under 16 bytes': v3(1, 1000, 33, body),
    'salt length 2^32-1': v3(1, 1000, 0xffffffff, body),
    'key under 16 bytes': v3(1, 1000, 16, body.subarray(0, 31)),
    'header only': v3(1, 1000, 16, Buffer.alloc(0)),
    'format marker 2': Buffer.concat([Buffer.from([2]), body]).toString('base64'),
    'format marker 3': Buffer.concat([Buffer.from([3]), body]).toString('base64'),
    'v2 one byte short': Buffer.concat([Buffer.from([0]), body.subarray(1)]).toString('base64'),
    'v2 one byte long': Buffer.concat([Buffer.from([0]), body, Buffer.from([0])]).toString('base64'),
    'unpadded base64': good.replace(/=+$/, ''),
    'url-safe base64': v3(1, 1000, 16, Buffer.alloc(48, 0xfb)).replace(/\+/g, '-').replace(/\//g, '_'),
    'non-canonical base64': `${good.slice(0, -3)}b==`,
    'extra padding': `${good}==`,
    'truncated mid-group': good.slice(0, -1),
    'trailing space': `${good} `,
    'leading space': ` ${good}`,
    'just "A"': 'A',
    'just "AA=="': 'AA==',
  };
  for (const [what, stored] of Object.entries(cases)) {
    test(what, () => assertMalformed(pool, stored));
  }

  test('v3 cut by whole base64 groups is a shorter key, a prefix of PBKDF2\'s output: true, as in Identity', async () => {
    const v = generated.find((x) => x.hash.startsWith('AQAAAAEAAAPo') && x.password === 'my password');
    assert.equal(await pool.verify(v.hash.slice(0, -4), v.password), true);
    assert.equal(await pool.verify(v.hash.slice(0, -4), 'my passworD'), false);
  });

  test('the prf and the lengths are named', async () => {
    await assert.rejects(pool.verify(cases['unknown prf 3'], 'x'), { ...INVALID, message: /prf 3/ });
    await assert.rejects(pool.verify(cases['v2 one byte short'], 'x'), { ...INVALID, message: /v2/ });
  });
});

describe('limits, before any work', () => {
  test('iterations up to 2^31-1 parse, and are refused by pbkdf2Iterations', async () => {
    await assertOverLimit(pool, v3(2, 2 ** 31 - 1, 16, Buffer.alloc(48, 1)), undefined, 'pbkdf2Iterations');
    const net7 = generated.find((v) => Buffer.from(v.hash, 'base64').readUInt32BE(5) === 100000).hash;
    await assertOverLimit(pool, net7, { pbkdf2Iterations: 50000 }, 'pbkdf2Iterations');
    await assertOverLimit(pool, v3(1, 1000, 16, Buffer.alloc(16 + 600, 1)), { hashLength: 512 }, 'hashLength');
  });
});
