/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Shape inference of the float IR: the structure checks of a graph (indices,
 * arity, definition before use) and the per-op rules that give every
 * output its dtype and static shape, with messages that name the node. */

#include "ir/exec/ir-exec.h"
#include "ir-private.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* room for a shape printed as "[d0,d1,...]" */
#define SHAPE_STR_SIZE (SIMNPU_IR_MAX_RANK * 22 + 4)
/* the largest block size, repeat or kernel extent accepted in attributes */
#define MAX_ATTR_EXTENT (G_GINT64_CONSTANT (1) << 24)

static void
shape_str (unsigned rank, const int64_t * dims, char *buf)
{
  unsigned i;
  size_t o = 0;

  buf[o++] = '[';
  for (i = 0; i < rank && i < SIMNPU_IR_MAX_RANK; i++)
    o += (size_t) snprintf (buf + o, SHAPE_STR_SIZE - o, "%s%" G_GINT64_FORMAT,
        i > 0 ? "," : "", dims[i]);
  snprintf (buf + o, SHAPE_STR_SIZE - o, "]");
}

static int
node_error (simnpu_error * error, int code,
    const simnpu__ir_node * n, const char *format, ...)
G_GNUC_PRINTF (4, 5);

     static int
         node_error (simnpu_error * error, int code, const simnpu__ir_node * n,
    const char *format, ...)
{
  va_list args;
  gchar *msg;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  simnpu__set_error (error, code, "node '%s' (%s): %s", n->name,
      simnpu__ir_op_name (n->op), msg);
  g_free (msg);
  return code;
}

static const simnpu__ir_tensor *
in_t (const simnpu__ir_graph * g, const simnpu__ir_node * n, unsigned i)
{
  if (i >= n->n_inputs || n->inputs[i] == SIMNPU_IR_NONE)
    return NULL;
  return &g->tensors[n->inputs[i]];
}

static int
set_out (simnpu__ir_graph * g, const simnpu__ir_node * n, unsigned i,
    simnpu__ir_dtype dtype, unsigned rank, const int64_t * dims,
    simnpu_error * error)
{
  simnpu__ir_tensor *t;
  unsigned d;

  if (i >= n->n_outputs)
    return node_error (error, SIMNPU_EINTERNAL, n, "output %u missing", i);
  t = &g->tensors[n->outputs[i]];
  t->dtype = dtype;
  t->rank = rank;
  for (d = 0; d < rank; d++)
    t->dims[d] = dims[d];
  if (simnpu__ir_tensor_elements (t) < 0) {
    char s[SHAPE_STR_SIZE];
    shape_str (rank, dims, s);
    return node_error (error, SIMNPU_ENOMEM, n,
        "output '%s' of shape %s is larger than %" G_GINT64_FORMAT
        " elements", t->name, s, SIMNPU_IR_MAX_ELEMENTS);
  }
  return 0;
}

static int
need_outputs (const simnpu__ir_node * n, unsigned count, simnpu_error * error)
{
  if (n->n_outputs != count)
    return node_error (error, SIMNPU_EFORMAT, n, "expects %u output%s, got %u",
        count, count == 1 ? "" : "s", n->n_outputs);
  return 0;
}

static bool
is_numeric (simnpu__ir_dtype d)
{
  return d != SIMNPU_IR_BOOL;
}

static int
need_dtype (const simnpu__ir_node * n, const simnpu__ir_tensor * t,
    const char *what, bool ok, const char *expected, simnpu_error * error)
{
  if (!ok)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "%s '%s' must be %s, got %s", what, t->name, expected,
        simnpu__ir_dtype_name (t->dtype));
  return 0;
}

static int
need_f32 (const simnpu__ir_node * n, const simnpu__ir_tensor * t,
    const char *what, simnpu_error * error)
{
  return need_dtype (n, t, what, t->dtype == SIMNPU_IR_F32, "f32", error);
}

static int
need_rank (const simnpu__ir_node * n, const simnpu__ir_tensor * t,
    const char *what, unsigned rank, const char *layout, simnpu_error * error)
{
  if (t->rank != rank) {
    char s[SHAPE_STR_SIZE];
    shape_str (t->rank, t->dims, s);
    return node_error (error, SIMNPU_ESHAPE, n,
        "%s '%s' must be rank %u %s, got %s", what, t->name, rank, layout, s);
  }
  return 0;
}

/* a rank-1 (or scalar) tensor of exactly count elements */
static int
need_vector (const simnpu__ir_node * n, const simnpu__ir_tensor * t,
    const char *what, int64_t count, simnpu_error * error)
{
  if (t->rank > 1 || simnpu__ir_tensor_elements (t) != count) {
    char s[SHAPE_STR_SIZE];
    shape_str (t->rank, t->dims, s);
    return node_error (error, SIMNPU_ESHAPE, n,
        "%s '%s' must be [%" G_GINT64_FORMAT "], got %s", what, t->name,
        count, s);
  }
  return 0;
}

static int
check_act (const simnpu__ir_node * n, simnpu_error * error)
{
  if ((unsigned) n->attrs.act > SIMNPU_IR_ACT_ELU)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "unknown fused activation %d", (int) n->attrs.act);
  if (n->attrs.act == SIMNPU_IR_ACT_CLIP && !(n->attrs.act_min
          <= n->attrs.act_max))
    return node_error (error, SIMNPU_EINVAL, n,
        "fused clip needs act_min <= act_max, got %g and %g",
        n->attrs.act_min, n->attrs.act_max);
  return 0;
}

