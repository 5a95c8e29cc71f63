#!/usr/bin/env node
'use strict';

// The service as a benchmark: one node `http` server with three routes,
// driven by autocannon on loopback, once per way of hashing logins.
//
//   /login   PBKDF2-SHA256, 100k iterations, 64-byte key (crypto.pbkdf2 or
//            kdf.pbkdf2), or a stored Argon2 hash checked with each Argon2
//            library's verify at that library's defaults
//   /static  a 4 KiB fs.readFile (four trips through libuv's thread pool)
//   /api     ~1 ms of JSON work on the event loop (no thread pool)
//
// Each row starts a fresh server process, so no row inherits another's
// threads, arenas or queues, and libuv's pool has its default 4 threads
// (UV_THREADPOOL_SIZE is removed from the server's environment). The parent
// drives all three routes at once and times every response:
//
//   /login   50 connections, each sending its next login as soon as the
//            last one is answered: more logins than the machine can hash,
//            so logins/s is the capacity left to them.
//   /static  200 req/s and /api 100 req/s, each from 20 single-connection
//            clients started 50 ms apart (autocannon paces per connection
//            and per second: each client sends its quota for the second
//            back to back, then waits). A fixed offered rate, not "as fast
//            as possible": a closed loop at full speed would make the event
//            loop itself the bottleneck, and its latency would only measure
//            its own queue.
//
// Inside the server, the readFile probe of bench/demo.js (bench/lib/probe.js)
// runs through the measured window, and the server reports its event-loop
// utilisation and CPU time.
//
// Two kinds of contention (issue 29), each row under both:
//
//   (a) loop   the load above and nothing else: the pool competes with the
//              service's own event loop. Goal for kdfpool's default:
//              /static p99 <= 2x the idle row's (and the goals below).
//   (b) hogs   the same, beside one busy process per CPU (`node -e
//              'for(;;){}'`) at the server's own nice value, i.e. nice 0
//              relative to the service, as a test suite or a batch job on
//              the same host would be. Goal: logins/s >= 1x what
//              crypto.pbkdf2 gets in the same setup.
//
// Every (row, kind) runs --repeat times (3 by default), interleaved: each
// repeat runs every kind, its rows in an order rotated by one per repeat,
// so a burst of outside load lands on different rows each time. Tables give
// the median of the repeats (and the range of logins/s); the 1-minute load
// average at the start of every run is reported, as other work on the
// machine moves every figure.
//
// The load generator must neither starve the server nor be starved by it
// (on 2 cores, a client that waits for a CPU adds that wait to every latency
// it reports). So it stays light (paced routes, ~350 requests/s in all; its
// CPU use is reported per row), and the server runs under `nice -n 5`
// (Linux), below the load generator, as if the clients were elsewhere.
// kdfpool's priorities are relative to the server's own, so each policy
// keeps its meaning. Latencies include requests still unanswered when the
// window closes, counted at their age then (a lower bound), so a stalled
// route cannot hide by answering nothing.
//
//   node bench/service.js                  all rows, ~12 s each, 3 repeats (about 20 minutes)
//   node bench/service.js --quick          ~3 s per row, 2 repeats (about 4 minutes)
//   node bench/service.js --repeat 5       repeats of every (row, kind)
//   node bench/service.js --kinds hogs     only one kind of contention (loop, hogs)
//   node bench/service.js --hog-nice 0     the busy processes' nice (default: the server's)
//   node bench/service.js --seconds 20     measured seconds per row
//   node bench/service.js --rows kdf-mixed,kdf-low
//                                          only these rows (idle and crypto always run:
//                                          the goals are relative to them)
//   node bench/service.js --server-nice 0  the server at the load generator's own priority
//   node bench/service.js --static-rps 2000 --api-rps 300
//                                          a busier event loop (defaults 200 and 100)
//   node bench/service.js --json           raw results as JSON on stdout
//
// Writes bench/service-results.md and bench/service.svg; the table also goes
// to stdout, progress to stderr.

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { performance, monitorEventLoopDelay } = require('node:perf_hooks');
const { promisify } = require('node:util');
const { setTimeout: sleep } = require('node:timers/promises');
const { percentile, median, fmtMs } = require('./stats');
const { probeUntil, loopDelay, LOOP_RESOLUTION_MS } = require('./lib/probe');

// ------------------------------------------------------------ settings

const LOGIN_CONNECTIONS = 50;
const STATIC_RPS = 200; // --static-rps
const API_RPS = 100; // --api-rps
const PACED_CLIENTS = 20; // per paced route, one connection each
const API_WORK_MS = 1; // event-loop work per /api request, calibrated once
const SERVER_NICE = 5; // the server runs this much below the load generator (--server-nice)
const PREWARM_REQUESTS = 100; // per paced route, before the load starts
const REQUEST_TIMEOUT_S = 60; // npm argon2's defaults queue logins for seconds

const PASSWORD = 'correct horse battery staple';
const PBKDF2 = { iterations: 100000, keylen: 64, digest: 'sha256' };

// The goals (issues 12 and 29): for the default policy, in the same run.
const GOALS = {
  loginVsCrypto: 0.95, // (a) login throughput >= 0.95x crypto.pbkdf2's
  staticP99Ms: 10, // (a) /static p99 <= 10 ms
  staticVsIdle: 2, // (a) /static p99 <= 2x its idle p99 (issue 29)
  apiVsIdle: 2, // (a) /api p99 <= 2x its idle p99
  probeFloorMs: 2, // (a) readFile probe p99 <= max(2 ms, 2x its idle p99)
  probeVsIdle: 2,
  hogsLoginVsCrypto: 1, // (b) login throughput >= 1x crypto.pbkdf2's beside busy processes (issue 29)
};

