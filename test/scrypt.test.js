'use strict';

// scrypt: RFC 7914 vectors, randomized agreement with node:crypto over every
// input type and all three call forms, node:crypto's exact argument errors,
// every BlockMix variant (forced through native.testing.forceVariant) and arena reuse.

const { prng } = require('./helpers/prng');
const { shape, thrown, viaCallback } = require('./helpers/forms');
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const kdf = require('..');
const errors = require('../lib/errors');
const { scaled, leftToAll } = require('./helpers/scale');

const MiB = 1024 * 1024;

// ---------------------------------------------------------------- helpers

// kdf.scrypt's callback form as a promise of { err, key }; also checks that
// the callback runs once and never synchronously.
const scryptCallback = (...args) => viaCallback(kdf.scrypt, ...args);


const INPUT_KINDS = ['string', 'Buffer', 'Uint8Array', 'Uint16Array', 'DataView', 'ArrayBuffer',
  'SharedArrayBuffer', 'empty'];

// A value of the given kind with random content. Views sit at an offset
// inside a bigger buffer, so byteOffset handling is exercised too.
function makeInput(kind, rand) {
  const len = Math.floor(rand() * 40);
  const bytes = Buffer.alloc(len);
  for (let i = 0; i < len; i++) bytes[i] = Math.floor(rand() * 256);
  const padded = (extra) => {
    const ab = new ArrayBuffer(len + extra + 8);
    new Uint8Array(ab, extra, len).set(bytes);
    return ab;
  };
  switch (kind) {
    case 'string': {
      const chars = ['a', 'Z', '0', ' ', 'é', '€', '😀', '\u0000', 'ß'];
      let s = '';
      for (let i = 0; i < len; i++) s += chars[Math.floor(rand() * chars.length)];
      return s;
    }
    case 'Buffer': return Buffer.from(padded(3), 3, len);
    case 'Uint8Array': return new Uint8Array(padded(5), 5, len);
    case 'Uint16Array': return new Uint16Array(padded(4), 4, len >> 1);
    case 'DataView': return new DataView(padded(7), 7, len);
    case 'ArrayBuffer': return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + len);
    case 'SharedArrayBuffer': {
      const sab = new SharedArrayBuffer(len);
      new Uint8Array(sab).set(bytes);
      return sab;
    }
    case 'empty': return [new Uint8Array(0), '', Buffer.alloc(0), new ArrayBuffer(0)][len % 4];
    default: throw new Error(kind);
  }
}

// ---------------------------------------------------------------- vectors

// RFC 7914 section 12.
const RFC_VECTORS = [
  {
    password: '', salt: '', N: 16, r: 1, p: 1,
    hex: '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442' +
      'fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906',
  },
  {
    password: 'password', salt: 'NaCl', N: 1024, r: 8, p: 16,
    hex: 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162' +
      '2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640',
  },
  {
    password: 'pleaseletmein', salt: 'SodiumChloride', N: 16384, r: 8, p: 1,
    hex: '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2' +
      'd5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
  },
  {
    password: 'pleaseletmein', salt: 'SodiumChloride', N: 1048576, r: 8, p: 1, maxmem: 1100 * MiB,
    hex: '2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa47' +
      '8e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4',
  },
];

describe('scrypt: RFC 7914 section 12 vectors', () => {
  for (const t of RFC_VECTORS) {
    const options = { N: t.N, r: t.r, p: t.p, maxmem: t.maxmem };
    const expected = Buffer.from(t.hex, 'hex');
    const label = `P="${t.password}" S="${t.salt}" N=${t.N} r=${t.r} p=${t.p}`;
    const big = t.N > 16384;

    it(`${label}: scryptSync`, { skip: big && leftToAll }, () => {
      assert.deepEqual(kdf.scryptSync(t.password, t.salt, 64, options), expected);
    });

    if (big) {
      // 1 GiB of working memory: a pool of its own with room for it.
      it(`${label}: promise, on a pool with a 2 GiB budget`, { skip: leftToAll }, async () => {
        const pool = kdf.createPool({ threads: 1, maxMemory: 2048 * MiB });
        try {
          assert.deepEqual(await pool.scrypt(t.password, t.salt, 64, options), expected);
        } finally {
          await pool.close();
        }
      });
    } else {
      it(`${label}: promise and callback`, async () => {
        assert.deepEqual(await kdf.scrypt(t.password, t.salt, 64, options), expected);
        const { err, key } = await scryptCallback(t.password, t.salt, 64, options);
        assert.equal(err, null);
        assert.deepEqual(key, expected);
      });
    }
  }
});

