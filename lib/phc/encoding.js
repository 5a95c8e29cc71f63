'use strict';

// The byte encodings of stored hashes:
// - PHC: standard base64 without padding, canonical (no non-zero trailing bits);
// - passlib's "adapted base64": the same with '.' for '+';
// - bcrypt's radix-64: `./A-Za-z0-9`, which packs bits exactly like standard
//   base64 (RFC 4648, most significant bits first); only the alphabet
//   differs. So encoding is standard base64 with each character translated,
//   and no padding: 16 salt bytes -> 22 characters (the last one carries 2
//   bits), 23 hash bytes -> 31 characters (the last one carries 4 bits).
// Plus bcrypt's string layout `$2<minor>$<cost>$<22 salt chars><31 hash chars>`.

const errors = require('../errors');

const B64_RE = /^[A-Za-z0-9+/]*$/;
const AB64_RE = /^[A-Za-z0-9./]*$/;

function b64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64').replace(/=+$/, '');
}

function ab64(bytes) {
  return b64(bytes).replace(/\+/g, '.');
}

// Unpadded, canonical standard base64 (PHC), or passlib's adapted base64.
function decodeBase64(text, what, adapted) {
  if (text.length === 0) throw errors.invalidHash(`the ${what} is empty`);
  if (!(adapted ? AB64_RE : B64_RE).test(text)) {
    throw errors.invalidHash(`the ${what} is not ${adapted ? "passlib's adapted" : 'unpadded'} base64`);
  }
  if (text.length % 4 === 1) throw errors.invalidHash(`the ${what} has an impossible base64 length`);
  const std = adapted ? text.replace(/\./g, '+') : text;
  const bytes = Buffer.from(std, 'base64');
  if (b64(bytes) !== std) throw errors.invalidHash(`the ${what} is not canonical base64 (non-zero trailing bits)`);
  return bytes;
}

// Most characters `bytes` bytes can take in unpadded base64.
function maxChars(bytes) {
  return Math.ceil((bytes * 4) / 3);
}

// ---------------------------------------------------------------- bcrypt

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const STD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const TO_BCRYPT = new Map();
const TO_STD = new Map();
for (let i = 0; i < 64; i++) {
  TO_BCRYPT.set(STD_ALPHABET[i], BCRYPT_ALPHABET[i]);
  TO_STD.set(BCRYPT_ALPHABET[i], STD_ALPHABET[i]);
}

const BCRYPT_SALT_BYTES = 16;
const BCRYPT_HASH_BYTES = 23;
const BCRYPT_MIN_COST = 4;
const BCRYPT_MAX_COST = 31;
// bcrypt's key schedule reads at most 72 bytes of the password.
const BCRYPT_MAX_PASSWORD = 72;

/** bytes -> bcrypt radix-64 (no padding). */
function bcryptEncode(bytes) {
  const std = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let out = '';
  for (const ch of std) {
    if (ch === '=') break;
    out += TO_BCRYPT.get(ch);
  }
  return out;
}

/**
 * bcrypt radix-64 -> bytes (`length` of them). The unused low bits of the
 * last character are ignored, as OpenBSD's decode_base64 and npm `bcrypt` do.
 * The caller has already checked the alphabet.
 */
function bcryptDecode(text, length) {
  let std = '';
  for (const ch of text) std += TO_STD.get(ch);
  const bytes = Buffer.from(std, 'base64');
  return bytes.subarray(0, length);
}

/** The `$2<minor>$<cost>$<salt><hash>` string for raw salt and hash bytes. */
function formatBcrypt(minor, cost, salt, hash) {
  return `$2${minor}$${String(cost).padStart(2, '0')}$${bcryptEncode(salt)}${bcryptEncode(hash)}`;
}

module.exports = {
  b64,
  ab64,
  decodeBase64,
  maxChars,
  bcryptEncode,
  bcryptDecode,
  formatBcrypt,
  BCRYPT_ALPHABET,
  BCRYPT_SALT_BYTES,
  BCRYPT_HASH_BYTES,
  BCRYPT_MIN_COST,
  BCRYPT_MAX_COST,
  BCRYPT_MAX_PASSWORD,
};
