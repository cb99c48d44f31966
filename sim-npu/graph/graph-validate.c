/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Validation of a device graph: structural checks of its tensors and the
 * shape inference of its ops (shared by the JSON and .axm loaders, so both
 * reject the same mistakes). */

#include "graph-private.h"

#include <math.h>
#include <string.h>

/* mean sums int8 in int32: 128 * H * W < 2^31 */
#define MAX_MEAN_POSITIONS (1 << 23)

static void
format_shape (const simnpu__tensor * t, char *buf, size_t size)
{
  GString *s = g_string_new ("[");
  unsigned i;

  for (i = 0; i < t->n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? "," : "",
        (gint64) t->dims[i]);
  g_string_append_c (s, ']');
  g_strlcpy (buf, s->str, size);
  g_string_free (s, TRUE);
}

#define SHAPE_BUF 96

int
simnpu__op_error (simnpu_error * error, int code, const simnpu__op * op,
    unsigned index, const char *what)
{
  return simnpu__set_error (error, code, "ops[%u] '%s' (%s): %s", index,
      op->name ? op->name : "", simnpu__op_type_name (op->type), what);
}

static bool
set_dims (simnpu__tensor * t, unsigned n, const int64_t * d)
{
  int64_t elems = 1;
  unsigned i;

  for (i = 0; i < n; i++) {
    if (d[i] < 1 || d[i] > SIMNPU_MAX_TENSOR_ELEMENTS)
      return false;
    elems *= d[i];
    if (elems > SIMNPU_MAX_TENSOR_ELEMENTS)
      return false;
  }
  t->n_dims = n;
  memcpy (t->dims, d, n * sizeof (int64_t));
  return true;
}

/* Checks or sets the shape of an op's output: a tensor whose shape is
 * already known (a declared graph output, or a tensor read back from an
 * .axm) must match. */
static int
assign_output (simnpu__graph * g, const simnpu__op * op, unsigned op_index,
    unsigned out_slot, unsigned n, const int64_t * d, simnpu_error * error)
{
  simnpu__tensor *t = &g->tensors[op->outputs[out_slot]];
  simnpu__tensor want = { 0 };
  char have_s[SHAPE_BUF], want_s[SHAPE_BUF], msg[3 * SHAPE_BUF];

  if (!set_dims (&want, n, d))
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, op_index,
        "output shape has a dimension < 1 or too many elements");
  if (t->n_dims == 0) {
    set_dims (t, n, d);
    return 0;
  }
  if (t->n_dims == n && memcmp (t->dims, d, n * sizeof (int64_t)) == 0)
    return 0;
  format_shape (t, have_s, sizeof (have_s));
  format_shape (&want, want_s, sizeof (want_s));
  snprintf (msg, sizeof (msg), "output '%s' is declared %s but the op "
      "produces %s", t->name, have_s, want_s);
  return simnpu__op_error (error, SIMNPU_ESHAPE, op, op_index, msg);
}

