// Compiled by test/frameworks-types.test.js (tsc --noEmit, with the NestJS
// recipe of docs/frameworks.md beside it): kdfpool's framework entries as
// a TypeScript user meets them, resolved through package.json's "exports"
// (nodenext), against the frameworks' own types.
import express from 'express';
import { betterAuth, type BetterAuthPlugin } from 'better-auth';
import { memoryAdapter } from 'better-auth/adapters/memory';
import { ExpressAuth } from '@auth/express';
import Credentials from '@auth/express/providers/credentials';
import { Module, type ExceptionFilter } from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost, NestFactory } from '@nestjs/core';
import { expectTypeOf } from 'expect-type';
import kdf, { type HashOptions, type PoolSaturatedError, type PoolClosedError } from 'kdfpool';
import {
  kdfpool, password, type BetterAuthKdfOptions, type BetterAuthPasswordHooks, type BetterAuthPool,
} from 'kdfpool/better-auth';
import { authorize, tooManyRequests } from 'kdfpool/authjs';
import { PoolRefusalFilter, type RefusalHost } from 'kdfpool/nestjs';

const logins = kdf.createPool({ name: 'login', fairKey: kdf.currentFairKey });

// better-auth: the plugin and the bare hooks fit its options.
const plugin: BetterAuthPlugin = kdfpool({ pool: logins, target: { algorithm: 'scrypt', ln: 15 } });
export const auth = betterAuth({
  database: memoryAdapter({}),
  emailAndPassword: { enabled: true, password: password({ pool: kdf }) },
  plugins: [kdfpool(), plugin],
});
const options: BetterAuthKdfOptions = { pool: logins };
void options;
// @ts-expect-error target is hash()'s options
kdfpool({ target: { algorithm: 'md5' } });
// @ts-expect-error a pool hashes
kdfpool({ pool: {} });

// Auth.js: authorize() keeps the provider's signature; tooManyRequests() an Express handler's.
const app = express();
app.use(kdf.fairKeyMiddleware((req: { ip?: string }) => req.ip));
app.use('/auth', tooManyRequests(ExpressAuth({
  providers: [Credentials({
    credentials: { email: {}, password: {} },
    authorize: authorize(async (credentials) => (typeof credentials.email === 'string' ? { id: '1', email: credentials.email } : null)),
  })],
})));
// @ts-expect-error authorize wraps a function
authorize('fn');

// NestJS: a global filter, or an APP_FILTER provider.
@Module({ providers: [{ provide: APP_FILTER, useClass: PoolRefusalFilter }] })
class AppModule {}
export async function nest() {
  const nestApp = await NestFactory.create(AppModule);
  nestApp.useGlobalFilters(new PoolRefusalFilter(nestApp.get(HttpAdapterHost).httpAdapter));
  const filter: ExceptionFilter = new PoolRefusalFilter();
  return filter;
}

// The entries' types, pinned (with skipLibCheck, a broken declaration would be `any`).
expectTypeOf(password).parameters.toEqualTypeOf<[BetterAuthKdfOptions?]>();
expectTypeOf(password).returns.toEqualTypeOf<BetterAuthPasswordHooks>();
expectTypeOf<BetterAuthPasswordHooks['hash']>().toEqualTypeOf<(password: string) => Promise<string>>();
expectTypeOf<BetterAuthPasswordHooks['verify']>()
  .toEqualTypeOf<(data: { hash: string; password: string }) => Promise<boolean>>();
expectTypeOf<BetterAuthKdfOptions['target']>().toEqualTypeOf<HashOptions | undefined>();
expectTypeOf<BetterAuthKdfOptions['pool']>().toEqualTypeOf<BetterAuthPool | undefined>();
expectTypeOf(logins).toExtend<BetterAuthPool>();
expectTypeOf(kdf).toExtend<BetterAuthPool>();
expectTypeOf(kdfpool().id).toEqualTypeOf<'kdfpool'>();
expectTypeOf(authorize(async (a: number, b: string) => ({ id: `${a}${b}` }))).toEqualTypeOf<(a: number, b: string) => Promise<{ id: string }>>();
expectTypeOf(authorize((a: number) => a)).toEqualTypeOf<(a: number) => Promise<number>>();
expectTypeOf(tooManyRequests((req: 'req', res: 'res', next: 'next') => 1)).toEqualTypeOf<(req: 'req', res: 'res', next: 'next') => number>();
expectTypeOf<PoolRefusalFilter['catch']>().parameters.toEqualTypeOf<[PoolSaturatedError | PoolClosedError, RefusalHost]>();
expectTypeOf<PoolRefusalFilter['catch']>().returns.toEqualTypeOf<void>();
