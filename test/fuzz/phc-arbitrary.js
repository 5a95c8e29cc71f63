'use strict';

// fast-check arbitrary for structurally plausible stored hashes (PHC argon2,
// scrypt, PBKDF2 in both forms, bcrypt, and the other frameworks' formats of
// lib/phc/formats/), parameters near the limits.
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

// Other frameworks' formats: right and wrong prefixes, numbers near the
// limits, hex and padded base64 of plausible and wrong lengths.
const HEX = (min, max) => fc.uint8Array({ minLength: min, maxLength: max }).map((b) => Buffer.from(b).toString('hex'));
const HEXANY = fc.oneof(HEX(0, 80), HEX(8, 72).map((x) => x.toUpperCase()), HEX(1, 40).map((x) => x.slice(1)), fc.string({ maxLength: 20 }));
const PAD64 = fc.uint8Array({ maxLength: 96 }).map((b) => Buffer.from(b).toString('base64'));
const PAD64ANY = fc.oneof(PAD64, PAD64.map((x) => x.replace(/=+$/, '')), PAD64.map((x) => `${x}=`), B64ANY);
const SALTTEXT = fc.oneof(fc.stringMatching(/^[A-Za-z0-9]{0,30}$/), fc.string({ maxLength: 12 }), fc.constant('s\u00e9l'));
const POW2 = fc.oneof(fc.constantFrom('16', '1024', '16384', '32768', '2', '1', '0', '1000', '4294967296'), NUMS);
const u32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const FOREIGN = fc.oneof(
  fc.tuple(HEX(16, 16), HEX(64, 64), fc.constantFrom(':', '::', '')).map(([salt, key, sep]) => `${salt}${sep}${key}`),
  fc.tuple(HEXANY, HEXANY).map(([salt, key]) => `${salt}:${key}`),
  fc.tuple(fc.constantFrom('pbkdf2_sha256', 'pbkdf2_sha1', 'pbkdf2_sha512', 'md5', 'sha1'), NUMS, SALTTEXT, PAD64ANY)
    .map(([id, n, salt, key]) => `${id}$${n}$${salt}$${key}`),
  fc.tuple(POW2, SALTTEXT, NUMS, NUMS, PAD64ANY).map(([n, salt, r, p, key]) => `scrypt$${n}$${salt}$${r}$${p}$${key}`),
  PHC.map((x) => `argon2${x}`),
  fc.tuple(fc.constantFrom('bcrypt$', 'bcrypt_sha256$', '{bcrypt}', '{argon2}', '{argon2@SpringSecurity_v5_8}'), PHC)
    .map(([prefix, x]) => prefix + x),
  fc.tuple(fc.constantFrom('sha1', 'sha256', 'sha512', 'sha384', 'md5', ''), NUMS, SALTTEXT, HEXANY)
    .map(([d, n, salt, key]) => `pbkdf2:${d}:${n}$${salt}$${key}`),
  fc.tuple(POW2, NUMS, NUMS, SALTTEXT, HEXANY).map(([n, r, p, salt, key]) => `scrypt:${n}:${r}:${p}$${salt}$${key}`),
  fc.tuple(fc.constantFrom(0, 1, 2, 3, 0xffffffff), fc.constantFrom(0, 1, 2, 1000, 2 ** 31, 0xffffffff), fc.constantFrom(0, 8, 15, 16, 32, 0xffffffff),
    fc.uint8Array({ maxLength: 80 })).map(([prf, it, sl, rest]) => Buffer.concat([Buffer.from([1]), u32(prf), u32(it), u32(sl), Buffer.from(rest)]).toString('base64')),
  fc.uint8Array({ minLength: 40, maxLength: 56 }).map((b) => Buffer.concat([Buffer.from([0]), Buffer.from(b)]).toString('base64')),
  fc.tuple(fc.constantFrom('pbkdf2', 'pbkdf2@SpringSecurity_v5_8', 'noop', 'MD5', '', 'pbkdf2@x'), HEXANY).map(([id, h]) => `{${id}}${h}`),
  fc.tuple(fc.constantFrom('scrypt', 'scrypt@SpringSecurity_v5_8'), fc.constantFrom('e0801', '100801', '40201', '0e0801', 'E0801', '801', 'e0001', 'ff0801'),
    PAD64ANY, PAD64ANY).map(([id, params, salt, key]) => `{${id}}$${params}$${salt}$${key}`),
);
const STORED = fc.oneof(PHC, FOREIGN);

module.exports = { PHC, FOREIGN, STORED };

if (require.main === module) {
  const seed = Number(process.argv[2] || 1) | 0;
  const count = Number(process.argv[3] || 1000);
  process.stdout.write(JSON.stringify(fc.sample(STORED, { seed, numRuns: count })));
}
