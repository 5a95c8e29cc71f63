'use strict';

// Jobs as the native module sees them, below both pool.js and phc/: one
// native pool's submission channel (deadline default, abort, in-flight
// tracking, refusal decoding), the blocking runSync() with the idle timer
// of its scratch memory, and the per-call options { signal, maxWaitMs }.
//
// A job request `c` is what an algorithm's check() returns:
//   { inputs: (Uint8Array|string)[], numbers: number[], name: string|undefined,
//     outlen: number, context: object }
// `context` carries what an error message needs (digest, onInvalid(message)).

const timers = require('node:timers');
const native = require('./native');
const errors = require('./errors');
const v = require('./validate');
const { kibHint } = require('./argon2');
const { expect, forget } = require('./completions');

const { status, algorithms: ALG } = native.constants;

// Rejections made on the pool threads' completions use the same registry.
native.setErrorFactory((code, message) => errors.fromStatus(code, message));

/**
 * Closes a native pool; resolves once its threads are gone, or at once if
 * it was closed already.
 */
function closeNative(handle) {
  const call = expect();
  const r = native.closePool(handle, call.id);
  if (typeof r === 'number') {
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

const CALL_KEYS = ['signal', 'maxWaitMs'];
// What callOptions() returns when a call sets neither: one shared object,
// not one per call (read only, by Channel.submit).
const NO_CALL_OPTIONS = Object.freeze({});

// { signal, maxWaitMs } of one call, from the object that carries them
// (only the ones that are set; a non-object carries none). `keys`:
// 'own' for kdfpool's own options object (any other key is an error);
// 'node' for an object of node:crypto's (scrypt's options, argon2's
// parameters), whose other keys node ignores, and so do we — except a
// misspelling of ours (`maxWaitMS`), which would silently drop a deadline;
// undefined when the caller checks the keys itself.
function callOptions(options, where, keys) {
  if (options === undefined || options === null || typeof options !== 'object') return NO_CALL_OPTIONS;
  if (keys === 'own') {
    v.refuseUnknownKeys(options, where, CALL_KEYS);
  } else if (keys === 'node') {
    for (const key of Object.keys(options)) {
      const near = CALL_KEYS.find((k) => k !== key && k.toLowerCase() === key.toLowerCase());
      if (near !== undefined && options[key] !== undefined) {
        throw errors.invalidArgValue(`${where}.${key}`, options[key], `is not an option (did you mean ${near}?)`);
      }
    }
  }
  const { signal, maxWaitMs } = options;
  if (signal !== undefined && !isUsableSignal(signal)) {
    throw errors.invalidArgType(`${where}.signal`, 'an instance of AbortSignal', signal);
  }
  if (maxWaitMs !== undefined) v.validateInteger(maxWaitMs, `${where}.maxWaitMs`, 0, 2 ** 31 - 1);
  if (signal === undefined && maxWaitMs === undefined) return NO_CALL_OPTIONS;
  const out = {};
  if (signal !== undefined) out.signal = signal;
  if (maxWaitMs !== undefined) out.maxWaitMs = maxWaitMs;
  return out;
}

function abortError(signal) {
  return new errors.AbortError(undefined, { cause: signal.reason });
}

// What native submit()/runSync() return when they refuse: a code, or
// [code, message]. null for anything else (a result).
function refusalOf(r) {
  if (typeof r === 'number') return { code: r, message: undefined };
  if (Array.isArray(r) && typeof r[0] === 'number') return { code: r[0], message: r[1] };
  return null;
}

// Refusals about the arguments (node:crypto throws those synchronously).
function isArgumentRefusal(f) {
  return f.code === status.EDIGEST || f.code === status.EINVAL;
}

// Native code refused the arguments (it checks what only it can, such as
// the digest name or scrypt's parameters): the algorithm's check() may have
// supplied `context.onInvalid(message)` to raise node:crypto's exact error.
function argumentError(f, context = {}) {
  if (f.code === status.EINVAL && typeof context.onInvalid === 'function') {
    return context.onInvalid(f.message);
  }
  return errors.fromStatus(f.code, f.message, context);
}

// Bytes a job reserves from its pool's budget, as the native prepare step
// counts them (Argon2: m' = 4p * floor(m / 4p) blocks of 1 KiB; scrypt:
// 128 * r * (N + p + 2)); 0 for the others.
function memoryOf(alg, c) {
  if (alg === ALG.ARGON2) {
    const [, , lanes, kib] = c.numbers;
    return 4 * lanes * Math.floor(kib / (4 * lanes)) * 1024;
  }
  if (alg === ALG.SCRYPT) {
    const [N, r, p] = c.numbers;
    return 128 * r * (N + p + 2);
  }
  return 0;
}

// What a MemoryLimitError says of job `c`: its need, the budget, a KiB hint.
function memoryContext(alg, c, maxMemory) {
  return {
    memoryNeeded: memoryOf(alg, c),
    maxMemory,
    hint: alg === ALG.ARGON2 ? kibHint(c.numbers[3]) : '',
  };
}

// The *Sync calls' scratch: native code keeps it per environment between
// calls (so a loop of argon2Sync does not fault in fresh pages each time)
// and this timer gives it back once no memory-hard call has come for
// arenaIdleMs, as a pool worker's idle arena is. Unref'd: a kept arena never
// keeps the process alive. Environment teardown frees it natively.
let arenaIdleMs = native.constants.arenaIdleMs;
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

/** For tests: the idle time of later *Sync arenas (ms). */
function setSyncArenaIdleMs(ms) {
  arenaIdleMs = ms;
  if (arenaTimer !== null) timers.clearTimeout(arenaTimer);
  arenaTimer = null;
}

/** Runs a job on the calling thread (the *Sync functions): the result or a throw. */
function runSync(alg, c) {
  const r = native.runSync(alg, c.inputs, c.numbers, c.name, c.outlen);
  if (memoryOf(alg, c) !== 0) syncArenaUsed();
  const f = refusalOf(r);
  if (f === null) return r;
  if (isArgumentRefusal(f)) throw argumentError(f, c.context);
  throw errors.fromStatus(f.code, f.message, c.context);
}

/**
 * The submission channel of one native pool (handle null: the process-wide
 * default pool). Owned by a Pool; phc/ reaches it only through the accessor
 * the Pool hands down.
 */
class Channel {
  #handle;
  #maxWaitMs;
  #aborted = 0;
  #inFlight = 0;

  constructor(handle, maxWaitMs = 0) {
    this.#handle = handle;
    this.#maxWaitMs = maxWaitMs;
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
    const { signal } = opts;
    if (signal === undefined) return this.#submitNow(alg, c, opts.maxWaitMs);
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
      fired = true;
      this.#aborted++;
      if (call === undefined) return; // not submitted yet: see below
      // Removed from the queue if it was still waiting (it never runs); if
      // it is running, it keeps its thread until it ends, unheard.
      forget(call, ticket ? native.cancel(ticket) : false);
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
      r = this.#submit(alg, c, opts.maxWaitMs, true);
    } catch (err) {
      unlisten();
      throw err;
    }
    if (r.refused !== undefined) {
      unlisten();
      return r.refused;
    }
    ({ call, ticket } = r);
    // A getter among the inputs may have aborted while submit() read them.
    if (fired) {
      forget(call, ticket ? native.cancel(ticket) : false);
      call.reject(abortError(signal));
    }
    call.promise.then(unlisten, unlisten);
    let promise = this.#withMemoryDetail(call.promise, alg, c);
    if (this.#handle !== null) promise = this.#track(promise);
    return promise;
  }

  #submitNow(alg, c, maxWaitMs) {
    const r = this.#submit(alg, c, maxWaitMs, false);
    if (r.refused !== undefined) return r.refused;
    const promise = this.#withMemoryDetail(r.call.promise, alg, c);
    return this.#handle !== null ? this.#track(promise) : promise;
  }

  // Native submit: { refused: a rejected promise } for refusals by the
  // pool, a throw for argument errors; accepted: { call } (see expect()),
  // and with `abortable` the job's cancel ticket (null if none could be
  // made).
  #submit(alg, c, callMaxWaitMs, abortable) {
    const maxWaitMs = callMaxWaitMs !== undefined ? callMaxWaitMs : this.#maxWaitMs;
    const call = expect();
    let r;
    try {
      r = native.submit(this.#handle, alg, c.inputs, c.numbers, c.name, c.outlen, maxWaitMs, abortable, call.id);
    } catch (err) {
      forget(call);
      throw err;
    }
    const f = refusalOf(r);
    if (f === null) return { call, ticket: r };
    forget(call);
    if (isArgumentRefusal(f)) throw argumentError(f, c.context);
    return {
      refused: Promise.reject(errors.fromStatus(f.code, f.message, this.#refusalContext(f.code, c.context, alg, c))),
    };
  }

  // A job accepted and then refused for memory (configure() lowered the
  // budget while it was queued) rejects from native code without the
  // numbers: add them. (Only the numbers are kept, not the job's inputs.)
  #withMemoryDetail(promise, alg, c) {
    if (memoryOf(alg, c) === 0) return promise;
    const job = { numbers: c.numbers.slice() };
    return promise.catch((err) => {
      if (err instanceof errors.MemoryLimitError && err.memoryNeeded === undefined) {
        const m = memoryContext(alg, job, this.#budgetOrNull());
        throw new errors.MemoryLimitError(m.memoryNeeded, m.maxMemory, m.hint);
      }
      throw err;
    });
  }

  #budgetOrNull() {
    const p = native.pressure(this.#handle);
    return typeof p === 'object' ? p.maxMemory : null;
  }

  /** The pool's memory budget in bytes (cheaper than stats()). */
  maxMemory() {
    const p = native.pressure(this.#handle);
    if (typeof p === 'number') throw errors.fromStatus(p, 'pressure() failed');
    return p.maxMemory;
  }

  #track(promise) {
    if (this.#inFlight++ === 0) busy.add(this);
    const settled = () => {
      if (--this.#inFlight === 0) busy.delete(this);
    };
    promise.then(settled, settled);
    return promise;
  }

  // Saturation refusals carry a retry estimate; memory refusals the job's
  // need and the pool's budget.
  #refusalContext(code, context, alg, c) {
    if (code === status.EMEMLIMIT) return { ...context, ...memoryContext(alg, c, this.#budgetOrNull()) };
    if (code !== status.EFULL && code !== status.ETIMEDOUT) return context;
    const p = native.pressure(this.#handle);
    return typeof p === 'object' ? { ...context, retryAfterMs: p.estimatedWaitMs } : context;
  }
}

module.exports = {
  Channel, runSync, callOptions, setSyncArenaIdleMs, closeNative,
  /** For tests that call native.submit() themselves. */
  expectCompletion: expect,
};
