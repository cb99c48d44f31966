/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The imports of ONNX ops that reduce along axes, and of those built on
 * reductions: Softmax, ArgMax / ArgMin, Hardmax, the normalizations
 * (batch, layer, instance, mean-variance, LRN), CumSum and the losses. */

#include "onnx-private.h"

#define ONNX_DEFAULT_BN_EPSILON 1e-5f
#define ONNX_REDUCE_SUM_AXES_INPUT_OPSET 13
#define ONNX_REDUCE_AXES_INPUT_OPSET 18
/* Softmax, LogSoftmax and Hardmax: the 2-D coercion ends at opset 13 */
#define ONNX_SOFTMAX_AXIS_OPSET 13

int
simnpu__onnx_imp_softmax (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, out, ret;
  unsigned rank, i;
  int32_t axis = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (rank == 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scalar input");
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis",
                  c->opset < ONNX_SOFTMAX_AXIS_OPSET ? 1 : -1), rank,
              &axis)) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if (c->opset < ONNX_SOFTMAX_AXIS_OPSET && axis != (int32_t) rank - 1) {
    /* before opset 13 the input is coerced to 2-D at axis */
    int64_t d2[2] = { 1, 1 };
    int r, s;
    for (i = 0; i < rank; i++)
      d2[i < (unsigned) axis ? 0 : 1] *= T (c, x)->dims[i];
    r = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit_reshape (c, x, r, d2, 2)) < 0)
      return ret;
    a.axis = 1;
    if ((ret = simnpu__onnx_emit1 (c, op->ir, r, &s, &a)) < 0)
      return ret;
    return simnpu__onnx_emit_reshape (c, s, out, T (c, x)->dims, rank);
  }
  a.axis = axis;
  return simnpu__onnx_emit (c, op->ir, &x, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_reduce (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t axes[SIMNPU_IR_MAX_INTS];
  int x, out, ret, n = -1, i;
  unsigned rank;
  const char *name = op->name;
  /* the axes moved from an attribute to an input: ReduceSum's at opset
   * 13, the other reductions' at 18 */
  bool axes_input = c->opset >= (strcmp (name, "ReduceSum") == 0 ?
      ONNX_REDUCE_SUM_AXES_INPUT_OPSET : ONNX_REDUCE_AXES_INPUT_OPSET);
  int cur, t;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  a.keepdims = simnpu__onnx_attr_int (c, "keepdims", 1) != 0;
  if (axes_input) {
    int ta;
    if ((ret = simnpu__onnx_opt_in (c, 1, &ta)) < 0)
      return ret;
    if (ta != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_INTS,
                &n)) < 0)
      return ret;
  } else if ((ret = simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_INTS,
              &n)) < 0) {
    return ret;
  }
  if (n <= 0) {
    if (axes_input && simnpu__onnx_attr_int (c, "noop_with_empty_axes", 0) != 0) {
      if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
        return ret;
      return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &x, 1, &out, 1, NULL);
    }
    n = 0;
  }
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], rank, &ax)) < 0)
      return ret;
    a.ints[i] = ax;
  }
  a.n_ints = n;
  if (n == 0 && rank > 0) {
    /* all axes, explicitly */
    for (i = 0; i < (int) rank; i++)
      a.ints[i] = i;
    a.n_ints = rank;
  }
  if ((ret = simnpu__onnx_check_outputs (c, 1)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;

  cur = x;
  if (strcmp (name, "ReduceL1") == 0) {
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ABS, cur, &t, NULL)) < 0)
      return ret;
    cur = t;
  } else if (strcmp (name, "ReduceL2") == 0
      || strcmp (name, "ReduceSumSquare") == 0) {
    int pair[2] = { cur, cur };
    t = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_MUL, pair, 2, &t, 1, NULL)) < 0)
      return ret;
    cur = t;
  } else if (strcmp (name, "ReduceLogSumExp") == 0) {
    if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_EXP, cur, &t, NULL)) < 0)
      return ret;
    cur = t;
  }
  if (strcmp (name, "ReduceL2") == 0 || strcmp (name, "ReduceLogSum") == 0
      || strcmp (name, "ReduceLogSumExp") == 0) {
    if ((ret = simnpu__onnx_emit1 (c, op->ir, cur, &t, &a)) < 0)
      return ret;
    return simnpu__onnx_emit (c, strcmp (name,
            "ReduceL2") == 0 ? SIMNPU_IR_SQRT : SIMNPU_IR_LOG, &t, 1, &out, 1,
        NULL);
  }
  return simnpu__onnx_emit (c, op->ir, &cur, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_arg (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, out, ret;

  bool last = simnpu__onnx_attr_int (c, "select_last_index", 0) != 0;
  simnpu__ir_attrs s;
  unsigned r, rank;
  int rev, idx;
  int64_t dim;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0), rank,
              &a.axis)) < 0)
    return ret;
  a.keepdims = simnpu__onnx_attr_int (c, "keepdims", 1) != 0;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (!last)
    return simnpu__onnx_emit (c, op->ir, &x, 1, &out, 1, &a);
  /* the last extremum is the first of the reversed axis:
   * dim - 1 - arg (reverse (x)) */
  dim = T (c, x)->dims[a.axis];
  simnpu__onnx_attrs_init (&s);
  for (r = 0; r < rank; r++) {
    bool ax = r == (unsigned) a.axis;
    s.ints[r] = ax ? T (c, x)->dims[r] - 1 : 0;
    s.ints[rank + r] = ax ? -1 : T (c, x)->dims[r];
    s.steps[r] = ax ? -1 : 1;
  }
  s.n_ints = 2 * rank;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SLICE, x, &rev, &s)) < 0
      || (ret = simnpu__onnx_emit1 (c, op->ir, rev, &idx, &a)) < 0)
    return ret;
  {
    int64_t top = dim - 1;
    int pair[2] =
        { simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &top), idx };
    return simnpu__onnx_emit (c, SIMNPU_IR_SUB, pair, 2, &out, 1, NULL);
  }
}

