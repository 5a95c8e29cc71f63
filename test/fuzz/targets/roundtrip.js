'use strict';

// Target `roundtrip`: fast-check-generated *valid* hash() options (cheap
// costs) and passwords. Properties, for each:
//   phc = await hash(pw, opts)                  resolves to a string
//   verify(phc, pw) === true, verify(phc, other) === false
//   needsRehash(phc, opts) === false            (its own target)
//   needsRehash(phc, rehashTarget(phc, opts with one cost raised)) === true
// (The target with one cost raised may still cost less than phc, by the
// pool's model: Argon2 with more lanes rounds its memory down to 4 blocks
// a lane. needsRehash against it is then false, never a downgrade; the
// rehash due is against rehashTarget, which keeps every cost of phc.)
// An input is { s: seed }; the options are fc.sample(OPTIONS, { seed: s }).

const fc = require('fast-check');
const kdf = require('../../..');

const PASSWORD = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.uint8Array({ maxLength: 100 }).map((a) => Buffer.from(a)));
const SALT = fc.option(fc.integer({ min: 8, max: 64 }), { nil: undefined });
const OPTIONS = fc.oneof(
  fc.record({ algorithm: fc.constantFrom('argon2id', 'argon2i', 'argon2d'), memory: fc.integer({ min: 8, max: 256 }),
    passes: fc.integer({ min: 1, max: 3 }), parallelism: fc.integer({ min: 1, max: 4 }),
    tagLength: fc.option(fc.integer({ min: 4, max: 128 }), { nil: undefined }), saltLength: SALT })
    .map((o) => ({ ...o, memory: Math.max(o.memory, 8 * o.parallelism) })),
  fc.record({ algorithm: fc.constant('scrypt'), ln: fc.integer({ min: 1, max: 8 }), r: fc.integer({ min: 1, max: 8 }),
    p: fc.integer({ min: 1, max: 3 }), tagLength: fc.option(fc.integer({ min: 10, max: 128 }), { nil: undefined }), saltLength: SALT }),
  fc.record({ algorithm: fc.constantFrom('pbkdf2-sha256', 'pbkdf2-sha512'), iterations: fc.integer({ min: 1, max: 300 }), saltLength: SALT }),
  fc.record({ algorithm: fc.constant('bcrypt'), cost: fc.constantFrom(4, 5) }),
).map((o) => { const c = {}; for (const [k, v] of Object.entries(o)) if (v !== undefined) c[k] = v; return c; });

const COST_KEY = { argon2id: 'passes', argon2i: 'memory', argon2d: 'parallelism', scrypt: 'r', 'pbkdf2-sha256': 'iterations', 'pbkdf2-sha512': 'iterations', bcrypt: 'cost' };

let pool;

module.exports = {
  name: 'roundtrip',
  async setup() {
    pool = kdf.createPool({ name: 'fzr', threads: 1, priority: 'normal', maxQueue: 1024 });
  },
  async seeds() { return Array.from({ length: 16 }, (_, i) => ({ s: i + 1 })); },
  mutate(input, api) { return { s: api.rng.bool(0.5) ? input.s ^ (1 << api.rng.int(30)) : api.rng.int(2 ** 31) }; },
  async run(input, api) {
    let [opts] = fc.sample(OPTIONS, { seed: input.s, numRuns: 1 });
    const [pw] = fc.sample(PASSWORD, { seed: input.s ^ 0x5bd1e995, numRuns: 1 });
    const other = Buffer.concat([Buffer.from(pw), Buffer.from('!')]);
    if (opts.algorithm === 'bcrypt' && Buffer.from(pw).length > 72) {
      // Refused by default (bcrypt would ignore the rest); truncate: true accepts the cut.
      const code = await pool.hash(pw, opts).then(() => 'resolved', (e) => e && e.code);
      if (code !== 'ERR_KDF_PASSWORD_TOO_LONG') throw api.fail('bcrypt-long', `hash(${Buffer.from(pw).length} bytes, bcrypt) gave ${code}`);
      opts = { ...opts, truncate: true };
    }
    const desc = JSON.stringify(opts);
    let phc;
    try { phc = await pool.hash(pw, opts); } catch (e) {
      throw api.fail('hash-refused', `hash(${desc}) rejected valid options: ${e && e.code} ${e && e.message}`);
    }
    if (typeof phc !== 'string') throw api.fail('result-type', `hash resolved to ${typeof phc}`);
    const [good, bad] = await Promise.all([pool.verify(phc, pw), pool.verify(phc, other)]);
    // bcrypt ignores bytes after the 72nd: "other" differs only at the end.
    const longBcrypt = opts.algorithm === 'bcrypt' && Buffer.from(pw).length >= 72;
    if (good !== true) throw api.fail('roundtrip-false', `verify(hash(pw, ${desc}), pw) = ${good}: ${phc}`);
    if (bad !== false && !longBcrypt) throw api.fail('roundtrip-true', `verify(hash(pw, ${desc}), other) = ${bad}: ${phc}`);
    let nr;
    try { nr = kdf.needsRehash(phc, opts); } catch (e) { throw api.fail('rehash-throws', `needsRehash(${phc}, ${desc}) threw ${e.code}: ${e.message}`); }
    if (nr !== false) throw api.fail('rehash-own', `needsRehash(${phc}, ${desc}) = ${nr}, want false (its own options)`);
    const key = COST_KEY[opts.algorithm];
    const changed = { ...opts, [key]: (opts[key] || (key === 'memory' ? 8 : 1)) + (key === 'memory' ? 8 * (opts.parallelism || 1) : 1) };
    if (key === 'parallelism') changed.memory = Math.max(opts.memory || 8, 8 * changed.parallelism);
    if (key === 'cost' && changed.cost > 31) changed.cost = 4;
    let nr2;
    let next;
    try {
      next = kdf.rehashTarget(phc, changed);
      nr2 = kdf.needsRehash(phc, next);
    } catch (e) { throw api.fail('rehash-throws', `needsRehash(${phc}, rehashTarget(${JSON.stringify(changed)})) threw ${e.code}: ${e.message}`); }
    if (nr2 !== true) throw api.fail('rehash-changed', `needsRehash(${phc}, ${JSON.stringify(next)}) = ${nr2}, want true (${key} raised)`);
  },
  async teardown() { await pool.close(); },
};
