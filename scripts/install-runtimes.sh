#!/usr/bin/env bash
# Installs Bun and Deno from their npm binary packages (@oven/bun-linux-x64,
# @deno/linux-x64-glibc) into ${KDFPOOL_RUNTIMES_DIR:-.tmp/runtimes}, for
# `npm run test:runtimes`. Idempotent: a runtime already there, at the
# pinned version, is kept. Linux x64 glibc only (the packages are per
# platform; --force because their os/cpu fields name one).
# Prints the two binaries' paths.
set -euo pipefail
cd "$(dirname "$0")/.."

BUN_VERSION=${KDFPOOL_BUN_VERSION:-1.4.4}
DENO_VERSION=${KDFPOOL_DENO_VERSION:-2.9.6}
DIR=${KDFPOOL_RUNTIMES_DIR:-.tmp/runtimes}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

BUN_PKG=@oven/bun-linux-x64
DENO_PKG=@deno/linux-x64-glibc
BUN="$DIR/node_modules/$BUN_PKG/bin/bun"
DENO="$DIR/node_modules/$DENO_PKG/deno"

# <package> <version> <binary>: 0 if that version is installed and runs.
present() {
  local json="$DIR/node_modules/$1/package.json"
  [ -f "$json" ] && [ "$(node -p "require(process.argv[1]).version" "$json")" = "$2" ] && [ -x "$3" ]
}

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-runtimes: only linux-x64 (glibc) is scripted here" >&2; exit 1 ;;
esac

# One npm call for both: an install with --no-save prunes every package
# not in package.json, so installing them one after the other would remove
# the first.
if ! present "$BUN_PKG" "$BUN_VERSION" "$BUN" || ! present "$DENO_PKG" "$DENO_VERSION" "$DENO"; then
  [ -f "$DIR/package.json" ] || echo '{ "private": true }' > "$DIR/package.json"
  (cd "$DIR" && npm install --no-save --force --no-audit --no-fund --ignore-scripts \
    --loglevel=error "$BUN_PKG@$BUN_VERSION" "$DENO_PKG@$DENO_VERSION" >&2)
  chmod +x "$BUN" "$DENO"
fi
"$BUN" --version >/dev/null
"$DENO" --version >/dev/null

echo "$BUN"
echo "$DENO"
