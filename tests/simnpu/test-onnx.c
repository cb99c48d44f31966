/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The ONNX front-end: models serialised here with the protobuf-c API,
 * malformed ones rejected with messages naming the fault, a small conv
 * model executed against hand-computed values, the transpose
 * cancellation pass on the NCHW wrapping of a conv -> relu -> conv chain,
 * and models at the size limits: a chain at the IR's node limit through
 * every pass, and models over the IR's or the device's limits refused
 * before the work those limits bound. */

#include "compiler.h"
#include "onnx-builder.h"
#include "onnx.pb-c.h"
#include "tool-run.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define CH 2
#define HW 3
#define OPSET 13
#define BAD_OPSET 9
#define NEW_OPSET 22
#define UNKNOWN_DTYPE 99
#define FLOAT16_ONE 0x3c00
#define FLOAT16_MINUS_TWO 0xc000

/* a node of one or two inputs named apart from its output */
static Onnx__NodeProto *
add_node (onnx_builder * b, const char *op, const char *name, const char *in0,
    const char *in1, const char *out)
{
  const char *ins[2] = { in0, in1 };
  Onnx__NodeProto *n = onnx_builder_node (b, op, ins, in1 != NULL ? 2 : 1,
      out);

  n->name = (char *) name;
  return n;
}

static int
load (onnx_builder * b, simnpu__ir_graph ** g, simnpu_error * error)
{
  size_t len;
  guint8 *buf = onnx_builder_pack (b, &len);
  int ret = simnpu__onnx_load_data (buf, len, g, error);
  g_free (buf);
  return ret;
}

/* x [1, CH, HW, HW] -> Conv (1x1, w1, b1) -> Relu -> Conv (1x1, w2) -> y */
static const float w1[CH * CH] = { 1, -1, 0.5f, 2 };
static const float b1[CH] = { 0.25f, -0.5f };
static const float w2[CH * CH] = { -1, 1, 2, 0.5f };

static void
build_conv_chain (onnx_builder * b)
{
  static const int64_t xd[] = { 1, CH, HW, HW };
  static const int64_t wd[] = { CH, CH, 1, 1 };
  static const int64_t bd[] = { CH };
  Onnx__NodeProto *n;
  char **ins;

  onnx_builder_init (b, OPSET);
  onnx_builder_input (b, "x", 4, xd);
  onnx_builder_output (b, "y");
  onnx_builder_floats (b, "w1", 4, wd, w1);
  onnx_builder_floats (b, "b1", 1, bd, b1);
  onnx_builder_floats (b, "w2", 4, wd, w2);
  n = add_node (b, "Conv", "conv1", "x", "w1", "c1");
  ins = onnx_builder_keep (b, g_new0 (char *, 3));
  ins[0] = (char *) "x";
  ins[1] = (char *) "w1";
  ins[2] = (char *) "b1";
  n->input = ins;
  n->n_input = 3;
  add_node (b, "Relu", "relu", "c1", NULL, "r");
  add_node (b, "Conv", "conv2", "r", "w2", "y");
}

static float
xval (int c, int i)
{
  return (float) ((c * HW * HW + i) % 7) - 3.0f;
}

static void
expected_chain (float *y)
{
  int i, o, c;

  for (i = 0; i < HW * HW; i++) {
    float r[CH];
    for (o = 0; o < CH; o++) {
      float s = b1[o];
      for (c = 0; c < CH; c++)
        s += w1[o * CH + c] * xval (c, i);
      r[o] = s > 0 ? s : 0;
    }
    for (o = 0; o < CH; o++) {
      float s = 0;
      for (c = 0; c < CH; c++)
        s += w2[o * CH + c] * r[c];
      y[o * HW * HW + i] = s;
    }
  }
}

static void
run_graph (const simnpu__ir_graph * g, float *y)
{
  simnpu_error error = { 0 };
  simnpu__ir_exec *x = simnpu__ir_exec_new (g, &error);
  float *in;
  int c, i;

  g_assert_nonnull (x);
  g_assert_cmpuint (g->n_inputs, ==, 1);
  in = simnpu__ir_exec_data (x, g->inputs[0]);
  for (c = 0; c < CH; c++)
    for (i = 0; i < HW * HW; i++)
      in[c * HW * HW + i] = xval (c, i);
  g_assert_cmpint (simnpu__ir_exec_run (x, 0, g->n_nodes, &error), ==, 0);
  memcpy (y, simnpu__ir_exec_data (x, g->outputs[0]),
      CH * HW * HW * sizeof (float));
  simnpu__ir_exec_free (x);
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
test_conv_chain (void)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  float y[CH * HW * HW], want[CH * HW * HW], after[CH * HW * HW];
  const simnpu__ir_tensor *out;
  unsigned i;
  onnx_builder b;

  build_conv_chain (&b);
  g_assert_cmpint (load (&b, &g, &error), ==, 0);
  onnx_builder_clear (&b);
  out = &g->tensors[g->outputs[0]];
  g_assert_cmpuint (out->rank, ==, 4);
  g_assert_cmpint (out->dims[1], ==, CH);
  g_assert_cmpint (out->dims[2], ==, HW);
  /* constant weights were transposed at import: two transposes per conv */
  g_assert_cmpuint (count_op (g, SIMNPU_IR_CONV2D), ==, 2);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_TRANSPOSE), ==, 4);

  expected_chain (want);
  run_graph (g, y);
  for (i = 0; i < G_N_ELEMENTS (y); i++)
    g_assert_cmpfloat_with_epsilon (y[i], want[i], 1e-5);

  g_assert_cmpint (simnpu__ir_cancel_transposes (g, &error), ==, 0);
  /* only the graph's NCHW boundary remains */
  g_assert_cmpuint (count_op (g, SIMNPU_IR_TRANSPOSE), ==, 2);
  g_assert_cmpint (g->nodes[0].op, ==, SIMNPU_IR_TRANSPOSE);
  g_assert_cmpint (g->nodes[g->n_nodes - 1].op, ==, SIMNPU_IR_TRANSPOSE);
  g_assert_cmpint (g->nodes[g->n_nodes - 1].outputs[0], ==, g->outputs[0]);
  run_graph (g, after);
  for (i = 0; i < G_N_ELEMENTS (y); i++)
    g_assert_cmpfloat (after[i], ==, y[i]);
  simnpu__ir_graph_free (g);
}

