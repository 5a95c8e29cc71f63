/* Argon2 (RFC 9106) on our BLAKE2b. Lanes run one after the other on the
 * calling thread: for each pass, for each slice, for each lane, one segment,
 * which respects the sync points between slices. The block compression is
 * one of several variants (fill_*.c) picked once per process. */
#include "kdf/argon2/argon2.h"

#include "common/status.h"
#include "common/stop.h"
#include "common/wipe.h"
#include "kdf/argon2/blake2b.h"
#include "kdf/argon2/internal.h"
#include "kdf/cpu.h"

#include <stdint.h>
#include <string.h>

#define ARGON2_SYNC_POINTS         4
#define ARGON2_PREHASH_BYTES       64
#define ARGON2_ADDRESSES_PER_BLOCK ARGON2_QWORDS
#define ARGON2_MAX_LEN             0xFFFFFFFFULL

/* ---- variant choice (kdf/cpu.h) ---------------------------------------- */

static const kdf_cpu_variant variants[] = {
  { "portable", KDF_CPU_NONE },
  /* x86-64 */
  { "ssse3", KDF_CPU_SSSE3 },
  { "avx2", KDF_CPU_AVX2 },
  { "avx512", KDF_CPU_AVX512F },
  /* AArch64 */
  { "neon", KDF_CPU_NEON },
};

/* Same order as `variants`; kdf_cpu_has() is false for the NULL ones. One
 * entry a line, so the two lists read side by side. */
/* clang-format off */
static const argon2_fill_fn fills[] = {
  argon2_fill_portable,
#ifdef ARGON2_HAVE_X86
  argon2_fill_ssse3,
  argon2_fill_avx2,
  argon2_fill_avx512,
#else
  NULL,
  NULL,
  NULL,
#endif
#ifdef ARGON2_HAVE_NEON
  argon2_fill_neon,
#else
  NULL,
#endif
};
/* clang-format on */

static kdf_cpu_selector selector = { variants, (int)(sizeof variants / sizeof variants[0]), -1 };

int kdf_argon2_force_variant(const char *name) { return kdf_cpu_force(&selector, name); }

const char *kdf_argon2_variant(void) { return variants[kdf_cpu_select(&selector)].name; }

/* ---- parameters ---------------------------------------------------------- */

static int bad_input(const uint8_t *ptr, size_t len) {
  return (uint64_t)len > ARGON2_MAX_LEN || (ptr == NULL && len != 0);
}

int kdf_argon2_check(const kdf_argon2_params *p) {
  if (p == NULL) return STATUS_EINVAL;
  if (p->type != KDF_ARGON2D && p->type != KDF_ARGON2I && p->type != KDF_ARGON2ID)
    return STATUS_EINVAL;
  if (p->version != KDF_ARGON2_VERSION_10 && p->version != KDF_ARGON2_VERSION_13)
    return STATUS_EINVAL;
  if (p->lanes < 1 || p->lanes > KDF_ARGON2_MAX_LANES) return STATUS_EINVAL;
  if ((uint64_t)p->m_cost < 8ULL * p->lanes) return STATUS_EINVAL;
  if (p->t_cost < 1) return STATUS_EINVAL;
  if (p->out == NULL || p->outlen < KDF_ARGON2_MIN_OUT || (uint64_t)p->outlen > ARGON2_MAX_LEN)
    return STATUS_EINVAL;
  if (p->salt == NULL || p->saltlen < KDF_ARGON2_MIN_SALT) return STATUS_EINVAL;
  if (bad_input(p->pwd, p->pwdlen) || bad_input(p->salt, p->saltlen) ||
      bad_input(p->secret, p->secretlen) || bad_input(p->ad, p->adlen))
    return STATUS_EINVAL;
  if (kdf_argon2_memory_size(p) == 0) return STATUS_EINVAL; /* > SIZE_MAX */
  return 0;
}

