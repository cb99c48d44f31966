/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* sim-npu benchmarks, each with a baseline measured in the same run:
 *
 * 1. int8 conv2d throughput (GMAC/s) of six shapes through the real path
 *    (a one-op graph, prepared as a model's conv is) and a direct kernel
 *    call, against oneDNN's and XNNPACK's int8 convolutions (when found
 *    at configure time) and a naive loop, all on one thread;
 * 2. the shipped real models' functional compute per frame on one core,
 *    against their modelled device time (the simulator's lag);
 * 3. host overhead per job (scheduling, pacing, bookkeeping; timing-only
 *    jobs, so no kernels) at time scale 0 and, paced, at 1.0, against a
 *    thread hand-off round trip;
 * 4. pacing at time scale 1.0: lag, and completion time minus the
 *    modelled end, p50 and p99, against the OS's own sleep accuracy; if
 *    the compute cannot keep pace, again with the device time stretched
 *    past it.
 */

#include "simnpu-file.h"
#include "simnpu-private.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_DNNL
#include <oneapi/dnnl/dnnl.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#endif
#ifdef HAVE_XNNPACK
#include <xnnpack.h>
#endif

#define OVERHEAD_JOBS 20000
#define OVERHEAD_IN_FLIGHT 8
/* paced jobs take their modelled time, so fewer of them */
#define PACED_OVERHEAD_JOBS 2000
#define HANDOFF_ROUNDS 20000
#define PACING_JOBS 300
#define SLEEP_SAMPLES 300
/* stretched device time / functional compute when re-measuring pacing */
#define PACING_HEADROOM 3.0
#define WAIT_NS (G_GINT64_CONSTANT (60) * 1000000000)

static uint64_t
now_ns (void)
{
  return simnpu__monotonic_ns ();
}

/* CPU time of the calling thread: the convs all run on it, and on a
 * shared machine it leaves out the time other processes had the core */
static uint64_t
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * SIMNPU_NS_PER_S + (uint64_t) ts.tv_nsec;
}

static uint64_t
process_cpu_ns (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return (uint64_t) (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
      SIMNPU_NS_PER_S + (uint64_t) (ru.ru_utime.tv_usec +
      ru.ru_stime.tv_usec) * 1000;
}

/* ---------------- 1. conv2d ---------------- */

/* timed runs of each conv, interleaved with the baselines; best of */
#define CONV_ROUNDS 15
/* the naive loop is slow and only a reference column */
#define NAIVE_REPEATS 2
/* the one-op graph's run over a direct kernel call, at most */
#define GRAPH_OVERHEAD_TARGET 1.05
/* quantisation of the benchmark convs: the input and the weights (per
 * channel, the base scale times 1 + its step per channel mod its period)
 * and the output, chosen so that outputs spread over the int8 range
 * (the accumulator's spread is about int8's spread squared times the
 * square root of the taps) */
#define CONV_IN_SCALE 0.05
#define CONV_IN_ZP (-5)
#define CONV_OUT_ZP 2
#define CONV_W_SCALE 0.01
#define CONV_W_SCALE_STEP 0.01
#define CONV_W_SCALE_PERIOD 7
#define INT8_SPREAD 74.0
#define OUT_SPREAD 40.0
#define CONV_BIAS_MAX 1000
#define CONV_SEED 1234
/* the runtime's alignment of scratch */
#define SCRATCH_ALIGN 64
/* slack after the input: XNNPACK's kernels may read up to XNN_EXTRA_BYTES
 * past their input */
#define INPUT_SLACK_BYTES 64

typedef struct
{
  const char *id;
  const char *label;
  int size, ic, oc, k, stride, pad, groups;
  /* sim-npu / oneDNN, at least */
  double target;
} ConvShape;

static const ConvShape conv_shapes[] = {
  {"A", "1x1 96->96 on 128x128", 128, 96, 96, 1, 1, 0, 1, 0.8},
  {"B", "1x1 112->672 on 32x32", 32, 112, 672, 1, 1, 0, 1, 0.8},
  {"C", "3x3 96->96 on 52x52, pad 1", 52, 96, 96, 3, 1, 1, 1, 0.8},
  {"D", "depthwise 3x3 x96 on 128x128, pad 1", 128, 96, 96, 3, 1, 1, 96,
      1.0},
  {"E", "depthwise 5x5 x240 on 32x32, pad 2", 32, 240, 240, 5, 1, 2, 240,
      1.0},
  {"F", "first layer 3x3 s2 3->16 on 512x512", 512, 3, 16, 3, 2, 1, 1, 1.0},
};

/* One benchmark conv: its data, the one-op sim-npu graph made from it,
 * and the same conv as the baselines see it. */
typedef struct
{
  const ConvShape *s;
  int oh, ow, icg;
  size_t in_n, out_n, w_n;
  int8_t *in, *w;
  int32_t *bias;
  float *w_scales;
  float in_scale, out_scale;
  simnpu__graph *g;
  const simnpu__op *op;
  uint8_t *arena;
  int8_t *scratch, *kscratch, *kout, *naive_out, *base_out;
  int8_t *g_in, *g_out;
  double macs;
} BenchConv;

/* xorshift: the same data every run, without libc's rand state */
static uint32_t
next_rand (uint32_t * state)
{
  uint32_t x = *state;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  *state = x;
  return x;
}

static void
fill_random (int8_t * p, size_t n, int lo, int hi, uint32_t * state)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (int8_t) (lo + (int) (next_rand (state) % (uint32_t) (hi - lo + 1)));
}

/* The conv as a simnpu-graph JSON model, as a compiled model's conv is. */
static gchar *
conv_json (const BenchConv * c)
{
  const ConvShape *s = c->s;
  GString *scales = g_string_new (NULL);
  gchar *w64 = g_base64_encode ((const guchar *) c->w, c->w_n);
  gchar *b64 = g_base64_encode ((const guchar *) c->bias,
      (size_t) s->oc * sizeof (int32_t));
  gchar *json;
  int o;

  for (o = 0; o < s->oc; o++)
    g_string_append_printf (scales, "%s%.9g", o ? ", " : "", c->w_scales[o]);
  json = g_strdup_printf ("{\"format\": \"simnpu-graph\", \"version\": 1, "
      "\"name\": \"conv-%s\", \"inputs\": [{\"name\": \"x\", \"shape\": "
      "[1, %d, %d, %d], \"dtype\": \"i8\", \"scale\": %.9g, \"zero_point\": "
      "%d}], \"outputs\": [{\"name\": \"y\", \"dtype\": \"i8\", \"scale\": "
      "%.9g, \"zero_point\": %d}], \"ops\": [{\"name\": \"c\", \"type\": "
      "\"conv2d\", \"inputs\": [\"x\"], \"outputs\": [\"y\"], \"attrs\": "
      "{\"kernel\": [%d, %d], \"stride\": [%d, %d], \"pad\": [%d, %d, %d, "
      "%d], \"groups\": %d, \"out_channels\": %d}, \"weights\": {\"scales\": "
      "[%s], \"data\": {\"base64\": \"%s\"}}, \"bias\": {\"data\": "
      "{\"base64\": \"%s\"}}}]}", s->id, s->size, s->size, s->ic,
      c->in_scale, CONV_IN_ZP, c->out_scale, CONV_OUT_ZP, s->k, s->k,
      s->stride, s->stride, s->pad, s->pad, s->pad, s->pad, s->groups, s->oc,
      scales->str, w64, b64);
  g_string_free (scales, TRUE);
  g_free (w64);
  g_free (b64);
  return json;
}

static void
bench_conv_setup (BenchConv * c, const ConvShape * s)
{
  simnpu_error error = { 0 };
  uint32_t seed = CONV_SEED;
  gchar *json;
  int o;

  memset (c, 0, sizeof (*c));
  c->s = s;
  c->oh = (s->size + 2 * s->pad - s->k) / s->stride + 1;
  c->ow = c->oh;
  c->icg = s->ic / s->groups;
  c->in_n = (size_t) s->size * s->size * s->ic;
  c->out_n = (size_t) c->oh * c->ow * s->oc;
  c->w_n = (size_t) s->oc * s->k * s->k * c->icg;
  c->macs = (double) c->oh * c->ow * s->oc * s->k * s->k * c->icg;
  c->in = g_malloc0 (c->in_n + INPUT_SLACK_BYTES);
  c->w = g_malloc (c->w_n);
  c->bias = g_new (int32_t, s->oc);
  c->w_scales = g_new (float, s->oc);
  fill_random (c->in, c->in_n, INT8_MIN, INT8_MAX, &seed);
  fill_random (c->w, c->w_n, -INT8_MAX, INT8_MAX, &seed);
  for (o = 0; o < s->oc; o++) {
    c->bias[o] = (int32_t) (next_rand (&seed) % (2 * CONV_BIAS_MAX + 1)) -
        CONV_BIAS_MAX;
    c->w_scales[o] = (float) (CONV_W_SCALE * (1.0 + CONV_W_SCALE_STEP *
            (o % CONV_W_SCALE_PERIOD)));
  }
  c->in_scale = (float) CONV_IN_SCALE;
  c->out_scale = (float) (CONV_IN_SCALE * CONV_W_SCALE * INT8_SPREAD *
      INT8_SPREAD * sqrt ((double) s->k * s->k * c->icg) / OUT_SPREAD);

  json = conv_json (c);
  if (simnpu__graph_load_json_data (json, strlen (json), ".", false, &c->g,
          &error) < 0 || simnpu__graph_prepare (c->g, &error) < 0) {
    fprintf (stderr, "benchmark: conv %s: %s\n", s->id, error.message);
    exit (1);
  }
  g_free (json);
  c->op = &c->g->ops[0];
  c->arena = g_malloc0 (MAX (c->g->arena_bytes, 1));
  /* scratch aligned as the runtime allocates it */
  c->scratch = g_aligned_alloc0 (MAX (c->g->scratch_bytes, 1), 1,
      SCRATCH_ALIGN);
  c->kscratch = g_aligned_alloc0 (MAX (simnpu__conv2d_scratch_bytes
          (&c->op->conv), 1), 1, SCRATCH_ALIGN);
  c->g_in = (int8_t *) c->arena + c->g->tensors[c->g->inputs[0]].offset;
  c->g_out = (int8_t *) c->arena + c->g->tensors[c->g->outputs[0]].offset;
  memcpy (c->g_in, c->in, c->in_n);
  c->kout = g_malloc0 (c->out_n);
  c->naive_out = g_malloc0 (c->out_n);
  c->base_out = g_malloc0 (c->out_n);
}

static void
bench_conv_clear (BenchConv * c)
{
  simnpu__graph_free (c->g);
  g_free (c->in);
  g_free (c->w);
  g_free (c->bias);
  g_free (c->w_scales);
  g_free (c->arena);
  g_aligned_free (c->scratch);
  g_aligned_free (c->kscratch);
  g_free (c->kout);
  g_free (c->naive_out);
  g_free (c->base_out);
}

static void
run_graph (BenchConv * c)
{
  if (simnpu__graph_run (c->g, c->arena, c->scratch) != 0) {
    fprintf (stderr, "benchmark: conv %s: graph run failed\n", c->s->id);
    exit (1);
  }
}

/* the kernel as the graph calls it: its op's params (a pointwise conv
 * flattened to one row), weights packed for a path (NULL: portable),
 * folded bias and scales */
static void
run_kernel_packed (BenchConv * c, const void *packed, int8_t * out,
    int8_t * scratch)
{
  const simnpu__op *op = c->op;

  simnpu__conv2d (&op->conv, c->g_in, c->g->tensors[op->inputs[1]].data,
      packed, op->bias_folded, op->requant_scales, out, scratch);
}

static void
run_kernel (BenchConv * c, int8_t * out, int8_t * scratch)
{
  run_kernel_packed (c, c->op->weights_packed, out, scratch);
}

/* A straightforward loop over the conv as declared, with the raw bias and
 * the input zero point; the same float requantisation as sim-npu, so its
 * output is sim-npu's bit for bit. */
static void
run_naive (BenchConv * c)
{
  const ConvShape *s = c->s;
  const float *scales = c->op->requant_scales;
  int ocg = s->oc / s->groups;
  int oy, ox, o, ky, kx, ci;

  for (oy = 0; oy < c->oh; oy++)
    for (ox = 0; ox < c->ow; ox++)
      for (o = 0; o < s->oc; o++) {
        int g = o / ocg;
        int64_t acc = c->bias[o];
        float x;
        int32_t q;
        for (ky = 0; ky < s->k; ky++)
          for (kx = 0; kx < s->k; kx++)
            for (ci = 0; ci < c->icg; ci++) {
              int iy = oy * s->stride - s->pad + ky;
              int ix = ox * s->stride - s->pad + kx;
              if (iy < 0 || iy >= s->size || ix < 0 || ix >= s->size)
                continue;
              acc += (int64_t) (c->in[((size_t) iy * s->size + ix) * s->ic +
                      g * c->icg + ci] - CONV_IN_ZP) *
                  c->w[(((size_t) o * s->k + ky) * s->k + kx) * c->icg + ci];
            }
        x = (float) acc *scales[o];
        x = CLAMP (x, (float) (INT8_MIN - CONV_OUT_ZP),
            (float) (INT8_MAX - CONV_OUT_ZP));
        q = (int32_t) lrintf (x) + CONV_OUT_ZP;
        c->naive_out[((size_t) oy * c->ow + ox) * s->oc + o] = (int8_t) q;
      }
}

static int
max_abs_diff (const int8_t * a, const int8_t * b, size_t n)
{
  int d = 0;
  size_t i;

  for (i = 0; i < n; i++)
    d = MAX (d, abs (a[i] - b[i]));
  return d;
}

#ifdef HAVE_DNNL
/* oneDNN's rounding differs from sim-npu's (on CPUs without VNNI it
 * halves the int8 weights, so that pairs of products cannot saturate
 * 16 bits): its outputs are within a few codes, not bit-exact */
#define DNNL_TOLERANCE 8

/* oneDNN's int8 convolution of the same conv: NHWC s8 in and out, s32
 * bias, s8 weights in the layout the primitive picks (reordered once),
 * per-output-channel output scales and the zero points. */
typedef struct
{
  dnnl_engine_t engine;
  dnnl_stream_t stream;
  dnnl_primitive_t conv;
  dnnl_memory_t src, wei, bias, dst;
  int32_t *bias_data;
  const char *impl;
  bool zero_points;
  /* its result with the zero points was off by more than DNNL_TOLERANCE */
  bool zero_points_wrong;
} DnnlConv;

static bool
dnnl_ok (dnnl_status_t st, const char *what)
{
  if (st != dnnl_success)
    fprintf (stderr, "benchmark: oneDNN %s: status %d\n", what, (int) st);
  return st == dnnl_success;
}

static dnnl_status_t
dnnl_conv_pd (const BenchConv * c, dnnl_engine_t engine, bool zero_points,
    dnnl_primitive_desc_t * pd)
{
  const ConvShape *s = c->s;
  const int32_t in_zp = CONV_IN_ZP, out_zp = CONV_OUT_ZP;
  dnnl_dims_t src_dims = { 1, s->ic, s->size, s->size };
  dnnl_dims_t dst_dims = { 1, s->oc, c->oh, c->ow };
  dnnl_dims_t bias_dims = { s->oc };
  dnnl_dims_t w_dims = { s->oc, s->ic, s->k, s->k };
  dnnl_dims_t gw_dims = { s->groups, s->oc / s->groups, c->icg, s->k, s->k };
  dnnl_dims_t strides = { s->stride, s->stride };
  dnnl_dims_t pad = { s->pad, s->pad };
  dnnl_memory_desc_t src_md, dst_md, bias_md, w_md;
  dnnl_convolution_desc_t cd;
  dnnl_primitive_attr_t attr;
  dnnl_status_t st;
  float *scales = c->op->requant_scales;

  dnnl_memory_desc_init_by_tag (&src_md, 4, src_dims, dnnl_s8, dnnl_nhwc);
  dnnl_memory_desc_init_by_tag (&dst_md, 4, dst_dims, dnnl_s8, dnnl_nhwc);
  dnnl_memory_desc_init_by_tag (&bias_md, 1, bias_dims, dnnl_s32, dnnl_x);
  if (s->groups == 1)
    dnnl_memory_desc_init_by_tag (&w_md, 4, w_dims, dnnl_s8,
        dnnl_format_tag_any);
  else
    dnnl_memory_desc_init_by_tag (&w_md, 5, gw_dims, dnnl_s8,
        dnnl_format_tag_any);
  st = dnnl_convolution_forward_desc_init (&cd, dnnl_forward_inference,
      dnnl_convolution_direct, &src_md, &w_md, &bias_md, &dst_md, strides,
      pad, pad);
  if (st != dnnl_success)
    return st;
  dnnl_primitive_attr_create (&attr);
  /* dimension 1 of the output (n, c, h, w) is the channel */
  st = dnnl_primitive_attr_set_output_scales (attr, s->oc, 1 << 1, scales);
  if (st == dnnl_success && zero_points)
    st = dnnl_primitive_attr_set_zero_points (attr, DNNL_ARG_SRC, 1, 0, &in_zp);
  if (st == dnnl_success && zero_points)
    st = dnnl_primitive_attr_set_zero_points (attr, DNNL_ARG_DST, 1, 0,
        &out_zp);
  if (st == dnnl_success)
    st = dnnl_primitive_desc_create (pd, &cd, attr, engine, NULL);
  dnnl_primitive_attr_destroy (attr);
  return st;
}

static bool
is_reference_impl (const char *impl)
{
  return impl == NULL || strncmp (impl, "ref", strlen ("ref")) == 0;
}

static void
dnnl_conv_clear (DnnlConv * d)
{
  if (d->conv)
    dnnl_primitive_destroy (d->conv);
  if (d->src)
    dnnl_memory_destroy (d->src);
  if (d->wei)
    dnnl_memory_destroy (d->wei);
  if (d->bias)
    dnnl_memory_destroy (d->bias);
  if (d->dst)
    dnnl_memory_destroy (d->dst);
  if (d->stream)
    dnnl_stream_destroy (d->stream);
  if (d->engine)
    dnnl_engine_destroy (d->engine);
  g_free (d->bias_data);
  memset (d, 0, sizeof (*d));
}

static void
dnnl_conv_run (DnnlConv * d)
{
  dnnl_exec_arg_t args[] = {
    {DNNL_ARG_SRC, d->src}, {DNNL_ARG_WEIGHTS, d->wei},
    {DNNL_ARG_BIAS, d->bias}, {DNNL_ARG_DST, d->dst},
  };

  dnnl_primitive_execute (d->conv, d->stream, G_N_ELEMENTS (args), args);
  dnnl_stream_wait (d->stream);
}

/* The primitive with or without the zero points (without, the input
 * zero point is folded into the bias as sim-npu does, the output one
 * dropped, and the borders differ: oneDNN pads with 0, not the zero
 * point). Returns false, all freed, if oneDNN refuses or picks its
 * reference code when it has zero points. */
static bool
dnnl_conv_build (DnnlConv * d, BenchConv * c, bool zero_points)
{
  const ConvShape *s = c->s;
  dnnl_primitive_desc_t pd = NULL, rpd;
  dnnl_primitive_t reorder;
  dnnl_memory_desc_t user_md;
  dnnl_memory_t user_w;
  dnnl_dims_t w_dims = { s->oc, s->ic, s->k, s->k };
  dnnl_dims_t gw_dims = { s->groups, s->oc / s->groups, c->icg, s->k, s->k };
  dnnl_exec_arg_t rargs[2];
  const char *impl = NULL;
  int o;

  memset (d, 0, sizeof (*d));
  d->zero_points = zero_points;
  if (!dnnl_ok (dnnl_engine_create (&d->engine, dnnl_cpu, 0), "engine")
      || !dnnl_ok (dnnl_stream_create (&d->stream, d->engine,
              dnnl_stream_default_flags), "stream")
      || dnnl_conv_pd (c, d->engine, zero_points, &pd) != dnnl_success) {
    dnnl_conv_clear (d);
    return false;
  }
  dnnl_primitive_desc_query (pd, dnnl_query_impl_info_str, 0, &impl);
  if (zero_points && is_reference_impl (impl)) {
    dnnl_primitive_desc_destroy (pd);
    dnnl_conv_clear (d);
    return false;
  }
  d->impl = g_intern_string (impl);
  d->bias_data = g_new (int32_t, s->oc);
  for (o = 0; o < s->oc; o++)
    d->bias_data[o] = zero_points ? c->bias[o] : c->op->bias_folded[o];

  dnnl_memory_create (&d->src, dnnl_primitive_desc_query_md (pd,
          dnnl_query_src_md, 0), d->engine, c->in);
  dnnl_memory_create (&d->dst, dnnl_primitive_desc_query_md (pd,
          dnnl_query_dst_md, 0), d->engine, c->base_out);
  dnnl_memory_create (&d->bias, dnnl_primitive_desc_query_md (pd,
          dnnl_query_weights_md, 1), d->engine, d->bias_data);
  dnnl_memory_create (&d->wei, dnnl_primitive_desc_query_md (pd,
          dnnl_query_weights_md, 0), d->engine, DNNL_MEMORY_ALLOCATE);
  /* sim-npu's weights are [oc][kh][kw][ic / groups] */
  if (s->groups == 1)
    dnnl_memory_desc_init_by_tag (&user_md, 4, w_dims, dnnl_s8, dnnl_ohwi);
  else
    dnnl_memory_desc_init_by_tag (&user_md, 5, gw_dims, dnnl_s8, dnnl_gohwi);
  dnnl_memory_create (&user_w, &user_md, d->engine, c->w);
  if (!dnnl_ok (dnnl_reorder_primitive_desc_create (&rpd, &user_md,
              d->engine, dnnl_primitive_desc_query_md (pd,
                  dnnl_query_weights_md, 0), d->engine, NULL), "reorder"))
    exit (1);
  dnnl_primitive_create (&reorder, rpd);
  rargs[0].arg = DNNL_ARG_FROM;
  rargs[0].memory = user_w;
  rargs[1].arg = DNNL_ARG_TO;
  rargs[1].memory = d->wei;
  dnnl_primitive_execute (reorder, d->stream, 2, rargs);
  dnnl_stream_wait (d->stream);
  dnnl_primitive_destroy (reorder);
  dnnl_primitive_desc_destroy (rpd);
  dnnl_memory_destroy (user_w);
  if (!dnnl_ok (dnnl_primitive_create (&d->conv, pd), "primitive")) {
    dnnl_primitive_desc_destroy (pd);
    dnnl_conv_clear (d);
    return false;
  }
  dnnl_primitive_desc_destroy (pd);
  return true;
}

/* oneDNN's conv with the zero points if it has a kernel for them that
 * agrees with sim-npu (c->g_out, already computed), else without them.
 * Returns false if oneDNN refuses the conv. */
static bool
dnnl_conv_setup (DnnlConv * d, BenchConv * c)
{
  if (dnnl_conv_build (d, c, true)) {
    dnnl_conv_run (d);
    if (max_abs_diff (c->base_out, c->g_out, c->out_n) <= DNNL_TOLERANCE)
      return true;
    dnnl_conv_clear (d);
    d->zero_points_wrong = true;
  }
  {
    bool wrong = d->zero_points_wrong;
    bool ok = dnnl_conv_build (d, c, false);
    d->zero_points_wrong = wrong;
    return ok;
  }
}

/* oneDNN here runs on OpenMP (DNNL_CPU_RUNTIME), whose runtime reads
 * OMP_NUM_THREADS as it is loaded, before main: ask it for one thread
 * through the OpenMP API. Returns the threads oneDNN will use. */
static int
dnnl_single_thread (void)
{
#ifdef _OPENMP
  omp_set_num_threads (1);
  return omp_get_max_threads ();
#else
  const char *env = g_getenv ("OMP_NUM_THREADS");
  return env ? atoi (env) : -1;
#endif
}
#endif /* HAVE_DNNL */

#ifdef HAVE_XNNPACK
G_STATIC_ASSERT (INPUT_SLACK_BYTES >= XNN_EXTRA_BYTES);

/* XNNPACK's per-channel int8 convolution (qc8) of the same conv, on the
 * caller's thread (no thread pool). Its weights layout is sim-npu's. */
static xnn_operator_t
xnn_conv_setup (BenchConv * c)
{
  const ConvShape *s = c->s;
  xnn_operator_t op = NULL;

  if (xnn_create_convolution2d_nhwc_qc8 (s->pad, s->pad, s->pad, s->pad,
          s->k, s->k, s->stride, s->stride, 1, 1, s->groups, c->icg,
          s->oc / s->groups, s->ic, s->oc, CONV_IN_ZP, c->in_scale,
          c->w_scales, c->w, c->bias, CONV_OUT_ZP, c->out_scale, INT8_MIN,
          INT8_MAX, 0, &op) != xnn_status_success
      || xnn_setup_convolution2d_nhwc_qc8 (op, 1, s->size, s->size, c->in,
          c->base_out, NULL) != xnn_status_success) {
    if (op)
      xnn_delete_operator (op);
    return NULL;
  }
  return op;
}
#endif /* HAVE_XNNPACK */

static double
gmacs (double macs, uint64_t ns)
{
  return ns > 0 && ns != G_MAXUINT64 ? macs / (double) ns : 0.0;
}

static const char *
verdict (bool ok)
{
  return ok ? "ok" : "BELOW TARGET";
}

/* oneDNN's best dense-conv rate of section 1 (GMAC/s; 0 when oneDNN is
 * not available): the machine's reference rate for the real models'
 * per-frame figures, whose absolute targets were set on a faster host */
static double reference_gmacs;

/* one conv's figures in GMAC/s (0: not measured); path: each kernel
 * path's kernel call, where the CPU has it; chosen: the graph's */
typedef struct
{
  double graph, kernel, dnnl, xnn, naive;
  double path[SIMNPU_KERNELS_N_PATHS];
  simnpu__kernels_path chosen;
} ConvResult;

/* the weights packed for each path the CPU has (NULL: portable, or not
 * available; ok[] says which) */
typedef struct
{
  void *packed[SIMNPU_KERNELS_N_PATHS];
  bool ok[SIMNPU_KERNELS_N_PATHS];
  simnpu__kernels_path used[SIMNPU_KERNELS_N_PATHS];
} PathPacks;

static void
path_packs_setup (PathPacks * pp, BenchConv * c)
{
  const simnpu__conv_params *p = &c->op->conv;
  int i;

  memset (pp, 0, sizeof (*pp));
  for (i = 0; i < SIMNPU_KERNELS_N_PATHS; i++) {
    size_t bytes;
    if (!simnpu__kernels_path_ok ((simnpu__kernels_path) i))
      continue;
    pp->ok[i] = true;
    bytes = simnpu__conv2d_packed_bytes_for (p, (simnpu__kernels_path) i);
    if (bytes > 0) {
      pp->packed[i] = g_aligned_alloc0 (bytes, 1, SCRATCH_ALIGN);
      simnpu__conv2d_pack_for (p, c->g->tensors[c->op->inputs[1]].data,
          pp->packed[i], (simnpu__kernels_path) i);
    }
    pp->used[i] = simnpu__conv2d_packed_path (pp->packed[i]);
  }
}

static void
path_packs_clear (PathPacks * pp)
{
  int i;

  for (i = 0; i < SIMNPU_KERNELS_N_PATHS; i++)
    g_aligned_free (pp->packed[i]);
}

static void
bench_conv (const ConvShape * s, bool have_dnnl, bool have_xnn,
    ConvResult * res)
{
  BenchConv c;
  uint64_t best_graph = G_MAXUINT64, best_kernel = G_MAXUINT64;
  uint64_t best_dnnl = G_MAXUINT64, best_xnn = G_MAXUINT64;
  uint64_t best_naive = G_MAXUINT64, t0;
  uint64_t best_path[SIMNPU_KERNELS_N_PATHS];
  PathPacks pp;
  int pi;
  int r, dnnl_diff = -1, xnn_diff = -1;
  bool dnnl_up = false, xnn_up = false;
  const char *dnnl_impl = NULL;
  const char *dnnl_zp = "";
  double graph_g, ratio;
#ifdef HAVE_DNNL
  DnnlConv d;
#endif
#ifdef HAVE_XNNPACK
  xnn_operator_t xop = NULL;
#endif

  bench_conv_setup (&c, s);
  path_packs_setup (&pp, &c);
  for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++)
    best_path[pi] = G_MAXUINT64;
  /* the oracle the baselines' outputs are checked against */
  run_graph (&c);
#ifdef HAVE_DNNL
  if (have_dnnl && dnnl_conv_setup (&d, &c)) {
    dnnl_up = true;
    dnnl_impl = d.impl;
    dnnl_zp = d.zero_points ? ", zero points" : d.zero_points_wrong ?
        ", zero points folded into the bias (its result with them was "
        "wrong)" : ", zero points folded into the bias (refused with them)";
  }
#endif
#ifdef HAVE_XNNPACK
  if (have_xnn)
    xop = xnn_conv_setup (&c);
  xnn_up = xop != NULL;
#endif
  (void) have_dnnl;
  (void) have_xnn;

  /* The graph's overhead is the graph run over the kernel call on the
   * same buffers (the graph's arena and scratch), in either order in turn
   * so that neither always runs on the other's warm caches. */
  for (r = 0; r < CONV_ROUNDS; r++) {
    int k;
    for (k = 0; k < 2; k++) {
      t0 = thread_cpu_ns ();
      if ((k == 0) == (r % 2 == 0)) {
        run_graph (&c);
        best_graph = MIN (best_graph, thread_cpu_ns () - t0);
      } else {
        run_kernel (&c, c.g_out, c.scratch);
        best_kernel = MIN (best_kernel, thread_cpu_ns () - t0);
      }
    }
#ifdef HAVE_DNNL
    if (dnnl_up) {
      t0 = thread_cpu_ns ();
      dnnl_conv_run (&d);
      best_dnnl = MIN (best_dnnl, thread_cpu_ns () - t0);
    }
#endif
#ifdef HAVE_XNNPACK
    if (xnn_up) {
      t0 = thread_cpu_ns ();
      xnn_run_operator (xop, NULL);
      best_xnn = MIN (best_xnn, thread_cpu_ns () - t0);
    }
#endif
    for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++) {
      if (!pp.ok[pi])
        continue;
      t0 = thread_cpu_ns ();
      run_kernel_packed (&c, pp.packed[pi], c.kout, c.kscratch);
      best_path[pi] = MIN (best_path[pi], thread_cpu_ns () - t0);
    }
  }
  /* every path's output is the graph's */
  run_graph (&c);
  for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++)
    if (pp.ok[pi]) {
      run_kernel_packed (&c, pp.packed[pi], c.kout, c.kscratch);
      if (max_abs_diff (c.g_out, c.kout, c.out_n) != 0) {
        fprintf (stderr, "benchmark: conv %s: the %s path's output is not "
            "the graph's\n", s->id,
            simnpu__kernels_path_name ((simnpu__kernels_path) pi));
        exit (1);
      }
    }
  for (r = 0; r < NAIVE_REPEATS; r++) {
    t0 = thread_cpu_ns ();
    run_naive (&c);
    best_naive = MIN (best_naive, thread_cpu_ns () - t0);
  }
  /* the outputs compared: the graph's, the kernel call's on buffers of
   * its own, the naive loop's; the baselines wrote base_out, each is
   * checked after its own run */
  run_graph (&c);
  run_kernel (&c, c.kout, c.kscratch);
