'use strict';

// A smoke test of the INSTALLED package on one platform, run by that
// platform's runtime (see test/smoke/run.sh: Node on linux-x64, Bun's musl
// builds, arm64 under qemu, Windows node under wine, s390x from a source
// build): loads kdfpool from an app's node_modules, checks which binary it
// loaded, then RFC vectors for PBKDF2 (SHA-1/256/512), scrypt, Argon2d/i/id
// and bcrypt, hash/verify, a saturated queue and an abort. Results go to a
// file, not stdout (wine's stdout pipe fails); the last line is
// "smoke: N passed, M failed".
//
//   node test/smoke/cross.js <installed-package-dir> <results-file> [prebuilds|gyp|<file>]
//
// The third argument is where the loaded binary must be: prebuilds/ (the
// default: nothing was compiled at install), gyp/build/ (a source build),
// or one file of the package (the target's prebuild, as
// scripts/prebuild-targets.json names it: the loader chose that one).

const fs = require('node:fs');
const path = require('node:path');

const pkg = process.argv[2];
const out = process.argv[3];
const expectedFrom = process.argv[4] || 'prebuilds';
const lines = [];
let passed = 0;
let failed = 0;
const write = () => fs.writeFileSync(out, `${lines.join('\n')}\n`);

async function check(name, fn) {
  try {
    await fn();
    passed++;
    lines.push(`ok ${name}`);
  } catch (err) {
    failed++;
    lines.push(`FAIL ${name}: ${err && err.stack}`);
  }
  write();
}

// A path to compare: symbolic links resolved, and on Windows without the
// \\?\ long-path prefix Node adds, in one case (wine cannot realpath Z:).
function canonical(p) {
  const plain = p.replace(/^\\\\\?\\/, '');
  let real;
  try {
    real = fs.realpathSync(plain);
  } catch {
    real = path.resolve(plain);
  }
  return process.platform === 'win32' ? real.toLowerCase() : real;
}

function eq(got, hex) {
  const g = Buffer.from(got).toString('hex');
  if (g !== hex) throw new Error(`got ${g}, expected ${hex}`);
}

