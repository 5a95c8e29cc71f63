'use strict';

// scrypt's arguments, checked in the order and with the errors of node 20's
// crypto.scrypt (lib/internal/crypto/scrypt.js, check()). N, r, p and
// maxmem are then dry-run through OpenSSL by the native prepare step, as node
// does; when OpenSSL refuses them, submit.js calls context.onInvalid(message).

const errors = require('./errors');
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
  const pw = v.toBytes(password, 'password');
  const s = v.toBytes(salt, 'salt');
  v.validateInt32(keylen, 'keylen', 0);

  let { N, r, p, maxmem } = DEFAULTS;
  // Node reads each option the same way (truthy options, any type; each
  // property read twice when set), so getters see the same sequence.
  if (options) {
    const hasN = options.N !== undefined;
    if (hasN) {
      N = options.N;
      v.validateUint32(N, 'N');
    }
    if (options.cost !== undefined) {
      if (hasN) throw errors.scryptInvalidParameter();
      N = options.cost;
      v.validateUint32(N, 'cost');
    }
    const hasR = options.r !== undefined;
    if (hasR) {
      r = options.r;
      v.validateUint32(r, 'r');
    }
    if (options.blockSize !== undefined) {
      if (hasR) throw errors.scryptInvalidParameter();
      r = options.blockSize;
      v.validateUint32(r, 'blockSize');
    }
    const hasP = options.p !== undefined;
    if (hasP) {
      p = options.p;
      v.validateUint32(p, 'p');
    }
    if (options.parallelization !== undefined) {
      if (hasP) throw errors.scryptInvalidParameter();
      p = options.parallelization;
      v.validateUint32(p, 'parallelization');
    }
    if (options.maxmem !== undefined) {
      maxmem = options.maxmem;
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
