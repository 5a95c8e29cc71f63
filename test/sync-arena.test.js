'use strict';

// The *Sync calls' scratch memory: one arena per environment (main thread,
// each worker_thread), kept between calls, bounded by the default pool's
// memory budget, given back after an idle time and when the environment
// goes away. Counters come from native.testing.syncArenaStats(): this
// environment's maps and bytes, and the bytes of every environment's arena.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const kdf = require('..');
const native = require('../lib/native');
const { shape, thrown } = require('./helpers/forms');
const { leftToAll } = require('./helpers/scale');

const MiB = 1024 * 1024;
const ROOT = path.join(__dirname, '..');
const ARGON2 = { message: 'pw', nonce: Buffer.alloc(16, 7), parallelism: 1, tagLength: 32, memory: 4096, passes: 1 };
const ARGON2_BYTES = 4096 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Runs `source` (an async function body that may use kdf and native) in a
// worker_thread; resolves with { posted: [...messages], exitCode }.
// `terminateAfter`: terminate it after that many messages.
function inWorker(source, terminateAfter) {
  return new Promise((resolve, reject) => {
    const w = new Worker(`
      const { parentPort } = require('node:worker_threads');
      const kdf = require(${JSON.stringify(ROOT)});
      const native = require(${JSON.stringify(path.join(ROOT, 'lib', 'native'))});
      const post = (m) => parentPort.postMessage(m);
      (async () => { ${source} })().catch((e) => post({ error: String(e && e.stack) }));
    `, { eval: true });
    const posted = [];
    w.on('message', (m) => {
      posted.push(m);
      if (posted.length === terminateAfter) w.terminate();
    });
    w.on('error', reject);
    w.on('exit', (exitCode) => resolve({ posted, exitCode }));
  });
}

describe('sync arena', () => {
  it('argon2Sync reuses its thread\'s arena: a second call of the same size maps nothing', async () => {
    const first = kdf.argon2Sync('argon2id', ARGON2);
    const after = native.testing.syncArenaStats();
    assert.ok(after.maps >= 1);
    assert.ok(after.bytes >= ARGON2_BYTES, `${after.bytes} bytes kept`);
    const second = kdf.argon2Sync('argon2id', ARGON2);
    assert.equal(native.testing.syncArenaStats().maps, after.maps);
    // A kept arena holds nothing of the previous call: same bytes as a job
    // on a pool thread.
    assert.deepEqual(second, first);
    assert.deepEqual(second, await kdf.argon2('argon2id', ARGON2));
  });

  it('a smaller call reuses a larger arena, and scrypt\'s maxmem is still checked against the call', () => {
    kdf.scryptSync('pw', 'salt', 32, { N: 8192, r: 8, p: 1 }); // 8 MiB
    const { maps, bytes } = native.testing.syncArenaStats();
    assert.ok(bytes >= 128 * 8 * (8192 + 3));
    assert.deepEqual(kdf.scryptSync('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }),
      crypto.scryptSync('pw', 'salt', 32, { N: 1024, r: 8, p: 1 }));
    assert.equal(native.testing.syncArenaStats().maps, maps);
    // The kept 8 MiB do not let a call past its own maxmem.
    const tooBig = { N: 1024, r: 8, p: 1, maxmem: 128 * 8 * 1024 };
    assert.deepEqual(shape(thrown(() => kdf.scryptSync('pw', 'salt', 32, tooBig))),
      shape(thrown(() => crypto.scryptSync('pw', 'salt', 32, tooBig))));
  });

  it('an arena the default pool\'s budget cannot hold is unmapped when its call ends', () => {
    const { maxMemory } = kdf.stats();
    kdf.configure({ maxMemory: 2 * MiB });
    try {
      native.releaseSyncArena();
      const before = native.testing.syncArenaStats();
      assert.deepEqual(kdf.argon2Sync('argon2id', ARGON2), kdf.argon2Sync('argon2id', ARGON2));
      const after = native.testing.syncArenaStats();
      assert.equal(after.bytes, 0);
      assert.equal(after.maps, before.maps + 2); // nothing kept, so nothing reused
      // Within the budget again: kept.
      kdf.configure({ maxMemory: 64 * MiB });
      kdf.argon2Sync('argon2id', ARGON2);
      assert.ok(native.testing.syncArenaStats().bytes >= ARGON2_BYTES);
      assert.ok(native.testing.syncArenaStats().processBytes <= 64 * MiB);
    } finally {
      kdf.configure({ maxMemory });
    }
  });

  // The idle time is a worker arena's, native.constants.arenaIdleMs (10 s):
  // lib/ has no knob to shorten it for a test.
  it('is given back once no memory-hard *Sync call came for the idle time', { timeout: 60000, skip: leftToAll }, async () => {
    kdf.argon2Sync('argon2id', ARGON2);
    assert.ok(native.testing.syncArenaStats().bytes > 0);
    // PBKDF2 needs no scratch: it neither uses nor keeps the arena alive.
    kdf.pbkdf2Sync('pw', 'salt', 1, 32, 'sha256');
    while (native.testing.syncArenaStats().bytes !== 0) await sleep(10);
    const { maps } = native.testing.syncArenaStats();
    kdf.argon2Sync('argon2id', ARGON2);
    assert.equal(native.testing.syncArenaStats().maps, maps + 1);
  });

  it('each worker_thread has its own, freed when the worker ends or is terminated', async () => {
    const mine = () => native.testing.syncArenaStats().bytes;
    const others = () => native.testing.syncArenaStats().processBytes - mine();
    assert.equal(others(), 0);
    const body = `
      kdf.argon2Sync('argon2id', { ...${JSON.stringify(ARGON2)}, nonce: Buffer.alloc(16, 7) });
      const s = native.testing.syncArenaStats();
      post({ maps: s.maps, bytes: s.bytes, processBytes: s.processBytes });
    `;
    const ended = await inWorker(body);
    assert.equal(ended.exitCode, 0);
    assert.equal(ended.posted[0].error, undefined);
    assert.equal(ended.posted[0].maps, 1);
    assert.ok(ended.posted[0].bytes >= ARGON2_BYTES);
    assert.ok(ended.posted[0].processBytes >= mine() + ARGON2_BYTES);
    assert.equal(others(), 0);
    // Terminated while idle, with its (unref'd) idle timer pending and the
    // event loop kept busy.
    const killed = await inWorker(`${body} setInterval(() => {}, 1000);`, 1);
    assert.ok(killed.posted[0].bytes >= ARGON2_BYTES);
    assert.equal(others(), 0);
  });
});