static int
check_axis (const simnpu__ir_node * n, int64_t axis, unsigned rank,
    simnpu_error * error)
{
  if (axis < 0 || axis >= (int64_t) MAX (rank, 1))
    return node_error (error, SIMNPU_EINVAL, n,
        "axis %" G_GINT64_FORMAT " out of range for rank %u", axis, rank);
  return 0;
}

/* ------------------------------------------------------------------ */
/* Per-op shape inference */

int
simnpu__ir_infer_conv2d (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0), *w = in_t (g, n, 1);
  const simnpu__ir_tensor *b = in_t (g, n, 2);
  simnpu__ir_attrs *a = &n->attrs;
  int64_t ic, oc, groups = a->groups, dims[4];
  char ws[SHAPE_STR_SIZE];
  unsigned i;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_f32 (n, x, "input", error)) < 0
      || (ret = need_f32 (n, w, "weights", error)) < 0
      || (ret = need_rank (n, x, "input", 4, "NHWC", error)) < 0
      || (ret = need_rank (n, w, "weights", 4, "OHWI", error)) < 0
      || (ret = check_act (n, error)) < 0)
    return ret;
  ic = x->dims[3];
  oc = w->dims[0];
  if (groups < 1 || ic % groups != 0 || oc % groups != 0)
    return node_error (error, SIMNPU_EINVAL, n,
        "groups %d must divide input channels %" G_GINT64_FORMAT
        " and output channels %" G_GINT64_FORMAT, a->groups, ic, oc);
  shape_str (4, w->dims, ws);
  if (w->dims[3] != ic / groups || w->dims[1] < 1 || w->dims[2] < 1
      || w->dims[1] > MAX_ATTR_EXTENT || w->dims[2] > MAX_ATTR_EXTENT || oc < 1)
    return node_error (error, SIMNPU_ESHAPE, n,
        "weights must be [oc,kh,kw,ic/groups] = [oc,kh,kw,%" G_GINT64_FORMAT
        "], got %s", ic / groups, ws);
  if (b != NULL) {
    if ((ret = need_f32 (n, b, "bias", error)) < 0
        || (ret = need_vector (n, b, "bias", oc, error)) < 0)
      return ret;
  }
  for (i = 0; i < 4; i++)
    if (a->pads[i] < 0)
      return node_error (error, SIMNPU_EINVAL, n,
          "pads must be >= 0, got %d", a->pads[i]);
  /* the weights define the kernel extent */
  a->kernel[0] = (int32_t) w->dims[1];
  a->kernel[1] = (int32_t) w->dims[2];
  dims[0] = x->dims[0];
  for (i = 0; i < 2; i++) {
    if (a->stride[i] < 1 || a->dilation[i] < 1)
      return node_error (error, SIMNPU_EINVAL, n,
          "stride and dilation must be >= 1, got %d and %d", a->stride[i],
          a->dilation[i]);
    dims[1 + i] = simnpu__ir_window_out (x->dims[1 + i], w->dims[1 + i],
        a->stride[i], a->dilation[i], a->pads[i], a->pads[i + 2], false);
    if (dims[1 + i] < 1) {
      char xs[SHAPE_STR_SIZE];
      shape_str (4, x->dims, xs);
      return node_error (error, SIMNPU_ESHAPE, n,
          "kernel %s with dilation %d and pads %d,%d does not fit input %s",
          ws, a->dilation[i], a->pads[i], a->pads[i + 2], xs);
    }
  }
  dims[3] = oc;
  return set_out (g, n, 0, SIMNPU_IR_F32, 4, dims, error);
}

int
simnpu__ir_infer_matmul (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *a = in_t (g, n, 0), *b = in_t (g, n, 1);
  const simnpu__ir_tensor *bias = in_t (g, n, 2);
  int64_t dims[SIMNPU_IR_MAX_RANK], ka, kb, m, nn;
  unsigned rank, r;
  char as[SHAPE_STR_SIZE], bs[SHAPE_STR_SIZE];
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_dtype (n, a, "input", a->dtype == SIMNPU_IR_F32
              || a->dtype == SIMNPU_IR_I32 || a->dtype == SIMNPU_IR_I64,
              "f32, i32 or i64", error)) < 0
      || (ret = need_dtype (n, b, "input", b->dtype == a->dtype,
              simnpu__ir_dtype_name (a->dtype), error)) < 0
      || (ret = check_act (n, error)) < 0)
    return ret;
  /* integer products (TF's int32 MatMul, index arithmetic) wrap around
   * and take neither the fused bias nor an activation, which only the
   * float fusion passes add */
  if (a->dtype != SIMNPU_IR_F32 && (bias != NULL
          || n->attrs.act != SIMNPU_IR_ACT_NONE))
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "an integer matmul takes no bias or fused activation");
  shape_str (a->rank, a->dims, as);
  shape_str (b->rank, b->dims, bs);
  if (a->rank < 1 || b->rank < 1)
    return node_error (error, SIMNPU_ESHAPE, n,
        "operands must have rank >= 1, got %s and %s", as, bs);
  ka = a->dims[a->rank - 1];
  kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
  m = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  nn = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if (ka != kb)
    return node_error (error, SIMNPU_ESHAPE, n,
        "inner dimensions differ: %s x %s", as, bs);
  if (!simnpu__ir_broadcast (a->rank > 2 ? a->rank - 2 : 0, a->dims,
          b->rank > 2 ? b->rank - 2 : 0, b->dims, &rank, dims))
    return node_error (error, SIMNPU_ESHAPE, n,
        "batch dimensions do not broadcast: %s x %s", as, bs);
  r = rank;
  if (a->rank > 1)
    dims[r++] = m;
  if (b->rank > 1)
    dims[r++] = nn;
  if (bias != NULL) {
    if ((ret = need_f32 (n, bias, "bias", error)) < 0
        || (ret = need_vector (n, bias, "bias", nn, error)) < 0)
      return ret;
  }
  return set_out (g, n, 0, a->dtype, r, dims, error);
}

