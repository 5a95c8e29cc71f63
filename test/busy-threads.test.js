'use strict';

// stats() tells jobs from threads: `running` counts jobs (each job of a
// batch: PBKDF2, scrypt and bcrypt jobs that queue together run as
// interleaved lanes on one thread), `busyThreads` the threads running a
// job or a batch, never more than `threads`. The Prometheus gauge
// kdfpool_threads_busy reads the latter.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

// Queues `n` jobs of `submit` behind a gate on a one-thread pool, then
// releases it: the thread takes them as one batch. Returns the stats seen
// while the batch runs, and waits for the jobs.
async function batchOf(n, submit) {
  const pool = kdf.createPool({ name: 'busy', threads: 1 });
  try {
    const held = gate(pool);
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    assert.deepEqual([pool.stats().running, pool.stats().busyThreads], [1, 1]);
    const jobs = Array.from({ length: n }, (_, i) => submit(pool, i));
    await until(() => pool.stats().queued === n, 'the jobs to queue');
    held.release();
    await held.done;
    let seen;
    await until(() => {
      const s = pool.stats();
      if (s.running > 1) seen = s;
      return seen !== undefined || s.completed > 1;
    }, 'the batch to start');
    await Promise.all(jobs);
    const after = pool.stats();
    assert.deepEqual([after.running, after.busyThreads], [0, 0]);
    return { seen, after };
  } finally {
    await pool.close();
  }
}

test('bcrypt jobs of one cost run as one batch: running counts jobs, busyThreads the one thread', async () => {
  const { seen, after } = await batchOf(4, (pool) => pool.hash('pw', { algorithm: 'bcrypt', cost: 12 }));
  assert.ok(seen !== undefined, 'the batch was seen running (bcrypt cost 12 takes ~0.2 s)');
  assert.equal(seen.threads, 1);
  assert.equal(seen.busyThreads, 1);
  assert.ok(seen.running > seen.threads, `running ${seen.running} jobs on ${seen.threads} thread`);
  assert.ok(after.batched >= 1);
});

test('idle and busy: busyThreads follows the threads, never above threads', async () => {
  const pool = kdf.createPool({ name: 'busy2', threads: 2 });
  try {
    assert.equal(pool.stats().busyThreads, 0);
    const a = gate(pool);
    await until(() => pool.stats().busyThreads === 1, 'one thread held');
    const b = gate(pool);
    await until(() => pool.stats().busyThreads === 2, 'two threads held');
    const c = gate(pool); // waits: no thread left
    await until(() => pool.stats().queued === 1, 'the third gate to queue');
    assert.deepEqual([pool.stats().running, pool.stats().busyThreads], [2, 2]);
    a.release();
    await until(() => pool.stats().queued === 0, 'the third gate to start');
    b.release();
    c.release();
    await Promise.all([a.done, b.done, c.done]);
    assert.deepEqual([pool.stats().running, pool.stats().busyThreads], [0, 0]);
  } finally {
    await pool.close();
  }
});
