'use strict';

// Target `arguments`: the public functions with fuzzed argument values and
// types. An input is a JSON recipe, { fn, args: [recipe...] }, each recipe
// { k: kind, s: seed[, key, vk] } materialized deterministically with
// fast-check (fc.sample(arbitrary, { seed })), so a failing input replays.
//
// Accepted jobs are kept cheap: after materializing, cost parameters that
// would be *accepted* and expensive (iterations, keylen, N*r*p, Argon2
// memory/passes, bcrypt cost, threads) are clamped; invalid values are left
// alone, so the validation paths still see them.
//
// Failures: a thrown or rejected error without a string `code`; a promise
// form that throws synchronously; a callback form that neither throws nor
// calls back, or calls back twice; a callback error without a code; for
// pbkdf2/scrypt (sync, promise and callback forms) a different outcome than
// node:crypto's *Sync with the same arguments (other error code, or other
// bytes). Crashes, hangs and unhandled rejections: engine.js.

const crypto = require('node:crypto');
const fc = require('fast-check');
const kdf = require('../../..');

const FNS = ['pbkdf2', 'pbkdf2cb', 'pbkdf2Sync', 'scrypt', 'scryptcb', 'scryptSync', 'argon2', 'argon2cb',
  'argon2Sync', 'hash', 'verify', 'needsRehash', 'createPool', 'configure'];
const ARITY = { pbkdf2: 6, pbkdf2cb: 6, pbkdf2Sync: 5, scrypt: 4, scryptcb: 4, scryptSync: 4, argon2: 3, argon2cb: 3,
  argon2Sync: 2, hash: 2, verify: 3, needsRehash: 2, createPool: 1, configure: 1 };

const NEAR_LIMITS = [0, -0, 1, -1, 2, 3, 4, 7, 8, 9, 10, 15, 16, 31, 32, 63, 64, 72, 73, 1023, 1024, 1025,
  2 ** 16, 2 ** 24 - 1, 2 ** 24, 2 ** 30 - 1, 2 ** 30, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, 2 ** 53,
  2 ** 53 + 2, -(2 ** 31), -(2 ** 31) - 1, 1.5, 0.5, -1.5, 1e-300, Number.MIN_VALUE, Number.MAX_VALUE, NaN,
  Infinity, -Infinity];
const DIGESTS = ['sha1', 'sha256', 'sha512', 'sha384', 'sha224', 'sha3-256', 'sha3-512', 'SHA256', 'Sha-256', 'sha-256',
  'md5', 'md4', 'ripemd160', 'blake2b512', 'blake2s256', 'sm3', 'shake128', 'shake256', 'whirlpool', 'sha512-256',
  'RSA-SHA256', 'sha256WithRSAEncryption', '', 'nope', 'sha256\0', ' sha256'];
const ALGS = ['argon2id', 'argon2i', 'argon2d', 'ARGON2ID', 'argon2', 'scrypt', 'pbkdf2-sha256', 'pbkdf2-sha512',
  'pbkdf2-sha1', 'bcrypt', '', 'x'];
const PRIORITIES = ['low', 'normal', 'idle', 'high', '', 'LOW'];
const OPTION_KEYS = {
  scrypt: ['N', 'cost', 'r', 'blockSize', 'p', 'parallelization', 'maxmem', 'signal', 'maxWaitMs'],
  argon2: ['message', 'nonce', 'parallelism', 'tagLength', 'memory', 'passes', 'secret', 'associatedData', 'signal', 'maxWaitMs'],
  call: ['signal', 'maxWaitMs'],
  hash: ['algorithm', 'memory', 'passes', 'parallelism', 'tagLength', 'saltLength', 'ln', 'N', 'r', 'p', 'iterations',
    'cost', 'limits', 'signal', 'maxWaitMs'],
  verify: ['limits', 'signal', 'maxWaitMs'],
  pool: ['threads', 'maxQueue', 'maxMemory', 'maxWaitMs', 'priority', 'hashLimits', 'name'],
  limits: ['argon2Memory', 'argon2Passes', 'argon2Lanes', 'scryptMemory', 'scryptParallelism', 'pbkdf2Iterations',
    'bcryptCost', 'saltLength', 'hashLength', 'dataLength'],
};

// ---------------------------------------------------------------- arbitraries

