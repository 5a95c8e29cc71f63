'use strict';

// Runs the JS suite (node --test test/*.test.js) under every supported node
// major in turn: the binaries scripts/install-nodes.sh put in
// ${KDFPOOL_NODES_DIR:-.tmp/nodes}/<major>/, and the node running this
// script for its own major. Prints one line per version (tests, pass, fail,
// skipped, cancelled, time) and fails if any run fails or any supported
// major has no binary: none is skipped silently. Each run's TAP output is
// kept in .tmp/test-versions/node<major>.tap.
//
//   npm run test:versions              (KDFPOOL_NODE_MAJORS="24 26" for fewer)
//
// The time-boxed suites (the soak and the three fuzz targets, 20 s and 3x9 s
// on the main run) get 5 s and 3 s each here unless KDFPOOL_SOAK_SECONDS /
// KDFPOOL_FUZZ_SECONDS say otherwise: they still run on every version (the
// arguments fuzzer found a node 24 difference), but their length buys little
// a second time (docs/testing.md: what each part of CI costs).

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const SUPPORTED = [20, 22, 24, 26];
const ROOT = path.join(__dirname, '..');
const NODES_DIR = path.resolve(ROOT, process.env.KDFPOOL_NODES_DIR || '.tmp/nodes');
const LOG_DIR = path.join(ROOT, '.tmp', 'test-versions');
const PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;

const majorOf = (version) => Number(String(version).replace(/^v/, '').split('.')[0]);

const majors = process.env.KDFPOOL_NODE_MAJORS
  ? process.env.KDFPOOL_NODE_MAJORS.trim().split(/[\s,]+/).map(Number)
  : SUPPORTED;
if (majors.some((m) => !Number.isInteger(m) || m <= 0)) {
  console.error(`test:versions: KDFPOOL_NODE_MAJORS must list major versions, got "${process.env.KDFPOOL_NODE_MAJORS}"`);
  process.exit(2);
}
const left = SUPPORTED.filter((m) => !majors.includes(m));
if (left.length > 0) console.log(`test:versions: KDFPOOL_NODE_MAJORS leaves out node ${left.join(', ')}`);

// The binary for a major: an installed one, else this node if it is that major.
function binaryFor(major) {
  const installed = path.join(NODES_DIR, String(major), 'node_modules', PACKAGE, 'bin',
    process.platform === 'win32' ? 'node.exe' : 'node');
  if (fs.existsSync(installed)) return installed;
  if (majorOf(process.versions.node) === major) return process.execPath;
  return null;
}

// The counters at the end of node's TAP output (# tests 12, # pass 11, ...).
function counts(tap) {
  const out = {};
  for (const m of tap.matchAll(/^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\S+)$/gm)) {
    out[m[1]] = Number(m[2]);
  }
  return out;
}

// Top-level lines of failing tests, to say what failed without the log.
function failures(tap) {
  return [...tap.matchAll(/^\s*not ok \d+ - (.*)$/gm)].map((m) => m[1].trim());
}

// Files whose subject is not the node that runs them, run once by `npm
// test`'s own node (test:js) rather than again per major; KDFPOOL_VERSIONS_ALL=1
// runs them here too. Named on every run, so nothing is left out silently.
const ONCE = {
  'test/package.test.js': 'npm pack/install and the prebuilds\' shape (npm\'s behaviour, not node\'s; every major loads the same N-API build in the other files)',
  'test/prebuilds.test.js': 'the prebuilt binaries read back with readelf, objdump and a Mach-O reader, and scripts/prebuild.sh (none is loaded; smoke:cross loads them under every major)',
  'test/types.test.js': 'index.d.ts under tsc (no node involved)',
  'test/types-package.test.js': 'the packed tarball\'s types under attw (npm and tsc, no node involved)',
  'test/types-cjs.test.js': 'a CommonJS TypeScript app through tsc (what it checks is the declarations)',
  'test/bundlers.test.js': 'esbuild\'s bundles of an app (the bundler\'s output, not node\'s behaviour)',
};
const all = fs.readdirSync(path.join(ROOT, 'test'))
  .filter((f) => f.endsWith('.test.js'))
  .sort()
  .map((f) => path.join('test', f).split(path.sep).join('/'));
const runAll = process.env.KDFPOOL_VERSIONS_ALL === '1';
const files = runAll ? all : all.filter((f) => !(f in ONCE));
if (!runAll) for (const [f, why] of Object.entries(ONCE)) console.log(`test:versions: ${f} runs once, in test:js: ${why}`);

// Two files at a time whatever the CPU count (node's default is one less
// than the CPUs: one file at a time on CI's 2): the suites spend much of
// their time waiting (timers, child processes, idle pools), and every test
// must pass on a loaded machine anyway. KDFPOOL_VERSIONS_CONCURRENCY=1 for
// one at a time.
const CONCURRENCY = Number(process.env.KDFPOOL_VERSIONS_CONCURRENCY) || 2;

fs.mkdirSync(LOG_DIR, { recursive: true });
const lines = [];
let ok = true;

for (const major of majors) {
  const bin = binaryFor(major);
  if (bin === null) {
    ok = false;
    lines.push(`node ${major}: NOT RUN, no binary (scripts/install-nodes.sh ${major})`);
    console.log(lines[lines.length - 1]);
    continue;
  }
  const version = spawnSync(bin, ['-v'], { encoding: 'utf8' }).stdout.trim();
  if (majorOf(version) !== major) {
    ok = false;
    lines.push(`node ${major}: NOT RUN, ${bin} reports "${version}"`);
    console.log(lines[lines.length - 1]);
    continue;
  }
  console.log(`test:versions: node ${version} (${bin}) ...`);
  const log = path.join(LOG_DIR, `node${major}.tap`);
  const started = Date.now();
  // The binary's directory first on PATH: tests that spawn `node` (or npm's
  // `#!/usr/bin/env node`) get the same version.
  const env = {
    KDFPOOL_SOAK_SECONDS: '5',
    KDFPOOL_FUZZ_SECONDS: '3',
    ...process.env,
    PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH}`,
  };
  const r = spawnSync(bin, ['--test', '--test-reporter=tap', `--test-concurrency=${CONCURRENCY}`, ...files], {
    cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  const tap = `${r.stdout || ''}${r.stderr ? `\n# stderr:\n${r.stderr}` : ''}`;
  fs.writeFileSync(log, tap);
  const c = counts(r.stdout || '');
  const passed = r.status === 0 && c.fail === 0 && !c.cancelled && c.tests > 0;
  if (!passed) ok = false;
  const line = `node ${version}: tests ${c.tests ?? '?'}, pass ${c.pass ?? '?'}, fail ${c.fail ?? '?'}, `
    + `skipped ${c.skipped ?? '?'}, cancelled ${c.cancelled ?? '?'} (${seconds} s)`
    + `${passed ? '' : `  FAILED (exit ${r.status ?? r.signal}; log ${path.relative(ROOT, log)})`}`;
  lines.push(line);
  console.log(line);
  if (!passed) for (const name of failures(r.stdout || '').slice(0, 20)) console.log(`    not ok - ${name}`);
}

console.log('\ntest:versions summary');
for (const line of lines) console.log(`  ${line}`);
process.exit(ok ? 0 : 1);
