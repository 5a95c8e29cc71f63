'use strict';

// PBKDF2: known-answer vectors, randomized agreement with node:crypto over
// every input type and every digest, and node:crypto's exact argument errors
// in the promise, callback and sync forms.

const { prng, SEED } = require('./helpers/prng');
const { noop, shape, thrown, viaCallback } = require('./helpers/forms');
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const kdf = require('..');
const { scaled, leftToAll } = require('./helpers/scale');
const { vectors } = require('./vectors/pbkdf2.json');

// ---------------------------------------------------------------- helpers

function bytesOf(spec) {
  return typeof spec === 'string' ? Buffer.from(spec, 'utf8') : Buffer.from(spec.hex, 'hex');
}

// The callback form of kdf.pbkdf2 as a promise of { err, key }. Also checks
// that the callback is never called synchronously and only once.
const kdfCallback = (...args) => viaCallback(kdf.pbkdf2, ...args);

function nodeCallback(...args) {
  return new Promise((resolve) => {
    crypto.pbkdf2(...args, (err, key) => resolve({ err, key }));
  });
}

// What node:crypto does with these arguments, in both of its forms:
// { sync: { err } | { key }, async: { throws } | { err } | { key } }.
async function nodeOutcome(args) {
  const sync = {};
  try {
    sync.key = crypto.pbkdf2Sync(...args);
  } catch (err) {
    sync.err = err;
  }
  let async;
  try {
    async = await nodeCallback(...args);
  } catch (err) {
    async = { throws: err };
  }
  return { sync, async };
}

// Checks all three kdfpool forms against node:crypto for one argument list
// (password, salt, iterations, keylen, digest).
async function assertSameAsNode(args, label = '') {
  const node = await nodeOutcome(args);

  // Sync form vs crypto.pbkdf2Sync.
  if (node.sync.err) {
    assert.deepEqual(shape(thrown(() => kdf.pbkdf2Sync(...args), `sync ${label}`)), shape(node.sync.err), `sync ${label}`);
  } else {
    assert.deepEqual(kdf.pbkdf2Sync(...args), node.sync.key, `sync ${label}`);
  }

  // Promise form: node's synchronous throw or callback error, as a rejection.
  const expectedErr = node.async.throws || node.async.err;
  if (expectedErr) {
    await assert.rejects(kdf.pbkdf2(...args), (err) => {
      assert.deepEqual(shape(err), shape(expectedErr), `promise ${label}`);
      return true;
    });
  } else {
    assert.deepEqual(await kdf.pbkdf2(...args), node.async.key, `promise ${label}`);
  }

  // Callback form: throws where node throws, else the same callback result.
  if (node.async.throws) {
    assert.deepEqual(shape(thrown(() => kdf.pbkdf2(...args, noop), `callback ${label}`)), shape(node.async.throws), `callback ${label}`);
  } else {
    const { err, key } = await kdfCallback(...args);
    if (node.async.err) {
      assert.deepEqual(shape(err), shape(node.async.err), `callback ${label}`);
      assert.equal(key, undefined);
    } else {
      assert.equal(err, null, `callback ${label}`);
      assert.deepEqual(key, node.async.key, `callback ${label}`);
    }
  }
  return node;
}


// ---------------------------------------------------------------- vectors

