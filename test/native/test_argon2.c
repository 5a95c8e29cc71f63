/* Plain-C tests for BLAKE2b (RFC 7693) and Argon2 (RFC 9106), run against
 * every block-fill variant this CPU supports. `./test_argon2 bench` times
 * argon2id per variant instead.
 *
 * Expected values: RFC 7693 Appendix A, RFC 9106 section 5, the version 0x10
 * argon2d vector of the Argon2 reference test suite, and values computed
 * with two independent implementations (libsodium through sodium-native,
 * and the reference `argon2` command-line tool from Debian). */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "common/status.h"
#include "kdf/argon2/argon2.h"
#include "kdf/argon2/blake2b.h"
#include "kdf/argon2/internal.h"
#include "stack_probe.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t unhex(uint8_t *out, const char *hex) {
  size_t n = 0;
  for (; hex[0] && hex[1]; hex += 2) {
    unsigned v;
    sscanf(hex, "%2x", &v);
    out[n++] = (uint8_t)v;
  }
  return n;
}

static int eq_hex(const uint8_t *got, size_t len, const char *hex) {
  uint8_t want[256];
  size_t n = unhex(want, hex);
  return n == len && memcmp(got, want, len) == 0;
}

static void print_hex(const char *label, const uint8_t *p, size_t n) {
  printf("  %s: ", label);
  for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
  printf("\n");
}

/* ---- BLAKE2b ------------------------------------------------------------- */

static void seq(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)i;
}

static void test_blake2b(void) {
  uint8_t out[64];
  kdf_blake2b(out, 64, "abc", 3, NULL, 0);
  CHECK_MSG(eq_hex(out, 64,
                   "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                   "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"),
            "blake2b-512 abc (RFC 7693 appendix A) [blake2b]");

  /* outlen, keylen, msglen -> libsodium crypto_generichash, with key and
   * message the bytes 0, 1, 2, ... */
  static const struct {
    size_t outlen, keylen, msglen;
    const char *hex;
  } v[] = {
    { 64, 64, 255,
      "142709d62e28fcccd0af97fad0f8465b971e82201dc51070faa0372aa43e9248"
      "4be1c1e73ba10906d5d1853db6a4106e0a7bf9800d373d6dee2d46d62ef2a461" },
    { 20, 16, 128, "4f24fdc3dd9bca61edc96cba55ca5d188556db0b" },
    { 16, 0, 0, "cae66941d9efbd404e4d88758ea67670" },
    { 33, 64, 256, "7e193549171a20774b4e8aaf0ec53bdc2a1ce1afceba4e89495642105947a236a4" },
    { 64, 0, 3,
      "40a374727302d9a4769c17b5f409ff32f58aa24ff122d7603e4fda1509e919d4"
      "107a52c57570a6d94e50967aea573b11f86f473f537565c66f7039830a85d186" },
    { 48, 17, 129,
      "4938c038087949764e20756a305e3268a72940f8e7e0d98ced466c656f80ad62"
      "74ca9d4d5d448cdc9c15a3b33275064c" },
  };
  uint8_t key[64], msg[256];
  seq(key, sizeof key);
  seq(msg, sizeof msg);
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    char name[80];
    snprintf(name, sizeof name, "blake2b out=%zu key=%zu msg=%zu", v[i].outlen, v[i].keylen,
             v[i].msglen);
    kdf_blake2b(out, v[i].outlen, msg, v[i].msglen, v[i].keylen ? key : NULL, v[i].keylen);
    CHECK_MSG(eq_hex(out, v[i].outlen, v[i].hex), "%s [%s]", name, "one-shot");
    /* Same through update() in uneven pieces. */
    kdf_blake2b_state s;
    kdf_blake2b_init(&s, v[i].outlen, v[i].keylen ? key : NULL, v[i].keylen);
    size_t off = 0, step = 1;
    while (off < v[i].msglen) {
      size_t n = v[i].msglen - off < step ? v[i].msglen - off : step;
      kdf_blake2b_update(&s, msg + off, n);
      off += n;
      step = step * 3 + 1;
    }
    kdf_blake2b_final(&s, out);
    CHECK_MSG(eq_hex(out, v[i].outlen, v[i].hex), "%s [%s]", name, "streamed");
  }
  CHECK_MSG(kdf_blake2b(out, 0, "", 0, NULL, 0) == STATUS_EINVAL, "blake2b outlen 0 [blake2b]");
  CHECK_MSG(kdf_blake2b(out, 65, "", 0, NULL, 0) == STATUS_EINVAL, "blake2b outlen 65 [blake2b]");
  CHECK_MSG(kdf_blake2b(out, 32, "", 0, key, 65) == STATUS_EINVAL, "blake2b key 65 [blake2b]");
}

