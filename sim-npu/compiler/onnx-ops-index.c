/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The imports of ONNX's indexing ops: Gather, and the ones without an IR
 * op of their own, built of comparisons against index ramps (iotas):
 * GatherElements, GatherND, ScatterElements, OneHot, TopK and Trilu. */

#include "onnx-private.h"

int
simnpu__onnx_imp_gather (onnx_ctx * c, const onnx_op * op)
{
  simnpu__ir_attrs a;
  int ins[2], out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &ins[0])) < 0
      || (ret = simnpu__onnx_in (c, 1, &ins[1])) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  if ((ret = simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0),
              T (c, ins[0])->rank, &a.axis)) < 0)
    return ret;
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit (c, SIMNPU_IR_GATHER, ins, 2, &out, 1, &a);
}

/* a zero scalar of dtype */
static int
onnx_zero (onnx_ctx * c, simnpu__ir_dtype dtype)
{
  int64_t zero = 0;
  return simnpu__onnx_add_const (c, dtype, 0, NULL, &zero);
}

/* where (j - i >= k, x, 0) on the last two axes (upper; <= k for lower) */
int
simnpu__onnx_imp_trilu (onnx_ctx * c, const onnx_op * op)
{
  bool upper = simnpu__onnx_attr_int (c, "upper", 1) != 0;
  int64_t k = 0, dims[2], i, j;
  int x, tk, out, mask, ret, n;
  uint8_t *m;
  const simnpu__ir_tensor *xt;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_opt_in (c, 1, &tk)) < 0)
    return ret;
  if (tk != SIMNPU_IR_NONE
      && (ret = simnpu__onnx_const_ints (c, tk, "k", &k, 1, &n)) < 0)
    return ret;
  xt = T (c, x);
  if (xt->rank < 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 2)", xt->rank);
  dims[0] = xt->dims[xt->rank - 2];
  dims[1] = xt->dims[xt->rank - 1];
  if (dims[0] * dims[1] > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "matrix too large");
  m = g_malloc (MAX (dims[0] * dims[1], 1));
  for (i = 0; i < dims[0]; i++)
    for (j = 0; j < dims[1]; j++)
      m[i * dims[1] + j] = upper ? j - i >= k : j - i <= k;
  mask = simnpu__onnx_add_const (c, SIMNPU_IR_BOOL, 2, dims, m);
  g_free (m);
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int ins[3] = { mask, x, onnx_zero (c, T (c, x)->dtype) };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* where (unsqueeze (wrap (indices), axis) == iota, on, off) */
int
simnpu__onnx_imp_onehot (onnx_ctx * c, const onnx_op * op)
{
  int64_t dims[SIMNPU_IR_MAX_RANK], depth_v[1] = { 0 };
  int idx, td, tv, ii, neg, wrapped, un, iota, eq, on, off, out, ret;
  unsigned rank, r, j;
  int32_t axis = 0;
  float depth_f;
  simnpu__ir_attrs a;
  int64_t zero = 0, one = 1;

  if ((ret = simnpu__onnx_in (c, 0, &idx)) < 0
      || (ret = simnpu__onnx_in (c, 1, &td)) < 0
      || (ret = simnpu__onnx_in (c, 2, &tv)) < 0)
    return ret;
  if ((ret = simnpu__onnx_const_float (c, td, "depth", &depth_f)) < 0)
    return ret;
  depth_v[0] = (int64_t) depth_f;
  rank = T (c, idx)->rank + 1;
  if (rank > SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "output rank above %d",
        SIMNPU_IR_MAX_RANK);
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &axis)) < 0)
    return ret;
  if (simnpu__ir_tensor_elements (T (c, tv)) != 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "values must hold [off, on]");
  /* indices below 0 count from depth */
  neg = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, depth_v), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  for (r = 0, j = 0; r < rank; r++)
    dims[r] = r == (unsigned) axis ? 1 : T (c, idx)->dims[j++];
  un = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, wrapped, un, dims, rank)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, depth_v[0], rank, axis, &iota)) < 0)
    return ret;
  eq = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, un, iota, eq)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  {
    int flat = simnpu__onnx_tmp (c);
    int64_t two = 2;
    if ((ret = simnpu__onnx_emit_reshape (c, tv, flat, &two, 1)) < 0)
      return ret;
    off = simnpu__onnx_tmp (c);
    on = simnpu__onnx_tmp (c);
    {
      int g0[2] = { flat, simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL,
            &zero)
      };
      int g1[2] =
          { flat, simnpu__onnx_add_const (c, SIMNPU_IR_I64, 0, NULL, &one) };
      if ((ret =
              simnpu__onnx_emit (c, SIMNPU_IR_GATHER, g0, 2, &off, 1, &a)) < 0
          || (ret =
              simnpu__onnx_emit (c, SIMNPU_IR_GATHER, g1, 2, &on, 1, &a)) < 0)
        return ret;
    }
  }
  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  {
    int ins[3] = { eq, on, off };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

/* out[.., i, ..] = data[.., idx[.., i, ..], ..] as
 * reduce_sum (where (unsqueeze (idx) == iota, unsqueeze (data), 0)) over
 * a new axis after axis: exact, one term is not zero */
int
simnpu__onnx_gather_elements (onnx_ctx * c, int data, int idx,
    int64_t axis_attr, int out)
{
  int64_t dd[SIMNPU_IR_MAX_RANK], id[SIMNPU_IR_MAX_RANK];
  int64_t ud[SIMNPU_IR_MAX_RANK], ui[SIMNPU_IR_MAX_RANK];
  int neg, ii, wrapped, di, du, iu, iota, eq, sel, ret;
  simnpu__ir_attrs a;
  unsigned rank, r, k;
  int32_t axis = 0;
  int64_t zero = 0, len;

  rank = T (c, data)->rank;
  if (T (c, idx)->rank != rank || rank == 0 || rank >= SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "indices of rank %u for data of "
        "rank %u", T (c, idx)->rank, rank);
  if ((ret = simnpu__onnx_norm_axis (c, axis_attr, rank, &axis)) < 0)
    return ret;
  memcpy (dd, T (c, data)->dims, sizeof dd);
  memcpy (id, T (c, idx)->dims, sizeof id);
  len = dd[axis];
  /* data cut to the indices' extent off the axis */
  simnpu__onnx_attrs_init (&a);
  for (r = 0; r < rank; r++) {
    if (r != (unsigned) axis && id[r] > dd[r])
      return simnpu__onnx_err (c, SIMNPU_ESHAPE,
          "indices exceed data on axis %u", r);
    a.ints[r] = 0;
    a.ints[rank + r] = r == (unsigned) axis ? dd[r] : id[r];
    a.steps[r] = 1;
  }
  a.n_ints = 2 * rank;
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_SLICE, data, &di, &a)) < 0)
    return ret;
  /* indices below 0 count from the axis' end */
  neg = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &len), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  /* indices [.., I, 1, ..], data [.., 1, D, ..], iota [D, 1, ..] */
  for (r = 0, k = 0; r < rank; r++) {
    ui[k] = id[r];
    ud[k++] = r == (unsigned) axis ? 1 : id[r];
    if (r == (unsigned) axis) {
      ui[k] = 1;
      ud[k++] = len;
    }
  }
  iu = simnpu__onnx_tmp (c);
  du = simnpu__onnx_tmp (c);
  eq = simnpu__onnx_tmp (c);
  sel = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, wrapped, iu, ui, rank + 1)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, di, du, ud, rank + 1)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, len, rank + 1, axis + 1, &iota)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, iu, iota, eq)) < 0)
    return ret;
  {
    int ins[3] = { eq, du, onnx_zero (c, T (c, data)->dtype) };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &sel, 1, NULL)) < 0)
      return ret;
  }
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = axis + 1;
  a.n_ints = 1;
  a.keepdims = false;
  return simnpu__onnx_emit (c, SIMNPU_IR_REDUCE_SUM, &sel, 1, &out, 1, &a);
}

