'use strict';

// Spring Security's DelegatingPasswordEncoder, `{<id>}<encoded>`, with the
// encoders PasswordEncoderFactories.createDelegatingPasswordEncoder() maps
// each id to:
//
//   {bcrypt}$2a$10$...                    BCryptPasswordEncoder
//   {pbkdf2}<hex>                         Pbkdf2PasswordEncoder v5.5 defaults: hex(salt | key),
//                                         8-byte salt, PBKDF2-HMAC-SHA1, 185000 iterations, 32-byte key
//   {pbkdf2@SpringSecurity_v5_8}<hex>     v5.8 defaults: 16-byte salt, HMAC-SHA256, 310000, 32-byte key
//   {scrypt}$<hex params>$<salt>$<key>    SCryptPasswordEncoder (both ids): params =
//   {scrypt@SpringSecurity_v5_8}...       log2(N) << 16 | r << 8 | p, salt and key in padded base64
//   {argon2}$argon2id$v=19$...            Argon2PasswordEncoder: a PHC string (both ids)
//   {argon2@SpringSecurity_v5_8}...
//
// The PBKDF2 encoder's parameters (and its secret, appended to the salt)
// are not in its string: the two ids mean the two default sets above, the
// only ones read here (docs/migrating.md turns a custom one into a PHC
// string). Its hex decoder reads either case. Passwords are UTF-8. Spring's
// jBCrypt has no $2a$ length wrap (unlike OpenBSD's): computed as $2b$.

const errors = require('../../errors');
const { parseShape: parsePhcShape, parseBcrypt, shown } = require('../parse');
const { OTHER_MIN_HASH } = require('../schemes');
const { hexBytes, paddedBase64Bytes, paddedBase64Chars, checkScrypt } = require('./fields');

const FORMAT = 'spring-security';
const invalid = errors.invalidHash;

const PBKDF2 = Object.freeze({
  __proto__: null,
  pbkdf2: { algorithm: 'pbkdf2-sha1', digest: 'sha1', iterations: 185000, saltBytes: 8, keyBytes: 32 },
  'pbkdf2@SpringSecurity_v5_8': {
    algorithm: 'pbkdf2-sha256', digest: 'sha256', iterations: 310000, saltBytes: 16, keyBytes: 32,
  },
});
const SCRYPT_IDS = new Set(['scrypt', 'scrypt@SpringSecurity_v5_8']);
const ARGON2_IDS = new Set(['argon2', 'argon2@SpringSecurity_v5_8']);
// Spring's other ids: single digests or plain text.
const UNSUPPORTED = new Set(['noop', 'MD4', 'MD5', 'SHA-1', 'SHA-256', 'sha256', 'ldap']);
const LONGEST_ID = '{pbkdf2@SpringSecurity_v5_8}'.length;

// Spring writes the parameters with Long.toString(x, 16): lower case, no
// leading zero; r and p are one byte each, log2(N) at most 16 bits.
const SCRYPT_PARAMS_RE = /^[1-9a-f][0-9a-f]{0,5}$/;

const CANDIDATE_RE = /^\{([^{}]*)\}/;

function parseShape(stored) {
  const m = CANDIDATE_RE.exec(stored);
  if (m === null) return undefined;
  const id = m[1];
  const rest = stored.slice(id.length + 2);
  if (id in PBKDF2) return pbkdf2Shape(id, rest);
  if (SCRYPT_IDS.has(id)) return scryptShape(rest);
  if (ARGON2_IDS.has(id)) return argon2Shape(rest);
  if (id === 'bcrypt') return bcryptShape(rest);
  if (UNSUPPORTED.has(id)) {
    throw invalid(`Spring Security's {${id}} encoder (one plain digest, or none) is not supported: ` +
      'reset these passwords');
  }
  throw invalid(`unknown Spring Security encoder id ${shown(id)}`);
}

function pbkdf2Shape(id, rest) {
  const info = PBKDF2[id];
  const bytes = hexBytes(rest, `Spring {${id}} hash`, true);
  if (bytes.length !== info.saltBytes + info.keyBytes) {
    throw invalid(`a Spring {${id}} hash is hex of a ${info.saltBytes}-byte salt and a ${info.keyBytes}-byte key`);
  }
  // The secret (Spring's default: none) would follow the salt.
  const salt = bytes.subarray(0, info.saltBytes);
  const hash = bytes.subarray(info.saltBytes);
  return {
    kind: 'pbkdf2', algorithm: info.algorithm, format: FORMAT, digest: info.digest, iterations: info.iterations,
    salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true,
  };
}

function scryptShape(rest) {
  const fields = rest.split('$');
  if (fields.length !== 4 || fields[0] !== '') {
    throw invalid('a Spring {scrypt} hash is $<hex parameters>$<base64 salt>$<base64 key>');
  }
  if (!SCRYPT_PARAMS_RE.test(fields[1])) {
    throw invalid('the Spring {scrypt} parameters are not lower-case hex without leading zeros');
  }
  const params = parseInt(fields[1], 16);
  const ln = params >>> 16;
  const r = (params >>> 8) & 0xff;
  const p = params & 0xff;
  checkScrypt(ln, r, p, 'Spring {scrypt}');
  const salt = paddedBase64Bytes(fields[2], 'Spring {scrypt} salt');
  const hash = paddedBase64Bytes(fields[3], 'Spring {scrypt} key');
  if (hash.length < OTHER_MIN_HASH) throw invalid(`the Spring {scrypt} key must be at least ${OTHER_MIN_HASH} bytes`);
  return {
    kind: 'scrypt', algorithm: 'scrypt', format: FORMAT, ln, N: 2 ** ln, r, p,
    salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true,
  };
}

function argon2Shape(rest) {
  if (!/^\$argon2(id|i|d)\$/.test(rest)) {
    throw invalid('a Spring {argon2} hash is an $argon2id$, $argon2i$ or $argon2d$ string');
  }
  return { ...parsePhcShape(rest), format: FORMAT };
}

function bcryptShape(rest) {
  const d = parseBcrypt(rest);
  if (d === null) throw invalid('a Spring {bcrypt} hash is a $2a$, $2b$ or $2y$ bcrypt string');
  return { kind: 'bcrypt', algorithm: 'bcrypt', ...d, text: rest, minor: 'b', format: FORMAT };
}

function maxLength(limits, widths) {
  const scrypt = '$$$'.length + 6 + paddedBase64Chars(limits.saltLength) + paddedBase64Chars(limits.hashLength);
  return LONGEST_ID + Math.max(widths.argon2, widths.bcrypt, scrypt, 2 * (16 + 32));
}

module.exports = { FORMAT, parseShape, maxLength };
