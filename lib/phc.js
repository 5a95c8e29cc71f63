'use strict';

/**
 * Password storage: `hash`, `verify` and `needsRehash` over PHC strings and
 * bcrypt strings, computed on a kdfpool pool.
 *
 *   const phc = await kdf.hash(password[, options]);        // Promise<string>
 *   const ok = await kdf.verify(phc, password[, options]);  // Promise<boolean>
 *   if (ok && kdf.needsRehash(phc[, options])) { ...store await kdf.hash(password, options)... }
 *
 * `password` is a string (hashed as its UTF-8 bytes) or bytes (Buffer,
 * TypedArray, DataView, ArrayBuffer), as for the KDFs. Pools made by
 * `kdf.createPool()` have `hash` and `verify` too, running on that pool.
 *
 * ## hash(password[, options]) options
 *
 * - `algorithm`: 'argon2id' (default) | 'argon2i' | 'argon2d' | 'scrypt' |
 *   'pbkdf2-sha256' | 'pbkdf2-sha512' | 'bcrypt'.
 * - Argon2 (RFC 9106), written `$argon2id$v=19$m=<memory>,t=<passes>,p=<parallelism>$<salt>$<hash>`:
 *   `memory` KiB (default 19456 = 19 MiB), `passes` (default 2),
 *   `parallelism` (default 1), `tagLength` bytes 4..1024 (default 32),
 *   `saltLength` bytes 8..1024 (default 16).
 * - scrypt, written `$scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<hash>`: `ln`
 *   (log2 of N, 1..31, default 17) or `N` (a power of 2, not both), `r`
 *   (default 8), `p` (default 1), `tagLength` bytes 10..1024 (default 32),
 *   `saltLength` bytes 8..1024 (default 16).
 * - PBKDF2, written in passlib's format `$pbkdf2-sha256$<iterations>$<salt>$<hash>`
 *   (salt and hash in passlib's "adapted base64": standard base64 with '.'
 *   for '+', no padding; the hash is the digest's full length, 32 or 64
 *   bytes): `iterations` (default 600000 for SHA-256, 210000 for SHA-512),
 *   `saltLength` bytes 8..1024 (default 16).
 * - bcrypt, written `$2b$<cost>$<22 salt chars><31 hash chars>`: `cost`
 *   4..31 (default 10). bcrypt uses at most the first 72 bytes of the
 *   password (the rest is ignored, as by every bcrypt).
 * - `signal` (AbortSignal), `maxWaitMs` (deadline in the pool's queue), as
 *   for the KDFs. `limits` is accepted and ignored (so one options object
 *   can serve hash, verify and needsRehash).
 * - An option that the chosen algorithm does not use is an error
 *   (ERR_INVALID_ARG_VALUE): e.g. npm argon2's `memoryCost` is not silently
 *   replaced by a default.
 *
 * Defaults are the minimums of OWASP's Password Storage Cheat Sheet (2023+):
 * Argon2id m=19 MiB t=2 p=1; scrypt N=2^17 r=8 p=1; PBKDF2-HMAC-SHA256
 * 600,000 iterations, PBKDF2-HMAC-SHA512 210,000; bcrypt work factor 10.
 * The salt comes from crypto.randomFillSync (16 bytes: not worth a trip
 * through libuv's pool).
 *
 * ## verify(phc, password[, options]) -> Promise<boolean>
 *
 * `true` when `password` matches, `false` when it does not. The comparison
 * is constant-time (crypto.timingSafeEqual over equal-length buffers).
 * Accepted strings:
 * - `$argon2id$`, `$argon2i$`, `$argon2d$` with `v=19` (or `v=16`), or
 *   without `v=` (the legacy version 0x10); parameters m, t, p in any order
 *   (npm `argon2` writes m,p,t), optional `data=<base64>` (associated data);
 *   `keyid=` is refused as unsupported; salt >= 8 bytes, hash >= 4 bytes.
 * - `$scrypt$ln=..,r=..,p=..$salt$hash` (passlib / RustCrypto), hash >= 10 bytes.
 * - PBKDF2: passlib's `$pbkdf2$` (SHA-1), `$pbkdf2-sha256$`, `$pbkdf2-sha512$`
 *   (rounds as a bare number, adapted base64, hash of the digest's length),
 *   also `$pbkdf2-sha1$`; and the PHC form of RustCrypto's `pbkdf2` crate,
 *   `$pbkdf2-sha256$i=<iterations>[,l=<length>]$<salt>$<hash>` (standard
 *   base64), hash >= 10 bytes.
 * - bcrypt `$2a$`, `$2b$`, `$2y$` with a two-digit cost 04..31. As npm
 *   `bcrypt` does, the result is compared as the whole re-encoded string, so
 *   a string whose last salt or hash character carries non-zero unused bits
 *   (never produced by any bcrypt) verifies as `false`, as with npm `bcrypt`
 *   and bcryptjs. `$2a$` keeps OpenBSD/npm `bcrypt`'s length wrap for
 *   passwords of 255+ bytes.
 * Strict parsing: salt/hash in unpadded, canonical base64 ('=' padding,
 * other alphabets, non-zero trailing bits are refused), decimal numbers
 * without sign or leading zeros, no duplicate, missing or unknown
 * parameters, no trailing fields, no empty salt or hash. A malformed string
 * rejects with `InvalidHashError` (code 'ERR_KDF_INVALID_HASH'); a `phc`
 * that is not a string with ERR_INVALID_ARG_TYPE.
 *
 * Hostile stored hashes: before any work is queued, the parameters are
 * checked against limits; over a limit, verify rejects with `HashLimitError`
 * (code 'ERR_KDF_HASH_LIMIT', `err.limit` names the limit, `err.value`,
 * `err.max`). Defaults:
 *   argon2Memory       262144 KiB (256 MiB); and never more than the pool's memory
 *                      budget (`stats().maxMemory`; err.limit 'maxMemory')
 *   argon2Passes       64
 *   argon2Lanes        16
 *   scryptMemory       268435456 bytes (256 MiB, counted as 128*N*r), and never more than the budget
 *   scryptParallelism  16
 *   pbkdf2Iterations   10000000
 *   bcryptCost         16
 *   saltLength         1024 bytes
 *   hashLength         1024 bytes
 *   dataLength         1024 bytes (argon2 `data=`)
 * Override per pool with `kdf.createPool({ hashLimits })` or
 * `kdf.configure({ hashLimits })`, and per call with `options.limits`
 * (defaults < pool < call; each a positive integer).
 * verify options: `limits`, `signal`, `maxWaitMs` (other keys are ignored).
 *
 * ## needsRehash(phc[, options]) -> boolean (synchronous)
 *
 * `options` as for `hash` (the target; default: hash's defaults). `true`
 * when the algorithm differs, the version differs (argon2 0x10; bcrypt
 * `$2a$`, which we would write as `$2b$`), any cost parameter differs (up
 * or down), the hash length differs from the target's (`tagLength`; PBKDF2:
 * the digest length), or the salt is shorter than the target's
 * `saltLength`. A bcrypt or PBKDF2 hash is `true` under the default target
 * (migrate to argon2id on the next successful login). Malformed strings
 * throw InvalidHashError; no limits apply (no work is done).
 */

