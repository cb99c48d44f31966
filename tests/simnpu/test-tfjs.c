/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The TF.js graph-model front-end and the generic IR passes: small
 * hand-made models against naive arithmetic, malformed models, and the
 * real models of @vladmandic/human found under $GST_AX_DATA_DIR/human. */

#include "compiler.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define REL_TOL 1e-5
#define CENTERNET_TOL 5e-5
#define SEED 42

/* ------------------------------------------------------------------ */
/* Helpers */

typedef struct
{
  GHashTable *shards;           /* path -> GBytes */
} shard_set;

static GBytes *
read_shard (const char *path, gpointer user_data, GError ** error)
{
  shard_set *s = user_data;
  GBytes *b = g_hash_table_lookup (s->shards, path);
  return b ? g_bytes_ref (b) : NULL;
}

static shard_set *
shard_set_new (void)
{
  shard_set *s = g_new0 (shard_set, 1);
  s->shards = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_bytes_unref);
  return s;
}

static void
shard_set_add (shard_set * s, const char *path, const void *data, size_t n)
{
  g_hash_table_insert (s->shards, g_strdup (path), g_bytes_new (data, n));
}

static void
shard_set_free (shard_set * s)
{
  g_hash_table_destroy (s->shards);
  g_free (s);
}

static int
load (const char *json, shard_set * s, simnpu__ir_graph ** g,
    simnpu_error * error)
{
  memset (error, 0, sizeof *error);
  return simnpu__tfjs_load_data (json, strlen (json), read_shard, s, g, error);
}

static const simnpu__ir_tensor *
tensor (const simnpu__ir_graph * g, const char *name)
{
  int t = simnpu__ir_find_tensor (g, name);
  if (t < 0)
    g_error ("no tensor '%s'", name);
  return &g->tensors[t];
}

static void
assert_dims (const simnpu__ir_tensor * t, unsigned rank, const int64_t * d)
{
  unsigned i;

  g_assert_cmpuint (t->rank, ==, rank);
  for (i = 0; i < rank; i++)
    g_assert_cmpint (t->dims[i], ==, d[i]);
}

/* The output named name has shape dims. */
static void
assert_output (const simnpu__ir_graph * g, const char *name, unsigned rank,
    const int64_t * dims)
{
  unsigned i;

  for (i = 0; i < g->n_outputs; i++)
    if (strcmp (g->tensors[g->outputs[i]].name, name) == 0) {
      assert_dims (&g->tensors[g->outputs[i]], rank, dims);
      return;
    }
  g_error ("no output named '%s'", name);
}

static unsigned
count_op (const simnpu__ir_graph * g, simnpu__ir_op op)
{
  unsigned i, n = 0;

  for (i = 0; i < g->n_nodes; i++)
    n += g->nodes[i].op == op;
  return n;
}

static void
fill_random (float *x, int64_t n, GRand * rng)
{
  int64_t i;

  for (i = 0; i < n; i++)
    x[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
}

/* Runs g on input data (one input) and returns copies of its outputs. */
static float **
run_graph (const simnpu__ir_graph * g, const float *const *inputs)
{
  simnpu_error error = { 0 };
  simnpu__ir_exec *x = simnpu__ir_exec_new (g, &error);
  float **outs;
  unsigned i;

  if (x == NULL)
    g_error ("exec_new: %s", error.message);
  for (i = 0; i < g->n_inputs; i++)
    memcpy (simnpu__ir_exec_data (x, g->inputs[i]), inputs[i],
        simnpu__ir_tensor_bytes (&g->tensors[g->inputs[i]]));
  if (simnpu__ir_exec_run (x, 0, g->n_nodes, &error) < 0)
    g_error ("exec_run: %s", error.message);
  outs = g_new0 (float *, g->n_outputs);
  for (i = 0; i < g->n_outputs; i++)
    outs[i] = g_memdup2 (simnpu__ir_exec_data (x, g->outputs[i]),
        simnpu__ir_tensor_bytes (&g->tensors[g->outputs[i]]));
  simnpu__ir_exec_free (x);
  return outs;
}

static void
free_outputs (float **outs, unsigned n)
{
  unsigned i;

  for (i = 0; i < n; i++)
    g_free (outs[i]);
  g_free (outs);
}

/* ------------------------------------------------------------------ */
/* (a) a hand-made model: Conv2D SAME stride 2, BiasAdd, Relu6 */

#define CH 5                    /* odd: SAME pads 1 before, 1 after */
#define CW 6                    /* even: SAME pads 0 before, 1 after */
#define CI 3
#define CO 4
#define CK 3
#define CS 2
#define COH 3
#define COW 3
#define RELU6 6.0f

/* the nodes in reverse order: the loader must sort them */
static const char conv_json[] =
    "{\"format\": \"graph-model\", \"modelTopology\": {\"node\": ["
    "{\"name\": \"Identity\", \"op\": \"Identity\", \"input\": [\"relu6\"]},"
    "{\"name\": \"relu6\", \"op\": \"Relu6\", \"input\": [\"bias\"]},"
    "{\"name\": \"bias\", \"op\": \"BiasAdd\", \"input\": [\"conv\", \"b\","
    " \"^w\"], \"attr\": {\"data_format\": {\"s\": \"TkhXQw==\"}}},"
    "{\"name\": \"conv\", \"op\": \"Conv2D\", \"input\": [\"x\", \"w:0\"],"
    " \"attr\": {\"strides\": {\"list\": {\"i\": [\"1\", \"2\", \"2\","
    " \"1\"]}}, \"padding\": {\"s\": \"U0FNRQ==\"},"
    " \"data_format\": {\"s\": \"TkhXQw==\"},"
    " \"dilations\": {\"list\": {\"i\": [\"1\", \"1\", \"1\", \"1\"]}},"
    " \"explicit_paddings\": {\"list\": {}}}},"
    "{\"name\": \"b\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_FLOAT\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_FLOAT\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"4\"}]}}}}},"
    "{\"name\": \"w\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_FLOAT\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_FLOAT\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"3\"}, {\"size\": \"3\"},"
    " {\"size\": \"3\"}, {\"size\": \"4\"}]}}}}},"
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"-1\"}, {\"size\": \"5\"}, {\"size\": \"6\"}, {\"size\": \"3\"}]}}}}"
    "]}, \"weightsManifest\": [{\"paths\": [\"a.bin\", \"b.bin\"],"
    " \"weights\": [{\"name\": \"w\", \"shape\": [3, 3, 3, 4], \"dtype\":"
    " \"float32\"}, {\"name\": \"b\", \"shape\": [4], \"dtype\": \"float32\"}"
    "]}]}";

static void
conv_reference (const float *x, const float *w, const float *b, float *y)
{
  int oy, ox, o, ky, kx, i;
  /* TF SAME: total = (out - 1) * s + k - in, the smaller half first */
  int pad_top = ((COH - 1) * CS + CK - CH) / 2;
  int pad_left = ((COW - 1) * CS + CK - CW) / 2;

  for (oy = 0; oy < COH; oy++)
    for (ox = 0; ox < COW; ox++)
      for (o = 0; o < CO; o++) {
        double acc = b[o];
        for (ky = 0; ky < CK; ky++)
          for (kx = 0; kx < CK; kx++)
            for (i = 0; i < CI; i++) {
              int iy = oy * CS - pad_top + ky, ix = ox * CS - pad_left + kx;
              if (iy < 0 || iy >= CH || ix < 0 || ix >= CW)
                continue;
              acc += x[(iy * CW + ix) * CI + i]
                  * w[((ky * CK + kx) * CI + i) * CO + o];
            }
        y[(oy * COW + ox) * CO + o] = (float) CLAMP (acc, 0.0, RELU6);
      }
}

static void
make_conv_model (shard_set * s, float *w, float *b, GRand * rng)
{
  unsigned i;

  /* weights large enough for Relu6 to clip some outputs */
  for (i = 0; i < CK * CK * CI * CO; i++)
    w[i] = (float) g_rand_double_range (rng, -2.0, 2.0);
  for (i = 0; i < CO; i++)
    b[i] = (float) g_rand_double_range (rng, -1.0, 3.0);
  /* the first shard ends inside w: shards are one byte stream */
  shard_set_add (s, "a.bin", w, 100);
  {
    guint8 *rest = g_malloc (sizeof (float) * (CK * CK * CI * CO + CO) - 100);
    memcpy (rest, (guint8 *) w + 100, sizeof (float) * CK * CK * CI * CO - 100);
    memcpy (rest + sizeof (float) * CK * CK * CI * CO - 100, b,
        sizeof (float) * CO);
    shard_set_add (s, "b.bin", rest,
        sizeof (float) * (CK * CK * CI * CO + CO) - 100);
    g_free (rest);
  }
}

static void
test_conv_same_stride2 (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[CK * CK * CI * CO], b[CO], x[CH * CW * CI], ref[COH * COW * CO];
  const float *ins[1] = { x };
  static const int64_t in_dims[4] = { 1, CH, CW, CI };
  static const int64_t out_dims[4] = { 1, COH, COW, CO };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g, *fused;
  simnpu_error error;
  float **out, **out_fused;
  unsigned i, clipped = 0;

  make_conv_model (s, w, b, rng);
  g_assert_cmpint (load (conv_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_inputs, ==, 1);
  g_assert_cmpuint (g->n_outputs, ==, 1);
  assert_dims (&g->tensors[g->inputs[0]], 4, in_dims);
  g_assert_cmpstr (g->tensors[g->outputs[0]].name, ==, "Identity");
  assert_dims (&g->tensors[g->outputs[0]], 4, out_dims);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_CONV2D), ==, 1);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_IDENTITY), ==, 0);
  /* SAME, stride 2: H 5 pads 1 + 1, W 6 pads 0 + 1 */
  for (i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == SIMNPU_IR_CONV2D) {
      const simnpu__ir_attrs *a = &g->nodes[i].attrs;
      g_assert_cmpint (a->pads[0], ==, 1);
      g_assert_cmpint (a->pads[1], ==, 0);
      g_assert_cmpint (a->pads[2], ==, 1);
      g_assert_cmpint (a->pads[3], ==, 1);
      g_assert_cmpint (a->stride[0], ==, CS);
      g_assert_cmpint (a->stride[1], ==, CS);
    }

  fill_random (x, G_N_ELEMENTS (x), rng);
  for (i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] *= 2.0f;
  conv_reference (x, w, b, ref);
  for (i = 0; i < G_N_ELEMENTS (ref); i++)
    clipped += ref[i] == 0.0f || ref[i] == RELU6;
  g_assert_cmpuint (clipped, >, 0);
  g_assert_cmpuint (clipped, <, G_N_ELEMENTS (ref));

  out = run_graph (g, ins);
  for (i = 0; i < G_N_ELEMENTS (ref); i++)
    g_assert_cmpfloat_with_epsilon (out[0][i], ref[i], 1e-4);

  /* fused: one conv with bias and clip (0, 6), same values */
  fused = simnpu__ir_graph_copy (g);
  g_assert_cmpint (simnpu__ir_fuse (fused, &error), ==, 0);
  g_assert_cmpuint (fused->n_nodes, ==, 1);
  g_assert_cmpint (fused->nodes[0].op, ==, SIMNPU_IR_CONV2D);
  g_assert_cmpint (fused->nodes[0].attrs.act, ==, SIMNPU_IR_ACT_CLIP);
  g_assert_cmpfloat (fused->nodes[0].attrs.act_max, ==, RELU6);
  g_assert_cmpstr (fused->tensors[fused->outputs[0]].name, ==, "Identity");
  out_fused = run_graph (fused, ins);
  for (i = 0; i < G_N_ELEMENTS (ref); i++)
    g_assert_cmpfloat_with_epsilon (out_fused[0][i], out[0][i], 1e-5);

  free_outputs (out, 1);
  free_outputs (out_fused, 1);
  simnpu__ir_graph_free (fused);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
  g_rand_free (rng);
}

