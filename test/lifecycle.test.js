'use strict';

// Process exit, environment teardown and worker_threads: where addons crash.
// Each scenario runs in a child process so a crash is observed as a signal
// or a non-zero exit status rather than taking the test runner down.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
// Generous: only a hang would ever reach it; the scripts finish in seconds.
const HANG_LIMIT_MS = 120000;
const { scaled } = require('./helpers/scale');

function runChild(source, args = []) {
  const r = spawnSync(process.execPath, ['-e', source, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: HANG_LIMIT_MS,
    env: { ...process.env, KDFPOOL_ROOT: ROOT },
  });
  return r;
}

function assertClean(r, what) {
  assert.equal(r.error, undefined, `${what}: ${r.error}`);
  assert.equal(r.signal, null, `${what}: killed by ${r.signal}\n${r.stderr}`);
  assert.equal(r.status, 0, `${what}: exit ${r.status}\n${r.stderr}`);
}

test('process.exit() with jobs running and queued never crashes', () => {
  // Exits at a different moment each run: before, during and between
  // OpenSSL calls on the pool threads.
  const source = `
    const kdf = require(process.env.KDFPOOL_ROOT);
    const delay = Number(process.argv[1]);
    for (let i = 0; i < 12; i++) {
      kdf.pbkdf2('pw' + i, 'salt', 200000, 64, i % 2 ? 'sha512' : 'sha256').catch(() => {});
      kdf.pbkdf2('pw' + i, 'salt', 50000, 32, 'sha3-256').catch(() => {});
      kdf.argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 2, tagLength: 32,
        memory: 8192, passes: 2 }).catch(() => {});
    }
    setTimeout(() => process.exit(0), delay);
  `;
  for (let run = 0; run < scaled(30, 10); run++) {
    const r = runChild(source, [String(run % 10 * 3)]);
    assertClean(r, `run ${run}`);
  }
});

test('process.exit() while pool threads are inside OpenSSL\'s EVP layer never crashes', () => {
  // Short PBKDF2 jobs on digests that go through PKCS5_PBKDF2_HMAC (EVP,
  // providers), 64 kept in flight. Without the exit handler that joins the
  // pool threads before OpenSSL's own atexit cleanup, this crashed with
  // SIGSEGV in 12 of 60 runs; with it, in none.
  const source = `
    const kdf = require(process.env.KDFPOOL_ROOT);
    const delay = Number(process.argv[1]);
    const digests = ['sha3-256', 'md5', 'sha512-256', 'blake2b512', 'ripemd160', 'sm3', 'md4'];
    let n = 0;
    function one() { kdf.pbkdf2('pw', 'salt', 50, 32, digests[n++ % digests.length]).then(one, one); }
    for (let i = 0; i < 64; i++) one();
    setTimeout(() => process.exit(0), delay);
  `;
  for (let run = 0; run < scaled(60, 20); run++) {
    assertClean(runChild(source, [String(run % 20)]), `run ${run}`);
  }
});

test('a normal exit waits for jobs in flight and then ends', () => {
  const source = `
    const kdf = require(process.env.KDFPOOL_ROOT);
    const crypto = require('node:crypto');
    kdf.pbkdf2('pw', 'salt', 20000, 32, 'sha256').then((key) => {
      const want = crypto.pbkdf2Sync('pw', 'salt', 20000, 32, 'sha256');
      process.stdout.write(key.equals(want) ? 'ok' : 'mismatch');
    });
  `;
  const r = runChild(source);
  assertClean(r, 'exit with a job in flight');
  assert.equal(r.stdout, 'ok');
});

test('an idle pool does not keep the process alive', () => {
  const source = `
    const kdf = require(process.env.KDFPOOL_ROOT);
    kdf.configure({ threads: 2 });
    kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => process.stdout.write('done'));
  `;
  const r = runChild(source);
  assertClean(r, 'idle pool');
  assert.equal(r.stdout, 'done');
});

function poolThreadCount(pool = 'default') {
  let n = 0;
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const comm = fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8');
      if (comm.startsWith(`kdf-${pool}-`)) n++;
    } catch {
      // the thread ended while we looked
    }
  }
  return n;
}

