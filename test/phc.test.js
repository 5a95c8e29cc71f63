'use strict';

// Password storage over PHC strings: kdf.hash / kdf.verify / kdf.needsRehash.
// Round trips, known vectors (Argon2 reference, passlib), strict parsing,
// limits on hostile stored hashes (checked before any work is queued) and
// their per-pool / per-call overrides, and needsRehash.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const kdf = require('..');

const INVALID = { name: 'InvalidHashError', code: 'ERR_KDF_INVALID_HASH' };
const LIMIT = (limit) => ({ name: 'HashLimitError', code: 'ERR_KDF_HASH_LIMIT', retryable: false, limit });
const SALT16 = 'c29tZXNhbHRzb21lc2FsdA'; // "somesaltsomesalt"
const HASH32 = 'aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'; // 32 bytes
const b64 = (n, byte = 0x41) => Buffer.alloc(n, byte).toString('base64').replace(/=+$/, '');

// Small parameters: the point is the format, not the cost.
const SMALL = {
  argon2id: { algorithm: 'argon2id', memory: 256, passes: 1, parallelism: 1 },
  argon2i: { algorithm: 'argon2i', memory: 256, passes: 2, parallelism: 2 },
  argon2d: { algorithm: 'argon2d', memory: 512, passes: 1, parallelism: 4, tagLength: 16, saltLength: 8 },
  scrypt: { algorithm: 'scrypt', ln: 10, r: 8, p: 1 },
  'pbkdf2-sha256': { algorithm: 'pbkdf2-sha256', iterations: 1000 },
  'pbkdf2-sha512': { algorithm: 'pbkdf2-sha512', iterations: 1000, saltLength: 24 },
  bcrypt: { algorithm: 'bcrypt', cost: 4 },
};

const FORMATS = {
  argon2id: /^\$argon2id\$v=19\$m=256,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
  argon2i: /^\$argon2i\$v=19\$m=256,t=2,p=2\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
  argon2d: /^\$argon2d\$v=19\$m=512,t=1,p=4\$[A-Za-z0-9+/]{11}\$[A-Za-z0-9+/]{22}$/,
  scrypt: /^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/,
  'pbkdf2-sha256': /^\$pbkdf2-sha256\$1000\$[A-Za-z0-9./]{22}\$[A-Za-z0-9./]{43}$/,
  'pbkdf2-sha512': /^\$pbkdf2-sha512\$1000\$[A-Za-z0-9./]{32}\$[A-Za-z0-9./]{86}$/,
  bcrypt: /^\$2b\$04\$[A-Za-z0-9./]{53}$/,
};

