/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The device ops the compiler lowers real models' layers to beyond convs
 * and element-wise arithmetic (prelu, depth_to_space, space_to_depth, a
 * mean for global average pools wider than a pool window, a division by
 * a constant as a multiply, the spelled-out hard swish): each a small
 * float graph compiled with random calibration inputs, which must run
 * wholly on the device (no postamble) as the expected device op, with
 * the int8 output within the stated SQNR of the float executor's. The
 * int8 kernels of the movement ops are also checked bit for bit against
 * the definition of each mode, and each compiled graph's .axm round trip
 * keeps its ops. */

#include "compiler.h"
#include "onnx-builder.h"
#include "simnpu-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x5eed
#define N_CALIB 4
/* int8 against float over the calibration set: an op that computes
 * requantises once (about 40 dB for uniform data); one that moves bytes
 * keeps the input's quantisation (about 48 dB) */
#define MIN_SQNR_DB 35.0
#define MIN_SQNR_MOVE_DB 42.0
/* a map wider than the device's pool windows (64) */
#define BIG_MAP 80

typedef struct
{
  simnpu__ir_graph *g;
  int x;
} model;

static void
model_begin (model * m, const char *name, int64_t h, int64_t w, int64_t c)
{
  int64_t xd[4] = { 1, h, w, c };

  m->g = simnpu__ir_graph_new (name);
  m->x = simnpu__ir_add_tensor (m->g, "x", SIMNPU_IR_F32, 4, xd);
  m->g->inputs[m->g->n_inputs++] = m->x;
}

static int
add_const (simnpu__ir_graph * g, const char *name, unsigned rank,
    const int64_t * dims, const float *values, size_t n)
{
  int t = simnpu__ir_add_const (g, name, SIMNPU_IR_F32, rank, dims,
      g_memdup2 (values, n * sizeof (float)));
  g_assert_cmpint (t, >=, 0);
  return t;
}

static float
scalar_value (simnpu__ir_graph * g, const char *name, float v, int *t)
{
  *t = add_const (g, name, 0, NULL, &v, 1);
  return v;
}

static int
add_node (simnpu__ir_graph * g, simnpu__ir_op op, const char *name,
    unsigned n_in, const int *in, simnpu__ir_node ** node)
{
  int y = simnpu__ir_add_tensor (g, name, SIMNPU_IR_F32, 0, NULL);
  simnpu__ir_node *n = simnpu__ir_add_node (g, op, name, n_in, in, 1, &y);

  g_assert_nonnull (n);
  if (node)
    *node = n;
  return y;
}

static void
model_end (model * m, int y)
{
  simnpu_error error = { 0 };

  m->g->outputs[m->g->n_outputs++] = y;
  if (simnpu__ir_infer_shapes (m->g, &error) < 0)
    g_error ("infer: %s", error.message);
}

static GPtrArray *
inputs (const model * m, GRand * rng)
{
  const simnpu__ir_tensor *x = &m->g->tensors[m->x];
  int64_t n = simnpu__ir_tensor_elements (x), k;
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  unsigned i;

  for (i = 0; i < N_CALIB; i++) {
    float *v = g_new (float, n);
    for (k = 0; k < n; k++)
      v[k] = (float) g_rand_double_range (rng, -4.0, 4.0);
    g_ptr_array_add (a, v);
  }
  return a;
}

static unsigned
count_dev_ops (const simnpu__graph * dg, simnpu__op_type type)
{
  unsigned i, n = 0;

  for (i = 0; i < dg->n_ops; i++)
    n += dg->ops[i].type == type;
  return n;
}

/* dg written to an .axm and read back keeps its ops, their attributes
 * and (prelu) the multipliers its constants give */
