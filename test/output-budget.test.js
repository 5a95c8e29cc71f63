'use strict';

// A job's output counts in its pool's memory budget, like its scratch
// memory: a queued job holds only its inputs, the output is allocated when
// the job starts (reserving scratch + output), and a job whose needs alone
// exceed the budget is refused at submit with MemoryLimitError.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');

const kdf = require('..');

const MiB = 1024 * 1024;

test('a key larger than the pool budget is refused at submit with MemoryLimitError', async () => {
  const pool = kdf.createPool({ threads: 1, maxMemory: MiB });
  try {
    await assert.rejects(pool.pbkdf2('pw', 'salt', 1, 2 * MiB, 'sha256'), (err) => {
      assert.ok(err instanceof kdf.MemoryLimitError, String(err));
      assert.equal(err.code, 'ERR_KDF_MEMORY_LIMIT');
      return true;
    });
    // Nothing was reserved or is left running.
    const s = pool.stats();
    assert.equal(s.memoryInUse, 0);
    // A key that fits is derived as before.
    const key = await pool.pbkdf2('pw', 'salt', 1, MiB / 2, 'sha256');
    assert.deepEqual(key, crypto.pbkdf2Sync('pw', 'salt', 1, MiB / 2, 'sha256'));
  } finally {
    await pool.close();
  }
});

test('a huge keylen (2 GiB - 1) on a small pool is refused before anything is allocated', async () => {
  const pool = kdf.createPool({ threads: 1, maxMemory: 64 * MiB });
  try {
    const before = process.memoryUsage().rss;
    await assert.rejects(pool.pbkdf2('pw', 'salt', 1, 2 ** 31 - 1, 'sha512'), kdf.MemoryLimitError);
    await assert.rejects(pool.scrypt('pw', 'salt', 2 ** 31 - 1, { N: 2, r: 1, p: 1 }), kdf.MemoryLimitError);
    assert.ok(process.memoryUsage().rss - before < 256 * MiB);
  } finally {
    await pool.close();
  }
});

test('scrypt reserves its scratch memory plus its output', async () => {
  // N = 2^10, r = 8, p = 1: 128 * r * (N + p + 2) bytes of scratch.
  const scratch = 128 * 8 * (1024 + 1 + 2);
  const pool = kdf.createPool({ threads: 1, maxMemory: scratch + 64 });
  try {
    const opts = { N: 1024, r: 8, p: 1 };
    const key = await pool.scrypt('pw', 'salt', 64, opts);
    assert.deepEqual(key, crypto.scryptSync('pw', 'salt', 64, opts));
    await assert.rejects(pool.scrypt('pw', 'salt', 65, opts), kdf.MemoryLimitError);
  } finally {
    await pool.close();
  }
});

test('results of the default pool are unchanged', async () => {
  assert.deepEqual(await kdf.pbkdf2('pw', 'salt', 10, 100, 'sha1'), crypto.pbkdf2Sync('pw', 'salt', 10, 100, 'sha1'));
  assert.deepEqual(await kdf.scrypt('pw', 'salt', 33), crypto.scryptSync('pw', 'salt', 33));
  // An empty key: node 20 returns one, node >= 22 fails; kdfpool does as
  // the running node does (lib/host.js), so ask it.
  let nodeEmpty;
  try {
    nodeEmpty = { key: crypto.pbkdf2Sync('pw', 'salt', 10, 0, 'sha256') };
  } catch (err) {
    nodeEmpty = { err };
  }
  if (nodeEmpty.key) {
    assert.deepEqual(kdf.pbkdf2Sync('pw', 'salt', 10, 0, 'sha256'), Buffer.alloc(0));
    assert.deepEqual(await kdf.pbkdf2('pw', 'salt', 10, 0, 'sha256'), Buffer.alloc(0));
  } else {
    const like = { name: nodeEmpty.err.name, message: nodeEmpty.err.message };
    assert.throws(() => kdf.pbkdf2Sync('pw', 'salt', 10, 0, 'sha256'), like);
    await assert.rejects(kdf.pbkdf2('pw', 'salt', 10, 0, 'sha256'), like);
  }
});

test('an output is charged beside the arena, never mapped in it as well', async () => {
  // The budget charges scratch + output once. The output is malloc'ed for
  // the result; an arena mapped for scratch + output would hold the output's
  // bytes a second time, uncharged. After the run the kept arena must be no
  // larger than the scratch rounded to the arena's 2 MiB granule.
  const scratch = 128 * 8 * (1024 + 1 + 2);
  const keylen = 3 * MiB;
  const pool = kdf.createPool({ threads: 1, maxMemory: 64 * MiB });
  try {
    const opts = { N: 1024, r: 8, p: 1 };
    const key = await pool.scrypt('pw', 'salt', keylen, opts);
    assert.deepEqual(key, crypto.scryptSync('pw', 'salt', keylen, opts));
    const { arena } = pool.stats();
    const granule = 2 * MiB;
    assert.equal(arena.bytes, Math.ceil(scratch / granule) * granule);
    assert.ok(arena.bytes < scratch + keylen);
  } finally {
    await pool.close();
  }
});
