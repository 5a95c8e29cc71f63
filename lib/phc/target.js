'use strict';

// hash()'s options -> a full target { algorithm, family, ...parameters },
// defaults filled in. Also needsRehash()'s target, and the check of
// verify()'s options: one options object serves all three, so all three
// accept the same keys (each uses what concerns it) and refuse any other.

const errors = require('../errors');
const v = require('../validate');
const { callOptions } = require('../submit');
const {
  MAX_UINT32, ARGON2_TYPES, PBKDF2_IDENTS, ALGORITHMS, ARGON2_MIN_SALT, ARGON2_MIN_HASH, OTHER_MIN_HASH,
  DEFAULTS, familyOf,
} = require('./schemes');
const { BCRYPT_MIN_COST, BCRYPT_MAX_COST } = require('./encoding');
const { readLimits } = require('./limits');
const { readSecret } = require('./secrets');

const COMMON_KEYS = new Set(['algorithm', 'signal', 'maxWaitMs', 'fairKey', 'limits', 'exact', 'normalize']);
// options.normalize: String.prototype.normalize's forms.
const NORMALIZATION_FORMS = Object.freeze(['NFC', 'NFD', 'NFKC', 'NFKD']);
const FAMILY_KEYS = Object.freeze({
  argon2: new Set(['memory', 'passes', 'parallelism', 'tagLength', 'saltLength', 'secret', 'associatedData']),
  scrypt: new Set(['N', 'ln', 'r', 'p', 'tagLength', 'saltLength']),
  pbkdf2: new Set(['iterations', 'saltLength']),
  bcrypt: new Set(['cost', 'truncate']),
});

// Option names of the packages people migrate from (npm argon2,
// @node-rs/argon2, bcrypt/bcryptjs, node:crypto's scrypt and pbkdf2) ->
// what kdfpool calls them, for the error that refuses them. `family` is the
// chosen algorithm's: scrypt's `cost` is N, a bcrypt user's is `cost` itself.
const bcryptCost = (family) => (family === 'bcrypt' ? '`cost`' : "`cost` with algorithm: 'bcrypt'");
const PEER_OPTIONS = Object.freeze({
  __proto__: null,
  memoryCost: () => '`memory` (KiB, Argon2)',
  timeCost: () => '`passes` (Argon2)',
  hashLength: () => '`tagLength`',
  outputLen: () => '`tagLength`',
  keylen: () => '`tagLength`',
  keyLength: () => '`tagLength`',
  saltRounds: bcryptCost,
  rounds: bcryptCost,
  logRounds: bcryptCost,
  cost: (family) => (family === 'scrypt' ? '`N` (or `ln`, its log2)' : bcryptCost(family)),
  logN: () => '`ln` (scrypt)',
  blockSize: () => '`r` (scrypt)',
  parallelization: () => '`p` (scrypt)',
  parallelism: () => '`p` (scrypt)',
  p: () => '`parallelism` (Argon2)',
  type: () => "`algorithm` ('argon2id', 'argon2i' or 'argon2d')",
  digest: () => "`algorithm` ('pbkdf2-sha256' or 'pbkdf2-sha512')",
  iterations: () => "`iterations` with algorithm: 'pbkdf2-sha256' or 'pbkdf2-sha512' (Argon2: `passes`)",
  salt: () => 'none: hash() draws a fresh salt (`saltLength` sets its size)',
  maxmem: () => "none: verify()'s `limits.memory` and the pool's `maxMemory` bound memory",
});

function peerEquivalent(key, family) {
  const equivalent = PEER_OPTIONS[key];
  return equivalent === undefined ? undefined : equivalent(family);
}

function optionalInteger(options, key, fallback, min, max, where) {
  const value = options[key];
  if (value === undefined) return fallback;
  v.validateInteger(value, `${where}.${key}`, min, max);
  return value;
}

// A BinaryLike option, checked without copying it (undefined when unset).
function bytesOption(options, key, where) {
  const value = options[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    const bytes = v.toBytes(value, `${where}.${key}`);
    v.validateInteger(bytes.byteLength, `${where}.${key}.byteLength`, 0, MAX_UINT32);
  }
  return value;
}

