'use strict';

// The `kdfpool/better-auth` entry: kdfpool as better-auth's password hasher.
//
//   import { betterAuth } from 'better-auth';
//   import { kdfpool } from 'kdfpool/better-auth';
//   const auth = betterAuth({ emailAndPassword: { enabled: true }, plugins: [kdfpool({ pool: logins })] });
//
// - password(options): better-auth's `emailAndPassword.password` hooks,
//   { hash, verify }, on a kdfpool pool. A refusal (PoolSaturatedError,
//   PoolClosedError) becomes better-auth's own APIError with the same
//   status and headers (503 or 429 + Retry-After; closed: 503), which better-auth answers
//   as it answers its own errors, `{ message, code }`, without logging a
//   stack; any other error stays what it was (a 500).
// - kdfpool(options): a better-auth plugin that installs those hooks and
//   upgrades a stored hash on sign-in. better-auth's verify hook gets no
//   user, so the upgrade is an after-hook on the sign-in endpoints: once a
//   sign-in has made a session, it reads the user's credential account
//   and, when the pool's needsRehash() says so against the target raised
//   to the stored hash's cost (rehashTarget(): never a cheaper hash),
//   stores the pool's hash(password) at that target in its place: the
//   pool that hashes is the pool that judges, its pepper's current key
//   included, so a sign-in rehashes once. A refused upgrade is left for
//   the next sign-in; other failures are logged through better-auth's
//   logger and never fail the sign-in.
// - For a sign-in whose user (or password) better-auth does not have, it
//   calls the hash hook to spend the time a real check would; the plugin
//   answers that call with the pool's verifyUnknown() instead: the work
//   and the answer of a wrong password for an existing user, for every
//   target and password (a bcrypt target's hash() refuses a password over
//   72 bytes, which verify() reads, so hashing would fail where a wrong
//   password does not).
//
// better-auth is an optional peer dependency and an ES module: this file
// loads `better-auth/api` with import(), once, when better-auth builds its
// context (the plugin's init) or at the first refusal (password() alone).

const { STATUS_CODES } = require('node:http');
const kdf = require('../index');
const errors = require('../errors');
const v = require('../validate');

const PLUGIN_ID = 'kdfpool';
// What the hooks call on the pool (a Pool, or the module: the default pool).
const POOL_METHODS = ['hash', 'verify', 'verifyUnknown', 'needsRehash', 'rehashTarget'];
const OPTION_KEYS = ['pool', 'target'];
// better-auth's endpoints that sign a user in with a password in the body
// (emailAndPassword, and the username and phoneNumber plugins).
const SIGN_IN_PATHS = new Set(['/sign-in/email', '/sign-in/username', '/sign-in/phone-number']);
// A valid stored hash: needsRehash() on it checks a target's every key
// before anything runs (typos such as maxWaitMS are refused at start-up,
// not at the first sign-up).
const SAMPLE_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';

let api;

// better-auth/api, imported once; ERR_KDF_MISSING_PEER when it is absent.
function betterAuthApi() {
  if (api === undefined) {
    api = import('better-auth/api').catch((err) => {
      if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes("'better-auth'")) {
        throw errors.missingPeer('better-auth', 'kdfpool/better-auth');
      }
      throw err;
    });
  }
  return api;
}

// PoolSaturatedError / PoolClosedError, from any copy of kdfpool.
function isRefusal(err) {
  return err !== null && typeof err === 'object' &&
    (err.code === 'ERR_KDF_POOL_SATURATED' || err.code === 'ERR_KDF_POOL_CLOSED');
}

// The error better-auth should answer for `err`: a refusal as its APIError
// with the refusal's status, code and headers, and its message where it is
// the client's (a refusal's says when to retry, in Retry-After's seconds,
// at 503 too; a closed pool's is hidden, as http-errors hides a 5xx's: it
// names the pool); anything else as is.
async function forBetterAuth(err) {
  if (!isRefusal(err)) return err;
  const { APIError } = await betterAuthApi();
  const status = err.status === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE';
  const message = err.expose ? err.message : STATUS_CODES[err.status];
  return new APIError(status, { message, code: err.code }, { ...err.headers });
}

