#!/usr/bin/env bash
# Installs, from Debian's registry only, what `npm run prebuilds` (all five
# prebuilt binaries) and `npm run smoke:cross` (running them) need on a
# Debian 12 x64 machine. Idempotent: apt runs only for what is missing.
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
set -euo pipefail

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
