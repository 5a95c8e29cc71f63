'use strict';

// The prebuilt binaries (npm run prebuilds): each is for its platform, links
// only that platform's C library (Windows: node.exe, KERNEL32, msvcrt) and
// exports only the Node-API entry points (-fvisibility=hidden), and is a
// release build: none of native.testing's code (src/napi/testing.c, test
// builds only) is in it. Targets whose
// binary is missing are built first when their cross compiler is installed
// (scripts/setup-cross.sh), else skipped with that reason.

const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
const sh = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8' });

const TARGETS = [
  { name: 'linux-x64-glibc', file: 'linux-x64/node.napi.glibc.node', cc: 'gcc', machine: 'X86-64', libc: /^(libc\.so\.6|libpthread\.so\.0|libm\.so\.6|libdl\.so\.2)$/ },
  { name: 'linux-x64-musl', file: 'linux-x64/node.napi.musl.node', cc: 'musl-gcc', machine: 'X86-64', libc: /^libc\.so$/ },
  { name: 'linux-arm64-glibc', file: 'linux-arm64/node.napi.glibc.node', cc: 'aarch64-linux-gnu-gcc', machine: 'AArch64', libc: /^(libc\.so\.6|libpthread\.so\.0|libm\.so\.6|libdl\.so\.2)$/ },
  { name: 'linux-arm64-musl', file: 'linux-arm64/node.napi.musl.node', cc: 'aarch64-linux-musl-gcc', machine: 'AArch64', libc: /^libc\.so$/ },
  { name: 'win32-x64', file: 'win32-x64/node.napi.node', cc: 'x86_64-w64-mingw32-gcc' },
];

const missing = TARGETS.filter((t) => !fs.existsSync(path.join(ROOT, 'prebuilds', t.file)) && has(t.cc));
if (missing.length > 0) {
  execFileSync('bash', ['scripts/prebuild.sh', ...missing.map((t) => t.name)], { cwd: ROOT, stdio: 'ignore' });
}

for (const t of TARGETS) {
  const file = path.join(ROOT, 'prebuilds', t.file);
  const skip = !fs.existsSync(file) && `no ${t.file}: ${t.cc} is missing (scripts/setup-cross.sh)`;
  test(`prebuilds/${t.file}: its platform's C library only, Node-API entry points only`, { skip }, () => {
    const bytes = fs.readFileSync(file);
    for (const name of ['forceVariant', 'syncArenaStats', 'runLog']) {
      assert.equal(bytes.includes(name), false, `${t.name} holds native.testing's ${name}: not a release build`);
    }
    if (t.machine) {
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
