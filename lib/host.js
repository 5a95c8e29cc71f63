'use strict';

// What the running node's crypto does where node versions differ, asked of
// node itself: each behaviour is probed once, lazily, with constant plain
// arguments (never a caller's object: node 20's scryptSync aborts the
// process when an option's getter returns another value on its second
// read), and the answer is kept. Where the host has no such function, or it
// does not fail as probed, the node version decides.

const crypto = require('node:crypto');
const errors = require('./errors');

const MAJOR = Number(String(process.versions.node).split('.')[0]) || 0;

// What fn() throws, or null when it returns.
function thrownBy(fn) {
  try {
    fn();
  } catch (err) {
    return err instanceof Error ? err : null;
  }
  return null;
}

// ---------------------------------------------------------------- scrypt

// An option given under both of its names ({ N, cost }, { r, blockSize },
// { p, parallelization }). Node 20 and 22: Error
// ERR_CRYPTO_SCRYPT_INVALID_PARAMETER "Invalid scrypt parameter"; node >= 23:
// TypeError ERR_INCOMPATIBLE_OPTION_PAIR naming both options
// (nodejs/node#53305, semver-major, v23.0.0). The pair is refused before any
// work, so the probe costs nothing.
const pairErrors = { __proto__: null };

function scryptOptionPairError(name, alias) {
  if (!(name in pairErrors)) {
    const probed = typeof crypto.scryptSync === 'function'
      ? thrownBy(() => crypto.scryptSync('', '', 0, { [name]: 2, [alias]: 2 }))
      : null;
    pairErrors[name] = probed !== null && typeof probed.code === 'string' ? probed : null;
  }
  if (pairErrors[name] !== null) return errors.likeNodes(pairErrors[name]);
  return MAJOR >= 23 ? errors.incompatibleOptionPair(name, alias) : errors.scryptInvalidParameter();
}

module.exports = { scryptOptionPairError };
