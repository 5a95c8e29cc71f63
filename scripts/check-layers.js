'use strict';
// Checks the layering of src/ (see the "one layout" rules in docs/design.md):
//   common/  includes nothing of ours but common/
//   pool/    common/ and pool/ only; no OpenSSL, no Node headers
//   kdf/     common/ and kdf/ only; no Node-API
//   napi/    anything; the only place node_api.h may appear
// and within kdf/, the algorithms (every file but kdf.c and kdf.h) neither
// include kdf/kdf.h nor call a function that kdf.c defines: kdf.c calls
// them, never the reverse. Any include cycle between files fails too, and
// so does a circle of .c files inside one folder: A.c -> B.c when A.c calls
// (or takes the address of) a function that B.c defines without `static`;
// the files of a folder must depend on each other in one direction. The
// same direction holds for headers: a file that another file of its folder
// calls must not include (directly or through other headers) a header
// declaring a function of that caller, as a picker's header included by
// its own kernels would (pool/ is exempt: see INCLUDE_EXEMPT).
// Prints what it checked (and the .c edges of each folder); exits 1 on the
// first report of violations.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
// A source tree other than src/ as the first argument (the tests give one).
const SRC = path.resolve(process.argv[2] || path.join(ROOT, 'src'));

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

// String and character literals' contents (kept on one line, quotes kept).
function stripStrings(text) {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (m) => `${m[0]}${' '.repeat(m.length - 2)}${m[0]}`);
}

// The functions a file defines without `static` (also after an attribute
// macro: `AVX2 static inline`): definitions start at column 0, as
// clang-format leaves them.
function definedFunctions(text) {
  return [...text.matchAll(/^(?![^\n(]*\bstatic\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*\{/gm)].map((m) => m[1]);
}

// The functions a header declares: prototypes at column 0, not static.
function declaredFunctions(text) {
  return [...text.matchAll(/^(?![^\n(]*\b(?:static|typedef)\b)[A-Za-z_][\w \t*]*?\b([A-Za-z_]\w*)\s*\([^;{]*\)\s*;/gm)].map((m) => m[1]);
}

// Folders whose files may include their callers' declarations, and why.
const INCLUDE_EXEMPT = {
  pool: 'pool/internal.h declares the internals of every pool file for all of them',
};

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
  parsed.set(rel(file), { text, code: stripStrings(text), local, system });
}

const problems = [];
let includeCount = 0;

// Quoted includes are paths from src/ (gyp/binding.gyp's include_dirs), or
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
const kdfFunctions = kdfc === undefined ? [] : definedFunctions(kdfc.text);
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

// Circles of .c files inside one folder. A use is a call (`name(`), or the
// function as a value (`&name`, or `name` before `,` `;` `)`), of a name the
// using file does not define itself: files that each define the same names
// are alternatives (os_linux.c / os_posix.c / os_win.c, one per build), or
// keep their own helpers, and do not use each other.
const dirOf = (f) => path.posix.dirname(f);
const folders = [...new Set([...parsed.keys()].filter((f) => f.endsWith('.c')).map(dirOf))].sort();
const folderEdges = new Map(); // folder -> Map(file -> [files it uses])
const includeChecked = [];
// Every header a file includes, directly or through other headers.
function includeClosure(file, seen = new Set()) {
  for (const next of graph.get(file) || []) {
    if (!seen.has(next)) {
      seen.add(next);
      includeClosure(next, seen);
    }
  }
  return [...seen].filter((f) => f.endsWith('.h'));
}
let definitionCount = 0;
for (const folder of folders) {
  const cfiles = [...parsed.keys()].filter((f) => f.endsWith('.c') && dirOf(f) === folder);
  const defines = new Map(cfiles.map((f) => [f, definedFunctions(parsed.get(f).code)]));
  for (const names of defines.values()) definitionCount += names.length;
  const edges = new Map();
  for (const from of cfiles) {
    const { code } = parsed.get(from);
    const own = new Set(defines.get(from));
    const to = cfiles.filter((other) => other !== from && defines.get(other).some((name) => !own.has(name) &&
      new RegExp(`(?<![\\w.>])(?:${name}\\s*\\(|&\\s*${name}\\b|${name}\\s*[,;)])`).test(code)));
    if (to.length) edges.set(from, to);
  }
  folderEdges.set(folder, edges);
  const seen = new Map();
  const walkFrom = (node, stack) => {
    seen.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node) || []) {
      if (seen.get(next) === 'open') {
        problems.push(`circle of .c files in ${folder}/: ${[...stack.slice(stack.indexOf(next)), next].map((f) => path.posix.basename(f)).join(' -> ')}`);
      } else if (!seen.has(next)) {
        walkFrom(next, stack);
      }
    }
    stack.pop();
    seen.set(node, 'done');
  };
  for (const f of cfiles) if (!seen.has(f)) walkFrom(f, []);
  if (INCLUDE_EXEMPT[folder] === undefined) {
    for (const [caller, callees] of edges) {
      for (const callee of callees) {
        for (const header of includeClosure(callee)) {
          const theirs = declaredFunctions(parsed.get(header).code)
            .filter((name) => defines.get(caller).includes(name) && !defines.get(callee).includes(name));
          if (theirs.length > 0) {
            problems.push(`${callee} includes ${header}, which declares ${theirs.slice(0, 3).join(', ')} of ${caller}, `
              + `a file that calls it: the two include each other's definitions (give the shared part a header of its own)`);
          }
        }
      }
    }
    includeChecked.push(folder);
  }
}

const perLayer = Object.keys(ALLOWED).map((l) => `${l}/ ${[...parsed.keys()].filter((f) => layerOf(f) === l).length}`);
console.log(`check-layers: ${parsed.size} files in src/ (${perLayer.join(', ')}), ${includeCount} includes`);
console.log(`  layers: ${Object.entries(ALLOWED).map(([l, a]) => `${l}/ -> ${a.join('|')}`).join('; ')}`);
console.log(`  node_api.h and other Node headers only in napi/; no OpenSSL in pool/ or common/`);
console.log(`  ${algorithms.length} algorithm files: no kdf/kdf.h, no call to kdf.c's ${kdfFunctions.join(', ') || '(none found)'}`);
console.log(`  include cycles: ${cycles.length}`);
console.log(`  .c files calling each other, per folder (${definitionCount} non-static functions; a circle fails):`);
for (const [folder, edges] of folderEdges) {
  const base = (f) => path.posix.basename(f, '.c');
  const list = [...edges].map(([from, to]) => `${base(from)} -> ${to.map(base).join(' ')}`);
  console.log(`    ${folder}/: ${list.length ? list.join('; ') : 'none'}`);
}
console.log(`  no callee includes its caller's declarations, in ${includeChecked.map((f) => `${f}/`).join(' ')}`);
for (const [folder, why] of Object.entries(INCLUDE_EXEMPT)) console.log(`    exempt: ${folder}/ (${why})`);
if (kdfFunctions.length === 0) problems.push('kdf/kdf.c: found no function definitions (parser out of date?)');
if (problems.length) {
  console.error(`check-layers: ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log('check-layers: ok');
