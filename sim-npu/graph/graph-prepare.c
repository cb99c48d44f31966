/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Preparation of a device graph's ops once it is valid: the
 * requantisation parameters, the resize and lookup tables, the packed
 * conv weights, each op's work (macs) and the scratch the kernels need. */

#include "graph-private.h"

#include <math.h>
#include <string.h>

/* Largest |acc| of a conv before requantisation must stay in int32:
 * klen * 255 * 128 + |bias| < 2^31. */
#define MAX_CONV_KLEN 32768
#define MAX_BIAS_ABS (1 << 30)
#define RESIZE_TABLE_STRIDE SIMNPU_RESIZE_TAB_STRIDE

static int64_t
eltwise_multiplier (double real)
{
  return (int64_t) llround (real * (double) (G_GINT64_CONSTANT (1) <<
          SIMNPU_ELTWISE_SHIFT));
}

static bool
at_zero_pad (const int32_t * at)
{
  return at[SIMNPU_A_PT] == 0 && at[SIMNPU_A_PL] == 0 && at[SIMNPU_A_PB] == 0
      && at[SIMNPU_A_PR] == 0;
}

/* floor and ceiling of a / b for b > 0 */
static int64_t
floor_div (int64_t a, int64_t b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int64_t
ceil_div (int64_t a, int64_t b)
{
  return -floor_div (-a, b);
}

/* Source indices and weights of one axis of a resize (ONNX Resize-13):
 * the source coordinate of output x is the exact fraction num / den, so
 * that ties of the nearest modes are exact; bilinear clamps it to the
 * edge. */
static void
resize_axis (int64_t in, int64_t out, int coord, int nearest, bool bilinear,
    int32_t * t)
{
  const int64_t one = 1 << SIMNPU_RESIZE_WEIGHT_BITS;
  int64_t x;

  for (x = 0; x < out; x++) {
    int64_t num, den, i0, i1, w = 0;
    switch (coord) {
      case SIMNPU_COORD_PYTORCH_HALF_PIXEL:
        num = out > 1 ? (2 * x + 1) * in - out : 0;
        den = out > 1 ? 2 * out : 1;
        break;
      case SIMNPU_COORD_ALIGN_CORNERS:
        num = out > 1 ? x * (in - 1) : 0;
        den = out > 1 ? out - 1 : 1;
        break;
      case SIMNPU_COORD_ASYMMETRIC:
        num = x * in;
        den = out;
        break;
      case SIMNPU_COORD_TF_HALF_PIXEL_FOR_NN:
        num = (2 * x + 1) * in;
        den = 2 * out;
        break;
      default:
        num = (2 * x + 1) * in - out;
        den = 2 * out;
        break;
    }
    if (!bilinear) {
      switch (nearest) {
        case SIMNPU_NEAREST_ROUND_PREFER_CEIL:
          i0 = floor_div (2 * num + den, 2 * den);
          break;
        case SIMNPU_NEAREST_FLOOR:
          i0 = floor_div (num, den);
          break;
        case SIMNPU_NEAREST_CEIL:
          i0 = ceil_div (num, den);
          break;
        default:
          i0 = ceil_div (2 * num - den, 2 * den);
          break;
      }
      i0 = CLAMP (i0, 0, in - 1);
      i1 = i0;
    } else if (num <= 0) {
      i0 = i1 = 0;
    } else if (num >= (in - 1) * den) {
      i0 = i1 = in - 1;
    } else {
      i0 = num / den;
      i1 = i0 + 1;
      w = (2 * (num - i0 * den) * one + den) / (2 * den);
    }
    t[RESIZE_TABLE_STRIDE * x + SIMNPU_RESIZE_TAB_I0] = (int32_t) i0;
    t[RESIZE_TABLE_STRIDE * x + SIMNPU_RESIZE_TAB_I1] = (int32_t) i1;
    t[RESIZE_TABLE_STRIDE * x + SIMNPU_RESIZE_TAB_W] = (int32_t) w;
  }
}

int
simnpu__op_prepare_resize (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  bool bilinear = op->attrs[SIMNPU_A_RESIZE_MODE] ==
      SIMNPU_RESIZE_MODE_BILINEAR;
  double r = (double) in->scale / out->scale;
  uint64_t n_rows = (uint64_t) out->dims[1] + (uint64_t) out->dims[2];

  if (r > SIMNPU_MAX_ELTWISE_RATIO)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 4096");
  if (n_rows * RESIZE_TABLE_STRIDE * sizeof (int32_t) > SIMNPU_MAX_ARENA_BYTES)
    return simnpu__op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "output height + width above 5.5 million");
  op->eltwise_mult[0] = eltwise_multiplier (r);
  op->rescale = r;
  /* the row buffers of the faster bilinear pass, when they are not
   * absurdly large (the kernel works without them) */
  if (bilinear && simnpu__resize_bilinear_scratch_bytes (out->dims) <=
      SIMNPU_MAX_ARENA_BYTES)
    g->scratch_bytes = MAX (g->scratch_bytes,
        simnpu__resize_bilinear_scratch_bytes (out->dims));
  op->macs =
      (uint64_t) simnpu__tensor_elements (out) *
      (bilinear ? SIMNPU__RESIZE_BILINEAR_TAPS : 1);
  if (g->estimate_only)
    return 0;
  g_free (op->table);
  op->table = g_new (int32_t, n_rows * RESIZE_TABLE_STRIDE);
  resize_axis (in->dims[1], out->dims[1], op->attrs[SIMNPU_A_COORD],
      op->attrs[SIMNPU_A_NEAREST], bilinear, op->table);
  resize_axis (in->dims[2], out->dims[2], op->attrs[SIMNPU_A_COORD],
      op->attrs[SIMNPU_A_NEAREST], bilinear,
      op->table + RESIZE_TABLE_STRIDE * out->dims[1]);
  return 0;
}

