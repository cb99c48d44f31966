/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The imports of ONNX's spatial ops, which run on NHWC (see
 * simnpu__onnx_emit_nhwc()), 1-D ones as 2-D of height 1: Conv,
 * ConvTranspose, the pools, DepthToSpace / SpaceToDepth, Resize and
 * Upsample. */

#include "onnx-private.h"

#define ONNX_DEFAULT_CUBIC_A -0.75f
/* Resize's definitions that its import reads: scales only (10), roi,
 * sizes and the coordinate modes (11), axes, antialias and the aspect
 * ratio policy (18), half_pixel_symmetric (19) */
#define ONNX_RESIZE_ROI_OPSET 11
#define ONNX_RESIZE_AXES_OPSET 18
#define ONNX_RESIZE_SYMMETRIC_OPSET 19
#define ONNX_UPSAMPLE_SCALES_INPUT_OPSET 9
#define ONNX_SPATIAL_DIMS 2

/* 1-D spatial ops run as 2-D ones of height 1: [N, C, L] as [N, C, 1, L] */
static int
onnx_unsqueeze_h (onnx_ctx * c, int x, int *y)
{
  int64_t d[ONNX_CONV_RANK];
  const simnpu__ir_tensor *t = T (c, x);

  d[0] = t->dims[0];
  d[1] = t->dims[1];
  d[2] = 1;
  d[3] = t->dims[2];
  *y = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit_reshape (c, x, *y, d, ONNX_CONV_RANK);
}

/* runs a 2-D op on a 1-D (rank 3) or 2-D input, into output 0 */
static int
onnx_emit_spatial (onnx_ctx * c, simnpu__ir_op op, int *ins, unsigned n_in,
    const simnpu__ir_attrs * a, bool one_d)
{
  int64_t d[ONNX_CONV_RANK - 1];
  int y, out, ret;

  if (!one_d)
    return simnpu__onnx_emit_nhwc (c, op, ins, n_in, a);
  y = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_nhwc_to (c, op, ins, n_in, a, y)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  d[0] = T (c, y)->dims[0];
  d[1] = T (c, y)->dims[1];
  d[2] = T (c, y)->dims[3];
  return simnpu__onnx_emit_reshape (c, y, out, d, ONNX_CONV_RANK - 1);
}

/* kernel, strides, dilations, pads (with auto_pad resolved) of conv and
 * pools on a rank-4 NCHW input; a 1-D op's (one_d: the input has been
 * given a height of 1) attributes go to the width */
static int
onnx_spatial_attrs (onnx_ctx * c, int x, const int64_t * kernel, bool one_d,
    simnpu__ir_attrs * a)
{
  int64_t v[2 * ONNX_SPATIAL_DIMS];
  char buf[ONNX_STR_SIZE];
  const char *auto_pad;
  int nsp = one_d ? 1 : ONNX_SPATIAL_DIMS, off = ONNX_SPATIAL_DIMS - nsp;
  int n, ret, i;

  if (T (c, x)->rank != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only 1-D and 2-D (rank-3 and rank-4 NCHW) are "
        "supported", T (c, x)->rank);
  for (i = 0; i < nsp; i++) {
    if (kernel[i] < 1 || kernel[i] > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "kernel size %" G_GINT64_FORMAT, kernel[i]);
    a->kernel[off + i] = (int32_t) kernel[i];
  }
  if ((ret = simnpu__onnx_attr_ints (c, "strides", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++) {
    if (v[i] < 1 || v[i] > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "stride %" G_GINT64_FORMAT,
          v[i]);
    a->stride[off + i] = (int32_t) v[i];
  }
  if ((ret = simnpu__onnx_attr_ints (c, "dilations", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++) {
    if (v[i] < 1 || v[i] > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "dilation %" G_GINT64_FORMAT,
          v[i]);
    a->dilation[off + i] = (int32_t) v[i];
  }
  auto_pad = simnpu__onnx_attr_str (c, "auto_pad", "NOTSET", buf, sizeof buf);
  if (strcmp (auto_pad, "NOTSET") == 0) {
    if ((ret = simnpu__onnx_attr_ints (c, "pads", v, 2 * nsp, &n)) < 0)
      return ret;
    if (n > 0 && n != 2 * nsp)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%d pads (expected %d)", n,
          2 * nsp);
    for (i = 0; i < n; i++) {
      if (v[i] < 0 || v[i] > G_MAXINT32)
        return simnpu__onnx_err (c, SIMNPU_EFORMAT, "pad %" G_GINT64_FORMAT,
            v[i]);
      /* ONNX: begins then ends (h, w), as the IR's top, left, bottom,
       * right */
      a->pads[(i / nsp) * ONNX_SPATIAL_DIMS + off + i % nsp] = (int32_t) v[i];
    }
  } else if (strcmp (auto_pad, "SAME_UPPER") == 0
      || strcmp (auto_pad, "SAME_LOWER") == 0) {
    bool lower = strcmp (auto_pad, "SAME_LOWER") == 0;
    for (i = off; i < ONNX_SPATIAL_DIMS; i++) {
      int64_t in = T (c, x)->dims[2 + i];
      int64_t out = (in + a->stride[i] - 1) / a->stride[i];
      int64_t k = (int64_t) (a->kernel[i] - 1) * a->dilation[i] + 1;
      int64_t total = MAX (0, (out - 1) * a->stride[i] + k - in);
      int64_t small = total / 2;
      a->pads[i] = (int32_t) (lower ? total - small : small);
      a->pads[i + 2] = (int32_t) (lower ? small : total - small);
    }
  } else if (strcmp (auto_pad, "VALID") != 0) {
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "auto_pad '%s' is not one of "
        "NOTSET, SAME_UPPER, SAME_LOWER, VALID", auto_pad);
  }
  return 0;
}

int
simnpu__onnx_imp_conv (onnx_ctx * c, const onnx_op * op)
{
  static const int64_t oihw_to_ohwi[] = { 0, 2, 3, 1 };
  simnpu__ir_attrs a;
  int ins[3], wt, ret;
  int64_t k[2];
  bool one_d;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &ins[2])) < 0)
    return ret;
  one_d = T (c, ins[1])->rank == ONNX_CONV_RANK - 1
      && T (c, ins[0])->rank == ONNX_CONV_RANK - 1;
  if (T (c, ins[1])->rank != ONNX_CONV_RANK && !one_d)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "weights of rank %u: only 1-D and 2-D convolutions are supported",
        T (c, ins[1])->rank);
  if (one_d && ((ret = onnx_unsqueeze_h (c, ins[0], &ins[0])) < 0
          || (ret = onnx_unsqueeze_h (c, ins[1], &ins[1])) < 0))
    return ret;
  simnpu__onnx_attrs_init (&a);
  k[0] = T (c, ins[1])->dims[one_d ? 3 : 2];
  k[1] = T (c, ins[1])->dims[3];
  if ((ret = onnx_spatial_attrs (c, ins[0], k, one_d, &a)) < 0)
    return ret;
  {
    /* checked before the cast: 2^32 + 1 would wrap to 1 */
    int64_t groups = simnpu__onnx_attr_int (c, "group", 1);
    if (groups < 1 || groups > G_MAXINT32)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "group %" G_GINT64_FORMAT
          "; expected 1 to %d", groups, G_MAXINT32);
    a.groups = (int32_t) groups;
  }
  wt = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_transpose (c, ins[1], wt, oihw_to_ohwi, 4)) < 0)
    return ret;
  ins[1] = wt;
  return onnx_emit_spatial (c, SIMNPU_IR_CONV2D, ins,
      ins[2] == SIMNPU_IR_NONE ? 2 : 3, &a, one_d);
}