/* element-wise ops with numpy broadcasting of every input */
static int
infer_broadcast (simnpu__ir_graph * g, simnpu__ir_node * n,
    unsigned first, simnpu__ir_dtype out_dtype, simnpu_error * error)
{
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned rank = 0, i;

  for (i = first; i < n->n_inputs; i++) {
    const simnpu__ir_tensor *t = in_t (g, n, i);
    if (!simnpu__ir_broadcast (rank, dims, t->rank, t->dims, &rank, dims)) {
      char s[SHAPE_STR_SIZE], s2[SHAPE_STR_SIZE];
      shape_str (rank, dims, s);
      shape_str (t->rank, t->dims, s2);
      return node_error (error, SIMNPU_ESHAPE, n,
          "input '%s' of shape %s does not broadcast with %s", t->name, s2, s);
    }
  }
  return set_out (g, n, 0, out_dtype, rank, dims, error);
}

static int
same_dtypes (const simnpu__ir_graph * g, const simnpu__ir_node * n,
    unsigned first, simnpu_error * error)
{
  const simnpu__ir_tensor *t0 = in_t (g, n, first);
  unsigned i;

  for (i = first + 1; i < n->n_inputs; i++) {
    const simnpu__ir_tensor *t = in_t (g, n, i);
    if (t->dtype != t0->dtype)
      return node_error (error, SIMNPU_EUNSUPPORTED, n,
          "inputs '%s' (%s) and '%s' (%s) must have the same dtype",
          t0->name, simnpu__ir_dtype_name (t0->dtype), t->name,
          simnpu__ir_dtype_name (t->dtype));
  }
  return 0;
}

int
simnpu__ir_infer_binary (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *a = in_t (g, n, 0);
  simnpu__ir_dtype out = a->dtype;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  /* pow's exponent may have another numeric dtype (ONNX Pow-15) */
  if (n->op == SIMNPU_IR_POW) {
    if ((ret = need_dtype (n, in_t (g, n, 1), "exponent",
                is_numeric (in_t (g, n, 1)->dtype), "numeric", error)) < 0)
      return ret;
  } else if ((ret = same_dtypes (g, n, 0, error)) < 0) {
    return ret;
  }
  switch (n->op) {
    case SIMNPU_IR_EQUAL:
      out = SIMNPU_IR_BOOL;
      break;
    case SIMNPU_IR_LESS:
    case SIMNPU_IR_LESS_EQUAL:
    case SIMNPU_IR_GREATER:
    case SIMNPU_IR_GREATER_EQUAL:
      if ((ret = need_dtype (n, a, "input", is_numeric (a->dtype),
                  "numeric", error)) < 0)
        return ret;
      out = SIMNPU_IR_BOOL;
      break;
    case SIMNPU_IR_AND:
    case SIMNPU_IR_OR:
    case SIMNPU_IR_XOR:
      if ((ret = need_dtype (n, a, "input", a->dtype == SIMNPU_IR_BOOL,
                  "bool", error)) < 0)
        return ret;
      break;
    case SIMNPU_IR_PRELU:
    case SIMNPU_IR_ATAN2:
      if ((ret = need_f32 (n, a, "input", error)) < 0)
        return ret;
      break;
    default:
      if ((ret = need_dtype (n, a, "input", is_numeric (a->dtype),
                  "numeric", error)) < 0)
        return ret;
      break;
  }
  return infer_broadcast (g, n, 0, out, error);
}

int
simnpu__ir_infer_where (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *c = in_t (g, n, 0);
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_dtype (n, c, "condition", c->dtype == SIMNPU_IR_BOOL,
              "bool", error)) < 0 || (ret = same_dtypes (g, n, 1, error)) < 0)
    return ret;
  return infer_broadcast (g, n, 0, in_t (g, n, 1)->dtype, error);
}

int
simnpu__ir_infer_unary (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  switch (n->op) {
    case SIMNPU_IR_IDENTITY:
      break;
    case SIMNPU_IR_RELU:
    case SIMNPU_IR_CLIP:
    case SIMNPU_IR_NEG:
    case SIMNPU_IR_ABS:
    case SIMNPU_IR_SIGN:
      if ((ret = need_dtype (n, x, "input", is_numeric (x->dtype),
                  "numeric", error)) < 0)
        return ret;
      break;
    case SIMNPU_IR_NOT:
      if ((ret = need_dtype (n, x, "input", x->dtype == SIMNPU_IR_BOOL,
                  "bool", error)) < 0)
        return ret;
      break;
    default:
      if ((ret = need_f32 (n, x, "input", error)) < 0)
        return ret;
      break;
  }
  return set_out (g, n, 0, x->dtype, x->rank, x->dims, error);
}

int
simnpu__ir_infer_cast (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if ((unsigned) n->attrs.dtype >= SIMNPU_IR_N_DTYPES)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "unknown target dtype %d", (int) n->attrs.dtype);
  return set_out (g, n, 0, n->attrs.dtype, x->rank, x->dims, error);
}

int
simnpu__ir_infer_softmax (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_f32 (n, x, "input", error)) < 0
      || (ret = check_axis (n, n->attrs.axis, x->rank, error)) < 0)
    return ret;
  return set_out (g, n, 0, x->dtype, x->rank, x->dims, error);
}

