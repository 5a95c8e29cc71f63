/* SipHash-2-4, from the paper's specification (siphash.h). Byte order is
 * explicit, so the value is the same on every platform. */
#include "common/siphash.h"

static uint64_t rotl(uint64_t x, unsigned b) { return (x << b) | (x >> (64 - b)); }

static uint64_t load_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

typedef struct {
  uint64_t v0, v1, v2, v3;
} sip_state;

static void sip_round(sip_state *s) {
  s->v0 += s->v1;
  s->v1 = rotl(s->v1, 13);
  s->v1 ^= s->v0;
  s->v0 = rotl(s->v0, 32);
  s->v2 += s->v3;
  s->v3 = rotl(s->v3, 16);
  s->v3 ^= s->v2;
  s->v0 += s->v3;
  s->v3 = rotl(s->v3, 21);
  s->v3 ^= s->v0;
  s->v2 += s->v1;
  s->v1 = rotl(s->v1, 17);
  s->v1 ^= s->v2;
  s->v2 = rotl(s->v2, 32);
}

static void compress(sip_state *s, uint64_t m) {
  s->v3 ^= m;
  sip_round(s);
  sip_round(s);
  s->v0 ^= m;
}

uint64_t siphash24(const uint8_t key[16], const void *data, size_t len) {
  const uint8_t *in = data;
  uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
  sip_state s = { k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
                  k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull };
  size_t whole = len - len % 8;
  for (size_t i = 0; i < whole; i += 8) compress(&s, load_le64(in + i));
  uint64_t last = (uint64_t)(len & 0xff) << 56;
  for (size_t i = 0; i < len % 8; i++) last |= (uint64_t)in[whole + i] << (8 * i);
  compress(&s, last);
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; i++) sip_round(&s);
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
