'use strict';

// A flood from beside the balancer, in a process of its own (so that its
// requests do not share the measuring process's event loop):
// `node test/fleet/flood.js <port> <inFlight>` keeps `inFlight` logins in
// flight against 127.0.0.1:<port> until SIGTERM. A login that completes
// is sent again at once, which refills the place it freed in the
// replica's queue; a refused one is sent again after 5 ms (no spinning on
// 503s, which would only burn the CPU the replicas share here).

const { setTimeout: sleep } = require('node:timers/promises');
const { login } = require('./harness');

const port = Number(process.argv[2]);
const inFlight = Number(process.argv[3]);
let running = true;

async function worker() {
  while (running) {
    const r = await login(port);
    if (r.status !== 200) await sleep(5);
  }
}

process.once('SIGTERM', () => {
  running = false;
  setTimeout(() => process.exit(0), 100).unref();
});
process.stdout.write('flooding\n');
Promise.all(Array.from({ length: inFlight }, worker)).then(() => process.exit(0));
