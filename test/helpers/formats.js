'use strict';

// Assertions shared by the foreign stored-format suites (test/formats-*.test.js).

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const kdf = require('../..');

const INVALID = { name: 'InvalidHashError', code: 'ERR_KDF_INVALID_HASH' };

/**
 * `stored` verifies with every password of `good` and with none of `bad`,
 * on `pool` (async and sync), and a rehash is due for it (needsRehash()
 * against rehashTarget()) under the default target and under `target`
 * when given.
 */
async function assertVerifies(pool, stored, good, bad, options) {
  for (const pw of good) {
    assert.equal(await pool.verify(stored, pw, options), true, `${stored} with ${JSON.stringify(pw)}`);
  }
  for (const pw of bad) {
    assert.equal(await pool.verify(stored, pw, options), false, `${stored} with ${JSON.stringify(pw)}`);
  }
  if (good.length > 0) assert.equal(pool.verifySync(stored, good[0], options), true);
  if (bad.length > 0) assert.equal(pool.verifySync(stored, bad[0], options), false);
  assert.equal(kdf.needsRehash(stored, kdf.rehashTarget(stored)), true, `needsRehash(${stored})`);
  if (options !== undefined) assert.equal(kdf.needsRehash(stored, kdf.rehashTarget(stored, options)), true);
}

/**
 * `stored` is refused as malformed by verify, verifySync and needsRehash,
 * and `pool` queued nothing for it.
 */
async function assertMalformed(pool, stored, message) {
  const before = pool.stats().submitted;
  await assert.rejects(pool.verify(stored, 'pw'), (err) => {
    assert.equal(err.name, INVALID.name);
    assert.equal(err.code, INVALID.code);
    if (message !== undefined) assert.match(err.message, message);
    return true;
  }, JSON.stringify(stored));
  assert.throws(() => pool.verifySync(stored, 'pw'), INVALID, JSON.stringify(stored));
  assert.throws(() => kdf.needsRehash(stored), INVALID, JSON.stringify(stored));
  assert.equal(pool.stats().submitted, before, `nothing queued for ${JSON.stringify(stored)}`);
}

/** `stored` is over `limits`: HashLimitError naming `limit`, nothing queued. */
async function assertOverLimit(pool, stored, limits, limit) {
  const before = pool.stats().submitted;
  await assert.rejects(pool.verify(stored, 'pw', { limits }),
    { name: 'HashLimitError', code: 'ERR_KDF_HASH_LIMIT', limit });
  assert.equal(pool.stats().submitted, before, `nothing queued for ${stored}`);
}

/** Wrong passwords for `pw` that differ within bcrypt's first 72 bytes. */
function wrongPasswords(pw) {
  return [`z${pw}`, `Z${pw.slice(1)}`];
}

/**
 * The functions `names` defined in the ```js block after
 * `<!-- recipe: <name> -->` in docs/migrating.md, run as written.
 */
function migratingRecipe(name, names) {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'migrating.md'), 'utf8');
  const at = doc.indexOf(`<!-- recipe: ${name} -->`);
  assert.ok(at >= 0, `recipe ${name} in docs/migrating.md`);
  const code = /```js\n([\s\S]*?)```/.exec(doc.slice(at))[1];
  return new Function('Buffer', `${code}\nreturn { ${names.join(', ')} };`)(Buffer);
}

/**
 * The work units of verifying a stored string, by the pool's own cost
 * model (lib/phc/cost.js, the figures the pool's hints and limits use):
 * what "costs at least as much" means for a rehash.
 */
function workOf(stored) {
  const { estimateCost } = require('../../lib/phc/cost');
  const { parse } = require('../../lib/phc/formats');
  const { costShape } = require('../../lib/phc/limits');
  return estimateCost({ ...costShape(parse(stored)), passwordBytes: 0 }).work;
}

module.exports = { INVALID, assertVerifies, assertMalformed, assertOverLimit, wrongPasswords, migratingRecipe, workOf };
