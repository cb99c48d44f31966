/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js translations of the ops that index and make tensors: GatherNd
 * (constant indices fold to a device gather, computed ones stay on the
 * host), and the ops of anchor grids and constant tails that fold to
 * constants once shapes are static (Range, Size, Fill, BroadcastTo,
 * SparseToDense). */

#include "tfjs-private.h"

#include <math.h>
#include <string.h>

/* One node of op with the given inputs and a fresh output: its index */
static int
op2 (tfjs_loader * l, simnpu__ir_op op, const char *suffix, int a, int b)
{
  int ins[2] = { a, b };

  return simnpu__tfjs_simple_op (l, op, suffix, 2, ins);
}

/* A reduction of x over its last axis (keepdims false) */
static int
reduce_last_axis (tfjs_loader * l, simnpu__ir_op op, const char *suffix, int x)
{
  simnpu__ir_node *n;
  int out, ret;

  ret = simnpu__tfjs_begin_op (l, op, suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.ints[0] = T (l, x)->rank - 1;
  n->attrs.n_ints = 1;
  n->attrs.keepdims = false;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

static int
cast_to (tfjs_loader * l, const char *suffix, int x, simnpu__ir_dtype dt)
{
  simnpu__ir_node *n;
  int out, ret;

  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CAST, suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.dtype = dt;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

/* GatherNd: params[indices[.., 0], .., indices[.., k - 1]] as a gather
 * along the first axis of params reshaped to [d0 * .. * d(k-1), rest], by
 * the linear index sum (indices * strides). Constant indices fold to a
 * constant list, and the gather runs on the device; computed ones
 * (MoveNet's keypoint picks) keep it on the host. An index tuple
 * out of range gives zeros, as TF does on GPUs (its CPU kernels and
 * TF.js's stop with an error; a model clamping to one past the end,
 * PINTO's facemesh-attention, would then stop the compile). */
static int
tr_gather_nd (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t dd[SIMNPU_IR_MAX_RANK], flat[SIMNPU_IR_MAX_RANK], kdim[1], p = 1;
  int64_t okd[SIMNPU_IR_MAX_RANK];
  int64_t *strides, *sizes, *one, *zero;
  simnpu__ir_node *n;
  unsigned rank, qr, r;
  int idx, st, sz, c0, c1, cz, ok, lin, df, got, okb, ins[3], out, j, ret;
  int64_t k;

  ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  qr = T (l, in[1])->rank;
  if (T (l, in[1])->dtype != SIMNPU_IR_I32
      && T (l, in[1])->dtype != SIMNPU_IR_I64)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "indices of dtype %s; expected int32 or int64",
        simnpu__ir_dtype_name (T (l, in[1])->dtype));
  if (qr == 0)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "scalar indices; expected rank 1 or more");
  k = T (l, in[1])->dims[qr - 1];
  if (k < 1 || k > (int64_t) rank)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "index tuples of %"
        G_GINT64_FORMAT " for params of rank %u; expected 1 to %u", k, rank,
        rank);
  if (qr - 1 + rank - k > SIMNPU_IR_MAX_RANK)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "output rank above %d",
        SIMNPU_IR_MAX_RANK);
  memcpy (dd, T (l, in[0])->dims, sizeof dd);
  strides = g_new (int64_t, k);
  sizes = g_new (int64_t, k);
  for (j = (int) k - 1; j >= 0; j--) {
    strides[j] = p;
    sizes[j] = dd[j];
    p *= dd[j];
  }
  kdim[0] = k;
  one = g_new (int64_t, 1);
  *one = 1;
  zero = g_new0 (int64_t, 1);
  st = simnpu__tfjs_new_const (l, "strides", SIMNPU_IR_I64, 1, kdim, strides);
  sz = simnpu__tfjs_new_const (l, "sizes", SIMNPU_IR_I64, 1, kdim, sizes);
  c1 = simnpu__tfjs_new_const (l, "one", SIMNPU_IR_I64, 0, NULL, one);
  c0 = simnpu__tfjs_new_const (l, "zero", SIMNPU_IR_I64, 0, NULL, zero);
  /* eight bytes of zeros: a zero of any dtype */
  cz = simnpu__tfjs_new_const (l, "fill", T (l, in[0])->dtype, 0, NULL,
      g_new0 (int64_t, 1));
  if (st < 0 || sz < 0 || c1 < 0 || c0 < 0 || cz < 0)
    return MIN (MIN (MIN (st, sz), MIN (c1, c0)), cz);
  idx = cast_to (l, "index", in[1], SIMNPU_IR_I64);
  if (idx < 0)
    return idx;
  /* ok: 1 where every index of the tuple is in range, else 0 */
  if ((ok = op2 (l, SIMNPU_IR_GREATER_EQUAL, "above_zero", idx, c0)) < 0
      || (j = op2 (l, SIMNPU_IR_LESS, "below_size", idx, sz)) < 0
      || (ok = op2 (l, SIMNPU_IR_AND, "in_range", ok, j)) < 0
      || (ok = cast_to (l, "in_range_int", ok, SIMNPU_IR_I64)) < 0
      || (ok = reduce_last_axis (l, SIMNPU_IR_REDUCE_MIN, "valid", ok)) < 0)
    return ok < 0 ? ok : j;
  if ((lin = op2 (l, SIMNPU_IR_MUL, "scaled", idx, st)) < 0
      || (lin = reduce_last_axis (l, SIMNPU_IR_REDUCE_SUM, "linear", lin)) < 0
      || (lin = op2 (l, SIMNPU_IR_MUL, "linear_valid", lin, ok)) < 0)
    return lin;
  flat[0] = p;
  for (r = (unsigned) k; r < rank; r++)
    flat[1 + r - k] = dd[r];
  df = simnpu__tfjs_reshape_op (l, "flat", in[0], 1 + rank - (unsigned) k,
      flat);
  if (df < 0)
    return df;
  if ((got = op2 (l, SIMNPU_IR_GATHER, "gathered", df, lin)) < 0)
    return got;
  /* the validity of each tuple, over the slice it picks */
  for (r = 0; r < qr - 1; r++)
    okd[r] = T (l, in[1])->dims[r];
  for (r = 0; r < rank - (unsigned) k; r++)
    okd[qr - 1 + r] = 1;
  if ((okb = simnpu__tfjs_reshape_op (l, "valid_slice", ok,
              qr - 1 + rank - (unsigned) k, okd)) < 0
      || (okb = op2 (l, SIMNPU_IR_EQUAL, "valid_bool", okb, c1)) < 0)
    return okb;
  ins[0] = okb;
  ins[1] = got;
  ins[2] = cz;
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_WHERE, NULL, 3, ins, 1, &out, &n);
  if (ret == 0)
    ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

