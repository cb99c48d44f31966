/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The compiler's accuracy techniques (quantize.c) on small synthetic
 * graphs: each must do what it claims against the same model without it. */

#include "compiler.h"
#include "quantize-private.h"
#include "simnpu-private.h"

#include <math.h>
#include <string.h>

#define N_CALIB 4
#define SEED 0x9a17
/* image size of the synthetic inputs */
#define H 8
#define W 8

/* bias correction */
#define BC_IC 16
#define BC_OC 4
#define BC_IN_MEAN 10.0f
#define BC_IN_SPREAD 0.5f
/* weights just above a multiple of the step round down: a systematic
 * error that the input's large mean turns into an output bias */
#define BC_FRACTION 0.4f
#define BC_MIN_GAIN_DB 10.0
#define BC_KERNEL 3
/* the other weights, in steps (below the 127 of tap 0) */
#define BC_BASE 50
/* the int8 weight range */
#define I8_MAX_F 127.0f

/* equalisation */
#define EQ_C 4
#define EQ_OC 2
#define EQ_DECADES 2
#define EQ_MIN_GAIN_DB 10.0
#define EQ_FLOAT_TOL 1e-4
#define EQ_CLIP_MAX 6.0f

/* activation ranges by least error: a bulk of values in [-1, 1] and one
 * outlier. Clipping the outlier costs (MSE_OUTLIER - 1)^2 once; keeping
 * it makes each value's rounding step MSE_OUTLIER / 255 * 2 coarser: with
 * MSE_MANY values clipping wins, with MSE_FEW it does not. */
#define MSE_OUTLIER 100.0
#define MSE_MANY 4000000.0
#define MSE_FEW 1000.0
#define MSE_C 4
#define MSE_GAIN 2.0f

/* requantiser limits: b = a * (1 + RQ_EPS), so b - a spans RQ_EPS of
 * their range, far below what 4096:1 reaches */
/* measured ranges: one outlier in a map of a million values, rare
 * enough that clipping it costs less squared error than the coarse
 * steps of min/max would over all the others */
#define MR_C 16384
#define MR_IMAGES 6
#define MR_OUTLIER 800.0f

#define RQ_C 4
#define RQ_EPS 1e-5f

/* host fallback */
#define FB_LAYERS 4
#define FB_C 8
#define FB_ALWAYS_DB 1000.0

typedef struct
{
  simnpu__ir_graph *g;
  int x, y;
} model;

static int
add_const (simnpu__ir_graph * g, const char *name, unsigned rank,
    const int64_t * dims, const float *values, size_t n)
{
  int t = simnpu__ir_add_const (g, name, SIMNPU_IR_F32, rank, dims,
      g_memdup2 (values, n * sizeof (float)));
  g_assert_cmpint (t, >=, 0);
  return t;
}

/* A k x k conv with "same" zero padding from tensor in to a new tensor;
 * returns it. */
static int
add_conv_k (simnpu__ir_graph * g, const char *name, int in, int64_t ic,
    int64_t oc, int k, const float *w, const float *b, simnpu__ir_act act)
{
  int64_t wd[4] = { oc, k, k, ic }, bd[1] = { oc };
  char *wn = g_strdup_printf ("%s/w", name), *bn =
      g_strdup_printf ("%s/b", name), *yn = g_strdup_printf ("%s/y", name);
  int ins[3], y;
  simnpu__ir_node *n;

  ins[0] = in;
  ins[1] = add_const (g, wn, 4, wd, w, (size_t) (oc * k * k * ic));
  ins[2] = add_const (g, bn, 1, bd, b, (size_t) oc);
  y = simnpu__ir_add_tensor (g, yn, SIMNPU_IR_F32, 0, NULL);
  n = simnpu__ir_add_node (g, SIMNPU_IR_CONV2D, name, 3, ins, 1, &y);
  g_assert_nonnull (n);
  n->attrs.act = act;
  n->attrs.kernel[0] = n->attrs.kernel[1] = k;
  n->attrs.pads[0] = n->attrs.pads[1] = k / 2;
  n->attrs.pads[2] = n->attrs.pads[3] = k / 2;
  g_free (wn);
  g_free (bn);
  g_free (yn);
  return y;
}

