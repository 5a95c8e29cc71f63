'use strict';

// Limits on stored hashes (see api.js's header): the defaults, the
// effective limits of one verify() or hash() (defaults < pool < call), and
// the checks that refuse a hostile string (or parameters that verify()
// would refuse) before any work is queued. The cost model is in cost.js.

const errors = require('../errors');
const v = require('../validate');
const { maxChars, BCRYPT_HASH_BYTES } = require('./encoding');
const { estimateCost } = require('./cost');
const { kibHint } = require('../argon2');
const { maxForeignLength } = require('./formats');

/**
 * Limits on stored hashes. Sizes in bytes except argon2Memory (KiB); `work`
 * in units of 1 ms of the pool's prediction on the running CPU (cost.js). `work` and `memory`
 * bound the estimated cost of any string; the others bound one parameter.
 * The work default is about 2x the most expensive setting in common use on
 * a CPU without SHA or SIMD extensions (scrypt 2^17/8/1: ~290 units there);
 * the memory default is 256 MiB plus 1 MiB for scrypt's blocks beside its
 * 128*N*r. passwordLength bounds the password of hash(), verify() and
 * needsRehash() (bytes, UTF-8 for a string; Django's 4096): a 100 MiB
 * password would otherwise cost seconds of hashing per call.
 */
