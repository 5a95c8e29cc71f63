'use strict';

// Part 1: how long verify() takes to refuse a hostile stored hash (m = 4 GiB,
// t = 1000: hours of work and more memory than the pool has) with
// ERR_KDF_HASH_LIMIT. The refusal happens before anything is queued, so it
// should cost microseconds. Also shown: a malformed string
// (ERR_KDF_INVALID_HASH), and one real verify of OWASP's default argon2id for
// scale.
//
// Part 2: what the default limits still let through. For each family, the
// most expensive setting people recommend (OWASP, RFC 9106, passlib) and the
// most expensive strings the default `work` / `memory` limits still accept
// (found by asking verify() itself, with an aborted signal so nothing runs),
// timed side by side, interleaved, in one run; with the cost model's
// estimate (work units: 1 ms each of the pool's prediction on this CPU) and the ratios.
//
//   node bench/hostile.js [iterations] [--reps=N] [--no-cost]   (defaults 2000, 3)

const kdf = require('..');

const args = process.argv.slice(2);
const N = Math.max(100, Number(args.find((a) => !a.startsWith('--'))) || 2000);
const REPS = Math.max(1, Number((args.find((a) => a.startsWith('--reps=')) || '').slice(7)) || 3);
const COST = !args.includes('--no-cost');
const HOSTILE = '$argon2id$v=19$m=4194304,t=1000,p=1$c29tZXNhbHRzb21lc2FsdA$' +
  'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';
const MALFORMED = '$argon2id$v=19$m=19456,t=2,p=1,t=2$c29tZXNhbHRzb21lc2FsdA$' +
  'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function refusalTimes(phc, code) {
  const times = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    try {
      await kdf.verify(phc, 'password');
      throw new Error('not refused');
    } catch (err) {
      if (err.code !== code) throw err;
    }
    times.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  return times;
}

async function main() {
  const before = kdf.stats().submitted;
  await refusalTimes(HOSTILE, 'ERR_KDF_HASH_LIMIT'); // warm-up
  const hostile = await refusalTimes(HOSTILE, 'ERR_KDF_HASH_LIMIT');
  const malformed = await refusalTimes(MALFORMED, 'ERR_KDF_INVALID_HASH');
  const queued = kdf.stats().submitted - before;

  const real = await kdf.hash('password');
  const reals = [];
  for (let i = 0; i < 15; i++) {
    const t0 = process.hrtime.bigint();
    await kdf.verify(real, 'password');
    reals.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }

  const row = (name, xs) => console.log(`${name.padEnd(52)}${median(xs).toFixed(1).padStart(10)} µs` +
    `   p99 ${[...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99) - 1].toFixed(1)} µs`);
  console.log(`verify() refusals, median of ${N} (node ${process.version})`);
  row('hostile m=4194304,t=1000 -> ERR_KDF_HASH_LIMIT', hostile);
  row('malformed (duplicate t) -> ERR_KDF_INVALID_HASH', malformed);
  row('for scale: a real verify, argon2id m=19456,t=2', reals);
  console.log(`jobs queued by the ${2 * N} refusals: ${queued}`);
  if (COST) await costSideBySide();
}

// ---------------------------------------------------------------- part 2

const enc = (n, byte) => Buffer.alloc(n, byte).toString('base64').replace(/=+$/, '');
const aenc = (n, byte) => enc(n, byte).replace(/\+/g, '.');
const SALT = enc(16, 0x53);
const ASALT = aenc(16, 0x53);
const BCRYPT_TAIL = 'XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka';

// 'accepted' or the refusing limit's name, without running anything.
async function verdict(phc) {
  try {
    await kdf.verify(phc, 'password', { signal: AbortSignal.abort() });
  } catch (err) {
    if (err.name === 'AbortError') return 'accepted';
    if (err.code === 'ERR_KDF_HASH_LIMIT') return err.limit;
    throw err;
  }
  throw new Error('neither refused nor aborted');
}

// The cost model's estimate (work units, rounded up), from the refusal
// under a work limit of 1.
async function estimate(phc) {
  try {
    await kdf.verify(phc, 'password', { signal: AbortSignal.abort(), limits: { work: 1 } });
  } catch (err) {
    if (err.limit === 'work') return err.value;
  }
  return 1;
}

