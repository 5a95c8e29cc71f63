/* Descriptors (FIPS 180-4 section 5.3 initial values), the run-time choice
 * of compression variant, and the streaming interface over it. */
#include "sha.h"

#include "sha_arm.h"
#include "sha_portable.h"
#include "sha_x86.h"

#include <string.h>

#if defined(KDF_SHA_HAVE_X86)
#include "../x86_features.h" /* relative: test/native/sha.mk builds sha/ alone */
#endif
#if defined(KDF_SHA_HAVE_ARM) && defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(KDF_SHA_HAVE_ARM) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include "sha_body.h"

#define IV32(a, b, c, d, e, f, g, h)  \
  {                                   \
    .w32 = { a, b, c, d, e, f, g, h } \
  }
#define IV64(a, b, c, d, e, f, g, h)  \
  {                                   \
    .w64 = { a, b, c, d, e, f, g, h } \
  }

static const kdf_sha_desc descs[KDF_SHA_ALG_COUNT] = {
  { KDF_SHA1, "sha1", KDF_SHA_CORE1, 64, 20, 5, 4,
    IV32(0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0, 0, 0, 0) },
  { KDF_SHA224, "sha224", KDF_SHA_CORE256, 64, 28, 8, 4,
    IV32(0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7,
         0xbefa4fa4) },
  { KDF_SHA256, "sha256", KDF_SHA_CORE256, 64, 32, 8, 4,
    IV32(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
         0x5be0cd19) },
  { KDF_SHA384, "sha384", KDF_SHA_CORE512, 128, 48, 8, 8,
    IV64(0xcbbb9d5dc1059ed8, 0x629a292a367cd507, 0x9159015a3070dd17, 0x152fecd8f70e5939,
         0x67332667ffc00b31, 0x8eb44a8768581511, 0xdb0c2e0d64f98fa7, 0x47b5481dbefa4fa4) },
  { KDF_SHA512, "sha512", KDF_SHA_CORE512, 128, 64, 8, 8,
    IV64(0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
         0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179) },
  { KDF_SHA512_224, "sha512-224", KDF_SHA_CORE512, 128, 28, 8, 8,
    IV64(0x8c3d37c819544da2, 0x73e1996689dcd4d6, 0x1dfab7ae32ff9c82, 0x679dd514582f9fcf,
         0x0f6d2b697bd44da8, 0x77e36f7304c48942, 0x3f9d85a86a1d36c8, 0x1112e6ad91d692a1) },
  { KDF_SHA512_256, "sha512-256", KDF_SHA_CORE512, 128, 32, 8, 8,
    IV64(0x22312194fc2bf72c, 0x9f555fa3c84c64c2, 0x2393b86b6f53b151, 0x963877195940eabd,
         0x96283ee2a88effe3, 0xbe5e1e2553863992, 0x2b0199fc2c85b8aa, 0x0eb72ddc81c52ca2) },
};

const kdf_sha_desc *kdf_sha_get(kdf_sha_alg alg) {
  if ((unsigned)alg >= KDF_SHA_ALG_COUNT) return NULL;
  return &descs[alg];
}

/* Case-insensitive, with '/' and '-' and '_' equal ("SHA512/256" is
 * OpenSSL's long name, "sha512-256" its short one). */
static int same_name(const char *a, const char *b) {
  for (;; a++, b++) {
    char x = *a, y = *b;
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (x == '/' || x == '_') x = '-';
    if (x != y) return 0;
    if (x == '\0') return 1;
  }
}

const kdf_sha_desc *kdf_sha_by_name(const char *name) {
  if (name == NULL) return NULL;
  for (size_t i = 0; i < KDF_SHA_ALG_COUNT; i++)
    if (same_name(name, descs[i].name)) return &descs[i];
  return NULL;
}

/* ---- variants ---------------------------------------------------------- */

/* How many SHA-256 chains run interleaved on SHA-NI (and so how many jobs
 * the pool batches). Measured with `build/native/sha_bench 5 lanes` on an
 * AMD EPYC (Zen 4), ns per iteration per chain: k=1 86.8, k=2 51.8, k=3
 * 44.2, k=4 42.1, against sha256rnds2's own bounds there (latency 1.13 ns,
 * reciprocal throughput 0.56 ns: 72.5 ns per iteration for one chain,
 * 36 ns per chain at best). Four is the best measured, within 17% of the
 * throughput bound; more would only add register spills. */
