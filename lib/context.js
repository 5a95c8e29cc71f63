'use strict';

// The client of the current request, for a pool's `fairKey` option, without
// passing it through the framework: an auth framework's password hook gets
// no request, so the key travels in an AsyncLocalStorage instead.
//
//   const logins = kdf.createPool({ name: 'login', fairKey: kdf.currentFairKey });
//   app.use(kdf.fairKeyMiddleware((req) => req.ip));   // Express, NestJS, node:http
//   fastify.addHook('onRequest', kdf.fairKeyMiddleware((request) => request.ip));
//
// The middleware runs the rest of the request inside its key; every call
// on a pool whose fairKey option is currentFairKey then names that client
// (a call's own fairKey still wins). The key is only recorded here: the
// pool validates and hashes it (lib/fairkey.js) when a call needs it.
//
// One store for the process: keys are per request, not per pool, and a
// nested runWithFairKey() replaces the key inside its own function only.
// AsyncLocalStorage costs nothing until the first key is entered; from
// then on, on Node 20 and 22, async_hooks track every promise of the
// process (Node 24's AsyncContextFrame does not).

const { AsyncLocalStorage } = require('node:async_hooks');
const errors = require('./errors');
const v = require('./validate');

const clients = new AsyncLocalStorage();

/** The fairKey recorded for the code running now, or undefined. */
function currentFairKey() {
  return clients.getStore();
}

// A recorded key is a string or undefined (no key); the pool checks its
// length when it uses it.
function checkKey(key, name) {
  if (key !== undefined && typeof key !== 'string') throw errors.invalidArgType(name, 'of type string', key);
}

/**
 * Runs fn(...args) with `key` (a string, or undefined for none) as the
 * current fairKey, and returns what it returns.
 */
function runWithFairKey(key, fn, ...args) {
  checkKey(key, 'key');
  v.validateFunction(fn, 'fn');
  return clients.run(key, fn, ...args);
}

/**
 * A middleware (req, res, next) that runs the rest of the request with
 * keyOf(req) as its fairKey: for Express and NestJS (`app.use`), Fastify
 * (an 'onRequest' hook: req is Fastify's request, next its done) and
 * node:http (`middleware(req, res, () => handle(req, res))`). keyOf must
 * return the client's TRUSTED address (Express `req.ip` with `trust proxy`
 * set for the proxies in front, Fastify `request.ip` with `trustProxy`),
 * or undefined; what it throws, or a key that is not a string, goes to
 * next(err).
 */
function fairKeyMiddleware(keyOf) {
  v.validateFunction(keyOf, 'keyOf');
  return function recordFairKey(req, res, next) {
    let key;
    try {
      key = keyOf(req);
      checkKey(key, 'keyOf(req)');
    } catch (err) {
      next(err);
      return;
    }
    clients.run(key, next);
  };
}

module.exports = { currentFairKey, runWithFairKey, fairKeyMiddleware };
