'use strict';

// How accepted jobs come back from native code. Each call gets a number
// (its id) that goes to native code with the job; native code hands
// finished jobs back in chunks through onCompletions (see
// src/napi/completions.c): per job (id, kind, length) in `meta`, and the
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
// What a failed job is when native code could not even make its record.
const NO_RECORD = Object.freeze({ status: native.constants.status.ENOMEM });
const META_WORDS = 64 * 3; // COMPLETION_CHUNK x (id, kind, length)
const STATE = Symbol.for('kdfpool.completions');

function install() {
  const calls = [];
  const freeIds = [];
  // `meta` and `transfer` (below) exist before the first call of this.
  function onCompletions(count, extras) {
    let offset = 0;
    for (let i = 0; i < count; i++) {
      const id = meta[3 * i];
      const kind = meta[3 * i + 1];
      const length = meta[3 * i + 2];
      const call = calls[id];
      calls[id] = undefined;
      freeIds.push(id);
      let value;
      if (kind === KIND_BYTES) {
        if (call !== DROPPED) {
          // Off the JS heap, like node:crypto's keys: the collector never
          // leaves moved copies of a key behind.
          value = Buffer.allocUnsafeSlow(length);
          value.set(transfer.subarray(offset, offset + length));
        }
        offset += length;
      } else {
        value = extras !== undefined ? extras[i] : undefined;
      }
      if (call === DROPPED) continue; // aborted: its call has settled already
      if (kind === KIND_BYTES || kind === KIND_VALUE) call.resolve(value);
      else call.reject(call.fromRecord(value || NO_RECORD, call.context));
    }
    shrinkWhenIdle();
  }
  const shared = native.setCompletionHandler(onCompletions);
  const meta = new Uint32Array(shared, 0, META_WORDS);
  const transfer = new Uint8Array(shared, META_WORDS * 4);
  return { calls, freeIds };
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
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const call = { id, promise, resolve, reject, context, fromRecord: errors.fromRecord };
  calls[id] = call;
  return call;
}

/**
 * Native code will never report the job behind `call`: it was refused, or
 * cancelled while queued (`cancelled`: native.cancel() returned true).
 * Otherwise (aborted while running) its result, when it comes, is dropped.
 */
function forget(call, cancelled = true) {
  if (cancelled) {
    calls[call.id] = undefined;
    freeIds.push(call.id);
    shrinkWhenIdle();
  } else {
    calls[call.id] = DROPPED;
  }
}

module.exports = { expect, forget };
