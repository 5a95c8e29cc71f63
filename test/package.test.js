'use strict';

// The install a user would do. npm 11 does not let dependencies' install
// scripts run unreviewed (depending on its settings it skips them, refuses
// the install, or runs them with a notice), so kdfpool has none: no install
// script, and no binding.gyp at the package root (npm would invent `node-gyp
// rebuild` for one, and an app's lockfile does not keep "gypfile": false, so
// `npm ci` would compile): the recipe is gyp/binding.gyp. `npm install
// kdfpool` works from the prebuilt binaries alone: `npm pack` refuses
// (prepack, scripts/pack-check.js) unless every target of
// scripts/prebuild-targets.json is there and current; the tarball installs
// into a fresh service with npm's defaults, --ignore-scripts and
// --strict-allow-scripts, then `npm ci` from the service's lockfile, with
// --strict-allow-scripts and with no C compiler on PATH, each with no
// install-script notice, nothing listed by `npm install-scripts ls`, nothing
// compiled, and the prebuild loaded; every KDF works from CommonJS and an ES
// module; LIBC=musl selects the musl binary. Then the fallback: with this
// platform's prebuild removed, require() throws ERR_KDF_NO_BINARY naming one
// command, and that command builds it from source. Where node_modules
// lands: a gyp/build/Release/kdfpool.node from another CPU, OS or libc, a
// test build, a stale build or a text file never shadows the prebuild, and
// when neither loads the error names both paths and why. kdfpool has no
// dependencies: nothing is fetched from the registry. And the
// documentation it ships: in the extracted tarball, every relative link of
// README.md and of the shipped docs resolves to a shipped file (and
// heading), and every npm script the README names runs from the package or
// is marked as needing a checkout.

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

// Every file below dir.
function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

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

// stdout and stderr together (npm's notices go to stderr); throws on failure.
function runAll(cmd, args, cwd, env = userEnv()) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600000 });
  const output = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${output}`);
  return output;
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
  // The addon files this process has mapped (Linux): which binary really loaded.
  const loadedAddons = () => [...new Set(require('node:fs').readFileSync('/proc/self/maps', 'utf8')
    .split('\\n').map((l) => l.slice(l.indexOf('/'))).filter((f) => f.endsWith('.node')))];
`;

