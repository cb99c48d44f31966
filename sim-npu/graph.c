/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The graph IR: shape inference and validation (shared by the JSON and
 * .axm loaders, so both reject the same mistakes), preparation of the
 * quantisation parameters, the interpreter that runs a job's ops, and the
 * cost model that turns ops into a schedule of device actions. */

#include "ir.h"

#include <math.h>
#include <string.h>

/* Each device op is defined once, in simnpu__op_defs below (in the manner
 * of TensorFlow Lite's op registrations): the passes over the graph look
 * the op's entry up and call it, and never switch on the op type. */

/* What the interpreter hands an op's kernel call: the op, its first input
 * and output, and their rank-4 views. */
typedef struct
{
  const simnpu__graph *g;
  const simnpu__op *op;
  uint8_t *arena;
  int8_t *scratch;
  /* where the graph's inputs are, when not in the arena (or NULL) */
  const int8_t *const *inputs;
  const simnpu__tensor *in, *out;
  const int8_t *src;
  int8_t *dst;
  int64_t di[SIMNPU_MAX_DIMS], dout[SIMNPU_MAX_DIMS];
  size_t n_out;
} op_run;

typedef int (*op_graph_fn) (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);

/* how the cost model counts an op's work */
typedef enum
{
  OP_COST_MACS,                 /* on the MAC array */
  OP_COST_OUTPUT_BYTES,         /* vector unit, once per output byte */
  OP_COST_WINDOW_BYTES,         /* once per output byte and window tap */
  OP_COST_INPUT_BYTES,          /* a reduction reads its whole input */
  OP_COST_RESIZE                /* bilinear reads four taps per output */
} op_cost;

/* which ops a copy engine (CDMA) may run: bilinear resize computes,
 * nearest only moves data */
typedef enum
{
  OP_COMPUTES,
  OP_MOVES_DATA,
  OP_MOVES_DATA_IF_NEAREST
} op_movement;

/* conv2d's constant parameters (weights, bias) follow its data input */
#define PARAMS_FROM 1

typedef struct
{
  const char *name;
  /* reads the op's JSON "attrs" into op->attrs; optional */
  int (*parse) (simnpu__json_op * j);
  /* gives parameters declared without a shape their shape; optional */
  op_graph_fn bind;
  /* checks the attributes and input shapes, sets the output shapes */
  op_graph_fn infer;
  /* requantisation parameters, tables, macs, scratch */
  op_graph_fn prepare;
  /* the int8 kernel call */
  int (*run) (const op_run * r);
  /* the real function a table op applies, with parameters a, b */
  double (*lut) (double x, double a, double b);
  /* constant parameters from input PARAMS_FROM on, which must be
   * constants and are not int8 data */
  unsigned n_params;
  op_cost cost;
  op_movement movement;
} simnpu__op_def;

static const simnpu__op_def simnpu__op_defs[SIMNPU_N_OP_TYPES];

static const simnpu__op_def *
op_def (simnpu__op_type type)
{
  if ((unsigned) type >= SIMNPU_N_OP_TYPES)
    return NULL;
  return &simnpu__op_defs[type];
}

#define I8_MIN (-128)
#define I8_MAX 127
#define U8_OFFSET 128
/* Largest |acc| of a conv before requantisation must stay in int32:
 * klen * 255 * 128 + |bias| < 2^31. */
#define MAX_CONV_KLEN 32768
#define MAX_BIAS_ABS (1 << 30)
#define MAX_REQUANT_SCALE 65536.0
/* mean sums int8 in int32: 128 * H * W < 2^31 */
#define MAX_MEAN_POSITIONS (1 << 23)
/* a generic LUT op's table: one int8 per input value */
#define LUT_ENTRIES 256
#define RESIZE_TABLE_STRIDE SIMNPU_RESIZE_TAB_STRIDE
#define RESIZE_BILINEAR_TAPS 4

const char *
simnpu__op_type_name (simnpu__op_type type)
{
  if ((unsigned) type >= SIMNPU_N_OP_TYPES)
    return "unknown";
  return simnpu__op_defs[type].name;
}

int
simnpu__op_type_from_name (const char *name)
{
  int i;

  for (i = 0; i < SIMNPU_N_OP_TYPES; i++)
    if (strcmp (simnpu__op_defs[i].name, name) == 0)
      return i;
  return -1;
}

simnpu__graph *
simnpu__graph_new (void)
{
  return g_new0 (simnpu__graph, 1);
}

void
simnpu__graph_free (simnpu__graph * g)
{
  unsigned i;

  if (g == NULL)
    return;
  for (i = 0; i < g->n_tensors; i++) {
    g_free (g->tensors[i].name);
    g_free (g->tensors[i].data);
    g_free (g->tensors[i].channel_scales);
  }
  for (i = 0; i < g->n_ops; i++) {
    g_free (g->ops[i].name);
    g_free (g->ops[i].location);
    g_free (g->ops[i].requant_scales);
    g_free (g->ops[i].bias_folded);
    g_aligned_free (g->ops[i].weights_packed);
    g_free (g->ops[i].table);
  }
  g_free (g->tensors);
  g_free (g->ops);
  g_free (g->name);
  g_strfreev (g->labels);
  simnpu__ir_graph_free (g->preamble);
  simnpu__ir_graph_free (g->postamble);
  g_free (g->decoder);
  g_free (g);
}

/* NULL if @label is acceptable as a class label, else what is wrong */
const char *
simnpu__label_problem (const char *label)
{
  const char *p;

  if (label[0] == '\0')
    return "is empty";
  if (strlen (label) >= SIMNPU_MAX_NAME_BYTES)
    return "is longer than 255 bytes";
  if (!g_utf8_validate (label, -1, NULL))
    return "is not valid UTF-8";
  for (p = label; *p; p++)
    if ((unsigned char) *p < 0x20 || *p == 0x7f)
      return "contains a control character";
  return NULL;
}

int64_t
simnpu__tensor_elements (const simnpu__tensor * t)
{
  int64_t n = 1;
  unsigned i;

  for (i = 0; i < t->n_dims; i++)
    n *= t->dims[i];
  return n;
}

size_t
simnpu__tensor_bytes (const simnpu__tensor * t)
{
  return (size_t) simnpu__tensor_elements (t) * simnpu__dtype_size (t->dtype);
}

/* Rank-4 view, padding with leading ones. */
static void
dims4 (const simnpu__tensor * t, int64_t * d)
{
  unsigned pad = SIMNPU_MAX_DIMS - t->n_dims, i;

  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    d[i] = i < pad ? 1 : t->dims[i - pad];
}

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

static int
op_error (simnpu_error * error, int code, const simnpu__op * op,
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
    return op_error (error, SIMNPU_ESHAPE, op, op_index,
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
  return op_error (error, SIMNPU_ESHAPE, op, op_index, msg);
}

static int
infer_window (simnpu__graph * g, simnpu__op * op, unsigned oi,
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
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "input must have rank 4 (NHWC)");
  if (op->n_outputs != 1 || op->n_inputs != (conv ? 3u : 1u))
    return op_error (error, SIMNPU_EFORMAT, op, oi, conv ?
        "expected inputs [x, weights, bias] and one output" :
        "expected one input and one output");
  if (kh < 1 || kw < 1 || kh > SIMNPU_MAX_KERNEL_DIM
      || kw > SIMNPU_MAX_KERNEL_DIM || sh < 1 || sw < 1
      || sh > SIMNPU_MAX_KERNEL_DIM || sw > SIMNPU_MAX_KERNEL_DIM
      || dh < 1 || dw < 1 || dh > SIMNPU_MAX_KERNEL_DIM
      || dw > SIMNPU_MAX_KERNEL_DIM)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "kernel, stride and dilation must be in [1, 64]");
  for (i = SIMNPU_A_PT; i <= SIMNPU_A_PR; i++)
    if (at[i] < 0 || at[i] > SIMNPU_MAX_KERNEL_DIM)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "padding must be in [0, 64]");
  eh = in->dims[1] + at[SIMNPU_A_PT] + at[SIMNPU_A_PB] - dh * (kh - 1) - 1;
  ew = in->dims[2] + at[SIMNPU_A_PL] + at[SIMNPU_A_PR] - dw * (kw - 1) - 1;
  if (eh < 0 || ew < 0)
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "kernel (with dilation) is larger than the padded input");
  if (conv) {
    const simnpu__tensor *w = &g->tensors[op->inputs[1]];
    const simnpu__tensor *bias = &g->tensors[op->inputs[2]];
    if (groups < 1 || in->dims[3] % groups != 0 || oc < 1 || oc % groups != 0)
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "groups must divide both input and output channels");
    if (w->n_dims != 4 || w->dims[0] != oc || w->dims[1] != kh
        || w->dims[2] != kw || w->dims[3] != in->dims[3] / groups) {
      snprintf (msg, sizeof (msg), "weights must have shape [%"
          G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%"
          G_GINT64_FORMAT "] ([out_channels, kh, kw, in_channels / "
          "groups])", (gint64) oc, (gint64) kh, (gint64) kw,
          (gint64) (in->dims[3] / groups));
      return op_error (error, SIMNPU_ESHAPE, op, oi, msg);
    }
    if (bias->n_dims != 1 || bias->dims[0] != oc)
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "bias must have shape [out_channels]");
    if (w->dtype != SIMNPU_DTYPE_I8 || bias->dtype != SIMNPU__DTYPE_I32)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "weights must be i8 and bias i32");
    if (w->kind != SIMNPU_TENSOR_CONSTANT
        || bias->kind != SIMNPU_TENSOR_CONSTANT)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "weights and bias must be constants");
    if (at[SIMNPU_A_ACT] < SIMNPU_ACT_NONE
        || at[SIMNPU_A_ACT] > SIMNPU_ACT_CLIP)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "activation must be 0 (none), 1 (relu) or 2 (clip)");
    if (at[SIMNPU_A_ACT] == SIMNPU_ACT_CLIP && (at[SIMNPU_A_ACT_QMIN] < I8_MIN
            || at[SIMNPU_A_ACT_QMAX] > I8_MAX
            || at[SIMNPU_A_ACT_QMIN] > at[SIMNPU_A_ACT_QMAX]))
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "clip bounds must satisfy -128 <= min <= max <= 127 " "(quantised)");
  }
  d[0] = in->dims[0];
  d[1] = eh / sh + 1;
  d[2] = ew / sw + 1;
  d[3] = conv ? oc : in->dims[3];
  return assign_output (g, op, oi, 0, 4, d, error);
}

