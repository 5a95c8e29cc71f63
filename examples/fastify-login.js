'use strict';

// A login endpoint on Fastify 5 that hashes on its own kdfpool pool.
//
//   npm install fastify kdfpool
//   node examples/fastify-login.js [port]       (default 3002, 127.0.0.1 only)
//   curl -i localhost:3002/login -H 'content-type: application/json' -d '{"user":"alice","password":"correct horse battery staple"}'
//
// The same shape as login-server.js, in Fastify: a dedicated pool with a
// bounded queue and a deadline; a refusal (PoolSaturatedError) answers 429
// with Retry-After through Fastify's default error handler, from the
// error's own status and headers; kdf.requestSignal(request.raw, reply.raw)
// so a client that hangs up frees its queue slot; verifyUnknown() makes an
// unknown user cost a failed verify; needsRehash() upgrades old hashes.

const Fastify = require('fastify');
const kdf = require('..');

const DEMO_USERS = [
  { user: 'alice', password: 'correct horse battery staple' },
  { user: 'bob', password: 'hunter2', legacy: { algorithm: 'pbkdf2-sha256', iterations: 100000 } },
];

// Fastify validates the body before the handler runs (400 otherwise).
const loginSchema = {
  body: {
    type: 'object',
    required: ['user', 'password'],
    properties: { user: { type: 'string' }, password: { type: 'string', maxLength: 1024 } },
  },
};

/** Options: port, threads, maxQueue, maxWaitMs, hashOptions, users. Resolves with the Fastify instance. */
async function start(options = {}) {
  const { port = 3002, threads, maxQueue = 16, maxWaitMs = 2000, hashOptions = {}, users = DEMO_USERS } = options;
  const pool = kdf.createPool({ name: 'flogin', threads, maxQueue, maxWaitMs });
  const table = new Map();
  for (const { user, password, legacy } of users) {
    table.set(user, { hash: await pool.hash(password, { ...(legacy || hashOptions), maxWaitMs: 0 }) });
  }

  const app = Fastify({ bodyLimit: 4096 });
  app.decorate('login', { pool, users: table });
  app.addHook('onClose', () => pool.close());

  app.post('/login', { schema: loginSchema }, async (request, reply) => {
    const { user, password } = request.body;
    // Fastify's request.raw / reply.raw are node's request and response.
    const signal = kdf.requestSignal(request.raw, reply.raw);
    const record = table.get(user);
    // No such user: the work of a failed verify at hashOptions, then false.
    const ok = record
      ? await pool.verify(record.hash, password, { ...hashOptions, signal })
      : await pool.verifyUnknown(password, { ...hashOptions, signal });
    if (!ok) return reply.code(401).send({ error: 'invalid user or password' });
    const stored = record.hash;
    if (pool.needsRehash(stored, hashOptions)) {
      try {
        const fresh = await pool.hash(password, { ...hashOptions, signal });
        if (record.hash === stored) record.hash = fresh;
      } catch (err) {
        if (err.name !== 'AbortError' && !(err instanceof kdf.PoolSaturatedError)) throw err;
      }
    }
    return { user };
  });

  // Fastify's default error handler answers from the error itself: a
  // kdfpool refusal 503 (full) or 429 (client over its share) with
  // Retry-After, a closed pool 503, a body that
  // fails the schema 400, anything without a status 500. Only a client that
  // hung up needs handling here: there is nobody to answer.
  app.setErrorHandler((err, request, reply) => {
    if (err.name === 'AbortError' || reply.raw.destroyed) return undefined;
    throw err; // to Fastify's default handler
  });

  await app.listen({ port, host: '127.0.0.1' });
  return app;
}

/** Closes the server, then the pool (onClose hook). */
function stop(app) {
  return app.close();
}

module.exports = { start, stop };

if (require.main === module) {
  start({ port: process.argv[2] === undefined ? 3002 : Number(process.argv[2]) }).then((app) => {
    console.log(`fastify login on http://127.0.0.1:${app.server.address().port}`);
    process.once('SIGINT', () => stop(app).then(() => process.exit(0)));
  }, (err) => {
    console.error(err);
    process.exit(1);
  });
}
