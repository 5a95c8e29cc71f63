'use strict';

// The stored-hash schemes kdfpool reads and writes: identifiers, the
// algorithms hash() accepts, minimum field sizes and hash()'s defaults.

const { TYPES: ARGON2_TYPES } = require('../argon2');

const MAX_UINT32 = 2 ** 32 - 1;
const ARGON2_VERSIONS = Object.freeze({ __proto__: null, 16: 0x10, 19: 0x13 });
const PBKDF2_IDENTS = Object.freeze({
  __proto__: null,
  pbkdf2: { algorithm: 'pbkdf2-sha1', digest: 'sha1', size: 20 },
  'pbkdf2-sha1': { algorithm: 'pbkdf2-sha1', digest: 'sha1', size: 20 },
  'pbkdf2-sha256': { algorithm: 'pbkdf2-sha256', digest: 'sha256', size: 32 },
  'pbkdf2-sha512': { algorithm: 'pbkdf2-sha512', digest: 'sha512', size: 64 },
});
const ALGORITHMS = Object.freeze(['argon2id', 'argon2i', 'argon2d', 'scrypt', 'pbkdf2-sha256',
  'pbkdf2-sha512', 'bcrypt']);

const ARGON2_MIN_SALT = 8;
const ARGON2_MIN_HASH = 4;
const OTHER_MIN_HASH = 10;

// hash()'s defaults per family (OWASP Password Storage Cheat Sheet minimums).
const DEFAULTS = Object.freeze({
  argon2: Object.freeze({ memory: 19456, passes: 2, parallelism: 1, tagLength: 32, saltLength: 16 }),
  scrypt: Object.freeze({ ln: 17, r: 8, p: 1, tagLength: 32, saltLength: 16 }),
  'pbkdf2-sha256': Object.freeze({ iterations: 600000, saltLength: 16 }),
  'pbkdf2-sha512': Object.freeze({ iterations: 210000, saltLength: 16 }),
  bcrypt: Object.freeze({ cost: 10 }),
});

function familyOf(algorithm) {
  if (algorithm in ARGON2_TYPES) return 'argon2';
  if (algorithm.startsWith('pbkdf2-')) return 'pbkdf2';
  return algorithm;
}

module.exports = {
  MAX_UINT32,
  ARGON2_TYPES,
  ARGON2_VERSIONS,
  PBKDF2_IDENTS,
  ALGORITHMS,
  ARGON2_MIN_SALT,
  ARGON2_MIN_HASH,
  OTHER_MIN_HASH,
  DEFAULTS,
  familyOf,
};
