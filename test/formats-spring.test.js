'use strict';

// Spring Security's DelegatingPasswordEncoder strings (lib/phc/formats/
// spring.js): {bcrypt}, {pbkdf2}, {pbkdf2@SpringSecurity_v5_8}, {scrypt},
// {scrypt@SpringSecurity_v5_8}, {argon2}, {argon2@SpringSecurity_v5_8},
// from node:crypto / npm argon2 / npm bcrypt (test/vectors/make-spring.js)
// and spring-security's own tests, verify true and false and always need a
// rehash; malformed ones are InvalidHashError with nothing queued; the
// limits apply before any work; docs/migrating.md's recipe reads a
// Pbkdf2PasswordEncoder with a secret of its own.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { generated, published, customSecret } = require('./vectors/spring.json');
const {
  assertVerifies, assertMalformed, assertOverLimit, wrongPasswords, migratingRecipe,
} = require('./helpers/formats');

let pool;
before(() => {
  pool = kdf.createPool({ name: 'spring', threads: 2, priority: 'normal' });
});
after(() => pool.close());

const byId = (id) => generated.find((v) => v.hash.startsWith(`{${id}}`) && v.password === 'password').hash;

describe('Spring Security vectors', () => {
  for (const [source, list] of [['made here', generated], ['spring-security tests', published]]) {
    for (const v of list) {
      test(`${source}: ${v.hash.slice(0, 44)}…`, () => assertVerifies(pool, v.hash, [v.password], wrongPasswords(v.password)));
    }
  }

  test('{pbkdf2} hex in upper case verifies, as Spring\'s Hex.decode reads it', async () => {
    const v = published[1];
    const upper = `{pbkdf2}${v.hash.slice('{pbkdf2}'.length).toUpperCase()}`;
    assert.equal(await pool.verify(upper, v.password), true);
  });

  test('a Spring user signs in and moves to the target', async () => {
    const stored = byId('pbkdf2@SpringSecurity_v5_8');
    assert.equal(await pool.verify(stored, 'password'), true);
    assert.equal(kdf.needsRehash(stored, { algorithm: 'pbkdf2-sha256', iterations: 310000 }), true);
    const upgraded = await pool.hash('password', { algorithm: 'argon2id', memory: 8192, passes: 1 });
    assert.equal(await pool.verify(upgraded, 'password'), true);
  });
});

describe('a Pbkdf2PasswordEncoder with its own secret: the recipe in docs/migrating.md', () => {
  const { springPbkdf2ToPhc } = migratingRecipe('spring-pbkdf2', ['springPbkdf2ToPhc']);
  for (const v of customSecret) {
    test(`${v.digest}, ${v.encoding}, secret ${JSON.stringify(v.secret)}`, async () => {
      const phc = springPbkdf2ToPhc(v.encoded, {
        secret: v.secret, saltLength: 8, iterations: v.iterations, digest: v.digest, encoding: v.encoding,
      });
      assert.equal(await pool.verify(phc, v.password), true, phc);
      assert.equal(await pool.verify(phc, 'wrong'), false);
      // Without the secret, or read as the default encoder, it never verifies.
      const noSecret = springPbkdf2ToPhc(v.encoded, { saltLength: 8, iterations: v.iterations, digest: v.digest, encoding: v.encoding });
      assert.equal(await pool.verify(noSecret, v.password), false);
      if (v.encoding === 'hex' && v.digest === 'sha1') assert.equal(await pool.verify(`{pbkdf2}${v.encoded}`, v.password), false);
    });
  }
});