int
simnpu__ir_infer_batchnorm (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  static const char *const what[] = { "input", "scale", "bias", "mean",
    "var"
  };
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  unsigned i;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (x->rank < 1)
    return node_error (error, SIMNPU_ESHAPE, n,
        "input '%s' must have a channel axis (last)", x->name);
  for (i = 0; i < 5; i++) {
    const simnpu__ir_tensor *t = in_t (g, n, i);
    if ((ret = need_f32 (n, t, what[i], error)) < 0)
      return ret;
    if (i > 0 && (ret = need_vector (n, t, what[i], x->dims[x->rank - 1],
                error)) < 0)
      return ret;
  }
  return set_out (g, n, 0, x->dtype, x->rank, x->dims, error);
}

/* resolves the reduced axes into a mask */
static int
reduce_axes (const simnpu__ir_node * n, unsigned rank, bool *mask,
    simnpu_error * error)
{
  unsigned i;

  if (n->attrs.n_ints > SIMNPU_IR_MAX_INTS)
    return node_error (error, SIMNPU_EINVAL, n, "too many axes (%u)",
        n->attrs.n_ints);
  for (i = 0; i < rank; i++)
    mask[i] = n->attrs.n_ints == 0;
  for (i = 0; i < n->attrs.n_ints; i++) {
    int64_t ax = n->attrs.ints[i];
    if (ax < 0)
      ax += rank;
    if (ax < 0 || ax >= (int64_t) rank || mask[ax])
      return node_error (error, SIMNPU_EINVAL, n,
          "axis %" G_GINT64_FORMAT " out of range or repeated for rank %u",
          n->attrs.ints[i], rank);
    mask[ax] = true;
  }
  return 0;
}

int
simnpu__ir_infer_reduce (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  bool mask[SIMNPU_IR_MAX_RANK];
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i, r = 0;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_dtype (n, x, "input", is_numeric (x->dtype), "numeric",
              error)) < 0 || (ret = reduce_axes (n, x->rank, mask, error)) < 0)
    return ret;
  for (i = 0; i < x->rank; i++) {
    if (!mask[i])
      dims[r++] = x->dims[i];
    else if (n->attrs.keepdims)
      dims[r++] = 1;
  }
  return set_out (g, n, 0, x->dtype, r, dims, error);
}

int
simnpu__ir_infer_arg (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i, r = 0;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_dtype (n, x, "input", is_numeric (x->dtype), "numeric",
              error)) < 0
      || (ret = check_axis (n, n->attrs.axis, x->rank, error)) < 0)
    return ret;
  if (x->rank > 0 && x->dims[n->attrs.axis] == 0)
    return node_error (error, SIMNPU_ESHAPE, n, "reduced axis is empty");
  for (i = 0; i < x->rank; i++) {
    if (i != (unsigned) n->attrs.axis)
      dims[r++] = x->dims[i];
    else if (n->attrs.keepdims)
      dims[r++] = 1;
  }
  return set_out (g, n, 0, SIMNPU_IR_I64, r, dims, error);
}

int
simnpu__ir_infer_pool (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  const simnpu__ir_attrs *a = &n->attrs;
  int64_t dims[4];
  unsigned i;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_rank (n, x, "input", 4, "NHWC", error)) < 0)
    return ret;
  /* the max of integers needs no float; the average does */
  if (n->op == SIMNPU_IR_MAXPOOL) {
    if ((ret = need_dtype (n, x, "input", x->dtype == SIMNPU_IR_F32
                || x->dtype == SIMNPU_IR_U8 || x->dtype == SIMNPU_IR_I8,
                "f32, u8 or i8", error)) < 0)
      return ret;
  } else if ((ret = need_f32 (n, x, "input", error)) < 0) {
    return ret;
  }
  for (i = 0; i < 4; i++)
    if (a->pads[i] < 0)
      return node_error (error, SIMNPU_EINVAL, n,
          "pads must be >= 0, got %d", a->pads[i]);
  dims[0] = x->dims[0];
  dims[3] = x->dims[3];
  for (i = 0; i < 2; i++) {
    if (a->kernel[i] < 1 || a->stride[i] < 1 || a->dilation[i] < 1)
      return node_error (error, SIMNPU_EINVAL, n,
          "kernel, stride and dilation must be >= 1, got %d, %d and %d",
          a->kernel[i], a->stride[i], a->dilation[i]);
    if (a->pads[i] >= (int64_t) a->dilation[i] * a->kernel[i]
        || a->pads[i + 2] >= (int64_t) a->dilation[i] * a->kernel[i])
      return node_error (error, SIMNPU_EINVAL, n,
          "pads %d,%d must be smaller than the kernel extent %d",
          a->pads[i], a->pads[i + 2], a->kernel[i] * a->dilation[i]);
    dims[1 + i] = simnpu__ir_window_out (x->dims[1 + i], a->kernel[i],
        a->stride[i], a->dilation[i], a->pads[i], a->pads[i + 2], a->ceil_mode);
    if (dims[1 + i] < 1) {
      char xs[SHAPE_STR_SIZE];
      shape_str (4, x->dims, xs);
      return node_error (error, SIMNPU_ESHAPE, n,
          "kernel %dx%d does not fit input %s", a->kernel[0], a->kernel[1], xs);
    }
  }
  return set_out (g, n, 0, x->dtype, 4, dims, error);
}

