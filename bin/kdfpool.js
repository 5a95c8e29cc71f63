#!/usr/bin/env node
'use strict';

// npx kdfpool tune: kdf.tune() for a human (a table) or a machine (--json).
//
//   npx kdfpool tune [--algorithm argon2id] [--target-ms 250] [--concurrency N]
//                    [--max-memory 512MiB] [--json]
//
// Exit status: 0 done, 1 the measurement failed, 2 bad arguments.

const kdf = require('..');

const USAGE = `Usage: kdfpool tune [options]

Measures this machine and prints the hash() options that take about the
target time per hash with CONCURRENCY hashes at once, within the memory
budget, never below OWASP's minimums.

Options:
  --algorithm NAME     argon2id (default), argon2i, argon2d, scrypt,
                       pbkdf2-sha256, pbkdf2-sha512, bcrypt
  --target-ms N        milliseconds per hash (default 250)
  --concurrency N      hashes that run at once (default: the CPUs this
                       process may use)
  --max-memory SIZE    memory budget for all of them, bytes or with KiB,
                       MiB, GiB (default: a pool's default budget)
  --json               the result as JSON
  -h, --help           this text`;

const UNITS = { b: 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, kb: 1e3, mb: 1e6, gb: 1e9 };

class UsageError extends Error {}

function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text);
  const unit = m ? UNITS[(m[2] || 'b').toLowerCase()] : undefined;
  if (unit === undefined) throw new UsageError(`--max-memory: not a size: ${text}`);
  return Math.floor(Number(m[1]) * unit);
}

function parseInteger(flag, text) {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag}: not a whole number: ${text}`);
  return Number(text);
}

function parseArgs(argv) {
  const out = { command: undefined, options: { targetMs: 250 }, json: false, help: false };
  const flags = {
    '--algorithm': (v) => { out.options.algorithm = v; },
    '--target-ms': (v) => { out.options.targetMs = parseInteger('--target-ms', v); },
    '--concurrency': (v) => { out.options.concurrency = parseInteger('--concurrency', v); },
    '--max-memory': (v) => { out.options.maxMemory = parseSize(v); },
  };
  for (let i = 0; i < argv.length; i++) {
    if (out.command === undefined && !argv[i].startsWith('-')) {
      out.command = argv[i];
      continue;
    }
    const [name, inline] = argv[i].startsWith('--') && argv[i].includes('=') ? argv[i].split(/=(.*)/s) : [argv[i]];
    if (name === '--json') out.json = true;
    else if (name === '-h' || name === '--help') out.help = true;
    else if (Object.hasOwn(flags, name)) {
      const value = inline !== undefined ? inline : argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      flags[name](value);
    } else {
      throw new UsageError(`unknown option: ${argv[i]}`);
    }
  }
  return out;
}

function size(bytes) {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes} B`;
}

function optionsText(options) {
  const parts = Object.entries(options).map(([k, v]) => `${k}: ${typeof v === 'string' ? `'${v}'` : v}`);
  return `{ ${parts.join(', ')} }`;
}

function table(r) {
  const rows = [
    ['hash() options', optionsText(r.options)],
    ['time per hash', `${r.measuredMs.toFixed(1)} ms, ${r.ratio.toFixed(2)}x the target of ${r.targetMs} ms`],
    ['capacity', `${r.hashesPerSecond.toFixed(1)} hashes/s with ${r.concurrency} at once`],
  ];
  if (r.memoryPerHash > 0) {
    rows.push(['memory', `${size(r.memoryPerHash)} per hash, ${size(r.memoryPerHash * r.concurrency)} at once; `
      + `budget ${size(r.maxMemory)}${r.fitsBudget ? '' : ' (EXCEEDED: the minimums need more)'}`]);
  }
  rows.push(['OWASP minimums', r.minimumsBind
    ? 'BIND: the minimum takes longer than the target, so these are the minimum'
    : 'respected']);
  if (Object.keys(r.hashLimits).length > 0) {
    rows.push(['hashLimits', `${optionsText(r.hashLimits)} (verify() refuses these under the default limits: `
      + 'pass them to createPool() or configure())']);
  }
  const m = r.measured;
  rows.push(['measured on', `${m.threads} threads, priority ${m.priority}, ${r.algorithm} variant ${m.variant}, `
    + `${m.samples} hashes of ${m.candidates} candidate(s), load average ${m.loadAverage}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n');
}

async function main(argv) {
  let args;
  try {
    args = parseArgs(argv);
    if (args.help) {
      console.log(USAGE);
      return 0;
    }
    if (args.command !== 'tune') throw new UsageError(args.command === undefined ? 'no command' : `unknown command: ${args.command}`);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`kdfpool: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  let result;
  try {
    result = await kdf.tune(args.options);
  } catch (err) {
    // Argument errors carry node's codes; anything else is a failure.
    const usage = typeof err.code === 'string' && /^ERR_(INVALID_ARG|OUT_OF_RANGE)/.test(err.code);
    console.error(`kdfpool: ${err.message}`);
    return usage ? 2 : 1;
  }
  console.log(args.json ? JSON.stringify(result, null, 2) : table(result));
  return 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
  console.error(err);
  process.exitCode = 1;
});