int
simnpu__op_infer_window (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  unsigned i;
  char msg[256];
  bool conv = op->type == SIMNPU_OP_CONV2D;
  int64_t kh = at[SIMNPU_A_KH], kw = at[SIMNPU_A_KW];
  int64_t sh = at[SIMNPU_A_SH], sw = at[SIMNPU_A_SW];
  int64_t dh = conv ? at[SIMNPU_A_DH] : 1, dw = conv ? at[SIMNPU_A_DW] : 1;
  int64_t groups = conv ? at[SIMNPU_A_GROUPS] : 1;
  int64_t oc = conv ? at[SIMNPU_A_OC] : 0;
  int64_t eh, ew;

  if (in->n_dims != 4)
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "input must have rank 4 (NHWC)");
  if (op->n_outputs != 1 || op->n_inputs != (conv ? 3u : 1u))
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi, conv ?
        "expected inputs [x, weights, bias] and one output" :
        "expected one input and one output");
  if (kh < 1 || kw < 1 || kh > SIMNPU_MAX_KERNEL_DIM
      || kw > SIMNPU_MAX_KERNEL_DIM || sh < 1 || sw < 1
      || sh > SIMNPU_MAX_KERNEL_DIM || sw > SIMNPU_MAX_KERNEL_DIM
      || dh < 1 || dw < 1 || dh > SIMNPU_MAX_KERNEL_DIM
      || dw > SIMNPU_MAX_KERNEL_DIM)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "kernel, stride and dilation must be in [1, 64]");
  for (i = SIMNPU_A_PT; i <= SIMNPU_A_PR; i++)
    if (at[i] < 0 || at[i] > SIMNPU_MAX_KERNEL_DIM)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "padding must be in [0, 64]");
  eh = in->dims[1] + at[SIMNPU_A_PT] + at[SIMNPU_A_PB] - dh * (kh - 1) - 1;
  ew = in->dims[2] + at[SIMNPU_A_PL] + at[SIMNPU_A_PR] - dw * (kw - 1) - 1;
  if (eh < 0 || ew < 0)
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "kernel (with dilation) is larger than the padded input");
  if (conv) {
    const simnpu__tensor *w = &g->tensors[op->inputs[1]];
    const simnpu__tensor *bias = &g->tensors[op->inputs[2]];
    if (groups < 1 || in->dims[3] % groups != 0 || oc < 1 || oc % groups != 0)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "groups must divide both input and output channels");
    if (w->n_dims != 4 || w->dims[0] != oc || w->dims[1] != kh
        || w->dims[2] != kw || w->dims[3] != in->dims[3] / groups) {
      snprintf (msg, sizeof (msg), "weights must have shape [%"
          G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
          G_GINT64_FORMAT "] ([out_channels, kh, kw, in_channels / "
          "groups])", (gint64) oc, (gint64) kh, (gint64) kw,
          (gint64) (in->dims[3] / groups));
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi, msg);
    }
    if (bias->n_dims != 1 || bias->dims[0] != oc)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "bias must have shape [out_channels]");
    if (w->dtype != SIMNPU_DTYPE_I8 || bias->dtype != SIMNPU__DTYPE_I32)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "weights must be i8 and bias i32");
    if (w->kind != SIMNPU_TENSOR_CONSTANT
        || bias->kind != SIMNPU_TENSOR_CONSTANT)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "weights and bias must be constants");
    if (at[SIMNPU_A_ACT] < SIMNPU_ACT_NONE
        || at[SIMNPU_A_ACT] > SIMNPU_ACT_CLIP)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "activation must be 0 (none), 1 (relu) or 2 (clip)");
    if (at[SIMNPU_A_ACT] == SIMNPU_ACT_CLIP && (at[SIMNPU_A_ACT_QMIN] < I8_MIN
            || at[SIMNPU_A_ACT_QMAX] > I8_MAX
            || at[SIMNPU_A_ACT_QMIN] > at[SIMNPU_A_ACT_QMAX]))
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "clip bounds must satisfy -128 <= min <= max <= 127 " "(quantised)");
  }
  d[0] = in->dims[0];
  d[1] = eh / sh + 1;
  d[2] = ew / sw + 1;
  d[3] = conv ? oc : in->dims[3];
  return assign_output (g, op, oi, 0, 4, d, error);
}

int
simnpu__op_infer_binary (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS], a[SIMNPU_MAX_DIMS], b[SIMNPU_MAX_DIMS];
  const simnpu__tensor *in2;
  unsigned rank, i;

  if (op->n_inputs != 2 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected two inputs and one output");
  in2 = &g->tensors[op->inputs[1]];
  dims4 (in, a);
  dims4 (in2, b);
  rank = MAX (in->n_dims, in2->n_dims);
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "input shapes are not broadcastable (each dimension must be "
          "equal or 1)");
    d[i] = MAX (a[i], b[i]);
  }
  return assign_output (g, op, oi, 0, rank, d + SIMNPU_MAX_DIMS - rank, error);
}

int
simnpu__op_infer_concat (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int axis = op->attrs[SIMNPU_A_AXIS];
  int64_t total = 0;
  unsigned i, j;

  if (op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one output");
  if (axis < 0 || (unsigned) axis >= in->n_dims)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "axis must be in [0, rank)");
  for (i = 0; i < op->n_inputs; i++) {
    const simnpu__tensor *t = &g->tensors[op->inputs[i]];
    if (t->n_dims != in->n_dims)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "all inputs must have the same rank");
    for (j = 0; j < in->n_dims; j++)
      if (j != (unsigned) axis && t->dims[j] != in->dims[j])
        return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
            "inputs must have equal dimensions except along the axis");
    total += t->dims[axis];
  }
  memcpy (d, in->dims, sizeof (d));
  d[axis] = total;
  return assign_output (g, op, oi, 0, in->n_dims, d, error);
}

