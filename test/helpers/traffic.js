'use strict';

// Traffic the way a login service sees it, for tests that need a pool kept
// busy by real jobs rather than held by gates: one-shot users, each a
// fairKey of its own that makes one call (per-IP keys of distinct users,
// the common case of fairKeyMiddleware). `slots` users are in flight at a
// time: when one's call completes the next user arrives at once, and when
// one is refused that user goes away and the next arrives `gapMs` later.
// With as many slots as the pool holds (threads + maxQueue), the queue is
// full but for the moments between one user's call and the next, so that
// anyone else's call meets a full queue, and users are refused only when
// someone else took a place. Counts, not times: the caller decides how
// long the traffic runs by the jobs it served.

const { setTimeout: sleep } = require('node:timers/promises');
const kdf = require('../..');

/**
 * Starts the users on `call(fairKey)` (a promise for one call). Returns
 * { served, refused, stop() }: the calls completed and refused so far, and
 * stop(), which lets the calls in flight finish and resolves once every
 * slot has ended (rejecting with the first error that is not a refusal).
 */
function oneShotUsers(call, { slots, gapMs = 5, prefix = 'one-shot' }) {
  const counts = { served: 0, refused: 0 };
  let stopped = false;
  let next = 0;
  const slot = async () => {
    while (!stopped) {
      try {
        await call(`${prefix}-${next++}`);
        counts.served++;
      } catch (err) {
        if (!(err instanceof kdf.PoolSaturatedError)) throw err;
        counts.refused++;
        await sleep(gapMs);
      }
    }
  };
  const done = Promise.all(Array.from({ length: slots }, slot));
  done.catch(() => {}); // reported by stop()
  return {
    get served() { return counts.served; },
    get refused() { return counts.refused; },
    stop() {
      stopped = true;
      return done;
    },
  };
}

module.exports = { oneShotUsers };
