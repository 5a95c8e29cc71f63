// ES module entry: the same objects as the CommonJS entry.
import kdf from './index.js';

export const {
  pbkdf2,
  pbkdf2Sync,
  scrypt,
  scryptSync,
  argon2,
  argon2Sync,
  hash,
  hashSync,
  verify,
  verifySync,
  verifyUnknown,
  verifyUnknownSync,
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
  stats,
  createPool,
  tune,
  AbortError,
  InvalidHashError,
  HashLimitError,
  PoolSaturatedError,
  PoolClosedError,
  MemoryLimitError,
  KdfError,
} = kdf;

export default kdf;
