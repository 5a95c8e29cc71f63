'use strict';

// Argument checks for argon2(algorithm, parameters) with the rules, order,
// error classes, codes and wording of node:crypto's argon2 (Node >= 24.7,
// lib/internal/crypto/argon2.js), so the native core (which re-checks
// RFC 9106's limits) never sees an argument it would refuse.

const errors = require('./errors');
const v = require('./validate');

// Native argon2 type numbers (kdf_argon2_type in src/kdf/argon2/argon2.h).
const TYPES = Object.freeze({ __proto__: null, argon2d: 0, argon2i: 1, argon2id: 2 });
const ALGORITHMS = Object.freeze(['argon2d', 'argon2i', 'argon2id']);
const VERSION = 0x13;
const MAX_UINT32 = 2 ** 32 - 1;
const MAX_LANES = 2 ** 24 - 1;
const MIN_NONCE = 8;
const MIN_TAG = 4;

function validateOneOf(value, name, allowed) {
  if (!allowed.includes(value)) {
    const list = allowed.map((a) => `'${a}'`).join(', ');
    throw errors.invalidArgValue(name, value, `must be one of: ${list}`);
  }
}

// A string stays a string (native code encodes it into the job, leaving
// no JS copy of a password or secret); its length is its UTF-8 length.
function bytesWithin(value, name, min) {
  const input = v.toInput(value, name);
  const length = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  v.validateInteger(length, `${name}.byteLength`, min, MAX_UINT32);
  return input;
}

/**
 * Validates argon2's arguments and returns the native request, or throws
 * node:crypto's error for the first bad argument.
 */
function checkArgon2(algorithm, parameters) {
  v.validateString(algorithm, 'algorithm');
  validateOneOf(algorithm, 'algorithm', ALGORITHMS);
  v.validateObject(parameters, 'parameters');

  // Each property is read once, in node's order (a getter cannot hand the
  // check one value and the hash another).
  const { parallelism, tagLength, memory, passes } = parameters;
  const message = bytesWithin(parameters.message, 'parameters.message', 0);
  const nonce = bytesWithin(parameters.nonce, 'parameters.nonce', MIN_NONCE);
  v.validateInteger(parallelism, 'parameters.parallelism', 1, MAX_LANES);
  v.validateInteger(tagLength, 'parameters.tagLength', MIN_TAG, MAX_UINT32);
  v.validateInteger(memory, 'parameters.memory', 8 * parallelism, MAX_UINT32);
  v.validateUint32(passes, 'parameters.passes', true);

  // Node passes no name for these two, so a bad type there trips an internal
  // assertion; we raise the ERR_INVALID_ARG_TYPE it evidently meant.
  const secretValue = parameters.secret;
  const secret = secretValue === undefined ? undefined : bytesWithin(secretValue, 'parameters.secret', 0);
  const adValue = parameters.associatedData;
  const associatedData = adValue === undefined ? undefined : bytesWithin(adValue, 'parameters.associatedData', 0);

  return {
    inputs: [message, nonce, secret, associatedData],
    numbers: [TYPES[algorithm], VERSION, parallelism, memory, passes],
    name: undefined,
    outlen: tagLength,
    context: {},
  };
}

// Argon2's memory is in KiB; a value this large (1 GiB or more) that was
// refused was probably given in bytes. '' when no hint applies.
const KIB_HINT_FROM = 1048576;
function kibHint(memoryKiB) {
  if (!(memoryKiB >= KIB_HINT_FROM)) return '';
  return `argon2 memory is in KiB (${memoryKiB} KiB = ${memoryKiB / 1048576} GiB); ` +
    `did you mean ${Math.floor(memoryKiB / 1024)} (${memoryKiB} bytes in KiB)?`;
}

module.exports = { checkArgon2, kibHint, TYPES };
