/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js translations of the ops that move or reinterpret data: pads,
 * concatenation, pack and split, reshapes, squeeze, transpose, slices,
 * resizes, cast, shape, gather, tile and identity. The table at the end
 * maps each TF op to its translation. */

#include "tfjs-private.h"

#include <string.h>

/* largest integer constant read as shape-like values (slice bounds,
 * reshape targets, pads) */
#define TFJS_MAX_CONST_INTS (2 * SIMNPU_IR_MAX_RANK)

static const char *
dims_str (const simnpu__ir_tensor * t, char *buf, size_t size)
{
  size_t len = 0;
  unsigned i;

  buf[0] = '\0';
  len += g_snprintf (buf + len, size - len, "[");
  for (i = 0; i < t->rank && len < size; i++)
    len += g_snprintf (buf + len, size - len, "%s%" G_GINT64_FORMAT,
        i ? "," : "", t->dims[i]);
  if (len < size)
    g_snprintf (buf + len, size - len, "]");
  return buf;
}

static int
translate_pad (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_pad_mode mode, float value)
{
  simnpu__ir_node *n;
  int64_t p[TFJS_MAX_CONST_INTS];
  unsigned np, rank = T (l, in[0])->rank, i;
  int out, ret;

  ret =
      simnpu__tfjs_const_ints (l, in[1], "paddings", p, TFJS_MAX_CONST_INTS,
      &np);
  if (ret < 0)
    return ret;
  if (np != 2 * rank)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "%u paddings; expected %u ([rank, 2])", np, 2 * rank);
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_PAD, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  for (i = 0; i < rank; i++) {
    if (p[2 * i] < 0 || p[2 * i + 1] < 0 || p[2 * i] > G_MAXINT32
        || p[2 * i + 1] > G_MAXINT32)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "paddings of axis %u must be >= 0", i);
    n->attrs.ints[i] = p[2 * i];
    n->attrs.ints[rank + i] = p[2 * i + 1];
  }
  n->attrs.n_ints = 2 * rank;
  n->attrs.mode = mode;
  n->attrs.f[0] = value;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_pad (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  float value = 0.0f;
  int ret = simnpu__tfjs_need_inputs (l, tn, 2, 3);

  if (ret == 0 && tn->n_inputs == 3)
    ret = simnpu__tfjs_const_float (l, in[2], "constant_values", &value);
  return ret < 0 ? ret : translate_pad (l, tn, in, SIMNPU_IR_PAD_CONSTANT,
      value);
}

static int
tr_mirror_pad (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  char mode[TFJS_ATTR_STRING];
  int ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = simnpu__tfjs_attr_string (l, tn, "mode", mode);
  if (ret < 0)
    return ret;
  if (strcmp (mode, "REFLECT") != 0)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "mode '%s'; only REFLECT is supported", mode);
  return translate_pad (l, tn, in, SIMNPU_IR_PAD_REFLECT, 0.0f);
}

