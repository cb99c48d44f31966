/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The imports of element-wise ONNX ops: arithmetic, comparisons and
 * logic, activations (with their ONNX default parameters), Cast, Clip,
 * the quantize ops, and MatMul / Gemm. */

#include "onnx-private.h"

#include <float.h>

#define ONNX_DEFAULT_LEAKY_ALPHA 0.01f
#define ONNX_DEFAULT_SELU_ALPHA 1.67326319217681884765625f
#define ONNX_DEFAULT_SELU_GAMMA 1.05070102214813232421875f
#define ONNX_DEFAULT_HARD_SIGMOID_ALPHA 0.2f
#define ONNX_DEFAULT_HARD_SIGMOID_BETA 0.5f

static int
imp_simple (onnx_ctx * c, const onnx_op * op, unsigned n_in,
    const simnpu__ir_attrs * a)
{
  int ins[SIMNPU_IR_MAX_INPUTS], out, ret;
  unsigned i;

  if (c->node->n_input != n_in)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%zu inputs (expected %u)",
        c->node->n_input, n_in);
  for (i = 0; i < n_in; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  if ((ret = simnpu__onnx_check_outputs (c, 1)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, op->ir, ins, n_in, &out, 1, a);
}

int
simnpu__onnx_imp_unary (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  simnpu__onnx_attrs_init (&a);
  switch (op->ir) {
    case SIMNPU_IR_LEAKY_RELU:
      a.f[0] = simnpu__onnx_attr_float (c, "alpha", ONNX_DEFAULT_LEAKY_ALPHA);
      break;
    case SIMNPU_IR_ELU:
      a.f[0] = simnpu__onnx_attr_float (c, "alpha", 1.0f);
      break;
    case SIMNPU_IR_SELU:
      a.f[0] = simnpu__onnx_attr_float (c, "alpha", ONNX_DEFAULT_SELU_ALPHA);
      a.f[1] = simnpu__onnx_attr_float (c, "gamma", ONNX_DEFAULT_SELU_GAMMA);
      break;
    case SIMNPU_IR_HARD_SIGMOID:
      a.f[0] =
          simnpu__onnx_attr_float (c, "alpha", ONNX_DEFAULT_HARD_SIGMOID_ALPHA);
      a.f[1] =
          simnpu__onnx_attr_float (c, "beta", ONNX_DEFAULT_HARD_SIGMOID_BETA);
      break;
    default:
      break;
  }
  return imp_simple (c, op, 1, &a);
}

int
simnpu__onnx_imp_dropout (onnx_ctx * c, const onnx_op * op)
{
  int x, ratio, train, out, ret;
  float v;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 1, &ratio)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &train)) < 0)
    return ret;
  if (train != SIMNPU_IR_NONE) {
    if ((ret = simnpu__onnx_const_float (c, train, "training_mode", &v)) < 0)
      return ret;
    if (v != 0) {
      float r = 0.5f;
      /* training with ratio 0 drops nothing either */
      if (ratio == SIMNPU_IR_NONE
          || simnpu__onnx_const_float (c, ratio, "ratio", &r) < 0 || r != 0.0f)
        return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
            "training mode is not supported");
    }
  }
  if ((ret = simnpu__onnx_check_outputs (c, 2)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if ((ret =
          simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &x, 1, &out, 1, NULL)) < 0)
    return ret;
  if (c->node->n_output > 1 && c->node->output[1] != NULL
      && c->node->output[1][0] != '\0') {
    /* outside training nothing is dropped: the mask is all true */
    int64_t n = simnpu__ir_tensor_elements (T (c, x));
    int64_t dims[SIMNPU_IR_MAX_RANK];
    unsigned rank = T (c, x)->rank;
    uint8_t *ones;
    int k, mask;
    if (n > ONNX_MAX_FOLD_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ENOMEM, "mask above %" G_GINT64_FORMAT
          " elements", (gint64) ONNX_MAX_FOLD_ELEMENTS);
    ones = g_malloc (MAX (n, 1));
    memset (ones, 1, MAX (n, 1));
    memcpy (dims, T (c, x)->dims, sizeof dims);
    k = simnpu__onnx_add_const (c, SIMNPU_IR_BOOL, rank, dims, ones);
    g_free (ones);
    if ((ret = simnpu__onnx_out (c, 1, &mask)) < 0)
      return ret;
    return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &mask, 1, NULL);
  }
  return 0;
}

