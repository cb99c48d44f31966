/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The import context the op imports work through: ONNX value names to IR
 * tensors, node inputs and outputs, constants, and IR nodes added with
 * their shapes inferred at once and folded to constants when their inputs
 * are (so shape computations are constants by the time a consumer reads
 * them); the NHWC wrapping of spatial ops; attributes and constant inputs
 * read as values; small compositions the op families share. */

#include "onnx-private.h"

/* ------------------------------------------------------------------ */
/* Context helpers */

int
simnpu__onnx_err (onnx_ctx * c, int code, const char *fmt, ...)
{
  va_list ap;
  gchar *msg;
  int ret;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  ret = simnpu__set_error (c->error, code, "node '%s' (%s): %s",
      c->node_name, c->node->op_type, msg);
  g_free (msg);
  return ret;
}

int
simnpu__onnx_lookup (onnx_ctx * c, const char *name)
{
  gpointer v = g_hash_table_lookup (c->names, name);
  return v != NULL ? GPOINTER_TO_INT (v) - 1 : SIMNPU_IR_NONE;
}

void
simnpu__onnx_bind (onnx_ctx * c, const char *name, int t)
{
  g_hash_table_replace (c->names, g_strdup (name), GINT_TO_POINTER (t + 1));
}

/* optional input k: SIMNPU_IR_NONE when absent or empty */
int
simnpu__onnx_opt_in (onnx_ctx * c, unsigned k, int *t)
{
  const char *name;

  *t = SIMNPU_IR_NONE;
  if (k >= c->node->n_input)
    return 0;
  name = c->node->input[k];
  if (name == NULL || name[0] == '\0')
    return 0;
  *t = simnpu__onnx_lookup (c, name);
  if (*t == SIMNPU_IR_NONE)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "input %u '%s' is not defined (no initializer, graph input or "
        "earlier node output of that name)", k, name);
  return 0;
}

int
simnpu__onnx_in (onnx_ctx * c, unsigned k, int *t)
{
  int ret = simnpu__onnx_opt_in (c, k, t);
  if (ret < 0)
    return ret;
  if (*t == SIMNPU_IR_NONE)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "input %u is missing", k);
  return 0;
}

/* a new intermediate tensor */
int
simnpu__onnx_tmp (onnx_ctx * c)
{
  gchar *name = g_strdup_printf ("%s/tmp%u", c->node_name, c->tmp++);
  int t = simnpu__ir_add_tensor (c->g, name, SIMNPU_IR_F32, 0, NULL);
  g_free (name);
  return t;
}

/* the tensor of ONNX output k (bound to its name) */
int
simnpu__onnx_out (onnx_ctx * c, unsigned k, int *t)
{
  const char *name;

  if (k >= c->node->n_output || c->node->output[k] == NULL
      || c->node->output[k][0] == '\0')
    return simnpu__onnx_err (c, SIMNPU_EFORMAT, "output %u is missing", k);
  name = c->node->output[k];
  if (simnpu__onnx_lookup (c, name) != SIMNPU_IR_NONE)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "output '%s' is already defined (each value has one producer)", name);
  *t = simnpu__ir_add_tensor (c->g, name, SIMNPU_IR_F32, 0, NULL);
  simnpu__onnx_bind (c, name, *t);
  return 0;
}

/* Only the first n outputs are produced. */
int
simnpu__onnx_check_outputs (onnx_ctx * c, unsigned n)
{
  unsigned i;

  for (i = n; i < c->node->n_output; i++)
    if (c->node->output[i] != NULL && c->node->output[i][0] != '\0')
      return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
          "output %u ('%s') is not supported (only the first %u)", i,
          c->node->output[i], n);
  return 0;
}

int
simnpu__onnx_add_const (onnx_ctx * c, simnpu__ir_dtype dtype, unsigned rank,
    const int64_t * dims, const void *src)
{
  simnpu__ir_tensor tmp = { 0 };
  gchar *name;
  size_t bytes;
  int t;

  tmp.dtype = dtype;
  tmp.rank = rank;
  if (rank > 0)
    memcpy (tmp.dims, dims, rank * sizeof dims[0]);
  bytes = simnpu__ir_tensor_bytes (&tmp);
  name = g_strdup_printf ("%s/const%u", c->node_name, c->tmp++);
  t = simnpu__ir_add_const (c->g, name, dtype, rank, dims,
      src != NULL ? g_memdup2 (src, MAX (bytes, 1)) : g_malloc0 (MAX (bytes,
              1)));
  g_free (name);
  return t;
}

