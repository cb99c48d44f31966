/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The interpreter: runs a prepared graph's ops in order on a core's arena,
 * each through its int8 kernel. */

#include "graph-private.h"

#include <math.h>
#include <string.h>

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

int
simnpu__op_run_conv (const op_run * r)
{
  simnpu__conv2d (&r->op->conv, r->src, r->g->tensors[r->op->inputs[1]].data,
      r->op->weights_packed, r->op->bias_folded, r->op->requant_scales, r->dst,
      r->scratch);
  return 0;
}

int
simnpu__op_run_binary (const op_run * r)
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

int
simnpu__op_run_concat (const op_run * r)
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

int
simnpu__op_run_split (const op_run * r)
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

int
simnpu__op_run_slice (const op_run * r)
{
  int64_t begin[SIMNPU_MAX_DIMS], zero[SIMNPU_MAX_DIMS] = { 0 };
  unsigned i;

  for (i = 0; i < SIMNPU_MAX_DIMS; i++)
    begin[i] = r->op->attrs[SIMNPU_A_BEGIN0 + i];
  simnpu__copy_box (r->src, r->di, begin, r->dst, r->dout, zero, r->dout, 0,
      0, UNIT_MULT);
  return 0;
}

int
simnpu__op_run_pool (const op_run * r)
{
  const simnpu__op *op = r->op;

  simnpu__pool (op->type == SIMNPU_OP_MAXPOOL, r->di, r->src, r->dout, r->dst,
      op->attrs[SIMNPU_A_KH], op->attrs[SIMNPU_A_KW],
      op->attrs[SIMNPU_A_SH], op->attrs[SIMNPU_A_SW],
      op->attrs[SIMNPU_A_PT], op->attrs[SIMNPU_A_PL], r->in->zero_point);
  return 0;
}

int
simnpu__op_run_resize (const op_run * r)
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

int
simnpu__op_run_mean (const op_run * r)
{
  simnpu__mean (r->di, r->src, r->dst, (int32_t *) (void *) r->scratch,
      r->in->zero_point, r->out->zero_point, r->op->rescale);
  return 0;
}

int
simnpu__op_run_pad (const op_run * r)
{
  const simnpu__op *op = r->op;

  simnpu__pad (r->di, r->src, r->dout, r->dst, &op->attrs[SIMNPU_A_PAD0],
      op->attrs[SIMNPU_A_PAD_MODE] == SIMNPU_PAD_EDGE,
      (int8_t) op->attrs[SIMNPU_A_PAD_VALUE], r->in->zero_point,
      r->out->zero_point, op->eltwise_mult[0]);
  return 0;
}

int
simnpu__op_run_prelu (const op_run * r)
{
  const simnpu__op *op = r->op;
  const int64_t ch = r->dout[SIMNPU_MAX_DIMS - 1];
  int32_t hi, lo;

  if (op->table == NULL)
    return SIMNPU_EINTERNAL;
  simnpu__eltwise_split (op->eltwise_mult[0], &hi, &lo);
  simnpu__prelu (r->src, r->dst, r->n_out / (size_t) ch, (size_t) ch,
      r->in->zero_point, r->out->zero_point, hi, lo, op->table, op->table + ch);
  return 0;
}

int
simnpu__op_run_depth_space (const op_run * r)
{
  const simnpu__op *op = r->op;

  if (op->type == SIMNPU_OP_DEPTH_TO_SPACE)
    simnpu__depth_to_space (r->di, r->src, r->dst, op->attrs[SIMNPU_A_BLOCK],
        op->attrs[SIMNPU_A_D2S_MODE]);
  else
    simnpu__space_to_depth (r->di, r->src, r->dst, op->attrs[SIMNPU_A_BLOCK]);
  return 0;
}

int
simnpu__op_run_gather (const op_run * r)
{
  const simnpu__op *op = r->op;
  const simnpu__tensor *idx = &r->g->tensors[op->inputs[1]];
  int a4 = op->attrs[SIMNPU_A_AXIS] + (int) (SIMNPU_MAX_DIMS - r->in->n_dims);
  int64_t outer = 1, inner = 1;
  int i;

  if (idx->data == NULL)
    return SIMNPU_EINTERNAL;
  for (i = 0; i < a4; i++)
    outer *= r->di[i];
  for (i = a4 + 1; i < SIMNPU_MAX_DIMS; i++)
    inner *= r->di[i];
  simnpu__gather (r->src, r->dst, outer, r->di[a4], inner, idx->data,
      simnpu__tensor_elements (idx));
  return 0;
}

int
simnpu__op_run_select (const op_run * r)
{
  const simnpu__op *op = r->op;
  const simnpu__tensor *x = &r->g->tensors[op->inputs[1]];
  const simnpu__tensor *y = &r->g->tensors[op->inputs[2]];
  int64_t dx[SIMNPU_MAX_DIMS], dy[SIMNPU_MAX_DIMS];

  if (r->src == NULL)
    return SIMNPU_EINTERNAL;
  dims4 (x, dx);
  dims4 (y, dy);
  simnpu__select (r->di, r->src, dx, tensor_data (r->g, op->inputs[1],
          r->arena, r->inputs), x->zero_point, op->eltwise_mult[1], dy,
      tensor_data (r->g, op->inputs[2], r->arena, r->inputs), y->zero_point,
      op->eltwise_mult[2], r->dout, r->dst, r->out->zero_point);
  return 0;
}

int
simnpu__op_run_reshape (const op_run * r)
{
  memcpy (r->dst, r->src, r->n_out);
  return 0;
}

int
simnpu__op_run_transpose (const op_run * r)
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

int
simnpu__op_run_lut (const op_run * r)
{
  simnpu__lut (r->op->lut, r->src, r->dst, r->n_out);
  return 0;
}

int
simnpu__op_run_softmax_op (const op_run * r)
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