int
simnpu__onnx_imp_binary (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 2, NULL);
}

int
simnpu__onnx_imp_pow (onnx_ctx * c, const onnx_op * op)
{
  int ins[2], out, ret;
  simnpu__ir_attrs a;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (T (c, ins[1])->dtype != T (c, ins[0])->dtype) {
    int e;
    simnpu__onnx_attrs_init (&a);
    a.dtype = T (c, ins[0])->dtype;
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CAST, ins[1], &e, &a)) < 0)
      return ret;
    ins[1] = e;
  }
  return simnpu__onnx_emit (c, SIMNPU_IR_POW, ins, 2, &out, 1, NULL);
}

int
simnpu__onnx_imp_mod (onnx_ctx * c, const onnx_op * op)
{
  int x, y, q, t, ty, out, ret;

  if (simnpu__onnx_attr_int (c, "fmod", 0) == 0)
    return imp_simple (c, op, 2, NULL);
  /* fmod: x - trunc (x / y) * y, the sign of the dividend; integer
   * division truncates already */
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &y)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  q = simnpu__onnx_tmp (c);
  ty = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, y, q)) < 0)
    return ret;
  t = q;
  if (T (c, x)->dtype == SIMNPU_IR_F32) {
    int ab, fl, sg;
    t = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ABS, q, &ab, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_FLOOR, ab, &fl, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SIGN, q, &sg, NULL)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, sg, fl, t)) < 0)
      return ret;
  }
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, t, y, ty)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, ty, out);
}

int
simnpu__onnx_imp_where (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 3, NULL);
}

/* Max, Min: n-ary IR ops; Sum, Mean: chains of adds */
int
simnpu__onnx_imp_variadic (onnx_ctx * c, const onnx_op * op)
{
  int ins[SIMNPU_IR_MAX_INPUTS], out, ret, acc;
  unsigned i, n = c->node->n_input;

  if (n == 0 || n > SIMNPU_IR_MAX_INPUTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%u inputs (expected 1 to %d)", n, SIMNPU_IR_MAX_INPUTS);
  for (i = 0; i < n; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (op->ir != SIMNPU_IR_ADD || n == 1) {
    if (n == 1)
      return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, ins, 1, &out, 1, NULL);
    return simnpu__onnx_emit (c, op->ir, ins, n, &out, 1, NULL);
  }
  acc = ins[0];
  for (i = 1; i < n; i++) {
    int pair[2] = { acc, ins[i] };
    bool last = i + 1 == n && strcmp (op->name, "Sum") == 0;
    int o = last ? out : simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_ADD, pair, 2, &o, 1, NULL)) < 0)
      return ret;
    acc = o;
  }
  if (strcmp (op->name, "Mean") == 0) {
    int pair[2] = { acc, simnpu__onnx_scalar_f32 (c, (float) n) };
    return simnpu__onnx_emit (c, SIMNPU_IR_DIV, pair, 2, &out, 1, NULL);
  }
  return 0;
}

