'use strict';

// A view of the addon that records every KDF job lib/ submits (async, and
// on the calling thread), for tests that compare the work two paths do
// field by field: the algorithm, its numbers (parameters), the output
// length, the sizes of the inputs, the Argon2 secret and associated data
// by value, and how it was queued. Require this before anything loads lib/
// (kdfpool itself, or a helper that does): it replaces lib/native.js's
// exports in the module cache; the addon's own exports are untouched.

const nativePath = require.resolve('../../lib/native');
if (require.cache[nativePath] !== undefined) {
  throw new Error('test/helpers/submissions.js must be required before kdfpool (lib/native.js is loaded already)');
}
const native = require(nativePath);

let recording = null;
const describeInput = (x) => (x === undefined ? undefined : typeof x === 'string' ? `${Buffer.byteLength(x)}B` : `${x.byteLength}B`);

function record(alg, inputs, numbers, name, outlen, queueing) {
  if (recording === null) return;
  const argon2 = alg === native.constants.algorithms.ARGON2;
  recording.push({
    alg, numbers: [...numbers], name, outlen, queueing,
    inputs: inputs.map(describeInput),
    secret: argon2 && inputs[2] !== undefined ? Buffer.from(inputs[2]).toString('hex') : undefined,
    data: argon2 && inputs[3] !== undefined ? Buffer.from(inputs[3]).toString('hex') : undefined,
  });
}

require.cache[nativePath].exports = Object.create(native, {
  submit: {
    // The numbers (6, 0 past the request's own) and inputs come one by one.
    value: (handle, alg, name, outlen, maxWaitMs, cancellable, id, fairKey, ...values) => {
      record(alg, values.slice(6), values.slice(0, 6), name, outlen, { maxWaitMs, cancellable, fairKey });
      return native.submit(handle, alg, name, outlen, maxWaitMs, cancellable, id, fairKey, ...values);
    },
  },
  runSync: {
    value: (alg, inputs, numbers, name, outlen) => {
      record(alg, inputs, numbers, name, outlen, 'sync');
      return native.runSync(alg, inputs, numbers, name, outlen);
    },
  },
});

/** The jobs submitted while `fn` (sync or async) runs, in order. */
async function submissions(fn) {
  const mine = [];
  const outer = recording;
  recording = mine;
  try {
    await fn();
    return mine;
  } finally {
    recording = outer;
  }
}

module.exports = { submissions };