describe('PBKDF2 known-answer vectors', () => {
  for (const v of vectors) {
    const name = `${v.source} ${v.digest} c=${v.iterations} dkLen=${v.keylen}${v.note ? ` (${v.note})` : ''}`;
    it(name, { skip: v.slow === true && leftToAll }, async () => {
      const pw = bytesOf(v.password);
      const salt = bytesOf(v.salt);
      const args = [pw, salt, v.iterations, v.keylen, v.digest];
      // The slow vector runs its three forms at once: the pool has a thread
      // per CPU, and the sync form runs on this thread meanwhile.
      const promise = kdf.pbkdf2(...args);
      const callback = kdfCallback(...args);
      const sync = kdf.pbkdf2Sync(...args);
      assert.equal(sync.toString('hex'), v.expected, 'sync');
      assert.equal((await promise).toString('hex'), v.expected, 'promise');
      const { err, key } = await callback;
      assert.equal(err, null);
      assert.equal(key.toString('hex'), v.expected, 'callback');
      assert.ok(Buffer.isBuffer(key));
      // String inputs, where the vector has them, give the same bytes.
      if (typeof v.password === 'string' && typeof v.salt === 'string' && !v.slow) {
        const fromStrings = await kdf.pbkdf2(v.password, v.salt, v.iterations, v.keylen, v.digest);
        assert.equal(fromStrings.toString('hex'), v.expected, 'strings');
      }
    });
  }

  it('covers RFC 6070 (all six, incl. the slow and the NUL one), SHA-256 and SHA-512', () => {
    assert.equal(vectors.filter((v) => v.source === 'rfc6070').length, 6);
    assert.ok(vectors.some((v) => v.slow && v.iterations === 16777216));
    assert.ok(vectors.some((v) => v.digest === 'sha1' && bytesOf(v.password).includes(0)));
    assert.ok(vectors.some((v) => v.digest === 'sha256' && v.source === 'rfc7914'));
    assert.ok(vectors.some((v) => v.digest === 'sha512'));
  });
});

// ---------------------------------------------------------------- randomized

// Every way node:crypto accepts bytes. Each maker turns raw bytes (or a
// length, for strings) into a value of its type holding exactly those bytes.
const INPUT_TYPES = {
  'string (ASCII)': (b) => b.toString('latin1').replace(/[^\x20-\x7e]/g, 'x'),
  'string (non-ASCII)': (b) => {
    const pieces = ['é', 'ß', '€', '漢', '字', '🔑', 'Ω', 'a', '\u0000', '\ud800'];
    return Array.from(b, (x) => pieces[x % pieces.length]).join('');
  },
  Buffer: (b) => Buffer.from(b),
  'Buffer (pooled, non-zero byteOffset)': (b) => {
    const big = Buffer.alloc(b.length + 7, 0xee);
    b.copy(big, 5);
    return big.subarray(5, 5 + b.length);
  },
  Uint8Array: (b) => new Uint8Array(b),
  'Uint8Array (byteOffset 3)': (b) => {
    const ab = new ArrayBuffer(b.length + 6);
    const view = new Uint8Array(ab, 3, b.length);
    view.set(b);
    return view;
  },
  Uint8ClampedArray: (b) => new Uint8ClampedArray(b),
  Int16Array: (b) => viewOf(Int16Array, b, 0),
  'Int16Array (byteOffset 2)': (b) => viewOf(Int16Array, b, 2),
  Float64Array: (b) => viewOf(Float64Array, b, 0),
  'Float64Array (byteOffset 8)': (b) => viewOf(Float64Array, b, 8),
  BigUint64Array: (b) => viewOf(BigUint64Array, b, 0),
  DataView: (b) => {
    const ab = new ArrayBuffer(b.length);
    new Uint8Array(ab).set(b);
    return new DataView(ab);
  },
  'DataView (byteOffset 5)': (b) => {
    const ab = new ArrayBuffer(b.length + 9);
    new Uint8Array(ab, 5, b.length).set(b);
    return new DataView(ab, 5, b.length);
  },
  ArrayBuffer: (b) => {
    const ab = new ArrayBuffer(b.length);
    new Uint8Array(ab).set(b);
    return ab;
  },
  SharedArrayBuffer: (b) => {
    const sab = new SharedArrayBuffer(b.length);
    new Uint8Array(sab).set(b);
    return sab;
  },
  'Uint8Array over SharedArrayBuffer (byteOffset 1)': (b) => {
    const sab = new SharedArrayBuffer(b.length + 1);
    const view = new Uint8Array(sab, 1, b.length);
    view.set(b);
    return view;
  },
};

// A multi-byte typed array needs a whole number of elements; pad the bytes.
function viewOf(Ctor, b, offset) {
  const n = Math.ceil(b.length / Ctor.BYTES_PER_ELEMENT);
  const ab = new ArrayBuffer(offset + n * Ctor.BYTES_PER_ELEMENT);
  new Uint8Array(ab, offset).set(b);
  return new Ctor(ab, offset, n);
}

