'use strict';

// docs/migrating.md, followed literally: stored hashes made by the real peer
// packages (node:crypto pbkdf2/scrypt, npm argon2, @node-rs/argon2, npm
// bcrypt, bcryptjs) verify through kdfpool, kdfpool's hashes verify through
// the peers, the recipes in the guide (extracted from it and run as
// written) handle string, hex and base64 salts, requiredLimits() reports
// what the default limits refuse, and peer option names get errors naming
// kdfpool's equivalent.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const npmArgon2 = require('argon2');
const nodeRs = require('@node-rs/argon2');
const npmBcrypt = require('bcrypt');
const bcryptjs = require('bcryptjs');
const kdf = require('..');

const PW = 'correct horse battery staple';

// The function definitions in the ```js block after `<!-- recipe: name -->`.
function recipe(name, exported) {
  const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'migrating.md'), 'utf8');
  const at = doc.indexOf(`<!-- recipe: ${name} -->`);
  assert.ok(at >= 0, `recipe ${name} in docs/migrating.md`);
  const block = /```js\n([\s\S]*?)```/.exec(doc.slice(at));
  const code = block[1].replace(/^ {2}/gm, '');
  return new Function('Buffer', `${code}\nreturn { ${exported.join(', ')} };`)(Buffer);
}

describe('from crypto.pbkdf2: the recipe, both ways', () => {
  const { pbkdf2ToPhc, phcToPbkdf2 } = recipe('pbkdf2', ['pbkdf2ToPhc', 'phcToPbkdf2']);
  const hexSalt = crypto.randomBytes(16).toString('hex');
  const b64Salt = crypto.randomBytes(16).toString('base64');
  // [what the app stored, what it passed to crypto.pbkdf2, what it gives the recipe]
  const salts = [
    ['a hex string, passed as is', hexSalt, hexSalt],
    ['a base64 string, passed as is', b64Salt, b64Salt],
    ['hex, decoded before use', Buffer.from(hexSalt, 'hex'), Buffer.from(hexSalt, 'hex')],
    ['base64, decoded before use', Buffer.from(b64Salt, 'base64'), Buffer.from(b64Salt, 'base64')],
    ['any text', 'user@example.com', 'user@example.com'],
  ];
  for (const [what, given, forRecipe] of salts) {
    for (const [digest, keylen] of [['sha1', 20], ['sha256', 32], ['sha512', 64], ['sha256', 64], ['sha512', 16]]) {
      test(`salt ${what}; ${digest}, ${keylen}-byte key stored as hex`, async () => {
        const storedHex = crypto.pbkdf2Sync(PW, given, 1000, keylen, digest).toString('hex');
        const phc = pbkdf2ToPhc(digest, 1000, forRecipe, Buffer.from(storedHex, 'hex'));
        assert.equal(await kdf.verify(phc, PW), true, phc);
        assert.equal(await kdf.verify(phc, `${PW}!`), false);
        assert.equal(kdf.needsRehash(phc), true);
      });
    }
  }

  test('the old recipe (ab64 of the salt as given) is what failed for string salts', async () => {
    const key = crypto.pbkdf2Sync(PW, hexSalt, 1000, 32, 'sha256');
    const ab64 = (b) => b.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');
    // String.prototype.toString ignores 'base64': the hex text lands in the string undecoded.
    const old = `$pbkdf2-sha256$1000$${ab64(hexSalt)}$${ab64(key)}`;
    assert.notEqual(await kdf.verify(old, PW).catch(() => false), true);
    assert.equal(await kdf.verify(pbkdf2ToPhc('sha256', 1000, hexSalt, key), PW), true);
  });

  test('kdf.hash pbkdf2 strings back to crypto.pbkdf2', async () => {
    for (const algorithm of ['pbkdf2-sha256', 'pbkdf2-sha512']) {
      const phc = await kdf.hash(PW, { algorithm, iterations: 1000 });
      const { digest, iterations, salt, key } = phcToPbkdf2(phc);
      assert.ok(crypto.timingSafeEqual(crypto.pbkdf2Sync(PW, salt, iterations, key.length, digest), key));
      assert.equal(crypto.pbkdf2Sync('wrong', salt, iterations, key.length, digest).equals(key), false);
    }
  });
});