function readOptions(options, where) {
  if (options === undefined) options = {};
  v.validateObject(options, where);
  v.refuseUnknownKeys(options, where, OPTION_KEYS);
  const pool = options.pool === undefined ? kdf : options.pool;
  if (pool === null || typeof pool !== 'object' || POOL_METHODS.some((m) => typeof pool[m] !== 'function')) {
    throw errors.invalidArgType(`${where}.pool`, 'a kdfpool pool (createPool()) or the kdfpool module', pool);
  }
  if (options.target !== undefined) v.validateObject(options.target, `${where}.target`);
  // better-auth's own hasher reads passwords NFKC-normalised: so do the
  // hashes written after the switch, unless the target says otherwise.
  const target = { normalize: 'NFKC', ...options.target };
  kdf.needsRehash(SAMPLE_HASH, target);
  return { pool, target };
}

// better-auth's hash hook during a sign-in: only ever called for a user (or
// a password) it does not have, to spend a real check's time. What it
// returns is dropped.
function unknownUserHash({ pool, target }) {
  return async function hashForUnknownUser(password) {
    try {
      await pool.verifyUnknown(password, target);
    } catch (err) {
      throw await forBetterAuth(err);
    }
    return '';
  };
}

function hooksOf({ pool, target }) {
  return {
    async hash(password) {
      try {
        return await pool.hash(password, target);
      } catch (err) {
        throw await forBetterAuth(err);
      }
    },
    async verify({ hash, password }) {
      try {
        return await pool.verify(hash, password, target);
      } catch (err) {
        throw await forBetterAuth(err);
      }
    },
  };
}

/**
 * better-auth's `emailAndPassword.password` hooks on a kdfpool pool.
 * options: { pool (default: the default pool), target (hash()'s options,
 * also given to verify(); `normalize: 'NFKC'` unless it says otherwise) }.
 */
function password(options) {
  const hooks = hooksOf(readOptions(options, 'options'));
  betterAuthApi().catch(() => {}); // loaded before the first refusal needs it
  return hooks;
}

// After a password sign-in that made a session: the stored hash, upgraded
// if it needs it. `c` is better-auth's after-hook context.
async function upgrade(c, { pool, target }) {
  const signedIn = c.context.newSession;
  const given = c.body !== null && typeof c.body === 'object' ? c.body.password : undefined;
  if (!signedIn || typeof given !== 'string') return;
  try {
    const account = await c.context.internalAdapter.findCredentialAccount(signedIn.user.id);
    if (!account || typeof account.password !== 'string') return;
    // The pool that hashes judges (its pepper's current key), at no less
    // than the stored hash's cost.
    const next = pool.rehashTarget(account.password, target);
    if (!pool.needsRehash(account.password, next, given)) return;
    await c.context.internalAdapter.updatePassword(signedIn.user.id, await pool.hash(given, next));
  } catch (err) {
    if (isRefusal(err)) return; // busy now: the next sign-in upgrades it
    c.context.logger.error(`${PLUGIN_ID}: the stored hash could not be upgraded on sign-in`, err);
  }
}

/**
 * A better-auth plugin: kdfpool hashes and verifies passwords (as
 * password() does) and upgrades stored hashes on sign-in. options: as
 * password()'s.
 */
function kdfpool(options) {
  const read = readOptions(options, 'options');
  const hooks = hooksOf(read);
  const forUnknownUser = unknownUserHash(read);
  let beforeSignIn; // better-auth's middlewares, made once better-auth is loaded
  let afterSignIn;
  return {
    id: PLUGIN_ID,
    async init(ctx) {
      const { createAuthMiddleware } = await betterAuthApi();
      // A before-hook's { context } is merged into this request's context:
      // its sign-in sees the unknown-user hash, every other endpoint (a
      // sign-up, a password change) the real one.
      beforeSignIn = createAuthMiddleware(async (c) => ({
        context: { context: { password: { ...c.context.password, hash: forUnknownUser } } },
      }));
      afterSignIn = createAuthMiddleware((c) => upgrade(c, read));
      return { context: { password: { ...ctx.password, hash: hooks.hash, verify: hooks.verify } } };
    },
    hooks: {
      // better-auth runs init before it serves any request.
      before: [{ matcher: (c) => SIGN_IN_PATHS.has(c.path), handler: (c) => beforeSignIn(c) }],
      after: [{ matcher: (c) => SIGN_IN_PATHS.has(c.path), handler: (c) => afterSignIn(c) }],
    },
  };
}

module.exports = { kdfpool, password };