const crypto = require('node:crypto');
const errors = require('./errors');
const v = require('./validate');
const { ALG, callOptions } = require('./pool');
const bf = require('./bcrypt-format');

const MAX_UINT32 = 2 ** 32 - 1;
const ARGON2_TYPES = Object.freeze({ __proto__: null, argon2d: 0, argon2i: 1, argon2id: 2 });
const ARGON2_VERSIONS = Object.freeze({ __proto__: null, 16: 0x10, 19: 0x13 });
const PBKDF2_IDENTS = Object.freeze({
  __proto__: null,
  pbkdf2: { algorithm: 'pbkdf2-sha1', digest: 'sha1', size: 20 },
  'pbkdf2-sha1': { algorithm: 'pbkdf2-sha1', digest: 'sha1', size: 20 },
  'pbkdf2-sha256': { algorithm: 'pbkdf2-sha256', digest: 'sha256', size: 32 },
  'pbkdf2-sha512': { algorithm: 'pbkdf2-sha512', digest: 'sha512', size: 64 },
});
const ALGORITHMS = Object.freeze(['argon2id', 'argon2i', 'argon2d', 'scrypt', 'pbkdf2-sha256',
  'pbkdf2-sha512', 'bcrypt']);

const ARGON2_MIN_SALT = 8;
const ARGON2_MIN_HASH = 4;
const OTHER_MIN_HASH = 10;

