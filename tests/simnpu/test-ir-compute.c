/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR's compute kernels (conv2d, matmul, element-wise ops,
 * softmax, pooling, resize, reductions) against naive loops and
 * hand-computed values (ONNX operator docs). */

#include "test-ir-util.h"

#include <float.h>

#define CONV_TOL 1e-4f
/* with -m perf: the conv benchmark's size */
#define BENCH_SIZE 128
#define BENCH_CH 64
#define BENCH_RUNS 5

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
    /* depthwise over a register block and a tail of channels */
    {1, 7, 6, 40, 40, 3, 3, 2, 1, 2, 1, 40, {2, 1, 0, 1}, true,
        SIMNPU_IR_ACT_RELU},
    /* depthwise: vectors of 8 and a tail */
    {1, 6, 5, 18, 18, 5, 5, 1, 1, 1, 1, 18, {2, 2, 2, 2}, true},
    /* depthwise with multiplier 2 */
    {1, 5, 6, 3, 6, 3, 3, 1, 1, 1, 1, 3, {1, 1, 1, 1}, true},
    /* blocks of 32 and 16 channels and a partial one, rows of pixels that
     * fill no whole tile of 6 nor of 12 (the AVX2 and AVX-512 tiles) */
    {1, 5, 25, 19, 70, 3, 3, 1, 1, 1, 1, 1, {1, 1, 1, 1}, true,
        SIMNPU_IR_ACT_RELU},
    {1, 3, 13, 5, 24, 3, 3, 1, 2, 1, 1, 1, {1, 0, 1, 2}, true},
    /* 1x1 over a 7x7 map: its 49 pixels as one row of tiles */
    {1, 7, 7, 40, 48, 1, 1, 1, 1, 1, 1, 1, {0, 0, 0, 0}, true,
        SIMNPU_IR_ACT_CLIP, 0.0f, 6.0f},
    /* grouped 1x1: the pixels stay row by row */
    {1, 7, 7, 8, 16, 1, 1, 1, 1, 1, 1, 2, {0, 0, 0, 0}, true},
    /* depthwise whose padding reaches past every tap of the border
     * pixels, and a dilated one with uneven padding */
    {1, 4, 3, 40, 40, 3, 3, 1, 1, 1, 1, 40, {3, 3, 3, 3}, true},
    {1, 9, 8, 9, 9, 3, 3, 2, 3, 2, 2, 9, {0, 3, 2, 1}, false},
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


/* ------------------------------------------------------------------ */
/* matmul */

static void
naive_matmul (const float *a, const float *b, float *o, int m, int k, int n)
{
  int i, j, l;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      double acc = 0;
      for (l = 0; l < k; l++)
        acc += (double) a[i * k + l] * b[l * n + j];
      o[i * n + j] = (float) acc;
    }
}

