'use strict';

// Jobs as the native module sees them, below both pool.js and phc/: one
// native pool's submission channel (deadline default, abort, in-flight
// tracking, refusals), the blocking runSync() with the idle timer of its
// scratch memory, and the per-call options { signal, maxWaitMs }. What
// native code refuses comes back as a record, which errors.fromRecord()
// turns into the error, with the job's context.
//
// A job request `c` is what an algorithm's check() returns:
//   { inputs: (Uint8Array|string)[], numbers: number[], name: string|undefined,
//     outlen: number, context: object }
// `context` carries what an error message needs (digest, onInvalid(message)).

const timers = require('node:timers');
const native = require('./native');
const errors = require('./errors');
const { fairKeyOf, FAIR_KEY_MAX_LENGTH } = require('./fairkey');
const v = require('./validate');
const { kibHint } = require('./argon2');
const { expect, forget } = require('./completions');
const tracing = require('./tracing');

const { status, algorithms: ALG } = native.constants;

/**
 * Closes a native pool; resolves once its threads are gone, or at once if
 * it was closed already.
 */
function closeNative(handle) {
  const call = expect();
  const r = native.closePool(handle, call.id);
  if (errors.isRecord(r)) { // closed already
    forget(call);
    return Promise.resolve();
  }
  return call.promise;
}

// Channels of pools made by createPool() with jobs in flight. They hold the
// native handle, which must stay reachable until the jobs settle:
// collecting the handle closes its pool.
const busy = new Set();

// Node's validateAbortSignal only asks for an `aborted` key; we also need
// the listener methods, which are called before the job is submitted.
function isUsableSignal(signal) {
  if (signal instanceof AbortSignal) return true;
  return signal !== null && typeof signal === 'object' && 'aborted' in signal &&
    typeof signal.addEventListener === 'function' && typeof signal.removeEventListener === 'function';
}

const CALL_KEYS = ['signal', 'maxWaitMs', 'fairKey'];
// What callOptions() returns when a call sets none: one shared object, not
// one per call (read only, by Channel.submit).
const NO_CALL_OPTIONS = Object.freeze({});

// { signal, maxWaitMs, fairKey } of one call, from the object that carries
// them (only the ones that are set; fairKey as the name native code
// hashes, see fairkey.js; a non-object carries none). `keys`:
// 'own' for kdfpool's own options object (any other key is an error);
// 'node' for an object of node:crypto's (scrypt's options, argon2's
// parameters), whose other keys node ignores, and so do we — except a
// misspelling of ours (`maxWaitMS`), which would silently drop a deadline;
// undefined when the caller checks the keys itself.
function callOptions(options, where, keys) {
  if (options === undefined || options === null || typeof options !== 'object') return NO_CALL_OPTIONS;
  if (keys === 'own') {
    for (const key in options) {
      if (key === 'fairKey' || key === 'maxWaitMs' || key === 'signal') continue; // CALL_KEYS, the usual case
      v.refuseUnknownKeys(options, where, CALL_KEYS); // any other: the whole check, which throws or passes
      break;
    }
  } else if (keys === 'node') {
    for (const key in options) {
      if (key === 'fairKey' || key === 'maxWaitMs' || key === 'signal') continue; // CALL_KEYS, the usual case
      if (!Object.hasOwn(options, key)) continue;
      const near = CALL_KEYS.find((k) => k !== key && k.toLowerCase() === key.toLowerCase());
      if (near !== undefined && options[key] !== undefined) {
        throw errors.invalidArgValue(`${where}.${key}`, options[key], `is not an option (did you mean "${near}"?)`);
      }
    }
  }
  const { signal, maxWaitMs, fairKey } = options;
  if (signal !== undefined && !isUsableSignal(signal)) {
    throw errors.invalidArgType(`${where}.signal`, 'an instance of AbortSignal', signal);
  }
  if (maxWaitMs !== undefined) v.validateInteger(maxWaitMs, `${where}.maxWaitMs`, 0, 2 ** 31 - 1);
  // The option's name is made only for an error: a string built per call
  // showed in the profile of every keyed call.
  const key = typeof fairKey === 'string' && fairKey.length !== 0 && fairKey.length <= FAIR_KEY_MAX_LENGTH
    ? fairKey : fairKeyOf(fairKey, `${where}.fairKey`);
  if (signal === undefined && maxWaitMs === undefined && key === undefined) return NO_CALL_OPTIONS;
  const out = {};
  if (signal !== undefined) out.signal = signal;
  if (maxWaitMs !== undefined) out.maxWaitMs = maxWaitMs;
  if (key !== undefined) out.fairKey = key;
  return out;
}

function ignore() {}

// A settled promise: its reactions run as the next microtasks.
const DEFERRED = Promise.resolve();

// A signal-like object's `reason` may throw: the call must still settle,
// as aborted, with what it threw as the cause.
function abortError(signal) {
  let reason;
  try {
    reason = signal.reason;
  } catch (err) {
    reason = err;
  }
  return new errors.AbortError(undefined, { cause: reason });
}

