/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* A device section with more results for the host than the runtime takes
 * (SIMNPU_MAX_IO device outputs), as PINTO's facemesh-attention has: one
 * feature map reshaped once per gather of its crops, each gather on the
 * device. The compiler must move gathers and reshapes to the postamble
 * until the device section's outputs fit (the map leaving the device
 * once for the moved ones), and the compiled model, written, loaded and run
 * through the runtime (job, then postamble), must match the float
 * executor within int8's error. */

#include "compiler.h"
#include "simnpu-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define SEED 0x0b75
#define N_CALIB 4
#define H 8
#define W 8
#define C 4
/* more than SIMNPU_MAX_IO reshapes of one map, each read by a gather */
#define N_BRANCH 20
#define PICKS 4
#define WAIT_NS (G_GINT64_CONSTANT (30) * 1000000000)
/* one int8 conv against float: about 40 dB on uniform data */
#define MIN_SQNR_DB 30.0
/* of the largest magnitude of the float output */
#define MAX_REL_ERR 0.05

G_STATIC_ASSERT (N_BRANCH > SIMNPU_MAX_IO);
G_STATIC_ASSERT (N_BRANCH <= SIMNPU_IR_MAX_INPUTS);

static simnpu__ir_graph *
build (GRand * rng)
{
  simnpu__ir_graph *g = simnpu__ir_graph_new ("many-outputs");
  int64_t xd[4] = { 1, H, W, C }, wd[4] = { C, 1, 1, C }, bd[1] = { C };
  int64_t pd[1] = { PICKS };
  float *w = g_new (float, C * C), *b = g_new (float, C);
  int ins[3], y, picks[N_BRANCH], out;
  unsigned i, k;
  simnpu__ir_node *n;

  for (i = 0; i < C * C; i++)
    w[i] = (float) g_rand_double_range (rng, -1.0, 1.0);
  for (i = 0; i < C; i++)
    b[i] = (float) g_rand_double_range (rng, -0.5, 0.5);
  ins[0] = simnpu__ir_add_tensor (g, "x", SIMNPU_IR_F32, 4, xd);
  g->inputs[g->n_inputs++] = ins[0];
  ins[1] = simnpu__ir_add_const (g, "w", SIMNPU_IR_F32, 4, wd, w);
  ins[2] = simnpu__ir_add_const (g, "b", SIMNPU_IR_F32, 1, bd, b);
  y = simnpu__ir_add_tensor (g, "map", SIMNPU_IR_F32, 0, NULL);
  g_assert_nonnull (simnpu__ir_add_node (g, SIMNPU_IR_CONV2D, "conv", 3,
          ins, 1, &y));
  for (i = 0; i < N_BRANCH; i++) {
    gchar *fname = g_strdup_printf ("flat_%u", i);
    gchar *iname = g_strdup_printf ("idx_%u", i);
    gchar *pname = g_strdup_printf ("gather_%u", i);
    int32_t *idx = g_new (int32_t, PICKS);
    int flat, gin[2];
    for (k = 0; k < PICKS; k++)
      idx[k] = (int32_t) ((i * 37 + k * 53) % (H * W * C));
    flat = simnpu__ir_add_tensor (g, fname, SIMNPU_IR_F32, 0, NULL);
    n = simnpu__ir_add_node (g, SIMNPU_IR_RESHAPE, fname, 1, &y, 1, &flat);
    n->attrs.n_ints = 2;
    n->attrs.ints[0] = 1;
    n->attrs.ints[1] = H * W * C;
    gin[0] = flat;
    gin[1] = simnpu__ir_add_const (g, iname, SIMNPU_IR_I32, 1, pd, idx);
    picks[i] = simnpu__ir_add_tensor (g, pname, SIMNPU_IR_F32, 0, NULL);
    n = simnpu__ir_add_node (g, SIMNPU_IR_GATHER, pname, 2, gin, 1, &picks[i]);
    n->attrs.axis = 1;
    g_free (fname);
    g_free (iname);
    g_free (pname);
  }
  out = simnpu__ir_add_tensor (g, "picks", SIMNPU_IR_F32, 0, NULL);
  n = simnpu__ir_add_node (g, SIMNPU_IR_CONCAT, "picks", N_BRANCH, picks, 1,
      &out);
  n->attrs.axis = 1;
  g->outputs[g->n_outputs++] = out;
  return g;
}

static float *
random_input (GRand * rng)
{
  float *v = g_new (float, H * W * C);
  unsigned i;

  for (i = 0; i < H * W * C; i++)
    v[i] = (float) g_rand_double_range (rng, -4.0, 4.0);
  return v;
}

