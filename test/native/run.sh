#!/usr/bin/env bash
# Plain-C tests: the pool under ThreadSanitizer and AddressSanitizer (and a
# normal build), and the Argon2/BLAKE2b and bcrypt cores under ASan+UBSan.
# Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."

run() {
  echo "== $*"
  "$@"
}

run make -s -f test/native/pool.mk
run make -s -f test/native/pool.mk SAN=thread
run make -s -f test/native/pool.mk SAN=address
run make -s -f test/native/pool.mk SAN=undefined
run make -s -f test/native/argon2.mk
run make -s -f test/native/argon2.mk SAN=address
run make -s -f test/native/argon2.mk SAN=undefined
run make -s -f test/native/bcrypt.mk
run make -s -f test/native/bcrypt.mk SAN=address
run make -s -f test/native/bcrypt.mk SAN=undefined
run make -s -f test/native/sha.mk; run make -s -f test/native/sha.mk SAN=address; run make -s -f test/native/sha.mk SAN=undefined
echo "native tests: all passed"