const CJS = `${CHECKS}
  const kdf = require('kdfpool');
  check(kdf).then(() => console.log('cjs ok ' + Object.keys(kdf).length + ' ' + JSON.stringify(loadedAddons())));
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

// The binaries the tarball must hold (the one list: name -> { file, cc }),
// and the compilers scripts/prebuild.sh builds them with here.
const LIST = require('../scripts/prebuild-targets.json');
const TARGETS = Object.fromEntries(Object.entries(LIST).map(([name, t]) => [name, t.file]));
const PREBUILDS = Object.values(TARGETS);
// zig (glibc 2.28 and macOS): what scripts/setup-cross.sh installs.
const ZIG = process.env.ZIG || path.join(ROOT, '.tmp/zig-0.12.0-dev.1286/zig');
const COMPILERS = Object.fromEntries(Object.entries(LIST).map(([name, t]) => [name, t.cc === 'zig' ? ZIG : t.cc]));
const HERE = `prebuilds/${process.platform}-${process.arch}/node.napi.glibc.node`;
const VERSION = require('../package.json').version;
// A stand-in for a binary: what matters to packing is its build marker.
const fakeBinary = (target, flags = 'release', version = VERSION) => `not a binary\0kdfpool-build version=${version} target=${target} flags=${flags}\0`;

// A copy of the package's packing inputs with fake binaries, to see
// prepack accept or refuse a tarball without building anything.
function fakePackage(dir) {
  for (const f of ['package.json', 'scripts/pack-check.js', 'scripts/prebuild-targets.json', 'lib/binary.js', 'gyp/binding.gyp', 'src/pool/pool.c']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  for (const [target, f] of Object.entries(TARGETS)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), fakeBinary(target));
  }
}

test('npm pack refuses a tarball without every prebuilt binary, naming the command that builds them', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-prepack-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fakePackage(dir);
  const pack = () => spawnSync(NPM, ['pack', '--dry-run', '--json'], { cwd: dir, env: userEnv(), encoding: 'utf8' });

  const complete = pack();
  assert.equal(complete.status, 0, complete.stderr);
  const listed = JSON.parse(complete.stdout)[0].files.map((f) => f.path);
  for (const f of PREBUILDS) assert.ok(listed.includes(f), `${f} is packed`);

  // Each binary missing in turn (the check itself, without npm: seconds
  // fewer), then one missing through npm pack.
  const check = () => spawnSync(process.execPath, ['scripts/pack-check.js'], { cwd: dir, encoding: 'utf8' });
  for (const [target, file] of Object.entries(TARGETS)) {
    const saved = fs.readFileSync(path.join(dir, file));
    fs.rmSync(path.join(dir, file));
    const r = check();
    assert.notEqual(r.status, 0, `would pack without ${file}`);
    assert.match(r.stderr, new RegExp(`${target}: ${file.replace(/\./g, '\\.')} is missing`));
    assert.match(r.stderr, /`npm run prebuilds`/);
    fs.writeFileSync(path.join(dir, file), saved);
  }
  fs.rmSync(path.join(dir, TARGETS['darwin-arm64']));
  const refused = pack();
  assert.notEqual(refused.status, 0, 'npm pack packed without darwin-arm64');
  assert.match(refused.stderr, /darwin-arm64: .* is missing[^]*`npm run prebuilds`/);
  fs.writeFileSync(path.join(dir, TARGETS['darwin-arm64']), fakeBinary('darwin-arm64'));

  // A binary older than the sources is refused too.
  const old = new Date(Date.now() - 3600e3);
  fs.utimesSync(path.join(dir, TARGETS['win32-x64']), old, old);
  const stale = check();
  assert.notEqual(stale.status, 0, 'would pack an outdated binary');
  assert.match(stale.stderr, /win32-x64: .* is older than src\/pool\/pool\.c/);
});

// GitHub's anchor for a heading: lower case, markdown and punctuation
// dropped (letters, digits, spaces, '-' and '_' kept), spaces to '-'; a
// repeated one gets -1, -2, ...
function anchorsOf(markdown) {
  const seen = new Map();
  const anchors = new Set();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1].replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) || 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

// Markdown with fenced code blocks blanked (their lines kept, so a link's
// line number still means something) and inline code removed.
function withoutCode(markdown) {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  }).join('\n');
}

// [text](target) and ![alt](target) links with a relative target: { line, target }.
function relativeLinks(markdown) {
  const links = [];
  withoutCode(markdown).split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) links.push({ line: i + 1, target: m[1] });
    }
  });
  return links;
}

// Blocks of a markdown file (paragraphs, list items' paragraphs, fenced code
// blocks), each with the block before it: a code block is introduced by
// the sentence above it.
function blocks(markdown) {
  const out = [];
  let current = [];
  let fenced = false;
  const flush = () => {
    if (current.length > 0) out.push(current.join('\n'));
    current = [];
  };
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      if (!fenced) flush();
      current.push(line);
      fenced = !fenced;
      if (!fenced) flush();
    } else if (!fenced && line.trim() === '') {
      flush();
    } else {
      current.push(line);
    }
  }
  flush();
  return out.map((text, i) => ({ text, before: i > 0 ? out[i - 1] : '' }));
}

test('the installed README and docs: every relative link resolves in the package; every npm script named runs from it or is marked as needing a checkout', (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-docs-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const packed = JSON.parse(run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], ROOT, process.env));
  run('tar', ['xzf', path.join(tmp, packed[0].filename), '-C', tmp], tmp);
  const root = path.join(tmp, 'package');
  const shipped = new Set([...walk(root)].map((f) => path.relative(root, f).split(path.sep).join('/')));
  const isShipped = (p) => shipped.has(p) || [...shipped].some((f) => f.startsWith(`${p.replace(/\/$/, '')}/`));

  // The docs the package ships, and what they link to.
  const docs = [...shipped].filter((f) => /\.md$/.test(f));
  for (const f of ['README.md', 'docs/design.md', 'docs/observability.md', 'examples/README.md']) {
    assert.ok(docs.includes(f), `${f} is in the tarball`);
  }
  const anchors = new Map(docs.map((f) => [f, anchorsOf(fs.readFileSync(path.join(root, f), 'utf8'))]));
  const broken = [];
  for (const doc of docs) {
    for (const { line, target } of relativeLinks(fs.readFileSync(path.join(root, doc), 'utf8'))) {
      const [file, anchor] = target.split('#');
      const resolved = file === '' ? doc : path.posix.normalize(path.posix.join(path.posix.dirname(doc), decodeURI(file)));
      if (resolved.startsWith('../') || !shipped.has(resolved)) {
        broken.push(`${doc}:${line}: ${target} (not in the package)`);
      } else if (anchor !== undefined && anchors.has(resolved) && !anchors.get(resolved).has(anchor)) {
        broken.push(`${doc}:${line}: ${target} (no such heading in ${resolved})`);
      }
    }
  }
  assert.deepEqual(broken, [], `links that lead nowhere in the installed package:\n${broken.join('\n')}`);

  // `npm run X` / `npm test` in the README: X must run from the package (a
  // script of its package.json whose files are shipped), or its paragraph,
  // or the one introducing its code block, must say it needs a checkout.
  const { scripts } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const runsFromPackage = (name) => scripts[name] !== undefined && scripts[name].split(/\s+/)
    .filter((word) => /^[\w.-]+\/[\w./-]*$|^[\w./-]+\.(?:js|mjs|sh)$/.test(word))
    .every(isShipped);
  assert.ok(runsFromPackage('build:release'), 'build:release (npm explore kdfpool -- npm run build:release) runs from the package');
  const unmarked = [];
  const named = new Set();
  for (const { text, before } of blocks(fs.readFileSync(path.join(root, 'README.md'), 'utf8'))) {
    for (const m of text.matchAll(/\bnpm (?:run(?:-script)? ([\w:.-]+)|(test|start)\b)/g)) {
      const name = m[1] || m[2];
      named.add(name);
      if (runsFromPackage(name)) continue;
      const context = text.startsWith('```') ? `${before}\n${text}` : text;
      if (!/checkout|source repository/i.test(context)) unmarked.push(`npm run ${name}: ${text.split('\n')[0].slice(0, 80)}`);
    }
  }
  assert.ok(named.has('bench') && named.has('build:release'), `the README's scripts were found: ${[...named].join(', ')}`);
  assert.deepEqual(unmarked, [], `scripts the package cannot run, named in the README without saying they need a checkout:\n${unmarked.join('\n')}`);
});

