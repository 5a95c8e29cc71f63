'use strict';

/**
 * Password storage: `hash`, `verify` and `needsRehash` over PHC strings and
 * bcrypt strings, computed on a kdfpool pool.
 *
 *   const phc = await kdf.hash(password[, options]);        // Promise<string>
 *   const ok = await kdf.verify(phc, password[, options]);  // Promise<boolean>
 *   await kdf.verifyUnknown(password[, options]);           // Promise<false>: no such user
 *   kdf.hashSync(password[, options]); kdf.verifySync(phc, password[, options]);  // on the calling thread
 *   const next = kdf.rehashTarget(phc[, options]);           // the target, at no less than phc's cost
 *   if (ok && kdf.needsRehash(phc, next)) { ...store await kdf.hash(password, next)... }
 *
 * `password` is a string (hashed as its UTF-8 bytes) or bytes (Buffer,
 * TypedArray, DataView, ArrayBuffer), as for the KDFs. Pools made by
 * `kdf.createPool()` have all of these too, running on that pool with its
 * secret and hashLimits.
 *
 * ## hash(password[, options]) options
 *
 * - `algorithm`: 'argon2id' (default) | 'argon2i' | 'argon2d' | 'scrypt' |
 *   'pbkdf2-sha256' | 'pbkdf2-sha512' | 'bcrypt'.
 * - Argon2 (RFC 9106), written `$argon2id$v=19$m=<memory>,t=<passes>,p=<parallelism>$<salt>$<hash>`:
 *   `memory` KiB (default 19456 = 19 MiB), `passes` (default 2),
 *   `parallelism` (default 1), `tagLength` bytes 4..1024 (default 32),
 *   `saltLength` bytes 8..1024 (default 16), `secret` (RFC 9106's K, a
 *   pepper; default: the pool's `secret`), `associatedData` (X, written
 *   as `data=`), both BinaryLike, as npm argon2's options of those names.
 *   `secret` may also be named keys that rotate, `{ current, keys: { id:
 *   key, ... }[, unnamed] }` (secrets.js): hash() uses keys[current] and
 *   writes `keyid=<B64 of the id's bytes>` after `p=` (the PHC string
 *   format's Argon2 parameter; ids 1..8 characters of [A-Za-z0-9._-]).
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
 *   4..31 (default 10). bcrypt reads at most the first 72 bytes of the
 *   password; hash() refuses a longer one (ERR_KDF_PASSWORD_TOO_LONG,
 *   err.limit 'bcryptPasswordLength', err.max 72, HTTP 400) rather than
 *   ignore the rest without a word; `truncate: true` accepts the cut (as
 *   every other bcrypt does). verify() is unchanged: it reads stored
 *   bcrypt strings as npm `bcrypt` does, longer passwords cut at 72 bytes.
 * - `normalize`: 'NFC' | 'NFD' | 'NFKC' | 'NFKD': a string password is
 *   normalised to that Unicode form first (bytes are taken as given). Not
 *   recorded in the string: give it to verify() as well.
 * - `signal` (AbortSignal), `maxWaitMs` (deadline in the pool's queue), as
 *   for the KDFs. `limits`: as for verify; hash() refuses, with the same
 *   HashLimitError, parameters that verify() on the same pool with the same
 *   `limits` would refuse (raising a cost must not lock users out).
 * - An option that the chosen algorithm does not use is an error
 *   (ERR_INVALID_ARG_VALUE): e.g. npm argon2's `memoryCost` is not silently
 *   replaced by a default; so is any unknown key. A peer package's name
 *   (memoryCost, timeCost, saltRounds, scrypt's cost...) names kdfpool's. hash, verify and
 *   needsRehash accept the same keys (`exact` too), so one object serves
 *   all three.
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
 *   (npm `argon2` writes m,p,t), optional `data=<base64>` (associated data)
 *   and `keyid=<base64 of 1..8 bytes>` (the key to verify with: a key id
 *   the secret in use lacks rejects with KdfError 'ERR_KDF_UNKNOWN_KEY_ID'
 *   before any work, `err.keyId`); salt >= 8 bytes, hash >= 4 bytes.
 * - `$scrypt$ln=..,r=..,p=..$salt$hash` (passlib / RustCrypto), hash >= 10 bytes.
 * - PBKDF2: passlib's `$pbkdf2$` (SHA-1), `$pbkdf2-sha256$`, `$pbkdf2-sha512$`
 *   (rounds as a bare number, adapted base64, hash of the digest's length),
 *   also `$pbkdf2-sha1$`; and the PHC form of RustCrypto's `pbkdf2` crate,
 *   `$pbkdf2-sha256$i=<iterations>[,l=<length>]$<salt>$<hash>` (standard
 *   base64), hash >= 10 bytes.
 * - bcrypt `$2a$`, `$2b$`, `$2y$` with a two-digit cost 04..31. As npm
 *   `bcrypt` does, the answer is that of comparing the whole re-encoded
 *   string (computed from the bytes: the string must be canonical), so
 *   a string whose last salt or hash character carries non-zero unused bits
 *   (never produced by any bcrypt) verifies as `false`, as with npm `bcrypt`
 *   and bcryptjs. `$2a$` keeps OpenBSD/npm `bcrypt`'s length wrap for
 *   passwords of 255+ bytes.
 * - Other frameworks' stored formats (lib/phc/formats/; docs/migrating.md):
 *   better-auth's `hex(salt):hex(key)` (its password NFKC-normalised, as
 *   better-auth did, whatever `normalize` says); Django's `pbkdf2_sha256$`,
 *   `pbkdf2_sha1$`, `scrypt$`, `argon2$`, `bcrypt_sha256$`, `bcrypt$`;
 *   ASP.NET Core Identity v2/v3 (base64); Spring Security's `{bcrypt}`,
 *   `{pbkdf2}`, `{scrypt}`, `{argon2}` (and `@SpringSecurity_v5_8`);
 *   Werkzeug's `pbkdf2:<digest>:<n>$` and `scrypt:<N>:<r>:<p>$`.
 *   needsRehash() is true for every one of them.
 * Strict parsing: salt/hash in unpadded, canonical base64 ('=' padding,
 * other alphabets, non-zero trailing bits are refused), decimal numbers
 * without sign or leading zeros, no duplicate, missing or unknown
 * parameters, no trailing fields, no empty hash, no empty salt except
 * where passlib allows one (scrypt, passlib's PBKDF2 form). A malformed string
 * rejects with `InvalidHashError` (code 'ERR_KDF_INVALID_HASH'); a `phc`
 * that is not a string with ERR_INVALID_ARG_TYPE.
 *
 * Hostile stored hashes: before any work is queued, the parameters are
 * checked against limits; over a limit, verify rejects with `HashLimitError`
 * (code 'ERR_KDF_HASH_LIMIT', `err.limit` names the limit, `err.value`,
 * `err.max`). A string longer than any the limits accept (4205 characters
 * under the defaults) is refused before it is parsed (err.limit
 * 'storedLength'). Every string's cost is estimated from all its
 * parameters, the hash and password lengths included (the model is in
 * cost.js and docs/security.md):
 *   work               600 units (1 unit = 1 ms of the pool's own
 *                      prediction, on the CPU variant that runs)
 *   memory             269484032 bytes (257 MiB) that the job really
 *                      allocates; and, with the output the pool reserves
 *                      beside it, never more than the pool's memory
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
 *   passwordLength     4096 bytes: hash, verify and needsRehash (given a
 *                      password) refuse a longer one before copying it,
 *                      with a KdfError 'ERR_KDF_PASSWORD_TOO_LONG'
 *                      (`limit`, `value`, `max`)
 * Override per pool with `kdf.createPool({ hashLimits })` or
 * `kdf.configure({ hashLimits })`, and per call with `options.limits`
 * (defaults < pool < call; each a positive integer).
 * verify options: those of hash (checked the same way); it uses `limits`,
 * `signal`, `maxWaitMs` and, for Argon2 strings only, `secret` (default:
 * the pool's; the string's keyid= picks a named key, a string without one
 * takes `unnamed`'s key or none); the string's own `data=` is the
 * associated data. A `phc` that is undefined or null (no such user) is
 * refused like any non-string, the message naming verifyUnknown().
 *
 * ## verifyUnknown(password[, options]) -> Promise<false>
 *
 * For a user who does not exist, so that a login costs the same whether
 * the account exists or not. It verifies `password` against a string of
 * the target `options` names (hash()'s target; default hash()'s defaults),
 * as hash() on this pool would write it now — algorithm, parameters, salt
 * and hash lengths, the secret's current key id, data= — with a random
 * salt and a random hash: the job a real failed verify submits (same
 * algorithm, parameters, input sizes, pepper), through the same queue
 * (signal, maxWaitMs, fairKey), limits and errors; then resolves `false`.
 * No dummy hash is computed, cached or kept in step with the target and
 * pepper: the first call costs what every call costs. Pass the options
 * you pass to hash() (and verify()): one object serves all four. A
 * separate name rather than verify(undefined, ...): a typo'd column or a
 * driver's null must fail loudly, not answer `false` for every user.
 *
 * ## needsRehash(phc[, options[, password]]) -> boolean (synchronous)
 *
 * `options` as for `hash` (the target; default: hash's defaults). `true`
 * when the string is below the target: the algorithm differs (each name is
 * its own family: argon2id, argon2i, argon2d, scrypt,
 * pbkdf2-sha1/-sha256/-sha512, bcrypt), it is another framework's format,
 * the version is old (argon2 0x10; bcrypt `$2a$`, which we would write as
 * `$2b$`), any cost parameter, the hash length or the salt length is below
 * the target's, or the target's `associatedData` differs from the string's
 * `data=`. A string at least as strong in all of them is kept.
 * Never a silent downgrade: `false` also when hashing at the target would
 * cost less than verifying the string does, priced by the pool's own cost
 * model (cost.js: the figures of its hints and limits, on the CPU variant
 * that runs), e.g. better-auth's scrypt (N=16384, r=16) or a bcrypt cost 12
 * against the default argon2id. rehashTarget() below gives the target to
 * move such a string with. `exact: true`: any cost or hash length that
 * differs, up or down, and a `data=` the target lacks, also count (a longer
 * salt never does), whatever the target costs: the explicit downgrade. An
 * Argon2 string is also `true` when its
 * keyid= is not the current key of the secret (the call's `secret`, else
 * the pool's: `kdf.needsRehash` uses the default pool's, `pool.needsRehash`
 * that pool's), or it has none while a current key is set, or the other
 * way round. Malformed strings throw InvalidHashError; only the string's
 * and the password's lengths are limited (under the pool's and the call's
 * limits; no work is done).
 * `password` (optional): `true` also for a bcrypt hash when the password is
 * over 72 bytes (bcrypt ignored the rest; only another algorithm reads it).
 *
 * ## rehashTarget(phc[, options]) -> options (synchronous)
 *
 * The target to rehash `phc` to after a successful verify: a copy of
 * `options` (default: hash's defaults) with `algorithm` set and its cost
 * raised until hashing at it costs at least what verifying `phc` does, by
 * the same cost model: of the same family, the larger of each cost
 * parameter and of the hash and salt lengths; a memory-hard string
 * (Argon2, scrypt) keeps at least its memory (Argon2 `memory` KiB, scrypt
 * N); then the time parameter grows (Argon2 `passes`, scrypt `p`, PBKDF2
 * `iterations`, bcrypt `cost`), the memory where a limit stops that. Within
 * the pool's and the call's limits and memory budget: where they stop it
 * short, the result costs less than `phc`, and needsRehash() keeps `phc`.
 * Other keys (secret, normalize, limits, signal...) are kept; with
 * `exact: true`, `options` as given. needsRehash(phc, result) is then the
 * rehash that is due, and hash(password, result) writes it; the string it
 * writes is kept by the next needsRehash(s, rehashTarget(s, options)).
 */

