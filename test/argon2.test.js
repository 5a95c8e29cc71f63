'use strict';

// Argon2 (RFC 9106) through kdf.argon2 / kdf.argon2Sync: RFC vectors,
// cross-checks against three independent implementations, and node:crypto's
// argument errors (crypto.argon2 of Node >= 24.7).

const { prng, SEED } = require('./helpers/prng');
const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const sodium = require('sodium-native');
const nodeRs = require('@node-rs/argon2');
const npmArgon2 = require('argon2');
const kdf = require('..');
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const rand = prng(SEED);
const between = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const randomBytes = (n) => Buffer.from(Array.from({ length: n }, () => between(0, 255)));
const pick = (list) => list[between(0, list.length - 1)];

// Every input type node:crypto accepts. Returns the value to pass and the
// bytes an oracle must see. Views sit at an offset inside a larger buffer.
const INPUT_TYPES = ['string', 'Buffer', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Float64Array',
  'DataView', 'ArrayBuffer', 'SharedArrayBuffer'];

function makeInput(type, minLen, maxLen) {
  if (type === 'string') {
    let s = '';
    // Non-ASCII characters make the UTF-8 byte length differ from .length.
    while (Buffer.byteLength(s) < minLen || (s.length < maxLen && rand() < 0.8)) {
      s += pick(['a', 'Z', '7', ' ', 'é', '€', '😀', 'ß']);
    }
    return { value: s, bytes: Buffer.from(s, 'utf8'), type };
  }
  const elem = { Uint16Array: 2, Float64Array: 8 }[type] || 1;
  let len = between(minLen, maxLen);
  len = Math.ceil(len / elem) * elem;
  const bytes = randomBytes(len);
  if (type === 'ArrayBuffer' || type === 'SharedArrayBuffer') {
    const ab = type === 'ArrayBuffer' ? new ArrayBuffer(len) : new SharedArrayBuffer(len);
    new Uint8Array(ab).set(bytes);
    return { value: ab, bytes, type };
  }
  const offset = elem * between(0, 3);
  const backing = new ArrayBuffer(offset + len + 8);
  new Uint8Array(backing).fill(0xee).set(bytes, offset);
  let value;
  switch (type) {
    case 'Buffer': value = Buffer.from(backing, offset, len); break;
    case 'Uint8Array': value = new Uint8Array(backing, offset, len); break;
    case 'Int8Array': value = new Int8Array(backing, offset, len); break;
    case 'Uint16Array': value = new Uint16Array(backing, offset, len / 2); break;
    case 'Float64Array': value = new Float64Array(backing, offset, len / 8); break;
    case 'DataView': value = new DataView(backing, offset, len); break;
    default: throw new Error(type);
  }
  return { value, bytes, type };
}

// ---- RFC 9106 section 5 -----------------------------------------------------

const RFC = {
  parameters: {
    message: Buffer.alloc(32, 0x01),
    nonce: Buffer.alloc(16, 0x02),
    secret: Buffer.alloc(8, 0x03),
    associatedData: Buffer.alloc(12, 0x04),
    parallelism: 4,
    tagLength: 32,
    memory: 32,
    passes: 3,
  },
  tags: {
    argon2d: '512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb',
    argon2i: 'c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8',
    argon2id: '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659',
  },
};

