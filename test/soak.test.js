'use strict';

// Runs the soak (scripts/soak.js) for a bounded time in a child process and
// asserts no violation: every job settled once, stats identity per pool,
// no unhandled rejection, RSS/fd/thread bounds (under ASan: live malloc'ed
// bytes instead of RSS). Longer: npm run soak -- --seconds N.

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { spawn } = require('node:child_process');

const SOAK = path.join(__dirname, '..', 'scripts', 'soak.js');
const SECONDS = Number(process.env.KDFPOOL_SOAK_SECONDS || 20);

test(`soak for ${SECONDS} s: no violation`, { timeout: (SECONDS + 180) * 1000 }, async (t) => {
  const { code, out, err } = await new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SOAK, '--seconds', String(SECONDS), '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let o = ''; let e = '';
    child.stdout.on('data', (d) => { o += d; });
    child.stderr.on('data', (d) => { e += d; });
    child.on('error', reject);
    child.on('exit', (c, signal) => resolve({ code: signal ? signal : c, out: o, err: e }));
  });
  let report;
  try { report = JSON.parse(out.trim().split('\n').pop()); } catch {
    assert.fail(`the soak printed no report (exit ${code}):\n${out}\n${err}`);
  }
  t.diagnostic(`jobs ${report.jobs.started} started, ${report.jobs.settled} settled, ${report.jobs.pending} pending; ${report.configures} configures, ${report.poolCycles} pool cycles, ${report.workers.started} workers`);
  t.diagnostic(`threads final ${report.bounds.kdfThreads.final} (expected ${report.bounds.kdfThreads.expected}); fds ${report.bounds.fds.warmup} -> ${report.bounds.fds.final}; RSS ${report.bounds.rssMb.warmup} -> ${report.bounds.rssMb.final} MiB`
    + (report.bounds.rssMb.bound === null ? ' (not bounded)' : ''));
  const heap = report.bounds.heapMb;
  if (heap) t.diagnostic(`malloc'ed (ASan) ${heap.warmup} -> ${heap.final} MiB, bound ${heap.bound} MiB`);
  // Under ASan the malloc'ed bytes stand in for RSS; elsewhere RSS is bounded.
  assert.ok(heap || report.bounds.rssMb.bound !== null, 'neither RSS nor the malloc\'ed bytes were bounded');
  assert.strictEqual(report.jobs.pending, 0, 'jobs never settled');
  assert.deepStrictEqual(report.violations, []);
  assert.strictEqual(code, 0);
});