// The kinds of contention (see the header).
const KINDS = [
  { id: 'loop', label: '(a) the service\'s own event loop' },
  { id: 'hogs', label: '(b) and one busy process per CPU' },
];
// Rows run under (b) unless --rows names others: the baselines and every
// kdfpool priority with the same work as crypto.pbkdf2.
const HOG_ROWS = new Set(['idle', 'crypto', 'kdf-normal', 'kdf-low', 'kdf-idle', 'kdf-mixed', 'kdf-auto']);

// `login` names the server's /login implementation; null: no login load.
const ROWS = [
  { id: 'idle', label: 'idle (no logins)', login: null },
  { id: 'crypto', label: 'crypto.pbkdf2 (libuv pool)', login: 'crypto-pbkdf2' },
  { id: 'argon2', label: 'npm argon2 verify', login: 'argon2' },
  { id: 'node-rs', label: '@node-rs/argon2 verify', login: 'node-rs' },
  { id: 'kdf-normal', label: 'kdf.pbkdf2, priority normal', login: 'kdf-pbkdf2', priority: 'normal' },
  { id: 'kdf-low', label: 'kdf.pbkdf2, priority low', login: 'kdf-pbkdf2', priority: 'low' },
  { id: 'kdf-idle', label: 'kdf.pbkdf2, priority idle', login: 'kdf-pbkdf2', priority: 'idle' },
  { id: 'kdf-mixed', label: 'kdf.pbkdf2, priority mixed', login: 'kdf-pbkdf2', priority: 'mixed' },
  { id: 'kdf-auto', label: 'kdf.pbkdf2, priority auto', login: 'kdf-pbkdf2', priority: 'auto' },
  { id: 'kdf-argon2', label: 'kdf.verify (default pool)', login: 'kdf-verify' },
];
const PBKDF2_LOGINS = new Set(['crypto-pbkdf2', 'kdf-pbkdf2']);

// ------------------------------------------------------------ /api work

// A small user list, serialised and parsed again `reps` times: plain
// event-loop work of the kind an API handler does, with no thread pool.
const API_DOC = Array.from({ length: 100 }, (_, i) => ({
  id: i,
  name: `user-${i}`,
  email: `user-${i}@example.test`,
  roles: i % 3 ? ['reader'] : ['reader', 'writer'],
  score: i * 1.5,
  active: i % 2 === 0,
}));

function apiWork(reps) {
  let active = 0;
  for (let i = 0; i < reps; i++) {
    active = JSON.parse(JSON.stringify(API_DOC)).filter((u) => u.active).length;
  }
  return active;
}

// Repetitions for API_WORK_MS of work on this machine, measured before any
// server starts; every row then does the same work per request. Timed in
// CPU time, so that a busy machine (time spent waiting for a core) does not
// shrink the work.
function calibrateApi() {
  const probe = 50;
  apiWork(probe * 4); // warm up the JIT
  const msPerRep = median(Array.from({ length: 15 }, () => {
    const t = process.cpuUsage();
    apiWork(probe);
    const used = process.cpuUsage(t);
    return (used.user + used.system) / 1000 / probe;
  }));
  return { reps: Math.max(1, Math.round(API_WORK_MS / msPerRep)), msPerRep };
}

// ------------------------------------------------------------ the server (child)

// What /login runs. Returns { check: () => Promise<boolean>, params }.
async function makeLogin(kind, priority) {
  const salt = crypto.randomBytes(16);
  const { iterations, keylen, digest } = PBKDF2;
  const pbkdf2Params = `PBKDF2-${digest.toUpperCase()} ${iterations / 1000}k, ${keylen} B`;
  const phcParams = (phc) => phc.split('$').slice(1, 4).join(' ');
  switch (kind) {
    case 'crypto-pbkdf2': {
      const stored = crypto.pbkdf2Sync(PASSWORD, salt, iterations, keylen, digest);
      const pbkdf2 = promisify(crypto.pbkdf2);
      return {
        check: async () => crypto.timingSafeEqual(await pbkdf2(PASSWORD, salt, iterations, keylen, digest), stored),
        params: pbkdf2Params,
      };
    }
    case 'kdf-pbkdf2': {
      const kdf = require('..');
      // Before the pool's first use: a thread lowered by one policy cannot
      // be raised again without CAP_SYS_NICE.
      kdf.configure({ priority });
      const stored = crypto.pbkdf2Sync(PASSWORD, salt, iterations, keylen, digest);
      return {
        check: async () => crypto.timingSafeEqual(await kdf.pbkdf2(PASSWORD, salt, iterations, keylen, digest), stored),
        params: `${pbkdf2Params}, ${kdf.stats().threads} threads`,
        kdf,
      };
    }
    case 'argon2': {
      const argon2 = require('argon2');
      const stored = await argon2.hash(PASSWORD);
      return { check: () => argon2.verify(stored, PASSWORD), params: phcParams(stored) };
    }
    case 'node-rs': {
      const argon2 = require('@node-rs/argon2');
      const stored = await argon2.hash(PASSWORD);
      return { check: () => argon2.verify(stored, PASSWORD), params: phcParams(stored) };
    }
    case 'kdf-verify': {
      const kdf = require('..');
      const stored = await kdf.hash(PASSWORD);
      return {
        check: () => kdf.verify(stored, PASSWORD),
        params: `${phcParams(stored)}, priority ${kdf.stats().priority}`,
        kdf,
      };
    }
    default:
      return null;
  }
}

