/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js translations of the ops that move pixels between space and
 * depth: DepthToSpace, SpaceToDepth and the transposed convolution
 * (Conv2DBackpropInput), built from them as the device runs it. Their
 * rows are in the table of tfjs-ops-nn.c. */

#include "tfjs-private.h"

#include <math.h>
#include <string.h>

/* Conv2DBackpropInput (tf.conv2dTranspose): input_sizes, filter [kh, kw,
 * out channels, in channels], x; its output y[i * s + k - pad_before] +=
 * x[i] w[k], with SAME's or VALID's pad_before of the forward conv from
 * y to x. Built as simnpu__deconv_plan says, which the device runs. */
int
simnpu__tfjs_tr_conv_transpose (tfjs_loader * l, const tfjs_node * tn,
    const int *in)
{
  char padding[TFJS_ATTR_STRING];
  int64_t sizes[4], v[TFJS_MAX_LIST], dims[4], wst[SIMNPU_DECONV_W_N_STRIDES];
  const simnpu__ir_tensor *f, *x;
  simnpu__deconv_plan p = { 0 };
  simnpu__ir_node *n;
  unsigned n_sizes, nv, i;
  int64_t cin, cout, s = 1;
  float *w;
  int t, wt, out, ret;

  if ((ret = simnpu__tfjs_need_inputs (l, tn, 3, 3)) < 0
      || (ret = simnpu__tfjs_check_nhwc (l, tn)) < 0
      || (ret = simnpu__tfjs_const_ints (l, in[0], "input_sizes", sizes, 4,
              &n_sizes)) < 0)
    return ret;
  f = T (l, in[1]);
  x = T (l, in[2]);
  if (n_sizes != 4 || x->rank != 4 || f->rank != 4)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "input_sizes, filter and "
        "input must be of rank 4 (NHWC, [kh, kw, out, in])");
  if (!f->is_const || f->dtype != SIMNPU_IR_F32)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "filter '%s' computed at run time; only constant filters are "
        "supported", f->name);
  cout = f->dims[2];
  cin = f->dims[3];
  if (x->dims[3] != cin || sizes[3] != cout || sizes[0] != x->dims[0])
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "input [%" G_GINT64_FORMAT
        ", ..., %" G_GINT64_FORMAT "], filter [.., %" G_GINT64_FORMAT ", %"
        G_GINT64_FORMAT "] and input_sizes [%" G_GINT64_FORMAT ", ..., %"
        G_GINT64_FORMAT "] disagree", x->dims[0], x->dims[3], cout, cin,
        sizes[0], sizes[3]);
  if ((ret = simnpu__tfjs_attr_ints (l, tn, "strides", v, TFJS_MAX_LIST,
              &nv)) < 0)
    return ret;
  if (nv == 4) {
    if (v[1] != v[2] || v[1] < 1 || v[1] > SIMNPU_MAX_KERNEL_DIM)
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "strides %"
          G_GINT64_FORMAT " x %" G_GINT64_FORMAT "; only equal strides of "
          "1 to 64 are supported", v[1], v[2]);
    s = v[1];
  } else if (nv != 0) {
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "%u strides; expected 4 (NHWC)", nv);
  }
  if ((ret = simnpu__tfjs_attr_ints (l, tn, "dilations", v, TFJS_MAX_LIST,
              &nv)) < 0)
    return ret;
  for (i = 0; i < nv; i++)
    if (v[i] != 1)
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "dilations other than 1 are not supported");
  if ((ret = simnpu__tfjs_attr_string (l, tn, "padding", padding)) < 0)
    return ret;
  p.stride = s;
  for (i = 0; i < 2; i++) {
    int64_t len = sizes[1 + i], k = f->dims[i], fwd;
    p.in[i] = x->dims[1 + i];
    p.kernel[i] = k;
    p.out[i] = len;
    if (strcmp (padding, "SAME") == 0) {
      fwd = (len + s - 1) / s;
      p.crop[i] = MAX ((fwd - 1) * s + k - len, 0) / 2;
    } else if (strcmp (padding, "VALID") == 0) {
      fwd = len >= k ? (len - k) / s + 1 : 0;
      p.crop[i] = 0;
    } else {
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "padding '%s'; expected SAME or VALID", padding);
    }
    if (fwd != p.in[i])
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "output size %"
          G_GINT64_FORMAT " with %s padding, kernel %" G_GINT64_FORMAT
          " and stride %" G_GINT64_FORMAT " comes from %" G_GINT64_FORMAT
          " inputs, not %" G_GINT64_FORMAT, len, padding, k, s, fwd, p.in[i]);
  }
  if (!simnpu__deconv_plan_make (&p))
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "transposed convolution of this kernel, stride and padding");
  wst[SIMNPU_DECONV_W_IN] = 1;
  wst[SIMNPU_DECONV_W_OUT] = cin;
  wst[SIMNPU_DECONV_W_W] = cout * cin;
  wst[SIMNPU_DECONV_W_H] = f->dims[1] * cout * cin;
  dims[0] = s * s * cout;
  dims[1] = p.taps[0];
  dims[2] = p.taps[1];
  dims[3] = cin;
  w = g_new (float, dims[0] * dims[1] * dims[2] * dims[3]);
  simnpu__deconv_weights (&p, f->data, wst, cin, cout, NULL, w, NULL);
  if ((wt = simnpu__tfjs_new_const (l, "phases", SIMNPU_IR_F32, 4, dims,
              w)) < 0)
    return wt;
  t = in[2];
  if (p.pad_before[0] || p.pad_before[1] || p.pad_after[0]
      || p.pad_after[1]) {
    if ((ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_PAD, "pad", 1, &t, 1,
                &out, &n)) < 0)
      return ret;
    memset (n->attrs.ints, 0, sizeof n->attrs.ints);
    for (i = 0; i < 2; i++) {
      n->attrs.ints[1 + i] = p.pad_before[i];
      n->attrs.ints[4 + 1 + i] = p.pad_after[i];
    }
    n->attrs.n_ints = 8;
    n->attrs.mode = SIMNPU_IR_PAD_CONSTANT;
    if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
      return ret;
    t = out;
  }
  {
    int ci[2] = { t, wt };
    bool last = s == 1 && !simnpu__deconv_needs_slice (&p);
    if ((ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CONV2D, last ? NULL :
                "phases", 2, ci, 1, &out, &n)) < 0)
      return ret;
    n->attrs.kernel[0] = (int32_t) p.taps[0];
    n->attrs.kernel[1] = (int32_t) p.taps[1];
    n->attrs.stride[0] = n->attrs.stride[1] = 1;
    n->attrs.dilation[0] = n->attrs.dilation[1] = 1;
    n->attrs.groups = 1;
    n->attrs.act_max = INFINITY;
    if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
      return ret;
    t = out;
  }
  if (s > 1) {
    if ((ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_DEPTH_TO_SPACE,
                simnpu__deconv_needs_slice (&p) ? "d2s" : NULL, 1, &t, 1,
                &out, &n)) < 0)
      return ret;
    n->attrs.ints[0] = s;
    n->attrs.n_ints = 1;
    if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
      return ret;
    t = out;
  }
  if (simnpu__deconv_needs_slice (&p)) {
    if ((ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_SLICE, NULL, 1, &t, 1,
                &out, &n)) < 0)
      return ret;
    for (i = 0; i < 4; i++) {
      int64_t b = i == 1 || i == 2 ? p.slice_begin[i - 1] : 0;
      n->attrs.ints[i] = b;
      n->attrs.ints[4 + i] = b + sizes[i];
      n->attrs.steps[i] = 1;
    }
    n->attrs.n_ints = 8;
    if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
      return ret;
    t = out;
  }
  return simnpu__tfjs_register_output (l, tn, 0, t);
}