/* ConvTranspose of constant weights, one group, no dilation and one stride
 * for both axes as simnpu__deconv_plan says (the device runs it, and no
 * zeros are multiplied): 1 when the plan does not apply, else 0 or the
 * error. xd, wd: the NCHW input's and the [C, M, kh, kw] weights' dims. */
static int
onnx_deconv_phases (onnx_ctx * c, int x, int w, int b, int64_t s,
    const int64_t * k, const int64_t * pb, const int64_t * pe,
    const int64_t * opad, const int64_t * xd, const int64_t * wd)
{
  simnpu__deconv_plan p = { 0 };
  int64_t wst[SIMNPU_DECONV_W_N_STRIDES], dims[ONNX_CONV_RANK], bd[1];
  const float *bias = b != SIMNPU_IR_NONE ? T (c, b)->data : NULL;
  float *ow, *ob;
  simnpu__ir_attrs a;
  int ins[3], t, y, out, ret, i;
  bool slice;

  if (!T (c, w)->is_const || T (c, w)->dtype != SIMNPU_IR_F32
      || (b != SIMNPU_IR_NONE && (!T (c, b)->is_const
              || T (c, b)->dtype != SIMNPU_IR_F32
              || simnpu__ir_tensor_elements (T (c, b)) != wd[1])))
    return 1;
  p.stride = s;
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
    p.in[i] = xd[2 + i];
    p.kernel[i] = k[i];
    p.crop[i] = pb[i];
    p.out[i] = s * (xd[2 + i] - 1) + opad[i] + k[i] - pb[i] - pe[i];
  }
  if (!simnpu__deconv_plan_make (&p))
    return 1;
  wst[SIMNPU_DECONV_W_IN] = wd[1] * k[0] * k[1];
  wst[SIMNPU_DECONV_W_OUT] = k[0] * k[1];
  wst[SIMNPU_DECONV_W_H] = k[1];
  wst[SIMNPU_DECONV_W_W] = 1;
  dims[0] = s * s * wd[1];
  dims[1] = p.taps[0];
  dims[2] = p.taps[1];
  dims[3] = wd[0];
  ow = g_new (float, dims[0] * dims[1] * dims[2] * dims[3]);
  ob = g_new (float, dims[0]);
  simnpu__deconv_weights (&p, T (c, w)->data, wst, wd[0], wd[1], bias, ow, ob);
  bd[0] = dims[0];
  ins[1] = simnpu__onnx_add_const (c, SIMNPU_IR_F32, ONNX_CONV_RANK, dims, ow);
  ins[2] = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 1, bd, ob);
  g_free (ow);
  g_free (ob);
  if (ins[1] < 0 || ins[2] < 0)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "too many tensors");
  t = x;
  if (p.pad_before[0] || p.pad_before[1] || p.pad_after[0]
      || p.pad_after[1]) {
    y = simnpu__onnx_tmp (c);
    simnpu__onnx_attrs_init (&a);
    for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
      a.ints[2 + i] = p.pad_before[i];
      a.ints[ONNX_CONV_RANK + 2 + i] = p.pad_after[i];
    }
    a.n_ints = 2 * ONNX_CONV_RANK;
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_PAD, &t, 1, &y, 1, &a)) < 0)
      return ret;
    t = y;
  }
  slice = simnpu__deconv_needs_slice (&p);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  a.kernel[0] = (int32_t) p.taps[0];
  a.kernel[1] = (int32_t) p.taps[1];
  ins[0] = t;
  y = s == 1 && !slice ? out : simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_nhwc_to (c, SIMNPU_IR_CONV2D, ins, 3, &a,
              y)) < 0)
    return ret;
  t = y;
  if (s > 1) {
    y = slice ? simnpu__onnx_tmp (c) : out;
    simnpu__onnx_attrs_init (&a);
    a.ints[0] = s;
    a.n_ints = 1;
    if ((ret = simnpu__onnx_emit_nhwc_to (c, SIMNPU_IR_DEPTH_TO_SPACE, &t, 1,
                &a, y)) < 0)
      return ret;
    t = y;
  }
  if (slice) {
    simnpu__onnx_attrs_init (&a);
    a.ints[0] = 0;
    a.ints[1] = 0;
    a.ints[ONNX_CONV_RANK] = xd[0];
    a.ints[ONNX_CONV_RANK + 1] = wd[1];
    for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
      a.ints[2 + i] = p.slice_begin[i];
      a.ints[ONNX_CONV_RANK + 2 + i] = p.slice_begin[i] + p.out[i];
    }
    for (i = 0; i < ONNX_CONV_RANK; i++)
      a.steps[i] = 1;
    a.n_ints = 2 * ONNX_CONV_RANK;
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_SLICE, &t, 1, &out, 1, &a)) < 0)
      return ret;
  }
  return 0;
}

