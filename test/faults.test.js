'use strict';

// Allocation-failure injection (src/common/fault.h). Needs a fault build:
//   KDFPOOL_FAULTS=1 npm run build && node --test test/faults.test.js
// (normal builds skip every test here, visibly).
//
// For each operation (test/helpers/fault-cases.js), a child process first
// runs it unarmed to learn how many fault sites it reaches (N), then for
// every i in 1..N+2 arms the injector so that the i-th site fails once, and
// runs it again: no crash, no hang, either success (with the right result)
// or an error with a stable code (ERR_KDF_OUT_OF_MEMORY, or the case's own,
// such as ABORT_ERR), live allocations back to what they were once
// settled, and a normal call afterwards works. A crash is reported with the
// case and the iteration.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const native = require('../lib/native');
const { CASES } = require('./helpers/fault-cases');

const faults = native.testing && native.testing.faults;
const SKIP = faults === undefined && 'not a fault build (KDFPOOL_FAULTS=1 npm run build)';
const CHILD = path.join(__dirname, 'helpers', 'fault-child.js');
const ROOT = path.join(__dirname, '..');

const covered = new Set(); // reached by some case
const failed = new Set(); // made to fail by some armed run
const short = (site) => site.replace(/^(\.\.\/)+/, '');

function child(args, timeout = 240000) {
  return spawnSync(process.execPath, ['--expose-gc', CHILD, ...args], { cwd: ROOT, encoding: 'utf8', timeout });
}

