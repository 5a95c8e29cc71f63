'use strict';

// requestSignal(req[, res]): an AbortSignal for an HTTP request that fires
// when the client goes away before the response is finished, so a handler
// can pass it to hash()/verify() and a hung-up login frees its queue slot.
//
// The response's 'close' is the event to watch: node emits it once, when
// the response has finished (nothing to abort) or when its connection was
// closed first (the client is gone). The request's 'close' is not: since
// Node 16 it fires as soon as the body has been read, which would abort
// every request with a body. Keep-alive needs nothing special: the
// response's 'close' comes when the response ends, not the connection, and
// the one listener goes with it.

const errors = require('./errors');
const { RateLimitFields } = require('./ratelimit');

// The ServerResponse of `req`: the one given, Express's `req.res`, or the
// one node has attached to the request's socket.
function responseOf(req, res) {
  if (res !== undefined) return res;
  if (req.res !== undefined && req.res !== null) return req.res;
  const socket = req.socket;
  return socket && socket._httpMessage ? socket._httpMessage : undefined;
}

function isEmitter(x) {
  return x !== null && typeof x === 'object' && typeof x.once === 'function' && typeof x.off === 'function';
}

/**
 * An AbortSignal that fires when the client of `req` (a node
 * http.IncomingMessage: Express's `req`, Fastify's `request.raw`) goes
 * away before `res` (its http.ServerResponse: Express's `res`, Fastify's
 * `reply.raw`; found from `req` when omitted) has finished.
 */
function requestSignal(req, res) {
  if (!isEmitter(req)) throw errors.invalidArgType('req', 'an instance of http.IncomingMessage', req);
  const response = responseOf(req, res);
  if (!isEmitter(response)) {
    throw errors.invalidArgType('res', 'an instance of http.ServerResponse', res);
  }
  const controller = new AbortController();
  if (response.writableFinished) return controller.signal; // answered: nothing left to abort
  if (response.destroyed || (req.socket && req.socket.destroyed)) {
    controller.abort(new errors.AbortError('The client closed the connection'));
    return controller.signal;
  }
  response.once('close', () => {
    if (!response.writableFinished) controller.abort(new errors.AbortError('The client closed the connection'));
  });
  return controller.signal;
}

/**
 * The RateLimit and RateLimit-Policy fields for a response that is not a
 * refusal (a refusal carries its own in err.headers when the pool's
 * `rateLimitHeaders` option is on): the places `pool` holds at once and
 * those left now. `pool`: a pool of createPool(), or the kdfpool module.
 */
function rateLimitHeaders(pool) {
  if (pool === null || typeof pool !== 'object' || typeof pool.stats !== 'function') {
    throw errors.invalidArgType('pool', 'a kdfpool pool (createPool()) or the kdfpool module', pool);
  }
  return new RateLimitFields(() => pool.stats()).current();
}

module.exports = { requestSignal, rateLimitHeaders };
