'use strict';

// A pool as JS sees it: the KDF methods, bound to one native pool (the
// process-wide default one when the handle is null, or one made by
// createPool()).

const native = require('./native');
const errors = require('./errors');
const v = require('./validate');
const { checkScrypt } = require('./scrypt');
const { checkArgon2 } = require('./argon2');

// Must match kdf_alg in src/kdf.h.
const ALG = Object.freeze({ PBKDF2: 1, SCRYPT: 2, ARGON2: 3, BCRYPT: 4, BLAKE2B: 5 });
// Must match pool_priority in src/pool.h (0 = unset: the pool's default).
const PRIORITIES = Object.freeze({ normal: 1, low: 2, idle: 3 });
const PRIORITY_NAMES = [undefined, 'normal', 'low', 'idle'];

// Pools made by createPool() with jobs in flight. Their JS objects must stay
// reachable until the jobs settle: collecting a pool closes it.
const busyPools = new Set();

// Node's crypto callbacks run outside any promise chain, so an exception in
// the callback is an uncaughtException, not an unhandled rejection.
function settleCallback(promise, callback) {
  promise.then(
    (key) => process.nextTick(callback, null, key),
    (err) => process.nextTick(callback, err),
  );
}

function checkPbkdf2(password, salt, iterations, keylen, digest) {
  // node:crypto's order: digest, password, salt, iterations, keylen.
  v.validateString(digest, 'digest');
  const pw = v.toBytes(password, 'password');
  const s = v.toBytes(salt, 'salt');
  v.validateInt32(iterations, 'iterations', 1);
  v.validateInt32(keylen, 'keylen', 0);
  return { inputs: [pw, s], numbers: [iterations], name: digest, outlen: keylen, context: { digest } };
}

// { signal, maxWaitMs } of one call, from the object that carries them
// (only the ones that are set; a non-object carries none).
function callOptions(options, where) {
  if (options === undefined || options === null || typeof options !== 'object') return {};
  const { signal, maxWaitMs } = options;
  if (signal !== undefined && (signal === null || typeof signal !== 'object' || !('aborted' in signal))) {
    throw errors.invalidArgType(`${where}.signal`, 'an instance of AbortSignal', signal);
  }
  if (maxWaitMs !== undefined) v.validateInteger(maxWaitMs, `${where}.maxWaitMs`, 0, 2 ** 31 - 1);
  const out = {};
  if (signal !== undefined) out.signal = signal;
  if (maxWaitMs !== undefined) out.maxWaitMs = maxWaitMs;
  return out;
}

// An argument in the options' place that is neither an options object nor
// a function is taken as a (bad) callback, so it raises node:crypto's
// "callback must be a function" error, after the other arguments' errors.
function misplacedCallback(value) {
  return value !== undefined && (value === null || typeof value !== 'object');
}

function abortError(signal) {
  return new errors.AbortError(undefined, { cause: signal.reason });
}

// Native code refused the arguments (it checks what only it can, such as
// the digest name or scrypt's parameters): the algorithm's check() may have
// supplied `context.onInvalid(message)` to raise node:crypto's exact error.
function argumentError(code, message, context = {}) {
  if (code === errors.status.EINVAL && typeof context.onInvalid === 'function') {
    return context.onInvalid(message);
  }
  return errors.fromStatus(code, message, context);
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
  return f.code === errors.status.EDIGEST || f.code === errors.status.EINVAL;
}

function runSync(alg, c) {
  const r = native.runSync(alg, c.inputs, c.numbers, c.name, c.outlen);
  const f = refusalOf(r);
  if (f === null) return r;
  if (isArgumentRefusal(f)) throw argumentError(f.code, f.message, c.context);
  throw errors.fromStatus(f.code, f.message, c.context);
}

class Pool {
  // handle: null for the default pool. defaults: { maxWaitMs }.
  constructor(handle, defaults = {}, name = 'default') {
    this._handle = handle;
    this._name = name;
    this._maxWaitMs = defaults.maxWaitMs || 0;
    this._aborted = 0;
    this._inFlight = 0;
    this._closing = null;
    this._hashLimits = defaults.hashLimits;
    // Bound, so `const { pbkdf2 } = kdf` works.
    for (const m of ['pbkdf2', 'pbkdf2Sync', 'scrypt', 'scryptSync', 'argon2', 'argon2Sync',
      'hash', 'verify', 'stats', 'close']) {
      this[m] = this[m].bind(this);
    }
  }

  get name() {
    return this._name;
  }

