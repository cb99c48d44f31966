/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float IR executor (the host sections of a compiled model, the whole
 * float model during calibration) against onnxruntime, both on one
 * thread, on the same ONNX models and the same input:
 *
 *   mobilenet-224   MobileNet v1 (width 1.0) at 224x224: a 3x3 conv, 13
 *                   depthwise 3x3 + pointwise 1x1 blocks with ReLU6,
 *                   global average pool, a 1000-way Gemm and softmax
 *   detector-480    a YOLO-like detector at 480x640: dense 3x3 convs with
 *                   SiLU down to stride 16, a 1x1 bottleneck with a
 *                   residual add, a 1x1 head with sigmoid
 *
 * The models are generated here (deterministic weights) with the
 * protobuf-c API and imported as simnpu-compile imports them (constant
 * folding, transpose cancellation, fusion). Each prints the ms of the
 * fastest of the same number of runs (at least 1.5 s of ours) of ours
 * (timed before and after onnxruntime) and of onnxruntime (npm
 * onnxruntime-node, pinned in bench/simnpu/ort, installed into
 * <data dir>/ort by npm ci), wall time and CPU time (the thread's for
 * ours, the process's for onnxruntime: what the host's other work does
 * not inflate), the ratios
 * (onnxruntime's time over ours: 1 is parity, above 1 we are faster) and
 * the largest difference of the two outputs relative to the output's
 * largest magnitude. Then the executor's ms per run on the TF.js models of
 * the data dir (human/ *.json), which onnxruntime cannot read.
 *
 *   benchmark-simnpu-float DATA_DIR BENCH_DIR [--dump DIR] [--check DIR]
 *        [--profile]
 *
 * --profile prints each model's time per op kind (the share of the run)
 * and its slowest nodes;
 * --dump DIR writes every model's output of our executor to DIR;
 * --check DIR reads them back and prints the largest relative difference
 * of this build's outputs from those (float reassociation between two
 * builds of the kernels). */

#include "compiler.h"
#include "onnx-builder.h"
#include "onnx.pb-c.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define OPSET 13
#define IR_VERSION 8
/* each side runs at least this long and this many times */
#define MIN_RUN_MS 1500.0
#define MIN_RUNS 3
#define MAX_RUNS 200
#define ORT_TIMEOUT_S 600
#define N_CLASSES 1000
#define DET_OUTPUTS 255
#define RELU6_MIN 0.0f
#define RELU6_MAX 6.0f

/* One model: the ONNX builder of the tests, and the generator's state */
typedef struct
{
  onnx_builder ob;
  guint32 seed;
  unsigned counter;
  /* channels of each value the generator made, by name */
  GHashTable *channels;
} builder;

static const char *
fresh (builder * b, const char *prefix)
{
  return onnx_builder_keep (&b->ob, g_strdup_printf ("%s_%u", prefix,
          ++b->counter));
}

/* uniform in [-1, 1), the same on every run */
static float
rnd (builder * b)
{
  b->seed = b->seed * 1664525u + 1013904223u;
  return (float) (b->seed >> 8) / (float) (1u << 23) - 1.0f;
}

static void
builder_init (builder * b, const char *name)
{
  memset (b, 0, sizeof *b);
  onnx_builder_init (&b->ob, OPSET);
  b->ob.model.ir_version = IR_VERSION;
  b->ob.graph.name = (char *) name;
  b->channels = g_hash_table_new (g_str_hash, g_str_equal);
  b->seed = 12345;
}

static void
builder_clear (builder * b)
{
  g_hash_table_unref (b->channels);
  onnx_builder_clear (&b->ob);
}

/* a float initializer of random values times scale */
static const char *
add_init (builder * b, const char *prefix, unsigned rank, const int64_t * dims,
    float scale, float offset)
{
  const char *name = fresh (b, prefix);
  size_t n = 1, i;
  float *v;

  for (i = 0; i < rank; i++)
    n *= dims[i];
  v = g_new (float, n);
  for (i = 0; i < n; i++)
    v[i] = offset + scale * rnd (b);
  onnx_builder_floats (&b->ob, name, rank, dims, v);
  g_free (v);
  return name;
}

static Onnx__NodeProto *
add_node (builder * b, const char *op, unsigned n_in, const char *in0,
    const char *in1, const char *in2, const char *out)
{
  const char *ins[3] = { in0, in1, in2 };
  Onnx__NodeProto *n = onnx_builder_node (&b->ob, op, ins, n_in, out);

  n->name = (char *) fresh (b, op);
  return n;
}

