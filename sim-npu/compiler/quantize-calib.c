/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Calibration: the float graph run over the calibration set (or random
 * pixels through the preprocessing), every tensor's range recorded and,
 * for the inputs of device convs and matmuls, the per-channel and per-tap
 * statistics that equalisation and bias correction need; and the
 * cross-layer equalisation that uses them. */

#include "quantize-private.h"

#include <math.h>
#include <string.h>

/* equalisation leaves channels below this range (dead) alone, and bounds
 * its scale factors */
#define EQ_MIN_RANGE 1e-8
#define EQ_MAX_SCALE 1e4
/* the range search tries this many bounds on each side of zero, from the
 * calibrated extreme down towards zero */
#define MSE_STEPS 256
/* ... and never clips a side below this share of its calibrated extreme */
#define MSE_MIN_SHARE 0.05
/* ... nor more than this share of the values: the rare outliers that
 * stretch a range, not the tail a few images more would fill (the wider
 * search fits the calibration set and loses on held-out images) */
#define MSE_MAX_CLIPPED 1e-4
/* the narrowest bin a histogram starts with */
#define HIST_MIN_WIDTH 1e-30

/* ------------------------------------------------------------------ */
/* Calibration */

typedef struct
{
  simnpu__ir_graph *g;
  chan_stats *stats;            /* per tensor, or NULL */
  tap_stats *taps;              /* per node, or NULL */
  range_hist *hist;             /* per tensor, or NULL */
} observe_ctx;

/* ------------------------------------------------------------------ */
/* Histograms and the range that minimises the int8 error */

void
simnpu__quantize_hist_free (range_hist * hist, unsigned n)
{
  unsigned i;

  if (hist == NULL)
    return;
  for (i = 0; i < n; i++)
    g_free (hist[i].count);
  g_free (hist);
}

/* Merges bins pairwise so the span doubles, downwards (the old bins land
 * in the upper half) or upwards. */
static void
hist_double (range_hist * h, bool down)
{
  double *c = h->count;
  int k, half = HIST_BINS / 2;

  if (down) {
    for (k = half - 1; k >= 0; k--)
      c[half + k] = c[2 * k] + c[2 * k + 1];
    memset (c, 0, half * sizeof (double));
    h->lo -= HIST_BINS * h->width;
  } else {
    for (k = 0; k < half; k++)
      c[k] = c[2 * k] + c[2 * k + 1];
    memset (c + half, 0, half * sizeof (double));
  }
  h->width *= 2.0;
}

static void
hist_add (range_hist * h, const float *v, int64_t n)
{
  float mn = INFINITY, mx = -INFINITY;
  double inv;
  int64_t k;

  for (k = 0; k < n; k++) {
    mn = v[k] < mn ? v[k] : mn;
    mx = v[k] > mx ? v[k] : mx;
  }
  if (!(mn <= mx) || !isfinite (mn) || !isfinite (mx))
    return;
  if (h->width == 0.0) {
    h->lo = mn;
    h->width = (double) mx - mn > 0.0 ? ((double) mx - mn) / HIST_BINS :
        MAX (fabs (mn), 1e-6) / HIST_BINS;
    /* mx itself falls in the last bin; a positive width, or doubling
     * it would never reach the values */
    h->width = MAX (h->width * (1.0 + 1e-6), HIST_MIN_WIDTH);
  }
  while (mn < h->lo)
    hist_double (h, true);
  while (mx >= h->lo + HIST_BINS * h->width)
    hist_double (h, false);
  inv = 1.0 / h->width;
  for (k = 0; k < n; k++) {
    double b = ((double) v[k] - h->lo) * inv;
    int i;
    if (isnan (b))
      continue;
    if (b < 0.0)
      b = 0.0;
    i = (int) b;
    h->count[MIN (i, HIST_BINS - 1)] += 1.0;
  }
}

/* The clipping range [a, b] (0 inside) that minimises the expected
 * squared error of the tensor quantised over it: values outside are
 * clipped to a bound, values inside round with error (step^2 / 12), step
 * = (b - a) / 255. Values beyond the clamp a reader applies count at the
 * clamp. *mn and *mx are the calibrated range on entry and the chosen one
 * on return; true when it is narrower. */
