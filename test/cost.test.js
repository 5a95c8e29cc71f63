'use strict';

// The cost model of stored hashes (lib/phc/cost.js) and the two limits
// built on it, `work` and `memory`: hostile strings that the older,
// per-parameter limits let through are refused before anything is queued
// (the hash length counts; scrypt's real allocation counts), every setting
// people recommend or ship as a default still verifies, nothing accepted
// costs more than ~3x the most expensive of those, and hash() never writes
// what verify() on the same pool would refuse.
//
// "Decision only" checks pass a pre-aborted signal: a string that gets
// past the limits stops at submit with AbortError, so no work runs.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const native = require('../lib/native');
const { estimateCost, pbkdf2IterationNs } = require('../lib/phc/cost');
const { DEFAULT_LIMITS } = require('../lib/phc/limits');

const LIMIT = (limit) => ({ name: 'HashLimitError', code: 'ERR_KDF_HASH_LIMIT', retryable: false, limit });
const b64 = (buf) => buf.toString('base64').replace(/=+$/, '');
const ab64 = (buf) => b64(buf).replace(/\+/g, '.');
const bytes = (n, byte = 0x41) => b64(Buffer.alloc(n, byte));
const SALT16 = bytes(16, 0x53);

// 'accepted' when the limits let `phc` through (it then stops at submit,
// aborted), else the name of the limit that refused it. Nothing runs.
async function verdict(call) {
  try {
    await call(AbortSignal.abort());
  } catch (err) {
    if (err.name === 'AbortError') return 'accepted';
    if (err.code === 'ERR_KDF_HASH_LIMIT') return err.limit;
    throw err;
  }
  throw new Error('neither refused nor aborted');
}
const verifyVerdict = (phc, limits, pool = kdf) =>
  verdict((signal) => pool.verify(phc, 'pw', { signal, limits }));
const hashVerdict = (options, pool = kdf) =>
  verdict((signal) => pool.hash('pw', { ...options, signal }));

// Stored-hash strings with fake salt and hash of the given sizes.
const argon2String = (m, t, p, hashBytes = 32) => `$argon2id$v=19$m=${m},t=${t},p=${p}$${SALT16}$${bytes(hashBytes)}`;
const scryptString = (ln, r, p, hashBytes = 32) => `$scrypt$ln=${ln},r=${r},p=${p}$${SALT16}$${bytes(hashBytes)}`;
const pbkdf2String = (digest, i, hashBytes) => `$pbkdf2-${digest}$i=${i},l=${hashBytes}$${SALT16}$${bytes(hashBytes)}`;
const bcryptString = (cost) => `$2b$${String(cost).padStart(2, '0')}$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka`;

// The CPU variants this build and CPU can run, per family, forced in turn
// (native.testing.forceVariant; the pool is idle when each is forced).
const VARIANTS = {
  sha: ['portable', 'bmi2', 'avx2', 'avx512', 'shani', 'shani-avx512', 'neon'],
  scrypt: ['portable', 'sse2', 'avx2', 'avx512', 'neon'],
  argon2: ['portable', 'ssse3', 'avx2', 'avx512', 'neon'],
};
function available(family) {
  const names = VARIANTS[family].filter((name) => native.testing.forceVariant(family, name));
  native.testing.forceVariant(family, 'auto');
  return names;
}
function withVariant(family, name, fn) {
  assert.equal(native.testing.forceVariant(family, name), true, `${family} ${name}`);
  return Promise.resolve()
    .then(fn)
    .finally(() => native.testing.forceVariant(family, 'auto'));
}
// Every family forced to its portable code: the slowest this build has.
async function allPortable(fn) {
  for (const family of Object.keys(VARIANTS)) native.testing.forceVariant(family, 'portable');
  try {
    return await fn();
  } finally {
    for (const family of Object.keys(VARIANTS)) native.testing.forceVariant(family, 'auto');
  }
}

// a == b up to floating-point rounding.
function near(a, b, what) {
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
}