int
simnpu__op_infer_split (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  int axis = at[SIMNPU_A_AXIS];
  int64_t total = 0;
  unsigned i;
  int ret;

  if (op->n_inputs != 1 || op->n_outputs > SIMNPU_N_ATTRS - 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and at most 15 outputs");
  if (axis < 0 || (unsigned) axis >= in->n_dims)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "axis must be in [0, rank)");
  for (i = 0; i < op->n_outputs; i++) {
    if (at[SIMNPU_A_SIZES0 + i] < 1)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "split sizes must be >= 1");
    total += at[SIMNPU_A_SIZES0 + i];
  }
  if (total != in->dims[axis])
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "split sizes must add up to the input dimension along the axis");
  for (i = 0; i < op->n_outputs; i++) {
    memcpy (d, in->dims, sizeof (d));
    d[axis] = at[SIMNPU_A_SIZES0 + i];
    if ((ret = assign_output (g, op, oi, i, in->n_dims, d, error)) < 0)
      return ret;
  }
  return 0;
}

int
simnpu__op_infer_slice (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS], a[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  unsigned pad = SIMNPU_MAX_DIMS - in->n_dims, i;

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  dims4 (in, a);
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    int64_t begin = at[SIMNPU_A_BEGIN0 + i], size = at[SIMNPU_A_SIZE0 + i];
    if (begin < 0 || size < 1 || begin + size > a[i])
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "slice begin/size out of the input's range");
    d[i] = size;
  }
  return assign_output (g, op, oi, 0, in->n_dims, d + pad, error);
}

int
simnpu__op_infer_resize (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (at[SIMNPU_A_RESIZE_MODE] != SIMNPU_RESIZE_MODE_NEAREST
      && at[SIMNPU_A_RESIZE_MODE] != SIMNPU_RESIZE_MODE_BILINEAR)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "mode must be 0 (nearest) or 1 (bilinear)");
  if (at[SIMNPU_A_COORD] < 0 || at[SIMNPU_A_COORD] >= SIMNPU_N_COORD_MODES)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "coordinate mode must be in [0, 4]");
  if (at[SIMNPU_A_NEAREST] < 0
      || at[SIMNPU_A_NEAREST] >= SIMNPU_N_NEAREST_MODES)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "nearest mode must be in [0, 3]");
  memcpy (d, in->dims, sizeof (d));
  if (at[SIMNPU_A_OUT_H] != 0 || at[SIMNPU_A_OUT_W] != 0) {
    if (at[SIMNPU_A_OUT_H] < 1 || at[SIMNPU_A_OUT_W] < 1)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "output size must have both dimensions >= 1");
    d[1] = at[SIMNPU_A_OUT_H];
    d[2] = at[SIMNPU_A_OUT_W];
  } else {
    if (at[SIMNPU_A_SCALE_H] < 1 || at[SIMNPU_A_SCALE_W] < 1
        || at[SIMNPU_A_SCALE_H] > SIMNPU_MAX_KERNEL_DIM
        || at[SIMNPU_A_SCALE_W] > SIMNPU_MAX_KERNEL_DIM)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "scale factors must be integers in [1, 64]");
    d[1] *= at[SIMNPU_A_SCALE_H];
    d[2] *= at[SIMNPU_A_SCALE_W];
  }
  return assign_output (g, op, oi, 0, 4, d, error);
}

int
simnpu__op_infer_mean (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (in->dims[1] * in->dims[2] > MAX_MEAN_POSITIONS)
    return simnpu__op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "height * width must be at most 2^23");
  d[0] = in->dims[0];
  d[1] = 1;
  d[2] = 1;
  d[3] = in->dims[3];
  return assign_output (g, op, oi, 0, 4, d, error);
}

/* prelu: x and its slope, one per channel (the last dimension) or one for
 * all */
int
simnpu__op_infer_prelu (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *slope;
  int64_t n;

  if (op->n_inputs != 2 || op->n_outputs != 1 || in->n_dims < 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected an input, its slope and one output");
  slope = &g->tensors[op->inputs[1]];
  n = simnpu__tensor_elements (slope);
  if (n != 1 && n != in->dims[in->n_dims - 1])
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "slope must have one value or one per channel (the last " "dimension)");
  return assign_output (g, op, oi, 0, in->n_dims, in->dims, error);
}

