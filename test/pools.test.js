'use strict';

// Service-grade pool behaviour: AbortSignal, deadlines, separate pools,
// close, sync variants and stats. No timing asserts: a thread that must stay
// busy is held by a gate (test/helpers/gate.js) until the test releases it,
// or, where the running job itself is what is tested, by a long job
// (hundreds of milliseconds); the test observes the pool's own counters.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const kdf = require('..');
const { until } = require('./helpers/until');
const { gate } = require('./helpers/gate');

const { scaled } = require('./helpers/scale');

// PBKDF2-SHA256 iterations: ~0.5-1 s on the CI machine. Sanitized runs
// (KDFPOOL_TEST_SCALE < 1) hash several times slower, so fewer keep it as long.
const LONG = scaled(3_000_000, 1_000_000);
const pbkdf2Expect = (pw, it, digest = 'sha256') => crypto.pbkdf2Sync(pw, 'salt', it, 32, digest);
// Long jobs that run while a test queues others use a digest those others
// do not: queued jobs of the running job's digest may ride along in its
// batch (they would run instead of waiting).
const HOLD = 'sha1';

// Until `ms` milliseconds have passed since `since` (performance.now()):
// for a deadline of a job submitted before `since` to be past.
const past = (since, ms) => until(() => performance.now() - since > ms, `${ms} ms to pass`);

function threadsNamed(prefix) {
  if (process.platform !== 'linux') return -1;
  let n = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      if (fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').startsWith(prefix)) n++;
    } catch {
      // thread gone
    }
  }
  return n;
}

// maxQueue 0 is a pure semaphore: a call is accepted only if a thread is
// free for it. All five calls go in one tick on an idle pool, so exactly
// `threads` are accepted whatever the workers do meanwhile (a job a worker
// has not dequeued yet still holds its thread).
test('maxQueue: 0 runs `threads` jobs and refuses the rest at once (queue_full)', async () => {
  const pool = kdf.createPool({ threads: 2, maxQueue: 0, name: 'sem' });
  assert.equal(pool.stats().maxQueue, 0);
  const calls = Array.from({ length: 5 }, (_, i) => pool.pbkdf2(`pw${i}`, 'salt', LONG, 32, 'sha256')
    .then((key) => ({ i, key }), (err) => ({ i, err })));
  const s = pool.stats();
  assert.equal(s.submitted, 2);
  assert.equal(s.refused, 3);
  const out = await Promise.all(calls);
  const ok = out.filter((o) => o.key);
  assert.deepEqual(ok.map((o) => o.i), [0, 1]);
  for (const o of ok) assert.ok(o.key.equals(pbkdf2Expect(`pw${o.i}`, LONG)));
  for (const { err } of out.filter((o) => o.err)) {
    assert.ok(err instanceof kdf.PoolSaturatedError);
    assert.equal(err.reason, 'queue_full');
    assert.ok(err.retryAfterMs >= 1);
  }
  // Free again: the next call is accepted.
  await until(() => pool.stats().running === 0, 'the pool to go idle');
  assert.ok((await pool.pbkdf2('pw0', 'salt', LONG, 32, 'sha256')).equals(pbkdf2Expect('pw0', LONG)));
  await pool.close();
});

test('configure({ maxQueue: 0 }) makes the default pool a semaphore; other options keep it', () => {
  const before = kdf.stats().maxQueue;
  try {
    kdf.configure({ maxQueue: 0 });
    assert.equal(kdf.stats().maxQueue, 0);
    kdf.configure({ maxWaitMs: 0 });
    assert.equal(kdf.stats().maxQueue, 0);
    kdf.configure({ maxQueue: 3 });
    assert.equal(kdf.stats().maxQueue, 3);
  } finally {
    kdf.configure({ maxQueue: before });
  }
});

test('aborting a queued job removes it at once; it never runs', async () => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 8, name: 'abq' });
  const holder = gate(pool);
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  const ac = new AbortController();
  const queued = pool.pbkdf2('queued', 'salt', 1000, 32, 'sha256', { signal: ac.signal });
  assert.equal(pool.stats().queued, 1);
  const reason = new Error('client went away');
  ac.abort(reason);
  await assert.rejects(queued, (err) => {
    assert.equal(err.name, 'AbortError');
    assert.equal(err.code, 'ABORT_ERR');
    assert.equal(err.cause, reason);
    return true;
  });
  const s = pool.stats();
  assert.equal(s.queued, 0);
  assert.equal(s.cancelled, 1);
  assert.equal(s.aborted, 1);
  holder.release();
  assert.equal(await holder.done, undefined);
  assert.equal(pool.stats().completed, 1); // the gate: the aborted job never ran
  await pool.close();
});

