/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The element-wise int8 kernels: add, sub, mul, maximum and minimum with
 * broadcasting, lookup tables, requantising copies, and the conversions
 * at a graph's edges (u8 to i8, int8 to float); the AVX2 forms are
 * picked at run time (elt_use_avx2). The arithmetic is defined in
 * kernels-private.h. Built at -O3, like every kernel file. */

#include "kernels-private.h"

#include <math.h>
#include <string.h>

/* half the element-wise shift: add splits its multipliers there */
#define ELTWISE_HALF_SHIFT (SIMNPU_ELTWISE_SHIFT / 2)
G_STATIC_ASSERT (SIMNPU_ELTWISE_SHIFT % 2 == 0);

/* floor ((v * m + 2^(SHIFT - 1)) / 2^SHIFT) in 32 bits, for m = mh *
 * 2^H + ml (H = SHIFT / 2, 0 <= ml < 2^H) in int32 and |v| <= 255: as
 * in eltwise_flat's add, nested floors of divisions by 2^H compose,
 * |v * mh| < 2^28 and |v * ml + round| < 2^24. Vectorises as 32-bit
 * multiplies where the 64-bit product does not. */
static inline int32_t
requant32 (int32_t v, int32_t mh, int32_t ml)
{
  const int32_t round = 1 << (SIMNPU_ELTWISE_SHIFT - 1);

  return (v * mh + ((v * ml + round) >> ELTWISE_HALF_SHIFT))
      >> ELTWISE_HALF_SHIFT;
}

bool simnpu__elt_avx2_disabled;

void
simnpu__kernels_disable_avx2 (bool disable)
{
  simnpu__elt_avx2_disabled = disable;
}

#ifdef SIMNPU_MAC_AVX2
/* elements per step of the element-wise AVX2 kernels */
#define ELT_AVX2_STEP 16
/* bytes per step of lut_avx2, and its table's 16-entry rows */
#define LUT_AVX2_STEP 32
#define LUT_ROWS 16
#define LUT_ROW 16
#define LUT_LOW_NIBBLE 0x0f
#define LUT_INDEX_FLIP ((char) 0x80)

/* The element-wise kernels work on 16 elements widened to int16 (their
 * values minus the zero point, |v| <= 255); the lane-wise unpacks of two
 * such vectors give 32-bit pairs of elements 0-3 and 8-11 (p0) and 4-7 and
 * 12-15 (p1), which the lane-wise saturating packs of store16_avx2 put
 * back in order, saturation being clamp_i8. */
__attribute__((target ("avx2")))
     static inline __m256i load16_avx2 (const int8_t * p, __m256i zp)
{
  return _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const
                  __m128i *) (const void *) p)), zp);
}

__attribute__((target ("avx2")))
     static inline void store16_avx2 (int8_t * o, __m256i r0, __m256i r1)
{
  __m256i q = _mm256_packs_epi32 (r0, r1);

  _mm_storeu_si128 ((__m128i *) (void *) o,
      _mm_packs_epi16 (_mm256_castsi256_si128 (q),
          _mm256_extracti128_si256 (q, 1)));
}

/* requant32's (hi + ((lo + round) >> H)) >> H from the multiply-adds hi
 * and lo of the split multiplier's halves */
__attribute__((target ("avx2")))
     static inline __m256i split_round_avx2 (__m256i hi, __m256i lo,
    __m256i round)
{
  return _mm256_srai_epi32 (_mm256_add_epi32 (hi,
          _mm256_srai_epi32 (_mm256_add_epi32 (lo, round),
              ELTWISE_HALF_SHIFT)), ELTWISE_HALF_SHIFT);
}

/* requant_copy's 32-bit path for a high half mh in 16 bits: requant32 of
 * each element as one multiply-add per half of the (v, 0) pairs. Does the
 * elements up to a multiple of ELT_AVX2_STEP and returns how many. */