/* conv -> x * sigmoid (x) -> conv: the transpose after the first conv
 * feeds both the sigmoid and the mul, and still cancels */
static void
test_silu_chain (void)
{
  static const int64_t xd[] = { 1, CH, HW, HW };
  static const int64_t wd[] = { CH, CH, 1, 1 };
  static const int64_t bd[] = { CH };
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  float before[CH * HW * HW], after[CH * HW * HW];
  Onnx__NodeProto *n;
  char **ins;
  unsigned i;
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 4, xd);
  onnx_builder_output (&b, "y");
  onnx_builder_floats (&b, "w1", 4, wd, w1);
  onnx_builder_floats (&b, "b1", 1, bd, b1);
  onnx_builder_floats (&b, "w2", 4, wd, w2);
  n = add_node (&b, "Conv", "conv1", "x", "w1", "c1");
  ins = onnx_builder_keep (&b, g_new0 (char *, 3));
  ins[0] = (char *) "x";
  ins[1] = (char *) "w1";
  ins[2] = (char *) "b1";
  n->input = ins;
  n->n_input = 3;
  add_node (&b, "Sigmoid", "sig", "c1", NULL, "s");
  add_node (&b, "Mul", "silu", "c1", "s", "m");
  add_node (&b, "Conv", "conv2", "m", "w2", "y");
  g_assert_cmpint (load (&b, &g, &error), ==, 0);
  onnx_builder_clear (&b);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_TRANSPOSE), ==, 4);
  run_graph (g, before);
  g_assert_cmpint (simnpu__ir_cancel_transposes (g, &error), ==, 0);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_TRANSPOSE), ==, 2);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_SIGMOID), ==, 1);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_MUL), ==, 1);
  run_graph (g, after);
  for (i = 0; i < G_N_ELEMENTS (before); i++)
    g_assert_cmpfloat (after[i], ==, before[i]);
  simnpu__ir_graph_free (g);
}

/* a transpose pushed below an add of a per-channel constant */
static void
test_cancel_through_const (void)
{
  static const int64_t nchw_dims[] = { 1, CH, 1, 1 };
  static const int64_t to_nhwc[] = { 0, 2, 3, 1 };
  static const int64_t to_nchw[] = { 0, 3, 1, 2 };
  static const int64_t xd[] = { 1, HW, HW, CH };
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = simnpu__ir_graph_new ("push");
  float *bias = g_new (float, CH);
  float before[CH * HW * HW], after[CH * HW * HW];
  int x, t1, k, s, t2, r;
  simnpu__ir_node *n;
  simnpu__ir_exec *ex;
  unsigned i;

  bias[0] = 10;
  bias[1] = -20;
  x = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 4, xd);
  t1 = simnpu__ir_add_tensor (g, "t1", SIMNPU_IR_F32, 0, NULL);
  k = simnpu__ir_add_const (g, "k", SIMNPU_IR_F32, 4, nchw_dims, bias);
  s = simnpu__ir_add_tensor (g, "s", SIMNPU_IR_F32, 0, NULL);
  t2 = simnpu__ir_add_tensor (g, "t2", SIMNPU_IR_F32, 0, NULL);
  r = simnpu__ir_add_tensor (g, "r", SIMNPU_IR_F32, 0, NULL);
  n = simnpu__ir_add_node (g, SIMNPU_IR_TRANSPOSE, "a", 1, &x, 1, &t1);
  n->attrs.n_ints = 4;
  memcpy (n->attrs.ints, to_nchw, sizeof to_nchw);
  {
    int ins[2] = { t1, k };
    simnpu__ir_add_node (g, SIMNPU_IR_ADD, "add", 2, ins, 1, &s);
  }
  n = simnpu__ir_add_node (g, SIMNPU_IR_TRANSPOSE, "b", 1, &s, 1, &t2);
  n->attrs.n_ints = 4;
  memcpy (n->attrs.ints, to_nhwc, sizeof to_nhwc);
  simnpu__ir_add_node (g, SIMNPU_IR_RELU, "relu", 1, &t2, 1, &r);
  g->inputs[g->n_inputs++] = x;
  g->outputs[g->n_outputs++] = r;
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, 0);

  for (i = 0; i < 2; i++) {
    float *out = i == 0 ? before : after;
    unsigned j;
    if (i == 1) {
      g_assert_cmpint (simnpu__ir_cancel_transposes (g, &error), ==, 0);
      g_assert_cmpuint (count_op (g, SIMNPU_IR_TRANSPOSE), ==, 0);
    }
    ex = simnpu__ir_exec_new (g, &error);
    g_assert_nonnull (ex);
    for (j = 0; j < CH * HW * HW; j++)
      ((float *) simnpu__ir_exec_data (ex, g->inputs[0]))[j] = (float) j - 5.0f;
    g_assert_cmpint (simnpu__ir_exec_run (ex, 0, g->n_nodes, &error), ==, 0);
    memcpy (out, simnpu__ir_exec_data (ex, g->outputs[0]), sizeof before);
    simnpu__ir_exec_free (ex);
  }
  for (i = 0; i < G_N_ELEMENTS (before); i++)
    g_assert_cmpfloat (after[i], ==, before[i]);
  /* channel 0 of element 0: relu (-5 + 10) */
  g_assert_cmpfloat (after[0], ==, 5.0f);
  g_assert_cmpfloat (after[1], ==, 0.0f);
  simnpu__ir_graph_free (g);
}

