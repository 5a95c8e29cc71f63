'use strict';

// The overload contract on traffic a login service really sees (issue 36),
// as regression tests of the ways the scheduler of ce711b6 broke: virtual
// time that one-shot users froze (hints that grew to hours, a returning
// client never served), equal clients displacing each other, calls removed
// unrun that left their key charged when they were its oldest, and clients
// honouring Retry-After refused again when they came back. No timing
// asserts: orders of completion, reasons and counts; a hint is bounded by
// the pool's own job time (stats().avgRunMs) times the jobs in it, ten
// times over, plus 50 ms, so that only a hint cut loose from the work
// ahead fails. Threads are held by gates where an order is observed
// (Argon2 jobs, which never batch: one thread runs them one at a time, in
// the queue's order); the traffic tests stop after a count of jobs served.

const test = require('node:test');
const assert = require('node:assert/strict');
const { setTimeout: sleep } = require('node:timers/promises');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { oneShotUsers } = require('./helpers/traffic');

// A job of microseconds, where only the order matters; and a login of
// about a millisecond and a half (4 MiB of Argon2id), where the pool is
// kept busy by real work. Every call of a test is the same job, so every
// call has the same expected time.
const TINY = { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 16, memory: 8, passes: 1 };
const LOGIN = { ...TINY, memory: 4096 };

const settle = (p) => p.then(() => 'ok', (err) => err);
const outcome = (o) => (o === 'ok' ? 'ok' : o.reason || o.name);

function assertRefusal(err) {
  assert.ok(err instanceof kdf.PoolSaturatedError, `expected a refusal, got ${err && err.stack}`);
  assert.ok(Number.isInteger(err.retryAfterMs) && err.retryAfterMs >= 1);
}

// What a refused call may be told at most: the drain of everything in the
// pool (its jobs plus the call itself, each of the pool's average run
// time, spread over its threads) ten times over, plus 50 ms.
function drainBound(s) {
  return Math.ceil((10 * (s.queued + s.running + 1) * s.avgRunMs) / s.threads + 50);
}

test('one-shot users do not freeze virtual time: a returning client is told the drain and gets in within 3 attempts', async () => {
  const THREADS = 2;
  const MAX_QUEUE = 8;
  const SERVED = 400; // one-shot jobs the test runs for
  const pool = kdf.createPool({ threads: THREADS, maxQueue: MAX_QUEUE, name: 'oneshot', priority: 'normal' });
  const call = (fairKey) => pool.argon2('argon2id', LOGIN, { fairKey });
  // Client r is served twice, one call after the other on one thread, each
  // starting as the head (virtual time moves to its second tag: r has used
  // the pool, and ends one job ahead of virtual time), while a gate holds
  // the other thread, so that the pool never idles (an idle pool forgets
  // who was ahead) before the users arrive.
  const held = gate(pool);
  const other = gate(pool);
  let users = null;
  try {
    await until(() => pool.stats().running === 2, 'two gates to hold both threads');
    const first = [call('r'), call('r')];
    other.release();
    await until(() => pool.stats().queued === 0, "r's two calls to start");
    // As many one-shot users at a time as the pool holds: r comes back to
    // a full queue.
    users = oneShotUsers(call, { slots: THREADS + MAX_QUEUE });
    held.release();
    await Promise.all(first);

    // r comes back again and again, each time at its hint, until the users
    // have had SERVED jobs: every hint within the drain, and each of r's
    // calls served by its third attempt.
    const attemptsToServe = [];
    let attempts = 0;
    let slow = null;
    while (users.served < SERVED) {
      attempts++;
      const o = await settle(call('r'));
      if (o === 'ok') {
        attemptsToServe.push(attempts);
        attempts = 0;
        continue;
      }
      assertRefusal(o);
      const s = pool.stats();
      const bound = drainBound(s);
      assert.ok(o.retryAfterMs <= bound, `r was told ${o.retryAfterMs} ms (${o.reason}, Retry-After ${o.headers['retry-after']} s) ` +
        `after ${users.served} one-shot jobs, with ${s.queued} queued and ${s.running} running, jobs of ${s.avgRunMs.toFixed(2)} ms ` +
        `on ${s.threads} threads: more than ${bound} ms`);
      // A third refusal fails the test at the end; the hints of r's
      // further attempts are checked meanwhile.
      if (attempts === 3 && slow === null) {
        slow = `r was refused 3 times in a row, each time back at its hint (the last: ${o.reason}, ${o.retryAfterMs} ms), ` +
          `after ${users.served} one-shot jobs; served ${attemptsToServe.length} times before`;
      }
      await sleep(o.retryAfterMs);
    }
    assert.ok(slow === null, slow);
    assert.ok(attemptsToServe.length >= 3, `r was served ${attemptsToServe.length} times while ${users.served} one-shot jobs ran`);
  } finally {
    held.release();
    other.release();
    if (users !== null) await users.stop();
    await pool.close();
  }
});

