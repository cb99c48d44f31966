/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR: shape inference, the reference kernels against naive
 * loops and hand-computed values (ONNX operator docs), serialisation. */

#include "ir.h"

#include <math.h>
#include <string.h>

#define TOL 1e-5f
#define CONV_TOL 1e-4f
#define SEED 1234
/* with -m perf: the conv benchmark's size */
#define BENCH_SIZE 128
#define BENCH_CH 64
#define BENCH_RUNS 5
/* seeds written by the serialisation test when G_IR_WRITE_SEEDS names a
 * directory (tests/fuzz/corpus/ir) */
#define SEEDS_ENV "G_IR_WRITE_SEEDS"

/* ------------------------------------------------------------------ */
/* Helpers */

static int
add_input (simnpu__ir_graph * g, const char *name, simnpu__ir_dtype dtype,
    unsigned rank, const int64_t * dims)
{
  int t = simnpu__ir_add_tensor (g, name, dtype, rank, dims);
  g_assert_cmpint (t, >=, 0);
  g->inputs[g->n_inputs++] = t;
  return t;
}

static int
add_const (simnpu__ir_graph * g, const char *name, simnpu__ir_dtype dtype,
    unsigned rank, const int64_t * dims, const void *values)
{
  simnpu__ir_tensor tmp = { 0 };
  size_t bytes;
  int t;

  tmp.dtype = dtype;
  tmp.rank = rank;
  memcpy (tmp.dims, dims, rank * sizeof (int64_t));
  bytes = simnpu__ir_tensor_bytes (&tmp);
  t = simnpu__ir_add_const (g, name, dtype, rank, dims,
      g_memdup2 (values, MAX (bytes, 1)));
  g_assert_cmpint (t, >=, 0);
  return t;
}

static int
add_out (simnpu__ir_graph * g, const char *name)
{
  int t = simnpu__ir_add_tensor (g, name, SIMNPU_IR_F32, 0, NULL);
  g_assert_cmpint (t, >=, 0);
  g->outputs[g->n_outputs++] = t;
  return t;
}

static simnpu__ir_node *
add_node1 (simnpu__ir_graph * g, simnpu__ir_op op, const char *name,
    unsigned n_in, const int *ins, int out)
{
  simnpu__ir_node *n = simnpu__ir_add_node (g, op, name, n_in, ins, 1, &out);
  g_assert_nonnull (n);
  return n;
}

/* infers, runs with the given input data (one array per graph input),
 * returns the executor (the caller reads outputs and frees it) */
static simnpu__ir_exec *
run_graph (simnpu__ir_graph * g, const void *const *inputs)
{
  simnpu_error error = { 0 };
  simnpu__ir_exec *x;
  unsigned i;

  if (simnpu__ir_infer_shapes (g, &error) < 0)
    g_error ("infer: %s", error.message);
  x = simnpu__ir_exec_new (g, &error);
  if (x == NULL)
    g_error ("exec_new: %s", error.message);
  for (i = 0; i < g->n_inputs; i++)
    memcpy (simnpu__ir_exec_data (x, g->inputs[i]), inputs[i],
        simnpu__ir_tensor_bytes (&g->tensors[g->inputs[i]]));
  if (simnpu__ir_exec_run (x, 0, g->n_nodes, &error) < 0)
    g_error ("run: %s", error.message);
  return x;
}

static void
assert_close (const float *got, const float *want, size_t n, float tol)
{
  size_t i;

  for (i = 0; i < n; i++) {
    float d = fabsf (got[i] - want[i]);
    if (!(d <= tol * MAX (1.0f, fabsf (want[i]))))
      g_error ("element %zu: got %.7g, expected %.7g", i, got[i], want[i]);
  }
}

static float *
random_floats (GRand * rng, size_t n)
{
  float *v = g_new (float, n);
  size_t i;

  for (i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  return v;
}

/* one op on one f32 input, output compared with want */
G_GNUC_UNUSED static void
check_unary_graph (simnpu__ir_op op, const simnpu__ir_attrs * attrs,
    unsigned rank, const int64_t * dims, const float *in, const float *want,
    size_t n_want)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("unary");
  int x = add_input (g, "x", SIMNPU_IR_F32, rank, dims), y = add_out (g, "y");
  simnpu__ir_node *n = add_node1 (g, op, "op", 1, &x, y);
  const void *ins[1] = { in };
  simnpu__ir_exec *ex;

  if (attrs != NULL)
    n->attrs = *attrs;
  ex = run_graph (g, ins);
  g_assert_cmpint (simnpu__ir_tensor_elements (&g->tensors[y]), ==, n_want);
  assert_close (simnpu__ir_exec_data (ex, y), want, n_want, TOL);
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
}