// Refusals about the arguments (node:crypto throws those synchronously).
function isArgumentRefusal(record) {
  return record.status === status.EDIGEST || record.status === status.EINVAL;
}

// What an error about job `c` needs beyond c.context: for Argon2, the
// hint a MemoryLimitError gives when memory looks like bytes, not KiB.
function contextOf(alg, c) {
  return alg === ALG.ARGON2 ? { ...c.context, hint: kibHint(c.numbers[3]) } : c.context;
}

// The *Sync calls' scratch: native code keeps it per environment between
// calls (so a loop of argon2Sync does not fault in fresh pages each time)
// and this timer gives it back once no memory-hard call has come for
// arenaIdleMs, as a pool worker's idle arena is. Unref'd: a kept arena never
// keeps the process alive. Environment teardown frees it natively.
const arenaIdleMs = native.constants.arenaIdleMs;
let arenaTimer = null;

function releaseSyncArena() {
  arenaTimer = null;
  native.releaseSyncArena();
}

function syncArenaUsed() {
  if (arenaTimer !== null) {
    arenaTimer.refresh();
    return;
  }
  arenaTimer = timers.setTimeout(releaseSyncArena, arenaIdleMs);
  if (typeof arenaTimer.unref === 'function') arenaTimer.unref();
}

/** Runs a job on the calling thread (the *Sync functions): the result or a throw. */
function runSync(alg, c) {
  return tracing.watched() ? tracing.traceSync(alg, () => runSyncNow(alg, c)) : runSyncNow(alg, c);
}

function runSyncNow(alg, c) {
  const r = native.runSync(alg, c.inputs, c.numbers, c.name, c.outlen);
  if (alg === ALG.ARGON2 || alg === ALG.SCRYPT) syncArenaUsed();
  if (!errors.isRecord(r)) return r;
  throw errors.fromRecord(r, contextOf(alg, c));
}

/**
 * The submission channel of one native pool (handle null: the process-wide
 * default pool). Owned by a Pool; phc/ reaches it only through the accessor
 * the Pool hands down.
 */
class Channel {
  #handle;
  #maxWaitMs;
  #name;
  #aborted = 0;
  #inFlight = 0;
  // The pool's fairKey function (undefined: none), for calls naming no key.
  #fairKey;
  #rateLimit;

  // name: the pool's, for tracing.
  constructor(handle, maxWaitMs = 0, name = 'default') {
    this.#handle = handle;
    this.#maxWaitMs = maxWaitMs;
    this.#name = name;
  }

  get handle() {
    return this.#handle;
  }

  /** The deadline (ms in the queue, 0 = none) of calls that set none. */
  get maxWaitMs() {
    return this.#maxWaitMs;
  }

  set maxWaitMs(ms) {
    this.#maxWaitMs = ms;
  }

  /** The pool's RateLimit fields for its refusals (lib/ratelimit.js), or undefined when off. */
  get rateLimit() {
    return this.#rateLimit;
  }

  set rateLimit(fields) {
    this.#rateLimit = fields;
  }

  /** The pool's fairKey function: () => string | undefined, or undefined for none. */
  get fairKey() {
    return this.#fairKey;
  }

  set fairKey(fn) {
    this.#fairKey = fn;
  }

  /** Calls whose AbortSignal fired while their job was queued or running. */
  get aborted() {
    return this.#aborted;
  }

