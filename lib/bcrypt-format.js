'use strict';

// bcrypt's modular-crypt strings: `$2<minor>$<cost>$<22 salt chars><31 hash chars>`
// with minor 'a', 'b' or 'y', a two-digit cost 04..31, and bcrypt's radix-64
// alphabet `./A-Za-z0-9`.
//
// bcrypt's radix-64 packs bits exactly like standard base64 (RFC 4648, most
// significant bits first); only the alphabet differs. So encoding is standard
// base64 with each character translated, and no padding: 16 salt bytes ->
// 22 characters (the last one carries 2 bits), 23 hash bytes -> 31
// characters (the last one carries 4 bits).

const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const STD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const TO_BCRYPT = new Map();
const TO_STD = new Map();
for (let i = 0; i < 64; i++) {
  TO_BCRYPT.set(STD_ALPHABET[i], BCRYPT_ALPHABET[i]);
  TO_STD.set(BCRYPT_ALPHABET[i], STD_ALPHABET[i]);
}

const SALT_BYTES = 16;
const HASH_BYTES = 23;
const SALT_CHARS = 22;
const HASH_CHARS = 31;
const MIN_COST = 4;
const MAX_COST = 31;

// Whole-string shape; the cost range and alphabet are checked here too.
const BCRYPT_RE = /^\$2([aby])\$(0[4-9]|[12][0-9]|3[01])\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

/** bytes -> bcrypt radix-64 (no padding). */
function encode(bytes) {
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
function decode(text, length) {
  let std = '';
  for (const ch of text) std += TO_STD.get(ch);
  const bytes = Buffer.from(std, 'base64');
  return bytes.subarray(0, length);
}

/**
 * Parses a `$2a$`/`$2b$`/`$2y$` string. Returns null when it is not one
 * (the caller raises the error); otherwise { minor, cost, salt (16 bytes),
 * hash (23 bytes), saltText, hashText, canonical }, where `canonical` is
 * false when a last character carries non-zero unused bits (such a string
 * is never produced by bcrypt, and npm `bcrypt` never verifies it).
 */
function parse(text) {
  const m = BCRYPT_RE.exec(text);
  if (m === null) return null;
  const [, minor, costText, saltText, hashText] = m;
  const salt = decode(saltText, SALT_BYTES);
  const hash = decode(hashText, HASH_BYTES);
  const canonical = encode(salt) === saltText && encode(hash) === hashText;
  return { minor, cost: Number(costText), salt, hash, saltText, hashText, canonical };
}

/** The `$2<minor>$<cost>$<salt><hash>` string for raw salt and hash bytes. */
function format(minor, cost, salt, hash) {
  return `$2${minor}$${String(cost).padStart(2, '0')}$${encode(salt)}${encode(hash)}`;
}

module.exports = {
  encode,
  decode,
  parse,
  format,
  BCRYPT_ALPHABET,
  SALT_BYTES,
  HASH_BYTES,
  SALT_CHARS,
  HASH_CHARS,
  MIN_COST,
  MAX_COST,
};
