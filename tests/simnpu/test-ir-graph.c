/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR as a graph: shape inference errors, serialisation, deep
 * copies, the op table, and the executor's observer, partial runs and
 * run-time weights. */

#include "test-ir-util.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ir/infer-errors", test_infer_errors);
  g_test_add_func ("/ir/serialize", test_serialize);
  g_test_add_func ("/ir/copy", test_copy);
  g_test_add_func ("/ir/op-table", test_op_table);
  g_test_add_func ("/ir/exec", test_exec);
  return g_test_run ();
}
