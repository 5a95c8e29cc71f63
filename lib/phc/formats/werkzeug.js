'use strict';

// Werkzeug's (Flask's) generate_password_hash, `<method>$<salt>$<hex key>`:
//
//   pbkdf2:<digest>:<iterations>$<salt>$<hex>   PBKDF2-HMAC, key of the digest's length
//   scrypt:<N>:<r>:<p>$<salt>$<hex>             scrypt, 64-byte key (hashlib's default)
//
// The salt is text (Werkzeug draws letters and digits), used as its UTF-8
// bytes; the key is lower-case hex (check_password_hash compares hex text).
// Werkzeug always writes the method with all its arguments; the digest is
// any hashlib name, of which the SHA-1 and SHA-2 ones are read here.
// Werkzeug before 2.3 also wrote `plain$$<password>` and `<digest>$<salt>$<hex>`
// (one salted digest): refused, saying the passwords must be reset.

const errors = require('../../errors');
const { shown } = require('../parse');
const { hexBytes, textBytes, decimalScrypt, iterationsOf } = require('./fields');

const FORMAT = 'werkzeug';
const invalid = errors.invalidHash;

const DIGESTS = Object.freeze({
  __proto__: null,
  sha1: { algorithm: 'pbkdf2-sha1', size: 20 },
  sha224: { algorithm: 'pbkdf2-sha224', size: 28 },
  sha256: { algorithm: 'pbkdf2-sha256', size: 32 },
  sha384: { algorithm: 'pbkdf2-sha384', size: 48 },
  sha512: { algorithm: 'pbkdf2-sha512', size: 64 },
});
const SCRYPT_KEY_BYTES = 64;

const CANDIDATE_RE = /^(pbkdf2|scrypt):/;
// Old Werkzeug's methods (md5$ and sha1$ are Django's too: django.js answers those).
const LEGACY_RE = /^(plain|md5|sha1|sha224|sha256|sha384|sha512)\$/;

function parseShape(stored) {
  const legacy = LEGACY_RE.exec(stored);
  if (legacy !== null) {
    throw invalid(legacy[1] === 'plain'
      ? '"plain$..." (old Werkzeug\'s password in clear text) is not supported: reset these passwords'
      : `"${legacy[1]}$..." (one salted digest, as old Werkzeug versions wrote) is not supported: reset these passwords`);
  }
  const m = CANDIDATE_RE.exec(stored);
  if (m === null) return undefined;
  const fields = stored.split('$');
  if (fields.length !== 3) throw invalid(`a Werkzeug ${m[1]} string has the fields <method>$<salt>$<hex key>`);
  const [method, saltText, keyText] = fields;
  const args = method.split(':').slice(1);
  const salt = textBytes(saltText, 'Werkzeug salt');
  const hash = hexBytes(keyText, 'Werkzeug key');
  const shape = m[1] === 'pbkdf2' ? pbkdf2Params(args) : scryptParams(args);
  if (hash.length !== shape.keyBytes) throw invalid(`the Werkzeug ${m[1]} key must be ${shape.keyBytes} bytes`);
  delete shape.keyBytes;
  return { ...shape, format: FORMAT, salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true };
}

function pbkdf2Params(args) {
  if (args.length !== 2) throw invalid('a Werkzeug PBKDF2 method is pbkdf2:<digest>:<iterations>');
  const info = DIGESTS[args[0]];
  if (info === undefined) throw invalid(`unsupported Werkzeug PBKDF2 digest ${shown(args[0])}`);
  const iterations = iterationsOf(args[1], 'Werkzeug PBKDF2 iterations');
  return { kind: 'pbkdf2', algorithm: info.algorithm, digest: args[0], iterations, keyBytes: info.size };
}

function scryptParams(args) {
  if (args.length !== 3) throw invalid('a Werkzeug scrypt method is scrypt:<N>:<r>:<p>');
  return { kind: 'scrypt', algorithm: 'scrypt', ...decimalScrypt(args[0], args[1], args[2], 'Werkzeug scrypt'), keyBytes: SCRYPT_KEY_BYTES };
}

function maxLength(limits, widths) {
  // A salt character is at least one UTF-8 byte; the key is hex.
  return 'pbkdf2:sha512::$$'.length + 3 * widths.number + limits.saltLength + 2 * limits.hashLength;
}

module.exports = { FORMAT, parseShape, maxLength };