static int
prepare_conv_params (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *w = &g->tensors[op->inputs[1]];
  const simnpu__tensor *b = &g->tensors[op->inputs[2]];
  simnpu__conv_params *p = &op->conv;
  int oc = (int) w->dims[0];
  int klen = (int) (w->dims[1] * w->dims[2] * w->dims[3]);
  const int8_t *wd = w->data;
  const int32_t *bd = b->data;

  p->n = (int) in->dims[0];
  p->ih = (int) in->dims[1];
  p->iw = (int) in->dims[2];
  p->ic = (int) in->dims[3];
  p->oh = (int) out->dims[1];
  p->ow = (int) out->dims[2];
  p->oc = oc;
  p->kh = op->attrs[SIMNPU_A_KH];
  p->kw = op->attrs[SIMNPU_A_KW];
  p->sh = op->attrs[SIMNPU_A_SH];
  p->sw = op->attrs[SIMNPU_A_SW];
  p->pt = op->attrs[SIMNPU_A_PT];
  p->pl = op->attrs[SIMNPU_A_PL];
  p->dh = op->attrs[SIMNPU_A_DH];
  p->dw = op->attrs[SIMNPU_A_DW];
  p->groups = op->attrs[SIMNPU_A_GROUPS];
  p->in_zp = in->zero_point;
  p->out_zp = out->zero_point;
  p->act_min = I8_MIN;
  p->act_max = I8_MAX;
  if (op->attrs[SIMNPU_A_ACT] == SIMNPU_ACT_RELU) {
    p->act_min = out->zero_point;
  } else if (op->attrs[SIMNPU_A_ACT] == SIMNPU_ACT_CLIP) {
    p->act_min = op->attrs[SIMNPU_A_ACT_QMIN];
    p->act_max = op->attrs[SIMNPU_A_ACT_QMAX];
  }
  if (p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1
      && at_zero_pad (op->attrs) && p->ih == p->oh && p->iw == p->ow) {
    /* a pointwise conv is the same conv over one long row: the
     * kernel's row loops then run over the whole image */
    p->iw *= p->ih;
    p->ow *= p->oh;
    p->ih = p->oh = 1;
  }
  op->macs = (uint64_t) p->n * p->oh * p->ow * p->oc * klen;
  op->weight_bytes = simnpu__tensor_bytes (w) + simnpu__tensor_bytes (b);
  if (klen > MAX_CONV_KLEN)
    return simnpu__op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "kernel_h * kernel_w * in_channels / groups must be <= 32768");
  if (g->estimate_only)
    return 0;
  op->requant_scales = g_new (float, oc);
  op->bias_folded = g_new (int32_t, oc);
  for (int o = 0; o < oc; o++) {
    float ws = w->n_channel_scales ? w->channel_scales[o] : w->scale;
    double real = (double) in->scale * ws / out->scale;
    int64_t sum = 0;
    if (real >= SIMNPU_MAX_REQUANT_SCALE)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "input scale * weight scale / output scale must be < 65536");
    op->requant_scales[o] = (float) real;
    if (bd[o] > MAX_BIAS_ABS || bd[o] < -MAX_BIAS_ABS)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "bias values must be in [-2^30, 2^30]");
    for (int k = 0; k < klen; k++)
      sum += wd[(size_t) o * klen + k];
    op->bias_folded[o] = (int32_t) (bd[o] - (int64_t) in->zero_point * sum);
  }
  return 0;
}

