'use strict';

const assert = require('node:assert/strict');

// Bounded poll (every 5 ms, at most 30 s) for a state change the test
// itself caused; fails naming `what` instead of hanging.
async function until(predicate, what) {
  for (let i = 0; i < 6000; i++) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

module.exports = { until };
