/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Dense and pointwise conv2d (groups == 1): the fast kernels behind the
 * seam in kernels-private.h, for AVX2.
 *
 * The conv is a matrix product: M output pixels by K = kh * kw * ic taps
 * by N = oc channels. Output channels run along the vector lanes, so that
 * the result is NHWC as it is and bias, scale and zero point are vector
 * loads. The weights are packed once into panels of 24 output channels
 * (16, 8 or 4 for the last ones), the taps in pairs as 16-bit values: the
 * 16-bit multiply-add (vpmaddwd) of a pair of sign-extended int8 taps is
 * exact for any values, so every weight, -128 included, is taken. (The
 * unsigned-by-signed byte multiply-add would need a second multiply-add to
 * widen its sums, on the same port: no faster on AVX2 machines, and exact
 * only without -128 weights.)
 *
 * The taps of a chunk of output pixels are first widened to 16 bits into
 * scratch: segments of input rows read in place (see DenseShape) or, for
 * dilated and short rows, im2row; padded taps read the input zero point,
 * as the column buffer of the portable kernel does, since the bias has
 * in_zp folded in. Then each panel runs over the chunk four pixels at a
 * time with the 4 x 24 int32 accumulators in registers (six pixels for
 * the narrower panels), broadcasting a pixel's tap pair against the
 * panel's: one broadcast per three multiply-adds, which matters when K is
 * small. The requantisation gives the bytes of the single-precision
 * sequence of kernels-private.h's requant_one, without FMA, in fewer operations
 * (see requant8): two pixels are packed to int8 together. */

#include "kernels-private.h"

#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute (target)
#define SIMNPU_DENSE_AVX2 1
#include <immintrin.h>
#endif
#endif

#ifdef SIMNPU_DENSE_AVX2

/* output channels of a full panel and of the narrower last ones; the
 * quarter panel runs on 128-bit vectors, half the work of a 256-bit one
 * on the machines that split those */
#define PANEL_WIDE 16
/* the usual panel: 24 channels (three vectors) on blocks of fewer
 * pixels broadcast each tap pair once for three multiply-adds, where
 * blocks of 16 channels do it once for two; the int32 products of the 16
 * x 2 taps and their adds are the same work on either */
#define PANEL_TRIPLE 24
#define TRIPLE_ROWS 4
/* the blocks of that many pixels run one pixel at a time */
#define TRIPLE_FEW_ROWS 2
#define PANEL_NARROW 8
#define PANEL_QUARTER 4
/* output pixels per block of the micro-kernel */
#define BLOCK_ROWS 6
/* output pixels per chunk are a multiple of both block sizes */
#define CHUNK_ALIGN 12
/* taps per 32-bit pair */
#define PAIR 2
/* target bytes of the 16-bit taps of one chunk of output pixels: half
 * of a 32 KiB L1, so that they stay there next to a panel of weights
 * while every panel runs over them */
#define CHUNK_BYTES (16 * 1024)
/* the narrowest output row run directly from widened input rows: below,
 * blocks of BLOCK_ROWS pixels would waste much of a short row, and im2row
 * over the flattened image is better */
#define DIRECT_MIN_OW 24
/* the fewest output channels taken, and for one input channel */
#define MIN_OC 2
/* at or below both, a conv is too thin for the panels: with a few taps
 * and a few channels the requantisation of padded panels dominates, and
 * the portable kernel (pixels along the lanes, zero taps skipped) is
 * faster (the ball detector's 1x1 4 -> 5 and 4 -> 4 on 160x160: about
 * 0.27 and 0.20 ms fast against 0.13 and 0.09 ms portable) */
#define THIN_MAX_TAPS 8
#define THIN_MAX_OC 8
#define MIN_OC_ONE_CHANNEL PANEL_NARROW
/* blocks with at most this many pixels run one pixel at a time */
#define FEW_ROWS 2
/* int8 values per 16-byte load widened to one 256-bit vector */
#define WIDEN_STEP 16
/* slack after a buffer of 16-bit taps for the widened stores that run
 * over its end */
#define ROW_SLACK (WIDEN_STEP * sizeof (int16_t))
/* rounding to nearest even, as requant_one in kernels-private.h */
#define RQ_MAGIC 12582912.0f

#define ALIGN_UP(n, a) (((n) + (a) - 1) / (a) * (a))

/* How a shape runs. Direct (dw == 1, wide enough rows): the kw * ic taps
 * of a window row are contiguous in the input, so each row of the window
 * is read in place from a widened, padded copy of a segment of an input
 * row, pixels sw * ic taps apart; each window row's taps are padded to an
 * even count (segment) with a zero weight, whose tap reads the next
 * value. Otherwise im2row: a chunk of pixels of the flattened output,
 * each a row of all K taps, padded to an even count. Either way the
 * micro-kernel sees n_seg segments of seg2 tap pairs. */
