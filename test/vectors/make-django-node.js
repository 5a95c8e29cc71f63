'use strict';

// Writes test/vectors/django-node.json: Django's Argon2, bcrypt and
// bcrypt_sha256 strings, made with npm argon2 and npm bcrypt (Python's
// argon2-cffi and bcrypt are not installable here), following
// django/contrib/auth/hashers.py:
//   Argon2PasswordHasher.encode: "argon2" + argon2.low_level.hash_secret(
//     password.encode(), salt.encode(), time_cost, memory_cost, parallelism,
//     hash_len=32, type=ID)  -> "argon2$argon2id$v=19$m=..,t=..,p=..$..$.."
//   BCryptSHA256PasswordHasher.encode: "bcrypt_sha256$" + bcrypt.hashpw(
//     binascii.hexlify(hashlib.sha256(password.encode()).digest()), gensalt(12))
//   BCryptPasswordHasher: "bcrypt$" + bcrypt.hashpw(password.encode(), gensalt(12))
//
//   node test/vectors/make-django-node.js

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const argon2 = require('argon2');
const bcrypt = require('bcrypt');

const SALT_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const djangoSalt = () => Array.from(crypto.randomBytes(22), (b) => SALT_CHARS[b % 62]).join('');
const sha256Hex = (pw) => crypto.createHash('sha256').update(pw, 'utf8').digest('hex');

const PASSWORDS = ['lètmein', '', 'p\u00e4ssw\u00f6rd \ud83d\udd11', 'x'.repeat(100)];

async function main() {
  const vectors = [];
  const argon2Django = async (pw, memoryCost, timeCost, parallelism) => `argon2${await argon2.hash(pw, {
    type: argon2.argon2id, memoryCost, timeCost, parallelism, hashLength: 32, salt: Buffer.from(djangoSalt()),
  })}`;
  for (const pw of PASSWORDS) {
    vectors.push({ password: pw, hash: await argon2Django(pw, 64, 1, 2) });
    vectors.push({ password: pw, hash: `bcrypt_sha256$${bcrypt.hashSync(sha256Hex(pw), bcrypt.genSaltSync(4, 'b'))}` });
    vectors.push({ password: pw, hash: `bcrypt$${bcrypt.hashSync(pw, bcrypt.genSaltSync(4, 'b'))}` });
  }
  // Django's defaults: Argon2 m=102400 t=2 p=8, bcrypt 12 rounds.
  vectors.push({ password: 'lètmein', hash: await argon2Django('lètmein', 102400, 2, 8) });
  vectors.push({ password: 'lètmein', hash: `bcrypt_sha256$${bcrypt.hashSync(sha256Hex('lètmein'), bcrypt.genSaltSync(12, 'b'))}` });
  // Old py-bcrypt wrote $2a$.
  vectors.push({ password: 'lètmein', hash: `bcrypt$${bcrypt.hashSync('lètmein', bcrypt.genSaltSync(5, 'a'))}` });
  // Past 72 bytes: bcrypt ignores the rest, bcrypt_sha256 does not.
  const long = 'VSK0UYV6FFQVZ0KG88DYN9WADAADZO1CTSIVDJUNZSUML6IBX7LN7ZS3R5JGB3RGZ7VI7G7DJQ9NI8BQFSRPTG6UWTTVESA5ZPUN';
  const truncation = [
    { password: long, also: long.slice(0, 72), hash: `bcrypt$${bcrypt.hashSync(long, bcrypt.genSaltSync(4, 'b'))}` },
    { password: long, not: long.slice(0, 72), hash: `bcrypt_sha256$${bcrypt.hashSync(sha256Hex(long), bcrypt.genSaltSync(4, 'b'))}` },
  ];
  const out = {
    description: "Django's argon2, bcrypt and bcrypt_sha256 strings, made with npm argon2 and npm bcrypt " +
      "following Django's hashers (test/vectors/make-django-node.js). truncation: `also` verifies too, `not` does not.",
    vectors,
    truncation,
  };
  fs.writeFileSync(path.join(__dirname, 'django-node.json'), `${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