bool
simnpu__quantize_mse_range (const range_hist * h, float clamp_lo,
    float clamp_hi, float *mn, float *mx)
{
  double *s0, *s1, *s2;
  double lo0 = MIN (*mn, 0.0f), hi0 = MAX (*mx, 0.0f);
  double best = INFINITY, best_a = lo0, best_b = hi0;
  int k, i, j, n_a, n_b;

  if (h == NULL || h->count == NULL || h->width == 0.0 || !(hi0 > lo0))
    return false;
  s0 = g_new (double, 3 * (HIST_BINS + 1));
  s1 = s0 + HIST_BINS + 1;
  s2 = s1 + HIST_BINS + 1;
  s0[0] = s1[0] = s2[0] = 0.0;
  for (k = 0; k < HIST_BINS; k++) {
    double x = h->lo + (k + 0.5) * h->width, c = h->count[k];
    x = CLAMP (x, (double) clamp_lo, (double) clamp_hi);
    s0[k + 1] = s0[k] + c;
    s1[k + 1] = s1[k] + c * x;
    s2[k + 1] = s2[k] + c * x * x;
  }
  if (!(s0[HIST_BINS] > 0.0)) {
    g_free (s0);
    return false;
  }
  n_a = lo0 < 0.0 ? MSE_STEPS : 1;
  n_b = hi0 > 0.0 ? MSE_STEPS : 1;
  for (i = 0; i < n_a; i++) {
    double a = lo0 * (1.0 - (1.0 - MSE_MIN_SHARE) * i / MSE_STEPS);
    /* bins whose centre lies below a are clipped up to it */
    double fa = ceil ((a - h->lo) / h->width - 0.5);
    int ia = (int) CLAMP (fa, 0.0, (double) HIST_BINS);
    double below = s2[ia] - 2.0 * a * s1[ia] + a * a * s0[ia];
    for (j = 0; j < n_b; j++) {
      double b = hi0 * (1.0 - (1.0 - MSE_MIN_SHARE) * j / MSE_STEPS);
      double fb = floor ((b - h->lo) / h->width - 0.5) + 1.0;
      int ib = (int) CLAMP (fb, (double) ia, (double) HIST_BINS);
      double step = (b - a) / (I8_MAX - I8_MIN);
      double above = (s2[HIST_BINS] - s2[ib]) - 2.0 * b * (s1[HIST_BINS] -
          s1[ib]) + b * b * (s0[HIST_BINS] - s0[ib]);
      double err = below + above + (s0[ib] - s0[ia]) * step * step / 12.0;
      if (s0[ia] + s0[HIST_BINS] - s0[ib] > MSE_MAX_CLIPPED * s0[HIST_BINS])
        break;
      if (err < best) {
        best = err;
        best_a = a;
        best_b = b;
      }
    }
  }
  g_free (s0);
  if (best_a <= lo0 && best_b >= hi0)
    return false;
  *mn = (float) best_a;
  *mx = (float) best_b;
  return true;
}

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

void
simnpu__quantize_tap_stats_free (tap_stats * taps, unsigned n)
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

void
simnpu__quantize_chan_stats_free (chan_stats * stats, unsigned n)
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
    if (oc->hist && oc->hist[t].count)
      hist_add (&oc->hist[t], v, count);
    if (oc->stats)
      chan_stats_add (&oc->stats[t], v, count);
  }
}

/* Pixels 0..255 through the preprocessing, as images would give. */
float *
simnpu__quantize_random_input (const simnpu__ir_tensor * t,
    const simnpu__compile_options * o, GRand * rand)
{
  int64_t n = simnpu__ir_tensor_elements (t), k;
  bool nchw = t->rank == 4 && o->has_preprocess
      && o->preprocess.layout == SIMNPU_LAYOUT_NCHW;
  unsigned channels = t->rank == 4 ? (unsigned) t->dims[nchw ? 1 : 3] : 1;
  /* elements between two channels: 1 interleaved, a plane planar */
  int64_t step = nchw ? t->dims[2] * t->dims[3] : 1;
  float *v = g_new (float, n);

  for (k = 0; k < n; k++) {
    float p = (float) g_rand_int_range (rand, 0, 256);
    unsigned ch = channels <= 3 ? (unsigned) ((k / step) % channels) : 0;
    if (o->has_preprocess)
      p = (p * o->preprocess.scale - o->preprocess.mean[ch]) /
          o->preprocess.std[ch];
    v[k] = p;
  }
  return v;
}

