'use strict';

// scrypt N=16384 r=8 p=1, 64-byte key, one operation at a time, side by side
// in one run: kdf.scrypt vs crypto.scrypt (promisified), then kdf.scryptSync
// vs crypto.scryptSync. Rounds are interleaved (the order alternates) so
// drift in CPU clock or machine load hits both alike. Both sides get warm-up
// runs first: OpenSSL's first use on a libuv thread is 2-3x slower (fresh
// pages), and so is our first job on a worker before its arena exists.
// Prints medians and the ratio kdf / crypto (< 1 means kdfpool is faster).
//
//   node bench/scrypt.js [rounds]      (default 21 rounds, at least 15)

const crypto = require('node:crypto');
const { promisify } = require('node:util');
const kdf = require('..');

const ROUNDS = Math.max(15, Number(process.argv[2]) || 21);
const WARMUP = 4;
const KEYLEN = 64;
const OPTIONS = { N: 16384, r: 8, p: 1 };

const cryptoScrypt = promisify(crypto.scrypt);
const password = 'correct horse battery staple';
const salt = crypto.randomBytes(16);

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function time(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function compare(label, ours, theirs) {
  const a = await ours();
  const b = await theirs();
  if (!Buffer.from(a).equals(Buffer.from(b))) throw new Error(`${label}: the keys differ`);
  for (let i = 0; i < WARMUP; i++) {
    await ours();
    await theirs();
  }
  const t = { ours: [], theirs: [] };
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      t.ours.push(await time(ours));
      t.theirs.push(await time(theirs));
    } else {
      t.theirs.push(await time(theirs));
      t.ours.push(await time(ours));
    }
  }
  const mo = median(t.ours);
  const mt = median(t.theirs);
  console.log(`${label}`);
  console.log(`  kdfpool  ${mo.toFixed(2).padStart(8)} ms   (min ${Math.min(...t.ours).toFixed(2)})`);
  console.log(`  crypto   ${mt.toFixed(2).padStart(8)} ms   (min ${Math.min(...t.theirs).toFixed(2)})`);
  console.log(`  ratio kdf / crypto = ${(mo / mt).toFixed(3)}`);
  return mo / mt;
}

async function main() {
  console.log(`scrypt N=${OPTIONS.N} r=${OPTIONS.r} p=${OPTIONS.p} keylen=${KEYLEN}, ` +
    `median of ${ROUNDS} interleaved rounds after ${WARMUP} warm-up; node ${process.version}, ` +
    `OpenSSL ${process.versions.openssl}`);
  await compare('async (kdf.scrypt vs promisified crypto.scrypt)',
    () => kdf.scrypt(password, salt, KEYLEN, OPTIONS),
    () => cryptoScrypt(password, salt, KEYLEN, OPTIONS));
  await compare('sync (kdf.scryptSync vs crypto.scryptSync)',
    () => kdf.scryptSync(password, salt, KEYLEN, OPTIONS),
    () => crypto.scryptSync(password, salt, KEYLEN, OPTIONS));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