/* DepthToSpace and SpaceToDepth: block_size, NHWC (TF's DCR order) */
static int
translate_depth_space (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_op op)
{
  simnpu__ir_node *n;
  int64_t b;
  int out, ret;

  if ((ret = simnpu__tfjs_need_inputs (l, tn, 1, 1)) < 0
      || (ret = simnpu__tfjs_check_nhwc (l, tn)) < 0
      || (ret = simnpu__tfjs_attr_int (l, tn, "block_size", 0, 2,
              SIMNPU_MAX_KERNEL_DIM, &b)) < 0)
    return ret;
  if (b < 2)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "attribute 'block_size' missing; expected an integer in [2, 64]");
  if (T (l, in[0])->rank != 4)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "input '%s' has rank %u; expected NHWC (rank 4)", T (l, in[0])->name,
        T (l, in[0])->rank);
  if ((ret = simnpu__tfjs_begin_op (l, op, NULL, 1, in, 1, &out, &n)) < 0)
    return ret;
  n->attrs.ints[0] = b;
  n->attrs.n_ints = 1;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

int
simnpu__tfjs_tr_depth_to_space (tfjs_loader * l, const tfjs_node * tn,
    const int *in)
{
  return translate_depth_space (l, tn, in, SIMNPU_IR_DEPTH_TO_SPACE);
}

