'use strict';

const native = require('./native');
const errors = require('./errors');
const { Pool, ALG, runSync, createPool, parsePoolOptions } = require('./pool');
const v = require('./validate');

native.setErrorFactory((code, message) => errors.fromStatus(code, message));

const defaultPool = new Pool(null);

/**
 * Reconfigures the process-wide default pool (shared by every worker thread).
 * May be called at any time: running jobs finish, queued jobs stay queued.
 * maxWaitMs is the default deadline for calls made from this thread.
 */
function configure(options) {
  const nativeOptions = parsePoolOptions(options, 'options');
  const rc = native.configure(nativeOptions);
  if (rc !== 0) throw errors.fromStatus(rc, 'configure() failed');
  if (options.maxWaitMs !== undefined) defaultPool._maxWaitMs = options.maxWaitMs;
  if (options.hashLimits !== undefined) defaultPool._hashLimits = options.hashLimits;
}

function needsRehash(phc, options) {
  return require('./phc').needsRehash(phc, options);
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
  hash: defaultPool.hash,
  verify: defaultPool.verify,
  needsRehash,
  configure,
  stats: defaultPool.stats,
  createPool,
  PoolSaturatedError: errors.PoolSaturatedError,
  PoolClosedError: errors.PoolClosedError,
  MemoryLimitError: errors.MemoryLimitError,
  KdfError: errors.KdfError,
  AbortError: errors.AbortError,
  InvalidHashError: errors.InvalidHashError,
  HashLimitError: errors.HashLimitError,
};
Object.defineProperty(module.exports, '_internal', { value: { blake2b, native }, enumerable: false });
