'use strict';

// Which native binary lib/native.js loads, and what a binary says it is.
//
// Every build writes a marker into the binary (src/napi/build.c):
//   kdfpool-build version=0.1.0 target=linux-x64-glibc flags=release
// read here from the file's bytes, without loading it: the version of the
// package it was built from, the target its compiler built for (Node's
// platform and arch names, and glibc or musl on Linux), and whether it was
// built with testing, fault or sanitizer flags. scripts/pack-check.js and
// scripts/prebuild.sh refuse to ship a binary whose marker is not a release
// build of this version for its target.
//
// The loader's rule (README "Install", docs/deployment.md):
//   1. KDFPOOL_BINARY=source loads only the source build
//      (gyp/build/Release/kdfpool.node), KDFPOOL_BINARY=prebuild (or
//      PREBUILDS_ONLY=1, node-gyp-build's switch) only the prebuild, each as
//      it is: asked for by name, it is not checked, only loaded.
//   2. Otherwise the source build, when there is one that matches and
//      loads, and else the prebuild for this platform, CPU and libc
//      (prebuilds/<platform>-<arch>/node.napi[.glibc|.musl].node). In an
//      installed package (its path has a node_modules folder), "matches"
//      means its marker says: this package's version, this target, a
//      release build. A binary from another machine, another version or a
//      test build is then never loaded, and the prebuild is used instead.
//      In a checkout (no node_modules in the path) the developer's own
//      builds, test builds included, are used as they are.
//   3. When neither loads: ERR_KDF_NO_BINARY, naming each path and why it
//      was not used, and the one command that builds one from the shipped
//      sources.
// The libc is LIBC when set (glibc or musl, as for node-gyp-build), else
// the C library the running executable was linked against: the ELF
// interpreter it asks for (/lib/ld-musl-<arch>.so.1 on every musl system,
// Alpine or not), else what process.report says.
//
// This file sits below lib/errors.js (which reads the binary's constants),
// so it makes its own errors.

const fs = require('node:fs');
const path = require('node:path');

const SOURCE_BUILD = path.join('gyp', 'build', 'Release', 'kdfpool.node');
const BUILD_COMMAND = 'npm explore kdfpool -- npm run build:release';
const MARKER_PREFIX = 'kdfpool-build version=';
const MARKER = /^kdfpool-build version=(\S+) target=(\S+) flags=([a-z,]+)$/;
const EXTERNAL_HOW = 'esbuild --external:kdfpool, webpack externals, Next.js serverExternalPackages: [\'kdfpool\']';

// { version, target, flags: [] for a release build } from a marker's text;
// null when it is not one.
function parseMarker(text) {
  const m = MARKER.exec(String(text));
  if (m === null) return null;
  return { version: m[1], target: m[2], flags: m[3] === 'release' ? [] : m[3].split(',').filter(Boolean) };
}

// The marker a binary file holds, or null (not a kdfpool build). Read in
// chunks up to the marker (it sits anywhere in the constant data), the last
// bytes of each kept in case the marker straddles two.
const CHUNK = 1 << 16;
const MARKER_MAX = 256;
function readMarker(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(CHUNK + MARKER_MAX);
    for (let pos = 0, kept = 0; ;) {
      const n = fs.readSync(fd, buf, kept, CHUNK, pos);
      pos += n;
      const have = buf.subarray(0, kept + n);
      const at = have.indexOf(MARKER_PREFIX, 0, 'latin1');
      const end = at < 0 ? -1 : have.indexOf(0, at);
      if (at >= 0 && (end >= 0 || n === 0)) return parseMarker(have.toString('latin1', at, end < 0 ? have.length : end));
      if (n === 0) return null;
      const from = at >= 0 ? at : Math.max(0, have.length - MARKER_MAX);
      if (have.length - from > MARKER_MAX) return null; // no end in sight: not a marker
      have.copy(buf, 0, from);
      kept = have.length - from;
    }
  } finally {
    fs.closeSync(fd);
  }
}

// Why a binary with this marker is not the one to load for `want`
// ({ version, target }), or null when it is.
function mismatch(marker, want) {
  if (marker === null) return 'not a kdfpool build (it holds no build marker)';
  if (marker.target !== want.target) return `built for ${marker.target}, not ${want.target}`;
  if (want.version !== undefined && marker.version !== want.version) {
    return `built from kdfpool ${marker.version}, not ${want.version} (stale)`;
  }
  if (marker.flags.length > 0) return `a ${marker.flags.join('+')} build, not a release build`;
  return null;
}

// The interpreter (dynamic loader) an ELF executable names, or null (not
// ELF, or linked statically).
function elfInterpreter(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const read = (length, position) => {
      const buf = Buffer.alloc(length);
      return buf.subarray(0, fs.readSync(fd, buf, 0, length, position));
    };
    const h = read(64, 0);
    if (h.length < 52 || h.readUInt32BE(0) !== 0x7f454c46) return null;
    const wide = h[4] === 2;
    const le = h[5] === 1;
    const u16 = (b, o) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
    const u32 = (b, o) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const word = (b, o) => (wide ? Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o)) : u32(b, o));
    const phoff = word(h, wide ? 32 : 28);
    const phentsize = u16(h, wide ? 54 : 42);
    const phnum = u16(h, wide ? 56 : 44);
    if (phentsize === 0 || phnum === 0 || phnum > 256) return null;
    const table = read(phentsize * phnum, phoff);
    for (let i = 0; i + 1 <= table.length / phentsize; i++) {
      const ph = table.subarray(i * phentsize);
      if (u32(ph, 0) !== 3) continue; // PT_INTERP
      const offset = word(ph, wide ? 8 : 4);
      const size = word(ph, wide ? 32 : 16);
      if (size === 0 || size > 4096) return null;
      return read(size, offset).toString('latin1').replace(/\0.*$/s, '');
    }
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