static int
tr_concat (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  int64_t axis;
  unsigned na;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, SIMNPU_IR_MAX_INPUTS + 1);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[tn->n_inputs - 1], "axis", &axis, 1,
        &na);
  if (ret == 0 && na != 1)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected one axis");
  if (ret < 0)
    return ret;
  if (tn->n_inputs == 2) {
    out = simnpu__tfjs_simple_op (l, SIMNPU_IR_IDENTITY, NULL, 1, in);
    return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
  }
  ret =
      simnpu__tfjs_begin_op (l, SIMNPU_IR_CONCAT, NULL, tn->n_inputs - 1, in, 1,
      &out, &n);
  if (ret == 0)
    ret =
        simnpu__tfjs_normalise_axis (l, axis, T (l, in[0])->rank,
        &n->attrs.axis);
  if (ret == 0)
    ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_pack (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int parts[SIMNPU_IR_MAX_INPUTS];
  simnpu__ir_node *n;
  int64_t axis, dims[SIMNPU_IR_MAX_RANK];
  int32_t ax = 0;
  unsigned i, j, rank;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, SIMNPU_IR_MAX_INPUTS);

  if (ret == 0)
    ret = simnpu__tfjs_attr_int (l, tn, "axis", 0, -SIMNPU_IR_MAX_RANK,
        SIMNPU_IR_MAX_RANK, &axis);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  if (rank >= SIMNPU_IR_MAX_RANK)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "the result's rank exceeds %d", SIMNPU_IR_MAX_RANK);
  ret = simnpu__tfjs_normalise_axis (l, axis, rank + 1, &ax);
  if (ret < 0)
    return ret;
  for (i = 0; i < tn->n_inputs; i++) {
    const simnpu__ir_tensor *t = T (l, in[i]);
    char suffix[32];
    if (t->rank != rank)
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "input %u has rank %u; expected %u", i, t->rank, rank);
    for (j = 0; j < rank + 1; j++)
      dims[j] = j < (unsigned) ax ? t->dims[j] : j == (unsigned) ax ? 1
          : t->dims[j - 1];
    g_snprintf (suffix, sizeof suffix, "expand%u", i);
    parts[i] = simnpu__tfjs_reshape_op (l, suffix, in[i], rank + 1, dims);
    if (parts[i] < 0)
      return parts[i];
  }
  ret =
      simnpu__tfjs_begin_op (l, SIMNPU_IR_CONCAT, NULL, tn->n_inputs, parts, 1,
      &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = ax;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

/* Split along axis into the given sizes, each reshaped when drop_axis. */
static int
split_into (tfjs_loader * l, const tfjs_node * tn, int x, int32_t axis,
    const int64_t * sizes, unsigned n_out, bool drop_axis)
{
  int outs[SIMNPU_IR_MAX_OUTPUTS];
  simnpu__ir_node *n;
  unsigned i, j;
  int ret;

  if (n_out < 1 || n_out > SIMNPU_IR_MAX_OUTPUTS)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "%u outputs; expected 1 to %d", n_out, SIMNPU_IR_MAX_OUTPUTS);
  ret =
      simnpu__tfjs_begin_op (l, SIMNPU_IR_SPLIT, drop_axis ? "split" : NULL, 1,
      &x, n_out, outs, &n);
  if (ret < 0)
    return ret;
  n->attrs.axis = axis;
  n->attrs.n_ints = n_out;
  for (i = 0; i < n_out && i < SIMNPU_IR_MAX_INTS; i++)
    n->attrs.ints[i] = sizes[i];
  if (n_out > SIMNPU_IR_MAX_INTS)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "more than %d parts",
        SIMNPU_IR_MAX_INTS);
  ret = simnpu__tfjs_finish_op (l, n);
  if (ret < 0)
    return ret;
  for (i = 0; i < n_out; i++) {
    int t = outs[i];
    if (drop_axis) {
      const simnpu__ir_tensor *p = T (l, outs[i]);
      int64_t dims[SIMNPU_IR_MAX_RANK];
      char suffix[32];
      unsigned r = 0;
      for (j = 0; j < p->rank; j++)
        if (j != (unsigned) axis)
          dims[r++] = p->dims[j];
      g_snprintf (suffix, sizeof suffix, "part%u", i);
      t = simnpu__tfjs_reshape_op (l, suffix, outs[i], r, dims);
      if (t < 0)
        return t;
    }
    simnpu__tfjs_register_output (l, tn, i, t);
  }
  return 0;
}

static int
tr_unpack (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t axis, num, sizes[SIMNPU_IR_MAX_OUTPUTS];
  int32_t ax = 0;
  unsigned i;
  int ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = simnpu__tfjs_attr_int (l, tn, "axis", 0, -SIMNPU_IR_MAX_RANK,
        SIMNPU_IR_MAX_RANK, &axis);
  if (ret == 0)
    ret = simnpu__tfjs_normalise_axis (l, axis, T (l, in[0])->rank, &ax);
  if (ret == 0)
    ret = simnpu__tfjs_attr_int (l, tn, "num", 0, 1, SIMNPU_IR_MAX_INTS, &num);
  if (ret < 0)
    return ret;
  if (T (l, in[0])->dims[ax] != num)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
        "num %" G_GINT64_FORMAT " is not the size of axis %d", num, ax);
  for (i = 0; i < num; i++)
    sizes[i] = 1;
  return split_into (l, tn, in[0], ax, sizes, (unsigned) num, true);
}

