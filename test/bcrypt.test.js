'use strict';

// bcrypt strings through kdf.hash / kdf.verify / kdf.needsRehash: every
// vector of test/vectors/bcrypt.json (OpenBSD, openwall crypt_blowfish,
// npm bcrypt, jBCrypt/bcryptjs, generated with npm bcrypt), formatting round
// trips, the 72-byte boundary, non-ASCII passwords and the salt encoding.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const npmBcrypt = require('bcrypt');
const kdf = require('..');
const { parseBcrypt } = require('../lib/phc/parse');
const { bcryptEncode, BCRYPT_ALPHABET } = require('../lib/phc/encoding');
const vectors = require('./vectors/bcrypt.json');

const password = (p) => (typeof p === 'string' ? p : Buffer.from(p.hex, 'hex'));
const label = (p) => (typeof p === 'string' ? JSON.stringify(p.length > 40 ? `${p.slice(0, 40)}...` : p) : `hex ${p.hex}`);
// A different password: one more byte changes the key unless we are past
// 72 bytes, so change the first byte instead.
function wrong(p) {
  const b = Buffer.from(typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p.hex, 'hex'));
  if (b.length === 0) return Buffer.from('x');
  b[0] ^= 0x01;
  return b;
}

describe('bcrypt vectors', () => {
  for (const [i, vec] of vectors.entries()) {
    test(`#${i} ${vec.hash.slice(0, 7)} ${label(vec.password)} (${vec.comment})`, async () => {
      assert.equal(await kdf.verify(vec.hash, password(vec.password)), true);
      assert.equal(await kdf.verify(vec.hash, wrong(vec.password)), false);
    });
  }
});

describe('bcrypt hash()', () => {
  for (const cost of [4, 5, 6]) {
    test(`round trip, cost ${cost}`, async () => {
      const h = await kdf.hash('correct horse battery staple', { algorithm: 'bcrypt', cost });
      assert.match(h, new RegExp(`^\\$2b\\$0${cost}\\$[./A-Za-z0-9]{53}$`));
      assert.equal(await kdf.verify(h, 'correct horse battery staple'), true);
      assert.equal(await kdf.verify(h, 'correct horse battery stapl'), false);
      // Our output is what npm bcrypt computes for the same salt.
      assert.equal(await npmBcrypt.hash('correct horse battery staple', h.slice(0, 29)), h);
    });
  }

  test('default cost is 10 and the salt is fresh each time', async () => {
    const [a, b] = await Promise.all([kdf.hash('pw', { algorithm: 'bcrypt' }), kdf.hash('pw', { algorithm: 'bcrypt' })]);
    assert.equal(a.slice(0, 7), '$2b$10$');
    assert.notEqual(a.slice(7, 29), b.slice(7, 29));
    assert.equal(await kdf.verify(a, 'pw'), true);
  });

  test('bytes and strings hash alike (UTF-8)', async () => {
    const h = await kdf.hash('pässwörd', { algorithm: 'bcrypt', cost: 4 });
    assert.equal(await kdf.verify(h, Buffer.from('pässwörd', 'utf8')), true);
    assert.equal(await kdf.verify(h, new Uint8Array(Buffer.from('pässwörd', 'utf8'))), true);
    assert.equal(await kdf.verify(h, Buffer.from('pässwörd', 'latin1')), false);
  });

  test('72-byte boundary: bytes after the 72nd are ignored, the 72nd is not', async () => {
    const p72 = 'a'.repeat(71) + 'b';
    const h = await kdf.hash(p72, { algorithm: 'bcrypt', cost: 4 });
    assert.equal(await kdf.verify(h, p72), true);
    assert.equal(await kdf.verify(h, `${p72}anything`), true);
    assert.equal(await kdf.verify(h, 'a'.repeat(72)), false);
    assert.equal(await kdf.verify(h, 'a'.repeat(71)), false);
    // 71 bytes: the terminating NUL is the 72nd key byte.
    const h71 = await kdf.hash('a'.repeat(71), { algorithm: 'bcrypt', cost: 4 });
    assert.equal(await kdf.verify(h71, 'a'.repeat(71)), true);
    assert.equal(await kdf.verify(h71, `${'a'.repeat(71)}\0`), true);
    assert.equal(await kdf.verify(h71, 'a'.repeat(72)), false);
  });

  test('non-ASCII: a character split by the 72-byte cut', async () => {
    const p = `${'a'.repeat(71)}€`; // 71 + 3 bytes: only the first byte of '€' counts
    const h = await kdf.hash(p, { algorithm: 'bcrypt', cost: 4, truncate: true });
    assert.equal(await kdf.verify(h, p), true);
    assert.equal(await kdf.verify(h, Buffer.concat([Buffer.from('a'.repeat(71)), Buffer.from([0xe2])])), true);
    assert.equal(await npmBcrypt.compare(p, h), true);
    for (const s of ['🔑パスワード€', 'пароль', 'ἓν οἶδα ὅτι οὐδὲν οἶδα']) {
      const hs = await kdf.hash(s, { algorithm: 'bcrypt', cost: 4 });
      assert.equal(await kdf.verify(hs, s), true);
      assert.equal(await npmBcrypt.compare(s, hs), true);
      assert.equal(await kdf.verify(hs, s.normalize('NFD') === s ? `${s}x` : s.normalize('NFD')), false);
    }
  });

  test('embedded NUL: bytes after it count (as in npm bcrypt 6)', async () => {
    const h = await kdf.hash('Passw\0rd123', { algorithm: 'bcrypt', cost: 4 });
    assert.equal(await kdf.verify(h, 'Passw\0rd123'), true);
    assert.equal(await kdf.verify(h, 'Passw\0rd124'), false);
    assert.equal(await kdf.verify(h, 'Passw'), false);
  });

  test('cost out of range is an argument error', async () => {
    for (const cost of [3, 32, 4.5, '10']) {
      await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', cost }),
        { code: typeof cost === 'string' ? 'ERR_INVALID_ARG_TYPE' : 'ERR_OUT_OF_RANGE' });
    }
    await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', memory: 1024 }),
      { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  });
});

