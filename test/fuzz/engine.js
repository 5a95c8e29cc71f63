'use strict';

/**
 * A small coverage-guided fuzzer for kdfpool's JavaScript layer.
 *
 *   node test/fuzz/engine.js [--target verify|arguments|all] [--seconds N | --runs N]
 *                            [--seed S] [--json] [--quiet] [--replay file.json]
 *
 * Coverage: V8 block coverage through node:inspector
 * (Profiler.startPreciseCoverage({ callCount: true, detailed: true })), read
 * with Profiler.takePreciseCoverage, which also resets the counters. Only the
 * package's lib/ scripts count. A "block" is a (script, start, end) range
 * with a non-zero count; a "feature" is a block plus a log2 bucket of its hit
 * count (AFL-style), so loops that run a different number of times count as
 * new behaviour. Inputs run in batches of BATCH; when a batch reaches a new
 * feature, each of its inputs is run again alone to find the ones that did,
 * and those join the corpus.
 *
 * Process model: the supervisor (this file, no --worker) forks one worker per
 * target with IPC. The worker writes each input to a "current input" file
 * before running it, so a native crash (signal, abort) or a synchronous hang
 * (no heartbeat for HANG_MS) is reported by the supervisor with the input
 * that caused it; the worker is then restarted with the corpus so far. An
 * async hang (a promise that never settles) is caught in the worker by a
 * per-input watchdog. Failures are written to test/fuzz/crashes/.
 *
 * A target (test/fuzz/targets/<name>.js) exports:
 *   name, setup(api) -> Promise, seeds(api) -> Promise<input[]>,
 *   mutate(input, api) -> input, run(input, api) -> Promise (throw
 *   api.fail(kind, message, detail) for a failure), teardown(), describe(input).
 * Inputs are JSON values.
 */

const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');
const { fork } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
const LIB_DIR = path.join(ROOT, 'lib') + path.sep;
const TARGETS_DIR = path.join(__dirname, 'targets');
const CRASH_DIR = path.join(__dirname, 'crashes');
const BATCH = 8;
const MIN_RUNS = 16; // mutated inputs every run executes, deadline or not
const INPUT_TIMEOUT_MS = 5000;   // async watchdog per input (in the worker)
const HANG_MS = 15000;           // no message from the worker for this long = hang
const MAX_RESTARTS = 20;

// ------------------------------------------------------------ arguments

function parseArgs(argv) {
  const o = { target: 'all', seconds: 0, runs: 0, seed: 0, json: false, quiet: false, replay: null, worker: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--target') o.target = next();
    else if (a === '--seconds') o.seconds = Number(next());
    else if (a === '--runs') o.runs = Number(next());
    else if (a === '--seed') o.seed = Number(next()) >>> 0;
    else if (a === '--json') o.json = true;
    else if (a === '--quiet') o.quiet = true;
    else if (a === '--replay') o.replay = next();
    else if (a === '--worker') o.worker = true;
    else if (a === '--corpus') o.corpus = next();
    else if (a === '--cur') o.cur = next();
    else if (a === '--deadline') o.deadline = Number(next());
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.seconds && !o.runs && !o.replay) o.seconds = 10;
  if (!o.seed) o.seed = (Date.now() ^ process.pid) >>> 0;
  return o;
}

function targetNames() {
  return fs.readdirSync(TARGETS_DIR).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).sort();
}

// ------------------------------------------------------------ randomness

function makeRng(seed) {
  let s = seed >>> 0 || 0x9e3779b9;
  const next = () => { // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng = {
    next,
    int: (n) => Math.floor(next() * n),
    bool: (p = 0.5) => next() < p,
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    u32: () => Math.floor(next() * 4294967296) >>> 0,
  };
  return rng;
}

// ------------------------------------------------------------ string mutations