static void
check_axm_round_trip (const simnpu__graph * dg)
{
  simnpu__profile p;
  simnpu__schedule s = { 0 }, s2 = { 0 };
  simnpu__graph *back = NULL;
  simnpu_error error = { 0 };
  gchar *path = NULL, *data = NULL;
  gsize size = 0;
  unsigned i;
  int fd;

  g_assert_cmpint (simnpu__profile_parse ("metis", &p, &error), ==, 0);
  g_assert_cmpint (simnpu__schedule_build (dg, &p, &s, &error), ==, 0);
  fd = g_file_open_tmp ("simnpu-compile-ops-XXXXXX.axm", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  if (simnpu__axm_write (dg, &s, path, &error) < 0)
    g_error ("axm write: %s", error.message);
  g_assert_true (g_file_get_contents (path, &data, &size, NULL));
  if (simnpu__axm_read (data, size, &back, &s2, &error) < 0
      || simnpu__graph_prepare (back, &error) < 0)
    g_error ("axm read: %s", error.message);
  g_assert_cmpuint (back->n_ops, ==, dg->n_ops);
  for (i = 0; i < dg->n_ops; i++) {
    const simnpu__op *a = &dg->ops[i], *b = &back->ops[i];
    g_assert_cmpint (a->type, ==, b->type);
    g_assert_cmpmem (a->attrs, sizeof a->attrs, b->attrs, sizeof b->attrs);
    if (a->type == SIMNPU_OP_PRELU) {
      size_t n = 2 * sizeof (int32_t) *
          dg->tensors[a->inputs[0]].dims[dg->tensors[a->inputs[0]].n_dims - 1];
      g_assert_nonnull (b->table);
      g_assert_cmpmem (a->table, n, b->table, n);
      g_assert_cmpint (a->eltwise_mult[0], ==, b->eltwise_mult[0]);
    }
  }
  simnpu__schedule_clear (&s);
  simnpu__schedule_clear (&s2);
  simnpu__graph_free (back);
  g_unlink (path);
  g_free (path);
  g_free (data);
}

/* Compiles m (the front-end's fusion first, as simnpu-compile runs it)
 * and checks that it all runs on the device, with `want` among its ops,
 * within min_db of the float result; frees m. */
static void
check_on_device (model * m, simnpu__op_type want, double min_db)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  GPtrArray *calib = inputs (m, rng);
  simnpu__compile_options o;
  simnpu__compile_result r;
  simnpu__graph *dg = NULL;
  simnpu_error error = { 0 };
  double db;

  if (simnpu__ir_fuse (m->g, &error) < 0)
    g_error ("fuse: %s", error.message);
  simnpu__compile_options_init (&o);
  o.calibration = calib;
  o.techniques = SIMNPU_TECHNIQUE_NONE;
  o.fallback_db = 0.0;
  if (simnpu__compile (m->g, &o, &dg, &r, &error) < 0)
    g_error ("compile %s: %s", m->g->name, error.message);
  g_assert_cmpuint (count_dev_ops (dg, want), >=, 1);
  g_assert_true (dg->postamble == NULL || dg->postamble->n_nodes == 0);
  g_assert_true (dg->preamble == NULL || dg->preamble->n_nodes == 0);
  g_assert_cmpuint (r.n_outputs, ==, 1);
  db = r.outputs[0].sqnr_calib_db;
  g_test_message ("%s: %s on the device, %.1f dB", m->g->name,
      simnpu__op_type_name (want), db);
  g_assert_cmpfloat (db, >=, min_db);
  check_axm_round_trip (dg);
  simnpu__compile_result_clear (&r);
  simnpu__graph_free (dg);
  g_ptr_array_unref (calib);
  simnpu__ir_graph_free (m->g);
  g_rand_free (rng);
}

/* slopes of both signs, zero and above one */
static const float slopes[] = { 0.25f, -0.5f, 0.0f, 1.5f, 0.01f, 2.0f };

