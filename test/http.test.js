'use strict';

// kdf.requestSignal(req[, res]) on a real node:http server: it fires when
// the client goes away before the response finished, and only then — not
// when the body has been read (the request's own 'close'), not on
// keep-alive connections that outlive the response — and leaves no
// listener behind.

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const { once } = require('node:events');
const kdf = require('..');
const { until } = require('./helpers/until');
const { gate } = require('./helpers/gate');

let server;
let port;
// Each request's handler parks its { req, res, signal } here.
const seen = [];
let onRequest = () => {};

before(async () => {
  server = http.createServer((req, res) => {
    const entry = { req, res, signal: kdf.requestSignal(req, req.url === '/nores' ? undefined : res) };
    seen.push(entry);
    onRequest(entry);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = server.address().port;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

function request(path, { agent = false, body } = {}) {
  const req = http.request({ port, host: '127.0.0.1', path, method: body === undefined ? 'GET' : 'POST', agent });
  req.on('error', () => {});
  return req;
}

test('keep-alive: answered requests never abort, and no listener stays behind', async () => {
  onRequest = ({ req, res }) => req.resume().on('end', () => res.end('ok'));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const start = seen.length;
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve, reject) => {
        const req = request('/', { agent, body: 'x' });
        req.on('response', (res) => res.resume().on('end', resolve)).on('error', reject);
        req.end('hello');
      });
    }
    const entries = seen.slice(start);
    assert.equal(entries.length, 3);
    assert.equal(entries[0].req.socket, entries[2].req.socket, 'one connection served all three');
    await until(() => entries.every((e) => e.res.listenerCount('close') === 0), 'listeners removed');
    for (const e of entries) assert.equal(e.signal.aborted, false);
    assert.ok(entries[2].req.socket.listenerCount('close') <= 2, 'nothing added per request to the socket');
  } finally {
    agent.destroy();
  }
});

test('body already read, response pending: not aborted until the client goes away', async () => {
  let entry;
  onRequest = (e) => {
    entry = e;
    e.req.resume(); // read the body; the request emits 'close' then
  };
  const req = request('/', { body: 'x' });
  req.end('a body');
  await until(() => entry !== undefined && entry.req.complete, 'the body read');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(entry.signal.aborted, false);
  req.destroy();
  await until(() => entry.signal.aborted, 'aborted when the client left');
  assert.equal(entry.signal.reason.name, 'AbortError');
});

test('client gone in the middle of the body: aborted', async () => {
  let entry;
  onRequest = (e) => {
    entry = e;
  };
  const req = request('/', { body: 'x' });
  req.setHeader('content-length', '1000');
  req.write('only part of it');
  await until(() => entry !== undefined, 'the request arrived');
  req.destroy();
  await until(() => entry.signal.aborted, 'aborted');
});

test('without res: found from the request (node:http attaches it)', async () => {
  let entry;
  onRequest = (e) => {
    entry = e;
  };
  const req = request('/nores');
  req.end();
  await until(() => entry !== undefined, 'the request arrived');
  assert.equal(entry.signal.aborted, false);
  req.destroy();
  await until(() => entry.signal.aborted, 'aborted');
});

test('after the response finished: never aborts; arguments are checked', async () => {
  let entry;
  onRequest = (e) => {
    entry = e;
    e.res.end('done');
  };
  await new Promise((resolve) => {
    const req = request('/');
    req.on('response', (res) => res.resume().on('end', resolve));
    req.end();
  });
  await until(() => entry.res.writableFinished, 'finished');
  const late = kdf.requestSignal(entry.req, entry.res);
  assert.equal(late.aborted, false);
  assert.throws(() => kdf.requestSignal(null), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => kdf.requestSignal({ once() {}, off() {} }), { code: 'ERR_INVALID_ARG_TYPE' });
});

test('usable with verify(): a hung-up client aborts the queued job', async () => {
  const pool = kdf.createPool({ threads: 1, name: 'http' });
  try {
    const stored = await pool.hash('pw', { memory: 64, passes: 1 });
    const busy = gate(pool);
    let result;
    onRequest = ({ res, signal }) => {
      result = pool.verify(stored, 'pw', { signal }).then(
        (ok) => { res.end(String(ok)); return ok; },
        (err) => err,
      );
    };
    const req = request('/');
    req.end();
    await until(() => result !== undefined && pool.stats().queued === 1, 'queued');
    req.destroy();
    const outcome = await result;
    assert.equal(outcome.name, 'AbortError');
    busy.release();
    assert.equal(await busy.done, undefined);
  } finally {
    await pool.close();
  }
});
