'use strict';

// Every error kdfpool raises is made here. Argument errors copy node:crypto's
// class, code and wording, so code written against node:crypto keeps working;
// our own conditions get ERR_KDF_* codes. Three parts: node:crypto's
// argument errors, kdfpool's error classes (with their constructors), and
// fromRecord(), which turns what native code refused into an error.

const { inspect } = require('node:util');

// Native status codes, generated from the C list (STATUS_MAP in
// src/common/status.h).
const { status } = require('./native').constants;

// ---------------------------------------------------------------- node:crypto's argument errors

function withCode(err, code, props) {
  Object.defineProperty(err, 'code', { value: code, enumerable: true, writable: true, configurable: true });
  if (props) Object.assign(err, props);
  // Match node's first stack line, "TypeError [ERR_X]: message".
  if (typeof err.stack === 'string') {
    err.stack = err.stack.replace(/^[^:\n]+: /, `${err.name} [${code}]: `);
  }
  return err;
}

// Node's rendering of the value that was received (determineSpecificType).
function describeReceived(value) {
  if (value == null) return ` Received ${value}`;
  if (typeof value === 'function') return ` Received function ${value.name}`;
  if (typeof value === 'object') {
    if (value.constructor && value.constructor.name) {
      return ` Received an instance of ${value.constructor.name}`;
    }
    return ` Received ${inspect(value, { depth: -1 })}`;
  }
  let shown = inspect(value, { colors: false });
  if (shown.length > 28) shown = `${shown.slice(0, 25)}...`;
  return ` Received type ${typeof value} (${shown})`;
}

function invalidArgType(name, expected, value) {
  const what = name.includes('.') ? 'property' : 'argument';
  const msg = `The "${name}" ${what} must be ${expected}.${describeReceived(value)}`;
  return withCode(new TypeError(msg), 'ERR_INVALID_ARG_TYPE');
}

function addNumericalSeparator(text) {
  let res = '';
  let i = text.length;
  const start = text[0] === '-' ? 1 : 0;
  for (; i >= start + 4; i -= 3) res = `_${text.slice(i - 3, i)}${res}`;
  return `${text.slice(0, i)}${res}`;
}

function outOfRange(name, range, value) {
  let received;
  if (Number.isInteger(value) && Math.abs(value) > 2 ** 32) {
    received = addNumericalSeparator(String(value));
  } else if (typeof value === 'bigint') {
    received = String(value);
    if (value > 2n ** 32n || value < -(2n ** 32n)) received = addNumericalSeparator(received);
    received += 'n';
  } else {
    received = inspect(value);
  }
  const msg = `The value of "${name}" is out of range. It must be ${range}. Received ${received}`;
  return withCode(new RangeError(msg), 'ERR_OUT_OF_RANGE');
}

function invalidArgValue(name, value, reason = 'is invalid') {
  let shown = inspect(value);
  if (shown.length > 128) shown = `${shown.slice(0, 128)}...`;
  const what = name.includes('.') ? 'property' : 'argument';
  return withCode(new TypeError(`The ${what} '${name}' ${reason}. Received ${shown}`), 'ERR_INVALID_ARG_VALUE');
}

// The running host, for messages: Bun and Deno set their own versions key.
function runtimeName() {
  const versions = (typeof process === 'object' && process.versions) || {};
  if (versions.bun) return `Bun ${versions.bun}`;
  if (versions.deno) return `Deno ${versions.deno}`;
  return `Node.js ${process.version}`;
}

/** A digest node:crypto knows, but only through OpenSSL, which this host does not provide. */
function digestUnavailable(digest) {
  const err = new KdfError(
    `Digest "${digest}" needs OpenSSL, which this runtime (${runtimeName()}) does not provide; ` +
    'kdfpool computes the SHA-1 and SHA-2 family itself (sha1, sha224, sha256, sha384, sha512, ' +
    'sha512-224, sha512-256), other digests only under Node.js',
    'ERR_KDF_DIGEST_UNAVAILABLE');
  err.digest = digest;
  err.retryable = false;
  return err;
}

function invalidDigest(digest) {
  return withCode(new TypeError(`Invalid digest: ${digest}`), 'ERR_CRYPTO_INVALID_DIGEST');
}

