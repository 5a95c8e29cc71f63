'use strict';

// Stored hashes of the frameworks teams migrate from, beside kdfpool's own
// PHC, passlib and bcrypt strings (../parse.js): the one registration
// point. Each format is a module of its own with
//   FORMAT                 its name (d.format)
//   parseShape(stored)     undefined when `stored` is not meant to be one of
//                          its strings (a cheap, anchored test); otherwise a
//                          description `d` or an InvalidHashError
//   maxLength(limits)      the longest string of it these limits accept
// A description has the `kind` of the KDF that verifies it ('pbkdf2',
// 'scrypt', 'argon2', 'bcrypt') with that kind's parameters, so the limits
// (../limits.js), the cost model (../cost.js) and the job (../api.js) treat
// it like one of ours; plus `format`. Either it is decoded already
// (`decoded`, with salt, hash, saltBytes and hashBytes), or it wraps one of
// our own strings and decodes as those do. Optional: `normalize` (the
// Unicode form its writer applied to the password), `prehash(pw)` (the
// bytes the KDF reads, made from the password's; ours to wipe).
// needsRehash() is true for every one of them: upgrade on login.

const phc = require('../parse');
const betterAuth = require('./better-auth');
const django = require('./django');
const werkzeug = require('./werkzeug');
const aspnet = require('./aspnet');
const spring = require('./spring');

const FORMATS = Object.freeze([betterAuth, django, werkzeug, aspnet, spring]);

/** parse.js's parseShape, for our strings and every registered format's. */
function parseShape(stored) {
  if (typeof stored === 'string') {
    for (const format of FORMATS) {
      const d = format.parseShape(stored);
      if (d !== undefined) return d;
    }
  }
  return phc.parseShape(stored);
}

function decodeFields(d) {
  return d.decoded === true ? d : phc.decodeFields(d);
}

function parse(stored) {
  return decodeFields(parseShape(stored));
}

/** The longest string of any registered format that `limits` accept. */
function maxForeignLength(limits, widths) {
  let max = 0;
  for (const format of FORMATS) max = Math.max(max, format.maxLength(limits, widths));
  return max;
}

/** The bytes the KDF reads for `pw` under `d` (pw itself unless d.prehash). */
function passwordInput(d, pw) {
  return d.prehash === undefined ? pw : d.prehash(pw);
}

module.exports = { parse, parseShape, decodeFields, maxForeignLength, passwordInput };