/** Limits on stored hashes (see the header). Sizes in bytes except argon2Memory (KiB). */
const DEFAULT_LIMITS = Object.freeze({
  argon2Memory: 262144,
  argon2Passes: 64,
  argon2Lanes: 16,
  scryptMemory: 256 * 1024 * 1024,
  scryptParallelism: 16,
  pbkdf2Iterations: 10000000,
  bcryptCost: 16,
  saltLength: 1024,
  hashLength: 1024,
  dataLength: 1024,
});

// hash()'s defaults per family (OWASP Password Storage Cheat Sheet minimums).
const DEFAULTS = Object.freeze({
  argon2: Object.freeze({ memory: 19456, passes: 2, parallelism: 1, tagLength: 32, saltLength: 16 }),
  scrypt: Object.freeze({ ln: 17, r: 8, p: 1, tagLength: 32, saltLength: 16 }),
  'pbkdf2-sha256': Object.freeze({ iterations: 600000, saltLength: 16 }),
  'pbkdf2-sha512': Object.freeze({ iterations: 210000, saltLength: 16 }),
  bcrypt: Object.freeze({ cost: 10 }),
});

const COMMON_KEYS = new Set(['algorithm', 'signal', 'maxWaitMs', 'limits']);
const FAMILY_KEYS = Object.freeze({
  argon2: new Set(['memory', 'passes', 'parallelism', 'tagLength', 'saltLength']),
  scrypt: new Set(['N', 'ln', 'r', 'p', 'tagLength', 'saltLength']),
  pbkdf2: new Set(['iterations', 'saltLength']),
  bcrypt: new Set(['cost']),
});

function familyOf(algorithm) {
  if (algorithm in ARGON2_TYPES) return 'argon2';
  if (algorithm.startsWith('pbkdf2-')) return 'pbkdf2';
  return algorithm;
}

// ---------------------------------------------------------------- errors

function invalid(reason) {
  return new errors.InvalidHashError(`Invalid password hash string: ${reason}`);
}

function overLimit(what, value, limitName, max, unit = '') {
  const u = unit ? ` ${unit}` : '';
  const limit = limitName === 'maxMemory' ? "the pool's memory budget maxMemory" : `the limit ${limitName}`;
  return new errors.HashLimitError(
    `The stored hash asks for ${what} ${value}${u}, over ${limit} = ${max}${u}; refused before any work`,
    limitName, value, max);
}

// ---------------------------------------------------------------- encodings

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
  if (text.length === 0) throw invalid(`the ${what} is empty`);
  if (!(adapted ? AB64_RE : B64_RE).test(text)) {
    throw invalid(`the ${what} is not ${adapted ? "passlib's adapted" : 'unpadded'} base64`);
  }
  if (text.length % 4 === 1) throw invalid(`the ${what} has an impossible base64 length`);
  const std = adapted ? text.replace(/\./g, '+') : text;
  const bytes = Buffer.from(std, 'base64');
  if (b64(bytes) !== std) throw invalid(`the ${what} is not canonical base64 (non-zero trailing bits)`);
  return bytes;
}

// Most characters `bytes` bytes can take in unpadded base64.
function maxChars(bytes) {
  return Math.ceil((bytes * 4) / 3);
}

// Decimal, no sign, no leading zeros, at most MAX_UINT32.
const NUMBER_RE = /^(0|[1-9][0-9]{0,9})$/;
function parseNumber(text, what) {
  if (!NUMBER_RE.test(text)) throw invalid(`${what} is not a plain decimal number`);
  const n = Number(text);
  if (n > MAX_UINT32) throw invalid(`${what} is too large`);
  return n;
}

// "a=1,b=2" -> Map, refusing empty, duplicate and unknown names.
function parseParams(text, allowed, kind) {
  const out = new Map();
  if (text.length === 0) throw invalid(`the ${kind} parameters are missing`);
  for (const item of text.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw invalid(`"${item}" is not a name=value parameter`);
    const name = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (!allowed.has(name)) throw invalid(`unknown ${kind} parameter "${name}"`);
    if (out.has(name)) throw invalid(`duplicate ${kind} parameter "${name}"`);
    out.set(name, value);
  }
  return out;
}

