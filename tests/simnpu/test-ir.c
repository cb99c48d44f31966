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
static void
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


/* a graph of one node whose inputs are graph inputs (or constants) */
typedef struct
{
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  const void *data;
  bool is_const;
} in_spec;

typedef struct
{
  simnpu__ir_graph *g;
  simnpu__ir_node *n;
  int outs[SIMNPU_IR_MAX_OUTPUTS];
  const void *data[SIMNPU_IR_MAX_INPUTS];
  simnpu__ir_exec *x;
} one_op;

static void
one_op_init (one_op * o, simnpu__ir_op op, unsigned n_in,
    const in_spec * specs, unsigned n_out)
{
  int ins[SIMNPU_IR_MAX_INPUTS];
  unsigned i, k = 0;

  memset (o, 0, sizeof (*o));
  o->g = simnpu__ir_graph_new ("one");
  for (i = 0; i < n_in; i++) {
    gchar *name = g_strdup_printf ("in%u", i);
    if (specs[i].is_const)
      ins[i] = add_const (o->g, name, specs[i].dtype, specs[i].rank,
          specs[i].dims, specs[i].data);
    else {
      ins[i] = add_input (o->g, name, specs[i].dtype, specs[i].rank,
          specs[i].dims);
      o->data[k++] = specs[i].data;
    }
    g_free (name);
  }
  for (i = 0; i < n_out; i++) {
    gchar *name = g_strdup_printf ("out%u", i);
    o->outs[i] = add_out (o->g, name);
    g_free (name);
  }
  o->n = simnpu__ir_add_node (o->g, op, "op", n_in, ins, n_out, o->outs);
  g_assert_nonnull (o->n);
}

static void write_seed (const char *dir, const char *name, const void *data,
    size_t len);

static const void *
one_op_run (one_op * o)
{
  const char *seeds = g_getenv (SEEDS_ENV);

  o->x = run_graph (o->g, o->data);
  if (seeds != NULL) {
    /* the fuzz corpus: one graph per op the tests use */
    GByteArray *a = g_byte_array_new ();
    gchar *name = g_strdup_printf ("%s.bin",
        simnpu__ir_op_name (o->n->op));
    simnpu__ir_serialize (o->g, a);
    write_seed (seeds, name, a->data, a->len);
    g_free (name);
    g_byte_array_unref (a);
  }
  return simnpu__ir_exec_data (o->x, o->outs[0]);
}

static const simnpu__ir_tensor *
one_op_out (one_op * o, unsigned i)
{
  return &o->g->tensors[o->outs[i]];
}

static void
one_op_clear (one_op * o)
{
  simnpu__ir_exec_free (o->x);
  simnpu__ir_graph_free (o->g);
}

/* runs and compares the first output with want (f32) */
static void
one_op_check_f32 (one_op * o, const float *want, size_t n, float tol)
{
  const float *got = one_op_run (o);

  g_assert_cmpint (one_op_out (o, 0)->dtype, ==, SIMNPU_IR_F32);
  g_assert_cmpint (simnpu__ir_tensor_elements (one_op_out (o, 0)), ==, n);
  assert_close (got, want, n, tol);
  one_op_clear (o);
}

static void
one_op_check_bytes (one_op * o, simnpu__ir_dtype dtype, const void *want,
    size_t n)
{
  const void *got = one_op_run (o);

  g_assert_cmpint (one_op_out (o, 0)->dtype, ==, dtype);
  g_assert_cmpint (simnpu__ir_tensor_elements (one_op_out (o, 0)), ==, n);
  g_assert_cmpmem (got, n * simnpu__ir_dtype_size (dtype), want,
      n * simnpu__ir_dtype_size (dtype));
  one_op_clear (o);
}

#define F32(r, ...) SIMNPU_IR_F32, r, { __VA_ARGS__ }

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

/* ------------------------------------------------------------------ */
/* data movement */

