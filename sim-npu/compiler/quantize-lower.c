/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Lowering the device section to the int8 device graph: tensors with
 * their quantisation, conv and matmul weights quantised per output
 * channel (clipped scales, int32 bias, bias correction), element-wise
 * functions as 256-entry tables, and the device inputs and outputs. */

#include "quantize-private.h"

#include <math.h>
#include <string.h>

#define LUT_SIZE 256
/* bias magnitude the device accepts (graph.c) */
#define MAX_BIAS_ABS (1 << 30)
/* weight clipping search: scales from amax down to 50 % of it */
#define WEIGHT_CLIP_STEPS 26
#define WEIGHT_CLIP_STEP 0.02f

/* ------------------------------------------------------------------ */
/* Lowering to the device graph */

typedef struct
{
  compile_ctx *c;
  GArray *tensors;              /* simnpu__tensor */
  GArray *ops;                  /* simnpu__op */
  int *map;                     /* IR tensor -> device tensor, or -1 */
  /* per IR tensor: per-channel statistics of conv inputs for bias
   * correction, or NULL for none */
  const chan_stats *stats;
} lowering;

static unsigned
dev_add_tensor (lowering * l, const char *name, simnpu__tensor_kind kind,
    unsigned rank, const int64_t * dims, float scale, int32_t zp)
{
  simnpu__tensor t = { 0 };

  t.name = g_strdup (name);
  t.kind = kind;
  t.dtype = SIMNPU_DTYPE_I8;
  t.io_dtype = SIMNPU_DTYPE_I8;
  t.layout = rank == 4 ? SIMNPU_LAYOUT_NHWC : SIMNPU_LAYOUT_NCHW;
  t.n_dims = rank;
  if (rank)
    memcpy (t.dims, dims, rank * sizeof (int64_t));
  t.scale = scale;
  t.zero_point = zp;
  g_array_append_val (l->tensors, t);
  return l->tensors->len - 1;
}

static simnpu__tensor *
dev_tensor (lowering * l, unsigned i)
{
  return &g_array_index (l->tensors, simnpu__tensor, i);
}

/* The device tensor of IR tensor t, created on first use: a constant
 * quantised per tensor, or an activation. */
static unsigned
dev_of (lowering * l, int t)
{
  compile_ctx *c = l->c;
  const simnpu__ir_tensor *ti = &c->g->tensors[t];
  unsigned idx;

  if (l->map[t] >= 0)
    return (unsigned) l->map[t];
  if (ti->is_const) {
    int64_t one = 1, k, count = simnpu__ir_tensor_elements (ti);
    const float *v = ti->data;
    int8_t *q = g_new (int8_t, count);
    simnpu__tensor *dt;
    idx = dev_add_tensor (l, ti->name, SIMNPU_TENSOR_CONSTANT,
        ti->rank ? ti->rank : 1, ti->rank ? ti->dims : &one,
        c->q_scale[t], c->q_zp[t]);
    for (k = 0; k < count; k++)
      q[k] = quantize_one (v[k], c->q_scale[t], c->q_zp[t]);
    dt = dev_tensor (l, idx);
    dt->data = q;
    dt->data_bytes = (size_t) count;
  } else {
    idx = dev_add_tensor (l, ti->name, SIMNPU_TENSOR_ACTIVATION, ti->rank,
        ti->dims, c->q_scale[t], c->q_zp[t]);
  }
  l->map[t] = (int) idx;
  return idx;
}

static simnpu__op *
dev_add_op (lowering * l, simnpu__op_type type, const simnpu__ir_node * n,
    unsigned n_in, const unsigned *in, unsigned n_out, const unsigned *out)
{
  simnpu__op op = { 0 };

  op.type = type;
  op.name = g_strdup_printf ("%s#%u", n->name, l->ops->len);
  op.location = g_strdup_printf ("%s (%s)", n->name,
      simnpu__ir_op_name (n->op));
  op.n_inputs = n_in;
  memcpy (op.inputs, in, n_in * sizeof (unsigned));
  op.n_outputs = n_out;
  memcpy (op.outputs, out, n_out * sizeof (unsigned));
  g_array_append_val (l->ops, op);
  return &g_array_index (l->ops, simnpu__op, l->ops->len - 1);
}

/* act of a conv in the output's int8 domain */
static void
lower_act (const simnpu__ir_attrs * a, float out_scale, int32_t out_zp,
    int32_t * at)
{
  if (a->act == SIMNPU_IR_ACT_RELU) {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_RELU;
  } else if (a->act == SIMNPU_IR_ACT_CLIP) {
    double lo = isfinite (a->act_min) ? round (a->act_min / out_scale) +
        out_zp : I8_MIN;
    double hi = isfinite (a->act_max) ? round (a->act_max / out_scale) +
        out_zp : I8_MAX;
    at[SIMNPU_A_ACT] = SIMNPU_ACT_CLIP;
    at[SIMNPU_A_ACT_QMIN] = (int32_t) CLAMP (lo, I8_MIN, I8_MAX);
    at[SIMNPU_A_ACT_QMAX] = (int32_t) CLAMP (hi, I8_MIN, I8_MAX);
  } else {
    at[SIMNPU_A_ACT] = SIMNPU_ACT_NONE;
  }
}

/* The scale of one output channel's weights that minimises the squared
 * rounding error: a few large weights would otherwise set a step too
 * coarse for all the others. Clipping weights is not clipping activation
 * ranges: the error is measured on the weights themselves. */
