'use strict';

// Every accepted call settles exactly once, whatever the order of aborts,
// completions and the reuse of call ids (lib/completions.js): an AbortSignal
// shared by several calls keeps firing listeners after some of them have
// settled, and a settled call's id goes to the next call. Gates hold the
// pool's threads so that jobs finish together, in one completion chunk,
// when the test says so. No test here waits on a clock: a call that never
// settles is found by a later call on the same one-thread pool, whose
// result cannot come back before the earlier one's.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fc = require('fast-check');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

// Property runs: KDFPOOL_SETTLE_RUNS=5000 for a longer search.
const RUNS = Number(process.env.KDFPOOL_SETTLE_RUNS) || 200;

function expectedKey(password) {
  return crypto.pbkdf2Sync(password, 'salt', 1, 32, 'sha256');
}

// Records how `promise` settles: { settled, value, error }.
function watch(promise) {
  const w = { settled: 0, value: undefined, error: undefined };
  promise.then(
    (value) => {
      w.settled++;
      w.value = value;
    },
    (error) => {
      w.settled++;
      w.error = error;
    });
  return w;
}

// Blocks the JS thread until `count` more jobs of `pool` have finished
// natively, so their completions reach JS in one chunk.
function waitFinishedSync(pool, before, count) {
  while (pool.stats().completed - before < count) crypto.pbkdf2Sync('spin', 'salt', 1, 32, 'sha256');
}

// A later job on the same one-thread pool: when it has settled, every job
// submitted before it has been handed back to JS.
async function drain(pool) {
  await until(() => pool.stats().running === 0 && pool.stats().queued === 0, 'the pool to go idle');
  const key = await pool.pbkdf2('sentinel', 'salt', 1, 32, 'sha256');
  assert.deepEqual(key, expectedKey('sentinel'));
}

test('a call that reuses the id of a settled call with a shared signal still settles', async () => {
  const pool = kdf.createPool({ name: 'stl.use', threads: 1 });
  try {
    const ac = new AbortController();
    const held = gate(pool);
    const before = pool.stats().completed;
    const first = pool.pbkdf2('first', 'salt', 1, 32, 'sha256', { signal: ac.signal });
    const second = pool.pbkdf2('second', 'salt', 1, 32, 'sha256', { signal: ac.signal });
    let third;
    // In the first call's continuation the second has settled too (same
    // chunk): the third call takes the second's freed id, then the shared
    // signal fires while the second's listener may still be attached.
    const continued = first.then((key) => {
      third = watch(pool.pbkdf2('third', 'salt', 1, 32, 'sha256'));
      ac.abort();
      return key;
    });
    held.release();
    waitFinishedSync(pool, before, 3);
    assert.deepEqual(await continued, expectedKey('first'));
    assert.deepEqual(await second, expectedKey('second'));
    await held.done;
    await drain(pool);
    assert.equal(third.settled, 1, 'the third call settled');
    assert.deepEqual(third.value, expectedKey('third'));
  } finally {
    await pool.close();
  }
});

test('the same through scrypt, hash and verify: later calls settle after a late abort', async () => {
  const pool = kdf.createPool({ name: 'stl.lat', threads: 1 });
  try {
    const phc = kdf.hashSync('pw', { algorithm: 'pbkdf2-sha256', iterations: 1 });
    const ac = new AbortController();
    const held = gate(pool);
    const before = pool.stats().completed;
    const first = pool.scrypt('a', 'salt', 300, { N: 16, r: 1, p: 1, signal: ac.signal });
    const second = pool.hash('pw', { algorithm: 'pbkdf2-sha256', iterations: 1, signal: ac.signal });
    const third = pool.verify(phc, 'pw', { signal: ac.signal });
    const later = [];
    const continued = first.then((key) => {
      for (let i = 0; i < 3; i++) later.push(watch(pool.pbkdf2(`later${i}`, 'salt', 1, 32, 'sha256')));
      later.push(watch(pool.verify(phc, 'pw')));
      ac.abort();
      return key;
    });
    held.release();
    waitFinishedSync(pool, before, 4);
    await held.done;
    assert.equal((await continued).length, 300);
    assert.match(await second, /^\$pbkdf2-sha256\$/);
    assert.equal(await third, true);
    await drain(pool);
    for (let i = 0; i < 3; i++) {
      assert.equal(later[i].settled, 1, `later call ${i} settled`);
      assert.deepEqual(later[i].value, expectedKey(`later${i}`));
    }
    // verify()'s promise settles a few microtasks after its job's (it
    // compares the key first): when its job and the sentinel's come back in
    // one chunk, it is still on its way when drain() returns.
    await until(() => later[3].settled !== 0, 'the later verify to settle');
    assert.equal(later[3].settled, 1, 'the later verify settled');
    assert.equal(later[3].value, true);
  } finally {
    await pool.close();
  }
});