int
simnpu__tfjs_tr_space_to_depth (tfjs_loader * l, const tfjs_node * tn,
    const int *in)
{
  return translate_depth_space (l, tn, in, SIMNPU_IR_SPACE_TO_DEPTH);
}

/* ------------------------------------------------------------------ */
/* Dilated convolutions as TF writes them: SpaceToBatchND (x padded, its
 * pixels dealt into block_h * block_w images), a conv of stride 1 and
 * no padding over each, BatchToSpaceND (the images dealt back, cropped).
 * That is the conv with dilation block over x padded so, then cropped:
 * one dilated conv, its pads the paddings less the crops. Only that
 * pattern is taken: the SpaceToBatchND's result (the padded x here, not
 * the batch TF makes) may only be read by such a conv, whose result may
 * only be read by the BatchToSpaceND; anything else is declined, as an
 * unknown op is (simnpu__tfjs_space_batch_check). */

static tfjs_space_batch *
mark (tfjs_loader * l, int t)
{
  return l->space_batch ? g_hash_table_lookup (l->space_batch,
      GINT_TO_POINTER (t + 1)) : NULL;
}

static void
set_mark (tfjs_loader * l, int t, const tfjs_space_batch * m)
{
  if (l->space_batch == NULL)
    l->space_batch = g_hash_table_new_full (g_direct_hash, g_direct_equal,
        NULL, g_free);
  g_hash_table_replace (l->space_batch, GINT_TO_POINTER (t + 1),
      g_memdup2 (m, sizeof *m));
}

/* block_shape [2] and paddings or crops [2, 2] */
static int
block_and_pads (tfjs_loader * l, const int *in, const char *what,
    int32_t * block, int32_t * pads)
{
  int64_t b[2], p[4];
  unsigned nb, np, i;
  int ret;

  if ((ret = simnpu__tfjs_const_ints (l, in[1], "block_shape", b, 2,
              &nb)) < 0 || (ret = simnpu__tfjs_const_ints (l, in[2], what, p,
              4, &np)) < 0)
    return ret;
  if (nb != 2 || np != 4 || T (l, in[0])->rank != 4)
    return TFJS_DECLINED;
  for (i = 0; i < 2; i++) {
    if (b[i] < 1 || b[i] > SIMNPU_MAX_KERNEL_DIM)
      return TFJS_DECLINED;
    block[i] = (int32_t) b[i];
  }
  for (i = 0; i < 4; i++) {
    if (p[i] < 0 || p[i] > G_MAXINT16)
      return TFJS_DECLINED;
  }
  /* top, left, bottom, right */
  pads[0] = (int32_t) p[0];
  pads[2] = (int32_t) p[1];
  pads[1] = (int32_t) p[2];
  pads[3] = (int32_t) p[3];
  return 0;
}

int
simnpu__tfjs_tr_space_to_batch (tfjs_loader * l, const tfjs_node * tn,
    const int *in)
{
  tfjs_space_batch m = { 0 };
  simnpu__ir_node *n;
  int out, ret;

  if ((ret = simnpu__tfjs_need_inputs (l, tn, 3, 3)) < 0
      || (ret = block_and_pads (l, in, "paddings", m.block, m.pads)) != 0)
    return ret;
  if ((ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_PAD, NULL, 1, in, 1, &out,
              &n)) < 0)
    return ret;
  n->attrs.ints[1] = m.pads[0];
  n->attrs.ints[2] = m.pads[1];
  n->attrs.ints[5] = m.pads[2];
  n->attrs.ints[6] = m.pads[3];
  n->attrs.n_ints = 8;
  n->attrs.mode = SIMNPU_IR_PAD_CONSTANT;
  if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
    return ret;
  m.batched = true;
  m.x = in[0];
  set_mark (l, out, &m);
  return simnpu__tfjs_register_output (l, tn, 0, out);
}

