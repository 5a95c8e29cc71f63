// Type definitions for kdfpool's CommonJS entry (lib/index.js). The ES
// module entry's (index.d.mts) re-exports these, so both share one set of
// declarations. Both entries have a real default export: the module object
// itself (lib/index.js sets module.exports.default to it).
/// <reference types="node" />

/** What node:crypto accepts for passwords, salts and the like. */
export type BinaryLike =
  | string
  | ArrayBuffer
  | SharedArrayBuffer
  | NodeJS.ArrayBufferView;

/** Per-call options, accepted by every KDF call that returns a promise. */
export interface CallOptions {
  /** Aborting removes a queued job at once; a running job's result is dropped. */
  signal?: AbortSignal;
  /** Refuse (retryably) work that would wait longer than this in the queue. 0 = no limit. */
  maxWaitMs?: number;
  /**
   * The client this call is made for (an IP, an account, a tenant; 1 to 1024
   * characters). Clients share the threads by cost (start-time fair
   * queueing); when the queue is full, the call served last gives way to
   * one placed more than one job before it (equals never displace each
   * other), and a refused call that comes back at its hint gets the place
   * it had. Hashed in this process (one key per client across worker
   * threads): never stored, shown in stats or put in errors. Calls without
   * one share a single key (FIFO among themselves).
   */
  fairKey?: string;
}

export type KdfCallback = (err: Error | null, derivedKey: Buffer) => void;

export interface ScryptOptions extends CallOptions {
  N?: number;
  cost?: number;
  r?: number;
  blockSize?: number;
  p?: number;
  parallelization?: number;
  /** Bytes; default 32 MiB, as in node:crypto. */
  maxmem?: number;
}

export type Argon2Algorithm = 'argon2d' | 'argon2i' | 'argon2id';

export interface Argon2Parameters extends CallOptions {
  message: BinaryLike;
  /** At least 8 bytes. */
  nonce: BinaryLike;
  parallelism: number;
  /** Output bytes, at least 4. */
  tagLength: number;
  /** KiB, at least 8 * parallelism. */
  memory: number;
  passes: number;
  secret?: BinaryLike;
  associatedData?: BinaryLike;
}

export type HashAlgorithm =
  | 'argon2id'
  | 'argon2i'
  | 'argon2d'
  | 'scrypt'
  | 'pbkdf2-sha256'
  | 'pbkdf2-sha512'
  | 'bcrypt';

/**
 * Limits applied to parameters read from a stored hash, before any work
 * (over a limit: HashLimitError); hash() refuses parameters verify() would
 * refuse. Defaults, and the cost model: docs/security.md (limits, cost model).
 */
export interface HashLimits {
  /**
   * Estimated work of one verify, from every parameter (hash and password
   * lengths included), in units of 1 ms of the pool's own prediction on
   * the CPU variant that runs. Default 600.
   */
  work?: number;
  /**
   * Bytes the job really allocates (Argon2 m'*1024, scrypt 128*r*(N+p+2));
   * also never more than the pool's maxMemory. Default 269484032 (257 MiB).
   */
  memory?: number;
  /** KiB; also never more than the pool's maxMemory. */
  argon2Memory?: number;
  argon2Passes?: number;
  argon2Lanes?: number;
  /** Bytes (128 * N * r); also never more than the pool's maxMemory. */
  scryptMemory?: number;
  scryptParallelism?: number;
  pbkdf2Iterations?: number;
  bcryptCost?: number;
  saltLength?: number;
  hashLength?: number;
  dataLength?: number;
  /** Bytes (UTF-8 for a string) of a password to hash/verify/needsRehash. Default 4096. */
  passwordLength?: number;
}

/**
 * Keys every hash() / verify() / needsRehash() options object may carry.
 * One object may serve all three: each uses what concerns it. Any other key
 * is an error (ERR_INVALID_ARG_VALUE).
 */
export interface CommonHashOptions extends CallOptions {
  /** hash() refuses (HashLimitError) what verify() with these limits, on the same pool, would refuse. */
  limits?: HashLimits;
  /**
   * needsRehash(): true when any parameter differs from the target, up or
   * down, even where the target costs less than the string: the explicit
   * downgrade (default false: only a weaker hash, another algorithm or an
   * old version needs a rehash, and never to a target that costs less than
   * the string). rehashTarget() returns such options unchanged. Ignored by
   * hash() and verify().
   */
  exact?: boolean;
  /**
   * Unicode normalisation of a string password before hash() and verify()
   * read it (String.prototype.normalize's form); bytes are taken as given.
   * Not recorded in the stored string: pass it on every call. better-auth's
   * stored hashes are always verified NFKC, as better-auth wrote them.
   */
  normalize?: 'NFC' | 'NFD' | 'NFKC' | 'NFKD';
}

