#!/usr/bin/env bash
# The build of npm test and npm run test:all: incremental (node-gyp build,
# seconds) when gyp/build/ already holds the plain test build with the same
# flags; otherwise the full `npm run build` (node-gyp rebuild, 7-15 s on 2
# cores). A release, sanitized or fault build left in build/, or a change
# of KDFPOOL_WERROR, forces the full one, so neither chain tests a build of another kind. In CI
# (.ci/run) scripts/setup.sh has just built the same thing: nothing to redo.
set -euo pipefail
cd "$(dirname "$0")/.."

# An addon left in build/Release by a checkout from before the recipe moved
# to gyp/: nothing loads it any more, it only takes space.
rm -rf build/Release build/Debug

mk=gyp/build/kdfpool.target.mk
same=0
if [ -f gyp/build/config.gypi ] && [ -f "$mk" ] &&
  grep -q '"kdfpool_testing": "1"' gyp/build/config.gypi &&
  ! grep -qE -- '-fsanitize|KDFPOOL_FAULTS' "$mk" &&
  [ -z "${KDFPOOL_SANITIZE:-}${KDFPOOL_FAULTS:-}" ]; then
  if grep -q -- '-Werror' "$mk"; then configured_werror=1; else configured_werror=0; fi
  [ "${KDFPOOL_WERROR:-0}" = "$configured_werror" ] && same=1
fi

if [ "$same" = 1 ]; then
  npm run build:incremental --silent
else
  npm run build --silent
fi