const INTERESTING_NUMBERS = ['0', '1', '-1', '00', '01', '+1', '4', '7', '8', '15', '16', '17', '19', '31', '32',
  '63', '64', '255', '256', '1023', '1024', '1025', '4095', '65535', '65536', '2147483647', '2147483648',
  '4294967295', '4294967296', '9007199254740991', '9007199254740993', '1e3', '0x10', '1.5', 'NaN', 'Infinity',
  '99999999999999999999999999'];
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/.';
const ODD_CHARS = ['$', ',', '=', '\0', '\n', ' ', '-', '_', '.', '/', '+', '%', '\u00e9', '\uffff', '\ud800', '\ud83d\udd11', 'A', 'a', '0', '9'];

function mutateString(str, rng, dict, others) {
  let s = str;
  const rounds = 1 + rng.int(rng.bool(0.8) ? 2 : 6);
  for (let k = 0; k < rounds; k++) {
    const n = s.length;
    const pos = n ? rng.int(n + 1) : 0;
    switch (rng.int(14)) {
      case 0: { // flip a bit of one char code
        if (!n) break;
        const i = rng.int(n);
        const c = s.charCodeAt(i) ^ (1 << rng.int(7));
        s = s.slice(0, i) + String.fromCharCode(c) + s.slice(i + 1);
        break;
      }
      case 1: { // replace one char with a base64 char
        if (!n) break;
        const i = rng.int(n);
        s = s.slice(0, i) + rng.pick(B64) + s.slice(i + 1);
        break;
      }
      case 2: s = s.slice(0, pos) + rng.pick(ODD_CHARS) + s.slice(pos); break;
      case 3: case 4: s = s.slice(0, pos) + rng.pick(dict) + s.slice(pos); break;
      case 5: { // delete a range
        if (!n) break;
        const i = rng.int(n);
        s = s.slice(0, i) + s.slice(i + 1 + rng.int(Math.min(8, n - i)));
        break;
      }
      case 6: { // duplicate a range
        if (!n) break;
        const i = rng.int(n);
        const j = Math.min(n, i + 1 + rng.int(16));
        s = s.slice(0, j) + s.slice(i, j) + s.slice(j);
        break;
      }
      case 7: { // splice with another corpus string
        const o = others.length ? rng.pick(others) : s;
        const cut = rng.int(o.length + 1);
        s = rng.bool() ? s.slice(0, pos) + o.slice(cut) : o.slice(0, cut) + s.slice(pos);
        break;
      }
      case 8: { // replace a number with an interesting one
        const nums = [...s.matchAll(/\d+/g)];
        if (!nums.length) break;
        const m = rng.pick(nums);
        s = s.slice(0, m.index) + rng.pick(INTERESTING_NUMBERS) + s.slice(m.index + m[0].length);
        break;
      }
      case 9: { // swap two $-separated fields or two params
        const sep = rng.bool() ? '$' : ',';
        const parts = s.split(sep);
        if (parts.length < 2) break;
        const a = rng.int(parts.length); const b = rng.int(parts.length);
        [parts[a], parts[b]] = [parts[b], parts[a]];
        s = parts.join(sep);
        break;
      }
      case 10: s = s.slice(0, rng.int(n + 1)); break; // truncate
      case 11: { // drop or repeat one $-field
        const parts = s.split('$');
        const i = rng.int(parts.length);
        if (rng.bool()) parts.splice(i, 1); else parts.splice(i, 0, parts[i]);
        s = parts.join('$');
        break;
      }
      case 12: { // change case of a run
        const i = rng.int(n + 1); const j = Math.min(n, i + 1 + rng.int(6));
        const mid = s.slice(i, j);
        s = s.slice(0, i) + (mid === mid.toUpperCase() ? mid.toLowerCase() : mid.toUpperCase()) + s.slice(j);
        break;
      }
      default: { // lengthen the salt/hash field with base64 chars
        let add = '';
        const len = rng.pick([1, 2, 3, 4, 22, 64, 700, 1400]);
        for (let i = 0; i < len; i++) add += rng.pick(B64.slice(0, 64));
        s = s.slice(0, pos) + add + s.slice(pos);
      }
    }
  }
  if (s.length > 8192) s = s.slice(0, 8192);
  return s;
}