static float *
run_float (const simnpu__ir_graph * g, const float *x, int64_t * n_out)
{
  simnpu_error error = { 0 };
  simnpu__ir_exec *e = simnpu__ir_exec_new (g, &error);
  const simnpu__ir_tensor *o = &g->tensors[g->outputs[0]];
  float *out;

  if (e == NULL)
    g_error ("exec: %s", error.message);
  memcpy (simnpu__ir_exec_data (e, g->inputs[0]), x,
      H * W * C * sizeof (float));
  if (simnpu__ir_exec_run (e, 0, g->n_nodes, &error) < 0)
    g_error ("run: %s", error.message);
  *n_out = simnpu__ir_tensor_elements (o);
  out = g_memdup2 (simnpu__ir_exec_data (e, g->outputs[0]),
      *n_out * sizeof (float));
  simnpu__ir_exec_free (e);
  return out;
}

static gchar *
write_axm (const simnpu__graph * dg)
{
  simnpu__profile p;
  simnpu__schedule s = { 0 };
  simnpu_error error = { 0 };
  gchar *path = NULL;
  int fd;

  g_assert_cmpint (simnpu__profile_parse ("metis", &p, &error), ==, 0);
  g_assert_cmpint (simnpu__schedule_build (dg, &p, &s, &error), ==, 0);
  fd = g_file_open_tmp ("simnpu-compile-outputs-XXXXXX.axm", &path, NULL);
  g_assert_cmpint (fd, >=, 0);
  close (fd);
  if (simnpu__axm_write (dg, &s, path, &error) < 0)
    g_error ("axm write: %s", error.message);
  simnpu__schedule_clear (&s);
  return path;
}

/* The compiled model on x through the runtime: the input quantised as the
 * device takes it, a job, then the postamble on the job's outputs. */
static float *
run_compiled (const char *path, const float *x, int64_t n_out)
{
  simnpu_device *dev = NULL;
  simnpu_model *model = NULL;
  simnpu_model_info info;
  simnpu_tensor_spec in_spec, spec;
  simnpu_host_section *post;
  simnpu_host_section_info pinfo;
  simnpu_input_buffer in;
  simnpu_output_buffer outs[SIMNPU_MAX_IO];
  const void *post_in[SIMNPU_MAX_IO];
  void *post_out[1];
  simnpu_error error = { 0 };
  simnpu_job *job = NULL;
  simnpu_binding b;
  int8_t *q;
  float *result = g_new0 (float, n_out);
  unsigned i, bound;

  if (simnpu_device_open ("metis", &dev, &error) < 0
      || simnpu_device_set_time_scale (dev, 0.0) < 0
      || simnpu_model_load (dev, path, &model, &error) < 0)
    g_error ("load: %s", error.message);
  simnpu_model_get_info (model, &info);
  g_assert_cmpuint (info.n_device_inputs, ==, 1);
  g_assert_cmpuint (info.n_device_outputs, <=, SIMNPU_MAX_IO);
  g_assert_true (info.has_postamble);
  g_assert_cmpuint (info.n_outputs, ==, 1);
  simnpu_model_get_output_binding (model, 0, &b);
  g_assert_cmpint (b.section, ==, SIMNPU_SECTION_POSTAMBLE);

  simnpu_model_get_device_input (model, 0, &in_spec);
  g_assert_cmpint (in_spec.dtype, ==, SIMNPU_DTYPE_I8);
  q = g_malloc (in_spec.size_bytes);
  for (i = 0; i < H * W * C; i++)
    q[i] = (int8_t) CLAMP (lrintf (x[i] / in_spec.scale) +
        in_spec.zero_point, -128, 127);
  in.data = q;
  in.size_bytes = in_spec.size_bytes;
  for (i = 0; i < info.n_device_outputs; i++) {
    simnpu_model_get_device_output (model, i, &spec);
    outs[i].data = g_malloc0 (spec.size_bytes);
    outs[i].size_bytes = spec.size_bytes;
  }
  if (simnpu_job_submit (model, &in, 1, outs, info.n_device_outputs, NULL,
          NULL, &job, &error) < 0)
    g_error ("submit: %s", error.message);
  g_assert_cmpint (simnpu_job_wait (job, WAIT_NS, NULL), ==, 0);
  simnpu_job_free (job);

  post = simnpu_model_get_host_section (model, SIMNPU_SECTION_POSTAMBLE);
  simnpu_host_section_get_info (post, &pinfo);
  g_assert_cmpuint (pinfo.n_outputs, ==, 1);
  for (i = 0; i < pinfo.n_inputs; i++) {
    g_assert_cmpint (simnpu_host_section_get_input (post, i, &spec, &bound),
        ==, 0);
    g_assert_cmpuint (bound, <, info.n_device_outputs);
    post_in[i] = outs[bound].data;
  }
  simnpu_host_section_get_output (post, 0, &spec, NULL);
  g_assert_cmpuint (spec.size_bytes, ==, n_out * sizeof (float));
  post_out[0] = result;
  if (simnpu_host_section_run (post, post_in, post_out, &error) < 0)
    g_error ("postamble: %s", error.message);

  for (i = 0; i < info.n_device_outputs; i++)
    g_free (outs[i].data);
  g_free (q);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  return result;
}