static void
test_prelu_channels (void)
{
  int64_t sd[1] = { G_N_ELEMENTS (slopes) };
  model m;
  int in[2];

  model_begin (&m, "prelu-channels", 6, 7, G_N_ELEMENTS (slopes));
  in[0] = m.x;
  in[1] = add_const (m.g, "slope", 1, sd, slopes, G_N_ELEMENTS (slopes));
  model_end (&m, add_node (m.g, SIMNPU_IR_PRELU, "y", 2, in, NULL));
  check_on_device (&m, SIMNPU_OP_PRELU, MIN_SQNR_DB);
}

static void
test_prelu_scalar (void)
{
  model m;
  int in[2];

  model_begin (&m, "prelu-scalar", 5, 5, 3);
  in[0] = m.x;
  scalar_value (m.g, "slope", 0.2f, &in[1]);
  model_end (&m, add_node (m.g, SIMNPU_IR_PRELU, "y", 2, in, NULL));
  check_on_device (&m, SIMNPU_OP_PRELU, MIN_SQNR_DB);
}

static void
check_depth_space (simnpu__ir_op op, int mode, int64_t h, int64_t c)
{
  simnpu__ir_node *n;
  model m;
  int y;

  model_begin (&m, simnpu__ir_op_name (op), h, h, c);
  y = add_node (m.g, op, "y", 1, &m.x, &n);
  n->attrs.ints[0] = 2;
  n->attrs.n_ints = 1;
  n->attrs.mode = mode;
  model_end (&m, y);
  check_on_device (&m, op == SIMNPU_IR_DEPTH_TO_SPACE ?
      SIMNPU_OP_DEPTH_TO_SPACE : SIMNPU_OP_SPACE_TO_DEPTH, MIN_SQNR_MOVE_DB);
}

static void
test_depth_space (void)
{
  check_depth_space (SIMNPU_IR_DEPTH_TO_SPACE, SIMNPU_D2S_DCR, 3, 12);
  check_depth_space (SIMNPU_IR_DEPTH_TO_SPACE, SIMNPU_D2S_CRD, 3, 12);
  check_depth_space (SIMNPU_IR_SPACE_TO_DEPTH, 0, 6, 3);
}

static void
test_global_mean (void)
{
  simnpu__ir_node *n;
  model m;
  int y;

  model_begin (&m, "global-avgpool", BIG_MAP, BIG_MAP, 4);
  y = add_node (m.g, SIMNPU_IR_AVGPOOL, "y", 1, &m.x, &n);
  n->attrs.kernel[0] = n->attrs.kernel[1] = BIG_MAP;
  n->attrs.stride[0] = n->attrs.stride[1] = 1;
  n->attrs.dilation[0] = n->attrs.dilation[1] = 1;
  model_end (&m, y);
  check_on_device (&m, SIMNPU_OP_MEAN, MIN_SQNR_DB);
}

static void
test_div_const (void)
{
  static const float div[3] = { 4.0f, -0.5f, 3.0f };
  int64_t dd[1] = { 3 };
  model m;
  int in[2];

  model_begin (&m, "div-const", 4, 4, 3);
  in[0] = m.x;
  in[1] = add_const (m.g, "d", 1, dd, div, 3);
  model_end (&m, add_node (m.g, SIMNPU_IR_DIV, "y", 2, in, NULL));
  check_on_device (&m, SIMNPU_OP_MUL, MIN_SQNR_DB);
}

static void
fuse_ok (simnpu__ir_graph * g)
{
  simnpu_error error = { 0 };

  if (simnpu__ir_fuse (g, &error) < 0)
    g_error ("fuse %s: %s", g->name, error.message);
}

/* relu6 (x + 3) of x, as the spelled-out hard swish has it */
static int
relu6_plus3 (simnpu__ir_graph * g, int x)
{
  simnpu__ir_node *n;
  int in[2], a, r;

  in[0] = x;
  scalar_value (g, "three", 3.0f, &in[1]);
  a = add_node (g, SIMNPU_IR_ADD, "plus3", 2, in, NULL);
  r = add_node (g, SIMNPU_IR_CLIP, "relu6", 1, &a, &n);
  n->attrs.f[0] = 0.0f;
  n->attrs.f[1] = 6.0f;
  return r;
}