/* ConvTranspose as a convolution: the input with stride - 1 zeros between
 * its pixels, padded by (k - 1) * dilation less the pads, convolved at
 * stride 1 with the kernel flipped and its in/out channels swapped */
int
simnpu__onnx_imp_conv_transpose (onnx_ctx * c, const onnx_op * op)
{
  int64_t v[2 * ONNX_SPATIAL_DIMS], k[ONNX_SPATIAL_DIMS];
  int64_t s[ONNX_SPATIAL_DIMS] = { 1, 1 }, d[ONNX_SPATIAL_DIMS] = { 1, 1 };
  int64_t pb[ONNX_SPATIAL_DIMS] = { 0, 0 }, pe[ONNX_SPATIAL_DIMS] = { 0, 0 };
  int64_t opad[ONNX_SPATIAL_DIMS] = { 0, 0 }, in[ONNX_SPATIAL_DIMS];
  int64_t xd[ONNX_CONV_RANK], wd[ONNX_CONV_RANK], dims[2 * ONNX_CONV_RANK];
  char buf[ONNX_STR_SIZE];
  const char *auto_pad;
  simnpu__ir_attrs a;
  int ins[3], x, w, ret, n, i, nsp, off, os_n;
  int64_t os[ONNX_SPATIAL_DIMS], g;
  bool one_d;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &ins[2])) < 0)
    return ret;
  one_d = T (c, ins[0])->rank == ONNX_CONV_RANK - 1
      && T (c, ins[1])->rank == ONNX_CONV_RANK - 1;
  if (!one_d && (T (c, ins[0])->rank != ONNX_CONV_RANK
          || T (c, ins[1])->rank != ONNX_CONV_RANK))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only 1-D and 2-D transposed convolutions are "
        "supported", T (c, ins[0])->rank);
  x = ins[0];
  w = ins[1];
  if (one_d && ((ret = onnx_unsqueeze_h (c, x, &x)) < 0
          || (ret = onnx_unsqueeze_h (c, w, &w)) < 0))
    return ret;
  nsp = one_d ? 1 : ONNX_SPATIAL_DIMS;
  off = ONNX_SPATIAL_DIMS - nsp;
  memcpy (xd, T (c, x)->dims, sizeof xd);
  memcpy (wd, T (c, w)->dims, sizeof wd);
  g = simnpu__onnx_attr_int (c, "group", 1);
  if (g < 1 || xd[1] != wd[0] || wd[0] % g != 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "weights [%" G_GINT64_FORMAT ", ...] " "for %" G_GINT64_FORMAT
        " input channels in %" G_GINT64_FORMAT " groups", wd[0], xd[1], g);
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
    k[i] = wd[2 + i];
    in[i] = xd[2 + i];
  }
  if ((ret = simnpu__onnx_attr_ints (c, "strides", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    s[off + i] = v[i];
  if ((ret = simnpu__onnx_attr_ints (c, "dilations", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    d[off + i] = v[i];
  if ((ret = simnpu__onnx_attr_ints (c, "output_padding", v, nsp, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    opad[off + i] = v[i];
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++)
    if (s[i] < 1 || s[i] > G_MAXINT32 || d[i] < 1 || d[i] > G_MAXINT32
        || opad[i] < 0 || opad[i] >= MAX (s[i], d[i]))
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "strides, dilations or "
          "output_padding out of range");
  if ((ret =
          simnpu__onnx_attr_ints (c, "output_shape", v, 2 * ONNX_SPATIAL_DIMS,
              &os_n)) < 0)
    return ret;
  if (os_n >= nsp)
    for (i = 0; i < nsp; i++)
      os[off + i] = v[os_n - nsp + i];
  auto_pad = simnpu__onnx_attr_str (c, "auto_pad", "NOTSET", buf, sizeof buf);
  if (os_n >= nsp || strcmp (auto_pad, "SAME_UPPER") == 0
      || strcmp (auto_pad, "SAME_LOWER") == 0) {
    bool upper = strcmp (auto_pad, "SAME_UPPER") == 0;
    for (i = off; i < ONNX_SPATIAL_DIMS; i++) {
      int64_t out = os_n >= nsp ? os[i] : in[i] * s[i];
      int64_t total = s[i] * (in[i] - 1) + opad[i] + (k[i] - 1) * d[i] + 1
          - out;
      /* floor division, as ONNX's reference: a negative total (an output
       * larger than the stride gives) pads the end */
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      pb[i] = upper ? half : total - half;
      pe[i] = upper ? total - half : half;
    }
  } else if (strcmp (auto_pad, "NOTSET") == 0) {
    if ((ret = simnpu__onnx_attr_ints (c, "pads", v, 2 * nsp, &n)) < 0)
      return ret;
    if (n > 0 && n != 2 * nsp)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%d pads (expected %d)", n,
          2 * nsp);
    for (i = 0; i < n; i++)
      (i < nsp ? pb : pe)[off + i % nsp] = v[i];
  } else if (strcmp (auto_pad, "VALID") != 0) {
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "auto_pad '%s'", auto_pad);
  }
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++)
    if (pb[i] < -G_MAXINT32 || pe[i] < -G_MAXINT32 || pb[i] > G_MAXINT32
        || pe[i] > G_MAXINT32 || k[i] > G_MAXINT32
        || in[i] * s[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "pads or sizes out of range");

  if (!one_d && g == 1 && d[0] == 1 && d[1] == 1 && s[0] == s[1]
      && s[0] <= SIMNPU_MAX_KERNEL_DIM) {
    ret = onnx_deconv_phases (c, x, w, ins[2], s[0], k, pb, pe, opad, xd, wd);
    if (ret <= 0)
      return ret;
  }
  /* zeros between the pixels: [N, C, H, 1, W, 1] padded to
   * [N, C, H, sh, W, sw], the trailing zeros cut by the padding below */
  if (s[0] > 1 || s[1] > 1) {
    int64_t r6[6] = { xd[0], xd[1], in[0], 1, in[1], 1 };
    int64_t r4[ONNX_CONV_RANK] = { xd[0], xd[1], in[0] * s[0],
      in[1] * s[1]
    };
    int t6 = simnpu__onnx_tmp (c), z = simnpu__onnx_tmp (c), t4 =
        simnpu__onnx_tmp (c);
    simnpu__onnx_attrs_init (&a);
    memset (a.ints, 0, sizeof a.ints);
    a.ints[6 + 3] = s[0] - 1;
    a.ints[6 + 5] = s[1] - 1;
    a.n_ints = 12;
    if ((ret = simnpu__onnx_emit_reshape (c, x, t6, r6, 6)) < 0
        || (ret = simnpu__onnx_emit (c, SIMNPU_IR_PAD, &t6, 1, &z, 1, &a)) < 0
        || (ret = simnpu__onnx_emit_reshape (c, z, t4, r4, ONNX_CONV_RANK)) < 0)
      return ret;
    x = t4;
  }
  simnpu__onnx_attrs_init (&a);
  memset (dims, 0, sizeof dims);
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
    a.ints[2 + i] = (k[i] - 1) * d[i] - pb[i];
    a.ints[ONNX_CONV_RANK + 2 + i] = (k[i] - 1) * d[i] - pe[i] + opad[i]
        - (s[i] - 1);
  }
  a.n_ints = 2 * ONNX_CONV_RANK;
  {
    int p = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_PAD, &x, 1, &p, 1, &a)) < 0)
      return ret;
    x = p;
  }
  /* weights [C, M/g, kh, kw] flipped, as [g, C/g, M/g, kh, kw] ->
   * [g, M/g, kh, kw, C/g] -> OHWI [M, kh, kw, C/g] */
  {
    static const int64_t perm[] = { 0, 2, 3, 4, 1 };
    int64_t w5[5] = { g, wd[0] / g, wd[1], k[0], k[1] };
    int64_t ohwi[ONNX_CONV_RANK] = { g * wd[1], k[0], k[1], wd[0] / g };
    int fl = simnpu__onnx_tmp (c), r5 = simnpu__onnx_tmp (c), t5 =
        simnpu__onnx_tmp (c);
    int wo = simnpu__onnx_tmp (c);
    simnpu__ir_attrs sl;
    unsigned r;
    simnpu__onnx_attrs_init (&sl);
    for (r = 0; r < ONNX_CONV_RANK; r++) {
      bool sp = r >= 2;
      sl.ints[r] = sp ? wd[r] - 1 : 0;
      sl.ints[ONNX_CONV_RANK + r] = sp ? -1 : wd[r];
      sl.steps[r] = sp ? -1 : 1;
    }
    sl.n_ints = 2 * ONNX_CONV_RANK;
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_SLICE, &w, 1, &fl, 1, &sl)) < 0
        || (ret = simnpu__onnx_emit_reshape (c, fl, r5, w5, 5)) < 0
        || (ret = simnpu__onnx_emit_transpose (c, r5, t5, perm, 5)) < 0
        || (ret =
            simnpu__onnx_emit_reshape (c, t5, wo, ohwi, ONNX_CONV_RANK)) < 0)
      return ret;
    w = wo;
  }
  simnpu__onnx_attrs_init (&a);
  a.kernel[0] = (int32_t) k[0];
  a.kernel[1] = (int32_t) k[1];
  a.dilation[0] = (int32_t) d[0];
  a.dilation[1] = (int32_t) d[1];
  a.groups = (int32_t) g;
  ins[0] = x;
  ins[1] = w;
  return onnx_emit_spatial (c, SIMNPU_IR_CONV2D, ins,
      ins[2] == SIMNPU_IR_NONE ? 2 : 3, &a, one_d);
}

