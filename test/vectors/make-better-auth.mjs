// Writes test/vectors/better-auth.json: stored hashes made by better-auth's
// own default hasher (better-auth/crypto's hashPassword, which is
// @better-auth/utils/password on Node), for passwords that NFKC changes and
// passwords it leaves alone.
//
//   node test/vectors/make-better-auth.mjs
//
// Each vector: the password given at sign-up, the stored string, `same`
// (other spellings of it with the same NFKC form: better-auth accepts them
// too) and `other` (near misses it refuses). Both lists are checked against
// better-auth's own verifyPassword here, so the file records what
// better-auth itself answers.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hashPassword, verifyPassword } from 'better-auth/crypto';

// Read from node_modules: better-auth's exports map does not list package.json.
const version = (name) => JSON.parse(fs.readFileSync(
  fileURLToPath(new URL(`../../node_modules/${name}/package.json`, import.meta.url)), 'utf8')).version;

const CASES = [
  { password: 'correct horse battery staple', same: [], other: ['correct horse battery stapl', 'Correct horse battery staple'] },
  { password: '', same: [], other: [' '] },
  // Composed and decomposed é: NFKC composes.
  { password: 'caf\u00e9', same: ['cafe\u0301'], other: ['cafe'] },
  // The fi ligature and full-width letters: compatibility forms.
  { password: '\ufb01le-\uff50\uff41\uff53\uff53', same: ['file-pass'], other: ['\ufb01le-pass!'] },
  // Angstrom sign, Kelvin sign, superscript two.
  { password: '\u212b\u212a\u00b2', same: ['\u00c5K2', 'A\u030aK2'], other: ['AK2'] },
  { password: 'p\u00e4ssw\u00f6rd \ud83d\udd11', same: ['pa\u0308ssw\u00f6rd \ud83d\udd11'], other: ['p\u00e4ssw\u00f6rd'] },
  { password: 'x'.repeat(300), same: [], other: ['x'.repeat(299)] },
];

const vectors = [];
for (const c of CASES) {
  const hash = await hashPassword(c.password);
  for (const pw of [c.password, ...c.same]) {
    if (!(await verifyPassword({ hash, password: pw }))) throw new Error(`better-auth refuses ${JSON.stringify(pw)}`);
  }
  for (const pw of c.other) {
    if (await verifyPassword({ hash, password: pw })) throw new Error(`better-auth accepts ${JSON.stringify(pw)}`);
  }
  vectors.push({ password: c.password, hash, same: c.same, other: c.other });
}

const out = {
  description: "Stored hashes written by better-auth's default hasher (hex(salt):hex(key), scrypt N=16384 r=16 p=1, " +
    '64-byte key, the salt hex text as salt, NFKC-normalised password). `same`: other spellings better-auth ' +
    'accepts for that hash; `other`: passwords it refuses. Written by test/vectors/make-better-auth.mjs.',
  source: { 'better-auth': version('better-auth'), '@better-auth/utils': version('@better-auth/utils') },
  vectors,
};
fs.writeFileSync(fileURLToPath(new URL('better-auth.json', import.meta.url)), `${JSON.stringify(out, null, 2)}\n`);
