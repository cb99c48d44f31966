/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* From a float IR graph to a compiled model: placement of every node on
 * the device or the host (preamble / postamble), calibration with the
 * float executor, int8 quantisation (per-channel symmetric weights,
 * per-tensor asymmetric activations, int32 bias at in_scale * w_scale, as
 * TFLite's int8 spec), lowering to the device graph, and the accuracy
 * report (SQNR of int8 against float). */

#include "compiler.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define I8_MIN (-128)
#define I8_MAX 127
#define U8_TO_I8_ZP 128
#define LUT_SIZE 256
/* below this a range is degenerate; it is widened so the scale is > 0 */
#define MIN_RANGE 1e-6f
/* random calibration when the user gives no images */
#define N_RANDOM_INPUTS 8
#define RANDOM_SEED 0x5eed
/* bias magnitude the device accepts (graph.c) */
#define MAX_BIAS_ABS (1 << 30)
#define N_WORST_LAYERS 5
#define DEFAULT_LOGIT_FLOOR (-12.0f)
#define DEFAULT_FALLBACK_DB 20.0
/* the share of the model's MACs host fallback may move off the device */
#define DEFAULT_FALLBACK_MAC_SHARE 0.10
/* weight clipping search: scales from amax down to 50 % of it */
#define WEIGHT_CLIP_STEPS 26
#define WEIGHT_CLIP_STEP 0.02f
/* equalisation leaves channels below this range (dead) alone, and bounds
 * its scale factors */
#define EQ_MIN_RANGE 1e-8
#define EQ_MAX_SCALE 1e4

void
simnpu__compile_options_init (simnpu__compile_options * o)
{
  memset (o, 0, sizeof (*o));
  o->logit_floor = DEFAULT_LOGIT_FLOOR;
  o->output_dtype = SIMNPU_DTYPE_F32;
  o->fg_threshold = 0.5f;
  o->fallback_db = DEFAULT_FALLBACK_DB;
  o->fallback_mac_share = DEFAULT_FALLBACK_MAC_SHARE;
}

void
simnpu__compile_result_clear (simnpu__compile_result * r)
{
  unsigned i;

  g_free (r->placement);
  for (i = 0; i < r->n_outputs; i++)
    g_free (r->outputs[i].name);
  g_free (r->outputs);
  if (r->text)
    g_string_free (r->text, TRUE);
  memset (r, 0, sizeof (*r));
}

/* ------------------------------------------------------------------ */
/* What the device runs */

static bool
is_f32 (const simnpu__ir_graph * g, int t)
{
  return t >= 0 && g->tensors[t].dtype == SIMNPU_IR_F32;
}

static bool
is_const (const simnpu__ir_graph * g, int t)
{
  return t >= 0 && g->tensors[t].is_const;
}

static bool
device_shape_ok (const simnpu__ir_tensor * t)
{
  unsigned i;
  int64_t n = 1;

  if (t->rank > SIMNPU_MAX_DIMS)
    return false;
  for (i = 0; i < t->rank; i++)
    n *= t->dims[i];
  return n <= SIMNPU_MAX_TENSOR_ELEMENTS;
}

/* element-wise functions of one float, which the device runs as a table
 * (an identity is lowered as a reshape) */
static bool
is_unary_lut (simnpu__ir_op op)
{
  return simnpu__ir_op_is_unary (op) && op != SIMNPU_IR_IDENTITY;
}

const char *
simnpu__device_refusal (const simnpu__ir_graph * g, const simnpu__ir_node * n)
{
  const simnpu__ir_attrs *a = &n->attrs;
  unsigned i, n_data = 0;

  for (i = 0; i < n->n_inputs; i++) {
    int t = n->inputs[i];
    if (t < 0)
      continue;
    if (!is_f32 (g, t))
      return "non-float operand";
    if (!device_shape_ok (&g->tensors[t]))
      return "rank above 4 or too many elements";
    if (!is_const (g, t))
      n_data++;
  }
  for (i = 0; i < n->n_outputs; i++) {
    if (!is_f32 (g, n->outputs[i]))
      return "non-float result";
    if (!device_shape_ok (&g->tensors[n->outputs[i]]))
      return "rank above 4 or too many elements";
  }
  if (n_data == 0)
    return "constant operands only";
  if (n->n_outputs > SIMNPU_MAX_OP_OUTPUTS
      || n->n_inputs > SIMNPU_MAX_OP_INPUTS)
    return "too many operands";

  switch (n->op) {
    case SIMNPU_IR_CONV2D:{
      const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
      if (!is_const (g, n->inputs[1]) || (n->n_inputs > 2
              && n->inputs[2] >= 0 && !is_const (g, n->inputs[2])))
        return "weights or bias computed at run time";
      if (a->kernel[0] > SIMNPU_MAX_KERNEL_DIM
          || a->kernel[1] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[0] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[1] > SIMNPU_MAX_KERNEL_DIM
          || a->dilation[0] > SIMNPU_MAX_KERNEL_DIM
          || a->dilation[1] > SIMNPU_MAX_KERNEL_DIM)
        return "kernel, stride or dilation above 64";
      for (i = 0; i < 4; i++)
        if (a->pads[i] < 0 || a->pads[i] > SIMNPU_MAX_KERNEL_DIM)
          return "padding outside [0, 64]";
      if (w->dims[1] * w->dims[2] * w->dims[3] > 32768)
        return "kernel window above 32768 taps";
      if (a->act != SIMNPU_IR_ACT_NONE && a->act != SIMNPU_IR_ACT_RELU
          && a->act != SIMNPU_IR_ACT_CLIP)
        return "fused activation (split before lowering)";
      return NULL;
    }
    case SIMNPU_IR_MATMUL:{
      const simnpu__ir_tensor *b = &g->tensors[n->inputs[1]];
      if (!is_const (g, n->inputs[1]) || b->rank != 2)
        return "matmul by a run-time or batched right operand";
      if (n->n_inputs > 2 && n->inputs[2] >= 0 && !is_const (g, n->inputs[2]))
        return "bias computed at run time";
      if (g->tensors[n->inputs[0]].rank < 1 || b->dims[0] > 32768)
        return "inner dimension above 32768";
      if (a->act != SIMNPU_IR_ACT_NONE && a->act != SIMNPU_IR_ACT_RELU
          && a->act != SIMNPU_IR_ACT_CLIP)
        return "fused activation (split before lowering)";
      return NULL;
    }
    case SIMNPU_IR_ADD:
    case SIMNPU_IR_SUB:
    case SIMNPU_IR_MUL:
    case SIMNPU_IR_MAXIMUM:
    case SIMNPU_IR_MINIMUM:
      if (n->n_inputs != 2)
        return "more than two operands";
      return NULL;
    case SIMNPU_IR_CONCAT:
      for (i = 0; i < n->n_inputs; i++)
        if (is_const (g, n->inputs[i]))
          return "constant operand";
      return NULL;
    case SIMNPU_IR_SPLIT:
      if (n->n_outputs > SIMNPU_N_ATTRS - 1)
        return "too many outputs";
      return NULL;
    case SIMNPU_IR_SLICE:{
      unsigned r = g->tensors[n->inputs[0]].rank;
      for (i = 0; i < r; i++)
        if (a->steps[i] != 1)
          return "strided slice";
      return NULL;
    }
    case SIMNPU_IR_RESHAPE:
    case SIMNPU_IR_TRANSPOSE:
      return NULL;
    case SIMNPU_IR_MAXPOOL:
    case SIMNPU_IR_AVGPOOL:
      if (a->dilation[0] != 1 || a->dilation[1] != 1)
        return "dilated pooling";
      if (n->op == SIMNPU_IR_AVGPOOL && a->count_include_pad
          && (a->pads[0] || a->pads[1] || a->pads[2] || a->pads[3]))
        return "average pooling that counts the padding";
      if (a->kernel[0] > SIMNPU_MAX_KERNEL_DIM
          || a->kernel[1] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[0] > SIMNPU_MAX_KERNEL_DIM
          || a->stride[1] > SIMNPU_MAX_KERNEL_DIM)
        return "window or stride above 64";
      for (i = 0; i < 4; i++)
        if (a->pads[i] < 0 || a->pads[i] > SIMNPU_MAX_KERNEL_DIM)
          return "padding outside [0, 64]";
      return NULL;
    case SIMNPU_IR_RESIZE:
      if (a->mode != SIMNPU_IR_RESIZE_NEAREST
          && a->mode != SIMNPU_IR_RESIZE_BILINEAR)
        return "resize mode other than nearest or bilinear";
      return NULL;
    case SIMNPU_IR_REDUCE_MEAN:{
      const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];
      if (in->rank != 4 || a->n_ints != 2 || !((a->ints[0] == 1
                  && a->ints[1] == 2) || (a->ints[0] == 2 && a->ints[1] == 1)))
        return "mean over axes other than height and width";
      return NULL;
    }
    case SIMNPU_IR_SOFTMAX:
      return NULL;
    case SIMNPU_IR_PAD:{
      unsigned r = g->tensors[n->inputs[0]].rank;
      if (r != 4)
        return "pad of a tensor of rank other than 4";
      if (a->mode != SIMNPU_IR_PAD_CONSTANT && a->mode != SIMNPU_IR_PAD_EDGE)
        return "reflect padding";
      for (i = 0; i < 2 * r; i++)
        if (a->ints[i] < 0 || a->ints[i] > G_MAXINT16)
          return "negative or huge padding";
      return NULL;
    }
    case SIMNPU_IR_IDENTITY:
      return NULL;
    default:
      if (is_unary_lut (n->op))
        return NULL;
      return "no device kernel";
  }
}

