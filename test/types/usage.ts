// Compiled with `tsc --noEmit` by test/types.test.js: uses the whole public
// API as a TypeScript user would, and checks that misuse is rejected.
import kdf, {
  pbkdf2, pbkdf2Sync, scrypt, scryptSync, argon2, argon2Sync, hash, verify, needsRehash,
  configure, stats, createPool, PoolSaturatedError, PoolClosedError, MemoryLimitError,
  KdfError, AbortError, InvalidHashError, HashLimitError, type Pool, type PoolStats,
} from 'kdfpool';

async function main(): Promise<void> {
  const a: Buffer = await pbkdf2('pw', 'salt', 1000, 32, 'sha256');
  const b: Buffer = await kdf.pbkdf2(Buffer.from('pw'), new Uint8Array(8), 1, 16, 'sha512', { signal: AbortSignal.timeout(1000) });
  pbkdf2('pw', 'salt', 1, 32, 'sha256', (err: Error | null, key: Buffer) => { void err; void key; });
  const c: Buffer = pbkdf2Sync('pw', new DataView(new ArrayBuffer(4)), 1, 32, 'sha1');
  const d: Buffer = await scrypt('pw', 'salt', 64, { N: 16384, r: 8, p: 1, maxmem: 64 << 20, maxWaitMs: 100 });
  const e: Buffer = scryptSync('pw', 'salt', 64);
  const f: Buffer = await argon2('argon2id', {
    message: 'pw', nonce: new SharedArrayBuffer(16), parallelism: 1, tagLength: 32, memory: 19456, passes: 2,
    secret: Buffer.alloc(8), associatedData: 'ad',
  });
  const g: Buffer = argon2Sync('argon2d', { message: 'pw', nonce: 'saltsalt', parallelism: 2, tagLength: 16, memory: 64, passes: 1 });
  const phc: string = await hash('pw');
  const phc2: string = await hash('pw', { algorithm: 'bcrypt' });
  const ok: boolean = await verify(phc, 'pw', { limits: { argon2Memory: 65536, bcryptCost: 12, work: 1000, memory: 1 << 29 } });
  await hash('pw', { algorithm: 'bcrypt', cost: 14, limits: { work: 820 } });
  await verify(phc, 'pw').catch((err: unknown) => {
    if (err instanceof HashLimitError) {
      // 'work' and 'memory' are limit names (a comparison outside the union does not compile).
      if (err.limit === 'work' || err.limit === 'memory' || err.limit === 'maxMemory') void [err.value, err.max];
    }
    else if (err instanceof InvalidHashError) void err.code;
  });
  const again: boolean = needsRehash(phc2);
  configure({ threads: 2, maxQueue: 128, maxMemory: 256 << 20, maxWaitMs: 500, priority: 'low' });
  const s: PoolStats = stats();
  const n: number = s.waitMs.p99 + s.runMs.max + s.memoryInUse + s.shed + s.aborted;
  const pool: Pool = createPool({ threads: 1, maxQueue: 8, name: 'login', priority: 'normal' });
  await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  await pool.close();
  try {
    await pbkdf2('pw', 'salt', 1, 32, 'sha256');
  } catch (err) {
    if (err instanceof PoolSaturatedError) {
      const ms: number = err.retryAfterMs;
      const retry: true = err.retryable;
      const code: 'ERR_KDF_POOL_SATURATED' = err.code;
      void ms; void retry; void code;
    } else if (err instanceof PoolClosedError || err instanceof MemoryLimitError || err instanceof KdfError || err instanceof AbortError) {
      void err.code;
    }
  }
  void [a, b, c, d, e, f, g, ok, again, n];

  // Misuse that must not compile:
  // @ts-expect-error digest is required
  await pbkdf2('pw', 'salt', 1, 32);
  // @ts-expect-error iterations is a number
  await pbkdf2('pw', 'salt', '1', 32, 'sha256');
  // @ts-expect-error not an Argon2 variant
  await argon2('argon2x', { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 64, passes: 1 });
  // @ts-expect-error nonce is required
  await argon2('argon2id', { message: 'pw', parallelism: 1, tagLength: 32, memory: 64, passes: 1 });
  // @ts-expect-error unknown priority
  configure({ priority: 'urgent' });
  // @ts-expect-error verify resolves to a boolean, not a string
  const wrong: string = await verify(phc, 'pw');
  void wrong;
  // @ts-expect-error unknown hash algorithm
  await hash('pw', { algorithm: 'md5' });
  // @ts-expect-error unknown limit
  await verify(phc, 'pw', { limits: { maxMemoryKiB: 1 } });
}

void main;