async function server(cfg) {
  const login = await makeLogin(cfg.login, cfg.priority);
  if (login) await login.check(); // starts the pool's threads before the load does

  const handlers = {
    '/login': (res) => {
      if (!login) return reply(res, 404, 'no login in this row');
      return login.check().then(
        (ok) => reply(res, ok ? 200 : 401, ok ? 'ok' : 'wrong password'),
        (err) => {
          if (err && err.code === 'ERR_KDF_POOL_SATURATED') {
            res.setHeader('Retry-After', String(Math.ceil(err.retryAfterMs / 1000)));
            return reply(res, 429, 'busy');
          }
          return reply(res, 500, String(err));
        },
      );
    },
    '/static': (res) => {
      fs.readFile(cfg.file, (err, data) => {
        if (err) reply(res, 500, String(err));
        else reply(res, 200, data, 'application/octet-stream');
      });
    },
    '/api': (res) => reply(res, 200, JSON.stringify({ active: apiWork(cfg.apiReps) }), 'application/json'),
  };
  const srv = http.createServer((req, res) => {
    const handle = handlers[req.url];
    if (handle) handle(res);
    else reply(res, 404, 'not found');
  });
  srv.keepAliveTimeout = 60000;
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));

  process.on('message', async (msg) => {
    if (msg.cmd !== 'measure') return;
    const t0 = performance.now();
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const stats0 = login && login.kdf ? login.kdf.stats() : null;
    const ticks0 = poolTicks();
    // The probe of bench/demo.js, readFile only. Under libuv-pool loads one
    // read can take longer than the whole window: report at the deadline,
    // with the read still in flight counted at its age.
    const rec = { readFile: [], lookup: [], pending: null };
    const deadline = t0 + msg.ms;
    const probing = probeUntil(deadline, cfg.file, { lookup: false, into: rec });
    await Promise.race([probing, sleep(msg.ms)]);
    const now = performance.now();
    const readFile = rec.readFile.slice();
    const unanswered = rec.pending ? now - rec.pending.since : null;
    const cpu = process.cpuUsage(cpu0);
    const seconds = (now - t0) / 1000;
    const stats1 = stats0 ? login.kdf.stats() : null;
    process.send({
      cmd: 'measured',
      readFile,
      unanswered,
      elu: performance.eventLoopUtilization(elu0).utilization,
      cpuCores: (cpu.user + cpu.system) / 1e6 / seconds,
      refused: stats1 ? stats1.refused - stats0.refused : 0,
      raised: raisedShare(ticks0, poolTicks()),
    });
  });
  process.send({ cmd: 'ready', port: srv.address().port, params: login ? login.params : '' });
}

// CPU time (clock ticks) of the pool's threads: its workers' own "kdf-"
// threads and, with priority 'auto', their "kdf+" twins (Linux; null
// elsewhere).
function poolTicks() {
  if (process.platform !== 'linux') return null;
  const ticks = { own: 0, twin: 0 };
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const comm = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8');
      if (!comm.startsWith('kdf')) continue;
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks[comm[3] === '+' ? 'twin' : 'own'] += Number(fields[11]) + Number(fields[12]);
    } catch {
      // the thread ended while we looked
    }
  }
  return ticks;
}

// The share of the pool's CPU time in the window that its twins used: how
// much of the work 'auto' ran raised (NaN without a pool or its data).
function raisedShare(t0, t1) {
  if (!t0 || !t1) return NaN;
  const own = t1.own - t0.own, twin = t1.twin - t0.twin;
  return own + twin > 0 ? twin / (own + twin) : NaN;
}

function reply(res, status, body, type = 'text/plain') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

// ------------------------------------------------------------ the load (parent)

function progress(msg) {
  process.stderr.write(`${msg}\n`);
}

// Starts the server for one row; resolves with { child, port, params }.
function startServer(cfg, serverNice) {
  const env = { ...process.env };
  delete env.UV_THREADPOOL_SIZE;
  const args = [__filename, '--server', JSON.stringify(cfg)];
  const nice = serverNice > 0 && process.platform === 'linux' && hasNice();
  const child = nice
    ? spawn('nice', ['-n', String(serverNice), process.execPath, ...args], { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, args, { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`server for ${cfg.login} exited with ${code}`)));
    child.once('message', (msg) => {
      child.removeAllListeners('exit');
      resolve({ child, port: msg.port, params: msg.params, nice: nice ? serverNice : 0 });
    });
  });
}

let niceAvailable;
function hasNice() {
  if (niceAvailable === undefined) {
    try {
      execFileSync('nice', ['-n', '0', 'true'], { stdio: 'ignore' });
      niceAvailable = true;
    } catch {
      niceAvailable = false;
    }
  }
  return niceAvailable;
}

// autocannon's own histograms are not used (every response is timed here),
// and building its default latency histogram (5 significant digits) takes
// ~20 ms: forty clients starting would stall this process for most of a
// second, and that stall would show in every latency. So all instances
// share one set of coarse histograms, built once.
let sharedHistograms;
function histograms() {
  if (!sharedHistograms) {
    const hdr = require('hdr-histogram-js');
    const build = () => hdr.build({ autoResize: true, lowestDiscernibleValue: 1, highestTrackableValue: 1e6, numberOfSignificantValueDigits: 1 });
    sharedHistograms = { latencies: build(), requests: build(), throughput: build() };
  }
  return sharedHistograms;
}