/* Conv2DBackpropInput (tf.conv2dTranspose) against TF's definition: the
 * output y[i * s + k - pad] += x[i] w[k], pad the forward conv's (SAME:
 * half of max ((in - 1) * s + k - out, 0), the smaller half first;
 * VALID: 0); the front-end's phases and depth_to_space (and the crop) on
 * the float executor, then compiled all to the device. */
#define TC_CI 3
#define TC_CO 2
#define TC_MIN_SQNR_DB 30.0

typedef struct
{
  int h, w, k, s;
  bool same;
  int oh, ow;
} tconv_case;

static const tconv_case tconv_cases[] = {
  {3, 3, 4, 2, true, 6, 6},     /* crop 1 at each start: a slice */
  {4, 5, 3, 2, true, 8, 10},    /* padding before, none cut */
  {3, 4, 3, 2, false, 7, 9},    /* the last phase row cut */
  {4, 4, 2, 2, true, 8, 8},     /* one tap per phase */
  {3, 5, 3, 1, true, 3, 5},     /* stride 1: a conv */
  {2, 3, 5, 3, false, 8, 11},   /* stride 3, kernel not a multiple */
};

static gchar *
tconv_json (const tconv_case * t)
{
  return g_strdup_printf ("{\"modelTopology\": {\"node\": ["
      "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
      " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": ["
      "{\"size\": \"1\"}, {\"size\": \"%d\"}, {\"size\": \"%d\"},"
      " {\"size\": \"%d\"}]}}}},"
      "{\"name\": \"w\", \"op\": \"Const\", \"attr\": {\"dtype\":"
      " {\"type\": \"DT_FLOAT\"}}},"
      "{\"name\": \"sizes\", \"op\": \"Const\", \"attr\": {\"dtype\":"
      " {\"type\": \"DT_INT32\"}}},"
      "{\"name\": \"Identity\", \"op\": \"Conv2DBackpropInput\", \"input\":"
      " [\"sizes\", \"w\", \"x\"], \"attr\": {\"strides\": {\"list\":"
      " {\"i\": [\"1\", \"%d\", \"%d\", \"1\"]}}, \"padding\": {\"s\":"
      " \"%s\"}, \"data_format\": {\"s\": \"TkhXQw==\"}}}"
      "]}, \"weightsManifest\": [{\"paths\": [\"w.bin\"], \"weights\": ["
      "{\"name\": \"w\", \"shape\": [%d, %d, %d, %d], \"dtype\":"
      " \"float32\"}, {\"name\": \"sizes\", \"shape\": [4], \"dtype\":"
      " \"int32\"}]}]}", t->h, t->w, TC_CI, t->s, t->s,
      t->same ? "U0FNRQ==" : "VkFMSUQ=", t->k, t->k, TC_CO, TC_CI);
}

static void
tconv_reference (const tconv_case * t, const float *x, const float *w, float *y)
{
  int pt = t->same ? MAX ((t->h - 1) * t->s + t->k - t->oh, 0) / 2 : 0;
  int pl = t->same ? MAX ((t->w - 1) * t->s + t->k - t->ow, 0) / 2 : 0;
  int iy, ix, ky, kx, c, m;

  memset (y, 0, sizeof (float) * t->oh * t->ow * TC_CO);
  for (iy = 0; iy < t->h; iy++)
    for (ix = 0; ix < t->w; ix++)
      for (ky = 0; ky < t->k; ky++)
        for (kx = 0; kx < t->k; kx++) {
          int oy = iy * t->s + ky - pt, ox = ix * t->s + kx - pl;
          if (oy < 0 || oy >= t->oh || ox < 0 || ox >= t->ow)
            continue;
          for (m = 0; m < TC_CO; m++)
            for (c = 0; c < TC_CI; c++)
              y[(oy * t->ow + ox) * TC_CO + m] +=
                  x[(iy * t->w + ix) * TC_CI + c] *
                  w[((ky * t->k + kx) * TC_CO + m) * TC_CI + c];
        }
}

static void
test_conv_transpose (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  unsigned ci;

  for (ci = 0; ci < G_N_ELEMENTS (tconv_cases); ci++) {
    const tconv_case *t = &tconv_cases[ci];
    int nw = t->k * t->k * TC_CO * TC_CI, nx = t->h * t->w * TC_CI;
    int ny = t->oh * t->ow * TC_CO;
    int32_t sizes[4] = { 1, t->oh, t->ow, TC_CO };
    int64_t out_dims[4] = { 1, t->oh, t->ow, TC_CO };
    float *w = g_new (float, nw), *x = g_new (float, nx);
    float *ref = g_new (float, ny), **out;
    guint8 *bin = g_malloc (nw * sizeof (float) + sizeof sizes);
    const float *ins[1] = { x };
    gchar *json = tconv_json (t);
    shard_set *s = shard_set_new ();
    simnpu__ir_graph *g;
    simnpu_error error;
    int i;

    fill_random (w, nw, rng);
    fill_random (x, nx, rng);
    memcpy (bin, w, nw * sizeof (float));
    memcpy (bin + nw * sizeof (float), sizes, sizeof sizes);
    shard_set_add (s, "w.bin", bin, nw * sizeof (float) + sizeof sizes);
    if (load (json, s, &g, &error) < 0)
      g_error ("case %u: %s", ci, error.message);
    assert_output (g, "Identity", 4, out_dims);
    g_assert_cmpuint (count_op (g, SIMNPU_IR_CONV2D), ==, 1);
    g_assert_cmpuint (count_op (g, SIMNPU_IR_DEPTH_TO_SPACE), ==,
        t->s > 1 ? 1 : 0);
    tconv_reference (t, x, w, ref);
    out = run_graph (g, ins);
    for (i = 0; i < ny; i++)
      g_assert_cmpfloat_with_epsilon (out[0][i], ref[i], 1e-5);
    free_outputs (out, 1);

    /* all of it on the device */
    {
      GPtrArray *calib = g_ptr_array_new_with_free_func (g_free);
      simnpu__compile_options o;
      simnpu__compile_result r;
      simnpu__graph *dg = NULL;
      for (i = 0; i < 4; i++) {
        float *v = g_new (float, nx);
        fill_random (v, nx, rng);
        g_ptr_array_add (calib, v);
      }
      simnpu__compile_options_init (&o);
      o.calibration = calib;
      o.fallback_db = 0.0;
      if (simnpu__compile (g, &o, &dg, &r, &error) < 0)
        g_error ("case %u: compile: %s", ci, error.message);
      g_assert_true (dg->postamble == NULL || dg->postamble->n_nodes == 0);
      g_test_message ("transposed conv %u: %.1f dB on the device", ci,
          r.outputs[0].sqnr_calib_db);
      g_assert_cmpfloat (r.outputs[0].sqnr_calib_db, >=, TC_MIN_SQNR_DB);
      simnpu__compile_result_clear (&r);
      simnpu__graph_free (dg);
      g_ptr_array_unref (calib);
    }
    simnpu__ir_graph_free (g);
    shard_set_free (s);
    g_free (json);
    g_free (bin);
    g_free (w);
    g_free (x);
    g_free (ref);
  }
  g_rand_free (rng);
}

/* A fused conv with a Relu, a depthwise conv with multiplier 2 and
 * EXPLICIT padding, against naive arithmetic. */
static const char dw_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"4\"}, {\"size\": \"4\"}, {\"size\": \"2\"}]}}}},"
    "{\"name\": \"w\", \"op\": \"Const\"},"
    "{\"name\": \"y\", \"op\": \"DepthwiseConv2dNative\", \"input\": [\"x\","
    " \"w\"], \"attr\": {\"padding\": {\"s\": \"RVhQTElDSVQ=\"},"
    " \"explicit_paddings\": {\"list\": {\"i\": [\"0\", \"0\", \"1\", \"0\","
    " \"0\", \"1\", \"0\", \"0\"]}}}}"
    "]}, \"weightsManifest\": [{\"paths\": [\"w.bin\"],"
    " \"weights\": [{\"name\": \"w\", \"shape\": [2, 2, 2, 2], \"dtype\":"
    " \"float32\"}]}]}";

static void
test_depthwise_explicit (void)
{
  GRand *rng = g_rand_new_with_seed (SEED + 1);
  float w[2 * 2 * 2 * 2], x[4 * 4 * 2];
  const float *ins[1] = { x };
  shard_set *s = shard_set_new ();
  static const int64_t out_dims[4] = { 1, 4, 4, 4 };
  simnpu__ir_graph *g;
  simnpu_error error;
  float **out;
  int oy, ox, c, m, ky, kx;

  fill_random (w, G_N_ELEMENTS (w), rng);
  fill_random (x, G_N_ELEMENTS (x), rng);
  shard_set_add (s, "w.bin", w, sizeof w);
  g_assert_cmpint (load (dw_json, s, &g, &error), ==, 0);
  assert_dims (&g->tensors[g->outputs[0]], 4, out_dims);
  out = run_graph (g, ins);
  /* pads: top 1, bottom 0, left 0, right 1 */
  for (oy = 0; oy < 4; oy++)
    for (ox = 0; ox < 4; ox++)
      for (c = 0; c < 2; c++)
        for (m = 0; m < 2; m++) {
          float acc = 0.0f;
          for (ky = 0; ky < 2; ky++)
            for (kx = 0; kx < 2; kx++) {
              int iy = oy - 1 + ky, ix = ox + kx;
              if (iy < 0 || iy >= 4 || ix < 0 || ix >= 4)
                continue;
              acc += x[(iy * 4 + ix) * 2 + c] * w[((ky * 2 + kx) * 2 + c) * 2
                  + m];
            }
          g_assert_cmpfloat_with_epsilon (out[0][(oy * 4 + ox) * 4 + c * 2 +
                  m], acc, 1e-5);
        }
  free_outputs (out, 1);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
  g_rand_free (rng);
}

/* A fused conv with a batch norm and a leaky relu, AvgPool (TF leaves the
 * padding out of the average), strided slices with an ellipsis and with
 * shrink and new axes, MatMul with transpose_b: against index loops. */
#define OPS_EPS 0.5f
#define OPS_ALPHA 0.25f

static const char ops_json[] =
    "{\"modelTopology\":{\"node\":[{\"name\":\"x\",\"op\":\"Placeholder\",\"a"
    "ttr\":{\"dtype\":{\"type\":\"DT_FLOAT\"},\"shape\":{\"shape\":{\"dim\":["
    "{\"size\":\"1\"},{\"size\":\"3\"},{\"size\":\"3\"},{\"size\":\"2\"}]}}}}"
    ",{\"name\":\"f\",\"op\":\"Const\"},{\"name\":\"s\",\"op\":\"Const\"},{\""
    "name\":\"o\",\"op\":\"Const\"},{\"name\":\"m\",\"op\":\"Const\"},{\"name"
    "\":\"v\",\"op\":\"Const\"},{\"name\":\"c\",\"op\":\"_FusedConv2D\",\"inp"
    "ut\":[\"x\",\"f\",\"s\",\"o\",\"m\",\"v\"],\"attr\":{\"fused_ops\":{\"li"
    "st\":{\"s\":[\"RnVzZWRCYXRjaE5vcm0=\",\"TGVha3lSZWx1\"]}},\"num_args\":{"
    "\"i\":\"4\"},\"epsilon\":{\"f\":0.5},\"leakyrelu_alpha\":{\"f\":0.25},\""
    "strides\":{\"list\":{\"i\":[\"1\",\"1\",\"1\",\"1\"]}},\"padding\":{\"s"
    "\":\"VkFMSUQ=\"}}},{\"name\":\"ap\",\"op\":\"AvgPool\",\"input\":[\"c\"]"
    ",\"attr\":{\"ksize\":{\"list\":{\"i\":[\"1\",\"3\",\"3\",\"1\"]}},\"stri"
    "des\":{\"list\":{\"i\":[\"1\",\"1\",\"1\",\"1\"]}},\"padding\":{\"s\":\""
    "U0FNRQ==\"}}},{\"name\":\"b1\",\"op\":\"Const\"},{\"name\":\"e1\",\"op\""
    ":\"Const\"},{\"name\":\"s1\",\"op\":\"Const\"},{\"name\":\"ss1\",\"op\":"
    "\"StridedSlice\",\"input\":[\"c\",\"b1\",\"e1\",\"s1\"],\"attr\":{\"elli"
    "psis_mask\":{\"i\":\"1\"}}},{\"name\":\"b2\",\"op\":\"Const\"},{\"name\""
    ":\"e2\",\"op\":\"Const\"},{\"name\":\"s2\",\"op\":\"Const\"},{\"name\":"
    "\"ss2\",\"op\":\"StridedSlice\",\"input\":[\"c\",\"b2\",\"e2\",\"s2\"],"
    "\"attr\":{\"shrink_axis_mask\":{\"i\":\"1\"},\"new_axis_mask\":{\"i\":\""
    "2\"},\"end_mask\":{\"i\":\"4\"}}},{\"name\":\"y\",\"op\":\"Placeholder\""
    ",\"attr\":{\"dtype\":{\"type\":\"DT_FLOAT\"},\"shape\":{\"shape\":{\"dim"
    "\":[{\"size\":\"2\"},{\"size\":\"3\"}]}}}},{\"name\":\"k\",\"op\":\"Cons"
    "t\"},{\"name\":\"mm\",\"op\":\"MatMul\",\"input\":[\"y\",\"k\"],\"attr\""
    ":{\"transpose_b\":{\"b\":true}}}]},\"weightsManifest\":[{\"paths\":[\"m."
    "bin\"],\"weights\":[{\"name\":\"f\",\"shape\":[1,1,2,3],\"dtype\":\"floa"
    "t32\"},{\"name\":\"s\",\"shape\":[3],\"dtype\":\"float32\"},{\"name\":\""
    "o\",\"shape\":[3],\"dtype\":\"float32\"},{\"name\":\"m\",\"shape\":[3],"
    "\"dtype\":\"float32\"},{\"name\":\"v\",\"shape\":[3],\"dtype\":\"float32"
    "\"},{\"name\":\"b1\",\"shape\":[2],\"dtype\":\"int32\"},{\"name\":\"e1\""
    ",\"shape\":[2],\"dtype\":\"int32\"},{\"name\":\"s1\",\"shape\":[2],\"dty"
    "pe\":\"int32\"},{\"name\":\"b2\",\"shape\":[4],\"dtype\":\"int32\"},{\"n"
    "ame\":\"e2\",\"shape\":[4],\"dtype\":\"int32\"},{\"name\":\"s2\",\"shape"
    "\":[4],\"dtype\":\"int32\"},{\"name\":\"k\",\"shape\":[4,3],\"dtype\":\""
    "float32\"}]}],\"signature\":{\"outputs\":{\"ap\":{\"name\":\"ap:0\"},\"s"
    "s1\":{\"name\":\"ss1\"},\"ss2\":{\"name\":\"ss2\"},\"mm\":{\"name\":\"mm"
    "\"}}}}";

static void
test_ops (void)
{
  GRand *rng = g_rand_new_with_seed (SEED + 2);
  float f[6], bn[12], k[12], x[18], y[6], c[27];
  static const gint32 slices[18] = {
    0, 1, 0, 3, 1, 1,           /* [..., 1:3] */
    0, 0, 0, 0, 1, 0, 2, 3, 1, 1, 1, 2  /* [0, newaxis, :, 0:3:2] */
  };
  static const int64_t ap_dims[4] = { 1, 3, 3, 3 };
  static const int64_t ss1_dims[4] = { 1, 3, 3, 2 };
  static const int64_t ss2_dims[4] = { 1, 3, 2, 3 };
  static const int64_t mm_dims[2] = { 2, 4 };
  const float *ins[2];
  guint8 buf[sizeof f + sizeof bn + sizeof slices + sizeof k];
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;
  float **out;
  const float *ap = NULL, *ss1 = NULL, *ss2 = NULL, *mm = NULL;
  int h, w, ch, i, j;
  unsigned o;

  fill_random (f, 6, rng);
  fill_random (bn, 12, rng);
  for (i = 9; i < 12; i++)
    bn[i] += 1.5f;              /* variances */
  fill_random (k, 12, rng);
  fill_random (x, 18, rng);
  fill_random (y, 6, rng);
  memcpy (buf, f, sizeof f);
  memcpy (buf + sizeof f, bn, sizeof bn);
  memcpy (buf + sizeof f + sizeof bn, slices, sizeof slices);
  memcpy (buf + sizeof f + sizeof bn + sizeof slices, k, sizeof k);
  shard_set_add (s, "m.bin", buf, sizeof buf);
  g_assert_cmpint (load (ops_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_inputs, ==, 2);
  g_assert_cmpuint (g->n_outputs, ==, 4);
  assert_output (g, "ap", 4, ap_dims);
  assert_output (g, "ss1", 4, ss1_dims);
  assert_output (g, "ss2", 4, ss2_dims);
  assert_output (g, "mm", 2, mm_dims);
  ins[0] = x;
  ins[1] = y;
  out = run_graph (g, ins);
  for (o = 0; o < g->n_outputs; o++) {
    const char *name = g->tensors[g->outputs[o]].name;
    if (strcmp (name, "ap") == 0)
      ap = out[o];
    else if (strcmp (name, "ss1") == 0)
      ss1 = out[o];
    else if (strcmp (name, "ss2") == 0)
      ss2 = out[o];
    else
      mm = out[o];
  }
  /* c = leaky_relu (batchnorm (x . f)) */
  for (i = 0; i < 9; i++)
    for (ch = 0; ch < 3; ch++) {
      float v = x[i * 2] * f[ch] + x[i * 2 + 1] * f[3 + ch];
      v = (v - bn[6 + ch]) / sqrtf (bn[9 + ch] + OPS_EPS) * bn[ch] + bn[3 + ch];
      c[i * 3 + ch] = v < 0 ? OPS_ALPHA * v : v;
    }
  for (h = 0; h < 3; h++)
    for (w = 0; w < 3; w++)
      for (ch = 0; ch < 3; ch++) {
        float sum = 0.0f;
        int n = 0, dy, dx;
        for (dy = -1; dy <= 1; dy++)
          for (dx = -1; dx <= 1; dx++)
            if (h + dy >= 0 && h + dy < 3 && w + dx >= 0 && w + dx < 3) {
              sum += c[((h + dy) * 3 + w + dx) * 3 + ch];
              n++;
            }
        g_assert_cmpfloat_with_epsilon (ap[(h * 3 + w) * 3 + ch], sum / n,
            1e-5);
        if (ch >= 1)
          g_assert_cmpfloat_with_epsilon (ss1[(h * 3 + w) * 2 + ch - 1],
              c[(h * 3 + w) * 3 + ch], 1e-5);
        if (w < 2)
          g_assert_cmpfloat_with_epsilon (ss2[(h * 2 + w) * 3 + ch],
              c[(h * 3 + 2 * w) * 3 + ch], 1e-5);
      }
  for (i = 0; i < 2; i++)
    for (j = 0; j < 4; j++) {
      float v = 0.0f;
      for (ch = 0; ch < 3; ch++)
        v += y[i * 3 + ch] * k[j * 3 + ch];
      g_assert_cmpfloat_with_epsilon (mm[i * 4 + j], v, 1e-5);
    }
  free_outputs (out, g->n_outputs);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
  g_rand_free (rng);
}

/* float16 and uint8-quantised weights */
static const char quant_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"6\"}]}}}},"
    "{\"name\": \"h\", \"op\": \"Const\"},"
    "{\"name\": \"q\", \"op\": \"Const\"},"
    "{\"name\": \"n\", \"op\": \"Const\"},"
    "{\"name\": \"add\", \"op\": \"AddV2\", \"input\": [\"x\", \"h\"]},"
    "{\"name\": \"mul\", \"op\": \"Mul\", \"input\": [\"add\", \"q\"]},"
    "{\"name\": \"out\", \"op\": \"Reshape\", \"input\": [\"mul\", \"n\"]}"
    "]}, \"weightsManifest\": [{\"paths\": [\"q.bin\"], \"weights\": ["
    " {\"name\": \"h\", \"shape\": [6], \"dtype\": \"float32\","
    "  \"quantization\": {\"dtype\": \"float16\", \"original_dtype\":"
    "  \"float32\"}},"
    " {\"name\": \"q\", \"shape\": [6], \"dtype\": \"float32\","
    "  \"quantization\": {\"dtype\": \"uint8\", \"min\": -1.5, \"scale\": 0.25,"
    "  \"original_dtype\": \"float32\"}},"
    " {\"name\": \"n\", \"shape\": [2], \"dtype\": \"int32\","
    "  \"quantization\": {\"dtype\": \"uint8\", \"min\": -1, \"scale\": 1}}"
    "]}]}";

static void
test_quantised_weights (void)
{
  /* 1, -2.5, 0.5, 65504 (largest half), 2^-24 (smallest subnormal), -0 */
  static const guint16 halves[6] = { 0x3c00, 0xc100, 0x3800, 0x7bff, 0x0001,
    0x8000
  };
  static const float half_values[6] = { 1.0f, -2.5f, 0.5f, 65504.0f,
    5.9604645e-8f, -0.0f
  };
  static const guint8 bytes[6] = { 0, 1, 6, 10, 128, 255 };
  /* [-1 + 3, -1 + 4]: reshape to [2, 3] */
  static const guint8 shape_q[2] = { 3, 4 };
  static const int64_t out_dims[2] = { 2, 3 };
  guint8 buf[12 + 6 + 2];
  shard_set *s = shard_set_new ();
  const simnpu__ir_tensor *h, *q;
  simnpu__ir_graph *g;
  simnpu_error error;
  unsigned i;

  for (i = 0; i < 6; i++) {
    guint16 le = GUINT16_TO_LE (halves[i]);
    memcpy (buf + 2 * i, &le, 2);
  }
  memcpy (buf + 12, bytes, 6);
  memcpy (buf + 18, shape_q, 2);
  shard_set_add (s, "q.bin", buf, sizeof buf);
  g_assert_cmpint (load (quant_json, s, &g, &error), ==, 0);
  h = tensor (g, "h");
  q = tensor (g, "q");
  g_assert_true (h->is_const);
  g_assert_cmpint (h->dtype, ==, SIMNPU_IR_F32);
  for (i = 0; i < 6; i++) {
    g_assert_cmpfloat (((const float *) h->data)[i], ==, half_values[i]);
    g_assert_cmpfloat_with_epsilon (((const float *) q->data)[i],
        -1.5f + 0.25f * bytes[i], 1e-6);
  }
  g_assert_true (signbit (((const float *) h->data)[5]));
  assert_dims (&g->tensors[g->outputs[0]], 2, out_dims);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
}

/* ------------------------------------------------------------------ */
/* (b) malformed models: the error names the culprit */

/* json with the first old replaced by new */
static char *
replace (const char *json, const char *old, const char *new_text)
{
  const char *at = strstr (json, old);
  GString *s = g_string_new (NULL);

  g_assert_nonnull (at);
  g_string_append_len (s, json, at - json);
  g_string_append (s, new_text);
  g_string_append (s, at + strlen (old));
  return g_string_free (s, FALSE);
}

static void
expect_error (const char *json, shard_set * s, int code, const char *needle)
{
  simnpu__ir_graph *g = NULL;
  simnpu_error error;

  g_assert_cmpint (load (json, s, &g, &error), ==, code);
  g_assert_null (g);
  g_assert_cmpint (error.code, ==, code);
  if (strstr (error.message, needle) == NULL)
    g_error ("expected '%s' in the error: %s", needle, error.message);
}

static void
test_malformed (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[CK * CK * CI * CO], b[CO];
  shard_set *s = shard_set_new ();
  char *json;
  guint8 *all;

  /* missing shard */
  make_conv_model (s, w, b, rng);
  g_hash_table_remove (s->shards, "b.bin");
  expect_error (conv_json, s, SIMNPU_EIO, "'b.bin'");

  /* short shard: one float missing */
  all = g_malloc (sizeof w + sizeof b);
  memcpy (all, w, sizeof w);
  memcpy (all + sizeof w, b, sizeof b);
  shard_set_add (s, "b.bin", all + 100, sizeof w + sizeof b - 100 - 4);
  expect_error (conv_json, s, SIMNPU_ESIZE, "b.bin");
  /* and a long one */
  shard_set_add (s, "b.bin", all + 100, sizeof w + sizeof b - 100);
  {
    guint8 *longer = g_malloc0 (sizeof w + sizeof b - 100 + 8);
    memcpy (longer, all + 100, sizeof w + sizeof b - 100);
    shard_set_add (s, "b.bin", longer, sizeof w + sizeof b - 100 + 8);
    expect_error (conv_json, s, SIMNPU_ESIZE, "b.bin");
    g_free (longer);
  }
  shard_set_add (s, "b.bin", all + 100, sizeof w + sizeof b - 100);

  /* unknown dtype */
  json = replace (conv_json, "\"float32\"}, {\"name\": \"b\"",
      "\"complex64\"}, {\"name\": \"b\"");
  expect_error (json, s, SIMNPU_EUNSUPPORTED, "weight 'w'");
  g_free (json);

  /* the node's shape and the manifest's differ */
  json = replace (conv_json, "{\"size\": \"4\"}]}}}}},",
      "{\"size\": \"5\"}]}}}}},");
  expect_error (json, s, SIMNPU_ESHAPE, "'b'");
  g_free (json);

  /* unknown op feeding the only output */
  json = replace (conv_json, "\"Relu6\"", "\"Frob6\"");
  expect_error (json, s, SIMNPU_EUNSUPPORTED, "'relu6'");
  g_free (json);

  /* an input naming no node */
  json = replace (conv_json, "[\"relu6\"]", "[\"relu7\"]");
  expect_error (json, s, SIMNPU_EFORMAT, "'relu7'");
  g_free (json);

  /* a cycle */
  json = replace (conv_json, "[\"x\", \"w:0\"]", "[\"bias\", \"w\"]");
  expect_error (json, s, SIMNPU_EFORMAT, "cycle");
  g_free (json);

  /* a dynamic spatial dimension: --input-shape's to give */
  json = replace (conv_json, "{\"size\": \"5\"}, {\"size\": \"6\"}",
      "{\"size\": \"-1\"}, {\"size\": \"6\"}");
  expect_error (json, s, SIMNPU_EINVAL, "'x'");
  g_free (json);

  /* a dimension json-glib would wrap to -1 (as a number, not a string) */
  json = replace (conv_json, "{\"size\": \"5\"}, {\"size\": \"6\"}",
      "{\"size\": 18446744073709551621}, {\"size\": \"6\"}");
  expect_error (json, s, SIMNPU_EFORMAT, "model.json: $.modelTopology");
  expect_error (json, s, SIMNPU_EFORMAT, ".size: 18446744073709551621 is "
      "out of range");
  g_free (json);

  /* a shape-valued input that is not constant */
  json =
      replace (conv_json, "\"op\": \"BiasAdd\", \"input\": [\"conv\", \"b\",",
      "\"op\": \"Reshape\", \"input\": [\"conv\", \"x\",");
  expect_error (json, s, SIMNPU_EUNSUPPORTED, "'bias'");
  g_free (json);

  /* not JSON, not a graph model */
  expect_error ("{\"modelTopology\": [", s, SIMNPU_EFORMAT, "model.json");
  expect_error ("{\"format\": \"layers-model\"}", s, SIMNPU_EFORMAT,
      "modelTopology");

  g_free (all);
  shard_set_free (s);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* The shards a model.json names, read from its own folder only */

#define INSIDE "must lie inside the model's folder"

/* Loads dir/model.json, the conv model with its one shard at @shard: it
 * must fail with @code and both needles in the message, and give no
 * graph. */
static void
expect_shard_error (const char *dir, const char *shard, int code,
    const char *needle, const char *needle2)
{
  gchar *paths = g_strdup_printf ("[\"%s\"]", shard);
  char *json = replace (conv_json, "[\"a.bin\", \"b.bin\"]", paths);
  gchar *path = g_build_filename (dir, "model.json", NULL);
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };
  int ret;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  ret = simnpu__tfjs_load_file (path, &g, &error);
  if (ret != code || strstr (error.message, needle) == NULL
      || strstr (error.message, needle2) == NULL)
    g_error ("shard '%s': expected %s with '%s' and '%s', got %d: %s", shard,
        simnpu_strerror (code), needle, needle2, ret, error.message);
  g_assert_null (g);
  g_unlink (path);
  g_free (path);
  g_free (json);
  g_free (paths);
}

/* A shard named ../x, /abs/x or a link out of the model's folder (to a
 * file of valid weights, or to /dev/zero) is refused: a hostile model
 * would otherwise carry any file of the user's into the compiled model.
 * A FIFO in the folder is refused without waiting for a writer. A shard
 * in a subfolder is read. */
static void
test_shards_inside_folder (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[CK * CK * CI * CO], b[CO], secret_w[CK * CK * CI * CO + CO];
  shard_set *s = shard_set_new ();
  gchar *tmp = g_dir_make_tmp ("simnpu-tfjs-XXXXXX", NULL);
  gchar *model = g_build_filename (tmp, "model", NULL);
  gchar *sub = g_build_filename (model, "sub", NULL);
  gchar *secret = g_build_filename (tmp, "secret.bin", NULL);
  gchar *good = g_build_filename (sub, "w.bin", NULL);
  gchar *link = g_build_filename (model, "link.bin", NULL);
  gchar *zero = g_build_filename (model, "zero.bin", NULL);
  gchar *fifo = g_build_filename (model, "fifo.bin", NULL);
  gchar *path = g_build_filename (model, "model.json", NULL);
  char *json = replace (conv_json, "[\"a.bin\", \"b.bin\"]",
      "[\"sub/w.bin\"]");
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };
  gboolean found = FALSE;
  guint8 *all;
  unsigned i;
  int t;

  g_assert_nonnull (tmp);
  g_assert_cmpint (g_mkdir_with_parents (sub, 0700), ==, 0);
  /* the secret is valid weights: read, it would load */
  for (i = 0; i < G_N_ELEMENTS (secret_w); i++)
    secret_w[i] = 7.25f;
  g_assert_true (g_file_set_contents (secret, (const gchar *) secret_w,
          sizeof secret_w, NULL));
  make_conv_model (s, w, b, rng);
  all = g_malloc (sizeof w + sizeof b);
  memcpy (all, w, sizeof w);
  memcpy (all + sizeof w, b, sizeof b);
  g_assert_true (g_file_set_contents (good, (const gchar *) all,
          sizeof w + sizeof b, NULL));
  g_assert_cmpint (symlink ("../secret.bin", link), ==, 0);
  g_assert_cmpint (symlink ("/dev/zero", zero), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);

  expect_shard_error (model, "../secret.bin", SIMNPU_EFORMAT,
      "weights shard '../secret.bin' resolves to", INSIDE);
  expect_shard_error (model, "sub/../../secret.bin", SIMNPU_EFORMAT,
      "sub/../../secret.bin", INSIDE);
  expect_shard_error (model, secret, SIMNPU_EFORMAT, secret,
      "is an absolute path");
  expect_shard_error (model, "link.bin", SIMNPU_EFORMAT, "link.bin", INSIDE);
  expect_shard_error (model, "zero.bin", SIMNPU_EFORMAT,
      "resolves to '/dev/zero'", INSIDE);
  expect_shard_error (model, "fifo.bin", SIMNPU_EIO, "fifo.bin",
      "is a FIFO (named pipe); expected a regular file");

  /* inside, in a subfolder: read */
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  if (simnpu__tfjs_load_file (path, &g, &error) < 0)
    g_error ("%s", error.message);
  /* the bias, as written (the conv's weights are laid out anew) */
  for (t = 0; t < (int) g->n_tensors; t++)
    found |= g->tensors[t].data != NULL
        && simnpu__ir_tensor_bytes (&g->tensors[t]) == sizeof b
        && memcmp (g->tensors[t].data, b, sizeof b) == 0;
  g_assert_true (found);
  simnpu__ir_graph_free (g);

  g_unlink (path);
  g_unlink (fifo);
  g_unlink (zero);
  g_unlink (link);
  g_unlink (good);
  g_unlink (secret);
  g_rmdir (sub);
  g_rmdir (model);
  g_rmdir (tmp);
  g_free (json);
  g_free (path);
  g_free (fifo);
  g_free (zero);
  g_free (link);
  g_free (good);
  g_free (secret);
  g_free (sub);
  g_free (model);
  g_free (tmp);
  g_free (all);
  shard_set_free (s);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* Passes on small graphs */

static void
test_cut (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  float w[CK * CK * CI * CO], b[CO];
  static const int64_t bias_dims[4] = { 1, COH, COW, CO };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;

  make_conv_model (s, w, b, rng);
  g_assert_cmpint (load (conv_json, s, &g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_cut_outputs (g, "bias:0", &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 1);
  g_assert_cmpstr (g->tensors[g->outputs[0]].name, ==, "bias");
  assert_dims (&g->tensors[g->outputs[0]], 4, bias_dims);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_CLIP), ==, 0);
  g_assert_cmpuint (g->n_nodes, ==, 2);

  g_assert_cmpint (simnpu__ir_cut_outputs (g, "bais", &error), ==,
      SIMNPU_ENOENT);
  g_assert_nonnull (strstr (error.message, "'bias'"));

  /* the bias add alone, fed by the conv's output */
  g_assert_cmpint (simnpu__ir_cut_inputs (g, "conv", &error), ==, 0);
  g_assert_cmpuint (g->n_nodes, ==, 1);
  g_assert_cmpint (g->nodes[0].op, ==, SIMNPU_IR_ADD);
  g_assert_cmpstr (g->tensors[g->inputs[0]].name, ==, "conv");
  g_assert_cmpint (simnpu__ir_cut_inputs (g, "nothing", &error), ==,
      SIMNPU_ENOENT);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
  g_rand_free (rng);
}

/* Folding: shape arithmetic on constants and Shape of a static tensor. */
static const char fold_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"2\"}, {\"size\": \"3\"}, {\"size\": \"4\"}]}}}},"
    "{\"name\": \"shape\", \"op\": \"Shape\", \"input\": [\"x\"]},"
    "{\"name\": \"two\", \"op\": \"Const\"},"
    "{\"name\": \"hw\", \"op\": \"StridedSlice\", \"input\": [\"shape\","
    " \"b\", \"e\", \"st\"], \"attr\": {}},"
    "{\"name\": \"b\", \"op\": \"Const\"},"
    "{\"name\": \"e\", \"op\": \"Const\"},"
    "{\"name\": \"st\", \"op\": \"Const\"},"
    "{\"name\": \"size\", \"op\": \"Mul\", \"input\": [\"hw\", \"two\"]},"
    "{\"name\": \"up\", \"op\": \"ResizeNearestNeighbor\", \"input\": [\"x\","
    " \"size\"]}"
    "]}, \"weightsManifest\": [{\"paths\": [\"f.bin\"], \"weights\": ["
    " {\"name\": \"two\", \"shape\": [], \"dtype\": \"int32\"},"
    " {\"name\": \"b\", \"shape\": [1], \"dtype\": \"int32\"},"
    " {\"name\": \"e\", \"shape\": [1], \"dtype\": \"int32\"},"
    " {\"name\": \"st\", \"shape\": [1], \"dtype\": \"int32\"}" "]}]}";

static void
test_fold (void)
{
  static const gint32 vals[4] = { 2, 1, 3, 1 };
  static const int64_t up_dims[4] = { 1, 4, 6, 4 };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;

  shard_set_add (s, "f.bin", vals, sizeof vals);
  g_assert_cmpint (load (fold_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 1);
  assert_dims (&g->tensors[g->outputs[0]], 4, up_dims);
  g_assert_cmpuint (g->n_nodes, ==, 1);
  g_assert_cmpint (g->nodes[0].op, ==, SIMNPU_IR_RESIZE);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
}


/* TF's int32 MatMul, as a spatial transformer computes its gather
 * indices: x (a run-time operand) times w, whose products pass 2^31 and
 * wrap as TF's int32 arithmetic does, and the "repeat" of batch offsets
 * (a product of two constants, folded at load) added to x. */
#define IM_M 2
#define IM_K 3
#define IM_N 2
#define IM_REP 3

static const char int_matmul_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_INT32\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"2\"}, {\"size\": \"3\"}]}}}},"
    "{\"name\": \"w\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}}},"
    "{\"name\": \"base\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}}},"
    "{\"name\": \"ones\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}}},"
    "{\"name\": \"mm\", \"op\": \"MatMul\", \"input\": [\"x\", \"w\"],"
    " \"attr\": {\"T\": {\"type\": \"DT_INT32\"}, \"transpose_a\": {\"b\":"
    " false}, \"transpose_b\": {\"b\": false}}},"
    "{\"name\": \"repeat\", \"op\": \"MatMul\", \"input\": [\"base\","
    " \"ones\"], \"attr\": {\"T\": {\"type\": \"DT_INT32\"}}},"
    "{\"name\": \"idx\", \"op\": \"AddV2\", \"input\": [\"repeat\", \"x\"],"
    " \"attr\": {\"T\": {\"type\": \"DT_INT32\"}}}"
    "]}, \"weightsManifest\": [{\"paths\": [\"i.bin\"], \"weights\": ["
    " {\"name\": \"w\", \"shape\": [3, 2], \"dtype\": \"int32\"},"
    " {\"name\": \"base\", \"shape\": [2, 1], \"dtype\": \"int32\"},"
    " {\"name\": \"ones\", \"shape\": [1, 3], \"dtype\": \"int32\"}" "]}]}";

static void
test_int_matmul (void)
{
  /* w, then base, then ones, as the manifest lists them */
  static const gint32 consts[IM_K * IM_N + IM_M + IM_REP] = {
    0x40000001, -3, 7, 0x7fffffff, -2, 5,
    0, 36864,
    1, 1, 1,
  };
  static const gint32 xv[IM_M * IM_K] = { 4, -1, 2, -5, 3, 1 };
  /* row 0 by hand: 4 * 0x40000001 = 2^32 + 4 wraps to 4, so 4 - 7 - 4 =
   * -7; -12 - 0x7fffffff + 10 = -2^31 - 1 wraps to 2^31 - 1. Row 1 is
   * the same sums reduced modulo 2^32. */
  static const gint32 mm_ref[IM_M * IM_N] = {
    -7, G_MAXINT32,
    (gint32) (guint32) (-5 * (gint64) 0x40000001 + 21 - 2),
    (gint32) (guint32) (15 + 3 * (gint64) 0x7fffffff + 5),
  };
  static const gint32 idx_ref[IM_M * IM_K] = {
    4, -1, 2, 36864 - 5, 36864 + 3, 36864 + 1,
  };
  static const int64_t mm_dims[2] = { IM_M, IM_N };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;
  const void *ins[1] = { xv };
  float **outs;
  const gint32 *mm = NULL, *idx = NULL;
  unsigned i;

  shard_set_add (s, "i.bin", consts, sizeof consts);
  g_assert_cmpint (load (int_matmul_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 2);
  assert_output (g, "mm", 2, mm_dims);
  g_assert_cmpint (tensor (g, "mm")->dtype, ==, SIMNPU_IR_I32);
  g_assert_cmpint (tensor (g, "idx")->dtype, ==, SIMNPU_IR_I32);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_MATMUL), ==, 2);
  /* the importer's passes: the repeat of constants is folded away, x's
   * product stays */
  g_assert_cmpint (simnpu__ir_fold_constants (g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_fuse (g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_prune (g, &error), ==, 0);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_MATMUL), ==, 1);
  g_assert_cmpuint (g->n_nodes, ==, 2);
  outs = run_graph (g, (const float *const *) ins);
  for (i = 0; i < g->n_outputs; i++) {
    const char *name = g->tensors[g->outputs[i]].name;
    if (strcmp (name, "mm") == 0)
      mm = (const gint32 *) outs[i];
    else if (strcmp (name, "idx") == 0)
      idx = (const gint32 *) outs[i];
  }
  g_assert_nonnull (mm);
  g_assert_nonnull (idx);
  for (i = 0; i < IM_M * IM_N; i++)
    g_assert_cmpint (mm[i], ==, mm_ref[i]);
  for (i = 0; i < IM_M * IM_K; i++)
    g_assert_cmpint (idx[i], ==, idx_ref[i]);
  free_outputs (outs, g->n_outputs);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
}

/* Atan2 against atan2f in every quadrant and on the axes (broadcast over
 * rows), and ZerosLike and OnesLike, constants of the input's shape. */
#define AT_ROWS 2
#define AT_COLS 4

static const char atan2_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"2\"}, {\"size\": \"4\"}]}}}},"
    "{\"name\": \"d\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_FLOAT\"}}},"
    "{\"name\": \"angle\", \"op\": \"Atan2\", \"input\": [\"x\", \"d\"],"
    " \"attr\": {\"T\": {\"type\": \"DT_FLOAT\"}}},"
    "{\"name\": \"zl\", \"op\": \"ZerosLike\", \"input\": [\"x\"],"
    " \"attr\": {\"T\": {\"type\": \"DT_FLOAT\"}}},"
    "{\"name\": \"ol\", \"op\": \"OnesLike\", \"input\": [\"x\"],"
    " \"attr\": {\"T\": {\"type\": \"DT_FLOAT\"}}},"
    "{\"name\": \"shift\", \"op\": \"AddV2\", \"input\": [\"x\", \"ol\"]},"
    "{\"name\": \"same\", \"op\": \"Mul\", \"input\": [\"shift\", \"ol\"]},"
    "{\"name\": \"zero\", \"op\": \"Mul\", \"input\": [\"x\", \"zl\"]}"
    "]}, \"weightsManifest\": [{\"paths\": [\"d.bin\"], \"weights\": ["
    " {\"name\": \"d\", \"shape\": [4], \"dtype\": \"float32\"}" "]}]}";

static void
test_atan2_fill_like (void)
{
  static const float d[AT_COLS] = { 1.0f, -1.0f, 0.0f, -2.0f };
  static const float xv[AT_ROWS * AT_COLS] = {
    0.5f, 0.5f, 3.0f, 0.0f,
    -0.5f, -0.5f, -3.0f, -1.0f,
  };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;
  const float *ins[1] = { xv };
  const float *angle = NULL, *same = NULL, *zero = NULL;
  float **outs;
  unsigned i;

  shard_set_add (s, "d.bin", d, sizeof d);
  g_assert_cmpint (load (atan2_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 3);
  g_assert_true (tensor (g, "zl")->is_const);
  g_assert_true (tensor (g, "ol")->is_const);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_ATAN2), ==, 1);
  outs = run_graph (g, ins);
  for (i = 0; i < g->n_outputs; i++) {
    const char *name = g->tensors[g->outputs[i]].name;
    if (strcmp (name, "angle") == 0)
      angle = outs[i];
    else if (strcmp (name, "same") == 0)
      same = outs[i];
    else if (strcmp (name, "zero") == 0)
      zero = outs[i];
  }
  g_assert_nonnull (angle);
  g_assert_nonnull (same);
  g_assert_nonnull (zero);
  for (i = 0; i < AT_ROWS * AT_COLS; i++) {
    g_assert_cmpfloat (angle[i], ==, atan2f (xv[i], d[i % AT_COLS]));
    g_assert_cmpfloat (same[i], ==, xv[i] + 1.0f);
    g_assert_cmpfloat (zero[i], ==, 0.0f * xv[i]);
  }
  /* the quadrants: (x > 0, d < 0) lies in the second, (x < 0, d < 0) in
   * the third; on the axis d = 0 the angle is +-pi/2 */
  g_assert_cmpfloat (angle[1], >, G_PI / 2);
  g_assert_cmpfloat (angle[AT_COLS + 1], <, -G_PI / 2);
  g_assert_cmpfloat_with_epsilon (angle[2], G_PI / 2, 1e-6);
  free_outputs (outs, g->n_outputs);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
}

/* A TF while loop of a constant trip count, as tf.map_fn over the batch
 * writes it: the batch unstacked to a TensorList, each item scaled (3 x +
 * 1) and set into a reserved list, the list stacked. The loader unrolls
 * it: no control flow is left, and out = 3 x + 1 item by item. */
#define LOOP_N 2
#define LOOP_ITEM 4
static const char loop_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"2\"}, {\"size\": \"2\"}, {\"size\": \"2\"}, {\"size\": \"1\"}]}}}},"
    "{\"name\": \"c_zero\", \"op\": \"Const\"},"
    "{\"name\": \"c_lim\", \"op\": \"Const\"},"
    "{\"name\": \"c_one\", \"op\": \"Const\"},"
    "{\"name\": \"c_es\", \"op\": \"Const\"},"
    "{\"name\": \"c_three\", \"op\": \"Const\"},"
    "{\"name\": \"c_onef\", \"op\": \"Const\"},"
    "{\"name\": \"xs\", \"op\": \"TensorListFromTensor\", \"input\":"
    " [\"x\", \"c_es\"]},"
    "{\"name\": \"acc0\", \"op\": \"TensorListReserve\", \"input\":"
    " [\"c_es\", \"c_lim\"]},"
    "{\"name\": \"w/Enter_i\", \"op\": \"Enter\", \"input\": [\"c_zero\"],"
    " \"attr\": {\"frame_name\": {\"s\": \"dw==\"}}},"
    "{\"name\": \"w/Enter_l\", \"op\": \"Enter\", \"input\": [\"xs\"],"
    " \"attr\": {\"frame_name\": {\"s\": \"dw==\"}}},"
    "{\"name\": \"w/Enter_a\", \"op\": \"Enter\", \"input\": [\"acc0\"],"
    " \"attr\": {\"frame_name\": {\"s\": \"dw==\"}}},"
    "{\"name\": \"w/Merge_i\", \"op\": \"Merge\", \"input\": [\"w/Enter_i\","
    " \"w/Next_i\"]},"
    "{\"name\": \"w/Merge_l\", \"op\": \"Merge\", \"input\": [\"w/Enter_l\","
    " \"w/Next_l\"]},"
    "{\"name\": \"w/Merge_a\", \"op\": \"Merge\", \"input\": [\"w/Enter_a\","
    " \"w/Next_a\"]},"
    "{\"name\": \"w/Less\", \"op\": \"Less\", \"input\": [\"w/Merge_i\","
    " \"c_lim\"]},"
    "{\"name\": \"w/LoopCond\", \"op\": \"LoopCond\", \"input\": [\"w/Less\"]},"
    "{\"name\": \"w/Switch_i\", \"op\": \"Switch\", \"input\": [\"w/Merge_i\","
    " \"w/LoopCond\"]},"
    "{\"name\": \"w/Switch_l\", \"op\": \"Switch\", \"input\": [\"w/Merge_l\","
    " \"w/LoopCond\"]},"
    "{\"name\": \"w/Switch_a\", \"op\": \"Switch\", \"input\": [\"w/Merge_a\","
    " \"w/LoopCond\"]},"
    "{\"name\": \"w/Exit_a\", \"op\": \"Exit\", \"input\": [\"w/Switch_a\"]},"
    "{\"name\": \"w/Get\", \"op\": \"TensorListGetItem\", \"input\":"
    " [\"w/Switch_l:1\", \"w/Switch_i:1\", \"c_es\"]},"
    "{\"name\": \"w/Mul\", \"op\": \"Mul\", \"input\": [\"w/Get\","
    " \"c_three\"]},"
    "{\"name\": \"w/Add\", \"op\": \"AddV2\", \"input\": [\"w/Mul\","
    " \"c_onef\"]},"
    "{\"name\": \"w/Set\", \"op\": \"TensorListSetItem\", \"input\":"
    " [\"w/Switch_a:1\", \"w/Switch_i:1\", \"w/Add\"]},"
    "{\"name\": \"w/Inc\", \"op\": \"AddV2\", \"input\": [\"w/Switch_i:1\","
    " \"c_one\"]},"
    "{\"name\": \"w/Next_i\", \"op\": \"NextIteration\", \"input\":"
    " [\"w/Inc\"]},"
    "{\"name\": \"w/Next_l\", \"op\": \"NextIteration\", \"input\":"
    " [\"w/Switch_l:1\"]},"
    "{\"name\": \"w/Next_a\", \"op\": \"NextIteration\", \"input\":"
    " [\"w/Set\"]},"
    "{\"name\": \"out\", \"op\": \"TensorListStack\", \"input\":"
    " [\"w/Exit_a\", \"c_es\"]}"
    "]}, \"weightsManifest\": [{\"paths\": [\"l.bin\"], \"weights\": ["
    " {\"name\": \"c_zero\", \"shape\": [], \"dtype\": \"int32\"},"
    " {\"name\": \"c_lim\", \"shape\": [], \"dtype\": \"int32\"},"
    " {\"name\": \"c_one\", \"shape\": [], \"dtype\": \"int32\"},"
    " {\"name\": \"c_es\", \"shape\": [3], \"dtype\": \"int32\"},"
    " {\"name\": \"c_three\", \"shape\": [], \"dtype\": \"float32\"},"
    " {\"name\": \"c_onef\", \"shape\": [], \"dtype\": \"float32\"}" "]}]}";

static void
test_while_unrolled (void)
{
  /* c_zero, c_lim, c_one, c_es[3], then the floats 3 and 1 */
  guint32 bin[8] = { 0, LOOP_N, 1, 2, 2, 1, 0, 0 };
  float three = 3.0f, one = 1.0f;
  static const float xv[LOOP_N * LOOP_ITEM] = {
    0.5f, -1.0f, 2.0f, 0.0f, -0.25f, 4.0f, 1.5f, -3.0f,
  };
  static const int64_t want_dims[4] = { LOOP_N, 2, 2, 1 };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;
  const float *ins[1] = { xv };
  float **outs;
  char *json;
  unsigned i;

  memcpy (&bin[6], &three, sizeof three);
  memcpy (&bin[7], &one, sizeof one);
  shard_set_add (s, "l.bin", bin, sizeof bin);
  g_assert_cmpint (load (loop_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 1);
  g_assert_cmpstr (g->tensors[g->outputs[0]].name, ==, "out");
  assert_dims (&g->tensors[g->outputs[0]], 4, want_dims);
  /* one scale and one offset per iteration, nothing of the loop left */
  g_assert_cmpuint (count_op (g, SIMNPU_IR_MUL), ==, LOOP_N);
  outs = run_graph (g, ins);
  for (i = 0; i < LOOP_N * LOOP_ITEM; i++)
    g_assert_cmpfloat (outs[0][i], ==, 3.0f * xv[i] + 1.0f);
  free_outputs (outs, 1);
  simnpu__ir_graph_free (g);

  /* a trip count the input decides (the loop compares against x) is not
   * unrolled: the loop is cut and what enters it is left */
  json = replace (loop_json, "[\"w/Merge_i\", \"c_lim\"]",
      "[\"w/Merge_i\", \"x\"    ]");
  g_assert_cmpint (load (json, s, &g, &error), ==, 0);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_MUL), ==, 0);
  for (i = 0; i < g->n_outputs; i++)
    g_assert_cmpstr (g->tensors[g->outputs[i]].name, !=, "out");
  simnpu__ir_graph_free (g);
  g_free (json);
  shard_set_free (s);
}

