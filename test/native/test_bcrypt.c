/* Plain-C tests for src/kdf/bcrypt.c.
 *
 *   test_bcrypt [vectors.json]        known answers + argument/stop checks
 *   test_bcrypt bench [runs]          median ms of cost 10 and 12
 *   test_bcrypt lanes [runs]          cost-10 work per CPU second with 1..4
 *                                     lanes interleaved (thread CPU time)
 *
 * The known answers come from test/vectors/bcrypt.json (shared with the JS
 * tests): [{"password": "..." | {"hex": "..."}, "hash": "$2?$NN$..."}].
 * The last line printed is "N passed, N failed"; exit status 1 on failure. */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "common/status.h"
#include "kdf/bcrypt.h"
#include "stack_probe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef BCRYPT_VECTORS
#define BCRYPT_VECTORS "test/vectors/bcrypt.json"
#endif

/* ---- bcrypt's radix-64 (./A-Za-z0-9, no padding, MSB first) ---- */

static const char b64_chars[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static int b64_value(char c) {
  const char *q;
  if (c == '\0') return -1;
  q = strchr(b64_chars, c);
  return q == NULL ? -1 : (int)(q - b64_chars);
}

/* Decodes exactly outlen bytes from in (bits past them are ignored, as
 * bcrypt does with the low 4 bits of the 22nd salt character). */
static int b64_decode(const char *in, uint8_t *out, size_t outlen) {
  uint32_t acc = 0;
  unsigned bits = 0;
  size_t n = 0;
  while (n < outlen) {
    int v = b64_value(*in++);
    if (v < 0) return -1;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (uint8_t)(acc >> bits);
    }
  }
  return 0;
}

/* Writes ceil(8 * n / 6) characters and a NUL. */
static void b64_encode(const uint8_t *in, size_t n, char *out) {
  uint32_t acc = 0;
  unsigned bits = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    acc = (acc << 8) | in[i];
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      *out++ = b64_chars[(acc >> bits) & 63];
    }
  }
  if (bits > 0) *out++ = b64_chars[(acc << (6 - bits)) & 63];
  *out = '\0';
}

/* ---- just enough JSON for the vector file ---- */

typedef struct {
  const char *p, *end;
} json_in;

static void json_ws(json_in *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) j->p++;
}

