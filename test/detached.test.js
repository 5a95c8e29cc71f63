'use strict';

// A detached ArrayBuffer, or a view of one, is empty input to node:crypto
// (its byte length is 0). kdfpool reads it the same way, sync and async,
// wherever bytes are accepted, instead of V8's codeless TypeError
// ("Cannot perform Construct on a detached ArrayBuffer").

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');

function detach(ab) {
  structuredClone(ab, { transfer: [ab] });
  assert.equal(ab.byteLength, 0);
}

// Each a function making a fresh detached input (node:crypto and kdfpool
// each get their own).
const FORMS = {
  ArrayBuffer: () => {
    const ab = new ArrayBuffer(8);
    detach(ab);
    return ab;
  },
  Uint8Array: () => {
    const ab = new ArrayBuffer(8);
    const view = new Uint8Array(ab);
    detach(ab);
    return view;
  },
  Buffer: () => {
    const ab = new ArrayBuffer(8);
    const view = Buffer.from(ab, 2, 4);
    detach(ab);
    return view;
  },
  Uint16Array: () => {
    const ab = new ArrayBuffer(8);
    const view = new Uint16Array(ab, 2, 2);
    detach(ab);
    return view;
  },
  DataView: () => {
    const ab = new ArrayBuffer(8);
    const view = new DataView(ab, 2);
    detach(ab);
    return view;
  },
};
if (typeof ArrayBuffer.prototype.transfer === 'function') {
  FORMS['ArrayBuffer (transfer())'] = () => {
    const ab = new ArrayBuffer(8);
    ab.transfer();
    return ab;
  };
}

test('pbkdf2 and scrypt read a detached password or salt as node:crypto does', async () => {
  for (const [form, make] of Object.entries(FORMS)) {
    const pbkdf2Password = crypto.pbkdf2Sync(make(), 'salt', 1, 32, 'sha256');
    const pbkdf2Salt = crypto.pbkdf2Sync('pw', make(), 1, 32, 'sha256');
    assert.deepEqual(kdf.pbkdf2Sync(make(), 'salt', 1, 32, 'sha256'), pbkdf2Password, `pbkdf2Sync password ${form}`);
    assert.deepEqual(kdf.pbkdf2Sync('pw', make(), 1, 32, 'sha256'), pbkdf2Salt, `pbkdf2Sync salt ${form}`);
    assert.deepEqual(await kdf.pbkdf2(make(), 'salt', 1, 32, 'sha256'), pbkdf2Password, `pbkdf2 password ${form}`);
    assert.deepEqual(await kdf.pbkdf2('pw', make(), 1, 32, 'sha256'), pbkdf2Salt, `pbkdf2 salt ${form}`);
    const viaCallback = await new Promise((resolve, reject) => {
      kdf.pbkdf2(make(), 'salt', 1, 32, 'sha256', (err, key) => (err ? reject(err) : resolve(key)));
    });
    assert.deepEqual(viaCallback, pbkdf2Password, `pbkdf2 callback ${form}`);

    const options = { N: 16, r: 1, p: 1 };
    const scryptPassword = crypto.scryptSync(make(), 'salt', 32, options);
    const scryptSalt = crypto.scryptSync('pw', make(), 32, options);
    assert.deepEqual(kdf.scryptSync(make(), 'salt', 32, options), scryptPassword, `scryptSync password ${form}`);
    assert.deepEqual(kdf.scryptSync('pw', make(), 32, options), scryptSalt, `scryptSync salt ${form}`);
    assert.deepEqual(await kdf.scrypt(make(), 'salt', 32, options), scryptPassword, `scrypt password ${form}`);
    assert.deepEqual(await kdf.scrypt('pw', make(), 32, options), scryptSalt, `scrypt salt ${form}`);
  }
});

test('argon2 reads a detached message, secret or associated data as empty, and refuses a detached nonce', async () => {
  const params = (over) => ({
    message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 64, passes: 1, ...over,
  });
  // node:crypto's argon2 (Node >= 24.7) where there is one; else the same
  // call with empty bytes, which the vector suites check against RFC 9106.
  // node's argon2 throws V8's codeless TypeError for a detached DataView
  // (it asks the view for its byteLength); kdfpool reads it as empty, as
  // node's pbkdf2 and scrypt do.
  const nodeReads = (form) => typeof crypto.argon2Sync === 'function' && form !== 'DataView';
  const reference = (form, over, empty) => (nodeReads(form)
    ? crypto.argon2Sync('argon2id', params(over))
    : kdf.argon2Sync('argon2id', params(empty)));
  const empty = Buffer.alloc(0);
  for (const [form, make] of Object.entries(FORMS)) {
    for (const key of ['message', 'secret', 'associatedData']) {
      const expected = reference(form, { [key]: make() }, { [key]: empty });
      assert.deepEqual(kdf.argon2Sync('argon2id', params({ [key]: make() })), expected, `argon2Sync ${key} ${form}`);
      assert.deepEqual(await kdf.argon2('argon2id', params({ [key]: make() })), expected, `argon2 ${key} ${form}`);
    }
    const refusal = { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' };
    assert.throws(() => kdf.argon2Sync('argon2id', params({ nonce: make() })), refusal, `argon2Sync nonce ${form}`);
    await assert.rejects(kdf.argon2('argon2id', params({ nonce: make() })), refusal, `argon2 nonce ${form}`);
    if (nodeReads(form)) {
      assert.throws(() => crypto.argon2Sync('argon2id', params({ nonce: make() })), refusal);
    }
  }
});

test('hash and verify read a detached password as empty', async () => {
  const options = { algorithm: 'pbkdf2-sha256', iterations: 1 };
  const argon2 = { algorithm: 'argon2id', memory: 64, passes: 1, parallelism: 1 };
  for (const [form, make] of Object.entries(FORMS)) {
    assert.equal(await kdf.verify(await kdf.hash(make(), options), ''), true, `hash ${form}`);
    assert.equal(kdf.verifySync(kdf.hashSync(make(), options), ''), true, `hashSync ${form}`);
    const ofEmpty = await kdf.hash('', options);
    assert.equal(await kdf.verify(ofEmpty, make()), true, `verify ${form}`);
    assert.equal(kdf.verifySync(ofEmpty, make()), true, `verifySync ${form}`);
    assert.equal(await kdf.verify(ofEmpty, 'x'), false);
    // A detached secret is an empty pepper, which is refused (a pepper of no bytes adds nothing).
    await assert.rejects(kdf.hash('pw', { ...argon2, secret: make() }), { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' });
  }
});

test('a pool secret given detached is an empty pepper, refused', () => {
  assert.throws(() => kdf.createPool({ name: 'det.sec', threads: 1, secret: FORMS.DataView() }),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE', message: /is empty/ });
});