static float
weight_scale (const float *row, int64_t klen, float amax)
{
  float best = amax / I8_MAX;
  double best_err = INFINITY;
  int step;

  if (!(amax > 0.0f))
    return 0.0f;
  for (step = 0; step < WEIGHT_CLIP_STEPS; step++) {
    float s = amax * (1.0f - step * WEIGHT_CLIP_STEP) / I8_MAX;
    double err = 0.0;
    int64_t k;
    for (k = 0; k < klen; k++) {
      float q = roundf (row[k] / s);
      float d = s * CLAMP (q, -I8_MAX, I8_MAX) - row[k];
      err += (double) d *d;
    }
    if (err < best_err) {
      best_err = err;
      best = s;
    }
  }
  return best;
}

/* A channel of tiny weights beside a large bias B: the smallest weight
 * scale that keeps the bias inside the device's int32 range. */
static float
bias_weight_scale (double b, float in_scale)
{
  return (float) (fabs (b) / ((double) in_scale * MAX_BIAS_ABS) * (1.0 + 1e-6));
}

/* The input offset lower_conv() folds into the bias of conv or matmul N. */
static float
conv_input_offset (const compile_ctx * c, const simnpu__ir_node * n)
{
  return n->inputs[0] == c->g->inputs[0] && c->pixel_input ?
      c->input_offset : 0.0f;
}

float
simnpu__quantize_max_weight_scale (const compile_ctx * c,
    const simnpu__ir_node * n, float in_scale)
{
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
  const float *bias = n->n_inputs > 2 && n->inputs[2] >= 0 ?
      g->tensors[n->inputs[2]].data : NULL;
  const float *wd = w->data;
  float in_offset = conv_input_offset (c, n), max_s = 0.0f;
  /* conv: rows [oc][kh * kw * kic]; matmul: columns of [K][N] */
  bool matmul = n->op == SIMNPU_IR_MATMUL;
  int64_t oc = matmul ? w->dims[1] : w->dims[0];
  int64_t klen = matmul ? w->dims[0] : w->dims[1] * w->dims[2] * w->dims[3];
  int64_t o, k;

  for (o = 0; o < oc; o++) {
    float amax = 0.0f, s;
    double wsum = 0.0;
    for (k = 0; k < klen; k++) {
      float v = matmul ? wd[k * oc + o] : wd[o * klen + k];
      amax = MAX (amax, fabsf (v));
      wsum += v;
    }
    /* quantize_weights' scale: weight_scale () is at most amax / 127 */
    s = MAX (amax / I8_MAX, bias_weight_scale ((bias ? bias[o] : 0.0) +
            in_offset * wsum, in_scale));
    if (!(s > 0.0f))
      s = 1.0f;
    max_s = MAX (max_s, s);
  }
  return max_s;
}

/* Conv weights [oc, k...] float -> int8 symmetric per output channel, bias
 * -> int32 at in_scale * w_scale[oc].
 *
 * Bias correction (Nagel et al. 2019, "Data-free quantization through
 * weight equalization and bias correction"): with tap_mean, the mean
 * input under each tap as the device sees it ([kernel position][ic]), the
 * expected output error of this layer's own weight rounding,
 * sum_k (W_q - W)[o, k] E[x_k], is removed from the bias. It is analytic
 * and per layer, so upstream error is not folded in. Tap k of row o is
 * kernel position k / kic, input channel (o / (oc / groups)) * kic +
 * k % kic. */
static void
quantize_weights (const float *w, const float *bias, const double *tap_mean,
    int64_t ic, int64_t groups, int64_t kic, float in_offset, int64_t oc,
    int64_t klen, float in_scale, int8_t * qw, float *scales, int32_t * qb,
    bool *clamped)
{
  int64_t o, k;

  for (o = 0; o < oc; o++) {
    const float *row = w + o * klen;
    float amax = 0.0f, s;
    double b, wsum = 0.0;
    b = bias ? bias[o] : 0.0;
    for (k = 0; k < klen; k++) {
      amax = MAX (amax, fabsf (row[k]));
      wsum += row[k];
    }
    /* the input's offset is a constant per output channel */
    b += in_offset * wsum;
    s = weight_scale (row, klen, amax);
    s = MAX (s, bias_weight_scale (b, in_scale));
    if (!(s > 0.0f))
      s = 1.0f;
    for (k = 0; k < klen; k++) {
      float q = roundf (row[k] / s);
      qw[o * klen + k] = (int8_t) CLAMP (q, -I8_MAX, I8_MAX);
    }
    if (tap_mean) {
      const double *m = tap_mean + (o / (oc / groups)) * kic;
      double err = 0.0;
      for (k = 0; k < klen; k++)
        err += ((double) s * qw[o * klen + k] - row[k]) *
            m[(k / kic) * ic + k % kic];
      b -= err;
    }
    scales[o] = s;
    b = round (b / ((double) in_scale * s));
    if (b > MAX_BIAS_ABS || b < -MAX_BIAS_ABS)
      *clamped = true;
    qb[o] = (int32_t) CLAMP (b, -MAX_BIAS_ABS, MAX_BIAS_ABS);
  }
}

