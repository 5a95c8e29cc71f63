'use strict';

// Our BLAKE2b (the one inside Argon2), run synchronously, for tests against
// an independent implementation (test/blake2b.test.js requires this file).
// Not part of the public API: lib/index.js does not export it.

const { algorithms } = require('./native').constants;
const { runSync } = require('./submit');
const v = require('./validate');

function blake2b(message, outlen, key) {
  const inputs = [v.toBytes(message, 'message'), key === undefined ? undefined : v.toBytes(key, 'key')];
  return runSync(algorithms.BLAKE2B, { inputs, numbers: [], name: undefined, outlen, context: {} });
}

module.exports = { blake2b };