static void
test_matmul (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  /* [2, 1, 3, 4] x [3, 4, 21] -> [2, 3, 3, 21] */
  float *a = random_floats (rng, 2 * 3 * 4), *b = random_floats (rng,
      3 * 4 * 21), *bias = random_floats (rng, 21);
  float want[2 * 3 * 3 * 21], v[3] = { 1, 2, 3 }, m23[6] = { 1, 2, 3, 4, 5,
    6
  };
  one_op o;
  int i, j;

  {
    in_spec in[2] = { {F32 (4, 2, 1, 3, 4),.data = a},
    {F32 (3, 3, 4, 21),.data = b,.is_const = true}
    };
    for (i = 0; i < 2; i++)
      for (j = 0; j < 3; j++)
        naive_matmul (a + i * 12, b + j * 84, want + (i * 3 + j) * 63, 3, 4,
            21);
    one_op_init (&o, SIMNPU_IR_MATMUL, 2, in, 1);
    one_op_run (&o);
    g_assert_cmpint (one_op_out (&o, 0)->rank, ==, 4);
    g_assert_cmpint (one_op_out (&o, 0)->dims[1], ==, 3);
    g_assert_cmpint (one_op_out (&o, 0)->dims[3], ==, 21);
    one_op_clear (&o);
    one_op_init (&o, SIMNPU_IR_MATMUL, 2, in, 1);
    one_op_check_f32 (&o, want, G_N_ELEMENTS (want), TOL);
    /* B as a run-time input, bias and relu */
    in[1].is_const = false;
    {
      in_spec in3[3] = { in[0], in[1], {F32 (1, 21),.data = bias}
      };
      for (i = 0; i < (int) G_N_ELEMENTS (want); i++)
        want[i] = MAX (0.0f, want[i] + bias[i % 21]);
      one_op_init (&o, SIMNPU_IR_MATMUL, 3, in3, 1);
      o.n->attrs.act = SIMNPU_IR_ACT_RELU;
      one_op_check_f32 (&o, want, G_N_ELEMENTS (want), TOL);
    }
  }
  {
    /* [3] x [3, 2] -> [2]; [2, 3] x [3] -> [2] */
    in_spec in[2] = { {F32 (1, 3),.data = v}, {F32 (2, 3, 2),.data = m23} };
    float w1[2] = { 1 * 1 + 2 * 3 + 3 * 5, 1 * 2 + 2 * 4 + 3 * 6 };
    float w2[2] = { 1 * 1 + 2 * 2 + 3 * 3, 4 * 1 + 5 * 2 + 6 * 3 };
    one_op_init (&o, SIMNPU_IR_MATMUL, 2, in, 1);
    one_op_run (&o);
    g_assert_cmpint (one_op_out (&o, 0)->rank, ==, 1);
    one_op_clear (&o);
    one_op_init (&o, SIMNPU_IR_MATMUL, 2, in, 1);
    one_op_check_f32 (&o, w1, 2, TOL);
    in[0] = (in_spec) {
    F32 (2, 2, 3),.data = m23};
    in[1] = (in_spec) {
    F32 (1, 3),.data = v};
    one_op_init (&o, SIMNPU_IR_MATMUL, 2, in, 1);
    one_op_check_f32 (&o, w2, 2, TOL);
  }
  {
    /* batch broadcast either way: [3, 4] x [2, 4, 5], [2, 3, 4] x [4, 5],
     * [2, 1, 3, 4] x [1, 2, 4, 5] */
    static const int64_t shapes[3][2][4] = {
      {{0, 0, 3, 4}, {0, 2, 4, 5}},
      {{0, 2, 3, 4}, {0, 0, 4, 5}},
      {{2, 1, 3, 4}, {1, 2, 4, 5}},
    };
    static const unsigned ranks[3][2] = { {2, 3}, {3, 2}, {4, 4} };
    int c;
    for (c = 0; c < 3; c++) {
      float *aa = random_floats (rng, 2 * 3 * 4);
      float *bb = random_floats (rng, 2 * 4 * 5), ww[2 * 2 * 3 * 5];
      in_spec in[2] = { {SIMNPU_IR_F32, ranks[c][0],.data = aa},
      {SIMNPU_IR_F32, ranks[c][1],.data = bb,.is_const = c == 1}
      };
      int p, q;
      memcpy (in[0].dims, shapes[c][0] + 4 - ranks[c][0],
          ranks[c][0] * sizeof (int64_t));
      memcpy (in[1].dims, shapes[c][1] + 4 - ranks[c][1],
          ranks[c][1] * sizeof (int64_t));
      /* output batch [p, q] over at most 2 x 2; A and B matrices picked
       * by their own batch dims */
      for (p = 0; p < 2; p++)
        for (q = 0; q < 2; q++) {
          int ia = c == 0 ? 0 : c == 1 ? q : p;
          int ib = c == 0 ? q : c == 1 ? 0 : q;
          naive_matmul (aa + ia * 12, bb + ib * 20, ww + (p * 2 + q) * 15,
              3, 4, 5);
        }
      one_op_init (&o, SIMNPU_IR_MATMUL, 2, in, 1);
      /* cases 0 and 1 have one batch axis of 2: the outputs of p = 0 */
      one_op_check_f32 (&o, ww, (size_t) (c < 2 ? 2 : 4) * 15, TOL);
      g_free (aa);
      g_free (bb);
    }
  }
  g_free (a);
  g_free (b);
  g_free (bias);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* element-wise */

static void
test_binary (void)
{
  float a[6] = { 1, 2, 3, 4, 5, 6 }, b[3] = { 10, 20, 30 };
  float add[6] = { 11, 22, 33, 14, 25, 36 };
  int32_t ia[4] = { 7, -7, 7, -7 }, ib[4] = { 2, 2, -2, -2 };
  int32_t div[4] = { 3, -3, -3, 3 }, fdiv[4] = { 3, -4, -4, 3 };
  int32_t fmod_[4] = { 1, 1, -1, -1 };
  float fa[2] = { 5.5f, -5.5f }, fb[2] = { 2, 2 }, fm[2] = { 1.5f, 0.5f };
  float two = 2.5f;
  uint8_t less[6] = { 1, 1, 0, 0, 0, 0 };
  int64_t pa[3] = { 2, -3, 5 }, pb[3] = { 10, 3, 0 };
  int64_t pw[3] = { 1024, -27, 1 };
  float m0[2] = { 1, 8 }, m1[2] = { 5, 2 }, m2[1] = { 4 };
  float mx[2] = { 5, 8 }, mn[2] = { 1, 2 };
  float pr_x[4] = { -2, -1, 1, 2 }, pr_s[2] = { 0.5f, 0.25f };
  float pr[4] = { -1, -0.25f, 1, 2 };
  one_op o;

  {
    in_spec in[2] = { {F32 (2, 2, 3),.data = a}, {F32 (1, 3),.data = b} };
    one_op_init (&o, SIMNPU_IR_ADD, 2, in, 1);
    one_op_check_f32 (&o, add, 6, 0);
  }
  {
    /* a lower-rank first operand: [1] x [3, 1] -> [3, 1] */
    float al = 2, xs[3] = { 1, 2, 3 }, mul[3] = { 2, 4, 6 };
    in_spec in[2] = { {F32 (1, 1),.data = &al}, {F32 (2, 3, 1),.data = xs} };
    one_op_init (&o, SIMNPU_IR_MUL, 2, in, 1);
    one_op_run (&o);
    g_assert_cmpint (one_op_out (&o, 0)->rank, ==, 2);
    g_assert_cmpint (one_op_out (&o, 0)->dims[0], ==, 3);
    g_assert_cmpint (one_op_out (&o, 0)->dims[1], ==, 1);
    one_op_clear (&o);
    one_op_init (&o, SIMNPU_IR_MUL, 2, in, 1);
    one_op_check_f32 (&o, mul, 3, 0);
  }
  {
    in_spec in[2] = { {SIMNPU_IR_I32, 1, {4},.data = ia},
    {SIMNPU_IR_I32, 1, {4},.data = ib}
    };
    one_op_init (&o, SIMNPU_IR_DIV, 2, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I32, div, 4);
    one_op_init (&o, SIMNPU_IR_FLOOR_DIV, 2, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I32, fdiv, 4);
    one_op_init (&o, SIMNPU_IR_FLOOR_MOD, 2, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I32, fmod_, 4);
  }
  {
    in_spec in[2] = { {F32 (1, 2),.data = fa}, {F32 (1, 2),.data = fb} };
    one_op_init (&o, SIMNPU_IR_FLOOR_MOD, 2, in, 1);
    one_op_check_f32 (&o, fm, 2, TOL);
  }
  {
    in_spec in[2] = { {F32 (2, 2, 3),.data = a}, {F32 (0),.data = &two} };
    one_op_init (&o, SIMNPU_IR_LESS, 2, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_BOOL, less, 6);
  }
  {
    in_spec in[2] = { {SIMNPU_IR_I64, 1, {3},.data = pa},
    {SIMNPU_IR_I64, 1, {3},.data = pb}
    };
    one_op_init (&o, SIMNPU_IR_POW, 2, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I64, pw, 3);
  }
  {
    /* exponents of another dtype (ONNX test_pow_types_*) */
    float fx[3] = { 1, 2, 3 }, fp[3] = { 1, 32, 729 };
    int64_t le[3] = { 4, 5, 6 };
    int32_t ix[3] = { 1, 2, 3 }, ip[3] = { 1, 32, 729 };
    float fe[3] = { 4, 5, 6 };
    in_spec in1[2] = { {F32 (1, 3),.data = fx},
    {SIMNPU_IR_I64, 1, {3},.data = le}
    };
    in_spec in2[2] = { {SIMNPU_IR_I32, 1, {3},.data = ix},
    {F32 (1, 3),.data = fe}
    };
    one_op_init (&o, SIMNPU_IR_POW, 2, in1, 1);
    one_op_check_f32 (&o, fp, 3, TOL);
    one_op_init (&o, SIMNPU_IR_POW, 2, in2, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I32, ip, 3);
  }
  {
    in_spec in[3] = { {F32 (1, 2),.data = m0}, {F32 (1, 2),.data = m1},
    {F32 (1, 1),.data = m2}
    };
    float mx3[2] = { 5, 8 };
    one_op_init (&o, SIMNPU_IR_MAXIMUM, 2, in, 1);
    one_op_check_f32 (&o, mx, 2, 0);
    one_op_init (&o, SIMNPU_IR_MINIMUM, 2, in, 1);
    one_op_check_f32 (&o, mn, 2, 0);
    one_op_init (&o, SIMNPU_IR_MAXIMUM, 3, in, 1);
    one_op_check_f32 (&o, mx3, 2, 0);
  }
  {
    /* slope broadcast along the last axis */
    in_spec in[2] = { {F32 (2, 2, 2),.data = pr_x}, {F32 (1, 2),.data = pr_s}
    };
    one_op_init (&o, SIMNPU_IR_PRELU, 2, in, 1);
    one_op_check_f32 (&o, pr, 4, 0);
  }
  {
    uint8_t c[2] = { 1, 0 }, t[2] = { 1, 1 }, ao[2] = { 1, 0 };
    int64_t wx[4] = { 1, 2, 3, 4 }, wy = -1, wr[4] = { 1, 2, -1, -1 };
    in_spec in[3] = { {SIMNPU_IR_BOOL, 2, {2, 1},.data = c},
    {SIMNPU_IR_I64, 2, {2, 2},.data = wx}, {SIMNPU_IR_I64, 0,.data = &wy}
    };
    in_spec inb[2] = { {SIMNPU_IR_BOOL, 1, {2},.data = c},
    {SIMNPU_IR_BOOL, 1, {2},.data = t}
    };
    one_op_init (&o, SIMNPU_IR_WHERE, 3, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I64, wr, 4);
    one_op_init (&o, SIMNPU_IR_AND, 2, inb, 1);
    one_op_check_bytes (&o, SIMNPU_IR_BOOL, ao, 2);
  }
}

static void
test_unary (void)
{
  float x[6] = { -3, -0.5f, 0, 0.5f, 1.5f, 4 };
  float hs[6] = { 0, 0.4f, 0.5f, 0.6f, 0.8f, 1 };
  float hw[6] = { 0, -0.5f * (0.5f - 0.5f / 6), 0, 0.5f * (0.5f + 0.5f / 6),
    1.5f * (0.5f + 1.5f / 6), 4
  };
  float rd_in[6] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.6f };
  float rd[6] = { 0, 2, 2, -0.0f, -2, 3 };
  float sg[6] = { -1, -1, 0, 1, 1, 1 };
  float elu[6], selu[6], sp[6], erf_[6], clip[6];
  int32_t ix[4] = { -5, 0, 3, G_MININT32 + 1 }, iabs[4] = { 5, 0, 3,
    G_MAXINT32
  };
  simnpu__ir_attrs at = { 0 };
  int64_t d6[1] = { 6 };
  one_op o;
  int i;

  for (i = 0; i < 6; i++) {
    elu[i] = x[i] < 0 ? 2.0f * (expf (x[i]) - 1) : x[i];
    selu[i] = 1.0507f * (x[i] <= 0 ? 1.6733f * (expf (x[i]) - 1) : x[i]);
    sp[i] = logf (1 + expf (x[i]));
    erf_[i] = erff (x[i]);
    clip[i] = CLAMP (x[i], -1.0f, 1.0f);
  }
  at.f[0] = 0.2f;
  at.f[1] = 0.5f;
  hs[0] = MAX (0.0f, 0.2f * -3 + 0.5f);
  hs[1] = 0.2f * -0.5f + 0.5f;
  hs[3] = 0.2f * 0.5f + 0.5f;
  hs[4] = 0.2f * 1.5f + 0.5f;
  hs[5] = MIN (1.0f, 0.2f * 4 + 0.5f);
  check_unary_graph (SIMNPU_IR_HARD_SIGMOID, &at, 1, d6, x, hs, 6);
  check_unary_graph (SIMNPU_IR_HARD_SWISH, NULL, 1, d6, x, hw, 6);
  check_unary_graph (SIMNPU_IR_ROUND, NULL, 1, d6, rd_in, rd, 6);
  check_unary_graph (SIMNPU_IR_SIGN, NULL, 1, d6, x, sg, 6);
  at.f[0] = 2.0f;
  check_unary_graph (SIMNPU_IR_ELU, &at, 1, d6, x, elu, 6);
  at.f[0] = 1.6733f;
  at.f[1] = 1.0507f;
  check_unary_graph (SIMNPU_IR_SELU, &at, 1, d6, x, selu, 6);
  check_unary_graph (SIMNPU_IR_SOFTPLUS, NULL, 1, d6, x, sp, 6);
  check_unary_graph (SIMNPU_IR_ERF, NULL, 1, d6, x, erf_, 6);
  at.f[0] = -1;
  at.f[1] = 1;
  check_unary_graph (SIMNPU_IR_CLIP, &at, 1, d6, x, clip, 6);
  {
    in_spec in[1] = { {SIMNPU_IR_I32, 1, {4},.data = ix}
    };
    one_op_init (&o, SIMNPU_IR_ABS, 1, in, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I32, iabs, 4);
  }
  {
    /* float-only ops reject integers at inference */
    in_spec in[1] = { {SIMNPU_IR_I32, 1, {4},.data = ix}
    };
    simnpu_error error = { 0 };
    one_op_init (&o, SIMNPU_IR_SIGMOID, 1, in, 1);
    g_assert_cmpint (simnpu__ir_infer_shapes (o.g, &error), ==,
        SIMNPU_EUNSUPPORTED);
    g_assert_nonnull (strstr (error.message, "node 'op' (sigmoid)"));
    g_assert_nonnull (strstr (error.message, "f32"));
    one_op_clear (&o);
  }
}

