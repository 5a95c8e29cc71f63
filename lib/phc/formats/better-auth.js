'use strict';

// better-auth's default password hash (@better-auth/utils/password, used by
// better-auth's emailAndPassword unless `password.hash` is replaced):
//
//   <hex(salt)>:<hex(key)>      32 + 1 + 128 lower-case hex characters
//
// key = scrypt(NFKC(password), salt = the 32 characters of hex(salt) as
// text, N=16384, r=16, p=1, 64 bytes). The parameters are not in the
// string: they are better-auth's constants. Its verify compares hex text,
// so only lower-case hex ever verified there, and only that is read here.
// The writer always NFKC-normalised the password, so verifying does too.

const errors = require('../../errors');
const { hexBytes } = require('./fields');

const FORMAT = 'better-auth';
const SALT_HEX = 32;
const KEY_BYTES = 64;
const LN = 14;
const R = 16;
const P = 1;
const LENGTH = SALT_HEX + 1 + 2 * KEY_BYTES;

// Hex digits then ':' (and no '$', which every other format has): this is
// meant to be a better-auth string.
const CANDIDATE_RE = /^[0-9a-fA-F]*:[^$]*$/;

function parseShape(stored) {
  if (!CANDIDATE_RE.test(stored)) return undefined;
  const colon = stored.indexOf(':');
  if (colon !== SALT_HEX || stored.length !== LENGTH) {
    throw errors.invalidHash(`a better-auth hash is ${SALT_HEX} hex digits (the salt), ":", ` +
      `then ${2 * KEY_BYTES} hex digits (the key)`);
  }
  const saltText = stored.slice(0, colon);
  hexBytes(saltText, 'better-auth salt'); // lower-case hex, as written
  const hash = hexBytes(stored.slice(colon + 1), 'better-auth key');
  // The salt is the hex text itself (ASCII), not the bytes it spells.
  const salt = Buffer.from(saltText, 'latin1');
  return {
    kind: 'scrypt', algorithm: 'scrypt', format: FORMAT, ln: LN, N: 2 ** LN, r: R, p: P,
    salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true, normalize: 'NFKC',
  };
}

function maxLength() {
  return LENGTH;
}

module.exports = { FORMAT, parseShape, maxLength };
