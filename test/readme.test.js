'use strict';

// README.md's ```js blocks are JavaScript a reader can paste: each parses
// as the body of an async function (its examples await at the top level;
// none imports), so a signature written as `f(a[, b])` or `g(...)` is a
// failure here. Parsed only: they name a server's own variables.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;

test('every js block of README.md is valid JavaScript', () => {
  const text = fs.readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const blocks = [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)];
  assert.ok(blocks.length >= 5, `found ${blocks.length} js blocks`);
  for (const block of blocks) {
    const line = text.slice(0, block.index).split('\n').length;
    assert.doesNotThrow(() => new AsyncFunction(block[1]), `README.md:${line}: a js block that does not parse`);
  }
});