static int
tr_split (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t axis, num, sizes[SIMNPU_IR_MAX_OUTPUTS];
  unsigned na, i;
  int32_t ax = 0;
  int ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[0], "split_dim", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected one split_dim");
  if (ret == 0)
    ret = simnpu__tfjs_normalise_axis (l, axis, T (l, in[1])->rank, &ax);
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_int (l, tn, "num_split", 1, 1, SIMNPU_IR_MAX_INTS,
        &num);
  if (ret < 0)
    return ret;
  if (T (l, in[1])->dims[ax] % num != 0)
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "axis %d does not split into %"
        G_GINT64_FORMAT " equal parts", ax, num);
  for (i = 0; i < num; i++)
    sizes[i] = T (l, in[1])->dims[ax] / num;
  return split_into (l, tn, in[1], ax, sizes, (unsigned) num, false);
}

static int
tr_split_v (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t axis, sizes[SIMNPU_IR_MAX_INTS], known = 0, dim;
  unsigned na, ns, i, unknown = SIMNPU_IR_MAX_INTS;
  int32_t ax = 0;
  int ret = simnpu__tfjs_need_inputs (l, tn, 3, 3);

  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[2], "split_dim", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected one split_dim");
  if (ret == 0)
    ret = simnpu__tfjs_normalise_axis (l, axis, T (l, in[0])->rank, &ax);
  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "size_splits", sizes,
        SIMNPU_IR_MAX_INTS, &ns);
  if (ret < 0)
    return ret;
  dim = T (l, in[0])->dims[ax];
  for (i = 0; i < ns; i++) {
    if (sizes[i] == -1 && unknown == SIMNPU_IR_MAX_INTS)
      unknown = i;
    else if (sizes[i] < 0 || sizes[i] > dim)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "size_splits[%u] is invalid",
          i);
    else
      known += sizes[i];
  }
  if (unknown < SIMNPU_IR_MAX_INTS)
    sizes[unknown] = dim - known;
  if ((unknown < SIMNPU_IR_MAX_INTS && known > dim)
      || (unknown == SIMNPU_IR_MAX_INTS && known != dim))
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "size_splits do not add up to %"
        G_GINT64_FORMAT, dim);
  return split_into (l, tn, in[0], ax, sizes, ns, false);
}

/* When t is s copies of one tensor stacked along a new axis (a TF Pack of
 * the same input s times, as the front-end writes it: each copy reshaped
 * to have a 1 at axis, then concatenated), the tensor copied, else -1. */
static int
stacked_copies (tfjs_loader * l, int t, unsigned axis, unsigned rank,
    unsigned *copies)
{
  const simnpu__ir_tensor *x = T (l, t);
  const simnpu__ir_node *c;
  int src = -1;
  unsigned i, j;

  if (x->producer < 0 || x->rank != rank)
    return -1;
  c = &l->g->nodes[x->producer];
  if (c->op != SIMNPU_IR_CONCAT || c->attrs.axis != (int) axis
      || c->n_inputs < 2)
    return -1;
  for (i = 0; i < c->n_inputs; i++) {
    const simnpu__ir_tensor *p = T (l, c->inputs[i]);
    const simnpu__ir_node *r;
    if (p->producer < 0)
      return -1;
    r = &l->g->nodes[p->producer];
    if (r->op != SIMNPU_IR_RESHAPE || (i > 0 && r->inputs[0] != src))
      return -1;
    src = r->inputs[0];
  }
  x = T (l, src);
  if (x->rank + 1 != rank)
    return -1;
  for (j = 0; j < rank; j++)
    if (T (l, t)->dims[j] != (j < axis ? x->dims[j] : j == axis ? c->n_inputs
            : x->dims[j - 1]))
      return -1;
  *copies = c->n_inputs;
  return src;
}

