'use strict';
// stats(): `shed` counts deadline refusals at submit, which are not in
// `submitted`, so `submitted == completed + failed + cancelled + shed` does
// not hold once any call is refused at submit by maxWaitMs, and stats() gives
// no way to tell the two kinds of `shed` apart.
// Run: node test/fuzz/repro/stats-identity-shed-at-submit.js
const kdf = require('../../..');

(async () => {
  const pool = kdf.createPool({ name: 'shed', threads: 1, maxQueue: 100, priority: 'normal' });
  // Observed run times feed estimatedWaitMs.
  for (let i = 0; i < 3; i++) await pool.pbkdf2('pw', 'salt', 100000, 32, 'sha256');
  const long = pool.pbkdf2('pw', 'salt', 400000, 32, 'sha256');   // occupies the only thread
  const queued = pool.pbkdf2('pw', 'salt', 100000, 32, 'sha256'); // waits behind it
  const before = pool.stats();
  const refused = [];
  for (let i = 0; i < 5; i++) {
    refused.push(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { maxWaitMs: 1 }).then(
      () => 'accepted and ran', (e) => `${e.code}/${e.reason}`));
  }
  const mid = pool.stats();
  console.log('estimatedWaitMs when refusing:', before.estimatedWaitMs);
  console.log('maxWaitMs:1 calls ->', await Promise.all(refused));
  console.log('right after the refusals: submitted +%d, shed +%d, rejected +%d',
    mid.submitted - before.submitted, mid.shed - before.shed, mid.rejected - before.rejected);
  await Promise.all([long, queued]);
  const st = pool.stats();
  const sum = st.completed + st.failed + st.cancelled + st.shed;
  console.log(`drained: submitted ${st.submitted}, completed ${st.completed}, failed ${st.failed}, cancelled ${st.cancelled}, shed ${st.shed}, rejected ${st.rejected}`);
  console.log(`identity submitted == completed + failed + cancelled + shed: ${st.submitted} vs ${sum} -> ${st.submitted === sum ? 'holds' : 'BROKEN'}`);
  await pool.close();
  process.exitCode = st.submitted === sum ? 0 : 1;
})();
