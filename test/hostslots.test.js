'use strict';

// hostSlots: one budget of running jobs per host, shared by every process
// (and pool) that uses the same key. The bound is checked from the pool
// threads' own run intervals (native.testing.runLog: one per job, or per batch of
// PBKDF2 jobs run interleaved by one thread; monotonic clock, one clock for
// every process on Linux), merged across a node:cluster of 4 workers; a control
// run without hostSlots shows that the same measure does see more than
// `slots` at once. A worker killed with SIGKILL while it holds every slot
// must not keep them. No timing asserts: waits are for states the test
// causes, and hangs end at the test timeout.

const test = require('node:test');
const assert = require('node:assert/strict');
const cluster = require('node:cluster');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const kdf = require('..');
const { until } = require('./helpers/until');
const { gate } = require('./helpers/gate');
const native = require('../lib/native');
const { dirFor } = require('../lib/hostslots');
const { scaled } = require('./helpers/scale');

const WORKER = path.join(__dirname, 'helpers', 'hostslots-worker.js');
// A key of this run only: other runs on the machine must not share slots.
const KEY = `kdfpool-test-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
const SHORT = scaled(20_000, 2_000); // ~2 ms: many hand-overs between processes
const HOLD = 2_000_000_000; // never ends by itself: the holder is killed
const LONG_KEY = `../${'x'.repeat(253)}`; // 256 bytes, and not a path

// The lock directories this file made go when it ends (every pool is
// closed by then); the one in a temporary XDG_RUNTIME_DIR goes with it.
test.after(() => {
  for (const key of [KEY, `${KEY}-two`, `${KEY}-wait`, `${KEY}-conf`, `${KEY}-conf-2`, `${KEY}-share`, LONG_KEY]) {
    fs.rmSync(dirFor(key), { recursive: true, force: true });
  }
});

// Most jobs running at one instant, from [start, end, start, end, ...]
// lists. Ends sort before starts at the same instant (a slot is given back
// after its job's end and taken before the next job's start).
function maxOverlap(lists) {
  const events = [];
  for (const runs of lists) {
    for (let i = 0; i < runs.length; i += 2) events.push([runs[i], 1], [runs[i + 1], -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0, max = 0;
  for (const [, d] of events) max = Math.max(max, (now += d));
  return max;
}

function fork(env) {
  cluster.setupPrimary({ exec: WORKER, silent: false });
  const w = cluster.fork({ HS_KEY: KEY, HS_SLOTS: '2', HS_THREADS: '2', ...env });
  w.messages = [];
  w.waiters = [];
  w.on('message', (m) => {
    w.messages.push(m);
    for (const waiter of w.waiters.splice(0)) waiter();
  });
  return w;
}

// The next message of `kind` from worker w (messages are kept, so none is missed).
async function next(w, kind) {
  for (;;) {
    const i = w.messages.findIndex((m) => m.kind === kind || m.kind === 'error');
    if (i >= 0) {
      const [m] = w.messages.splice(i, 1);
      if (m.kind === 'error') assert.fail(`worker ${m.pid}: ${m.message}`);
      return m;
    }
    await new Promise((resolve) => w.waiters.push(resolve));
  }
}

function exited(w) {
  return new Promise((resolve) => (w.isDead() ? resolve() : w.once('exit', resolve)));
}

async function stop(workers) {
  await Promise.all(workers.map((w) => {
    const gone = exited(w);
    if (!w.isDead()) w.disconnect();
    return gone;
  }));
}

const expected = (i, it) => crypto.pbkdf2Sync(`pw${i}`, 'salt', it, 32, 'sha256').toString('hex');

// Runs `jobs` jobs in each of 4 workers at once; returns their reports.
async function clusterRun(env, jobs, iterations = SHORT) {
  const workers = Array.from({ length: 4 }, () => fork(env));
  try {
    await Promise.all(workers.map((w) => next(w, 'ready')));
    for (const w of workers) w.send({ cmd: 'run', jobs, iterations });
    return await Promise.all(workers.map((w) => next(w, 'done')));
  } finally {
    await stop(workers);
  }
}

test('hostSlots across a cluster of 4 workers', { timeout: 120_000 }, async (t) => {
  const JOBS = 16;

  await t.test('slots = 2: never more than 2 jobs run at once on the host, and every job settles', async () => {
    const reports = await clusterRun({}, JOBS);
    for (const r of reports) {
      assert.equal(r.dropped, 0);
      assert.ok(r.runs.length >= 2 && r.runs.length <= 2 * JOBS); // batches: fewer runs than jobs
      assert.deepEqual(r.results, Array.from({ length: JOBS }, (_, i) => expected(i, SHORT)));
      assert.equal(r.stats.hostSlots.key, KEY);
      assert.equal(r.stats.hostSlots.slots, 2);
      assert.equal(r.stats.completed, JOBS);
    }
    // 64 jobs from 8 threads: both slots are in use at some point, and
    // never more (a batch is one thread's work, and holds one slot).
    assert.equal(maxOverlap(reports.map((r) => r.runs)), 2);
  });

  await t.test('control: without hostSlots the same measure sees more than 2 at once', async () => {
    // Longer jobs: the workers' runs must overlap however late each one
    // hears 'run' on a loaded machine (PBKDF2 batches end a 16-job load fast).
    const reports = await clusterRun({ HS_SLOTS: '0' }, JOBS, scaled(400_000, 100_000));
    for (const r of reports) assert.equal(r.stats.hostSlots, null);
    const max = maxOverlap(reports.map((r) => r.runs));
    assert.ok(max > 2, `at most ${max} at once`);
  });

  await t.test('a worker killed with SIGKILL while it holds every slot gives them back', async () => {
    // The survivors join first (they are members, idle), then the victim
    // takes both slots with jobs that would run for minutes.
    const survivors = Array.from({ length: 3 }, () => fork({}));
    try {
      await Promise.all(survivors.map((w) => next(w, 'ready')));
      const victim = fork({});
      await next(victim, 'ready');
      victim.send({ cmd: 'hold', iterations: HOLD });
      const holding = await next(victim, 'holding');
      assert.equal(holding.stats.hostSlots.held, 2);
      assert.equal(holding.stats.hostSlots.members, 4);
      const gone = exited(victim);
      victim.process.kill('SIGKILL');
      await gone;
      // Were the slots leaked, no survivor job could ever start (timeout).
      for (const w of survivors) w.send({ cmd: 'run', jobs: 6, iterations: SHORT });
      const reports = await Promise.all(survivors.map((w) => next(w, 'done')));
      for (const r of reports) {
        assert.deepEqual(r.results, Array.from({ length: 6 }, (_, i) => expected(i, SHORT)));
      }
      assert.ok(maxOverlap(reports.map((r) => r.runs)) <= 2);
      // The dead member's lock went with it. (Counts are cached for a
      // moment, so ask until the count is a fresh one.)
      for (let i = 0; ; i++) {
        survivors[0].send({ cmd: 'stats' });
        const { stats } = await next(survivors[0], 'stats');
        if (stats.hostSlots.members === 3) break;
        assert.ok(i < 200, `members still ${stats.hostSlots.members}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await stop(survivors);
    }
  });
});

