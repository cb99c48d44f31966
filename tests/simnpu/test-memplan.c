/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The memory plan (sim-npu/base/memplan.c) and its two users: buffers
 * whose live ranges overlap never share bytes, space is reused where they
 * do not, the arena has the exact size of a known plan; the device graph
 * (tests/simnpu/all-ops.json) and a float IR graph with padded convs and a
 * skip connection compute the same bytes planned as with every tensor
 * apart. */

#include "simnpu-private.h"
#include "ir/ir.h"
#include "ir/exec/ir-exec.h"

#include <string.h>

#define ALIGN 64
#define N_RANDOM_PLANS 400
#define MAX_RANDOM_BUFFERS 60
#define MAX_RANDOM_BYTES 5000
#define MAX_RANDOM_STEPS 40
#define N_RUNS 3
#define SEED 4321

static bool
ranges_overlap (const simnpu__live_buffer * a, const simnpu__live_buffer * b)
{
  return a->first <= b->last && b->first <= a->last;
}

static bool
bytes_overlap (size_t a, size_t an, size_t b, size_t bn)
{
  return an > 0 && bn > 0 && a < b + bn && b < a + an;
}

/* every invariant of a plan, and the lower bound: at each step the live
 * buffers lie side by side */
static void
check_plan (const simnpu__live_buffer * b, unsigned n, size_t arena)
{
  unsigned i, k;
  int step, last_step = 0;

  for (i = 0; i < n; i++) {
    g_assert_cmpuint (b[i].offset % ALIGN, ==, 0);
    g_assert_cmpuint (b[i].offset + b[i].bytes, <=, arena);
    last_step = MAX (last_step, b[i].last);
    for (k = 0; k < i; k++)
      if (ranges_overlap (&b[i], &b[k]))
        g_assert_false (bytes_overlap (b[i].offset, b[i].bytes, b[k].offset,
                b[k].bytes));
  }
  for (step = 0; step <= last_step; step++) {
    size_t live = 0;
    for (i = 0; i < n; i++)
      if (b[i].first <= step && step <= b[i].last)
        live += b[i].bytes;
    g_assert_cmpuint (live, <=, arena);
  }
}

/* A known plan: the largest buffer first, the next after it where they
 * are live together, in a gap where not. */
static void
test_known_plan (void)
{
  simnpu__live_buffer b[4] = {
    {.bytes = 100,.first = 0,.last = 1},
    {.bytes = 200,.first = 1,.last = 2},
    {.bytes = 100,.first = 2,.last = 3},
    {.bytes = 50,.first = 3,.last = 3},
  };
  size_t arena = simnpu__memplan (b, G_N_ELEMENTS (b), ALIGN);

  g_assert_cmpuint (b[1].offset, ==, 0);
  g_assert_cmpuint (b[0].offset, ==, 256);
  /* live with b[1], not with b[0]: b[0]'s space again */
  g_assert_cmpuint (b[2].offset, ==, 256);
  /* live with b[2] only: the gap below it */
  g_assert_cmpuint (b[3].offset, ==, 0);
  g_assert_cmpuint (arena, ==, 356);
  check_plan (b, G_N_ELEMENTS (b), arena);
  g_assert_cmpuint (simnpu__memplan_flat (b, G_N_ELEMENTS (b), ALIGN), ==, 562);
  g_assert_cmpuint (b[3].offset, ==, 512);
}

/* A chain of equal buffers, each live with its neighbours only: two
 * places are enough, whatever the chain's length. */
static void
test_chain_reuse (void)
{
  simnpu__live_buffer b[10];
  unsigned i;
  size_t arena;

  for (i = 0; i < G_N_ELEMENTS (b); i++) {
    b[i].bytes = 1000;
    b[i].first = (int) i;
    b[i].last = (int) i + 1;
  }
  arena = simnpu__memplan (b, G_N_ELEMENTS (b), ALIGN);
  g_assert_cmpuint (arena, ==, 1024 + 1000);
  for (i = 0; i < G_N_ELEMENTS (b); i++)
    g_assert_cmpuint (b[i].offset, ==, i % 2 ? 1024 : 0);
  check_plan (b, G_N_ELEMENTS (b), arena);
}