static int
add_conv (simnpu__ir_graph * g, const char *name, int in, int64_t ic,
    int64_t oc, const float *w, const float *b, simnpu__ir_act act)
{
  return add_conv_k (g, name, in, ic, oc, 1, w, b, act);
}

static void
model_begin (model * m, const char *name, int64_t ic)
{
  int64_t xd[4] = { 1, H, W, ic };

  m->g = simnpu__ir_graph_new (name);
  m->x = simnpu__ir_add_tensor (m->g, "x", SIMNPU_IR_F32, 4, xd);
  m->g->inputs[m->g->n_inputs++] = m->x;
}

static void
model_end (model * m, int y)
{
  simnpu_error error = { 0 };

  m->y = y;
  m->g->outputs[m->g->n_outputs++] = y;
  if (simnpu__ir_infer_shapes (m->g, &error) < 0)
    g_error ("infer: %s", error.message);
}

static GPtrArray *
inputs (int64_t ic, float mean, float spread, GRand * rng)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  int64_t n = H * W * ic, k;
  unsigned i;

  for (i = 0; i < N_CALIB; i++) {
    float *v = g_new (float, n);
    for (k = 0; k < n; k++)
      v[k] = mean + spread * (float) g_rand_double_range (rng, -1.0, 1.0);
    g_ptr_array_add (a, v);
  }
  return a;
}

/* Compiles a copy of m with the techniques; returns the output's SQNR on
 * the calibration set and, when result is not NULL, the result. */
static double
compile_sqnr (const model * m, GPtrArray * calib, unsigned techniques,
    double fallback_db, double share, simnpu__ir_graph ** compiled,
    simnpu__compile_result * result)
{
  simnpu__ir_graph *g = simnpu__ir_graph_copy (m->g);
  simnpu__compile_options o;
  simnpu__compile_result r;
  simnpu__graph *dg = NULL;
  simnpu_error error = { 0 };
  double db;

  simnpu__compile_options_init (&o);
  o.calibration = calib;
  o.techniques = techniques;
  o.fallback_db = fallback_db;
  o.fallback_mac_share = share;
  if (simnpu__compile (g, &o, &dg, &r, &error) < 0)
    g_error ("compile: %s", error.message);
  g_assert_cmpuint (r.n_outputs, >=, 1);
  db = r.outputs[r.n_outputs - 1].sqnr_calib_db;
  g_test_message ("%s, techniques %#x: %.1f dB", m->g->name, techniques, db);
  simnpu__graph_free (dg);
  if (result)
    *result = r;
  else
    simnpu__compile_result_clear (&r);
  if (compiled)
    *compiled = g;
  else
    simnpu__ir_graph_free (g);
  return db;
}

/* With a k x k kernel, the border positions read padding (zeros) under
 * some taps: the correction must use what each tap reads, not the
 * channel's mean, or it over-corrects there (with channel means the 3x3
 * case gains 9.3 dB, short of BC_MIN_GAIN_DB; with tap means 10.9). */
static void
check_bias_correction (int ksize)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  int klen = ksize * ksize * BC_IC;
  float *w = g_new (float, BC_OC * klen), b[BC_OC] = { 0 };
  model m;
  GPtrArray *calib;
  double plain, corrected;
  simnpu__compile_result r;
  int o, k;

  /* per row: one weight of 1 sets the step about 1/127; the others are
   * equal, BC_FRACTION of a step above a multiple of it, so whatever step
   * the scale search picks they all round the same way */
  for (o = 0; o < BC_OC; o++)
    for (k = 0; k < klen; k++)
      w[o * klen + k] = k == 0 ? 1.0f : ((float) (BC_BASE + o) +
          BC_FRACTION) / I8_MAX_F;
  model_begin (&m, "bias", BC_IC);
  model_end (&m, add_conv_k (m.g, "conv", m.x, BC_IC, BC_OC, ksize, w, b,
          SIMNPU_IR_ACT_NONE));
  calib = inputs (BC_IC, BC_IN_MEAN, BC_IN_SPREAD, rng);
  plain = compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_NONE, 0.0, 0.0, NULL, NULL);
  corrected = compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_BIAS_CORRECTION,
      0.0, 0.0, NULL, &r);
  g_assert_true (r.techniques_applied & SIMNPU_TECHNIQUE_BIAS_CORRECTION);
  g_assert_cmpfloat (corrected, >=, plain + BC_MIN_GAIN_DB);
  simnpu__compile_result_clear (&r);
  g_ptr_array_unref (calib);
  simnpu__ir_graph_free (m.g);
  g_free (w);
  g_rand_free (rng);
}