const DEFAULT_LIMITS = Object.freeze({
  work: 600,
  memory: 257 * 1024 * 1024,
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
  passwordLength: 4096,
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
        `is not a hash limit (${v.unknownKeyHint(key, Object.keys(DEFAULT_LIMITS))})`);
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

// The longest stored string these limits can accept: every number at its
// widest (10 digits: parse.js reads at most 2^32-1), every base64 field at
// its limit, an Argon2 keyid at its widest (8 bytes, 11 characters). Anything longer is refused before it is split or scanned, so a
// hostile string of megabytes costs the event loop nothing.
const WIDEST_NUMBER = String(2 ** 32 - 1).length;
function maxStoredLength(limits) {
  const salt = maxChars(limits.saltLength);
  const hash = maxChars(limits.hashLength);
  const data = maxChars(limits.dataLength);
  const n = WIDEST_NUMBER;
  const argon2 = '$argon2id$v=19$m=,t=,p=,keyid=,data=$$'.length + 3 * n + maxChars(8) + data + salt + hash;
  const scrypt = '$scrypt$ln=,r=,p=$$'.length + 3 * n + salt + hash;
  const pbkdf2 = '$pbkdf2-sha512$i=,l=$$'.length + 2 * n + salt + hash;
  const bcrypt = '$2b$12$'.length + 22 + 31;
  // Other frameworks' formats (./formats/), some of which wrap these.
  const foreign = maxForeignLength(limits, { argon2, bcrypt, number: n });
  return Math.max(argon2, scrypt, pbkdf2, bcrypt, foreign);
}

// Refuses a stored string longer than any these limits accept, naming the
// field limits that set the bound (a HashLimitError, as for every limit).
function checkStoredLength(phc, limits) {
  const max = maxStoredLength(limits);
  if (typeof phc === 'string' && phc.length > max) {
    throw new errors.HashLimitError(
      `The stored hash is ${phc.length} characters long, over the longest string the limits accept ` +
      `(${max}, from saltLength, hashLength and dataLength); refused before parsing (to accept it, raise ` +
      "those in the pool's hashLimits (createPool / configure) or in the call's options.limits)",
      'storedLength', phc.length, max);
  }
}

// Bytes that unpadded base64 text of this length decodes to (at most).
function base64Bytes(text) {
  return text === undefined ? 0 : Math.floor((text.length * 3) / 4);
}

// Refuses a password of `bytes` bytes over limits.passwordLength, before any
// work: a KdfError with its own code, naming the limit like a HashLimitError.
function checkPasswordLength(bytes, limits) {
  if (bytes > limits.passwordLength) {
    throw passwordTooLong(`The password is ${bytes} bytes, over the limit passwordLength = ` +
      `${limits.passwordLength} bytes; refused before any work (to accept it, raise passwordLength in the ` +
      "pool's hashLimits (createPool / configure) or in the call's options.limits)",
    'passwordLength', bytes, limits.passwordLength);
  }
}

// ERR_KDF_PASSWORD_TOO_LONG, with `limit` (what to change), `value`, `max`.
function passwordTooLong(message, limit, value, max) {
  const err = new errors.KdfError(message, 'ERR_KDF_PASSWORD_TOO_LONG');
  err.retryable = false;
  err.limit = limit;
  err.value = value;
  err.max = max;
  // The client's input, not the server's data: a 400 in Express and
  // Fastify's default handlers (http-errors' fields, as on saturation).
  err.status = err.statusCode = 400;
  err.expose = true;
  return err;
}

// Throws HashLimitError when `d` would cost more than `limits` allow, or
// reserve more than the pool's budget (`maxMemory()`, bytes): its memory
// plus its output, as the pool charges a job. `d` is parseShape()'s result
// (field lengths from their encoded text: nothing has been decoded or
// queued yet), or, for hash(), the same shape with saltBytes / hashBytes /
// dataBytes and `subject` errors.HASH_PARAMS.
function checkLimits(d, limits, maxMemory, passwordBytes = 0) {
  const subject = d.subject;
  // hash()'s Argon2 memory that looks like bytes gets a hint (KiB).
  const hint = subject === errors.HASH_PARAMS && d.kind === 'argon2' ? kibHint(d.memory) : '';
  const over = (what, value, name, max, unit) => {
    const err = errors.hashOverLimit(what, value, name, max, unit, subject);
    if (hint) err.message += `; ${hint}`;
    return err;
  };
  const fieldLimit = (text, bytes, what, name) => {
    if (text !== undefined) {
      if (text.length > maxChars(limits[name])) {
        throw errors.hashFieldOverLimit(what, Math.floor((text.length * 3) / 4), name, limits[name], true, subject);
      }
    } else if (bytes !== undefined && bytes > limits[name]) {
      throw errors.hashFieldOverLimit(what, bytes, name, limits[name], false, subject);
    }
  };
  switch (d.kind) {
    case 'argon2':
      if (d.memory > limits.argon2Memory) throw over('argon2 memory m =', d.memory, 'argon2Memory', limits.argon2Memory, 'KiB');
      if (d.passes > limits.argon2Passes) throw over('argon2 passes t =', d.passes, 'argon2Passes', limits.argon2Passes);
      if (d.lanes > limits.argon2Lanes) throw over('argon2 lanes p =', d.lanes, 'argon2Lanes', limits.argon2Lanes);
      fieldLimit(d.dataText, d.dataBytes, 'associated data', 'dataLength');
      break;
    case 'scrypt': {
      const memory = 128 * d.N * d.r;
      if (memory > limits.scryptMemory) {
        throw over(`scrypt memory 128*N*r (ln=${d.ln}, r=${d.r}) =`, memory, 'scryptMemory', limits.scryptMemory, 'bytes');
      }
      if (d.p > limits.scryptParallelism) throw over('scrypt p =', d.p, 'scryptParallelism', limits.scryptParallelism);
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
  fieldLimit(d.saltText, d.saltBytes, 'salt', 'saltLength');
  fieldLimit(d.hashText, d.hashBytes, 'hash', 'hashLength');

  const shape = costShape(d);
  const cost = estimateCost({ ...shape, passwordBytes });
  if (cost.memory > limits.memory) {
    throw over(`${describe(d)}: memory of`, cost.memory, 'memory', limits.memory, 'bytes');
  }
  // What the pool will reserve for the job: its memory and, beside it, its
  // output (the hash it computes).
  const reserved = cost.memory + (d.kind === 'bcrypt' ? BCRYPT_HASH_BYTES : shape.hashBytes);
  const budget = maxMemory();
  if (reserved > budget) {
    // The same numbers, under the same names, as a MemoryLimitError's.
    const err = over(`${describe(d)}: memory (with its output) of`, reserved, 'maxMemory', budget, 'bytes');
    err.memoryNeeded = reserved;
    err.maxMemory = budget;
    throw err;
  }
  const work = Math.ceil(cost.work);
  if (work > limits.work) {
    throw over(`${describe(d)}: an estimated`, work, 'work', limits.work, 'work units');
  }
}

// The cost model's view of `d`: parameters and field lengths in bytes.
function costShape(d) {
  if (d.kind === 'bcrypt') return d;
  return {
    ...d,
    saltBytes: d.saltText !== undefined ? base64Bytes(d.saltText) : d.saltBytes,
    hashBytes: d.hashText !== undefined ? base64Bytes(d.hashText) : d.hashBytes,
    dataBytes: d.dataText !== undefined ? base64Bytes(d.dataText) : (d.dataBytes || 0),
  };
}

// "argon2 m=.., t=.., p=.." etc., for messages.
function describe(d) {
  const s = costShape(d);
  switch (d.kind) {
    case 'argon2': return `argon2 m=${d.memory},t=${d.passes},p=${d.lanes} with a ${s.hashBytes}-byte hash`;
    case 'scrypt': return `scrypt ln=${d.ln},r=${d.r},p=${d.p} with a ${s.hashBytes}-byte hash`;
    case 'pbkdf2': return `PBKDF2-${d.digest.toUpperCase()} ${d.iterations} iterations with a ${s.hashBytes}-byte hash`;
    case 'bcrypt': return `bcrypt cost ${d.cost}`;
    default: return d.kind;
  }
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

module.exports = {
  DEFAULT_LIMITS, readLimits, effectiveLimits, maxStoredLength, checkStoredLength, checkPasswordLength, passwordTooLong,
  checkLimits, checkDecodedLengths, costShape,
};