/* ---- Argon2 -------------------------------------------------------------- */

static const char *const variants[] = { "portable", "ssse3", "avx2", "avx512", "neon" };

typedef struct {
  const char *name;
  kdf_argon2_type type;
  uint32_t version, lanes, m, t;
  size_t outlen;
  int rfc; /* 1: RFC 9106 inputs; 0: password "password", salt below */
  const char *salt;
  const char *hex;
} argon2_case;

static const argon2_case cases[] = {
  /* RFC 9106 section 5. */
  { "rfc9106 argon2d", KDF_ARGON2D, 0x13, 4, 32, 3, 32, 1, NULL,
    "512b391b6f1162975371d30919734294f868e3be3984f3c1a13a4db9fabe4acb" },
  { "rfc9106 argon2i", KDF_ARGON2I, 0x13, 4, 32, 3, 32, 1, NULL,
    "c814d9d1dc7f37aa13f0d77f2494bda1c8de6b016dd388d29952a4c4672b6ce8" },
  { "rfc9106 argon2id", KDF_ARGON2ID, 0x13, 4, 32, 3, 32, 1, NULL,
    "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659" },
  /* Same inputs, version 0x10 (Argon2 reference test suite). */
  { "argon2d v0x10 rfc inputs", KDF_ARGON2D, 0x10, 4, 32, 3, 32, 1, NULL,
    "96a9d4e5a1734092c85e29f410a45914a5dd1f5cbf08b2670da68a0285abf32b" },
  /* Reference argon2 CLI, password "password", salt "somesaltsalt". */
  { "id p1 m9 t1 tag4", KDF_ARGON2ID, 0x13, 1, 9, 1, 4, 0, "somesaltsalt", "ff6713c0" },
  { "i p2 m37 t2 tag64", KDF_ARGON2I, 0x13, 2, 37, 2, 64, 0, "somesaltsalt",
    "43d1a3c52ca1e7ad3c357cfc746d57c9f55ee986a85db6620a4dc0c32813272a"
    "5ef3d3a7bcc6ad41d2c778194bb8d59ed9e501d3a37aa695e513536328796e37" },
  { "d p3 m50 t2 tag100", KDF_ARGON2D, 0x13, 3, 50, 2, 100, 0, "somesaltsalt",
    "e3652b51ccff0e0761c19fc978d4990a38e8fc5eaa93e82a916454aa8dd9baeb"
    "a08ea9f0204ef3eb89122210bb94076abb0fd80cd57a6c74b65657a3d1716ab3"
    "9a7b8d20d48056c3f47b03194b975de0f4a3ba6a130aef4d5abac60f767584b6"
    "a044d96c" },
  { "id p3 m100 t3 tag100 v0x10", KDF_ARGON2ID, 0x10, 3, 100, 3, 100, 0, "somesaltsalt",
    "d5805d88a78795b9c303693c8d372a75c13f9527cae9bc3bad1179f9dd554755"
    "0acb91c585fa73eb60e15620a726796522306b94aa296b60556afc2048477a85"
    "6715678e98c19ceb91feff0bd8ae7c77a9d722814f070f4dfe4f540d6cf4fc57"
    "41ba2d5e" },
  { "i p2 m1100 t2 (>128 addresses/segment)", KDF_ARGON2I, 0x13, 2, 1100, 2, 32, 0, "somesaltsalt",
    "e527cfe89e3a794276cdda7e3cae61d1294f91006c11122611da4b4990e33d5c" },
  { "id p1 m1031 t2 v0x10", KDF_ARGON2ID, 0x10, 1, 1031, 2, 32, 0, "somesaltsalt",
    "ad4907888c1f118c660884a7cdc3f8e7c43452c4dfbe3babf31fa5ccca09c850" },
  { "d p4 m64 t1 v0x10", KDF_ARGON2D, 0x10, 4, 64, 1, 32, 0, "somesaltsalt",
    "e0ef07ac9f8c7aadae84fa2854b3ffe47feb212b04f2480a709b0bfd486aa001" },
  { "d p1 m8 t1 tag64", KDF_ARGON2D, 0x13, 1, 8, 1, 64, 0, "somesaltsalt",
    "826d8505b34ef88c4d2e83001a08cb4c4b62d9e0c57700405211e606a18dbf72"
    "e818dbfe2b954dfe0e3cd75e83d8412ffa5023c41a216a82315bc5633b0e7340" },
  { "id p5 m81 t1 tag65", KDF_ARGON2ID, 0x13, 5, 81, 1, 65, 0, "somesaltsalt",
    "f3fc8c916e0679feca8b06e56006adbe475e17f0c7d39bcf1840cccba51efee9"
    "aa32f34fec9a3a3ded94d97a4a712ab5cdec33e1cac6760f33802623117043a6"
    "1c" },
  /* libsodium crypto_pwhash, password "password", salt "0123456789abcdef". */
  { "id p1 m19456 t2 (libsodium)", KDF_ARGON2ID, 0x13, 1, 19456, 2, 32, 0, "0123456789abcdef",
    "d2ab07b39ef7f8b806227cd86fbb11aa5393066a98e17eacacd126eb26e9276d" },
  { "i p1 m19456 t3 (libsodium)", KDF_ARGON2I, 0x13, 1, 19456, 3, 32, 0, "0123456789abcdef",
    "58fe51fde115bacae7af4690769f12048efbec645a437ede362f5f1cb4b0b8a0" },
};