describe('malformed Spring strings: InvalidHashError, nothing queued', () => {
  const pbkdf2 = published[1].hash.slice('{pbkdf2}'.length);
  const scrypt = published[2].hash.slice('{scrypt}'.length);
  const [, params, salt, key] = scrypt.split('$');
  const argon2 = published[3].hash.slice('{argon2}'.length);
  const cases = {
    '{pbkdf2} one byte short': `{pbkdf2}${pbkdf2.slice(0, -2)}`,
    '{pbkdf2} odd hex': `{pbkdf2}${pbkdf2.slice(0, -1)}`,
    '{pbkdf2} non-hex': `{pbkdf2}${pbkdf2.slice(0, -1)}g`,
    '{pbkdf2} empty': '{pbkdf2}',
    '{pbkdf2} with a v5.8 length': `{pbkdf2}${pbkdf2}${'00'.repeat(8)}`,
    '{pbkdf2@SpringSecurity_v5_8} with a v5.5 length': `{pbkdf2@SpringSecurity_v5_8}${pbkdf2}`,
    '{pbkdf2} trailing space': `{pbkdf2}${pbkdf2} `,
    '{scrypt} params with a leading zero': `{scrypt}$0${params}$${salt}$${key}`,
    '{scrypt} params in upper case': `{scrypt}$${params.toUpperCase()}$${salt}$${key}`,
    '{scrypt} params too wide': `{scrypt}$1${params}0$${salt}$${key}`,
    '{scrypt} r = 0': `{scrypt}$e0001$${salt}$${key}`,
    '{scrypt} p = 0': `{scrypt}$e0800$${salt}$${key}`,
    '{scrypt} log2 N = 0': `{scrypt}$801$${salt}$${key}`,
    '{scrypt} N past 2^(16 r)': `{scrypt}$200101$${salt}$${key}`,
    '{scrypt} unpadded salt': `{scrypt}$${params}$${salt.replace(/=+$/, '')}$${key}`,
    '{scrypt} key under 10 bytes': `{scrypt}$${params}$${salt}$${Buffer.alloc(9).toString('base64')}`,
    '{scrypt} empty salt': `{scrypt}$${params}$$${key}`,
    '{scrypt} trailing field': `{scrypt}${scrypt}$`,
    '{scrypt} without the leading $': `{scrypt}${scrypt.slice(1)}`,
    '{argon2} around a scrypt string': '{argon2}$scrypt$ln=4,r=1,p=1$c2FsdA$aGFzaGhhc2hoYQ',
    '{argon2} without the leading $': `{argon2}${argon2.slice(1)}`,
    '{argon2} truncated hash': `{argon2}${argon2.slice(0, -40)}`,
    '{bcrypt} truncated': published[0].hash.slice(0, -1),
    '{bcrypt} around $2x$': published[0].hash.replace('$2a$', '$2x$'),
    '{bcrypt} empty': '{bcrypt}',
    '{noop} (unsupported)': '{noop}password',
    '{MD5} (unsupported)': '{MD5}{aRYR+Yp2xSqtgF+vtjH6jNda6M083iEbP+zCFjLt9IA=}905e382a25eed53e22224223b3581092',
    '{sha256} (unsupported)': '{sha256}97cde38028ad898ebc02e690819fa220e88c62e0699403e94fff291cfffaf8410849f27605abcbc0',
    'an unknown id': `{pbkdf2@SpringSecurity_v6_0}${pbkdf2}`,
    'an empty id': `{}${pbkdf2}`,
  };
  for (const [what, stored] of Object.entries(cases)) {
    test(what, () => assertMalformed(pool, stored));
  }

  test('the unsupported ones say why', () => assertMalformed(pool, cases['{noop} (unsupported)'], /not supported/));
});

describe('limits, before any work', () => {
  test('the ids\' fixed iterations against pbkdf2Iterations; scrypt@v5.8 memory; argon2 memory', async () => {
    await assertOverLimit(pool, byId('pbkdf2'), { pbkdf2Iterations: 100000 }, 'pbkdf2Iterations');
    await assertOverLimit(pool, byId('pbkdf2@SpringSecurity_v5_8'), { pbkdf2Iterations: 300000 }, 'pbkdf2Iterations');
    await assertOverLimit(pool, byId('scrypt@SpringSecurity_v5_8'), { scryptMemory: 32 << 20 }, 'scryptMemory');
    await assertOverLimit(pool, byId('argon2@SpringSecurity_v5_8'), { argon2Memory: 8192 }, 'argon2Memory');
  });
});
