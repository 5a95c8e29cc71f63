'use strict';

// diagnostics_channel tracing (lib/tracing.js): with subscribers on
// `kdfpool:job` and `kdfpool:refusal`, every call that reaches a pool gets
// exactly one start and one end (and, settling later, one asyncStart and
// one asyncEnd; an error before them when it rejects), whatever its fate:
// completed, refused, aborted, closed, refused by native argument checks,
// or run on the calling thread. Each refusal gives one refusal message.
// No payload holds a password, salt, pepper, fair key or derived key.
// Threads are held by gates, never by timing.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const dc = require('node:diagnostics_channel');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

const PASSWORD = 'pw-SECRET-7f3a9c1e';
const SALT = 'salt-SECRET-19be44';
const PEPPER = 'pepper-SECRET-aa0d3';
const FAIR_KEY = 'tenant-SECRET-42c7';
const NAMED_OLD = 'named-SECRET-k1-0b2';
const NAMED_NEW = 'named-SECRET-k2-5e9';
const CALL_PEPPER = 'call-SECRET-c1-a71';

// Every event, in order, with the context object it carried.
const events = [];
const refusals = [];
const handlers = {};
for (const name of ['start', 'end', 'asyncStart', 'asyncEnd', 'error']) {
  handlers[name] = (ctx) => events.push({ name, ctx, seen: { ...ctx } });
}
const jobChannel = dc.tracingChannel('kdfpool:job');
jobChannel.subscribe(handlers);
const onRefusal = (message) => refusals.push(message);
dc.subscribe('kdfpool:refusal', onRefusal);

// The events of each traced call (one context object per call), in order.
function byCall(list = events) {
  const calls = new Map();
  for (const e of list) {
    if (!calls.has(e.ctx)) calls.set(e.ctx, []);
    calls.get(e.ctx).push(e.name);
  }
  return [...calls].map(([ctx, names]) => ({ ctx, names }));
}

function since(mark) {
  return byCall(events.slice(mark));
}

const ASYNC_OK = ['start', 'end', 'asyncStart', 'asyncEnd'];
const ASYNC_FAILED = ['start', 'end', 'error', 'asyncStart', 'asyncEnd'];

test('a completed job: start, end, asyncStart, asyncEnd, with its algorithm, pool and times', async () => {
  const mark = events.length;
  const key = await kdf.pbkdf2(PASSWORD, SALT, 1000, 32, 'sha256', { fairKey: FAIR_KEY });
  assert.deepEqual(key, crypto.pbkdf2Sync(PASSWORD, SALT, 1000, 32, 'sha256'));
  const calls = since(mark);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].names, ASYNC_OK);
  const { ctx } = calls[0];
  assert.equal(ctx.algorithm, 'pbkdf2');
  assert.equal(ctx.pool, 'default');
  assert.equal(ctx.sync, false);
  assert.equal(ctx.outcome, 'completed');
  assert.equal(ctx.error, undefined);
  for (const field of ['waitMs', 'runMs', 'durationMs']) {
    assert.equal(typeof ctx[field], 'number', field);
    assert.ok(ctx[field] >= 0, field);
  }
  // The start event saw the call before it settled.
  assert.equal(events[mark].seen.outcome, undefined);
});

test('every algorithm and hash/verify are traced, one call each', async () => {
  const pool = kdf.createPool({ name: 'trace', threads: 1, secret: PEPPER });
  try {
    const mark = events.length;
    await pool.scrypt(PASSWORD, SALT, 32, { N: 1024 });
    await pool.argon2('argon2id', { message: PASSWORD, nonce: SALT, parallelism: 1, tagLength: 32, memory: 64, passes: 1 });
    const phc = await pool.hash(PASSWORD, { algorithm: 'bcrypt', cost: 4 });
    assert.equal(await pool.verify(phc, PASSWORD), true);
    const calls = since(mark);
    assert.deepEqual(calls.map((c) => c.ctx.algorithm), ['scrypt', 'argon2', 'bcrypt', 'bcrypt']);
    for (const c of calls) {
      assert.deepEqual(c.names, ASYNC_OK);
      assert.equal(c.ctx.pool, 'trace');
      assert.equal(c.ctx.outcome, 'completed');
    }
  } finally {
    await pool.close();
  }
});

