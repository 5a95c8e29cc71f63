'use strict';

// Digests and the host's OpenSSL: the binary has no load-time OpenSSL
// symbols (so it loads in Bun and Deno); without OpenSSL, digest names
// resolve exactly as node resolves the SHA family and other digests fail
// with ERR_KDF_DIGEST_UNAVAILABLE; every digest stops at process exit.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const kdf = require('..');
const native = require('../lib/native');

const ROOT = path.join(__dirname, '..');
// The source build, and the prebuilt (stripped) one: npm run prebuild, which
// test/package.test.js runs, moves the build there.
const ADDONS = [
  path.join(ROOT, 'gyp', 'build', 'Release', 'kdfpool.node'),
  path.join(ROOT, 'prebuilds', `${process.platform}-${process.arch}`, 'kdfpool.node'),
].filter((f) => fs.existsSync(f));

// OpenSSL's exported names, by prefix (libcrypto's public API).
const OPENSSL_SYMBOL = /^(EVP_|ERR_|OPENSSL_|OSSL_|PKCS5_|PKCS12_|SHA\d|SHA_|HMAC|CRYPTO_|BIO_|OBJ_|RAND_|MD5|RIPEMD|BN_|EC_|RSA_|X509)/;

describe('no OpenSSL symbol is resolved at load time', () => {
  const nm = spawnSync('nm', ['--version'], { encoding: 'utf8' });
  it('nm -D --undefined-only kdfpool.node (gyp/build/Release, prebuilds/) lists no OpenSSL function', {
    skip: nm.status !== 0 ? 'nm not installed' : ADDONS.length === 0 ? 'no binary built' : false,
  }, () => {
    for (const addon of ADDONS) {
      const r = spawnSync('nm', ['-D', '--undefined-only', addon], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const names = r.stdout.split('\n').map((l) => l.trim().split(/\s+/).pop()).filter(Boolean)
        .map((n) => n.replace(/@.*$/, ''));
      assert.ok(names.some((n) => n.startsWith('napi_')), `${addon}: nm output looks wrong, no napi_ symbol`);
      assert.deepEqual(names.filter((n) => OPENSSL_SYMBOL.test(n)), [], addon);
    }
  });
});

// Candidate names: everything node lists, in three cases, and the other
// spellings OpenSSL's lookup knows (provider names, OIDs), plus near misses.
function candidateNames() {
  const names = new Set();
  for (const h of crypto.getHashes()) {
    names.add(h);
    names.add(h.toUpperCase());
    names.add(h.toLowerCase());
  }
  for (const n of ['SHA-1', 'sha-1', 'SHA-224', 'SHA-256', 'sha-256', 'SHA-384', 'SHA-512',
    'SHA2-224', 'SHA2-256', 'SHA2-384', 'SHA2-512', 'SHA2-512/224', 'SHA2-512/256',
    'SHA-512/224', 'SHA-512/256', 'Sha256', '1.3.14.3.2.26', '2.16.840.1.101.3.4.2.1',
    '2.16.840.1.101.3.4.2.2', '2.16.840.1.101.3.4.2.3', '2.16.840.1.101.3.4.2.4',
    '2.16.840.1.101.3.4.2.5', '2.16.840.1.101.3.4.2.6', '2.16.840.1.101.3.4.2.8',
    'BLAKE2B-512', 'RIPEMD-160', 'SHAKE-256', 'md4', 'whirlpool',
    // near misses node refuses
    'SHA512/256', 'sha512/224', 'sha', 'sha2', 'sha_256', 'sha256 ', 'SHA2_256', 'sha-2',
    'id-sha256', '1.2.840.113549.1.1.11', 'KECCAK-256', 'sha256-192', 'dss1', '']) {
    names.add(n);
  }
  return [...names];
}

function nodeAnswer(name) {
  try {
    return { bytes: crypto.pbkdf2Sync('pw', 'salt', 3, 40, name) };
  } catch (err) {
    return { code: err.code, message: err.message };
  }
}

// Node 22+ (ncrypto) resolves a few names beyond EVP_get_digestbyname: names
// with trailing spaces (22+), 'dss1' (SHA-1, 24+), and digests only
// EVP_MD_fetch finds (24+: keccak-*, sha256-192). kdfpool falls back to
// EVP_MD_fetch where the running node does (lib/host.js digestFetch), which
// covers keccak-* and sha256-192 with OpenSSL; trailing spaces and dss1 are
// a known gap, and without OpenSSL its table follows node 20 for the SHA
// family. So these names are compared here on node 20 only.
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const NEWER_OPENSSL = /^keccak-|256[-/]192$/i;
const beyondGetDigestByName = (name) => NODE_MAJOR >= 22 &&
  (/\s$/.test(name) || /^dss1$/i.test(name) || NEWER_OPENSSL.test(name));

async function ours(name) {
  try {
    return { bytes: await kdf.pbkdf2('pw', 'salt', 3, 40, name) };
  } catch (err) {
    return { code: err.code, message: err.message };
  }
}

describe('digest names without OpenSSL (as in Bun and Deno)', () => {
  const SHA = ['sha1', 'sha224', 'sha256', 'sha384', 'sha512', 'sha512-224', 'sha512-256'];
  const shaBytes = new Map(SHA.map((d) => [crypto.pbkdf2Sync('pw', 'salt', 3, 40, d).toString('hex'), d]));

  it('SHA family: node\'s spellings give node\'s bytes; other known digests are unavailable; unknown names stay unknown', async () => {
    const expected = candidateNames().map((name) => [name, nodeAnswer(name)]);
    assert.equal(native.testing.forceVariant('openssl', 'none'), true);
    const mismatches = [];
    try {
      for (const [name, want] of expected) {
        const got = await ours(name);
        if (NEWER_OPENSSL.test(name)) {
          // Known to node 22+ (OpenSSL 3.2+), unknown to node 20: kdfpool
          // names them unavailable on every host without OpenSSL.
          // (keccak-kmac-* are XOFs node itself refuses: node's error then.)
          const nodesRefusal = !want.bytes && got.message === want.message && got.code === want.code;
          if (got.code !== 'ERR_KDF_DIGEST_UNAVAILABLE' && !nodesRefusal) {
            mismatches.push(`${name}: ${got.bytes ? 'bytes' : got.code || got.message} instead of ERR_KDF_DIGEST_UNAVAILABLE`);
          }
          continue;
        }
        if (beyondGetDigestByName(name)) continue;
        if (want.bytes && shaBytes.has(want.bytes.toString('hex'))) {
          if (!got.bytes || !got.bytes.equals(want.bytes)) mismatches.push(`${name}: ${got.code} instead of node's bytes`);
        } else if (want.code === 'ERR_CRYPTO_INVALID_DIGEST') {
          if (got.code !== want.code || got.message !== want.message) mismatches.push(`${name}: ${got.code} instead of ${want.code}`);
        } else if (got.code !== 'ERR_KDF_DIGEST_UNAVAILABLE' &&
          // A digest the running node itself refuses (XOFs, md4 without the
          // legacy provider) is refused with node's own error before any
          // lookup (lib/host.js): that is right on every host too.
          !(!want.bytes && got.message === want.message && got.code === want.code)) {
          mismatches.push(`${name}: ${got.bytes ? 'bytes' : got.code || got.message} instead of ERR_KDF_DIGEST_UNAVAILABLE`);
        }
      }
    } finally {
      native.testing.forceVariant('openssl', 'auto');
    }
    assert.deepEqual(mismatches, []);
  });

  it('the unavailable error is coded, names the digest and the runtime', async () => {
    assert.equal(native.testing.forceVariant('openssl', 'none'), true);
    try {
      await assert.rejects(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha3-256'), (err) => {
        assert.equal(err.code, 'ERR_KDF_DIGEST_UNAVAILABLE');
        assert.equal(err.retryable, false);
        assert.equal(err.digest, 'sha3-256');
        assert.match(err.message, /"sha3-256" needs OpenSSL, which this runtime \(Node\.js v/);
        return true;
      });
      // The callback form reports it through the callback, like any job error.
      const err = await new Promise((resolve) => kdf.pbkdf2('pw', 'salt', 1, 32, 'md5', (e) => resolve(e)));
      assert.equal(err.code, 'ERR_KDF_DIGEST_UNAVAILABLE');
      // scrypt needs no OpenSSL at all.
      const key = await kdf.scrypt('pw', 'salt', 32, { N: 1024 });
      assert.deepEqual(key, crypto.scryptSync('pw', 'salt', 32, { N: 1024 }));
    } finally {
      native.testing.forceVariant('openssl', 'auto');
    }
  });

  it('with OpenSSL back, every digest node lists gives node\'s bytes or node\'s error', async () => {
    for (const name of crypto.getHashes()) {
      if (beyondGetDigestByName(name)) continue;
      const want = nodeAnswer(name);
      const got = await ours(name);
      if (want.bytes) assert.ok(got.bytes && got.bytes.equals(want.bytes), name);
      // Node 22+ reports OpenSSL's failures differently (22/24: its own text
      // instead of the queued error; 26: an ERR_OSSL_* code): matching that
      // is the JS layer's per-node work (lib/, node-versions branch); here
      // the job must fail where node fails.
      else if (NODE_MAJOR >= 22) assert.equal(got.bytes, undefined, name);
      else assert.deepEqual(got, want, name);
    }
  });
});

// Defect 5: process.exit() used to wait for PBKDF2 over non-SHA digests,
// which ran inside PKCS5_PBKDF2_HMAC and never looked at the stop flag
// (sha3-256, 8,000,000 iterations: 6.4 s after exit; 2^31-1: ~30 minutes).
// This is a liveness check, not a speed assert: the child must exit with
// code 0 before a generous hang-detector bound, while its jobs alone would
// take many minutes.
describe('process.exit() stops jobs on every digest (defect 5)', () => {
  const HANG_LIMIT_MS = 20000;
  const jobs = {
    'sha3-256': "kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 32, 'sha3-256')",
    'blake2b512': "kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 64, 'blake2b512')",
    'sha512': "kdf.pbkdf2('pw', 'salt', 2 ** 31 - 1, 64, 'sha512')",
  };
  for (const [what, call] of Object.entries(jobs)) {
    it(`${what}: the process exits promptly with jobs in flight`, () => {
      const source = `
        const kdf = require(process.env.KDFPOOL_ROOT);
        for (let i = 0; i < 2; i++) ${call}.catch(() => {});
        setTimeout(() => process.exit(0), 300);
      `;
      const r = spawnSync(process.execPath, ['-e', source], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: HANG_LIMIT_MS,
        env: { ...process.env, KDFPOOL_ROOT: ROOT },
      });
      assert.equal(r.error, undefined, `still running after ${HANG_LIMIT_MS} ms (hang): ${r.error}`);
      assert.equal(r.signal, null, `killed by ${r.signal}\n${r.stderr}`);
      assert.equal(r.status, 0, `exit ${r.status}\n${r.stderr}`);
    });
  }
});
