#include "kdf/cpu.h"

#include "kdf/x86_features.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CPU_X86 1
#endif

/* The NEON variants are built for little-endian AArch64 only (the same test
 * guards them in argon2/internal.h and scrypt/internal.h). */
#if defined(__aarch64__) && defined(__ARM_NEON) && defined(__AARCH64EL__)
#define CPU_NEON 1
#endif

int kdf_cpu_has(kdf_cpu_feature f) {
  if (f == KDF_CPU_NONE) return 1;
#ifdef CPU_X86
  unsigned has = kdf_x86_features();
  switch (f) {
    case KDF_CPU_SSE2:
      return 1; /* part of the x86-64 ABI */
    case KDF_CPU_SSSE3:
      return (has & KDF_X86_SSSE3) != 0;
    case KDF_CPU_AVX2:
      return (has & KDF_X86_AVX2) != 0;
    case KDF_CPU_AVX512F:
      return (has & KDF_X86_AVX512F) != 0;
    case KDF_CPU_AVX512VL:
      return (has & KDF_X86_AVX512F) && (has & KDF_X86_AVX512VL);
    default:
      return 0;
  }
#elif defined(CPU_NEON)
  return f == KDF_CPU_NEON;
#else
  return 0;
#endif
}

static int best(const kdf_cpu_selector *s) {
  for (int i = s->count - 1; i > 0; i--)
    if (kdf_cpu_has(s->variants[i].needs)) return i;
  return 0;
}

/* Threads that race on the first use compute the same index; the atomics
 * keep that race free of undefined behaviour. */
int kdf_cpu_select(kdf_cpu_selector *s) {
  int idx = __atomic_load_n(&s->choice, __ATOMIC_RELAXED);
  if (idx < 0) {
    idx = best(s);
    __atomic_store_n(&s->choice, idx, __ATOMIC_RELAXED);
  }
  return idx;
}

int kdf_cpu_force(kdf_cpu_selector *s, const char *name) {
  if (name == NULL || strcmp(name, "auto") == 0) {
    __atomic_store_n(&s->choice, best(s), __ATOMIC_RELAXED);
    return 0;
  }
  for (int i = 0; i < s->count; i++) {
    if (strcmp(name, s->variants[i].name) != 0) continue;
    if (!kdf_cpu_has(s->variants[i].needs)) return -1;
    __atomic_store_n(&s->choice, i, __ATOMIC_RELAXED);
    return 0;
  }
  return -1;
}

double kdf_cpu_unit_ns(const kdf_cpu_unit_cost *table, const char *variant) {
  /* Runs for every job: the linker merges equal string literals, so the
   * variant's own name is usually the table's, found without strcmp. */
  for (const kdf_cpu_unit_cost *c = table; c->variant != NULL; c++)
    if (c->variant == variant) return c->ns;
  for (const kdf_cpu_unit_cost *c = table; c->variant != NULL; c++)
    if (variant != NULL && strcmp(c->variant, variant) == 0) return c->ns;
  return table[0].ns;
}

uint64_t kdf_cpu_cost_ns(double units, double ns_per_unit) {
  double ns = units * ns_per_unit;
  if (!(ns >= 1)) return 1;
  return ns >= 1e18 ? (uint64_t)1e18 : (uint64_t)ns;
}