static int
infer_binary (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS], a[SIMNPU_MAX_DIMS], b[SIMNPU_MAX_DIMS];
  const simnpu__tensor *in2;
  unsigned rank, i;

  if (op->n_inputs != 2 || op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected two inputs and one output");
  in2 = &g->tensors[op->inputs[1]];
  dims4 (in, a);
  dims4 (in2, b);
  rank = MAX (in->n_dims, in2->n_dims);
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1)
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "input shapes are not broadcastable (each dimension must be "
          "equal or 1)");
    d[i] = MAX (a[i], b[i]);
  }
  return assign_output (g, op, oi, 0, rank, d + SIMNPU_MAX_DIMS - rank, error);
}

static int
infer_concat (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int axis = op->attrs[SIMNPU_A_AXIS];
  int64_t total = 0;
  unsigned i, j;

  if (op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi, "expected one output");
  if (axis < 0 || (unsigned) axis >= in->n_dims)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "axis must be in [0, rank)");
  for (i = 0; i < op->n_inputs; i++) {
    const simnpu__tensor *t = &g->tensors[op->inputs[i]];
    if (t->n_dims != in->n_dims)
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "all inputs must have the same rank");
    for (j = 0; j < in->n_dims; j++)
      if (j != (unsigned) axis && t->dims[j] != in->dims[j])
        return op_error (error, SIMNPU_ESHAPE, op, oi,
            "inputs must have equal dimensions except along the axis");
    total += t->dims[axis];
  }
  memcpy (d, in->dims, sizeof (d));
  d[axis] = total;
  return assign_output (g, op, oi, 0, in->n_dims, d, error);
}

static int
infer_split (simnpu__graph * g, simnpu__op * op, unsigned oi,
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
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and at most 15 outputs");
  if (axis < 0 || (unsigned) axis >= in->n_dims)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "axis must be in [0, rank)");
  for (i = 0; i < op->n_outputs; i++) {
    if (at[SIMNPU_A_SIZES0 + i] < 1)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "split sizes must be >= 1");
    total += at[SIMNPU_A_SIZES0 + i];
  }
  if (total != in->dims[axis])
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "split sizes must add up to the input dimension along the axis");
  for (i = 0; i < op->n_outputs; i++) {
    memcpy (d, in->dims, sizeof (d));
    d[axis] = at[SIMNPU_A_SIZES0 + i];
    if ((ret = assign_output (g, op, oi, i, in->n_dims, d, error)) < 0)
      return ret;
  }
  return 0;
}

static int
infer_slice (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS], a[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  unsigned pad = SIMNPU_MAX_DIMS - in->n_dims, i;

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  dims4 (in, a);
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    int64_t begin = at[SIMNPU_A_BEGIN0 + i], size = at[SIMNPU_A_SIZE0 + i];
    if (begin < 0 || size < 1 || begin + size > a[i])
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "slice begin/size out of the input's range");
    d[i] = size;
  }
  return assign_output (g, op, oi, 0, in->n_dims, d + pad, error);
}

static int
infer_resize (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (at[SIMNPU_A_RESIZE_MODE] != SIMNPU_RESIZE_MODE_NEAREST
      && at[SIMNPU_A_RESIZE_MODE] != SIMNPU_RESIZE_MODE_BILINEAR)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "mode must be 0 (nearest) or 1 (bilinear)");
  if (at[SIMNPU_A_COORD] < 0 || at[SIMNPU_A_COORD] >= SIMNPU_N_COORD_MODES)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "coordinate mode must be in [0, 4]");
  if (at[SIMNPU_A_NEAREST] < 0
      || at[SIMNPU_A_NEAREST] >= SIMNPU_N_NEAREST_MODES)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "nearest mode must be in [0, 3]");
  memcpy (d, in->dims, sizeof (d));
  if (at[SIMNPU_A_OUT_H] != 0 || at[SIMNPU_A_OUT_W] != 0) {
    if (at[SIMNPU_A_OUT_H] < 1 || at[SIMNPU_A_OUT_W] < 1)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "output size must have both dimensions >= 1");
    d[1] = at[SIMNPU_A_OUT_H];
    d[2] = at[SIMNPU_A_OUT_W];
  } else {
    if (at[SIMNPU_A_SCALE_H] < 1 || at[SIMNPU_A_SCALE_W] < 1
        || at[SIMNPU_A_SCALE_H] > SIMNPU_MAX_KERNEL_DIM
        || at[SIMNPU_A_SCALE_W] > SIMNPU_MAX_KERNEL_DIM)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "scale factors must be integers in [1, 64]");
    d[1] *= at[SIMNPU_A_SCALE_H];
    d[2] *= at[SIMNPU_A_SCALE_W];
  }
  return assign_output (g, op, oi, 0, 4, d, error);
}

static int
infer_mean (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (in->dims[1] * in->dims[2] > MAX_MEAN_POSITIONS)
    return op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "height * width must be at most 2^23");
  d[0] = in->dims[0];
  d[1] = 1;
  d[2] = 1;
  d[3] = in->dims[3];
  return assign_output (g, op, oi, 0, 4, d, error);
}

static int
infer_pad (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *at = op->attrs;
  unsigned i;

  if (in->n_dims != 4 || op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "expected one rank-4 (NHWC) input and one output");
  if (at[SIMNPU_A_PAD_MODE] != SIMNPU_PAD_CONSTANT
      && at[SIMNPU_A_PAD_MODE] != SIMNPU_PAD_EDGE)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "mode must be 0 (constant) or 1 (edge)");
  if (at[SIMNPU_A_PAD_VALUE] < I8_MIN || at[SIMNPU_A_PAD_VALUE] > I8_MAX)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "pad value must be an int8 in [-128, 127]");
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    int64_t b0 = at[SIMNPU_A_PAD0 + i];
    int64_t a0 = at[SIMNPU_A_PAD0 + SIMNPU_MAX_DIMS + i];
    if (b0 < 0 || a0 < 0 || b0 > SIMNPU_MAX_TENSOR_ELEMENTS
        || a0 > SIMNPU_MAX_TENSOR_ELEMENTS)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "pads must be in [0, 2^26]");
    d[i] = in->dims[i] + b0 + a0;
  }
  return assign_output (g, op, oi, 0, 4, d, error);
}

static int
infer_reshape (simnpu__graph * g, simnpu__op * op, unsigned oi,
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
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  if (rank < 1 || rank > SIMNPU_MAX_DIMS)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "shape must have 1 to 4 dimensions");
  for (i = 0; i < (unsigned) rank; i++) {
    d[i] = at[SIMNPU_A_DIM0 + i];
    if (d[i] == -1 && infer < 0)
      infer = (int) i;
    else if (d[i] < 1)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "shape dimensions must be >= 1 (one may be -1)");
    else
      known *= d[i];
    if (known > SIMNPU_MAX_TENSOR_ELEMENTS)
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "new shape has more than 2^26 elements");
  }
  if (infer >= 0) {
    if (simnpu__tensor_elements (in) % known != 0)
      return op_error (error, SIMNPU_ESHAPE, op, oi,
          "cannot infer the -1 dimension");
    d[infer] = simnpu__tensor_elements (in) / known;
    known *= d[infer];
  }
  if (known != simnpu__tensor_elements (in))
    return op_error (error, SIMNPU_ESHAPE, op, oi,
        "new shape must have as many elements as the input");
  return assign_output (g, op, oi, 0, rank, d, error);
}

static int
infer_transpose (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  int64_t d[SIMNPU_MAX_DIMS];
  unsigned seen = 0, i;

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  for (i = 0; i < in->n_dims; i++) {
    int p = op->attrs[SIMNPU_A_PERM0 + i];
    if (p < 0 || (unsigned) p >= in->n_dims || (seen & (1u << p)))
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "perm must be a permutation of [0, rank)");
    seen |= 1u << p;
    d[i] = in->dims[p];
  }
  return assign_output (g, op, oi, 0, in->n_dims, d, error);
}

static int
infer_lut (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *table;

  if (op->n_inputs != 2 || op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected inputs [x, table] and one output");
  table = &g->tensors[op->inputs[1]];
  if (table->kind != SIMNPU_TENSOR_CONSTANT
      || table->dtype != SIMNPU_DTYPE_I8 || table->n_dims != 1
      || table->dims[0] != LUT_ENTRIES)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "table must be an i8 constant of shape [256]");
  return assign_output (g, op, oi, 0, in->n_dims, in->dims, error);
}

/* unary ops: the output has the input's shape */
static int
infer_unary (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  return assign_output (g, op, oi, 0, in->n_dims, in->dims, error);
}

