/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Depthwise conv2d (groups == ic == oc): the fast kernels behind the seam
 * in kernels-private.h, AVX2 only (any window, stride, dilation and padding up to
 * the DW_MAX_* limits; other shapes and CPUs keep the portable kernel).
 *
 * Channels go along the vector lanes, DW_LANES at a time (a block): NHWC
 * keeps a pixel's channels contiguous. Taps go in horizontal pairs through
 * the 16-bit multiply-add, which is exact (a pair of int8 products sums to
 * at most 2 * 128 * 128): for each input row the kernel builds, per block,
 * a row of int16 pairs (x[j], x[j + dw]) over the padded row (j in padded
 * coordinates, positions outside the input holding the input zero point,
 * as the portable kernel's column buffer does), so that the taps (kx, kx +
 * 1) of output ox are one aligned 32-byte load at j = ox * sw + kx * dw;
 * an odd last tap is paired with a zero weight. Only the pairs some output
 * uses are kept (every other one at stride 2). Each block keeps its pair
 * rows in a ring of as many rows as the window spans, so each input row is
 * widened once per block; the output rows go one at a time through all
 * the blocks, so the row being written stays in L1. The inner loop keeps
 * eight pixels' accumulators in registers and runs without a branch.
 * Weights are packed once per model as the multiply-add's operands: per
 * block, per kernel row, per pair of taps, 8 int32 words of (w[kx], w[kx +
 * 1]).
 *
 * The requantisation is requant_one's single-precision sequence (kernels-private.h)
 * in vectors (see dw_requant); no FMA is enabled, so nothing is
 * contracted. */

#include "kernels-private.h"

#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute (target)
#define SIMNPU_DW_AVX2 1
#include <immintrin.h>
#endif
#endif

#ifdef SIMNPU_DW_AVX2

/* channels per block: one vector of int32 accumulators */
#define DW_LANES 8
/* bytes of one pair-row element: DW_LANES int16 pairs */
#define DW_PAIR_BYTES (DW_LANES * 4)
/* the tallest window (rows spanned, (kh - 1) * dh + 1) taken */
#define DW_MAX_SPAN 32
/* the widest window and the largest stride and dilation taken */
#define DW_MAX_K 16
#define DW_MAX_STEP 8
/* the largest scratch for the rings of pair rows (bytes) */
#define DW_MAX_RINGS (4.0 * 1024 * 1024)
/* output pixels per requantisation step; the inner loop takes two steps
 * at a time */
#define DW_PIXELS 4

/* The shape's layout: blocks, pairs of taps per kernel row, the pair-row
 * elements a row of output needs, rows in the ring. */
typedef struct
{
  int blocks;
  int pairs;
  int nj;
  int span;
  /* Only every g-th pair of the padded row is used (g = gcd (sw, 2 * dw),
   * 2 at stride 2): the row holds those, nj of them. */
  int g;
} DwLayout;