#define SHA256_SHANI_LANES 4

static const kdf_sha_variant portable = {
  "portable",
  { kdf_sha1_compress_portable, kdf_sha256_compress_portable, kdf_sha512_compress_portable },
  { NULL, NULL, NULL },
  { kdf_sha_lanes_serial, kdf_sha_lanes_serial, kdf_sha_lanes_serial },
  { 1, 1, 1 },
};

#ifdef KDF_SHA_HAVE_X86
/* x86 CPUs without SHA-NI are common (Intel client cores before Ice Lake):
 * bmi2, avx2 and avx512 speed up SHA-512 alone for them (rorx rounds, then
 * the message schedule in vector registers; lanes of several chains in
 * vector registers). */
static const kdf_sha_variant bmi2 = {
  "bmi2",
  { kdf_sha1_compress_portable, kdf_sha256_compress_portable, kdf_sha512_compress_bmi2 },
  { NULL, NULL, NULL },
  { kdf_sha_lanes_serial, kdf_sha_lanes_serial, kdf_sha_lanes_serial },
  { 1, 1, 1 },
};

static const kdf_sha_variant avx2 = {
  "avx2",
  { kdf_sha1_compress_portable, kdf_sha256_compress_portable, kdf_sha512_compress_avx2 },
  { NULL, NULL, NULL },
  { kdf_sha_lanes_serial, kdf_sha_lanes_serial, kdf_sha512_lanes_avx2 },
  { 1, 1, 4 },
};

static const kdf_sha_variant avx512 = {
  "avx512",
  { kdf_sha1_compress_portable, kdf_sha256_compress_portable, kdf_sha512_compress_avx512 },
  { NULL, NULL, NULL },
  { kdf_sha_lanes_serial, kdf_sha_lanes_serial, kdf_sha512_lanes_avx512 },
  { 1, 1, 8 },
};

static const kdf_sha_variant shani = {
  "shani",
  { kdf_sha1_compress_shani, kdf_sha256_compress_shani, kdf_sha512_compress_avx2 },
  { kdf_sha1_compress_shani_x2, kdf_sha256_compress_shani_x2, NULL },
  { kdf_sha_lanes_pairs, kdf_sha256_lanes_shani, kdf_sha512_lanes_avx2 },
  { 2, SHA256_SHANI_LANES, 4 },
};

/* Ice Lake and later, Zen 4 and later. The AVX-512 used is 128-bit integer
 * work (rotates, ternary logic), which does not lower the clock; the
 * SHA-512 lanes are 512-bit. */
static const kdf_sha_variant shani_avx512 = {
  "shani-avx512",
  { kdf_sha1_compress_shani, kdf_sha256_compress_shani, kdf_sha512_compress_avx512 },
  { kdf_sha1_compress_shani_x2, kdf_sha256_compress_shani_x2, NULL },
  { kdf_sha_lanes_pairs, kdf_sha256_lanes_shani, kdf_sha512_lanes_avx512 },
  { 2, SHA256_SHANI_LANES, 8 },
};
#endif

#ifdef KDF_SHA_HAVE_ARM
static const kdf_sha_variant armce = {
  "armce",
  { kdf_sha1_compress_armce, kdf_sha256_compress_armce, kdf_sha512_compress_portable },
  { NULL, NULL, NULL },
  { kdf_sha_lanes_serial, kdf_sha_lanes_serial, kdf_sha_lanes_serial },
  { 1, 1, 1 },
};

static const kdf_sha_variant armce_sha512 = {
  "armce-sha512",
  { kdf_sha1_compress_armce, kdf_sha256_compress_armce, kdf_sha512_compress_armce },
  { NULL, NULL, NULL },
  { kdf_sha_lanes_serial, kdf_sha_lanes_serial, kdf_sha_lanes_serial },
  { 1, 1, 1 },
};
#endif

/* Best last: kdf_sha_select takes the last one the CPU supports. */
static const kdf_sha_variant *const variants[] = {
  &portable,
#ifdef KDF_SHA_HAVE_X86
  &bmi2,     &avx2,         &avx512, &shani, &shani_avx512,
#endif
#ifdef KDF_SHA_HAVE_ARM
  &armce,    &armce_sha512,
#endif
};

#define VARIANT_COUNT (sizeof variants / sizeof variants[0])

