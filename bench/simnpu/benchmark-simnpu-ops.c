/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The memory-bound device ops of sim-npu against the machine's copy
 * bandwidth, measured in the same run:
 *
 * 1. per op class on a realistic shape (a one-op graph from JSON, run by
 *    the interpreter): GB/s of the bytes read and written, its ratio to
 *    memcpy of the same bytes (target >= 0.5) and, where there is one,
 *    to a straightforward C loop of the op's definition;
 * 2. the interpreter's overhead: a one-op depthwise conv graph against
 *    the direct kernel call on the same prepared parameters (target
 *    graph / kernel <= 1.05);
 * 3. with .axm paths (or directories of them) as arguments, the
 *    memory-bound ops of those models, as 1, summed by op type.
 *
 * Best of REPEATS repetitions throughout, in thread CPU time. */

#include "simnpu-file.h"
#include "simnpu-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEATS 9
/* one repetition runs the op for at least this long */
#define MIN_REP_NS 2000000
#define SEED 20261201
#define BYTES_PER_GB 1e9
/* the copy-bandwidth target of the memory-bound ops */
#define TARGET_RATIO 0.5
/* the overhead target of the interpreter */
#define TARGET_OVERHEAD 1.05
#define MAX_OPS_PER_TYPE 64
#define UNIT_MULT (G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT)

static GRand *rng;

/* the thread's CPU time: on a machine shared with other jobs, time spent
 * preempted is not the kernel's */
static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * SIMNPU_NS_PER_S + (uint64_t) ts.tv_nsec;
}

typedef void (*work_fn) (void *arg);

/* best time of one call of fn, in ns */
static double
best_ns (work_fn fn, void *arg)
{
  uint64_t t0, t;
  unsigned iters = 1, i, r;
  double best = INFINITY;

  /* calibrate: enough calls that a repetition lasts MIN_REP_NS */
  for (;;) {
    t0 = now_ns ();
    for (i = 0; i < iters; i++)
      fn (arg);
    t = now_ns () - t0;
    if (t >= MIN_REP_NS || iters >= (1u << 24))
      break;
    iters *= 2;
  }
  for (r = 0; r < REPEATS; r++) {
    t0 = now_ns ();
    for (i = 0; i < iters; i++)
      fn (arg);
    t = now_ns () - t0;
    best = MIN (best, (double) t / iters);
  }
  return best;
}

/* ---------------- memcpy baseline ---------------- */

typedef struct
{
  uint8_t *src, *dst;
  size_t n;
} copy_arg;

static void
run_copy (void *p)
{
  copy_arg *c = p;

  memcpy (c->dst, c->src, c->n);
  /* keep the copy from being elided */
  __asm__ __volatile__ ("":::"memory");
}

/* GB/s of memcpy moving `traffic` bytes in total (half read, half
 * written) */
static double
memcpy_gbps (size_t traffic)
{
  copy_arg c;
  double ns;

  c.n = MAX (traffic / 2, 1);
  c.src = g_malloc (c.n);
  c.dst = g_malloc (c.n);
  memset (c.src, 1, c.n);
  memset (c.dst, 2, c.n);
  ns = best_ns (run_copy, &c);
  g_free (c.src);
  g_free (c.dst);
  return 2.0 * (double) c.n / ns;
}

/* ---------------- one-op graphs ---------------- */

static gchar *
shape_json (const int64_t * d)
{
  return g_strdup_printf ("[%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %"
      G_GINT64_FORMAT ", %" G_GINT64_FORMAT "]", (gint64) d[0], (gint64) d[1],
      (gint64) d[2], (gint64) d[3]);
}

static gchar *
input_json (const char *name, const int64_t * d, float scale, int zp)
{
  gchar *s = shape_json (d);
  gchar *j = g_strdup_printf ("{\"name\": \"%s\", \"shape\": %s, "
      "\"dtype\": \"i8\", \"scale\": %.9g, \"zero_point\": %d}", name, s,
      scale, zp);

  g_free (s);
  return j;
}