static int
dw_gcd (int a, int b)
{
  while (b != 0) {
    int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static void
dw_layout (const simnpu__conv_params * p, DwLayout * l)
{
  l->blocks = (p->oc + DW_LANES - 1) / DW_LANES;
  l->pairs = (p->kw + 1) / 2;
  l->span = (p->kh - 1) * p->dh + 1;
  l->g = dw_gcd (p->sw, 2 * p->dw);
  /* the last pair's first tap of the last output pixel */
  l->nj = ((p->ow - 1) * p->sw + 2 * (l->pairs - 1) * p->dw) / l->g + 1;
}

static bool
dw_takes (const simnpu__conv_params * p)
{
  if (!__builtin_cpu_supports ("avx2"))
    return false;
  if (p->groups != p->ic || p->groups != p->oc || p->groups < 1)
    return false;
  if (p->kh < 1 || p->kw < 1 || p->kh > DW_MAX_K || p->kw > DW_MAX_K)
    return false;
  if (p->sh < 1 || p->sw < 1 || p->sh > DW_MAX_STEP || p->sw > DW_MAX_STEP)
    return false;
  if (p->dh < 1 || p->dw < 1 || p->dh > DW_MAX_STEP || p->dw > DW_MAX_STEP)
    return false;
  if (p->oh < 1 || p->ow < 1 || p->n < 1 || p->pt < 0 || p->pl < 0)
    return false;
  if ((p->kh - 1) * p->dh + 1 > DW_MAX_SPAN || p->kh > DW_MAX_K)
    return false;
  {
    /* the rings of very long rows (a 1x1 depthwise conv, which the graph
     * runs as one row of the whole image) would not fit any cache */
    DwLayout l;
    dw_layout (p, &l);
    if ((double) l.blocks * l.span * l.nj * DW_PAIR_BYTES > DW_MAX_RINGS)
      return false;
  }
  return true;
}

static size_t
dw_row_bytes (const DwLayout * l)
{
  return (size_t) l->nj * DW_PAIR_BYTES;
}

size_t
simnpu__dw_packed_bytes (const simnpu__conv_params * p)
{
  DwLayout l;

  if (!dw_takes (p))
    return 0;
  dw_layout (p, &l);
  return (size_t) l.blocks * p->kh * l.pairs * DW_PAIR_BYTES;
}

void
simnpu__dw_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
  DwLayout l;
  int16_t *dst = packed;
  int b, ky, kp, lane;

  dw_layout (p, &l);
  for (b = 0; b < l.blocks; b++)
    for (ky = 0; ky < p->kh; ky++)
      for (kp = 0; kp < l.pairs; kp++)
        for (lane = 0; lane < DW_LANES; lane++) {
          int c = b * DW_LANES + lane;
          int kx = 2 * kp;
          int16_t w0 = 0, w1 = 0;
          if (c < p->oc) {
            const int8_t *w = weights + ((size_t) c * p->kh + ky) * p->kw;
            w0 = w[kx];
            w1 = kx + 1 < p->kw ? w[kx + 1] : 0;
          }
          *dst++ = w0;
          *dst++ = w1;
        }
}

size_t
simnpu__dw_scratch_bytes (const simnpu__conv_params * p)
{
  DwLayout l;

  if (!dw_takes (p))
    return 0;
  dw_layout (p, &l);
  /* the rings, the padding row, alignment */
  return ((size_t) l.blocks * l.span + 1) * dw_row_bytes (&l)
      + SIMNPU_KERNEL_ALIGN;
}

/* What one block's pass needs. */
typedef struct
{
  const simnpu__conv_params *p;
  DwLayout l;
  const int8_t *in;             /* this image */
  int8_t *out;
  int c0, nc;                   /* the block's channels */
  __m256i bias;
  __m256 scale, hi;
  __m256i lo16, zp16;
  const __m256i *w;             /* the block's packed weights */
  const int8_t *padrow;
} DwBlock;

/* 8 bytes of channels at src, or fewer at the block's tail */
__attribute__((target ("avx2")))
     static inline __m128i dw_load8 (const int8_t * src, int nc)
{
  int64_t v = 0;

  if (nc == DW_LANES)
    return _mm_loadl_epi64 ((const __m128i *) (const void *) src);
  memcpy (&v, src, (size_t) nc);
  return _mm_cvtsi64_si128 (v);
}

__attribute__((target ("avx2")))
     static inline void dw_put_pair (int8_t * dst, __m128i a, __m128i b)
{
  _mm256_store_si256 ((__m256i *) (void *) dst,
      _mm256_cvtepi8_epi16 (_mm_unpacklo_epi8 (a, b)));
}

/* The pair row of input row iy (inside the image) for the block: element
 * m is the pair at padded column j = m * g. */
__attribute__((target ("avx2")))
     static void dw_build_row (const DwBlock * k, int iy, int8_t * dst)
{
  const simnpu__conv_params *p = k->p;
  const int8_t *src = k->in + (size_t) iy * p->iw * p->ic + k->c0;
  const __m128i zp = _mm_set1_epi8 ((char) p->in_zp);
  const size_t ic = (size_t) p->ic;
  const int nj = k->l.nj, g = k->l.g, pl = p->pl, dw = p->dw, iw = p->iw;
  const int nc = k->nc;
  /* m with both ix = m * g - pl and ix + dw inside [0, iw) */
  const int end = iw - dw + pl;
  int mlo = MIN ((pl + g - 1) / g, nj);
  int mhi = MAX (MIN (end > 0 ? (end + g - 1) / g : 0, nj), mlo);
  int m;

  for (m = 0; m < nj; m++) {
    int ix = m * g - pl, ix2 = ix + dw;
    __m128i a, b;
    if (m == mlo && mhi > mlo) {
      /* the inside, with no test per element */
      const int8_t *s = src + (size_t) ix * ic;
      const size_t off = (size_t) dw * ic, next = (size_t) g *ic;
      if (nc == DW_LANES) {
        for (; m < mhi; m++, s += next)
          dw_put_pair (dst + (size_t) m * DW_PAIR_BYTES,
              _mm_loadl_epi64 ((const __m128i *) (const void *) s),
              _mm_loadl_epi64 ((const __m128i *) (const void *) (s + off)));
      } else {
        for (; m < mhi; m++, s += next)
          dw_put_pair (dst + (size_t) m * DW_PAIR_BYTES, dw_load8 (s, nc),
              dw_load8 (s + off, nc));
      }
      m--;
      continue;
    }
    a = ix >= 0 && ix < iw ? dw_load8 (src + ix * ic, nc) : zp;
    b = ix2 >= 0 && ix2 < iw ? dw_load8 (src + ix2 * ic, nc) : zp;
    dw_put_pair (dst + (size_t) m * DW_PAIR_BYTES, a, b);
  }
}

/* dw_build_row for two full blocks at once (channels c0 to c0 + 16):
 * their inside from 16-byte loads, whose byte unpacks give both blocks'
 * pairs. */
__attribute__((target ("avx2")))
     static void dw_build_row2 (const DwBlock * k, int iy, int8_t * dst0,
    int8_t * dst1)
{
  const simnpu__conv_params *p = k->p;
  const int8_t *src = k->in + (size_t) iy * p->iw * p->ic + k->c0;
  const __m128i zp = _mm_set1_epi8 ((char) p->in_zp);
  const size_t ic = (size_t) p->ic;
  const int nj = k->l.nj, g = k->l.g, pl = p->pl, dw = p->dw, iw = p->iw;
  const int end = iw - dw + pl;
  int mlo = MIN ((pl + g - 1) / g, nj);
  int mhi = MAX (MIN (end > 0 ? (end + g - 1) / g : 0, nj), mlo);
  int m;

  for (m = 0; m < nj; m++) {
    int ix = m * g - pl, ix2 = ix + dw;
    __m128i a, b;
    if (m == mlo && mhi > mlo) {
      const int8_t *s = src + (size_t) ix * ic;
      const size_t off = (size_t) dw * ic, next = (size_t) g *ic;
      for (; m < mhi; m++, s += next) {
        a = _mm_loadu_si128 ((const __m128i *) (const void *) s);
        b = _mm_loadu_si128 ((const __m128i *) (const void *) (s + off));
        _mm256_store_si256 ((__m256i *) (void *) (dst0 + (size_t) m *
                DW_PAIR_BYTES), _mm256_cvtepi8_epi16 (_mm_unpacklo_epi8 (a,
                    b)));
        _mm256_store_si256 ((__m256i *) (void *) (dst1 + (size_t) m *
                DW_PAIR_BYTES), _mm256_cvtepi8_epi16 (_mm_unpackhi_epi8 (a,
                    b)));
      }
      m--;
      continue;
    }
    a = ix >= 0 && ix < iw ? _mm_loadu_si128 ((const __m128i *) (const void *)
        (src + ix * ic)) : zp;
    b = ix2 >= 0 && ix2 < iw ? _mm_loadu_si128 ((const __m128i *) (const void
            *) (src + ix2 * ic)) : zp;
    _mm256_store_si256 ((__m256i *) (void *) (dst0 + (size_t) m *
            DW_PAIR_BYTES), _mm256_cvtepi8_epi16 (_mm_unpacklo_epi8 (a, b)));
    _mm256_store_si256 ((__m256i *) (void *) (dst1 + (size_t) m *
            DW_PAIR_BYTES), _mm256_cvtepi8_epi16 (_mm_unpackhi_epi8 (a, b)));
  }
}

/* requant_one on 8 accumulators up to its lower clamp: the conversion
 * rounds to nearest even in the current rounding mode, as adding and
 * removing 1.5 * 2^23 does inside the clamp's range. The upper clamp is
 * applied first in float, so no conversion overflows upwards; min takes
 * its second operand, x, when x is NaN, which then converts to INT_MIN
 * as very negative products do. The lower clamp follows in int16 after
 * the saturating pack (dw_lower): rounding is monotone and the bound an
 * integer, so clamping after it is the same, and INT_MIN goes to the
 * bound, as requant_one sends NaN. */
__attribute__((target ("avx2")))
     static inline __m256i dw_requant (const DwBlock * k, __m256i acc)
{
  __m256 f = _mm256_mul_ps (_mm256_cvtepi32_ps (acc), k->scale);

  return _mm256_cvtps_epi32 (_mm256_min_ps (k->hi, f));
}

/* one pixel's 8 channels (fewer at the tail) */
__attribute__((target ("avx2")))
     static inline void dw_store (const DwBlock * k, __m256i acc, int8_t * dst)
{
  __m256i q = dw_requant (k, acc);
  __m128i h;

  /* |q| <= 255 and q + zp in [act_min, act_max]: the saturating packs
   * are exact */
  h = _mm_packs_epi32 (_mm256_castsi256_si128 (q),
      _mm256_extracti128_si256 (q, 1));
  h = _mm_max_epi16 (h, _mm256_castsi256_si128 (k->lo16));
  h = _mm_add_epi16 (h, _mm256_castsi256_si128 (k->zp16));
  h = _mm_packs_epi16 (h, h);
  if (k->nc == DW_LANES) {
    _mm_storel_epi64 ((__m128i *) (void *) dst, h);
  } else {
    int64_t v = _mm_cvtsi128_si64 (h);
    memcpy (dst, &v, (size_t) k->nc);
  }
}

/* four pixels' (step bytes apart): the packs interleave their halves, a
 * permutation puts each pixel's 8 bytes together */
__attribute__((target ("avx2")))
     static inline void dw_store4 (const DwBlock * k, __m256i a0, __m256i a1,
    __m256i a2, __m256i a3, int8_t * dst, size_t step)
{
  __m256i q01 = _mm256_packs_epi32 (dw_requant (k, a0), dw_requant (k, a1));
  __m256i q23 = _mm256_packs_epi32 (dw_requant (k, a2), dw_requant (k, a3));
  __m256i b;
  __m128i lo, hi;

  q01 = _mm256_add_epi16 (_mm256_max_epi16 (q01, k->lo16), k->zp16);
  q23 = _mm256_add_epi16 (_mm256_max_epi16 (q23, k->lo16), k->zp16);
  b = _mm256_permutevar8x32_epi32 (_mm256_packs_epi16 (q01, q23),
      _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7));
  lo = _mm256_castsi256_si128 (b);
  hi = _mm256_extracti128_si256 (b, 1);
  if (k->nc == DW_LANES) {
    _mm_storel_epi64 ((__m128i *) (void *) dst, lo);
    _mm_storeh_pi ((__m64 *) (void *) (dst + step), _mm_castsi128_ps (lo));
    _mm_storel_epi64 ((__m128i *) (void *) (dst + 2 * step), hi);
    _mm_storeh_pi ((__m64 *) (void *) (dst + 3 * step), _mm_castsi128_ps (hi));
  } else {
    int8_t tmp[DW_PIXELS * DW_LANES];
    int i;
    _mm256_storeu_si256 ((__m256i *) (void *) tmp, b);
    for (i = 0; i < DW_PIXELS; i++)
      memcpy (dst + i * step, tmp + i * DW_LANES, (size_t) k->nc);
  }
}