static uint8_t rfc_pwd[32], rfc_salt[16], rfc_secret[8], rfc_ad[12];

static void set_params(kdf_argon2_params *p, const argon2_case *c, uint8_t *out) {
  memset(p, 0, sizeof *p);
  p->type = c->type;
  p->version = c->version;
  p->lanes = c->lanes;
  p->m_cost = c->m;
  p->t_cost = c->t;
  p->out = out;
  p->outlen = c->outlen;
  if (c->rfc) {
    p->pwd = rfc_pwd;
    p->pwdlen = sizeof rfc_pwd;
    p->salt = rfc_salt;
    p->saltlen = sizeof rfc_salt;
    p->secret = rfc_secret;
    p->secretlen = sizeof rfc_secret;
    p->ad = rfc_ad;
    p->adlen = sizeof rfc_ad;
  } else {
    p->pwd = (const uint8_t *)"password";
    p->pwdlen = 8;
    p->salt = (const uint8_t *)c->salt;
    p->saltlen = strlen(c->salt);
  }
}

/* Extra bytes past the working area that must stay untouched. */
#define GUARD 4096

static int all_bytes(const uint8_t *p, size_t n, uint8_t v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

static void test_case(const argon2_case *c, const char *variant, size_t misalign) {
  kdf_argon2_params p;
  uint8_t out[128];
  char name[160];
  set_params(&p, c, out);
  size_t need = kdf_argon2_memory_size(&p);
  uint8_t *raw = aligned_alloc(64, need + GUARD + 64);
  if (raw == NULL) {
    CHECK_MSG(0, "%s [%s]", "out of memory in test", variant);
    return;
  }
  uint8_t *mem = raw + misalign;
  memset(mem, 0xAA, need + GUARD);
  memset(out, 0x55, sizeof out);
  int rc = kdf_argon2_run(&p, mem, need + GUARD, NULL);
  snprintf(name, sizeof name, "%s%s", c->name, misalign ? " (memory misaligned by 8)" : "");
  int ok = rc == 0 && eq_hex(out, c->outlen, c->hex);
  CHECK_MSG(ok, "%s [%s]", name, variant);
  if (!ok) print_hex("got", out, c->outlen);
  snprintf(name, sizeof name, "%s: working memory wiped, guard untouched", c->name);
  CHECK_MSG(all_bytes(mem, need, 0) && all_bytes(mem + need, GUARD, 0xAA), "%s [%s]", name,
            variant);
  free(raw);
}

static void test_errors(void) {
  const argon2_case *c = &cases[2];
  kdf_argon2_params p;
  uint8_t out[32];
  set_params(&p, c, out);
  size_t need = kdf_argon2_memory_size(&p);
  CHECK_MSG(need == 32 * 1024, "memory size m=32 p=4 [errors]");
  uint8_t *mem = aligned_alloc(64, need);
  if (mem == NULL) {
    CHECK_MSG(0, "out of memory in test [errors]");
    return;
  }

  volatile int stop = 1;
  memset(mem, 0xAA, need);
  memset(out, 0x55, sizeof out);
  CHECK_MSG(kdf_argon2_run(&p, mem, need, &stop) == STATUS_ESTOPPED, "stop -> ESTOPPED [errors]");
  CHECK_MSG(all_bytes(out, sizeof out, 0), "stop: output zeroed [errors]");
  CHECK_MSG(all_bytes(mem, need, 0), "stop: memory wiped [errors]");
  stop = 0;
  CHECK_MSG(kdf_argon2_run(&p, mem, need, &stop) == 0 && eq_hex(out, 32, c->hex),
            "stop flag clear -> normal result [errors]");

  memset(out, 0x55, sizeof out);
  CHECK_MSG(
      kdf_argon2_run(&p, mem, need - 1, NULL) == STATUS_EINVAL && all_bytes(out, sizeof out, 0),
      "memory too small -> EINVAL, output zeroed [errors]");
  CHECK_MSG(kdf_argon2_run(&p, NULL, need, NULL) == STATUS_EINVAL, "NULL memory [errors]");

  kdf_argon2_params q;
#define BAD(expr, what)                                                         \
  do {                                                                          \
    q = p;                                                                      \
    expr;                                                                       \
    CHECK_MSG(kdf_argon2_check(&q) == STATUS_EINVAL, "%s [%s]", what, "check"); \
  } while (0)
  CHECK_MSG(kdf_argon2_check(&p) == 0, "valid params [check]");
  BAD(q.outlen = 3, "outlen 3");
  BAD(q.saltlen = 7, "saltlen 7");
  BAD(q.salt = NULL, "salt NULL");
  BAD(q.m_cost = 31, "m_cost < 8 * lanes");
  BAD(q.t_cost = 0, "t_cost 0");
  BAD(q.lanes = 0, "lanes 0");
  BAD(q.lanes = KDF_ARGON2_MAX_LANES + 1, "lanes 2^24");
  BAD(q.version = 0x12, "version 0x12");
  BAD(q.type = (kdf_argon2_type)3, "type 3");
  BAD(q.pwd = NULL, "pwd NULL with length");
  BAD(q.out = NULL, "out NULL");
  BAD(q.secret = NULL, "secret NULL with length");
#undef BAD
  q = p;
  q.pwd = NULL;
  q.pwdlen = 0;
  q.secret = NULL;
  q.secretlen = 0;
  q.ad = NULL;
  q.adlen = 0;
  CHECK_MSG(kdf_argon2_check(&q) == 0, "empty pwd/secret/ad allowed [check]");
  free(mem);
}

/* ---- randomized agreement with portable -------------------------------- */

/* xorshift64*: reproducible inputs from a printed seed. */
static uint64_t rng_state;

static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1DULL;
}

