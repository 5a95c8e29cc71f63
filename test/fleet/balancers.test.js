'use strict';

// nginx and HAProxy (Debian's, run in the foreground on loopback) with the
// shipped configs (examples/deploy/nginx.conf, haproxy.cfg), in front of
// three login replicas (test/fleet/replica.js: examples/login-server.js
// on a one-thread kdfpool pool), one of them kept saturated by a flood from
// beside the balancer: clients see >= 99 % success and a p99 at most 3x
// the idle p99 while the fleet has capacity (the saturated replica answers
// 503 at once and the balancer retries another), and once every replica
// is full, refusals are 503 with Retry-After, never a 502 or 504. The same
// fleet on crypto.pbkdf2 replicas is measured beside it and printed (not
// asserted: it has nothing to refuse with). Figures: npm run bench (fleet).
//
// Skipped, saying why, only where the engines are not installed
// (scripts/setup.sh installs them, so CI never skips).

const { test, after } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./harness');

const missing = h.missingEngines(['nginx', 'haproxy']);
const figures = [];

after(async () => {
  await h.stopAll();
  for (const line of figures) console.log(line);
});

function describe(kind, balancer, r) {
  const f = (x) => `${(x.success * 100).toFixed(1)} % ok, p50 ${x.p50.toFixed(1)} ms, p99 ${x.p99.toFixed(1)} ms`;
  return `${kind} via ${balancer}: idle ${f(r.idle)}; one saturated ${f(r.oneFull)}, p99 x${(r.oneFull.p99 / r.idle.p99).toFixed(2)}; `
    + `all full: ${JSON.stringify(r.allFull.statuses)}`;
}

const STARTERS = { nginx: h.startNginx, haproxy: h.startHaproxy };

for (const kind of ['kdfpool', 'pbkdf2']) {
  test(`${kind} replicas behind nginx and HAProxy, one saturated, then all`, { skip: missing || false }, async () => {
    const replicas = await h.startFleet(kind);
    try {
      for (const [name, start] of Object.entries(STARTERS)) {
        const balancer = await start(replicas.map((r) => r.port));
        let r;
        try {
          r = await h.balancerPhases(kind, balancer, replicas);
        } finally {
          await balancer.stop();
        }
        figures.push(describe(kind, name, r));
        const never = Object.keys(r.allFull.statuses).filter((s) => ['0', '502', '504'].includes(s));
        assert.deepEqual(never, [], `${kind} via ${name}: no 502, 504 or dropped connection once all are full`);
        if (kind !== 'kdfpool') continue;
        assert.ok(r.oneFull.success >= 0.99, `${name}: ${(r.oneFull.success * 100).toFixed(1)} % success with one replica saturated`);
        assert.ok(r.oneFull.p99 <= 3 * r.idle.p99,
          `${name}: p99 ${r.oneFull.p99.toFixed(1)} ms with one replica saturated, idle ${r.idle.p99.toFixed(1)} ms`);
        // Every replica full: the burst beyond their places is refused with
        // 503 (or 429) and Retry-After, which the balancer passed through.
        assert.ok(r.allFull.refusals.length > 0, `${name}: the burst beyond the fleet's places was refused`);
        for (const a of r.allFull.refusals) {
          assert.ok(a.status === 503 || a.status === 429, `${name}: status ${a.status}`);
          assert.match(String(a.retryAfter), /^[1-9][0-9]*$/, `${name}: Retry-After`);
        }
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  });
}
