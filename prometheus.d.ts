// Types of the `kdfpool/prometheus` entry (lib/prometheus.js). prom-client
// is an optional peer dependency: these types name only what they use of
// it, so a project without prom-client's types still compiles.

/** What registerKdfMetrics() needs of a prom-client Registry. */
export interface KdfMetricsRegistry {
  registerMetric(metric: any): void;
  removeSingleMetric(name: string): void;
}

/** A pool to export gauges for: the kdfpool module (its default pool) or a pool from createPool(). */
export interface KdfMetricsPool {
  stats(): { name: string; threads: number; running: number; busyThreads?: number; queued: number; maxQueue: number; memoryInUse: number; maxMemory: number };
}

export interface KdfMetricsOptions {
  /** prom-client itself, when it cannot be resolved from kdfpool's location (bundles, workspaces). */
  client?: unknown;
  /** Histogram buckets in seconds (default: DEFAULT_BUCKETS, 0.1 ms to 10 s). */
  buckets?: number[];
}

export interface KdfMetrics {
  /** Exports the gauges of one more pool. */
  add(pool: KdfMetricsPool): void;
  /** Stops exporting a pool's gauges (its counters and histograms stay). */
  remove(pool: KdfMetricsPool): void;
  /** Stops counting jobs and removes every kdfpool metric from the registry. */
  stop(): void;
}

/**
 * Registers kdfpool's metrics on `register` and starts counting jobs:
 * histograms kdfpool_wait_seconds and kdfpool_run_seconds (per job, labels
 * pool and algorithm), counters kdfpool_jobs_total (outcome: completed,
 * failed, aborted, refused) and kdfpool_refusals_total (reason), gauges of
 * the given pools' threads, busy threads, running and queued jobs, queue capacity and
 * memory. `pools` defaults to the default pool. Throws a KdfError with code
 * ERR_KDF_MISSING_PEER when prom-client is not installed and not given.
 */
export function registerKdfMetrics(
  register: KdfMetricsRegistry,
  pools?: Iterable<KdfMetricsPool>,
  options?: KdfMetricsOptions,
): KdfMetrics;

/** The default histogram buckets, in seconds. */
export const DEFAULT_BUCKETS: readonly number[];
