'use strict';

// What tracers (OpenTelemetry, APM agents, lib/prometheus.js) see of jobs,
// through node:diagnostics_channel, under two stable names:
//
//   kdfpool:job      a TracingChannel: per call that reaches a pool (or runs
//                    on the calling thread, the *Sync calls), one `start`
//                    and one `end` around the submission; for pool calls,
//                    `asyncStart`/`asyncEnd` when the promise settles;
//                    `error` before them if it rejects (or throws).
//   kdfpool:refusal  a plain channel: one message per call the pool turned
//                    away (full, deadline, displaced, closed, over budget).
//
// A job's context object (the same object through all its events):
//   { algorithm, pool, sync, outcome, reason, retryAfterMs, waitMs, runMs,
//     durationMs, error }
// and a refusal's message: { algorithm, pool, reason, retryAfterMs, error }.
// Neither ever holds an input or an output: no password, salt, secret,
// associated data, fair key or derived key, not even a length of one.
//
// When nobody subscribes, a call pays one `watched()` check and nothing
// else (no context, no extra promise). Where the host lacks
// diagnostics_channel or TracingChannel, tracing is off.

const { performance } = require('node:perf_hooks');
const native = require('./native');

const { algorithms: ALG } = native.constants;

const JOB_CHANNEL = 'kdfpool:job';
const REFUSAL_CHANNEL = 'kdfpool:refusal';

function openChannels() {
  let dc;
  try {
    dc = require('node:diagnostics_channel');
  } catch {
    return { jobs: null, refusals: null };
  }
  const jobs = typeof dc.tracingChannel === 'function' ? dc.tracingChannel(JOB_CHANNEL) : null;
  const refusals = typeof dc.channel === 'function' ? dc.channel(REFUSAL_CHANNEL) : null;
  return { jobs, refusals };
}

const { jobs, refusals } = openChannels();

// Node >= 20.13 answers TracingChannel#hasSubscribers itself; Bun's
// TracingChannel has no such getter, so ask its five channels.
function jobsWatchedBy(channel) {
  if (channel === null) return () => false;
  if (typeof channel.hasSubscribers === 'boolean') return () => channel.hasSubscribers;
  const parts = [channel.start, channel.end, channel.asyncStart, channel.asyncEnd, channel.error];
  return () => parts.some((c) => c.hasSubscribers);
}

const jobsWatched = jobsWatchedBy(jobs);
const refusalsWatched = refusals === null ? () => false : () => refusals.hasSubscribers;

/** Whether any tracer listens: callers skip tracing entirely when not. */
function watched() {
  return jobsWatched() || refusalsWatched();
}

const ALGORITHM_NAMES = Object.fromEntries(Object.entries(ALG).map(([name, id]) => [id, name.toLowerCase()]));

function newContext(pool, alg, sync) {
  return {
    algorithm: ALGORITHM_NAMES[alg],
    pool,
    sync,
    outcome: undefined,
    reason: undefined,
    retryAfterMs: undefined,
    waitMs: undefined,
    runMs: undefined,
    durationMs: undefined,
    error: undefined,
  };
}

// Why the pool turned a call away, or undefined when the error is not a
// refusal (the job ran and failed, or the caller aborted).
function refusalReason(err) {
  switch (err && err.code) {
    case 'ERR_KDF_POOL_SATURATED': return err.reason;
    case 'ERR_KDF_POOL_CLOSED': return 'closed';
    case 'ERR_KDF_MEMORY_LIMIT': return 'memory_limit';
    default: return undefined;
  }
}

function settleFailed(ctx, err, startedAt) {
  ctx.durationMs = performance.now() - startedAt;
  ctx.error = err;
  const reason = refusalReason(err);
  if (reason !== undefined) {
    ctx.outcome = 'refused';
    ctx.reason = reason;
    if (typeof err.retryAfterMs === 'number') ctx.retryAfterMs = err.retryAfterMs;
    if (refusals !== null && refusals.hasSubscribers) {
      refusals.publish({ algorithm: ctx.algorithm, pool: ctx.pool, reason, retryAfterMs: ctx.retryAfterMs, error: err });
    }
  } else {
    ctx.outcome = err && err.code === 'ABORT_ERR' ? 'aborted' : 'failed';
  }
  if (jobs !== null) jobs.error.publish(ctx);
}

/**
 * Traces one pool call: `submit(ctx)` submits it and returns its promise
 * (it hands `ctx` to the completion, which sets waitMs and runMs). Returns
 * the promise the caller gets, which settles as submit's does.
 */
function traceJob(pool, alg, submit) {
  const ctx = newContext(pool, alg, false);
  const startedAt = performance.now();
  const settled = () => {
    if (jobs === null) return;
    jobs.asyncStart.publish(ctx);
    jobs.asyncEnd.publish(ctx);
  };
  // The caller gets submit's own promise, and the trace follows it on a
  // side branch that never rejects. A promise derived from it would reject
  // unhandled (a crash by default) wherever the caller attaches its
  // handler a tick later, which the untraced channel tolerates for calls
  // with a signal or on a created pool (its own listeners mark the promise
  // handled). The side branch does the same for default-pool calls
  // without a signal: a rejection nobody ever handles goes unreported
  // while a tracer listens.
  const run = () => {
    try {
      const promise = submit(ctx);
      promise.then(() => {
        ctx.durationMs = performance.now() - startedAt;
        ctx.outcome = 'completed';
        settled();
      }, (err) => {
        settleFailed(ctx, err, startedAt);
        settled();
      });
      return promise;
    } catch (err) { // an argument error only native code could see
      settleFailed(ctx, err, startedAt);
      throw err;
    } finally {
      if (jobs !== null) jobs.end.publish(ctx);
    }
  };
  return jobs !== null ? jobs.start.runStores(ctx, run) : run();
}

/** Traces one call on the calling thread (the *Sync functions): `run()` returns its result or throws. */
function traceSync(alg, run) {
  const ctx = newContext(null, alg, true);
  const startedAt = performance.now();
  const traced = () => {
    try {
      const value = run();
      ctx.durationMs = ctx.runMs = performance.now() - startedAt;
      ctx.waitMs = 0;
      ctx.outcome = 'completed';
      return value;
    } catch (err) {
      settleFailed(ctx, err, startedAt);
      throw err;
    } finally {
      if (jobs !== null) jobs.end.publish(ctx);
    }
  };
  return jobs !== null ? jobs.start.runStores(ctx, traced) : traced();
}

module.exports = { watched, traceJob, traceSync, JOB_CHANNEL, REFUSAL_CHANNEL };