async function main() {
  const repo = path.join(__dirname, '..', '..');
  // Every addon the runtime opens goes through process.dlopen (Node's
  // require('.node'), Bun's and Deno's Node-API loaders alike).
  const opened = [];
  const dlopen = process.dlopen;
  process.dlopen = function recordDlopen(module, filename, ...rest) {
    opened.push(filename);
    return dlopen.call(this, module, filename, ...rest);
  };
  let kdf;
  await check(`load (${process.platform}-${process.arch}, ${process.versions.bun ? `bun ${process.versions.bun}` : `node ${process.version}`})`, () => {
    kdf = require(pkg);
  });
  process.dlopen = dlopen;
  await check(`the binary loaded is the package's ${expectedFrom}${/^(gyp|prebuilds)$/.test(expectedFrom) ? '/ one' : ''}`, () => {
    lines.push(`# binary ${opened.join(', ')}`);
    const dirs = { gyp: path.join('gyp', 'build'), prebuilds: 'prebuilds' };
    if (dirs[expectedFrom] === undefined) {
      const file = canonical(path.join(pkg, ...expectedFrom.split('/')));
      if (opened.length !== 1 || canonical(opened[0]) !== file) throw new Error(`loaded ${opened.join(', ') || 'nothing'}, not ${file}`);
      return;
    }
    const under = path.join(canonical(pkg), dirs[expectedFrom]) + path.sep;
    if (opened.length !== 1 || !canonical(opened[0]).startsWith(under)) throw new Error(`loaded ${opened.join(', ') || 'nothing'}, not a file under ${under}`);
  });
  if (!kdf) return;

  const pbkdf2 = require(path.join(repo, 'test', 'vectors', 'pbkdf2.json')).vectors;
  for (const v of pbkdf2) {
    if (v.iterations > 100000) continue; // the 2^24-iteration ones are for native speed
    const str = (x) => (typeof x === 'string' ? x : Buffer.from(x.hex, 'hex'));
    await check(`pbkdf2 ${v.source} ${v.digest} c=${v.iterations}`, async () => {
      eq(await kdf.pbkdf2(str(v.password), str(v.salt), v.iterations, v.keylen, v.digest), v.expected);
    });
  }

  // RFC 7914 section 12 (the 1 GiB one left out).
  const scrypt = [
    ['', '', 16, 1, 1, '77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906'],
    ['password', 'NaCl', 1024, 8, 16, 'fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640'],
    ['pleaseletmein', 'SodiumChloride', 16384, 8, 1, '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887'],
  ];
  for (const [pw, salt, N, r, p, hex] of scrypt) {
    await check(`scrypt RFC 7914 N=${N} r=${r} p=${p}`, async () => eq(await kdf.scrypt(pw, salt, 64, { N, r, p }), hex));
  }
  await check('scryptSync RFC 7914 N=16', () => eq(kdf.scryptSync('', '', 64, { N: 16, r: 1, p: 1 }), scrypt[0][5]));

  // RFC 9106 section 5.
  const params = {
    message: Buffer.alloc(32, 1), nonce: Buffer.alloc(16, 2), secret: Buffer.alloc(8, 3),
    associatedData: Buffer.alloc(12, 4), parallelism: 4, tagLength: 32, memory: 32, passes: 3,
  };
  const tags = {
    argon2d: '512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb',
    argon2i: 'c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8',
    argon2id: '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659',
  };
  for (const [alg, tag] of Object.entries(tags)) {
    await check(`${alg} RFC 9106`, async () => eq(await kdf.argon2(alg, params), tag));
    await check(`${alg}Sync RFC 9106`, () => eq(kdf.argon2Sync(alg, params), tag));
  }

  // Openwall crypt_blowfish vectors (cost 5), through verify().
  const bcrypt = require(path.join(repo, 'test', 'vectors', 'bcrypt.json')).filter((v) => /\$0[45]\$/.test(v.hash));
  for (const v of bcrypt) {
    await check(`bcrypt ${v.hash.slice(0, 12)}… (${v.comment})`, async () => {
      const pw = typeof v.password === 'string' ? v.password : Buffer.from(v.password.hex, 'hex');
      if (!(await kdf.verify(v.hash, pw))) throw new Error('did not verify');
    });
  }

  for (const algorithm of ['argon2id', 'scrypt', 'pbkdf2-sha256', 'bcrypt']) {
    await check(`hash/verify ${algorithm}`, async () => {
      const phc = await kdf.hash('correct horse', algorithm === 'bcrypt' ? { algorithm, cost: 4 } : { algorithm });
      if (!(await kdf.verify(phc, 'correct horse'))) throw new Error(`${phc} did not verify`);
      if (await kdf.verify(phc, 'battery staple')) throw new Error('a wrong password verified');
    });
  }

  await check('saturation: threads 1, maxQueue 1, five calls: refusals are PoolSaturatedError', async () => {
    const pool = kdf.createPool({ threads: 1, maxQueue: 1 });
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => pool.pbkdf2('pw', 'salt', 200000, 32, 'sha256')));
    const refused = settled.filter((s) => s.status === 'rejected');
    if (refused.length < 3) throw new Error(`only ${refused.length} refused`);
    for (const s of refused) if (s.reason.code !== 'ERR_KDF_POOL_SATURATED') throw s.reason;
    await pool.close?.();
  });

  await check('abort: a queued job rejects with AbortError', async () => {
    const pool = kdf.createPool({ threads: 1 });
    const running = pool.pbkdf2('pw', 'salt', 300000, 32, 'sha256');
    const ac = new AbortController();
    const queued = pool.pbkdf2('pw', 'salt', 300000, 32, 'sha256', { signal: ac.signal });
    ac.abort();
    const r = await Promise.allSettled([queued]);
    if (r[0].status !== 'rejected' || r[0].reason.name !== 'AbortError') throw new Error(`got ${r[0].status} ${r[0].reason}`);
    await running;
    await pool.close?.();
  });

  // The platform's lock files (LockFileEx on Windows, flock elsewhere): two
  // pools of one process over one slot. While a long job of pool 0 holds
  // the slot, the other jobs (pool 1's two, and pool 0's second thread's)
  // wait for it, which both pools' stats show as time spent waiting for a
  // slot, and every key is right. Public API only: a prebuilt binary is a
  // release build, without native.testing's run log (with which
  // test/hostslots.test.js checks that no two runs ever overlap).
  await check('hostSlots: two pools with one key and one slot: jobs wait for the slot', async () => {
    const crypto = require('node:crypto');
    const key = `smoke-${process.pid}-${Date.now()}`;
    const pools = [0, 1].map(() => kdf.createPool({ threads: 2, hostSlots: { key, slots: 1 } }));
    const long = pools[0].pbkdf2('pw', 'salt', 300000, 32, 'sha256');
    for (let i = 0; pools[0].stats().hostSlots.held !== 1; i++) {
      if (i > 60000) throw new Error('the long job never took the slot');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const jobs = [[pools[1], 'sha512'], [pools[1], 'sha1'], [pools[0], 'sha384']];
    const keys = await Promise.all([long, ...jobs.map(([p, digest]) => p.pbkdf2('pw', 'salt', 10, 32, digest))]);
    eq(keys[0], crypto.pbkdf2Sync('pw', 'salt', 300000, 32, 'sha256').toString('hex'));
    jobs.forEach(([, digest], i) => eq(keys[i + 1], crypto.pbkdf2Sync('pw', 'salt', 10, 32, digest).toString('hex')));
    for (const [i, p] of pools.entries()) {
      const h = p.stats().hostSlots;
      if (!(h.waitMs > 0)) throw new Error(`pool ${i}'s jobs never waited for the slot (waitMs ${h.waitMs})`);
      if (h.members !== 2) throw new Error(`pool ${i}: members ${h.members}`);
    }
    await Promise.all(pools.map((p) => p.close()));
  });
}

main().then(() => {
  lines.push(`smoke: ${passed} passed, ${failed} failed`);
  write();
  process.exitCode = failed === 0 ? 0 : 1;
}, (err) => {
  lines.push(`smoke: crashed: ${err && err.stack}`);
  write();
  process.exitCode = 1;
});
