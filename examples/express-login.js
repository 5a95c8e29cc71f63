'use strict';

// A login endpoint on Express 5 that hashes on its own kdfpool pool.
//
//   npm install express kdfpool
//   node examples/express-login.js [port]       (default 3001, 127.0.0.1 only)
//   curl -i localhost:3001/login -H 'content-type: application/json' -d '{"user":"alice","password":"correct horse battery staple"}'
//
// The same shape as login-server.js, in Express: a dedicated pool with a
// bounded queue and a deadline; a refusal (PoolSaturatedError) answers 429
// with Retry-After from the error's own status and headers, as Express's
// default handler would; kdf.requestSignal(req, res) so a client that hangs
// up frees its queue slot; verifyUnknown() makes an unknown user cost a
// failed verify; needsRehash() upgrades old hashes.

const express = require('express');
const kdf = require('..');

const MAX_PASSWORD_CHARS = 1024;
const DEMO_USERS = [
  { user: 'alice', password: 'correct horse battery staple' },
  { user: 'bob', password: 'hunter2', legacy: { algorithm: 'pbkdf2-sha256', iterations: 100000 } },
];

/** Options: port, threads, maxQueue, maxWaitMs, hashOptions, users. Resolves with the http.Server. */
async function start(options = {}) {
  const { port = 3001, threads, maxQueue = 16, maxWaitMs = 2000, hashOptions = {}, users = DEMO_USERS } = options;
  const pool = kdf.createPool({ name: 'xlogin', threads, maxQueue, maxWaitMs });
  const table = new Map();
  for (const { user, password, legacy } of users) {
    table.set(user, { hash: await pool.hash(password, { ...(legacy || hashOptions), maxWaitMs: 0 }) });
  }

  const app = express();
  app.use(express.json({ limit: '4kb' }));

  app.post('/login', async (req, res) => {
    const { user, password } = req.body || {};
    if (typeof user !== 'string' || typeof password !== 'string' || password.length > MAX_PASSWORD_CHARS) {
      return res.status(400).json({ error: 'expected { "user": string, "password": string }' });
    }
    const signal = kdf.requestSignal(req, res); // Express: req.res would do too
    const record = table.get(user);
    // No such user: the work of a failed verify at hashOptions, then false.
    const ok = record
      ? await pool.verify(record.hash, password, { ...hashOptions, signal })
      : await pool.verifyUnknown(password, { ...hashOptions, signal });
    if (!ok) return res.status(401).json({ error: 'invalid user or password' });
    const stored = record.hash;
    if (pool.needsRehash(stored, hashOptions)) {
      try {
        const fresh = await pool.hash(password, { ...hashOptions, signal });
        if (record.hash === stored) record.hash = fresh;
      } catch (err) {
        // Best effort: the password was right; the next login tries again.
        if (err.name !== 'AbortError' && !(err instanceof kdf.PoolSaturatedError)) throw err;
      }
    }
    return res.json({ user });
  });

  // Express 5 passes a rejected handler's error here. Status and headers
  // come from the error, as Express's own default handler takes them: a
  // kdfpool refusal is 503 (the pool is full) or 429 (this client is over
  // its share) with Retry-After, a closed pool 503, the body parser's
  // errors 400 or 413; anything without a status is a 500. This handler
  // only adds a JSON body, logs what is not for the client, and leaves
  // hung-up clients alone.
  app.use((err, req, res, next) => {
    if (err.name === 'AbortError' || res.destroyed) return undefined; // the client is gone
    if (res.headersSent) return next(err);
    const status = err.status >= 400 && err.status < 600 ? err.status : 500;
    if (status >= 500 && !err.expose) console.error('express-login:', err); // a refusal is not a server fault
    return res.status(status).set(err.headers || {}).json({ error: err.expose ? err.message : 'internal error' });
  });

  const server = await new Promise((resolve, reject) => {
    const s = app.listen(port, '127.0.0.1', (err) => (err ? reject(err) : resolve(s)));
  });
  server.login = { pool, users: table };
  return server;
}

/** Closes the server, then the pool. */
async function stop(server) {
  const closed = new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await closed;
  await server.login.pool.close();
}

module.exports = { start, stop };

if (require.main === module) {
  start({ port: process.argv[2] === undefined ? 3001 : Number(process.argv[2]) }).then((server) => {
    console.log(`express login on http://127.0.0.1:${server.address().port}`);
    process.once('SIGINT', () => stop(server).then(() => process.exit(0)));
  }, (err) => {
    console.error(err);
    process.exit(1);
  });
}
