'use strict';

// Loads the addon: a source build (gyp/build/Release, what `npm run build`
// and BUILD_COMMAND write) when there is one, else the prebuilt binary for
// this platform from prebuilds/ (see node-gyp-build:
// prebuilds/<platform>-<arch>/node.napi[.glibc|.musl].node, the libc from
// LIBC or /etc/alpine-release). kdfpool has no install script, so where no
// prebuild fits, one command builds it from the shipped gyp/binding.gyp and
// src/. PREBUILDS_ONLY=1 skips the source build, as node-gyp-build does.
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const sourceBuild = path.join(root, 'gyp', 'build', 'Release', 'kdfpool.node');

const BUILD_COMMAND = 'npm explore kdfpool -- npm run build:release';

// A bundler (esbuild, webpack, Next.js) that inlined this file left it
// away from the package, so `root` holds no kdfpool package.json and no
// binary: the fix is to mark kdfpool external, not a source build.
function bundledAway() {
  try {
    return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).name !== 'kdfpool';
  } catch {
    return true;
  }
}

const EXTERNAL_HOW = 'esbuild --external:kdfpool, webpack externals, Next.js serverExternalPackages: [\'kdfpool\']';

function binaryPath() {
  if (!process.env.PREBUILDS_ONLY && fs.existsSync(sourceBuild)) return sourceBuild;
  try {
    return require('node-gyp-build').resolve(root);
  } catch (err) {
    if (!/No native build was found/.test(String(err && err.message))) throw err;
    if (bundledAway()) {
      const e = new Error(
        `kdfpool was bundled into ${__filename}, away from its package and its native binary. `
        + `Mark kdfpool as external in the bundler (${EXTERNAL_HOW}) and ship node_modules/kdfpool with the app.`,
        { cause: err },
      );
      e.code = 'ERR_KDF_NO_BINARY';
      e.bundled = true;
      throw e;
    }
    const e = new Error(
      `kdfpool has no prebuilt binary for ${process.platform}-${process.arch} and has not been built from source. `
      + `Build it with \`${BUILD_COMMAND}\` (needs a C compiler, make and Python 3).`,
      { cause: err },
    );
    e.code = 'ERR_KDF_NO_BINARY';
    e.buildCommand = BUILD_COMMAND;
    throw e;
  }
}

module.exports = require(binaryPath());
