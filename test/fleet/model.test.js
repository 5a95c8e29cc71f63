'use strict';

// The autoscaling model (bench/fleet-model.js) that docs/deploy.md's
// tables come from: deterministic, within the HPA's bounds, keeping up
// with a 10-minute ramp to 5x one replica, and refusing less than the same
// HPA on the utilization alone when the ramp takes one minute.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const model = require('../../bench/fleet-model');

test('the model is deterministic and keeps the HPA\'s bounds', () => {
  assert.deepEqual(model.simulate(), model.simulate());
  for (const signal of ['demand', 'utilization']) {
    for (const s of model.simulate({ rampS: 60, holdS: 600 }, signal)) {
      assert.ok(s.replicas >= model.DEFAULTS.minReplicas && s.replicas <= model.DEFAULTS.maxReplicas, `${signal} t=${s.t}`);
      assert.ok(s.ready <= s.replicas);
      assert.ok(Math.abs(s.served + s.refused - s.load) < 1e-9);
    }
  }
});

test('a 10-minute ramp to 5x: replicas follow, nothing refused once at 5x', () => {
  const { rows } = model.table();
  const atFive = rows.filter((r) => r.load === 5);
  assert.ok(atFive.length >= 3);
  for (const r of atFive) {
    assert.equal(r.refused, 0);
    assert.ok(r.ready >= Math.ceil(5 / (model.DEFAULTS.target * (1 + model.DEFAULTS.tolerance))), `${r.ready} replicas at 5x`);
  }
});

test('a 1-minute ramp: the shipped signal refuses less than the utilization alone, and scales down after the window', () => {
  const fast = model.table({ rampS: 60, holdS: 240 }, 30);
  assert.ok(fast.refusedTotal < fast.refusedTotalUtilization, `${fast.refusedTotal} vs ${fast.refusedTotalUtilization}`);
  // Held long enough, the overshoot comes back down to what 5x needs.
  const long = model.simulate({ rampS: 60, holdS: 900 });
  const end = long[long.length - 1];
  assert.ok(end.replicas < Math.max(...long.map((s) => s.replicas)), 'scaled down after its stabilization window');
  assert.equal(end.refused, 0);
});