/* A dilated depthwise conv as TF writes it (SpaceToBatchND, a VALID
 * conv, BatchToSpaceND) loads as one conv of dilation 2, the same as the
 * conv with dilations [1, 2, 2, 1] and SAME padding. */
static const char space_batch_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"6\"}, {\"size\": \"6\"}, {\"size\": \"2\"}]}}}},"
    "{\"name\": \"w\", \"op\": \"Const\"},"
    "{\"name\": \"block\", \"op\": \"Const\"},"
    "{\"name\": \"pads\", \"op\": \"Const\"},"
    "{\"name\": \"crops\", \"op\": \"Const\"},"
    "{\"name\": \"s2b\", \"op\": \"SpaceToBatchND\", \"input\": [\"x\","
    " \"block\", \"pads\"]},"
    "{\"name\": \"dw\", \"op\": \"DepthwiseConv2dNative\", \"input\":"
    " [\"s2b\", \"w\"], \"attr\": {\"padding\": {\"s\": \"VkFMSUQ=\"}}},"
    "{\"name\": \"a\", \"op\": \"BatchToSpaceND\", \"input\": [\"dw\","
    " \"block\", \"crops\"]},"
    "{\"name\": \"b\", \"op\": \"DepthwiseConv2dNative\", \"input\":"
    " [\"x\", \"w\"], \"attr\": {\"padding\": {\"s\": \"U0FNRQ==\"},"
    " \"dilations\": {\"list\": {\"i\": [\"1\", \"2\", \"2\", \"1\"]}}}}"
    "]}, \"weightsManifest\": [{\"paths\": [\"s.bin\"], \"weights\": ["
    " {\"name\": \"w\", \"shape\": [3, 3, 2, 1], \"dtype\": \"float32\"},"
    " {\"name\": \"block\", \"shape\": [2], \"dtype\": \"int32\"},"
    " {\"name\": \"pads\", \"shape\": [2, 2], \"dtype\": \"int32\"},"
    " {\"name\": \"crops\", \"shape\": [2, 2], \"dtype\": \"int32\"}" "]}]}";

