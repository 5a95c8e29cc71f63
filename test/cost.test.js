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
const { estimateCost } = require('../lib/phc/cost');
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

describe('the cost model', () => {
  test('formulas, on the figures they were built from', () => {
    const pb = (digest, iterations, hashBytes) =>
      estimateCost({ kind: 'pbkdf2', digest, iterations, saltBytes: 16, hashBytes });
    // Work grows with the output blocks: 1024 bytes of SHA-1 are 52 blocks.
    assert.ok(Math.abs(pb('sha1', 100000, 1024).work - 52 * 100000 * 0.115e-3) < 1);
    assert.ok(pb('sha1', 100000, 1024).work > 25 * pb('sha1', 100000, 20).work);
    assert.ok(Math.abs(pb('sha512', 210000, 64).work - 78.75) < 0.1);
    assert.ok(pb('sha3-256', 1000, 32).work >= 1000 * 0.5e-3);
    assert.equal(pb('sha256', 1, 32).memory, 0);

    const sc = (ln, r, p, hashBytes) => estimateCost({ kind: 'scrypt', N: 2 ** ln, r, p, saltBytes: 16, hashBytes });
    // ln=1,r=16384,p=16 with a 1024-byte hash took 1044 ms on the reference core.
    assert.ok(sc(1, 16384, 16, 1024).work >= 1044);
    // ... though its 128*N*r is only 4 MiB; the final PBKDF2 step dominates.
    assert.ok(sc(1, 16384, 16, 1024).work > 3.5 * sc(1, 16384, 16, 32).work);
    // Memory is what the native code allocates: 128*r*(N+p+2).
    assert.equal(sc(1, 1048576, 15, 32).memory, 128 * 1048576 * (2 + 15 + 2));
    assert.equal(sc(17, 8, 1, 32).memory, 128 * 8 * (131072 + 3));

    const ar = (m, t, p) => estimateCost({ kind: 'argon2', memory: m, passes: t, lanes: p, saltBytes: 16, hashBytes: 32 });
    assert.equal(ar(19456, 2, 1).memory, 19456 * 1024);
    assert.equal(ar(65535, 3, 4).memory, 65520 * 1024); // m' = 4p * floor(m / 4p)
    // ... plus 0.3 µs per KiB of memory (the wipe, and faulting in a grown arena).
    assert.ok(Math.abs(ar(65536, 3, 4).work - (65536 * 3 * 0.172e-3 + 65536 * 0.3e-3)) < 0.1);
    assert.ok(Math.abs(sc(17, 8, 1, 32).work - (2 ** 20 * 0.173e-3 + (128 * 8 * (2 ** 17 + 3) / 1024) * 0.3e-3)) < 0.1);

    const bc = (cost) => estimateCost({ kind: 'bcrypt', cost });
    assert.ok(Math.abs(bc(12).work - 204.85) < 0.01);
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
  const hostile = [
    ['PBKDF2-SHA1 10,000,000 iterations, 1024-byte hash (~50 s)', pbkdf2String('sha1', 10000000, 1024), 'work'],
    ['PBKDF2-SHA1 110,000 iterations, 1024-byte hash', pbkdf2String('sha1', 110000, 1024), 'work'],
    ['PBKDF2-SHA256 10,000,000 iterations, 32 bytes', pbkdf2String('sha256', 10000000, 32), 'work'],
    ['PBKDF2-SHA512 10,000,000 iterations, 1024 bytes', pbkdf2String('sha512', 10000000, 1024), 'work'],
    ['scrypt ln=1,r=16384,p=16, 1024-byte hash (4 MiB counted, ~1 s)', scryptString(1, 16384, 16, 1024), 'work'],
    ['scrypt ln=1,r=1048576,p=15 (counted 256 MiB, allocates 2.4 GiB)', scryptString(1, 1048576, 15, 32), 'memory'],
    ['scrypt ln=18,r=8,p=2', scryptString(18, 8, 2), 'work'],
    ['argon2id m=262144,t=12,p=1', argon2String(262144, 12, 1), 'work'],
    ['bcrypt cost 14', bcryptString(14), 'work'],
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

  test('the most expensive strings each family may still use are accepted, and one step more is not', async () => {
    const pairs = [
      [pbkdf2String('sha1', 100000, 1024), pbkdf2String('sha1', 101000, 1024)],
      [pbkdf2String('sha256', 5200000, 32), pbkdf2String('sha256', 5300000, 32)],
      [scryptString(1, 7900, 16, 1024), scryptString(1, 8200, 16, 1024)],
      [scryptString(17, 8, 3, 1024), scryptString(17, 8, 4, 32)],
      [argon2String(262144, 11, 1, 1024), argon2String(262144, 12, 1, 1024)],
      [bcryptString(13), bcryptString(14)],
    ];
    for (const [at, over] of pairs) {
      assert.equal(await verifyVerdict(at), 'accepted', at.slice(0, 40));
      assert.equal(await verifyVerdict(over), 'work', over.slice(0, 40));
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
      assert.equal(await verifyVerdict(argon2String(8192, 1, 1), undefined, pool), 'accepted');
      assert.equal(await verifyVerdict(argon2String(8193, 1, 1), { argon2Memory: 8193 }, pool), 'accepted'); // m' = 8192
    } finally {
      await pool.close();
    }
  });

  test('work and memory are raised or lowered per pool and per call', async () => {
    assert.equal(await verifyVerdict(bcryptString(14), { work: 820 }), 'accepted');
    assert.equal(await verifyVerdict(bcryptString(10), { work: 51 }), 'work');
    assert.equal(await verifyVerdict(argon2String(19456, 2, 1), { memory: 19456 * 1024 - 1 }), 'memory');
    const pool = kdf.createPool({ threads: 1, hashLimits: { work: 100 } });
    try {
      assert.equal(await verifyVerdict(bcryptString(11), undefined, pool), 'work');
      assert.equal(await verifyVerdict(bcryptString(11), { work: 103 }, pool), 'accepted');
    } finally {
      await pool.close();
    }
    await assert.rejects(kdf.verify(bcryptString(4), 'pw', { limits: { work: 0 } }), { code: 'ERR_OUT_OF_RANGE' });
    await assert.rejects(kdf.verify(bcryptString(4), 'pw', { limits: { memory: 1.5 } }), { code: 'ERR_OUT_OF_RANGE' });
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

  test('nothing accepted costs more than ~3x the most expensive recommended setting', () => {
    const shapes = [
      { kind: 'scrypt', N: 2 ** 17, r: 8, p: 1, saltBytes: 16, hashBytes: 32 },
      { kind: 'bcrypt', cost: 12 },
      { kind: 'pbkdf2', digest: 'sha1', iterations: 1300000, saltBytes: 16, hashBytes: 20 },
      { kind: 'argon2', memory: 65536, passes: 3, lanes: 4, saltBytes: 16, hashBytes: 32 },
    ];
    const top = Math.max(...shapes.map((s) => estimateCost(s).work));
    assert.ok(top > 200 && top < 230, `most expensive recommended: ${top}`);
    assert.ok(DEFAULT_LIMITS.work <= 3 * top, `${DEFAULT_LIMITS.work} vs 3 x ${top}`);
    for (const s of shapes) assert.ok(estimateCost(s).work <= DEFAULT_LIMITS.work);
  });
});

describe('hash() never writes what verify() would refuse', () => {
  test('memory 300000 KiB and bcrypt cost 17 are refused by hash() with verify\'s limit names', async () => {
    const before = kdf.stats().submitted;
    await assert.rejects(kdf.hash('pw', { memory: 300000 }), LIMIT('argon2Memory'));
    await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', cost: 17 }), LIMIT('bcryptCost'));
    await assert.rejects(kdf.hash('pw', { algorithm: 'bcrypt', cost: 14 }), (err) => {
      assert.equal(err.limit, 'work');
      assert.match(err.message, /^hash\(\)'s parameters ask for bcrypt cost 14: an estimated 820 work units, over the limit work = 600/);
      return true;
    });
    await assert.rejects(kdf.hash('pw', { algorithm: 'scrypt', ln: 18, r: 8, p: 2 }), LIMIT('work'));
    await assert.rejects(kdf.hash('pw', { algorithm: 'scrypt', ln: 9, r: 4096, p: 1 }), LIMIT('memory'));
    assert.equal(kdf.stats().submitted, before);
    // Raised per call, the same call goes through.
    assert.equal(await hashVerdict({ memory: 300000, limits: { argon2Memory: 300000, memory: 2 ** 29 } }), 'accepted');
    assert.equal(await hashVerdict({ algorithm: 'bcrypt', cost: 14, limits: { work: 820 } }), 'accepted');
  });

  test("a pool's hashLimits and memory budget apply to its hash()", async () => {
    const pool = kdf.createPool({ threads: 1, maxMemory: 4 * 1024 * 1024, hashLimits: { argon2Passes: 2, work: 30 } });
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