function lines(stdout) {
  return stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

function assertNoCrash(r, what) {
  const lastArm = (r.stderr.match(/arm (\d+)\n(?![\s\S]*arm \d+)/) || [])[1];
  const at = lastArm ? ` (armed with ${lastArm})` : '';
  assert.equal(r.error, undefined, `${what}${at}: ${r.error} (hang?)\n${r.stderr.slice(-2000)}`);
  assert.equal(r.signal, null, `${what}${at}: killed by ${r.signal}\n${r.stderr.slice(-2000)}`);
  assert.equal(r.status, 0, `${what}${at}: exit ${r.status}\n${r.stderr.slice(-2000)}`);
}

for (const [name, c] of Object.entries(CASES)) {
  test(`fault sweep: ${name}`, { skip: SKIP }, (t) => {
    if (c.perProcess) {
      const r = child([name, 'count']);
      assertNoCrash(r, `${name}, unarmed`);
      const [{ count, sites }] = lines(r.stdout);
      sites.forEach((s) => covered.add(short(s)));
      for (let i = 1; i <= count + 2; i++) {
        const one = child([name, 'one', String(i)]);
        assertNoCrash(one, name);
        const site = lines(one.stdout).find((l) => l.injected)?.injected;
        if (site) failed.add(short(site));
      }
      t.diagnostic(`${count} fault sites reached, each failed in turn`);
      return;
    }
    const r = child([name, 'loop']);
    assertNoCrash(r, name);
    const out = lines(r.stdout);
    const head = out.shift();
    const tail = out.pop();
    assert.ok(head.normal, `${name}: the unarmed runs did not end as they should`);
    assert.ok(tail.final, `${name}: a normal call after the sweep did not end as it should`);
    tail.sites.forEach((s) => covered.add(short(s)));
    const allowed = new Set(['ok', 'ERR_KDF_OUT_OF_MEMORY', ...(c.codes || [])]);
    let failures = 0;
    for (const it of out) {
      const where = `${name}, armed with ${it.i}${it.site ? ` (${short(it.site)} failed)` : ''}`;
      assert.ok(allowed.has(it.outcome), `${where}: ${it.outcome}`);
      assert.ok(it.live <= it.baseline, `${where}: ${it.live - it.baseline} allocation(s) leaked`);
      if (it.outcome !== 'ok') failures++;
      if (it.site) failed.add(short(it.site));
    }
    t.diagnostic(`${head.count} fault sites reached; ${out.length} armed runs, ${failures} ended in a coded error`);
  });
}

test('a failed wake-up of the JS thread: that job and later ones still settle', { skip: SKIP }, () => {
  const source = `
    const native = require('./lib/native');
    const kdf = require('.');
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    (async () => {
      await kdf.pbkdf2('warm', 'salt', 1, 8, 'sha256');
      native.testing.faults.reset();
      native.testing.faults.arm(1, 'napi_call_threadsafe_function');
      let firstDone = false;
      const first = kdf.pbkdf2('a', 'salt', 1, 8, 'sha256').then((k) => { firstDone = true; return k; });
      await sleep(300);
      const before = firstDone;
      // Another completion of this environment wakes the JS thread: both settle.
      const [a, b] = await Promise.all([first, kdf.pbkdf2('b', 'salt', 1, 8, 'sha256')]);
      // Again, now settled by this thread's next call into the module.
      native.testing.faults.arm(1, 'napi_call_threadsafe_function');
      let thirdDone = false;
      const third = kdf.pbkdf2('c', 'salt', 1, 8, 'sha256').then(() => { thirdDone = true; });
      await sleep(300);
      const beforeSync = thirdDone;
      kdf.pbkdf2Sync('d', 'salt', 1, 8, 'sha256');
      await third;
      console.log(JSON.stringify({ injected: native.testing.faults.injected(), before, beforeSync, a: a.length, b: b.length }));
    })();
  `;
  const r = spawnSync(process.execPath, ['-e', source], { cwd: ROOT, encoding: 'utf8', timeout: 30000 });
  assertNoCrash(r, 'failed wake-up');
  assert.deepEqual(JSON.parse(r.stdout), { injected: 2, before: false, beforeSync: false, a: 8, b: 8 });
});

test('a ticket that cannot be allocated, in a worker_thread: clean error, clean teardown', { skip: SKIP }, () => {
  const source = `
    const { Worker } = require('node:worker_threads');
    const w = new Worker(\`
      const { parentPort } = require('node:worker_threads');
      const native = require(\${JSON.stringify(process.cwd() + '/lib/native')});
      const kdf = require(\${JSON.stringify(process.cwd())});
      (async () => {
        await kdf.pbkdf2('warm', 'salt', 1, 8, 'sha256');
        native.testing.faults.reset();
        // The job is the one the warm-up's left (kept for reuse, no
        // allocation): the first calloc in jobs.c is its cancel ticket's.
        // (Not any calloc: a pool thread may make one at the same time,
        // a priority twin or a worker, on a loaded machine.)
        native.testing.faults.arm(1, 'jobs.c:');
        const ac = new AbortController();
        const code = await kdf.pbkdf2('pw', 'salt', 1, 8, 'sha256', { signal: ac.signal })
          .then(() => 'resolved', (e) => e.code);
        parentPort.postMessage({ code, site: native.testing.faults.lastInjected() });
      })();
    \`, { eval: true });
    w.on('message', (m) => console.log(JSON.stringify(m)));
    w.on('exit', () => { globalThis.gc?.(); setTimeout(() => console.log('exited'), 100); });
  `;
  for (let run = 0; run < 3; run++) {
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', source], { cwd: ROOT, encoding: 'utf8', timeout: 30000 });
    assertNoCrash(r, 'ticket allocation failure in a worker');
    const [line, done] = r.stdout.trim().split('\n');
    const m = JSON.parse(line);
    assert.equal(m.code, 'ERR_KDF_OUT_OF_MEMORY');
    assert.match(m.site, /jobs\.c:\d+ calloc/);
    assert.equal(done, 'exited');
  }
});

test('fault sites: compiled in, covered by this file, not reached', { skip: SKIP }, (t) => {
  const all = [...new Set(faults.allSites().map(short))].sort();
  const report = [
    `fault sites compiled in: ${all.length}`,
    `reached by the cases: ${all.filter((s) => covered.has(s)).length}`,
    `made to fail by an armed run: ${all.filter((s) => failed.has(s)).length}`,
    ...all.filter((s) => !covered.has(s)).map((s) => `not reached: ${s}`),
    ...all.filter((s) => covered.has(s) && !failed.has(s)).map((s) => `reached, never failed: ${s}`),
  ];
  for (const l of report) t.diagnostic(l);
  assert.ok(all.length > 0);
});