typedef struct
{
  bool direct;
  size_t k;                     /* taps */
  size_t n_seg;                 /* segments per pixel */
  size_t seg2;                  /* tap pairs per segment */
  size_t kp2;                   /* tap pairs per pixel (n_seg * seg2) */
  size_t ocp;                   /* output channels padded to PANEL_QUARTER */
  size_t chunk;                 /* output pixels per chunk (BLOCK_ROWS x) */
  size_t seg_len;               /* direct: int16 per widened segment */
} DenseShape;

static void
dense_shape (const simnpu__conv_params * p, DenseShape * s)
{
  const size_t ic = (size_t) p->ic;
  const bool pointwise_row = p->kh == 1 && p->kw == 1 && p->sw == 1
      && p->ih == 1 && p->oh == 1;
  size_t per_pixel;

  s->k = (size_t) p->kh * p->kw * ic;
  s->ocp = ALIGN_UP ((size_t) p->oc, PANEL_QUARTER);
  s->direct = p->dw == 1 && (p->ow >= DIRECT_MIN_OW || pointwise_row);
  if (s->direct) {
    s->n_seg = (size_t) p->kh;
    s->seg2 = ((size_t) p->kw * ic + PAIR - 1) / PAIR;
    /* the input taps a chunk's segments hold per output pixel */
    per_pixel = (size_t) p->kh * p->sw * ic * sizeof (int16_t);
    s->chunk = MIN ((size_t) p->ow, CHUNK_BYTES / MAX (per_pixel, 1));
  } else {
    s->n_seg = 1;
    s->seg2 = (s->k + PAIR - 1) / PAIR;
    per_pixel = s->seg2 * PAIR * sizeof (int16_t);
    s->chunk = MIN ((size_t) p->oh * p->ow, CHUNK_BYTES / per_pixel);
  }
  s->chunk = ALIGN_UP (MAX (s->chunk, 1), CHUNK_ALIGN);
  s->kp2 = s->n_seg * s->seg2;
  /* the pixels of a whole last block, each window row and the tap after
   * it */
  s->seg_len = ((s->chunk - 1) * p->sw + p->kw) * ic + PAIR;
}

/* the width of the panel of channels [o0, ocp) starts */
static size_t
panel_width (size_t o0, size_t ocp)
{
  size_t rest = ocp - o0;

  if (rest >= PANEL_TRIPLE)
    return PANEL_TRIPLE;
  return rest >= PANEL_WIDE ? PANEL_WIDE : rest >= PANEL_NARROW ?
      PANEL_NARROW : PANEL_QUARTER;
}

bool
simnpu__dense_shape_ok (const simnpu__conv_params * p)
{
  /* The thinnest convs stay with the portable kernel, which runs pixels
   * along the lanes (one output channel wastes 7 of 8 here), and for one
   * input channel reads its rows in place and skips zero taps. */
  const int min_oc = p->ic == 1 ? MIN_OC_ONE_CHANNEL : MIN_OC;

  const int taps = p->kh * p->kw * p->ic;

  return p->groups == 1 && p->oc >= min_oc
      && !(taps <= THIN_MAX_TAPS && p->oc <= THIN_MAX_OC)
      && p->kh <= SIMNPU_MAX_KERNEL_DIM;
}

static bool
dense_takes (const simnpu__conv_params * p)
{
  return simnpu__dense_shape_ok (p) && __builtin_cpu_supports ("avx2");
}

/* dst[0..n) = src[0..n) widened; vector loads only where 16 bytes are
 * inside [src, limit), so nothing is read past the input. May write up to
 * WIDEN_STEP - 1 values past dst + n. */
__attribute__((target ("avx2")))
     static inline void widen_run (int16_t * restrict dst,
    const int8_t * restrict src, size_t n, const int8_t * limit)
{
  size_t j = 0;

  for (; j + WIDEN_STEP <= n; j += WIDEN_STEP)
    _mm256_storeu_si256 ((__m256i *) (void *) (dst + j),
        _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *)
                (const void *) (src + j))));
  if (j < n && (size_t) (limit - (src + j)) >= WIDEN_STEP) {
    _mm256_storeu_si256 ((__m256i *) (void *) (dst + j),
        _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *)
                (const void *) (src + j))));
    return;
  }
  for (; j < n; j++)
    dst[j] = src[j];
}

static inline void
fill_i16 (int16_t * dst, int16_t v, size_t n)
{
  size_t j;

  for (j = 0; j < n; j++)
    dst[j] = v;
}

/* im2row of output pixels [m0, m0 + count) of one image: row i holds the
 * K taps of pixel m0 + i in the order of the weights ([ky][kx][c]), then a
 * zero to an even count. Padded taps read the input zero point. */
