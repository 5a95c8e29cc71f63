'use strict';

// Runs each coverage-guided fuzz target (test/fuzz/targets/) for a bounded
// time in a child process and asserts that it found no failure. Longer runs:
// npm run fuzz -- --seconds N [--target name]. No assertion about speed.

const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const fs = require('node:fs');
const { spawn } = require('node:child_process');

const ENGINE = path.join(__dirname, 'fuzz', 'engine.js');
const SECONDS = Number(process.env.KDFPOOL_FUZZ_SECONDS || 9);
const targets = fs.readdirSync(path.join(__dirname, 'fuzz', 'targets')).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3));

function runEngine(target) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENGINE, '--target', target, '--seconds', String(SECONDS), '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = ''; let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

for (const target of targets) {
  test(`fuzz target ${target}: no crash, hang, unhandled rejection, code-less error or oracle failure in ${SECONDS} s`, { timeout: (SECONDS + 120) * 1000 }, async (t) => {
    const { code, out, err } = await runEngine(target);
    let summary;
    try { summary = JSON.parse(out.trim().split('\n').pop())[0]; } catch {
      assert.fail(`the fuzz engine printed no summary (exit ${code}):\n${out}\n${err}`);
    }
    t.diagnostic(`seed ${summary.seed}: ${summary.execs} execs (${summary.execsPerSec}/s), corpus ${summary.corpus}, covered blocks ${summary.blocks}, features ${summary.features}, lib lines ${summary.lines ? `${summary.lines.covered}/${summary.lines.total}` : '?'}`);
    for (const [k, n] of Object.entries(summary.notes || {})) t.diagnostic(`note ${k}: ${n.count}`);
    const failures = summary.failures || [];
    assert.ok(summary.execs > 0, 'the target ran no input');
    assert.deepStrictEqual(failures.map((f) => `${f.kind}: ${f.message} (${f.file})`), [],
      `failures (inputs saved under test/fuzz/crashes/; replay with node test/fuzz/engine.js --target ${target} --replay <file>):\n${err}`);
    assert.strictEqual(code, 0);
  });
}
