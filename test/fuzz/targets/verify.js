'use strict';

// Target `verify`: kdf.verify(mutated, password) and kdf.needsRehash(mutated)
// over PHC argon2/scrypt/pbkdf2, passlib pbkdf2 and bcrypt strings, and the
// other frameworks' formats (better-auth, Django, Werkzeug, ASP.NET Core
// Identity, Spring Security: ../foreign.js).
//
// Input: { s: string, p: password index, enc: 0 string | 1 Buffer | 2 Uint8Array,
//          via: 0 a small createPool | 1 the default pool with per-call limits }
//
// Failures: a rejection or throw whose error has no string `code`; verify
// resolving to something other than a boolean; verify === true for a string
// whose meaning (oracle.js: family, parameters, decoded salt and hash) is not
// that of a string produced from the same password; verify and needsRehash
// disagreeing on whether a string is malformed; a produced string that does
// not verify; a malformed or over-limit string that got a job queued
// before its refusal. Crashes, hangs and unhandled rejections: engine.js.

const crypto = require('node:crypto');
const kdf = require('../../..');
const { execFileSync } = require('node:child_process');
const { meaning, sameMeaning } = require('../oracle');
const { foreignSeeds } = require('../foreign');

// Structured stored hashes come from fast-check (../phc-arbitrary.js), sampled
// once in a separate process at setup: loading fast-check here would double
// the cost of every coverage read (V8 serializes its functions too).
let structured = [];

const PASSWORDS = ['password', 'hunter2', 'Ünïcødé 🔑', ''];

// Small limits: hostile costs are refused before any work.
const LIMITS = Object.freeze({
  argon2Memory: 512, argon2Passes: 3, argon2Lanes: 4,
  scryptMemory: 128 * 64 * 8, scryptParallelism: 2,
  pbkdf2Iterations: 2000, bcryptCost: 5,
  saltLength: 256, hashLength: 256, dataLength: 64,
});

let pool;
const produced = new Map(); // password index -> [{ s, meaning }]
const producedSet = new Set();

function addProduced(p, s) {
  if (!produced.has(p)) produced.set(p, []);
  produced.get(p).push({ s, meaning: meaning(s) });
  producedSet.add(s);
}

function codeOf(err) {
  return err && typeof err === 'object' && typeof err.code === 'string' ? err.code : null;
}

function pwValue(input) {
  const pw = PASSWORDS[input.p % PASSWORDS.length];
  if (input.enc === 1) return Buffer.from(pw);
  if (input.enc === 2) return new Uint8Array(Buffer.from(pw));
  return pw;
}

function b64(buf) { return buf.toString('base64').replace(/=+$/, ''); }

async function externalSeeds() {
  const out = []; // [passwordIndex, string]
  let argon2; let bcrypt; let bcryptjs;
  try { argon2 = require('argon2'); } catch { /* optional */ }
  try { bcrypt = require('bcrypt'); } catch { /* optional */ }
  try { bcryptjs = require('bcryptjs'); } catch { /* optional */ }
  for (let p = 0; p < PASSWORDS.length; p++) {
    const pw = PASSWORDS[p];
    if (argon2) {
      for (const type of [argon2.argon2id, argon2.argon2i, argon2.argon2d]) {
        out.push([p, await argon2.hash(pw, { type, memoryCost: 64, timeCost: 1, parallelism: 1 })]);
      }
      out.push([p, await argon2.hash(pw, { type: argon2.argon2id, memoryCost: 64, timeCost: 2, parallelism: 2, hashLength: 16, associatedData: Buffer.from('ad') })]);
    }
    if (bcrypt) out.push([p, bcrypt.hashSync(pw, 4)]);
    if (bcryptjs) {
      const h = bcryptjs.hashSync(pw, 4);
      out.push([p, h], [p, h.replace(/^\$2.\$/, '$2a$')], [p, h.replace(/^\$2.\$/, '$2y$')]);
    }
    // node:crypto-made strings in the other formats verify() reads.
    const salt = crypto.randomBytes(12);
    const h1 = crypto.pbkdf2Sync(pw, salt, 3, 20, 'sha1');
    out.push([p, `$pbkdf2$3$${b64(salt).replace(/\+/g, '.')}$${b64(h1).replace(/\+/g, '.')}`]);
    const h2 = crypto.pbkdf2Sync(pw, salt, 5, 32, 'sha256');
    out.push([p, `$pbkdf2-sha256$i=5,l=32$${b64(salt)}$${b64(h2)}`]);
    const h3 = crypto.scryptSync(pw, salt, 16, { N: 16, r: 2, p: 1 });
    out.push([p, `$scrypt$ln=4,r=2,p=1$${b64(salt)}$${b64(h3)}`]);
  }
  return out;
}

