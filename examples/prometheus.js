'use strict';

// kdfpool's metrics for Prometheus with the shipped entry point
// kdfpool/prometheus (needs `npm install prom-client`, an optional peer
// dependency). Histograms of each job's wait and run time, counters by
// outcome and refusal reason, gauges of threads and queue depth; closed
// pools leave the gauges by themselves. Reference: docs/observability.md.
//
//   node examples/prometheus.js [port]      (default 9464, 127.0.0.1 only)
//   curl localhost:9464/metrics

const http = require('node:http');
const client = require('prom-client');
const kdf = require('..'); // in an app: require('kdfpool')
const { registerKdfMetrics } = require('kdfpool/prometheus');

/** Serves `register` on GET /metrics. */
function metricsServer(register) {
  return http.createServer(async (req, res) => {
    if (req.url !== '/metrics') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': register.contentType });
    res.end(await register.metrics());
  });
}

if (require.main === module) {
  const login = kdf.createPool({ name: 'login' });
  registerKdfMetrics(client.register, [kdf, login]); // the default pool and ours
  metricsServer(client.register).listen(Number(process.argv[2]) || 9464, '127.0.0.1');
  // Some work to see in the metrics.
  setInterval(() => login.hash('demo password').catch(() => {}), 200).unref();
}

module.exports = { metricsServer };