#ifdef HAVE_DNNL
  if (dnnl_up) {
    dnnl_conv_run (&d);
    dnnl_diff = max_abs_diff (c.base_out, c.g_out, c.out_n);
  }
#endif
#ifdef HAVE_XNNPACK
  if (xnn_up) {
    xnn_run_operator (xop, NULL);
    xnn_diff = max_abs_diff (c.base_out, c.g_out, c.out_n);
  }
#endif

  graph_g = gmacs (c.macs, best_graph);
  printf ("conv %s: %s, %.1f MMAC; sim-npu %s kernel, conv params %dx%d "
      "-> %dx%d\n", s->id, s->label, c.macs / 1e6,
      simnpu__kernels_path_name (simnpu__conv2d_packed_path
          (c.op->weights_packed)), c.op->conv.ih,
      c.op->conv.iw, c.op->conv.oh, c.op->conv.ow);
  for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++) {
    if (!pp.ok[pi]) {
      printf ("  path %-10s  not on this CPU\n",
          simnpu__kernels_path_name ((simnpu__kernels_path) pi));
      continue;
    }
    printf ("  path %-10s %8.2f GMAC/s  (%.3f ms, kernel call, runs %s)",
        simnpu__kernels_path_name ((simnpu__kernels_path) pi),
        gmacs (c.macs, best_path[pi]), best_path[pi] / 1e6,
        simnpu__kernels_path_name (pp.used[pi]));
    if (dnnl_up)
      printf (": sim-npu/oneDNN %.2f", (double) best_dnnl / best_path[pi]);
    printf ("\n");
  }
  ratio = (double) best_graph / best_kernel;
  printf ("  sim-npu graph  %8.2f GMAC/s  (%.3f ms); kernel call %.2f GMAC/s: "
      "graph/kernel %.3f (target <= %.2f: %s)\n", graph_g, best_graph / 1e6,
      gmacs (c.macs, best_kernel), ratio, GRAPH_OVERHEAD_TARGET,
      verdict (ratio <= GRAPH_OVERHEAD_TARGET));
  if (dnnl_up) {
    ratio = (double) best_dnnl / best_graph;
    printf ("  oneDNN         %8.2f GMAC/s  (%.3f ms; %s%s): sim-npu/oneDNN "
        "%.2f (target >= %.1f: %s)\n", gmacs (c.macs, best_dnnl),
        best_dnnl / 1e6, dnnl_impl, dnnl_zp, ratio, s->target, verdict (ratio >=
            s->target));
  } else {
    printf ("  oneDNN baseline unavailable\n");
  }
  if (xnn_up)
    printf ("  XNNPACK        %8.2f GMAC/s  (%.3f ms; qc8): sim-npu/XNNPACK "
        "%.2f\n", gmacs (c.macs, best_xnn), best_xnn / 1e6,
        (double) best_xnn / best_graph);
  else
    printf ("  XNNPACK baseline unavailable\n");
  printf ("  naive loop     %8.2f GMAC/s  (%.3f ms): sim-npu/naive %.1fx\n",
      gmacs (c.macs, best_naive), best_naive / 1e6,
      (double) best_naive / best_graph);
  printf ("  outputs: graph %s kernel call, graph %s naive loop",
      max_abs_diff (c.g_out, c.kout, c.out_n) == 0 ? "==" : "!=",
      max_abs_diff (c.g_out, c.naive_out, c.out_n) == 0 ? "==" : "!=");
  if (dnnl_diff >= 0)
    printf ("; oneDNN max |diff| %d", dnnl_diff);
  if (xnn_diff >= 0)
    printf ("; XNNPACK max |diff| %d", xnn_diff);
  printf ("\n");

