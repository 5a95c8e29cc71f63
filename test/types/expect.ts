// Compiled with `tsc --noEmit` by test/types.test.js: the exact types of
// every public function, option and error, checked with expect-type (a
// mismatch is a compile error). Options are checked key by key, so a new
// option is not a failure here, but a changed or removed one is.
import kdf, {
  pbkdf2, pbkdf2Sync, scrypt, scryptSync, argon2, argon2Sync, hash, hashSync, verify, verifySync, needsRehash, rehashTarget,
  verifyUnknown, verifyUnknownSync, type SecretKeys,
  requestSignal, rateLimitHeaders, readiness, configure, stats, createPool, requiredLimits, currentFairKey, runWithFairKey, fairKeyMiddleware, tune,
  PoolSaturatedError, PoolClosedError, MemoryLimitError, KdfError, AbortError, InvalidHashError, HashLimitError,
  type BinaryLike, type CallOptions, type KdfCallback, type ScryptOptions, type Argon2Algorithm, type Argon2Parameters,
  type HashAlgorithm, type HashLimits, type HashOptions, type VerifyOptions, type Argon2HashOptions,
  type ScryptHashOptions, type Pbkdf2HashOptions, type BcryptHashOptions, type Priority, type PoolOptions,
  type CreatePoolOptions, type HostSlotsOptions, type HostSlotsStats, type PoolStats, type Percentiles, type Pool,
  type RequestLike, type RateLimitHeaders, type ReadinessOptions, type ReadinessProbe, type ReadinessStatus, type PoolLike,
  type KdfpoolError, type KdfErrorCode, type RequiredLimits, type TuneOptions, type TuneResult,
} from 'kdfpool';
import { expectTypeOf } from 'expect-type';
import type { IncomingMessage, ServerResponse } from 'node:http';

// ---------------------------------------------------------------- the default export is the module object

expectTypeOf(kdf.pbkdf2).toEqualTypeOf(pbkdf2);
expectTypeOf(kdf.hash).toEqualTypeOf(hash);
expectTypeOf(kdf.verify).toEqualTypeOf(verify);
expectTypeOf(kdf.needsRehash).toEqualTypeOf(needsRehash);
expectTypeOf(kdf.rehashTarget).toEqualTypeOf(rehashTarget);
expectTypeOf(kdf.verifyUnknown).toEqualTypeOf(verifyUnknown);
expectTypeOf(kdf.verifyUnknownSync).toEqualTypeOf(verifyUnknownSync);
expectTypeOf(kdf.requestSignal).toEqualTypeOf(requestSignal);
expectTypeOf(kdf.rateLimitHeaders).toEqualTypeOf(rateLimitHeaders);
expectTypeOf(kdf.readiness).toEqualTypeOf(readiness);
expectTypeOf(kdf.createPool).toEqualTypeOf(createPool);
expectTypeOf(kdf.PoolSaturatedError).toEqualTypeOf<typeof PoolSaturatedError>();
expectTypeOf(kdf.HashLimitError).toEqualTypeOf<typeof HashLimitError>();

// ---------------------------------------------------------------- node:crypto's KDFs

expectTypeOf<BinaryLike>().toEqualTypeOf<string | ArrayBuffer | SharedArrayBuffer | NodeJS.ArrayBufferView>();
expectTypeOf<KdfCallback>().toEqualTypeOf<(err: Error | null, derivedKey: Buffer) => void>();

expectTypeOf(pbkdf2).toBeCallableWith('pw', 'salt', 1, 32, 'sha256');
expectTypeOf(pbkdf2).toBeCallableWith(Buffer.from('pw'), new Uint8Array(8), 1, 32, 'sha512', { signal: AbortSignal.abort() });
expectTypeOf(pbkdf2).toBeCallableWith('pw', 'salt', 1, 32, 'sha256', (err: Error | null, key: Buffer) => void [err, key]);
expectTypeOf(pbkdf2).toBeCallableWith('pw', 'salt', 1, 32, 'sha256', { maxWaitMs: 10 }, () => {});
expectTypeOf(pbkdf2('pw', 'salt', 1, 32, 'sha256')).toEqualTypeOf<Promise<Buffer>>();
expectTypeOf(pbkdf2('pw', 'salt', 1, 32, 'sha256', () => {})).toEqualTypeOf<void>();
expectTypeOf(pbkdf2Sync).parameters.toEqualTypeOf<[BinaryLike, BinaryLike, number, number, string]>();
expectTypeOf(pbkdf2Sync).returns.toEqualTypeOf<Buffer>();