/* TF's nearest_neighbor_upsampling (the Object Detection API's feature
 * pyramids): x [N,H,W,C] stacked s times along a new axis 3, that stacked
 * s times along a new axis 2, reshaped to [N,H*s,W*s,C], is a nearest
 * resize, which the device runs; the stacks, rank 5 and 6, it does not.
 * 1 and *out the resize of x when the reshape of in to dims is one, else
 * 0 (the stacks, read by nothing else, are pruned later); < 0 an error. */
static int
upsampling_resize (tfjs_loader * l, int in, const int64_t * dims,
    unsigned nd, int *out)
{
  const simnpu__ir_tensor *x;
  simnpu__ir_node *n;
  unsigned sw, sh;
  int y, src, ret;

  if (nd != 4 || (y = stacked_copies (l, in, 2, 6, &sh)) < 0
      || (src = stacked_copies (l, y, 3, 5, &sw)) < 0)
    return 0;
  x = T (l, src);
  if (dims[0] != x->dims[0] || dims[1] != x->dims[1] * sh
      || dims[2] != x->dims[2] * sw || dims[3] != x->dims[3])
    return 0;
  ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_RESIZE, NULL, 1, &src, 1, out, &n);
  if (ret < 0)
    return ret;
  n->attrs.ints[0] = dims[1];
  n->attrs.ints[1] = dims[2];
  n->attrs.n_ints = 2;
  n->attrs.mode = SIMNPU_IR_RESIZE_NEAREST;
  /* out[y] = in[floor (y / s)]: each row and column s times */
  n->attrs.coord = SIMNPU_IR_COORD_ASYMMETRIC;
  n->attrs.nearest = SIMNPU_IR_NEAREST_FLOOR;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : 1;
}

static int
tr_reshape (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t dims[SIMNPU_IR_MAX_RANK], known = 1, total;
  unsigned nd, i, unknown = SIMNPU_IR_MAX_RANK;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "shape", dims, SIMNPU_IR_MAX_RANK,
        &nd);
  if (ret < 0)
    return ret;
  total = simnpu__ir_tensor_elements (T (l, in[0]));
  for (i = 0; i < nd; i++) {
    if (dims[i] == -1 && unknown == SIMNPU_IR_MAX_RANK)
      unknown = i;
    else if (dims[i] < 0 || dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "shape[%u] = %" G_GINT64_FORMAT " is invalid", i, dims[i]);
    else
      known *= dims[i];
    if (known > SIMNPU_IR_MAX_ELEMENTS)
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "the target shape is too large");
  }
  if (unknown < SIMNPU_IR_MAX_RANK) {
    if (known == 0 || total % known != 0)
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "cannot reshape %" G_GINT64_FORMAT " elements with -1 in the target",
          total);
    dims[unknown] = total / known;
  } else if (known != total) {
    char buf[128];
    return simnpu__tfjs_fail (l, SIMNPU_ESHAPE, "cannot reshape '%s' %s (%"
        G_GINT64_FORMAT " elements) into %" G_GINT64_FORMAT " elements",
        T (l, in[0])->name, dims_str (T (l, in[0]), buf, sizeof buf), total,
        known);
  }
  ret = upsampling_resize (l, in[0], dims, nd, &out);
  if (ret < 0)
    return ret;
  if (ret == 0)
    out = simnpu__tfjs_reshape_op (l, NULL, in[0], nd, dims);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_expand_dims (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t axis, dims[SIMNPU_IR_MAX_RANK];
  int32_t ax = 0;
  unsigned na, i;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[1], "dim", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected one dim");
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  if (t->rank >= SIMNPU_IR_MAX_RANK)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "rank above %d",
        SIMNPU_IR_MAX_RANK);
  ret = simnpu__tfjs_normalise_axis (l, axis, t->rank + 1, &ax);
  if (ret < 0)
    return ret;
  for (i = 0; i <= t->rank; i++)
    dims[i] = i < (unsigned) ax ? t->dims[i] : i == (unsigned) ax ? 1
        : t->dims[i - 1];
  out = simnpu__tfjs_reshape_op (l, NULL, in[0], t->rank + 1, dims);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_squeeze (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t axes[TFJS_MAX_LIST], dims[SIMNPU_IR_MAX_RANK];
  bool drop[SIMNPU_IR_MAX_RANK] = { false };
  unsigned na, i, r = 0;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret =
        simnpu__tfjs_attr_ints (l, tn, "squeeze_dims", axes, TFJS_MAX_LIST,
        &na);
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  for (i = 0; i < na; i++) {
    int32_t ax = 0;
    ret = simnpu__tfjs_normalise_axis (l, axes[i], t->rank, &ax);
    if (ret < 0)
      return ret;
    if (t->dims[ax] != 1)
      return simnpu__tfjs_fail (l, SIMNPU_ESHAPE,
          "axis %d has size %" G_GINT64_FORMAT ", not 1", ax, t->dims[ax]);
    drop[ax] = true;
  }
  for (i = 0; i < t->rank; i++)
    if (!(na ? drop[i] : t->dims[i] == 1))
      dims[r++] = t->dims[i];
  out = simnpu__tfjs_reshape_op (l, NULL, in[0], r, dims);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_transpose (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int64_t perm[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  unsigned np, i, rank;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "perm", perm, SIMNPU_IR_MAX_RANK,
        &np);
  if (ret < 0)
    return ret;
  rank = T (l, in[0])->rank;
  if (np != rank)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "perm has %u values; expected %u", np, rank);
  for (i = 0; i < np; i++) {
    if (perm[i] < 0)
      perm[i] += rank;
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]])
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "perm is not a permutation");
    seen[perm[i]] = true;
  }
  out = simnpu__tfjs_transpose_op (l, NULL, in[0], rank, perm);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