// ---------------------------------------------------------------- one process

function codeOf(fn) {
  try {
    fn();
  } catch (err) {
    return err.code;
  }
  return 'no error';
}

test('hostSlots is off by default', () => {
  assert.equal(kdf.stats().hostSlots, null);
  const p = kdf.createPool({ threads: 1 });
  assert.equal(p.stats().hostSlots, null);
  return p.close();
});

test('hostSlots option validation', async () => {
  const bad = [
    [5, 'ERR_INVALID_ARG_TYPE'],
    [[], 'ERR_INVALID_ARG_TYPE'],
    [{ key: 'k' }, 'ERR_INVALID_ARG_TYPE'], // slots missing
    [{ slots: 2 }, 'ERR_INVALID_ARG_TYPE'], // key missing
    [{ key: 1, slots: 2 }, 'ERR_INVALID_ARG_TYPE'],
    [{ key: '', slots: 2 }, 'ERR_INVALID_ARG_VALUE'],
    [{ key: 'x'.repeat(257), slots: 2 }, 'ERR_INVALID_ARG_VALUE'],
    [{ key: 'é'.repeat(129), slots: 2 }, 'ERR_INVALID_ARG_VALUE'], // 258 bytes of UTF-8
    [{ key: 'a\0b', slots: 2 }, 'ERR_INVALID_ARG_VALUE'],
    [{ key: 'k', slots: 0 }, 'ERR_OUT_OF_RANGE'],
    [{ key: 'k', slots: 1025 }, 'ERR_OUT_OF_RANGE'],
    [{ key: 'k', slots: 1.5 }, 'ERR_OUT_OF_RANGE'],
    [{ key: 'k', slots: '2' }, 'ERR_INVALID_ARG_TYPE'],
    [{ key: 'k', slots: 2, slot: 3 }, 'ERR_INVALID_ARG_VALUE'], // unknown key inside hostSlots
  ];
  for (const [value, code] of bad) {
    assert.equal(codeOf(() => kdf.configure({ hostSlots: value })), code, `configure ${JSON.stringify(value)}`);
    assert.equal(codeOf(() => kdf.createPool({ hostSlots: value })), code, `createPool ${JSON.stringify(value)}`);
  }
  // Refused before anything changed.
  assert.equal(kdf.stats().hostSlots, null);
  // The longest key accepted, of any characters: only its hash names the directory.
  const p = kdf.createPool({ threads: 1, hostSlots: { key: LONG_KEY, slots: 1 } });
  assert.equal(p.stats().hostSlots.key, LONG_KEY);
  assert.match(path.basename(dirFor(LONG_KEY)), /^kdfpool-(\d+-)?[0-9a-f]{32}$/);
  assert.equal(path.dirname(dirFor(LONG_KEY)), path.dirname(dirFor('k')));
  await p.close();
});

