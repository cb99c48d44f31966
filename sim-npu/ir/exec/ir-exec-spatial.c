/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The NHWC window ops: max and average pooling, and resize (ONNX
 * Resize-13: nearest and linear, every coordinate transformation). */

#include "ir-exec-private.h"

/* the centre of a pixel (resize coordinates), and the fraction that
 * nearest rounding treats as a tie */
#define HALF 0.5

/* ------------------------------------------------------------------ */
/* Pooling, NHWC */

/* channels whose window sums one pass keeps (on the stack) */
#define POOL_ACC_CHANNELS 256

/* The window of output (y, x0): its rows and columns within the input
 * and the count average pooling divides by. */
static int64_t
pool_window (const simnpu__ir_attrs * at, int64_t h, int64_t w, int64_t y,
    int64_t x0, int64_t * iys, int64_t * ixs, int64_t * nys, int64_t * nxs)
{
  const int64_t hend = h + at->pads[2], wend = w + at->pads[3];
  int64_t ky, kx, padded_y = 0, padded_x = 0;

  *nys = *nxs = 0;
  for (ky = 0; ky < at->kernel[0]; ky++) {
    int64_t iy = y * at->stride[0] - at->pads[0] + ky * at->dilation[0];
    if (iy >= hend)
      break;
    /* inside the explicit padding (not beyond it, ceil_mode) */
    padded_y++;
    if (iy >= 0 && iy < h)
      iys[(*nys)++] = iy;
  }
  for (kx = 0; kx < at->kernel[1]; kx++) {
    int64_t ix = x0 * at->stride[1] - at->pads[1] + kx * at->dilation[1];
    if (ix >= wend)
      break;
    padded_x++;
    if (ix >= 0 && ix < w)
      ixs[(*nxs)++] = ix;
  }
  return at->count_include_pad ? padded_y * padded_x : *nys * *nxs;
}

IR_CLONES static void
pool_run (const float *in, int64_t h, int64_t w, int64_t c, float *out,
    int64_t oh, int64_t ow, const simnpu__ir_attrs * at, bool is_max)
{
  int64_t *iys = g_new (int64_t, at->kernel[0] + at->kernel[1]);
  int64_t *ixs = iys + at->kernel[0];
  int64_t y, x0, ch, c0, a, b, nys, nxs, div;

  for (y = 0; y < oh; y++) {
    for (x0 = 0; x0 < ow; x0++) {
      float *restrict o = out + (y * ow + x0) * c;
      div = pool_window (at, h, w, y, x0, iys, ixs, &nys, &nxs);
      if (is_max) {
        for (ch = 0; ch < c; ch++)
          o[ch] = -INFINITY;
        for (a = 0; a < nys; a++)
          for (b = 0; b < nxs; b++) {
            const float *restrict ip = in + (iys[a] * w + ixs[b]) * c;
            for (ch = 0; ch < c; ch++)
              o[ch] = ip[ch] > o[ch] ? ip[ch] : o[ch];
          }
        continue;
      }
      /* the window's sum in double: a float running sum over a large
       * window (a global average pool of 64x64) loses the low bits of
       * every addend once the sum is large, up to 1e-5 of the mean */
      for (c0 = 0; c0 < c; c0 += POOL_ACC_CHANNELS) {
        const int64_t cn = MIN (POOL_ACC_CHANNELS, c - c0);
        double acc[POOL_ACC_CHANNELS];
        for (ch = 0; ch < cn; ch++)
          acc[ch] = 0.0;
        for (a = 0; a < nys; a++)
          for (b = 0; b < nxs; b++) {
            const float *restrict ip = in + (iys[a] * w + ixs[b]) * c + c0;
            for (ch = 0; ch < cn; ch++)
              acc[ch] += ip[ch];
          }
        for (ch = 0; ch < cn; ch++)
          o[c0 + ch] = div > 0 ? (float) (acc[ch] / (double) div) : 0.0f;
      }
    }
  }
  g_free (iys);
}

