#!/usr/bin/env bash
# Installs Node.js release binaries of other major versions from the npm
# registry (the node-<os>-<arch> packages: the official binary, repackaged),
# one directory per major, for `npm run test:versions`:
#
#   ${KDFPOOL_NODES_DIR:-.tmp/nodes}/<major>/node_modules/node-<os>-<arch>/bin/node
#
#   scripts/install-nodes.sh [major ...]     (default: $KDFPOOL_NODE_MAJORS or "22 24 26")
#
# Idempotent: a major whose binary is there and runs is left as it is
# (delete its directory to update it). Prints every installed version.
# The addon is Node-API, so one build serves them all.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${KDFPOOL_NODES_DIR:-.tmp/nodes}
case $dir in /*) ;; *) dir=$root/$dir ;; esac

if [ $# -gt 0 ]; then majors=("$@"); else read -r -a majors <<< "${KDFPOOL_NODE_MAJORS:-22 24 26}"; fi

case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) echo "install-nodes: no node-<os>-<arch> package for $(uname -s)" >&2; exit 1 ;;
esac
case $(uname -m) in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "install-nodes: no node-$os-<arch> package for $(uname -m)" >&2; exit 1 ;;
esac
pkg=node-$os-$arch

# The major version a binary reports, or nothing if it does not run.
major_of() {
  "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || true
}

for major in "${majors[@]}"; do
  case $major in '' | *[!0-9]*) echo "install-nodes: not a major version: $major" >&2; exit 1 ;; esac
  bin=$dir/$major/node_modules/$pkg/bin/node
  if [ -x "$bin" ] && [ "$(major_of "$bin")" = "$major" ]; then
    continue
  fi
  echo "install-nodes: $pkg@$major -> $dir/$major"
  mkdir -p "$dir/$major"
  # --force: the package's os/cpu fields; --no-save: no package.json here.
  npm install --prefix "$dir/$major" --no-save --force --no-audit --no-fund --no-package-lock \
    --loglevel=error "$pkg@$major" >/dev/null
  if [ "$(major_of "$bin")" != "$major" ]; then
    echo "install-nodes: $bin does not run as node $major" >&2
    exit 1
  fi
done

for major in "${majors[@]}"; do
  bin=$dir/$major/node_modules/$pkg/bin/node
  echo "node $major: $("$bin" -v)  $bin"
done
