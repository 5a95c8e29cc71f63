'use strict';

// A login endpoint on node:http that hashes on its own kdfpool pool.
//
//   node examples/login-server.js [port]        (default 3000, 127.0.0.1 only)
//
//   curl -i localhost:3000/login -H 'content-type: application/json' -d '{"user":"alice","password":"correct horse battery staple"}'
//   curl localhost:3000/metrics                  (needs `npm install prom-client`)
//   curl localhost:3000/readyz ; curl localhost:3000/livez
//
// What it shows:
// - a dedicated pool (`name: 'login'`) with a bounded queue and a deadline,
//   so a login storm cannot queue unbounded work or delay other KDF users;
// - PoolSaturatedError -> its status (503: this replica is full, a balancer
//   may retry another; 429: this client is over its share) with
//   Retry-After and the RateLimit fields, instead of a slow 500;
// - a readiness probe from the pool's state (kdf.readiness), apart from
//   liveness (the process answers);
// - the request's AbortSignal: a client that hangs up frees its queue slot;
// - needsRehash(): users with old hashes are upgraded on their next login;
// - verifyUnknown(): an unknown user costs the verify a wrong password costs,
//   at the parameters new hashes use (no user enumeration by timing).
//
// The user table is in memory and made at start-up; the passwords are demo
// values, which is why the server refuses to listen beyond loopback.

const http = require('node:http');
const kdf = require('..');

const MAX_BODY_BYTES = 4096;
// Longer passwords are refused before any work: a KDF's cost may grow with
// the input (PBKDF2's HMAC does), and nobody types more than this.
const MAX_PASSWORD_CHARS = 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

// user -> password. bob's hash is made with old parameters to show upgrades.
const DEMO_USERS = [
  { user: 'alice', password: 'correct horse battery staple' },
  { user: 'bob', password: 'hunter2', legacy: { algorithm: 'pbkdf2-sha256', iterations: 100000 } },
];

class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * Starts the server. Options: port (0 = ephemeral), host (loopback only),
 * threads, maxQueue, maxWaitMs (pool sizing), hashOptions (what new hashes
 * use; also the target of needsRehash), users ([{ user, password, legacy? }]),
 * readiness (kdf.readiness()'s options for GET /readyz).
 * Resolves with the listening http.Server; stop it with stop(server).
 */
async function start(options = {}) {
  const {
    port = 3000,
    host = '127.0.0.1',
    threads,
    maxQueue = 16,
    maxWaitMs = 2000,
    hashOptions = {},
    users = DEMO_USERS,
    readiness = {},
  } = options;
  if (!LOOPBACK.has(host)) throw new Error(`refusing to listen on ${host}: this demo binds to loopback only`);

  // rateLimitHeaders: refusals carry RateLimit / RateLimit-Policy beside Retry-After.
  const pool = kdf.createPool({ name: 'login', threads, maxQueue, maxWaitMs, rateLimitHeaders: true });
  const ctx = { pool, hashOptions, users: new Map(), metrics: null, probe: null };
  try {
    await loadUsers(ctx, users);
    ctx.metrics = setUpMetrics(pool);
    ctx.probe = kdf.readiness(pool, readiness);
    const server = http.createServer((req, res) => {
      route(ctx, req, res).catch((err) => sendError(res, err));
    });
    server.login = ctx;
    await listen(server, port, host);
    return server;
  } catch (err) {
    if (ctx.probe) ctx.probe.close();
    await pool.close();
    throw err;
  }
}

/** Stops accepting connections, then closes the pool (queued jobs are refused). */
async function stop(server) {
  const ctx = server.login;
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
  if (ctx.metrics) ctx.metrics.kdf.stop(); // stop counting jobs for this registry
  ctx.probe.close();
  await ctx.pool.close();
}

function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

// Start-up hashing runs on the login pool before we listen, one user at a
// time: a small maxQueue would refuse a burst, and nothing else competes for
// the pool yet, so no deadline either.
async function loadUsers(ctx, users) {
  for (const { user, password, legacy } of users) {
    const hash = await ctx.pool.hash(password, { ...(legacy || ctx.hashOptions), maxWaitMs: 0 });
    ctx.users.set(user, { hash });
  }
}

// GET /metrics needs prom-client, which is optional: without it, 404.
function setUpMetrics(pool) {
  let client;
  try {
    client = require('prom-client');
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && /prom-client/.test(err.message)) return null;
    throw err;
  }
  const { registerKdfMetrics } = require('kdfpool/prometheus');
  // Our own registry, so that several servers in one process (tests) do not
  // collide on metric names in prom-client's global one.
  const register = new client.Registry();
  return { register, kdf: registerKdfMetrics(register, [pool]) };
}