int
simnpu__op_prepare_conv (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  int ret = prepare_conv_params (g, op, oi, error);

  if (ret < 0)
    return ret;
  g->scratch_bytes = MAX (g->scratch_bytes,
      simnpu__conv2d_scratch_bytes (&op->conv));
  if (!g->estimate_only) {
    size_t bytes = simnpu__conv2d_packed_bytes (&op->conv);
    if (bytes > 0 && g->tensors[op->inputs[1]].data != NULL) {
      op->weights_packed = g_aligned_alloc (bytes, 1, 64);
      simnpu__conv2d_pack (&op->conv, g->tensors[op->inputs[1]].data,
          op->weights_packed);
    }
  }
  return 0;
}

int
simnpu__op_prepare_binary (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *in2 = &g->tensors[op->inputs[1]];
  double ra, rb;

  if (in2->kind == SIMNPU_TENSOR_CONSTANT && in2->dtype != SIMNPU_DTYPE_I8)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "constant operand must be i8");
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  if (op->type != SIMNPU_OP_MUL) {
    ra = (double) in->scale / out->scale;
    rb = (double) in2->scale / out->scale;
  } else {
    ra = (double) in->scale * in2->scale / out->scale;
    rb = 0.0;
  }
  if (ra > SIMNPU_MAX_ELTWISE_RATIO || rb > SIMNPU_MAX_ELTWISE_RATIO)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 4096");
  op->eltwise_mult[0] = eltwise_multiplier (ra);
  op->eltwise_mult[1] = eltwise_multiplier (rb);
  /* a - b = a + (-1) b: the add kernel's arithmetic takes negative
   * multipliers exactly (floor shifts) */
  if (op->type == SIMNPU_OP_SUB)
    op->eltwise_mult[1] = -op->eltwise_mult[1];
  return 0;
}

int
simnpu__op_prepare_mean (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];

  op->rescale = (double) in->scale / out->scale;
  op->macs = (uint64_t) simnpu__tensor_elements (in);
  if ((uint64_t) in->dims[3] * sizeof (int32_t) > SIMNPU_MAX_ARENA_BYTES)
    return simnpu__op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "more than 2^24 channels");
  g->scratch_bytes = MAX (g->scratch_bytes, (size_t) in->dims[3] *
      sizeof (int32_t));
  return 0;
}

int
simnpu__op_prepare_pad (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  double r = (double) in->scale / out->scale;

  if (r > SIMNPU_MAX_ELTWISE_RATIO)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 4096");
  op->eltwise_mult[0] = eltwise_multiplier (r);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* prelu's table: per channel the high then the low halves of its
 * negative side's multiplier (the positive side's in eltwise_mult[0]) */
int
simnpu__op_prepare_prelu (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *slope = &g->tensors[op->inputs[1]];
  const int64_t ch = in->dims[in->n_dims - 1];
  const int64_t n_slope = simnpu__tensor_elements (slope);
  const int8_t *sq = slope->data;
  double r = (double) in->scale / out->scale;
  int64_t c;

  if (slope->kind != SIMNPU_TENSOR_CONSTANT || slope->dtype != SIMNPU_DTYPE_I8)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "slope must be an i8 constant");
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  if (r > SIMNPU_MAX_PRELU_RATIO)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 128");
  op->eltwise_mult[0] = eltwise_multiplier (r);
  g_free (op->table);
  op->table = NULL;
  /* shape-only graphs have no slope values */
  if (sq == NULL)
    return 0;
  op->table = g_new (int32_t, 2 * ch);
  for (c = 0; c < ch; c++) {
    int64_t k = n_slope == 1 ? 0 : c;
    float ss = slope->n_channel_scales ? slope->channel_scales[k] :
        slope->scale;
    double v = (double) ss * (sq[k] - (slope->n_channel_scales ? 0 :
            slope->zero_point));
    if (fabs (v) * r > SIMNPU_MAX_PRELU_RATIO)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "slope times input/output scale ratio above 128");
    simnpu__eltwise_split (eltwise_multiplier (v * r), &op->table[c],
        &op->table[ch + c]);
  }
  return 0;
}