// The largest integer in [lo, hi] for which `accepted(x)` holds (monotone).
async function largestAccepted(lo, hi, accepted) {
  assert.equal(await accepted(lo), true, `${lo} accepted`);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (await accepted(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

describe('the cost model', () => {
  const pbkdf2Shape = (digest, iterations, hashBytes, passwordBytes = 0) =>
    ({ kind: 'pbkdf2', digest, iterations, saltBytes: 16, hashBytes, passwordBytes });

  test("PBKDF2 is the pool's own prediction for the SHA variant that runs, plus salt and password", async () => {
    for (const variant of available('sha')) {
      await withVariant('sha', variant, () => {
        const ns = pbkdf2IterationNs('sha256');
        const predicted = native.predictCost(native.constants.algorithms.PBKDF2, ['', ''], [600000, 0], 'sha256', 32);
        assert.equal(predicted[0], 600000 * ns, variant);
        // One output block, the salt (16 + 13 bytes: one block, +2), no password over a block.
        near(estimateCost(pbkdf2Shape('sha256', 600000, 32)).work, ((600000 + 3) * ns) / 1e6, variant);
        // 1024 bytes of SHA-1 are 52 output blocks.
        const sha1 = pbkdf2IterationNs('sha1');
        near(estimateCost(pbkdf2Shape('sha1', 100000, 1024)).work, (52 * (100000 + 3) * sha1) / 1e6, variant);
        // A 4096-byte password: 64 more compressions, once per job.
        near(estimateCost(pbkdf2Shape('sha256', 1000, 32, 4096)).work -
          estimateCost(pbkdf2Shape('sha256', 1000, 32)).work, (64 * ns) / 1e6, variant);
      });
    }
  });

  test('a CPU without SHA extensions pays several times the SHA-NI price per iteration', async (t) => {
    const names = available('sha');
    if (!names.includes('shani')) return t.skip('no SHA-NI here');
    const shani = await withVariant('sha', 'shani', () => pbkdf2IterationNs('sha256'));
    for (const slow of ['portable', 'bmi2', 'avx2']) {
      const ns = await withVariant('sha', slow, () => pbkdf2IterationNs('sha256'));
      assert.ok(ns >= 4 * shani, `${slow} ${ns} ns vs shani ${shani} ns`);
    }
  });

  test('scrypt, Argon2, bcrypt: the native prediction and memory, plus what it leaves out', async () => {
    const { algorithms } = native.constants;
    const sc = (ln, r, p, hashBytes, passwordBytes = 0) =>
      estimateCost({ kind: 'scrypt', N: 2 ** ln, r, p, saltBytes: 16, hashBytes, passwordBytes });
    for (const variant of available('scrypt')) {
      await withVariant('scrypt', variant, () => {
        const [romix, memory] = native.predictCost(algorithms.SCRYPT, ['', ''], [2 ** 17, 8, 1, 2 ** 40], undefined, 32);
        assert.equal(sc(17, 8, 1, 32).memory, memory);
        assert.equal(memory, 128 * 8 * (2 ** 17 + 3)); // 128*r*(N+p+2)
        assert.ok(sc(17, 8, 1, 32).work * 1e6 > romix + 0.3e3 * (memory / 1024) - 1, variant);
        // ln=1,r=16384,p=16 with a 1024-byte hash: ROMix is tiny, the final PBKDF2 is not.
        assert.ok(sc(1, 16384, 16, 1024).work > 3 * sc(1, 16384, 16, 32).work);
        assert.ok(sc(10, 8, 1, 32, 4096).work > sc(10, 8, 1, 32).work);
      });
    }
    const ar = (m, t, p, passwordBytes = 0) =>
      estimateCost({ kind: 'argon2', memory: m, passes: t, lanes: p, saltBytes: 16, hashBytes: 32, passwordBytes });
    for (const variant of available('argon2')) {
      await withVariant('argon2', variant, () => {
        assert.equal(ar(19456, 2, 1).memory, 19456 * 1024);
        assert.equal(ar(65535, 3, 4).memory, 65520 * 1024); // m' = 4p * floor(m / 4p)
        const [main] = native.predictCost(algorithms.ARGON2, ['', Buffer.alloc(16), undefined, undefined],
          [2, 0x13, 4, 65536, 3], undefined, 32);
        assert.ok(ar(65536, 3, 4).work * 1e6 >= main + 0.3e3 * 65536, variant);
        assert.ok(ar(65536, 3, 4, 4096).work > ar(65536, 3, 4).work);
      });
    }
    const bc = (cost) => estimateCost({ kind: 'bcrypt', cost });
    assert.equal(bc(12).work, native.predictCost(algorithms.BCRYPT, ['', Buffer.alloc(16)], [12, 98], undefined, 23)[0] / 1e6);
    assert.ok(Math.abs(bc(13).work / bc(12).work - 8193 / 4097) < 1e-6);
    assert.equal(bc(12).memory, 0);
  });

  test('defaults: work 600 units, memory 257 MiB, and every older limit kept', () => {
    assert.equal(DEFAULT_LIMITS.work, 600);
    assert.equal(DEFAULT_LIMITS.memory, 257 * 1024 * 1024);
    for (const key of ['argon2Memory', 'argon2Passes', 'argon2Lanes', 'scryptMemory', 'scryptParallelism',
      'pbkdf2Iterations', 'bcryptCost', 'saltLength', 'hashLength', 'dataLength']) {
      assert.ok(Number.isInteger(DEFAULT_LIMITS[key]), key);
    }
  });
});

describe('verify: work and memory limits (hostile stored hashes)', () => {
  // Each of these passed every limit before `work` and `memory` existed,
  // and would have run for seconds (or allocated GiBs).
  // (Refused on the fastest variants too: they are forced in a test below.)
  const hostile = [
    ['PBKDF2-SHA1 10,000,000 iterations, 1024-byte hash', pbkdf2String('sha1', 10000000, 1024), 'work'],
    ['PBKDF2-SHA1 250,000 iterations, 1024-byte hash', pbkdf2String('sha1', 250000, 1024), 'work'],
    ['PBKDF2-SHA256 10,000,000 iterations, 64 bytes', pbkdf2String('sha256', 10000000, 64), 'work'],
    ['PBKDF2-SHA512 10,000,000 iterations, 1024 bytes', pbkdf2String('sha512', 10000000, 1024), 'work'],
    ['scrypt ln=1,r=16384,p=16, 1024-byte hash (4 MiB counted, ~1 s)', scryptString(1, 16384, 16, 1024), 'work'],
    ['scrypt ln=1,r=1048576,p=15 (counted 256 MiB, allocates 2.4 GiB)', scryptString(1, 1048576, 15, 32), 'memory'],
    ['scrypt ln=18,r=8,p=4', scryptString(18, 8, 4), 'work'],
    ['argon2id m=262144,t=20,p=1', argon2String(262144, 20, 1), 'work'],
    ['bcrypt cost 16', bcryptString(16), 'work'],
  ];
  for (const [what, phc, limit] of hostile) {
    test(`${what} -> ${limit}`, async () => {
      const before = kdf.stats().submitted;
      assert.equal(await verifyVerdict(phc), limit);
      await assert.rejects(kdf.verify(phc, 'pw'), (err) => {
        assert.equal(err.name, 'HashLimitError');
        assert.equal(err.limit, limit);
        assert.ok(err.value > err.max, `${err.value} > ${err.max}`);
        // The message gives the estimate and the limit to raise.
        assert.match(err.message, new RegExp(`${err.value}.*over the limit ${limit} = ${err.max}`));
        assert.match(err.message, new RegExp(`raise ${limit} in the pool's hashLimits`));
        return true;
      });
      assert.equal(kdf.stats().submitted, before);
    });
  }

  test('the hostile strings are refused under every forced variant', async () => {
    for (const [family, names] of Object.entries({ sha: available('sha'), scrypt: available('scrypt'),
      argon2: available('argon2') })) {
      for (const name of names) {
        await withVariant(family, name, async () => {
          for (const [what, phc, limit] of hostile) assert.equal(await verifyVerdict(phc), limit, `${family} ${name}: ${what}`);
        });
      }
    }
  });

  // The issue this guards: priced at the SHA-NI figure, the worst PBKDF2
  // string accepted on a CPU without SHA extensions cost ~10x the bound.
  test('under each forced SHA variant the worst accepted PBKDF2 string costs at most `work` in that variant', async () => {
    const found = {};
    for (const name of available('sha')) {
      await withVariant('sha', name, async () => {
        const ns = pbkdf2IterationNs('sha256');
        const accepted = async (i) => (await verifyVerdict(pbkdf2String('sha256', i, 32))) === 'accepted';
        const worst = await largestAccepted(1, DEFAULT_LIMITS.pbkdf2Iterations, accepted);
        found[name] = worst;
        // In the running variant's own figure, within the bound...
        assert.ok((worst * ns) / 1e6 <= DEFAULT_LIMITS.work, `${name}: ${worst} iterations x ${ns} ns`);
        // ... and the bound is what stops it (unless pbkdf2Iterations does first).
        if (worst < DEFAULT_LIMITS.pbkdf2Iterations) {
          assert.equal(await verifyVerdict(pbkdf2String('sha256', worst + 1, 32)), 'work');
          assert.ok(((worst + 10) * ns) / 1e6 > DEFAULT_LIMITS.work, `${name}: ${worst} is the limit's edge`);
        }
        // OWASP's 600,000 still verifies on every variant.
        assert.ok(worst >= 600000, `${name}: ${worst}`);
      });
    }
    if (found.shani !== undefined) assert.ok(found.portable * 4 <= found.shani, JSON.stringify(found));
  });

  test('under each forced scrypt and Argon2 variant the worst accepted string costs at most `work`', async () => {
    for (const name of available('scrypt')) {
      await withVariant('scrypt', name, async () => {
        const accepted = async (p) => (await verifyVerdict(scryptString(14, 8, p))) === 'accepted';
        const worst = await largestAccepted(1, DEFAULT_LIMITS.scryptParallelism, accepted);
        const work = estimateCost({ kind: 'scrypt', N: 2 ** 14, r: 8, p: worst, saltBytes: 16, hashBytes: 32 }).work;
        assert.ok(work <= DEFAULT_LIMITS.work, `${name}: p=${worst} ${work}`);
      });
    }
    for (const name of available('argon2')) {
      await withVariant('argon2', name, async () => {
        const accepted = async (t) => (await verifyVerdict(argon2String(65536, t, 1))) === 'accepted';
        const worst = await largestAccepted(1, DEFAULT_LIMITS.argon2Passes, accepted);
        const est = (t) => estimateCost({ kind: 'argon2', memory: 65536, passes: t, lanes: 1, saltBytes: 16, hashBytes: 32 });
        assert.ok(est(worst).work <= DEFAULT_LIMITS.work, `${name}: t=${worst}`);
        if (worst < DEFAULT_LIMITS.argon2Passes) assert.ok(est(worst + 1).work > DEFAULT_LIMITS.work);
      });
    }
  });

  // Measures, on request, what the worst accepted PBKDF2 string really takes
  // under each variant (no assert on time: figures for the maintainer).
  test('KDFPOOL_COST_MEASURE=1: run time of the worst accepted PBKDF2-SHA256 per variant', async (t) => {
    if (process.env.KDFPOOL_COST_MEASURE !== '1') return t.skip('set KDFPOOL_COST_MEASURE=1');
    for (const name of available('sha')) {
      await withVariant('sha', name, async () => {
        const accepted = async (i) => (await verifyVerdict(pbkdf2String('sha256', i, 32))) === 'accepted';
        const worst = await largestAccepted(1, DEFAULT_LIMITS.pbkdf2Iterations, accepted);
        const salt = crypto.randomBytes(16);
        const phc = `$pbkdf2-sha256$${worst}$${ab64(salt)}$${ab64(crypto.pbkdf2Sync('pw', salt, worst, 32, 'sha256'))}`;
        const start = process.hrtime.bigint();
        assert.equal(kdf.verifySync(phc, 'pw'), true);
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        t.diagnostic(`${name}: ${worst} iterations, estimate ${estimateCost({ kind: 'pbkdf2', digest: 'sha256',
          iterations: worst, saltBytes: 16, hashBytes: 32 }).work.toFixed(1)} units, ran ${ms.toFixed(1)} ms alone`);
      });
    }
  });

  test('memory: 256 MiB of argon2 or scrypt V passes, more does not; the budget still caps it', async () => {
    assert.equal(await verifyVerdict(argon2String(262144, 1, 1)), 'accepted');
    assert.equal(await verifyVerdict(scryptString(18, 8, 1)), 'accepted'); // 256 MiB + 3 KiB
    assert.equal(await verifyVerdict(scryptString(9, 4096, 1)), 'memory'); // 128*N*r = 256 MiB, B, X, Y 1.5 MiB more
    assert.equal(await verifyVerdict(scryptString(9, 4096, 1), { memory: 2 ** 30 }), 'accepted');
    const pool = kdf.createPool({ threads: 1, maxMemory: 8 * 1024 * 1024 });
    try {
      // 128*N*r is 8 MiB exactly; the job allocates 8 MiB + 3 KiB.
      assert.equal(await verifyVerdict(scryptString(13, 8, 1), undefined, pool), 'maxMemory');
      // The pool reserves the 32-byte output beside the memory: 8 MiB of
      // Argon2 blocks leave it no room, 4 KiB less does.
      assert.equal(await verifyVerdict(argon2String(8192, 1, 1), undefined, pool), 'maxMemory');
      assert.equal(await verifyVerdict(argon2String(8188, 1, 1), undefined, pool), 'accepted');
      assert.equal(await verifyVerdict(argon2String(8191, 1, 1), undefined, pool), 'accepted'); // m' = 8188
    } finally {
      await pool.close();
    }
  });

  test('work and memory are raised or lowered per pool and per call', async () => {
    const bcryptWork = (cost) => Math.ceil(estimateCost({ kind: 'bcrypt', cost }).work);
    assert.equal(await verifyVerdict(bcryptString(16)), 'work');
    assert.equal(await verifyVerdict(bcryptString(16), { work: bcryptWork(16) }), 'accepted');
    assert.equal(await verifyVerdict(bcryptString(10), { work: bcryptWork(10) - 1 }), 'work');
    assert.equal(await verifyVerdict(argon2String(19456, 2, 1), { memory: 19456 * 1024 - 1 }), 'memory');
    const pool = kdf.createPool({ threads: 1, hashLimits: { work: bcryptWork(11) - 1 } });
    try {
      assert.equal(await verifyVerdict(bcryptString(11), undefined, pool), 'work');
      assert.equal(await verifyVerdict(bcryptString(11), { work: bcryptWork(11) }, pool), 'accepted');
    } finally {
      await pool.close();
    }
    await assert.rejects(kdf.verify(bcryptString(4), 'pw', { limits: { work: 0 } }), { code: 'ERR_OUT_OF_RANGE' });
    await assert.rejects(kdf.verify(bcryptString(4), 'pw', { limits: { memory: 1.5 } }), { code: 'ERR_OUT_OF_RANGE' });
  });

  test('the password counts: a long one adds its hashing to the estimate', async () => {
    const phc = pbkdf2String('sha256', 1000, 32);
    const base = estimateCost({ kind: 'pbkdf2', digest: 'sha256', iterations: 1000, saltBytes: 16, hashBytes: 32 }).work;
    const limits = { work: Math.ceil(base), passwordLength: 2 ** 24 };
    const long = 'x'.repeat(2 ** 23);
    assert.equal(await verdict((signal) => kdf.verify(phc, 'pw', { signal, limits })), 'accepted');
    assert.equal(await verdict((signal) => kdf.verify(phc, long, { signal, limits })), 'work');
  });
});

describe('recommended and default settings verify under the default limits', () => {
  // OWASP Password Storage Cheat Sheet; RFC 9106's second recommendation
  // (= npm argon2's default); @node-rs/argon2's default; passlib's defaults
  // (argon2 from argon2-cffi >= 21.2 when installed: m=65536 t=3 p=4, else
  // its fallback m=512 t=2 p=2).
  const argon2 = [[47104, 1, 1], [19456, 2, 1], [12288, 3, 1], [9216, 4, 1], [7168, 5, 1], [65536, 3, 4], [512, 2, 2]];
  for (const [m, t, p] of argon2) {
    test(`argon2id m=${m} t=${t} p=${p}: hashed and verified`, async () => {
      const h = await kdf.hash('correct horse', { memory: m, passes: t, parallelism: p });
      assert.equal(await kdf.verify(h, 'correct horse'), true);
      assert.equal(await kdf.verify(h.replace('$argon2id$', '$argon2i$'), 'correct horse'), false);
    });
  }

  // Expensive: the limit decision only (hash() and verify() both).
  const scrypt = [[17, 8, 1], [16, 8, 2], [15, 8, 3], [14, 8, 5], [13, 8, 10], [16, 8, 1]];
  for (const [ln, r, p] of scrypt) {
    test(`scrypt 2^${ln}/${r}/${p}: accepted by verify and hash`, async () => {
      assert.equal(await verifyVerdict(scryptString(ln, r, p)), 'accepted');
      assert.equal(await hashVerdict({ algorithm: 'scrypt', ln, r, p }), 'accepted');
    });
  }

  const pbkdf2 = [['sha1', 1300000, 20], ['sha256', 600000, 32], ['sha512', 210000, 64]];
  for (const [digest, i, size] of pbkdf2) {
    test(`PBKDF2-${digest} ${i}: accepted`, async () => {
      assert.equal(await verifyVerdict(`$pbkdf2-${digest}$${i}$${ab64(Buffer.alloc(16, 1))}$${ab64(Buffer.alloc(size, 2))}`), 'accepted');
      if (digest !== 'sha1') assert.equal(await hashVerdict({ algorithm: `pbkdf2-${digest}`, iterations: i }), 'accepted');
    });
  }

  test("passlib's PBKDF2 defaults (sha1 131000, sha256 29000, sha512 25000): verified", async () => {
    for (const [ident, digest, i, size] of [['pbkdf2', 'sha1', 131000, 20], ['pbkdf2-sha256', 'sha256', 29000, 32],
      ['pbkdf2-sha512', 'sha512', 25000, 64]]) {
      const salt = crypto.randomBytes(16);
      const key = crypto.pbkdf2Sync('correct horse', salt, i, size, digest);
      const phc = `$${ident}$${i}$${ab64(salt)}$${ab64(key)}`;
      assert.equal(await kdf.verify(phc, 'correct horse'), true, phc);
      assert.equal(await kdf.verify(phc, 'wrong'), false);
    }
  });

  test('bcrypt 10: hashed and verified; bcrypt 12 (OWASP, passlib): accepted', async () => {
    const h = await kdf.hash('correct horse', { algorithm: 'bcrypt', cost: 10 });
    assert.equal(await kdf.verify(h, 'correct horse'), true);
    assert.equal(await verifyVerdict(bcryptString(12)), 'accepted');
    assert.equal(await hashVerdict({ algorithm: 'bcrypt', cost: 12 }), 'accepted');
  });

  test('on the slowest variants, every recommended setting fits and `work` is within ~3x the top one', async () => {
    const shapes = [
      { kind: 'scrypt', N: 2 ** 17, r: 8, p: 1, saltBytes: 16, hashBytes: 32 },
      { kind: 'bcrypt', cost: 12 },
      { kind: 'pbkdf2', digest: 'sha1', iterations: 1300000, saltBytes: 16, hashBytes: 20 },
      { kind: 'pbkdf2', digest: 'sha256', iterations: 600000, saltBytes: 16, hashBytes: 32 },
      { kind: 'argon2', memory: 65536, passes: 3, lanes: 4, saltBytes: 16, hashBytes: 32 },
    ];
    await allPortable(() => {
      const works = shapes.map((s) => estimateCost(s).work);
      const top = Math.max(...works);
      assert.ok(DEFAULT_LIMITS.work <= 3 * top, `${DEFAULT_LIMITS.work} vs 3 x ${top}`);
      for (const w of works) assert.ok(w <= DEFAULT_LIMITS.work, `${w}`);
    });
  });
});

describe('hash() never writes what verify() would refuse', () => {
  test('memory 300000 KiB and bcrypt cost 17 are refused by hash() with verify\'s limit names', async () => {
    const before = kdf.stats().submitted;
    await assert.rejects(kdf.hash('pw', { memory: 300000 }), LIMIT('argon2Memory'));
    await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', cost: 17 }), LIMIT('bcryptCost'));
    await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', cost: 16 }), (err) => {
      assert.equal(err.limit, 'work');
      const units = Math.ceil(estimateCost({ kind: 'bcrypt', cost: 16 }).work);
      assert.match(err.message, new RegExp(`^hash\\(\\)'s parameters ask for bcrypt cost 16: an estimated ${units} work units, over the limit work = 600`));
      return true;
    });
    await assert.rejects(kdf.hash('pw', { algorithm: 'scrypt', ln: 18, r: 8, p: 4 }), LIMIT('work'));
    await assert.rejects(kdf.hash('pw', { algorithm: 'scrypt', ln: 9, r: 4096, p: 1 }), LIMIT('memory'));
    assert.equal(kdf.stats().submitted, before);
    // Raised per call, the same call goes through.
    assert.equal(await hashVerdict({ memory: 300000, limits: { argon2Memory: 300000, memory: 2 ** 29 } }), 'accepted');
    assert.equal(await hashVerdict({ algorithm: 'bcrypt', cost: 16, limits: { work: 1100 } }), 'accepted');
  });

  test("a pool's hashLimits and memory budget apply to its hash()", async () => {
    const pool = kdf.createPool({ threads: 1, maxMemory: 4 * 1024 * 1024, hashLimits: { argon2Passes: 2, work: 10 } });
    try {
      const before = pool.stats().submitted;
      await assert.rejects(pool.hash('pw', { memory: 64, passes: 3 }), LIMIT('argon2Passes'));
      await assert.rejects(pool.hash('pw', { algorithm: 'bcrypt', cost: 10 }), LIMIT('work'));
      await assert.rejects(pool.hash('pw', { memory: 8192, passes: 1 }), LIMIT('maxMemory'));
      assert.equal(pool.stats().submitted, before);
      const h = await pool.hash('pw', { memory: 1024, passes: 2 });
      assert.equal(await pool.verify(h, 'pw'), true);
    } finally {
      await pool.close();
    }
  });

  test('hash() and verify() agree on every parameter set (same limit, or both accept)', async () => {
    let seed = 12345;
    const rand = (n) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const limitsChoices = [undefined, { work: 50 }, { memory: 32 * 1024 * 1024 }, { hashLength: 40, saltLength: 20 }];
    for (let i = 0; i < 150; i++) {
      const limits = limitsChoices[rand(limitsChoices.length)];
      const saltLength = 8 + rand(40);
      const tagLength = 10 + rand(60);
      let options;
      let phc;
      switch (rand(4)) {
        case 0: {
          const p = 1 + rand(20);
          const m = 8 * p + rand(400000);
          const t = 1 + rand(80);
          options = { memory: m, passes: t, parallelism: p, saltLength, tagLength };
          phc = `$argon2id$v=19$m=${m},t=${t},p=${p}$${bytes(saltLength)}$${bytes(tagLength)}`;
          break;
        }
        case 1: {
          const ln = 1 + rand(20);
          const r = 2 + rand(rand(2) ? 16 : 20000); // r = 1 would limit ln to 15
          const p = 1 + rand(20);
          options = { algorithm: 'scrypt', ln, r, p, saltLength, tagLength };
          phc = `$scrypt$ln=${ln},r=${r},p=${p}$${bytes(saltLength)}$${bytes(tagLength)}`;
          break;
        }
        case 2: {
          const [digest, size] = rand(2) ? ['sha256', 32] : ['sha512', 64];
          const iterations = 1 + rand(12000000);
          options = { algorithm: `pbkdf2-${digest}`, iterations, saltLength };
          phc = `$pbkdf2-${digest}$${iterations}$${ab64(Buffer.alloc(saltLength, 3))}$${ab64(Buffer.alloc(size, 4))}`;
          break;
        }
        default: {
          const cost = 4 + rand(28);
          options = { algorithm: 'bcrypt', cost };
          phc = bcryptString(cost);
        }
      }
      const fromHash = await hashVerdict({ ...options, limits });
      const fromVerify = await verifyVerdict(phc, limits);
      assert.equal(fromHash, fromVerify, `${phc} ${JSON.stringify(limits)}`);
    }
  });
});
