/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Depthwise conv2d (groups == ic == oc): the fast kernels behind the seam
 * of kernels.h, AVX2 only.
 *
 * Channels go along the vector lanes, DW_LANES at a time (a block): NHWC
 * keeps a pixel's channels contiguous. Taps go in horizontal pairs through
 * the 16-bit multiply-add, which is exact (a pair of int8 products sums to
 * at most 2 * 128 * 128): for each input row the kernel builds, per block,
 * a row of int16 pairs P[j] = (x[j], x[j + dw]) over the padded row (j in
 * padded coordinates, positions outside the input holding the input zero
 * point, as the portable kernel's column buffer does), so that the taps
 * (kx, kx + 1) of output ox are one 32-byte load at j = ox * sw + kx * dw;
 * an odd last tap is paired with a zero weight. The pair rows of a block
 * live in a ring of as many rows as the window spans, so each input row is
 * widened once per block while the output rows walk down a band; the band
 * is as tall as keeps its input and output in L2 while the blocks walk
 * across it. Weights are packed once per model as the multiply-add's
 * operands: per block, per kernel row, per pair of taps, 8 int32 words of
 * (w[kx], w[kx + 1]).
 *
 * The requantisation is requant_one's single-precision sequence (kernels.c)
 * in vectors: multiply, clamp with max and min (which take the bound for a
 * NaN, as its comparisons do), add and subtract the rounding constant,
 * truncate; no FMA is enabled, so nothing is contracted. */

#include "kernels.h"

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
/* L2 bytes a band's input and output rows may take */
#define DW_BAND_BYTES (256 * 1024)
/* output pixels per step of the inner loop: accumulators in registers */
#define DW_PIXELS 4
/* see requant_one in kernels.c */
#define DW_RQ_MAGIC 12582912.0f
#define DW_I8_MIN (-128)
#define DW_I8_MAX 127

/* The shape's layout: blocks, pairs of taps per kernel row, the pair-row
 * elements a row of output needs, rows in the ring. */
typedef struct
{
  int blocks;
  int pairs;
  int nj;
  int span;
} DwLayout;

static void
dw_layout (const simnpu__conv_params * p, DwLayout * l)
{
  l->blocks = (p->oc + DW_LANES - 1) / DW_LANES;
  l->pairs = (p->kw + 1) / 2;
  l->nj = (p->ow - 1) * p->sw + (p->kw - 1) * p->dw + 1;
  l->span = (p->kh - 1) * p->dh + 1;
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
  if ((p->kh - 1) * p->dh + 1 > DW_MAX_SPAN)
    return false;
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
  /* the ring, the padding row, alignment */
  return ((size_t) l.span + 1) * dw_row_bytes (&l) + SIMNPU_KERNEL_ALIGN;
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
  __m256 scale, lo, hi;
  __m256i zp;
  const __m256i *w;             /* the block's packed weights */
  /* the ring: row slot s holds input row tag[s] */
  int8_t *ring;
  int tag[DW_MAX_SPAN];
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

/* The pair row of input row iy (inside the image) for the block. */
__attribute__((target ("avx2")))
     static void dw_build_row (const DwBlock * k, int iy, int8_t * dst)
{
  const simnpu__conv_params *p = k->p;
  const int8_t *src = k->in + (size_t) iy * p->iw * p->ic + k->c0;
  const __m128i zp = _mm_set1_epi8 ((char) p->in_zp);
  const size_t ic = (size_t) p->ic;
  const int nj = k->l.nj, pl = p->pl, dw = p->dw, iw = p->iw, nc = k->nc;
  /* j with both ix = j - pl and ix + dw inside [0, iw) */
  int jlo = MIN (MAX (pl, 0), nj);
  int jhi = MAX (MIN (iw - dw + pl, nj), jlo);
  int j;

  for (j = 0; j < jlo; j++) {
    int ix = j - pl, ix2 = ix + dw;
    __m128i a = ix >= 0 && ix < iw ? dw_load8 (src + ix * ic, nc) : zp;
    __m128i b = ix2 >= 0 && ix2 < iw ? dw_load8 (src + ix2 * ic, nc) : zp;
    dw_put_pair (dst + (size_t) j * DW_PAIR_BYTES, a, b);
  }
  if (nc == DW_LANES && jhi > jlo) {
    const int8_t *s = src + (size_t) (jlo - pl) * ic;
    const size_t off = (size_t) dw * ic;
    for (j = jlo; j < jhi; j++, s += ic) {
      __m128i a = _mm_loadl_epi64 ((const __m128i *) (const void *) s);
      __m128i b = _mm_loadl_epi64 ((const __m128i *) (const void *) (s + off));
      dw_put_pair (dst + (size_t) j * DW_PAIR_BYTES, a, b);
    }
  } else {
    for (j = jlo; j < jhi; j++) {
      int ix = j - pl;
      dw_put_pair (dst + (size_t) j * DW_PAIR_BYTES,
          dw_load8 (src + ix * ic, nc), dw_load8 (src + (ix + dw) * ic, nc));
    }
  }
  for (j = jhi; j < nj; j++) {
    int ix = j - pl, ix2 = ix + dw;
    __m128i a = ix >= 0 && ix < iw ? dw_load8 (src + ix * ic, nc) : zp;
    __m128i b = ix2 >= 0 && ix2 < iw ? dw_load8 (src + ix2 * ic, nc) : zp;
    dw_put_pair (dst + (size_t) j * DW_PAIR_BYTES, a, b);
  }
}

/* requant_one on 8 accumulators, stored as 8 int8 (fewer at the tail) */
__attribute__((target ("avx2")))
     static inline void dw_store (const DwBlock * k, __m256i acc, int8_t * dst)
{
  __m256 f = _mm256_mul_ps (_mm256_cvtepi32_ps (acc), k->scale);
  const __m256 magic = _mm256_set1_ps (DW_RQ_MAGIC);
  __m256i q;
  __m128i h;

  f = _mm256_min_ps (_mm256_max_ps (f, k->lo), k->hi);
  f = _mm256_sub_ps (_mm256_add_ps (f, magic), magic);
  q = _mm256_add_epi32 (_mm256_cvttps_epi32 (f), k->zp);
  /* in [act_min, act_max]: the saturating packs are exact */
  h = _mm_packs_epi32 (_mm256_castsi256_si128 (q),
      _mm256_extracti128_si256 (q, 1));
  h = _mm_packs_epi16 (h, h);
  if (k->nc == DW_LANES) {
    _mm_storel_epi64 ((__m128i *) (void *) dst, h);
  } else {
    int64_t v = _mm_cvtsi128_si64 (h);
    memcpy (dst, &v, (size_t) k->nc);
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
  const size_t step = (size_t) p->sw * DW_PAIR_BYTES;
  const size_t pair_step = (size_t) 2 * p->dw * DW_PAIR_BYTES;
  const size_t out_step = (size_t) p->oc;
  const int ow = p->ow;
  int ox = 0, ky, kp;

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
      }
    }
    dw_store (k, a0, dst);
    dw_store (k, a1, dst + out_step);
    dw_store (k, a2, dst + 2 * out_step);
    dw_store (k, a3, dst + 3 * out_step);
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

/* Output rows [oy0, oy1) of the block. */
__attribute__((target ("avx2")))
     static void dw_band (DwBlock * k, int oy0, int oy1, DwRowFunc row)
{
  const simnpu__conv_params *p = k->p;
  const size_t row_bytes = dw_row_bytes (&k->l);
  const int8_t *rows[DW_MAX_SPAN];
  int oy, ky;

  for (oy = oy0; oy < oy1; oy++) {
    for (ky = 0; ky < p->kh; ky++) {
      int iy = oy * p->sh - p->pt + ky * p->dh;
      int slot;
      if (iy < 0 || iy >= p->ih) {
        rows[ky] = k->padrow;
        continue;
      }
      slot = iy % k->l.span;
      if (k->tag[slot] != iy) {
        dw_build_row (k, iy, k->ring + (size_t) slot * row_bytes);
        k->tag[slot] = iy;
      }
      rows[ky] = k->ring + (size_t) slot *row_bytes;
    }
    row (k, rows, k->out + ((size_t) oy * p->ow) * p->oc + k->c0);
  }
}

__attribute__((target ("avx2")))
     static void dw_run_avx2 (const simnpu__conv_params * p,
    const int8_t * input, const void *packed, const int32_t * bias,
    const float *scales, int8_t * output, int8_t * scratch)
{
  DwBlock k;
  int8_t *base = (int8_t *) (((uintptr_t) scratch + SIMNPU_KERNEL_ALIGN - 1)
      & ~(uintptr_t) (SIMNPU_KERNEL_ALIGN - 1));
  size_t row_bytes, band_row;
  int band, b, n, oy0, s;
  DwRowFunc row = dw_row_any;
  int32_t bias8[DW_LANES];
  float scale8[DW_LANES];

  k.p = p;
  dw_layout (p, &k.l);
  row_bytes = dw_row_bytes (&k.l);
  k.ring = base;
  k.padrow = base + (size_t) k.l.span * row_bytes;
  {
    const __m256i zp2 = _mm256_set1_epi16 ((int16_t) p->in_zp);
    int8_t *pad = base + (size_t) k.l.span * row_bytes;
    int j;
    for (j = 0; j < k.l.nj; j++)
      _mm256_store_si256 ((__m256i *) (void *) (pad + (size_t) j *
              DW_PAIR_BYTES), zp2);
  }
  if (p->kh == 3 && p->kw == 3)
    row = dw_row_3x3;
  else if (p->kh == 5 && p->kw == 5)
    row = dw_row_5x5;
  k.lo = _mm256_set1_ps ((float) (p->act_min - p->out_zp));
  k.hi = _mm256_set1_ps ((float) (p->act_max - p->out_zp));
  k.zp = _mm256_set1_epi32 (p->out_zp);

  /* the band: output rows whose input and output rows fit in L2 */
  band_row = ((size_t) p->sh * p->iw + (size_t) p->ow) * (size_t) p->ic;
  band = (int) MIN ((size_t) p->oh, MAX ((size_t) 1, DW_BAND_BYTES /
          MAX (band_row, (size_t) 1)));

  for (n = 0; n < p->n; n++) {
    k.in = input + (size_t) n *p->ih * p->iw * p->ic;
    k.out = output + (size_t) n *p->oh * p->ow * p->oc;
    for (oy0 = 0; oy0 < p->oh; oy0 += band) {
      int oy1 = MIN (oy0 + band, p->oh);
      for (b = 0; b < k.l.blocks; b++) {
        int lane;
        k.c0 = b * DW_LANES;
        k.nc = MIN (DW_LANES, p->oc - k.c0);
        for (lane = 0; lane < DW_LANES; lane++) {
          bias8[lane] = lane < k.nc ? bias[k.c0 + lane] : 0;
          scale8[lane] = lane < k.nc ? scales[k.c0 + lane] : 0.0f;
        }
        k.bias = _mm256_loadu_si256 ((const __m256i *) (const void *) bias8);
        k.scale = _mm256_loadu_ps (scale8);
        k.w = (const __m256i *) packed + (size_t) b *p->kh * k.l.pairs;
        for (s = 0; s < k.l.span; s++)
          k.tag[s] = -1;
        dw_band (&k, oy0, oy1, row);
      }
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