/* 0 when lanes is 0 or the size does not fit in size_t (32-bit hosts). */
size_t kdf_argon2_memory_size(const kdf_argon2_params *p) {
  if (p == NULL || p->lanes == 0) return 0;
  uint64_t unit = (uint64_t)ARGON2_SYNC_POINTS * p->lanes;
  uint64_t blocks = unit * (p->m_cost / unit);
  uint64_t bytes = blocks * KDF_ARGON2_BLOCK_SIZE;
  if (bytes > (uint64_t)SIZE_MAX) return 0;
  return (size_t)bytes;
}

int kdf_argon2_prepare(const kdf_argon2_params *p, size_t *memory) {
  *memory = 0;
  int rc = kdf_argon2_check(p);
  if (rc == 0) *memory = kdf_argon2_memory_size(p);
  return rc;
}

/* ---- byte helpers and H' ------------------------------------------------- */

static void store32_le(uint8_t *d, uint32_t v) {
  d[0] = (uint8_t)v;
  d[1] = (uint8_t)(v >> 8);
  d[2] = (uint8_t)(v >> 16);
  d[3] = (uint8_t)(v >> 24);
}

static void update32(kdf_blake2b_state *s, uint32_t v) {
  uint8_t b[4];
  store32_le(b, v);
  kdf_blake2b_update(s, b, sizeof b);
}

static void block_from_bytes(argon2_block *b, const uint8_t *in) {
  for (unsigned i = 0; i < ARGON2_QWORDS; i++) {
    const uint8_t *q = in + 8 * i;
    b->v[i] = (uint64_t)q[0] | ((uint64_t)q[1] << 8) | ((uint64_t)q[2] << 16) |
              ((uint64_t)q[3] << 24) | ((uint64_t)q[4] << 32) | ((uint64_t)q[5] << 40) |
              ((uint64_t)q[6] << 48) | ((uint64_t)q[7] << 56);
  }
}

static void block_to_bytes(uint8_t *out, const argon2_block *b) {
  for (unsigned i = 0; i < ARGON2_QWORDS; i++)
    for (unsigned j = 0; j < 8; j++) out[8 * i + j] = (uint8_t)(b->v[i] >> (8 * j));
}

/* H'^outlen(in1 || in2) from RFC 9106 section 3.3, for any outlen >= 1. */
static void hprime(uint8_t *out, size_t outlen, const uint8_t *in1, size_t in1len,
                   const uint8_t *in2, size_t in2len) {
  kdf_blake2b_state s;
  uint8_t v[KDF_BLAKE2B_OUTBYTES];
  size_t first = outlen <= KDF_BLAKE2B_OUTBYTES ? outlen : KDF_BLAKE2B_OUTBYTES;
  kdf_blake2b_init(&s, first, NULL, 0);
  update32(&s, (uint32_t)outlen);
  kdf_blake2b_update(&s, in1, in1len);
  if (in2len) kdf_blake2b_update(&s, in2, in2len);
  if (outlen <= KDF_BLAKE2B_OUTBYTES) {
    kdf_blake2b_final(&s, out);
    return;
  }
  /* V1 = H^64(...), then V_{k+1} = H^64(V_k), emitting the first half of each
   * V until at most 64 bytes remain, which the last V supplies whole. */
  kdf_blake2b_final(&s, v);
  memcpy(out, v, 32);
  out += 32;
  size_t left = outlen - 32;
  while (left > KDF_BLAKE2B_OUTBYTES) {
    kdf_blake2b(v, KDF_BLAKE2B_OUTBYTES, v, KDF_BLAKE2B_OUTBYTES, NULL, 0);
    memcpy(out, v, 32);
    out += 32;
    left -= 32;
  }
  kdf_blake2b(v, left, v, KDF_BLAKE2B_OUTBYTES, NULL, 0);
  memcpy(out, v, left);
  secure_wipe(v, sizeof v);
}