static void
add_int64_init (onnx_builder * b, const char *name, unsigned rank,
    const int64_t * dims, const int64_t * v, size_t n)
{
  Onnx__TensorProto *t = onnx_builder_keep (b, g_new0 (Onnx__TensorProto, 1));

  onnx__tensor_proto__init (t);
  t->name = (char *) name;
  t->n_dims = rank;
  t->dims =
      onnx_builder_keep (b, g_memdup2 (dims, MAX (rank, 1) * sizeof dims[0]));
  t->has_data_type = true;
  t->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  t->n_int64_data = n;
  t->int64_data =
      onnx_builder_keep (b, g_memdup2 (v, MAX (n, 1) * sizeof v[0]));
  g_ptr_array_add (b->inits, t);
}

/* the exporters' dynamic reshape, Shape -> Gather -> Unsqueeze -> Concat
 * -> Reshape, folds at import into one reshape by a constant shape */
static void
test_shape_folding (void)
{
  static const int64_t xd[] = { 2, 3, 4 };
  static const int64_t one[] = { 1 };
  static const int64_t zero = 0, minus_one = -1;
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  const simnpu__ir_tensor *y;
  Onnx__NodeProto *n;
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 3, xd);
  onnx_builder_output (&b, "y");
  add_int64_init (&b, "i0", 0, NULL, &zero, 1);
  add_int64_init (&b, "ax0", 1, one, &zero, 1);
  add_int64_init (&b, "rest", 1, one, &minus_one, 1);
  add_node (&b, "Shape", "shape", "x", NULL, "s");
  add_node (&b, "Gather", "batch", "s", "i0", "n");
  add_node (&b, "Unsqueeze", "unsq", "n", "ax0", "n1");
  n = add_node (&b, "Concat", "cat", "n1", "rest", "target");
  n->n_attribute = 1;
  n->attribute = onnx_builder_keep (&b, g_new0 (Onnx__AttributeProto *, 1));
  n->attribute[0] = onnx_builder_keep (&b, g_new0 (Onnx__AttributeProto, 1));
  onnx__attribute_proto__init (n->attribute[0]);
  n->attribute[0]->name = (char *) "axis";
  n->attribute[0]->has_type = true;
  n->attribute[0]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  n->attribute[0]->has_i = true;
  n->attribute[0]->i = 0;
  add_node (&b, "Reshape", "resh", "x", "target", "y");
  g_assert_cmpint (load (&b, &g, &error), ==, 0);
  onnx_builder_clear (&b);
  g_assert_cmpuint (g->n_nodes, ==, 1);
  g_assert_cmpint (g->nodes[0].op, ==, SIMNPU_IR_RESHAPE);
  y = &g->tensors[g->outputs[0]];
  g_assert_cmpuint (y->rank, ==, 2);
  g_assert_cmpint (y->dims[0], ==, 2);
  g_assert_cmpint (y->dims[1], ==, 12);
  simnpu__ir_graph_free (g);
}

static void
test_truncated (void)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  size_t len;
  guint8 *buf;
  onnx_builder b;

  build_conv_chain (&b);
  buf = onnx_builder_pack (&b, &len);
  /* the last byte lies inside opset_import, the last field */
  g_assert_cmpint (simnpu__onnx_load_data (buf, len - 1, &g, &error), ==,
      SIMNPU_EFORMAT);
  g_assert_null (g);
  g_assert_nonnull (strstr (error.message, "protobuf"));
  g_free (buf);
  onnx_builder_clear (&b);
}

static void
expect_error (onnx_builder * b, int code, const char *s1, const char *s2)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;

  g_assert_cmpint (load (b, &g, &error), ==, code);
  g_assert_null (g);
  g_assert_cmpint (error.code, ==, code);
  if (strstr (error.message, s1) == NULL || (s2 != NULL
          && strstr (error.message, s2) == NULL))
    g_error ("message '%s' lacks '%s' / '%s'", error.message, s1, s2 ? s2 : "");
  onnx_builder_clear (b);
}

static void
test_unknown_op (void)
{
  static const int64_t xd[] = { 2, 3 };
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 2, xd);
  onnx_builder_output (&b, "y");
  add_node (&b, "FrobnicateV2", "mynode", "x", NULL, "y");
  expect_error (&b, SIMNPU_EUNSUPPORTED, "'mynode'", "FrobnicateV2");
}

static void
test_opset (void)
{
  static const int64_t xd[] = { 2, 3 };
  onnx_builder b;

  /* above the range: the model */
  onnx_builder_init (&b, NEW_OPSET);
  onnx_builder_input (&b, "x", 2, xd);
  onnx_builder_output (&b, "y");
  add_node (&b, "Relu", "r", "x", NULL, "y");
  expect_error (&b, SIMNPU_EUNSUPPORTED, "opset 22", "1 to 21");

  /* below: an op whose definition changed since (Resize, opset 10) */
  onnx_builder_init (&b, BAD_OPSET);
  onnx_builder_input (&b, "x", 2, xd);
  onnx_builder_output (&b, "y");
  add_node (&b, "Resize", "rsz", "x", "x", "y");
  expect_error (&b, SIMNPU_EUNSUPPORTED, "'rsz' (Resize)", "opset 9");

  /* below, but the op is unchanged since: accepted */
  {
    simnpu_error error = { 0 };
    simnpu__ir_graph *g = NULL;
    onnx_builder_init (&b, BAD_OPSET);
    onnx_builder_input (&b, "x", 2, xd);
    onnx_builder_output (&b, "y");
    add_node (&b, "Relu", "r", "x", NULL, "y");
    g_assert_cmpint (load (&b, &g, &error), ==, 0);
    g_assert_cmpuint (count_op (g, SIMNPU_IR_RELU), ==, 1);
    simnpu__ir_graph_free (g);
    onnx_builder_clear (&b);
  }
}