const crypto = require('node:crypto');
const errors = require('../errors');
const v = require('../validate');
const { algorithms } = require('../native').constants;
const { callOptions, runSync } = require('../submit');
const { checkPbkdf2 } = require('../pbkdf2');
const { checkScrypt } = require('../scrypt');
const { b64, ab64, formatBcrypt, BCRYPT_SALT_BYTES, BCRYPT_HASH_BYTES, BCRYPT_MAX_PASSWORD } = require('./encoding');
const { parse, parseShape, decodeFields, passwordInput } = require('./formats');
const {
  effectiveLimits, checkStoredLength, checkPasswordLength, passwordTooLong, checkLimits, checkDecodedLengths, costShape,
} = require('./limits');
const { estimateCost } = require('./cost');
const { hashTarget } = require('./target');
const { NO_PEPPER, keyBytes, keyIdField } = require('./secrets');

// `pool` below is not a Pool but the internal interface a Pool hands down
// (lib/pool.js builds it; nothing else reaches the pool's state):
//   submit(alg, c, opts) -> Promise<Buffer>   (submit.js Channel.submit)
//   maxMemory() -> number                     the pool's memory budget, bytes
//   hashLimits() -> object|undefined          the pool's hashLimits option
//   secret() -> Peppers|undefined             the pool's Argon2 secret (secrets.js), its own copies

