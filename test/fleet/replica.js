'use strict';

// One login replica for the fleet tests and the fleet bench, in a process
// of its own: `node test/fleet/replica.js '<json options>'` prints
// {"port": N} on its first line once it listens on 127.0.0.1, and stops on
// SIGTERM. Options:
//   kind: 'kdfpool'  examples/login-server.js (POST /login, /readyz,
//                    /livez, /metrics) hashing PBKDF2-SHA256 on a pool of
//                    `threads` threads, `maxQueue`, `maxWaitMs`;
//   kind: 'pbkdf2'   the same login on crypto.pbkdf2, as a service without
//                    kdfpool runs it: on libuv's pool (UV_THREADPOOL_SIZE
//                    is the caller's to set), never refusing, /readyz
//                    always 200.
//   iterations       PBKDF2-SHA256 iterations of the stored hash (both).
//   niceWorkers      if set, every thread but the JS thread (the hashing
//                    threads, kdfpool's or libuv's, and V8's) runs at this
//                    nice: a replica that hashes only with CPU the others
//                    leave, while its JS thread answers at once.
// The one user is alice, password 'correct horse battery staple'.
//
// SIGUSR2 toggles a hold on a kdfpool replica's threads (test builds'
// gates: a held thread runs nothing and burns no CPU), printing "held" or
// "released": with its queue filled by a flood, the replica is saturated
// as it would be on machines of its own, and refuses every further call
// at once, without taking the CPUs this machine's other replicas share.

const http = require('node:http');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const { promisify } = require('node:util');

const USER = 'alice';
const PASSWORD = 'correct horse battery staple';

async function startKdfpool(o) {
  const { start, stop } = require('../../examples/login-server');
  const server = await start({
    port: 0,
    threads: o.threads,
    maxQueue: o.maxQueue,
    maxWaitMs: o.maxWaitMs,
    priority: o.niceWorkers === undefined ? undefined : 'normal', // then reniced below, as libuv's are
    hashOptions: { algorithm: 'pbkdf2-sha256', iterations: o.iterations },
    users: [{ user: USER, password: PASSWORD }],
    readiness: o.readiness,
  });
  let gates = null;
  const toggleHold = () => {
    const { gate } = require('../helpers/gate');
    if (gates === null) {
      gates = Array.from({ length: server.login.pool.stats().threads }, () => gate(server.login.pool));
      for (const g of gates) g.done.catch(() => {});
      return 'held';
    }
    for (const g of gates) g.release();
    gates = null;
    return 'released';
  };
  return { port: server.address().port, stop: () => stop(server), toggleHold };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function startPbkdf2(o) {
  const salt = crypto.randomBytes(16);
  const stored = crypto.pbkdf2Sync(PASSWORD, salt, o.iterations, 32, 'sha256');
  const server = http.createServer(async (req, res) => {
    const path = req.url.split('?')[0];
    if (path === '/readyz' || path === '/livez') return send(res, 200, { ready: true });
    if (path !== '/login' || req.method !== 'POST') return send(res, 404, { error: 'not found' });
    let creds;
    try {
      creds = JSON.parse(await readBody(req));
    } catch {
      return send(res, 400, { error: 'body is not JSON' });
    }
    crypto.pbkdf2(String(creds.password), salt, o.iterations, 32, 'sha256', (err, key) => {
      if (err) return send(res, 500, { error: 'internal error' });
      const ok = creds.user === USER && crypto.timingSafeEqual(key, stored);
      return ok ? send(res, 200, { user: USER }) : send(res, 401, { error: 'invalid user or password' });
    });
    return undefined;
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    stop: () => new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    }),
  };
}

// Every thread of this process but the JS thread (whose id is the pid).
function reniceWorkers(nice) {
  for (const tid of fs.readdirSync('/proc/self/task').map(Number)) {
    if (tid !== process.pid) os.setPriority(tid, nice);
  }
}

async function main() {
  const o = JSON.parse(process.argv[2] || '{}');
  const replica = o.kind === 'pbkdf2' ? await startPbkdf2(o) : await startKdfpool(o);
  if (o.niceWorkers !== undefined) {
    await promisify(crypto.pbkdf2)('warm', 'libuv pool', 1, 32, 'sha256'); // libuv's threads exist from here
    reniceWorkers(o.niceWorkers);
  }
  process.stdout.write(`${JSON.stringify({ port: replica.port })}\n`);
  if (replica.toggleHold) process.on('SIGUSR2', () => process.stdout.write(`${replica.toggleHold()}\n`));
  process.once('SIGTERM', () => {
    replica.stop().then(() => process.exit(0), () => process.exit(1));
  });
}

module.exports = { USER, PASSWORD };

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