int
simnpu__onnx_imp_batchnorm (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int ins[5], ret;
  unsigned i;

  if (c->node->n_input != 5)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "%zu inputs (expected 5)",
        c->node->n_input);
  for (i = 0; i < 5; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  if ((ret = simnpu__onnx_check_outputs (c, 1)) < 0)
    return ret;
  if (simnpu__onnx_attr_int (c, "training_mode", 0) != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "training mode");
  /* opset 7's spatial=0: statistics per element, not per channel */
  if (simnpu__onnx_attr_int (c, "spatial", 1) != 1)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "spatial=0 (per-element statistics) is not supported");
  simnpu__onnx_attrs_init (&a);
  a.f[0] = simnpu__onnx_attr_float (c, "epsilon", ONNX_DEFAULT_BN_EPSILON);
  return simnpu__onnx_emit_nhwc (c, SIMNPU_IR_BATCHNORM, ins, 5, &a);
}

static bool
onnx_has_output (onnx_ctx * c, unsigned k)
{
  return k < c->node->n_output && c->node->output[k] != NULL
      && c->node->output[k][0] != '\0';
}

/* (x - mean) / sqrt (var + epsilon) * scale + bias over the axes from
 * axis on; outputs Y, Mean, InvStdDev */
int
simnpu__onnx_imp_layer_norm (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, scale, bias, mean, d, dd, var, ve, sd, inv, nrm, ys, y, ret;
  unsigned rank, i;
  int32_t axis = 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &scale)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &bias)) < 0
      || (ret = simnpu__onnx_check_outputs (c, 3)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &axis)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  for (i = axis; i < rank; i++)
    a.ints[a.n_ints++] = i;
  a.keepdims = true;
  if ((ret = simnpu__onnx_out (c, 0, &y)) < 0)
    return ret;
  if (onnx_has_output (c, 1)) {
    if ((ret = simnpu__onnx_out (c, 1, &mean)) < 0)
      return ret;
  } else {
    mean = simnpu__onnx_tmp (c);
  }
  if (onnx_has_output (c, 2)) {
    if ((ret = simnpu__onnx_out (c, 2, &inv)) < 0)
      return ret;
  } else {
    inv = simnpu__onnx_tmp (c);
  }
  d = simnpu__onnx_tmp (c);
  dd = simnpu__onnx_tmp (c);
  ve = simnpu__onnx_tmp (c);
  nrm = simnpu__onnx_tmp (c);
  ys = bias != SIMNPU_IR_NONE ? simnpu__onnx_tmp (c) : y;
  if ((ret =
          simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_MEAN, &x, 1, &mean, 1, &a)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, mean, d)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, d, dd)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, dd, &var, &a)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, var, simnpu__onnx_scalar_f32 (c,
                  simnpu__onnx_attr_float (c, "epsilon",
                      ONNX_DEFAULT_BN_EPSILON)), ve)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, ve, &sd, NULL)) < 0
      || (ret =
          simnpu__onnx_emit (c, SIMNPU_IR_RECIPROCAL, &sd, 1, &inv, 1,
              NULL)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, inv, nrm)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, nrm, scale, ys)) < 0)
    return ret;
  if (bias != SIMNPU_IR_NONE)
    return simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, ys, bias, y);
  return 0;
}

