'use strict';

// Argon2id, one operation at a time, side by side in one run: kdfpool,
// npm argon2, @node-rs/argon2 and libsodium (sodium-native). Rounds are
// interleaved (the order rotates each round) so that drift in CPU clock or
// machine load hits every implementation alike. Prints medians and the
// ratio of each to kdfpool (> 1 means slower than kdfpool).
//
//   node bench/argon2.js [rounds]      (default 25 rounds, after 3 warm-up)

const crypto = require('node:crypto');
const kdf = require('..');
const npmArgon2 = require('argon2');
const nodeRs = require('@node-rs/argon2');
const sodium = require('sodium-native');

const ROUNDS = Math.max(20, Number(process.argv[2]) || 25);
const WARMUP = 3;

const CASES = [
  { memory: 19456, passes: 2 },  // OWASP's first recommendation
  { memory: 65536, passes: 3 },  // RFC 9106's second recommendation (p=1 here)
];

function implementations({ memory, passes }) {
  const message = Buffer.from('correct horse battery staple');
  const nonce = crypto.randomBytes(16);
  const tagLength = 32;
  return [
    {
      name: 'kdfpool',
      run: () => kdf.argon2('argon2id', { message, nonce, parallelism: 1, tagLength, memory, passes }),
    },
    {
      name: 'argon2 (npm)',
      run: () => npmArgon2.hash(message, {
        raw: true, type: npmArgon2.argon2id, memoryCost: memory, timeCost: passes,
        parallelism: 1, hashLength: tagLength, salt: nonce,
      }),
    },
    {
      name: '@node-rs/argon2',
      run: () => nodeRs.hashRaw(message, {
        algorithm: nodeRs.Algorithm.Argon2id, memoryCost: memory, timeCost: passes,
        parallelism: 1, outputLen: tagLength, salt: nonce,
      }),
    },
    {
      name: 'libsodium (async)',
      run: async () => {
        const out = Buffer.alloc(tagLength);
        await sodium.crypto_pwhash_async(out, message, nonce, passes, memory * 1024,
          sodium.crypto_pwhash_ALG_ARGON2ID13);
        return out;
      },
    },
  ];
}

async function time(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

async function benchCase(c) {
  const impls = implementations(c);

  // Same bytes from all four, or the comparison means nothing.
  const outputs = await Promise.all(impls.map((i) => i.run()));
  for (let i = 1; i < outputs.length; i++) {
    if (!Buffer.from(outputs[i]).equals(Buffer.from(outputs[0]))) {
      throw new Error(`${impls[i].name} disagrees with ${impls[0].name}`);
    }
  }

  for (let w = 0; w < WARMUP; w++) for (const i of impls) await i.run();

  const samples = impls.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < impls.length; k++) {
      const j = (r + k) % impls.length;
      samples[j].push(await time(impls[j].run));
    }
  }

  const medians = samples.map(median);
  const base = medians[0];
  console.log(`\nargon2id m=${c.memory} KiB t=${c.passes} p=1, 32-byte tag, 16-byte salt; `
    + `median of ${ROUNDS} interleaved single ops`);
  console.log(`${'implementation'.padEnd(20)}${'median ms'.padStart(11)}${'min ms'.padStart(9)}`
    + `${'vs kdfpool'.padStart(12)}`);
  impls.forEach((impl, k) => {
    console.log(`${impl.name.padEnd(20)}${medians[k].toFixed(2).padStart(11)}`
      + `${Math.min(...samples[k]).toFixed(2).padStart(9)}${`${(medians[k] / base).toFixed(2)}x`.padStart(12)}`);
  });
  return Object.fromEntries(impls.map((impl, k) => [impl.name, medians[k]]));
}

async function main() {
  console.log(`node ${process.version}, ${require('node:os').cpus()[0].model}, `
    + `${require('node:os').availableParallelism()} CPUs; kdfpool threads=${kdf.stats().threads}`);
  const results = [];
  for (const c of CASES) results.push({ c, medians: await benchCase(c) });

  console.log('\nTargets: kdfpool faster than npm argon2; no slower than 1.2x @node-rs/argon2.');
  for (const { c, medians } of results) {
    const ours = medians.kdfpool;
    const npmOk = ours < medians['argon2 (npm)'];
    const rsRatio = ours / medians['@node-rs/argon2'];
    console.log(`  m=${c.memory} t=${c.passes}: vs npm argon2 ${npmOk ? 'faster' : 'NOT faster'}; `
      + `kdfpool / @node-rs = ${rsRatio.toFixed(2)} ${rsRatio <= 1.2 ? '(ok)' : '(over 1.2)'}`);
  }
  console.log(`\narena after the run: ${JSON.stringify(kdf.stats().arena)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
