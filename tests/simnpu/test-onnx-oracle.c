/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The ONNX front-end at the opsets whose definitions it reads apart,
 * against onnxruntime (the second oracle, tests/oracle/ort-run.mjs):
 * small models built here at opsets 7, 9 and 10 with each op's older
 * definition (Slice's attributes, Upsample's scales attribute and input,
 * Resize without roi, Pad's and Clip's attributes, the reductions',
 * Squeeze's and Split's attributes) and at opset 18 with the newer ones
 * (Pad's axes, Split's num_outputs, the reductions' axes input, Resize's
 * axes and aspect ratio policy), run by the compiler's float executor and
 * by onnxruntime on the same input, and compared element by element.
 *
 * And what a version adds that the import does not compute (antialias,
 * half_pixel_symmetric off whole sizes, Pad's wrap, blocked quantisation,
 * BatchNormalization's spatial=0) refused by name.
 *
 * The onnxruntime cases need node and the pinned onnxruntime-node in
 * <data dir>/oracle (scripts/fetch-data.sh) and skip without them. */

#include "compiler.h"
#include "onnx-builder.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define ATOL 1e-5
#define RTOL 1e-4
#define N 1
#define C 2
#define H 4
#define W 6
#define X_ELEMENTS (N * C * H * W)

static const int64_t x_dims[] = { N, C, H, W };

typedef struct
{
  const char *name;
  int64_t opset;
  /* the op under test, on input "x" to output "y" */
  void (*build) (onnx_builder * b);
  /* the output's shape, as ONNX defines it */
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
} oracle_case;

static void
x_values (float *x)
{
  int i;

  /* distinct, signed, not on a grid: a wrong index or rounding shows */
  for (i = 0; i < X_ELEMENTS; i++)
    x[i] = (float) (sin (0.7 * i + 0.3) * 3.0 + 0.01 * i);
}

static void
build_slice9 (onnx_builder * b)
{
  static const int64_t starts[] = { 1, -5 }, ends[] = { 3, 1000 };
  static const int64_t axes[] = { 2, 3 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Slice", ins, 1, "y");

  onnx_builder_attr_ints (b, n, "starts", starts, 2);
  onnx_builder_attr_ints (b, n, "ends", ends, 2);
  onnx_builder_attr_ints (b, n, "axes", axes, 2);
}

static void
build_slice10 (onnx_builder * b)
{
  static const int64_t starts[] = { 3, 0 }, ends[] = { 0, 6 };
  static const int64_t axes[] = { 2, 3 }, steps[] = { -1, 2 };
  static const char *const ins[] = { "x", "starts", "ends", "axes", "steps" };

  onnx_builder_int64s (b, "starts", starts, 2);
  onnx_builder_int64s (b, "ends", ends, 2);
  onnx_builder_int64s (b, "axes", axes, 2);
  onnx_builder_int64s (b, "steps", steps, 2);
  onnx_builder_node (b, "Slice", ins, 5, "y");
}

static void
build_upsample9 (onnx_builder * b, const char *mode)
{
  static const float scales[] = { 1, 1, 2, 1.5f };
  static const int64_t sd[] = { 4 };
  static const char *const ins[] = { "x", "scales" };
  Onnx__NodeProto *n;

  onnx_builder_floats (b, "scales", 1, sd, scales);
  n = onnx_builder_node (b, "Upsample", ins, 2, "y");
  onnx_builder_attr_string (b, n, "mode", mode);
}

static void
build_upsample9_nearest (onnx_builder * b)
{
  build_upsample9 (b, "nearest");
}

static void
build_upsample9_linear (onnx_builder * b)
{
  build_upsample9 (b, "linear");
}

static void
build_resize10 (onnx_builder * b, const float *scales, const char *mode)
{
  static const int64_t sd[] = { 4 };
  static const char *const ins[] = { "x", "scales" };
  Onnx__NodeProto *n;

  onnx_builder_floats (b, "scales", 1, sd, scales);
  n = onnx_builder_node (b, "Resize", ins, 2, "y");
  onnx_builder_attr_string (b, n, "mode", mode);
}

static void
build_resize10_up (onnx_builder * b)
{
  static const float scales[] = { 1, 1, 1.5f, 2 };
  build_resize10 (b, scales, "nearest");
}

static void
build_resize10_down (onnx_builder * b)
{
  static const float scales[] = { 1, 1, 0.5f, 0.6f };
  build_resize10 (b, scales, "nearest");
}

static void
build_resize10_linear (onnx_builder * b)
{
  static const float scales[] = { 1, 1, 2, 1.5f };
  build_resize10 (b, scales, "linear");
}

static void
build_pad9 (onnx_builder * b, const char *mode)
{
  static const int64_t pads[] = { 0, 0, 1, 2, 0, 0, 2, 1 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Pad", ins, 1, "y");

  onnx_builder_attr_ints (b, n, "pads", pads, G_N_ELEMENTS (pads));
  onnx_builder_attr_string (b, n, "mode", mode);
  if (strcmp (mode, "constant") == 0)
    onnx_builder_attr_float (b, n, "value", -1.25f);
}

static void
build_pad9_constant (onnx_builder * b)
{
  build_pad9 (b, "constant");
}

static void
build_pad9_reflect (onnx_builder * b)
{
  build_pad9 (b, "reflect");
}

static void
build_clip9 (onnx_builder * b)
{
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Clip", ins, 1, "y");

  onnx_builder_attr_float (b, n, "min", -1.5f);
  onnx_builder_attr_float (b, n, "max", 0.75f);
}

static void
build_reduce_mean9 (onnx_builder * b)
{
  static const int64_t axes[] = { 1, -1 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "ReduceMean", ins, 1, "y");

  onnx_builder_attr_ints (b, n, "axes", axes, 2);
  onnx_builder_attr_int (b, n, "keepdims", 0);
}

static void
build_reduce_max9 (onnx_builder * b)
{
  static const int64_t axes[] = { 2 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "ReduceMax", ins, 1, "y");

  onnx_builder_attr_ints (b, n, "axes", axes, 1);
}

/* a squeeze needs a dim of 1: the mean over the height, then squeezed */
static void
build_squeeze9 (onnx_builder * b)
{
  static const int64_t axes[] = { 2 }, sq[] = { 0, 2 };
  static const char *const ins[] = { "x" }, *const ins2[] = { "m" };
  Onnx__NodeProto *n = onnx_builder_node (b, "ReduceMean", ins, 1, "m");

  onnx_builder_attr_ints (b, n, "axes", axes, 1);
  n = onnx_builder_node (b, "Squeeze", ins2, 1, "y");
  onnx_builder_attr_ints (b, n, "axes", sq, 2);
}

static void
build_unsqueeze9 (onnx_builder * b)
{
  static const int64_t axes[] = { 0, 3 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Unsqueeze", ins, 1, "y");

  onnx_builder_attr_ints (b, n, "axes", axes, 2);
}

static void
build_split9 (onnx_builder * b)
{
  static const int64_t split[] = { 2, 4 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Split", ins, 1, "y");
  char **outs = onnx_builder_keep (b, g_new0 (char *, 2));

  /* two outputs; the first is the one compared */
  outs[0] = (char *) "y";
  outs[1] = (char *) "y_rest";
  n->n_output = 2;
  n->output = outs;
  onnx_builder_attr_int (b, n, "axis", 3);
  onnx_builder_attr_ints (b, n, "split", split, 2);
}

static void
build_upsample7 (onnx_builder * b)
{
  static const float scales[] = { 1, 1, 1.5f, 2 };
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Upsample", ins, 1, "y");

  onnx_builder_attr_floats (b, n, "scales", scales, G_N_ELEMENTS (scales));
}

static void
build_pad18 (onnx_builder * b)
{
  static const int64_t pads[] = { 2, 1, 0, 3 }, axes[] = { -1, 2 };
  static const char *const ins[] = { "x", "pads", "", "axes" };
  Onnx__NodeProto *n;

  onnx_builder_int64s (b, "pads", pads, G_N_ELEMENTS (pads));
  onnx_builder_int64s (b, "axes", axes, G_N_ELEMENTS (axes));
  n = onnx_builder_node (b, "Pad", ins, 4, "y");
  onnx_builder_attr_string (b, n, "mode", "edge");
}

static void
build_split18 (onnx_builder * b)
{
  static const char *const ins[] = { "x" };
  Onnx__NodeProto *n = onnx_builder_node (b, "Split", ins, 1, "y");
  char **outs = onnx_builder_keep (b, g_new0 (char *, 3));

  outs[0] = (char *) "y";
  outs[1] = (char *) "y1";
  outs[2] = (char *) "y2";
  n->n_output = 3;
  n->output = outs;
  onnx_builder_attr_int (b, n, "axis", -1);
  onnx_builder_attr_int (b, n, "num_outputs", 3);
}

static void
build_reduce_mean18 (onnx_builder * b)
{
  static const int64_t axes[] = { 3, 1 };
  static const char *const ins[] = { "x", "axes" };

  onnx_builder_int64s (b, "axes", axes, G_N_ELEMENTS (axes));
  onnx_builder_node (b, "ReduceMean", ins, 2, "y");
}

static void
build_resize18_axes (onnx_builder * b)
{
  static const float scales[] = { 0.75f, 1.5f };
  static const int64_t axes[] = { 2, 3 }, sd[] = { 2 };
  static const char *const ins[] = { "x", "", "scales" };
  Onnx__NodeProto *n;

  onnx_builder_floats (b, "scales", 1, sd, scales);
  n = onnx_builder_node (b, "Resize", ins, 3, "y");
  onnx_builder_attr_ints (b, n, "axes", axes, G_N_ELEMENTS (axes));
  onnx_builder_attr_string (b, n, "mode", "linear");
}

static void
build_resize18_keep_aspect (onnx_builder * b)
{
  static const int64_t sizes[] = { 8, 8 }, axes[] = { 2, 3 };
  static const char *const ins[] = { "x", "", "", "sizes" };
  Onnx__NodeProto *n;

  onnx_builder_int64s (b, "sizes", sizes, G_N_ELEMENTS (sizes));
  n = onnx_builder_node (b, "Resize", ins, 4, "y");
  onnx_builder_attr_ints (b, n, "axes", axes, G_N_ELEMENTS (axes));
  onnx_builder_attr_string (b, n, "keep_aspect_ratio_policy", "not_larger");
  onnx_builder_attr_string (b, n, "mode", "linear");
}

/* the arg max over all but the batch axis (2-D coercion at axis 1) */
static void
build_hardmax9 (onnx_builder * b)
{
  static const char *const ins[] = { "x" };

  onnx_builder_node (b, "Hardmax", ins, 1, "y");
}

/* indices floor (x), -4 to 3: the negative ones count from depth, at
 * opset 9 too (OneHot 9's text says they are all off; onnxruntime and
 * ONNX's reference wrap them at every version, and so does the import) */
static void
build_onehot (onnx_builder * b)
{
  static const float depth[] = { 5 }, values[] = { -0.5f, 2 };
  static const int64_t one[] = { 1 }, two[] = { 2 };
  static const char *const floor_in[] = { "x" };
  static const char *const ins[] = { "idx", "depth", "values" };
  Onnx__NodeProto *n;

  onnx_builder_floats (b, "depth", 1, one, depth);
  onnx_builder_floats (b, "values", 1, two, values);
  onnx_builder_node (b, "Floor", floor_in, 1, "idx");
  n = onnx_builder_node (b, "OneHot", ins, 3, "y");
  onnx_builder_attr_int (b, n, "axis", 1);
}

static const oracle_case cases[] = {
  {"hardmax-9", 9, build_hardmax9, 4, {1, 2, 4, 6}},
  {"onehot-9", 9, build_onehot, 5, {1, 5, 2, 4, 6}},
  {"onehot-11", 11, build_onehot, 5, {1, 5, 2, 4, 6}},
  {"upsample-7", 7, build_upsample7, 4, {1, 2, 6, 12}},
  {"pad-18-axes", 18, build_pad18, 4, {1, 2, 8, 8}},
  {"split-18-num-outputs", 18, build_split18, 4, {1, 2, 4, 2}},
  {"reducemean-18", 18, build_reduce_mean18, 4, {1, 1, 4, 1}},
  {"resize-18-axes", 18, build_resize18_axes, 4, {1, 2, 3, 9}},
  {"resize-18-keep-aspect", 18, build_resize18_keep_aspect, 4,
      {1, 2, 5, 8}},
  {"slice-9", 9, build_slice9, 4, {1, 2, 2, 5}},
  {"slice-10-steps", 10, build_slice10, 4, {1, 2, 3, 3}},
  {"upsample-9-nearest", 9, build_upsample9_nearest, 4, {1, 2, 8, 9}},
  {"upsample-9-linear", 9, build_upsample9_linear, 4, {1, 2, 8, 9}},
  {"resize-10-nearest-up", 10, build_resize10_up, 4, {1, 2, 6, 12}},
  {"resize-10-nearest-down", 10, build_resize10_down, 4, {1, 2, 2, 3}},
  {"resize-10-linear", 10, build_resize10_linear, 4, {1, 2, 8, 9}},
  {"pad-9-constant", 9, build_pad9_constant, 4, {1, 2, 7, 9}},
  {"pad-9-reflect", 9, build_pad9_reflect, 4, {1, 2, 7, 9}},
  {"clip-9", 9, build_clip9, 4, {1, 2, 4, 6}},
  {"reducemean-9", 9, build_reduce_mean9, 2, {1, 4}},
  {"reducemax-9", 9, build_reduce_max9, 4, {1, 2, 1, 6}},
  {"squeeze-9", 9, build_squeeze9, 2, {2, 6}},
  {"unsqueeze-9", 9, build_unsqueeze9, 6, {1, 1, 2, 1, 4, 6}},
  {"split-9", 9, build_split9, 4, {1, 2, 4, 2}},
};

/* onnxruntime's output 0 of @model on @x, or NULL (the message in @err) */
static float *
run_ort (const char *script, const char *dir, const char *model,
    const float *x, size_t *n_out, gchar ** err)
{
  gchar *in_path = g_build_filename (dir, "x.f32", NULL);
  gchar *out_dir = g_build_filename (dir, "ort", NULL);
  gchar *arg = g_strdup_printf ("x=%d,%d,%d,%d:%s", N, C, H, W, in_path);
  gchar *argv[] = { (gchar *) "node", (gchar *) script, (gchar *) model,
    out_dir, arg, NULL
  };
  gchar *out_path = g_build_filename (out_dir, "0.f32", NULL);
  gchar *data = NULL;
  gsize len = 0;
  gint status = 0;
  GError *gerr = NULL;

  g_assert_true (g_file_set_contents (in_path, (const gchar *) x,
          X_ELEMENTS * sizeof (float), NULL));
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, err, &status, &gerr))
    g_error ("node: %s", gerr->message);
  if (g_spawn_check_wait_status (status, NULL)) {
    g_assert_true (g_file_get_contents (out_path, &data, &len, NULL));
    *n_out = len / sizeof (float);
  }
  g_free (out_path);
  g_free (arg);
  g_free (out_dir);
  g_free (in_path);
  return (float *) data;
}

/* why onnxruntime cannot run here, or NULL */
static gchar *
ort_missing (void)
{
  const char *script = g_getenv ("GST_AX_ORT_SCRIPT");
  const char *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *node = g_find_program_in_path ("node");
  gchar *ort = data ? g_build_filename (data, "oracle", "node_modules",
      "onnxruntime-node", "package.json", NULL) : NULL;
  gchar *why = NULL;

  if (script == NULL || node == NULL || ort == NULL
      || !g_file_test (ort, G_FILE_TEST_EXISTS))
    why = g_strdup_printf ("needs node, GST_AX_ORT_SCRIPT and "
        "onnxruntime-node in <data dir>/oracle (scripts/fetch-data.sh); "
        "node %s, script %s, %s", node ? node : "missing",
        script ? script : "unset", ort ? ort : "GST_AX_DATA_DIR unset");
  g_free (node);
  g_free (ort);
  return why;
}

static void
test_case (gconstpointer data)
{
  const oracle_case *tc = data;
  const char *script = g_getenv ("GST_AX_ORT_SCRIPT");
  gchar *dir = g_dir_make_tmp ("gst-ax-ort-XXXXXX", NULL);
  gchar *model = g_build_filename (dir, "model.onnx", NULL);
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  simnpu__ir_exec *ex;
  const simnpu__ir_tensor *yt;
  onnx_builder b;
  float x[X_ELEMENTS], *ref, *y;
  gchar *err = NULL;
  guint8 *bytes;
  size_t len, n_ref = 0;
  int64_t i, n;
  double worst = 0;
  gchar *why = ort_missing ();

  if (why != NULL) {
    g_test_skip (why);
    g_free (why);
    g_rmdir (dir);
    g_free (dir);
    g_free (model);
    return;
  }
  onnx_builder_init (&b, tc->opset);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  tc->build (&b);
  bytes = onnx_builder_pack (&b, &len);
  g_assert_true (g_file_set_contents (model, (const gchar *) bytes, len, NULL));

  g_assert_cmpint (simnpu__onnx_load_data (bytes, len, &g, &error), ==, 0);
  g_assert_nonnull (g);
  x_values (x);
  yt = &g->tensors[g->outputs[0]];
  g_assert_cmpuint (yt->rank, ==, tc->rank);
  for (i = 0; i < tc->rank; i++)
    g_assert_cmpint (yt->dims[i], ==, tc->dims[i]);
  ex = simnpu__ir_exec_new (g, &error);
  g_assert_nonnull (ex);
  memcpy (simnpu__ir_exec_data (ex, g->inputs[0]), x, sizeof x);
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, g->n_nodes, &error), ==, 0);
  y = simnpu__ir_exec_data (ex, g->outputs[0]);
  n = simnpu__ir_tensor_elements (yt);

  ref = run_ort (script, dir, model, x, &n_ref, &err);
  if (ref == NULL)
    g_error ("%s: onnxruntime failed: %s", tc->name, err);
  g_assert_cmpuint (n_ref, ==, (size_t) n);
  for (i = 0; i < n; i++) {
    double d = fabs ((double) y[i] - ref[i]);
    if (d > ATOL + RTOL * fabs (ref[i]))
      g_error ("%s: element %" G_GINT64_FORMAT ": %g, onnxruntime %g",
          tc->name, i, y[i], ref[i]);
    worst = MAX (worst, d);
  }
  g_test_message ("%s: %" G_GINT64_FORMAT " elements, largest difference "
      "%g", tc->name, n, worst);

  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  onnx_builder_clear (&b);
  g_free (bytes);
  g_free (ref);
  g_free (err);
  {
    gchar *files[] = { g_build_filename (dir, "ort", "0.f32", NULL),
      g_build_filename (dir, "ort", "1.f32", NULL),
      g_build_filename (dir, "ort", "outputs.json", NULL),
      g_build_filename (dir, "x.f32", NULL), model
    };
    gchar *sub = g_build_filename (dir, "ort", NULL);
    for (i = 0; i < (int64_t) G_N_ELEMENTS (files); i++) {
      g_unlink (files[i]);
      g_free (files[i]);
    }
    g_rmdir (sub);
    g_free (sub);
  }
  g_rmdir (dir);
  g_free (dir);
}

/* What a version adds that the import does not compute is refused by
 * name, never read as something else. */
static void
expect_refused (onnx_builder * b, const char *what)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  size_t len;
  guint8 *bytes = onnx_builder_pack (b, &len);

  g_assert_cmpint (simnpu__onnx_load_data (bytes, len, &g, &error), <, 0);
  g_assert_null (g);
  if (strstr (error.message, what) == NULL)
    g_error ("message '%s' lacks '%s'", error.message, what);
  g_free (bytes);
  onnx_builder_clear (b);
}