describe('from crypto.scrypt: the recipe, both ways', () => {
  const { scryptToPhc, phcToScrypt } = recipe('scrypt', ['scryptToPhc', 'phcToScrypt']);

  test('defaults (N 16384, r 8, p 1), hex string salt, 64-byte key', async () => {
    const salt = crypto.randomBytes(16).toString('hex');
    const key = crypto.scryptSync(PW, salt, 64);
    const phc = scryptToPhc(salt, key);
    assert.match(phc, /^\$scrypt\$ln=14,r=8,p=1\$/);
    assert.equal(await kdf.verify(phc, PW), true);
    assert.equal(await kdf.verify(phc, 'wrong'), false);
  });

  test('other parameters, node\'s aliases mapped by hand, Buffer salt, 32-byte key', async () => {
    const salt = crypto.randomBytes(24);
    const key = crypto.scryptSync(PW, salt, 32, { cost: 1024, blockSize: 4, parallelization: 2 });
    const phc = scryptToPhc(salt, key, { N: 1024, r: 4, p: 2 });
    assert.equal(await kdf.verify(phc, PW), true);
  });

  test('kdf.hash scrypt strings back to crypto.scrypt', async () => {
    const phc = await kdf.hash(PW, { algorithm: 'scrypt', ln: 10, r: 8, p: 1 });
    const { N, r, p, salt, key } = phcToScrypt(phc);
    assert.ok(crypto.scryptSync(PW, salt, key.length, { N, r, p }).equals(key));
  });
});

