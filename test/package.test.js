'use strict';

// The install a user would do. npm 11 does not let dependencies' install
// scripts run unreviewed (depending on its settings it skips them, refuses
// the install, or runs them with a notice), so `npm install kdfpool` must
// work from the prebuilt binary alone: build it (npm run prebuild), pack the
// package, install the tarball into a fresh service with npm's default
// settings and again with every script blocked, and call every KDF from
// CommonJS and from an ES module. Then the fallback: a tarball without the
// prebuild, installed with scripts blocked, then kdfpool's install script
// approved and run, builds from source. Only the npm registry is reached
// (for node-gyp-build).

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// A clean environment for the user's npm: no npm_* variables inherited from
// the `npm test` that runs this file (they would change npm's settings).
function userEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_/i.test(k) && k !== 'INIT_CWD' && k !== 'KDFPOOL_WERROR') env[k] = v;
  }
  return env;
}

function run(cmd, args, cwd, env = userEnv()) {
  return execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600000 });
}

// What the service's code does with the package, checked against node:crypto
// and published vectors.
const CHECKS = `
  const crypto = require('node:crypto');
  async function check(kdf) {
    const eq = (a, b, what) => { if (!Buffer.from(a).equals(Buffer.from(b))) throw new Error(what + ' differs'); };
    eq(await kdf.pbkdf2('pw', 'salt', 1000, 64, 'sha512'), crypto.pbkdf2Sync('pw', 'salt', 1000, 64, 'sha512'), 'pbkdf2');
    eq(kdf.pbkdf2Sync('pw', 'salt', 10, 20, 'sha1'), crypto.pbkdf2Sync('pw', 'salt', 10, 20, 'sha1'), 'pbkdf2Sync');
    eq(await kdf.scrypt('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }), crypto.scryptSync('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }), 'scrypt');
    // RFC 9106 section 5.3 (argon2id).
    const b = (n, c) => Buffer.alloc(n, c);
    const tag = await kdf.argon2('argon2id', { message: b(32, 1), nonce: b(16, 2), secret: b(8, 3),
      associatedData: b(12, 4), parallelism: 4, tagLength: 32, memory: 32, passes: 3 });
    eq(tag, Buffer.from('0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659', 'hex'), 'argon2id');
    for (const algorithm of ['argon2id', 'bcrypt']) {
      const phc = await kdf.hash('correct horse', algorithm === 'bcrypt' ? { algorithm, cost: 4 } : { algorithm });
      if (!(await kdf.verify(phc, 'correct horse'))) throw new Error(algorithm + ' verify');
      if (await kdf.verify(phc, 'wrong')) throw new Error(algorithm + ' verify accepted a wrong password');
    }
    return require.resolve('kdfpool');
  }
`;

const CJS = `${CHECKS}
  const kdf = require('kdfpool');
  check(kdf).then(() => console.log('cjs ok ' + Object.keys(kdf).length));
`;

const ESM = `
  import { createRequire } from 'node:module';
  import kdf, { pbkdf2, scrypt, argon2, hash, verify } from 'kdfpool';
  import * as ns from 'kdfpool';
  const require = createRequire(import.meta.url);
  const check = new Function('require', 'Buffer', ${JSON.stringify(`${CHECKS}; return check;`)})(require, Buffer);
  if (pbkdf2 !== kdf.pbkdf2 || ns.scrypt !== scrypt || argon2 !== kdf.argon2 || hash !== kdf.hash || verify !== kdf.verify) {
    throw new Error('ESM exports differ from CommonJS');
  }
  await check(kdf);
  console.log('esm ok');
`;

function makeService(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'login-service', version: '1.0.0', private: true }));
  fs.writeFileSync(path.join(dir, 'app.cjs'), CJS);
  fs.writeFileSync(path.join(dir, 'app.mjs'), ESM);
}

