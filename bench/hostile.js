'use strict';

// How long verify() takes to refuse a hostile stored hash (m = 4 GiB,
// t = 1000: hours of work and more memory than the pool has) with
// ERR_KDF_HASH_LIMIT. The refusal happens before anything is queued, so it
// should cost microseconds. Also shown: a malformed string
// (ERR_KDF_INVALID_HASH), and one real verify of OWASP's default argon2id for
// scale.
//
//   node bench/hostile.js [iterations]     (default 2000)

const kdf = require('..');

const N = Math.max(100, Number(process.argv[2]) || 2000);
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
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
