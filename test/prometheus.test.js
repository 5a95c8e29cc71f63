'use strict';

// The kdfpool/prometheus entry against a real prom-client registry: jobs
// completed, aborted and refused (full queue, closed pool), then a scrape
// of register.metrics() parsed line by line: per-job histograms whose
// counts are the jobs that ran, outcome and refusal counters, the gauges
// of queue depth and threads while a gate holds the thread, a closed pool
// leaving the gauges but not the counters. Threads are held by gates. Also: the package's export
// map, ESM, the missing-peer error and prometheus.d.ts under tsc.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const Module = require('node:module');
const { assertTypeChecks } = require('./helpers/tsc');
const client = require('prom-client');
const kdf = require('..');
const { registerKdfMetrics } = require('../lib/prometheus');
const { gate } = require('./helpers/gate');
const { until } = require('./helpers/until');
const { leftToAll } = require('./helpers/scale');
const { setTimeout: sleep } = require('node:timers/promises');

// Exposition text -> Map of 'name{labels}' -> value (labels as written).
function parse(text) {
  const samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    assert.ok(m, `unparsable line: ${line}`);
    samples.set(m[1] + (m[2] || ''), Number(m[3]));
  }
  return samples;
}

async function scrape(register) {
  return parse(await register.metrics());
}

test('a scrape counts each job by outcome and reason, and histograms observe the jobs that ran', async () => {
  const register = new client.Registry();
  const pool = kdf.createPool({ name: 'prom', threads: 1, maxQueue: 1 });
  const metrics = registerKdfMetrics(register, [pool]);
  try {
    await pool.pbkdf2('pw', 'salt', 100, 32, 'sha256');
    await pool.pbkdf2('pw', 'salt', 100, 32, 'sha256', { fairKey: 'a' });
    await pool.scrypt('pw', 'salt', 32, { N: 1024 });

    const held = gate(pool);
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    // Aborted while queued: counted, never observed (it never ran).
    const controller = new AbortController();
    const aborted = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { signal: controller.signal });
    controller.abort();
    await assert.rejects(aborted, { code: 'ABORT_ERR' });
    // One queued job fills the queue: the next two are refused.
    const queued = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
    for (let i = 0; i < 2; i++) {
      await assert.rejects(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256'), { code: 'ERR_KDF_POOL_SATURATED' });
    }
    const busy = await scrape(register);
    assert.equal(busy.get('kdfpool_threads{pool="prom"}'), 1);
    assert.equal(busy.get('kdfpool_jobs_running{pool="prom"}'), 1);
    assert.equal(busy.get('kdfpool_threads_busy{pool="prom"}'), 1);
    assert.equal(busy.get('kdfpool_jobs_queued{pool="prom"}'), 1);
    assert.equal(busy.get('kdfpool_queue_capacity{pool="prom"}'), 1);
    assert.ok(busy.get('kdfpool_memory_max_bytes{pool="prom"}') > 0);

    // The queued job runs once the gate opens; a call after close() is
    // refused ("closed").
    held.release();
    await held.done;
    await queued;
    await pool.close();
    await assert.rejects(pool.pbkdf2('pw', 'salt', 1, 32, 'sha256'), { code: 'ERR_KDF_POOL_CLOSED' });

    const s = await scrape(register);
    const jobs = (algorithm, outcome) => s.get(`kdfpool_jobs_total{pool="prom",algorithm="${algorithm}",outcome="${outcome}"}`);
    assert.equal(jobs('pbkdf2', 'completed'), 3);
    assert.equal(jobs('scrypt', 'completed'), 1);
    assert.equal(jobs('pbkdf2', 'aborted'), 1);
    assert.equal(jobs('pbkdf2', 'refused'), 3);
    assert.equal(jobs('pbkdf2', 'failed'), undefined);
    // A full pool's refusals: scope "pool" (503s); a closed pool's have no scope.
    assert.equal(s.get('kdfpool_refusals_total{pool="prom",reason="queue_full",scope="pool"}'), 2);
    assert.equal(s.get('kdfpool_refusals_total{pool="prom",reason="closed"}'), 1);

    for (const name of ['kdfpool_wait_seconds', 'kdfpool_run_seconds']) {
      assert.equal(s.get(`${name}_count{pool="prom",algorithm="pbkdf2"}`), 3, name);
      assert.equal(s.get(`${name}_count{pool="prom",algorithm="scrypt"}`), 1, name);
      assert.ok(s.get(`${name}_sum{pool="prom",algorithm="pbkdf2"}`) >= 0, name);
      // Cumulative buckets: never decreasing, ending at the count.
      const buckets = [...s].filter(([k]) => k.startsWith(`${name}_bucket{le=`) || k.startsWith(`${name}_bucket{`))
        .filter(([k]) => k.includes('pool="prom"') && k.includes('algorithm="pbkdf2"'))
        .map(([, v]) => v);
      assert.ok(buckets.length > 5, `${name} has buckets`);
      for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i] >= buckets[i - 1], `${name} buckets cumulative`);
      assert.equal(buckets[buckets.length - 1], 3);
    }
    // The closed pool's gauges are gone; its counters stay.
    assert.equal(s.get('kdfpool_threads{pool="prom"}'), undefined);
  } finally {
    metrics.stop();
    await pool.close();
  }
});