static void
test_random_plans (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  unsigned trial, i, n_smaller = 0;

  for (trial = 0; trial < N_RANDOM_PLANS; trial++) {
    unsigned n = (unsigned) g_rand_int_range (rng, 1, MAX_RANDOM_BUFFERS);
    simnpu__live_buffer *b = g_new0 (simnpu__live_buffer, n);
    size_t arena, flat;
    for (i = 0; i < n; i++) {
      int a = g_rand_int_range (rng, 0, MAX_RANDOM_STEPS);
      int len = g_rand_int_range (rng, 0, MAX_RANDOM_STEPS / 4);
      /* some empty buffers, which take no space */
      b[i].bytes = g_rand_int_range (rng, 0, 8) == 0 ? 0 :
          (size_t) g_rand_int_range (rng, 1, MAX_RANDOM_BYTES);
      b[i].first = a;
      b[i].last = a + len;
    }
    arena = simnpu__memplan (b, n, ALIGN);
    check_plan (b, n, arena);
    flat = simnpu__memplan_flat (b, n, ALIGN);
    g_assert_cmpuint (arena, <=, flat);
    n_smaller += arena < flat;
    g_free (b);
  }
  /* reuse happens: most random plans are smaller than the flat layout */
  g_assert_cmpuint (n_smaller, >, N_RANDOM_PLANS / 2);
  g_rand_free (rng);
}

/* ------------------------------------------------------------------ */
/* The device graph */

static simnpu__graph *
load_all_ops (bool keep_tensors)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = NULL;
  gchar *file = g_test_build_filename (G_TEST_DIST, "all-ops.json", NULL);

  if (simnpu__graph_load_json_file (file, false, &g, &error) < 0)
    g_error ("%s: %s", file, error.message);
  g->keep_tensors = keep_tensors;
  if (simnpu__graph_prepare (g, &error) < 0)
    g_error ("prepare: %s", error.message);
  g_free (file);
  return g;
}

/* live ranges recomputed here, as the plan's contract states them */
static void
check_device_layout (const simnpu__graph * g)
{
  int *first = g_new (int, g->n_tensors), *last = g_new (int, g->n_tensors);
  unsigned i, k;

  for (i = 0; i < g->n_tensors; i++) {
    first[i] = G_MAXINT;
    last[i] = -1;
  }
  for (i = 0; i < g->n_inputs; i++)
    first[g->inputs[i]] = 0;
  for (i = 0; i < g->n_ops; i++) {
    for (k = 0; k < g->ops[i].n_inputs; k++)
      last[g->ops[i].inputs[k]] = MAX (last[g->ops[i].inputs[k]], (int) i);
    for (k = 0; k < g->ops[i].n_outputs; k++)
      first[g->ops[i].outputs[k]] = MIN (first[g->ops[i].outputs[k]], (int) i);
  }
  for (i = 0; i < g->n_outputs; i++)
    last[g->outputs[i]] = (int) g->n_ops;
  for (i = 0; i < g->n_tensors; i++) {
    const simnpu__tensor *a = &g->tensors[i];
    if (a->kind == SIMNPU_TENSOR_CONSTANT)
      continue;
    g_assert_cmpuint (a->offset + simnpu__tensor_bytes (a), <=, g->arena_bytes);
    for (k = 0; k < i; k++) {
      const simnpu__tensor *b = &g->tensors[k];
      if (b->kind == SIMNPU_TENSOR_CONSTANT || first[i] > last[k]
          || first[k] > last[i])
        continue;
      if (bytes_overlap (a->offset, simnpu__tensor_bytes (a), b->offset,
              simnpu__tensor_bytes (b)))
        g_error ("tensors '%s' and '%s' are live together and share bytes",
            a->name, b->name);
    }
  }
  g_free (first);
  g_free (last);
}

static void
run_device (const simnpu__graph * g, const guint8 * input, GPtrArray * outs)
{
  uint8_t *arena = g_malloc (MAX (g->arena_bytes, 1));
  int8_t *scratch = g_malloc0 (MAX (g->scratch_bytes, 1));
  const simnpu__tensor *in = &g->tensors[g->inputs[0]];
  unsigned i;

  /* what a previous frame left: the kernels must not read it */
  memset (arena, 0x5a, MAX (g->arena_bytes, 1));
  memcpy (arena + in->offset, input, simnpu__tensor_bytes (in));
  g_assert_cmpint (simnpu__graph_run (g, arena, scratch), ==, 0);
  for (i = 0; i < g->n_outputs; i++) {
    const simnpu__tensor *t = &g->tensors[g->outputs[i]];
    g_ptr_array_add (outs, g_memdup2 (arena + t->offset,
            simnpu__tensor_bytes (t)));
  }
  g_free (arena);
  g_free (scratch);
}

