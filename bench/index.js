#!/usr/bin/env node
'use strict';

// npm run bench: every case against every peer, in one run, on this machine.
//
// For each case (the rows of issue 13's goals), each implementation is
// measured two ways:
//   single op   the time of one call with nothing else running; the
//               implementations take turns (the order rotates each round,
//               so none always runs on a warmer cache or a cooler core), and
//               the median of ROUNDS is kept.
//   saturated   IN_FLIGHT calls kept in flight for SECONDS; completed calls
//               per second, the median of SAT_ROUNDS turns taken in rotating
//               order like the single ops (one turn on a noisy VM can be off
//               by 30%, most of all for libuv's pool on 2 cores). Peers that hash on the JS thread (hash-wasm,
//               bcryptjs) cannot overlap calls: their figure is what a
//               server gets from them, and they block the event loop.
// Every implementation's output is checked against the reference first.
//
// Writes bench/results.json, bench/results.md (machine, versions, tables
// with ratios, the goals) and two SVG charts (bench/lib/results-charts.js,
// Vega-Lite). The per-algorithm scripts (bench/pbkdf2.js, ...) stay as
// deeper probes.
//
// Then what kdfpool's default costs beside each auth framework's own default
// hash, and what the rehash on sign-in writes (bench/frameworks.js).
//
//   npm run bench [-- --quick] [-- --only pbkdf2,scrypt,tune,frameworks] [-- --no-write]

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { promisify } = require('node:util');
const { performance } = require('node:perf_hooks');
const kdf = require('..');
const { median, fmtMs, fmtRatio, table } = require('./stats');
const frameworks = require('./frameworks');

const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const QUICK = argv.includes('--quick');
const WRITE = !argv.includes('--no-write');
const ONLY = opt('--only') ? opt('--only').split(',') : null;
const ROUNDS = QUICK ? 5 : 11;
const SECONDS = QUICK ? 0.8 : 1.5;
const SAT_ROUNDS = QUICK ? 1 : 3;
const IN_FLIGHT = 32;
const TINY_IN_FLIGHT = 1000;

const PASSWORD = Buffer.from('correct horse battery staple');
const SALT = crypto.randomBytes(16);

// Optional peers: a missing one is a row that says so, not a crash.
function optional(name) {
  let mod;
  try {
    mod = require(name);
  } catch {
    return null;
  }
  // Read, not required: some packages' "exports" do not expose package.json.
  let version = '?';
  for (const dir of require.resolve.paths(name)) {
    try {
      version = JSON.parse(fs.readFileSync(path.join(dir, name, 'package.json'), 'utf8')).version;
      break;
    } catch { /* not in this node_modules */ }
  }
  return { mod, version };
}
const peers = {
  argon2: optional('argon2'),
  nodeRs: optional('@node-rs/argon2'),
  bcrypt: optional('bcrypt'),
  bcryptjs: optional('bcryptjs'),
  hashWasm: optional('hash-wasm'),
};

const cryptoPbkdf2 = promisify(crypto.pbkdf2);
const cryptoScrypt = promisify(crypto.scrypt);
const hasCryptoArgon2 = typeof crypto.argon2 === 'function';

function pbkdf2Case(id, title, digest, iterations, keylen) {
  const hw = peers.hashWasm && peers.hashWasm.mod;
  const hwHash = { sha1: 'createSHA1', sha256: 'createSHA256', sha512: 'createSHA512' }[digest];
  return {
    id, title, family: 'pbkdf2', reference: 'node:crypto',
    impls: [
      { name: 'kdfpool', run: () => kdf.pbkdf2(PASSWORD, SALT, iterations, keylen, digest) },
      { name: 'node:crypto', run: () => cryptoPbkdf2(PASSWORD, SALT, iterations, keylen, digest) },
      hw && {
        name: 'hash-wasm', jsThread: true,
        run: async () => Buffer.from(await hw.pbkdf2({
          password: PASSWORD, salt: SALT, iterations, hashLength: keylen, hashFunction: hw[hwHash](), outputType: 'binary',
        })),
      },
    ],
  };
}