static int64_t
channels_of (builder * b, const char *x)
{
  return GPOINTER_TO_INT (g_hash_table_lookup (b->channels, x));
}

static const char *
set_channels (builder * b, const char *x, int64_t c)
{
  g_hash_table_insert (b->channels, (gpointer) x, GINT_TO_POINTER ((int) c));
  return x;
}

typedef enum
{
  ACT_NONE,
  ACT_RELU6,
  ACT_SILU,
} act_kind;

static const char *
activation (builder * b, const char *x, act_kind act)
{
  int64_t c = channels_of (b, x);
  const char *y;

  if (act == ACT_RELU6) {
    const char *mn = add_init (b, "zero", 0, NULL, 0.0f, RELU6_MIN);
    const char *mx = add_init (b, "six", 0, NULL, 0.0f, RELU6_MAX);
    y = fresh (b, "relu6");
    add_node (b, "Clip", 3, x, mn, mx, y);
  } else if (act == ACT_SILU) {
    const char *s = fresh (b, "sigmoid");
    add_node (b, "Sigmoid", 1, x, NULL, NULL, s);
    y = fresh (b, "silu");
    add_node (b, "Mul", 2, x, s, NULL, y);
  } else {
    return x;
  }
  return set_channels (b, y, c);
}

/* Conv (k x k, stride, pads k / 2, groups) with bias, then act; weights
 * scaled for unit variance of the outputs */
static const char *
conv (builder * b, const char *x, int64_t cout, int64_t k, int64_t stride,
    bool depthwise, act_kind act)
{
  int64_t cin = channels_of (b, x), groups = depthwise ? cin : 1;
  int64_t wd[4] = { cout, cin / groups, k, k }, bd[1] = { cout };
  int64_t pad = k / 2, pads[4] = { pad, pad, pad, pad };
  int64_t kernel[2] = { k, k }, strides[2] = { stride, stride };
  float fan_in = (float) (cin / groups * k * k);
  const char *w = add_init (b, "w", 4, wd, sqrtf (3.0f / fan_in), 0.0f);
  const char *bias = add_init (b, "b", 1, bd, 0.1f, 0.0f);
  const char *y = fresh (b, "conv");
  Onnx__NodeProto *n = add_node (b, "Conv", 3, x, w, bias, y);

  onnx_builder_attr_ints (&b->ob, n, "kernel_shape", kernel, 2);
  onnx_builder_attr_ints (&b->ob, n, "strides", strides, 2);
  onnx_builder_attr_ints (&b->ob, n, "pads", pads, 4);
  onnx_builder_attr_int (&b->ob, n, "group", groups);
  set_channels (b, y, cout);
  return activation (b, y, act);
}

static const char *
input (builder * b, const int64_t * dims)
{
  onnx_builder_input (&b->ob, "input", 4, dims);
  return set_channels (b, "input", dims[1]);
}

static void
output (builder * b, const char *y)
{
  onnx_builder_output (&b->ob, y);
}

static void
build_mobilenet (builder * b, int64_t * in_dims)
{
  /* pointwise channels and stride of the 13 blocks */
  static const int64_t blocks[][2] = {
    {64, 1}, {128, 2}, {128, 1}, {256, 2}, {256, 1}, {512, 2},
    {512, 1}, {512, 1}, {512, 1}, {512, 1}, {512, 1}, {1024, 2}, {1024, 1},
  };
  static const int64_t size = 224, first = 32;
  int64_t dims[4] = { 1, 3, size, size }, one = 1;
  int64_t fcw[2] = { N_CLASSES, 1024 }, fcb[1] = { N_CLASSES };
  const char *x, *p, *f, *y;
  Onnx__NodeProto *n;
  unsigned i;

  builder_init (b, "mobilenet-224");
  memcpy (in_dims, dims, sizeof dims);
  x = input (b, dims);
  x = conv (b, x, first, 3, 2, false, ACT_RELU6);
  for (i = 0; i < G_N_ELEMENTS (blocks); i++) {
    x = conv (b, x, channels_of (b, x), 3, blocks[i][1], true, ACT_RELU6);
    x = conv (b, x, blocks[i][0], 1, 1, false, ACT_RELU6);
  }
  p = fresh (b, "pool");
  add_node (b, "GlobalAveragePool", 1, x, NULL, NULL, p);
  f = fresh (b, "flat");
  n = add_node (b, "Flatten", 1, p, NULL, NULL, f);
  onnx_builder_attr_int (&b->ob, n, "axis", one);
  y = fresh (b, "logits");
  n = add_node (b, "Gemm", 3, f, add_init (b, "fc_w", 2, fcw,
          sqrtf (3.0f / 1024), 0.0f), add_init (b, "fc_b", 1, fcb, 0.1f, 0), y);
  onnx_builder_attr_int (&b->ob, n, "transB", one);
  p = fresh (b, "prob");
  add_node (b, "Softmax", 1, y, NULL, NULL, p);
  output (b, p);
}

