'use strict';

// Writes test/vectors/spring.json: Spring Security's DelegatingPasswordEncoder
// strings, made with node:crypto, npm argon2 and npm bcrypt following the
// encoders PasswordEncoderFactories maps each id to (Java cannot run here),
// plus the fixed strings of spring-security's crypto tests.
//   {pbkdf2}: Pbkdf2PasswordEncoder.defaultsForSpringSecurity_v5_5(): hex(salt | PBKDF2-HMAC-SHA1(
//             password UTF-8, salt | secret "", 185000, 32 bytes)), 8-byte salt
//   {pbkdf2@SpringSecurity_v5_8}: 16-byte salt, HMAC-SHA256, 310000 iterations
//   {scrypt}: SCryptPasswordEncoder v4_1 (N 16384, r 8, p 1, 32-byte key, 64-byte salt);
//   {scrypt@SpringSecurity_v5_8}: N 65536, 16-byte salt;
//             "$" + hex(log2 N << 16 | r << 8 | p) + "$" + base64(salt) + "$" + base64(key)
//   {argon2}: Argon2PasswordEncoder v5_2 (m 4096, t 3, p 1, 16-byte salt, 32-byte hash);
//   {argon2@SpringSecurity_v5_8}: m 16384, t 2
//   {bcrypt}: BCryptPasswordEncoder, $2a$, strength 10
//
//   node test/vectors/make-spring.js

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const argon2 = require('argon2');
const bcrypt = require('bcrypt');

function pbkdf2(id, password, saltLength, digest, iterations) {
  const salt = crypto.randomBytes(saltLength);
  const key = crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, digest);
  return `{${id}}${Buffer.concat([salt, key]).toString('hex')}`;
}

function scrypt(id, password, N, r, p, saltLength) {
  const salt = crypto.randomBytes(saltLength);
  const key = crypto.scryptSync(Buffer.from(password, 'utf8'), salt, 32, { N, r, p, maxmem: 256 * N * r });
  const params = ((Math.log2(N) << 16) | (r << 8) | p).toString(16);
  return `{${id}}$${params}$${salt.toString('base64')}$${key.toString('base64')}`;
}

async function argon2Spring(id, password, memoryCost, timeCost) {
  return `{${id}}${await argon2.hash(password, {
    type: argon2.argon2id, memoryCost, timeCost, parallelism: 1, hashLength: 32, salt: crypto.randomBytes(16),
  })}`;
}

const PASSWORDS = ['password', '', 'passw\u9292rd \ud83d\udd11', 'x'.repeat(100)];

async function main() {
  const generated = [];
  for (const password of PASSWORDS) {
    generated.push({ password, hash: pbkdf2('pbkdf2', password, 8, 'sha1', 185000) });
    generated.push({ password, hash: pbkdf2('pbkdf2@SpringSecurity_v5_8', password, 16, 'sha256', 310000) });
    generated.push({ password, hash: scrypt('scrypt', password, 16384, 8, 1, 64) });
    generated.push({ password, hash: await argon2Spring('argon2', password, 4096, 3) });
    generated.push({ password, hash: `{bcrypt}${bcrypt.hashSync(password, bcrypt.genSaltSync(4, 'a'))}` });
  }
  generated.push({ password: 'password', hash: scrypt('scrypt@SpringSecurity_v5_8', 'password', 65536, 8, 1, 16) });
  generated.push({ password: 'password', hash: scrypt('scrypt', 'password', 1024, 4, 3, 16) });
  generated.push({ password: 'password', hash: await argon2Spring('argon2@SpringSecurity_v5_8', 'password', 16384, 2) });
  generated.push({ password: 'password', hash: `{bcrypt}${bcrypt.hashSync('password', bcrypt.genSaltSync(10, 'a'))}` });
  generated.push({ password: 'password', hash: `{bcrypt}${bcrypt.hashSync('password', bcrypt.genSaltSync(4, 'b'))}` });

  const published = [
    // PasswordEncoderFactoriesTests
    { password: 'password', hash: '{bcrypt}$2a$10$dXJ3SW6G7P50lGmMkkmwe.20cQQubK3.HZWzG3YB1tlRy.fqvM/BG' },
    { password: 'password', hash: '{pbkdf2}5d923b44a6d129f3ddf3e3c8d29412723dcbde72445e8ef6bf3b508fbf17fa4ed4d6b99ca763d8dc' },
    {
      password: 'password',
      hash: '{scrypt}$e0801$8bWJaSu2IKSn9Z9kM+TPXfOc/9bdYSrN1oD9qfVThWEwdRTnO7re7Ei+fUZRJ68k9lTyuTeUp4of4g24hHnazw==$OAOec05+bXxvuu/1qZ6NUR+xQYvYv7BeL1QxwRpY5Pc=',
    },
    // Argon2PasswordEncoderTests (the encoder's own strings, under its ids)
    { password: 'sometestpassword', hash: '{argon2}$argon2id$v=19$m=4096,t=3,p=1$QUFBQUFBQUFBQUFBQUFBQQ$hmmTNyJlwbb6HAvFoHFWF+u03fdb0F2qA+39oPlcAqo' },
    {
      password: 'sometestpassword',
      hash: '{argon2@SpringSecurity_v5_8}$argon2id$v=19$m=512,t=5,p=4$QUFBQUFBQUFBQUFBQUFBQQ$PNv4C3K50bz3rmON+LtFpdisD7ePieLNq+l5iUHgc1k',
    },
  ];
  // Pbkdf2PasswordEncoderTests: new Pbkdf2PasswordEncoder("secret") (8-byte
  // salt, 185000 iterations, 256 bits, SHA1 unless set): a custom secret,
  // which no {id} names. docs/migrating.md turns these into PHC strings.
  const customSecret = [
    { password: 'password', secret: 'secret', digest: 'sha1', iterations: 185000, encoding: 'hex', encoded: 'ab1146a8458d4ce4e65789e5a3f60e423373cfa10b01abd23739e5ae2fdc37f8e9ede4ae6da65264' },
    { password: 'password', secret: 'secret', digest: 'sha256', iterations: 185000, encoding: 'hex', encoded: '821447f994e2b04c5014e31fa9fca4ae1cc9f2188c4ed53d3ddb5ba7980982b51a0ecebfc0b81a79' },
    { password: 'password', secret: 'secret', digest: 'sha1', iterations: 185000, encoding: 'base64', encoded: '3FOwOMcDgxP+z1x/sv184LFY2WVD+ZGMgYP3LPOSmCcDmk1XPYvcCQ==' },
  ];
  const out = {
    description: 'Spring Security stored passwords. generated: node:crypto, npm argon2 and npm bcrypt following the ' +
      'default encoders of PasswordEncoderFactories (test/vectors/make-spring.js); published: spring-security ' +
      "crypto tests; customSecret: Pbkdf2PasswordEncoder(\"secret\") strings (8-byte salt, 32-byte key).",
    generated,
    published,
    customSecret,
  };
  fs.writeFileSync(path.join(__dirname, 'spring.json'), `${JSON.stringify(out, null, 2)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