int
simnpu__onnx_imp_pool (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t k[2];
  int x, n, ret;
  bool one_d;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_check_outputs (c, 1)) < 0)
    return ret;
  one_d = T (c, x)->rank == ONNX_CONV_RANK - 1;
  if (T (c, x)->rank != ONNX_CONV_RANK && !one_d)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only 1-D and 2-D pooling are supported",
        T (c, x)->rank);
  if ((ret = simnpu__onnx_attr_ints (c, "kernel_shape", k, 2, &n)) < 0)
    return ret;
  if (n != (one_d ? 1 : 2))
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "kernel_shape has %d values "
        "(expected %d)", n, one_d ? 1 : 2);
  if (one_d && (ret = onnx_unsqueeze_h (c, x, &x)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if ((ret = onnx_spatial_attrs (c, x, k, one_d, &a)) < 0)
    return ret;
  a.ceil_mode = simnpu__onnx_attr_int (c, "ceil_mode", 0) != 0;
  a.count_include_pad = simnpu__onnx_attr_int (c, "count_include_pad", 0) != 0;
  if (simnpu__onnx_attr_int (c, "storage_order", 0) != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "storage_order=1");
  return onnx_emit_spatial (c, op->ir, &x, 1, &a, one_d);
}

int
simnpu__onnx_imp_global_pool (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, ret, out;
  unsigned i, rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if (rank == ONNX_CONV_RANK) {
    a.kernel[0] = (int32_t) T (c, x)->dims[2];
    a.kernel[1] = (int32_t) T (c, x)->dims[3];
    return simnpu__onnx_emit_nhwc (c, op->ir, &x, 1, &a);
  }
  if (rank < 3)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 3)", rank);
  for (i = 2; i < rank; i++)
    a.ints[a.n_ints++] = i;
  a.keepdims = true;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c,
      op->ir ==
      SIMNPU_IR_MAXPOOL ? SIMNPU_IR_REDUCE_MAX : SIMNPU_IR_REDUCE_MEAN, &x, 1,
      &out, 1, &a);
}