static void
test_slice (void)
{
  float x[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
  float s1[3] = { 8, 5, 2 }, rev[10] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 };
  float m[6] = { 0, 1, 2, 3, 4, 5 }, s2[2] = { 5, 3 };
  int64_t i8[3] = { 1, 2, 3 }, i8s[1] = { 2 };
  in_spec in[1] = { {F32 (1, 10),.data = x} };
  in_spec in2[1] = { {F32 (2, 2, 3),.data = m} };
  in_spec ini[1] = { {SIMNPU_IR_I64, 1, {3},.data = i8} };
  one_op o;

  one_op_init (&o, SIMNPU_IR_SLICE, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 8;
  o.n->attrs.ints[1] = 1;
  o.n->attrs.steps[0] = -3;
  one_op_check_f32 (&o, s1, 3, 0);
  /* the whole axis reversed: end -1 is "before index 0" once resolved */
  one_op_init (&o, SIMNPU_IR_SLICE, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = G_MAXINT64;
  o.n->attrs.ints[1] = -1;
  o.n->attrs.steps[0] = -1;
  one_op_check_f32 (&o, rev, 10, 0);
  /* [2, 3]: row 1, columns 2 down to 0 step -2 */
  one_op_init (&o, SIMNPU_IR_SLICE, 1, in2, 1);
  o.n->attrs.n_ints = 4;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  o.n->attrs.ints[2] = 2;
  o.n->attrs.ints[3] = -1;
  o.n->attrs.steps[0] = 1;
  o.n->attrs.steps[1] = -2;
  one_op_check_f32 (&o, s2, 2, 0);
  one_op_init (&o, SIMNPU_IR_SLICE, 1, ini, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  o.n->attrs.steps[0] = 1;
  one_op_check_bytes (&o, SIMNPU_IR_I64, i8s, 1);
}

static void
test_pad (void)
{
  float x[3] = { 1, 2, 3 };
  float reflect[7] = { 3, 2, 1, 2, 3, 2, 1 };
  float edge[6] = { 1, 1, 2, 3, 3, 3 };
  float cst[5] = { 9, 1, 2, 3, 9 };
  float m[6] = { 1, 2, 3, 4, 5, 6 };
  /* [2, 3] reflect by 1 on both axes -> [4, 5] */
  float m_reflect[20] = { 5, 4, 5, 6, 5, 2, 1, 2, 3, 2, 5, 4, 5, 6, 5, 2, 1,
    2, 3, 2
  };
  uint8_t u[2] = { 7, 8 }, upad[4] = { 5, 7, 8, 5 };
  in_spec in[1] = { {F32 (1, 3),.data = x} };
  in_spec in2[1] = { {F32 (2, 2, 3),.data = m} };
  in_spec inu[1] = { {SIMNPU_IR_U8, 1, {2},.data = u} };
  one_op o;
  int i;

  one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
  o.n->attrs.mode = SIMNPU_IR_PAD_REFLECT;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 2;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, reflect, 7, 0);
  one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
  o.n->attrs.mode = SIMNPU_IR_PAD_EDGE;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, edge, 6, 0);
  one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 1;
  o.n->attrs.f[0] = 9;
  one_op_check_f32 (&o, cst, 5, 0);
  /* negative pads crop, also next to positive ones */
  for (i = 0; i < 3; i++) {
    static const int64_t after[3] = { -1, 0, 1 };
    static const float crops[3][3] = { {2}, {2, 3}, {2, 3, 9} };
    one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
    o.n->attrs.n_ints = 2;
    o.n->attrs.ints[0] = -1;
    o.n->attrs.ints[1] = after[i];
    o.n->attrs.f[0] = 9;
    one_op_check_f32 (&o, crops[i], (size_t) i + 1, 0);
  }
  {
    /* ONNX crops first and reflects within what is kept: [1, 2, 3, 4]
     * with pads 3, -2 -> reflect [1, 2] by 3 */
    float x4[4] = { 1, 2, 3, 4 }, want4[5] = { 2, 1, 2, 1, 2 };
    in_spec in4[1] = { {F32 (1, 4),.data = x4} };
    one_op_init (&o, SIMNPU_IR_PAD, 1, in4, 1);
    o.n->attrs.mode = SIMNPU_IR_PAD_REFLECT;
    o.n->attrs.n_ints = 2;
    o.n->attrs.ints[0] = 3;
    o.n->attrs.ints[1] = -2;
    one_op_check_f32 (&o, want4, 5, 0);
  }
  one_op_init (&o, SIMNPU_IR_PAD, 1, in2, 1);
  o.n->attrs.mode = SIMNPU_IR_PAD_REFLECT;
  o.n->attrs.n_ints = 4;
  o.n->attrs.ints[0] = o.n->attrs.ints[1] = o.n->attrs.ints[2] =
      o.n->attrs.ints[3] = 1;
  one_op_check_f32 (&o, m_reflect, 20, 0);
  one_op_init (&o, SIMNPU_IR_PAD, 1, inu, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = o.n->attrs.ints[1] = 1;
  o.n->attrs.f[0] = 5;
  one_op_check_bytes (&o, SIMNPU_IR_U8, upad, 4);
}

static void
test_gather (void)
{
  float x[6] = { 1, 2, 3, 4, 5, 6 };
  int64_t idx[3] = { -1, 0, 1 };
  int32_t idx32[2] = { 2, -3 };
  float rows[9] = { 4, 5, 6, 1, 2, 3, 4, 5, 6 };
  float cols[4] = { 3, 1, 6, 4 };
  in_spec in[2] = { {F32 (2, 2, 3),.data = x},
  {SIMNPU_IR_I64, 1, {3},.data = idx,.is_const = true}
  };
  in_spec in32[2] = { {F32 (2, 2, 3),.data = x},
  {SIMNPU_IR_I32, 1, {2},.data = idx32}
  };
  int64_t bad = 2;
  in_spec inb[2] = { {F32 (2, 2, 3),.data = x},
  {SIMNPU_IR_I64, 0,.data = &bad}
  };
  simnpu_error error = { 0 };
  one_op o;

  one_op_init (&o, SIMNPU_IR_GATHER, 2, in, 1);
  one_op_check_f32 (&o, rows, 9, 0);
  one_op_init (&o, SIMNPU_IR_GATHER, 2, in32, 1);
  o.n->attrs.axis = 1;
  one_op_check_f32 (&o, cols, 4, 0);
  /* out of range at run time: an error, not a read past the data */
  one_op_init (&o, SIMNPU_IR_GATHER, 2, inb, 1);
  g_assert_cmpint (simnpu__ir_infer_shapes (o.g, &error), ==, 0);
  g_assert_cmpint (one_op_out (&o, 0)->rank, ==, 1);
  o.x = simnpu__ir_exec_new (o.g, &error);
  memcpy (simnpu__ir_exec_data (o.x, o.g->inputs[0]), x, sizeof (x));
  memcpy (simnpu__ir_exec_data (o.x, o.g->inputs[1]), &bad, sizeof (bad));
  g_assert_cmpint (simnpu__ir_exec_run (o.x, 0, 1, &error), ==, SIMNPU_EINVAL);
  g_assert_nonnull (strstr (error.message, "node 'op' (gather)"));
  one_op_clear (&o);
}

static void
test_movement (void)
{
  /* NCHW [1, 8, 2, 3] = 0..47 of ONNX's DepthToSpace example, as NHWC */
  static const float dcr[2][4][6] = {
    {{0, 12, 1, 13, 2, 14}, {24, 36, 25, 37, 26, 38}, {3, 15, 4, 16, 5, 17},
        {27, 39, 28, 40, 29, 41}},
    {{6, 18, 7, 19, 8, 20}, {30, 42, 31, 43, 32, 44}, {9, 21, 10, 22, 11, 23},
        {33, 45, 34, 46, 35, 47}}
  };
  static const float crd[2][4][6] = {
    {{0, 6, 1, 7, 2, 8}, {12, 18, 13, 19, 14, 20}, {3, 9, 4, 10, 5, 11},
        {15, 21, 16, 22, 17, 23}},
    {{24, 30, 25, 31, 26, 32}, {36, 42, 37, 43, 38, 44},
        {27, 33, 28, 34, 29, 35}, {39, 45, 40, 46, 41, 47}}
  };
  float x[48], want[48], m[6] = { 1, 2, 3, 4, 5, 6 };
  float tr[6] = { 1, 4, 2, 5, 3, 6 };
  float cat[12] = { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 };
  float tile[12] = { 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6 };
  float expd[12] = { 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6 };
  float split1[2] = { 1, 4 }, split2[4] = { 2, 3, 5, 6 };
  in_spec in[1] = { {F32 (4, 1, 2, 3, 8),.data = x} };
  in_spec im[1] = { {F32 (2, 2, 3),.data = m} };
  in_spec im2[2] = { {F32 (2, 2, 3),.data = m}, {F32 (2, 2, 3),.data = m} };
  int64_t shape[2] = { 2, 3 };
  one_op o;
  int c, y, xx, mode;

  for (c = 0; c < 8; c++)
    for (y = 0; y < 2; y++)
      for (xx = 0; xx < 3; xx++)
        x[(y * 3 + xx) * 8 + c] = (float) (c * 6 + y * 3 + xx);
  for (mode = 0; mode < 2; mode++) {
    for (c = 0; c < 2; c++)
      for (y = 0; y < 4; y++)
        for (xx = 0; xx < 6; xx++)
          want[(y * 6 + xx) * 2 + c] = mode == 0 ? dcr[c][y][xx]
              : crd[c][y][xx];
    one_op_init (&o, SIMNPU_IR_DEPTH_TO_SPACE, 1, in, 1);
    o.n->attrs.mode = mode;
    o.n->attrs.n_ints = 1;
    o.n->attrs.ints[0] = 2;
    one_op_check_f32 (&o, want, 48, 0);
  }
  {
    /* space_to_depth undoes depth_to_space (DCR) */
    in_spec ind[1] = { {F32 (4, 1, 4, 6, 2),.data = want}
    };
    for (c = 0; c < 2; c++)
      for (y = 0; y < 4; y++)
        for (xx = 0; xx < 6; xx++)
          want[(y * 6 + xx) * 2 + c] = dcr[c][y][xx];
    one_op_init (&o, SIMNPU_IR_SPACE_TO_DEPTH, 1, ind, 1);
    o.n->attrs.n_ints = 1;
    o.n->attrs.ints[0] = 2;
    one_op_check_f32 (&o, x, 48, 0);
  }
  one_op_init (&o, SIMNPU_IR_TRANSPOSE, 1, im, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 0;
  one_op_check_f32 (&o, tr, 6, 0);
  one_op_init (&o, SIMNPU_IR_CONCAT, 2, im2, 1);
  o.n->attrs.axis = 1;
  one_op_check_f32 (&o, cat, 12, 0);
  one_op_init (&o, SIMNPU_IR_TILE, 1, im, 1);
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_check_f32 (&o, tile, 12, 0);
  one_op_init (&o, SIMNPU_IR_EXPAND, 1, im, 1);
  o.n->attrs.n_ints = 3;
  o.n->attrs.ints[0] = 2;
  o.n->attrs.ints[1] = 1;
  o.n->attrs.ints[2] = 3;
  one_op_check_f32 (&o, expd, 12, 0);
  one_op_init (&o, SIMNPU_IR_SPLIT, 1, im, 2);
  o.n->attrs.axis = 1;
  o.n->attrs.n_ints = 2;
  o.n->attrs.ints[0] = 1;
  o.n->attrs.ints[1] = 2;
  one_op_run (&o);
  assert_close (simnpu__ir_exec_data (o.x, o.outs[0]), split1, 2, 0);
  assert_close (simnpu__ir_exec_data (o.x, o.outs[1]), split2, 4, 0);
  one_op_clear (&o);
  one_op_init (&o, SIMNPU_IR_SHAPE, 1, im, 1);
  one_op_check_bytes (&o, SIMNPU_IR_I64, shape, 2);
  {
    int64_t s = 10, l = 1, d = -3, r[3] = { 10, 7, 4 };
    in_spec ir[3] = { {SIMNPU_IR_I64, 0,.data = &s,.is_const = true},
    {SIMNPU_IR_I64, 0,.data = &l,.is_const = true},
    {SIMNPU_IR_I64, 0,.data = &d,.is_const = true}
    };
    one_op_init (&o, SIMNPU_IR_RANGE, 3, ir, 1);
    one_op_check_bytes (&o, SIMNPU_IR_I64, r, 3);
  }
  {
    int64_t r3[6];
    in_spec ir[1] = { {SIMNPU_IR_I64, 2, {2, 3},.data = r3}
    };
    int64_t want_r[6] = { 1, 2, 3, 4, 5, 6 };
    for (c = 0; c < 6; c++)
      r3[c] = c + 1;
    one_op_init (&o, SIMNPU_IR_RESHAPE, 1, ir, 1);
    o.n->attrs.n_ints = 3;
    o.n->attrs.ints[0] = 3;
    o.n->attrs.ints[1] = -1;
    o.n->attrs.ints[2] = 1;
    one_op_run (&o);
    g_assert_cmpint (one_op_out (&o, 0)->dims[1], ==, 2);
    g_assert_cmpmem (simnpu__ir_exec_data (o.x, o.outs[0]), 48, want_r, 48);
    one_op_clear (&o);
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

/* ------------------------------------------------------------------ */
/* inference errors */

static void
test_infer_errors (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("bad");
  int64_t xd[4] = { 1, 8, 8, 6 }, wd[4] = { 4, 3, 3, 5 };
  float w[4 * 3 * 3 * 5] = { 0 };
  simnpu_error error = { 0 };
  int ins[2], y, z, t;

  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  ins[1] = add_const (g, "w", SIMNPU_IR_F32, 4, wd, w);
  y = add_out (g, "y");
  add_node1 (g, SIMNPU_IR_CONV2D, "conv_3", 2, ins, y);
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_ESHAPE);
  g_assert_nonnull (strstr (error.message, "node 'conv_3' (conv2d)"));
  g_assert_nonnull (strstr (error.message, "[4,3,3,5]"));
  g_assert_nonnull (strstr (error.message, "[oc,kh,kw,6]"));
  simnpu__ir_graph_free (g);

  /* use before definition */
  g = simnpu__ir_graph_new ("order");
  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  y = simnpu__ir_add_tensor (g, "y", SIMNPU_IR_F32, 0, NULL);
  z = add_out (g, "z");
  add_node1 (g, SIMNPU_IR_RELU, "first", 1, &y, z);
  add_node1 (g, SIMNPU_IR_RELU, "second", 1, ins, y);
  error.message[0] = '\0';
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "node 'first' (relu)"));
  g_assert_nonnull (strstr (error.message, "before it is defined"));
  simnpu__ir_graph_free (g);

  /* two producers */
  g = simnpu__ir_graph_new ("twice");
  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  y = add_out (g, "y");
  add_node1 (g, SIMNPU_IR_RELU, "a", 1, ins, y);
  add_node1 (g, SIMNPU_IR_SIGMOID, "b", 1, ins, y);
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "node 'b' (sigmoid)"));
  g_assert_nonnull (strstr (error.message, "already defined"));
  simnpu__ir_graph_free (g);

  /* arity, index range, broadcast, reshape count */
  g = simnpu__ir_graph_new ("misc");
  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  y = add_out (g, "y");
  add_node1 (g, SIMNPU_IR_ADD, "add1", 1, ins, y);
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "node 'add1' (add)"));
  g->nodes[0].n_inputs = 2;
  g->nodes[0].inputs[1] = 99;
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "out of range"));
  t = add_const (g, "w", SIMNPU_IR_F32, 4, wd, w);
  g->nodes[0].inputs[1] = t;
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_ESHAPE);
  g_assert_nonnull (strstr (error.message, "does not broadcast"));
  g->nodes[0].op = SIMNPU_IR_RESHAPE;
  g->nodes[0].n_inputs = 1;
  g->nodes[0].attrs.n_ints = 2;
  g->nodes[0].attrs.ints[0] = 7;
  g->nodes[0].attrs.ints[1] = 55;
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, SIMNPU_ESHAPE);
  g_assert_nonnull (strstr (error.message, "node 'add1' (reshape)"));
  g_assert_nonnull (strstr (error.message, "[1,8,8,6] to [7,55]"));
  simnpu__ir_graph_free (g);
}