const binary = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  fc.uint8Array({ maxLength: 40 }),
  fc.int32Array({ maxLength: 10 }),
  fc.float64Array({ maxLength: 5 }),
  fc.uint8Array({ maxLength: 40 }).map((a) => a.buffer),
  fc.uint8Array({ maxLength: 40 }).map((a) => new DataView(a.buffer)),
  fc.uint8Array({ maxLength: 40 }).map((a) => { const s = new SharedArrayBuffer(a.length); new Uint8Array(s).set(a); return s; }),
  fc.uint8Array({ minLength: 4, maxLength: 40 }).map((a) => new Uint16Array(a.buffer, 2, 1)),
);
const number = fc.oneof(fc.constantFrom(...NEAR_LIMITS), fc.integer(), fc.double(), fc.integer({ min: -4, max: 70000 }),
  fc.bigInt({ min: -10n, max: 1n << 40n }));
const anything = fc.anything({ maxDepth: 2, withBigInt: true, withBoxedValues: true, withMap: true, withSet: true,
  withTypedArray: true, withNullPrototype: true, withSparseArray: true, withDate: true });
const SIGNALS = [
  () => AbortSignal.abort(new Error('pre-aborted')),
  () => AbortSignal.abort(),
  () => AbortSignal.timeout(0),
  () => new AbortController().signal,
  () => { const c = new AbortController(); queueMicrotask(() => c.abort()); return c.signal; },
  () => ({ aborted: true }),
  () => 'signal',
];

function value(vk, seed, key) {
  const one = (arb) => fc.sample(arb, { seed, numRuns: 1 })[0];
  switch (vk) {
    case 'number': return one(number);
    case 'binary': return one(binary);
    case 'string': return one(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...DIGESTS, ...ALGS, ...PRIORITIES)));
    case 'anything': return one(anything);
    case 'signal': return SIGNALS[Math.abs(seed) % SIGNALS.length]();
    case 'limits': return one(fc.dictionary(fc.constantFrom(...OPTION_KEYS.limits), number, { maxKeys: 4 }));
    case 'undefined': return undefined;
    default: { // a plausible value for this key
      if (key === 'signal') return SIGNALS[Math.abs(seed) % SIGNALS.length]();
      if (key === 'algorithm') return ALGS[Math.abs(seed) % ALGS.length];
      if (key === 'priority') return PRIORITIES[Math.abs(seed) % PRIORITIES.length];
      if (['message', 'nonce', 'secret', 'associatedData'].includes(key)) return one(binary);
      if (key === 'limits' || key === 'hashLimits') return value('limits', seed);
      if (key === 'name') return one(fc.oneof(fc.string({ maxLength: 9 }), fc.constantFrom('a', 'p_1.x', 'toolong8', '')));
      return one(number);
    }
  }
}

// Valid bases: every key a cheap, valid value.
function validOptions(group, fn) {
  switch (group) {
    case 'scrypt': return { N: 16, r: 1, p: 1 };
    case 'argon2': return { message: 'pw', nonce: Buffer.alloc(16, 1), parallelism: 1, tagLength: 16, memory: 8, passes: 1 };
    case 'hash': return fn === 'bcrypt' ? { algorithm: 'bcrypt', cost: 4 } : { algorithm: 'argon2id', memory: 8, passes: 1 };
    case 'pool': return { threads: 1, maxQueue: 4 };
    default: return {};
  }
}

// Position -> [group, validValue]
function positions(fn) {
  const base = fn.replace(/cb$|Sync$/, '');
  switch (base) {
    case 'pbkdf2': return [['binary', 'pw'], ['binary', 'salt'], ['number', 3], ['number', 16], ['digest', 'sha256'], ['call', {}]];
    case 'scrypt': return [['binary', 'pw'], ['binary', 'salt'], ['number', 16], ['scrypt', null]];
    case 'argon2': return [['alg', 'argon2id'], ['argon2', null], ['call', {}]];
    case 'hash': return [['binary', 'pw'], ['hash', null]];
    case 'verify': return [['phc', 0], ['binary', 'pw'], ['verify', {}]];
    case 'needsRehash': return [['phc', 0], ['hash', null]];
    case 'createPool': case 'configure': return [['pool', null]];
    default: throw new Error(fn);
  }
}

let PHCS = ['$argon2id$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'];