expectTypeOf(scrypt('pw', 'salt', 64)).toEqualTypeOf<Promise<Buffer>>();
expectTypeOf(scrypt('pw', 'salt', 64, { N: 1024 })).toEqualTypeOf<Promise<Buffer>>();
expectTypeOf(scrypt('pw', 'salt', 64, () => {})).toEqualTypeOf<void>();
expectTypeOf(scrypt('pw', 'salt', 64, { cost: 1024 }, () => {})).toEqualTypeOf<void>();
expectTypeOf(scryptSync).parameters.toEqualTypeOf<[BinaryLike, BinaryLike, number, (ScryptOptions | undefined)?]>();
expectTypeOf(scryptSync).returns.toEqualTypeOf<Buffer>();
expectTypeOf<ScryptOptions>().toExtend<CallOptions>();
for (const key of ['N', 'cost', 'r', 'blockSize', 'p', 'parallelization', 'maxmem', 'maxWaitMs'] as const) {
  expectTypeOf<ScryptOptions[typeof key]>().toEqualTypeOf<number | undefined>();
}

expectTypeOf<Argon2Algorithm>().toEqualTypeOf<'argon2d' | 'argon2i' | 'argon2id'>();
expectTypeOf(argon2).parameter(0).toEqualTypeOf<Argon2Algorithm>();
expectTypeOf(argon2Sync).parameters.toEqualTypeOf<[Argon2Algorithm, Argon2Parameters]>();
expectTypeOf(argon2Sync).returns.toEqualTypeOf<Buffer>();
declare const argonParams: Argon2Parameters;
expectTypeOf(argon2('argon2id', argonParams)).toEqualTypeOf<Promise<Buffer>>();
expectTypeOf(argon2('argon2id', argonParams, { fairKey: 'k' })).toEqualTypeOf<Promise<Buffer>>();
expectTypeOf(argon2('argon2id', argonParams, () => {})).toEqualTypeOf<void>();
expectTypeOf(argon2('argon2id', argonParams, {}, () => {})).toEqualTypeOf<void>();
expectTypeOf<Argon2Parameters>().toExtend<CallOptions>();
expectTypeOf<Argon2Parameters['message']>().toEqualTypeOf<BinaryLike>();
expectTypeOf<Argon2Parameters['nonce']>().toEqualTypeOf<BinaryLike>();
expectTypeOf<Argon2Parameters['secret']>().toEqualTypeOf<BinaryLike | undefined>();
expectTypeOf<Argon2Parameters['associatedData']>().toEqualTypeOf<BinaryLike | undefined>();
for (const key of ['parallelism', 'tagLength', 'memory', 'passes'] as const) {
  expectTypeOf<Argon2Parameters[typeof key]>().toEqualTypeOf<number>();
}

// ---------------------------------------------------------------- per-call options

expectTypeOf<CallOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
expectTypeOf<CallOptions['maxWaitMs']>().toEqualTypeOf<number | undefined>();
expectTypeOf<CallOptions['fairKey']>().toEqualTypeOf<string | undefined>();

// ---------------------------------------------------------------- password hashes

expectTypeOf<HashAlgorithm>().toEqualTypeOf<
  'argon2id' | 'argon2i' | 'argon2d' | 'scrypt' | 'pbkdf2-sha256' | 'pbkdf2-sha512' | 'bcrypt'>();
