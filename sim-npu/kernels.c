/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The int8 kernels. Arithmetic definitions (shared with the reference
 * implementations in tests/simnpu/test-kernels.c, which must agree bit for
 * bit):
 *
 * - requantisation of conv2d: q = round_half_even (clamp ((float) acc *
 *   scale, -2^20, 2^20)) in single precision, scale = in_scale * w_scale /
 *   out_scale per output channel; out = clamp (q + out_zp, act_min, 127);
 * - conv2d: acc = bias[oc] + sum ((x - in_zp) * w) over the window, padded
 *   positions contributing 0; out = clamp (requant (acc) + out_zp);
 * - add: out = out_zp + round_half_up (((a - za) * ma + (b - zb) * mb)
 *   / 2^SIMNPU_ELTWISE_SHIFT); mul: ((a - za) * (b - zb) * ma) likewise;
 * - sub: add with mb negated; maximum, minimum: out = out_zp +
 *   round_half_up (max or min ((a - za) * ma, (b - zb) * mb) / 2^SHIFT);
 * - pools: max ignores padding; avg averages valid positions only,
 *   rounding half away from zero;
 * - resize: nearest copies the source pixel of precomputed indices
 *   (requantised like concat); bilinear: v = sum of the four taps (x -
 *   zp) * wy * wx with 11-bit weights per axis, out = requant_one (v, in_scale
 *   / out_scale / 2^22) as conv2d's requantisation;
 * - mean: s = sum (x - zp) over H x W in integers, out = out_zp +
 *   round_half_away ((double) s * (in_scale / out_scale) / (H * W));
 * - pad: the input requantised like concat, the border the constant or
 *   the nearest edge value of the requantised input.
 *
 * This file is built at -O3: inner loops are simple and use restrict
 * pointers so that GCC vectorises them. */

#include "kernels.h"

#include <math.h>
#include <string.h>

/* The hot kernels are also built for AVX2 and picked at load time: the
 * same C, so the same integer and single-precision arithmetic (no FMA is
 * enabled, so nothing is contracted), with wider vectors. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__has_attribute)
#if __has_attribute (target_clones)
#define SIMNPU_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#ifndef SIMNPU_CLONES
#define SIMNPU_CLONES
#endif

/* The multiply-accumulate passes of conv2d also have a hand-written AVX2
 * form (GCC's vectorisation of them uses 32-bit multiplies): taps go in
 * pairs through the 16-bit multiply-add, which is exact here since each
 * pair of int8 products sums to at most 2 * 128 * 128, and the
 * requantisation is the same single-precision sequence as requant_one. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute (target)
#define SIMNPU_MAC_AVX2 1
#include <immintrin.h>
#endif
#endif

#define I8_MIN (-128)
#define I8_MAX 127

static inline int8_t
clamp_i8 (int32_t v)
{
  return (int8_t) (v < I8_MIN ? I8_MIN : (v > I8_MAX ? I8_MAX : v));
}

/* taps accumulated per pass over a row (the four-way loop below) */
#define MAC_TAPS 4

/* half the element-wise shift: add splits its multipliers there */
#define ELTWISE_HALF_SHIFT (SIMNPU_ELTWISE_SHIFT / 2)
G_STATIC_ASSERT (SIMNPU_ELTWISE_SHIFT % 2 == 0);

/* the widest output row of copy_runs' constant-stride cases */
#define RUNS_MAX_STRIDE 8

/* the longest input row (bytes) of maxpool_rows' row buffer */
#define POOL_ROW_MAX 16384

/* channels of a generic avgpool's sums at a time */
#define POOL_CHUNK 256

/* the 2x2 pooling window */
#define POOL2_COUNT 4
#define POOL2_LOG2 2
#define POOL2_HALF 2

/* Round to nearest even without a libm call, so the loop vectorises:
 * adding and removing 1.5 * 2^23 leaves no fraction bits for |x| < 2^22;
 * requant_one's clamp keeps x far inside that range. */
#define RQ_MAGIC 12582912.0f

/* pixels per pass of a pointwise conv's long row: its columns and
 * accumulators stay in L1/L2 */
#define POINTWISE_CHUNK 2048

/* The clamps to [act_min, act_max] are applied before rounding, in
 * float, to the integer bounds lo_f = act_min - zp and hi_f = act_max - zp:
 * rounding is monotone and leaves integers alone, so this equals clamping
 * after rounding, and it subsumes the clamp to +-2^20 (|lo_f|, |hi_f| <=
 * 255) while the conversion to int8 needs no saturation. A NaN product
 * goes to act_min as the int32 conversion's INT_MIN did. Needs -128 <=
 * act_min <= act_max <= 127, which the graph guarantees. */
static inline int8_t
requant_one (int32_t acc, float scale, int32_t zp, float lo_f, float hi_f)
{
  float x = (float) acc * scale;

  x = x > lo_f ? x : lo_f;
  x = x < hi_f ? x : hi_f;
  return (int8_t) ((int32_t) ((x + RQ_MAGIC) - RQ_MAGIC) + zp);
}

#ifdef SIMNPU_MAC_AVX2
/* the widest stride of gather_avx2 */
#define GATHER_AVX2_MAX_STEP 8
/* elements per step of gather_avx2 */
#define GATHER_AVX2_STEP 16
#define SHUFFLE_ZERO ((int8_t) 0x80)

/* dst[i] = src[i * step] for 2 <= step <= GATHER_AVX2_MAX_STEP, 16
 * elements from step 16-byte loads at a time: byte shuffles pick each
 * load's elements into place (the others zero) and are or-ed together.
 * Reads no byte past src[(n - 1) * step]: a block runs only when another
 * element follows it. Returns the elements done. */
__attribute__((target ("avx2"), noinline))
     static size_t gather_avx2 (int8_t * restrict dst,
    const int8_t * restrict src, size_t step, size_t n)
{
  int8_t sel[GATHER_AVX2_MAX_STEP][GATHER_AVX2_STEP];
  __m128i mask[GATHER_AVX2_MAX_STEP];
  size_t v, j, x;

  for (v = 0; v < step; v++) {
    for (j = 0; j < GATHER_AVX2_STEP; j++) {
      size_t at = j * step;
      sel[v][j] = at >= v * GATHER_AVX2_STEP
          && at < (v + 1) * GATHER_AVX2_STEP ?
          (int8_t) (at - v * GATHER_AVX2_STEP) : SHUFFLE_ZERO;
    }
    mask[v] = _mm_loadu_si128 ((const __m128i *) (const void *) sel[v]);
  }
  for (x = 0; x + GATHER_AVX2_STEP < n; x += GATHER_AVX2_STEP) {
    const int8_t *s = src + x * step;
    __m128i acc = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *)
            (const void *) s), mask[0]);
    for (v = 1; v < step; v++)
      acc = _mm_or_si128 (acc, _mm_shuffle_epi8 (_mm_loadu_si128 ((const
                      __m128i *) (const void *) (s + v * GATHER_AVX2_STEP)),
              mask[v]));
    _mm_storeu_si128 ((__m128i *) (void *) (dst + x), acc);
  }
  return x;
}
#endif

/* dst[i] = src[i * step]; constant strides for the few-channel cases so
 * that the loads vectorise. */
static inline __attribute__((always_inline))
     void gather_strided (int8_t * restrict dst, const int8_t * restrict src,
    size_t step, size_t n)
{
  size_t i = 0;

#ifdef SIMNPU_MAC_AVX2
  if (step >= 2 && step <= GATHER_AVX2_MAX_STEP
      && n > 2 * GATHER_AVX2_STEP && __builtin_cpu_supports ("avx2")) {
    i = gather_avx2 (dst, src, step, n);
    dst += i;
    src += i * step;
    n -= i;
  }
#endif
  switch (step) {
    case 1:
      memcpy (dst, src, n);
      break;
#define GATHER_CASE(S) \
    case S: \
      for (i = 0; i < n; i++) \
        dst[i] = src[i * S]; \
      break;
      GATHER_CASE (2) GATHER_CASE (3) GATHER_CASE (4) GATHER_CASE (5)
          GATHER_CASE (6) GATHER_CASE (8)
#undef GATHER_CASE
    default:
      for (i = 0; i < n; i++)
        dst[i] = src[i * step];
      break;
  }
}

#ifdef __SSE2__
#include <emmintrin.h>
/* pixels per step of interleave4_sse2 */
#define INTERLEAVE_STEP 16

/* The four-channel interleave of interleave_rows in 16-pixel steps: two
 * rounds of byte and word unpacks give out[x][0..3] = r0..r3[x] as 32-bit
 * words q[0..3], four pixels each; with a fifth row (dst_stride 5), each
 * word is followed by that row's byte. Returns the pixels done. */