/* gather moves bytes: the output keeps the data's quantisation */
int
simnpu__op_prepare_gather (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  int ret = simnpu__op_prepare_same_quant (g, op, oi, error);

  if (ret == 0)
    op->weight_bytes = simnpu__tensor_bytes (&g->tensors[op->inputs[1]]);
  return ret;
}

/* select requantises each operand to the output, as concat does */
int
simnpu__op_prepare_select (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  unsigned i;

  for (i = 1; i < 3; i++) {
    const simnpu__tensor *t = &g->tensors[op->inputs[i]];
    double r = (double) t->scale / out->scale;
    if (r > SIMNPU_MAX_ELTWISE_RATIO)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "input/output scale ratio above 4096");
    op->eltwise_mult[i] = eltwise_multiplier (r);
  }
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  op->weight_bytes = simnpu__tensor_bytes (&g->tensors[op->inputs[0]]);
  return 0;
}

int
simnpu__op_prepare_lut (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *table = &g->tensors[op->inputs[1]];

  (void) oi;
  (void) error;
  if (table->data != NULL)
    memcpy (op->lut, table->data, LUT_ENTRIES);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* unary ops with float parameters, built into a table */
int
simnpu__op_prepare_lut_params (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  float p0 = simnpu__attr_float (op->attrs[SIMNPU_A_F0]);
  float p1 = simnpu__attr_float (op->attrs[SIMNPU_A_F1]);

  if (op->type == SIMNPU_OP_CLIP) {
    if (isnan (p0) || isnan (p1) || p0 > p1)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "clip bounds must be numbers with min <= max");
  } else if (!isfinite (p0) || ((op->type == SIMNPU_OP_HARD_SIGMOID)
          && !isfinite (p1))) {
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "alpha and beta must be finite numbers");
  }
  simnpu__build_lut_params (op->type, p0, p1, in->scale, in->zero_point,
      out->scale, out->zero_point, op->lut);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* unary ops without parameters, built into a table */
int
simnpu__op_prepare_lut_fixed (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];

  (void) oi;
  (void) error;
  simnpu__build_lut (op->type, in->scale, in->zero_point, out->scale,
      out->zero_point, op->lut);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

int
simnpu__op_prepare_concat (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  unsigned i;

  for (i = 0; i < op->n_inputs; i++) {
    const simnpu__tensor *t = &g->tensors[op->inputs[i]];
    double r = (double) t->scale / out->scale;
    if (t->kind == SIMNPU_TENSOR_CONSTANT && t->dtype != SIMNPU_DTYPE_I8)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "constant inputs must be i8");
    if (r > SIMNPU_MAX_ELTWISE_RATIO)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "input/output scale ratio above 4096");
    op->eltwise_mult[i] = eltwise_multiplier (r);
  }
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* softmax's output is a probability with its own quantisation */
int
simnpu__op_prepare_softmax (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];

  if (in->kind == SIMNPU_TENSOR_CONSTANT && in->dtype != SIMNPU_DTYPE_I8)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi, "input must be i8");
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* data movement and pools keep the input's quantisation */
int
simnpu__op_prepare_same_quant (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  unsigned i;

  for (i = 0; i < op->n_outputs; i++) {
    const simnpu__tensor *t = &g->tensors[op->outputs[i]];
    if (t->scale != in->scale || t->zero_point != in->zero_point)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "output quantisation must equal the input's for this op");
  }
  return simnpu__op_prepare_softmax (g, op, oi, error);
}

int
simnpu__op_prepare_pool (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  int ret = simnpu__op_prepare_same_quant (g, op, oi, error);

  if (ret < 0)
    return ret;
  op->macs *= (uint64_t) op->attrs[SIMNPU_A_KH] * op->attrs[SIMNPU_A_KW];
  return 0;
}

static int
prepare_op (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__op_def *def = op_def (op->type);
  unsigned i;

  for (i = 0; i < op->n_inputs; i++) {
    /* constant parameters (conv weights i8 and bias i32) are checked by
     * the op */
    if (def != NULL && def->n_params > 0 && i >= PARAMS_FROM)
      break;
    if (g->tensors[op->inputs[i]].dtype != SIMNPU_DTYPE_I8)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "data inputs must be i8 tensors");
  }
  if (def == NULL)
    return simnpu__op_prepare_same_quant (g, op, oi, error);
  return def->prepare (g, op, oi, error);
}

