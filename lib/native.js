'use strict';

// Loads the addon: a local build (build/Release) when there is one, else the
// prebuilt binary for this platform from prebuilds/ (see node-gyp-build).
const path = require('node:path');

const root = path.join(__dirname, '..');

function load() {
  try {
    return require('node-gyp-build')(root);
  } catch (err) {
    if (!/No native build was found/.test(String(err && err.message))) throw err;
    const e = new Error(
      `kdfpool has no prebuilt binary for ${process.platform}-${process.arch} and was not built from source. `
      + 'Building needs a C compiler, make and Python: approve kdfpool\'s install script '
      + '(npm install-scripts approve kdfpool) and run `npm rebuild kdfpool`.',
      { cause: err },
    );
    e.code = 'ERR_KDF_NO_BINARY';
    throw e;
  }
}

module.exports = load();
