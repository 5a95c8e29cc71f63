'use strict';

// The cost model of a stored hash: how much work and memory verifying it
// takes, from every parameter (the hash length included), before any of it
// is done. verify() refuses, and hash() will not write, what costs more than
// the limits `work` and `memory` (limits.js).
//
// Work is in units of about 1 ms of one reference x86-64 core with SHA-NI.
// The per-primitive costs below were measured on such a core (the project's
// CI machine, quiet) and rounded up: the model may overestimate, never
// underestimate. Inputs not chosen by the stored hash (the password's
// length) are left out: they are hashed once per job.
//
//   PBKDF2   B * I * c_it  +  B * (ceil((s + 13) / bs) + 2) * c_it / 2
//            B = ceil(L / digest length) output blocks, I iterations;
//            c_it per iteration and block: SHA-1, SHA-256 0.115 µs;
//            SHA-384, SHA-512 0.375 µs; any other digest 0.5 µs; bs = the
//            digest's block size; the second term hashes the salt.
//   scrypt   0.173 µs * N * r * p                            (ROMix)
//            + 0.057 µs * ceil(p*128*r / 32) * (2 + ceil((s + 4) / 64))
//            + 0.057 µs * ceil(L / 32) * (p*128*r / 64 + 3)    (PBKDF2-HMAC-SHA256 in and out)
//            memory 128 * r * (N + p + 2) bytes (the pool's reservation)
//   Argon2   0.172 µs * (m' * t + 64 * p + ceil(L / 32) + ceil((s + d) / 128) + 2)
//            m' = 4p * floor(m / 4p) blocks; memory m' * 1024 bytes
//            (the extra blocks bound H0 and H' over the lanes' first blocks)
//   bcrypt   50 µs * (2^cost + 1)
// plus, for scrypt and Argon2, 0.3 µs per KiB of their memory: the wipe after
// every job (~0.1 µs/KiB) and faulting in a worker's arena when it must grow
// (huge pages zeroed by the kernel; far slower on a loaded machine, which
// no fixed figure bounds: the `memory` limit does).
//
// s, L, d: salt, hash and associated-data lengths in bytes.

// µs per unit of each primitive.
const REFERENCE = Object.freeze({
  pbkdf2Iteration: Object.freeze({ __proto__: null, sha1: 0.115, sha256: 0.115, sha384: 0.375, sha512: 0.375 }),
  pbkdf2IterationOther: 0.5,
  sha256Compression: 0.057,
  scryptRomix: 0.173,
  argon2Block: 0.172,
  bcryptRound: 50,
  memoryKiB: 0.3,
});

const DIGESTS = Object.freeze({
  __proto__: null,
  sha1: { size: 20, block: 64 },
  sha256: { size: 32, block: 64 },
  sha384: { size: 48, block: 128 },
  sha512: { size: 64, block: 128 },
});

const US_PER_UNIT = 1000;

function pbkdf2Cost({ digest, iterations, saltBytes, hashBytes }) {
  const info = DIGESTS[digest] || { size: 20, block: 64 }; // smallest output: most blocks
  const perIteration = REFERENCE.pbkdf2Iteration[digest] || REFERENCE.pbkdf2IterationOther;
  const blocks = Math.max(1, Math.ceil(hashBytes / info.size));
  const saltCompressions = Math.ceil((saltBytes + 13) / info.block) + 2;
  const us = blocks * iterations * perIteration + (blocks * saltCompressions * perIteration) / 2;
  return { us, memory: 0 };
}

function scryptCost({ N, r, p, saltBytes, hashBytes }) {
  const b = p * 128 * r;
  const romix = REFERENCE.scryptRomix * N * r * p;
  const first = Math.ceil(b / 32) * (2 + Math.ceil((saltBytes + 4) / 64));
  const second = Math.ceil(hashBytes / 32) * (b / 64 + 3);
  const us = romix + REFERENCE.sha256Compression * (first + second);
  return { us, memory: 128 * r * (N + p + 2) };
}

function argon2Cost({ memory, passes, lanes, saltBytes, hashBytes, dataBytes = 0 }) {
  const blocks = 4 * lanes * Math.floor(memory / (4 * lanes));
  const extra = 64 * lanes + Math.ceil(hashBytes / 32) + Math.ceil((saltBytes + dataBytes) / 128) + 2;
  return { us: REFERENCE.argon2Block * (blocks * passes + extra), memory: blocks * 1024 };
}

function bcryptCost({ cost }) {
  return { us: REFERENCE.bcryptRound * (2 ** cost + 1), memory: 0 };
}

/**
 * { work, memory } of a job description `c`: { kind, ...its parameters,
 * saltBytes, hashBytes[, dataBytes] } (the parameters as parse.js names
 * them: argon2 memory (KiB) / passes / lanes; scrypt N / r / p; pbkdf2
 * digest / iterations; bcrypt cost). `work` in units (≈ ms on the reference
 * core, not rounded), `memory` in bytes (0: nothing from the pool's budget).
 */
function estimateCost(c) {
  let e;
  switch (c.kind) {
    case 'pbkdf2': e = pbkdf2Cost(c); break;
    case 'scrypt': e = scryptCost(c); break;
    case 'argon2': e = argon2Cost(c); break;
    case 'bcrypt': e = bcryptCost(c); break;
    default: throw new Error(`unreachable: ${c.kind}`);
  }
  const us = e.us + (REFERENCE.memoryKiB * e.memory) / 1024;
  return { work: us / US_PER_UNIT, memory: e.memory };
}

module.exports = { estimateCost, REFERENCE };