static void
test_bias_correction (void)
{
  check_bias_correction (1);
  check_bias_correction (BC_KERNEL);
}

static void
test_equalization (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w1[EQ_C * EQ_C], b1[EQ_C] = { 0 }, w2[EQ_OC * EQ_C], b2[EQ_OC] = {
    0
  };
  model m;
  GPtrArray *calib;
  double plain, equalized;
  simnpu__compile_result r;
  simnpu__ir_graph *eg;
  simnpu__ir_exec *x0, *x1;
  simnpu_error error = { 0 };
  int o, k, mid;
  int64_t i, n;

  /* channel k of the intermediate spans 10^(k - EQ_DECADES); conv2 undoes
   * it, so every channel matters equally to the output */
  for (o = 0; o < EQ_C; o++) {
    float gain = powf (10.0f, (float) (o - EQ_DECADES));
    for (k = 0; k < EQ_C; k++)
      w1[o * EQ_C + k] = gain * (float) g_rand_double_range (rng, -1.0, 1.0);
    b1[o] = 0.1f * gain;
  }
  for (o = 0; o < EQ_OC; o++)
    for (k = 0; k < EQ_C; k++)
      w2[o * EQ_C + k] = powf (10.0f, (float) (EQ_DECADES - k)) *
          (float) g_rand_double_range (rng, 0.5, 1.0);
  model_begin (&m, "equalize", EQ_C);
  mid = add_conv (m.g, "conv1", m.x, EQ_C, EQ_C, w1, b1, SIMNPU_IR_ACT_RELU);
  model_end (&m, add_conv (m.g, "conv2", mid, EQ_C, EQ_OC, w2, b2,
          SIMNPU_IR_ACT_NONE));
  calib = inputs (EQ_C, 0.0f, 1.0f, rng);
  plain = compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_NONE, 0.0, 0.0, NULL, NULL);
  equalized = compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_EQUALIZATION, 0.0,
      0.0, &eg, &r);
  g_assert_true (r.techniques_applied & SIMNPU_TECHNIQUE_EQUALIZATION);
  g_assert_cmpuint (r.n_equalized, ==, 1);
  g_assert_cmpfloat (equalized, >=, plain + EQ_MIN_GAIN_DB);

  /* the float function is unchanged, though the weights are not */
  g_assert_cmpfloat (fabsf (((float *) eg->tensors[simnpu__ir_find_tensor (eg,
                      "conv1/w")].data)[0] - w1[0]), >, EQ_FLOAT_TOL);
  x0 = simnpu__ir_exec_new (m.g, &error);
  x1 = simnpu__ir_exec_new (eg, &error);
  g_assert_nonnull (x0);
  g_assert_nonnull (x1);
  n = simnpu__ir_tensor_elements (&m.g->tensors[m.x]);
  memcpy (simnpu__ir_exec_data (x0, m.x), calib->pdata[0], n * sizeof (float));
  memcpy (simnpu__ir_exec_data (x1, m.x), calib->pdata[0], n * sizeof (float));
  g_assert_cmpint (simnpu__ir_exec_run (x0, 0, m.g->n_nodes, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_exec_run (x1, 0, eg->n_nodes, &error), ==, 0);
  n = simnpu__ir_tensor_elements (&m.g->tensors[m.y]);
  for (i = 0; i < n; i++) {
    float a = ((float *) simnpu__ir_exec_data (x0, m.y))[i];
    float e = ((float *) simnpu__ir_exec_data (x1, m.y))[i];
    g_assert_cmpfloat (fabsf (a - e), <=, EQ_FLOAT_TOL * MAX (1.0f, fabsf (a)));
  }
  simnpu__ir_exec_free (x0);
  simnpu__ir_exec_free (x1);
  simnpu__ir_graph_free (eg);
  simnpu__compile_result_clear (&r);
  simnpu__ir_graph_free (m.g);

  /* a clamp between the two (relu6) is not scale-invariant: left alone */
  model_begin (&m, "equalize-clip", EQ_C);
  mid = add_conv (m.g, "conv1", m.x, EQ_C, EQ_C, w1, b1, SIMNPU_IR_ACT_CLIP);
  m.g->nodes[m.g->n_nodes - 1].attrs.act_min = 0.0f;
  m.g->nodes[m.g->n_nodes - 1].attrs.act_max = EQ_CLIP_MAX;
  model_end (&m, add_conv (m.g, "conv2", mid, EQ_C, EQ_OC, w2, b2,
          SIMNPU_IR_ACT_NONE));
  compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_EQUALIZATION, 0.0, 0.0, NULL, &r);
  g_assert_cmpuint (r.n_equalized, ==, 0);
  g_assert_false (r.techniques_applied & SIMNPU_TECHNIQUE_EQUALIZATION);
  simnpu__compile_result_clear (&r);
  simnpu__ir_graph_free (m.g);
  g_ptr_array_unref (calib);
  g_rand_free (rng);
}

