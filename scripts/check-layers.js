'use strict';
// Checks the layering of src/ (see the "one layout" rules in DESIGN.md):
//   common/  includes nothing of ours but common/
//   pool/    common/ and pool/ only; no OpenSSL, no Node headers
//   kdf/     common/ and kdf/ only; no Node-API
//   napi/    anything; the only place node_api.h may appear
// and within kdf/, the algorithms (every file but kdf.c and kdf.h) neither
// include kdf/kdf.h nor call a function that kdf.c defines: kdf.c calls
// them, never the reverse. Any include cycle between files fails too.
// Prints what it checked; exits 1 on the first report of violations.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const SRC = path.join(ROOT, 'src');

const ALLOWED = {
  common: ['common'],
  pool: ['common', 'pool'],
  kdf: ['common', 'kdf'],
  napi: ['common', 'pool', 'kdf', 'napi'],
};
const NODE_HEADERS = /^(node_api\.h|js_native_api\.h|node\.h|uv\.h|v8\.h|napi\.h)$/;

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return walk(full);
    return /\.[ch]$/.test(e.name) ? [full] : [];
  });
}

// Comments and string contents would give false hits.
function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' ')).replace(/\/\/.*$/gm, '');
}

const rel = (f) => path.relative(SRC, f).split(path.sep).join('/');
const layerOf = (r) => r.split('/')[0];

const files = walk(SRC).sort();
const parsed = new Map();
for (const file of files) {
  const text = stripComments(fs.readFileSync(file, 'utf8'));
  const local = [];
  const system = [];
  for (const m of text.matchAll(/^\s*#\s*include\s*([<"])([^>"]+)[>"]/gm)) {
    (m[1] === '"' ? local : system).push(m[2]);
  }
  parsed.set(rel(file), { text, local, system });
}

const problems = [];
let includeCount = 0;

// Quoted includes are paths from src/ (binding.gyp's include_dirs), or
// from the including file's directory.
function resolve(from, inc) {
  const candidates = [inc, path.posix.normalize(path.posix.join(path.posix.dirname(from), inc))];
  return candidates.find((c) => parsed.has(c));
}

const graph = new Map();
for (const [file, info] of parsed) {
  const layer = layerOf(file);
  const edges = [];
  if (!ALLOWED[layer]) problems.push(`${file}: not in a known layer (${Object.keys(ALLOWED).join(', ')})`);
  for (const inc of info.local) {
    includeCount++;
    const target = resolve(file, inc);
    if (target === undefined) {
      problems.push(`${file}: #include "${inc}" does not name a file in src/`);
      continue;
    }
    edges.push(target);
    const to = layerOf(target);
    if (ALLOWED[layer] && !ALLOWED[layer].includes(to)) {
      problems.push(`${file}: includes ${target} (${layer}/ may include only ${ALLOWED[layer].join('/, ')}/)`);
    }
  }
  for (const inc of info.system) {
    includeCount++;
    if (NODE_HEADERS.test(inc) && layer !== 'napi') {
      problems.push(`${file}: includes <${inc}> (Node headers only in napi/)`);
    }
    if (layer === 'pool' && inc.startsWith('openssl/')) {
      problems.push(`${file}: includes <${inc}> (the pool knows nothing of cryptography)`);
    }
    if (layer === 'common' && inc.startsWith('openssl/')) {
      problems.push(`${file}: includes <${inc}> (common/ must build without OpenSSL)`);
    }
  }
  graph.set(file, edges);
}

// kdf.c's own functions: whatever it defines without `static`.
const kdfc = parsed.get('kdf/kdf.c');
const kdfFunctions = kdfc === undefined ? [] : [...kdfc.text.matchAll(
  /^(?!static\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{/gm,
)].map((m) => m[1]);
const algorithms = [...parsed.keys()].filter((f) => f.startsWith('kdf/') && f !== 'kdf/kdf.c' && f !== 'kdf/kdf.h');
for (const file of algorithms) {
  const info = parsed.get(file);
  if (info.local.some((inc) => resolve(file, inc) === 'kdf/kdf.h')) {
    problems.push(`${file}: an algorithm includes kdf/kdf.h (kdf.c calls algorithms, not the reverse)`);
  }
  for (const fn of kdfFunctions) {
    if (new RegExp(`\\b${fn}\\s*\\(`).test(info.text)) {
      problems.push(`${file}: an algorithm calls ${fn}() from kdf.c`);
    }
  }
}

// Include cycles, by depth-first search.
const state = new Map();
const cycles = [];
function visit(node, stack) {
  state.set(node, 'open');
  stack.push(node);
  for (const next of graph.get(node) || []) {
    if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
    else if (!state.has(next)) visit(next, stack);
  }
  stack.pop();
  state.set(node, 'done');
}
for (const node of graph.keys()) if (!state.has(node)) visit(node, []);
for (const c of cycles) problems.push(`include cycle: ${c}`);

const perLayer = Object.keys(ALLOWED).map((l) => `${l}/ ${[...parsed.keys()].filter((f) => layerOf(f) === l).length}`);
console.log(`check-layers: ${parsed.size} files in src/ (${perLayer.join(', ')}), ${includeCount} includes`);
console.log(`  layers: ${Object.entries(ALLOWED).map(([l, a]) => `${l}/ -> ${a.join('|')}`).join('; ')}`);
console.log(`  node_api.h and other Node headers only in napi/; no OpenSSL in pool/ or common/`);
console.log(`  ${algorithms.length} algorithm files: no kdf/kdf.h, no call to kdf.c's ${kdfFunctions.join(', ') || '(none found)'}`);
console.log(`  include cycles: ${cycles.length}`);
if (kdfFunctions.length === 0) problems.push('kdf/kdf.c: found no function definitions (parser out of date?)');
if (problems.length) {
  console.error(`check-layers: ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log('check-layers: ok');