static int
lower_conv (lowering * l, const simnpu__ir_node * n,
    unsigned in, unsigned out, int64_t oc, int64_t kh, int64_t kw,
    int64_t kic, const float *w, const float *bias, simnpu_error * error)
{
  compile_ctx *c = l->c;
  int64_t klen = kh * kw * kic;
  int8_t *qw = g_new (int8_t, oc * klen);
  int32_t *qb = g_new (int32_t, oc);
  float *scales = g_new (float, oc);
  int64_t wd[4] = { oc, kh, kw, kic }, bd[1] = { oc };
  unsigned wi, bi, ins[3];
  bool clamped = false;
  char *name;
  simnpu__op *op;
  simnpu__tensor *t;
  float in_scale = dev_tensor (l, in)->scale;
  float in_offset = conv_input_offset (c, n);
  int64_t groups = n->op == SIMNPU_IR_CONV2D ? n->attrs.groups : 1;
  const chan_stats *st = l->stats ? &l->stats[n->inputs[0]] : NULL;
  const tap_stats *ts = l->stats && n->op == SIMNPU_IR_CONV2D ?
      &c->taps[n - c->g->nodes] : NULL;
  int64_t ic = groups * kic;
  double *tap_mean = NULL;

  if (groups > 0 && oc % groups == 0 && ts && ts->sum && ts->count > 0) {
    int64_t p, k;
    /* the device sees x - in_offset inside the image, 0 in the padding */
    tap_mean = g_new (double, kh * kw * ic);
    for (p = 0; p < kh * kw; p++)
      for (k = 0; k < ic; k++)
        tap_mean[p * ic + k] = (ts->sum[p * ic + k] -
            (double) in_offset * ts->inside[p]) / (double) ts->count;
  } else if (groups > 0 && oc % groups == 0 && kh * kw == 1 && st
      && st->count > 0 && st->n_ch == ic) {
    int64_t k;
    tap_mean = g_new (double, ic);
    for (k = 0; k < ic; k++)
      tap_mean[k] = st->sum[k] / (double) st->count - in_offset;
  }
  quantize_weights (w, bias, tap_mean, ic, groups, kic, in_offset, oc, klen,
      in_scale, qw, scales, qb, &clamped);
  g_free (tap_mean);
  if (clamped)
    g_printerr ("simnpu-compile: warning: node '%s': bias clamped to the "
        "device's int32 range (+-2^30)\n", n->name);
  name = g_strdup_printf ("%s/weights", n->name);
  wi = dev_add_tensor (l, name, SIMNPU_TENSOR_CONSTANT, 4, wd, 1.0f, 0);
  g_free (name);
  t = dev_tensor (l, wi);
  t->data = qw;
  t->data_bytes = (size_t) (oc * klen);
  t->channel_scales = scales;
  t->n_channel_scales = (unsigned) oc;
  name = g_strdup_printf ("%s/bias", n->name);
  bi = dev_add_tensor (l, name, SIMNPU_TENSOR_CONSTANT, 1, bd, 1.0f, 0);
  g_free (name);
  t = dev_tensor (l, bi);
  t->dtype = SIMNPU__DTYPE_I32;
  t->data = qb;
  t->data_bytes = (size_t) oc *sizeof (int32_t);
  ins[0] = in;
  ins[1] = wi;
  ins[2] = bi;
  op = dev_add_op (l, SIMNPU_OP_CONV2D, n, 3, ins, 1, &out);
  op->attrs[SIMNPU_A_OC] = (int32_t) oc;
  if (n->op == SIMNPU_IR_CONV2D) {
    const simnpu__ir_attrs *a = &n->attrs;
    op->attrs[SIMNPU_A_KH] = a->kernel[0];
    op->attrs[SIMNPU_A_KW] = a->kernel[1];
    op->attrs[SIMNPU_A_SH] = a->stride[0];
    op->attrs[SIMNPU_A_SW] = a->stride[1];
    op->attrs[SIMNPU_A_PT] = a->pads[0];
    op->attrs[SIMNPU_A_PL] = a->pads[1];
    op->attrs[SIMNPU_A_PB] = a->pads[2];
    op->attrs[SIMNPU_A_PR] = a->pads[3];
    op->attrs[SIMNPU_A_DH] = a->dilation[0];
    op->attrs[SIMNPU_A_DW] = a->dilation[1];
    op->attrs[SIMNPU_A_GROUPS] = a->groups;
  } else {
    op->attrs[SIMNPU_A_KH] = op->attrs[SIMNPU_A_KW] = 1;
    op->attrs[SIMNPU_A_SH] = op->attrs[SIMNPU_A_SW] = 1;
    op->attrs[SIMNPU_A_DH] = op->attrs[SIMNPU_A_DW] = 1;
    op->attrs[SIMNPU_A_GROUPS] = 1;
  }
  lower_act (&n->attrs, c->q_scale[n->outputs[0]], c->q_zp[n->outputs[0]],
      op->attrs);
  (void) error;
  return 0;
}

static unsigned
dev_reshape (lowering * l, const simnpu__ir_node * n, unsigned in,
    const char *suffix, unsigned rank, const int64_t * dims)
{
  simnpu__tensor *src = dev_tensor (l, in);
  char *name = g_strdup_printf ("%s/%s", n->name, suffix);
  unsigned out = dev_add_tensor (l, name, SIMNPU_TENSOR_ACTIVATION, rank,
      dims, src->scale, src->zero_point);
  simnpu__op *op;
  unsigned i;

  g_free (name);
  op = dev_add_op (l, SIMNPU_OP_RESHAPE, n, 1, &in, 1, &out);
  op->attrs[SIMNPU_A_RANK] = (int32_t) rank;
  for (i = 0; i < rank; i++)
    op->attrs[SIMNPU_A_DIM0 + i] = (int32_t) dims[i];
  return out;
}

