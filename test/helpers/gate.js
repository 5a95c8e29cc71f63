'use strict';

// Holds a pool thread on an event instead of on a long KDF job, so that a
// test says when the thread is free again rather than guessing how long a
// hash takes. gate(pool) submits a job (native.testing.gate, test builds
// only) that keeps one thread of `pool` until release(). It is a job like
// any other: it waits in the queue while the threads are busy, counts in
// stats() (submitted, running or queued, then completed), and settles
// through the completion handler: `done` resolves with undefined once
// released, and rejects with PoolClosedError if its pool closes first (a
// gate never holds up a close, a worker's teardown or the process's exit).

const native = require('../../lib/native');
const errors = require('../../lib/errors');
const { expect, forget } = require('../../lib/completions');
const { defaultPool } = require('../../lib/pool');

/**
 * `pool`: a Pool from createPool() (found by its name, which must be unique
 * among this thread's open pools), or the default pool (the kdfpool module
 * itself, or nothing). Returns { done, release() }; release() is false
 * once the gate has ended. A refused gate (queue full) has `done` rejected
 * with the refusal's error.
 */
function gate(pool) {
  if (native.testing === undefined) throw new Error('gates need a test build of the addon: npm run build');
  const isDefault = pool === undefined || pool === defaultPool || typeof pool.createPool === 'function';
  const call = expect();
  const ticket = native.testing.gate(isDefault ? null : pool.name, call.id);
  if (errors.isRecord(ticket)) {
    forget(call);
    return { done: Promise.reject(errors.fromRecord(ticket)), release: () => false };
  }
  return { done: call.promise, release: () => native.testing.release(ticket) };
}

/** A pool of createPool({ threads: 1, ...options }) whose one thread a gate holds: { pool, held }. */
async function heldPool(options) {
  const kdf = require('../..');
  const { until } = require('./until');
  const pool = kdf.createPool({ threads: 1, ...options });
  const held = gate(pool);
  held.done.catch(() => {});
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  return { pool, held };
}

module.exports = { gate, heldPool };