static void
test_cast (void)
{
  float f[7] = { -1.7f, -0.5f, 0.5f, 1.7f, 2.5f, 0, 300.9f };
  int32_t fi[7] = { -1, 0, 0, 1, 2, 0, 300 };
  uint8_t fb[7] = { 1, 1, 1, 1, 1, 0, 1 };
  uint8_t fu[7] = { 255, 0, 0, 1, 2, 0, 44 };
  int64_t l[3] = { -3, 1 << 20, G_MAXINT64 };
  float lf[3] = { -3, 1 << 20, 9223372036854775807.0f };
  int8_t l8[3] = { -3, 0, -1 };
  one_op o;
  in_spec in[1] = { {F32 (1, 7),.data = f} };
  in_spec inl[1] = { {SIMNPU_IR_I64, 1, {3},.data = l} };

  one_op_init (&o, SIMNPU_IR_CAST, 1, in, 1);
  o.n->attrs.dtype = SIMNPU_IR_I32;
  one_op_check_bytes (&o, SIMNPU_IR_I32, fi, 7);
  one_op_init (&o, SIMNPU_IR_CAST, 1, in, 1);
  o.n->attrs.dtype = SIMNPU_IR_BOOL;
  one_op_check_bytes (&o, SIMNPU_IR_BOOL, fb, 7);
  one_op_init (&o, SIMNPU_IR_CAST, 1, in, 1);
  o.n->attrs.dtype = SIMNPU_IR_U8;
  one_op_check_bytes (&o, SIMNPU_IR_U8, fu, 7);
  one_op_init (&o, SIMNPU_IR_CAST, 1, inl, 1);
  o.n->attrs.dtype = SIMNPU_IR_F32;
  one_op_check_f32 (&o, lf, 3, 0);
  one_op_init (&o, SIMNPU_IR_CAST, 1, inl, 1);
  o.n->attrs.dtype = SIMNPU_IR_I8;
  one_op_check_bytes (&o, SIMNPU_IR_I8, l8, 3);
}

