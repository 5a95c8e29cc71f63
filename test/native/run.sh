#!/usr/bin/env bash
# Plain-C tests: the pool under ThreadSanitizer, AddressSanitizer and UBSan
# (and a normal build), and the Argon2/BLAKE2b, bcrypt, PBKDF2 and scrypt
# cores under ASan and UBSan. PBKDF2 and scrypt link OpenSSL (-lcrypto).
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
run make -s -f test/native/pbkdf2.mk
run make -s -f test/native/pbkdf2.mk SAN=address
run make -s -f test/native/pbkdf2.mk SAN=undefined
run make -s -f test/native/scrypt.mk
run make -s -f test/native/scrypt.mk SAN=address
run make -s -f test/native/scrypt.mk SAN=undefined
echo "native tests: all passed"