function requireParams(params, names, kind) {
  for (const name of names) {
    if (!params.has(name)) throw invalid(`the ${kind} parameter "${name}" is missing`);
  }
}

// ---------------------------------------------------------------- parsing
//
// Two steps, so limits can be checked before the (possibly huge) base64
// fields are decoded: parseShape() reads the structure and the numbers;
// decodeFields() decodes salt, hash and data.

const ARGON2_PARAMS = new Set(['m', 't', 'p', 'keyid', 'data']);
const SCRYPT_PARAMS = new Set(['ln', 'r', 'p']);
const PBKDF2_PARAMS = new Set(['i', 'l']);

function parseShape(phc) {
  if (typeof phc !== 'string') throw errors.invalidArgType('phc', 'of type string', phc);
  if (phc.length === 0) throw invalid('the string is empty');
  if (phc.startsWith('$2')) return parseBcryptShape(phc);
  if (phc[0] !== '$') throw invalid('it does not start with "$"');
  const parts = phc.split('$');
  const id = parts[1];
  if (id in ARGON2_TYPES) return parseArgon2Shape(id, parts);
  if (id === 'scrypt') return parseScryptShape(parts);
  if (id in PBKDF2_IDENTS) return parsePbkdf2Shape(id, parts);
  throw invalid(`unsupported algorithm "${id.slice(0, 32)}"`);
}

function parseArgon2Shape(id, parts) {
  let version;
  let rest;
  if (parts.length === 6 && parts[2].startsWith('v=')) {
    const vt = parts[2].slice(2);
    if (!(vt in ARGON2_VERSIONS) || !NUMBER_RE.test(vt)) throw invalid(`unsupported argon2 version "${vt}"`);
    version = ARGON2_VERSIONS[vt];
    rest = parts.slice(3);
  } else if (parts.length === 5 && !parts[2].startsWith('v=')) {
    version = 0x10; // the legacy form, written before the version field existed
    rest = parts.slice(2);
  } else {
    throw invalid('an argon2 string has the fields $argon2id$v=19$m=..,t=..,p=..$salt$hash');
  }
  const [paramText, saltText, hashText] = rest;
  const params = parseParams(paramText, ARGON2_PARAMS, 'argon2');
  if (params.has('keyid')) throw invalid('argon2 "keyid" is not supported');
  requireParams(params, ['m', 't', 'p'], 'argon2');
  const memory = parseNumber(params.get('m'), 'argon2 m');
  const passes = parseNumber(params.get('t'), 'argon2 t');
  const lanes = parseNumber(params.get('p'), 'argon2 p');
  if (lanes < 1 || lanes > 2 ** 24 - 1) throw invalid('argon2 p must be 1..16777215');
  if (passes < 1) throw invalid('argon2 t must be at least 1');
  if (memory < 8 * lanes) throw invalid('argon2 m must be at least 8*p');
  return {
    kind: 'argon2', algorithm: id, type: ARGON2_TYPES[id], version, memory, passes, lanes,
    dataText: params.get('data'), saltText, hashText, adapted: false, minSalt: ARGON2_MIN_SALT, minHash: ARGON2_MIN_HASH,
  };
}

function parseScryptShape(parts) {
  if (parts.length !== 5) throw invalid('a scrypt string has the fields $scrypt$ln=..,r=..,p=..$salt$hash');
  const [, , paramText, saltText, hashText] = parts;
  const params = parseParams(paramText, SCRYPT_PARAMS, 'scrypt');
  requireParams(params, ['ln', 'r', 'p'], 'scrypt');
  const ln = parseNumber(params.get('ln'), 'scrypt ln');
  const r = parseNumber(params.get('r'), 'scrypt r');
  const p = parseNumber(params.get('p'), 'scrypt p');
  if (ln < 1 || ln > 63) throw invalid('scrypt ln must be 1..63');
  if (r < 1 || p < 1) throw invalid('scrypt r and p must be at least 1');
  if (r * p >= 2 ** 30) throw invalid('scrypt r*p must be below 2^30');
  if (ln >= 16 * r) throw invalid('scrypt N must be below 2^(16*r)');
  return {
    kind: 'scrypt', algorithm: 'scrypt', ln, N: 2 ** ln, r, p,
    saltText, hashText, adapted: false, minSalt: 1, minHash: OTHER_MIN_HASH,
  };
}