static void
test_softmax (void)
{
  float x[6] = { 1, 2, 3, 1, 1, 1001 };
  float sm1[6] = { 0.09003057f, 0.24472847f, 0.66524096f, 0, 0, 1 };
  float lsm1[6] = { -2.40760596f, -1.40760596f, -0.40760596f, -1000, -1000,
    0
  };
  float sm0[6] = { 0.5f, 0.73105858f, 0, 0.5f, 0.26894142f, 1 };
  one_op o;
  in_spec in[1] = { {F32 (2, 2, 3),.data = x} };

  one_op_init (&o, SIMNPU_IR_SOFTMAX, 1, in, 1);
  o.n->attrs.axis = 1;
  one_op_check_f32 (&o, sm1, 6, TOL);
  one_op_init (&o, SIMNPU_IR_LOG_SOFTMAX, 1, in, 1);
  o.n->attrs.axis = 1;
  one_op_check_f32 (&o, lsm1, 6, TOL);
  one_op_init (&o, SIMNPU_IR_SOFTMAX, 1, in, 1);
  o.n->attrs.axis = 0;
  one_op_check_f32 (&o, sm0, 6, TOL);
}

/* ------------------------------------------------------------------ */
/* pooling, resize (ONNX operator docs' examples, NHWC with one channel) */

