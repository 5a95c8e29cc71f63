'use strict';

// An independent, deliberately lenient reading of stored-hash strings: what a
// string *means* (family, digest/variant, numeric parameters, decoded salt,
// decoded hash, decoded data). Used as the verify oracle: verify() may return
// true only for a string whose meaning equals that of a string produced from
// the same password. Lenient on purpose (Buffer's base64 decoder ignores
// trailing bits, Number() ignores leading zeros): strictness is kdfpool's job,
// the oracle only asks "could this true be a forgery?".

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BCRYPT = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function bcryptDecode(text) {
  let std = '';
  for (const c of text) {
    const i = BCRYPT.indexOf(c);
    if (i < 0) return null;
    std += STD[i];
  }
  return Buffer.from(std, 'base64');
}

function b64(text, adapted) {
  const t = adapted ? text.replace(/\./g, '+') : text;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(t)) return null;
  return Buffer.from(t, 'base64');
}

function num(text) {
  if (!/^\d+$/.test(text)) return NaN;
  return Number(text);
}

// Lenient base64 with or without padding.
function b64any(text) {
  return /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? Buffer.from(text, 'base64') : null;
}

const pbkdf2Meaning = (digest, iterations, salt, hash) => (
  salt && hash && Number.isInteger(iterations) ? { fam: `pbkdf2-${digest}`, params: { iterations }, salt, hash } : null);
const scryptMeaning = (N, r, p, salt, hash) => (
  salt && hash ? { fam: 'scrypt', params: { ln: Math.log2(N), r, p }, salt, hash } : null);

// Other frameworks' strings (lib/phc/formats/), read from their documented
// recipes: the KDF, its inputs and its output. A family that reads the
// password differently gets a name of its own (better-auth's NFKC,
// Django's bcrypt over hex(sha256)).
function foreignMeaning(s) {
  let m = /^([0-9a-fA-F]+):([0-9a-fA-F]+)$/.exec(s);
  if (m) {
    return { fam: 'scrypt-nfkc', params: { ln: 14, r: 16, p: 1 }, salt: Buffer.from(m[1], 'latin1'), hash: Buffer.from(m[2], 'hex') };
  }
  m = /^(pbkdf2_sha256|pbkdf2_sha1)\$(\d+)\$([^$]*)\$([^$]*)$/.exec(s);
  if (m) return pbkdf2Meaning(m[1].slice(7), num(m[2]), Buffer.from(m[3], 'utf8'), b64any(m[4]));
  m = /^scrypt\$(\d+)\$([^$]*)\$(\d+)\$(\d+)\$([^$]*)$/.exec(s);
  if (m) return scryptMeaning(num(m[1]), num(m[3]), num(m[4]), Buffer.from(m[2], 'utf8'), b64any(m[5]));
  if (s.startsWith('argon2$')) return meaning(s.slice('argon2'.length));
  if (s.startsWith('bcrypt$')) return meaning(s.slice('bcrypt$'.length));
  if (s.startsWith('bcrypt_sha256$')) {
    const inner = meaning(s.slice('bcrypt_sha256$'.length));
    return inner && inner.fam === 'bcrypt' ? { ...inner, fam: 'bcrypt-sha256hex' } : null;
  }
  m = /^pbkdf2:(\w+):(\d+)\$([^$]*)\$([0-9a-fA-F]*)$/.exec(s);
  if (m) return pbkdf2Meaning(m[1], num(m[2]), Buffer.from(m[3], 'utf8'), Buffer.from(m[4], 'hex'));
  m = /^scrypt:(\d+):(\d+):(\d+)\$([^$]*)\$([0-9a-fA-F]*)$/.exec(s);
  if (m) return scryptMeaning(num(m[1]), num(m[2]), num(m[3]), Buffer.from(m[4], 'utf8'), Buffer.from(m[5], 'hex'));
  m = /^\{([^}]*)\}(.*)$/s.exec(s);
  if (m) {
    const [, id, rest] = m;
    if (id === 'bcrypt' || id.startsWith('argon2')) return meaning(rest);
    if (id === 'pbkdf2' || id === 'pbkdf2@SpringSecurity_v5_8') {
      const bytes = /^[0-9a-fA-F]*$/.test(rest) ? Buffer.from(rest, 'hex') : null;
      const [digest, iterations, saltLength] = id === 'pbkdf2' ? ['sha1', 185000, 8] : ['sha256', 310000, 16];
      return bytes && pbkdf2Meaning(digest, iterations, bytes.subarray(0, saltLength), bytes.subarray(saltLength));
    }
    const f = rest.split('$');
    if (id.startsWith('scrypt') && f.length === 4 && /^[0-9a-fA-F]+$/.test(f[1])) {
      const params = parseInt(f[1], 16);
      return scryptMeaning(2 ** (params >>> 16), (params >>> 8) & 0xff, params & 0xff, b64any(f[2]), b64any(f[3]));
    }
    return null;
  }
  if (/^A[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    const bytes = Buffer.from(s, 'base64');
    if (bytes[0] === 0 && bytes.length > 17) return pbkdf2Meaning('sha1', 1000, bytes.subarray(1, 17), bytes.subarray(17));
    if (bytes[0] === 1 && bytes.length > 13) {
      const digest = ['sha1', 'sha256', 'sha512'][bytes.readUInt32BE(1)];
      const end = 13 + bytes.readUInt32BE(9);
      return digest ? pbkdf2Meaning(digest, bytes.readUInt32BE(5), bytes.subarray(13, end), bytes.subarray(end)) : null;
    }
  }
  return null;
}