/* a graph of inputs x (and y when d2), one op and output z */
static gchar *
op_graph (const char *type, const int64_t * d1, float s1, int z1,
    const int64_t * d2, float s2, int z2, const char *attrs, float so,
    int zo, const char *extra)
{
  gchar *x = input_json ("x", d1, s1, z1);
  gchar *y = d2 ? input_json ("y", d2, s2, z2) : g_strdup ("");
  gchar *j = g_strdup_printf ("{\"format\": \"simnpu-graph\", \"version\": "
      "1, \"name\": \"ops\", \"inputs\": [%s%s%s], \"outputs\": "
      "[{\"name\": \"z\", \"dtype\": \"i8\", \"scale\": %.9g, "
      "\"zero_point\": %d}], \"ops\": [{\"name\": \"op\", \"type\": \"%s\", "
      "\"inputs\": [\"x\"%s], \"outputs\": [\"z\"], \"attrs\": {%s}, "
      "\"quant\": {\"scale\": %.9g, \"zero_point\": %d}%s}]}", x,
      d2 ? ", " : "", y, so, zo, type, d2 ? ", \"y\"" : "", attrs ? attrs :
      "", so, zo, extra ? extra : "");

  g_free (x);
  g_free (y);
  return j;
}

static simnpu__graph *
load_graph (const char *json)
{
  simnpu__graph *g = NULL;
  simnpu_error error = { 0 };

  if (simnpu__graph_load_json_data (json, strlen (json), ".", false, &g,
          &error) < 0 || simnpu__graph_prepare (g, &error) < 0) {
    g_printerr ("graph: %s\n%s\n", error.message, json);
    exit (1);
  }
  return g;
}

static void
fill_random (void *p, size_t n)
{
  uint8_t *b = p;
  size_t i;

  for (i = 0; i < n; i++)
    b[i] = (uint8_t) g_rand_int (rng);
}

/* a graph ready to run: its arena (inputs random) and scratch */
typedef struct
{
  simnpu__graph *g;
  simnpu__graph one;            /* a view of g's op `op` alone */
  uint8_t *arena;
  int8_t *scratch;
} graph_run;

static void
graph_run_init (graph_run * r, simnpu__graph * g)
{
  r->g = g;
  r->one = *g;
  r->arena = g_malloc (MAX (g->arena_bytes, 1));
  r->scratch = g_malloc (MAX (g->scratch_bytes, 1));
  fill_random (r->arena, g->arena_bytes);
}

static void
graph_run_clear (graph_run * r)
{
  g_free (r->arena);
  g_free (r->scratch);
  simnpu__graph_free (r->g);
}

static void
run_graph (void *p)
{
  graph_run *r = p;

  if (simnpu__graph_run (&r->one, r->arena, r->scratch) < 0)
    abort ();
}

/* bytes an op reads (all its inputs, constants included) and writes */
static size_t
op_traffic (const simnpu__graph * g, const simnpu__op * op)
{
  size_t bytes = 0;
  unsigned i;

  for (i = 0; i < op->n_inputs; i++)
    bytes += simnpu__tensor_bytes (&g->tensors[op->inputs[i]]);
  for (i = 0; i < op->n_outputs; i++)
    bytes += simnpu__tensor_bytes (&g->tensors[op->outputs[i]]);
  return bytes;
}

/* copy_ns: memcpy's time for the same bytes, or 0 to measure it here */
static void
print_row_copy (const char *name, size_t traffic, double ns, double ref_ns,
    double copy_ns)
{
  double gbps = (double) traffic / ns;
  double copy = copy_ns > 0 ? (double) traffic / copy_ns :
      memcpy_gbps (traffic);
  double ratio = gbps / copy;

  printf ("  %-34s %9.1f us %7.2f GB/s  memcpy %6.2f GB/s  ratio %5.2f%s",
      name, ns / 1000.0, gbps * (1e9 / BYTES_PER_GB), copy, ratio,
      ratio >= TARGET_RATIO ? "" : " (< 0.5)");
  if (ref_ns > 0)
    printf ("  vs plain C x%.2f", ref_ns / ns);
  printf ("\n");
}

static void
print_row (const char *name, size_t traffic, double ns, double ref_ns)
{
  print_row_copy (name, traffic, ns, ref_ns, 0);
}

/* ---------------- plain C loops of the definitions ---------------- */

typedef struct
{
  const int8_t *a, *b;
  int8_t *out;
  const int64_t *da, *db, *dout;
  int32_t za, zb, zo;
  int64_t ma, mb;
  int kind;
  const int8_t *lut;
} ref_arg;

