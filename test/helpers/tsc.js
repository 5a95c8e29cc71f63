'use strict';

// Runs this checkout's TypeScript compiler over a tsconfig.json and fails
// the test with tsc's output unless it compiles cleanly.

const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');

const TSC = require.resolve('typescript/bin/tsc');

function assertTypeChecks(tsconfig) {
  const r = spawnSync(process.execPath, [TSC, '-p', tsconfig], { encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
}

module.exports = { TSC, assertTypeChecks };