describe('bcrypt salt encoding', () => {
  test('22 salt characters decode to 16 bytes and re-encode canonically', () => {
    const d = parseBcrypt('$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW');
    assert.equal(d.salt.length, 16);
    assert.equal(d.hash.length, 23);
    assert.equal(bcryptEncode(d.salt), 'CCCCCCCCCCCCCCCCCCCCC.');
    assert.equal(d.canonical, true);
    // 'h' carries low bits that 16 bytes cannot hold: it decodes like 'e'.
    const h = parseBcrypt(`$2b$04$CCCCCCCCCCCCCCCCCCCCCh${'.'.repeat(31)}`);
    assert.equal(bcryptEncode(h.salt), 'CCCCCCCCCCCCCCCCCCCCCe');
    assert.equal(h.canonical, false);
  });

  test('a salt whose last character has non-zero low bits verifies as npm bcrypt does (false)', async () => {
    // hash() with salt "...Ch" re-encodes it as "...Ce" (npm bcrypt does the same).
    const fromNpm = await npmBcrypt.hash('pw', '$2b$04$CCCCCCCCCCCCCCCCCCCCCh');
    assert.equal(fromNpm.slice(7, 29), 'CCCCCCCCCCCCCCCCCCCCCe');
    assert.equal(await kdf.verify(fromNpm, 'pw'), true);
    // The same string with the salt as given: npm bcrypt and bcryptjs
    // compare whole re-encoded strings, so neither accepts it; nor do we.
    const stored = `$2b$04$CCCCCCCCCCCCCCCCCCCCCh${fromNpm.slice(29)}`;
    assert.equal(await npmBcrypt.compare('pw', stored), false);
    assert.equal(await kdf.verify(stored, 'pw'), false);
    // A non-canonical last hash character: likewise false.
    const last = BCRYPT_ALPHABET.indexOf(fromNpm[59]);
    const bumped = fromNpm.slice(0, 59) + BCRYPT_ALPHABET[last + 1];
    assert.equal(await npmBcrypt.compare('pw', bumped), false);
    assert.equal(await kdf.verify(bumped, 'pw'), false);
  });

  test('$2y$ is $2b$, $2a$ differs only past 254 bytes', async () => {
    const h = await kdf.hash('pw', { algorithm: 'bcrypt', cost: 4 });
    assert.equal(await kdf.verify(`$2y$${h.slice(4)}`, 'pw'), true);
    assert.equal(await kdf.verify(`$2a$${h.slice(4)}`, 'pw'), true);
    assert.equal(kdf.needsRehash(h, { algorithm: 'bcrypt', cost: 4 }), false);
    assert.equal(kdf.needsRehash(`$2y$${h.slice(4)}`, { algorithm: 'bcrypt', cost: 4 }), false);
    assert.equal(kdf.needsRehash(`$2a$${h.slice(4)}`, { algorithm: 'bcrypt', cost: 4 }), true);
    assert.equal(kdf.needsRehash(h, { algorithm: 'bcrypt', cost: 5 }), true);
    assert.equal(kdf.needsRehash(h), true); // default target: argon2id
  });

  test('malformed bcrypt strings', async () => {
    const good = '$2b$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka';
    const bad = [
      '$2x$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', // unknown minor
      '$2$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', // no minor
      '$2b$4$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', // one-digit cost
      '$2b$03$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', // cost < 4
      '$2b$32$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', // cost > 31
      good.slice(0, -1), // truncated
      `${good}a`, // trailing garbage
      `${good}$`,
      good.replace('/', '+'), // not bcrypt's alphabet
      good.replace('/', '='),
      good.slice(0, 29), // salt only
      `${good.slice(0, 28)}$${good.slice(29)}`,
    ];
    for (const s of bad) {
      await assert.rejects(kdf.verify(s, 'pw'), { name: 'InvalidHashError', code: 'ERR_KDF_INVALID_HASH' }, s);
      assert.throws(() => kdf.needsRehash(s), { code: 'ERR_KDF_INVALID_HASH' }, s);
    }
  });
});
