'use strict';

// The charts of `npm run bench` (bench/index.js): one SVG per measure, a
// panel per case, a bar per implementation; kdfpool's bar is highlighted
// and every bar is labelled with its ratio to kdfpool, so the chart reads
// like the results table. Drawn by Vega-Lite through bench/lib/chart.js.

const path = require('node:path');
const { writeSvg } = require('./chart');

const MEASURES = [
  {
    file: 'results-saturated.svg',
    field: 'opsPerSec',
    title: 'Saturated throughput (ops/s, higher is better)',
    subtitle: 'calls kept in flight; label: kdfpool\'s ops/s ÷ theirs',
    ratio: (ours, row) => ours / row,
  },
  {
    file: 'results-single.svg',
    field: 'singleMs',
    title: 'Single operation (ms, lower is better)',
    subtitle: 'median, nothing else running; label: their time ÷ kdfpool\'s',
    ratio: (ours, row) => row / ours,
  },
];

function panel(r, m) {
  const ours = r.rows.find((x) => x.name.startsWith('kdfpool'));
  const values = [];
  for (const row of r.rows) {
    const v = row[m.field];
    if (!Number.isFinite(v) || v <= 0) continue;
    const x = m.ratio(ours[m.field], v);
    values.push({
      impl: row.name + (row.jsThread ? ' (JS thread)' : ''),
      value: v,
      who: row.name.startsWith('kdfpool') ? 'kdfpool' : 'peer',
      label: row === ours ? `${v.toPrecision(3)}` : `${v.toPrecision(3)}  (${x.toFixed(2)}×)`,
    });
  }
  return {
    title: { text: r.title, anchor: 'start', fontSize: 12 },
    width: 420,
    height: { step: 16 },
    data: { values },
    encoding: {
      y: { field: 'impl', type: 'nominal', title: null, sort: null, axis: { labelLimit: 220 } },
      x: { field: 'value', type: 'quantitative', title: null, scale: { zero: true }, stack: null },
    },
    layer: [
      {
        mark: { type: 'bar', height: { band: 0.75 } },
        encoding: {
          color: { field: 'who', type: 'nominal', title: null, scale: { domain: ['kdfpool', 'peer'], range: ['#2f6fb0', '#a8a8a8'] } },
        },
      },
      { mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 }, encoding: { text: { field: 'label' } } },
    ],
  };
}

// One panel per case, stacked: each case has its own scale (ops/s of a
// 1-iteration job and of bcrypt differ by 10^4).
function spec(results, m, machine) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: m.title, subtitle: `${m.subtitle}. ${machine}`, anchor: 'start' },
    vconcat: results.map((r) => panel(r, m)),
    resolve: { scale: { color: 'shared' } },
    config: { font: 'sans-serif', view: { stroke: null } },
  };
}

/** Writes the charts into dir; returns their file names. */
async function write(results, dir, machine = '') {
  const files = [];
  for (const m of MEASURES) {
    const rows = results.filter((r) => r.rows.some((x) => Number.isFinite(x[m.field])));
    if (rows.length === 0) continue;
    await writeSvg(path.join(dir, m.file), spec(rows, m, machine));
    files.push(m.file);
  }
  return files;
}

module.exports = { write };