static inline __attribute__((always_inline))
     int interleave4_sse2 (int8_t * restrict dst, const int8_t * restrict r0,
    const int8_t * restrict r1, const int8_t * restrict r2,
    const int8_t * restrict r3, const int8_t * restrict r4, int ow)
{
  const int n = ow - ow % INTERLEAVE_STEP;
  int x, i, j;

  for (x = 0; x < n; x += INTERLEAVE_STEP) {
    __m128i a0 = _mm_loadu_si128 ((const __m128i *) (const void *) (r0 + x));
    __m128i a1 = _mm_loadu_si128 ((const __m128i *) (const void *) (r1 + x));
    __m128i a2 = _mm_loadu_si128 ((const __m128i *) (const void *) (r2 + x));
    __m128i a3 = _mm_loadu_si128 ((const __m128i *) (const void *) (r3 + x));
    __m128i lo01 = _mm_unpacklo_epi8 (a0, a1), hi01 = _mm_unpackhi_epi8 (a0,
        a1);
    __m128i lo23 = _mm_unpacklo_epi8 (a2, a3), hi23 = _mm_unpackhi_epi8 (a2,
        a3);
    __m128i q[4];
    q[0] = _mm_unpacklo_epi16 (lo01, lo23);
    q[1] = _mm_unpackhi_epi16 (lo01, lo23);
    q[2] = _mm_unpacklo_epi16 (hi01, hi23);
    q[3] = _mm_unpackhi_epi16 (hi01, hi23);
    if (r4 == NULL) {
      for (i = 0; i < 4; i++)
        _mm_storeu_si128 ((__m128i *) (void *) (dst + (size_t) (x + 4 * i)
                * 4), q[i]);
    } else {
      for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++) {
          int8_t *o = dst + (size_t) (x + 4 * i + j) * 5;
          int32_t word = _mm_cvtsi128_si32 (q[i]);
          memcpy (o, &word, sizeof (word));
          o[4] = r4[x + 4 * i + j];
          q[i] = _mm_srli_si128 (q[i], 4);
        }
    }
  }
  return n;
}
#endif

/* dst[ox * oc + o] = rows[o * ow + ox]: interleaves the per-channel output
 * rows into NHWC, with constant channel counts for the common thin
 * cases. */
static inline __attribute__((always_inline))
     void interleave_rows (int8_t * restrict dst,
    const int8_t * restrict rows, int oc, int ow)
{
  int ox, o;

  switch (oc) {
    case 1:
      memcpy (dst, rows, ow);
      break;
#define INTERLEAVE_CASE(K) \
    case K: \
      for (ox = 0; ox < ow; ox++) \
        for (o = 0; o < K; o++) \
          dst[(size_t) ox * K + o] = rows[(size_t) o * ow + ox]; \
      break;
#ifdef __SSE2__
    case 4:
    case 5:
      ox = interleave4_sse2 (dst, rows, rows + ow, rows + 2 * ow,
          rows + 3 * (size_t) ow, oc == 5 ? rows + 4 * (size_t) ow : NULL, ow);
      for (; ox < ow; ox++)
        for (o = 0; o < oc; o++)
          dst[(size_t) ox * oc + o] = rows[(size_t) o * ow + ox];
      break;
#else
      INTERLEAVE_CASE (4) INTERLEAVE_CASE (5)
#endif
          INTERLEAVE_CASE (2) INTERLEAVE_CASE (3) INTERLEAVE_CASE (8)
#undef INTERLEAVE_CASE
    default:
      for (o = 0; o < oc; o++)
        for (ox = 0; ox < ow; ox++)
          dst[(size_t) ox * oc + o] = rows[(size_t) o * ow + ox];
      break;
  }
}

/* Column buffer of one output row for one group: col[k][ox], k over the
 * kernel window [ky][kx][c]. Padded positions hold the input zero
 * point. */
static inline __attribute__((always_inline))
     void build_columns (const simnpu__conv_params * p,
    const int8_t * restrict in, int oy, int g, int8_t * restrict col)
{
  int icg = p->ic / p->groups;
  int ky, kx, c;
  int8_t pad = (int8_t) p->in_zp;
  const int ow = p->ow;
  const size_t step = (size_t) p->sw * p->ic;

  for (ky = 0; ky < p->kh; ky++) {
    int iy = oy * p->sh - p->pt + ky * p->dh;
    for (kx = 0; kx < p->kw; kx++) {
      int off = kx * p->dw - p->pl;
      /* outputs whose input column ox * sw + off is inside [0, iw) */
      int lo = off >= 0 ? 0 : (-off + p->sw - 1) / p->sw;
      int hi = p->iw - off <= 0 ? 0 : (p->iw - off - 1) / p->sw + 1;
      lo = MIN (lo, ow);
      hi = MIN (MAX (hi, lo), ow);
      for (c = 0; c < icg; c++) {
        int8_t *restrict dst = col + (size_t) ((ky * p->kw + kx) * icg + c)
            * ow;
        if (iy < 0 || iy >= p->ih) {
          memset (dst, pad, ow);
          continue;
        }
        memset (dst, pad, lo);
        if (hi > lo) {
          /* off + lo * sw >= 0 by the choice of lo */
          int64_t ix = (int64_t) off + (int64_t) lo * p->sw;
          const int8_t *restrict src = in + ((size_t) iy * p->iw +
              (size_t) ix) * p->ic + g * icg + c;
          gather_strided (dst + lo, src, step, (size_t) (hi - lo));
        }
        memset (dst + hi, pad, ow - hi);
      }
    }
  }
}

/* Scratch of conv_rows: the column pointers, the column buffer, the
 * accumulators, the output rows of a group and, for one-channel inputs at
 * stride 1, the padded input rows plus one row of padding. */
typedef struct
{
  const int8_t **colptr;
  int8_t *col;
  int32_t *acc;
  int8_t *row;
  int8_t *rows;
  int8_t *padrow;
  size_t span;
} ConvScratch;

#define SCRATCH_ALIGN(n) (((n) + 63) & ~(size_t) 63)

/* Offsets of the scratch parts; returns the scratch size. */
static inline size_t
conv_scratch_offsets (const simnpu__conv_params * p, size_t *span,
    size_t *at_col, size_t *at_acc, size_t *at_row, size_t *at_rows,
    size_t *at_pad)
{
  size_t klen = (size_t) p->kh * p->kw * (p->ic / p->groups);

  *span = SCRATCH_ALIGN ((size_t) p->ow + (size_t) (p->kw - 1) * p->dw);
  *at_col = SCRATCH_ALIGN (klen * sizeof (const int8_t *));
  *at_acc = *at_col + SCRATCH_ALIGN (klen * p->ow);
  *at_row = *at_acc + SCRATCH_ALIGN ((size_t) p->ow * sizeof (int32_t));
  *at_rows = *at_row + SCRATCH_ALIGN ((size_t) p->ow * p->oc);
  *at_pad = *at_rows + (size_t) p->kh * *span;
  return *at_pad + *span;
}

static inline void
conv_scratch_layout (const simnpu__conv_params * p, int8_t * base,
    ConvScratch * s)
{
  size_t at_col, at_acc, at_row, at_rows, at_pad;

  conv_scratch_offsets (p, &s->span, &at_col, &at_acc, &at_row, &at_rows,
      &at_pad);
  s->colptr = (const int8_t **) (void *) base;
  s->col = base + at_col;
  s->acc = (int32_t *) (void *) (base + at_acc);
  s->row = base + at_row;
  s->rows = base + at_rows;
  s->padrow = base + at_pad;
}

static bool
is_depthwise (const simnpu__conv_params * p)
{
  return p->groups > 1 && p->groups == p->ic && p->groups == p->oc;
}

size_t
simnpu__conv2d_scratch_bytes (const simnpu__conv_params * p)
{
  size_t span, at_col, at_acc, at_row, at_rows, at_pad, bytes;

  bytes = conv_scratch_offsets (p, &span, &at_col, &at_acc, &at_row,
      &at_rows, &at_pad);
  if (is_depthwise (p))
    bytes = MAX (bytes, simnpu__dw_scratch_bytes (p));
  else if (p->groups == 1)
    bytes = MAX (bytes, simnpu__dense_scratch_bytes (p));
  return bytes;
}

size_t
simnpu__conv2d_packed_bytes (const simnpu__conv_params * p)
{
  if (is_depthwise (p))
    return simnpu__dw_packed_bytes (p);
  if (p->groups == 1)
    return simnpu__dense_packed_bytes (p);
  return 0;
}