__attribute__((target ("avx2")))
     static void build_rows (const simnpu__conv_params * p,
    const DenseShape * s, const int8_t * in, const int8_t * in_end,
    size_t m0, size_t count, int16_t * rows)
{
  const size_t ic = (size_t) p->ic, run = (size_t) p->kw * ic;
  const size_t stride = s->seg2 * PAIR;
  const int16_t zp = (int16_t) p->in_zp;
  size_t i;
  int oy = (int) (m0 / (size_t) p->ow), ox = (int) (m0 % (size_t) p->ow);

  for (i = 0; i < count; i++) {
    int16_t *row = rows + i * stride;
    int ix0 = ox * p->sw - p->pl;
    bool inside = p->dw == 1 && ix0 >= 0 && ix0 + p->kw <= p->iw;
    int ky, kx;
    for (ky = 0; ky < p->kh; ky++) {
      int iy = oy * p->sh - p->pt + ky * p->dh;
      int16_t *dst = row + (size_t) ky * run;
      const int8_t *line;
      if (iy < 0 || iy >= p->ih) {
        fill_i16 (dst, zp, run);
        continue;
      }
      line = in + (size_t) iy *p->iw * ic;
      if (inside) {
        widen_run (dst, line + (size_t) ix0 * ic, run, in_end);
        continue;
      }
      for (kx = 0; kx < p->kw; kx++) {
        int ix = ix0 + kx * p->dw;
        if (ix < 0 || ix >= p->iw)
          fill_i16 (dst + kx * ic, zp, ic);
        else
          widen_run (dst + kx * ic, line + (size_t) ix * ic, ic, in_end);
      }
    }
    if (s->k % PAIR)
      row[s->k] = 0;
    if (++ox == p->ow) {
      ox = 0;
      oy++;
    }
  }
  /* the rest of the last block: any finite taps, their outputs are not
   * stored */
  memset (rows + count * stride, 0,
      (ALIGN_UP (count, CHUNK_ALIGN) - count) * stride * sizeof (int16_t));
}

/* Direct: the widened segment of input row iy for output pixels [x0, x0 +
 * s->chunk) of an output row, input columns from x0 * sw - pl, padded with
 * the input zero point (also rows outside the input). */
__attribute__((target ("avx2")))
     static void build_segment (const simnpu__conv_params * p,
    const DenseShape * s, const int8_t * in, const int8_t * in_end, int iy,
    size_t x0, int16_t * seg)
{
  const size_t ic = (size_t) p->ic;
  const int16_t zp = (int16_t) p->in_zp;
  const size_t n = s->seg_len;
  const int64_t ix0 = (int64_t) x0 * p->sw - p->pl;
  size_t a, b;

  if (iy < 0 || iy >= p->ih) {
    fill_i16 (seg, zp, n);
    return;
  }
  /* the segment's values [a, b) are inside the input row */
  a = ix0 < 0 ? MIN ((size_t) -ix0 * ic, n) : 0;
  b = ix0 >= p->iw ? a : MAX (a, MIN (n, (size_t) (p->iw - ix0) * ic));
  fill_i16 (seg, zp, a);
  if (b > a)
    widen_run (seg + a, in + ((size_t) iy * p->iw + (size_t) (ix0 +
                (int64_t) (a / ic))) * ic, b - a, in_end);
  fill_i16 (seg + b, zp, n - b);
}

/* requant_one of kernels-private.h on 8 lanes, to int32 before the output zero
 * point, in fewer operations: x clamped to [lo, hi] then rounded is x
 * rounded then clamped, as lo and hi are integers, so the clamp below lo
 * moves to the int8 values (see store_pair). min (hi, x) keeps a NaN x
 * and the conversion rounds to nearest even as the magic number does,
 * making a NaN or an x below -2^31 INT_MIN, which saturates to -128 and
 * then goes to act_min, as requant_one's NaN and large negative x do. */
__attribute__((target ("avx2")))
     static inline __m256i requant8 (__m256i acc, __m256 sc, __m256 hi)
{
  return _mm256_cvtps_epi32 (_mm256_min_ps (hi,
          _mm256_mul_ps (_mm256_cvtepi32_ps (acc), sc)));
}

typedef struct
{
  const int32_t *bias;          /* ocp, padded with zeros */
  const float *scale;           /* ocp, padded with zeros */
  float lo_f, hi_f;
  int32_t out_zp, act_min;
  int oc;
} DenseOut;

/* the tap pair at a (any alignment) in all lanes */
__attribute__((target ("avx2")))
     static inline __m256i pair_bcast (const int16_t * a)
{
  int32_t v;

  memcpy (&v, a, sizeof (v));
  return _mm256_set1_epi32 (v);
}

/* c += b * the pair vector at w (16-bit multiply-add) */
__attribute__((target ("avx2")))
     static inline __m256i mac (__m256i c, __m256i b, const int32_t * w)
{
  return _mm256_add_epi32 (c, _mm256_madd_epi16 (b,
          _mm256_load_si256 ((const __m256i *) (const void *) w)));
}

/* dword order of the packed bytes of two pixels (see store_pair) */
#define PAIR_ORDER 0, 4, 1, 5, 2, 6, 3, 7

/* Requantises two pixels' nv vectors of 8 channels (a0 a1, b0 b1) into
 * dst_a and, if two, dst_b (channels o0 on), packed together: the output
 * zero point is added to the int16 values (saturating: the clamp to
 * [lo, hi] is done but for lo), act_min taken on the int8 ones. The last
 * panel goes through a small buffer so that nothing is written past oc. */