function argon2Impls(memory, passes) {
  const raw = { memory, passes, parallelism: 1, tagLength: 32 };
  const hw = peers.hashWasm && peers.hashWasm.mod;
  return [
    { name: 'kdfpool', run: () => kdf.argon2('argon2id', { message: PASSWORD, nonce: SALT, ...raw }) },
    peers.nodeRs && {
      name: '@node-rs/argon2',
      run: async () => Buffer.from(await peers.nodeRs.mod.hashRaw(PASSWORD, {
        algorithm: peers.nodeRs.mod.Algorithm.Argon2id, memoryCost: memory, timeCost: passes,
        parallelism: 1, outputLen: 32, salt: SALT,
      })),
    },
    peers.argon2 && {
      name: 'argon2 (npm)',
      run: () => peers.argon2.mod.hash(PASSWORD, {
        raw: true, type: peers.argon2.mod.argon2id, memoryCost: memory, timeCost: passes,
        parallelism: 1, hashLength: 32, salt: SALT,
      }),
    },
    hasCryptoArgon2 && {
      name: 'node:crypto',
      run: () => promisify(crypto.argon2)('argon2id', { message: PASSWORD, nonce: SALT, ...raw }),
    },
    hw && {
      name: 'hash-wasm', jsThread: true,
      run: async () => Buffer.from(await hw.argon2id({
        password: PASSWORD, salt: SALT, iterations: passes, parallelism: 1, memorySize: memory,
        hashLength: 32, outputType: 'binary',
      })),
    },
  ];
}

// bcrypt peers take a salt string ($2b$10$ + 22 characters) or 16 bytes;
// kdfpool's hash() draws its own salt, so bcrypt outputs are checked by
// verifying each with kdfpool (and kdfpool's with npm bcrypt), not compared.
const BCRYPT_SALT = '$2b$10$abcdefghijklmnopqrstuu';

const CLIENTS = Array.from({ length: 64 }, (_, i) => `203.0.113.${i}`);
let tinyCalls = 0;