// Largest x in [lo, hi] whose string the default limits accept (monotone).
async function largestAccepted(make, lo, hi) {
  if (await verdict(make(lo)) !== 'accepted') throw new Error(`not even ${make(lo)}`);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (await verdict(make(mid)) === 'accepted') lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

async function costSideBySide() {
  const L = 1024; // the longest hash the default hashLength allows
  const pbkdf2Sha1 = (i) => `$pbkdf2-sha1$i=${i},l=${L}$${SALT}$${enc(L, 0x48)}`;
  const pbkdf2Sha512 = (i) => `$pbkdf2-sha512$i=${i},l=${L}$${SALT}$${enc(L, 0x48)}`;
  const pbkdf2Sha256 = (i) => `$pbkdf2-sha256$${i}$${ASALT}$${aenc(32, 0x48)}`;
  const scryptR = (r) => `$scrypt$ln=1,r=${r},p=16$${SALT}$${enc(L, 0x48)}`;
  const scryptP = (p) => `$scrypt$ln=17,r=8,p=${p}$${SALT}$${enc(L, 0x48)}`;
  const scryptN = (ln) => `$scrypt$ln=${ln},r=8,p=1$${SALT}$${enc(L, 0x48)}`;
  const argon2T = (t) => `$argon2id$v=19$m=262144,t=${t},p=1$${SALT}$${enc(L, 0x48)}`;
  const argon2T16 = (t) => `$argon2id$v=19$m=262144,t=${t},p=16$${SALT}$${enc(L, 0x48)}`;
  const bcrypt = (c) => `$2b$${String(c).padStart(2, '0')}$${BCRYPT_TAIL}`;

  const rows = [
    { family: 'pbkdf2', rec: true, name: 'PBKDF2-SHA1 1,300,000 (OWASP), 20 B', phc: `$pbkdf2$1300000$${ASALT}$${aenc(20, 0x48)}` },
    { family: 'pbkdf2', name: 'PBKDF2-SHA1 max i, 1024 B', make: pbkdf2Sha1, range: [1, 10000000] },
    { family: 'pbkdf2', name: 'PBKDF2-SHA512 max i, 1024 B', make: pbkdf2Sha512, range: [1, 10000000] },
    { family: 'pbkdf2', name: 'PBKDF2-SHA256 max i, 32 B', make: pbkdf2Sha256, range: [1, 10000000] },
    { family: 'scrypt', rec: true, name: 'scrypt 2^17/8/1 (OWASP), 32 B', phc: `$scrypt$ln=17,r=8,p=1$${SALT}$${enc(32, 0x48)}` },
    { family: 'scrypt', name: 'scrypt ln=1,p=16, max r, 1024 B', make: scryptR, range: [1, 1 << 20] },
    { family: 'scrypt', name: 'scrypt ln=17,r=8, max p, 1024 B', make: scryptP, range: [1, 16] },
    { family: 'scrypt', name: 'scrypt r=8,p=1, max N, 1024 B', make: scryptN, range: [1, 30] },
    { family: 'argon2', rec: true, name: 'argon2id m=65536,t=3,p=4 (RFC 9106), 32 B', phc: `$argon2id$v=19$m=65536,t=3,p=4$${SALT}$${enc(32, 0x48)}` },
    { family: 'argon2', name: 'argon2id m=262144,p=1, max t, 1024 B', make: argon2T, range: [1, 64] },
    { family: 'argon2', name: 'argon2id m=262144,p=16, max t, 1024 B', make: argon2T16, range: [1, 64] },
    { family: 'bcrypt', rec: true, name: 'bcrypt 12 (OWASP max, passlib)', phc: bcrypt(12) },
    { family: 'bcrypt', name: 'bcrypt max cost', make: bcrypt, range: [4, 31] },
  ];
  for (const row of rows) {
    if (row.make) {
      const x = await largestAccepted(row.make, ...row.range);
      row.phc = row.make(x);
      row.name = row.name.replace(/max (\w+)/, `max $1=${x}`);
    }
    row.units = await estimate(row.phc);
    row.times = [];
  }
  // Interleaved, one at a time: each string sees the same machine.
  await kdf.verify(rows[0].phc, 'password');
  for (let rep = 0; rep < REPS; rep++) {
    for (const row of rows) {
      const t0 = process.hrtime.bigint();
      const ok = await kdf.verify(row.phc, 'password');
      row.times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (ok) throw new Error('a fake hash verified');
    }
  }
  for (const row of rows) row.ms = median(row.times);
  const recOf = (family) => rows.find((r) => r.rec && r.family === family);
  const top = rows.filter((r) => r.rec).reduce((a, b) => (b.ms > a.ms ? b : a));
  const topUnits = Math.max(...rows.filter((r) => r.rec).map((r) => r.units));

  console.log(`\nwhat the default limits accept (work ${600} units, memory 257 MiB), median of ${REPS}, interleaved`);
  console.log(`${'string'.padEnd(44)}${'est units'.padStart(10)}${'ms'.padStart(9)}${'ms/unit'.padStart(9)}` +
    `${'vs family rec'.padStart(15)}${'vs top rec'.padStart(12)}${'est vs top'.padStart(12)}`);
  for (const row of rows) {
    const rec = recOf(row.family);
    console.log(`${row.name.padEnd(44)}${String(row.units).padStart(10)}${row.ms.toFixed(0).padStart(9)}` +
      `${(row.ms / row.units).toFixed(2).padStart(9)}${(row.ms / rec.ms).toFixed(2).padStart(14)}x` +
      `${(row.ms / top.ms).toFixed(2).padStart(11)}x${(row.units / topUnits).toFixed(2).padStart(11)}x`);
  }
  console.log(`top recommended (measured): ${top.name}, ${top.ms.toFixed(0)} ms; ms/unit < 1 means the model ` +
    'overestimates on this machine (conservative)');
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
