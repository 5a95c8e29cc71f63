#!/usr/bin/env bash
# npm run prebuilds: builds every prebuilt binary the package ships, from this
# (Debian x64) machine, with cross toolchains (scripts/setup-cross.sh installs
# them). The targets are scripts/prebuild-targets.json, the one list every
# script and test reads: per target its file, its compiler ("zig" is $ZIG;
# zigTarget its -target, with the glibc or macOS floor) and its strip:
#
#   linux-x64-glibc, linux-arm64-glibc   zig cc, glibc 2.28
#   linux-x64-musl, linux-arm64-musl     musl-gcc, aarch64-linux-musl-gcc
#   win32-x64                            x86_64-w64-mingw32-gcc
#   darwin-x64, darwin-arm64             zig cc, macOS 10.15 / 11.0
#
# A prebuild is a release build: with KDFPOOL_SANITIZE or KDFPOOL_FAULTS in
# the environment (which gyp/binding.gyp would obey) it refuses to start,
# and each binary it keeps or writes must pass scripts/pack-check.js, which
# reads the binary's own build marker: a release build (no testing, fault
# or sanitizer flags) of this version for its target, newer than its
# sources.
#
# zig (its clang, with every target's libc headers and link stubs) builds
# the binaries whose floor is not this machine's: glibc 2.28 (Node 20's own
# floor; Debian's gcc would link against this machine's 2.36 symbol
# versions) and macOS at Node's minimums. docs/design.md says why this zig.
#
# (Not named `prebuild`: npm would run that before every `npm run build`,
# including the from-source build in a user's node_modules.)
# Names follow node-gyp-build's tags: `napi` (any Node with Node-API 8) and
# `glibc`/`musl` (LIBC=musl, or /etc/alpine-release, selects musl).
# Sources, warnings and defines come from gyp/binding.gyp (scripts/gyp-flags.py),
# so there is one list; Node-API and OpenSSL headers from the running node's
# include/node. Each binary links only its platform's C library (Windows:
# node.exe, KERNEL32, msvcrt; winpthreads and libgcc static; macOS:
# libSystem, Node-API left to the host at load); test/prebuilds.test.js
# checks that with readelf/objdump and a Mach-O reader.
#
#   scripts/prebuild.sh [target...]   (default: every target of the list)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

LIST=scripts/prebuild-targets.json
mapfile -t ALL < <(node -e 'console.log(Object.keys(require(process.argv[1])).join("\n"))' "$ROOT/$LIST")
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
for flag in KDFPOOL_SANITIZE KDFPOOL_FAULTS; do
  if [ -n "${!flag:-}" ]; then
    echo "prebuild: $flag is set: a prebuilt binary is a release build; unset it (env -u $flag npm run prebuilds)" >&2
    exit 1
  fi
done

NODE_INCLUDE=${NODE_INCLUDE:-$(node -p "require('path').resolve(process.execPath, '../../include/node')")}
[ -f "$NODE_INCLUDE/node_api.h" ] || { echo "prebuild: no node_api.h in $NODE_INCLUDE (set NODE_INCLUDE)" >&2; exit 1; }
NAPI_DEF=$(node -p "require('path').dirname(require.resolve('node-api-headers/package.json'))")/def
JOBS=${JOBS:-2}
# scripts/setup-cross.sh installs this zig; ZIG overrides it.
ZIG=${ZIG:-$ROOT/.tmp/zig-0.12.0-dev.1286/zig}
# zig caches the libc stubs and compiler-rt it builds per target (about a
# minute each, once); .tmp/ outlives build/.
export ZIG_GLOBAL_CACHE_DIR=${ZIG_GLOBAL_CACHE_DIR:-$ROOT/.tmp/zig-cache}

# compile OUT_DIR CC FLAGS... -- SOURCES...: one object per source, $JOBS at a time.
compile() {
  local out=$1 cc=$2
  shift 2
  local flags=()
  while [ "$1" != "--" ]; do flags+=("$1"); shift; done
  shift
  mkdir -p "$out"
  printf '%s\n' "$@" | xargs -P "$JOBS" -I{} sh -c \
    'out=$1 cc=$2 src=$3; shift 3; exec "$cc" "$@" -c "$src" -o "$out/$(echo "$src" | tr / _).o"' \
    sh "$out" "$cc" {} "${flags[@]}"
}

