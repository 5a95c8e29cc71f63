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
//   status and headers (429 + Retry-After, 503), which better-auth answers
//   as it answers its own errors, `{ message, code }`, without logging a
//   stack; any other error stays what it was (a 500).
// - kdfpool(options): a better-auth plugin that installs those hooks and
//   upgrades a stored hash on sign-in. better-auth's verify hook gets no
//   user, so the upgrade is an after-hook on the sign-in endpoints: once a
//   sign-in has made a session, it reads the user's credential account
//   and, when needsRehash() says so, stores hash(password) in its place.
//   A refused upgrade is left for the next sign-in; other failures are
//   logged through better-auth's logger and never fail the sign-in.
//
// better-auth is an optional peer dependency and an ES module: this file
// loads `better-auth/api` with import(), once, when better-auth builds its
// context (the plugin's init) or at the first refusal (password() alone).

const kdf = require('../index');
const errors = require('../errors');
const v = require('../validate');

const PLUGIN_ID = 'kdfpool';
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
// with the refusal's status, message, code and headers; anything else as is.
async function forBetterAuth(err) {
  if (!isRefusal(err)) return err;
  const { APIError } = await betterAuthApi();
  const status = err.status === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE';
  return new APIError(status, { message: err.message, code: err.code }, { ...err.headers });
}

function readOptions(options, where) {
  if (options === undefined) options = {};
  v.validateObject(options, where);
  v.refuseUnknownKeys(options, where, OPTION_KEYS);
  const pool = options.pool === undefined ? kdf : options.pool;
  if (pool === null || typeof pool !== 'object' || typeof pool.hash !== 'function' || typeof pool.verify !== 'function') {
    throw errors.invalidArgType(`${where}.pool`, 'a kdfpool pool (createPool()) or the kdfpool module', pool);
  }
  if (options.target !== undefined) v.validateObject(options.target, `${where}.target`);
  // better-auth's own hasher reads passwords NFKC-normalised: so do the
  // hashes written after the switch, unless the target says otherwise.
  const target = { normalize: 'NFKC', ...options.target };
  kdf.needsRehash(SAMPLE_HASH, target);
  return { pool, target };
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
    if (!kdf.needsRehash(account.password, target, given)) return;
    await c.context.internalAdapter.updatePassword(signedIn.user.id, await pool.hash(given, target));
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
  let afterSignIn; // better-auth's middleware, made once better-auth is loaded
  return {
    id: PLUGIN_ID,
    async init(ctx) {
      const { createAuthMiddleware } = await betterAuthApi();
      afterSignIn = createAuthMiddleware((c) => upgrade(c, read));
      return { context: { password: { ...ctx.password, hash: hooks.hash, verify: hooks.verify } } };
    },
    hooks: {
      after: [{
        matcher: (c) => SIGN_IN_PATHS.has(c.path),
        // better-auth runs init before it serves any request.
        handler: (c) => afterSignIn(c),
      }],
    },
  };
}

module.exports = { kdfpool, password };
