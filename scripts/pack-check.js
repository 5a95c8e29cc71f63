'use strict';

// npm's `prepack` (npm pack, npm publish): refuses to write a tarball that
// lacks a prebuilt binary, or holds one older than the sources it is built
// from, since users install with every npm script blocked and a missing
// binary would surface only on their machines as ERR_KDF_NO_BINARY. The
// required binaries are scripts/prebuild-targets.json, the one list.
//
//   node scripts/pack-check.js [package-dir]   (default: the current directory,
//                                               where npm runs prepack)

const fs = require('node:fs');
const path = require('node:path');

const BUILD_COMMAND = 'npm run prebuilds';

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

// The problems with dir's prebuilds, one line each; empty when it can be packed.
function problems(dir) {
  const targets = JSON.parse(fs.readFileSync(path.join(dir, 'scripts', 'prebuild-targets.json'), 'utf8'));
  const inputs = [...walk(path.join(dir, 'src')), path.join(dir, 'gyp', 'binding.gyp')];
  const newest = inputs.reduce((a, f) => (fs.statSync(f).mtimeMs > a.time ? { time: fs.statSync(f).mtimeMs, file: f } : a),
    { time: 0, file: '' });
  const found = [];
  for (const [target, file] of Object.entries(targets)) {
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) found.push(`${target}: ${file} is missing`);
    else if (fs.statSync(full).mtimeMs < newest.time) {
      found.push(`${target}: ${file} is older than ${path.relative(dir, newest.file)}`);
    }
  }
  return found;
}

if (require.main === module) {
  const dir = path.resolve(process.argv[2] || '.');
  const found = problems(dir);
  if (found.length > 0) {
    console.error(`kdfpool: not packing: the tarball must hold every prebuilt binary.\n  ${found.join('\n  ')}\n`
      + `Build them with \`${BUILD_COMMAND}\` (cross compilers: scripts/setup-cross.sh), then pack again.`);
    process.exit(1);
  }
}

module.exports = { problems, BUILD_COMMAND };