/* A histogram of n values spread evenly over [-1, 1] and one at
 * MSE_OUTLIER. */
static void
outlier_hist (range_hist * h, double n)
{
  int k, top;

  h->count = g_new0 (double, HIST_BINS);
  h->lo = -1.0;
  h->width = (MSE_OUTLIER + 1.0) / (HIST_BINS - 1);
  top = (int) (2.0 / h->width);
  for (k = 0; k <= top; k++)
    h->count[k] = n / (top + 1);
  h->count[HIST_BINS - 1] = 1.0;
}

/* The range of least squared error clips a lone outlier only when the
 * values it would cost resolution are many enough. */
static void
test_mse_range_choice (void)
{
  range_hist h;
  float mn = -1.0f, mx = (float) MSE_OUTLIER;

  outlier_hist (&h, MSE_MANY);
  g_assert_true (simnpu__quantize_mse_range (&h, -INFINITY, INFINITY, &mn,
          &mx));
  g_test_message ("many: [%g, %g]", mn, mx);
  g_assert_cmpfloat (mn, >=, -1.0f);
  g_assert_cmpfloat (mn, <, -0.9f);
  g_assert_cmpfloat (mx, <, MSE_OUTLIER / 4.0);
  g_assert_cmpfloat (mx, >=, 1.0f);
  g_free (h.count);

  mn = -1.0f;
  mx = (float) MSE_OUTLIER;
  outlier_hist (&h, MSE_FEW);
  simnpu__quantize_mse_range (&h, -INFINITY, INFINITY, &mn, &mx);
  g_test_message ("few: [%g, %g]", mn, mx);
  g_assert_cmpfloat (mx, >, MSE_OUTLIER * 0.9);
  g_free (h.count);

  /* beyond a reader's clamp nothing counts: values clamped at 1 cost
   * nothing to clip there */
  mn = -1.0f;
  mx = 1.0f;
  outlier_hist (&h, MSE_FEW);
  simnpu__quantize_mse_range (&h, -1.0f, 1.0f, &mn, &mx);
  g_assert_cmpfloat (mx, <=, 1.0f);
  g_free (h.count);
}

/* x -> conv -> f -> output: the conv's result is searched, the model's
 * output and a sigmoid's logits keep min/max. */
static void
check_searched (simnpu__ir_op f, const char *want)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[MSE_C], b[MSE_C] = { 0 };
  int64_t wd[4] = { MSE_C, 1, 1, 1 }, bd[1] = { MSE_C };
  model m;
  GPtrArray *calib;
  simnpu__compile_result r;
  simnpu__ir_node *n;
  int k, ins[3], c, y;

  for (k = 0; k < MSE_C; k++)
    w[k] = MSE_GAIN;
  model_begin (&m, "searched", MSE_C);
  ins[0] = m.x;
  ins[1] = add_const (m.g, "conv/w", 4, wd, w, MSE_C);
  ins[2] = add_const (m.g, "conv/b", 1, bd, b, MSE_C);
  c = simnpu__ir_add_tensor (m.g, "conv/y", SIMNPU_IR_F32, 0, NULL);
  n = simnpu__ir_add_node (m.g, SIMNPU_IR_CONV2D, "conv", 3, ins, 1, &c);
  n->attrs.kernel[0] = n->attrs.kernel[1] = 1;
  n->attrs.groups = MSE_C;
  y = simnpu__ir_add_tensor (m.g, "y", SIMNPU_IR_F32, 0, NULL);
  g_assert_nonnull (simnpu__ir_add_node (m.g, f, "f", 1, &c, 1, &y));
  model_end (&m, y);
  calib = inputs (MSE_C, 0.0f, 1.0f, rng);
  compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_MSE_RANGES, 0.0, 0.0, NULL, &r);
  g_test_message ("%s", r.text->str);
  g_assert_true (r.techniques_applied & SIMNPU_TECHNIQUE_MSE_RANGES);
  g_assert_nonnull (strstr (r.text->str, want));
  simnpu__compile_result_clear (&r);
  simnpu__ir_graph_free (m.g);
  g_ptr_array_unref (calib);
  g_rand_free (rng);
}