/* One resolved slice per input axis and the result's final shape. */
typedef struct
{
  int64_t start[SIMNPU_IR_MAX_RANK], end[SIMNPU_IR_MAX_RANK],
      step[SIMNPU_IR_MAX_RANK];
  unsigned final_rank;
  int64_t final_dims[SIMNPU_IR_MAX_RANK];
} tfjs_slice;

static int
slice_op (tfjs_loader * l, const tfjs_node * tn, int x, const tfjs_slice * s)
{
  const simnpu__ir_tensor *t = T (l, x);
  simnpu__ir_node *n;
  unsigned i, rank = t->rank;
  bool whole = true, same_shape;
  int out, ret;

  for (i = 0; i < rank; i++)
    if (s->start[i] != 0 || s->end[i] != t->dims[i] || s->step[i] != 1)
      whole = false;
  if (2 * rank > SIMNPU_IR_MAX_INTS)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "rank %u is too high to slice", rank);
  same_shape = s->final_rank == rank;
  for (i = 0; same_shape && i < rank; i++) {
    int64_t len = (s->end[i] - s->start[i] + s->step[i] - 1) / s->step[i];
    same_shape = MAX (len, 0) == s->final_dims[i];
  }
  if (whole) {
    out = x;
  } else {
    ret =
        simnpu__tfjs_begin_op (l, SIMNPU_IR_SLICE, same_shape ? NULL : "slice",
        1, &x, 1, &out, &n);
    if (ret < 0)
      return ret;
    for (i = 0; i < rank; i++) {
      n->attrs.ints[i] = s->start[i];
      n->attrs.ints[rank + i] = s->end[i];
      n->attrs.steps[i] = s->step[i];
    }
    n->attrs.n_ints = 2 * rank;
    ret = simnpu__tfjs_finish_op (l, n);
    if (ret < 0)
      return ret;
  }
  if (!same_shape || whole)
    out = simnpu__tfjs_reshape_op (l, NULL, out, s->final_rank, s->final_dims);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_strided_slice (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t begin[SIMNPU_IR_MAX_RANK], end[SIMNPU_IR_MAX_RANK],
      strides[SIMNPU_IR_MAX_RANK];
  int64_t begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_mask;
  unsigned nb, ne, ns, i, full = 0, rank, n_new_after = 0, k;
  bool seen_ellipsis = false;
  tfjs_slice s = { 0 };
  int ret = simnpu__tfjs_need_inputs (l, tn, 4, 4);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "begin", begin, SIMNPU_IR_MAX_RANK,
        &nb);
  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[2], "end", end, SIMNPU_IR_MAX_RANK, &ne);
  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[3], "strides", strides,
        SIMNPU_IR_MAX_RANK, &ns);
  if (ret == 0 && (nb != ne || nb != ns))
    ret =
        simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "begin, end and strides differ in length");
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_int (l, tn, "begin_mask", 0, 0, G_MAXINT32,
        &begin_mask);
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_int (l, tn, "end_mask", 0, 0, G_MAXINT32, &end_mask);
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_int (l, tn, "ellipsis_mask", 0, 0, G_MAXINT32,
        &ellipsis_mask);
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_int (l, tn, "new_axis_mask", 0, 0, G_MAXINT32,
        &new_axis_mask);
  if (ret == 0)
    ret =
        simnpu__tfjs_attr_int (l, tn, "shrink_axis_mask", 0, 0, G_MAXINT32,
        &shrink_mask);
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  rank = t->rank;
  if ((ellipsis_mask & (ellipsis_mask - 1)) != 0)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "more than one ellipsis");
  for (i = 0; i < nb; i++)
    if (ellipsis_mask & (G_GINT64_CONSTANT (1) << i))
      seen_ellipsis = true;
    else if (seen_ellipsis && (new_axis_mask & (G_GINT64_CONSTANT (1) << i)))
      n_new_after++;
  for (i = 0; i < rank; i++) {
    s.start[i] = 0;
    s.end[i] = t->dims[i];
    s.step[i] = 1;
  }
  /* sparse spec to dense: an ellipsis (or the end of the spec) stands for
   * every axis not named */
  for (i = 0; i < nb; i++) {
    int64_t bit = G_GINT64_CONSTANT (1) << i;
    if (ellipsis_mask & bit) {
      unsigned next = MIN (rank, rank - (nb - i) + 1 + n_new_after);
      if (rank + 1 + n_new_after < nb - i)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
            "the slice spec is longer than the input's rank %u", rank);
      for (; full < next; full++)
        if (s.final_rank < SIMNPU_IR_MAX_RANK)
          s.final_dims[s.final_rank++] = t->dims[full];
      continue;
    }
    if (new_axis_mask & bit) {
      if (s.final_rank >= SIMNPU_IR_MAX_RANK)
        return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
            "the result's rank exceeds %d", SIMNPU_IR_MAX_RANK);
      s.final_dims[s.final_rank++] = 1;
      continue;
    }
    if (full >= rank)
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "the slice spec names more axes than the input's rank %u", rank);
    {
      int64_t d = t->dims[full], st = strides[i], b = begin[i], e = end[i];
      if (st == 0)
        return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "strides[%u] is 0", i);
      if (st < 0)
        return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
            "negative strides[%u]", i);
      if (shrink_mask & bit) {
        if (b < 0)
          b += d;
        if (b < 0 || b >= d)
          return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
              "index %" G_GINT64_FORMAT " of axis %u is out of range",
              begin[i], full);
        s.start[full] = b;
        s.end[full] = b + 1;
        s.step[full] = 1;
      } else {
        if (begin_mask & bit)
          b = 0;
        else
          b = CLAMP (b < 0 ? b + d : b, 0, d);
        if (end_mask & bit)
          e = d;
        else
          e = CLAMP (e < 0 ? e + d : e, 0, d);
        s.start[full] = b;
        s.end[full] = MAX (e, b);
        s.step[full] = st;
        if (s.final_rank >= SIMNPU_IR_MAX_RANK)
          return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
              "the result's rank exceeds %d", SIMNPU_IR_MAX_RANK);
        s.final_dims[s.final_rank++] = (s.end[full] - b + st - 1) / st;
      }
      full++;
    }
  }
  for (k = full; k < rank; k++) {
    if (s.final_rank >= SIMNPU_IR_MAX_RANK)
      return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
          "the result's rank exceeds %d", SIMNPU_IR_MAX_RANK);
    s.final_dims[s.final_rank++] = t->dims[k];
  }
  return slice_op (l, tn, in[0], &s);
}