function parsePbkdf2Shape(id, parts) {
  if (parts.length !== 5) throw invalid(`a PBKDF2 string has the fields $${id}$<iterations>$salt$hash`);
  const [, , paramText, saltText, hashText] = parts;
  const info = PBKDF2_IDENTS[id];
  let iterations;
  let length;
  let adapted;
  if (paramText.includes('=')) {
    // RustCrypto's PHC form: i=<iterations>[,l=<length>], standard base64.
    const params = parseParams(paramText, PBKDF2_PARAMS, 'PBKDF2');
    requireParams(params, ['i'], 'PBKDF2');
    iterations = parseNumber(params.get('i'), 'PBKDF2 i');
    if (params.has('l')) length = parseNumber(params.get('l'), 'PBKDF2 l');
    adapted = false;
  } else {
    // passlib: the rounds as a bare number, adapted base64, full-size hash.
    iterations = parseNumber(paramText, 'PBKDF2 rounds');
    length = info.size;
    adapted = true;
  }
  if (iterations < 1) throw invalid('PBKDF2 iterations must be at least 1');
  return {
    kind: 'pbkdf2', algorithm: info.algorithm, digest: info.digest, iterations, length,
    saltText, hashText, adapted, minSalt: 1, minHash: adapted ? info.size : OTHER_MIN_HASH,
  };
}

function parseBcryptShape(phc) {
  const d = bf.parse(phc);
  if (d === null) {
    throw invalid('a bcrypt string is $2a$, $2b$ or $2y$, a two-digit cost 04..31, "$", ' +
      'then 53 characters of ./A-Za-z0-9');
  }
  return { kind: 'bcrypt', algorithm: 'bcrypt', ...d, text: phc };
}

// Salt, hash (and argon2's data) -> bytes, with their length rules.
function decodeFields(d) {
  if (d.kind === 'bcrypt') return d; // decoded by bf.parse
  d.salt = decodeBase64(d.saltText, 'salt', d.adapted);
  d.hash = decodeBase64(d.hashText, 'hash', d.adapted);
  if (d.salt.length < d.minSalt) throw invalid(`the salt must be at least ${d.minSalt} bytes`);
  if (d.hash.length < d.minHash) throw invalid(`the hash must be at least ${d.minHash} bytes`);
  if (d.kind === 'pbkdf2' && d.length !== undefined && d.hash.length !== d.length) {
    throw invalid(`the PBKDF2 hash must be ${d.length} bytes`);
  }
  if (d.dataText !== undefined) {
    d.data = decodeBase64(d.dataText, 'associated data', false);
  }
  return d;
}

function parse(phc) {
  return decodeFields(parseShape(phc));
}

// ---------------------------------------------------------------- limits

function readLimits(obj, where, into) {
  if (obj === undefined) return;
  v.validateObject(obj, where);
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_LIMITS, key)) {
      throw errors.invalidArgValue(`${where}.${key}`, value,
        `is not a hash limit (one of ${Object.keys(DEFAULT_LIMITS).join(', ')})`);
    }
    v.validateInteger(value, `${where}.${key}`, 1);
    into[key] = value;
  }
}

function effectiveLimits(pool, callLimits) {
  const limits = { ...DEFAULT_LIMITS };
  readLimits(pool._hashLimits, 'hashLimits', limits);
  readLimits(callLimits, 'options.limits', limits);
  return limits;
}

