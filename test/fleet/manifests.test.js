'use strict';

// The shipped fleet configs, checked by their own engines and schemas:
// - promtool check rules / test rules on examples/deploy/kdfpool-rules.yml
//   and its unit tests (kdfpool-rules.test.yml);
// - nginx -t and haproxy -c on nginx.conf and haproxy.cfg;
// - every Kubernetes manifest validated with kubernetes-models and
//   @kubernetes-models/keda (the API schemas), then what ties them
//   together: the Deployment's probes name the login server's routes, its
//   CPU request is its limit (the pool's threads follow the cgroup quota);
//   the HPA targets the metric prometheus-adapter makes of the recording
//   rule; KEDA queries that rule, at the HPA's target.
//
// The engines' checks skip, saying why, only where they are not installed.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const YAML = require('yaml');
const h = require('./harness');

const K8S = path.join(h.DEPLOY, 'kubernetes');
const rulesText = fs.readFileSync(path.join(h.DEPLOY, 'kdfpool-rules.yml'), 'utf8');
const recorded = YAML.parse(rulesText).groups.flatMap((g) => g.rules).filter((r) => r.record).map((r) => r.record);

test('promtool check rules and test rules pass on the shipped rules', { skip: h.missingEngines(['promtool']) || false }, () => {
  const check = h.run('promtool', ['check', 'rules', 'kdfpool-rules.yml'], h.DEPLOY);
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /SUCCESS: 8 rules found/);
  const unit = h.run('promtool', ['test', 'rules', 'kdfpool-rules.test.yml'], h.DEPLOY);
  assert.equal(unit.status, 0, unit.stdout + unit.stderr);
  assert.match(unit.stdout, /SUCCESS/);
  assert.ok(recorded.includes(h.SIGNAL), `${h.SIGNAL} is recorded`);
});

test('a broken rule fails promtool test rules (the unit tests can fail)', { skip: h.missingEngines(['promtool']) || false }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-rules-'));
  try {
    // The demand without the refused share: the saturated replica's 1.5 becomes 1.
    fs.writeFileSync(path.join(dir, 'kdfpool-rules.yml'), rulesText.replace(
      '* (1 + kdfpool:refused_full:rate20s / clamp_min(kdfpool:completed:rate20s, 0.001))', '* 1'));
    fs.copyFileSync(path.join(h.DEPLOY, 'kdfpool-rules.test.yml'), path.join(dir, 'kdfpool-rules.test.yml'));
    const unit = h.run('promtool', ['test', 'rules', 'kdfpool-rules.test.yml'], dir);
    assert.notEqual(unit.status, 0);
    assert.match(unit.stdout + unit.stderr, /FAILED/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('nginx -t and haproxy -c accept the shipped configs', { skip: h.missingEngines(['nginx', 'haproxy']) || false }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kdfpool-nginx-t-'));
  try {
    const nginx = h.run('nginx', ['-t', '-p', `${dir}/`, '-c', path.join(h.DEPLOY, 'nginx.conf'), '-e', 'stderr',
      '-g', `pid ${dir}/nginx.pid;`], h.DEPLOY);
    assert.equal(nginx.status, 0, nginx.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const haproxy = h.run('haproxy', ['-c', '-f', path.join(h.DEPLOY, 'haproxy.cfg')], h.DEPLOY);
  assert.equal(haproxy.status, 0, haproxy.stdout + haproxy.stderr);
});

// Every document of every manifest, with the class that validates it.
async function manifests() {
  const { Deployment } = require('kubernetes-models/apps/v1/Deployment');
  const { Service } = require('kubernetes-models/v1/Service');
  const { ConfigMap } = require('kubernetes-models/v1/ConfigMap');
  const { HorizontalPodAutoscaler } = require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler');
  const { ScaledObject } = require('@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject');
  const classes = {
    'apps/v1 Deployment': Deployment,
    'v1 Service': Service,
    'v1 ConfigMap': ConfigMap,
    'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
    'keda.sh/v1alpha1 ScaledObject': ScaledObject,
  };
  const docs = [];
  for (const file of fs.readdirSync(K8S).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(K8S, file), 'utf8'))) {
      assert.deepEqual(doc.errors, [], file);
      const obj = doc.toJS();
      const Class = classes[`${obj.apiVersion} ${obj.kind}`];
      assert.ok(Class, `${file}: ${obj.apiVersion} ${obj.kind} has a schema here`);
      docs.push({ file, obj, model: new Class(obj) });
    }
  }
  return docs;
}

test('every Kubernetes manifest validates against its schema; a broken one does not', async () => {
  const docs = await manifests();
  assert.deepEqual(docs.map((d) => `${d.file} ${d.obj.kind}`), [
    'deployment.yaml Deployment', 'deployment.yaml Service', 'hpa.yaml HorizontalPodAutoscaler',
    'keda-scaledobject.yaml ScaledObject', 'prometheus-adapter.yaml ConfigMap',
  ]);
  for (const d of docs) d.model.validate();
  // The validation can fail: a probe's port of the wrong type, a trigger list that is not one.
  const { Deployment } = require('kubernetes-models/apps/v1/Deployment');
  const { ScaledObject } = require('@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject');
  const deployment = structuredClone(docs[0].obj);
  deployment.spec.template.spec.containers[0].readinessProbe.periodSeconds = 'often';
  assert.throws(() => new Deployment(deployment).validate(), /periodSeconds/);
  const keda = structuredClone(docs.find((d) => d.obj.kind === 'ScaledObject').obj);
  keda.spec.triggers = { type: 'prometheus' };
  assert.throws(() => new ScaledObject(keda).validate(), /triggers/);
});

test('the manifests agree: probes on the server\'s routes, CPU request = limit, one signal and one target', async () => {
  const docs = await manifests();
  const of = (kind) => docs.find((d) => d.obj.kind === kind).obj;
  const container = of('Deployment').spec.template.spec.containers[0];
  assert.equal(container.readinessProbe.httpGet.path, '/readyz');
  assert.equal(container.livenessProbe.httpGet.path, '/livez');
  assert.equal(container.readinessProbe.failureThreshold, 1, 'the hysteresis is kdf.readiness()\'s');
  const server = fs.readFileSync(path.join(h.DEPLOY, '..', 'login-server.js'), 'utf8');
  assert.match(server, /path === '\/readyz'/);
  assert.match(server, /path === '\/livez'/);
  assert.equal(container.resources.requests.cpu, container.resources.limits.cpu);
  // prometheus-adapter turns the recording rule into the HPA's pods metric.
  const adapter = YAML.parse(of('ConfigMap').data['config.yaml']).rules[0];
  assert.match(adapter.seriesQuery, /^kdfpool:demand:ratio\{/);
  assert.ok(recorded.includes('kdfpool:demand:ratio'));
  const hpaMetric = of('HorizontalPodAutoscaler').spec.metrics[0].pods;
  assert.equal(hpaMetric.metric.name, adapter.name.as);
  assert.equal(hpaMetric.target.averageValue, '700m');
  // KEDA: the same rule, summed and averaged over the replicas, against the same target.
  const trigger = of('ScaledObject').spec.triggers[0];
  assert.equal(trigger.metricType, 'AverageValue');
  assert.match(trigger.metadata.query, /^sum\(kdfpool:demand:ratio\{/);
  assert.equal(Number(trigger.metadata.threshold), 0.7);
  assert.equal(h.SCALE_UP, Number((0.7 * 1.1).toFixed(2)), 'the scale-up level the Prometheus test uses is the HPA\'s');
});
