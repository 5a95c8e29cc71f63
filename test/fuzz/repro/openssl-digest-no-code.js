'use strict';
// Contract conflict (reported, not hidden): digests that OpenSSL refuses
// (md4 and whirlpool on OpenSSL 3, the XOFs shake128/shake256) reject with a
// plain Error that has no `code`. The README documents this as node:crypto
// parity ("Error (no code) — OpenSSL refused the digest"), and node:crypto
// does the same; the suite's rule "every thrown/rejected error has a string
// code" flags it (test/fuzz/targets/arguments.js, kind no-code).
// Exit code 1 while any such error lacks a code.
const crypto = require('node:crypto');
const kdf = require('../../..');
(async () => {
  let bad = 0;
  for (const digest of ['md4', 'whirlpool', 'shake128', 'shake256']) {
    let ours; let node;
    try { await kdf.pbkdf2('pw', 'salt', 1, 16, digest); ours = 'ok'; } catch (e) { ours = `${e.name} code=${e.code} "${e.message}"`; if (typeof e.code !== 'string') bad++; }
    try { crypto.pbkdf2Sync('pw', 'salt', 1, 16, digest); node = 'ok'; } catch (e) { node = `${e.name} code=${e.code} "${e.message}"`; }
    console.log(`${digest.padEnd(9)} kdfpool: ${ours}\n${''.padEnd(9)} node:    ${node}`);
  }
  process.exitCode = bad ? 1 : 0;
})();