describe('RFC 9106 section 5 test vectors', () => {
  for (const [algorithm, tag] of Object.entries(RFC.tags)) {
    test(`${algorithm}: promise`, async () => {
      const key = await kdf.argon2(algorithm, RFC.parameters);
      assert.ok(Buffer.isBuffer(key));
      assert.equal(key.toString('hex'), tag);
    });

    test(`${algorithm}: callback`, async () => {
      const key = await new Promise((resolve, reject) => {
        const r = kdf.argon2(algorithm, RFC.parameters, (err, k) => (err ? reject(err) : resolve(k)));
        assert.equal(r, undefined);
      });
      assert.ok(Buffer.isBuffer(key));
      assert.equal(key.toString('hex'), tag);
    });

    test(`${algorithm}: sync`, () => {
      const key = kdf.argon2Sync(algorithm, RFC.parameters);
      assert.ok(Buffer.isBuffer(key));
      assert.equal(key.toString('hex'), tag);
    });
  }

  test('other input types give the same bytes', async () => {
    const p = RFC.parameters;
    const asArrayBuffer = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    const parameters = {
      ...p,
      message: new DataView(asArrayBuffer(p.message)),
      nonce: asArrayBuffer(p.nonce),
      secret: new Uint16Array(asArrayBuffer(p.secret)),
      associatedData: new Uint8Array(p.associatedData),
    };
    assert.equal((await kdf.argon2('argon2id', parameters)).toString('hex'), RFC.tags.argon2id);
    assert.equal(kdf.argon2Sync('argon2id', parameters).toString('hex'), RFC.tags.argon2id);
  });

  test('secret and associated data each change the tag', () => {
    const p = RFC.parameters;
    const without = [
      { ...p, secret: undefined },
      { ...p, associatedData: undefined },
      { ...p, secret: Buffer.alloc(0), associatedData: Buffer.alloc(0) },
    ].map((q) => kdf.argon2Sync('argon2id', q).toString('hex'));
    assert.equal(new Set([...without, RFC.tags.argon2id]).size, 4);
    // An empty secret / ad is the same as none (RFC: lengths are hashed).
    assert.equal(without[2], kdf.argon2Sync('argon2id', { ...p, secret: undefined, associatedData: undefined }).toString('hex'));
  });
});

// ---- cross-checks -------------------------------------------------------------

function describeCase(c) {
  return `seed=${SEED} ${JSON.stringify({ ...c, message: c.message.type, nonce: c.nonce.type })}`;
}