function materialize(fn, recipe, ctx) {
  const [group, valid] = positions(fn)[recipe.i] || ['x', undefined];
  const one = (arb) => fc.sample(arb, { seed: recipe.s, numRuns: 1 })[0];
  switch (recipe.k) {
    case 'valid':
      if (group === 'phc') return PHCS[Math.abs(recipe.s) % PHCS.length];
      if (valid === null) return validOptions(group, recipe.s % 2 ? 'bcrypt' : '');
      return valid;
    case 'alt': // a plausible value of the right kind
      if (group === 'digest') return DIGESTS[Math.abs(recipe.s) % DIGESTS.length];
      if (group === 'alg') return ALGS[Math.abs(recipe.s) % ALGS.length];
      if (group === 'phc') return one(fc.oneof(fc.constantFrom(...PHCS), fc.string({ maxLength: 80 })));
      if (group === 'binary') return one(binary);
      if (group === 'number') return one(number);
      return value('limits', recipe.s);
    case 'tweak': { // a valid options object with one key set to a fuzzed value
      const o = valid === null ? validOptions(group, recipe.s % 2 ? 'bcrypt' : '') : {};
      const keys = OPTION_KEYS[group] || OPTION_KEYS.call;
      const key = recipe.key || keys[Math.abs(recipe.s) % keys.length];
      o[key] = value(recipe.vk, recipe.s, key);
      return o;
    }
    case 'getter': { // an options object whose key reads valid first, then something else
      const o = valid === null ? validOptions(group, '') : {};
      const keys = OPTION_KEYS[group] || OPTION_KEYS.call;
      const key = keys[Math.abs(recipe.s) % keys.length];
      const first = key in o ? o[key] : undefined;
      const later = [-1, 0, NaN, 1.5, 'x', 2 ** 53, 3, null][Math.abs(recipe.s >> 4) % 8];
      let reads = 0;
      Object.defineProperty(o, key, { enumerable: true, get() { reads++; if (recipe.s % 5 === 0 && reads > 1) throw Object.assign(new Error('getter throws'), { code: 'TEST_GETTER' }); return reads === 1 ? first : later; } });
      ctx.getter = true;
      return o;
    }
    case 'proto': { // options inheriting keys, or a null prototype
      const o = Object.create(recipe.s % 2 ? null : validOptions(group, ''));
      return o;
    }
    case 'omit': return undefined;
    case 'anything': return one(anything);
    case 'number': return one(number);
    case 'binary': return one(binary);
    case 'string': return value('string', recipe.s);
    default: return undefined;
  }
}

// ---------------------------------------------------------------- cost guard

const isInt = (x) => typeof x === 'number' && Number.isInteger(x);
function clampIf(o, key, max, to) {
  if (o && typeof o === 'object' && !Object.getOwnPropertyDescriptor(o, key)?.get) {
    const v = o[key];
    if (isInt(v) && v > max && v < 2 ** 53) o[key] = to(v);
  }
}