/* depth_to_space and space_to_depth: NHWC, block size in [2, 64] */
int
simnpu__op_infer_depth_space (simnpu__graph * g, simnpu__op * op,
    unsigned oi, simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const int32_t *at = op->attrs;
  int64_t b = at[SIMNPU_A_BLOCK], d[SIMNPU_MAX_DIMS];

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (b < 2 || b > SIMNPU_MAX_KERNEL_DIM)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "block size must be in [2, 64]");
  d[0] = in->dims[0];
  if (op->type == SIMNPU_OP_DEPTH_TO_SPACE) {
    if (at[SIMNPU_A_D2S_MODE] != SIMNPU_D2S_DCR
        && at[SIMNPU_A_D2S_MODE] != SIMNPU_D2S_CRD)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "mode must be 0 (DCR) or 1 (CRD)");
    if (in->dims[3] % (b * b) != 0)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "channels must be a multiple of block size squared");
    d[1] = in->dims[1] * b;
    d[2] = in->dims[2] * b;
    d[3] = in->dims[3] / (b * b);
  } else {
    if (in->dims[1] % b != 0 || in->dims[2] % b != 0)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "height and width must be multiples of the block size");
    d[1] = in->dims[1] / b;
    d[2] = in->dims[2] / b;
    d[3] = in->dims[3] * b * b;
  }
  return assign_output (g, op, oi, 0, 4, d, error);
}

/* gather: data and its indices, an i32 constant of 1 to 4 dimensions
 * read as one list, each in [0, size of the axis); the output is the data
 * with the axis replaced by the list */
int
simnpu__op_infer_gather (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *idx;
  const int32_t *v;
  int axis = op->attrs[SIMNPU_A_AXIS];
  int64_t d[SIMNPU_MAX_DIMS], n, k;

  if (op->n_inputs != 2 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected data, its indices and one output");
  idx = &g->tensors[op->inputs[1]];
  if (idx->kind != SIMNPU_TENSOR_CONSTANT || idx->dtype != SIMNPU__DTYPE_I32)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "indices must be an i32 constant");
  if (axis < 0 || (unsigned) axis >= in->n_dims)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "axis must be in [0, rank)");
  n = simnpu__tensor_elements (idx);
  /* shape-only graphs have no index values; a size mismatch is
   * simnpu__graph_validate ()'s to report */
  v = idx->data_bytes == simnpu__tensor_bytes (idx) ? idx->data : NULL;
  for (k = 0; v != NULL && k < n; k++)
    if (v[k] < 0 || v[k] >= in->dims[axis]) {
      char *what = g_strdup_printf ("index %d (at %" G_GINT64_FORMAT
          ") out of range: axis %d has %" G_GINT64_FORMAT " entries; "
          "expected [0, %" G_GINT64_FORMAT ")", v[k], (gint64) k, axis,
          (gint64) in->dims[axis], (gint64) in->dims[axis]);
      int ret = simnpu__op_error (error, SIMNPU_EFORMAT, op, oi, what);
      g_free (what);
      return ret;
    }
  memcpy (d, in->dims, in->n_dims * sizeof (int64_t));
  d[axis] = n;
  return assign_output (g, op, oi, 0, in->n_dims, d, error);
}

/* select: a constant i8 condition (non-zero: true) and the two operands
 * it picks from, all three broadcast to the output */
int
simnpu__op_infer_select (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  int64_t d[SIMNPU_MAX_DIMS], s[SIMNPU_MAX_DIMS];
  unsigned rank = 0, i, j;

  if (op->n_inputs != 3 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected a condition, two operands and one output");
  if (g->tensors[op->inputs[0]].kind != SIMNPU_TENSOR_CONSTANT)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "the condition must be a constant");
  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    d[i] = 1;
  for (j = 0; j < 3; j++) {
    const simnpu__tensor *t = &g->tensors[op->inputs[j]];
    dims4 (t, s);
    rank = MAX (rank, t->n_dims);
    for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
      if (s[i] != d[i] && s[i] != 1 && d[i] != 1)
        return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
            "the condition's and operands' shapes are not broadcastable "
            "(each dimension must be equal or 1)");
      d[i] = MAX (d[i], s[i]);
    }
  }
  return assign_output (g, op, oi, 0, rank, d + SIMNPU_MAX_DIMS - rank, error);
}

