'use strict';

// No copy of a password, pepper or derived key that the library makes may
// outlive its call unwiped. Two places where copies used to stay:
// - Buffer's shared pool: Buffer.from(string) puts short strings in an
//   8 KiB slab shared with every other small Buffer, where a wipe of ours
//   never reaches a copy we dropped. The slab is scanned after each call.
// - A key over 256 bytes whose call was aborted while its job ran: native
//   code made it a Buffer of its own, which lib/ dropped as it was. Every
//   value the completion handler is given is recorded (the handler is
//   wrapped before lib/ installs it) and scanned once the call is over.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');

// Before lib/completions.js installs its handler: lib/ gets a view of the
// addon whose setCompletionHandler records every Buffer the handler is
// given (the addon's own exports are read only).
const nativePath = require.resolve('../lib/native');
const native = require(nativePath);
const handed = [];
const recording = Object.create(native, {
  setCompletionHandler: {
    value: (handler) => native.setCompletionHandler((count, extras) => {
      if (extras !== undefined) for (const value of extras) if (value instanceof Uint8Array) handed.push(value);
      return handler(count, extras);
    }),
  },
});
require.cache[nativePath].exports = recording;
const kdf = require('..');

// A fresh secret each time, and its UTF-8 bytes held outside Buffer's pool
// (the scan must not find the test's own copy).
function freshSecret(label) {
  const text = `${label}-${crypto.randomUUID()}`;
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return { text, bytes };
}

function contains(memory, bytes) {
  return Buffer.from(memory.buffer || memory, memory.byteOffset || 0, memory.byteLength).indexOf(bytes) !== -1;
}

// Runs `fn` (maybe async) and then looks for `secret` in the slab Buffer's
// pool used before and after it: a small copy made meanwhile is in one of
// them (a fresh slab becomes the current one).
async function pooledCopies(secret, fn) {
  const before = Buffer.from('<').buffer;
  await fn();
  const after = Buffer.from('>').buffer;
  assert.ok(before.byteLength >= Buffer.poolSize && after.byteLength >= Buffer.poolSize, 'probes are pool slices');
  return [before, after].filter((slab) => contains(new Uint8Array(slab), secret.bytes)).length;
}

async function assertNoPooledCopy(secret, fn) {
  assert.equal(await pooledCopies(secret, fn), 0, 'a copy left in Buffer\'s pool');
}

test('a string pepper given to createPool() or configure() leaves no copy in Buffer\'s pool', async () => {
  const pepper = freshSecret('pepper');
  let pool;
  await assertNoPooledCopy(pepper, () => {
    pool = kdf.createPool({ name: 'sec.pep', threads: 1, secret: pepper.text });
  });
  try {
    const other = freshSecret('pepper2');
    await assertNoPooledCopy(other, () => kdf.configure({ secret: other.text }));
    kdf.configure({ secret: null });
    const phc = await pool.hash('pw', { algorithm: 'argon2id', memory: 64, passes: 1, parallelism: 1 });
    assert.equal(await pool.verify(phc, 'pw'), true);
  } finally {
    await pool.close();
  }
});

test('string passwords, messages and secrets leave no copy in Buffer\'s pool (every KDF, async and sync)', async () => {
  const argon2Params = (message, secret) => ({
    message, nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 64, passes: 1, secret,
  });
  const cases = {
    pbkdf2: (s) => kdf.pbkdf2(s, 'salt', 1, 32, 'sha256'),
    pbkdf2Sync: (s) => kdf.pbkdf2Sync(s, 'salt', 1, 32, 'sha256'),
    scrypt: (s) => kdf.scrypt(s, 'salt', 32, { N: 16, r: 1, p: 1 }),
    scryptSync: (s) => kdf.scryptSync(s, 'salt', 32, { N: 16, r: 1, p: 1 }),
    argon2Message: (s) => kdf.argon2('argon2id', argon2Params(s)),
    argon2SyncMessage: (s) => kdf.argon2Sync('argon2id', argon2Params(s)),
    argon2Secret: (s) => kdf.argon2('argon2id', argon2Params('pw', s)),
    argon2SyncSecret: (s) => kdf.argon2Sync('argon2id', argon2Params('pw', s)),
    hash: (s) => kdf.hash(s, { algorithm: 'pbkdf2-sha256', iterations: 1 }),
    hashSync: (s) => kdf.hashSync(s, { algorithm: 'scrypt', ln: 4, r: 1, p: 1 }),
    hashPepper: (s) => kdf.hash('pw', { algorithm: 'argon2id', memory: 64, passes: 1, parallelism: 1, secret: s }),
    verify: async (s) => kdf.verify(await kdf.hash('other'), s),
    verifySync: (s) => kdf.verifySync(kdf.hashSync('other', { algorithm: 'bcrypt', cost: 4 }), s),
  };
  const left = [];
  for (const [name, run] of Object.entries(cases)) {
    const secret = freshSecret(name);
    if (await pooledCopies(secret, () => run(secret.text)) !== 0) left.push(name);
  }
  assert.deepEqual(left, [], 'calls that left a copy in Buffer\'s pool');
});