__attribute__((target ("avx2"), noinline))
     static size_t requant_avx2 (const int8_t * restrict in,
    int8_t * restrict out, size_t n, int32_t zp_in, int32_t zp_out,
    int32_t mh, int32_t ml)
{
  const __m256i zi = _mm256_set1_epi16 ((int16_t) zp_in);
  const __m256i h = _mm256_set1_epi32 ((int32_t) weight_pair (mh, 0));
  const __m256i l = _mm256_set1_epi32 ((int32_t) weight_pair (ml, 0));
  const __m256i round = _mm256_set1_epi32 (1 << (SIMNPU_ELTWISE_SHIFT - 1));
  const __m256i zo = _mm256_set1_epi32 (zp_out);
  const __m256i zero = _mm256_setzero_si256 ();
  const size_t m = n - n % ELT_AVX2_STEP;
  size_t i;

  for (i = 0; i < m; i += ELT_AVX2_STEP) {
    __m256i v = load16_avx2 (in + i, zi);
    __m256i p0 = _mm256_unpacklo_epi16 (v, zero);
    __m256i p1 = _mm256_unpackhi_epi16 (v, zero);
    __m256i r0 = split_round_avx2 (_mm256_madd_epi16 (p0, h),
        _mm256_madd_epi16 (p0, l), round);
    __m256i r1 = split_round_avx2 (_mm256_madd_epi16 (p1, h),
        _mm256_madd_epi16 (p1, l), round);
    store16_avx2 (out + i, _mm256_add_epi32 (r0, zo), _mm256_add_epi32 (r1,
            zo));
  }
  return m;
}

/* minmax_flat's 32-bit path for high halves in 16 bits: each operand
 * requantised as in requant_avx2 (the other's multipliers zero in the
 * pairs), then the 32-bit max or min. */
__attribute__((target ("avx2"), noinline))
     static size_t minmax_avx2 (bool is_max, const int8_t * restrict a,
    int32_t zp_a, const int8_t * restrict b, int32_t zp_b,
    int8_t * restrict out, size_t n, int32_t zp_out, int32_t mah,
    int32_t mbh, int32_t mal, int32_t mbl)
{
  const __m256i za = _mm256_set1_epi16 ((int16_t) zp_a);
  const __m256i zb = _mm256_set1_epi16 ((int16_t) zp_b);
  const __m256i ha = _mm256_set1_epi32 ((int32_t) weight_pair (mah, 0));
  const __m256i la = _mm256_set1_epi32 ((int32_t) weight_pair (mal, 0));
  const __m256i hb = _mm256_set1_epi32 ((int32_t) weight_pair (0, mbh));
  const __m256i lb = _mm256_set1_epi32 ((int32_t) weight_pair (0, mbl));
  const __m256i round = _mm256_set1_epi32 (1 << (SIMNPU_ELTWISE_SHIFT - 1));
  const __m256i zo = _mm256_set1_epi32 (zp_out);
  const size_t m = n - n % ELT_AVX2_STEP;
  size_t i;

  for (i = 0; i < m; i += ELT_AVX2_STEP) {
    __m256i va = load16_avx2 (a + i, za), vb = load16_avx2 (b + i, zb);
    __m256i p0 = _mm256_unpacklo_epi16 (va, vb);
    __m256i p1 = _mm256_unpackhi_epi16 (va, vb);
    __m256i a0 = split_round_avx2 (_mm256_madd_epi16 (p0, ha),
        _mm256_madd_epi16 (p0, la), round);
    __m256i a1 = split_round_avx2 (_mm256_madd_epi16 (p1, ha),
        _mm256_madd_epi16 (p1, la), round);
    __m256i b0 = split_round_avx2 (_mm256_madd_epi16 (p0, hb),
        _mm256_madd_epi16 (p0, lb), round);
    __m256i b1 = split_round_avx2 (_mm256_madd_epi16 (p1, hb),
        _mm256_madd_epi16 (p1, lb), round);
    __m256i r0 = is_max ? _mm256_max_epi32 (a0, b0) : _mm256_min_epi32 (a0,
        b0);
    __m256i r1 = is_max ? _mm256_max_epi32 (a1, b1) : _mm256_min_epi32 (a1,
        b1);
    store16_avx2 (out + i, _mm256_add_epi32 (r0, zo), _mm256_add_epi32 (r1,
            zo));
  }
  return m;
}

/* mul's 32-bit-multiplier path: the product p = (a - za) (b - zb) (|p| <=
 * 255^2) from the 16-bit low and high halves, then m * p in 64 bits for
 * the even and the odd 32-bit lanes; the logical shift keeps bits SHIFT
 * and up, whose low 32 bits are the arithmetic shift's since the result
 * (|m * p| / 2^SHIFT < 2^23) fits. */
__attribute__((target ("avx2")))
     static inline __m256i mul_round_avx2 (__m256i p, __m256i m, __m256i round)
{
  __m256i even = _mm256_add_epi64 (_mm256_mul_epi32 (p, m), round);
  __m256i odd = _mm256_add_epi64 (_mm256_mul_epi32 (_mm256_srli_epi64 (p,
              32), m), round);

  even = _mm256_srli_epi64 (even, SIMNPU_ELTWISE_SHIFT);
  /* bits SHIFT.. of the odd product into the upper 32 bits */
  odd = _mm256_slli_epi64 (odd, 32 - SIMNPU_ELTWISE_SHIFT);
  return _mm256_blend_epi32 (even, odd, 0xaa);
}