/* ------------------------------------------------------------------ */
/* serialisation */

/* conv (bias, relu6) -> avgpool -> reshape -> matmul (bias) -> softmax,
 * and an i64 shape branch -> cast */
static simnpu__ir_graph *
sample_graph (GRand * rng)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("sample");
  int64_t xd[4] = { 1, 6, 6, 3 }, wd[4] = { 8, 3, 3, 3 }, bd[1] = { 8 };
  int64_t md[2] = { 8, 5 }, mb[1] = { 5 };
  float *w = random_floats (rng, 8 * 27), *b = random_floats (rng, 8);
  float *m = random_floats (rng, 40), *mbias = random_floats (rng, 5);
  int x, t[12];
  simnpu__ir_node *n;

  x = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  t[0] = add_const (g, "w", SIMNPU_IR_F32, 4, wd, w);
  t[1] = add_const (g, "b", SIMNPU_IR_F32, 1, bd, b);
  t[2] = simnpu__ir_add_tensor (g, "conv", SIMNPU_IR_F32, 0, NULL);
  t[3] = simnpu__ir_add_tensor (g, "pool", SIMNPU_IR_F32, 0, NULL);
  t[4] = simnpu__ir_add_tensor (g, "flat", SIMNPU_IR_F32, 0, NULL);
  t[5] = add_const (g, "m", SIMNPU_IR_F32, 2, md, m);
  t[6] = add_const (g, "mb", SIMNPU_IR_F32, 1, mb, mbias);
  t[7] = simnpu__ir_add_tensor (g, "logits", SIMNPU_IR_F32, 0, NULL);
  t[8] = add_out (g, "probs");
  t[9] = simnpu__ir_add_tensor (g, "shape", SIMNPU_IR_I64, 0, NULL);
  t[10] = add_out (g, "shape_f");
  {
    int ins[3] = { x, t[0], t[1] };
    n = add_node1 (g, SIMNPU_IR_CONV2D, "conv", 3, ins, t[2]);
    n->attrs.pads[0] = n->attrs.pads[1] = 1;
    n->attrs.stride[0] = n->attrs.stride[1] = 2;
    n->attrs.act = SIMNPU_IR_ACT_CLIP;
    n->attrs.act_min = 0;
    n->attrs.act_max = 6;
  }
  n = add_node1 (g, SIMNPU_IR_AVGPOOL, "pool", 1, &t[2], t[3]);
  n->attrs.kernel[0] = n->attrs.kernel[1] = 3;
  n = add_node1 (g, SIMNPU_IR_RESHAPE, "flat", 1, &t[3], t[4]);
  n->attrs.n_ints = 2;
  n->attrs.ints[0] = 1;
  n->attrs.ints[1] = 8;
  {
    int ins[3] = { t[4], t[5], t[6] };
    add_node1 (g, SIMNPU_IR_MATMUL, "fc", 3, ins, t[7]);
  }
  n = add_node1 (g, SIMNPU_IR_SOFTMAX, "softmax", 1, &t[7], t[8]);
  n->attrs.axis = 1;
  add_node1 (g, SIMNPU_IR_SHAPE, "shape", 1, &t[2], t[9]);
  n = add_node1 (g, SIMNPU_IR_CAST, "cast", 1, &t[9], t[10]);
  n->attrs.dtype = SIMNPU_IR_F32;
  g->tensors[t[2]].has_range = true;
  g->tensors[t[2]].min = -1.5f;
  g->tensors[t[2]].max = 6;
  g_free (w);
  g_free (b);
  g_free (m);
  g_free (mbias);
  return g;
}

