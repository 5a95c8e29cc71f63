#!/usr/bin/env bash
# Installs what building and testing kdfpool needs on a Debian machine with
# Node >= 20, then the npm dependencies, the other Node majors and Bun and
# Deno that `npm test` runs the suites under. Idempotent: installs nothing that is
# already there. Uses apt-get (as root, or through sudo) only when a tool is
# missing: a C compiler with its sanitizer runtimes, make, Python 3 (for
# node-gyp), OpenSSL headers for the plain-C tests, clang-format (npm run
# lint checks the C style with it) and binutils' nm (a test reads the addon's
# dynamic symbols); nginx, HAProxy and Prometheus for the fleet tests.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# The plain-C PBKDF2 and scrypt tests include OpenSSL's headers and link
# -lcrypto as their oracle (the addon links no OpenSSL: it looks up the
# host's at run time).
[ -f /usr/include/openssl/evp.h ] || missing+=(libssl-dev)
command -v clang-format >/dev/null 2>&1 || missing+=(clang-format)
command -v nm >/dev/null 2>&1 || missing+=(binutils)
if command -v cc >/dev/null 2>&1; then
  # The pool's C test runs under TSan, ASan and UBSan; their runtimes come
  # with gcc's libgcc-*-dev (pulled in by build-essential).
  probe=$(mktemp -d)
  echo 'int main(void){return 0;}' > "$probe/t.c"
  for san in thread address undefined; do
    cc -fsanitize=$san "$probe/t.c" -o "$probe/t" >/dev/null 2>&1 || { missing+=(build-essential); break; }
  done
  rm -rf "$probe"
fi

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

node -e 'const [major] = process.versions.node.split(".").map(Number); if (major < 20) { console.error(`kdfpool needs Node >= 20, this is ${process.version}`); process.exit(1); }'

# Installs the dependencies, then builds the addon (the package has no
# install script: users get prebuilt binaries; a checkout builds here).
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm install --no-audit --no-fund
fi
npm run build --silent

# The engines of the fleet tests (npm run test:fleet): nginx, HAProxy and
# Prometheus with promtool, run by the tests in the foreground with their
# own configs on loopback ports. Installing them must leave no service
# running: where no policy-rc.d forbids it, one is put in place for the
# install (and removed after), so the packages' scripts start nothing.
fleet=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || fleet+=(nginx)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || fleet+=(haproxy)
command -v promtool >/dev/null 2>&1 || fleet+=(prometheus)
if [ ${#fleet[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${fleet[*]} with apt-get (no service started)"
  export DEBIAN_FRONTEND=noninteractive
  policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    policy=/usr/sbin/policy-rc.d
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
  fi
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${fleet[@]}" || { [ -z "$policy" ] || $sudo rm -f "$policy"; exit 1; }
  [ -z "$policy" ] || $sudo rm -f "$policy"
fi

# The cross compilers, qemu and wine that `npm run prebuilds` and
# `npm run smoke:cross` (both in `npm test`) need: Debian packages only.
bash scripts/setup-cross.sh

# What `npm test` runs beyond this node: the JS suite under the other
# supported Node majors (official binaries from the npm registry), and the
# smoke suite under Bun and Deno (their npm packages). Both idempotent.
bash scripts/install-nodes.sh
bash scripts/install-runtimes.sh >/dev/null