/* x * relu6 (x + 3) / 6, and x * (relu6 (x + 3) * (1/6)): one hard swish
 * each, on the device as its table */
static void
test_hard_swish_spellings (void)
{
  model m;
  int in[2], r, t;

  model_begin (&m, "hard-swish-div", 5, 5, 4);
  r = relu6_plus3 (m.g, m.x);
  in[0] = m.x;
  in[1] = r;
  t = add_node (m.g, SIMNPU_IR_MUL, "xr", 2, in, NULL);
  in[0] = t;
  scalar_value (m.g, "six", 6.0f, &in[1]);
  model_end (&m, add_node (m.g, SIMNPU_IR_DIV, "y", 2, in, NULL));
  fuse_ok (m.g);
  g_assert_cmpuint (m.g->n_nodes, ==, 1);
  g_assert_cmpint (m.g->nodes[0].op, ==, SIMNPU_IR_HARD_SWISH);
  check_on_device (&m, SIMNPU_OP_LUT, MIN_SQNR_DB);

  model_begin (&m, "hard-swish-sixth", 5, 5, 4);
  r = relu6_plus3 (m.g, m.x);
  in[0] = r;
  scalar_value (m.g, "sixth", 1.0f / 6.0f, &in[1]);
  t = add_node (m.g, SIMNPU_IR_MUL, "hsig", 2, in, NULL);
  in[0] = m.x;
  in[1] = t;
  model_end (&m, add_node (m.g, SIMNPU_IR_MUL, "y", 2, in, NULL));
  fuse_ok (m.g);
  g_assert_cmpuint (m.g->n_nodes, ==, 1);
  g_assert_cmpint (m.g->nodes[0].op, ==, SIMNPU_IR_HARD_SWISH);
  check_on_device (&m, SIMNPU_OP_LUT, MIN_SQNR_DB);

  /* after a conv read by the add alone, the add and the clip go into
   * the conv (as squeeze-and-excite gates have it): no table */
  {
    static const float w1[4 * 4] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0,
      0, 0, 0, 1
    };
    int64_t wd[4] = { 4, 1, 1, 4 };
    simnpu__ir_node *cn;
    unsigned i, n_hsig = 0;
    model_begin (&m, "hard-sigmoid-after-conv", 5, 5, 4);
    in[0] = m.x;
    in[1] = add_const (m.g, "w", 4, wd, w1, 16);
    t = add_node (m.g, SIMNPU_IR_CONV2D, "conv", 2, in, &cn);
    cn->attrs.kernel[0] = cn->attrs.kernel[1] = 1;
    cn->attrs.stride[0] = cn->attrs.stride[1] = 1;
    cn->attrs.dilation[0] = cn->attrs.dilation[1] = 1;
    cn->attrs.groups = 1;
    cn->attrs.act_max = INFINITY;
    r = relu6_plus3 (m.g, t);
    in[0] = r;
    scalar_value (m.g, "six", 6.0f, &in[1]);
    model_end (&m, add_node (m.g, SIMNPU_IR_DIV, "y", 2, in, NULL));
    fuse_ok (m.g);
    for (i = 0; i < m.g->n_nodes; i++)
      n_hsig += m.g->nodes[i].op == SIMNPU_IR_HARD_SIGMOID;
    g_assert_cmpuint (n_hsig, ==, 0);
    g_assert_cmpint (m.g->nodes[0].op, ==, SIMNPU_IR_CONV2D);
    g_assert_cmpint (m.g->nodes[0].attrs.act, ==, SIMNPU_IR_ACT_CLIP);
    simnpu__ir_graph_free (m.g);
  }

  /* relu6 (x + 3) / 6 alone: a hard sigmoid */
  model_begin (&m, "hard-sigmoid-div", 5, 5, 4);
  r = relu6_plus3 (m.g, m.x);
  in[0] = r;
  scalar_value (m.g, "six", 6.0f, &in[1]);
  model_end (&m, add_node (m.g, SIMNPU_IR_DIV, "y", 2, in, NULL));
  fuse_ok (m.g);
  g_assert_cmpuint (m.g->n_nodes, ==, 1);
  g_assert_cmpint (m.g->nodes[0].op, ==, SIMNPU_IR_HARD_SIGMOID);
  check_on_device (&m, SIMNPU_OP_LUT, MIN_SQNR_DB);
}