/**
 * Named Argon2 peppers, for rotation (README: Pepper rotation). hash() uses
 * `keys[current]` and writes `keyid=<B64 of the id>` into the string;
 * verify() uses the key the string names (an id not in `keys` is a KdfError
 * ERR_KDF_UNKNOWN_KEY_ID); needsRehash() is true for a string under any
 * other key, or under none.
 */
export interface SecretKeys {
  /** The id of the key hash() uses now; one of `keys`. */
  current: string;
  /** id -> key. Ids: 1 to 8 characters of A-Z a-z 0-9 . _ - (the PHC format's 8-byte keyid). */
  keys: { readonly [id: string]: BinaryLike };
  /**
   * The id of the key that strings without keyid= were hashed with (the
   * single `secret` used before named keys); unset: such strings are
   * verified without a secret.
   */
  unnamed?: string;
}

/** Argon2 parameters (RFC 9106). */
export interface Argon2HashOptions extends CommonHashOptions {
  /** Default 'argon2id'. */
  algorithm?: 'argon2id' | 'argon2i' | 'argon2d';
  /** KiB (default 19456 = 19 MiB); not bytes. */
  memory?: number;
  /** Default 2. */
  passes?: number;
  /** Default 1. */
  parallelism?: number;
  /** Output bytes, 4..1024 (default 32). */
  tagLength?: number;
  /** Salt bytes, 8..1024 (default 16). */
  saltLength?: number;
  /**
   * RFC 9106's secret K (a pepper), as npm argon2's and @node-rs/argon2's
   * `secret`, or named keys that rotate (SecretKeys). Overrides the pool's
   * (createPool / configure `secret`). Not stored in the string (named
   * keys: only the id). A Buffer you pass stays yours (not wiped); a
   * string's UTF-8 copy is wiped once the job is submitted.
   */
  secret?: BinaryLike | SecretKeys;
  /** RFC 9106's associated data X, written as the string's `data=` field (as npm argon2 does). */
  associatedData?: BinaryLike;
}

export interface ScryptHashOptions extends CommonHashOptions {
  algorithm: 'scrypt';
  /** log2(N) (default 17); or N, not both. */
  ln?: number;
  /** A power of 2. */
  N?: number;
  /** Default 8. */
  r?: number;
  /** Default 1. */
  p?: number;
  /** Output bytes, 10..1024 (default 32). */
  tagLength?: number;
  /** Salt bytes, 8..1024 (default 16). */
  saltLength?: number;
}

export interface Pbkdf2HashOptions extends CommonHashOptions {
  algorithm: 'pbkdf2-sha256' | 'pbkdf2-sha512';
  /** Default 600000 (SHA-256) or 210000 (SHA-512). */
  iterations?: number;
  /** Salt bytes, 8..1024 (default 16). */
  saltLength?: number;
}

export interface BcryptHashOptions extends CommonHashOptions {
  algorithm: 'bcrypt';
  /** 4..31, default 10. */
  cost?: number;
  /**
   * bcrypt reads at most 72 bytes of a password. Default false: hash()
   * refuses a longer one (KdfError ERR_KDF_PASSWORD_TOO_LONG, limit
   * 'bcryptPasswordLength'); true: the bytes past the 72nd are ignored, as
   * by other bcrypts. verify() of stored strings always cuts at 72, as npm bcrypt.
   */
  truncate?: boolean;
}

/** hash() options: a union discriminated by `algorithm`; each algorithm accepts only its own parameters. */
export type HashOptions = Argon2HashOptions | ScryptHashOptions | Pbkdf2HashOptions | BcryptHashOptions;

/**
 * verify() options: the same keys as hash()'s (one object may serve both).
 * `secret` is used for Argon2 strings only; the string's own `data=` is
 * used (associatedData matters to needsRehash, not to verify).
 */
export type VerifyOptions = HashOptions;

