'use strict';

// Aborting a job that runs in a batch. A batch is one set of lanes started
// together on one thread (bcrypt and scrypt lanes share one cost and end
// together; PBKDF2 lanes may differ in iterations): dropping one lane would
// not free the thread while its partners run, so an aborted lane runs to
// its end, as an aborted lone job does. The bound, checked here: the call
// rejects with AbortError at once, the partners' keys are unaffected, and
// the aborted lane's work still ends and frees the thread (the pool
// drains and serves the next job) - it costs its thread no more than the
// job would have alone.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

test('an aborted batched PBKDF2 job rejects at once, runs its lane out, and the pool drains', async (t) => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 64, name: 'abortb' });
  try {
    const held = gate(pool); // the one thread is held so that the jobs queue together
    const ac = new AbortController();
    const long = pool.pbkdf2('long', 'salt', 200000, 32, 'sha256', { signal: ac.signal });
    const partners = [1, 2, 3].map((i) => pool.pbkdf2(`pw${i}`, 'salt', 1000, 32, 'sha256'));
    await until(() => pool.stats().submitted === 5, 'every job queued behind the gate');
    held.release();
    await held.done;
    await until(() => pool.stats().running > 0, 'the batch started');
    const started = pool.stats();
    if (started.batched === 0) { // no PBKDF2 lane kernel on this CPU
      t.skip('nothing batched on this CPU');
      ac.abort();
      await Promise.allSettled([long, ...partners]);
      return;
    }
    ac.abort();
    await assert.rejects(long, { name: 'AbortError' });
    const keys = await Promise.all(partners);
    keys.forEach((key, k) => assert.deepEqual(key, crypto.pbkdf2Sync(`pw${k + 1}`, 'salt', 1000, 32, 'sha256')));
    // The aborted lane ends on its own, and its thread serves the next job.
    await until(() => pool.stats().running === 0, 'the aborted lane to end');
    const after = await pool.pbkdf2('next', 'salt', 1, 32, 'sha256');
    assert.deepEqual(after, crypto.pbkdf2Sync('next', 'salt', 1, 32, 'sha256'));
    const s = pool.stats();
    assert.equal(s.running, 0);
    assert.equal(s.queued, 0);
    assert.equal(s.submitted, s.completed + s.failed + s.cancelled + s.shed + s.displaced);
  } finally {
    await pool.close();
  }
});