__attribute__((target ("avx2"), noinline))
     static size_t mul_avx2 (const int8_t * restrict a, int32_t zp_a,
    const int8_t * restrict b, int32_t zp_b, int8_t * restrict out, size_t n,
    int32_t zp_out, int32_t mult)
{
  const __m256i za = _mm256_set1_epi16 ((int16_t) zp_a);
  const __m256i zb = _mm256_set1_epi16 ((int16_t) zp_b);
  const __m256i m = _mm256_set1_epi32 (mult);
  const __m256i round = _mm256_set1_epi64x (G_GINT64_CONSTANT (1) <<
      (SIMNPU_ELTWISE_SHIFT - 1));
  const __m256i zo = _mm256_set1_epi32 (zp_out);
  const size_t k = n - n % ELT_AVX2_STEP;
  size_t i;

  for (i = 0; i < k; i += ELT_AVX2_STEP) {
    __m256i va = load16_avx2 (a + i, za), vb = load16_avx2 (b + i, zb);
    __m256i lo = _mm256_mullo_epi16 (va, vb);
    __m256i hi = _mm256_mulhi_epi16 (va, vb);
    __m256i r0 = mul_round_avx2 (_mm256_unpacklo_epi16 (lo, hi), m, round);
    __m256i r1 = mul_round_avx2 (_mm256_unpackhi_epi16 (lo, hi), m, round);
    store16_avx2 (out + i, _mm256_add_epi32 (r0, zo), _mm256_add_epi32 (r1,
            zo));
  }
  return k;
}

/* The table as 16 rows of 16 entries, each row in both 128-bit lanes: a
 * byte shuffle per row looks the low nibble up, and a tree of blends on
 * bits 4 to 7 of the index (each shifted to the byte's top bit, which
 * the blend tests; 16-bit shifts carry nothing across into a byte's top
 * bit) picks the row. */
__attribute__((target ("avx2"), noinline))
     static size_t lut_avx2 (const int8_t * restrict lut,
    const int8_t * restrict in, int8_t * restrict out, size_t n)
{
  __m256i t[LUT_ROWS];
  const __m256i flip = _mm256_set1_epi8 (LUT_INDEX_FLIP);
  const __m256i low = _mm256_set1_epi8 (LUT_LOW_NIBBLE);
  const size_t m = n - n % LUT_AVX2_STEP;
  size_t i;
  int k;

  for (k = 0; k < LUT_ROWS; k++)
    t[k] = _mm256_broadcastsi128_si256 (_mm_loadu_si128 ((const __m128i *)
            (const void *) (lut + k * LUT_ROW)));
  for (i = 0; i < m; i += LUT_AVX2_STEP) {
    __m256i x = _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *)
            (const void *) (in + i)), flip);
    __m256i nib = _mm256_and_si256 (x, low);
    __m256i r[LUT_ROWS];
    __m256i s;
    for (k = 0; k < LUT_ROWS; k++)
      r[k] = _mm256_shuffle_epi8 (t[k], nib);
    s = _mm256_slli_epi16 (x, 3);
    for (k = 0; k < LUT_ROWS / 2; k++)
      r[k] = _mm256_blendv_epi8 (r[2 * k], r[2 * k + 1], s);
    s = _mm256_slli_epi16 (x, 2);
    for (k = 0; k < LUT_ROWS / 4; k++)
      r[k] = _mm256_blendv_epi8 (r[2 * k], r[2 * k + 1], s);
    s = _mm256_slli_epi16 (x, 1);
    for (k = 0; k < LUT_ROWS / 8; k++)
      r[k] = _mm256_blendv_epi8 (r[2 * k], r[2 * k + 1], s);
    _mm256_storeu_si256 ((__m256i *) (void *) (out + i),
        _mm256_blendv_epi8 (r[0], r[1], x));
  }
  return m;
}
#endif

SIMNPU_CLONES void
simnpu__lut (const int8_t * restrict lut, const int8_t * restrict input,
    int8_t * restrict output, size_t n)
{
  size_t i = 0;

#ifdef SIMNPU_MAC_AVX2
  if (elt_use_avx2 ())
    i = lut_avx2 (lut, input, output, n);
#endif
  for (; i < n; i++)
    output[i] = lut[(uint8_t) (input[i] - I8_MIN)];
}