static void
write_seed (const char *dir, const char *name, const void *data, size_t len)
{
  gchar *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
  g_free (path);
}

static void
test_serialize (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu__ir_graph *g = sample_graph (rng), *g2 = NULL;
  float *in = random_floats (rng, 6 * 6 * 3);
  const void *data[1] = { in };
  GByteArray *a = g_byte_array_new (), *b = g_byte_array_new ();
  simnpu_error error = { 0 };
  simnpu__ir_exec *x1, *x2;
  const char *seeds = g_getenv (SEEDS_ENV);
  unsigned i;
  size_t cut;

  x1 = run_graph (g, data);
  simnpu__ir_serialize (g, a);
  g_assert_cmpint (simnpu__ir_deserialize (a->data, a->len, &g2, &error),
      ==, 0);
  g_assert_cmpuint (g2->n_tensors, ==, g->n_tensors);
  g_assert_cmpuint (g2->n_nodes, ==, g->n_nodes);
  g_assert_cmpstr (g2->nodes[0].name, ==, "conv");
  g_assert_cmpint (g2->nodes[0].attrs.act, ==, SIMNPU_IR_ACT_CLIP);
  g_assert_true (g2->tensors[g->nodes[0].outputs[0]].has_range);
  g_assert_cmpfloat (g2->tensors[g->nodes[0].outputs[0]].max, ==, 6);
  simnpu__ir_serialize (g2, b);
  g_assert_cmpmem (a->data, a->len, b->data, b->len);
  x2 = run_graph (g2, data);
  for (i = 0; i < g->n_outputs; i++)
    g_assert_cmpmem (simnpu__ir_exec_data (x1, g->outputs[i]),
        simnpu__ir_tensor_bytes (&g->tensors[g->outputs[i]]),
        simnpu__ir_exec_data (x2, g2->outputs[i]),
        simnpu__ir_tensor_bytes (&g2->tensors[g2->outputs[i]]));
  {
    const float *sf = simnpu__ir_exec_data (x2, g2->outputs[1]);
    g_assert_cmpfloat (sf[1], ==, 3);
    g_assert_cmpfloat (sf[3], ==, 8);
  }
  /* every truncation and a flipped byte per field fail cleanly */
  for (cut = 0; cut < a->len; cut++) {
    simnpu__ir_graph *g3 = NULL;
    error.message[0] = '\0';
    if (simnpu__ir_deserialize (a->data, cut, &g3, &error) == 0)
      g_error ("a graph cut to %zu of %u bytes was accepted", cut, a->len);
    g_assert_null (g3);
    g_assert_cmpuint (strlen (error.message), >, 0);
  }
  for (cut = 0; cut < a->len; cut++) {
    simnpu__ir_graph *g3 = NULL;
    guint8 save = a->data[cut];
    a->data[cut] ^= 0xff;
    if (simnpu__ir_deserialize (a->data, a->len, &g3, &error) == 0)
      simnpu__ir_graph_free (g3);
    a->data[cut] = save;
  }
  if (seeds != NULL) {
    /* the fuzz corpus: this graph, a copy, and single-op graphs */
    simnpu__ir_graph *c = simnpu__ir_graph_copy (g);
    write_seed (seeds, "sample.bin", a->data, a->len);
    g_byte_array_set_size (b, 0);
    c->nodes[0].attrs.groups = 1;
    simnpu__ir_serialize (c, b);
    write_seed (seeds, "copy.bin", b->data, b->len);
    simnpu__ir_graph_free (c);
  }
  simnpu__ir_exec_free (x1);
  simnpu__ir_exec_free (x2);
  simnpu__ir_graph_free (g);
  simnpu__ir_graph_free (g2);
  g_byte_array_unref (a);
  g_byte_array_unref (b);
  g_free (in);
  g_rand_free (rng);
}