static void
test_space_to_batch_conv (void)
{
  guint32 bin[18 + 2 + 4 + 4];
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;
  float xv[6 * 6 * 2];
  const float *ins[1] = { xv };
  float **outs;
  unsigned i;
  int ta, tb;

  for (i = 0; i < 18; i++) {
    float w = 0.25f * (float) i - 2.0f;
    memcpy (&bin[i], &w, sizeof w);
  }
  bin[18] = bin[19] = 2;
  for (i = 0; i < 4; i++) {
    bin[20 + i] = 2;
    bin[24 + i] = 0;
  }
  for (i = 0; i < G_N_ELEMENTS (xv); i++)
    xv[i] = (float) ((i * 7) % 11) - 5.0f;
  shard_set_add (s, "s.bin", bin, sizeof bin);
  g_assert_cmpint (load (space_batch_json, s, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 2);
  /* two convs of dilation 2, no pad or batch left */
  g_assert_cmpuint (count_op (g, SIMNPU_IR_CONV2D), ==, 2);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_PAD), ==, 0);
  for (i = 0; i < g->n_nodes; i++)
    if (g->nodes[i].op == SIMNPU_IR_CONV2D)
      g_assert_cmpint (g->nodes[i].attrs.dilation[0], ==, 2);
  ta = strcmp (g->tensors[g->outputs[0]].name, "a") == 0 ? 0 : 1;
  tb = 1 - ta;
  assert_dims (&g->tensors[g->outputs[ta]], 4, (const int64_t[4]) {
        1, 6, 6, 2
      });
  outs = run_graph (g, ins);
  for (i = 0; i < G_N_ELEMENTS (xv); i++)
    g_assert_cmpfloat (outs[ta][i], ==, outs[tb][i]);
  free_outputs (outs, 2);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
}

