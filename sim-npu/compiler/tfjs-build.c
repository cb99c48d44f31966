/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the TF.js translations build the float IR with: fresh tensors and
 * nodes named after the TF node, shape inference as each node is made,
 * constant operands read as values, and the outputs registered under the
 * names later nodes look them up by. */

#include "tfjs-private.h"

/* ------------------------------------------------------------------ */
/* IR building helpers */

/* A tensor name not yet taken: base, else base_1, base_2, ... */
static char *
unique_name (tfjs_loader * l, const char *base)
{
  char *name = g_strdup (base);
  unsigned k = 1;

  while (g_hash_table_contains (l->tensors, name)) {
    g_free (name);
    name = g_strdup_printf ("%s_%u", base, k++);
  }
  return name;
}

/* Adds a tensor registered under its (unique) name; the graph's tensor
 * name and the lookup key are the same. */
int
simnpu__tfjs_new_tensor (tfjs_loader * l, const char *base, bool is_const,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims, void *data)
{
  char *name = unique_name (l, base);
  int t;

  if (is_const)
    t = simnpu__ir_add_const (l->g, name, dtype, rank, dims, data);
  else
    t = simnpu__ir_add_tensor (l->g, name, dtype, rank, dims);
  if (t < 0) {
    g_free (name);
    if (is_const)
      g_free (data);
    return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "too many tensors (at most %d)",
        SIMNPU_IR_MAX_TENSORS);
  }
  g_hash_table_insert (l->tensors, name, GINT_TO_POINTER (t + 1));
  return t;
}

int
simnpu__tfjs_new_const (tfjs_loader * l, const char *suffix,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims, void *data)
{
  char *base = g_strdup_printf ("%s/%s", l->cur->name, suffix);
  int t = simnpu__tfjs_new_tensor (l, base, true, dtype, rank, dims, data);
  g_free (base);
  return t;
}

/* Starts a node of op named after the TF node (suffix NULL) or
 * node/suffix, with n_out fresh outputs named likewise ("name:k" for
 * k > 0). Fill the attrs of *node_out, then simnpu__tfjs_finish_op(). */
int
simnpu__tfjs_begin_op (tfjs_loader * l, simnpu__ir_op op, const char *suffix,
    unsigned n_in, const int *in, unsigned n_out, int *out,
    simnpu__ir_node ** node_out)
{
  char *base = suffix ? g_strdup_printf ("%s/%s", l->cur->name, suffix)
      : g_strdup (l->cur->name);
  simnpu__ir_node *n;
  unsigned k;

  for (k = 0; k < n_out; k++) {
    char *name = k ? g_strdup_printf ("%s:%u", base, k) : g_strdup (base);
    out[k] =
        simnpu__tfjs_new_tensor (l, name, false, SIMNPU_IR_F32, 0, NULL, NULL);
    g_free (name);
    if (out[k] < 0) {
      g_free (base);
      return out[k];
    }
  }
  n = l->g->n_nodes < SIMNPU_IR_MAX_NODES ?
      simnpu__ir_add_node (l->g, op, base, n_in, in, n_out, out) : NULL;
  g_free (base);
  if (n == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_ENOMEM, "too many nodes (at most %d)",
        SIMNPU_IR_MAX_NODES);
  *node_out = n;
  return 0;
}

/* Infers the new node's output shapes at once: later nodes' translation
 * needs them (SAME padding, reshape targets). */
int
simnpu__tfjs_finish_op (tfjs_loader * l, simnpu__ir_node * n)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (n->op);
  unsigned i;

  if (info == NULL || info->infer == NULL)
    return simnpu__tfjs_fail (l, SIMNPU_EINTERNAL,
        "IR op %d has no shape inference", n->op);
  if (n->n_inputs < info->min_inputs || n->n_inputs > info->max_inputs)
    return simnpu__tfjs_fail (l, n->n_inputs > info->max_inputs
        && info->max_inputs >= SIMNPU_IR_MAX_INPUTS ? SIMNPU_EUNSUPPORTED :
        SIMNPU_EFORMAT, "%u inputs for %s; expected %u to %u", n->n_inputs,
        info->name, info->min_inputs, info->max_inputs);
  for (i = 0; i < n->n_outputs; i++)
    l->g->tensors[n->outputs[i]].producer = (int) (n - l->g->nodes);
  return info->infer (l->g, n, l->error);
}