/* One output row of the block from the pair rows rows[ky]. KH and PAIRS
 * are constants in the specialised copies, 0 in the generic one. */
__attribute__((target ("avx2")))
     static inline __attribute__((always_inline))
     void dw_row_tmpl (const DwBlock * k, const int8_t * const *rows,
    int8_t * dst, const int KH, const int PAIRS)
{
  const simnpu__conv_params *p = k->p;
  const int kh = KH ? KH : p->kh, pairs = PAIRS ? PAIRS : k->l.pairs;
  const size_t step = (size_t) (p->sw / k->l.g) * DW_PAIR_BYTES;
  const size_t pair_step = (size_t) (2 * p->dw / k->l.g) * DW_PAIR_BYTES;
  const size_t out_step = (size_t) p->oc;
  const int ow = p->ow;
  int ox = 0, ky, kp;

  for (; ox + 2 * DW_PIXELS <= ow; ox += 2 * DW_PIXELS) {
    __m256i a0 = k->bias, a1 = k->bias, a2 = k->bias, a3 = k->bias;
    __m256i a4 = k->bias, a5 = k->bias, a6 = k->bias, a7 = k->bias;
    const __m256i *w = k->w;
    for (ky = 0; ky < kh; ky++) {
      const int8_t *r = rows[ky] + (size_t) ox * step;
      for (kp = 0; kp < pairs; kp++, w++, r += pair_step) {
        const __m256i wv = _mm256_load_si256 (w);
#define DW_MAC(A, I) \
        A = _mm256_add_epi32 (A, _mm256_madd_epi16 (wv, \
                _mm256_load_si256 ((const __m256i *) (const void *) (r + \
                        (I) * step))))
        DW_MAC (a0, 0);
        DW_MAC (a1, 1);
        DW_MAC (a2, 2);
        DW_MAC (a3, 3);
        DW_MAC (a4, 4);
        DW_MAC (a5, 5);
        DW_MAC (a6, 6);
        DW_MAC (a7, 7);
#undef DW_MAC
      __asm__ ("":"+x" (a0), "+x" (a1), "+x" (a2), "+x" (a3), "+x" (a4),
            "+x" (a5), "+x" (a6), "+x" (a7));
      }
    }
    dw_store4 (k, a0, a1, a2, a3, dst, out_step);
    dw_store4 (k, a4, a5, a6, a7, dst + DW_PIXELS * out_step, out_step);
    dst += 2 * DW_PIXELS * out_step;
  }
  for (; ox + DW_PIXELS <= ow; ox += DW_PIXELS) {
    __m256i a0 = k->bias, a1 = k->bias, a2 = k->bias, a3 = k->bias;
    const __m256i *w = k->w;
    for (ky = 0; ky < kh; ky++) {
      const int8_t *r = rows[ky] + (size_t) ox * step;
      for (kp = 0; kp < pairs; kp++, w++, r += pair_step) {
        const __m256i wv = _mm256_load_si256 (w);
        a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (wv,
                _mm256_load_si256 ((const __m256i *) (const void *) r)));
        a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (wv,
                _mm256_load_si256 ((const __m256i *) (const void *) (r +
                        step))));
        a2 = _mm256_add_epi32 (a2, _mm256_madd_epi16 (wv,
                _mm256_load_si256 ((const __m256i *) (const void *) (r +
                        2 * step))));
        a3 = _mm256_add_epi32 (a3, _mm256_madd_epi16 (wv,
                _mm256_load_si256 ((const __m256i *) (const void *) (r +
                        3 * step))));
        /* keeps the sums in order: reassociated into trees, they take
         * more registers than there are */
      __asm__ ("":"+x" (a0), "+x" (a1), "+x" (a2), "+x" (a3));
      }
    }
    dw_store4 (k, a0, a1, a2, a3, dst, out_step);
    dst += DW_PIXELS * out_step;
  }
  for (; ox < ow; ox++) {
    __m256i a0 = k->bias;
    const __m256i *w = k->w;
    for (ky = 0; ky < kh; ky++) {
      const int8_t *r = rows[ky] + (size_t) ox * step;
      for (kp = 0; kp < pairs; kp++, w++, r += pair_step)
        a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (_mm256_load_si256 (w),
                _mm256_load_si256 ((const __m256i *) (const void *) r)));
    }
    dw_store (k, a0, dst);
    dst += out_step;
  }
}