test('four worker threads share the one default pool', { skip: process.platform !== 'linux' }, async () => {
  const { Worker } = require('node:worker_threads');
  const kdf = require('..');
  kdf.configure({ threads: 3 });
  const workerSource = `
    const { parentPort } = require('node:worker_threads');
    const kdf = require(${JSON.stringify(ROOT)});
    const crypto = require('node:crypto');
    (async () => {
      let ok = 0;
      for (let i = 0; i < 5; i++) {
        const key = await kdf.pbkdf2('pw' + i, 'salt', 3000, 48, 'sha384');
        if (key.equals(crypto.pbkdf2Sync('pw' + i, 'salt', 3000, 48, 'sha384'))) ok++;
      }
      parentPort.postMessage({ ok, threads: kdf.stats().threads });
    })();
  `;
  const workers = Array.from({ length: 4 }, () => new Worker(workerSource, { eval: true }));
  const results = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  })));
  for (const r of results) assert.deepEqual(r, { ok: 5, threads: 3 });
  assert.equal(poolThreadCount(), 3);
  await Promise.all(workers.map((w) => w.terminate()));
  assert.equal(poolThreadCount(), 3);
});

test('terminating workers with jobs queued and running leaves the pool healthy', async () => {
  const { Worker } = require('node:worker_threads');
  const kdf = require('..');
  const crypto = require('node:crypto');
  kdf.configure({ threads: 2, maxQueue: 256 });
  const workerSource = `
    const { parentPort } = require('node:worker_threads');
    const kdf = require(${JSON.stringify(ROOT)});
    for (let i = 0; i < 6; i++) {
      kdf.pbkdf2('pw', 'salt', 20000, 32, 'sha256').catch(() => {});
      kdf.argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 16,
        memory: 1024, passes: 1 }).catch(() => {});
    }
    parentPort.postMessage('submitted');
  `;
  // Load from this thread the whole time, checked for correct bytes.
  let stop = false;
  let checked = 0;
  const want = crypto.pbkdf2Sync('main', 'salt', 2000, 32, 'sha256');
  const mainLoad = (async () => {
    while (!stop) {
      const key = await kdf.pbkdf2('main', 'salt', 2000, 32, 'sha256');
      assert.ok(key.equals(want));
      checked++;
    }
  })();
  for (let i = 0; i < scaled(100, 20); i++) {
    const w = new Worker(workerSource, { eval: true });
    await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
  }
  stop = true;
  await mainLoad;
  assert.ok(checked > 0);
  // Jobs of terminated workers were cancelled or ran unseen; nothing is
  // left behind and the pool still answers.
  const key = await kdf.pbkdf2('after', 'salt', 10, 32, 'sha256');
  assert.ok(key.equals(crypto.pbkdf2Sync('after', 'salt', 10, 32, 'sha256')));
  let s = kdf.stats();
  for (let i = 0; i < 2000 && (s.running !== 0 || s.queued !== 0); i++) {
    await new Promise((r) => setTimeout(r, 10));
    s = kdf.stats();
  }
  assert.equal(s.queued, 0);
  assert.equal(s.running, 0);
  assert.equal(s.submitted, s.completed + s.failed + s.cancelled + s.shed);
  assert.ok(s.cancelled > 0, 'some queued jobs of terminated workers were cancelled');
});

// Node unloads an addon with the last environment that loaded it. A worker
// is often the only one (a worker pool where the main thread never loads
// kdfpool): the threads of the pools it made outlive its teardown, so the
// library must stay mapped under them.
test('pools of a terminated worker that alone loaded kdfpool never crash the process', () => {
  const source = `
    const { Worker } = require('node:worker_threads');
    const root = process.env.KDFPOOL_ROOT;
    (async () => {
      for (let i = 0; i < 4; i++) {
        const w = new Worker(\`
          const { parentPort } = require('node:worker_threads');
          const kdf = require(\${JSON.stringify(root)});
          const pool = kdf.createPool({ threads: 2 });
          pool.pbkdf2('pw', 'salt', 1, 32, 'sha256').then(() => {
            if (\${i} % 2) for (let j = 0; j < 4; j++) pool.pbkdf2('pw', 'salt', 50000, 32, 'sha512').catch(() => {});
            parentPort.postMessage('ready');
          });
        \`, { eval: true });
        await new Promise((resolve) => w.once('message', resolve));
        await w.terminate();
      }
      // Time for the closed pools' threads to run into unmapped code.
      setTimeout(() => process.stdout.write('ok'), 200);
    })();
  `;
  const r = runChild(source);
  assertClean(r, 'terminated worker with created pools');
  assert.equal(r.stdout, 'ok');
});