async function route(ctx, req, res) {
  const path = req.url.split('?')[0];
  if (path === '/login') {
    if (req.method !== 'POST') throw new HttpError(405, 'use POST');
    return login(ctx, req, res);
  }
  if (path === '/metrics' && ctx.metrics) {
    if (req.method !== 'GET') throw new HttpError(405, 'use GET');
    const text = await ctx.metrics.register.metrics();
    res.writeHead(200, { 'Content-Type': ctx.metrics.register.contentType });
    return res.end(text);
  }
  // Readiness: 503 while the pool has been saturated for a while (a Service
  // stops sending logins here); liveness: the process answers, whatever the
  // pool's state (a saturated replica is working, not stuck).
  if (path === '/readyz') return ctx.probe.handler(req, res);
  if (path === '/livez') return sendJson(res, 200, { live: true });
  throw new HttpError(404, 'not found');
}

async function login(ctx, req, res) {
  // Fires if the client hangs up before we answer (see kdf.requestSignal).
  const signal = kdf.requestSignal(req, res);
  const { user, password } = await readCredentials(req);
  const record = ctx.users.get(user);
  // No such user: verifyUnknown() does the work of a failed verify of a hash
  // made with hashOptions (the parameters new hashes get), then answers false.
  const options = { ...ctx.hashOptions, signal };
  const ok = record
    ? await ctx.pool.verify(record.hash, password, options)
    : await ctx.pool.verifyUnknown(password, options);
  // The places the pool has left, for clients that pace themselves.
  if (!ok) return sendJson(res, 401, { error: 'invalid user or password' }, kdf.rateLimitHeaders(ctx.pool));
  await upgradeHash(ctx, record, record.hash, password, signal);
  return sendJson(res, 200, { user }, kdf.rateLimitHeaders(ctx.pool));
}

// Best effort: the password was right, so a failed upgrade (pool saturated,
// client gone) must not fail the login; the next login tries again. Done
// before answering, so the client's signal still covers the work.
async function upgradeHash(ctx, record, stored, password, signal) {
  if (!ctx.pool.needsRehash(stored, ctx.hashOptions)) return; // this pool's pepper and limits
  try {
    const fresh = await ctx.pool.hash(password, { ...ctx.hashOptions, signal });
    // Only replace the hash we verified: a concurrent login may have
    // upgraded it already, or the password may have changed meanwhile.
    if (record.hash === stored) record.hash = fresh;
  } catch (err) {
    if (err.name !== 'AbortError' && !(err instanceof kdf.PoolSaturatedError)) throw err;
  }
}

async function readCredentials(req) {
  const type = req.headers['content-type'] || 'application/json';
  if (!/^application\/json\b/.test(type)) throw new HttpError(415, 'send application/json');
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'body too large');
    chunks.push(chunk);
  }
  let body;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'body is not JSON');
  }
  const { user, password } = body || {};
  if (typeof user !== 'string' || typeof password !== 'string') {
    throw new HttpError(400, 'expected { "user": string, "password": string }');
  }
  if (password.length > MAX_PASSWORD_CHARS) throw new HttpError(400, 'password too long');
  return { user, password };
}

function sendJson(res, status, body, headers = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...headers,
  });
  res.end(text);
}

function sendError(res, err) {
  // The client hung up: there is nobody to answer.
  if (err.name === 'AbortError' || res.destroyed) return;
  if (res.headersSent) {
    res.destroy(err);
    return;
  }
  if (err instanceof kdf.PoolSaturatedError) {
    // 503 when this replica is full (a balancer retries another), 429 when
    // this client is over its share; err.headers has Retry-After (whole
    // seconds, never 0) and the RateLimit fields.
    sendJson(res, err.status, { error: 'busy, retry later', reason: err.reason, scope: err.scope }, err.headers);
    return;
  }
  if (err instanceof HttpError) {
    // We may not have read the whole body (413): do not reuse the connection.
    const headers = err.status === 413 ? { Connection: 'close' } : {};
    sendJson(res, err.status, { error: err.message }, headers);
    return;
  }
  console.error('login-server:', err);
  sendJson(res, 500, { error: 'internal error' });
}

module.exports = { start, stop };

if (require.main === module) {
  const port = process.argv[2] === undefined ? 3000 : Number(process.argv[2]);
  start({ port }).then((server) => {
    const { address, port: bound } = server.address();
    console.log(`login server on http://${address}:${bound} (users: ${DEMO_USERS.map((u) => u.user).join(', ')})`);
    const shutdown = () => stop(server).then(() => process.exit(0));
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
  }, (err) => {
    console.error(err);
    process.exit(1);
  });
}
