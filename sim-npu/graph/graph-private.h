/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the files of the device graph share (graph.c, graph-validate.c,
 * graph-prepare.c, graph-run.c): the op registry's entry, the
 * interpreter's view of an op and the functions that the registry
 * names. The op's name is base/ops.h's; its JSON attributes are read by
 * format/json-attrs.c. */

#ifndef __SIMNPU_GRAPH_PRIVATE_H__
#define __SIMNPU_GRAPH_PRIVATE_H__

#include "graph/graph.h"
#include "kernels/kernels.h"

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

/* conv2d's constant parameters (weights, bias) follow its data input */
#define PARAMS_FROM 1

typedef struct
{
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
  simnpu__op_cost cost;
  simnpu__op_movement movement;
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

/* Rank-4 view, padding with leading ones. */
static inline void
dims4 (const simnpu__tensor * t, int64_t * d)
{
  unsigned pad = SIMNPU_MAX_DIMS - t->n_dims, i;

  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    d[i] = i < pad ? 1 : t->dims[i - pad];
}

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
SIMNPU_INTERNAL int simnpu__op_infer_prelu (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_depth_space (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_gather (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_infer_select (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);

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
SIMNPU_INTERNAL int simnpu__op_prepare_prelu (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_gather (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);
SIMNPU_INTERNAL int simnpu__op_prepare_select (simnpu__graph * g,
    simnpu__op * op, unsigned op_index, simnpu_error * error);

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
SIMNPU_INTERNAL int simnpu__op_run_prelu (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_depth_space (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_gather (const op_run * r);
SIMNPU_INTERNAL int simnpu__op_run_select (const op_run * r);

G_END_DECLS
#endif /* __SIMNPU_GRAPH_PRIVATE_H__ */