function loadDict(file) {
  const out = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*(?:[A-Za-z0-9_]+=)?"((?:[^"\\]|\\.)*)"\s*$/.exec(line);
    if (!m) continue;
    out.push(m[1].replace(/\\x([0-9a-fA-F]{2})|\\(.)/g, (_, h, c) => (h ? String.fromCharCode(parseInt(h, 16)) : c)));
  }
  return out;
}

// ------------------------------------------------------------ failures

class FuzzFailure extends Error {
  constructor(kind, message, detail) {
    super(message);
    this.kind = kind;
    this.detail = detail;
  }
}

function safeJson(v) {
  try { return JSON.stringify(v); } catch { return String(v); }
}

function saveFailure(target, f) {
  fs.mkdirSync(CRASH_DIR, { recursive: true });
  const body = safeJson(f.input);
  const id = crypto.createHash('sha1').update(f.kind + '\0' + body).digest('hex').slice(0, 10);
  const file = path.join(CRASH_DIR, `${target}-${f.kind}-${id}.json`);
  fs.writeFileSync(file, JSON.stringify({ target, kind: f.kind, message: f.message, detail: f.detail, input: f.input }, null, 2) + '\n');
  return file;
}

// ------------------------------------------------------------ worker

async function worker(opts) {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  const post = (method, params) => {
    let out; let err; let done = false;
    session.post(method, params, (e, r) => { err = e; out = r; done = true; });
    if (!done) throw new Error(`inspector ${method} did not answer synchronously`);
    if (err) throw err;
    return out;
  };
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

  const send = (m) => { if (process.send) process.send(m); };
  const curFd = opts.cur ? fs.openSync(opts.cur, 'w') : null;
  const writeCur = (input) => {
    if (curFd === null) return;
    const b = Buffer.from(safeJson(input));
    fs.ftruncateSync(curFd, 0);
    fs.writeSync(curFd, b, 0, b.length, 0);
  };

  const rng = makeRng(opts.seed);
  const target = require(path.join(TARGETS_DIR, opts.target + '.js'));
  const dict = fs.existsSync(path.join(__dirname, 'dict', 'phc.dict')) ? loadDict(path.join(__dirname, 'dict', 'phc.dict')) : [];
  const api = {
    rng, dict, mutateString: (s, others) => mutateString(s, rng, dict, others || []),
    fail: (kind, message, detail) => new FuzzFailure(kind, message, detail),
    corpusStrings: () => [],
    notes: Object.create(null),
    note(kind, sample) {
      const n = (this.notes[kind] ||= { count: 0, samples: [] });
      n.count++;
      if (n.samples.length < 3) n.samples.push(sample);
    },
  };

  let current = null;
  const failures = [];
  const report = (kind, message, detail, input) => {
    const f = { kind, message: String(message), detail, input };
    failures.push(f);
    send({ type: 'failure', failure: f });
    if (!process.send) console.error(`FAILURE ${kind}: ${message}\n  input: ${safeJson(input)}`);
  };
  process.on('unhandledRejection', (reason) => {
    report('unhandled-rejection', (reason && reason.stack) || String(reason), null, current);
  });
  process.on('uncaughtException', (err) => {
    report('uncaught-exception', (err && err.stack) || String(err), null, current);
  });

  await target.setup(api);

  // coverage bookkeeping
  const blocks = new Set();
  const features = new Set();
  const libScripts = new Map(); // scriptId -> short name
  // Per lib script: a bitmap of source offsets ever executed (innermost
  // reported range decides an offset's count, as V8 reports it), for the
  // covered-lines figure. Updated only when an input adds features.
  const bitmaps = new Map(); // short -> { bits: Uint8Array, file }
  let collectNs = 0n; let collects = 0;
  const collect = () => {
    const c0 = process.hrtime.bigint();
    try { return collectInner(); } finally { collectNs += process.hrtime.bigint() - c0; collects++; }
  };
  const collectInner = () => {
    const res = post('Profiler.takePreciseCoverage').result;
    const f = [];
    f.scripts = [];
    for (const sc of res) {
      let short = libScripts.get(sc.scriptId);
      if (short === undefined) {
        const file = sc.url.startsWith('file://') ? decodeURIComponent(sc.url.slice(7)) : sc.url;
        short = file.startsWith(LIB_DIR) ? path.basename(file) : null;
        libScripts.set(sc.scriptId, short);
        if (short && !bitmaps.has(short)) bitmaps.set(short, { file, bits: null });
      }
      if (!short) continue;
      f.scripts.push([short, sc.functions]);
      for (const fn of sc.functions) {
        if (fn.ranges[0].count === 0) continue; // function never ran
        for (const r of fn.ranges) {
          // V8 folds a block into its parent when their counts are equal, so a
          // zero-count block inside a function that ran is behaviour too.
          const key = `${short}:${r.startOffset}-${r.endOffset}`;
          const bucket = r.count === 0 ? 'z' : r.count >= 128 ? 8 : 31 - Math.clz32(r.count);
          f.push([r.count ? key : null, key + '#' + bucket]);
        }
      }
    }
    return f;
  };
  const hasNew = (f) => f.some(([, feat]) => !features.has(feat));
  const merge = (f) => {
    for (const [key, feat] of f) { if (key) blocks.add(key); features.add(feat); }
    for (const [short, fns] of f.scripts) {
      const bm = bitmaps.get(short);
      const all = [];
      for (const fn of fns) for (const r of fn.ranges) all.push(r);
      all.sort((x, y) => x.startOffset - y.startOffset || y.endOffset - x.endOffset);
      const len = all.reduce((n, r) => Math.max(n, r.endOffset), 0);
      if (!bm.bits || bm.bits.length < len) { const nb = new Uint8Array(len); if (bm.bits) nb.set(bm.bits); bm.bits = nb; }
      // Pre-order (outer first): painting in order makes the innermost range decide.
      const tmp = new Uint8Array(len);
      for (const r of all) tmp.fill(r.count > 0 ? 1 : 0, r.startOffset, r.endOffset);
      for (let i = 0; i < len; i++) if (tmp[i]) bm.bits[i] = 1;
    }
  };
  const coveredLines = () => {
    let covered = 0; let total = 0;
    for (const [, bm] of bitmaps) {
      let src; try { src = fs.readFileSync(bm.file, 'utf8'); } catch { continue; }
      const lines = src.split('\n');
      let off = 0;
      for (const line of lines) {
        const code = line.trim();
        if (code && !code.startsWith('//') && !code.startsWith('*') && !code.startsWith('/*')) {
          total++;
          if (bm.bits) { for (let i = off; i < off + line.length && i < bm.bits.length; i++) if (bm.bits[i]) { covered++; break; } }
        }
        off += line.length + 1;
      }
    }
    return { covered, total };
  };

  const runOne = async (input) => {
    current = input;
    writeCur(input);
    let timer;
    const watchdog = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new FuzzFailure('hang', `input did not settle within ${INPUT_TIMEOUT_MS} ms`)), INPUT_TIMEOUT_MS);
    });
    try {
      await Promise.race([target.run(input, api), watchdog]);
    } catch (e) {
      if (e instanceof FuzzFailure) report(e.kind, e.message, e.detail, input);
      else report('harness-error', (e && e.stack) || String(e), null, input);
    } finally {
      clearTimeout(timer);
    }
  };

  // corpus
  const corpus = [];
  const addCorpus = (input, fromSeed) => {
    corpus.push(input);
    if (!fromSeed) send({ type: 'corpus', input });
  };
  api.corpusStrings = () => corpus;
  let seeds = await target.seeds(api);
  if (opts.corpus && fs.existsSync(opts.corpus)) seeds = seeds.concat(JSON.parse(fs.readFileSync(opts.corpus, 'utf8')));
  merge(collect()); // module load and setup
  for (const s of seeds) {
    await runOne(s);
    const f = collect();
    merge(f);
    addCorpus(s, true);
  }

  if (opts.replay) {
    const input = JSON.parse(fs.readFileSync(opts.replay, 'utf8'));
    await runOne(input.input !== undefined ? input.input : input);
    send({ type: 'done', execs: 1, corpus: corpus.length, blocks: blocks.size, features: features.size, notes: api.notes });
    await target.teardown(api);
    return failures.length;
  }

  const t0 = Date.now();
  const deadline = opts.deadline || (opts.seconds ? t0 + opts.seconds * 1000 : Infinity);
  let execs = 0;
  let lastSend = 0;
  const maxRuns = opts.runs || Infinity;
  // A loaded machine can spend a short budget replaying the seeds alone:
  // run a few mutated inputs past the deadline so every run fuzzes at all.
  const minRuns = Math.min(maxRuns, MIN_RUNS);
  // Adaptive batch: while inputs keep finding features, run them one per
  // coverage read (no re-runs); when finds are rare, read once per batch.
  let batchSize = 1;
  while (execs < maxRuns && (execs < minRuns || Date.now() < deadline)) {
    const batch = [];
    for (let i = 0; i < batchSize && execs + batch.length < maxRuns; i++) {
      batch.push(target.mutate(rng.pick(corpus), api));
    }
    for (const input of batch) await runOne(input);
    execs += batch.length;
    const f = collect();
    const found = hasNew(f);
    batchSize = found ? Math.max(1, batchSize >> 1) : Math.min(BATCH, batchSize * 2);
    if (found) {
      if (batch.length === 1) { merge(f); addCorpus(batch[0]); } else {
        for (const input of batch) {
          await runOne(input);
          const g = collect();
          if (hasNew(g)) { merge(g); addCorpus(input); }
        }
      }
    }
    await new Promise(setImmediate); // let completions, timers and IPC run
    const now = Date.now();
    if (now - lastSend > 250) {
      lastSend = now;
      send({ type: 'stats', execs, corpus: corpus.length, blocks: blocks.size, features: features.size, elapsed: now - t0 });
    }
  }
  await target.teardown(api);
  const elapsed = Date.now() - t0;
  send({ type: 'done', execs, corpus: corpus.length, blocks: blocks.size, features: features.size, lines: coveredLines(), collects, collectMs: Number(collectNs / 1000000n), elapsed, notes: api.notes });
  return failures.length;
}

