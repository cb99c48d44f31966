/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR's core: dtypes, graph building, the shape rules shared
 * with the kernels, costs and the op table. Shape inference is in
 * ir-infer.c; the kernels the table points at are in ir-exec-*.c. */

#include "ir/exec/ir-exec.h"
#include "ir-private.h"

#include <math.h>
#include <string.h>

#define INITIAL_ALLOC 16

static const char *const dtype_names[SIMNPU_IR_N_DTYPES] = {
  "f32", "i64", "i32", "u8", "i8", "bool"
};

static const size_t dtype_sizes[SIMNPU_IR_N_DTYPES] = {
  sizeof (float), sizeof (int64_t), sizeof (int32_t), sizeof (uint8_t),
  sizeof (int8_t), sizeof (uint8_t)
};

const char *
simnpu__ir_dtype_name (simnpu__ir_dtype dtype)
{
  if ((unsigned) dtype >= SIMNPU_IR_N_DTYPES)
    return "invalid";
  return dtype_names[dtype];
}

size_t
simnpu__ir_dtype_size (simnpu__ir_dtype dtype)
{
  if ((unsigned) dtype >= SIMNPU_IR_N_DTYPES)
    return 0;
  return dtype_sizes[dtype];
}

/* ------------------------------------------------------------------ */
/* Graph building */

simnpu__ir_graph *
simnpu__ir_graph_new (const char *name)
{
  simnpu__ir_graph *g = g_new0 (simnpu__ir_graph, 1);

  g->name = g_strdup (name != NULL ? name : "");
  return g;
}

void
simnpu__ir_graph_free (simnpu__ir_graph * g)
{
  unsigned i;

  if (g == NULL)
    return;
  for (i = 0; i < g->n_tensors; i++) {
    g_free (g->tensors[i].name);
    g_free (g->tensors[i].data);
  }
  for (i = 0; i < g->n_nodes; i++)
    g_free (g->nodes[i].name);
  g_free (g->tensors);
  g_free (g->nodes);
  g_free (g->name);
  g_strfreev (g->model_files);
  g_free (g);
}

simnpu__ir_graph *
simnpu__ir_graph_copy (const simnpu__ir_graph * g)
{
  simnpu__ir_graph *c;
  unsigned i;

  if (g == NULL)
    return NULL;
  c = g_new0 (simnpu__ir_graph, 1);
  *c = *g;
  c->name = g_strdup (g->name);
  c->model_files = g_strdupv (g->model_files);
  c->tensors_alloc = g->n_tensors;
  c->tensors = g_new0 (simnpu__ir_tensor, MAX (g->n_tensors, 1));
  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__ir_tensor *t = &g->tensors[i];
    c->tensors[i] = *t;
    c->tensors[i].name = g_strdup (t->name);
    if (t->data != NULL) {
      size_t bytes = simnpu__ir_tensor_bytes (t);
      /* empty constants keep a (one-byte) buffer */
      c->tensors[i].data = g_malloc0 (MAX (bytes, 1));
      memcpy (c->tensors[i].data, t->data, bytes);
    }
  }
  c->nodes_alloc = g->n_nodes;
  c->nodes = g_new0 (simnpu__ir_node, MAX (g->n_nodes, 1));
  for (i = 0; i < g->n_nodes; i++) {
    c->nodes[i] = g->nodes[i];
    c->nodes[i].name = g_strdup (g->nodes[i].name);
  }
  return c;
}

int
simnpu__ir_add_tensor (simnpu__ir_graph * g, const char *name,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims)
{
  simnpu__ir_tensor *t;

  if (g == NULL || rank > SIMNPU_IR_MAX_RANK
      || (unsigned) dtype >= SIMNPU_IR_N_DTYPES)
    return SIMNPU_EINVAL;
  if (g->n_tensors >= SIMNPU_IR_MAX_TENSORS)
    return SIMNPU_ENOMEM;
  if (g->n_tensors == g->tensors_alloc) {
    g->tensors_alloc = MAX (INITIAL_ALLOC, g->tensors_alloc * 2);
    g->tensors = g_renew (simnpu__ir_tensor, g->tensors, g->tensors_alloc);
  }
  t = &g->tensors[g->n_tensors];
  memset (t, 0, sizeof (*t));
  t->name = g_strdup (name != NULL ? name : "");
  t->dtype = dtype;
  t->rank = rank;
  if (dims != NULL && rank > 0)
    memcpy (t->dims, dims, rank * sizeof (int64_t));
  t->producer = SIMNPU_IR_NONE;
  return (int) g->n_tensors++;
}