// scrypt: OpenSSL refused N, r, p or maxmem (detail: OpenSSL's queued error,
// if any).
function invalidScryptParams(detail) {
  const msg = detail ? `Invalid scrypt params: ${detail}` : 'Invalid scrypt params';
  return withCode(new RangeError(msg), 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS');
}

// scrypt: an option given under both of its names. Node 20 and 22 raise the
// first, node >= 23 the second (nodejs/node#53305); lib/host.js picks.
function scryptInvalidParameter() {
  return withCode(new Error('Invalid scrypt parameter'), 'ERR_CRYPTO_SCRYPT_INVALID_PARAMETER');
}

function incompatibleOptionPair(name, other) {
  return withCode(new TypeError(`Option "${name}" cannot be used in combination with option "${other}"`),
    'ERR_INCOMPATIBLE_OPTION_PAIR');
}

// A fresh error like one node:crypto raised: same class, message and own
// properties (code, OpenSSL's library/reason/opensslErrorStack), our stack.
function likeNodes(err) {
  const copy = new err.constructor(err.message);
  for (const key of Object.keys(err)) {
    const value = err[key];
    copy[key] = Array.isArray(value) ? value.slice() : value;
  }
  if (typeof err.stack === 'string' && err.stack.startsWith(`${err.name} [`) && typeof copy.stack === 'string') {
    copy.stack = copy.stack.replace(/^[^:\n]+: /, `${err.name} [${err.code}]: `);
  }
  return copy;
}

// ---------------------------------------------------------------- kdfpool's errors

// HTTP: the two errors that say something about the request are shaped as
// `http-errors` shapes its own (`status` and `statusCode`, `expose`, and
// `headers` for the response), which is what Express's default handler
// (finalhandler) and Fastify's read: an uncaught refusal then answers 503
// (the replica is full) or 429 (this client is over its share) with
// Retry-After, a closed pool 503, with no error handler in the app.
// The others carry no status, so every framework answers 500: a stored hash
// over the limits or malformed (the server's data), a pool's budget too
// small (its configuration), internal failures and bad arguments are none
// of the client's doing, and say nothing it could act on.

// Whole seconds for Retry-After (RFC 9110: a non-negative integer), rounded
// up so a client that waits as told is not early; at least 1.
function retryAfterSeconds(retryAfterMs) {
  return Number.isFinite(retryAfterMs) ? Math.max(1, Math.ceil(retryAfterMs / 1000)) : 1;
}

function setHttpStatus(err, httpStatus, headers, expose = httpStatus < 500) {
  err.status = httpStatus;
  err.statusCode = httpStatus;
  err.expose = expose; // as http-errors: a 4xx's message is for the client, a 5xx's is not (unless said)
  if (headers !== undefined) err.headers = headers;
}

// A refusal is made by the thousand per second exactly when a service is
// overloaded, and frameworks' default handlers log each one (err.stack, or
// console.error(err)). So it captures no stack (the same few lib/ frames
// every time, and capturing them cost more than the rest of the refusal),
// and its `stack` is its one first line. Error.stackTraceLimit set to a
// non-number makes V8 capture none at all (0 still builds an empty trace);
// it is put back at once, and left alone where it cannot be written
// (frozen intrinsics): the stack is replaced either way.

// A refusal's status tells a load balancer what to do with it. `scope`
// 'pool': the replica itself is full, so another replica may well serve
// the call, and a refused call did no work: 503, which nginx
// (proxy_next_upstream http_503) and HAProxy (retry-on 503) retry on
// another server. `scope` 'client': the pool refused this client (its
// fairKey) for its own demand while others are served: 429, which a
// balancer must pass back, not spread over the fleet. Retry-After either
// way (docs/deploy.md).
const SCOPE_STATUS = { pool: 503, client: 429 };

/**
 * The pool's queue is full (or the wait would pass a deadline): try later.
 * `scope`: 'pool' (the pool is full: HTTP 503) or 'client' (this client's
 * fairKey is over its share: HTTP 429); both with `headers: { 'retry-after':
 * seconds }`. `pool`: the name of the pool that refused (stats().name),
 * when known. Its `stack` is one line (the pool's refusals, saturated()
 * below: the log line, which names the pool; the message names none).
 */
class PoolSaturatedError extends Error {
  constructor(message = 'The pool is saturated', retryAfterMs = undefined, reason = 'queue_full', pool = undefined,
    scope = 'pool') {
    const limit = Error.stackTraceLimit;
    let silenced = false;
    try {
      Error.stackTraceLimit = undefined;
      silenced = true;
    } catch {
      // Not writable: a stack is captured, and replaced below.
    }
    try {
      super(message);
    } finally {
      if (silenced) Error.stackTraceLimit = limit;
    }
    this.name = 'PoolSaturatedError';
    this.code = 'ERR_KDF_POOL_SATURATED';
    this.stack = `PoolSaturatedError [ERR_KDF_POOL_SATURATED]: ${message}`;
    this.retryable = true;
    this.retryAfterMs = retryAfterMs;
    this.reason = reason;
    if (pool !== undefined) this.pool = pool;
    this.scope = scope === 'client' ? 'client' : 'pool';
    // Exposed at 503 too: the message says when to come back, and nothing
    // of the server's data.
    setHttpStatus(this, SCOPE_STATUS[this.scope], { 'retry-after': String(retryAfterSeconds(retryAfterMs)) }, true);
  }

  // util.inspect (console.error(err), which is what Express 5's default
  // handler logs): the one line, not the line plus every field below it.
  [inspect.custom]() {
    return this.stack;
  }
}

/**
 * The pool was closed before the job could run. HTTP 503 (the service is
 * going away). `pool`: the name of the closed pool (stats().name), when known.
 */
class PoolClosedError extends Error {
  constructor(message = 'The kdfpool pool is closed', pool = undefined) {
    super(message);
    this.name = 'PoolClosedError';
    this.code = 'ERR_KDF_POOL_CLOSED';
    this.retryable = false;
    if (pool !== undefined) this.pool = pool;
    setHttpStatus(this, 503);
  }
}

/**
 * The job needs more memory than the pool's whole budget: it can never run.
 * `memoryNeeded` and `maxMemory` in bytes; `hint` completes the message.
 */
class MemoryLimitError extends Error {
  constructor(needed, budget, hint = '') {
    super(`The job needs ${needed} bytes of memory, more than the pool's budget maxMemory of ${budget} bytes` +
      `${hint ? `; ${hint}` : ''}`);
    this.name = 'MemoryLimitError';
    this.code = 'ERR_KDF_MEMORY_LIMIT';
    this.retryable = false;
    this.memoryNeeded = needed;
    this.maxMemory = budget;
  }
}

/** The caller's AbortSignal fired (node's AbortError shape). */
class AbortError extends Error {
  constructor(message = 'The operation was aborted', options = undefined) {
    super(message, options);
    this.name = 'AbortError';
    this.code = 'ABORT_ERR';
  }
}

/** An internal failure that is nobody's argument error. */
class KdfError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'KdfError';
    this.code = code;
  }
}