  // Submits a job. Throws for argument errors that only native code can see
  // (node throws those synchronously too); returns a rejected promise for
  // refusals by the pool (full, deadline, over budget, closed).
  _submit(alg, c, opts = {}) {
    const { signal } = opts;
    if (signal !== undefined && signal.aborted) return Promise.reject(abortError(signal));
    const maxWaitMs = opts.maxWaitMs !== undefined ? opts.maxWaitMs : this._maxWaitMs;
    const r = native.submit(this._handle, alg, c.inputs, c.numbers, c.name, c.outlen,
      maxWaitMs, signal !== undefined);
    const f = refusalOf(r);
    if (f !== null) {
      if (isArgumentRefusal(f)) throw argumentError(f.code, f.message, c.context);
      return Promise.reject(errors.fromStatus(f.code, f.message, this._refusalContext(f.code, c.context)));
    }
    let promise = signal === undefined ? r : this._abortable(r[0], r[1], signal);
    if (this._handle !== null) promise = this._track(promise);
    return promise;
  }

  _abortable(promise, ticket, signal) {
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        // Removed from the queue if it was still waiting; if it is running,
        // it keeps its thread until it ends and its result is dropped.
        native.cancel(ticket);
        this._aborted++;
        reject(abortError(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      promise.then(
        (key) => { signal.removeEventListener('abort', onAbort); resolve(key); },
        (err) => { signal.removeEventListener('abort', onAbort); reject(err); },
      );
    });
  }

  _track(promise) {
    if (this._inFlight++ === 0) busyPools.add(this);
    const settled = () => {
      if (--this._inFlight === 0) busyPools.delete(this);
    };
    promise.then(settled, settled);
    return promise;
  }

  // Saturation refusals carry a retry estimate.
  _refusalContext(code, context) {
    if (code !== errors.status.EFULL && code !== errors.status.ETIMEDOUT) return context;
    const p = native.pressure(this._handle);
    return typeof p === 'object' ? { ...context, retryAfterMs: p.estimatedWaitMs } : context;
  }

  // The memory budget (for verify's limits), cheaper than stats().
  _maxMemory() {
    const p = native.pressure(this._handle);
    if (typeof p === 'number') throw errors.fromStatus(p, 'pressure() failed');
    return p.maxMemory;
  }