static void
test_device_graph (void)
{
  simnpu__graph *planned = load_all_ops (false);
  simnpu__graph *apart = load_all_ops (true);
  const simnpu__tensor *in = &planned->tensors[planned->inputs[0]];
  GRand *rng = g_rand_new_with_seed (SEED);
  size_t p = 0, f = 0, k;
  unsigned run, i;

  g_assert_cmpuint (planned->arena_planned_bytes, <, planned->arena_flat_bytes);
  g_assert_cmpuint (planned->arena_bytes, ==, planned->arena_planned_bytes);
  g_assert_cmpuint (apart->arena_bytes, ==, apart->arena_flat_bytes);
  g_assert_cmpuint (apart->arena_planned_bytes, ==,
      planned->arena_planned_bytes);
  simnpu__graph_plan_memory (planned, &p, &f);
  g_assert_cmpuint (p, ==, planned->arena_planned_bytes);
  g_assert_cmpuint (f, ==, planned->arena_flat_bytes);
  check_device_layout (planned);
  g_test_message ("all-ops: device arena %zu bytes planned, %zu flat", p, f);

  for (run = 0; run < N_RUNS; run++) {
    guint8 *input = g_malloc (simnpu__tensor_bytes (in));
    GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
    GPtrArray *b = g_ptr_array_new_with_free_func (g_free);
    for (k = 0; k < simnpu__tensor_bytes (in); k++)
      input[k] = (guint8) g_rand_int (rng);
    run_device (planned, input, a);
    run_device (apart, input, b);
    for (i = 0; i < planned->n_outputs; i++)
      g_assert_cmpmem (a->pdata[i], simnpu__tensor_bytes
          (&planned->tensors[planned->outputs[i]]), b->pdata[i],
          simnpu__tensor_bytes (&apart->tensors[apart->outputs[i]]));
    g_ptr_array_unref (a);
    g_ptr_array_unref (b);
    g_free (input);
  }
  g_rand_free (rng);
  simnpu__graph_free (planned);
  simnpu__graph_free (apart);
}

/* ------------------------------------------------------------------ */
/* The float IR */

#define IR_H 9
#define IR_W 7
#define IR_C 3
#define IR_OC 4
#define IR_K 3

static int
ir_tensor (simnpu__ir_graph * g, const char *name)
{
  int t = simnpu__ir_add_tensor (g, name, SIMNPU_IR_F32, 0, NULL);
  g_assert_cmpint (t, >=, 0);
  return t;
}

static int
ir_const (simnpu__ir_graph * g, const char *name, unsigned rank,
    const int64_t * dims, GRand * rng)
{
  size_t n = 1, i;
  float *v;
  int t;

  for (i = 0; i < rank; i++)
    n *= (size_t) dims[i];
  v = g_new (float, n);
  for (i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  t = simnpu__ir_add_const (g, name, SIMNPU_IR_F32, rank, dims, v);
  g_assert_cmpint (t, >=, 0);
  return t;
}

static void
ir_node (simnpu__ir_graph * g, simnpu__ir_op op, const char *name,
    unsigned n_in, const int *ins, int out, const int32_t * pads)
{
  simnpu__ir_node *n = simnpu__ir_add_node (g, op, name, n_in, ins, 1, &out);

  g_assert_nonnull (n);
  if (pads != NULL) {
    n->attrs.stride[0] = n->attrs.stride[1] = 1;
    n->attrs.dilation[0] = n->attrs.dilation[1] = 1;
    n->attrs.groups = 1;
    memcpy (n->attrs.pads, pads, sizeof (n->attrs.pads));
  }
}

/* x -> conv (padded) -> a -> sigmoid -> b -> conv (padded, unevenly) -> c;
 * d = c + a (a lives across two nodes); d -> tanh -> y */
static simnpu__ir_graph *
ir_skip_graph (GRand * rng)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("skip");
  int64_t xd[4] = { 1, IR_H, IR_W, IR_C };
  int64_t w1d[4] = { IR_OC, IR_K, IR_K, IR_C };
  int64_t w2d[4] = { IR_OC, IR_K, IR_K, IR_OC };
  int64_t bd[1] = { IR_OC };
  const int32_t pads1[4] = { 1, 1, 1, 1 }, pads2[4] = { 2, 1, 0, 1 };
  int x, a, b, c, d, y, ins[3];
  simnpu_error error = { 0 };

  x = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 4, xd);
  g->inputs[g->n_inputs++] = x;
  a = ir_tensor (g, "a");
  b = ir_tensor (g, "b");
  c = ir_tensor (g, "c");
  d = ir_tensor (g, "d");
  y = ir_tensor (g, "y");
  g->outputs[g->n_outputs++] = y;
  ins[0] = x;
  ins[1] = ir_const (g, "w1", 4, w1d, rng);
  ins[2] = ir_const (g, "b1", 1, bd, rng);
  ir_node (g, SIMNPU_IR_CONV2D, "conv1", 3, ins, a, pads1);
  ir_node (g, SIMNPU_IR_SIGMOID, "sigmoid", 1, &a, b, NULL);
  ins[0] = b;
  ins[1] = ir_const (g, "w2", 4, w2d, rng);
  ins[2] = ir_const (g, "b2", 1, bd, rng);
  ir_node (g, SIMNPU_IR_CONV2D, "conv2", 3, ins, c, pads2);
  ins[0] = c;
  ins[1] = a;
  ir_node (g, SIMNPU_IR_ADD, "add", 2, ins, d, NULL);
  ir_node (g, SIMNPU_IR_TANH, "tanh", 1, &d, y, NULL);
  if (simnpu__ir_infer_shapes (g, &error) < 0)
    g_error ("infer: %s", error.message);
  return g;
}

