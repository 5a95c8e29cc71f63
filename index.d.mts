// Type definitions for kdfpool's ES module entry (lib/index.mjs): the
// declarations of the CommonJS entry (index.d.ts), so a class is one type
// whichever entry it came from, and the same default export, the module
// object with every function and class.
export * from './index.js';
import kdfpool from './index.js';
export default kdfpool;