/* Fill (dims, value) and BroadcastTo (input, shape): the value or input
 * broadcast to a constant shape */
static int
broadcast_to (tfjs_loader * l, const tfjs_node * tn, int x, int shape_t)
{
  int64_t dims[SIMNPU_IR_MAX_RANK];
  simnpu__ir_node *n;
  unsigned rank, i;
  int out, ret;

  ret = simnpu__tfjs_const_ints (l, shape_t, "shape", dims,
      SIMNPU_IR_MAX_RANK, &rank);
  if (ret == 0 && T (l, x)->rank == rank && (rank == 0
          || memcmp (T (l, x)->dims, dims, rank * sizeof dims[0]) == 0))
    /* to the shape it has (a recurrent state, broadcast in case it is the
     * scalar 0 of the first frame): itself */
    return simnpu__tfjs_register_output (l, tn, 0, x);
  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_EXPAND, NULL, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  for (i = 0; i < rank; i++)
    n->attrs.ints[i] = dims[i];
  n->attrs.n_ints = rank;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_fill (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0 && T (l, in[1])->rank != 0)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "value of rank %u; expected "
        "a scalar", T (l, in[1])->rank);
  return ret < 0 ? ret : broadcast_to (l, tn, in[1], in[0]);
}

static int
tr_broadcast_to (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  return ret < 0 ? ret : broadcast_to (l, tn, in[0], in[1]);
}

