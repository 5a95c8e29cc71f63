'use strict';

// The completion path: finished jobs wait in their environment's list and
// the JS thread is woken when the list was empty. Every job must settle,
// with its own key, whether it waited in a long backlog or finished while
// the JS thread was settling others.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');
const { scaled } = require('./helpers/scale');
const { until } = require('./helpers/until');

test('a backlog of finished jobs, and jobs finishing while it is settled, all settle', { timeout: 120000 }, async () => {
  const JOBS = 3000;
  const { maxQueue, maxWaitMs } = kdf.stats();
  // A backlog of seconds on purpose: no deadline (the default pool's would refuse it).
  kdf.configure({ maxQueue: 2 * JOBS, maxWaitMs: 0 });
  try {
    const expected = crypto.pbkdf2Sync('pw', 'salt', 1, 32, 'sha256');
    const before = kdf.stats().completed;
    const promises = [];
    for (let i = 0; i < JOBS; i++) promises.push(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256'));
    // Keep the JS thread busy until every job has finished: all of them
    // then wait in the list for one wake-up...
    while (kdf.stats().completed - before < JOBS) crypto.pbkdf2Sync('spin', 'salt', 1, 32, 'sha256');
    // ...then a stream of them, paced by longer ones in between, so that
    // many finish while the JS thread is settling earlier ones.
    const slower = crypto.pbkdf2Sync('pw', 'salt', 5000, 32, 'sha256');
    const paced = [];
    for (let i = 0; i < JOBS; i++) {
      promises.push(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256'));
      if (i % 20 === 0) paced.push(kdf.pbkdf2('pw', 'salt', 5000, 32, 'sha256'));
    }
    const keys = await Promise.all(promises);
    assert.equal(keys.length, 2 * JOBS);
    for (const key of keys) assert.deepEqual(key, expected);
    for (const key of await Promise.all(paced)) assert.deepEqual(key, slower);
  } finally {
    kdf.configure({ maxQueue, maxWaitMs });
  }
});

// Keys of every size come back to their own call: small ones through the
// shared transfer memory (several per chunk, at running offsets), large
// ones (> 256 bytes) as Buffers of their own, mixed within one chunk, with
// refusals and aborted calls in between.
test('every call gets its own key, whatever the mix of sizes, refusals and aborts', { timeout: 120000 }, async () => {
  const { maxQueue, maxWaitMs } = kdf.stats();
  kdf.configure({ maxQueue: 4000, maxWaitMs: 0 }); // a backlog on purpose (see above)
  try {
    const sizes = [1, 16, 32, 64, 255, 256, 257, 300, 1024, 4096];
    const calls = [];
    for (let i = 0; i < 2000; i++) {
      const password = crypto.randomBytes(1 + (i % 40));
      const keylen = sizes[(i * 7) % sizes.length];
      const iterations = 1 + (i % 5) * (i % 3);
      if (i % 97 === 0) {
        const ac = new AbortController();
        const p = kdf.pbkdf2(password, 'salt', iterations, keylen, 'sha256', { signal: ac.signal });
        ac.abort();
        calls.push({ p, aborted: true });
      } else if (i % 13 === 0) {
        // Aborted a little later: by then queued, running, or finished with
        // its key not yet handed over (which is then dropped in its chunk).
        const ac = new AbortController();
        const p = kdf.pbkdf2(password, 'salt', iterations, keylen, 'sha256', { signal: ac.signal });
        setImmediate(() => ac.abort());
        calls.push({ p, lateAbort: true, password, iterations, keylen });
      } else {
        calls.push({ p: kdf.pbkdf2(password, 'salt', iterations, keylen, 'sha256'), password, iterations, keylen });
      }
    }
    for (const c of calls) {
      if (c.aborted) {
        await assert.rejects(c.p, { name: 'AbortError' });
      } else if (c.lateAbort) {
        const key = await c.p.catch((err) => {
          assert.equal(err.name, 'AbortError');
          return null;
        });
        if (key !== null) assert.deepEqual(key, crypto.pbkdf2Sync(c.password, 'salt', c.iterations, c.keylen, 'sha256'));
      } else {
        const key = await c.p;
        assert.ok(Buffer.isBuffer(key));
        assert.deepEqual(key, crypto.pbkdf2Sync(c.password, 'salt', c.iterations, c.keylen, 'sha256'));
      }
    }
  } finally {
    kdf.configure({ maxQueue, maxWaitMs });
  }
});

// Calls aborted after their jobs ended but before the keys were handed
// over: their keys are dropped from the middle of a chunk, and every other
// call in that chunk still gets its own.
test('keys dropped from the middle of a chunk leave the others in place', { timeout: 120000 }, async () => {
  const JOBS = 300;
  const sizes = [1, 20, 32, 64, 200, 256, 257, 1000];
  const pool = kdf.createPool({ threads: 2, maxQueue: JOBS });
  const calls = [];
  for (let i = 0; i < JOBS; i++) {
    const ac = new AbortController();
    const password = `pw${i}`;
    const keylen = sizes[i % sizes.length];
    calls.push({ p: pool.pbkdf2(password, 'salt', 1, keylen, 'sha256', { signal: ac.signal }), ac, password, keylen });
  }
  // Keep the JS thread busy until every job has ended: all keys then wait
  // in native code, and the aborts below find the jobs no longer queued.
  // (Bounded: were one refused or lost, this fails instead of spinning.)
  for (let i = 0; i < 1e6 && pool.stats().completed < JOBS; i++) crypto.pbkdf2Sync('spin', 'salt', 1, 32, 'sha256');
  assert.equal(pool.stats().completed, JOBS);
  for (let i = 0; i < JOBS; i += 3) calls[i].ac.abort();
  try {
    for (let i = 0; i < JOBS; i++) {
      const c = calls[i];
      if (i % 3 === 0) await assert.rejects(c.p, { name: 'AbortError' });
      else assert.deepEqual(await c.p, crypto.pbkdf2Sync(c.password, 'salt', 1, c.keylen, 'sha256'), `call ${i}`);
    }
  } finally {
    await pool.close();
  }
});

// An aborted call settles at once while its job, already running, goes on:
// the number it was submitted under must not be given to another call
// until that job has ended, or its late key would settle the other call.
test('a job aborted while running never settles a later call', { timeout: 120000 }, async () => {
  const pool = kdf.createPool({ threads: 2 });
  try {
    const long = crypto.pbkdf2Sync('long', 'salt', 200000, 32, 'sha256');
    for (let round = 0; round < 3; round++) {
      const ac = new AbortController();
      const aborted = pool.pbkdf2('long', 'salt', 200000, 32, 'sha256', { signal: ac.signal });
      while (pool.stats().running === 0) await new Promise((resolve) => setImmediate(resolve));
      ac.abort();
      await assert.rejects(aborted, { name: 'AbortError' });
      // Longer than the aborted job, submitted right after it settled: it
      // is still pending when the aborted job's key arrives.
      const later = pool.pbkdf2('later', 'salt', 400000, 32, 'sha256');
      assert.deepEqual(await later, crypto.pbkdf2Sync('later', 'salt', 400000, 32, 'sha256'));
      assert.notDeepEqual(await later, long);
    }
  } finally {
    await pool.close();
  }
});

// lib/ evaluated a second time against the same native module instance
// (a test runner that resets its module registry but not the addon) must
// not take over the first one's completions.
test('two evaluations of lib/ on one native instance each get their own keys', () => {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const root = path.join(__dirname, '..');
  const source = `
    const path = require('node:path');
    const crypto = require('node:crypto');
    const a = require(${JSON.stringify(root)});
    const keep = require.resolve(path.join(${JSON.stringify(root)}, 'lib', 'native.js'));
    for (const k of Object.keys(require.cache)) if (k !== keep && !k.endsWith('.node')) delete require.cache[k];
    const b = require(${JSON.stringify(root)});
    if (a === b) throw new Error('the module was not evaluated twice');
    a.configure({ maxQueue: 1000 });
    const jobs = [];
    for (let i = 0; i < 200; i++) {
      const lib = i % 2 ? a : b;
      const pw = 'pw' + i;
      jobs.push(lib.pbkdf2(pw, 'salt', 1 + (i % 3), 32, 'sha256').then((k) => k.equals(crypto.pbkdf2Sync(pw, 'salt', 1 + (i % 3), 32, 'sha256'))));
    }
    Promise.all(jobs).then((ok) => console.log(ok.every(Boolean) ? 'ok' : 'wrong key'));
  `;
  const r = spawnSync(process.execPath, ['-e', source], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'ok');
});

// After a burst the id tables empty themselves (a burst of 100,000 calls
// would otherwise keep its peak size), but only once no id is outstanding:
// an aborted call's job that is still running holds its id until it ends,
// so that its late key cannot name a call made after the shrink.
test('the id tables empty once a burst has settled, not while an aborted job still runs', { timeout: 120000 }, async () => {
  const { calls, freeIds } = require('../lib/native')[Symbol.for('kdfpool.completions')];
  const BURST = 3000;
  const pool = kdf.createPool({ threads: 2, maxQueue: BURST });
  try {
    const ac = new AbortController();
    // Seconds of work (fewer iterations under sanitizers, still seconds).
    const long = pool.pbkdf2('long', 'salt', scaled(20_000_000, 2_000_000), 32, 'sha256', { signal: ac.signal });
    await until(() => pool.stats().running === 1, 'the long job to start');
    ac.abort();
    await assert.rejects(long, { name: 'AbortError' });
    const expected = crypto.pbkdf2Sync('pw', 'salt', 1, 32, 'sha256');
    const keys = await Promise.all(Array.from({ length: BURST }, () => pool.pbkdf2('pw', 'salt', 1, 32, 'sha256')));
    for (const key of keys) assert.deepEqual(key, expected);
    // Read before any later callback: if the long job is still running, its
    // id cannot have come back, and the tables must still hold every id.
    if (pool.stats().running === 1) {
      assert.ok(calls.length > BURST, `${calls.length} ids after a burst of ${BURST}`);
      assert.equal(freeIds.length, calls.length - 1, 'only the aborted job\'s id is outstanding');
    }
  } finally {
    await pool.close(); // the long job runs to its end first
  }
  await until(() => calls.length === 0, 'the tables to empty once the aborted job has ended');
  assert.equal(freeIds.length, 0);
  // Numbers start from 0 again and still reach their own calls.
  const fresh = kdf.createPool({ threads: 2, maxQueue: 256 });
  try {
    const pws = Array.from({ length: 200 }, (_, i) => `again${i}`);
    const again = await Promise.all(pws.map((pw) => fresh.pbkdf2(pw, 'salt', 1, 32, 'sha256')));
    again.forEach((key, i) => assert.deepEqual(key, crypto.pbkdf2Sync(pws[i], 'salt', 1, 32, 'sha256')));
  } finally {
    await fresh.close();
  }
});
