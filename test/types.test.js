'use strict';

// The declarations are checked the way a TypeScript user meets them, with
// tsc --noEmit over test/types: usage.ts uses the whole public API (and
// some deliberate misuse, marked @ts-expect-error); expect.ts pins the type
// of every function, option and error (each error narrowed by its code)
// with expect-type; esm.mts imports from an ES module (index.d.mts) and
// checks it sees the CommonJS entry's declarations (index.d.ts). Other
// files: types-cjs.test.js (a CommonJS app, compiled and run) and
// types-package.test.js (the packed tarball under attw).

const test = require('node:test');
const path = require('node:path');
const { assertTypeChecks } = require('./helpers/tsc');

test('index.d.ts and index.d.mts: the public API type-checks, misuse is rejected, every type is as pinned', () => {
  assertTypeChecks(path.join(__dirname, 'types', 'tsconfig.json'));
});