/* Size: the input's element count, a constant since shapes are static */
static int
tr_size (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_dtype dt;
  int64_t n;
  void *data;
  int t, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = simnpu__tfjs_attr_type (l, tn, "out_type", SIMNPU_IR_I32, &dt);
  if (ret < 0)
    return ret;
  n = simnpu__ir_tensor_elements (T (l, in[0]));
  if (dt == SIMNPU_IR_I64) {
    data = g_memdup2 (&n, sizeof n);
  } else if (dt == SIMNPU_IR_I32 && n <= G_MAXINT32) {
    int32_t v = (int32_t) n;
    data = g_memdup2 (&v, sizeof v);
  } else {
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "out_type %s; expected "
        "int32 (the count must fit) or int64", simnpu__ir_dtype_name (dt));
  }
  t = simnpu__tfjs_new_tensor (l, tn->name, true, dt, 0, NULL, data);
  return t < 0 ? t : simnpu__tfjs_register_output (l, tn, 0, t);
}

/* ZerosLike and OnesLike: constants of the input's static shape and
 * dtype (a spatial transformer's zero rotation terms) */
static int
fill_like (tfjs_loader * l, const tfjs_node * tn, const int *in, int value)
{
  const simnpu__ir_tensor *x;
  int64_t n, i;
  size_t size;
  uint8_t *data;
  int t, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret < 0)
    return ret;
  x = T (l, in[0]);
  n = simnpu__ir_tensor_elements (x);
  size = simnpu__ir_dtype_size (x->dtype);
  data = g_malloc0 (MAX (n, 1) * size);
  for (i = 0; i < n && value != 0; i++) {
    switch (x->dtype) {
      case SIMNPU_IR_F32:
        ((float *) data)[i] = (float) value;
        break;
      case SIMNPU_IR_I64:
        ((int64_t *) data)[i] = value;
        break;
      case SIMNPU_IR_I32:
        ((int32_t *) data)[i] = value;
        break;
      default:
        data[i] = (uint8_t) value;
        break;
    }
  }
  t = simnpu__tfjs_new_tensor (l, tn->name, true, x->dtype, x->rank, x->dims,
      data);
  return t < 0 ? t : simnpu__tfjs_register_output (l, tn, 0, t);
}

static int
tr_zeros_like (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return fill_like (l, tn, in, 0);
}

static int
tr_ones_like (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return fill_like (l, tn, in, 1);
}

/* Range: its bounds are often computed from shapes (anchor grids), and
 * its output's size depends on them: they are folded first. */
static int
tr_range (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  unsigned i;
  int ret = simnpu__tfjs_need_inputs (l, tn, 3, 3);

  for (i = 0; i < 3 && ret == 0; i++)
    if (!T (l, in[i])->is_const)
      ret = simnpu__ir_fold_constants (l->g, l->error);
  return ret < 0 ? ret : simnpu__tfjs_tr_elementwise (l, tn, in,
      SIMNPU_IR_RANGE);
}

/* SparseToDense of constants (nanodet's, whose indices are empty): the
 * dense tensor is computed here, a constant. */