// A temporary XDG_RUNTIME_DIR for fn(root): the lock directories go there.
async function inRuntimeDir(fn) {
  const saved = process.env.XDG_RUNTIME_DIR;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-xdg-'));
  try {
    process.env.XDG_RUNTIME_DIR = root;
    return await fn(root);
  } finally {
    if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = saved;
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function refusedDir(key, message) {
  assert.throws(() => kdf.createPool({ hostSlots: { key, slots: 1 } }), { code: 'ERR_KDF_HOST_SLOTS', name: 'KdfError', message });
  assert.throws(() => kdf.configure({ hostSlots: { key, slots: 1 } }), { code: 'ERR_KDF_HOST_SLOTS', name: 'KdfError', message });
  assert.equal(kdf.stats().hostSlots, null);
}

// Another local user may create the predictable name first: it must not be
// used, whatever they made there.
test('hostSlots refuses a directory others could use', { skip: process.platform === 'win32' }, () =>
  inRuntimeDir((root) => {
    const key = `${KEY}-dir`;
    const dir = dirFor(key);
    assert.equal(path.dirname(dir), root);
    fs.writeFileSync(dir, ''); // a file where the directory goes
    refusedDir(key, /is not a directory/);
    fs.rmSync(dir);
    fs.mkdirSync(dir, { mode: 0o755 });
    for (const mode of [0o755, 0o750, 0o705, 0o720, 0o702, 0o777]) {
      fs.chmodSync(dir, mode);
      refusedDir(key, /is open to other users/);
    }
    fs.chmodSync(dir, 0o700);
    // A link, even to a private directory of ours: its target could change.
    const target = path.join(root, 'target');
    fs.mkdirSync(target, { mode: 0o700 });
    fs.renameSync(dir, `${dir}-away`);
    fs.symlinkSync(target, dir);
    refusedDir(key, /is not a directory/);
    fs.rmSync(dir);
    fs.renameSync(`${dir}-away`, dir);
    assert.deepEqual(fs.readdirSync(dir), []); // nothing was made in what was refused
    fs.chmodSync(dir, 0o700);
    const p = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
    assert.deepEqual(fs.readdirSync(dir).sort(), ['member-0', 'want']); // slot files come with the first job
    for (const f of fs.readdirSync(dir)) assert.equal(fs.statSync(path.join(dir, f)).mode & 0o777, 0o600);
    return p.close();
  }));

const asRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;
test('hostSlots refuses a directory another user owns', { skip: process.platform === 'win32' || (!asRoot && 'needs root to give a directory away') }, () =>
  inRuntimeDir(() => {
    const key = `${KEY}-owner`;
    const dir = dirFor(key);
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 12345, 12345);
    refusedDir(key, /belongs to another user \(uid 12345\).*XDG_RUNTIME_DIR/);
  }));

// The directory checked is the one used: the lock files are opened through
// the handle it was checked on, so one swapped in at its path later (by
// whoever may write to the parent) is never written to. Windows: the open
// directory cannot be renamed at all (os_dir_open shares no delete access).
test('hostSlots keeps to the directory it checked, whatever is put at its path later', { skip: process.platform === 'win32' }, () =>
  inRuntimeDir(async (root) => {
    const key = `${KEY}-swap`;
    const dir = dirFor(key);
    const pool = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
    const moved = `${dir}-moved`;
    const planted = path.join(root, 'planted');
    fs.renameSync(dir, moved);
    fs.mkdirSync(planted);
    fs.chmodSync(planted, 0o777);
    fs.symlinkSync(planted, dir);
    // The first job makes the slot files.
    assert.equal((await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256')).length, 32);
    assert.deepEqual(fs.readdirSync(planted), []);
    assert.ok(fs.readdirSync(moved).includes('slot-0'), `in the checked directory: ${fs.readdirSync(moved)}`);
    await pool.close();
  }));

test('two pools of one process with one key share its slots', async () => {
  const key = `${KEY}-two`;
  const a = kdf.createPool({ threads: 2, hostSlots: { key, slots: 1 } });
  const b = kdf.createPool({ threads: 2, hostSlots: { key, slots: 1 } });
  try {
    native.testing.runLog(true);
    const jobs = [];
    for (let i = 0; i < 6; i++) {
      jobs.push(a.pbkdf2(`pw${i}`, 'salt', SHORT, 32, 'sha256'), b.pbkdf2(`pw${i}`, 'salt', SHORT, 32, 'sha256'));
    }
    const keys = await Promise.all(jobs);
    const [runs, dropped] = native.testing.runLog(false);
    assert.equal(dropped, 0);
    assert.ok(runs.length >= 2 && runs.length <= 24);
    assert.equal(maxOverlap([runs]), 1);
    keys.forEach((k, i) => assert.equal(k.toString('hex'), expected(i >> 1, SHORT)));
    assert.equal(a.stats().hostSlots.members, 2);
  } finally {
    native.testing.runLog(false);
    await Promise.all([a.close(), b.close()]);
  }
});

test('a job waiting for a host slot can be aborted, shed at its deadline, or closed', async () => {
  const key = `${KEY}-wait`;
  const holder = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
  const waiter = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
  try {
    const long = gate(holder); // holds the one slot until released
    await until(() => holder.stats().hostSlots.held === 1, 'the holder to take the slot');

    const ac = new AbortController();
    const aborted = waiter.pbkdf2('a', 'salt', SHORT, 32, 'sha256', { signal: ac.signal });
    await until(() => waiter.stats().hostSlots.waitMs > 0, 'the waiter to poll for a slot');
    assert.equal(waiter.stats().queued, 1); // still queued: that is what makes abort work
    ac.abort();
    await assert.rejects(aborted, { code: 'ABORT_ERR' });

    await assert.rejects(waiter.pbkdf2('d', 'salt', SHORT, 32, 'sha256', { maxWaitMs: 1 }),
      { code: 'ERR_KDF_POOL_SATURATED' });

    const closed = waiter.pbkdf2('c', 'salt', SHORT, 32, 'sha256');
    await until(() => waiter.stats().queued === 1, 'the job to queue');
    await waiter.close();
    await assert.rejects(closed, { code: 'ERR_KDF_POOL_CLOSED' });
    long.release();
    assert.equal(await long.done, undefined);
    assert.equal(holder.stats().hostSlots.held, 0);
  } finally {
    await holder.close();
    await waiter.close(); // the same promise if it is closed already
  }
});

test('configure() sets, changes and removes hostSlots; close gives everything back', async () => {
  const key = `${KEY}-conf`;
  const p = kdf.createPool({ threads: 2 });
  try {
    assert.equal(p.stats().hostSlots, null);
    // createPool's options are fixed; configure() acts on the default pool.
    kdf.configure({ hostSlots: { key, slots: 1 } });
    assert.deepEqual(kdf.stats().hostSlots, { key, slots: 1, held: 0, members: 1, waitMs: 0 });
    kdf.configure({ hostSlots: { key, slots: 1 } }); // the same: kept (still one member)
    assert.equal(kdf.stats().hostSlots.members, 1);
    kdf.configure({ hostSlots: { key: `${key}-2`, slots: 3 } });
    assert.equal(kdf.stats().hostSlots.key, `${key}-2`);
    assert.equal(kdf.stats().hostSlots.slots, 3);
    const outs = await Promise.all([1, 2, 3].map((i) => kdf.pbkdf2(`pw${i}`, 'salt', SHORT, 32, 'sha256')));
    outs.forEach((k, i) => assert.equal(k.toString('hex'), expected(i + 1, SHORT)));
    kdf.configure({ hostSlots: null });
    assert.equal(kdf.stats().hostSlots, null);
    // The first setting's member lock is gone with it: a new pool is alone.
    const q = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
    assert.equal(q.stats().hostSlots.members, 1);
    await q.close();
  } finally {
    kdf.configure({ hostSlots: null });
    await p.close();
  }
});

test('the retry estimate uses this pool\'s share of the host\'s slots', async () => {
  const key = `${KEY}-share`;
  const p = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
  let g;
  let queued;
  try {
    await p.pbkdf2('pw', 'salt', SHORT, 32, 'sha256'); // what a job of this class takes here
    assert.equal(p.stats().estimatedWaitMs, 0); // alone with an idle slot: no wait
    g = gate(p); // holds the thread (and the slot); it predicts nothing
    await until(() => p.stats().running === 1, 'the gate to hold the thread');
    queued = p.pbkdf2('pw', 'salt', SHORT, 32, 'sha256');
    const alone = p.stats().estimatedWaitMs; // one job ahead, on the whole slot
    assert.ok(alone > 0);
    const other = kdf.createPool({ threads: 1, hostSlots: { key, slots: 1 } });
    try {
      // Member counts are cached for a moment: wait for the second member.
      await until(() => p.stats().hostSlots.members === 2, 'two members');
      // Half the slot: the same work ahead takes twice as long.
      const shared = p.stats().estimatedWaitMs;
      assert.ok(Math.abs(shared - 2 * alone) <= alone * 0.01, `${shared} vs 2 x ${alone}`);
    } finally {
      await other.close();
    }
  } finally {
    if (g) g.release();
    if (queued) await queued;
    await p.close();
  }
});
