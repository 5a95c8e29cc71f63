'use strict';

// Stored hash strings (PHC, passlib's PBKDF2, bcrypt) -> a decoded
// description `d`: { kind, algorithm, ...numbers, salt, hash[, data] }.
//
// Two steps, so limits can be checked before the (possibly huge) base64
// fields are decoded: parseShape() reads the structure and the numbers (and
// keeps saltText, hashText, dataText); decodeFields() decodes salt, hash and
// data. parse() does both.

const errors = require('../errors');
const {
  MAX_UINT32, ARGON2_TYPES, ARGON2_VERSIONS, PBKDF2_IDENTS, ARGON2_MIN_SALT, ARGON2_MIN_HASH, OTHER_MIN_HASH,
} = require('./schemes');
const { decodeBase64, bcryptEncode, bcryptDecode, BCRYPT_SALT_BYTES, BCRYPT_HASH_BYTES } = require('./encoding');

const invalid = errors.invalidHash;

// A piece of a stored string as an error message shows it: quoted, control
// characters escaped and at most 32 characters, so that a hostile stored
// hash cannot write lines of its own into the logs that record the error.
function shown(text) {
  return JSON.stringify(text.length > 32 ? `${text.slice(0, 32)}…` : text);
}

// Decimal, no sign, no leading zeros, at most MAX_UINT32.
const NUMBER_RE = /^(0|[1-9][0-9]{0,9})$/;
function parseNumber(text, what) {
  if (!NUMBER_RE.test(text)) throw invalid(`${what} is not a plain decimal number`);
  const n = Number(text);
  if (n > MAX_UINT32) throw invalid(`${what} is too large`);
  return n;
}

// "a=1,b=2" -> Map, refusing empty, duplicate and unknown names.
function parseParams(text, allowed, kind) {
  const out = new Map();
  if (text.length === 0) throw invalid(`the ${kind} parameters are missing`);
  for (const item of text.split(',')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw invalid(`${shown(item)} is not a name=value parameter`);
    const name = item.slice(0, eq);
    const value = item.slice(eq + 1);
    if (!allowed.has(name)) throw invalid(`unknown ${kind} parameter ${shown(name)}`);
    if (out.has(name)) throw invalid(`duplicate ${kind} parameter ${shown(name)}`);
    out.set(name, value);
  }
  return out;
}

function requireParams(params, names, kind) {
  for (const name of names) {
    if (!params.has(name)) throw invalid(`the ${kind} parameter "${name}" is missing`);
  }
}

const ARGON2_PARAMS = new Set(['m', 't', 'p', 'keyid', 'data']);
const SCRYPT_PARAMS = new Set(['ln', 'r', 'p']);
const PBKDF2_PARAMS = new Set(['i', 'l']);

function parseShape(phc) {
  if (typeof phc !== 'string') throw errors.invalidArgType('phc', 'of type string', phc);
  if (phc.length === 0) throw invalid('the string is empty');
  if (phc.startsWith('$2')) return parseBcryptShape(phc);
  if (phc[0] !== '$') throw invalid('it does not start with "$"');
  const parts = phc.split('$');
  const id = parts[1];
  if (id in ARGON2_TYPES) return parseArgon2Shape(id, parts);
  if (id === 'scrypt') return parseScryptShape(parts);
  if (id in PBKDF2_IDENTS) return parsePbkdf2Shape(id, parts);
  throw invalid(`unsupported algorithm ${shown(id)}`);
}

function parseArgon2Shape(id, parts) {
  let version;
  let rest;
  if (parts.length === 6 && parts[2].startsWith('v=')) {
    const vt = parts[2].slice(2);
    if (!(vt in ARGON2_VERSIONS) || !NUMBER_RE.test(vt)) throw invalid(`unsupported argon2 version ${shown(vt)}`);
    version = ARGON2_VERSIONS[vt];
    rest = parts.slice(3);
  } else if (parts.length === 5 && !parts[2].startsWith('v=')) {
    version = 0x10; // the legacy form, written before the version field existed
    rest = parts.slice(2);
  } else {
    throw invalid('an argon2 string has the fields $argon2id$v=19$m=..,t=..,p=..$salt$hash');
  }
  const [paramText, saltText, hashText] = rest;
  const params = parseParams(paramText, ARGON2_PARAMS, 'argon2');
  requireParams(params, ['m', 't', 'p'], 'argon2');
  const keyIdText = params.get('keyid');
  const memory = parseNumber(params.get('m'), 'argon2 m');
  const passes = parseNumber(params.get('t'), 'argon2 t');
  const lanes = parseNumber(params.get('p'), 'argon2 p');
  if (lanes < 1 || lanes > 2 ** 24 - 1) throw invalid('argon2 p must be 1..16777215');
  if (passes < 1) throw invalid('argon2 t must be at least 1');
  if (memory < 8 * lanes) throw invalid('argon2 m must be at least 8*p');
  return {
    kind: 'argon2', algorithm: id, type: ARGON2_TYPES[id], version, memory, passes, lanes,
    keyId: keyIdText === undefined ? undefined : decodeKeyId(keyIdText), keyIdText,
    dataText: params.get('data'), saltText, hashText, adapted: false, minSalt: ARGON2_MIN_SALT, minHash: ARGON2_MIN_HASH,
  };
}

// The PHC string format's Argon2 `keyid`: "a sequence of 0 to 8 bytes,
// encoded in B64 as 0 to 11 characters", optional, its default (empty)
// meaning "no key" and never written. Read as the id's bytes, one
// character per byte (latin1), which is the id itself for the ids
// secrets.js accepts; the key is looked up when a job is built.
function decodeKeyId(text) {
  if (text.length > 11) throw invalid('argon2 keyid is longer than 8 bytes');
  const bytes = decodeBase64(text, 'argon2 keyid', false);
  return bytes.toString('latin1');
}

