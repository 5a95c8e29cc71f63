'use strict';

// Django's stored passwords (django.contrib.auth.hashers), `<algorithm>$...`:
//
//   pbkdf2_sha256$<iterations>$<salt>$<base64 key>   PBKDF2-HMAC-SHA256, 32-byte key
//   pbkdf2_sha1$<iterations>$<salt>$<base64 key>     PBKDF2-HMAC-SHA1, 20-byte key
//   scrypt$<N>$<salt>$<r>$<p>$<base64 key>           scrypt, 64-byte key
//   argon2$argon2id$v=19$m=..,t=..,p=..$<salt>$<hash>   "argon2" + argon2-cffi's PHC string
//   bcrypt_sha256$$2b$12$<53 chars>                  bcrypt of hex(sha256(password))
//   bcrypt$$2b$12$<53 chars>                         bcrypt of the password
//
// The salt is text (Django draws letters and digits), used as its UTF-8
// bytes; the key is standard base64 with padding, of the digest's (or
// scrypt's 64-byte) length: Django verifies by re-encoding the whole string
// and comparing, so only the string it writes ever verified. bcrypt_sha256
// hashes the password's UTF-8 bytes with SHA-256 and gives bcrypt the 64
// lower-case hex digits as ASCII. Django runs pyca/bcrypt, whose $2a$ has no
// length wrap (unlike OpenBSD's): its strings are computed as $2b$.

const crypto = require('node:crypto');
const errors = require('../../errors');
const { parseShape: parsePhcShape, parseBcrypt } = require('../parse');
const {
  paddedBase64Bytes, paddedBase64Chars, textBytes, decimalScrypt, iterationsOf,
} = require('./fields');

const FORMAT = 'django';
const invalid = errors.invalidHash;

const PBKDF2 = Object.freeze({
  __proto__: null,
  pbkdf2_sha256: { algorithm: 'pbkdf2-sha256', digest: 'sha256', size: 32 },
  pbkdf2_sha1: { algorithm: 'pbkdf2-sha1', digest: 'sha1', size: 20 },
});
const SCRYPT_KEY_BYTES = 64;
// Django's hashers kdfpool does not read: unsalted or single-round digests.
const UNSUPPORTED = new Set(['sha1', 'md5', 'unsalted_sha1', 'unsalted_md5', 'crypt']);

const CANDIDATE_RE = /^([a-z0-9_]+)\$/;
// Django's UnsaltedMD5PasswordHasher stores the bare hex digest (and so did
// many apps before any framework); a bare 40-digit one is unsalted SHA-1.
const BARE_HEX_RE = /^(?:[0-9a-f]{32}|[0-9a-f]{40})$/i;

function parseShape(stored) {
  if (BARE_HEX_RE.test(stored)) {
    const what = stored.length === 32 ? 'an unsalted MD5 digest, as Django\'s unsalted_md5 hasher' : 'an unsalted SHA-1 digest, as';
    throw invalid(`${stored.length} hex digits alone (${what} and old applications wrote) are not supported: ` +
      'reset these passwords');
  }
  const m = CANDIDATE_RE.exec(stored);
  if (m === null) return undefined;
  const name = m[1];
  const rest = stored.slice(name.length + 1);
  if (name in PBKDF2) return pbkdf2Shape(name, rest);
  switch (name) {
    case 'scrypt': return scryptShape(rest);
    case 'argon2': return argon2Shape(rest);
    case 'bcrypt_sha256': return bcryptShape(name, rest, sha256Hex);
    case 'bcrypt': return bcryptShape(name, rest, undefined);
    default:
      if (UNSUPPORTED.has(name)) {
        throw invalid(`"${name}$..." (one plain digest, as old Django and Werkzeug versions wrote) is not ` +
          'supported: reset these passwords');
      }
      return undefined;
  }
}

function pbkdf2Shape(name, rest) {
  const fields = rest.split('$');
  if (fields.length !== 3) throw invalid(`a Django ${name} string has the fields ${name}$<iterations>$<salt>$<key>`);
  const info = PBKDF2[name];
  const iterations = iterationsOf(fields[0], `Django ${name} iterations`);
  const salt = textBytes(fields[1], `Django ${name} salt`);
  const hash = paddedBase64Bytes(fields[2], `Django ${name} key`);
  if (hash.length !== info.size) throw invalid(`the Django ${name} key must be ${info.size} bytes`);
  return {
    kind: 'pbkdf2', algorithm: info.algorithm, format: FORMAT, digest: info.digest, iterations,
    salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true,
  };
}

function scryptShape(rest) {
  const fields = rest.split('$');
  if (fields.length !== 5) throw invalid('a Django scrypt string has the fields scrypt$<N>$<salt>$<r>$<p>$<key>');
  const { ln, N, r, p } = decimalScrypt(fields[0], fields[2], fields[3], 'Django scrypt');
  const salt = textBytes(fields[1], 'Django scrypt salt');
  const hash = paddedBase64Bytes(fields[4], 'Django scrypt key');
  if (hash.length !== SCRYPT_KEY_BYTES) throw invalid(`the Django scrypt key must be ${SCRYPT_KEY_BYTES} bytes`);
  return {
    kind: 'scrypt', algorithm: 'scrypt', format: FORMAT, ln, N, r, p,
    salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true,
  };
}

// "argon2" + an Argon2 PHC string: ours to read (../parse.js).
function argon2Shape(rest) {
  if (!/^argon2(id|i|d)\$/.test(rest)) {
    throw invalid('a Django argon2 string is "argon2" followed by an $argon2id$, $argon2i$ or $argon2d$ string');
  }
  return { ...parsePhcShape(`$${rest}`), format: FORMAT };
}

function bcryptShape(name, rest, prehash) {
  const d = parseBcrypt(rest);
  if (d === null) throw invalid(`a Django ${name} string is "${name}$" followed by a $2a$, $2b$ or $2y$ bcrypt string`);
  return { kind: 'bcrypt', algorithm: 'bcrypt', ...d, text: rest, minor: 'b', format: FORMAT, prehash };
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');

// hex(sha256(pw)) as 64 ASCII bytes, in a buffer of ours (wiped by the
// caller): never a string, which could not be wiped.
function sha256Hex(pw) {
  const digest = crypto.createHash('sha256').update(pw).digest();
  const out = Buffer.alloc(2 * digest.length);
  for (let i = 0; i < digest.length; i++) {
    out[2 * i] = HEX[digest[i] >> 4];
    out[2 * i + 1] = HEX[digest[i] & 15];
  }
  digest.fill(0);
  return out;
}

function maxLength(limits, widths) {
  const n = widths.number;
  const key = paddedBase64Chars(limits.hashLength);
  // A salt character is at least one UTF-8 byte.
  const pbkdf2 = 'pbkdf2_sha256$$$'.length + n + limits.saltLength + key;
  const scrypt = 'scrypt$$$$$'.length + 3 * n + limits.saltLength + key;
  const argon2 = 'argon2'.length + widths.argon2;
  const bcrypt = 'bcrypt_sha256$'.length + widths.bcrypt;
  return Math.max(pbkdf2, scrypt, argon2, bcrypt);
}

module.exports = { FORMAT, parseShape, maxLength };