static int
tr_slice (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  const simnpu__ir_tensor *t;
  int64_t begin[SIMNPU_IR_MAX_RANK], size[SIMNPU_IR_MAX_RANK];
  unsigned nb, nsz, i;
  tfjs_slice s = { 0 };
  int ret = simnpu__tfjs_need_inputs (l, tn, 3, 3);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "begin", begin, SIMNPU_IR_MAX_RANK,
        &nb);
  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[2], "size", size, SIMNPU_IR_MAX_RANK,
        &nsz);
  if (ret < 0)
    return ret;
  t = T (l, in[0]);
  if (nb != t->rank || nsz != t->rank)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "begin and size need %u values", t->rank);
  for (i = 0; i < t->rank; i++) {
    int64_t e = size[i] == -1 ? t->dims[i] : begin[i] + size[i];
    if (begin[i] < 0 || begin[i] > t->dims[i] || size[i] < -1 || e > t->dims[i])
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "slice of axis %u is out of range", i);
    s.start[i] = begin[i];
    s.end[i] = e;
    s.step[i] = 1;
    s.final_dims[i] = e - begin[i];
  }
  s.final_rank = t->rank;
  return slice_op (l, tn, in[0], &s);
}

static int
translate_resize (tfjs_loader * l, const tfjs_node * tn, const int *in,
    simnpu__ir_resize_mode mode)
{
  simnpu__ir_node *n;
  int64_t size[2];
  unsigned ns;
  bool align = simnpu__tfjs_attr_bool (tn, "align_corners", false);
  bool half = simnpu__tfjs_attr_bool (tn, "half_pixel_centers", false);
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret = simnpu__tfjs_const_ints (l, in[1], "size", size, 2, &ns);
  if (ret == 0 && (ns != 2 || size[0] < 1 || size[1] < 1
          || size[0] > G_MAXINT32 || size[1] > G_MAXINT32))
    ret =
        simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "size: expected [height, width] > 0");
  if (ret == 0 && align && half)
    ret =
        simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "align_corners and half_pixel_centers are both set");
  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_RESIZE, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.ints[0] = size[0];
  n->attrs.ints[1] = size[1];
  n->attrs.n_ints = 2;
  n->attrs.mode = mode;
  if (mode == SIMNPU_IR_RESIZE_BILINEAR) {
    n->attrs.coord = align ? SIMNPU_IR_COORD_ALIGN_CORNERS
        : half ? SIMNPU_IR_COORD_HALF_PIXEL : SIMNPU_IR_COORD_ASYMMETRIC;
  } else {
    /* TF rounds half away from zero with align_corners, else floors */
    n->attrs.coord = align ? SIMNPU_IR_COORD_ALIGN_CORNERS
        : half ? SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN
        : SIMNPU_IR_COORD_ASYMMETRIC;
    n->attrs.nearest = align ? SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL
        : SIMNPU_IR_NEAREST_FLOOR;
  }
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_resize_bilinear (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_resize (l, tn, in, SIMNPU_IR_RESIZE_BILINEAR);
}