test('a key over 256 bytes of a call aborted while its job ran is never left in JS memory', async () => {
  const pool = kdf.createPool({ name: 'sec.abt', threads: 1 });
  try {
    const password = freshSecret('aborted').text;
    const key = crypto.pbkdf2Sync(password, 'salt', 1000, 1024, 'sha256');
    const ac = new AbortController();
    handed.length = 0;
    const call = pool.pbkdf2(password, 'salt', 1000, 1024, 'sha256', { signal: ac.signal });
    // The JS thread stays here until the job has started: the abort then
    // finds it running (or finished, its key not yet handed back).
    while (pool.stats().running + pool.stats().completed === 0) crypto.pbkdf2Sync('spin', 'salt', 1, 32, 'sha256');
    ac.abort();
    await assert.rejects(call, { name: 'AbortError' });
    // A later job on the one thread: once it is back, so is the aborted one.
    const later = await pool.pbkdf2('later', 'salt', 1, 300, 'sha256');
    assert.deepEqual(later, crypto.pbkdf2Sync('later', 'salt', 1, 300, 'sha256'));
    assert.equal(handed.filter((b) => contains(b, key)).length, 0, 'the aborted call\'s key in a Buffer handed to JS');
    // Native code heard of the abort: it wiped the key instead of handing it up.
    assert.equal(handed.filter((b) => b.byteLength === 1024).length, 0, 'a Buffer was made for a dropped key');
  } finally {
    await pool.close();
  }
});

// Runs `fn` with every Buffer.alloc and Buffer.allocUnsafeSlow recorded
// (where lib/ makes its copies), then names the `secrets` (freshSecret()s)
// whose bytes are still in one of those buffers.
async function leftInAllocations(secrets, fn) {
  const made = [];
  const { allocUnsafeSlow, alloc } = Buffer;
  const record = (original) => function (...args) {
    const b = original.apply(Buffer, args);
    made.push(b);
    return b;
  };
  Buffer.allocUnsafeSlow = record(allocUnsafeSlow);
  Buffer.alloc = record(alloc);
  try {
    await fn();
  } finally {
    Buffer.allocUnsafeSlow = allocUnsafeSlow;
    Buffer.alloc = alloc;
  }
  assert.ok(made.length > 0, 'the recorder saw the copies');
  const own = new Set(secrets.map((s) => s.bytes)); // the test's own copies
  return secrets.filter((s) => made.some((b) => !own.has(b) && contains(b, s.bytes))).map((s) => s.text.split('-')[0]);
}

