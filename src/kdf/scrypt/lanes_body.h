/* Private to scrypt/: the body of a multi-lane BlockMix, included by each
 * x86 variant file after it defines what one "wide vector" is. BlockMix's
 * Salsa20/8 is one chain of dependent steps (add, rotate, xor), so a single
 * lane leaves most of the core's vector units idle; lanes of independent
 * scrypt computations fill them. A wide vector W holds the same diagonal
 * (the permuted layout of scrypt/internal.h) of LANES_GROUP lanes, one per
 * 128-bit part, where the lane shuffles stay within their part; LANES_SETS
 * independent sets of W are interleaved on top of that. The function
 * handles LANES_SETS * LANES_GROUP lanes, lane k * LANES_GROUP + g being
 * part g of set k.
 *
 * The includer defines:
 *   LANES_FN          the function's name
 *   LANES_TARGET      its target attribute (may be empty)
 *   LANES_SETS        register sets interleaved (1 or 2)
 *   LANES_GROUP       lanes per wide vector (1, 2 or 4)
 *   W                 the wide vector type (GNU vector of uint32_t)
 *   W_LOAD(p, k, off)     set k's vector of words off.. of lanes p[k*G+g]
 *   W_STORE(p, k, off, v) the inverse
 *   W_LANES_1/2/3(v)  every 128-bit part turned by 1, 2, 3 words
 */

/* Makes the compiler keep each set in registers (the arrays below are
 * scalarized only when these loops are fully unrolled). */
#define LANES_EACH _Pragma("GCC unroll 4") for (int k = 0; k < LANES_SETS; k++)

#define LANES_ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

/* out[l] = BlockMix(in[l] ^ xv[l]) and j[l] = Integerify(out[l]) for every
 * lane l; xv is NULL or has a pointer for every lane. */
static LANES_TARGET void LANES_FN(const uint32_t *const in[], const uint32_t *const xv[],
                                  uint32_t *const out[], size_t r, uint64_t j[]) {
  const size_t last = (2 * r - 1) * WORDS_PER_SALSA_BLOCK;
  W a[LANES_SETS], b[LANES_SETS], c[LANES_SETS], d[LANES_SETS];
  LANES_EACH {
    a[k] = W_LOAD(in, k, last);
    b[k] = W_LOAD(in, k, last + 4);
    c[k] = W_LOAD(in, k, last + 8);
    d[k] = W_LOAD(in, k, last + 12);
    if (xv != NULL) {
      a[k] ^= W_LOAD(xv, k, last);
      b[k] ^= W_LOAD(xv, k, last + 4);
      c[k] ^= W_LOAD(xv, k, last + 8);
      d[k] ^= W_LOAD(xv, k, last + 12);
    }
  }
  for (size_t i = 0; i < 2 * r; i++) {
    const size_t at = i * WORDS_PER_SALSA_BLOCK;
    W a0[LANES_SETS], b0[LANES_SETS], c0[LANES_SETS], d0[LANES_SETS];
    LANES_EACH {
      a[k] ^= W_LOAD(in, k, at);
      b[k] ^= W_LOAD(in, k, at + 4);
      c[k] ^= W_LOAD(in, k, at + 8);
      d[k] ^= W_LOAD(in, k, at + 12);
      if (xv != NULL) {
        a[k] ^= W_LOAD(xv, k, at);
        b[k] ^= W_LOAD(xv, k, at + 4);
        c[k] ^= W_LOAD(xv, k, at + 8);
        d[k] ^= W_LOAD(xv, k, at + 12);
      }
      a0[k] = a[k];
      b0[k] = b[k];
      c0[k] = c[k];
      d0[k] = d[k];
    }
    _Pragma("GCC unroll 4") for (int round = 0; round < 4; round++) {
      /* The same steps as blockmix_sse2.c, one set after the other inside
       * each step, so that the sets' chains overlap. */
      LANES_EACH b[k] ^= LANES_ROTL(a[k] + d[k], 7);
      LANES_EACH c[k] ^= LANES_ROTL(b[k] + a[k], 9);
      LANES_EACH d[k] ^= LANES_ROTL(c[k] + b[k], 13);
      LANES_EACH a[k] ^= LANES_ROTL(d[k] + c[k], 18);
      LANES_EACH {
        b[k] = W_LANES_3(b[k]);
        c[k] = W_LANES_2(c[k]);
        d[k] = W_LANES_1(d[k]);
      }
      LANES_EACH d[k] ^= LANES_ROTL(a[k] + b[k], 7);
      LANES_EACH c[k] ^= LANES_ROTL(d[k] + a[k], 9);
      LANES_EACH b[k] ^= LANES_ROTL(c[k] + d[k], 13);
      LANES_EACH a[k] ^= LANES_ROTL(b[k] + c[k], 18);
      LANES_EACH {
        b[k] = W_LANES_1(b[k]);
        c[k] = W_LANES_2(c[k]);
        d[k] = W_LANES_3(d[k]);
      }
    }
    /* Even blocks go to the first half of out, odd ones to the second. */
    const size_t to = ((i >> 1) + (i & 1) * r) * WORDS_PER_SALSA_BLOCK;
    LANES_EACH {
      a[k] += a0[k];
      b[k] += b0[k];
      c[k] += c0[k];
      d[k] += d0[k];
      W_STORE(out, k, to, a[k]);
      W_STORE(out, k, to + 4, b[k]);
      W_STORE(out, k, to + 8, c[k]);
      W_STORE(out, k, to + 12, d[k]);
    }
  }
  /* Word 0 of the last block sits at position 0, word 1 at 13 (a's lane 0
   * and d's lane 1 of each part). */
  LANES_EACH for (int g = 0; g < LANES_GROUP; g++) j[k * LANES_GROUP + g] =
      (uint64_t)a[k][4 * g] | (uint64_t)d[k][4 * g + 1] << 32;
}

#undef LANES_EACH
#undef LANES_ROTL