static int
infer_softmax (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];

  if (op->n_inputs != 1 || op->n_outputs != 1)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected one input and one output");
  if (op->attrs[SIMNPU_A_AXIS] < 0
      || (unsigned) op->attrs[SIMNPU_A_AXIS] >= in->n_dims)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
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
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "expected at least one input and one output");
  for (i = 0; i < op->n_inputs; i++) {
    if (avail != NULL && !avail[op->inputs[i]]) {
      snprintf (msg, sizeof (msg), "input '%s' is used before it is "
          "produced (ops must be in execution order)",
          g->tensors[op->inputs[i]].name);
      return op_error (error, SIMNPU_EFORMAT, op, oi, msg);
    }
  }
  if (def == NULL)
    return op_error (error, SIMNPU_EUNSUPPORTED, op, oi, "unknown op type");
  return def->infer (g, op, oi, error);
}

/* conv2d's weights and bias declared without a shape get the shape the op
 * implies */
static int
bind_conv (simnpu__graph * g, simnpu__op * op, unsigned i, simnpu_error * error)
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
      return op_error (error, SIMNPU_ESHAPE, op, i,
          "weights shape [out_channels, kh, kw, in_channels / groups] "
          "has a dimension < 1");
    w->shape_from_op = false;
  }
  if (b->shape_from_op) {
    int64_t bd[1] = { op->attrs[SIMNPU_A_OC] };
    if (!set_dims (b, 1, bd))
      return op_error (error, SIMNPU_ESHAPE, op, i,
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
      return op_error (error, SIMNPU_EFORMAT, op, i, "too many inputs or "
          "outputs (at most 8 each)");
    for (j = 0; j < op->n_inputs; j++)
      if (op->inputs[j] >= g->n_tensors)
        return op_error (error, SIMNPU_EFORMAT, op, i,
            "input tensor index out of range");
    for (j = 0; j < op->n_outputs; j++) {
      simnpu__tensor *t;
      if (op->outputs[j] >= g->n_tensors)
        return op_error (error, SIMNPU_EFORMAT, op, i,
            "output tensor index out of range");
      t = &g->tensors[op->outputs[j]];
      if (t->producer >= 0 || t->kind == SIMNPU_TENSOR_INPUT
          || t->kind == SIMNPU_TENSOR_CONSTANT)
        return op_error (error, SIMNPU_EFORMAT, op, i,
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
        return op_error (error, SIMNPU_EFORMAT, op, i,
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

float
simnpu__attr_float (int32_t bits)
{
  float f;

  memcpy (&f, &bits, sizeof (f));
  return f;
}

int32_t
simnpu__float_attr (float value)
{
  int32_t bits;

  memcpy (&bits, &value, sizeof (bits));
  return bits;
}

/* hard_swish's and hard_sigmoid's ReLU6 and its divisor */
#define HARD_SWISH_SHIFT 3.0
#define HARD_SWISH_LIMIT 6.0

static double
lut_relu (double x, double a, double b)
{
  (void) a;
  (void) b;
  return x > 0.0 ? x : 0.0;
}

static double
lut_sigmoid (double x, double a, double b)
{
  (void) a;
  (void) b;
  return 1.0 / (1.0 + exp (-x));
}

static double
lut_silu (double x, double a, double b)
{
  (void) a;
  (void) b;
  return x / (1.0 + exp (-x));
}

static double
lut_tanh (double x, double a, double b)
{
  (void) a;
  (void) b;
  return tanh (x);
}

static double
lut_hard_swish (double x, double a, double b)
{
  (void) a;
  (void) b;
  return x * fmin (fmax (x + HARD_SWISH_SHIFT, 0.0), HARD_SWISH_LIMIT)
      / HARD_SWISH_LIMIT;
}

static double
lut_hard_sigmoid (double x, double a, double b)
{
  return fmax (0.0, fmin (1.0, a * x + b));
}

static double
lut_leaky_relu (double x, double a, double b)
{
  (void) b;
  return x >= 0.0 ? x : a * x;
}

static double
lut_clip (double x, double a, double b)
{
  return fmin (fmax (x, a), b);
}

static double
lut_elu (double x, double a, double b)
{
  (void) b;
  return x >= 0.0 ? x : a * expm1 (x);
}

void
simnpu__build_lut_params (simnpu__op_type type, float p0, float p1,
    float in_scale, int32_t in_zp, float out_scale, int32_t out_zp,
    int8_t * lut)
{
  const double a = p0, b = p1;
  const simnpu__op_def *def = op_def (type);
  /* ops without a real function of their own get relu's */
  double (*f) (double, double, double) = def != NULL && def->lut != NULL ?
      def->lut : lut_relu;
  int q;

  for (q = I8_MIN; q <= I8_MAX; q++) {
    double x = (double) in_scale * (q - in_zp);
    double y = f (x, a, b), r;
    r = round (y / out_scale) + out_zp;
    /* a NaN (from parameters the graph rejects) must not reach the
     * conversion */
    if (isnan (r))
      r = out_zp;
    lut[q - I8_MIN] = (int8_t) (r < I8_MIN ? I8_MIN : (r > I8_MAX ? I8_MAX :
            r));
  }
}

void
simnpu__build_lut (simnpu__op_type type, float in_scale, int32_t in_zp,
    float out_scale, int32_t out_zp, int8_t * lut)
{
  simnpu__build_lut_params (type, 0.0f, 0.0f, in_scale, in_zp, out_scale,
      out_zp, lut);
}

static int64_t
eltwise_multiplier (double real)
{
  return (int64_t) llround (real * (double) (G_GINT64_CONSTANT (1) <<
          SIMNPU_ELTWISE_SHIFT));
}

#define MAX_ELTWISE_RATIO 4096.0

static bool
at_zero_pad (const int32_t * at)
{
  return at[SIMNPU_A_PT] == 0 && at[SIMNPU_A_PL] == 0 && at[SIMNPU_A_PB] == 0
      && at[SIMNPU_A_PR] == 0;
}

/* floor and ceiling of a / b for b > 0 */
static int64_t
floor_div (int64_t a, int64_t b)
{
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static int64_t
ceil_div (int64_t a, int64_t b)
{
  return -floor_div (-a, b);
}

/* Source indices and weights of one axis of a resize (ONNX Resize-13):
 * the source coordinate of output x is the exact fraction num / den, so
 * that ties of the nearest modes are exact; bilinear clamps it to the
 * edge. */
static void
resize_axis (int64_t in, int64_t out, int coord, int nearest, bool bilinear,
    int32_t * t)
{
  const int64_t one = 1 << SIMNPU_RESIZE_WEIGHT_BITS;
  int64_t x;

  for (x = 0; x < out; x++) {
    int64_t num, den, i0, i1, w = 0;
    switch (coord) {
      case SIMNPU_COORD_PYTORCH_HALF_PIXEL:
        num = out > 1 ? (2 * x + 1) * in - out : 0;
        den = out > 1 ? 2 * out : 1;
        break;
      case SIMNPU_COORD_ALIGN_CORNERS:
        num = out > 1 ? x * (in - 1) : 0;
        den = out > 1 ? out - 1 : 1;
        break;
      case SIMNPU_COORD_ASYMMETRIC:
        num = x * in;
        den = out;
        break;
      case SIMNPU_COORD_TF_HALF_PIXEL_FOR_NN:
        num = (2 * x + 1) * in;
        den = 2 * out;
        break;
      default:
        num = (2 * x + 1) * in - out;
        den = 2 * out;
        break;
    }
    if (!bilinear) {
      switch (nearest) {
        case SIMNPU_NEAREST_ROUND_PREFER_CEIL:
          i0 = floor_div (2 * num + den, 2 * den);
          break;
        case SIMNPU_NEAREST_FLOOR:
          i0 = floor_div (num, den);
          break;
        case SIMNPU_NEAREST_CEIL:
          i0 = ceil_div (num, den);
          break;
        default:
          i0 = ceil_div (2 * num - den, 2 * den);
          break;
      }
      i0 = CLAMP (i0, 0, in - 1);
      i1 = i0;
    } else if (num <= 0) {
      i0 = i1 = 0;
    } else if (num >= (in - 1) * den) {
      i0 = i1 = in - 1;
    } else {
      i0 = num / den;
      i1 = i0 + 1;
      w = (2 * (num - i0 * den) * one + den) / (2 * den);
    }
    t[RESIZE_TABLE_STRIDE * x + SIMNPU_RESIZE_TAB_I0] = (int32_t) i0;
    t[RESIZE_TABLE_STRIDE * x + SIMNPU_RESIZE_TAB_I1] = (int32_t) i1;
    t[RESIZE_TABLE_STRIDE * x + SIMNPU_RESIZE_TAB_W] = (int32_t) w;
  }
}

static int
prepare_resize (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  bool bilinear = op->attrs[SIMNPU_A_RESIZE_MODE] ==
      SIMNPU_RESIZE_MODE_BILINEAR;
  double r = (double) in->scale / out->scale;
  uint64_t n_rows = (uint64_t) out->dims[1] + (uint64_t) out->dims[2];

  if (r > MAX_ELTWISE_RATIO)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 4096");
  if (n_rows * RESIZE_TABLE_STRIDE * sizeof (int32_t) > SIMNPU_MAX_ARENA_BYTES)
    return op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "output height + width above 5.5 million");
  op->eltwise_mult[0] = eltwise_multiplier (r);
  op->rescale = r;
  /* the row buffers of the faster bilinear pass, when they are not
   * absurdly large (the kernel works without them) */
  if (bilinear && simnpu__resize_bilinear_scratch_bytes (out->dims) <=
      SIMNPU_MAX_ARENA_BYTES)
    g->scratch_bytes = MAX (g->scratch_bytes,
        simnpu__resize_bilinear_scratch_bytes (out->dims));
  op->macs =
      (uint64_t) simnpu__tensor_elements (out) *
      (bilinear ? RESIZE_BILINEAR_TAPS : 1);
  if (g->estimate_only)
    return 0;
  g_free (op->table);
  op->table = g_new (int32_t, n_rows * RESIZE_TABLE_STRIDE);
  resize_axis (in->dims[1], out->dims[1], op->attrs[SIMNPU_A_COORD],
      op->attrs[SIMNPU_A_NEAREST], bilinear, op->table);
  resize_axis (in->dims[2], out->dims[2], op->attrs[SIMNPU_A_COORD],
      op->attrs[SIMNPU_A_NEAREST], bilinear,
      op->table + RESIZE_TABLE_STRIDE * out->dims[1]);
  return 0;
}

static int
prepare_conv_params (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *w = &g->tensors[op->inputs[1]];
  const simnpu__tensor *b = &g->tensors[op->inputs[2]];
  simnpu__conv_params *p = &op->conv;
  int oc = (int) w->dims[0];
  int klen = (int) (w->dims[1] * w->dims[2] * w->dims[3]);
  const int8_t *wd = w->data;
  const int32_t *bd = b->data;

  p->n = (int) in->dims[0];
  p->ih = (int) in->dims[1];
  p->iw = (int) in->dims[2];
  p->ic = (int) in->dims[3];
  p->oh = (int) out->dims[1];
  p->ow = (int) out->dims[2];
  p->oc = oc;
  p->kh = op->attrs[SIMNPU_A_KH];
  p->kw = op->attrs[SIMNPU_A_KW];
  p->sh = op->attrs[SIMNPU_A_SH];
  p->sw = op->attrs[SIMNPU_A_SW];
  p->pt = op->attrs[SIMNPU_A_PT];
  p->pl = op->attrs[SIMNPU_A_PL];
  p->dh = op->attrs[SIMNPU_A_DH];
  p->dw = op->attrs[SIMNPU_A_DW];
  p->groups = op->attrs[SIMNPU_A_GROUPS];
  p->in_zp = in->zero_point;
  p->out_zp = out->zero_point;
  p->act_min = I8_MIN;
  p->act_max = I8_MAX;
  if (op->attrs[SIMNPU_A_ACT] == SIMNPU_ACT_RELU) {
    p->act_min = out->zero_point;
  } else if (op->attrs[SIMNPU_A_ACT] == SIMNPU_ACT_CLIP) {
    p->act_min = op->attrs[SIMNPU_A_ACT_QMIN];
    p->act_max = op->attrs[SIMNPU_A_ACT_QMAX];
  }
  if (p->kh == 1 && p->kw == 1 && p->sh == 1 && p->sw == 1
      && at_zero_pad (op->attrs) && p->ih == p->oh && p->iw == p->ow) {
    /* a pointwise conv is the same conv over one long row: the
     * kernel's row loops then run over the whole image */
    p->iw *= p->ih;
    p->ow *= p->oh;
    p->ih = p->oh = 1;
  }
  op->macs = (uint64_t) p->n * p->oh * p->ow * p->oc * klen;
  op->weight_bytes = simnpu__tensor_bytes (w) + simnpu__tensor_bytes (b);
  if (klen > MAX_CONV_KLEN)
    return op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "kernel_h * kernel_w * in_channels / groups must be <= 32768");
  if (g->estimate_only)
    return 0;
  op->requant_scales = g_new (float, oc);
  op->bias_folded = g_new (int32_t, oc);
  for (int o = 0; o < oc; o++) {
    float ws = w->n_channel_scales ? w->channel_scales[o] : w->scale;
    double real = (double) in->scale * ws / out->scale;
    int64_t sum = 0;
    if (real >= MAX_REQUANT_SCALE)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "input scale * weight scale / output scale must be < 65536");
    op->requant_scales[o] = (float) real;
    if (bd[o] > MAX_BIAS_ABS || bd[o] < -MAX_BIAS_ABS)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "bias values must be in [-2^30, 2^30]");
    for (int k = 0; k < klen; k++)
      sum += wd[(size_t) o * klen + k];
    op->bias_folded[o] = (int32_t) (bd[o] - (int64_t) in->zero_point * sum);
  }
  return 0;
}

static int
prepare_conv (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  int ret = prepare_conv_params (g, op, oi, error);

  if (ret < 0)
    return ret;
  g->scratch_bytes = MAX (g->scratch_bytes,
      simnpu__conv2d_scratch_bytes (&op->conv));
  if (!g->estimate_only) {
    size_t bytes = simnpu__conv2d_packed_bytes (&op->conv);
    if (bytes > 0 && g->tensors[op->inputs[1]].data != NULL) {
      op->weights_packed = g_aligned_alloc (bytes, 1, 64);
      simnpu__conv2d_pack (&op->conv, g->tensors[op->inputs[1]].data,
          op->weights_packed);
    }
  }
  return 0;
}

static int
prepare_binary (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *in2 = &g->tensors[op->inputs[1]];
  double ra, rb;

  if (in2->kind == SIMNPU_TENSOR_CONSTANT && in2->dtype != SIMNPU_DTYPE_I8)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "constant operand must be i8");
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  if (op->type != SIMNPU_OP_MUL) {
    ra = (double) in->scale / out->scale;
    rb = (double) in2->scale / out->scale;
  } else {
    ra = (double) in->scale * in2->scale / out->scale;
    rb = 0.0;
  }
  if (ra > MAX_ELTWISE_RATIO || rb > MAX_ELTWISE_RATIO)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 4096");
  op->eltwise_mult[0] = eltwise_multiplier (ra);
  op->eltwise_mult[1] = eltwise_multiplier (rb);
  /* a - b = a + (-1) b: the add kernel's arithmetic takes negative
   * multipliers exactly (floor shifts) */
  if (op->type == SIMNPU_OP_SUB)
    op->eltwise_mult[1] = -op->eltwise_mult[1];
  return 0;
}

static int
prepare_mean (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];

  op->rescale = (double) in->scale / out->scale;
  op->macs = (uint64_t) simnpu__tensor_elements (in);
  if ((uint64_t) in->dims[3] * sizeof (int32_t) > SIMNPU_MAX_ARENA_BYTES)
    return op_error (error, SIMNPU_EUNSUPPORTED, op, oi,
        "more than 2^24 channels");
  g->scratch_bytes = MAX (g->scratch_bytes, (size_t) in->dims[3] *
      sizeof (int32_t));
  return 0;
}

