'use strict';

// Smoke suite for every host that runs Node-API addons: Node, Bun, Deno.
// A plain script (no node:test): loads the package root, checks known
// answers for every KDF, interop with npm argon2/bcrypt strings, pool
// saturation, abort, the digests that need the host's OpenSSL, and exit
// with jobs in flight (in a child of the same runtime). Prints one line per
// check and "N passed, N failed"; exits non-zero on any failure.
//   node test/smoke/runtime-smoke.js
//   bun test/smoke/runtime-smoke.js
//   deno run --allow-read --allow-env --allow-ffi --allow-run test/smoke/runtime-smoke.js
// (Deno: --allow-ffi to load a Node-API addon, --allow-run for the exit child.)
// (test/smoke/package.json marks this directory CommonJS, for Deno.)

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const kdf = require(ROOT);

const versions = process.versions;
const RUNTIME = versions.bun ? 'bun' : versions.deno ? 'deno' : 'node';
const RUNTIME_VERSION = versions.bun || versions.deno || process.version;
// Only Node's binary exports OpenSSL (Bun and Deno do not: docs/design.md).
const HOST_HAS_OPENSSL = RUNTIME === 'node';

// ---------------------------------------------------------------- child mode

// Exit with jobs in flight: long jobs on every engine (our SHA layer, the
// host's EVP when there is one, Argon2, scrypt, bcrypt), then process.exit.
if (process.argv.includes('--exit-child')) {
  const swallow = () => {};
  for (let i = 0; i < 2; i++) {
    kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 64, 'sha512').catch(swallow);
    if (HOST_HAS_OPENSSL) kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 32, 'sha3-256').catch(swallow);
    kdf.argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32,
      memory: 65536, passes: 1000 }).catch(swallow);
    kdf.scrypt('pw', 'salt', 32, { N: 2 ** 16, r: 8, p: 64, maxmem: 2 ** 30 }).catch(swallow);
  }
  kdf.hash('pw', { algorithm: 'bcrypt', cost: 20 }).catch(swallow);
  setTimeout(() => process.exit(0), 300);
  return;
}

// ---------------------------------------------------------------- harness

let passed = 0;
let failed = 0;

