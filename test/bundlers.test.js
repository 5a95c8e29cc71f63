'use strict';

// An app bundled with esbuild, as docs/deployment.md tells users to: with
// kdfpool marked external, the bundle (CommonJS and ESM) loads kdfpool from
// node_modules and hashes, verifies and derives the same bytes as
// node:crypto. Bundled without marking it external, loading fails with
// ERR_KDF_NO_BINARY naming the fix (mark it external), not a build from
// source. The app lives in a temporary directory whose node_modules/kdfpool
// links to this checkout, as an installed package would be found.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { spawnSync } = require('node:child_process');
const esbuild = require('esbuild');

const ROOT = path.join(__dirname, '..');

const CJS_APP = `
const kdf = require('kdfpool');
(async () => {
  const phc = await kdf.hash('correct horse');
  const key = await kdf.pbkdf2('pw', 'salt', 1000, 32, 'sha256');
  console.log(JSON.stringify({ right: await kdf.verify(phc, 'correct horse'), wrong: await kdf.verify(phc, 'x'),
    key: key.toString('hex') }));
})().catch((err) => { console.error(err.code, err.message); process.exit(1); });
`;

const ESM_APP = `
import { hash, verify, pbkdf2 } from 'kdfpool';
const phc = await hash('correct horse');
const key = await pbkdf2('pw', 'salt', 1000, 32, 'sha256');
console.log(JSON.stringify({ right: await verify(phc, 'correct horse'), wrong: await verify(phc, 'x'),
  key: key.toString('hex') }));
`;

const EXPECTED_KEY = crypto.pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256').toString('hex');

let app;

test.before(() => {
  app = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-bundle-'));
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'bundled-app', private: true }));
  fs.mkdirSync(path.join(app, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(app, 'node_modules', 'kdfpool'), 'dir');
  fs.writeFileSync(path.join(app, 'app.js'), CJS_APP);
  fs.writeFileSync(path.join(app, 'app.mjs'), ESM_APP);
});

test.after(() => {
  if (app) fs.rmSync(app, { recursive: true, force: true });
});

function bundle(entry, outfile, options) {
  const result = esbuild.buildSync({
    entryPoints: [path.join(app, entry)],
    outfile: path.join(app, 'dist', outfile),
    bundle: true,
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    ...options,
  });
  assert.deepEqual(result.errors, []);
  return path.join(app, 'dist', outfile);
}

function run(file) {
  return spawnSync(process.execPath, [file], { cwd: app, encoding: 'utf8', timeout: 60000 });
}

for (const [name, entry, outfile, format] of [
  ['CommonJS', 'app.js', 'app.cjs', 'cjs'],
  ['ESM', 'app.mjs', 'app.mjs', 'esm'],
]) {
  test(`esbuild, ${name}, kdfpool external: the bundle hashes, verifies and derives node's bytes`, () => {
    const file = bundle(entry, outfile, { format, external: ['kdfpool'] });
    // Nothing of kdfpool was inlined: it is loaded from node_modules.
    assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /kdfpool-build version=/);
    const r = run(file);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { right: true, wrong: false, key: EXPECTED_KEY });
  });
}

test('esbuild without kdfpool external: ERR_KDF_NO_BINARY that says to mark it external', () => {
  const file = bundle('app.js', 'inlined.cjs', { format: 'cjs' });
  assert.match(fs.readFileSync(file, 'utf8'), /kdfpool-build version=/); // the loader inlined, binary left behind
  const r = run(file);
  assert.equal(r.status, 1);
  // Thrown by require('kdfpool') itself, so uncaught: node prints it.
  assert.match(r.stderr, /code: 'ERR_KDF_NO_BINARY'/);
  assert.match(r.stderr, /bundled/);
  assert.match(r.stderr, /--external:kdfpool/);
  assert.match(r.stderr, /serverExternalPackages/);
  // Not the advice for a platform without a binary: a source build would not help.
  assert.doesNotMatch(r.stderr, /build:release/);
});