void
simnpu__conv2d_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
  if (is_depthwise (p))
    simnpu__dw_pack (p, weights, packed);
  else if (p->groups == 1)
    simnpu__dense_pack (p, weights, packed);
}

/* One-channel input at stride 1: column (ky, kx) of an output row is the
 * padded input row ky from offset kx * dw, so no column is copied; rows
 * that need no padding are used in place, rows outside the input are the
 * padding row. */
static inline __attribute__((always_inline))
     void point_rows (const simnpu__conv_params * p, const int8_t * in,
    int oy, const ConvScratch * s)
{
  const size_t span = (size_t) p->ow + (size_t) (p->kw - 1) * p->dw;
  const int8_t pad = (int8_t) p->in_zp;
  int ky, kx;

  for (ky = 0; ky < p->kh; ky++) {
    int iy = oy * p->sh - p->pt + ky * p->dh;
    const int8_t *base;
    if (iy < 0 || iy >= p->ih) {
      base = s->padrow;
    } else {
      const int8_t *src = in + (size_t) iy * p->iw;
      if (p->pl == 0 && span <= (size_t) p->iw) {
        base = src;
      } else {
        int8_t *buf = s->rows + (size_t) ky * s->span;
        size_t lo = MIN ((size_t) p->pl, span);
        size_t n = MIN ((size_t) p->iw, span - lo);
        memset (buf, pad, lo);
        memcpy (buf + lo, src, n);
        memset (buf + lo + n, pad, span - lo - n);
        base = buf;
      }
    }
    for (kx = 0; kx < p->kw; kx++)
      s->colptr[ky * p->kw + kx] = base + (size_t) kx *p->dw;
  }
}

#ifdef SIMNPU_MAC_AVX2
/* pixels per step of the AVX2 pass */
#define MAC_AVX2_STEP 16

/* 16-bit pair of taps (wa, wb) as the multiply-add's operand */
static inline uint32_t
weight_pair (int32_t wa, int32_t wb)
{
  return (uint32_t) (uint16_t) wa | (uint32_t) (uint16_t) wb << 16;
}

/* One pass of conv_rows over an output row for the four taps c[], w[]
 * (unused taps with zero weight): the pixels up to a multiple of
 * MAC_AVX2_STEP; returns how many it did, the caller does the rest.
 * first: start from bias b0, else from acc; last: requantise into r,
 * else store into acc. */
__attribute__((target ("avx2"), noinline))
     static int mac_pass_avx2 (const int8_t * const *c, const int32_t * w,
    int live, bool first, bool last, int32_t b0, int32_t * restrict acc,
    int8_t * restrict r, int ow, float scale, int32_t out_zp, float lo_f,
    float hi_f)
{
  const __m256i w01 = _mm256_set1_epi32 ((int32_t) weight_pair (w[0], w[1]));
  const __m256i w23 = _mm256_set1_epi32 ((int32_t) weight_pair (w[2], w[3]));
  const __m256i bias = _mm256_set1_epi32 (b0);
  const __m256i zp = _mm256_set1_epi32 (out_zp);
  const __m256 sc = _mm256_set1_ps (scale);
  const __m256 lo = _mm256_set1_ps (lo_f), hi = _mm256_set1_ps (hi_f);
  const __m256 magic = _mm256_set1_ps (RQ_MAGIC);
  const bool two_pairs = live > 2;
  const int n = ow - ow % MAC_AVX2_STEP;
  int x;

  for (x = 0; x < n; x += MAC_AVX2_STEP) {
    __m128i a = _mm_loadu_si128 ((const __m128i *) (const void *) (c[0] + x));
    __m128i b = _mm_loadu_si128 ((const __m128i *) (const void *) (c[1] + x));
    __m256i s0 = _mm256_madd_epi16 (_mm256_cvtepi8_epi16
        (_mm_unpacklo_epi8 (a, b)), w01);
    __m256i s1 = _mm256_madd_epi16 (_mm256_cvtepi8_epi16
        (_mm_unpackhi_epi8 (a, b)), w01);
    if (two_pairs) {
      a = _mm_loadu_si128 ((const __m128i *) (const void *) (c[2] + x));
      b = _mm_loadu_si128 ((const __m128i *) (const void *) (c[3] + x));
      s0 = _mm256_add_epi32 (s0, _mm256_madd_epi16 (_mm256_cvtepi8_epi16
              (_mm_unpacklo_epi8 (a, b)), w23));
      s1 = _mm256_add_epi32 (s1, _mm256_madd_epi16 (_mm256_cvtepi8_epi16
              (_mm_unpackhi_epi8 (a, b)), w23));
    }
    if (first) {
      s0 = _mm256_add_epi32 (s0, bias);
      s1 = _mm256_add_epi32 (s1, bias);
    } else {
      s0 = _mm256_add_epi32 (s0, _mm256_loadu_si256 ((const __m256i *)
              (const void *) (acc + x)));
      s1 = _mm256_add_epi32 (s1, _mm256_loadu_si256 ((const __m256i *)
              (const void *) (acc + x + MAC_AVX2_STEP / 2)));
    }
    if (last) {
      /* requant_one: max (x, lo) and min (x, hi) take the bound when x is
       * NaN, as its comparisons do */
      __m256 f0 = _mm256_mul_ps (_mm256_cvtepi32_ps (s0), sc);
      __m256 f1 = _mm256_mul_ps (_mm256_cvtepi32_ps (s1), sc);
      __m256i q0, q1, q;
      f0 = _mm256_min_ps (_mm256_max_ps (f0, lo), hi);
      f1 = _mm256_min_ps (_mm256_max_ps (f1, lo), hi);
      f0 = _mm256_sub_ps (_mm256_add_ps (f0, magic), magic);
      f1 = _mm256_sub_ps (_mm256_add_ps (f1, magic), magic);
      q0 = _mm256_add_epi32 (_mm256_cvttps_epi32 (f0), zp);
      q1 = _mm256_add_epi32 (_mm256_cvttps_epi32 (f1), zp);
      /* in [act_min, act_max], so the saturating packs are exact; they
       * work per 128-bit lane, the permutation puts the lanes in order */
      q = _mm256_packs_epi32 (q0, q1);
      q = _mm256_permute4x64_epi64 (q, _MM_SHUFFLE (3, 1, 2, 0));
      _mm_storeu_si128 ((__m128i *) (void *) (r + x),
          _mm_packs_epi16 (_mm256_castsi256_si128 (q),
              _mm256_extracti128_si256 (q, 1)));
    } else {
      _mm256_storeu_si256 ((__m256i *) (void *) (acc + x), s0);
      _mm256_storeu_si256 ((__m256i *) (void *) (acc + x + MAC_AVX2_STEP /
              2), s1);
    }
  }
  return n;
}
#endif

/* bias must already have the input zero point folded in:
 * bias[oc] = b[oc] - in_zp * sum (w[oc]). Computes one output row at a
 * time: a column buffer of the row's receptive fields, then per output
 * channel a multiply-accumulate over the row and its requantisation, loops
 * that run along the row and vectorise. */