function parseScryptShape(parts) {
  if (parts.length !== 5) throw invalid('a scrypt string has the fields $scrypt$ln=..,r=..,p=..$salt$hash');
  const [, , paramText, saltText, hashText] = parts;
  const params = parseParams(paramText, SCRYPT_PARAMS, 'scrypt');
  requireParams(params, ['ln', 'r', 'p'], 'scrypt');
  const ln = parseNumber(params.get('ln'), 'scrypt ln');
  const r = parseNumber(params.get('r'), 'scrypt r');
  const p = parseNumber(params.get('p'), 'scrypt p');
  if (ln < 1 || ln > 63) throw invalid('scrypt ln must be 1..63');
  if (r < 1 || p < 1) throw invalid('scrypt r and p must be at least 1');
  if (r * p >= 2 ** 30) throw invalid('scrypt r*p must be below 2^30');
  if (ln >= 16 * r) throw invalid('scrypt N must be below 2^(16*r)');
  return {
    // passlib writes and reads an empty salt (its min_salt_size is 0; RFC
    // 7914's first vector is one): `$scrypt$ln=4,r=1,p=1$$<hash>`.
    kind: 'scrypt', algorithm: 'scrypt', ln, N: 2 ** ln, r, p,
    saltText, hashText, adapted: false, minSalt: 0, minHash: OTHER_MIN_HASH,
  };
}

function parsePbkdf2Shape(id, parts) {
  if (parts.length !== 5) throw invalid(`a PBKDF2 string has the fields $${id}$<iterations>$salt$hash`);
  const [, , paramText, saltText, hashText] = parts;
  const info = PBKDF2_IDENTS[id];
  let iterations;
  let length;
  let adapted;
  if (paramText.includes('=')) {
    // RustCrypto's PHC form: i=<iterations>[,l=<length>], standard base64.
    const params = parseParams(paramText, PBKDF2_PARAMS, 'PBKDF2');
    requireParams(params, ['i'], 'PBKDF2');
    iterations = parseNumber(params.get('i'), 'PBKDF2 i');
    if (params.has('l')) length = parseNumber(params.get('l'), 'PBKDF2 l');
    adapted = false;
  } else {
    // passlib: the rounds as a bare number, adapted base64, full-size hash.
    iterations = parseNumber(paramText, 'PBKDF2 rounds');
    length = info.size;
    adapted = true;
  }
  if (iterations < 1) throw invalid('PBKDF2 iterations must be at least 1');
  return {
    kind: 'pbkdf2', algorithm: info.algorithm, digest: info.digest, iterations, length,
    // passlib's form allows an empty salt (min_salt_size 0); the PHC form of
    // RustCrypto's crate does not (its salts are at least 4 characters).
    saltText, hashText, adapted, minSalt: adapted ? 0 : 1, minHash: adapted ? info.size : OTHER_MIN_HASH,
  };
}

// Whole-string shape of bcrypt; the cost range and alphabet are checked here too.
const BCRYPT_RE = /^\$2([aby])\$(0[4-9]|[12][0-9]|3[01])\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/;

/**
 * Parses a `$2a$`/`$2b$`/`$2y$` string. Returns null when it is not one
 * (the caller raises the error); otherwise { minor, cost, salt (16 bytes),
 * hash (23 bytes), saltText, hashText, canonical }, where `canonical` is
 * false when a last character carries non-zero unused bits (such a string
 * is never produced by bcrypt, and npm `bcrypt` never verifies it).
 */
function parseBcrypt(text) {
  const m = BCRYPT_RE.exec(text);
  if (m === null) return null;
  const [, minor, costText, saltText, hashText] = m;
  const salt = bcryptDecode(saltText, BCRYPT_SALT_BYTES);
  const hash = bcryptDecode(hashText, BCRYPT_HASH_BYTES);
  const canonical = bcryptEncode(salt) === saltText && bcryptEncode(hash) === hashText;
  return { minor, cost: Number(costText), salt, hash, saltText, hashText, canonical };
}

function parseBcryptShape(phc) {
  const d = parseBcrypt(phc);
  if (d === null) {
    throw invalid('a bcrypt string is $2a$, $2b$ or $2y$, a two-digit cost 04..31, "$", ' +
      'then 53 characters of ./A-Za-z0-9');
  }
  return { kind: 'bcrypt', algorithm: 'bcrypt', ...d, text: phc };
}

// Salt, hash (and argon2's data) -> bytes, with their length rules.
function decodeFields(d) {
  if (d.kind === 'bcrypt') return d; // decoded by parseBcrypt
  d.salt = d.minSalt === 0 && d.saltText === '' ? Buffer.alloc(0) : decodeBase64(d.saltText, 'salt', d.adapted);
  d.hash = decodeBase64(d.hashText, 'hash', d.adapted);
  if (d.salt.length < d.minSalt) throw invalid(`the salt must be at least ${d.minSalt} bytes`);
  if (d.hash.length < d.minHash) throw invalid(`the hash must be at least ${d.minHash} bytes`);
  if (d.kind === 'pbkdf2' && d.length !== undefined && d.hash.length !== d.length) {
    throw invalid(`the PBKDF2 hash must be ${d.length} bytes`);
  }
  if (d.dataText !== undefined) {
    d.data = decodeBase64(d.dataText, 'associated data', false);
  }
  return d;
}

function parse(phc) {
  return decodeFields(parseShape(phc));
}

module.exports = { parse, parseShape, decodeFields, parseBcrypt, parseNumber, shown };