// 'glibc' or 'musl', for Linux.
function detectLibc({ env = process.env, execPath = process.execPath } = {}) {
  if (env.LIBC === 'glibc' || env.LIBC === 'musl') return env.LIBC;
  try {
    const interp = elfInterpreter(execPath);
    if (interp) return /^ld-musl-/.test(path.basename(interp)) ? 'musl' : 'glibc';
  } catch {
    // Unreadable (a sandbox): ask the runtime instead.
  }
  try {
    const report = process.report.getReport();
    if (report.header.glibcVersionRuntime) return 'glibc';
    if ((report.sharedObjects || []).some((o) => /ld-musl-|libc\.musl-/.test(o))) return 'musl';
  } catch {
    // No process.report (some runtimes).
  }
  return 'glibc';
}

// The target this process runs on, as markers and prebuild-targets.json
// name it: linux-x64-glibc, darwin-arm64, win32-x64...
function runningTarget(opts = {}) {
  const { platform = process.platform, arch = process.arch } = opts;
  return platform === 'linux' ? `${platform}-${arch}-${detectLibc(opts)}` : `${platform}-${arch}`;
}

// A target's prebuilt binary, relative to the package: node-gyp-build's
// names (prebuilds/<platform>-<arch>/node.napi[.<libc>].node).
function prebuildFile(target) {
  const [platform, arch, libc] = target.split('-');
  return path.posix.join('prebuilds', `${platform}-${arch}`, `node.napi${libc ? `.${libc}` : ''}.node`);
}

function packageJson(root) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
    return pkg && pkg.name === 'kdfpool' ? pkg : null;
  } catch {
    return null;
  }
}

function noBinary(message, props, cause) {
  const e = new Error(message, cause === undefined ? undefined : { cause });
  e.code = 'ERR_KDF_NO_BINARY';
  return Object.assign(e, props);
}

// The binary for this process, loaded: { binding, file, attempts }, or
// throws ERR_KDF_NO_BINARY. opts: env, platform, arch, execPath (this
// process's by default), load (require), self (the loader's file, named
// when it was bundled away from the package).
function loadBinary(root, opts = {}) {
  const { env = process.env, load = require } = opts;
  const pkg = packageJson(root);
  const target = runningTarget(opts);
  const installed = path.resolve(root).split(/[\\/]/).includes('node_modules');
  const mode = env.KDFPOOL_BINARY || (env.PREBUILDS_ONLY ? 'prebuild' : 'auto');
  if (!['auto', 'source', 'prebuild'].includes(mode)) {
    throw noBinary(`KDFPOOL_BINARY is '${mode}': it must be 'source', 'prebuild' or unset.`, { target });
  }
  // Checked against the marker before loading: only an installed package's
  // own choice (an asked-for or a developer's binary is only loaded).
  const checked = mode === 'auto' && installed;
  const want = { version: pkg ? pkg.version : undefined, target };
  const candidates = [];
  if (mode !== 'prebuild') candidates.push({ kind: 'source build', file: path.join(root, SOURCE_BUILD) });
  if (mode !== 'source') candidates.push({ kind: 'prebuild', file: path.join(root, prebuildFile(target)) });

  const attempts = [];
  for (const c of candidates) {
    let reason = null;
    if (!fs.existsSync(c.file)) {
      reason = c.kind === 'prebuild' ? 'not in the package (no prebuilt binary for this platform)' : 'not built';
    } else if (checked) {
      try {
        reason = mismatch(readMarker(c.file), want);
      } catch (err) {
        reason = `unreadable: ${err.message}`;
      }
    }
    if (reason === null) {
      try {
        return { binding: load(c.file), file: c.file, attempts };
      } catch (err) {
        reason = `does not load: ${String(err && err.message).split('\n')[0]}`;
        c.error = err;
      }
    }
    attempts.push(c.error === undefined ? { kind: c.kind, file: c.file, reason } : { kind: c.kind, file: c.file, reason, error: c.error });
  }

  if (pkg === null) {
    throw noBinary(
      `kdfpool was bundled into ${opts.self || root}, away from its package and its native binary. `
      + `Mark kdfpool as external in the bundler (${EXTERNAL_HOW}) and ship node_modules/kdfpool with the app.`,
      { bundled: true, attempts, target },
    );
  }
  // Refused for what it is, not where it belongs: it would load if asked for.
  const refusedSource = attempts.some((a) => a.kind === 'source build' && /release build|stale/.test(a.reason));
  throw noBinary(
    `kdfpool has no binary that loads on ${target}:\n`
    + `${attempts.map((a) => `  ${a.file} (${a.kind}): ${a.reason}\n`).join('')}`
    + `Build it with \`${BUILD_COMMAND}\` (needs a C compiler, make and Python 3)`
    + `${refusedSource ? ', or set KDFPOOL_BINARY=source to load the source build as it is' : ''}.`,
    { buildCommand: BUILD_COMMAND, attempts, target },
    attempts.find((a) => a.error !== undefined)?.error,
  );
}

module.exports = {
  BUILD_COMMAND, SOURCE_BUILD, parseMarker, readMarker, mismatch, elfInterpreter, detectLibc, runningTarget,
  prebuildFile, loadBinary,
};
