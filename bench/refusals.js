#!/usr/bin/env node
'use strict';

// The cost of a refusal beside the cost of an accepted call. A saturated
// pool answers most calls with PoolSaturatedError, and it does so exactly
// when the service is overloaded: a refusal must cost far less than the
// work it turns away. Measured here:
//   refused   calls/s that a saturated pool refuses (a pool of one thread,
//             held by one long job, with maxQueue 0: every call is refused
//             with reason 'queue_full'), calls kept IN_FLIGHT outstanding
//   accepted  1-iteration PBKDF2 jobs/s on the default pool (the cheapest
//             job that runs: per-job overhead only), the same way
// Both in one process, rounds interleaved, medians kept.
//
// With --against <dir> (another checkout or build of kdfpool, e.g. a
// worktree of an older commit, built), the two packages take turns in
// fresh processes, round by round, and the ratio of their medians is
// printed: the only figure that means something on a loaded machine.
//
//   node bench/refusals.js [--quick] [--json] [--against <dir>] [--rounds N]

const path = require('node:path');
const os = require('node:os');
const { execFileSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { median, fmtRatio, table } = require('./stats');

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const QUICK = argv.includes('--quick');
const SECONDS = QUICK ? 0.4 : 1;
const IN_FLIGHT = 1000;

// Milliseconds per PBKDF2-SHA256 iteration on a pool thread.
async function iterationMs(pool) {
  const probe = 100000;
  const t = performance.now();
  await pool.pbkdf2('pw', 'salt', probe, 32, 'sha256');
  return (performance.now() - t) / probe;
}

// Holds the one thread of `pool` (maxQueue 0) with one job sized to outlast
// `ms`: `release()` resolves once it has ended. Nothing can stop a running
// job, so the hold is sized to the measurement, with a margin for a loaded
// machine; `running()` says whether it still holds.
async function hold(pool, perIteration, ms) {
  let running = true;
  const long = pool.pbkdf2('pw', 'salt', Math.ceil(ms / perIteration), 32, 'sha256')
    .finally(() => { running = false; });
  while (pool.stats().running === 0) await new Promise((resolve) => setImmediate(resolve));
  return { running: () => running, release: () => long };
}

// Calls per second of `call()` (a promise) over `seconds`, or until
// `going()` turns false, IN_FLIGHT kept outstanding; `expect(outcome,
// value)` checks each settlement ('ok' or 'error') and says whether it
// counts.
async function rate(call, seconds, expect, going = () => true) {
  let counted = 0;
  let calls = 0;
  let stop = false;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  const onOk = (v) => { if (expect('ok', v)) counted++; };
  const onErr = (e) => { if (expect('error', e)) counted++; };
  async function lane() {
    while (!stop) {
      await call().then(onOk, onErr);
      if ((++calls & 63) === 0 && (performance.now() >= deadline || !going())) stop = true;
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return counted / ((performance.now() - start) / 1000);
}

/**
 * { refusedPerSec, acceptedPerSec, shortened } for the kdfpool package
 * `kdf`: `rounds` rounds of `seconds` each, accepted calls (nothing held)
 * then refusals (a thread held) in each. A hold that ends early (a loaded
 * machine ran it faster than its calibration said) ends its round's
 * refusals early too: only calls refused while it held count, over the
 * time it held; `shortened` counts those rounds.
 */
async function measure(kdf, { rounds = 3, seconds = SECONDS } = {}) {
  const { maxQueue, maxWaitMs } = kdf.stats();
  kdf.configure({ maxQueue: Math.max(maxQueue, IN_FLIGHT), maxWaitMs: 0 });
  // At the default priority ('auto', which is 'low' while only this process competes), as a service's pool runs: the held
  // thread yields the CPU to the JS thread that refuses.
  const pool = kdf.createPool({ name: 'held', threads: 1, maxQueue: 0, maxWaitMs: 0 });
  const refused = [];
  const acceptedRates = [];
  let shortened = 0;
  let wrong;
  const isRefusal = (outcome, v) => {
    if (outcome === 'error' && v.code !== 'ERR_KDF_POOL_SATURATED') wrong = v;
    return outcome === 'error';
  };
  const isKey = (outcome, v) => {
    if (outcome !== 'ok') wrong = v;
    return outcome === 'ok';
  };
  const refusal = () => pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  const accepted = () => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  try {
    const perIteration = await iterationMs(pool);
    for (let r = -1; r < rounds; r++) { // round -1: warm-up, not kept
      const s = r < 0 ? seconds / 4 : seconds;
      const a = await rate(accepted, s, isKey);
      const held = await hold(pool, perIteration, s * 1000 * 2 + 300);
      const x = await rate(refusal, s, isRefusal, held.running);
      if (!held.running()) shortened++;
      await held.release();
      if (r >= 0) {
        acceptedRates.push(a);
        refused.push(x);
      }
    }
  } finally {
    await pool.close();
    kdf.configure({ maxQueue, maxWaitMs });
  }
  if (wrong !== undefined) throw wrong;
  return { refusedPerSec: median(refused), acceptedPerSec: median(acceptedRates), shortened };
}

function loadavg() {
  return os.loadavg().map((x) => x.toFixed(2)).join(' ');
}

// One child process per package and round: `node bench/refusals.js
// --child <dir>` prints measure()'s JSON.
function inChild(dir, rounds) {
  const out = execFileSync(process.execPath, [__filename, '--child', dir, '--rounds', String(rounds)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out);
}

async function main() {
  const child = opt('--child');
  const rounds = Number(opt('--rounds')) || (QUICK ? 1 : 3);
  if (child !== undefined) {
    process.stdout.write(JSON.stringify(await measure(require(path.resolve(child)), { rounds })));
    return;
  }
  const against = opt('--against');
  const ours = path.join(__dirname, '..');
  if (against === undefined) {
    const m = await measure(require('..'), { rounds });
    if (argv.includes('--json')) {
      console.log(JSON.stringify({ ...m, loadavg: loadavg() }));
      return;
    }
    console.log(`node ${process.version}, ${os.cpus()[0].model.trim()}, load average ${loadavg()}`);
    console.log(table(['kdfpool', 'calls/s', 'us/call'], [
      ['refused (saturated pool)', m.refusedPerSec.toFixed(0), (1e6 / m.refusedPerSec).toFixed(2)],
      ['accepted (PBKDF2 1 iteration)', m.acceptedPerSec.toFixed(0), (1e6 / m.acceptedPerSec).toFixed(2)],
    ]));
    console.log(`refused / accepted: ${fmtRatio(m.refusedPerSec / m.acceptedPerSec)}`);
    if (m.shortened) console.log(`(${m.shortened} rounds shortened: their hold ended early)`);
    return;
  }
  // Interleaved, in fresh processes: ours, theirs, theirs, ours, ...
  const turns = QUICK ? 2 : Number(opt('--turns')) || 6;
  const runs = { ours: [], theirs: [] };
  const loads = [];
  for (let t = 0; t < turns; t++) {
    const order = t % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'];
    for (const who of order) runs[who].push(inChild(who === 'ours' ? ours : against, 1));
    loads.push(os.loadavg()[0]);
  }
  const med = (who, key) => median(runs[who].map((r) => r[key]));
  const result = {
    turns,
    loadavg1: { min: Math.min(...loads), median: median(loads), max: Math.max(...loads) },
    refusedPerSec: { ours: med('ours', 'refusedPerSec'), theirs: med('theirs', 'refusedPerSec') },
    acceptedPerSec: { ours: med('ours', 'acceptedPerSec'), theirs: med('theirs', 'acceptedPerSec') },
    shortened: runs.ours.concat(runs.theirs).reduce((n, r) => n + r.shortened, 0),
  };
  if (argv.includes('--json')) {
    console.log(JSON.stringify(result, null, 2));
    return;
  }
  console.log(`${turns} turns each, interleaved; node ${process.version}, ${os.cpus()[0].model.trim()}; ` +
    `1-min load average ${result.loadavg1.min.toFixed(2)}..${result.loadavg1.max.toFixed(2)} (median ${result.loadavg1.median.toFixed(2)})`);
  console.log(table(['calls/s (median)', 'this package', path.basename(path.resolve(against)), 'ratio'], [
    ['refused (saturated pool)', result.refusedPerSec.ours.toFixed(0), result.refusedPerSec.theirs.toFixed(0),
      fmtRatio(result.refusedPerSec.ours / result.refusedPerSec.theirs)],
    ['accepted (PBKDF2 1 iteration)', result.acceptedPerSec.ours.toFixed(0), result.acceptedPerSec.theirs.toFixed(0),
      fmtRatio(result.acceptedPerSec.ours / result.acceptedPerSec.theirs)],
  ]));
  if (result.shortened) console.log(`(${result.shortened} rounds shortened: their hold ended early)`);
}

module.exports = { measure };

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
