/* The x86-64 CPU features that the variant pickers (cpu.c, sha/sha.c) test:
 * CPUID's bits, and for the AVX families the operating system's consent to
 * save their registers too, as __builtin_cpu_supports does.
 *
 * Not __builtin_cpu_supports: clang's reads __cpu_model, which lives in
 * compiler-rt, and the macOS prebuild is linked without compiler-rt (see
 * scripts/prebuild.sh), so it would import __cpu_model from a host that
 * does not export it. Header-only, so that sha/ builds on its own
 * (test/native/sha.mk) with the same test. */
#ifndef KDF_X86_FEATURES_H
#define KDF_X86_FEATURES_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <stdint.h>
#if defined(__APPLE__)
#include <stddef.h>
#include <sys/sysctl.h>
#include <sys/types.h>
#endif

#define KDF_X86_SSSE3    (1u << 0)
#define KDF_X86_SSE41    (1u << 1)
#define KDF_X86_AVX2     (1u << 2)
#define KDF_X86_BMI2     (1u << 3)
#define KDF_X86_SHA      (1u << 4)
#define KDF_X86_AVX512F  (1u << 5)
#define KDF_X86_AVX512VL (1u << 6)

/* XCR0: which register states the OS saves. xgetbv in asm: the intrinsic
 * would need the whole function built for XSAVE. */
static inline uint64_t kdf_x86_xcr0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

#if defined(__APPLE__)
/* macOS turns AVX-512 state on for a thread at its first AVX-512
 * instruction, so XCR0 does not show it beforehand; the kernel says
 * instead whether it will (hw.optional.avx512f, ...). */
static inline int kdf_x86_apple_flag(const char *name) {
  int v = 0;
  size_t len = sizeof v;
  return sysctlbyname(name, &v, &len, NULL, 0) == 0 && v != 0;
}
#endif

/* KDF_X86_* bits of what this CPU runs and the OS allows. */
static inline unsigned kdf_x86_features(void) {
  unsigned a, b, c, d, out = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  if (c & (1u << 9)) out |= KDF_X86_SSSE3;
  if (c & (1u << 19)) out |= KDF_X86_SSE41;
  /* OSXSAVE (bit 27) makes xgetbv usable; AVX (bit 28). */
  int avx_state = 0, avx512_state = 0;
  if ((c & (1u << 27)) && (c & (1u << 28))) {
    uint64_t xcr0 = kdf_x86_xcr0();
    avx_state = (xcr0 & 0x6) == 0x6;                   /* XMM, YMM */
    avx512_state = avx_state && (xcr0 & 0xe0) == 0xe0; /* opmask, ZMM */
  }
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return out;
  if (b & (1u << 8)) out |= KDF_X86_BMI2;
  if (b & (1u << 29)) out |= KDF_X86_SHA;
  if (avx_state && (b & (1u << 5))) out |= KDF_X86_AVX2;
#if defined(__APPLE__)
  if (avx_state && kdf_x86_apple_flag("hw.optional.avx512f")) {
    out |= KDF_X86_AVX512F;
    if (kdf_x86_apple_flag("hw.optional.avx512vl")) out |= KDF_X86_AVX512VL;
  }
#else
  if (avx512_state && (b & (1u << 16))) {
    out |= KDF_X86_AVX512F;
    if (b & (1u << 31)) out |= KDF_X86_AVX512VL;
  }
#endif
  (void)avx512_state;
  return out;
}
#endif

#endif
