'use strict';

// What the fleet tests (test/fleet/*.test.js) and the fleet bench
// (bench/fleet.js) share: replicas in processes of their own
// (test/fleet/replica.js), the real engines (nginx, HAProxy, Prometheus)
// run in the foreground on loopback ports chosen free at run time with
// configs made from the shipped ones in examples/deploy/, an open-loop
// login load and a flood, and their figures. Every process started here
// is a child of the caller, stopped by its pid (stopAll()).

const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const { USER, PASSWORD } = require('./replica');

const ROOT = path.join(__dirname, '..', '..');
const DEPLOY = path.join(ROOT, 'examples', 'deploy');
const ENGINES = { nginx: 'nginx', haproxy: 'haproxy', prometheus: 'prometheus', promtool: 'promtool' };
const SEARCH = (process.env.PATH || '').split(path.delimiter).concat(['/usr/sbin', '/usr/bin', '/sbin']);

/** The path of an engine's binary, or null when it is not installed. */
function engine(name) {
  for (const dir of SEARCH) {
    const file = path.join(dir, ENGINES[name]);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch { /* not here */ }
  }
  return null;
}

/** Why the named engines cannot run here ('' when they all can). */
function missingEngines(names) {
  const missing = names.filter((n) => engine(n) === null);
  return missing.length === 0 ? ''
    : `${missing.join(', ')} not installed (apt-get install nginx haproxy prometheus; scripts/setup.sh does it)`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const children = new Set();

// A child that is stopped by its pid: SIGTERM, then SIGKILL after 3 s.
function track(child, name) {
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const handle = {
    name,
    pid: child.pid,
    child,
    exited,
    stderr: '',
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        try { process.kill(child.pid, 'SIGTERM'); } catch { /* gone */ }
        const killer = setTimeout(() => { try { process.kill(child.pid, 'SIGKILL'); } catch { /* gone */ } }, 3000);
        await exited;
        clearTimeout(killer);
      }
      children.delete(handle);
    },
  };
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { if (handle.stderr.length < 20000) handle.stderr += d; });
  children.add(handle);
  return handle;
}

/** Stops every process started here, each by its pid. */
async function stopAll() {
  await Promise.all([...children].map((c) => c.stop()));
}

// [command, args] that runs node with `args`: pinned to CPU `place.cpu`
// when taskset (util-linux) is there and the machine has that CPU, and at
// nice `place.nice` when given (coreutils' nice).
function pinned(place, args) {
  let command = [process.execPath, ...args];
  const taskset = ['/usr/bin/taskset', '/bin/taskset'].find((f) => fs.existsSync(f));
  if (place && place.cpu !== undefined && taskset !== undefined && place.cpu < os.availableParallelism()) {
    command = [taskset, '-c', String(place.cpu), ...command];
  }
  if (place && place.nice !== undefined) command = ['nice', '-n', String(place.nice), ...command];
  return [command[0], command.slice(1)];
}

/**
 * A replica (test/fleet/replica.js) in its own process: { port, stop() }.
 * `env`: added to the environment (UV_THREADPOOL_SIZE for the pbkdf2 kind);
 * `place`: { cpu, nice } to run it on and at, if any.
 */
async function startReplica(options, env = {}, place = undefined) {
  const [command, args] = pinned(place, [path.join(__dirname, 'replica.js'), JSON.stringify(options)]);
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const handle = track(child, `replica ${options.kind}`);
  const lines = [];
  const waiters = [];
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    out += d;
    for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
      lines.push(out.slice(0, i));
      out = out.slice(i + 1);
    }
    while (lines.length && waiters.length) waiters.shift()(lines.shift());
  });
  const nextLine = () => new Promise((resolve, reject) => {
    if (lines.length) resolve(lines.shift());
    else waiters.push(resolve);
    handle.exited.then(({ code }) => reject(new Error(`replica exited (${code}): ${handle.stderr}`)));
  });
  handle.port = JSON.parse(await nextLine()).port;
  /** kdfpool replicas: holds (or releases) its threads; resolves with 'held' or 'released'. */
  handle.toggleHold = () => {
    process.kill(child.pid, 'SIGUSR2');
    return nextLine();
  };
  return handle;
}