int
simnpu__quantize_run_float (compile_ctx * c, const float *input,
    simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  unsigned i;

  /* every input's values, one after the other (simnpu__quantize_input_sets) */
  for (i = 0; i < g->n_inputs; i++) {
    int t = g->inputs[i];
    memcpy (simnpu__ir_exec_data (c->exec, t), input,
        simnpu__ir_tensor_bytes (&g->tensors[t]));
    input += simnpu__ir_tensor_elements (&g->tensors[t]);
  }
  return simnpu__ir_exec_run (c->exec, 0, g->n_nodes, error);
}

/* ------------------------------------------------------------------ */
/* Models of several inputs */

int
simnpu__quantize_check_inputs (compile_ctx * c, simnpu_error * error)
{
  const simnpu__ir_graph *g = c->g;
  const simnpu__compile_options *o = c->opts;
  unsigned i, j, k;

  c->state_of = g_new (int, MAX (g->n_inputs, 1));
  for (i = 0; i < g->n_inputs; i++)
    c->state_of[i] = -1;
  for (j = 0; o->recurrent_inputs && o->recurrent_inputs[j]; j++) {
    const char *in = o->recurrent_inputs[j], *out = o->recurrent_outputs[j];
    const simnpu__ir_tensor *ti = NULL, *to = NULL;
    GString *names;
    for (i = 0; i < g->n_inputs && ti == NULL; i++)
      if (strcmp (g->tensors[g->inputs[i]].name, in) == 0)
        ti = &g->tensors[g->inputs[i]];
    for (k = 0; k < g->n_outputs && to == NULL; k++)
      if (strcmp (g->tensors[g->outputs[k]].name, out) == 0)
        to = &g->tensors[g->outputs[k]];
    if (ti == g->tensors + g->inputs[0])
      return simnpu__set_error (error, SIMNPU_EINVAL, "--recurrent %s=%s: "
          "'%s' is the image input, which calibration feeds images", in,
          out, in);
    if (ti == NULL || to == NULL) {
      names = g_string_new (NULL);
      for (i = 0; ti == NULL && i < g->n_inputs; i++)
        g_string_append_printf (names, "%s'%s'", i ? ", " : "",
            g->tensors[g->inputs[i]].name);
      for (k = 0; ti != NULL && k < g->n_outputs; k++) {
        const simnpu__ir_tensor *t = &g->tensors[g->outputs[k]];
        g_string_append_printf (names, "%s'%s' [", k ? ", " : "", t->name);
        for (i = 0; i < t->rank; i++)
          g_string_append_printf (names, "%s%" G_GINT64_FORMAT, i ? "x" : "",
              t->dims[i]);
        g_string_append_c (names, ']');
      }
      return simnpu__set_error (error, SIMNPU_EINVAL, "--recurrent %s=%s: "
          "the model has no %s of that name (its %s: %s)", in, out,
          ti ? "output" : "input", ti ? "outputs" : "inputs", names->str);
    }
    if (ti->rank != to->rank || memcmp (ti->dims, to->dims,
            ti->rank * sizeof ti->dims[0]) || ti->dtype != to->dtype)
      return simnpu__set_error (error, SIMNPU_EINVAL, "--recurrent %s=%s: "
          "the output's shape or dtype is not the input's (rank %u and %u): "
          "a state fed back must be the same tensor", in, out, ti->rank,
          to->rank);
    for (i = 1; i < g->n_inputs; i++)
      if (&g->tensors[g->inputs[i]] == ti)
        c->state_of[i] = (int) (to - g->tensors);
  }
  for (i = 1; i < g->n_inputs; i++) {
    const simnpu__ir_tensor *t = &g->tensors[g->inputs[i]];
    if (t->dtype != SIMNPU_IR_F32)
      return simnpu__set_error (error, SIMNPU_EUNSUPPORTED, "input '%s' is "
          "%s; expected a float input", t->name,
          simnpu__ir_dtype_name (t->dtype));
    if (c->state_of[i] < 0)
      return simnpu__set_error (error, SIMNPU_EINVAL, "input '%s' is not "
          "the image input ('%s') and calibration cannot make up its "
          "values: if it is constant in use, fix it with --input-value "
          "%s=NUMBER; if it is a recurrent state, pair it with the output "
          "that gives the next frame's with --recurrent %s=OUTPUT (zeros "
          "for the first image); else cut the model at the tensors the "
          "image makes with --inputs", t->name,
          g->tensors[g->inputs[0]].name, t->name, t->name);
  }
  return 0;
}