/* An initializer with its data in another file (ONNX external data) is
 * refused, whatever its location, and that file is never read: a location
 * of ../x or /abs/x would carry any file of the user's into the model.
 * The secret beside the model folder holds valid weights for w1. */
static void
test_external_data (void)
{
  static const char *const locations[] = { "../secret.bin", NULL };
  gchar *tmp = g_dir_make_tmp ("simnpu-onnx-XXXXXX", NULL);
  gchar *dir = g_build_filename (tmp, "model", NULL);
  gchar *secret = g_build_filename (tmp, "secret.bin", NULL);
  gchar *path = g_build_filename (dir, "model.onnx", NULL);
  unsigned i;

  g_assert_nonnull (tmp);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (secret, (const gchar *) w1,
          sizeof w1, NULL));
  for (i = 0; i < 2; i++) {
    Onnx__StringStringEntryProto loc, off, len;
    Onnx__StringStringEntryProto *entries[3] = { &loc, &off, &len };
    const char *location = locations[i] ? locations[i] : secret;
    gchar *length = g_strdup_printf ("%zu", sizeof w1);
    simnpu__ir_graph *g = NULL;
    simnpu_error error = { 0 };
    Onnx__TensorProto *t;
    guint8 *buf;
    size_t n;
    onnx_builder b;

    build_conv_chain (&b);
    t = g_ptr_array_index (b.inits, 0);
    g_assert_cmpstr (t->name, ==, "w1");
    onnx__string_string_entry_proto__init (&loc);
    onnx__string_string_entry_proto__init (&off);
    onnx__string_string_entry_proto__init (&len);
    loc.key = (char *) "location";
    loc.value = (char *) location;
    off.key = (char *) "offset";
    off.value = (char *) "0";
    len.key = (char *) "length";
    len.value = length;
    t->n_float_data = 0;
    t->float_data = NULL;
    t->has_data_location = true;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    t->n_external_data = G_N_ELEMENTS (entries);
    t->external_data = entries;
    buf = onnx_builder_pack (&b, &n);
    g_assert_true (g_file_set_contents (path, (const gchar *) buf, n, NULL));
    g_assert_cmpint (simnpu__onnx_load_file (path, &g, &error), ==,
        SIMNPU_EUNSUPPORTED);
    g_assert_null (g);
    if (strstr (error.message, "w1") == NULL
        || strstr (error.message, location) == NULL
        || strstr (error.message, "weights are never read from other "
            "files") == NULL)
      g_error ("location '%s': %s", location, error.message);
    g_free (buf);
    g_free (length);
    onnx_builder_clear (&b);
  }
  g_unlink (path);
  g_unlink (secret);
  g_rmdir (dir);
  g_rmdir (tmp);
  g_free (path);
  g_free (secret);
  g_free (dir);
  g_free (tmp);
}

static void
test_missing_initializer (void)
{
  static const int64_t xd[] = { 2, 3 };
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 2, xd);
  onnx_builder_output (&b, "y");
  add_node (&b, "MatMul", "mm", "x", "weights", "y");
  expect_error (&b, SIMNPU_EFORMAT, "'mm'", "'weights'");
}

static void
test_shape_mismatch (void)
{
  static const int64_t xd[] = { 2, 3 };
  static const int64_t kd[] = { 4, 5 };
  static const float k[4 * 5] = { 0 };
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 2, xd);
  onnx_builder_output (&b, "y");
  onnx_builder_floats (&b, "k", 2, kd, k);
  add_node (&b, "Add", "badd", "x", "k", "y");
  expect_error (&b, SIMNPU_ESHAPE, "badd", NULL);
}

/* A conv group of 2^32 + 1 is refused, not wrapped to 1 by a cast. */
static void
test_group_out_of_range (void)
{
  onnx_builder b;
  Onnx__NodeProto *n;

  build_conv_chain (&b);
  n = g_ptr_array_index (b.nodes, 0);
  n->n_attribute = 1;
  n->attribute = onnx_builder_keep (&b, g_new0 (Onnx__AttributeProto *, 1));
  n->attribute[0] = onnx_builder_keep (&b, g_new0 (Onnx__AttributeProto, 1));
  onnx__attribute_proto__init (n->attribute[0]);
  n->attribute[0]->name = (char *) "group";
  n->attribute[0]->has_type = true;
  n->attribute[0]->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  n->attribute[0]->has_i = true;
  n->attribute[0]->i = (G_GINT64_CONSTANT (1) << 32) + 1;
  expect_error (&b, SIMNPU_EFORMAT, "group 4294967297", "expected 1 to");
}

static void
test_reshape_not_constant (void)
{
  static const int64_t xd[] = { 2, 3 };
  static const int64_t sd[] = { 2 };
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 2, xd);
  onnx_builder_input (&b, "s", 1, sd);
  onnx_builder_output (&b, "y");
  add_node (&b, "Reshape", "resh", "x", "s", "y");
  expect_error (&b, SIMNPU_EUNSUPPORTED, "'resh' (Reshape)",
      "shape input must be constant");
}

