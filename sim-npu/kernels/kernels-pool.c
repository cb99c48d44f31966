/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The pooling int8 kernels: max and average pools (with a 2x2 stride-2
 * path and AVX2 forms picked at run time) and mean over height and width.
 * The arithmetic is defined in kernels-private.h. Built at -O3, like
 * every kernel file. */

#include "kernels-private.h"

#include <math.h>
#include <string.h>

/* the longest input row (bytes) of maxpool_rows' row buffer */
#define POOL_ROW_MAX 16384

/* channels of a generic avgpool's sums at a time */
#define POOL_CHUNK 256

/* the 2x2 pooling window */
#define POOL2_COUNT 4
#define POOL2_LOG2 2
#define POOL2_HALF 2

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