int
simnpu__onnx_imp_clip (onnx_ctx * c, const onnx_op * op)
{
  int x, lo, hi, out, ret;
  simnpu__ir_attrs a;

  simnpu__onnx_attrs_init (&a);
  a.f[0] = -INFINITY;
  a.f[1] = INFINITY;
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 1, &lo)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &hi)) < 0)
    return ret;
  if (c->opset < 11) {
    /* attributes before opset 11 */
    a.f[0] = simnpu__onnx_attr_float (c, "min", -FLT_MAX);
    a.f[1] = simnpu__onnx_attr_float (c, "max", FLT_MAX);
    lo = hi = SIMNPU_IR_NONE;
  }
  if (lo != SIMNPU_IR_NONE
      && (ret = simnpu__onnx_const_float (c, lo, "min", &a.f[0])) < 0)
    return ret;
  if (hi != SIMNPU_IR_NONE
      && (ret = simnpu__onnx_const_float (c, hi, "max", &a.f[1])) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CLIP, &x, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_cast (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, out, ret;

  simnpu__onnx_attrs_init (&a);
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (strcmp (op->name, "CastLike") == 0) {
    int like;
    if ((ret = simnpu__onnx_in (c, 1, &like)) < 0)
      return ret;
    a.dtype = T (c, like)->dtype;
  } else {
    int64_t to = simnpu__onnx_attr_int (c, "to", 0);
    if (!simnpu__onnx_dtype_from_attr (to, &a.dtype))
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "cast to %s is not supported",
          simnpu__onnx_dtype_name ((int32_t) to));
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &x, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_range (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 3, NULL);
}

int
simnpu__onnx_imp_matmul (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 2, NULL);
}

static int
onnx_scale (onnx_ctx * c, int x, float s, int *out)
{
  int pair[2] = { x, simnpu__onnx_scalar_f32 (c, s) };
  *out = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, out, 1, NULL);
}

int
simnpu__onnx_imp_gemm (onnx_ctx * c, const onnx_op * op)
{
  static const int64_t swap[] = { 1, 0 };
  int ab[2], cc, out, ret, y, i;
  float alpha = simnpu__onnx_attr_float (c, "alpha", 1.0f);
  float beta = simnpu__onnx_attr_float (c, "beta", 1.0f);
  bool trans[2];

  trans[0] = simnpu__onnx_attr_int (c, "transA", 0) != 0;
  trans[1] = simnpu__onnx_attr_int (c, "transB", 0) != 0;
  if ((ret = simnpu__onnx_in (c, 0, &ab[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ab[1])) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &cc)) < 0)
    return ret;
  for (i = 0; i < 2; i++) {
    if (T (c, ab[i])->rank != 2)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "input %d of rank %u (expected 2)", i, T (c, ab[i])->rank);
    if (trans[i]) {
      int t = simnpu__onnx_tmp (c);
      if ((ret = simnpu__onnx_emit_transpose (c, ab[i], t, swap, 2)) < 0)
        return ret;
      ab[i] = t;
    }
  }
  /* alpha on the constant operand when there is one */
  if (alpha != 1.0f) {
    int k = T (c, ab[1])->is_const ? 1 : 0;
    if ((ret = onnx_scale (c, ab[k], alpha, &ab[k])) < 0)
      return ret;
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (cc == SIMNPU_IR_NONE || beta == 0.0f)
    return simnpu__onnx_emit (c, SIMNPU_IR_MATMUL, ab, 2, &out, 1, NULL);
  y = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_MATMUL, ab, 2, &y, 1, NULL)) < 0)
    return ret;
  if (beta != 1.0f && (ret = onnx_scale (c, cc, beta, &cc)) < 0)
    return ret;
  {
    int pair[2] = { y, cc };
    return simnpu__onnx_emit (c, SIMNPU_IR_ADD, pair, 2, &out, 1, NULL);
  }
}

int
simnpu__onnx_imp_identity (onnx_ctx * c, const onnx_op * op)
{
  return imp_simple (c, op, 1, NULL);
}

/* x * tanh (softplus (x)) */
int
simnpu__onnx_imp_mish (onnx_ctx * c, const onnx_op * op)
{
  int x, sp, th, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SOFTPLUS, x, &sp, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_TANH, sp, &th, NULL)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int pair[2] = { x, th };
    return simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, &out, 1, NULL);
  }
}