/* per (sample, channel) over the spatial axes:
 * (x - mean) / sqrt (var + epsilon) * scale[c] + bias[c] */
int
simnpu__onnx_imp_instance_norm (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t cdims[SIMNPU_IR_MAX_RANK];
  int x, scale, bias, mean, d, dd, var, ve, sd, nrm, s2, b2, ys, y, ret;
  unsigned rank, i;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &scale)) < 0
      || (ret = simnpu__onnx_in (c, 2, &bias)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (rank < 3)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 3)", rank);
  simnpu__onnx_attrs_init (&a);
  for (i = 2; i < rank; i++)
    a.ints[a.n_ints++] = i;
  a.keepdims = true;
  /* scale and bias [C] broadcast as [C, 1, ...] */
  cdims[0] = T (c, x)->dims[1];
  for (i = 1; i + 1 < rank; i++)
    cdims[i] = 1;
  if ((ret = simnpu__onnx_out (c, 0, &y)) < 0)
    return ret;
  s2 = simnpu__onnx_tmp (c);
  b2 = simnpu__onnx_tmp (c);
  d = simnpu__onnx_tmp (c);
  dd = simnpu__onnx_tmp (c);
  ve = simnpu__onnx_tmp (c);
  nrm = simnpu__onnx_tmp (c);
  ys = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, scale, s2, cdims, rank - 1)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, bias, b2, cdims, rank - 1)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, x, &mean, &a)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, mean, d)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, d, dd)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, dd, &var, &a)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, var, simnpu__onnx_scalar_f32 (c,
                  simnpu__onnx_attr_float (c, "epsilon",
                      ONNX_DEFAULT_BN_EPSILON)), ve)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, ve, &sd, NULL)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, d, sd, nrm)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, nrm, s2, ys)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, ys, b2, y);
}

