'use strict';

// One fault-injection case in a child process (see test/faults.test.js):
//   node fault-child.js <case> loop       learn N, then arm 1..N+2 in turn
//   node fault-child.js <case> count      N only (unarmed run)
//   node fault-child.js <case> one <i>    one armed run (cases that exit)
// Prints one JSON line per armed run, and "arm <i>" on stderr before it,
// so a crash names the iteration.

const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const native = require(path.join(ROOT, 'lib', 'native'));
const kdf = require(ROOT);
const { CASES, nudgeSource } = require('./fault-cases');

const f = native.testing.faults;
const [name, mode, arg] = process.argv.slice(2);
const c = CASES[name];
const nudge = new Function(`return ${nudgeSource}`)();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const normal = c.normal || ['ok']; // what an unarmed run ends with
const EXTRA = 2; // a few more than counted: threads make the count vary

async function outcomeOf(promiseOrValue) {
  try {
    let v = await nudge(Promise.resolve().then(() => promiseOrValue), kdf);
    if (c.unwrap) v = await c.unwrap(v);
    if (c.check && !c.check(v)) return `WRONG RESULT ${String(v).slice(0, 60)}`;
    return 'ok';
  } catch (err) {
    return err && err.code ? err.code : `uncoded ${err && err.name}: ${err && err.message}`;
  }
}

function runOnce() {
  try {
    return c.run(kdf);
  } catch (err) {
    return Promise.reject(err);
  }
}

// Waits until the live allocations are back to `baseline` (jobs of a
// terminated worker end on the pool threads a little later: a 200,000-
// iteration PBKDF2 under ASan on a loaded machine took more than the 5 s
// this once allowed), for at most 30 s: a leak fails, only later.
// Pool handles are freed when JS collects them, so collect first.
// A wake-up that failed (an injected napi_call_threadsafe_function) is
// owed, and paid by the next completion by design: when a second has not
// brought the count back, a tiny job on the default pool (which the case
// has made already, or the count would not be up) collects what waits in
// the done list (an aborted job's result).
async function liveAfter(baseline) {
  for (let waited = 0; waited < 30000; waited += 10) {
    global.gc();
    await sleep(waited === 0 ? 0 : 10);
    if (f.live() <= baseline) break;
    if (waited === 1000 && kdf.stats().threads > 0) await kdf.pbkdf2('wake', 'salt', 1, 8, 'sha256').catch(() => {});
  }
  return f.live();
}

async function armed(i) {
  // A normal call first: it must work, and it warms what stays allocated
  // (the default pool, its worker slots and arenas).
  const warm = await outcomeOf(runOnce());
  if (!normal.includes(warm)) return { i, outcome: `normal call failed: ${warm}` };
  global.gc();
  await sleep(0);
  global.gc();
  const baseline = f.live();
  f.reset();
  process.stderr.write(`arm ${i}\n`);
  f.arm(i);
  const outcome = await outcomeOf(runOnce());
  f.disarm();
  const injected = f.injected();
  const site = f.lastInjected();
  const live = await liveAfter(baseline);
  return { i, outcome, injected, site, live, baseline };
}

async function main() {
  if (c.setup) c.setup(kdf);
  if (c.perProcess) {
    // The case ends the process: report what it reached on exit.
    f.reset();
    if (mode === 'one') {
      process.stderr.write(`arm ${arg}\n`);
      f.arm(Number(arg));
    }
    process.on('exit', () => {
      const report = { count: f.count(), sites: f.sites(), injected: f.lastInjected() };
      require('node:fs').writeSync(1, `${JSON.stringify(report)}\n`);
    });
    await runOnce();
    return;
  }
  const first = await outcomeOf(runOnce());
  f.reset();
  const second = await outcomeOf(runOnce());
  const n = f.count();
  console.log(JSON.stringify({ count: n, normal: normal.includes(first) && normal.includes(second) }));
  if (mode === 'count') {
    console.log(JSON.stringify({ sites: f.sites() }));
    return;
  }
  for (let i = 1; i <= n + EXTRA; i++) console.log(JSON.stringify(await armed(i)));
  const last = await outcomeOf(runOnce());
  console.log(JSON.stringify({ final: normal.includes(last), sites: f.sites() }));
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
