// Packages without types here (no @types/* installed): enough to compile
// the recipes that use them.
declare module 'express';
declare module 'passport-local' {
  export const Strategy: new (...args: any[]) => any;
}