int
simnpu__onnx_imp_depth_space (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  char buf[ONNX_STR_SIZE];
  const char *mode;
  int x, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->rank != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "input of rank %u (expected 4)",
        T (c, x)->rank);
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = simnpu__onnx_attr_int (c, "blocksize", 0);
  a.n_ints = 1;
  if (a.ints[0] < 1)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "blocksize %" G_GINT64_FORMAT
        " (expected >= 1)", a.ints[0]);
  mode = simnpu__onnx_attr_str (c, "mode", "DCR", buf, sizeof buf);
  if (strcmp (mode, "CRD") == 0)
    a.mode = 1;
  else if (strcmp (mode, "DCR") != 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "mode '%s' (expected DCR or CRD)", mode);
  return simnpu__onnx_emit_nhwc (c, op->ir, &x, 1, &a);
}

/* ONNX Resize's source coordinate of output o along an axis (as its
 * reference: a given scale maps coordinates, its resized length unrounded) */
static double
onnx_resize_coord (int coord, int64_t o, int64_t in, int64_t out, float given)
{
  double scale = given > 0 ? given : (double) out / (double) in;
  double len = given > 0 ? (double) in * given : (double) out;

  switch (coord) {
    case SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL:
      return len > 1 ? ((double) o + 0.5) / scale - 0.5 : 0.0;
    case SIMNPU_IR_COORD_ALIGN_CORNERS:
      return len == 1 ? 0.0 : (double) o *(double) (in - 1) / (len - 1);
    case SIMNPU_IR_COORD_ASYMMETRIC:
      return (double) o / scale;
    case SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN:
      return ((double) o + 0.5) / scale;
    default:
      return ((double) o + 0.5) / scale - 0.5;
  }
}

static double
onnx_cubic_weight (double d, double a)
{
  d = fabs (d);
  if (d <= 1)
    return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2)
    return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

#define ONNX_CUBIC_TAPS 4

/* [in, out]: column o holds the cubic taps of output o (edge-clamped, or
 * dropped and renormalised with exclude_outside) */
