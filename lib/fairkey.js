'use strict';

// The `fairKey` call option: the name of the client a call is made for (an
// IP, an account, a tenant), which the pool serves in turn with the other
// clients (src/pool/sched.c). Native code hashes the name with SipHash-2-4
// under one random key per process (pool_fair_key in src/pool/machine.c),
// so the same name is the same client from every worker thread and every
// copy of this library in the process, names cannot be read back from the
// pool, its stats or its errors, and nobody outside the process can
// choose names that collide.

const errors = require('./errors');

/** The longest name accepted, in UTF-16 code units. */
const FAIR_KEY_MAX_LENGTH = 1024;

/**
 * The name native code hashes for `fairKey` (undefined when it is
 * undefined: the key shared by calls that name none); throws node-style
 * argument errors for anything but a string of 1 to FAIR_KEY_MAX_LENGTH
 * characters. `where` names the option in messages.
 */
function fairKeyOf(fairKey, where) {
  if (fairKey === undefined) return undefined;
  if (typeof fairKey !== 'string') throw errors.invalidArgType(where, 'of type string', fairKey);
  if (fairKey.length === 0 || fairKey.length > FAIR_KEY_MAX_LENGTH) {
    throw errors.outOfRange(`${where}.length`, `>= 1 && <= ${FAIR_KEY_MAX_LENGTH}`, fairKey.length);
  }
  return fairKey;
}

module.exports = { fairKeyOf, FAIR_KEY_MAX_LENGTH };