/* a deep copy: same results, and changing it leaves the original alone */
static void
test_copy (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu__ir_graph *g = sample_graph (rng), *c;
  float *in = random_floats (rng, 6 * 6 * 3);
  const void *data[1] = { in };
  simnpu__ir_exec *x1, *x2;
  int w = simnpu__ir_find_tensor (g, "w");
  float w0;

  g_assert_cmpint (w, >=, 0);
  g_assert_cmpint (simnpu__ir_find_tensor (g, "nothing"), ==, SIMNPU_IR_NONE);
  c = simnpu__ir_graph_copy (g);
  w0 = ((float *) g->tensors[w].data)[0];
  x1 = run_graph (g, data);
  x2 = run_graph (c, data);
  g_assert_cmpmem (simnpu__ir_exec_data (x1, g->outputs[0]), 5 * 4,
      simnpu__ir_exec_data (x2, c->outputs[0]), 5 * 4);
  ((float *) c->tensors[w].data)[0] = w0 + 1;
  g_free (c->nodes[0].name);
  c->nodes[0].name = g_strdup ("changed");
  g_assert_cmpfloat (((float *) g->tensors[w].data)[0], ==, w0);
  g_assert_cmpstr (g->nodes[0].name, ==, "conv");
  simnpu__ir_exec_free (x1);
  simnpu__ir_exec_free (x2);
  simnpu__ir_graph_free (c);
  simnpu__ir_graph_free (g);
  g_free (in);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* the op table, the observer, partial runs, run-time weights */

static void
test_op_table (void)
{
  GHashTable *names = g_hash_table_new (g_str_hash, g_str_equal);
  unsigned i;

  for (i = 0; i < SIMNPU_IR_N_OPS; i++) {
    const simnpu__ir_op_info *info = simnpu__ir_op_get ((simnpu__ir_op) i);
    g_assert_nonnull (info);
    g_assert_nonnull (info->name);
    g_assert_nonnull (info->infer);
    g_assert_nonnull (info->run);
    g_assert_nonnull (info->cost);
    g_assert_cmpuint (info->min_inputs, >=, 1);
    g_assert_cmpuint (info->min_inputs, <=, info->max_inputs);
    g_assert_false (g_hash_table_contains (names, info->name));
    g_hash_table_add (names, (gpointer) info->name);
    g_assert_cmpstr (simnpu__ir_op_name ((simnpu__ir_op) i), ==, info->name);
  }
  g_assert_null (simnpu__ir_op_get (SIMNPU_IR_N_OPS));
  g_assert_cmpstr (simnpu__ir_op_name (SIMNPU_IR_CONV2D), ==, "conv2d");
  g_assert_cmpstr (simnpu__ir_dtype_name (SIMNPU_IR_BOOL), ==, "bool");
  g_assert_cmpuint (simnpu__ir_dtype_size (SIMNPU_IR_I64), ==, 8);
  g_assert_cmpuint (simnpu__ir_dtype_size (SIMNPU_IR_N_DTYPES), ==, 0);
  g_hash_table_unref (names);
}

static void
count_nodes (simnpu__ir_exec * x, const simnpu__ir_node * n, gpointer data)
{
  GString *order = data;
  const simnpu__ir_graph *g = simnpu__ir_exec_graph (x);
  const float *out = simnpu__ir_exec_data (x, n->outputs[0]);

  g_assert_nonnull (g);
  g_string_append_printf (order, "%s=%g;", n->name, out[0]);
}

static void
test_exec (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("chain");
  int64_t d[1] = { 2 }, wd[4] = { 2, 1, 1, 2 }, xd[4] = { 1, 1, 1, 2 };
  float x[2] = { -1, 2 }, w[4] = { 1, 2, 3, 4 };
  int in, t1, t2, t3, ins[2];
  GString *order = g_string_new (NULL);
  simnpu__ir_exec *ex;
  simnpu_error error = { 0 };
  simnpu__ir_tensor big = { 0 };

  in = add_input (g, "x", SIMNPU_IR_F32, 1, d);
  t1 = simnpu__ir_add_tensor (g, "a", SIMNPU_IR_F32, 0, NULL);
  t2 = simnpu__ir_add_tensor (g, "b", SIMNPU_IR_F32, 0, NULL);
  t3 = add_out (g, "c");
  add_node1 (g, SIMNPU_IR_NEG, "neg", 1, &in, t1);
  add_node1 (g, SIMNPU_IR_RELU, "relu", 1, &t1, t2);
  add_node1 (g, SIMNPU_IR_EXP, "exp", 1, &t2, t3);
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, 0);
  g_assert_cmpint (g->tensors[t2].producer, ==, 1);
  g_assert_cmpint (g->tensors[in].producer, ==, SIMNPU_IR_NONE);
  ex = simnpu__ir_exec_new (g, &error);
  g_assert_nonnull (ex);
  memcpy (simnpu__ir_exec_data (ex, in), x, sizeof (x));
  simnpu__ir_exec_set_observer (ex, count_nodes, order);
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, 2, &error), ==, 0);
  g_assert_cmpstr (order->str, ==, "neg=1;relu=1;");
  g_assert_cmpint (simnpu__ir_exec_run (ex, 2, 3, &error), ==, 0);
  g_assert_cmpstr (order->str, ==, "neg=1;relu=1;exp=2.71828;");
  g_assert_cmpint (simnpu__ir_exec_run (ex, 2, 4, &error), ==, SIMNPU_EINVAL);
  simnpu__ir_exec_set_observer (ex, NULL, NULL);
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, 3, &error), ==, 0);
  g_assert_null (simnpu__ir_exec_data (ex, 99));
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  g_string_free (order, TRUE);

  /* conv weights as a run-time input are packed on every run */
  g = simnpu__ir_graph_new ("runtime-weights");
  ins[0] = add_input (g, "x", SIMNPU_IR_F32, 4, xd);
  ins[1] = add_input (g, "w", SIMNPU_IR_F32, 4, wd);
  t1 = add_out (g, "y");
  add_node1 (g, SIMNPU_IR_CONV2D, "conv", 2, ins, t1);
  {
    const void *data[2] = { x, w };
    float want[2] = { -1 + 4, -3 + 8 };
    ex = run_graph (g, data);
    assert_close (simnpu__ir_exec_data (ex, t1), want, 2, 0);
    w[0] = 2;
    memcpy (simnpu__ir_exec_data (ex, ins[1]), w, sizeof (w));
    want[0] = -2 + 4;
    g_assert_cmpint (simnpu__ir_exec_run (ex, 0, 1, &error), ==, 0);
    assert_close (simnpu__ir_exec_data (ex, t1), want, 2, 0);
    simnpu__ir_exec_free (ex);
  }
  simnpu__ir_graph_free (g);

  /* sizes: overflow and the element bound */
  big.rank = 3;
  big.dims[0] = big.dims[1] = big.dims[2] = G_GINT64_CONSTANT (1) << 20;
  g_assert_cmpint (simnpu__ir_tensor_elements (&big), ==, -1);
  g_assert_cmpuint (simnpu__ir_tensor_bytes (&big), ==, 0);
  big.rank = 2;
  big.dims[0] = -1;
  g_assert_cmpint (simnpu__ir_tensor_elements (&big), ==, -1);
  big.rank = 0;
  big.dtype = SIMNPU_IR_I64;
  g_assert_cmpint (simnpu__ir_tensor_elements (&big), ==, 1);
  g_assert_cmpuint (simnpu__ir_tensor_bytes (&big), ==, 8);
}

