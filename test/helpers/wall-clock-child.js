'use strict';

// Run by test/wall-clock.test.js with test/native/clock_shim.c preloaded.
// Steps the wall clock (creates the shim's trigger file: from then on every
// wall-clock read in this process is KDFPOOL_CLOCK_STEP_S ahead), queues a
// maxWaitMs: 200 call behind a held thread, and prints one JSON line: how
// far the wall clock moved against the monotonic one, and how the call had
// ended 2 s later (a hang bound, on libuv's monotonic timers).

const fs = require('node:fs');
const kdf = require('../..');
const { gate } = require('./gate');
const { until } = require('./until');

const HANG_BOUND_MS = 2000;

async function main() {
  const wall0 = Date.now();
  const mono0 = performance.now();
  fs.writeFileSync(process.env.KDFPOOL_CLOCK_STEP_FILE, '');
  const stepMs = Date.now() - wall0 - (performance.now() - mono0);

  const pool = kdf.createPool({ threads: 1, name: 'stepped' });
  const held = gate(pool);
  await until(() => pool.stats().running === 1, 'the gate to hold the thread');
  const late = pool.pbkdf2('late', 'salt', 1, 32, 'sha256', { maxWaitMs: 200 });
  const settled = late.then(
    () => 'resolved',
    (err) => ({ name: err.name, code: err.code, reason: err.reason }),
  );
  const bound = new Promise((resolve) => setTimeout(resolve, HANG_BOUND_MS, `still queued after ${HANG_BOUND_MS} ms`));
  const outcome = await Promise.race([settled, bound]);
  const { running, queued, shed } = pool.stats();
  held.release();
  await held.done;
  await settled;
  await pool.close();
  process.stdout.write(`${JSON.stringify({ stepMs, outcome, running, queued, shed })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