test('packed and installed like a user would: prebuilt (CJS and ESM), then from source', {
  skip: process.platform !== 'linux' && 'the prebuild made here is linux-x64',
  timeout: 900000,
}, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-pkg-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  run(NPM, ['run', 'prebuild'], ROOT, process.env);
  const binary = path.join(ROOT, 'prebuilds', `${process.platform}-${process.arch}`, 'kdfpool.node');
  assert.ok(fs.existsSync(binary), 'npm run prebuild made prebuilds/<platform>-<arch>/kdfpool.node');
  // The binary needs nothing beyond what node provides: no libsodium, and
  // no system libcrypto on a node that bundles OpenSSL.
  const ldd = run('ldd', [binary], ROOT);
  assert.doesNotMatch(ldd, /sodium|libcrypto|libssl/);

  const packed = JSON.parse(run(NPM, ['pack', '--json', '--pack-destination', tmp], ROOT, process.env));
  const tarball = path.join(tmp, packed[0].filename);
  const shipped = packed[0].files.map((f) => f.path);
  for (const f of ['binding.gyp', 'index.d.ts', 'lib/index.js', 'lib/index.mjs', 'src/pool/pool.c',
    `prebuilds/${process.platform}-${process.arch}/kdfpool.node`]) {
    assert.ok(shipped.includes(f), `${f} is in the tarball`);
  }
  for (const f of shipped) assert.doesNotMatch(f, /^(test|bench|build|node_modules|examples)\//, `${f} should not ship`);

  for (const [label, flags] of [['npm defaults', []], ['every script blocked', ['--ignore-scripts']]]) {
    await t.test(`prebuilt: plain npm install (${label})`, () => {
      const app = path.join(tmp, `service-${flags.length}`);
      makeService(app);
      run(NPM, ['install', '--no-audit', '--no-fund', ...flags, tarball], app);
      const installed = path.join(app, 'node_modules', 'kdfpool');
      assert.ok(!fs.existsSync(path.join(installed, 'build')), 'nothing was compiled at install');
      assert.match(run(process.execPath, ['app.cjs'], app), /^cjs ok/);
      assert.match(run(process.execPath, ['app.mjs'], app), /^esm ok/);
    });
  }

  await t.test('no prebuild: approving kdfpool\'s install script builds it from source', () => {
    const unpacked = path.join(tmp, 'unpacked');
    fs.mkdirSync(unpacked);
    run('tar', ['xzf', tarball, '-C', unpacked], tmp);
    fs.rmSync(path.join(unpacked, 'package', 'prebuilds'), { recursive: true, force: true });
    const sourceOnly = JSON.parse(run(NPM, ['pack', '--json', '--pack-destination', tmp], path.join(unpacked, 'package')));
    const app = path.join(tmp, 'service-src');
    makeService(app);
    // What a user meets on a platform with no prebuild when the install
    // script was not allowed to run: a clear error, then approve and run it.
    run(NPM, ['install', '--no-audit', '--no-fund', '--ignore-scripts', path.join(tmp, sourceOnly[0].filename)], app);
    const installed = path.join(app, 'node_modules', 'kdfpool');
    assert.ok(!fs.existsSync(path.join(installed, 'prebuilds')));
    assert.ok(!fs.existsSync(path.join(installed, 'build')), 'scripts blocked: nothing built yet');
    assert.throws(() => run(process.execPath, ['app.cjs'], app), /ERR_KDF_NO_BINARY|npm rebuild kdfpool/);
    run(NPM, ['install-scripts', 'approve', 'kdfpool'], app);
    assert.ok(JSON.parse(fs.readFileSync(path.join(app, 'package.json'), 'utf8')).allowScripts);
    run(NPM, ['rebuild', 'kdfpool'], app);
    assert.ok(fs.existsSync(path.join(installed, 'build', 'Release', 'kdfpool.node')), 'built from source at install');
    assert.match(run(process.execPath, ['app.cjs'], app), /^cjs ok/);
    assert.match(run(process.execPath, ['app.mjs'], app), /^esm ok/);
  });
});
