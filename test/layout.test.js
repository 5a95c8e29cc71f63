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
    'PoolClosedError', 'PoolSaturatedError', 'argon2', 'argon2Sync', 'configure', 'createPool', 'default',
    'hash', 'hashSync', 'needsRehash', 'pbkdf2', 'pbkdf2Sync', 'requestSignal', 'requiredLimits', 'scrypt', 'scryptSync',
    'stats', 'tune', 'verify', 'verifySync',
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