/* TF's nearest_neighbor_upsampling, as the Object Detection API's
 * feature pyramids write it (HandTrack): x stacked twice along a new axis
 * 3, that twice along a new axis 2, reshaped to [N, 2H, 2W, C]. It loads
 * as one nearest resize, which the device takes, and each output pixel is
 * x at (y / 2, x / 2). */
#define UP_H 2
#define UP_W 3
#define UP_C 2
static const char upsample_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"2\"}, {\"size\": \"3\"}, {\"size\": \"2\"}]}}}},"
    "{\"name\": \"shape\", \"op\": \"Const\"},"
    "{\"name\": \"stack\", \"op\": \"Pack\", \"input\": [\"x\", \"x\"],"
    " \"attr\": {\"axis\": {\"i\": \"3\"}}},"
    "{\"name\": \"stack_1\", \"op\": \"Pack\", \"input\": [\"stack\","
    " \"stack\"], \"attr\": {\"axis\": {\"i\": \"2\"}}},"
    "{\"name\": \"up\", \"op\": \"Reshape\", \"input\": [\"stack_1\","
    " \"shape\"]}"
    "]}, \"weightsManifest\": [{\"paths\": [\"u.bin\"], \"weights\": ["
    " {\"name\": \"shape\", \"shape\": [4], \"dtype\": \"int32\"}" "]}]}";

