'use strict';

// KDFPOOL_TEST_SCALE (a number, default 1) scales the iteration counts of
// the heaviest tests: scripts/test-sanitized.sh sets it below 1 because
// everything runs several times slower under AddressSanitizer. Each test
// keeps at least `min` iterations, so none is skipped.
const SCALE = Number(process.env.KDFPOOL_TEST_SCALE) > 0 ? Number(process.env.KDFPOOL_TEST_SCALE) : 1;

function scaled(n, min = 1) {
  return Math.max(min, Math.round(n * SCALE));
}

// KDFPOOL_QUICK=1 (npm test's quick run, scripts/test-js.js --quick): the
// few single tests that take seconds for what a quick signal does not need
// (a 1 GiB vector, a 16.7 million-iteration one, a 10 s idle timer) are
// skipped with this reason; `npm run test:all` runs them. A test option:
// it(name, { skip: leftToAll }, fn).
const leftToAll = process.env.KDFPOOL_QUICK === '1' ? 'left to npm run test:all (KDFPOOL_QUICK=1)' : false;

module.exports = { SCALE, scaled, leftToAll };