__attribute__((target ("avx2")))
     static inline void store_pair (const DenseOut * d, int o0, int nv,
    __m256i a0, __m256i a1, __m256i b0, __m256i b1, __m256 s0, __m256 s1,
    int8_t * dst_a, int8_t * dst_b, bool two)
{
  const __m256 hi = _mm256_set1_ps (d->hi_f);
  const __m256i zp = _mm256_set1_epi16 ((int16_t) d->out_zp);
  const __m256i order = _mm256_setr_epi32 (PAIR_ORDER);
  __m256i x, y, v;
  __m128i va, vb;
  int8_t buf[2 * PANEL_WIDE];
  const size_t bytes = (size_t) nv * PANEL_NARROW;

  if (nv > 1) {
    x = _mm256_packs_epi32 (requant8 (a0, s0, hi), requant8 (a1, s1, hi));
    y = _mm256_packs_epi32 (requant8 (b0, s0, hi), requant8 (b1, s1, hi));
  } else {
    x = _mm256_packs_epi32 (requant8 (a0, s0, hi), requant8 (b0, s0, hi));
    y = x;
  }
  v = _mm256_packs_epi16 (_mm256_adds_epi16 (x, zp), _mm256_adds_epi16 (y, zp));
  v = _mm256_max_epi8 (_mm256_permutevar8x32_epi32 (v, order),
      _mm256_set1_epi8 ((int8_t) d->act_min));
  /* nv > 1: pixel a in the low half, b in the high one; nv == 1: a and b
   * in the two quarters of the low half */
  va = _mm256_castsi256_si128 (v);
  vb = nv > 1 ? _mm256_extracti128_si256 (v, 1) : _mm_unpackhi_epi64 (va, va);
  if (o0 + (int) bytes <= d->oc) {
    if (nv > 1) {
      _mm_storeu_si128 ((__m128i *) (void *) dst_a, va);
      if (two)
        _mm_storeu_si128 ((__m128i *) (void *) dst_b, vb);
    } else {
      _mm_storel_epi64 ((__m128i *) (void *) dst_a, va);
      if (two)
        _mm_storel_epi64 ((__m128i *) (void *) dst_b, vb);
    }
  } else {
    _mm_storeu_si128 ((__m128i *) (void *) buf, va);
    _mm_storeu_si128 ((__m128i *) (void *) (buf + PANEL_WIDE), vb);
    memcpy (dst_a, buf, (size_t) (d->oc - o0));
    if (two)
      memcpy (dst_b, buf + PANEL_WIDE, (size_t) (d->oc - o0));
  }
}

/* Pixels [0, valid) of a block of BLOCK_ROWS times one panel of nv
 * vectors of 8 channels (w: kp2 x nv x 8 pairs), requantised into out
 * (stride oc) from channel o0. Pixel r's taps are n_seg segments of seg2
 * pairs, segment j at seg[j] + r * lda. The six pixels' accumulators are
 * named variables so that they stay in registers. */
__attribute__((target ("avx2")))
     static inline __attribute__((always_inline))
     void micro_block (const int16_t * const *seg, size_t n_seg,
    size_t seg2, size_t lda, const int32_t * restrict w,
    const DenseOut * d, int o0, int8_t * restrict out, int valid, const int nv)
{
  const int32_t *b0 = d->bias + o0;
  const size_t step = (size_t) nv * PANEL_NARROW;
  __m256i c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  __m256 s0, s1;
  size_t j, k;

  c00 = _mm256_loadu_si256 ((const __m256i *) (const void *) b0);
  c01 = nv > 1 ? _mm256_loadu_si256 ((const __m256i *) (const void *)
      (b0 + PANEL_NARROW)) : _mm256_setzero_si256 ();
  c10 = c20 = c30 = c40 = c50 = c00;
  c11 = c21 = c31 = c41 = c51 = c01;
  for (j = 0; j < n_seg; j++) {
    const int16_t *a0 = seg[j], *a1 = a0 + lda, *a2 = a1 + lda;
    const int16_t *a3 = a2 + lda, *a4 = a3 + lda, *a5 = a4 + lda;
    for (k = 0; k < seg2; k++, w += step) {
      __m256i b;
#define MICRO_ROW(A, C0, C1) \
      b = pair_bcast (A + k * PAIR); \
      C0 = mac (C0, b, w); \
      if (nv > 1) \
        C1 = mac (C1, b, w + PANEL_NARROW);
      MICRO_ROW (a0, c00, c01);
      MICRO_ROW (a1, c10, c11);
      MICRO_ROW (a2, c20, c21);
      MICRO_ROW (a3, c30, c31);
      MICRO_ROW (a4, c40, c41);
      MICRO_ROW (a5, c50, c51);
#undef MICRO_ROW
    }
  }
  out += o0;
  s0 = _mm256_loadu_ps (d->scale + o0);
  s1 = nv > 1 ? _mm256_loadu_ps (d->scale + o0 + PANEL_NARROW) : s0;
  store_pair (d, o0, nv, c00, c01, c10, c11, s0, s1, out, out + d->oc,
      valid > 1);
  if (valid > 2)
    store_pair (d, o0, nv, c20, c21, c30, c31, s0, s1,
        out + 2 * (size_t) d->oc, out + 3 * (size_t) d->oc, valid > 3);
  if (valid > 4)
    store_pair (d, o0, nv, c40, c41, c50, c51, s0, s1,
        out + 4 * (size_t) d->oc, out + 5 * (size_t) d->oc, valid > 5);
}

