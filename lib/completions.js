'use strict';

// How accepted jobs come back from native code. Each call gets a number
// (its id) that goes to native code with the job; native code hands
// finished jobs back in chunks through onCompletions (see
// src/napi/completions.c): per job (id, kind, length, wait_us, run_us) in
// `meta` (the times go to the call's `trace`, if tracing gave it one), and the
// small outputs one after another in `transfer`, which it wipes as soon as
// onCompletions returns. A failed job comes as a record (lib/errors.js),
// made into an error here with the context its call was given. A key is copied out into a Buffer of its own here:
// making the Buffer and the promise in JS costs far less than a native
// Buffer, promise and handle per job, which is what bounds jobs of a
// microsecond (1-iteration PBKDF2, tiny hashes).
//
// calls[id] is the call that job `id` settles, or DROPPED once its call
// settled without it (aborted while running): a number is reused only
// after its job has ended, so a late result never reaches another call.
// A call settles once (call.settled), and what it hooked onto others (an
// AbortSignal's listener, see submit.js's call.onSettle) is let go as it
// settles, before its id can go to another call; forget() acts only on
// the id's current call, so a stale call object can never drop a newer
// call's result.
//
// One table per native module instance (per environment): kept on the
// native exports, so that this file evaluated twice against one instance
// (a test runner that resets its module registry) shares it instead of
// stealing the other's completions. The handler is the first copy's, so a
// call carries its own copy's fromRecord: each copy's failed calls reject
// with that copy's error classes (`err instanceof kdf.PoolSaturatedError`).

const native = require('./native');
const errors = require('./errors');

const DROPPED = 0;
const KIND_BYTES = 0;
const KIND_VALUE = 1;
// 2: an error, its record in extras. KIND_DROPPED: native code heard of the
// abort (cancel() found the job running) and wiped the key unseen; the call
// settled at the abort.
const KIND_DROPPED = 3;
// What a failed job is when native code could not even make its record.
const NO_RECORD = Object.freeze({ status: native.constants.status.ENOMEM });
const WORDS_PER_JOB = 5; // id, kind, length, wait_us, run_us
const META_WORDS = 64 * WORDS_PER_JOB; // COMPLETION_CHUNK jobs
const NOT_RUN_US = 0xffffffff;
const STATE = Symbol.for('kdfpool.completions');

function install() {
  const calls = [];
  const freeIds = [];
  // `meta` and `transfer` (below) exist before the first call of this.
  function onCompletions(count, extras) {
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const at = WORDS_PER_JOB * i;
      const id = meta[at];
      const kind = meta[at + 1];
      const length = meta[at + 2];
      const call = calls[id];
      calls[id] = undefined;
      freeIds.push(id);
      const start = offset;
      if (kind === KIND_BYTES) offset += length;
      const value = kind === KIND_BYTES ? transfer.subarray(start, start + length) : extras && extras[i];
      if (call === DROPPED || call === undefined || call.settled) {
        // Aborted while running: its call has settled already. A large key
        // that came as a Buffer of its own anyway (native code could not
        // be told: the call had no cancel ticket) is wiped: nobody gets it.
        if (kind === KIND_VALUE && value instanceof Uint8Array) value.fill(0);
        continue;
      }
      if (call.trace !== undefined && meta[at + 3] !== NOT_RUN_US) {
        call.trace.waitMs = meta[at + 3] / 1000;
        call.trace.runMs = meta[at + 4] / 1000;
      }
      try {
        settleFrom(call, kind, value);
      } catch (err) {
        // Out of memory for a key's Buffer, an error that cannot be made:
        // this call still settles, and so do the rest of the chunk.
        call.reject(err);
      }
    }
    shrinkWhenIdle();
  }
  const shared = native.setCompletionHandler(onCompletions);
  const meta = new Uint32Array(shared, 0, META_WORDS);
  const transfer = new Uint8Array(shared, META_WORDS * 4);
  return { calls, freeIds };
}

// Settles `call` with what native code reported: for KIND_BYTES, `value`
// is its key in the transfer memory, which native code wipes once the
// handler returns.
function settleFrom(call, kind, value) {
  if (kind === KIND_BYTES) {
    // Off the JS heap, like node:crypto's keys: the collector never leaves
    // moved copies of a key behind.
    const key = Buffer.allocUnsafeSlow(value.length);
    key.set(value);
    call.resolve(key);
  } else if (kind === KIND_VALUE) {
    call.resolve(value);
  } else {
    // A refusal after the job was queued (shed at its deadline, displaced)
    // names the call's pool and deadline, which its submitter set.
    const where = { pool: call.pool, maxWaitMs: call.maxWaitMs, atSubmit: false, rateLimit: call.rateLimit };
    call.reject(call.fromRecord(kind === KIND_DROPPED ? NO_RECORD : value || NO_RECORD, call.context, where));
  }
}

if (native[STATE] === undefined) Object.defineProperty(native, STATE, { value: install() });
const { calls, freeIds } = native[STATE];

// Past this many ids the tables are emptied once no job is outstanding:
// a burst of 100,000 calls would otherwise keep its peak size for good.
const SHRINK_ABOVE = 1024;

// Every id free (none live, none DROPPED): no late result can name one.
function shrinkWhenIdle() {
  if (calls.length > SHRINK_ABOVE && freeIds.length === calls.length) {
    calls.length = 0;
    freeIds.length = 0;
  }
}

/**
 * A call, with its promise, for the job native code is about to accept
 * under call.id. `context`: what errors.fromRecord() needs if the job fails.
 */
function expect(context) {
  const id = freeIds.length !== 0 ? freeIds.pop() : calls.length;
  let resolvePromise;
  let rejectPromise;
  const promise = new Promise((res, rej) => {
    resolvePromise = res;
    rejectPromise = rej;
  });
  const call = {
    id,
    promise,
    context,
    // This lib/ copy's error factory (a second copy over the same native
    // instance has classes of its own).
    fromRecord: errors.fromRecord,
    settled: false,
    // Run once, synchronously, as the call settles (set by its owner).
    onSettle: undefined,
    // The tracing context (lib/tracing.js) that gets the job's times.
    trace: undefined,
    // For a refusal's message (set by its submitter): the pool's name
    // (null: the default pool) and the call's deadline in ms (0: none).
    pool: undefined,
    maxWaitMs: 0,
    // The pool's RateLimit fields for a refusal (lib/ratelimit.js), when on.
    rateLimit: undefined,
    resolve: (value) => settle(call, resolvePromise, value),
    reject: (err) => settle(call, rejectPromise, err),
  };
  calls[id] = call;
  return call;
}

function settle(call, settlePromise, value) {
  if (call.settled) return;
  call.settled = true;
  const { onSettle } = call;
  call.onSettle = undefined;
  try {
    if (onSettle !== undefined) onSettle();
  } finally {
    settlePromise(value);
  }
}

/**
 * Native code will never report the job behind `call`: it was refused, or
 * cancelled while queued (`cancelled`: native.cancel() returned true).
 * Otherwise (aborted while running) its result, when it comes, is dropped.
 * A call whose id has moved on (its job was handed back) is left alone.
 */
function forget(call, cancelled = true) {
  if (calls[call.id] !== call) return;
  if (cancelled) {
    calls[call.id] = undefined;
    freeIds.push(call.id);
    shrinkWhenIdle();
  } else {
    calls[call.id] = DROPPED;
  }
}

module.exports = { expect, forget };
