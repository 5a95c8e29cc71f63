'use strict';

// CPU priority of the pool's threads (Linux): the default is 'low'
// (SCHED_BATCH, nice +19 on the process's own, at most 19), applied per
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

async function settled(name, check) {
  // Each worker applies a new priority itself, between jobs.
  for (let i = 0; i < 2000; i++) {
    const ts = poolThreads(name);
    if (ts.length > 0 && ts.every(check)) return ts;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`pool ${name} threads never reached the expected priority: ${JSON.stringify(poolThreads(name))}`);
}

test('the default priority is low: SCHED_BATCH and nice +19 (at most 19) on pool threads only', { skip: !linux }, async () => {
  await kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256'); // the default pool exists
  assert.equal(kdf.stats().priority, 'low');
  const ts = await settled('default', (t) => t.nice === LOW && t.policy === SCHED.BATCH);
  assert.equal(ts.length, kdf.stats().threads);
  // setpriority() got each worker's own thread id, never the process id:
  // the JS thread (and libuv's threads) keep the process's own nice.
  assert.equal(os.getPriority(), BASE);
  for (const t of threads()) {
    if (!t.comm.startsWith('kdf-')) assert.equal(t.nice, BASE, `${t.comm} (${t.tid}) was reniced`);
  }
});

test('priorities are relative to the process\'s nice and never above it', { skip: !linux }, () => {
  // A child started under nice 10 (root could raise a thread back to 0:
  // 'normal' must not). Its pools report their threads' nice values.
  const { spawnSync } = require('node:child_process');
  const path = require('node:path');
  const root = path.join(__dirname, '..');
  const child = spawnSync('nice', ['-n', '10', process.execPath, '-e', `
    const fs = require('node:fs');
    const kdf = require(${JSON.stringify(root)});
    const nices = (name) => fs.readdirSync('/proc/self/task').map((tid) => {
      try {
        const base = '/proc/self/task/' + tid;
        if (!fs.readFileSync(base + '/comm', 'utf8').startsWith('kdf-' + name + '-')) return null;
        const stat = fs.readFileSync(base + '/stat', 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
      } catch { return null; }
    }).filter((n) => n !== null);
    (async () => {
      const out = { base: require('node:os').getPriority() };
      for (const priority of ['normal', 'low']) {
        const pool = kdf.createPool({ threads: 1, name: priority.slice(0, 3), priority });
        await pool.pbkdf2('pw', 'salt', 1, 8, 'sha256');
        for (let i = 0; i < 400 && nices(priority.slice(0, 3)).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
        out[priority] = nices(priority.slice(0, 3));
        await pool.close();
      }
      console.log(JSON.stringify(out));
    })();
  `], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  const out = JSON.parse(child.stdout);
  const base = out.base;
  assert.ok(base >= 10, `the child runs at nice ${base}`);
  assert.deepEqual(out.normal, [base], 'normal is the process\'s own nice, not 0');
  assert.deepEqual(out.low, [Math.min(19, base + 19)]);
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
