'use strict';

// Which binary lib/native.js loads (lib/binary.js), without loading any: the
// precedence rule over packages laid out in a temporary folder, with a
// stand-in for require() that records what it was asked to load; the libc
// of an executable from the ELF interpreter it names (programs compiled
// here for glibc, musl, arm64 and big-endian s390x); the build marker of
// the binary this process did load. test/package.test.js does the same
// over the packed tarball with real binaries; test/smoke/run.sh under
// Bun's musl build, which is detected with no LIBC and no Alpine.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const binary = require('../lib/binary');

const VERSION = require('../package.json').version;
const TARGET = 'linux-x64-glibc';
const marker = (flags = 'release', target = TARGET, version = VERSION) =>
  `\x7fELF...\0kdfpool-build version=${version} target=${target} flags=${flags}\0...`;

// A kdfpool package at `dir`: package.json, and the given source build and
// prebuild contents (undefined: absent).
function makePackage(dir, { source, prebuild, musl } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'kdfpool', version: VERSION }));
  const put = (rel, content) => {
    if (content === undefined) return;
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), content);
  };
  put(binary.SOURCE_BUILD, source);
  put(binary.prebuildFile(TARGET), prebuild);
  put(binary.prebuildFile('linux-x64-musl'), musl);
  return dir;
}

