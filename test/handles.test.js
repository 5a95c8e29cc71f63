'use strict';

// The native module's handles (pool handles from createPool(), cancel
// tickets from submit()) are typed: an entry point given the wrong kind of
// handle, or a forged value, throws a TypeError with a code instead of
// crashing or hanging. lib/ never does this; the native module is internal
// (not exported by the package), but nothing stops code from requiring it.
// Each case runs in a child process, so a crash or hang is reported with
// the case's name.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

const PRELUDE = `
  const native = require(${JSON.stringify(path.join(ROOT, 'lib', 'native'))});
  const submit = require(${JSON.stringify(path.join(ROOT, 'lib', 'submit'))});
  // Installs the completion handler.
  const completions = require(${JSON.stringify(path.join(ROOT, 'lib', 'completions'))});
  const { PBKDF2 } = native.constants.algorithms;
  const pw = new Uint8Array([1, 2, 3]);
  const salt = new Uint8Array(16);
  const pool = native.createPool({ threads: 1 }, 'hdl');
  const call = completions.expect();
  const values = [1, 0, 0, 0, 0, 0, pw, salt];
  const ticket = native.submit(null, PBKDF2, 'sha256', 32, 0, true, call.id, undefined, ...values);
  const promise = call.promise;
  const outcome = (fn) => {
    try {
      const r = fn();
      return { returned: typeof r === 'object' && r !== null ? 'object' : r };
    } catch (err) {
      return { name: err.name, code: err.code, message: err.message };
    }
  };
`;

const CASES = {
  'cancel(pool handle)': 'native.cancel(pool)',
  'cancel(forged object)': 'native.cancel({})',
  'cancel(number)': 'native.cancel(42)',
  'submit(ticket, ...)': "native.submit(ticket, PBKDF2, 'sha256', 32, 0, false, 0, undefined, ...values)",
  'submit(forged object, ...)': "native.submit({}, PBKDF2, 'sha256', 32, 0, false, 0, undefined, ...values)",
  'submit(string, ...)': "native.submit('pool', PBKDF2, 'sha256', 32, 0, false, 0, undefined, ...values)",
  'closePool(ticket)': 'native.closePool(ticket, 0)',
  'closePool(forged object)': 'native.closePool({}, 0)',
  'closePool(null)': 'native.closePool(null, 0)',
  'stats(ticket)': 'native.stats(ticket)',
  'maxMemory(ticket)': 'native.maxMemory(ticket)',
  'maxMemory(forged object)': 'native.maxMemory({ p: 1 })',
};

for (const [name, call] of Object.entries(CASES)) {
  test(`wrong or forged handle: ${name} throws a coded TypeError`, () => {
    const source = `${PRELUDE}
      const r = outcome(() => ${call});
      console.log(JSON.stringify(r));
      // The real handles still work afterwards.
      Promise.all([promise, submit.closeNative(pool)]).then(() => console.log('ok'));
    `;
    const r = spawnSync(process.execPath, ['-e', source], { encoding: 'utf8', timeout: 30000 });
    assert.equal(r.error, undefined, `${name}: ${r.error} (hang?)`);
    assert.equal(r.signal, null, `${name}: killed by ${r.signal}\n${r.stderr}`);
    assert.equal(r.status, 0, `${name}: exit ${r.status}\n${r.stderr}`);
    const [line, ok] = r.stdout.trim().split('\n');
    const got = JSON.parse(line);
    assert.equal(got.name, 'TypeError', `${name}: ${line}`);
    assert.equal(got.code, 'ERR_KDF_INVALID_HANDLE', `${name}: ${line}`);
    assert.equal(ok, 'ok', `${name}: the real handles stopped working`);
  });
}

test('the right handles keep working: cancel(ticket), stats(pool), closePool(pool) twice', () => {
  const source = `${PRELUDE}
    const out = [];
    const cancelled = native.cancel(ticket);
    out.push(typeof cancelled);
    // A job cancelled while queued is never heard of again: lib/ settles it.
    if (cancelled) call.reject(new Error('cancelled'));
    out.push(typeof native.stats(pool));
    out.push(typeof native.stats(null));
    const closing = submit.closeNative(pool);
    out.push(native.closePool(pool, 0).status === native.constants.status.ECLOSED);
    Promise.all([promise.catch(() => {}), closing]).then(() => console.log(JSON.stringify(out)));
  `;
  const r = spawnSync(process.execPath, ['-e', source], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), ['boolean', 'object', 'object', true]);
});
