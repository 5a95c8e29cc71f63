'use strict';

// ASP.NET Core Identity's PasswordHasher<TUser>: base64 (with padding) of
//
//   v3: 0x01 | prf u32 | iterations u32 | salt length u32 | salt | key
//       (big-endian; prf 0 = HMAC-SHA1, 1 = HMAC-SHA256, 2 = HMAC-SHA512;
//       salt and key at least 16 bytes each; the key is the rest)
//   v2: 0x00 | 16-byte salt | 32-byte key, PBKDF2-HMAC-SHA1, 1000 iterations
//
// The password is read as its UTF-8 bytes (KeyDerivation.Pbkdf2).
// Identity verifies a structurally wrong payload as "failed"; here it is an
// InvalidHashError, like every malformed string.

const errors = require('../../errors');
const { paddedBase64Bytes, paddedBase64Chars } = require('./fields');

const FORMAT = 'aspnet-identity';
const invalid = errors.invalidHash;

const PRFS = Object.freeze([
  { algorithm: 'pbkdf2-sha1', digest: 'sha1' },
  { algorithm: 'pbkdf2-sha256', digest: 'sha256' },
  { algorithm: 'pbkdf2-sha512', digest: 'sha512' },
]);
const V3_HEADER = 13;
const V3_MIN_SALT = 16;
const V3_MIN_KEY = 16;
const V2_SALT = 16;
const V2_KEY = 32;
const V2_ITERATIONS = 1000;
// Identity reads the count as a signed 32-bit int: more would be negative.
const MAX_ITERATIONS = 2 ** 31 - 1;

// Base64 whose first byte is 0x00 or 0x01: the first character is 'A'.
const CANDIDATE_RE = /^A[A-Za-z0-9+/]*={0,2}$/;

function parseShape(stored) {
  if (!CANDIDATE_RE.test(stored)) return undefined;
  const bytes = paddedBase64Bytes(stored, 'ASP.NET Core Identity hash');
  if (bytes[0] === 0x00) return v2(bytes);
  if (bytes[0] === 0x01) return v3(bytes);
  throw invalid(`unknown ASP.NET Core Identity format marker ${bytes[0]} (0x00: v2, 0x01: v3)`);
}

function v2(bytes) {
  if (bytes.length !== 1 + V2_SALT + V2_KEY) {
    throw invalid(`an ASP.NET Core Identity v2 hash is 0x00, a ${V2_SALT}-byte salt and a ${V2_KEY}-byte key`);
  }
  return shape(PRFS[0], V2_ITERATIONS, bytes.subarray(1, 1 + V2_SALT), bytes.subarray(1 + V2_SALT));
}

function v3(bytes) {
  if (bytes.length < V3_HEADER + V3_MIN_SALT + V3_MIN_KEY) {
    throw invalid('an ASP.NET Core Identity v3 hash is 0x01, prf, iterations and salt length ' +
      `(4 bytes each), a salt and a key of at least ${V3_MIN_SALT} bytes each`);
  }
  const prf = PRFS[bytes.readUInt32BE(1)];
  if (prf === undefined) throw invalid(`unknown ASP.NET Core Identity v3 prf ${bytes.readUInt32BE(1)} (0, 1 or 2)`);
  const iterations = bytes.readUInt32BE(5);
  if (iterations < 1 || iterations > MAX_ITERATIONS) {
    throw invalid(`ASP.NET Core Identity v3 iterations must be 1..${MAX_ITERATIONS}`);
  }
  const saltLength = bytes.readUInt32BE(9);
  if (saltLength < V3_MIN_SALT || saltLength > bytes.length - V3_HEADER - V3_MIN_KEY) {
    throw invalid(`the ASP.NET Core Identity v3 salt length must leave at least ${V3_MIN_KEY} bytes of key ` +
      `and be at least ${V3_MIN_SALT}`);
  }
  const saltEnd = V3_HEADER + saltLength;
  return shape(prf, iterations, bytes.subarray(V3_HEADER, saltEnd), bytes.subarray(saltEnd));
}

function shape(prf, iterations, salt, hash) {
  return {
    kind: 'pbkdf2', algorithm: prf.algorithm, format: FORMAT, digest: prf.digest, iterations,
    salt, hash, saltBytes: salt.length, hashBytes: hash.length, decoded: true,
  };
}

function maxLength(limits) {
  return paddedBase64Chars(V3_HEADER + limits.saltLength + limits.hashLength);
}

module.exports = { FORMAT, parseShape, maxLength };
