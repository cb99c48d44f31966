/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A transposed convolution of stride s as ops the device runs, shared by
 * the ONNX and TF.js front-ends: the input padded, a stride-1 conv
 * producing s * s phases of every output channel, depth_to_space putting
 * each phase in its place, and a slice cropping to the output.
 *
 * Along one axis the transposed conv's full output is z[i * s + k] +=
 * x[i] w[k], and its output y[o] = z[o + crop]. Output t = s * q + r (its
 * phase r) sums x[q - j] w[r + s j] over j < J = ceil (k / s): a
 * correlation of x with the phase's taps reversed, which the conv's
 * output channel (r_h * s + r_w) * M + m computes for every q, in
 * depth_to_space's DCR order. Exact: the same products, no zeros
 * inserted. */

#include "compiler.h"

#include <string.h>

static int64_t
floor_div (int64_t a, int64_t b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

bool
simnpu__deconv_plan_make (simnpu__deconv_plan * p)
{
  int i;

  if (p->stride < 1)
    return false;
  for (i = 0; i < 2; i++) {
    int64_t q0, q1, before, after;
    if (p->in[i] < 1 || p->kernel[i] < 1 || p->out[i] < 1)
      return false;
    p->taps[i] = (p->kernel[i] + p->stride - 1) / p->stride;
    q0 = floor_div (p->crop[i], p->stride);
    q1 = floor_div (p->crop[i] + p->out[i] - 1, p->stride);
    before = p->taps[i] - 1 - q0;
    after = MAX (0, q1 - (p->in[i] - 1));
    if (before < 0 || before > G_MAXINT16 || after > G_MAXINT16)
      return false;
    p->pad_before[i] = (int32_t) before;
    p->pad_after[i] = (int32_t) after;
    p->conv_out[i] = p->in[i] + before + after - p->taps[i] + 1;
    p->slice_begin[i] = p->crop[i] - p->stride * q0;
  }
  return true;
}

bool
simnpu__deconv_needs_slice (const simnpu__deconv_plan * p)
{
  int i;

  for (i = 0; i < 2; i++)
    if (p->slice_begin[i] != 0 || p->conv_out[i] * p->stride != p->out[i])
      return true;
  return false;
}

void
simnpu__deconv_weights (const simnpu__deconv_plan * p, const float *w,
    const int64_t * w_strides, int64_t cin, int64_t cout, const float *bias,
    float *ohwi, float *out_bias)
{
  const int64_t s = p->stride, jh = p->taps[0], jw = p->taps[1];
  int64_t rh, rw, m, a, b, c;

  for (rh = 0; rh < s; rh++)
    for (rw = 0; rw < s; rw++)
      for (m = 0; m < cout; m++) {
        int64_t o = (rh * s + rw) * cout + m;
        for (a = 0; a < jh; a++)
          for (b = 0; b < jw; b++) {
            int64_t kh = rh + s * (jh - 1 - a), kw = rw + s * (jw - 1 - b);
            float *dst = ohwi + ((o * jh + a) * jw + b) * cin;
            for (c = 0; c < cin; c++)
              dst[c] = kh < p->kernel[0] && kw < p->kernel[1] ?
                  w[c * w_strides[SIMNPU_DECONV_W_IN] +
                  m * w_strides[SIMNPU_DECONV_W_OUT] +
                  kh * w_strides[SIMNPU_DECONV_W_H] +
                  kw * w_strides[SIMNPU_DECONV_W_W]] : 0.0f;
          }
        if (out_bias != NULL)
          out_bias[o] = bias != NULL ? bias[m] : 0.0f;
      }
}
