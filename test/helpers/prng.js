'use strict';

// Deterministic PRNG (mulberry32) for randomized tests: a failing case can be
// replayed with KDF_TEST_SEED=<seed>.

const SEED = Number(process.env.KDF_TEST_SEED) || (Date.now() >>> 0);

function prng(seed = SEED) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

module.exports = { prng, SEED };
