'use strict';

// The tests' gate (native.testing.gate, test/helpers/gate.js): a job that
// holds a pool thread until the test releases it. It must behave as a job
// (counted, queued behind busy threads, settled once) and never hold up a
// teardown: a pool's close, a worker_thread's end, the process's exit.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

const ROOT = path.join(__dirname, '..');

test('a gate holds its thread until released, then settles with undefined, once', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'gate1' });
  const first = gate(pool);
  const second = gate(pool);
  await until(() => pool.stats().running === 1, 'the first gate to hold the thread');
  const job = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  assert.equal(pool.stats().queued, 2); // the second gate, then the job
  assert.equal(second.release(), true); // opened while queued: it ends as soon as it runs
  assert.equal(first.release(), true);
  assert.deepEqual(await Promise.all([first.done, second.done]), [undefined, undefined]);
  await job;
  assert.equal(first.release(), false); // ended
  const s = pool.stats();
  assert.deepEqual([s.submitted, s.completed, s.failed], [3, 3, 0]);
  await pool.close();
});

test('closing its pool ends a gate, running or queued, with PoolClosedError', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'gate2' });
  const running = gate(pool);
  const queued = gate(pool);
  const outcomes = Promise.all([running.done, queued.done].map((p) => p.then(() => 'released', (err) => err.code)));
  await until(() => pool.stats().running === 1, 'the first gate to hold the thread');
  await pool.close();
  assert.deepEqual(await outcomes, ['ERR_KDF_POOL_CLOSED', 'ERR_KDF_POOL_CLOSED']);
});

test('a gate refused by a full queue rejects like any refused job', async () => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 0, name: 'gate3' });
  const held = gate(pool);
  await assert.rejects(gate(pool).done, { code: 'ERR_KDF_POOL_SATURATED', reason: 'queue_full' });
  held.release();
  assert.equal(await held.done, undefined);
  await pool.close();
});

test('a worker_thread that ends holding a default-pool gate gives the thread back', async () => {
  kdf.configure({ threads: 1 });
  await until(() => kdf.stats().running === 0, 'an idle default pool');
  const w = new Worker(`
    const { parentPort } = require('node:worker_threads');
    const { gate } = require(${JSON.stringify(path.join(__dirname, 'helpers', 'gate'))});
    gate().done.catch(() => {});
    parentPort.postMessage('held');
  `, { eval: true });
  await new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  });
  await until(() => kdf.stats().running === 1, "the worker's gate to hold the thread");
  await w.terminate();
  await until(() => kdf.stats().running === 0, 'the gate to end with its environment');
  // The thread serves this thread's jobs again.
  assert.equal((await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256')).length, 32);
});

test('the process exits with gates held on the default pool and on its own pool', () => {
  const r = spawnSync(process.execPath, ['-e', `
    const kdf = require(${JSON.stringify(ROOT)});
    const { gate } = require(${JSON.stringify(path.join(__dirname, 'helpers', 'gate'))});
    const pool = kdf.createPool({ threads: 1, name: 'held' });
    gate(kdf).done.catch(() => {});
    gate(pool).done.catch(() => {});
    const wait = () => (kdf.stats().running === 1 && pool.stats().running === 1
      ? process.exit(0) : setImmediate(wait));
    wait();
  `], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.error, undefined, `${r.error} (hang?)`);
  assert.equal(r.signal, null, r.stderr);
  assert.equal(r.status, 0, r.stderr);
});
