// Compiled with `tsc --noEmit` by test/types.test.js: uses the whole public
// API as a TypeScript user would, and checks that misuse is rejected.
import kdf, {
  pbkdf2, pbkdf2Sync, scrypt, scryptSync, argon2, argon2Sync, hash, verify, needsRehash,
  configure, stats, createPool, hashSync, verifySync, verifyUnknown, requestSignal, PoolSaturatedError, PoolClosedError, MemoryLimitError,
  KdfError, AbortError, InvalidHashError, HashLimitError, type Pool, type PoolStats, type Priority,
} from 'kdfpool';

import * as http from 'node:http';

// requestSignal() with node's own request and response.
http.createServer((req, res) => {
  const signal: AbortSignal = requestSignal(req, res);
  void verify('$argon2id$...', 'pw', { signal }).then(() => res.end(), () => res.end());
});

async function main(): Promise<void> {
  const a: Buffer = await pbkdf2('pw', 'salt', 1000, 32, 'sha256');
  const b: Buffer = await kdf.pbkdf2(Buffer.from('pw'), new Uint8Array(8), 1, 16, 'sha512', { signal: AbortSignal.timeout(1000) });
  pbkdf2('pw', 'salt', 1, 32, 'sha256', (err: Error | null, key: Buffer) => { void err; void key; });
  const c: Buffer = pbkdf2Sync('pw', new DataView(new ArrayBuffer(4)), 1, 32, 'sha1');
  const d: Buffer = await scrypt('pw', 'salt', 64, { N: 16384, r: 8, p: 1, maxmem: 64 << 20, maxWaitMs: 100 });
  const keyed: Buffer = await kdf.pbkdf2('pw', 'salt', 1, 16, 'sha256', { fairKey: '203.0.113.7' });
  const keyedOk: boolean = await verify('$argon2id$...', 'pw', { fairKey: 'account-42' });
  void keyed;
  void keyedOk;
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
  const n: number = s.waitMs.p99 + s.runMs.max + s.memoryInUse + s.shed + s.refused + s.aborted;
  const pool: Pool = createPool({ threads: 1, maxQueue: 8, name: 'login', priority: 'normal' });
  await pool.pbkdf2('pw', 'salt', 1, 32, 'sha256');
  await pool.close();
  const priorities: Priority[] = ['normal', 'low', 'idle', 'mixed'];
  const mixed: Pool = createPool({ name: 'mixed', priority: priorities[3] });
  await mixed.close();
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
  // @ts-expect-error bcrypt has no memory parameter (HashOptions is a union on algorithm)
  await hash('pw', { algorithm: 'bcrypt', memory: 1 });
  // @ts-expect-error scrypt has no secret (Argon2 only)
  await hash('pw', { algorithm: 'scrypt', secret: 'pepper' });
  // @ts-expect-error hashSync returns a string, not a promise
  const notPromise: Promise<string> = hashSync('pw');
  void notPromise;

  // Argon2 with a pepper and associated data; the Sync forms; exact needsRehash.
  const peppered: string = await hash('pw', { memory: 65536, passes: 3, parallelism: 4, secret: Buffer.from('k'), associatedData: 'ctx' });
  const okSync: boolean = verifySync(peppered, 'pw', { secret: 'k' });
  const h2: string = hashSync('pw', { algorithm: 'scrypt', ln: 15 });
  const exact: boolean = needsRehash(h2, { algorithm: 'scrypt', ln: 15, exact: true });
  const shared = { algorithm: 'bcrypt', cost: 12, maxWaitMs: 2000 } as const;
  if (await verify(phc2, 'pw', shared) && needsRehash(phc2, shared)) await hash('pw', shared);
  configure({ secret: Buffer.from('pepper') });
  configure({ secret: null });
  const peppery: Pool = createPool({ secret: 'pepper' });
  void [okSync, exact, peppery.hashSync('pw'), peppery.verifySync(phc, 'pw')];

  // One budget per host (hostSlots).
  configure({ hostSlots: { key: 'login', slots: 2 } });
  const hs = stats().hostSlots;
  if (hs !== null) void [hs.key.length, hs.slots, hs.held, hs.members, hs.waitMs];
  configure({ hostSlots: null });
  const hostPool: Pool = createPool({ hostSlots: { key: 'login', slots: 4 } });
  void hostPool;
  // @ts-expect-error slots is required
  configure({ hostSlots: { key: 'login' } });
  // @ts-expect-error unknown key inside hostSlots
  configure({ hostSlots: { key: 'login', slots: 2, path: '/tmp' } });
  // @ts-expect-error stats().hostSlots may be null
  void stats().hostSlots.held;
  try {
    await argon2('argon2id', { message: 'pw', nonce: 'saltsalt', parallelism: 1, tagLength: 32, memory: 1 << 26, passes: 1 });
  } catch (err) {
    if (err instanceof MemoryLimitError) { const n: number = err.memoryNeeded + err.maxMemory; void n; }
  }
}

void main;

// Migrations and password bounds: requiredLimits, needsRehash's password,
// bcrypt's truncate, the passwordLength limit.
async function migrations(stored: string[]) {
  const { hashLimits, memoryNeeded } = kdf.requiredLimits(stored);
  configure({ hashLimits: { ...hashLimits, passwordLength: 8192 } });
  const n: number = memoryNeeded;
  const h = await hash('pw', { algorithm: 'bcrypt', cost: 12, truncate: true });
  // Named peppers that rotate, and users who do not exist.
  const rotating = createPool({ secret: { current: 'k2', keys: { k1: 'old', k2: Buffer.from('new') }, unnamed: 'k1' } });
  const row: string | undefined = await rotating.hash('pw');
  const ok: boolean = row === undefined ? await rotating.verifyUnknown('pw') : await rotating.verify(row, 'pw');
  const no: false = kdf.verifyUnknownSync('pw', { algorithm: 'bcrypt', cost: 12 });
  const move: boolean = rotating.needsRehash(h, {}, 'pw');
  configure({ secret: { current: 'k1', keys: { k1: 'pepper' } } });
  // @ts-expect-error verifyUnknown takes no stored hash
  await verifyUnknown('$argon2id$...', 'pw');
  void [ok, no, move];
  const again: boolean = needsRehash(h, { algorithm: 'bcrypt', cost: 12 }, Buffer.from('pw'));
  // @ts-expect-error truncate is a bcrypt option
  await hash('pw', { algorithm: 'argon2id', truncate: false });
  // @ts-expect-error storedHashes are strings
  kdf.requiredLimits([1]);
  void n; void again;
}
void migrations;
