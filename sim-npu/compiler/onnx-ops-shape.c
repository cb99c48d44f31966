/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The imports of ONNX ops that move or reshape data, or make it:
 * Reshape, Flatten, (Un)Squeeze, Transpose, Concat, Split, Slice, Pad,
 * Tile, Expand, Shape / Size, Constant, ConstantOfShape and EyeLike. */

#include "onnx-private.h"

/* the opsets at which an op's definition changed in a way its import
 * reads */
#define ONNX_SLICE_INPUTS_OPSET 10
#define ONNX_SPLIT_NUM_OUTPUTS_OPSET 18
#define ONNX_PAD_AXES_OPSET 18

int
simnpu__onnx_imp_reshape (onnx_ctx * c, const onnx_op * op)
{
  int64_t shape[SIMNPU_IR_MAX_RANK];
  int x, st, out, ret, n, i, infer = -1;
  int64_t known = 1, total;
  const simnpu__ir_tensor *xt;
  bool allowzero = simnpu__onnx_attr_int (c, "allowzero", 0) != 0;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &st)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_ints (c, st, "shape", shape, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  xt = T (c, x);
  total = simnpu__ir_tensor_elements (xt);
  for (i = 0; i < n; i++) {
    if (shape[i] == 0 && !allowzero) {
      if (i >= (int) xt->rank)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE,
            "shape[%d] = 0 copies a dimension the input (rank %u) lacks", i,
            xt->rank);
      shape[i] = xt->dims[i];
    }
    if (shape[i] == -1) {
      if (infer >= 0)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE, "more than one -1 in shape");
      infer = i;
      continue;
    }
    if (shape[i] < 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "shape[%d] = %" G_GINT64_FORMAT, i, shape[i]);
    known *= shape[i];
    if (known > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "shape too large");
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "cannot infer the -1 of shape: %" G_GINT64_FORMAT " elements into %"
          G_GINT64_FORMAT, total, known);
    shape[infer] = total / known;
  } else if (known != total) {
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "shape has %" G_GINT64_FORMAT
        " elements, the input %" G_GINT64_FORMAT, known, total);
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_reshape (c, x, out, shape, n);
}

int
simnpu__onnx_imp_flatten (onnx_ctx * c, const onnx_op * op)
{
  int64_t d2[2] = { 1, 1 };
  int x, out, ret;
  int64_t axis;
  unsigned i, rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  axis = simnpu__onnx_attr_int (c, "axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis out of range for rank %u",
        rank);
  for (i = 0; i < rank; i++)
    d2[i < axis ? 0 : 1] *= T (c, x)->dims[i];
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_reshape (c, x, out, d2, 2);
}

int
simnpu__onnx_imp_squeeze (onnx_ctx * c, const onnx_op * op)
{
  int64_t axes[SIMNPU_IR_MAX_RANK], dims[SIMNPU_IR_MAX_RANK];
  bool sel[SIMNPU_IR_MAX_RANK] = { false };
  bool unsq = op->ir != SIMNPU_IR_RESHAPE;
  int x, ta, out, ret, n = -1, i;
  unsigned rank, orank, k = 0, j = 0;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  xt = T (c, x);
  rank = xt->rank;
  if (c->opset >= 13) {
    if ((ret = simnpu__onnx_opt_in (c, 1, &ta)) < 0)
      return ret;
    if (ta != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_RANK,
                &n)) < 0)
      return ret;
  } else if ((ret = simnpu__onnx_attr_ints (c, "axes", axes, SIMNPU_IR_MAX_RANK,
              &n)) < 0) {
    return ret;
  }
  if (unsq && n <= 0)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axes missing");
  orank = unsq ? rank + n : rank;
  if (orank > SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "output rank above %d",
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], orank, &ax)) < 0)
      return ret;
    if (sel[ax])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis %d repeated", ax);
    sel[ax] = true;
  }
  if (unsq) {
    for (k = 0; k < orank; k++)
      dims[k] = sel[k] ? 1 : xt->dims[j++];
  } else {
    for (j = 0; j < rank; j++) {
      if (n > 0 && sel[j] && xt->dims[j] != 1)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE,
            "cannot squeeze axis %u of size %" G_GINT64_FORMAT, j, xt->dims[j]);
      if (n > 0 ? !sel[j] : xt->dims[j] != 1)
        dims[k++] = xt->dims[j];
    }
    orank = k;
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_reshape (c, x, out, dims, orank);
}