int
simnpu__ir_infer_resize (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  const simnpu__ir_attrs *a = &n->attrs;
  int64_t dims[4];
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_f32 (n, x, "input", error)) < 0
      || (ret = need_rank (n, x, "input", 4, "NHWC", error)) < 0)
    return ret;
  if (a->n_ints != 2 || a->ints[0] < 1 || a->ints[1] < 1)
    return node_error (error, SIMNPU_EINVAL, n,
        "ints must be the output height and width (2 values >= 1)");
  if ((unsigned) a->mode > SIMNPU_IR_RESIZE_BILINEAR)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "mode %d: only nearest (0) and bilinear (1)", a->mode);
  if ((unsigned) a->coord > SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "unknown coordinate transformation %d", a->coord);
  if ((unsigned) a->nearest > SIMNPU_IR_NEAREST_CEIL)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "unknown nearest mode %d", a->nearest);
  if (x->dims[1] < 1 || x->dims[2] < 1)
    return node_error (error, SIMNPU_ESHAPE, n, "input '%s' is empty", x->name);
  dims[0] = x->dims[0];
  dims[1] = a->ints[0];
  dims[2] = a->ints[1];
  dims[3] = x->dims[3];
  return set_out (g, n, 0, x->dtype, 4, dims, error);
}

int
simnpu__ir_infer_depth_space (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int64_t b = n->attrs.n_ints >= 1 ? n->attrs.ints[0] : 0, dims[4];
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_rank (n, x, "input", 4, "NHWC", error)) < 0)
    return ret;
  if (b < 1 || b > MAX_ATTR_EXTENT)
    return node_error (error, SIMNPU_EINVAL, n,
        "ints[0] must be the block size (>= 1)");
  dims[0] = x->dims[0];
  if (n->op == SIMNPU_IR_DEPTH_TO_SPACE) {
    if ((unsigned) n->attrs.mode > 1)
      return node_error (error, SIMNPU_EINVAL, n,
          "mode must be 0 (DCR) or 1 (CRD), got %d", n->attrs.mode);
    if (x->dims[3] % (b * b) != 0)
      return node_error (error, SIMNPU_ESHAPE, n,
          "channels %" G_GINT64_FORMAT " not divisible by block^2 %"
          G_GINT64_FORMAT, x->dims[3], b * b);
    dims[1] = x->dims[1] * b;
    dims[2] = x->dims[2] * b;
    dims[3] = x->dims[3] / (b * b);
  } else {
    if (x->dims[1] % b != 0 || x->dims[2] % b != 0)
      return node_error (error, SIMNPU_ESHAPE, n,
          "height and width must be multiples of the block %"
          G_GINT64_FORMAT, b);
    dims[1] = x->dims[1] / b;
    dims[2] = x->dims[2] / b;
    dims[3] = x->dims[3] * b * b;
  }
  return set_out (g, n, 0, x->dtype, 4, dims, error);
}

int
simnpu__ir_infer_reshape (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int64_t dims[SIMNPU_IR_MAX_RANK], count = 1, total =
      simnpu__ir_tensor_elements (x);
  unsigned i, r = n->attrs.n_ints;
  int infer = -1, ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (r > SIMNPU_IR_MAX_RANK)
    return node_error (error, SIMNPU_EINVAL, n, "rank %u above %d", r,
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < r; i++) {
    dims[i] = n->attrs.ints[i];
    if (dims[i] == -1 && infer < 0) {
      infer = (int) i;
      continue;
    }
    if (dims[i] < 0 || dims[i] > SIMNPU_IR_MAX_ELEMENTS)
      return node_error (error, SIMNPU_EINVAL, n,
          "target dimension %u is %" G_GINT64_FORMAT, i, dims[i]);
    count *= dims[i];
    if (count > SIMNPU_IR_MAX_ELEMENTS)
      return node_error (error, SIMNPU_ENOMEM, n, "target shape too large");
  }
  if (infer >= 0) {
    if (count == 0 || total % count != 0)
      return node_error (error, SIMNPU_ESHAPE, n,
          "cannot infer the -1 dimension");
    dims[infer] = total / count;
    count = total;
  }
  if (count != total) {
    char s[SHAPE_STR_SIZE], s2[SHAPE_STR_SIZE];
    shape_str (x->rank, x->dims, s);
    shape_str (r, dims, s2);
    return node_error (error, SIMNPU_ESHAPE, n,
        "cannot reshape %s to %s (element counts differ)", s, s2);
  }
  return set_out (g, n, 0, x->dtype, r, dims, error);
}

int
simnpu__ir_infer_transpose (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  simnpu__ir_attrs *a = &n->attrs;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  bool seen[SIMNPU_IR_MAX_RANK] = { false };
  unsigned i;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (a->n_ints == 0 && x->rank > 0) {
    /* ONNX's default: reverse the axes */
    a->n_ints = x->rank;
    for (i = 0; i < x->rank; i++)
      a->ints[i] = x->rank - 1 - i;
  }
  if (a->n_ints != x->rank)
    return node_error (error, SIMNPU_EINVAL, n,
        "perm has %u entries for rank %u", a->n_ints, x->rank);
  for (i = 0; i < x->rank; i++) {
    int64_t p = a->ints[i];
    if (p < 0 || p >= (int64_t) x->rank || seen[p])
      return node_error (error, SIMNPU_EINVAL, n,
          "perm is not a permutation of 0..%u", x->rank - 1);
    seen[p] = true;
    dims[i] = x->dims[p];
  }
  return set_out (g, n, 0, x->dtype, x->rank, dims, error);
}

int
simnpu__ir_infer_concat (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i, d, axis = (unsigned) n->attrs.axis;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = same_dtypes (g, n, 0, error)) < 0)
    return ret;
  if (x->rank == 0)
    return node_error (error, SIMNPU_ESHAPE, n, "inputs must have rank >= 1");
  if ((ret = check_axis (n, n->attrs.axis, x->rank, error)) < 0)
    return ret;
  memcpy (dims, x->dims, sizeof (dims));
  for (i = 1; i < n->n_inputs; i++) {
    const simnpu__ir_tensor *t = in_t (g, n, i);
    bool ok = t->rank == x->rank;
    for (d = 0; ok && d < x->rank; d++)
      ok = d == axis || t->dims[d] == x->dims[d];
    if (!ok) {
      char s[SHAPE_STR_SIZE], s2[SHAPE_STR_SIZE];
      shape_str (x->rank, x->dims, s);
      shape_str (t->rank, t->dims, s2);
      return node_error (error, SIMNPU_ESHAPE, n,
          "input '%s' %s does not match %s outside axis %u", t->name, s2, s,
          axis);
    }
    dims[axis] += t->dims[axis];
    if (dims[axis] > SIMNPU_IR_MAX_ELEMENTS)
      return node_error (error, SIMNPU_ENOMEM, n, "output too large");
  }
  return set_out (g, n, 0, x->dtype, x->rank, dims, error);
}