static float *
onnx_cubic_matrix (int64_t in, int64_t out, float given, int coord,
    double a, bool exclude)
{
  float *m = g_new0 (float, in * out);
  int64_t o, j;

  for (o = 0; o < out; o++) {
    double x = onnx_resize_coord (coord, o, in, out, given);
    double fl = floor (x), t = x - fl, w[ONNX_CUBIC_TAPS], sum = 0;
    int64_t idx[ONNX_CUBIC_TAPS];
    for (j = 0; j < ONNX_CUBIC_TAPS; j++) {
      idx[j] = (int64_t) fl - 1 + j;
      w[j] = onnx_cubic_weight (t + 1 - j, a);
      if (exclude && (idx[j] < 0 || idx[j] >= in))
        w[j] = 0;
      sum += w[j];
    }
    for (j = 0; j < ONNX_CUBIC_TAPS; j++) {
      int64_t i = CLAMP (idx[j], 0, in - 1);
      m[i * out + o] += (float) (exclude && sum != 0 ? w[j] / sum : w[j]);
    }
  }
  return m;
}

/* cubic resize of NCHW x: x @ Mw, then the same along the height through
 * a transpose of the last two axes */
static int
onnx_resize_cubic (onnx_ctx * c, int x, const simnpu__ir_attrs * ra,
    bool exclude)
{
  static const int64_t swap[] = { 0, 1, 3, 2 };
  int64_t h = T (c, x)->dims[2], w = T (c, x)->dims[3];
  int64_t oh = ra->ints[0], ow = ra->ints[1], d[2];
  int mw, mh, y1, t1, y2, out, ret;
  float *m;

  if (h * oh > ONNX_MAX_FOLD_ELEMENTS || w * ow > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "resize too large for cubic");
  m = onnx_cubic_matrix (w, ow, ra->f[2], ra->coord, ra->f[0], exclude);
  d[0] = w;
  d[1] = ow;
  mw = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 2, d, m);
  g_free (m);
  m = onnx_cubic_matrix (h, oh, ra->f[1], ra->coord, ra->f[0], exclude);
  d[0] = h;
  d[1] = oh;
  mh = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 2, d, m);
  g_free (m);
  y1 = simnpu__onnx_tmp (c);
  t1 = simnpu__onnx_tmp (c);
  y2 = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, x, mw, y1)) < 0
      || (ret = simnpu__onnx_emit_transpose (c, y1, t1, swap, 4)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, t1, mh, y2)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_transpose (c, y2, out, swap, 4);
}

/* Upsample (7, 9) and Resize (10): output floor (in * scale), asymmetric
 * coordinates; nearest rounds down when an axis grows and up when it
 * shrinks, as onnxruntime's kernels of these versions do. */
static int
onnx_resize_scales_only (onnx_ctx * c, int x, const float *sc, int n,
    const char *mode)
{
  simnpu__ir_attrs a;
  bool grows = false, shrinks = false;
  unsigned i;

  if (T (c, x)->rank != ONNX_CONV_RANK || n != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u with %d scales: only rank-4 NCHW with 4 scales "
        "is supported", T (c, x)->rank, n);
  simnpu__onnx_attrs_init (&a);
  if (strcmp (mode, "linear") == 0 || strcmp (mode, "bilinear") == 0)
    a.mode = SIMNPU_IR_RESIZE_BILINEAR;
  else if (strcmp (mode, "nearest") != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "mode '%s' is not supported (nearest or linear)", mode);
  for (i = 0; i < 2; i++)
    if (sc[i] != 1.0f)
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "scaling the batch or channel axis is not supported");
  for (i = 0; i < ONNX_SPATIAL_DIMS; i++) {
    float f = sc[2 + i];
    double o = floor ((double) T (c, x)->dims[2 + i] * f);
    if (!(o >= 1 && o <= SIMNPU_IR_MAX_ELEMENTS))
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scale %g", f);
    grows |= f > 1.0f;
    shrinks |= f < 1.0f;
    a.ints[i] = (int64_t) o;
    a.f[1 + i] = f;
  }
  a.n_ints = ONNX_SPATIAL_DIMS;
  a.coord = SIMNPU_IR_COORD_ASYMMETRIC;
  if (a.mode != SIMNPU_IR_RESIZE_BILINEAR && grows && shrinks)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "nearest resize growing one axis and shrinking the other at opset "
        "%d is not supported", c->opset);
  a.nearest = shrinks ? SIMNPU_IR_NEAREST_CEIL : SIMNPU_IR_NEAREST_FLOOR;
  return simnpu__onnx_emit_nhwc (c, SIMNPU_IR_RESIZE, &x, 1, &a);
}

/* the values of a constant float input */
static int
onnx_const_floats (onnx_ctx * c, int t, const char *what, float *out,
    int max, int *n)
{
  const simnpu__ir_tensor *st = T (c, t);
  int64_t count = simnpu__ir_tensor_elements (st);

  if (!st->is_const || st->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input must be constant (float)", what);
  if (count > max)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s has %" G_GINT64_FORMAT " values (at most %d supported)", what,
        count, max);
  memcpy (out, st->data, count * sizeof out[0]);
  *n = (int) count;
  return 0;
}

/* Resize's axes attribute (opset 18): @n values for the listed axes made
 * into one per axis of a rank-@rank input, @fill for the others. */