#ifdef HAVE_DNNL
  if (dnnl_up)
    dnnl_conv_clear (&d);
#endif
#ifdef HAVE_XNNPACK
  if (xop)
    xnn_delete_operator (xop);
#endif
  res->graph = graph_g;
  res->kernel = gmacs (c.macs, best_kernel);
  res->dnnl = dnnl_up ? gmacs (c.macs, best_dnnl) : 0.0;
  res->xnn = xnn_up ? gmacs (c.macs, best_xnn) : 0.0;
  res->naive = gmacs (c.macs, best_naive);
  res->chosen = simnpu__conv2d_packed_path (c.op->weights_packed);
  for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++)
    res->path[pi] = pp.ok[pi] ? gmacs (c.macs, best_path[pi]) : 0.0;
  path_packs_clear (&pp);
  bench_conv_clear (&c);
}

/* width of a baseline's column in the summary (XNNPACK's is one wider,
 * as its name) */
#define SUMMARY_COL 7

/* a baseline's GMAC/s, or a dash when it did not run */
static void
summary_cell (double gmacs_value, int width)
{
  if (gmacs_value > 0.0)
    printf (" %*.2f", width, gmacs_value);
  else
    printf (" %*s", width, "-");
}

/* one line per conv, to read the targets at a glance */
static void
conv_summary (const ConvResult * res)
{
  unsigned i;
  int pi;

  printf ("summary (GMAC/s)  %7s %7s %7s %8s %7s  %12s  %s\n", "graph",
      "kernel", "oneDNN", "XNNPACK", "naive", "graph/kernel",
      "sim-npu/oneDNN (target)");
  for (i = 0; i < G_N_ELEMENTS (conv_shapes); i++) {
    const ConvResult *r = &res[i];
    printf ("  conv %s          %7.2f %7.2f", conv_shapes[i].id, r->graph,
        r->kernel);
    summary_cell (r->dnnl, SUMMARY_COL);
    summary_cell (r->xnn, SUMMARY_COL + 1);
    printf (" %7.2f  %12.3f", r->naive, r->kernel / r->graph);
    if (r->dnnl > 0.0)
      printf ("  %6.2f (>= %.1f) %s\n", r->graph / r->dnnl,
          conv_shapes[i].target, verdict (r->graph / r->dnnl >=
              conv_shapes[i].target));
    else
      printf ("  unavailable\n");
  }
  /* each path's kernel call, GMAC/s and its ratio to oneDNN's */
  printf ("per path (GMAC/s, sim-npu/oneDNN)  %-10s", "chosen");
  for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++)
    printf (" %18s", simnpu__kernels_path_name ((simnpu__kernels_path) pi));
  printf ("\n");
  for (i = 0; i < G_N_ELEMENTS (conv_shapes); i++) {
    const ConvResult *r = &res[i];
    printf ("  conv %s                          %-10s", conv_shapes[i].id,
        simnpu__kernels_path_name (r->chosen));
    for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++) {
      if (r->path[pi] <= 0.0)
        printf (" %18s", "-");
      else if (r->dnnl > 0.0)
        printf (" %9.2f (%5.2fx)", r->path[pi], r->path[pi] / r->dnnl);
      else
        printf (" %9.2f %8s", r->path[pi], "");
    }
    printf ("\n");
  }
}