// Both threads held, client z fills the queue, then a newcomer n asks for
// the same job: n is placed before z's later calls, and takes the place of
// one only if it is placed more than one of n's jobs after n; otherwise n
// is refused.
async function queueThenNewcomer(maxQueue) {
  const pool = kdf.createPool({ threads: 2, maxQueue, name: `equal${maxQueue}` });
  const gates = [gate(pool), gate(pool)];
  try {
    await until(() => pool.stats().running === 2, 'two gates to hold both threads');
    const z = Array.from({ length: maxQueue }, () => settle(pool.argon2('argon2id', TINY, { fairKey: 'z' })));
    const n = settle(pool.argon2('argon2id', TINY, { fairKey: 'n' }));
    const during = pool.stats();
    for (const g of gates) g.release();
    return {
      z: (await Promise.all(z)).map(outcome),
      n: outcome(await n),
      queued: during.queued,
      displaced: during.displaced,
    };
  } finally {
    for (const g of gates) g.release();
    await pool.close();
  }
}

test('no churn among equals: a queued call gives way only to a call placed more than a job ahead of it', async () => {
  // z's second call is placed one job after n: n is refused, nothing is displaced.
  assert.deepEqual(await queueThenNewcomer(2), { z: ['ok', 'ok'], n: 'queue_full', queued: 2, displaced: 0 });
  // z's third is placed two jobs after n: it gives way to n.
  assert.deepEqual(await queueThenNewcomer(3), { z: ['ok', 'ok', 'displaced'], n: 'ok', queued: 3, displaced: 1 });
});

// Client k queues 7 calls behind a held thread; its 6 oldest leave unrun
// (`removeOldest`), then x1..x4 queue one call each. Had the 6 never been
// queued, k's last call would be its first, queued before x1..x4: it runs
// first or second of the five, not last.
async function newestAfterOldestRemoved(name, queueOldest, removeOldest) {
  const pool = kdf.createPool({ threads: 1, name });
  const g = gate(pool);
  const order = [];
  const run = (fairKey, options = {}) =>
    settle(pool.argon2('argon2id', TINY, { fairKey, ...options }).then(() => order.push(fairKey)));
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const oldest = queueOldest((options) => run('k', options));
    const newest = run('k');
    // (Also takes in calls that came through the pool's inbox: from here
    // they are queued, and a deadline sheds them.)
    assert.equal(pool.stats().queued, 7, "k's 7 calls are queued");
    await removeOldest(pool, oldest);
    assert.equal(pool.stats().running, 1, 'the gate still holds the thread');
    assert.equal(pool.stats().queued, 1, "k's newest call alone is queued");
    const others = ['x1', 'x2', 'x3', 'x4'].map((x) => run(x));
    g.release();
    assert.deepEqual((await Promise.all([newest, ...others])).map(outcome), Array(5).fill('ok'));
    await g.done;
    return order;
  } finally {
    g.release();
    await pool.close();
  }
}

