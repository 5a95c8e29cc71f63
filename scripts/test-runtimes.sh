#!/usr/bin/env bash
# npm run test:runtimes: the smoke suite (test/smoke/runtime-smoke.js) under
# node, Bun and Deno, after installing Bun and Deno from npm if needed
# (scripts/install-runtimes.sh). Builds nothing: run `npm run build` first.
# Runs all three, prints one summary line each, exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

SMOKE=test/smoke/runtime-smoke.js
mapfile -t bins < <(bash scripts/install-runtimes.sh) || exit 1
BUN=${bins[0]}
DENO=${bins[1]}

status=0
summary=()
run() {
  local name=$1
  shift
  echo "== $name: $*"
  "$@"
  local rc=$?
  summary+=("$name: exit $rc")
  [ $rc -eq 0 ] || status=1
}

run node node "$SMOKE"
run bun "$BUN" "$SMOKE"
# Deno: --allow-ffi to load a Node-API addon, --allow-read for the package,
# --allow-env for process.env, --allow-run for the exit-with-jobs child.
run deno "$DENO" run --allow-read --allow-env --allow-ffi --allow-run "$SMOKE"

printf '%s\n' "${summary[@]}"
exit $status
