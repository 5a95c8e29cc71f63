'use strict';

// Fails (exit 1) when the modules under lib/ require each other in a circle.
// Every relative require() and import counts, wherever it sits: a require
// inside a function body only hides a circle, it does not remove it.
//
//   node scripts/check-cycles.js [dir]     (default: lib)

const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(process.argv[2] || path.join(__dirname, '..', 'lib'));

function sources(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (/\.(c|m)?js$/.test(entry.name)) out.push(full);
  }
  return out;
}

// require('./x'), import x from './x', import('./x'), export ... from './x'.
const SPECIFIER = /(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+|\bimport\s+)(['"])(\.{1,2}\/[^'"]*|\.{1,2})\1/g;

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\\])\/\/.*$/gm, '$1');
}

function resolve(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.js`, `${base}.mjs`, `${base}.cjs`,
    path.join(base, 'index.js'), path.join(base, 'index.mjs')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return null;
}

const graph = new Map();
for (const file of sources(root)) {
  const deps = new Set();
  const text = stripComments(fs.readFileSync(file, 'utf8'));
  for (const m of text.matchAll(SPECIFIER)) {
    const target = resolve(file, m[2]);
    if (target !== null && target.startsWith(root + path.sep)) deps.add(target);
  }
  graph.set(file, [...deps].sort());
}

// Depth-first search; a grey node met again closes a circle.
const WHITE = 0;
const GREY = 1;
const BLACK = 2;
const colour = new Map([...graph.keys()].map((f) => [f, WHITE]));
const stack = [];
const cycles = [];

function visit(file) {
  colour.set(file, GREY);
  stack.push(file);
  for (const dep of graph.get(file) || []) {
    if (colour.get(dep) === GREY) cycles.push([...stack.slice(stack.indexOf(dep)), dep]);
    else if (colour.get(dep) === WHITE) visit(dep);
  }
  stack.pop();
  colour.set(file, BLACK);
}

for (const file of [...graph.keys()].sort()) {
  if (colour.get(file) === WHITE) visit(file);
}

const rel = (f) => path.relative(root, f);
if (cycles.length > 0) {
  console.error(`check:cycles: ${cycles.length} require cycle(s) in ${path.relative(process.cwd(), root) || '.'}/`);
  for (const c of cycles) console.error(`  ${c.map(rel).join(' -> ')}`);
  process.exitCode = 1;
} else {
  const edges = [...graph.values()].reduce((n, deps) => n + deps.length, 0);
  console.log(`check:cycles: no require cycles in ${path.relative(process.cwd(), root) || '.'}/ ` +
    `(${graph.size} modules, ${edges} edges)`);
}