// 0, short, around SHA-1/256's 64-byte block, past it, past SHA-512's 128.
const LENGTHS = [0, 1, 3, 8, 16, 31, 32, 63, 64, 65, 100, 127, 128, 129, 200, 300];
const LONG_LENGTHS = LENGTHS.filter((n) => n > 128);

function byteLength(value) {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  return value.byteLength;
}

describe('randomized agreement with crypto.pbkdf2Sync', () => {
  const seed = SEED;
  const rand = prng(seed);
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const hashes = crypto.getHashes();
  const typeNames = Object.keys(INPUT_TYPES);
  // KDFPOOL_TEST_SCALE below 1 (sanitized runs): fewer cases, still every digest.
  const CASES = scaled(Math.max(240, hashes.length * 4), hashes.length);

  function makeCase(i) {
    const pwType = typeNames[i % typeNames.length];
    const saltType = typeNames[(i * 7 + 3) % typeNames.length];
    // Each size class the coverage test asserts is placed, not drawn: with
    // the few cases of a scaled (sanitized) run a draw can miss it.
    let pwLen;
    if (i % 17 === 1) pwLen = 0;
    else if (i % 17 === 2) pwLen = LONG_LENGTHS[int(0, LONG_LENGTHS.length - 1)];
    else pwLen = LENGTHS[int(0, LENGTHS.length - 1)];
    const saltLen = i % 11 === 0 ? 0 : LENGTHS[int(0, LENGTHS.length - 1)];
    const password = INPUT_TYPES[pwType](crypto.randomBytes(pwLen));
    const salt = INPUT_TYPES[saltType](crypto.randomBytes(saltLen));
    // Mostly cheap cases; every 9th up to 1000 iterations, every 18th more.
    let iterations;
    if (i % 18 === 0) iterations = int(1001, 2000);
    else if (i % 9 === 0) iterations = int(1, 1000);
    else iterations = int(1, 64);
    let keylen;
    if (i % 23 === 0) keylen = 0;
    else if (i % 29 === 0) keylen = 1024;
    else if (i % 3 === 0) keylen = int(0, 1024);
    else keylen = int(1, 80);
    const digest = hashes[i % hashes.length];
    return { pwType, saltType, password, salt, iterations, keylen, digest };
  }

  const cases = Array.from({ length: CASES }, (_, i) => makeCase(i));

  it(`${CASES} cases agree in all three forms (seed ${seed})`, async () => {
    const failed = new Map(); // digest -> a keylen node failed it with
    // A few at a time, to overlap pool work without nearing the queue bound.
    const BATCH = 16;
    for (let i = 0; i < cases.length; i += BATCH) {
      await Promise.all(cases.slice(i, i + BATCH).map(async (c, j) => {
        const label = `case ${i + j} (seed ${seed}): ${c.digest} ${c.pwType}[${byteLength(c.password)}] / `
          + `${c.saltType}[${byteLength(c.salt)}] c=${c.iterations} keylen=${c.keylen}`;
        const node = await assertSameAsNode([c.password, c.salt, c.iterations, c.keylen, c.digest], label);
        if (node.sync.err) failed.set(c.digest, c.keylen);
      }));
    }
    // Only what node:crypto itself cannot derive may fail (here: the XOFs;
    // md4 & co. when OpenSSL's legacy provider is missing; on node >= 22
    // any empty key).
    for (const [d, keylen] of failed) {
      assert.throws(() => crypto.pbkdf2Sync('p', 's', 1, keylen, d), Error, `${d} keylen=${keylen} works in node but failed here`);
    }
  });

  it('the cases cover every input type, digest and size class', () => {
    const pwTypes = new Set(cases.map((c) => c.pwType));
    const saltTypes = new Set(cases.map((c) => c.saltType));
    assert.deepEqual([...pwTypes].sort(), [...typeNames].sort());
    assert.deepEqual([...saltTypes].sort(), [...typeNames].sort());
    assert.deepEqual(new Set(cases.map((c) => c.digest)), new Set(hashes));
    assert.ok(cases.some((c) => byteLength(c.password) === 0));
    assert.ok(cases.some((c) => byteLength(c.salt) === 0));
    assert.ok(cases.some((c) => byteLength(c.password) > 64));
    assert.ok(cases.some((c) => byteLength(c.password) > 128));
    assert.ok(cases.some((c) => c.keylen === 0));
    assert.ok(cases.some((c) => c.keylen === 1024));
    assert.ok(cases.some((c) => c.iterations > 1000));
  });

  it('every digest in crypto.getHashes() agrees, incl. the ones node rejects', async () => {
    for (const digest of hashes) {
      for (const keylen of [0, 1, 20, 65, 200]) {
        await assertSameAsNode(['password', 'salt', 3, keylen, digest], `${digest} keylen=${keylen}`);
      }
    }
  });

  // Node's report changed: node 20/22 "Deriving bits failed", node 24
  // OpenSSL's text, node 26 "PBKDF2 derivation failed" with an ERR_OSSL_*
  // code and OpenSSL's details; kdfpool gives the running node's.
  it('XOF digests fail exactly as in node, OpenSSL details included', async () => {
    const xofs = hashes.filter((h) => /^shake/i.test(h));
    assert.ok(xofs.length > 0, 'no XOF digest in crypto.getHashes()');
    const details = (err) => ({ ...shape(err), own: { ...err } });
    for (const digest of xofs) {
      for (const keylen of [0, 32]) {
        const args = ['pw', 'salt', 1, keylen, digest];
        const node = await assertSameAsNode(args, `${digest} keylen=${keylen}`);
        // Guard against a vacuous pass: node does fail here, in its callback.
        assert.ok(node.async.err, `${digest}: node:crypto now succeeds; update this test`);
        assert.deepEqual(details(thrown(() => kdf.pbkdf2Sync(...args))), details(node.sync.err), digest);
        await assert.rejects(kdf.pbkdf2(...args), (err) => {
          assert.deepEqual(details(err), details(node.async.err), digest);
          return true;
        });
      }
    }
  });

  it('keylen 0 gives what this node gives (node 20: an empty key; node >= 22: "Deriving bits failed")', async () => {
    for (const digest of ['sha1', 'sha256', 'sha512', 'md5', 'RSA-SHA256', 'sha3-256']) {
      const node = await assertSameAsNode(['pw', 'salt', 1000, 0, digest], digest);
      if (!node.sync.err) assert.equal(node.sync.key.length, 0);
    }
  });

  it('does not read or keep the caller\'s buffer after the call returns', async () => {
    const pw = Buffer.from('correct horse battery staple');
    const salt = Buffer.from('NaCl-NaCl-NaCl');
    const expected = crypto.pbkdf2Sync(pw, salt, 5000, 64, 'sha512');
    const p = kdf.pbkdf2(pw, salt, 5000, 64, 'sha512');
    pw.fill(0);
    salt.fill(0);
    assert.deepEqual(await p, expected);
  });

  it('string passwords and salts are encoded as Buffer.from(s, "utf8") does, lone surrogates and NULs included', async () => {
    // Native code encodes strings itself (no Buffer in between): any
    // difference from node's UTF-8 would change the key.
    const strings = ['', 'a\u0000b', '\ud800', 'x\udc00y', '\udc00\ud800', '\ud83d\ude00', 'é'.repeat(300),
      '\uffff\ufffe', 'z'.repeat(70000)];
    for (const pw of strings) {
      for (const salt of strings.slice(0, 5)) {
        const expected = crypto.pbkdf2Sync(pw, salt, 2, 40, 'sha512');
        const label = `${JSON.stringify(pw.slice(0, 8))} / ${JSON.stringify(salt)}`;
        assert.deepEqual(kdf.pbkdf2Sync(pw, salt, 2, 40, 'sha512'), expected, label);
        assert.deepEqual(await kdf.pbkdf2(pw, salt, 2, 40, 'sha512'), expected, label);
        assert.deepEqual((await viaCallback(kdf.pbkdf2, pw, salt, 2, 40, 'sha512')).key, expected, label);
      }
    }
  });

  it('resolves a fresh Buffer each time', async () => {
    const a = await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256');
    const b = await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256');
    assert.ok(Buffer.isBuffer(a));
    assert.notEqual(a.buffer, b.buffer);
  });
});