// Throws HashLimitError when `d` would cost more than `limits` allow (or
// more memory than the pool's budget). Only numbers and string lengths are
// looked at: nothing has been decoded or queued yet.
function checkLimits(d, limits, pool) {
  const fieldLimit = (text, what, name) => {
    if (text !== undefined && text.length > maxChars(limits[name])) {
      const approx = Math.floor((text.length * 3) / 4);
      throw new errors.HashLimitError(
        `The stored hash has a ${what} of about ${approx} bytes, over the limit ${name} = ${limits[name]} bytes; ` +
        'refused before any work', name, approx, limits[name]);
    }
  };
  switch (d.kind) {
    case 'argon2': {
      if (d.memory > limits.argon2Memory) throw overLimit('argon2 memory m =', d.memory, 'argon2Memory', limits.argon2Memory, 'KiB');
      if (d.passes > limits.argon2Passes) throw overLimit('argon2 passes t =', d.passes, 'argon2Passes', limits.argon2Passes);
      if (d.lanes > limits.argon2Lanes) throw overLimit('argon2 lanes p =', d.lanes, 'argon2Lanes', limits.argon2Lanes);
      const budget = pool._maxMemory();
      if (d.memory * 1024 > budget) {
        throw overLimit('argon2 memory of', d.memory * 1024, 'maxMemory', budget, 'bytes');
      }
      fieldLimit(d.dataText, 'associated data', 'dataLength');
      break;
    }
    case 'scrypt': {
      const memory = 128 * d.N * d.r;
      if (memory > limits.scryptMemory) {
        throw overLimit(`scrypt memory 128*N*r (ln=${d.ln}, r=${d.r}) =`, memory, 'scryptMemory', limits.scryptMemory, 'bytes');
      }
      if (d.p > limits.scryptParallelism) throw overLimit('scrypt p =', d.p, 'scryptParallelism', limits.scryptParallelism);
      const budget = pool._maxMemory();
      if (memory > budget) throw overLimit('scrypt memory of', memory, 'maxMemory', budget, 'bytes');
      break;
    }
    case 'pbkdf2':
      if (d.iterations > limits.pbkdf2Iterations) {
        throw overLimit('PBKDF2 iterations', d.iterations, 'pbkdf2Iterations', limits.pbkdf2Iterations);
      }
      break;
    case 'bcrypt':
      if (d.cost > limits.bcryptCost) throw overLimit('bcrypt cost', d.cost, 'bcryptCost', limits.bcryptCost);
      break;
    default:
      break;
  }
  fieldLimit(d.saltText, 'salt', 'saltLength');
  fieldLimit(d.hashText, 'hash', 'hashLength');
}

// Exact byte counts, once decoded (the check above is on encoded lengths).
function checkDecodedLengths(d, limits) {
  const check = (bytes, what, name) => {
    if (bytes !== undefined && bytes.length > limits[name]) {
      throw new errors.HashLimitError(
        `The stored hash has a ${what} of ${bytes.length} bytes, over the limit ${name} = ${limits[name]} bytes; ` +
        'refused before any work', name, bytes.length, limits[name]);
    }
  };
  check(d.salt, 'salt', 'saltLength');
  check(d.hash, 'hash', 'hashLength');
  check(d.data, 'associated data', 'dataLength');
}

// ---------------------------------------------------------------- options

function optionalInteger(options, key, fallback, min, max, where) {
  const value = options[key];
  if (value === undefined) return fallback;
  v.validateInteger(value, `${where}.${key}`, min, max);
  return value;
}

/**
 * hash()'s options -> a full target { algorithm, family, ...parameters },
 * defaults filled in. Also needsRehash()'s target.
 */