/* ------------------------------------------------------------------ */
/* conv2d against a direct loop */

typedef struct
{
  int n, h, w, ic, oc, kh, kw, sh, sw, dh, dw, groups;
  int pads[4];
  bool bias;
  simnpu__ir_act act;
  float act_min, act_max;
} conv_case;

static void
naive_conv (const conv_case * c, const float *in, const float *w,
    const float *b, float *out, int oh, int ow)
{
  int icg = c->ic / c->groups, ocg = c->oc / c->groups;
  int n, y, x, o, ky, kx, i;

  for (n = 0; n < c->n; n++)
    for (y = 0; y < oh; y++)
      for (x = 0; x < ow; x++)
        for (o = 0; o < c->oc; o++) {
          int g = o / ocg;
          double acc = b != NULL ? b[o] : 0;
          for (ky = 0; ky < c->kh; ky++)
            for (kx = 0; kx < c->kw; kx++) {
              int iy = y * c->sh - c->pads[0] + ky * c->dh;
              int ix = x * c->sw - c->pads[1] + kx * c->dw;
              if (iy < 0 || iy >= c->h || ix < 0 || ix >= c->w)
                continue;
              for (i = 0; i < icg; i++)
                acc += (double) in[((n * c->h + iy) * c->w + ix) * c->ic
                    + g * icg + i] * w[((o * c->kh + ky) * c->kw + kx) *
                    icg + i];
            }
          if (c->act == SIMNPU_IR_ACT_RELU)
            acc = MAX (acc, 0);
          else if (c->act == SIMNPU_IR_ACT_CLIP)
            acc = CLAMP (acc, c->act_min, c->act_max);
          out[((n * oh + y) * ow + x) * c->oc + o] = (float) acc;
        }
}

static void
check_conv (const conv_case * c, GRand * rng)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("conv");
  int64_t xd[4] = { c->n, c->h, c->w, c->ic };
  int64_t wd[4] = { c->oc, c->kh, c->kw, c->ic / c->groups };
  int64_t bd[1] = { c->oc };
  size_t xn = (size_t) c->n * c->h * c->w * c->ic;
  size_t wn = (size_t) c->oc * c->kh * c->kw * (c->ic / c->groups);
  float *in = random_floats (rng, xn), *w = random_floats (rng, wn);
  float *b = random_floats (rng, c->oc), *want;
  int ins[3], y, oh, ow;
  simnpu__ir_node *n;
  simnpu__ir_exec *ex;
  const void *data[1] = { in };

  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  ins[1] = add_const (g, "w", SIMNPU_IR_F32, 4, wd, w);
  ins[2] = c->bias ? add_const (g, "b", SIMNPU_IR_F32, 1, bd, b)
      : SIMNPU_IR_NONE;
  y = add_out (g, "y");
  n = add_node1 (g, SIMNPU_IR_CONV2D, "conv", 3, ins, y);
  n->attrs.stride[0] = c->sh;
  n->attrs.stride[1] = c->sw;
  n->attrs.dilation[0] = c->dh;
  n->attrs.dilation[1] = c->dw;
  n->attrs.groups = c->groups;
  memcpy (n->attrs.pads, c->pads, sizeof (c->pads));
  n->attrs.act = c->act;
  n->attrs.act_min = c->act_min;
  n->attrs.act_max = c->act_max;
  ex = run_graph (g, data);
  oh = (c->h + c->pads[0] + c->pads[2] - c->dh * (c->kh - 1) - 1) / c->sh + 1;
  ow = (c->w + c->pads[1] + c->pads[3] - c->dw * (c->kw - 1) - 1) / c->sw + 1;
  g_assert_cmpint (g->tensors[y].rank, ==, 4);
  g_assert_cmpint (g->tensors[y].dims[1], ==, oh);
  g_assert_cmpint (g->tensors[y].dims[2], ==, ow);
  g_assert_cmpint (g->tensors[y].dims[3], ==, c->oc);
  want = g_new (float, (size_t) c->n * oh * ow * c->oc);
  naive_conv (c, in, w, c->bias ? b : NULL, want, oh, ow);
  assert_close (simnpu__ir_exec_data (ex, y), want,
      (size_t) c->n * oh * ow * c->oc, CONV_TOL);
  /* a second run over the same buffers gives the same result */
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, g->n_nodes, NULL), ==, 0);
  assert_close (simnpu__ir_exec_data (ex, y), want,
      (size_t) c->n * oh * ow * c->oc, CONV_TOL);
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  g_free (in);
  g_free (w);
  g_free (b);
  g_free (want);
}