/* The live range of every tensor of the arena, in op steps: from the op
 * that makes it (inputs: the first step) to the last op that reads it
 * (outputs: past the last op, the caller reads them after the run);
 * constants are not in the arena (bytes 0). */
static simnpu__live_buffer *
live_ranges (const simnpu__graph * g)
{
  simnpu__live_buffer *b = g_new0 (simnpu__live_buffer, MAX (g->n_tensors,
          1));
  unsigned i, k;

  for (i = 0; i < g->n_tensors; i++) {
    b[i].first = (int) g->n_ops;
    b[i].last = 0;
    if (g->tensors[i].kind != SIMNPU_TENSOR_CONSTANT)
      b[i].bytes = simnpu__tensor_bytes (&g->tensors[i]);
  }
  for (i = 0; i < g->n_inputs; i++)
    b[g->inputs[i]].first = 0;
  for (i = 0; i < g->n_ops; i++) {
    const simnpu__op *op = &g->ops[i];
    for (k = 0; k < op->n_inputs; k++)
      b[op->inputs[k]].last = MAX (b[op->inputs[k]].last, (int) i);
    for (k = 0; k < op->n_outputs; k++) {
      simnpu__live_buffer *o = &b[op->outputs[k]];
      o->first = MIN (o->first, (int) i);
      o->last = MAX (o->last, (int) i);
    }
  }
  for (i = 0; i < g->n_outputs; i++)
    b[g->outputs[i]].last = (int) g->n_ops;
  /* a tensor no op makes or reads (a validated graph has none) */
  for (i = 0; i < g->n_tensors; i++)
    if (b[i].first > b[i].last)
      b[i].first = b[i].last;
  return b;
}

void
simnpu__graph_plan_memory (const simnpu__graph * g, size_t *planned_bytes,
    size_t *flat_bytes)
{
  simnpu__live_buffer *b = live_ranges (g);

  if (planned_bytes != NULL)
    *planned_bytes = simnpu__memplan (b, g->n_tensors, SIMNPU_ARENA_ALIGN);
  if (flat_bytes != NULL)
    *flat_bytes = simnpu__memplan_flat (b, g->n_tensors, SIMNPU_ARENA_ALIGN);
  g_free (b);
}

/* The arena's layout: planned, or each tensor apart when the caller
 * reads every tensor after a run (keep_tensors). */
static int
place_tensors (simnpu__graph * g, simnpu_error * error)
{
  simnpu__live_buffer *b = live_ranges (g);
  size_t flat, planned;
  unsigned i;

  /* the flat plan last: its offsets are the ones kept */
  planned = simnpu__memplan (b, g->n_tensors, SIMNPU_ARENA_ALIGN);
  if (!g->keep_tensors)
    for (i = 0; i < g->n_tensors; i++)
      g->tensors[i].offset = b[i].offset;
  flat = simnpu__memplan_flat (b, g->n_tensors, SIMNPU_ARENA_ALIGN);
  if (g->keep_tensors)
    for (i = 0; i < g->n_tensors; i++)
      g->tensors[i].offset = b[i].offset;
  g_free (b);
  g->arena_planned_bytes = planned;
  g->arena_flat_bytes = flat;
  g->arena_bytes = g->keep_tensors ? flat : planned;
  /* shape-only graphs never allocate their activations */
  if (planned > SIMNPU_MAX_ARENA_BYTES && !g->estimate_only)
    return simnpu__set_error (error, SIMNPU_ENOMEM, "the device section "
        "needs %.1f MB of memory for its activations (%.1f MB without the "
        "plan); the runtime loads at most %" G_GUINT64_FORMAT " MiB",
        planned / 1e6, flat / 1e6, (guint64) (SIMNPU_MAX_ARENA_BYTES >> 20));
  return 0;
}

int
simnpu__graph_prepare (simnpu__graph * g, simnpu_error * error)
{
  unsigned i;
  int ret;

  g->total_macs = 0;
  g->weight_bytes = 0;
  g->scratch_bytes = 0;
  if ((ret = place_tensors (g, error)) < 0)
    return ret;
  for (i = 0; i < g->n_ops; i++) {
    simnpu__op *op = &g->ops[i];
    if ((ret = prepare_op (g, op, i, error)) < 0)
      return ret;
    g->total_macs += op->macs;
    g->weight_bytes += op->weight_bytes;
  }
  return 0;
}
