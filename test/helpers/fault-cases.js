'use strict';

// The operations test/faults.test.js sweeps with allocation failures, one
// per case: `run(kdf)` performs it once and returns its result, `check`
// says whether a successful result is right, `normal` what an unarmed run
// ends with ('ok' unless given), `codes` the error codes an armed run may
// end with besides ERR_KDF_OUT_OF_MEMORY, `setup(kdf)` runs
// once per child process. Cases with `perProcess` end their process
// (process.exit) and run one armed iteration per child.

const crypto = require('node:crypto');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

const ROOT = path.join(__dirname, '..', '..');
const same = (expected) => (key) => Buffer.isBuffer(key) && key.equals(expected);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One thread: memory-hard jobs always meet the same worker's arena, so the
// number of live allocations is the same before and after each iteration.
// No deadline: under ASan the pool's observed run times (and so its wait
// estimates) grow many times, and the default pool's 2 s deadline could
// refuse the job queued behind the blocker; these sweeps are about
// allocation failures.
const oneThread = (kdf) => kdf.configure({ threads: 1, priority: 'normal', maxWaitMs: 0 });

const ARGON2 = {
  message: Buffer.from('password'),
  nonce: Buffer.alloc(16, 2),
  parallelism: 1,
  tagLength: 32,
  memory: 64,
  passes: 1,
};

// A job that keeps the pool's one thread busy for a while.
const blocker = (kdf) => kdf.pbkdf2('block', 'salt', 300000, 32, 'sha256').catch(() => {});

// Runs `source` in a worker_thread that loads kdfpool; resolves with what it
// posts, or with its error's code if it fails. `terminateOn`: terminate it
// when it posts this message.
function inWorker(source, terminateOn) {
  return new Promise((resolve) => {
    const w = new Worker(`
      const { parentPort } = require('node:worker_threads');
      const nudge = ${nudgeSource};
      (async () => {
        const kdf = require(${JSON.stringify(ROOT)});
        ${source}
      })().then((v) => parentPort.postMessage(v), (e) => parentPort.postMessage({ code: e.code ?? String(e) }));
    `, { eval: true });
    let result;
    w.on('message', (m) => {
      result = m;
      if (terminateOn !== undefined && m === terminateOn) w.terminate();
    });
    w.on('error', (e) => { result = { code: e.code ?? String(e) }; });
    w.on('exit', () => resolve(result));
  });
}

// If `p` has not settled after a while, makes one more call into the
// native module from this thread: that settles a job whose wake-up of the
// JS thread failed (the documented guarantee). Then waits for `p`.
const nudgeSource = `async function nudge(p, kdf) {
  let settled = false;
  p.then(() => { settled = true; }, () => { settled = true; });
  for (let waited = 0; !settled && waited < 1500; waited += 10) await new Promise((r) => setTimeout(r, 10));
  if (!settled) kdf.pbkdf2Sync('nudge', 'salt', 1, 1, 'sha1');
  return p;
}`;