static int
tr_sparse_to_dense (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t shape[SIMNPU_IR_MAX_RANK], n_out = 1, n_idx, n_rows, k, r;
  int64_t *idx = NULL;
  simnpu__ir_tensor *vals, *def;
  unsigned rank, n, i;
  size_t es;
  guint8 *data;
  int t, ret = simnpu__tfjs_need_inputs (l, tn, 4, 4);

  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[1], "output_shape", shape,
        SIMNPU_IR_MAX_RANK, &rank);
  if (ret < 0)
    return ret;
  for (i = 0; i < rank; i++) {
    if (shape[i] < 0)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "output_shape[%u] is %" G_GINT64_FORMAT, i, shape[i]);
    n_out *= shape[i];
    if (n_out > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "more than %"
          G_GINT64_FORMAT " elements", SIMNPU_IR_MAX_ELEMENTS);
  }
  for (i = 2; i < 4; i++)
    if (!T (l, in[i])->is_const
        && (ret = simnpu__ir_fold_constants (l->g, l->error)) < 0)
      return ret;
  vals = T (l, in[2]);
  def = T (l, in[3]);
  if (!vals->is_const || !def->is_const)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "sparse_values and default_value must be constant");
  if (vals->dtype != def->dtype || simnpu__ir_tensor_elements (def) != 1)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "sparse_values (%s) and "
        "default_value (%s, %" G_GINT64_FORMAT " values) must be of one "
        "dtype, default_value a scalar", simnpu__ir_dtype_name (vals->dtype),
        simnpu__ir_dtype_name (def->dtype), simnpu__ir_tensor_elements (def));
  n_idx = simnpu__ir_tensor_elements (T (l, in[0]));
  if (n_idx > SIMNPU_IR_MAX_ELEMENTS)
    return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "too many indices");
  idx = g_new (int64_t, MAX (n_idx, 1));
  ret = simnpu__tfjs_const_ints (l, in[0], "sparse_indices", idx,
      (unsigned) n_idx, &n);
  if (ret < 0)
    goto out;
  /* indices: a scalar or [N] into a 1-D output, or [N, rank] */
  n_rows = T (l, in[0])->rank == 2 ? T (l, in[0])->dims[0] : n_idx;
  if ((T (l, in[0])->rank == 2 && T (l, in[0])->dims[1] != rank)
      || (T (l, in[0])->rank < 2 && rank != 1) || T (l, in[0])->rank > 2) {
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "sparse_indices of rank %u "
        "for an output of rank %u", T (l, in[0])->rank, rank);
    goto out;
  }
  if (simnpu__ir_tensor_elements (vals) != 1
      && simnpu__ir_tensor_elements (vals) != n_rows) {
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "%" G_GINT64_FORMAT
        " sparse_values for %" G_GINT64_FORMAT " indices",
        simnpu__ir_tensor_elements (vals), n_rows);
    goto out;
  }
  es = simnpu__ir_dtype_size (def->dtype);
  data = g_malloc (MAX (n_out, 1) * es);
  for (k = 0; k < n_out; k++)
    memcpy (data + k * es, def->data, es);
  for (k = 0; k < n_rows; k++) {
    int64_t lin = 0;
    for (r = 0; r < rank; r++) {
      int64_t v = idx[k * rank + r];
      if (v < 0 || v >= shape[r]) {
        g_free (data);
        ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "index %" G_GINT64_FORMAT
            " of axis %u is out of range (size %" G_GINT64_FORMAT ")", v,
            (unsigned) r, shape[r]);
        goto out;
      }
      lin = lin * shape[r] + v;
    }
    memcpy (data + lin * es, (const guint8 *) vals->data +
        (simnpu__ir_tensor_elements (vals) == 1 ? 0 : k) * es, es);
  }
  t = simnpu__tfjs_new_tensor (l, tn->name, true, def->dtype, rank, shape,
      data);
  ret = t < 0 ? t : simnpu__tfjs_register_output (l, tn, 0, t);
out:
  g_free (idx);
  return ret;
}

/* TopKV2 keeps k under the IR's concat inputs */
#define TFJS_MAX_TOPK SIMNPU_IR_MAX_INPUTS

