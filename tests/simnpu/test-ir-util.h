/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* What the float IR's test programs (test-ir-*.c) share: graph building
 * with assertions, running a graph of one op and comparing its output. */

#ifndef __SIMNPU_TEST_IR_UTIL_H__
#define __SIMNPU_TEST_IR_UTIL_H__

#include "simnpu-private.h"
#include "ir/ir.h"

#include <math.h>
#include <string.h>

#define TOL 1e-5f
#define SEED 1234
/* seeds written by the serialisation test when G_IR_WRITE_SEEDS names a
 * directory (tests/fuzz/corpus/ir) */
#define SEEDS_ENV "G_IR_WRITE_SEEDS"

/* ------------------------------------------------------------------ */
/* Helpers */

static inline int
add_input (simnpu__ir_graph * g, const char *name, simnpu__ir_dtype dtype,
    unsigned rank, const int64_t * dims)
{
  int t = simnpu__ir_add_tensor (g, name, dtype, rank, dims);
  g_assert_cmpint (t, >=, 0);
  g->inputs[g->n_inputs++] = t;
  return t;
}

static inline int
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

static inline int
add_out (simnpu__ir_graph * g, const char *name)
{
  int t = simnpu__ir_add_tensor (g, name, SIMNPU_IR_F32, 0, NULL);
  g_assert_cmpint (t, >=, 0);
  g->outputs[g->n_outputs++] = t;
  return t;
}

static inline simnpu__ir_node *
add_node1 (simnpu__ir_graph * g, simnpu__ir_op op, const char *name,
    unsigned n_in, const int *ins, int out)
{
  simnpu__ir_node *n = simnpu__ir_add_node (g, op, name, n_in, ins, 1, &out);
  g_assert_nonnull (n);
  return n;
}

/* infers, runs with the given input data (one array per graph input),
 * returns the executor (the caller reads outputs and frees it) */
static inline simnpu__ir_exec *
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

static inline void
assert_close (const float *got, const float *want, size_t n, float tol)
{
  size_t i;

  for (i = 0; i < n; i++) {
    float d = fabsf (got[i] - want[i]);
    if (!(d <= tol * MAX (1.0f, fabsf (want[i]))))
      g_error ("element %zu: got %.7g, expected %.7g", i, got[i], want[i]);
  }
}

static inline float *
random_floats (GRand * rng, size_t n)
{
  float *v = g_new (float, n);
  size_t i;

  for (i = 0; i < n; i++)
    v[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  return v;
}

/* one op on one f32 input, output compared with want */
static inline void
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

static inline void
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

static inline void
write_seed (const char *dir, const char *name, const void *data, size_t len)
{
  gchar *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, data, (gssize) len, NULL));
  g_free (path);
}

static inline const void *
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

static inline const simnpu__ir_tensor *
one_op_out (one_op * o, unsigned i)
{
  return &o->g->tensors[o->outs[i]];
}

static inline void
one_op_clear (one_op * o)
{
  simnpu__ir_exec_free (o->x);
  simnpu__ir_graph_free (o->g);
}

/* runs and compares the first output with want (f32) */
static inline void
one_op_check_f32 (one_op * o, const float *want, size_t n, float tol)
{
  const float *got = one_op_run (o);

  g_assert_cmpint (one_op_out (o, 0)->dtype, ==, SIMNPU_IR_F32);
  g_assert_cmpint (simnpu__ir_tensor_elements (one_op_out (o, 0)), ==, n);
  assert_close (got, want, n, tol);
  one_op_clear (o);
}

static inline void
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

#endif /* __SIMNPU_TEST_IR_UTIL_H__ */