int
simnpu__onnx_scalar_f32 (onnx_ctx * c, float v)
{
  return simnpu__onnx_add_const (c, SIMNPU_IR_F32, 0, NULL, &v);
}

void
simnpu__onnx_attrs_init (simnpu__ir_attrs * a)
{
  memset (a, 0, sizeof *a);
  a->kernel[0] = a->kernel[1] = 1;
  a->stride[0] = a->stride[1] = 1;
  a->dilation[0] = a->dilation[1] = 1;
  a->groups = 1;
  a->act_max = INFINITY;
  a->act_min = -INFINITY;
}

/* Replaces the last node, whose inputs are all constants, by constants:
 * runs it alone in a graph of its own. */
static int
onnx_fold_last (onnx_ctx * c)
{
  simnpu__ir_graph *g = c->g;
  simnpu__ir_node *n = &g->nodes[g->n_nodes - 1];
  simnpu__ir_graph *tg;
  simnpu__ir_exec *x = NULL;
  int ins[SIMNPU_IR_MAX_INPUTS], outs[SIMNPU_IR_MAX_OUTPUTS];
  unsigned i;
  int ret = 0;

  tg = simnpu__ir_graph_new ("fold");
  for (i = 0; i < n->n_inputs; i++) {
    simnpu__ir_tensor *t;
    if (n->inputs[i] == SIMNPU_IR_NONE) {
      ins[i] = SIMNPU_IR_NONE;
      continue;
    }
    t = &g->tensors[n->inputs[i]];
    ins[i] = simnpu__ir_add_const (tg, t->name, t->dtype, t->rank, t->dims,
        g_memdup2 (t->data, MAX (simnpu__ir_tensor_bytes (t), 1)));
  }
  for (i = 0; i < n->n_outputs; i++)
    outs[i] = simnpu__ir_add_tensor (tg, g->tensors[n->outputs[i]].name,
        SIMNPU_IR_F32, 0, NULL);
  simnpu__ir_add_node (tg, n->op, n->name, n->n_inputs, ins, n->n_outputs,
      outs)->attrs = n->attrs;
  tg->n_outputs = n->n_outputs;
  memcpy (tg->outputs, outs, n->n_outputs * sizeof outs[0]);
  ret = simnpu__ir_infer_shapes (tg, c->error);
  if (ret == 0) {
    x = simnpu__ir_exec_new (tg, c->error);
    if (x == NULL)
      ret = c->error->code < 0 ? c->error->code : SIMNPU_EINTERNAL;
  }
  if (ret == 0)
    ret = simnpu__ir_exec_run (x, 0, tg->n_nodes, c->error);
  if (ret == 0) {
    for (i = 0; i < n->n_outputs; i++) {
      simnpu__ir_tensor *dst = &g->tensors[n->outputs[i]];
      const simnpu__ir_tensor *src = &tg->tensors[outs[i]];
      size_t bytes = simnpu__ir_tensor_bytes (src);
      dst->dtype = src->dtype;
      dst->rank = src->rank;
      memcpy (dst->dims, src->dims, sizeof dst->dims);
      g_free (dst->data);
      dst->data = g_memdup2 (simnpu__ir_exec_data (x, outs[i]), MAX (bytes, 1));
      dst->is_const = true;
      dst->producer = SIMNPU_IR_NONE;
    }
    g_free (n->name);
    n->name = NULL;
    g->n_nodes--;
  }
  if (x != NULL)
    simnpu__ir_exec_free (x);
  simnpu__ir_graph_free (tg);
  return ret;
}

/* Adds an IR node, infers its outputs at once and folds it when all its
 * inputs are constants. */
