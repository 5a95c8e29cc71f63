'use strict';

// What the running node's crypto does where node versions differ, asked of
// node itself: each behaviour is probed once, lazily, with constant plain
// arguments (never a caller's object: node 20's scryptSync aborts the
// process when an option's getter returns another value on its second
// read), and the answer is kept. Where the host has no such function, or it
// does not fail as probed, the node version decides.

const crypto = require('node:crypto');
const errors = require('./errors');

const MAJOR = Number(String(process.versions.node).split('.')[0]) || 0;

// What fn() throws, or null when it returns.
function thrownBy(fn) {
  try {
    fn();
  } catch (err) {
    return err instanceof Error ? err : null;
  }
  return null;
}

// ---------------------------------------------------------------- scrypt

// An option given under both of its names ({ N, cost }, { r, blockSize },
// { p, parallelization }). Node 20 and 22: Error
// ERR_CRYPTO_SCRYPT_INVALID_PARAMETER "Invalid scrypt parameter"; node >= 23:
// TypeError ERR_INCOMPATIBLE_OPTION_PAIR naming both options
// (nodejs/node#53305, semver-major, v23.0.0). The pair is refused before any
// work, so the probe costs nothing.
const pairErrors = { __proto__: null };

function scryptOptionPairError(name, alias) {
  if (!(name in pairErrors)) {
    const probed = typeof crypto.scryptSync === 'function'
      ? thrownBy(() => crypto.scryptSync('', '', 0, { [name]: 2, [alias]: 2 }))
      : null;
    pairErrors[name] = probed !== null && typeof probed.code === 'string' ? probed : null;
  }
  if (pairErrors[name] !== null) return errors.likeNodes(pairErrors[name]);
  return MAJOR >= 23 ? errors.incompatibleOptionPair(name, alias) : errors.scryptInvalidParameter();
}

// ---------------------------------------------------------------- pbkdf2

// Node's error when it refuses to derive a PBKDF2 key with this digest and
// an empty key (zeroKey) or a non-empty one, or null when it derives it (or
// does not know the digest: the native lookup judges names). Neither case
// depends on the password, salt or iteration count, so one iteration and 0
// or 1 byte ask. Where node versions differ:
// - keylen 0: node 20 returns an empty Buffer; node >= 22 fails with
//   "Deriving bits failed" (26: "PBKDF2 derivation failed"), since its
//   PBKDF2 moved to ncrypto (nodejs/node#54651), which takes an empty
//   output for a failure.
// - a digest OpenSSL refuses for HMAC (the XOFs, shake*): node 20 and 22
//   report "Deriving bits failed"; node 24 OpenSSL's text
//   ("error:1C8000B7:Provider routines::xof digests not allowed", no code);
//   node 26 "PBKDF2 derivation failed" with code
//   ERR_OSSL_XOF_DIGESTS_NOT_ALLOWED and OpenSSL's library, reason and
//   opensslErrorStack (nodejs/node#64776, KDF errors keep OpenSSL's queue).
// Probing rather than gating on the version also follows a backport. The
// answers for digest names node knows are kept (at most MAX_CACHED).
// Per digest name, for a non-empty key and for an empty one: looked up on
// every pbkdf2() call, so no key string is built for it.
const pbkdf2Refusals = { nonEmpty: new Map(), empty: new Map() };
const MAX_CACHED = 256;

function pbkdf2Refusal(digest, zeroKey) {
  if (typeof crypto.pbkdf2Sync !== 'function') return null;
  const cache = zeroKey ? pbkdf2Refusals.empty : pbkdf2Refusals.nonEmpty;
  let probed = cache.get(digest);
  if (probed === undefined) {
    probed = thrownBy(() => crypto.pbkdf2Sync('', '', 1, zeroKey ? 0 : 1, digest));
    if (probed !== null && probed.code === 'ERR_CRYPTO_INVALID_DIGEST') return null;
    if (cache.size < MAX_CACHED) cache.set(digest, probed);
  }
  return probed === null ? null : errors.likeNodes(probed);
}

// ---------------------------------------------------------------- digests

// Node >= 24 looks a digest name up with EVP_get_digestbyname and, when that
// knows no such name, with OpenSSL 3's provider fetch (EVP_MD_fetch), so
// provider-only names such as keccak-256 and sha256-192 derive there and are
// ERR_CRYPTO_INVALID_DIGEST on node 20 and 22. Probed once with a name only
// the fetch finds; the native lookup then falls back the same way.
let fetchProbe = null;

function digestFetch() {
  if (fetchProbe === null) {
    fetchProbe = typeof crypto.pbkdf2Sync === 'function'
      && thrownBy(() => crypto.pbkdf2Sync('', '', 1, 1, 'keccak-256')) === null;
  }
  return fetchProbe;
}

module.exports = { scryptOptionPairError, pbkdf2Refusal, digestFetch };