static void
test_conv2d (void)
{
  static const conv_case cases[] = {
    /* n h w ic oc kh kw sh sw dh dw groups pads bias act */
    {1, 7, 9, 3, 5, 3, 3, 1, 1, 1, 1, 1, {1, 1, 1, 1}, true},
    {2, 8, 8, 16, 33, 3, 3, 2, 2, 1, 1, 1, {0, 1, 1, 0}, true},
    {1, 9, 10, 4, 20, 3, 2, 1, 1, 2, 3, 1, {2, 0, 1, 3}, false},
    {1, 6, 7, 8, 8, 3, 3, 1, 1, 1, 1, 8, {1, 1, 1, 1}, true,
        SIMNPU_IR_ACT_CLIP, 0.0f, 0.5f},
    {1, 6, 7, 8, 8, 5, 5, 2, 1, 1, 1, 8, {2, 2, 2, 2}, false,
        SIMNPU_IR_ACT_RELU},
    {1, 5, 5, 8, 12, 3, 3, 1, 1, 1, 1, 4, {1, 1, 1, 1}, true,
        SIMNPU_IR_ACT_CLIP, -0.2f, 0.3f},
    {1, 4, 13, 17, 40, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, true},
    {1, 6, 6, 4, 8, 2, 2, 2, 2, 1, 1, 2, {0, 0, 1, 1}, true},
    /* depthwise with multiplier 2 */
    {1, 5, 6, 3, 6, 3, 3, 1, 1, 1, 1, 3, {1, 1, 1, 1}, true},
  };
  GRand *rng = g_rand_new_with_seed (SEED);
  unsigned i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    check_conv (&cases[i], rng);
  g_rand_free (rng);
}

static void
test_conv2d_bench (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("bench");
  int64_t xd[4] = { 1, BENCH_SIZE, BENCH_SIZE, BENCH_CH };
  int64_t wd[4] = { BENCH_CH, 3, 3, BENCH_CH };
  size_t xn = (size_t) BENCH_SIZE * BENCH_SIZE * BENCH_CH;
  GRand *rng = g_rand_new_with_seed (SEED);
  float *in = random_floats (rng, xn);
  float *w = random_floats (rng, (size_t) BENCH_CH * 9 * BENCH_CH);
  const void *data[1] = { in };
  int ins[2], y;
  simnpu__ir_node *n;
  simnpu__ir_exec *ex;
  uint64_t t0, macs;
  double s;
  unsigned i;

  if (!g_test_perf ()) {
    g_test_skip ("a benchmark: run with -m perf");
    g_rand_free (rng);
    g_free (in);
    g_free (w);
    simnpu__ir_graph_free (g);
    return;
  }
  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  ins[1] = add_const (g, "w", SIMNPU_IR_F32, 4, wd, w);
  y = add_out (g, "y");
  n = add_node1 (g, SIMNPU_IR_CONV2D, "conv", 2, ins, y);
  n->attrs.pads[0] = n->attrs.pads[1] = n->attrs.pads[2] = n->attrs.pads[3] = 1;
  ex = run_graph (g, data);
  macs = simnpu__ir_op_get (SIMNPU_IR_CONV2D)->cost (g, &g->nodes[0]);
  t0 = simnpu__monotonic_ns ();
  for (i = 0; i < BENCH_RUNS; i++)
    g_assert_cmpint (simnpu__ir_exec_run (ex, 0, 1, NULL), ==, 0);
  s = (double) (simnpu__monotonic_ns () - t0) / 1e9;
  g_test_minimized_result (s / BENCH_RUNS, "conv 3x3 %dx%d %d->%d: %.2f "
      "GMAC/s", BENCH_SIZE, BENCH_SIZE, BENCH_CH, BENCH_CH,
      (double) macs * BENCH_RUNS / s / 1e9);
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  g_rand_free (rng);
  g_free (in);
  g_free (w);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ir/conv2d", test_conv2d);
  g_test_add_func ("/ir/conv2d-bench", test_conv2d_bench);
  return g_test_run ();
}