/* ------------------------------------------------------------------ */
/* Graph surgery */

/* Moves the node just appended (the last one) to position pos. */
static void
move_last_node (simnpu__ir_graph * g, unsigned pos)
{
  simnpu__ir_node tmp = g->nodes[g->n_nodes - 1];

  memmove (&g->nodes[pos + 1], &g->nodes[pos],
      (g->n_nodes - 1 - pos) * sizeof (simnpu__ir_node));
  g->nodes[pos] = tmp;
}

static simnpu__ir_op
act_to_op (simnpu__ir_act act)
{
  switch (act) {
    case SIMNPU_IR_ACT_LEAKY_RELU:
      return SIMNPU_IR_LEAKY_RELU;
    case SIMNPU_IR_ACT_SIGMOID:
      return SIMNPU_IR_SIGMOID;
    case SIMNPU_IR_ACT_TANH:
      return SIMNPU_IR_TANH;
    case SIMNPU_IR_ACT_HARD_SWISH:
      return SIMNPU_IR_HARD_SWISH;
    case SIMNPU_IR_ACT_ELU:
      return SIMNPU_IR_ELU;
    default:
      return SIMNPU_IR_IDENTITY;
  }
}

/* The device fuses only clamps into conv; any other fused activation
 * becomes its own element-wise node, whose input range calibration then
 * sees. */
static int
split_activations (simnpu__ir_graph * g, simnpu_error * error)
{
  unsigned i;
  bool changed = false;

  for (i = 0; i < g->n_nodes; i++) {
    simnpu__ir_node *n = &g->nodes[i];
    simnpu__ir_act act = n->attrs.act;
    float alpha = n->attrs.act_alpha;
    int out, pre;
    char *pre_name;
    simnpu__ir_node *u;

    if ((n->op != SIMNPU_IR_CONV2D && n->op != SIMNPU_IR_MATMUL)
        || act == SIMNPU_IR_ACT_NONE || act == SIMNPU_IR_ACT_RELU
        || act == SIMNPU_IR_ACT_CLIP)
      continue;
    out = n->outputs[0];
    pre_name = g_strdup_printf ("%s/preact", g->tensors[out].name);
    pre = simnpu__ir_add_tensor (g, pre_name, SIMNPU_IR_F32, 0, NULL);
    g_free (pre_name);
    n = &g->nodes[i];
    n->outputs[0] = pre;
    n->attrs.act = SIMNPU_IR_ACT_NONE;
    u = simnpu__ir_add_node (g, act_to_op (act), n->name, 1, &pre, 1, &out);
    u->attrs.f[0] = alpha;
    move_last_node (g, i + 1);
    changed = true;
  }
  return changed ? simnpu__ir_infer_shapes (g, error) : 0;
}

/* ------------------------------------------------------------------ */
/* Placement */

typedef struct
{
  simnpu__ir_graph *g;
  const simnpu__compile_options *opts;
  simnpu__section *place;       /* per node */
  bool *force_host;             /* per node: host fallback */
  int *consumers;               /* per tensor: number of consuming nodes */
  int *reader;                  /* per tensor: the last consuming node */
  /* quantisation of every tensor the device sees */
  bool *has_q;
  float *q_scale;
  int32_t *q_zp;                /* internal int8 zero point */
  bool *is_logit;
  /* per tensor: the clamp its only reader applies (relu, clip), which its
   * quantisation range already has; the accuracy report compares within
   * it, since nothing downstream sees beyond it */
  float *clamp_lo, *clamp_hi;
  /* graph input 0 is u8 pixels with the preprocessing folded into its
   * quantisation */
  bool pixel_input;
  /* what the integer zero point of the pixel input loses: the real value
   * the device sees plus this is the model's (mean / scale need not be
   * an integer, e.g. 127.5) */
  float input_offset;
  /* float values of the last executed input, per tensor (the executor's
   * buffers) */
  simnpu__ir_exec *exec;
  /* per node: what each conv tap reads on average, for bias correction */
  struct _tap_stats *taps;
} compile_ctx;


static int
place_nodes (compile_ctx * c, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  /* per tensor: produced (directly or through its inputs) by a device or
   * postamble node; produced by a postamble node */
  bool *after_dev = g_new0 (bool, g->n_tensors);
  bool *from_post = g_new0 (bool, g->n_tensors);
  unsigned i, j;
  int ret = 0;

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool dep = false, post_in = false;
    bool dev_ok = simnpu__device_refusal (g, n) == NULL && !c->force_host[i];
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      if (t < 0)
        continue;
      dep |= after_dev[t];
      post_in |= from_post[t];
    }
    if (dep)
      c->place[i] = dev_ok && !post_in ? SIMNPU_SECTION_DEVICE :
          SIMNPU_SECTION_POSTAMBLE;
    else
      c->place[i] = dev_ok ? SIMNPU_SECTION_DEVICE : SIMNPU_SECTION_PREAMBLE;
    for (j = 0; j < n->n_outputs; j++) {
      after_dev[n->outputs[j]] = c->place[i] != SIMNPU_SECTION_PREAMBLE;
      from_post[n->outputs[j]] = c->place[i] == SIMNPU_SECTION_POSTAMBLE;
    }
  }
  /* A preamble result that bypasses the device, or a graph output straight
   * from the preamble, has no place in the three-section model. */
  for (i = 0; i < g->n_nodes && ret == 0; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (c->place[i] != SIMNPU_SECTION_POSTAMBLE)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      int p = t >= 0 ? g->tensors[t].producer : SIMNPU_IR_NONE;
      if (t >= 0 && !g->tensors[t].is_const && (p < 0
              || c->place[p] == SIMNPU_SECTION_PREAMBLE)) {
        ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
            "node '%s' (%s) runs after the device but reads '%s', which "
            "the device does not produce; cut the model with --inputs or "
            "--outputs", n->name, simnpu__ir_op_name (n->op),
            g->tensors[t].name);
        break;
      }
    }
  }
  for (i = 0; i < g->n_outputs && ret == 0; i++) {
    int p = g->tensors[g->outputs[i]].producer;
    if (p < 0 || c->place[p] == SIMNPU_SECTION_PREAMBLE)
      ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "output '%s' does not come from the device or after it",
          g->tensors[g->outputs[i]].name);
  }
  g_free (after_dev);
  g_free (from_post);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Calibration */

/* Per-channel statistics (the last axis) of a tensor over the
 * calibration set: what equalisation balances and what bias correction
 * needs. */
typedef struct
{
  int64_t n_ch;                 /* 0: not collected */
  float *min, *max;
  double *sum;
  int64_t count;                /* values per channel summed */
} chan_stats;

/* The mean input under each tap (kernel position and input channel) of a
 * conv over its output positions, padding included as zeros: the exact
 * expectation bias correction needs, borders and all. */
typedef struct _tap_stats
{
  double *sum;                  /* [kh * kw][in channels]; NULL: none */
  int64_t *inside;              /* [kh * kw]: positions not in padding */
  int64_t count;                /* output positions seen */
} tap_stats;

typedef struct
{
  simnpu__ir_graph *g;
  chan_stats *stats;            /* per tensor, or NULL */
  tap_stats *taps;              /* per node, or NULL */
} observe_ctx;

static void
tap_stats_add (tap_stats * ts, const simnpu__ir_graph * g,
    const simnpu__ir_node * n, const float *x)
{
  const simnpu__ir_tensor *in = &g->tensors[n->inputs[0]];
  const simnpu__ir_tensor *out = &g->tensors[n->outputs[0]];
  const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
  const simnpu__ir_attrs *a = &n->attrs;
  int64_t ih = in->dims[1], iw = in->dims[2], ic = in->dims[3];
  int64_t kh = w->dims[1], kw = w->dims[2], b, oy, ox, i, j, k;

  for (b = 0; b < out->dims[0]; b++)
    for (oy = 0; oy < out->dims[1]; oy++)
      for (ox = 0; ox < out->dims[2]; ox++) {
        for (i = 0; i < kh; i++) {
          int64_t y = oy * a->stride[0] + i * a->dilation[0] - a->pads[0];
          if (y < 0 || y >= ih)
            continue;
          for (j = 0; j < kw; j++) {
            int64_t xx = ox * a->stride[1] + j * a->dilation[1] - a->pads[1];
            const float *px;
            double *acc;
            if (xx < 0 || xx >= iw)
              continue;
            px = x + ((b * ih + y) * iw + xx) * ic;
            acc = ts->sum + (i * kw + j) * ic;
            for (k = 0; k < ic; k++)
              acc[k] += px[k];
            ts->inside[i * kw + j]++;
          }
        }
        ts->count++;
      }
}

static void
tap_stats_free (tap_stats * taps, unsigned n)
{
  unsigned i;

  if (taps == NULL)
    return;
  for (i = 0; i < n; i++) {
    g_free (taps[i].sum);
    g_free (taps[i].inside);
  }
  g_free (taps);
}

static void
chan_stats_add (chan_stats * st, const float *v, int64_t count)
{
  int64_t p, k, n_pos;

  if (st->n_ch <= 0)
    return;
  n_pos = count / st->n_ch;
  for (p = 0; p < n_pos; p++) {
    const float *row = v + p * st->n_ch;
    for (k = 0; k < st->n_ch; k++) {
      float f = row[k];
      if (isnan (f))
        continue;
      st->min[k] = MIN (st->min[k], f);
      st->max[k] = MAX (st->max[k], f);
      st->sum[k] += f;
    }
  }
  st->count += n_pos;
}