int
simnpu__op_infer_pad (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  unsigned i;

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (at[SIMNPU_A_PAD_MODE] != SIMNPU_PAD_CONSTANT
      && at[SIMNPU_A_PAD_MODE] != SIMNPU_PAD_EDGE)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "mode must be 0 (constant) or 1 (edge)");
  if (at[SIMNPU_A_PAD_VALUE] < I8_MIN || at[SIMNPU_A_PAD_VALUE] > I8_MAX)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "pad value must be an int8 in [-128, 127]");
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    int64_t b0 = at[SIMNPU_A_PAD0 + i];
    int64_t a0 = at[SIMNPU_A_PAD0 + SIMNPU_MAX_DIMS + i];
    if (b0 < 0 || a0 < 0 || b0 > SIMNPU_MAX_TENSOR_ELEMENTS
        || a0 > SIMNPU_MAX_TENSOR_ELEMENTS)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "pads must be in [0, 2^26]");
    d[i] = in->dims[i] + b0 + a0;
  }
  return assign_output (g, op, oi, 0, 4, d, error);
}

int
simnpu__op_infer_reshape (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  int rank = at[SIMNPU_A_RANK];
  int infer = -1;
  int64_t known = 1;
  unsigned i;

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  if (rank < 1 || rank > SIMNPU_MAX_DIMS)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "shape must have 1 to 4 dimensions");
  for (i = 0; i < (unsigned) rank; i++) {
    d[i] = at[SIMNPU_A_DIM0 + i];
    if (d[i] == -1 && infer < 0)
      infer = (int) i;
    else if (d[i] < 1)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "shape dimensions must be >= 1 (one may be -1)");
    else
      known *= d[i];
    if (known > SIMNPU_MAX_TENSOR_ELEMENTS)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "new shape has more than 2^26 elements");
  }
  if (infer >= 0) {
    if (simnpu__tensor_elements (in) % known != 0)
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
          "cannot infer the -1 dimension");
    d[infer] = simnpu__tensor_elements (in) / known;
    known *= d[infer];
  }
  if (known != simnpu__tensor_elements (in))
    return simnpu__op_error (error, SIMNPU_ESHAPE, op, oi,
        "new shape must have as many elements as the input");
  return assign_output (g, op, oi, 0, rank, d, error);
}

int
simnpu__op_infer_transpose (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  unsigned seen = 0, i;

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  for (i = 0; i < in->n_dims; i++) {
    int p = op->attrs[SIMNPU_A_PERM0 + i];
    if (p < 0 || (unsigned) p >= in->n_dims || (seen & (1u << p)))
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
          "perm must be a permutation of [0, rank)");
    seen |= 1u << p;
    d[i] = in->dims[p];
  }
  return assign_output (g, op, oi, 0, in->n_dims, d, error);
}

int
simnpu__op_infer_lut (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *table;

  if (op->n_inputs != 2 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected inputs [x, table] and one output");
  table = &g->tensors[op->inputs[1]];
  if (table->kind != SIMNPU_TENSOR_CONSTANT
      || table->dtype != SIMNPU_DTYPE_I8 || table->n_dims != 1
      || table->dims[0] != LUT_ENTRIES)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "table must be an i8 constant of shape [256]");
  return assign_output (g, op, oi, 0, in->n_dims, in->dims, error);
}

/* unary ops: the output has the input's shape */
int
simnpu__op_infer_unary (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  return assign_output (g, op, oi, 0, in->n_dims, in->dims, error);
}

int
simnpu__op_infer_softmax (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  if (op->attrs[SIMNPU_A_AXIS] < 0
      || (unsigned) op->attrs[SIMNPU_A_AXIS] >= in->n_dims)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "axis must be in [0, rank)");
  return assign_output (g, op, oi, 0, in->n_dims, in->dims, error);
}

static int
infer_op (simnpu__graph * g, simnpu__op * op, unsigned oi,
    const bool *avail, simnpu_error * error)
{
  const simnpu__op_def *def = op_def (op->type);
  unsigned i;
  char msg[256];

  if (op->n_inputs == 0 || op->n_outputs == 0)
    return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected at least one input and one output");
  for (i = 0; i < op->n_inputs; i++) {
    if (avail != NULL && !avail[op->inputs[i]]) {
      snprintf (msg, sizeof (msg), "input '%s' is used before it is "
          "produced (ops must be in execution order)",
          g->tensors[op->inputs[i]].name);
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, oi, msg);
    }
  }
  if (def == NULL)
    return simnpu__op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "unknown op type");
  return def->infer (g, op, oi, error);
}