static void
build_detector (builder * b, int64_t * in_dims)
{
  int64_t dims[4] = { 1, 3, 480, 640 };
  const char *x, *r, *s;

  builder_init (b, "detector-480");
  memcpy (in_dims, dims, sizeof dims);
  x = input (b, dims);
  x = conv (b, x, 16, 3, 2, false, ACT_SILU);
  x = conv (b, x, 32, 3, 2, false, ACT_SILU);
  x = conv (b, x, 32, 3, 1, false, ACT_SILU);
  x = conv (b, x, 64, 3, 2, false, ACT_SILU);
  x = conv (b, x, 64, 3, 1, false, ACT_SILU);
  /* bottleneck with a residual add */
  r = conv (b, x, 32, 1, 1, false, ACT_SILU);
  r = conv (b, r, 64, 3, 1, false, ACT_SILU);
  s = fresh (b, "add");
  add_node (b, "Add", 2, x, r, NULL, s);
  x = set_channels (b, s, 64);
  x = conv (b, x, 128, 3, 2, false, ACT_SILU);
  x = conv (b, x, 128, 3, 1, false, ACT_SILU);
  x = conv (b, x, DET_OUTPUTS, 1, 1, false, ACT_NONE);
  s = fresh (b, "scores");
  add_node (b, "Sigmoid", 1, x, NULL, NULL, s);
  output (b, s);
}

static gboolean
builder_write (builder * b, const char *path, GError ** error)
{
  size_t len;
  guint8 *buf = onnx_builder_pack (&b->ob, &len);
  gboolean ok = g_file_set_contents (path, (const char *) buf, (gssize) len,
      error);

  g_free (buf);
  return ok;
}

static double
now_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the thread's CPU time: leaves out the time the host gave to other
 * work (and the time a hypervisor stole), which the wall clock keeps */
static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* --profile: ms per op kind and per node over the timed runs */
#define PROFILE_TOP_NODES 5

typedef struct
{
  double last_ms;
  double op_ms[SIMNPU_IR_N_OPS];
  double *node_ms;              /* per node */
} op_profile;

static gboolean profile_ops;

static void
profile_observe (simnpu__ir_exec * x, const simnpu__ir_node * n,
    gpointer user_data)
{
  op_profile *p = user_data;
  double t = now_ms ();

  p->op_ms[n->op] += t - p->last_ms;
  p->node_ms[n - simnpu__ir_exec_graph (x)->nodes] += t - p->last_ms;
  p->last_ms = t;
}

static void
profile_print (const op_profile * p, const simnpu__ir_graph * g, int runs,
    double total_ms)
{
  bool *shown = g_new0 (bool, MAX (g->n_nodes, 1));
  unsigned i, k;
  int op;

  for (op = 0; op < SIMNPU_IR_N_OPS; op++)
    if (p->op_ms[op] > 0.005 * total_ms * runs)
      g_print ("    %-16s %8.2f ms/run %5.1f %%\n", simnpu__ir_op_name (op),
          p->op_ms[op] / runs, 100.0 * p->op_ms[op] / (total_ms * runs));
  /* the slowest nodes, with their output's shape */
  for (k = 0; k < PROFILE_TOP_NODES && k < g->n_nodes; k++) {
    const simnpu__ir_tensor *t;
    int best = -1;
    unsigned d;
    for (i = 0; i < g->n_nodes; i++)
      if (!shown[i] && (best < 0 || p->node_ms[i] > p->node_ms[best]))
        best = (int) i;
    shown[best] = true;
    t = &g->tensors[g->nodes[best].outputs[0]];
    g_print ("      %8.2f ms/run %-10s ", p->node_ms[best] / runs,
        simnpu__ir_op_name (g->nodes[best].op));
    for (d = 0; d < t->rank; d++)
      g_print ("%s%" G_GINT64_FORMAT, d > 0 ? "x" : "", t->dims[d]);
    if (g->nodes[best].n_inputs > 1
        && g->nodes[best].inputs[1] != SIMNPU_IR_NONE) {
      const simnpu__ir_tensor *w = &g->tensors[g->nodes[best].inputs[1]];
      g_print (" (");
      for (d = 0; d < w->rank; d++)
        g_print ("%s%" G_GINT64_FORMAT, d > 0 ? "x" : "", w->dims[d]);
      g_print (")");
    }
    g_print (" %s\n", g->nodes[best].name);
  }
  g_free (shown);
}