/* H0 (RFC 9106 section 3.2). */
static void initial_hash(uint8_t h0[ARGON2_PREHASH_BYTES], const kdf_argon2_params *p) {
  kdf_blake2b_state s;
  kdf_blake2b_init(&s, ARGON2_PREHASH_BYTES, NULL, 0);
  update32(&s, p->lanes);
  update32(&s, (uint32_t)p->outlen);
  update32(&s, p->m_cost);
  update32(&s, p->t_cost);
  update32(&s, p->version);
  update32(&s, (uint32_t)p->type);
  update32(&s, (uint32_t)p->pwdlen);
  if (p->pwdlen) kdf_blake2b_update(&s, p->pwd, p->pwdlen);
  update32(&s, (uint32_t)p->saltlen);
  kdf_blake2b_update(&s, p->salt, p->saltlen);
  update32(&s, (uint32_t)p->secretlen);
  if (p->secretlen) kdf_blake2b_update(&s, p->secret, p->secretlen);
  update32(&s, (uint32_t)p->adlen);
  if (p->adlen) kdf_blake2b_update(&s, p->ad, p->adlen);
  kdf_blake2b_final(&s, h0);
}

/* ---- filling ------------------------------------------------------------- */

typedef struct {
  argon2_block *mem;
  uint32_t lanes;
  uint32_t lane_len; /* q = m' / lanes */
  uint32_t seg_len;  /* q / 4 */
  uint32_t mprime;
  uint32_t passes;
  uint32_t type;
  uint32_t version;
  argon2_fill_fn fill;
  /* Scratch for the fill variants and the address generator; wiped once
   * at the end. */
  argon2_block scratch[2];
  argon2_block zero, input, addr, tmp;
} argon2_ctx;

static void next_addresses(argon2_ctx *c) {
  c->input.v[6]++;
  c->fill(&c->tmp, &c->zero, &c->input, 0, c->scratch);
  c->fill(&c->addr, &c->zero, &c->tmp, 0, c->scratch);
}

static void fill_segment(argon2_ctx *c, uint32_t pass, uint32_t slice, uint32_t lane) {
  const uint32_t q = c->lane_len, seg = c->seg_len;
  const int indep = c->type == KDF_ARGON2I || (c->type == KDF_ARGON2ID && pass == 0 && slice < 2);
  const int xor_dst = pass > 0 && c->version == KDF_ARGON2_VERSION_13;
  uint32_t i = (pass == 0 && slice == 0) ? 2 : 0;
  argon2_block *lane_base = c->mem + (size_t)lane * q;
  uint32_t cur = slice * seg + i; /* index within the lane */

  if (indep) {
    memset(&c->input, 0, sizeof c->input);
    c->input.v[0] = pass;
    c->input.v[1] = lane;
    c->input.v[2] = slice;
    c->input.v[3] = c->mprime;
    c->input.v[4] = c->passes;
    c->input.v[5] = c->type;
    if (i != 0) next_addresses(c);
  }

  /* Start of the reference window within a lane: the segment after this
   * one on later passes (wrapping), the lane start on the first pass. */
  uint32_t start = 0;
  if (pass > 0 && slice != ARGON2_SYNC_POINTS - 1) start = (slice + 1) * seg;
  /* Blocks finished in other lanes / earlier in this lane. */
  uint64_t base_area = pass == 0 ? (uint64_t)slice * seg : (uint64_t)q - seg;

  for (; i < seg; i++, cur++) {
    argon2_block *prev = lane_base + (cur == 0 ? q - 1 : cur - 1);
    uint64_t rnd;
    if (indep) {
      if (i % ARGON2_ADDRESSES_PER_BLOCK == 0) next_addresses(c);
      rnd = c->addr.v[i % ARGON2_ADDRESSES_PER_BLOCK];
    } else {
      rnd = prev->v[0];
    }
    uint32_t j1 = (uint32_t)rnd, j2 = (uint32_t)(rnd >> 32);
    uint32_t ref_lane = (pass == 0 && slice == 0) ? lane : j2 % c->lanes;
    uint64_t area;
    if (ref_lane == lane)
      area = base_area + i - 1; /* all but the previous block */
    else
      area = base_area - (i == 0); /* not the other lane's last block
                                          when it is our prev's sibling */
    uint64_t x = ((uint64_t)j1 * j1) >> 32;
    uint64_t y = (area * x) >> 32;
    uint64_t rel = area - 1 - y;
    uint32_t ref_idx = (uint32_t)((start + rel) % q);
    c->fill(lane_base + cur, prev, c->mem + (size_t)ref_lane * q + ref_idx, xor_dst, c->scratch);
  }
}

