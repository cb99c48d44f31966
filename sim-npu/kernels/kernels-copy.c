/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The int8 kernels that move or resample data: boxes of a tensor (concat,
 * split, slice), transpose, resize (nearest and bilinear) and pad, each
 * requantising when the quantisation changes. The arithmetic is defined
 * in kernels-private.h. Built at -O3, like every kernel file. */

#include "kernels-private.h"

#include <math.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* the widest output row of copy_runs' constant-stride cases */
#define RUNS_MAX_STRIDE 8

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

/* DCR moves runs of b * C' bytes (one output row's b pixels of a source
 * pixel); CRD gathers each output byte from its channel. */
void
simnpu__depth_to_space (const int64_t * din, const int8_t * in, int8_t * out,
    int b, int mode)
{
  const int64_t h = din[1], w = din[2], ic = din[3], oc = ic / b / b;
  const int64_t ow = w * b;
  int64_t n, y, x, i, j, c;

  for (n = 0; n < din[0]; n++)
    for (y = 0; y < h; y++)
      for (i = 0; i < b; i++) {
        int8_t *restrict orow = out + ((n * h + y) * b + i) * ow * oc;
        const int8_t *restrict irow = in + (n * h + y) * w * ic;
        for (x = 0; x < w; x++) {
          const int8_t *restrict s = irow + x * ic;
          int8_t *restrict o = orow + x * b * oc;
          if (mode == SIMNPU_D2S_DCR) {
            memcpy (o, s + i * b * oc, (size_t) (b * oc));
          } else {
            for (j = 0; j < b; j++)
              for (c = 0; c < oc; c++)
                o[j * oc + c] = s[c * b * b + i * b + j];
          }
        }
      }
}

void
simnpu__space_to_depth (const int64_t * din, const int8_t * in, int8_t * out,
    int b)
{
  const int64_t ic = din[3], oh = din[1] / b, ow = din[2] / b;
  const int64_t oc = ic * b * b;
  int64_t n, y, x, i;

  for (n = 0; n < din[0]; n++)
    for (y = 0; y < oh; y++)
      for (i = 0; i < b; i++) {
        const int8_t *restrict irow = in + ((n * oh + y) * b + i) * din[2] * ic;
        int8_t *restrict orow = out + (n * oh + y) * ow * oc;
        for (x = 0; x < ow; x++)
          memcpy (orow + x * oc + i * b * ic, irow + x * b * ic,
              (size_t) (b * ic));
      }
}

/* Rows of inner bytes are copied whole; along the last axis (inner 1)
 * the loop is a byte gather, which vectorises where the target has
 * gathers. */
void
simnpu__gather (const int8_t * in, int8_t * out, int64_t outer, int64_t len,
    int64_t inner, const int32_t * idx, int64_t n_idx)
{
  int64_t o, j;

  for (o = 0; o < outer; o++) {
    const int8_t *restrict s = in + o * len * inner;
    int8_t *restrict d = out + o * n_idx * inner;
    if (inner == 1)
      for (j = 0; j < n_idx; j++)
        d[j] = s[idx[j]];
    else
      for (j = 0; j < n_idx; j++)
        memcpy (d + j * inner, s + idx[j] * inner, (size_t) inner);
  }
}