function hashTarget(options, where = 'options') {
  if (options === undefined) options = {};
  v.validateObject(options, where);
  const algorithm = options.algorithm === undefined ? 'argon2id' : options.algorithm;
  v.validateString(algorithm, `${where}.algorithm`);
  if (!ALGORITHMS.includes(algorithm)) {
    throw errors.invalidArgValue(`${where}.algorithm`, algorithm,
      `must be one of: ${ALGORITHMS.map((a) => `'${a}'`).join(', ')}`);
  }
  const family = familyOf(algorithm);
  const keys = FAMILY_KEYS[family];
  for (const key of Object.keys(options)) {
    if (options[key] === undefined || COMMON_KEYS.has(key) || keys.has(key)) continue;
    if (FAMILY_KEYS.argon2.has(key) && (key === 'secret' || key === 'associatedData')) {
      throw errors.invalidArgValue(`${where}.${key}`, v.shownValue(options[key]),
        `is not an option of ${algorithm} (only Argon2 takes a secret or associated data)`);
    }
    const peer = peerEquivalent(key, family);
    const near = peer === undefined ? v.closestKey(key, [...COMMON_KEYS, ...keys]) : undefined;
    throw errors.invalidArgValue(`${where}.${key}`, v.shownValue(options[key]),
      `is not an option of ${algorithm}${peer === undefined ? '' : `; kdfpool's equivalent is ${peer}`}` +
      `${near === undefined ? '' : ` (did you mean "${near}"?)`}`);
  }
  if (options.limits !== undefined) readLimits(options.limits, `${where}.limits`, {});
  callOptions(options, 'options');
  const t = { algorithm, family, exact: false };
  if (options.exact !== undefined) {
    if (typeof options.exact !== 'boolean') throw errors.invalidArgType(`${where}.exact`, 'of type boolean', options.exact);
    t.exact = options.exact;
  }
  if (options.normalize !== undefined) {
    if (!NORMALIZATION_FORMS.includes(options.normalize)) {
      throw errors.invalidArgValue(`${where}.normalize`, options.normalize, "must be 'NFC', 'NFD', 'NFKC' or 'NFKD'");
    }
    t.normalize = options.normalize;
  }
  switch (family) {
    case 'argon2': {
      const d = DEFAULTS.argon2;
      t.type = ARGON2_TYPES[algorithm];
      t.parallelism = optionalInteger(options, 'parallelism', d.parallelism, 1, 2 ** 24 - 1, where);
      t.memory = optionalInteger(options, 'memory', d.memory, 8 * t.parallelism, MAX_UINT32, where);
      t.passes = optionalInteger(options, 'passes', d.passes, 1, MAX_UINT32, where);
      t.tagLength = optionalInteger(options, 'tagLength', d.tagLength, ARGON2_MIN_HASH, 1024, where);
      t.saltLength = optionalInteger(options, 'saltLength', d.saltLength, ARGON2_MIN_SALT, 1024, where);
      // A view of the keys as given (secrets.js: a key is encoded, and its
      // copy wiped, only when a job is built; see api.js); checked here.
      t.secret = readSecret(options.secret, `${where}.secret`);
      t.associatedData = bytesOption(options, 'associatedData', where);
      break;
    }
    case 'scrypt': {
      const d = DEFAULTS.scrypt;
      if (options.N !== undefined && options.ln !== undefined) {
        throw errors.invalidArgValue(`${where}.N`, options.N, `cannot be combined with ${where}.ln`);
      }
      if (options.N !== undefined) {
        v.validateInteger(options.N, `${where}.N`, 2, 2 ** 31);
        if ((options.N & (options.N - 1)) !== 0) {
          throw errors.invalidArgValue(`${where}.N`, options.N, 'must be a power of 2');
        }
        t.ln = Math.log2(options.N);
      } else {
        t.ln = optionalInteger(options, 'ln', d.ln, 1, 31, where);
      }
      t.N = 2 ** t.ln;
      t.r = optionalInteger(options, 'r', d.r, 1, 2 ** 30 - 1, where);
      t.p = optionalInteger(options, 'p', d.p, 1, 2 ** 30 - 1, where);
      if (t.r * t.p >= 2 ** 30) throw errors.outOfRange(`${where}.p`, `< 2^30 / r (${t.r})`, t.p);
      t.tagLength = optionalInteger(options, 'tagLength', d.tagLength, OTHER_MIN_HASH, 1024, where);
      t.saltLength = optionalInteger(options, 'saltLength', d.saltLength, 8, 1024, where);
      break;
    }
    case 'pbkdf2': {
      const d = DEFAULTS[algorithm];
      const info = PBKDF2_IDENTS[algorithm];
      t.digest = info.digest;
      t.tagLength = info.size;
      t.iterations = optionalInteger(options, 'iterations', d.iterations, 1, 2 ** 31 - 1, where);
      t.saltLength = optionalInteger(options, 'saltLength', d.saltLength, 8, 1024, where);
      break;
    }
    case 'bcrypt':
      t.cost = optionalInteger(options, 'cost', DEFAULTS.bcrypt.cost, BCRYPT_MIN_COST, BCRYPT_MAX_COST, where);
      // false (default): hash() refuses a password over 72 bytes, which
      // bcrypt would silently cut (NIST SP 800-63B rev. 4: verify the
      // entire password); true: the bytes past the 72nd are ignored, as by
      // every other bcrypt.
      t.truncate = false;
      if (options.truncate !== undefined) {
        if (typeof options.truncate !== 'boolean') {
          throw errors.invalidArgType(`${where}.truncate`, 'of type boolean', options.truncate);
        }
        t.truncate = options.truncate;
      }
      break;
    default:
      break;
  }
  return t;
}

module.exports = { hashTarget };