__attribute__((target ("avx2")))
     static void dw_row_3x3 (const DwBlock * k, const int8_t * const *rows,
    int8_t * dst)
{
  dw_row_tmpl (k, rows, dst, 3, 2);
}

__attribute__((target ("avx2")))
     static void dw_row_5x5 (const DwBlock * k, const int8_t * const *rows,
    int8_t * dst)
{
  dw_row_tmpl (k, rows, dst, 5, 3);
}

__attribute__((target ("avx2")))
     static void dw_row_any (const DwBlock * k, const int8_t * const *rows,
    int8_t * dst)
{
  dw_row_tmpl (k, rows, dst, 0, 0);
}

typedef void (*DwRowFunc) (const DwBlock * k, const int8_t * const *rows,
    int8_t * dst);

/* the block's bias and scales, zero in the lanes past the channels */
__attribute__((target ("avx2")))
     static void dw_set_block (DwBlock * k, int b, const void *packed,
    const int32_t * bias, const float *scales)
{
  const simnpu__conv_params *p = k->p;

  k->c0 = b * DW_LANES;
  k->nc = MIN (DW_LANES, p->oc - k->c0);
  k->w = (const __m256i *) packed + (size_t) b *p->kh * k->l.pairs;
  if (k->nc == DW_LANES) {
    k->bias = _mm256_loadu_si256 ((const __m256i *) (const void *)
        (bias + k->c0));
    k->scale = _mm256_loadu_ps (scales + k->c0);
  } else {
    int32_t bias8[DW_LANES] = { 0 };
    float scale8[DW_LANES] = { 0 };
    memcpy (bias8, bias + k->c0, (size_t) k->nc * sizeof (int32_t));
    memcpy (scale8, scales + k->c0, (size_t) k->nc * sizeof (float));
    k->bias = _mm256_loadu_si256 ((const __m256i *) (const void *) bias8);
    k->scale = _mm256_loadu_ps (scale8);
  }
}