static void
test_upsampling (void)
{
  static const gint32 shape[4] = { 1, 2 * UP_H, 2 * UP_W, UP_C };
  static const int64_t want[4] = { 1, 2 * UP_H, 2 * UP_W, UP_C };
  float xv[UP_H * UP_W * UP_C];
  const float *ins[1] = { xv };
  shard_set *s = shard_set_new ();
  simnpu__ir_graph *g;
  simnpu_error error;
  float **outs;
  unsigned y, x, c;

  for (y = 0; y < UP_H * UP_W * UP_C; y++)
    xv[y] = 0.5f * (float) y - 2.0f;
  shard_set_add (s, "u.bin", shape, sizeof shape);
  g_assert_cmpint (load (upsample_json, s, &g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_prune (g, &error), ==, 0);
  g_assert_cmpuint (g->n_nodes, ==, 1);
  g_assert_cmpint (g->nodes[0].op, ==, SIMNPU_IR_RESIZE);
  g_assert_null (simnpu__device_refusal (g, &g->nodes[0]));
  assert_dims (&g->tensors[g->outputs[0]], 4, want);
  outs = run_graph (g, ins);
  for (y = 0; y < 2 * UP_H; y++)
    for (x = 0; x < 2 * UP_W; x++)
      for (c = 0; c < UP_C; c++)
        g_assert_cmpfloat (outs[0][(y * 2 * UP_W + x) * UP_C + c], ==,
            xv[((y / 2) * UP_W + x / 2) * UP_C + c]);
  free_outputs (outs, 1);
  simnpu__ir_graph_free (g);
  shard_set_free (s);
}

/* float16's 1/6 */
#define F16_SIXTH 0.1666259765625f

static int
add_const_f (simnpu__ir_graph * g, const char *name, unsigned rank,
    const int64_t * dims, const float *vals, int64_t n)
{
  return simnpu__ir_add_const (g, name, SIMNPU_IR_F32, rank, dims,
      g_memdup2 (vals, n * sizeof (float)));
}

static int
add_op (simnpu__ir_graph * g, simnpu__ir_op op, const char *name,
    unsigned n_in, const int *in, simnpu__ir_node ** node)
{
  int out = simnpu__ir_add_tensor (g, name, SIMNPU_IR_F32, 0, NULL);
  simnpu__ir_node *n = simnpu__ir_add_node (g, op, name, n_in, in, 1, &out);
  if (node)
    *node = n;
  return out;
}

/* TF's two spellings of hard swish after 1x1 convs: (y * c) * relu6 (y +
 * 3) feeding another conv, and (y * relu6 (y + 3)) * c as an output. */
static void
test_fuse_hard_swish (void)
{
  static const int64_t xd[4] = { 1, 3, 3, 3 }, wd[4] = { 3, 1, 1, 3 };
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu__ir_graph *g = simnpu__ir_graph_new ("hs"), *f;
  simnpu_error error = { 0 };
  float w[9], sixth = F16_SIXTH, three = 3.0f, x[27];
  const float *ins[1] = { x };
  float **a, **b;
  simnpu__ir_node *n;
  int in, t[4], y, z, out1, out2;
  unsigned i, k;

  in = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 4, xd);
  g->inputs[g->n_inputs++] = in;
  for (k = 0; k < 3; k++) {
    char name[16];
    g_snprintf (name, sizeof name, "w%u", k);
    fill_random (w, 9, rng);
    for (i = 0; i < 9; i++)
      w[i] *= 4.0f;
    t[k] = add_const_f (g, name, 4, wd, w, 9);
  }
  t[3] = add_const_f (g, "sixth", 0, NULL, &sixth, 1);
  {
    int three_t = add_const_f (g, "three", 0, NULL, &three, 1);
    int ci[2] = { in, t[0] }, m_in[2], d_in[2], k_in[1], f_in[2];
    /* branch 1 */
    y = add_op (g, SIMNPU_IR_CONV2D, "conv0", 2, ci, NULL);
    m_in[0] = y;
    m_in[1] = t[3];
    d_in[0] = y;
    d_in[1] = three_t;
    f_in[0] = add_op (g, SIMNPU_IR_MUL, "m", 2, m_in, NULL);
    k_in[0] = add_op (g, SIMNPU_IR_ADD, "d", 2, d_in, NULL);
    f_in[1] = add_op (g, SIMNPU_IR_CLIP, "k", 1, k_in, &n);
    n->attrs.f[0] = 0.0f;
    n->attrs.f[1] = 6.0f;
    ci[0] = add_op (g, SIMNPU_IR_MUL, "hs", 2, f_in, NULL);
    ci[1] = t[1];
    out1 = add_op (g, SIMNPU_IR_CONV2D, "conv1", 2, ci, NULL);
    /* branch 2 */
    ci[0] = in;
    ci[1] = t[2];
    z = add_op (g, SIMNPU_IR_CONV2D, "conv2", 2, ci, NULL);
    d_in[0] = z;
    k_in[0] = add_op (g, SIMNPU_IR_ADD, "d2", 2, d_in, NULL);
    m_in[0] = z;
    m_in[1] = add_op (g, SIMNPU_IR_CLIP, "k2", 1, k_in, &n);
    n->attrs.f[0] = 0.0f;
    n->attrs.f[1] = 6.0f;
    f_in[0] = add_op (g, SIMNPU_IR_MUL, "m2", 2, m_in, NULL);
    f_in[1] = t[3];
    out2 = add_op (g, SIMNPU_IR_MUL, "hs2", 2, f_in, NULL);
  }
  g->outputs[g->n_outputs++] = out1;
  g->outputs[g->n_outputs++] = out2;
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, 0);

  f = simnpu__ir_graph_copy (g);
  g_assert_cmpint (simnpu__ir_fuse (f, &error), ==, 0);
  /* conv0 (hard swish), conv1 (weights scaled by 6c), conv2 (hard swish),
   * the output's multiply by 6c */
  g_assert_cmpuint (f->n_nodes, ==, 4);
  g_assert_cmpuint (count_op (f, SIMNPU_IR_CONV2D), ==, 3);
  g_assert_cmpint (f->nodes[0].attrs.act, ==, SIMNPU_IR_ACT_HARD_SWISH);
  g_assert_cmpuint (count_op (f, SIMNPU_IR_MUL), ==, 1);

  fill_random (x, 27, rng);
  for (i = 0; i < 27; i++)
    x[i] *= 3.0f;
  a = run_graph (g, ins);
  b = run_graph (f, ins);
  for (k = 0; k < 2; k++)
    for (i = 0; i < 27; i++)
      g_assert_cmpfloat_with_epsilon (a[k][i], b[k][i],
          1e-5 * MAX (1.0, fabs (a[k][i])));
  free_outputs (a, 2);
  free_outputs (b, 2);
  simnpu__ir_graph_free (f);
  simnpu__ir_graph_free (g);
  g_rand_free (rng);
}