SIMNPU_CLONES void
simnpu__requant_copy (const int8_t * restrict in, int8_t * restrict out,
    size_t n, int32_t zp_in, int32_t zp_out, int64_t mult)
{
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  size_t i = 0;

  if (zp_in == zp_out && mult == (G_GINT64_CONSTANT (1) <<
          SIMNPU_ELTWISE_SHIFT)) {
    memcpy (out, in, n);
    return;
  }
  if (mult >= G_MININT32 && mult <= G_MAXINT32) {
    const int32_t mh = (int32_t) mult >> ELTWISE_HALF_SHIFT;
    const int32_t ml = (int32_t) mult & ((1 << ELTWISE_HALF_SHIFT) - 1);
#ifdef SIMNPU_MAC_AVX2
    if (mh >= G_MININT16 && mh <= G_MAXINT16 && elt_use_avx2 ())
      i = requant_avx2 (in, out, n, zp_in, zp_out, mh, ml);
#endif
    for (; i < n; i++)
      out[i] = clamp_i8 (requant32 (in[i] - zp_in, mh, ml) + zp_out);
    return;
  }
  for (i = 0; i < n; i++) {
    int64_t v = ((in[i] - zp_in) * mult + round) >> SIMNPU_ELTWISE_SHIFT;
    out[i] = clamp_i8 ((int32_t) v + zp_out);
  }
}

/* The element-wise ops of simnpu__eltwise: sub is add with a negated
 * second multiplier. */
typedef enum
{
  ELT_ADD,
  ELT_MUL,
  ELT_MAX,
  ELT_MIN,
} elt_kind;

static inline int8_t
eltwise_one (elt_kind kind, int32_t a, int32_t b, int64_t ma, int64_t mb,
    int32_t zp_out)
{
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  int64_t v, va, vb;

  switch (kind) {
    case ELT_ADD:
      v = ma * a + mb * b;
      break;
    case ELT_MUL:
      v = ma * a * b;
      break;
    default:
      /* rounding is monotone: the larger (smaller) operand in output
       * units gives the larger (smaller) result */
      va = ma * a;
      vb = mb * b;
      v = kind == ELT_MAX ? MAX (va, vb) : MIN (va, vb);
      break;
  }
  return clamp_i8 ((int32_t) ((v + round) >> SIMNPU_ELTWISE_SHIFT) + zp_out);
}

/* maximum and minimum of whole tensors: with one quantisation throughout
 * a byte-wise max or min, else as eltwise_one in 32 bits when the
 * multipliers fit */
static inline __attribute__((always_inline))
     void minmax_flat (bool is_max, const int8_t * restrict a, int32_t zp_a,
    const int8_t * restrict b, int32_t zp_b, int8_t * restrict out, size_t n,
    int32_t zp_out, int64_t ma, int64_t mb)
{
  const int64_t unit = G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT;
  size_t i;

  if (ma == unit && mb == unit && zp_a == zp_out && zp_b == zp_out) {
    if (is_max)
      for (i = 0; i < n; i++)
        out[i] = MAX (a[i], b[i]);
    else
      for (i = 0; i < n; i++)
        out[i] = MIN (a[i], b[i]);
    return;
  }
  if (ma >= G_MININT32 && ma <= G_MAXINT32 && mb >= G_MININT32
      && mb <= G_MAXINT32) {
    /* the floor of a max (min) is the max (min) of the floors, so each
     * operand is requantised on its own, in 32 bits */
    const int32_t mah = (int32_t) ma >> ELTWISE_HALF_SHIFT;
    const int32_t mbh = (int32_t) mb >> ELTWISE_HALF_SHIFT;
    const int32_t mal = (int32_t) ma & ((1 << ELTWISE_HALF_SHIFT) - 1);
    const int32_t mbl = (int32_t) mb & ((1 << ELTWISE_HALF_SHIFT) - 1);
    i = 0;
#ifdef SIMNPU_MAC_AVX2
    if (mah >= G_MININT16 && mah <= G_MAXINT16 && mbh >= G_MININT16
        && mbh <= G_MAXINT16 && elt_use_avx2 ())
      i = minmax_avx2 (is_max, a, zp_a, b, zp_b, out, n, zp_out, mah, mbh,
          mal, mbl);
#endif
    if (is_max)
      for (; i < n; i++) {
        int32_t ra = requant32 (a[i] - zp_a, mah, mal);
        int32_t rb = requant32 (b[i] - zp_b, mbh, mbl);
        out[i] = clamp_i8 (MAX (ra, rb) + zp_out);
    } else
      for (; i < n; i++) {
        int32_t ra = requant32 (a[i] - zp_a, mah, mal);
        int32_t rb = requant32 (b[i] - zp_b, mbh, mbl);
        out[i] = clamp_i8 (MIN (ra, rb) + zp_out);
      }
    return;
  }
  for (i = 0; i < n; i++)
    out[i] = eltwise_one (is_max ? ELT_MAX : ELT_MIN, a[i] - zp_a,
        b[i] - zp_b, ma, mb, zp_out);
}