test('a refusal: one start and one end, an error, and one refusal message with its reason', async () => {
  const pool = kdf.createPool({ name: 'full', threads: 1, maxQueue: 0 });
  const held = gate(pool);
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const mark = events.length;
    const refusalMark = refusals.length;
    const err = await pool.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', { fairKey: FAIR_KEY }).catch((e) => e);
    assert.equal(err.code, 'ERR_KDF_POOL_SATURATED');
    const calls = since(mark);
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].names, ASYNC_FAILED);
    const { ctx } = calls[0];
    assert.equal(ctx.outcome, 'refused');
    assert.equal(ctx.reason, 'queue_full');
    assert.equal(ctx.retryAfterMs, err.retryAfterMs);
    assert.equal(ctx.error, err);
    assert.equal(ctx.waitMs, undefined); // it never ran
    assert.equal(refusals.length, refusalMark + 1);
    const message = refusals[refusalMark];
    assert.deepEqual({ ...message, error: undefined },
      { algorithm: 'pbkdf2', pool: 'full', reason: 'queue_full', retryAfterMs: err.retryAfterMs, error: undefined });
    assert.equal(message.error, err);
  } finally {
    held.release();
    await held.done;
    await pool.close();
  }
});

test('an abort while queued and a call to a closed pool: each one start, one end, its outcome', async () => {
  const pool = kdf.createPool({ name: 'abort', threads: 1, maxQueue: 4 });
  const held = gate(pool);
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  const mark = events.length;
  const refusalMark = refusals.length;
  const controller = new AbortController();
  const aborted = pool.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', { signal: controller.signal });
  controller.abort();
  await assert.rejects(aborted, { code: 'ABORT_ERR' });
  held.release();
  await held.done;
  await pool.close();
  await assert.rejects(pool.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256'), { code: 'ERR_KDF_POOL_CLOSED' });
  const calls = since(mark);
  assert.equal(calls.length, 2);
  for (const c of calls) assert.deepEqual(c.names, ASYNC_FAILED);
  assert.deepEqual(calls.map((c) => c.ctx.outcome), ['aborted', 'refused']);
  assert.equal(calls[1].ctx.reason, 'closed');
  assert.deepEqual(refusals.slice(refusalMark).map((m) => m.reason), ['closed']);
});

test('an abort before submit and an argument error native code raises are traced once each', async () => {
  const mark = events.length;
  const signal = AbortSignal.abort();
  assert.equal((await kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', { signal }).catch((e) => e)).code, 'ABORT_ERR');
  // Unknown digests are refused by native code's lookup, synchronously.
  await assert.rejects(kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'no-such-digest'), { code: 'ERR_CRYPTO_INVALID_DIGEST' });
  const calls = since(mark);
  assert.deepEqual(calls.map((c) => c.names), [ASYNC_FAILED, ['start', 'error', 'end']]);
  assert.deepEqual(calls.map((c) => c.ctx.outcome), ['aborted', 'failed']);
});

test('*Sync calls: start and end on the calling thread, pool null, an error when they throw', () => {
  const mark = events.length;
  const key = kdf.pbkdf2Sync(PASSWORD, SALT, 10, 32, 'sha256');
  assert.deepEqual(key, crypto.pbkdf2Sync(PASSWORD, SALT, 10, 32, 'sha256'));
  assert.throws(() => kdf.pbkdf2Sync(PASSWORD, SALT, 10, 32, 'no-such-digest'), { code: 'ERR_CRYPTO_INVALID_DIGEST' });
  const calls = since(mark);
  assert.deepEqual(calls.map((c) => c.names), [['start', 'end'], ['start', 'error', 'end']]);
  assert.deepEqual(calls.map((c) => [c.ctx.sync, c.ctx.pool, c.ctx.outcome]), [[true, null, 'completed'], [true, null, 'failed']]);
  assert.equal(typeof calls[0].ctx.runMs, 'number');
});

test('the refusal channel alone (no job subscriber) still hears every refusal', async () => {
  jobChannel.unsubscribe(handlers);
  const pool = kdf.createPool({ name: 'alone', threads: 1, maxQueue: 0 });
  const held = gate(pool);
  try {
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    const mark = events.length;
    const refusalMark = refusals.length;
    for (let i = 0; i < 3; i++) {
      await assert.rejects(pool.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256'), { code: 'ERR_KDF_POOL_SATURATED' });
    }
    assert.equal(events.length, mark);
    assert.equal(refusals.length, refusalMark + 3);
  } finally {
    jobChannel.subscribe(handlers);
    held.release();
    await held.done;
    await pool.close();
  }
});

test('a traced call whose rejection is handled later is no unhandled rejection, as untraced', async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const pool = kdf.createPool({ name: 'late', threads: 1 });
    const controller = new AbortController();
    const calls = [
      kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', { signal: controller.signal }),
      pool.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', { signal: controller.signal }),
    ];
    controller.abort();
    // Handlers attached only after the event loop has turned.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    for (const call of calls) await assert.rejects(call, { code: 'ABORT_ERR' });
    await pool.close();
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('no payload holds a password, salt, pepper, fair key or derived key', async () => {
  // One more of each kind, so the scan covers outputs too.
  const pool = kdf.createPool({ name: 'scan', threads: 1, secret: PEPPER });
  // Named peppers (rotation), current and retired, and a call's own.
  const named = kdf.createPool({ name: 'scan2', threads: 1, secret: { current: 'k2', keys: { k1: NAMED_OLD, k2: Buffer.from(NAMED_NEW) } } });
  const outputs = [];
  try {
    const call = { algorithm: 'argon2id', memory: 64, passes: 1, secret: { current: 'c1', keys: { c1: CALL_PEPPER } } };
    const retired = kdf.createPool({ name: 'scan3', threads: 1, secret: { current: 'k1', keys: { k1: NAMED_OLD } } });
    const old = await retired.hash(PASSWORD, { algorithm: 'argon2id', memory: 64, passes: 1 });
    await retired.close();
    assert.equal(await named.verify(old, PASSWORD), true);
    outputs.push(old, await named.hash(PASSWORD, { algorithm: 'argon2id', memory: 64, passes: 1, fairKey: FAIR_KEY }));
    assert.equal(await named.verifyUnknown(PASSWORD, { algorithm: 'argon2id', memory: 64, passes: 1, fairKey: FAIR_KEY }), false);
    assert.equal(named.verifyUnknownSync(PASSWORD), false);
    outputs.push(await named.hash(PASSWORD, call));
    await assert.rejects(pool.verify(old, PASSWORD), { code: 'ERR_KDF_UNKNOWN_KEY_ID' });
    outputs.push(await pool.pbkdf2(PASSWORD, SALT, 1000, 32, 'sha256', { fairKey: FAIR_KEY }));
    outputs.push(await pool.scrypt(PASSWORD, SALT, 32, { N: 1024, fairKey: FAIR_KEY }));
    const phc = await pool.hash(PASSWORD, { algorithm: 'argon2id', memory: 64, passes: 1, fairKey: FAIR_KEY });
    outputs.push(phc);
    assert.equal(await pool.verify(phc, PASSWORD, { fairKey: FAIR_KEY }), true);
    assert.equal(await pool.verify(phc, `${PASSWORD}x`, { fairKey: FAIR_KEY }), false);
    outputs.push(kdf.pbkdf2Sync(PASSWORD, SALT, 10, 32, 'sha256'));
  } finally {
    await Promise.all([pool.close(), named.close()]);
  }
  const needles = [];
  for (const secret of [PASSWORD, SALT, PEPPER, FAIR_KEY, NAMED_OLD, NAMED_NEW, CALL_PEPPER]) needles.push(Buffer.from(secret));
  for (const out of outputs) {
    if (typeof out === 'string') {
      // A PHC string's salt and hash fields (base64, no padding).
      for (const field of out.split('$').slice(-2)) needles.push(Buffer.from(field));
    } else {
      needles.push(out, Buffer.from(out.toString('hex')), Buffer.from(out.toString('base64').replace(/=+$/, '')));
    }
  }
  const payloads = [...events.flatMap((e) => [e.ctx, e.seen]), ...refusals];
  assert.ok(payloads.length > 50, `${payloads.length} payloads scanned`);
  let scanned = 0;
  for (const payload of payloads) {
    for (const bytes of serialize(payload)) {
      scanned++;
      for (const needle of needles) {
        assert.equal(bytes.indexOf(needle), -1, `a payload holds secret bytes ${needle.toString('hex').slice(0, 16)}...`);
      }
    }
  }
  assert.ok(scanned > payloads.length);
});

// Every string, number and byte array reachable from `value` (own
// properties, enumerable or not, prototypes of plain errors included:
// message, stack, cause), as bytes.
function serialize(value, seen = new Set()) {
  const out = [];
  const visit = (v) => {
    if (v === null || v === undefined) return;
    if (typeof v === 'string') return void out.push(Buffer.from(v));
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return void out.push(Buffer.from(String(v)));
    if (typeof v !== 'object' && typeof v !== 'function') return;
    if (seen.has(v)) return;
    seen.add(v);
    if (ArrayBuffer.isView(v)) return void out.push(Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    if (v instanceof ArrayBuffer) return void out.push(Buffer.from(v));
    for (const key of Reflect.ownKeys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key);
      if (d && 'value' in d) visit(d.value);
    }
    if (v instanceof Error) {
      visit(v.message);
      visit(v.stack);
      visit(v.cause);
    }
  };
  visit(value);
  return out;
}

test.after(() => {
  jobChannel.unsubscribe(handlers);
  dc.unsubscribe('kdfpool:refusal', onRefusal);
});