static int
add_pad (simnpu__ir_graph * g, const char *name, int x, const int64_t * p,
    float value)
{
  simnpu__ir_node *n;
  int out = add_op (g, SIMNPU_IR_PAD, name, 1, &x, &n);
  unsigned i;

  for (i = 0; i < 8; i++)
    n->attrs.ints[i] = p[i];
  n->attrs.n_ints = 8;
  n->attrs.f[0] = value;
  return out;
}

/* A zero pad of H and W before a conv and a -inf pad before a maxpool
 * become their padding; a pad of 1 before a conv, a pad of the channels
 * and a zero pad before a maxpool stay. */
static void
test_fuse_pad (void)
{
  static const int64_t xd[4] = { 1, 4, 5, 2 }, wd[4] = { 3, 2, 2, 2 };
  /* before N, H, W, C, then after */
  static const int64_t spatial[8] = { 0, 1, 0, 0, 0, 2, 1, 0 };
  static const int64_t channels[8] = { 0, 0, 0, 0, 0, 0, 0, 2 };
  GRand *rng = g_rand_new_with_seed (SEED + 3);
  simnpu__ir_graph *g = simnpu__ir_graph_new ("pads"), *f;
  simnpu_error error = { 0 };
  float w[24], w2[48], x[40];
  const float *ins[1] = { x };
  float **a, **b;
  simnpu__ir_node *n;
  int in, wt, wt2, p, ci[2], outs[4];
  unsigned i, k;
  static const char *const names[4] = { "conv", "conv1", "pool", "pool0" };

  in = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 4, xd);
  g->inputs[g->n_inputs++] = in;
  fill_random (w, 24, rng);
  fill_random (w2, 48, rng);
  fill_random (x, 40, rng);
  wt = add_const_f (g, "w", 4, wd, w, 24);
  {
    static const int64_t wd2[4] = { 3, 2, 2, 4 };
    wt2 = add_const_f (g, "w2", 4, wd2, w2, 48);
  }
  ci[0] = add_pad (g, "pad", in, spatial, 0.0f);
  ci[1] = wt;
  outs[0] = add_op (g, SIMNPU_IR_CONV2D, names[0], 2, ci, NULL);
  ci[0] = add_pad (g, "pad1", in, spatial, 1.0f);
  outs[1] = add_op (g, SIMNPU_IR_CONV2D, names[1], 2, ci, NULL);
  p = add_pad (g, "padinf", in, spatial, -INFINITY);
  outs[2] = add_op (g, SIMNPU_IR_MAXPOOL, names[2], 1, &p, &n);
  n->attrs.kernel[0] = n->attrs.kernel[1] = 3;
  p = add_pad (g, "pad0", in, spatial, 0.0f);
  outs[3] = add_op (g, SIMNPU_IR_MAXPOOL, names[3], 1, &p, &n);
  n->attrs.kernel[0] = n->attrs.kernel[1] = 3;
  for (k = 0; k < 4; k++)
    g->outputs[g->n_outputs++] = outs[k];
  /* a channel pad feeding a conv (4 input channels) */
  ci[0] = add_pad (g, "padc", in, channels, 0.0f);
  ci[1] = wt2;
  g->outputs[g->n_outputs++] = add_op (g, SIMNPU_IR_CONV2D, "convc", 2, ci,
      NULL);
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, 0);

  f = simnpu__ir_graph_copy (g);
  g_assert_cmpint (simnpu__ir_fuse (f, &error), ==, 0);
  /* pad1, pad0 and padc stay */
  g_assert_cmpuint (f->n_nodes, ==, g->n_nodes - 2);
  g_assert_cmpuint (count_op (f, SIMNPU_IR_PAD), ==, 3);
  for (i = 0; i < f->n_nodes; i++) {
    const simnpu__ir_node *nd = &f->nodes[i];
    const char *name = f->tensors[nd->outputs[0]].name;
    if (strcmp (name, "conv") == 0 || strcmp (name, "pool") == 0) {
      g_assert_cmpint (f->tensors[nd->inputs[0]].producer, <, 0);
      g_assert_cmpint (nd->attrs.pads[0], ==, 1);
      g_assert_cmpint (nd->attrs.pads[1], ==, 0);
      g_assert_cmpint (nd->attrs.pads[2], ==, 2);
      g_assert_cmpint (nd->attrs.pads[3], ==, 1);
    }
  }
  a = run_graph (g, ins);
  b = run_graph (f, ins);
  for (k = 0; k < g->n_outputs; k++) {
    int64_t m = simnpu__ir_tensor_elements (&g->tensors[g->outputs[k]]);
    /* the padded conv sums its taps in another order than pad + conv */
    for (i = 0; i < m; i++)
      g_assert_cmpfloat_with_epsilon (a[k][i], b[k][i],
          1e-5 * MAX (1.0, fabs (a[k][i])));
  }
  free_outputs (a, g->n_outputs);
  free_outputs (b, f->n_outputs);
  simnpu__ir_graph_free (f);
  simnpu__ir_graph_free (g);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* (c) the real models */