static void
chan_stats_init (chan_stats * st, int64_t n_ch)
{
  int64_t k;

  st->n_ch = n_ch;
  st->min = g_new (float, n_ch);
  st->max = g_new (float, n_ch);
  st->sum = g_new0 (double, n_ch);
  st->count = 0;
  for (k = 0; k < n_ch; k++) {
    st->min[k] = INFINITY;
    st->max[k] = -INFINITY;
  }
}

static void
chan_stats_free (chan_stats * stats, unsigned n)
{
  unsigned i;

  if (stats == NULL)
    return;
  for (i = 0; i < n; i++) {
    g_free (stats[i].min);
    g_free (stats[i].max);
    g_free (stats[i].sum);
  }
  g_free (stats);
}

/* Widens tensor t's recorded range to cover v (NaN compares false and is
 * skipped). */
static void
widen_range (simnpu__ir_graph * g, int t, const float *v, int64_t n)
{
  simnpu__ir_tensor *ti = &g->tensors[t];
  float mn = ti->has_range ? ti->min : INFINITY;
  float mx = ti->has_range ? ti->max : -INFINITY;
  int64_t k;

  for (k = 0; k < n; k++) {
    mn = v[k] < mn ? v[k] : mn;
    mx = v[k] > mx ? v[k] : mx;
  }
  if (mn <= mx) {
    ti->min = mn;
    ti->max = mx;
    ti->has_range = true;
  }
}

static void
observe_range (simnpu__ir_exec * x, const simnpu__ir_node * n,
    gpointer user_data)
{
  const simnpu__ir_graph *g = simnpu__ir_exec_graph (x);
  observe_ctx *oc = user_data;
  simnpu__ir_graph *mg = oc->g;
  unsigned i;

  if (oc->taps && oc->taps[n - g->nodes].sum)
    tap_stats_add (&oc->taps[n - g->nodes], g, n,
        simnpu__ir_exec_data (x, n->inputs[0]));

  for (i = 0; i < n->n_outputs; i++) {
    int t = n->outputs[i];
    const simnpu__ir_tensor *ti = &g->tensors[t];
    const float *v;
    int64_t count;
    if (ti->dtype != SIMNPU_IR_F32)
      continue;
    v = simnpu__ir_exec_data (x, t);
    count = simnpu__ir_tensor_elements (ti);
    widen_range (mg, t, v, count);
    if (oc->stats)
      chan_stats_add (&oc->stats[t], v, count);
  }
}


/* Pixels 0..255 through the preprocessing, as images would give. */
static float *
random_input (const simnpu__ir_tensor * t, const simnpu__compile_options * o,
    GRand * rand)
{
  int64_t n = simnpu__ir_tensor_elements (t), k;
  unsigned channels = t->rank == 4 ? (unsigned) t->dims[3] : 1;
  float *v = g_new (float, n);

  for (k = 0; k < n; k++) {
    float p = (float) g_rand_int_range (rand, 0, 256);
    unsigned ch = channels <= 3 ? (unsigned) (k % channels) : 0;
    if (o->has_preprocess)
      p = (p * o->preprocess.scale - o->preprocess.mean[ch]) /
          o->preprocess.std[ch];
    v[k] = p;
  }
  return v;
}

static int
run_float (compile_ctx * c, const float *input, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  int t = g->inputs[0];

  memcpy (simnpu__ir_exec_data (c->exec, t), input,
      simnpu__ir_tensor_bytes (&g->tensors[t]));
  return simnpu__ir_exec_run (c->exec, 0, g->n_nodes, error);
}

/* The tensors whose per-channel statistics are worth collecting: the
 * data inputs of device convs and matmuls. */
static chan_stats *
stats_for_conv_inputs (compile_ctx * c)
{
  simnpu__ir_graph *g = c->g;
  chan_stats *st = g_new0 (chan_stats, g->n_tensors);
  unsigned i;

  tap_stats_free (c->taps, g->n_nodes);
  c->taps = g_new0 (tap_stats, g->n_nodes);

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    const simnpu__ir_tensor *t;
    if ((n->op != SIMNPU_IR_CONV2D && n->op != SIMNPU_IR_MATMUL)
        || c->place[i] != SIMNPU_SECTION_DEVICE)
      continue;
    t = &g->tensors[n->inputs[0]];
    if (st[n->inputs[0]].n_ch == 0 && t->rank > 0 && t->dims[t->rank - 1] > 0)
      chan_stats_init (&st[n->inputs[0]], t->dims[t->rank - 1]);
    if (n->op == SIMNPU_IR_CONV2D && t->rank == 4) {
      const simnpu__ir_tensor *w = &g->tensors[n->inputs[1]];
      int64_t taps = w->dims[1] * w->dims[2];
      c->taps[i].sum = g_new0 (double, taps * t->dims[3]);
      c->taps[i].inside = g_new0 (int64_t, taps);
    }
  }
  return st;
}

/* Records every tensor's range and, where stats has a slot, its
 * per-channel statistics. */
static int
calibrate (compile_ctx * c, GPtrArray * inputs, chan_stats * stats,
    simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  int in = g->inputs[0];
  int64_t n_in = simnpu__ir_tensor_elements (&g->tensors[in]);
  observe_ctx oc = { g, stats, stats ? c->taps : NULL };
  unsigned i;
  int ret = 0;

  for (i = 0; i < g->n_tensors; i++)
    g->tensors[i].has_range = false;
  simnpu__ir_exec_set_observer (c->exec, observe_range, &oc);
  for (i = 0; i < inputs->len && ret == 0; i++) {
    widen_range (g, in, inputs->pdata[i], n_in);
    if (stats)
      chan_stats_add (&stats[in], inputs->pdata[i], n_in);
    ret = run_float (c, inputs->pdata[i], error);
  }
  simnpu__ir_exec_set_observer (c->exec, NULL, NULL);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Cross-layer equalisation */

/* A constant that only node i reads: rescaling it changes nothing else. */
static bool
own_const (const compile_ctx * c, int t)
{
  return t >= 0 && c->g->tensors[t].is_const && c->consumers[t] == 1
      && c->g->tensors[t].dtype == SIMNPU_IR_F32;
}

static bool
has_own_bias (const compile_ctx * c, const simnpu__ir_node * n)
{
  return n->n_inputs > 2 && n->inputs[2] >= 0;
}

/* The conv whose output channels reach node i's data input one to one:
 * through relu or identity only (positive homogeneous, so f (x / s) =
 * f (x) / s for s > 0), every tensor on the way read by nothing else.
 * Returns its node index or -1. */
static int
equalizable_producer (const compile_ctx * c, unsigned i)
{
  const simnpu__ir_graph *g = c->g;
  int t = g->nodes[i].inputs[0];

  while (t >= 0 && c->consumers[t] == 1 && !simnpu__ir_is_graph_output (g, t)) {
    int p = g->tensors[t].producer;
    const simnpu__ir_node *n;
    if (p < 0 || c->place[p] != SIMNPU_SECTION_DEVICE)
      return -1;
    n = &g->nodes[p];
    if (n->op == SIMNPU_IR_RELU || n->op == SIMNPU_IR_IDENTITY) {
      t = n->inputs[0];
      continue;
    }
    if (n->op != SIMNPU_IR_CONV2D || (n->attrs.act != SIMNPU_IR_ACT_NONE
            && n->attrs.act != SIMNPU_IR_ACT_RELU)
        || !own_const (c, n->inputs[1])
        || (has_own_bias (c, n) && !own_const (c, n->inputs[2])))
      return -1;
    return p;
  }
  return -1;
}

/* Cross-layer equalisation (Nagel et al. 2019) of conv1 -> conv2 pairs:
 * output channel k of conv1 is divided by s_k and input channel k of
 * conv2 multiplied by it, which leaves the float function unchanged.
 * Weights are quantised per output channel, so conv1's own weights do not
 * care; what s_k balances is the per-tensor activation between them
 * (range r_k of channel k on the calibration set) against conv2's
 * per-row weights (range w_k of column k): s_k = sqrt (r_k / w_k) makes
 * both sqrt (r_k * w_k), the paper's rule with the activation range in
 * place of conv1's weight range. Returns the number of pairs. */
static unsigned
equalize (compile_ctx * c, const chan_stats * stats)
{
  simnpu__ir_graph *g = c->g;
  unsigned i, pairs = 0;

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n2 = &g->nodes[i];
    const simnpu__ir_node *n1;
    const chan_stats *st;
    simnpu__ir_tensor *w1, *w2;
    float *b1 = NULL, *wd1, *wd2;
    int64_t ic, oc2, klen1, pos2, k, j;
    int p;
    if (n2->op != SIMNPU_IR_CONV2D || n2->attrs.groups != 1
        || c->place[i] != SIMNPU_SECTION_DEVICE
        || !own_const (c, n2->inputs[1]))
      continue;
    if ((p = equalizable_producer (c, i)) < 0)
      continue;
    n1 = &g->nodes[p];
    st = &stats[n2->inputs[0]];
    w1 = &g->tensors[n1->inputs[1]];
    w2 = &g->tensors[n2->inputs[1]];
    ic = w2->dims[3];
    if (st->n_ch != ic || st->count == 0 || w1->dims[0] != ic)
      continue;
    if (has_own_bias (c, n1))
      b1 = g->tensors[n1->inputs[2]].data;
    wd1 = w1->data;
    wd2 = w2->data;
    klen1 = simnpu__ir_tensor_elements (w1) / ic;
    oc2 = w2->dims[0];
    pos2 = w2->dims[1] * w2->dims[2];
    for (k = 0; k < ic; k++) {
      double r = (double) MAX (st->max[k], 0.0f) - MIN (st->min[k], 0.0f);
      double wr = 0.0, sk;
      for (j = 0; j < oc2 * pos2; j++)
        wr = MAX (wr, fabs (wd2[j * ic + k]));
      if (!(r > EQ_MIN_RANGE) || !(wr > EQ_MIN_RANGE))
        continue;
      sk = CLAMP (sqrt (r / wr), 1.0 / EQ_MAX_SCALE, EQ_MAX_SCALE);
      for (j = 0; j < klen1; j++)
        wd1[k * klen1 + j] = (float) (wd1[k * klen1 + j] / sk);
      if (b1)
        b1[k] = (float) (b1[k] / sk);
      for (j = 0; j < oc2 * pos2; j++)
        wd2[j * ic + k] = (float) (wd2[j * ic + k] * sk);
    }
    pairs++;
  }
  return pairs;
}

