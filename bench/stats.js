'use strict';

// Small helpers shared by the benches: percentiles, medians, formatting,
// and a driver that keeps calls in flight.

const { performance } = require('node:perf_hooks');

/** Nearest-rank percentile (p in 0..100) of numbers; NaN when empty. */
function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

function median(values) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** { n, p50, p99, max } of a list of durations. */
function summarize(values) {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : NaN,
  };
}

/** Milliseconds with precision that suits the magnitude: 0.153, 4.12, 1003. */
function fmtMs(ms) {
  if (!Number.isFinite(ms)) return '-';
  if (ms >= 100) return ms.toFixed(0);
  if (ms >= 10) return ms.toFixed(1);
  if (ms >= 1) return ms.toFixed(2);
  return ms.toFixed(3);
}

function fmtRatio(x) {
  return Number.isFinite(x) ? `${x.toFixed(2)}x` : '-';
}

/**
 * Renders rows (arrays of strings) under headers as an aligned text table;
 * the first column is left-aligned, the others right-aligned.
 */
function table(headers, rows) {
  const all = [headers, ...rows].map((r) => r.map(String));
  const widths = headers.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(all[0]), rule, ...all.slice(1).map(line)].join('\n');
}

/**
 * Runs `jobs` calls of submit(cb) with `inFlight` outstanding; resolves
 * with the milliseconds they took, or rejects with the first error.
 */
function keepInFlight(submit, jobs, inFlight) {
  return new Promise((resolve, reject) => {
    let started = 0;
    let done = 0;
    const t = performance.now();
    const next = () => {
      started++;
      submit((err) => {
        if (err) return reject(err);
        if (++done === jobs) return resolve(performance.now() - t);
        if (started < jobs) next();
        return undefined;
      });
    };
    for (let i = 0; i < Math.min(inFlight, jobs); i++) next();
  });
}

module.exports = { percentile, median, summarize, fmtMs, fmtRatio, table, keepInFlight };
