/* SipHash-2-4, from the paper's specification (siphash.h). Byte order is
 * explicit, so the value is the same on every platform. */
#include "common/siphash.h"

static uint64_t rotl(uint64_t x, unsigned b) { return (x << b) | (x >> (64 - b)); }

static uint64_t load_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* One SipRound on the four words, as a macro: a function that takes them
 * by pointer was not inlined, which kept the state in memory (the hash is
 * on the path of every call that names a fairKey). */
#define SIP_ROUND(v0, v1, v2, v3) \
  do {                            \
    v0 += v1;                     \
    v1 = rotl(v1, 13);            \
    v1 ^= v0;                     \
    v0 = rotl(v0, 32);            \
    v2 += v3;                     \
    v3 = rotl(v3, 16);            \
    v3 ^= v2;                     \
    v0 += v3;                     \
    v3 = rotl(v3, 21);            \
    v3 ^= v0;                     \
    v2 += v1;                     \
    v1 = rotl(v1, 17);            \
    v1 ^= v2;                     \
    v2 = rotl(v2, 32);            \
  } while (0)

/* Two rounds over one message word. */
#define SIP_COMPRESS(v0, v1, v2, v3, m) \
  do {                                  \
    v3 ^= (m);                          \
    SIP_ROUND(v0, v1, v2, v3);          \
    SIP_ROUND(v0, v1, v2, v3);          \
    v0 ^= (m);                          \
  } while (0)

uint64_t siphash24(const uint8_t key[16], const void *data, size_t len) {
  const uint8_t *in = data;
  uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
  uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
  size_t whole = len - len % 8;
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t m = load_le64(in + i);
    SIP_COMPRESS(v0, v1, v2, v3, m);
  }
  uint64_t last = (uint64_t)(len & 0xff) << 56;
  for (size_t i = 0; i < len % 8; i++) last |= (uint64_t)in[whole + i] << (8 * i);
  SIP_COMPRESS(v0, v1, v2, v3, last);
  v2 ^= 0xff;
  for (int i = 0; i < 4; i++) SIP_ROUND(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}
