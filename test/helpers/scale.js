'use strict';

// KDFPOOL_TEST_SCALE (a number, default 1) scales the iteration counts of
// the heaviest tests: scripts/test-sanitized.sh sets it below 1 because
// everything runs several times slower under AddressSanitizer. Each test
// keeps at least `min` iterations, so none is skipped.
const SCALE = Number(process.env.KDFPOOL_TEST_SCALE) > 0 ? Number(process.env.KDFPOOL_TEST_SCALE) : 1;

function scaled(n, min = 1) {
  return Math.max(min, Math.round(n * SCALE));
}

module.exports = { SCALE, scaled };