// Every block-fill variant this CPU runs must give the RFC tags. In a child
// process: the forced variant is process-wide.
describe('CPU variants (native.testing.forceVariant)', () => {
  test('each variant gives the RFC 9106 tags; unknown names are refused', () => {
    const script = `
      const kdf = require(${JSON.stringify(path.join(__dirname, '..'))});
      const native = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'native'))});
      const rfc = ${JSON.stringify({ tags: RFC.tags })};
      const parameters = {
        message: Buffer.alloc(32, 0x01), nonce: Buffer.alloc(16, 0x02), secret: Buffer.alloc(8, 0x03),
        associatedData: Buffer.alloc(12, 0x04), parallelism: 4, tagLength: 32, memory: 32, passes: 3,
      };
      if (native.testing.forceVariant('argon2', 'nonsense')) throw new Error('unknown variant accepted');
      const variants = ['portable', 'ssse3', 'avx2', 'avx512', 'neon'].filter((v) => native.testing.forceVariant('argon2', v));
      if (!variants.includes('portable')) throw new Error('portable must always be available');
      if (process.arch === 'arm64' && !variants.includes('neon')) throw new Error('neon missing on arm64');
      (async () => {
        for (const v of variants) {
          native.testing.forceVariant('argon2', v);
          for (const [algorithm, tag] of Object.entries(rfc.tags)) {
            if (kdf.argon2Sync(algorithm, parameters).toString('hex') !== tag) throw new Error(v + ' sync ' + algorithm);
            if ((await kdf.argon2(algorithm, parameters)).toString('hex') !== tag) throw new Error(v + ' ' + algorithm);
          }
        }
        if (!native.testing.forceVariant('argon2', 'auto')) throw new Error('auto refused');
        process.stdout.write('ok ' + variants.join(','));
      })().catch((e) => { console.error(e); process.exit(1); });
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.match(out, /^ok portable/);
  });
});

describe(`cross-checks against other implementations (KDF_TEST_SEED=${SEED})`, () => {
  function nodeRsCase(algorithm) {
    const parallelism = between(1, 4);
    return {
      algorithm,
      parallelism,
      memory: between(8 * parallelism, 4096),
      passes: between(1, 4),
      tagLength: between(4, 128),
      message: makeInput(pick(INPUT_TYPES), 0, 64),
      nonce: makeInput(pick(INPUT_TYPES), 8, 32),
    };
  }

  async function againstNodeRs(c) {
    const expected = await nodeRs.hashRaw(c.message.bytes, {
      algorithm: c.algorithm === 'argon2id' ? nodeRs.Algorithm.Argon2id : nodeRs.Algorithm.Argon2i,
      version: nodeRs.Version.V0x13,
      memoryCost: c.memory,
      timeCost: c.passes,
      parallelism: c.parallelism,
      outputLen: c.tagLength,
      salt: c.nonce.bytes,
    });
    const parameters = {
      message: c.message.value,
      nonce: c.nonce.value,
      parallelism: c.parallelism,
      tagLength: c.tagLength,
      memory: c.memory,
      passes: c.passes,
    };
    const got = await kdf.argon2(c.algorithm, parameters);
    assert.equal(got.toString('hex'), expected.toString('hex'), describeCase(c));
  }

  test('argon2id vs @node-rs/argon2 (32 random cases)', async () => {
    for (let i = 0; i < 32; i++) await againstNodeRs(nodeRsCase('argon2id'));
  });

  test('argon2i vs @node-rs/argon2 (12 random cases)', async () => {
    for (let i = 0; i < 12; i++) await againstNodeRs(nodeRsCase('argon2i'));
  });

  async function againstSodium(algorithm, minPasses) {
    const c = {
      algorithm,
      parallelism: 1,
      memory: between(8, 4096),
      passes: between(minPasses, 4),
      tagLength: between(sodium.crypto_pwhash_BYTES_MIN, 128),
      message: makeInput(pick(INPUT_TYPES), 0, 64),
      nonce: makeInput(pick(['Buffer', 'Uint8Array', 'DataView', 'ArrayBuffer', 'Float64Array']),
        sodium.crypto_pwhash_SALTBYTES, sodium.crypto_pwhash_SALTBYTES),
    };
    const expected = Buffer.alloc(c.tagLength);
    sodium.crypto_pwhash(expected, c.message.bytes, c.nonce.bytes, c.passes, c.memory * 1024,
      algorithm === 'argon2id' ? sodium.crypto_pwhash_ALG_ARGON2ID13 : sodium.crypto_pwhash_ALG_ARGON2I13);
    const got = kdf.argon2Sync(algorithm, {
      message: c.message.value, nonce: c.nonce.value, parallelism: 1,
      tagLength: c.tagLength, memory: c.memory, passes: c.passes,
    });
    assert.equal(got.toString('hex'), expected.toString('hex'), describeCase(c));
  }

  test('argon2id vs libsodium crypto_pwhash (12 random cases, p=1)', async () => {
    for (let i = 0; i < 12; i++) await againstSodium('argon2id', 1);
  });

  test('argon2i vs libsodium crypto_pwhash (8 random cases, p=1)', async () => {
    // libsodium refuses argon2i with fewer than 3 passes.
    for (let i = 0; i < 8; i++) await againstSodium('argon2i', 3);
  });

  test('argon2d vs npm argon2 (6 random cases, with secret and associated data)', async () => {
    for (let i = 0; i < 6; i++) {
      const parallelism = between(1, 4);
      const c = {
        algorithm: 'argon2d',
        parallelism,
        memory: between(8 * parallelism, 2048),
        passes: between(1, 3),
        tagLength: between(4, 96),
        message: makeInput(pick(INPUT_TYPES), 0, 64),
        nonce: makeInput(pick(INPUT_TYPES), 8, 32),
        secret: i % 2 ? randomBytes(between(0, 32)) : undefined,
        associatedData: i % 3 ? randomBytes(between(0, 32)) : undefined,
      };
      const expected = await npmArgon2.hash(c.message.bytes, {
        raw: true,
        type: npmArgon2.argon2d,
        memoryCost: c.memory,
        timeCost: c.passes,
        parallelism: c.parallelism,
        hashLength: c.tagLength,
        salt: Buffer.from(c.nonce.bytes),
        ...(c.secret && { secret: c.secret }),
        ...(c.associatedData && { associatedData: c.associatedData }),
      });
      const got = await kdf.argon2('argon2d', {
        message: c.message.value, nonce: c.nonce.value, parallelism: c.parallelism,
        tagLength: c.tagLength, memory: c.memory, passes: c.passes,
        secret: c.secret, associatedData: c.associatedData,
      });
      assert.equal(got.toString('hex'), expected.toString('hex'), describeCase(c));
    }
  });
});

// ---- argument errors ------------------------------------------------------------

const GOOD = Object.freeze({
  message: 'password', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 8, passes: 1,
});
const BYTES = 'of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView';
const typeError = (message) => ({ name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message });
const rangeError = (message) => ({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE', message });
const range = (name, expectation, received) => rangeError(
  `The value of "${name}" is out of range. It must be ${expectation}. Received ${received}`);
const u32 = (name, min, received) => range(name, `>= ${min} && <= 4294967295`, received);

const ERROR_CASES = [
  ['algorithm not a string', 2, GOOD,
    typeError('The "algorithm" argument must be of type string. Received type number (2)')],
  ['algorithm missing', undefined, GOOD,
    typeError('The "algorithm" argument must be of type string. Received undefined')],
  ['algorithm unknown', 'argon2x', GOOD, {
    name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE',
    message: "The argument 'algorithm' must be one of: 'argon2d', 'argon2i', 'argon2id'. Received 'argon2x'",
  }],
  ['algorithm in another case', 'Argon2id', GOOD, { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' }],
  ['parameters missing', 'argon2id', undefined,
    typeError('The "parameters" argument must be of type object. Received undefined')],
  ['parameters null', 'argon2id', null,
    typeError('The "parameters" argument must be of type object. Received null')],
  ['parameters a string', 'argon2id', 'x', { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }],
  ['parameters an array', 'argon2id', [], { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }],
  ['message missing', 'argon2id', { ...GOOD, message: undefined },
    typeError(`The "parameters.message" property must be ${BYTES}. Received undefined`)],
  ['message a number', 'argon2id', { ...GOOD, message: 1 },
    typeError(`The "parameters.message" property must be ${BYTES}. Received type number (1)`)],
  ['message an array', 'argon2id', { ...GOOD, message: [1, 2] },
    typeError(`The "parameters.message" property must be ${BYTES}. Received an instance of Array`)],
  ['nonce missing', 'argon2id', { ...GOOD, nonce: undefined },
    typeError(`The "parameters.nonce" property must be ${BYTES}. Received undefined`)],
  ['nonce null', 'argon2id', { ...GOOD, nonce: null },
    typeError(`The "parameters.nonce" property must be ${BYTES}. Received null`)],
  ['nonce 7 bytes', 'argon2id', { ...GOOD, nonce: Buffer.alloc(7) }, u32('parameters.nonce.byteLength', 8, 7)],
  ['nonce string of 6 UTF-8 bytes', 'argon2id', { ...GOOD, nonce: 'sälts' }, u32('parameters.nonce.byteLength', 8, 6)],
  ['nonce empty ArrayBuffer', 'argon2id', { ...GOOD, nonce: new ArrayBuffer(0) },
    u32('parameters.nonce.byteLength', 8, 0)],
  ['parallelism missing', 'argon2id', { ...GOOD, parallelism: undefined },
    typeError('The "parameters.parallelism" property must be of type number. Received undefined')],
  ['parallelism a string', 'argon2id', { ...GOOD, parallelism: '1' },
    typeError('The "parameters.parallelism" property must be of type number. Received type string (\'1\')')],
  ['parallelism 0', 'argon2id', { ...GOOD, parallelism: 0 },
    range('parameters.parallelism', '>= 1 && <= 16777215', 0)],
  ['parallelism 2**24', 'argon2id', { ...GOOD, parallelism: 2 ** 24, memory: 2 ** 28 },
    range('parameters.parallelism', '>= 1 && <= 16777215', 16777216)],
  ['parallelism 1.5', 'argon2id', { ...GOOD, parallelism: 1.5 },
    range('parameters.parallelism', 'an integer', 1.5)],
  ['parallelism NaN', 'argon2id', { ...GOOD, parallelism: NaN },
    range('parameters.parallelism', 'an integer', NaN)],
  ['parallelism a bigint', 'argon2id', { ...GOOD, parallelism: 1n },
    typeError('The "parameters.parallelism" property must be of type number. Received type bigint (1n)')],
  ['tagLength missing', 'argon2id', { ...GOOD, tagLength: undefined },
    typeError('The "parameters.tagLength" property must be of type number. Received undefined')],
  ['tagLength 3', 'argon2id', { ...GOOD, tagLength: 3 }, u32('parameters.tagLength', 4, 3)],
  ['tagLength 2**32', 'argon2id', { ...GOOD, tagLength: 2 ** 32 },
    u32('parameters.tagLength', 4, '4294967296')],
  ['tagLength 2**33', 'argon2id', { ...GOOD, tagLength: 2 ** 33 },
    u32('parameters.tagLength', 4, '8_589_934_592')],
  ['tagLength Infinity', 'argon2id', { ...GOOD, tagLength: Infinity },
    range('parameters.tagLength', 'an integer', Infinity)],
  ['memory missing', 'argon2id', { ...GOOD, memory: undefined },
    typeError('The "parameters.memory" property must be of type number. Received undefined')],
  ['memory 7', 'argon2id', { ...GOOD, memory: 7 }, u32('parameters.memory', 8, 7)],
  ['memory below 8 * parallelism', 'argon2id', { ...GOOD, parallelism: 4, memory: 31 },
    u32('parameters.memory', 32, 31)],
  ['memory 2**32', 'argon2id', { ...GOOD, memory: 2 ** 32 }, u32('parameters.memory', 8, '4294967296')],
  ['memory 8.5', 'argon2id', { ...GOOD, memory: 8.5 }, range('parameters.memory', 'an integer', 8.5)],
  ['passes missing', 'argon2id', { ...GOOD, passes: undefined },
    typeError('The "parameters.passes" property must be of type number. Received undefined')],
  ['passes 0', 'argon2id', { ...GOOD, passes: 0 }, u32('parameters.passes', 1, 0)],
  ['passes -1', 'argon2id', { ...GOOD, passes: -1 }, u32('parameters.passes', 1, -1)],
  ['passes 2**32', 'argon2id', { ...GOOD, passes: 2 ** 32 }, u32('parameters.passes', 1, '4294967296')],
  ['passes 2.5', 'argon2id', { ...GOOD, passes: 2.5 }, range('parameters.passes', 'an integer', 2.5)],
  ['secret a number', 'argon2id', { ...GOOD, secret: 5 },
    typeError(`The "parameters.secret" property must be ${BYTES}. Received type number (5)`)],
  ['secret null', 'argon2id', { ...GOOD, secret: null },
    typeError(`The "parameters.secret" property must be ${BYTES}. Received null`)],
  ['associatedData an object', 'argon2id', { ...GOOD, associatedData: {} },
    typeError(`The "parameters.associatedData" property must be ${BYTES}. Received an instance of Object`)],
  ['associatedData null', 'argon2id', { ...GOOD, associatedData: null },
    typeError(`The "parameters.associatedData" property must be ${BYTES}. Received null`)],
  // node's order: algorithm, parameters, message, nonce, parallelism,
  // tagLength, memory, passes, secret, associatedData.
  ['first bad argument wins (message before nonce)', 'argon2id', { ...GOOD, message: 1, nonce: 1 },
    { code: 'ERR_INVALID_ARG_TYPE', message: /parameters\.message/ }],
  ['first bad argument wins (nonce before numbers)', 'argon2id', { ...GOOD, nonce: 'x', passes: 0 },
    { code: 'ERR_OUT_OF_RANGE', message: /parameters\.nonce\.byteLength/ }],
  ['first bad argument wins (passes before secret)', 'argon2id', { ...GOOD, passes: 0, secret: 1 },
    { code: 'ERR_OUT_OF_RANGE', message: /parameters\.passes/ }],
];

describe('argument errors match node:crypto', () => {
  for (const [title, algorithm, parameters, expected] of ERROR_CASES) {
    test(title, async () => {
      await assert.rejects(kdf.argon2(algorithm, parameters), expected);

      let called = false;
      assert.throws(() => kdf.argon2(algorithm, parameters, () => { called = true; }), expected);
      assert.throws(() => kdf.argon2Sync(algorithm, parameters), expected);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(called, false, 'the callback must not be called for an argument error');
    });
  }

  const CALLBACK_ERROR = typeError(
    'The "callback" argument must be of type function. Received type string (\'nope\')');

  test('a callback that is not a function throws, after the parameters are checked', () => {
    assert.throws(() => kdf.argon2('argon2id', GOOD, {}, 'nope'), CALLBACK_ERROR);
    assert.throws(() => kdf.argon2('argon2id', { ...GOOD, passes: 0 }, {}, 'nope'), { code: 'ERR_OUT_OF_RANGE' });
  });

  test('a non-function, non-object third argument is node\'s callback error', () => {
    // crypto.argon2(algorithm, parameters, callback): a string there is a bad callback.
    assert.throws(() => kdf.argon2('argon2id', GOOD, 'nope'), CALLBACK_ERROR);
    assert.throws(() => kdf.argon2('argon2id', { ...GOOD, passes: 0 }, 'nope'), { code: 'ERR_OUT_OF_RANGE' });
  });

  test('boundary values are accepted', async () => {
    const key = await kdf.argon2('argon2id', {
      message: '', nonce: Buffer.alloc(8), parallelism: 2, tagLength: 4, memory: 16, passes: 1,
      secret: '', associatedData: new ArrayBuffer(0),
    });
    assert.equal(key.length, 4);
    assert.equal(kdf.argon2Sync('argon2i', { ...GOOD, memory: 8, tagLength: 1024 }).length, 1024);
  });

  test('each parameter is read once', async () => {
    const reads = {};
    const parameters = {};
    for (const [key, value] of Object.entries({ ...GOOD, secret: 'pepper', associatedData: 'ad' })) {
      Object.defineProperty(parameters, key, {
        enumerable: true,
        get() {
          reads[key] = (reads[key] || 0) + 1;
          return value;
        },
      });
    }
    const key = await kdf.argon2('argon2id', parameters);
    assert.deepEqual(key, kdf.argon2Sync('argon2id', { ...GOOD, secret: 'pepper', associatedData: 'ad' }));
    assert.deepEqual(Object.keys(reads).sort(), Object.keys(parameters).sort());
    for (const name of Object.keys(reads)) assert.equal(reads[name], 1, name);
  });
});

// ---- node:crypto's own argon2 (Node >= 24.7) --------------------------------------

const crypto = require('node:crypto');
const { shape, thrown, viaCallback } = require('./helpers/forms');

const NODE_ARGON2 = typeof crypto.argon2 === 'function' && typeof crypto.argon2Sync === 'function';
const NO_NODE_ARGON2 = NODE_ARGON2 ? false : `node:crypto has no argon2 before Node 24.7 (this is ${process.version})`;

// What node:crypto does with these arguments, in both of its forms:
// { sync: { err } | { key }, async: { throws } | { err } | { key } }.
async function nodeArgon2(algorithm, parameters) {
  const sync = {};
  try {
    sync.key = crypto.argon2Sync(algorithm, parameters);
  } catch (err) {
    sync.err = err;
  }
  let async;
  try {
    async = await new Promise((resolve) => {
      crypto.argon2(algorithm, parameters, (err, key) => resolve(err ? { err } : { key }));
    });
  } catch (err) {
    async = { throws: err };
  }
  return { sync, async };
}

// kdf's sync, promise and callback forms against node's two forms.
async function assertSameAsNodeArgon2(algorithm, parameters, label) {
  const node = await nodeArgon2(algorithm, parameters);
  if (node.sync.err) {
    assert.deepEqual(shape(thrown(() => kdf.argon2Sync(algorithm, parameters), label)), shape(node.sync.err), `sync ${label}`);
  } else {
    assert.equal(kdf.argon2Sync(algorithm, parameters).toString('hex'), node.sync.key.toString('hex'), `sync ${label}`);
  }
  const expectedErr = node.async.throws || node.async.err;
  if (expectedErr) {
    await assert.rejects(kdf.argon2(algorithm, parameters), (err) => {
      assert.deepEqual(shape(err), shape(expectedErr), `promise ${label}`);
      return true;
    });
  } else {
    assert.equal((await kdf.argon2(algorithm, parameters)).toString('hex'), node.async.key.toString('hex'), `promise ${label}`);
  }
  if (node.async.throws) {
    assert.deepEqual(shape(thrown(() => kdf.argon2(algorithm, parameters, () => {}), label)), shape(node.async.throws), `callback ${label}`);
  } else {
    const { err, key } = await viaCallback(kdf.argon2, algorithm, parameters);
    if (node.async.err) {
      assert.deepEqual(shape(err), shape(node.async.err), `callback ${label}`);
    } else {
      assert.equal(err, null, `callback ${label}`);
      assert.equal(key.toString('hex'), node.async.key.toString('hex'), `callback ${label}`);
    }
  }
  return node;
}

// One random argument list: each field valid, or (with probability `bad`)
// one of the values node refuses for it. Small costs: at most 1 MiB, 3 passes.
function randomArgon2Case(bad) {
  const maybe = (good, wrong) => (rand() < bad ? pick(wrong) : good());
  const bytes = (min, max) => () => makeInput(pick(INPUT_TYPES), min, max).value;
  const optional = () => (rand() < 0.5 ? undefined : makeInput(pick(INPUT_TYPES), 0, 32).value);
  const parallelism = maybe(() => between(1, 4), [0, -1, 1.5, '2', NaN, 2 ** 24, undefined, 2n]);
  const p = Number.isInteger(parallelism) && parallelism > 0 && parallelism < 8 ? parallelism : 1;
  return {
    algorithm: maybe(() => pick(['argon2d', 'argon2i', 'argon2id']), ['argon2', 'ARGON2ID', 'scrypt', '', 2, undefined, null]),
    parameters: {
      message: maybe(bytes(0, 64), [1, null, undefined, {}, [1, 2], true, 1n]),
      nonce: maybe(bytes(8, 32), [Buffer.alloc(7), '', 'short', new ArrayBuffer(3), 5, null, undefined]),
      parallelism,
      tagLength: maybe(() => between(4, 256), [3, 0, -4, 2 ** 32, 1.5, '32', undefined, Infinity]),
      memory: maybe(() => between(8 * p, 1024), [8 * p - 1, 0, 2 ** 32, 1.5, '64', undefined, null]),
      passes: maybe(() => between(1, 3), [0, -1, 2 ** 32, 2.5, null, undefined, '1']),
      secret: maybe(optional, [5, null, {}, [1], true]),
      associatedData: maybe(optional, [5, null, {}, [1], false]),
    },
  };
}

function describeArgon2Case({ algorithm, parameters }) {
  const show = (v) => {
    if (v === undefined || v === null || typeof v !== 'object') return typeof v === 'bigint' ? `${v}n` : v;
    return `${v.constructor.name}[${v.byteLength}]`;
  };
  return `seed=${SEED} ${String(algorithm)} ${JSON.stringify(Object.fromEntries(
    Object.entries(parameters).map(([k, v]) => [k, typeof v === 'string' ? `string[${Buffer.byteLength(v)}]` : show(v)])))}`;
}

// Skipped per test (not per suite), so the runner's skipped count shows it.
describe(`agreement with node:crypto's argon2 (KDF_TEST_SEED=${SEED})`, () => {
  test('48 random valid cases: the same bytes in all three forms', { skip: NO_NODE_ARGON2 }, async () => {
    for (let i = 0; i < 48; i++) {
      const c = randomArgon2Case(0);
      const node = await assertSameAsNodeArgon2(c.algorithm, c.parameters, `case ${i}: ${describeArgon2Case(c)}`);
      assert.ok(node.sync.key, `case ${i} should be valid`);
    }
  });

  test('160 random cases with bad values: the same errors (or bytes) in all three forms', { skip: NO_NODE_ARGON2 }, async () => {
    let refused = 0;
    for (let i = 0; i < 160; i++) {
      const c = randomArgon2Case(0.15);
      const node = await assertSameAsNodeArgon2(c.algorithm, c.parameters, `case ${i}: ${describeArgon2Case(c)}`);
      if (node.sync.err) refused++;
    }
    // Most cases carry a bad value; guard against a generator gone soft.
    assert.ok(refused > 80, `only ${refused} of 160 cases were refused`);
  });

  test('the fixed error cases above are what node:crypto raises', { skip: NO_NODE_ARGON2 }, async () => {
    for (const [title, algorithm, parameters] of ERROR_CASES) {
      const node = await assertSameAsNodeArgon2(algorithm, parameters, title);
      assert.ok(node.sync.err, `${title}: node:crypto accepts this`);
    }
  });

  test('RFC 9106 vectors: node:crypto gives the same tags', { skip: NO_NODE_ARGON2 }, () => {
    for (const [algorithm, tag] of Object.entries(RFC.tags)) {
      assert.equal(crypto.argon2Sync(algorithm, RFC.parameters).toString('hex'), tag, algorithm);
    }
  });
});

// ---- concurrency ------------------------------------------------------------------

test('many concurrent argon2 calls all settle with the right bytes', async () => {
  const algorithms = ['argon2d', 'argon2i', 'argon2id'];
  const jobs = Array.from({ length: 96 }, (_, i) => ({
    algorithm: algorithms[i % 3],
    parameters: {
      message: `password ${i}`,
      nonce: randomBytes(16),
      parallelism: 1 + (i % 4),
      tagLength: 16 + (i % 48),
      memory: 64 + 32 * (i % 8),
      passes: 1 + (i % 3),
    },
  }));
  const results = await Promise.allSettled(jobs.map((j, i) => (i % 2
    ? kdf.argon2(j.algorithm, j.parameters)
    : new Promise((resolve, reject) => {
      kdf.argon2(j.algorithm, j.parameters, (err, key) => (err ? reject(err) : resolve(key)));
    }))));
  results.forEach((r, i) => {
    assert.equal(r.status, 'fulfilled', r.reason && r.reason.stack);
    assert.deepEqual(r.value, kdf.argon2Sync(jobs[i].algorithm, jobs[i].parameters), `job ${i}`);
  });
  assert.equal(kdf.stats().running, 0);
  assert.equal(kdf.stats().memoryInUse, 0);
});