// Other frameworks' strings: [passwordIndex, string] that verify under
// LIMITS, and `costly` ones whose fixed parameters are over them (refused
// with HashLimitError, nothing queued: they seed the corpus only).
async function frameworkSeeds() {
  let argon2; let bcrypt;
  try { argon2 = require('argon2'); } catch { /* optional */ }
  try { bcrypt = require('bcrypt'); } catch { /* optional */ }
  const cheap = []; const costly = [];
  for (let p = 0; p < PASSWORDS.length; p++) {
    const seeds = await foreignSeeds(PASSWORDS[p], { argon2, bcrypt });
    for (const s of seeds.cheap) cheap.push([p, s]);
    for (const s of seeds.costly) costly.push([p, s]);
  }
  return { cheap, costly };
}

module.exports = {
  name: 'verify',

  async setup(api) {
    structured = JSON.parse(execFileSync(process.execPath, [require.resolve('../phc-arbitrary.js'), String(api.rng.u32()), '4000'],
      { encoding: 'utf8', maxBuffer: 64 << 20 }));
    kdf.configure({ priority: 'normal' }); // nice-19 threads crawl on a shared machine
    pool = kdf.createPool({ name: 'fzv', threads: 1, priority: 'normal', maxQueue: 4096, maxMemory: 8 * 1024 * 1024, hashLimits: LIMITS });
  },

  async seeds(api) {
    const list = [];
    const variants = [
      { algorithm: 'argon2id', memory: 8, passes: 1 },
      { algorithm: 'argon2i', memory: 16, passes: 2, parallelism: 2, tagLength: 4, saltLength: 8 },
      { algorithm: 'argon2d', memory: 8, passes: 1, tagLength: 64 },
      { algorithm: 'scrypt', ln: 2, r: 1, p: 1 },
      { algorithm: 'scrypt', N: 16, r: 2, p: 2, tagLength: 10, saltLength: 8 },
      { algorithm: 'pbkdf2-sha256', iterations: 1 },
      { algorithm: 'pbkdf2-sha512', iterations: 3, saltLength: 8 },
      { algorithm: 'bcrypt', cost: 4 },
    ];
    for (let p = 0; p < PASSWORDS.length; p++) {
      for (const v of variants) {
        const s = await pool.hash(PASSWORDS[p], v);
        addProduced(p, s);
        list.push({ s, p, enc: 0, via: 0 });
      }
    }
    const frameworks = await frameworkSeeds();
    for (const [p, s] of [...await externalSeeds(), ...frameworks.cheap]) {
      addProduced(p, s);
      list.push({ s, p, enc: 0, via: 1 });
    }
    // Every produced string must verify with its password and not with another.
    for (const { s, p } of list) {
      const ok = await pool.verify(s, PASSWORDS[p], { limits: LIMITS });
      if (ok !== true) throw api.fail('seed-false', `a produced string does not verify: ${s}`);
      const other = await pool.verify(s, PASSWORDS[(p + 1) % PASSWORDS.length], { limits: LIMITS });
      if (other !== false) throw api.fail('seed-true', `a produced string verifies with another password: ${s}`);
    }
    for (const [p, s] of frameworks.costly) {
      const before = pool.stats().submitted;
      const err = await pool.verify(s, PASSWORDS[p], { limits: LIMITS }).then(() => null, (e) => e);
      if (!err || err.code !== 'ERR_KDF_HASH_LIMIT' || pool.stats().submitted !== before) {
        throw api.fail('seed-limit', `a string over the limits was not refused before any work: ${s}`);
      }
      list.push({ s, p, enc: 0, via: 0 });
    }
    return list;
  },

  mutate(input, api) {
    const { rng } = api;
    const out = { ...input };
    const r = rng.next();
    if (r < 0.06) out.p = rng.int(PASSWORDS.length);
    else if (r < 0.09) out.enc = rng.int(3);
    else if (r < 0.12) out.via = rng.int(2);
    else if (r < 0.2 && structured.length) out.s = rng.pick(structured);
    else out.s = api.mutateString(input.s, api.corpusStrings().map((c) => c.s));
    return out;
  },

  async run(input, api) {
    const s = input.s;
    const pw = pwValue(input);

    // needsRehash: synchronous; a boolean or an error with a code.
    let nrInvalid = false;
    try {
      const r = kdf.needsRehash(s);
      if (typeof r !== 'boolean') throw api.fail('needsRehash-type', `needsRehash returned ${typeof r}`);
    } catch (e) {
      if (e && e.kind) throw e;
      if (!codeOf(e)) throw api.fail('no-code', `needsRehash threw an error without a string code: ${e && e.stack}`);
      nrInvalid = e.code === 'ERR_KDF_INVALID_HASH';
    }

    // verify: must not throw synchronously; resolves to a boolean or rejects with a code.
    const opts = { limits: LIMITS };
    const before = input.via === 1 ? null : pool.stats().submitted;
    let promise;
    try {
      promise = input.via === 1 ? kdf.verify(s, pw, opts) : pool.verify(s, pw, opts);
    } catch (e) {
      throw api.fail('sync-throw', `verify threw synchronously instead of rejecting: ${e && e.stack}`);
    }
    let result; let error = null;
    try { result = await promise; } catch (e) { error = e; }
    if (error) {
      if (!codeOf(error)) throw api.fail('no-code', `verify rejected with an error without a string code: ${error && error.stack}`);
      const vInvalid = error.code === 'ERR_KDF_INVALID_HASH';
      // README: malformed and over-limit strings are refused before any work, nothing queued.
      if (before !== null && (vInvalid || error.code === 'ERR_KDF_HASH_LIMIT') && pool.stats().submitted !== before) {
        throw api.fail('work-before-refusal', `verify queued work for a string it then refused with ${error.code}: ${error.message}`);
      }
      if (vInvalid && !nrInvalid) {
        api.note('verify-invalid-but-needsRehash-ok', s);
        throw api.fail('parser-disagreement', `verify says malformed (${error.message}), needsRehash does not`);
      }
      return;
    }
    if (typeof result !== 'boolean') throw api.fail('verify-type', `verify resolved to ${typeof result}`);
    if (nrInvalid) throw api.fail('parser-disagreement', `needsRehash says malformed, verify resolved to ${result}`);
    if (!result) return;
    const pIndex = input.p % PASSWORDS.length;
    const mine = produced.get(pIndex) || [];
    const m = meaning(s);
    if (!mine.some((o) => sameMeaning(m, o.meaning, true))) {
      throw api.fail('forged-true', `verify returned true for a string not produced from this password (password #${pIndex})`,
        { meaning: m && { fam: m.fam, params: m.params, salt: m.salt.toString('hex'), hash: m.hash.toString('hex') } });
    }
    if (producedSet.has(s)) return;
    if (mine.some((o) => sameMeaning(m, o.meaning, false))) api.note('accepted-variant', s); // same meaning, other spelling
    else {
      api.note('accepted-truncated-tag', s); // scrypt/PBKDF2 prefix property
      // passlib's $pbkdf2[-sha*]$<rounds>$ form is documented as "hash of the digest's length".
      const passlib = /^\$pbkdf2(-sha1|-sha256|-sha512)?\$\d/.test(s);
      const size = { 'pbkdf2-sha1': 20, 'pbkdf2-sha256': 32, 'pbkdf2-sha512': 64 }[m.fam];
      if (passlib && m.hash.length !== size) {
        throw api.fail('lenient-parse', `verify accepted a passlib PBKDF2 string whose hash is ${m.hash.length} bytes, not the digest's ${size} (README: "hash of the digest's length")`);
      }
    }
  },

  async teardown() {
    await pool.close();
  },
};