/**
 * CPU priority of a pool's threads (Linux; Windows maps them to thread
 * priorities), always relative to the process's own and never above it:
 * - 'normal': the process's own priority, like the JS thread.
 * - 'low': SCHED_BATCH + nice 19, takes what the process leaves.
 * - 'idle': SCHED_IDLE; can starve while anything else wants the CPU.
 * - 'mixed': with C = the CPUs this process may use, threads 0..C-2 at
 *   'normal' and the others at 'low', so the JS thread keeps a core.
 * - 'auto' (default): per worker, 'low' while it gets the CPU, 'normal'
 *   while other processes starve it (Linux; elsewhere 'low').
 */
export type Priority = 'normal' | 'low' | 'idle' | 'mixed' | 'auto';

export interface PoolOptions {
  /** Worker threads; default: the CPUs this process may use (affinity and cgroup quota). */
  threads?: number;
  /** Jobs allowed to wait (running ones do not count); default 64 per thread.
   *  0: none wait — `threads` jobs run and every further call is refused at once. */
  maxQueue?: number;
  /** Bytes of KDF working memory running jobs may reserve together. */
  maxMemory?: number;
  /** Default deadline for calls on this pool (ms; 0 = none). The default pool's is 2000, createPool()'s none. */
  maxWaitMs?: number;
  /** CPU priority of the pool's threads. */
  priority?: Priority;
  /** Limits for verify() of stored hashes on this pool. */
  hashLimits?: HashLimits;
  /**
   * Default Argon2 secret (pepper) for hash() and verify() on this pool (not
   * for argon2()), one key or named keys that rotate (SecretKeys); a call's
   * `secret` overrides it; null (configure) removes it. The pool keeps its
   * own copies, wiped when replaced or on close().
   */
  secret?: BinaryLike | SecretKeys | null;
  /**
   * One budget of running jobs per host: every pool, in any process on the
   * host, configured with the same `key` shares `slots` running jobs (lock
   * files the kernel frees when a process dies). Off by default; null
   * (configure) removes it.
   */
  hostSlots?: HostSlotsOptions | null;
  /**
   * Names the client of a call that names none (a call's own `fairKey`
   * wins): called once per call, it returns the key (a string of 1 to 1024
   * characters) or undefined (no key). `currentFairKey` reads the key that
   * fairKeyMiddleware() or runWithFairKey() recorded for the request. A
   * throw or any other result fails the call with KdfError
   * ERR_KDF_FAIR_KEY (its `cause`: what went wrong). On the default pool
   * (configure), for calls from this thread; null removes it.
   */
  fairKey?: (() => string | undefined) | null;
  /**
   * Refusals (PoolSaturatedError) carry the IETF `RateLimit` and
   * `RateLimit-Policy` fields in `headers` beside Retry-After
   * (draft-ietf-httpapi-ratelimit-headers): the policy named after the
   * pool, `q` = threads + maxQueue in "concurrent-requests", `r=0`, `t` =
   * the Retry-After seconds. Default false. On the default pool
   * (configure), for calls from this thread.
   */
  rateLimitHeaders?: boolean;
}

export interface HostSlotsOptions {
  /** 1-256 bytes of UTF-8, no NUL; only its hash names the lock directory. */
  key: string;
  /** Jobs that may run at once on the host, 1-1024. Every member should use the same number. */
  slots: number;
}

export interface HostSlotsStats {
  key: string;
  slots: number;
  /** Slots this pool holds right now (one per running job). */
  held: number;
  /** Live pools on the host using the key, this one included (recounted at most every 250 ms). */
  members: number;
  /** Total time this pool's workers waited for a free slot, ms. */
  waitMs: number;
}

export interface CreatePoolOptions extends PoolOptions {
  /** 1-7 characters of [A-Za-z0-9_.]; threads are named kdf-<name>-<n>. */
  name?: string;
}

export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