int
simnpu__onnx_imp_gather_elements (onnx_ctx * c, const onnx_op * op)
{
  int data, idx, out, ret;

  if ((ret = simnpu__onnx_in (c, 0, &data)) < 0
      || (ret = simnpu__onnx_in (c, 1, &idx)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_gather_elements (c, data, idx, simnpu__onnx_attr_int (c,
          "axis", 0), out);
}

/* a scalar of dtype with value v (small integers) */
static int
onnx_scalar_of (onnx_ctx * c, simnpu__ir_dtype dtype, int v)
{
  uint8_t buf[sizeof (int64_t)] = { 0 };

  switch (dtype) {
    case SIMNPU_IR_F32:{
      float f = (float) v;
      memcpy (buf, &f, sizeof f);
      break;
    }
    case SIMNPU_IR_I64:{
      int64_t i = v;
      memcpy (buf, &i, sizeof i);
      break;
    }
    case SIMNPU_IR_I32:{
      int32_t i = v;
      memcpy (buf, &i, sizeof i);
      break;
    }
    default:
      buf[0] = (uint8_t) v;
      break;
  }
  return simnpu__onnx_add_const (c, dtype, 0, NULL, buf);
}

/* data with data[.., idx[.., i, ..], ..] = updates[.., i, ..] (or += / *=
 * for reduction add / mul): the updates spread over a new axis by a
 * one-hot mask of the indices, reduced over the indices' axis */
int
simnpu__onnx_imp_scatter_elements (onnx_ctx * c, const onnx_op * op)
{
  char buf[ONNX_STR_SIZE];
  const char *red =
      simnpu__onnx_attr_str (c, "reduction", "none", buf, sizeof buf);
  bool mul = strcmp (red, "mul") == 0, add = strcmp (red, "add") == 0;
  int64_t dd[SIMNPU_IR_MAX_RANK], id[SIMNPU_IR_MAX_RANK];
  int64_t ui[SIMNPU_IR_MAX_RANK], zero = 0, len;
  int data, idx, upd, neg, ii, wrapped, iu, uu, iota, eq, contrib, sum;
  int maskf, hitf, hit, out, ret;
  simnpu__ir_attrs a, cf;
  simnpu__ir_dtype dtype;
  unsigned rank, r, k;
  int32_t axis = 0;

  if ((ret = simnpu__onnx_in (c, 0, &data)) < 0
      || (ret = simnpu__onnx_in (c, 1, &idx)) < 0
      || (ret = simnpu__onnx_in (c, 2, &upd)) < 0)
    return ret;
  if (!mul && !add && strcmp (red, "none") != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "reduction '%s'", red);
  rank = T (c, data)->rank;
  dtype = T (c, data)->dtype;
  if (T (c, idx)->rank != rank || T (c, upd)->rank != rank || rank == 0
      || rank >= SIMNPU_IR_MAX_RANK)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "indices, updates and data differ " "in rank");
  if ((ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", 0), rank,
              &axis)) < 0)
    return ret;
  memcpy (dd, T (c, data)->dims, sizeof dd);
  memcpy (id, T (c, idx)->dims, sizeof id);
  for (r = 0; r < rank; r++)
    if ((r != (unsigned) axis && id[r] != dd[r])
        || id[r] != T (c, upd)->dims[r])
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "indices must cover the data " "off the axis and match the updates");
  len = dd[axis];
  neg = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &len), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  for (r = 0, k = 0; r < rank; r++) {
    ui[k++] = id[r];
    if (r == (unsigned) axis)
      ui[k++] = 1;
  }
  iu = simnpu__onnx_tmp (c);
  uu = simnpu__onnx_tmp (c);
  eq = simnpu__onnx_tmp (c);
  contrib = simnpu__onnx_tmp (c);
  sum = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, wrapped, iu, ui, rank + 1)) < 0
      || (ret = simnpu__onnx_emit_reshape (c, upd, uu, ui, rank + 1)) < 0
      || (ret =
          simnpu__onnx_iota_on_axis (c, len, rank + 1, axis + 1, &iota)) < 0
      || (ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, iu, iota, eq)) < 0)
    return ret;
  {
    int ins[3] = { eq, uu, onnx_scalar_of (c, dtype, mul ? 1 : 0) };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &contrib, 1,
                NULL)) < 0)
      return ret;
  }
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = axis;
  a.n_ints = 1;
  if ((ret =
          simnpu__onnx_emit (c,
              mul ? SIMNPU_IR_REDUCE_PROD : SIMNPU_IR_REDUCE_SUM, &contrib, 1,
              &sum, 1, &a)) < 0 || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  if (add || mul)
    return simnpu__onnx_emit2 (c, add ? SIMNPU_IR_ADD : SIMNPU_IR_MUL, data,
        sum, out);
  /* where any index hit, the update; elsewhere the data */
  simnpu__onnx_attrs_init (&cf);
  cf.dtype = SIMNPU_IR_F32;
  hit = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit1 (c, SIMNPU_IR_CAST, eq, &maskf, &cf)) < 0
      || (ret =
          simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_MAX, maskf, &hitf, &a)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_GREATER, hitf,
              simnpu__onnx_scalar_f32 (c, 0.0f), hit)) < 0)
    return ret;
  {
    int ins[3] = { hit, sum, data };
    return simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &out, 1, NULL);
  }
}