/* cast (argmax (x, axis) == iota, x's dtype) */
/* one-hot of the arg max along @axis of @x into @out */
static int
onnx_hardmax_on (onnx_ctx * c, int x, int32_t axis, int out)
{
  simnpu__ir_attrs a;
  int am, iota, eq, ret;
  unsigned rank = T (c, x)->rank;

  simnpu__onnx_attrs_init (&a);
  a.axis = axis;
  a.keepdims = true;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_ARGMAX, x, &am, &a)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, T (c, x)->dims[axis], rank, axis,
              &iota)) < 0)
    return ret;
  eq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, am, iota, eq)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  a.dtype = T (c, x)->dtype;
  return simnpu__onnx_emit (c, SIMNPU_IR_CAST, &eq, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_hardmax (onnx_ctx * c, const onnx_op * op)
{
  int x, out, ret;
  int32_t axis = 0;
  unsigned rank, i;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (rank == 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scalar input");
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis",
                  c->opset < ONNX_SOFTMAX_AXIS_OPSET ? 1 : -1), rank,
              &axis)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (c->opset < ONNX_SOFTMAX_AXIS_OPSET) {
    /* before opset 13 the input is coerced to 2-D at axis, as Softmax's */
    int64_t d2[2] = { 1, 1 };
    int r = simnpu__onnx_tmp (c), y = simnpu__onnx_tmp (c);
    for (i = 0; i < rank; i++)
      d2[i < (unsigned) axis ? 0 : 1] *= T (c, x)->dims[i];
    if ((ret = simnpu__onnx_emit_reshape (c, x, r, d2, 2)) < 0
        || (ret = onnx_hardmax_on (c, r, 1, y)) < 0)
      return ret;
    return simnpu__onnx_emit_reshape (c, y, out, T (c, x)->dims, rank);
  }
  return onnx_hardmax_on (c, x, axis, out);
}

#define ONNX_MVN_EPSILON 1e-9f

/* (x - mean) / (sqrt (var) + epsilon) over axes (default 0, 2, 3) */
int
simnpu__onnx_imp_mvn (onnx_ctx * c, const onnx_op * op)
{
  static const int64_t def_axes[] = { 0, 2, 3 };
  int64_t axes[SIMNPU_IR_MAX_RANK];
  simnpu__ir_attrs a;
  int x, mean, d, dd, var, sd, se, out, ret, n, i;
  unsigned rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret =
          simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_RANK, &n)) < 0)
    return ret;
  if (n < 0) {
    memcpy (axes, def_axes, sizeof def_axes);
    n = G_N_ELEMENTS (def_axes);
  }
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], rank, &ax)) < 0)
      return ret;
    a.ints[a.n_ints++] = ax;
  }
  a.keepdims = true;
  d = simnpu__onnx_tmp (c);
  dd = simnpu__onnx_tmp (c);
  se = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, x, &mean, &a)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_SUB, x, mean, d)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, d, d, dd)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MEAN, dd, &var, &a)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SQRT, var, &sd, NULL)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, sd, simnpu__onnx_scalar_f32 (c,
                  ONNX_MVN_EPSILON), se)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, d, se, out);
}

/* x @ M along the axis, M[j][i] = 1 where j runs into i (exclusive,
 * reverse), with the axis moved last */
int
simnpu__onnx_imp_cumsum (onnx_ctx * c, const onnx_op * op)
{
  bool excl = simnpu__onnx_attr_int (c, "exclusive", 0) != 0;
  bool rev = simnpu__onnx_attr_int (c, "reverse", 0) != 0;
  int64_t perm[SIMNPU_IR_MAX_RANK], axis_v, len, i, j, dims[2];
  int x, ta, m, xt, y, out, ret, n;
  unsigned rank, k;
  int32_t axis = 0;
  float *mv;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ta)) < 0
      || (ret = simnpu__onnx_const_ints (c, ta, "axis", &axis_v, 1, &n)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (n != 1 || (ret = simnpu__onnx_norm_axis (c, axis_v, rank, &axis)) < 0)
    return n != 1 ? simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "axis must be a scalar") : ret;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "%s input (float only)",
        simnpu__ir_dtype_name (T (c, x)->dtype));
  len = T (c, x)->dims[axis];
  if (len * len > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "axis too long");
  mv = g_new0 (float, MAX (len * len, 1));
  for (j = 0; j < len; j++)
    for (i = 0; i < len; i++)
      mv[j * len + i] = (rev ? (excl ? j > i : j >= i)
          : (excl ? j < i : j <= i)) ? 1.0f : 0.0f;
  dims[0] = dims[1] = len;
  m = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 2, dims, mv);
  g_free (mv);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (axis == (int32_t) rank - 1)
    return simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, x, m, out);
  /* swapping the axis with the last is its own inverse */
  for (k = 0; k < rank; k++)
    perm[k] = k;
  perm[axis] = rank - 1;
  perm[rank - 1] = axis;
  xt = simnpu__onnx_tmp (c);
  y = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_transpose (c, x, xt, perm, rank)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MATMUL, xt, m, y)) < 0)
    return ret;
  return simnpu__onnx_emit_transpose (c, y, out, perm, rank);
}