/* the CPU's model and its SIMD flags, from /proc/cpuinfo */
static void
print_cpu (void)
{
  static const char *const prefixes[] = { "sse4", "avx", "fma", "f16c",
    "amx", "bmi2"
  };
  gchar *info = NULL;
  gchar **lines, **l;
  bool model = false, flags = false;

  if (!g_file_get_contents ("/proc/cpuinfo", &info, NULL, NULL)) {
    printf ("CPU: /proc/cpuinfo unreadable\n");
    return;
  }
  lines = g_strsplit (info, "\n", -1);
  for (l = lines; *l != NULL; l++) {
    const char *colon = strchr (*l, ':');
    if (colon == NULL)
      continue;
    if (!model && g_str_has_prefix (*l, "model name")) {
      printf ("CPU: %s\n", g_strstrip (g_strdup (colon + 1)));
      model = true;
    } else if (!flags && g_str_has_prefix (*l, "flags")) {
      gchar **f = g_strsplit (colon + 1, " ", -1), **t;
      printf ("CPU SIMD flags:");
      for (t = f; *t != NULL; t++) {
        unsigned j;
        for (j = 0; j < G_N_ELEMENTS (prefixes); j++)
          if (g_str_has_prefix (*t, prefixes[j])) {
            printf (" %s", *t);
            break;
          }
      }
      printf ("\n");
      g_strfreev (f);
      flags = true;
    }
  }
  g_strfreev (lines);
  g_free (info);
}