// ---------------------------------------------------------------- errors

const BAD_BYTES = [
  ['number', 1],
  ['object', {}],
  ['array', [1, 2]],
  ['null', null],
  ['undefined', undefined],
  ['boolean', true],
  ['function', function named() {}],
  ['arrow function', () => {}],
  ['Symbol', Symbol('pw')],
  ['bigint', 1n],
  ['huge bigint', 2n ** 40n],
  ['String object', new String('pw')],
  ['long string-like object', { toString: () => 'x'.repeat(50) }],
];
const BAD_ITERATIONS = [
  ['string', '1'], ['0', 0], ['-1', -1], ['1.5', 1.5], ['2**31', 2 ** 31], ['2**53', 2 ** 53],
  ['NaN', NaN], ['Infinity', Infinity], ['-Infinity', -Infinity], ['null', null],
  ['undefined', undefined], ['bigint', 1n], ['-2**40', -(2 ** 40)],
];
const BAD_KEYLEN = [
  ['-1', -1], ['1.5', 1.5], ['2**31', 2 ** 31], ["'1'", '1'], ['NaN', NaN],
  ['null', null], ['undefined', undefined], ['bigint', 32n], ['Infinity', Infinity],
];
const BAD_DIGEST = [
  ['undefined', undefined], ['number', 256], ['null', null], ['object', {}],
  ['unknown name', 'sha257'], ['empty string', ''], ['Symbol', Symbol('sha256')],
  ['a very long unknown name', 'x'.repeat(300)],
];