/* One-output op with default attributes. */
int
simnpu__tfjs_simple_op (tfjs_loader * l, simnpu__ir_op op, const char *suffix,
    unsigned n_in, const int *in)
{
  simnpu__ir_node *n;
  int out, ret;

  ret = simnpu__tfjs_begin_op (l, op, suffix, n_in, in, 1, &out, &n);
  if (ret == 0)
    ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

int
simnpu__tfjs_reshape_op (tfjs_loader * l, const char *suffix, int x,
    unsigned rank, const int64_t * dims)
{
  simnpu__ir_node *n;
  int out, ret;
  unsigned i;

  ret =
      simnpu__tfjs_begin_op (l, SIMNPU_IR_RESHAPE, suffix, 1, &x, 1, &out, &n);
  if (ret < 0)
    return ret;
  n->attrs.n_ints = rank;
  for (i = 0; i < rank; i++)
    n->attrs.ints[i] = dims[i];
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

int
simnpu__tfjs_transpose_op (tfjs_loader * l, const char *suffix, int x,
    unsigned rank, const int64_t * perm)
{
  simnpu__ir_node *n;
  int out, ret;
  unsigned i;

  ret =
      simnpu__tfjs_begin_op (l, SIMNPU_IR_TRANSPOSE, suffix, 1, &x, 1, &out,
      &n);
  if (ret < 0)
    return ret;
  n->attrs.n_ints = rank;
  for (i = 0; i < rank; i++)
    n->attrs.ints[i] = perm[i];
  ret = simnpu__tfjs_finish_op (l, n);
  return ret < 0 ? ret : out;
}

/* Makes tensor t constant, folding what computes it. */
static int
need_const (tfjs_loader * l, int t, const char *what)
{
  int ret;

  if (T (l, t)->is_const)
    return 0;
  ret = simnpu__ir_fold_constants (l->g, l->error);
  if (ret < 0)
    return ret;
  if (!T (l, t)->is_const)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED,
        "%s ('%s') must be constant", what, T (l, t)->name);
  return 0;
}

/* The integer values of a constant (any rank, I32 or I64). */
int
simnpu__tfjs_const_ints (tfjs_loader * l, int t, const char *what,
    int64_t * vals, unsigned max, unsigned *n)
{
  simnpu__ir_tensor *x;
  int64_t count, i;
  int ret = need_const (l, t, what);

  if (ret < 0)
    return ret;
  x = T (l, t);
  count = simnpu__ir_tensor_elements (x);
  if (x->dtype != SIMNPU_IR_I32 && x->dtype != SIMNPU_IR_I64)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "%s ('%s'): expected int32 values, not %s", what, x->name,
        simnpu__ir_dtype_name (x->dtype));
  if (count > max)
    return simnpu__tfjs_fail (l, SIMNPU_EUNSUPPORTED, "%s ('%s'): %"
        G_GINT64_FORMAT " values; simnpu-compile takes at most %u", what,
        x->name, count, max);
  for (i = 0; i < count; i++)
    vals[i] = x->dtype == SIMNPU_IR_I32 ? ((const int32_t *) x->data)[i]
        : ((const int64_t *) x->data)[i];
  *n = (unsigned) count;
  return 0;
}

int
simnpu__tfjs_const_float (tfjs_loader * l, int t, const char *what, float *out)
{
  simnpu__ir_tensor *x;
  int ret = need_const (l, t, what);

  if (ret < 0)
    return ret;
  x = T (l, t);
  if (simnpu__ir_tensor_elements (x) != 1)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "%s ('%s'): expected one value", what, x->name);
  switch (x->dtype) {
    case SIMNPU_IR_F32:
      *out = *(const float *) x->data;
      break;
    case SIMNPU_IR_I32:
      *out = (float) *(const int32_t *) x->data;
      break;
    case SIMNPU_IR_I64:
      *out = (float) *(const int64_t *) x->data;
      break;
    default:
      return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
          "%s ('%s'): expected a number", what, x->name);
  }
  return 0;
}

int
simnpu__tfjs_normalise_axis (tfjs_loader * l, int64_t axis, unsigned rank,
    int32_t * out)
{
  if (axis < -(int64_t) rank || axis >= (int64_t) rank)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT,
        "axis %" G_GINT64_FORMAT " is out of range for rank %u", axis, rank);
  *out = (int32_t) (axis < 0 ? axis + rank : axis);
  return 0;
}

int
simnpu__tfjs_register_output (tfjs_loader * l, const tfjs_node * tn, unsigned k,
    int t)
{
  char *key = k ? g_strdup_printf ("%s:%u", tn->name, k) : g_strdup (tn->name);
  /* the final op of a node already carries its name; an alias (identity
   * translations) points the key at an existing tensor */
  g_hash_table_replace (l->tensors, key, GINT_TO_POINTER (t + 1));
  return 0;
}

/* ------------------------------------------------------------------ */
/* Shared by the translations */

int
simnpu__tfjs_tr_elementwise (tfjs_loader * l, const tfjs_node * tn,
    const int *in, simnpu__ir_op op)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (op);
  int out;

  /* more inputs than the IR takes is the IR's limit, not the model's
   * fault (AddN, ConcatV2 take any number) */
  if (info && (tn->n_inputs < info->min_inputs
          || tn->n_inputs > info->max_inputs))
    return simnpu__tfjs_fail (l, tn->n_inputs > info->max_inputs
        && info->max_inputs >= SIMNPU_IR_MAX_INPUTS ? SIMNPU_EUNSUPPORTED :
        SIMNPU_EFORMAT, "%u inputs; expected %u to %u", tn->n_inputs,
        info->min_inputs, info->max_inputs);
  out = simnpu__tfjs_simple_op (l, op, NULL, tn->n_inputs, in);
  return out < 0 ? out : simnpu__tfjs_register_output (l, tn, 0, out);
}

int
simnpu__tfjs_need_inputs (tfjs_loader * l, const tfjs_node * tn, unsigned min,
    unsigned max)
{
  if (tn->n_inputs < min || tn->n_inputs > max)
    return simnpu__tfjs_fail (l, SIMNPU_EFORMAT, "%u inputs; expected %u to %u",
        tn->n_inputs, min, max);
  return 0;
}
