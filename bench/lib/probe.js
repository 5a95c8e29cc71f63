'use strict';

// The isolation probe shared by the benches: what a request handler feels
// of libuv's thread pool. Sequential rounds of a 4 KiB fs.promises.readFile
// (open, stat, read and close each take a trip through the pool) and, if
// asked, a dns.lookup('localhost') (also on the pool), each timed, with a
// short pause between rounds.

const dns = require('node:dns');
const fsp = require('node:fs/promises');
const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');

const PROBE_GAP_MS = 5; // pause between probe rounds
const LOOP_RESOLUTION_MS = 2; // monitorEventLoopDelay's timer interval, for loopDelay()

/**
 * Probes until performance.now() passes `deadline`; returns the durations in
 * ms: { readFile: [...], lookup: [...] } (lookup empty unless `lookup`).
 * With `into`, records there as it goes, and keeps `into.pending` at
 * { op, since } while a probe is in flight (null between probes): a caller
 * that cannot wait for a stalled read can take what is there.
 */
async function probeUntil(deadline, file, { lookup = true, gapMs = PROBE_GAP_MS, into } = {}) {
  const out = into || { readFile: [], lookup: [], pending: null };
  const timed = async (op, fn) => {
    out.pending = { op, since: performance.now() };
    await fn();
    out[op].push(performance.now() - out.pending.since);
    out.pending = null;
  };
  while (performance.now() < deadline) {
    await timed('readFile', () => fsp.readFile(file));
    if (lookup) await timed('lookup', () => dns.promises.lookup('localhost'));
    await sleep(gapMs);
  }
  return out;
}

/**
 * Event-loop lateness in ms at percentile p (100 = max) of a histogram from
 * monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS }). The histogram
 * records whole timer intervals (the resolution included), so an idle loop
 * would read 2 ms; this reports only the lateness.
 */
function loopDelay(histogram, p) {
  const ns = p === 100 ? histogram.max : histogram.percentile(p);
  return Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
}

module.exports = { probeUntil, loopDelay, PROBE_GAP_MS, LOOP_RESOLUTION_MS };
