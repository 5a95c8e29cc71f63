/* Lane figures for scrypt's ROMix (make -f test/native/scrypt.mk bench):
 * CPU time per lane of whole derivations (N = 2^14, r = 8, p = 1) through
 * kdf_scrypt_run (one lane) and kdf_scrypt_lanes (each variant's kernel),
 * plus the lane kernels no variant uses, through ROMix alone. Thread CPU
 * time, not wall time: the machine is shared, and other processes' load
 * must not count. The best of several rounds is what the hardware can do. */
#define _GNU_SOURCE

#include "kdf/scrypt/internal.h"
#include "kdf/scrypt/scrypt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define N_LOG  14
#define R      8
#define ROUNDS 7
#define MAXL   4

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static size_t lane_bytes(void) { return (size_t)128 * R * (((size_t)1 << N_LOG) + 1 + 2); }

/* Best CPU ms per lane of n whole derivations (n == 0: kdf_scrypt_run). */
static double derive(void *mem, unsigned n) {
  uint8_t out[MAXL][64];
  kdf_scrypt_params ps[MAXL];
  const kdf_scrypt_params *pp[MAXL];
  int rc[MAXL];
  unsigned lanes = n == 0 ? 1 : n;
  for (unsigned k = 0; k < lanes; k++) {
    ps[k] = (kdf_scrypt_params){ .pwd = (const uint8_t *)"password",
                                 .pwdlen = 8,
                                 .salt = (const uint8_t *)"NaCl",
                                 .saltlen = 4,
                                 .N = (uint64_t)1 << N_LOG,
                                 .r = R,
                                 .p = 1,
                                 .out = out[k],
                                 .outlen = 64 };
    pp[k] = &ps[k];
  }
  double best = 1e30;
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = cpu_ms();
    if (n == 0) {
      if (kdf_scrypt_run(&ps[0], mem, lane_bytes(), NULL) != 0) abort();
    } else if (kdf_scrypt_lanes(pp, n, rc, mem, lane_bytes() * n, NULL) != 0) {
      abort();
    }
    double t = (cpu_ms() - t0) / lanes;
    if (t < best) best = t;
  }
  /* A figure for wrong output would be worthless. */
  static uint8_t want[64];
  static int have_want;
  if (!have_want) {
    memcpy(want, out[0], 64);
    have_want = 1;
  }
  for (unsigned k = 0; k < lanes; k++)
    if (memcmp(out[k], want, 64) != 0) {
      fprintf(stderr, "lane %u differs from the one-lane run\n", k);
      exit(1);
    }
  return best;
}

/* The same for a kernel through ROMix alone (no PBKDF2, which is ~1%). */
static double romix_only(void *mem, const scrypt_lane_kernel *kn) {
  const size_t words = 32 * R, n = (size_t)1 << N_LOG;
  uint8_t *b[MAXL];
  uint32_t *v[MAXL], *x[MAXL], *y[MAXL];
  for (unsigned k = 0; k < kn->lanes; k++) {
    uint8_t *base = (uint8_t *)mem + k * lane_bytes();
    b[k] = base;
    v[k] = (uint32_t *)(void *)(base + 128 * R);
    x[k] = v[k] + n * words;
    y[k] = x[k] + words;
  }
  double best = 1e30;
  for (int round = 0; round < ROUNDS; round++) {
    uint64_t used = 0;
    double t0 = cpu_ms();
    kdf_scrypt_romix_lanes(&kdf_scrypt_blockmix_sse2, kn, kn->lanes, b, v, x, y, R, n, NULL, &used);
    double t = (cpu_ms() - t0) / kn->lanes;
    if (t < best) best = t;
  }
  return best;
}

int main(void) {
  /* Memory as the pool's arenas get it (pool/os_unix.c): huge pages where
   * the kernel gives them, every page faulted in before timing. Random
   * reads over 16 MiB per lane miss the TLB on 4 KiB pages, so without
   * this the figures depend on where the allocator happened to put them. */
  const size_t huge = (size_t)2 << 20, len = lane_bytes() * MAXL + huge;
  uint8_t *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 1;
  void *mem = map + ((huge - (uintptr_t)map % huge) % huge);
  (void)madvise(mem, lane_bytes() * MAXL, MADV_HUGEPAGE);
  memset(mem, 1, lane_bytes() * MAXL);
  kdf_scrypt_force_variant("portable");
  const double portable = derive(mem, 0);
  kdf_scrypt_force_variant("sse2");
  const double one = derive(mem, 0);
  const double salsa = 2.0 * ((double)(1 << N_LOG)) * 2 * R;
  printf("scrypt N=2^%d r=%d p=1, CPU ms per lane (best of %d); Salsa20/8 calls per lane %.0f\n",
         N_LOG, R, ROUNDS, salsa);
  printf("%-26s %8.2f ms/lane  %6.1f ns/salsa  x%.2f\n", "sse2 one lane (run)", one,
         one * 1e6 / salsa, 1.0);
  printf("%-26s %8.2f ms/lane  %6.1f ns/salsa  x%.2f\n", "portable one lane (run)", portable,
         portable * 1e6 / salsa, one / portable);
  static const char *const names[] = { "portable", "sse2", "avx2", "avx512" };
  for (unsigned v = 0; v < sizeof names / sizeof names[0]; v++) {
    if (kdf_scrypt_force_variant(names[v]) != 0) continue;
    for (unsigned n = 1; n <= MAXL; n++) {
      double t = derive(mem, n);
      char label[64];
      snprintf(label, sizeof label, "%s lanes(%u) [width %u]", names[v], n,
               kdf_scrypt_lane_width());
      printf("%-26s %8.2f ms/lane  %6.1f ns/salsa  x%.2f\n", label, t, t * 1e6 / salsa, one / t);
    }
  }
  kdf_scrypt_force_variant("auto");
  static const struct {
    const char *name;
    const scrypt_lane_kernel *kn;
    unsigned long long needs_vl;
  } extra[] = { { "avx2 1x2 ymm (romix)", &kdf_scrypt_avx2_x2, 0 },
                { "avx512 1x2 ymm (romix)", &kdf_scrypt_avx512_x2, 1 },
                { "avx512 1x4 zmm (romix)", &kdf_scrypt_avx512_z4, 1 } };
  for (unsigned i = 0; i < sizeof extra / sizeof extra[0]; i++) {
    if (!(extra[i].needs_vl ? __builtin_cpu_supports("avx512vl") : __builtin_cpu_supports("avx2")))
      continue;
    double t = romix_only(mem, extra[i].kn);
    printf("%-26s %8.2f ms/lane  %6.1f ns/salsa  x%.2f\n", extra[i].name, t, t * 1e6 / salsa,
           one / t);
  }
  munmap(map, len);
  return 0;
}