/* max pooling of u8 and i8 */
static void
pool_max_int (const simnpu__ir_tensor * t, const void *in,
    const simnpu__ir_tensor * to, void *out, const simnpu__ir_attrs * at)
{
  const int64_t h = t->dims[1], w = t->dims[2], c = t->dims[3];
  const int64_t oh = to->dims[1], ow = to->dims[2];
  int64_t b, y, x0, ky, kx, ch;

  for (b = 0; b < t->dims[0]; b++)
    for (y = 0; y < oh; y++)
      for (x0 = 0; x0 < ow; x0++)
        for (ch = 0; ch < c; ch++) {
          int64_t best = G_MININT64;
          for (ky = 0; ky < at->kernel[0]; ky++) {
            int64_t iy = y * at->stride[0] - at->pads[0]
                + ky * at->dilation[0];
            if (iy < 0 || iy >= h)
              continue;
            for (kx = 0; kx < at->kernel[1]; kx++) {
              int64_t ix = x0 * at->stride[1] - at->pads[1]
                  + kx * at->dilation[1];
              if (ix >= 0 && ix < w)
                best = MAX (best, load_int (t->dtype, in,
                        ((b * h + iy) * w + ix) * c + ch));
            }
          }
          store_int (t->dtype, out, ((b * oh + y) * ow + x0) * c + ch,
              best == G_MININT64 ? 0 : best);
        }
}

