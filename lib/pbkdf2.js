'use strict';

// PBKDF2's arguments, checked in the order and with the errors of node's
// crypto.pbkdf2; the digest name is then looked up by the native prepare
// step, which refuses an unknown one (ERR_CRYPTO_INVALID_DIGEST), and one
// that needs OpenSSL in a host without it, Bun or Deno (a job error,
// ERR_KDF_DIGEST_UNAVAILABLE). Where node versions differ on whether a
// valid request derives (an empty key, a digest OpenSSL refuses for HMAC),
// the running node's refusal is raised instead of submitting the job
// (lib/host.js).

const host = require('./host');
const v = require('./validate');

function checkPbkdf2(password, salt, iterations, keylen, digest) {
  // node:crypto's order: digest, password, salt, iterations, keylen.
  v.validateString(digest, 'digest');
  // Strings go to the native side as they are: it encodes them as UTF-8
  // straight into the job (no Buffer per call, no JS copy of a password).
  const pw = v.toInput(password, 'password');
  const s = v.toInput(salt, 'salt');
  v.validateInt32(iterations, 'iterations', 1);
  v.validateInt32(keylen, 'keylen', 0);
  // The second number asks the native lookup for node >= 24's provider
  // fetch fallback where the running node has it (lib/host.js).
  return {
    inputs: [pw, s], numbers: [iterations, host.digestFetch() ? 1 : 0], name: digest, outlen: keylen, context: { digest },
  };
}

/**
 * The error the running node raises, instead of a key, for this request
 * (keylen 0 on node >= 22; a digest OpenSSL refuses for HMAC), or null.
 */
function pbkdf2Refusal(c) {
  return host.pbkdf2Refusal(c.name, c.outlen === 0);
}

module.exports = { checkPbkdf2, pbkdf2Refusal };