/* ------------------------------------------------------------------ */
/* Quantisation parameters */

static void
range_to_q (float mn, float mx, float *scale, int32_t * zp)
{
  double s, z;

  mn = MIN (mn, 0.0f);
  mx = MAX (mx, 0.0f);
  if (mx - mn < MIN_RANGE)
    mx = mn + MIN_RANGE;
  s = ((double) mx - mn) / (I8_MAX - I8_MIN);
  z = round (I8_MIN - mn / s);
  *scale = (float) s;
  *zp = (int32_t) CLAMP (z, I8_MIN, I8_MAX);
}

/* Whether op keeps its input's quantisation on its outputs (the device
 * kernels move int8 values without requantising). */
static bool
op_keeps_quant (simnpu__ir_op op)
{
  switch (op) {
    case SIMNPU_IR_RESHAPE:
    case SIMNPU_IR_TRANSPOSE:
    case SIMNPU_IR_SPLIT:
    case SIMNPU_IR_SLICE:
    case SIMNPU_IR_MAXPOOL:
    case SIMNPU_IR_AVGPOOL:
    case SIMNPU_IR_RESIZE:
    case SIMNPU_IR_PAD:
    case SIMNPU_IR_IDENTITY:
      return true;
    default:
      return false;
  }
}

static bool
name_in (char **names, const char *name)
{
  for (; names && *names; names++)
    if (strcmp (*names, name) == 0)
      return true;
  return false;
}

/* The quantisation of the image input when the preprocessing folds into
 * it: u8 pixels with real = scale / std * (pixel - mean / scale). */
static bool
pixel_quant (const simnpu__preprocess * pp, float *scale, int32_t * zp_u8)
{
  if (pp->std[0] != pp->std[1] || pp->std[0] != pp->std[2]
      || pp->mean[0] != pp->mean[1] || pp->mean[0] != pp->mean[2]
      || !(pp->scale > 0.0f) || !(pp->std[0] > 0.0f))
    return false;
  *scale = pp->scale / pp->std[0];
  *zp_u8 = (int32_t) lround (pp->mean[0] / pp->scale);
  return *zp_u8 >= 0 && *zp_u8 <= 255;
}

static int
assign_quant (compile_ctx * c, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  const simnpu__compile_options *o = c->opts;
  unsigned i, j;

  for (i = 0; i < g->n_tensors; i++) {
    c->clamp_lo[i] = -INFINITY;
    c->clamp_hi[i] = INFINITY;
  }
  /* logits: inputs of sigmoid and softmax, and outputs named as such */
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (n->op == SIMNPU_IR_SIGMOID || n->op == SIMNPU_IR_SOFTMAX)
      c->is_logit[n->inputs[0]] = true;
  }
  for (i = 0; i < g->n_outputs; i++)
    if (name_in (o->logit_outputs, g->tensors[g->outputs[i]].name))
      c->is_logit[g->outputs[i]] = true;
  /* ops that keep their input's quantisation pass the rule back to the
   * tensor that sets it */
  for (i = g->n_nodes; i-- > 0;) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (op_keeps_quant (n->op) && c->is_logit[n->outputs[0]])
      c->is_logit[n->inputs[0]] = true;
  }

  for (i = 0; i < g->n_inputs; i++) {
    int t = g->inputs[i];
    const simnpu__ir_tensor *ti = &g->tensors[t];
    int32_t zp_u8;
    if (i == 0 && o->has_preprocess && pixel_quant (&o->preprocess,
            &c->q_scale[t], &zp_u8)) {
      c->q_zp[t] = zp_u8 - U8_TO_I8_ZP;
      c->pixel_input = true;
      c->input_offset = c->q_scale[t] * ((float) zp_u8 -
          o->preprocess.mean[0] / o->preprocess.scale);
    } else if (ti->has_range) {
      range_to_q (ti->min, ti->max, &c->q_scale[t], &c->q_zp[t]);
    } else {
      return simnpu__set_error (error, SIMNPU_EINVAL,
          "input '%s': no calibration data reached it", ti->name);
    }
    c->has_q[t] = true;
  }

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    if (c->place[i] != SIMNPU_SECTION_DEVICE)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      const simnpu__ir_tensor *ti;
      if (t < 0 || c->has_q[t])
        continue;
      ti = &g->tensors[t];
      if (ti->is_const) {
        const float *v = ti->data;
        int64_t k, count = simnpu__ir_tensor_elements (ti);
        float mn = 0.0f, mx = 0.0f;
        for (k = 0; k < count; k++) {
          mn = MIN (mn, v[k]);
          mx = MAX (mx, v[k]);
        }
        range_to_q (mn, mx, &c->q_scale[t], &c->q_zp[t]);
      } else if (ti->has_range) {
        /* a device input produced by the preamble */
        range_to_q (ti->min, ti->max, &c->q_scale[t], &c->q_zp[t]);
      } else {
        return simnpu__set_error (error, SIMNPU_EINVAL,
            "tensor '%s': calibration never produced it", ti->name);
      }
      c->has_q[t] = true;
    }
    for (j = 0; j < n->n_outputs; j++) {
      int t = n->outputs[j];
      const simnpu__ir_tensor *ti = &g->tensors[t];
      float mn, mx;
      if (op_keeps_quant (n->op)) {
        c->q_scale[t] = c->q_scale[n->inputs[0]];
        c->q_zp[t] = c->q_zp[n->inputs[0]];
        c->has_q[t] = true;
        continue;
      }
      if (!ti->has_range)
        return simnpu__set_error (error, SIMNPU_EINVAL,
            "node '%s' (%s): calibration never produced '%s' (NaN or "
            "empty)", n->name, simnpu__ir_op_name (n->op), ti->name);
      mn = ti->min;
      mx = ti->max;
      /* A result whose only reader clamps it (relu, clip) needs only the
       * clamped range: the int8 result saturates where the clamp would
       * cut, with twice the resolution for what is kept. */
      if (c->consumers[t] == 1 && !simnpu__ir_is_graph_output (g, t)) {
        const simnpu__ir_node *r = &g->nodes[c->reader[t]];
        if (c->place[c->reader[t]] == SIMNPU_SECTION_DEVICE
            && (r->op == SIMNPU_IR_RELU || r->op == SIMNPU_IR_CLIP)) {
          float lo = r->op == SIMNPU_IR_RELU ? 0.0f : r->attrs.f[0];
          float hi = r->op == SIMNPU_IR_RELU ? INFINITY : r->attrs.f[1];
          mn = MAX (mn, lo);
          mx = MIN (mx, hi);
          if (mx < mn)
            mx = mn;
          c->clamp_lo[t] = lo;
          c->clamp_hi[t] = hi;
        }
      }
      /* Background logits far below zero would stretch the range until
       * moderate negatives round to zero, i.e. score 0.5. */
      if (c->is_logit[t] && mn < o->logit_floor)
        mn = o->logit_floor;
      range_to_q (mn, mx, &c->q_scale[t], &c->q_zp[t]);
      c->has_q[t] = true;
    }
  }
  return 0;
}

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