int
simnpu__ir_run_pool (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const float *in = din (x, n, 0);
  float *o = dout (x, n, 0);
  int64_t b;

  if (t->dtype != SIMNPU_IR_F32) {
    pool_max_int (t, in, to, o, &n->attrs);
    return 0;
  }
  for (b = 0; b < t->dims[0]; b++)
    pool_run (in + b * t->dims[1] * t->dims[2] * t->dims[3], t->dims[1],
        t->dims[2], t->dims[3], o + b * to->dims[1] * to->dims[2] *
        to->dims[3], to->dims[1], to->dims[2], &n->attrs,
        n->op == SIMNPU_IR_MAXPOOL);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Resize, NHWC */

/* ONNX Resize-13 coordinate transformation: the source coordinate of
 * output coordinate o */
static double
resize_coord (int coord, int64_t o, int64_t in_len, int64_t out_len,
    float given_scale)
{
  /* a model's explicit scale (output / input) maps coordinates rather
   * than the ratio of the rounded sizes */
  double scale = given_scale > 0 ? (double) given_scale
      : (double) out_len / (double) in_len;
  /* ONNX's reference takes the resized length unrounded when given a
   * scale */
  double len = given_scale > 0 ? (double) in_len * scale : (double) out_len;

  switch (coord) {
    case SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL:
      return len > 1 ? ((double) o + HALF) / scale - HALF : 0.0;
    case SIMNPU_IR_COORD_ALIGN_CORNERS:
      return len == 1 ? 0.0 : (double) o *(double) (in_len - 1) / (len - 1);
    case SIMNPU_IR_COORD_ASYMMETRIC:
      return (double) o / scale;
    case SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN:
      return ((double) o + HALF) / scale;
    default:
      return ((double) o + HALF) / scale - HALF;
  }
}

static int64_t
resize_nearest (int mode, double v, int64_t in_len)
{
  double fl;
  int64_t i;

  /* far outside (or NaN, from a degenerate scale) clamps like the edge */
  if (!(v >= 0))
    v = 0;
  if (v > (double) in_len)
    v = (double) in_len;
  fl = floor (v);
  switch (mode) {
    case SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL:
      i = (int64_t) (v - fl == HALF ? fl + 1 : floor (v + HALF));
      break;
    case SIMNPU_IR_NEAREST_FLOOR:
      i = (int64_t) fl;
      break;
    case SIMNPU_IR_NEAREST_CEIL:
      i = (int64_t) ceil (v);
      break;
    default:
      i = (int64_t) (v - fl == HALF ? fl : floor (v + HALF));
      break;
  }
  return CLAMP (i, 0, in_len - 1);
}

/* the two taps and the weight of the second along one axis; the source
 * coordinate clamps to the edge as ONNX's linear mode does */
static void
resize_linear (double v, int64_t in_len, int64_t * i0, int64_t * i1,
    float *frac)
{
  double fl;

  if (!(v >= 0))
    v = 0;
  if (v > (double) (in_len - 1))
    v = (double) (in_len - 1);
  fl = floor (v);
  *i0 = (int64_t) fl;
  *i1 = MIN (*i0 + 1, in_len - 1);
  *frac = (float) (v - fl);
}

IR_CLONES static void
resize_run (const float *in, int64_t h, int64_t w, int64_t c, float *out,
    int64_t oh, int64_t ow, const simnpu__ir_attrs * at)
{
  /* f[1], f[2]: the model's height and width scales, 0 when it gave
   * sizes */
  const bool scales = at->f[1] > 0 && at->f[2] > 0;
  int64_t y, x0, ch;
  /* linear: the taps and fraction of each output column, the same on
   * every row */
  int64_t *xa = NULL, *xb = NULL;
  float *fx = NULL;

  if (at->mode != SIMNPU_IR_RESIZE_NEAREST) {
    xa = g_new (int64_t, 2 * ow);
    xb = xa + ow;
    fx = g_new (float, ow);
    for (x0 = 0; x0 < ow; x0++)
      resize_linear (resize_coord (at->coord, x0, w, ow,
              scales ? at->f[2] : 0), w, &xa[x0], &xb[x0], &fx[x0]);
  }
  for (y = 0; y < oh; y++) {
    double sy = resize_coord (at->coord, y, h, oh, scales ? at->f[1] : 0);
    if (at->mode == SIMNPU_IR_RESIZE_NEAREST) {
      int64_t iy = resize_nearest (at->nearest, sy, h);
      for (x0 = 0; x0 < ow; x0++) {
        double sx = resize_coord (at->coord, x0, w, ow,
            scales ? at->f[2] : 0);
        int64_t ix = resize_nearest (at->nearest, sx, w);
        memcpy (out + (y * ow + x0) * c, in + (iy * w + ix) * c,
            (size_t) c * sizeof (float));
      }
    } else {
      int64_t y0, y1;
      float fy;
      const float *r0, *r1;
      resize_linear (sy, h, &y0, &y1, &fy);
      r0 = in + y0 * w * c;
      r1 = in + y1 * w * c;
      for (x0 = 0; x0 < ow; x0++) {
        const float *p00 = r0 + xa[x0] * c, *p01 = r0 + xb[x0] * c;
        const float *p10 = r1 + xa[x0] * c, *p11 = r1 + xb[x0] * c;
        const float f = fx[x0];
        float *restrict o = out + (y * ow + x0) * c;
        /* TensorFlow's lerp form, top + (bottom - top) * fraction, in
         * float as its kernels (and TF.js's wasm backend) compute it,
         * rather than the weighted sum a * (1 - f) + b * f: the same
         * value in exact arithmetic, but it rounds differently (0.1,
         * 1.8 at 0.75 gives 1.375 as TF does, the weighted sum
         * 1.3749999) */
        for (ch = 0; ch < c; ch++) {
          float top = p00[ch] + (p01[ch] - p00[ch]) * f;
          float bot = p10[ch] + (p11[ch] - p10[ch]) * f;
          o[ch] = top + (bot - top) * fy;
        }
      }
    }
  }
  g_free (xa);
  g_free (fx);
}

int
simnpu__ir_run_resize (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const float *in = din (x, n, 0);
  float *o = dout (x, n, 0);
  int64_t b;

  for (b = 0; b < t->dims[0]; b++)
    resize_run (in + b * t->dims[1] * t->dims[2] * t->dims[3], t->dims[1],
        t->dims[2], t->dims[3], o + b * to->dims[1] * to->dims[2] *
        to->dims[3], to->dims[1], to->dims[2], &n->attrs);
  return 0;
}