GPtrArray *
simnpu__quantize_input_sets (compile_ctx * c, GPtrArray * images,
    simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  GPtrArray *sets = g_ptr_array_new_with_free_func (g_free);
  int64_t total = 0, off;
  unsigned i, j;

  for (j = 0; j < g->n_inputs; j++)
    total += simnpu__ir_tensor_elements (&g->tensors[g->inputs[j]]);
  for (i = 0; images && i < images->len; i++) {
    /* the image, then the states: zeros first, then what the previous
     * image's run gave, as a video feeds them back */
    float *set = g_new0 (float, MAX (total, 1));
    const float *prev = i ? g_ptr_array_index (sets, i - 1) : NULL;
    int64_t n0 = simnpu__ir_tensor_elements (&g->tensors[g->inputs[0]]);

    memcpy (set, images->pdata[i], n0 * sizeof (float));
    if (prev != NULL) {
      if (simnpu__quantize_run_float (c, prev, error) < 0) {
        g_free (set);
        g_ptr_array_unref (sets);
        return NULL;
      }
      for (j = 1, off = n0; j < g->n_inputs; j++) {
        const simnpu__ir_tensor *t = &g->tensors[g->inputs[j]];
        memcpy (set + off, simnpu__ir_exec_data (c->exec, c->state_of[j]),
            simnpu__ir_tensor_bytes (t));
        off += simnpu__ir_tensor_elements (t);
      }
    }
    g_ptr_array_add (sets, set);
  }
  return sets;
}

/* The tensors whose per-channel statistics are worth collecting: the
 * data inputs of device convs and matmuls. */
chan_stats *
simnpu__quantize_stats_for_conv_inputs (compile_ctx * c)
{
  simnpu__ir_graph *g = c->g;
  chan_stats *st = g_new0 (chan_stats, g->n_tensors);
  unsigned i;

  simnpu__quantize_tap_stats_free (c->taps, g->n_nodes);
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
int
simnpu__quantize_calibrate (compile_ctx * c, GPtrArray * inputs,
    chan_stats * stats, simnpu_error * error)
{
  simnpu__ir_graph *g = c->g;
  int in = g->inputs[0];
  int64_t n_in = simnpu__ir_tensor_elements (&g->tensors[in]);
  observe_ctx oc = { g, stats, stats ? c->taps : NULL, NULL };
  unsigned i;
  int ret = 0;

  for (i = 0; i < g->n_tensors; i++)
    g->tensors[i].has_range = false;
  simnpu__quantize_hist_free (c->hist, g->n_tensors);
  c->hist = NULL;
  if (c->search_ranges) {
    /* the results whose quantisation comes from their own range */
    c->hist = g_new0 (range_hist, g->n_tensors);
    for (i = 0; i < g->n_nodes; i++) {
      const simnpu__ir_node *n = &g->nodes[i];
      unsigned j;
      if (c->place[i] != SIMNPU_SECTION_DEVICE
          || simnpu__quantize_op_keeps_quant (n->op))
        continue;
      for (j = 0; j < n->n_outputs; j++)
        if (g->tensors[n->outputs[j]].dtype == SIMNPU_IR_F32)
          c->hist[n->outputs[j]].count = g_new0 (double, HIST_BINS);
    }
    oc.hist = c->hist;
  }
  simnpu__ir_exec_set_observer (c->exec, observe_range, &oc);
  for (i = 0; i < inputs->len && ret == 0; i++) {
    const float *v = inputs->pdata[i];
    unsigned j;
    /* every input's range (a recurrent state's after the image's) */
    for (j = 0; j < g->n_inputs; j++) {
      in = g->inputs[j];
      n_in = simnpu__ir_tensor_elements (&g->tensors[in]);
      widen_range (g, in, v, n_in);
      if (stats)
        chan_stats_add (&stats[in], v, n_in);
      v += n_in;
    }
    ret = simnpu__quantize_run_float (c, inputs->pdata[i], error);
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
unsigned
simnpu__quantize_equalize (compile_ctx * c, const chan_stats * stats)
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