__attribute__((target ("avx2"), noinline))
     static void micro_wide (const int16_t * const *seg, size_t n_seg,
    size_t seg2, size_t lda, const int32_t * w, const DenseOut * d, int o0,
    int8_t * out, int valid)
{
  micro_block (seg, n_seg, seg2, lda, w, d, o0, out, valid, 2);
}

__attribute__((target ("avx2"), noinline))
     static void micro_narrow (const int16_t * const *seg, size_t n_seg,
    size_t seg2, size_t lda, const int32_t * w, const DenseOut * d, int o0,
    int8_t * out, int valid)
{
  micro_block (seg, n_seg, seg2, lda, w, d, o0, out, valid, 1);
}

/* One pixel (taps: n_seg segments of seg2 pairs at seg[j]) times one
 * panel, for the last pixels of a short output and for 1 x 1 images: the
 * tap pairs alternate between two sets of accumulators, so that the adds
 * do not wait on each other. */
__attribute__((target ("avx2")))
     static inline __attribute__((always_inline))
     void micro_pixel (const int16_t * const *seg, size_t n_seg,
    size_t seg2, const int32_t * restrict w, const DenseOut * d, int o0,
    int8_t * restrict out, const int nv)
{
  const int32_t *b0 = d->bias + o0;
  const size_t step = (size_t) nv * PANEL_NARROW;
  __m256i c0, c1, c2, e0 = _mm256_setzero_si256 (), e1 = e0, e2 = e0;
  __m256 s0, s1, s2;
  size_t j, k;

  c0 = _mm256_loadu_si256 ((const __m256i *) (const void *) b0);
  c1 = nv > 1 ? _mm256_loadu_si256 ((const __m256i *) (const void *)
      (b0 + PANEL_NARROW)) : e0;
  c2 = nv > 2 ? _mm256_loadu_si256 ((const __m256i *) (const void *)
      (b0 + 2 * PANEL_NARROW)) : e0;
  for (j = 0; j < n_seg; j++) {
    const int16_t *a = seg[j];
    for (k = 0; k + 1 < seg2; k += 2, w += 2 * step) {
      __m256i b = pair_bcast (a + k * PAIR);
      __m256i b2 = pair_bcast (a + (k + 1) * PAIR);
      c0 = mac (c0, b, w);
      e0 = mac (e0, b2, w + step);
      if (nv > 1) {
        c1 = mac (c1, b, w + PANEL_NARROW);
        e1 = mac (e1, b2, w + step + PANEL_NARROW);
      }
      if (nv > 2) {
        c2 = mac (c2, b, w + 2 * PANEL_NARROW);
        e2 = mac (e2, b2, w + step + 2 * PANEL_NARROW);
      }
    }
    if (k < seg2) {
      __m256i b = pair_bcast (a + k * PAIR);
      c0 = mac (c0, b, w);
      if (nv > 1)
        c1 = mac (c1, b, w + PANEL_NARROW);
      if (nv > 2)
        c2 = mac (c2, b, w + 2 * PANEL_NARROW);
      w += step;
    }
  }
  c0 = _mm256_add_epi32 (c0, e0);
  c1 = _mm256_add_epi32 (c1, e1);
  c2 = _mm256_add_epi32 (c2, e2);
  s0 = _mm256_loadu_ps (d->scale + o0);
  s1 = nv > 1 ? _mm256_loadu_ps (d->scale + o0 + PANEL_NARROW) : s0;
  out += o0;
  if (nv > 2) {
    /* the first 16 channels are all inside oc (see panel_width) */
    s2 = _mm256_loadu_ps (d->scale + o0 + 2 * PANEL_NARROW);
    store_pair (d, o0, 2, c0, c1, c0, c1, s0, s1, out, out, false);
    store_pair (d, o0 + PANEL_WIDE, 1, c2, c2, c2, c2, s2, s2,
        out + PANEL_WIDE, out + PANEL_WIDE, false);
  } else
    store_pair (d, o0, nv, c0, c1, c0, c1, s0, s1, out, out, false);
}

__attribute__((target ("avx2"), noinline))
     static void pixel_triple (const int16_t * const *seg, size_t n_seg,
    size_t seg2, const int32_t * w, const DenseOut * d, int o0, int8_t * out)
{
  micro_pixel (seg, n_seg, seg2, w, d, o0, out, 3);
}

__attribute__((target ("avx2"), noinline))
     static void pixel_wide (const int16_t * const *seg, size_t n_seg,
    size_t seg2, const int32_t * w, const DenseOut * d, int o0, int8_t * out)
{
  micro_pixel (seg, n_seg, seg2, w, d, o0, out, 2);
}

