'use strict';

// The cost model of a stored hash: how much work and memory verifying it
// takes, from every parameter (the hash length and the password's length
// included), before any of it is done. verify() refuses, and hash() will not
// write, what costs more than the limits `work` and `memory` (limits.js).
//
// One model, the pool's own: the main term of every scheme is the native
// prediction (native.predictCost -> kdf_<alg>_cost_ns, the per-variant
// tables in src/kdf/), for the CPU variant that would run the job now. A
// CPU without SHA extensions pays its PBKDF2 iterations at the portable or
// AVX2 figure, not the SHA-NI one. The same figures give the pool's retry
// hints and fair shares. Work is in units of 1 ms of that prediction (a
// pool thread's time with the pool saturated).
//
// This file adds only what the native prediction leaves out, priced in its
// own figures: a compression of the digest = one PBKDF2-HMAC iteration of
// the running variant (an iteration is two compressions, but the native
// figure is for interleaved chains; these run as one chain, which on SHA-NI
// takes about twice as long); an Argon2 BLAKE2b compression = one block:
//
//   PBKDF2   + B * (ceil((s + 13) / bs) + 2) iterations  (the salt, per output block)
//            + ceil(pw / bs) iterations                  (the password, hashed once per job)
//            B = ceil(L / digest length), bs = the digest's block size
//   scrypt   + ceil(p*128*r / 32) * (2 + ceil((s + 4) / 64)) compressions   (PBKDF2 in)
//            + ceil(L / 32) * (p*128*r / 64 + 3) compressions              (PBKDF2 out)
//            + 2 * ceil(pw / 64) compressions                               (the password, once per PBKDF2)
//   Argon2   + 64 * p + ceil(L / 32) + ceil((s + d + pw) / 128) + 2 blocks (H0, H' over the lanes' first blocks)
//   bcrypt   nothing: it reads at most 72 bytes of the password.
// plus, for scrypt and Argon2, 0.3 µs per KiB of their memory: the wipe
// after every job (~0.1 µs/KiB) and faulting in a worker's arena when it
// must grow (far slower on a loaded machine, which no fixed figure bounds:
// the `memory` limit does). Memory is what the native code reserves.
//
// s, L, d, pw: salt, hash, associated-data and password lengths in bytes.

const native = require('../native');
const errors = require('../errors');

const { algorithms } = native.constants;

const DIGESTS = Object.freeze({
  __proto__: null,
  sha1: { size: 20, block: 64 },
  sha256: { size: 32, block: 64 },
  sha384: { size: 48, block: 128 },
  sha512: { size: 64, block: 128 },
});
const OTHER_DIGEST = { size: 20, block: 64 }; // smallest output: most blocks

// µs per KiB of scrypt's or Argon2's memory: the wipe and the arena's faults.
const MEMORY_US_PER_KIB = 0.3;
const NS_PER_UNIT = 1e6;
// The sizing job's salt: the minimum argon2 (8) and bcrypt (16) accept; no
// prediction reads it (its length is priced here).
const SIZING_SALT = Buffer.alloc(16);
// Enough units that whole-ns rounding in the native prediction is negligible.
const SAMPLE_ITERATIONS = 1e6;

// [ns, memory bytes] the pool predicts for one job, on the variant that
// would run it now. Parameters the KDF itself refuses (possible only once
// the limits are raised far: scrypt N = 2^60) could never verify.
function predict(alg, inputs, numbers, name, outlen) {
  const result = native.predictCost(alg, inputs, numbers, name, outlen);
  if (!errors.isRecord(result)) return result;
  // The parameters refused: the stored string is what is wrong. Anything
  // else (out of memory while asking) is the error it is, not the hash's.
  if (result.status !== native.constants.status.EINVAL) throw errors.fromRecord(result);
  throw errors.invalidHash(`the KDF refuses its parameters (${errors.fromRecord(result).message})`);
}

// ns of one PBKDF2-HMAC iteration of one output block with `digest`.
function pbkdf2IterationNs(digest) {
  const size = (DIGESTS[digest] || OTHER_DIGEST).size;
  return predict(algorithms.PBKDF2, ['', ''], [SAMPLE_ITERATIONS, 0], digest, size)[0] / SAMPLE_ITERATIONS;
}

function pbkdf2Cost({ digest, iterations, saltBytes, hashBytes, passwordBytes = 0 }) {
  const info = DIGESTS[digest] || OTHER_DIGEST;
  const outlen = Math.max(1, hashBytes);
  const [main] = predict(algorithms.PBKDF2, ['', ''], [iterations, 0], digest, outlen);
  const blocks = Math.ceil(outlen / info.size);
  const extraIterations = blocks * (Math.ceil((saltBytes + 13) / info.block) + 2) +
    Math.ceil(passwordBytes / info.block);
  return { ns: main + extraIterations * pbkdf2IterationNs(digest), memory: 0 };
}

function scryptCost({ N, r, p, saltBytes, hashBytes, passwordBytes = 0 }) {
  const [main, memory] = predict(algorithms.SCRYPT, ['', ''], [N, r, p, Number.MAX_SAFE_INTEGER], undefined, 32);
  const b = p * 128 * r;
  const compressions = Math.ceil(b / 32) * (2 + Math.ceil((saltBytes + 4) / 64)) +
    Math.ceil(hashBytes / 32) * (b / 64 + 3) + 2 * Math.ceil(passwordBytes / 64);
  return { ns: main + compressions * pbkdf2IterationNs('sha256'), memory };
}

function argon2Cost({ memory, passes, lanes, saltBytes, hashBytes, dataBytes = 0, passwordBytes = 0 }) {
  const numbers = [2, 0x13, lanes, memory, passes];
  const [main, reserved] = predict(algorithms.ARGON2, ['', SIZING_SALT, undefined, undefined], numbers, undefined, 32);
  const [oneBlock] = predict(algorithms.ARGON2, ['', SIZING_SALT, undefined, undefined], [2, 0x13, 1, 8, SAMPLE_ITERATIONS],
    undefined, 32);
  const blockNs = oneBlock / (8 * SAMPLE_ITERATIONS);
  const extra = 64 * lanes + Math.ceil(hashBytes / 32) + Math.ceil((saltBytes + dataBytes + passwordBytes) / 128) + 2;
  return { ns: main + extra * blockNs, memory: reserved };
}

function bcryptCost({ cost }) {
  const [ns] = predict(algorithms.BCRYPT, ['', SIZING_SALT], [cost, 'b'.charCodeAt(0)], undefined, 23);
  return { ns, memory: 0 };
}

/**
 * { work, memory } of a job description `c`: { kind, ...its parameters,
 * saltBytes, hashBytes[, dataBytes][, passwordBytes] } (the parameters as
 * parse.js names them: argon2 memory (KiB) / passes / lanes; scrypt N / r /
 * p; pbkdf2 digest / iterations; bcrypt cost). `work` in units (1 ms of the
 * pool's prediction on the variant that runs, not rounded), `memory` in
 * bytes the job reserves (0: nothing from the pool's budget).
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
  const ns = e.ns + (MEMORY_US_PER_KIB * 1000 * e.memory) / 1024;
  return { work: ns / NS_PER_UNIT, memory: e.memory };
}

module.exports = { estimateCost, pbkdf2IterationNs, MEMORY_US_PER_KIB };