static void
test_read_tensor (void)
{
  Onnx__TensorProto t;
  simnpu_error error = { 0 };
  simnpu__ir_dtype dtype;
  unsigned rank;
  int64_t dims[SIMNPU_IR_MAX_RANK];
  int64_t tdims[] = { 2 };
  int32_t halves[] = { FLOAT16_ONE, FLOAT16_MINUS_TWO };
  int64_t raw[] = { -7, 1ll << 40 };
  void *data = NULL;
  char *name = NULL;
  guint8 buf[256];
  size_t len;

  /* float16 in int32_data becomes f32 */
  onnx__tensor_proto__init (&t);
  t.name = (char *) "h";
  t.n_dims = 1;
  t.dims = tdims;
  t.has_data_type = true;
  t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16;
  t.n_int32_data = 2;
  t.int32_data = halves;
  len = onnx__tensor_proto__pack (&t, buf);
  g_assert_cmpint (simnpu__onnx_read_tensor (buf, len, &name, &dtype, &rank,
          dims, &data, &error), ==, 0);
  g_assert_cmpstr (name, ==, "h");
  g_assert_cmpint (dtype, ==, SIMNPU_IR_F32);
  g_assert_cmpuint (rank, ==, 1);
  g_assert_cmpint (dims[0], ==, 2);
  g_assert_cmpfloat (((float *) data)[0], ==, 1.0f);
  g_assert_cmpfloat (((float *) data)[1], ==, -2.0f);
  g_free (data);
  g_free (name);

  /* int64 raw_data */
  onnx__tensor_proto__init (&t);
  t.n_dims = 1;
  t.dims = tdims;
  t.has_data_type = true;
  t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  t.has_raw_data = true;
  t.raw_data.len = sizeof raw;
  t.raw_data.data = (uint8_t *) raw;
  len = onnx__tensor_proto__pack (&t, buf);
  g_assert_cmpint (simnpu__onnx_read_tensor (buf, len, NULL, &dtype, &rank,
          dims, &data, &error), ==, 0);
  g_assert_cmpint (dtype, ==, SIMNPU_IR_I64);
  g_assert_cmpint (((int64_t *) data)[1], ==, 1ll << 40);
  g_free (data);

  /* raw_data of the wrong size */
  t.raw_data.len = sizeof raw - 1;
  len = onnx__tensor_proto__pack (&t, buf);
  g_assert_cmpint (simnpu__onnx_read_tensor (buf, len, NULL, &dtype, &rank,
          dims, &data, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "raw_data"));

  /* strings are not supported; the message names the tensor */
  onnx__tensor_proto__init (&t);
  t.name = (char *) "words";
  t.has_data_type = true;
  t.data_type = ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
  len = onnx__tensor_proto__pack (&t, buf);
  g_assert_cmpint (simnpu__onnx_read_tensor (buf, len, NULL, &dtype, &rank,
          dims, &data, &error), ==, SIMNPU_EUNSUPPORTED);
  g_assert_nonnull (strstr (error.message, "words"));
  g_assert_nonnull (strstr (error.message, "STRING"));

  /* a data type ONNX does not define */
  t.data_type = UNKNOWN_DTYPE;
  len = onnx__tensor_proto__pack (&t, buf);
  g_assert_cmpint (simnpu__onnx_read_tensor (buf, len, NULL, &dtype, &rank,
          dims, &data, &error), ==, SIMNPU_EUNSUPPORTED);
  g_assert_nonnull (strstr (error.message, "words"));
  g_assert_nonnull (strstr (error.message, "unknown"));
}

/* a graph input of a type the IR lacks: the message names the input */
static void
test_input_dtype (void)
{
  static const int64_t xd[] = { 2, 3 };
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x16", 2, xd);
  ((Onnx__ValueInfoProto *) b.inputs->pdata[0])->type->tensor_type->elem_type =
      ONNX__TENSOR_PROTO__DATA_TYPE__UINT16;
  onnx_builder_output (&b, "y");
  add_node (&b, "Relu", "r", "x16", NULL, "y");
  expect_error (&b, SIMNPU_EUNSUPPORTED, "'x16'", "UINT16");
}

/* ------------------------------------------------------------------ */
/* Models at the IR's size limits: answered (compiled, or refused with the
 * limit's message) without work that grows faster than the model. */

/* the steps of the chain below: blocks of CHAIN_REPEATS times the five
 * element-wise steps, then two transpose pairs */
typedef enum
{
  STEP_ADD_C,                   /* + per-channel constant (NCHW) */
  STEP_RELU,
  STEP_MUL_2,
  STEP_SUB_2C,                  /* - twice the per-channel constant */
  STEP_MUL_HALF,
  N_ELTWISE_STEPS,
  STEP_TO_NHWC = N_ELTWISE_STEPS,       /* a transpose pair around an add */
  STEP_ADD_N,                   /* + per-channel constant (NHWC) */
  STEP_TO_NCHW,
  STEP_TO_NHWC_2,               /* ... and around a subtract */
  STEP_SUB_N,
  STEP_TO_NCHW_2,
  N_STEPS
} chain_step;

/* long enough that most transposes sink through hundreds of nodes, and
 * the sinks' new tensors overflow the tensor table unless it is compacted */
#define CHAIN_REPEATS 100
#define CHAIN_BLOCK (CHAIN_REPEATS * N_ELTWISE_STEPS + N_STEPS \
    - N_ELTWISE_STEPS)

static chain_step
chain_step_at (unsigned i)
{
  unsigned r = i % CHAIN_BLOCK;

  if (r < CHAIN_REPEATS * N_ELTWISE_STEPS)
    return (chain_step) (r % N_ELTWISE_STEPS);
  return (chain_step) (N_ELTWISE_STEPS + r - CHAIN_REPEATS * N_ELTWISE_STEPS);
}

static const float chain_c[CH] = { 0.25f, -0.5f };
static const float chain_2c[CH] = { 0.5f, -1.0f };
static const float chain_n[CH] = { 0.125f, 0.375f };

static const float two = 2.0f, half = 0.5f;

