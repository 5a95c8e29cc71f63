'use strict';

// The public module: the default pool's methods, configure(), createPool()
// and the error classes, and itself as `default`. Nothing internal is
// exported (tests that need internals require lib/ modules directly).

const errors = require('./errors');
const { defaultPool, configure, createPool, tune, needsRehash, rehashTarget } = require('./pool');
const { requestSignal, rateLimitHeaders } = require('./http');
const { readiness } = require('./readiness');
const { currentFairKey, runWithFairKey, fairKeyMiddleware } = require('./context');
const { requiredLimits } = require('./phc/required');

module.exports = {
  pbkdf2: defaultPool.pbkdf2,
  pbkdf2Sync: defaultPool.pbkdf2Sync,
  scrypt: defaultPool.scrypt,
  scryptSync: defaultPool.scryptSync,
  argon2: defaultPool.argon2,
  argon2Sync: defaultPool.argon2Sync,
  hash: defaultPool.hash,
  hashSync: defaultPool.hashSync,
  verify: defaultPool.verify,
  verifySync: defaultPool.verifySync,
  verifyUnknown: defaultPool.verifyUnknown,
  verifyUnknownSync: defaultPool.verifyUnknownSync,
  needsRehash,
  rehashTarget,
  requiredLimits,
  requestSignal,
  rateLimitHeaders,
  readiness,
  currentFairKey,
  runWithFairKey,
  fairKeyMiddleware,
  configure,
  stats: defaultPool.stats,
  createPool,
  tune,
  PoolSaturatedError: errors.PoolSaturatedError,
  PoolClosedError: errors.PoolClosedError,
  MemoryLimitError: errors.MemoryLimitError,
  KdfError: errors.KdfError,
  AbortError: errors.AbortError,
  InvalidHashError: errors.InvalidHashError,
  HashLimitError: errors.HashLimitError,
};

// A real default export, as index.d.ts declares: `import kdf from 'kdfpool'`
// compiled to CommonJS reads `.default` of this module (TypeScript without
// esModuleInterop; with it, and in bundlers, the module itself), so it gets
// this object either way. The ES module entry's default is the same object.
module.exports.default = module.exports;