static void
test_pool (void)
{
  float x[16], x25[25];
  float max_ceil[4] = { 11, 12, 15, 16 };
  float avg_ceil[4] = { 6, 7.5f, 12, 13.5f };
  float max_dil[4] = { 11, 12, 15, 16 };
  float avg_pad[4] = { 1.0f / 9, 3.0f / 9, 6.0f / 9, 9.0f / 9 };
  float avg_pad_row1 = 7.0f / 9;
  float avg_nopad[4] = { 1, 1.5f, 2, 3 };
  one_op o;
  in_spec in[1] = { {F32 (4, 1, 4, 4, 1),.data = x} };
  in_spec in25[1] = { {F32 (4, 1, 5, 5, 1),.data = x25} };
  int i;

  for (i = 0; i < 16; i++)
    x[i] = (float) (i + 1);
  for (i = 0; i < 25; i++)
    x25[i] = (float) (i + 1);
  one_op_init (&o, SIMNPU_IR_MAXPOOL, 1, in, 1);
  o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = 3;
  o.n->attrs.stride[0] = o.n->attrs.stride[1] = 2;
  o.n->attrs.ceil_mode = true;
  one_op_check_f32 (&o, max_ceil, 4, 0);
  one_op_init (&o, SIMNPU_IR_AVGPOOL, 1, in, 1);
  o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = 3;
  o.n->attrs.stride[0] = o.n->attrs.stride[1] = 2;
  o.n->attrs.ceil_mode = true;
  one_op_check_f32 (&o, avg_ceil, 4, TOL);
  one_op_init (&o, SIMNPU_IR_MAXPOOL, 1, in, 1);
  o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = 2;
  o.n->attrs.dilation[0] = o.n->attrs.dilation[1] = 2;
  one_op_check_f32 (&o, max_dil, 4, 0);
  {
    uint8_t u[16], um[4] = { 11, 12, 15, 16 };
    in_spec inu[1] = { {SIMNPU_IR_U8, 4, {1, 4, 4, 1},.data = u} };
    for (i = 0; i < 16; i++)
      u[i] = (uint8_t) (i + 1);
    one_op_init (&o, SIMNPU_IR_MAXPOOL, 1, inu, 1);
    o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = 2;
    o.n->attrs.dilation[0] = o.n->attrs.dilation[1] = 2;
    one_op_check_bytes (&o, SIMNPU_IR_U8, um, 4);
  }
  /* 5x5, kernel 3, pads 2: the first outputs (of 7x7), corners of the
   * window in the padding */
  one_op_init (&o, SIMNPU_IR_AVGPOOL, 1, in25, 1);
  o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = 3;
  for (i = 0; i < 4; i++)
    o.n->attrs.pads[i] = 2;
  o.n->attrs.count_include_pad = true;
  one_op_run (&o);
  g_assert_cmpint (one_op_out (&o, 0)->dims[1], ==, 7);
  g_assert_cmpint (one_op_out (&o, 0)->dims[2], ==, 7);
  assert_close (simnpu__ir_exec_data (o.x, o.outs[0]), avg_pad, 4, TOL);
  assert_close ((const float *) simnpu__ir_exec_data (o.x, o.outs[0]) + 7,
      &avg_pad_row1, 1, TOL);
  one_op_clear (&o);
  one_op_init (&o, SIMNPU_IR_AVGPOOL, 1, in25, 1);
  o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = 3;
  for (i = 0; i < 4; i++)
    o.n->attrs.pads[i] = 2;
  one_op_run (&o);
  assert_close (simnpu__ir_exec_data (o.x, o.outs[0]), avg_nopad, 4, TOL);
  one_op_clear (&o);
}