/* Our executor on one model: ms of the fastest run (the one least
 * disturbed by other work on the host); its first output copied to *out
 * (g_free) */
static double
run_ours (const char *path, const float *in, int64_t in_n, float **out,
    int64_t * out_n, int *runs_out, double *cpu_out)
{
  simnpu_error error = { 0 };
  simnpu__ir_graph *g = NULL;
  simnpu__ir_exec *x;
  const simnpu__ir_tensor *ti, *to;
  double t0, ms;
  int runs = 0;
  op_profile prof = { 0 };

  if (simnpu__import_model (path, NULL, NULL, &g, &error) < 0) {
    g_printerr ("%s: %s\n", path, error.message);
    return -1;
  }
  ti = &g->tensors[g->inputs[0]];
  to = &g->tensors[g->outputs[0]];
  if (ti->dtype != SIMNPU_IR_F32 || to->dtype != SIMNPU_IR_F32
      || simnpu__ir_tensor_elements (ti) != in_n) {
    g_printerr ("%s: expected a float input of %" G_GINT64_FORMAT
        " elements and a float output\n", path, in_n);
    simnpu__ir_graph_free (g);
    return -1;
  }
  x = simnpu__ir_exec_new (g, &error);
  if (x == NULL) {
    g_printerr ("%s: %s\n", path, error.message);
    simnpu__ir_graph_free (g);
    return -1;
  }
  memcpy (simnpu__ir_exec_data (x, g->inputs[0]), in,
      (size_t) in_n * sizeof (float));
  /* the first run maps the buffers; not timed, as onnxruntime's */
  if (simnpu__ir_exec_run (x, 0, g->n_nodes, &error) < 0)
    goto fail;
  prof.node_ms = g_new0 (double, MAX (g->n_nodes, 1));
  if (profile_ops)
    simnpu__ir_exec_set_observer (x, profile_observe, &prof);
  t0 = now_ms ();
  ms = INFINITY;
  *cpu_out = INFINITY;
  do {
    double t = now_ms (), c = cpu_ms ();
    prof.last_ms = t;
    if (simnpu__ir_exec_run (x, 0, g->n_nodes, &error) < 0)
      goto fail;
    *cpu_out = MIN (*cpu_out, cpu_ms () - c);
    ms = MIN (ms, now_ms () - t);
    runs++;
  } while (runs < MAX_RUNS && (runs < MIN_RUNS || now_ms () - t0 < MIN_RUN_MS));
  if (profile_ops)
    profile_print (&prof, g, runs, (now_ms () - t0) / runs);
  *out_n = simnpu__ir_tensor_elements (to);
  *out = g_memdup2 (simnpu__ir_exec_data (x, g->outputs[0]),
      (size_t) *out_n * sizeof (float));
  *runs_out = runs;
  g_free (prof.node_ms);
  simnpu__ir_exec_free (x);
  simnpu__ir_graph_free (g);
  return ms;
fail:
  g_printerr ("%s: %s\n", path, error.message);
  g_free (prof.node_ms);
  simnpu__ir_exec_free (x);
  simnpu__ir_graph_free (g);
  return -1;
}

/* npm ci of the pinned onnxruntime-node into DATA_DIR/ort, unless the
 * installed lockfile is the committed one. The package's install script
 * only fetches GPU providers, which this benchmark does not use: it is
 * skipped (the CPU library ships in the package). */
