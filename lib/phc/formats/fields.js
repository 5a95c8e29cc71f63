'use strict';

// The field encodings of other frameworks' stored hashes, read strictly:
// each accepts exactly what its writer produces (a stored string may be
// attacker-controlled), with InvalidHashError for anything else. Every
// check is one anchored, linear regular expression or a length test.

const errors = require('../../errors');

const invalid = errors.invalidHash;

const LOWER_HEX_RE = /^[0-9a-f]*$/;
const ANY_HEX_RE = /^[0-9a-fA-F]*$/;
// Standard base64 with its '=' padding (Python's b64encode, .NET's
// Convert.ToBase64String, Java's Base64.getEncoder()).
const PADDED_B64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// Salt text: no '$' (the field separator) and no control characters.
// eslint-disable-next-line no-control-regex -- the characters it refuses
const TEXT_RE = /^[^$\x00-\x1f\x7f]+$/;

/**
 * Hex text -> bytes. `anyCase`: upper-case digits too (Spring's Hex.decode
 * reads both); otherwise lower case only, as the writers that compare hex
 * text (better-auth, Werkzeug) produce and accept.
 */
function hexBytes(text, what, anyCase = false) {
  if (text.length === 0) throw invalid(`the ${what} is empty`);
  if (!(anyCase ? ANY_HEX_RE : LOWER_HEX_RE).test(text)) {
    throw invalid(`the ${what} is not ${anyCase ? '' : 'lower-case '}hex`);
  }
  if (text.length % 2 !== 0) throw invalid(`the ${what} has an odd number of hex digits`);
  return Buffer.from(text, 'hex');
}

/** Padded, canonical standard base64 -> bytes. */
function paddedBase64Bytes(text, what) {
  if (text.length === 0) throw invalid(`the ${what} is empty`);
  if (!PADDED_B64_RE.test(text)) throw invalid(`the ${what} is not padded standard base64`);
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) {
    throw invalid(`the ${what} is not canonical base64 (non-zero trailing bits)`);
  }
  return bytes;
}

/** Bytes that padded base64 of `bytes` bytes takes, in characters. */
function paddedBase64Chars(bytes) {
  return 4 * Math.ceil(bytes / 3);
}

/**
 * A salt stored as text and used as its UTF-8 bytes (Django, Werkzeug):
 * non-empty, no '$', no control characters, no lone surrogate (Python
 * could not have encoded one).
 */
function textBytes(text, what) {
  if (!TEXT_RE.test(text) || !text.isWellFormed()) {
    throw invalid(`the ${what} is not non-empty text without "$" or control characters`);
  }
  return Buffer.from(text, 'utf8');
}

/**
 * scrypt's parameters as a stored string gives them (N = 2^ln), with the
 * rules of our own `$scrypt$` strings (../parse.js): what the KDF accepts.
 */
function checkScrypt(ln, r, p, what) {
  if (ln < 1 || ln > 63) throw invalid(`${what} N must be a power of 2 from 2 to 2^63`);
  if (r < 1 || p < 1) throw invalid(`${what} r and p must be at least 1`);
  if (r * p >= 2 ** 30) throw invalid(`${what} r*p must be below 2^30`);
  if (ln >= 16 * r) throw invalid(`${what} N must be below 2^(16*r)`);
}

/** log2(n) when `n` is a power of 2 of at least 2, else -1. */
function log2Exact(n) {
  const ln = Math.log2(n);
  return n >= 2 && Number.isInteger(ln) && 2 ** ln === n ? ln : -1;
}

module.exports = {
  hexBytes, paddedBase64Bytes, paddedBase64Chars, textBytes, checkScrypt, log2Exact,
};