/* conv2d's weights and bias declared without a shape get the shape the op
 * implies */
int
simnpu__op_bind_conv (simnpu__graph * g, simnpu__op * op, unsigned i,
    simnpu_error * error)
{
  simnpu__tensor *in, *w, *b;
  int32_t groups = op->attrs[SIMNPU_A_GROUPS];

  if (op->n_inputs != 3)
    return 0;
  in = &g->tensors[op->inputs[0]];
  w = &g->tensors[op->inputs[1]];
  b = &g->tensors[op->inputs[2]];
  if (w->shape_from_op && in->n_dims == 4 && groups >= 1) {
    int64_t wd[4] = { op->attrs[SIMNPU_A_OC], op->attrs[SIMNPU_A_KH],
      op->attrs[SIMNPU_A_KW], in->dims[3] / groups
    };
    if (!set_dims (w, 4, wd))
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, i,
          "weights shape [out_channels, kh, kw, in_channels / groups] "
          "has a dimension < 1");
    w->shape_from_op = false;
  }
  if (b->shape_from_op) {
    int64_t bd[1] = { op->attrs[SIMNPU_A_OC] };
    if (!set_dims (b, 1, bd))
      return simnpu__op_error (error, SIMNPU_ESHAPE, op, i,
          "out_channels must be >= 1");
    b->shape_from_op = false;
  }
  return 0;
}

/* Infers one op's output shapes, first giving parameters declared without
 * a shape (conv weights and bias) the shape the op implies. avail may be
 * NULL when the caller guarantees that the op's inputs exist. */
int
simnpu__graph_infer_op (simnpu__graph * g, unsigned i, const bool *avail,
    simnpu_error * error)
{
  simnpu__op *op = &g->ops[i];
  const simnpu__op_def *def = op_def (op->type);
  int ret;

  if (def != NULL && def->bind != NULL
      && (ret = def->bind (g, op, i, error)) < 0)
    return ret;
  return infer_op (g, op, i, avail, error);
}

static int infer_all (simnpu__graph * g, bool *avail, simnpu_error * error);

/* Infers every op output's shape, in op order, and checks the graph's
 * structure: tensor indices in range, each non-input tensor produced once
 * before use, constants never produced. */
int
simnpu__graph_infer_shapes (simnpu__graph * g, simnpu_error * error)
{
  unsigned i;
  int ret = 0;
  bool *avail;

  if (g->n_tensors > SIMNPU_MAX_TENSORS || g->n_ops > SIMNPU_MAX_OPS)
    return simnpu__set_error (error, SIMNPU_ENOMEM,
        "graph: %u tensors and %u ops; expected at most %u and %u",
        g->n_tensors, g->n_ops, SIMNPU_MAX_TENSORS, SIMNPU_MAX_OPS);
  if (g->n_inputs < 1 || g->n_outputs < 1 || g->n_inputs > SIMNPU_MAX_IO
      || g->n_outputs > SIMNPU_MAX_IO)
    return simnpu__set_error (error, SIMNPU_EFORMAT,
        "graph: expected 1 to %u inputs and outputs", SIMNPU_MAX_IO);
  for (i = 0; i < g->n_tensors; i++) {
    g->tensors[i].producer = -1;
    if (g->tensors[i].kind == SIMNPU_TENSOR_ACTIVATION)
      g->tensors[i].n_dims = 0;
  }
  for (i = 0; i < g->n_inputs; i++)
    if (g->inputs[i] >= g->n_tensors
        || g->tensors[g->inputs[i]].kind != SIMNPU_TENSOR_INPUT)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "inputs[%u]: not an input tensor", i);
  for (i = 0; i < g->n_outputs; i++)
    if (g->outputs[i] >= g->n_tensors
        || g->tensors[g->outputs[i]].kind != SIMNPU_TENSOR_OUTPUT)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "outputs[%u]: not an output tensor", i);

  avail = g_new0 (bool, g->n_tensors);
  for (i = 0; i < g->n_tensors; i++)
    avail[i] = g->tensors[i].kind == SIMNPU_TENSOR_INPUT
        || g->tensors[i].kind == SIMNPU_TENSOR_CONSTANT;
  ret = infer_all (g, avail, error);
  g_free (avail);
  if (ret < 0)
    return ret;
  for (i = 0; i < g->n_outputs; i++)
    if (g->tensors[g->outputs[i]].producer < 0)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "outputs[%u] '%s': no op produces it", i,
          g->tensors[g->outputs[i]].name);
  return 0;
}