// One autocannon instance whose every response (and every request still
// unanswered) is timed here, so the window can be cut after the warm-up.
function stream(url, opts) {
  const autocannon = require('autocannon');
  const s = { done: [], errors: [], waiting: new Set() };
  const instance = autocannon({
    url,
    histograms: histograms(),
    timeout: REQUEST_TIMEOUT_S,
    duration: 3600, // stopped explicitly
    sampleInt: 100, // stop() takes effect at the next sample
    ...opts,
    setupClient(client) {
      // One request at a time per connection (no pipelining): the time it
      // was sent is the connection's own.
      const pending = { since: null };
      s.waiting.add(pending);
      client.on('request', () => { pending.since = performance.now(); });
      client.on('response', (status, bytes, ms) => {
        pending.since = null;
        s.done.push({ t: performance.now(), ms, status });
      });
      // After a timeout or a connection error the client reconnects and
      // sends again ('request' above); the failure itself is counted.
      client.on('timeout', () => s.errors.push({ t: performance.now() }));
      client.on('connError', () => s.errors.push({ t: performance.now() }));
    },
  });
  s.instance = instance;
  s.finished = new Promise((resolve) => instance.then(resolve, resolve));
  return s;
}

// Requests paced at `rps` for one route: PACED_CLIENTS single-connection
// clients, started evenly across a second so their bursts do not line up.
// `run.started` collects every stream so the row can stop them; once
// `run.closed`, clients still due to start never do.
function pacedStreams(url, rps, phaseMs, run) {
  const perClient = Math.max(1, Math.round(rps / PACED_CLIENTS));
  return Array.from({ length: PACED_CLIENTS }, (_, i) => {
    const at = phaseMs + (i * 1000) / PACED_CLIENTS;
    return sleep(at).then(() => {
      if (run.closed) return null;
      const s = stream(url, { connections: 1, connectionRate: perClient });
      run.started.push(s);
      return s;
    });
  });
}

// Latencies of one route in [t0, t1): responses that arrived in the window,
// plus requests still unanswered at t1 at their age then.
function routeStats(streams, t0, t1) {
  const ms = [];
  let ok = 0;
  let bad = 0;
  let unanswered = 0;
  for (const s of streams) {
    for (const r of s.done) {
      if (r.t < t0 || r.t >= t1) continue;
      ms.push(r.ms);
      if (r.status >= 200 && r.status < 300) ok++;
      else bad++;
    }
    bad += s.errors.filter((e) => e.t >= t0 && e.t < t1).length;
    for (const w of s.waiting) {
      if (w.since !== null && w.since < t1) {
        ms.push(t1 - w.since);
        unanswered++;
      }
    }
  }
  const seconds = (t1 - t0) / 1000;
  return {
    n: ms.length,
    ok,
    bad,
    unanswered,
    rps: ok / seconds,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.length ? Math.max(...ms) : NaN,
  };
}

async function prewarm(base) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (route) => new Promise((resolve, reject) => {
    http.get(`${base}${route}`, { agent }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject);
  });
  try {
    for (let i = 0; i < PREWARM_REQUESTS; i++) {
      await get('/static');
      await get('/api');
    }
  } finally {
    agent.destroy();
  }
}

// One busy process per CPU at `nice` (kind (b)); stopHogs() ends them.
const liveHogs = new Set();
process.on('exit', () => { for (const h of liveHogs) h.kill('SIGKILL'); });

function startHogs(count, nice) {
  return Array.from({ length: count }, () => {
    const args = [process.execPath, '-e', 'for (;;) {}'];
    const hog = nice > 0 && process.platform === 'linux' && hasNice()
      ? spawn('nice', ['-n', String(nice), ...args], { stdio: 'ignore' })
      : spawn(args[0], args.slice(1), { stdio: 'ignore' });
    liveHogs.add(hog);
    return hog;
  });
}

async function stopHogs(hogs) {
  await Promise.all(hogs.map((h) => new Promise((resolve) => {
    liveHogs.delete(h);
    if (h.exitCode !== null || h.signalCode !== null) return resolve();
    h.once('exit', resolve);
    h.kill('SIGKILL');
  })));
}

async function runRow(row, ctx, kind) {
  progress(`  ${kind === 'hogs' ? '(b) ' : '(a) '}${row.label} ...`);
  const load1 = os.loadavg()[0];
  const hogs = kind === 'hogs' ? startHogs(ctx.cpus, ctx.hogNice) : [];
  try {
    return { ...await serveRow(row, ctx), kind, load1, hogs: hogs.length };
  } finally {
    await stopHogs(hogs);
  }
}

async function serveRow(row, ctx) {
  const { child, port, params, nice } = await startServer({
    login: row.login, priority: row.priority, file: ctx.file, apiReps: ctx.api.reps,
  }, ctx.serverNice);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const base = `http://127.0.0.1:${port}`;
  const run = { started: [], closed: false };
  try {
    // A fresh server answers its first requests slowly (cold code, lazy
    // module loads); let that happen before any timed request.
    await prewarm(base);
    const login = row.login ? stream(`${base}/login`, { connections: LOGIN_CONNECTIONS }) : null;
    if (login) run.started.push(login);
    // /api's clients start half a step after /static's.
    const paced = [
      ...pacedStreams(`${base}/static`, ctx.staticRps, 0, run),
      ...pacedStreams(`${base}/api`, ctx.apiRps, 1000 / PACED_CLIENTS / 2, run),
    ];
    const staticStreams = Promise.all(paced.slice(0, PACED_CLIENTS));
    const apiStreams = Promise.all(paced.slice(PACED_CLIENTS));
    await sleep(ctx.warmupMs);

    const measured = new Promise((resolve) => {
      child.on('message', (msg) => { if (msg.cmd === 'measured') resolve(msg); });
    });
    // The load generator's own event-loop delay: had it waited for a CPU,
    // that wait would be in every latency it reports.
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    loop.enable();
    child.send({ cmd: 'measure', ms: ctx.seconds * 1000 });
    await sleep(ctx.seconds * 1000);
    loop.disable();
    const t1 = performance.now();
    const cpu = process.cpuUsage(cpu0);
    const server = await measured;

    const probeMs = server.unanswered === null ? server.readFile : [...server.readFile, server.unanswered];
    return {
      id: row.id,
      label: row.label,
      login: row.login,
      priority: row.priority || null,
      params,
      serverNice: nice,
      seconds: (t1 - t0) / 1000,
      routes: {
        login: login ? routeStats([login], t0, t1) : null,
        static: routeStats(await staticStreams, t0, t1),
        api: routeStats(await apiStreams, t0, t1),
      },
      probe: { n: probeMs.length, p50: percentile(probeMs, 50), p99: percentile(probeMs, 99), unanswered: server.unanswered !== null },
      serverElu: server.elu,
      serverCpuCores: server.cpuCores,
      loadgenCpuCores: (cpu.user + cpu.system) / 1e6 / ((t1 - t0) / 1000),
      loadgenDelayMs: { p99: loopDelay(loop, 99), max: loopDelay(loop, 100) },
      refused: server.refused,
      raised: server.raised,
    };
  } finally {
    // Clients first (a dead server would make them reconnect in a loop).
    run.closed = true;
    await Promise.all(run.started.map((s) => { s.instance.stop(); return s.finished; }));
    child.kill('SIGKILL');
    await exited;
  }
}