static char *
ort_install (const char *data_dir, const char *bench_dir)
{
  char *dst = g_build_filename (data_dir, "ort", NULL);
  char *src_pkg = g_build_filename (bench_dir, "ort", "package.json", NULL);
  char *src_lock = g_build_filename (bench_dir, "ort", "package-lock.json",
      NULL);
  char *dst_pkg = g_build_filename (dst, "package.json", NULL);
  char *dst_lock = g_build_filename (dst, "package-lock.json", NULL);
  char *marker = g_build_filename (dst, "node_modules", ".package-lock.json",
      NULL);
  char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *err = NULL;
  gsize na, nb, nc, nd;
  gboolean same;
  int status = 0;
  GError *error = NULL;

  if (!g_file_get_contents (src_pkg, &a, &na, &error)
      || !g_file_get_contents (src_lock, &b, &nb, &error)) {
    g_printerr ("onnxruntime baseline unavailable: %s\n", error->message);
    goto unavailable;
  }
  same = g_file_test (marker, G_FILE_TEST_EXISTS)
      && g_file_get_contents (dst_pkg, &c, &nc, NULL)
      && g_file_get_contents (dst_lock, &d, &nd, NULL)
      && na == nc && nb == nd && memcmp (a, c, na) == 0
      && memcmp (b, d, nb) == 0;
  if (!same) {
    /* in the directory, not with --prefix, which npm 11 resolves
     * against the wrong package.json for a relative data dir */
    const char *argv[] = { "npm", "ci", "--no-audit", "--no-fund",
      "--silent", "--ignore-scripts", NULL
    };
    g_print ("installing onnxruntime-node into %s (npm ci) ...\n", dst);
    if (g_mkdir_with_parents (dst, 0755) < 0
        || !g_file_set_contents (dst_pkg, a, (gssize) na, &error)
        || !g_file_set_contents (dst_lock, b, (gssize) nb, &error)
        || !g_spawn_sync (dst, (char **) argv, NULL, G_SPAWN_SEARCH_PATH
            | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status,
            &error) || !g_spawn_check_wait_status (status, &error)) {
      g_printerr ("onnxruntime baseline unavailable: npm ci in %s: %s%s\n",
          dst, error != NULL ? error->message : "failed",
          err != NULL ? err : "");
      goto unavailable;
    }
  }
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
  g_free (err);
  g_free (src_pkg);
  g_free (src_lock);
  g_free (dst_pkg);
  g_free (dst_lock);
  g_free (marker);
  return dst;
unavailable:
  g_clear_error (&error);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
  g_free (err);
  g_free (src_pkg);
  g_free (src_lock);
  g_free (dst_pkg);
  g_free (dst_lock);
  g_free (marker);
  g_free (dst);
  return NULL;
}

/* onnxruntime on one model: ms per run, output read back into *out */
static double
run_ort (const char *bench_dir, const char *modules, const char *model,
    const char *in_path, const char *out_path, const int64_t * dims,
    int runs, float **out, int64_t * out_n, double *cpu_out)
{
  char *script = g_build_filename (bench_dir, "ort-run.mjs", NULL);
  char *shape = g_strdup_printf ("%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT
      ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, dims[0], dims[1], dims[2],
      dims[3]);
  char *nruns = g_strdup_printf ("%d", runs);
  char *timeout = g_strdup_printf ("%d", ORT_TIMEOUT_S);
  const char *argv[] = { "timeout", timeout, "node", script, model, in_path,
    out_path, "--shape", shape, "--runs", nruns, "--modules", modules, NULL
  };
  char *so = NULL, *se = NULL, *at, *data = NULL;
  double ms = -1;
  gsize len;
  int status;
  GError *error = NULL;

  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
          NULL, &so, &se, &status, &error)
      || !g_spawn_check_wait_status (status, &error)) {
    g_printerr ("onnxruntime on %s failed: %s\n%s", model,
        error->message, se != NULL ? se : "");
    goto done;
  }
  at = strstr (so, "\"ms_per_run\":");
  if (at == NULL || sscanf (at + strlen ("\"ms_per_run\":"), "%lf", &ms) != 1
      || !g_file_get_contents (out_path, &data, &len, &error)) {
    g_printerr ("onnxruntime on %s: no time or output in '%s'%s\n", model,
        so, error != NULL ? error->message : "");
    ms = -1;
    goto done;
  }
  *out = (float *) data;
  *out_n = (int64_t) (len / sizeof (float));
  at = strstr (so, "\"cpu_ms\":");
  if (at == NULL || sscanf (at + strlen ("\"cpu_ms\":"), "%lf", cpu_out) != 1)
    *cpu_out = -1;