static void rnd_block(argon2_block *b) {
  for (unsigned i = 0; i < ARGON2_QWORDS; i++) b->v[i] = rnd();
}

/* The fills this build has, by the name argon2.c's selector gives them. */
static const struct {
  const char *name;
  argon2_fill_fn fill;
} fills[] = {
#ifdef ARGON2_HAVE_X86
  { "ssse3", argon2_fill_ssse3 },
  { "avx2", argon2_fill_avx2 },
  { "avx512", argon2_fill_avx512 },
#endif
#ifdef ARGON2_HAVE_NEON
  { "neon", argon2_fill_neon },
#endif
  { NULL, NULL },
};

/* Each fill against argon2_fill_portable on random blocks, both with and
 * without xor_dst; the scratch starts as garbage, as it may in a run. */
static void test_random_blocks(int blocks) {
  argon2_block prev, ref, want, got, scratch[2];
  for (size_t f = 0; fills[f].name != NULL; f++) {
    if (kdf_argon2_force_variant(fills[f].name) != 0) continue; /* CPU lacks it */
    int bad = 0;
    for (int i = 0; i < blocks; i++) {
      int xor_dst = i & 1;
      rnd_block(&prev);
      rnd_block(&ref);
      rnd_block(&want);
      got = want;
      rnd_block(&scratch[0]);
      rnd_block(&scratch[1]);
      argon2_fill_portable(&want, &prev, &ref, xor_dst, scratch);
      rnd_block(&scratch[0]);
      rnd_block(&scratch[1]);
      fills[f].fill(&got, &prev, &ref, xor_dst, scratch);
      bad += memcmp(&want, &got, sizeof want) != 0;
    }
    char what[80];
    snprintf(what, sizeof what, "%d random blocks agree with portable (%d differ)", blocks, bad);
    CHECK_MSG(bad == 0, "%s [%s]", what, fills[f].name);
    printf("variant %s: %d random blocks, %d differ from portable\n", fills[f].name, blocks, bad);
  }
  kdf_argon2_force_variant(NULL);
}