describe('argument errors match node:crypto', () => {
  const ok = ['password', 'salt', 1, 32, 'sha256'];
  const withArg = (i, value) => ok.map((x, j) => (j === i ? value : x));

  // For every bad argument: promise rejects, callback form throws, sync
  // throws, each with node's { name, code, message, class }.
  async function assertArgumentError(args, label) {
    const expected = thrown(() => crypto.pbkdf2(...args, noop));
    const expectedSync = thrown(() => crypto.pbkdf2Sync(...args));
    assert.ok(expected.code, `${label}: node's error has a code`);
    await assert.rejects(kdf.pbkdf2(...args), (err) => {
      assert.deepEqual(shape(err), shape(expected), `promise ${label}`);
      return true;
    });
    assert.deepEqual(shape(thrown(() => kdf.pbkdf2(...args, noop))), shape(expected), `callback ${label}`);
    assert.deepEqual(shape(thrown(() => kdf.pbkdf2Sync(...args))), shape(expectedSync), `sync ${label}`);
    return expected;
  }

  for (const [name, arg] of [['password', 0], ['salt', 1]]) {
    for (const [what, value] of BAD_BYTES) {
      it(`${name}: ${what}`, async () => {
        const err = await assertArgumentError(withArg(arg, value), `${name} ${what}`);
        assert.equal(err.code, 'ERR_INVALID_ARG_TYPE');
      });
    }
  }

  for (const [what, value] of BAD_ITERATIONS) {
    it(`iterations: ${what}`, async () => {
      const err = await assertArgumentError(withArg(2, value), `iterations ${what}`);
      assert.match(err.code, /^ERR_(INVALID_ARG_TYPE|OUT_OF_RANGE)$/);
    });
  }

  for (const [what, value] of BAD_KEYLEN) {
    it(`keylen: ${what}`, async () => {
      const err = await assertArgumentError(withArg(3, value), `keylen ${what}`);
      assert.match(err.code, /^ERR_(INVALID_ARG_TYPE|OUT_OF_RANGE)$/);
    });
  }

  for (const [what, value] of BAD_DIGEST) {
    it(`digest: ${what}`, async () => {
      const err = await assertArgumentError(withArg(4, value), `digest ${what}`);
      assert.match(err.code, /^ERR_(INVALID_ARG_TYPE|CRYPTO_INVALID_DIGEST)$/);
    });
  }

  it('the first bad argument wins, in node\'s order (digest, password, salt, iterations, keylen)', async () => {
    await assertArgumentError([1, 2, 0, -1, 5], 'all bad');
    await assertArgumentError([1, 2, 0, -1, 'sha1'], 'password first');
    await assertArgumentError(['p', 2, 0, -1, 'sha1'], 'salt next');
    await assertArgumentError(['p', 's', 0, -1, 'sha1'], 'iterations next');
    await assertArgumentError(['p', 's', 1, -1, 'nope'], 'keylen before digest name');
  });

  // (Not {} or null: kdf.pbkdf2 takes an options object in that position.)
  for (const [what, cb] of [['string', 'cb'], ['number', 1], ['boolean', true], ['Symbol', Symbol('cb')]]) {
    it(`callback that is not a function (${what}) throws synchronously`, () => {
      const args = [...ok, cb];
      assert.deepEqual(shape(thrown(() => kdf.pbkdf2(...args))), shape(thrown(() => crypto.pbkdf2(...args))));
    });
  }

  it('a bad callback is reported after bad arguments but before an unknown digest, as in node', () => {
    for (const args of [['p', 's', 0, 32, 'sha256', 'cb'], ['p', 's', 1, 32, 'nope', 'cb'], ['p', 's', 1, 32, 'nope', noop]]) {
      assert.deepEqual(shape(thrown(() => kdf.pbkdf2(...args))), shape(thrown(() => crypto.pbkdf2(...args))));
    }
  });

  it('digest omitted with the callback in its place throws node\'s digest error', () => {
    let called = false;
    const cb = () => { called = true; };
    const expected = thrown(() => crypto.pbkdf2('p', 's', 1, 32, cb));
    assert.equal(expected.code, 'ERR_INVALID_ARG_TYPE');
    assert.deepEqual(shape(thrown(() => kdf.pbkdf2('p', 's', 1, 32, cb))), shape(expected));
    assert.equal(called, false);
  });

  it('the promise form never throws synchronously', async () => {
    for (const args of [[1, 's', 1, 1, 'sha1'], ['p', 's', 1, 1, 'nope'], ['p', 's', 1, 1], []]) {
      let p;
      assert.doesNotThrow(() => { p = kdf.pbkdf2(...args); });
      assert.ok(p instanceof Promise);
      await assert.rejects(p);
    }
  });

  it('error stacks start like node\'s ("TypeError [ERR_X]: ...")', async () => {
    await assert.rejects(kdf.pbkdf2(1, 's', 1, 1, 'sha1'), (err) => {
      assert.match(err.stack, /^TypeError \[ERR_INVALID_ARG_TYPE\]: The "password" argument/);
      return true;
    });
  });
});