int
simnpu__ir_infer_split (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  simnpu__ir_attrs *a = &n->attrs;
  int64_t dims[SIMNPU_IR_MAX_RANK], sum = 0, dim;
  unsigned i, axis = (unsigned) a->axis;
  int ret;

  if (n->n_outputs < 1)
    return node_error (error, SIMNPU_EFORMAT, n, "needs outputs");
  if ((ret = check_axis (n, a->axis, x->rank, error)) < 0)
    return ret;
  if (x->rank == 0)
    return node_error (error, SIMNPU_ESHAPE, n, "input must have rank >= 1");
  dim = x->dims[axis];
  if (a->n_ints == 0 && n->n_outputs <= SIMNPU_IR_MAX_INTS) {
    /* equal parts, the last one smaller (ONNX Split-18) */
    int64_t part = (dim + n->n_outputs - 1) / n->n_outputs;
    a->n_ints = n->n_outputs;
    for (i = 0; i < n->n_outputs; i++) {
      a->ints[i] = MAX (0, MIN (part, dim - part * (int64_t) i));
    }
  }
  if (a->n_ints != n->n_outputs || a->n_ints > SIMNPU_IR_MAX_INTS)
    return node_error (error, SIMNPU_EINVAL, n,
        "%u sizes for %u outputs (at most %d)", a->n_ints, n->n_outputs,
        SIMNPU_IR_MAX_INTS);
  for (i = 0; i < a->n_ints; i++) {
    if (a->ints[i] < 0 || a->ints[i] > dim)
      return node_error (error, SIMNPU_EINVAL, n,
          "size %" G_GINT64_FORMAT " out of range", a->ints[i]);
    sum += a->ints[i];
  }
  if (sum != dim)
    return node_error (error, SIMNPU_ESHAPE, n,
        "sizes sum to %" G_GINT64_FORMAT ", axis %u has %" G_GINT64_FORMAT,
        sum, axis, dim);
  memcpy (dims, x->dims, sizeof (dims));
  for (i = 0; i < n->n_outputs; i++) {
    dims[axis] = a->ints[i];
    if ((ret = set_out (g, n, i, x->dtype, x->rank, dims, error)) < 0)
      return ret;
  }
  return 0;
}

int
simnpu__ir_infer_slice (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  const simnpu__ir_attrs *a = &n->attrs;
  int64_t dims[SIMNPU_IR_MAX_RANK], first;
  unsigned i, r = x->rank;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (a->n_ints != 2 * r)
    return node_error (error, SIMNPU_EINVAL, n,
        "ints must hold %u starts and %u ends, got %u values", r, r, a->n_ints);
  for (i = 0; i < r; i++)
    dims[i] = simnpu__ir_slice_len (x->dims[i], a->ints[i], a->ints[r + i],
        a->steps[i], &first);
  return set_out (g, n, 0, x->dtype, r, dims, error);
}

int
simnpu__ir_infer_pad (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  const simnpu__ir_attrs *a = &n->attrs;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i, r = x->rank;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (a->n_ints != 2 * r)
    return node_error (error, SIMNPU_EINVAL, n,
        "ints must hold %u pads before and %u after, got %u values", r, r,
        a->n_ints);
  if ((unsigned) a->mode > SIMNPU_IR_PAD_REFLECT)
    return node_error (error, SIMNPU_EUNSUPPORTED, n,
        "unknown pad mode %d", a->mode);
  for (i = 0; i < r; i++) {
    int64_t b = a->ints[i], e = a->ints[r + i];
    if (b < -SIMNPU_IR_MAX_ELEMENTS || b > SIMNPU_IR_MAX_ELEMENTS
        || e < -SIMNPU_IR_MAX_ELEMENTS || e > SIMNPU_IR_MAX_ELEMENTS)
      return node_error (error, SIMNPU_EINVAL, n, "pad out of range");
    dims[i] = x->dims[i] + b + e;
    if (dims[i] < 0 || (dims[i] > 0 && a->mode != SIMNPU_IR_PAD_CONSTANT
            && x->dims[i] + MIN (b, 0) + MIN (e, 0) <= 0))
      return node_error (error, SIMNPU_ESHAPE, n,
          "pads %" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
          " do not fit axis %u of size %" G_GINT64_FORMAT, b, e, i, x->dims[i]);
  }
  return set_out (g, n, 0, x->dtype, r, dims, error);
}