static void
test_mse_ranges (void)
{
  check_searched (SIMNPU_IR_EXP, "of 1 searched");
  check_searched (SIMNPU_IR_SIGMOID, "activation ranges: 0 of 0 searched");
}

/* x -> depthwise conv (gain 2) -> tanh -> output, calibrated on images
 * of values in [-1, 1], the first with one OUTLIER after the conv (0:
 * none). The range
 * search is measured: ranges fitted on every other image (the first
 * among them), judged on the others. With the outlier, min/max spends
 * the conv's 256 steps on it and the tanh sees steps of 3 on the images
 * that have none: the searched range, which clips it, measures better
 * and is kept. Without it, the search finds nothing to clip and min/max
 * stays. */
static void
check_measured (float outlier, const char *want, gboolean searched)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[MR_C], b[MR_C] = { 0 };
  int64_t wd[4] = { MR_C, 1, 1, 1 }, bd[1] = { MR_C };
  GPtrArray *calib = g_ptr_array_new_with_free_func (g_free);
  model m;
  simnpu__compile_result r;
  simnpu__ir_node *n;
  int k, i, ins[3], c, y;

  for (k = 0; k < MR_C; k++)
    w[k] = MSE_GAIN;
  /* channel 0 is zero but for one pixel of the first image, which its
   * weight makes the outlier: the input's range stays [-1, 1] */
  if (outlier != 0.0f)
    w[0] = outlier;
  model_begin (&m, "measured", MR_C);
  ins[0] = m.x;
  ins[1] = add_const (m.g, "conv/w", 4, wd, w, MR_C);
  ins[2] = add_const (m.g, "conv/b", 1, bd, b, MR_C);
  c = simnpu__ir_add_tensor (m.g, "conv/y", SIMNPU_IR_F32, 0, NULL);
  n = simnpu__ir_add_node (m.g, SIMNPU_IR_CONV2D, "conv", 3, ins, 1, &c);
  n->attrs.kernel[0] = n->attrs.kernel[1] = 1;
  n->attrs.groups = MR_C;
  y = simnpu__ir_add_tensor (m.g, "y", SIMNPU_IR_F32, 0, NULL);
  g_assert_nonnull (simnpu__ir_add_node (m.g, SIMNPU_IR_TANH, "tanh", 1, &c,
          1, &y));
  model_end (&m, y);
  for (i = 0; i < MR_IMAGES; i++) {
    float *v = g_new (float, H * W * MR_C);
    for (k = 0; k < H * W * MR_C; k++)
      v[k] = k % MR_C == 0 && outlier != 0.0f ? 0.0f :
          (float) g_rand_double_range (rng, -1.0, 1.0);
    if (outlier != 0.0f && i == 0)
      v[MR_C * g_rand_int_range (rng, 0, H * W)] = 1.0f;
    g_ptr_array_add (calib, v);
  }
  compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_MEASURED_RANGES, 0.0, 0.0, NULL,
      &r);
  g_test_message ("%s", r.text->str);
  g_assert_nonnull (strstr (r.text->str, "activation ranges: fitted on 3 "
          "calibration images, measured on the other 3"));
  g_assert_nonnull (strstr (r.text->str, want));
  g_assert_cmpint (!!(r.techniques_applied & SIMNPU_TECHNIQUE_MSE_RANGES),
      ==, searched);
  simnpu__compile_result_clear (&r);
  simnpu__ir_graph_free (m.g);
  g_ptr_array_unref (calib);
  g_rand_free (rng);
}