int
simnpu__ir_add_const (simnpu__ir_graph * g, const char *name,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims, void *data)
{
  int t = simnpu__ir_add_tensor (g, name, dtype, rank, dims);

  if (t < 0) {
    g_free (data);
    return t;
  }
  g->tensors[t].is_const = true;
  g->tensors[t].data = data;
  return t;
}

simnpu__ir_node *
simnpu__ir_add_node (simnpu__ir_graph * g, simnpu__ir_op op,
    const char *name, unsigned n_inputs, const int *inputs,
    unsigned n_outputs, const int *outputs)
{
  simnpu__ir_node *n;

  if (g == NULL || n_inputs > SIMNPU_IR_MAX_INPUTS
      || n_outputs > SIMNPU_IR_MAX_OUTPUTS || g->n_nodes >= SIMNPU_IR_MAX_NODES)
    return NULL;
  if (g->n_nodes == g->nodes_alloc) {
    g->nodes_alloc = MAX (INITIAL_ALLOC, g->nodes_alloc * 2);
    g->nodes = g_renew (simnpu__ir_node, g->nodes, g->nodes_alloc);
  }
  n = &g->nodes[g->n_nodes++];
  memset (n, 0, sizeof (*n));
  n->op = op;
  n->name = g_strdup (name != NULL ? name : "");
  n->n_inputs = n_inputs;
  if (n_inputs > 0)
    memcpy (n->inputs, inputs, n_inputs * sizeof (int));
  n->n_outputs = n_outputs;
  if (n_outputs > 0)
    memcpy (n->outputs, outputs, n_outputs * sizeof (int));
  n->attrs.kernel[0] = n->attrs.kernel[1] = 1;
  n->attrs.stride[0] = n->attrs.stride[1] = 1;
  n->attrs.dilation[0] = n->attrs.dilation[1] = 1;
  n->attrs.groups = 1;
  n->attrs.act_min = -INFINITY;
  n->attrs.act_max = INFINITY;
  return n;
}

int
simnpu__ir_find_tensor (const simnpu__ir_graph * g, const char *name)
{
  unsigned i;

  if (g == NULL || name == NULL)
    return SIMNPU_IR_NONE;
  for (i = 0; i < g->n_tensors; i++)
    if (strcmp (g->tensors[i].name, name) == 0)
      return (int) i;
  return SIMNPU_IR_NONE;
}

GHashTable *
simnpu__ir_tensor_names (const simnpu__ir_graph * g)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  unsigned i;

  for (i = g->n_tensors; i-- > 0;)
    g_hash_table_insert (names, g->tensors[i].name, GUINT_TO_POINTER (i + 1));
  return names;
}