const CASES = {
  'pbkdf2 async': {
    run: (kdf) => kdf.pbkdf2('pw', 'salt', 1000, 48, 'sha256'),
    check: same(crypto.pbkdf2Sync('pw', 'salt', 1000, 48, 'sha256')),
  },
  'pbkdf2 sync': {
    run: (kdf) => kdf.pbkdf2Sync('pw', 'salt', 1000, 48, 'sha512'),
    check: same(crypto.pbkdf2Sync('pw', 'salt', 1000, 48, 'sha512')),
  },
  'scrypt async': {
    setup: oneThread,
    run: (kdf) => kdf.scrypt('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }),
    check: same(crypto.scryptSync('pw', 'salt', 32, { N: 1024, r: 8, p: 1 })),
  },
  'scrypt sync': {
    run: (kdf) => kdf.scryptSync('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }),
    check: same(crypto.scryptSync('pw', 'salt', 32, { N: 1024, r: 8, p: 1 })),
  },
  'argon2 async': {
    setup: oneThread,
    run: (kdf) => kdf.argon2('argon2id', ARGON2),
    check: (key) => Buffer.isBuffer(key) && key.length === 32,
  },
  'argon2 sync': {
    run: (kdf) => kdf.argon2Sync('argon2id', ARGON2),
    check: (key) => Buffer.isBuffer(key) && key.length === 32,
  },
  'bcrypt via hash': {
    run: (kdf) => kdf.hash('pw', { algorithm: 'bcrypt', cost: 4 }),
    check: (h) => typeof h === 'string' && h.startsWith('$2b$04$'),
  },
  'verify (argon2id)': {
    setup: oneThread,
    run: (kdf) => kdf.verify('$argon2id$v=19$m=64,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$' +
      '5L9+S6a7dW7gzdbS2LZ9O1F7lyAeq8Dnb2Rh2mzVPVs', 'password'),
    check: (ok) => typeof ok === 'boolean',
  },
  'AbortSignal, aborted while running': {
    setup: oneThread,
    run: (kdf) => {
      const ac = new AbortController();
      const p = kdf.pbkdf2('pw', 'salt', 50000, 32, 'sha256', { signal: ac.signal });
      setTimeout(() => ac.abort(), 1);
      return p;
    },
    normal: ['ABORT_ERR', 'ok'],
    codes: ['ABORT_ERR'],
  },
  'cancel a queued job (AbortSignal)': {
    setup: oneThread,
    run: async (kdf) => {
      const busy = blocker(kdf);
      const ac = new AbortController();
      const p = kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal: ac.signal });
      ac.abort();
      try {
        return await p;
      } finally {
        await busy;
      }
    },
    normal: ['ABORT_ERR'],
    codes: ['ABORT_ERR'],
  },
  'configure: resize threads and budget': {
    run: (kdf) => {
      // A grow that fails keeps the threads that did start, each with what
      // it holds (priority 'auto': its twin): shrink back even then, so
      // that what is still live after the run is a leak.
      try {
        kdf.configure({ threads: 3 });
      } finally {
        kdf.configure({ threads: 1, maxMemory: 32 * 1024 * 1024 });
      }
      kdf.configure({ maxMemory: 256 * 1024 * 1024 });
      kdf.stats(); // sorts its percentile windows in memory of its own
      return kdf.pbkdf2('pw', 'salt', 1, 8, 'sha256');
    },
    check: same(crypto.pbkdf2Sync('pw', 'salt', 1, 8, 'sha256')),
  },
  // More clients queued than the key table's first buckets (it grows),
  // then remembered as their jobs end (the memory is allocated): a failure
  // of either only loses bookkeeping, never a call.
  'fair keys: 70 clients queued, then remembered': {
    run: async (kdf) => {
      const pool = kdf.createPool({ threads: 1, maxQueue: 100 });
      try {
        const calls = [];
        for (let i = 0; i < 70; i++) calls.push(pool.pbkdf2('pw', 'salt', 1, 8, 'sha256', { fairKey: `client ${i}` }));
        const keys = await Promise.all(calls);
        return keys[69];
      } finally {
        await pool.close();
      }
    },
    check: same(crypto.pbkdf2Sync('pw', 'salt', 1, 8, 'sha256')),
  },
  'createPool, a job, close': {
    run: async (kdf) => {
      const pool = kdf.createPool({ threads: 2 });
      try {
        return await pool.scrypt('pw', 'salt', 16, { N: 256, r: 8, p: 1 });
      } finally {
        await pool.close();
      }
    },
    check: same(crypto.scryptSync('pw', 'salt', 16, { N: 256, r: 8, p: 1 })),
  },
  'worker_thread: cancellable job, normal exit': {
    run: () => inWorker(`
      const ac = new AbortController();
      return nudge(kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256', { signal: ac.signal }), kdf)
        .then((key) => key.toString('hex'));
    `),
    check: (r) => r === crypto.pbkdf2Sync('pw', 'salt', 10, 32, 'sha256').toString('hex'),
    unwrap: (r) => (r && typeof r === 'object' && 'code' in r ? Promise.reject(r) : r),
  },
  'worker_thread: terminated mid-job': {
    run: () => inWorker(`
      const ac = new AbortController();
      kdf.pbkdf2('pw', 'salt', 200000, 32, 'sha256', { signal: ac.signal }).catch(() => {});
      kdf.scrypt('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }).catch(() => {});
      return 'submitted';
    `, 'submitted'),
    check: (r) => r === 'submitted',
    unwrap: (r) => (r && typeof r === 'object' && 'code' in r ? Promise.reject(r) : r),
  },
  'process.exit() with jobs in flight': {
    perProcess: true,
    run: async (kdf) => {
      for (let i = 0; i < 4; i++) kdf.pbkdf2(`pw${i}`, 'salt', 200000, 32, 'sha256').catch(() => {});
      kdf.scrypt('pw', 'salt', 32, { N: 4096, r: 8, p: 1 }).catch(() => {});
      kdf.argon2('argon2id', ARGON2).catch(() => {});
      await sleep(20);
      process.exit(0);
    },
  },
};

module.exports = { CASES, nudgeSource };
