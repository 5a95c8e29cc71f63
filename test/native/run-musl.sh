#!/usr/bin/env bash
# The plain-C tests built against musl (scripts/setup-cross.sh installs it):
# x64 with musl-gcc, run here; arm64 with aarch64-linux-musl-gcc, static,
# run under qemu-aarch64. The pool, Argon2/BLAKE2b and bcrypt tests; the
# PBKDF2 and scrypt ones link the system's OpenSSL (-lcrypto), which Debian
# has for glibc only (the addon itself uses the OpenSSL inside node).
#   bash test/native/run-musl.sh [x64] [arm64]
set -euo pipefail
cd "$(dirname "$0")/../.."
ARCHES=("$@")
[ ${#ARCHES[@]} -gt 0 ] || ARCHES=(x64 arm64)
TESTS=(pool:test_pool os:test_os-linux argon2:test_argon2 bcrypt:test_bcrypt)

for arch in "${ARCHES[@]}"; do
  out=$PWD/build/native-musl-$arch
  case "$arch" in
    x64) cc=musl-gcc run=() ;;
    arm64) cc="aarch64-linux-musl-gcc -static" run=(qemu-aarch64) ;;
    *) echo "unknown arch $arch" >&2; exit 2 ;;
  esac
  for t in "${TESTS[@]}"; do
    mk=${t%%:*} bin=$out/${t##*:}
    echo "== musl $arch: $mk"
    # The makefiles pick os_linux.c from `uname -s`, so they build as here.
    make -s -f "test/native/$mk.mk" CC="$cc" OUT="$out" "$bin"
    "${run[@]}" "$bin"
  done
done
echo "musl native tests: all passed"