__attribute__((target ("avx2"), noinline))
     static void pixel_narrow (const int16_t * const *seg, size_t n_seg,
    size_t seg2, const int32_t * w, const DenseOut * d, int o0, int8_t * out)
{
  micro_pixel (seg, n_seg, seg2, w, d, o0, out, 1);
}

/* The quarter panel (4 channels, 128-bit vectors) over a block of
 * BLOCK_ROWS pixels, as micro_block. */
__attribute__((target ("avx2"), noinline))
     static void micro_quarter (const int16_t * const *seg, size_t n_seg,
    size_t seg2, size_t lda, const int32_t * restrict w, const DenseOut * d,
    int o0, int8_t * restrict out, int valid)
{
  const __m128 lo = _mm_set1_ps (d->lo_f), hi = _mm_set1_ps (d->hi_f);
  const __m128 magic = _mm_set1_ps (RQ_MAGIC);
  const __m128i zp = _mm_set1_epi32 (d->out_zp);
  __m128i c[BLOCK_ROWS];
  __m128 sc;
  size_t j, k;
  int r;

  c[0] = _mm_loadu_si128 ((const __m128i *) (const void *) (d->bias + o0));
  for (r = 1; r < BLOCK_ROWS; r++)
    c[r] = c[0];
  for (j = 0; j < n_seg; j++) {
    const int16_t *a = seg[j];
    for (k = 0; k < seg2; k++, w += PANEL_QUARTER) {
      const __m128i wk = _mm_load_si128 ((const __m128i *) (const void *) w);
      for (r = 0; r < BLOCK_ROWS; r++) {
        int32_t v;
        memcpy (&v, a + r * lda + k * PAIR, sizeof (v));
        c[r] = _mm_add_epi32 (c[r], _mm_madd_epi16 (_mm_set1_epi32 (v), wk));
      }
    }
  }
  sc = _mm_loadu_ps (d->scale + o0);
  out += o0;
  for (r = 0; r < valid; r++) {
    /* requant8 on four lanes */
    __m128 f = _mm_mul_ps (_mm_cvtepi32_ps (c[r]), sc);
    __m128i q;
    int8_t v[PANEL_WIDE];
    f = _mm_min_ps (_mm_max_ps (f, lo), hi);
    f = _mm_sub_ps (_mm_add_ps (f, magic), magic);
    q = _mm_add_epi32 (_mm_cvttps_epi32 (f), zp);
    q = _mm_packs_epi16 (_mm_packs_epi32 (q, q), q);
    _mm_storeu_si128 ((__m128i *) (void *) v, q);
    memcpy (out + r * (size_t) d->oc, v, (size_t) MIN (PANEL_QUARTER,
            d->oc - o0));
  }
}

/* The triple panel (24 channels, w: kp2 x 24 pairs) over pixels [0,
 * valid) of a block of TRIPLE_ROWS, as micro_block; all the block's
 * pixels have finite taps (chunks are whole blocks), so even a block of
 * one pixel runs here. */
__attribute__((target ("avx2"), noinline))
     static void micro_triple (const int16_t * const *seg, size_t n_seg,
    size_t seg2, size_t lda, const int32_t * restrict w, const DenseOut * d,
    int o0, int8_t * restrict out, int valid)
{
  const int32_t *b0 = d->bias + o0;
  const size_t oc = (size_t) d->oc;
  __m256i c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
  __m256 s0, s1, s2;
  size_t j, k;

  c00 = _mm256_loadu_si256 ((const __m256i *) (const void *) b0);
  c01 = _mm256_loadu_si256 ((const __m256i *) (const void *)
      (b0 + PANEL_NARROW));
  c02 = _mm256_loadu_si256 ((const __m256i *) (const void *)
      (b0 + 2 * PANEL_NARROW));
  c10 = c20 = c30 = c00;
  c11 = c21 = c31 = c01;
  c12 = c22 = c32 = c02;
  for (j = 0; j < n_seg; j++) {
    const int16_t *a0 = seg[j], *a1 = a0 + lda, *a2 = a1 + lda;
    const int16_t *a3 = a2 + lda;
    for (k = 0; k < seg2; k++, w += PANEL_TRIPLE) {
      __m256i b;
#define TRIPLE_ROW(A, C0, C1, C2) \
      b = pair_bcast (A + k * PAIR); \
      C0 = mac (C0, b, w); \
      C1 = mac (C1, b, w + PANEL_NARROW); \
      C2 = mac (C2, b, w + 2 * PANEL_NARROW);
      TRIPLE_ROW (a0, c00, c01, c02);
      TRIPLE_ROW (a1, c10, c11, c12);
      TRIPLE_ROW (a2, c20, c21, c22);
      TRIPLE_ROW (a3, c30, c31, c32);
#undef TRIPLE_ROW
    }
  }
  out += o0;
  s0 = _mm256_loadu_ps (d->scale + o0);
  s1 = _mm256_loadu_ps (d->scale + o0 + PANEL_NARROW);
  s2 = _mm256_loadu_ps (d->scale + o0 + 2 * PANEL_NARROW);
  /* the first 16 channels are all inside oc (see panel_width) */
  store_pair (d, o0, 2, c00, c01, c10, c11, s0, s1, out, out + oc, valid > 1);
  store_pair (d, o0 + PANEL_WIDE, 1, c02, c02, c12, c12, s2, s2,
      out + PANEL_WIDE, out + oc + PANEL_WIDE, valid > 1);
  if (valid > 2) {
    store_pair (d, o0, 2, c20, c21, c30, c31, s0, s1, out + 2 * oc,
        out + 3 * oc, valid > 3);
    store_pair (d, o0 + PANEL_WIDE, 1, c22, c22, c32, c32, s2, s2,
        out + 2 * oc + PANEL_WIDE, out + 3 * oc + PANEL_WIDE, valid > 3);
  }
}