/* A global average of a 64x64 window, as MobileNetV3's squeeze-excite
 * blocks take it (selfie segmentation: AvgPool 64x64; others: Mean over
 * H and W): 2^24 then 4095 ones. The mean is (2^24 + 4095) / 4096 by
 * the op's definition; a float running sum stays at 2^24 (2^24 + 1 rounds
 * back to it) and gives 4096, 2.4e-4 off, which a model's sigmoid gates
 * then amplify. The second channel holds 0.1 everywhere. */
#define GLOBAL_SIDE 64
#define GLOBAL_BIG 16777216.0f

static void
fill_global_window (float *x)
{
  int i;

  for (i = 0; i < GLOBAL_SIDE * GLOBAL_SIDE; i++) {
    x[2 * i] = i == 0 ? GLOBAL_BIG : 1.0f;
    x[2 * i + 1] = 0.1f;
  }
}

static void
global_window_means (float *want)
{
  const double n = GLOBAL_SIDE * GLOBAL_SIDE;

  want[0] = (float) (((double) GLOBAL_BIG + (n - 1)) / n);
  want[1] = (float) ((double) 0.1f);
}

static void
test_pool_global (void)
{
  float *x = g_new (float, GLOBAL_SIDE * GLOBAL_SIDE * 2), want[2];
  in_spec in[1] = { {F32 (4, 1, GLOBAL_SIDE, GLOBAL_SIDE, 2),.data = x} };
  one_op o;

  fill_global_window (x);
  global_window_means (want);
  one_op_init (&o, SIMNPU_IR_AVGPOOL, 1, in, 1);
  o.n->attrs.kernel[0] = o.n->attrs.kernel[1] = GLOBAL_SIDE;
  o.n->attrs.stride[0] = o.n->attrs.stride[1] = GLOBAL_SIDE;
  /* within one float rounding of the mean */
  one_op_check_f32 (&o, want, 2, FLT_EPSILON);
  one_op_init (&o, SIMNPU_IR_REDUCE_MEAN, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, want, 2, FLT_EPSILON);
  g_free (x);
}

static void
check_resize (int mode, int coord, int nearest, int64_t oh, int64_t ow,
    const float *want)
{
  float x[4] = { 1, 2, 3, 4 };
  in_spec in[1] = { {F32 (4, 1, 2, 2, 1),.data = x} };
  one_op o;

  one_op_init (&o, SIMNPU_IR_RESIZE, 1, in, 1);
  o.n->attrs.mode = mode;
  o.n->attrs.coord = coord;
  o.n->attrs.nearest = nearest;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = oh;
  o.n->attrs.ints[1] = ow;
  one_op_check_f32 (&o, want, (size_t) (oh * ow), 1e-4f);
}

