'use strict';

// An unknown key in one of kdfpool's own option objects is refused with
// ERR_INVALID_ARG_VALUE (as before), and the message names the known key it
// most likely meant: one that differs only in case, else the nearest within
// a small edit distance; a key near none gets the list of known keys.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { closestKey } = require('../lib/validate');

const POOL_KEYS = ['threads', 'maxQueue', 'maxMemory', 'maxWaitMs', 'priority', 'hashLimits', 'secret', 'hostSlots', 'name'];

test('closestKey: same letters in another case first, then a small edit distance', () => {
  const cases = {
    maxWaitMS: 'maxWaitMs', // case only
    MAXQUEUE: 'maxQueue',
    maxWait: 'maxWaitMs', // two letters short
    maxWaitMsec: 'maxWaitMs',
    thread: 'threads',
    treads: 'threads',
    maxQeue: 'maxQueue', // a letter dropped
    maxQuuee: 'maxQueue', // swapped pair
    prority: 'priority',
    hashlimit: 'hashLimits',
    nmae: 'name', // neighbours swapped
    secrets: 'secret',
    maxMem: 'maxMemory',
  };
  for (const [key, meant] of Object.entries(cases)) assert.equal(closestKey(key, POOL_KEYS), meant, key);
  // Too far from every known key: nothing is guessed.
  for (const key of ['x', 'max', 'host', 'wait', 'timeout', 'concurrency', 'queueSize']) {
    assert.equal(closestKey(key, POOL_KEYS), undefined, key);
  }
  // A one-letter key suggests only a key with the same letter in another case.
  assert.equal(closestKey('n', ['N', 'r', 'p']), 'N');
  assert.equal(closestKey('x', ['N', 'r', 'p']), undefined);
});

function refused(fn, key, meant) {
  const message = meant === undefined ? /\(one of / : new RegExp(`'${key}' is not (an option|a hash limit).*\\(did you mean "${meant}"\\?\\)`);
  assert.throws(fn, (err) => {
    assert.equal(err.code, 'ERR_INVALID_ARG_VALUE');
    assert.equal(err.name, 'TypeError');
    assert.match(err.message, message);
    return true;
  }, `${key} -> ${meant}`);
}

async function rejected(promise, key, meant) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.code, 'ERR_INVALID_ARG_VALUE');
    assert.equal(err.name, 'TypeError');
    assert.match(err.message, new RegExp(`'[^']*${key}' is not an option.*did you mean "${meant}"\\?`));
    return true;
  }, `${key} -> ${meant}`);
}

test('createPool() and configure() name the option they most likely meant', () => {
  refused(() => kdf.createPool({ maxWaitMS: 100 }), 'options.maxWaitMS', 'maxWaitMs');
  refused(() => kdf.createPool({ thread: 2 }), 'options.thread', 'threads');
  refused(() => kdf.createPool({ nmae: 'login' }), 'options.nmae', 'name');
  refused(() => kdf.configure({ maxQeue: 10 }), 'options.maxQeue', 'maxQueue');
  refused(() => kdf.configure({ prority: 'low' }), 'options.prority', 'priority');
  // name is createPool()'s only: configure() lists what it takes instead.
  refused(() => kdf.configure({ concurrency: 4 }), 'options.concurrency', undefined);
  // A string value (a misspelt secret?) is still not shown.
  assert.throws(() => kdf.createPool({ secrett: 'pepper' }), (err) => {
    assert.match(err.message, /did you mean "secret"\?/);
    assert.doesNotMatch(err.message, /pepper/);
    return true;
  });
  refused(() => kdf.createPool({ hostSlots: { key: 'k', slot: 2 } }), 'options.hostSlots.slot', 'slots');
});

test('hash limits, per pool and per call', async () => {
  refused(() => kdf.createPool({ hashLimits: { bcryptcost: 12 } }), 'options.hashLimits.bcryptcost', 'bcryptCost');
  refused(() => kdf.configure({ hashLimits: { argon2Mem: 1 } }), 'options.hashLimits.argon2Mem', 'argon2Memory');
  await assert.rejects(kdf.verify('$2b$04$abcdefghijklmnopqrstuuAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'pw', { limits: { passwordLenght: 10 } }),
    { code: 'ERR_INVALID_ARG_VALUE', message: /is not a hash limit \(did you mean "passwordLength"\?\)/ });
});

test('call options and hash options', async () => {
  await rejected(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { maxwait: 10 }), 'maxwait', 'maxWaitMs');
  await rejected(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signl: undefined, fairkey: 'a' }), 'fairkey', 'fairKey');
  await rejected(kdf.hash('pw', { algoritm: 'bcrypt' }), 'algoritm', 'algorithm');
  await rejected(kdf.hash('pw', { algorithm: 'pbkdf2-sha256', itertions: 1000 }), 'itertions', 'iterations');
  await rejected(kdf.hash('pw', { tagLenght: 32 }), 'tagLenght', 'tagLength');
  await rejected(kdf.verify('$2b$04$abcdefghijklmnopqrstuuAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'pw', { maxWaitMS: 5 }), 'maxWaitMS', 'maxWaitMs');
  assert.throws(() => kdf.needsRehash('$2b$04$abcdefghijklmnopqrstuuAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { algorithm: 'bcrypt', cots: 10 }),
    { code: 'ERR_INVALID_ARG_VALUE', message: /'options.cots' is not an option of bcrypt \(did you mean "cost"\?\)/ });
  // A peer package's name keeps its own pointer (not a guess).
  await assert.rejects(kdf.hash('pw', { memoryCost: 65536 }), { message: /kdfpool's equivalent is `memory`/ });
  // node:crypto's own objects ignore unknown keys, as node does; only ours in another case are refused.
  await rejected(kdf.scrypt('pw', 'salt', 16, { N: 16, maxWaitMS: 1 }), 'maxWaitMS', 'maxWaitMs');
  assert.equal((await kdf.scrypt('pw', 'salt', 16, { N: 16, maxWait: 1 })).length, 16);
});

test("a call's options: only its own keys are checked, inherited ones are not the caller's", async () => {
  const inherited = Object.create({ maxWaitMS: 5, timeout: 1 });
  inherited.fairKey = 'client-1';
  const key = await kdf.pbkdf2('pw', 'salt', 1, 16, 'sha256', inherited);
  assert.equal(key.length, 16);
  await assert.rejects(async () => kdf.pbkdf2('pw', 'salt', 1, 16, 'sha256', { fairKey: 'c', maxWaitMS: 5 }), {
    code: 'ERR_INVALID_ARG_VALUE',
    message: /maxWaitMS.*did you mean "maxWaitMs"/,
  });
  // scrypt's options are node's: ours misspelt are refused, others ignored.
  const sinherited = Object.create({ maxWaitMS: 5 });
  sinherited.N = 16;
  assert.equal((await kdf.scrypt('pw', 'salt', 16, sinherited)).length, 16);
  await assert.rejects(async () => kdf.scrypt('pw', 'salt', 16, { N: 16, maxWaitMS: 5 }), { code: 'ERR_INVALID_ARG_VALUE' });
});
