// A CommonJS TypeScript app, as a user writes one: compiled by
// test/types-cjs.test.js under each CommonJS setting (module node16 with
// "type": "commonjs", module commonjs with node10 resolution, with and
// without esModuleInterop), then run. It must compile and work, never
// compile and then crash.
import kdf from 'kdfpool';
import { pbkdf2Sync, PoolSaturatedError, type KdfpoolError } from 'kdfpool';
import kdfModule = require('kdfpool');

async function main(): Promise<void> {
  const key: Buffer = kdf.pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256');
  const phc: string = await kdf.hash('pw', { algorithm: 'bcrypt', cost: 4 });
  const ok: boolean = await kdf.verify(phc, 'pw');
  const refusal: KdfpoolError = new kdf.PoolSaturatedError();
  console.log(JSON.stringify({
    key: key.toString('hex'),
    named: pbkdf2Sync('pw', 'salt', 1000, 32, 'sha256').equals(key),
    ok,
    sameClass: kdf.PoolSaturatedError === PoolSaturatedError && kdfModule.PoolSaturatedError === PoolSaturatedError,
    sameDefault: kdfModule.default === kdf || kdfModule === kdf,
    instance: refusal instanceof PoolSaturatedError,
  }));
}

void main();