/* ------------------------------------------------------------------ */
/* random shapes against index arithmetic */

#define RANDOM_ROUNDS 200
#define RANDOM_RANK 4
#define RANDOM_DIM 4

/* flat index of a multi-index in a shape, broadcast axes (size 1) read 0 */
static int64_t
flat_index (unsigned rank, const int64_t * dims, unsigned out_rank,
    const int64_t * idx)
{
  int64_t f = 0;
  unsigned i, off = out_rank - rank;

  for (i = 0; i < rank; i++)
    f = f * dims[i] + (dims[i] == 1 ? 0 : idx[i + off]);
  return f;
}

static bool
next_index (unsigned rank, const int64_t * dims, int64_t * idx)
{
  unsigned i;

  for (i = rank; i-- > 0;) {
    if (++idx[i] < dims[i])
      return true;
    idx[i] = 0;
  }
  return false;
}

static void
test_random_broadcast (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  unsigned round;

  for (round = 0; round < RANDOM_ROUNDS; round++) {
    unsigned ro = (unsigned) g_rand_int_range (rng, 0, RANDOM_RANK + 1);
    unsigned ra = (unsigned) g_rand_int_range (rng, 0, ro + 1);
    unsigned rb = (unsigned) g_rand_int_range (rng, 0, ro + 1), i;
    int64_t od[RANDOM_RANK], ad[RANDOM_RANK] = { 0 }, bd[RANDOM_RANK] = { 0 };
    int64_t idx[RANDOM_RANK] = { 0 }, na = 1, nb = 1, no = 1, k = 0;
    float *a, *b, *want;
    in_spec in[2];
    one_op o;

    for (i = 0; i < ro; i++)
      od[i] = g_rand_int_range (rng, 1, RANDOM_DIM + 1);
    /* each operand takes the trailing axes, some of them as 1 */
    for (i = 0; i < ra; i++) {
      ad[i] = g_rand_boolean (rng) ? od[ro - ra + i] : 1;
      na *= ad[i];
    }
    for (i = 0; i < rb; i++) {
      bd[i] = g_rand_boolean (rng) ? od[ro - rb + i] : 1;
      nb *= bd[i];
    }
    /* the output keeps an axis only where an operand has it */
    for (i = 0; i < ro; i++) {
      int64_t da = i >= ro - ra ? ad[i - (ro - ra)] : 1;
      int64_t db = i >= ro - rb ? bd[i - (ro - rb)] : 1;
      od[i] = MAX (da, db);
      no *= od[i];
    }
    a = random_floats (rng, (size_t) na);
    b = random_floats (rng, (size_t) nb);
    want = g_new (float, no);
    do {
      want[k++] = a[flat_index (ra, ad, ro, idx)]
          - b[flat_index (rb, bd, ro, idx)];
    } while (ro > 0 && next_index (ro, od, idx));
    g_assert_cmpint (k, ==, no);
    in[0] = (in_spec) {
    SIMNPU_IR_F32, ra,.data = a};
    memcpy (in[0].dims, ad, sizeof (ad));
    in[1] = (in_spec) {
    SIMNPU_IR_F32, rb,.data = b};
    memcpy (in[1].dims, bd, sizeof (bd));
    one_op_init (&o, SIMNPU_IR_SUB, 2, in, 1);
    one_op_run (&o);
    g_assert_cmpuint (one_op_out (&o, 0)->rank, ==, MAX (ra, rb));
    one_op_clear (&o);
    one_op_init (&o, SIMNPU_IR_SUB, 2, in, 1);
    one_op_check_f32 (&o, want, (size_t) no, 0);
    g_free (a);
    g_free (b);
    g_free (want);
  }
  g_rand_free (rng);
}