int
simnpu__onnx_imp_transpose (onnx_ctx * c, const onnx_op * op)
{
  int64_t perm[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  int x, out, ret, n, i;
  unsigned rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if ((ret =
          simnpu__onnx_attr_ints (c, "perm", perm, SIMNPU_IR_MAX_RANK, &n)) < 0)
    return ret;
  if (n < 0) {
    for (i = 0; i < (int) rank; i++)
      perm[i] = rank - 1 - i;
    n = rank;
  }
  if (n != (int) rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "perm has %d values for rank %u",
        n, rank);
  for (i = 0; i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "perm is not a permutation");
    seen[perm[i]] = true;
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_transpose (c, x, out, perm, rank);
}

int
simnpu__onnx_imp_concat (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int ins[SIMNPU_IR_MAX_INPUTS], out, ret;
  unsigned i, n = c->node->n_input;

  if (n == 0 || n > SIMNPU_IR_MAX_INPUTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%u inputs (expected 1 to %d)", n, SIMNPU_IR_MAX_INPUTS);
  for (i = 0; i < n; i++)
    if ((ret = simnpu__onnx_in (c, i, &ins[i])) < 0)
      return ret;
  simnpu__onnx_attrs_init (&a);
  if (simnpu__onnx_attr (c, "axis") == NULL)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "attribute 'axis' missing");
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0),
              T (c, ins[0])->rank, &a.axis)) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_CONCAT, ins, n, &out, 1, &a);
}

int
simnpu__onnx_imp_split (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t split[SIMNPU_IR_MAX_INTS];
  int x, ts, outs[SIMNPU_IR_MAX_OUTPUTS], ret, n = -1;
  unsigned i, n_out = c->node->n_output;
  int64_t dim;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (n_out == 0 || n_out > SIMNPU_IR_MAX_INTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%u outputs (expected 1 to %d)", n_out, SIMNPU_IR_MAX_INTS);
  simnpu__onnx_attrs_init (&a);
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0),
              T (c, x)->rank, &a.axis)) < 0)
    return ret;
  dim = T (c, x)->dims[a.axis];
  if (c->opset >= 13) {
    if ((ret = simnpu__onnx_opt_in (c, 1, &ts)) < 0)
      return ret;
    if (ts != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ts, "split", split, SIMNPU_IR_MAX_INTS,
                &n)) < 0)
      return ret;
  } else if ((ret =
          simnpu__onnx_attr_ints (c, "split", split, SIMNPU_IR_MAX_INTS,
              &n)) < 0) {
    return ret;
  }
  if (n < 0 && c->opset >= ONNX_SPLIT_NUM_OUTPUTS_OPSET) {
    /* num_outputs: parts of ceil (dim / num_outputs), the last smaller */
    int64_t num = simnpu__onnx_attr_int (c, "num_outputs", n_out), chunk;
    if (num != (int64_t) n_out)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "num_outputs is %" G_GINT64_FORMAT " for %u outputs", num, n_out);
    chunk = (dim + num - 1) / num;
    for (i = 0; i < n_out; i++) {
      split[i] = MIN (chunk, dim - (int64_t) i * chunk);
      if (split[i] <= 0)
        return simnpu__onnx_err (c, SIMNPU_ESHAPE,
            "axis of size %" G_GINT64_FORMAT " cannot make %u parts of %"
            G_GINT64_FORMAT, dim, n_out, chunk);
    }
    n = n_out;
  }
  if (n < 0) {
    if (dim % n_out != 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "axis of size %" G_GINT64_FORMAT " does not split evenly into %u",
          dim, n_out);
    for (i = 0; i < n_out; i++)
      split[i] = dim / n_out;
    n = n_out;
  }
  if (n != (int) n_out)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "split has %d sizes for %u outputs", n, n_out);
  memcpy (a.ints, split, n * sizeof split[0]);
  a.n_ints = n;
  for (i = 0; i < n_out; i++)
    if ((ret = simnpu__onnx_out (c, i, &outs[i])) < 0)
      return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_SPLIT, &x, 1, outs, n_out, &a);
}

