#!/usr/bin/env node
'use strict';

// What kdfpool's default costs beside each framework's own default hash
// (docs/frameworks.md, docs/migrating.md), and what the rehash on sign-in
// writes instead: for each framework's string, a verify of it on kdfpool
// (the framework's own cost, as the pool runs it), a hash() at the default
// target (Argon2id m=19456 t=2), and a hash() at rehashTarget(string) (the
// default raised to the string's cost: what the entries and recipes store).
// Each two ways on the default pool: single calls taken in turns (the order
// rotating each round), median of ROUNDS; and saturated, calls kept in
// flight on every thread for a moment, as thread-ms per call (what the
// pool's cost model prices: PBKDF2 and bcrypt run several jobs per thread
// at once, Argon2 one). And the cost model's ratio, rehash / string (never
// below 1 within the limits).
//
// A row of `npm run bench` (`-- --only frameworks`), or alone:
//   node bench/frameworks.js [--quick]

const crypto = require('node:crypto');
const { performance } = require('node:perf_hooks');
const kdf = require('..');
const { estimateCost } = require('../lib/phc/cost');
const { parse } = require('../lib/phc/formats');
const { costShape } = require('../lib/phc/limits');
const { median, fmtMs, fmtRatio, table } = require('./stats');

const PASSWORD = 'correct horse battery staple';
const IN_FLIGHT_PER_THREAD = 4;
const SALT_TEXT = 'Zq3uT0mJb8VwLx2N'; // Django's and Werkzeug's salts are text

const b64 = (b) => b.toString('base64');

// Each framework's default, as its own code writes it (the recipes of
// test/vectors/make-*; the figures of docs/migrating.md).
function defaults() {
  const baSalt = crypto.randomBytes(16).toString('hex');
  const baKey = crypto.scryptSync(PASSWORD.normalize('NFKC'), baSalt, 64, { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 });
  const aspSalt = crypto.randomBytes(16);
  const aspKey = crypto.pbkdf2Sync(PASSWORD, aspSalt, 100000, 32, 'sha512');
  const header = Buffer.alloc(13);
  header.writeUInt8(1, 0);
  header.writeUInt32BE(2, 1); // HMAC-SHA512
  header.writeUInt32BE(100000, 5);
  header.writeUInt32BE(16, 9);
  const passportSalt = crypto.randomBytes(16);
  const passportKey = crypto.pbkdf2Sync(PASSWORD, passportSalt, 310000, 32, 'sha256');
  const std = (b) => b.toString('base64').replace(/=+$/, '');
  return [
    ['better-auth 1.7', 'scrypt N=16384 r=16 p=1, 64-byte key', `${baSalt}:${baKey.toString('hex')}`],
    ['passport (its tutorial)', 'PBKDF2-SHA256 310,000, 32-byte key',
      `$pbkdf2-sha256$i=310000,l=32$${std(passportSalt)}$${std(passportKey)}`],
    ['NestJS (its docs)', 'bcrypt cost 10', kdf.hashSync(PASSWORD, { algorithm: 'bcrypt', cost: 10 })],
    ['Django 5.2', 'PBKDF2-SHA256 1,000,000', `pbkdf2_sha256$1000000$${SALT_TEXT}$${b64(crypto.pbkdf2Sync(PASSWORD, SALT_TEXT, 1000000, 32, 'sha256'))}`],
    ['Werkzeug 3', 'scrypt N=32768 r=8 p=1, 64-byte key',
      `scrypt:32768:8:1$${SALT_TEXT}$${crypto.scryptSync(PASSWORD, SALT_TEXT, 64, { N: 32768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }).toString('hex')}`],
    ['ASP.NET Core Identity (.NET 7+)', 'PBKDF2-SHA512 100,000', b64(Buffer.concat([header, aspSalt, aspKey]))],
    ['Spring Security', 'bcrypt cost 10', `{bcrypt}${kdf.hashSync(PASSWORD, { algorithm: 'bcrypt', cost: 10 }).replace('$2b$', '$2a$')}`],
  ];
}

const workOf = (stored) => estimateCost({ ...costShape(parse(stored)), passwordBytes: 0 }).work;

