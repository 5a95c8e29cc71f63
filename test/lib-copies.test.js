'use strict';

// Two evaluations of lib/ over one native instance: what a test runner that
// resets its module registry between files (but not the addon, which a
// process loads once) does. Both copies share native code's completion
// handler, so a failed job's error must still be made by the classes of the
// copy whose call it was: `err instanceof kdf.PoolSaturatedError` holds
// for each copy's own `kdf`.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

const ROOT = path.join(__dirname, '..');
const LIB = path.join(ROOT, 'lib') + path.sep;

// A fresh evaluation of every file under lib/ (the addon stays cached).
function freshCopy() {
  for (const file of Object.keys(require.cache)) {
    if (file.startsWith(LIB)) delete require.cache[file];
  }
  return require(ROOT);
}

const first = require(ROOT);
const second = freshCopy();

// A job of `kdf` that fails through the completion handler: queued behind a
// gate on a one-thread pool with a deadline, and shed when it passes.
async function shedAtItsDeadline(kdf, name) {
  const pool = kdf.createPool({ name, threads: 1, maxQueue: 4 });
  const held = gate(pool);
  held.done.catch(() => {});
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  const queued = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { maxWaitMs: 1000 });
  assert.equal(pool.stats().queued, 1, 'accepted, not refused at submit');
  const err = await queued.then(() => assert.fail('a shed job resolved'), (e) => e);
  held.release();
  await pool.close();
  return err;
}

test('the copies are separate evaluations with their own classes', () => {
  assert.notEqual(first, second);
  assert.notEqual(first.PoolClosedError, second.PoolClosedError);
});

for (const [label, kdf, other] of [['first', first, second], ['second', second, first], ['first again', first, second]]) {
  test(`a failed job of the ${label} copy is an instance of its own class`, async () => {
    const err = await shedAtItsDeadline(kdf, `c${label.length}${label[0]}`);
    assert.equal(err.code, 'ERR_KDF_POOL_SATURATED');
    assert.equal(err.reason, 'deadline');
    assert.ok(err instanceof kdf.PoolSaturatedError, `not an instance of the ${label} copy's PoolSaturatedError`);
    assert.ok(!(err instanceof other.PoolSaturatedError), "an instance of the other copy's PoolSaturatedError");
  });
}

test('refusals at submit are each copy\'s own too', async () => {
  for (const kdf of [first, second]) {
    const pool = kdf.createPool({ name: 'refuse', threads: 1, maxQueue: 0 });
    const held = gate(pool);
    held.done.catch(() => {});
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const err = await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => null, (e) => e);
    await pool.close();
    assert.ok(err instanceof kdf.PoolSaturatedError, `got ${err && err.name}`);
  }
});