test('aborting a running job rejects now but keeps its slot until it ends', async () => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 8, name: 'abr' });
  const ac = new AbortController();
  const job = pool.pbkdf2('long', 'salt', LONG, 32, HOLD, { signal: ac.signal });
  await until(() => pool.stats().running === 1, 'the job to start');
  ac.abort();
  await assert.rejects(job, { name: 'AbortError', code: 'ABORT_ERR' });
  // The thread is still hashing: the slot is not free.
  assert.equal(pool.stats().running, 1);
  const next = pool.pbkdf2('next', 'salt', 10, 32, 'sha256');
  assert.equal(pool.stats().queued, 1);
  assert.ok((await next).equals(pbkdf2Expect('next', 10)));
  const s = pool.stats();
  assert.equal(s.completed, 2); // the aborted job ran to its end, unseen
  assert.equal(s.aborted, 1);
  await pool.close();
});

test('an already-aborted signal rejects without submitting', async () => {
  const before = kdf.stats().submitted;
  await assert.rejects(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal: AbortSignal.abort() }),
    { name: 'AbortError' });
  await assert.rejects(kdf.argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 1,
    tagLength: 32, memory: 64, passes: 1, signal: AbortSignal.abort() }), { name: 'AbortError' });
  assert.equal(kdf.stats().submitted, before);
});

test('signal and maxWaitMs are validated', async () => {
  await assert.rejects(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal: 'nope' }),
    { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  await assert.rejects(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { maxWaitMs: -1 }),
    { name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal: 1 }, () => {}),
    { code: 'ERR_INVALID_ARG_TYPE' });
});

test('a signal that is not a usable AbortSignal is refused before anything is queued, and the process survives', () => {
  // Defect 7: { aborted: false } used to pass validation, the job was
  // queued, then signal.addEventListener threw; the job's own rejection
  // (here PoolClosedError) was unhandled and the process exited with 1.
  const root = path.join(__dirname, '..');
  const r = spawnSync(process.execPath, ['--unhandled-rejections=strict', '-e', `
    const kdf = require(${JSON.stringify(root)});
    process.on('unhandledRejection', (e) => { console.error('unhandled', e); process.exit(3); });
    const pool = kdf.createPool({ threads: 1, name: 'badsig' });
    pool.pbkdf2('busy', 'salt', 300000, 32, 'sha256').catch(() => {});
    const before = pool.stats().submitted;
    const bad = [
      { aborted: false },
      { aborted: false, addEventListener() {} },
      { aborted: false, addEventListener: 1, removeEventListener() {} },
      Object.assign(Object.create(null), { aborted: false }),
    ];
    const calls = [];
    for (const signal of bad) {
      calls.push(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal }));
      calls.push(pool.scrypt('pw', 'salt', 32, { N: 16, signal }));
      calls.push(pool.argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 1,
        tagLength: 32, memory: 64, passes: 1, signal }));
      calls.push(pool.hash('pw', { algorithm: 'bcrypt', cost: 4, signal }));
      calls.push(pool.verify('$2b$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', 'pw', { signal }));
      try {
        pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal }, () => { throw new Error('called back'); });
        calls.push(Promise.resolve('no throw'));
      } catch (e) {
        calls.push(Promise.reject(e));
      }
    }
    // Usable-looking, but its addEventListener throws: still nothing queued.
    const throwing = { aborted: false, addEventListener() { throw new Error('boom'); }, removeEventListener() {} };
    calls.push(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal: throwing }));
    Promise.allSettled(calls).then(async (out) => {
      const submitted = pool.stats().submitted - before;
      await pool.close(); // queued jobs would reject with PoolClosedError here
      setTimeout(() => process.stdout.write(JSON.stringify({
        submitted,
        results: out.map((o) => o.status === 'rejected' ? (o.reason.code || o.reason.message) : 'fulfilled'),
        messages: out.slice(0, 1).map((o) => o.reason && o.reason.message),
      })), 50);
    });
  `], { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.signal, null, r.stderr);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const out = JSON.parse(r.stdout);
  assert.equal(out.submitted, 0);
  assert.deepEqual(out.results, [...Array(24).fill('ERR_INVALID_ARG_TYPE'), 'boom']);
  assert.match(out.messages[0], /^The "options\.signal" property must be an instance of AbortSignal\. Received an instance of Object$/);
});

test('an object with aborted and working listener methods serves as a signal', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'ducksig' });
  const target = new EventTarget();
  const signal = {
    aborted: false,
    reason: undefined,
    addEventListener: (...a) => target.addEventListener(...a),
    removeEventListener: (...a) => target.removeEventListener(...a),
  };
  const holder = gate(pool);
  const queued = pool.pbkdf2('queued', 'salt', 10, 32, 'sha256', { signal });
  signal.aborted = true;
  signal.reason = new Error('gone');
  target.dispatchEvent(new Event('abort'));
  await assert.rejects(queued, (err) => err.name === 'AbortError' && err.cause === signal.reason);
  const ok = pool.pbkdf2('ok', 'salt', 10, 32, 'sha256', { signal: new AbortController().signal });
  holder.release();
  assert.ok((await ok).equals(pbkdf2Expect('ok', 10)));
  assert.equal(await holder.done, undefined);
  await pool.close();
});