/** Resolves once GET http://127.0.0.1:port/path answers `status` (bounded). */
async function waitForHttp(port, urlPath, status = 200, what = `port ${port}`, handle = undefined) {
  for (let i = 0; i < 400; i++) {
    const r = await request(port, 'GET', urlPath).catch(() => null);
    if (r !== null && r.status === status) return;
    if (handle && handle.child.exitCode !== null) throw new Error(`${what} exited: ${handle.stderr}`);
    await sleep(25);
  }
  throw new Error(`${what} never answered ${urlPath} with ${status}${handle ? `: ${handle.stderr}` : ''}`);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const LOGIN = JSON.stringify({ user: USER, password: PASSWORD });

/** One HTTP request: { status, headers, body, ms }; rejects on a socket error. */
function request(port, method, urlPath, body = undefined, timeoutMs = 15000) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request({
      host: '127.0.0.1', port, method, path: urlPath, agent,
      headers: body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text, ms: performance.now() - started }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** A login through `port`: { status, ms, retryAfter } (status 0: a socket error or `timeoutMs` passed). */
async function login(port, timeoutMs = 15000) {
  const started = performance.now();
  try {
    const r = await request(port, 'POST', '/login', LOGIN, timeoutMs);
    return { status: r.status, ms: r.ms, retryAfter: r.headers['retry-after'] };
  } catch {
    return { status: 0, ms: performance.now() - started, retryAfter: undefined };
  }
}

/**
 * Logins sent at `rate` per second for `ms`, open loop (each at its time,
 * whether or not earlier ones have answered, as users arrive), through
 * `ports` in turn. Resolves with every answer once all have come back.
 */
async function openLoop(ports, rate, ms) {
  const list = Array.isArray(ports) ? ports : [ports];
  const pending = [];
  const started = performance.now();
  const total = Math.max(1, Math.round((rate * ms) / 1000));
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(login(list[i % list.length]));
  }
  return Promise.all(pending);
}

/**
 * Keeps a replica saturated from beside the balancer (test/fleet/flood.js,
 * a process of its own): `inFlight` logins always in flight against its
 * port. Resolves with { stop() } once it runs.
 */
async function flood(port, inFlight, place = undefined) {
  const [command, args] = pinned(place, [path.join(__dirname, 'flood.js'), String(port), String(inFlight)]);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const handle = track(child, `flood ${port}`);
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    handle.exited.then(({ code }) => reject(new Error(`flood exited (${code}): ${handle.stderr}`)));
  });
  return handle;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** { n, success (share of 200s), p50, p99 (ms, every answer), statuses: { code: count } }. */
function summarize(answers) {
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b);
  const statuses = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] || 0) + 1;
  return {
    n: answers.length,
    success: answers.length === 0 ? NaN : (statuses[200] || 0) / answers.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    statuses,
  };
}

function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `kdfpool-${prefix}-`));
}

/** nginx in the foreground with examples/deploy/nginx.conf, its listen port and upstreams replaced. */
async function startNginx(replicaPorts) {
  const dir = tempDir('nginx');
  const port = await freePort();
  const conf = upstreams(fs.readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8'), /^(\s*server )10\.0\.0\.\d+:\d+( .*;)$/m,
    replicaPorts, (p, m) => `${m[1]}127.0.0.1:${p}${m[2]}`).replace(/listen 8080;/, `listen 127.0.0.1:${port};`);
  const file = path.join(dir, 'nginx.conf');
  fs.writeFileSync(file, conf);
  const child = spawn(engine('nginx'), ['-p', `${dir}/`, '-c', file, '-e', 'stderr',
    '-g', `daemon off; pid ${dir}/nginx.pid;`], { stdio: ['ignore', 'ignore', 'pipe'] });
  const handle = track(child, 'nginx');
  handle.port = port;
  handle.dir = dir;
  await waitForPort(port, handle);
  return handle;
}

/** HAProxy in the foreground with examples/deploy/haproxy.cfg, its bind port and servers replaced. */
async function startHaproxy(replicaPorts) {
  const dir = tempDir('haproxy');
  const port = await freePort();
  const conf = upstreams(fs.readFileSync(path.join(DEPLOY, 'haproxy.cfg'), 'utf8'), /^(\s*server r\d+ )10\.0\.0\.\d+:\d+(.*)$/m,
    replicaPorts, (p, m, i) => `${m[1].replace(/r\d+/, `r${i + 1}`)}127.0.0.1:${p}${m[2]}`).replace(/bind :8080/, `bind 127.0.0.1:${port}`);
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, conf);
  const child = spawn(engine('haproxy'), ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  const handle = track(child, 'haproxy');
  handle.port = port;
  handle.dir = dir;
  await waitForPort(port, handle);
  return handle;
}

