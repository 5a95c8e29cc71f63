'use strict';

// PBKDF2's arguments, checked in the order and with the errors of node's
// crypto.pbkdf2; the digest name is then looked up by the native prepare
// step, which refuses an unknown one (ERR_CRYPTO_INVALID_DIGEST).

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

module.exports = { checkPbkdf2 };
