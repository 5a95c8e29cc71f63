'use strict';

// Limits on stored hashes (see api.js's header): the defaults, the
// effective limits of one verify() (defaults < pool < call), and the checks
// that refuse a hostile string before any work is queued.

const errors = require('../errors');
const v = require('../validate');
const { maxChars } = require('./encoding');

/** Limits on stored hashes. Sizes in bytes except argon2Memory (KiB). */
const DEFAULT_LIMITS = Object.freeze({
  argon2Memory: 262144,
  argon2Passes: 64,
  argon2Lanes: 16,
  scryptMemory: 256 * 1024 * 1024,
  scryptParallelism: 16,
  pbkdf2Iterations: 10000000,
  bcryptCost: 16,
  saltLength: 1024,
  hashLength: 1024,
  dataLength: 1024,
});

// Validates a limits object (a pool's hashLimits or a call's limits) and
// copies its set entries into `into`.
function readLimits(obj, where, into) {
  if (obj === undefined) return;
  v.validateObject(obj, where);
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_LIMITS, key)) {
      throw errors.invalidArgValue(`${where}.${key}`, value,
        `is not a hash limit (one of ${Object.keys(DEFAULT_LIMITS).join(', ')})`);
    }
    v.validateInteger(value, `${where}.${key}`, 1);
    into[key] = value;
  }
}

function effectiveLimits(poolLimits, callLimits) {
  const limits = { ...DEFAULT_LIMITS };
  readLimits(poolLimits, 'hashLimits', limits);
  readLimits(callLimits, 'options.limits', limits);
  return limits;
}

// Throws HashLimitError when `d` (from parseShape) would cost more than
// `limits` allow, or more memory than the pool's budget (`maxMemory()`,
// bytes; read only for memory-hard schemes). Only numbers and string
// lengths are looked at: nothing has been decoded or queued yet.
function checkLimits(d, limits, maxMemory) {
  const fieldLimit = (text, what, name) => {
    if (text !== undefined && text.length > maxChars(limits[name])) {
      throw errors.hashFieldOverLimit(what, Math.floor((text.length * 3) / 4), name, limits[name], true);
    }
  };
  const over = errors.hashOverLimit;
  switch (d.kind) {
    case 'argon2': {
      if (d.memory > limits.argon2Memory) throw over('argon2 memory m =', d.memory, 'argon2Memory', limits.argon2Memory, 'KiB');
      if (d.passes > limits.argon2Passes) throw over('argon2 passes t =', d.passes, 'argon2Passes', limits.argon2Passes);
      if (d.lanes > limits.argon2Lanes) throw over('argon2 lanes p =', d.lanes, 'argon2Lanes', limits.argon2Lanes);
      const budget = maxMemory();
      if (d.memory * 1024 > budget) {
        throw over('argon2 memory of', d.memory * 1024, 'maxMemory', budget, 'bytes');
      }
      fieldLimit(d.dataText, 'associated data', 'dataLength');
      break;
    }
    case 'scrypt': {
      const memory = 128 * d.N * d.r;
      if (memory > limits.scryptMemory) {
        throw over(`scrypt memory 128*N*r (ln=${d.ln}, r=${d.r}) =`, memory, 'scryptMemory', limits.scryptMemory, 'bytes');
      }
      if (d.p > limits.scryptParallelism) throw over('scrypt p =', d.p, 'scryptParallelism', limits.scryptParallelism);
      const budget = maxMemory();
      if (memory > budget) throw over('scrypt memory of', memory, 'maxMemory', budget, 'bytes');
      break;
    }
    case 'pbkdf2':
      if (d.iterations > limits.pbkdf2Iterations) {
        throw over('PBKDF2 iterations', d.iterations, 'pbkdf2Iterations', limits.pbkdf2Iterations);
      }
      break;
    case 'bcrypt':
      if (d.cost > limits.bcryptCost) throw over('bcrypt cost', d.cost, 'bcryptCost', limits.bcryptCost);
      break;
    default:
      break;
  }
  fieldLimit(d.saltText, 'salt', 'saltLength');
  fieldLimit(d.hashText, 'hash', 'hashLength');
}

// Exact byte counts, once decoded (the check above is on encoded lengths).
function checkDecodedLengths(d, limits) {
  const check = (bytes, what, name) => {
    if (bytes !== undefined && bytes.length > limits[name]) {
      throw errors.hashFieldOverLimit(what, bytes.length, name, limits[name]);
    }
  };
  check(d.salt, 'salt', 'saltLength');
  check(d.hash, 'hash', 'hashLength');
  check(d.data, 'associated data', 'dataLength');
}

module.exports = { DEFAULT_LIMITS, readLimits, effectiveLimits, checkLimits, checkDecodedLengths };