/* Whole runs with random type, version, lanes, costs, lengths and inputs:
 * each variant's tag against portable's. */
static void test_random_params(int runs) {
  static _Alignas(64) uint8_t mem[(size_t)256 * 1024]; /* m_cost <= 256 blocks */
  uint8_t pwd[64], salt[32], secret[16], ad[24], want[80], got[80];
  for (size_t f = 0; fills[f].name != NULL; f++) {
    if (kdf_argon2_force_variant(fills[f].name) != 0) continue;
    int bad = 0, done = 0;
    for (int i = 0; i < runs; i++) {
      kdf_argon2_params p;
      memset(&p, 0, sizeof p);
      p.type = (kdf_argon2_type)(rnd() % 3);
      p.version = rnd() & 1 ? KDF_ARGON2_VERSION_13 : KDF_ARGON2_VERSION_10;
      p.lanes = (uint32_t)(1 + rnd() % 4);
      p.m_cost = 8 * p.lanes + (uint32_t)(rnd() % (256 - 8 * p.lanes + 1));
      p.t_cost = (uint32_t)(1 + rnd() % 3);
      p.outlen = 4 + (size_t)(rnd() % (sizeof want - 4 + 1));
      p.pwdlen = (size_t)(rnd() % (sizeof pwd + 1));
      p.saltlen = 8 + (size_t)(rnd() % (sizeof salt - 8 + 1));
      p.secretlen = (size_t)(rnd() % (sizeof secret + 1));
      p.adlen = (size_t)(rnd() % (sizeof ad + 1));
      for (size_t k = 0; k < sizeof pwd; k++) pwd[k] = (uint8_t)rnd();
      for (size_t k = 0; k < sizeof salt; k++) salt[k] = (uint8_t)rnd();
      for (size_t k = 0; k < sizeof secret; k++) secret[k] = (uint8_t)rnd();
      for (size_t k = 0; k < sizeof ad; k++) ad[k] = (uint8_t)rnd();
      p.pwd = pwd;
      p.salt = salt;
      p.secret = p.secretlen ? secret : NULL;
      p.ad = p.adlen ? ad : NULL;
      p.out = want;
      kdf_argon2_force_variant("portable");
      int rc1 = kdf_argon2_run(&p, mem, sizeof mem, NULL);
      p.out = got;
      kdf_argon2_force_variant(fills[f].name);
      int rc2 = kdf_argon2_run(&p, mem, sizeof mem, NULL);
      bad += rc1 != 0 || rc2 != 0 || memcmp(want, got, p.outlen) != 0;
      done++;
    }
    char what[80];
    snprintf(what, sizeof what, "%d random parameter sets agree with portable (%d differ)", done,
             bad);
    CHECK_MSG(bad == 0, "%s [%s]", what, fills[f].name);
    printf("variant %s: %d random parameter sets, %d differ from portable\n", fills[f].name, done,
           bad);
  }
  kdf_argon2_force_variant(NULL);
}

