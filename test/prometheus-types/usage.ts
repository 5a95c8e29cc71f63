// Compiled by test/prometheus.test.js (tsc --noEmit): the kdfpool/prometheus
// entry as a TypeScript user meets it, resolved through package.json's
// "exports" (node16), with prom-client's own Registry.
import { Registry } from 'prom-client';
import { registerKdfMetrics, DEFAULT_BUCKETS, type KdfMetrics } from 'kdfpool/prometheus';

const register = new Registry();
const pool = {
  stats: () => ({ name: 'p', threads: 1, running: 0, queued: 0, maxQueue: 4, memoryInUse: 0, maxMemory: 1 }),
};
const metrics: KdfMetrics = registerKdfMetrics(register, [pool], { buckets: [...DEFAULT_BUCKETS, 30] });
metrics.add(pool);
metrics.remove(pool);
metrics.stop();
registerKdfMetrics(register).stop();

// @ts-expect-error a registry is required
registerKdfMetrics();
// @ts-expect-error buckets are numbers
registerKdfMetrics(register, [], { buckets: ['1'] });
// @ts-expect-error a pool has stats()
registerKdfMetrics(register, [{}]);
// @ts-expect-error DEFAULT_BUCKETS is read only
DEFAULT_BUCKETS.push(1);