int
simnpu__ir_infer_gather (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0), *idx = in_t (g, n, 1);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i, r = 0, axis = (unsigned) n->attrs.axis;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = need_dtype (n, idx, "indices", idx->dtype == SIMNPU_IR_I64
              || idx->dtype == SIMNPU_IR_I32, "i64 or i32", error)) < 0)
    return ret;
  if (x->rank == 0)
    return node_error (error, SIMNPU_ESHAPE, n, "data must have rank >= 1");
  if ((ret = check_axis (n, n->attrs.axis, x->rank, error)) < 0)
    return ret;
  if (x->rank - 1 + idx->rank > SIMNPU_IR_MAX_RANK)
    return node_error (error, SIMNPU_ESHAPE, n, "output rank above %d",
        SIMNPU_IR_MAX_RANK);
  /* constant indices are checked once, here: an index outside the axis
   * makes the model invalid, whichever section would run it */
  if (idx->is_const && idx->data != NULL) {
    int64_t k, count = simnpu__ir_tensor_elements (idx), len = x->dims[axis];
    for (k = 0; k < count; k++) {
      int64_t v = idx->dtype == SIMNPU_IR_I64 ?
          ((const int64_t *) idx->data)[k] : ((const int32_t *) idx->data)[k];
      if (v < -len || v >= len)
        return node_error (error, SIMNPU_EFORMAT, n, "index %" G_GINT64_FORMAT
            " (element %" G_GINT64_FORMAT " of '%s') out of range for axis "
            "%u of size %" G_GINT64_FORMAT "; expected [%" G_GINT64_FORMAT
            ", %" G_GINT64_FORMAT ")", (gint64) v,
            (gint64) k, idx->name, axis, (gint64) len, (gint64) - len,
            (gint64) len);
    }
  }
  for (i = 0; i < axis; i++)
    dims[r++] = x->dims[i];
  for (i = 0; i < idx->rank; i++)
    dims[r++] = idx->dims[i];
  for (i = axis + 1; i < x->rank; i++)
    dims[r++] = x->dims[i];
  return set_out (g, n, 0, x->dtype, r, dims, error);
}

int
simnpu__ir_infer_tile (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (n->attrs.n_ints != x->rank)
    return node_error (error, SIMNPU_EINVAL, n,
        "%u repeats for rank %u", n->attrs.n_ints, x->rank);
  for (i = 0; i < x->rank; i++) {
    if (n->attrs.ints[i] < 0 || n->attrs.ints[i] > MAX_ATTR_EXTENT)
      return node_error (error, SIMNPU_EINVAL, n,
          "repeat %" G_GINT64_FORMAT " out of range", n->attrs.ints[i]);
    dims[i] = x->dims[i] * n->attrs.ints[i];
  }
  return set_out (g, n, 0, x->dtype, x->rank, dims, error);
}

int
simnpu__ir_infer_expand (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *x = in_t (g, n, 0);
  int64_t dims[SIMNPU_IR_MAX_RANK];
  unsigned i, rank;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  if (n->attrs.n_ints > SIMNPU_IR_MAX_RANK)
    return node_error (error, SIMNPU_EINVAL, n, "target rank above %d",
        SIMNPU_IR_MAX_RANK);
  for (i = 0; i < n->attrs.n_ints; i++)
    if (n->attrs.ints[i] < 0 || n->attrs.ints[i] > SIMNPU_IR_MAX_ELEMENTS)
      return node_error (error, SIMNPU_EINVAL, n,
          "target dimension %" G_GINT64_FORMAT " out of range",
          n->attrs.ints[i]);
  if (!simnpu__ir_broadcast (x->rank, x->dims, n->attrs.n_ints,
          n->attrs.ints, &rank, dims)) {
    char s[SHAPE_STR_SIZE], s2[SHAPE_STR_SIZE];
    shape_str (x->rank, x->dims, s);
    shape_str (n->attrs.n_ints, n->attrs.ints, s2);
    return node_error (error, SIMNPU_ESHAPE, n,
        "%s does not broadcast to %s", s, s2);
  }
  return set_out (g, n, 0, x->dtype, rank, dims, error);
}

int
simnpu__ir_infer_shape (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  int64_t dim = in_t (g, n, 0)->rank;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0)
    return ret;
  return set_out (g, n, 0, SIMNPU_IR_I64, 1, &dim, error);
}

static bool
scalar_value (const simnpu__ir_tensor * t, double *v)
{
  if (!t->is_const || t->data == NULL || simnpu__ir_tensor_elements (t) != 1)
    return false;
  switch (t->dtype) {
    case SIMNPU_IR_F32:
      *v = *(const float *) t->data;
      return true;
    case SIMNPU_IR_I64:
      *v = (double) *(const int64_t *) t->data;
      return true;
    case SIMNPU_IR_I32:
      *v = *(const int32_t *) t->data;
      return true;
    default:
      return false;
  }
}

int
simnpu__ir_infer_range (simnpu__ir_graph * g, simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *s = in_t (g, n, 0);
  double v[3], count;
  int64_t dim;
  unsigned i;
  int ret;

  if ((ret = need_outputs (n, 1, error)) < 0
      || (ret = same_dtypes (g, n, 0, error)) < 0
      || (ret = need_dtype (n, s, "start", s->dtype == SIMNPU_IR_F32
              || s->dtype == SIMNPU_IR_I64 || s->dtype == SIMNPU_IR_I32,
              "f32, i64 or i32", error)) < 0)
    return ret;
  for (i = 0; i < 3; i++)
    if (!scalar_value (in_t (g, n, i), &v[i]))
      return node_error (error, SIMNPU_EUNSUPPORTED, n,
          "start, limit and delta must be constant scalars (the output "
          "shape depends on them)");
  if (v[2] == 0 || !isfinite (v[0]) || !isfinite (v[1]) || !isfinite (v[2]))
    return node_error (error, SIMNPU_EINVAL, n,
        "delta must be non-zero and all values finite");
  count = ceil ((v[1] - v[0]) / v[2]);
  if (!(count <= (double) SIMNPU_IR_MAX_ELEMENTS))
    return node_error (error, SIMNPU_ENOMEM, n, "range too long");
  dim = count > 0 ? (int64_t) count : 0;
  return set_out (g, n, 0, s->dtype, 1, &dim, error);
}