export interface PoolStats {
  name: string;
  threads: number;
  /** Jobs running now; each job of a batch counts (PBKDF2, scrypt and bcrypt batch), so it may exceed `threads`. */
  running: number;
  /** Threads running a job or a batch now (at most `threads`). */
  busyThreads: number;
  queued: number;
  maxQueue: number;
  /** Accepted jobs; each ends as exactly one of completed, failed, cancelled, shed, displaced. */
  submitted: number;
  completed: number;
  failed: number;
  /** Calls refused at submit (queue full, deadline out of reach, over the budget, closed): never submitted. */
  rejected: number;
  /** Calls answered with a retryable refusal (PoolSaturatedError): full or deadline at submit, plus shed and displaced. */
  refused: number;
  /** Queued jobs that gave their place in a full queue to a call placed more than one job before them in the service order (a client served less): never ran. */
  displaced: number;
  /** fairKeys with queued jobs (a count: keys themselves are never kept). */
  keys: number;
  /** fairKeys with no queued job that the pool still remembers (at most 16,384): those still ahead of the others, by the work they were served or a charge for refusals; an idle pool forgets them. */
  remembered: number;
  /** Accepted jobs that left the queue without running (abort, close, worker exit, budget lowered). */
  cancelled: number;
  /** Accepted jobs whose deadline (maxWaitMs) passed while they were queued: never ran. */
  shed: number;
  /** Jobs that ran interleaved in a batch headed by an earlier job (PBKDF2 of one digest, scrypt of one N, r, p, bcrypt of one cost); also counted in completed or failed. */
  batched: number;
  /** Calls whose AbortSignal fired (counted in this thread). */
  aborted: number;
  memoryInUse: number;
  maxMemory: number;
  maxWaitMs: number;
  priority: Priority;
  avgRunMs: number;
  estimatedWaitMs: number;
  /** Over the last 1024 jobs. */
  waitMs: Percentiles;
  runMs: Percentiles;
  /** Scratch memory: times mapped; bytes mapped now (idle workers' arenas included, at most maxMemory). */
  arena: { maps: number; bytes: number };
  /** null unless the pool uses hostSlots. */
  hostSlots: HostSlotsStats | null;
}

export interface Pool {
  readonly name: string;

  pbkdf2(password: BinaryLike, salt: BinaryLike, iterations: number, keylen: number, digest: string, options?: CallOptions): Promise<Buffer>;
  pbkdf2(password: BinaryLike, salt: BinaryLike, iterations: number, keylen: number, digest: string, callback: KdfCallback): void;
  pbkdf2(password: BinaryLike, salt: BinaryLike, iterations: number, keylen: number, digest: string, options: CallOptions, callback: KdfCallback): void;
  pbkdf2Sync(password: BinaryLike, salt: BinaryLike, iterations: number, keylen: number, digest: string): Buffer;

  scrypt(password: BinaryLike, salt: BinaryLike, keylen: number, options?: ScryptOptions): Promise<Buffer>;
  scrypt(password: BinaryLike, salt: BinaryLike, keylen: number, callback: KdfCallback): void;
  scrypt(password: BinaryLike, salt: BinaryLike, keylen: number, options: ScryptOptions, callback: KdfCallback): void;
  scryptSync(password: BinaryLike, salt: BinaryLike, keylen: number, options?: ScryptOptions): Buffer;

  argon2(algorithm: Argon2Algorithm, parameters: Argon2Parameters, options?: CallOptions): Promise<Buffer>;
  argon2(algorithm: Argon2Algorithm, parameters: Argon2Parameters, callback: KdfCallback): void;
  argon2(algorithm: Argon2Algorithm, parameters: Argon2Parameters, options: CallOptions, callback: KdfCallback): void;
  argon2Sync(algorithm: Argon2Algorithm, parameters: Argon2Parameters): Buffer;

  hash(password: BinaryLike, options?: HashOptions): Promise<string>;
  /** hash() on the calling thread (blocks it): the same strings, limits and errors (thrown). */
  hashSync(password: BinaryLike, options?: HashOptions): string;
  verify(phc: string, password: BinaryLike, options?: VerifyOptions): Promise<boolean>;
  /** verify() on the calling thread (blocks it). */
  verifySync(phc: string, password: BinaryLike, options?: VerifyOptions): boolean;
  /**
   * For a user who does not exist: the work of a real failed verify() of
   * what hash(password, options) on this pool writes now (its algorithm,
   * parameters and current pepper; same queue, deadline and limits), then
   * false. No dummy hash is made first.
   */
  verifyUnknown(password: BinaryLike, options?: VerifyOptions): Promise<false>;
  /** verifyUnknown() on the calling thread (blocks it). */
  verifyUnknownSync(password: BinaryLike, options?: VerifyOptions): false;
  /** needsRehash() with this pool's secret (its current key) and hashLimits. */
  needsRehash(phc: string, options?: HashOptions, password?: BinaryLike): boolean;
  /** rehashTarget() within this pool's hashLimits and memory budget. */
  rehashTarget(phc: string, options?: HashOptions): HashOptions;

