'use strict';

// The prebuilt binaries (npm run prebuilds): each is for its platform, links
// only that platform's C library (Windows: node.exe, KERNEL32, msvcrt;
// macOS: libSystem, with Node-API left to the host at load) and exports only
// the Node-API entry points (-fvisibility=hidden), needs no more than Node's
// own floor (glibc 2.28; macOS 10.15 on x64, 11.0 on arm64), and is a
// release build: none of native.testing's code (src/napi/testing.c, test
// builds only) is in it. The macOS binaries are read here (Mach-O, below)
// and never run: nothing on this machine can. Targets whose
// binary is missing are built first when their cross compiler is installed
// (scripts/setup-cross.sh), else skipped with that reason.

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const VERSION = require('../package.json').version;
const { readMarker, prebuildFile } = require('../lib/binary');
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const sh = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8' });

// scripts/prebuild.sh's zig (scripts/setup-cross.sh installs it).
const ZIG = process.env.ZIG || path.join(ROOT, '.tmp/zig-0.12.0-dev.1286/zig');
const GLIBC_LIBS = /^(libc\.so\.6|libpthread\.so\.0|libm\.so\.6|libdl\.so\.2)$/;
// Node 20's own floor: the newest symbol version a glibc binary may need.
const GLIBC_FLOOR = [2, 28];

// The targets: scripts/prebuild-targets.json, the one list. What each must
// be follows from its name: ELF machine per CPU, the libc's libraries, the
// Mach-O cputype (CPU_TYPE_X86_64, CPU_TYPE_ARM64) and the minimum macOS
// its zig target names (Node's own).
const LIST = require('../scripts/prebuild-targets.json');
const ELF_MACHINE = { x64: 'X86-64', arm64: 'AArch64' };
const MACHO_CPU = { x64: 0x01000007, arm64: 0x0100000c };
const TARGETS = Object.entries(LIST).map(([name, t]) => {
  const [platform, arch, libc] = name.split('-');
  const target = { name, file: path.relative('prebuilds', t.file), cc: t.cc === 'zig' ? ZIG : t.cc, platform, arch };
  if (platform === 'linux') {
    Object.assign(target, { machine: ELF_MACHINE[arch], libc: libc === 'glibc' ? GLIBC_LIBS : /^libc\.so$/, glibc: libc === 'glibc' });
  } else if (platform === 'darwin') {
    const [major, minor = '0'] = t.zigTarget.split('.').slice(1);
    target.macho = { cputype: MACHO_CPU[arch], minos: `${major}.${minor}.0` };
  }
  return target;
});

// GLIBC_x.y[.z] versions a binary's dynamic symbols need (.gnu.version_r).
function glibcVersionsNeeded(file) {
  return [...sh('readelf', ['-V', '-W', file]).matchAll(/Name: GLIBC_(\d+(?:\.\d+)+)/g)].map((m) => m[1].split('.').map(Number));
}

const newer = (a, b) => a[0] !== b[0] ? a[0] > b[0] : (a[1] ?? 0) > (b[1] ?? 0);

// A Mach-O reader for what the checks need: the 64-bit header, the load
// commands naming dylibs and the minimum macOS, and the symbol table.
const LC_SYMTAB = 0x2;
const LC_LOAD_DYLIB = 0xc;
const LC_LOAD_WEAK_DYLIB = 0x80000018;
const LC_REEXPORT_DYLIB = 0x8000001f;
const LC_LAZY_LOAD_DYLIB = 0x20;
const LC_LOAD_UPWARD_DYLIB = 0x80000023;
const LC_VERSION_MIN_MACOSX = 0x24;
const LC_BUILD_VERSION = 0x32;
const PLATFORM_MACOS = 1;
const N_STAB = 0xe0;
const N_TYPE = 0x0e;
const N_UNDF = 0x0;
const N_SECT = 0xe;
const N_EXT = 0x01;
const N_PEXT = 0x10; // private extern: hidden visibility, not exported
const DYNAMIC_LOOKUP_ORDINAL = 0xfe;

// xxxx.yy.zz nibbles, as LC_BUILD_VERSION and LC_VERSION_MIN_* store them.
const machoVersion = (v) => `${v >>> 16}.${(v >>> 8) & 0xff}.${v & 0xff}`;