static int8_t
quantize_one (float v, float scale, int32_t zp)
{
  double q = round ((double) v / scale) + zp;
  return (int8_t) CLAMP (q, I8_MIN, I8_MAX);
}

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
    /* a channel of tiny weights beside a large bias: a scale that keeps
     * the bias inside the device's int32 range */
    s = MAX (s, (float) (fabs (b) / ((double) in_scale * MAX_BIAS_ABS) *
            (1.0 + 1e-6)));
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
  float in_offset = n->inputs[0] == c->g->inputs[0] && c->pixel_input ?
      c->input_offset : 0.0f;
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

  for (i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] >= 0)
      ins[n_in++] = dev_of (l, n->inputs[i]);
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
    default:
      break;
  }

  if (is_unary_lut (n->op)) {
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
static int
lower (compile_ctx * c, const chan_stats * stats, simnpu__graph ** out,
    simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  const simnpu__compile_options *o = c->opts;
  lowering l = { 0 };
  simnpu__graph *dg;
  unsigned i, j;
  int ret = 0;

  l.c = c;
  l.tensors = g_array_new (FALSE, TRUE, sizeof (simnpu__tensor));
  l.ops = g_array_new (FALSE, TRUE, sizeof (simnpu__op));
  l.map = g_new (int, g->n_tensors);
  l.stats = stats;
  for (i = 0; i < g->n_tensors; i++)
    l.map[i] = -1;
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
  for (i = 0; i < g->n_tensors && ret == 0; i++) {
    int p = g->tensors[i].producer;
    bool used_after = simnpu__ir_is_graph_output (g, (int) i);
    simnpu__tensor *dt;
    if (p < 0 || c->place[p] != SIMNPU_SECTION_DEVICE || l.map[i] < 0)
      continue;
    for (j = 0; j < g->n_nodes && !used_after; j++) {
      const simnpu__ir_node *n = &g->nodes[j];
      unsigned k;
      if (c->place[j] != SIMNPU_SECTION_POSTAMBLE)
        continue;
      for (k = 0; k < n->n_inputs; k++)
        used_after |= n->inputs[k] == (int) i;
    }
    if (!used_after)
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

  dg->n_tensors = l.tensors->len;
  dg->tensors = (simnpu__tensor *) g_array_free (l.tensors, FALSE);
  dg->n_ops = l.ops->len;
  dg->ops = (simnpu__op *) g_array_free (l.ops, FALSE);
  g_free (l.map);
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
  if (ret == 0)
    ret = simnpu__graph_prepare (dg, error);
  if (ret < 0) {
    simnpu__graph_free (dg);
    return ret;
  }
  *out = dg;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Host sections */

static int
copy_tensor_into (simnpu__ir_graph * dst, const simnpu__ir_graph * src,
    int t, int *map)
{
  const simnpu__ir_tensor *s = &src->tensors[t];

  if (map[t] >= 0)
    return map[t];
  if (s->is_const) {
    size_t bytes = simnpu__ir_tensor_bytes (s);
    map[t] = simnpu__ir_add_const (dst, s->name, s->dtype, s->rank, s->dims,
        g_memdup2 (s->data, bytes));
  } else {
    map[t] = simnpu__ir_add_tensor (dst, s->name, s->dtype, s->rank, s->dims);
  }
  return map[t];
}

/* The nodes of one host section as a graph of their own: inputs are the
 * non-constant tensors they read and do not make; outputs what they make
 * that others read or the model returns. */
static int
extract_section (compile_ctx * c, simnpu__section which,
    simnpu__ir_graph ** out, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  simnpu__ir_graph *s;
  int *map;
  bool *made;
  unsigned i, j, k;
  int ret;

  *out = NULL;
  for (i = 0; i < g->n_nodes; i++)
    if (c->place[i] == which)
      break;
  if (i == g->n_nodes)
    return 0;
  s = simnpu__ir_graph_new (which == SIMNPU_SECTION_PREAMBLE ? "preamble" :
      "postamble");
  map = g_new (int, g->n_tensors);
  made = g_new0 (bool, g->n_tensors);
  for (i = 0; i < g->n_tensors; i++)
    map[i] = -1;
  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    int ins[SIMNPU_IR_MAX_INPUTS], outs[SIMNPU_IR_MAX_OUTPUTS];
    simnpu__ir_node *m;
    if (c->place[i] != which)
      continue;
    for (j = 0; j < n->n_inputs; j++) {
      int t = n->inputs[j];
      if (t < 0) {
        ins[j] = SIMNPU_IR_NONE;
        continue;
      }
      if (!made[t] && !g->tensors[t].is_const && map[t] < 0) {
        if (s->n_inputs >= SIMNPU_IR_MAX_INPUTS) {
          ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
              "%s: more than %d inputs", s->name, SIMNPU_IR_MAX_INPUTS);
          goto fail;
        }
        copy_tensor_into (s, g, t, map);
        s->inputs[s->n_inputs++] = map[t];
      }
      ins[j] = copy_tensor_into (s, g, t, map);
    }
    for (j = 0; j < n->n_outputs; j++) {
      outs[j] = copy_tensor_into (s, g, n->outputs[j], map);
      made[n->outputs[j]] = true;
    }
    m = simnpu__ir_add_node (s, n->op, n->name, n->n_inputs, ins,
        n->n_outputs, outs);
    m->attrs = n->attrs;
  }
  for (i = 0; i < g->n_tensors; i++) {
    bool used = false;
    if (!made[i])
      continue;
    used = simnpu__ir_is_graph_output (g, (int) i);
    for (j = 0; j < g->n_nodes && !used; j++) {
      if (c->place[j] == which)
        continue;
      for (k = 0; k < g->nodes[j].n_inputs; k++)
        used |= g->nodes[j].inputs[k] == (int) i;
    }
    if (!used)
      continue;
    if (s->n_outputs >= SIMNPU_IR_MAX_OUTPUTS) {
      ret = simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
          "%s: more than %d outputs", s->name, SIMNPU_IR_MAX_OUTPUTS);
      goto fail;
    }
    s->outputs[s->n_outputs++] = map[i];
  }
  if ((ret = simnpu__ir_infer_shapes (s, error)) < 0)
    goto fail;
  g_free (map);
  g_free (made);
  *out = s;
  return 0;

fail:
  g_free (map);
  g_free (made);
  simnpu__ir_graph_free (s);
  return ret;
}

/* ------------------------------------------------------------------ */
/* Accuracy: int8 device results against the float executor */

typedef struct
{
  double sig, noise;            /* sums of squares */
  double fg_sig, fg_noise;
  uint64_t fg_n;
  uint64_t n;
} sqnr_acc;

static double
sqnr_db (double sig, double noise)
{
  if (sig <= 0.0)
    return NAN;
  if (noise <= 0.0)
    return INFINITY;
  return 10.0 * log10 (sig / noise);
}

typedef struct
{
  uint8_t *arena;
  int8_t *scratch;
  int *ir_of_dev;               /* device tensor -> IR tensor or -1 */
  sqnr_acc *acc;                /* per device tensor */
} evaluator;

static void
evaluator_init (evaluator * e, const simnpu__graph * dg,
    const simnpu__ir_graph * g)
{
  unsigned i;

  e->arena = g_malloc0 (dg->arena_bytes + 64);
  e->scratch = g_malloc0 (dg->scratch_bytes + 64);
  e->ir_of_dev = g_new (int, dg->n_tensors);
  e->acc = g_new0 (sqnr_acc, dg->n_tensors);
  for (i = 0; i < dg->n_tensors; i++)
    e->ir_of_dev[i] = dg->tensors[i].kind == SIMNPU_TENSOR_CONSTANT ? -1 :
        simnpu__ir_find_tensor (g, dg->tensors[i].name);
}

static void
evaluator_clear (evaluator * e)
{
  g_free (e->arena);
  g_free (e->scratch);
  g_free (e->ir_of_dev);
  g_free (e->acc);
}

static float
sigmoidf (float x)
{
  return 1.0f / (1.0f + expf (-x));
}

/* Foreground positions of the float run: position p (all axes but the
 * last) of a listed output holds an object when any of its values passes
 * the threshold. One mask per listed output. */
typedef struct
{
  int64_t n_pos;
  bool *mask;
} fg_mask;

static GArray *
foreground_masks (compile_ctx * c)
{
  const simnpu__compile_options *o = c->opts;
  GArray *masks = g_array_new (FALSE, FALSE, sizeof (fg_mask));
  char **name;

  for (name = o->fg_outputs; name && *name; name++) {
    int ti = simnpu__ir_find_tensor (c->g, *name);
    const simnpu__ir_tensor *t;
    int64_t count, inner, p, k;
    const float *v;
    fg_mask m;
    if (ti < 0)
      continue;
    t = &c->g->tensors[ti];
    count = simnpu__ir_tensor_elements (t);
    inner = t->rank ? t->dims[t->rank - 1] : 1;
    m.n_pos = count / inner;
    m.mask = g_new0 (bool, m.n_pos);
    v = simnpu__ir_exec_data (c->exec, ti);
    for (p = 0; p < m.n_pos; p++)
      for (k = 0; k < inner; k++) {
        float s = v[p * inner + k];
        if ((o->fg_logit ? sigmoidf (s) : s) > o->fg_threshold)
          m.mask[p] = true;
      }
    g_array_append_val (masks, m);
  }
  return masks;
}

static void
foreground_masks_free (GArray * masks)
{
  unsigned i;

  for (i = 0; i < masks->len; i++)
    g_free (g_array_index (masks, fg_mask, i).mask);
  g_array_free (masks, TRUE);
}

/* The int8 device graph on the float run's device inputs, quantised. */
static int
run_device (compile_ctx * c, const simnpu__graph * dg, evaluator * e,
    simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i;

  for (i = 0; i < dg->n_inputs; i++) {
    const simnpu__tensor *t = &dg->tensors[dg->inputs[i]];
    int it = e->ir_of_dev[dg->inputs[i]];
    const float *v = simnpu__ir_exec_data (c->exec, it);
    int8_t *q = (int8_t *) (e->arena + t->offset);
    int64_t k, count = simnpu__tensor_elements (t);
    /* the pixel input's real zero point may lie between two integers */
    float off = it == g->inputs[0] && c->pixel_input ? c->input_offset : 0.0f;
    for (k = 0; k < count; k++)
      q[k] = quantize_one (v[k] - off, t->scale, t->zero_point);
  }
  if (simnpu__graph_run (dg, e->arena, e->scratch) < 0)
    return simnpu__set_error (error, SIMNPU_EINTERNAL,
        "the int8 device graph failed to run");
  return 0;
}