// ------------------------------------------------------------ medians

// Median of a field over runs (NaN when none has it).
function medianOf(runs, get) {
  return median(runs.map(get).filter(Number.isFinite));
}

// The runs of one (row, kind) -> one row of medians: each metric is the
// median of the per-run figures (a p99 is each run's p99, then the median
// of those), logins/s also with its range.
function aggregate(runs) {
  const first = runs[0];
  const route = (name) => {
    const rs = runs.map((r) => r.routes[name]).filter(Boolean);
    if (rs.length === 0) return null;
    const m = (f) => median(rs.map(f).filter(Number.isFinite));
    return {
      rps: m((x) => x.rps), p50: m((x) => x.p50), p99: m((x) => x.p99), max: m((x) => x.max),
      rpsMin: Math.min(...rs.map((x) => x.rps)), rpsMax: Math.max(...rs.map((x) => x.rps)),
      bad: rs.reduce((a, x) => a + x.bad, 0),
    };
  };
  return {
    id: first.id,
    kind: first.kind,
    label: first.label,
    login: first.login,
    priority: first.priority,
    params: first.params,
    serverNice: first.serverNice,
    hogs: first.hogs,
    runs: runs.length,
    routes: { login: route('login'), static: route('static'), api: route('api') },
    probe: { p99: medianOf(runs, (r) => r.probe.p99), unanswered: runs.some((r) => r.probe.unanswered) },
    serverElu: medianOf(runs, (r) => r.serverElu),
    serverCpuCores: medianOf(runs, (r) => r.serverCpuCores),
    loadgenCpuCores: Math.max(...runs.map((r) => r.loadgenCpuCores)),
    loadgenDelayMs: { p99: Math.max(...runs.map((r) => r.loadgenDelayMs.p99)), max: Math.max(...runs.map((r) => r.loadgenDelayMs.max)) },
    load1: medianOf(runs, (r) => r.load1),
    raised: medianOf(runs, (r) => r.raised),
    refused: runs.reduce((a, r) => a + r.refused, 0),
  };
}

// ------------------------------------------------------------ verdicts

// Goals against the same kind's idle and crypto.pbkdf2 rows: (a) every goal
// of issue 12 plus /static p99 <= 2x idle; (b) logins/s >= 1x crypto.pbkdf2.
function judge(rows) {
  const find = (id, kind) => rows.find((r) => r.id === id && r.kind === kind);
  const bounds = {};
  for (const { id: kind } of KINDS) {
    const idle = find('idle', kind);
    const ref = find('crypto', kind);
    const b = {
      loginRps: ref ? (kind === 'hogs' ? GOALS.hogsLoginVsCrypto : GOALS.loginVsCrypto) * ref.routes.login.rps : NaN,
      staticP99: kind === 'loop' ? GOALS.staticP99Ms : NaN,
      staticVsIdleP99: idle ? GOALS.staticVsIdle * idle.routes.static.p99 : NaN,
      apiP99: idle ? GOALS.apiVsIdle * idle.routes.api.p99 : NaN,
      probeP99: idle ? Math.max(GOALS.probeFloorMs, GOALS.probeVsIdle * idle.probe.p99) : NaN,
      idle,
      ref,
    };
    bounds[kind] = b;
    for (const r of rows.filter((x) => x.kind === kind)) {
      const login = r.routes.login;
      r.loginVsCrypto = login && ref && PBKDF2_LOGINS.has(r.login) ? login.rps / ref.routes.login.rps : NaN;
      r.staticVsIdle = idle ? r.routes.static.p99 / idle.routes.static.p99 : NaN;
      const loginCheck = Number.isFinite(r.loginVsCrypto) ? login.rps >= b.loginRps : null;
      r.checks = kind === 'loop'
        ? {
          // Only PBKDF2 rows do the same work as crypto.pbkdf2's.
          login: loginCheck,
          static: r.routes.static.p99 <= b.staticP99,
          staticVsIdle: r.id === 'idle' ? null : r.routes.static.p99 <= b.staticVsIdleP99,
          api: r.routes.api.p99 <= b.apiP99,
          probe: r.probe.p99 <= b.probeP99,
        }
        : { login: loginCheck };
      const all = Object.values(r.checks).filter((c) => c !== null);
      r.meetsAll = r.login !== null && PBKDF2_LOGINS.has(r.login) && all.every(Boolean);
    }
  }
  // Per kdfpool priority: both kinds at once.
  const priorities = [...new Set(rows.filter((r) => r.priority).map((r) => r.priority))].map((priority) => {
    const a = rows.find((r) => r.priority === priority && r.kind === 'loop' && r.login === 'kdf-pbkdf2');
    const b = rows.find((r) => r.priority === priority && r.kind === 'hogs' && r.login === 'kdf-pbkdf2');
    return { priority, a, b, both: Boolean(a && b && a.meetsAll && b.meetsAll) };
  });
  return { bounds, priorities };
}

