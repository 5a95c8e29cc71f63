'use strict';

// Interop with the password-hashing packages services use today, both ways:
// we verify their strings, they verify ours. Wrong passwords are false on
// both sides.
//   npm argon2 (node-argon2), @node-rs/argon2, libsodium crypto_pwhash_str
//   (sodium-native), npm bcrypt, bcryptjs.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const npmArgon2 = require('argon2');
const nodeRs = require('@node-rs/argon2');
const sodium = require('sodium-native');
const npmBcrypt = require('bcrypt');
const bcryptjs = require('bcryptjs');
const kdf = require('..');

const PASSWORDS = ['correct horse battery staple', '', 'pässwörd 🔑', 'x'.repeat(100)];
const WRONG = 'Tr0ub4dor&3';

function sodiumHash(password, opslimit, memlimit) {
  const out = Buffer.alloc(sodium.crypto_pwhash_STRBYTES);
  sodium.crypto_pwhash_str(out, Buffer.from(password), opslimit, memlimit);
  return out.toString('latin1').replace(/\0+$/, ''); // a NUL-terminated C string
}

function sodiumVerify(phc, password) {
  const buf = Buffer.alloc(sodium.crypto_pwhash_STRBYTES);
  buf.write(phc, 'latin1');
  return sodium.crypto_pwhash_str_verify(buf, Buffer.from(password));
}