static int
evaluate_one (compile_ctx * c, const simnpu__graph * dg, evaluator * e,
    const float *input, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  unsigned i;
  int ret;
  GArray *masks;

  if ((ret = run_float (c, input, error)) < 0
      || (ret = run_device (c, dg, e, error)) < 0)
    return ret;
  masks = foreground_masks (c);
  for (i = 0; i < dg->n_tensors; i++) {
    const simnpu__tensor *t = &dg->tensors[i];
    int it = e->ir_of_dev[i];
    const float *v;
    const int8_t *q;
    int64_t k, count, inner;
    sqnr_acc *a = &e->acc[i];
    const bool *fg = NULL;
    unsigned m;
    if (it < 0 || t->kind == SIMNPU_TENSOR_INPUT
        || g->tensors[it].dtype != SIMNPU_IR_F32)
      continue;
    v = simnpu__ir_exec_data (c->exec, it);
    q = (const int8_t *) (e->arena + t->offset);
    count = simnpu__tensor_elements (t);
    inner = t->n_dims ? t->dims[t->n_dims - 1] : 1;
    for (m = 0; m < masks->len && fg == NULL; m++)
      if (g_array_index (masks, fg_mask, m).n_pos == count / inner)
        fg = g_array_index (masks, fg_mask, m).mask;
    for (k = 0; k < count; k++) {
      double ref = CLAMP (v[k], c->clamp_lo[it], c->clamp_hi[it]);
      double got = (double) t->scale * (q[k] - t->zero_point);
      double d = got - ref;
      a->sig += ref * ref;
      a->noise += d * d;
      a->n++;
      if (fg != NULL && fg[k / inner]) {
        a->fg_sig += ref * ref;
        a->fg_noise += d * d;
        a->fg_n++;
      }
    }
  }
  foreground_masks_free (masks);
  return 0;
}

static int
evaluate (compile_ctx * c, const simnpu__graph * dg, GPtrArray * inputs,
    evaluator * e, simnpu_error * error)
{
  unsigned i;
  int ret = 0;

  memset (e->acc, 0, dg->n_tensors * sizeof (sqnr_acc));
  for (i = 0; i < inputs->len && ret == 0; i++)
    ret = evaluate_one (c, dg, e, inputs->pdata[i], error);
  return ret;
}

typedef struct
{
  unsigned dev;
  double db;
} layer_db;

static int
cmp_layer_db (gconstpointer a, gconstpointer b)
{
  const layer_db *x = a, *y = b;
  return (x->db > y->db) - (x->db < y->db);
}

static void
report_accuracy (compile_ctx * c, const simnpu__graph * dg,
    const evaluator * calib, const evaluator * valid, bool have_valid,
    simnpu__compile_result * r)
{
  const simnpu__ir_graph *g = c->g;
  GString *s = r->text;
  GArray *layers = g_array_new (FALSE, FALSE, sizeof (layer_db));
  unsigned i;

  g_string_append_printf (s, "\nAccuracy (SQNR of int8 against float, dB; "
      "higher is better)\n");
  g_string_append_printf (s, "  %-40s %12s %12s %12s %12s\n",
      "device output", "calibration", "validation", "fg calib", "fg valid");
  r->n_outputs = dg->n_outputs;
  r->outputs = g_new0 (simnpu__output_accuracy, dg->n_outputs);
  for (i = 0; i < dg->n_outputs; i++) {
    unsigned d = dg->outputs[i];
    const sqnr_acc *a = &calib->acc[d];
    const sqnr_acc *v = have_valid ? &valid->acc[d] : NULL;
    simnpu__output_accuracy *oa = &r->outputs[i];
    oa->name = g_strdup (dg->tensors[d].name);
    oa->sqnr_calib_db = sqnr_db (a->sig, a->noise);
    oa->sqnr_valid_db = v ? sqnr_db (v->sig, v->noise) : NAN;
    oa->fg_sqnr_calib_db = a->fg_n ? sqnr_db (a->fg_sig, a->fg_noise) : NAN;
    oa->fg_sqnr_valid_db = v && v->fg_n ? sqnr_db (v->fg_sig, v->fg_noise) :
        NAN;
    oa->fg_elements_valid = v ? v->fg_n : 0;
    g_string_append_printf (s, "  %-40s %12.1f %12.1f %12.1f %12.1f\n",
        oa->name, oa->sqnr_calib_db, oa->sqnr_valid_db, oa->fg_sqnr_calib_db,
        oa->fg_sqnr_valid_db);
  }
  for (i = 0; i < dg->n_tensors; i++) {
    const sqnr_acc *a = have_valid ? &valid->acc[i] : &calib->acc[i];
    layer_db l = { i, sqnr_db (a->sig, a->noise) };
    if (calib->ir_of_dev[i] < 0 || dg->tensors[i].producer < 0 || isnan (l.db))
      continue;
    g_array_append_val (layers, l);
  }
  if (g_getenv ("SIMNPU_COMPILE_LAYERS"))
    for (i = 0; i < layers->len; i++) {
      const layer_db *l = &g_array_index (layers, layer_db, i);
      const sqnr_acc *a = have_valid ? &valid->acc[l->dev] :
          &calib->acc[l->dev];
      double rms = a->n ? sqrt (a->sig / a->n) : 0.0;
      double step = dg->tensors[l->dev].scale;
      g_string_append_printf (s, "    layer %-60s %8.1f  rms %.4g step %.4g "
          "rounding-only %.1f\n", dg->tensors[l->dev].name, l->db, rms, step,
          10.0 * log10 (rms * rms * 12.0 / (step * step)));
    }
  g_array_sort (layers, cmp_layer_db);
  g_string_append_printf (s, "  worst layers (%s):\n", have_valid ?
      "validation" : "calibration");
  for (i = 0; i < layers->len && i < N_WORST_LAYERS; i++) {
    const layer_db *l = &g_array_index (layers, layer_db, i);
    int it = calib->ir_of_dev[l->dev];
    int p = g->tensors[it].producer;
    g_string_append_printf (s, "    %-40s %8.1f  (%s)\n",
        dg->tensors[l->dev].name, l->db, p >= 0 ?
        simnpu__ir_op_name (g->nodes[p].op) : "input");
  }
  g_array_free (layers, TRUE);
}

static void
report_placement (compile_ctx * c, simnpu__compile_result * r)
{
  const simnpu__ir_graph *g = c->g;
  GString *s = r->text;
  /* per op and section: node count and MACs */
  unsigned counts[SIMNPU_IR_N_OPS][3] = { {0} };
  uint64_t macs[SIMNPU_IR_N_OPS][3] = { {0} };
  const char *refusal[SIMNPU_IR_N_OPS] = { 0 };
  static const char *const section_names[] = {
    [SIMNPU_SECTION_PREAMBLE] = "preamble",
    [SIMNPU_SECTION_POSTAMBLE] = "postamble",
    [SIMNPU_SECTION_DEVICE] = "device",
  };
  unsigned i, k;

  for (i = 0; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    const simnpu__ir_op_info *info = simnpu__ir_op_get (n->op);
    uint64_t m = info && info->cost ? info->cost (g, n) : 0;
    counts[n->op][c->place[i]]++;
    macs[n->op][c->place[i]] += m;
    if (c->place[i] == SIMNPU_SECTION_DEVICE)
      r->device_macs += m;
    else
      r->host_macs += m;
    if (c->place[i] != SIMNPU_SECTION_DEVICE && refusal[n->op] == NULL)
      refusal[n->op] = simnpu__device_refusal (g, n);
  }
  g_string_append_printf (s, "Placement (%u nodes)\n", g->n_nodes);
  g_string_append_printf (s, "  %-16s %-10s %6s %14s  %s\n", "op", "section",
      "nodes", "MACs", "why on the host");
  for (i = 0; i < SIMNPU_IR_N_OPS; i++)
    for (k = 0; k < 3; k++)
      if (counts[i][k])
        g_string_append_printf (s, "  %-16s %-10s %6u %14" G_GUINT64_FORMAT
            "  %s\n", simnpu__ir_op_name ((simnpu__ir_op) i),
            section_names[k], counts[i][k], macs[i][k],
            k != SIMNPU_SECTION_DEVICE && refusal[i] ? refusal[i] : "");
  g_string_append_printf (s, "  device MACs %.3f M, host MACs %.3f M (%.1f%% "
      "on the device)\n", r->device_macs / 1e6, r->host_macs / 1e6,
      r->device_macs + r->host_macs ? 100.0 * r->device_macs /
      (double) (r->device_macs + r->host_macs) : 0.0);
}

static uint64_t
node_macs (const simnpu__ir_graph * g, unsigned i)
{
  const simnpu__ir_op_info *info = simnpu__ir_op_get (g->nodes[i].op);

  return info && info->cost ? info->cost (g, &g->nodes[i]) : 0;
}

/* Marks in in_set node from and every node that depends on it (what
 * moves to the postamble with it); returns the MACs of those still on the
 * device and not yet moved, and in *n_dev how many they are. */