// ------------------------------------------------------------ report

const mark = (c) => (c === null || c === undefined ? '–' : c ? '✔' : '✖');
const rps = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
const ratio = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');
const pct = (x) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : '–');

function markdownTable(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map((_, i) => (i === 0 ? '---' : '---:'))), ...rows.map(line)].join('\n');
}

const loginCell = (login, runs) => (login
  ? `${rps(login.rps)}${runs > 1 ? ` (${rps(login.rpsMin)}–${rps(login.rpsMax)})` : ''}`
  : '–');
const rowName = (row) => (row.params ? `${row.label} (${row.params})` : row.label);

function report(r) {
  const { bounds } = r.verdict;
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const loads = r.runs.map((x) => x.load1);
  const out = [];
  out.push('# Service benchmark (`npm run bench:service`)');
  out.push('');
  out.push(`${r.date}, node ${r.node}, ${r.cpus} CPUs (${r.variant}), load average ${load(r.loadBefore)} before and `
    + `${load(r.loadAfter)} after (1-minute load at the start of the runs: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)})`
    + `${r.quick ? ', --quick' : ''}; ${r.seconds} s measured per run after ${r.warmupMs / 1000} s of warm-up, `
    + `${r.repeat} interleaved repeats of every row and kind, medians; server under nice ${r.serverNice}`
    + `${r.kinds.includes('hogs') ? `, busy processes under nice ${r.hogNice}` : ''}.`);
  out.push('');
  out.push(`Load, all routes at once: /login ${LOGIN_CONNECTIONS} connections back to back `
    + `(PBKDF2 rows: ${PBKDF2.digest.toUpperCase()} ${PBKDF2.iterations} iterations, ${PBKDF2.keylen}-byte key); `
    + `/static ${r.staticRps} req/s (4 KiB fs.readFile); /api ${r.apiRps} req/s `
    + `(${r.api.reps} JSON round-trips, ~${fmtMs(r.api.reps * r.api.msPerRep)} ms). `
    + `Load generator: at most ${Math.round(Math.max(...r.rows.map((x) => x.loadgenCpuCores)) * 100)}% of one core, `
    + `its event-loop delay p99 at most ${fmtMs(Math.max(...r.rows.map((x) => x.loadgenDelayMs.p99)))} ms `
    + `(max ${fmtMs(Math.max(...r.rows.map((x) => x.loadgenDelayMs.max)))} ms).`);
  out.push('');

  if (r.kinds.includes('loop')) {
    const b = bounds.loop;
    out.push('## (a) Contention from the service\'s own event loop');
    out.push('');
    const headers = [
      'row', 'login/s', '× crypto', 'login p99', '/static p50', '/static p99', '× idle', '/api p50', '/api p99', 'readFile p99',
      'loop util', 'server CPU', 'load', 'raised', `login ≥ ${GOALS.loginVsCrypto}×`, `static ≤ ${fmtMs(b.staticP99)}`,
      `static ≤ ${GOALS.staticVsIdle}× idle`, `api ≤ ${fmtMs(b.apiP99)}`, `probe ≤ ${fmtMs(b.probeP99)}`,
    ];
    const rows = r.rows.filter((x) => x.kind === 'loop').map((row) => {
      const { login, static: st, api } = row.routes;
      return [
        rowName(row), loginCell(login, row.runs), ratio(row.loginVsCrypto), login ? fmtMs(login.p99) : '–',
        fmtMs(st.p50), fmtMs(st.p99), row.id === 'idle' ? '–' : ratio(row.staticVsIdle), fmtMs(api.p50), fmtMs(api.p99),
        `${fmtMs(row.probe.p99)}${row.probe.unanswered ? '+' : ''}`, pct(row.serverElu), row.serverCpuCores.toFixed(2),
        row.load1.toFixed(1), pct(row.raised), mark(row.checks.login), mark(row.checks.static), mark(row.checks.staticVsIdle),
        mark(row.checks.api), mark(row.checks.probe),
      ];
    });
    out.push(markdownTable(headers, rows));
    out.push('');
    out.push(`Goals: login ≥ ${GOALS.loginVsCrypto}× crypto.pbkdf2's ${rps(b.ref?.routes.login.rps)}/s; /static p99 ≤ ${GOALS.staticP99Ms} ms `
      + `and ≤ ${GOALS.staticVsIdle}× idle (${fmtMs(b.idle?.routes.static.p99)} ms); /api p99 ≤ ${GOALS.apiVsIdle}× idle `
      + `(${fmtMs(b.apiP99 / GOALS.apiVsIdle)} ms); readFile probe p99 ≤ max(${GOALS.probeFloorMs} ms, ${GOALS.probeVsIdle}× idle).`);
    out.push('');
  }
  if (r.kinds.includes('hogs')) {
    const b = bounds.hogs;
    out.push(`## (b) The same, beside one busy process per CPU (${r.cpus}, at the server's nice${r.hogNice !== r.serverNice ? ` + ${r.hogNice - r.serverNice}` : ''})`);
    out.push('');
    const headers = ['row', 'login/s', '× crypto', 'login p99', '/static p50', '/static p99', '/api p99', 'readFile p99',
      'loop util', 'server CPU', 'load', 'raised', `login ≥ ${GOALS.hogsLoginVsCrypto}×`];
    const rows = r.rows.filter((x) => x.kind === 'hogs').map((row) => {
      const { login, static: st, api } = row.routes;
      return [
        rowName(row), loginCell(login, row.runs), ratio(row.loginVsCrypto), login ? fmtMs(login.p99) : '–',
        fmtMs(st.p50), fmtMs(st.p99), fmtMs(api.p99), `${fmtMs(row.probe.p99)}${row.probe.unanswered ? '+' : ''}`,
        pct(row.serverElu), row.serverCpuCores.toFixed(2), row.load1.toFixed(1), pct(row.raised), mark(row.checks.login),
      ];
    });
    out.push(markdownTable(headers, rows));
    out.push('');
    out.push(`Goal: login ≥ ${GOALS.hogsLoginVsCrypto}× crypto.pbkdf2's ${rps(b.ref?.routes.login.rps)}/s in the same setup.`);
    out.push('');
  }
  out.push('## Per priority');
  out.push('');
  out.push(markdownTable(['kdfpool priority', '(a) every goal', '(a) /static p99 × idle', '(b) logins × crypto.pbkdf2', 'both'],
    r.verdict.priorities.map((v) => [
      `${v.priority}${v.priority === r.defaultPriority ? ' (default)' : ''}`,
      v.a ? mark(v.a.meetsAll) : '–', v.a ? ratio(v.a.staticVsIdle) : '–',
      v.b ? `${ratio(v.b.loginVsCrypto)} ${mark(v.b.meetsAll)}` : '–', mark(v.a && v.b ? v.both : null),
    ])));
  out.push('');
  out.push('Latencies in ms, medians over the repeats of each run\'s percentile; logins/s: median (range); "+": the '
    + 'probe\'s last read was still waiting when a window closed; loop util = the server\'s event-loop utilisation, '
    + 'server CPU = cores the server used, load = the median 1-minute load average at the start of the runs, '
    + 'raised = the share of the pool\'s CPU time its workers spent on their twins at the process\'s priority '
    + '(priority \'auto\': how often it judged them starved by other processes). '
    + 'Argon2 rows run each library\'s own defaults (parameters in the label), so their logins/s are not comparable '
    + 'with the PBKDF2 rows\' or with each other\'s.');
  out.push('');
  out.push('![service benchmark](service.svg)');
  return out.join('\n');
}