static void
test_ir_planned_run (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu__ir_graph *g = ir_skip_graph (rng);
  simnpu_error error = { 0 };
  simnpu__ir_exec *planned = simnpu__ir_exec_new_planned (g, &error);
  simnpu__ir_exec *apart = simnpu__ir_exec_new (g, &error);
  int x = g->inputs[0], y = g->outputs[0];
  size_t xb = simnpu__ir_tensor_bytes (&g->tensors[x]);
  size_t yb = simnpu__ir_tensor_bytes (&g->tensors[y]);
  size_t p = 0, f = 0, k;
  unsigned run;

  g_assert_nonnull (planned);
  g_assert_nonnull (apart);
  g_assert_cmpint (simnpu__ir_plan_memory (g, &p, &f, &error), ==, 0);
  g_assert_cmpuint (p, <, f);
  /* the planned arena holds its widest step: conv2's padded copy (11 x 9
   * x 4), its input and its output, with a (read again by add) */
  g_assert_cmpuint (p, >=, (size_t) (11 * 9 * IR_OC + 3 * IR_H * IR_W *
          IR_OC) * sizeof (float));
  g_test_message ("skip graph: host arena %zu bytes planned, %zu flat", p, f);
  g_assert_cmpuint (planned->arena_bytes, ==, p);
  for (run = 0; run < N_RUNS; run++) {
    float *in;
    /* what other tensors left where the padded copies' borders go: the
     * kernel zeroes them */
    memset (planned->arena, 0x7f, planned->arena_bytes);
    in = simnpu__ir_exec_data (planned, x);
    for (k = 0; k < xb / sizeof (float); k++)
      in[k] = (float) g_rand_double_range (rng, -2.0, 2.0);
    memcpy (simnpu__ir_exec_data (apart, x), in, xb);
    g_assert_cmpint (simnpu__ir_exec_run (planned, 0, g->n_nodes, &error),
        ==, 0);
    g_assert_cmpint (simnpu__ir_exec_run (apart, 0, g->n_nodes, &error), ==, 0);
    g_assert_cmpmem (simnpu__ir_exec_data (planned, y), yb,
        simnpu__ir_exec_data (apart, y), yb);
  }
  simnpu__ir_exec_free (planned);
  simnpu__ir_exec_free (apart);
  simnpu__ir_graph_free (g);
  g_rand_free (rng);
}

/* A chain of unary ops on 16 floats (64 bytes each): x, then a, b, c,
 * each live with its neighbours, and the output y live to the end: two
 * places of 64 bytes instead of five. */
static void
test_ir_known_size (void)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("chain");
  int64_t dims[2] = { 1, 16 };
  simnpu__ir_op ops[4] = { SIMNPU_IR_RELU, SIMNPU_IR_SIGMOID, SIMNPU_IR_TANH,
    SIMNPU_IR_NEG
  };
  simnpu_error error = { 0 };
  size_t p = 0, f = 0;
  int prev, t;
  unsigned i;

  prev = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 2, dims);
  g->inputs[g->n_inputs++] = prev;
  for (i = 0; i < G_N_ELEMENTS (ops); i++) {
    gchar *name = g_strdup_printf ("t%u", i);
    t = ir_tensor (g, name);
    ir_node (g, ops[i], name, 1, &prev, t, NULL);
    g_free (name);
    prev = t;
  }
  g->outputs[g->n_outputs++] = prev;
  g_assert_cmpint (simnpu__ir_infer_shapes (g, &error), ==, 0);
  g_assert_cmpint (simnpu__ir_plan_memory (g, &p, &f, &error), ==, 0);
  g_assert_cmpuint (p, ==, 2 * 64);
  g_assert_cmpuint (f, ==, 5 * 64);
  simnpu__ir_graph_free (g);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/memplan/known-plan", test_known_plan);
  g_test_add_func ("/memplan/chain-reuse", test_chain_reuse);
  g_test_add_func ("/memplan/random-plans", test_random_plans);
  g_test_add_func ("/memplan/device-graph", test_device_graph);
  g_test_add_func ("/memplan/ir-planned-run", test_ir_planned_run);
  g_test_add_func ("/memplan/ir-known-size", test_ir_known_size);
  return g_test_run ();
}