#ifdef SIMNPU_MAC_AVX2
/* elements per step of add_flat_avx2 */
#define ADD_AVX2_STEP 16

/* eltwise_flat's 32-bit split add, for high halves mah and mbh that fit
 * in 16 bits: hi and lo are each one 16-bit multiply-add of the (a, b)
 * pairs, exact since |a - zp_a|, |b - zp_b| <= 255 and |hi|, |lo| are far
 * inside 32 bits; the saturating packs are clamp_i8. Does the elements up
 * to a multiple of ADD_AVX2_STEP and returns how many. */
__attribute__((target ("avx2"), noinline))
     static size_t add_flat_avx2 (const int8_t * restrict a, int32_t zp_a,
    const int8_t * restrict b, int32_t zp_b, int8_t * restrict out, size_t n,
    int32_t zp_out, int32_t mah, int32_t mbh, int32_t mal, int32_t mbl)
{
  const __m256i za = _mm256_set1_epi16 ((int16_t) zp_a);
  const __m256i zb = _mm256_set1_epi16 ((int16_t) zp_b);
  const __m256i mh = _mm256_set1_epi32 ((int32_t) weight_pair (mah, mbh));
  const __m256i ml = _mm256_set1_epi32 ((int32_t) weight_pair (mal, mbl));
  const __m256i round = _mm256_set1_epi32 (1 << (SIMNPU_ELTWISE_SHIFT - 1));
  const __m256i zp = _mm256_set1_epi32 (zp_out);
  const size_t m = n - n % ADD_AVX2_STEP;
  size_t i;

  for (i = 0; i < m; i += ADD_AVX2_STEP) {
    __m256i va = _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (_mm_loadu_si128
            ((const __m128i *) (const void *) (a + i))), za);
    __m256i vb = _mm256_sub_epi16 (_mm256_cvtepi8_epi16 (_mm_loadu_si128
            ((const __m128i *) (const void *) (b + i))), zb);
    /* per 128-bit lane: p0 holds elements 0-3 and 8-11, p1 4-7 and
     * 12-15, which the lane-wise pack puts back in order */
    __m256i p0 = _mm256_unpacklo_epi16 (va, vb);
    __m256i p1 = _mm256_unpackhi_epi16 (va, vb);
    __m256i r0, r1, q;
    r0 = _mm256_add_epi32 (_mm256_madd_epi16 (p0, mh),
        _mm256_srai_epi32 (_mm256_add_epi32 (_mm256_madd_epi16 (p0, ml),
                round), ELTWISE_HALF_SHIFT));
    r1 = _mm256_add_epi32 (_mm256_madd_epi16 (p1, mh),
        _mm256_srai_epi32 (_mm256_add_epi32 (_mm256_madd_epi16 (p1, ml),
                round), ELTWISE_HALF_SHIFT));
    r0 = _mm256_add_epi32 (_mm256_srai_epi32 (r0, ELTWISE_HALF_SHIFT), zp);
    r1 = _mm256_add_epi32 (_mm256_srai_epi32 (r1, ELTWISE_HALF_SHIFT), zp);
    q = _mm256_packs_epi32 (r0, r1);
    _mm_storeu_si128 ((__m128i *) (void *) (out + i),
        _mm_packs_epi16 (_mm256_castsi256_si128 (q),
            _mm256_extracti128_si256 (q, 1)));
  }
  return m;
}
#endif

/* With multipliers that fit in 32 bits the products are 32x32->64-bit
 * widening multiplies, which vectorise; the values are the same. */