static int
infer_all (simnpu__graph * g, bool *avail, simnpu_error * error)
{
  unsigned i, j;
  int ret;

  for (i = 0; i < g->n_ops; i++) {
    simnpu__op *op = &g->ops[i];
    unsigned n_params;
    if (op->n_inputs > SIMNPU_MAX_OP_INPUTS
        || op->n_outputs > SIMNPU_MAX_OP_OUTPUTS)
      return simnpu__op_error (error, SIMNPU_EFORMAT, op, i,
          "too many inputs or " "outputs (at most 8 each)");
    for (j = 0; j < op->n_inputs; j++)
      if (op->inputs[j] >= g->n_tensors)
        return simnpu__op_error (error, SIMNPU_EFORMAT, op, i,
            "input tensor index out of range");
    for (j = 0; j < op->n_outputs; j++) {
      simnpu__tensor *t;
      if (op->outputs[j] >= g->n_tensors)
        return simnpu__op_error (error, SIMNPU_EFORMAT, op, i,
            "output tensor index out of range");
      t = &g->tensors[op->outputs[j]];
      if (t->producer >= 0 || t->kind == SIMNPU_TENSOR_INPUT
          || t->kind == SIMNPU_TENSOR_CONSTANT)
        return simnpu__op_error (error, SIMNPU_EFORMAT, op, i,
            "output tensor is already produced, or is an input or constant");
      t->producer = (int) i;
      /* declared outputs keep their shape to be checked; the rest are
       * inferred */
      if (t->kind == SIMNPU_TENSOR_ACTIVATION)
        t->n_dims = 0;
    }
    n_params = op_def (op->type) != NULL ? op_def (op->type)->n_params : 0;
    for (j = PARAMS_FROM; n_params > 0 && j < op->n_inputs
        && j < PARAMS_FROM + n_params; j++)
      if (g->tensors[op->inputs[j]].kind != SIMNPU_TENSOR_CONSTANT)
        return simnpu__op_error (error, SIMNPU_EFORMAT, op, i,
            "weights and bias must be constants");
    if ((ret = simnpu__graph_infer_op (g, i, avail, error)) < 0)
      return ret;
    for (j = 0; j < op->n_outputs; j++)
      avail[op->outputs[j]] = true;
  }
  return 0;
}

/* Structural checks of tensors (dims, dtypes, data sizes) followed by
 * shape inference. */