static void
set_perm (onnx_builder * b, Onnx__NodeProto * n, const int64_t * perm)
{
  Onnx__AttributeProto *a =
      onnx_builder_keep (b, g_new0 (Onnx__AttributeProto, 1));

  onnx__attribute_proto__init (a);
  a->name = (char *) "perm";
  a->has_type = true;
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
  a->n_ints = 4;
  a->ints = onnx_builder_keep (b, g_memdup2 (perm, 4 * sizeof perm[0]));
  n->n_attribute = 1;
  n->attribute = onnx_builder_keep (b, g_new0 (Onnx__AttributeProto *, 1));
  n->attribute[0] = a;
}

/* x [1, CH, HW, HW] -> Conv (w1, b1) -> n_steps element-wise ops, with
 * explicit NCHW <-> NHWC transpose pairs among them -> Conv (w2) -> y.
 * Each conv imports as three IR nodes (wrapped in transposes), each step
 * as one. */
static void
build_long_chain (onnx_builder * b, unsigned n_steps)
{
  static const int64_t xd[] = { 1, CH, HW, HW };
  static const int64_t wd[] = { CH, CH, 1, 1 };
  static const int64_t bd[] = { CH };
  static const int64_t cd[] = { 1, CH, 1, 1 };
  static const int64_t nd[] = { 1, 1, 1, CH };
  static const int64_t to_nhwc[] = { 0, 2, 3, 1 };
  static const int64_t to_nchw[] = { 0, 3, 1, 2 };
  Onnx__NodeProto *n;
  const char *prev = "c1";
  char **ins;
  unsigned i;

  onnx_builder_init (b, OPSET);
  onnx_builder_input (b, "x", 4, xd);
  onnx_builder_output (b, "y");
  onnx_builder_floats (b, "w1", 4, wd, w1);
  onnx_builder_floats (b, "b1", 1, bd, b1);
  onnx_builder_floats (b, "w2", 4, wd, w2);
  onnx_builder_floats (b, "kc", 4, cd, chain_c);
  onnx_builder_floats (b, "k2c", 4, cd, chain_2c);
  onnx_builder_floats (b, "kn", 4, nd, chain_n);
  onnx_builder_floats (b, "two", 0, NULL, &two);
  onnx_builder_floats (b, "half", 0, NULL, &half);
  n = add_node (b, "Conv", "conv1", "x", "w1", "c1");
  ins = onnx_builder_keep (b, g_new0 (char *, 3));
  ins[0] = (char *) "x";
  ins[1] = (char *) "w1";
  ins[2] = (char *) "b1";
  n->input = ins;
  n->n_input = 3;
  for (i = 0; i < n_steps; i++) {
    const char *out = onnx_builder_keep (b, g_strdup_printf ("s%u", i));
    switch (chain_step_at (i)) {
      case STEP_ADD_C:
        add_node (b, "Add", out, prev, "kc", out);
        break;
      case STEP_RELU:
        add_node (b, "Relu", out, prev, NULL, out);
        break;
      case STEP_MUL_2:
        add_node (b, "Mul", out, prev, "two", out);
        break;
      case STEP_SUB_2C:
        add_node (b, "Sub", out, prev, "k2c", out);
        break;
      case STEP_MUL_HALF:
        add_node (b, "Mul", out, prev, "half", out);
        break;
      case STEP_TO_NHWC:
      case STEP_TO_NHWC_2:
        set_perm (b, add_node (b, "Transpose", out, prev, NULL, out), to_nhwc);
        break;
      case STEP_ADD_N:
        add_node (b, "Add", out, prev, "kn", out);
        break;
      case STEP_SUB_N:
        add_node (b, "Sub", out, prev, "kn", out);
        break;
      case STEP_TO_NCHW:
      case STEP_TO_NCHW_2:
      default:
        set_perm (b, add_node (b, "Transpose", out, prev, NULL, out), to_nchw);
        break;
    }
    prev = out;
  }
  add_node (b, "Conv", "conv2", prev, "w2", "y");
}

/* build_long_chain's y, worked out element by element (the transposes
 * move nothing: a value keeps its channel) */
static void
expected_long_chain (unsigned n_steps, float *y)
{
  int i, o, c;
  unsigned k;

  for (i = 0; i < HW * HW; i++) {
    float v[CH];
    for (o = 0; o < CH; o++) {
      v[o] = b1[o];
      for (c = 0; c < CH; c++)
        v[o] += w1[o * CH + c] * xval (c, i);
    }
    for (k = 0; k < n_steps; k++)
      for (c = 0; c < CH; c++)
        switch (chain_step_at (k)) {
          case STEP_ADD_C:
            v[c] += chain_c[c];
            break;
          case STEP_RELU:
            v[c] = MAX (v[c], 0.0f);
            break;
          case STEP_MUL_2:
            v[c] *= two;
            break;
          case STEP_SUB_2C:
            v[c] -= chain_2c[c];
            break;
          case STEP_MUL_HALF:
            v[c] *= half;
            break;
          case STEP_ADD_N:
            v[c] += chain_n[c];
            break;
          case STEP_SUB_N:
            v[c] -= chain_n[c];
            break;
          default:
            break;
        }
    for (o = 0; o < CH; o++) {
      float s = 0;
      for (c = 0; c < CH; c++)
        s += w2[o * CH + c] * v[c];
      y[o * HW * HW + i] = s;
    }
  }
}

/* No tensor has a calibrated range: calibration did not run. */
static void
assert_not_calibrated (const simnpu__ir_graph * g)
{
  unsigned i;

  for (i = 0; i < g->n_tensors; i++)
    if (g->tensors[i].has_range)
      g_error ("tensor '%s' was calibrated", g->tensors[i].name);
}

/* The model is refused before calibration for the size of its device
 * section, with the device's limits in the message. */
