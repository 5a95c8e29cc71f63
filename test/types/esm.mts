// Compiled with `tsc --noEmit` by test/types.test.js as an ES module: the
// import resolves to index.d.mts, whose names and default export are the
// CommonJS entry's own (one class is one type whichever entry it came from).
import kdf, { hash, createPool, PoolSaturatedError, type Pool, type KdfpoolError } from 'kdfpool';
import type * as cjs from './cjs-view.cjs';
import { expectTypeOf } from 'expect-type';

expectTypeOf(kdf.hash).toEqualTypeOf(hash);
expectTypeOf(kdf.createPool).toEqualTypeOf(createPool);
expectTypeOf(createPool).returns.toEqualTypeOf<Pool>();
expectTypeOf<PoolSaturatedError>().toEqualTypeOf<cjs.Saturated>();
expectTypeOf<KdfpoolError>().toEqualTypeOf<cjs.AnyError>();
expectTypeOf(kdf.PoolSaturatedError).toEqualTypeOf<typeof PoolSaturatedError>();
expectTypeOf(await hash('pw')).toEqualTypeOf<string>();