static int
onnx_resize_on_axes (onnx_ctx * c, unsigned rank, double *v, int *n,
    const double *fill)
{
  int64_t axes[SIMNPU_IR_MAX_RANK];
  double full[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  int na, i, ret;

  if ((ret = simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_RANK,
              &na)) < 0)
    return ret;
  if (na < 0)
    return 0;
  if (na != *n)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%d values for %d axes", *n, na);
  memcpy (full, fill, rank * sizeof full[0]);
  for (i = 0; i < na; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], rank, &ax)) < 0)
      return ret;
    if (seen[ax])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis %d repeated", ax);
    seen[ax] = true;
    full[ax] = v[i];
  }
  memcpy (v, full, rank * sizeof v[0]);
  *n = rank;
  return 0;
}

/* keep_aspect_ratio_policy (opset 18) with sizes: one scale for the
 * listed axes (all by default), the least (not_larger) or the greatest
 * (not_smaller) of size / input, and sizes round (input * scale) */
static int
onnx_resize_keep_aspect (onnx_ctx * c, const simnpu__ir_tensor * xt,
    double *sizes, float *scale)
{
  char buf[ONNX_STR_SIZE];
  const char *s = simnpu__onnx_attr_str (c, "keep_aspect_ratio_policy",
      "stretch", buf, sizeof buf);
  int64_t axes[SIMNPU_IR_MAX_RANK];
  bool larger;
  double k = 0;
  int na, i, ret;

  *scale = 0;
  if (strcmp (s, "stretch") == 0)
    return 0;
  if (strcmp (s, "not_larger") != 0 && strcmp (s, "not_smaller") != 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "keep_aspect_ratio_policy '%s' (expected stretch, not_larger or "
        "not_smaller)", s);
  larger = s[4] == 's';
  if ((ret = simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_RANK,
              &na)) < 0)
    return ret;
  if (na < 0)
    for (na = 0; na < (int) xt->rank; na++)
      axes[na] = na;
  for (i = 0; i < na; i++) {
    unsigned ax = (unsigned) (axes[i] < 0 ? axes[i] + xt->rank : axes[i]);
    double r = sizes[ax] / (double) xt->dims[ax];
    k = i == 0 ? r : (larger ? MAX (k, r) : MIN (k, r));
  }
  for (i = 0; i < na; i++) {
    unsigned ax = (unsigned) (axes[i] < 0 ? axes[i] + xt->rank : axes[i]);
    sizes[ax] = floor ((double) xt->dims[ax] * k + 0.5);
  }
  *scale = (float) k;
  return 0;
}

