'use strict';

// The pool's memory budget for Argon2: jobs reserve memory KiB * 1024 bytes
// before they start, wait (queued) while the budget is taken, and a job
// bigger than the whole budget is refused for good. Per-worker arenas are
// reused between jobs. This file reconfigures the process-wide pool, which
// is fine: node --test runs each file in its own process.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { gate } = require('./helpers/gate');

const MiB = 1024 * 1024;

// Jobs here wait for the budget as long as the machine takes to free it: no
// deadline (the default pool's would shed them on a loaded machine).
kdf.configure({ maxWaitMs: 0 });

function parameters(i, memory) {
  return {
    message: `password ${i}`,
    nonce: Buffer.alloc(16, i),
    parallelism: 1,
    tagLength: 32,
    memory,
    passes: 2,
  };
}

test('eight 32 MiB jobs under a 64 MiB budget run at most two at a time', async () => {
  kdf.configure({ threads: 4, maxMemory: 64 * MiB });
  assert.equal(kdf.stats().maxMemory, 64 * MiB);
  assert.equal(kdf.stats().threads, 4);

  const jobs = Array.from({ length: 8 }, (_, i) => parameters(i, 32768));
  let settled = 0;
  const promises = jobs.map((p) => kdf.argon2('argon2id', p).finally(() => { settled++; }));

  let samples = 0;
  let maxRunning = 0;
  let maxMemoryInUse = 0;
  let sawQueued = false;
  await new Promise((resolve) => {
    (function sample() {
      const s = kdf.stats();
      samples++;
      maxRunning = Math.max(maxRunning, s.running);
      maxMemoryInUse = Math.max(maxMemoryInUse, s.memoryInUse);
      if (s.queued > 0) sawQueued = true;
      if (settled === jobs.length) resolve();
      else setImmediate(sample);
    })();
  });

  const keys = await Promise.all(promises);
  assert.ok(samples > 1, 'stats() was sampled while the jobs ran');
  assert.ok(maxRunning <= 2, `running reached ${maxRunning}`);
  assert.ok(maxRunning >= 1);
  assert.ok(maxMemoryInUse <= 64 * MiB, `memoryInUse reached ${maxMemoryInUse}`);
  assert.ok(sawQueued, 'jobs waited for memory in the queue');
  keys.forEach((key, i) => assert.deepEqual(key, kdf.argon2Sync('argon2id', jobs[i]), `job ${i}`));

  const after = kdf.stats();
  assert.equal(after.running, 0);
  assert.equal(after.queued, 0);
  assert.equal(after.memoryInUse, 0);
});

test('a job bigger than the whole budget is refused, not retryable (promise)', async () => {
  kdf.configure({ threads: 4, maxMemory: 64 * MiB });
  await assert.rejects(kdf.argon2('argon2id', parameters(1, 131072)), (err) => {
    assert.ok(err instanceof kdf.MemoryLimitError);
    assert.equal(err.name, 'MemoryLimitError');
    assert.equal(err.code, 'ERR_KDF_MEMORY_LIMIT');
    assert.equal(err.retryable, false);
    return true;
  });
  assert.equal(kdf.stats().memoryInUse, 0);
});

test('a job bigger than the whole budget is refused, not retryable (callback)', async () => {
  kdf.configure({ threads: 4, maxMemory: 64 * MiB });
  const err = await new Promise((resolve, reject) => {
    const r = kdf.argon2('argon2id', parameters(2, 131072), (e, key) => {
      if (e) resolve(e);
      else reject(new Error(`expected an error, got ${key && key.length} bytes`));
    });
    assert.equal(r, undefined);
  });
  assert.ok(err instanceof kdf.MemoryLimitError);
  assert.equal(err.code, 'ERR_KDF_MEMORY_LIMIT');
  assert.equal(err.retryable, false);
});

test('a job that just fits the budget runs (its memory and its output count)', async () => {
  const p = parameters(3, 65536);
  kdf.configure({ threads: 4, maxMemory: 64 * MiB + p.tagLength });
  assert.deepEqual(await kdf.argon2('argon2id', p), kdf.argon2Sync('argon2id', p));
  kdf.configure({ maxMemory: 64 * MiB + p.tagLength - 1 });
  await assert.rejects(kdf.argon2('argon2id', p), kdf.MemoryLimitError);
  kdf.configure({ maxMemory: 64 * MiB });
});

