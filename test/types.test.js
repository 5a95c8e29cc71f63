'use strict';

// index.d.ts is checked the way a TypeScript user meets it: a file that uses
// the whole public API (and some deliberate misuse, marked @ts-expect-error)
// must compile with tsc --noEmit.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

test('index.d.ts: the public API type-checks and misuse is rejected', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types', 'tsconfig.json')], {
    encoding: 'utf8',
    timeout: 120000,
  });
  assert.equal(r.status, 0, `tsc failed:\n${r.stdout}${r.stderr}`);
});