async function timed(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

// Thread-milliseconds per call with `fn` kept in flight on every thread for `ms`.
async function saturatedMs(fn, ms) {
  const { threads } = kdf.stats();
  let done = 0;
  const start = performance.now();
  const lane = async () => {
    while (performance.now() - start < ms) {
      await fn();
      done++;
    }
  };
  await Promise.all(Array.from({ length: threads * IN_FLIGHT_PER_THREAD }, lane));
  return ((performance.now() - start) * threads) / done;
}

/** Measures every framework's default: { rows: [...], rounds }. */
async function frameworksCase({ quick = false } = {}) {
  const rounds = quick ? 3 : 5;
  const saturatedFor = quick ? 250 : 500;
  const cases = defaults().map(([framework, own, stored]) => {
    const target = kdf.rehashTarget(stored);
    return { framework, own, stored, target, times: { own: [], dflt: [], rehash: [] }, saturated: {} };
  });
  for (const c of cases) {
    if (!(await kdf.verify(c.stored, PASSWORD))) throw new Error(`${c.framework}: its string does not verify`);
  }
  const kinds = {
    own: (c) => kdf.verify(c.stored, PASSWORD),
    dflt: () => kdf.hash(PASSWORD),
    rehash: (c) => kdf.hash(PASSWORD, c.target),
  };
  // The strings they write (for the cost model), and the workers' arenas
  // grown to the largest memory before anything is timed.
  for (const c of cases) c.rehashed = await kinds.rehash(c);
  const dfltWork = workOf(await kinds.dflt());
  for (let round = 0; round < rounds; round++) {
    const order = Object.keys(kinds);
    for (let i = 0; i < round % order.length; i++) order.push(order.shift());
    for (const c of cases) {
      for (const kind of order) c.times[kind].push(await timed(() => kinds[kind](c)));
    }
  }
  for (const c of cases) {
    for (const kind of Object.keys(kinds)) c.saturated[kind] = await saturatedMs(() => kinds[kind](c), saturatedFor);
  }
  const rows = cases.map((c) => {
    const t = c.target;
    const params = t.algorithm === 'argon2id' ? `m=${t.memory} t=${t.passes} p=${t.parallelism}` : JSON.stringify(t);
    return {
      framework: c.framework,
      own: c.own,
      ownMs: median(c.times.own),
      defaultMs: median(c.times.dflt),
      rehashMs: median(c.times.rehash),
      saturated: c.saturated,
      rehash: `${t.algorithm} ${params}`,
      modelDefault: dfltWork / workOf(c.stored),
      modelRehash: workOf(c.rehashed) / workOf(c.stored),
    };
  });
  return { rows, rounds };
}

// The table's columns: single-call ms and the cost model's ratios, then
// the measured saturated ratio of the rehash (what the model predicts).
const HEADERS = ['framework', 'its default', 'it, ms', 'default hash, ms', 'default / it (model)', 'rehash to', 'rehash, ms',
  'rehash / it (model)', 'rehash / it (saturated)'];

function cells(r) {
  return [r.framework, r.own, fmtMs(r.ownMs), fmtMs(r.defaultMs), fmtRatio(r.modelDefault), r.rehash, fmtMs(r.rehashMs),
    fmtRatio(r.modelRehash), fmtRatio(r.saturated.rehash / r.saturated.own)];
}

function print({ rows, rounds }) {
  console.log(`\nThe default beside each framework's own hash (single calls: median of ${rounds}; saturated: thread-ms per call)`);
  console.log(table(HEADERS, rows.map(cells)));
}

/** The section of bench/results.md. */
function markdown({ rows, rounds }) {
  const lines = ['## The defaults beside the frameworks\' own hashes', '',
    `Each framework's default string, verified on the default pool ("it"); \`hash()\` at the default target (Argon2id `
    + `m=19456 t=2); and \`hash()\` at \`rehashTarget(string)\`, what the entries and recipes store on sign-in. Single calls, `
    + `median of ${rounds}; "model": the pool's cost model's ratio (what the pool's hints, limits and rehash floor use: `
    + 'the thread time of a call with the pool saturated, where PBKDF2, bcrypt and scrypt run several calls per thread at once); '
    + '"saturated": that ratio measured, thread-ms per call with every thread busy.', '',
    `| ${HEADERS.join(' | ')} |`, `|${HEADERS.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${cells(r).join(' | ')} |`);
  lines.push('');
  return lines.join('\n');
}

module.exports = { frameworksCase, print, markdown };

if (require.main === module) {
  kdf.configure({ priority: 'normal', maxWaitMs: 0 });
  frameworksCase({ quick: process.argv.includes('--quick') }).then(print, (err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