function readMachO(bytes) {
  const u32 = (off) => bytes.readUInt32LE(off);
  const cstring = (off) => bytes.toString('latin1', off, bytes.indexOf(0, off));
  const out = { magic: u32(0), cputype: u32(4), filetype: u32(12), dylibs: [], minos: [], symbols: [] };
  if (out.magic !== 0xfeedfacf) return out;
  const ncmds = u32(16);
  let off = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = u32(off);
    const size = u32(off + 4);
    if ([LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB, LC_LAZY_LOAD_DYLIB, LC_LOAD_UPWARD_DYLIB].includes(cmd)) {
      out.dylibs.push(cstring(off + u32(off + 8)));
    } else if (cmd === LC_BUILD_VERSION) {
      out.minos.push({ platform: u32(off + 8), version: machoVersion(u32(off + 12)) });
    } else if (cmd === LC_VERSION_MIN_MACOSX) {
      out.minos.push({ platform: PLATFORM_MACOS, version: machoVersion(u32(off + 8)) });
    } else if (cmd === LC_SYMTAB) {
      const [symoff, nsyms, stroff] = [u32(off + 8), u32(off + 12), u32(off + 16)];
      for (let s = 0; s < nsyms; s++) {
        const at = symoff + 16 * s; // struct nlist_64
        const type = bytes[at + 4];
        if (type & N_STAB) continue;
        const desc = bytes.readUInt16LE(at + 6);
        out.symbols.push({
          name: cstring(stroff + u32(at)),
          kind: type & N_TYPE,
          external: (type & N_EXT) !== 0 && (type & N_PEXT) === 0,
          ordinal: desc >>> 8, // GET_LIBRARY_ORDINAL: 1-based LC_*_DYLIB index
        });
      }
    }
    off += size;
  }
  return out;
}

// OpenSSL's functions: looked up at run time (src/kdf/openssl.c), never
// imported.
const OPENSSL = /^_(EVP_|ERR_|OPENSSL_|CRYPTO_|PKCS5_|OBJ_|OSSL_|HMAC|SHA[0-9]|RAND_)/;
const NODE_API = /^_(napi_|node_api_)/;

// prebuild.sh keeps what is current and builds the rest, one prebuild at a
// time per checkout (package.test.js may be asking at this moment): a file
// that exists may still be half written by the other one.
const buildable = TARGETS.filter((t) => has(t.cc));
if (buildable.length > 0) {
  execFileSync('bash', ['scripts/prebuild.sh', ...buildable.map((t) => t.name)], { cwd: ROOT, stdio: 'ignore' });
}