// ---------------------------------------------------------------- jobs

// The KDF job of a parsed string (or of a target plus a fresh salt):
// [alg, c] for submit() / runSync(), `outlen` bytes out. `secret` is
// Argon2's K (bytes or undefined).
function jobOf(d, password, outlen, secret) {
  switch (d.kind) {
    case 'argon2':
      return [algorithms.ARGON2, {
        inputs: [password, d.salt, secret, d.data],
        numbers: [d.type, d.version, d.lanes, d.memory, d.passes],
        name: undefined,
        outlen,
        context: {},
      }];
    case 'scrypt':
      return [algorithms.SCRYPT, checkScrypt(password, d.salt, outlen, {
        N: d.N, r: d.r, p: d.p,
        // OpenSSL's own accounting: 128*r*(N+2) for V plus 128*r*p for B.
        maxmem: 128 * d.r * (d.N + 2 + d.p) + 65536,
      })];
    case 'pbkdf2':
      return [algorithms.PBKDF2, checkPbkdf2(password, d.salt, d.iterations, outlen, d.digest)];
    case 'bcrypt':
      return [algorithms.BCRYPT, {
        inputs: [password, d.salt],
        numbers: [d.cost, d.minor.charCodeAt(0)],
        name: undefined,
        outlen: BCRYPT_HASH_BYTES,
        context: {},
      }];
    default:
      throw new Error(`unreachable: ${d.kind}`);
  }
}