static void
test_random_movement (void)
{
  GRand *rng = g_rand_new_with_seed (SEED + 1);
  unsigned round;

  for (round = 0; round < RANDOM_ROUNDS; round++) {
    unsigned r = (unsigned) g_rand_int_range (rng, 1, RANDOM_RANK + 1), i;
    int64_t d[RANDOM_RANK] = { 0 }, st[RANDOM_RANK], perm[RANDOM_RANK];
    int64_t start[RANDOM_RANK], step[RANDOM_RANK], len[RANDOM_RANK];
    int64_t before[RANDOM_RANK], after[RANDOM_RANK], pd[RANDOM_RANK];
    int64_t kept[RANDOM_RANK];
    int64_t idx[RANDOM_RANK] = { 0 }, n = 1, k, no;
    float *x, *want;
    in_spec in[1];
    one_op o;
    int mode = g_rand_int_range (rng, 0, 3);

    for (i = r; i-- > 0;) {
      d[i] = g_rand_int_range (rng, 1, RANDOM_DIM + 2);
      st[i] = n;
      n *= d[i];
      perm[i] = i;
    }
    for (i = r; i > 1; i--) {
      unsigned j = (unsigned) g_rand_int_range (rng, 0, (gint32) i);
      int64_t tmp = perm[i - 1];
      perm[i - 1] = perm[j];
      perm[j] = tmp;
    }
    x = random_floats (rng, (size_t) n);
    in[0] = (in_spec) {
    SIMNPU_IR_F32, r,.data = x};
    memcpy (in[0].dims, d, sizeof (d));

    /* transpose */
    {
      int64_t od[RANDOM_RANK];
      for (i = 0; i < r; i++)
        od[i] = d[perm[i]];
      want = g_new (float, n);
      k = 0;
      memset (idx, 0, sizeof (idx));
      do {
        int64_t f = 0;
        for (i = 0; i < r; i++)
          f += idx[i] * st[perm[i]];
        want[k++] = x[f];
      } while (next_index (r, od, idx));
      one_op_init (&o, SIMNPU_IR_TRANSPOSE, 1, in, 1);
      o.n->attrs.n_ints = r;
      memcpy (o.n->attrs.ints, perm, r * sizeof (int64_t));
      one_op_check_f32 (&o, want, (size_t) n, 0);
      g_free (want);
    }

    /* slice with steps of either sign */
    no = 1;
    for (i = 0; i < r; i++) {
      step[i] = g_rand_int_range (rng, 1, 3) * (g_rand_boolean (rng) ? 1 : -1);
      start[i] = g_rand_int_range (rng, 0, (gint32) d[i]);
      if (step[i] > 0)
        len[i] = (d[i] - start[i] + step[i] - 1) / step[i];
      else
        len[i] = (start[i] + 1 + (-step[i]) - 1) / (-step[i]);
      no *= len[i];
    }
    want = g_new (float, no);
    k = 0;
    memset (idx, 0, sizeof (idx));
    do {
      int64_t f = 0;
      for (i = 0; i < r; i++)
        f += (start[i] + idx[i] * step[i]) * st[i];
      want[k++] = x[f];
    } while (next_index (r, len, idx));
    one_op_init (&o, SIMNPU_IR_SLICE, 1, in, 1);
    o.n->attrs.n_ints = 2 * r;
    for (i = 0; i < r; i++) {
      o.n->attrs.ints[i] = start[i];
      o.n->attrs.ints[r + i] = step[i] > 0 ? d[i] : -1;
      o.n->attrs.steps[i] = step[i];
    }
    one_op_check_f32 (&o, want, (size_t) no, 0);
    g_free (want);

    /* pad, pads in [-1, 2] that leave at least one element */
    no = 1;
    for (i = 0; i < r; i++) {
      before[i] = g_rand_int_range (rng, -1, 3);
      after[i] = g_rand_int_range (rng, -1, 3);
      if (d[i] + MIN (before[i], 0) + MIN (after[i], 0) <= 0)
        before[i] = after[i] = 0;
      kept[i] = d[i] + MIN (before[i], 0) + MIN (after[i], 0);
      if (mode == SIMNPU_IR_PAD_REFLECT) {
        before[i] = MIN (before[i], kept[i] - 1);
        after[i] = MIN (after[i], kept[i] - 1);
      }
      pd[i] = d[i] + before[i] + after[i];
      no *= pd[i];
    }
    want = g_new (float, no);
    k = 0;
    memset (idx, 0, sizeof (idx));
    do {
      int64_t f = 0;
      bool cst = false;
      /* ONNX: crop by the negative pads, then pad what is kept */
      for (i = 0; i < r; i++) {
        int64_t s = idx[i] - MAX (before[i], 0);
        if (s < 0 || s >= kept[i]) {
          if (mode == SIMNPU_IR_PAD_CONSTANT)
            cst = true;
          else if (mode == SIMNPU_IR_PAD_EDGE)
            s = s < 0 ? 0 : kept[i] - 1;
          else
            s = s < 0 ? -s : 2 * (kept[i] - 1) - s;
        }
        f += (s + MAX (-before[i], 0)) * st[i];
      }
      want[k++] = cst ? 0.25f : x[f];
    } while (next_index (r, pd, idx));
    one_op_init (&o, SIMNPU_IR_PAD, 1, in, 1);
    o.n->attrs.mode = mode;
    o.n->attrs.f[0] = 0.25f;
    o.n->attrs.n_ints = 2 * r;
    for (i = 0; i < r; i++) {
      o.n->attrs.ints[i] = before[i];
      o.n->attrs.ints[r + i] = after[i];
    }
    one_op_check_f32 (&o, want, (size_t) no, 0);
    g_free (want);
    g_free (x);
  }
  g_rand_free (rng);
}

