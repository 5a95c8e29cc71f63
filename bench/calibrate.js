#!/usr/bin/env node
'use strict';

// Measures the unit costs that src/kdf/cost.c predicts jobs with: for each
// CPU variant this machine runs, the time per unit of work of one job when
// the pool is saturated (one thread, jobs kept queued so that batches form
// as they do under load). Units: PBKDF2 one iteration of one output block;
// scrypt N * r; Argon2 one block of one pass; bcrypt one of its 2^cost
// key-schedule rounds. Needs a test build (npm run build): it forces
// variants.
//
//   node bench/calibrate.js [--jobs 16]

const path = require('node:path');
const { performance } = require('node:perf_hooks');

const kdf = require('..');
const native = require('../lib/native');

const args = process.argv.slice(2);
const JOBS = args.includes('--jobs') ? Number(args[args.indexOf('--jobs') + 1]) : 16;
const forceVariant = (native.testing || native).forceVariant;
if (typeof forceVariant !== 'function') {
  console.error('calibrate: needs a test build (npm run build), which can force CPU variants');
  process.exit(1);
}

async function saturated(run, units) {
  const pool = kdf.createPool({ threads: 1, maxQueue: JOBS, priority: 'normal' });
  await run(pool); // warm: arenas mapped, variant picked
  const t = performance.now();
  await Promise.all(Array.from({ length: JOBS }, () => run(pool)));
  const ms = performance.now() - t;
  await pool.close();
  return (ms * 1e6) / (JOBS * units);
}

const CASES = [
  { family: 'sha', what: 'PBKDF2-SHA256, ns per iteration', units: 20000,
    run: (p) => p.pbkdf2('pw', 'salt', 20000, 32, 'sha256') },
  { family: 'sha', what: 'PBKDF2-SHA512, ns per iteration', units: 10000,
    run: (p) => p.pbkdf2('pw', 'salt', 10000, 64, 'sha512') },
  { family: 'sha', what: 'PBKDF2-SHA1, ns per iteration', units: 20000,
    run: (p) => p.pbkdf2('pw', 'salt', 20000, 20, 'sha1') },
  { family: 'scrypt', what: 'scrypt, ns per N*r', units: 4096 * 8,
    run: (p) => p.scrypt('pw', 'salt', 32, { N: 4096, r: 8, p: 1 }) },
  { family: 'argon2', what: 'Argon2id, ns per block-pass', units: 4096 * 2,
    run: (p) => p.argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 4096, passes: 2 }) },
  { family: null, what: 'bcrypt, ns per 2^cost round', units: 2 ** 6,
    run: (p) => p.hash('pw', { algorithm: 'bcrypt', cost: 6 }) },
];

const VARIANTS = {
  sha: ['portable', 'bmi2', 'avx2', 'avx512', 'shani', 'shani-avx512', 'armce', 'armce-sha512'],
  scrypt: ['portable', 'sse2', 'avx2', 'avx512', 'neon'],
  argon2: ['portable', 'ssse3', 'avx2', 'avx512', 'neon'],
};

async function main() {
  console.log(`calibrate: ${JOBS} jobs per case on one thread (${path.basename(process.execPath)} ${process.version})`);
  for (const c of CASES) {
    const names = c.family === null ? ['-'] : VARIANTS[c.family];
    for (const name of names) {
      if (c.family !== null && !forceVariant(c.family, name)) continue;
      const ns = await saturated(c.run, c.units);
      console.log(`${c.what.padEnd(34)} ${name.padEnd(13)} ${ns.toFixed(ns < 100 ? 1 : 0)}`);
    }
    if (c.family !== null) forceVariant(c.family, 'auto');
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
