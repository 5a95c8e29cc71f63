'use strict';

// requiredLimits(storedHashes): the hashLimits that let verify() accept every
// one of a sample of stored hashes, found before switching to kdfpool, so a
// migration never meets HashLimitError at login time. Only the limits whose
// defaults are too small are reported: {} means the defaults accept them all.

const errors = require('../errors');
const { parseShape, decodeFields } = require('./formats');
const { DEFAULT_LIMITS } = require('./limits');
const { estimateCost } = require('./cost');

// What one parsed, decoded stored hash needs of each limit.
function needsOf(d) {
  const needs = {};
  switch (d.kind) {
    case 'argon2':
      Object.assign(needs, { argon2Memory: d.memory, argon2Passes: d.passes, argon2Lanes: d.lanes });
      break;
    case 'scrypt':
      Object.assign(needs, { scryptMemory: 128 * d.N * d.r, scryptParallelism: d.p });
      break;
    case 'pbkdf2':
      needs.pbkdf2Iterations = d.iterations;
      break;
    case 'bcrypt':
      needs.bcryptCost = d.cost;
      break;
    default:
      break;
  }
  if (d.kind !== 'bcrypt') {
    needs.saltLength = d.salt.length;
    needs.hashLength = d.hash.length;
    if (d.data !== undefined) needs.dataLength = d.data.length;
  }
  const cost = estimateCost({
    ...d,
    saltBytes: d.salt.length,
    hashBytes: d.hash.length,
    dataBytes: d.data === undefined ? 0 : d.data.length,
  });
  needs.work = Math.ceil(cost.work);
  needs.memory = cost.memory;
  // The pool's budget holds the job's memory and its output.
  needs.reserved = cost.memory === 0 ? 0 : cost.memory + d.hash.length;
  return needs;
}

/**
 * requiredLimits(storedHashes) -> { hashLimits, memoryNeeded }.
 * `storedHashes`: an iterable of stored hash strings (a sample of your
 * database: the most expensive parameters you have). `hashLimits`: the
 * limits (createPool / configure `hashLimits`, or verify's `limits`) that
 * accept them all, only those whose defaults are too small. `memoryNeeded`:
 * the most one of them reserves from the pool's budget, its memory plus
 * its output (the pool's `maxMemory` must be at least that). `work` is priced on this machine's CPU variant. A malformed
 * string throws InvalidHashError with `index`, its position in the sample.
 */
function requiredLimits(storedHashes) {
  if (storedHashes === null || typeof storedHashes !== 'object' || typeof storedHashes[Symbol.iterator] !== 'function') {
    throw errors.invalidArgType('storedHashes', 'an iterable of strings', storedHashes);
  }
  const most = {};
  let memoryNeeded = 0;
  let index = 0;
  for (const phc of storedHashes) {
    if (typeof phc !== 'string') throw errors.invalidArgType(`storedHashes[${index}]`, 'of type string', phc);
    let needs;
    try {
      needs = needsOf(decodeFields(parseShape(phc)));
    } catch (err) {
      err.index = index;
      throw err;
    }
    for (const [key, value] of Object.entries(needs)) most[key] = Math.max(most[key] || 0, value);
    memoryNeeded = Math.max(memoryNeeded, needs.reserved);
    index++;
  }
  const hashLimits = {};
  for (const key of Object.keys(DEFAULT_LIMITS)) {
    if (most[key] > DEFAULT_LIMITS[key]) hashLimits[key] = most[key];
  }
  return { hashLimits, memoryNeeded };
}

module.exports = { requiredLimits };