test('npm pack refuses a binary that is not a release build of this version for its target, read from the binary', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-prepack-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fakePackage(dir);
  const check = () => spawnSync(process.execPath, ['scripts/pack-check.js'], { cwd: dir, encoding: 'utf8' });
  assert.equal(check().status, 0, check().stderr);
  const musl = path.join(dir, TARGETS['linux-x64-musl']);
  for (const [what, content, says] of [
    ['sanitizer', fakeBinary('linux-x64-musl', 'sanitize,'), /linux-x64-musl: \S+ is a sanitize build, not a release build/],
    ['fault and testing', fakeBinary('linux-x64-musl', 'testing,faults,'), /is a testing\+faults build, not a release build/],
    ['another target\'s', fakeBinary('linux-arm64-musl'), /is built for linux-arm64-musl, not linux-x64-musl/],
    ['another version\'s', fakeBinary('linux-x64-musl', 'release', '0.0.1'), /is built from kdfpool 0\.0\.1, not [^ ]+ \(stale\)/],
    ['a file of no build', 'not a binary', /is not a kdfpool build \(it holds no build marker\)/],
  ]) {
    fs.writeFileSync(musl, content); // newer than the sources: its age says nothing
    const r = check();
    assert.equal(r.status, 1, `packed ${what} binary`);
    assert.match(r.stderr, says);
  }
  fs.writeFileSync(musl, fakeBinary('linux-x64-musl'));
  // The real thing: this checkout's test build (npm run build: native.testing
  // compiled in), where the prebuild for its own target belongs.
  const testBuild = path.join(ROOT, 'gyp', 'build', 'Release', 'kdfpool.node');
  const own = `${process.platform}-${process.arch}-glibc`;
  if (TARGETS[own] && fs.existsSync(testBuild) && require('../lib/binary').readMarker(testBuild)?.target === own) {
    fs.copyFileSync(testBuild, path.join(dir, TARGETS[own]));
    const r = spawnSync(NPM, ['pack', '--dry-run', '--json'], { cwd: dir, env: userEnv(), encoding: 'utf8' });
    assert.notEqual(r.status, 0, 'npm pack packed a test build');
    assert.match(r.stderr, new RegExp(`${own}: \\S+ is a testing[+a-z]* build, not a release build`));
  } else {
    t.diagnostic(`no test build for ${own} in gyp/build: only the stand-ins were refused`);
  }
});