const kdf_sha_variant *const *kdf_sha_variants(size_t *count) {
  *count = VARIANT_COUNT;
  return variants;
}

#if defined(KDF_SHA_HAVE_ARM) && defined(__APPLE__)
/* A hw.optional flag of macOS: 1 or 0, or `absent` when this macOS does
 * not know the name (the hw.optional.arm.FEAT_* names start with macOS 12;
 * 11 has only hw.optional.armv8_2_sha512 among these). */
static int sysctl_flag(const char *name, int absent) {
  int v = 0;
  size_t len = sizeof v;
  if (sysctlbyname(name, &v, &len, NULL, 0) != 0) return absent;
  return v != 0;
}
#endif

int kdf_sha_supported(const kdf_sha_variant *v) {
  if (v == &portable) return 1;
#ifdef KDF_SHA_HAVE_X86
  unsigned has = kdf_x86_features();
  int has_bmi2 = (has & KDF_X86_BMI2) != 0;
  int has_avx2 = has_bmi2 && (has & KDF_X86_AVX2);
  int has_avx512 = has_avx2 && (has & KDF_X86_AVX512F) && (has & KDF_X86_AVX512VL);
  /* SSE4.1 for the pshufb/palignr/pblendw around the sha* instructions;
   * every CPU with SHA-NI has it, but a hypervisor may mask either bit.
   * The few with SHA-NI but no AVX2 (Atom cores) get "portable". */
  int has_shani = has_avx2 && (has & KDF_X86_SHA) && (has & KDF_X86_SSE41);
  if (v == &bmi2) return has_bmi2;
  if (v == &avx2) return has_avx2;
  if (v == &avx512) return has_avx512;
  if (v == &shani) return has_shani;
  if (v == &shani_avx512) return has_shani && has_avx512;
#endif
#ifdef KDF_SHA_HAVE_ARM
#if defined(__linux__)
  /* HWCAP_SHA1, HWCAP_SHA2, HWCAP_SHA512 (asm/hwcap.h), spelled out for
   * old libcs. */
  unsigned long hw = getauxval(AT_HWCAP);
  int has_ce = (hw & (1ul << 5)) != 0 && (hw & (1ul << 6)) != 0;
  int has_sha512 = (hw & (1ul << 21)) != 0;
#elif defined(__APPLE__)
  /* Every Apple arm64 CPU has SHA-1 and SHA-256 (macOS 11 names neither);
   * SHA-512 from the M1 on, but asked all the same, as a virtual machine
   * may hide it. */
  int has_ce =
      sysctl_flag("hw.optional.arm.FEAT_SHA1", 1) && sysctl_flag("hw.optional.arm.FEAT_SHA256", 1);
  int has_sha512 = sysctl_flag("hw.optional.arm.FEAT_SHA512", -1);
  if (has_sha512 < 0) has_sha512 = sysctl_flag("hw.optional.armv8_2_sha512", 0);
#else
  int has_ce = 0, has_sha512 = 0;
#endif
  if (v == &armce) return has_ce;
  if (v == &armce_sha512) return has_ce && has_sha512;
#endif
  return 0;
}

static const kdf_sha_variant *best(void) {
  for (size_t i = VARIANT_COUNT; i-- > 1;)
    if (kdf_sha_supported(variants[i])) return variants[i];
  return &portable;
}

/* NULL until first use. Threads that race on the first call all compute
 * the same pointer, so a relaxed store/load is enough (a pointer to a
 * constant table, nothing else is published through it). */
static const kdf_sha_variant *current;

static const kdf_sha_variant *load_current(void) {
#if defined(__GNUC__) || defined(__clang__)
  return __atomic_load_n(&current, __ATOMIC_RELAXED);
#else
  return current;
#endif
}

static void store_current(const kdf_sha_variant *v) {
#if defined(__GNUC__) || defined(__clang__)
  __atomic_store_n(&current, v, __ATOMIC_RELAXED);
#else
  current = v;
#endif
}

const kdf_sha_variant *kdf_sha_select(void) {
  const kdf_sha_variant *v = load_current();
  if (v == NULL) {
    v = best();
    store_current(v);
  }
  return v;
}