/* The movement kernels against their definitions, every mode. */
static void
test_depth_space_kernels (void)
{
  const int b = 3;
  const int64_t n = 2, h = 2, w = 4, oc = 5, ic = oc * b * b;
  int64_t din[4] = { n, h, w, ic }, dsp[4] = { n, h * b, w * b, oc };
  size_t count = (size_t) (n * h * w * ic);
  int8_t *in = g_new (int8_t, count), *out = g_new (int8_t, count);
  int8_t *back = g_new (int8_t, count);
  int64_t bn, y, x, i, j, c;
  int mode;
  size_t k;

  for (k = 0; k < count; k++)
    in[k] = (int8_t) (k * 37 % 251 - 125);
  for (mode = SIMNPU_D2S_DCR; mode <= SIMNPU_D2S_CRD; mode++) {
    simnpu__depth_to_space (din, in, out, b, mode);
    for (bn = 0; bn < n; bn++)
      for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
          for (i = 0; i < b; i++)
            for (j = 0; j < b; j++)
              for (c = 0; c < oc; c++) {
                int64_t ch = mode == SIMNPU_D2S_DCR ? (i * b + j) * oc + c :
                    c * b * b + i * b + j;
                g_assert_cmpint (out[((bn * h * b + y * b + i) * w * b +
                            x * b + j) * oc + c], ==,
                    in[((bn * h + y) * w + x) * ic + ch]);
              }
  }
  /* space_to_depth undoes DCR */
  simnpu__depth_to_space (din, in, out, b, SIMNPU_D2S_DCR);
  simnpu__space_to_depth (dsp, out, back, b);
  g_assert_cmpmem (back, count, in, count);
  g_free (in);
  g_free (out);
  g_free (back);
}

/* Corpus models of the data dir whose every layer now has a device op:
 * iris and facemesh (PReLU after each conv) run all their MACs on the
 * device, with the PReLUs as prelu ops. Random calibration: the
 * placement does not depend on it. */
/* ------------------------------------------------------------------ */
/* Gather, GatherND and Where of constant indices and conditions, from
 * ONNX models through the whole import (folding included) */

#define ONNX_OPSET 13

/* an int64 initializer of any shape (rank 0: a scalar) */
static void
onnx_int64s (onnx_builder * b, const char *name, unsigned rank,
    const int64_t * dims, const int64_t * v)
{
  Onnx__TensorProto *t = onnx_builder_tensor (b, name,
      ONNX__TENSOR_PROTO__DATA_TYPE__INT64, rank, dims);
  size_t n = 1, i;

  for (i = 0; i < rank; i++)
    n *= dims[i];
  t->n_int64_data = n;
  t->int64_data = onnx_builder_keep (b, g_memdup2 (v, n * sizeof v[0]));
  g_ptr_array_add (b->inits, t);
}

static void
onnx_bools (onnx_builder * b, const char *name, unsigned rank,
    const int64_t * dims, const int32_t * v)
{
  Onnx__TensorProto *t = onnx_builder_tensor (b, name,
      ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, rank, dims);
  size_t n = 1, i;

  for (i = 0; i < rank; i++)
    n *= dims[i];
  t->n_int32_data = n;
  t->int32_data = onnx_builder_keep (b, g_memdup2 (v, n * sizeof v[0]));
  g_ptr_array_add (b->inits, t);
}