done:
  g_clear_error (&error);
  g_free (so);
  g_free (se);
  g_free (script);
  g_free (shape);
  g_free (nruns);
  g_free (timeout);
  return ms;
}

/* the largest |a - b| over the largest |b| */
static double
max_rel_diff (const float *a, const float *b, int64_t n)
{
  double d = 0, m = 0;
  int64_t i;

  for (i = 0; i < n; i++) {
    double e = fabs ((double) a[i] - b[i]);
    if (isnan (e))
      return INFINITY;
    d = MAX (d, e);
    m = MAX (m, fabs ((double) b[i]));
  }
  return m > 0 ? d / m : d;
}

/* --dump writes, --check compares */
static void
dump_or_check (const char *dump, const char *check, const char *name,
    const float *y, int64_t n)
{
  char *file = g_strdup_printf ("%s.f32", name), *path;
  GError *error = NULL;
  char *data;
  gsize len;

  if (dump != NULL) {
    path = g_build_filename (dump, file, NULL);
    if (!g_file_set_contents (path, (const char *) y,
            (gssize) (n * (int64_t) sizeof (float)), &error))
      g_printerr ("%s\n", error->message);
    g_free (path);
  }
  if (check != NULL) {
    path = g_build_filename (check, file, NULL);
    if (!g_file_get_contents (path, &data, &len, &error))
      g_printerr ("%s\n", error->message);
    else if (len != (gsize) n * sizeof (float))
      g_printerr ("%s: %zu bytes, expected %zu\n", path, (size_t) len,
          (size_t) n * sizeof (float));
    else {
      g_print ("    vs %s: max rel diff %.3g\n", path,
          max_rel_diff (y, (const float *) data, n));
    }
    g_free (data);
    g_free (path);
  }
  g_clear_error (&error);
  g_free (file);
}

static void
fill_input (float *in, int64_t n)
{
  guint32 s = 777;
  int64_t i;

  for (i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    in[i] = (float) (s >> 8) / (float) (1u << 24);
  }
}

