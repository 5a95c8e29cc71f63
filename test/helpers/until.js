'use strict';

const assert = require('node:assert/strict');
const { setImmediate: tick, setTimeout: sleep } = require('node:timers/promises');

// Bounded poll for a state change the test itself caused; fails naming
// `what` instead of hanging. The first polls are event-loop turns (a state
// that settles within a few completions is seen before a timer could
// fire), then every 5 ms, for at most about 30 s in all.
async function until(predicate, what, limit = 6000) {
  for (let i = 0; i < limit; i++) {
    if (predicate()) return;
    await (i < 100 ? tick() : sleep(5));
  }
  assert.fail(`timed out waiting for ${what}`);
}

module.exports = { until };