static inline __attribute__((always_inline))
     void eltwise_flat (elt_kind kind, const int8_t * restrict a,
    int32_t zp_a, const int8_t * restrict b, int32_t zp_b,
    int8_t * restrict out, size_t n, int32_t zp_out, int64_t ma, int64_t mb)
{
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  const bool is_add = kind == ELT_ADD;
  size_t i;

  if (kind == ELT_MAX || kind == ELT_MIN) {
    minmax_flat (kind == ELT_MAX, a, zp_a, b, zp_b, out, n, zp_out, ma, mb);
    return;
  }

  if (ma >= G_MININT32 && ma <= G_MAXINT32 && mb >= G_MININT32
      && mb <= G_MAXINT32) {
    const int32_t ma32 = (int32_t) ma, mb32 = (int32_t) mb;
    if (is_add) {
      /* In 32 bits, exactly: with m = mh * 2^H + ml (0 <= ml < 2^H, H =
       * SHIFT / 2), v + round = hi * 2^H + lo with hi = mah * a + mbh * b
       * (|hi| < 2^28) and lo = mal * a + mbl * b + round (|lo| < 2^24),
       * and floor ((v + round) / 2^SHIFT) = (hi + (lo >> H)) >> H, since
       * nested floors of divisions by 2^H compose. */
      const int32_t mah = ma32 >> ELTWISE_HALF_SHIFT;
      const int32_t mbh = mb32 >> ELTWISE_HALF_SHIFT;
      const int32_t mal = ma32 & ((1 << ELTWISE_HALF_SHIFT) - 1);
      const int32_t mbl = mb32 & ((1 << ELTWISE_HALF_SHIFT) - 1);
      const int32_t round32 = 1 << (SIMNPU_ELTWISE_SHIFT - 1);
      i = 0;
#ifdef SIMNPU_MAC_AVX2
      if (mah >= G_MININT16 && mah <= G_MAXINT16 && mbh >= G_MININT16
          && mbh <= G_MAXINT16 && elt_use_avx2 ())
        i = add_flat_avx2 (a, zp_a, b, zp_b, out, n, zp_out, mah, mbh, mal,
            mbl);
#endif
      for (; i < n; i++) {
        int32_t va = a[i] - zp_a, vb = b[i] - zp_b;
        int32_t hi = mah * va + mbh * vb;
        int32_t lo = mal * va + mbl * vb + round32;
        out[i] = clamp_i8 (((hi + (lo >> ELTWISE_HALF_SHIFT))
                >> ELTWISE_HALF_SHIFT) + zp_out);
      }
    } else {
      i = 0;
#ifdef SIMNPU_MAC_AVX2
      if (elt_use_avx2 ())
        i = mul_avx2 (a, zp_a, b, zp_b, out, n, zp_out, ma32);
#endif
      for (; i < n; i++) {
        int64_t v = (int64_t) ma32 * ((a[i] - zp_a) * (b[i] - zp_b));
        out[i] = clamp_i8 ((int32_t) ((v + round) >> SIMNPU_ELTWISE_SHIFT)
            + zp_out);
      }
    }
    return;
  }
  for (i = 0; i < n; i++)
    out[i] = eltwise_one (kind, a[i] - zp_a, b[i] - zp_b, ma, mb, zp_out);
}

/* elements of a broadcast operand's run expanded at a time */
#define ELT_CHUNK 1024

/* One run of n output elements; a stride of 0 repeats the operand's first
 * element, which is expanded into a chunk on the stack so that the flat
 * kernels run. */
static inline __attribute__((always_inline))
     void eltwise_run (elt_kind kind, const int8_t * a, int64_t sa,
    int32_t zp_a, const int8_t * b, int64_t sb, int32_t zp_b, int8_t * out,
    size_t n, int32_t zp_out, int64_t ma, int64_t mb)
{
  int8_t ea[ELT_CHUNK], eb[ELT_CHUNK];
  size_t i, k;

  if (sa != 0 && sb != 0) {
    eltwise_flat (kind, a, zp_a, b, zp_b, out, n, zp_out, ma, mb);
    return;
  }
  if (sa == 0)
    memset (ea, a[0], MIN (n, ELT_CHUNK));
  if (sb == 0)
    memset (eb, b[0], MIN (n, ELT_CHUNK));
  for (i = 0; i < n; i += k) {
    k = MIN (n - i, ELT_CHUNK);
    eltwise_flat (kind, sa == 0 ? ea : a + i, zp_a, sb == 0 ? eb : b + i,
        zp_b, out + i, k, zp_out, ma, mb);
  }
}

/* Broadcasting element-wise op over rank-4 dims with strides sa, sb (0 on
 * broadcast dimensions): dimensions of size 1 are dropped and neighbours
 * that are contiguous for both operands merged, so that the innermost
 * run (stride 1 or 0 for each operand) is as long as possible and goes
 * to the flat kernels. */
static inline __attribute__((always_inline))
     void eltwise_broadcast (elt_kind kind, const int64_t * dout,
    const int8_t * a,
    const int64_t * sa, int32_t zp_a, const int8_t * b, const int64_t * sb,
    int32_t zp_b, int8_t * out, int32_t zp_out, int64_t ma, int64_t mb)
{
  /* outermost first, padded in front with single runs */
  int64_t n[4] = { 1, 1, 1, 1 }, ta[4] = { 0 }, tb[4] = { 0 };
  int64_t i0, i1, i2;
  int d, r = 4;

  for (d = 3; d >= 0; d--) {
    if (dout[d] == 1)
      continue;
    if (r < 4 && sa[d] == ta[r] * n[r] && sb[d] == tb[r] * n[r]) {
      n[r] *= dout[d];
      continue;
    }
    r--;
    n[r] = dout[d];
    ta[r] = sa[d];
    tb[r] = sb[d];
  }
  if (r == 4) {
    /* a single element */
    eltwise_run (kind, a, 0, zp_a, b, 0, zp_b, out, 1, zp_out, ma, mb);
    return;
  }
  for (i0 = 0; i0 < n[0]; i0++)
    for (i1 = 0; i1 < n[1]; i1++)
      for (i2 = 0; i2 < n[2]; i2++) {
        eltwise_run (kind, a + i0 * ta[0] + i1 * ta[1] + i2 * ta[2], ta[3],
            zp_a, b + i0 * tb[0] + i1 * tb[1] + i2 * tb[2], tb[3], zp_b, out,
            (size_t) n[3], zp_out, ma, mb);
        out += n[3];
      }
}

