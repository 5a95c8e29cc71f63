'use strict';

// process.exit() while the pool's threads are inside OpenSSL, on the
// INSTALLED package (test/smoke/run.sh runs it under Windows node in wine,
// several rounds). On Windows exit() runs node.exe's exit table, OpenSSL's
// cleanup among it, while our threads still run; the addon stops its pools
// from OPENSSL_atexit, before OpenSSL frees anything (src/napi/registry.c).
// Without that, a thread in EVP_Digest* meets freed state: the process
// crashes or hangs instead of exiting with our code. So: fill every thread
// with PBKDF2 over an OpenSSL digest (sha3-256, from node.exe's EVP), wait
// until they all run, write the marker file, exit with EXIT_CODE. run.sh
// checks the marker and the exit code, and that it exited by itself in
// time.
//
//   node test/smoke/exit-jobs.js <installed-package-dir> <marker-file>

const fs = require('node:fs');

const EXIT_CODE = 42;
const [pkg, marker] = process.argv.slice(2);
const kdf = require(pkg);
const swallow = () => {};
const threads = kdf.stats().threads || 1;
for (let i = 0; i < threads; i++) kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 32, 'sha3-256').catch(swallow);

const started = Date.now();
(function poll() {
  const s = kdf.stats();
  if (s.running >= threads || Date.now() - started > 10000) {
    fs.writeFileSync(marker, `exiting: ${s.running} of ${threads} threads in OpenSSL's sha3-256\n`);
    process.exit(EXIT_CODE);
  }
  setTimeout(poll, 5);
}());