  stats(): PoolStats;
  /**
   * The hash() options that take about `targetMs` per hash on this pool's
   * threads with `concurrency` hashes at once (at most its threads, the
   * default), within `maxMemory` (at most its budget, the default).
   * Measures through real jobs; run it before the pool serves traffic.
   */
  tune(options: TuneOptions): Promise<TuneResult>;
  /** Queued jobs reject with PoolClosedError; resolves when the threads are gone. */
  close(): Promise<void>;
}

/** What tune() measures for. */
export interface TuneOptions {
  /** Default 'argon2id'. */
  algorithm?: HashAlgorithm;
  /** Milliseconds one hash may take, 1 to 10000. */
  targetMs: number;
  /** Hashes that run at once. kdf.tune(): 1 to 1024, default the CPUs this process may use. */
  concurrency?: number;
  /** Bytes all of them may reserve together. kdf.tune(): default a pool's default budget. */
  maxMemory?: number;
}

/** What tune() found (README: Choosing parameters). */
export interface TuneResult {
  algorithm: HashAlgorithm;
  /** Pass to hash() (and needsRehash()): `algorithm` and its parameters. */
  options: HashOptions & { algorithm: HashAlgorithm };
  targetMs: number;
  /** Median time of one hash with `concurrency` hashes at once, ms. */
  measuredMs: number;
  /** measuredMs / targetMs. */
  ratio: number;
  concurrency: number;
  /** Login capacity: hashes per second with `concurrency` at once. */
  hashesPerSecond: number;
  /** OWASP's minimum takes longer than targetMs: `options` are that minimum. */
  minimumsBind: boolean;
  /** Bytes one hash reserves from the pool's budget (0: PBKDF2, bcrypt). */
  memoryPerHash: number;
  maxMemory: number;
  /** concurrency × memoryPerHash ≤ maxMemory (false only when the minimums need more). */
  fitsBudget: boolean;
  /** The hashLimits a pool needs beyond the defaults to accept these options; {} when none. */
  hashLimits: HashLimits;
  measured: {
    /** The CPU variant that ran the hashes (e.g. 'avx512', 'shani-avx512', 'portable'). */
    variant: string;
    threads: number;
    priority: Priority;
    /** Hashes timed for the chosen options. */
    samples: number;
    /** Parameter sets tried. */
    candidates: number;
    /** The 1-minute load average when it finished (a busy machine measures slow). */
    loadAverage: number;
  };
}

export const pbkdf2: Pool['pbkdf2'];
export const pbkdf2Sync: Pool['pbkdf2Sync'];
export const scrypt: Pool['scrypt'];
export const scryptSync: Pool['scryptSync'];
export const argon2: Pool['argon2'];
export const argon2Sync: Pool['argon2Sync'];
export const hash: Pool['hash'];
export const hashSync: Pool['hashSync'];
export const verify: Pool['verify'];
export const verifySync: Pool['verifySync'];
export const verifyUnknown: Pool['verifyUnknown'];
export const verifyUnknownSync: Pool['verifyUnknownSync'];
/**
 * Whether a stored hash should be replaced by hash(password, options):
 * another algorithm or format, an old version, weaker than the target in
 * any cost, hash length or salt length (with `exact: true`: any
 * difference), or an Argon2 string under another key than the current one
 * of the secret (the call's, else the default pool's). Never when hashing
 * at the target would cost less than the string does, by the pool's cost
 * model, unless `exact: true`: pass rehashTarget(phc, options) to move
 * such a string without lowering its cost.
 */
export function needsRehash(phc: string, options?: HashOptions, password?: BinaryLike): boolean;

/**
 * The options to rehash a stored hash with: `options` (the target; default
 * hash()'s defaults) with its cost raised until hashing at it costs at
 * least what `phc` does by the pool's cost model (within the limits): the
 * larger of each cost parameter of the same family, at least the memory of
 * a memory-hard string, then more passes, p, iterations or cost. Other
 * keys are kept; with `exact: true`, `options` as given.
 */
export function rehashTarget(phc: string, options?: HashOptions): HashOptions;

/** What requiredLimits() reports for a sample of stored hashes. */
export interface RequiredLimits {
  /** Only the limits whose defaults are too small; {} when the defaults accept every sample. */
  hashLimits: HashLimits;
  /** The most one sample reserves from a pool's budget (maxMemory), in bytes. */
  memoryNeeded: number;
}
/** The hashLimits a sample of stored hashes needs, before switching to kdfpool (docs/migrating.md). */
export function requiredLimits(storedHashes: Iterable<string>): RequiredLimits;