static void
test_resize (void)
{
  static const float half_pixel[16] = { 1, 1.25f, 1.75f, 2, 1.5f, 1.75f,
    2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4
  };
  static const float align[16] = { 1, 1.3333333f, 1.6666667f, 2,
    1.6666667f, 2, 2.3333333f, 2.6666667f, 2.3333333f, 2.6666667f, 3,
    3.3333333f, 3, 3.3333333f, 3.6666667f, 4
  };
  static const float asym[16] = { 1, 1.5f, 2, 2, 2, 2.5f, 3, 3, 3, 3.5f, 4,
    4, 3, 3.5f, 4, 4
  };
  static const float pytorch_col[4] = { 1, 1.5f, 2.5f, 3 };
  static const float nn_floor[16] = { 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3,
    3, 4, 4
  };
  static const float nn_tf[16] = { 1, 2, 2, 2, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4,
    4, 4
  };
  static const float nn_ceil_hp[16] = { 1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4,
    3, 3, 4, 4
  };
  /* 2 -> 3, half_pixel: coordinates -1/6, 0.5, 7/6: round_prefer_floor
   * gives 0, 0, 1 and round_prefer_ceil 0, 1, 1 */
  static const float nn_pf[9] = { 1, 1, 2, 1, 1, 2, 3, 3, 4 };
  static const float nn_pc[9] = { 1, 2, 2, 3, 4, 4, 3, 4, 4 };

  check_resize (SIMNPU_IR_RESIZE_BILINEAR, SIMNPU_IR_COORD_HALF_PIXEL, 0, 4,
      4, half_pixel);
  {
    /* explicit scales: ONNX's resize_downsample_scales_linear and
     * _nearest (scale 0.6 on 2x4) */
    float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    float lin[2] = { 2.6666665f, 4.3333331f }, nn[2] = { 1, 3 };
    in_spec in[1] = { {F32 (4, 1, 2, 4, 1),.data = x} };
    one_op o;
    int m;
    for (m = 0; m < 2; m++) {
      one_op_init (&o, SIMNPU_IR_RESIZE, 1, in, 1);
      o.n->attrs.mode = m == 0 ? SIMNPU_IR_RESIZE_BILINEAR
          : SIMNPU_IR_RESIZE_NEAREST;
      o.n->attrs.n_ints = 2;
      o.n->attrs.ints[0] = 1;
      o.n->attrs.ints[1] = 2;
      o.n->attrs.f[1] = o.n->attrs.f[2] = 0.6f;
      one_op_check_f32 (&o, m == 0 ? lin : nn, 2, 1e-5f);
    }
    /* align_corners maps with the unrounded length 4 * 0.6 */
    {
      float ac[2] = { 1, 1 + 3 / 1.4f };
      one_op_init (&o, SIMNPU_IR_RESIZE, 1, in, 1);
      o.n->attrs.mode = SIMNPU_IR_RESIZE_BILINEAR;
      o.n->attrs.coord = SIMNPU_IR_COORD_ALIGN_CORNERS;
      o.n->attrs.n_ints = 2;
      o.n->attrs.ints[0] = 1;
      o.n->attrs.ints[1] = 2;
      o.n->attrs.f[1] = o.n->attrs.f[2] = 0.6f;
      one_op_check_f32 (&o, ac, 2, 1e-5f);
    }
  }
  check_resize (SIMNPU_IR_RESIZE_BILINEAR,
      SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL, 0, 4, 4, half_pixel);
  check_resize (SIMNPU_IR_RESIZE_BILINEAR, SIMNPU_IR_COORD_ALIGN_CORNERS, 0,
      4, 4, align);
  check_resize (SIMNPU_IR_RESIZE_BILINEAR, SIMNPU_IR_COORD_ASYMMETRIC, 0, 4,
      4, asym);
  check_resize (SIMNPU_IR_RESIZE_BILINEAR,
      SIMNPU_IR_COORD_PYTORCH_HALF_PIXEL, 0, 4, 1, pytorch_col);
  check_resize (SIMNPU_IR_RESIZE_NEAREST, SIMNPU_IR_COORD_ASYMMETRIC,
      SIMNPU_IR_NEAREST_FLOOR, 4, 4, nn_floor);
  check_resize (SIMNPU_IR_RESIZE_NEAREST,
      SIMNPU_IR_COORD_TF_HALF_PIXEL_FOR_NN,
      SIMNPU_IR_NEAREST_ROUND_PREFER_FLOOR, 4, 4, nn_tf);
  check_resize (SIMNPU_IR_RESIZE_NEAREST, SIMNPU_IR_COORD_HALF_PIXEL,
      SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL, 4, 4, nn_ceil_hp);
  check_resize (SIMNPU_IR_RESIZE_NEAREST, SIMNPU_IR_COORD_HALF_PIXEL,
      SIMNPU_IR_NEAREST_ROUND_PREFER_FLOOR, 3, 3, nn_pf);
  check_resize (SIMNPU_IR_RESIZE_NEAREST, SIMNPU_IR_COORD_HALF_PIXEL,
      SIMNPU_IR_NEAREST_ROUND_PREFER_CEIL, 3, 3, nn_pc);
}

/* Bilinear interpolation rounds as TensorFlow's kernels do, top +
 * (bottom - top) * fraction in float: upsampling 0.1, 1.8 by 2
 * (half-pixel, fractions 0.25 and 0.75) gives exactly what TF.js's cpu
 * and wasm backends return, 1.375 at 0.75 where the weighted sum
 * 0.1 * 0.25 + 1.8 * 0.75 rounds to 1.3749999. Along a row and along a
 * column (each axis's interpolation). */
static void
test_resize_lerp (void)
{
  float x[2] = { 0.1f, 1.8f };
  static const float want[4] = { 0.1f, 0x1.0cccccp-1f, 0x1.6p+0f, 1.8f };
  in_spec row[1] = { {F32 (4, 1, 1, 2, 1),.data = x} };
  in_spec col[1] = { {F32 (4, 1, 2, 1, 1),.data = x} };
  one_op o;
  int axis;

  for (axis = 0; axis < 2; axis++) {
    one_op_init (&o, SIMNPU_IR_RESIZE, 1, axis == 0 ? row : col, 1);
    o.n->attrs.mode = SIMNPU_IR_RESIZE_BILINEAR;
    o.n->attrs.coord = SIMNPU_IR_COORD_HALF_PIXEL;
    o.n->attrs.n_ints = 2;
    o.n->attrs.ints[0] = axis == 0 ? 1 : 4;
    o.n->attrs.ints[1] = axis == 0 ? 4 : 1;
    one_op_check_f32 (&o, want, 4, 0);
  }
}