// ---------------------------------------------------------------- agreement

describe('scrypt: agrees with crypto.scryptSync', () => {
  const SEED = 0x5c7e97;
  const COUNT = scaled(120, 30); // fewer under KDFPOOL_TEST_SCALE (sanitized runs)

  it(`${COUNT} random cases (seed ${SEED}), promise, callback and sync`, async () => {
    const rand = prng(SEED);
    const kinds = [];
    for (let i = 0; i < COUNT; i++) {
      const N = 2 ** (1 + Math.floor(rand() * 12));
      const r = 1 + Math.floor(rand() * 16);
      const p = 1 + Math.floor(rand() * 4);
      const keylen = Math.floor(rand() * 201);
      const pk = INPUT_KINDS[i % INPUT_KINDS.length];
      const sk = INPUT_KINDS[Math.floor(rand() * INPUT_KINDS.length)];
      const password = makeInput(pk, rand);
      const salt = makeInput(sk, rand);
      const options = { N, r, p };
      const label = `case ${i}: N=${N} r=${r} p=${p} keylen=${keylen} ${pk}/${sk}`;
      kinds.push(pk, sk);

      const expected = crypto.scryptSync(password, salt, keylen, options);
      assert.equal(expected.length, keylen);
      assert.deepEqual(kdf.scryptSync(password, salt, keylen, options), expected, `${label} (sync)`);
      const [viaPromise, { err, key }] = await Promise.all([
        kdf.scrypt(password, salt, keylen, options),
        scryptCallback(password, salt, keylen, options),
      ]);
      assert.ok(Buffer.isBuffer(viaPromise));
      assert.deepEqual(viaPromise, expected, `${label} (promise)`);
      assert.equal(err, null);
      assert.deepEqual(key, expected, `${label} (callback)`);
    }
    for (const k of INPUT_KINDS) assert.ok(kinds.includes(k), `input kind ${k} was not covered`);
  });

  it('many jobs in flight at once on a multi-thread pool (one arena per worker)', async () => {
    const pool = kdf.createPool({ threads: 3, maxMemory: 256 * MiB });
    try {
      const rand = prng(7);
      const jobs = [];
      for (let i = 0; i < 24; i++) {
        const options = { N: 2 ** (4 + Math.floor(rand() * 9)), r: 1 + Math.floor(rand() * 8), p: 1 + (i % 3) };
        const pw = `password ${i}`;
        jobs.push({ pw, options, promise: pool.scrypt(pw, 'salt', 32, options) });
      }
      for (const j of jobs) {
        assert.deepEqual(await j.promise, crypto.scryptSync(j.pw, 'salt', 32, j.options));
      }
    } finally {
      await pool.close();
    }
  });

  it('aliases, zero defaults, maxmem and non-object options match crypto.scrypt', async () => {
    const cases = [
      undefined,
      {},
      { cost: 32, blockSize: 2, parallelization: 3 },
      { N: 32, blockSize: 2, p: 3 },
      { N: 0, r: 0, p: 0, maxmem: 0 },
      { cost: 0, blockSize: 0, parallelization: 0 },
      { N: 1024, r: 1, maxmem: 128 * 1 * (1024 + 1 + 2) }, // exactly the memory it needs
      { N: 8, r: 4, p: 2, maxmem: 2 ** 53 - 1 },
      { N: 2 ** 15, r: 1 }, // N must stay below 2^(16 r)
      { N: undefined, cost: 64, r: undefined, blockSize: 1 },
      null,
      0,
      5,
      'options',
      [],
      true,
    ];
    for (const options of cases) {
      const label = `options ${JSON.stringify(options)}`;
      const expected = crypto.scryptSync('pw', 'salt', 24, options);
      assert.deepEqual(kdf.scryptSync('pw', 'salt', 24, options), expected, label);
      assert.deepEqual(await kdf.scrypt('pw', 'salt', 24, options), expected, label);
    }
    // The callback may take the options' place.
    const { err, key } = await new Promise((resolve) => {
      kdf.scrypt('pw', 'salt', 24, (e, k) => resolve({ err: e, key: k }));
    });
    assert.equal(err, null);
    assert.deepEqual(key, crypto.scryptSync('pw', 'salt', 24));
  });

  it('keylen 0 gives an empty Buffer in every form', async () => {
    assert.deepEqual(kdf.scryptSync('pw', 'salt', 0, { N: 16 }), Buffer.alloc(0));
    assert.deepEqual(await kdf.scrypt('pw', 'salt', 0, { N: 16 }), Buffer.alloc(0));
    const { err, key } = await scryptCallback('pw', 'salt', 0, { N: 16 });
    assert.equal(err, null);
    assert.deepEqual(key, Buffer.alloc(0));
  });

  // In a child process: the forced variant is process-wide.
  it('every BlockMix variant (native.testing.forceVariant) gives the same keys', () => {
    const script = `
      const kdf = require(${JSON.stringify(path.join(__dirname, '..'))});
      // The keys are the subject, not the queue: on a loaded machine the slow
      // forced variants would have the default deadline refuse the calls.
      kdf.configure({ maxWaitMs: 0 });
      const native = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'native'))});
      const crypto = require('node:crypto');
      const cases = [['', '', 64, { N: 16, r: 1, p: 1 }], ['password', 'NaCl', 64, { N: 1024, r: 8, p: 16 }],
        ['a', 'b', 77, { N: 2, r: 3, p: 2 }], ['x'.repeat(100), 'y', 200, { N: 4096, r: 16, p: 1 }]];
      if (native.testing.forceVariant('scrypt', 'nonsense')) throw new Error('unknown variant accepted');
      if (native.testing.forceVariant('nonsense', 'auto')) throw new Error('unknown family accepted');
      const variants = ['portable', 'sse2', 'avx2', 'avx512', 'neon'].filter((v) => native.testing.forceVariant('scrypt', v));
      if (!variants.includes('portable')) throw new Error('portable must always be available');
      if (process.arch === 'x64' && !variants.includes('sse2')) throw new Error('sse2 missing on x64');
      if (process.arch === 'arm64' && !variants.includes('neon')) throw new Error('neon missing on arm64');
      (async () => {
        for (const v of variants) {
          if (!native.testing.forceVariant('scrypt', v)) throw new Error('cannot force ' + v);
          for (const [pw, s, k, o] of cases) {
            if (!kdf.scryptSync(pw, s, k, o).equals(crypto.scryptSync(pw, s, k, o))) throw new Error(v + ' ' + JSON.stringify(o));
          }
          const keys = await Promise.all(cases.map(([pw, s, k, o]) => kdf.scrypt(pw, s, k, o)));
          keys.forEach((key, i) => {
            const [pw, s, k, o] = cases[i];
            if (!key.equals(crypto.scryptSync(pw, s, k, o))) throw new Error(v + ' async ' + i);
          });
        }
        if (!native.testing.forceVariant('scrypt', 'auto')) throw new Error('auto refused');
        process.stdout.write('ok ' + variants.join(','));
      })().catch((e) => { console.error(e); process.exit(1); });
    `;
    const out = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.match(out, /^ok portable/);
  });
});