/* where (x > alpha, x, 0) */
int
simnpu__onnx_imp_thresholded_relu (onnx_ctx * c, const onnx_op * op)
{
  int x, gt, out, ret;
  float zero = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  gt = simnpu__onnx_tmp (c);
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_GREATER, x,
              simnpu__onnx_scalar_f32 (c, simnpu__onnx_attr_float (c, "alpha",
                      1.0f)), gt)) < 0)
    return ret;
  {
    int ins[3] = { gt, x, simnpu__onnx_scalar_f32 (c, zero) };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* a per-axis [C] parameter as [C, 1, ...] against x, in F32 */
static int
onnx_axis_param (onnx_ctx * c, int x, int p, int64_t axis_attr, int *out)
{
  /* copies: adding tensors may move the array */
  unsigned prank = T (c, p)->rank, rank = T (c, x)->rank, r;
  int64_t pn = simnpu__ir_tensor_elements (T (c, p));
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int32_t axis = 0;
  int ret, f;

  if ((ret = simnpu__onnx_cast (c, p, SIMNPU_IR_F32, &f)) < 0)
    return ret;
  if (prank == 0 || pn == 1) {
    *out = f;
    return 0;
  }
  if (prank != 1)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scale or zero point of rank %u "
        "(expected a scalar or 1-D)", prank);
  if ((ret = simnpu__onnx_norm_axis (c, axis_attr, rank, &axis)) < 0)
    return ret;
  r = simnpu__onnx_axis_dims (rank, axis, pn, dims);
  *out = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit_reshape (c, f, *out, dims, r);
}

/* blocked quantisation (block_size, opset 21) is not read */
static int
onnx_check_block_size (onnx_ctx * c)
{
  int64_t b = simnpu__onnx_attr_int (c, "block_size", 0);

  if (b != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "block_size %" G_GINT64_FORMAT " (blocked quantisation) is not "
        "supported", b);
  return 0;
}

/* saturate (round (x / scale) + zero_point) */
int
simnpu__onnx_imp_quantize (onnx_ctx * c, const onnx_op * op)
{
  int64_t axis = simnpu__onnx_attr_int (c, "axis", 1);
  simnpu__ir_dtype dtype = SIMNPU_IR_U8;
  simnpu__ir_attrs a;
  int x, ts, tz, sc, zp, q, r, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &tz)) < 0)
    return ret;
  if ((ret = onnx_check_block_size (c)) < 0)
    return ret;
  if (tz != SIMNPU_IR_NONE)
    dtype = T (c, tz)->dtype;
  else if (simnpu__onnx_attr (c, "output_dtype") != NULL
      && !simnpu__onnx_dtype_to_ir (simnpu__onnx_attr_int (c, "output_dtype",
              0), &dtype))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "output_dtype %" G_GINT64_FORMAT " (uint8 or int8)",
        simnpu__onnx_attr_int (c, "output_dtype", 0));
  if (dtype != SIMNPU_IR_U8 && dtype != SIMNPU_IR_I8)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "output %s (uint8 or int8)", simnpu__ir_dtype_name (dtype));
  if ((ret = simnpu__onnx_cast (c, x, SIMNPU_IR_F32, &x)) < 0
      || (ret = onnx_axis_param (c, x, ts, axis, &sc)) < 0)
    return ret;
  q = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, sc, q)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ROUND, q, &r, NULL)) < 0)
    return ret;
  if (tz != SIMNPU_IR_NONE) {
    int s;
    if ((ret = onnx_axis_param (c, x, tz, axis, &zp)) < 0)
      return ret;
    s = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, r, zp, s)) < 0)
      return ret;
    r = s;
  }
  simnpu__onnx_attrs_init (&a);
  a.f[0] = dtype == SIMNPU_IR_U8 ? 0.0f : (float) G_MININT8;
  a.f[1] = dtype == SIMNPU_IR_U8 ? (float) G_MAXUINT8 : (float) G_MAXINT8;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CLIP, r, &q, &a)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  a.dtype = dtype;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &q, 1, &out, 1, &a);
}

/* (x - zero_point) * scale */
int
simnpu__onnx_imp_dequantize (onnx_ctx * c, const onnx_op * op)
{
  int64_t axis = simnpu__onnx_attr_int (c, "axis", 1);
  int x, ts, tz, sc, zp, xf, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &tz)) < 0
      || (ret = onnx_check_block_size (c)) < 0)
    return ret;
  if ((ret = simnpu__onnx_cast (c, x, SIMNPU_IR_F32, &xf)) < 0
      || (ret = onnx_axis_param (c, x, ts, axis, &sc)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (tz != SIMNPU_IR_NONE) {
    int d = simnpu__onnx_tmp (c);
    if ((ret = onnx_axis_param (c, x, tz, axis, &zp)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, xf, zp, d)) < 0)
      return ret;
    xf = d;
  }
  return simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, xf, sc, out);
}