// ------------------------------------------------------------ supervisor

function runTarget(name, opts) {
  return new Promise((resolve) => {
    const started = Date.now();
    const deadline = opts.seconds ? started + opts.seconds * 1000 : 0;
    const tmp = fs.mkdtempSync(path.join(require('node:os').tmpdir(), `kdfpool-fuzz-${name}-`));
    const curFile = path.join(tmp, 'current.json');
    const corpusFile = path.join(tmp, 'corpus.json');
    const newCorpus = [];
    const failures = [];
    const summary = { target: name, seed: opts.seed, execs: 0, corpus: 0, blocks: 0, features: 0, restarts: 0, notes: {} };
    let execsBefore = 0;
    let restarts = 0;

    const record = (f) => {
      const file = saveFailure(name, f);
      if (failures.some((g) => g.file === file)) return; // the same input again (batch re-run)
      failures.push({ ...f, file });
      {
        console.error(`[fuzz:${name}] FAILURE ${f.kind}: ${String(f.message).split('\n')[0]}\n  input: ${safeJson(f.input).slice(0, 600)}\n  saved: ${path.relative(ROOT, file)}`);
      }
    };

    const start = () => {
      fs.writeFileSync(corpusFile, JSON.stringify(newCorpus));
      const args = ['--worker', '--target', name, '--seed', String((opts.seed + restarts * 7919) >>> 0), '--cur', curFile, '--corpus', corpusFile];
      if (opts.replay) args.push('--replay', opts.replay);
      else if (deadline) args.push('--deadline', String(deadline));
      else args.push('--runs', String(Math.max(1, opts.runs - execsBefore)));
      const child = fork(__filename, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      let last = Date.now();
      let done = null;
      let hung = false;
      let lastStats = { execs: 0 };
      const hb = setInterval(() => {
        if (Date.now() - last > HANG_MS) {
          hung = true;
          child.kill('SIGKILL');
        }
      }, 1000);
      child.on('message', (m) => {
        last = Date.now();
        if (m.type === 'failure') record(m.failure);
        else if (m.type === 'corpus') newCorpus.push(m.input);
        else if (m.type === 'stats') {
          lastStats = m;
          if (!opts.quiet && !opts.json) {
            process.stderr.write(`\r[fuzz:${name}] execs ${execsBefore + m.execs}  ${Math.round(m.execs / Math.max(1, m.elapsed) * 1000)}/s  corpus ${m.corpus}  blocks ${m.blocks}  features ${m.features}   `);
          }
        } else if (m.type === 'done') done = m;
      });
      child.on('exit', (code, signal) => {
        clearInterval(hb);
        if (!opts.quiet && !opts.json) process.stderr.write('\n');
        const stats = done || lastStats;
        execsBefore += stats.execs || 0;
        Object.assign(summary, { corpus: stats.corpus || summary.corpus, blocks: Math.max(summary.blocks, stats.blocks || 0), features: Math.max(summary.features, stats.features || 0) });
        if (done && done.notes) Object.assign(summary.notes, done.notes);
        if (done && done.lines) summary.lines = done.lines;
        if (done && done.collects) { summary.coverageTakes = (summary.coverageTakes || 0) + done.collects; summary.coverageMs = (summary.coverageMs || 0) + done.collectMs; }
        if (!done) {
          let input = null;
          try { input = JSON.parse(fs.readFileSync(curFile, 'utf8')); } catch { /* none yet */ }
          record({ kind: hung ? 'hang' : 'crash', message: hung ? `no progress for ${HANG_MS} ms (synchronous hang?)` : `worker died: exit code ${code}, signal ${signal}`, detail: null, input });
          restarts++;
          if (restarts <= MAX_RESTARTS && !opts.replay && (deadline ? Date.now() < deadline - 1000 : execsBefore < opts.runs)) return start();
        }
        summary.execs = execsBefore;
        summary.restarts = restarts;
        summary.elapsedMs = Date.now() - started;
        summary.execsPerSec = Math.round(summary.execs / Math.max(1, summary.elapsedMs) * 1000);
        summary.failures = failures.map((f) => ({ kind: f.kind, message: String(f.message).split('\n')[0], file: path.relative(ROOT, f.file) }));
        fs.rmSync(tmp, { recursive: true, force: true });
        resolve(summary);
      });
    };
    start();
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.worker) {
    const n = await worker(opts);
    // Let IPC flush, then leave: pools in flight must not keep us alive.
    await new Promise((r) => setTimeout(r, 50));
    process.exit(n ? 1 : 0);
  }
  const names = opts.target === 'all' ? targetNames() : opts.target.split(',');
  const results = [];
  for (const name of names) {
    if (!targetNames().includes(name)) throw new Error(`no target ${name} (have: ${targetNames().join(', ')})`);
    const r = await runTarget(name, opts);
    results.push(r);
    if (!opts.json) {
      console.log(`[fuzz:${name}] seed ${r.seed}: ${r.execs} execs in ${(r.elapsedMs / 1000).toFixed(1)} s (${r.execsPerSec}/s), corpus ${r.corpus}, covered blocks ${r.blocks}, features ${r.features}, restarts ${r.restarts}, failures ${r.failures.length}`);
      if (r.coverageTakes) console.log(`[fuzz:${name}] coverage: ${r.coverageTakes} takePreciseCoverage calls, ${r.coverageMs} ms in total`);
      if (r.lines) console.log(`[fuzz:${name}] lib/ lines executed: ${r.lines.covered} of ${r.lines.total} code lines`);
      for (const [k, n] of Object.entries(r.notes)) console.log(`[fuzz:${name}] note ${k}: ${n.count} (e.g. ${safeJson(n.samples[0]).slice(0, 300)})`);
    }
  }
  if (opts.json) console.log(JSON.stringify(results));
  process.exitCode = results.some((r) => r.failures.length) ? 1 : 0;
}

module.exports = { mutateString, makeRng, loadDict, FuzzFailure };

if (require.main === module) {
  main().catch((e) => { console.error(e); process.exit(2); });
}
