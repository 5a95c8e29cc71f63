'use strict';

// Argon2 peppers (RFC 9106's secret K): a pool's `secret` and a call's.
// Two forms:
//
//   secret: <BinaryLike>           one key; the strings name none
//   secret: { current: 'k2', keys: { k1: <BinaryLike>, k2: <BinaryLike> }[, unnamed: 'k1'] }
//
// Named keys rotate: hash() uses keys[current] and writes its id into the
// string as `keyid=` (the PHC string format's Argon2 parameter: the id's
// bytes in B64, 1 to 8 of them); verify() uses the key the string names, an
// id it does not have being an error (ERR_KDF_UNKNOWN_KEY_ID), and for a
// string without keyid keys[unnamed] (the single secret used before the
// rotation began) or, without `unnamed`, no secret; needsRehash() is true
// for a string that names another key than `current`, or none.
//
// A Peppers object is a read-once view of such an option: readSecret()
// checks it and keeps references to the values given, copying nothing (a
// call's secret is encoded only for the job that needs it); copy() makes
// the pool's own copies, which wipe() zeroes. No Peppers shows a key: its
// fields are private, and inspecting one shows the ids only.

const { inspect, types: { isAnyArrayBuffer, isArrayBufferView } } = require('node:util');
const errors = require('../errors');
const v = require('../validate');
const { b64 } = require('./encoding');

// Key ids: 1 to 8 bytes (the PHC format's keyid), here letters, digits,
// '.', '_' and '-' only, so an id reads the same in config, logs and errors.
const KEY_ID_RE = /^[A-Za-z0-9._-]{1,8}$/;
const KEYED_FIELDS = ['current', 'keys', 'unnamed'];
const MAX_SECRET_BYTES = 2 ** 32 - 1;

class Peppers {
  #current;
  #keys;
  #unnamedId;
  #single;

  // current: the id hash() writes (undefined: the single-key form, no
  // keyid); keys: Map id -> key; unnamedId: the id of the key of strings
  // without keyid (named form); single: the one key (single-key form).
  constructor(current, keys, unnamedId, single) {
    this.#current = current;
    this.#keys = keys;
    this.#unnamedId = unnamedId;
    this.#single = single;
  }

  /** The id hash() writes as keyid=, or undefined (strings name no key). */
  get current() {
    return this.#current;
  }

