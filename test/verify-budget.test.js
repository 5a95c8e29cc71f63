'use strict';

// verify() and hash() refuse, before queueing, a job the pool's memory
// budget cannot hold, counting what the pool will really reserve: the
// job's scratch memory plus its output (test/output-budget.test.js shows
// the pool charging both). A check on the scratch alone let a stored hash
// whose memory just fits the budget through to submit, where the pool
// refused it with MemoryLimitError instead of HashLimitError.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');

const MiB = 1024 * 1024;
const b64 = (buf) => buf.toString('base64').replace(/=+$/, '');
const SALT16 = b64(Buffer.alloc(16, 0x53));
const hashField = (bytes) => b64(Buffer.alloc(bytes, 0x41));

function maxMemoryRefusal(memoryNeeded, budget) {
  return (err) => {
    assert.equal(err.name, 'HashLimitError', String(err));
    assert.equal(err.code, 'ERR_KDF_HASH_LIMIT');
    assert.equal(err.limit, 'maxMemory');
    assert.equal(err.memoryNeeded, memoryNeeded);
    assert.equal(err.value, memoryNeeded);
    assert.equal(err.maxMemory, budget);
    assert.equal(err.max, budget);
    return true;
  };
}

test('a stored argon2 hash whose memory fills the budget, output beside it, is refused before queueing', async () => {
  const budget = 8 * MiB;
  const pool = kdf.createPool({ threads: 1, maxMemory: budget, name: 'vb.a2' });
  try {
    // m = 8192 KiB is the whole budget; the 32-byte output does not fit beside it.
    const stored = `$argon2id$v=19$m=8192,t=1,p=1$${SALT16}$${hashField(32)}`;
    const before = pool.stats();
    await assert.rejects(pool.verify(stored, 'pw'), maxMemoryRefusal(budget + 32, budget));
    assert.throws(() => pool.verifySync(stored, 'pw'), maxMemoryRefusal(budget + 32, budget));
    // hash() with the same parameters is refused the same way.
    await assert.rejects(pool.hash('pw', { memory: 8192, passes: 1 }), maxMemoryRefusal(budget + 32, budget));
    const after = pool.stats();
    assert.equal(after.submitted, before.submitted, 'nothing was queued');
    assert.equal(after.rejected, before.rejected, 'nothing reached the pool to be refused there');
    // 4 KiB less scratch (m' = 8188) leaves room for the output: it runs.
    const fits = await pool.hash('pw', { memory: 8188, passes: 1 });
    assert.equal(await pool.verify(fits, 'pw'), true);
  } finally {
    await pool.close();
  }
});

test('the output counts for scrypt and for a long hash field too', async () => {
  // scrypt N = 2^10, r = 8, p = 1 reserves 128*r*(N+p+2) bytes of scratch.
  const scratch = 128 * 8 * (1024 + 1 + 2);
  const budget = scratch + 64;
  const pool = kdf.createPool({ threads: 1, maxMemory: budget, name: 'vb.sc' });
  try {
    const h64 = await pool.hash('pw', { algorithm: 'scrypt', ln: 10, r: 8, p: 1, tagLength: 64 });
    assert.equal(await pool.verify(h64, 'pw'), true); // scratch + 64 fits exactly
    const stored = `$scrypt$ln=10,r=8,p=1$${SALT16}$${hashField(65)}`;
    await assert.rejects(pool.verify(stored, 'pw'), maxMemoryRefusal(scratch + 65, budget));
    await assert.rejects(pool.hash('pw', { algorithm: 'scrypt', ln: 10, r: 8, p: 1, tagLength: 65 }),
      maxMemoryRefusal(scratch + 65, budget));
  } finally {
    await pool.close();
  }
});