/* Every panel over count pixels (from out, stride oc) whose taps are the
 * segments seg (pixel r's at seg[j] + r * lda). */
static void
run_panels (const DenseShape * s, const DenseOut * d, const void *packed,
    const int16_t * const *seg, size_t lda, size_t count, int8_t * out)
{
  const int16_t *blk[SIMNPU_MAX_KERNEL_DIM];
  size_t o0, r0, j;

  for (o0 = 0; o0 < s->ocp;) {
    const size_t width = panel_width (o0, s->ocp);
    const bool wide = width == PANEL_WIDE;
    const int32_t *w = (const int32_t *) packed + o0 * s->kp2;
    if (width == PANEL_TRIPLE) {
      for (r0 = 0; r0 < count; r0 += TRIPLE_ROWS) {
        int8_t *dst = out + r0 * (size_t) d->oc;
        int valid = (int) MIN (TRIPLE_ROWS, count - r0);
        if (valid <= TRIPLE_FEW_ROWS) {
          int r;
          for (r = 0; r < valid; r++) {
            for (j = 0; j < s->n_seg; j++)
              blk[j] = seg[j] + (r0 + r) * lda;
            pixel_triple (blk, s->n_seg, s->seg2, w, d, (int) o0,
                dst + r * (size_t) d->oc);
          }
          continue;
        }
        for (j = 0; j < s->n_seg; j++)
          blk[j] = seg[j] + r0 * lda;
        micro_triple (blk, s->n_seg, s->seg2, lda, w, d, (int) o0, dst, valid);
      }
      o0 += width;
      continue;
    }
    for (r0 = 0; r0 < count; r0 += BLOCK_ROWS) {
      int8_t *dst = out + r0 * (size_t) d->oc;
      int valid = (int) MIN (BLOCK_ROWS, count - r0);
      if (width == PANEL_QUARTER) {
        for (j = 0; j < s->n_seg; j++)
          blk[j] = seg[j] + r0 * lda;
        micro_quarter (blk, s->n_seg, s->seg2, lda, w, d, (int) o0, dst, valid);
        continue;
      }
      if (valid <= FEW_ROWS) {
        int r;
        for (r = 0; r < valid; r++) {
          for (j = 0; j < s->n_seg; j++)
            blk[j] = seg[j] + (r0 + r) * lda;
          if (wide)
            pixel_wide (blk, s->n_seg, s->seg2, w, d, (int) o0,
                dst + r * (size_t) d->oc);
          else
            pixel_narrow (blk, s->n_seg, s->seg2, w, d, (int) o0,
                dst + r * (size_t) d->oc);
        }
        continue;
      }
      for (j = 0; j < s->n_seg; j++)
        blk[j] = seg[j] + r0 * lda;
      if (wide)
        micro_wide (blk, s->n_seg, s->seg2, lda, w, d, (int) o0, dst, valid);
      else
        micro_narrow (blk, s->n_seg, s->seg2, lda, w, d, (int) o0, dst, valid);
    }
    o0 += width;
  }
}

/* scratch: the taps of a chunk (im2row rows or kh widened segments, plus
 * slack), then bias and scales padded to ocp; aligned inside */
static size_t
dense_scratch_layout (const DenseShape * s, size_t *at_bias, size_t *at_scale)
{
  size_t taps = s->direct ? s->n_seg * ALIGN_UP (s->seg_len * sizeof
      (int16_t) + ROW_SLACK, SIMNPU_KERNEL_ALIGN) :
      s->chunk * s->seg2 * PAIR * sizeof (int16_t) + ROW_SLACK;

  *at_bias = ALIGN_UP (taps, SIMNPU_KERNEL_ALIGN);
  *at_scale = *at_bias + ALIGN_UP (s->ocp * sizeof (int32_t),
      SIMNPU_KERNEL_ALIGN);
  return *at_scale + s->ocp * sizeof (float) + SIMNPU_KERNEL_ALIGN;
}