enum
{
  REF_ADD,
  REF_MUL,
  REF_MAX,
  REF_LUT,
  REF_REQUANT,
  REF_MAXPOOL2
};

static int8_t
clamp8 (int64_t v)
{
  return (int8_t) CLAMP (v, -128, 127);
}

static void
run_ref (void *p)
{
  ref_arg *r = p;
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  const int64_t *d = r->dout;
  int64_t i0, i1, i2, i3, n = d[0] * d[1] * d[2] * d[3], i;

  switch (r->kind) {
    case REF_LUT:
      for (i = 0; i < n; i++)
        r->out[i] = r->lut[(uint8_t) (r->a[i] + 128)];
      return;
    case REF_REQUANT:
      for (i = 0; i < n; i++)
        r->out[i] = clamp8 ((((r->a[i] - r->za) * r->ma + round)
                >> SIMNPU_ELTWISE_SHIFT) + r->zo);
      return;
    case REF_MAXPOOL2:
      for (i0 = 0; i0 < d[0]; i0++)
        for (i1 = 0; i1 < d[1]; i1++)
          for (i2 = 0; i2 < d[2]; i2++)
            for (i3 = 0; i3 < d[3]; i3++) {
              const int64_t *di = r->da;
              const int8_t *s = r->a + ((i0 * di[1] + 2 * i1) * di[2]
                  + 2 * i2) * di[3] + i3;
              int32_t m = MAX (MAX (s[0], s[di[3]]), MAX (s[di[2] * di[3]],
                      s[di[2] * di[3] + di[3]]));
              r->out[((i0 * d[1] + i1) * d[2] + i2) * d[3] + i3] = (int8_t) m;
            }
      return;
    default:
      break;
  }
  for (i0 = 0; i0 < d[0]; i0++)
    for (i1 = 0; i1 < d[1]; i1++)
      for (i2 = 0; i2 < d[2]; i2++)
        for (i3 = 0; i3 < d[3]; i3++) {
          const int64_t *da = r->da, *db = r->db;
          int64_t a = r->a[(((i0 % da[0]) * da[1] + i1 % da[1]) * da[2]
                  + i2 % da[2]) * da[3] + i3 % da[3]] - r->za;
          int64_t b = r->b[(((i0 % db[0]) * db[1] + i1 % db[1]) * db[2]
                  + i2 % db[2]) * db[3] + i3 % db[3]] - r->zb;
          int64_t v = r->kind == REF_ADD ? a * r->ma + b * r->mb :
              r->kind == REF_MUL ? a * b * r->ma : MAX (a * r->ma, b * r->mb);
          *r->out++ = clamp8 (((v + round) >> SIMNPU_ELTWISE_SHIFT) + r->zo);
        }
  r->out -= n;
}

/* times the graph's only op and, with kind >= 0, the plain C loop on the
 * same tensors */
static void
bench_graph (const char *name, gchar * json, int kind)
{
  graph_run r;
  const simnpu__op *op;
  double ns, ref_ns = 0;
  /* SIMNPU_BENCH_OPS_FILTER: only the ops whose name contains it */
  const char *filter = g_getenv ("SIMNPU_BENCH_OPS_FILTER");

  if (filter != NULL && strstr (name, filter) == NULL) {
    g_free (json);
    return;
  }
  graph_run_init (&r, load_graph (json));
  g_free (json);
  op = &r.g->ops[0];
  ns = best_ns (run_graph, &r);
  if (kind >= 0) {
    ref_arg a = { 0 };
    const simnpu__tensor *x = &r.g->tensors[op->inputs[0]];
    const simnpu__tensor *z = &r.g->tensors[op->outputs[0]];
    int64_t da[4], db[4], dz[4];
    unsigned k;
    for (k = 0; k < 4; k++) {
      da[k] = x->dims[k];
      dz[k] = z->dims[k];
      db[k] = op->n_inputs > 1 ? r.g->tensors[op->inputs[1]].dims[k] : 1;
    }
    a.a = (const int8_t *) (r.arena + x->offset);
    a.b = op->n_inputs > 1 ?
        (const int8_t *) (r.arena + r.g->tensors[op->inputs[1]].offset) : NULL;
    a.out = (int8_t *) (r.arena + z->offset);
    a.da = da;
    a.db = db;
    a.dout = dz;
    a.za = x->zero_point;
    a.zb = op->n_inputs > 1 ? r.g->tensors[op->inputs[1]].zero_point : 0;
    a.zo = z->zero_point;
    a.ma = op->eltwise_mult[0];
    a.mb = op->eltwise_mult[1];
    a.kind = kind;
    a.lut = op->lut;
    ref_ns = best_ns (run_ref, &a);
  }
  print_row (name, op_traffic (r.g, op), ns, ref_ns);
  graph_run_clear (&r);
}

