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
 *   for the KDFs. `limits`: as for verify; hash() refuses, with the same
 *   HashLimitError, parameters that verify() on the same pool with the same
 *   `limits` would refuse (raising a cost must not lock users out).
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
 * `err.max`). Every string's cost is estimated from all its parameters,
 * the hash length included (the model is in cost.js and the README):
 *   work               600 units (1 unit ~ 1 ms of a reference x86-64 core;
 *                      ~3x bcrypt cost 12 or scrypt 2^17/8/1)
 *   memory             269484032 bytes (257 MiB) that the job really
 *                      allocates; and never more than the pool's memory
 *                      budget (`stats().maxMemory`; err.limit 'maxMemory')
 * and single parameters are bounded too (checked first):
 *   argon2Memory       262144 KiB (256 MiB)
 *   argon2Passes       64
 *   argon2Lanes        16
 *   scryptMemory       268435456 bytes (256 MiB, counted as 128*N*r)
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
const errors = require('../errors');
const v = require('../validate');
const { algorithms } = require('../native').constants;
const { callOptions } = require('../submit');
const { checkPbkdf2 } = require('../pbkdf2');
const { checkScrypt } = require('../scrypt');
const { b64, ab64, formatBcrypt, BCRYPT_SALT_BYTES, BCRYPT_HASH_BYTES } = require('./encoding');
const { parse, parseShape, decodeFields } = require('./parse');
const { effectiveLimits, checkLimits, checkDecodedLengths } = require('./limits');
const { hashTarget } = require('./target');

// `pool` below is not a Pool but the internal interface a Pool hands down
// (lib/pool.js builds it; nothing else reaches the pool's state):
//   submit(alg, c, opts) -> Promise<Buffer>   (submit.js Channel.submit)
//   maxMemory() -> number                     the pool's memory budget, bytes
//   hashLimits() -> object|undefined          the pool's hashLimits option

// ---------------------------------------------------------------- computing

// Runs the KDF of a parsed string (or of a target plus a fresh salt) on the
// pool: Promise<Buffer> of `outlen` bytes.
function compute(pool, d, password, outlen, opts) {
  switch (d.kind) {
    case 'argon2':
      return pool.submit(algorithms.ARGON2, {
        inputs: [password, d.salt, undefined, d.data],
        numbers: [d.type, d.version, d.lanes, d.memory, d.passes],
        name: undefined,
        outlen,
        context: {},
      }, opts);
    case 'scrypt':
      return pool.submit(algorithms.SCRYPT, checkScrypt(password, d.salt, outlen, {
        N: d.N, r: d.r, p: d.p,
        // OpenSSL's own accounting: 128*r*(N+2) for V plus 128*r*p for B.
        maxmem: 128 * d.r * (d.N + 2 + d.p) + 65536,
      }), opts);
    case 'pbkdf2':
      return pool.submit(algorithms.PBKDF2, checkPbkdf2(password, d.salt, d.iterations, outlen, d.digest), opts);
    case 'bcrypt':
      return pool.submit(algorithms.BCRYPT, {
        inputs: [password, d.salt],
        numbers: [d.cost, d.minor.charCodeAt(0)],
        name: undefined,
        outlen: BCRYPT_HASH_BYTES,
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
  // Never write what this pool's verify() would refuse.
  const limits = effectiveLimits(pool.hashLimits(), options === undefined ? undefined : options.limits);
  checkLimits(targetShape(t), limits, pool.maxMemory);
  const saltLength = t.family === 'bcrypt' ? BCRYPT_SALT_BYTES : t.saltLength;
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
      const out = await compute(pool, d, pw, BCRYPT_HASH_BYTES, opts);
      return formatBcrypt('b', t.cost, salt, out);
    }
    default:
      throw new Error(`unreachable: ${t.family}`);
  }
}

// hash()'s target as checkLimits() sees a stored hash.
function targetShape(t) {
  const common = { subject: errors.HASH_PARAMS, saltBytes: t.saltLength, hashBytes: t.tagLength };
  switch (t.family) {
    case 'argon2':
      return { ...common, kind: 'argon2', memory: t.memory, passes: t.passes, lanes: t.parallelism, dataBytes: 0 };
    case 'scrypt':
      return { ...common, kind: 'scrypt', ln: t.ln, N: t.N, r: t.r, p: t.p };
    case 'pbkdf2':
      return { ...common, kind: 'pbkdf2', digest: t.digest, iterations: t.iterations };
    case 'bcrypt':
      return { subject: errors.HASH_PARAMS, kind: 'bcrypt', cost: t.cost };
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
  const limits = effectiveLimits(pool.hashLimits(), options === undefined ? undefined : options.limits);
  const opts = callOptions(options, 'options');

  const d = parseShape(phc);
  checkLimits(d, limits, pool.maxMemory);
  decodeFields(d);
  checkDecodedLengths(d, limits);

  if (d.kind === 'bcrypt') {
    const out = await compute(pool, d, pw, BCRYPT_HASH_BYTES, opts);
    // As npm bcrypt: the whole string, re-encoded from the bytes, must match.
    const expected = Buffer.from(formatBcrypt(d.minor, d.cost, d.salt, out), 'latin1');
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

module.exports = { hash, verify, needsRehash };