describe('npm argon2 and @node-rs/argon2, both ways', () => {
  test('npm argon2 hashes verify in kdfpool; kdfpool hashes verify in npm argon2', async () => {
    for (const options of [{}, { type: npmArgon2.argon2i, memoryCost: 4096, timeCost: 2, parallelism: 2 },
      { secret: Buffer.from('pepper') }]) {
      const h = await npmArgon2.hash(PW, options);
      assert.equal(await kdf.verify(h, PW, options.secret ? { secret: options.secret } : undefined), true, h);
      assert.equal(await kdf.verify(h, 'wrong', options.secret ? { secret: options.secret } : undefined), false);
    }
    const mine = await kdf.hash(PW, { memory: 65536, passes: 3, parallelism: 4 });
    assert.equal(await npmArgon2.verify(mine, PW), true);
    assert.equal(await npmArgon2.verify(mine, 'wrong'), false);
  });

  test('@node-rs/argon2 hashes verify in kdfpool; kdfpool hashes verify in @node-rs/argon2', async () => {
    const h = await nodeRs.hash(PW);
    assert.equal(await kdf.verify(h, PW), true);
    assert.equal(kdf.needsRehash(h), false); // same defaults
    const mine = await kdf.hash(PW);
    assert.equal(await nodeRs.verify(mine, PW), true);
    assert.equal(await nodeRs.verify(mine, 'wrong'), false);
  });

  // Made by npm argon2 (argon2.hash(PW, { memoryCost: 524288, timeCost: 1, parallelism: 4 })):
  // 512 MiB, over the default argon2Memory.
  const ARGON2_512MIB = '$argon2id$v=19$m=524288,p=4,t=1$GMx2gIPQneR+bd2w24Tr1g$51kJQsiBMKj84cEkl3YHHEgVM+KGkflxqFQoKgJsFMk';

  test('npm argon2 at m=512 MiB: refused by default naming argon2Memory; verifies with requiredLimits()', async () => {
    await assert.rejects(kdf.verify(ARGON2_512MIB, PW), (err) => {
      assert.equal(err.code, 'ERR_KDF_HASH_LIMIT');
      assert.equal(err.limit, 'argon2Memory');
      assert.match(err.message, /raise argon2Memory in the pool's hashLimits/);
      return true;
    });
    const { hashLimits, memoryNeeded } = kdf.requiredLimits([ARGON2_512MIB, await nodeRs.hash(PW)]);
    assert.deepEqual(hashLimits, { argon2Memory: 524288, memory: 536870912 }); // exactly what the guide's table says
    assert.equal(memoryNeeded, 536870912 + 32); // the job's memory and its output
    const pool = kdf.createPool({ threads: 1, maxMemory: memoryNeeded, hashLimits });
    try {
      assert.equal(await pool.verify(ARGON2_512MIB, PW), true);
      assert.equal(kdf.needsRehash(ARGON2_512MIB, { memory: 524288, passes: 1, parallelism: 4 }), false);
    } finally {
      await pool.close();
    }
  });
});

describe('npm bcrypt and bcryptjs, both ways', () => {
  test('bcrypt and bcryptjs hashes verify in kdfpool, and kdfpool\'s in both', async () => {
    for (const h of [await npmBcrypt.hash(PW, 4), bcryptjs.hashSync(PW, 5), await bcryptjs.hash(PW, 4)]) {
      assert.equal(await kdf.verify(h, PW), true, h);
      assert.equal(await kdf.verify(h, 'wrong'), false);
    }
    const mine = await kdf.hash(PW, { algorithm: 'bcrypt', cost: 5 });
    assert.equal(await npmBcrypt.compare(PW, mine), true);
    assert.equal(bcryptjs.compareSync(PW, mine), true);
    assert.equal(await npmBcrypt.compare('wrong', mine), false);
  });

  // Made by npm bcrypt: await bcrypt.hash(PW, 14).
  const BCRYPT_14 = '$2b$14$psnXgx2XaQSuZfeG4Im0EekwhzbrO3lUr1gf7SKMdyczOR/t61fdm';

  test('npm bcrypt at cost 14 verifies under the default limits', async () => {
    assert.deepEqual(kdf.requiredLimits([BCRYPT_14]).hashLimits, {});
    assert.equal(await kdf.verify(BCRYPT_14, PW), true);
  });

  test('cost 16 and 17 need the limits the guide names', () => {
    const at = (cost) => `$2b$${cost}$${BCRYPT_14.slice(7)}`;
    assert.deepEqual(kdf.requiredLimits([at(16)]).hashLimits, { work: 1049 });
    assert.deepEqual(kdf.requiredLimits([at(17)]).hashLimits, { work: 2098, bcryptCost: 17 });
  });
});

describe('requiredLimits()', () => {
  test('{} when the defaults accept every sample; the largest need per limit otherwise', async () => {
    const fine = [await npmBcrypt.hash(PW, 4), await npmArgon2.hash(PW), '$scrypt$ln=17,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo'];
    assert.deepEqual(kdf.requiredLimits(fine), { hashLimits: {}, memoryNeeded: 128 * 8 * (2 ** 17 + 3) + 12 });
    const salt = Buffer.alloc(2000, 1).toString('base64').replace(/=+$/, '');
    const { hashLimits } = kdf.requiredLimits([`$scrypt$ln=10,r=8,p=20$${salt}$aGFzaGhhc2hoYXNo`,
      '$argon2id$v=19$m=4096,t=100,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo']);
    assert.equal(hashLimits.saltLength, 2000);
    assert.equal(hashLimits.scryptParallelism, 20);
    assert.equal(hashLimits.argon2Passes, 100);
  });

  test('what it reports is enough: verify then accepts every sample', async () => {
    const samples = ['$2b$16$psnXgx2XaQSuZfeG4Im0EekwhzbrO3lUr1gf7SKMdyczOR/t61fdm',
      '$argon2id$v=19$m=300000,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo'];
    const { hashLimits } = kdf.requiredLimits(samples);
    for (const phc of samples) {
      await assert.rejects(kdf.verify(phc, PW, { signal: AbortSignal.abort() }), { code: 'ERR_KDF_HASH_LIMIT' });
      await assert.rejects(kdf.verify(phc, PW, { limits: hashLimits, signal: AbortSignal.abort() }), { name: 'AbortError' });
    }
  });

  test('bad input: malformed samples name their index; not an iterable of strings', () => {
    assert.throws(() => kdf.requiredLimits(['$2b$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', '$nope$']),
      { code: 'ERR_KDF_INVALID_HASH', index: 1 });
    // Parameters the KDF itself refuses (scrypt N = 2^60) cannot verify under any limits.
    assert.throws(() => kdf.requiredLimits(['$scrypt$ln=60,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo']),
      { code: 'ERR_KDF_INVALID_HASH', index: 0, message: /the KDF refuses its parameters/ });
    assert.throws(() => kdf.requiredLimits('$2b$...'), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => kdf.requiredLimits([42]), { code: 'ERR_INVALID_ARG_TYPE' });
  });
});

describe('peer option names are refused naming kdfpool\'s', () => {
  const cases = [
    [{ memoryCost: 65536 }, /memoryCost' is not an option of argon2id; kdfpool's equivalent is `memory`/],
    [{ timeCost: 3 }, /equivalent is `passes`/],
    [{ hashLength: 32 }, /equivalent is `tagLength`/],
    [{ outputLen: 32 }, /equivalent is `tagLength`/],
    [{ type: 2 }, /equivalent is `algorithm`/],
    [{ algorithm: 'bcrypt', saltRounds: 12 }, /saltRounds' is not an option of bcrypt; kdfpool's equivalent is `cost`/],
    [{ algorithm: 'bcrypt', rounds: 12 }, /equivalent is `cost`/],
    [{ saltRounds: 12 }, /equivalent is `cost` with algorithm: 'bcrypt'/],
    [{ algorithm: 'scrypt', cost: 16384 }, /cost' is not an option of scrypt; kdfpool's equivalent is `N`/],
    [{ algorithm: 'scrypt', blockSize: 8 }, /equivalent is `r`/],
    [{ algorithm: 'scrypt', parallelization: 1 }, /equivalent is `p`/],
    [{ algorithm: 'scrypt', keylen: 64 }, /equivalent is `tagLength`/],
    [{ algorithm: 'pbkdf2-sha256', digest: 'sha256' }, /equivalent is `algorithm`/],
  ];
  for (const [options, message] of cases) {
    test(JSON.stringify(options), async () => {
      await assert.rejects(kdf.hash(PW, options), { code: 'ERR_INVALID_ARG_VALUE', message });
      assert.throws(() => kdf.needsRehash('$2b$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', options),
        { code: 'ERR_INVALID_ARG_VALUE', message });
    });
  }
});