static void
test_measured_ranges (void)
{
  check_measured (MR_OUTLIER, "searched ranges kept", TRUE);
  check_measured (0.0f, "min/max kept", FALSE);
}

/* b - a with b = a (1 + eps): the model's own arithmetic makes a result
 * finer than the device's requantiser reaches from the int8 inputs. The
 * compile widens it and names the node and the cause, not the images. */
static void
test_requant_limit (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float wa[RQ_C * RQ_C] = { 0 }, wb[RQ_C * RQ_C] = { 0 }, b[RQ_C] = { 0 };
  model m;
  GPtrArray *calib;
  simnpu__compile_result r;
  int k, a, bt, ins[2], y;

  for (k = 0; k < RQ_C; k++) {
    wa[k * RQ_C + k] = 1.0f;
    wb[k * RQ_C + k] = 1.0f + RQ_EPS;
  }
  model_begin (&m, "requant", RQ_C);
  a = add_conv (m.g, "a", m.x, RQ_C, RQ_C, wa, b, SIMNPU_IR_ACT_NONE);
  bt = add_conv (m.g, "b", m.x, RQ_C, RQ_C, wb, b, SIMNPU_IR_ACT_NONE);
  ins[0] = bt;
  ins[1] = a;
  y = simnpu__ir_add_tensor (m.g, "diff", SIMNPU_IR_F32, 0, NULL);
  g_assert_nonnull (simnpu__ir_add_node (m.g, SIMNPU_IR_SUB, "diff", 2, ins,
          1, &y));
  model_end (&m, y);
  calib = inputs (RQ_C, 0.0f, 1.0f, rng);
  compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_NONE, 0.0, 0.0, NULL, &r);
  g_test_message ("%s", r.text->str);
  g_assert_nonnull (strstr (r.text->str, "requantiser limits: 1 result "));
  g_assert_nonnull (strstr (r.text->str, "'diff' (sub): its result spans"));
  g_assert_null (strstr (r.text->str, "calibration input"));
  simnpu__compile_result_clear (&r);
  simnpu__ir_graph_free (m.g);
  g_ptr_array_unref (calib);
  g_rand_free (rng);
}

/* A chain of equal convs: host fallback moves the last layers, as many as
 * the MAC share allows, and always leaves the device some. */
static void
check_fallback (const model * m, GPtrArray * calib, double share, unsigned want)
{
  simnpu__compile_result r;
  unsigned i;

  compile_sqnr (m, calib, SIMNPU_TECHNIQUE_HOST_FALLBACK, FB_ALWAYS_DB,
      share, NULL, &r);
  g_assert_true (r.techniques_applied & SIMNPU_TECHNIQUE_HOST_FALLBACK);
  g_assert_cmpuint (r.n_fallback, ==, want);
  g_assert_cmpuint (r.n_nodes, ==, FB_LAYERS);
  for (i = 0; i < FB_LAYERS; i++)
    g_assert_cmpint (r.placement[i], ==, i + want >= FB_LAYERS ?
        SIMNPU_SECTION_POSTAMBLE : SIMNPU_SECTION_DEVICE);
  simnpu__compile_result_clear (&r);
}

static void
test_fallback_share (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[FB_C * FB_C], b[FB_C] = { 0 };
  model m;
  GPtrArray *calib;
  int i, t;

  for (i = 0; i < FB_C * FB_C; i++)
    w[i] = (float) g_rand_double_range (rng, -0.5, 0.5);
  model_begin (&m, "fallback", FB_C);
  t = m.x;
  for (i = 0; i < FB_LAYERS; i++) {
    char *name = g_strdup_printf ("conv%d", i);
    t = add_conv (m.g, name, t, FB_C, FB_C, w, b, SIMNPU_IR_ACT_NONE);
    g_free (name);
  }
  model_end (&m, t);
  calib = inputs (FB_C, 0.0f, 1.0f, rng);
  /* the output's own layer whatever the share */
  check_fallback (&m, calib, 0.0, 1);
  /* each layer is a quarter of the MACs */
  check_fallback (&m, calib, 0.5, 2);
  check_fallback (&m, calib, 1.0, FB_LAYERS - 1);
  g_ptr_array_unref (calib);
  simnpu__ir_graph_free (m.g);
  g_rand_free (rng);
}