expectTypeOf<HashOptions>().toEqualTypeOf<Argon2HashOptions | ScryptHashOptions | Pbkdf2HashOptions | BcryptHashOptions>();
expectTypeOf<VerifyOptions>().toEqualTypeOf<HashOptions>();
expectTypeOf<HashOptions['algorithm']>().toEqualTypeOf<HashAlgorithm | undefined>();
expectTypeOf(hash).parameters.toEqualTypeOf<[BinaryLike, (HashOptions | undefined)?]>();
expectTypeOf(hash).returns.toEqualTypeOf<Promise<string>>();
expectTypeOf(hashSync).parameters.toEqualTypeOf<[BinaryLike, (HashOptions | undefined)?]>();
expectTypeOf(hashSync).returns.toEqualTypeOf<string>();
expectTypeOf(verify).parameters.toEqualTypeOf<[string, BinaryLike, (VerifyOptions | undefined)?]>();
expectTypeOf(verify).returns.toEqualTypeOf<Promise<boolean>>();
expectTypeOf(verifySync).parameters.toEqualTypeOf<[string, BinaryLike, (VerifyOptions | undefined)?]>();
expectTypeOf(verifySync).returns.toEqualTypeOf<boolean>();
expectTypeOf(needsRehash).parameters.toEqualTypeOf<[string, (HashOptions | undefined)?, (BinaryLike | undefined)?]>();
expectTypeOf(verifyUnknown).parameters.toEqualTypeOf<[BinaryLike, (VerifyOptions | undefined)?]>();
expectTypeOf(verifyUnknown).returns.toEqualTypeOf<Promise<false>>();
expectTypeOf(verifyUnknownSync).parameters.toEqualTypeOf<[BinaryLike, (VerifyOptions | undefined)?]>();
expectTypeOf(verifyUnknownSync).returns.toEqualTypeOf<false>();
expectTypeOf(requiredLimits).parameters.toEqualTypeOf<[Iterable<string>]>();
expectTypeOf(requiredLimits).returns.toEqualTypeOf<RequiredLimits>();
expectTypeOf<RequiredLimits['hashLimits']>().toEqualTypeOf<HashLimits>();
expectTypeOf<RequiredLimits['memoryNeeded']>().toEqualTypeOf<number>();
expectTypeOf(needsRehash).returns.toEqualTypeOf<boolean>();
expectTypeOf(rehashTarget).parameters.toEqualTypeOf<[string, (HashOptions | undefined)?]>();
expectTypeOf(rehashTarget).returns.toEqualTypeOf<HashOptions>();

// Keys every variant shares.
for (const variant of [{} as Argon2HashOptions, {} as ScryptHashOptions, {} as Pbkdf2HashOptions, {} as BcryptHashOptions]) {
  expectTypeOf(variant).toExtend<CallOptions>();
  expectTypeOf(variant.limits).toEqualTypeOf<HashLimits | undefined>();
  expectTypeOf(variant.exact).toEqualTypeOf<boolean | undefined>();
  expectTypeOf(variant.normalize).toEqualTypeOf<'NFC' | 'NFD' | 'NFKC' | 'NFKD' | undefined>();
}
expectTypeOf<Argon2HashOptions['algorithm']>().toEqualTypeOf<'argon2id' | 'argon2i' | 'argon2d' | undefined>();
for (const key of ['memory', 'passes', 'parallelism', 'tagLength', 'saltLength'] as const) {
  expectTypeOf<Argon2HashOptions[typeof key]>().toEqualTypeOf<number | undefined>();
}
expectTypeOf<Argon2HashOptions['secret']>().toEqualTypeOf<BinaryLike | SecretKeys | undefined>();
expectTypeOf<SecretKeys['current']>().toEqualTypeOf<string>();
expectTypeOf<SecretKeys['keys']>().toEqualTypeOf<{ readonly [id: string]: BinaryLike }>();
expectTypeOf<SecretKeys['unnamed']>().toEqualTypeOf<string | undefined>();
// @ts-expect-error named keys need `current`
export const noCurrent: SecretKeys = { keys: { k1: 'x' } };
expectTypeOf<Argon2HashOptions['associatedData']>().toEqualTypeOf<BinaryLike | undefined>();
expectTypeOf<ScryptHashOptions['algorithm']>().toEqualTypeOf<'scrypt'>();
for (const key of ['ln', 'N', 'r', 'p', 'tagLength', 'saltLength'] as const) {
  expectTypeOf<ScryptHashOptions[typeof key]>().toEqualTypeOf<number | undefined>();
}
expectTypeOf<Pbkdf2HashOptions['algorithm']>().toEqualTypeOf<'pbkdf2-sha256' | 'pbkdf2-sha512'>();
expectTypeOf<Pbkdf2HashOptions['iterations']>().toEqualTypeOf<number | undefined>();
expectTypeOf<Pbkdf2HashOptions['saltLength']>().toEqualTypeOf<number | undefined>();
expectTypeOf<BcryptHashOptions['algorithm']>().toEqualTypeOf<'bcrypt'>();
expectTypeOf<BcryptHashOptions['cost']>().toEqualTypeOf<number | undefined>();
// Each algorithm takes only its own parameters (in an options literal).
// @ts-expect-error bcrypt has no memory
export const bcryptMemory: HashOptions = { algorithm: 'bcrypt', memory: 1 };
// @ts-expect-error scrypt has no secret
export const scryptSecret: HashOptions = { algorithm: 'scrypt', secret: 'k' };
// @ts-expect-error PBKDF2 has no cost
export const pbkdf2Cost: HashOptions = { algorithm: 'pbkdf2-sha256', cost: 1 };