static int
lower_matmul (lowering * l, const simnpu__ir_node * n, simnpu_error * error)
{
  compile_ctx *c = l->c;
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_tensor *a = &g->tensors[n->inputs[0]];
  const simnpu__ir_tensor *b = &g->tensors[n->inputs[1]];
  const float *bd = b->data;
  int64_t k = b->dims[0], oc = b->dims[1], m = 1, i, j;
  int64_t d4[4], o4[4];
  float *w = g_new (float, k * oc);
  const float *bias = n->n_inputs > 2 && n->inputs[2] >= 0 ?
      g->tensors[n->inputs[2]].data : NULL;
  unsigned in = dev_of (l, n->inputs[0]), out = dev_of (l, n->outputs[0]);
  unsigned in4, out4;
  simnpu__tensor *ot;
  int ret;

  for (i = 0; i + 1 < a->rank; i++)
    m *= a->dims[i];
  /* [K, N] -> OHWI [N, 1, 1, K] */
  for (i = 0; i < k; i++)
    for (j = 0; j < oc; j++)
      w[j * k + i] = bd[i * oc + j];
  d4[0] = d4[1] = 1;
  d4[2] = m;
  d4[3] = k;
  in4 = dev_reshape (l, n, in, "rows", 4, d4);
  o4[0] = o4[1] = 1;
  o4[2] = m;
  o4[3] = oc;
  ot = dev_tensor (l, out);
  {
    char *name = g_strdup_printf ("%s/conv", n->name);
    out4 = dev_add_tensor (l, name, SIMNPU_TENSOR_ACTIVATION, 4, o4,
        ot->scale, ot->zero_point);
    g_free (name);
  }
  ret = lower_conv (l, n, in4, out4, oc, 1, 1, k, w, bias, error);
  g_free (w);
  if (ret < 0)
    return ret;
  {
    simnpu__op *op;
    const simnpu__tensor *o = dev_tensor (l, out);
    op = dev_add_op (l, SIMNPU_OP_RESHAPE, n, 1, &out4, 1, &out);
    op->attrs[SIMNPU_A_RANK] = (int32_t) o->n_dims;
    for (i = 0; i < o->n_dims; i++)
      op->attrs[SIMNPU_A_DIM0 + i] = (int32_t) o->dims[i];
  }
  return 0;
}

/* A 256-entry table of f over every int8 input, computed by the op's own
 * float kernel, so the device matches the float reference. */
static int
make_lut (const simnpu__ir_node * n, float in_scale, int32_t in_zp,
    float out_scale, int32_t out_zp, int8_t * table, simnpu_error * error)
{
  simnpu__ir_graph *lg = simnpu__ir_graph_new ("lut");
  int64_t dims[1] = { LUT_SIZE };
  int x, y, ret;
  simnpu__ir_node *u;
  simnpu__ir_exec *ex = NULL;
  float *in, *out;
  int q;

  x = simnpu__ir_add_tensor (lg, "x", SIMNPU_IR_F32, 1, dims);
  y = simnpu__ir_add_tensor (lg, "y", SIMNPU_IR_F32, 1, dims);
  lg->inputs[lg->n_inputs++] = x;
  lg->outputs[lg->n_outputs++] = y;
  u = simnpu__ir_add_node (lg, n->op, n->name, 1, &x, 1, &y);
  u->attrs = n->attrs;
  if ((ret = simnpu__ir_infer_shapes (lg, error)) < 0
      || (ex = simnpu__ir_exec_new (lg, error)) == NULL) {
    ret = ret < 0 ? ret : error->code;
    goto out;
  }
  in = simnpu__ir_exec_data (ex, x);
  for (q = I8_MIN; q <= I8_MAX; q++)
    in[q - I8_MIN] = in_scale * (float) (q - in_zp);
  if ((ret = simnpu__ir_exec_run (ex, 0, lg->n_nodes, error)) < 0)
    goto out;
  out = simnpu__ir_exec_data (ex, y);
  for (q = 0; q < LUT_SIZE; q++)
    table[q] = isnan (out[q]) ? (int8_t) out_zp :
        quantize_one (out[q], out_scale, out_zp);
out:
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (lg);
  return ret;
}

/* prelu with its slopes exact: each +-127 (or 0) at its own scale */
static int
lower_prelu (lowering * l, const simnpu__ir_node * n)
{
  const simnpu__ir_tensor *st = &l->c->g->tensors[n->inputs[1]];
  const float *sv = st->data;
  int64_t ns = simnpu__ir_tensor_elements (st), k;
  char *name = g_strdup_printf ("%s/slope", n->name);
  unsigned si, pin[2], out;
  simnpu__tensor *t;
  int8_t *q = g_new (int8_t, ns);
  float *scales = g_new (float, ns);

  for (k = 0; k < ns; k++) {
    q[k] = sv[k] > 0.0f ? I8_MAX : (sv[k] < 0.0f ? -I8_MAX : 0);
    scales[k] = sv[k] != 0.0f ? fabsf (sv[k]) / I8_MAX : 1.0f;
  }
  pin[0] = dev_of (l, n->inputs[0]);
  out = dev_of (l, n->outputs[0]);
  si = dev_add_tensor (l, name, SIMNPU_TENSOR_CONSTANT, 1, &ns, 1.0f, 0);
  g_free (name);
  t = dev_tensor (l, si);
  t->data = q;
  t->data_bytes = (size_t) ns;
  t->channel_scales = scales;
  t->n_channel_scales = (unsigned) ns;
  pin[1] = si;
  dev_add_op (l, SIMNPU_OP_PRELU, n, 2, pin, 1, &out);
  return 0;
}