/* Output rows go one at a time, each through all the blocks, so that the
 * row's output stays in L1 while the blocks fill it in; each block has
 * its ring of pair rows. Input row iy lives in ring slot iy mod span (the
 * window's rows are span consecutive rows at most), the same in every
 * block's ring. */
__attribute__((target ("avx2")))
     static void dw_run_avx2 (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch)
{
  DwBlock k;
  int8_t *base = (int8_t *) (((uintptr_t) scratch + SIMNPU_KERNEL_ALIGN - 1)
      & ~(uintptr_t) (SIMNPU_KERNEL_ALIGN - 1));
  size_t row_bytes, ring_bytes;
  int b, n, oy, ky, j, span, sh_mod, first;
  DwRowFunc row = dw_row_any;
  /* per tap row: its ring slot, -1 for the padding row; the slots to
   * build for this output row and their input rows */
  int slot_of[DW_MAX_K], build_slot[DW_MAX_K], build_iy[DW_MAX_K];
  int tag[DW_MAX_SPAN];
  const int8_t *rows[DW_MAX_K];

  k.p = p;
  dw_layout (p, &k.l);
  span = k.l.span;
  sh_mod = p->sh % span;
  row_bytes = dw_row_bytes (&k.l);
  ring_bytes = (size_t) span *row_bytes;
  k.padrow = base + (size_t) k.l.blocks * ring_bytes;
  {
    const __m256i zp2 = _mm256_set1_epi16 ((int16_t) p->in_zp);
    int8_t *pad = base + (size_t) k.l.blocks * ring_bytes;
    for (j = 0; j < k.l.nj; j++)
      _mm256_store_si256 ((__m256i *) (void *) (pad + (size_t) j *
              DW_PAIR_BYTES), zp2);
  }
  if (p->kh == 3 && p->kw == 3)
    row = dw_row_3x3;
  else if (p->kh == 5 && p->kw == 5)
    row = dw_row_5x5;
  k.hi = _mm256_set1_ps ((float) (p->act_max - p->out_zp));
  k.zp16 = _mm256_set1_epi16 ((int16_t) p->out_zp);
  k.lo16 = _mm256_set1_epi16 ((int16_t) (p->act_min - p->out_zp));

  for (n = 0; n < p->n; n++) {
    k.in = input + (size_t) n *p->ih * p->iw * p->ic;
    k.out = output + (size_t) n *p->oh * p->ow * p->oc;
    for (j = 0; j < span; j++)
      tag[j] = -1;
    first = (-p->pt) % span;
    if (first < 0)
      first += span;
    for (oy = 0; oy < p->oh; oy++) {
      int iy = oy * p->sh - p->pt, slot = first, n_build = 0, i;
      int8_t *dst;
      for (ky = 0; ky < p->kh; ky++, iy += p->dh) {
        if (iy < 0 || iy >= p->ih) {
          slot_of[ky] = -1;
        } else {
          slot_of[ky] = slot;
          if (tag[slot] != iy) {
            tag[slot] = iy;
            build_slot[n_build] = slot;
            build_iy[n_build++] = iy;
          }
        }
        slot += p->dh;
        if (slot >= span)
          slot -= span;
      }
      dst = k.out + (size_t) oy *p->ow * p->oc;
      for (b = 0; b < k.l.blocks; b++) {
        int8_t *ring = base + (size_t) b * ring_bytes;
        dw_set_block (&k, b, packed, bias, scales);
        if (b % 2 == 0 && k.c0 + 2 * DW_LANES <= p->oc) {
          /* this block and the next from the same loads */
          for (i = 0; i < n_build; i++)
            dw_build_row2 (&k, build_iy[i], ring + (size_t) build_slot[i] *
                row_bytes, ring + ring_bytes + (size_t) build_slot[i] *
                row_bytes);
        } else if (b % 2 == 0 || k.nc < DW_LANES) {
          for (i = 0; i < n_build; i++)
            dw_build_row (&k, build_iy[i], ring + (size_t) build_slot[i] *
                row_bytes);
        }
        for (ky = 0; ky < p->kh; ky++)
          rows[ky] = slot_of[ky] < 0 ? k.padrow : ring +
              (size_t) slot_of[ky] * row_bytes;
        row (&k, rows, dst + k.c0);
      }
      first += sh_mod;
      if (first >= span)
        first -= span;
    }
  }
}

#endif /* SIMNPU_DW_AVX2 */

#ifndef SIMNPU_DW_AVX2
size_t
simnpu__dw_packed_bytes (const simnpu__conv_params * p)
{
  (void) p;
  return 0;
}

void
simnpu__dw_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
  (void) p;
  (void) weights;
  (void) packed;
}

size_t
simnpu__dw_scratch_bytes (const simnpu__conv_params * p)
{
  (void) p;
  return 0;
}
#endif

void
simnpu__dw_run (const simnpu__conv_params * p, const int8_t * input,
    const void *packed, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
#ifdef SIMNPU_DW_AVX2
  dw_run_avx2 (p, input, packed, bias, scales, output, scratch);
#else
  (void) p;
  (void) input;
  (void) packed;
  (void) bias;
  (void) scales;
  (void) output;
  (void) scratch;
#endif
}