static uint64_t
suffix_of (const compile_ctx * c, unsigned from, const bool *moved,
    bool *in_set, bool *tainted, unsigned *n_dev)
{
  const simnpu__ir_graph *g = c->g;
  uint64_t macs = 0;
  unsigned i, j;

  *n_dev = 0;

  memset (in_set, 0, g->n_nodes * sizeof (bool));
  memset (tainted, 0, g->n_tensors * sizeof (bool));
  for (i = from; i < g->n_nodes; i++) {
    const simnpu__ir_node *n = &g->nodes[i];
    bool dep = i == from;
    for (j = 0; j < n->n_inputs && !dep; j++)
      dep = n->inputs[j] >= 0 && tainted[n->inputs[j]];
    if (!dep)
      continue;
    in_set[i] = true;
    for (j = 0; j < n->n_outputs; j++)
      tainted[n->outputs[j]] = true;
    if (c->place[i] == SIMNPU_SECTION_DEVICE && !moved[i]) {
      macs += node_macs (g, i);
      (*n_dev)++;
    }
  }
  return macs;
}

/* The device-made data input of node p nearest to it (latest producer):
 * the next step back towards the device section's start. */
static int
nearest_device_input (const compile_ctx * c, unsigned p)
{
  const simnpu__ir_graph *g = c->g;
  const simnpu__ir_node *n = &g->nodes[p];
  int best = -1, best_p = -1;
  unsigned j;

  for (j = 0; j < n->n_inputs; j++) {
    int t = n->inputs[j], q;
    if (t < 0 || g->tensors[t].is_const)
      continue;
    q = g->tensors[t].producer;
    if (q >= 0 && c->place[q] == SIMNPU_SECTION_DEVICE && q > best_p) {
      best_p = q;
      best = t;
    }
  }
  return best;
}

/* The model's outputs as an application gets them: the postamble run in
 * float on the int8 device results, against the float model. acc has one
 * entry per postamble output. */
static int
evaluate_public (compile_ctx * c, const simnpu__graph * dg,
    GPtrArray * inputs, sqnr_acc * acc, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g, *post = dg->postamble;
  simnpu__ir_exec *px;
  evaluator e;
  unsigned i, j;
  int ret = 0;

  if ((px = simnpu__ir_exec_new (post, error)) == NULL)
    return error->code ? error->code : SIMNPU_ENOMEM;
  evaluator_init (&e, dg, g);
  for (i = 0; i < inputs->len && ret == 0; i++) {
    GArray *masks;
    if ((ret = run_float (c, inputs->pdata[i], error)) < 0
        || (ret = run_device (c, dg, &e, error)) < 0)
      break;
    for (j = 0; j < post->n_inputs; j++) {
      const char *name = post->tensors[post->inputs[j]].name;
      float *dst = simnpu__ir_exec_data (px, post->inputs[j]);
      unsigned d;
      for (d = 0; d < dg->n_tensors; d++)
        if (strcmp (dg->tensors[d].name, name) == 0) {
          const simnpu__tensor *t = &dg->tensors[d];
          const int8_t *q = (const int8_t *) (e.arena + t->offset);
          int64_t k, count = simnpu__tensor_elements (t);
          for (k = 0; k < count; k++)
            dst[k] = t->scale * (float) (q[k] - t->zero_point);
          break;
        }
    }
    if ((ret = simnpu__ir_exec_run (px, 0, post->n_nodes, error)) < 0)
      break;
    masks = foreground_masks (c);
    for (j = 0; j < post->n_outputs; j++) {
      const simnpu__ir_tensor *pt = &post->tensors[post->outputs[j]];
      int it = simnpu__ir_find_tensor (g, pt->name);
      float *got = simnpu__ir_exec_data (px, post->outputs[j]);
      const float *ref;
      const bool *fg = NULL;
      int64_t k, count, inner;
      unsigned m;
      if (it < 0 || pt->dtype != SIMNPU_IR_F32)
        continue;
      ref = simnpu__ir_exec_data (c->exec, it);
      count = simnpu__ir_tensor_elements (pt);
      if (dg->has_postamble_quant
          && dg->postamble_quant[j].dtype != SIMNPU_DTYPE_F32) {
        /* what the caller gets: the runtime's rounding (host.c) */
        float scale = dg->postamble_quant[j].scale, inv = 1.0f / scale;
        float zp = (float) dg->postamble_quant[j].zero_point;
        float lo = dg->postamble_quant[j].dtype == SIMNPU_DTYPE_U8 ? 0.0f :
            (float) I8_MIN;
        float hi = dg->postamble_quant[j].dtype == SIMNPU_DTYPE_U8 ?
            (float) G_MAXUINT8 : (float) I8_MAX;
        for (k = 0; k < count; k++) {
          float v = got[k] * inv + zp;
          v = isnan (v) ? zp : CLAMP (v, lo, hi);
          got[k] = scale * (rintf (v) - zp);
        }
      }
      inner = pt->rank ? pt->dims[pt->rank - 1] : 1;
      for (m = 0; m < masks->len && fg == NULL; m++)
        if (g_array_index (masks, fg_mask, m).n_pos == count / inner)
          fg = g_array_index (masks, fg_mask, m).mask;
      for (k = 0; k < count; k++) {
        double dv = (double) got[k] - ref[k];
        acc[j].sig += (double) ref[k] * ref[k];
        acc[j].noise += dv * dv;
        acc[j].n++;
        if (fg != NULL && fg[k / inner]) {
          acc[j].fg_sig += (double) ref[k] * ref[k];
          acc[j].fg_noise += dv * dv;
          acc[j].fg_n++;
        }
      }
    }
    foreground_masks_free (masks);
  }
  evaluator_clear (&e);
  simnpu__ir_exec_free (px);
  return ret;
}

static void
report_public (const simnpu__graph * dg, const sqnr_acc * cal,
    const sqnr_acc * val, GString * s)
{
  const simnpu__ir_graph *post = dg->postamble;
  unsigned j;

  g_string_append_printf (s, "  model outputs (the postamble in float on "
      "the int8 device results%s):\n", dg->has_postamble_quant ?
      ", then quantised" : "");
  for (j = 0; j < post->n_outputs; j++)
    g_string_append_printf (s, "  %-40s %12.1f %12.1f %12.1f %12.1f\n",
        post->tensors[post->outputs[j]].name, sqnr_db (cal[j].sig,
            cal[j].noise), val ? sqnr_db (val[j].sig, val[j].noise) : NAN,
        cal[j].fg_n ? sqnr_db (cal[j].fg_sig, cal[j].fg_noise) : NAN,
        val && val[j].fg_n ? sqnr_db (val[j].fg_sig, val[j].fg_noise) : NAN);
}

/* Quantised public outputs: the postamble's float results are quantised
 * at its end like device outputs, each from its range on the calibration
 * set (a sigmoid's [0, 1] gives scale 1/255, zero point -128). */
static void
set_postamble_quant (const compile_ctx * c, simnpu__graph * dg, int dtype)
{
  const simnpu__ir_graph *post = dg->postamble;
  unsigned j;

  for (j = 0; j < post->n_outputs && j < SIMNPU_MAX_IO; j++) {
    const simnpu__ir_tensor *pt = &post->tensors[post->outputs[j]];
    int it = simnpu__ir_find_tensor (c->g, pt->name);
    const simnpu__ir_tensor *t = it >= 0 ? &c->g->tensors[it] : NULL;

    dg->postamble_quant[j].dtype = SIMNPU_DTYPE_F32;
    dg->postamble_quant[j].scale = 1.0f;
    dg->postamble_quant[j].zero_point = 0;
    if (t == NULL || !t->has_range || pt->dtype != SIMNPU_IR_F32
        || dtype != SIMNPU_DTYPE_I8)
      continue;
    dg->postamble_quant[j].dtype = SIMNPU_DTYPE_I8;
    range_to_q (t->min, t->max, &dg->postamble_quant[j].scale,
        &dg->postamble_quant[j].zero_point);
  }
  dg->has_postamble_quant = true;
}

/* Host fallback: for each device output whose int8 SQNR (over the
 * foreground when there is one) is below the bar, the layers that make it
 * run on the host in float: at least back to and including its conv or
 * matmul, and further back (with everything that depends on them) while
 * the MACs moved stay within the share of the model the options allow,
 * since the error of int8 accumulates over the last layers. Returns how
 * many nodes were marked. */
static unsigned
mark_fallback (compile_ctx * c, const simnpu__graph * dg, const evaluator * e,
    GString * text)
{
  const simnpu__ir_graph *g = c->g;
  bool *moved = g_new0 (bool, g->n_nodes);
  bool *in_set = g_new0 (bool, g->n_nodes);
  bool *tainted = g_new0 (bool, g->n_tensors);
  uint64_t total = 0, budget, spent = 0;
  unsigned i, k, marked = 0, n_dev = 0, n_sub;

  for (i = 0; i < g->n_nodes; i++) {
    total += node_macs (g, i);
    n_dev += c->place[i] == SIMNPU_SECTION_DEVICE;
  }
  budget = (uint64_t) (c->opts->fallback_mac_share * (double) total);
  for (i = 0; i < dg->n_outputs; i++) {
    unsigned d = dg->outputs[i];
    const sqnr_acc *a = &e->acc[d];
    double db = a->fg_n ? sqnr_db (a->fg_sig, a->fg_noise) :
        sqnr_db (a->sig, a->noise);
    int t = e->ir_of_dev[d], cut = -1;
    uint64_t cut_macs = 0;
    bool past_conv = false;
    unsigned n_moved = 0;
    if (t < 0 || !(db < c->opts->fallback_db))
      continue;
    while (t >= 0 && g->tensors[t].producer >= 0) {
      int p = g->tensors[t].producer;
      const simnpu__ir_node *n = &g->nodes[p];
      uint64_t macs;
      if (c->place[p] != SIMNPU_SECTION_DEVICE || moved[p])
        break;
      macs = suffix_of (c, (unsigned) p, moved, in_set, tainted, &n_sub);
      /* the device keeps at least one layer */
      if (past_conv && (spent + macs > budget || n_sub + marked >= n_dev))
        break;
      cut = p;
      cut_macs = macs;
      past_conv |= n->op == SIMNPU_IR_CONV2D || n->op == SIMNPU_IR_MATMUL
          || !(op_keeps_quant (n->op) || is_unary_lut (n->op));
      t = nearest_device_input (c, (unsigned) p);
    }
    if (cut < 0)
      continue;
    c->force_host[cut] = true;
    suffix_of (c, (unsigned) cut, moved, in_set, tainted, &n_sub);
    for (k = 0; k < g->n_nodes; k++)
      if (in_set[k] && !moved[k] && c->place[k] == SIMNPU_SECTION_DEVICE) {
        moved[k] = true;
        n_moved++;
      }
    spent += cut_macs;
    marked += n_moved;
    g_string_append_printf (text, "  host fallback: '%s' (%s) and the %u "
        "device layers after it (%.3f M MACs), for output '%s' at %.1f "
        "dB\n", g->nodes[cut].name, simnpu__ir_op_name (g->nodes[cut].op),
        n_moved - 1, cut_macs / 1e6, dg->tensors[d].name, db);
  }
  g_free (moved);
  g_free (in_set);
  g_free (tainted);
  return marked;
}