static void
bench_ops (void)
{
  static const int64_t big[4] = { 1, 128, 128, 24 };
  static const int64_t mid[4] = { 1, 64, 64, 128 };
  static const int64_t chan[4] = { 1, 1, 1, 128 };
  static const int64_t deep[4] = { 1, 32, 32, 672 };
  static const int64_t chan672[4] = { 1, 1, 1, 672 };
  static const int64_t row[4] = { 1, 64, 64, 1 };
  static const int64_t half[4] = { 1, 64, 64, 64 };
  static const int64_t small[4] = { 1, 32, 32, 128 };
  static const int64_t gap[4] = { 1, 8, 8, 960 };
  const char *const luts[] = { "sigmoid", "tanh", "hard_swish", "relu" };
  unsigned i;

  printf ("memory-bound ops (one-op graphs), GB/s of bytes read + written, "
      "best of %d; ratio = to memcpy of the same bytes (target >= %.2f)\n",
      REPEATS, TARGET_RATIO);
  bench_graph ("add 64x64x128", op_graph ("add", mid, 0.05f, 3, mid, 0.07f,
          -5, NULL, 0.1f, 2, NULL), REF_ADD);
  bench_graph ("add 64x64x128 + 1x1x128", op_graph ("add", mid, 0.05f, 3,
          chan, 0.07f, -5, NULL, 0.1f, 2, NULL), REF_ADD);
  bench_graph ("add 64x64x128 + 64x64x1", op_graph ("add", mid, 0.05f, 3,
          row, 0.07f, -5, NULL, 0.1f, 2, NULL), REF_ADD);
  bench_graph ("add 128x128x24", op_graph ("add", big, 0.05f, 3, big, 0.05f,
          3, NULL, 0.08f, -1, NULL), REF_ADD);
  bench_graph ("sub 64x64x128", op_graph ("sub", mid, 0.05f, 3, mid, 0.07f,
          -5, NULL, 0.1f, 2, NULL), -1);
  bench_graph ("mul 64x64x128", op_graph ("mul", mid, 0.05f, 3, mid, 0.07f,
          -5, NULL, 0.1f, 2, NULL), REF_MUL);
  bench_graph ("mul 32x32x672 * 1x1x672", op_graph ("mul", deep, 0.05f, 3,
          chan672, 1.0f / 256, -128, NULL, 0.05f, 1, NULL), REF_MUL);
  bench_graph ("maximum 64x64x128", op_graph ("maximum", mid, 0.05f, 3, mid,
          0.07f, -5, NULL, 0.1f, 2, NULL), REF_MAX);
  bench_graph ("maximum 64x64x128 same quant", op_graph ("maximum", mid,
          0.05f, 3, mid, 0.05f, 3, NULL, 0.05f, 3, NULL), REF_MAX);
  bench_graph ("minimum 64x64x128 + 1x1x128", op_graph ("minimum", mid,
          0.05f, 3, chan, 0.07f, -5, NULL, 0.1f, 2, NULL), -1);
  for (i = 0; i < G_N_ELEMENTS (luts); i++) {
    gchar *name = g_strdup_printf ("%s 128x128x24", luts[i]);
    bench_graph (name, op_graph (luts[i], big, 0.05f, 3, NULL, 0, 0, NULL,
            i == 0 ? 1.0f / 256 : 0.04f, i == 0 ? -128 : 0, NULL), REF_LUT);
    g_free (name);
  }
  bench_graph ("concat 64x64x64 x2 (requant)", op_graph ("concat", half,
          0.05f, 3, half, 0.07f, -5, "\"axis\": 3", 0.1f, 2, NULL), -1);
  bench_graph ("concat 64x64x64 x2 (same quant)", op_graph ("concat", half,
          0.05f, 3, half, 0.05f, 3, "\"axis\": 3", 0.05f, 3, NULL), -1);
  bench_graph ("slice 64x64x128 -> 64x64x64", op_graph ("slice", mid, 0.05f,
          3, NULL, 0, 0, "\"begin\": [0, 0, 0, 32], \"size\": [1, 64, 64, 64]",
          0.05f, 3, NULL), -1);
  bench_graph ("maxpool 2x2 128x128x24", op_graph ("maxpool", big, 0.05f, 3,
          NULL, 0, 0, "\"kernel\": [2, 2], \"stride\": [2, 2]", 0.05f, 3,
          NULL), REF_MAXPOOL2);
  bench_graph ("avgpool 2x2 128x128x24", op_graph ("avgpool", big, 0.05f, 3,
          NULL, 0, 0, "\"kernel\": [2, 2], \"stride\": [2, 2]", 0.05f, 3,
          NULL), -1);
  bench_graph ("maxpool 3x3/2 pad 1 128x128x24", op_graph ("maxpool", big,
          0.05f, 3, NULL, 0, 0, "\"kernel\": [3, 3], \"stride\": [2, 2], "
          "\"pad\": [1, 1, 1, 1]", 0.05f, 3, NULL), -1);
  bench_graph ("maxpool 5x5/1 pad 2 32x32x128", op_graph ("maxpool", small,
          0.05f, 3, NULL, 0, 0, "\"kernel\": [5, 5], \"pad\": [2, 2, 2, 2]",
          0.05f, 3, NULL), -1);
  bench_graph ("resize nearest 2x 32x32x128", op_graph ("resize", small,
          0.05f, 3, NULL, 0, 0, "\"scale\": [2, 2]", 0.05f, 3, NULL), -1);
  bench_graph ("resize nearest 2x 32x32x128 rq", op_graph ("resize", small,
          0.05f, 3, NULL, 0, 0, "\"scale\": [2, 2]", 0.06f, -3, NULL), -1);
  bench_graph ("resize bilinear 2x 32x32x128", op_graph ("resize", small,
          0.05f, 3, NULL, 0, 0, "\"scale\": [2, 2], \"mode\": \"bilinear\"",
          0.05f, 3, NULL), -1);
  bench_graph ("mean 8x8x960", op_graph ("mean", gap, 0.05f, 3, NULL, 0, 0,
          NULL, 0.02f, -2, NULL), -1);
  bench_graph ("mean 32x32x128", op_graph ("mean", small, 0.05f, 3, NULL, 0,
          0, NULL, 0.02f, -2, NULL), -1);
  bench_graph ("pad 128x128x24 +1 constant", op_graph ("pad", big, 0.05f, 3,
          NULL, 0, 0, "\"pads\": [0, 1, 1, 0, 0, 1, 1, 0]", 0.05f, 3, NULL),
      -1);
  bench_graph ("pad 64x64x128 +1 edge", op_graph ("pad", mid, 0.05f, 3, NULL,
          0, 0, "\"pads\": [0, 1, 1, 0, 0, 1, 1, 0], \"mode\": \"edge\"",
          0.05f, 3, NULL), -1);
  bench_graph ("transpose 64x64x128 -> 128x64x64", op_graph ("transpose",
          mid, 0.05f, 3, NULL, 0, 0, "\"perm\": [0, 3, 1, 2]", 0.05f, 3,
          NULL), -1);
  bench_graph ("requant copy (concat) 128x128x24", op_graph ("concat", big,
          0.05f, 3, NULL, 0, 0, "\"axis\": 3", 0.06f, -2, NULL), REF_REQUANT);
}

