'use strict';

// A cluster worker of test/hostslots.test.js (and bench/hostslots.js). Its
// settings come in the environment:
//   HS_KEY, HS_SLOTS  hostSlots (HS_SLOTS 0: none, the control run)
//   HS_THREADS        the default pool's threads
// and its orders as messages from the primary:
//   { cmd: 'run', jobs, iterations }  submit `jobs` PBKDF2 jobs at once,
//       answer { kind: 'done', runs, dropped, results, stats } when all settled
//       (runs: [start, end, ...] ns of each job or batch, from native.testing.runLog)
//   { cmd: 'hold', iterations }  submit `threads` jobs long enough to be
//       killed in, of different digests (so they do not run as one batch),
//       answer { kind: 'holding', stats } once each holds a slot
//   { cmd: 'stats' }  answer { kind: 'stats', stats }
// It answers { kind: 'ready', stats } once configured, and exits when the
// primary disconnects.

const kdf = require('../..');
const native = require('../../lib/native');

const slots = Number(process.env.HS_SLOTS);
const threads = Number(process.env.HS_THREADS) || 2;
// No deadline: 'hold' submits jobs that never end on purpose, and with the
// host's slots shared among members the second one's predicted wait would
// pass the default pool's, so it would be refused instead of holding a slot.
kdf.configure({ threads, maxWaitMs: 0, hostSlots: slots > 0 ? { key: process.env.HS_KEY, slots } : undefined });

function send(msg) {
  process.send({ ...msg, pid: process.pid, stats: kdf.stats() });
}

async function run({ jobs, iterations }) {
  native.testing.runLog(true);
  const settled = await Promise.allSettled(
    Array.from({ length: jobs }, (_, i) => kdf.pbkdf2(`pw${i}`, 'salt', iterations, 32, 'sha256')),
  );
  const [runs, dropped] = native.testing.runLog(false);
  const results = settled.map((r) => (r.status === 'fulfilled' ? r.value.toString('hex') : `error ${r.reason.code}`));
  send({ kind: 'done', runs, dropped, results });
}

function hold({ iterations }) {
  const digests = ['sha256', 'sha512', 'sha384', 'sha1'];
  for (let i = 0; i < threads; i++) kdf.pbkdf2('victim', 'salt', iterations, 32, digests[i % 4]).catch(() => {});
  const timer = setInterval(() => {
    const s = kdf.stats();
    if (s.hostSlots.held === threads && s.running === threads) {
      clearInterval(timer);
      send({ kind: 'holding' });
    }
  }, 2);
}

process.on('message', (msg) => {
  if (msg.cmd === 'run') run(msg).catch((err) => send({ kind: 'error', message: String(err && err.stack) }));
  if (msg.cmd === 'hold') hold(msg);
  if (msg.cmd === 'stats') send({ kind: 'stats' });
});
process.on('disconnect', () => process.exit(0));
send({ kind: 'ready' });