  /**
   * Submits a job. Throws for argument errors that only native code can see
   * (node throws those synchronously too); returns a rejected promise for
   * refusals by the pool (full, deadline, over budget, closed).
   */
  submit(alg, c, opts = NO_CALL_OPTIONS) {
    if (opts.fairKey === undefined && this.#fairKey !== undefined) {
      let key;
      try {
        key = this.#poolFairKey();
      } catch (err) {
        return Promise.reject(err);
      }
      if (key !== undefined) opts = { ...opts, fairKey: key };
    }
    if (!tracing.watched()) return this.#submitJob(alg, c, opts, undefined);
    return tracing.traceJob(this.#name, alg, (trace) => this.#submitJob(alg, c, opts, trace));
  }

  // The pool's key for a call that names none: its fairKey function's
  // string, checked as a call's own (undefined: none). What the function
  // throws, or a result fairKeyOf() refuses, fails the call with
  // ERR_KDF_FAIR_KEY (a rejection, never a throw out of submit).
  #poolFairKey() {
    const fairKey = this.#fairKey;
    let name;
    try {
      name = fairKey();
    } catch (err) {
      throw errors.fairKeyFailed(this.#poolName(), true, err);
    }
    try {
      return fairKeyOf(name, 'fairKey()');
    } catch (err) {
      throw errors.fairKeyFailed(this.#poolName(), false, err);
    }
  }

  // submit(), with the tracing context the completion fills in (or undefined).
  #submitJob(alg, c, opts, trace) {
    const { signal } = opts;
    if (signal === undefined) return this.#submitNow(alg, c, opts, trace);
    if (signal.aborted) return Promise.reject(abortError(signal));
    // The listener goes on before the job is queued: once it is, nothing
    // that could throw may stand between it and the promise that settles it.
    // Set once submitted; onAbort may run before (a getter among the inputs).
    // eslint-disable-next-line prefer-const
    let call;
    // eslint-disable-next-line prefer-const
    let ticket;
    let fired = false;
    const onAbort = () => {
      // A signal shared with later calls may fire after this one settled
      // (its listener goes as it settles, see below; this is the guard).
      if (call !== undefined && call.settled) return;
      fired = true;
      this.#aborted++;
      if (call === undefined) return; // not submitted yet: see below
      abandon();
    };
    // Removed from the queue if it was still waiting (it never runs); if it
    // is running, it keeps its thread until it ends, unheard. The call is
    // rejected whatever cancel() does (should it throw, the job counts as
    // running: its result, if it comes, is dropped).
    const abandon = () => {
      let cancelled = false;
      try {
        cancelled = ticket ? native.cancel(ticket) : false;
      } catch {
        cancelled = false;
      }
      forget(call, cancelled);
      call.reject(abortError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const unlisten = () => {
      try {
        signal.removeEventListener('abort', onAbort);
      } catch {
        // The call is settled either way; the listener only holds a closure.
      }
    };
    let r;
    try {
      r = this.#submit(alg, c, opts, true, trace);
    } catch (err) {
      unlisten();
      throw err;
    }
    if (r.refused !== undefined) {
      unlisten();
      return r.refused;
    }
    ({ call, ticket } = r);
    // Off the signal the moment the call settles, not a microtask later:
    // by then its id may belong to another call.
    call.onSettle = unlisten;
    // An abort often rejects the call before its caller awaits it; a call
    // with a signal has never reported that as an unhandled rejection.
    call.promise.catch(ignore);
    // A getter among the inputs may have aborted while submit() read them.
    if (fired) abandon();
    return this.#handle !== null ? this.#track(call.promise) : call.promise;
  }

  #submitNow(alg, c, opts, trace) {
    const r = this.#submit(alg, c, opts, false, trace);
    if (r.refused !== undefined) return r.refused;
    return this.#handle !== null ? this.#track(r.call.promise) : r.call.promise;
  }

  // Native submit: { refused: a promise that rejects } for refusals by the
  // pool, a throw for argument errors; accepted: { call } (see expect()),
  // and with `abortable` the job's cancel ticket (null if none could be
  // made).
  #submit(alg, c, opts, abortable, trace) {
    const maxWaitMs = opts.maxWaitMs !== undefined ? opts.maxWaitMs : this.#maxWaitMs;
    // The call keeps the job's context (never its inputs) for a failure.
    const call = expect(contextOf(alg, c));
    call.trace = trace;
    call.pool = this.#poolName();
    call.maxWaitMs = maxWaitMs;
    call.rateLimit = this.#rateLimit;
    let r;
    try {
      // Numbers and inputs one by one, not in arrays (binding.c says why).
      const n = c.numbers;
      r = native.submit(this.#handle, alg, c.name, c.outlen, maxWaitMs, abortable, call.id, opts.fairKey,
        n[0] ?? 0, n[1] ?? 0, n[2] ?? 0, n[3] ?? 0, n[4] ?? 0, n[5] ?? 0, ...c.inputs);
    } catch (err) {
      forget(call);
      throw err;
    }
    if (!errors.isRecord(r)) return { call, ticket: r };
    forget(call);
    const err = errors.fromRecord(r, call.context, { pool: call.pool, maxWaitMs, atSubmit: true, rateLimit: call.rateLimit });
    if (isArgumentRefusal(r)) throw err;
    // Rejected a moment later, not now: a caller that awaits or handles
    // the promise at once (nearly all do) has its handler on it first, so
    // node's unhandled-rejection tracking (a rejected promise with no
    // handler, then one added) never runs, which costs more than the rest
    // of a refusal. One that never handles it still gets node's
    // unhandledRejection, as for any rejection.
    DEFERRED.then(() => call.reject(err));
    return { refused: call.promise };
  }

  /** The pool's memory budget in bytes (cheaper than stats()). */
  maxMemory() {
    const m = native.maxMemory(this.#handle);
    if (errors.isRecord(m)) throw errors.fromRecord(m, undefined, { pool: this.#poolName() });
    return m;
  }

  // The pool as errors name it: its name, null for the default pool
  // (see errors.saturated()).
  #poolName() {
    return this.#handle === null ? null : this.#name;
  }

  #track(promise) {
    if (this.#inFlight++ === 0) busy.add(this);
    const settled = () => {
      if (--this.#inFlight === 0) busy.delete(this);
    };
    promise.then(settled, settled);
    return promise;
  }

  /** The pool's counters, as Pool#stats() returns them (`name` is the pool's). */
  stats(name) {
    const s = native.stats(this.#handle, name, this.#aborted, this.#maxWaitMs);
    if (errors.isRecord(s)) throw errors.fromRecord(s, undefined, { pool: this.#poolName() });
    return s;
  }
}

module.exports = { Channel, runSync, callOptions, closeNative };
