'use strict';

// The framework entries as a package: kdfpool/better-auth, kdfpool/authjs
// and kdfpool/nestjs in the export map for require and import, their
// frameworks optional peer dependencies, ERR_KDF_MISSING_PEER when one is
// absent (each loads its framework only when it needs it), and their
// declarations under tsc (nodenext, strict) against the frameworks' own
// types, with the NestJS recipe of docs/frameworks.md compiled beside them.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { assertTypeChecks } = require('./helpers/tsc');
const { recipeSource, RECIPES } = require('./helpers/frameworks');

const ROOT = path.join(__dirname, '..');
const ENTRIES = {
  'better-auth': { file: 'lib/frameworks/better-auth.js', peers: ['better-auth'] },
  authjs: { file: 'lib/frameworks/authjs.js', peers: ['@auth/core'] },
  nestjs: { file: 'lib/frameworks/nestjs.js', peers: ['@nestjs/common', '@nestjs/core'] },
};

test('the package exports each entry to require and import, its framework an optional peer', async () => {
  const pkg = require('../package.json');
  for (const [name, { file, peers }] of Object.entries(ENTRIES)) {
    assert.equal(require(`kdfpool/${name}`), require(path.join(ROOT, file)));
    const esm = await import(`kdfpool/${name}`);
    for (const key of Object.keys(require(path.join(ROOT, file)))) assert.equal(esm[key], require(path.join(ROOT, file))[key]);
    assert.deepEqual(pkg.exports[`./${name}`], { types: `./${name}.d.ts`, default: `./${file}` });
    assert.ok(pkg.files.includes(`${name}.d.ts`));
    for (const peer of peers) {
      assert.ok(pkg.peerDependencies[peer], peer);
      assert.equal(pkg.peerDependenciesMeta[peer].optional, true, peer);
    }
  }
});

// In a child whose resolver cannot see the frameworks (an ES module hook
// for import(), and require's own resolver for require()).
const HIDE = `
  const Module = require('node:module');
  const hidden = /^(better-auth|@auth\\/core|@nestjs\\/)/;
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (hidden.test(request)) throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
    return resolve.call(this, request, ...rest);
  };
  Module.register('data:text/javascript,' + encodeURIComponent('const hidden = ' + hidden + ';' +
    'export async function resolve(s, c, next) {' +
    '  if (!hidden.test(s)) return next(s, c);' +
    '  const name = s.split("/").slice(0, s.startsWith("@") ? 2 : 1).join("/");' +
    '  const quoted = String.fromCharCode(39) + name + String.fromCharCode(39);' +
    '  throw Object.assign(new Error("Cannot find package " + quoted + " imported from x"), { code: "ERR_MODULE_NOT_FOUND" });' +
    '}'));
`;

const CHILD = `${HIDE}
  const out = {};
  const codeOf = (err) => ({ name: err.name, code: err.code, message: err.message });
  (async () => {
    const kdf = require('kdfpool');
    const pool = kdf.createPool({ name: 'peers', threads: 1, maxQueue: 0 });
    const saturate = () => require(${JSON.stringify(path.join(ROOT, 'test/helpers/frameworks.js'))}).saturate(pool);
    const ba = require('kdfpool/better-auth');
    const hooks = ba.password({ pool });
    out.baHash = (await hooks.hash('pw')).slice(0, 10);
    const plugin = ba.kdfpool({ pool });
    out.baInit = await plugin.init({ password: {} }).then(() => 'ok', codeOf);
    const authjs = require('kdfpool/authjs');
    const release = await saturate();
    out.baRefusal = await hooks.verify({ hash: '$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2g', password: 'pw' }).then(() => 'ok', codeOf);
    out.authjsRefusal = await authjs.authorize(() => pool.hash('pw'))().then(() => 'ok', codeOf);
    await release();
    try { require('kdfpool/nestjs'); out.nest = 'ok'; } catch (err) { out.nest = codeOf(err); }
    await pool.close();
    console.log(JSON.stringify(out));
  })();
`;

test('a missing framework: ERR_KDF_MISSING_PEER naming it, only when the entry needs it', () => {
  const r = spawnSync(process.execPath, ['-e', CHILD], { cwd: ROOT, encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  // better-auth's hooks hash without it; its errors and the plugin's init need it.
  assert.equal(out.baHash, '$argon2id$');
  for (const [got, peer, entry] of [[out.baInit, 'better-auth', 'kdfpool/better-auth'],
    [out.baRefusal, 'better-auth', 'kdfpool/better-auth'], [out.authjsRefusal, '@auth/core', 'kdfpool/authjs'],
    [out.nest, '@nestjs/common', 'kdfpool/nestjs']]) {
    assert.equal(got.name, 'KdfError', JSON.stringify(got));
    assert.equal(got.code, 'ERR_KDF_MISSING_PEER');
    assert.equal(got.message, `${entry} needs the package ${peer}, which is not installed: npm install ${peer}`);
  }
});

test('the entries\' declarations under tsc, with the frameworks\' types and the NestJS recipe', () => {
  fs.mkdirSync(RECIPES, { recursive: true });
  fs.writeFileSync(path.join(RECIPES, 'nestjs.ts'), recipeSource('nestjs'));
  assertTypeChecks(path.join(__dirname, 'frameworks-types', 'tsconfig.json'));
});