for (const t of TARGETS) {
  const file = path.join(ROOT, 'prebuilds', t.file);
  const skip = !fs.existsSync(file) && `no ${t.file}: ${t.cc} is missing (scripts/setup-cross.sh)`;
  test(`prebuilds/${t.file}: its platform's C library only, Node-API entry points only`, { skip }, () => {
    const bytes = fs.readFileSync(file);
    // What the binary says it is (src/napi/build.c): what the loader and
    // pack-check read.
    assert.deepEqual(readMarker(file), { version: VERSION, target: t.name, flags: [] });
    assert.ok(t.platform === 'win32' || t.platform === 'darwin' || t.machine, `${t.name}: a CPU this test knows`);
    for (const name of ['forceVariant', 'syncArenaStats', 'runLog']) {
      assert.equal(bytes.includes(name), false, `${t.name} holds native.testing's ${name}: not a release build`);
    }
    if (t.macho) {
      const m = readMachO(bytes);
      assert.equal(m.magic, 0xfeedfacf, 'a 64-bit little-endian Mach-O');
      assert.equal(m.cputype, t.macho.cputype, `cputype 0x${m.cputype.toString(16)}`);
      assert.equal(m.filetype, 6, 'MH_DYLIB, what node loads with dlopen');
      assert.deepEqual(m.dylibs, ['/usr/lib/libSystem.B.dylib'], 'links libSystem only');
      assert.deepEqual(m.minos, [{ platform: PLATFORM_MACOS, version: t.macho.minos }], 'macOS at Node\'s minimum');
      const undefinedSyms = m.symbols.filter((s) => s.kind === N_UNDF && s.external);
      assert.ok(undefinedSyms.some((s) => s.name === '_napi_create_threadsafe_function'), 'imports Node-API');
      for (const s of undefinedSyms) {
        assert.doesNotMatch(s.name, OPENSSL, `${t.name} imports OpenSSL's ${s.name} at load`);
        if (NODE_API.test(s.name)) {
          assert.equal(s.ordinal, DYNAMIC_LOOKUP_ORDINAL, `${s.name} is looked up in the host when it loads`);
        } else {
          // Ordinal 1: the only dylib, libSystem.
          assert.equal(s.ordinal, 1, `${s.name} from libSystem`);
        }
      }
      const exported = m.symbols.filter((s) => s.kind === N_SECT && s.external).map((s) => s.name);
      assert.ok(exported.includes('_napi_register_module_v1'), 'exports napi_register_module_v1');
      for (const n of exported) assert.match(n, /^_(napi_register_module_v1|node_api_module_get_api_version_v1)$/, `exports ${n}`);
    } else if (t.machine) {
      assert.match(sh('readelf', ['-h', file]), new RegExp(`Machine:\\s+.*${t.machine}`));
      const needed = [...sh('readelf', ['-d', file]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
      assert.ok(needed.length > 0, 'links its C library');
      for (const lib of needed) assert.match(lib, t.libc, `${t.name} needs ${lib}`);
      // Defined, exported symbols: only what node looks up (musl's crt adds
      // _init/_fini).
      const exported = sh('readelf', ['--dyn-syms', '-W', file]).split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((f) => f.length >= 8 && f[6] !== 'UND' && f[4] === 'GLOBAL' && f[3] === 'FUNC')
        .map((f) => f[7]);
      assert.ok(exported.includes('napi_register_module_v1'), 'exports napi_register_module_v1');
      for (const n of exported) assert.match(n, /^(napi_register_module_v1|node_api_module_get_api_version_v1|_init|_fini)$/, `exports ${n}`);
      if (t.glibc) {
        const versions = glibcVersionsNeeded(file);
        assert.ok(versions.length > 0, 'reads its GLIBC_ symbol versions');
        for (const v of versions) assert.ok(!newer(v, GLIBC_FLOOR), `${t.name} needs GLIBC_${v.join('.')}, newer than ${GLIBC_FLOOR.join('.')}`);
      }
    } else {
      const dump = sh('x86_64-w64-mingw32-objdump', ['-p', file]);
      assert.match(dump, /architecture: i386:x86-64|file format pei-x86-64/);
      const dlls = [...dump.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1].toLowerCase()).sort();
      assert.deepEqual(dlls, ['kernel32.dll', 'msvcrt.dll', 'node.exe']);
      const exportsTable = dump.slice(dump.indexOf('[Ordinal/Name Pointer] Table')).split('\n\n')[0];
      const names = [...exportsTable.matchAll(/\[\s*\d+\]\s+(\S+)/g)].map((m) => m[1]);
      assert.ok(names.includes('napi_register_module_v1'), 'exports napi_register_module_v1');
      for (const n of names) assert.match(n, /^(napi_register_module_v1|node_api_module_get_api_version_v1)$/, `exports only Node-API entry points, not ${n}`);
    }
  });
}

test('the loader looks for each target of the list where the list puts it', () => {
  for (const [name, t] of Object.entries(LIST)) assert.equal(prebuildFile(name), t.file, name);
});

// scripts/prebuild.sh keeps a binary only when pack-check passes it: a
// test, fault or sanitizer build newer than every source is rebuilt, and
// the flags themselves in the environment are refused before anything is
// compiled. In a copy of the recipe with a compiler that only records that
// it ran, so nothing is built.
test('prebuild.sh rebuilds a kept binary that is not a release build, and refuses build flags', (t) => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'kdfpool-prebuild-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const f of ['package.json', 'gyp/binding.gyp', 'lib/binary.js', 'scripts/prebuild.sh', 'scripts/gyp-flags.py',
    'scripts/pack-check.js', 'scripts/prebuild-targets.json']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
  }
  fs.cpSync(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  const bin = path.join(dir, 'fake-bin');
  fs.mkdirSync(bin);
  const ran = path.join(dir, 'compiler-ran');
  fs.writeFileSync(path.join(bin, 'musl-gcc'), `#!/bin/sh\necho "$@" >> ${JSON.stringify(ran)}\nexit 1\n`, { mode: 0o755 });
  const out = path.join(dir, LIST['linux-x64-musl'].file);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const prebuild = (env = {}) => spawnSync('bash', ['scripts/prebuild.sh', 'linux-x64-musl'],
    { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, ...env } });
  const marker = (flags) => `\0kdfpool-build version=${VERSION} target=linux-x64-musl flags=${flags}\0`;

  fs.writeFileSync(out, marker('release')); // newer than the sources: kept
  let r = prebuild();
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /linux-x64-musl is up to date/);
  assert.equal(fs.existsSync(ran), false, 'compiled a binary that was up to date');

  for (const flags of ['testing,', 'sanitize,', 'faults,']) {
    fs.writeFileSync(out, marker(flags));
    r = prebuild();
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, new RegExp(`rebuilding linux-x64-musl: \\S+ is a ${flags.slice(0, -1)} build, not a release build`));
    assert.equal(fs.existsSync(ran), true, `kept a ${flags} build`);
    fs.rmSync(ran);
  }

  for (const flag of ['KDFPOOL_SANITIZE', 'KDFPOOL_FAULTS']) {
    fs.writeFileSync(out, marker('release'));
    r = prebuild({ [flag]: flag === 'KDFPOOL_SANITIZE' ? 'address' : '1', PREBUILD_FORCE: '1' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`${flag} is set: a prebuilt binary is a release build`));
    assert.equal(fs.existsSync(ran), false, `compiled with ${flag}`);
  }
});