static void
assert_refused_for_device_size (simnpu__ir_graph * g)
{
  simnpu__compile_options o;
  simnpu__compile_result r;
  simnpu_error error = { 0 };
  simnpu__graph *dg = NULL;
  gchar *limits = g_strdup_printf ("the device takes at most %d ops and %d "
      "tensors", SIMNPU_MAX_OPS, SIMNPU_MAX_TENSORS);

  simnpu__compile_options_init (&o);
  g_assert_cmpint (simnpu__compile (g, &o, &dg, &r, &error), ==,
      SIMNPU_EUNSUPPORTED);
  g_assert_null (dg);
  if (strstr (error.message, "the device section has") == NULL
      || strstr (error.message, limits) == NULL)
    g_error ("message '%s' lacks the device's limits", error.message);
  assert_not_calibrated (g);
  simnpu__compile_result_clear (&r);
  g_free (limits);
}

/* A chain with transposes that imports to exactly the IR's node limit:
 * every transpose between the convs cancels, the float graph computes
 * what the ONNX model says, and the compiler refuses it for the device's
 * op limit before calibrating. */
static void
test_chain_at_node_limit (void)
{
  const unsigned n_steps = SIMNPU_IR_MAX_NODES - 6;
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  float y[CH * HW * HW], want[CH * HW * HW];
  unsigned i;
  onnx_builder b;

  build_long_chain (&b, n_steps);
  g_assert_cmpint (load (&b, &g, &error), ==, 0);
  onnx_builder_clear (&b);
  g_assert_cmpuint (g->n_nodes, ==, SIMNPU_IR_MAX_NODES);
  /* what simnpu__import_model runs after the front-end */
  g_assert_cmpint (simnpu__ir_fold_constants (g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_cancel_transposes (g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_fuse (g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_prune (g, &error), ==, 0);
  /* only the graph's NCHW boundary remains */
  g_assert_cmpuint (count_op (g, SIMNPU_IR_TRANSPOSE), ==, 2);
  g_assert_cmpuint (count_op (g, SIMNPU_IR_CONV2D), ==, 2);

  expected_long_chain (n_steps, want);
  run_graph (g, y);
  for (i = 0; i < G_N_ELEMENTS (y); i++)
    g_assert_cmpfloat_with_epsilon (y[i], want[i], 1e-5);

  assert_refused_for_device_size (g);
  simnpu__ir_graph_free (g);
}

/* One node more than the device takes, all of them device ops: refused
 * when placed, before calibration runs the float graph. */
static void
test_device_limit_before_calibration (void)
{
  static const int64_t xd[] = { 1, CH, HW, HW };
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  const char *prev = "x";
  unsigned i;
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 4, xd);
  onnx_builder_output (&b, "y");
  for (i = 0; i <= SIMNPU_MAX_OPS; i++) {
    const char *out = i == SIMNPU_MAX_OPS ? "y" :
        onnx_builder_keep (&b, g_strdup_printf ("r%u", i));
    add_node (&b, "Relu", out, prev, NULL, out);
    prev = out;
  }
  g_assert_cmpint (load (&b, &g, &error), ==, 0);
  onnx_builder_clear (&b);
  g_assert_cmpuint (g->n_nodes, ==, SIMNPU_MAX_OPS + 1);
  assert_refused_for_device_size (g);
  simnpu__ir_graph_free (g);
}

/* A graph of more nodes than the IR takes is refused by its node count,
 * before any node is imported. */
static void
test_too_many_nodes (void)
{
  static const int64_t xd[] = { 1, CH, HW, HW };
  const char *prev = "x";
  gchar *want = g_strdup_printf ("the graph has %d nodes; expected at most "
      "%d", SIMNPU_IR_MAX_NODES + 1, SIMNPU_IR_MAX_NODES);
  unsigned i;
  onnx_builder b;

  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 4, xd);
  onnx_builder_output (&b, "y");
  for (i = 0; i <= SIMNPU_IR_MAX_NODES; i++) {
    const char *out = i == SIMNPU_IR_MAX_NODES ? "y" :
        onnx_builder_keep (&b, g_strdup_printf ("r%u", i));
    add_node (&b, "Relu", out, prev, NULL, out);
    prev = out;
  }
  expect_error (&b, SIMNPU_ENOMEM, want, NULL);
  g_free (want);
}

/* The compile tool's memory limits (SIMNPU_COMPILE_TOOL names it): a
 * big image model, its conv on the device and a chain of reflect pads
 * (no device kernel) in the postamble. */
#define BIG_HW 512
#define BIG_IN_CH 3
#define LIMIT_BYTES (64.0 * 1024 * 1024)

static gchar *
write_pad_chain (const char *dir, int64_t channels, unsigned n_pads)
{
  const int64_t xd[] = { 1, BIG_IN_CH, BIG_HW, BIG_HW };
  const int64_t wd[] = { channels, BIG_IN_CH, 1, 1 };
  const int64_t pd[] = { 8 };
  const int64_t pads[8] = { 0, 0, 1, 1, 0, 0, 1, 1 };
  float *w = g_new (float, channels * BIG_IN_CH);
  gchar *path = g_build_filename (dir, "big.onnx", NULL);
  const char *prev = "c";
  guint8 *buf;
  size_t len;
  unsigned i;
  onnx_builder b;

  for (i = 0; i < channels * BIG_IN_CH; i++)
    w[i] = (float) ((i * 37) % 11) / 11.0f - 0.5f;
  onnx_builder_init (&b, OPSET);
  onnx_builder_input (&b, "x", 4, xd);
  onnx_builder_output (&b, "y");
  onnx_builder_floats (&b, "w", 4, wd, w);
  add_int64_init (&b, "pads", 1, pd, pads, 8);
  add_node (&b, "Conv", "conv", "x", "w", "c");
  for (i = 0; i < n_pads; i++) {
    const char *out = i + 1 == n_pads ? "y" :
        onnx_builder_keep (&b, g_strdup_printf ("p%u", i));
    Onnx__NodeProto *n = add_node (&b, "Pad", out, prev, "pads", out);
    Onnx__AttributeProto *a =
        onnx_builder_keep (&b, g_new0 (Onnx__AttributeProto, 1));
    onnx__attribute_proto__init (a);
    a->name = (char *) "mode";
    a->has_type = true;
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    a->has_s = true;
    a->s.data = (uint8_t *) "reflect";
    a->s.len = strlen ("reflect");
    n->n_attribute = 1;
    n->attribute = onnx_builder_keep (&b, g_new0 (Onnx__AttributeProto *, 1));
    n->attribute[0] = a;
    prev = out;
  }
  buf = onnx_builder_pack (&b, &len);
  g_assert_true (g_file_set_contents (path, (const gchar *) buf, len, NULL));
  g_free (buf);
  onnx_builder_clear (&b);
  g_free (w);
  return path;
}

static const char *
compile_tool (void)
{
  const char *tool = g_getenv ("SIMNPU_COMPILE_TOOL");

  if (tool == NULL)
    g_test_skip ("SIMNPU_COMPILE_TOOL is not set");
  return tool;
}

/* 8 channels and 9 pads: every tensor apart the postamble needs 85 MB,
 * above the runtime's limit; planned, it loads. */
static void
test_compile_memory_plan (void)
{
  const char *tool = compile_tool ();
  gchar *dir, *model, *axm, *line;
  const char *argv[5];
  double planned = 0, flat = 0;
  result r;

  if (tool == NULL)
    return;
  dir = g_dir_make_tmp ("simnpu-memplan-XXXXXX", NULL);
  model = write_pad_chain (dir, 8, 9);
  axm = g_build_filename (dir, "big.axm", NULL);
  argv[0] = tool;
  argv[1] = model;
  argv[2] = "-o";
  argv[3] = axm;
  argv[4] = NULL;
  r = run (argv);
  if (r.status != 0)
    g_error ("compile: %s", r.err);
  line = strstr (r.out, "host arena:");
  g_assert_nonnull (line);
  g_assert_cmpint (sscanf (line, "host arena: %lf MB (%lf MB without", &planned,
          &flat), ==, 2);
  g_test_message ("host arena %.1f MB, %.1f MB without the plan", planned,
      flat);
  g_assert_cmpfloat (flat * 1e6, >, LIMIT_BYTES);
  g_assert_cmpfloat (planned * 1e6, <, LIMIT_BYTES);
  g_assert_cmpfloat (planned, <, flat / 3);
  g_assert_true (g_file_test (axm, G_FILE_TEST_IS_REGULAR));
  result_clear (&r);
  g_unlink (axm);
  g_unlink (model);
  g_rmdir (dir);
  g_free (axm);
  g_free (model);
  g_free (dir);
}

/* 40 channels: two tensors live at once need 84 MB; the compile fails
 * with the figure and the limit, and writes nothing. */
static void
test_compile_refuses_memory (void)
{
  const char *tool = compile_tool ();
  gchar *dir, *model, *axm;
  const char *argv[5];
  result r;

  if (tool == NULL)
    return;
  dir = g_dir_make_tmp ("simnpu-memplan-XXXXXX", NULL);
  model = write_pad_chain (dir, 40, 2);
  axm = g_build_filename (dir, "big.axm", NULL);
  argv[0] = tool;
  argv[1] = model;
  argv[2] = "-o";
  argv[3] = axm;
  argv[4] = NULL;
  r = run (argv);
  g_test_message ("%s", r.err);
  g_assert_cmpint (r.status, !=, 0);
  g_assert_nonnull (strstr (r.err, "not written: the runtime would refuse"));
  g_assert_nonnull (strstr (r.err, "postamble: the host section needs 8"));
  g_assert_nonnull (strstr (r.err, "MB of memory"));
  g_assert_nonnull (strstr (r.err, "the runtime loads at most 64 MiB"));
  g_assert_false (g_file_test (axm, G_FILE_TEST_EXISTS));
  result_clear (&r);
  g_unlink (model);
  g_rmdir (dir);
  g_free (axm);
  g_free (model);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/onnx/conv-chain", test_conv_chain);
  g_test_add_func ("/onnx/cancel-through-const", test_cancel_through_const);
  g_test_add_func ("/onnx/silu-chain", test_silu_chain);
  g_test_add_func ("/onnx/shape-folding", test_shape_folding);
  g_test_add_func ("/onnx/truncated", test_truncated);
  g_test_add_func ("/onnx/unknown-op", test_unknown_op);
  g_test_add_func ("/onnx/opset", test_opset);
  g_test_add_func ("/onnx/missing-initializer", test_missing_initializer);
  g_test_add_func ("/onnx/external-data", test_external_data);
  g_test_add_func ("/onnx/shape-mismatch", test_shape_mismatch);
  g_test_add_func ("/onnx/reshape-not-constant", test_reshape_not_constant);
  g_test_add_func ("/onnx/group-out-of-range", test_group_out_of_range);
  g_test_add_func ("/onnx/read-tensor", test_read_tensor);
  g_test_add_func ("/onnx/input-dtype", test_input_dtype);
  g_test_add_func ("/onnx/chain-at-node-limit", test_chain_at_node_limit);
  g_test_add_func ("/onnx/device-limit-before-calibration",
      test_device_limit_before_calibration);
  g_test_add_func ("/onnx/compile-memory-plan", test_compile_memory_plan);
  g_test_add_func ("/onnx/compile-refuses-memory", test_compile_refuses_memory);
  g_test_add_func ("/onnx/too-many-nodes", test_too_many_nodes);
  return g_test_run ();
}