/** The meaning of a stored hash, or null when this oracle cannot read it. */
function meaning(s) {
  if (typeof s !== 'string') return null;
  if (s[0] !== '$') return foreignMeaning(s);
  const m = /^\$(2[aby])\$(\d\d)\$([./A-Za-z0-9]{22})([./A-Za-z0-9]{31})$/.exec(s);
  if (m) {
    // $2a$/$2b$/$2y$ agree for passwords under 255 bytes (all ours are short).
    return { fam: 'bcrypt', params: { cost: num(m[2]) }, salt: bcryptDecode(m[3]), hash: bcryptDecode(m[4]) };
  }
  const f = s.split('$');
  if (f[0] !== '' || f.length < 4) return null;
  const id = f[1];
  const salt = f[f.length - 2];
  const hash = f[f.length - 1];
  const mid = f.slice(2, f.length - 2);
  const params = Object.create(null);
  let adapted = false;
  let fam = id;
  for (const field of mid) {
    if (/^\d+$/.test(field)) { params.iterations = num(field); adapted = true; continue; }
    for (const kv of field.split(',')) {
      const eq = kv.indexOf('=');
      if (eq < 0) return null;
      const k = kv.slice(0, eq);
      const v = kv.slice(eq + 1);
      if (k in params) return null;
      params[k] = k === 'data' ? b64(v, false) : num(v);
    }
  }
  if (/^argon2(id|i|d)$/.test(id)) {
    if (!('v' in params)) params.v = 16;
  } else if (/^pbkdf2(-sha1|-sha256|-sha512)?$/.test(id)) {
    fam = id === 'pbkdf2' ? 'pbkdf2-sha1' : id;
    if ('i' in params) { params.iterations = params.i; delete params.i; }
    delete params.l; // the hash length is the decoded hash's length
  } else if (id !== 'scrypt') {
    return null;
  }
  const saltB = b64(salt, adapted);
  const hashB = b64(hash, adapted);
  if (!saltB || !hashB) return null;
  if (params.data === null) return null;
  return { fam, params, salt: saltB, hash: hashB };
}

// scrypt and PBKDF2 take no output length as input: a shorter tag of the same
// password, salt and parameters is a prefix of the longer one. A truncated
// string therefore still proves knowledge of the password; it is no forgery.
// (Argon2 hashes the tag length into H0 and bcrypt has a fixed length.)
function prefixFamily(fam) {
  return fam === 'scrypt' || fam.startsWith('pbkdf2');
}

function sameMeaning(a, b, allowPrefix = false) {
  if (!a || !b || a.fam !== b.fam) return false;
  const ka = Object.keys(a.params).sort();
  const kb = Object.keys(b.params).sort();
  if (ka.join() !== kb.join()) return false;
  for (const k of ka) {
    const x = a.params[k]; const y = b.params[k];
    if (Buffer.isBuffer(x) || Buffer.isBuffer(y)) {
      if (!Buffer.isBuffer(x) || !Buffer.isBuffer(y) || !x.equals(y)) return false;
    } else if (!(x === y)) return false;
  }
  if (!a.salt.equals(b.salt)) return false;
  if (a.hash.equals(b.hash)) return true;
  if (!allowPrefix || !prefixFamily(a.fam)) return false;
  const [short, long] = a.hash.length <= b.hash.length ? [a.hash, b.hash] : [b.hash, a.hash];
  return short.length > 0 && long.subarray(0, short.length).equals(short);
}

module.exports = { meaning, sameMeaning, bcryptDecode };
