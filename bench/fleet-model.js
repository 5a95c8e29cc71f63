#!/usr/bin/env node
'use strict';

// A deterministic model of the shipped autoscaling (examples/deploy/):
// logins arrive at a load that ramps from 0.5x to 5x one replica's
// capacity; replicas are added when the shipped signal says so, through
// the HPA's arithmetic and timing; the table says what users get.
//
// - A replica serves C logins/s (the unit: loads and logins/s are in C).
//   A retrying balancer (examples/deploy/nginx.conf, haproxy.cfg) spreads
//   the load, so logins are refused only once every ready replica is full:
//   served = min(load, ready x C), the rest refused (a 503 each).
// - The signal (kdfpool-rules.yml): each replica's demand = utilization x
//   (1 + refused / completed) = load / (ready x C); Prometheus scrapes and
//   evaluates every 5 s, the rules average over 20 s.
// - The HPA (hpa.yaml), every 15 s (its sync period): pods not yet ready
//   count as 0 when it scales up, so desired = ceil(ready x signal / 0.7);
//   nothing while the ratio is within its 10 % tolerance; up by at most
//   max(100 %, 4 pods) per 15 s with no stabilization; down to the highest
//   recommendation of the last 300 s (its stabilization window), by at
//   most 50 % per 60 s. A new pod is ready `podStartS` after it is asked for.
// - Beside it, the same HPA on the utilization alone (capped at 1): what
//   scaling on busy threads, or on CPU, would do.
//
//   node bench/fleet-model.js [--json]

const DEFAULTS = {
  target: 0.7,
  tolerance: 0.1,
  syncS: 15,
  scrapeS: 5,
  windowS: 20,
  scaleUpPercent: 100,
  scaleUpPods: 4,
  scaleDownWindowS: 300,
  scaleDownPercent: 50,
  scaleDownPeriodS: 60,
  podStartS: 20,
  minReplicas: 1,
  maxReplicas: 20,
  // The load (x C) over time: 0.5 to 5 in 10 minutes, then 5 for 3.
  rampS: 600,
  holdS: 180,
  from: 0.5,
  to: 5,
};

function loadAt(o, t) {
  return t >= o.rampS ? o.to : o.from + ((o.to - o.from) * t) / o.rampS;
}

/**
 * Runs the model second by second. `signal`: 'demand' (the shipped one) or
 * 'utilization'. Returns per-second { t, load, ready, replicas, served,
 * refused, signal }.
 */
function simulate(options = {}, signal = 'demand') {
  const o = { ...DEFAULTS, ...options };
  const seconds = o.rampS + o.holdS;
  let replicas = o.minReplicas; // what the Deployment asks for
  let readyAt = [0]; // when each asked-for pod is ready (sorted)
  for (let i = 1; i < replicas; i++) readyAt.push(0);
  const perSecond = []; // the true per-replica value each second
  const evaluated = []; // [time, value] of the rule, every scrapeS
  const recommendations = []; // [time, desired] for scale-down stabilization
  let lastScaleDown = -Infinity;
  const out = [];
  for (let t = 0; t < seconds; t++) {
    const load = loadAt(o, t);
    const asked = replicas; // this second's, before the HPA's sync at its end
    const ready = readyAt.filter((r) => r <= t).length;
    const capacity = ready;
    const served = Math.min(load, capacity);
    const refused = load - served;
    const utilization = capacity === 0 ? 0 : served / capacity;
    const demand = capacity === 0 ? 0 : utilization * (1 + (served > 0 ? refused / served : 0));
    perSecond.push(signal === 'demand' ? demand : utilization);
    if (t % o.scrapeS === 0) {
      const from = Math.max(0, t - o.windowS + 1);
      const window = perSecond.slice(from, t + 1);
      evaluated.push([t, window.reduce((a, b) => a + b, 0) / window.length]);
    }
    const seen = evaluated[evaluated.length - 1][1];
    if (t > 0 && t % o.syncS === 0) {
      const ratio = seen / o.target;
      let desired = Math.abs(ratio - 1) <= o.tolerance ? replicas : Math.ceil((ready * seen) / o.target);
      desired = Math.min(o.maxReplicas, Math.max(o.minReplicas, desired));
      recommendations.push([t, desired]);
      while (recommendations.length && recommendations[0][0] <= t - o.scaleDownWindowS) recommendations.shift();
      if (desired > replicas) {
        const cap = Math.max(Math.ceil(replicas * (1 + o.scaleUpPercent / 100)), replicas + o.scaleUpPods);
        const next = Math.min(desired, cap);
        for (let i = replicas; i < next; i++) readyAt.push(t + o.podStartS);
        replicas = next;
      } else {
        const stabilized = Math.max(...recommendations.map(([, d]) => d));
        if (stabilized < replicas && t - lastScaleDown >= o.scaleDownPeriodS) {
          const next = Math.max(stabilized, Math.floor(replicas * (1 - o.scaleDownPercent / 100)));
          readyAt = readyAt.slice(0, next);
          replicas = next;
          lastScaleDown = t;
        }
      }
    }
    out.push({ t, load, ready, replicas: asked, served, refused, signal: seen });
  }
  return out;
}

/**
 * Rows every `everyS` seconds: the load at the end of the interval, the
 * replicas ready, logins/s served and the share refused over the interval,
 * for the shipped signal and for the utilization alone.
 */
function table(options = {}, everyS = 60) {
  const demand = simulate(options, 'demand');
  const utilization = simulate(options, 'utilization');
  const rows = [];
  for (let end = everyS; end <= demand.length; end += everyS) {
    const span = (run) => run.slice(end - everyS, end);
    const share = (xs) => xs.reduce((a, x) => a + x.refused, 0) / xs.reduce((a, x) => a + x.load, 0);
    const last = (run) => run[end - 1];
    rows.push({
      minute: end / 60,
      load: last(demand).load,
      ready: last(demand).ready,
      served: span(demand).reduce((a, x) => a + x.served, 0) / everyS,
      refused: share(span(demand)),
      readyUtilization: last(utilization).ready,
      refusedUtilization: share(span(utilization)),
    });
  }
  const total = (run) => run.reduce((a, x) => a + x.refused, 0) / run.reduce((a, x) => a + x.load, 0);
  return { rows, refusedTotal: total(demand), refusedTotalUtilization: total(utilization) };
}

/** The table as Markdown. */
function markdown(result) {
  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  const lines = [
    '| minute | load (× one replica) | replicas ready | logins/s served (× one replica) | refused | utilization-only: replicas, refused |',
    '|---|---|---|---|---|---|',
  ];
  for (const r of result.rows) {
    lines.push(`| ${r.minute} | ${r.load.toFixed(2)} | ${r.ready} | ${r.served.toFixed(2)} | ${pct(r.refused)} | ${r.readyUtilization}, ${pct(r.refusedUtilization)} |`);
  }
  lines.push(`| all | | | | ${pct(result.refusedTotal)} | ${pct(result.refusedTotalUtilization)} |`);
  return lines.join('\n');
}

module.exports = { DEFAULTS, simulate, table, markdown };

if (require.main === module) {
  const result = table();
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else console.log(markdown(result));
}