static void
bench_convs (void)
{
  bool have_dnnl = false, have_xnn = false;
  ConvResult res[G_N_ELEMENTS (conv_shapes)];
  unsigned i;
  int pi;

  print_cpu ();
  printf ("sim-npu kernel paths:");
  for (pi = 0; pi < SIMNPU_KERNELS_N_PATHS; pi++)
    printf (" %s (%s)", simnpu__kernels_path_name ((simnpu__kernels_path) pi),
        simnpu__kernels_path_ok ((simnpu__kernels_path) pi) ? "runs" :
        simnpu__kernels_cpu_has ((simnpu__kernels_path) pi) ?
        "failed its self-test" : "not on this CPU");
  printf ("; chosen: %s\n",
      simnpu__kernels_path_name (simnpu__kernels_path_chosen ()));

#ifdef HAVE_DNNL
  {
    const dnnl_version_t *v = dnnl_version ();
    int threads = dnnl_single_thread ();
    printf ("oneDNN %d.%d.%d, %d thread%s\n", v->major, v->minor, v->patch,
        threads, threads == 1 ? "" : "s (expected 1: timings not "
        "comparable)");
    have_dnnl = true;
  }
#else
  printf ("oneDNN baseline unavailable (not found at configure time)\n");
#endif
#ifdef HAVE_XNNPACK
  have_xnn = xnn_initialize (NULL) == xnn_status_success;
  if (have_xnn)
    printf ("XNNPACK, 1 thread (no thread pool)\n");
#else
  printf ("XNNPACK baseline unavailable (not found at configure time)\n");
#endif
  printf ("sim-npu: one-op graph from a JSON model, prepared (weights "
      "packed, pointwise flattened), simnpu__graph_run on this thread; "
      "this thread's CPU time, best of %d rounds alternating with the "
      "baselines; random int8 data\n", CONV_ROUNDS);
  for (i = 0; i < G_N_ELEMENTS (conv_shapes); i++) {
    bench_conv (&conv_shapes[i], have_dnnl, have_xnn, &res[i]);
    if (conv_shapes[i].groups == 1 && conv_shapes[i].ic > 3)
      reference_gmacs = MAX (reference_gmacs, res[i].dnnl);
  }
  conv_summary (res);
#ifdef HAVE_XNNPACK
  if (have_xnn)
    xnn_deinitialize ();
#endif
}

/* ---------------- 2. real models ---------------- */

/* frames timed per model, after the warm-up ones */
#define MODEL_FRAMES 15
#define MODEL_WARMUP 2
#define HOST_SECTION_RUNS 10
#define MODEL_SEED 4321

typedef struct
{
  const char *name;
  /* functional compute of the device graph per frame, at most */
  double target_ms;
} ModelTarget;

static const ModelTarget real_models[] = {
  {"blazeface", 5.0},
  {"emotion", 2.0},
  {"centernet-coco", 25.0},
  {"faceres", 6.0},
};

/* random values of the tensor's type: int8 / uint8 codes over their whole
 * range, floats in [-1, 1] */
static void
fill_tensor (void *data, const simnpu_tensor_spec * spec, uint32_t * seed)
{
  size_t i;

  if (spec->dtype == SIMNPU_DTYPE_F32) {
    float *f = data;
    for (i = 0; i < spec->size_bytes / sizeof (float); i++)
      f[i] = (float) (next_rand (seed) % 2001) / 1000.0f - 1.0f;
  } else {
    fill_random (data, spec->size_bytes, INT8_MIN, INT8_MAX, seed);
  }
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
  return x < y ? -1 : x > y;
}