/* ---------------- 2. interpreter overhead ---------------- */

typedef struct
{
  graph_run *r;
  const simnpu__op *op;
  const int8_t *src;
  int8_t *dst;
} kernel_arg;

static void
run_kernel (void *p)
{
  kernel_arg *k = p;
  const simnpu__op *op = k->op;

  simnpu__conv2d (&op->conv, k->src, k->r->g->tensors[op->inputs[1]].data,
      op->weights_packed, op->bias_folded, op->requant_scales, k->dst,
      k->r->scratch);
}

static gchar *
conv_graph (const int64_t * d, int k, int groups, int oc)
{
  size_t nw = (size_t) oc * k * k * (d[3] / groups);
  int8_t *w = g_malloc (nw);
  int32_t *b = g_new (int32_t, oc);
  gchar *w64, *b64, *attrs, *extra, *j;
  GString *scales = g_string_new ("");
  int i;

  fill_random (w, nw);
  for (i = 0; i < oc; i++) {
    b[i] = g_rand_int_range (rng, -2000, 2000);
    g_string_append_printf (scales, "%s%.6g", i ? ", " : "",
        0.004 + 0.0001 * (i % 7));
  }
  w64 = g_base64_encode ((const guchar *) w, nw);
  b64 = g_base64_encode ((const guchar *) b, (size_t) oc * sizeof (int32_t));
  attrs = g_strdup_printf ("\"kernel\": [%d, %d], \"pad\": [%d, %d, %d, %d],"
      " \"groups\": %d, \"out_channels\": %d, \"activation\": \"relu\"", k, k,
      k / 2, k / 2, k / 2, k / 2, groups, oc);
  extra = g_strdup_printf (", \"weights\": {\"scales\": [%s], \"data\": "
      "{\"base64\": \"%s\"}}, \"bias\": {\"data\": {\"base64\": \"%s\"}}",
      scales->str, w64, b64);
  j = op_graph ("conv2d", d, 0.05f, 3, NULL, 0, 0, attrs, 0.08f, -128, extra);
  g_free (w);
  g_free (b);
  g_free (w64);
  g_free (b64);
  g_free (attrs);
  g_free (extra);
  g_string_free (scales, TRUE);
  return j;
}

