'use strict';

// A pool as JS sees it: the KDF methods, bound to one native pool (the
// process-wide default one when the handle is null, or one made by
// createPool()).

const native = require('./native');
const errors = require('./errors');
const v = require('./validate');
const { Channel, runSync, callOptions, closeNative } = require('./submit');
const { checkPbkdf2, pbkdf2Refusal } = require('./pbkdf2');
const { checkScrypt } = require('./scrypt');
const { checkArgon2 } = require('./argon2');
const phc = require('./phc/api');
const { readLimits } = require('./phc/limits');
const { readSecret } = require('./phc/secrets');
const { parseHostSlots } = require('./hostslots');
const { readOptions: readTuneOptions, tuneOn } = require('./tune');
const { RateLimitFields } = require('./ratelimit');

const { algorithms: ALG, priorities: PRIORITIES } = native.constants;
const PRIORITY_LIST = Object.keys(PRIORITIES).map((name) => `'${name}'`).join(', ');

// Node's crypto callbacks run outside any promise chain, so an exception in
// the callback is an uncaughtException, not an unhandled rejection.
function settleCallback(promise, callback) {
  promise.then(
    (key) => process.nextTick(callback, null, key),
    (err) => process.nextTick(callback, err),
  );
}

// An argument in the options' place that is neither an options object nor
// a function is taken as a (bad) callback, so it raises node:crypto's
// "callback must be a function" error, after the other arguments' errors.
function misplacedCallback(value) {
  return value !== undefined && (value === null || typeof value !== 'object');
}

// A function given as the last argument, in a slot before the callback's
// (scrypt(password, salt, callback), pbkdf2(password, salt, iterations,
// callback)), is still the caller's callback: node:crypto then throws that
// slot's argument error synchronously, so the call takes the callback form
// (which throws argument errors) while the slot keeps the function for
// validation, and node's message ("Received function cb") with it.
function trailingCallback(args) {
  for (let i = args.length - 1; i >= 0; i--) {
    if (args[i] !== undefined) return typeof args[i] === 'function' ? args[i] : undefined;
  }
  return undefined;
}

// Sets a pool's call defaults ({ maxWaitMs, hashLimits, secret, fairKey,
// rateLimitHeaders }, each if defined; a null secret or fairKey removes
// it); assigned in Pool's
// static block, used by configure() only.
let setDefaults;

// A pool's Argon2 secret, one key or named keys (lib/phc/secrets.js): our
// own copies of what the user gave (their Buffers stay theirs), made when
// the pool is made or configured, wiped when replaced or when the pool
// closes. null clears it.
function copySecret(value, where) {
  if (value === null) return undefined;
  return readSecret(value, where).copy();
}

class Pool {
  #name;
  #jobs;
  #hashLimits;
  #secret;
  #closing = null;
  // What phc/api.js may use of this pool (documented there).
  #phcView;