// ---------------------------------------------------------------- errors

// Bad argument lists: [label, password, salt, keylen, options].
const BAD = [
  // password and salt
  ['password number', 1, 'salt', 16, {}],
  ['password null', null, 'salt', 16, {}],
  ['password undefined', undefined, 'salt', 16, {}],
  ['password object', {}, 'salt', 16, {}],
  ['password array', [1, 2], 'salt', 16, {}],
  ['password boolean', true, 'salt', 16, {}],
  ['salt null', 'pw', null, 16, {}],
  ['salt number', 'pw', 42, 16, {}],
  ['salt symbol', 'pw', Symbol('s'), 16, {}],
  ['password checked before keylen', 5, 'salt', -1, { N: 3 }],
  ['salt checked before keylen', 'pw', null, 'x', {}],
  // keylen
  ['keylen -1', 'pw', 'salt', -1, {}],
  ['keylen 1.5', 'pw', 'salt', 1.5, {}],
  ['keylen 2^31', 'pw', 'salt', 2 ** 31, {}],
  ['keylen string', 'pw', 'salt', '16', {}],
  ['keylen undefined', 'pw', 'salt', undefined, {}],
  ['keylen null', 'pw', 'salt', null, {}],
  ['keylen NaN', 'pw', 'salt', NaN, {}],
  ['keylen bigint', 'pw', 'salt', 16n, {}],
  ['keylen checked before options', 'pw', 'salt', -5, { N: 3 }],
  // N / cost
  ['N -1', 'pw', 'salt', 16, { N: -1 }],
  ['N 1.5', 'pw', 'salt', 16, { N: 1.5 }],
  ['N string', 'pw', 'salt', 16, { N: '16' }],
  ['N NaN', 'pw', 'salt', 16, { N: NaN }],
  ['N Infinity', 'pw', 'salt', 16, { N: Infinity }],
  ['N bigint', 'pw', 'salt', 16, { N: 16n }],
  ['N 2^32', 'pw', 'salt', 16, { N: 2 ** 32 }],
  ['N null', 'pw', 'salt', 16, { N: null }],
  ['N 1', 'pw', 'salt', 16, { N: 1 }],
  ['N 3 (not a power of two)', 'pw', 'salt', 16, { N: 3 }],
  ['N 1000 (not a power of two)', 'pw', 'salt', 16, { N: 1000 }],
  ['N 2^32-1', 'pw', 'salt', 16, { N: 2 ** 32 - 1 }],
  ['N 2^31, too big for maxmem', 'pw', 'salt', 16, { N: 2 ** 31 }],
  ['N 2^20 r 8, over the default maxmem', 'pw', 'salt', 16, { N: 2 ** 20 }],
  ['N 2^16 r 1 (N >= 2^(16 r))', 'pw', 'salt', 16, { N: 2 ** 16, r: 1, maxmem: 2 ** 40 }],
  ['cost -1', 'pw', 'salt', 16, { cost: -1 }],
  ['cost string', 'pw', 'salt', 16, { cost: 'x' }],
  ['cost 3', 'pw', 'salt', 16, { cost: 3 }],
  ['N and cost', 'pw', 'salt', 16, { N: 16, cost: 16 }],
  ['N and bad cost: the pair error comes first', 'pw', 'salt', 16, { N: 16, cost: 'x' }],
  ['bad N and cost: N is checked first', 'pw', 'salt', 16, { N: 'x', cost: 16 }],
  // r / blockSize
  ['r -1', 'pw', 'salt', 16, { r: -1 }],
  ['r 1.5', 'pw', 'salt', 16, { r: 1.5 }],
  ['r string', 'pw', 'salt', 16, { r: '8' }],
  ['r 2^32', 'pw', 'salt', 16, { r: 2 ** 32 }],
  ['r 2^30', 'pw', 'salt', 16, { r: 2 ** 30 }],
  ['r 2^31, huge maxmem', 'pw', 'salt', 16, { N: 2, r: 2 ** 31, maxmem: 2 ** 53 - 1 }],
  ['blockSize -1', 'pw', 'salt', 16, { blockSize: -1 }],
  ['r and blockSize', 'pw', 'salt', 16, { r: 8, blockSize: 8 }],
  // p / parallelization
  ['p -1', 'pw', 'salt', 16, { p: -1 }],
  ['p string', 'pw', 'salt', 16, { p: 'x' }],
  ['p 2^32', 'pw', 'salt', 16, { p: 2 ** 32 }],
  ['p 2^30 (p r >= 2^30)', 'pw', 'salt', 16, { p: 2 ** 30 }],
  ['r 16 p 2^26 (p r >= 2^30)', 'pw', 'salt', 16, { N: 2, r: 16, p: 2 ** 26, maxmem: 2 ** 53 - 1 }],
  ['128 r p > INT_MAX', 'pw', 'salt', 16, { N: 2, r: 1, p: 2 ** 24, maxmem: 2 ** 53 - 1 }],
  ['parallelization 1.5', 'pw', 'salt', 16, { parallelization: 1.5 }],
  ['p and parallelization', 'pw', 'salt', 16, { p: 1, parallelization: 1 }],
  // maxmem
  ['maxmem -1', 'pw', 'salt', 16, { maxmem: -1 }],
  ['maxmem 1.5', 'pw', 'salt', 16, { maxmem: 1.5 }],
  ['maxmem 2^53', 'pw', 'salt', 16, { maxmem: 2 ** 53 }],
  ['maxmem string', 'pw', 'salt', 16, { maxmem: '1' }],
  ['maxmem bigint', 'pw', 'salt', 16, { maxmem: 1n }],
  ['maxmem 1', 'pw', 'salt', 16, { maxmem: 1 }],
  ['maxmem one byte short', 'pw', 'salt', 16, { N: 1024, r: 1, maxmem: 128 * (1024 + 1 + 2) - 1 }],
  ['maxmem 16 MiB for N 2^14 r 8', 'pw', 'salt', 16, { N: 16384, r: 8, maxmem: 16 * MiB }],
];