for (const key of [
  'work', 'memory', 'argon2Memory', 'argon2Passes', 'argon2Lanes', 'scryptMemory', 'scryptParallelism',
  'pbkdf2Iterations', 'bcryptCost', 'saltLength', 'hashLength', 'dataLength',
] as const) {
  expectTypeOf<HashLimits[typeof key]>().toEqualTypeOf<number | undefined>();
}

// ---------------------------------------------------------------- HTTP

expectTypeOf(requestSignal).returns.toEqualTypeOf<AbortSignal>();

// ---------------------------------------------------------------- fleet: RateLimit fields and readiness

expectTypeOf(rateLimitHeaders).parameters.toEqualTypeOf<[PoolLike]>();
expectTypeOf(rateLimitHeaders).returns.toEqualTypeOf<RateLimitHeaders>();
expectTypeOf<RateLimitHeaders['ratelimit']>().toEqualTypeOf<string>();
expectTypeOf<RateLimitHeaders['ratelimit-policy']>().toEqualTypeOf<string>();
expectTypeOf(rateLimitHeaders).toBeCallableWith(kdf);
expectTypeOf(readiness).parameters.toEqualTypeOf<[PoolLike, ReadinessOptions?]>();
expectTypeOf(readiness).returns.toEqualTypeOf<ReadinessProbe>();
expectTypeOf<ReadinessOptions['saturatedForMs']>().toEqualTypeOf<number | undefined>();
expectTypeOf<ReadinessOptions['recoverForMs']>().toEqualTypeOf<number | undefined>();
expectTypeOf<ReadinessOptions['queueWaitMs']>().toEqualTypeOf<number | undefined>();
expectTypeOf<ReadinessOptions['intervalMs']>().toEqualTypeOf<number | undefined>();
expectTypeOf<ReadinessProbe['ready']>().toEqualTypeOf<boolean>();
expectTypeOf<ReadinessProbe['status']>().returns.toEqualTypeOf<ReadinessStatus>();
expectTypeOf<ReadinessStatus['reason']>().toEqualTypeOf<null | 'refusing' | 'queue_wait' | 'closed'>();
expectTypeOf<PoolOptions['rateLimitHeaders']>().toEqualTypeOf<boolean | undefined>();
declare const req: IncomingMessage;
declare const res: ServerResponse;
expectTypeOf(requestSignal).toBeCallableWith(req, res);
expectTypeOf(requestSignal).toBeCallableWith(req);
expectTypeOf<IncomingMessage>().toExtend<RequestLike>();
expectTypeOf<ServerResponse>().toExtend<RequestLike>();
expectTypeOf<{ on(): void }>().not.toExtend<RequestLike>();

