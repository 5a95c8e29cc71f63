'use strict';

// Wake-ups: whatever lets the head of the queue start, or changes which job
// is the head, must wake an idle worker. Each test keeps a long job running
// that holds part of the memory budget, puts a job that does not fit at the
// head, and a 1-iteration PBKDF2 behind it; then removes the head. Without
// the wake-up the PBKDF2 can only start once the long job has ended, so the
// tests assert the order of the two, not a duration.

const test = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');
const { until } = require('./helpers/until');

const MiB = 1024 * 1024;
// scrypt 128·N·r: 32 MiB, held while it runs (p rounds: about a second here).
const LONG_SCRYPT = { N: 2 ** 15, r: 8, p: 8, maxmem: 256 * MiB };
// 72 MiB: with the long job's 32 MiB it does not fit a 100 MiB budget.
const BIG_SCRYPT = { N: 2 ** 16, r: 9, p: 1, maxmem: 256 * MiB };

// Not an assertion: lets the idle worker look at the head and sleep again
// (sooner, these tests could only pass on broken code, never fail).
const settle = () => new Promise((r) => setTimeout(r, 50));

function tracked(promise) {
  const t = { settled: false, promise };
  promise.then(() => { t.settled = true; }, () => { t.settled = true; });
  return t;
}

test('aborting the head wakes an idle worker for the job behind it', async () => {
  const pool = kdf.createPool({ threads: 2, maxMemory: 100 * MiB, name: 'wake1' });
  const long = tracked(pool.scrypt('long', 'salt', 32, LONG_SCRYPT));
  const ac = new AbortController();
  const head = pool.scrypt('big', 'salt', 32, { ...BIG_SCRYPT, signal: ac.signal });
  const small = pool.pbkdf2('small', 'salt', 1, 32, 'sha256');
  await until(() => pool.stats().running === 1, 'the long job to start');
  await settle();
  assert.equal(pool.stats().queued, 2);
  ac.abort();
  await assert.rejects(head, { name: 'AbortError' });
  await small;
  assert.equal(long.settled, false, 'the job behind the aborted head waited for the long job');
  await long.promise;
  const s = pool.stats();
  assert.equal(s.cancelled, 1);
  assert.equal(s.completed, 2);
  await pool.close();
});

test('a terminated worker_thread\'s queued head does not leave the next job waiting', async () => {
  const { Worker } = require('node:worker_threads');
  kdf.configure({ threads: 2, maxMemory: 100 * MiB });
  const long = tracked(kdf.scrypt('long', 'salt', 32, LONG_SCRYPT));
  const w = new Worker(`
    const { parentPort } = require('node:worker_threads');
    const kdf = require(${JSON.stringify(require.resolve('..'))});
    kdf.scrypt('big', 'salt', 32, ${JSON.stringify(BIG_SCRYPT)}).catch(() => {});
    parentPort.postMessage('queued');
  `, { eval: true });
  await new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  const small = kdf.pbkdf2('small', 'salt', 1, 32, 'sha256');
  await until(() => kdf.stats().running === 1, 'the long job to start');
  await settle();
  assert.equal(kdf.stats().queued, 2);
  await w.terminate(); // its queued job is cancelled with the environment
  await small;
  assert.equal(long.settled, false, 'the job behind the cancelled head waited for the long job');
  await long.promise;
  assert.equal(kdf.stats().cancelled, 1);
});
