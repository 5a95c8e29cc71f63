{
  # The build recipe lives here, not at the package root: npm treats a root
  # binding.gyp as an implicit `node-gyp rebuild` install script, and an
  # app's lockfile does not keep "gypfile": false, so `npm ci` would compile
  # kdfpool (and fail with no compiler or --strict-allow-scripts). Paths are
  # relative to this folder; node-gyp runs here (`node-gyp -C gyp`) and
  # writes gyp/build/, where lib/native.js looks for a source build.
  #
  # kdfpool_testing=1 (`npm run build`, which passes --kdfpool_testing=1 to
  # node-gyp) compiles the test-only exports, native.testing
  # (src/napi/testing.c); the release builds (`npm run build:release`,
  # scripts/prebuild.sh) leave it at 0.
  #
  # Every build writes what it is into the binary (src/napi/build.c): the
  # package version below, the target it was compiled for, and whether
  # testing, fault or sanitizer flags were on. lib/native.js and the
  # packing scripts read that from the file.
  "variables": {
    "kdfpool_testing%": 0,
    "kdfpool_version": "<!(node -p \"require('../package.json').version\")"
  },
  "targets": [
    {
      "target_name": "kdfpool",
      "sources": [
        "../src/napi/binding.c",
        "../src/napi/args.c",
        "../src/napi/build.c",
        "../src/napi/completions.c",
        "../src/napi/env.c",
        "../src/napi/jobs.c",
        "../src/napi/record.c",
        "../src/napi/registry.c",
        "../src/pool/pool.c",
        "../src/pool/machine.c",
        "../src/pool/wake.c",
        "../src/pool/budget.c",
        "../src/pool/seek.c",
        "../src/pool/admit.c",
        "../src/pool/promise.c",
        "../src/pool/retry_seconds.c",
        "../src/pool/sched.c",
        "../src/pool/keys.c",
        "../src/pool/tree.c",
        "../src/pool/estimate.c",
        "../src/pool/deadline.c",
        "../src/pool/priority.c",
        "../src/pool/queue.c",
        "../src/pool/inbox.c",
        "../src/pool/stats.c",
        "../src/pool/batch.c",
        "../src/pool/worker.c",
        "../src/pool/hostslots.c",
        "../src/pool/arena.c",
        "../src/pool/prefault.c",
        "../src/common/status.c",
        "../src/common/siphash.c",
        "../src/common/wipe.c",
        "../src/kdf/kdf.c",
        "../src/kdf/cpu.c",
        "../src/kdf/openssl.c",
        "../src/kdf/pbkdf2.c",
        "../src/kdf/pbkdf2_digest.c",
        "../src/kdf/sha/sha.c",
        "../src/kdf/sha/sha_core.c",
        "../src/kdf/sha/sha_portable.c",
        "../src/kdf/sha/sha_x86.c",
        "../src/kdf/sha/sha_arm.c",
        "../src/kdf/scrypt/scrypt.c",
        "../src/kdf/scrypt/blockmix_portable.c",
        "../src/kdf/scrypt/blockmix_sse2.c",
        "../src/kdf/scrypt/blockmix_avx2.c",
        "../src/kdf/scrypt/blockmix_avx512.c",
        "../src/kdf/scrypt/blockmix_neon.c",
        "../src/kdf/argon2/argon2.c",
        "../src/kdf/argon2/blake2b.c",
        "../src/kdf/argon2/fill_portable.c",
        "../src/kdf/argon2/fill_ssse3.c",
        "../src/kdf/argon2/fill_avx2.c",
        "../src/kdf/argon2/fill_avx512.c",
        "../src/kdf/argon2/fill_neon.c",
        "../src/kdf/bcrypt.c"
      ],
      "include_dirs": ["../src"],
      "cflags_c": [
        "-std=gnu11",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Wcast-qual",
        "-Wformat=2",
        "-Wmissing-prototypes",
        "-fvisibility=hidden",
        "-pthread"
      ],
      "ldflags": ["-pthread"],
      "defines": ["NAPI_VERSION=8", "KDFPOOL_VERSION=\"<(kdfpool_version)\""],
      # macOS: node-gyp reads flags from here, not from cflags_c.
      "xcode_settings": {
        "OTHER_CFLAGS": ["-std=gnu11", "-O2", "-fvisibility=hidden"],
        "WARNING_CFLAGS": ["-Wall", "-Wextra", "-Wcast-qual", "-Wformat=2", "-Wmissing-prototypes"]
      },
      "conditions": [
        # The pool's OS seam (src/pool/os.h): exactly one implementation.
        ["OS=='linux'", {
          "sources": ["../src/pool/os_linux.c"]
        }],
        ["OS=='win'", {
          "sources": ["../src/pool/os_win.c"]
        }],
        ["OS!='linux' and OS!='win'", {
          "sources": ["../src/pool/os_posix.c"]
        }],
        # What every POSIX system shares (thread start, arenas, the clock),
        # and the host-slot lock files: flock() on every POSIX system.
        ["OS!='win'", {
          "sources": ["../src/pool/os_unix.c", "../src/pool/os_flock.c"]
        }],
        # No OpenSSL at link time, whatever Node was built with: the SHA
        # family is ours, and the other digests' OpenSSL functions are looked
        # up at run time in the host's global scope (src/kdf/openssl.c). A
        # Node linked against a shared libcrypto (node_shared_openssl) has it
        # in that scope too, as a dependency of the executable; Bun and Deno
        # have none, and the addon still loads. dlsym: libdl before glibc 2.34.
        ["OS=='linux'", {
          "libraries": ["-ldl"]
        }],
        # CI sets KDFPOOL_WERROR=1; users' compilers never get -Werror.
        ["'<!(node -p \"process.env.KDFPOOL_WERROR || ''\")'=='1'", {
          "cflags_c": ["-Werror"],
          "xcode_settings": { "GCC_TREAT_WARNINGS_AS_ERRORS": "YES" }
        }],
        # KDFPOOL_SANITIZE=address,undefined builds the addon under those
        # sanitizers (scripts/test-sanitized.sh); node must then be started
        # with their runtimes preloaded. Unset: no effect. -O1 comes after
        # the -O2/-O3 above, so it wins.
        ["'<!(node -p \"process.env.KDFPOOL_SANITIZE || ''\")'!=''", {
          "cflags_c": [
            "-fsanitize=<!(node -p \"process.env.KDFPOOL_SANITIZE\")",
            "-fno-omit-frame-pointer",
            "-g",
            "-O1"
          ],
          "ldflags": ["-fsanitize=<!(node -p \"process.env.KDFPOOL_SANITIZE\")"],
          "defines": ["KDFPOOL_SANITIZED=1"]
        }],
        # Test builds: native.testing (see the variable above).
        ["kdfpool_testing==1", {
          "defines": ["KDFPOOL_TESTING=1", "POOL_COUNT_STEPS=1"],
          "sources": ["../src/napi/testing.c"]
        }],
        # Fault builds (KDFPOOL_FAULTS=1 npm run build): allocation-failure
        # injection, src/common/fault.h; adds native.testing.faults.
        ["'<!(node -p \"process.env.KDFPOOL_FAULTS || ''\")'=='1'", {
          "defines": ["KDFPOOL_FAULTS=1"],
          "sources": ["../src/common/fault.c"]
        }]
      ]
    }
  ]
}
