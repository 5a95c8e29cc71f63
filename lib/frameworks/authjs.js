'use strict';

// The `kdfpool/authjs` entry: a refused sign-in answered with the
// refusal's status and Retry-After under Auth.js (@auth/core, @auth/express).
//
// Auth.js turns every error of a Credentials provider's authorize() into a
// redirect: a CredentialsSignin to the sign-in page with
// `?error=CredentialsSignin&code=<its code>` (302, or 200 with `{ url }`
// for a client that sends X-Auth-Return-Redirect), anything else to the
// error page as a server "Configuration" error, logged with its stack and
// details. Nothing in Auth.js sets a response's status. So:
//
// - authorize(fn) wraps an authorize function: a refusal (PoolSaturatedError,
//   PoolClosedError) becomes a CredentialsSignin with code 'rate_limited'
//   (or 'unavailable' for a closed pool), which Auth.js answers as its own
//   failed sign-in and logs on one line (the error has no stack; its
//   message is the refusal's log line: the pool, the reason and Retry-After's
//   seconds); its cause is the refusal.
// - tooManyRequests(handler) wraps an Express handler (ExpressAuth(config)):
//   when authorize() was refused during the request, the response Auth.js
//   writes goes out with the refusal's headers (Retry-After) and, for a
//   client that asked for JSON (X-Auth-Return-Redirect: its `{ url }`
//   body), the refusal's status (503, or 429 for a client over its share)
//   instead of its own. A browser's form post keeps Auth.js's redirect to
//   the sign-in page with code=rate_limited: a browser shows no page for a
//   503 or 429 with an empty body and a Location. The body and other
//   headers (cookies, Location, `{ url }`) are Auth.js's.
//
// The two meet through an AsyncLocalStorage entered by tooManyRequests():
// authorize() alone still gives the quiet CredentialsSignin.
//
// @auth/core is an optional peer dependency and an ES module: its errors
// are loaded with import() at the first refusal.

const http = require('node:http');
const { AsyncLocalStorage } = require('node:async_hooks');
const errors = require('../errors');
const v = require('../validate');

const requests = new AsyncLocalStorage();
let refusalClass;

// PoolSaturatedError / PoolClosedError, from any copy of kdfpool.
function isRefusal(err) {
  return err !== null && typeof err === 'object' &&
    (err.code === 'ERR_KDF_POOL_SATURATED' || err.code === 'ERR_KDF_POOL_CLOSED');
}

// The line a refusal logs (its stack's first line, without the name and
// code): the pool, the reason and Retry-After's seconds.
function logLine(refusal) {
  const first = typeof refusal.stack === 'string' ? refusal.stack.split('\n', 1)[0] : '';
  const prefix = `${refusal.name} [${refusal.code}]: `;
  return first.startsWith(prefix) ? first.slice(prefix.length) : refusal.message;
}

// Auth.js's CredentialsSignin, extended once: a refused sign-in, without
// a stack (Auth.js's logger prints the lines after the first).
function credentialsRefusal() {
  if (refusalClass === undefined) {
    refusalClass = import('@auth/core/errors').then(({ CredentialsSignin }) => class SignInRefused
      extends CredentialsSignin {
      constructor(refusal) {
        super(logLine(refusal), { cause: refusal });
        this.code = refusal.code === 'ERR_KDF_POOL_SATURATED' ? 'rate_limited' : 'unavailable';
        this.stack = '';
      }
    }, (err) => {
      refusalClass = undefined;
      if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes("'@auth/core'")) {
        throw errors.missingPeer('@auth/core', 'kdfpool/authjs');
      }
      throw err;
    });
  }
  return refusalClass;
}

/**
 * Wraps a Credentials provider's authorize(credentials, request): what it
 * returns, or its errors, except a refusal, which is thrown as a
 * CredentialsSignin (code 'rate_limited' or 'unavailable') and recorded
 * for tooManyRequests().
 */
function authorize(fn) {
  v.validateFunction(fn, 'fn');
  return async function authorizeRefusable(...args) {
    try {
      return await fn.apply(this, args);
    } catch (err) {
      if (!isRefusal(err)) throw err;
      const request = requests.getStore();
      if (request !== undefined) request.refusal = err;
      const SignInRefused = await credentialsRefusal();
      throw new SignInRefused(err);
    }
  };
}

/**
 * Wraps an Express handler (req, res, next) such as ExpressAuth(config):
 * when an authorize() wrapped by authorize() was refused during the
 * request, the response goes out with the refusal's status and headers.
 */
function tooManyRequests(handler) {
  v.validateFunction(handler, 'handler');
  return function answerRefusals(req, res, next) {
    const request = { refusal: undefined };
    const writeHead = res.writeHead;
    const own = Object.hasOwn(res, 'writeHead');
    // Every response passes here (res.end() without it calls it too).
    res.writeHead = function writeHeadRefused(statusCode, ...rest) {
      if (own) res.writeHead = writeHead;
      else delete res.writeHead;
      const refusal = request.refusal;
      if (refusal === undefined) return writeHead.call(this, statusCode, ...rest);
      for (const [name, value] of Object.entries(refusal.headers || {})) this.setHeader(name, value);
      // A redirect (a browser's form post) stays one: the page it leads to
      // says why; a 503 or 429 with a Location would be a blank page.
      if (statusCode >= 300 && statusCode < 400) return writeHead.call(this, statusCode, ...rest);
      if (typeof rest[0] === 'string') rest[0] = http.STATUS_CODES[refusal.status];
      return writeHead.call(this, refusal.status, ...rest);
    };
    return requests.run(request, handler, req, res, next);
  };
}

module.exports = { authorize, tooManyRequests };