test('the callback form receives AbortError', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'abcb' });
  const ac = new AbortController();
  const holder = gate(pool);
  const err = await new Promise((resolve) => {
    pool.pbkdf2('cb', 'salt', 10, 32, 'sha256', { signal: ac.signal }, (e) => resolve(e));
    ac.abort();
  });
  assert.equal(err.name, 'AbortError');
  holder.release();
  assert.equal(await holder.done, undefined);
  await pool.close();
});

// Holds a pool's thread with a gate for at least `ms`: the pool learns that
// a gate takes that long (gates predict nothing of their own).
async function teachGateTime(pool, ms) {
  const g = gate(pool);
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  await past(performance.now(), ms);
  g.release();
  assert.equal(await g.done, undefined);
}

test('maxWaitMs: work that would wait too long is refused at admission', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'dl1' });
  await teachGateTime(pool, 30);
  const holders = [gate(pool), gate(pool)]; // one runs, one waits: 30 ms at least
  await assert.rejects(pool.pbkdf2('late', 'salt', 10, 32, 'sha256', { maxWaitMs: 1 }), (err) => {
    assert.ok(err instanceof kdf.PoolSaturatedError);
    assert.equal(err.code, 'ERR_KDF_POOL_SATURATED');
    assert.equal(err.retryable, true);
    assert.equal(err.reason, 'deadline');
    assert.ok(err.retryAfterMs > 0);
    return true;
  });
  // Refused at submit: never submitted, so not shed; rejected and refused.
  const s = pool.stats();
  assert.deepEqual([s.submitted, s.shed, s.rejected, s.refused], [3, 0, 1, 1]);
  for (const h of holders) h.release();
  assert.deepEqual(await Promise.all(holders.map((h) => h.done)), [undefined, undefined]);
  await pool.close();
});

test('maxWaitMs: a queued job is shed at its deadline, while the thread is still held, never run', async () => {
  // A fresh pool knows no run times, so admission lets the job in.
  const pool = kdf.createPool({ threads: 1, name: 'dl2', maxWaitMs: 50 });
  const first = gate(pool); // no deadline
  const late = pool.pbkdf2('late', 'salt', 10, 32, 'sha256');
  // Shed at its deadline, the thread still held (a bound, not a timing
  // assert: only a deadline that waits for a thread reaches it).
  const bound = new Promise((resolve) => setTimeout(resolve, 30000, 'not shed while the thread was held'));
  const outcome = await Promise.race([late.then(() => 'resolved', (err) => err), bound]);
  assert.ok(outcome instanceof kdf.PoolSaturatedError, String(outcome));
  assert.equal(outcome.reason, 'deadline');
  assert.ok(outcome.retryAfterMs >= 1);
  assert.equal(pool.stats().running, 1, 'the gate still holds the thread');
  first.release();
  assert.equal(await first.done, undefined);
  const s = pool.stats();
  assert.equal(s.shed, 1);
  assert.equal(s.refused, 1);
  assert.equal(s.rejected, 0);
  assert.equal(s.completed, 1);
  assert.equal(s.submitted, s.completed + s.failed + s.cancelled + s.shed);
  await pool.close();
});