/* ---- bench --------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int bench(void) {
  static const struct { uint32_t m, t; } cfg[] = { { 19456, 2 }, { 65536, 3 } };
  enum { RUNS = 21 };
  size_t max = (size_t)65536 * 1024;
  uint8_t *mem = aligned_alloc(64, max);
  if (mem == NULL) return 1;
  memset(mem, 0, max); /* fault the pages in once */
  printf("dispatch picks: %s\n", kdf_argon2_variant());
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    if (kdf_argon2_force_variant(variants[v]) != 0) {
      printf("%-9s not supported on this CPU\n", variants[v]);
      continue;
    }
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
      uint8_t out[32];
      kdf_argon2_params p;
      memset(&p, 0, sizeof p);
      p.type = KDF_ARGON2ID;
      p.version = KDF_ARGON2_VERSION_13;
      p.pwd = (const uint8_t *)"password";
      p.pwdlen = 8;
      p.salt = (const uint8_t *)"0123456789abcdef";
      p.saltlen = 16;
      p.t_cost = cfg[k].t;
      p.m_cost = cfg[k].m;
      p.lanes = 1;
      p.out = out;
      p.outlen = sizeof out;
      double ms[RUNS];
      int runs = variants[v][0] == 'p' && cfg[k].m > 20000 ? 5 : RUNS;
      if (kdf_argon2_run(&p, mem, max, NULL) != 0) return 1; /* warm-up */
      for (int r = 0; r < runs; r++) {
        double t0 = now_ms();
        kdf_argon2_run(&p, mem, max, NULL);
        ms[r] = now_ms() - t0;
      }
      qsort(ms, (size_t)runs, sizeof ms[0], cmp_double);
      printf("%-9s argon2id m=%-6u t=%u p=1: median %7.2f ms (min %.2f, %d runs)\n", variants[v],
             (unsigned)cfg[k].m, (unsigned)cfg[k].t, ms[runs / 2], ms[0], runs);
    }
  }
  kdf_argon2_force_variant(NULL);
  free(mem);
  return 0;
}

/* ---- no secret left on the stack ------------------------------------- */

static const uint8_t spill_pwd[32] = "Argon2 password, must not stay!";
static const uint8_t spill_secret[16] = "a pepper: secret";

static void spill_params(kdf_argon2_params *p, uint8_t *out) {
  memset(p, 0, sizeof *p);
  p->type = KDF_ARGON2ID;
  p->version = KDF_ARGON2_VERSION_13;
  p->pwd = spill_pwd;
  p->pwdlen = sizeof spill_pwd;
  p->salt = (const uint8_t *)"saltsaltsaltsalt";
  p->saltlen = 16;
  p->secret = spill_secret;
  p->secretlen = sizeof spill_secret;
  p->t_cost = 2;
  p->m_cost = 64;
  p->lanes = 2;
  p->out = out;
  p->outlen = 32;
}

/* H0 (RFC 9106 section 3.2) of spill_params: with it and the parameters,
 * anyone derives the tag without the password. */
static void spill_h0(uint8_t h0[64]) {
  kdf_argon2_params p;
  uint8_t out[32];
  spill_params(&p, out);
  const uint32_t fields[] = { p.lanes,  (uint32_t)p.outlen, p.m_cost,
                              p.t_cost, p.version,          (uint32_t)p.type };
  kdf_blake2b_state s;
  uint8_t le[4];
  kdf_blake2b_init(&s, 64, NULL, 0);
#define LE32(v)                                                         \
  do {                                                                  \
    for (int i_ = 0; i_ < 4; i_++) le[i_] = (uint8_t)((v) >> (8 * i_)); \
    kdf_blake2b_update(&s, le, 4);                                      \
  } while (0)
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) LE32(fields[i]);
  LE32((uint32_t)p.pwdlen);
  kdf_blake2b_update(&s, p.pwd, p.pwdlen);
  LE32((uint32_t)p.saltlen);
  kdf_blake2b_update(&s, p.salt, p.saltlen);
  LE32((uint32_t)p.secretlen);
  kdf_blake2b_update(&s, p.secret, p.secretlen);
  LE32(0u);
