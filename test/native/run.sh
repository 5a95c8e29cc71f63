#!/usr/bin/env bash
# Plain-C tests: the pool and its priority 'auto' under ThreadSanitizer,
# AddressSanitizer and UBSan (and a normal build), its POSIX OS seam
# (os.mk), the scheduler's parts, its simulation and the overload scenarios
# on a virtual clock (sched.mk) and the simulation's planted faults
# (mutants.sh), the Argon2/BLAKE2b, bcrypt, PBKDF2 and
# scrypt cores and our SHA layer under ASan and UBSan. PBKDF2 and scrypt
# link OpenSSL (-lcrypto).
# --quick: plain builds only.
#
# Each make line below is one job (its own binaries under build/native, one
# compiler process, then the test): they are listed first, then run
# NATIVE_JOBS at a time (default 2; 1 runs them in order). Each job's output
# is printed whole when it ends, after its "== make ..." line. The first
# failure starts no further job, waits for the running ones and exits
# non-zero, naming it. A job still running after NATIVE_JOB_TIMEOUT seconds
# (default 900, some 30 times the longest) is a hang: it is ended and fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

# --quick (npm test's inner loop): the plain builds only; sanitizer builds
# and the arm64 cross builds are left to the whole chain (npm run test:all).
quick=0
[ "${1:-}" = "--quick" ] && quick=1
NATIVE_JOBS=${NATIVE_JOBS:-2}

jobs_list=()
run() {
  if [ "$quick" = 1 ] && [[ "$*" == *SAN=* || "$*" == *arm64* ]]; then
    return 0
  fi
  jobs_list+=("$(printf '%q ' "$@")")
}

# Runs jobs_list, NATIVE_JOBS at a time.
run_all() {
  local logs next=0 failed="" pid rc i
  local -A running=()
  logs=$(mktemp -d "${TMPDIR:-/tmp}/kdfpool-native.XXXXXX")
  while :; do
    while [ -z "$failed" ] && [ "$next" -lt ${#jobs_list[@]} ] && [ ${#running[@]} -lt "$NATIVE_JOBS" ]; do
      (eval "timeout ${NATIVE_JOB_TIMEOUT:-900} ${jobs_list[$next]}") >"$logs/$next" 2>&1 &
      running[$!]=$next
      next=$((next + 1))
    done
    [ ${#running[@]} -gt 0 ] || break
    rc=0
    wait -n -p pid "${!running[@]}" || rc=$?
    i=${running[$pid]}
    unset "running[$pid]"
    echo "== ${jobs_list[$i]% }"
    cat "$logs/$i"
    if [ "$rc" = 124 ]; then
      echo "== FAILED: still running after ${NATIVE_JOB_TIMEOUT:-900} s, ended: ${jobs_list[$i]% }"
      failed=${failed:-${jobs_list[$i]% }}
    elif [ "$rc" != 0 ]; then
      echo "== FAILED (exit $rc): ${jobs_list[$i]% }"
      failed=${failed:-${jobs_list[$i]% }}
    fi
  done
  rm -rf "$logs"
  if [ -n "$failed" ]; then
    echo "native tests: failed: $failed" >&2
    exit 1
  fi
}

run make -s -f test/native/pool.mk
run make -s -f test/native/pool.mk SAN=thread
run make -s -f test/native/pool.mk SAN=address
run make -s -f test/native/pool.mk SAN=undefined
run make -s -f test/native/os.mk
run make -s -f test/native/os.mk SAN=address
run make -s -f test/native/os.mk SAN=undefined
# The scheduler's parts and its simulation: a few seeds in the inner loop,
# many in the whole chain (SIM_SEEDS overrides).
if [ "$quick" = 1 ]; then
  run make -s -f test/native/sched.mk SEEDS="${SIM_SEEDS:-20}"
else
  run make -s -f test/native/sched.mk SEEDS="${SIM_SEEDS:-400}"
fi
# Each property planted wrong in a copy of src/pool must fail the
# simulation (mutants.sh): whole chain only.
[ "$quick" = 1 ] || run bash test/native/mutants.sh "${SIM_SEEDS:-60}"
run make -s -f test/native/sched.mk SAN=address SEEDS="${SIM_SEEDS:-60}"
run make -s -f test/native/sched.mk SAN=undefined SEEDS="${SIM_SEEDS:-60}"
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
run make -s -f test/native/sha.mk
run make -s -f test/native/sha.mk SAN=address
run make -s -f test/native/sha.mk SAN=undefined

# The NEON variants, cross-built for arm64 and run under qemu, when this
# machine has the tools (Debian: gcc-aarch64-linux-gnu, qemu-user; scrypt
# also libssl-dev:arm64). Skipped with the reason otherwise.
arm64_links() { # $1: extra linker flags; builds a probe program for arm64
  local probe
  probe=$(mktemp)
  printf '#include <stddef.h>\nint main(void) { return 0; }\n' |
    aarch64-linux-gnu-gcc -x c - -o "$probe" $1 >/dev/null 2>&1
  local rc=$?
  rm -f "$probe"
  return $rc
}
if [ "$quick" = 1 ]; then
  echo "== quick: sanitizer and arm64 builds left to npm run test:all"
elif ! command -v qemu-aarch64 >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
  echo "== skipped arm64 NEON tests: aarch64-linux-gnu-gcc or qemu-aarch64 not installed"
elif ! arm64_links ""; then
  echo "== skipped arm64 NEON tests: aarch64-linux-gnu-gcc cannot link (libc6-dev-arm64-cross missing?)"
else
  run make -s -f test/native/argon2.mk arm64
  if arm64_links "-lcrypto"; then
    run make -s -f test/native/scrypt.mk arm64
  else
    echo "== skipped scrypt arm64: no arm64 libcrypto (libssl-dev:arm64)"
  fi
fi
run_all
echo "native tests: all passed"
