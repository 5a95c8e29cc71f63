'use strict';

// Priority 'auto' (src/pool/priority.c), the default: stats() and the
// README say so; on Linux each worker is two threads, its own "kdf-" one
// at SCHED_BATCH nice +19 and a "kdf+" twin at the process's own priority
// (never above it, also under `nice`), the JS thread untouched; and when
// one busy process per CPU starves the workers, the work moves to the twins
// and finishes. The rule itself, its hysteresis and the hand-over under the
// sanitizers are test/native/test_priority.c's.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const kdf = require('..');

const linux = process.platform === 'linux';
const BASE = linux ? os.getPriority() : 0;
const LOW = Math.min(19, BASE + 19);
const SCHED = { OTHER: 0, BATCH: 3 };

// { comm, nice, policy, cpuTicks } of this process's threads named `prefix`.
function threads(prefix) {
  const out = [];
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const dir = `/proc/self/task/${tid}`;
      const comm = fs.readFileSync(`${dir}/comm`, 'utf8').trim();
      if (!comm.startsWith(prefix)) continue;
      const stat = fs.readFileSync(`${dir}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const policy = /policy\s*:\s*(\d+)/.exec(fs.readFileSync(`${dir}/sched`, 'utf8'));
      out.push({
        comm,
        nice: Number(fields[16]),
        policy: policy ? Number(policy[1]) : null,
        cpuTicks: Number(fields[11]) + Number(fields[12]), // utime + stime
      });
    } catch {
      // the thread ended while we looked
    }
  }
  return out;
}

async function until(check) {
  for (let i = 0; i < 2000; i++) {
    const v = check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 5));
  }
  return check();
}

test('the default priority is auto, as stats() and the README say', async () => {
  const pool = kdf.createPool({ name: 'dflt', threads: 1 });
  assert.equal(pool.stats().priority, 'auto');
  await pool.close();
  assert.equal(kdf.stats().priority, 'auto');
  const readme = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  assert.match(readme, /^\| `priority` \| `'auto'` \|/m, 'the option table names the default');
  assert.match(readme, /^\*\*Priority\*\*[^]*?`'auto'` \(the\s+default\)/m, 'the Priority paragraph names the default');
  // The other names stay accepted; anything else is refused.
  for (const priority of ['normal', 'low', 'idle', 'mixed', 'auto']) {
    const p = kdf.createPool({ name: 'names', threads: 1, priority });
    assert.equal(p.stats().priority, priority);
    await p.close();
  }
  assert.throws(() => kdf.createPool({ priority: 'AUTO' }), { code: 'ERR_INVALID_ARG_VALUE', name: 'TypeError' });
});

test('auto: each worker a low thread and a twin at the process\'s own priority; the JS thread untouched', { skip: !linux }, async () => {
  const pool = kdf.createPool({ name: 'auto', threads: 2, priority: 'auto' });
  try {
    await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
    const own = await until(() => {
      const ts = threads('kdf-auto-');
      return ts.length === 2 && ts.every((t) => t.nice === LOW && t.policy === SCHED.BATCH) && ts;
    });
    assert.ok(own, JSON.stringify(threads('kdf-auto-')));
    const twins = await until(() => {
      const ts = threads('kdf+auto-');
      return ts.length === 2 && ts;
    });
    assert.ok(twins, 'one twin per worker');
    if (BASE < 19) for (const t of twins) assert.deepEqual([t.nice, t.policy], [BASE, SCHED.OTHER], t.comm);
    for (const t of threads('')) {
      if (!t.comm.startsWith('kdf')) assert.equal(t.nice, BASE, `${t.comm} was reniced`);
    }
  } finally {
    await pool.close();
  }
  assert.deepEqual(threads('kdf+auto-'), [], 'the twins end with their pool');
});

test('auto under nice 10: the twins at the process\'s nice, not above it', { skip: !linux }, () => {
  const script = `
    const kdf = require(${JSON.stringify(path.join(__dirname, '..'))});
    const fs = require('node:fs');
    const nices = (prefix) => fs.readdirSync('/proc/self/task').flatMap((tid) => {
      try {
        const comm = fs.readFileSync('/proc/self/task/' + tid + '/comm', 'utf8').trim();
        if (!comm.startsWith(prefix)) return [];
        const stat = fs.readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
        return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
      } catch { return []; }
    });
    (async () => {
      const pool = kdf.createPool({ name: 'n10', threads: 1, priority: 'auto' });
      await pool.pbkdf2('pw', 'salt', 1, 8, 'sha256');
      let own = [], twin = [];
      for (let i = 0; i < 2000 && !(own.length === 1 && own[0] === 19 && twin.length === 1); i++) {
        own = nices('kdf-n10-'); twin = nices('kdf+n10-');
        await new Promise((r) => setTimeout(r, 5));
      }
      console.log(JSON.stringify({ base: require('node:os').getPriority(), own, twin }));
      await pool.close();
    })();
  `;
  const r = spawnSync('nice', ['-n', '10', process.execPath, '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.ok(out.base >= 10);
  assert.deepEqual(out.own, [19]);
  // At nice 19 already low is the base: no twin is worth a thread.
  assert.deepEqual(out.twin, out.base >= 19 ? [] : [out.base]);
});

test('auto does not starve: behind one busy process per CPU the work moves to the twins', { skip: !linux || BASE >= 19 }, async () => {
  const pool = kdf.createPool({ name: 'busy', threads: 2, priority: 'auto' });
  await pool.pbkdf2('pw', 'salt', 1, 8, 'sha256'); // threads and twins started
  const before = await until(() => {
    const ts = threads('kdf+busy-');
    return ts.length === 2 && ts;
  });
  assert.ok(before, 'two twins');
  const ticks = (ts) => ts.reduce((a, t) => a + t.cpuTicks, 0);
  // In this session, at this process's own priority.
  const hogs = Array.from({ length: os.availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  try {
    // Two chains of jobs one after another, so that no batch takes them all
    // at once: each worker judges its share once its first job ends (100k
    // PBKDF2 iterations: a window's worth and more of CPU), and the rest run
    // where the rule put it.
    const chain = async (c) => {
      for (let i = 0; i < 6; i++) {
        const pw = `pw${c}-${i}`;
        const key = await pool.pbkdf2(pw, 'salt', 100000, 32, 'sha256');
        assert.ok(key.equals(crypto.pbkdf2Sync(pw, 'salt', 100000, 32, 'sha256')));
      }
    };
    await Promise.all([chain(0), chain(1)]);
    const after = threads('kdf+busy-');
    assert.ok(ticks(after) > ticks(before), `the twins ran nothing: ${JSON.stringify(after)}`);
  } finally {
    for (const h of hogs) h.kill('SIGKILL');
    await pool.close();
  }
});