int
simnpu__onnx_emit (onnx_ctx * c, simnpu__ir_op op, const int *ins,
    unsigned n_in, const int *outs, unsigned n_out,
    const simnpu__ir_attrs * attrs)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (op);
  simnpu__ir_node *n;
  bool all_const = true;
  unsigned i;
  int ret;

  if (info == NULL || info->infer == NULL)
    return simnpu__onnx_err (c, SIMNPU_EINTERNAL,
        "IR op %d has no shape inference", (int) op);
  /* more inputs than the IR takes (a Concat of 40) is the IR's limit */
  if (n_in < info->min_inputs || n_in > info->max_inputs)
    return simnpu__onnx_err (c, n_in > info->max_inputs
        && info->max_inputs >= SIMNPU_IR_MAX_INPUTS ? SIMNPU_EUNSUPPORTED :
        SIMNPU_EFORMAT, "%u inputs for IR op %s (expected %u to %u)", n_in,
        simnpu__ir_op_name (op), info->min_inputs, info->max_inputs);
  if (c->g->n_nodes >= SIMNPU_IR_MAX_NODES)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "more than %d IR nodes",
        SIMNPU_IR_MAX_NODES);
  n = simnpu__ir_add_node (c->g, op, c->node_name, n_in, ins, n_out, outs);
  if (n == NULL)
    return simnpu__onnx_err (c, SIMNPU_ENOMEM, "cannot add an IR node");
  if (attrs != NULL)
    n->attrs = *attrs;
  ret = info->infer (c->g, n, c->error);
  if (ret < 0)
    return ret;
  for (i = 0; i < n_in; i++)
    if (ins[i] != SIMNPU_IR_NONE && !c->g->tensors[ins[i]].is_const)
      all_const = false;
  for (i = 0; i < n_out; i++) {
    c->g->tensors[outs[i]].producer = c->g->n_nodes - 1;
    if (simnpu__ir_tensor_elements (&c->g->tensors[outs[i]]) >
        ONNX_MAX_FOLD_ELEMENTS)
      all_const = false;
  }
  if (all_const)
    return onnx_fold_last (c);
  return 0;
}

/* one input, one new output */
/* two inputs, the given output */
int
simnpu__onnx_emit2 (onnx_ctx * c, simnpu__ir_op op, int a, int b, int out)
{
  int pair[2] = { a, b };
  return simnpu__onnx_emit (c, op, pair, 2, &out, 1, NULL);
}

int
simnpu__onnx_emit1 (onnx_ctx * c, simnpu__ir_op op, int in, int *out,
    const simnpu__ir_attrs * attrs)
{
  *out = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit (c, op, &in, 1, out, 1, attrs);
}

int
simnpu__onnx_emit_transpose (onnx_ctx * c, int in, int out,
    const int64_t * perm, unsigned rank)
{
  simnpu__ir_attrs a;
  simnpu__onnx_attrs_init (&a);
  a.n_ints = rank;
  memcpy (a.ints, perm, rank * sizeof perm[0]);
  return simnpu__onnx_emit (c, SIMNPU_IR_TRANSPOSE, &in, 1, &out, 1, &a);
}

int
simnpu__onnx_emit_reshape (onnx_ctx * c, int in, int out, const int64_t * dims,
    unsigned rank)
{
  simnpu__ir_attrs a;
  simnpu__onnx_attrs_init (&a);
  if (rank > SIMNPU_IR_MAX_INTS)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED, "rank %u above %d", rank,
        SIMNPU_IR_MAX_INTS);
  a.n_ints = rank;
  if (rank > 0)
    memcpy (a.ints, dims, rank * sizeof dims[0]);
  return simnpu__onnx_emit (c, SIMNPU_IR_RESHAPE, &in, 1, &out, 1, &a);
}

/* channels (axis 1) to last and back, for the NHWC ops */
static void
onnx_perm_to_last (unsigned rank, int64_t * perm, int64_t * back)
{
  unsigned i;

  perm[0] = 0;
  for (i = 1; i + 1 < rank; i++)
    perm[i] = i + 1;
  perm[rank - 1] = 1;
  back[0] = 0;
  back[1] = rank - 1;
  for (i = 2; i < rank; i++)
    back[i] = i - 1;
}