static int
prepare_pad (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  double r = (double) in->scale / out->scale;

  if (r > MAX_ELTWISE_RATIO)
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "input/output scale ratio above 4096");
  op->eltwise_mult[0] = eltwise_multiplier (r);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

static int
prepare_lut (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  const simnpu__tensor *table = &g->tensors[op->inputs[1]];

  (void) oi;
  (void) error;
  if (table->data != NULL)
    memcpy (op->lut, table->data, LUT_ENTRIES);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* unary ops with float parameters, built into a table */
static int
prepare_lut_params (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  float p0 = simnpu__attr_float (op->attrs[SIMNPU_A_F0]);
  float p1 = simnpu__attr_float (op->attrs[SIMNPU_A_F1]);

  if (op->type == SIMNPU_OP_CLIP) {
    if (isnan (p0) || isnan (p1) || p0 > p1)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "clip bounds must be numbers with min <= max");
  } else if (!isfinite (p0) || ((op->type == SIMNPU_OP_HARD_SIGMOID)
          && !isfinite (p1))) {
    return op_error (error, SIMNPU_EFORMAT, op, oi,
        "alpha and beta must be finite numbers");
  }
  simnpu__build_lut_params (op->type, p0, p1, in->scale, in->zero_point,
      out->scale, out->zero_point, op->lut);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* unary ops without parameters, built into a table */
static int
prepare_lut_fixed (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];

  (void) oi;
  (void) error;
  simnpu__build_lut (op->type, in->scale, in->zero_point, out->scale,
      out->zero_point, op->lut);
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

static int
prepare_concat (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];
  unsigned i;

  for (i = 0; i < op->n_inputs; i++) {
    const simnpu__tensor *t = &g->tensors[op->inputs[i]];
    double r = (double) t->scale / out->scale;
    if (t->kind == SIMNPU_TENSOR_CONSTANT && t->dtype != SIMNPU_DTYPE_I8)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "constant inputs must be i8");
    if (r > MAX_ELTWISE_RATIO)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "input/output scale ratio above 4096");
    op->eltwise_mult[i] = eltwise_multiplier (r);
  }
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* softmax's output is a probability with its own quantisation */
static int
prepare_softmax (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  const simnpu__tensor *out = &g->tensors[op->outputs[0]];

  if (in->kind == SIMNPU_TENSOR_CONSTANT && in->dtype != SIMNPU_DTYPE_I8)
    return op_error (error, SIMNPU_EFORMAT, op, oi, "input must be i8");
  op->macs = (uint64_t) simnpu__tensor_elements (out);
  return 0;
}

/* data movement and pools keep the input's quantisation */
static int
prepare_same_quant (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__tensor *in = &g->tensors[op->inputs[0]];
  unsigned i;

  for (i = 0; i < op->n_outputs; i++) {
    const simnpu__tensor *t = &g->tensors[op->outputs[i]];
    if (t->scale != in->scale || t->zero_point != in->zero_point)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "output quantisation must equal the input's for this op");
  }
  return prepare_softmax (g, op, oi, error);
}

