/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Whole graphs through the runtime: the data-movement ops against index
 * arithmetic, and a graph using every op (tests/simnpu/all-ops.json). */

#include "simnpu-test-util.h"

#include <math.h>

#define WAIT_NS (G_GINT64_CONSTANT (30) * 1000000000)
#define N 1
#define H 2
#define W 3
#define C 4

static const char movement_json[] =
    "{\"format\": \"simnpu-graph\", \"version\": 1, \"name\": \"move\","
    "\"inputs\": [{\"name\": \"x\", \"shape\": [1, 2, 3, 4], \"dtype\": "
    "\"i8\", \"scale\": 1, \"zero_point\": 0}],"
    "\"outputs\": ["
    " {\"name\": \"t\", \"dtype\": \"i8\", \"scale\": 1, \"layout\": \"NCHW\"},"
    " {\"name\": \"s\", \"dtype\": \"i8\", \"scale\": 1},"
    " {\"name\": \"r\", \"dtype\": \"i8\", \"scale\": 1},"
    " {\"name\": \"p1\", \"dtype\": \"i8\", \"scale\": 1},"
    " {\"name\": \"c\", \"dtype\": \"u8\", \"scale\": 1, \"zero_point\": 128},"
    " {\"name\": \"f\", \"dtype\": \"f32\", \"scale\": 1}],"
    "\"ops\": ["
    " {\"type\": \"transpose\", \"inputs\": [\"x\"], \"outputs\": [\"t\"],"
    "  \"attrs\": {\"perm\": [0, 3, 1, 2]}},"
    " {\"type\": \"slice\", \"inputs\": [\"x\"], \"outputs\": [\"s\"],"
    "  \"attrs\": {\"begin\": [0, 1, 0, 1], \"size\": [1, 1, 3, 2]}},"
    " {\"type\": \"resize\", \"inputs\": [\"x\"], \"outputs\": [\"r\"],"
    "  \"attrs\": {\"scale\": [2, 2]}},"
    " {\"type\": \"split\", \"inputs\": [\"x\"], \"outputs\": [\"p0\", \"p1\"],"
    "  \"attrs\": {\"axis\": 2, \"sizes\": [1, 2]}},"
    " {\"type\": \"concat\", \"inputs\": [\"x\", \"x\"], \"outputs\": [\"c\"],"
    "  \"attrs\": {\"axis\": -1}},"
    " {\"type\": \"reshape\", \"inputs\": [\"x\"], \"outputs\": [\"f\"],"
    "  \"attrs\": {\"shape\": [6, -1]}}]}";

static int8_t
X (int y, int x, int c)
{
  return (int8_t) ((y * W + x) * C + c - 10);
}

static void
run_job (simnpu_model * model, void *in, void **outs, unsigned n_out)
{
  simnpu_tensor_spec spec;
  simnpu_input_buffer ib;
  simnpu_output_buffer ob[SIMNPU_MAX_IO];
  simnpu_error error = { 0 };
  simnpu_job *job;
  unsigned i;

  simnpu_model_get_input (model, 0, &spec);
  ib.data = in;
  ib.size_bytes = spec.size_bytes;
  for (i = 0; i < n_out; i++) {
    simnpu_model_get_output (model, i, &spec);
    outs[i] = g_malloc0 (spec.size_bytes);
    ob[i].data = outs[i];
    ob[i].size_bytes = spec.size_bytes;
  }
  g_assert_cmpint (simnpu_job_submit (model, &ib, 1, ob, n_out, NULL, NULL,
          &job, &error), ==, 0);
  g_assert_cmpint (simnpu_job_wait (job, WAIT_NS, NULL), ==, 0);
  simnpu_job_free (job);
}

static simnpu_model *
load (simnpu_device * dev, const char *json)
{
  simnpu_error error = { 0 };
  gchar *path = test_compile_json (json, "torq", false, &error);
  simnpu_model *model = NULL;

  if (path == NULL)
    g_error ("compile: %s", error.message);
  g_assert_cmpint (simnpu_model_load (dev, path, &model, &error), ==, 0);
  g_unlink (path);
  g_free (path);
  return model;
}

