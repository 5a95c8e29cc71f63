#!/usr/bin/env node
'use strict';

// npm run bench:fleet (and the fleet row of npm run bench): the figures of
// the fleet tests (test/fleet/), with the real engines on loopback.
//
// - Balancers: three login replicas, one thread each, behind nginx and
//   HAProxy (examples/deploy/); success share and p99 while all are idle
//   and while one is saturated (interleaved slices), then a burst while all
//   are: kdfpool replicas beside crypto.pbkdf2 ones (test/fleet/harness.js
//   says how a replica is saturated on this 2-CPU machine).
// - The autoscaling signal (kdfpool:demand:avg) through a real Prometheus
//   scraping two replicas: a surge from 0.4x to 1.3x one replica's
//   capacity at the shipped 5 s interval (the lead time after the load
//   passes capacity, and the share refused by then), and the tests' ramp
//   (0.4x, 0.85x, 1.3x, 0.15x) at 1 s.
// - The model (bench/fleet-model.js): replicas, logins/s and refused share
//   as the load ramps from 0.5x to 5x, over 10 minutes and over 1.
//
// Writes bench/fleet-results.md; `--no-write` only prints.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const h = require('../test/fleet/harness');
const model = require('./fleet-model');

const SURGE = [
  { share: 0.4, ms: 25000 },
  { share: 1.3, ms: 60000, until: 'up', overload: true, atLeastMs: 3000 },
  { share: 0.15, ms: 60000, until: 'down' },
];

async function balancers() {
  const rows = [];
  for (const kind of ['kdfpool', 'pbkdf2']) {
    const replicas = await h.startFleet(kind);
    try {
      for (const [name, start] of [['nginx', h.startNginx], ['HAProxy', h.startHaproxy]]) {
        const balancer = await start(replicas.map((r) => r.port));
        try {
          rows.push({ kind, balancer: name, ...await h.balancerPhases(kind, balancer, replicas) });
        } finally {
          await balancer.stop();
        }
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
    }
  }
  return rows;
}

/** Everything, or a note where an engine is missing. */
async function measure() {
  const missing = h.missingEngines(['nginx', 'haproxy', 'prometheus']);
  const result = { missing, model: { slow: model.table(), fast: model.table({ rampS: 60, holdS: 240 }, 30) } };
  if (missing) return result;
  try {
    result.loadBefore = os.loadavg();
    result.balancers = await balancers();
    result.surge = await h.autoscalingSignal({ intervalS: 5, steps: SURGE });
    result.ramp = await h.autoscalingSignal({ intervalS: 1 });
    result.loadAfter = os.loadavg();
  } finally {
    await h.stopAll();
  }
  return result;
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;
const ms = (x) => `${x.toFixed(1)} ms`;
const secs = (x) => (x === null ? 'never' : `${(x / 1000).toFixed(1)} s`);

function balancerTable(rows) {
  const lines = [
    '| replicas | balancer | idle: ok, p99 | one saturated: ok, p99 | p99 × idle | all saturated, 40 at once: answers |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const all = Object.entries(r.allFull.statuses).map(([s, n]) => `${n}× ${s}`).join(', ');
    const hint = r.allFull.refusals.every((a) => /^[1-9][0-9]*$/.test(String(a.retryAfter))) && r.allFull.refusals.length
      ? ', each with Retry-After' : '';
    lines.push(`| ${r.kind === 'kdfpool' ? 'kdfpool' : 'crypto.pbkdf2'} | ${r.balancer} | ${pct(r.idle.success)}, ${ms(r.idle.p99)} `
      + `| ${pct(r.oneFull.success)}, ${ms(r.oneFull.p99)} | ${(r.oneFull.p99 / r.idle.p99).toFixed(2)}× | ${all}${hint}; p99 ${ms(r.allFull.p99)} |`);
  }
  return lines.join('\n');
}

function signalLine(run, interval) {
  const lead = run.crossedUpAt === null ? 'never' : `${((run.crossedUpAt - run.overloadAt) / 1000).toFixed(1)} s`;
  return `scrape and rules every ${interval} s; one replica's capacity ${run.capacity.toFixed(0)} logins/s (PBKDF2-SHA256 `
    + `${h.SIGNAL_FLEET.iterations}, 1 thread); load over capacity from ${secs(run.overloadAt)}; ${h.SIGNAL} over ${h.SCALE_UP} `
    + `at ${secs(run.crossedUpAt)} (${lead} after the load passed capacity), ${pct(run.refusedShareAtCrossing || 0)} of logins `
    + `refused by then; load dropped at ${secs(run.dropAt)}, signal under ${h.SCALE_DOWN} at ${secs(run.crossedDownAt)}`
    + ` (${run.crossedDownAt === null ? '–' : `${((run.crossedDownAt - run.dropAt) / 1000).toFixed(1)} s later`})`;
}

// The report; `level`: the headings' depth ('#' for its own file, '##'
// inside bench/results.md).
function markdown(r, level = '#') {
  const sub = `${level}#`;
  const lines = [`${level} Fleet (issue 38: \`npm run bench:fleet\`, the fleet row of \`npm run bench\`)`, ''];
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  lines.push(`${when} UTC, node ${process.version}, ${os.availableParallelism()} CPUs (${os.cpus()[0].model.trim()})`
    + (r.loadBefore ? `, load average ${r.loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${r.loadAfter.map((x) => x.toFixed(2)).join(' ')} after` : '')
    + '. nginx, HAProxy and Prometheus from Debian 12, on loopback. The machine may have been shared: compare the columns of one run.', '');
  if (r.missing) {
    lines.push(`Not measured: ${r.missing}.`, '');
  } else {
    lines.push(`${sub} Balancers`, '');
    lines.push(`Three replicas, PBKDF2-SHA256 ${h.FLEET.iterations} per login on one thread each (kdfpool: maxQueue `
      + `${h.FLEET.kdfpool.maxQueue}; crypto.pbkdf2: UV_THREADPOOL_SIZE=1), ${h.FLEET.rate} logins/s through the balancer, `
      + `idle and one-saturated slices of ${h.FLEET.sliceMs} ms interleaved (${h.FLEET.slices} of each). A saturated kdfpool `
      + 'replica has its thread held and its queue filled by a flood; a crypto.pbkdf2 one hashes its flood at nice 19 '
      + '(test/fleet/harness.js).', '');
    lines.push(balancerTable(r.balancers), '');
    lines.push(`${sub} Autoscaling signal`, '');
    lines.push(`- Surge (0.4× to 1.3× one replica's capacity, two replicas): ${signalLine(r.surge, 5)}.`);
    lines.push(`- Ramp (0.4×, 0.85×, 1.3×, 0.15×, as the test): ${signalLine(r.ramp, 1)}.`, '');
  }
  lines.push(`${sub} Model: 0.5× to 5× one replica in 10 minutes`, '', model.markdown(r.model.slow), '');
  lines.push(`${sub} Model: 0.5× to 5× one replica in 1 minute (rows every 30 s)`, '', model.markdown(r.model.fast), '');
  return lines.join('\n');
}

module.exports = { measure, markdown };

if (require.main === module) {
  measure().then((r) => {
    const md = markdown(r);
    console.log(md);
    if (!process.argv.includes('--no-write')) {
      fs.writeFileSync(path.join(__dirname, 'fleet-results.md'), `${md}\n`);
      console.log('wrote bench/fleet-results.md');
    }
  }, (err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