int
simnpu__onnx_imp_slice (onnx_ctx * c, const onnx_op * op)
{
  int64_t starts[SIMNPU_IR_MAX_RANK], ends[SIMNPU_IR_MAX_RANK];
  int64_t axes[SIMNPU_IR_MAX_RANK], steps[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  simnpu__ir_attrs a;
  int x, ts, te, ta, tp, out, ret, n, ne, na = -1, np = -1, i;
  unsigned rank, r;
  const simnpu__ir_tensor *xt;

  if (c->opset < ONNX_SLICE_INPUTS_OPSET) {
    /* starts, ends and axes are attributes before opset 10, without
     * steps */
    if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
        || (ret = simnpu__onnx_attr_ints (c, "starts", starts,
                SIMNPU_IR_MAX_RANK, &n)) < 0
        || (ret = simnpu__onnx_attr_ints (c, "ends", ends,
                SIMNPU_IR_MAX_RANK, &ne)) < 0
        || (ret = simnpu__onnx_attr_ints (c, "axes", axes,
                SIMNPU_IR_MAX_RANK, &na)) < 0)
      return ret;
    if (n < 0 || ne < 0)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "the starts and ends attributes are required (opset %d)", c->opset);
  } else {
    if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
        || (ret = simnpu__onnx_in (c, 1, &ts)) < 0
        || (ret = simnpu__onnx_in (c, 2, &te)) < 0
        || (ret = simnpu__onnx_opt_in (c, 3, &ta)) < 0
        || (ret = simnpu__onnx_opt_in (c, 4, &tp)) < 0)
      return ret;
    if ((ret =
            simnpu__onnx_const_ints (c, ts, "starts", starts,
                SIMNPU_IR_MAX_RANK, &n)) < 0
        || (ret =
            simnpu__onnx_const_ints (c, te, "ends", ends, SIMNPU_IR_MAX_RANK,
                &ne)) < 0)
      return ret;
    if (ta != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_RANK,
                &na)) < 0)
      return ret;
    if (tp != SIMNPU_IR_NONE
        && (ret =
            simnpu__onnx_const_ints (c, tp, "steps", steps,
                SIMNPU_IR_MAX_RANK, &np)) < 0)
      return ret;
  }
  xt = T (c, x);
  rank = xt->rank;
  if (ne != n || (na >= 0 && na != n) || (np >= 0 && np != n))
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "starts, ends, axes and steps differ in length");
  simnpu__onnx_attrs_init (&a);
  for (r = 0; r < rank; r++) {
    a.ints[r] = 0;
    a.ints[rank + r] = xt->dims[r];
    a.steps[r] = 1;
  }
  for (i = 0; i < n; i++) {
    int32_t ax = 0;
    int64_t dim, s, e, st = np >= 0 ? steps[i] : 1;
    if ((ret =
            simnpu__onnx_norm_axis (c, na >= 0 ? axes[i] : i, rank, &ax)) < 0)
      return ret;
    if (seen[ax])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis %d repeated", ax);
    seen[ax] = true;
    if (st == 0)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "step 0");
    dim = xt->dims[ax];
    s = starts[i];
    e = ends[i];
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (st > 0) {
      s = CLAMP (s, 0, dim);
      e = CLAMP (e, 0, dim);
    } else {
      s = CLAMP (s, 0, dim - 1);
      e = CLAMP (e, -1, dim - 1);
    }
    a.ints[ax] = s;
    a.ints[rank + ax] = e;
    a.steps[ax] = st;
  }
  a.n_ints = 2 * rank;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_SLICE, &x, 1, &out, 1, &a);
}

