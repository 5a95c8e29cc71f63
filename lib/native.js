'use strict';

// Loads the addon. Which binary, and why: lib/binary.js (a matching source
// build in gyp/build/Release, else the prebuilt binary for this platform,
// CPU and libc from prebuilds/, else ERR_KDF_NO_BINARY naming both and the
// one command that builds it; KDFPOOL_BINARY=source|prebuild forces one).
// A bundler (esbuild, webpack, Next.js) that inlined this file left it
// away from the package: the error then says to mark kdfpool external.
const path = require('node:path');
const { loadBinary } = require('./binary');

module.exports = loadBinary(path.join(__dirname, '..'), { self: __filename }).binding;