bool
simnpu__tfjs_space_batch_conv (tfjs_loader * l, int x, simnpu__ir_attrs * a)
{
  const tfjs_space_batch *m = mark (l, x);

  if (m == NULL || !m->batched)
    return true;
  if (a->stride[0] != 1 || a->stride[1] != 1 || a->dilation[0] != 1
      || a->dilation[1] != 1 || a->pads[0] || a->pads[1] || a->pads[2]
      || a->pads[3])
    return false;
  a->dilation[0] = m->block[0];
  a->dilation[1] = m->block[1];
  return true;
}

void
simnpu__tfjs_space_batch_conv_done (tfjs_loader * l, const tfjs_node * tn,
    int x, int conv)
{
  const tfjs_space_batch *m = mark (l, x);
  gpointer p = g_hash_table_lookup (l->tensors, tn->name);
  tfjs_space_batch done;

  if (m == NULL || !m->batched || p == NULL)
    return;
  done = *m;
  done.batched = false;
  done.conv = conv;
  set_mark (l, GPOINTER_TO_INT (p) - 1, &done);
}

int
simnpu__tfjs_tr_batch_to_space (tfjs_loader * l, const tfjs_node * tn,
    const int *in)
{
  const tfjs_space_batch *m = mark (l, in[0]);
  int32_t block[2], crops[4], pads[4];
  simnpu__ir_tensor *y;
  simnpu__ir_node *conv, *n;
  unsigned i;
  int out, ret;
  bool fold = true;

  if ((ret = simnpu__tfjs_need_inputs (l, tn, 3, 3)) < 0
      || (ret = block_and_pads (l, in, "crops", block, crops)) != 0)
    return ret;
  if (m == NULL || m->batched || block[0] != m->block[0]
      || block[1] != m->block[1])
    return TFJS_DECLINED;
  y = T (l, in[0]);
  conv = &l->g->nodes[m->conv];
  /* the crops into the conv's pads, when its result is y itself */
  for (i = 0; i < 4; i++) {
    pads[i] = m->pads[i] - crops[i];
    fold &= pads[i] >= 0;
  }
  if (fold && y->producer == m->conv && conv->op == SIMNPU_IR_CONV2D) {
    conv->inputs[0] = m->x;
    memcpy (conv->attrs.pads, pads, sizeof pads);
    y->dims[1] -= crops[0] + crops[2];
    y->dims[2] -= crops[1] + crops[3];
    /* y is the dilated conv's result now, for any reader */
    g_hash_table_remove (l->space_batch, GINT_TO_POINTER (in[0] + 1));
    return simnpu__tfjs_register_output (l, tn, 0, in[0]);
  }
  if ((ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_PAD, NULL, 1, in, 1, &out,
              &n)) < 0)
    return ret;
  n->attrs.ints[1] = -crops[0];
  n->attrs.ints[2] = -crops[1];
  n->attrs.ints[5] = -crops[2];
  n->attrs.ints[6] = -crops[3];
  n->attrs.n_ints = 8;
  n->attrs.mode = SIMNPU_IR_PAD_CONSTANT;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

bool
simnpu__tfjs_space_batch_check (tfjs_loader * l, const tfjs_node * tn,
    const int *in, unsigned n_in)
{
  static const char *const convs[] = { "Conv2D", "DepthwiseConv2dNative",
    "_FusedConv2D", "FusedDepthwiseConv2dNative"
  };
  unsigned i, k;

  if (l->space_batch == NULL)
    return true;
  for (i = 0; i < n_in; i++) {
    const tfjs_space_batch *m = mark (l, in[i]);
    bool ok = false;
    if (m == NULL)
      continue;
    if (m->batched)
      for (k = 0; k < G_N_ELEMENTS (convs); k++)
        ok |= i == 0 && strcmp (tn->op, convs[k]) == 0;
    else
      ok = i == 0 && strcmp (tn->op, "BatchToSpaceND") == 0;
    if (!ok)
      return false;
  }
  return true;
}