/* A constant table of the device (gather's indices, select's
 * condition): its own bytes, not a quantised float tensor. Scalars are
 * one element of rank 1. */
static unsigned
dev_add_table (lowering * l, const simnpu__ir_node * n, const char *what,
    const simnpu__ir_tensor * t, int dtype, void *data)
{
  int64_t one = 1;
  char *name = g_strdup_printf ("%s/%s", n->name, what);
  unsigned i = dev_add_tensor (l, name, SIMNPU_TENSOR_CONSTANT,
      t->rank ? t->rank : 1, t->rank ? t->dims : &one, 1.0f, 0);
  simnpu__tensor *dt = dev_tensor (l, i);

  g_free (name);
  dt->dtype = dtype;
  dt->data = data;
  dt->data_bytes = (size_t) simnpu__ir_tensor_elements (t) *
      simnpu__dtype_size (dtype);
  return i;
}

/* gather of constant indices, negative ones counted from the end; the
 * device's gather replaces the axis by the list of indices, and a reshape
 * gives their shape (none for scalar indices: the axis goes) */
static int
lower_gather (lowering * l, const simnpu__ir_node * n, simnpu_error * error)
{
  const simnpu__ir_graph *g = l->c->g;
  const simnpu__ir_tensor *x = &g->tensors[n->inputs[0]];
  const simnpu__ir_tensor *it = &g->tensors[n->inputs[1]];
  const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
  const int axis = n->attrs.axis;
  int64_t k, count = simnpu__ir_tensor_elements (it), len = x->dims[axis];
  int64_t d[SIMNPU_MAX_DIMS];
  int32_t *idx = g_new (int32_t, count);
  unsigned ins[2], o, mid;
  const simnpu__tensor *ot;
  simnpu__op *op;
  bool same;

  for (k = 0; k < count; k++) {
    int64_t v = it->dtype == SIMNPU_IR_I64 ?
        ((const int64_t *) it->data)[k] : ((const int32_t *) it->data)[k];
    if (v < 0)
      v += len;
    if (v < 0 || v >= len) {
      g_free (idx);
      return simnpu__set_error (error, SIMNPU_EFORMAT, "node '%s' (%s): "
          "index %" G_GINT64_FORMAT " out of range for axis %d of size %"
          G_GINT64_FORMAT, n->name, simnpu__ir_op_name (n->op), (gint64) v,
          axis, (gint64) len);
    }
    idx[k] = (int32_t) v;
  }
  ins[0] = dev_of (l, n->inputs[0]);
  ins[1] = dev_add_table (l, n, "indices", it, SIMNPU__DTYPE_I32, idx);
  o = dev_of (l, n->outputs[0]);
  memcpy (d, x->dims, x->rank * sizeof (int64_t));
  d[axis] = count;
  same = out->rank == x->rank && memcmp (d, out->dims,
      x->rank * sizeof (int64_t)) == 0;
  ot = dev_tensor (l, o);
  mid = o;
  if (!same) {
    char *name = g_strdup_printf ("%s/gathered", n->name);
    mid = dev_add_tensor (l, name, SIMNPU_TENSOR_ACTIVATION, x->rank, d,
        ot->scale, ot->zero_point);
    g_free (name);
  }
  op = dev_add_op (l, SIMNPU_OP_GATHER, n, 2, ins, 1, &mid);
  op->attrs[SIMNPU_A_AXIS] = axis;
  if (!same) {
    unsigned i, rank = out->rank ? out->rank : 1;
    op = dev_add_op (l, SIMNPU_OP_RESHAPE, n, 1, &mid, 1, &o);
    op->attrs[SIMNPU_A_RANK] = (int32_t) rank;
    for (i = 0; i < rank; i++)
      op->attrs[SIMNPU_A_DIM0 + i] = (int32_t) (out->rank ? out->dims[i] : 1);
  }
  return 0;
}

/* where of a constant condition: the device's select, the condition one
 * byte (0 or 1) per element of its own shape */
static int
lower_where (lowering * l, const simnpu__ir_node * n)
{
  const simnpu__ir_tensor *ct = &l->c->g->tensors[n->inputs[0]];
  int64_t count = simnpu__ir_tensor_elements (ct), k;
  const uint8_t *cv = ct->data;
  int8_t *q = g_new (int8_t, count);
  unsigned ins[3], out;

  for (k = 0; k < count; k++)
    q[k] = cv[k] != 0;
  ins[0] = dev_add_table (l, n, "condition", ct, SIMNPU_DTYPE_I8, q);
  ins[1] = dev_of (l, n->inputs[1]);
  ins[2] = dev_of (l, n->inputs[2]);
  out = dev_of (l, n->outputs[0]);
  dev_add_op (l, SIMNPU_OP_SELECT, n, 3, ins, 1, &out);
  return 0;
}