/** A stored hash string is malformed, or uses a feature kdfpool does not support. */
class InvalidHashError extends Error {
  constructor(message = 'The stored hash is not a valid PHC or bcrypt string') {
    super(message);
    this.name = 'InvalidHashError';
    this.code = 'ERR_KDF_INVALID_HASH';
    this.retryable = false;
  }
}

/**
 * A stored hash asks for more work than the limits allow (a hostile or
 * mistaken string): refused before any work. `limit` names the limit,
 * `value` is what the string asked for and `max` the limit's value.
 */
class HashLimitError extends Error {
  constructor(message, limit, value, max) {
    super(message);
    this.name = 'HashLimitError';
    this.code = 'ERR_KDF_HASH_LIMIT';
    this.retryable = false;
    this.limit = limit;
    this.value = value;
    this.max = max;
  }
}

/**
 * A pepper (Argon2 secret), or a field of one, of the wrong type. Unlike
 * node's ERR_INVALID_ARG_TYPE message, it names only the value's type: a
 * misplaced secret must not reach the logs.
 */
function invalidSecretType(name, value, expected = 'a string, bytes (ArrayBuffer, Buffer, TypedArray, DataView) or ' +
  '{ current, keys[, unnamed] }') {
  const what = name.includes('.') ? 'property' : 'argument';
  const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : `type ${typeof value}`;
  return withCode(new TypeError(`The "${name}" ${what} must be ${expected}. Received ${type}`), 'ERR_INVALID_ARG_TYPE');
}