// fairKey without plumbing: the recorded key, a pool option reading it, a middleware recording it.
expectTypeOf(kdf.currentFairKey).toEqualTypeOf(currentFairKey);
expectTypeOf(currentFairKey).toEqualTypeOf<() => string | undefined>();
expectTypeOf<PoolOptions['fairKey']>().toEqualTypeOf<(() => string | undefined) | null | undefined>();
expectTypeOf(currentFairKey).toExtend<PoolOptions['fairKey']>();
expectTypeOf(runWithFairKey('10.0.0.1', (a: number, b: string) => `${a}${b}`, 1, 'x')).toEqualTypeOf<string>();
expectTypeOf(runWithFairKey(undefined, async () => 1)).toEqualTypeOf<Promise<number>>();
// @ts-expect-error the arguments are fn's
runWithFairKey('k', (a: number) => a, 'x');
// @ts-expect-error a key is a string
runWithFairKey(42, () => 1);
const recordKey = fairKeyMiddleware((r: IncomingMessage) => r.socket.remoteAddress);
expectTypeOf(recordKey).parameters.toEqualTypeOf<[IncomingMessage, unknown, (err?: unknown) => void]>();
recordKey(req, res, () => {});
// @ts-expect-error keyOf returns a string or undefined
fairKeyMiddleware((r: IncomingMessage) => r.socket);

// ---------------------------------------------------------------- pools

expectTypeOf<Priority>().toEqualTypeOf<'normal' | 'low' | 'idle' | 'mixed' | 'auto'>();
expectTypeOf(configure).parameters.toEqualTypeOf<[PoolOptions]>();
expectTypeOf(configure).returns.toEqualTypeOf<void>();
expectTypeOf(stats).returns.toEqualTypeOf<PoolStats>();
expectTypeOf(createPool).parameters.toEqualTypeOf<[(CreatePoolOptions | undefined)?]>();
expectTypeOf(createPool).returns.toEqualTypeOf<Pool>();
for (const key of ['threads', 'maxQueue', 'maxMemory', 'maxWaitMs'] as const) {
  expectTypeOf<PoolOptions[typeof key]>().toEqualTypeOf<number | undefined>();
}
expectTypeOf<PoolOptions['priority']>().toEqualTypeOf<Priority | undefined>();
expectTypeOf<PoolOptions['hashLimits']>().toEqualTypeOf<HashLimits | undefined>();
expectTypeOf<PoolOptions['secret']>().toEqualTypeOf<BinaryLike | SecretKeys | null | undefined>();
expectTypeOf<PoolOptions['hostSlots']>().toEqualTypeOf<HostSlotsOptions | null | undefined>();
expectTypeOf<CreatePoolOptions>().toExtend<PoolOptions>();
expectTypeOf<CreatePoolOptions['name']>().toEqualTypeOf<string | undefined>();
expectTypeOf<HostSlotsOptions>().toEqualTypeOf<{ key: string; slots: number }>();

declare const pool: Pool;
expectTypeOf(pool.name).toEqualTypeOf<string>();
expectTypeOf(pool.pbkdf2).toEqualTypeOf(pbkdf2);
expectTypeOf(pool.pbkdf2Sync).toEqualTypeOf(pbkdf2Sync);
expectTypeOf(pool.scrypt).toEqualTypeOf(scrypt);
expectTypeOf(pool.scryptSync).toEqualTypeOf(scryptSync);
expectTypeOf(pool.argon2).toEqualTypeOf(argon2);
expectTypeOf(pool.argon2Sync).toEqualTypeOf(argon2Sync);
expectTypeOf(pool.hash).toEqualTypeOf(hash);
expectTypeOf(pool.hashSync).toEqualTypeOf(hashSync);
expectTypeOf(pool.verify).toEqualTypeOf(verify);
expectTypeOf(pool.verifySync).toEqualTypeOf(verifySync);
expectTypeOf(pool.verifyUnknown).toEqualTypeOf(verifyUnknown);
expectTypeOf(pool.verifyUnknownSync).toEqualTypeOf(verifyUnknownSync);
expectTypeOf(pool.needsRehash).toEqualTypeOf(needsRehash);
expectTypeOf(pool.rehashTarget).toEqualTypeOf(rehashTarget);
expectTypeOf(pool.stats).toEqualTypeOf(stats);
expectTypeOf(pool.close).toEqualTypeOf<() => Promise<void>>();
expectTypeOf(pool.tune).toEqualTypeOf(tune);
expectTypeOf(kdf.tune).toEqualTypeOf(tune);

// ---------------------------------------------------------------- tune

