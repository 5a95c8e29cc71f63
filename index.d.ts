// Type definitions for kdfpool.
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
 * refuse. Defaults and the cost model in the README ("Reliability and security").
 */
export interface HashLimits {
  /**
   * Estimated work of one verify, from every parameter (hash length
   * included), in units of ~1 ms of a reference x86-64 core. Default 600.
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
}

/** hash() options; each algorithm accepts only its own parameters. */
export interface HashOptions extends CallOptions {
  /** Default 'argon2id'. */
  algorithm?: HashAlgorithm;
  /** Argon2: KiB (default 19456). */
  memory?: number;
  /** Argon2: default 2. */
  passes?: number;
  /** Argon2: default 1. */
  parallelism?: number;
  /** Argon2 and scrypt: output bytes (default 32). */
  tagLength?: number;
  /** Salt bytes (default 16). */
  saltLength?: number;
  /** scrypt: log2(N) (default 17); or N, not both. */
  ln?: number;
  N?: number;
  r?: number;
  p?: number;
  /** PBKDF2: default 600000 (SHA-256) or 210000 (SHA-512). */
  iterations?: number;
  /** bcrypt: default 10. */
  cost?: number;
  /** hash() refuses (HashLimitError) what verify() with these limits, on the same pool, would refuse. */
  limits?: HashLimits;
}

export interface VerifyOptions extends CallOptions {
  limits?: HashLimits;
}

export type Priority = 'normal' | 'low' | 'idle';

export interface PoolOptions {
  /** Worker threads; default: the CPUs this process may use (affinity and cgroup quota). */
  threads?: number;
  /** Jobs allowed to wait (running ones do not count); default 64 per thread. */
  maxQueue?: number;
  /** Bytes of KDF working memory running jobs may reserve together. */
  maxMemory?: number;
  /** Default deadline for calls on this pool (ms; 0 = none). */
  maxWaitMs?: number;
  /** CPU priority of the pool's threads. */
  priority?: Priority;
  /** Limits for verify() of stored hashes on this pool. */
  hashLimits?: HashLimits;
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
  running: number;
  queued: number;
  maxQueue: number;
  submitted: number;
  completed: number;
  failed: number;
  rejected: number;
  cancelled: number;
  /** Refused or dropped because of a deadline (maxWaitMs). */
  shed: number;
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
  arena: { maps: number; bytes: number };
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
  verify(phc: string, password: BinaryLike, options?: VerifyOptions): Promise<boolean>;

  stats(): PoolStats;
  /** Queued jobs reject with PoolClosedError; resolves when the threads are gone. */
  close(): Promise<void>;
}

export const pbkdf2: Pool['pbkdf2'];
export const pbkdf2Sync: Pool['pbkdf2Sync'];
export const scrypt: Pool['scrypt'];
export const scryptSync: Pool['scryptSync'];
export const argon2: Pool['argon2'];
export const argon2Sync: Pool['argon2Sync'];
export const hash: Pool['hash'];
export const verify: Pool['verify'];
export function needsRehash(phc: string, options?: HashOptions): boolean;

/** Reconfigures the process-wide default pool; no job is lost. */
export function configure(options: PoolOptions): void;
/** Stats of the default pool. */
export function stats(): PoolStats;
/** A separate pool with its own threads, queue, budget and stats. */
export function createPool(options?: CreatePoolOptions): Pool;

/** The queue is full, or the wait would pass the deadline: retry later. */
export class PoolSaturatedError extends Error {
  readonly name: 'PoolSaturatedError';
  readonly code: 'ERR_KDF_POOL_SATURATED';
  readonly retryable: true;
  /** Estimate from queue depth and observed run times. */
  readonly retryAfterMs: number;
  readonly reason: 'queue_full' | 'deadline';
}

export class PoolClosedError extends Error {
  readonly name: 'PoolClosedError';
  readonly code: 'ERR_KDF_POOL_CLOSED';
  readonly retryable: false;
}

export class MemoryLimitError extends Error {
  readonly name: 'MemoryLimitError';
  readonly code: 'ERR_KDF_MEMORY_LIMIT';
  readonly retryable: false;
  readonly memoryNeeded?: number;
  readonly maxMemory?: number;
}

export class KdfError extends Error {
  readonly code: string;
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
  readonly limit: keyof HashLimits | 'maxMemory';
  readonly value: number;
  readonly max: number;
}

declare const kdfpool: {
  pbkdf2: typeof pbkdf2;
  pbkdf2Sync: typeof pbkdf2Sync;
  scrypt: typeof scrypt;
  scryptSync: typeof scryptSync;
  argon2: typeof argon2;
  argon2Sync: typeof argon2Sync;
  hash: typeof hash;
  verify: typeof verify;
  needsRehash: typeof needsRehash;
  configure: typeof configure;
  stats: typeof stats;
  createPool: typeof createPool;
  PoolSaturatedError: typeof PoolSaturatedError;
  PoolClosedError: typeof PoolClosedError;
  MemoryLimitError: typeof MemoryLimitError;
  KdfError: typeof KdfError;
  AbortError: typeof AbortError;
  InvalidHashError: typeof InvalidHashError;
  HashLimitError: typeof HashLimitError;
};
export default kdfpool;