// What node:crypto throws for these arguments, synchronously, in both forms.
// Node 20 does not clear OpenSSL's (per-thread) error queue before its dry
// run, so after one "memory limit exceeded" failure its next plain "Invalid
// scrypt params" also carries that detail. kdfpool's check (ported to C)
// starts clean every time and never touches OpenSSL's queue, so the
// expectation is node's answer on a clean queue: cleaned here first (node's
// own sync jobs, randomBytes among them, clear it).
function nodeError(args) {
  crypto.randomBytes(1);
  const fromSync = thrown(() => crypto.scryptSync(...args));
  const fromCallback = thrown(() => crypto.scrypt(...args, () => {}));
  assert.deepEqual(shape(fromCallback), shape(fromSync));
  return fromSync;
}

// Whether kdf reports this error through OpenSSL's text (the params errors
// that carry a detail after "Invalid scrypt params: ").
const hasOpenSslDetail = (err) => err.code === 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS' && err.message.includes(': ');

describe('scrypt: argument errors are node:crypto\'s', () => {
  for (const [label, ...args] of BAD) {
    it(`${label}: promise rejects, callback throws, sync throws`, async () => {
      const expected = shape(nodeError(args));

      // Promise form: a rejection, never a synchronous throw.
      let promise;
      assert.doesNotThrow(() => {
        promise = kdf.scrypt(...args);
      });
      assert.ok(promise instanceof Promise);
      await assert.rejects(promise, (err) => {
        assert.deepEqual(shape(err), expected);
        return true;
      });

      // Callback form: a synchronous throw; the callback never runs.
      let called = false;
      const err = thrown(() => kdf.scrypt(...args, () => {
        called = true;
      }));
      assert.deepEqual(shape(err), expected);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(called, false);
    });

    it(`${label}: scryptSync throws the same`, () => {
      const expected = nodeError(args);
      const err = thrown(() => kdf.scryptSync(...args));
      assert.deepEqual(shape(err), shape(expected),
        hasOpenSslDetail(expected)
          ? 'src/napi/binding.c js_run_sync must hand STATUS_EINVAL + message back to lib/ in its record (as submit does) so context.onInvalid can raise node\'s error'
          : undefined);
    });
  }

  it('errors carry node\'s class and an enumerable code', () => {
    const err = thrown(() => kdf.scrypt('pw', 'salt', 16, { N: 3 }, () => {}));
    assert.ok(err instanceof RangeError);
    assert.deepEqual(Object.keys(err), ['code']);
    // An option under both names: node 20/22 Error
    // ERR_CRYPTO_SCRYPT_INVALID_PARAMETER, node >= 23 TypeError
    // ERR_INCOMPATIBLE_OPTION_PAIR (nodejs/node#53305); kdfpool raises this node's.
    for (const options of [{ N: 16, cost: 16 }, { r: 1, blockSize: 1 }, { p: 1, parallelization: 1 }]) {
      const label = JSON.stringify(options);
      const expected = thrown(() => crypto.scrypt('pw', 'salt', 16, options, () => {}));
      const pair = thrown(() => kdf.scrypt('pw', 'salt', 16, options, () => {}));
      // (Node >= 23 puts an internal prototype between the error and
      // TypeError.prototype; its constructor is still TypeError.)
      assert.equal(pair.constructor, expected.constructor, label);
      assert.ok(pair instanceof expected.constructor, label);
      assert.deepEqual(Object.keys(pair), Object.keys(expected), label);
      assert.equal(pair.stack.split('\n')[0], expected.stack.split('\n')[0], label);
    }
  });

  it('the pair error this node\'s version implies is the one its crypto raises', () => {
    // lib/host.js falls back on the version where it cannot probe.
    const major = Number(process.versions.node.split('.')[0]);
    const expected = thrown(() => crypto.scryptSync('pw', 'salt', 16, { N: 16, cost: 16 }));
    const byVersion = major >= 23 ? errors.incompatibleOptionPair('N', 'cost') : errors.scryptInvalidParameter();
    assert.deepEqual(shape(byVersion), shape(expected));
  });

  it('a callback that is not a function: node\'s error, thrown synchronously', () => {
    for (const cb of ['x', 1, {}, null]) {
      const expected = thrown(() => crypto.scrypt('pw', 'salt', 16, {}, cb));
      assert.deepEqual(shape(thrown(() => kdf.scrypt('pw', 'salt', 16, {}, cb))), shape(expected));
    }
  });

  // Node reads a set option twice (N, N, cost, r, r, ...), and node 20's
  // scryptSync aborts the process when a getter answers differently the
  // second time; kdfpool reads each once, in node's order.
  it('options are read once each, in node\'s order', () => {
    const trace = (log, target) => new Proxy(target, {
      get(t, key) {
        log.push(String(key));
        return t[key];
      },
    });
    const firstReads = (log) => log.filter((key, i) => log.indexOf(key) === i);
    for (const options of [{ N: 16, r: 1, p: 1, maxmem: 0 }, { cost: 16, blockSize: 1, parallelization: 1 }, {}]) {
      const ours = [];
      const theirs = [];
      kdf.scryptSync('pw', 'salt', 8, trace(ours, options));
      crypto.scryptSync('pw', 'salt', 8, trace(theirs, { ...options }));
      assert.deepEqual(ours, firstReads(theirs), JSON.stringify(options));
    }
    // Where node stops at an error, so does kdfpool.
    const ours = [];
    const theirs = [];
    thrown(() => kdf.scryptSync('pw', 'salt', 8, trace(ours, { N: 16, cost: 16, r: 1 })));
    thrown(() => crypto.scryptSync('pw', 'salt', 8, trace(theirs, { N: 16, cost: 16, r: 1 })));
    assert.deepEqual(ours, firstReads(theirs));
  });

  it('a getter that changes its answer: the value checked is the value used', () => {
    // Not compared with node: this input aborts node 20.
    let reads = 0;
    const options = { r: 1, p: 1 };
    Object.defineProperty(options, 'N', { enumerable: true, get: () => (++reads === 1 ? 32 : 'x') });
    assert.deepEqual(kdf.scryptSync('pw', 'salt', 16, options), crypto.scryptSync('pw', 'salt', 16, { N: 32, r: 1, p: 1 }));
    assert.equal(reads, 1);
  });
});

// ---------------------------------------------------------------- arena

describe('scrypt: memory', () => {
  it('the worker arena is reused: a second job of the same size maps nothing new', async () => {
    kdf.configure({ threads: 1 });
    const options = { N: 4096, r: 8, p: 1 };
    await kdf.scrypt('pw', 'salt', 32, options);
    const afterFirst = kdf.stats().arena.maps;
    await kdf.scrypt('pw2', 'salt', 32, options);
    assert.equal(kdf.stats().arena.maps, afterFirst);
    assert.ok(kdf.stats().arena.bytes >= 128 * 8 * (4096 + 1 + 2));
  });
});