function chartSpec(r) {
  const { barPanels } = require('./lib/chart');
  const { bounds } = r.verdict;
  const loop = r.rows.filter((x) => x.kind === 'loop');
  const hogs = r.rows.filter((x) => x.kind === 'hogs');
  const labels = [...new Set([...loop, ...hogs].map((x) => x.label))];
  const rows = labels.map((label) => {
    const a = loop.find((x) => x.label === label);
    const b = hogs.find((x) => x.label === label);
    const any = a || b;
    return {
      label,
      pbkdf2: PBKDF2_LOGINS.has(any.login),
      login: a && a.routes.login ? a.routes.login.rps : NaN,
      static: a ? a.routes.static.p99 : NaN,
      api: a ? a.routes.api.p99 : NaN,
      probe: a ? a.probe.p99 : NaN,
      hogsLogin: b && b.routes.login ? b.routes.login.rps : NaN,
    };
  });
  const panels = [];
  if (loop.length) {
    const b = bounds.loop;
    panels.push(
      { field: 'login', title: '(a) logins/s (higher is better)', better: 'higher', goal: b.loginRps, goalLabel: `${GOALS.loginVsCrypto}× crypto.pbkdf2`, format: '.3~r', goalFor: (row) => row.pbkdf2 },
      { field: 'static', title: '(a) /static p99, ms (log)', log: true, better: 'lower', goal: Math.min(b.staticP99, b.staticVsIdleP99), goalLabel: `min(${b.staticP99} ms, 2× idle)`, format: '.3~r' },
      { field: 'api', title: '(a) /api p99, ms (log)', log: true, better: 'lower', goal: b.apiP99, goalLabel: `${GOALS.apiVsIdle}× idle`, format: '.3~r' },
      { field: 'probe', title: '(a) readFile probe p99, ms (log)', log: true, better: 'lower', goal: b.probeP99, goalLabel: 'max(2 ms, 2× idle)', format: '.3~r' },
    );
  }
  if (hogs.length) {
    panels.push({ field: 'hogsLogin', title: '(b) logins/s beside one busy process per CPU', better: 'higher', goal: bounds.hogs.loginRps, goalLabel: `${GOALS.hogsLoginVsCrypto}× crypto.pbkdf2`, format: '.3~r', goalFor: (row) => row.pbkdf2 });
  }
  return barPanels(rows, panels, {
    title: 'kdfpool service benchmark',
    subtitle: `${r.cpus} CPUs, node ${r.node}, ${r.seconds} s per run, medians of ${r.repeat}; `
      + 'argon2 rows at each library\'s defaults (not comparable logins/s)',
  });
}

// ------------------------------------------------------------ main