// The Argon2 peppers that apply (secrets.js): the call's `secret` (in the
// target `t`, a view of the keys as given), else the pool's (its copies).
// A job's key then comes from keyBytes(), which wipes what it encodes.
function peppersOf(t, pool) {
  if (t !== undefined && t.secret !== undefined) return t.secret;
  return pool.secret() || NO_PEPPER;
}

// The string hash() writes for a target, with `keyId` (the key used, or
// undefined), the target's associated data (bytes or undefined), a salt
// and a hash.
function formatTarget(t, keyId, data, salt, out) {
  switch (t.family) {
    case 'argon2': {
      // Parameters in the PHC format's order: m, t, p, keyid, data.
      const keyField = keyId === undefined ? '' : `,keyid=${keyIdField(keyId)}`;
      const dataField = data === undefined || data.length === 0 ? '' : `,data=${b64(data)}`;
      return `$${t.algorithm}$v=19$m=${t.memory},t=${t.passes},p=${t.parallelism}${keyField}${dataField}` +
        `$${b64(salt)}$${b64(out)}`;
    }
    case 'scrypt':
      return `$scrypt$ln=${t.ln},r=${t.r},p=${t.p}$${b64(salt)}$${b64(out)}`;
    case 'pbkdf2':
      return `$${t.algorithm}$${t.iterations}$${ab64(salt)}$${ab64(out)}`;
    case 'bcrypt':
      return formatBcrypt('b', t.cost, salt, out);
    default:
      throw new Error(`unreachable: ${t.family}`);
  }
}

// The password's length in bytes (UTF-8 for a string), without copying it:
// a password over the limit is refused before it is encoded.
// The password's size in bytes, counted only as far as `max` matters: a
// string of more than `max` characters has more than `max` UTF-8 bytes, so
// its length is returned as it is (a lower bound, enough to refuse it)
// rather than reading a huge string through, on the JS thread.
function passwordSize(password, max) {
  if (typeof password === 'string') {
    return password.length > max ? password.length : Buffer.byteLength(password, 'utf8');
  }
  return v.toBytes(password, 'password').byteLength;
}

// The string password in Unicode normalisation form `form` (options.normalize,
// or the form a stored format's writer applied), checked against
// passwordLength again: a normalised string can be longer. Undefined when
// nothing changes; a password given as bytes is taken as it is.
function normalized(password, form, limits) {
  if (form === undefined || typeof password !== 'string') return undefined;
  const text = password.normalize(form);
  if (text === password) return undefined;
  checkPasswordLength(passwordSize(text, limits.passwordLength), limits);
  return text;
}

// Runs `check(password)` (options, limits and the password's length, on the
// password as given: nothing is copied before it passes), then
// `prepare(pw, checked)` -> { alg, c, opts, finish(out), wipe() } with
// `run` (the pool's submit, or runSync), wiping our copies whatever happens.
// Returns finish()'s value, or a promise of it when `run` is async.
function withJob(password, check, prepare, run) {
  const checked = check(password);
  // The password as the KDF takes it: normalised when asked (checked.input).
  const input = checked.input === undefined ? password : checked.input;
  const pw = v.toBytes(input, 'password');
  let job;
  const cleanup = () => {
    if (typeof input === 'string') pw.fill(0); // our own UTF-8 copy
    if (job !== undefined) job.wipe();
  };
  let out;
  try {
    job = prepare(pw, checked);
    out = run(job.alg, job.c, job.opts);
  } catch (err) {
    cleanup();
    throw err;
  }
  if (!(out instanceof Promise)) {
    try {
      return job.finish(out);
    } finally {
      cleanup();
    }
  }
  // The native side copied the inputs at submit: our copies can go now.
  cleanup();
  return out.then((bytes) => job.finish(bytes));
}

// ---------------------------------------------------------------- hash

