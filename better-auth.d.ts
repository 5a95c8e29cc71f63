// Types of the `kdfpool/better-auth` entry (lib/frameworks/better-auth.js).
// better-auth is an optional peer dependency: these types name only what
// they use of it, so they compile with any TypeScript module setting; the
// plugin is assignable to better-auth's BetterAuthPlugin.

import type { HashOptions, PoolStats } from './index.js';

/** A pool to hash and verify on: the kdfpool module (its default pool) or a pool from createPool(). */
export interface BetterAuthPool {
  hash(password: string, options?: HashOptions): Promise<string>;
  verify(stored: string, password: string, options?: HashOptions): Promise<boolean>;
  verifyUnknown(password: string, options?: HashOptions): Promise<false>;
  needsRehash(stored: string, options?: HashOptions, password?: string): boolean;
  rehashTarget(stored: string, options?: HashOptions): HashOptions;
  stats(): PoolStats;
}

export interface BetterAuthKdfOptions {
  /** Where passwords are hashed and verified (default: the default pool). */
  pool?: BetterAuthPool;
  /**
   * hash()'s options for new hashes, also given to verify(),
   * verifyUnknown(), rehashTarget() and needsRehash() (default: hash()'s
   * defaults, Argon2id); `normalize` is 'NFKC' unless given, as
   * better-auth's own hasher. A sign-in rehashes to rehashTarget(stored,
   * target): never cheaper than the stored hash unless `exact: true`.
   */
  target?: HashOptions;
}

/** better-auth's `emailAndPassword.password` hooks. */
export interface BetterAuthPasswordHooks {
  hash(password: string): Promise<string>;
  verify(data: { hash: string; password: string }): Promise<boolean>;
}

/**
 * better-auth's `emailAndPassword.password` hooks on a kdfpool pool. A
 * refusal rejects with better-auth's APIError of the same status and
 * headers (503 or 429 with Retry-After; a closed pool 503). Throws ERR_INVALID_ARG_VALUE for an
 * unknown option or target key.
 */
export function password(options?: BetterAuthKdfOptions): BetterAuthPasswordHooks;

/** The better-auth plugin kdfpool() returns. */
export interface BetterAuthKdfPlugin {
  id: 'kdfpool';
  init(ctx: any): Promise<{ context: { password: any } }>;
  hooks: {
    before: {
      matcher: (context: any) => boolean;
      handler: any;
    }[];
    after: {
      matcher: (context: any) => boolean;
      handler: any;
    }[];
  };
}

/**
 * A better-auth plugin: kdfpool hashes and verifies passwords (as
 * password() does) and upgrades a stored hash on sign-in when
 * needsRehash() says so (better-auth's own `salt:key` scrypt hashes
 * included).
 */
export function kdfpool(options?: BetterAuthKdfOptions): BetterAuthKdfPlugin;
