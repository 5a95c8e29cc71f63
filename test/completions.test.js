'use strict';

// The completion path: finished jobs wait in their environment's list and
// the JS thread is woken when the list was empty. Every job must settle,
// with its own key, whether it waited in a long backlog or finished while
// the JS thread was settling others.

const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const kdf = require('..');

test('a backlog of finished jobs, and jobs finishing while it is settled, all settle', { timeout: 120000 }, async () => {
  const JOBS = 3000;
  const { maxQueue } = kdf.stats();
  kdf.configure({ maxQueue: 2 * JOBS });
  try {
    const expected = crypto.pbkdf2Sync('pw', 'salt', 1, 32, 'sha256');
    const before = kdf.stats().completed;
    const promises = [];
    for (let i = 0; i < JOBS; i++) promises.push(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256'));
    // Keep the JS thread busy until every job has finished: all of them
    // then wait in the list for one wake-up...
    while (kdf.stats().completed - before < JOBS) crypto.pbkdf2Sync('spin', 'salt', 1, 32, 'sha256');
    // ...then a stream of them, paced by longer ones in between, so that
    // many finish while the JS thread is settling earlier ones.
    const slower = crypto.pbkdf2Sync('pw', 'salt', 5000, 32, 'sha256');
    const paced = [];
    for (let i = 0; i < JOBS; i++) {
      promises.push(kdf.pbkdf2('pw', 'salt', 1, 32, 'sha256'));
      if (i % 20 === 0) paced.push(kdf.pbkdf2('pw', 'salt', 5000, 32, 'sha256'));
    }
    const keys = await Promise.all(promises);
    assert.equal(keys.length, 2 * JOBS);
    for (const key of keys) assert.deepEqual(key, expected);
    for (const key of await Promise.all(paced)) assert.deepEqual(key, slower);
  } finally {
    kdf.configure({ maxQueue });
  }
});
