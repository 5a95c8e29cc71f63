#!/usr/bin/env node
'use strict';

// The JS suite (npm run test:js): every test/*.test.js under `node --test`,
// or with --quick (npm test, the inner loop) the quick run of it: the files
// below left to `npm run test:all` (which runs them all, through test:js),
// the time-boxed suites shorter, and the heaviest tests' iteration counts
// at a quarter (KDFPOOL_TEST_SCALE, as under the sanitizers: each keeps a
// floor, none is skipped). Variables already set win. docs/testing.md
// lists what the quick run leaves out.
//
//   node scripts/test-js.js [--quick] [node --test options...]

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');

// Slow, and not what a change to the library needs to hear about at once:
// each checks packaging, declarations or endurance, at a cost of seconds
// to minutes.
const LEFT_TO_ALL = Object.freeze({
  'package.test.js': 'npm pack, installs into fresh projects, the source build it names (one to four minutes)',
  'prebuilds.test.js': 'every prebuilt binary built and inspected',
  'types-package.test.js': 'the packed tarball under attw',
  'types-cjs.test.js': 'a CommonJS TypeScript app compiled under three settings and run',
  'types.test.js': 'index.d.ts and index.d.mts through tsc',
  'frameworks-entries.test.js': 'the entries\' declarations and the NestJS recipe through tsc, each peer missing',
  'priority-auto.test.js': 'one busy process per CPU, and a child at nice 10',
  'fuzz.test.js': 'the fuzz targets, time-boxed',
  'soak.test.js': 'the soak, time-boxed',
});

// KDFPOOL_QUICK: the few single tests of seconds a quick signal does not
// need are skipped, naming test:all (test/helpers/scale.js).
const QUICK_ENV = Object.freeze({
  KDFPOOL_SOAK_SECONDS: '5', KDFPOOL_FUZZ_SECONDS: '3', KDFPOOL_TEST_SCALE: '0.25', KDFPOOL_QUICK: '1',
});

function main(argv) {
  const quick = argv.includes('--quick');
  const passOn = argv.filter((a) => a !== '--quick');
  const all = fs.readdirSync(path.join(ROOT, 'test')).filter((f) => f.endsWith('.test.js')).sort();
  for (const name of Object.keys(LEFT_TO_ALL)) {
    if (!all.includes(name)) throw new Error(`scripts/test-js.js leaves out test/${name}, which does not exist`);
  }
  const files = (quick ? all.filter((f) => !(f in LEFT_TO_ALL)) : all).map((f) => path.join('test', f));
  const env = { ...process.env };
  if (quick) {
    for (const [key, value] of Object.entries(QUICK_ENV)) if (env[key] === undefined) env[key] = value;
    console.log(`test-js --quick: ${files.length} of ${all.length} files; left to npm run test:all: ${Object.keys(LEFT_TO_ALL).join(', ')}`);
  }
  // Two files at a time, on any machine, in both runs (as test:versions
  // does): most of a file's time is spent waiting (children, servers,
  // timers, npm), and node's default on 2 CPUs is one (the whole run took
  // 490 s that way on a shared 2-core machine, 200 s two at a time). A
  // --test-concurrency given here wins.
  const concurrency = passOn.some((a) => a.startsWith('--test-concurrency')) ? [] : ['--test-concurrency=2'];
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...concurrency, ...passOn, ...files],
    { cwd: ROOT, env, stdio: 'inherit' });
  if (r.error) throw r.error;
  return r.status === null ? 1 : r.status;
}

module.exports = { LEFT_TO_ALL, QUICK_ENV };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
