'use strict';
// Digests that OpenSSL refuses (md4 and whirlpool on OpenSSL 3, the XOFs
// shake128/shake256) reject with a plain Error that has no `code`, exactly
// as node:crypto does (README: drop-in parity). Decided: parity wins; the
// fuzz rule "every error has a code" accepts a code-less error only when
// node raises the very same one (test/fuzz/targets/arguments.js).
// Exit code 1 if kdfpool's error differs from node's in name, code or text.
const crypto = require('node:crypto');
const kdf = require('../../..');
(async () => {
  let bad = 0;
  for (const digest of ['md4', 'whirlpool', 'shake128', 'shake256']) {
    let ours; let node;
    try { await kdf.pbkdf2('pw', 'salt', 1, 16, digest); ours = 'ok'; } catch (e) { ours = `${e.name} code=${e.code} "${e.message}"`; }
    try { crypto.pbkdf2Sync('pw', 'salt', 1, 16, digest); node = 'ok'; } catch (e) { node = `${e.name} code=${e.code} "${e.message}"`; }
    if (ours !== node) bad++;
    console.log(`${digest.padEnd(9)} kdfpool: ${ours}\n${''.padEnd(9)} node:    ${node}`);
  }
  process.exitCode = bad ? 1 : 0;
})();
