'use strict';

// Writes test/vectors/aspnet.json: ASP.NET Core Identity's PasswordHasher
// strings made with node:crypto following PasswordHasher.cs (.NET cannot
// run here), plus the fixed strings of aspnetcore's
// src/Identity/test/Identity.Test/PasswordHasherTest.cs.
//   v3: base64(0x01 | prf u32 BE | iterations u32 BE | salt length u32 BE | salt | key)
//       prf 0 HMAC-SHA1, 1 HMAC-SHA256, 2 HMAC-SHA512; KeyDerivation.Pbkdf2 over the UTF-8 password
//   v2: base64(0x00 | 16-byte salt | 32-byte key), PBKDF2-HMAC-SHA1, 1000 iterations
//
//   node test/vectors/make-aspnet.js

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const PRF = ['sha1', 'sha256', 'sha512'];

function u32(n) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function v3(password, prf, iterations, saltLength, keyLength) {
  const salt = crypto.randomBytes(saltLength);
  const key = crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, keyLength, PRF[prf]);
  return Buffer.concat([Buffer.from([1]), u32(prf), u32(iterations), u32(saltLength), salt, key]).toString('base64');
}

function v2(password) {
  const salt = crypto.randomBytes(16);
  const key = crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), salt, 1000, 32, 'sha1');
  return Buffer.concat([Buffer.from([0]), salt, key]).toString('base64');
}

const PASSWORDS = ['my password', '', 'p\u00e4ssw\u00f6rd \ud83d\udd11', 'x'.repeat(200)];

const generated = [];
for (const password of PASSWORDS) {
  generated.push({ password, hash: v2(password) });
  for (const prf of [0, 1, 2]) generated.push({ password, hash: v3(password, prf, 1000, 16, 32) });
}
// Identity's defaults: .NET 7+ HMAC-SHA512 100,000; .NET Core 3-6 HMAC-SHA256 10,000.
generated.push({ password: 'my password', hash: v3('my password', 2, 100000, 16, 32) });
generated.push({ password: 'my password', hash: v3('my password', 1, 10000, 16, 32) });
generated.push({ password: 'my password', hash: v3('my password', 1, 1, 64, 17) });

// PasswordHasherTest.cs, password "my password". `result`: true, false, or
// "invalid" where Identity answers Failed for a malformed payload.
const published = [
  { hash: 'AQAAAAEAACcQAAAAEAABAgMEBQYHCAkKCwwNDg+yWU7rLgUwPZb1Itsmra7cbxw2EFpwpVFIEtP+JIuUEw==', result: true, note: 'HashPassword_Version3' },
  { hash: 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJg==', result: true, note: 'HashPassword_Version2' },
  { hash: 'ANXrDknc7fGPpigibZXXZFMX4aoqz44JveK6jQuwY3eH/UyPhvr5xTPeGYEckLxz9A==', result: true, note: 'v2: SHA1, 1000 iterations' },
  { hash: 'AQAAAAIAAAAyAAAAEOMwvh3+FZxqkdMBz2ekgGhwQ4B6pZWND6zgESBuWiHw', result: true, note: 'v3: SHA512, 50 iterations, 16-byte salt and key' },
  {
    hash: 'AQAAAAIAAAD6AAAAIJbVi5wbMR+htSfFp8fTw8N8GOS/Sje+S/4YZcgBfU7EQuqv4OkVYmc4VJl9AGZzmRTxSkP7LtVi9IWyUxX8IAAfZ8v+ZfhjCcudtC1YERSqE1OEdXLW9VukPuJWBBjLuw==',
    result: true,
    note: 'v3: SHA512, 250 iterations, 32-byte salt, 64-byte key',
  },
  { hash: 'AQAAAAAAAAD6AAAAEAhftMyfTJylOlZT+eEotFXd1elee8ih5WsjXaR3PA9M', result: true, note: 'v3: SHA1, 250 iterations, 16-byte salt and key' },
  {
    hash: 'AQAAAAEAA9CQAAAAIESkQuj2Du8Y+kbc5lcN/W/3NiAZFEm11P27nrSN5/tId+bR1SwV8CO1Jd72r4C08OLvplNlCDc3oQZ8efcW+jQ=',
    result: true,
    note: 'v3: SHA256, 250000 iterations, 32-byte salt and key',
  },
  { hash: 'AAABAgMEBQYHCAkKCwwNDg+uAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAALtH1uJg==', result: false, note: 'v2: incorrect password' },
  { hash: 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggE=', result: 'invalid', note: 'v2: too short' },
  { hash: 'AAABAgMEBQYHCAkKCwwNDg+ukCEMDf0yyQ29NYubggHIVY0sdEUfdyeM+E1LtH1uJgAAAAAAAAAAAAA=', result: 'invalid', note: 'v2: extra data at end' },
  { hash: 'AQAAAAAAAAD6AAAAEAhftMyfTJyAAAAAAAAAAAAAAAAAAAih5WsjXaR3PA9M', result: false, note: 'v3: incorrect password' },
  { hash: 'AQAAAAIAAAAyAAAAEOMwvh3+FZxqkdMBz2ekgGhwQ4A=', result: 'invalid', note: 'v3: too short' },
  { hash: 'AQAAAAIAAAAyAAAAEOMwvh3+FZxqkdMBz2ekgGhwQ4B6pZWND6zgESBuWiHwAAAAAAAAAAAA', result: false, note: 'v3: extra data at end (a longer key)' },
];

const out = {
  description: "ASP.NET Core Identity stored passwords. generated: node:crypto following PasswordHasher.cs " +
    "(test/vectors/make-aspnet.js); published: PasswordHasherTest.cs, password \"my password\".",
  generated,
  published,
};
fs.writeFileSync(path.join(__dirname, 'aspnet.json'), `${JSON.stringify(out, null, 2)}\n`);