  // Runs `check` (argument validation, may throw) then submits. With a
  // callback, argument errors throw synchronously (as node:crypto does) and
  // everything else reaches the callback; without one, every error is a
  // rejection of the returned promise.
  _call(alg, check, callback) {
    if (callback !== undefined) {
      const [c, opts] = check();
      v.validateFunction(callback, 'callback');
      settleCallback(this._submit(alg, c, opts), callback);
      return undefined;
    }
    try {
      const [c, opts] = check();
      return this._submit(alg, c, opts);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * pbkdf2(password, salt, iterations, keylen, digest[, options][, callback])
   * Same arguments, validation and bytes as crypto.pbkdf2; options are
   * { signal, maxWaitMs }. Without a callback it returns a Promise<Buffer>.
   */
  pbkdf2(password, salt, iterations, keylen, digest, options, callback) {
    if (typeof digest === 'function') {
      callback = digest;
      digest = options = undefined;
    } else if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    if (misplacedCallback(options)) [options, callback] = [undefined, options];
    return this._call(ALG.PBKDF2, () => {
      const c = checkPbkdf2(password, salt, iterations, keylen, digest);
      return [c, callOptions(options, 'options')];
    }, callback);
  }

  /** Blocking PBKDF2 on the calling thread (like crypto.pbkdf2Sync). */
  pbkdf2Sync(password, salt, iterations, keylen, digest) {
    return runSync(ALG.PBKDF2, checkPbkdf2(password, salt, iterations, keylen, digest));
  }

  /**
   * scrypt(password, salt, keylen[, options][, callback]) like crypto.scrypt;
   * options may also carry { signal, maxWaitMs }.
   */
  scrypt(password, salt, keylen, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    return this._call(ALG.SCRYPT, () => {
      const c = checkScrypt(password, salt, keylen, options);
      return [c, callOptions(options, 'options')];
    }, callback);
  }

  /** Blocking scrypt on the calling thread (like crypto.scryptSync). */
  scryptSync(password, salt, keylen, options) {
    return runSync(ALG.SCRYPT, checkScrypt(password, salt, keylen, options));
  }

  /**
   * argon2(algorithm, parameters[, options][, callback]) like crypto.argon2
   * (Node >= 24.7); { signal, maxWaitMs } go in parameters or in options.
   */
  argon2(algorithm, parameters, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    if (misplacedCallback(options)) [options, callback] = [undefined, options];
    return this._call(ALG.ARGON2, () => {
      const c = checkArgon2(algorithm, parameters);
      const opts = options !== undefined
        ? callOptions(options, 'options')
        : callOptions(parameters, 'parameters');
      return [c, opts];
    }, callback);
  }

  /** Blocking Argon2 on the calling thread (like crypto.argon2Sync). */
  argon2Sync(algorithm, parameters) {
    return runSync(ALG.ARGON2, checkArgon2(algorithm, parameters));
  }

  /** Password storage: a PHC string for `password` (see lib/phc.js). */
  hash(password, options) {
    return require('./phc').hash(this, password, options);
  }

  /** Checks `password` against a stored PHC/bcrypt string: Promise<boolean>. */
  verify(phc, password, options) {
    return require('./phc').verify(this, phc, password, options);
  }

  stats() {
    const s = native.stats(this._handle);
    if (typeof s === 'number') throw errors.fromStatus(s, 'stats() failed');
    return {
      name: this._name,
      threads: s.threads,
      running: s.running,
      queued: s.queued,
      maxQueue: s.maxQueue,
      submitted: s.submitted,
      completed: s.completed,
      failed: s.failed,
      rejected: s.rejected,
      cancelled: s.cancelled,
      shed: s.expired,
      aborted: this._aborted,
      memoryInUse: s.memoryInUse,
      maxMemory: s.maxMemory,
      maxWaitMs: this._maxWaitMs,
      priority: PRIORITY_NAMES[s.priority],
      avgRunMs: s.avgRunMs,
      estimatedWaitMs: s.estimatedWaitMs,
      waitMs: { p50: s.waitP50Ms, p99: s.waitP99Ms, max: s.waitMaxMs },
      runMs: { p50: s.runP50Ms, p99: s.runP99Ms, max: s.runMaxMs },
      arena: { maps: s.arenaMaps, bytes: s.arenaBytes },
    };
  }

  /**
   * Closes a pool made by createPool(): queued jobs reject with
   * PoolClosedError, running ones finish; resolves when its threads are gone.
   */
  close() {
    if (this._handle === null) {
      return Promise.reject(new errors.KdfError('The default pool cannot be closed', 'ERR_KDF_DEFAULT_POOL'));
    }
    if (this._closing === null) {
      const r = native.closePool(this._handle);
      this._closing = typeof r === 'number' ? Promise.resolve() : r;
    }
    return this._closing;
  }
}

// Options shared by configure() and createPool() -> native option object.
function parsePoolOptions(options, where) {
  v.validateObject(options, where);
  const out = {};
  if (options.threads !== undefined) {
    v.validateInteger(options.threads, `${where}.threads`, 1, 1024);
    out.threads = options.threads;
  }
  if (options.maxQueue !== undefined) {
    v.validateInteger(options.maxQueue, `${where}.maxQueue`, 1, 1048576);
    out.maxQueue = options.maxQueue;
  }
  if (options.maxMemory !== undefined) {
    v.validateInteger(options.maxMemory, `${where}.maxMemory`, 1024, Number.MAX_SAFE_INTEGER);
    out.maxMemory = options.maxMemory;
  }
  if (options.maxWaitMs !== undefined) {
    v.validateInteger(options.maxWaitMs, `${where}.maxWaitMs`, 0, 2 ** 31 - 1);
  }
  if (options.hashLimits !== undefined) v.validateObject(options.hashLimits, `${where}.hashLimits`);
  if (options.priority !== undefined) {
    if (!Object.hasOwn(PRIORITIES, options.priority)) {
      throw errors.invalidArgValue(`${where}.priority`, options.priority, "must be one of 'normal', 'low', 'idle'");
    }
    out.priority = PRIORITIES[options.priority];
  }
  return out;
}

let poolCounter = 0;

/** A separate pool with its own threads, queue, budget and stats. */
function createPool(options = {}) {
  const nativeOptions = parsePoolOptions(options, 'options');
  let name = options.name;
  if (name === undefined) {
    name = `p${++poolCounter}`;
  } else {
    v.validateString(name, 'options.name');
    // Thread names are "kdf-<name>-<n>", at most 15 characters on Linux.
    if (!/^[A-Za-z0-9_.]{1,7}$/.test(name)) {
      throw errors.invalidArgValue('options.name', name, 'must be 1 to 7 letters, digits, "_" or "."');
    }
  }
  const handle = native.createPool(nativeOptions, name);
  if (typeof handle === 'number') throw errors.fromStatus(handle, 'createPool() failed');
  return new Pool(handle, { maxWaitMs: options.maxWaitMs, hashLimits: options.hashLimits }, name);
}

module.exports = { Pool, ALG, PRIORITIES, runSync, createPool, parsePoolOptions, callOptions };