// The copies lib/ does make of a string (UTF-8, in memory of their own) are
// wiped once used: every Buffer allocated while the call runs is recorded
// and scanned after it settles (the pool's pepper, after the pool closes).
test('the UTF-8 copies lib/ makes of passwords and peppers are wiped once used', async () => {
  const secrets = [];
  const fresh = (label) => {
    const s = freshSecret(label);
    secrets.push(s);
    return s.text;
  };
  const left = await leftInAllocations(secrets, async () => {
    const pool = kdf.createPool({ name: 'sec.cpy', threads: 1, secret: fresh('poolPepper') });
    const argon2 = { algorithm: 'argon2id', memory: 64, passes: 1, parallelism: 1 };
    const phc = await pool.hash(fresh('hashPassword'), { ...argon2, secret: fresh('hashPepper') });
    await pool.verify(phc, fresh('verifyPassword'));
    pool.verifySync(pool.hashSync(fresh('hashSyncPassword'), argon2), fresh('verifySyncPassword'));
    kdf.configure({ secret: fresh('configurePepper') });
    kdf.configure({ secret: null });
    await pool.close();
  });
  assert.deepEqual(left, [], 'secrets still in buffers lib/ allocated');
});

// Named peppers (rotation): the pool's copies of every key, strings and
// bytes alike, are wiped when the keys are replaced (configure) or the pool
// closes; a call's named keys leave no encoded copy behind; no copy of any
// key lands in Buffer's shared pool.
test('named peppers: the pool\'s copies are wiped when replaced or closed, a call\'s leave none', async () => {
  const secrets = [];
  const fresh = (label) => {
    const s = freshSecret(label);
    secrets.push(s);
    return s;
  };
  const argon2 = { algorithm: 'argon2id', memory: 64, passes: 1, parallelism: 1 };
  let pooled = 0;
  const left = await leftInAllocations(secrets, async () => {
    const k1 = fresh('namedOne');
    const k2bytes = Buffer.from(fresh('namedTwo').bytes); // a Buffer key: the pool copies it
    let pool;
    pooled += await pooledCopies(k1, () => {
      pool = kdf.createPool({ name: 'sec.nk', threads: 1, secret: { current: 'k2', keys: { k1: k1.text, k2: k2bytes } } });
    });
    const phc = await pool.hash(fresh('namedPassword').text, argon2);
    assert.match(phc, /,keyid=azI\$/);
    await pool.verify(phc, 'wrong');
    const c2 = fresh('callTwo');
    const call = { ...argon2, secret: { current: 'c2', keys: { c1: fresh('callOne').text, c2: c2.text } } };
    pooled += await pooledCopies(c2, async () => {
      const h = await pool.hash('pw', call);
      await pool.verify(h, 'pw', call);
      pool.verifySync(pool.hashSync('pw', call), 'pw', call);
      await pool.verifyUnknown('pw', call);
    });
    const d1 = fresh('defaultOne');
    pooled += await pooledCopies(d1, () => kdf.configure({ secret: { current: 'd1', keys: { d1: d1.text } } }));
    await kdf.verifyUnknown('pw', argon2);
    kdf.configure({ secret: { current: 'd2', keys: { d2: fresh('defaultTwo').text } } }); // replaces d1's copy
    kdf.configure({ secret: null });
    await pool.close();
    k2bytes.fill(0); // the test's own Buffer
  });
  assert.equal(pooled, 0, 'a key copied into Buffer\'s pool');
  assert.deepEqual(left, [], 'keys still in buffers lib/ allocated');
});

// A failed bcrypt verify computed the hash of the wrong password (often a
// near miss of the right one): that derived key must not stay behind in
// Buffer's pool either. The stored string here has the salt of a known
// hash of `guess` and another hash, so verify(guess) computes the known one
// and answers false.
test('a bcrypt verify that fails leaves no copy of the computed hash in Buffer\'s pool', async () => {
  const guess = freshSecret('guess').text;
  const computed = kdf.hashSync(guess, { algorithm: 'bcrypt', cost: 4 });
  const hashText = computed.slice(29);
  const probe = Buffer.allocUnsafeSlow(hashText.length);
  probe.write(hashText, 'latin1');
  const other = kdf.hashSync('other', { algorithm: 'bcrypt', cost: 4 }).slice(29);
  const stored = computed.slice(0, 29) + other;
  assert.equal(kdf.verifySync(computed, guess), true, 'the known hash is what verify computes');
  const copies = await pooledCopies({ bytes: probe }, async () => {
    assert.equal(await kdf.verify(stored, guess), false);
    assert.equal(kdf.verifySync(stored, guess), false);
  });
  assert.equal(copies, 0, 'the computed hash left in Buffer\'s pool');
});
