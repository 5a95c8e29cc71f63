'use strict';

// Peppers that rotate: named Argon2 secrets, `secret: { current, keys[,
// unnamed] }`, wherever a `secret` is accepted (createPool, configure, a
// call's options). hash() writes the current key's id as the PHC string
// format's `keyid=` (B64 of the id's bytes, parameters in the order
// m,t,p,keyid,data); verify() takes the key the string names; a string
// naming an id the secret lacks is ERR_KDF_UNKNOWN_KEY_ID, not `false`;
// needsRehash() is true for any id but the current one (and for a string
// without keyid, and vice versa). Keys are checked and copied when
// configured, and an error or inspect() never shows one (wiping:
// test/secrets.test.js; tracing payloads: test/tracing.test.js).

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const util = require('node:util');
const npmArgon2 = require('argon2');
const kdf = require('..');

const T = { memory: 64, passes: 1 };
const K1 = 'pepper-one-4f1c';
const K2 = Buffer.from('pepper-two-9be0');
const K3 = 'pepper-three-77a';
const keyidOf = (id) => Buffer.from(id).toString('base64').replace(/=+$/, '');
const UNKNOWN_KEY = (keyId) => ({ name: 'KdfError', code: 'ERR_KDF_UNKNOWN_KEY_ID', retryable: false, keyId });
const keyidField = (phc) => {
  const m = /^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+(?:,keyid=([^,$]*))?(?:,data=[^$]*)?\$/.exec(phc);
  assert.ok(m, `an argon2id string: ${phc}`);
  return m[1];
};

describe('rotation round trip', () => {
  test('hash under k1; current k2: verify true, needsRehash true, the rehash writes k2; an unknown id is an error', async () => {
    try {
      kdf.configure({ secret: { current: 'k1', keys: { k1: K1 } } });
      const h1 = await kdf.hash('correct horse', T);
      assert.equal(keyidField(h1), keyidOf('k1'));
      assert.equal(await kdf.verify(h1, 'correct horse', T), true);
      assert.equal(kdf.needsRehash(h1, T), false);

      kdf.configure({ secret: { current: 'k2', keys: { k1: K1, k2: K2 } } });
      assert.equal(await kdf.verify(h1, 'correct horse', T), true);
      assert.equal(await kdf.verify(h1, 'wrong horse', T), false);
      assert.equal(kdf.needsRehash(h1, T), true);
      const h2 = await kdf.hash('correct horse', T);
      assert.equal(keyidField(h2), keyidOf('k2'));
      assert.equal(await kdf.verify(h2, 'correct horse', T), true);
      assert.equal(kdf.verifySync(h2, 'correct horse', T), true);
      assert.equal(kdf.needsRehash(h2, T), false);

      // k1 retired: its strings are an error that names the id, before any work.
      kdf.configure({ secret: { current: 'k3', keys: { k2: K2, k3: K3 } } });
      const before = kdf.stats().submitted;
      await assert.rejects(kdf.verify(h1, 'correct horse', T), (err) => {
        assert.deepEqual({ name: err.name, code: err.code, retryable: err.retryable, keyId: err.keyId }, UNKNOWN_KEY('k1'));
        assert.match(err.message, /"k1" \(keyid=azE\)/);
        assert.match(err.message, /"k2", "k3"/);
        return true;
      });
      assert.throws(() => kdf.verifySync(h1, 'correct horse', T), UNKNOWN_KEY('k1'));
      assert.equal(kdf.stats().submitted, before, 'nothing was queued');
      assert.equal(await kdf.verify(h2, 'correct horse', T), true);
    } finally {
      kdf.configure({ secret: null });
    }
  });

  test('the key really changes: a string under k2 does not verify with k1 under its id', async () => {
    const pool = kdf.createPool({ threads: 1, name: 'rot.a', secret: { current: 'k2', keys: { k1: K1, k2: K2 } } });
    const swapped = kdf.createPool({ threads: 1, name: 'rot.b', secret: { current: 'k1', keys: { k1: K1, k2: K1 } } });
    try {
      const h = await pool.hash('pw', T);
      assert.equal(await pool.verify(h, 'pw'), true);
      assert.equal(await swapped.verify(h, 'pw'), false); // "k2" is another key there
      // npm argon2 reads keyid= and ignores it: given the right secret, it agrees.
      assert.equal(await npmArgon2.verify(h, 'pw', { secret: K2 }), true);
      assert.equal(await npmArgon2.verify(h, 'pw', { secret: Buffer.from(K1) }), false);
    } finally {
      await Promise.all([pool.close(), swapped.close()]);
    }
  });

  test('a call\'s secret may be named keys too; it replaces the pool\'s', async () => {
    const pool = kdf.createPool({ threads: 1, name: 'rot.c', secret: 'single-pool-pepper' });
    try {
      const call = { ...T, secret: { current: 'a', keys: { a: K1, b: K3 } } };
      const h = await pool.hash('pw', call);
      assert.equal(keyidField(h), keyidOf('a'));
      assert.equal(await pool.verify(h, 'pw', call), true);
      assert.equal(pool.verifySync(h, 'pw', call), true);
      assert.equal(pool.needsRehash(h, call), false);
      assert.equal(pool.needsRehash(h, { ...call, secret: { current: 'b', keys: { a: K1, b: K3 } } }), true);
      // Under the pool's own single secret the id is unknown.
      await assert.rejects(pool.verify(h, 'pw'), UNKNOWN_KEY('a'));
      assert.equal(pool.needsRehash(h, T), true);
      const hs = pool.hashSync('pw', call);
      assert.equal(await pool.verify(hs, 'pw', call), true);
    } finally {
      await pool.close();
    }
  });
});