static void
test_random_reduce (void)
{
  GRand *rng = g_rand_new_with_seed (SEED + 2);
  static const simnpu__ir_op ops[4] = { SIMNPU_IR_REDUCE_SUM,
    SIMNPU_IR_REDUCE_MEAN, SIMNPU_IR_REDUCE_MAX, SIMNPU_IR_REDUCE_PROD
  };
  unsigned round;

  for (round = 0; round < RANDOM_ROUNDS; round++) {
    unsigned r = (unsigned) g_rand_int_range (rng, 1, RANDOM_RANK + 1), i;
    simnpu__ir_op op = ops[round % G_N_ELEMENTS (ops)];
    int64_t d[RANDOM_RANK] = { 0 }, od[RANDOM_RANK], ost[RANDOM_RANK];
    int64_t idx[RANDOM_RANK] = { 0 }, n = 1, no = 1, s = 1, k = 0;
    bool mask[RANDOM_RANK];
    unsigned n_axes = 0;
    int64_t axes[RANDOM_RANK];
    float *x, *want;
    double *acc;
    in_spec in[1];
    one_op o;

    for (i = 0; i < r; i++) {
      d[i] = g_rand_int_range (rng, 1, RANDOM_DIM + 2);
      n *= d[i];
      mask[i] = g_rand_boolean (rng);
      if (mask[i])
        axes[n_axes++] = i;
    }
    for (i = r; i-- > 0;) {
      od[i] = mask[i] ? 1 : d[i];
      ost[i] = mask[i] ? 0 : s;
      s *= od[i];
      no *= od[i];
    }
    if (n_axes == 0)
      no = 1;
    x = random_floats (rng, (size_t) n);
    acc = g_new (double, no);
    want = g_new (float, no);
    for (i = 0; i < no; i++)
      acc[i] = op == SIMNPU_IR_REDUCE_MAX ? -INFINITY
          : op == SIMNPU_IR_REDUCE_PROD ? 1 : 0;
    do {
      int64_t f = 0, j;
      for (i = 0; i < r; i++)
        f += n_axes == 0 ? 0 : idx[i] * ost[i];
      j = f;
      if (op == SIMNPU_IR_REDUCE_MAX)
        acc[j] = MAX (acc[j], x[k]);
      else if (op == SIMNPU_IR_REDUCE_PROD)
        acc[j] *= x[k];
      else
        acc[j] += x[k];
      k++;
    } while (next_index (r, d, idx));
    for (i = 0; i < no; i++)
      want[i] = (float) (op == SIMNPU_IR_REDUCE_MEAN ? acc[i] * no / n
          : acc[i]);
    in[0] = (in_spec) {
    SIMNPU_IR_F32, r,.data = x};
    memcpy (in[0].dims, d, sizeof (d));
    one_op_init (&o, op, 1, in, 1);
    o.n->attrs.n_ints = n_axes;
    memcpy (o.n->attrs.ints, axes, n_axes * sizeof (int64_t));
    o.n->attrs.keepdims = true;
    one_op_check_f32 (&o, want, (size_t) no, 1e-5f);
    g_free (x);
    g_free (acc);
    g_free (want);
  }
  g_rand_free (rng);
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
  g_test_add_func ("/ir/resize", test_resize);
  g_test_add_func ("/ir/slice", test_slice);
  g_test_add_func ("/ir/pad", test_pad);
  g_test_add_func ("/ir/gather", test_gather);
  g_test_add_func ("/ir/movement", test_movement);
  g_test_add_func ("/ir/reduce", test_reduce);
  g_test_add_func ("/ir/infer-errors", test_infer_errors);
  g_test_add_func ("/ir/serialize", test_serialize);
  g_test_add_func ("/ir/copy", test_copy);
  g_test_add_func ("/ir/op-table", test_op_table);
  g_test_add_func ("/ir/exec", test_exec);
  g_test_add_func ("/ir/random-broadcast", test_random_broadcast);
  g_test_add_func ("/ir/random-movement", test_random_movement);
  g_test_add_func ("/ir/random-reduce", test_random_reduce);
  return g_test_run ();
}