// ---------------------------------------------------------------- ESM

describe('ESM entry', () => {
  const entry = pathToFileURL(path.join(__dirname, '..', 'lib', 'index.mjs')).href;

  it('import * as kdf gives the same functions as require()', async () => {
    const ns = await import(entry);
    for (const name of ['pbkdf2', 'pbkdf2Sync', 'configure', 'stats', 'PoolSaturatedError']) {
      assert.equal(ns[name], kdf[name], name);
    }
    assert.equal(ns.default, kdf);
    const key = await ns.pbkdf2('password', 'salt', 1, 20, 'sha1');
    assert.equal(key.toString('hex'), '0c60c80f961f0e71f3a9b524af6012062fe037a6');
  });

  it('named import { pbkdf2 } works, and the package name resolves to the same module', async () => {
    // A module that does the named import, as user code would.
    const src = `import { pbkdf2, pbkdf2Sync } from ${JSON.stringify(entry)}; export { pbkdf2, pbkdf2Sync };`;
    const mod = await import(`data:text/javascript,${encodeURIComponent(src)}`);
    assert.equal(mod.pbkdf2, kdf.pbkdf2);
    assert.equal(mod.pbkdf2Sync, kdf.pbkdf2Sync);
    assert.equal((await mod.pbkdf2('password', 'salt', 2, 20, 'sha1')).toString('hex'),
      'ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957');
    // Self-reference through package.json "exports" (import condition).
    const byName = await import('kdfpool');
    assert.equal(byName.pbkdf2, kdf.pbkdf2);
  });
});