static int
onnx_to_nhwc (onnx_ctx * c, int x, int *y)
{
  int64_t perm[SIMNPU_IR_MAX_RANK], back[SIMNPU_IR_MAX_RANK];
  unsigned rank = T (c, x)->rank;

  if (rank < 2)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE,
        "input of rank %u (expected >= 2)", rank);
  if (rank == 2) {
    *y = x;
    return 0;
  }
  onnx_perm_to_last (rank, perm, back);
  *y = simnpu__onnx_tmp (c);
  return simnpu__onnx_emit_transpose (c, x, *y, perm, rank);
}

/* Runs op on NHWC of x (NCHW) and writes NCHW into out. */
int
simnpu__onnx_emit_nhwc_to (onnx_ctx * c, simnpu__ir_op op, int *ins,
    unsigned n_in, const simnpu__ir_attrs * a, int out)
{
  int64_t perm[SIMNPU_IR_MAX_RANK], back[SIMNPU_IR_MAX_RANK];
  unsigned rank = T (c, ins[0])->rank;
  int xt = SIMNPU_IR_NONE, yt, ret;

  if ((ret = onnx_to_nhwc (c, ins[0], &xt)) < 0)
    return ret;
  ins[0] = xt;
  if (rank == 2)
    return simnpu__onnx_emit (c, op, ins, n_in, &out, 1, a);
  yt = simnpu__onnx_tmp (c);
  if ((ret = simnpu__onnx_emit (c, op, ins, n_in, &yt, 1, a)) < 0)
    return ret;
  onnx_perm_to_last (rank, perm, back);
  return simnpu__onnx_emit_transpose (c, yt, out, back, rank);
}

/* ... into output 0 */
int
simnpu__onnx_emit_nhwc (onnx_ctx * c, simnpu__ir_op op, int *ins, unsigned n_in,
    const simnpu__ir_attrs * a)
{
  int out = -1, ret;

  if ((ret = simnpu__onnx_out (c, 0, &out)) < 0)
    return ret;
  return simnpu__onnx_emit_nhwc_to (c, op, ins, n_in, a, out);
}

/* ------------------------------------------------------------------ */
/* Attributes and constant inputs */

const Onnx__AttributeProto *
simnpu__onnx_attr (onnx_ctx * c, const char *name)
{
  size_t i;
  for (i = 0; i < c->node->n_attribute; i++)
    if (c->node->attribute[i]->name != NULL
        && strcmp (c->node->attribute[i]->name, name) == 0)
      return c->node->attribute[i];
  return NULL;
}

int64_t
simnpu__onnx_attr_int (onnx_ctx * c, const char *name, int64_t def)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);
  return a != NULL && a->has_i ? a->i : def;
}

float
simnpu__onnx_attr_float (onnx_ctx * c, const char *name, float def)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);
  return a != NULL && a->has_f ? a->f : def;
}

/* the string attribute, or def ("" when absent and def is NULL) */
const char *
simnpu__onnx_attr_str (onnx_ctx * c, const char *name, const char *def,
    char *buf, size_t size)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);
  size_t len;

  if (a == NULL || !a->has_s)
    return def ? def : "";
  len = MIN (a->s.len, size - 1);
  if (len > 0)
    memcpy (buf, a->s.data, len);
  buf[len] = '\0';
  return buf;
}

/* ints attribute: *n = -1 when absent */
int
simnpu__onnx_attr_ints (onnx_ctx * c, const char *name, int64_t * out, int max,
    int *n)
{
  const Onnx__AttributeProto *a = simnpu__onnx_attr (c, name);

  *n = -1;
  if (a == NULL)
    return 0;
  if (a->n_ints > (size_t) max)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "attribute '%s' has %zu values (at most %d supported)", name,
        a->n_ints, max);
  if (a->n_ints > 0)
    memcpy (out, a->ints, a->n_ints * sizeof out[0]);
  *n = a->n_ints;
  return 0;
}