static char *
model_path (const char *name)
{
  const char *dir = g_getenv ("GST_AX_DATA_DIR");
  char *file, *path;

  if (dir == NULL || dir[0] == '\0') {
    g_test_skip ("GST_AX_DATA_DIR is not set");
    return NULL;
  }
  file = g_strdup_printf ("%s.json", name);
  path = g_build_filename (dir, "human", file, NULL);
  g_free (file);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    char *msg = g_strdup_printf ("%s is missing", path);
    g_test_skip (msg);
    g_free (msg);
    g_free (path);
    return NULL;
  }
  return path;
}

static simnpu__ir_graph *
load_model (const char *name)
{
  char *path = model_path (name);
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };

  if (path == NULL)
    return NULL;
  if (simnpu__tfjs_load_file (path, &g, &error) < 0)
    g_error ("%s: %s", path, error.message);
  g_free (path);
  return g;
}

/* Fuses a copy of g, checks what must be gone, and compares both graphs'
 * outputs on one random input. */
static void
check_fusion (const simnpu__ir_graph * g, const char *model,
    unsigned min_removed, double tol)
{
  simnpu__ir_graph *f = simnpu__ir_graph_copy (g);
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu_error error = { 0 };
  float **ins, **a, **b;
  unsigned i, j;
  int64_t k, n;

  if (simnpu__ir_fuse (f, &error) < 0)
    g_error ("fuse: %s", error.message);
  g_test_message ("%s: %u nodes, %u after fusion", model, g->n_nodes,
      f->n_nodes);
  g_assert_cmpuint (f->n_nodes + min_removed, <=, g->n_nodes);
  g_assert_cmpuint (count_op (f, SIMNPU_IR_BATCHNORM), ==, 0);
  g_assert_cmpuint (f->n_outputs, ==, g->n_outputs);
  for (i = 0; i < f->n_nodes; i++) {
    const simnpu__ir_node *nd = &f->nodes[i];
    for (j = 0; j < nd->n_inputs; j++) {
      int t = nd->inputs[j], p;
      unsigned uses = 0, x, y;
      if (t < 0 || f->tensors[t].is_const)
        continue;
      p = f->tensors[t].producer;
      if (p < 0)
        continue;
      for (x = 0; x < f->n_nodes; x++)
        for (y = 0; y < f->nodes[x].n_inputs; y++)
          uses += f->nodes[x].inputs[y] == t;
      /* no bias add left behind a conv or matmul it could join */
      if (nd->op == SIMNPU_IR_ADD && uses == 1
          && (f->nodes[p].op == SIMNPU_IR_CONV2D
              || f->nodes[p].op == SIMNPU_IR_MATMUL)
          && f->nodes[p].attrs.act == SIMNPU_IR_ACT_NONE) {
        int other = nd->inputs[1 - j];
        g_assert_false (f->tensors[other].is_const
            && f->tensors[other].rank <= 1);
      }
      /* no zero pad of the spatial axes before a conv */
      if (nd->op == SIMNPU_IR_CONV2D && j == 0
          && f->nodes[p].op == SIMNPU_IR_PAD) {
        const simnpu__ir_attrs *pa = &f->nodes[p].attrs;
        g_assert_false (pa->f[0] == 0.0f && pa->ints[0] == 0
            && pa->ints[3] == 0 && pa->ints[4] == 0 && pa->ints[7] == 0);
      }
    }
  }

  ins = g_new0 (float *, g->n_inputs);
  for (i = 0; i < g->n_inputs; i++) {
    n = simnpu__ir_tensor_elements (&g->tensors[g->inputs[i]]);
    ins[i] = g_new (float, n);
    fill_random (ins[i], n, rng);
  }
  a = run_graph (g, (const float *const *) ins);
  b = run_graph (f, (const float *const *) ins);
  for (i = 0; i < g->n_outputs; i++) {
    const simnpu__ir_tensor *t = &g->tensors[g->outputs[i]];
    double peak = 0.0, worst = 0.0;
    g_assert_cmpstr (t->name, ==, f->tensors[f->outputs[i]].name);
    n = simnpu__ir_tensor_elements (t);
    for (k = 0; k < n; k++)
      peak = MAX (peak, fabs (a[i][k]));
    /* relative to the output's range, absolute below 1 (probabilities):
     * fused weights and activations round differently */
    for (k = 0; k < n; k++) {
      double d = fabs ((double) a[i][k] - b[i][k]) / MAX (peak, 1.0);
      worst = MAX (worst, d);
    }
    g_test_message ("%s: output '%s' peak %g, worst relative difference %g",
        model, t->name, peak, worst);
    g_assert_cmpfloat (worst, <=, tol);
  }
  free_outputs (a, g->n_outputs);
  free_outputs (b, g->n_outputs);
  for (i = 0; i < g->n_inputs; i++)
    g_free (ins[i]);
  g_free (ins);
  g_rand_free (rng);
  simnpu__ir_graph_free (f);
}

static void
test_blazeface (void)
{
  static const int64_t in_dims[4] = { 1, 256, 256, 3 };
  static const int64_t d0[3] = { 1, 512, 1 }, d1[3] = { 1, 384, 1 };
  static const int64_t d2[3] = { 1, 512, 16 }, d3[3] = { 1, 384, 16 };
  simnpu__ir_graph *g = load_model ("blazeface");

  if (g == NULL)
    return;
  g_assert_cmpuint (g->n_inputs, ==, 1);
  g_assert_cmpstr (g->tensors[g->inputs[0]].name, ==, "input");
  assert_dims (&g->tensors[g->inputs[0]], 4, in_dims);
  g_assert_cmpuint (g->n_outputs, ==, 4);
  /* classificators (scores) and regressors (boxes, keypoints) of the 16x16
   * (512 anchors) and 8x8 (384 anchors) heads */
  assert_output (g, "Identity", 3, d0);
  assert_output (g, "Identity_1", 3, d1);
  assert_output (g, "Identity_2", 3, d2);
  assert_output (g, "Identity_3", 3, d3);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_CONV2D), ==, 37 + 32);
  check_fusion (g, "blazeface", 0, REL_TOL);
  simnpu__ir_graph_free (g);
}

static void
test_emotion (void)
{
  static const int64_t in_dims[4] = { 1, 64, 64, 1 };
  static const int64_t out_dims[2] = { 1, 7 };
  simnpu__ir_graph *g = load_model ("emotion");

  if (g == NULL)
    return;
  g_assert_cmpuint (g->n_inputs, ==, 1);
  assert_dims (&g->tensors[g->inputs[0]], 4, in_dims);
  g_assert_cmpuint (g->n_outputs, ==, 1);
  assert_output (g, "Identity", 2, out_dims);
  check_fusion (g, "emotion", 0, REL_TOL);
  simnpu__ir_graph_free (g);
}

static void
test_centernet (void)
{
  static const int64_t in_dims[4] = { 1, 512, 512, 3 };
  static const int64_t heat_dims[4] = { 1, 128, 128, 80 };
  static const int64_t wh_dims[4] = { 1, 128, 128, 4 };
  simnpu__ir_graph *g = load_model ("centernet");
  simnpu_error error = { 0 };
  unsigned i;

  if (g == NULL)
    return;
  g_assert_cmpuint (g->n_inputs, ==, 1);
  g_assert_cmpstr (g->tensors[g->inputs[0]].name, ==, "tower_0/images");
  assert_dims (&g->tensors[g->inputs[0]], 4, in_dims);
  /* the heat map (sigmoid of the class logits) and the box sizes feed
   * the TopKV2 peak-picking tail */
  if (simnpu__ir_cut_outputs (g, "tower_0/keypoints,tower_0/wh", &error) < 0)
    g_error ("cut: %s", error.message);
  g_assert_cmpuint (g->n_outputs, ==, 2);
  assert_output (g, "tower_0/keypoints", 4, heat_dims);
  assert_output (g, "tower_0/wh", 4, wh_dims);
  for (i = 0; i < g->n_nodes; i++) {
    g_assert_nonnull (simnpu__ir_op_get (g->nodes[i].op));
    g_assert_cmpint (g->nodes[i].op, !=, SIMNPU_IR_GATHER);
    g_assert_cmpint (g->nodes[i].op, !=, SIMNPU_IR_EQUAL);
  }
  g_assert_cmpuint (count_op (g, SIMNPU_IR_RESIZE), ==, 3);
  /* its hard swishes, x * relu6 (x + 3) * c with c a float16 1/6, become
   * hard_swish (x) * 6c: that rounds differently (1.5e-5 measured) */
  check_fusion (g, "centernet", 80, CENTERNET_TOL);
  simnpu__ir_graph_free (g);
}

static void
test_faceres (void)
{
  static const int64_t in_dims[4] = { 1, 224, 224, 3 };
  static const int64_t gender[2] = { 1, 1 }, emb[2] = { 1, 1024 };
  static const int64_t age[2] = { 1, 100 };
  simnpu__ir_graph *g = load_model ("faceres");

  if (g == NULL)
    return;
  assert_dims (&g->tensors[g->inputs[0]], 4, in_dims);
  g_assert_cmpuint (g->n_outputs, ==, 3);
  assert_output (g, "gender_pred/Sigmoid", 2, gender);
  assert_output (g, "global_pooling/Mean", 2, emb);
  assert_output (g, "age_pred/Softmax", 2, age);
  check_fusion (g, "faceres", 100, REL_TOL);
  simnpu__ir_graph_free (g);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tfjs/conv-same-stride2", test_conv_same_stride2);
  g_test_add_func ("/tfjs/depthwise-explicit", test_depthwise_explicit);
  g_test_add_func ("/tfjs/conv-transpose", test_conv_transpose);
  g_test_add_func ("/tfjs/ops", test_ops);
  g_test_add_func ("/tfjs/quantised-weights", test_quantised_weights);
  g_test_add_func ("/tfjs/malformed", test_malformed);
  g_test_add_func ("/tfjs/shards-inside-folder", test_shards_inside_folder);
  g_test_add_func ("/tfjs/cut", test_cut);
  g_test_add_func ("/tfjs/fold", test_fold);
  g_test_add_func ("/tfjs/int-matmul", test_int_matmul);
  g_test_add_func ("/tfjs/atan2-fill-like", test_atan2_fill_like);
  g_test_add_func ("/tfjs/while-unrolled", test_while_unrolled);
  g_test_add_func ("/tfjs/upsampling", test_upsampling);
  g_test_add_func ("/tfjs/space-to-batch-conv", test_space_to_batch_conv);
  g_test_add_func ("/tfjs/fuse-hard-swish", test_fuse_hard_swish);
  g_test_add_func ("/tfjs/fuse-pad", test_fuse_pad);
  g_test_add_func ("/tfjs/blazeface", test_blazeface);
  g_test_add_func ("/tfjs/emotion", test_emotion);
  g_test_add_func ("/tfjs/centernet", test_centernet);
  g_test_add_func ("/tfjs/faceres", test_faceres);
  return g_test_run ();
}
