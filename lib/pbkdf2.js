'use strict';

// PBKDF2's arguments, checked in the order and with the errors of node's
// crypto.pbkdf2; the digest name is then looked up by the native prepare
// step, which refuses an unknown one (ERR_CRYPTO_INVALID_DIGEST). Where the
// derivation's outcome differs between node versions (an empty key, a
// digest OpenSSL refuses), the result is settled as the running node would
// settle it (lib/host.js).

const errors = require('./errors');
const host = require('./host');
const v = require('./validate');

function checkPbkdf2(password, salt, iterations, keylen, digest) {
  // node:crypto's order: digest, password, salt, iterations, keylen.
  v.validateString(digest, 'digest');
  const pw = v.toBytes(password, 'password');
  const s = v.toBytes(salt, 'salt');
  v.validateInt32(iterations, 'iterations', 1);
  v.validateInt32(keylen, 'keylen', 0);
  return { inputs: [pw, s], numbers: [iterations], name: digest, outlen: keylen, context: { digest } };
}

/** The derived key, unless the running node fails this derivation (keylen 0 on node >= 22). */
function pbkdf2Key(c, key) {
  if (c.outlen === 0) {
    const err = host.pbkdf2Failure(c.context.digest, true);
    if (err !== null) throw err;
  }
  return key;
}

/** The derivation's error, as the running node reports the same OpenSSL failure. */
function pbkdf2Error(c, err) {
  if (!errors.isOpensslFailure(err)) return err;
  return host.pbkdf2Failure(c.context.digest, c.outlen === 0) || err;
}

module.exports = { checkPbkdf2, pbkdf2Key, pbkdf2Error };