/* b's model imported as simnpu-compile imports a file; the import's
 * status, with *g the graph on success */
static int
onnx_import (onnx_builder * b, simnpu__ir_graph ** g, simnpu_error * error)
{
  size_t len;
  guint8 *buf = onnx_builder_pack (b, &len);
  gchar *path = NULL;
  int fd = g_file_open_tmp ("simnpu-compile-ops-XXXXXX.onnx", &path, NULL);
  int ret;

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, (const gchar *) buf, len, NULL));
  ret = simnpu__import_model (path, NULL, NULL, g, error);
  g_unlink (path);
  g_free (path);
  g_free (buf);
  return ret;
}

/* imports b (one input, x), which must run on the device as `want` */
static void
check_onnx_on_device (onnx_builder * b, const char *name,
    simnpu__op_type want, double min_db)
{
  simnpu_error error = { 0 };
  model m;

  onnx_builder_output (b, "y");
  if (onnx_import (b, &m.g, &error) < 0)
    g_error ("import %s: %s", name, error.message);
  g_free (m.g->name);
  m.g->name = g_strdup (name);
  m.x = m.g->inputs[0];
  check_on_device (&m, want, min_db);
  onnx_builder_clear (b);
}

static void
gather_model (onnx_builder * b, unsigned xr, const int64_t * xd,
    unsigned ir, const int64_t * id, const int64_t * idx, int64_t axis,
    const char *op)
{
  const char *ins[2] = { "x", "i" };
  Onnx__NodeProto *n;

  onnx_builder_init (b, ONNX_OPSET);
  onnx_builder_input (b, "x", xr, xd);
  onnx_int64s (b, "i", ir, id, idx);
  n = onnx_builder_node (b, op, ins, 2, "y");
  if (axis != 0)
    onnx_builder_attr_int (b, n, "axis", axis);
}

static void
test_gather (void)
{
  const int64_t xd[4] = { 1, 6, 7, 5 }, x3[3] = { 6, 7, 5 };
  const int64_t list[5] = { 4, -1, 0, 0, 2 }, ld[1] = { 5 };
  const int64_t scalar[1] = { -2 };
  const int64_t table[4] = { 0, 6, 3, -3 }, td[2] = { 2, 2 };
  onnx_builder b;

  /* along the last axis, negative and repeated indices */
  gather_model (&b, 4, xd, 1, ld, list, 3, "Gather");
  check_onnx_on_device (&b, "gather-last-axis", SIMNPU_OP_GATHER,
      MIN_SQNR_MOVE_DB);
  /* a scalar index drops the axis */
  gather_model (&b, 4, xd, 0, NULL, scalar, 1, "Gather");
  check_onnx_on_device (&b, "gather-scalar", SIMNPU_OP_GATHER,
      MIN_SQNR_MOVE_DB);
  /* a 2 x 2 table of indices into a rank-3 tensor */
  gather_model (&b, 3, x3, 2, td, table, 1, "Gather");
  check_onnx_on_device (&b, "gather-table", SIMNPU_OP_GATHER, MIN_SQNR_MOVE_DB);
}

static void
test_gather_nd (void)
{
  const int64_t xd[4] = { 1, 6, 7, 5 };
  const int64_t tuples[6] = { 0, 2, 3, 0, 5, -1 }, td[2] = { 2, 3 };
  const int64_t pairs[4] = { 0, 5, 0, -6 }, pd[2] = { 2, 2 };
  onnx_builder b;

  /* picks of whole channels vectors, and of whole rows */
  gather_model (&b, 4, xd, 2, td, tuples, 0, "GatherND");
  check_onnx_on_device (&b, "gathernd-3", SIMNPU_OP_GATHER, MIN_SQNR_MOVE_DB);
  gather_model (&b, 4, xd, 2, pd, pairs, 0, "GatherND");
  check_onnx_on_device (&b, "gathernd-2", SIMNPU_OP_GATHER, MIN_SQNR_MOVE_DB);
}

