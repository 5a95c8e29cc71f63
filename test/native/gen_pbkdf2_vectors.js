'use strict';
// Writes test/vectors/pbkdf2.json as a C header for test_pbkdf2.c, so the
// plain-C test and the JS suite check the same known answers. Strings become
// hex (UTF-8 bytes), which keeps embedded NULs intact.
//   node test/native/gen_pbkdf2_vectors.js <pbkdf2.json> <out.h>
const fs = require('node:fs');

const [input, output] = process.argv.slice(2);
const { vectors } = JSON.parse(fs.readFileSync(input, 'utf8'));
const hex = (v) => (typeof v === 'string' ? Buffer.from(v, 'utf8').toString('hex') : v.hex);
const rows = vectors.map((v) => `  { "${v.source}", "${v.digest}", "${hex(v.password)}", "${hex(v.salt)}", ` +
  `${v.iterations}u, ${v.keylen}u, "${v.expected}", ${v.slow ? 1 : 0} },`);
fs.writeFileSync(output, `/* Generated from ${input} by gen_pbkdf2_vectors.js: do not edit. */
static const struct {
  const char *source, *digest, *password_hex, *salt_hex;
  unsigned iterations, keylen;
  const char *expected_hex;
  int slow;
} json_vectors[] = {
${rows.join('\n')}
};
`);