static inline __attribute__((always_inline))
     void conv_rows (const simnpu__conv_params * p, const int8_t * input,
    const int8_t * weights, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  int icg = p->ic / p->groups;
  int ocg = p->oc / p->groups;
  int klen = p->kh * p->kw * icg;
  ConvScratch s;
  int8_t *col;
  int32_t *restrict acc;
  int8_t *restrict row;
  const int8_t **colptr;
  const bool pointed = p->ic == 1 && p->sw == 1;
  /* locals, so that stores through acc cannot alias the parameters */
  const int ow = p->ow, oc = p->oc, out_zp = p->out_zp;
  const float lo_f = (float) (p->act_min - out_zp);
  const float hi_f = (float) (p->act_max - out_zp);
#ifdef SIMNPU_MAC_AVX2
  const bool use_avx2 = __builtin_cpu_supports ("avx2");
#endif
  int b, oy, ox, g, o, k;

  conv_scratch_layout (p, scratch, &s);
  col = s.col;
  acc = s.acc;
  row = s.row;
  colptr = s.colptr;
  if (pointed)
    memset (s.padrow, (int8_t) p->in_zp, s.span);
  else
    for (k = 0; k < klen; k++)
      colptr[k] = col + (size_t) k *ow;

  for (b = 0; b < p->n; b++) {
    const int8_t *in = input + (size_t) b * p->ih * p->iw * p->ic;
    int8_t *out = output + (size_t) b * p->oh * p->ow * p->oc;
    for (oy = 0; oy < p->oh; oy++) {
      int8_t *restrict dst = out + (size_t) oy * p->ow * p->oc;
      for (g = 0; g < p->groups; g++) {
        if (pointed)
          point_rows (p, in, oy, &s);
        else
          build_columns (p, in, oy, g, col);
        for (o = g * ocg; o < (g + 1) * ocg; o++) {
          const int8_t *w = weights + (size_t) o * klen;
          float scale = scales[o];
          int32_t b0 = bias[o];
          /* one output channel: the row is the output row itself */
          int8_t *restrict r = oc == 1 ? dst :
              row + (size_t) (o - g * ocg) * ow;
          bool first = true;
          /* Zero taps add nothing and are skipped; the others go in fours
           * (padded with zero-weight taps on a valid column), so that acc
           * is touched once per four taps, and the first and last passes
           * fold in the bias and the requantisation: a thin conv is one
           * pass. */
          k = 0;
          do {
            const int8_t *cp[MAC_TAPS];
            int32_t wv[MAC_TAPS];
            int m = 0, live;
            bool last;
            for (; k < klen && m < MAC_TAPS; k++)
              if (w[k] != 0) {
                cp[m] = colptr[k];
                wv[m] = w[k];
                m++;
              }
            live = m;
            for (; m < MAC_TAPS; m++) {
              cp[m] = colptr[0];
              wv[m] = 0;
            }
            last = k >= klen;
            {
              const int8_t *restrict c0 = cp[0], *restrict c1 = cp[1];
              const int8_t *restrict c2 = cp[2], *restrict c3 = cp[3];
              const int32_t w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];
              /* a pass with fewer than four live taps (the end of a row of
               * taps, or a thin conv) loads and multiplies only those */
#define DOT0(x) 0
#define DOT1(x) (w0 * c0[x])
#define DOT2(x) (w0 * c0[x] + w1 * c1[x])
#define DOT3(x) (w0 * c0[x] + w1 * c1[x] + w2 * c2[x])
#define DOT4(x) (w0 * c0[x] + w1 * c1[x] + w2 * c2[x] + w3 * c3[x])
#define MAC_PASS(DOT) \
              if (first && last) \
                for (ox = x0; ox < ow; ox++) \
                  r[ox] = requant_one (b0 + DOT (ox - x0), scale, out_zp, \
                      lo_f, hi_f); \
              else if (first) \
                for (ox = x0; ox < ow; ox++) \
                  acc[ox] = b0 + DOT (ox - x0); \
              else if (last) \
                for (ox = x0; ox < ow; ox++) \
                  r[ox] = requant_one (acc[ox] + DOT (ox - x0), scale, \
                      out_zp, lo_f, hi_f); \
              else \
                for (ox = x0; ox < ow; ox++) \
                  acc[ox] += DOT (ox - x0);
              int x0 = 0;
#ifdef SIMNPU_MAC_AVX2
              if (use_avx2) {
                x0 = mac_pass_avx2 (cp, wv, live, first, last, b0, acc, r,
                    ow, scale, out_zp, lo_f, hi_f);
                c0 += x0;
                c1 += x0;
                c2 += x0;
                c3 += x0;
              }
#endif
              switch (live) {
                case 0:
                  MAC_PASS (DOT0) break;
                case 1:
                  MAC_PASS (DOT1) break;
                case 2:
                  MAC_PASS (DOT2) break;
                case 3:
                  MAC_PASS (DOT3) break;
                default:
                  MAC_PASS (DOT4) break;
              }
#undef MAC_PASS
#undef DOT0
#undef DOT1
#undef DOT2
#undef DOT3
#undef DOT4
            }
            first = false;
          } while (k < klen);
        }
        if (oc == 1)
          continue;
        if (p->groups == 1)
          interleave_rows (dst, row, oc, ow);
        else
          for (o = 0; o < ocg; o++)
            for (ox = 0; ox < ow; ox++)
              dst[(size_t) ox * oc + g * ocg + o] = row[(size_t) o * ow + ox];
      }
    }
  }
}

/* bias must already have the input zero point folded in (see
 * conv_rows). The graph runs a pointwise conv over one long row (ih = oh
 * = 1); that row goes in chunks, so that its working set stays in cache. */
SIMNPU_CLONES void
simnpu__conv2d_portable (const simnpu__conv_params * p, const int8_t * input,
    const int8_t * weights, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  if (p->ih == 1 && p->oh == 1 && p->kh == 1 && p->kw == 1 && p->sw == 1
      && p->pl == 0 && p->pt == 0 && p->iw == p->ow
      && p->ow > POINTWISE_CHUNK) {
    simnpu__conv_params c = *p;
    int b, x0;

    c.n = 1;
    for (b = 0; b < p->n; b++)
      for (x0 = 0; x0 < p->ow; x0 += POINTWISE_CHUNK) {
        c.iw = c.ow = MIN (POINTWISE_CHUNK, p->ow - x0);
        conv_rows (&c, input + ((size_t) b * p->iw + x0) * p->ic, weights,
            bias, scales, output + ((size_t) b * p->ow + x0) * p->oc, scratch);
      }
    return;
  }
  conv_rows (p, input, weights, bias, scales, output, scratch);
}

void
simnpu__conv2d (const simnpu__conv_params * p, const int8_t * input,
    const int8_t * weights, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch)
{
  if (packed != NULL && is_depthwise (p))
    simnpu__dw_run (p, input, packed, bias, scales, output, scratch);
  else if (packed != NULL && p->groups == 1)
    simnpu__dense_run (p, input, packed, bias, scales, output, scratch);
  else
    simnpu__conv2d_portable (p, input, weights, bias, scales, output, scratch);
}

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

/* Tests clear this to run the portable element-wise loops on an AVX2
 * machine too (simnpu__kernels_disable_avx2). */
static bool elt_avx2_disabled;

void
simnpu__kernels_disable_avx2 (bool disable)
{
  elt_avx2_disabled = disable;
}

