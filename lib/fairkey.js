'use strict';

// The `fairKey` call option: the name of the client a call is made for (an
// IP, an account, a tenant), which the pool serves in turn with the other
// clients (src/pool/fair.c). The name itself never leaves this file: the
// pool gets a 52-bit hash of it, seeded per process, so names cannot be
// read back from the pool, its stats or its errors, and nobody outside the
// process can choose names that collide.

const crypto = require('node:crypto');
const errors = require('./errors');

/** The longest name accepted, in UTF-16 code units. */
const FAIR_KEY_MAX_LENGTH = 1024;

const seed = crypto.randomBytes(8);
const SEED_A = seed.readUInt32LE(0);
const SEED_B = seed.readUInt32LE(4);

// Two independent 32-bit multiplicative hashes over the code units,
// finished with murmur3's fmix32.
function fmix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashName(name) {
  let a = SEED_A;
  let b = SEED_B;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul((b ^ c) + i, 0x5bd1e995);
  }
  a = fmix32(a ^ name.length);
  b = fmix32(b);
  // 20 bits of one and 32 of the other: an exact double, never 0 (0 is
  // the key shared by calls that name none).
  return (a >>> 12) * 2 ** 32 + b || 1;
}

/**
 * The pool's key for `fairKey` (0 when it is undefined: the shared key);
 * throws node-style argument errors for anything but a string of 1 to
 * FAIR_KEY_MAX_LENGTH characters. `where` names the option in messages.
 */
function fairKeyOf(fairKey, where) {
  if (fairKey === undefined) return 0;
  if (typeof fairKey !== 'string') throw errors.invalidArgType(where, 'of type string', fairKey);
  if (fairKey.length === 0 || fairKey.length > FAIR_KEY_MAX_LENGTH) {
    throw errors.outOfRange(`${where}.length`, `>= 1 && <= ${FAIR_KEY_MAX_LENGTH}`, fairKey.length);
  }
  return hashName(fairKey);
}

module.exports = { fairKeyOf, FAIR_KEY_MAX_LENGTH };