test('the worker arena is reused between jobs of the same size', async () => {
  kdf.configure({ threads: 1, maxMemory: 64 * MiB });
  // An odd size no earlier test used, so the first job may have to map.
  const p = parameters(4, 12345);
  const before = kdf.stats().arena.maps;
  await kdf.argon2('argon2id', p);
  const afterFirst = kdf.stats().arena.maps;
  await kdf.argon2('argon2id', { ...p, message: 'another password' });
  const afterSecond = kdf.stats().arena.maps;
  assert.ok(afterFirst - before <= 1, `first job mapped ${afterFirst - before} times`);
  assert.equal(afterSecond, afterFirst, 'second job of the same size mapped again');
  assert.ok(kdf.stats().arena.bytes >= 12344 * 1024);
});

test('MemoryLimitError carries memoryNeeded and maxMemory, and hints at KiB', async () => {
  kdf.configure({ threads: 2, maxMemory: 64 * MiB });
  // A KDF call: Argon2 memory given in bytes by mistake (64 MiB = 67108864).
  await assert.rejects(kdf.argon2('argon2id', parameters(5, 64 * MiB)), (err) => {
    assert.ok(err instanceof kdf.MemoryLimitError);
    assert.equal(err.memoryNeeded, 64 * MiB * 1024 + 32); // the memory and the output beside it
    assert.equal(err.maxMemory, 64 * MiB);
    assert.match(err.message, new RegExp(`${64 * MiB * 1024 + 32} bytes.*${64 * MiB} bytes`));
    assert.match(err.message, /memory is in KiB.*did you mean 65536\b/);
    return true;
  });
  // Over the budget without looking like bytes: the numbers, no hint.
  await assert.rejects(kdf.argon2('argon2id', parameters(6, 131072)), (err) => {
    assert.equal(err.memoryNeeded, 128 * MiB + 32);
    assert.equal(err.maxMemory, 64 * MiB);
    assert.doesNotMatch(err.message, /KiB/);
    return true;
  });
  // scrypt: 128 * r * (N + p + 2), and the key.
  await assert.rejects(kdf.scrypt('pw', 'salt', 32, { N: 2 ** 17, r: 8, maxmem: 2 ** 30 }), (err) => {
    assert.ok(err instanceof kdf.MemoryLimitError);
    assert.equal(err.memoryNeeded, 128 * 8 * (2 ** 17 + 1 + 2) + 32);
    assert.equal(err.maxMemory, 64 * MiB);
    return true;
  });
  // hash() and verify() refuse such parameters before any work
  // (HashLimitError), with the numbers and the same hint.
  await assert.rejects(kdf.hash('pw', { memory: 64 * MiB, limits: { argon2Memory: 2 ** 32 - 1, memory: 2 ** 50 } }), (err) => {
    assert.equal(err.name, 'HashLimitError');
    assert.equal(err.limit, 'maxMemory');
    assert.equal(err.max, 64 * MiB);
    assert.equal(err.maxMemory, 64 * MiB);
    assert.equal(err.memoryNeeded, 64 * MiB * 1024 + 32);
    assert.match(err.message, /did you mean 65536\b/);
    return true;
  });
  // verify()'s budget check on a stored string: the same numbers.
  const stored = `$argon2id$v=19$m=131072,t=1,p=1$${Buffer.alloc(16).toString('base64').replace(/=+$/, '')}` +
    `$${Buffer.alloc(32).toString('base64').replace(/=+$/, '')}`;
  await assert.rejects(kdf.verify(stored, 'pw'), (err) => {
    assert.equal(err.limit, 'maxMemory');
    assert.equal(err.memoryNeeded, 128 * MiB + 32);
    assert.equal(err.maxMemory, 64 * MiB);
    assert.match(err.message, new RegExp(`${128 * MiB + 32}.*${64 * MiB}`));
    return true;
  });
  await assert.rejects(kdf.hash('pw', { memory: 64 * MiB }), { name: 'HashLimitError', limit: 'argon2Memory', message: /did you mean 65536\b/ });
});

test('a queued job dropped by a smaller budget (configure) carries the numbers too', async () => {
  kdf.configure({ threads: 1, maxMemory: 64 * MiB });
  // Hold the only thread, queue a 32 MiB job, then shrink the budget.
  const holder = gate(kdf);
  const queued = kdf.argon2('argon2id', parameters(7, 32768));
  kdf.configure({ maxMemory: 16 * MiB });
  await assert.rejects(queued, (err) => {
    assert.ok(err instanceof kdf.MemoryLimitError);
    assert.equal(err.memoryNeeded, 32 * MiB + 32);
    assert.equal(err.maxMemory, 16 * MiB);
    return true;
  });
  holder.release();
  assert.equal(await holder.done, undefined);
});