function parseArgs(argv) {
  const opt = {
    quick: argv.includes('--quick'),
    json: argv.includes('--json'),
    seconds: null,
    rows: null,
    serverNice: SERVER_NICE,
    hogNice: null,
    staticRps: STATIC_RPS,
    apiRps: API_RPS,
    repeat: null,
    kinds: KINDS.map((k) => k.id),
  };
  const value = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  if (value('--seconds') !== undefined) {
    opt.seconds = Number(value('--seconds'));
    if (!(opt.seconds > 0)) throw new Error('--seconds needs a positive number');
  }
  for (const [flag, key] of [['--static-rps', 'staticRps'], ['--api-rps', 'apiRps']]) {
    if (value(flag) === undefined) continue;
    opt[key] = Number(value(flag));
    if (!Number.isInteger(opt[key]) || opt[key] < PACED_CLIENTS) throw new Error(`${flag} needs an integer >= ${PACED_CLIENTS}`);
  }
  if (value('--server-nice') !== undefined) {
    opt.serverNice = Number(value('--server-nice'));
    if (!Number.isInteger(opt.serverNice) || opt.serverNice < 0 || opt.serverNice > 19) throw new Error('--server-nice needs 0..19');
  }
  if (value('--hog-nice') !== undefined) {
    opt.hogNice = Number(value('--hog-nice'));
    if (!Number.isInteger(opt.hogNice) || opt.hogNice < 0 || opt.hogNice > 19) throw new Error('--hog-nice needs 0..19');
  }
  if (value('--repeat') !== undefined) {
    opt.repeat = Number(value('--repeat'));
    if (!Number.isInteger(opt.repeat) || opt.repeat < 1) throw new Error('--repeat needs a positive integer');
  }
  if (value('--kinds') !== undefined) {
    opt.kinds = value('--kinds').split(',').map((k) => k.trim()).filter(Boolean);
    const unknown = opt.kinds.filter((k) => !KINDS.some((x) => x.id === k));
    if (unknown.length || opt.kinds.length === 0) throw new Error(`--kinds: one or more of ${KINDS.map((k) => k.id).join(', ')}`);
  }
  if (value('--rows') !== undefined) {
    opt.rows = value('--rows').split(',').map((s) => s.trim()).filter(Boolean);
    const unknown = opt.rows.filter((id) => !ROWS.some((row) => row.id === id));
    if (unknown.length) throw new Error(`unknown rows: ${unknown.join(', ')} (known: ${ROWS.map((row) => row.id).join(', ')})`);
  }
  return opt;
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === '--server') return server(JSON.parse(argv[1]));

  const opt = parseArgs(argv);
  const seconds = opt.seconds || (opt.quick ? 3 : 12);
  const warmupMs = opt.quick ? 1500 : 2000;
  const repeat = opt.repeat || (opt.quick ? 2 : 3);
  const hogNice = opt.hogNice === null ? opt.serverNice : opt.hogNice;
  const wanted = new Set(['idle', 'crypto', ...(opt.rows || ROWS.map((row) => row.id))]);
  const rows = ROWS.filter((row) => wanted.has(row.id));
  const rowsOf = (kind) => rows.filter((row) => kind === 'loop' || opt.rows || HOG_ROWS.has(row.id));
  const kinds = KINDS.map((k) => k.id).filter((k) => opt.kinds.includes(k));
  // Every repeat runs every kind (their order alternating) and, within a
  // kind, every row, in an order rotated by one more each repeat.
  const schedule = [];
  for (let rep = 0; rep < repeat; rep++) {
    for (const kind of rep % 2 ? [...kinds].reverse() : kinds) {
      const list = rowsOf(kind);
      const k = rep % list.length;
      for (const row of [...list.slice(k), ...list.slice(0, k)]) schedule.push([row, kind]);
    }
  }

  // The default priority, named in the table (a throwaway one-thread pool:
  // the default pool's own threads would outlive this look-up).
  const kdf = require('..');
  const probePool = kdf.createPool({ name: 'prio', threads: 1 });
  const defaultPriority = probePool.stats().priority;
  await probePool.close();
  for (const row of rows) if (row.priority === defaultPriority) row.label += ' (default)';

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-service-'));
  const file = path.join(dir, 'static-4k.bin');
  fs.writeFileSync(file, crypto.randomBytes(4096));
  try {
    const api = calibrateApi();
    const cpus = os.availableParallelism ? os.availableParallelism() : os.cpus().length;
    const r = {
      date: new Date().toISOString().slice(0, 16).replace('T', ' '),
      node: process.version,
      cpus,
      variant: `SHA ${require('../lib/native').variant('sha')}`,
      quick: opt.quick,
      seconds,
      warmupMs,
      repeat,
      kinds,
      serverNice: opt.serverNice,
      hogNice,
      api,
      staticRps: opt.staticRps,
      apiRps: opt.apiRps,
      defaultPriority,
      loadBefore: os.loadavg(),
      runs: [],
      rows: [],
    };
    progress(`service benchmark: ${schedule.length} runs (${repeat} repeats), ${seconds} s each after ${warmupMs / 1000} s of warm-up`);
    const ctx = {
      file, api, seconds, warmupMs, cpus, hogNice, serverNice: opt.serverNice, staticRps: opt.staticRps, apiRps: opt.apiRps,
    };
    for (const [row, kind] of schedule) r.runs.push(await runRow(row, ctx, kind));
    r.loadAfter = os.loadavg();
    for (const kind of kinds) {
      for (const row of rowsOf(kind)) r.rows.push(aggregate(r.runs.filter((x) => x.id === row.id && x.kind === kind)));
    }
    r.verdict = judge(r.rows);

    const md = report(r);
    fs.writeFileSync(path.join(__dirname, 'service-results.md'), `${md}\n`);
    const { writeSvg } = require('./lib/chart');
    await writeSvg(path.join(__dirname, 'service.svg'), chartSpec(r));
    if (opt.json) console.log(JSON.stringify(r, null, 2));
    else console.log(md);
    progress('wrote bench/service-results.md and bench/service.svg');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return undefined;
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
