'use strict';

// Charts for the benches: a Vega-Lite spec in, an SVG out, rendered headless
// (no browser, no canvas: Vega's 'none' renderer builds the SVG as text and
// estimates text widths). vega and vega-lite are ES modules only, hence the
// dynamic imports; they load on first use, so a bench that draws nothing
// does not pay for them.
//
//   const { renderSvg, writeSvg, barPanels } = require('./lib/chart');
//   await writeSvg('bench/x.svg', barPanels(rows, panels, { title }));

const fs = require('node:fs');

let libs;
async function load() {
  if (!libs) libs = Promise.all([import('vega'), import('vega-lite')]);
  const [vega, vegaLite] = await libs;
  return { vega, vegaLite };
}

/** Compiles a Vega-Lite spec and renders it to an SVG string. */
async function renderSvg(vlSpec) {
  const { vega, vegaLite } = await load();
  const { spec } = vegaLite.compile(vlSpec);
  const view = new vega.View(vega.parse(spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

async function writeSvg(file, vlSpec) {
  const svg = await renderSvg(vlSpec);
  fs.writeFileSync(file, svg.endsWith('\n') ? svg : `${svg}\n`);
  return file;
}

/**
 * A column of horizontal bar charts over the same rows, one per panel, each
 * with its own scale and an optional goal line: the shape every side-by-side
 * bench here wants (one bar per implementation, one panel per measure).
 *
 *   rows:   [{ label, ...values }] in display order
 *   panels: [{ field, title, log?, goal?, goalLabel?, better: 'lower'|'higher', format?, goalFor? }]
 *           a bar is green when it meets the goal, red when it misses it,
 *           grey when there is no goal, or when goalFor(row) says the goal
 *           is not this row's (different work, say)
 */
function barPanels(rows, panels, { title, subtitle, width = 420 } = {}) {
  const order = rows.map((r) => r.label);
  const charts = panels.map((p) => {
    const values = rows
      .filter((r) => Number.isFinite(r[p.field]) && (!p.log || r[p.field] > 0))
      .map((r) => {
        const v = r[p.field];
        let verdict = 'no goal';
        if (Number.isFinite(p.goal) && (!p.goalFor || p.goalFor(r))) verdict = (p.better === 'higher' ? v >= p.goal : v <= p.goal) ? 'meets goal' : 'misses goal';
        return { label: r.label, value: v, verdict };
      });
    // Every layer's x shares one scale, so each must name the same type. A
    // log scale starts a step below the smallest bar or goal, so neither
    // sits on the axis.
    const lows = [...values.map((v) => v.value), ...(Number.isFinite(p.goal) ? [p.goal] : [])];
    const scale = p.log ? { type: 'log', domainMin: Math.min(...lows) / 3 } : { zero: true };
    const layers = [
      {
        mark: { type: 'bar', height: { band: 0.7 } },
        encoding: {
          y: { field: 'label', type: 'nominal', sort: order, title: null, axis: { labelLimit: 320 } },
          x: {
            field: 'value',
            type: 'quantitative',
            title: p.title,
            scale,
            stack: null, // a stacked bar starts at 0, which a log scale cannot place
            axis: p.format ? { format: p.format } : {},
          },
          color: {
            field: 'verdict',
            type: 'nominal',
            title: null,
            scale: { domain: ['meets goal', 'misses goal', 'no goal'], range: ['#3a9a4d', '#c8453a', '#8c8c8c'] },
          },
          tooltip: [{ field: 'label' }, { field: 'value', format: p.format || '.3~g' }],
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 3, fontSize: 10 },
        encoding: {
          y: { field: 'label', type: 'nominal', sort: order },
          x: { field: 'value', type: 'quantitative', scale },
          text: { field: 'value', type: 'quantitative', format: p.format || '.3~g' },
        },
      },
    ];
    if (Number.isFinite(p.goal)) {
      layers.push({
        data: { values: [{ goal: p.goal, text: p.goalLabel || `goal ${p.goal}` }] },
        layer: [
          { mark: { type: 'rule', strokeDash: [4, 3], color: '#333' }, encoding: { x: { field: 'goal', type: 'quantitative', scale } } },
          {
            mark: { type: 'text', align: 'left', baseline: 'top', dx: 3, y: 0, fontSize: 10, color: '#333' },
            encoding: { x: { field: 'goal', type: 'quantitative', scale }, text: { field: 'text' } },
          },
        ],
      });
    }
    return { width, height: { step: 18 }, data: { values }, layer: layers };
  });
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: title ? { text: title, subtitle: subtitle || '' } : undefined,
    vconcat: charts,
    resolve: { scale: { x: 'independent', y: 'independent' } },
    config: { font: 'sans-serif', view: { stroke: null } },
  };
}

module.exports = { renderSvg, writeSvg, barPanels };