const CASES = [
  pbkdf2Case('pbkdf2-sha256-32', 'PBKDF2-SHA256 100k, 32 B', 'sha256', 100000, 32),
  pbkdf2Case('pbkdf2-sha256-64', 'PBKDF2-SHA256 100k, 64 B', 'sha256', 100000, 64),
  pbkdf2Case('pbkdf2-sha512-64', 'PBKDF2-SHA512 210k, 64 B', 'sha512', 210000, 64),
  {
    id: 'pbkdf2-tiny', title: 'PBKDF2 1 iteration (completion path)', family: 'pbkdf2', reference: 'node:crypto',
    saturatedOnly: true, inFlight: TINY_IN_FLIGHT,
    impls: [
      { name: 'kdfpool', run: () => kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256') },
      // The cost of fairness on the hottest path: every call names one of
      // 64 clients (issue 21: within 5 % of the calls without keys).
      { name: 'kdfpool fairKey', run: () => kdf.pbkdf2(PASSWORD, SALT, 1, 32, 'sha256', { fairKey: CLIENTS[tinyCalls++ & 63] }) },
      { name: 'node:crypto', run: () => cryptoPbkdf2(PASSWORD, SALT, 1, 32, 'sha256') },
    ],
  },
  {
    id: 'scrypt', title: 'scrypt N=2^14 r=8 p=1, 64 B', family: 'scrypt', reference: 'node:crypto',
    impls: [
      { name: 'kdfpool', run: () => kdf.scrypt(PASSWORD, SALT, 64, { N: 16384, r: 8, p: 1 }) },
      { name: 'node:crypto', run: () => cryptoScrypt(PASSWORD, SALT, 64, { N: 16384, r: 8, p: 1 }) },
      peers.hashWasm && {
        name: 'hash-wasm', jsThread: true,
        run: async () => Buffer.from(await peers.hashWasm.mod.scrypt({
          password: PASSWORD, salt: SALT, costFactor: 16384, blockSize: 8, parallelism: 1, hashLength: 64, outputType: 'binary',
        })),
      },
    ],
  },
  {
    id: 'bcrypt', title: 'bcrypt cost 10', family: 'bcrypt', reference: 'bcrypt (npm)',
    impls: [
      { name: 'kdfpool', run: () => kdf.hash(PASSWORD, { algorithm: 'bcrypt', cost: 10 }) },
      peers.bcrypt && { name: 'bcrypt (npm)', run: () => peers.bcrypt.mod.hash(PASSWORD, BCRYPT_SALT) },
      peers.bcryptjs && { name: 'bcryptjs', jsThread: true, run: () => peers.bcryptjs.mod.hash(PASSWORD.toString(), BCRYPT_SALT) },
      peers.hashWasm && {
        name: 'hash-wasm', jsThread: true,
        run: () => peers.hashWasm.mod.bcrypt({ password: PASSWORD, salt: SALT, costFactor: 10, outputType: 'encoded' }),
      },
    ],
    check: async (outs) => {
      for (const h of outs) if (!(await kdf.verify(h, PASSWORD))) throw new Error(`bcrypt: kdfpool does not verify ${h}`);
      if (peers.bcrypt && !(await peers.bcrypt.mod.compare(PASSWORD, outs[0]))) throw new Error('bcrypt: npm bcrypt does not verify kdfpool\'s hash');
    },
  },
  {
    id: 'argon2id', title: 'Argon2id m=19456 KiB t=2 p=1', family: 'argon2', reference: '@node-rs/argon2',
    impls: argon2Impls(19456, 2),
  },
  {
    id: 'argon2-sync', title: 'Argon2id m=19456 t=2: sync vs async', family: 'argon2', reference: 'kdfpool async',
    singleOnly: true,
    impls: [
      { name: 'kdfpool sync', run: async () => kdf.argon2Sync('argon2id', { message: PASSWORD, nonce: SALT, memory: 19456, passes: 2, parallelism: 1, tagLength: 32 }) },
      { name: 'kdfpool async', run: () => kdf.argon2('argon2id', { message: PASSWORD, nonce: SALT, memory: 19456, passes: 2, parallelism: 1, tagLength: 32 }) },
      hasCryptoArgon2 && {
        name: 'node:crypto sync',
        run: async () => crypto.argon2Sync('argon2id', { message: PASSWORD, nonce: SALT, memory: 19456, passes: 2, parallelism: 1, tagLength: 32 }),
      },
    ],
  },
].map((c) => ({ ...c, impls: c.impls.filter(Boolean) }))
  .filter((c) => !ONLY || ONLY.some((o) => c.id.startsWith(o) || c.family === o));

// The cost of a refusal beside an accepted call's (bench/refusals.js):
// calls/s a saturated pool refuses, and 1-iteration PBKDF2 jobs/s it runs,
// measured in turns in one place so the two share the machine's state.
const REFUSALS = { id: 'refusals', title: 'Refusals of a saturated pool (vs accepted 1-iteration jobs)', family: 'pbkdf2' };
const WITH_REFUSALS = !ONLY || ONLY.some((o) => REFUSALS.id.startsWith(o) || REFUSALS.family === o);

async function refusalsCase() {
  const m = await require('./refusals').measure(kdf, { rounds: SAT_ROUNDS, seconds: SECONDS });
  return {
    ...REFUSALS,
    reference: 'kdfpool accepted',
    rows: [
      { name: 'kdfpool refused', jsThread: false, singleMs: NaN, opsPerSec: m.refusedPerSec },
      { name: 'kdfpool accepted', jsThread: false, singleMs: NaN, opsPerSec: m.acceptedPerSec },
    ],
  };
}

// What a submit costs with 100,000 clients queued against one client
// queued (bench/submitcost.js): nothing on a submit's path walks the keys.
const SUBMIT_COST = { id: 'submitcost', title: 'Submit cost: 100,000 calls queued, from 1 key and from 100,000 keys', family: 'pbkdf2' };
const WITH_SUBMIT_COST = !ONLY || ONLY.some((o) => SUBMIT_COST.id.startsWith(o) || SUBMIT_COST.family === o);

async function submitCostCase() {
  const m = await require('./submitcost').measure(path.join(__dirname, '..'), { calls: QUICK ? 20000 : 100000, rounds: SAT_ROUNDS });
  return {
    ...SUBMIT_COST,
    reference: 'kdfpool 1 key',
    rows: [
      { name: `kdfpool ${m.keys} keys`, jsThread: false, singleMs: m.manyKeysUs / 1000, opsPerSec: NaN },
      { name: 'kdfpool 1 key', jsThread: false, singleMs: m.oneKeyUs / 1000, opsPerSec: NaN },
    ],
  };
}

// Every implementation must give the same bytes (or, for bcrypt, strings
// that verify), or the comparison means nothing.
async function checkAgreement(c) {
  const outs = [];
  for (const impl of c.impls) outs.push(await impl.run());
  if (c.check) return c.check(outs);
  const hex = outs.map((o) => Buffer.from(o).toString('hex'));
  c.impls.forEach((impl, i) => {
    if (hex[i] !== hex[0]) throw new Error(`${c.title}: ${impl.name} disagrees with ${c.impls[0].name}`);
  });
}

async function singleOp(c) {
  for (const impl of c.impls) await impl.run(); // warm-up: threads, arenas, JIT
  const samples = c.impls.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < c.impls.length; k++) {
      const j = (r + k) % c.impls.length;
      const t = performance.now();
      await c.impls[j].run();
      samples[j].push(performance.now() - t);
    }
  }
  return samples.map(median);
}

