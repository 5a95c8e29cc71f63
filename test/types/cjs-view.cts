// The CommonJS entry's types as a CommonJS file sees them (index.d.ts), for
// esm.mts to compare with what an ES module sees (index.d.mts).
import kdfpool = require('kdfpool');

export type Saturated = kdfpool.PoolSaturatedError;
export type AnyError = kdfpool.KdfpoolError;