static void
test_refusals (void)
{
  static const int64_t sizes[] = { 1, 2, 2, 3 }, pads[] = { 0, 0, 1, 1, 0,
    0, 1, 1
  };
  static const float scales[] = { 1, 1, 1.3f, 1.3f }, one[] = { 0.5f };
  static const int64_t sd[] = { 4 }, od[] = { 1 };
  static const char *const resize_in[] = { "x", "", "", "sizes" };
  static const char *const resize10_in[] = { "x", "scales" };
  static const char *const pad_in[] = { "x", "pads" };
  static const char *const q_in[] = { "x", "s" };
  static const char *const x_in[] = { "x" };
  onnx_builder b;
  Onnx__NodeProto *n;

  /* antialias of a shrinking linear resize (opset 18) */
  onnx_builder_init (&b, 18);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_int64s (&b, "sizes", sizes, G_N_ELEMENTS (sizes));
  n = onnx_builder_node (&b, "Resize", resize_in, 4, "y");
  onnx_builder_attr_string (&b, n, "mode", "linear");
  onnx_builder_attr_int (&b, n, "antialias", 1);
  expect_refused (&b, "antialias");

  /* half_pixel_symmetric where in * scale is not whole (opset 19) */
  onnx_builder_init (&b, 19);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_floats (&b, "scales", 1, sd, scales);
  {
    static const char *const in[] = { "x", "", "scales" };
    n = onnx_builder_node (&b, "Resize", in, 3, "y");
  }
  onnx_builder_attr_string (&b, n, "coordinate_transformation_mode",
      "half_pixel_symmetric");
  expect_refused (&b, "half_pixel_symmetric");

  /* the same mode is not opset 18's */
  onnx_builder_init (&b, 18);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_int64s (&b, "sizes", sizes, G_N_ELEMENTS (sizes));
  n = onnx_builder_node (&b, "Resize", resize_in, 4, "y");
  onnx_builder_attr_string (&b, n, "coordinate_transformation_mode",
      "half_pixel_symmetric");
  expect_refused (&b, "'half_pixel_symmetric' is not supported");

  /* Resize 10: nearest growing one axis and shrinking the other */
  onnx_builder_init (&b, 10);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  {
    static const float mixed[] = { 1, 1, 2, 0.5f };
    onnx_builder_floats (&b, "scales", 1, sd, mixed);
  }
  onnx_builder_node (&b, "Resize", resize10_in, 2, "y");
  expect_refused (&b, "growing one axis and shrinking the other");

  /* Pad's wrap mode (opset 19) */
  onnx_builder_init (&b, 19);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_int64s (&b, "pads", pads, G_N_ELEMENTS (pads));
  n = onnx_builder_node (&b, "Pad", pad_in, 2, "y");
  onnx_builder_attr_string (&b, n, "mode", "wrap");
  expect_refused (&b, "mode 'wrap'");

  /* Pad's axes input is not opset 17's */
  onnx_builder_init (&b, 17);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_int64s (&b, "pads", pads, 4);
  onnx_builder_int64s (&b, "axes", sizes, 2);
  {
    static const char *const in[] = { "x", "pads", "", "axes" };
    onnx_builder_node (&b, "Pad", in, 4, "y");
  }
  expect_refused (&b, "the axes input is opset 18's");

  /* blocked quantisation (opset 21) */
  onnx_builder_init (&b, 21);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_floats (&b, "s", 1, od, one);
  n = onnx_builder_node (&b, "QuantizeLinear", q_in, 2, "y");
  onnx_builder_attr_int (&b, n, "block_size", 2);
  expect_refused (&b, "block_size 2");

  /* Slice before opset 10 needs its attributes */
  onnx_builder_init (&b, 9);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_node (&b, "Slice", x_in, 1, "y");
  expect_refused (&b, "starts and ends attributes are required");

  /* BatchNormalization 7's per-element statistics */
  onnx_builder_init (&b, 7);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  {
    static const float v[C] = { 1, 1 };
    static const int64_t cd[] = { C };
    static const char *const in[] = { "x", "g", "b", "m", "v" };
    onnx_builder_floats (&b, "g", 1, cd, v);
    onnx_builder_floats (&b, "b", 1, cd, v);
    onnx_builder_floats (&b, "m", 1, cd, v);
    onnx_builder_floats (&b, "v", 1, cd, v);
    n = onnx_builder_node (&b, "BatchNormalization", in, 5, "y");
  }
  onnx_builder_attr_int (&b, n, "spatial", 0);
  expect_refused (&b, "spatial=0");

  /* above the range */
  onnx_builder_init (&b, 22);
  onnx_builder_input (&b, "x", 4, x_dims);
  onnx_builder_output (&b, "y");
  onnx_builder_node (&b, "Relu", x_in, 1, "y");
  expect_refused (&b, "1 to 21");
}

int
main (int argc, char **argv)
{
  gchar *why;
  unsigned i;

  g_test_init (&argc, &argv, NULL);
  /* said once; each case skips on its own */
  if ((why = ort_missing ()) != NULL)
    g_printerr ("onnxruntime cases skipped: %s\n", why);
  g_free (why);
  g_test_add_func ("/simnpu/onnx-versions/refusals", test_refusals);
  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *path = g_strdup_printf ("/simnpu/onnx-oracle/%s", cases[i].name);
    g_test_add_data_func (path, &cases[i], test_case);
    g_free (path);
  }
  return g_test_run ();
}
