'use strict';

// readiness(pool, options): a readiness probe answered from the pool's own
// state, apart from liveness. A replica whose pool has been saturated for
// `saturatedForMs` says "not ready", so a Kubernetes Service (or any
// balancer with health checks) stops sending it logins without restarting
// it; once the pool has been calm for `recoverForMs` it says "ready" again.
// The two times are the hysteresis: a replica does not flap in and out of
// the Service with every burst.
//
// "Saturated" at a sample means the pool turned calls away since the last
// sample because it was full (stats().refused less displaced: a displaced
// call is one client giving way to another while the pool serves both), or,
// with `queueWaitMs`, that a call submitted now would wait longer than that
// (stats().estimatedWaitMs, the pool's own prediction from the work ahead).
// The pool is sampled every `intervalMs` by an unref'd timer (it never keeps
// the process alive); close() stops it.
//
// Liveness is not this: a saturated replica is alive and doing useful work,
// and restarting it would throw that work away. A liveness probe should ask
// only whether the process answers (any route that does not wait on the pool).

const errors = require('./errors');
const v = require('./validate');

const OPTION_KEYS = ['saturatedForMs', 'recoverForMs', 'queueWaitMs', 'intervalMs'];
const DEFAULTS = { saturatedForMs: 10000, recoverForMs: 20000, queueWaitMs: 0, intervalMs: 250 };
const MAX_MS = 2 ** 31 - 1;

function readOptions(options) {
  if (options === undefined) options = {};
  v.validateObject(options, 'options');
  v.refuseUnknownKeys(options, 'options', OPTION_KEYS);
  const out = { ...DEFAULTS };
  for (const key of OPTION_KEYS) {
    if (options[key] === undefined) continue;
    v.validateInteger(options[key], `options.${key}`, key === 'intervalMs' ? 10 : 0, MAX_MS);
    out[key] = options[key];
  }
  return out;
}

/**
 * The state machine, without a clock of its own: observe() takes each
 * sample's verdict and time. Ready -> not ready after `saturatedForMs` of
 * saturated samples in a row; not ready -> ready after `recoverForMs` of
 * calm ones. The first saturated (calm) sample starts the count.
 */
class ReadinessState {
  #saturatedForMs;
  #recoverForMs;
  #ready = true;
  // Since when the samples have said what they say now (ms), and why.
  #streakSince = 0;
  #streakSaturated = false;
  #reason = null;
  #changedAt = 0;

  constructor({ saturatedForMs, recoverForMs }, now) {
    this.#saturatedForMs = saturatedForMs;
    this.#recoverForMs = recoverForMs;
    this.#streakSince = now;
    this.#changedAt = now;
  }

  /** One sample: `reason` is null when calm, else why the pool is saturated. */
  observe(reason, now) {
    const saturated = reason !== null;
    if (saturated !== this.#streakSaturated) {
      this.#streakSaturated = saturated;
      this.#streakSince = now;
    }
    if (saturated) this.#reason = reason;
    const lasted = now - this.#streakSince;
    if (this.#ready && saturated && lasted >= this.#saturatedForMs) {
      this.#ready = false;
      this.#changedAt = now;
    } else if (!this.#ready && !saturated && lasted >= this.#recoverForMs) {
      this.#ready = true;
      this.#reason = null;
      this.#changedAt = now;
    }
    return this.#ready;
  }

  get ready() {
    return this.#ready;
  }

  /** { ready, saturated, reason, sinceMs }: sinceMs is when `ready` last changed (or the start). */
  status() {
    return {
      ready: this.#ready,
      saturated: this.#streakSaturated,
      reason: this.#ready && !this.#streakSaturated ? null : this.#reason,
      sinceMs: this.#changedAt,
    };
  }
}

// A sample's verdict from two successive stats(): null (calm), 'refusing'
// or 'queue_wait'.
function verdict(previous, s, queueWaitMs) {
  const turnedAway = (s.refused - s.displaced) - (previous.refused - previous.displaced);
  if (turnedAway > 0) return 'refusing';
  if (queueWaitMs > 0 && s.estimatedWaitMs > queueWaitMs) return 'queue_wait';
  return null;
}

function isPool(pool) {
  return pool !== null && typeof pool === 'object' && typeof pool.stats === 'function';
}

/**
 * readiness(pool[, options]): { ready, status(), handler(req, res), close() }.
 * `pool`: a pool of createPool(), or the kdfpool module (the default pool).
 * options: { saturatedForMs (10000), recoverForMs (20000), queueWaitMs (0:
 * refusals only), intervalMs (250) }, integers in ms.
 */
function readiness(pool, options) {
  if (!isPool(pool)) throw errors.invalidArgType('pool', 'a kdfpool pool (createPool()) or the kdfpool module', pool);
  const o = readOptions(options);
  let last = pool.stats();
  const state = new ReadinessState(o, Date.now());
  let closed = false;

  const sample = () => {
    let s;
    try {
      s = pool.stats();
    } catch (err) {
      if (!(err instanceof errors.PoolClosedError)) throw err;
      probe.close(); // a closed pool serves nothing: not ready, for good
      return;
    }
    state.observe(verdict(last, s, o.queueWaitMs), Date.now());
    last = s;
  };
  const timer = setInterval(sample, o.intervalMs);
  timer.unref();

  const probe = {
    /** Whether the replica should receive traffic now. */
    get ready() {
      return !closed && state.ready;
    },
    /** { ready, saturated, reason: null | 'refusing' | 'queue_wait' | 'closed', sinceMs }. */
    status() {
      if (closed) return { ready: false, saturated: false, reason: 'closed', sinceMs: state.status().sinceMs };
      return state.status();
    },
    /** For node:http and Express: 200 when ready, else 503, with status() as JSON. */
    handler(req, res) {
      const body = JSON.stringify(probe.status());
      res.writeHead(probe.ready ? 200 : 503, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
      });
      res.end(body);
    },
    /** Stops sampling; the probe then answers not ready. */
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
  probe.handler = probe.handler.bind(probe);
  return probe;
}

module.exports = { readiness, ReadinessState, verdict, DEFAULTS };