/* where (x < -lambd, x + bias, where (x > lambd, x - bias, 0)) */
int
simnpu__onnx_imp_shrink (onnx_ctx * c, const onnx_op * op)
{
  float lambd = simnpu__onnx_attr_float (c, "lambd", 0.5f);
  float bias = simnpu__onnx_attr_float (c, "bias", 0.0f);
  int x, lo, hi, xp, xm, inner, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "%s input (float only)",
        simnpu__ir_dtype_name (T (c, x)->dtype));
  lo = simnpu__onnx_tmp (c);
  hi = simnpu__onnx_tmp (c);
  xp = simnpu__onnx_tmp (c);
  xm = simnpu__onnx_tmp (c);
  inner = simnpu__onnx_tmp (c);
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, x, simnpu__onnx_scalar_f32 (c,
                  -lambd), lo)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_GREATER, x,
              simnpu__onnx_scalar_f32 (c, lambd), hi)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, x, simnpu__onnx_scalar_f32 (c,
                  bias), xp)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, simnpu__onnx_scalar_f32 (c,
                  bias), xm)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int in1[3] = { hi, xm, simnpu__onnx_scalar_f32 (c, 0.0f) };
    int in2[3] = { lo, xp, inner };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, in1, 3, &inner, 1,
                NULL)) < 0)
      return ret;
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, in2, 3, &out, 1, NULL);
  }
}

/* hyperbolic functions from exp, log and sqrt */
int
simnpu__onnx_imp_hyperbolic (onnx_ctx * c, const onnx_op * op)
{
  const char *name = op->name;
  int x, out, ret, t1, t2, t3;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  t1 = simnpu__onnx_tmp (c);
  t2 = simnpu__onnx_tmp (c);
  t3 = simnpu__onnx_tmp (c);
  if (strcmp (name, "Sinh") == 0 || strcmp (name, "Cosh") == 0) {
    int e, n, en;
    /* (exp (x) -+ exp (-x)) / 2 */
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_EXP, x, &e, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_NEG, x, &n, NULL)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_EXP, n, &en, NULL)) < 0
        || (ret = simnpu__onnx_emit2 (c, name[0] == 'S' ? SIMNPU_IR_SUB :
                SIMNPU_IR_ADD, e, en, t1)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, t1, simnpu__onnx_scalar_f32 (c,
            0.5f), out);
  }
  if (strcmp (name, "Atanh") == 0) {
    int one = simnpu__onnx_scalar_f32 (c, 1.0f), l;
    /* log ((1 + x) / (1 - x)) / 2 */
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, one, x, t1)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, one, x, t2)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, t1, t2, t3)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_LOG, t3, &l, NULL)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, l, simnpu__onnx_scalar_f32 (c,
            0.5f), out);
  }
  {
    /* log (x + sqrt (x * x +- 1)) */
    int sq, t4 = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, x, x, t1)) < 0
        || (ret = simnpu__onnx_emit2 (c, strcmp (name, "Asinh") == 0 ?
                SIMNPU_IR_ADD : SIMNPU_IR_SUB, t1, simnpu__onnx_scalar_f32 (c,
                    1.0f), t2)) < 0
        || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, t2, &sq, NULL)) < 0
        || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, x, sq, t4)) < 0)
      return ret;
    return simnpu__onnx_emit (c, SIMNPU_IR_LOG, &t4, 1, &out, 1, NULL);
  }
}

/* scale = (max (0, max x) - min (0, min x)) / 255, zero point =
 * saturate (round (-min / scale)), y = saturate (round (x / scale) + zp):
 * outputs y, y_scale, y_zero_point (uint8) */
