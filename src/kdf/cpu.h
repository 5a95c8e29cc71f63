/* The one place that picks a CPU variant of an algorithm's hot loop
 * (Argon2's block fill, scrypt's BlockMix) at run time, and the one switch
 * that tests use to force each variant on one machine.
 *
 * An algorithm lists its variants from slowest to fastest, each with the
 * CPU feature it needs; the selector picks the fastest this CPU has, once,
 * on first use. Forcing is for tests and benches: it is not synchronized
 * with running jobs (force before hashing). */
#ifndef KDF_CPU_H
#define KDF_CPU_H

#include <stdint.h>

/* Features a variant may need. KDF_CPU_NONE: portable C, always there. */
typedef enum {
  KDF_CPU_NONE = 0,
  KDF_CPU_SSE2,
  KDF_CPU_SSSE3,
  KDF_CPU_AVX2,
  KDF_CPU_AVX512F,
  KDF_CPU_AVX512VL, /* AVX-512F with the 128/256-bit forms (VL) */
  KDF_CPU_NEON      /* AArch64 Advanced SIMD: part of the ABI there */
} kdf_cpu_feature;

/* Non-zero if this build has code for `f` and this CPU runs it. */
int kdf_cpu_has(kdf_cpu_feature f);

typedef struct {
  const char *name; /* "portable", "sse2", "avx2", ...: what tests force */
  kdf_cpu_feature needs;
} kdf_cpu_variant;

typedef struct {
  const kdf_cpu_variant *variants; /* slowest first; [0] needs nothing */
  int count;
  int choice; /* -1 until first use; then an index, read and written atomically */
} kdf_cpu_selector;

/* The chosen variant's index into `variants`. */
int kdf_cpu_select(kdf_cpu_selector *s);

/* Predicted costs. A job's expected run time is its units of work (an
 * algorithm's own: iterations, blocks, rounds) times the nanoseconds one
 * unit takes on the variant that runs, when the pool is saturated (batches
 * formed): the figures bench/calibrate.js measures. The pool uses them for
 * fair shares and retry hints until its own observed run times scale them. */
typedef struct {
  const char *variant; /* a variant's name; NULL ends the table */
  double ns;
} kdf_cpu_unit_cost;

/* ns per unit for `variant` in a NULL-ended table; a variant it does not
 * list takes the table's first entry (the portable figure: never too low). */
double kdf_cpu_unit_ns(const kdf_cpu_unit_cost *table, const char *variant);

/* units * ns, as whole ns, saturating; 0 units cost 1 ns. */
uint64_t kdf_cpu_cost_ns(double units, double ns_per_unit);

/* Forces the variant called `name`; NULL or "auto" goes back to the best
 * one. Returns 0, or -1 (choice unchanged) when the name is unknown or the
 * CPU lacks what it needs. */
int kdf_cpu_force(kdf_cpu_selector *s, const char *name);

#endif