/* conv -> identity conv, FIRST the first conv's weights (an identity
 * too, or random). Host fallback measures the tail (the identity conv on
 * the host) and the head (the first conv in the preamble). */
static void
compile_two_convs (gboolean random_first, simnpu__compile_result * r)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[FB_C * FB_C], eye[FB_C * FB_C], b[FB_C] = { 0 };
  model m;
  GPtrArray *calib;
  int i, t, y;

  for (i = 0; i < FB_C * FB_C; i++) {
    eye[i] = i % (FB_C + 1) == 0 ? 1.0f : 0.0f;
    w[i] = random_first ? (float) g_rand_double_range (rng, -0.5, 0.5) : eye[i];
  }
  model_begin (&m, "fallback-two", FB_C);
  t = add_conv (m.g, "conv", m.x, FB_C, FB_C, w, b, SIMNPU_IR_ACT_NONE);
  y = add_conv (m.g, "identity", t, FB_C, FB_C, eye, b, SIMNPU_IR_ACT_NONE);
  model_end (&m, y);
  calib = inputs (FB_C, 0.0f, 1.0f, rng);
  compile_sqnr (&m, calib, SIMNPU_TECHNIQUE_HOST_FALLBACK, FB_ALWAYS_DB,
      1.0, NULL, r);
  g_test_message ("%s", r->text->str);
  g_ptr_array_unref (calib);
  simnpu__ir_graph_free (m.g);
  g_rand_free (rng);
}

/* Two identity convs: each passes its int8 input unchanged (its output
 * has its input's range), so neither the head nor the tail on the host
 * can gain: host fallback is measured, undone, and the report says so. */
static void
test_fallback_undone (void)
{
  simnpu__compile_result r;
  unsigned i;

  compile_two_convs (FALSE, &r);
  g_assert_nonnull (strstr (r.text->str, "host fallback tried: the layers "
          "that make the low outputs"));
  g_assert_nonnull (strstr (r.text->str, "host fallback tried: the model's "
          "first layers"));
  g_assert_nonnull (strstr (r.text->str, "host fallback undone"));
  g_assert_false (r.techniques_applied & SIMNPU_TECHNIQUE_HOST_FALLBACK);
  g_assert_cmpuint (r.n_fallback, ==, 0);
  for (i = 0; i < r.n_nodes; i++)
    g_assert_cmpint (r.placement[i], ==, SIMNPU_SECTION_DEVICE);
  simnpu__compile_result_clear (&r);
}

/* A random conv, then an identity: the identity on the host cannot gain
 * (its int8 values pass unchanged), the random conv's rounding can be
 * saved by running it in the preamble, and that is what is kept. */
static void
test_fallback_head (void)
{
  simnpu__compile_result r;

  compile_two_convs (TRUE, &r);
  g_assert_nonnull (strstr (r.text->str, "host fallback kept: the model's "
          "first layers"));
  g_assert_true (r.techniques_applied & SIMNPU_TECHNIQUE_HOST_FALLBACK);
  g_assert_cmpuint (r.n_fallback, ==, 1);
  g_assert_cmpuint (r.n_nodes, ==, 2);
  g_assert_cmpint (r.placement[0], ==, SIMNPU_SECTION_PREAMBLE);
  g_assert_cmpint (r.placement[1], ==, SIMNPU_SECTION_DEVICE);
  simnpu__compile_result_clear (&r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/quantize/bias-correction", test_bias_correction);
  g_test_add_func ("/quantize/equalization", test_equalization);
  g_test_add_func ("/quantize/fallback-share", test_fallback_share);
  g_test_add_func ("/quantize/fallback-undone", test_fallback_undone);
  g_test_add_func ("/quantize/fallback-head", test_fallback_head);
  g_test_add_func ("/quantize/measured-ranges", test_measured_ranges);
  g_test_add_func ("/quantize/mse-range-choice", test_mse_range_choice);
  g_test_add_func ("/quantize/mse-ranges", test_mse_ranges);
  g_test_add_func ("/quantize/requant-limit", test_requant_limit);
  return g_test_run ();
}
