'use strict';

// CPU priority of the pool's threads (Linux): 'low' is SCHED_BATCH, nice
// +19 on the process's own, at most 19 (the default, 'auto', and its two
// threads per worker: test/priority-auto.test.js), applied per
// thread so the JS thread keeps its own priority; every policy is relative
// to the process's nice and never raises a thread above it (this suite
// passes under `nice -n 10`); and 'low' must not starve jobs when other
// processes compete for every core.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const { spawn } = require('node:child_process');
const kdf = require('..');

const linux = process.platform === 'linux';
const SCHED = { OTHER: 0, BATCH: 3, IDLE: 5 };
// The process's own nice value (0 unless run under `nice`): the threads'
// priorities are relative to it.
const BASE = linux ? os.getPriority() : 0;
const LOW = Math.min(19, BASE + 19);

// { comm, nice, policy } of every thread of this process.
function threads() {
  const out = [];
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const base = `/proc/self/task/${tid}`;
      const stat = fs.readFileSync(`${base}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const policy = /policy\s*:\s*(\d+)/.exec(fs.readFileSync(`${base}/sched`, 'utf8'));
      out.push({
        tid: Number(tid),
        comm: fs.readFileSync(`${base}/comm`, 'utf8').trim(),
        nice: Number(fields[16]), // field 19 of /proc/<pid>/stat
        policy: policy ? Number(policy[1]) : null,
      });
    } catch {
      // the thread ended while we looked
    }
  }
  return out;
}

const poolThreads = (name) => threads().filter((t) => t.comm.startsWith(`kdf-${name}-`));

// `count`: how many threads must be there (a worker names itself as it
// starts, so right after createPool() some may not be visible yet).
async function settled(name, check, count = 0) {
  // Each worker applies a new priority itself, between jobs.
  for (let i = 0; i < 2000; i++) {
    const ts = poolThreads(name);
    if (ts.length > 0 && ts.length >= count && ts.every(check)) return ts;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`pool ${name} threads never reached the expected priority: ${JSON.stringify(poolThreads(name))}`);
}

test('low: SCHED_BATCH and nice +19 (at most 19) on pool threads only', { skip: !linux }, async () => {
  const pool = kdf.createPool({ name: 'lowp', priority: 'low' });
  await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  assert.equal(pool.stats().priority, 'low');
  const ts = await settled('lowp', (t) => t.nice === LOW && t.policy === SCHED.BATCH, pool.stats().threads);
  assert.equal(ts.length, pool.stats().threads);
  // setpriority() got each worker's own thread id, never the process id:
  // the JS thread (and libuv's threads) keep the process's own nice.
  assert.equal(os.getPriority(), BASE);
  for (const t of threads()) {
    if (!t.comm.startsWith('kdf-')) assert.equal(t.nice, BASE, `${t.comm} (${t.tid}) was reniced`);
  }
  await pool.close();
});

// Runs `body` (an async function body) in a child node, optionally under
// `nice -n <nice>`, with `kdf`, `nices(poolName)` (its threads' nice values
// in thread-index order) and `waitFor(poolName, threads, lows)` in scope;
// returns what the body returned.
function inChild(body, nice) {
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const root = path.join(__dirname, '..');
  const script = `
    const fs = require('node:fs');
    const kdf = require(${JSON.stringify(root)});
    const BASE = require('node:os').getPriority();
    const LOW = Math.min(19, BASE + 19);
    const nices = (name) => fs.readdirSync('/proc/self/task').map((tid) => {
      try {
        const base = '/proc/self/task/' + tid;
        const comm = fs.readFileSync(base + '/comm', 'utf8').trim();
        if (!comm.startsWith('kdf-' + name + '-')) return null;
        const stat = fs.readFileSync(base + '/stat', 'utf8');
        return { index: Number(comm.slice(name.length + 5)), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
      } catch { return null; }
    }).filter((t) => t !== null).sort((a, b) => a.index - b.index).map((t) => t.nice);
    // Each worker sets its own priority once it runs: wait until all
    // threads exist and \`lows\` of them are low (the normal ones keep the
    // nice they were born with, so there is nothing else to wait for).
    const waitFor = async (name, threads, lows) => {
      for (let i = 0; i < 2000; i++) {
        const n = nices(name);
        if (n.length === threads && n.filter((x) => x === LOW).length >= lows) return n;
        await new Promise((r) => setTimeout(r, 5));
      }
      return nices(name);
    };
    (async () => { ${body} })().then((out) => console.log(JSON.stringify({ base: BASE, ...out })));
  `;
  const argv = [process.execPath, '-e', script];
  const child = nice === undefined
    ? spawnSync(argv[0], argv.slice(1), { encoding: 'utf8' })
    : spawnSync('nice', ['-n', String(nice), ...argv], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

// mixed's split: thread i is at the process's own nice if i < CPUs - 1, else low.
const mixedNices = (cpus, threads, base) =>
  Array.from({ length: threads }, (_, i) => (i < cpus - 1 ? base : Math.min(19, base + 19)));

test('priorities are relative to the process\'s nice and never above it', { skip: !linux }, () => {
  // A child started under nice 10 (root could raise a thread back to 0:
  // 'normal' must not). Its pools report their threads' nice values.
  const out = inChild(`
    const out = {};
    // The CPUs this process may use, as the pool counts them.
    const cpus = kdf.stats().threads;
    for (const priority of ['normal', 'low', 'mixed']) {
      // mixed: CPUs + 1 threads, so both halves of its split show.
      const threads = priority === 'mixed' ? cpus + 1 : 1;
      const lows = priority === 'low' ? 1 : priority === 'mixed' ? threads - Math.max(0, cpus - 1) : 0;
      const pool = kdf.createPool({ threads, name: priority.slice(0, 3), priority });
      await pool.pbkdf2('pw', 'salt', 1, 8, 'sha256');
      out[priority] = await waitFor(priority.slice(0, 3), threads, lows);
      await pool.close();
    }
    return { cpus, ...out };
  `, 10);
  const base = out.base;
  assert.ok(base >= 10, `the child runs at nice ${base}`);
  assert.deepEqual(out.normal, [base], 'normal is the process\'s own nice, not 0');
  assert.deepEqual(out.low, [Math.min(19, base + 19)]);
  // mixed: CPUs-1 threads at the process's own nice (not 0), the rest low.
  assert.deepEqual(out.mixed, mixedNices(out.cpus, out.cpus + 1, base));
});

test('priority can be changed per pool', { skip: !linux }, async () => {
  const pool = kdf.createPool({ threads: 2, name: 'prio', priority: 'idle' });
  await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  assert.equal(pool.stats().priority, 'idle');
  await settled('prio', (t) => t.policy === SCHED.IDLE);
  const pool2 = kdf.createPool({ threads: 1, name: 'prio2', priority: 'normal' });
  await pool2.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  await settled('prio2', (t) => t.policy === SCHED.OTHER && t.nice === BASE);
  // Going back up needs CAP_SYS_NICE; the setting is a preference, so an
  // unprivileged process keeps working at the lower priority.
  if (process.getuid && process.getuid() === 0) {
    kdf.configure({ priority: 'normal' });
    await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256');
    await settled('default', (t) => t.policy === SCHED.OTHER && t.nice === BASE);
    kdf.configure({ priority: 'low' });
    await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256');
    await settled('default', (t) => t.policy === SCHED.BATCH && t.nice === LOW);
  }
  await Promise.all([pool.close(), pool2.close()]);
});

// The CPUs this process may use, as the pool counts them (affinity and
// cgroup quota): a pool created without `threads` has that many.
async function poolCpus() {
  const probe = kdf.createPool({ name: 'cpus' });
  const cpus = probe.stats().threads;
  await probe.close();
  return cpus;
}

test('mixed: threads 0..CPUs-2 at the process\'s own priority, the others low', { skip: !linux }, async () => {
  const cpus = await poolCpus();
  // One more thread than CPUs, so at least one is low on any machine and
  // (with 2+ CPUs) at least one is normal.
  const pool = kdf.createPool({ threads: cpus + 1, name: 'mix', priority: 'mixed' });
  await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  assert.equal(pool.stats().priority, 'mixed');
  const isNormal = (t) => Number(t.comm.slice('kdf-mix-'.length)) < cpus - 1;
  const ts = await settled('mix', (t) => (isNormal(t)
    ? t.policy === SCHED.OTHER && t.nice === BASE
    : t.policy === SCHED.BATCH && t.nice === LOW), cpus + 1);
  assert.equal(ts.length, cpus + 1);
  assert.equal(ts.filter(isNormal).length, cpus - 1);
  // The JS thread and libuv's threads keep the process's own nice.
  for (const t of threads()) {
    if (!t.comm.startsWith('kdf-')) assert.equal(t.nice, BASE, `${t.comm} (${t.tid}) was reniced`);
  }
  await pool.close();
});

test('mixed: threads added by a resize get the split of their index', { skip: !linux }, () => {
  // Only the default pool can be resized, so in a child: made with one
  // (normal) thread, then grown past the CPU count.
  const out = inChild(`
    const probe = kdf.createPool({ name: 'cpu' });
    const cpus = probe.stats().threads;
    await probe.close();
    kdf.configure({ threads: 1, priority: 'mixed' });
    await kdf.pbkdf2('pw', 'salt', 1, 8, 'sha256');
    kdf.configure({ threads: cpus + 1 });
    await Promise.all(Array.from({ length: cpus + 1 }, () => kdf.pbkdf2('pw', 'salt', 1, 8, 'sha256')));
    return { cpus, mixed: await waitFor('default', cpus + 1, cpus + 1 - Math.max(0, cpus - 1)) };
  `);
  assert.deepEqual(out.mixed, mixedNices(out.cpus, out.cpus + 1, out.base));
});

test('low priority does not starve: jobs finish while every core is busy elsewhere', async () => {
  // One CPU-bound process per core, in this session, at normal priority:
  // the case where SCHED_IDLE threads get no CPU at all.
  const hogs = Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    const pool = kdf.createPool({ threads: 2, name: 'starve', priority: 'low' });
    const jobs = Array.from({ length: 4 }, (_, i) => pool.pbkdf2(`pw${i}`, 'salt', 20000, 32, 'sha256'));
    const keys = await Promise.all(jobs);
    keys.forEach((key, i) => assert.ok(key.equals(crypto.pbkdf2Sync(`pw${i}`, 'salt', 20000, 32, 'sha256'))));
    assert.equal(pool.stats().completed, 4);
    await pool.close();
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
  }
});