/* Pad's axes input (opset 18): @pads holds the begins, then the ends, of
 * the axes listed; made into the begins and ends of every axis, the
 * others 0. */
static int
onnx_pads_on_axes (onnx_ctx * c, int ta, unsigned rank, int64_t * pads, int *n)
{
  int64_t axes[SIMNPU_IR_MAX_RANK], full[2 * SIMNPU_IR_MAX_RANK] = { 0 };
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  int na, i, ret;

  if ((ret = simnpu__onnx_const_ints (c, ta, "axes", axes, SIMNPU_IR_MAX_RANK,
              &na)) < 0)
    return ret;
  if (*n != 2 * na)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "%d pads for %d axes (expected %d)", *n, na, 2 * na);
  for (i = 0; i < na; i++) {
    int32_t ax = 0;
    if ((ret = simnpu__onnx_norm_axis (c, axes[i], rank, &ax)) < 0)
      return ret;
    if (seen[ax])
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "axis %d repeated", ax);
    seen[ax] = true;
    full[ax] = pads[i];
    full[rank + ax] = pads[na + i];
  }
  memcpy (pads, full, 2 * rank * sizeof pads[0]);
  *n = 2 * rank;
  return 0;
}

int
simnpu__onnx_imp_pad (onnx_ctx * c, const onnx_op * op)
{
  int64_t pads[2 * SIMNPU_IR_MAX_RANK];
  simnpu__ir_attrs a;
  char buf[ONNX_STR_SIZE];
  const char *mode;
  int x, tp, tv, out, ret, n;
  unsigned rank;

  tp = tv = SIMNPU_IR_NONE;
  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  simnpu__onnx_attrs_init (&a);
  if (c->opset < 11) {
    /* attributes before opset 11 */
    if ((ret = simnpu__onnx_attr_ints (c, "pads", pads, 2 * SIMNPU_IR_MAX_RANK,
                &n)) < 0)
      return ret;
    a.f[0] = simnpu__onnx_attr_float (c, "value", 0.0f);
  } else {
    int ta = SIMNPU_IR_NONE;
    if ((ret = simnpu__onnx_in (c, 1, &tp)) < 0
        || (ret = simnpu__onnx_opt_in (c, 2, &tv)) < 0)
      return ret;
    if (c->node->n_input > 3 && c->opset < ONNX_PAD_AXES_OPSET)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "%zu inputs (the axes input is opset %d's)", c->node->n_input,
          ONNX_PAD_AXES_OPSET);
    if ((ret = simnpu__onnx_opt_in (c, 3, &ta)) < 0
        || (ret =
            simnpu__onnx_const_ints (c, tp, "pads", pads,
                2 * SIMNPU_IR_MAX_RANK, &n)) < 0)
      return ret;
    if (ta != SIMNPU_IR_NONE
        && (ret = onnx_pads_on_axes (c, ta, rank, pads, &n)) < 0)
      return ret;
  }
  if (n != 2 * (int) rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "%d pads for rank %u (expected %u)", n, rank, 2 * rank);
  memcpy (a.ints, pads, n * sizeof pads[0]);
  a.n_ints = n;
  if (tv != SIMNPU_IR_NONE
      && (ret =
          simnpu__onnx_const_float (c, tv, "constant_value", &a.f[0])) < 0)
    return ret;
  mode = simnpu__onnx_attr_str (c, "mode", "constant", buf, sizeof buf);
  if (strcmp (mode, "reflect") == 0)
    a.mode = SIMNPU_IR_PAD_REFLECT;
  else if (strcmp (mode, "edge") == 0)
    a.mode = SIMNPU_IR_PAD_EDGE;
  else if (strcmp (mode, "constant") != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "mode '%s' is not supported", mode);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_PAD, &x, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_tile (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int x, tr, out, ret, n;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &tr)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if ((ret =
          simnpu__onnx_const_ints (c, tr, "repeats", a.ints, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  if (n != (int) T (c, x)->rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%d repeats for rank %u", n,
        T (c, x)->rank);
  a.n_ints = n;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_TILE, &x, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_expand (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int64_t shape[SIMNPU_IR_MAX_RANK];
  int x, ts, out, ret, n;
  unsigned rank, r;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &ts)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_ints (c, ts, "shape", shape, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  xt = T (c, x);
  rank = MAX ((unsigned) n, xt->rank);
  simnpu__onnx_attrs_init (&a);
  /* ONNX broadcasts both ways: the output is the broadcast of the two */
  for (r = 0; r < rank; r++) {
    int si = (int) r - (int) (rank - n);
    int xi = (int) r - (int) (rank - xt->rank);
    int64_t sd = si >= 0 ? shape[si] : 1;
    int64_t xd = xi >= 0 ? xt->dims[xi] : 1;
    if (sd != xd && sd != 1 && xd != 1)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "cannot broadcast dimension %"
          G_GINT64_FORMAT " to %" G_GINT64_FORMAT, xd, sd);
    if (sd < 0)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "negative shape");
    a.ints[r] = sd == 1 ? xd : sd;
  }
  a.n_ints = rank;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_EXPAND, &x, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_shape (onnx_ctx * c, const onnx_op * op)
{
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int x, out, ret, i, n;
  int64_t start, end, rank;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (strcmp (op->name, "Size") == 0) {
    int64_t size = simnpu__ir_tensor_elements (T (c, x));
    int k;
    if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
      return ret;
    k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &size);
    return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
  }
  start = simnpu__onnx_attr_int (c, "start", 0);
  end = simnpu__onnx_attr_int (c, "end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = CLAMP (start, 0, rank);
  end = CLAMP (end, 0, rank);
  n = 0;
  for (i = start; i < end; i++)
    dims[n++] = T (c, x)->dims[i];
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int64_t len = n;
    int k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 1, &len, dims);
    return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
  }
}