static int
lower_node (lowering * l, unsigned ni, simnpu_error * error)
{
  compile_ctx *c = l->c;
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_node *n = &g->nodes[ni];
  const simnpu__ir_attrs *a = &n->attrs;
  unsigned ins[SIMNPU_MAX_OP_INPUTS], outs[SIMNPU_MAX_OP_OUTPUTS];
  unsigned i, n_in = 0, n_out = 0;
  simnpu__op *op;

  if (n->op == SIMNPU_IR_CONV2D) {
    const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
    const float *bias = n->n_inputs > 2 && n->inputs[2] >= 0 ?
        g->tensors[n->inputs[2]].data : NULL;
    return lower_conv (l, n, dev_of (l, n->inputs[0]),
        dev_of (l, n->outputs[0]), w->dims[0], w->dims[1], w->dims[2],
        w->dims[3], w->data, bias, error);
  }
  if (n->op == SIMNPU_IR_MATMUL)
    return lower_matmul (l, n, error);
  if (n->op == SIMNPU_IR_PRELU)
    return lower_prelu (l, n);
  if (n->op == SIMNPU_IR_GATHER)
    return lower_gather (l, n, error);
  if (n->op == SIMNPU_IR_WHERE)
    return lower_where (l, n);

  for (i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] >= 0) {
      const simnpu__ir_tensor *ti = &g->tensors[n->inputs[i]];
      if (ti->is_const && l->map[n->inputs[i]] < 0
          && simnpu__ir_tensor_elements (ti) > 1
          && c->n_per_tensor_consts++ == 0) {
        c->first_per_tensor_const = n->inputs[i];
        c->first_per_tensor_reader = (int) ni;
      }
      ins[n_in++] = dev_of (l, n->inputs[i]);
    }
  for (i = 0; i < n->n_outputs; i++)
    outs[n_out++] = dev_of (l, n->outputs[i]);

  switch (n->op) {
    case SIMNPU_IR_ADD:
      dev_add_op (l, SIMNPU_OP_ADD, n, n_in, ins, n_out, outs);
      return 0;
    case SIMNPU_IR_SUB:
      dev_add_op (l, SIMNPU_OP_SUB, n, n_in, ins, n_out, outs);
      return 0;
    case SIMNPU_IR_MUL:
      dev_add_op (l, SIMNPU_OP_MUL, n, n_in, ins, n_out, outs);
      return 0;
    case SIMNPU_IR_MAXIMUM:
      dev_add_op (l, SIMNPU_OP_MAXIMUM, n, n_in, ins, n_out, outs);
      return 0;
    case SIMNPU_IR_MINIMUM:
      dev_add_op (l, SIMNPU_OP_MINIMUM, n, n_in, ins, n_out, outs);
      return 0;
    case SIMNPU_IR_CONCAT:
      op = dev_add_op (l, SIMNPU_OP_CONCAT, n, n_in, ins, n_out, outs);
      op->attrs[SIMNPU_A_AXIS] = a->axis;
      return 0;
    case SIMNPU_IR_SPLIT:
      op = dev_add_op (l, SIMNPU_OP_SPLIT, n, n_in, ins, n_out, outs);
      op->attrs[SIMNPU_A_AXIS] = a->axis;
      for (i = 0; i < n_out; i++)
        op->attrs[SIMNPU_A_SIZES0 + i] =
            (int32_t) g->tensors[n->outputs[i]].dims[a->axis];
      return 0;
    case SIMNPU_IR_SLICE:{
      const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];
      const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
      unsigned pad = SIMNPU_MAX_DIMS - in->rank;
      op = dev_add_op (l, SIMNPU_OP_SLICE, n, 1, ins, 1, outs);
      for (i = 0; i < SIMNPU_MAX_DIMS; i++) {
        op->attrs[SIMNPU_A_BEGIN0 + i] = i < pad ? 0 :
            (int32_t) a->ints[i - pad];
        op->attrs[SIMNPU_A_SIZE0 + i] = i < pad ? 1 :
            (int32_t) out->dims[i - pad];
      }
      return 0;
    }
    case SIMNPU_IR_RESHAPE:
    case SIMNPU_IR_IDENTITY:{
      const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
      int64_t one = 1;
      unsigned rank = out->rank ? out->rank : 1;
      op = dev_add_op (l, SIMNPU_OP_RESHAPE, n, 1, ins, 1, outs);
      op->attrs[SIMNPU_A_RANK] = (int32_t) rank;
      for (i = 0; i < rank; i++)
        op->attrs[SIMNPU_A_DIM0 + i] = (int32_t) (out->rank ? out->dims[i] :
            one);
      return 0;
    }
    case SIMNPU_IR_TRANSPOSE:
      op = dev_add_op (l, SIMNPU_OP_TRANSPOSE, n, 1, ins, 1, outs);
      for (i = 0; i < a->n_ints; i++)
        op->attrs[SIMNPU_A_PERM0 + i] = (int32_t) a->ints[i];
      return 0;
    case SIMNPU_IR_MAXPOOL:
    case SIMNPU_IR_AVGPOOL:{
      const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];
      const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
      int64_t need_h, need_w;
      if (simnpu__quantize_is_global_mean (g, n)) {
        dev_add_op (l, SIMNPU_OP_MEAN, n, 1, ins, 1, outs);
        return 0;
      }
      op = dev_add_op (l, n->op == SIMNPU_IR_MAXPOOL ? SIMNPU_OP_MAXPOOL :
          SIMNPU_OP_AVGPOOL, n, 1, ins, 1, outs);
      op->attrs[SIMNPU_A_KH] = a->kernel[0];
      op->attrs[SIMNPU_A_KW] = a->kernel[1];
      op->attrs[SIMNPU_A_SH] = a->stride[0];
      op->attrs[SIMNPU_A_SW] = a->stride[1];
      op->attrs[SIMNPU_A_PT] = a->pads[0];
      op->attrs[SIMNPU_A_PL] = a->pads[1];
      /* ceil mode: the last window may hang over the bottom/right edge;
       * extra padding there gives the same output size, and the device
       * pools over the valid part of each window only */
      need_h = (out->dims[1] - 1) * a->stride[0] + a->kernel[0] -
          in->dims[1] - a->pads[0];
      need_w = (out->dims[2] - 1) * a->stride[1] + a->kernel[1] -
          in->dims[2] - a->pads[1];
      op->attrs[SIMNPU_A_PB] = (int32_t) MAX (a->pads[2], need_h);
      op->attrs[SIMNPU_A_PR] = (int32_t) MAX (a->pads[3], need_w);
      if (op->attrs[SIMNPU_A_PB] > SIMNPU_MAX_KERNEL_DIM
          || op->attrs[SIMNPU_A_PR] > SIMNPU_MAX_KERNEL_DIM)
        return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
            "node '%s' (%s): padding above 64", n->name,
            simnpu__ir_op_name (n->op));
      return 0;
    }
    case SIMNPU_IR_RESIZE:{
      const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
      op = dev_add_op (l, SIMNPU_OP_RESIZE, n, 1, ins, 1, outs);
      op->attrs[SIMNPU_A_SCALE_H] = 1;
      op->attrs[SIMNPU_A_SCALE_W] = 1;
      op->attrs[SIMNPU_A_RESIZE_MODE] = a->mode;
      op->attrs[SIMNPU_A_OUT_H] = (int32_t) out->dims[1];
      op->attrs[SIMNPU_A_OUT_W] = (int32_t) out->dims[2];
      op->attrs[SIMNPU_A_COORD] = a->coord;
      op->attrs[SIMNPU_A_NEAREST] = a->nearest;
      return 0;
    }
    case SIMNPU_IR_REDUCE_MEAN:{
      const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];
      if (a->keepdims) {
        dev_add_op (l, SIMNPU_OP_MEAN, n, 1, ins, 1, outs);
      } else {
        int64_t d4[4] = { in->dims[0], 1, 1, in->dims[3] };
        const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
        const simnpu__tensor *ot = dev_tensor (l, outs[0]);
        char *name = g_strdup_printf ("%s/keepdims", n->name);
        unsigned mid = dev_add_tensor (l, name, SIMNPU_TENSOR_ACTIVATION, 4,
            d4, ot->scale, ot->zero_point);
        g_free (name);
        dev_add_op (l, SIMNPU_OP_MEAN, n, 1, ins, 1, &mid);
        op = dev_add_op (l, SIMNPU_OP_RESHAPE, n, 1, &mid, 1, outs);
        op->attrs[SIMNPU_A_RANK] = (int32_t) out->rank;
        for (i = 0; i < out->rank; i++)
          op->attrs[SIMNPU_A_DIM0 + i] = (int32_t) out->dims[i];
      }
      return 0;
    }
    case SIMNPU_IR_SOFTMAX:
      op = dev_add_op (l, SIMNPU_OP_SOFTMAX, n, 1, ins, 1, outs);
      op->attrs[SIMNPU_A_AXIS] = a->axis;
      return 0;
    case SIMNPU_IR_PAD:{
      const simnpu__tensor *it = dev_tensor (l, ins[0]);
      op = dev_add_op (l, SIMNPU_OP_PAD, n, 1, ins, 1, outs);
      for (i = 0; i < 8; i++)
        op->attrs[SIMNPU_A_PAD0 + i] = (int32_t) a->ints[i];
      op->attrs[SIMNPU_A_PAD_MODE] = a->mode == SIMNPU_IR_PAD_EDGE ? 1 : 0;
      op->attrs[SIMNPU_A_PAD_VALUE] = quantize_one (a->f[0], it->scale,
          it->zero_point);
      return 0;
    }
    case SIMNPU_IR_DEPTH_TO_SPACE:
      op = dev_add_op (l, SIMNPU_OP_DEPTH_TO_SPACE, n, 1, ins, 1, outs);
      op->attrs[SIMNPU_A_BLOCK] = (int32_t) a->ints[0];
      op->attrs[SIMNPU_A_D2S_MODE] = a->mode == 1 ? SIMNPU_D2S_CRD :
          SIMNPU_D2S_DCR;
      return 0;
    case SIMNPU_IR_SPACE_TO_DEPTH:
      op = dev_add_op (l, SIMNPU_OP_SPACE_TO_DEPTH, n, 1, ins, 1, outs);
      op->attrs[SIMNPU_A_BLOCK] = (int32_t) a->ints[0];
      return 0;
    default:
      break;
  }

  if (simnpu__quantize_is_unary_lut (n->op)) {
    const simnpu__tensor *it = dev_tensor (l, ins[0]);
    const simnpu__tensor *ot = dev_tensor (l, outs[0]);
    int64_t d[1] = { LUT_SIZE };
    int8_t *table = g_new (int8_t, LUT_SIZE);
    char *name = g_strdup_printf ("%s/table", n->name);
    unsigned ti, lin[2];
    int ret = make_lut (n, it->scale, it->zero_point, ot->scale,
        ot->zero_point, table, error);
    simnpu__tensor *tt;
    if (ret < 0) {
      g_free (table);
      g_free (name);
      return ret;
    }
    ti = dev_add_tensor (l, name, SIMNPU_TENSOR_CONSTANT, 1, d, 1.0f, 0);
    g_free (name);
    tt = dev_tensor (l, ti);
    tt->data = table;
    tt->data_bytes = LUT_SIZE;
    lin[0] = ins[0];
    lin[1] = ti;
    dev_add_op (l, SIMNPU_OP_LUT, n, 2, lin, 1, outs);
    return 0;
  }
  return simnpu__set_error (error, SIMNPU_EINTERNAL,
      "node '%s' (%s): placed on the device without a lowering", n->name,
      simnpu__ir_op_name (n->op));
}