static void
test_data_movement (void)
{
  simnpu_device *dev;
  simnpu_error error = { 0 };
  simnpu_model *model;
  simnpu_tensor_spec spec;
  int8_t in[N * H * W * C];
  void *outs[6];
  int8_t *t, *s, *r, *p1;
  guint8 *c;
  float *f;
  int y, x, k, i;

  g_assert_cmpint (simnpu_device_open ("torq", &dev, &error), ==, 0);
  simnpu_device_set_time_scale (dev, 0.0);
  model = load (dev, movement_json);
  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      for (k = 0; k < C; k++)
        in[(y * W + x) * C + k] = X (y, x, k);
  run_job (model, in, outs, 6);
  t = outs[0];
  s = outs[1];
  r = outs[2];
  p1 = outs[3];
  c = outs[4];
  f = outs[5];

  simnpu_model_get_output (model, 0, &spec);
  g_assert_cmpint (spec.dims[1], ==, C);
  g_assert_cmpint (spec.layout, ==, SIMNPU_LAYOUT_NCHW);
  for (k = 0; k < C; k++)
    for (y = 0; y < H; y++)
      for (x = 0; x < W; x++)
        g_assert_cmpint (t[(k * H + y) * W + x], ==, X (y, x, k));
  for (x = 0; x < 3; x++)
    for (k = 0; k < 2; k++)
      g_assert_cmpint (s[x * 2 + k], ==, X (1, x, k + 1));
  for (y = 0; y < 2 * H; y++)
    for (x = 0; x < 2 * W; x++)
      for (k = 0; k < C; k++)
        g_assert_cmpint (r[(y * 2 * W + x) * C + k], ==, X (y / 2, x / 2, k));
  for (y = 0; y < H; y++)
    for (x = 0; x < 2; x++)
      for (k = 0; k < C; k++)
        g_assert_cmpint (p1[(y * 2 + x) * C + k], ==, X (y, x + 1, k));
  simnpu_model_get_output (model, 4, &spec);
  g_assert_cmpint (spec.dtype, ==, SIMNPU_DTYPE_U8);
  g_assert_cmpint (spec.zero_point, ==, 128);
  for (i = 0; i < H * W; i++)
    for (k = 0; k < 2 * C; k++)
      g_assert_cmpint (c[i * 2 * C + k] - 128, ==, in[i * C + k % C]);
  simnpu_model_get_output (model, 5, &spec);
  g_assert_cmpint (spec.n_dims, ==, 2);
  g_assert_cmpint (spec.dims[1], ==, N * H * W * C / 6);
  for (i = 0; i < N * H * W * C; i++)
    g_assert_cmpfloat (f[i], ==, (float) in[i]);

  for (i = 0; i < 6; i++)
    g_free (outs[i]);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
}

static void
test_all_ops (void)
{
  simnpu_device *dev;
  simnpu_error error = { 0 };
  simnpu_model *model;
  simnpu_model_info info;
  simnpu_tensor_spec in_spec, probs, crop, pooled;
  gchar *json = NULL, *file;
  guint8 *in;
  void *outs[3], *again[3];
  float *p, *f;
  size_t i;
  int row, k;

  file = g_test_build_filename (G_TEST_DIST, "all-ops.json", NULL);
  g_assert_true (g_file_get_contents (file, &json, NULL, NULL));
  g_free (file);
  g_assert_cmpint (simnpu_device_open ("metis", &dev, &error), ==, 0);
  simnpu_device_set_time_scale (dev, 0.0);
  model = load (dev, json);
  simnpu_model_get_info (model, &info);
  g_assert_cmpuint (info.n_ops, ==, 32);
  simnpu_model_get_input (model, 0, &in_spec);
  simnpu_model_get_output (model, 0, &probs);
  simnpu_model_get_output (model, 1, &crop);
  simnpu_model_get_output (model, 2, &pooled);
  g_assert_cmpint (probs.dtype, ==, SIMNPU_DTYPE_F32);
  g_assert_cmpint (probs.n_dims, ==, 3);
  g_assert_cmpint (probs.dims[1], ==, 11);
  g_assert_cmpint (crop.dims[2], ==, 3);
  /* the device ops' branch: pad to 10 channels, resize, mean */
  g_assert_cmpint (pooled.n_dims, ==, 4);
  g_assert_cmpint (pooled.dims[1], ==, 1);
  g_assert_cmpint (pooled.dims[2], ==, 1);
  g_assert_cmpint (pooled.dims[3], ==, 10);

  in = g_malloc (in_spec.size_bytes);
  for (i = 0; i < in_spec.size_bytes; i++)
    in[i] = (guint8) (i * 53 + 7);
  run_job (model, in, outs, 3);
  run_job (model, in, again, 3);
  /* deterministic */
  g_assert_cmpmem (outs[0], probs.size_bytes, again[0], probs.size_bytes);
  g_assert_cmpmem (outs[1], crop.size_bytes, again[1], crop.size_bytes);
  g_assert_cmpmem (outs[2], pooled.size_bytes, again[2], pooled.size_bytes);
  /* a mean of the 0.1-step values of sub, maximum and minimum, at the
   * output's 0.02 steps */
  f = outs[2];
  for (k = 0; k < 10; k++) {
    g_assert_true (isfinite (f[k]));
    g_assert_cmpfloat (fabs (f[k]), <=, 128 * 0.02 + 1e-6);
  }
  /* each softmax row is a distribution, up to the int8 quantisation of
   * its 64 entries */
  p = outs[0];
  for (row = 0; row < 11; row++) {
    double sum = 0.0;
    for (k = 0; k < 64; k++) {
      g_assert_cmpfloat (p[row * 64 + k], >=, 0.0);
      g_assert_cmpfloat (p[row * 64 + k], <=, 1.0);
      sum += p[row * 64 + k];
    }
    g_assert_cmpfloat (fabs (sum - 1.0), <, 64 * 0.5 / 256 + 1e-6);
  }
  for (i = 0; i < 3; i++) {
    g_free (outs[i]);
    g_free (again[i]);
  }
  g_free (in);
  g_free (json);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/simnpu/graph/data-movement", test_data_movement);
  g_test_add_func ("/simnpu/graph/all-ops", test_all_ops);
  return g_test_run ();
}