describe('strings with and without keyid', () => {
  test('a single secret writes no keyid; moving to named keys, unnamed names its key', async () => {
    const old = kdf.createPool({ threads: 1, name: 'rot.s', secret: K1 });
    const named = kdf.createPool({ threads: 1, name: 'rot.n', secret: { current: 'k2', keys: { k1: K1, k2: K2 }, unnamed: 'k1' } });
    const noUnnamed = kdf.createPool({ threads: 1, name: 'rot.u', secret: { current: 'k2', keys: { k1: K1, k2: K2 } } });
    try {
      const h0 = await old.hash('pw', T);
      assert.equal(keyidField(h0), undefined);
      assert.equal(old.needsRehash(h0, T), false);
      assert.equal(await named.verify(h0, 'pw'), true); // the single secret, now named k1
      assert.equal(named.needsRehash(h0, T), true); // no keyid, a current key is set
      // Without `unnamed`, a string without keyid is verified without a secret.
      assert.equal(await noUnnamed.verify(h0, 'pw'), false);
      const plain = await kdf.hash('pw', T);
      assert.equal(await noUnnamed.verify(plain, 'pw'), true);
      // And the other way: a string with keyid where the secret has no ids.
      const h2 = await named.hash('pw', T);
      assert.equal(old.needsRehash(h2, T), true);
      assert.equal(kdf.needsRehash(h2, T), true);
      await assert.rejects(old.verify(h2, 'pw'), UNKNOWN_KEY('k2'));
      await assert.rejects(kdf.verify(h2, 'pw'), (err) => {
        assert.deepEqual({ code: err.code, keyId: err.keyId }, { code: 'ERR_KDF_UNKNOWN_KEY_ID', keyId: 'k2' });
        assert.match(err.message, /has no named keys/);
        return true;
      });
    } finally {
      await Promise.all([old.close(), named.close(), noUnnamed.close()]);
    }
  });

  test('keyid= follows the PHC string format: B64 of the id, after p and before data', async () => {
    const pool = kdf.createPool({ threads: 1, name: 'rot.f', secret: { current: 'rot-8.id', keys: { 'rot-8.id': K3 } } });
    try {
      const h = await pool.hash('pw', { ...T, associatedData: 'ad' });
      assert.match(h, /^\$argon2id\$v=19\$m=64,t=1,p=1,keyid=cm90LTguaWQ,data=YWQ\$/);
      assert.equal(Buffer.from('cm90LTguaWQ', 'base64').toString(), 'rot-8.id'); // 8 bytes, 11 characters
      assert.equal(await pool.verify(h, 'pw'), true);
      // Parameters are read in any order, as npm argon2 writes m,p,t.
      const reordered = h.replace('m=64,t=1,p=1,keyid=cm90LTguaWQ,data=YWQ', 'data=YWQ,keyid=cm90LTguaWQ,p=1,t=1,m=64');
      assert.equal(await pool.verify(reordered, 'pw'), true);
      // An id of bytes no configuration can name is still reported, by its field.
      const binary = h.replace('keyid=cm90LTguaWQ', 'keyid=AP8');
      await assert.rejects(pool.verify(binary, 'pw'), (err) => {
        assert.equal(err.code, 'ERR_KDF_UNKNOWN_KEY_ID');
        assert.match(err.message, /keyid=AP8/);
        return true;
      });
      // Malformed keyid fields are malformed strings.
      for (const field of ['keyid=', 'keyid=QUFBQUFBQUFB', 'keyid=azE=', 'keyid=azF', 'keyid=a-E']) {
        const bad = h.replace('keyid=cm90LTguaWQ', field);
        await assert.rejects(pool.verify(bad, 'pw'), { name: 'InvalidHashError', code: 'ERR_KDF_INVALID_HASH' }, field);
        assert.throws(() => pool.needsRehash(bad), { code: 'ERR_KDF_INVALID_HASH' }, field);
      }
    } finally {
      await pool.close();
    }
  });
});