function hashTarget(options, where = 'options') {
  if (options === undefined) options = {};
  v.validateObject(options, where);
  const algorithm = options.algorithm === undefined ? 'argon2id' : options.algorithm;
  v.validateString(algorithm, `${where}.algorithm`);
  if (!ALGORITHMS.includes(algorithm)) {
    throw errors.invalidArgValue(`${where}.algorithm`, algorithm,
      `must be one of: ${ALGORITHMS.map((a) => `'${a}'`).join(', ')}`);
  }
  const family = familyOf(algorithm);
  const keys = FAMILY_KEYS[family];
  for (const key of Object.keys(options)) {
    if (options[key] === undefined || COMMON_KEYS.has(key) || keys.has(key)) continue;
    throw errors.invalidArgValue(`${where}.${key}`, options[key], `is not an option of ${algorithm}`);
  }
  if (options.limits !== undefined) readLimits(options.limits, `${where}.limits`, {});
  callOptions(options, 'options');
  const t = { algorithm, family };
  switch (family) {
    case 'argon2': {
      const d = DEFAULTS.argon2;
      t.type = ARGON2_TYPES[algorithm];
      t.parallelism = optionalInteger(options, 'parallelism', d.parallelism, 1, 2 ** 24 - 1, where);
      t.memory = optionalInteger(options, 'memory', d.memory, 8 * t.parallelism, MAX_UINT32, where);
      t.passes = optionalInteger(options, 'passes', d.passes, 1, MAX_UINT32, where);
      t.tagLength = optionalInteger(options, 'tagLength', d.tagLength, ARGON2_MIN_HASH, 1024, where);
      t.saltLength = optionalInteger(options, 'saltLength', d.saltLength, ARGON2_MIN_SALT, 1024, where);
      break;
    }
    case 'scrypt': {
      const d = DEFAULTS.scrypt;
      if (options.N !== undefined && options.ln !== undefined) {
        throw errors.invalidArgValue(`${where}.N`, options.N, `cannot be combined with ${where}.ln`);
      }
      if (options.N !== undefined) {
        v.validateInteger(options.N, `${where}.N`, 2, 2 ** 31);
        if ((options.N & (options.N - 1)) !== 0) {
          throw errors.invalidArgValue(`${where}.N`, options.N, 'must be a power of 2');
        }
        t.ln = Math.log2(options.N);
      } else {
        t.ln = optionalInteger(options, 'ln', d.ln, 1, 31, where);
      }
      t.N = 2 ** t.ln;
      t.r = optionalInteger(options, 'r', d.r, 1, 2 ** 30 - 1, where);
      t.p = optionalInteger(options, 'p', d.p, 1, 2 ** 30 - 1, where);
      if (t.r * t.p >= 2 ** 30) throw errors.outOfRange(`${where}.p`, `< 2^30 / r (${t.r})`, t.p);
      t.tagLength = optionalInteger(options, 'tagLength', d.tagLength, OTHER_MIN_HASH, 1024, where);
      t.saltLength = optionalInteger(options, 'saltLength', d.saltLength, 8, 1024, where);
      break;
    }
    case 'pbkdf2': {
      const d = DEFAULTS[algorithm];
      const info = PBKDF2_IDENTS[algorithm];
      t.digest = info.digest;
      t.tagLength = info.size;
      t.iterations = optionalInteger(options, 'iterations', d.iterations, 1, 2 ** 31 - 1, where);
      t.saltLength = optionalInteger(options, 'saltLength', d.saltLength, 8, 1024, where);
      break;
    }
    case 'bcrypt':
      t.cost = optionalInteger(options, 'cost', DEFAULTS.bcrypt.cost, bf.MIN_COST, bf.MAX_COST, where);
      break;
    default:
      break;
  }
  return t;
}

// ---------------------------------------------------------------- computing

// Runs the KDF of a parsed string (or of a target plus a fresh salt) on the
// pool: Promise<Buffer> of `outlen` bytes.
function compute(pool, d, password, outlen, opts) {
  switch (d.kind) {
    case 'argon2':
      return pool._submit(ALG.ARGON2, {
        inputs: [password, d.salt, undefined, d.data],
        numbers: [d.type, d.version, d.lanes, d.memory, d.passes],
        name: undefined,
        outlen,
        context: {},
      }, opts);
    case 'scrypt':
      return pool.scrypt(password, d.salt, outlen, {
        N: d.N, r: d.r, p: d.p,
        // OpenSSL's own accounting: 128*r*(N+2) for V plus 128*r*p for B.
        maxmem: 128 * d.r * (d.N + 2 + d.p) + 65536,
        ...opts,
      });
    case 'pbkdf2':
      return pool.pbkdf2(password, d.salt, d.iterations, outlen, d.digest, opts);
    case 'bcrypt':
      return pool._submit(ALG.BCRYPT, {
        inputs: [password, d.salt],
        numbers: [d.cost, d.minor.charCodeAt(0)],
        name: undefined,
        outlen: bf.HASH_BYTES,
        context: {},
      }, opts);
    default:
      throw new Error(`unreachable: ${d.kind}`);
  }
}

// ---------------------------------------------------------------- API

/** hash(pool, password[, options]) -> Promise<string>. See the header. */
async function hash(pool, password, options) {
  const pw = v.toBytes(password, 'password');
  try {
    return await hashBytes(pool, pw, options);
  } finally {
    if (typeof password === 'string') pw.fill(0); // our own UTF-8 copy
  }
}

