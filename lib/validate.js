'use strict';

// Argument checks with node:crypto's semantics and messages (node's
// lib/internal/validators.js), so a swap from crypto.* changes no error.

const { isAnyArrayBuffer, isArrayBufferView } = require('node:util').types;
const errors = require('./errors');

const BYTES_EXPECTED = 'of type string or an instance of ArrayBuffer, Buffer, TypedArray, or DataView';

function validateString(value, name) {
  if (typeof value !== 'string') throw errors.invalidArgType(name, 'of type string', value);
}

function validateFunction(value, name) {
  if (typeof value !== 'function') throw errors.invalidArgType(name, 'of type function', value);
}

function validateObject(value, name) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.invalidArgType(name, 'of type object', value);
  }
}

function validateNumber(value, name) {
  if (typeof value !== 'number') throw errors.invalidArgType(name, 'of type number', value);
}

function validateInteger(value, name, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  validateNumber(value, name);
  if (!Number.isInteger(value)) throw errors.outOfRange(name, 'an integer', value);
  if (value < min || value > max) throw errors.outOfRange(name, `>= ${min} && <= ${max}`, value);
}

function validateInt32(value, name, min = -2147483648, max = 2147483647) {
  validateInteger(value, name, min, max);
}

function validateUint32(value, name, positive = false) {
  validateNumber(value, name);
  if (!Number.isInteger(value)) throw errors.outOfRange(name, 'an integer', value);
  const min = positive ? 1 : 0;
  const max = 4294967295;
  if (value < min || value > max) throw errors.outOfRange(name, `>= ${min} && <= ${max}`, value);
}

// Edit distance between two strings (optimal string alignment: an
// insertion, a deletion, a substitution or a swap of two neighbours costs
// 1), or Infinity once it is sure to exceed `max`. Option names are short:
// the table is at most a few hundred cells.
function editDistance(a, b, max) {
  if (Math.abs(a.length - b.length) > max) return Infinity;
  let prev2 = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      row.push(d);
      if (d < best) best = d;
    }
    if (best > max) return Infinity;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length] <= max ? prev[b.length] : Infinity;
}

/**
 * The known key an unknown `key` most likely meant, or undefined: one that
 * differs only in case, else the nearest by edit distance (ignoring case)
 * within a third of the longer name (at least 1) and shorter than `key`
 * itself (`x` suggests nothing), the first of `known` on a tie.
 */
function closestKey(key, known) {
  const lower = key.toLowerCase();
  const sameLetters = known.find((k) => k.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best;
  let bestDistance = Infinity;
  for (const k of known) {
    const max = Math.min(Math.max(1, Math.floor(Math.max(k.length, key.length) / 3)), key.length - 1);
    const d = editDistance(lower, k.toLowerCase(), max);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

// What an unknown-key error adds: the closest known key, or the list.
function unknownKeyHint(key, known) {
  const near = closestKey(key, known);
  return near !== undefined ? `did you mean "${near}"?` : `one of ${known.join(', ')}`;
}

// kdfpool's own option objects refuse keys they do not know (a typo such as
// `maxWaitMS` must not silently drop a deadline), naming the closest known
// key. Keys set to undefined are ignored, as unset.
function refuseUnknownKeys(options, where, known) {
  // for-in, not Object.keys(): no array per call on the path every call
  // with options takes; inherited keys are not the caller's.
  for (const key in options) {
    if (known.includes(key) || !Object.hasOwn(options, key) || options[key] === undefined) continue;
    throw errors.invalidArgValue(`${where}.${key}`, shownValue(options[key]), `is not an option (${unknownKeyHint(key, known)})`);
  }
}

// What an error about an unknown or misplaced key shows of its value: not
// strings or bytes, which may be a misspelt secret (errors end up in logs),
// nor objects, which may hold one ({ current, keys } given to scrypt).
function shownValue(value) {
  if (typeof value === 'string' || (value !== null && typeof value === 'object')) return '<redacted>';
  return value;
}

// A string's UTF-8 bytes (lone surrogates replaced, as Buffer.from does) in
// memory of their own. Buffer.from(string) puts short strings in Buffer's
// shared pool, where a copy of a password or pepper would sit among other
// buffers' bytes, out of reach of any wipe the caller forgets or cannot
// make; this copy is the caller's to wipe (fill(0)) once used.
function utf8Bytes(s) {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(s, 'utf8'));
  bytes.write(s, 'utf8');
  return bytes;
}

// string | ArrayBuffer | SharedArrayBuffer | Buffer | TypedArray | DataView
// -> a Uint8Array view of the same bytes (strings: a UTF-8 copy of our own,
// see utf8Bytes(), which the caller wipes). The native side copies it
// before any other thread sees it. A detached ArrayBuffer, or a view of
// one, is empty input, as node:crypto reads it: no view can be made on a
// detached buffer (and a DataView's own byteLength throws), so it is
// recognised by its buffer's length, 0 once detached.
function toBytes(value, name) {
  if (typeof value === 'string') return utf8Bytes(value);
  if (isAnyArrayBuffer(value)) return value.byteLength === 0 ? new Uint8Array(0) : new Uint8Array(value);
  if (isArrayBufferView(value)) {
    if (value.buffer.byteLength === 0) return new Uint8Array(0);
    return value instanceof Uint8Array
      ? value
      : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  throw errors.invalidArgType(name, BYTES_EXPECTED, value);
}

// A string as it is (native code reads it as UTF-8 straight into the job:
// no JS copy of a password is made), anything else through toBytes().
function toInput(value, name) {
  return typeof value === 'string' ? value : toBytes(value, name);
}

// The byte length toBytes(value) would have, without copying a string.
function byteLengthOf(value, name) {
  return typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : toBytes(value, name).byteLength;
}

module.exports = {
  validateString,
  validateFunction,
  validateObject,
  validateNumber,
  validateInteger,
  validateInt32,
  validateUint32,
  refuseUnknownKeys,
  closestKey,
  unknownKeyHint,
  shownValue,
  toBytes,
  toInput,
  byteLengthOf,
  utf8Bytes,
  BYTES_EXPECTED,
};