/** The parts of node's http.IncomingMessage / ServerResponse that requestSignal() uses. */
export interface RequestLike {
  once(event: string, listener: (...args: any[]) => void): unknown;
  off(event: string, listener: (...args: any[]) => void): unknown;
  socket?: { destroyed?: boolean } | null;
}

/**
 * An AbortSignal that fires when the client goes away before `res` has
 * finished (the response's 'close' before it finished). `req`: node's
 * request, Express's `req`, Fastify's `request.raw`; `res`: its response
 * (Fastify: `reply.raw`), found from `req` when omitted (Express's `req.res`).
 */
export function requestSignal(req: RequestLike, res?: RequestLike): AbortSignal;

/** What rateLimitHeaders() and a readiness probe read of a pool: a Pool, or the kdfpool module. */
export interface PoolLike {
  stats(): PoolStats;
}

/** The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers), lower-case names as node's headers. */
export interface RateLimitHeaders {
  /** `"<pool name>";q=<threads + maxQueue>;qu="concurrent-requests"`. */
  readonly 'ratelimit-policy': string;
  /** `"<pool name>";r=<places left now>` (a refusal: `r=0;t=<Retry-After seconds>`). */
  readonly ratelimit: string;
}

/**
 * The RateLimit fields for a response that is not a refusal (a 200, a
 * 401): the places the pool holds at once and those left now, from
 * stats(). Refusals carry theirs in `err.headers` when the pool's
 * `rateLimitHeaders` option is on.
 */
export function rateLimitHeaders(pool: PoolLike): RateLimitHeaders;

/** readiness()'s options, integers in ms. */
export interface ReadinessOptions {
  /** Not ready once the pool has been saturated this long without a break. Default 10000. */
  saturatedForMs?: number;
  /** Ready again once it has been calm this long without a break. Default 20000. */
  recoverForMs?: number;
  /** Also saturated while a call submitted now would wait longer than this (stats().estimatedWaitMs). Default 0: refusals only. */
  queueWaitMs?: number;
  /** How often the pool is sampled, at least 10. Default 250. */
  intervalMs?: number;
}

/** A readiness probe's state. */
export interface ReadinessStatus {
  ready: boolean;
  /** Whether the last sample found the pool saturated. */
  saturated: boolean;
  /** Why the pool is (or was, while not ready) saturated: it refused calls for being full, or its queue wait passed queueWaitMs; 'closed' once the probe or its pool is closed. */
  reason: null | 'refusing' | 'queue_wait' | 'closed';
  /** When `ready` last changed (Date.now() ms), or when the probe started. */
  sinceMs: number;
}

export interface ReadinessProbe {
  /** Whether the replica should receive traffic now. */
  readonly ready: boolean;
  status(): ReadinessStatus;
  /** For node:http and Express: 200 when ready, else 503, with status() as JSON. */
  handler(req: unknown, res: { writeHead(status: number, headers: Record<string, string | number>): unknown; end(body: string): unknown }): void;
  /** Stops sampling; the probe then answers not ready. */
  close(): void;
}

/**
 * A readiness probe answered from the pool's state, apart from liveness:
 * not ready once the pool has refused calls for being full (or, with
 * queueWaitMs, predicted a longer wait) for `saturatedForMs` without a
 * break; ready again after `recoverForMs` calm (hysteresis). Samples
 * stats() on an unref'd timer. docs/deploy.md has the probe settings.
 */
export function readiness(pool: PoolLike, options?: ReadinessOptions): ReadinessProbe;

/**
 * The fairKey recorded for the code running now (by fairKeyMiddleware() or
 * runWithFairKey()), or undefined: a pool's `fairKey` option.
 */
export function currentFairKey(): string | undefined;

/** Runs fn(...args) with `key` (undefined: none) as the current fairKey; returns what fn returns. */
export function runWithFairKey<A extends unknown[], R>(key: string | undefined, fn: (...args: A) => R, ...args: A): R;

/**
 * A middleware that runs the rest of the request with keyOf(req) as its
 * fairKey: Express and NestJS (`app.use`), Fastify (an 'onRequest' hook),
 * node:http (`middleware(req, res, () => handle(req, res))`). keyOf must
 * return the client's trusted address (Express `req.ip` with `trust proxy`,
 * Fastify `request.ip` with `trustProxy`) or undefined; its throw, or a
 * key that is not a string, goes to next(err).
 */