async function hashBytes(pool, pw, options) {
  const t = hashTarget(options);
  const opts = callOptions(options, 'options');
  const saltLength = t.family === 'bcrypt' ? bf.SALT_BYTES : t.saltLength;
  const salt = crypto.randomFillSync(Buffer.alloc(saltLength));
  switch (t.family) {
    case 'argon2': {
      const d = { kind: 'argon2', type: t.type, version: 0x13, lanes: t.parallelism, memory: t.memory, passes: t.passes, salt };
      const out = await compute(pool, d, pw, t.tagLength, opts);
      return `$${t.algorithm}$v=19$m=${t.memory},t=${t.passes},p=${t.parallelism}$${b64(salt)}$${b64(out)}`;
    }
    case 'scrypt': {
      const d = { kind: 'scrypt', N: t.N, r: t.r, p: t.p, salt };
      const out = await compute(pool, d, pw, t.tagLength, opts);
      return `$scrypt$ln=${t.ln},r=${t.r},p=${t.p}$${b64(salt)}$${b64(out)}`;
    }
    case 'pbkdf2': {
      const d = { kind: 'pbkdf2', iterations: t.iterations, digest: t.digest, salt };
      const out = await compute(pool, d, pw, t.tagLength, opts);
      return `$${t.algorithm}$${t.iterations}$${ab64(salt)}$${ab64(out)}`;
    }
    case 'bcrypt': {
      const d = { kind: 'bcrypt', cost: t.cost, minor: 'b', salt };
      const out = await compute(pool, d, pw, bf.HASH_BYTES, opts);
      return bf.format('b', t.cost, salt, out);
    }
    default:
      throw new Error(`unreachable: ${t.family}`);
  }
}

/** verify(pool, phc, password[, options]) -> Promise<boolean>. See the header. */
async function verify(pool, phc, password, options) {
  if (typeof phc !== 'string') throw errors.invalidArgType('phc', 'of type string', phc);
  const pw = v.toBytes(password, 'password');
  try {
    return await verifyBytes(pool, phc, pw, options);
  } finally {
    if (typeof password === 'string') pw.fill(0); // our own UTF-8 copy
  }
}

async function verifyBytes(pool, phc, pw, options) {
  if (options !== undefined) v.validateObject(options, 'options');
  const limits = effectiveLimits(pool, options === undefined ? undefined : options.limits);
  const opts = callOptions(options, 'options');

  const d = parseShape(phc);
  checkLimits(d, limits, pool);
  decodeFields(d);
  checkDecodedLengths(d, limits);

  if (d.kind === 'bcrypt') {
    const out = await compute(pool, d, pw, bf.HASH_BYTES, opts);
    // As npm bcrypt: the whole string, re-encoded from the bytes, must match.
    const expected = Buffer.from(bf.format(d.minor, d.cost, d.salt, out), 'latin1');
    const stored = Buffer.from(d.text, 'latin1');
    out.fill(0);
    return expected.length === stored.length && crypto.timingSafeEqual(expected, stored);
  }
  const out = await compute(pool, d, pw, d.hash.length, opts);
  const ok = out.length === d.hash.length && crypto.timingSafeEqual(out, d.hash);
  out.fill(0);
  return ok;
}

/** needsRehash(phc[, options]) -> boolean. See the header. */
function needsRehash(phc, options) {
  const d = parse(phc);
  const t = hashTarget(options);
  if (d.algorithm !== t.algorithm) return true;
  switch (d.kind) {
    case 'argon2':
      return d.version !== 0x13 || d.memory !== t.memory || d.passes !== t.passes ||
        d.lanes !== t.parallelism || d.hash.length !== t.tagLength || d.salt.length < t.saltLength;
    case 'scrypt':
      return d.ln !== t.ln || d.r !== t.r || d.p !== t.p ||
        d.hash.length !== t.tagLength || d.salt.length < t.saltLength;
    case 'pbkdf2':
      return d.iterations !== t.iterations || d.hash.length !== t.tagLength || d.salt.length < t.saltLength;
    case 'bcrypt':
      return d.cost !== t.cost || d.minor === 'a';
    default:
      return true;
  }
}

module.exports = { hash, verify, needsRehash, parse, DEFAULT_LIMITS, DEFAULTS };