describe('round trips', () => {
  for (const [name, options] of Object.entries(SMALL)) {
    test(name, async () => {
      const h = await kdf.hash('correct horse', options);
      assert.match(h, FORMATS[name]);
      assert.equal(await kdf.verify(h, 'correct horse'), true);
      assert.equal(await kdf.verify(h, Buffer.from('correct horse')), true);
      assert.equal(await kdf.verify(h, 'correct horsE'), false);
      assert.equal(await kdf.verify(h, ''), false);
      assert.equal(kdf.needsRehash(h, options), false);
      assert.equal(kdf.needsRehash(h), true);
      const again = await kdf.hash('correct horse', options);
      assert.notEqual(again, h); // fresh salt
    });
  }

  test('default: argon2id m=19456 t=2 p=1, 16-byte salt, 32-byte tag', async () => {
    const h = await kdf.hash('pässwörd 🔑');
    assert.match(h, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    assert.equal(await kdf.verify(h, 'pässwörd 🔑'), true);
    assert.equal(await kdf.verify(h, 'pässwörd'), false);
    assert.equal(kdf.needsRehash(h), false);
  });

  test('pools made by createPool() hash and verify on themselves', async () => {
    const pool = kdf.createPool({ threads: 1 });
    try {
      const before = pool.stats().submitted;
      const h = await pool.hash('pw', SMALL.argon2id);
      assert.equal(await pool.verify(h, 'pw'), true);
      assert.equal(await kdf.verify(h, 'pw'), true);
      assert.equal(pool.stats().submitted, before + 2);
    } finally {
      await pool.close();
    }
  });

  test('empty and binary passwords', async () => {
    const h = await kdf.hash('', SMALL.argon2id);
    assert.equal(await kdf.verify(h, ''), true);
    assert.equal(await kdf.verify(h, new Uint8Array(0)), true);
    const bin = Buffer.from([0, 255, 0, 128]);
    const hb = await kdf.hash(bin, SMALL.scrypt);
    assert.equal(await kdf.verify(hb, new Uint8Array(bin).buffer), true);
    assert.equal(await kdf.verify(hb, Buffer.from([0, 255, 0])), false);
  });
});

describe('known strings', () => {
  test('Argon2 reference implementation: v=19 and the legacy form without v= (0x10)', async () => {
    assert.equal(await kdf.verify('$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA', 'password'), true);
    assert.equal(await kdf.verify('$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ', 'password'), true);
    assert.equal(await kdf.verify('$argon2i$v=16$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ', 'password'), true);
    assert.equal(await kdf.verify('$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ', 'passwore'), false);
    // The legacy string is not an argon2i v=19 hash.
    assert.equal(await kdf.verify('$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ', 'password'), false);
    assert.equal(kdf.needsRehash('$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ',
      { algorithm: 'argon2i', memory: 65536, passes: 2, parallelism: 1, saltLength: 8 }), true);
    assert.equal(kdf.needsRehash('$argon2i$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$wWKIMhR9lyDFvRz9YTZweHKfbftvj+qf+YFY4NeBbtA',
      { algorithm: 'argon2i', memory: 65536, passes: 2, parallelism: 1, saltLength: 8 }), false);
  });

  test("passlib's documented pbkdf2_sha256 hashes", async () => {
    assert.equal(await kdf.verify('$pbkdf2-sha256$6400$0ZrzXitFSGltTQnBWOsdAw$Y11AchqV4b0sUisdZd0Xr97KWoymNE0LNNrnEgY4H9M', 'password'), true);
    assert.equal(await kdf.verify('$pbkdf2-sha256$8000$XAuBMIYQQogxRg$tRRlz8hYn63B9LYiCd6PRo6FMiunY9ozmMMI3srxeRE', 'password'), true);
    assert.equal(await kdf.verify('$pbkdf2-sha256$8000$XAuBMIYQQogxRg$tRRlz8hYn63B9LYiCd6PRo6FMiunY9ozmMMI3srxeRE', 'Password'), false);
  });

  test('PBKDF2: passlib $pbkdf2$ (SHA-1), $pbkdf2-sha1$, and the PHC i=/l= form', async () => {
    const crypto = require('node:crypto');
    const salt = Buffer.from('saltsaltsalt1234');
    const ab64 = (b) => b.toString('base64').replace(/=+$/, '').replace(/\+/g, '.');
    const std = (b) => b.toString('base64').replace(/=+$/, '');
    const dk1 = crypto.pbkdf2Sync('pw', salt, 1000, 20, 'sha1');
    assert.equal(await kdf.verify(`$pbkdf2$1000$${ab64(salt)}$${ab64(dk1)}`, 'pw'), true);
    assert.equal(await kdf.verify(`$pbkdf2-sha1$1000$${ab64(salt)}$${ab64(dk1)}`, 'pw'), true);
    assert.equal(await kdf.verify(`$pbkdf2$1000$${ab64(salt)}$${ab64(dk1)}`, 'pW'), false);
    const dk = crypto.pbkdf2Sync('pw', salt, 1000, 32, 'sha256');
    assert.equal(await kdf.verify(`$pbkdf2-sha256$i=1000,l=32$${std(salt)}$${std(dk)}`, 'pw'), true);
    assert.equal(await kdf.verify(`$pbkdf2-sha256$i=1000$${std(salt)}$${std(dk)}`, 'pw'), true);
    assert.equal(await kdf.verify(`$pbkdf2-sha256$l=32,i=1000$${std(salt)}$${std(dk)}`, 'pw'), true);
    await assert.rejects(kdf.verify(`$pbkdf2-sha256$i=1000,l=31$${std(salt)}$${std(dk)}`, 'pw'), INVALID);
    // passlib's hash is the digest's full length.
    await assert.rejects(kdf.verify(`$pbkdf2-sha256$1000$${ab64(salt)}$${ab64(dk.subarray(0, 31))}`, 'pw'), INVALID);
    assert.equal(kdf.needsRehash(`$pbkdf2$1000$${ab64(salt)}$${ab64(dk1)}`, { algorithm: 'pbkdf2-sha256', iterations: 2000 }), true);
  });

  test('argon2 data= (associated data) is honoured', async () => {
    const salt = Buffer.from('somesaltsomesalt');
    const tag = await kdf.argon2('argon2id', {
      message: 'pw', nonce: salt, parallelism: 1, tagLength: 32, memory: 64, passes: 1, associatedData: Buffer.from('ad'),
    });
    const s = (b) => b.toString('base64').replace(/=+$/, '');
    const phc = `$argon2id$v=19$m=64,t=1,p=1,data=${s(Buffer.from('ad'))}$${s(salt)}$${s(tag)}`;
    assert.equal(await kdf.verify(phc, 'pw'), true);
    assert.equal(await kdf.verify(phc.replace('data=YWQ', 'data=YWU'), 'pw'), false);
    assert.equal(await kdf.verify(phc.replace(',data=YWQ', ''), 'pw'), false);
  });
});

describe('malformed strings', () => {
  const good = `$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${HASH32}`;

  test('not a string -> ERR_INVALID_ARG_TYPE', async () => {
    for (const value of [undefined, null, 42, Buffer.from(good), {}, ['$argon2id']]) {
      await assert.rejects(kdf.verify(value, 'pw'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
      assert.throws(() => kdf.needsRehash(value), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
    }
  });

  test('bad password or options types', async () => {
    await assert.rejects(kdf.verify(good, 42), { code: 'ERR_INVALID_ARG_TYPE' });
    await assert.rejects(kdf.verify(good, 'pw', 'x'), { code: 'ERR_INVALID_ARG_TYPE' });
    await assert.rejects(kdf.verify(good, 'pw', { signal: 1 }), { code: 'ERR_INVALID_ARG_TYPE' });
    await assert.rejects(kdf.verify(good, 'pw', { limits: { argon2Memory: -1 } }), { code: 'ERR_OUT_OF_RANGE' });
    await assert.rejects(kdf.verify(good, 'pw', { limits: { mem: 1 } }), { code: 'ERR_INVALID_ARG_VALUE' });
    await assert.rejects(kdf.hash(42), { code: 'ERR_INVALID_ARG_TYPE' });
  });

  const cases = {
    empty: '',
    'no leading $': good.slice(1),
    'just $': '$',
    garbage: 'hello world',
    'unknown algorithm': good.replace('argon2id', 'argon2x'),
    'md5-crypt': '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/',
    'truncated (no hash)': good.slice(0, good.lastIndexOf('$')),
    'truncated hash field': good.slice(0, good.lastIndexOf('$') + 1),
    'truncated params': `$argon2id$v=19$m=64,t=1$${SALT16}$${HASH32}`,
    'trailing $': `${good}$`,
    'trailing field': `${good}$abc`,
    'padded salt': `$argon2id$v=19$m=64,t=1,p=1$${SALT16}==$${HASH32}`,
    'padded hash': `${good}=`,
    'url-safe base64': `$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${HASH32.slice(0, -2)}-_`,
    'impossible base64 length': `$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${HASH32}AA`,
    'non-canonical base64 (trailing bits)': `$argon2id$v=19$m=64,t=1,p=1$${SALT16.slice(0, -1)}B$${HASH32}`,
    'duplicate param': `$argon2id$v=19$m=64,t=1,p=1,t=1$${SALT16}$${HASH32}`,
    'unknown param': `$argon2id$v=19$m=64,t=1,p=1,x=1$${SALT16}$${HASH32}`,
    'empty keyid=': `$argon2id$v=19$m=64,t=1,p=1,keyid=$${SALT16}$${HASH32}`,
    'keyid of 9 bytes': `$argon2id$v=19$m=64,t=1,p=1,keyid=${b64(9)}$${SALT16}$${HASH32}`,
    'padded keyid': `$argon2id$v=19$m=64,t=1,p=1,keyid=azE=$${SALT16}$${HASH32}`,
    'non-canonical keyid (trailing bits)': `$argon2id$v=19$m=64,t=1,p=1,keyid=azF$${SALT16}$${HASH32}`,
    'duplicate keyid': `$argon2id$v=19$m=64,t=1,p=1,keyid=azE,keyid=azE$${SALT16}$${HASH32}`,
    'empty param list': `$argon2id$v=19$$${SALT16}$${HASH32}`,
    'leading zero': `$argon2id$v=19$m=064,t=1,p=1$${SALT16}$${HASH32}`,
    'plus sign': `$argon2id$v=19$m=+64,t=1,p=1$${SALT16}$${HASH32}`,
    'minus sign': `$argon2id$v=19$m=64,t=-1,p=1$${SALT16}$${HASH32}`,
    'hex number': `$argon2id$v=19$m=0x40,t=1,p=1$${SALT16}$${HASH32}`,
    'space in number': `$argon2id$v=19$m=64 ,t=1,p=1$${SALT16}$${HASH32}`,
    'number over 2^32-1': `$argon2id$v=19$m=4294967296,t=1,p=1$${SALT16}$${HASH32}`,
    't=0': `$argon2id$v=19$m=64,t=0,p=1$${SALT16}$${HASH32}`,
    'p=0': `$argon2id$v=19$m=64,t=1,p=0$${SALT16}$${HASH32}`,
    'm < 8p': `$argon2id$v=19$m=15,t=1,p=2$${SALT16}$${HASH32}`,
    'unknown version': `$argon2id$v=18$m=64,t=1,p=1$${SALT16}$${HASH32}`,
    'version with leading zero': `$argon2id$v=019$m=64,t=1,p=1$${SALT16}$${HASH32}`,
    'empty salt': `$argon2id$v=19$m=64,t=1,p=1$$${HASH32}`,
    'argon2 salt of 7 bytes': `$argon2id$v=19$m=64,t=1,p=1$${b64(7)}$${HASH32}`,
    'argon2 hash of 3 bytes': `$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${b64(3)}`,
    'empty data=': `$argon2id$v=19$m=64,t=1,p=1,data=$${SALT16}$${HASH32}`,
    'scrypt missing p': `$scrypt$ln=4,r=8$${SALT16}$${HASH32}`,
    'scrypt duplicate r': `$scrypt$ln=4,r=8,r=8,p=1$${SALT16}$${HASH32}`,
    'scrypt ln=0': `$scrypt$ln=0,r=8,p=1$${SALT16}$${HASH32}`,
    'scrypt N >= 2^(16r)': `$scrypt$ln=16,r=1,p=1$${SALT16}$${HASH32}`,
    'scrypt hash of 9 bytes': `$scrypt$ln=4,r=8,p=1$${SALT16}$${b64(9)}`,
    'scrypt extra field': `$scrypt$v=1$ln=4,r=8,p=1$${SALT16}$${HASH32}`,
    'pbkdf2 rounds 0': `$pbkdf2-sha256$0$${SALT16}$${HASH32}`,
    'pbkdf2 rounds leading zero': `$pbkdf2-sha256$01000$${SALT16}$${HASH32}`,
    'pbkdf2 standard base64 "+" in passlib form': `$pbkdf2-sha256$1000$${SALT16}$${HASH32.slice(0, -1)}+`,
    'pbkdf2 missing i': `$pbkdf2-sha256$l=32$${SALT16}$${HASH32}`,
    'pbkdf2-sha384 unsupported': `$pbkdf2-sha384$1000$${SALT16}$${HASH32}`,
    'bcrypt truncated': '$2b$04$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6k',
  };
  for (const [name, phc] of Object.entries(cases)) {
    test(name, async () => {
      await assert.rejects(kdf.verify(phc, 'pw'), INVALID);
      assert.throws(() => kdf.needsRehash(phc), INVALID);
    });
  }

  test('parameters in any order are accepted for argon2 (npm argon2 writes m,p,t)', async () => {
    const salt = Buffer.from('somesaltsomesalt');
    const tag = await kdf.argon2('argon2id', { message: 'pw', nonce: salt, parallelism: 2, tagLength: 32, memory: 64, passes: 3 });
    const s = (b) => b.toString('base64').replace(/=+$/, '');
    for (const params of ['m=64,t=3,p=2', 'm=64,p=2,t=3', 'p=2,t=3,m=64', 't=3,m=64,p=2']) {
      const phc = `$argon2id$v=19$${params}$${s(salt)}$${s(tag)}`;
      assert.equal(await kdf.verify(phc, 'pw'), true, params);
      assert.equal(kdf.needsRehash(phc, { memory: 64, passes: 3, parallelism: 2 }), false, params);
    }
  });

  test('malformed strings queue no work', async () => {
    const before = kdf.stats().submitted;
    for (const phc of Object.values(cases)) await assert.rejects(kdf.verify(phc, 'pw'));
    assert.equal(kdf.stats().submitted, before);
  });
});

describe('hostile stored hashes: limits', () => {
  const HOSTILE = `$argon2id$v=19$m=4194304,t=1000,p=1$${SALT16}$${HASH32}`;

  test('m=4194304,t=1000 is refused with ERR_KDF_HASH_LIMIT and queues nothing', async () => {
    const before = kdf.stats().submitted;
    await assert.rejects(kdf.verify(HOSTILE, 'pw'), (err) => {
      assert.equal(err.code, 'ERR_KDF_HASH_LIMIT');
      assert.equal(err.name, 'HashLimitError');
      assert.equal(err.retryable, false);
      assert.equal(err.limit, 'argon2Memory');
      assert.equal(err.value, 4194304);
      assert.equal(err.max, 262144);
      assert.match(err.message, /argon2Memory/);
      assert.match(err.message, /262144/);
      return true;
    });
    assert.equal(kdf.stats().submitted, before);
    // needsRehash does no work: it parses hostile strings. Stronger than
    // the default target, so no rehash (never a downgrade); exact: differs.
    assert.equal(kdf.needsRehash(HOSTILE), false);
    assert.equal(kdf.needsRehash(HOSTILE, { exact: true }), true);
  });

  const cases = [
    ['argon2Memory', `$argon2id$v=19$m=262145,t=1,p=1$${SALT16}$${HASH32}`, `$argon2id$v=19$m=262144,t=1,p=1$${SALT16}$${HASH32}`],
    ['argon2Passes', `$argon2id$v=19$m=64,t=65,p=1$${SALT16}$${HASH32}`, `$argon2id$v=19$m=64,t=64,p=1$${SALT16}$${HASH32}`],
    ['argon2Lanes', `$argon2id$v=19$m=256,t=1,p=17$${SALT16}$${HASH32}`, `$argon2id$v=19$m=256,t=1,p=16$${SALT16}$${HASH32}`],
    ['scryptMemory', `$scrypt$ln=19,r=8,p=1$${SALT16}$${HASH32}`, `$scrypt$ln=18,r=8,p=1$${SALT16}$${HASH32}`], // N
    ['scryptMemory', `$scrypt$ln=10,r=2049,p=1$${SALT16}$${HASH32}`, `$scrypt$ln=10,r=2048,p=1$${SALT16}$${HASH32}`], // r
    ['scryptParallelism', `$scrypt$ln=4,r=8,p=17$${SALT16}$${HASH32}`, `$scrypt$ln=4,r=8,p=16$${SALT16}$${HASH32}`],
    // At these two limits the estimated work is over the default `work`: raised for the "at" string.
    ['pbkdf2Iterations', `$pbkdf2-sha256$10000001$${SALT16}$${HASH32}`, `$pbkdf2-sha256$10000000$${SALT16}$${HASH32}`, { work: 1200 }],
    ['bcryptCost', '$2b$17$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', '$2b$16$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka', { work: 3300 }],
    ['saltLength', `$argon2id$v=19$m=64,t=1,p=1$${b64(1025)}$${HASH32}`, null],
    ['hashLength', `$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${b64(1025)}`, null],
    ['saltLength', `$pbkdf2-sha256$1000$${b64(1025)}$${HASH32}`, null],
    ['hashLength', `$scrypt$ln=4,r=8,p=1$${SALT16}$${b64(1025)}`, null],
    ['dataLength', `$argon2id$v=19$m=64,t=1,p=1,data=${b64(1025)}$${SALT16}$${HASH32}`, null],
  ];

  for (const [limit, over, at, atLimits] of cases) {
    test(`${limit}: ${over.slice(0, 40)}...`, async () => {
      const before = kdf.stats().submitted;
      await assert.rejects(kdf.verify(over, 'pw'), LIMIT(limit));
      assert.equal(kdf.stats().submitted, before);
      // At the limit the string gets past the check: with an aborted
      // signal it then stops at submit (AbortError), so no work runs.
      if (at !== null) {
        const ac = new AbortController();
        ac.abort();
        await assert.rejects(kdf.verify(at, 'pw', { signal: ac.signal, limits: atLimits }), { name: 'AbortError' });
        await assert.rejects(kdf.verify(over, 'pw', { signal: ac.signal }), LIMIT(limit));
      }
      assert.equal(kdf.stats().submitted, before);
    });
  }

  test('salt and hash of exactly 1024 bytes pass the limits', async () => {
    const phc = `$pbkdf2-sha256$i=1$${b64(1024)}$${b64(1024)}`;
    assert.equal(await kdf.verify(phc, 'pw'), false);
    await assert.rejects(kdf.verify(`$pbkdf2-sha256$i=1$${b64(1024)}$${b64(1025)}`, 'pw'), LIMIT('hashLength'));
  });

  test('per-call limits raise or lower a limit', async () => {
    const h = await kdf.hash('pw', { algorithm: 'pbkdf2-sha256', iterations: 2000 });
    await assert.rejects(kdf.verify(h, 'pw', { limits: { pbkdf2Iterations: 1999 } }), LIMIT('pbkdf2Iterations'));
    assert.equal(await kdf.verify(h, 'pw', { limits: { pbkdf2Iterations: 2000 } }), true);
    const a = await kdf.hash('pw', { memory: 512, passes: 3, parallelism: 2 });
    await assert.rejects(kdf.verify(a, 'pw', { limits: { argon2Memory: 511 } }), LIMIT('argon2Memory'));
    await assert.rejects(kdf.verify(a, 'pw', { limits: { argon2Passes: 2 } }), LIMIT('argon2Passes'));
    await assert.rejects(kdf.verify(a, 'pw', { limits: { argon2Lanes: 1 } }), LIMIT('argon2Lanes'));
    assert.equal(await kdf.verify(a, 'pw', { limits: { argon2Memory: 512, argon2Passes: 3, argon2Lanes: 2 } }), true);
    const b = await kdf.hash('pw', { algorithm: 'bcrypt', cost: 5 });
    await assert.rejects(kdf.verify(b, 'pw', { limits: { bcryptCost: 4 } }), LIMIT('bcryptCost'));
    const s = await kdf.hash('pw', { algorithm: 'scrypt', ln: 10, r: 4, p: 2 });
    await assert.rejects(kdf.verify(s, 'pw', { limits: { scryptMemory: 128 * 1024 * 4 - 1 } }), LIMIT('scryptMemory'));
    await assert.rejects(kdf.verify(s, 'pw', { limits: { scryptParallelism: 1 } }), LIMIT('scryptParallelism'));
    assert.equal(await kdf.verify(s, 'pw', { limits: { scryptMemory: 128 * 1024 * 4, scryptParallelism: 2 } }), true);
    await assert.rejects(kdf.verify(a, 'pw', { limits: { saltLength: 15 } }), LIMIT('saltLength'));
    await assert.rejects(kdf.verify(a, 'pw', { limits: { hashLength: 31 } }), LIMIT('hashLength'));
    // Raised above the default: a 20-pass string is verified.
    const t = await kdf.hash('pw', { memory: 64, passes: 70, limits: { argon2Passes: 70 } });
    await assert.rejects(kdf.verify(t, 'pw'), LIMIT('argon2Passes'));
    assert.equal(await kdf.verify(t, 'pw', { limits: { argon2Passes: 70 } }), true);
  });

  test('per-pool limits (createPool({ hashLimits })), overridden per call', async () => {
    const pool = kdf.createPool({ threads: 1, hashLimits: { argon2Passes: 2, bcryptCost: 4 } });
    try {
      const h3 = await kdf.hash('pw', { memory: 64, passes: 3 });
      const before = pool.stats().submitted;
      await assert.rejects(pool.verify(h3, 'pw'), LIMIT('argon2Passes'));
      const b5 = await kdf.hash('pw', { algorithm: 'bcrypt', cost: 5 });
      await assert.rejects(pool.verify(b5, 'pw'), LIMIT('bcryptCost'));
      assert.equal(pool.stats().submitted, before);
      assert.equal(await pool.verify(h3, 'pw', { limits: { argon2Passes: 3 } }), true);
      assert.equal(await pool.verify(b5, 'pw', { limits: { bcryptCost: 5 } }), true);
      // The default pool keeps the defaults.
      assert.equal(await kdf.verify(h3, 'pw'), true);
      // Unknown keys in hashLimits are refused when the pool is made.
      assert.throws(() => kdf.createPool({ threads: 1, hashLimits: { argon2Mem: 1 } }),
        { code: 'ERR_INVALID_ARG_VALUE', message: /argon2Mem/ });
    } finally {
      await pool.close();
    }
  });

  test("the pool's memory budget caps argon2 and scrypt memory", async () => {
    const pool = kdf.createPool({ threads: 1, maxMemory: 1024 * 1024 });
    try {
      const h = await kdf.hash('pw', { memory: 2048, passes: 1 });
      const before = pool.stats().submitted;
      await assert.rejects(pool.verify(h, 'pw', { limits: { argon2Memory: 1 << 30 } }), LIMIT('maxMemory'));
      const s = await kdf.hash('pw', { algorithm: 'scrypt', ln: 11, r: 8 }); // 2 MiB
      await assert.rejects(pool.verify(s, 'pw'), LIMIT('maxMemory'));
      assert.equal(pool.stats().submitted, before);
      const small = await kdf.hash('pw', { memory: 512, passes: 1 });
      assert.equal(await pool.verify(small, 'pw'), true);
    } finally {
      await pool.close();
    }
  });
});

describe('hash() options', () => {
  test('argument errors are rejections with node-style codes', async () => {
    const bad = [
      [{ algorithm: 'md5' }, 'ERR_INVALID_ARG_VALUE'],
      [{ algorithm: 42 }, 'ERR_INVALID_ARG_TYPE'],
      ['argon2id', 'ERR_INVALID_ARG_TYPE'],
      [{ memoryCost: 65536 }, 'ERR_INVALID_ARG_VALUE'], // npm argon2's name: not silently ignored
      [{ cost: 10 }, 'ERR_INVALID_ARG_VALUE'], // a bcrypt option on argon2id
      [{ memory: 7 }, 'ERR_OUT_OF_RANGE'],
      [{ memory: 15, parallelism: 2 }, 'ERR_OUT_OF_RANGE'],
      [{ passes: 0 }, 'ERR_OUT_OF_RANGE'],
      [{ passes: 1.5 }, 'ERR_OUT_OF_RANGE'],
      [{ parallelism: '1' }, 'ERR_INVALID_ARG_TYPE'],
      [{ tagLength: 3 }, 'ERR_OUT_OF_RANGE'],
      [{ saltLength: 7 }, 'ERR_OUT_OF_RANGE'],
      [{ algorithm: 'scrypt', N: 1000 }, 'ERR_INVALID_ARG_VALUE'],
      [{ algorithm: 'scrypt', N: 1024, ln: 10 }, 'ERR_INVALID_ARG_VALUE'],
      [{ algorithm: 'scrypt', ln: 0 }, 'ERR_OUT_OF_RANGE'],
      [{ algorithm: 'scrypt', r: 0 }, 'ERR_OUT_OF_RANGE'],
      [{ algorithm: 'pbkdf2-sha256', iterations: 0 }, 'ERR_OUT_OF_RANGE'],
      [{ algorithm: 'pbkdf2-sha256', tagLength: 64 }, 'ERR_INVALID_ARG_VALUE'],
      [{ algorithm: 'bcrypt', cost: 3 }, 'ERR_OUT_OF_RANGE'],
      [{ signal: 'no' }, 'ERR_INVALID_ARG_TYPE'],
      [{ maxWaitMs: -1 }, 'ERR_OUT_OF_RANGE'],
      [{ limits: { nope: 1 } }, 'ERR_INVALID_ARG_VALUE'],
    ];
    const before = kdf.stats().submitted;
    for (const [options, code] of bad) {
      await assert.rejects(kdf.hash('pw', options), { code }, JSON.stringify(options));
      assert.throws(() => kdf.needsRehash(`$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${HASH32}`, options), { code });
    }
    assert.equal(kdf.stats().submitted, before);
  });

  test('scrypt: N and ln are the same parameter', async () => {
    const h = await kdf.hash('pw', { algorithm: 'scrypt', N: 1024, r: 4 });
    assert.match(h, /^\$scrypt\$ln=10,r=4,p=1\$/);
    assert.equal(kdf.needsRehash(h, { algorithm: 'scrypt', ln: 10, r: 4 }), false);
    assert.equal(await kdf.verify(h, 'pw'), true);
  });

  test('an aborted signal rejects with AbortError', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(kdf.hash('pw', { signal: ac.signal }), { name: 'AbortError' });
    const h = await kdf.hash('pw', SMALL.argon2id);
    await assert.rejects(kdf.verify(h, 'pw', { signal: ac.signal }), { name: 'AbortError' });
  });
});

// The rehash due for a verified string: needsRehash() against the target
// raised to the string's own cost (what the frameworks' entries and
// docs/frameworks.md's recipes do). Below the target in any way, and never
// cheaper than the string.
const due = (phc, target) => kdf.needsRehash(phc, kdf.rehashTarget(phc, target));

describe('needsRehash', () => {
  let argon;
  test('setup', async () => {
    argon = await kdf.hash('pw', { memory: 1024, passes: 2, parallelism: 1 });
  });

  test('argon2: each parameter, the version, the tag and salt lengths', () => {
    const target = { memory: 1024, passes: 2, parallelism: 1 };
    const exact = { ...target, exact: true };
    assert.equal(kdf.needsRehash(argon, target), false);
    assert.equal(kdf.needsRehash(argon, exact), false);
    assert.equal(kdf.needsRehash(argon, { ...target, memory: 2048 }), true);
    assert.equal(kdf.needsRehash(argon, { ...target, memory: 512 }), false); // never down
    assert.equal(kdf.needsRehash(argon, { ...exact, memory: 512 }), true); // exact: down too
    assert.equal(kdf.needsRehash(argon, { ...target, passes: 3 }), true);
    assert.equal(kdf.needsRehash(argon, { ...target, passes: 1 }), false);
    assert.equal(kdf.needsRehash(argon, { ...exact, passes: 1 }), true);
    assert.equal(kdf.needsRehash(argon, { ...target, parallelism: 2 }), true);
    assert.equal(kdf.needsRehash(argon, { ...target, tagLength: 64 }), true);
    assert.equal(kdf.needsRehash(argon, { ...target, tagLength: 16 }), false);
    assert.equal(kdf.needsRehash(argon, { ...exact, tagLength: 16 }), true);
    assert.equal(kdf.needsRehash(argon, { ...target, saltLength: 32 }), true); // shorter salt than target
    assert.equal(kdf.needsRehash(argon, { ...target, saltLength: 8 }), false); // longer salt is fine
    assert.equal(kdf.needsRehash(argon, { ...exact, saltLength: 8 }), false); // also when exact
    assert.equal(kdf.needsRehash(argon, { ...target, algorithm: 'argon2i' }), true);
    assert.equal(kdf.needsRehash(argon, { algorithm: 'scrypt' }), true);
    assert.equal(kdf.needsRehash(argon), true); // default m=19456
    // Legacy version 0x10 with the same parameters: rehashed; against a
    // cheaper target, at its own cost.
    const legacy = argon.replace('$v=19$', '$');
    assert.equal(kdf.needsRehash(legacy, target), true);
    assert.equal(kdf.needsRehash(legacy, { memory: 8, passes: 1 }), false);
    assert.equal(due(legacy, { memory: 8, passes: 1 }), true);
    assert.deepEqual(kdf.rehashTarget(legacy, { memory: 8, passes: 1 }),
      { algorithm: 'argon2id', memory: 1024, passes: 2, parallelism: 1 });
    // Parameter order does not matter.
    const reordered = argon.replace('m=1024,t=2,p=1', 'p=1,t=2,m=1024');
    assert.equal(kdf.needsRehash(reordered, target), false);
  });

  test('default target: hash() defaults; bcrypt and PBKDF2 migrate to argon2id at no less than their cost', async () => {
    assert.equal(kdf.needsRehash(`$argon2id$v=19$m=19456,t=2,p=1$${SALT16}$${HASH32}`), false);
    assert.equal(kdf.needsRehash(`$argon2id$v=19$m=19456,p=1,t=2$${SALT16}$${HASH32}`), false);
    assert.equal(kdf.needsRehash(`$argon2i$v=19$m=19456,t=2,p=1$${SALT16}$${HASH32}`), true);
    const bcrypt10 = '$2b$10$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka';
    const pbkdf2 = `$pbkdf2-sha256$600000$${SALT16}$${HASH32}`;
    for (const stored of [bcrypt10, pbkdf2]) {
      assert.equal(due(stored), true, stored);
      assert.match(kdf.rehashTarget(stored).algorithm, /^argon2id$/);
    }
    assert.equal(kdf.needsRehash(bcrypt10, { algorithm: 'bcrypt' }), false);
    assert.equal(kdf.needsRehash(pbkdf2, { algorithm: 'pbkdf2-sha256' }), false);
    assert.equal(kdf.needsRehash(`$pbkdf2-sha256$310000$${SALT16}$${HASH32}`, { algorithm: 'pbkdf2-sha256' }), true);
    assert.equal(kdf.needsRehash(`$scrypt$ln=17,r=8,p=1$${SALT16}$${HASH32}`, { algorithm: 'scrypt' }), false);
    assert.equal(kdf.needsRehash(`$scrypt$ln=16,r=8,p=1$${SALT16}$${HASH32}`, { algorithm: 'scrypt' }), true);
  });
});

describe('needsRehash never downgrades', () => {
  const bcrypt12 = '$2b$12$XWuZ1qb/qT4HY1Y3smpjZeJucjyHI6.rqA79JwFJ5jOYq2nSqK6ka';

  test("npm argon2's default hash (m=65536,t=3,p=4) against our defaults", () => {
    const npmDefault = `$argon2id$v=19$m=65536,p=4,t=3$${SALT16}$${HASH32}`;
    assert.equal(kdf.needsRehash(npmDefault), false);
    assert.equal(kdf.needsRehash(npmDefault, { exact: true }), true);
    // Weaker in one parameter: rehashed, keeping the others (the default's
    // m=19456 t=2 would cost less than the string).
    for (const weaker of [`$argon2id$v=19$m=65536,p=4,t=1$${SALT16}$${HASH32}`, `$argon2id$v=19$m=16384,p=4,t=3$${SALT16}$${HASH32}`]) {
      assert.equal(kdf.needsRehash(weaker), false, weaker);
      assert.equal(due(weaker), true, weaker);
    }
    assert.deepEqual(kdf.rehashTarget(`$argon2id$v=19$m=65536,p=4,t=1$${SALT16}$${HASH32}`),
      { algorithm: 'argon2id', memory: 65536, passes: 2, parallelism: 4 });
    // Shorter hash or salt than the target's: rehash.
    assert.equal(due(`$argon2id$v=19$m=65536,p=4,t=3$${SALT16}$${b64(16)}`), true);
    assert.equal(due(`$argon2id$v=19$m=65536,p=4,t=3$${b64(8)}$${HASH32}`), true);
    // Another Argon2 variant is another family, stronger or not.
    assert.equal(due(`$argon2i$v=19$m=65536,p=4,t=3$${SALT16}$${HASH32}`), true);
    assert.equal(due(`$argon2d$v=19$m=65536,p=4,t=3$${SALT16}$${HASH32}`), true);
    // The old version, however strong.
    assert.equal(due(`$argon2id$v=16$m=65536,p=4,t=3$${SALT16}$${HASH32}`), true);
  });

  test('scrypt: ln, r, p, hash and salt at least the target', () => {
    const target = { algorithm: 'scrypt', ln: 15, r: 8, p: 1 };
    const s = (params, hash = HASH32, salt = SALT16) => `$scrypt$${params}$${salt}$${hash}`;
    assert.equal(kdf.needsRehash(s('ln=16,r=8,p=2'), target), false);
    assert.equal(kdf.needsRehash(s('ln=16,r=8,p=2'), { ...target, exact: true }), true);
    assert.equal(kdf.needsRehash(s('ln=14,r=8,p=2'), target), true); // the target costs as much
    assert.equal(kdf.needsRehash(s('ln=14,r=8,p=4'), target), false); // the target costs less
    assert.equal(due(s('ln=14,r=8,p=4'), target), true);
    assert.deepEqual(kdf.rehashTarget(s('ln=14,r=8,p=4'), target), { algorithm: 'scrypt', ln: 15, r: 8, p: 4 });
    assert.equal(due(s('ln=16,r=4,p=2'), target), true);
    assert.equal(due(s('ln=16,r=8,p=1', b64(16)), target), true);
    assert.equal(due(s('ln=16,r=8,p=1', b64(64)), target), false);
  });

  test('PBKDF2: iterations at least the target, same digest only', () => {
    const t256 = { algorithm: 'pbkdf2-sha256', iterations: 600000 };
    assert.equal(kdf.needsRehash(`$pbkdf2-sha256$1000000$${SALT16}$${HASH32}`, t256), false);
    assert.equal(kdf.needsRehash(`$pbkdf2-sha256$1000000$${SALT16}$${HASH32}`, { ...t256, exact: true }), true);
    assert.equal(kdf.needsRehash(`$pbkdf2-sha256$599999$${SALT16}$${HASH32}`, t256), true);
    // Another digest is another family (iteration counts are not comparable).
    assert.equal(due(`$pbkdf2-sha512$1000000$${SALT16}$${b64(64)}`, t256), true);
    assert.equal(due(`$pbkdf2$1000000$${SALT16}$${b64(20)}`, t256), true);
    // RustCrypto's PHC form with a shorter hash than the digest's.
    assert.equal(due(`$pbkdf2-sha256$i=1000000,l=16$${SALT16}$${b64(16)}`, t256), true);
  });

  test('bcrypt: cost at least the target, $2a$ always', () => {
    assert.equal(kdf.needsRehash(bcrypt12, { algorithm: 'bcrypt', cost: 10 }), false);
    assert.equal(kdf.needsRehash(bcrypt12, { algorithm: 'bcrypt', cost: 10, exact: true }), true);
    assert.equal(kdf.needsRehash(bcrypt12, { algorithm: 'bcrypt', cost: 13 }), true);
    assert.equal(due(bcrypt12.replace('$2b$', '$2a$'), { algorithm: 'bcrypt', cost: 10 }), true);
    assert.deepEqual(kdf.rehashTarget(bcrypt12.replace('$2b$', '$2a$'), { algorithm: 'bcrypt', cost: 10 }),
      { algorithm: 'bcrypt', cost: 12 });
    assert.equal(due(bcrypt12.replace('$2b$', '$2y$'), { algorithm: 'bcrypt', cost: 10 }), false);
    // Against the default target (argon2id): another family, which costs
    // less than cost 12; at its raised target, no less.
    assert.equal(kdf.needsRehash(bcrypt12), false);
    assert.equal(due(bcrypt12), true);
  });

  test('exact must be a boolean', () => {
    assert.throws(() => kdf.needsRehash(bcrypt12, { exact: 1 }), { code: 'ERR_INVALID_ARG_TYPE' });
  });
});

describe('hashSync and verifySync', () => {
  test('the same strings as the async forms, every algorithm, and they verify each other', async () => {
    for (const [name, options] of Object.entries(SMALL)) {
      const h = kdf.hashSync('pw', options);
      assert.match(h, FORMATS[name], name);
      assert.equal(kdf.verifySync(h, 'pw'), true, name);
      assert.equal(kdf.verifySync(h, 'pW'), false, name);
      assert.equal(await kdf.verify(h, 'pw'), true, name);
      const a = await kdf.hash('pw', options);
      assert.equal(kdf.verifySync(a, 'pw'), true, name);
    }
  });

  test('run on the calling thread: nothing goes to the pool', () => {
    const before = kdf.stats().submitted;
    const h = kdf.hashSync('pw', SMALL.argon2id);
    assert.equal(kdf.verifySync(h, 'pw'), true);
    assert.equal(kdf.stats().submitted, before);
  });

  test('the same limits and errors, thrown', () => {
    assert.throws(() => kdf.verifySync(`$argon2id$v=19$m=4194304,t=1000,p=1$${SALT16}$${HASH32}`, 'pw'),
      LIMIT('argon2Memory'));
    assert.throws(() => kdf.hashSync('pw', { algorithm: 'bcrypt', cost: 17 }), LIMIT('bcryptCost'));
    assert.throws(() => kdf.verifySync('$argon2id$nope', 'pw'), INVALID);
    assert.throws(() => kdf.verifySync(42, 'pw'), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => kdf.hashSync(42), { code: 'ERR_INVALID_ARG_TYPE' });
    assert.throws(() => kdf.hashSync('pw', { algorithm: 'bcrypt', memory: 1 }), { code: 'ERR_INVALID_ARG_VALUE' });
    const h = kdf.hashSync('pw', SMALL.argon2id);
    assert.throws(() => kdf.verifySync(h, 'pw', { limits: { argon2Memory: 1 } }), LIMIT('argon2Memory'));
  });

  test('pool methods', async () => {
    const pool = kdf.createPool({ threads: 1, hashLimits: { bcryptCost: 4 } });
    try {
      const h = pool.hashSync('pw', SMALL.bcrypt);
      assert.equal(pool.verifySync(h, 'pw'), true);
      assert.throws(() => pool.hashSync('pw', { algorithm: 'bcrypt', cost: 5 }), LIMIT('bcryptCost'));
      const { hashSync, verifySync } = pool; // bound
      assert.equal(verifySync(hashSync('x', SMALL.argon2id), 'x'), true);
    } finally {
      await pool.close();
    }
  });
});

describe('empty salts', () => {
  // passlib's test vector: RFC 7914's first scrypt vector (password '', salt '').
  const RFC7914 = '$scrypt$ln=4,r=1,p=1$$d9ZXYjhleyA7GcpCwYoEl/FrSETjB0ro39/6P+3iFEI';

  test("scrypt (passlib's format allows it): RFC 7914's first vector verifies", async () => {
    assert.equal(await kdf.verify(RFC7914, ''), true);
    assert.equal(await kdf.verify(RFC7914, 'x'), false);
    assert.equal(kdf.verifySync(RFC7914, ''), true);
    // Parsed: and shorter than any target's salt, so rehash.
    assert.equal(kdf.needsRehash(RFC7914, { algorithm: 'scrypt', ln: 4, r: 1, p: 1, tagLength: 32, saltLength: 8 }), true);
  });

  test("PBKDF2: passlib's form allows it, RustCrypto's PHC form does not", async () => {
    const crypto = require('node:crypto');
    const dk = crypto.pbkdf2Sync('pw', '', 1000, 32, 'sha256').toString('base64').replace(/=+$/, '');
    const passlib = `$pbkdf2-sha256$1000$$${dk.replace(/\+/g, '.')}`;
    assert.equal(await kdf.verify(passlib, 'pw'), true);
    assert.equal(await kdf.verify(passlib, 'pW'), false);
    await assert.rejects(kdf.verify(`$pbkdf2-sha256$i=1000$$${dk}`, 'pw'), INVALID);
  });

  test('Argon2 and bcrypt still refuse it', async () => {
    await assert.rejects(kdf.verify(`$argon2id$v=19$m=64,t=1,p=1$$${HASH32}`, 'pw'), INVALID);
    assert.throws(() => kdf.needsRehash(`$argon2id$v=19$m=64,t=1,p=1$$${HASH32}`), INVALID);
  });
});

describe('unknown options are errors', () => {
  const h = `$argon2id$v=19$m=64,t=1,p=1$${SALT16}$${HASH32}`;

  test('hash, verify and needsRehash name the key', async () => {
    const typo = { maxWaitMS: 100 };
    await assert.rejects(kdf.hash('pw', typo), { code: 'ERR_INVALID_ARG_VALUE', message: /options\.maxWaitMS/ });
    await assert.rejects(kdf.verify(h, 'pw', typo), { code: 'ERR_INVALID_ARG_VALUE', message: /options\.maxWaitMS/ });
    assert.throws(() => kdf.needsRehash(h, typo), { code: 'ERR_INVALID_ARG_VALUE', message: /options\.maxWaitMS/ });
    assert.throws(() => kdf.verifySync(h, 'pw', typo), { code: 'ERR_INVALID_ARG_VALUE' });
    await assert.rejects(kdf.verify(h, 'pw', { limits: { wrok: 1 } }), { code: 'ERR_INVALID_ARG_VALUE', message: /wrok/ });
  });

  test('one options object still serves hash, verify and needsRehash', async () => {
    const options = { ...SMALL.argon2id, maxWaitMs: 5000, limits: { work: 600 }, exact: true, associatedData: 'ctx' };
    const stored = await kdf.hash('pw', options);
    assert.equal(await kdf.verify(stored, 'pw', options), true);
    assert.equal(kdf.needsRehash(stored, options), false);
    const bcrypt = { algorithm: 'bcrypt', cost: 4, maxWaitMs: 5000 };
    const b = await kdf.hash('pw', bcrypt);
    assert.equal(await kdf.verify(b, 'pw', bcrypt), true);
    assert.equal(kdf.needsRehash(b, bcrypt), false);
  });

  test('KDF call options, configure and createPool', async () => {
    await assert.rejects(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { maxWaitMS: 1 }),
      { code: 'ERR_INVALID_ARG_VALUE', message: /options\.maxWaitMS/ });
    assert.throws(() => kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signl: null }, () => {}),
      { code: 'ERR_INVALID_ARG_VALUE', message: /options\.signl/ });
    const p = { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 64, passes: 1 };
    await assert.rejects(kdf.argon2('argon2id', p, { maxWaitMS: 1 }), { code: 'ERR_INVALID_ARG_VALUE' });
    assert.throws(() => kdf.configure({ maxWaitMS: 1 }), { code: 'ERR_INVALID_ARG_VALUE', message: /options\.maxWaitMS/ });
    assert.throws(() => kdf.createPool({ thread: 1 }), { code: 'ERR_INVALID_ARG_VALUE', message: /options\.thread/ });
    assert.throws(() => kdf.configure({ hashLimits: { argon2Mem: 1 } }), { code: 'ERR_INVALID_ARG_VALUE' });
  });

  test("node:crypto's own objects keep node's rules: unknown keys ignored, our misspelt keys refused", async () => {
    const crypto = require('node:crypto');
    // node ignores unknown keys in scrypt's options and argon2's parameters.
    const key = await kdf.scrypt('pw', 'salt', 16, { N: 16, whatever: 1 });
    assert.deepEqual(key, crypto.scryptSync('pw', 'salt', 16, { N: 16, whatever: 1 }));
    const p = { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 64, passes: 1, extra: true };
    assert.equal((await kdf.argon2('argon2id', p)).length, 32);
    // ... but a misspelling of kdfpool's own maxWaitMs would drop a deadline.
    await assert.rejects(kdf.scrypt('pw', 'salt', 16, { N: 16, maxWaitMS: 1 }),
      { code: 'ERR_INVALID_ARG_VALUE', message: /did you mean "maxWaitMs"\?/ });
    await assert.rejects(kdf.argon2('argon2id', { ...p, maxwaitms: 1 }), { code: 'ERR_INVALID_ARG_VALUE' });
  });
});
