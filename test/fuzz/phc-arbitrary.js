'use strict';

// fast-check arbitrary for structurally plausible stored hashes (PHC argon2,
// scrypt, PBKDF2 in both forms, bcrypt), parameters near the limits.
//   node test/fuzz/phc-arbitrary.js <seed> <count>  -> JSON array on stdout
// The verify target samples it once at setup, in a separate process.

const fc = require('fast-check');

// fast-check: structurally plausible stored hashes with parameters near the
// limits, for the parts of the parsers that random edits rarely reach.
const NUMS = fc.oneof(fc.constantFrom('0', '1', '2', '4', '8', '16', '17', '31', '32', '64', '256', '512', '513', '1024', '2000', '2001',
  '4294967295', '4294967296', '9007199254740993', '01', '-1', '1e3', ''), fc.nat().map(String));
const B64S = fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('base64').replace(/=+$/, ''));
const B64ANY = fc.oneof(B64S, B64S.map((x) => x.replace(/\+/g, '.')), B64S.map((x) => x + '='), fc.string({ maxLength: 30 }));
const KV = (keys) => fc.array(fc.tuple(fc.constantFrom(...keys), NUMS), { maxLength: 5 }).map((a) => a.map(([k, v]) => `${k}=${v}`).join(','));
const PHC = fc.oneof(
  fc.tuple(fc.constantFrom('argon2id', 'argon2i', 'argon2d', 'argon2'), fc.constantFrom('', 'v=19$', 'v=16$', 'v=18$', 'v=019$'),
    KV(['m', 't', 'p', 'data', 'keyid']), B64ANY, B64ANY).map(([id, v, kv, salt, hash]) => `$${id}$${v}${kv}$${salt}$${hash}`),
  fc.tuple(KV(['ln', 'r', 'p']), B64ANY, B64ANY).map(([kv, salt, hash]) => `$scrypt$${kv}$${salt}$${hash}`),
  fc.tuple(fc.constantFrom('pbkdf2', 'pbkdf2-sha1', 'pbkdf2-sha256', 'pbkdf2-sha512', 'pbkdf2-sha384'),
    fc.oneof(NUMS, KV(['i', 'l'])), B64ANY, B64ANY).map(([id, r, salt, hash]) => `$${id}$${r}$${salt}$${hash}`),
  fc.tuple(fc.constantFrom('2a', '2b', '2y', '2x', '2'), fc.constantFrom('04', '05', '4', '31', '32', '99', '00'),
    fc.stringMatching(/^[./A-Za-z0-9]{20,56}$/)).map(([v, c, rest]) => `$${v}$${c}$${rest}`),
);


module.exports = { PHC };

if (require.main === module) {
  const seed = Number(process.argv[2] || 1) | 0;
  const count = Number(process.argv[3] || 1000);
  process.stdout.write(JSON.stringify(fc.sample(PHC, { seed, numRuns: count })));
}