// Nobody is left to read what a terminated worker's pools compute: their
// running jobs stop (the threads are named kdf-<pool>-<n>, see
// /proc/self/task) instead of holding a core for the job's whole length.
test('a terminated worker\'s pools stop their running jobs', { skip: process.platform !== 'linux' }, () => {
  const source = `
    const fs = require('node:fs');
    const { Worker } = require('node:worker_threads');
    const root = process.env.KDFPOOL_ROOT;
    const poolThreads = () => fs.readdirSync('/proc/self/task').filter((t) => {
      try { return fs.readFileSync('/proc/self/task/' + t + '/comm', 'utf8').startsWith('kdf-orph-'); } catch { return false; }
    }).length;
    (async () => {
      const w = new Worker(\`
        const kdf = require(\${JSON.stringify(root)});
        const pool = kdf.createPool({ name: 'orph', threads: 1 });
        // Minutes of work on any CPU.
        pool.pbkdf2('pw', 'salt', 2 ** 31 - 1, 32, 'sha512').catch(() => {});
        const started = () => pool.stats().running === 1 ? require('node:worker_threads').parentPort.postMessage('running')
          : setImmediate(started);
        started();
      \`, { eval: true });
      await new Promise((resolve) => w.once('message', resolve));
      await w.terminate();
      // Bounded by the runner's hang limit, far below the job's length.
      while (poolThreads() !== 0) await new Promise((r) => setTimeout(r, 20));
      process.stdout.write('ok');
    })();
  `;
  const r = runChild(source);
  assertClean(r, 'orphaned running job');
  assert.equal(r.stdout, 'ok');
});

// The default pool outlives every environment: a terminated worker's job
// running there stops too (its worker's stop flag, raised for jobs whose
// owner is gone), while another environment's job on the same pool runs on.
test('a terminated worker\'s job running on the shared default pool stops; others run on', () => {
  const source = `
    const { Worker } = require('node:worker_threads');
    const root = process.env.KDFPOOL_ROOT;
    const kdf = require(root);
    kdf.configure({ threads: 2, maxWaitMs: 0 });
    (async () => {
      // This environment's job, seconds long: it must not be stopped.
      let mineDone = false;
      const mine = kdf.pbkdf2('pw', 'salt', 30000000, 32, 'sha256').finally(() => { mineDone = true; });
      const w = new Worker(\`
        const kdf = require(\${JSON.stringify(root)});
        // Minutes of work on any CPU.
        kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 32, 'sha512').catch(() => {});
        const started = () => kdf.stats().running === 2 ? require('node:worker_threads').parentPort.postMessage('running')
          : setImmediate(started);
        started();
      \`, { eval: true });
      await new Promise((resolve) => w.once('message', resolve));
      await w.terminate();
      // Both threads were busy: a short job gets one only once the orphan
      // stops (or, if it never did, once this environment's job ends).
      await kdf.pbkdf2('quick', 'salt', 1, 32, 'sha256');
      if (mineDone) return process.stdout.write('the orphan held its thread');
      const key = await mine; // its bytes are checked elsewhere: here, that it ran to its end
      process.stdout.write(key.length === 32 ? 'ok' : 'no key');
    })();
  `;
  const r = runChild(source);
  assertClean(r, 'orphaned job on the default pool');
  assert.equal(r.stdout, 'ok');
});

// One client, one key, from every thread of the process: the same fairKey
// from the main thread and a worker is one key on the shared default pool.
test('a fairKey is one key from every thread of the process', () => {
  const source = `
    const { Worker } = require('node:worker_threads');
    const root = process.env.KDFPOOL_ROOT;
    const kdf = require(root);
    const { gate } = require(root + '/test/helpers/gate');
    kdf.configure({ threads: 1, maxQueue: 64, maxWaitMs: 0 });
    (async () => {
      const g = gate(); // holds the one thread
      kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: 'client-9' }).catch(() => {});
      const w = new Worker(\`
        const kdf = require(\${JSON.stringify(root)});
        kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256', { fairKey: 'client-9' }).catch(() => {});
        require('node:worker_threads').parentPort.postMessage('queued');
      \`, { eval: true });
      await new Promise((resolve) => w.once('message', resolve));
      while (kdf.stats().queued !== 2) await new Promise((r) => setTimeout(r, 5));
      process.stdout.write('keys=' + kdf.stats().keys);
      g.release();
      await w.terminate();
    })();
  `;
  const r = runChild(source);
  assertClean(r, 'one key from two threads');
  assert.equal(r.stdout, 'keys=1');
});

test('a worker exiting on its own with jobs in flight does not crash the process', () => {
  const source = `
    const { Worker } = require('node:worker_threads');
    const root = process.env.KDFPOOL_ROOT;
    let done = 0;
    for (let i = 0; i < 8; i++) {
      const w = new Worker(\`
        const kdf = require(\${JSON.stringify(root)});
        for (let j = 0; j < 4; j++) kdf.pbkdf2('pw', 'salt', 30000, 32, 'sha256').catch(() => {});
        setTimeout(() => process.exit(0), \${i});
      \`, { eval: true });
      w.on('exit', () => { if (++done === 8) process.stdout.write('ok'); });
    }
  `;
  const r = runChild(source);
  assertClean(r, 'workers exiting');
  assert.equal(r.stdout, 'ok');
});