/* ------------------------------------------------------------------ */
/* Structure checks and inference */

static int
check_tensor_index (const simnpu__ir_graph * g, int t, const char *what,
    simnpu_error * error)
{
  if (t < 0 || (unsigned) t >= g->n_tensors)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "graph '%s': %s tensor index %d out of range (%u tensors)", g->name,
        what, t, g->n_tensors);
  return 0;
}

static int
check_defined_shape (const simnpu__ir_graph * g, const simnpu__ir_tensor * t,
    const char *what, simnpu_error * error)
{
  if ((unsigned) t->dtype >= SIMNPU_IR_N_DTYPES
      || t->rank > SIMNPU_IR_MAX_RANK || simnpu__ir_tensor_elements (t) < 0)
    return simnpu__set_error (error, SIMNPU_ESHAPE,
        "graph '%s': %s '%s' has an invalid dtype or shape", g->name, what,
        t->name);
  if (t->is_const && t->data == NULL && simnpu__ir_tensor_bytes (t) > 0)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "graph '%s': constant '%s' has no data", g->name, t->name);
  return 0;
}

int
simnpu__ir_infer_shapes (simnpu__ir_graph * g, simnpu_error * error)
{
  uint8_t *defined;
  unsigned i, j;
  int ret = 0;

  if (g == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "no graph");
  if (g->n_inputs > SIMNPU_IR_MAX_INPUTS
      || g->n_outputs > SIMNPU_IR_MAX_OUTPUTS)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "graph '%s': too many inputs or outputs", g->name);
  defined = g_malloc0 (MAX (g->n_tensors, 1));
  for (i = 0; i < g->n_tensors; i++) {
    simnpu__ir_tensor *t = &g->tensors[i];
    t->producer = SIMNPU_IR_NONE;
    if (t->is_const) {
      if ((ret = check_defined_shape (g, t, "constant", error)) < 0)
        goto out;
      defined[i] = 1;
    }
  }
  for (i = 0; i < g->n_inputs; i++) {
    simnpu__ir_tensor *t;
    if ((ret = check_tensor_index (g, g->inputs[i], "input", error)) < 0)
      goto out;
    t = &g->tensors[g->inputs[i]];
    if (t->is_const || defined[g->inputs[i]]) {
      ret = simnpu__set_error (error, SIMNPU_EFORMAT,
          "graph '%s': input '%s' is a constant or listed twice", g->name,
          t->name);
      goto out;
    }
    if ((ret = check_defined_shape (g, t, "input", error)) < 0)
      goto out;
    defined[g->inputs[i]] = 1;
  }
  for (i = 0; i < g->n_nodes; i++) {
    simnpu__ir_node *n = &g->nodes[i];
    const simnpu__ir_op_info *info = simnpu__ir_op_get (n->op);
    if (n->name == NULL) {
      ret = simnpu__set_error (error, SIMNPU_EINTERNAL,
          "graph '%s': node %u has no name", g->name, i);
      goto out;
    }
    if (info == NULL) {
      ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "node '%s': unknown op %d", n->name, (int) n->op);
      goto out;
    }
    if (n->n_inputs < info->min_inputs || n->n_inputs > info->max_inputs
        || n->n_inputs > SIMNPU_IR_MAX_INPUTS) {
      ret = node_error (error, SIMNPU_EFORMAT, n,
          "takes %u to %u inputs, got %u", info->min_inputs,
          info->max_inputs, n->n_inputs);
      goto out;
    }
    if (n->n_outputs < 1 || n->n_outputs > SIMNPU_IR_MAX_OUTPUTS) {
      ret = node_error (error, SIMNPU_EFORMAT, n, "has %u outputs",
          n->n_outputs);
      goto out;
    }
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      /* only the trailing inputs of fixed-arity ops (biases) are
       * optional */
      if (t == SIMNPU_IR_NONE && j >= info->min_inputs
          && info->max_inputs != SIMNPU_IR_MAX_INPUTS)
        continue;
      if (t < 0 || (unsigned) t >= g->n_tensors) {
        ret = node_error (error, SIMNPU_EFORMAT, n,
            "input %u: tensor index %d out of range (%u tensors)", j, t,
            g->n_tensors);
        goto out;
      }
      if (!defined[t]) {
        ret = node_error (error, SIMNPU_EFORMAT, n,
            "input '%s' is used before it is defined", g->tensors[t].name);
        goto out;
      }
    }
    for (j = 0; j < n->n_outputs; j++) {
      int t = n->outputs[j];
      if (t < 0 || (unsigned) t >= g->n_tensors) {
        ret = node_error (error, SIMNPU_EFORMAT, n,
            "output %u: tensor index %d out of range (%u tensors)", j, t,
            g->n_tensors);
        goto out;
      }
      if (defined[t]) {
        ret = node_error (error, SIMNPU_EFORMAT, n,
            "output '%s' is already defined (constant, input or another "
            "node's output)", g->tensors[t].name);
        goto out;
      }
      /* marked now so that a node listing it twice fails */
      defined[t] = 2;
    }
    if ((ret = info->infer (g, n, error)) < 0)
      goto out;
    for (j = 0; j < n->n_outputs; j++)
      g->tensors[n->outputs[j]].producer = (int) i;
  }
  for (i = 0; i < g->n_outputs; i++) {
    if ((ret = check_tensor_index (g, g->outputs[i], "output", error)) < 0)
      goto out;
    if (!defined[g->outputs[i]]) {
      ret = simnpu__set_error (error, SIMNPU_EFORMAT,
          "graph '%s': output '%s' is not computed by any node", g->name,
          g->tensors[g->outputs[i]].name);
      goto out;
    }
  }
out:
  g_free (defined);
  return ret;
}