async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok - ${name}`);
  } catch (err) {
    failed++;
    console.log(`not ok - ${name}\n  ${String((err && err.stack) || err).split('\n').slice(0, 6).join('\n  ')}`);
  }
}

function equal(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

async function rejectsWith(promise, code, what) {
  try {
    await promise;
  } catch (err) {
    equal(err && err.code, code, `${what} (${err && err.message})`);
    return err;
  }
  throw new Error(`${what}: resolved, expected a rejection with ${code}`);
}

const hex = (buf) => Buffer.from(buf).toString('hex');
const bytes = (v) => (typeof v === 'string' ? Buffer.from(v, 'utf8') : Buffer.from(v.hex, 'hex'));
const readJson = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'vectors', name), 'utf8'));

// ---------------------------------------------------------------- checks

async function main() {
  console.log(`# kdfpool smoke on ${RUNTIME} ${RUNTIME_VERSION} (${process.platform}-${process.arch})`);

  await check('PBKDF2: RFC 6070 and test/vectors/pbkdf2.json (under 2^20 iterations)', async () => {
    for (const v of readJson('pbkdf2.json').vectors) {
      if (v.iterations > 1 << 20) continue;
      const key = await kdf.pbkdf2(bytes(v.password), bytes(v.salt), v.iterations, v.keylen, v.digest);
      equal(hex(key), v.expected, `${v.source} ${v.digest} c=${v.iterations}`);
    }
  });

  await check('PBKDF2: node spellings of SHA digests (RSA-SHA256, SHA-512/256, SHA2-224)', async () => {
    const want = '120fb6cffcf8b32c43e7225256c4f837a86548c9';
    equal(hex(await kdf.pbkdf2('password', 'salt', 1, 20, 'RSA-SHA256')), want, 'RSA-SHA256');
    equal(hex(await kdf.pbkdf2('password', 'salt', 1, 20, 'SHA-256')), want, 'SHA-256');
    const a = await kdf.pbkdf2('password', 'salt', 2, 32, 'SHA-512/256');
    const b = await kdf.pbkdf2('password', 'salt', 2, 32, 'sha512-256');
    equal(hex(a), hex(b), 'SHA-512/256 = sha512-256');
    await rejectsWith(kdf.pbkdf2('password', 'salt', 1, 20, 'SHA512/256'), 'ERR_CRYPTO_INVALID_DIGEST', 'SHA512/256 (node refuses it)');
    await rejectsWith(kdf.pbkdf2('password', 'salt', 1, 20, 'no-such-digest'), 'ERR_CRYPTO_INVALID_DIGEST', 'unknown name');
  });

  await check(`PBKDF2 over sha3-256: ${HOST_HAS_OPENSSL ? 'works (host OpenSSL)' : 'ERR_KDF_DIGEST_UNAVAILABLE (no host OpenSSL)'}`, async () => {
    const p = kdf.pbkdf2('password', 'salt', 2, 32, 'sha3-256');
    if (HOST_HAS_OPENSSL) {
      const expected = require('node:crypto').pbkdf2Sync('password', 'salt', 2, 32, 'sha3-256');
      equal(hex(await p), hex(expected), 'sha3-256 = node:crypto');
    } else {
      const err = await rejectsWith(p, 'ERR_KDF_DIGEST_UNAVAILABLE', 'sha3-256');
      if (!err.message.includes(RUNTIME === 'bun' ? 'Bun' : 'Deno')) throw new Error(`message names no runtime: ${err.message}`);
    }
  });

  await check('scrypt: RFC 7914 section 12 (N up to 2^14)', async () => {
    const vectors = [
      ['', '', 16, 1, 1, '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906'],
      ['password', 'NaCl', 1024, 8, 16, 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640'],
      ['pleaseletmein', 'SodiumChloride', 16384, 8, 1, '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887'],
    ];
    for (const [pw, salt, N, r, p, want] of vectors) {
      equal(hex(await kdf.scrypt(pw, salt, 64, { N, r, p })), want, `N=${N} r=${r} p=${p}`);
    }
    await rejectsWith(kdf.scrypt('pw', 'salt', 16, { N: 2 ** 20 }), 'ERR_CRYPTO_INVALID_SCRYPT_PARAMS', 'over maxmem');
  });

  await check('Argon2: RFC 9106 section 5 (argon2d, argon2i, argon2id)', async () => {
    const parameters = {
      message: Buffer.alloc(32, 0x01), nonce: Buffer.alloc(16, 0x02), secret: Buffer.alloc(8, 0x03),
      associatedData: Buffer.alloc(12, 0x04), parallelism: 4, tagLength: 32, memory: 32, passes: 3,
    };
    const tags = {
      argon2d: '512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb',
      argon2i: 'c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8',
      argon2id: '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659',
    };
    for (const [algorithm, tag] of Object.entries(tags)) {
      equal(hex(await kdf.argon2(algorithm, parameters)), tag, algorithm);
    }
  });

  await check('bcrypt: known answers (test/vectors/bcrypt.json, cost <= 8)', async () => {
    let n = 0;
    for (const v of readJson('bcrypt.json')) {
      if (Number(v.hash.slice(4, 6)) > 8) continue;
      equal(await kdf.verify(v.hash, bytes(v.password)), true, `${v.hash} (${v.comment})`);
      n++;
    }
    if (n < 10) throw new Error(`only ${n} vectors`);
  });

  await check('interop: verify() accepts hashes made by npm argon2 and npm bcrypt', async () => {
    const made = [
      '$argon2id$v=19$m=4096,p=1,t=2$Swf4780rlKRpVR79BJYB7Q$BaOgXAV7sfSEeZi/yrLgwWqFOpxlGxWfbjxJJbqtAZ4',
      '$argon2i$v=19$m=4096,p=2,t=3$LipgnPLGB1yb4lVSqCTypw$CIVr2jIamHqSYReNO/L3NgDUNueotVA5+5HWhFGry0k',
      '$2b$04$z3WcrZgq6DDNlzMktex.ZOABZdP9.inApAB7m6vDIKX7W4goujdQu',
    ];
    for (const phc of made) {
      equal(await kdf.verify(phc, 'correct horse'), true, phc);
      equal(await kdf.verify(phc, 'correct horsE'), false, `${phc}, wrong password`);
    }
    equal(await kdf.verify('$2b$05$f.0VEAxCiCqE4VxoVdHY/uGEfZRhlnyWcPY85/SaXzXeYsAXlhZta', 'Tr0ub4dor&3'), true, 'bcrypt cost 5');
    const phc = await kdf.hash('pw', { algorithm: 'argon2id', memory: 4096, passes: 1, parallelism: 1 });
    equal(await kdf.verify(phc, 'pw'), true, 'hash() then verify()');
  });

  await check('password storage: named peppers rotate, unknown users verify false, bcrypt refuses 73 bytes', async () => {
    const T = { memory: 64, passes: 1 };
    const pool = kdf.createPool({ name: 'smk.rot', threads: 1, secret: { current: 'k1', keys: { k1: 'one' } } });
    const next = kdf.createPool({ name: 'smk.nxt', threads: 1, secret: { current: 'k2', keys: { k1: 'one', k2: 'two' } } });
    try {
      const h1 = await pool.hash('pw', T);
      equal(h1.includes(',keyid=azE$'), true, h1);
      equal(await next.verify(h1, 'pw'), true, 'verify under k2 of a k1 string');
      equal(next.needsRehash(h1, T), true, 'needsRehash of a k1 string under k2');
      equal(await next.verifyUnknown('pw', T), false, 'verifyUnknown');
      const code = await kdf.hash('k'.repeat(73), { algorithm: 'bcrypt', cost: 4 }).then(() => 'resolved', (e) => e.code);
      equal(code, 'ERR_KDF_PASSWORD_TOO_LONG', 'bcrypt of 73 bytes');
    } finally {
      await Promise.all([pool.close(), next.close()]);
    }
  });

  await check('saturation: a pool with maxQueue 1 refuses with ERR_KDF_POOL_SATURATED', async () => {
    const pool = kdf.createPool({ name: 'smk.sat', threads: 1, maxQueue: 1 });
    try {
      const jobs = [];
      for (let i = 0; i < 4; i++) jobs.push(pool.pbkdf2('pw', 'salt', 300000, 32, 'sha256'));
      const results = await Promise.allSettled(jobs);
      const refused = results.filter((r) => r.status === 'rejected');
      if (refused.length === 0) throw new Error('nothing was refused');
      for (const r of refused) {
        equal(r.reason.code, 'ERR_KDF_POOL_SATURATED', 'code');
        equal(r.reason.retryable, true, 'retryable');
        if (!(r.reason instanceof kdf.PoolSaturatedError)) throw new Error('not a PoolSaturatedError');
      }
      if (results[0].status !== 'fulfilled') throw new Error(`first job failed: ${results[0].reason}`);
    } finally {
      await pool.close();
    }
  });

  await check('abort: an AbortSignal rejects a queued job and an already-aborted one', async () => {
    const pool = kdf.createPool({ name: 'smk.abt', threads: 1 });
    try {
      const first = pool.pbkdf2('pw', 'salt', 300000, 32, 'sha256');
      const ac = new AbortController();
      const second = pool.pbkdf2('pw', 'salt', 300000, 32, 'sha256', { signal: ac.signal });
      ac.abort();
      await rejectsWith(second, 'ABORT_ERR', 'aborted while queued');
      await rejectsWith(pool.scrypt('pw', 'salt', 16, { N: 1024, signal: AbortSignal.abort() }), 'ABORT_ERR', 'already aborted');
      await first;
    } finally {
      await pool.close();
    }
  });

  await check(`exit: process.exit() with jobs in flight, in a child ${RUNTIME} (liveness, 20 s bound)`, () => {
    const args = RUNTIME === 'deno'
      ? ['run', '--allow-read', '--allow-env', '--allow-ffi', __filename, '--exit-child'] : [__filename, '--exit-child'];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 20000 });
    if (r.error) throw new Error(`child did not exit in 20 s: ${r.error.message}`);
    equal(r.signal, null, `signal (stderr: ${r.stderr})`);
    equal(r.status, 0, `exit status (stderr: ${r.stderr})`);
  });

  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

main().catch((err) => {
  console.log(`not ok - smoke suite crashed: ${(err && err.stack) || err}`);
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exitCode = 1;
});