  // handle: null for the default pool. defaults: { maxWaitMs, hashLimits,
  // secret (already our copy), fairKey (a function), rateLimitHeaders }.
  constructor(handle, defaults = {}, name = 'default') {
    this.#name = name;
    this.#jobs = new Channel(handle, defaults.maxWaitMs || 0, name);
    this.#jobs.fairKey = defaults.fairKey;
    if (defaults.rateLimitHeaders) this.#jobs.rateLimit = new RateLimitFields(() => this.stats());
    this.#hashLimits = defaults.hashLimits;
    this.#secret = defaults.secret;
    const jobs = this.#jobs;
    this.#phcView = Object.freeze({
      submit: (alg, c, opts) => jobs.submit(alg, c, opts),
      maxMemory: () => jobs.maxMemory(),
      hashLimits: () => this.#hashLimits,
      secret: () => this.#secret,
    });
    // Bound, so `const { pbkdf2 } = kdf` works.
    for (const m of ['pbkdf2', 'pbkdf2Sync', 'scrypt', 'scryptSync', 'argon2', 'argon2Sync',
      'hash', 'hashSync', 'verify', 'verifySync', 'verifyUnknown', 'verifyUnknownSync', 'needsRehash', 'rehashTarget', 'stats', 'tune', 'close']) {
      this[m] = this[m].bind(this);
    }
  }

  static {
    setDefaults = (pool, { maxWaitMs, hashLimits, secret, fairKey, rateLimitHeaders }) => {
      if (maxWaitMs !== undefined) pool.#jobs.maxWaitMs = maxWaitMs;
      if (fairKey !== undefined) pool.#jobs.fairKey = fairKey === null ? undefined : fairKey;
      if (rateLimitHeaders !== undefined) {
        pool.#jobs.rateLimit = rateLimitHeaders ? new RateLimitFields(() => pool.stats()) : undefined;
      }
      if (hashLimits !== undefined) pool.#hashLimits = hashLimits;
      if (secret !== undefined) {
        // The new keys are copied first: the old ones go only once they are in.
        const old = pool.#secret;
        pool.#secret = copySecret(secret, 'options.secret');
        if (old !== undefined) old.wipe();
      }
    };
  }

  get name() {
    return this.#name;
  }

  // Runs `check` (argument validation, may throw) then submits. With a
  // callback, argument errors throw synchronously (as node:crypto does) and
  // everything else reaches the callback; without one, every error is a
  // rejection of the returned promise. `check` returns [request, options]
  // and, where the running node would refuse a valid request (lib/host.js),
  // that error, which then settles the call instead of a job.
  #call(alg, check, callback) {
    if (callback !== undefined) {
      const [c, opts, refusal] = check();
      v.validateFunction(callback, 'callback');
      settleCallback(this.#submitChecked(alg, c, opts, refusal), callback);
      return undefined;
    }
    try {
      const [c, opts, refusal] = check();
      return this.#submitChecked(alg, c, opts, refusal);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #submitChecked(alg, c, opts, refusal) {
    return refusal ? Promise.reject(refusal) : this.#jobs.submit(alg, c, opts);
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
    if (callback === undefined) callback = trailingCallback([password, salt, iterations, keylen]);
    return this.#call(ALG.PBKDF2, () => {
      const c = checkPbkdf2(password, salt, iterations, keylen, digest);
      return [c, callOptions(options, 'options', 'own'), pbkdf2Refusal(c)];
    }, callback);
  }

  /** Blocking PBKDF2 on the calling thread (like crypto.pbkdf2Sync). */
  pbkdf2Sync(password, salt, iterations, keylen, digest) {
    const c = checkPbkdf2(password, salt, iterations, keylen, digest);
    const refusal = pbkdf2Refusal(c);
    if (refusal) throw refusal;
    return runSync(ALG.PBKDF2, c);
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
    if (callback === undefined) callback = trailingCallback([password, salt, keylen]);
    return this.#call(ALG.SCRYPT, () => {
      const c = checkScrypt(password, salt, keylen, options);
      return [c, callOptions(options, 'options', 'node')];
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
    if (callback === undefined) callback = trailingCallback([algorithm, parameters]);
    return this.#call(ALG.ARGON2, () => {
      const c = checkArgon2(algorithm, parameters);
      const opts = options !== undefined
        ? callOptions(options, 'options', 'own')
        : callOptions(parameters, 'parameters', 'node');
      return [c, opts];
    }, callback);
  }

  /** Blocking Argon2 on the calling thread (like crypto.argon2Sync). */
  argon2Sync(algorithm, parameters) {
    return runSync(ALG.ARGON2, checkArgon2(algorithm, parameters));
  }

  /** Password storage: a PHC string for `password` (see lib/phc/api.js). */
  hash(password, options) {
    return phc.hash(this.#phcView, password, options);
  }

  /** hash() on the calling thread (blocks it): the same string, limits and errors. */
  hashSync(password, options) {
    return phc.hashSync(this.#phcView, password, options);
  }

  /** Checks `password` against a stored PHC/bcrypt string: Promise<boolean>. */
  verify(stored, password, options) {
    return phc.verify(this.#phcView, stored, password, options);
  }

  /** verify() on the calling thread (blocks it): boolean. */
  verifySync(stored, password, options) {
    return phc.verifySync(this.#phcView, stored, password, options);
  }

  /**
   * For a user who does not exist: the work of a failed verify() of what
   * hash(password, options) writes now, then `false` (see lib/phc/api.js).
   */
  verifyUnknown(password, options) {
    return phc.verifyUnknown(this.#phcView, password, options);
  }

  /** verifyUnknown() on the calling thread (blocks it): false. */
  verifyUnknownSync(password, options) {
    return phc.verifyUnknownSync(this.#phcView, password, options);
  }

  /** Whether `stored` should be replaced by hash(password, options) on this pool (its secret's current key). */
  needsRehash(stored, options, password) {
    return phc.needsRehash(this.#phcView, stored, options, password);
  }

  /**
   * The target to rehash `stored` to: `options` with its cost raised until
   * hashing at it costs at least what `stored` does (see lib/phc/api.js).
   */
  rehashTarget(stored, options) {
    return phc.rehashTarget(this.#phcView, stored, options);
  }

  stats() {
    return this.#jobs.stats(this.#name);
  }

  /**
   * The hash() options that take about `targetMs` per hash with
   * `concurrency` (at most this pool's threads) hashes at once on this
   * pool, within `maxMemory` (at most the pool's): see lib/tune.js.
   */
  tune(options) {
    try {
      const { threads, maxMemory } = this.stats();
      const o = readTuneOptions(options, { threads, maxMemory });
      return tuneOn(this, { concurrency: threads, maxMemory, ...o });
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Closes a pool made by createPool(): queued jobs reject with
   * PoolClosedError, running ones finish; resolves when its threads are gone.
   */
  close() {
    const handle = this.#jobs.handle;
    if (handle === null) {
      return Promise.reject(new errors.KdfError('The default pool cannot be closed', 'ERR_KDF_DEFAULT_POOL'));
    }
    if (this.#closing === null) {
      if (this.#secret !== undefined) this.#secret.wipe();
      this.#secret = undefined;
      this.#closing = closeNative(handle);
    }
    return this.#closing;
  }
}

const POOL_KEYS = ['threads', 'maxQueue', 'maxMemory', 'maxWaitMs', 'priority', 'hashLimits', 'secret', 'hostSlots', 'fairKey',
  'rateLimitHeaders'];

// Options shared by configure() and createPool() -> native option object.
// `extra`: keys only the caller knows (createPool's name).
function parsePoolOptions(options, where, extra = []) {
  v.validateObject(options, where);
  v.refuseUnknownKeys(options, where, [...POOL_KEYS, ...extra]);
  const out = {};
  if (options.threads !== undefined) {
    v.validateInteger(options.threads, `${where}.threads`, 1, 1024);
    out.threads = options.threads;
  }
  if (options.maxQueue !== undefined) {
    v.validateInteger(options.maxQueue, `${where}.maxQueue`, 0, 1048576);
    out.maxQueue = options.maxQueue;
  }
  if (options.maxMemory !== undefined) {
    v.validateInteger(options.maxMemory, `${where}.maxMemory`, 1024, Number.MAX_SAFE_INTEGER);
    out.maxMemory = options.maxMemory;
  }
  if (options.maxWaitMs !== undefined) {
    v.validateInteger(options.maxWaitMs, `${where}.maxWaitMs`, 0, 2 ** 31 - 1);
  }
  if (options.hashLimits !== undefined) readLimits(options.hashLimits, `${where}.hashLimits`, {});
  // JS only: the function that names the client of a call that names none.
  if (options.fairKey !== undefined && options.fairKey !== null) {
    v.validateFunction(options.fairKey, `${where}.fairKey`);
  }
  // JS only: refusals carry the RateLimit fields (lib/ratelimit.js).
  if (options.rateLimitHeaders !== undefined && typeof options.rateLimitHeaders !== 'boolean') {
    throw errors.invalidArgType(`${where}.rateLimitHeaders`, 'of type boolean', options.rateLimitHeaders);
  }
  // Checked, not copied (a string is measured, not encoded): the copy is
  // made once every option is known good.
  if (options.secret !== null) readSecret(options.secret, `${where}.secret`);
  if (options.priority !== undefined) {
    // Only a string can name a priority: any other value would be turned
    // into a property key first, which can throw (null-prototype objects,
    // a throwing toString) with an error that has no code.
    if (typeof options.priority !== 'string' || !Object.hasOwn(PRIORITIES, options.priority)) {
      throw errors.invalidArgValue(`${where}.priority`, options.priority, `must be one of ${PRIORITY_LIST}`);
    }
    out.priority = PRIORITIES[options.priority];
  }
  // Last: it makes the slots' directory, once everything else is known good.
  if (options.hostSlots === null) {
    out.hostOff = 1; // configure(): remove them; createPool(): there are none anyway
  } else if (options.hostSlots !== undefined) {
    Object.assign(out, parseHostSlots(options.hostSlots, `${where}.hostSlots`));
  }
  return out;
}

let poolCounter = 0;

// The names createPool() gives pools that are not named: `p1`, `p2`, ...
// A name of that form is refused from callers, so a metric can tell an
// unnamed pool by its name (kdfpool/prometheus counts them all as one
// `pool="unnamed"`, so pools that come and go add no series).
const UNNAMED = /^p[0-9]+$/;
const isUnnamed = (name) => UNNAMED.test(name);

/** A separate pool with its own threads, queue, budget and stats. */
function createPool(options = {}) {
  const nativeOptions = parsePoolOptions(options, 'options', ['name']);
  let name = options.name;
  if (name === undefined) {
    name = `p${++poolCounter}`;
  } else {
    v.validateString(name, 'options.name');
    // Thread names are "kdf-<name>-<n>", at most 15 characters on Linux.
    if (!/^[A-Za-z0-9_.]{1,7}$/.test(name)) {
      throw errors.invalidArgValue('options.name', name, 'must be 1 to 7 letters, digits, "_" or "."');
    }
    if (isUnnamed(name)) {
      throw errors.invalidArgValue('options.name', name, 'is reserved: p<digits> names the pools created without a name');
    }
  }
  const handle = native.createPool(nativeOptions, name);
  if (errors.isRecord(handle)) throw errors.fromRecord(handle, nativeOptions);
  const secret = options.secret === undefined ? undefined : copySecret(options.secret, 'options.secret');
  const fairKey = options.fairKey === null ? undefined : options.fairKey;
  return new Pool(handle, {
    maxWaitMs: options.maxWaitMs, hashLimits: options.hashLimits, secret, fairKey, rateLimitHeaders: options.rateLimitHeaders,
  }, name);
}

// The default pool's deadline: a call that would wait longer than this in
// the queue is refused at once (429 with Retry-After in a service) instead of
// holding a login for seconds behind a full queue; past a couple of seconds
// a person at a login form, or a client's timeout, has given up anyway.
// README (Pools) cites the service benchmark behind it.
const DEFAULT_MAX_WAIT_MS = 2000;

// The process-wide default pool (shared by every worker thread); its
// per-thread call defaults are set by configure().
const defaultPool = new Pool(null, { maxWaitMs: DEFAULT_MAX_WAIT_MS });

/**
 * Reconfigures the process-wide default pool (shared by every worker thread).
 * May be called at any time: running jobs finish, queued jobs stay queued.
 * maxWaitMs is the default deadline for calls made from this thread.
 */
function configure(options) {
  const nativeOptions = parsePoolOptions(options, 'options');
  const refusal = native.configure(nativeOptions);
  if (refusal !== undefined) throw errors.fromRecord(refusal, nativeOptions);
  setDefaults(defaultPool, {
    maxWaitMs: options.maxWaitMs, hashLimits: options.hashLimits, secret: options.secret, fairKey: options.fairKey,
    rateLimitHeaders: options.rateLimitHeaders,
  });
}

/**
 * kdf.tune(options): Pool#tune on a pool of its own, made for the
 * measurement and closed after it: `concurrency` threads (default: the
 * CPUs this process may use), `maxMemory` (default: a pool's default
 * budget), priority 'normal' (it measures the CPU, not the competition for
 * it), so the default pool's threads and traffic are left alone.
 */
async function tune(options) {
  const o = readTuneOptions(options, { threads: 1024, maxMemory: Number.MAX_SAFE_INTEGER });
  const pool = createPool({ name: 'tune', threads: o.concurrency, maxMemory: o.maxMemory, priority: 'normal' });
  try {
    const { threads, maxMemory } = pool.stats();
    return await tuneOn(pool, { ...o, concurrency: threads, maxMemory });
  } finally {
    await pool.close();
  }
}

module.exports = {
  Pool, defaultPool, configure, createPool, isUnnamed, tune, needsRehash: defaultPool.needsRehash,
  rehashTarget: defaultPool.rehashTarget,
};