/* the values of a constant integer input (I64 or I32) */
int
simnpu__onnx_const_ints (onnx_ctx * c, int t, const char *what, int64_t * out,
    int max, int *n)
{
  const simnpu__ir_tensor *x = T (c, t);
  int64_t count, i;

  if (!x->is_const)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input must be constant", what);
  if (x->dtype != SIMNPU_IR_I64 && x->dtype != SIMNPU_IR_I32)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "%s input is %s (expected int64)", what,
        simnpu__ir_dtype_name (x->dtype));
  count = simnpu__ir_tensor_elements (x);
  if (count > max)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input has %" G_GINT64_FORMAT " values (at most %d)", what,
        count, max);
  for (i = 0; i < count; i++)
    out[i] = x->dtype == SIMNPU_IR_I64 ? ((const int64_t *) x->data)[i] :
        ((const int32_t *) x->data)[i];
  *n = (int) count;
  return 0;
}

/* a constant scalar input as float */
int
simnpu__onnx_const_float (onnx_ctx * c, int t, const char *what, float *v)
{
  const simnpu__ir_tensor *x = T (c, t);

  if (!x->is_const)
    return simnpu__onnx_err (c, SIMNPU_EUNSUPPORTED,
        "%s input must be constant", what);
  if (simnpu__ir_tensor_elements (x) != 1)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "%s input must be a scalar",
        what);
  switch (x->dtype) {
    case SIMNPU_IR_F32:
      *v = *(const float *) x->data;
      break;
    case SIMNPU_IR_I64:
      *v = (float) *(const int64_t *) x->data;
      break;
    case SIMNPU_IR_I32:
      *v = (float) *(const int32_t *) x->data;
      break;
    case SIMNPU_IR_U8:
    case SIMNPU_IR_BOOL:
      *v = *(const uint8_t *) x->data;
      break;
    case SIMNPU_IR_I8:
      *v = *(const int8_t *) x->data;
      break;
    default:
      return simnpu__onnx_err (c, SIMNPU_EFORMAT,
          "%s input has an unknown dtype", what);
  }
  return 0;
}

int
simnpu__onnx_norm_axis (onnx_ctx * c, int64_t axis, unsigned rank,
    int32_t * out)
{
  if (axis < -(int64_t) rank || axis >= (int64_t) rank)
    return simnpu__onnx_err (c, SIMNPU_EFORMAT,
        "axis %" G_GINT64_FORMAT " out of range for rank %u", axis, rank);
  *out = axis < 0 ? (int32_t) (axis + rank) : (int32_t) axis;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Compositions the op families share */

/* dims that place a [n] vector on axis of a rank-r tensor: [n, 1, ...] */
unsigned
simnpu__onnx_axis_dims (unsigned rank, unsigned axis, int64_t n, int64_t * dims)
{
  unsigned i, k = 0;
  dims[k++] = n;
  for (i = axis + 1; i < rank; i++)
    dims[k++] = 1;
  return k;
}

/* 0, 1, ... n-1 (I64) shaped to lie on axis of a rank-r tensor */
int
simnpu__onnx_iota_on_axis (onnx_ctx * c, int64_t n, unsigned rank,
    unsigned axis, int *out)
{
  int64_t dims[SIMNPU_IR_MAX_RANK], i;
  int64_t *v;
  unsigned r;

  if (n < 1 || n > ONNX_MAX_FOLD_ELEMENTS)
    return simnpu__onnx_err (c, SIMNPU_ESHAPE, "axis of size %" G_GINT64_FORMAT,
        n);
  v = g_new (int64_t, n);
  for (i = 0; i < n; i++)
    v[i] = i;
  r = simnpu__onnx_axis_dims (rank, axis, n, dims);
  *out = simnpu__onnx_add_const (c, SIMNPU_IR_I64, r, dims, v);
  g_free (v);
  return 0;
}

int
simnpu__onnx_cast (onnx_ctx * c, int x, simnpu__ir_dtype dtype, int *out)
{
  simnpu__ir_attrs a;

  if (T (c, x)->dtype == dtype) {
    *out = x;
    return 0;
  }
  simnpu__onnx_attrs_init (&a);
  a.dtype = dtype;
  return simnpu__onnx_emit1 (c, SIMNPU_IR_CAST, x, out, &a);
}
