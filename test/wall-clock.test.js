'use strict';

// Deadlines on a monotonic clock: a step of the wall clock moves none. A
// test cannot step the machine's clock, so a child node runs with
// test/native/clock_shim.c preloaded (LD_PRELOAD): from a moment the child
// chooses, every wall-clock read in it is an hour ahead of the clock the
// kernel's waits run on, which is what a step of the wall clock back by an
// hour looks like to a wait computed from it (clock_shim.c says why). A
// call queued with maxWaitMs: 200 behind a held thread must then be shed,
// the thread still held, within 2 s: a hang bound that only a deadline
// timed on the wall clock (an hour away) reaches.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const SHIM = path.join(__dirname, 'native', 'clock_shim.c');
const CHILD = path.join(__dirname, 'helpers', 'wall-clock-child.js');
const STEP_S = 3600;

function hasCompiler() {
  return spawnSync('sh', ['-c', 'command -v cc'], { stdio: 'ignore' }).status === 0;
}

const skip = process.platform !== 'linux' ? 'the clock shim is Linux only' : !hasCompiler() && 'no C compiler (cc) to build the clock shim';

test('a maxWaitMs deadline fires on time after the wall clock steps back an hour', { skip }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-clock-'));
  try {
    const shim = path.join(dir, 'clock_shim.so');
    const built = spawnSync('cc', ['-shared', '-fPIC', '-O1', '-o', shim, SHIM], { encoding: 'utf8' });
    assert.equal(built.status, 0, `building the clock shim: ${built.stderr}`);
    // After any preload already there (a sanitizer runtime must stay first).
    const preload = [process.env.LD_PRELOAD, shim].filter(Boolean).join(':');
    const env = { ...process.env, LD_PRELOAD: preload, KDFPOOL_CLOCK_STEP_FILE: path.join(dir, 'step'), KDFPOOL_CLOCK_STEP_S: String(STEP_S) };
    const child = spawnSync(process.execPath, [CHILD], { env, encoding: 'utf8', timeout: 120_000 });
    assert.equal(child.status, 0, `child: ${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop());
    // The shim really stepped the child's wall clock (else this proves nothing).
    assert.ok(r.stepMs >= (STEP_S - 1) * 1000, `the wall clock moved ${r.stepMs} ms beyond the monotonic one`);
    assert.deepEqual(r.outcome, { name: 'PoolSaturatedError', code: 'ERR_KDF_POOL_SATURATED', reason: 'deadline' });
    assert.equal(r.running, 1, 'the gate still held the thread when the call was shed');
    assert.equal(r.queued, 0);
    assert.equal(r.shed, 1);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