test('counters come from every pool; gauges from the pools given (default: the default pool)', async () => {
  const register = new client.Registry();
  const metrics = registerKdfMetrics(register);
  const other = kdf.createPool({ name: 'other', threads: 1 });
  try {
    await kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256');
    await other.pbkdf2('pw', 'salt', 10, 32, 'sha256');
    kdf.pbkdf2Sync('pw', 'salt', 10, 32, 'sha256'); // not on a pool: not counted
    const s = await scrape(register);
    assert.equal(s.get('kdfpool_jobs_total{pool="default",algorithm="pbkdf2",outcome="completed"}'), 1);
    assert.equal(s.get('kdfpool_jobs_total{pool="other",algorithm="pbkdf2",outcome="completed"}'), 1);
    assert.equal(s.get('kdfpool_threads{pool="default"}'), kdf.stats().threads);
    assert.equal(s.get('kdfpool_threads{pool="other"}'), undefined);
    metrics.add(other);
    assert.equal((await scrape(register)).get('kdfpool_threads{pool="other"}'), 1);
    metrics.remove(other);
    assert.equal((await scrape(register)).get('kdfpool_threads{pool="other"}'), undefined);
  } finally {
    metrics.stop();
    await other.close();
  }
});

test('pools that come and go add no series: unnamed pools count as pool="unnamed"', async () => {
  const register = new client.Registry();
  const metrics = registerKdfMetrics(register);
  const cycle = async (n) => {
    for (let i = 0; i < n; i++) {
      const pool = kdf.createPool({ threads: 1, maxMemory: 64 * 1024 * 1024 });
      metrics.add(pool);
      await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
      await assert.rejects(pool.scrypt('pw', 'salt', 32, { N: 2 ** 20, r: 8, maxmem: 2 ** 31 }), { code: 'ERR_KDF_MEMORY_LIMIT' });
      if (i % 2 === 0) await scrape(register); // one open at scrape time, now and then
      await pool.close();
    }
    return scrape(register);
  };
  try {
    const few = await cycle(3);
    const many = await cycle(100);
    assert.equal(many.size, few.size, 'series lines grew with the pools created');
    assert.ok([...many.keys()].every((k) => !/pool="p[0-9]+"/.test(k)), 'an unnamed pool has a series of its own');
    assert.equal(many.get('kdfpool_jobs_total{pool="unnamed",algorithm="pbkdf2",outcome="completed"}'), 103);
    // The name is reserved: no named pool can pass for an unnamed one.
    assert.throws(() => kdf.createPool({ name: 'p7' }), { code: 'ERR_INVALID_ARG_VALUE', message: /reserved/ });
  } finally {
    metrics.stop();
  }
});