// loadBinary on linux-x64 with a require() that "loads" any file unless it
// holds LOADFAIL; returns { file, loaded: [files asked for] } or { error }.
function choose(root, env = {}) {
  const loaded = [];
  const load = (file) => {
    loaded.push(file);
    if (fs.readFileSync(file, 'latin1').includes('LOADFAIL')) throw new Error(`${file}: cannot open shared object: LOADFAIL\nmore`);
    return { file };
  };
  try {
    const r = binary.loadBinary(root, { env: { LIBC: 'glibc', ...env }, platform: 'linux', arch: 'x64', load });
    assert.equal(r.binding.file, r.file);
    return { file: r.file, loaded };
  } catch (error) {
    return { error, loaded };
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-loader-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const installed = (files) => makePackage(path.join(tmp, `app${++n}`, 'node_modules', 'kdfpool'), files);
const src = (root) => path.join(root, binary.SOURCE_BUILD);
const pre = (root, target = TARGET) => path.join(root, binary.prebuildFile(target));

test('installed: a source build that matches is preferred; any other falls back to the prebuild unloaded', () => {
  let root = installed({ source: marker(), prebuild: marker() });
  assert.deepEqual(choose(root), { file: src(root), loaded: [src(root)] });

  for (const [what, source] of [
    ['a test build', marker('testing,')],
    ['a fault and sanitizer build', marker('faults,sanitize,')],
    ['another CPU\'s', marker('release', 'linux-arm64-glibc')],
    ['another libc\'s', marker('release', 'linux-x64-musl')],
    ['another OS\'s', marker('release', 'win32-x64')],
    ['a stale one', marker('release', TARGET, '0.0.1')],
    ['a text file', 'not a binary'],
  ]) {
    root = installed({ source, prebuild: marker() });
    assert.deepEqual(choose(root), { file: pre(root), loaded: [pre(root)] }, what);
  }

  // It matches but does not load (a libc or loader the marker cannot see).
  root = installed({ source: `${marker()}LOADFAIL`, prebuild: marker() });
  assert.deepEqual(choose(root), { file: pre(root), loaded: [src(root), pre(root)] });
});

test('KDFPOOL_BINARY forces one as it is; a checkout uses its own builds as they are', () => {
  const root = installed({ source: marker('testing,'), prebuild: marker() });
  assert.equal(choose(root, { KDFPOOL_BINARY: 'source' }).file, src(root));
  assert.equal(choose(root, { KDFPOOL_BINARY: 'prebuild' }).file, pre(root));
  assert.equal(choose(root, { PREBUILDS_ONLY: '1' }).file, pre(root));
  const bad = choose(root, { KDFPOOL_BINARY: 'gyp' }).error;
  assert.equal(bad.code, 'ERR_KDF_NO_BINARY');
  assert.match(bad.message, /KDFPOOL_BINARY is 'gyp': it must be 'source', 'prebuild' or unset/);
  // Forced and absent: no fallback to the other.
  const only = installed({ prebuild: marker() });
  const e = choose(only, { KDFPOOL_BINARY: 'source' }).error;
  assert.equal(e.code, 'ERR_KDF_NO_BINARY');
  assert.deepEqual(e.attempts.map((a) => a.kind), ['source build']);

  // No node_modules in the path: a developer's checkout.
  const checkout = makePackage(path.join(tmp, 'checkout', 'kdfpool'), { source: marker('testing,faults,'), prebuild: marker() });
  assert.equal(choose(checkout).file, src(checkout));
  const foreign = makePackage(path.join(tmp, 'checkout2', 'kdfpool'), { source: `${marker('release', 'linux-arm64-glibc')}LOADFAIL`, prebuild: marker() });
  assert.deepEqual(choose(foreign), { file: pre(foreign), loaded: [src(foreign), pre(foreign)] });
});

test('neither loads: ERR_KDF_NO_BINARY names both paths, why each was not used, and the build command', () => {
  let root = installed({ source: marker('testing,'), prebuild: `${marker()}LOADFAIL` });
  let { error } = choose(root);
  assert.equal(error.code, 'ERR_KDF_NO_BINARY');
  assert.equal(error.name, 'Error');
  assert.equal(error.message, `kdfpool has no binary that loads on ${TARGET}:\n`
    + `  ${src(root)} (source build): a testing build, not a release build\n`
    + `  ${pre(root)} (prebuild): does not load: ${pre(root)}: cannot open shared object: LOADFAIL\n`
    + 'Build it with `npm explore kdfpool -- npm run build:release` (needs a C compiler, make and Python 3), '
    + 'or set KDFPOOL_BINARY=source to load the source build as it is.');
  assert.equal(error.buildCommand, 'npm explore kdfpool -- npm run build:release');
  assert.equal(error.target, TARGET);
  assert.match(error.cause.message, /LOADFAIL/);
  assert.deepEqual(error.attempts.map((a) => [a.kind, a.file]), [['source build', src(root)], ['prebuild', pre(root)]]);

  root = installed({});
  ({ error } = choose(root));
  assert.deepEqual(error.attempts.map((a) => a.reason), ['not built', 'not in the package (no prebuilt binary for this platform)']);
  assert.doesNotMatch(error.message, /KDFPOOL_BINARY/);

  // Bundled away from the package: no package.json of kdfpool beside it.
  const bundle = path.join(tmp, 'bundle');
  fs.mkdirSync(bundle);
  ({ error } = choose(bundle));
  assert.equal(error.code, 'ERR_KDF_NO_BINARY');
  assert.equal(error.bundled, true);
  assert.match(error.message, /Mark kdfpool as external/);
});

test('the libc picks the prebuild: LIBC, else what the running executable was linked against', () => {
  const root = installed({ prebuild: marker(), musl: marker('release', 'linux-x64-musl') });
  const r = binary.loadBinary(root, { env: { LIBC: 'musl' }, platform: 'linux', arch: 'x64', load: (f) => f });
  assert.equal(r.file, pre(root, 'linux-x64-musl'));
  assert.equal(binary.runningTarget({ platform: 'darwin', arch: 'arm64' }), 'darwin-arm64');
  assert.equal(binary.runningTarget({ platform: 'win32', arch: 'x64' }), 'win32-x64');
  assert.equal(binary.prebuildFile('win32-x64'), 'prebuilds/win32-x64/node.napi.node');
});

// Programs compiled here with each toolchain that is installed: their ELF
// interpreter, and the libc that implies. No /etc/alpine-release is
// involved: musl is recognised from the executable itself.
const COMPILERS = [
  ['gcc', [], /^\/lib(64)?\/ld-linux-x86-64\.so\.2$/, 'glibc'],
  ['musl-gcc', [], /^\/lib\/ld-musl-x86_64\.so\.1$/, 'musl'],
  ['aarch64-linux-gnu-gcc', [], /^\/lib\/ld-linux-aarch64\.so\.1$/, 'glibc'],
  ['aarch64-linux-musl-gcc', [], /^\/lib\/ld-musl-aarch64\.so\.1$/, 'musl'],
  ['s390x-linux-gnu-gcc', [], /^\/lib\/ld64\.so\.1$/, 'glibc'], // big-endian
  ['gcc', ['-static'], null, undefined],
];
for (const [cc, flags, interp, libc] of COMPILERS) {
  const has = spawnSync('sh', ['-c', `command -v ${cc}`]).status === 0;
  test(`ELF interpreter of a program built by ${cc} ${flags.join(' ')}`.trim(), { skip: !has && `${cc} is not installed` }, (t) => {
    const dir = fs.mkdtempSync(path.join(tmp, 'elf-'));
    fs.writeFileSync(path.join(dir, 'main.c'), 'int main(void) { return 0; }\n');
    const exe = path.join(dir, 'main');
    const r = spawnSync(cc, [...flags, '-o', exe, path.join(dir, 'main.c')], { encoding: 'utf8' });
    if (r.status !== 0) {
      t.skip(`${cc} cannot link here: ${r.stderr.split('\n')[0]}`);
      return;
    }
    const found = binary.elfInterpreter(exe);
    if (interp === null) {
      assert.equal(found, null, 'a static program names no interpreter');
    } else {
      assert.match(found, interp);
      assert.equal(binary.detectLibc({ env: {}, execPath: exe }), libc);
      assert.equal(binary.detectLibc({ env: { LIBC: libc === 'musl' ? 'glibc' : 'musl' }, execPath: exe }), libc === 'musl' ? 'glibc' : 'musl', 'LIBC wins');
    }
  });
}

test('not an ELF file: no interpreter', () => {
  const file = path.join(tmp, 'text');
  fs.writeFileSync(file, 'just text, long enough to be read as a header of sixty-four bytes or more');
  assert.equal(binary.elfInterpreter(file), null);
  fs.writeFileSync(file, '\x7fELF');
  assert.equal(binary.elfInterpreter(file), null, 'a truncated header');
});

test('the binary this process loaded says what it is, and it is for this target', () => {
  const native = require('../lib/native');
  const m = binary.parseMarker(native.build);
  assert.ok(m, native.build);
  assert.equal(m.version, VERSION);
  assert.equal(m.target, binary.runningTarget());
  // The test build (npm run build) carries its flag; a prebuild none.
  assert.equal(m.flags.includes('testing'), native.testing !== undefined);
  assert.equal(binary.parseMarker('kdfpool-build version=1 target=x flags=release trailing'), null);
});

test('a marker anywhere in the file is found, across the chunks it is read in', () => {
  const text = `kdfpool-build version=${VERSION} target=${TARGET} flags=testing,`;
  const want = { version: VERSION, target: TARGET, flags: ['testing'] };
  const file = path.join(tmp, 'marker.bin');
  for (const at of [0, 65536 - 10, 65536 - text.length, 65536, 3 * 65536 - 1]) {
    const bytes = Buffer.alloc(4 * 65536, 0x41);
    bytes.write(text, at, 'latin1');
    bytes[at + text.length] = 0;
    fs.writeFileSync(file, bytes);
    assert.deepEqual(binary.readMarker(file), want, `at ${at}`);
    fs.writeFileSync(file, bytes.subarray(0, at + text.length)); // the file ends with it
    assert.deepEqual(binary.readMarker(file), want, `at ${at}, at the end`);
  }
  fs.writeFileSync(file, Buffer.alloc(3 * 65536, 0x41));
  assert.equal(binary.readMarker(file), null);
});