test('packed and installed like a user would: prebuilt (CJS and ESM), no install script, then from source', {
  skip: !(process.platform === 'linux' && ['x64', 'arm64'].includes(process.arch)) && 'the prebuilds are tested on linux',
  timeout: 600000,
}, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-pkg-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  // npm run prebuilds builds them all; here those whose compilers are
  // installed (scripts/setup-cross.sh adds the cross ones). prebuild.sh
  // keeps each binary pack-check passes (a release build newer than every
  // source) and rebuilds the rest, one prebuild at a time per checkout:
  // prebuilds.test.js may be asking for the same binaries at this moment.
  const buildable = Object.keys(TARGETS)
    .filter((target) => COMPILERS[target] && spawnSync('sh', ['-c', `command -v ${COMPILERS[target]}`]).status === 0);
  if (buildable.length > 0) run('bash', ['scripts/prebuild.sh', ...buildable], ROOT, process.env);
  const absent = PREBUILDS.filter((f) => !fs.existsSync(path.join(ROOT, f)));

  // --ignore-scripts: the installs below are tested with whatever binaries
  // this machine can build; the test above checks that prepack refuses a
  // tarball without all of them.
  const packed = JSON.parse(run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], ROOT, process.env));
  const tarball = path.join(tmp, packed[0].filename);
  const shipped = packed[0].files.map((f) => f.path);
  await t.test('the tarball holds the types, the sources to build one and no root binding.gyp', () => {
    for (const f of ['gyp/binding.gyp', 'examples/deploy/nginx.conf', 'examples/deploy/kubernetes/hpa.yaml', 'index.d.ts', 'index.d.mts', 'prometheus.d.ts', 'lib/prometheus.js',
      'better-auth.d.ts', 'authjs.d.ts', 'nestjs.d.ts', 'lib/frameworks/better-auth.js', 'lib/frameworks/authjs.js',
      'lib/frameworks/nestjs.js', 'lib/tracing.js', 'lib/index.js', 'lib/index.mjs', 'bin/kdfpool.js', 'src/pool/pool.c', 'src/pool/os_win.c', 'LICENSE', 'README.md']) {
      assert.ok(shipped.includes(f), `${f} is in the tarball`);
    }
    assert.ok(!shipped.includes('binding.gyp'), 'a root binding.gyp makes npm run `node-gyp rebuild` at install');
    for (const f of shipped) {
      assert.match(f, /^(package\.json|README\.md|LICENSE|CONTRIBUTING\.md|index\.d\.m?ts|(prometheus|better-auth|authjs|nestjs)\.d\.ts|gyp\/binding\.gyp|lib\/.*\.(m?js)|bin\/kdfpool\.js|src\/.*\.[ch]|docs\/[\w-]+\.md|examples\/([\w-]+\.js|README\.md|deploy\/(kubernetes\/)?[\w.-]+\.(conf|cfg|ya?ml))|prebuilds\/[a-z0-9-]+\/node\.napi(\.glibc|\.musl)?\.node)$/, `${f} should not ship`);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    for (const s of ['preinstall', 'install', 'postinstall']) assert.equal(pkg.scripts[s], undefined, `no ${s} script`);
  });
  await t.test('the tarball holds every prebuilt target', {
    skip: absent.length > 0 && `not built here: ${absent.join(', ')} (scripts/setup-cross.sh, npm run prebuilds)`,
  }, () => {
    for (const f of PREBUILDS) assert.ok(shipped.includes(f), `${f} is in the tarball`);
  });

  // No install script ran or is pending: npm printed no notice, nothing was
  // compiled, the lockfile records none, `npm install-scripts ls` lists
  // nothing, and the service loaded this platform's prebuild.
  const assertPrebuiltInstall = (app, output) => {
    assert.doesNotMatch(output, /install-scripts|install script|allowScripts|ESTRICTALLOWSCRIPTS|node-gyp|gyp info/i, output);
    const installed = path.join(app, 'node_modules', 'kdfpool');
    assert.ok(!fs.existsSync(path.join(installed, 'gyp', 'build')), 'nothing was compiled at install');
    assert.ok(!fs.existsSync(path.join(installed, 'build')), 'nothing was compiled at install');
    const lock = JSON.parse(fs.readFileSync(path.join(app, 'package-lock.json'), 'utf8'));
    assert.equal(lock.packages['node_modules/kdfpool'].hasInstallScript, undefined, 'the lockfile records an install script');
    const pending = runAll(NPM, ['install-scripts', 'ls'], app);
    assert.match(pending, /No packages with unreviewed install scripts/, pending);
    const cjs = run(process.execPath, ['app.cjs'], app);
    assert.match(cjs, /^cjs ok /);
    assert.deepEqual(JSON.parse(cjs.split(' ').slice(3).join(' ')), [path.join(fs.realpathSync(installed), HERE)]);
    assert.match(run(process.execPath, ['app.mjs'], app), /^esm ok/);
    // The `npx kdfpool tune` command is installed with it.
    assert.match(run(path.join(app, 'node_modules', '.bin', 'kdfpool'), ['--help'], app), /^Usage: kdfpool tune/);
  };

  for (const [label, flags] of [['npm defaults', []], ['--ignore-scripts', ['--ignore-scripts']], ['--strict-allow-scripts', ['--strict-allow-scripts']]]) {
    await t.test(`prebuilt: npm install (${label}) works with no install-script notice`, () => {
      const app = path.join(tmp, `service-${label.replace(/\W/g, '')}`);
      makeService(app);
      const output = runAll(NPM, ['install', '--no-audit', '--no-fund', ...flags, tarball], app);
      assertPrebuiltInstall(app, output);
      const installed = path.join(app, 'node_modules', 'kdfpool');
      if (flags.length === 0) {
        // Which file the loader picks: glibc by default here (this node
        // asks for glibc's dynamic loader), musl when LIBC=musl says so.
        const resolve = (libc) => run(process.execPath, ['-p', `const b = require(${JSON.stringify(path.join(installed, 'lib', 'binary.js'))}); b.prebuildFile(b.runningTarget())`],
          app, { ...userEnv(), ...(libc ? { LIBC: libc } : {}) }).trim();
        assert.equal(resolve(''), HERE);
        assert.equal(resolve('musl'), HERE.replace('glibc', 'musl'));
      }
    });
  }

  // The CI and Docker path: the service's lockfile, a clean node_modules.
  // No compiler, as in a slim image: a PATH holding only sh, node and npm
  // (no cc, make or python3).
  const bare = path.join(tmp, 'bare-bin');
  fs.mkdirSync(bare);
  fs.symlinkSync('/bin/sh', path.join(bare, 'sh'));
  fs.symlinkSync(process.execPath, path.join(bare, 'node'));
  fs.symlinkSync(execFileSync('sh', ['-c', `command -v ${NPM}`], { encoding: 'utf8' }).trim(), path.join(bare, NPM));
  const app = path.join(tmp, 'service-npmdefaults');
  for (const [label, flags, env] of [
    ['npm ci', [], userEnv()],
    ['npm ci --strict-allow-scripts', ['--strict-allow-scripts'], userEnv()],
    ['npm ci with no C compiler on PATH', [], { ...userEnv(), PATH: bare }],
  ]) {
    await t.test(`prebuilt: ${label} from the service's lockfile compiles nothing and loads the prebuild`, () => {
      if (env.PATH === bare) {
        const found = spawnSync('/bin/sh', ['-c', 'command -v cc; command -v gcc; command -v make; command -v python3'], { env, encoding: 'utf8' });
        assert.equal(found.stdout, '', 'a compiler is on PATH');
      }
      const output = runAll(NPM, ['ci', '--no-audit', '--no-fund', ...flags], app, env);
      assertPrebuiltInstall(app, output);
    });
  }

  // Where node_modules lands: a gyp/build/Release/kdfpool.node built for
  // another CPU, OS or libc, a test build, a stale one or a stray file
  // never shadows the prebuild; one that matches is preferred; when
  // neither loads, the error names both paths and why.
  await t.test('installed with a foreign source build in gyp/build/Release: the prebuild loads', () => {
    const app = path.join(tmp, 'service-foreign');
    fs.cpSync(path.join(tmp, 'service-ignorescripts'), app, { recursive: true });
    const installed = fs.realpathSync(path.join(app, 'node_modules', 'kdfpool'));
    const sourceBuild = path.join(installed, 'gyp', 'build', 'Release', 'kdfpool.node');
    fs.mkdirSync(path.dirname(sourceBuild), { recursive: true });
    const loaded = (env = {}) => {
      const out = run(process.execPath, ['app.cjs'], app, { ...userEnv(), ...env });
      assert.match(out, /^cjs ok /);
      return JSON.parse(out.split(' ').slice(3).join(' '));
    };
    const prebuild = path.join(installed, HERE);
    const stale = fs.readFileSync(prebuild);
    const at = stale.indexOf(`kdfpool-build version=${VERSION} `);
    stale.write('X', at + 'kdfpool-build version='.length); // 0.1.0 -> X.1.0: another version's build
    const testBuild = path.join(ROOT, 'gyp', 'build', 'Release', 'kdfpool.node');
    const foreign = [
      ['the arm64 prebuild', TARGETS['linux-arm64-glibc']],
      ['the win32 prebuild', TARGETS['win32-x64']],
      ['the musl prebuild', HERE.replace('glibc', 'musl')],
      ['the darwin-arm64 prebuild', TARGETS['darwin-arm64']],
    ].filter(([, f]) => fs.existsSync(path.join(installed, f))).map(([what, f]) => [what, fs.readFileSync(path.join(installed, f))]);
    foreign.push(['a text file', 'not a binary\n'], ['a stale build (another version)', stale]);
    if (fs.existsSync(testBuild)) foreign.push(['this checkout\'s test build (npm run build)', fs.readFileSync(testBuild)]);
    for (const [what, content] of foreign) {
      fs.writeFileSync(sourceBuild, content);
      assert.deepEqual(loaded(), [prebuild], `with ${what} as the source build`);
    }
    assert.ok(foreign.length >= 4, `${foreign.length} kinds tried`);

    // A source build that matches (a release build of this version for this
    // target: the prebuild's own bytes) is preferred.
    fs.copyFileSync(prebuild, sourceBuild);
    assert.deepEqual(loaded(), [sourceBuild]);
    // KDFPOOL_BINARY forces one, as it is: the test build, asked for, loads.
    if (fs.existsSync(testBuild)) {
      fs.copyFileSync(testBuild, sourceBuild);
      assert.deepEqual(loaded({ KDFPOOL_BINARY: 'source' }), [sourceBuild]);
      assert.deepEqual(loaded({ KDFPOOL_BINARY: 'prebuild' }), [prebuild]);
    }

    // Neither loads: the error names both paths and why.
    fs.writeFileSync(sourceBuild, 'not a binary\n');
    const saved = fs.readFileSync(prebuild);
    fs.writeFileSync(prebuild, foreign[0][1]);
    try {
      const r = spawnSync(process.execPath, ['-e', "try { require('kdfpool') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message, attempts: e.attempts })) }"],
        { cwd: app, env: userEnv(), encoding: 'utf8' });
      const err = JSON.parse(r.stdout);
      assert.equal(err.code, 'ERR_KDF_NO_BINARY');
      const own = `${process.platform}-${process.arch}-glibc`;
      assert.ok(err.message.startsWith(`kdfpool has no binary that loads on ${own}:\n`), err.message);
      assert.ok(err.message.includes(`${sourceBuild} (source build): not a kdfpool build (it holds no build marker)`), err.message);
      assert.ok(err.message.includes(`${prebuild} (prebuild): `), err.message);
      assert.equal(/`([^`]+)`/.exec(err.message)[1], 'npm explore kdfpool -- npm run build:release');
      assert.deepEqual(err.attempts.map((a) => [a.kind, a.file]), [['source build', sourceBuild], ['prebuild', prebuild]]);
      assert.match(err.attempts[1].reason, new RegExp(`^(built for \\S+, not ${own}|not a kdfpool build .*)$`));
    } finally {
      fs.writeFileSync(prebuild, saved);
    }
  });

  await t.test('no prebuild for this platform: ERR_KDF_NO_BINARY names one command, and it builds from source', () => {
    const unpacked = path.join(tmp, 'unpacked');
    fs.mkdirSync(unpacked);
    run('tar', ['xzf', tarball, '-C', unpacked], tmp);
    fs.rmSync(path.join(unpacked, 'package', 'prebuilds', `${process.platform}-${process.arch}`), { recursive: true, force: true });
    const sourceOnly = JSON.parse(run(NPM, ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], path.join(unpacked, 'package')));
    const app = path.join(tmp, 'service-src');
    makeService(app);
    runAll(NPM, ['install', '--no-audit', '--no-fund', '--strict-allow-scripts', path.join(tmp, sourceOnly[0].filename)], app);
    const installed = path.join(app, 'node_modules', 'kdfpool');
    assert.ok(!fs.existsSync(path.join(installed, 'gyp', 'build')), 'nothing built at install');
    const r = spawnSync(process.execPath, ['-e', "try { require('kdfpool') } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }"],
      { cwd: app, env: userEnv(), encoding: 'utf8' });
    const err = JSON.parse(r.stdout);
    assert.equal(err.code, 'ERR_KDF_NO_BINARY');
    const command = /`([^`]+)`/.exec(err.message)[1];
    assert.equal(command, 'npm explore kdfpool -- npm run build:release');
    run('sh', ['-c', command], app);
    const built = path.join(installed, 'gyp', 'build', 'Release', 'kdfpool.node');
    assert.ok(fs.existsSync(built), 'built from source');
    // A user's build is a release build: no test-only exports.
    assert.equal(run(process.execPath, ['-p', `typeof require(${JSON.stringify(built)}).testing`], app).trim(), 'undefined');
    const cjs = run(process.execPath, ['app.cjs'], app);
    assert.deepEqual(JSON.parse(cjs.split(' ').slice(3).join(' ')), [fs.realpathSync(built)]);
    assert.match(run(process.execPath, ['app.mjs'], app), /^esm ok/);
  });
});
