'use strict';

// Reading a job's input arrays runs getters: native runSync() reads them
// with napi_get_element; a submit reads them in lib/ (Channel) and hands
// native submit() the values one by one. A getter may detach or rewrite an
// input that was read before it: native code must copy the inputs only
// once every JS call is done, so the job sees one consistent snapshot (the
// state after the last getter), never memory that is no longer the input's.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');

const native = require('../lib/native');
const { Channel } = require('../lib/submit');

const { PBKDF2 } = native.constants.algorithms;

// Detaches `view`'s buffer; the bytes move to a new owner, which then
// overwrites them: a pointer kept from before would now read 0xAA.
function detach(view) {
  const moved = structuredClone(view.buffer, { transfer: [view.buffer] });
  new Uint8Array(moved).fill(0xaa);
  return moved;
}

function expectedKey(password, salt, iterations, keylen) {
  return crypto.pbkdf2Sync(password, salt, iterations, keylen, 'sha256');
}

function inputsWithGetter(password, salt, onRead) {
  const inputs = [password, salt];
  Object.defineProperty(inputs, 1, { get() { onRead(); return salt; }, enumerable: true });
  return inputs;
}

function numbersWithGetter(iterations, onRead) {
  const numbers = [iterations];
  Object.defineProperty(numbers, 0, { get() { onRead(); return iterations; }, enumerable: true });
  return numbers;
}

const cases = [
  ['the salt getter detaches the password', () => {
    const password = new Uint8Array(Buffer.from('correct horse battery staple'));
    const salt = new Uint8Array(Buffer.from('NaCl-NaCl-NaCl-!'));
    let kept;
    const inputs = inputsWithGetter(password, salt, () => { kept = detach(password); });
    return { inputs, numbers: [1000], snapshot: () => [Buffer.from(password), salt, kept] };
  }],
  ['a numbers getter detaches the password', () => {
    const password = new Uint8Array(Buffer.from('correct horse battery staple'));
    const salt = new Uint8Array(Buffer.from('NaCl-NaCl-NaCl-!'));
    let kept;
    const numbers = numbersWithGetter(1000, () => { kept = detach(password); });
    return { inputs: [password, salt], numbers, snapshot: () => [Buffer.from(password), salt, kept] };
  }],
  ['a numbers getter detaches the salt', () => {
    const password = new Uint8Array(Buffer.from('pw'));
    const salt = new Uint8Array(Buffer.from('NaCl-NaCl-NaCl-!'));
    let kept;
    const numbers = numbersWithGetter(1000, () => { kept = detach(salt); });
    return { inputs: [password, salt], numbers, snapshot: () => [password, Buffer.from(salt), kept] };
  }],
  ['a numbers getter rewrites the password in place', () => {
    const password = new Uint8Array(Buffer.from('before'));
    const salt = new Uint8Array(Buffer.from('NaCl-NaCl-NaCl-!'));
    const numbers = numbersWithGetter(1000, () => { password.set(Buffer.from('after!')); });
    return { inputs: [password, salt], numbers, snapshot: () => [password, salt] };
  }],
];

for (const [name, make] of cases) {
  test(`runSync: ${name}: the key is the snapshot's`, () => {
    const c = make();
    const r = native.runSync(PBKDF2, c.inputs, c.numbers, 'sha256', 32);
    const [password, salt] = c.snapshot();
    assert.ok(r instanceof Uint8Array, `refused: ${r}`);
    assert.deepEqual(Buffer.from(r), expectedKey(password, salt, 1000, 32));
  });

  test(`submit: ${name}: the key is the snapshot's`, async () => {
    const c = make();
    const channel = new Channel(null, 0, 'inputs');
    const promise = channel.submit(PBKDF2, { inputs: c.inputs, numbers: c.numbers, name: 'sha256', outlen: 32, context: {} });
    const [password, salt] = c.snapshot(); // what the arrays held once read
    assert.deepEqual(Buffer.from(await promise), expectedKey(password, salt, 1000, 32));
  });
}

test('the public API is unaffected: same key as node:crypto', async () => {
  const kdf = require(path.join(__dirname, '..'));
  const key = await kdf.pbkdf2('pw', 'salt', 1000, 32, 'sha256');
  assert.deepEqual(key, crypto.pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256'));
});