/* Builds the device graph from the device section. */
int
simnpu__quantize_lower (compile_ctx * c, const chan_stats * stats,
    simnpu__graph ** out, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  const simnpu__compile_options *o = c->opts;
  lowering l = { 0 };
  simnpu__graph *dg;
  bool *read_after;
  unsigned i, j;
  int ret = 0;

  l.c = c;
  l.tensors = g_array_new (FALSE, TRUE, sizeof (simnpu__tensor));
  l.ops = g_array_new (FALSE, TRUE, sizeof (simnpu__op));
  l.map = g_new (int, g->n_tensors);
  l.stats = stats;
  for (i = 0; i < g->n_tensors; i++)
    l.map[i] = -1;
  c->n_per_tensor_consts = 0;
  dg = simnpu__graph_new ();
  dg->name = g_strdup (o->name ? o->name : g->name);

  /* device inputs: non-constant tensors read by device nodes and made
   * outside the device, in graph-input order first */
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (c->place[i] != SIMNPU_SECTION_DEVICE)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j], p;
      unsigned d;
      simnpu__tensor *dt;
      if (t < 0 || g->tensors[t].is_const || l.map[t] >= 0)
        continue;
      p = g->tensors[t].producer;
      if (p >= 0 && c->place[p] == SIMNPU_SECTION_DEVICE)
        continue;
      if (dg->n_inputs >= SIMNPU_MAX_IO) {
        ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
            "the device section has more than %d inputs", SIMNPU_MAX_IO);
        break;
      }
      d = dev_of (&l, t);
      dt = dev_tensor (&l, d);
      dt->kind = SIMNPU_TENSOR_INPUT;
      /* the image enters as u8 pixels; other inputs as int8 */
      if (t == g->inputs[0] && c->pixel_input)
        dt->io_dtype = SIMNPU_DTYPE_U8;
      dg->inputs[dg->n_inputs++] = d;
    }
  }
  for (i = 0; i < g->n_nodes && ret == 0; i++)
    if (c->place[i] == SIMNPU_SECTION_DEVICE)
      ret = lower_node (&l, i, error);

  /* device outputs: device results read by the postamble or that are
   * graph outputs */
  read_after = simnpu__quantize_read_in (c, SIMNPU_SECTION_POSTAMBLE, false);
  for (i = 0; i < g->n_tensors && ret == 0; i++) {
    int p = g->tensors[i].producer;
    simnpu__tensor *dt;
    if (p < 0 || c->place[p] != SIMNPU_SECTION_DEVICE || l.map[i] < 0
        || !(read_after[i] || simnpu__ir_is_graph_output (g, (int) i)))
      continue;
    if (dg->n_outputs >= SIMNPU_MAX_IO) {
      ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "the device section has more than %d outputs", SIMNPU_MAX_IO);
      break;
    }
    dt = dev_tensor (&l, (unsigned) l.map[i]);
    dt->kind = SIMNPU_TENSOR_OUTPUT;
    dt->io_dtype = simnpu__ir_is_graph_output (g, (int) i) ? o->output_dtype :
        SIMNPU_DTYPE_F32;
    dg->outputs[dg->n_outputs++] = (unsigned) l.map[i];
  }
  /* the model's own rank-4 inputs and outputs are in its layout, that of
   * its image input; the device's inner tensors are NHWC */
  for (i = 0; i < g->n_tensors && ret == 0; i++)
    if (l.map[i] >= 0 && g->tensors[i].rank == 4 && o->has_preprocess
        && (simnpu__ir_is_graph_output (g, (int) i)
            || (int) i == g->inputs[0]))
      dev_tensor (&l, (unsigned) l.map[i])->layout = o->preprocess.layout;

  dg->n_tensors = l.tensors->len;
  dg->tensors = (simnpu__tensor *) g_array_free (l.tensors, FALSE);
  dg->n_ops = l.ops->len;
  dg->ops = (simnpu__op *) g_array_free (l.ops, FALSE);
  g_free (l.map);
  g_free (read_after);
  if (ret == 0 && dg->n_ops == 0)
    ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "no node of the model can run on the device");
  if (ret == 0 && (dg->n_tensors > SIMNPU_MAX_TENSORS
          || dg->n_ops > SIMNPU_MAX_OPS))
    ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "the device section has %u tensors and %u ops; the device takes "
        "at most %d and %d", dg->n_tensors, dg->n_ops, SIMNPU_MAX_TENSORS,
        SIMNPU_MAX_OPS);
  if (ret == 0)
    ret = simnpu__graph_validate (dg, error);
  /* the accuracy report reads every tensor after a run */
  dg->keep_tensors = true;
  if (ret == 0)
    ret = simnpu__graph_prepare (dg, error);
  if (ret < 0) {
    simnpu__graph_free (dg);
    return ret;
  }
  *out = dg;
  return 0;
}