function guard(fn, args) {
  const base = fn.replace(/cb$|Sync$/, '');
  if (base === 'pbkdf2') {
    if (isInt(args[2]) && args[2] > 2000 && args[2] <= 2 ** 31 - 1) args[2] = 1000 + (args[2] % 1000);
    if (isInt(args[3]) && args[3] > 1024 && args[3] <= 2 ** 31 - 1) args[3] = 1024 - (args[3] % 64);
  } else if (base === 'scrypt') {
    if (isInt(args[2]) && args[2] > 1024 && args[2] <= 2 ** 31 - 1) args[2] = 1024 - (args[2] % 64);
    const o = args[3];
    if (o && typeof o === 'object') {
      for (const k of ['N', 'cost']) clampIf(o, k, 1024, () => 1024);
      for (const k of ['r', 'blockSize']) clampIf(o, k, 8, () => 8);
      for (const k of ['p', 'parallelization']) clampIf(o, k, 4, () => 4);
    }
  } else if (base === 'argon2') {
    const o = args[1];
    if (o && typeof o === 'object') {
      clampIf(o, 'memory', 1024, (v) => 64 + (v % 960));
      clampIf(o, 'passes', 3, (v) => 1 + (v % 3));
      clampIf(o, 'tagLength', 1024, () => 1024);
      clampIf(o, 'parallelism', 64, (v) => 1 + (v % 64));
    }
  } else if (base === 'hash' || base === 'needsRehash') {
    const o = args[1];
    if (o && typeof o === 'object') {
      clampIf(o, 'memory', 1024, (v) => 64 + (v % 960));
      clampIf(o, 'passes', 3, (v) => 1 + (v % 3));
      clampIf(o, 'parallelism', 16, (v) => 1 + (v % 16));
      clampIf(o, 'ln', 10, () => 10);
      clampIf(o, 'N', 1024, () => 1024);
      clampIf(o, 'r', 8, () => 8);
      clampIf(o, 'p', 4, () => 4);
      clampIf(o, 'iterations', 2000, (v) => 1 + (v % 2000));
      clampIf(o, 'cost', 5, () => 5);
      clampIf(o, 'tagLength', 1024, () => 1024);
      clampIf(o, 'saltLength', 1024, () => 1024);
      // hash() without explicit costs uses OWASP defaults (up to 600k iterations, scrypt N=2^17): make them explicit and small.
      if (base === 'hash' && !Object.getOwnPropertyDescriptor(o, 'algorithm')?.get) {
        const alg = o.algorithm === undefined ? 'argon2id' : o.algorithm;
        // Only a string names an algorithm here: using any other value as a
        // key would convert it, and a hostile object throws doing so (the
        // harness's own TypeError, found by this fuzzer on node 24).
        const fills = { argon2id: { memory: 8, passes: 1 }, argon2i: { memory: 8, passes: 1 }, argon2d: { memory: 8, passes: 1 },
          scrypt: { ln: 4 }, 'pbkdf2-sha256': { iterations: 10 }, 'pbkdf2-sha512': { iterations: 10 }, bcrypt: { cost: 4 } };
        const fill = typeof alg === 'string' && Object.hasOwn(fills, alg) ? fills[alg] : undefined;
        if (fill && !Object.values(Object.getOwnPropertyDescriptors(o)).some((d) => d.get)) {
          for (const [k, v] of Object.entries(fill)) if (!(k in o) && !(k === 'ln' && 'N' in o)) o[k] = v;
        }
      }
    }
    if (base === 'hash' && (args[1] === undefined || args[1] === null)) args[1] = { memory: 8, passes: 1 };
  } else if (base === 'createPool' || base === 'configure') {
    const o = args[0];
    clampIf(o, 'threads', 4, (v) => 1 + (v % 4));
  }
}

// ---------------------------------------------------------------- checks

function codeOf(e) { return e && typeof e === 'object' && typeof e.code === 'string' ? e.code : null; }

// node:crypto reports a digest that OpenSSL itself refuses (md4 or whirlpool
// without the legacy provider, the XOFs) as a plain Error with OpenSSL's
// text and no code; kdfpool keeps that shape (README: drop-in parity). Such
// an error passes only if node raises the very same one for that digest.
function sameCodelessAsNode(e, fn, args) {
  if (!fn || fn.replace(/cb$|Sync$/, '') !== 'pbkdf2' || !args || typeof args[4] !== 'string') return false;
  try {
    crypto.pbkdf2Sync('pw', 'salt', 1, 16, args[4]);
    return false;
  } catch (n) {
    return n.code === undefined && n.name === e.name && n.message === e.message;
  }
}

function checkError(api, e, where, fn, args) {
  if (!(e instanceof Error)) throw api.fail('not-an-error', `${where} threw/rejected a non-Error: ${String(e)}`);
  if (e.code === 'TEST_GETTER') return;
  if (!codeOf(e) && !sameCodelessAsNode(e, fn, args)) {
    throw api.fail('no-code', `${where}: ${e.name} without a string code: ${e.message}`, { stack: e.stack });
  }
}

function nodeOutcome(fn, args) {
  try {
    if (fn.startsWith('pbkdf2')) return { ok: crypto.pbkdf2Sync(...args.slice(0, 5)) };
    return { ok: crypto.scryptSync(...args.slice(0, 4)) };
  } catch (e) {
    return { err: e };
  }
}

function hasNegZero(v, depth = 0) {
  if (Object.is(v, -0)) return true;
  if (depth > 2 || !v || typeof v !== 'object' || ArrayBuffer.isView(v)) return false;
  try { return Object.values(v).some((x) => hasNegZero(x, depth + 1)); } catch { return true; }
}