expectTypeOf(tune).parameters.toEqualTypeOf<[TuneOptions]>();
expectTypeOf(tune).returns.toEqualTypeOf<Promise<TuneResult>>();
expectTypeOf(tune).toBeCallableWith({ targetMs: 250 });
expectTypeOf(tune).toBeCallableWith({ algorithm: 'scrypt', targetMs: 250, concurrency: 4, maxMemory: 2 ** 30 });
// @ts-expect-error targetMs is required
tune({ algorithm: 'argon2id' });
// @ts-expect-error not an algorithm hash() writes
tune({ algorithm: 'md5', targetMs: 1 });
expectTypeOf<TuneOptions['algorithm']>().toEqualTypeOf<HashAlgorithm | undefined>();
declare const tuned: TuneResult;
expectTypeOf(tuned.options).toExtend<HashOptions>();
expectTypeOf(hash).toBeCallableWith('pw', tuned.options);
for (const key of ['targetMs', 'measuredMs', 'ratio', 'concurrency', 'hashesPerSecond', 'memoryPerHash', 'maxMemory'] as const) {
  expectTypeOf(tuned[key]).toEqualTypeOf<number>();
}
expectTypeOf(tuned.minimumsBind).toEqualTypeOf<boolean>();
expectTypeOf(tuned.fitsBudget).toEqualTypeOf<boolean>();
expectTypeOf(tuned.hashLimits).toEqualTypeOf<HashLimits>();
expectTypeOf(tuned.measured.variant).toEqualTypeOf<string>();
expectTypeOf(tuned.measured.priority).toEqualTypeOf<Priority>();

declare const s: PoolStats;
expectTypeOf(s.name).toEqualTypeOf<string>();
expectTypeOf(s.priority).toEqualTypeOf<Priority>();
for (const key of [
  'threads', 'running', 'busyThreads', 'queued', 'maxQueue', 'submitted', 'completed', 'failed', 'rejected', 'refused', 'displaced',
  'keys', 'remembered', 'cancelled', 'shed', 'batched', 'aborted', 'memoryInUse', 'maxMemory', 'maxWaitMs',
  'avgRunMs', 'estimatedWaitMs',
] as const) {
  expectTypeOf(s[key]).toEqualTypeOf<number>();
}
expectTypeOf(s.waitMs).toEqualTypeOf<Percentiles>();
expectTypeOf(s.runMs).toEqualTypeOf<Percentiles>();
expectTypeOf<Percentiles>().toEqualTypeOf<{ p50: number; p99: number; max: number }>();
expectTypeOf(s.arena).toEqualTypeOf<{ maps: number; bytes: number }>();
expectTypeOf(s.hostSlots).toEqualTypeOf<HostSlotsStats | null>();
for (const key of ['slots', 'held', 'members', 'waitMs'] as const) {
  expectTypeOf<HostSlotsStats[typeof key]>().toEqualTypeOf<number>();
}
expectTypeOf<HostSlotsStats['key']>().toEqualTypeOf<string>();

// ---------------------------------------------------------------- errors: each narrowed by its code