// Keeps `inFlight` calls running for SECONDS; completed calls per second.
async function saturated(impl, inFlight) {
  let done = 0;
  let stop = false;
  const start = performance.now();
  const deadline = start + SECONDS * 1000;
  async function lane() {
    while (!stop) {
      await impl.run();
      done++;
      if (performance.now() >= deadline) stop = true;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane));
  return done / ((performance.now() - start) / 1000);
}

// kdf.tune() (issue 29): the Argon2id options it proposes for TUNE_TARGET_MS
// per hash at its default concurrency (the CPUs), then the time of those
// options measured again here, independently of tune's own measurement:
// TUNE_ROUNDS rounds of that many hashes at once on the default pool (the
// same threads and 'normal' priority as tune's pool), median per hash.
const TUNE_TARGET_MS = 250;
const TUNE_ROUNDS = QUICK ? 3 : 8;
const TUNE_GOAL = [0.7, 1.4];

async function tuneCase() {
  const tuned = await kdf.tune({ algorithm: 'argon2id', targetMs: TUNE_TARGET_MS });
  const once = async () => {
    const t = performance.now();
    await kdf.hash(PASSWORD, tuned.options);
    return performance.now() - t;
  };
  const round = () => Promise.all(Array.from({ length: tuned.concurrency }, once));
  await round(); // the workers' arenas grow to the new memory
  const times = [];
  for (let i = 0; i < TUNE_ROUNDS; i++) times.push(...await round());
  const ms = median(times);
  return { tuned, remeasuredMs: ms, ratio: ms / TUNE_TARGET_MS, samples: times.length };
}

function cpuFlags() {
  try {
    const flags = fs.readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:\s*(.*)$/m)[1].split(' ');
    return ['sha_ni', 'avx2', 'avx512f', 'ssse3'].filter((f) => flags.includes(f)).join(' ');
  } catch {
    return 'unknown';
  }
}