static void
test_reduce (void)
{
  float x[6] = { 1, 5, 3, 4, 2, 6 };
  float mean1[2] = { 3, 4 }, sum0[3] = { 5, 7, 9 }, mx[1] = { 6 };
  float prod1[2] = { 15, 48 };
  int64_t am1[2] = { 1, 2 }, amin0[3] = { 0, 1, 0 };
  float ties[4] = { 2, 7, 7, 1 };
  int64_t tie[1] = { 1 };
  int32_t ix[4] = { 3, -1, 4, 2 }, isum[1] = { 8 };
  float bx[4] = { 1, 2, 3, 4 }, sc[2] = { 2, 1 }, bb[2] = { 0, 1 };
  float mu[2] = { 1, 2 }, var[2] = { 4, 0 };
  float bn[4];
  in_spec in[1] = { {F32 (2, 2, 3),.data = x} };
  in_spec it[1] = { {F32 (1, 4),.data = ties} };
  in_spec ii[1] = { {SIMNPU_IR_I32, 1, {4},.data = ix} };
  in_spec ib[5] = { {F32 (2, 2, 2),.data = bx}, {F32 (1, 2),.data = sc},
  {F32 (1, 2),.data = bb}, {F32 (1, 2),.data = mu}, {F32 (1, 2),.data = var}
  };
  one_op o;
  int i;

  one_op_init (&o, SIMNPU_IR_REDUCE_MEAN, 1, in, 1);
  o.n->attrs.n_ints = 1;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.keepdims = true;
  one_op_run (&o);
  g_assert_cmpint (one_op_out (&o, 0)->rank, ==, 2);
  g_assert_cmpint (one_op_out (&o, 0)->dims[1], ==, 1);
  one_op_clear (&o);
  one_op_init (&o, SIMNPU_IR_REDUCE_MEAN, 1, in, 1);
  o.n->attrs.n_ints = 1;
  o.n->attrs.ints[0] = -1;
  one_op_check_f32 (&o, mean1, 2, TOL);
  one_op_init (&o, SIMNPU_IR_REDUCE_SUM, 1, in, 1);
  o.n->attrs.n_ints = 1;
  o.n->attrs.ints[0] = 0;
  one_op_check_f32 (&o, sum0, 3, 0);
  one_op_init (&o, SIMNPU_IR_REDUCE_MAX, 1, in, 1);
  one_op_check_f32 (&o, mx, 1, 0);
  one_op_init (&o, SIMNPU_IR_REDUCE_PROD, 1, in, 1);
  o.n->attrs.n_ints = 1;
  o.n->attrs.ints[0] = 1;
  one_op_check_f32 (&o, prod1, 2, 0);
  one_op_init (&o, SIMNPU_IR_REDUCE_SUM, 1, ii, 1);
  one_op_check_bytes (&o, SIMNPU_IR_I32, isum, 1);
  one_op_init (&o, SIMNPU_IR_ARGMAX, 1, in, 1);
  o.n->attrs.axis = 1;
  one_op_check_bytes (&o, SIMNPU_IR_I64, am1, 2);
  one_op_init (&o, SIMNPU_IR_ARGMIN, 1, in, 1);
  o.n->attrs.axis = 0;
  one_op_check_bytes (&o, SIMNPU_IR_I64, amin0, 3);
  one_op_init (&o, SIMNPU_IR_ARGMAX, 1, it, 1);
  one_op_check_bytes (&o, SIMNPU_IR_I64, tie, 1);
  for (i = 0; i < 4; i++)
    bn[i] = (bx[i] - mu[i % 2]) / sqrtf (var[i % 2] + 0.5f) * sc[i % 2]
        + bb[i % 2];
  one_op_init (&o, SIMNPU_IR_BATCHNORM, 5, ib, 1);
  o.n->attrs.f[0] = 0.5f;
  one_op_check_f32 (&o, bn, 4, TOL);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ir/conv2d", test_conv2d);
  g_test_add_func ("/ir/conv2d-bench", test_conv2d_bench);
  g_test_add_func ("/ir/matmul", test_matmul);
  g_test_add_func ("/ir/binary", test_binary);
  g_test_add_func ("/ir/unary", test_unary);
  g_test_add_func ("/ir/cast", test_cast);
  g_test_add_func ("/ir/softmax", test_softmax);
  g_test_add_func ("/ir/pool", test_pool);
  g_test_add_func ("/ir/pool-global", test_pool_global);
  g_test_add_func ("/ir/resize", test_resize);
  g_test_add_func ("/ir/resize-lerp", test_resize_lerp);
  g_test_add_func ("/ir/reduce", test_reduce);
  return g_test_run ();
}
