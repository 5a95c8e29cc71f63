{
  "targets": [
    {
      "target_name": "kdfpool",
      "sources": [
        "src/binding.c",
        "src/pool.c",
        "src/kdf.c",
        "src/kdf_errors.c",
        "src/kdf_util.c",
        "src/kdf_pbkdf2.c",
        "src/kdf_scrypt.c",
        "src/kdf_argon2.c",
        "src/blake2b.c",
        "src/argon2_fill_portable.c",
        "src/argon2_fill_ssse3.c",
        "src/argon2_fill_avx2.c",
        "src/argon2_fill_avx512.c",
        "src/kdf_bcrypt.c"
      ],
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
