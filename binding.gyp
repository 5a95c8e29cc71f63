{
  "targets": [
    {
      "target_name": "kdfpool",
      "sources": [
        "src/napi/binding.c",
        "src/napi/args.c",
        "src/napi/completions.c",
        "src/napi/registry.c",
        "src/pool/pool.c",
        "src/common/status.c",
        "src/common/wipe.c",
        "src/kdf/kdf.c",
        "src/kdf/cpu.c",
        "src/kdf/openssl.c",
        "src/kdf/pbkdf2.c",
        "src/kdf/scrypt/scrypt.c",
        "src/kdf/scrypt/blockmix_portable.c",
        "src/kdf/scrypt/blockmix_sse2.c",
        "src/kdf/argon2/argon2.c",
        "src/kdf/argon2/blake2b.c",
        "src/kdf/argon2/fill_portable.c",
        "src/kdf/argon2/fill_ssse3.c",
        "src/kdf/argon2/fill_avx2.c",
        "src/kdf/argon2/fill_avx512.c",
        "src/kdf/bcrypt.c"
      ],
      "include_dirs": ["src"],
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
      "defines": ["NAPI_VERSION=8"],
      "xcode_settings": {
        "OTHER_CFLAGS": ["-std=gnu11", "-O2", "-fvisibility=hidden"]
      },
      "conditions": [
        # The pool's OS seam (src/pool/os.h): exactly one implementation.
        ["OS=='linux'", {
          "sources": ["src/pool/os_linux.c"]
        }],
        ["OS=='win'", {
          "sources": ["src/pool/os_win.c"]
        }],
        ["OS!='linux' and OS!='win'", {
          "sources": ["src/pool/os_posix.c"]
        }],
        # Node bundles OpenSSL and exports its symbols from the node binary,
        # so the addon links against nothing; a Node built against a shared
        # system OpenSSL needs -lcrypto instead.
        ["node_shared_openssl=='true'", {
          "libraries": ["-lcrypto"]
        }],
        # CI sets KDFPOOL_WERROR=1; users' compilers never get -Werror.
        ["'<!(node -p \"process.env.KDFPOOL_WERROR || ''\")'=='1'", {
          "cflags_c": ["-Werror"]
        }]
      ]
    }
  ]
}