/**
 * A stored Argon2 string names a key (`keyid=`) that the secret in use
 * (the call's, else the pool's) does not have. Not `false`: the password
 * may well be right, and the operator must add the key. `keyId` is the id
 * as its bytes read, `field` the string's keyid= text; ids are not secret.
 */
function unknownKeyId(keyId, field, known) {
  // The id as text when it is printable ASCII (ours always are), else by its field only.
  const shownId = /^[\x21-\x7e]+$/.test(keyId) ? `${JSON.stringify(keyId)} (keyid=${field})` : `keyid=${field}`;
  const have = known.length === 0 ? 'has no named keys' : `has only ${known.map((id) => `"${id}"`).join(', ')}`;
  const err = new KdfError(`The stored hash names the Argon2 key ${shownId}, but the secret in use ${have}; ` +
    'nothing was hashed (add that key to secret.keys to verify it)', 'ERR_KDF_UNKNOWN_KEY_ID');
  err.retryable = false;
  err.keyId = keyId;
  return err;
}

/**
 * verify()'s stored hash is not a string. For undefined and null (a user
 * the database does not have), the message names verifyUnknown(), which
 * answers false at the cost of a real verify.
 */
function storedHashType(value) {
  const hint = value === undefined || value === null
    ? '. For a user who does not exist, call verifyUnknown(password[, options]): it resolves false ' +
      'after the same work as a failed verify'
    : '';
  const msg = `The "phc" argument must be of type string.${describeReceived(value)}${hint}`;
  return withCode(new TypeError(msg), 'ERR_INVALID_ARG_TYPE');
}

/** hostSlots cannot be used: its directory or lock files are unusable. */
function hostSlotsError(reason) {
  const err = new KdfError(`hostSlots: ${reason}`, 'ERR_KDF_HOST_SLOTS');
  err.retryable = false;
  return err;
}

/** An optional peer dependency that an entry point needs is not installed. */
function missingPeer(name, entry) {
  const err = new KdfError(`${entry} needs the package ${name}, which is not installed: npm install ${name}`,
    'ERR_KDF_MISSING_PEER');
  err.retryable = false;
  return err;
}

/**
 * A pool's `fairKey` function threw, or returned something other than a
 * key (a string of 1 to 1024 characters) or undefined. `pool`: its name,
 * null for the default pool (see poolLabel). `cause`: what it
 * threw, or the argument error its result got. Not retryable, no HTTP
 * status (a 500): the server's code, not the client's doing.
 */
function fairKeyFailed(pool, threw, cause) {
  const what = threw ? 'threw' : `returned an invalid key: ${cause && cause.message}`;
  const err = new KdfError(`The fairKey function of ${poolLabel({ pool })} ${what}`, 'ERR_KDF_FAIR_KEY');
  Object.defineProperty(err, 'cause', { value: cause, writable: true, configurable: true, enumerable: false });
  err.retryable = false;
  return err;
}

// A malformed stored hash (`reason` completes the sentence).
function invalidHash(reason) {
  return new InvalidHashError(`Invalid password hash string: ${reason}`);
}

// Who asks: a stored hash given to verify(), or hash()'s parameters (which
// verify() would refuse with the same limits).
const STORED = 'The stored hash asks for';
const HASH_PARAMS = "hash()'s parameters ask for";

// How to accept what a limit refused.
function howToRaise(limitName) {
  if (limitName === 'maxMemory') return "raise the pool's maxMemory (createPool / configure)";
  return `raise ${limitName} in the pool's hashLimits (createPool / configure) or in the call's options.limits`;
}

// A stored hash's parameter (or its estimated work or memory) over a limit,
// or over the pool's memory budget.
function hashOverLimit(what, value, limitName, max, unit = '', subject = STORED) {
  const u = unit ? ` ${unit}` : '';
  const limit = limitName === 'maxMemory' ? "the pool's memory budget maxMemory" : `the limit ${limitName}`;
  return new HashLimitError(
    `${subject} ${what} ${value}${u}, over ${limit} = ${max}${u}; refused before any work ` +
    `(to accept it, ${howToRaise(limitName)})`,
    limitName, value, max);
}

