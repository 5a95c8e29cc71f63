'use strict';

// A pool as JS sees it: the KDF methods, bound to one native pool (the
// process-wide default one when the handle is null).

const native = require('./native');
const errors = require('./errors');
const v = require('./validate');

// Must match kdf_alg in src/kdf.h.
const ALG = Object.freeze({ PBKDF2: 1, SCRYPT: 2, ARGON2: 3, BCRYPT: 4 });
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
  return [pw, s];
}

class Pool {
  constructor(handle) {
    this._handle = handle;
    // Bound, so `const { pbkdf2 } = kdf` works.
    this.pbkdf2 = this.pbkdf2.bind(this);
    this.pbkdf2Sync = this.pbkdf2Sync.bind(this);
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
      throw errors.fromStatus(code, message, context);
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

  _run(submit, callback) {
    if (callback !== undefined) {
      v.validateFunction(callback, 'callback');
      settleCallback(submit(), callback);
      return undefined;
    }
    try {
      return submit();
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
    const submit = () => {
      const [pw, s] = checkPbkdf2(password, salt, iterations, keylen, digest);
      return this._submit(ALG.PBKDF2, [pw, s], [iterations], digest, keylen, { digest });
    };
    if (callback !== undefined) {
      // node validates every argument, the callback included, before it
      // starts; argument errors throw.
      const [pw, s] = checkPbkdf2(password, salt, iterations, keylen, digest);
      v.validateFunction(callback, 'callback');
      const job = this._submit(ALG.PBKDF2, [pw, s], [iterations], digest, keylen, { digest });
      settleCallback(job, callback);
      return undefined;
    }
    return this._run(submit);
  }

  /** Blocking PBKDF2 on the calling thread (like crypto.pbkdf2Sync). */
  pbkdf2Sync(password, salt, iterations, keylen, digest) {
    const [pw, s] = checkPbkdf2(password, salt, iterations, keylen, digest);
    return runSync(ALG.PBKDF2, [pw, s], [iterations], digest, keylen, { digest });
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

function runSync(alg, inputs, numbers, name, outlen, context) {
  const r = native.runSync(alg, inputs, numbers, name, outlen);
  if (typeof r === 'object' && r !== null && !Array.isArray(r)) return r;
  const code = Array.isArray(r) ? r[0] : r;
  throw errors.fromStatus(code, Array.isArray(r) ? r[1] : undefined, context);
}

module.exports = { Pool, ALG, PRIORITIES, runSync };