/* best and median of n samples (sorted in place) */
static void
best_median (uint64_t * v, int n, double *best_ms, double *median_ms)
{
  qsort (v, n, sizeof (uint64_t), cmp_u64);
  *best_ms = v[0] / (double) SIMNPU_NS_PER_MS;
  *median_ms = v[n / 2] / (double) SIMNPU_NS_PER_MS;
}

/* the device spec a compiled model was scheduled for */
static gchar *
model_device (const char *path)
{
  gchar *contents = NULL, *device = NULL;
  gsize len = 0;
  simnpu__graph *g = NULL;
  simnpu__schedule s = { 0 };

  if (simnpu__file_read (path, "model", SIMNPU_FILE_MAX_WEIGHTS_BYTES,
          &contents, &len, NULL)
      && simnpu__axm_read (contents, len, &g, &s, NULL) == 0)
    device = g_strdup (s.spec);
  simnpu__graph_free (g);
  simnpu__schedule_clear (&s);
  g_free (contents);
  return device ? device : g_strdup ("metis");
}

/* The device graph of a compiled model prepared as the runtime does, run
 * with simnpu__graph_run on this thread: best CPU time per frame, in ms
 * (a figure that other processes on a shared machine hardly disturb). */
static double
graph_cpu_ms (const char *path)
{
  gchar *contents = NULL;
  gsize len = 0;
  simnpu__graph *g = NULL;
  simnpu__schedule sched = { 0 };
  simnpu_error error = { 0 };
  uint8_t *arena;
  int8_t *scratch;
  uint64_t best = G_MAXUINT64;
  uint32_t seed = MODEL_SEED;
  unsigned i;
  int f;

  if (!simnpu__file_read (path, "model", SIMNPU_FILE_MAX_WEIGHTS_BYTES,
          &contents, &len, NULL)
      || simnpu__axm_read (contents, len, &g, &sched, &error) < 0
      || simnpu__graph_prepare (g, &error) < 0) {
    fprintf (stderr, "benchmark: %s: %s\n", path, error.message);
    exit (1);
  }
  arena = g_malloc0 (MAX (g->arena_bytes, 1));
  scratch = g_aligned_alloc0 (MAX (g->scratch_bytes, 1), 1, SCRATCH_ALIGN);
  for (i = 0; i < g->n_inputs; i++) {
    const simnpu__tensor *t = &g->tensors[g->inputs[i]];
    fill_random ((int8_t *) arena + t->offset, simnpu__tensor_bytes (t),
        INT8_MIN, INT8_MAX, &seed);
  }
  for (f = 0; f < MODEL_WARMUP + MODEL_FRAMES; f++) {
    uint64_t t0 = thread_cpu_ns ();
    if (simnpu__graph_run (g, arena, scratch) != 0) {
      fprintf (stderr, "benchmark: %s: graph run failed\n", path);
      exit (1);
    }
    if (f >= MODEL_WARMUP)
      best = MIN (best, thread_cpu_ns () - t0);
  }
  g_free (arena);
  g_aligned_free (scratch);
  simnpu__graph_free (g);
  simnpu__schedule_clear (&sched);
  g_free (contents);
  return best / (double) SIMNPU_NS_PER_MS;
}

/* A host section's wall time per run on this thread, on random inputs. */
static void
bench_host_section (simnpu_model * model, simnpu_section_kind kind,
    const char *what)
{
  simnpu_host_section *sec = simnpu_model_get_host_section (model, kind);
  simnpu_host_section_info info;
  simnpu_error error = { 0 };
  uint64_t t[HOST_SECTION_RUNS];
  void **ins, **outs;
  uint32_t seed = MODEL_SEED;
  double best, median;
  unsigned i;
  int r;

  if (sec == NULL) {
    printf ("  host %s: none\n", what);
    return;
  }
  simnpu_host_section_get_info (sec, &info);
  ins = g_new0 (void *, MAX (info.n_inputs, 1));
  outs = g_new0 (void *, MAX (info.n_outputs, 1));
  for (i = 0; i < info.n_inputs; i++) {
    simnpu_tensor_spec spec;
    unsigned bound;
    simnpu_host_section_get_input (sec, i, &spec, &bound);
    ins[i] = g_malloc (MAX (spec.size_bytes, 1));
    fill_tensor (ins[i], &spec, &seed);
  }
  for (i = 0; i < info.n_outputs; i++) {
    simnpu_tensor_spec spec;
    unsigned bound;
    simnpu_host_section_get_output (sec, i, &spec, &bound);
    outs[i] = g_malloc0 (MAX (spec.size_bytes, 1));
  }
  for (r = 0; r < HOST_SECTION_RUNS; r++) {
    uint64_t t0 = now_ns ();
    if (simnpu_host_section_run (sec, (const void *const *) ins, outs,
            &error) < 0) {
      fprintf (stderr, "benchmark: host %s: %s\n", what, error.message);
      exit (1);
    }
    t[r] = now_ns () - t0;
  }
  best_median (t, HOST_SECTION_RUNS, &best, &median);
  printf ("  host %s (%u nodes, %.1f M element ops): %.3f ms per frame "
      "(best of %d; median %.3f), wall on this thread, separate from the "
      "device graph's figure\n", what, info.n_nodes, info.cost / 1e6, best,
      HOST_SECTION_RUNS, median);
  for (i = 0; i < info.n_inputs; i++)
    g_free (ins[i]);
  for (i = 0; i < info.n_outputs; i++)
    g_free (outs[i]);
  g_free (ins);
  g_free (outs);
}

/* The device graph's functional compute per frame through the public
 * API: one job at a time (in flight 1, so one core's worker computes it)
 * at time scale 0 (no pacing), its compute_ns; beside it the modelled
 * device time. */
static void
bench_model (const char *models_build, const ModelTarget * m)
{
  gchar *file = g_strconcat (m->name, ".axm", NULL);
  gchar *path = g_build_filename (models_build, file, NULL);
  simnpu_error error = { 0 };
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_model_info info;
  simnpu_device_info dinfo;
  simnpu_input_buffer *in;
  simnpu_output_buffer *out;
  uint64_t compute[MODEL_FRAMES], wall[MODEL_FRAMES];
  uint32_t seed = MODEL_SEED;
  double best, median, wall_best, wall_median, device_ms, cpu_ms;
  gchar *device;
  unsigned i;
  int f;

  g_free (file);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    printf ("%s: %s not built, skipped (target <= %.0f ms)\n", m->name, path,
        m->target_ms);
    g_free (path);
    return;
  }
  device = model_device (path);
  if (simnpu_device_open (device, &dev, &error) < 0
      || simnpu_device_set_time_scale (dev, 0.0) < 0
      || simnpu_model_load (dev, path, &model, &error) < 0) {
    fprintf (stderr, "benchmark: %s: %s\n", path, error.message);
    exit (1);
  }
  simnpu_model_get_info (model, &info);
  simnpu_device_get_info (dev, &dinfo);
  if (info.estimate_only) {
    printf ("%s: estimate-only model, skipped\n", m->name);
    goto out;
  }
  in = g_new0 (simnpu_input_buffer, MAX (info.n_device_inputs, 1));
  out = g_new0 (simnpu_output_buffer, MAX (info.n_device_outputs, 1));
  for (i = 0; i < info.n_device_inputs; i++) {
    simnpu_tensor_spec spec;
    simnpu_model_get_device_input (model, i, &spec);
    in[i].data = g_malloc (MAX (spec.size_bytes, 1));
    in[i].size_bytes = spec.size_bytes;
    fill_tensor ((void *) in[i].data, &spec, &seed);
  }
  for (i = 0; i < info.n_device_outputs; i++) {
    simnpu_tensor_spec spec;
    simnpu_model_get_device_output (model, i, &spec);
    out[i].data = g_malloc0 (MAX (spec.size_bytes, 1));
    out[i].size_bytes = spec.size_bytes;
  }
  for (f = 0; f < MODEL_WARMUP + MODEL_FRAMES; f++) {
    simnpu_job *job;
    simnpu_job_result r;
    if (simnpu_job_submit (model, in, info.n_device_inputs, out,
            info.n_device_outputs, NULL, NULL, &job, &error) < 0
        || simnpu_job_wait (job, WAIT_NS, &r) != 0 || r.status != 0) {
      fprintf (stderr, "benchmark: %s: job failed\n", m->name);
      exit (1);
    }
    if (f >= MODEL_WARMUP) {
      compute[f - MODEL_WARMUP] = r.compute_ns;
      wall[f - MODEL_WARMUP] = r.complete_ns - r.submit_ns;
    }
    simnpu_job_free (job);
  }
  best_median (compute, MODEL_FRAMES, &best, &median);
  best_median (wall, MODEL_FRAMES, &wall_best, &wall_median);
  device_ms = info.device_ns / (double) SIMNPU_NS_PER_MS;
  printf ("%s on %s (%u ops, %.1f MMAC; random device inputs): device "
      "graph %.2f ms per frame functional compute (best of %d; median "
      "%.2f; submit to completion %.2f), %.2f GMAC/s; target <= %.0f ms: "
      "%s\n", m->name, dinfo.profile, info.n_ops, info.total_macs / 1e6, best,
      MODEL_FRAMES, median, wall_best,
      info.total_macs / (best * (double) SIMNPU_NS_PER_MS), m->target_ms,
      best <= m->target_ms ? "ok" : "ABOVE TARGET");
  cpu_ms = graph_cpu_ms (path);
  printf ("  device graph run directly (simnpu__graph_run) on this thread: "
      "%.2f ms CPU per frame (best of %d), %.2f GMAC/s; target <= %.0f ms: "
      "%s\n", cpu_ms, MODEL_FRAMES,
      info.total_macs / (cpu_ms * (double) SIMNPU_NS_PER_MS), m->target_ms,
      cpu_ms <= m->target_ms ? "ok" : "ABOVE TARGET");
  if (reference_gmacs > 0)
    printf ("  at oneDNN's best dense-conv rate in this run (%.2f GMAC/s) "
        "the model's MACs alone take %.2f ms: the direct run is %.2fx "
        "that\n", reference_gmacs, info.total_macs / (reference_gmacs *
            (double) SIMNPU_NS_PER_MS),
        cpu_ms / (info.total_macs / (reference_gmacs *
                (double) SIMNPU_NS_PER_MS)));
  printf ("  modelled device time %.3f ms per frame; simulator lag "
      "(compute / device) %.1fx through the API, %.1fx run directly\n",
      device_ms, best / device_ms, cpu_ms / device_ms);
  bench_host_section (model, SIMNPU_SECTION_PREAMBLE, "preamble");
  bench_host_section (model, SIMNPU_SECTION_POSTAMBLE, "postamble");
  for (i = 0; i < info.n_device_inputs; i++)
    g_free ((void *) in[i].data);
  for (i = 0; i < info.n_device_outputs; i++)
    g_free (out[i].data);
  g_free (in);
  g_free (out);