/* One node of op on x along axis with keepdims: argmax or reduce_max */
static int
reduce_last (tfjs_loader * l, simnpu__ir_op op, const char *what,
    unsigned round, int x, int axis)
{
  char *suffix = g_strdup_printf ("%s%u", what, round);
  simnpu__ir_node *n;
  int out, ret;

  ret = simnpu__tfjs_begin_op (l, op, suffix, 1, &x, 1, &out, &n);
  g_free (suffix);
  if (ret < 0)
    return ret;
  n->attrs.axis = axis;
  n->attrs.ints[0] = axis;
  n->attrs.n_ints = 1;
  n->attrs.keepdims = true;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

/* TopKV2 along the last axis: k rounds of argmax, each masking its pick
 * with -inf; values sorted, ties to the lower index as TF's. Indices are
 * int32. */
static int
tr_top_k (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int vals[TFJS_MAX_TOPK], idxs[TFJS_MAX_TOPK];
  int64_t k, len, i, *ramp;
  simnpu__ir_node *n;
  unsigned rank, nk, axis;
  int iota, ninf, cur, values, cat, out, ret;
  float *minus_inf;

  ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);
  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[1], "k", &k, 1, &nk);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  if (rank == 0 || T (l, in[0])->dtype != SIMNPU_IR_F32)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "input of rank %u and "
        "dtype %s; simnpu-compile takes float inputs of rank 1 or more", rank,
        simnpu__ir_dtype_name (T (l, in[0])->dtype));
  axis = rank - 1;
  len = T (l, in[0])->dims[axis];
  if (nk != 1 || k < 1 || k > len)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "k must be one value, 1 to "
        "the last axis' size %" G_GINT64_FORMAT, len);
  if (k > TFJS_MAX_TOPK) {
    /* a decoder's top-k (CenterNet's 100): cut off with what needs it */
    g_message ("tfjs node '%s' (TopKV2): k %" G_GINT64_FORMAT " is above the "
        "%d simnpu-compile takes: left out as an unsupported op", tn->name, k,
        TFJS_MAX_TOPK);
    return TFJS_DECLINED;
  }
  ramp = g_new (int64_t, len);
  for (i = 0; i < len; i++)
    ramp[i] = i;
  iota = simnpu__tfjs_new_const (l, "iota", SIMNPU_IR_I64, 1, &len, ramp);
  minus_inf = g_new (float, 1);
  *minus_inf = -INFINITY;
  ninf = simnpu__tfjs_new_const (l, "minus_inf", SIMNPU_IR_F32, 0, NULL,
      minus_inf);
  if (iota < 0 || ninf < 0)
    return iota < 0 ? iota : ninf;
  cur = in[0];
  for (i = 0; i < k; i++) {
    int ins[3], hit;
    char *suffix;
    idxs[i] = reduce_last (l, SIMNPU_IR_ARGMAX, "pick", (unsigned) i, cur,
        (int) axis);
    if (idxs[i] < 0)
      return idxs[i];
    vals[i] = reduce_last (l, SIMNPU_IR_REDUCE_MAX, "value", (unsigned) i,
        cur, (int) axis);
    if (vals[i] < 0)
      return vals[i];
    if (i + 1 == k)
      break;
    ins[0] = idxs[i];
    ins[1] = iota;
    suffix = g_strdup_printf ("hit%u", (unsigned) i);
    hit = simnpu__tfjs_simple_op (l, SIMNPU_IR_EQUAL, suffix, 2, ins);
    g_free (suffix);
    if (hit < 0)
      return hit;
    ins[0] = hit;
    ins[1] = ninf;
    ins[2] = cur;
    suffix = g_strdup_printf ("masked%u", (unsigned) i);
    cur = simnpu__tfjs_simple_op (l, SIMNPU_IR_WHERE, suffix, 3, ins);
    g_free (suffix);
    if (cur < 0)
      return cur;
  }
  ret = simnpu__tfjs_begin_op (l, k == 1 ? SIMNPU_IR_IDENTITY :
      SIMNPU_IR_CONCAT, NULL, (unsigned) k, vals, 1, &values, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = (int32_t) axis;
  if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
    return ret;
  ret = simnpu__tfjs_begin_op (l, k == 1 ? SIMNPU_IR_IDENTITY :
      SIMNPU_IR_CONCAT, "indices64", (unsigned) k, idxs, 1, &cat, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = (int32_t) axis;
  if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
    return ret;
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CAST, "indices", 1, &cat, 1, &out,
      &n);
  if (ret < 0)
    return ret;
  n->attrs.dtype = SIMNPU_IR_I32;
  if ((ret = simnpu__tfjs_finish_op (l, n)) < 0)
    return ret;
  simnpu__tfjs_register_output (l, tn, 0, values);
  return simnpu__tfjs_register_output (l, tn, 1, out);
}

/* ------------------------------------------------------------------ */

const tfjs_op simnpu__tfjs_index_ops[] = {
  {"GatherNd", tr_gather_nd, 0},
  {"Range", tr_range, 0},
  {"Size", tr_size, 0},
  {"Fill", tr_fill, 0},
  {"ZerosLike", tr_zeros_like, 0},
  {"OnesLike", tr_ones_like, 0},
  {"BroadcastTo", tr_broadcast_to, 0},
  {"SparseToDense", tr_sparse_to_dense, 0},
  {"TopKV2", tr_top_k, 0},
};

const unsigned simnpu__tfjs_n_index_ops = G_N_ELEMENTS (simnpu__tfjs_index_ops);