// The config with its one run of example server lines (the first match of
// `line` and those right after it) replaced by one line per replica.
function upstreams(text, line, ports, make) {
  const lines = text.split('\n');
  const first = lines.findIndex((l) => line.test(l));
  if (first < 0) throw new Error('no server lines in the shipped config');
  let last = first;
  while (last + 1 < lines.length && line.test(lines[last + 1])) last++;
  const made = ports.map((p, i) => make(p, lines[first].match(line), i));
  lines.splice(first, last - first + 1, ...made);
  return lines.join('\n');
}

async function waitForPort(port, handle) {
  for (let i = 0; i < 400; i++) {
    const ok = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (handle.child.exitCode !== null) throw new Error(`${handle.name} exited: ${handle.stderr}`);
    await sleep(25);
  }
  throw new Error(`${handle.name} never listened on ${port}: ${handle.stderr}`);
}

/**
 * Prometheus in the foreground with examples/deploy/prometheus.yml and
 * kdfpool-rules.yml, scraping `targets` (ports) every `intervalS` seconds
 * (the shipped file says 5 s) and evaluating the rules as often.
 */
async function startPrometheus(targets, intervalS) {
  const dir = tempDir('prometheus');
  const port = await freePort();
  const shipped = fs.readFileSync(path.join(DEPLOY, 'prometheus.yml'), 'utf8');
  const conf = shipped
    .replace(/scrape_interval: \d+s/, `scrape_interval: ${intervalS}s`)
    .replace(/evaluation_interval: \d+s/, `evaluation_interval: ${intervalS}s`)
    .replace(/targets: \[[^\]]*\]/, `targets: [${targets.map((p) => `'127.0.0.1:${p}'`).join(', ')}]`);
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), conf);
  fs.copyFileSync(path.join(DEPLOY, 'kdfpool-rules.yml'), path.join(dir, 'kdfpool-rules.yml'));
  const child = spawn(engine('prometheus'), [
    `--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  const handle = track(child, 'prometheus');
  handle.port = port;
  handle.dir = dir;
  await waitForHttp(port, '/-/ready', 200, 'prometheus', handle);
  return handle;
}

/** An instant query through Prometheus's HTTP API: [{ metric, value }]. */
async function query(port, expr) {
  const r = await request(port, 'GET', `/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = JSON.parse(r.body);
  if (body.status !== 'success') throw new Error(`query ${expr}: ${r.body}`);
  return body.data.result.map((s) => ({ metric: s.metric, value: Number(s.value[1]) }));
}

/** Runs a command to its end: { status, stdout, stderr }. */
function run(name, args, cwd) {
  const r = spawnSync(engine(name), args, { cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// The balancer scenario of the fleet test and bench: three replicas of one
// kind behind one balancer, logins at `rate` per second through it. Idle
// and "one replica saturated" alternate in short slices, so that whatever
// else the machine runs meanwhile weighs on both alike; then every replica
// is saturated and a burst of logins beyond the fleet's places arrives at
// once.
//
// A saturated replica is one whose queue a flood from beside the balancer
// keeps full. On a fleet each replica has CPUs of its own, so one
// replica's saturation takes nothing from the others; here three share two
// CPUs. So a kdfpool replica's threads are held (SIGUSR2, see replica.js:
// no CPU) while its flood fills its queue: it refuses everything else at
// once, as it would on its own machine. A crypto.pbkdf2 replica has no
// queue to fill and nothing to refuse with: its flood keeps its libuv
// thread hashing, on CPU 0 with its hashing threads at nice 19 (the other
// two replicas share CPU 1), so that its work does not slow theirs.
const FLEET = {
  iterations: 20000, // PBKDF2-SHA256 per login: about 2 ms (kdfpool, SHA-NI) to 4 ms (crypto.pbkdf2) here
  // No deadline: a held replica's queued flood stays queued (a deadline
  // would shed it and free places that the balancer's logins then wait in).
  kdfpool: { threads: 1, maxQueue: 4, maxWaitMs: 0 },
  rate: 60, // logins/s through the balancer: well inside two replicas' capacity
  sliceMs: 600,
  slices: 4, // of each kind: 4 x 0.6 s x 60/s = 144 logins each
  burst: 40, // logins at once while all three are saturated: more than their 15 places
  floodInFlight: 8, // more than a replica's 5 places (1 thread, maxQueue 4)
};

const PLACES = [{ cpu: 0, niceWorkers: 19 }, { cpu: 1 }, { cpu: 1 }];

// Saturates replica `i` of `kind`: its flood, and for kdfpool its threads
// held. { pause(), resume(), stop() }.
async function saturate(kind, replicas, i, o) {
  const holds = kind === 'kdfpool';
  if (holds) assert.equal(await replicas[i].toggleHold(), 'held');
  const f = await flood(replicas[i].port, o.floodInFlight, { cpu: PLACES[i].cpu, nice: 19 });
  // A held replica is saturated once its queue is full: it refuses a login
  // at once (a login it queues instead is given up after 100 ms, which
  // cancels it: the flood takes the place).
  const full = async () => {
    for (let n = 0; holds && (await login(replicas[i].port, 100)).status !== 503; n++) {
      assert.ok(n < 2000, 'the flood to fill the held replica\'s queue');
      await sleep(5);
    }
  };
  await full();
  return {
    async pause() {
      process.kill(f.pid, 'SIGSTOP');
      if (holds) assert.equal(await replicas[i].toggleHold(), 'released');
      await sleep(50); // its queued logins drain (a few ms of work)
    },
    async resume() {
      if (holds) assert.equal(await replicas[i].toggleHold(), 'held');
      process.kill(f.pid, 'SIGCONT');
      await (holds ? full() : sleep(50)); // the flood fills its queue again
    },
    async stop() {
      process.kill(f.pid, 'SIGCONT');
      if (holds) await replicas[i].toggleHold();
      await f.stop();
    },
  };
}

/** { idle, oneFull, allFull } summaries of logins through `balancer` in front of `replicas` of `kind`. */
async function balancerPhases(kind, balancer, replicas, options = {}) {
  const o = { ...FLEET, ...options };
  await openLoop(balancer.port, o.rate, 300); // warm: connections, JIT
  const saturated = [await saturate(kind, replicas, 0, o)];
  try {
    const idle = [];
    const oneFull = [];
    for (let i = 0; i < o.slices; i++) {
      await saturated[0].pause();
      idle.push(...await openLoop(balancer.port, o.rate, o.sliceMs));
      await saturated[0].resume();
      oneFull.push(...await openLoop(balancer.port, o.rate, o.sliceMs));
    }
    saturated.push(await saturate(kind, replicas, 1, o), await saturate(kind, replicas, 2, o));
    await sleep(100);
    const burst = await Promise.all(Array.from({ length: o.burst }, () => login(balancer.port)));
    const allFull = summarize(burst);
    allFull.refusals = burst.filter((a) => a.status !== 200);
    return { idle: summarize(idle), oneFull: summarize(oneFull), allFull };
  } finally {
    await Promise.all(saturated.map((s) => s.stop()));
  }
}

/** Three replicas of `kind` ('kdfpool' or 'pbkdf2'), each hashing on one thread. */
function startFleet(kind) {
  const options = kind === 'kdfpool' ? { kind, iterations: FLEET.iterations, ...FLEET.kdfpool } : { kind, iterations: FLEET.iterations };
  // crypto.pbkdf2 on a libuv pool of one thread, as kdfpool's one.
  const env = kind === 'pbkdf2' ? { UV_THREADPOOL_SIZE: '1' } : {};
  return Promise.all(PLACES.map((place) => startReplica({ ...options, niceWorkers: place.niceWorkers }, env, place)));
}

// The autoscaling signal (examples/deploy/kdfpool-rules.yml), what the
// HPA (hpa.yaml: 700m) and KEDA (threshold 0.7) target, and the levels at
// which they act: up above the target plus the HPA's 10 % tolerance, down
// from two replicas to one below 0.7 x 1/2.
const SIGNAL = 'kdfpool:demand:avg';
const SCALE_UP = 0.77;
const SCALE_DOWN = 0.35;
const SIGNAL_FLEET = {
  iterations: 80000, // PBKDF2-SHA256 per login: about 8 ms here, some 120 logins/s a thread
  // A queue that absorbs a few hundred ms of a CPU taken by something else
  // (this machine is shared): refusals come from load, not from noise.
  kdfpool: { threads: 1, maxQueue: 32, maxWaitMs: 1000 },
  // The load per replica, as a share of one replica's capacity, and how
  // long each step lasts at most (ms); `until` ends it early.
  steps: [
    { share: 0.4, ms: 4000 },
    { share: 0.85, ms: 25000, until: 'up' },
    { share: 1.3, ms: 30000, until: 'up', overload: true, atLeastMs: 3000 },
    { share: 0.15, ms: 40000, until: 'down' },
  ],
};

// Completed logins per second of each replica with all of them saturated
// at once (closed loop, `inFlight` each): one replica's capacity, the
// mean of them.
async function capacity(ports, inFlight, ms) {
  let done = 0;
  const end = performance.now() + ms;
  const worker = async (port) => {
    while (performance.now() < end) if ((await login(port)).status === 200) done++;
  };
  await Promise.all(ports.flatMap((port) => Array.from({ length: inFlight }, () => worker(port))));
  return done / ports.length / (ms / 1000);
}

/**
 * Two replicas, Prometheus scraping them every `intervalS` s, the load
 * stepped through SIGNAL_FLEET.steps in 1 s chunks, the signal read after
 * each. { capacity, samples: [{ t, value, share }], overloadAt, crossedUpAt,
 * refusedShareAtCrossing, dropAt, crossedDownAt } (times in ms from the start).
 */
async function autoscalingSignal({ intervalS = 1, steps = SIGNAL_FLEET.steps } = {}) {
  const o = { ...SIGNAL_FLEET, steps };
  const replicas = await Promise.all([0, 1].map((cpu) => startReplica({ kind: 'kdfpool', iterations: o.iterations, ...o.kdfpool },
    {}, { cpu })));
  const ports = replicas.map((r) => r.port);
  const prom = await startPrometheus(ports, intervalS);
  try {
    const perReplica = await capacity(ports, 6, 2000);
    const started = performance.now();
    const now = () => performance.now() - started;
    const run = {
      capacity: perReplica, samples: [], overloadAt: null, crossedUpAt: null, refusedShareAtCrossing: null,
      dropAt: null, crossedDownAt: null, logins: 0, refused: 0,
    };
    for (const step of o.steps) {
      const from = now();
      if (step.overload) run.overloadAt = from;
      if (step.until === 'down') run.dropAt = from;
      for (;;) {
        const answers = await openLoop(ports, step.share * perReplica * ports.length, 1000);
        const refused = answers.filter((a) => a.status !== 200).length;
        run.logins += answers.length;
        run.refused += refused;
        const [point] = await query(prom.port, SIGNAL);
        const value = point === undefined ? NaN : point.value;
        run.samples.push({ t: now(), value, share: step.share, logins: answers.length, refused });
        if (run.crossedUpAt === null && value > SCALE_UP) {
          run.crossedUpAt = now();
          run.refusedShareAtCrossing = run.refused / run.logins;
        }
        if (run.dropAt !== null && run.crossedDownAt === null && value < SCALE_DOWN) run.crossedDownAt = now();
        const lasted = now() - from;
        const reached = (step.until === 'up' && run.crossedUpAt !== null) || (step.until === 'down' && run.crossedDownAt !== null);
        if (lasted >= step.ms || (reached && lasted >= (step.atLeastMs || 0))) break;
      }
    }
    return run;
  } finally {
    await prom.stop();
    await Promise.all(replicas.map((r) => r.stop()));
  }
}

/** One line of figures for a run of autoscalingSignal(). */
function describeSignal(run) {
  const s = (ms) => (ms === null ? 'never' : `${(ms / 1000).toFixed(1)} s`);
  const lead = run.crossedUpAt === null ? 'never' : `${((run.crossedUpAt - run.overloadAt) / 1000).toFixed(1)} s`;
  return `capacity ${run.capacity.toFixed(0)} logins/s a replica; ${SIGNAL} crossed ${SCALE_UP} at ${s(run.crossedUpAt)} `
    + `(load over capacity from ${s(run.overloadAt)}: ${lead} after it), ${(run.refusedShareAtCrossing * 100).toFixed(2)} % `
    + `refused by then; load dropped at ${s(run.dropAt)}, below ${SCALE_DOWN} at ${s(run.crossedDownAt)}; `
    + `signal (refused) ${run.samples.map((p) => `${p.value.toFixed(2)}${p.refused ? ` (${p.refused})` : ''}`).join(' ')}`;
}

module.exports = {
  SIGNAL, SCALE_UP, SCALE_DOWN, SIGNAL_FLEET, autoscalingSignal, describeSignal,
  FLEET, startFleet, balancerPhases,
  DEPLOY, engine, missingEngines, freePort, startReplica, waitForHttp, request, login, openLoop, flood, summarize,
  startNginx, startHaproxy, startPrometheus, query, run, stopAll, percentile,
};