#undef LE32
  kdf_blake2b_final(&s, h0);
}

__attribute__((noinline)) static int one_argon2(void *memory, size_t size, uint8_t *out) {
  kdf_argon2_params p;
  spill_params(&p, out);
  return kdf_argon2_run(&p, memory, size, NULL);
}

/* The password and the pepper go through BLAKE2b's message words, which
 * the compiler keeps in registers and spills; H0 is hashed into every
 * first block. None of them may be left in the frames below the caller
 * once kdf_argon2_run() has returned. */
static void test_no_secret_on_stack(void) {
#if defined(__SANITIZE_ADDRESS__)
  printf("stack wipe: skipped (AddressSanitizer build)\n");
#else
  uint32_t words[64];
  uint8_t h0[64], out[32];
  size_t n = words_of(spill_pwd, sizeof spill_pwd, words);
  n += words_of(spill_secret, sizeof spill_secret, words + n);
  spill_h0(h0);
  n += words_of(h0, sizeof h0, words + n);
  memset(h0, 0, sizeof h0);
  kdf_argon2_params p;
  spill_params(&p, out);
  size_t size = kdf_argon2_memory_size(&p);
  void *memory = aligned_alloc(64, size);
  CHECK(memory != NULL);
  if (memory == NULL) return;
  scribble_stack();
  leave_copy(spill_pwd, sizeof spill_pwd);
  CHECK_MSG(words_below(words, n, 2 * SECURE_WIPE_STACK_BYTES) > 0,
            "argon2: the probe finds a copy left on the stack (control)");
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    if (kdf_argon2_force_variant(variants[v]) != 0) continue;
    scribble_stack();
    int rc = one_argon2(memory, size, out);
    size_t found = words_below(words, n, 2 * SECURE_WIPE_STACK_BYTES);
    CHECK_MSG(rc == 0, "argon2 %s: run", variants[v]);
    CHECK_MSG(found == 0, "argon2 %s: %zu of %zu password, pepper and H0 words left on the stack",
              variants[v], found, n);
  }
  kdf_argon2_force_variant(NULL);
  free(memory);
#endif
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "bench") == 0) return bench();

  memset(rfc_pwd, 1, sizeof rfc_pwd);
  memset(rfc_salt, 2, sizeof rfc_salt);
  memset(rfc_secret, 3, sizeof rfc_secret);
  memset(rfc_ad, 4, sizeof rfc_ad);

  test_blake2b();
  printf("dispatch picks: %s\n", kdf_argon2_variant());
#ifdef ARGON2_HAVE_NEON
  /* NEON is in the AArch64 ABI: nothing else should ever be picked there. */
  CHECK_MSG(strcmp(kdf_argon2_variant(), "neon") == 0, "dispatch picks neon on AArch64 [select]");
#endif
  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    if (kdf_argon2_force_variant(variants[v]) != 0) {
      printf("variant %s: not supported on this CPU, skipped\n", variants[v]);
      continue;
    }
    CHECK_MSG(strcmp(kdf_argon2_variant(), variants[v]) == 0, "%s [%s]", "select_impl took",
              variants[v]);
    int before = check_failed;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
      test_case(&cases[i], variants[v], 0);
    test_case(&cases[1], variants[v], 8);
    printf("variant %s: %s\n", variants[v], check_failed == before ? "ok" : "FAILED");
  }
  CHECK_MSG(kdf_argon2_force_variant("nonsense") == -1, "unknown variant rejected [select]");
  kdf_argon2_force_variant(NULL);

  const char *env = getenv("KDF_RANDOM_RUNS");
  int runs = env != NULL && atoi(env) > 0 ? atoi(env) : 200;
  env = getenv("KDF_SEED");
  rng_state = env != NULL ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
  if (rng_state == 0) rng_state = 1;
  printf("random agreement: seed %llu (KDF_SEED), %d runs (KDF_RANDOM_RUNS)\n",
         (unsigned long long)rng_state, runs);
  test_random_blocks(10 * runs);
  test_random_params(runs);
  test_errors();
  test_no_secret_on_stack();
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_exit();
}