/* loss[n, d..] = -input[n, target[n, d..], d..] * weight[target], 0 where
 * target is ignore_index; reduced by none, sum or mean (over the
 * weights) */
static int
onnx_nll (onnx_ctx * c, int input, int target, int weight, int out)
{
  char buf[ONNX_STR_SIZE];
  const char *red =
      simnpu__onnx_attr_str (c, "reduction", "mean", buf, sizeof buf);
  bool has_ignore = simnpu__onnx_attr (c, "ignore_index") != NULL;
  int64_t ignore = simnpu__onnx_attr_int (c, "ignore_index", 0), zero = 0;
  int64_t td[SIMNPU_IR_MAX_RANK], ud[SIMNPU_IR_MAX_RANK];
  int t, ign = SIMNPU_IR_NONE, tu, sel, selr, w, wl, loss, ret;
  unsigned rank, r, tr;
  simnpu__ir_attrs all;

  if (strcmp (red, "none") != 0 && strcmp (red, "sum") != 0
      && strcmp (red, "mean") != 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "reduction '%s' (none, sum or "
        "mean)", red);
  rank = T (c, input)->rank;
  tr = T (c, target)->rank;
  if (rank < 2 || tr + 1 != rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "target of rank %u for input of "
        "rank %u", tr, rank);
  memcpy (td, T (c, target)->dims, sizeof td);
  if ((ret = simnpu__onnx_cast (c, target, SIMNPU_IR_I64, &t)) < 0)
    return ret;
  if (has_ignore) {
    int safe = simnpu__onnx_tmp (c);
    ign = simnpu__onnx_tmp (c);
    if ((ret =
            simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, t,
                simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &ignore),
                ign)) < 0)
      return ret;
    {
      int ins[3] =
          { ign, simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &zero),
        t
      };
      if ((ret =
              simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &safe, 1,
                  NULL)) < 0)
        return ret;
    }
    t = safe;
  }
  /* target as [N, 1, d..] picks along the classes */
  ud[0] = td[0];
  ud[1] = 1;
  for (r = 1; r < tr; r++)
    ud[r + 1] = td[r];
  tu = simnpu__onnx_tmp (c);
  sel = simnpu__onnx_tmp (c);
  selr = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, t, tu, ud, rank)) < 0
      || (ret = simnpu__onnx_gather_elements (c, input, tu, 1, sel)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, sel, selr, td, tr)) < 0)
    return ret;
  /* the weight of each element: weight[target], 1 without weights, 0 where
   * ignored */
  if (weight != SIMNPU_IR_NONE) {
    simnpu__ir_attrs g;
    int gi[2] = { weight, t };
    simnpu__onnx_attrs_init (&g);
    w = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit (c, SIMNPU_IR_GATHER, gi, 2, &w, 1, &g)) < 0)
      return ret;
  } else {
    w = simnpu__onnx_scalar_f32 (c, 1.0f);
  }
  if (ign != SIMNPU_IR_NONE) {
    int ins[3] = { ign, simnpu__onnx_scalar_f32 (c, 0.0f), w };
    int wi = simnpu__onnx_tmp (c);
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wi, 1, NULL)) < 0)
      return ret;
    w = wi;
  }
  wl = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, selr, w, wl)) < 0)
    return ret;
  if (strcmp (red, "none") == 0)
    return simnpu__onnx_emit (c, SIMNPU_IR_NEG, &wl, 1, &out, 1, NULL);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_NEG, wl, &loss, NULL)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&all);
  for (r = 0; r < tr; r++)
    all.ints[all.n_ints++] = r;
  if (strcmp (red, "sum") == 0)
    return simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_SUM, &loss, 1, &out, 1, &all);
  if (T (c, w)->rank == 0)
    return simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_MEAN, &loss, 1, &out, 1,
        &all);
  {
    int num, den;
    if ((ret =
            simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_SUM, loss, &num, &all)) < 0
        || (ret =
            simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_SUM, w, &den, &all)) < 0)
      return ret;
    return simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, num, den, out);
  }
}

