/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the device graph share (graph.c, graph-attrs.c,
 * graph-validate.c, graph-prepare.c, graph-run.c, graph-cost.c): the op
 * registry's entry, the interpreter's view of an op and the functions
 * that the registry names. */

#ifndef __SIMNPU_GRAPH_PRIVATE_H__
#define __SIMNPU_GRAPH_PRIVATE_H__

#include "simnpu-private.h"

G_BEGIN_DECLS
/* Each device op is defined once, in graph.c's simnpu__op_defs (in the manner
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

SIMNPU_INTERNAL const simnpu__op_def simnpu__op_defs[SIMNPU_N_OP_TYPES];

static inline const simnpu__op_def *
op_def (simnpu__op_type type)
{
  if ((unsigned) type >= SIMNPU_N_OP_TYPES)
    return NULL;
  return &simnpu__op_defs[type];
}

#define I8_MIN (-128)
#define I8_MAX 127
#define U8_OFFSET 128
/* a generic LUT op's table: one int8 per input value */
#define LUT_ENTRIES 256
#define RESIZE_BILINEAR_TAPS 4

/* Rank-4 view, padding with leading ones. */
static inline void
dims4 (const simnpu__tensor * t, int64_t * d)
{
  unsigned pad = SIMNPU_MAX_DIMS - t->n_dims, i;

  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    d[i] = i < pad ? 1 : t->dims[i - pad];
}

/* graph-attrs.c */
SIMNPU_INTERNAL int simnpu__op_parse_window (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_conv (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_axis (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_split (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_slice (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_resize (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_clip (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_hard_sigmoid (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_leaky_relu (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_elu (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_pad (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_reshape (simnpu__json_op * j);
SIMNPU_INTERNAL int simnpu__op_parse_transpose (simnpu__json_op * j);

/* graph-validate.c */
SIMNPU_INTERNAL int simnpu__op_error (simnpu_error * error, int code,
    const simnpu__op * op, unsigned index, const char *what);
SIMNPU_INTERNAL int simnpu__op_bind_conv (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);

SIMNPU_INTERNAL int simnpu__op_infer_window (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_binary (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_concat (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_split (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_slice (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_resize (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_reshape (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_transpose (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_unary (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_softmax (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_lut (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_mean (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_pad (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);

/* graph-prepare.c */
SIMNPU_INTERNAL int simnpu__op_prepare_conv (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_binary (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_concat (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_same_quant (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_pool (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_resize (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_lut_fixed (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_softmax (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_lut_params (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_lut (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_mean (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_pad (simnpu__graph * g, simnpu__op * op,
    unsigned op_index, simnpu_error * error);

/* graph-run.c */
SIMNPU_INTERNAL int simnpu__op_run_conv (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_binary (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_concat (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_split (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_slice (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_pool (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_resize (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_reshape (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_transpose (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_lut (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_softmax_op (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_mean (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_pad (const op_run * r);

G_END_DECLS
#endif /* __SIMNPU_GRAPH_PRIVATE_H__ */