/* an index outside its axis is the model's fault, named by node */
static void
test_gather_out_of_range (void)
{
  const int64_t xd[4] = { 1, 6, 7, 5 };
  const int64_t past[2] = { 0, 7 }, before[1] = { -8 }, d2[1] = { 2 };
  const int64_t one[1] = { 1 };
  const int64_t tuple[3] = { 0, 6, 0 }, td[2] = { 1, 3 };
  simnpu__ir_graph *g = NULL;
  simnpu_error error = { 0 };
  onnx_builder b;

  gather_model (&b, 4, xd, 1, d2, past, 2, "Gather");
  onnx_builder_output (&b, "y");
  g_assert_cmpint (onnx_import (&b, &g, &error), ==, SIMNPU_EFORMAT);
  g_assert_null (g);
  g_assert_nonnull (strstr (error.message, "node 'y'"));
  g_assert_nonnull (strstr (error.message, "index 7"));
  onnx_builder_clear (&b);

  gather_model (&b, 4, xd, 1, one, before, 2, "Gather");
  onnx_builder_output (&b, "y");
  g_assert_cmpint (onnx_import (&b, &g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "index -8"));
  onnx_builder_clear (&b);

  /* the tuple's linear index (6 * 7 = 42) is inside the data; its
   * second index is not */
  gather_model (&b, 4, xd, 2, td, tuple, 0, "GatherND");
  onnx_builder_output (&b, "y");
  g_assert_cmpint (onnx_import (&b, &g, &error), ==, SIMNPU_EFORMAT);
  g_assert_nonnull (strstr (error.message, "node 'y' (GatherND)"));
  g_assert_nonnull (strstr (error.message, "index 6"));
  onnx_builder_clear (&b);
}

static void
where_model (onnx_builder * b, unsigned cr, const int64_t * cd,
    const int32_t * cv, bool y_const)
{
  const int64_t xd[4] = { 1, 6, 7, 5 };
  const char *mul_in[2] = { "x", "k" };
  const char *where_in[3] = { "c", "x", y_const ? "k" : "x2" };
  const float k = y_const ? 0.75f : 2.5f;

  onnx_builder_init (b, ONNX_OPSET);
  onnx_builder_input (b, "x", 4, xd);
  onnx_bools (b, "c", cr, cd, cv);
  onnx_builder_floats (b, "k", 0, NULL, &k);
  if (!y_const)
    onnx_builder_node (b, "Mul", mul_in, 2, "x2");
  onnx_builder_node (b, "Where", where_in, 3, "y");
}

static void
test_where (void)
{
  const int64_t cols[4] = { 1, 1, 7, 1 }, full[4] = { 1, 6, 1, 5 };
  const int32_t cv[7] = { 1, 0, 0, 1, 1, 0, 1 };
  int32_t fv[30];
  onnx_builder b;
  unsigned i;

  /* x and 2.5 x (a scale 2.5 times x's), the condition broadcast over
   * rows and channels */
  where_model (&b, 4, cols, cv, false);
  check_onnx_on_device (&b, "where-requant", SIMNPU_OP_SELECT, MIN_SQNR_DB);
  /* x or a constant, the condition broadcast over columns */
  for (i = 0; i < G_N_ELEMENTS (fv); i++)
    fv[i] = (i * 7) % 3 == 0;
  where_model (&b, 4, full, fv, true);
  check_onnx_on_device (&b, "where-const", SIMNPU_OP_SELECT, MIN_SQNR_DB);
}

/* a where whose condition is true (false) everywhere is its first
 * (second) operand: pruning leaves none, and the graph runs on the
 * device without a select */
