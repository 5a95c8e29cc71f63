'use strict';

// Our BLAKE2b (RFC 7693), the one inside Argon2, against libsodium's
// crypto_generichash and node's blake2b512. Reached through lib/blake2b.js
// (internal, not exported by the package).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const sodium = require('sodium-native');
const { blake2b } = require('../lib/blake2b');

// Block boundaries (128 bytes) are where BLAKE2b implementations go wrong:
// the last block must be compressed with the final flag, even when full.
const MESSAGE_LENGTHS = [0, 1, 63, 127, 128, 129, 255, 256, 257, 1000];
const messages = MESSAGE_LENGTHS.map((n) => crypto.randomBytes(n));

function sodiumHash(outlen, message, key) {
  const out = Buffer.alloc(outlen);
  sodium.crypto_generichash(out, message, key);
  return out;
}

test('RFC 7693 Appendix A: BLAKE2b-512("abc")', () => {
  const expected = 'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1'
    + '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923';
  const out = blake2b('abc', 64);
  assert.ok(Buffer.isBuffer(out));
  assert.equal(out.toString('hex'), expected);
  assert.equal(blake2b(Buffer.from('abc'), 64).toString('hex'), expected);
  assert.equal(blake2b(new Uint8Array([0x61, 0x62, 0x63]).buffer, 64).toString('hex'), expected);
});

test('unkeyed, every output length libsodium allows, vs crypto_generichash', () => {
  for (let outlen = sodium.crypto_generichash_BYTES_MIN; outlen <= sodium.crypto_generichash_BYTES_MAX; outlen++) {
    for (const m of messages) {
      assert.equal(blake2b(m, outlen).toString('hex'), sodiumHash(outlen, m).toString('hex'),
        `outlen ${outlen}, message length ${m.length}`);
    }
  }
});

test('keyed, every output length libsodium allows, vs crypto_generichash', () => {
  const keyLengths = [sodium.crypto_generichash_KEYBYTES_MIN, 17, 32, 63, sodium.crypto_generichash_KEYBYTES_MAX];
  for (let outlen = sodium.crypto_generichash_BYTES_MIN; outlen <= sodium.crypto_generichash_BYTES_MAX; outlen++) {
    for (const m of messages) {
      const key = crypto.randomBytes(keyLengths[(outlen + m.length) % keyLengths.length]);
      assert.equal(blake2b(m, outlen, key).toString('hex'), sodiumHash(outlen, m, key).toString('hex'),
        `outlen ${outlen}, message length ${m.length}, key length ${key.length}`);
    }
  }
});

test('64-byte unkeyed output vs node crypto blake2b512', () => {
  for (const m of messages) {
    assert.equal(blake2b(m, 64).toString('hex'), crypto.createHash('blake2b512').update(m).digest('hex'),
      `message length ${m.length}`);
  }
});

test('output lengths 1..15 (refused by libsodium): deterministic, and not prefixes of longer outputs', () => {
  for (let outlen = 1; outlen <= 15; outlen++) {
    const outs = messages.map((m) => blake2b(m, outlen));
    outs.forEach((out, i) => {
      assert.equal(out.length, outlen);
      assert.deepEqual(blake2b(Buffer.from(messages[i]), outlen), out, 'deterministic');
    });
    // The output length is part of the parameter block, so a shorter output
    // is a different hash, not a truncation of a longer one. Compared over
    // all messages at once so that a chance match of a 1-byte output
    // (1 in 256) cannot fail the test; all ten match by chance with 2^-80.
    for (const longer of [outlen + 1, 16, 32, 64]) {
      const prefixes = messages.map((m) => blake2b(m, longer).subarray(0, outlen));
      assert.notDeepEqual(Buffer.concat(outs), Buffer.concat(prefixes), `outlen ${outlen} vs ${longer}`);
    }
  }
});

test('short keys (below libsodium\'s minimum) are deterministic and change the output', () => {
  const m = messages[4];
  const unkeyed = blake2b(m, 32);
  const seen = new Set([unkeyed.toString('hex')]);
  for (let keylen = 1; keylen < sodium.crypto_generichash_KEYBYTES_MIN; keylen++) {
    const key = Buffer.alloc(keylen, 0x5a);
    const out = blake2b(m, 32, key);
    assert.deepEqual(blake2b(m, 32, Buffer.from(key)), out);
    seen.add(out.toString('hex'));
  }
  assert.equal(seen.size, sodium.crypto_generichash_KEYBYTES_MIN);
  // An empty key is no key (RFC 7693: kk = 0).
  assert.deepEqual(blake2b(m, 32, Buffer.alloc(0)), unkeyed);
});

test('out-of-range lengths are refused', () => {
  assert.throws(() => blake2b('abc', 0));
  assert.throws(() => blake2b('abc', 65));
  assert.throws(() => blake2b('abc', 32, Buffer.alloc(65)));
});
