'use strict';

// npm's `prepack` (npm pack, npm publish), and scripts/prebuild.sh's test of
// whether a binary is current: refuses to write a tarball unless every
// prebuilt binary of scripts/prebuild-targets.json (the one list of
// targets) is there and shippable, since users install with every npm
// script blocked and a bad binary would surface only on their machines.
// Shippable, read from the binary itself (its build marker, lib/binary.js):
// a release build (no testing, fault or sanitizer flags), for the target
// the list names, of this package.json's version; and from the file's age:
// not older than the sources and the recipe it is built from.
//
//   node scripts/pack-check.js [package-dir] [--target=<name>]...
//     package-dir: default the current directory, where npm runs prepack;
//     --target: only these targets (scripts/prebuild.sh checks one at a time).
//   Exits 1, with one line per problem, when something is not shippable.

const fs = require('node:fs');
const path = require('node:path');
const { readMarker, mismatch } = require('../lib/binary');

const BUILD_COMMAND = 'npm run prebuilds';
// What a binary is built from, besides src/: a newer one means a rebuild.
const RECIPE = ['gyp/binding.gyp', 'scripts/prebuild.sh', 'scripts/gyp-flags.py', 'scripts/prebuild-targets.json'];

function* walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}

// The list: { name: { file, cc, zigTarget?, strip? } }.
function targets(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, 'scripts', 'prebuild-targets.json'), 'utf8'));
}

// The problems with dir's prebuilds (all, or `only` those targets), one
// line each; empty when they can be packed.
function problems(dir, only) {
  const list = targets(dir);
  const { version } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const inputs = [...walk(path.join(dir, 'src')), ...RECIPE.map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f))];
  const newest = inputs.reduce((a, f) => (fs.statSync(f).mtimeMs > a.time ? { time: fs.statSync(f).mtimeMs, file: f } : a),
    { time: 0, file: '' });
  const found = [];
  for (const name of only && only.length > 0 ? only : Object.keys(list)) {
    if (list[name] === undefined) {
      found.push(`${name}: not a target of scripts/prebuild-targets.json`);
      continue;
    }
    const { file } = list[name];
    const full = path.join(dir, file);
    if (!fs.existsSync(full)) {
      found.push(`${name}: ${file} is missing`);
      continue;
    }
    const wrong = mismatch(readMarker(full), { version, target: name });
    if (wrong !== null) found.push(`${name}: ${file} is ${wrong}`);
    else if (fs.statSync(full).mtimeMs < newest.time) {
      found.push(`${name}: ${file} is older than ${path.relative(dir, newest.file)}`);
    }
  }
  return found;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const only = args.filter((a) => a.startsWith('--target=')).map((a) => a.slice('--target='.length));
  const dir = path.resolve(args.find((a) => !a.startsWith('--')) || '.');
  const found = problems(dir, only);
  if (found.length > 0) {
    console.error(`kdfpool: not packing: the tarball must hold every prebuilt binary, each a release build of this version for its target.\n  ${found.join('\n  ')}\n`
      + `Build them with \`${BUILD_COMMAND}\` (cross compilers: scripts/setup-cross.sh), then pack again.`);
    process.exit(1);
  }
}

module.exports = { problems, targets, BUILD_COMMAND };