// A stored hash's salt, hash or data field over its length limit; `about`
// when `bytes` is estimated from the encoded length.
function hashFieldOverLimit(what, bytes, limitName, max, about = false, subject = STORED) {
  return new HashLimitError(
    `${subject} a ${what} of ${about ? 'about ' : ''}${bytes} bytes, over the limit ${limitName} = ${max} bytes; ` +
    `refused before any work (to accept it, ${howToRaise(limitName)})`, limitName, bytes, max);
}

// Who refused, in a log line: createPool()'s pools by name, the
// process-wide one as "the default pool" (a pool made by createPool() may
// itself be named "default").
function poolLabel(where) {
  if (where === undefined || where.pool === undefined) return 'the pool';
  return where.pool === null ? 'the default pool' : `pool "${where.pool}"`;
}

// A refusal's reason as a client may read it.
const REASON_TAGS = Object.freeze({ __proto__: null, queue_full: 'queue full', deadline: 'deadline', displaced: 'displaced' });

// Why a call was refused, after "is saturated", for the log line. `where`
// (optional) says what only the caller knows: { pool, maxWaitMs,
// atSubmit }. A deadline refusal at submit comes while the queue may have
// room: the wait ahead of the call (priced from the queued and running
// jobs, see the pool's hint) is longer than its deadline, and the line
// says both figures.
function refusalReason(reason, ms, where) {
  const deadline = where !== undefined && where.maxWaitMs > 0 ? ` (maxWaitMs ${where.maxWaitMs} ms)` : '';
  if (reason === 'deadline') {
    if (where !== undefined && where.atSubmit) {
      return `(deadline): the call would wait about ${ms} ms for a thread, longer than its deadline${deadline}, ` +
        'so it is refused at once although the queue has room';
    }
    if (where !== undefined && where.atSubmit === false) {
      return `(deadline): the call waited in the queue past its deadline${deadline} and was dropped unrun`;
    }
    return `(deadline): the call would wait, or has waited, in the queue past its deadline${deadline}`;
  }
  if (reason === 'displaced') {
    return '(displaced): a call placed more than one job ahead of this one in the service order took its place in the full queue';
  }
  return '(queue full)';
}

// Whose demand a refusal answers: the native record's `overShare` says the
// caller's key was refused for its own demand; a displaced call is one by
// definition (its key stood more than one of the caller's jobs behind the
// caller's: it had been served more). Anything else is the pool being full.
function refusalScope(reason, overShare) {
  return overShare === true || reason === 'displaced' ? 'client' : 'pool';
}

/**
 * The refusal for a native record's reason and retry hints. `where`:
 * { pool: its name, null for the default pool; maxWaitMs: the call's
 * deadline; atSubmit: refused at submit (true) or dropped from the queue
 * (false); rateLimit: the pool's RateLimit fields (lib/ratelimit.js), when
 * its `rateLimitHeaders` option is on }, each optional. `overShare`: the
 * native record's flag (see refusalScope()).
 *
 * One truth for the client: its `message`, which frameworks put in the
 * response body (a refusal's message is exposed), and its `stack`, the line
 * every logger prints, give the seconds of its Retry-After header, never
 * another figure. The message names no pool (`err.pool` has the name, for
 * code that wants to show it); the log line does, with the whole reason.
 */
function saturated(retryAfterMs, reason = 'queue_full', where = undefined, retryAfterSecs = undefined,
  overShare = undefined) {
  const ms = Math.max(1, Math.ceil(Number.isFinite(retryAfterMs) ? retryAfterMs : 1));
  const err = new PoolSaturatedError('The pool is saturated', ms, reason, poolName(where), refusalScope(reason, overShare));
  // The pool's own whole seconds, when it spread them past the hint's (see
  // src/pool/retry_seconds.h): clients refused together, told one second
  // each, would all come back in the same moment.
  if (Number.isInteger(retryAfterSecs) && retryAfterSecs > retryAfterSeconds(ms)) err.headers['retry-after'] = String(retryAfterSecs);
  const retry = `retry in ${err.headers['retry-after']} s`;
  err.message = `The pool is saturated (${REASON_TAGS[reason] || reason}); ${retry}`;
  err.stack = `PoolSaturatedError [ERR_KDF_POOL_SATURATED]: ${poolLabel(where)} is saturated ` +
    `${refusalReason(reason, ms, where)}; ${retry}`;
  if (where !== undefined && where.rateLimit !== undefined) where.rateLimit.addTo(err.headers);
  return err;
}

