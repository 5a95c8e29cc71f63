'use strict';

// The packed package's types against its JavaScript, per resolution mode:
// @arethetypeswrong/cli on the tarball `npm pack` writes must find no
// problem for node10, node16 from CommonJS, node16 from an ES module and
// bundler (a phantom default export, ESM types for CJS code or the reverse,
// an entry without types). Packed with --ignore-scripts, so the check does
// not depend on the release scripts or on prebuilt binaries.

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const ATTW = path.join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
const MODES = ['node10', 'node16-cjs', 'node16-esm', 'bundler'];

// No npm_* settings inherited from the `npm test` running this file.
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return env;
}

test('the packed tarball: attw finds no problem in any resolution mode', { timeout: 180000 }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-attw-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync(NPM, ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
    cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000,
  });
  const [tarball] = fs.readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote no tarball');
  const r = spawnSync(process.execPath, [ATTW, path.join(dir, tarball), '--format', 'json'], {
    encoding: 'utf8', timeout: 120000,
  });
  const out = JSON.parse(r.stdout);
  const analysis = out.analysis;
  assert.ok(analysis && analysis.types, `attw could not analyse the package:\n${r.stdout}${r.stderr}`);
  // Each mode resolves the main entry to the declarations of the entry it
  // runs: CommonJS (lib/index.js) or the ES module (lib/index.mjs).
  const resolved = {};
  for (const mode of MODES) {
    const found = analysis.entrypoints['.'].resolutions[mode];
    resolved[mode] = found && found.resolution ? path.basename(found.resolution.fileName) : null;
  }
  assert.deepEqual(resolved, {
    node10: 'index.d.ts', 'node16-cjs': 'index.d.ts', 'node16-esm': 'index.d.mts', bundler: 'index.d.mts',
  });
  const problems = analysis.problems.map((p) => `${p.kind}: ${p.typesFileName || ''} ${p.implementationFileName || ''}`);
  assert.deepEqual(problems, [], `attw found problems:\n${problems.join('\n')}`);
  assert.equal(r.status, 0, r.stderr);
});