static inline bool
elt_use_avx2 (void)
{
#ifdef SIMNPU_MAC_AVX2
  return !elt_avx2_disabled && __builtin_cpu_supports ("avx2");
#else
  return false;
#endif
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

#ifdef SIMNPU_MAC_AVX2
/* channels per vector of the pools' AVX2 loops */
#define POOL_AVX2_STEP 16

/* One output pixel of a 2x2 pool from its four taps' channel runs, 16
 * channels at a time, the last 16 overlapping the previous ones (the
 * values are the same) so that any ch >= 16 needs no scalar tail. avg:
 * the sum s minus 4 zp (|s| < 2^11) in 16 bits, rounded half away from
 * zero as avg4: |s| + 2 shifted, the sign put back. */
__attribute__((target ("avx2"), noinline))
     static void pool2x2_avx2 (bool is_max, const int8_t * restrict r0,
    const int8_t * restrict r1, int8_t * restrict o, int64_t ow, int64_t ch,
    int32_t zp)
{
  const __m256i z4 = _mm256_set1_epi16 ((int16_t) (POOL2_COUNT * zp));
  const __m256i half = _mm256_set1_epi16 (POOL2_HALF);
  const __m256i zo = _mm256_set1_epi16 ((int16_t) zp);
  int64_t x, c;

  for (x = 0; x < ow; x++) {
    const int8_t *p0 = r0 + 2 * x * ch, *p1 = p0 + ch;
    const int8_t *q0 = r1 + 2 * x * ch, *q1 = q0 + ch;
    int8_t *d = o + x * ch;
    for (c = 0; c < ch; c += POOL_AVX2_STEP) {
      __m128i a, b, e, f;
      if (c + POOL_AVX2_STEP > ch)
        c = ch - POOL_AVX2_STEP;
      a = _mm_loadu_si128 ((const __m128i *) (const void *) (p0 + c));
      b = _mm_loadu_si128 ((const __m128i *) (const void *) (p1 + c));
      e = _mm_loadu_si128 ((const __m128i *) (const void *) (q0 + c));
      f = _mm_loadu_si128 ((const __m128i *) (const void *) (q1 + c));
      if (is_max) {
        _mm_storeu_si128 ((__m128i *) (void *) (d + c),
            _mm_max_epi8 (_mm_max_epi8 (a, b), _mm_max_epi8 (e, f)));
      } else {
        __m256i sum = _mm256_add_epi16 (_mm256_add_epi16
            (_mm256_cvtepi8_epi16 (a), _mm256_cvtepi8_epi16 (b)),
            _mm256_add_epi16 (_mm256_cvtepi8_epi16 (e),
                _mm256_cvtepi8_epi16 (f)));
        __m256i q;
        sum = _mm256_sub_epi16 (sum, z4);
        q = _mm256_srli_epi16 (_mm256_add_epi16 (_mm256_abs_epi16 (sum),
                half), POOL2_LOG2);
        q = _mm256_add_epi16 (_mm256_sign_epi16 (q, sum), zo);
        q = _mm256_packs_epi16 (q, q);
        q = _mm256_permute4x64_epi64 (q, _MM_SHUFFLE (3, 1, 2, 0));
        _mm_storeu_si128 ((__m128i *) (void *) (d + c),
            _mm256_castsi256_si128 (q));
      }
    }
  }
}

/* One output pixel of a max pool over its window's valid taps, the
 * channels 32 (or, below 32 channels, 16) at a time, the last block
 * overlapping the previous one. Needs ch >= 16. */
__attribute__((target ("avx2"), noinline))
     static void maxpool_pixel_avx2 (const int8_t * restrict src, int64_t iw,
    int64_t ch, int64_t y0, int64_t y1, int64_t x0, int64_t x1,
    int8_t * restrict o)
{
  const __m256i lo = _mm256_set1_epi8 (I8_MIN);
  int64_t c, y, x;

  if (ch < 2 * POOL_AVX2_STEP) {
    for (c = 0; c < ch; c += POOL_AVX2_STEP) {
      __m128i m = _mm256_castsi256_si128 (lo);
      if (c + POOL_AVX2_STEP > ch)
        c = ch - POOL_AVX2_STEP;
      for (y = y0; y < y1; y++)
        for (x = x0; x < x1; x++)
          m = _mm_max_epi8 (m, _mm_loadu_si128 ((const __m128i *) (const void
                      *) (src + (y * iw + x) * ch + c)));
      _mm_storeu_si128 ((__m128i *) (void *) (o + c), m);
    }
    return;
  }
  for (c = 0; c < ch; c += 2 * POOL_AVX2_STEP) {
    __m256i m = lo;
    if (c + 2 * POOL_AVX2_STEP > ch)
      c = ch - 2 * POOL_AVX2_STEP;
    for (y = y0; y < y1; y++)
      for (x = x0; x < x1; x++)
        m = _mm256_max_epi8 (m, _mm256_loadu_si256 ((const __m256i *) (const
                    void *) (src + (y * iw + x) * ch + c)));
    _mm256_storeu_si256 ((__m256i *) (void *) (o + c), m);
  }
}
#endif

/* avg of a 2x2 window (count 4) as in simnpu__pool: zp + the rounded
 * half-away-from-zero quotient */
static inline int8_t
avg4 (int32_t sum, int32_t zp)
{
  int32_t q = sum >= 0 ? (sum + POOL2_HALF) >> POOL2_LOG2 :
      -((-sum + POOL2_HALF) >> POOL2_LOG2);
  return clamp_i8 (zp + q);
}

/* 2x2 stride-2 pooling with every window inside the input: the common
 * downsampling case, with row loops that vectorise. */
static inline __attribute__((always_inline))
     void pool2x2 (bool is_max, const int64_t * din, const int8_t * in,
    const int64_t * dout, int8_t * out, int32_t zp)
{
  const int64_t iw = din[2], ch = din[3], ih = din[1];
  const int64_t oh = dout[1], ow = dout[2];
  const int64_t n_row = ow * ch;
  int64_t n, oy, x, c;

  for (n = 0; n < dout[0]; n++)
    for (oy = 0; oy < oh; oy++) {
      const int8_t *restrict r0 = in + ((n * ih + 2 * oy) * iw) * ch;
      const int8_t *restrict r1 = r0 + iw * ch;
      int8_t *restrict o = out + ((n * oh + oy) * ow) * ch;
      if (ch == 1) {
        if (is_max)
          for (x = 0; x < n_row; x++) {
            int32_t a = MAX (r0[2 * x], r0[2 * x + 1]);
            int32_t b = MAX (r1[2 * x], r1[2 * x + 1]);
            o[x] = (int8_t) MAX (a, b);
        } else
          for (x = 0; x < n_row; x++)
            o[x] = avg4 (r0[2 * x] + r0[2 * x + 1] + r1[2 * x]
                + r1[2 * x + 1] - POOL2_COUNT * zp, zp);
      } else {
#ifdef SIMNPU_MAC_AVX2
        if (ch >= POOL_AVX2_STEP && elt_use_avx2 ()) {
          pool2x2_avx2 (is_max, r0, r1, o, ow, ch, zp);
          continue;
        }
#endif
        /* per output pixel, along its channels (contiguous in all four
         * taps), so that the channel loops vectorise */
        for (x = 0; x < ow; x++) {
          const int8_t *restrict p0 = r0 + 2 * x * ch, *restrict p1 = p0 + ch;
          const int8_t *restrict q0 = r1 + 2 * x * ch, *restrict q1 = q0 + ch;
          int8_t *restrict d = o + x * ch;
          if (is_max)
            for (c = 0; c < ch; c++) {
              int8_t a = MAX (p0[c], p1[c]), b = MAX (q0[c], q1[c]);
              d[c] = MAX (a, b);
          } else
            for (c = 0; c < ch; c++)
              d[c] = avg4 (p0[c] + p1[c] + q0[c] + q1[c] - POOL2_COUNT * zp,
                  zp);
        }
      }
    }
}

/* A max pool as two passes: per output row, the max over the window's
 * rows of whole input rows (one long vector loop), then per output pixel
 * the max over the window's columns of that row: kh + kw taps per output
 * instead of kh * kw, the same maxima. */
static inline __attribute__((always_inline))
     void maxpool_rows (const int64_t * din, const int8_t * in,
    const int64_t * dout, int8_t * out, int kh, int kw, int sh, int sw,
    int pt, int pl)
{
  const int64_t ih = din[1], iw = din[2], ch = din[3], row = iw * ch;
  int8_t rmax[POOL_ROW_MAX];
#ifdef SIMNPU_MAC_AVX2
  const bool use_avx2 = ch >= POOL_AVX2_STEP && elt_use_avx2 ();
#endif
  int64_t n, oy, ox, y, x, c, i;

  for (n = 0; n < dout[0]; n++)
    for (oy = 0; oy < dout[1]; oy++) {
      int64_t y0 = MAX (oy * sh - pt, 0), y1 = MIN (oy * sh - pt + kh, ih);
      const int8_t *plane = in + n * ih * row;
      int8_t *restrict r = rmax;
      memset (r, I8_MIN, (size_t) row);
      for (y = y0; y < y1; y++) {
        const int8_t *restrict t = plane + y * row;
        for (i = 0; i < row; i++)
          r[i] = MAX (r[i], t[i]);
      }
      for (ox = 0; ox < dout[2]; ox++) {
        int64_t x0 = MAX (ox * sw - pl, 0), x1 = MIN (ox * sw - pl + kw, iw);
        int8_t *restrict o = out;
#ifdef SIMNPU_MAC_AVX2
        if (use_avx2) {
          maxpool_pixel_avx2 (rmax, iw, ch, 0, 1, x0, x1, o);
          out += ch;
          continue;
        }
#endif
        memset (o, I8_MIN, (size_t) ch);
        for (x = x0; x < x1; x++) {
          const int8_t *restrict t = rmax + x * ch;
          for (c = 0; c < ch; c++)
            o[c] = MAX (o[c], t[c]);
        }
        out += ch;
      }
    }
}

SIMNPU_CLONES void
simnpu__pool (bool is_max, const int64_t * din, const int8_t * in,
    const int64_t * dout, int8_t * out, int kh, int kw, int sh, int sw,
    int pt, int pl, int32_t zp)
{
  int64_t n, oy, ox, c;
  int64_t ih = din[1], iw = din[2], ch = din[3];
#ifdef SIMNPU_MAC_AVX2
  const bool use_avx2 = elt_use_avx2 ();
#endif

  if (kh == 2 && kw == 2 && sh == 2 && sw == 2 && pt == 0 && pl == 0
      && 2 * dout[1] <= ih && 2 * dout[2] <= iw) {
    pool2x2 (is_max, din, in, dout, out, zp);
    return;
  }

  /* separable when it loads fewer taps per output row */
  if (is_max && iw * ch <= POOL_ROW_MAX
      && kh * iw + dout[2] * kw < dout[2] * kh * kw) {
    maxpool_rows (din, in, dout, out, kh, kw, sh, sw, pt, pl);
    return;
  }
  /* per output pixel, the window's taps in turn along the channels
   * (contiguous), so that the channel loops vectorise: max into the
   * output, sums into int32 chunks on the stack */
  for (n = 0; n < dout[0]; n++) {
    const int8_t *src = in + n * ih * iw * ch;
    for (oy = 0; oy < dout[1]; oy++) {
      for (ox = 0; ox < dout[2]; ox++) {
        int64_t y0 = oy * sh - pt, x0 = ox * sw - pl;
        int64_t y1 = MIN (y0 + kh, ih), x1 = MIN (x0 + kw, iw);
        int64_t y, x;
        int32_t count;
        y0 = MAX (y0, 0);
        x0 = MAX (x0, 0);
        count = (int32_t) ((y1 - y0) * (x1 - x0));
#ifdef SIMNPU_MAC_AVX2
        if (is_max && ch >= POOL_AVX2_STEP && use_avx2) {
          maxpool_pixel_avx2 (src, iw, ch, y0, y1, x0, x1, out);
        } else
#endif
        if (is_max) {
          int8_t *restrict o = out;
          memset (o, I8_MIN, (size_t) ch);
          for (y = y0; y < y1; y++)
            for (x = x0; x < x1; x++) {
              const int8_t *restrict t = src + (y * iw + x) * ch;
              for (c = 0; c < ch; c++)
                o[c] = MAX (o[c], t[c]);
            }
        } else {
          int64_t c0;
          for (c0 = 0; c0 < ch; c0 += POOL_CHUNK) {
            const int64_t m = MIN (POOL_CHUNK, ch - c0);
            int32_t acc[POOL_CHUNK];
            int8_t *restrict o = out + c0;
            for (c = 0; c < m; c++)
              acc[c] = 0;
            for (y = y0; y < y1; y++)
              for (x = x0; x < x1; x++) {
                const int8_t *restrict t = src + (y * iw + x) * ch + c0;
                for (c = 0; c < m; c++)
                  acc[c] += t[c];
              }
            for (c = 0; c < m; c++) {
              /* the sum of (v - zp), as the definition */
              int32_t v = acc[c] - count * zp;
              if (count <= 0)
                v = zp;
              else if (v >= 0)
                v = zp + (v + count / 2) / count;
              else
                v = zp - (-v + count / 2) / count;
              o[c] = clamp_i8 (v);
            }
          }
        }
        out += ch;
      }
    }
  }
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

/* n runs of len bytes, src_stride and dst_stride apart; constant lengths
 * for the few-channel concats. */
static inline __attribute__((always_inline))
     void copy_runs (const int8_t * restrict src, size_t src_stride,
    int8_t * restrict dst, size_t dst_stride, size_t len, size_t n)
{
  size_t i;

  /* a contiguous source into a channel slice of a few-channel output (the
   * concats of thin heads): constant strides, so the stores vectorise */
  if (src_stride == len && dst_stride <= RUNS_MAX_STRIDE) {
    switch (len * (RUNS_MAX_STRIDE + 1) + dst_stride) {
#define RUNS_INTO(L, S) \
      case L * (RUNS_MAX_STRIDE + 1) + S: \
        for (i = 0; i < n; i++) \
          memcpy (dst + i * S, src + i * L, L); \
        return;
        RUNS_INTO (1, 2) RUNS_INTO (1, 3) RUNS_INTO (1, 4) RUNS_INTO (1, 5)
            RUNS_INTO (1, 6) RUNS_INTO (1, 7) RUNS_INTO (1, 8) RUNS_INTO (2, 3)
            RUNS_INTO (2, 4) RUNS_INTO (2, 5) RUNS_INTO (2, 6) RUNS_INTO (2, 7)
            RUNS_INTO (2, 8) RUNS_INTO (3, 4) RUNS_INTO (3, 5) RUNS_INTO (3, 6)
            RUNS_INTO (3, 7) RUNS_INTO (3, 8) RUNS_INTO (4, 5) RUNS_INTO (4, 6)
            RUNS_INTO (4, 7) RUNS_INTO (4, 8)
#undef RUNS_INTO
      default:
        break;
    }
  }
  switch (len) {
#define RUNS_CASE(L) \
    case L: \
      for (i = 0; i < n; i++) \
        memcpy (dst + i * dst_stride, src + i * src_stride, L); \
      break;
      RUNS_CASE (1) RUNS_CASE (2) RUNS_CASE (3) RUNS_CASE (4)
#undef RUNS_CASE
    default:
      for (i = 0; i < n; i++)
        memcpy (dst + i * dst_stride, src + i * src_stride, len);
      break;
  }
}

/* Copies the rank-4 box [sbegin, sbegin + size) of src (dims sd) into dst
 * at [dbegin, dbegin + size) of dims dd, requantising unless the mapping
 * is the identity. When the box spans whole rows and columns of both
 * tensors (a concat, split or slice on the channel axis), the three outer
 * dimensions collapse into one strided run of runs. */
SIMNPU_CLONES void
simnpu__copy_box (const int8_t * src, const int64_t * sd,
    const int64_t * sbegin, int8_t * dst, const int64_t * dd,
    const int64_t * dbegin, const int64_t * size, int32_t zp_in,
    int32_t zp_out, int64_t mult)
{
  const int64_t unit = G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT;
  bool identity = zp_in == zp_out && mult == unit;
  int64_t i0, i1, i2;

  if (identity && sbegin[1] == 0 && sbegin[2] == 0 && dbegin[1] == 0
      && dbegin[2] == 0 && size[1] == sd[1] && size[1] == dd[1]
      && size[2] == sd[2] && size[2] == dd[2]) {
    const int8_t *s = src + ((sbegin[0] * sd[1]) * sd[2]) * sd[3] + sbegin[3];
    int8_t *d = dst + ((dbegin[0] * dd[1]) * dd[2]) * dd[3] + dbegin[3];
    copy_runs (s, (size_t) sd[3], d, (size_t) dd[3], (size_t) size[3],
        (size_t) (size[0] * size[1] * size[2]));
    return;
  }
  src += ((sbegin[0] * sd[1] + sbegin[1]) * sd[2] + sbegin[2]) * sd[3]
      + sbegin[3];
  dst += ((dbegin[0] * dd[1] + dbegin[1]) * dd[2] + dbegin[2]) * dd[3]
      + dbegin[3];
  /* the dimensions of the box, outermost first, with the neighbours
   * contiguous in both tensors merged, so that the innermost run (stride
   * 1 in both) is as long as possible; padded in front with single
   * runs */
  {
    int64_t n[4] = { 1, 1, 1, 1 }, ts[4] = { 0 }, td[4] = { 0 };
    int64_t ss = 1, ds = 1;
    int d, r = 4;

    for (d = 3; d >= 0; d--) {
      if (size[d] != 1 || d == 3) {
        if (r < 4 && ss == ts[r] * n[r] && ds == td[r] * n[r]) {
          n[r] *= size[d];
        } else {
          r--;
          n[r] = size[d];
          ts[r] = ss;
          td[r] = ds;
        }
      }
      ss *= sd[d];
      ds *= dd[d];
    }
    for (i0 = 0; i0 < n[0]; i0++)
      for (i1 = 0; i1 < n[1]; i1++)
        for (i2 = 0; i2 < n[2]; i2++) {
          const int8_t *s = src + i0 * ts[0] + i1 * ts[1] + i2 * ts[2];
          int8_t *o = dst + i0 * td[0] + i1 * td[1] + i2 * td[2];
          if (identity)
            memcpy (o, s, (size_t) n[3]);
          else
            simnpu__requant_copy (s, o, (size_t) n[3], zp_in, zp_out, mult);
        }
  }
}

/* the side of transpose_2d's square tiles */
#define TILE 16
/* the byte interleaves of a TILE x TILE transpose: log2 (TILE) */
#define TILE_ROUNDS 4

#ifdef __SSE2__
/* A 16 x 16 byte tile: d[a * ds + j] = s[j * ss + a]. Each round
 * interleaves rows i and i + 8 into rows 2i and 2i + 1, which rotates the
 * 8-bit (row, column) index of every byte left by one; four rounds swap
 * row and column. */
static inline void
transpose_tile_sse2 (const int8_t * s, size_t ss, int8_t * d, size_t ds)
{
  __m128i x[TILE], y[TILE];
  int i, r;

  for (i = 0; i < TILE; i++)
    x[i] = _mm_loadu_si128 ((const __m128i *) (const void *) (s + i * ss));
  for (r = 0; r < TILE_ROUNDS; r++) {
    for (i = 0; i < TILE / 2; i++) {
      y[2 * i] = _mm_unpacklo_epi8 (x[i], x[i + TILE / 2]);
      y[2 * i + 1] = _mm_unpackhi_epi8 (x[i], x[i + TILE / 2]);
    }
    memcpy (x, y, sizeof (x));
  }
  for (i = 0; i < TILE; i++)
    _mm_storeu_si128 ((__m128i *) (void *) (d + i * ds), x[i]);
}
#endif

/* out[a * os + j] = in[a + j * is] for a < na, j < nj: a matrix
 * transpose, in tiles so that both sides are read and written in runs */
static inline __attribute__((always_inline))
     void transpose_2d (const int8_t * restrict in, size_t is,
    int8_t * restrict out, size_t os, size_t na, size_t nj)
{
  size_t a0, j0, a, j;

  for (a0 = 0; a0 < na; a0 += TILE)
    for (j0 = 0; j0 < nj; j0 += TILE) {
      const size_t ma = MIN (TILE, na - a0), mj = MIN (TILE, nj - j0);
#ifdef __SSE2__
      if (ma == TILE && mj == TILE) {
        transpose_tile_sse2 (in + a0 + j0 * is, is, out + a0 * os + j0, os);
        continue;
      }
#endif
      for (a = a0; a < a0 + ma; a++)
        for (j = j0; j < j0 + mj; j++)
          out[a * os + j] = in[a + j * is];
    }
}

/* out[i0][i1][i2][i3] = in[i0 * ps[0] + i1 * ps[1] + i2 * ps[2] + i3 *
 * ps[3]]: a rank-4 permutation given by the input strides of the output
 * dimensions; the innermost run is a constant-stride gather, or, when
 * another output dimension k is the input's contiguous one (NHWC to NCHW
 * and back), tiled transposes of the (k, 3) planes. */
SIMNPU_CLONES void
simnpu__transpose (const int8_t * in, const int64_t * ps,
    const int64_t * dout, int8_t * out)
{
  int64_t i0, i1, i2;
  int k;

  for (k = 0; k < 3; k++)
    if (ps[k] == 1 && ps[3] > 1 && dout[k] >= TILE && dout[3] >= TILE)
      break;
  if (k < 3) {
    int64_t os[4];
    int u = k == 0 ? 1 : 0, v = k == 2 ? 1 : 2, d;
    os[3] = 1;
    for (d = 2; d >= 0; d--)
      os[d] = os[d + 1] * dout[d + 1];
    for (i0 = 0; i0 < dout[u]; i0++)
      for (i1 = 0; i1 < dout[v]; i1++)
        transpose_2d (in + i0 * ps[u] + i1 * ps[v], (size_t) ps[3],
            out + i0 * os[u] + i1 * os[v], (size_t) os[k], (size_t) dout[k],
            (size_t) dout[3]);
    return;
  }

  for (i0 = 0; i0 < dout[0]; i0++)
    for (i1 = 0; i1 < dout[1]; i1++)
      for (i2 = 0; i2 < dout[2]; i2++) {
        gather_strided (out, in + i0 * ps[0] + i1 * ps[1] + i2 * ps[2],
            (size_t) ps[3], (size_t) dout[3]);
        out += dout[3];
      }
}

#define TAB_I0 SIMNPU_RESIZE_TAB_I0
#define TAB_I1 SIMNPU_RESIZE_TAB_I1
#define TAB_W SIMNPU_RESIZE_TAB_W
#define TAB_STRIDE SIMNPU_RESIZE_TAB_STRIDE

SIMNPU_CLONES void
simnpu__resize_nearest (const int64_t * din, const int8_t * in,
    const int64_t * dout, int8_t * out, const int32_t * table, int32_t zp_in,
    int32_t zp_out, int64_t mult)
{
  const int64_t unit = G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT;
  const bool identity = zp_in == zp_out && mult == unit;
  const int64_t ih = din[1], iw = din[2], ch = din[3];
  const int64_t oh = dout[1], ow = dout[2];
  const size_t row = (size_t) (ow * ch);
  const int32_t *tx = table + TAB_STRIDE * oh;
  int64_t n, y, x;

  for (n = 0; n < dout[0]; n++)
    for (y = 0; y < oh; y++) {
      const int32_t sy = table[TAB_STRIDE * y + TAB_I0];
      const int8_t *src = in + (n * ih + sy) * iw * ch;
      int8_t *restrict dst = out + (n * oh + y) * (int64_t) row;
      /* upscaling repeats rows: copy the one just written */
      if (y > 0 && table[TAB_STRIDE * (y - 1) + TAB_I0] == sy) {
        memcpy (dst, dst - row, row);
        continue;
      }
      if (identity && ch == 1)
        for (x = 0; x < ow; x++)
          dst[x] = src[tx[TAB_STRIDE * x + TAB_I0]];
      else if (identity)
        for (x = 0; x < ow; x++)
          memcpy (dst + x * ch, src + tx[TAB_STRIDE * x + TAB_I0] * ch,
              (size_t) ch);
      else
        for (x = 0; x < ow; x++)
          simnpu__requant_copy (src + tx[TAB_STRIDE * x + TAB_I0] * ch,
              dst + x * ch, (size_t) ch, zp_in, zp_out, mult);
    }
}

/* Horizontal taps of one source row for every output column: h[x][c] =
 * a * wx0 + b * wx1 with |h| <= 128 * 2^11. */
static inline __attribute__((always_inline))
     void bilinear_row (const int8_t * src, const int32_t * tx, int64_t ow,
    int64_t ch, int32_t * restrict h)
{
  const int32_t one = 1 << SIMNPU_RESIZE_WEIGHT_BITS;
  int64_t x, c;

  for (x = 0; x < ow; x++) {
    const int32_t *t = tx + TAB_STRIDE * x;
    const int8_t *restrict a = src + t[TAB_I0] * ch;
    const int8_t *restrict b = src + t[TAB_I1] * ch;
    const int32_t wx1 = t[TAB_W], wx0 = one - wx1;
    int32_t *restrict o = h + x * ch;
    for (c = 0; c < ch; c++)
      o[c] = a[c] * wx0 + b[c] * wx1;
  }
}

/* the row buffer of the two holding source row want, computing it into
 * the one that does not hold keep when neither does */
static inline int32_t *
bilinear_fetch (const int8_t * in_rows, int64_t row_bytes, int64_t want,
    int64_t keep, int32_t * buf[2], int64_t have[2], const int32_t * tx,
    int64_t ow, int64_t ch)
{
  int k;

  if (have[0] == want)
    return buf[0];
  if (have[1] == want)
    return buf[1];
  k = have[0] == keep ? 1 : 0;
  bilinear_row (in_rows + want * row_bytes, tx, ow, ch, buf[k]);
  have[k] = want;
  return buf[k];
}

size_t
simnpu__resize_bilinear_scratch_bytes (const int64_t * dout)
{
  return 2 * (size_t) dout[2] * (size_t) dout[3] * sizeof (int32_t);
}

/* v = (top * wy0 + bottom * wy1) - zp * 2^22 with top and bottom the
 * horizontal taps of the two source rows (|v| < 2^30), requantised as
 * conv2d. With rows, each source row's horizontal taps are computed once
 * (upscaling reuses them for several output rows) and the vertical pass
 * runs along the whole output row; without, per pixel along its
 * channels. Both give the same integers. */
SIMNPU_CLONES void
simnpu__resize_bilinear (const int64_t * din, const int8_t * in,
    const int64_t * dout, int8_t * out, const int32_t * table, int32_t zp_in,
    int32_t zp_out, float scale, int32_t * rows)
{
  const int32_t one = 1 << SIMNPU_RESIZE_WEIGHT_BITS;
  const int32_t zp_acc = zp_in * one * one;
  const int64_t ih = din[1], iw = din[2], ch = din[3];
  const int64_t oh = dout[1], ow = dout[2];
  const float lo_f = (float) (I8_MIN - zp_out), hi_f = (float) (I8_MAX -
      zp_out);
  const int32_t *tx = table + TAB_STRIDE * oh;
  int64_t n, y, x, c;

  for (n = 0; n < dout[0]; n++) {
    int32_t *buf[2] = { rows, rows + ow * ch };
    int64_t have[2] = { -1, -1 };
    for (y = 0; y < oh; y++) {
      const int32_t *ty = table + TAB_STRIDE * y;
      const int8_t *r0 = in + (n * ih + ty[TAB_I0]) * iw * ch;
      const int8_t *r1 = in + (n * ih + ty[TAB_I1]) * iw * ch;
      const int32_t wy1 = ty[TAB_W], wy0 = one - wy1;
      int8_t *restrict dst = out + (n * oh + y) * ow * ch;
      if (rows != NULL) {
        const int8_t *plane = in + n * ih * iw * ch;
        const int32_t *restrict top = bilinear_fetch (plane, iw * ch,
            ty[TAB_I0], ty[TAB_I1], buf, have, tx, ow, ch);
        const int32_t *restrict bottom = bilinear_fetch (plane, iw * ch,
            ty[TAB_I1], ty[TAB_I0], buf, have, tx, ow, ch);
        for (x = 0; x < ow * ch; x++)
          dst[x] = requant_one (top[x] * wy0 + bottom[x] * wy1 - zp_acc,
              scale, zp_out, lo_f, hi_f);
        continue;
      }
      for (x = 0; x < ow; x++) {
        const int32_t *t = tx + TAB_STRIDE * x;
        const int8_t *restrict a = r0 + t[TAB_I0] * ch;
        const int8_t *restrict b = r0 + t[TAB_I1] * ch;
        const int8_t *restrict p = r1 + t[TAB_I0] * ch;
        const int8_t *restrict q = r1 + t[TAB_I1] * ch;
        const int32_t wx1 = t[TAB_W], wx0 = one - wx1;
        int8_t *restrict o = dst + x * ch;
        for (c = 0; c < ch; c++) {
          int32_t upper = a[c] * wx0 + b[c] * wx1;
          int32_t lower = p[c] * wx0 + q[c] * wx1;
          o[c] = requant_one (upper * wy0 + lower * wy1 - zp_acc, scale,
              zp_out, lo_f, hi_f);
        }
      }
    }
  }
}

#ifdef SIMNPU_MAC_AVX2
/* channels per vector of mean_avx2 */
#define MEAN_AVX2_STEP 32
/* positions whose int8 sum stays inside int16: 256 * -128 = -32768 */
#define MEAN_I16_POSITIONS 256

/* sum[c] += the sum over the hw positions of src[i * ch + c] for the
 * channels up to a multiple of MEAN_AVX2_STEP, in 16-bit partial sums
 * of MEAN_I16_POSITIONS positions (exact), widened into sum; the
 * positions go in blocks across all the channels, so that a block is read
 * from memory once. Returns the channels done. */
__attribute__((target ("avx2"), noinline))
     static int64_t mean_avx2 (const int8_t * restrict src, int64_t hw,
    int64_t ch, int32_t * restrict sum)
{
  const int64_t m = ch - ch % MEAN_AVX2_STEP;
  int64_t p0, p, c;

  for (p0 = 0; p0 < hw; p0 += MEAN_I16_POSITIONS) {
    const int64_t p1 = MIN (hw, p0 + MEAN_I16_POSITIONS);
    for (c = 0; c < m; c += MEAN_AVX2_STEP) {
      __m256i a0 = _mm256_setzero_si256 (), a1 = a0;
      __m256i s0, s1, s2, s3;
      int32_t *o = sum + c;
      for (p = p0; p < p1; p++) {
        __m256i v = _mm256_loadu_si256 ((const __m256i *) (const void *)
            (src + p * ch + c));
        a0 = _mm256_add_epi16 (a0,
            _mm256_cvtepi8_epi16 (_mm256_castsi256_si128 (v)));
        a1 = _mm256_add_epi16 (a1,
            _mm256_cvtepi8_epi16 (_mm256_extracti128_si256 (v, 1)));
      }
      s0 = _mm256_cvtepi16_epi32 (_mm256_castsi256_si128 (a0));
      s1 = _mm256_cvtepi16_epi32 (_mm256_extracti128_si256 (a0, 1));
      s2 = _mm256_cvtepi16_epi32 (_mm256_castsi256_si128 (a1));
      s3 = _mm256_cvtepi16_epi32 (_mm256_extracti128_si256 (a1, 1));
#define MEAN_ACC(K, S) \
      _mm256_storeu_si256 ((__m256i *) (void *) (o + (K)), \
          _mm256_add_epi32 (S, _mm256_loadu_si256 ((const __m256i *) \
                  (const void *) (o + (K)))))
      MEAN_ACC (0, s0);
      MEAN_ACC (8, s1);
      MEAN_ACC (16, s2);
      MEAN_ACC (24, s3);
#undef MEAN_ACC
    }
  }
  return m;
}
#endif

/* acc: din[3] int32 of scratch. Raw values are summed (|sum| <= 128 *
 * H * W < 2^31 for the H * W <= 2^23 the graph allows) and the zero point
 * taken out once. */
SIMNPU_CLONES void
simnpu__mean (const int64_t * din, const int8_t * in, int8_t * out,
    int32_t * acc, int32_t zp_in, int32_t zp_out, double rescale)
{
  const int64_t hw = din[1] * din[2], ch = din[3];
  int64_t n, i, c;

  for (n = 0; n < din[0]; n++) {
    const int8_t *restrict src = in + n * hw * ch;
    int32_t *restrict sum = acc;
    if (ch == 1) {
      int32_t s = 0;
      for (i = 0; i < hw; i++)
        s += src[i];
      sum[0] = s;
    } else {
      int64_t c0 = 0;
      memset (sum, 0, (size_t) ch * sizeof (int32_t));
#ifdef SIMNPU_MAC_AVX2
      if (elt_use_avx2 ())
        c0 = mean_avx2 (src, hw, ch, sum);
#endif
      if (c0 < ch)
        for (i = 0; i < hw; i++)
          for (c = c0; c < ch; c++)
            sum[c] += src[i * ch + c];
    }
    for (c = 0; c < ch; c++) {
      double v = (double) ((int64_t) sum[c] - (int64_t) zp_in * hw);
      double r = round (v * rescale / (double) hw) + zp_out;
      out[n * ch + c] = (int8_t) (r < I8_MIN ? I8_MIN : (r > I8_MAX ? I8_MAX :
              r));
    }
  }
}

/* One output row of pad from the source row src (iw pixels of ic
 * channels): left and right pixels and the channels around each pixel's
 * are the constant, or copies of the nearest requantised value. */
static void
pad_row (const int8_t * src, int64_t iw, int64_t ic, int8_t * dst,
    int64_t ow, int64_t oc, int64_t bw, int64_t bc, bool edge, int8_t value,
    int32_t zp_in, int32_t zp_out, int64_t mult)
{
  const int64_t ac = oc - bc - ic;
  int64_t x;

  if (bc == 0 && ac == 0) {
    int64_t aw = ow - bw - iw;
    simnpu__requant_copy (src, dst + bw * oc, (size_t) (iw * ic), zp_in,
        zp_out, mult);
    for (x = 0; x < bw; x++)
      if (edge)
        memcpy (dst + x * oc, dst + bw * oc, (size_t) oc);
      else
        memset (dst + x * oc, value, (size_t) oc);
    for (x = ow - aw; x < ow; x++)
      if (edge)
        memcpy (dst + x * oc, dst + (ow - aw - 1) * oc, (size_t) oc);
      else
        memset (dst + x * oc, value, (size_t) oc);
    return;
  }
  if (!edge) {
    /* the constant everywhere, then the requantised pixels into their
     * channel slices: one call per pixel instead of three */
    memset (dst, value, (size_t) (ow * oc));
    for (x = 0; x < iw; x++)
      simnpu__requant_copy (src + x * ic, dst + (bw + x) * oc + bc,
          (size_t) ic, zp_in, zp_out, mult);
    return;
  }
  for (x = 0; x < ow; x++) {
    int64_t sx = x - bw;
    int8_t *o = dst + x * oc;
    if (!edge && (sx < 0 || sx >= iw)) {
      memset (o, value, (size_t) oc);
      continue;
    }
    sx = CLAMP (sx, 0, iw - 1);
    simnpu__requant_copy (src + sx * ic, o + bc, (size_t) ic, zp_in, zp_out,
        mult);
    memset (o, edge ? o[bc] : value, (size_t) bc);
    memset (o + bc + ic, edge ? o[bc + ic - 1] : value, (size_t) ac);
  }
}

SIMNPU_CLONES void
simnpu__pad (const int64_t * din, const int8_t * in, const int64_t * dout,
    int8_t * out, const int32_t * before, bool edge, int8_t value,
    int32_t zp_in, int32_t zp_out, int64_t mult)
{
  const int64_t row_in = din[2] * din[3], row_out = dout[2] * dout[3];
  int64_t n, y;

  for (n = 0; n < dout[0]; n++)
    for (y = 0; y < dout[1]; y++) {
      int64_t sn = n - before[0], sy = y - before[1];
      int8_t *dst = out + (n * dout[1] + y) * row_out;
      if (!edge && (sn < 0 || sn >= din[0] || sy < 0 || sy >= din[1])) {
        memset (dst, value, (size_t) row_out);
        continue;
      }
      sn = CLAMP (sn, 0, din[0] - 1);
      sy = CLAMP (sy, 0, din[1] - 1);
      pad_row (in + (sn * din[1] + sy) * row_in, din[2], din[3], dst,
          dout[2], dout[3], before[2], before[3], edge, value, zp_in, zp_out,
          mult);
    }
}
