'use strict';

// The module layout: the public module exports the API and nothing
// internal, and lib/ has no require cycle (scripts/check-cycles.js, which
// must also see a cycle hidden in a function body).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const kdf = require('..');

const ROOT = path.join(__dirname, '..');
const CHECK = path.join(ROOT, 'scripts', 'check-cycles.js');

test('the public module exports the API and nothing internal', () => {
  assert.deepEqual(Object.getOwnPropertyNames(kdf).sort(), [
    'AbortError', 'HashLimitError', 'InvalidHashError', 'KdfError', 'MemoryLimitError',
    'PoolClosedError', 'PoolSaturatedError', 'argon2', 'argon2Sync', 'configure', 'createPool', 'currentFairKey',
    'default', 'fairKeyMiddleware', 'hash', 'hashSync', 'needsRehash', 'pbkdf2', 'pbkdf2Sync', 'rateLimitHeaders', 'readiness',
    'rehashTarget', 'requestSignal', 'requiredLimits', 'runWithFairKey', 'scrypt',
    'scryptSync', 'stats', 'tune', 'verify', 'verifySync', 'verifyUnknown', 'verifyUnknownSync',
  ]);
  assert.equal(kdf._internal, undefined);
  assert.equal(kdf.default, kdf, 'the default export (TypeScript and bundlers read it) is the module itself');
  const pool = kdf.createPool({ threads: 1, name: 'lay' });
  assert.deepEqual(Object.keys(pool).filter((k) => k.startsWith('_')), []);
  return pool.close();
});

test('lib/ has no require cycle', () => {
  const r = spawnSync(process.execPath, [CHECK, path.join(ROOT, 'lib')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /no require cycles/);
});

test('check-cycles finds a cycle hidden in a function body', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-cycles-'));
  try {
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'a.js'), "'use strict';\nconst b = require('./sub/b');\nmodule.exports = b;\n");
    fs.writeFileSync(path.join(dir, 'sub', 'b.js'),
      "'use strict';\n// require('../nothing')\nmodule.exports = () => require('../a');\n");
    const r = spawnSync(process.execPath, [CHECK, dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /a\.js -> sub\/b\.js -> a\.js/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('check-layers fails when a callee includes its caller\'s declarations (a picker and its kernel)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-layers-'));
  const write = (file, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  const run = () => spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'check-layers.js'), dir], { encoding: 'utf8' });
  try {
    write('kdf/kdf.c', 'int kdf_run(void) { return 0; }\n');
    // pick.c calls the kernel; the kernel's file includes pick.h for a
    // type it needs, and with it the picker's own functions.
    write('kdf/x/pick.h', 'typedef int x_state;\nint x_pick(void);\nint x_kernel(x_state s);\n');
    write('kdf/x/pick.c', '#include "kdf/x/pick.h"\nint x_pick(void) { return x_kernel(1); }\n');
    write('kdf/x/kernel.c', '#include "kdf/x/pick.h"\nint x_kernel(x_state s) { return s; }\n');
    const circle = run();
    assert.equal(circle.status, 1, circle.stdout);
    assert.match(circle.stderr, /kdf\/x\/kernel\.c includes kdf\/x\/pick\.h, which declares x_pick of kdf\/x\/pick\.c/);
    // The shared part in a header of its own: the kernel no longer sees the picker.
    write('kdf/x/core.h', 'typedef int x_state;\nint x_kernel(x_state s);\n');
    write('kdf/x/pick.h', '#include "kdf/x/core.h"\nint x_pick(void);\n');
    write('kdf/x/kernel.c', '#include "kdf/x/core.h"\nint x_kernel(x_state s) { return s; }\n');
    const clean = run();
    assert.equal(clean.status, 0, clean.stderr);
    assert.match(clean.stdout, /no callee includes its caller's declarations, in kdf\/ kdf\/x\//);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// package-lock.json's entry for the package itself mirrors package.json:
// where they differ, the next `npm install` (or a setup on another npm)
// rewrites the lock in a fresh clone. npm sorts the dependency maps.
test('package-lock.json is in step with package.json (a fresh install rewrites nothing)', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const root = lock.packages[''];
  const sorted = (o) => (o === undefined ? undefined : Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))));
  assert.equal(lock.name, pkg.name);
  assert.equal(lock.version, pkg.version);
  for (const key of ['name', 'version', 'license', 'bin', 'engines']) {
    assert.deepEqual(root[key], pkg[key], `packages[""].${key}`);
  }
  for (const key of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta']) {
    assert.deepEqual(sorted(root[key]), sorted(pkg[key]), `packages[""].${key}`);
  }
  for (const name of Object.keys(pkg.devDependencies || {})) {
    assert.ok(lock.packages[`node_modules/${name}`], `the lock installs ${name}`);
  }
});
