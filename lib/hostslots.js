'use strict';

// The `hostSlots: { key, slots }` pool option: every pool on the host with
// the same key shares `slots` running jobs. This module checks the option
// and makes the directory whose lock files hold the slots; the locking is
// native (src/pool/hostslots.c). The directory:
//   $XDG_RUNTIME_DIR (per user, in memory, made by the login manager) if set
//   and writable, else os.tmpdir();
//   in it kdfpool-<uid>-<first 32 hex of SHA-256(key)>: the key never becomes
//   part of a path (no traversal, any characters), and the uid keeps users
//   apart in a shared /tmp;
//   owner-only (0700), ours, and not a link: a directory another user could
//   write to would let them hold our slots or plant links, so it is refused
//   (the name is predictable: another local user may make it first, and
//   then hostSlots refuses rather than share it). Checked here, with a
//   message for each case, and again natively on the handle every lock file
//   is then opened through (os_dir_open in src/pool/os.h), so that the
//   directory checked is the one used. Windows has no uid or mode bits: a
//   directory, not a link or junction, is what is checked there; the
//   per-user temporary folder's ACL keeps other users out.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createHash } = require('node:crypto');
const errors = require('./errors');
const v = require('./validate');

const KEYS = ['key', 'slots'];
const MAX_KEY_BYTES = 256; // POOL_HOST_KEY_MAX in src/pool/pool.h
const MAX_SLOTS = 1024; // POOL_MAX_HOST_SLOTS

function runtimeDir() {
  const xdg = process.env.XDG_RUNTIME_DIR;
  if (xdg && path.isAbsolute(xdg)) {
    try {
      fs.accessSync(xdg, fs.constants.W_OK | fs.constants.X_OK);
      return xdg;
    } catch {
      // Set but unusable (a stale session's value): the temporary directory.
    }
  }
  return os.tmpdir();
}

function dirFor(key) {
  const hash = createHash('sha256').update(key, 'utf8').digest('hex').slice(0, 32);
  const uid = typeof process.getuid === 'function' ? `${process.getuid()}-` : '';
  return path.join(runtimeDir(), `kdfpool-${uid}${hash}`);
}

// Makes `dir` (owner-only) or checks the one that is there.
function ensureDir(dir) {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (err.code !== 'EEXIST') throw errors.hostSlotsError(`cannot create ${dir}: ${err.message}`);
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) throw errors.hostSlotsError(`${dir} is not a directory (a link or a file is in its place)`);
  // Windows: no owner or mode to compare (see above).
  if (typeof process.geteuid !== 'function') return;
  if (st.uid !== process.geteuid()) {
    throw errors.hostSlotsError(`${dir} belongs to another user (uid ${st.uid}); set XDG_RUNTIME_DIR to a directory of your own to keep the slots there`);
  }
  if ((st.mode & 0o077) !== 0) {
    throw errors.hostSlotsError(`${dir} is open to other users (mode ${(st.mode & 0o777).toString(8)}); it must be 700`);
  }
}

/**
 * hostSlots option -> the native options { hostDir, hostKey, hostSlots }.
 * Makes the directory (so a bad runtime directory is reported by the call
 * that sets the option).
 */
function parseHostSlots(value, where) {
  v.validateObject(value, where);
  v.refuseUnknownKeys(value, where, KEYS);
  const { key, slots } = value;
  v.validateString(key, `${where}.key`);
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes === 0 || bytes > MAX_KEY_BYTES || key.includes('\0')) {
    throw errors.invalidArgValue(`${where}.key`, key, `must be 1 to ${MAX_KEY_BYTES} bytes of UTF-8 without NUL`);
  }
  v.validateInteger(slots, `${where}.slots`, 1, MAX_SLOTS);
  const hostDir = dirFor(key);
  ensureDir(hostDir);
  return { hostDir, hostKey: key, hostSlots: slots };
}

module.exports = { parseHostSlots, dirFor, MAX_KEY_BYTES, MAX_SLOTS };