int
simnpu__onnx_imp_nll_loss (onnx_ctx * c, const onnx_op * op)
{
  int input, target, weight, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &input)) < 0
      || (ret = simnpu__onnx_in (c, 1, &target)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &weight)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return onnx_nll (c, input, target, weight, out);
}

/* nll (log_softmax (scores, 1)); outputs the loss and the log
 * probabilities */
int
simnpu__onnx_imp_sce_loss (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int scores, labels, weight, out, lp, ret;

  if ((ret = simnpu__onnx_in (c, 0, &scores)) < 0
      || (ret = simnpu__onnx_in (c, 1, &labels)) < 0
      || (ret = simnpu__onnx_opt_in (c, 2, &weight)) < 0
      || (ret = simnpu__onnx_check_outputs (c, 2)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (T (c, scores)->rank < 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "scores of rank %u (expected >= 2)", T (c, scores)->rank);
  if (onnx_has_output (c, 1)) {
    if ((ret = simnpu__onnx_out (c, 1, &lp)) < 0)
      return ret;
  } else {
    lp = simnpu__onnx_tmp (c);
  }
  simnpu__onnx_attrs_init (&a);
  a.axis = 1;
  if ((ret =
          simnpu__onnx_emit (c, SIMNPU_IR_LOG_SOFTMAX, &scores, 1, &lp, 1,
              &a)) < 0)
    return ret;
  return onnx_nll (c, lp, labels, weight, out);
}

/* x / (bias + alpha / size * sum of squares over a window of channels) ^
 * beta, the sum by a 1x1 convolution with a band of ones */
int
simnpu__onnx_imp_lrn (onnx_ctx * c, const onnx_op * op)
{
  float alpha = simnpu__onnx_attr_float (c, "alpha", 1e-4f);
  float beta = simnpu__onnx_attr_float (c, "beta", 0.75f);
  float bias = simnpu__onnx_attr_float (c, "bias", 1.0f);
  int64_t size = simnpu__onnx_attr_int (c, "size", 0), ch, o, i, wdims[4];
  int x, sq, sum, sc, den, pw, out, ret, band;
  simnpu__ir_attrs a;
  float *w;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->rank != ONNX_CONV_RANK || size < 1)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "rank-4 input and size >= 1 " "expected");
  ch = T (c, x)->dims[1];
  if (ch * ch > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "too many channels");
  w = g_new0 (float, MAX (ch * ch, 1));
  for (o = 0; o < ch; o++)
    for (i = MAX (0, o - (size - 1) / 2); i <= MIN (ch - 1, o + size / 2); i++)
      w[o * ch + i] = 1.0f;
  wdims[0] = ch;
  wdims[1] = wdims[2] = 1;
  wdims[3] = ch;
  band = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 4, wdims, w);
  g_free (w);
  sq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, x, x, sq)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  sum = simnpu__onnx_tmp (c);
  {
    int ins[2] = { sq, band };
    if ((ret =
            simnpu__onnx_emit_nhwc_to (c, SIMNPU_IR_CONV2D, ins, 2, &a,
                sum)) < 0)
      return ret;
  }
  sc = simnpu__onnx_tmp (c);
  den = simnpu__onnx_tmp (c);
  pw = simnpu__onnx_tmp (c);
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, sum, simnpu__onnx_scalar_f32 (c,
                  alpha / (float) size), sc)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, sc, simnpu__onnx_scalar_f32 (c,
                  bias), den)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_POW, den, simnpu__onnx_scalar_f32 (c,
                  beta), pw)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit2 (c, SIMNPU_IR_DIV, x, pw, out);
}