  /** The ids of the named keys. */
  ids() {
    return [...this.#keys.keys()];
  }

  /** Whether a string naming `keyId` (undefined: none) can be verified. */
  has(keyId) {
    return keyId === undefined || this.#keys.has(keyId);
  }

  /** The key (as given, or our copy) for strings naming `keyId`; undefined: no secret. */
  key(keyId) {
    if (keyId !== undefined) return this.#keys.get(keyId);
    return this.#unnamedId !== undefined ? this.#keys.get(this.#unnamedId) : this.#single;
  }

  /** A Peppers holding copies of our own (strings as UTF-8), for a pool. */
  copy() {
    const copies = new Map();
    let single;
    try {
      for (const [id, key] of this.#keys) copies.set(id, ownCopy(key));
      if (this.#single !== undefined) single = ownCopy(this.#single);
    } catch (err) {
      for (const key of copies.values()) key.fill(0);
      throw err;
    }
    return new Peppers(this.#current, copies, this.#unnamedId, single);
  }

  /** Zeroes our copies (for what copy() made) and forgets every key. */
  wipe() {
    for (const key of this.#keys.values()) if (key instanceof Uint8Array) key.fill(0);
    if (this.#single instanceof Uint8Array) this.#single.fill(0);
    this.#keys = new Map();
    this.#single = undefined;
  }

  [inspect.custom]() {
    if (this.#current !== undefined) {
      return `Peppers { current: ${inspect(this.#current)}, ids: ${inspect(this.ids())} }`;
    }
    return `Peppers { ${this.#single === undefined ? 'none' : 'one key, no id'} }`;
  }
}

// One key in memory of its own (not a slice of Buffer's shared pool); a
// string is encoded straight into it.
function ownCopy(key) {
  if (typeof key === 'string') return v.utf8Bytes(key);
  const bytes = v.toBytes(key, 'secret');
  const out = Buffer.alloc(bytes.byteLength);
  out.set(bytes);
  return out;
}

/** No pepper: strings name no key and are hashed without a secret. */
const NO_PEPPER = new Peppers(undefined, new Map(), undefined, undefined);

function isBinaryLike(value) {
  return typeof value === 'string' || isAnyArrayBuffer(value) || isArrayBufferView(value);
}

// What an error about a secret's field says it received: never the value.
// A pepper put where an id belongs (current, unnamed, a name in keys), or
// an id that is really a key, must not reach the logs; its kind and size
// are enough to find the mistake.
const REDACTED = '<redacted>';
function kindOf(value) {
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (isAnyArrayBuffer(value) || isArrayBufferView(value)) return `${v.byteLengthOf(value)} bytes`;
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `type ${typeof value}`;
}

// One key, checked without copying it (a string is measured, not encoded);
// an error never shows it. An empty key is refused: it would write keyid=
// with no pepper behind it, and verify anything hashed without one.
function checkKey(value, where) {
  if (!isBinaryLike(value)) throw errors.invalidSecretType(where, value);
  const bytes = v.byteLengthOf(value, where);
  if (bytes === 0) {
    throw errors.invalidArgValue(where, REDACTED,
      'is empty: a pepper of no bytes adds nothing (leave the secret unset for none)');
  }
  v.validateInteger(bytes, `${where}.byteLength`, 1, MAX_SECRET_BYTES);
}

const KEY_ID_RULE = '1 to 8 letters, digits, ".", "_" or "-"';

function checkKeyId(id, where, inKeys = false) {
  if (typeof id !== 'string' || !KEY_ID_RE.test(id)) {
    throw errors.invalidArgValue(where, REDACTED, inKeys
      ? `has an id that is not ${KEY_ID_RULE} (${kindOf(id)}, not shown: it may be a key)`
      : `must be a key id: ${KEY_ID_RULE} (got ${kindOf(id)}, not shown: it may be a key)`);
  }
}

/**
 * A `secret` option (`where` names it) -> Peppers (a view, no copies), or
 * undefined when unset. Each property is read once.
 */
function readSecret(value, where) {
  if (value === undefined) return undefined;
  if (isBinaryLike(value)) {
    checkKey(value, where);
    return new Peppers(undefined, new Map(), undefined, value);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw errors.invalidSecretType(where, value);
  v.refuseUnknownKeys(value, where, KEYED_FIELDS);
  const { current, keys, unnamed } = value;
  if (current === undefined) throw errors.invalidArgValue(`${where}.current`, undefined, 'must name the key hash() uses');
  checkKeyId(current, `${where}.current`);
  if (keys === null || typeof keys !== 'object' || Array.isArray(keys) || isBinaryLike(keys)) {
    throw errors.invalidSecretType(`${where}.keys`, keys, 'an object of key ids and keys'); // a misplaced key is not shown
  }
  const map = new Map();
  for (const id of Object.keys(keys)) {
    checkKeyId(id, `${where}.keys`, true);
    const key = keys[id];
    checkKey(key, `${where}.keys.${id}`);
    map.set(id, key);
  }
  // The ids of keys, not the value given: an id-shaped pepper put in
  // current or unnamed must not be printed either.
  if (!map.has(current)) {
    throw errors.invalidArgValue(`${where}.current`, REDACTED, `is not one of ${where}.keys (${[...map.keys()].join(', ') || 'none'})`);
  }
  if (unnamed !== undefined) {
    checkKeyId(unnamed, `${where}.unnamed`);
    if (!map.has(unnamed)) {
      throw errors.invalidArgValue(`${where}.unnamed`, REDACTED, `is not one of ${where}.keys (${[...map.keys()].join(', ')})`);
    }
  }
  return new Peppers(current, map, unnamed, undefined);
}

/**
 * The bytes of one key for a job: { bytes (undefined: no secret), wipe() }.
 * A string is encoded into a copy of ours, zeroed by wipe(); bytes (the
 * caller's, or the pool's copy) are not ours to wipe, and native code
 * copies them at submit.
 */
function keyBytes(key) {
  if (key === undefined) return { bytes: undefined, wipe() {} };
  if (typeof key === 'string') {
    const bytes = v.utf8Bytes(key);
    return { bytes, wipe: () => bytes.fill(0) };
  }
  return { bytes: v.toBytes(key, 'secret'), wipe() {} };
}

/** A key id as the string's keyid= field: B64 of its bytes. */
function keyIdField(id) {
  return b64(Buffer.from(id, 'latin1'));
}

module.exports = { Peppers, NO_PEPPER, readSecret, keyBytes, keyIdField };