static int
prepare_pool (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  int ret = prepare_same_quant (g, op, oi, error);

  if (ret < 0)
    return ret;
  op->macs *= (uint64_t) op->attrs[SIMNPU_A_KH] * op->attrs[SIMNPU_A_KW];
  return 0;
}

static int
prepare_op (simnpu__graph * g, simnpu__op * op, unsigned oi,
    simnpu_error * error)
{
  const simnpu__op_def *def = op_def (op->type);
  unsigned i;

  for (i = 0; i < op->n_inputs; i++) {
    /* constant parameters (conv weights i8 and bias i32) are checked by
     * the op */
    if (def != NULL && def->n_params > 0 && i >= PARAMS_FROM)
      break;
    if (g->tensors[op->inputs[i]].dtype != SIMNPU_DTYPE_I8)
      return op_error (error, SIMNPU_EFORMAT, op, oi,
          "data inputs must be i8 tensors");
  }
  if (def == NULL)
    return prepare_same_quant (g, op, oi, error);
  return def->prepare (g, op, oi, error);
}

int
simnpu__graph_prepare (simnpu__graph * g, simnpu_error * error)
{
  size_t offset = 0;
  unsigned i;
  int ret;

  g->total_macs = 0;
  g->weight_bytes = 0;
  g->scratch_bytes = 0;
  for (i = 0; i < g->n_tensors; i++) {
    simnpu__tensor *t = &g->tensors[i];
    if (t->kind == SIMNPU_TENSOR_CONSTANT)
      continue;
    /* 64-byte alignment keeps vector loads aligned */
    offset = (offset + 63) & ~(size_t) 63;
    t->offset = offset;
    offset += simnpu__tensor_bytes (t);
    /* shape-only graphs never allocate their activations */
    if (offset > SIMNPU_MAX_ARENA_BYTES && !g->estimate_only)
      return simnpu__set_error (error, SIMNPU_ENOMEM,
          "graph: activations need more than 64 MiB");
  }
  g->arena_bytes = offset;
  for (i = 0; i < g->n_ops; i++) {
    simnpu__op *op = &g->ops[i];
    if ((ret = prepare_op (g, op, i, error)) < 0)
      return ret;
    g->total_macs += op->macs;
    g->weight_bytes += op->weight_bytes;
  }
  return 0;
}

/* A tensor an op reads: constants have their data, graph inputs may be
 * outside the arena (the job's staging copy, not copied again). */
static const int8_t *
tensor_data (const simnpu__graph * g, unsigned index, uint8_t * arena,
    const int8_t * const *inputs)
{
  const simnpu__tensor *t = &g->tensors[index];
  unsigned i;

  if (t->kind == SIMNPU_TENSOR_CONSTANT)
    return t->data;
  if (inputs != NULL && t->kind == SIMNPU_TENSOR_INPUT)
    for (i = 0; i < g->n_inputs; i++)
      if (g->inputs[i] == index)
        return inputs[i];
  return (const int8_t *) (arena + t->offset);
}

#define UNIT_MULT (G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT)

static void
run_softmax (const simnpu__tensor * in, const int8_t * src,
    const simnpu__tensor * out, int8_t * dst, int axis)
{
  int64_t d[SIMNPU_MAX_DIMS], outer = 1, inner = 1, len, o, k, i;
  int a4 = axis + (int) (SIMNPU_MAX_DIMS - in->n_dims);

  dims4 (in, d);
  for (i = 0; i < a4; i++)
    outer *= d[i];
  for (i = a4 + 1; i < SIMNPU_MAX_DIMS; i++)
    inner *= d[i];
  len = d[a4];
  for (o = 0; o < outer; o++)
    for (k = 0; k < inner; k++) {
      const int8_t *s = src + o * len * inner + k;
      int8_t *t = dst + o * len * inner + k;
      int32_t mx = I8_MIN;
      double sum = 0.0;
      for (i = 0; i < len; i++)
        mx = MAX (mx, s[i * inner]);
      for (i = 0; i < len; i++)
        sum += exp ((double) in->scale * (s[i * inner] - mx));
      for (i = 0; i < len; i++) {
        double p = exp ((double) in->scale * (s[i * inner] - mx)) / sum;
        double r = round (p / out->scale) + out->zero_point;
        t[i * inner] = (int8_t) (r < I8_MIN ? I8_MIN : (r > I8_MAX ? I8_MAX :
                r));
      }
    }
}

static int
run_conv (const op_run * r)
{
  simnpu__conv2d (&r->op->conv, r->src, r->g->tensors[r->op->inputs[1]].data,
      r->op->weights_packed, r->op->bias_folded, r->op->requant_scales, r->dst,
      r->scratch);
  return 0;
}

static int
run_binary (const op_run * r)
{
  const simnpu__op *op = r->op;
  const simnpu__tensor *in2 = &r->g->tensors[op->inputs[1]];
  int64_t d2[SIMNPU_MAX_DIMS];

  dims4 (in2, d2);
  simnpu__eltwise (op->type, r->di, r->src, r->in->zero_point, d2,
      tensor_data (r->g, op->inputs[1], r->arena,
          r->inputs), in2->zero_point, r->dout,
      r->dst, r->out->zero_point, op->eltwise_mult[0], op->eltwise_mult[1]);
  return 0;
}

static int
run_concat (const op_run * r)
{
  const simnpu__op *op = r->op;
  int a4 = op->attrs[SIMNPU_A_AXIS] + (int) (SIMNPU_MAX_DIMS - r->out->n_dims);
  int64_t zero[SIMNPU_MAX_DIMS] = { 0 }, at[SIMNPU_MAX_DIMS] = { 0 };
  unsigned i;

  for (i = 0; i < op->n_inputs; i++) {
    const simnpu__tensor *t = &r->g->tensors[op->inputs[i]];
    int64_t dt[SIMNPU_MAX_DIMS];
    dims4 (t, dt);
    simnpu__copy_box (tensor_data (r->g, op->inputs[i], r->arena,
            r->inputs), dt, zero,
        r->dst, r->dout, at, dt, t->zero_point, r->out->zero_point,
        op->eltwise_mult[i]);
    at[a4] += dt[a4];
  }
  return 0;
}

static int
run_split (const op_run * r)
{
  const simnpu__op *op = r->op;
  int a4 = op->attrs[SIMNPU_A_AXIS] + (int) (SIMNPU_MAX_DIMS - r->in->n_dims);
  int64_t zero[SIMNPU_MAX_DIMS] = { 0 }, at[SIMNPU_MAX_DIMS] = { 0 };
  unsigned i;

  for (i = 0; i < op->n_outputs; i++) {
    const simnpu__tensor *t = &r->g->tensors[op->outputs[i]];
    int64_t dt[SIMNPU_MAX_DIMS];
    dims4 (t, dt);
    simnpu__copy_box (r->src, r->di, at, (int8_t *) r->arena + t->offset, dt,
        zero, dt, 0, 0, UNIT_MULT);
    at[a4] += dt[a4];
  }
  return 0;
}

static int
run_slice (const op_run * r)
{
  int64_t begin[SIMNPU_MAX_DIMS], zero[SIMNPU_MAX_DIMS] = { 0 };
  unsigned i;

  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    begin[i] = r->op->attrs[SIMNPU_A_BEGIN0 + i];
  simnpu__copy_box (r->src, r->di, begin, r->dst, r->dout, zero, r->dout, 0,
      0, UNIT_MULT);
  return 0;
}

static int
run_pool (const op_run * r)
{
  const simnpu__op *op = r->op;

  simnpu__pool (op->type == SIMNPU_OP_MAXPOOL, r->di, r->src, r->dout, r->dst,
      op->attrs[SIMNPU_A_KH], op->attrs[SIMNPU_A_KW],
      op->attrs[SIMNPU_A_SH], op->attrs[SIMNPU_A_SW],
      op->attrs[SIMNPU_A_PT], op->attrs[SIMNPU_A_PL], r->in->zero_point);
  return 0;
}

static int
run_resize (const op_run * r)
{
  const simnpu__op *op = r->op;

  if (op->table == NULL)
    return SIMNPU_EINTERNAL;
  if (op->attrs[SIMNPU_A_RESIZE_MODE] == SIMNPU_RESIZE_MODE_BILINEAR)
    simnpu__resize_bilinear (r->di, r->src, r->dout, r->dst, op->table,
        r->in->zero_point, r->out->zero_point, (float) (op->rescale /
            (double) (G_GINT64_CONSTANT (1) << (2 *
                    SIMNPU_RESIZE_WEIGHT_BITS))),
        simnpu__resize_bilinear_scratch_bytes (r->dout) <=
        r->g->scratch_bytes ? (int32_t *) (void *) r->scratch : NULL);
  else
    simnpu__resize_nearest (r->di, r->src, r->dout, r->dst, op->table,
        r->in->zero_point, r->out->zero_point, op->eltwise_mult[0]);
  return 0;
}

static int
run_mean (const op_run * r)
{
  simnpu__mean (r->di, r->src, r->dst, (int32_t *) (void *) r->scratch,
      r->in->zero_point, r->out->zero_point, r->op->rescale);
  return 0;
}

static int
run_pad (const op_run * r)
{
  const simnpu__op *op = r->op;

  simnpu__pad (r->di, r->src, r->dout, r->dst, &op->attrs[SIMNPU_A_PAD0],
      op->attrs[SIMNPU_A_PAD_MODE] == SIMNPU_PAD_EDGE,
      (int8_t) op->attrs[SIMNPU_A_PAD_VALUE], r->in->zero_point,
      r->out->zero_point, op->eltwise_mult[0]);
  return 0;
}