static void
check_uniform_where (bool value)
{
  int64_t cd[4] = { 1, 4, 4, 3 };
  uint8_t *cv = g_new (uint8_t, 48);
  simnpu_error error = { 0 };
  model m;
  int in[3], r;
  unsigned i, n_where = 0;

  memset (cv, value, 48);
  model_begin (&m, value ? "where-true" : "where-false", 4, 4, 3);
  r = add_node (m.g, SIMNPU_IR_RELU, "r", 1, &m.x, NULL);
  in[0] = simnpu__ir_add_const (m.g, "c", SIMNPU_IR_BOOL, 4, cd, cv);
  in[1] = value ? r : m.x;
  in[2] = value ? m.x : r;
  model_end (&m, add_node (m.g, SIMNPU_IR_WHERE, "y", 3, in, NULL));
  g_assert_cmpint (simnpu__ir_prune (m.g, &error), ==, 0);
  for (i = 0; i < m.g->n_nodes; i++)
    n_where += m.g->nodes[i].op == SIMNPU_IR_WHERE;
  g_assert_cmpuint (n_where, ==, 0);
  check_on_device (&m, SIMNPU_OP_LUT, MIN_SQNR_DB);
}

static void
test_where_uniform (void)
{
  check_uniform_where (true);
  check_uniform_where (false);
}

static void
check_corpus (const char *name, double min_share)
{
  const char *dir = g_getenv ("GST_AX_DATA_DIR");
  gchar *path;
  simnpu__ir_graph *g = NULL;
  simnpu__compile_options o;
  simnpu__compile_result r;
  simnpu__graph *dg = NULL;
  simnpu_error error = { 0 };
  double share;

  if (dir == NULL) {
    g_test_skip ("GST_AX_DATA_DIR is not set (run scripts/fetch-data.sh)");
    return;
  }
  path = g_build_filename (dir, "human", name, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_test_skip ("the corpus model is not in GST_AX_DATA_DIR");
    g_free (path);
    return;
  }
  if (simnpu__import_model (path, NULL, NULL, &g, &error) < 0)
    g_error ("%s: %s", path, error.message);
  simnpu__compile_options_init (&o);
  o.techniques = SIMNPU_TECHNIQUE_NONE;
  o.fallback_db = 0.0;
  if (simnpu__compile (g, &o, &dg, &r, &error) < 0)
    g_error ("compile %s: %s", path, error.message);
  share = (double) r.device_macs / (double) (r.device_macs + r.host_macs);
  g_test_message ("%s: %.1f %% of MACs on the device, %u prelu ops", name,
      100.0 * share, count_dev_ops (dg, SIMNPU_OP_PRELU));
  g_assert_cmpuint (count_dev_ops (dg, SIMNPU_OP_PRELU), >=, 1);
  g_assert_cmpfloat (share, >=, min_share);
  simnpu__compile_result_clear (&r);
  simnpu__graph_free (dg);
  simnpu__ir_graph_free (g);
  g_free (path);
}

static void
test_corpus_prelu (void)
{
  check_corpus ("iris.json", 1.0);
  check_corpus ("facemesh.json", 1.0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compile-ops/prelu-channels", test_prelu_channels);
  g_test_add_func ("/compile-ops/prelu-scalar", test_prelu_scalar);
  g_test_add_func ("/compile-ops/depth-space", test_depth_space);
  g_test_add_func ("/compile-ops/depth-space-kernels",
      test_depth_space_kernels);
  g_test_add_func ("/compile-ops/gather", test_gather);
  g_test_add_func ("/compile-ops/gather-nd", test_gather_nd);
  g_test_add_func ("/compile-ops/gather-out-of-range",
      test_gather_out_of_range);
  g_test_add_func ("/compile-ops/where", test_where);
  g_test_add_func ("/compile-ops/where-uniform", test_where_uniform);
  g_test_add_func ("/compile-ops/global-mean", test_global_mean);
  g_test_add_func ("/compile-ops/div-const", test_div_const);
  g_test_add_func ("/compile-ops/hard-swish-spellings",
      test_hard_swish_spellings);
  g_test_add_func ("/compile-ops/corpus-prelu", test_corpus_prelu);
  return g_test_run ();
}
