'use strict';

// `import kdf from 'kdfpool'` in a CommonJS TypeScript project: under every
// CommonJS setting (module node16 with "type": "commonjs"; module commonjs
// with node10 resolution, with and without esModuleInterop) the app in
// test/types/cjs compiles against the package's types and runs, giving the
// same key as node:crypto. A default export the types declare but the
// module lacks would compile and then crash here.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const { TSC } = require('./helpers/tsc');

const VARIANTS = {
  node16: { module: 'node16', moduleResolution: 'node16', esModuleInterop: false },
  'commonjs-node10': { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: false },
  'commonjs-node10-interop': { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true },
};

// tsc, as a promise of { status, output }, so the variants compile at once.
function tsc(project) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [TSC, '-p', project], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('close', (status) => resolve({ status, output }));
  });
}

test('a CommonJS TypeScript app with `import kdf from \'kdfpool\'` compiles and runs', { timeout: 180000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-types-cjs-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The app's own package, with kdfpool installed as a link to this checkout.
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'commonjs' }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'kdfpool'), 'dir');
  fs.copyFileSync(path.join(__dirname, 'types', 'cjs', 'app.ts'), path.join(dir, 'app.ts'));
  for (const [name, options] of Object.entries(VARIANTS)) {
    fs.writeFileSync(path.join(dir, `tsconfig.${name}.json`), JSON.stringify({
      compilerOptions: {
        ...options,
        strict: true,
        target: 'ES2022',
        // index.d.ts itself is checked by test/types.test.js; here only
        // what the app sees of it (and far less work on a loaded machine).
        skipLibCheck: true,
        outDir: `out-${name}`,
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        types: ['node'],
      },
      files: ['app.ts'],
    }));
  }
  const names = Object.keys(VARIANTS);
  const compiled = await Promise.all(names.map((name) => tsc(path.join(dir, `tsconfig.${name}.json`))));
  const expected = crypto.pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256').toString('hex');
  names.forEach((name, i) => {
    assert.equal(compiled[i].status, 0, `${name}: tsc failed:\n${compiled[i].output}`);
    const r = spawnSync(process.execPath, [path.join(dir, `out-${name}`, 'app.js')], { encoding: 'utf8', timeout: 60000 });
    assert.equal(r.status, 0, `${name}: the compiled app failed:\n${r.stderr}`);
    assert.deepEqual(JSON.parse(r.stdout), {
      key: expected, named: true, ok: true, sameClass: true, sameDefault: true, instance: true,
    }, name);
  });
});
