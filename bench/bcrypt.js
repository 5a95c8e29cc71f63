'use strict';

// bcrypt at cost 10, one operation at a time, side by side in one run:
// kdfpool (kdf.hash / kdf.verify), npm bcrypt (hash / compare, async) and
// bcryptjs (hash / compare, async). Rounds are interleaved, the order
// rotating each round, so drift in CPU clock or load hits all alike.
// Prints medians and the ratio of each to npm bcrypt (< 1: faster than npm bcrypt).
//
//   node bench/bcrypt.js [rounds] [cost]     (default 21 rounds after 2 warm-up, cost 10)

const kdf = require('..');
const npmBcrypt = require('bcrypt');
const bcryptjs = require('bcryptjs');

const ROUNDS = Math.max(15, Number(process.argv[2]) || 21);
const COST = Number(process.argv[3]) || 10;
const WARMUP = 2;
const PASSWORD = 'correct horse battery staple';

async function main() {
  const ours = await kdf.hash(PASSWORD, { algorithm: 'bcrypt', cost: COST });
  const theirs = await npmBcrypt.hash(PASSWORD, COST);

  const impls = [
    { name: 'kdfpool hash', group: 'hash', run: () => kdf.hash(PASSWORD, { algorithm: 'bcrypt', cost: COST }) },
    { name: 'bcrypt (npm) hash', group: 'hash', ref: true, run: () => npmBcrypt.hash(PASSWORD, COST) },
    { name: 'bcryptjs hash', group: 'hash', run: () => bcryptjs.hash(PASSWORD, COST) },
    { name: 'kdfpool verify', group: 'verify', run: () => kdf.verify(theirs, PASSWORD) },
    { name: 'bcrypt (npm) compare', group: 'verify', ref: true, run: () => npmBcrypt.compare(PASSWORD, ours) },
    { name: 'bcryptjs compare', group: 'verify', run: () => bcryptjs.compare(PASSWORD, ours) },
  ];
  // Sanity: each verifier accepts the other's hash.
  for (const impl of impls) {
    const r = await impl.run();
    if (impl.group === 'verify' && r !== true) throw new Error(`${impl.name} did not verify`);
  }

  const samples = impls.map(() => []);
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (let k = 0; k < impls.length; k++) {
      const i = (k + round) % impls.length;
      const t0 = process.hrtime.bigint();
      await impls[i].run();
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (round >= WARMUP) samples[i].push(ms);
    }
  }

  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const medians = samples.map(median);
  console.log(`bcrypt cost ${COST}, ${ROUNDS} rounds each (interleaved), node ${process.version}, ` +
    `kdfpool threads ${kdf.stats().threads}`);
  console.log(`${'implementation'.padEnd(24)}${'median ms'.padStart(11)}${'min ms'.padStart(9)}${'vs npm bcrypt'.padStart(15)}`);
  for (const group of ['hash', 'verify']) {
    const ref = medians[impls.findIndex((x) => x.group === group && x.ref)];
    impls.forEach((impl, i) => {
      if (impl.group !== group) return;
      const min = Math.min(...samples[i]);
      console.log(`${impl.name.padEnd(24)}${medians[i].toFixed(2).padStart(11)}${min.toFixed(2).padStart(9)}` +
        `${(medians[i] / ref).toFixed(3).padStart(14)}x`);
    });
  }
  const ratio = (a, b) => medians[impls.findIndex((x) => x.name === a)] / medians[impls.findIndex((x) => x.name === b)];
  const worst = Math.max(ratio('kdfpool hash', 'bcrypt (npm) hash'), ratio('kdfpool verify', 'bcrypt (npm) compare'));
  console.log(`kdfpool / npm bcrypt (worst of hash, verify): ${worst.toFixed(3)}x ` +
    `${worst <= 1.1 ? '(within 1.1x)' : '(NOT within 1.1x)'}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