int
simnpu__onnx_imp_resize (onnx_ctx * c, const onnx_op * op)
{
  static const char *const coords[] = { "half_pixel", "pytorch_half_pixel",
    "align_corners", "asymmetric", "tf_half_pixel_for_nn"
  };
  static const char *const nearests[] = { "round_prefer_floor",
    "round_prefer_ceil", "floor", "ceil"
  };
  simnpu__ir_attrs a;
  char buf[ONNX_STR_SIZE];
  const char *s;
  int x, scales, sizes, ret, n = 0, nf = 0;
  bool has_sizes, cubic, symmetric = false;
  double v[SIMNPU_IR_MAX_RANK], fill[SIMNPU_IR_MAX_RANK];
  float given[SIMNPU_IR_MAX_RANK], keep = 0;
  int64_t out_dims[SIMNPU_IR_MAX_RANK], iv[SIMNPU_IR_MAX_RANK];
  unsigned i;
  const simnpu__ir_tensor *xt;

  if (c->opset < ONNX_RESIZE_ROI_OPSET) {
    /* opset 10: X and scales */
    if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
        || (ret = simnpu__onnx_in (c, 1, &scales)) < 0
        || (ret = onnx_const_floats (c, scales, "scales", given,
                SIMNPU_IR_MAX_RANK, &nf)) < 0)
      return ret;
    return onnx_resize_scales_only (c, x, given, nf,
        simnpu__onnx_attr_str (c, "mode", "nearest", buf, sizeof buf));
  }
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &scales)) < 0
      || (ret = simnpu__onnx_opt_in (c, 3, &sizes)) < 0)
    return ret;
  xt = T (c, x);
  if (xt->rank != ONNX_CONV_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "input of rank %u: only rank-4 NCHW is supported", xt->rank);
  simnpu__onnx_attrs_init (&a);
  s = simnpu__onnx_attr_str (c, "mode", "nearest", buf, sizeof buf);
  cubic = strcmp (s, "cubic") == 0;
  if (strcmp (s, "linear") == 0)
    a.mode = SIMNPU_IR_RESIZE_BILINEAR;
  else if (strcmp (s, "nearest") != 0 && !cubic)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "mode '%s' is not supported " "(nearest, linear or cubic)", s);
  s = simnpu__onnx_attr_str (c, "coordinate_transformation_mode", "half_pixel",
      buf, sizeof buf);
  if (c->opset >= ONNX_RESIZE_SYMMETRIC_OPSET
      && strcmp (s, "half_pixel_symmetric") == 0) {
    symmetric = true;
    s = coords[SIMNPU_IR_COORD_HALF_PIXEL];
  }
  for (i = 0; i < G_N_ELEMENTS (coords); i++)
    if (strcmp (s, coords[i]) == 0)
      break;
  if (i == G_N_ELEMENTS (coords))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "coordinate_transformation_mode '%s' is not supported", s);
  a.coord = i;
  s = simnpu__onnx_attr_str (c, "nearest_mode", "round_prefer_floor", buf,
      sizeof buf);
  for (i = 0; i < G_N_ELEMENTS (nearests); i++)
    if (strcmp (s, nearests[i]) == 0)
      break;
  if (i == G_N_ELEMENTS (nearests))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "nearest_mode '%s'", s);
  a.nearest = i;
  a.f[0] = simnpu__onnx_attr_float (c, "cubic_coeff_a", ONNX_DEFAULT_CUBIC_A);

  has_sizes = sizes != SIMNPU_IR_NONE
      && simnpu__ir_tensor_elements (T (c, sizes)) > 0;
  if (has_sizes) {
    if ((ret = simnpu__onnx_const_ints (c, sizes, "sizes", iv,
                SIMNPU_IR_MAX_RANK, &n)) < 0)
      return ret;
    for (i = 0; i < (unsigned) n; i++)
      v[i] = (double) iv[i];
    for (i = 0; i < xt->rank; i++)
      fill[i] = (double) xt->dims[i];
  } else if (scales != SIMNPU_IR_NONE) {
    if ((ret = onnx_const_floats (c, scales, "scales", given,
                SIMNPU_IR_MAX_RANK, &n)) < 0)
      return ret;
    for (i = 0; i < (unsigned) n; i++)
      v[i] = given[i];
    for (i = 0; i < xt->rank; i++)
      fill[i] = 1.0;
  } else {
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "neither scales nor sizes given");
  }
  if (c->opset >= ONNX_RESIZE_AXES_OPSET
      && (ret = onnx_resize_on_axes (c, xt->rank, v, &n, fill)) < 0)
    return ret;
  if (n != (int) xt->rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%d %s for rank %u", n,
        has_sizes ? "sizes" : "scales", xt->rank);
  if (has_sizes && c->opset >= ONNX_RESIZE_AXES_OPSET
      && (ret = onnx_resize_keep_aspect (c, xt, v, &keep)) < 0)
    return ret;
  for (i = 0; i < xt->rank; i++) {
    double od = has_sizes ? v[i] : floor ((double) xt->dims[i] * v[i]);
    /* NaN and the infinities fail this too */
    if (!(od >= 0 && od <= SIMNPU_IR_MAX_ELEMENTS))
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "output size %g on axis %u", od, i);
    out_dims[i] = (int64_t) od;
  }
  if (!has_sizes) {
    /* ONNX maps coordinates with the given scales, not out / in (they
     * differ when in * scale is not whole) */
    a.f[1] = (float) v[2];
    a.f[2] = (float) v[3];
  } else if (keep > 0) {
    a.f[1] = a.f[2] = keep;
  }
  if (out_dims[0] != xt->dims[0] || out_dims[1] != xt->dims[1])
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "resizing the batch or channel axis is not supported");
  for (i = 2; i < 4; i++) {
    double len = a.f[i - 1] > 0 ? (double) xt->dims[i] * a.f[i - 1] :
        (double) out_dims[i];
    if (out_dims[i] < 1 || out_dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "output size %" G_GINT64_FORMAT, out_dims[i]);
    /* half_pixel_symmetric is half_pixel when in * scale is whole */
    if (symmetric && len != floor (len))
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "half_pixel_symmetric with an output size (%g) that is not "
          "whole is not supported", len);
    /* antialias only changes a linear or cubic resize that shrinks */
    if (out_dims[i] < xt->dims[i] && (cubic
            || a.mode == SIMNPU_IR_RESIZE_BILINEAR)
        && c->opset >= ONNX_RESIZE_AXES_OPSET
        && simnpu__onnx_attr_int (c, "antialias", 0) != 0)
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "antialias of a shrinking %s resize is not supported",
          cubic ? "cubic" : "linear");
  }
  a.ints[0] = out_dims[2];
  a.ints[1] = out_dims[3];
  a.n_ints = 2;
  if (cubic)
    return onnx_resize_cubic (c, x, &a,
        simnpu__onnx_attr_int (c, "exclude_outside", 0) != 0);
  return simnpu__onnx_emit_nhwc (c, SIMNPU_IR_RESIZE, &x, 1, &a);
}

/* Upsample: the scales are an attribute at opset 7, an input from 9 */
int
simnpu__onnx_imp_upsample (onnx_ctx * c, const onnx_op * op)
{
  char buf[ONNX_STR_SIZE];
  float sc[SIMNPU_IR_MAX_RANK];
  int x, ts, ret, n = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (c->opset >= ONNX_UPSAMPLE_SCALES_INPUT_OPSET) {
    if ((ret = simnpu__onnx_in (c, 1, &ts)) < 0
        || (ret = onnx_const_floats (c, ts, "scales", sc, SIMNPU_IR_MAX_RANK,
                &n)) < 0)
      return ret;
  } else {
    const Onnx__AttributeProto *at = simnpu__onnx_attr (c, "scales");
    size_t k;
    if (at == NULL || at->n_floats == 0 || at->n_floats > SIMNPU_IR_MAX_RANK)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "attribute 'scales' missing or of %zu values (opset %d)",
          at ? at->n_floats : 0, c->opset);
    for (k = 0; k < at->n_floats; k++)
      sc[k] = at->floats[k];
    n = (int) at->n_floats;
  }
  return onnx_resize_scales_only (c, x, sc, n,
      simnpu__onnx_attr_str (c, "mode", "nearest", buf, sizeof buf));
}