int kdf_sha_force(const char *name) {
  if (name == NULL || strcmp(name, "auto") == 0) {
    store_current(best());
    return 0;
  }
  for (size_t i = 0; i < VARIANT_COUNT; i++) {
    if (strcmp(name, variants[i]->name) == 0) {
      if (!kdf_sha_supported(variants[i])) return -1;
      store_current(variants[i]);
      return 0;
    }
  }
  return -1;
}

kdf_sha_compress_fn kdf_sha_compressor(const kdf_sha_desc *d) {
  return kdf_sha_select()->compress[d->core];
}

kdf_sha_lanes_fn kdf_sha_lanes(const kdf_sha_desc *d, size_t *count) {
  const kdf_sha_variant *v = kdf_sha_select();
  *count = v->lane_count[d->core];
  return v->lanes[d->core];
}

/* ---- PBKDF2 lanes ---------------------------------------------------------- */

/* On the chosen variant's compressions (sha_core.c runs them). */
void kdf_sha_lanes_serial(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n) {
  kdf_sha_lanes_on(d, kdf_sha_compressor(d), lanes, k, n);
}

void kdf_sha_lanes_pairs(const kdf_sha_desc *d, kdf_sha_lane *const *lanes, size_t k, uint64_t n) {
  const kdf_sha_variant *v = kdf_sha_select();
  kdf_sha_lanes_pairs_on(d, v->compress[d->core], v->compress_x2[d->core], lanes, k, n);
}

/* ---- state <-> bytes --------------------------------------------------- */

void kdf_sha_load(const kdf_sha_desc *d, const uint8_t *in, kdf_sha_state *st) {
  memset(st, 0, sizeof *st);
  if (d->word_size == 8) {
    for (size_t i = 0; i < d->state_words; i++) st->w64[i] = kdf_sha_be64(in + 8 * i);
  } else {
    for (size_t i = 0; i < d->state_words; i++) st->w32[i] = kdf_sha_be32(in + 4 * i);
  }
}

/* ---- streaming --------------------------------------------------------- */

void kdf_sha_init(kdf_sha_ctx *c, const kdf_sha_desc *d) {
  c->desc = d;
  c->compress = kdf_sha_compressor(d);
  c->state = d->iv;
  c->bytes = 0;
  c->fill = 0;
}

void kdf_sha_update(kdf_sha_ctx *c, const void *data, size_t len) {
  const uint8_t *p = data;
  size_t bs = c->desc->block_size;
  if (len == 0) return;
  c->bytes += len;
  if (c->fill > 0) {
    size_t take = bs - c->fill < len ? bs - c->fill : len;
    memcpy(c->buf + c->fill, p, take);
    c->fill += take;
    p += take;
    len -= take;
    if (c->fill < bs) return;
    c->compress(&c->state, c->buf, 1);
    c->fill = 0;
  }
  if (len >= bs) {
    size_t whole = len / bs;
    c->compress(&c->state, p, whole);
    p += whole * bs;
    len -= whole * bs;
  }
  if (len > 0) {
    memcpy(c->buf, p, len);
    c->fill = len;
  }
}

void kdf_sha_finish(kdf_sha_ctx *c) {
  size_t bs = c->desc->block_size;
  /* The length field is 8 bytes (SHA-1/256) or 16 (SHA-512); the high 8
   * bytes of the latter stay zero, as c->bytes cannot reach 2^61. */
  size_t lenfield = bs == 128 ? 16 : 8;
  c->buf[c->fill++] = 0x80;
  if (c->fill > bs - lenfield) {
    memset(c->buf + c->fill, 0, bs - c->fill);
    c->compress(&c->state, c->buf, 1);
    c->fill = 0;
  }
  memset(c->buf + c->fill, 0, bs - 8 - c->fill);
  kdf_sha_put64(c->buf + bs - 8, c->bytes << 3);
  c->compress(&c->state, c->buf, 1);
  kdf_sha_wipe(c->buf, sizeof c->buf);
  c->fill = 0;
}

void kdf_sha_final(kdf_sha_ctx *c, uint8_t *out) {
  kdf_sha_finish(c);
  kdf_sha_store(c->desc, &c->state, out);
  kdf_sha_wipe(c, sizeof *c);
}

void kdf_sha_digest(const kdf_sha_desc *d, const void *data, size_t len, uint8_t *out) {
  kdf_sha_ctx c;
  kdf_sha_init(&c, d);
  kdf_sha_update(&c, data, len);
  kdf_sha_final(&c, out);
}
