'use strict';

// A pool as JS sees it: the KDF methods, bound to one native pool (the
// process-wide default one when the handle is null).

const native = require('./native');
const errors = require('./errors');
const v = require('./validate');
const { checkScrypt } = require('./scrypt');
const { checkArgon2 } = require('./argon2');

// Must match kdf_alg in src/kdf.h.
const ALG = Object.freeze({ PBKDF2: 1, SCRYPT: 2, ARGON2: 3, BCRYPT: 4, BLAKE2B: 5 });
const PRIORITIES = Object.freeze({ normal: 0, low: 1, idle: 2 });
const PRIORITY_NAMES = ['normal', 'low', 'idle'];

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

class Pool {
  constructor(handle) {
    this._handle = handle;
    // Bound, so `const { pbkdf2 } = kdf` works.
    this.pbkdf2 = this.pbkdf2.bind(this);
    this.pbkdf2Sync = this.pbkdf2Sync.bind(this);
    this.scrypt = this.scrypt.bind(this);
    this.scryptSync = this.scryptSync.bind(this);
    this.argon2 = this.argon2.bind(this);
    this.argon2Sync = this.argon2Sync.bind(this);
    this.stats = this.stats.bind(this);
  }

  // Submits a job. Throws for argument errors that only native code can see
  // (node throws those synchronously too); returns a rejected promise for
  // refusals by the pool (full, over budget, closed).
  _submit(alg, inputs, numbers, name, outlen, context) {
    const r = native.submit(this._handle, alg, inputs, numbers, name, outlen);
    if (typeof r === 'object' && r !== null && !Array.isArray(r)) return r;
    const code = Array.isArray(r) ? r[0] : r;
    const message = Array.isArray(r) ? r[1] : undefined;
    if (code === errors.status.EDIGEST || code === errors.status.EINVAL) {
      throw argumentError(code, message, context);
    }
    return Promise.reject(errors.fromStatus(code, message, this._refusalContext(code, context)));
  }

  _refusalContext(code, context) {
    const s = native.stats(this._handle);
    if (typeof s !== 'object') return context;
    if (code === errors.status.EFULL) return { ...context, retryAfterMs: s.estimatedWaitMs };
    if (code === errors.status.EMEMLIMIT) return { ...context, maxMemory: s.maxMemory };
    return context;
  }

  // Runs `check` (argument validation, may throw) then submits. With a
  // callback, argument errors throw synchronously (as node:crypto does) and
  // everything else reaches the callback; without one, every error is a
  // rejection of the returned promise.
  _call(alg, check, callback) {
    if (callback !== undefined) {
      const c = check();
      v.validateFunction(callback, 'callback');
      settleCallback(this._submit(alg, c.inputs, c.numbers, c.name, c.outlen, c.context), callback);
      return undefined;
    }
    try {
      const c = check();
      return this._submit(alg, c.inputs, c.numbers, c.name, c.outlen, c.context);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * pbkdf2(password, salt, iterations, keylen, digest[, callback])
   * Same arguments, validation and bytes as crypto.pbkdf2. Without a callback
   * it returns a Promise<Buffer>.
   */
  pbkdf2(password, salt, iterations, keylen, digest, callback) {
    if (typeof digest === 'function') {
      callback = digest;
      digest = undefined;
    }
    return this._call(ALG.PBKDF2, () => checkPbkdf2(password, salt, iterations, keylen, digest), callback);
  }

  /** Blocking PBKDF2 on the calling thread (like crypto.pbkdf2Sync). */
  pbkdf2Sync(password, salt, iterations, keylen, digest) {
    return runSync(ALG.PBKDF2, checkPbkdf2(password, salt, iterations, keylen, digest));
  }

  /**
   * scrypt(password, salt, keylen[, options][, callback]) like crypto.scrypt.
   */
  scrypt(password, salt, keylen, options, callback) {
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    return this._call(ALG.SCRYPT, () => checkScrypt(password, salt, keylen, options), callback);
  }

  scryptSync(password, salt, keylen, options) {
    return runSync(ALG.SCRYPT, checkScrypt(password, salt, keylen, options));
  }

  /**
   * argon2(algorithm, parameters[, callback]) like crypto.argon2 (Node 24.7).
   */
  argon2(algorithm, parameters, callback) {
    return this._call(ALG.ARGON2, () => checkArgon2(algorithm, parameters), callback);
  }

  argon2Sync(algorithm, parameters) {
    return runSync(ALG.ARGON2, checkArgon2(algorithm, parameters));
  }

  stats() {
    const s = native.stats(this._handle);
    if (typeof s === 'number') throw errors.fromStatus(s, 'stats() failed');
    return {
      threads: s.threads,
      running: s.running,
      queued: s.queued,
      maxQueue: s.maxQueue,
      submitted: s.submitted,
      completed: s.completed,
      failed: s.failed,
      rejected: s.rejected,
      cancelled: s.cancelled,
      expired: s.expired,
      memoryInUse: s.memoryInUse,
      maxMemory: s.maxMemory,
      priority: PRIORITY_NAMES[s.priority],
      avgRunMs: s.avgRunMs,
      estimatedWaitMs: s.estimatedWaitMs,
      waitMs: { p50: s.waitP50Ms, p99: s.waitP99Ms, max: s.waitMaxMs },
      runMs: { p50: s.runP50Ms, p99: s.runP99Ms, max: s.runMaxMs },
      arena: { maps: s.arenaMaps, bytes: s.arenaBytes },
    };
  }
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

function runSync(alg, c) {
  const r = native.runSync(alg, c.inputs, c.numbers, c.name, c.outlen);
  if (typeof r === 'object' && r !== null && !Array.isArray(r)) return r;
  const code = Array.isArray(r) ? r[0] : r;
  const message = Array.isArray(r) ? r[1] : undefined;
  if (code === errors.status.EDIGEST || code === errors.status.EINVAL) {
    throw argumentError(code, message, c.context);
  }
  throw errors.fromStatus(code, message, c.context);
}

module.exports = { Pool, ALG, PRIORITIES, runSync };