/* Dims are rank-4; a dimension of size 1 broadcasts. */
SIMNPU_CLONES void
simnpu__eltwise (simnpu__op_type type, const int64_t * da, const int8_t * a,
    int32_t zp_a, const int64_t * db, const int8_t * b, int32_t zp_b,
    const int64_t * dout, int8_t * out, int32_t zp_out, int64_t ma, int64_t mb)
{
  elt_kind kind;
  int64_t sa[4], sb[4];
  int d;

  switch (type) {
    case SIMNPU_OP_ADD:
    case SIMNPU_OP_SUB:
      kind = ELT_ADD;
      break;
    case SIMNPU_OP_MAXIMUM:
      kind = ELT_MAX;
      break;
    case SIMNPU_OP_MINIMUM:
      kind = ELT_MIN;
      break;
    default:
      kind = ELT_MUL;
      break;
  }
  if (memcmp (da, dout, 4 * sizeof (int64_t)) == 0
      && memcmp (db, dout, 4 * sizeof (int64_t)) == 0) {
    eltwise_flat (kind, a, zp_a, b, zp_b, out,
        (size_t) (dout[0] * dout[1] * dout[2] * dout[3]), zp_out, ma, mb);
    return;
  }
  /* strides with 0 for broadcast dimensions */
  sa[3] = 1;
  sb[3] = 1;
  for (d = 2; d >= 0; d--) {
    sa[d] = sa[d + 1] * da[d + 1];
    sb[d] = sb[d + 1] * db[d + 1];
  }
  for (d = 0; d < 4; d++) {
    if (da[d] == 1)
      sa[d] = 0;
    if (db[d] == 1)
      sb[d] = 0;
  }
  eltwise_broadcast (kind, dout, a, sa, zp_a, b, sb, zp_b, out, zp_out, ma, mb);
}


/* u8 with zero point z is i8 with zero point z - 128: flip the top bit. */
SIMNPU_CLONES void
simnpu__flip_sign_copy (uint8_t * restrict dst, const uint8_t * restrict src,
    size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    dst[i] = src[i] ^ 0x80;
}

SIMNPU_CLONES void
simnpu__dequantize (float *restrict dst, const int8_t * restrict src,
    size_t n, float scale, int32_t zp)
{
  size_t i;

  for (i = 0; i < n; i++)
    dst[i] = scale * (float) (src[i] - zp);
}

void
simnpu__eltwise_split (int64_t m, int32_t * hi, int32_t * lo)
{
  *hi = (int32_t) (m >> ELTWISE_HALF_SHIFT);
  *lo = (int32_t) (m & ((G_GINT64_CONSTANT (1) << ELTWISE_HALF_SHIFT) - 1));
}

/* One select between the positive multiplier and the channel's negative
 * one per element, then requant32: branch-free, so the channel loop
 * vectorises in 32-bit lanes. */
SIMNPU_CLONES void
simnpu__prelu (const int8_t * restrict in, int8_t * restrict out,
    size_t rows, size_t ch, int32_t zp_in, int32_t zp_out, int32_t pos_hi,
    int32_t pos_lo, const int32_t * restrict neg_hi,
    const int32_t * restrict neg_lo)
{
  size_t r, c;

  for (r = 0; r < rows; r++) {
    const int8_t *restrict s = in + r * ch;
    int8_t *restrict o = out + r * ch;
    for (c = 0; c < ch; c++) {
      int32_t v = s[c] - zp_in;
      int32_t mh = v >= 0 ? pos_hi : neg_hi[c];
      int32_t ml = v >= 0 ? pos_lo : neg_lo[c];
      int32_t q = requant32 (v, mh, ml) + zp_out;
      o[c] = (int8_t) (q < I8_MIN ? I8_MIN : (q > I8_MAX ? I8_MAX : q));
    }
  }
}