static int
check_nd_indices (onnx_ctx * c, const simnpu__ir_tensor * t,
    const int64_t * dd, int64_t k)
{
  int64_t n = simnpu__ir_tensor_elements (t), e;

  if (!t->is_const || t->data == NULL)
    return 0;
  for (e = 0; e < n; e++) {
    int64_t v = t->dtype == SIMNPU_IR_I64 ? ((const int64_t *) t->data)[e] :
        ((const int32_t *) t->data)[e];
    int64_t len = dd[e % k];
    if (v < -len || v >= len)
      return simnpu__onnx_err (c, SIMNPU_EFORMAT, "index %" G_GINT64_FORMAT
          " (element %" G_GINT64_FORMAT " of the indices) out of range for "
          "axis %d of size %" G_GINT64_FORMAT "; expected [%" G_GINT64_FORMAT
          ", %" G_GINT64_FORMAT ")", (gint64) v, (gint64) e, (int) (e % k),
          (gint64) len, (gint64) - len, (gint64) len);
  }
  return 0;
}

/* data[idx[.., 0], .., idx[.., k - 1]] as a gather along the first axis
 * of data reshaped to [d0 * .. * d(k-1), rest], by the linear index
 * sum (idx * strides) */
int
simnpu__onnx_imp_gather_nd (onnx_ctx * c, const onnx_op * op)
{
  int64_t dd[SIMNPU_IR_MAX_RANK], st[SIMNPU_IR_MAX_RANK], flat[1 +
      SIMNPU_IR_MAX_RANK], kdim[1], zero = 0, p = 1;
  int data, idx, neg, ii, wrapped, sc, lin, df, out, ret, j;
  unsigned rank, qr, r;
  simnpu__ir_attrs a;
  int64_t k;

  if ((ret = simnpu__onnx_in (c, 0, &data)) < 0
      || (ret = simnpu__onnx_in (c, 1, &idx)) < 0)
    return ret;
  if (simnpu__onnx_attr_int (c, "batch_dims", 0) != 0)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "batch_dims other than 0");
  rank = T (c, data)->rank;
  qr = T (c, idx)->rank;
  if (qr == 0)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "scalar indices");
  k = T (c, idx)->dims[qr - 1];
  if (k < 1 || k > rank)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "index tuples of %" G_GINT64_FORMAT " for data of rank %u", k, rank);
  memcpy (dd, T (c, data)->dims, sizeof dd);
  for (j = (int) k - 1; j >= 0; j--) {
    st[j] = p;
    p *= dd[j];
  }
  /* the linear index hides a tuple's index out of its axis: constant
   * tuples are checked here (the gather checks the rest) */
  if ((ret = check_nd_indices (c, T (c, idx), dd, k)) < 0)
    return ret;
  kdim[0] = k;
  neg = simnpu__onnx_tmp (c);
  ii = simnpu__onnx_tmp (c);
  wrapped = simnpu__onnx_tmp (c);
  sc = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_cast (c, idx, SIMNPU_IR_I64, &idx)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_LESS, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 0, NULL, &zero), neg)) < 0
      || (ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_ADD, idx, simnpu__onnx_add_const (c,
                  SIMNPU_IR_I64, 1, kdim, dd), ii)) < 0)
    return ret;
  {
    int ins[3] = { neg, ii, idx };
    if ((ret =
            simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &wrapped, 1,
                NULL)) < 0)
      return ret;
  }
  simnpu__onnx_attrs_init (&a);
  a.ints[0] = qr - 1;
  a.n_ints = 1;
  if ((ret =
          simnpu__onnx_emit2 (c, SIMNPU_IR_MUL, wrapped,
              simnpu__onnx_add_const (c, SIMNPU_IR_I64, 1, kdim, st), sc)) < 0
      || (ret = simnpu__onnx_emit1 (c, SIMNPU_IR_REDUCE_SUM, sc, &lin, &a)) < 0)
    return ret;
  flat[0] = p;
  for (r = k; r < rank; r++)
    flat[1 + r - k] = dd[r];
  df = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit_reshape (c, data, df, flat, 1 + rank - k)) < 0
      || (ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  simnpu__onnx_attrs_init (&a);
  {
    int gi[2] = { df, lin };
    return simnpu__onnx_emit (c, SIMNPU_IR_GATHER, gi, 2, &out, 1, &a);
  }
}

