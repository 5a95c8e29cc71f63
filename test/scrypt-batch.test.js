'use strict';

// scrypt batches: scrypt jobs of one N, r and p that queue together run
// their ROMix as interleaved lanes on one thread (kdf_scrypt_lanes), each
// lane in its own part of one arena that the pool reserves for the whole
// batch when its budget has room. Checked here: keys byte-identical to
// node:crypto across random batch mixes (passwords, salts, key lengths,
// a few N/r/p, aborts) under every scrypt variant this CPU has
// (native.testing.forceVariant('scrypt', ...)), that batches really formed
// (stats().batched), and that the memory budget holds while they run.
// The forced variant is process-wide; node --test runs this file in a
// process of its own.

const { prng, SEED } = require('./helpers/prng');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const native = require('../lib/native');

const MiB = 1024 * 1024;
const VARIANTS = ['portable', 'sse2', 'avx2', 'avx512', 'neon'];
// Variants with a lane kernel: their jobs must batch.
const WIDE = ['sse2', 'avx2', 'avx512'];
const PARAMS = [
  { N: 1024, r: 8, p: 1 },
  { N: 512, r: 4, p: 2 },
  { N: 256, r: 1, p: 3 },
];

function randomBytes(rand, max) {
  const b = Buffer.alloc(Math.floor(rand() * (max + 1)));
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

// Runs `count` random jobs behind a gate (it holds the pool's one thread
// while they queue, so that they form batches) on a one-thread pool; every key
// must be node's (aborted jobs may only fail with AbortError). Returns
// stats().batched.
async function mix(rand, { count, aborts, name }) {
  const pool = kdf.createPool({ threads: 1, maxQueue: 256, name });
  try {
    const held = gate(pool);
    const jobs = [];
    for (let i = 0; i < count; i++) {
      const password = randomBytes(rand, 40);
      const salt = randomBytes(rand, 40);
      const keylen = [1, 16, 32, 64, 65, 100][Math.floor(rand() * 6)];
      // Mostly the first parameters, so batches of several lanes form.
      const params = PARAMS[rand() < 0.6 ? 0 : 1 + Math.floor(rand() * 2)];
      const ac = aborts && rand() < 0.15 ? new AbortController() : null;
      const options = ac ? { ...params, signal: ac.signal } : params;
      jobs.push({ password, salt, keylen, params, ac, abortAfter: Math.floor(rand() * 8),
        promise: pool.scrypt(password, salt, keylen, options) });
    }
    await until(() => pool.stats().submitted === count + 1, 'every job queued behind the gate');
    // Aborts land while jobs wait (the gate opens at 3 ms) or while their batch runs.
    for (const j of jobs) if (j.ac) setTimeout(() => j.ac.abort(), j.abortAfter);
    setTimeout(() => held.release(), 3);
    const settled = await Promise.allSettled(jobs.map((j) => j.promise));
    assert.equal(await held.done, undefined);
    for (const [i, s] of settled.entries()) {
      const j = jobs[i];
      if (s.status === 'rejected') {
        assert.ok(j.ac, `job ${i} failed without an abort: ${s.reason && s.reason.stack}`);
        assert.equal(s.reason.name, 'AbortError');
        continue;
      }
      const want = crypto.scryptSync(j.password, j.salt, j.keylen, j.params);
      assert.ok(s.value.equals(want), `job ${i}: ${JSON.stringify(j.params)} keylen ${j.keylen}`);
    }
    const st = pool.stats();
    assert.equal(st.submitted, st.completed + st.failed + st.cancelled + st.shed);
    return st.batched;
  } finally {
    await pool.close();
  }
}

describe('scrypt batches', () => {
  after(() => native.testing.forceVariant('scrypt', 'auto'));

  it('unknown scrypt variants are refused; portable is always there', () => {
    assert.equal(native.testing.forceVariant('scrypt', 'no-such-variant'), false);
    assert.equal(native.testing.forceVariant('scrypt', 'portable'), true);
    assert.equal(native.testing.forceVariant('scrypt', 'auto'), true);
  });

  const available = VARIANTS.filter((v) => native.testing.forceVariant('scrypt', v));
  native.testing.forceVariant('scrypt', 'auto');
  if (process.arch === 'x64') assert.ok(available.includes('sse2'));

  for (const variant of available) {
    it(`[${variant}] random mixes of passwords, salts, key lengths, N/r/p, aborts = node:crypto`, async () => {
      assert.equal(native.testing.forceVariant('scrypt', variant), true);
      const rand = prng(SEED ^ (variant.length * 7919));
      let batched = 0;
      for (let round = 0; round < 2; round++) {
        batched += await mix(rand, { count: 24, aborts: round > 0, name: `scb${round}` });
      }
      if (WIDE.includes(variant)) assert.ok(batched > 0, 'scrypt jobs were never batched');
      else assert.equal(batched, 0, `${variant} has no lane kernel: nothing gains from batches`);
      native.testing.forceVariant('scrypt', 'auto');
    });
  }

  // N = 2^14, r = 8: 16 MiB + 3 KiB per job, an 18 MiB arena alone (2 MiB
  // multiples), 34 MiB for two lanes, 50 for three, each key (64 B) charged
  // beside its arena: under 42 MiB a batch of two fits beside the other
  // thread's idle arena (4 or 6 MiB) and the keys, under 20 MiB no partner
  // ever does.
  const big = { N: 1 << 14, r: 8, p: 1 };

  // Two threads, each first held by a small job (N = 2^12: a 6 or 4 MiB
  // arena, a few ms) so that the jobs queue before either thread is free: were
  // the first two to start alone, two lone jobs (36 MiB) would leave no
  // room for a second lane anywhere.
  async function underBudget(maxMemory, count) {
    const pool = kdf.createPool({ threads: 2, maxQueue: 64, maxMemory, name: 'scbm' });
    try {
      let done = false;
      let maxInUse = 0;
      let maxArena = 0;
      // r 8 and 7: they must not batch with each other.
      const small = [8, 7].map((r) => pool.scrypt('small', 'salt', 16, { N: 1 << 12, r, p: 1 }));
      const promises = Array.from({ length: count }, (_, i) => pool.scrypt(`pw${i}`, 'salt', 64, big));
      await Promise.all(small);
      const all = Promise.all(promises).finally(() => { done = true; });
      await new Promise((resolve) => {
        (function sample() {
          const s = pool.stats();
          maxInUse = Math.max(maxInUse, s.memoryInUse);
          maxArena = Math.max(maxArena, s.arena.bytes);
          if (done) resolve();
          else setImmediate(sample);
        })();
      });
      const keys = await all;
      keys.forEach((key, i) => assert.ok(key.equals(crypto.scryptSync(`pw${i}`, 'salt', 64, big)), `job ${i}`));
      assert.ok(maxInUse > 0, 'stats() was sampled while jobs ran');
      assert.ok(maxInUse <= maxMemory, `memoryInUse reached ${maxInUse} > ${maxMemory}`);
      assert.ok(maxArena <= maxMemory, `arena bytes reached ${maxArena} > ${maxMemory}`);
      const st = pool.stats();
      assert.equal(st.memoryInUse, 0);
      return st.batched;
    } finally {
      await pool.close();
    }
  }

  it('a 42 MiB budget: batches of two lanes form, memoryInUse and arenas stay within it', async () => {
    assert.equal(native.testing.forceVariant('scrypt', 'auto'), true);
    const batched = await underBudget(42 * MiB, 8);
    if (available.some((v) => WIDE.includes(v))) assert.ok(batched > 0, 'no batch formed although two lanes fit');
  });

  it('a 20 MiB budget: no partner fits, every job runs alone and correctly', async () => {
    assert.equal(await underBudget(20 * MiB, 5), 0);
  });
});
