/* Plain-C tests for scrypt (kdf/scrypt/) through its KDF contract, for
 * every BlockMix variant this CPU runs (forced through kdf/cpu.h): the
 * RFC 7914 section 12 vectors (the N = 2^20 one, 1 GiB, only with
 * KDF_SLOW=1), node:crypto's parameter checks, short scratch, and the stop
 * flag. */
#define _POSIX_C_SOURCE 200809L

#include "common/status.h"
#include "kdf/scrypt/scrypt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void check(int ok, const char *what, const char *variant) {
  if (ok) {
    passed++;
  } else {
    failed++;
    printf("FAIL: %s [%s]\n", what, variant);
  }
}

static void from_hex(const char *hex, uint8_t *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned byte;
    if (sscanf(hex + 2 * i, "%2x", &byte) != 1) abort();
    out[i] = (uint8_t)byte;
  }
}

static kdf_scrypt_params params(const char *pwd, const char *salt, uint64_t N, uint64_t r,
                                uint64_t p, uint8_t *out, size_t outlen, char *error) {
  kdf_scrypt_params sp = { .pwd = (const uint8_t *)pwd,
                           .pwdlen = strlen(pwd),
                           .salt = (const uint8_t *)salt,
                           .saltlen = strlen(salt),
                           .N = N,
                           .r = r,
                           .p = p,
                           .maxmem = (uint64_t)2 << 30,
                           .out = out,
                           .outlen = outlen,
                           .error = error,
                           .error_len = 256 };
  return sp;
}

/* prepare, then run in a buffer of exactly the size prepare asked for. */
static int derive(const kdf_scrypt_params *sp, const volatile int *stop) {
  size_t memory = 0;
  int rc = kdf_scrypt_prepare(sp, &memory);
  if (rc != 0) return rc;
  void *scratch = NULL;
  if (posix_memalign(&scratch, 64, memory) != 0) return STATUS_ENOMEM;
  rc = kdf_scrypt_run(sp, scratch, memory, stop);
  free(scratch);
  return rc;
}

static void rfc7914(const char *variant, int slow) {
  static const struct {
    const char *pwd, *salt;
    uint64_t N, r, p;
    const char *dk;
  } v[] = {
    { "", "", 16, 1, 1,
      "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
      "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906" },
    { "password", "NaCl", 1024, 8, 16,
      "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
      "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640" },
    { "pleaseletmein", "SodiumChloride", 16384, 8, 1,
      "7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2"
      "d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887" },
    { "pleaseletmein", "SodiumChloride", 1048576, 8, 1,
      "2101cb9b6a511aaeaddbbe09cf70f881ec568d574a2ffd4dabe5ee9820adaa47"
      "8e56fd8f4ba5d09ffa1c6d927c40f4c337304049e8a952fbcbf45c6fa77a41a4" },
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    if (v[i].N > 16384 && !slow) continue;
    uint8_t out[64], want[64];
    char error[256] = "", what[96];
    from_hex(v[i].dk, want, sizeof want);
    kdf_scrypt_params sp = params(v[i].pwd, v[i].salt, v[i].N, v[i].r, v[i].p, out, 64, error);
    snprintf(what, sizeof what, "RFC 7914 N=%llu r=%llu p=%llu", (unsigned long long)v[i].N,
             (unsigned long long)v[i].r, (unsigned long long)v[i].p);
    check(derive(&sp, NULL) == 0 && memcmp(out, want, 64) == 0, what, variant);
  }
}

static void parameter_checks(const char *variant) {
  uint8_t out[16];
  char error[256];
  size_t memory = 0;
  static const struct {
    uint64_t N, r, p, maxmem;
    const char *what;
  } bad[] = {
    { 3, 1, 1, 32 << 20, "N not a power of two" },
    { 1, 1, 1, 32 << 20, "N = 1" },
    { 16, 1, 0, 32 << 20, "p = 0" },
    { 1024, 8, 1, 1 << 20, "over maxmem" },
    { 65536, 1, 1, (uint64_t)1 << 40, "N >= 2^(16 r)" },
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    kdf_scrypt_params sp = params("pw", "salt", bad[i].N, bad[i].r, bad[i].p, out, 16, error);
    sp.maxmem = bad[i].maxmem;
    check(kdf_scrypt_prepare(&sp, &memory) == STATUS_EINVAL && memory == 0, bad[i].what, variant);
  }
  /* 128 r (N + p + 2): the sum OpenSSL compares with maxmem. */
  kdf_scrypt_params sp = params("pw", "salt", 1024, 8, 2, out, 16, error);
  check(kdf_scrypt_prepare(&sp, &memory) == 0 && memory == (size_t)128 * 8 * (1024 + 2 + 2),
        "memory is 128 r (N + p + 2)", variant);

  void *scratch = NULL;
  if (posix_memalign(&scratch, 64, memory) != 0) abort();
  memset(out, 0xAA, sizeof out);
  check(kdf_scrypt_run(&sp, scratch, memory - 1, NULL) == STATUS_EINVAL && out[0] == 0,
        "short scratch -> EINVAL, output zeroed", variant);
  volatile int stop = 1;
  memset(out, 0xAA, sizeof out);
  check(
      kdf_scrypt_run(&sp, scratch, memory, &stop) == STATUS_ESTOPPED && out[0] == 0 && out[15] == 0,
      "raised stop flag -> ESTOPPED, output zeroed", variant);
  free(scratch);
}

int main(void) {
  static const char *const variants[] = { "portable", "sse2" };
  const char *env = getenv("KDF_SLOW");
  int slow = env != NULL && strcmp(env, "1") == 0, ran = 0;
  printf("dispatch picks: %s\n", kdf_scrypt_variant());
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    if (kdf_scrypt_force_variant(variants[v]) != 0) {
      printf("variant %s: not available here\n", variants[v]);
      continue;
    }
    check(strcmp(kdf_scrypt_variant(), variants[v]) == 0, "force took", variants[v]);
    rfc7914(variants[v], slow);
    parameter_checks(variants[v]);
    ran++;
  }
  check(kdf_scrypt_force_variant("nonsense") == -1, "unknown variant refused", "-");
  check(kdf_scrypt_force_variant("auto") == 0, "auto restores", "-");
  check(ran >= 1, "at least the portable variant ran", "-");
  printf("scrypt: %d passed, %d failed%s\n", passed, failed, slow ? "" : " (N=2^20 skipped)");
  return failed == 0 ? 0 : 1;
}