test('kdfpool_thread_busy_seconds_total grows while a thread is busy and not while idle; a displaced call is scope "client"', async () => {
  const register = new client.Registry();
  const pool = kdf.createPool({ name: 'busy', threads: 1, maxQueue: 3 });
  const metrics = registerKdfMetrics(register, [pool]);
  const busySeconds = async () => (await scrape(register)).get('kdfpool_thread_busy_seconds_total{pool="busy"}');
  try {
    assert.equal(await busySeconds(), 0, 'the series exists from the start');
    const held = gate(pool);
    await until(() => pool.stats().running === 1, 'the gate to hold the thread');
    // Sampled every 50 ms: a held thread adds its time, one sample at a time.
    for (let i = 0; (await busySeconds()) < 0.2; i++) {
      assert.ok(i < 3000, 'the busy counter to pass 0.2 s');
      await sleep(10);
    }
    // A flooder fills the queue (its fourth call is refused: the pool is
    // full), then a newcomer displaces its last call, two jobs behind it
    // (its own demand).
    const flood = [0, 1, 2, 3].map(() => pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { fairKey: 'flood' }).then(() => null, (e) => e));
    await until(() => pool.stats().queued === 3 && pool.stats().refused === 1, 'the flood to fill the queue');
    const user = pool.pbkdf2('pw', 'salt', 1, 32, 'sha256', { fairKey: 'user' });
    await until(() => pool.stats().displaced === 1, 'the newcomer to displace the flood');
    held.release();
    await user;
    const outcomes = await Promise.all(flood);
    assert.deepEqual(outcomes.filter((e) => e !== null).map((e) => [e.code, e.name, e.scope]).sort(),
      [['ERR_KDF_POOL_SATURATED', 'PoolSaturatedError', 'client'], ['ERR_KDF_POOL_SATURATED', 'PoolSaturatedError', 'pool']]);
    const s = await scrape(register);
    assert.equal(s.get('kdfpool_refusals_total{pool="busy",reason="displaced",scope="client"}'), 1);
    assert.equal(s.get('kdfpool_refusals_total{pool="busy",reason="queue_full",scope="pool"}'), 1);
    // Idle: two samples later the counter has stopped.
    await until(() => pool.stats().running === 0, 'the pool to go idle');
    const idleFrom = await busySeconds();
    await sleep(120);
    assert.equal(await busySeconds(), idleFrom);
  } finally {
    metrics.stop();
    await pool.close();
  }
});

test('stop() stops counting and unregisters, so the metrics can be registered again', async () => {
  const register = new client.Registry();
  registerKdfMetrics(register).stop();
  assert.equal((await register.metrics()).trim(), '');
  await kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256');
  const again = registerKdfMetrics(register);
  try {
    const s = await scrape(register);
    assert.equal(s.get('kdfpool_jobs_total{pool="default",algorithm="pbkdf2",outcome="completed"}'), undefined);
    await kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256');
    assert.equal((await scrape(register)).get('kdfpool_jobs_total{pool="default",algorithm="pbkdf2",outcome="completed"}'), 1);
  } finally {
    again.stop();
  }
});

test('the package exports kdfpool/prometheus to require and import', async () => {
  assert.equal(require('kdfpool/prometheus'), require('../lib/prometheus'));
  const esm = await import('kdfpool/prometheus');
  assert.equal(esm.registerKdfMetrics, registerKdfMetrics);
  const pkg = require('../package.json');
  assert.equal(pkg.peerDependenciesMeta['prom-client'].optional, true);
  assert.ok(pkg.peerDependencies['prom-client']);
  assert.ok(pkg.files.includes('prometheus.d.ts'));
});

test('without prom-client: ERR_KDF_MISSING_PEER naming the package; options.client serves instead', () => {
  const id = require.resolve('prom-client');
  const loaded = require.cache[id];
  delete require.cache[id];
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function hidePromClient(request, ...rest) {
    if (request === 'prom-client') {
      const err = new Error("Cannot find module 'prom-client'");
      err.code = 'MODULE_NOT_FOUND';
      throw err;
    }
    return resolve.call(this, request, ...rest);
  };
  try {
    assert.throws(() => registerKdfMetrics(new client.Registry()), (err) => {
      assert.equal(err.code, 'ERR_KDF_MISSING_PEER');
      assert.equal(err.name, 'KdfError');
      assert.match(err.message, /npm install prom-client/);
      return true;
    });
    const register = new client.Registry();
    registerKdfMetrics(register, [], { client }).stop();
  } finally {
    Module._resolveFilename = resolve;
    require.cache[id] = loaded;
  }
});

test('prometheus.d.ts: the entry type-checks from a TypeScript project, misuse is rejected', { skip: leftToAll }, () => {
  assertTypeChecks(path.join(__dirname, 'prometheus-types', 'tsconfig.json'));
});

test('examples/prometheus.js serves a registry on GET /metrics', async () => {
  const { metricsServer } = require('../examples/prometheus');
  const register = new client.Registry();
  const metrics = registerKdfMetrics(register);
  const server = metricsServer(register).listen(0, '127.0.0.1');
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    await kdf.pbkdf2('pw', 'salt', 10, 32, 'sha256');
    const res = await fetch(`http://127.0.0.1:${server.address().port}/metrics`);
    assert.equal(res.status, 200);
    const s = parse(await res.text());
    assert.equal(s.get('kdfpool_jobs_total{pool="default",algorithm="pbkdf2",outcome="completed"}'), 1);
    assert.equal((await fetch(`http://127.0.0.1:${server.address().port}/`)).status, 404);
  } finally {
    metrics.stop();
    await new Promise((resolve) => server.close(resolve));
  }
});