function compareWithNode(api, fn, args, ctx, outcome) {
  if (ctx.getter) return; // node 20's scryptSync aborts on getters that change (NOTES.md)
  // node 20's scryptSync also aborts on -0 (validateInt32 accepts it, then
  // Assertion failed: args[offset + 6]->IsInt32() in crypto_scrypt.cc): node's bug, not ours.
  if (args.some((a) => hasNegZero(a))) return;
  const base = fn.replace(/cb$|Sync$/, '');
  if (base !== 'pbkdf2' && base !== 'scrypt') return;
  const opts = base === 'pbkdf2' ? args[5] : args[3];
  // kdfpool-only options (signal, maxWaitMs) and the callback form's options slot are not node's.
  if (opts && typeof opts === 'object' && ('signal' in opts || 'maxWaitMs' in opts)) return;
  if (base === 'pbkdf2' && fn !== 'pbkdf2Sync' && args[5] !== undefined && !(args[5] && typeof args[5] === 'object' && Object.keys(args[5]).length === 0)) return;
  if (outcome.err && ['ERR_KDF_POOL_SATURATED', 'ERR_KDF_MEMORY_LIMIT', 'ABORT_ERR', 'ERR_KDF_POOL_CLOSED'].includes(outcome.err.code)) return;
  const n = nodeOutcome(fn, args);
  if (n.ok && outcome.ok) {
    if (!Buffer.from(n.ok).equals(Buffer.from(outcome.ok))) throw api.fail('differs-from-node', `${fn}: other bytes than node:crypto`);
  } else if (n.err && outcome.err) {
    if (n.err.code !== outcome.err.code || n.err.name !== outcome.err.name) {
      throw api.fail('differs-from-node', `${fn}: node:crypto throws ${n.err.name} ${n.err.code} (${n.err.message}), kdfpool ${outcome.err.name} ${outcome.err.code} (${outcome.err.message})`);
    }
  } else {
    throw api.fail('differs-from-node', `${fn}: node:crypto ${n.ok ? 'succeeds' : `throws ${n.err.code} (${n.err.message})`}, kdfpool ${outcome.ok ? 'succeeds' : `fails ${outcome.err.code} (${outcome.err.message})`}`);
  }
}

const DEFAULT_RESTORE = { threads: 2, maxQueue: 128, maxMemory: 64 * 1024 * 1024, maxWaitMs: 0, priority: 'normal' };

async function call(api, fn, args) {
  const base = fn.replace(/cb$|Sync$/, '');
  if (fn.endsWith('cb')) {
    // Callback form: a synchronous throw (argument errors) or exactly one callback.
    let calls = 0;
    let resolveCb;
    const called = new Promise((r) => { resolveCb = r; });
    const cb = (err, key) => { calls++; resolveCb({ err, key }); };
    const a = args.slice();
    while (a.length && a[a.length - 1] === undefined) a.pop();
    try {
      kdf[base](...a, cb);
    } catch (e) {
      checkError(api, e, `${fn} (sync throw)`, fn, args);
      await new Promise((r) => setImmediate(r));
      if (calls) throw api.fail('callback-after-throw', `${fn} threw synchronously and also called back`);
      return { err: e };
    }
    const { err, key } = await called;
    await new Promise((r) => setImmediate(r));
    if (calls !== 1) throw api.fail('callback-twice', `${fn} called back ${calls} times`);
    if (err) { checkError(api, err, `${fn} (callback error)`, fn, args); return { err }; }
    if (!Buffer.isBuffer(key)) throw api.fail('result-type', `${fn} called back with a non-Buffer key`);
    return { ok: key };
  }
  if (fn.endsWith('Sync') || fn === 'needsRehash') {
    try {
      const r = kdf[fn](...args);
      if (fn === 'needsRehash' ? typeof r !== 'boolean' : !Buffer.isBuffer(r)) throw api.fail('result-type', `${fn} returned ${typeof r}`);
      return { ok: r };
    } catch (e) {
      if (e && e.kind) throw e;
      checkError(api, e, fn, fn, args);
      return { err: e };
    }
  }
  if (fn === 'createPool') {
    let pool;
    try { pool = kdf.createPool(...args); } catch (e) { checkError(api, e, fn); return { err: e }; }
    try {
      const st = pool.stats();
      if (typeof st.submitted !== 'number') throw api.fail('result-type', 'stats().submitted is not a number');
      if (st.priority !== 'idle') { // SCHED_IDLE threads may never run on a busy machine
        try { await pool.pbkdf2('pw', 'salt', 1, 8, 'sha256'); } catch (e) { checkError(api, e, 'pool.pbkdf2'); }
      }
    } finally {
      await pool.close();
    }
    return { ok: true };
  }
  if (fn === 'configure') {
    try { kdf.configure(...args); } catch (e) { checkError(api, e, fn); return { err: e }; } finally {
      kdf.configure(DEFAULT_RESTORE);
    }
    return { ok: true };
  }
  // promise forms: never a synchronous throw
  // A non-object in the slot after the options is the callback slot: the
  // callback form's rules apply (argument errors throw synchronously, as node's).
  const slot = fn === 'pbkdf2' ? args[5] : fn === 'argon2' ? args[2] : undefined;
  const callbackSlot = slot === null || (slot !== undefined && typeof slot !== 'object');
  let p;
  try { p = kdf[fn](...args); } catch (e) {
    if (callbackSlot) { checkError(api, e, `${fn} (callback slot ${typeof slot})`); return { err: e }; }
    throw api.fail('sync-throw', `${fn} threw synchronously instead of rejecting: ${e && e.stack}`);
  }
  if (!p || typeof p.then !== 'function') throw api.fail('result-type', `${fn} did not return a promise`);
  try {
    const r = await p;
    if (fn === 'verify' ? typeof r !== 'boolean' : fn === 'hash' ? typeof r !== 'string' : !Buffer.isBuffer(r)) {
      throw api.fail('result-type', `${fn} resolved to ${typeof r}`);
    }
    return { ok: r };
  } catch (e) {
    if (e && e.kind) throw e;
    checkError(api, e, fn, fn, args);
    return { err: e };
  }
}

