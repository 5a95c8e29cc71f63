'use strict';
// Defect: createPool()/configure() with a `priority` that cannot be converted
// to a property key (a null-prototype object, an object whose toString
// throws) throw a TypeError without `code` ("Cannot convert object to
// primitive value", from Object.hasOwn in lib/pool.js parsePoolOptions)
// instead of ERR_INVALID_ARG_VALUE / ERR_INVALID_ARG_TYPE.
// Found by test/fuzz/targets/arguments.js. Exit code 1 while the defect is present.
const kdf = require('../../..');
let bad = 0;
for (const [what, priority] of [['null-prototype object', Object.create(null)], ['throwing toString', { toString() { throw new Error('x'); } }]]) {
  for (const [fn, call] of [['createPool', () => kdf.createPool({ priority }).close()], ['configure', () => kdf.configure({ priority })]]) {
    try { call(); console.log(`${fn}({ priority: ${what} }): accepted?!`); bad++; } catch (e) {
      const ok = typeof e.code === 'string';
      if (!ok) bad++;
      console.log(`${fn}({ priority: ${what} }): ${e.name} code=${e.code} ${ok ? '' : '<- no code'} (${e.message.slice(0, 60)})`);
    }
  }
}
process.exitCode = bad ? 1 : 0;
