'use strict';

// PBKDF2 batches: jobs of one SHA-family digest that queue together run as
// interleaved chains on one thread (lane kernels of the SHA layer). Checked
// here: keys byte-identical to node:crypto across random batch mixes
// (digests, iteration counts, key lengths, aborts mid-batch) under every
// SHA variant this CPU has (native.testing.forceVariant('sha', ...)), and that
// batches really formed (stats().batched). The forced variant is
// process-wide; node --test runs this file in a process of its own.

const { prng, SEED } = require('./helpers/prng');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const native = require('../lib/native');

const DIGESTS = ['sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512-224', 'sha512-256'];
const VARIANTS = ['portable', 'bmi2', 'avx2', 'avx512', 'shani', 'shani-avx512', 'armce', 'armce-sha512'];

function randomBytes(rand, max) {
  const b = Buffer.alloc(Math.floor(rand() * (max + 1)));
  for (let i = 0; i < b.length; i++) b[i] = Math.floor(rand() * 256);
  return b;
}

// One random mix on a 1-thread pool: returns how many jobs ran batched.
async function mix(rand, { digests, count, aborts }) {
  const pool = kdf.createPool({ threads: 1, maxQueue: 256, name: 'batch' });
  try {
    // The pool's one thread is held while the jobs queue, so that they
    // queue together and form batches.
    const held = gate(pool);
    const jobs = [];
    for (let i = 0; i < count; i++) {
      const digest = digests[Math.floor(rand() * digests.length)];
      const args = [
        randomBytes(rand, 150),
        randomBytes(rand, 40),
        1 + Math.floor(rand() * (rand() < 0.2 ? 20000 : 400)),
        // From 1: node 22+ refuses an empty key (and so do we there, as
        // node does); test/output-budget.test.js covers that case.
        1 + Math.floor(rand() * 150),
        digest,
      ];
      const ac = aborts && rand() < 0.25 ? new AbortController() : null;
      const promise = pool.pbkdf2(...args, ac ? { signal: ac.signal } : undefined);
      jobs.push({ args, ac, promise, abortAfter: Math.floor(rand() * 8) });
    }
    await until(() => pool.stats().submitted === count + 1, 'every job queued behind the gate');
    // Aborts land while jobs wait (the gate opens at 3 ms) or while their batch runs.
    for (const j of jobs) if (j.ac) setTimeout(() => j.ac.abort(), j.abortAfter);
    setTimeout(() => held.release(), 3);
    const settled = await Promise.allSettled(jobs.map((j) => j.promise));
    assert.equal(await held.done, undefined);
    settled.forEach((s, i) => {
      const { args, ac } = jobs[i];
      const want = crypto.pbkdf2Sync(...args);
      if (s.status === 'fulfilled') {
        assert.ok(s.value.equals(want), `seed ${SEED}: job ${i} ${JSON.stringify(args.slice(2))}`);
      } else {
        // Only an aborted call may fail, and only as an abort.
        assert.ok(ac !== null, `seed ${SEED}: job ${i} failed: ${s.reason}`);
        assert.equal(s.reason.name, 'AbortError');
      }
    });
    // A job aborted while its batch ran is rejected at once but keeps its
    // thread until it ends, unheard: the counts add up once it has.
    await until(() => pool.stats().running === 0, 'aborted jobs still running to end');
    const stats = pool.stats();
    assert.equal(stats.submitted, stats.completed + stats.failed + stats.cancelled + stats.shed);
    return stats.batched;
  } finally {
    await pool.close();
  }
}

describe('PBKDF2 batches', () => {
  after(() => native.testing.forceVariant('sha', 'auto'));

  it('unknown SHA variants are refused; portable is always there', () => {
    assert.equal(native.testing.forceVariant('sha', 'no-such-variant'), false);
    assert.equal(native.testing.forceVariant('sha', 'portable'), true);
    assert.equal(native.testing.forceVariant('sha', 'auto'), true);
  });

  const available = VARIANTS.filter((v) => native.testing.forceVariant('sha', v));
  native.testing.forceVariant('sha', 'auto');
  if (process.arch === 'x64') assert.ok(available.includes('bmi2') || available.length === 1);

  for (const variant of available) {
    it(`[${variant}] random mixes of digests, iterations, key lengths, aborts = node:crypto`, async () => {
      assert.equal(native.testing.forceVariant('sha', variant), true);
      const rand = prng(SEED ^ variant.length);
      let batched = 0;
      for (let round = 0; round < 3; round++) {
        batched += await mix(rand, { digests: DIGESTS, count: 40, aborts: round > 0 });
      }
      // One digest, many jobs: where this variant interleaves more than
      // one chain for it, batches must have formed.
      const single = await mix(rand, { digests: ['sha256'], count: 12, aborts: false });
      const wide512 = await mix(rand, { digests: ['sha512'], count: 12, aborts: false });
      if (variant.startsWith('shani')) assert.ok(single > 0, 'SHA-256 jobs were never batched');
      if (['avx2', 'avx512', 'shani', 'shani-avx512'].includes(variant)) {
        assert.ok(wide512 > 0, 'SHA-512 jobs were never batched');
      }
      if (variant === 'portable') assert.equal(batched + single + wide512, 0, 'portable gains nothing from batches');
      native.testing.forceVariant('sha', 'auto');
    });
  }

  // A batch serves its riders out of order, so it must end when its head
  // does (sched_may_ride): a rider costlier than the head would hold the
  // thread past the one job a call placed before the riders waits for.
  it('a rider is never costlier than its head: a cheap head runs alone, the costly ones batch', async () => {
    const pool = kdf.createPool({ threads: 1, maxQueue: 16, name: 'riders' });
    try {
      const held = gate(pool);
      const cheap = pool.pbkdf2('pw', 'salt', 1000, 32, 'sha256');
      const costly = [1, 2, 3].map((i) => pool.pbkdf2(`pw${i}`, 'salt', 100000, 32, 'sha256'));
      await until(() => pool.stats().submitted === 5, 'every job queued behind the gate');
      held.release();
      const order = [];
      await Promise.all([cheap, ...costly].map((p, i) => p.then(() => order.push(i))));
      assert.equal(await held.done, undefined);
      const lanes = pool.stats().batched;
      if (lanes === 0) return; // this variant runs SHA-256 one chain at a time
      assert.equal(order[0], 0, 'the cheap head ended first, alone');
      assert.equal(lanes, 2, 'the three costly jobs ran as one batch: a head and two riders');
    } finally {
      await pool.close();
    }
  });

  it('multi-block keys (the blocks of one key interleave) match node for every digest', async () => {
    for (const digest of DIGESTS) {
      for (const keylen of [1, 64, 65, 200, 1000]) {
        const key = await kdf.pbkdf2('password', 'salt', 1000, keylen, digest);
        assert.ok(key.equals(crypto.pbkdf2Sync('password', 'salt', 1000, keylen, digest)), `${digest} ${keylen}`);
      }
    }
  });
});
