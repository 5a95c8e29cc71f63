'use strict';

// process.exit() while a worker maps and faults in a large scrypt arena:
// the worker stops after the step it is in (test/native/test_pool.c counts
// the steps: none after the stop flag), so exit does not wait for the rest
// of the pages. Here, in a child process, the whole path through the addon:
// the child must exit cleanly; the timeout is a hang guard, not a measure.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const HANG_LIMIT_MS = 120000;

test('process.exit() while a scrypt arena is being faulted in exits cleanly', () => {
  // N = 2^19, r = 8: 512 MiB of scratch, mapped when the job starts, so a
  // job seen running is (almost always) still faulting its arena in.
  const source = `
    const kdf = require(process.env.KDFPOOL_ROOT);
    const pool = kdf.createPool({ threads: 1, maxMemory: 2 ** 30 });
    const opts = { N: 2 ** 19, r: 8, p: 1, maxmem: 2 ** 30 };
    pool.scrypt('pw', 'salt', 32, opts).then(
      () => process.exit(3), // finished before the exit: the scenario was not tested
      (err) => { console.error(err); process.exit(4); });
    const poll = () => (pool.stats().running === 1 ? process.exit(0) : setImmediate(poll));
    poll();
  `;
  const r = spawnSync(process.execPath, ['-e', source], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: HANG_LIMIT_MS,
    env: { ...process.env, KDFPOOL_ROOT: ROOT },
  });
  assert.equal(r.error, undefined, String(r.error));
  assert.equal(r.signal, null, `killed by ${r.signal}\n${r.stderr}`);
  assert.equal(r.status, 0, `exit ${r.status}\n${r.stderr}`);
});