/* One row of select: each operand requantised on its own (as
 * minmax_flat does), then picked; strides of 0 repeat an element. With
 * the strides 1 (inlined as constants) the loop is branch-free and
 * vectorises in 32-bit lanes. */
static inline __attribute__((always_inline))
     void select_row (const int8_t * restrict c, size_t sc,
    const int8_t * restrict x, size_t sx, const int8_t * restrict y,
    size_t sy, int8_t * restrict o, size_t n, int32_t zp_x, int32_t zp_y,
    int32_t zp_out, int32_t mxh, int32_t mxl, int32_t myh, int32_t myl)
{
  size_t i;

  for (i = 0; i < n; i++) {
    int32_t rx = requant32 (x[i * sx] - zp_x, mxh, mxl);
    int32_t ry = requant32 (y[i * sy] - zp_y, myh, myl);
    o[i] = clamp_i8 ((c[i * sc] != 0 ? rx : ry) + zp_out);
  }
}

/* select_row for multipliers beyond 32 bits (ratios of 128 and above) */
static void
select_row_wide (const int8_t * c, size_t sc, const int8_t * x, size_t sx,
    const int8_t * y, size_t sy, int8_t * o, size_t n, int32_t zp_x,
    int32_t zp_y, int32_t zp_out, int64_t mx, int64_t my)
{
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  size_t i;

  for (i = 0; i < n; i++) {
    int64_t v = c[i * sc] != 0 ? (x[i * sx] - zp_x) * mx :
        (y[i * sy] - zp_y) * my;
    o[i] = clamp_i8 ((int32_t) ((v + round) >> SIMNPU_ELTWISE_SHIFT) + zp_out);
  }
}

/* the element strides of a rank-4 view broadcast to dout: 0 along the
 * dimensions it repeats */
static void
broadcast_strides (const int64_t * d, const int64_t * dout, int64_t * st)
{
  int64_t s = 1;
  int i;

  for (i = SIMNPU_MAX_DIMS - 1; i >= 0; i--) {
    st[i] = d[i] == dout[i] ? s : 0;
    s *= d[i];
  }
}

SIMNPU_CLONES void
simnpu__select (const int64_t * dc, const int8_t * cond, const int64_t * dx,
    const int8_t * x, int32_t zp_x, int64_t mult_x, const int64_t * dy,
    const int8_t * y, int32_t zp_y, int64_t mult_y, const int64_t * dout,
    int8_t * out, int32_t zp_out)
{
  int64_t sc[SIMNPU_MAX_DIMS], sx[SIMNPU_MAX_DIMS], sy[SIMNPU_MAX_DIMS];
  int64_t i0, i1, i2;
  const size_t n = (size_t) dout[3];
  const bool narrow = mult_x >= G_MININT32 && mult_x <= G_MAXINT32
      && mult_y >= G_MININT32 && mult_y <= G_MAXINT32;
  const int32_t mxh = (int32_t) mult_x >> ELTWISE_HALF_SHIFT;
  const int32_t myh = (int32_t) mult_y >> ELTWISE_HALF_SHIFT;
  const int32_t mxl = (int32_t) mult_x & ((1 << ELTWISE_HALF_SHIFT) - 1);
  const int32_t myl = (int32_t) mult_y & ((1 << ELTWISE_HALF_SHIFT) - 1);

  broadcast_strides (dc, dout, sc);
  broadcast_strides (dx, dout, sx);
  broadcast_strides (dy, dout, sy);
  for (i0 = 0; i0 < dout[0]; i0++)
    for (i1 = 0; i1 < dout[1]; i1++)
      for (i2 = 0; i2 < dout[2]; i2++) {
        const int8_t *c = cond + i0 * sc[0] + i1 * sc[1] + i2 * sc[2];
        const int8_t *a = x + i0 * sx[0] + i1 * sx[1] + i2 * sx[2];
        const int8_t *b = y + i0 * sy[0] + i1 * sy[1] + i2 * sy[2];
        int8_t *o = out + ((i0 * dout[1] + i1) * dout[2] + i2) * dout[3];
        if (!narrow)
          select_row_wide (c, (size_t) sc[3], a, (size_t) sx[3], b,
              (size_t) sy[3], o, n, zp_x, zp_y, zp_out, mult_x, mult_y);
        else if (sc[3] == 1 && sx[3] == 1 && sy[3] == 1)
          select_row (c, 1, a, 1, b, 1, o, n, zp_x, zp_y, zp_out, mxh, mxl,
              myh, myl);
        else
          select_row (c, (size_t) sc[3], a, (size_t) sx[3], b,
              (size_t) sy[3], o, n, zp_x, zp_y, zp_out, mxh, mxl, myh, myl);
      }
}
