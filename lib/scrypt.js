'use strict';

// scrypt's arguments, checked in the order and with the errors of node's
// crypto.scrypt (lib/internal/crypto/scrypt.js, check()), the same in node 20
// to 26 but for the error of an option given under both names, which is the
// running node's (lib/host.js). N, r, p and maxmem are then dry-run through
// OpenSSL by the native prepare step, as node does; when OpenSSL refuses
// them, submit.js calls context.onInvalid(message).

const errors = require('./errors');
const host = require('./host');
const v = require('./validate');

const DEFAULTS = Object.freeze({
  N: 16384,
  r: 8,
  p: 1,
  maxmem: 32 << 20, // 32 MiB, OpenSSL's SCRYPT_MAX_MEM
});

const context = Object.freeze({
  onInvalid(message) {
    return errors.invalidScryptParams(message);
  },
});

function checkScrypt(password, salt, keylen, options) {
  // Strings go to the native side as they are (see v.toInput): no JS copy
  // of a password is left behind.
  const pw = v.toInput(password, 'password');
  const s = v.toInput(salt, 'salt');
  v.validateInt32(keylen, 'keylen', 0);

  let { N, r, p, maxmem } = DEFAULTS;
  // Each option is read once, in node's order, and no further than node
  // reads before an error (truthy options, any type). Node reads a set
  // option twice; a getter that answers differently the second time aborts
  // node 20's scryptSync, and here must not split what is checked from what
  // is used.
  if (options) {
    const givenN = options.N;
    if (givenN !== undefined) {
      N = givenN;
      v.validateUint32(N, 'N');
    }
    const givenCost = options.cost;
    if (givenCost !== undefined) {
      if (givenN !== undefined) throw host.scryptOptionPairError('N', 'cost');
      N = givenCost;
      v.validateUint32(N, 'cost');
    }
    const givenR = options.r;
    if (givenR !== undefined) {
      r = givenR;
      v.validateUint32(r, 'r');
    }
    const givenBlockSize = options.blockSize;
    if (givenBlockSize !== undefined) {
      if (givenR !== undefined) throw host.scryptOptionPairError('r', 'blockSize');
      r = givenBlockSize;
      v.validateUint32(r, 'blockSize');
    }
    const givenP = options.p;
    if (givenP !== undefined) {
      p = givenP;
      v.validateUint32(p, 'p');
    }
    const givenParallelization = options.parallelization;
    if (givenParallelization !== undefined) {
      if (givenP !== undefined) throw host.scryptOptionPairError('p', 'parallelization');
      p = givenParallelization;
      v.validateUint32(p, 'parallelization');
    }
    const givenMaxmem = options.maxmem;
    if (givenMaxmem !== undefined) {
      maxmem = givenMaxmem;
      v.validateInteger(maxmem, 'maxmem', 0);
    }
    if (N === 0) N = DEFAULTS.N;
    if (r === 0) r = DEFAULTS.r;
    if (p === 0) p = DEFAULTS.p;
    if (maxmem === 0) maxmem = DEFAULTS.maxmem;
  }

  return { inputs: [pw, s], numbers: [N, r, p, maxmem], name: undefined, outlen: keylen, context };
}

module.exports = { checkScrypt };