out:
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  g_free (device);
  g_free (path);
}

/* ---------------- 3. host overhead per job ---------------- */

static gpointer
echo_thread (gpointer data)
{
  GAsyncQueue **q = data;
  gpointer item;

  while ((item = g_async_queue_pop (q[0])) != GINT_TO_POINTER (-1))
    g_async_queue_push (q[1], item);
  return NULL;
}

/* The floor of handing a job to another thread and getting it back:
 * a push and pop each way through a locked queue. */
static double
handoff_round_trip_ns (void)
{
  GAsyncQueue *q[2] = { g_async_queue_new (), g_async_queue_new () };
  GThread *t = g_thread_new ("echo", echo_thread, q);
  uint64_t t0, cpu0;
  int i;

  t0 = now_ns ();
  cpu0 = process_cpu_ns ();
  for (i = 0; i < HANDOFF_ROUNDS; i++) {
    g_async_queue_push (q[0], GINT_TO_POINTER (1));
    g_async_queue_pop (q[1]);
  }
  cpu0 = process_cpu_ns () - cpu0;
  t0 = now_ns () - t0;
  g_async_queue_push (q[0], GINT_TO_POINTER (-1));
  g_thread_join (t);
  g_async_queue_unref (q[0]);
  g_async_queue_unref (q[1]);
  (void) t0;
  return (double) cpu0 / HANDOFF_ROUNDS;
}

static gchar *
compile_model (const char *json_path, bool estimate_only)
{
  simnpu_error error = { 0 };
  simnpu__graph *g = NULL;
  simnpu__profile p;
  simnpu__schedule s = { 0 };
  gchar *path = NULL;
  int fd;

  if (simnpu__profile_parse ("metis", &p, &error) < 0
      || simnpu__graph_load_json_file (json_path, estimate_only, &g,
          &error) < 0
      || simnpu__graph_prepare (g, &error) < 0
      || simnpu__schedule_build (g, &p, &s, &error) < 0) {
    fprintf (stderr, "benchmark: %s: %s\n", json_path, error.message);
    exit (1);
  }
  fd = g_file_open_tmp ("simnpu-bench-XXXXXX.axm", &path, NULL);
  close (fd);
  if (simnpu__axm_write (g, &s, path, &error) < 0) {
    fprintf (stderr, "benchmark: %s\n", error.message);
    exit (1);
  }
  simnpu__schedule_clear (&s);
  simnpu__graph_free (g);
  return path;
}

/* Process CPU per job (all threads) for n_jobs timing-only jobs kept
 * in_flight at a time, at time_scale. */
static double
job_overhead_ns (const char *axm, double time_scale, int n_jobs,
    int in_flight, unsigned *n_actions, double *submit_ns)
{
  simnpu_error error = { 0 };
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_model_info info;
  simnpu_job *jobs[OVERHEAD_IN_FLIGHT] = { NULL };
  uint64_t cpu0, in_submit = 0;
  int i;

  g_assert (in_flight > 0 && in_flight <= OVERHEAD_IN_FLIGHT);

  if (simnpu_device_open ("metis", &dev, &error) < 0
      || simnpu_model_load (dev, axm, &model, &error) < 0) {
    fprintf (stderr, "benchmark: %s\n", error.message);
    exit (1);
  }
  simnpu_device_set_time_scale (dev, time_scale);
  simnpu_model_get_info (model, &info);
  *n_actions = info.n_actions;
  cpu0 = process_cpu_ns ();
  for (i = 0; i < n_jobs; i++) {
    int slot = i % in_flight;
    if (jobs[slot]) {
      simnpu_job_wait (jobs[slot], WAIT_NS, NULL);
      simnpu_job_free (jobs[slot]);
    }
    {
      uint64_t t0 = now_ns ();
      int ret = simnpu_job_submit (model, NULL, 0, NULL, 0, NULL, NULL,
          &jobs[slot], &error);
      in_submit += now_ns () - t0;
      if (ret < 0) {
        fprintf (stderr, "benchmark: %s\n", error.message);
        exit (1);
      }
    }
  }
  for (i = 0; i < in_flight; i++) {
    simnpu_job_wait (jobs[i], WAIT_NS, NULL);
    simnpu_job_free (jobs[i]);
  }
  cpu0 = process_cpu_ns () - cpu0;
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  *submit_ns = (double) in_submit / n_jobs;
  return (double) cpu0 / n_jobs;
}

/* ---------------- 4. pacing ---------------- */

static int
cmp_i64 (const void *a, const void *b)
{
  int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
  return x < y ? -1 : x > y;
}

static void
percentiles (int64_t * v, int n, double *p50, double *p99)
{
  qsort (v, n, sizeof (int64_t), cmp_i64);
  *p50 = v[n / 2] / 1000.0;
  *p99 = v[(n * 99) / 100] / 1000.0;
}

typedef struct
{
  int64_t err_complete[PACING_JOBS];
  int64_t err_wake[PACING_JOBS];
  int64_t err_paced[PACING_JOBS];
  int n_paced;
  uint64_t lagged_jobs;
  double mean_lag_us;
  double mean_compute_us;
} PacingRun;

/* PACING_JOBS jobs one after another at the device's time scale, each
 * waited for before the next is submitted */
static void
pacing_run (simnpu_device * dev, simnpu_model * model,
    const simnpu_input_buffer * in, const simnpu_output_buffer * out,
    PacingRun * run)
{
  simnpu_error error = { 0 };
  simnpu_counters c0, c1;
  uint64_t compute_ns = 0;
  int i;

  simnpu_device_get_counters (dev, &c0);
  run->n_paced = 0;
  for (i = 0; i < PACING_JOBS; i++) {
    simnpu_job *job;
    simnpu_job_result r;
    if (simnpu_job_submit (model, in, 1, out, 1, NULL, NULL, &job,
            &error) < 0 || simnpu_job_wait (job, WAIT_NS, &r) != 0) {
      fprintf (stderr, "benchmark: pacing job failed\n");
      exit (1);
    }
    run->err_wake[i] = (int64_t) (now_ns () - r.device_end_ns);
    run->err_complete[i] = (int64_t) (r.complete_ns - r.device_end_ns);
    compute_ns += r.compute_ns;
    if (r.lag_ns == 0)
      run->err_paced[run->n_paced++] = run->err_complete[i];
    simnpu_job_free (job);
  }
  simnpu_device_get_counters (dev, &c1);
  run->lagged_jobs = c1.lagged_jobs - c0.lagged_jobs;
  run->mean_lag_us = (c1.lag_ns - c0.lag_ns) / 1000.0 / PACING_JOBS;
  run->mean_compute_us = compute_ns / 1000.0 / PACING_JOBS;
}