export function fairKeyMiddleware<Req = any>(
  keyOf: (req: Req) => string | undefined,
): (req: Req, res: unknown, next: (err?: unknown) => void) => void;

/** Reconfigures the process-wide default pool; no job is lost. */
export function configure(options: PoolOptions): void;
/** Stats of the default pool. */
export function stats(): PoolStats;
/** A separate pool with its own threads, queue, budget and stats. */
export function createPool(options?: CreatePoolOptions): Pool;
/**
 * Pool#tune() on a pool made for the measurement (priority 'normal',
 * `concurrency` threads), closed after it: the default pool is left alone.
 */
export function tune(options: TuneOptions): Promise<TuneResult>;

/**
 * What an HTTP framework's default error handler reads, shaped as
 * `http-errors` shapes its own (Express's finalhandler and Fastify's
 * default handler use `status`/`statusCode` and `headers`): only the errors
 * about the request carry it; the others get a 500.
 */
export interface HttpErrorFields<Status extends number> {
  readonly status: Status;
  readonly statusCode: Status;
  /** As http-errors: true for a 4xx (the message is for the client), false for a 5xx. */
  readonly expose: boolean;
}

/**
 * The queue is full, the wait would pass the deadline, or a call placed
 * more than one job before this one in the service order took its place:
 * retry later. HTTP 503 when the pool is full (`scope: 'pool'`: a load
 * balancer may retry another replica), 429 when this client is over its
 * share (`scope: 'client'`), with Retry-After. Its `stack` is one line (no frames are captured), which
 * is also what util.inspect and console.error print.
 */
export class PoolSaturatedError extends Error implements HttpErrorFields<429 | 503> {
  readonly name: 'PoolSaturatedError';
  readonly code: 'ERR_KDF_POOL_SATURATED';
  readonly retryable: true;
  /** When to retry: when the place the pool promises this call would start, from what the running jobs have left and the jobs served before that place (each priced from its own parameters and this pool's learned run times), plus a quarter; a retry back then takes that place. Refusals that come together are told successive times. */
  readonly retryAfterMs: number;
  readonly reason: 'queue_full' | 'deadline' | 'displaced';
  /** The pool that refused: its name (stats().name; 'default' for the default pool). */
  readonly pool?: string;
  /** Whose demand was refused: 'pool' (the pool is full) or 'client' (this call's fairKey asked more than its share: displaced, or refused for its own demand). */
  readonly scope: 'pool' | 'client';
  /** 503 for scope 'pool', 429 for scope 'client'. */
  readonly status: 429 | 503;
  readonly statusCode: 429 | 503;
  /** true: the message (when to come back) is for the client, at 503 too. */
  readonly expose: true;
  /** For the response: retryAfterMs in whole seconds, rounded up (at least 1), or up to 2 s more where the pool already told as many clients as its queue has places to come back at that moment: clients refused together are not all told the same second. */
  readonly headers: { readonly 'retry-after': string; readonly 'ratelimit-policy'?: string; readonly ratelimit?: string };
}

/** The pool was closed. HTTP 503 (the message is not for the client). */
export class PoolClosedError extends Error implements HttpErrorFields<503> {
  readonly name: 'PoolClosedError';
  readonly code: 'ERR_KDF_POOL_CLOSED';
  readonly retryable: false;
  /** The closed pool: its name (stats().name), when known. */
  readonly pool?: string;
  readonly status: 503;
  readonly statusCode: 503;
  readonly expose: false;
}

/** The job needs more memory than the pool's whole budget (maxMemory): it can never run there. */
export class MemoryLimitError extends Error {
  readonly name: 'MemoryLimitError';
  readonly code: 'ERR_KDF_MEMORY_LIMIT';
  readonly retryable: false;
  /** Bytes the job would reserve. */
  readonly memoryNeeded: number;
  /** The pool's budget in bytes. */
  readonly maxMemory: number;
}

/** The codes a KdfError comes with (README, Errors). */
export type KdfErrorCode =
  | 'ERR_KDF_DIGEST_UNAVAILABLE'
  | 'ERR_KDF_HOST_SLOTS'
  | 'ERR_KDF_DEFAULT_POOL'
  | 'ERR_KDF_OUT_OF_MEMORY'
  | 'ERR_KDF_CANCELLED'
  | 'ERR_KDF_STOPPED'
  | 'ERR_KDF_INVALID_ARGUMENT'
  | 'ERR_KDF_PASSWORD_TOO_LONG'
  | 'ERR_KDF_UNKNOWN_KEY_ID'
  | 'ERR_KDF_MISSING_PEER'
  | 'ERR_KDF_FAIR_KEY';

