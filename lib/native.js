'use strict';

// Loads the addon: a local build (build/Release) when there is one, else the
// prebuilt binary for this platform from prebuilds/ (see node-gyp-build).
const path = require('node:path');

module.exports = require('node-gyp-build')(path.join(__dirname, '..'));