static int
tr_resize_nearest (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  return translate_resize (l, tn, in, SIMNPU_IR_RESIZE_NEAREST);
}

static int
tr_cast (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  simnpu__ir_dtype dt;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = simnpu__tfjs_attr_type (l, tn, "DstT", SIMNPU_IR_F32, &dt);
  if (ret == 0 && dt == SIMNPU_IR_F32 && T (l, in[0])->producer >= 0) {
    /* float pixels made integers (an integer image input, see
     * tr_placeholder) and back: the pixels as they came */
    const simnpu__ir_node *p = &l->g->nodes[T (l, in[0])->producer];
    unsigned k;
    for (k = 0; p->op == SIMNPU_IR_CAST && k < l->g->n_inputs; k++)
      if (p->inputs[0] == l->g->inputs[k]
          && T (l, p->inputs[0])->dtype == SIMNPU_IR_F32)
        return simnpu__tfjs_register_output (l, tn, 0, p->inputs[0]);
  }
  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_CAST, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.dtype = dt;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_shape (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  simnpu__ir_dtype dt;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);

  if (ret == 0)
    ret = simnpu__tfjs_attr_type (l, tn, "out_type", SIMNPU_IR_I32, &dt);
  if (ret < 0)
    return ret;
  out =
      simnpu__tfjs_simple_op (l, SIMNPU_IR_SHAPE,
      dt == SIMNPU_IR_I64 ? NULL : "shape", 1, in);
  if (out < 0 || dt == SIMNPU_IR_I64)
    return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
  {
    int shape = out;
    ret =
        simnpu__tfjs_begin_op (l, SIMNPU_IR_CAST, NULL, 1, &shape, 1, &out, &n);
  }
  if (ret < 0)
    return ret;
  n->attrs.dtype = dt;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_gather (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  int64_t axis = 0, batch_dims;
  unsigned na = 1;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 3);

  if (ret == 0 && tn->n_inputs == 3)
    ret = simnpu__tfjs_const_ints (l, in[2], "axis", &axis, 1, &na);
  if (ret == 0 && na != 1)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "expected one axis");
  if (ret == 0)
    ret = simnpu__tfjs_attr_int (l, tn, "batch_dims", 0, -SIMNPU_IR_MAX_RANK,
        SIMNPU_IR_MAX_RANK, &batch_dims);
  if (ret == 0 && batch_dims != 0)
    ret =
        simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "batch_dims %" G_GINT64_FORMAT "; only 0 is supported", batch_dims);
  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_GATHER, NULL, 2, in, 1, &out, &n);
  if (ret == 0)
    ret =
        simnpu__tfjs_normalise_axis (l, axis, T (l, in[0])->rank,
        &n->attrs.axis);
  if (ret == 0)
    ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_tile (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  simnpu__ir_node *n;
  int64_t reps[SIMNPU_IR_MAX_RANK];
  unsigned nr, i;
  int out, ret = simnpu__tfjs_need_inputs (l, tn, 2, 2);

  if (ret == 0)
    ret =
        simnpu__tfjs_const_ints (l, in[1], "multiples", reps,
        SIMNPU_IR_MAX_RANK, &nr);
  if (ret == 0 && nr != T (l, in[0])->rank)
    ret = simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "%u multiples for rank %u", nr,
        T (l, in[0])->rank);
  if (ret == 0)
    ret = simnpu__tfjs_begin_op (l, SIMNPU_IR_TILE, NULL, 1, in, 1, &out, &n);
  if (ret < 0)
    return ret;
  for (i = 0; i < nr; i++)
    n->attrs.ints[i] = reps[i];
  n->attrs.n_ints = nr;
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : simnpu__tfjs_register_output (l, tn, 0, out);
}