static int json_eat(json_in *j, char c) {
  json_ws(j);
  if (j->p < j->end && *j->p == c) {
    j->p++;
    return 1;
  }
  return 0;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static size_t put_utf8(uint8_t *o, uint32_t cp) {
  if (cp < 0x80) {
    o[0] = (uint8_t)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (uint8_t)(0xc0 | (cp >> 6));
    o[1] = (uint8_t)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (uint8_t)(0xe0 | (cp >> 12));
    o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (uint8_t)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (uint8_t)(0xf0 | (cp >> 18));
  o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (uint8_t)(0x80 | (cp & 0x3f));
  return 4;
}

static int json_u4(json_in *j, uint32_t *cp) {
  int i;
  *cp = 0;
  if (j->end - j->p < 4) return -1;
  for (i = 0; i < 4; i++) {
    int d = hex_digit(*j->p++);
    if (d < 0) return -1;
    *cp = (*cp << 4) | (uint32_t)d;
  }
  return 0;
}

/* Parses a string into a malloc'd byte buffer (UTF-8, NUL-terminated for
 * convenience; *len excludes that NUL). NULL on a syntax error. */
static uint8_t *json_string(json_in *j, size_t *len) {
  uint8_t *buf, *o;
  if (!json_eat(j, '"')) return NULL;
  buf = malloc((size_t)(j->end - j->p) + 1); /* output never outgrows input */
  if (buf == NULL) return NULL;
  o = buf;
  while (j->p < j->end && *j->p != '"') {
    char c = *j->p++;
    uint32_t cp;
    if (c != '\\') {
      *o++ = (uint8_t)c;
      continue;
    }
    if (j->p >= j->end) goto bad;
    c = *j->p++;
    switch (c) {
      case '"':
      case '\\':
      case '/':
        *o++ = (uint8_t)c;
        break;
      case 'b':
        *o++ = '\b';
        break;
      case 'f':
        *o++ = '\f';
        break;
      case 'n':
        *o++ = '\n';
        break;
      case 'r':
        *o++ = '\r';
        break;
      case 't':
        *o++ = '\t';
        break;
      case 'u':
        if (json_u4(j, &cp)) goto bad;
        if (cp >= 0xd800 && cp < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
            j->p[1] == 'u') {
          uint32_t lo;
          j->p += 2;
          if (json_u4(j, &lo)) goto bad;
          if (lo >= 0xdc00 && lo < 0xe000)
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          else
            goto bad;
        }
        o += put_utf8(o, cp);
        break;
      default:
        goto bad;
    }
  }
  if (!json_eat(j, '"')) goto bad;
  *o = '\0';
  *len = (size_t)(o - buf);
  return buf;
bad:
  free(buf);
  return NULL;
}

/* Skips a value we do not use (a string, or an object of strings). */
static int json_skip(json_in *j) {
  size_t n;
  uint8_t *s;
  json_ws(j);
  if (j->p < j->end && *j->p == '{') {
    j->p++;
    if (json_eat(j, '}')) return 0;
    do {
      s = json_string(j, &n);
      if (s == NULL) return -1;
      free(s);
      if (!json_eat(j, ':') || json_skip(j)) return -1;
    } while (json_eat(j, ','));
    return json_eat(j, '}') ? 0 : -1;
  }
  s = json_string(j, &n);
  if (s == NULL) return -1;
  free(s);
  return 0;
}

typedef struct {
  uint8_t *pwd;
  size_t pwdlen;
  char *hash;
} vector;

/* password: a string, or {"hex": "..."} for bytes that are not UTF-8. */
static uint8_t *json_password(json_in *j, size_t *len) {
  uint8_t *hex, *out;
  size_t n, i;
  if (!json_eat(j, '{')) return json_string(j, len);
  hex = NULL;
  do {
    uint8_t *key = json_string(j, &n);
    if (key == NULL || !json_eat(j, ':')) {
      free(key);
      free(hex);
      return NULL;
    }
    if (strcmp((char *)key, "hex") == 0) {
      free(hex);
      hex = json_string(j, &n);
    } else if (json_skip(j)) {
      free(key);
      free(hex);
      return NULL;
    }
    free(key);
  } while (json_eat(j, ','));
  if (!json_eat(j, '}') || hex == NULL || n % 2 != 0) {
    free(hex);
    return NULL;
  }
  out = malloc(n / 2 + 1);
  for (i = 0; out != NULL && i < n / 2; i++) {
    int hi = hex_digit((char)hex[2 * i]), lo = hex_digit((char)hex[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(out);
      out = NULL;
      break;
    }
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  free(hex);
  *len = n / 2;
  return out;
}

static vector *load_vectors(const char *path, size_t *count) {
  FILE *f = fopen(path, "rb");
  char *text;
  long size;
  json_in j;
  vector *v = NULL;
  size_t n = 0, cap = 0;

  *count = 0;
  if (f == NULL) return NULL;
  if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
    fclose(f);
    return NULL;
  }
  text = malloc((size_t)size + 1);
  if (text == NULL || fread(text, 1, (size_t)size, f) != (size_t)size) {
    fclose(f);
    free(text);
    return NULL;
  }
  fclose(f);
  j.p = text;
  j.end = text + size;

  if (!json_eat(&j, '[')) goto bad;
  if (json_eat(&j, ']')) goto done;
  do {
    vector cur = { NULL, 0, NULL };
    size_t klen, hlen;
    if (!json_eat(&j, '{')) goto bad;
    do {
      uint8_t *key = json_string(&j, &klen);
      int ok = key != NULL && json_eat(&j, ':');
      if (ok && strcmp((char *)key, "password") == 0) {
        free(cur.pwd);
        cur.pwd = json_password(&j, &cur.pwdlen);
        ok = cur.pwd != NULL;
      } else if (ok && strcmp((char *)key, "hash") == 0) {
        free(cur.hash);
        cur.hash = (char *)json_string(&j, &hlen);
        ok = cur.hash != NULL;
      } else if (ok) {
        ok = json_skip(&j) == 0;
      }
      free(key);
      if (!ok) {
        free(cur.pwd);
        free(cur.hash);
        goto bad;
      }
    } while (json_eat(&j, ','));
    if (!json_eat(&j, '}') || cur.pwd == NULL || cur.hash == NULL) {
      free(cur.pwd);
      free(cur.hash);
      goto bad;
    }
    if (n == cap) {
      vector *nv;
      cap = cap ? 2 * cap : 64;
      nv = realloc(v, cap * sizeof(*v));
      if (nv == NULL) goto bad;
      v = nv;
    }
    v[n++] = cur;
  } while (json_eat(&j, ','));
  if (!json_eat(&j, ']')) goto bad;
done:
  free(text);
  *count = n;
  return v != NULL ? v : calloc(1, sizeof(*v));
bad:
  fprintf(stderr, "%s: parse error near byte %ld\n", path, (long)(j.p - text));
  while (n > 0) {
    n--;
    free(v[n].pwd);
    free(v[n].hash);
  }
  free(v);
  free(text);
  return NULL;
}

/* ---- helpers ---- */

/* Splits "$2?$NN$<22 salt><31 hash>" into minor, cost and raw salt. */
static int parse_hash(const char *h, char *minor, unsigned *cost,
                      uint8_t salt[KDF_BCRYPT_SALT_LEN]) {
  if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || h[3] != '$' || h[4] < '0' || h[4] > '9' ||
      h[5] < '0' || h[5] > '9' || h[6] != '$')
    return -1;
  *minor = h[2];
  *cost = (unsigned)(h[4] - '0') * 10 + (unsigned)(h[5] - '0');
  return b64_decode(h + 7, salt, KDF_BCRYPT_SALT_LEN);
}

/* Formats the full 60-character string. */
static void format_hash(char out[61], char minor, unsigned cost,
                        const uint8_t salt[KDF_BCRYPT_SALT_LEN],
                        const uint8_t raw[KDF_BCRYPT_HASH_LEN]) {
  snprintf(out, 8, "$2%c$%02u$", minor, cost);
  b64_encode(salt, KDF_BCRYPT_SALT_LEN, out + 7);
  b64_encode(raw, KDF_BCRYPT_HASH_LEN, out + 29);
}

static int all_zero(const uint8_t *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if (p[i] != 0) return 0;
  return 1;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const uint8_t test_salt[KDF_BCRYPT_SALT_LEN] = { 0x71, 0xd7, 0x9f, 0x82, 0x18, 0xa3,
                                                        0x92, 0x59, 0xa7, 0xa2, 0x9a, 0xab,
                                                        0xb2, 0xdb, 0xaf, 0xc3 };

/* ---- tests ---- */

static void test_vectors(const char *path) {
  size_t n, i;
  vector *v = load_vectors(path, &n);
  CHECK_MSG(v != NULL && n > 0, "could not load vectors from %s", path);
  if (v == NULL) return;
  for (i = 0; i < n; i++) {
    char minor, got[61];
    unsigned cost;
    uint8_t salt[KDF_BCRYPT_SALT_LEN], raw[KDF_BCRYPT_HASH_LEN];
    int rc;
    if (parse_hash(v[i].hash, &minor, &cost, salt)) {
      CHECK_MSG(0, "vector %zu: bad hash string %s", i, v[i].hash);
      continue;
    }
    rc = kdf_bcrypt(v[i].pwd, v[i].pwdlen, salt, cost, minor, raw, NULL);
    format_hash(got, minor, cost, salt, raw);
    CHECK_MSG(rc == 0 && strcmp(got, v[i].hash) == 0,
              "vector %zu (%zu-byte password): rc=%d got %s want %s", i, v[i].pwdlen, rc, got,
              v[i].hash);
  }
  printf("%zu known-answer vectors from %s\n", n, path);
  for (i = 0; i < n; i++) {
    free(v[i].pwd);
    free(v[i].hash);
  }
  free(v);
}

static void hash_of(const uint8_t *pwd, size_t len, char minor, uint8_t out[KDF_BCRYPT_HASH_LEN]) {
  int rc = kdf_bcrypt(pwd, len, test_salt, 4, minor, out, NULL);
  CHECK_MSG(rc == 0, "kdf_bcrypt(%zu bytes, '%c') = %d", len, minor, rc);
}

static void test_key_length_rules(void) {
  uint8_t pwd[600], h1[KDF_BCRYPT_HASH_LEN], h2[KDF_BCRYPT_HASH_LEN];
  uint8_t h3[KDF_BCRYPT_HASH_LEN];
  size_t i;
  for (i = 0; i < sizeof(pwd); i++) pwd[i] = (uint8_t)(33 + (i * 7) % 90);

  /* 72, 73 and 599 bytes all hash alike for b and y; 71 differs. */
  hash_of(pwd, 72, 'b', h1);
  hash_of(pwd, 73, 'b', h2);
  CHECK_MSG(memcmp(h1, h2, sizeof(h1)) == 0, "$2b$ 72 vs 73 bytes differ");
  hash_of(pwd, 599, 'y', h2);
  CHECK_MSG(memcmp(h1, h2, sizeof(h1)) == 0, "$2y$ 599 bytes differs from 72");
  hash_of(pwd, 71, 'b', h2);
  CHECK_MSG(memcmp(h1, h2, sizeof(h1)) != 0, "$2b$ 71 bytes equals 72");
  /* y is b; a is b below 255 bytes. */
  hash_of(pwd, 10, 'y', h2);
  hash_of(pwd, 10, 'b', h3);
  CHECK_MSG(memcmp(h2, h3, sizeof(h2)) == 0, "$2y$ differs from $2b$");
  hash_of(pwd, 254, 'a', h2);
  CHECK_MSG(memcmp(h1, h2, sizeof(h1)) == 0, "$2a$ 254 bytes differs from 72");
  /* $2a$ wrap: 255 bytes -> length 0 (byte 0 repeated), the same as 256
   * bytes -> length 1; 260 bytes -> the first 5 bytes cycled. */
  hash_of(pwd, 255, 'a', h2);
  hash_of(pwd, 256, 'a', h3);
  CHECK_MSG(memcmp(h2, h3, sizeof(h2)) == 0, "$2a$ 255 vs 256 bytes differ");
  CHECK_MSG(memcmp(h1, h2, sizeof(h1)) != 0, "$2a$ 255 bytes did not wrap");
  {
    uint8_t rep[72];
    memset(rep, pwd[0], sizeof(rep));
    hash_of(rep, 72, 'b', h3);
    CHECK_MSG(memcmp(h2, h3, sizeof(h2)) == 0, "$2a$ 255 bytes != byte 0 x72");
    for (i = 0; i < 72; i++) rep[i] = pwd[i % 5];
    hash_of(pwd, 260, 'a', h2);
    hash_of(rep, 72, 'b', h3);
    CHECK_MSG(memcmp(h2, h3, sizeof(h2)) == 0, "$2a$ 260 bytes != 5-byte cycle");
    hash_of(pwd, 255 + 256, 'a', h2);
    hash_of(pwd, 255, 'a', h3);
    CHECK_MSG(memcmp(h2, h3, sizeof(h2)) == 0, "$2a$ 511 vs 255 bytes differ");
  }
  /* NUL bytes inside the password are key bytes like any other. */
  {
    static const uint8_t a[] = { 'a', 0, 'b' };
    hash_of(a, 3, 'b', h2);
    hash_of(a, 1, 'b', h3);
    CHECK_MSG(memcmp(h2, h3, sizeof(h2)) != 0, "embedded NUL ignored bytes after");
  }
  /* NULL with length 0 is the empty password. */
  hash_of((const uint8_t *)"", 0, 'b', h2);
  hash_of(NULL, 0, 'b', h3);
  CHECK_MSG(memcmp(h2, h3, sizeof(h2)) == 0, "NULL empty password differs");
}

static void test_bad_args(void) {
  static const struct {
    unsigned cost;
    char minor;
  } bad[] = { { 3, 'b' }, { 0, 'b' },  { 32, 'b' }, { 100, 'a' }, { 4, 'x' },
              { 4, 'A' }, { 4, '\0' }, { 4, 'B' },  { 5, 'c' } };
  uint8_t out[KDF_BCRYPT_HASH_LEN];
  size_t i;
  int rc;
  for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    memset(out, 0xaa, sizeof(out));
    rc = kdf_bcrypt((const uint8_t *)"pw", 2, test_salt, bad[i].cost, bad[i].minor, out, NULL);
    CHECK_MSG(rc == STATUS_EINVAL && all_zero(out, sizeof(out)),
              "cost %u minor 0x%02x: rc=%d (%s), out zeroed=%d", bad[i].cost,
              (unsigned)(unsigned char)bad[i].minor, rc, status_name(rc),
              all_zero(out, sizeof(out)));
  }
  memset(out, 0xaa, sizeof(out));
  rc = kdf_bcrypt(NULL, 3, test_salt, 4, 'b', out, NULL);
  CHECK_MSG(rc == STATUS_EINVAL && all_zero(out, sizeof(out)), "NULL password with length 3: rc=%d",
            rc);
  memset(out, 0xaa, sizeof(out));
  rc = kdf_bcrypt((const uint8_t *)"pw", 2, NULL, 4, 'b', out, NULL);
  CHECK_MSG(rc == STATUS_EINVAL && all_zero(out, sizeof(out)), "NULL salt: rc=%d", rc);
  rc = kdf_bcrypt((const uint8_t *)"pw", 2, test_salt, 4, 'b', NULL, NULL);
  CHECK_MSG(rc == STATUS_EINVAL, "NULL out: rc=%d", rc);
  /* The bounds themselves are valid. */
  rc = kdf_bcrypt((const uint8_t *)"pw", 2, test_salt, KDF_BCRYPT_MIN_COST, 'a', out, NULL);
  CHECK_MSG(rc == 0, "cost 4: rc=%d", rc);
}

typedef struct {
  volatile int stop;
  int rc;
  uint8_t out[KDF_BCRYPT_HASH_LEN];
} stop_job;

static void *stop_worker(void *arg) {
  stop_job *job = arg;
  memset(job->out, 0xaa, sizeof(job->out));
  job->rc = kdf_bcrypt((const uint8_t *)"long job", 8, test_salt, KDF_BCRYPT_MAX_COST, 'b',
                       job->out, &job->stop);
  return NULL;
}

static void test_stop(void) {
  volatile int stop = 1;
  uint8_t out[KDF_BCRYPT_HASH_LEN], ref[KDF_BCRYPT_HASH_LEN];
  int rc;
  stop_job job;
  pthread_t th;
  double t0, dt;
  struct timespec pause = { 0, 100 * 1000 * 1000 };

  memset(out, 0xaa, sizeof(out));
  rc = kdf_bcrypt((const uint8_t *)"pw", 2, test_salt, 4, 'b', out, &stop);
  CHECK_MSG(rc == STATUS_ESTOPPED && all_zero(out, sizeof(out)), "pre-set stop: rc=%d (%s)", rc,
            status_name(rc));

  stop = 0;
  rc = kdf_bcrypt((const uint8_t *)"pw", 2, test_salt, 6, 'b', out, &stop);
  CHECK_MSG(rc == 0, "stop = 0: rc=%d", rc);
  kdf_bcrypt((const uint8_t *)"pw", 2, test_salt, 6, 'b', ref, NULL);
  CHECK_MSG(memcmp(out, ref, sizeof(out)) == 0, "stop = 0 changed the hash");

  /* A cost-31 job (hours of work) must give up soon after stop is set. */
  job.stop = 0;
  job.rc = 1;
  if (pthread_create(&th, NULL, stop_worker, &job) != 0) {
    CHECK_MSG(0, "pthread_create failed");
    return;
  }
  nanosleep(&pause, NULL);
  t0 = now_ms();
  job.stop = 1;
  pthread_join(th, NULL);
  dt = now_ms() - t0;
  /* That the join returned at all shows the job stopped: cost 31 runs for
   * hours. How soon is printed, not asserted (no time-based asserts: a
   * niced or sanitized run is slower); main()'s alarm ends a hang. */
  CHECK_MSG(job.rc == STATUS_ESTOPPED && all_zero(job.out, sizeof(job.out)),
            "cost-31 job after stop: rc=%d (%s)", job.rc, status_name(job.rc));
  printf("cost-31 job stopped %.1f ms after the flag was set\n", dt);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int bench(int runs) {
  static const unsigned costs[] = { 10, 12 };
  size_t c;
  double t[64];
  uint8_t out[KDF_BCRYPT_HASH_LEN];
  if (runs < 1) runs = 1;
  if (runs > 64) runs = 64;
  /* one warm-up op */
  kdf_bcrypt((const uint8_t *)"warm up", 7, test_salt, 8, 'b', out, NULL);
  for (c = 0; c < sizeof(costs) / sizeof(costs[0]); c++) {
    int i;
    for (i = 0; i < runs; i++) {
      double t0 = now_ms();
      if (kdf_bcrypt((const uint8_t *)"correct horse battery staple", 28, test_salt, costs[c], 'b',
                     out, NULL) != 0)
        return 1;
      t[i] = now_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof(t[0]), cmp_double);
    printf("bcrypt cost %u: median %.2f ms (min %.2f, max %.2f, %d runs)\n", costs[c], t[runs / 2],
           t[0], t[runs - 1], runs);
  }
  return 0;
}

/* kdf_bcrypt_lanes: every lane equals kdf_bcrypt on the same arguments,
 * whatever the mix of lengths, salts, costs and minors (lanes of different
 * costs drop out at different times). Seeded, so a failure repeats. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 16);
}

typedef struct {
  uint8_t pwd[90], salt[KDF_BCRYPT_SALT_LEN], out[KDF_BCRYPT_HASH_LEN], ref[KDF_BCRYPT_HASH_LEN];
  kdf_bcrypt_params p;
} lane_case;

static void lane_random(lane_case *c) {
  static const char minors[] = { 'a', 'b', 'y' };
  memset(c, 0, sizeof *c);
  c->p.pwdlen = rnd() % sizeof c->pwd; /* 0..89: crosses the 72-byte cap */
  for (size_t i = 0; i < c->p.pwdlen; i++) c->pwd[i] = (uint8_t)rnd();
  for (size_t i = 0; i < sizeof c->salt; i++) c->salt[i] = (uint8_t)rnd();
  c->p.pwd = c->pwd;
  c->p.salt = c->salt;
  c->p.saltlen = KDF_BCRYPT_SALT_LEN;
  c->p.cost = 4 + rnd() % 3;
  c->p.minor = (uint64_t)minors[rnd() % 3];
  c->p.out = c->out;
  c->p.outlen = KDF_BCRYPT_HASH_LEN;
}

static void test_lanes(void) {
  lane_case cases[KDF_BCRYPT_MAX_LANES];
  const kdf_bcrypt_params *lanes[KDF_BCRYPT_MAX_LANES];
  int rc[KDF_BCRYPT_MAX_LANES], bad = 0;
  for (int trial = 0; trial < 60; trial++) {
    unsigned n = 1 + (unsigned)trial % KDF_BCRYPT_MAX_LANES;
    for (unsigned j = 0; j < n; j++) {
      lane_random(&cases[j]);
      lanes[j] = &cases[j].p;
      kdf_bcrypt(cases[j].pwd, cases[j].p.pwdlen, cases[j].salt, (unsigned)cases[j].p.cost,
                 (char)cases[j].p.minor, cases[j].ref, NULL);
    }
    int all = kdf_bcrypt_lanes(lanes, n, rc, NULL);
    for (unsigned j = 0; j < n; j++)
      if (all != 0 || rc[j] != 0 || memcmp(cases[j].out, cases[j].ref, KDF_BCRYPT_HASH_LEN) != 0)
        bad++;
  }
  CHECK_MSG(bad == 0, "lanes: %d of 60 random batches differ from single runs", bad);

  /* A bad lane among good ones fails alone. */
  for (unsigned j = 0; j < 3; j++) {
    lane_random(&cases[j]);
    lanes[j] = &cases[j].p;
    kdf_bcrypt(cases[j].pwd, cases[j].p.pwdlen, cases[j].salt, (unsigned)cases[j].p.cost,
               (char)cases[j].p.minor, cases[j].ref, NULL);
  }
  cases[1].p.cost = 3;
  memset(cases[1].out, 0xaa, KDF_BCRYPT_HASH_LEN);
  int all = kdf_bcrypt_lanes(lanes, 3, rc, NULL);
  CHECK_MSG(all == 0 && rc[0] == 0 && rc[2] == 0 && rc[1] == STATUS_EINVAL &&
                all_zero(cases[1].out, KDF_BCRYPT_HASH_LEN) &&
                memcmp(cases[0].out, cases[0].ref, KDF_BCRYPT_HASH_LEN) == 0 &&
                memcmp(cases[2].out, cases[2].ref, KDF_BCRYPT_HASH_LEN) == 0,
            "lanes: a bad lane fails alone (rc %d %d %d)", rc[0], rc[1], rc[2]);

  CHECK_MSG(kdf_bcrypt_lanes(lanes, 0, rc, NULL) == STATUS_EINVAL, "lanes: n = 0 refused");
  CHECK_MSG(kdf_bcrypt_lanes(lanes, KDF_BCRYPT_MAX_LANES + 1, rc, NULL) == STATUS_EINVAL,
            "lanes: n above KDF_BCRYPT_MAX_LANES refused");

  /* Stopped: every lane says so and has no output. */
  volatile int stop = 1;
  cases[1].p.cost = 5;
  all = kdf_bcrypt_lanes(lanes, 3, rc, &stop);
  CHECK_MSG(all == STATUS_ESTOPPED && rc[0] == STATUS_ESTOPPED && rc[1] == STATUS_ESTOPPED &&
                rc[2] == STATUS_ESTOPPED && all_zero(cases[0].out, KDF_BCRYPT_HASH_LEN) &&
                all_zero(cases[2].out, KDF_BCRYPT_HASH_LEN),
            "lanes: stopped lanes report it and are zeroed");
}

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Cost-10 hashes per CPU second with 1..4 lanes. Thread CPU time, not wall
 * time, so other load on the machine changes the figures less. */
static int bench_lanes(int runs) {
  lane_case cases[KDF_BCRYPT_MAX_LANES];
  const kdf_bcrypt_params *lanes[KDF_BCRYPT_MAX_LANES];
  int rc[KDF_BCRYPT_MAX_LANES];
  double t[64], one = 0;
  if (runs < 1) runs = 1;
  if (runs > 64) runs = 64;
  for (unsigned j = 0; j < KDF_BCRYPT_MAX_LANES; j++) {
    lane_random(&cases[j]);
    cases[j].p.cost = 10;
    lanes[j] = &cases[j].p;
  }
  for (unsigned n = 1; n <= KDF_BCRYPT_MAX_LANES; n++) {
    for (int i = 0; i < runs; i++) {
      double t0 = cpu_ms();
      if (kdf_bcrypt_lanes(lanes, n, rc, NULL) != 0) return 1;
      t[i] = cpu_ms() - t0;
    }
    qsort(t, (size_t)runs, sizeof(t[0]), cmp_double);
    double per_sec = 1000.0 * n / t[runs / 2];
    if (n == 1) one = per_sec;
    printf(
        "bcrypt cost 10, %u lane%s: median %.2f CPU ms per batch, %.1f hashes per CPU second "
        "(%.2fx one lane)\n",
        n, n > 1 ? "s" : "", t[runs / 2], per_sec, per_sec / one);
  }
  return 0;
}

/* ---- no password left on the stack ------------------------------------ */

static const uint8_t spill_pwd[32] = "bcrypt password, must not stay!";

__attribute__((noinline)) static int one_bcrypt(unsigned lanes,
                                                uint8_t out[][KDF_BCRYPT_HASH_LEN]) {
  kdf_bcrypt_params p[KDF_BCRYPT_MAX_LANES];
  const kdf_bcrypt_params *ps[KDF_BCRYPT_MAX_LANES];
  int rc[KDF_BCRYPT_MAX_LANES];
  for (unsigned i = 0; i < lanes; i++) {
    p[i] = (kdf_bcrypt_params){ spill_pwd, sizeof spill_pwd - 1,
                                test_salt, KDF_BCRYPT_SALT_LEN,
                                5,         'b',
                                out[i],    KDF_BCRYPT_HASH_LEN };
    ps[i] = &p[i];
  }
  return kdf_bcrypt_lanes(ps, lanes, rc, NULL);
}

/* The key words (password bytes, big-endian, cycled) feed every expansion
 * round from registers the compiler spills; none may be left in the frames
 * below the caller once the KDF has returned, alone or in lanes. */
static void test_no_password_on_stack(void) {
#if defined(__SANITIZE_ADDRESS__)
  printf("stack wipe: skipped (AddressSanitizer build)\n");
#else
  uint32_t words[8];
  size_t n = words_of(spill_pwd, sizeof spill_pwd - 1, words);
  scribble_stack();
  leave_copy(spill_pwd, sizeof spill_pwd);
  CHECK_MSG(words_below(words, n, 2 * SECURE_WIPE_STACK_BYTES) > 0,
            "bcrypt: the probe finds a copy left on the stack (control)");
  for (unsigned lanes = 1; lanes <= KDF_BCRYPT_MAX_LANES; lanes += KDF_BCRYPT_MAX_LANES - 1) {
    uint8_t out[KDF_BCRYPT_MAX_LANES][KDF_BCRYPT_HASH_LEN];
    scribble_stack();
    int rc = one_bcrypt(lanes, out);
    size_t found = words_below(words, n, 2 * SECURE_WIPE_STACK_BYTES);
    CHECK_MSG(rc == 0, "bcrypt %u lanes: run", lanes);
    CHECK_MSG(found == 0, "bcrypt %u lanes: %zu of %zu password words left on the stack", lanes,
              found, n);
  }
#endif
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "bench") == 0) return bench(argc >= 3 ? atoi(argv[2]) : 7);
  if (argc >= 2 && strcmp(argv[1], "lanes") == 0) return bench_lanes(argc >= 3 ? atoi(argv[2]) : 7);

  /* A stop flag that is never noticed would hang the suite: fail instead. */
  alarm(600);
  test_vectors(argc >= 2 ? argv[1] : BCRYPT_VECTORS);
  test_key_length_rules();
  test_bad_args();
  test_stop();
  test_lanes();
  test_no_password_on_stack();
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_exit();
}
