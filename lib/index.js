'use strict';

const native = require('./native');
const errors = require('./errors');
const { Pool, PRIORITIES, ALG, runSync } = require('./pool');
const v = require('./validate');

native.setErrorFactory((code, message) => errors.fromStatus(code, message));

const defaultPool = new Pool(null);

/**
 * Reconfigures the process-wide default pool (shared by every worker thread).
 * May be called at any time: running jobs finish, queued jobs stay queued.
 */
function configure(options) {
  v.validateObject(options, 'options');
  const native_ = {};
  if (options.threads !== undefined) {
    v.validateInteger(options.threads, 'options.threads', 1, 1024);
    native_.threads = options.threads;
  }
  if (options.maxQueue !== undefined) {
    v.validateInteger(options.maxQueue, 'options.maxQueue', 1, 1048576);
    native_.maxQueue = options.maxQueue;
  }
  if (options.maxMemory !== undefined) {
    v.validateInteger(options.maxMemory, 'options.maxMemory', 1024, Number.MAX_SAFE_INTEGER);
    native_.maxMemory = options.maxMemory;
  }
  if (options.priority !== undefined) {
    if (!Object.hasOwn(PRIORITIES, options.priority)) {
      throw errors.invalidArgValue('options.priority', options.priority, "must be one of 'normal', 'low', 'idle'");
    }
    native_.priority = PRIORITIES[options.priority];
  }
  const rc = native.configure(native_);
  if (rc !== 0) throw errors.fromStatus(rc, 'configure() failed');
}

// Our BLAKE2b (the one inside Argon2), for tests against an independent
// implementation. Not part of the public API.
function blake2b(message, outlen, key) {
  const inputs = [v.toBytes(message, 'message'), key === undefined ? undefined : v.toBytes(key, 'key')];
  return runSync(ALG.BLAKE2B, { inputs, numbers: [], name: undefined, outlen, context: {} });
}

module.exports = {
  pbkdf2: defaultPool.pbkdf2,
  pbkdf2Sync: defaultPool.pbkdf2Sync,
  scrypt: defaultPool.scrypt,
  scryptSync: defaultPool.scryptSync,
  argon2: defaultPool.argon2,
  argon2Sync: defaultPool.argon2Sync,
  configure,
  stats: defaultPool.stats,
  PoolSaturatedError: errors.PoolSaturatedError,
  PoolClosedError: errors.PoolClosedError,
  MemoryLimitError: errors.MemoryLimitError,
  KdfError: errors.KdfError,
};
Object.defineProperty(module.exports, '_internal', { value: { blake2b, native }, enumerable: false });