test('stats: every accepted job is counted once; refusals at submit are rejected, retryable ones refused', async () => {
  const pool = kdf.createPool({ threads: 1, maxQueue: 2, maxMemory: 64 * 1024 * 1024, name: 'count' });
  const identity = (s) => s.submitted === s.completed + s.failed + s.cancelled + s.shed + s.running + s.queued;
  const long1 = gate(pool);
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  // The gate predicts nothing: `late` is let in, and shed at its deadline.
  const late = pool.pbkdf2('late', 'salt', 1, 32, 'sha256', { maxWaitMs: 1000 });
  const ac = new AbortController();
  const aborted = pool.pbkdf2('aborted', 'salt', 1, 32, 'sha256', { signal: ac.signal });
  const refusals = await Promise.allSettled([
    pool.pbkdf2('full', 'salt', 1, 32, 'sha256'),
    pool.scrypt('big', 'salt', 32, { N: 2 ** 17, r: 8, maxmem: 2 ** 30 }),
  ]);
  assert.deepEqual(refusals.map((o) => o.reason.code), ['ERR_KDF_POOL_SATURATED', 'ERR_KDF_MEMORY_LIMIT']);
  assert.ok(identity(pool.stats()));
  ac.abort();
  await assert.rejects(aborted, { name: 'AbortError' });
  await assert.rejects(late, { code: 'ERR_KDF_POOL_SATURATED', reason: 'deadline' });
  // The gate held its thread past `late`'s deadline, a second: behind a
  // gate, a 1 ms deadline is now refused at submit.
  long1.release();
  assert.equal(await long1.done, undefined);
  const long2 = gate(pool);
  await assert.rejects(pool.pbkdf2('deadline', 'salt', 1, 32, 'sha256', { maxWaitMs: 1 }),
    { code: 'ERR_KDF_POOL_SATURATED', reason: 'deadline' });
  assert.ok(identity(pool.stats()));
  long2.release();
  assert.equal(await long2.done, undefined);
  const s = pool.stats();
  assert.deepEqual(
    { submitted: s.submitted, completed: s.completed, cancelled: s.cancelled, shed: s.shed, rejected: s.rejected, refused: s.refused },
    { submitted: 4, completed: 2, cancelled: 1, shed: 1, rejected: 3, refused: 3 },
  );
  assert.equal(s.submitted, s.completed + s.failed + s.cancelled + s.shed);
  await pool.close();
});

test('a saturated pool never delays another pool', async () => {
  const busy = kdf.createPool({ threads: 1, maxQueue: 1, name: 'busy' });
  const other = kdf.createPool({ threads: 1, maxQueue: 1, name: 'other' });
  const holders = [gate(busy)];
  await until(() => busy.stats().running === 1, 'the first gate to hold the thread');
  holders.push(gate(busy));
  await assert.rejects(busy.pbkdf2('c', 'salt', 1, 32, 'sha256'), { code: 'ERR_KDF_POOL_SATURATED' });
  const key = await other.pbkdf2('quick', 'salt', 100, 32, 'sha256');
  assert.ok(key.equals(pbkdf2Expect('quick', 100)));
  // The other pool answered while the busy one still had both jobs.
  const s = busy.stats();
  assert.equal(s.running + s.queued, 2);
  for (const h of holders) h.release();
  assert.deepEqual(await Promise.all(holders.map((h) => h.done)), [undefined, undefined]);
  await Promise.all([busy.close(), other.close()]);
});