int
simnpu__onnx_imp_dynamic_quantize (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs r, clip, cast;
  int x, mn, mx, mn0, mx0, range, scale, nmn, zf, zr, zc, q, qr, qz, qc;
  int y, ys, yz, ret;
  unsigned i;
  float zero = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &y)) < 0
      || (ret = simnpu__onnx_out (c, 1, &ys)) < 0
      || (ret = simnpu__onnx_out (c, 2, &yz)) < 0)
    return ret;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "input must be float");
  simnpu__onnx_attrs_init (&r);
  for (i = 0; i < T (c, x)->rank; i++)
    r.ints[r.n_ints++] = i;
  simnpu__onnx_attrs_init (&clip);
  clip.f[0] = 0.0f;
  clip.f[1] = (float) G_MAXUINT8;
  simnpu__onnx_attrs_init (&cast);
  cast.dtype = SIMNPU_IR_U8;
  mn0 = simnpu__onnx_tmp (c);
  mx0 = simnpu__onnx_tmp (c);
  range = simnpu__onnx_tmp (c);
  nmn = simnpu__onnx_tmp (c);
  q = simnpu__onnx_tmp (c);
  qz = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MIN, x, &mn, &r)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MAX, x, &mx, &r)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MINIMUM, mn,
              simnpu__onnx_scalar_f32 (c, zero), mn0)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MAXIMUM, mx,
              simnpu__onnx_scalar_f32 (c, zero), mx0)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, mx0, mn0, range)) < 0)
    return ret;
  scale = ys;
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, range,
              simnpu__onnx_scalar_f32 (c, (float) G_MAXUINT8), scale)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, mn0, scale, nmn)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_NEG, nmn, &zf, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ROUND, zf, &zr, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CLIP, zr, &zc, &clip)) < 0
      || (ret =
          simnpu__onnx_emit (c, SIMNPU_IR_CAST, &zc, 1, &yz, 1, &cast)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, scale, q)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ROUND, q, &qr, NULL)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, qr, zc, qz)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CLIP, qz, &qc, &clip)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &qc, 1, &y, 1, &cast);
}

/* x != x */
int
simnpu__onnx_imp_isnan (onnx_ctx * c, const onnx_op * op)
{
  int x, eq, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  eq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, x, x, eq)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_NOT, &eq, 1, &out, 1, NULL);
}

/* |x| == inf, or x == +inf / -inf when only one sign is detected */
int
simnpu__onnx_imp_isinf (onnx_ctx * c, const onnx_op * op)
{
  bool pos = simnpu__onnx_attr_int (c, "detect_positive", 1) != 0;
  bool neg = simnpu__onnx_attr_int (c, "detect_negative", 1) != 0;
  int x, v, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (!pos && !neg) {
    int eq = simnpu__onnx_tmp (c);
    /* never true: x == x and x != x */
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, x, x, eq)) < 0)
      return ret;
    v = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_NOT, &eq, 1, &v, 1, NULL)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_AND, eq, v, out);
  }
  v = x;
  if (pos && neg
      && (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ABS, x, &v, NULL)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, v, simnpu__onnx_scalar_f32 (c,
          neg && !pos ? -INFINITY : INFINITY), out);
}

/* alpha * elu (x / alpha) */
int
simnpu__onnx_imp_celu (onnx_ctx * c, const onnx_op * op)
{
  float alpha = simnpu__onnx_attr_float (c, "alpha", 1.0f);
  simnpu__ir_attrs a;
  int x, d, e, out, ret;

  if (alpha == 0.0f)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "alpha 0");
  simnpu__onnx_attrs_init (&a);
  a.f[0] = 1.0f;
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = onnx_scale (c, x, 1.0f / alpha, &d)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ELU, d, &e, &a)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int pair[2] = { e, simnpu__onnx_scalar_f32 (c, alpha) };
    return simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, &out, 1, NULL);
  }
}

/* sin / cos */
int
simnpu__onnx_imp_tan (onnx_ctx * c, const onnx_op * op)
{
  int x, s, co, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SIN, x, &s, NULL)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_COS, x, &co, NULL)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int pair[2] = { s, co };
    return simnpu__onnx_emit (c, SIMNPU_IR_DIV, pair, 2, &out, 1, NULL);
  }
}
