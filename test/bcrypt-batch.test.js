'use strict';

// bcrypt batches: bcrypt jobs of one cost that queue together run as up to
// four interleaved EksBlowfish lanes on one thread (kdf_bcrypt_lanes). The
// lanes must give each job exactly its lone result: checked here against
// npm bcrypt over random mixes (password lengths across the 72-byte cap,
// $2a$/$2b$/$2y$, right and wrong passwords, two costs, aborts while
// waiting or running), and batches must really form (stats().batched).

const { prng, SEED } = require('./helpers/prng');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { test } = require('node:test');
const assert = require('node:assert/strict');
const npmBcrypt = require('bcrypt');
const kdf = require('..');

function randomPassword(rand) {
  const b = Buffer.alloc(Math.floor(rand() * 90)); // 0..89 bytes: past the 72-byte cap
  for (let i = 0; i < b.length; i++) b[i] = 1 + Math.floor(rand() * 255); // npm bcrypt stops at NUL in strings
  return b;
}

// Another password: the first byte changed (within the 72 that count).
function flipFirst(pw) {
  if (pw.length === 0) return Buffer.from('x');
  const b = Buffer.from(pw);
  b[0] = b[0] === 1 ? 2 : b[0] ^ 1;
  return b;
}

for (const round of [0, 1, 2]) {
  test(`random bcrypt batch mix #${round} (KDF_TEST_SEED=${SEED}): every verify is npm bcrypt's answer`, async () => {
    const rand = prng(SEED + round);
    const pool = kdf.createPool({ threads: 1, maxQueue: 256, name: `bcb${round}` });
    try {
      const jobs = [];
      for (let i = 0; i < 28; i++) {
        const pw = randomPassword(rand);
        const cost = rand() < 0.7 ? 4 : 5;
        let stored = npmBcrypt.hashSync(pw, cost);
        // $2y$ is $2b$ by another name; $2a$ differs only for 255+ bytes.
        const minor = ['a', 'b', 'y'][Math.floor(rand() * 3)];
        stored = `$2${minor}$${stored.slice(4)}`;
        const right = rand() < 0.6;
        const given = right ? pw : flipFirst(pw);
        const ac = rand() < 0.15 ? new AbortController() : null;
        jobs.push({ stored, given, right, ac, abortAfter: Math.floor(rand() * 6) });
      }
      // A gate holds the pool's one thread while the jobs queue behind it,
      // so that they form batches.
      const held = gate(pool);
      for (const j of jobs) j.promise = pool.verify(j.stored, j.given, j.ac ? { signal: j.ac.signal } : undefined);
      await until(() => pool.stats().submitted === jobs.length + 1, 'every verify queued behind the gate');
      // Aborts land while jobs wait (the gate opens at 3 ms) or while their batch runs.
      for (const j of jobs) if (j.ac) setTimeout(() => j.ac.abort(), j.abortAfter);
      setTimeout(() => held.release(), 3);
      const settled = await Promise.allSettled(jobs.map((j) => j.promise));
      assert.equal(await held.done, undefined);
      for (const [i, s] of settled.entries()) {
        const j = jobs[i];
        if (s.status === 'rejected') {
          assert.ok(j.ac, `job ${i} failed without an abort: ${s.reason && s.reason.stack}`);
          assert.equal(s.reason.name, 'AbortError');
          continue;
        }
        // npm bcrypt is the oracle (it agrees on $2a$ for these lengths).
        assert.equal(s.value, npmBcrypt.compareSync(j.given, `$2b$${j.stored.slice(4)}`), `job ${i}: ${j.stored}`);
        assert.equal(s.value, j.right, `job ${i}: ${j.stored}`);
      }
      const st = pool.stats();
      assert.ok(st.batched > 0, `no job ran batched (stats: ${JSON.stringify(st)})`);
      assert.equal(st.submitted, st.completed + st.failed + st.cancelled + st.shed);
    } finally {
      await pool.close();
    }
  });
}

test('hash() in batches: every string verifies with npm bcrypt and with kdfpool', async () => {
  const rand = prng(SEED + 7);
  const pool = kdf.createPool({ threads: 1, maxQueue: 64, name: 'bcbh' });
  try {
    const held = gate(pool); // holds the one thread while the hashes queue
    const pws = Array.from({ length: 12 }, () => randomPassword(rand));
    // Passwords up to 89 bytes: truncate: true, so those past 72 are hashed as npm bcrypt does.
    const hashing = Promise.all(pws.map((pw) => pool.hash(pw, { algorithm: 'bcrypt', cost: 4, truncate: true })));
    await until(() => pool.stats().submitted === pws.length + 1, 'every hash queued behind the gate');
    held.release();
    const hashes = await hashing;
    assert.equal(await held.done, undefined);
    for (const [i, h] of hashes.entries()) {
      assert.equal(npmBcrypt.compareSync(pws[i], h), true, h);
      assert.equal(await kdf.verify(h, pws[i]), true, h);
    }
    assert.ok(pool.stats().batched > 0, 'no hash ran batched');
  } finally {
    await pool.close();
  }
});