static int
tr_identity (tfjs_loader * l, const tfjs_node * tn, const int *in)
{
  int ret = simnpu__tfjs_need_inputs (l, tn, 1, 1);
  return ret < 0 ? ret : simnpu__tfjs_tr_elementwise (l, tn, in,
      SIMNPU_IR_IDENTITY);
}

/* ------------------------------------------------------------------ */

const tfjs_op simnpu__tfjs_shape_ops[] = {
  {"Identity", tr_identity, 0},
  {"StopGradient", tr_identity, 0},
  {"Snapshot", tr_identity, 0},
  {"Pad", tr_pad, 0},
  {"PadV2", tr_pad, 0},
  {"MirrorPad", tr_mirror_pad, 0},
  {"ConcatV2", tr_concat, 0},
  {"Pack", tr_pack, 0},
  {"Unpack", tr_unpack, 0},
  {"Split", tr_split, 0},
  {"SplitV", tr_split_v, 0},
  {"Reshape", tr_reshape, 0},
  {"ExpandDims", tr_expand_dims, 0},
  {"Squeeze", tr_squeeze, 0},
  {"Transpose", tr_transpose, 0},
  {"StridedSlice", tr_strided_slice, 0},
  {"Slice", tr_slice, 0},
  {"ResizeBilinear", tr_resize_bilinear, 0},
  {"ResizeNearestNeighbor", tr_resize_nearest, 0},
  {"Cast", tr_cast, 0},
  {"Shape", tr_shape, 0},
  {"GatherV2", tr_gather, 0},
  {"Gather", tr_gather, 0},
  {"Tile", tr_tile, 0},
};

const unsigned simnpu__tfjs_n_shape_ops = G_N_ELEMENTS (simnpu__tfjs_shape_ops);
