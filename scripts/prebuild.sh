#!/usr/bin/env bash
# npm run prebuilds: builds every prebuilt binary the package ships, from this
# (Debian x64) machine, with cross toolchains (scripts/setup-cross.sh installs
# them):
#
#   prebuilds/linux-x64/node.napi.glibc.node    zig cc, glibc 2.28
#   prebuilds/linux-x64/node.napi.musl.node     musl-gcc
#   prebuilds/linux-arm64/node.napi.glibc.node  zig cc, glibc 2.28
#   prebuilds/linux-arm64/node.napi.musl.node   aarch64-linux-musl-gcc
#   prebuilds/win32-x64/node.napi.node          x86_64-w64-mingw32-gcc
#   prebuilds/darwin-x64/node.napi.node         zig cc, macOS 10.15
#   prebuilds/darwin-arm64/node.napi.node       zig cc, macOS 11.0
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
#   scripts/prebuild.sh [target...]   targets: linux-x64-glibc linux-x64-musl
#                                     linux-arm64-glibc linux-arm64-musl win32-x64
#                                     darwin-x64 darwin-arm64
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ALL=(linux-x64-glibc linux-x64-musl linux-arm64-glibc linux-arm64-musl win32-x64 darwin-x64 darwin-arm64)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")

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
  local target=$1 os arch cc strip dir file zig_target= driver=()
  case "$target" in
    linux-x64-glibc) os=linux arch=x64 cc=$ZIG strip=strip file=node.napi.glibc.node zig_target=x86_64-linux-gnu.2.28 ;;
    linux-x64-musl) os=linux arch=x64 cc=musl-gcc strip=strip file=node.napi.musl.node ;;
    linux-arm64-glibc) os=linux arch=arm64 cc=$ZIG strip=aarch64-linux-gnu-strip file=node.napi.glibc.node zig_target=aarch64-linux-gnu.2.28 ;;
    linux-arm64-musl) os=linux arch=arm64 cc=aarch64-linux-musl-gcc strip=aarch64-linux-gnu-strip file=node.napi.musl.node ;;
    win32-x64) os=win arch=x64 cc=x86_64-w64-mingw32-gcc strip=x86_64-w64-mingw32-strip file=node.napi.node ;;
    # Node's own minimums: macOS 10.15 on x64, 11.0 (the first) on arm64.
    darwin-x64) os=mac arch=x64 cc=$ZIG strip= file=node.napi.node zig_target=x86_64-macos.10.15 ;;
    darwin-arm64) os=mac arch=arm64 cc=$ZIG strip= file=node.napi.node zig_target=aarch64-macos.11.0 ;;
    *) echo "prebuild: unknown target $target (one of ${ALL[*]})" >&2; exit 1 ;;
  esac
  command -v "$cc" >/dev/null || { echo "prebuild: $cc missing; run scripts/setup-cross.sh" >&2; exit 1; }
  # zig's clang: at the target's baseline CPU (never this machine's) and
  # without the UBSan traps zig cc adds to what it takes for debug builds.
  [ -z "$zig_target" ] || driver=(cc -target "$zig_target" -mcpu=baseline -fno-sanitize=all)
  local SOURCES CFLAGS DEFINES INCLUDES LDFLAGS
  eval "$(python3 scripts/gyp-flags.py "$os" "$arch")"
  local platform=${target%-glibc}
  platform=${platform%-musl}
  dir=prebuilds/$platform
  mkdir -p "$dir"
  # Kept when newer than every source, the recipe and these scripts (the
  # rule scripts/pack-check.js applies), unless PREBUILD_FORCE=1: the test
  # chain builds them once (package.test.js), and `npm run prebuilds` after
  # it then costs nothing.
  if [ -z "${PREBUILD_FORCE:-}" ] && [ -f "$dir/$file" ] &&
    [ -z "$(find src gyp/binding.gyp scripts/prebuild.sh scripts/gyp-flags.py -newer "$dir/$file" -print -quit)" ]; then
    echo "prebuild: $target is up to date ($dir/$file; PREBUILD_FORCE=1 rebuilds it)"
    return 0
  fi
  local obj=build/prebuild/$target
  rm -rf "$obj"
  echo "prebuild: $target ($cc, ${#SOURCES[@]} sources) -> $dir/$file"

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
    "$cc" -shared -o "$dir/$file" "$obj"/*.o "$obj/node.lib" -static-libgcc \
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
      -fstrip -fallow-shlib-undefined -femit-bin="$dir/$file" "$obj"/*.o
  else
    compile "$obj" "$cc" "${driver[@]}" -fPIC "${CFLAGS[@]}" "${DEFINES[@]}" "${INCLUDES[@]}" -I"$NODE_INCLUDE" -- "${SOURCES[@]}"
    # Node-API and OpenSSL symbols stay undefined: node provides them.
    "$cc" "${driver[@]}" -shared -fPIC -o "$dir/$file" "$obj"/*.o "${LDFLAGS[@]}"
  fi
  [ -z "$strip" ] || "$strip" --strip-unneeded "$dir/$file"
}

for t in "${TARGETS[@]}"; do build "$t"; done
ls -l prebuilds/*/