describe('named keys are checked, copied and never shown', () => {
  const secretText = 'do-not-show-me-3141';
  const shows = (text) => text.includes(secretText) || text.includes(Buffer.from(secretText).toString('hex'));

  test('bad shapes are refused with coded errors that name the field, not the key', async () => {
    const cases = [
      [{ current: 'k1', keys: { k1: 12345 } }, 'ERR_INVALID_ARG_TYPE', /secret\.keys\.k1/],
      [{ current: 'k1', keys: {} }, 'ERR_INVALID_ARG_VALUE', /secret\.current/],
      [{ current: 'k9', keys: { k1: secretText } }, 'ERR_INVALID_ARG_VALUE', /is not one of options\.secret\.keys \(k1\)/],
      [{ keys: { k1: secretText } }, 'ERR_INVALID_ARG_VALUE', /secret\.current/],
      [{ current: 'k1', keys: { k1: secretText }, unnamed: 'k0' }, 'ERR_INVALID_ARG_VALUE', /secret\.unnamed/],
      [{ current: 'k1', keys: { k1: secretText }, previous: secretText }, 'ERR_INVALID_ARG_VALUE', /secret\.previous/],
      [{ current: 'k1', keys: secretText }, 'ERR_INVALID_ARG_TYPE', /secret\.keys/],
      [{ current: 'a b', keys: { 'a b': secretText } }, 'ERR_INVALID_ARG_VALUE', /key id/],
      [{ current: 'k1', keys: { k1: secretText, 'nine-char': secretText } }, 'ERR_INVALID_ARG_VALUE', /secret\.keys/],
      [{ current: 'k1', keys: { k1: secretText, '': secretText } }, 'ERR_INVALID_ARG_VALUE', /secret\.keys/],
      [{ current: 'k1', keys: { k1: secretText, 'clé': secretText } }, 'ERR_INVALID_ARG_VALUE', /secret\.keys/],
      [{ current: 1, keys: { 1: secretText } }, 'ERR_INVALID_ARG_VALUE', /secret\.current/],
      [[secretText], 'ERR_INVALID_ARG_TYPE', /secret/],
      [12345, 'ERR_INVALID_ARG_TYPE', /secret/],
    ];
    for (const [secret, code, message] of cases) {
      const check = (err) => {
        assert.equal(err.code, code, util.inspect(secret));
        assert.match(err.message, message);
        assert.ok(!shows(`${err.message}\n${err.stack}`), `the key shown: ${err.message}`);
        assert.ok(!err.message.includes('12345'), `the key shown: ${err.message}`);
        return true;
      };
      assert.throws(() => kdf.createPool({ threads: 1, secret }), check);
      assert.throws(() => kdf.configure({ secret }), check);
      await assert.rejects(kdf.hash('pw', { ...T, secret }), check);
      await assert.rejects(kdf.verify('$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA', 'pw', { secret }), check);
    }
    // A secret is still an Argon2 option only.
    await assert.rejects(kdf.hash('pw', { algorithm: 'scrypt', secret: { current: 'k1', keys: { k1: 'x' } } }),
      { code: 'ERR_INVALID_ARG_VALUE' });
  });

  test('a pepper put in any field is never shown: message, stack, inspect, JSON; pool and call level', async () => {
    // An id-shaped pepper too (8 characters of the id alphabet), and bytes,
    // which inspect() would print as hex.
    const peppers = ['S3cr3t-Pepper-Value-2718', 'Pk9x_q2Z', Buffer.from('pepper-as-bytes-1618')];
    const forms = (p) => [typeof p === 'string' ? p : p.toString('hex'), Buffer.from(p).toString('hex'),
      Buffer.from(p).toString('base64').replace(/=+$/, ''), util.inspect(p)];
    const misplaced = (p) => [
      ['current', { current: p, keys: { k1: 'real-key-0001' } }],
      ['unnamed', { current: 'k1', keys: { k1: 'real-key-0001' }, unnamed: p }],
      ['an id of keys', { current: 'k1', keys: { k1: 'real-key-0001', [typeof p === 'string' ? p : p.toString('latin1')]: 'x-key' } }],
      ['current and unnamed', { current: p, keys: { [`${p}`.slice(0, 3) || 'k']: p }, unnamed: p }],
      ['the whole secret to scrypt', { current: 'k1', keys: { k1: p } }],
      ['an unknown field', { current: 'k1', keys: { k1: 'real-key-0001' }, pepper: p }],
    ];
    const levels = {
      createPool: (secret) => kdf.createPool({ threads: 1, secret }),
      configure: (secret) => kdf.configure({ secret }),
      hash: (secret, field) => kdf.hash('pw', field.startsWith('the whole') ? { algorithm: 'scrypt', ln: 4, secret } : { ...T, secret }),
      verify: (secret) => kdf.verify('$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA', 'pw', { secret }),
      verifyUnknown: (secret) => kdf.verifyUnknown('pw', { ...T, secret }),
      needsRehash: (secret) => kdf.needsRehash('$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA', { secret }),
    };
    let checked = 0;
    for (const p of peppers) {
      for (const [field, secret] of misplaced(p)) {
        // An id-shaped pepper as a name in keys is a valid id: nothing to refuse.
        if (field === 'an id of keys' && /^[A-Za-z0-9._-]{1,8}$/.test(p)) continue;
        for (const [level, call] of Object.entries(levels)) {
          if (field.startsWith('the whole') && level !== 'hash') continue;
          let err;
          try {
            await call(secret, field);
          } catch (e) {
            err = e;
          }
          assert.ok(err instanceof Error, `${level}, ${field}: refused`);
          assert.match(err.code, /^ERR_INVALID_ARG_(VALUE|TYPE)$/, `${level}, ${field}`);
          const shown = [err.message, err.stack, util.inspect(err, { showHidden: true, depth: Infinity }),
            JSON.stringify(err), JSON.stringify({ ...err })].join('\n');
          for (const form of forms(p)) assert.ok(!shown.includes(form), `${level}, ${field}: shows ${form}:\n${shown}`);
          checked++;
        }
      }
    }
    assert.ok(checked >= 60);
  });

  test('an empty pepper is an error with a stable code, wherever it is given', async () => {
    const empties = ['', Buffer.alloc(0), new ArrayBuffer(0), new Uint8Array(0)];
    for (const empty of empties) {
      for (const secret of [empty, { current: 'k1', keys: { k1: empty } }, { current: 'k1', keys: { k1: 'x', k0: empty } }]) {
        const check = (err) => {
          assert.equal(err.name, 'TypeError');
          assert.equal(err.code, 'ERR_INVALID_ARG_VALUE');
          assert.match(err.message, /empty/);
          return true;
        };
        assert.throws(() => kdf.createPool({ threads: 1, secret }), check);
        assert.throws(() => kdf.configure({ secret }), check);
        await assert.rejects(kdf.hash('pw', { ...T, secret }), check);
        await assert.rejects(kdf.verify('$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA', 'pw', { secret }), check);
        await assert.rejects(kdf.verifyUnknown('pw', { ...T, secret }), check);
        assert.throws(() => kdf.needsRehash('$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaA', { secret }), check);
      }
    }
    // Nothing was configured by the refused calls.
    assert.equal(await kdf.verify(await kdf.hash('pw', T), 'pw', T), true);
  });

  test('keys are copied when configured: changing the caller\'s Buffer changes nothing', async () => {
    const key = Buffer.from('mutable-pepper-0001');
    const original = Buffer.from(key);
    const pool = kdf.createPool({ threads: 1, name: 'rot.m', secret: { current: 'k1', keys: { k1: key } } });
    try {
      key.fill(0x78); // the caller reuses (or wipes) its buffer
      const h = await pool.hash('pw', T);
      assert.equal(await kdf.verify(h, 'pw', { secret: { current: 'k1', keys: { k1: original } } }), true);
      assert.equal(await kdf.verify(h, 'pw', { secret: { current: 'k1', keys: { k1: key } } }), false);
    } finally {
      await pool.close();
    }
  });

  test('inspect() of a pool or the module shows no key', async () => {
    const pool = kdf.createPool({ threads: 1, name: 'rot.i', secret: { current: 'k1', keys: { k1: secretText, k2: Buffer.from(secretText) } } });
    try {
      kdf.configure({ secret: { current: 'k1', keys: { k1: secretText } } });
      for (const value of [pool, kdf]) {
        const text = util.inspect(value, { showHidden: true, depth: Infinity, getters: true });
        assert.ok(!shows(text), 'inspect() shows a key');
      }
      // An error of a call that names an unknown key shows ids only.
      const h = await pool.hash('pw', T);
      const other = kdf.createPool({ threads: 1, name: 'rot.j', secret: { current: 'zz', keys: { zz: secretText } } });
      try {
        const err = await other.verify(h, 'pw').catch((e) => e);
        assert.equal(err.code, 'ERR_KDF_UNKNOWN_KEY_ID');
        assert.ok(!shows(util.inspect(err, { showHidden: true, depth: Infinity })));
      } finally {
        await other.close();
      }
    } finally {
      kdf.configure({ secret: null });
      await pool.close();
    }
  });
});