static int
bench_onnx (const char *tmp, const char *bench_dir, const char *modules,
    const char *dump, const char *check, const char *name,
    void (*build) (builder *, int64_t *))
{
  char *model = g_strdup_printf ("%s/%s.onnx", tmp, name);
  char *in_path = g_strdup_printf ("%s/%s.in.f32", tmp, name);
  char *out_path = g_strdup_printf ("%s/%s.ort.f32", tmp, name);
  float *in = NULL, *ours = NULL, *theirs = NULL;
  int64_t dims[4], n, on = 0, tn = 0;
  double ms, ort_ms, cpu = 0, ort_cpu = -1;
  int runs = 0, ret = -1;
  GError *error = NULL;
  builder b;

  build (&b, dims);
  if (!builder_write (&b, model, &error))
    goto done;
  n = dims[0] * dims[1] * dims[2] * dims[3];
  in = g_new (float, n);
  fill_input (in, n);
  if (!g_file_set_contents (in_path, (const char *) in,
          (gssize) (n * (int64_t) sizeof (float)), &error))
    goto done;
  ms = run_ours (model, in, n, &ours, &on, &runs, &cpu);
  if (ms < 0)
    goto done;
  ort_ms = modules != NULL ? run_ort (bench_dir, modules, model, in_path,
      out_path, dims, runs, &theirs, &tn, &ort_cpu) : -1;
  /* ours again after onnxruntime, so that both sides had the host's load
   * of the same span */
  if (modules != NULL) {
    float *again = NULL;
    int64_t an = 0;
    double cpu2, ms2 = run_ours (model, in, n, &again, &an, &runs, &cpu2);
    if (ms2 >= 0) {
      ms = MIN (ms, ms2);
      cpu = MIN (cpu, cpu2);
    }
    g_free (again);
  }
  g_print ("%-14s simnpu float %7.2f ms (cpu %7.2f)", name, ms, cpu);
  if (ort_ms >= 0) {
    g_print ("  onnxruntime %7.2f ms (cpu %7.2f)  ratio %.2f (cpu %.2f)",
        ort_ms, ort_cpu, ort_ms / ms, ort_cpu / cpu);
    if (tn == on)
      g_print ("  max rel diff %.3g\n", max_rel_diff (ours, theirs, on));
    else
      g_print ("  outputs differ in size: %" G_GINT64_FORMAT " vs %"
          G_GINT64_FORMAT "\n", on, tn);
  } else {
    g_print ("  onnxruntime unavailable\n");
  }
  dump_or_check (dump, check, name, ours, on);
  ret = 0;
done:
  if (error != NULL)
    g_printerr ("%s: %s\n", name, error->message);
  g_clear_error (&error);
  builder_clear (&b);
  g_free (in);
  g_free (ours);
  g_free (theirs);
  g_free (model);
  g_free (in_path);
  g_free (out_path);
  return ret;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
bench_tfjs (const char *data_dir, const char *dump, const char *check)
{
  char *dir = g_build_filename (data_dir, "human", NULL);
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *f;
  unsigned i;

  if (d == NULL) {
    g_print ("no TF.js models in %s: skipped\n", dir);
    goto done;
  }
  while ((f = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (f, ".json"))
      g_ptr_array_add (names, g_strdup (f));
  g_dir_close (d);
  g_ptr_array_sort (names, compare_names);
  for (i = 0; i < names->len; i++) {
    char *path = g_build_filename (dir, names->pdata[i], NULL);
    char *name = g_strndup (names->pdata[i],
        strlen (names->pdata[i]) - strlen (".json"));
    simnpu_error error = { 0 };
    simnpu__ir_graph *g = NULL;
    float *in, *out = NULL;
    int64_t n, on = 0;
    double ms, cpu;
    int runs = 0;

    if (simnpu__import_model (path, NULL, NULL, &g, &error) < 0) {
      g_print ("%-14s %s\n", name, error.message);
      goto next;
    }
    n = simnpu__ir_tensor_elements (&g->tensors[g->inputs[0]]);
    simnpu__ir_graph_free (g);
    in = g_new (float, MAX (n, 1));
    fill_input (in, n);
    ms = run_ours (path, in, n, &out, &on, &runs, &cpu);
    g_free (in);
    if (ms >= 0) {
      g_print ("%-14s simnpu float %7.2f ms (cpu %7.2f) (TF.js model)\n",
          name, ms, cpu);
      dump_or_check (dump, check, name, out, on);
    }
    g_free (out);
  next:
    g_free (path);
    g_free (name);
  }
done:
  g_ptr_array_unref (names);
  g_free (dir);
}

int
main (int argc, char **argv)
{
  const char *dump = NULL, *check = NULL;
  char *tmp, *modules;
  GError *error = NULL;
  int i, ret = 0;

  if (argc < 3) {
    g_printerr ("usage: %s DATA_DIR BENCH_DIR [--dump DIR] [--check DIR] "
        "[--profile]\n", argv[0]);
    return 2;
  }
  for (i = 3; i < argc; i += 2) {
    if (strcmp (argv[i], "--profile") == 0) {
      profile_ops = TRUE;
      i--;
    } else if (i + 1 >= argc) {
      g_printerr ("%s needs a value\n", argv[i]);
      return 2;
    } else if (strcmp (argv[i], "--dump") == 0)
      dump = argv[i + 1];
    else if (strcmp (argv[i], "--check") == 0)
      check = argv[i + 1];
    else {
      g_printerr ("unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (dump != NULL)
    g_mkdir_with_parents (dump, 0755);
  tmp = g_dir_make_tmp ("simnpu-float-XXXXXX", &error);
  if (tmp == NULL) {
    g_printerr ("%s\n", error->message);
    g_error_free (error);
    return 1;
  }
  modules = ort_install (argv[1], argv[2]);
  g_print ("one thread each, ms of the fastest run (wall, cpu); ratio = "
      "onnxruntime's ms / ours (>= 1: we are as fast or faster)\n");
  ret |= bench_onnx (tmp, argv[2], modules, dump, check, "mobilenet-224",
      build_mobilenet);
  ret |= bench_onnx (tmp, argv[2], modules, dump, check, "detector-480",
      build_detector);
  bench_tfjs (argv[1], dump, check);
  {
    GDir *d = g_dir_open (tmp, 0, NULL);
    const char *f;
    while (d != NULL && (f = g_dir_read_name (d)) != NULL) {
      char *p = g_build_filename (tmp, f, NULL);
      g_unlink (p);
      g_free (p);
    }
    if (d != NULL)
      g_dir_close (d);
    g_rmdir (tmp);
  }
  g_free (tmp);
  g_free (modules);
  return ret != 0 ? 1 : 0;
}