/* ------------------------------------------------------------------ */

int
simnpu__compile (simnpu__ir_graph * g, const simnpu__compile_options * o,
    simnpu__graph ** out, simnpu__compile_result * r, simnpu_error * error)
{
  compile_ctx c = { 0 };
  GPtrArray *calib = o->calibration, *owned = NULL;
  simnpu__graph *dg = NULL;
  chan_stats *stats = NULL;
  /* the statistics bias correction uses, or NULL */
  const chan_stats *fix = NULL;
  evaluator ecal = { 0 }, eval = { 0 };
  bool have_valid = o->validation && o->validation->len > 0;
  GString *fb = g_string_new (NULL);
  unsigned i;
  int ret;

  *out = NULL;
  memset (r, 0, sizeof (*r));
  r->text = g_string_new (NULL);
  if (g->n_inputs != 1)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "the model has %u inputs; calibration needs exactly one (cut it "
        "with --inputs)", g->n_inputs);
  if (g->tensors[g->inputs[0]].dtype != SIMNPU_IR_F32)
    return simnpu__set_error (error, SIMNPU_EUNSUPPORTED,
        "input '%s' is %s; expected a float input",
        g->tensors[g->inputs[0]].name,
        simnpu__ir_dtype_name (g->tensors[g->inputs[0]].dtype));
  if ((ret = split_activations (g, error)) < 0)
    return ret;

  c.g = g;
  c.opts = o;
  c.place = g_new0 (simnpu__section, g->n_nodes);
  c.force_host = g_new0 (bool, g->n_nodes);
  c.consumers = g_new0 (int, g->n_tensors);
  c.reader = g_new0 (int, g->n_tensors);
  for (i = 0; i < g->n_nodes; i++) {
    unsigned j;
    for (j = 0; j < g->nodes[i].n_inputs; j++)
      if (g->nodes[i].inputs[j] >= 0) {
        c.consumers[g->nodes[i].inputs[j]]++;
        c.reader[g->nodes[i].inputs[j]] = (int) i;
      }
  }
  c.has_q = g_new0 (bool, g->n_tensors);
  c.q_scale = g_new0 (float, g->n_tensors);
  c.q_zp = g_new0 (int32_t, g->n_tensors);
  c.is_logit = g_new0 (bool, g->n_tensors);
  c.clamp_lo = g_new (float, g->n_tensors);
  c.clamp_hi = g_new (float, g->n_tensors);
  if ((ret = place_nodes (&c, error)) < 0)
    goto out;
  report_placement (&c, r);
  if ((c.exec = simnpu__ir_exec_new (g, error)) == NULL) {
    ret = error->code ? error->code : SIMNPU_ENOMEM;
    goto out;
  }
  if (calib == NULL || calib->len == 0) {
    GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
    owned = g_ptr_array_new_with_free_func (g_free);
    for (i = 0; i < N_RANDOM_INPUTS; i++)
      g_ptr_array_add (owned, random_input (&g->tensors[g->inputs[0]], o,
              rand));
    g_rand_free (rand);
    calib = owned;
  }
  stats = stats_for_conv_inputs (&c);
  if ((ret = calibrate (&c, calib, stats, error)) < 0)
    goto out;
  if ((o->techniques & SIMNPU_TECHNIQUE_EQUALIZATION)
      && (r->n_equalized = equalize (&c, stats)) > 0) {
    /* the executor packed the old weights; ranges and means moved */
    simnpu__ir_exec_free (c.exec);
    if ((c.exec = simnpu__ir_exec_new (g, error)) == NULL) {
      ret = error->code ? error->code : SIMNPU_ENOMEM;
      goto out;
    }
    chan_stats_free (stats, g->n_tensors);
    stats = stats_for_conv_inputs (&c);
    if ((ret = calibrate (&c, calib, stats, error)) < 0)
      goto out;
    r->techniques_applied |= SIMNPU_TECHNIQUE_EQUALIZATION;
  }
  if (o->techniques & SIMNPU_TECHNIQUE_BIAS_CORRECTION) {
    fix = stats;
    r->techniques_applied |= SIMNPU_TECHNIQUE_BIAS_CORRECTION;
  }
  if ((ret = assign_quant (&c, error)) < 0
      || (ret = lower (&c, fix, &dg, error)) < 0)
    goto out;

  evaluator_init (&ecal, dg, g);
  if ((ret = evaluate (&c, dg, calib, &ecal, error)) < 0)
    goto out;
  if ((o->techniques & SIMNPU_TECHNIQUE_HOST_FALLBACK)
      && (r->n_fallback = mark_fallback (&c, dg, &ecal, fb)) > 0) {
    /* place and quantise again with those layers on the host */
    evaluator_clear (&ecal);
    simnpu__graph_free (dg);
    dg = NULL;
    memset (c.has_q, 0, g->n_tensors * sizeof (bool));
    memset (c.is_logit, 0, g->n_tensors * sizeof (bool));
    c.pixel_input = false;
    if ((ret = place_nodes (&c, error)) < 0
        || (ret = assign_quant (&c, error)) < 0
        || (ret = lower (&c, fix, &dg, error)) < 0)
      goto out;
    g_string_truncate (r->text, 0);
    r->device_macs = r->host_macs = 0;
    report_placement (&c, r);
    g_string_append (r->text, fb->str);
    r->techniques_applied |= SIMNPU_TECHNIQUE_HOST_FALLBACK;
    evaluator_init (&ecal, dg, g);
    if ((ret = evaluate (&c, dg, calib, &ecal, error)) < 0)
      goto out;
  }
  if (have_valid) {
    evaluator_init (&eval, dg, g);
    if ((ret = evaluate (&c, dg, o->validation, &eval, error)) < 0)
      goto out;
  }
  report_accuracy (&c, dg, &ecal, &eval, have_valid, r);

  if ((ret = extract_section (&c, SIMNPU_SECTION_PREAMBLE, &dg->preamble,
              error)) < 0
      || (ret = extract_section (&c, SIMNPU_SECTION_POSTAMBLE,
              &dg->postamble, error)) < 0)
    goto out;
  if (dg->postamble && o->output_dtype != SIMNPU_DTYPE_F32)
    set_postamble_quant (&c, dg, o->output_dtype);
  if (dg->postamble) {
    unsigned n = dg->postamble->n_outputs;
    sqnr_acc *pc = g_new0 (sqnr_acc, n), *pv = g_new0 (sqnr_acc, n);
    ret = evaluate_public (&c, dg, calib, pc, error);
    if (ret == 0 && have_valid)
      ret = evaluate_public (&c, dg, o->validation, pv, error);
    if (ret == 0)
      report_public (dg, pc, have_valid ? pv : NULL, r->text);
    g_free (pc);
    g_free (pv);
    if (ret < 0)
      goto out;
  }
  dg->has_preprocess = o->has_preprocess;
  dg->preprocess = o->preprocess;
  dg->decoder = g_strdup (o->decoder);
  if (o->labels) {
    dg->n_labels = g_strv_length (o->labels);
    dg->labels = g_strdupv (o->labels);
  }
  r->n_nodes = g->n_nodes;
  r->placement = g_memdup2 (c.place, g->n_nodes * sizeof (simnpu__section));
  *out = dg;
  dg = NULL;
  ret = 0;

out:
  if (ecal.arena)
    evaluator_clear (&ecal);
  if (eval.arena)
    evaluator_clear (&eval);
  chan_stats_free (stats, g->n_tensors);
  tap_stats_free (c.taps, g->n_nodes);
  simnpu__graph_free (dg);
  simnpu__ir_exec_free (c.exec);
  if (owned)
    g_ptr_array_unref (owned);
  g_string_free (fb, TRUE);
  g_free (c.place);
  g_free (c.force_host);
  g_free (c.consumers);
  g_free (c.reader);
  g_free (c.has_q);
  g_free (c.q_scale);
  g_free (c.q_zp);
  g_free (c.is_logit);
  g_free (c.clamp_lo);
  g_free (c.clamp_hi);
  return ret;
}