/* how late the OS wakes a thread asked to sleep for duration_ns */
static void
sleep_baseline (uint64_t duration_ns, double *p50, double *p99)
{
  int64_t err[SLEEP_SAMPLES];
  int i;

  for (i = 0; i < SLEEP_SAMPLES; i++) {
    struct timespec ts = { (time_t) (duration_ns / 1000000000),
      (long) (duration_ns % 1000000000)
    };
    uint64_t t0 = now_ns ();
    clock_nanosleep (CLOCK_MONOTONIC, 0, &ts, NULL);
    err[i] = (int64_t) (now_ns () - t0 - duration_ns);
  }
  percentiles (err, SLEEP_SAMPLES, p50, p99);
}

/* Prints one pacing run: the lag, and the completion error of the jobs
 * computed in time against the sleep baseline for the same duration. */
static void
pacing_report (const char *what, double time_scale, uint64_t device_ns,
    PacingRun * run)
{
  double c50, c99, w50, w99, s50, s99, p50, p99;
  uint64_t scaled_ns = (uint64_t) (device_ns * time_scale);

  percentiles (run->err_complete, PACING_JOBS, &c50, &c99);
  percentiles (run->err_wake, PACING_JOBS, &w50, &w99);
  sleep_baseline (scaled_ns, &s50, &s99);
  printf ("pacing at time scale %.2f (%s; ball-detector, %.1f us modelled "
      "per job = %.1f us wall; functional compute %.1f us per job; %d "
      "jobs):\n", time_scale, what, device_ns / 1000.0, scaled_ns / 1000.0,
      run->mean_compute_us, PACING_JOBS);
  printf ("  lagged jobs %" G_GUINT64_FORMAT " of %d, mean lag %.1f us per "
      "job\n", (guint64) run->lagged_jobs, PACING_JOBS, run->mean_lag_us);
  if (run->n_paced > 0) {
    percentiles (run->err_paced, run->n_paced, &p50, &p99);
    printf ("  completion - modelled end, jobs computed in time (%d): p50 "
        "%7.1f us  p99 %7.1f us\n", run->n_paced, p50, p99);
  } else {
    p50 = p99 = 0;
    printf ("  completion - modelled end, jobs computed in time: none "
        "(every job's compute outlasted its modelled time; see the lag)\n");
  }
  printf ("  completion - modelled end, all jobs: p50 %7.1f us  p99 %7.1f "
      "us\n", c50, c99);
  printf ("  caller wake-up - modelled end: p50 %7.1f us  p99 %7.1f us\n",
      w50, w99);
  if (run->n_paced > 0)
    printf ("  baseline clock_nanosleep overshoot (%.1f us): p50 %7.1f us  "
        "p99 %7.1f us; ratio (jobs in time) p50 %.2fx, p99 %.2fx\n",
        scaled_ns / 1000.0, s50, s99, p50 / MAX (s50, 0.001),
        p99 / MAX (s99, 0.001));
  else
    printf ("  baseline clock_nanosleep overshoot (%.1f us): p50 %7.1f us  "
        "p99 %7.1f us\n", scaled_ns / 1000.0, s50, s99);
}

/* Pacing at time scale 1.0, where the lag shows whether the functional
 * compute keeps pace. If most jobs lag, the pacer's own accuracy is
 * measured again with the device time stretched (time scale > 1) to
 * PACING_HEADROOM times the compute, so that jobs are computed in time
 * and their completion is paced. */
static void
bench_pacing (const char *axm)
{
  simnpu_error error = { 0 };
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_tensor_spec in_spec, out_spec;
  simnpu_input_buffer in;
  simnpu_output_buffer out;
  PacingRun *run = g_new0 (PacingRun, 1);
  uint64_t device_ns;

  if (simnpu_device_open ("metis", &dev, &error) < 0
      || simnpu_model_load (dev, axm, &model, &error) < 0) {
    fprintf (stderr, "benchmark: %s\n", error.message);
    exit (1);
  }
  simnpu_model_get_input (model, 0, &in_spec);
  simnpu_model_get_output (model, 0, &out_spec);
  in.data = g_malloc0 (in_spec.size_bytes);
  in.size_bytes = in_spec.size_bytes;
  out.data = g_malloc0 (out_spec.size_bytes);
  out.size_bytes = out_spec.size_bytes;
  device_ns = simnpu_model_get_device_ns (model);

  pacing_run (dev, model, &in, &out, run);
  pacing_report ("real time", 1.0, device_ns, run);
  if (run->n_paced < PACING_JOBS / 2) {
    double scale = PACING_HEADROOM * run->mean_compute_us * 1000.0 / device_ns;
    simnpu_device_set_time_scale (dev, scale);
    pacing_run (dev, model, &in, &out, run);
    pacing_report ("device time stretched past the compute", scale,
        device_ns, run);
  }
  g_free ((void *) in.data);
  g_free (out.data);
  g_free (run);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
}

int
main (int argc, char **argv)
{
  const char *models_src = argc > 1 ? argv[1] : "models";
  const char *models_build = argc > 2 ? argv[2] : "build/models";
  gchar *ball_json = g_build_filename (models_src, "ball-detector.json", NULL);
  gchar *ball_axm = g_build_filename (models_build, "ball-detector.axm", NULL);
  gchar *yolo_axm = g_build_filename (models_build, "yolov8n.axm", NULL);
  gchar *ball_timing;
  double handoff, ball_ns, yolo_ns, ball_submit, yolo_submit;
  double paced_ns, paced_one_ns, paced_submit;
  unsigned ball_actions, yolo_actions;

  unsigned i;

  printf ("== int8 conv2d, one thread ==\n");
  bench_convs ();
  /* --convs-only: section 1 alone */
  if (argc > 3 && strcmp (argv[3], "--convs-only") == 0) {
    g_free (ball_json);
    g_free (ball_axm);
    g_free (yolo_axm);
    return 0;
  }

  printf ("== real models: functional compute per frame, one core ==\n");
  printf ("public API (simnpu.h): one job in flight at time scale 0 on the "
      "device the model was compiled for, so one core's worker computes "
      "it; its compute_ns (wall time); then the same device graph run "
      "directly on this thread, its CPU time; random device inputs\n");
  for (i = 0; i < G_N_ELEMENTS (real_models); i++)
    bench_model (models_build, &real_models[i]);

  printf ("== host overhead per job (timing-only jobs, no kernels) ==\n");
  ball_timing = compile_model (ball_json, true);
  handoff = handoff_round_trip_ns ();
  ball_ns = job_overhead_ns (ball_timing, 0.0, OVERHEAD_JOBS,
      OVERHEAD_IN_FLIGHT, &ball_actions, &ball_submit);
  yolo_ns = job_overhead_ns (yolo_axm, 0.0, OVERHEAD_JOBS,
      OVERHEAD_IN_FLIGHT, &yolo_actions, &yolo_submit);
  paced_ns = job_overhead_ns (ball_timing, 1.0, PACED_OVERHEAD_JOBS,
      OVERHEAD_IN_FLIGHT, &ball_actions, &paced_submit);
  paced_one_ns = job_overhead_ns (ball_timing, 1.0, PACED_OVERHEAD_JOBS, 1,
      &ball_actions, &paced_submit);
  printf ("ball-detector (%u actions): %.2f us process CPU per job, all "
      "threads, time scale 0 (target < 20 us); %.2f us in the submit call\n",
      ball_actions, ball_ns / 1000.0, ball_submit / 1000.0);
  printf ("yolov8n (%u actions):      %.2f us process CPU per job, all "
      "threads; %.2f us in the submit call\n", yolo_actions, yolo_ns / 1000.0,
      yolo_submit / 1000.0);
  printf ("ball-detector paced at time scale 1.0: %.2f us process CPU per "
      "job at %d in flight, %.2f us at 1 in flight\n", paced_ns / 1000.0,
      OVERHEAD_IN_FLIGHT, paced_one_ns / 1000.0);
  printf ("baseline thread hand-off round trip: %.2f us CPU; ratio %.1fx "
      "(ball-detector), %.1fx (paced, %d in flight), %.1fx (paced, 1 in "
      "flight)\n", handoff / 1000.0, ball_ns / handoff, paced_ns / handoff,
      OVERHEAD_IN_FLIGHT, paced_one_ns / handoff);

  printf ("== pacing ==\n");
  bench_pacing (ball_axm);

  g_unlink (ball_timing);
  g_free (ball_timing);
  g_free (ball_json);
  g_free (ball_axm);
  g_free (yolo_axm);
  return 0;
}
