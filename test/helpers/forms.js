'use strict';

// Helpers for checking a KDF in its three forms (promise, callback, sync)
// against node:crypto.

const assert = require('node:assert/strict');

const noop = () => {};

// The fields callers can see and branch on.
function shape(err) {
  assert.ok(err instanceof Error, `expected an Error, got ${String(err)}`);
  return { name: err.name, code: err.code, message: err.message, ctor: err.constructor.name };
}

// Runs fn, which must throw synchronously; returns what it threw.
function thrown(fn, label = '') {
  let result;
  try {
    result = fn();
  } catch (err) {
    return err;
  }
  // A promise returned instead: don't leave its rejection unhandled.
  if (result && typeof result.then === 'function') result.then(noop, noop);
  return assert.fail(`${label ? `${label}: ` : ''}expected a synchronous throw, got ${result instanceof Promise ? 'a Promise' : typeof result}`);
}

// A callback-form call of fn(...args, callback) as a promise of
// { err, key }; rejects if the callback runs synchronously or twice.
function viaCallback(fn, ...args) {
  return new Promise((resolve, reject) => {
    let sync = true;
    let calls = 0;
    fn(...args, (err, key) => {
      calls++;
      if (sync) reject(new Error('callback ran synchronously'));
      else if (calls > 1) reject(new Error('callback ran twice'));
      else resolve({ err, key });
    });
    sync = false;
  });
}

module.exports = { noop, shape, thrown, viaCallback };