function byCode(err: KdfpoolError): string {
  switch (err.code) {
    case 'ERR_KDF_POOL_SATURATED':
      expectTypeOf(err).toEqualTypeOf<PoolSaturatedError>();
      expectTypeOf(err.retryable).toEqualTypeOf<true>();
      expectTypeOf(err.retryAfterMs).toEqualTypeOf<number>();
      expectTypeOf(err.reason).toEqualTypeOf<'queue_full' | 'deadline' | 'displaced'>();
      expectTypeOf(err.pool).toEqualTypeOf<string | undefined>();
      expectTypeOf(err.scope).toEqualTypeOf<'pool' | 'client'>();
      expectTypeOf(err.status).toEqualTypeOf<429 | 503>();
      expectTypeOf(err.statusCode).toEqualTypeOf<429 | 503>();
      expectTypeOf(err.expose).toEqualTypeOf<true>();
      expectTypeOf(err.headers).toEqualTypeOf<{ readonly 'retry-after': string; readonly 'ratelimit-policy'?: string; readonly ratelimit?: string }>();
      return err.headers['retry-after'];
    case 'ERR_KDF_POOL_CLOSED':
      expectTypeOf(err).toEqualTypeOf<PoolClosedError>();
      expectTypeOf(err.status).toEqualTypeOf<503>();
      expectTypeOf(err.statusCode).toEqualTypeOf<503>();
      expectTypeOf(err.expose).toEqualTypeOf<false>();
      expectTypeOf(err).not.toHaveProperty('headers');
      return err.name;
    case 'ERR_KDF_MEMORY_LIMIT':
      expectTypeOf(err).toEqualTypeOf<MemoryLimitError>();
      expectTypeOf(err.memoryNeeded).toEqualTypeOf<number>();
      expectTypeOf(err.maxMemory).toEqualTypeOf<number>();
      expectTypeOf(err).not.toHaveProperty('status');
      return err.name;
    case 'ERR_KDF_HASH_LIMIT':
      expectTypeOf(err).toEqualTypeOf<HashLimitError>();
      expectTypeOf(err.limit).toEqualTypeOf<keyof HashLimits | 'maxMemory' | 'storedLength'>();
      expectTypeOf(err.value).toEqualTypeOf<number>();
      expectTypeOf(err.max).toEqualTypeOf<number>();
      expectTypeOf(err.memoryNeeded).toEqualTypeOf<number | undefined>();
      expectTypeOf(err).not.toHaveProperty('status');
      return err.name;
    case 'ERR_KDF_INVALID_HASH':
      expectTypeOf(err).toEqualTypeOf<InvalidHashError>();
      expectTypeOf(err).not.toHaveProperty('status');
      return err.name;
    case 'ABORT_ERR':
      expectTypeOf(err).toEqualTypeOf<AbortError>();
      return err.name;
    case 'ERR_KDF_DIGEST_UNAVAILABLE':
      expectTypeOf(err).toEqualTypeOf<KdfError>();
      expectTypeOf(err.digest).toEqualTypeOf<string | undefined>();
      return err.name;
    case 'ERR_KDF_PASSWORD_TOO_LONG':
      expectTypeOf(err).toEqualTypeOf<KdfError>();
      expectTypeOf(err.limit).toEqualTypeOf<'passwordLength' | 'bcryptPasswordLength' | undefined>();
      expectTypeOf(err.status).toEqualTypeOf<400 | undefined>();
      return err.name;
    case 'ERR_KDF_UNKNOWN_KEY_ID':
      expectTypeOf(err).toEqualTypeOf<KdfError>();
      expectTypeOf(err.keyId).toEqualTypeOf<string | undefined>();
      return err.name;
    case 'ERR_KDF_HOST_SLOTS':
    case 'ERR_KDF_MISSING_PEER':
    case 'ERR_KDF_DEFAULT_POOL':
    case 'ERR_KDF_OUT_OF_MEMORY':
    case 'ERR_KDF_CANCELLED':
    case 'ERR_KDF_STOPPED':
    case 'ERR_KDF_INVALID_ARGUMENT':
    case 'ERR_KDF_FAIR_KEY':
      expectTypeOf(err).toEqualTypeOf<KdfError>();
      expectTypeOf(err.code).toEqualTypeOf<Exclude<KdfErrorCode, 'ERR_KDF_DIGEST_UNAVAILABLE' | 'ERR_KDF_PASSWORD_TOO_LONG' | 'ERR_KDF_UNKNOWN_KEY_ID'>>();
      return err.name;
    default:
      // Every code is handled above.
      expectTypeOf(err).toBeNever();
      return err;
  }
}
void byCode;

// From `unknown`, as a catch clause gives it: instanceof, then code.
async function caught(): Promise<void> {
  try {
    await hash('pw');
  } catch (err) {
    expectTypeOf(err).toBeUnknown();
    if (err instanceof PoolSaturatedError) expectTypeOf(err.headers['retry-after']).toBeString();
    if (err instanceof KdfError && err.code === 'ERR_KDF_HOST_SLOTS') expectTypeOf(err.retryable).toEqualTypeOf<false | undefined>();
    for (const Class of [PoolSaturatedError, PoolClosedError, MemoryLimitError, KdfError, AbortError, InvalidHashError, HashLimitError]) {
      if (err instanceof Class) expectTypeOf(err).toExtend<KdfpoolError>();
    }
  }
}
void caught;
