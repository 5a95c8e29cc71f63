'use strict';

// process.exit() with every pool thread inside OpenSSL (PBKDF2 over sha3-256,
// node's EVP): the addon stops and joins its pools from its exit hook
// before the host's OpenSSL tears itself down (src/napi/registry.c), and
// with KDFPOOL_EXIT_TRACE set it says so in that file. Here, Linux's
// atexit; test/smoke/run.sh runs the same script (test/smoke/exit-jobs.js)
// under Windows node in wine, where the hook must be OPENSSL_atexit.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const HOOK = process.platform === 'win32' ? 'OPENSSL_atexit' : 'atexit';

test('exit with every thread in OpenSSL: the pools stop from the exit hook, and the trace says so', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-exit-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const trace = path.join(dir, 'trace.txt');
  const marker = path.join(dir, 'marker.txt');
  const r = spawnSync(process.execPath, [path.join(ROOT, 'test', 'smoke', 'exit-jobs.js'), ROOT, marker], {
    encoding: 'utf8', timeout: 60000, env: { ...process.env, KDFPOOL_EXIT_TRACE: trace },
  });
  assert.equal(r.error, undefined, 'a hang guard, not a measure');
  assert.equal(r.status, 42, r.stderr);
  assert.match(fs.readFileSync(marker, 'utf8'), /^exiting: (\d+) of \1 threads in OpenSSL's sha3-256$/m);
  const line = fs.readFileSync(trace, 'utf8');
  const m = new RegExp(`^kdfpool exit: stopped by ${HOOK}: (\\d+) pools, (\\d+) jobs were running, every thread joined\\n$`).exec(line);
  assert.ok(m, line);
  assert.equal(Number(m[1]), 1);
  assert.ok(Number(m[2]) >= 1, line);
});