static void
bench_overhead_one (const char *name, const int64_t * d, int k, int groups,
    int oc)
{
  graph_run r;
  kernel_arg ka;
  double tg, tk, tg2;

  graph_run_init (&r, load_graph (conv_graph (d, k, groups, oc)));
  ka.r = &r;
  ka.op = &r.g->ops[0];
  ka.src = (const int8_t *) (r.arena + r.g->tensors[ka.op->inputs[0]].offset);
  ka.dst = (int8_t *) (r.arena + r.g->tensors[ka.op->outputs[0]].offset);
  /* interleaved, so that drifts of a shared machine hit both */
  tk = best_ns (run_kernel, &ka);
  tg = best_ns (run_graph, &r);
  tg2 = best_ns (run_kernel, &ka);
  tk = MIN (tk, tg2);
  tg2 = best_ns (run_graph, &r);
  tg = MIN (tg, tg2);
  printf ("  %-34s kernel %9.1f us  graph %9.1f us  graph / kernel %.3f"
      "%s\n", name, tk / 1000.0, tg / 1000.0, tg / tk,
      tg / tk <= TARGET_OVERHEAD ? "" : " (> 1.05)");
  graph_run_clear (&r);
}

static void
bench_overhead (void)
{
  static const int64_t dw[4] = { 1, 64, 64, 128 };
  static const int64_t dw2[4] = { 1, 16, 16, 512 };
  static const int64_t pw[4] = { 1, 32, 32, 64 };
  static const int64_t tiny[4] = { 1, 8, 8, 64 };

  printf ("interpreter overhead: one-op graph / direct simnpu__conv2d on "
      "the same prepared op (target <= %.2f)\n", TARGET_OVERHEAD);
  bench_overhead_one ("depthwise 3x3 64x64x128", dw, 3, 128, 128);
  bench_overhead_one ("depthwise 3x3 16x16x512", dw2, 3, 512, 512);
  bench_overhead_one ("pointwise 1x1 32x32x64 -> 64", pw, 1, 1, 64);
  bench_overhead_one ("depthwise 3x3 8x8x64 (small)", tiny, 3, 64, 64);
}

/* ---------------- 3. the ops of real models ---------------- */

static bool
memory_bound (simnpu__op_type t)
{
  return t != SIMNPU_OP_CONV2D && t != SIMNPU_OP_SOFTMAX;
}