// The property: a random program of submits (with one of a few shared
// signals or none, some from the continuation of an earlier call, next to
// a sync call), aborts, gate releases and event-loop turns. Every call
// settles exactly once: with its own key, or with an AbortError only if
// its signal fired.
test('every call settles exactly once whatever the interleaving (property)', { timeout: 300000 }, async () => {
  const SIGNALS = 2;
  const signal = fc.integer({ min: -1, max: SIGNALS - 1 });
  // Weighted toward what makes trouble: calls that share signals, and
  // continuations that submit and abort while others settle in one chunk.
  const op = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('submit'), signal }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('chain'), parent: fc.nat(), signal, abort: signal }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort'), signal: fc.integer({ min: 0, max: SIGNALS - 1 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('gate') }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('release') }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('finishTogether') }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('turn') }) });
  const pool = kdf.createPool({ name: 'stl.prp', threads: 1, maxQueue: 4096 });
  let run = 0;
  try {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
      run++;
      const controllers = Array.from({ length: SIGNALS }, () => new AbortController());
      const calls = [];
      const gates = [];
      const gateWatches = [];
      const syncKeys = [];
      const submit = (signalIndex) => {
        const password = `run${run}-call${calls.length}`;
        const signal = signalIndex >= 0 ? controllers[signalIndex].signal : undefined;
        const promise = pool.pbkdf2(password, 'salt', 1, 32, 'sha256', signal ? { signal } : undefined);
        calls.push({ password, signal, promise, watch: watch(promise) });
      };
      for (const o of ops) {
        switch (o.kind) {
          case 'submit':
            submit(o.signal);
            break;
          case 'chain': {
            if (calls.length === 0) break;
            // In a settled call's continuation: another call (it may take
            // a freed id), then maybe an abort of a shared signal.
            const then = () => {
              submit(o.signal);
              // A sync call in between gets its own key, whatever is in flight.
              const password = `run${run}-sync${syncKeys.length}`;
              syncKeys.push({ password, key: pool.pbkdf2Sync(password, 'salt', 1, 32, 'sha256') });
              if (o.abort >= 0) controllers[o.abort].abort();
            };
            calls[o.parent % calls.length].promise.then(then, then);
            break;
          }
          case 'abort':
            controllers[o.signal].abort();
            break;
          case 'gate': {
            const g = gate(pool);
            gates.push(g);
            gateWatches.push(watch(g.done));
            break;
          }
          case 'release':
            if (gates.length > 0) gates.shift().release();
            break;
          case 'finishTogether': {
            // Release every gate and let the queue run dry with the JS
            // thread blocked: everything finished comes back in one chunk.
            for (const g of gates.splice(0)) g.release();
            while (pool.stats().running + pool.stats().queued > 0) crypto.pbkdf2Sync('spin', 'salt', 1, 32, 'sha256');
            break;
          }
          case 'turn':
            await new Promise((resolve) => setImmediate(resolve));
            break;
        }
      }
      for (const g of gates.splice(0)) g.release();
      // Calls submitted from continuations may add more: drain until none comes.
      let seen = -1;
      while (seen !== calls.length) {
        seen = calls.length;
        await drain(pool);
      }
      for (const { password, key } of syncKeys) assert.deepEqual(key, expectedKey(password));
      for (const [i, g] of gateWatches.entries()) assert.equal(g.settled, 1, `gate ${i} settled once`);
      for (const [i, c] of calls.entries()) {
        assert.equal(c.watch.settled, 1, `call ${i} settled exactly once`);
        if (c.watch.error !== undefined) {
          assert.equal(c.watch.error.name, 'AbortError', `call ${i}: ${c.watch.error.stack}`);
          assert.ok(c.signal !== undefined && c.signal.aborted, `call ${i} rejected without an abort`);
        } else {
          assert.deepEqual(c.watch.value, expectedKey(c.password), `call ${i} got its own key`);
        }
      }
    }), { numRuns: RUNS });
    // Jobs of one digest and count queued together run as one batch.
    assert.ok(pool.stats().batched > 0, 'the batch path ran');
  } finally {
    await pool.close();
  }
});

// A signal need only look like one (node's rule): one whose `reason` throws
// must not stop its call from settling as aborted.
test('a call settles when its signal-like object throws from reason', async () => {
  const pool = kdf.createPool({ name: 'stl.rsn', threads: 1 });
  try {
    const listeners = [];
    const signal = {
      aborted: false,
      get reason() {
        throw new Error('no reason');
      },
      addEventListener: (type, fn) => listeners.push(fn),
      removeEventListener: () => {},
    };
    const held = gate(pool);
    const queued = watch(pool.pbkdf2('queued', 'salt', 1, 32, 'sha256', { signal }));
    signal.aborted = true;
    for (const fn of listeners) {
      try {
        fn();
      } catch {
        // what a dispatcher would do with a throwing listener
      }
    }
    held.release();
    await held.done;
    await drain(pool);
    assert.equal(queued.settled, 1, 'the aborted call settled');
    assert.equal(queued.error && queued.error.name, 'AbortError');
  } finally {
    await pool.close();
  }
});

// The completion handler settles a whole chunk of calls: a throw while it
// settles one (here: making its error) must not leave the others unsettled.
test('a throw while one call of a chunk settles leaves no other call unsettled', async () => {
  const errors = require('../lib/errors');
  let heldDone;
  const queued = [];
  // A call takes its lib/ copy's error factory as it is made: patch first.
  const { fromRecord } = errors;
  let thrown = 0;
  errors.fromRecord = (...args) => {
    if (thrown++ === 0) throw new Error('cannot make this error');
    return fromRecord(...args);
  };
  try {
    const pool = kdf.createPool({ name: 'stl.thr', threads: 1 });
    const held = gate(pool);
    heldDone = watch(held.done);
    for (let i = 0; i < 3; i++) queued.push(watch(pool.pbkdf2(`q${i}`, 'salt', 1, 32, 'sha256')));
    await pool.close(); // the gate and the queued jobs fail with the close
    await until(() => [heldDone, ...queued].every((w) => w.settled === 1), 'every call to settle');
  } finally {
    errors.fromRecord = fromRecord;
  }
  assert.ok(thrown >= 2, 'errors were made for the chunk');
  const messages = [heldDone, ...queued].map((w) => w.error && w.error.message);
  assert.equal(messages.filter((m) => m === 'cannot make this error').length, 1);
  for (const w of [heldDone, ...queued]) assert.ok(w.error instanceof Error);
});