/* TopK's k stays under the IR's concat inputs */
#define ONNX_MAX_TOPK SIMNPU_IR_MAX_INPUTS

/* k rounds of argmax (argmin) along the axis, each masking its pick with
 * -inf (+inf): sorted values and indices, ties to the lower index */
int
simnpu__onnx_imp_topk (onnx_ctx * c, const onnx_op * op)
{
  bool largest = simnpu__onnx_attr_int (c, "largest", 1) != 0;
  int vals[ONNX_MAX_TOPK], idxs[ONNX_MAX_TOPK];
  int x, tk, cur, iota, vo, io, ret, n, i;
  simnpu__ir_attrs a, cat;
  unsigned rank;
  int64_t k;

  if ((ret = simnpu__onnx_in (c, 0, &x)) < 0
      || (ret = simnpu__onnx_in (c, 1, &tk)) < 0
      || (ret = simnpu__onnx_const_ints (c, tk, "k", &k, 1, &n)) < 0)
    return ret;
  rank = T (c, x)->rank;
  if (T (c, x)->dtype != SIMNPU_IR_F32)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "%s input (float only)",
        simnpu__ir_dtype_name (T (c, x)->dtype));
  simnpu__onnx_attrs_init (&a);
  if (rank == 0
      || (ret =
          simnpu__onnx_norm_axis (c, simnpu__onnx_attr_int (c, "axis", -1),
              rank, &a.axis)) < 0)
    return rank == 0 ? simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "scalar input") : ret;
  if (n != 1 || k < 1 || k > ONNX_MAX_TOPK || k > T (c, x)->dims[a.axis])
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "k must be 1 to %d and at "
        "most the axis' size", ONNX_MAX_TOPK);
  a.keepdims = true;
  if ((ret = simnpu__onnx_iota_on_axis (c, T (c, x)->dims[a.axis], rank, a.axis,
              &iota)) < 0
      || (ret = simnpu__onnx_out (c, 0, &vo)) < 0
      || (ret = simnpu__onnx_out (c, 1, &io)) < 0)
    return ret;
  cur = x;
  for (i = 0; i < k; i++) {
    int hit, masked;
    if ((ret =
            simnpu__onnx_emit1 (c,
                largest ? SIMNPU_IR_ARGMAX : SIMNPU_IR_ARGMIN, cur, &idxs[i],
                &a)) < 0)
      return ret;
    vals[i] = simnpu__onnx_tmp (c);
    if ((ret =
            simnpu__onnx_gather_elements (c, x, idxs[i], a.axis, vals[i])) < 0)
      return ret;
    if (i + 1 == k)
      break;
    hit = simnpu__onnx_tmp (c);
    masked = simnpu__onnx_tmp (c);
    if ((ret = simnpu__onnx_emit2 (c, SIMNPU_IR_EQUAL, idxs[i], iota, hit)) < 0)
      return ret;
    {
      int ins[3] = { hit, simnpu__onnx_scalar_f32 (c, largest ? -INFINITY :
            INFINITY), cur
      };
      if ((ret =
              simnpu__onnx_emit (c, SIMNPU_IR_WHERE, ins, 3, &masked, 1,
                  NULL)) < 0)
        return ret;
    }
    cur = masked;
  }
  simnpu__onnx_attrs_init (&cat);
  cat.axis = a.axis;
  if ((ret =
          simnpu__onnx_emit (c, k == 1 ? SIMNPU_IR_IDENTITY : SIMNPU_IR_CONCAT,
              vals, k, &vo, 1, &cat)) < 0)
    return ret;
  return simnpu__onnx_emit (c, k == 1 ? SIMNPU_IR_IDENTITY : SIMNPU_IR_CONCAT,
      idxs, k, &io, 1, &cat);
}
