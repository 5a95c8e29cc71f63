'use strict';

// The memory budget covers all scratch memory the pool holds: the arenas
// that idle workers keep between jobs as well as the reservations of the
// jobs that run. Sampled through stats() while mixed memory-hard jobs run.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { scaled } = require('./helpers/scale');

const MiB = 1024 * 1024;
const MAX_MEMORY = 80 * MiB;

function mixedJob(pool, i) {
  const pw = `pw${i}`;
  switch (i % 6) {
    case 0: return pool.scrypt(pw, 'salt', 32, { N: 2 ** 14, r: 8, maxmem: 128 * MiB }); // 16 MiB
    case 1: return pool.scrypt(pw, 'salt', 32, { N: 2 ** 15, r: 8, maxmem: 128 * MiB }); // 32 MiB
    case 2: return pool.scrypt(pw, 'salt', 32, { N: 2 ** 16, r: 8, maxmem: 128 * MiB }); // 64 MiB
    default: {
      const memory = [8192, 24576, 49152][i % 3]; // KiB: 8, 24, 48 MiB
      return pool.argon2('argon2id', {
        message: pw, nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory, passes: 1,
      });
    }
  }
}

for (const threads of [2, 3, 4]) {
  test(`${threads} threads: arena bytes never exceed maxMemory while mixed scrypt/argon2 jobs run`, async () => {
    // 'normal': the sampler below must not starve the pool's threads.
    const pool = kdf.createPool({ threads, maxMemory: MAX_MEMORY, maxQueue: 64, priority: 'normal', name: `bud${threads}` });
    const count = scaled(30, 12);
    const jobs = [];
    for (let i = 0; i < count; i++) jobs.push(mixedJob(pool, i));
    let pending = true;
    const all = Promise.all(jobs).finally(() => { pending = false; });
    let highest = 0;
    let samples = 0;
    while (pending) {
      const s = pool.stats();
      samples++;
      highest = Math.max(highest, s.arena.bytes);
      assert.ok(s.arena.bytes <= s.maxMemory, `arena bytes ${s.arena.bytes} > maxMemory ${s.maxMemory}`);
      await new Promise((r) => setTimeout(r, 1));
    }
    await all;
    const s = pool.stats();
    assert.ok(s.arena.bytes <= MAX_MEMORY);
    assert.ok(highest > 0 && samples > 1, 'the sampler saw the arenas');
    assert.equal(s.completed, count);
    assert.equal(s.memoryInUse, 0);
    await pool.close();
  });
}
