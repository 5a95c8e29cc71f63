'use strict';

// Express 5 and Fastify 5 apps with no error-handling code, on loopback:
// their default error handlers answer kdfpool's refusal (a full pool) with
// 503 and Retry-After, a closed pool with 503 without it, and a stored
// hash over the limits with 500. The same for a plain node:http server
// whose one generic handler reads the http-errors fields, as any such
// handler does.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { once } = require('node:events');
const kdf = require('..');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');

// /busy: a pool whose one thread is held and which lets nothing wait, so
// every call is refused; /closed: a closed pool; /limits: a stored bcrypt
// hash at cost 31, over the default limits.
let busy;
let held;
let closed;
let overLimits;

before(async () => {
  busy = kdf.createPool({ name: 'fwbusy', threads: 1, maxQueue: 0 });
  held = gate(busy);
  held.done.catch(() => {});
  await until(() => busy.stats().running === 1, 'the gate to hold the thread');
  closed = kdf.createPool({ name: 'fwshut', threads: 1 });
  await closed.close();
  overLimits = kdf.hashSync('pw', { algorithm: 'bcrypt', cost: 4 }).replace('$04$', '$31$');
});

after(async () => {
  held.release();
  await busy.close();
});

// What each route does, as an app's handler would (no try/catch).
const routes = {
  '/busy': () => busy.hash('pw', { algorithm: 'bcrypt', cost: 4 }),
  '/closed': () => closed.hash('pw'),
  '/limits': () => kdf.verify(overLimits, 'pw'),
};

async function listen(server) {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server.address().port;
}

function get(port, path) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    }).on('error', reject);
  });
}

// The same three answers from every server.
async function checkAnswers(port) {
  const refused = await get(port, '/busy');
  assert.equal(refused.status, 503);
  assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/);
  const shut = await get(port, '/closed');
  assert.equal(shut.status, 503);
  assert.equal(shut.headers['retry-after'], undefined);
  const limited = await get(port, '/limits');
  assert.equal(limited.status, 500);
  return { refused, shut, limited };
}

test('Express 5, default error handler', async () => {
  const express = require('express');
  assert.match(require('express/package.json').version, /^5\./);
  const app = express();
  for (const [path, run] of Object.entries(routes)) {
    app.get(path, async (req, res) => { res.json(await run()); });
  }
  const server = http.createServer(app);
  try {
    await checkAnswers(await listen(server));
  } finally {
    server.close();
  }
});

test('Fastify 5, default error handler', async () => {
  const fastify = require('fastify')({ logger: false });
  assert.match(fastify.version, /^5\./);
  for (const [path, run] of Object.entries(routes)) fastify.get(path, async () => run());
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { refused, shut, limited } = await checkAnswers(fastify.server.address().port);
    // Fastify shows the client its statusCode, code and message.
    assert.equal(JSON.parse(refused.body).code, 'ERR_KDF_POOL_SATURATED');
    assert.equal(JSON.parse(shut.body).code, 'ERR_KDF_POOL_CLOSED');
    assert.equal(JSON.parse(limited.body).statusCode, 500);
  } finally {
    await fastify.close();
  }
});

test('node:http with a generic http-errors-aware handler', async () => {
  const server = http.createServer((req, res) => {
    routes[req.url]().then((value) => res.end(JSON.stringify(value)), (err) => {
      const status = err.statusCode || err.status || 500;
      res.writeHead(status, { ...(err.headers || {}), 'content-type': 'text/plain' });
      res.end(err.expose ? err.message : http.STATUS_CODES[status]);
    });
  });
  try {
    const { refused, shut } = await checkAnswers(await listen(server));
    assert.match(refused.body, /saturated/); // expose: a 4xx's message is for the client
    assert.equal(shut.body, 'Service Unavailable'); // not a 5xx's
  } finally {
    server.close();
  }
});