static int
run_reshape (const op_run * r)
{
  memcpy (r->dst, r->src, r->n_out);
  return 0;
}

static int
run_transpose (const op_run * r)
{
  int64_t perm[SIMNPU_MAX_DIMS], stride[SIMNPU_MAX_DIMS], ps[4];
  unsigned pad = SIMNPU_MAX_DIMS - r->in->n_dims, i;

  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    perm[i] = i < pad ? (int64_t) i : r->op->attrs[SIMNPU_A_PERM0 + i -
        pad] + pad;
  stride[3] = 1;
  for (i = 3; i > 0; i--)
    stride[i - 1] = stride[i] * r->di[i];
  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    ps[i] = stride[perm[i]];
  simnpu__transpose (r->src, ps, r->dout, r->dst);
  return 0;
}

static int
run_lut (const op_run * r)
{
  simnpu__lut (r->op->lut, r->src, r->dst, r->n_out);
  return 0;
}

static int
run_softmax_op (const op_run * r)
{
  run_softmax (r->in, r->src, r->out, r->dst, r->op->attrs[SIMNPU_A_AXIS]);
  return 0;
}

int
simnpu__graph_run_inputs (const simnpu__graph * g, uint8_t * arena,
    int8_t * scratch, const int8_t * const *inputs)
{
  unsigned oi;
  int ret;

  for (oi = 0; oi < g->n_ops; oi++) {
    const simnpu__op *op = &g->ops[oi];
    const simnpu__op_def *def = op_def (op->type);
    op_run r;

    if (def == NULL)
      return SIMNPU_EINTERNAL;
    r.g = g;
    r.op = op;
    r.arena = arena;
    r.scratch = scratch;
    r.inputs = inputs;
    r.in = &g->tensors[op->inputs[0]];
    r.out = &g->tensors[op->outputs[0]];
    r.src = tensor_data (g, op->inputs[0], arena, inputs);
    r.dst = (int8_t *) arena + r.out->offset;
    r.n_out = (size_t) simnpu__tensor_elements (r.out);
    dims4 (r.in, r.di);
    dims4 (r.out, r.dout);
    if ((ret = def->run (&r)) < 0)
      return ret;
  }
  return 0;
}

int
simnpu__graph_run (const simnpu__graph * g, uint8_t * arena, int8_t * scratch)
{
  return simnpu__graph_run_inputs (g, arena, scratch, NULL);
}

/* ------------------------------------------------------------------ */
/* JSON attributes                                                      */

#define RELU6_MAX 6.0
/* ONNX's and TF's defaults */
#define HARD_SIGMOID_ALPHA 0.2
#define HARD_SIGMOID_BETA 0.5
#define LEAKY_RELU_ALPHA 0.01
#define ELU_ALPHA 1.0
/* pad: before and after, per NHWC dimension */
#define N_PADS (2 * SIMNPU_MAX_DIMS)
/* a fused clip's [min, max] */
#define N_CLIP_BOUNDS 2
/* the largest groups and out_channels of a conv2d */
#define MAX_CONV_CHANNELS (1 << 16)

/* "linear" is ONNX's name of bilinear */
static const char *const resize_modes[] = { "nearest", "bilinear", "linear" };

static const char *const coord_modes[SIMNPU_N_COORD_MODES] = {
  [SIMNPU_COORD_HALF_PIXEL] = "half_pixel",
  [SIMNPU_COORD_PYTORCH_HALF_PIXEL] = "pytorch_half_pixel",
  [SIMNPU_COORD_ALIGN_CORNERS] = "align_corners",
  [SIMNPU_COORD_ASYMMETRIC] = "asymmetric",
  [SIMNPU_COORD_TF_HALF_PIXEL_FOR_NN] = "tf_half_pixel_for_nn",
};

static const char *const nearest_modes[SIMNPU_N_NEAREST_MODES] = {
  [SIMNPU_NEAREST_ROUND_PREFER_FLOOR] = "round_prefer_floor",
  [SIMNPU_NEAREST_ROUND_PREFER_CEIL] = "round_prefer_ceil",
  [SIMNPU_NEAREST_FLOOR] = "floor",
  [SIMNPU_NEAREST_CEIL] = "ceil",
};

static const char *const pad_modes[] = { "constant", "edge" };

static const int64_t ones2[2] = { 1, 1 };
static const int64_t zeros4[4] = { 0, 0, 0, 0 };

/* kernel, stride and padding of pools and convs */
static int
parse_window (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int ret;

  if ((ret = simnpu__json_attr_ints (j, "kernel", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, NULL, &at[SIMNPU_A_KH])) < 0
      || (ret = simnpu__json_attr_ints (j, "stride", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, ones2, &at[SIMNPU_A_SH])) < 0
      || (ret = simnpu__json_attr_ints (j, "pad", 4, 0,
              SIMNPU_MAX_KERNEL_DIM, zeros4, &at[SIMNPU_A_PT])) < 0)
    return ret;
  return 0;
}

static int
parse_conv (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  const char *act;
  int ret;

  if ((ret = parse_window (j)) < 0
      || (ret = simnpu__json_attr_ints (j, "dilation", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, ones2, &at[SIMNPU_A_DH])) < 0
      || (ret = simnpu__json_attr_int (j, "groups", 1, MAX_CONV_CHANNELS, 1,
              false, &at[SIMNPU_A_GROUPS])) < 0
      || (ret = simnpu__json_attr_int (j, "out_channels", 1,
              MAX_CONV_CHANNELS, 0, true, &at[SIMNPU_A_OC])) < 0)
    return ret;
  act = simnpu__json_attr_string (j, "activation");
  if (act == NULL || strcmp (act, "none") == 0) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_NONE;
  } else if (strcmp (act, "relu") == 0) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_RELU;
  } else if (strcmp (act, "relu6") == 0) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_CLIP;
    simnpu__json_pending_clip (j, 0.0, RELU6_MAX);
  } else if (strcmp (act, "clip") == 0) {
    double c[N_CLIP_BOUNDS];
    if ((ret = simnpu__json_attr_reals (j, "clip", N_CLIP_BOUNDS,
                "expected [min, max] (real values) with \"activation\": "
                "\"clip\"", c)) < 0)
      return ret;
    if (c[0] > c[1])
      return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs.clip",
          "min must be <= max");
    at[SIMNPU_A_ACT] = SIMNPU_ACT_CLIP;
    simnpu__json_pending_clip (j, c[0], c[1]);
  } else {
    return simnpu__json_fail (j, SIMNPU_EUNSUPPORTED, "attrs.activation",
        "expected \"none\", \"relu\", \"relu6\" or \"clip\" (use a separate "
        "sigmoid or silu op)");
  }
  return simnpu__json_conv_params (j);
}

static int
parse_axis (simnpu__json_op * j)
{
  int ret;

  if ((ret = simnpu__json_attr_int (j, "axis", -SIMNPU_MAX_DIMS,
              SIMNPU_MAX_DIMS - 1, -1, false,
              &simnpu__json_op_get (j)->attrs[SIMNPU_A_AXIS])) < 0)
    return ret;
  return simnpu__json_normalise_axis (j);
}

static int
parse_split (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t sizes[SIMNPU_N_ATTRS];
  unsigned n = 0, i;
  int ret;

  if ((ret = parse_axis (j)) < 0)
    return ret;
  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"sizes\"");
  if ((ret = simnpu__json_attr_int_array (j, "sizes", 1, SIMNPU_N_ATTRS - 1,
              1, SIMNPU_MAX_TENSOR_ELEMENTS, sizes, &n)) < 0)
    return ret;
  if (simnpu__json_n_outputs (j) != (int) n)
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs",
        "\"sizes\" must have one entry per output");
  for (i = 0; i < n; i++)
    at[SIMNPU_A_SIZES0 + i] = (int32_t) sizes[i];
  return 0;
}

static int
parse_slice (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t begin[SIMNPU_MAX_DIMS], size[SIMNPU_MAX_DIMS];
  unsigned rank = simnpu__json_input_rank (j), nb = 0, ns = 0, i, pad;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs",
        "missing \"begin\" and \"size\"");
  if ((ret = simnpu__json_attr_int_array (j, "begin", rank, rank, 0,
              SIMNPU_MAX_TENSOR_ELEMENTS, begin, &nb)) < 0
      || (ret = simnpu__json_attr_int_array (j, "size", rank, rank, 1,
              SIMNPU_MAX_TENSOR_ELEMENTS, size, &ns)) < 0)
    return ret;
  pad = SIMNPU_MAX_DIMS - rank;
  for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
    at[SIMNPU_A_BEGIN0 + i] = i < pad ? 0 : (int32_t) begin[i - pad];
    at[SIMNPU_A_SIZE0 + i] = i < pad ? 1 : (int32_t) size[i - pad];
  }
  return 0;
}