int kdf_argon2_run(const kdf_argon2_params *p, void *memory, size_t memory_size,
                   const volatile int *stop) {
  int rc = kdf_argon2_check(p);
  size_t need = rc == 0 ? kdf_argon2_memory_size(p) : 0;
  if (rc == 0 && (memory == NULL || memory_size < need)) rc = STATUS_EINVAL;
  if (rc != 0) {
    if (p != NULL && p->out != NULL && p->outlen > 0 && (uint64_t)p->outlen <= ARGON2_MAX_LEN)
      memset(p->out, 0, p->outlen);
    return rc;
  }

  argon2_ctx c;
  uint8_t h0[ARGON2_PREHASH_BYTES];
  uint8_t bytes[KDF_ARGON2_BLOCK_SIZE];
  uint8_t tail[8];

  memset(&c.zero, 0, sizeof c.zero);
  c.mem = (argon2_block *)memory;
  c.lanes = p->lanes;
  c.mprime = (uint32_t)(need / KDF_ARGON2_BLOCK_SIZE);
  c.lane_len = c.mprime / p->lanes;
  c.seg_len = c.lane_len / ARGON2_SYNC_POINTS;
  c.passes = p->t_cost;
  c.type = (uint32_t)p->type;
  c.version = p->version;
  c.fill = fills[kdf_cpu_select(&selector)];

  initial_hash(h0, p);
  for (uint32_t l = 0; l < c.lanes; l++) {
    for (uint32_t k = 0; k < 2; k++) {
      store32_le(tail, k);
      store32_le(tail + 4, l);
      hprime(bytes, sizeof bytes, h0, sizeof h0, tail, sizeof tail);
      block_from_bytes(c.mem + (size_t)l * c.lane_len + k, bytes);
    }
  }

  rc = 0;
  for (uint32_t pass = 0; pass < c.passes && rc == 0; pass++) {
    for (uint32_t slice = 0; slice < ARGON2_SYNC_POINTS && rc == 0; slice++) {
      for (uint32_t l = 0; l < c.lanes; l++) {
        if (stop_requested(stop)) {
          rc = STATUS_ESTOPPED;
          break;
        }
        fill_segment(&c, pass, slice, l);
      }
    }
  }

  if (rc == 0) {
    /* C = XOR of every lane's last block; tag = H'^T(C). */
    argon2_block *fin = &c.tmp;
    memcpy(fin, c.mem + c.lane_len - 1, sizeof *fin);
    for (uint32_t l = 1; l < c.lanes; l++) {
      const argon2_block *b = c.mem + (size_t)l * c.lane_len + c.lane_len - 1;
      for (unsigned i = 0; i < ARGON2_QWORDS; i++) fin->v[i] ^= b->v[i];
    }
    block_to_bytes(bytes, fin);
    hprime(p->out, p->outlen, bytes, sizeof bytes, NULL, 0);
  } else {
    memset(p->out, 0, p->outlen);
  }

  secure_wipe(memory, need);
  secure_wipe(&c, sizeof c);
  secure_wipe(h0, sizeof h0);
  secure_wipe(bytes, sizeof bytes);
  /* What the callees left in their frames: BLAKE2b's message words (the
   * password, the pepper, H0) and the fill's spills, none in a buffer the
   * code could wipe by name. */
  secure_wipe_stack();
  return rc;
}

/* ns per 1 KiB block per pass (bench/calibrate.js, x86-64 with AVX-512;
 * neon is not measured here and takes the portable figure). */
static const kdf_cpu_unit_cost block_ns[] = {
  { "portable", 820 }, { "ssse3", 410 }, { "avx2", 205 }, { "avx512", 125 }, { NULL, 0 },
};

uint64_t kdf_argon2_cost_ns(const kdf_argon2_params *p) {
  uint64_t lanes = p->lanes ? p->lanes : 1;
  double blocks = (double)(4 * lanes * (p->m_cost / (4 * lanes)));
  return kdf_cpu_cost_ns(blocks * p->t_cost, kdf_cpu_unit_ns(block_ns, kdf_argon2_variant()));
}