// hash()'s checks before the password is copied: the target, the limits
// verify() would apply on this pool, the password's length (and bcrypt's
// 72 bytes unless `truncate: true`), and the target's cost with it.
function checkHash(pool, options, password) {
  const t = hashTarget(options);
  const limits = effectiveLimits(pool.hashLimits(), options === undefined ? undefined : options.limits);
  checkPasswordLength(passwordSize(password, limits.passwordLength), limits);
  const input = normalized(password, t.normalize, limits);
  if (input !== undefined) t.input = input; // what withJob() copies
  const passwordBytes = passwordSize(input === undefined ? password : input, limits.passwordLength);
  if (t.family === 'bcrypt' && !t.truncate && passwordBytes > BCRYPT_MAX_PASSWORD) {
    throw passwordTooLong(`The password is ${passwordBytes} bytes; bcrypt reads only the first ` +
      `${BCRYPT_MAX_PASSWORD}, and the rest would be ignored without a word; refused before any work ` +
      "(hash it with an algorithm that reads it all, e.g. argon2id, the default; truncate: true accepts the cut)",
    'bcryptPasswordLength', passwordBytes, BCRYPT_MAX_PASSWORD);
  }
  // Never write what this pool's verify() would refuse.
  checkLimits(targetShape(t), limits, pool.maxMemory, passwordBytes);
  return t;
}

// hash()'s job: a fresh salt, and how to write the result.
function prepareHash(pool, pw, t, options) {
  const opts = callOptions(options, 'options');
  const saltLength = t.family === 'bcrypt' ? BCRYPT_SALT_BYTES : t.saltLength;
  const salt = crypto.randomFillSync(Buffer.alloc(saltLength));
  switch (t.family) {
    case 'argon2': {
      const data = t.associatedData === undefined ? undefined : v.toBytes(t.associatedData, 'options.associatedData');
      // The current key, whose id the string names (none in the single-key form).
      const peppers = peppersOf(t, pool);
      const secret = keyBytes(peppers.key(peppers.current));
      const d = { kind: 'argon2', type: t.type, version: 0x13, lanes: t.parallelism, memory: t.memory, passes: t.passes, salt, data };
      const [alg, c] = jobOf(d, pw, t.tagLength, secret.bytes);
      return { alg, c, opts, wipe: secret.wipe, finish: (out) => formatTarget(t, peppers.current, data, salt, out) };
    }
    case 'scrypt': {
      const [alg, c] = jobOf({ kind: 'scrypt', N: t.N, r: t.r, p: t.p, salt }, pw, t.tagLength);
      return { alg, c, opts, wipe() {}, finish: (out) => formatTarget(t, undefined, undefined, salt, out) };
    }
    case 'pbkdf2': {
      const [alg, c] = jobOf({ kind: 'pbkdf2', iterations: t.iterations, digest: t.digest, salt }, pw, t.tagLength);
      return { alg, c, opts, wipe() {}, finish: (out) => formatTarget(t, undefined, undefined, salt, out) };
    }
    case 'bcrypt': {
      const [alg, c] = jobOf({ kind: 'bcrypt', cost: t.cost, minor: 'b', salt }, pw, BCRYPT_HASH_BYTES);
      return { alg, c, opts, wipe() {}, finish: (out) => formatTarget(t, undefined, undefined, salt, out) };
    }
    default:
      throw new Error(`unreachable: ${t.family}`);
  }
}