static int
onnx_attr_tensor_const (onnx_ctx * c, const Onnx__AttributeProto * at, int *t)
{
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  void *data;
  gchar *what;
  int ret;

  what = g_strdup_printf ("node '%s' (%s): attribute '%s'", c->node_name,
      c->node->op_type, at->name);
  ret = simnpu__onnx_tensor_from_proto (at->t, what, &dtype, &rank, dims, &data,
      c->error);
  g_free (what);
  if (ret < 0)
    return ret;
  *t = simnpu__onnx_add_const (c, dtype, rank, dims, data);
  g_free (data);
  return 0;
}

int
simnpu__onnx_imp_constant (onnx_ctx * c, const onnx_op * op)
{
  const Onnx__AttributeProto *at;
  int k, out, ret;

  if (c->node->n_attribute != 1)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "%zu attributes (expected exactly one value)", c->node->n_attribute);
  at = c->node->attribute[0];
  if (at->name == NULL)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "attribute without a name");
  if (strcmp (at->name, "value") == 0 && at->t != NULL) {
    if ((ret = onnx_attr_tensor_const (c, at, &k)) < 0)
      return ret;
  } else if (strcmp (at->name, "value_float") == 0) {
    k = simnpu__onnx_scalar_f32 (c, at->f);
  } else if (strcmp (at->name, "value_int") == 0) {
    k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &at->i);
  } else if (strcmp (at->name, "value_floats") == 0) {
    int64_t len = at->n_floats;
    k = simnpu__onnx_add_const (c, SIMNPU_IR_F32, 1, &len, at->floats);
  } else if (strcmp (at->name, "value_ints") == 0) {
    int64_t len = at->n_ints;
    k = simnpu__onnx_add_const (c, SIMNPU_IR_I64, 1, &len, at->ints);
  } else {
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "constant attribute '%s' is not supported", at->name);
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
}