int64_t
simnpu__ir_tensor_elements (const simnpu__ir_tensor * t)
{
  int64_t n = 1;
  unsigned i;

  if (t == NULL || t->rank > SIMNPU_IR_MAX_RANK)
    return -1;
  for (i = 0; i < t->rank; i++) {
    if (t->dims[i] < 0 || t->dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return -1;
    n *= t->dims[i];
    if (n > SIMNPU_IR_MAX_ELEMENTS)
      return -1;
  }
  return n;
}

size_t
simnpu__ir_tensor_bytes (const simnpu__ir_tensor * t)
{
  int64_t n = simnpu__ir_tensor_elements (t);

  if (n < 0)
    return 0;
  return (size_t) n *simnpu__ir_dtype_size (t->dtype);
}

/* ------------------------------------------------------------------ */
/* Shape helpers */

bool
simnpu__ir_broadcast (unsigned ra, const int64_t * da, unsigned rb,
    const int64_t * db, unsigned *rank, int64_t * dims)
{
  int64_t out[SIMNPU_IR_MAX_RANK];
  unsigned r = MAX (ra, rb), i;

  if (r > SIMNPU_IR_MAX_RANK)
    return false;
  /* into a local array: dims may be da or db */
  for (i = 0; i < r; i++) {
    int64_t a = i < r - ra ? 1 : da[i - (r - ra)];
    int64_t b = i < r - rb ? 1 : db[i - (r - rb)];
    if (a == b || b == 1)
      out[i] = a;
    else if (a == 1)
      out[i] = b;
    else
      return false;
  }
  memcpy (dims, out, r * sizeof (int64_t));
  *rank = r;
  return true;
}

int64_t
simnpu__ir_window_out (int64_t in, int64_t k, int64_t stride,
    int64_t dilation, int64_t pad_begin, int64_t pad_end, bool ceil_mode)
{
  int64_t k_eff = dilation * (k - 1) + 1;
  int64_t total = in + pad_begin + pad_end;
  int64_t out;

  if (stride < 1 || dilation < 1 || k < 1 || total < k_eff)
    return -1;
  if (!ceil_mode)
    return (total - k_eff) / stride + 1;
  out = (total - k_eff + stride - 1) / stride + 1;
  /* ONNX (and PyTorch): the last window must start inside the input or
   * its leading padding */
  if ((out - 1) * stride >= in + pad_begin)
    out--;
  return out;
}

int64_t
simnpu__ir_slice_len (int64_t dim, int64_t start, int64_t end, int64_t step,
    int64_t * first)
{
  int64_t len = 0;

  if (step == 0)
    step = 1;
  if (step > 0) {
    int64_t s = CLAMP (start, 0, dim), e = CLAMP (end, 0, dim);
    if (e > s)
      len = (e - s - 1) / step + 1;
    *first = s;
  } else {
    int64_t st = step == G_MININT64 ? G_MAXINT64 : -step;
    int64_t s = CLAMP (start, -1, dim - 1), e = CLAMP (end, -1, dim - 1);
    if (s > e)
      len = (s - e - 1) / st + 1;
    *first = s;
  }
  return len;
}

/* ------------------------------------------------------------------ */
/* Costs */

static uint64_t
cost_elements (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  uint64_t total = 0;
  unsigned i;

  for (i = 0; i < n->n_outputs; i++) {
    int64_t e = simnpu__ir_tensor_elements (&g->tensors[n->outputs[i]]);
    total += e > 0 ? (uint64_t) e : 0;
  }
  return total;
}

static uint64_t
cost_inputs (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  int64_t e = simnpu__ir_tensor_elements (&g->tensors[n->inputs[0]]);

  return e > 0 ? (uint64_t) e : 0;
}

static uint64_t
cost_conv2d (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];

  return cost_elements (g, n) * (uint64_t) (w->dims[1] * w->dims[2] *
      w->dims[3]);
}

static uint64_t
cost_matmul (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  const simnpu__ir_tensor *a = &g->tensors[n->inputs[0]];

  return cost_elements (g, n) * (uint64_t) a->dims[a->rank - 1];
}

static uint64_t
cost_pool (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  return cost_elements (g, n) * (uint64_t) n->attrs.kernel[0] *
      (uint64_t) n->attrs.kernel[1];
}

/* ------------------------------------------------------------------ */
/* The op table */