static unsigned
count_ir_ops (const simnpu__ir_graph * g, simnpu__ir_op op)
{
  unsigned i, n = 0;

  for (i = 0; g != NULL && i < g->n_nodes; i++)
    n += g->nodes[i].op == op;
  return n;
}

static void
test_many_device_outputs (void)
{
  GRand *rng = g_rand_new_with_seed (SEED);
  simnpu__ir_graph *g = build (rng);
  GPtrArray *calib = g_ptr_array_new_with_free_func (g_free);
  simnpu__compile_options o;
  simnpu__compile_result r;
  simnpu__graph *dg = NULL;
  simnpu_error error = { 0 };
  float *x, *want, *got;
  double sig = 0.0, noise = 0.0, peak = 0.0, worst = 0.0;
  int64_t n_out, i;
  gchar *path;
  unsigned k;

  if (simnpu__ir_infer_shapes (g, &error) < 0)
    g_error ("infer: %s", error.message);
  for (k = 0; k < N_CALIB; k++)
    g_ptr_array_add (calib, random_input (rng));
  simnpu__compile_options_init (&o);
  o.calibration = calib;
  o.techniques = SIMNPU_TECHNIQUE_NONE;
  o.fallback_db = 0.0;
  if (simnpu__compile (g, &o, &dg, &r, &error) < 0)
    g_error ("compile: %s", error.message);
  /* the conv stays on the device; gathers (of constant indices, which
   * the device runs) and then their reshapes went to the host until the
   * device hands it at most SIMNPU_MAX_IO tensors, the map among them */
  g_assert_cmpuint (dg->n_outputs, <=, SIMNPU_MAX_IO);
  g_assert_cmpuint (dg->n_outputs, >=, 1);
  for (k = 0, i = 0; k < dg->n_outputs; k++)
    i += g_strcmp0 (dg->tensors[dg->outputs[k]].name, "map") == 0;
  g_assert_cmpint (i, ==, 1);
  g_assert_nonnull (dg->postamble);
  for (k = 0, i = 0; k < dg->n_ops; k++)
    i += dg->ops[k].type == SIMNPU_OP_GATHER;
  g_assert_cmpuint (count_ir_ops (dg->postamble, SIMNPU_IR_GATHER) + i, ==,
      N_BRANCH);
  g_assert_cmpuint (count_ir_ops (dg->postamble, SIMNPU_IR_GATHER), >=,
      N_BRANCH - SIMNPU_MAX_IO + 1);
  for (k = 0, i = 0; k < dg->n_ops; k++)
    i += dg->ops[k].type == SIMNPU_OP_CONV2D;
  g_assert_cmpint (i, ==, 1);
  path = write_axm (dg);

  x = random_input (rng);
  want = run_float (g, x, &n_out);
  g_assert_cmpint (n_out, ==, N_BRANCH * PICKS);
  got = run_compiled (path, x, n_out);
  for (i = 0; i < n_out; i++) {
    double e = (double) got[i] - want[i];
    sig += (double) want[i] * want[i];
    noise += e * e;
    peak = MAX (peak, fabs (want[i]));
    worst = MAX (worst, fabs (e));
  }
  g_test_message ("%u device outputs; %.1f dB, worst error %.4f of %.4f",
      dg->n_outputs, 10.0 * log10 (sig / MAX (noise, 1e-30)), worst, peak);
  g_assert_cmpfloat (peak, >, 0.0);
  g_assert_cmpfloat (10.0 * log10 (sig / MAX (noise, 1e-30)), >=, MIN_SQNR_DB);
  g_assert_cmpfloat (worst, <=, MAX_REL_ERR * peak);

  g_unlink (path);
  g_free (path);
  g_free (x);
  g_free (want);
  g_free (got);
  simnpu__compile_result_clear (&r);
  simnpu__graph_free (dg);
  g_ptr_array_unref (calib);
  simnpu__ir_graph_free (g);
  g_rand_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compile-outputs/many-device-outputs",
      test_many_device_outputs);
  return g_test_run ();
}