int
simnpu__onnx_imp_constant_of_shape (onnx_ctx * c, const onnx_op * op)
{
  const Onnx__AttributeProto *at = simnpu__onnx_attr (c, "value");
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int ts, k, out, ret, n, i;
  int64_t total = 1;
  simnpu__ir_tensor tmp = { 0 };
  uint8_t *data;
  size_t esize;
  float zero = 0;
  const void *value = &zero;
  int vk = SIMNPU_IR_NONE;

  if ((ret = simnpu__onnx_in (c, 0, &ts)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_ints (c, ts, "shape", dims, SIMNPU_IR_MAX_RANK,
              &n)) < 0)
    return ret;
  for (i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "shape[%d] = %" G_GINT64_FORMAT, i, dims[i]);
    total *= dims[i];
    if (total > ONNX_MAX_FOLD_ELEMENTS)
      return simnpu__onnx_err (c, SIMNPU_ENOMEM, "shape above %" G_GINT64_FORMAT
          " elements", (gint64) ONNX_MAX_FOLD_ELEMENTS);
  }
  tmp.dtype = SIMNPU_IR_F32;
  if (at != NULL && at->t != NULL) {
    if ((ret = onnx_attr_tensor_const (c, at, &vk)) < 0)
      return ret;
    if (simnpu__ir_tensor_elements (T (c, vk)) != 1)
      return simnpu__onnx_err (c, SIMNPU_ESHAPE, "value must have one element");
    tmp.dtype = T (c, vk)->dtype;
    value = T (c, vk)->data;
  }
  esize = simnpu__ir_dtype_size (tmp.dtype);
  data = g_malloc (MAX (1, total * esize));
  for (i = 0; i < total; i++)
    memcpy (data + i * esize, value, esize);
  tmp.rank = n;
  k = simnpu__onnx_add_const (c, tmp.dtype, n, dims, data);
  g_free (data);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &k, 1, &out, 1, NULL);
}

/* ones on the k-th diagonal of a static 2-D shape: a constant */
int
simnpu__onnx_imp_eye_like (onnx_ctx * c, const onnx_op * op)
{
  int64_t dims[2], i, kd = simnpu__onnx_attr_int (c, "k", 0);
  simnpu__ir_dtype dtype;
  simnpu__ir_tensor tmp = { 0 };
  int x, kt, out, ret;
  uint8_t *data;
  size_t esize;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0)
    return ret;
  if (T (c, x)->rank != 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "input of rank %u (expected 2)",
        T (c, x)->rank);
  dtype = T (c, x)->dtype;
  if (simnpu__onnx_attr (c, "dtype") != NULL
      && !simnpu__onnx_dtype_from_attr (simnpu__onnx_attr_int (c, "dtype", 0),
          &dtype))
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "dtype %s",
        simnpu__onnx_dtype_name ((int32_t) simnpu__onnx_attr_int (c, "dtype",
                0)));
  dims[0] = T (c, x)->dims[0];
  dims[1] = T (c, x)->dims[1];
  if (dims[0] * dims[1] > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "shape too large");
  tmp.dtype = dtype;
  tmp.rank = 2;
  memcpy (tmp.dims, dims, sizeof dims);
  esize = simnpu__ir_dtype_size (dtype);
  data = g_malloc0 (MAX (simnpu__ir_tensor_bytes (&tmp), 1));
  for (i = 0; i < dims[0]; i++) {
    int64_t j = i + kd;
    uint8_t *e;
    if (j < 0 || j >= dims[1])
      continue;
    e = data + (i * dims[1] + j) * esize;
    switch (dtype) {
      case SIMNPU_IR_F32:
        *(float *) e = 1.0f;
        break;
      case SIMNPU_IR_I64:
        *(int64_t *) e = 1;
        break;
      case SIMNPU_IR_I32:
        *(int32_t *) e = 1;
        break;
      default:
        *e = 1;
        break;
    }
  }
  kt = simnpu__onnx_add_const (c, dtype, 2, dims, data);
  g_free (data);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_IDENTITY, &kt, 1, &out, 1, NULL);
}