function machine() {
  const deps = Object.entries(peers).filter(([, p]) => p).map(([k, p]) => {
    const name = { nodeRs: '@node-rs/argon2', hashWasm: 'hash-wasm', argon2: 'argon2', bcrypt: 'bcrypt', bcryptjs: 'bcryptjs' }[k];
    return `${name} ${p.version}`;
  });
  return {
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    cpu: os.cpus()[0].model.trim(),
    cpus: os.availableParallelism(),
    flags: cpuFlags(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '),
    node: process.version,
    kdfpool: require('../package.json').version,
    threads: kdf.stats().threads,
    priority: kdf.stats().priority,
    peers: deps,
    quick: QUICK,
    rounds: ROUNDS,
    seconds: SECONDS,
    satRounds: SAT_ROUNDS,
  };
}

// The goals of issues 13 and 21: [case id, measure, implementation compared, goal, sense].
// 'single' ratios are kdfpool's time / theirs (lower is better), 'saturated'
// ratios are kdfpool's ops/s / theirs (higher is better).
const GOALS = [
  ['pbkdf2-sha256-32', 'saturated', 'node:crypto', 4, '>='],
  ['pbkdf2-sha256-64', 'single', 'node:crypto', 0.3, '<='],
  ['pbkdf2-sha256-32', 'single', 'node:crypto', 0.5, '<='],
  ['pbkdf2-sha512-64', 'saturated', 'node:crypto', 2.5, '>='],
  ['pbkdf2-tiny', 'saturated', 'node:crypto', 4, '>='],
  ['pbkdf2-tiny', 'saturated', 'kdfpool fairKey', 1.05, '<='],
  ['scrypt', 'saturated', 'node:crypto', 2, '>='],
  ['bcrypt', 'saturated', 'bcrypt (npm)', 1.5, '>='],
  ['argon2id', 'saturated', '@node-rs/argon2', 2, '>='],
  ['argon2-sync', 'single', 'kdfpool async', 1.2, '<='],
  // Issue 28: refusals/s of a saturated pool, an absolute figure for this machine.
  ['refusals', 'absolute', 'kdfpool refused', 200000, '>='],
  // Issue 27: a submit's cost with 100,000 keys queued, over its cost with one.
  ['submitcost', 'single', 'kdfpool 1 key', 2, '<='],
];

function ratioOf(results, id, measure, other) {
  const r = results.find((x) => x.id === id);
  if (!r) return NaN;
  if (measure === 'absolute') {
    const row = r.rows.find((x) => x.name === other);
    return row ? row.opsPerSec : NaN;
  }
  const ours = r.rows.find((x) => x.name.startsWith('kdfpool') && x.name !== other);
  const theirs = r.rows.find((x) => x.name === other);
  if (!ours || !theirs) return NaN;
  return measure === 'single' ? ours.singleMs / theirs.singleMs : ours.opsPerSec / theirs.opsPerSec;
}

function markdown(m, results) {
  const lines = [];
  lines.push('# kdfpool benchmark results', '');
  lines.push(`Generated by \`npm run bench${m.quick ? ' -- --quick' : ''}\` on ${m.date} UTC. Every figure below comes from this one run.`, '');
  lines.push(`- Machine: ${m.cpu}, ${m.cpus} CPUs (${m.flags}), ${m.memoryGiB} GiB; load average at the end ${m.loadavg}`);
  lines.push(`- Node ${m.node}; kdfpool ${m.kdfpool} (${m.threads} threads, priority ${m.priority}); ${m.peers.join(', ')}`);
  lines.push(`- Single op: median of ${m.rounds} rounds, implementations in rotating order. Saturated: ${IN_FLIGHT} calls in flight (${TINY_IN_FLIGHT} for 1-iteration jobs) for ${m.seconds} s, median of ${m.satRounds} turns in rotating order.`);
  lines.push('- "JS thread": the peer hashes on the event loop, so it cannot overlap calls and blocks everything else while it runs.');
  lines.push('- Submit cost: microseconds per submit (with a deadline) while 100,000 calls wait on a pool whose one thread is held, all from one fairKey or each from its own; the ratio is the goal (bench/submitcost.js).');
  lines.push('- Refusals: calls/s refused (`queue_full`) by a pool whose one thread a long job holds (`maxQueue: 0`), 1000 calls in flight, in turns with 1-iteration PBKDF2 jobs/s accepted by the default pool (bench/refusals.js).', '');
  lines.push('## Goals (issue 13)', '');
  lines.push('| case | measure | vs | goal | measured | |', '|---|---|---|---|---|---|');
  for (const [id, measure, other, goal, sense] of GOALS) {
    const r = results.find((x) => x.id === id);
    if (!r) continue;
    const x = ratioOf(results, id, measure, other);
    const ok = sense === '>=' ? x >= goal : x <= goal;
    const what = measure === 'single' ? 'time' : 'ops/s';
    const [goalText, shown] = measure === 'absolute' ? [`${goal}/s`, Number.isFinite(x) ? `${Math.round(x)}/s` : '-'] : [`${goal}×`, fmtRatio(x)];
    lines.push(`| ${r.title} | ${measure} (${what}) | ${other} | ${sense} ${goalText} | ${shown} | ${Number.isFinite(x) ? (ok ? '✔' : '✖') : 'n/a'} |`);
  }
  lines.push('');
  if (m.tune) {
    const t = m.tune;
    const ok = t.ratio >= TUNE_GOAL[0] && t.ratio <= TUNE_GOAL[1];
    const o = t.tuned.options;
    lines.push('## kdf.tune (issue 29)', '');
    lines.push(`\`kdf.tune({ algorithm: 'argon2id', targetMs: ${TUNE_TARGET_MS} })\` at its default concurrency (${t.tuned.concurrency} hashes at once, `
      + `Argon2 variant ${t.tuned.measured.variant}); its options measured again on the default pool, ${t.samples} hashes, median.`, '');
    lines.push('| target | options | tune measured | measured again | × target | goal | |', '|---|---|---|---|---|---|---|');
    lines.push(`| ${TUNE_TARGET_MS} ms | m=${o.memory} KiB t=${o.passes} p=${o.parallelism} | ${fmtMs(t.tuned.measuredMs)} ms | ${fmtMs(t.remeasuredMs)} ms `
      + `| ${fmtRatio(t.ratio)} | ${TUNE_GOAL[0]}–${TUNE_GOAL[1]}× | ${ok ? '✔' : '✖'} |`);
    lines.push('');
  }
  if (m.frameworks) lines.push(frameworks.markdown(m.frameworks));
  if (m.fleet) lines.push(require('./fleet').markdown(m.fleet, '##'), '');
  lines.push('## Every case', '');
  lines.push('Ratios are against kdfpool: single-op time ÷ kdfpool\'s (above 1: slower than kdfpool), kdfpool\'s ops/s ÷ theirs (above 1: kdfpool does more).', '');
  lines.push('| case | implementation | single op ms | × kdfpool time | saturated ops/s | kdfpool × their ops/s |', '|---|---|---|---|---|---|');
  for (const r of results) {
    const ours = r.rows.find((x) => x.name.startsWith('kdfpool'));
    for (const row of r.rows) {
      const single = Number.isFinite(row.singleMs) ? fmtMs(row.singleMs) : '–';
      const sat = Number.isFinite(row.opsPerSec) ? row.opsPerSec.toFixed(row.opsPerSec >= 1000 ? 0 : 1) : '–';
      lines.push(`| ${r.title} | ${row.name}${row.jsThread ? ' (JS thread)' : ''} | ${single} | ${fmtRatio(row.singleMs / ours.singleMs)} | ${sat} | ${fmtRatio(ours.opsPerSec / row.opsPerSec)} |`);
    }
  }
  lines.push('');
  return lines.join('\n');
}

async function main() {
  // The peers' threads (libuv's, napi-rs's) run at the process's priority;
  // so do ours here, so that the figures compare work, not scheduling (the
  // default 'auto' runs low until other processes starve it: that is
  // bench/demo.js's and bench/service.js's subject).
  // maxQueue: room for every call a case keeps in flight, and no deadline
  // (a refusal here would be a benchmark bug, not a measurement).
  kdf.configure({ maxQueue: TINY_IN_FLIGHT + IN_FLIGHT, maxWaitMs: 0, priority: 'normal' });
  const m = machine();
  const started = performance.now();
  console.log(`npm run bench${QUICK ? ' --quick' : ''}: node ${m.node}, ${m.cpu}, ${m.cpus} CPUs (${m.flags}); kdfpool ${m.threads} threads`);
  console.log(`peers: ${m.peers.join(', ')}${hasCryptoArgon2 ? ', node:crypto argon2' : ''}`);
  const results = [];
  for (const c of CASES) {
    await checkAgreement(c);
    const single = c.saturatedOnly ? c.impls.map(() => NaN) : await singleOp(c);
    const turns = c.impls.map(() => []);
    for (let round = 0; round < (c.singleOnly ? 0 : SAT_ROUNDS); round++) {
      for (let i = 0; i < c.impls.length; i++) {
        const k = (i + round) % c.impls.length;
        turns[k].push(await saturated(c.impls[k], c.inFlight || IN_FLIGHT));
      }
    }
    const rows = c.impls.map((impl, k) => ({
      name: impl.name, jsThread: !!impl.jsThread, singleMs: single[k], opsPerSec: c.singleOnly ? NaN : median(turns[k]),
    }));
    results.push({ id: c.id, title: c.title, family: c.family, reference: c.reference, rows });
    const ours = rows[0];
    console.log(`\n${c.title}`);
    console.log(table(['implementation', 'single ms', 'x kdfpool time', 'saturated ops/s', 'kdfpool x ops/s'],
      rows.map((r) => [r.name + (r.jsThread ? ' (JS thread)' : ''), fmtMs(r.singleMs), fmtRatio(r.singleMs / ours.singleMs),
        Number.isFinite(r.opsPerSec) ? r.opsPerSec.toFixed(1) : '-', fmtRatio(ours.opsPerSec / r.opsPerSec)])));
  }
  if (WITH_REFUSALS) {
    const r = await refusalsCase();
    results.push(r);
    console.log(`\n${r.title}`);
    console.log(table(['kdfpool', 'calls/s', 'us/call', 'refused / accepted'], r.rows.map((row) => [
      row.name, row.opsPerSec.toFixed(0), (1e6 / row.opsPerSec).toFixed(2), fmtRatio(r.rows[0].opsPerSec / row.opsPerSec)])));
  }
  if (WITH_SUBMIT_COST) {
    const r = await submitCostCase();
    results.push(r);
    console.log(`\n${r.title}`);
    console.log(table(['kdfpool', 'us per submit', 'x 1 key'], r.rows.map((row) => [
      row.name, (row.singleMs * 1000).toFixed(2), fmtRatio(row.singleMs / r.rows[1].singleMs)])));
  }
  if (!ONLY || ONLY.includes('tune')) {
    m.tune = await tuneCase();
    const t = m.tune;
    console.log(`\nkdf.tune argon2id ${TUNE_TARGET_MS} ms: ${JSON.stringify(t.tuned.options)}, tune measured ${fmtMs(t.tuned.measuredMs)} ms, `
      + `measured again ${fmtMs(t.remeasuredMs)} ms = ${fmtRatio(t.ratio)} the target (goal ${TUNE_GOAL[0]}-${TUNE_GOAL[1]}x)`);
  }
  if (!ONLY || ONLY.includes('frameworks')) {
    m.frameworks = await frameworks.frameworksCase({ quick: QUICK });
    frameworks.print(m.frameworks);
  }
  // The fleet (bench/fleet.js): balancers, the autoscaling signal through
  // Prometheus, the model; its own file too (bench/fleet-results.md).
  if (!ONLY || ONLY.includes('fleet')) {
    m.fleet = await require('./fleet').measure();
    console.log(`\n${require('./fleet').markdown(m.fleet, '##')}`);
  }
  m.loadavg = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  const md = markdown(m, results);
  console.log(`\n${md.split('## Every case')[0].split('## Goals (issue 13)')[1].trim()}`);
  console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
  if (!WRITE) return;
  fs.writeFileSync(path.join(__dirname, 'results.json'), `${JSON.stringify({ machine: m, results }, null, 2)}\n`);
  if (m.fleet) fs.writeFileSync(path.join(__dirname, 'fleet-results.md'), `${require('./fleet').markdown(m.fleet)}\n`);
  const charts = await require('./lib/results-charts').write(results, __dirname,
    `${m.cpu}, ${m.cpus} CPUs, node ${m.node}, ${m.date} UTC`);
  const withCharts = charts.length ? `${md}\n## Charts\n\n${charts.map((f) => `![${f}](${f})`).join('\n\n')}\n` : md;
  fs.writeFileSync(path.join(__dirname, 'results.md'), withCharts);
  console.log(`wrote bench/results.md, bench/results.json${charts.length ? `, ${charts.map((f) => `bench/${f}`).join(', ')}` : ''}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