/** A failure that is nobody's argument error: a digest this host lacks, hostSlots unusable, internal failures. */
export class KdfError extends Error {
  readonly name: 'KdfError';
  readonly code: KdfErrorCode;
  /** false where a retry cannot help (ERR_KDF_DIGEST_UNAVAILABLE, ERR_KDF_HOST_SLOTS). */
  readonly retryable?: false;
  /** ERR_KDF_DIGEST_UNAVAILABLE: the digest as given. */
  readonly digest?: string;
  /** ERR_KDF_UNKNOWN_KEY_ID: the key id the stored string names (ids are not secret). */
  readonly keyId?: string;
  /**
   * ERR_KDF_PASSWORD_TOO_LONG: the limit that refused it ('passwordLength', a
   * hash limit; 'bcryptPasswordLength': bcrypt's 72 bytes, see `truncate`),
   * the password's bytes and the most allowed.
   */
  readonly limit?: 'passwordLength' | 'bcryptPasswordLength';
  readonly value?: number;
  readonly max?: number;
  /** ERR_KDF_PASSWORD_TOO_LONG: the client's input, HTTP 400 (http-errors' fields). */
  readonly status?: 400;
  readonly statusCode?: 400;
  readonly expose?: true;
}

export class AbortError extends Error {
  readonly name: 'AbortError';
  readonly code: 'ABORT_ERR';
}

/** A stored hash string is malformed or uses an unsupported feature. */
export class InvalidHashError extends Error {
  readonly name: 'InvalidHashError';
  readonly code: 'ERR_KDF_INVALID_HASH';
  readonly retryable: false;
}

/** A stored hash asks for more work than the limits allow; refused before any work. */
export class HashLimitError extends Error {
  readonly name: 'HashLimitError';
  readonly code: 'ERR_KDF_HASH_LIMIT';
  readonly retryable: false;
  readonly limit: keyof HashLimits | 'maxMemory' | 'storedLength';
  readonly value: number;
  readonly max: number;
  /** Set when limit is 'maxMemory' (the pool's budget): bytes the job needs, as on MemoryLimitError. */
  readonly memoryNeeded?: number;
  /** Set when limit is 'maxMemory': the pool's budget in bytes. */
  readonly maxMemory?: number;
}

/**
 * Every error class of kdfpool's own: narrow one by its `code`
 * (`switch (err.code)`) once you know it is one of them.
 */
export type KdfpoolError =
  | PoolSaturatedError
  | PoolClosedError
  | MemoryLimitError
  | KdfError
  | AbortError
  | InvalidHashError
  | HashLimitError;

/** The module object: the default export of both entries. */
declare const kdfpool: {
  pbkdf2: typeof pbkdf2;
  pbkdf2Sync: typeof pbkdf2Sync;
  scrypt: typeof scrypt;
  scryptSync: typeof scryptSync;
  argon2: typeof argon2;
  argon2Sync: typeof argon2Sync;
  hash: typeof hash;
  hashSync: typeof hashSync;
  verify: typeof verify;
  verifySync: typeof verifySync;
  verifyUnknown: typeof verifyUnknown;
  verifyUnknownSync: typeof verifyUnknownSync;
  needsRehash: typeof needsRehash;
  rehashTarget: typeof rehashTarget;
  requiredLimits: typeof requiredLimits;
  requestSignal: typeof requestSignal;
  rateLimitHeaders: typeof rateLimitHeaders;
  readiness: typeof readiness;
  currentFairKey: typeof currentFairKey;
  runWithFairKey: typeof runWithFairKey;
  fairKeyMiddleware: typeof fairKeyMiddleware;
  configure: typeof configure;
  stats: typeof stats;
  createPool: typeof createPool;
  tune: typeof tune;
  PoolSaturatedError: typeof PoolSaturatedError;
  PoolClosedError: typeof PoolClosedError;
  MemoryLimitError: typeof MemoryLimitError;
  KdfError: typeof KdfError;
  AbortError: typeof AbortError;
  InvalidHashError: typeof InvalidHashError;
  HashLimitError: typeof HashLimitError;
};
export default kdfpool;
