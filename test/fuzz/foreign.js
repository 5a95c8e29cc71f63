'use strict';

// Other frameworks' stored strings (lib/phc/formats/), made here at tiny
// costs from their documented recipes with node:crypto (and npm bcrypt /
// argon2 for what wraps those), for the fuzz target's seeds and the
// property tests. Every maker takes (password, salt text or bytes, the
// parameters) and returns the stored string.

const crypto = require('node:crypto');

const utf8 = (s) => Buffer.from(s, 'utf8');
const u32 = (n) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const sha256Hex = (pw) => crypto.createHash('sha256').update(utf8(pw)).digest('hex');

const make = {
  django: {
    pbkdf2: (pw, salt, digest, iterations) => {
      const key = crypto.pbkdf2Sync(utf8(pw), utf8(salt), iterations, digest === 'sha1' ? 20 : 32, digest);
      return `pbkdf2_${digest}$${iterations}$${salt}$${key.toString('base64')}`;
    },
    scrypt: (pw, salt, N, r, p) => {
      const key = crypto.scryptSync(utf8(pw), utf8(salt), 64, { N, r, p, maxmem: 1 << 30 });
      return `scrypt$${N}$${salt}$${r}$${p}$${key.toString('base64')}`;
    },
    bcrypt: (bcrypt, pw, cost) => `bcrypt$${bcrypt.hashSync(pw, bcrypt.genSaltSync(cost, 'b'))}`,
    bcryptSha256: (bcrypt, pw, cost) => `bcrypt_sha256$${bcrypt.hashSync(sha256Hex(pw), bcrypt.genSaltSync(cost, 'b'))}`,
    argon2: async (argon2, pw, salt, memoryCost, timeCost, parallelism) => `argon2${await argon2.hash(pw, {
      type: argon2.argon2id, memoryCost, timeCost, parallelism, hashLength: 32, salt: utf8(salt),
    })}`,
  },
  werkzeug: {
    pbkdf2: (pw, salt, digest, iterations) => {
      const size = { sha1: 20, sha224: 28, sha256: 32, sha384: 48, sha512: 64 }[digest];
      return `pbkdf2:${digest}:${iterations}$${salt}$${crypto.pbkdf2Sync(utf8(pw), utf8(salt), iterations, size, digest).toString('hex')}`;
    },
    scrypt: (pw, salt, N, r, p) => `scrypt:${N}:${r}:${p}$${salt}$${
      crypto.scryptSync(utf8(pw), utf8(salt), 64, { N, r, p, maxmem: 1 << 30 }).toString('hex')}`,
  },
  aspnet: {
    v3: (pw, salt, prf, iterations, keyLength) => {
      const key = crypto.pbkdf2Sync(utf8(pw), salt, iterations, keyLength, ['sha1', 'sha256', 'sha512'][prf]);
      return Buffer.concat([Buffer.from([1]), u32(prf), u32(iterations), u32(salt.length), salt, key]).toString('base64');
    },
    v2: (pw, salt) => Buffer.concat([Buffer.from([0]), salt, crypto.pbkdf2Sync(utf8(pw), salt, 1000, 32, 'sha1')])
      .toString('base64'),
  },
  spring: {
    pbkdf2: (pw, salt) => `{pbkdf2}${Buffer.concat([salt, crypto.pbkdf2Sync(utf8(pw), salt, 185000, 32, 'sha1')]).toString('hex')}`,
    scrypt: (pw, salt, N, r, p, keyLength = 32) => {
      const key = crypto.scryptSync(utf8(pw), salt, keyLength, { N, r, p, maxmem: 1 << 30 });
      const params = ((Math.log2(N) << 16) | (r << 8) | p).toString(16);
      return `{scrypt}$${params}$${salt.toString('base64')}$${key.toString('base64')}`;
    },
    bcrypt: (bcrypt, pw, cost) => `{bcrypt}${bcrypt.hashSync(pw, bcrypt.genSaltSync(cost, 'a'))}`,
    argon2: async (argon2, pw, salt, memoryCost, timeCost) => `{argon2}${await argon2.hash(pw, {
      type: argon2.argon2id, memoryCost, timeCost, parallelism: 1, hashLength: 32, salt,
    })}`,
  },
  betterAuth: (pw, saltHex) => `${saltHex}:${crypto.scryptSync(utf8(pw.normalize('NFKC')), utf8(saltHex), 64,
    { N: 16384, r: 16, p: 1, maxmem: 64 << 20 }).toString('hex')}`,
};

/**
 * Stored strings of every format for `pw`, cheap enough for the fuzz
 * target's limits (`cheap`), and those whose fixed parameters are over
 * them (`costly`: better-auth's 32 MiB, Spring's 185000 iterations).
 */
async function foreignSeeds(pw, { argon2, bcrypt }) {
  const salt = crypto.randomBytes(8).toString('hex');
  const bytes = crypto.randomBytes(16);
  const cheap = [
    make.django.pbkdf2(pw, salt, 'sha256', 3),
    make.django.pbkdf2(pw, salt, 'sha1', 2),
    make.django.scrypt(pw, salt, 16, 2, 1),
    make.werkzeug.pbkdf2(pw, salt, 'sha256', 3),
    make.werkzeug.pbkdf2(pw, salt, 'sha512', 1),
    make.werkzeug.scrypt(pw, salt, 16, 2, 1),
    make.aspnet.v3(pw, bytes, 0, 2, 16),
    make.aspnet.v3(pw, bytes, 1, 3, 32),
    make.aspnet.v3(pw, bytes, 2, 1, 64),
    make.aspnet.v2(pw, bytes),
    make.spring.scrypt(pw, bytes, 16, 2, 1),
  ];
  if (bcrypt) {
    cheap.push(make.django.bcrypt(bcrypt, pw, 4), make.django.bcryptSha256(bcrypt, pw, 4), make.spring.bcrypt(bcrypt, pw, 4));
  }
  if (argon2) {
    cheap.push(await make.django.argon2(argon2, pw, salt, 64, 1, 1), await make.spring.argon2(argon2, pw, bytes, 64, 1));
  }
  const costly = [make.betterAuth(pw, bytes.toString('hex')), make.spring.pbkdf2(pw, bytes.subarray(0, 8))];
  return { cheap, costly };
}

module.exports = { make, foreignSeeds };