static int
parse_resize (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  bool sized = simnpu__json_has_attr (j, "size");
  int ret;

  if ((ret = simnpu__json_attr_ints (j, "scale", 2, 1,
              SIMNPU_MAX_KERNEL_DIM, sized ? ones2 : NULL,
              &at[SIMNPU_A_SCALE_H])) < 0
      || (sized && (ret = simnpu__json_attr_ints (j, "size", 2, 1,
                  SIMNPU_MAX_TENSOR_ELEMENTS, NULL, &at[SIMNPU_A_OUT_H])) < 0)
      || (ret = simnpu__json_attr_choice (j, "mode", resize_modes,
              G_N_ELEMENTS (resize_modes), SIMNPU_RESIZE_MODE_NEAREST,
              &at[SIMNPU_A_RESIZE_MODE])) < 0
      || (ret = simnpu__json_attr_choice (j,
              "coordinate_transformation_mode", coord_modes,
              G_N_ELEMENTS (coord_modes), SIMNPU_COORD_HALF_PIXEL,
              &at[SIMNPU_A_COORD])) < 0
      || (ret = simnpu__json_attr_choice (j, "nearest_mode", nearest_modes,
              G_N_ELEMENTS (nearest_modes),
              SIMNPU_NEAREST_ROUND_PREFER_FLOOR, &at[SIMNPU_A_NEAREST])) < 0)
    return ret;
  if (at[SIMNPU_A_RESIZE_MODE] > SIMNPU_RESIZE_MODE_BILINEAR)
    at[SIMNPU_A_RESIZE_MODE] = SIMNPU_RESIZE_MODE_BILINEAR;
  return 0;
}

static void
set_float_params (simnpu__json_op * j, double p0, double p1)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;

  at[SIMNPU_A_F0] = simnpu__float_attr ((float) p0);
  at[SIMNPU_A_F1] = simnpu__float_attr ((float) p1);
}

static int
parse_clip (simnpu__json_op * j)
{
  double p0 = 0.0, p1 = 0.0;
  int ret;

  if ((ret = simnpu__json_attr_number (j, "min", -INFINITY, &p0)) < 0
      || (ret = simnpu__json_attr_number (j, "max", INFINITY, &p1)) < 0)
    return ret;
  if (p0 > p1)
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "min must be <= max");
  set_float_params (j, p0, p1);
  return 0;
}

static int
parse_hard_sigmoid (simnpu__json_op * j)
{
  double p0 = 0.0, p1 = 0.0;
  int ret;

  if ((ret = simnpu__json_attr_number (j, "alpha", HARD_SIGMOID_ALPHA,
              &p0)) < 0
      || (ret = simnpu__json_attr_number (j, "beta", HARD_SIGMOID_BETA,
              &p1)) < 0)
    return ret;
  set_float_params (j, p0, p1);
  return 0;
}

/* ops with one real parameter alpha */
static int
parse_alpha (simnpu__json_op * j, double def)
{
  double p0 = 0.0;
  int ret;

  if ((ret = simnpu__json_attr_number (j, "alpha", def, &p0)) < 0)
    return ret;
  set_float_params (j, p0, 0.0);
  return 0;
}

static int
parse_leaky_relu (simnpu__json_op * j)
{
  return parse_alpha (j, LEAKY_RELU_ALPHA);
}

static int
parse_elu (simnpu__json_op * j)
{
  return parse_alpha (j, ELU_ALPHA);
}

static int
parse_pad (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t pads[N_PADS];
  double value = 0.0;
  unsigned n = 0, i;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"pads\"");
  if ((ret = simnpu__json_attr_int_array (j, "pads", N_PADS, N_PADS, 0,
              SIMNPU_MAX_TENSOR_ELEMENTS, pads, &n)) < 0
      || (ret = simnpu__json_attr_choice (j, "mode", pad_modes,
              G_N_ELEMENTS (pad_modes), SIMNPU_PAD_CONSTANT,
              &at[SIMNPU_A_PAD_MODE])) < 0
      || (ret = simnpu__json_attr_number (j, "value", 0.0, &value)) < 0)
    return ret;
  for (i = 0; i < N_PADS; i++)
    at[SIMNPU_A_PAD0 + i] = (int32_t) pads[i];
  simnpu__json_pending_pad_value (j, value);
  return 0;
}

static int
parse_reshape (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t shape[SIMNPU_MAX_DIMS];
  unsigned n = 0, i;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"shape\"");
  if ((ret = simnpu__json_attr_int_array (j, "shape", 1, SIMNPU_MAX_DIMS, -1,
              SIMNPU_MAX_TENSOR_ELEMENTS, shape, &n)) < 0)
    return ret;
  at[SIMNPU_A_RANK] = (int32_t) n;
  for (i = 0; i < n; i++)
    at[SIMNPU_A_DIM0 + i] = (int32_t) shape[i];
  return 0;
}

static int
parse_transpose (simnpu__json_op * j)
{
  int32_t *at = simnpu__json_op_get (j)->attrs;
  int64_t perm[SIMNPU_MAX_DIMS];
  unsigned rank = simnpu__json_input_rank (j), n = 0, i;
  int ret;

  if (!simnpu__json_has_attrs (j))
    return simnpu__json_fail (j, SIMNPU_EFORMAT, "attrs", "missing \"perm\"");
  if ((ret = simnpu__json_attr_int_array (j, "perm", rank, rank, 0,
              SIMNPU_MAX_DIMS - 1, perm, &n)) < 0)
    return ret;
  for (i = 0; i < n; i++)
    at[SIMNPU_A_PERM0 + i] = (int32_t) perm[i];
  return 0;
}

int
simnpu__op_parse_attrs (simnpu__json_op * j)
{
  const simnpu__op_def *def = op_def (simnpu__json_op_get (j)->type);

  if (def == NULL || def->parse == NULL)
    return 0;
  return def->parse (j);
}

