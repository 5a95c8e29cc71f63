#!/usr/bin/env bash
# npm run test:sanitized: the whole node:test suite against the addon built
# with AddressSanitizer and UndefinedBehaviorSanitizer (and, when the build
# knows it, fault injection: KDFPOOL_FAULTS=1). node itself is not
# instrumented, so the sanitizer runtimes are preloaded into it; every child
# process the tests start inherits them. Fails on any sanitizer report, in
# any process: reports go to files (log_path) that are checked at the end,
# and the output is scanned as well. The normal addon is always rebuilt
# afterwards, whatever happened: the build that was in gyp/build is put
# aside first and moved back (a plain test build, as `npm run build` leaves
# it), or, when there was none, `npm run build` makes one.
#
# Two test files run at a time (KDFPOOL_SANITIZED_CONCURRENCY, default 2),
# as in test:js: most of a file's time is spent waiting on children and
# timers.
#
# KDFPOOL_TEST_SCALE (default here 0.25): the heaviest tests scale their
# iteration counts by it (see test/helpers/scale.js), so the sanitized run
# stays within minutes; nothing is skipped for time. The time-boxed soak and
# fuzz targets get 10 s and 5 s each here (20 s and 9 s in test:js), to keep
# CI within its budget (docs/testing.md); KDFPOOL_SOAK_SECONDS /
# KDFPOOL_FUZZ_SECONDS override.
set -uo pipefail
cd "$(dirname "$0")/.."

# Not run here, and why.
EXCLUDED=(
  "test/package.test.js: packs a prebuild of its own (prebuildify, npm pack, installs with node-gyp) and tests that, not this build; the compilers and npm it runs would also run under the preloaded sanitizers"
  "test/prebuilds.test.js: runs scripts/prebuild.sh (compilers, not this build) and reads the binaries it makes"
  "test/types.test.js: tsc over the declarations; no native code runs"
  "test/types-cjs.test.js: tsc over a TypeScript app; no native code runs"
  "test/types-package.test.js: attw over the packed tarball; no native code runs"
  "test/bundlers.test.js: esbuild's output; the native code it loads runs in every other file"
)

# The build in gyp/build before this run, kept here when it is a plain test
# build (what `npm run build` makes; build-dev.sh reads the same markers).
SAVED=gyp/build.before-sanitized
rm -rf "$SAVED"
if [ -f gyp/build/Release/kdfpool.node ] && [ -f gyp/build/kdfpool.target.mk ] &&
  grep -q '"kdfpool_testing": "1"' gyp/build/config.gypi 2>/dev/null &&
  ! grep -qE -- '-fsanitize|KDFPOOL_FAULTS' gyp/build/kdfpool.target.mk; then
  mv gyp/build "$SAVED"
fi

restore() {
  local rc=$?
  if [ -d "$SAVED" ]; then
    echo "== test:sanitized: moving the normal addon's build back"
    rm -rf gyp/build && mv "$SAVED" gyp/build && exit "$rc"
  fi
  echo "== test:sanitized: rebuilding the normal addon"
  if ! env -u KDFPOOL_SANITIZE -u KDFPOOL_FAULTS -u LD_PRELOAD npm run build --silent >/dev/null; then
    echo "test:sanitized: rebuilding the normal addon FAILED" >&2
    rc=1
  fi
  exit "$rc"
}
trap restore EXIT

echo "== test:sanitized: building the addon with -fsanitize=address,undefined"
KDFPOOL_SANITIZE=address,undefined KDFPOOL_FAULTS=1 npm run build --silent >/dev/null || exit 1

files=()
for f in test/*.test.js; do
  skip=
  for e in "${EXCLUDED[@]}"; do [[ "$e" == "$f:"* ]] && skip=1; done
  [[ -z "$skip" ]] && files+=("$f")
done
for e in "${EXCLUDED[@]}"; do echo "   excluded ${e%%:*} (${e#*: })"; done

# ASan holds freed memory in a quarantine of up to QUARANTINE_MB before
# reusing it. RSS follows that (and shadow memory, and allocator caches),
# not what is in use, so the soak does not bound RSS here (CI saw 287 ->
# 694 MiB in 10 s with no leak); it bounds the malloc'ed bytes still live
# once drained instead (native.testing.sanitizerHeapBytes: 3.8 MiB at warm-up,
# 2.9 MiB after 11,850 jobs in 30 s), which only this build can read. That
# bound is coarse (MiB over thousands of jobs); the fine one is the fault
# build's: the addon's own live bytes between two drained points, at most
# 32 B/job, so a leak of 64 B/job fails (test/soak.test.js proves it by
# injecting one).
QUARANTINE_MB=256
logdir=$(mktemp -d "${TMPDIR:-/tmp}/kdfpool-san.XXXXXX")
out="$logdir/output.txt"
start=$SECONDS
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:detect_stack_use_after_return=0:allocator_may_return_null=1:quarantine_size_mb=$QUARANTINE_MB:log_path=$logdir/asan" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logdir/ubsan" \
  KDFPOOL_SOAK_RSS_SLACK_MB=none \
  KDFPOOL_TEST_SCALE="${KDFPOOL_TEST_SCALE:-0.25}" \
  KDFPOOL_SOAK_SECONDS="${KDFPOOL_SOAK_SECONDS:-10}" \
  KDFPOOL_FUZZ_SECONDS="${KDFPOOL_FUZZ_SECONDS:-5}" \
  node --test --test-reporter=spec --test-concurrency="${KDFPOOL_SANITIZED_CONCURRENCY:-2}" "${files[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
elapsed=$((SECONDS - start))

reports=$(find "$logdir" -name 'asan.*' -o -name 'ubsan.*' | sort)
if [[ -n "$reports" ]]; then
  echo "test:sanitized: sanitizer reports:" >&2
  for r in $reports; do echo "--- $r" >&2; cat "$r" >&2; done
  rc=1
fi
if grep -qE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:' "$out"; then
  echo "test:sanitized: sanitizer report in the output (see above)" >&2
  rc=1
fi
echo "== test:sanitized: ${#files[@]} files in ${elapsed}s, exit $rc, $(echo -n "$reports" | grep -c . || true) sanitizer reports"
rm -rf "$logdir"
exit "$rc"