const KINDS = ['valid', 'valid', 'alt', 'tweak', 'tweak', 'anything', 'number', 'binary', 'string', 'omit', 'getter', 'proto'];
const VKINDS = ['default', 'default', 'number', 'anything', 'string', 'binary', 'signal', 'undefined'];

module.exports = {
  name: 'arguments',

  async setup() {
    kdf.configure(DEFAULT_RESTORE);
    const list = [];
    for (const algorithm of ['argon2id', 'scrypt', 'pbkdf2-sha256', 'bcrypt']) {
      list.push(await kdf.hash('pw', { algorithm, ...{ argon2id: { memory: 8, passes: 1 }, scrypt: { ln: 2 }, 'pbkdf2-sha256': { iterations: 2 }, bcrypt: { cost: 4 } }[algorithm] }));
    }
    PHCS = list;
  },

  async seeds() {
    // Every function with all-valid arguments, then each position fuzzed once.
    const out = [];
    for (const fn of FNS) {
      const n = positions(fn).length;
      out.push({ fn, args: Array.from({ length: n }, (_, i) => ({ i, k: 'valid', s: i })) });
      for (let j = 0; j < n; j++) {
        out.push({ fn, args: Array.from({ length: n }, (_, i) => (i === j ? { i, k: 'tweak', vk: 'number', s: 7 * j + 1 } : { i, k: 'valid', s: i })) });
      }
    }
    return out;
  },

  mutate(input, api) {
    const { rng } = api;
    const out = { fn: input.fn, args: input.args.map((a) => ({ ...a })) };
    const r = rng.next();
    if (r < 0.05) { // switch function, keep recipes where positions exist
      out.fn = rng.pick(FNS);
      const n = positions(out.fn).length;
      out.args = Array.from({ length: n }, (_, i) => out.args[i] || { i, k: 'valid', s: i });
    } else {
      const count = 1 + (rng.bool(0.3) ? 1 : 0);
      for (let c = 0; c < count; c++) {
        const a = rng.pick(out.args);
        const m = rng.next();
        if (m < 0.4) a.s = rng.int(1 << 30) - (1 << 29);
        else if (m < 0.7) { a.k = rng.pick(KINDS); a.s = rng.int(1 << 30); delete a.key; delete a.vk; if (a.k === 'tweak') a.vk = rng.pick(VKINDS); }
        else if (m < 0.9) { a.k = 'tweak'; a.vk = rng.pick(VKINDS); a.s = rng.int(1 << 30); delete a.key; }
        else a.s ^= 1 << rng.int(30);
      }
    }
    return out;
  },

  async run(input, api) {
    const ctx = { getter: false };
    const fn = input.fn;
    const n = ARITY[fn];
    const args = [];
    for (let i = 0; i < n; i++) {
      const recipe = input.args[i] || { i, k: 'omit', s: 0 };
      args.push(materialize(fn, { ...recipe, i }, ctx));
    }
    guard(fn, args);
    const outcome = await call(api, fn, args);
    compareWithNode(api, fn, args, ctx, outcome);
  },

  async teardown() {},

  describe(input) { return JSON.stringify(input); },
};