// hash()'s target as checkLimits() sees a stored hash.
function targetShape(t) {
  const common = { subject: errors.HASH_PARAMS, saltBytes: t.saltLength, hashBytes: t.tagLength };
  switch (t.family) {
    case 'argon2': {
      const ad = t.associatedData;
      const dataBytes = ad === undefined ? 0 : (typeof ad === 'string' ? Buffer.byteLength(ad) : v.toBytes(ad).byteLength);
      return { ...common, kind: 'argon2', memory: t.memory, passes: t.passes, lanes: t.parallelism, dataBytes };
    }
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

/** hash(pool, password[, options]) -> Promise<string>. See the header. */
async function hash(pool, password, options) {
  return withJob(password, (pw) => checkHash(pool, options, pw),
    (pw, t) => prepareHash(pool, pw, t, options), pool.submit);
}

/** hashSync(pool, password[, options]) -> string, on the calling thread. */
function hashSync(pool, password, options) {
  return withJob(password, (pw) => checkHash(pool, options, pw),
    (pw, t) => prepareHash(pool, pw, t, options), runSync);
}

// ---------------------------------------------------------------- verify

// verify()'s checks before the password is copied: the options (the same
// keys as hash() and needsRehash(): one object may serve all three), the
// password's length, the string's length (before it is parsed), its
// parameters and their cost, then its fields decoded.
function checkVerify(pool, phc, options, password, target) {
  if (typeof phc !== 'string') throw errors.invalidArgType('phc', 'of type string', phc);
  const t = target !== undefined || options === undefined ? target : hashTarget(options);
  const limits = effectiveLimits(pool.hashLimits(), options === undefined ? undefined : options.limits);
  const passwordBytes = passwordSize(password, limits.passwordLength);
  checkPasswordLength(passwordBytes, limits);
  checkStoredLength(phc, limits);
  const d = parseShape(phc);
  // A format's own normalisation (better-auth's NFKC) subsumes the option's.
  const input = normalized(password, d.normalize !== undefined ? d.normalize : t && t.normalize, limits);
  checkLimits(d, limits, pool.maxMemory, input === undefined ? passwordBytes : passwordSize(input, limits.passwordLength));
  decodeFields(d);
  checkDecodedLengths(d, limits);
  // Only Argon2 strings take a secret: others were never peppered.
  const peppers = d.kind === 'argon2' ? peppersOf(t, pool) : NO_PEPPER;
  if (!peppers.has(d.keyId)) throw errors.unknownKeyId(d.keyId, d.keyIdText, peppers.ids());
  return { t, d, input, peppers };
}

// verify()'s job, and how to compare the result (constant-time).
function prepareVerify(pw, { d, peppers }, options) {
  const opts = callOptions(options, 'options');
  if (d.kind === 'bcrypt') {
    const input = passwordInput(d, pw); // Django's bcrypt_sha256 hashes the password first
    const [alg, c] = jobOf(d, input, BCRYPT_HASH_BYTES);
    return {
      alg, c, opts,
      wipe() {
        if (input !== pw) input.fill(0);
      },
      finish(out) {
        // As npm bcrypt: the whole string, re-encoded from the bytes, must
        // match, i.e. the stored one is canonical and its hash is `out`.
        // Compared as bytes: a re-encoded copy would keep the hash of a
        // wrong password (often a near miss) in Buffer's pool, unwiped.
        const ok = d.canonical && crypto.timingSafeEqual(out, d.hash);
        out.fill(0);
        return ok;
      },
    };
  }
  // The key the string names (NO_PEPPER for non-Argon2 strings: none).
  const secret = keyBytes(peppers.key(d.keyId));
  const [alg, c] = jobOf(d, pw, d.hash.length, secret.bytes);
  return {
    alg, c, opts, wipe: secret.wipe,
    finish(out) {
      const ok = out.length === d.hash.length && crypto.timingSafeEqual(out, d.hash);
      out.fill(0);
      return ok;
    },
  };
}

// verify() with `run` (the pool's submit, or runSync); `t`: the options'
// target when the caller has it already (verifyUnknown), else undefined.
function verifyWith(pool, phc, password, options, t, run) {
  return withJob(password, (pw) => checkVerify(pool, phc, options, pw, t),
    (pw, checked) => prepareVerify(pw, checked, options), run);
}

/** verify(pool, phc, password[, options]) -> Promise<boolean>. See the header. */
async function verify(pool, phc, password, options) {
  if (typeof phc !== 'string') throw errors.storedHashType(phc);
  return verifyWith(pool, phc, password, options, undefined, pool.submit);
}

/** verifySync(pool, phc, password[, options]) -> boolean, on the calling thread. */
function verifySync(pool, phc, password, options) {
  if (typeof phc !== 'string') throw errors.storedHashType(phc);
  return verifyWith(pool, phc, password, options, undefined, runSync);
}

// ---------------------------------------------------------------- unknown users

// Random bytes for unknown users' strings, drawn RESERVOIR_BYTES at a time:
// one randomFillSync per call costs more than the rest of the call's own
// JS (~15 us against ~3 us), a difference a real verify does not have.
// Salt and hash here are never secret: they only have to be fresh.
const RESERVOIR_BYTES = 4096; // >= the largest salt plus the largest hash (1024 + 1024)
let reservoir = Buffer.alloc(0);
let reservoirUsed = 0;
function randomBytes(n) {
  if (reservoirUsed + n > reservoir.length) {
    reservoir = crypto.randomFillSync(Buffer.allocUnsafeSlow(RESERVOIR_BYTES));
    reservoirUsed = 0;
  }
  const out = reservoir.subarray(reservoirUsed, reservoirUsed + n);
  reservoirUsed += n;
  return out;
}

// The stored string of a user who does not exist: what hash(password,
// options) on this pool would write now (the target's algorithm and
// parameters, the current key's id, its data=), with a fresh random salt
// and a random hash in place of a computed one. Verifying it is the work
// of a failed verify of a real user's string, and nothing is hashed first:
// no dummy to compute, cache or keep in step with the target and pepper.
function unknownUserString(pool, t) {
  const saltLength = t.family === 'bcrypt' ? BCRYPT_SALT_BYTES : t.saltLength;
  const hashLength = t.family === 'bcrypt' ? BCRYPT_HASH_BYTES : t.tagLength;
  const random = randomBytes(saltLength + hashLength);
  let keyId;
  let data;
  if (t.family === 'argon2') {
    keyId = peppersOf(t, pool).current;
    if (t.associatedData !== undefined) data = v.toBytes(t.associatedData, 'options.associatedData');
  }
  return formatTarget(t, keyId, data, random.subarray(0, saltLength), random.subarray(saltLength));
}

/** verifyUnknown(pool, password[, options]) -> Promise<false>. See the header. */
async function verifyUnknown(pool, password, options) {
  const t = hashTarget(options);
  // Whatever the comparison says (a random hash: never a match), a user
  // who does not exist has no password.
  await verifyWith(pool, unknownUserString(pool, t), password, options, t, pool.submit);
  return false;
}

/** verifyUnknownSync(pool, password[, options]) -> false, on the calling thread. */
function verifyUnknownSync(pool, password, options) {
  const t = hashTarget(options);
  verifyWith(pool, unknownUserString(pool, t), password, options, t, runSync);
  return false;
}

// ---------------------------------------------------------------- below the target

function sameBytes(a, b) {
  return a.length === b.length && a.equals(b);
}

// The target's associated data differs from the string's (only when the
// target names some, unless `exact`: then its absence must match too).
function dataDiffers(d, t) {
  const stored = d.data === undefined ? Buffer.alloc(0) : d.data;
  if (t.associatedData === undefined) return t.exact && stored.length > 0;
  const want = typeof t.associatedData === 'string'
    ? Buffer.from(t.associatedData, 'utf8')
    : Buffer.from(v.toBytes(t.associatedData));
  return !sameBytes(stored, want);
}

// Whether `d` is below the target `t` in any of the ways the header lists
// (another algorithm or format, an old version, a smaller parameter, another
// key, other data=), before any cost is compared.
function belowTarget(pool, d, t, passwordBytes) {
  // bcrypt ignored the password's bytes past 72: only another algorithm
  // reads them all (a bcrypt target with truncate: false refuses to hash it).
  if (d.kind === 'bcrypt' && passwordBytes > BCRYPT_MAX_PASSWORD) return true;
  // Another framework's format: upgrade on login.
  if (d.format !== undefined) return true;
  // Another algorithm is another family: argon2id, argon2i and argon2d are
  // three, pbkdf2-sha1/-sha256/-sha512 three more; scrypt and bcrypt one each.
  if (d.algorithm !== t.algorithm) return true;
  // `weaker(x, y)`: x is below the target's y (exact: x differs from y).
  const weaker = t.exact ? (x, y) => x !== y : (x, y) => x < y;
  switch (d.kind) {
    case 'argon2':
      // A string under another key than the current one (or none, or one
      // where the secret has no ids) moves to the current key.
      if (d.keyId !== peppersOf(t, pool).current) return true;
      return d.version !== 0x13 || weaker(d.memory, t.memory) || weaker(d.passes, t.passes) ||
        weaker(d.lanes, t.parallelism) || weaker(d.hash.length, t.tagLength) || d.salt.length < t.saltLength ||
        dataDiffers(d, t);
    case 'scrypt':
      return weaker(d.ln, t.ln) || weaker(d.r, t.r) || weaker(d.p, t.p) ||
        weaker(d.hash.length, t.tagLength) || d.salt.length < t.saltLength;
    case 'pbkdf2':
      return weaker(d.iterations, t.iterations) || weaker(d.hash.length, t.tagLength) || d.salt.length < t.saltLength;
    case 'bcrypt':
      return weaker(d.cost, t.cost) || d.minor === 'a';
    default:
      return true;
  }
}

// ---------------------------------------------------------------- the cost floor

// Work units (cost.js: the pool's own per-algorithm model, on the CPU
// variant that runs) of verifying `d`, and of hashing at the target `t`.
// The password's length is left out of both: it is the same password.
function storedWork(d) {
  return estimateCost({ ...costShape(d), passwordBytes: 0 }).work;
}
function targetWork(t) {
  return estimateCost({ ...targetShape(t), passwordBytes: 0 }).work;
}

// KiB a memory-hard string makes its verifier fill (0: none).
function memoryKiB(d) {
  if (d.kind === 'argon2') return d.memory;
  if (d.kind === 'scrypt') return (128 * d.N * d.r) / 1024;
  return 0;
}

// The target `t` with its cost raised until hashing at it costs at least
// verifying `d` does (storedWork), within the pool's and the call's
// limits: the same family keeps the larger of each cost parameter (and of
// the hash and salt lengths); a memory-hard string keeps at least its
// memory (Argon2's m, scrypt's N); then the time parameter grows (Argon2's
// passes, scrypt's p, PBKDF2's iterations, bcrypt's cost), the memory
// where the limits stop that. Where the limits stop both short of the
// floor, the result costs less than `d`, and needsRehash() keeps `d`.
function raisedTarget(t, d, limits, maxMemory) {
  const floor = storedWork(d);
  const fits = (c) => {
    try {
      checkLimits(targetShape(c), limits, maxMemory);
      return true;
    } catch (err) {
      if (err instanceof errors.HashLimitError) return false;
      throw err;
    }
  };
  let c = { ...t };
  const sameFamily = (d.kind === 'argon2' && t.family === 'argon2') || d.kind === t.family;
  if (sameFamily && (t.family === 'argon2' || t.family === 'scrypt')) {
    // The hash and salt lengths count in the cost too (and in needsRehash).
    c.tagLength = Math.max(c.tagLength, d.hash.length);
    c.saltLength = Math.max(c.saltLength, d.salt.length);
  }
  switch (t.family) {
    case 'argon2':
      if (sameFamily) {
        c.passes = Math.max(c.passes, d.passes);
        c.parallelism = Math.max(c.parallelism, d.lanes);
      }
      c.memory = Math.max(c.memory, Math.ceil(memoryKiB(d)), 8 * c.parallelism);
      break;
    case 'scrypt':
      if (sameFamily) {
        c.r = Math.max(c.r, d.r);
        c.p = Math.max(c.p, d.p);
      }
      while (c.ln < 31 && 128 * 2 ** c.ln * c.r < memoryKiB(d) * 1024) c.ln++;
      c.N = 2 ** c.ln;
      break;
    case 'pbkdf2':
      if (sameFamily && d.digest === c.digest) c.iterations = Math.max(c.iterations, d.iterations);
      break;
    case 'bcrypt':
      if (sameFamily) c.cost = Math.max(c.cost, d.cost);
      break;
    default:
      break;
  }
  if (!fits(c)) return t;
  // Then the time parameter, in proportion to what is missing (at least
  // one step); where the limits stop it, the memory doubles instead
  // (Argon2's m, scrypt's N). Each round adds work: a few rounds suffice.
  for (let round = 0; round < 100; round++) {
    const work = targetWork(c);
    if (work >= floor) break;
    const grow = (x) => Math.max(x + 1, Math.ceil((x * floor) / work));
    let moves;
    switch (c.family) {
      case 'argon2': moves = [{ passes: grow(c.passes) }, { memory: 2 * c.memory }]; break;
      case 'scrypt': moves = [{ p: grow(c.p) }, { ln: c.ln + 1, N: 2 ** (c.ln + 1) }]; break;
      case 'pbkdf2': moves = [{ iterations: Math.min(2 ** 31 - 1, grow(c.iterations)) }]; break;
      default: moves = [{ cost: c.cost + 1 }]; break;
    }
    const next = moves.map((m) => ({ ...c, ...m })).find(fits);
    if (next === undefined) break;
    c = next;
  }
  return c;
}

// A target's cost parameters as hash()'s options.
function costOptions(c, t) {
  const lengths = {};
  if (c.tagLength !== t.tagLength) lengths.tagLength = c.tagLength;
  if (c.saltLength !== t.saltLength) lengths.saltLength = c.saltLength;
  switch (c.family) {
    case 'argon2': return { memory: c.memory, passes: c.passes, parallelism: c.parallelism, ...lengths };
    case 'scrypt': return { ln: c.ln, r: c.r, p: c.p, ...lengths };
    case 'pbkdf2': return { iterations: c.iterations };
    case 'bcrypt': return { cost: c.cost };
    default: return {};
  }
}

/** rehashTarget(pool, phc[, options]) -> options. See the header. */
function rehashTarget(pool, phc, options) {
  if (typeof phc !== 'string') throw errors.invalidArgType('phc', 'of type string', phc);
  const t = hashTarget(options); // validates options first
  const limits = effectiveLimits(pool.hashLimits(), options === undefined ? undefined : options.limits);
  checkStoredLength(phc, limits);
  const d = parse(phc);
  const out = { ...options, algorithm: t.algorithm };
  if (t.exact) return out; // the target as given: an explicit choice, down too
  const raised = raisedTarget(t, d, limits, pool.maxMemory);
  if (t.family === 'scrypt') delete out.N;
  return Object.assign(out, costOptions(raised, t));
}

// ---------------------------------------------------------------- needsRehash

/** needsRehash(pool, phc[, options[, password]]) -> boolean. See the header. */
function needsRehash(pool, phc, options, password) {
  if (typeof phc !== 'string') throw errors.invalidArgType('phc', 'of type string', phc);
  const t = hashTarget(options); // validates options (and options.limits) first
  const limits = effectiveLimits(pool.hashLimits(), options === undefined ? undefined : options.limits);
  const passwordBytes = password === undefined ? undefined : passwordSize(password, limits.passwordLength);
  if (passwordBytes !== undefined) checkPasswordLength(passwordBytes, limits);
  checkStoredLength(phc, limits);
  const d = parse(phc);
  if (!belowTarget(pool, d, t, passwordBytes)) return false;
  // Never a silent downgrade: a rehash at the target must cost at least
  // what the string does, unless `exact` asks for the target as it is.
  return t.exact || targetWork(t) >= storedWork(d);
}

module.exports = { hash, hashSync, verify, verifySync, verifyUnknown, verifyUnknownSync, needsRehash, rehashTarget };