build() {
  local target=$1 os arch cc strip dir out zig_target driver=()
  # The list's entry: file, compiler, zig target (the glibc floor, or
  # Node's own macOS minimums: 10.15 on x64, 11.0, the first, on arm64), strip.
  IFS='|' read -r out cc zig_target strip < <(node -e '
    const t = require(process.argv[1])[process.argv[2]];
    if (t) console.log([t.file, t.cc, t.zigTarget || "", t.strip || ""].join("|"));' "$ROOT/$LIST" "$target") ||
    { echo "prebuild: unknown target $target (one of ${ALL[*]})" >&2; exit 1; }
  [ "$cc" != zig ] || cc=$ZIG
  case "$target" in
    linux-*) os=linux ;;
    win32-*) os=win ;;
    darwin-*) os=mac ;;
    *) echo "prebuild: no recipe for $target's platform" >&2; exit 1 ;;
  esac
  arch=${target#*-}
  arch=${arch%%-*}
  command -v "$cc" >/dev/null || { echo "prebuild: $cc missing; run scripts/setup-cross.sh" >&2; exit 1; }
  # zig's clang: at the target's baseline CPU (never this machine's) and
  # without the UBSan traps zig cc adds to what it takes for debug builds.
  [ -z "$zig_target" ] || driver=(cc -target "$zig_target" -mcpu=baseline -fno-sanitize=all)
  local SOURCES CFLAGS DEFINES INCLUDES LDFLAGS
  eval "$(python3 scripts/gyp-flags.py "$os" "$arch")"
  dir=$(dirname "$out")
  mkdir -p "$dir"
  # Kept when scripts/pack-check.js passes it (its marker says a release
  # build of this version for this target, and it is newer than every
  # source, the recipe and these scripts), unless PREBUILD_FORCE=1: the test
  # chain builds them once (package.test.js), and `npm run prebuilds` after
  # it then costs nothing. Otherwise the check says why it is rebuilt.
  local why
  if [ -z "${PREBUILD_FORCE:-}" ] && [ -f "$out" ]; then
    if why=$(node scripts/pack-check.js --target="$target" 2>&1); then
      echo "prebuild: $target is up to date ($out; PREBUILD_FORCE=1 rebuilds it)"
      return 0
    fi
    echo "prebuild: rebuilding $target: $(grep -m1 "^  $target: " <<<"$why" | sed "s/^  $target: //")"
  fi
  local obj=build/prebuild/$target
  rm -rf "$obj"
  echo "prebuild: $target ($cc, ${#SOURCES[@]} sources) -> $out"

  if [ "$os" = win ]; then
    # mingw has no -fPIC and no ELF visibility; -pthread would pull in the
    # winpthread DLL, so the static library is named at link time instead.
    local cflags=()
    for f in "${CFLAGS[@]}"; do
      case "$f" in -fPIC | -pthread) ;; *) cflags+=("$f") ;; esac
    done
    compile "$obj" "$cc" "${cflags[@]}" "${DEFINES[@]}" "${INCLUDES[@]}" -I"$NODE_INCLUDE" -- "${SOURCES[@]}"
    # node.exe's import library: Node-API from node-api-headers' .def files,
    # plus any OpenSSL function the objects still import at load time (node.exe
    # exports its OpenSSL, as node.lib does for node-gyp on Windows).
    {
      echo "NAME NODE.EXE"
      echo "EXPORTS"
      grep -hv -e '^NAME' -e '^EXPORTS' "$NAPI_DEF/js_native_api.def" "$NAPI_DEF/node_api.def"
      x86_64-w64-mingw32-nm -u "$obj"/*.o | awk '{print $2}' \
        | grep -E '^(EVP_|ERR_|OPENSSL_|CRYPTO_|PKCS5_|OBJ_|OSSL_|HMAC|SHA[0-9]|RAND_)' | sort -u || true
    } >"$obj/node.def"
    x86_64-w64-mingw32-dlltool -d "$obj/node.def" -l "$obj/node.lib" -D node.exe
    "$cc" -shared -o "$out" "$obj"/*.o "$obj/node.lib" -static-libgcc \
      -Wl,-Bstatic -lwinpthread -Wl,-Bdynamic -Wl,--no-undefined
  elif [ "$os" = mac ]; then
    compile "$obj" "$cc" "${driver[@]}" -fPIC "${CFLAGS[@]}" "${DEFINES[@]}" "${INCLUDES[@]}" -I"$NODE_INCLUDE" -- "${SOURCES[@]}"
    # Linked by zig itself, not `zig cc`: -fno-compiler-rt leaves out zig's
    # compiler-rt, whose functions (memcpy, sin, __divti3...) `zig cc
    # -shared` links in as exported weak definitions, one of which imports
    # _availability_version_check (macOS 11 and later); libSystem has all
    # the helpers clang's code calls. -fallow-shlib-undefined leaves
    # Node-API to be looked up in the host when the binary loads, as
    # node-gyp's `-undefined dynamic_lookup` does. -fstrip: no debug info.
    "$cc" build-lib -dynamic -target "$zig_target" -mcpu=baseline -fno-compiler-rt -lc \
      -fstrip -fallow-shlib-undefined -femit-bin="$out" "$obj"/*.o
  else
    compile "$obj" "$cc" "${driver[@]}" -fPIC "${CFLAGS[@]}" "${DEFINES[@]}" "${INCLUDES[@]}" -I"$NODE_INCLUDE" -- "${SOURCES[@]}"
    # Node-API and OpenSSL symbols stay undefined: node provides them.
    "$cc" "${driver[@]}" -shared -fPIC -o "$out" "$obj"/*.o "${LDFLAGS[@]}"
  fi
  [ -z "$strip" ] || "$strip" --strip-unneeded "$out"
  # What was written, read back from the binary: never left for packing
  # unless it is a release build of this version for its target.
  if ! why=$(node scripts/pack-check.js --target="$target" 2>&1); then
    rm -f "$out"
    echo "prebuild: $target refused, removed:" >&2
    grep "^  $target: " <<<"$why" >&2
    exit 1
  fi
}

# One prebuild at a time per checkout: test:js runs two test files at once,
# and package.test.js and prebuilds.test.js both ask for the binaries. The
# second waits here, then finds each one up to date; it never sees an
# object directory removed or a binary half written under it.
mkdir -p build
exec 9>build/.prebuild.lock
flock 9

for t in "${TARGETS[@]}"; do build "$t"; done
ls -l prebuilds/*/
