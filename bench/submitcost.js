#!/usr/bin/env node
'use strict';

// What a submit costs with many clients queued: 100,000 calls wait on a
// pool whose one thread is held, all from one fairKey, or each from a
// fairKey of its own, every call with a deadline (as the default pool sets
// on every call). The time per submit (JS, the native copy, admission, the
// queue's order) is measured over the whole run of submits and the look
// that admits those that came through the inbox, in turns, and
// the ratio of the two is the point: nothing on a submit's path walks the
// keys, so 100,000 keys cost about what one key costs (goal: at most 2x).
//
//   node bench/submitcost.js [--calls 100000] [--rounds 3] [--against <dir>]
//
// --against <dir>: also measures the kdfpool checkout in <dir> (built), in
// separate processes taking turns with this one, and prints both.

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt; };

// Holds the pool's one thread: a gate in a test build of the checkout at
// `root` (released when done), else a long job (waited for).
function holdThread(root, pool) {
  if (require(path.join(root, 'lib', 'native')).testing) {
    const g = require(path.join(root, 'test', 'helpers', 'gate')).gate(pool);
    return { release: () => g.release(), done: g.done.catch(() => {}) };
  }
  const long = pool.pbkdf2('hold', 'salt', 20_000_000, 32, 'sha256').catch(() => {});
  return { release: () => {}, done: long };
}

async function oneRun(root, keys, calls) {
  const kdf = require(root);
  const pool = kdf.createPool({ threads: 1, maxQueue: calls + 10 });
  const hold = holdThread(root, pool);
  while (pool.stats().running === 0) await new Promise((r) => setImmediate(r));
  const settled = [];
  const opts = (i) => ({ fairKey: keys === 1 ? 'one-client' : `client-${i}`, maxWaitMs: 600000 });
  // Warm the path, then time the submits alone (settling comes later).
  // Cheap jobs like these come in through the inbox and are admitted at
  // the next look under the pool lock (src/pool/pool.c, Inbox): stats()
  // is that look, so it closes the warm-up and the timed run, which then
  // counts every submit's admission too.
  for (let i = 0; i < 1000; i++) settled.push(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', opts(i)).catch(() => {}));
  pool.stats();
  const t0 = performance.now();
  for (let i = 1000; i < calls; i++) settled.push(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', opts(i)).catch(() => {}));
  const s = pool.stats();
  const us = ((performance.now() - t0) * 1000) / (calls - 1000);
  hold.release();
  await pool.close();
  await Promise.all(settled);
  await hold.done;
  return { us, queued: s.queued, keys: s.keys };
}

/**
 * The kdfpool checkout at `root`: { oneKeyUs, manyKeysUs, ratio, keys },
 * medians over rounds taken in turns.
 */
async function measure(root, { calls = 100000, rounds = 3 } = {}) {
  const one = [];
  const many = [];
  let seenKeys = 0;
  for (let r = 0; r < rounds; r++) {
    const a = await oneRun(root, 1, calls);
    const b = await oneRun(root, calls, calls);
    one.push(a.us);
    many.push(b.us);
    seenKeys = b.keys;
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const oneKeyUs = median(one);
  const manyKeysUs = median(many);
  return { calls, oneKeyUs, manyKeysUs, ratio: manyKeysUs / oneKeyUs, keys: seenKeys };
}

module.exports = { measure };

if (require.main === module) {
  const calls = Number(opt('--calls', 100000));
  const rounds = Number(opt('--rounds', 3));
  const against = opt('--against');
  if (process.env.KDFPOOL_SUBMITCOST_CHILD) {
    measure(process.env.KDFPOOL_SUBMITCOST_CHILD, { calls, rounds: 1 }).then((m) => process.stdout.write(JSON.stringify(m)));
  } else {
    const dirs = [path.join(__dirname, '..'), ...(against ? [path.resolve(against)] : [])];
    const results = dirs.map(() => []);
    for (let r = 0; r < rounds; r++) {
      dirs.forEach((dir, k) => {
        const out = spawnSync(process.execPath, ['--max-old-space-size=4096', __filename, '--calls', String(calls)], {
          env: { ...process.env, KDFPOOL_SUBMITCOST_CHILD: dir }, encoding: 'utf8',
        });
        if (out.status !== 0) throw new Error(`${dir}: ${out.stderr}`);
        results[k].push(JSON.parse(out.stdout));
      });
    }
    const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    dirs.forEach((dir, k) => {
      const one = median(results[k].map((m) => m.oneKeyUs));
      const many = median(results[k].map((m) => m.manyKeysUs));
      console.log(`${dir}: ${calls} queued; per submit ${one.toFixed(2)} us with 1 key, ` +
        `${many.toFixed(2)} us with ${calls} keys: ${(many / one).toFixed(2)}x`);
    });
  }
}