test("calls aborted unrun, a key's 6 oldest, leave it where it was: its next call runs before newcomers", async () => {
  const controllers = Array.from({ length: 6 }, () => new AbortController());
  const order = await newestAfterOldestRemoved('abort',
    (queue) => controllers.map((ac) => queue({ signal: ac.signal })),
    async (pool, oldest) => {
      for (const ac of controllers) ac.abort();
      assert.deepEqual((await Promise.all(oldest)).map(outcome), Array(6).fill('AbortError'));
      assert.equal(pool.stats().cancelled, 6);
    });
  assert.ok(order.indexOf('k') <= 1, `k's call ran ${order.indexOf('k') + 1}th of ${order.length}: ${order.join(', ')}`);
});

test("calls shed at their deadline, a key's 6 oldest, leave it where it was: its next call runs before newcomers", async () => {
  // The gate predicts nothing: calls with a deadline are let in, and shed
  // at it while the thread is still held.
  const order = await newestAfterOldestRemoved('shed',
    (queue) => Array.from({ length: 6 }, () => queue({ maxWaitMs: 30 })),
    async (pool, oldest) => {
      assert.deepEqual((await Promise.all(oldest)).map(outcome), Array(6).fill('deadline'));
      assert.equal(pool.stats().shed, 6);
    });
  assert.ok(order.indexOf('k') <= 1, `k's call ran ${order.indexOf('k') + 1}th of ${order.length}: ${order.join(', ')}`);
});

test('clients refused together, back at Retry-After + 20 ms, get in within 2 returns', async () => {
  const THREADS = 2;
  const MAX_QUEUE = 4;
  const pool = kdf.createPool({ threads: THREADS, maxQueue: MAX_QUEUE, name: 'retryat', priority: 'normal' });
  const call = (fairKey) => pool.argon2('argon2id', LOGIN, { fairKey });
  // The clients first come together while gates hold both threads and the
  // users fill the queue: each is refused, whatever the machine's load
  // (the queue cannot drain under them). Then the threads go back to the
  // one-shot users, who keep the queue full while the clients sleep.
  const held = [gate(pool), gate(pool)];
  const users = oneShotUsers(call, { slots: THREADS + MAX_QUEUE });
  try {
    await until(() => pool.stats().queued >= MAX_QUEUE, 'the users to fill the queue');
    const clients = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    const firsts = await Promise.all(clients.map((c) => settle(call(c))));
    for (const g of held) g.release();
    const logs = await Promise.all(firsts.map(async (first, i) => {
      // What an HTTP client honouring Retry-After does: sleep its whole
      // seconds, plus a round trip, and ask again; twice at most.
      const log = [];
      let o = await first;
      for (let returns = 0; o !== 'ok'; returns++) {
        assertRefusal(o);
        const seconds = Number(o.headers['retry-after']);
        log.push(`${o.reason}, Retry-After ${seconds} s`);
        // A refused call's hint is under a second here: its Retry-After
        // is that second, or up to two more where others were told it.
        if (returns === 2 || seconds > 3) return log;
        await sleep(seconds * 1000 + 20);
        o = await settle(call(clients[i]));
      }
      log.push('ok');
      return log;
    }));
    const refusedAtFirst = logs.filter((log) => log[0] !== 'ok').length;
    assert.equal(refusedAtFirst, clients.length, `the clients' first calls: ${JSON.stringify(logs)}`);
    for (const [i, log] of logs.entries()) {
      assert.ok(log.at(-1) === 'ok' && log.length <= 3,
        `${clients[i]} was not served within 2 returns at Retry-After + 20 ms (${users.served} one-shot jobs served meanwhile): ${log.join('; ')}`);
    }
  } finally {
    for (const g of held) g.release();
    await users.stop();
    await Promise.all(held.map((g) => g.done));
    await pool.close();
  }
});