static const simnpu__op_def simnpu__op_defs[SIMNPU_N_OP_TYPES] = {
  [SIMNPU_OP_CONV2D] = {.name = "conv2d",.parse = parse_conv,.bind =
        bind_conv,.infer = infer_window,.prepare = prepare_conv,.run =
        run_conv,.n_params = 2,.cost = OP_COST_MACS,.movement = OP_COMPUTES},
  [SIMNPU_OP_ADD] = {.name = "add",.infer = infer_binary,.prepare =
        prepare_binary,.run = run_binary,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_MUL] = {.name = "mul",.infer = infer_binary,.prepare =
        prepare_binary,.run = run_binary,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_CONCAT] = {.name = "concat",.parse = parse_axis,.infer =
        infer_concat,.prepare = prepare_concat,.run = run_concat,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_MOVES_DATA},
  [SIMNPU_OP_SPLIT] = {.name = "split",.parse = parse_split,.infer =
        infer_split,.prepare = prepare_same_quant,.run = run_split,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_MOVES_DATA},
  [SIMNPU_OP_SLICE] = {.name = "slice",.parse = parse_slice,.infer =
        infer_slice,.prepare = prepare_same_quant,.run = run_slice,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_MOVES_DATA},
  [SIMNPU_OP_MAXPOOL] = {.name = "maxpool",.parse = parse_window,.infer =
        infer_window,.prepare = prepare_pool,.run = run_pool,.cost =
        OP_COST_WINDOW_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_AVGPOOL] = {.name = "avgpool",.parse = parse_window,.infer =
        infer_window,.prepare = prepare_pool,.run = run_pool,.cost =
        OP_COST_WINDOW_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_RESIZE] = {.name = "resize",.parse = parse_resize,.infer =
        infer_resize,.prepare = prepare_resize,.run = run_resize,.cost =
        OP_COST_RESIZE,.movement = OP_MOVES_DATA_IF_NEAREST},
  [SIMNPU_OP_RESHAPE] = {.name = "reshape",.parse = parse_reshape,.infer =
        infer_reshape,.prepare = prepare_same_quant,.run = run_reshape,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_MOVES_DATA},
  [SIMNPU_OP_TRANSPOSE] = {.name = "transpose",.parse = parse_transpose,.infer =
        infer_transpose,.prepare = prepare_same_quant,.run =
        run_transpose,.cost = OP_COST_OUTPUT_BYTES,.movement = OP_MOVES_DATA},
  [SIMNPU_OP_RELU] = {.name = "relu",.infer = infer_unary,.prepare =
        prepare_lut_fixed,.run = run_lut,.lut = lut_relu,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_SIGMOID] = {.name = "sigmoid",.infer = infer_unary,.prepare =
        prepare_lut_fixed,.run = run_lut,.lut = lut_sigmoid,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_SILU] = {.name = "silu",.infer = infer_unary,.prepare =
        prepare_lut_fixed,.run = run_lut,.lut = lut_silu,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_SOFTMAX] = {.name = "softmax",.parse = parse_axis,.infer =
        infer_softmax,.prepare = prepare_softmax,.run = run_softmax_op,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_TANH] = {.name = "tanh",.infer = infer_unary,.prepare =
        prepare_lut_params,.run = run_lut,.lut = lut_tanh,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_HARD_SWISH] = {.name = "hard_swish",.infer = infer_unary,.prepare =
        prepare_lut_params,.run = run_lut,.lut = lut_hard_swish,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_HARD_SIGMOID] = {.name = "hard_sigmoid",.parse =
        parse_hard_sigmoid,.infer = infer_unary,.prepare =
        prepare_lut_params,.run = run_lut,.lut = lut_hard_sigmoid,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_LEAKY_RELU] = {.name = "leaky_relu",.parse =
        parse_leaky_relu,.infer = infer_unary,.prepare =
        prepare_lut_params,.run = run_lut,.lut = lut_leaky_relu,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_CLIP] = {.name = "clip",.parse = parse_clip,.infer =
        infer_unary,.prepare = prepare_lut_params,.run = run_lut,.lut =
        lut_clip,.cost = OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_ELU] = {.name = "elu",.parse = parse_elu,.infer =
        infer_unary,.prepare = prepare_lut_params,.run = run_lut,.lut =
        lut_elu,.cost = OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_LUT] = {.name = "lut",.infer = infer_lut,.prepare =
        prepare_lut,.run = run_lut,.cost = OP_COST_OUTPUT_BYTES,.movement =
        OP_COMPUTES},
  [SIMNPU_OP_MEAN] = {.name = "mean",.infer = infer_mean,.prepare =
        prepare_mean,.run = run_mean,.cost = OP_COST_INPUT_BYTES,.movement =
        OP_COMPUTES},
  [SIMNPU_OP_PAD] = {.name = "pad",.parse = parse_pad,.infer =
        infer_pad,.prepare = prepare_pad,.run = run_pad,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_MOVES_DATA},
  [SIMNPU_OP_SUB] = {.name = "sub",.infer = infer_binary,.prepare =
        prepare_binary,.run = run_binary,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_MAXIMUM] = {.name = "maximum",.infer = infer_binary,.prepare =
        prepare_binary,.run = run_binary,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
  [SIMNPU_OP_MINIMUM] = {.name = "minimum",.infer = infer_binary,.prepare =
        prepare_binary,.run = run_binary,.cost =
        OP_COST_OUTPUT_BYTES,.movement = OP_COMPUTES},
};

/* ------------------------------------------------------------------ */
/* Cost model and schedule                                              */

static bool
op_is_data_movement (const simnpu__op * op)
{
  const simnpu__op_def *def = op_def (op->type);

  if (def == NULL)
    return false;
  return def->movement == OP_MOVES_DATA
      || (def->movement == OP_MOVES_DATA_IF_NEAREST
      && op->attrs[SIMNPU_A_RESIZE_MODE] == SIMNPU_RESIZE_MODE_NEAREST);
}

static uint64_t
cycles_to_ns (uint64_t cycles, const simnpu__profile * p)
{
  return (uint64_t) llround ((double) cycles * 1000.0 / p->clock_mhz);
}

static uint64_t
bytes_to_ns (uint64_t bytes, double bytes_per_s)
{
  return (uint64_t) llround ((double) bytes * 1e9 / bytes_per_s);
}

static uint64_t
op_cycles (const simnpu__graph * g, const simnpu__op * op,
    const simnpu__profile * p)
{
  const simnpu__op_def *def = op_def (op->type);
  op_cost cost = def != NULL ? def->cost : OP_COST_OUTPUT_BYTES;
  uint64_t c;

  if (cost == OP_COST_MACS) {
    double rate = p->macs_per_cycle * p->compute_efficiency;
    c = (uint64_t) ceil ((double) op->macs / rate);
  } else {
    uint64_t bytes = 0;
    unsigned i;
    for (i = 0; i < op->n_outputs; i++)
      bytes += simnpu__tensor_bytes (&g->tensors[op->outputs[i]]);
    if (cost == OP_COST_WINDOW_BYTES)
      bytes *= (uint64_t) op->attrs[SIMNPU_A_KH] * op->attrs[SIMNPU_A_KW];
    if (cost == OP_COST_INPUT_BYTES)
      bytes = simnpu__tensor_bytes (&g->tensors[op->inputs[0]]);
    if (cost == OP_COST_RESIZE && op->attrs[SIMNPU_A_RESIZE_MODE] ==
        SIMNPU_RESIZE_MODE_BILINEAR)
      bytes *= RESIZE_BILINEAR_TAPS;
    c = (bytes + p->vector_bytes_per_cycle - 1) / p->vector_bytes_per_cycle;
  }
  return c + p->op_overhead_cycles;
}

void
simnpu__schedule_clear (simnpu__schedule * s)
{
  g_free (s->actions);
  memset (s, 0, sizeof (*s));
}

static void
push_action (GArray * a, simnpu_action_kind kind, int32_t res, int32_t op,
    int32_t dep, int32_t dep2, uint64_t bytes, uint64_t cycles,
    uint64_t device_ns)
{
  simnpu__action act = {
    .kind = kind,.resource = res,.op_index = op,.dep = dep,.dep2 = dep2,
    .bytes = bytes,.cycles = cycles,.device_ns = device_ns,
  };
  g_array_append_val (a, act);
}

/* Idle-device makespan of the schedule; per-action start and end in ns
 * relative to the first action when starts/ends are given. */
static uint64_t
simulate_idle (const simnpu__schedule * s, unsigned n_resources,
    uint64_t * starts, uint64_t * ends)
{
  uint64_t free_at[SIMNPU_MAX_RESOURCES + 1] = { 0 };
  uint64_t *end = g_new0 (uint64_t, s->n_actions + 1);
  uint64_t makespan = 0;
  unsigned i;

  for (i = 0; i < s->n_actions; i++) {
    const simnpu__action *a = &s->actions[i];
    unsigned r = a->resource < 0 ? 0 : (unsigned) a->resource;
    uint64_t start = free_at[MIN (r, n_resources)];
    if (a->dep >= 0)
      start = MAX (start, end[a->dep]);
    if (a->dep2 >= 0)
      start = MAX (start, end[a->dep2]);
    end[i] = start + a->device_ns;
    free_at[MIN (r, n_resources)] = end[i];
    makespan = MAX (makespan, end[i]);
    if (starts)
      starts[i] = start;
    if (ends)
      ends[i] = end[i];
  }
  g_free (end);
  return makespan;
}

int
simnpu__schedule_build (const simnpu__graph * g, const simnpu__profile * p,
    simnpu__schedule * s, simnpu_error * error)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (simnpu__action));
  int dma_in = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_DMA_IN);
  int dma_out = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_DMA_OUT);
  int cdma = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_CDMA);
  int css = simnpu__profile_resource_of_kind (p, SIMNPU_RESOURCE_CSS);
  bool stream_weights = g->weight_bytes > p->onchip_memory_bytes;
  int32_t last_compute = SIMNPU__NO_DEP, last_in = SIMNPU__NO_DEP;
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);
  unsigned i;

  simnpu__schedule_clear (s);
  simnpu__profile_to_spec (p, s->spec, sizeof (s->spec));

  if (css >= 0) {
    uint64_t cyc = (uint64_t) llround (p->job_overhead_ns * p->clock_mhz /
        1000.0);
    push_action (a, SIMNPU_ACTION_CSS, css, -1, SIMNPU__NO_DEP,
        SIMNPU__NO_DEP, 0, cyc, p->job_overhead_ns);
    last_in = 0;
  }
  for (i = 0; i < g->n_inputs; i++) {
    uint64_t bytes = simnpu__tensor_bytes (&g->tensors[g->inputs[i]]);
    push_action (a, SIMNPU_ACTION_DMA_IN, dma_in, -1, last_in,
        SIMNPU__NO_DEP, bytes, 0, bytes_to_ns (bytes, p->dma_bytes_per_s));
    last_in = (int32_t) a->len - 1;
  }
  last_compute = last_in;
  for (i = 0; i < g->n_ops; i++) {
    const simnpu__op *op = &g->ops[i];
    int32_t wdep = SIMNPU__NO_DEP;
    uint64_t cyc;
    if (stream_weights && op->weight_bytes > 0) {
      push_action (a, SIMNPU_ACTION_DMA_IN, dma_in, (int32_t) i, last_in,
          SIMNPU__NO_DEP, op->weight_bytes, 0,
          bytes_to_ns (op->weight_bytes, p->dma_bytes_per_s));
      wdep = last_in = (int32_t) a->len - 1;
    }
    cyc = op_cycles (g, op, p);
    if (cdma >= 0 && op_is_data_movement (op))
      push_action (a, SIMNPU_ACTION_CDMA, cdma, (int32_t) i, last_compute,
          wdep, 0, cyc, cycles_to_ns (cyc, p));
    else
      push_action (a, SIMNPU_ACTION_COMPUTE, SIMNPU__RES_CORE, (int32_t) i,
          last_compute, wdep, 0, cyc, cycles_to_ns (cyc, p));
    last_compute = (int32_t) a->len - 1;
  }
  for (i = 0; i < g->n_outputs; i++) {
    uint64_t bytes = simnpu__tensor_bytes (&g->tensors[g->outputs[i]]);
    push_action (a, SIMNPU_ACTION_DMA_OUT, dma_out, -1, last_compute,
        SIMNPU__NO_DEP, bytes, 0, bytes_to_ns (bytes, p->dma_bytes_per_s));
  }
  s->n_actions = a->len;
  s->actions = (simnpu__action *) g_array_free (a, FALSE);
  (void) n_res;
  (void) error;
  simnpu__schedule_finish (s, p);
  return 0;
}

void
simnpu__schedule_finish (simnpu__schedule * s, const simnpu__profile * p)
{
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);

  s->device_ns = simulate_idle (s, n_res, NULL, NULL);
  /* without a CSS engine the per-job overhead is driver latency before
   * the first action, not a resource's busy time */
  if (!p->has_cdma_css)
    s->device_ns += p->job_overhead_ns;
}

void
simnpu__schedule_estimate (const simnpu__schedule * s,
    const simnpu__profile * p, uint64_t * start_cycles, uint64_t * end_cycles)
{
  simnpu_resource_info res[SIMNPU_MAX_RESOURCES];
  char names[SIMNPU_MAX_RESOURCES][16];
  unsigned n_res = simnpu__profile_resources (p, res, names);
  unsigned i;

  simulate_idle (s, n_res, start_cycles, end_cycles);
  for (i = 0; i < s->n_actions; i++) {
    start_cycles[i] = (uint64_t) llround (start_cycles[i] * p->clock_mhz /
        1000.0);
    end_cycles[i] = (uint64_t) llround (end_cycles[i] * p->clock_mhz / 1000.0);
  }
}