#define ANY SIMNPU_IR_MAX_INPUTS
#define OP(id, nm, lo, hi, inf, kern, cst) \
  [SIMNPU_IR_##id] = { nm, lo, hi, simnpu__ir_infer_##inf, \
    simnpu__ir_run_##kern, cost_##cst }

static const simnpu__ir_op_info op_table[] = {
  OP (CONV2D, "conv2d", 2, 3, conv2d, conv2d, conv2d),
  OP (MATMUL, "matmul", 2, 3, matmul, matmul, matmul),
  OP (ADD, "add", 2, 2, binary, binary, elements),
  OP (SUB, "sub", 2, 2, binary, binary, elements),
  OP (MUL, "mul", 2, 2, binary, binary, elements),
  OP (DIV, "div", 2, 2, binary, binary, elements),
  OP (FLOOR_DIV, "floor_div", 2, 2, binary, binary, elements),
  OP (FLOOR_MOD, "floor_mod", 2, 2, binary, binary, elements),
  OP (POW, "pow", 2, 2, binary, binary, elements),
  OP (MAXIMUM, "maximum", 1, ANY, binary, nary, elements),
  OP (MINIMUM, "minimum", 1, ANY, binary, nary, elements),
  OP (EQUAL, "equal", 2, 2, binary, binary, elements),
  OP (LESS, "less", 2, 2, binary, binary, elements),
  OP (LESS_EQUAL, "less_equal", 2, 2, binary, binary, elements),
  OP (GREATER, "greater", 2, 2, binary, binary, elements),
  OP (GREATER_EQUAL, "greater_equal", 2, 2, binary, binary, elements),
  OP (AND, "and", 2, 2, binary, binary, elements),
  OP (OR, "or", 2, 2, binary, binary, elements),
  OP (XOR, "xor", 2, 2, binary, binary, elements),
  OP (WHERE, "where", 3, 3, where, where, elements),
  OP (IDENTITY, "identity", 1, 1, unary, copy, elements),
  OP (RELU, "relu", 1, 1, unary, unary, elements),
  OP (CLIP, "clip", 1, 1, unary, unary, elements),
  OP (LEAKY_RELU, "leaky_relu", 1, 1, unary, unary, elements),
  OP (ELU, "elu", 1, 1, unary, unary, elements),
  OP (SELU, "selu", 1, 1, unary, unary, elements),
  OP (PRELU, "prelu", 2, 2, binary, binary, elements),
  OP (SIGMOID, "sigmoid", 1, 1, unary, unary, elements),
  OP (HARD_SIGMOID, "hard_sigmoid", 1, 1, unary, unary, elements),
  OP (HARD_SWISH, "hard_swish", 1, 1, unary, unary, elements),
  OP (SILU, "silu", 1, 1, unary, unary, elements),
  OP (TANH, "tanh", 1, 1, unary, unary, elements),
  OP (SOFTPLUS, "softplus", 1, 1, unary, unary, elements),
  OP (SOFTSIGN, "softsign", 1, 1, unary, unary, elements),
  OP (EXP, "exp", 1, 1, unary, unary, elements),
  OP (LOG, "log", 1, 1, unary, unary, elements),
  OP (SQRT, "sqrt", 1, 1, unary, unary, elements),
  OP (RSQRT, "rsqrt", 1, 1, unary, unary, elements),
  OP (RECIPROCAL, "reciprocal", 1, 1, unary, unary, elements),
  OP (NEG, "neg", 1, 1, unary, unary, elements),
  OP (ABS, "abs", 1, 1, unary, unary, elements),
  OP (FLOOR, "floor", 1, 1, unary, unary, elements),
  OP (CEIL, "ceil", 1, 1, unary, unary, elements),
  OP (ROUND, "round", 1, 1, unary, unary, elements),
  OP (SIGN, "sign", 1, 1, unary, unary, elements),
  OP (ERF, "erf", 1, 1, unary, unary, elements),
  OP (SIN, "sin", 1, 1, unary, unary, elements),
  OP (COS, "cos", 1, 1, unary, unary, elements),
  OP (NOT, "not", 1, 1, unary, unary, elements),
  OP (CAST, "cast", 1, 1, cast, cast, elements),
  OP (SOFTMAX, "softmax", 1, 1, softmax, softmax, elements),
  OP (LOG_SOFTMAX, "log_softmax", 1, 1, softmax, softmax, elements),
  OP (BATCHNORM, "batchnorm", 5, 5, batchnorm, batchnorm, elements),
  OP (REDUCE_MEAN, "reduce_mean", 1, 1, reduce, reduce, inputs),
  OP (REDUCE_SUM, "reduce_sum", 1, 1, reduce, reduce, inputs),
  OP (REDUCE_MAX, "reduce_max", 1, 1, reduce, reduce, inputs),
  OP (REDUCE_MIN, "reduce_min", 1, 1, reduce, reduce, inputs),
  OP (REDUCE_PROD, "reduce_prod", 1, 1, reduce, reduce, inputs),
  OP (ARGMAX, "argmax", 1, 1, arg, arg, inputs),
  OP (ARGMIN, "argmin", 1, 1, arg, arg, inputs),
  OP (MAXPOOL, "maxpool", 1, 1, pool, pool, pool),
  OP (AVGPOOL, "avgpool", 1, 1, pool, pool, pool),
  OP (RESIZE, "resize", 1, 1, resize, resize, elements),
  OP (DEPTH_TO_SPACE, "depth_to_space", 1, 1, depth_space, depth_to_space,
      elements),
  OP (SPACE_TO_DEPTH, "space_to_depth", 1, 1, depth_space, space_to_depth,
      elements),
  OP (RESHAPE, "reshape", 1, 1, reshape, copy, elements),
  OP (TRANSPOSE, "transpose", 1, 1, transpose, transpose, elements),
  OP (CONCAT, "concat", 1, ANY, concat, concat, elements),
  OP (SPLIT, "split", 1, 1, split, split, elements),
  OP (SLICE, "slice", 1, 1, slice, slice, elements),
  OP (PAD, "pad", 1, 1, pad, pad, elements),
  OP (GATHER, "gather", 2, 2, gather, gather, elements),
  OP (TILE, "tile", 1, 1, tile, tile, elements),
  OP (EXPAND, "expand", 1, 1, expand, expand, elements),
  OP (SHAPE, "shape", 1, 1, shape, shape, elements),
  OP (RANGE, "range", 3, 3, range, range, elements),
  OP (ATAN2, "atan2", 2, 2, binary, binary, elements),
};

/* every IR op has its row: the table ends with the last op */
G_STATIC_ASSERT (G_N_ELEMENTS (op_table) == SIMNPU_IR_N_OPS);

#undef OP
#undef ANY

const simnpu__ir_op_info *
simnpu__ir_op_get (simnpu__ir_op op)
{
  if ((unsigned) op >= SIMNPU_IR_N_OPS)
    return NULL;
  return &op_table[op];
}

const char *
simnpu__ir_op_name (simnpu__ir_op op)
{
  if ((unsigned) op >= SIMNPU_IR_N_OPS)
    return "invalid";
  return op_table[op].name;
}

/* Element-wise ops of one operand, whose result at each index depends on
 * the operand at that index only. */
bool
simnpu__ir_op_is_unary (simnpu__ir_op op)
{
  switch (op) {
    case SIMNPU_IR_IDENTITY:
    case SIMNPU_IR_RELU:
    case SIMNPU_IR_CLIP:
    case SIMNPU_IR_LEAKY_RELU:
    case SIMNPU_IR_ELU:
    case SIMNPU_IR_SELU:
    case SIMNPU_IR_SIGMOID:
    case SIMNPU_IR_HARD_SIGMOID:
    case SIMNPU_IR_HARD_SWISH:
    case SIMNPU_IR_SILU:
    case SIMNPU_IR_TANH:
    case SIMNPU_IR_SOFTPLUS:
    case SIMNPU_IR_SOFTSIGN:
    case SIMNPU_IR_EXP:
    case SIMNPU_IR_LOG:
    case SIMNPU_IR_SQRT:
    case SIMNPU_IR_RSQRT:
    case SIMNPU_IR_RECIPROCAL:
    case SIMNPU_IR_NEG:
    case SIMNPU_IR_ABS:
    case SIMNPU_IR_FLOOR:
    case SIMNPU_IR_CEIL:
    case SIMNPU_IR_ROUND:
    case SIMNPU_IR_SIGN:
    case SIMNPU_IR_ERF:
    case SIMNPU_IR_SIN:
    case SIMNPU_IR_COS:
    case SIMNPU_IR_NOT:
    case SIMNPU_IR_CAST:
      return true;
    default:
      return false;
  }
}

bool
simnpu__ir_is_graph_output (const simnpu__ir_graph * g, int t)
{
  unsigned i;

  for (i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] == t)
      return true;
  return false;
}