test('close(): queued jobs reject, running ones finish, threads are gone', async () => {
  const pool = kdf.createPool({ threads: 2, maxQueue: 8, name: 'cls' });
  // Each thread names itself as it starts.
  if (process.platform === 'linux') await until(() => threadsNamed('kdf-cls-') === 2, 'two named threads');
  // Two digests, so the two do not share one thread as a batch.
  const running = [pool.pbkdf2('r1', 'salt', LONG, 32, HOLD), pool.pbkdf2('r2', 'salt', LONG, 32, 'sha224')];
  await until(() => pool.stats().running === 2, 'both jobs to start');
  const queued = [pool.pbkdf2('q1', 'salt', 10, 32, 'sha256'), pool.scrypt('q2', 'salt', 32, { N: 1024 })];
  const closing = pool.close();
  assert.equal(pool.close(), closing);
  for (const q of queued) {
    await assert.rejects(q, (err) => {
      assert.ok(err instanceof kdf.PoolClosedError);
      assert.equal(err.code, 'ERR_KDF_POOL_CLOSED');
      // It names the pool, as a refusal does.
      assert.equal(err.pool, 'cls');
      assert.equal(err.message, 'pool "cls" is closed');
      return true;
    });
  }
  const keys = await Promise.all(running);
  assert.ok(keys[0].equals(pbkdf2Expect('r1', LONG, HOLD)));
  await closing;
  if (process.platform === 'linux') assert.equal(threadsNamed('kdf-cls-'), 0);
  await assert.rejects(pool.pbkdf2('after', 'salt', 1, 32, 'sha256'),
    { code: 'ERR_KDF_POOL_CLOSED', pool: 'cls', message: 'pool "cls" is closed' });
  assert.throws(() => pool.stats(), { code: 'ERR_KDF_POOL_CLOSED', pool: 'cls' });
});

test('a closed pool: stats() and late aborts are refused cleanly', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'late' });
  const ac = new AbortController();
  const holder = gate(pool);
  const held = holder.done.then(() => 'released', (err) => err);
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  const queued = pool.pbkdf2('q', 'salt', 10, 32, 'sha256', { signal: ac.signal });
  const closing = pool.close();
  // The closer thread frees the pool once its threads are gone: nothing
  // may reach it afterwards.
  await closing;
  ac.abort();
  await assert.rejects(queued, (err) => err.code === 'ERR_KDF_POOL_CLOSED' || err.name === 'AbortError');
  // Never released: the close ended it.
  assert.equal((await held).code, 'ERR_KDF_POOL_CLOSED');
  assert.throws(() => pool.stats(), { code: 'ERR_KDF_POOL_CLOSED' });
});

test('close() ends every queued job with PoolClosedError, even as its thread frees up at once', async () => {
  // close() used to mark the pool closing before its queue was emptied (on
  // the closer thread): a thread freed in between (a job ending, here a gate
  // released) could start a queued job, which then completed after close().
  // The queue is emptied before close() returns now.
  for (let i = 0; i < 40; i++) {
    const pool = kdf.createPool({ threads: 1, name: 'shut' });
    const holder = gate(pool);
    const held = holder.done.then(() => 'released', (err) => err.code);
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const queued = pool.pbkdf2('q', 'salt', 1, 32, 'sha256').then(() => 'completed', (err) => err.code);
    const closing = pool.close();
    holder.release();
    assert.equal(await queued, 'ERR_KDF_POOL_CLOSED', `round ${i}: a queued job ran after close()`);
    await closing;
    assert.ok(['released', 'ERR_KDF_POOL_CLOSED'].includes(await held));
  }
});

test('the default pool cannot be closed', async () => {
  const { Pool } = require('../lib/pool');
  await assert.rejects(new Pool(null).close(), { code: 'ERR_KDF_DEFAULT_POOL' });
});