// The pool's name as errors carry it: 'default' for the default pool.
function poolName(where) {
  return where === undefined || where.pool === undefined ? undefined : where.pool === null ? 'default' : where.pool;
}

/** A call to (or a job queued on) a closed pool; `where` as for saturated(). */
function closed(where = undefined) {
  return new PoolClosedError(`${poolLabel(where)} is closed`, poolName(where));
}

// ---------------------------------------------------------------- native records -> errors

// Native code answers a refusal (at submit, runSync, createPool, configure,
// stats) and a failed job (through the completion handler) with one record
// shape, built by src/napi/record.c:
//   { status, message?, retryAfterMs?, retryAfterSeconds?, overShare?, memoryNeeded?, maxMemory? }
// `status` is a native status code (native.constants.status), which for a
// refusal is also its reason (EFULL 'queue_full', ETIMEDOUT 'deadline',
// EDISPLACED 'displaced'); `message` native code's own words (OpenSSL's, a
// KDF's); the rest what the error needs from the pool. Anything else
// native code returns is a result.
function isRecord(value) {
  return value !== null && typeof value === 'object' && typeof value.status === 'number';
}

// The error for a record. `context` is what only the caller knows: the
// digest as given, onInvalid(message) to raise node:crypto's exact error
// for parameters native code refused, an Argon2 memory `hint`, the hostDir
// of a pool's options. `where`: for a refusal, the pool and deadline (see
// saturated()).
function fromRecord(record, context = {}, where = undefined) {
  switch (record.status) {
    case status.EFULL: return saturated(record.retryAfterMs, 'queue_full', where, record.retryAfterSeconds, record.overShare);
    case status.ETIMEDOUT: return saturated(record.retryAfterMs, 'deadline', where, record.retryAfterSeconds, record.overShare);
    case status.EDISPLACED: return saturated(record.retryAfterMs, 'displaced', where, record.retryAfterSeconds, record.overShare);
    case status.ECLOSED: return closed(where);
    case status.EMEMLIMIT: return new MemoryLimitError(record.memoryNeeded, record.maxMemory, context.hint);
    case status.EDIGEST: return invalidDigest(context.digest);
    case status.EUNAVAILABLE: return digestUnavailable(context.digest);
    case status.ECRYPTO: return new Error(record.message); // node:crypto's shape: OpenSSL's text, no code
    case status.ENOMEM: return new KdfError('Out of memory', 'ERR_KDF_OUT_OF_MEMORY');
    case status.ESTOPPED: return new KdfError('The job was stopped because the process is exiting', 'ERR_KDF_STOPPED');
    case status.ECANCELED: return new KdfError('The job was cancelled before it ran', 'ERR_KDF_CANCELLED');
    case status.EIO: return hostSlotsError(`${context.hostDir || 'the runtime directory'} is not a directory private to this user, or its lock files cannot be opened or locked`);
    case status.EINVAL:
      if (typeof context.onInvalid === 'function') return context.onInvalid(record.message);
    // falls through
    default:
      return new KdfError(record.message || 'Invalid argument', 'ERR_KDF_INVALID_ARGUMENT');
  }
}

module.exports = {
  // node:crypto's argument errors
  invalidArgType,
  invalidArgValue,
  outOfRange,
  invalidDigest,
  digestUnavailable,
  invalidScryptParams,
  scryptInvalidParameter,
  incompatibleOptionPair,
  likeNodes,
  // kdfpool's own errors
  PoolSaturatedError,
  PoolClosedError,
  MemoryLimitError,
  KdfError,
  AbortError,
  InvalidHashError,
  HashLimitError,
  saturated,
  hostSlotsError,
  missingPeer,
  fairKeyFailed,
  invalidSecretType,
  unknownKeyId,
  storedHashType,
  invalidHash,
  hashOverLimit,
  hashFieldOverLimit,
  HASH_PARAMS,
  // native records -> errors
  isRecord,
  fromRecord,
};