describe('we verify theirs', () => {
  test('npm argon2: defaults (argon2id m=65536 t=3 p=4, written m,p,t)', async () => {
    const h = await npmArgon2.hash(PASSWORDS[0]);
    assert.match(h, /^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
    assert.equal(await kdf.verify(h, PASSWORDS[0]), true);
    assert.equal(await kdf.verify(h, WRONG), false);
    assert.equal(kdf.needsRehash(h, { memory: 65536, passes: 3, parallelism: 4 }), false);
    // Stronger than our defaults in every cost: no rehash (never a downgrade) ...
    assert.equal(kdf.needsRehash(h), false);
    // ... unless the exact parameters are asked for.
    assert.equal(kdf.needsRehash(h, { exact: true }), true);
  });

  test('npm argon2: argon2i, argon2d, other lanes, tag and salt lengths, non-ASCII', async () => {
    const cases = [
      { type: npmArgon2.argon2i, memoryCost: 1024, timeCost: 2, parallelism: 1 },
      { type: npmArgon2.argon2d, memoryCost: 2048, timeCost: 1, parallelism: 8 },
      { type: npmArgon2.argon2id, memoryCost: 4096, timeCost: 1, parallelism: 3, hashLength: 64, saltLength: 32 },
      { type: npmArgon2.argon2id, memoryCost: 512, timeCost: 1, parallelism: 2, hashLength: 16, saltLength: 8 },
    ];
    for (const options of cases) {
      for (const pw of PASSWORDS) {
        const h = await npmArgon2.hash(pw, options);
        assert.equal(await kdf.verify(h, pw), true, h);
        assert.equal(await kdf.verify(h, WRONG), false, h);
      }
    }
  });

  test('npm argon2: associated data (data=) and version 0x10 (v=16)', async () => {
    const withData = await npmArgon2.hash('pw', { memoryCost: 1024, associatedData: Buffer.from('context') });
    assert.match(withData, /,data=/);
    assert.equal(await kdf.verify(withData, 'pw'), true);
    assert.equal(await kdf.verify(withData, 'pW'), false);
    const v16 = await npmArgon2.hash('pw', { memoryCost: 1024, version: 0x10 });
    assert.match(v16, /^\$argon2id\$v=16\$/);
    assert.equal(await kdf.verify(v16, 'pw'), true);
    assert.equal(await kdf.verify(v16, 'pW'), false);
    // The same hash in the legacy form without v=.
    assert.equal(await kdf.verify(v16.replace('$v=16$', '$'), 'pw'), true);
  });

  test('@node-rs/argon2: hash (defaults m=19456 t=2 p=1) and other parameters', async () => {
    for (const pw of PASSWORDS) {
      const h = await nodeRs.hash(pw);
      assert.match(h, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      assert.equal(await kdf.verify(h, pw), true);
      assert.equal(await kdf.verify(h, WRONG), false);
      assert.equal(kdf.needsRehash(h), false); // same defaults as ours
    }
    const cases = [
      { algorithm: nodeRs.Algorithm.Argon2i, memoryCost: 1024, timeCost: 3, parallelism: 2 },
      { algorithm: nodeRs.Algorithm.Argon2d, memoryCost: 2048, timeCost: 1, parallelism: 4, outputLen: 48 },
      { version: nodeRs.Version.V0x10, memoryCost: 1024, timeCost: 1 },
    ];
    for (const options of cases) {
      const h = await nodeRs.hash('pw', options);
      assert.equal(await kdf.verify(h, 'pw'), true, h);
      assert.equal(await kdf.verify(h, 'pW'), false, h);
    }
  });

  test('libsodium crypto_pwhash_str (argon2id, p=1)', async () => {
    const h = sodiumHash(PASSWORDS[0], sodium.crypto_pwhash_OPSLIMIT_INTERACTIVE, sodium.crypto_pwhash_MEMLIMIT_INTERACTIVE);
    assert.match(h, /^\$argon2id\$v=19\$m=65536,t=2,p=1\$/);
    assert.equal(await kdf.verify(h, PASSWORDS[0]), true);
    assert.equal(await kdf.verify(h, WRONG), false);
    for (const pw of PASSWORDS) {
      const small = sodiumHash(pw, 3, 1 << 20);
      assert.equal(await kdf.verify(small, pw), true, small);
      assert.equal(await kdf.verify(small, WRONG), false, small);
    }
  });

  test('npm bcrypt: hash, cost 4-6 ($2b$)', async () => {
    for (const cost of [4, 5, 6]) {
      for (const pw of PASSWORDS) {
        const h = await npmBcrypt.hash(pw, cost);
        assert.match(h, new RegExp(`^\\$2b\\$0${cost}\\$`));
        assert.equal(await kdf.verify(h, pw), true, h);
        assert.equal(await kdf.verify(h, WRONG), false, h);
      }
    }
  });

  test('bcryptjs: $2b$ and $2a$', async () => {
    for (const pw of PASSWORDS) {
      const h = await bcryptjs.hash(pw, 4);
      assert.match(h, /^\$2b\$04\$/);
      assert.equal(await kdf.verify(h, pw), true, h);
      assert.equal(await kdf.verify(h, WRONG), false, h);
      // $2a$ (bcryptjs writes the minor of the salt it is given). Passwords
      // under 255 bytes: bcryptjs and OpenBSD/npm bcrypt agree on $2a$.
      const salt2a = `$2a$05$${(await bcryptjs.genSalt(5)).slice(7)}`;
      const h2a = await bcryptjs.hash(pw, salt2a);
      assert.match(h2a, /^\$2a\$05\$/);
      assert.equal(await kdf.verify(h2a, pw), true, h2a);
      assert.equal(await kdf.verify(h2a, WRONG), false, h2a);
    }
  });
});

describe('they verify ours', () => {
  test('npm argon2.verify: default parameters and p=2', async () => {
    for (const pw of PASSWORDS) {
      const h = await kdf.hash(pw);
      assert.equal(await npmArgon2.verify(h, pw), true, h);
      assert.equal(await npmArgon2.verify(h, WRONG), false, h);
    }
    const p2 = await kdf.hash('pw', { parallelism: 2 });
    assert.match(p2, /^\$argon2id\$v=19\$m=19456,t=2,p=2\$/);
    assert.equal(await npmArgon2.verify(p2, 'pw'), true);
    assert.equal(await npmArgon2.verify(p2, 'pW'), false);
    for (const algorithm of ['argon2i', 'argon2d']) {
      const h = await kdf.hash('pw', { algorithm, memory: 1024, passes: 3, parallelism: 4, tagLength: 24, saltLength: 24 });
      assert.equal(await npmArgon2.verify(h, 'pw'), true, h);
      assert.equal(await npmArgon2.verify(h, 'pW'), false, h);
    }
  });

  test('@node-rs/argon2.verify: default parameters and p=2', async () => {
    for (const pw of PASSWORDS) {
      const h = await kdf.hash(pw);
      assert.equal(await nodeRs.verify(h, pw), true, h);
      assert.equal(await nodeRs.verify(h, WRONG), false, h);
    }
    const p2 = await kdf.hash('pw', { parallelism: 2 });
    assert.equal(await nodeRs.verify(p2, 'pw'), true);
    assert.equal(await nodeRs.verify(p2, 'pW'), false);
  });

  test('libsodium crypto_pwhash_str_verify', async () => {
    for (const pw of PASSWORDS) {
      const h = await kdf.hash(pw);
      assert.equal(sodiumVerify(h, pw), true, h);
      assert.equal(sodiumVerify(h, WRONG), false, h);
    }
  });

  test('npm bcrypt.compare and bcryptjs.compare', async () => {
    for (const cost of [4, 5, 6]) {
      for (const pw of PASSWORDS) {
        // The 100-byte password needs truncate: true (hash() refuses it by default).
        const h = await kdf.hash(pw, { algorithm: 'bcrypt', cost, truncate: Buffer.byteLength(pw) > 72 });
        assert.equal(await npmBcrypt.compare(pw, h), true, h);
        assert.equal(await npmBcrypt.compare(WRONG, h), false, h);
        assert.equal(await bcryptjs.compare(pw, h), true, h);
        assert.equal(await bcryptjs.compare(WRONG, h), false, h);
      }
    }
  });
});

describe('secret (pepper) and associated data, both ways', () => {
  const SECRET = Buffer.from('a pepper kept out of the database');
  const AD = Buffer.from('tenant-42');

  test('npm argon2: its secret and associatedData, verified by us', async () => {
    const h = await npmArgon2.hash('pw', { memoryCost: 1024, timeCost: 2, secret: SECRET, associatedData: AD });
    assert.match(h, /,data=/);
    assert.equal(await kdf.verify(h, 'pw', { secret: SECRET }), true);
    assert.equal(await kdf.verify(h, 'pw', { secret: SECRET.toString() }), true); // a string: its UTF-8
    assert.equal(await kdf.verify(h, 'pW', { secret: SECRET }), false);
    assert.equal(await kdf.verify(h, 'pw'), false); // without the pepper
    assert.equal(await kdf.verify(h, 'pw', { secret: 'another pepper' }), false);
    assert.equal(kdf.needsRehash(h, { memory: 1024, passes: 2, parallelism: 4, associatedData: AD }), false);
    assert.equal(kdf.needsRehash(h, { memory: 1024, passes: 2, parallelism: 4, associatedData: 'tenant-43' }), true);
  });

  test('ours, verified by npm argon2 (secret, associatedData) and @node-rs/argon2 (secret)', async () => {
    const withBoth = await kdf.hash('pw', { memory: 1024, passes: 2, secret: SECRET, associatedData: AD });
    assert.match(withBoth, new RegExp(`,data=${AD.toString('base64').replace(/=+$/, '')}\\$`));
    assert.equal(await npmArgon2.verify(withBoth, 'pw', { secret: SECRET }), true);
    assert.equal(await npmArgon2.verify(withBoth, 'pW', { secret: SECRET }), false);
    assert.equal(await npmArgon2.verify(withBoth, 'pw'), false);

    const withSecret = await kdf.hash('pw', { memory: 1024, passes: 2, secret: SECRET });
    assert.equal(await nodeRs.verify(withSecret, 'pw', { secret: SECRET }), true);
    assert.equal(await nodeRs.verify(withSecret, 'pW', { secret: SECRET }), false);
    assert.equal(await nodeRs.verify(withSecret, 'pw'), false);
    assert.equal(await npmArgon2.verify(withSecret, 'pw', { secret: SECRET }), true);
  });

  test('@node-rs/argon2: its secret, verified by us', async () => {
    const h = await nodeRs.hash('pw', { memoryCost: 1024, timeCost: 2, secret: SECRET });
    assert.equal(await kdf.verify(h, 'pw', { secret: SECRET }), true);
    assert.equal(await kdf.verify(h, 'pW', { secret: SECRET }), false);
    assert.equal(await kdf.verify(h, 'pw'), false);
    assert.equal(kdf.verifySync(h, 'pw', { secret: SECRET }), true);
  });

  test('a pool secret (createPool / configure) is used unless the call gives one', async () => {
    const pool = kdf.createPool({ threads: 1, name: 'pepper', secret: SECRET });
    try {
      const h = await pool.hash('pw', { memory: 1024, passes: 2 });
      assert.equal(await npmArgon2.verify(h, 'pw', { secret: SECRET }), true);
      assert.equal(await pool.verify(h, 'pw'), true);
      assert.equal(pool.verifySync(h, 'pw'), true);
      assert.equal(await kdf.verify(h, 'pw'), false); // the default pool has no secret
      assert.equal(await pool.verify(h, 'pw', { secret: 'other' }), false); // the call's overrides
      const other = await pool.hash('pw', { memory: 1024, passes: 2, secret: 'other' });
      assert.equal(await npmArgon2.verify(other, 'pw', { secret: Buffer.from('other') }), true);
      // Non-Argon2 strings were never peppered: the pool's secret does not apply.
      const b = await npmBcrypt.hash('pw', 4);
      assert.equal(await pool.verify(b, 'pw'), true);
      // The pool keeps a copy: changing the caller's Buffer changes nothing.
      const mine = Buffer.from('mutable pepper');
      const p2 = kdf.createPool({ threads: 1, name: 'pepper2', secret: mine });
      const h2 = await p2.hash('pw', { memory: 1024, passes: 1 });
      mine.fill(0);
      assert.equal(await p2.verify(h2, 'pw'), true);
      assert.equal(await npmArgon2.verify(h2, 'pw', { secret: Buffer.from('mutable pepper') }), true);
      await p2.close();
    } finally {
      await pool.close();
    }
    kdf.configure({ secret: SECRET });
    try {
      const h = await kdf.hash('pw', { memory: 1024, passes: 1 });
      assert.equal(await nodeRs.verify(h, 'pw', { secret: SECRET }), true);
      assert.equal(await kdf.verify(h, 'pw'), true);
    } finally {
      kdf.configure({ secret: null });
    }
    const plain = await kdf.hash('pw', { memory: 1024, passes: 1 });
    assert.equal(await nodeRs.verify(plain, 'pw'), true);
  });

  test('secret and associatedData are refused for other algorithms', async () => {
    for (const algorithm of ['scrypt', 'pbkdf2-sha256', 'bcrypt']) {
      await assert.rejects(kdf.hash('pw', { algorithm, secret: SECRET }),
        { code: 'ERR_INVALID_ARG_VALUE', message: /secret/ });
      await assert.rejects(kdf.hash('pw', { algorithm, associatedData: AD }), { code: 'ERR_INVALID_ARG_VALUE' });
      assert.throws(() => kdf.needsRehash('$2b$04$' + 'a'.repeat(53), { algorithm, secret: SECRET }),
        { code: 'ERR_INVALID_ARG_VALUE' });
    }
    // The secret itself never appears in an error message.
    await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', secret: 'hunter2-pepper' }), (err) => {
      assert.doesNotMatch(err.message, /hunter2-pepper/);
      return true;
    });
    await assert.rejects(kdf.hash('pw', { secret: 42 }), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => kdf.createPool({ secret: 42 }), { code: 'ERR_INVALID_ARG_TYPE' });
  });
});