int
simnpu__graph_validate (simnpu__graph * g, simnpu_error * error)
{
  unsigned i;
  bool all_data = true;
  int ret;

  for (i = 0; i < g->n_tensors; i++) {
    simnpu__tensor *t = &g->tensors[i];
    if (t->name == NULL || t->name[0] == '\0')
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "tensors[%u]: missing name", i);
    if (simnpu__dtype_size (t->dtype) == 0)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "tensor '%s': unknown dtype %d", t->name, t->dtype);
    if (t->kind != SIMNPU_TENSOR_CONSTANT && t->dtype != SIMNPU_DTYPE_I8)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "tensor '%s': inputs, outputs and activations are int8 inside "
          "the graph (dtype i8)", t->name);
    if (!t->shape_from_op && (t->kind == SIMNPU_TENSOR_INPUT
            || t->kind == SIMNPU_TENSOR_CONSTANT || t->n_dims > 0)) {
      if (t->n_dims < 1 || t->n_dims > SIMNPU_MAX_DIMS)
        return simnpu__set_error (error, SIMNPU_ESHAPE,
            "tensor '%s': rank %u; expected 1 to 4", t->name, t->n_dims);
      if (!set_dims (t, t->n_dims, t->dims))
        return simnpu__set_error (error, SIMNPU_ESHAPE,
            "tensor '%s': dimensions must be >= 1 with at most 2^26 "
            "elements", t->name);
    }
    if (!(t->scale > 0.0f) || !isfinite (t->scale))
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "tensor '%s': scale must be a positive finite number", t->name);
    if (t->zero_point < I8_MIN || t->zero_point > I8_MAX)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "tensor '%s': zero point %d; expected [-128, 127] (internal int8)",
          t->name, t->zero_point);
    if (t->kind == SIMNPU_TENSOR_INPUT && t->io_dtype != SIMNPU_DTYPE_U8
        && t->io_dtype != SIMNPU_DTYPE_I8)
      return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "input '%s': dtype must be u8 or i8", t->name);
    if (t->kind == SIMNPU_TENSOR_OUTPUT && t->io_dtype != SIMNPU_DTYPE_U8
        && t->io_dtype != SIMNPU_DTYPE_I8 && t->io_dtype != SIMNPU_DTYPE_F32)
      return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "output '%s': dtype must be u8, i8 or f32", t->name);
    if (t->n_channel_scales != 0 && t->kind != SIMNPU_TENSOR_CONSTANT
        && !(t->kind == SIMNPU_TENSOR_OUTPUT
            && t->io_dtype == SIMNPU_DTYPE_F32))
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "tensor '%s': only constants and f32 outputs carry per-channel "
          "scales", t->name);
    if (t->kind == SIMNPU_TENSOR_OUTPUT && t->n_channel_scales != 0) {
      if (t->channel_scales == NULL)
        return simnpu__set_error (error, SIMNPU_EFORMAT,
            "output '%s': row scales missing", t->name);
      for (unsigned c = 0; c < t->n_channel_scales; c++)
        if (!(t->channel_scales[c] > 0.0f) || !isfinite (t->channel_scales[c]))
          return simnpu__set_error (error, SIMNPU_EFORMAT,
              "output '%s': row scale %u must be a positive finite number",
              t->name, c);
    }
    if (t->kind == SIMNPU_TENSOR_CONSTANT) {
      if (t->data == NULL)
        all_data = false;
      if (t->n_channel_scales != 0 && t->channel_scales == NULL)
        return simnpu__set_error (error, SIMNPU_EFORMAT,
            "constant '%s': channel scales missing", t->name);
      for (unsigned c = 0; c < t->n_channel_scales; c++)
        if (!(t->channel_scales[c] > 0.0f) || !isfinite (t->channel_scales[c]))
          return simnpu__set_error (error, SIMNPU_EFORMAT,
              "constant '%s': channel scale %u must be positive", t->name, c);
    }
  }
  if (!all_data && !g->estimate_only)
    return simnpu__set_error (error, SIMNPU_ENOWEIGHTS,
        "graph '%s': some constants have no data; expected weights for "
        "every constant, or a shape-only graph compiled with "
        "--estimate-only", g->name ? g->name : "");
  if ((ret = simnpu__graph_infer_shapes (g, error)) < 0)
    return ret;
  for (i = 0; i < g->n_tensors; i++) {
    simnpu__tensor *t = &g->tensors[i];
    if (t->kind == SIMNPU_TENSOR_OUTPUT && t->n_channel_scales != 0
        && (t->n_dims < 2 || t->n_channel_scales != t->dims[1]))
      return simnpu__set_error (error, SIMNPU_ESHAPE,
          "output '%s': %u row scales; expected one per index of axis 1 "
          "(%" G_GINT64_FORMAT ")", t->name, t->n_channel_scales,
          t->n_dims >= 2 ? (gint64) t->dims[1] : (gint64) 0);
    if (t->kind != SIMNPU_TENSOR_CONSTANT)
      continue;
    if (t->shape_from_op || t->n_dims == 0)
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "constant '%s': no shape and not used by a conv2d", t->name);
    if (t->data != NULL && t->data_bytes != simnpu__tensor_bytes (t))
      return simnpu__set_error (error, SIMNPU_ESIZE,
          "constant '%s': %zu bytes of data; expected %zu", t->name,
          t->data_bytes, simnpu__tensor_bytes (t));
    if (t->n_channel_scales != 0 && t->n_channel_scales != t->dims[0])
      return simnpu__set_error (error, SIMNPU_EFORMAT,
          "constant '%s': %u channel scales; expected %" G_GINT64_FORMAT,
          t->name, t->n_channel_scales, (gint64) t->dims[0]);
  }
  return 0;
}