static void
bench_model (const char *path)
{
  gchar *data = NULL;
  gsize size = 0;
  simnpu__graph *g = NULL;
  simnpu__schedule s = { 0 };
  simnpu_error error = { 0 };
  graph_run r;
  double ns_type[SIMNPU_N_OP_TYPES] = { 0 };
  size_t bytes_type[SIMNPU_N_OP_TYPES] = { 0 };
  double copy_type[SIMNPU_N_OP_TYPES] = { 0 };
  unsigned count[SIMNPU_N_OP_TYPES] = { 0 };
  double conv_ns = 0, total_ns = 0;
  /* SIMNPU_BENCH_OPS_VERBOSE: every op on its own line too */
  const bool verbose = g_getenv ("SIMNPU_BENCH_OPS_VERBOSE") != NULL;
  unsigned i;

  if (!simnpu__file_read (path, "model", SIMNPU_FILE_MAX_WEIGHTS_BYTES, &data,
          &size, NULL)
      || simnpu__axm_read (data, size, &g, &s, &error) < 0
      || simnpu__graph_prepare (g, &error) < 0) {
    printf ("  %s: cannot load (%s)\n", path,
        error.message[0] ? error.message : "read");
    g_free (data);
    if (g != NULL)
      simnpu__graph_free (g);
    simnpu__schedule_clear (&s);
    return;
  }
  g_free (data);
  graph_run_init (&r, g);
  /* every tensor written once, so that later ops read real values */
  run_graph (&r);
  for (i = 0; i < g->n_ops; i++) {
    simnpu__op_type t = g->ops[i].type;
    double ns;
    r.one.ops = &g->ops[i];
    r.one.n_ops = 1;
    ns = best_ns (run_graph, &r);
    total_ns += ns;
    if (!memory_bound (t)) {
      conv_ns += ns;
      continue;
    }
    ns_type[t] += ns;
    bytes_type[t] += op_traffic (g, &g->ops[i]);
    /* each op against memcpy of its own bytes (cache-resident or not as
     * the op's tensors are) */
    copy_type[t] += (double) op_traffic (g, &g->ops[i]) /
        memcpy_gbps (op_traffic (g, &g->ops[i]));
    count[t]++;
    if (verbose) {
      const simnpu__tensor *x = &g->tensors[g->ops[i].inputs[0]];
      const simnpu__tensor *z = &g->tensors[g->ops[i].outputs[0]];
      gchar *name = g_strdup_printf ("%s %" G_GINT64_FORMAT "x%"
          G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
          " -> %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT,
          simnpu__op_type_name (t), (gint64) x->dims[0], (gint64) x->dims[1],
          (gint64) x->dims[2], (gint64) x->dims[3], (gint64) z->dims[1],
          (gint64) z->dims[2], (gint64) z->dims[3]);
      print_row (name, op_traffic (g, &g->ops[i]), ns, 0);
      g_free (name);
    }
  }
  printf ("  %s: %u ops, %.1f us (conv2d and softmax %.1f us)\n", path,
      g->n_ops, total_ns / 1000, conv_ns / 1000);
  for (i = 0; i < SIMNPU_N_OP_TYPES; i++) {
    gchar *name;
    if (count[i] == 0)
      continue;
    name = g_strdup_printf ("%s (%u ops)",
        simnpu__op_type_name ((simnpu__op_type) i), count[i]);
    print_row_copy (name, bytes_type[i], ns_type[i], 0, copy_type[i]);
    g_free (name);
  }
  graph_run_clear (&r);
  simnpu__schedule_clear (&s);
}

static void
bench_models (int argc, char **argv)
{
  int a;

  if (argc < 2)
    return;
  printf ("memory-bound ops of compiled models, by type (each op timed "
      "alone in the model's arena)\n");
  for (a = 1; a < argc; a++) {
    if (g_file_test (argv[a], G_FILE_TEST_IS_DIR)) {
      GDir *dir = g_dir_open (argv[a], 0, NULL);
      const gchar *f;
      GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
      guint k;
      while (dir != NULL && (f = g_dir_read_name (dir)) != NULL)
        if (g_str_has_suffix (f, ".axm"))
          g_ptr_array_add (names, g_build_filename (argv[a], f, NULL));
      if (dir != NULL)
        g_dir_close (dir);
      for (k = 0; k < names->len; k++)
        bench_model (g_ptr_array_index (names, k));
      g_ptr_array_unref (names);
    } else {
      bench_model (argv[a]);
    }
  }
}

int
main (int argc, char **argv)
{
  rng = g_rand_new_with_seed (SEED);
  printf ("simnpu ops benchmark (single thread, AVX2 %s)\n",
      __builtin_cpu_supports ("avx2") ? "yes" : "no");
  bench_ops ();
  bench_overhead ();
  bench_models (argc, argv);
  g_rand_free (rng);
  return 0;
}