test('createPool validates its options', () => {
  assert.throws(() => kdf.createPool({ threads: 0 }), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => kdf.createPool({ threads: 'x' }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => kdf.createPool({ maxQueue: -1 }), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => kdf.createPool({ maxQueue: 0.5 }), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => kdf.createPool({ name: 'much-too-long' }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => kdf.createPool({ priority: 'urgent' }), { code: 'ERR_INVALID_ARG_VALUE' });
  assert.throws(() => kdf.createPool(null), { code: 'ERR_INVALID_ARG_TYPE' });
});

test('a priority that is not a string is refused with a code, whatever its toString does', () => {
  // Found by the arguments fuzzer: Object.hasOwn() turned these into
  // property keys first and threw a code-less TypeError.
  const hostile = [Object.create(null), { toString() { throw new Error('boom'); } }, Symbol('low'), 2];
  for (const priority of hostile) {
    assert.throws(() => kdf.createPool({ priority }), { code: 'ERR_INVALID_ARG_VALUE' });
    assert.throws(() => kdf.configure({ priority }), { code: 'ERR_INVALID_ARG_VALUE' });
  }
});

test('open pools do not keep the process alive, and exiting with their jobs in flight is clean', () => {
  const root = path.join(__dirname, '..');
  const idle = spawnSync(process.execPath, ['-e', `
    const kdf = require(${JSON.stringify(root)});
    const pool = kdf.createPool({ threads: 2, name: 'idle' });
    pool.pbkdf2('pw', 'salt', 10, 32, 'sha256').then(() => process.stdout.write('ok'));
  `], { encoding: 'utf8', timeout: 60000 });
  assert.equal(idle.signal, null, idle.stderr);
  assert.equal(idle.status, 0, idle.stderr);
  assert.equal(idle.stdout, 'ok');
  for (let i = 0; i < 10; i++) {
    const r = spawnSync(process.execPath, ['-e', `
      const kdf = require(${JSON.stringify(root)});
      const pool = kdf.createPool({ threads: 2, name: 'exit' });
      for (let j = 0; j < 6; j++) pool.pbkdf2('pw', 'salt', 300000, 32, 'sha512').catch(() => {});
      pool.close();
      setTimeout(() => process.exit(0), ${i * 3});
    `], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.signal, null, r.stderr);
    assert.equal(r.status, 0, r.stderr);
  }
});

test('sync variants give the same bytes and the same errors', async () => {
  assert.ok(kdf.pbkdf2Sync('pw', 'salt', 1000, 64, 'sha512').equals(await kdf.pbkdf2('pw', 'salt', 1000, 64, 'sha512')));
  assert.ok(kdf.scryptSync('pw', 'salt', 32, { N: 1024 }).equals(await kdf.scrypt('pw', 'salt', 32, { N: 1024 })));
  const params = { message: 'pw', nonce: 'saltsalt', parallelism: 2, tagLength: 24, memory: 256, passes: 2 };
  assert.ok(kdf.argon2Sync('argon2id', params).equals(await kdf.argon2('argon2id', params)));
  assert.throws(() => kdf.pbkdf2Sync('pw', 'salt', 0, 32, 'sha256'), { code: 'ERR_OUT_OF_RANGE' });
  assert.throws(() => kdf.pbkdf2Sync('pw', 'salt', 1, 32, 'nope'), { code: 'ERR_CRYPTO_INVALID_DIGEST' });
});

test('stats() reports percentiles of queue wait and run time, and outcomes', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'st' });
  await Promise.all(Array.from({ length: 5 }, (_, i) => pool.pbkdf2(`p${i}`, 'salt', 20000, 32, 'sha256')));
  const s = pool.stats();
  for (const k of ['p50', 'p99', 'max']) {
    assert.equal(typeof s.waitMs[k], 'number');
    assert.ok(s.runMs[k] > 0);
  }
  assert.ok(s.runMs.p50 <= s.runMs.p99 && s.runMs.p99 <= s.runMs.max);
  assert.ok(s.waitMs.max >= s.waitMs.p50);
  assert.equal(s.completed, 5);
  for (const k of ['failed', 'rejected', 'aborted', 'shed', 'cancelled']) assert.equal(s[k], 0);
  await pool.close();
});

test('a callback given in an earlier slot takes the callback form: node:crypto\'s synchronous argument error', () => {
  // Found by the arguments fuzzer: kdf.scrypt(pw, salt, cb) returned a
  // promise that rejected unhandled, and cb was never called.
  const crypto = require('node:crypto');
  const cb = function cb() { assert.fail('the callback must not be called'); };
  const cases = [
    [(f) => f.scrypt('pw', 'salt', cb), crypto],
    [(f) => f.pbkdf2('pw', 'salt', 1, cb), crypto],
    [(f) => f.pbkdf2('pw', 'salt', cb), crypto],
  ];
  for (const [call, node] of cases) {
    let want;
    try { call(node); } catch (err) { want = err; }
    assert.ok(want, 'node throws');
    assert.throws(() => call(kdf), { name: want.name, code: want.code, message: want.message });
  }
  // argon2's parameters slot (node >= 24.7 has crypto.argon2; the rule is ours elsewhere).
  assert.throws(() => kdf.argon2('argon2id', cb), { code: 'ERR_INVALID_ARG_TYPE' });
});