static void
dense_run_avx2 (const simnpu__conv_params * p, const int8_t * input,
    const void *packed, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
  DenseShape s;
  DenseOut d;
  size_t at_bias, at_scale, m, m0, o;
  int8_t *base = (int8_t *) ALIGN_UP ((uintptr_t) scratch,
      SIMNPU_KERNEL_ALIGN);
  int16_t *taps = (int16_t *) (void *) base;
  int32_t *pbias;
  float *pscale;
  const size_t in_image = (size_t) p->ih * p->iw * p->ic;
  const size_t out_image = (size_t) p->oh * p->ow * p->oc;
  int b;

  dense_shape (p, &s);
  dense_scratch_layout (&s, &at_bias, &at_scale);
  pbias = (int32_t *) (void *) (base + at_bias);
  pscale = (float *) (void *) (base + at_scale);
  memcpy (pbias, bias, (size_t) p->oc * sizeof (int32_t));
  memcpy (pscale, scales, (size_t) p->oc * sizeof (float));
  for (o = (size_t) p->oc; o < s.ocp; o++) {
    pbias[o] = 0;
    pscale[o] = 0.0f;
  }
  d.bias = pbias;
  d.scale = pscale;
  d.out_zp = p->out_zp;
  d.act_min = p->act_min;
  d.lo_f = (float) (p->act_min - p->out_zp);
  d.hi_f = (float) (p->act_max - p->out_zp);
  d.oc = p->oc;
  m = (size_t) p->oh * p->ow;

  for (b = 0; b < p->n; b++) {
    const int8_t *in = input + (size_t) b * in_image;
    int8_t *out = output + (size_t) b * out_image;
    if (!s.direct) {
      for (m0 = 0; m0 < m; m0 += s.chunk) {
        size_t count = MIN (s.chunk, m - m0);
        const int16_t *seg[1] = { taps };
        build_rows (p, &s, in, in + in_image, m0, count, taps);
        run_panels (&s, &d, packed, seg, s.seg2 * PAIR, count,
            out + m0 * (size_t) p->oc);
      }
      continue;
    }
    {
      const size_t seg_stride = ALIGN_UP (s.seg_len * sizeof (int16_t) +
          ROW_SLACK, SIMNPU_KERNEL_ALIGN) / sizeof (int16_t);
      const int16_t *seg[SIMNPU_MAX_KERNEL_DIM];
      int oy, ky;
      size_t x0;
      for (oy = 0; oy < p->oh; oy++)
        for (x0 = 0; x0 < (size_t) p->ow; x0 += s.chunk) {
          size_t count = MIN (s.chunk, (size_t) p->ow - x0);
          for (ky = 0; ky < p->kh; ky++) {
            int16_t *sg = taps + (size_t) ky * seg_stride;
            build_segment (p, &s, in, in + in_image,
                oy * p->sh - p->pt + ky * p->dh, x0, sg);
            seg[ky] = sg;
          }
          run_panels (&s, &d, packed, seg, (size_t) p->sw * p->ic, count,
              out + ((size_t) oy * p->ow + x0) * p->oc);
        }
    }
  }
}
#endif /* SIMNPU_DENSE_AVX2 */

size_t
simnpu__dense_packed_bytes (const simnpu__conv_params * p)
{
#ifdef SIMNPU_DENSE_AVX2
  DenseShape s;

  if (!dense_takes (p))
    return 0;
  dense_shape (p, &s);
  return s.ocp * s.kp2 * sizeof (int32_t);
#else
  (void) p;
  return 0;
#endif
}

/* Panels of 16 channels (8 or 4 for the last ones, see panel_width): panel
 * o0 starts at pair o0 * kp2 and holds, per tap pair of each segment, each
 * channel's two taps as int16; missing channels and the taps after a
 * segment's end are zero. */
void
simnpu__dense_pack (const simnpu__conv_params * p, const int8_t * weights,
    void *packed)
{
#ifdef SIMNPU_DENSE_AVX2
  DenseShape s;
  int16_t *dst = packed;
  size_t o0, sg, k2, j, t, seg_taps;

  if (!dense_takes (p))
    return;
  dense_shape (p, &s);
  seg_taps = s.k / s.n_seg;
  for (o0 = 0; o0 < s.ocp;) {
    size_t width = panel_width (o0, s.ocp);
    for (sg = 0; sg < s.n_seg; sg++)
      for (k2 = 0; k2 < s.seg2; k2++)
        for (j = 0; j < width; j++)
          for (t = 0; t < PAIR; t++) {
            size_t o = o0 + j, k = k2 * PAIR + t;
            *dst++ = o < (size_t) p->oc && k < seg_taps ?
                weights[o * s.k + sg * seg_taps + k] : 0;
          }
    o0 += width;
  }
#else
  (void) p;
  (void) weights;
  (void) packed;
#endif
}

size_t
simnpu__dense_scratch_bytes (const simnpu__conv_params * p)
{
#ifdef SIMNPU_DENSE_AVX2
  DenseShape s;
  size_t at_bias, at_scale;

  if (!dense_takes (p))
    return 0;
  dense_shape (p, &s);
  return dense_scratch_layout (&s, &at_bias, &at_scale);
#else
  (void) p;
  return 0;
#endif
}

void
simnpu__dense_run (const simnpu__conv_params * p, const int8_t * input,
    const void *packed, const int32_t * bias, const float *scales,
    int8_t * output, int8_t * scratch)
{
#ifdef SIMNPU_DENSE_AVX2
  dense_run_avx2 (p, input, packed, bias, scales, output, scratch);
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
