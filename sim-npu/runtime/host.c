/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Host sections: float IR graphs a compiled model runs on the host around
 * its device graph, bound to it by tensor name. They run on the caller's
 * thread (not on the device workers) so that the caller can time them.
 * Each has a pool of executors: one created (and its pages mapped) at
 * load, another only when more callers run the section at once than it
 * has executors, so that a steady stream allocates nothing and maps no
 * new memory, and concurrent runs are safe.
 *
 * The caller's float buffers are bound into the executor for the run
 * rather than copied in and out: a section's f32 inputs are read in place
 * and its f32 outputs written in place (a CenterNet postamble reads 8 MB
 * and writes 5 MB per frame). Only tensors whose representation differs
 * across the binding are converted.
 *
 * Across the binding the representations differ: the preamble computes
 * float but the device takes its inputs quantised, so its outputs are
 * quantised into the device inputs' dtype here; the device outputs may be
 * quantised, so the postamble's inputs are dequantised here. The model's
 * public outputs may be quantised too (compiled with quantised outputs):
 * the postamble's float results are then quantised the same way at its
 * end, a quarter of the bytes to write and for the decoder to read. */

#include "runtime-private.h"

#include <math.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute (target)
#define HOST_AVX2 1
#include <immintrin.h>
#endif
#endif

/* the vector quantisation: four vectors of eight floats to 32 bytes */
#define QUANT_LANES 8
#define QUANT_VECTORS 4
#define QUANT_BLOCK (QUANT_LANES * QUANT_VECTORS)

#define U8_MIN 0
#define U8_MAX 255
#define I8_MIN (-128)
#define I8_MAX 127
/* a caller's buffer the float kernels may use as it is */
#define FLOAT_ALIGNED(p) (((uintptr_t) (p)) % G_ALIGNOF (float) == 0)

/* at most this many callers run one section at once; more wait */
#define MAX_EXECUTORS 16
/* a fused activation and quantisation goes through this many floats at a
 * time (16 KiB: stays in L1), a multiple of the vector block */
#define FUSE_BLOCK 4096

struct simnpu_host_section
{
  simnpu_section_kind kind;
  const simnpu__ir_graph *graph;
  /* the pool, protected by lock; busy[i] while a run uses execs[i] */
  GMutex lock;
  GCond cond;
  simnpu__ir_exec *execs[MAX_EXECUTORS];
  bool busy[MAX_EXECUTORS];
  unsigned n_execs;
  /* per section input and output: read or written in place (f32 on both
   * sides of the binding, a tensor no node writes, listed once) */
  bool in_place_in[SIMNPU_IR_MAX_INPUTS];
  bool in_place_out[SIMNPU_IR_MAX_OUTPUTS];
  /* a quantised output made by the section's last node, an element-wise
   * activation: the run stops before that node and applies it block by
   * block, each block quantised at once into the caller's buffer, so the
   * float result is never written whole (CenterNet's sigmoid heat-map:
   * 5.2 MB a frame); -1 when none. fuse_block[i]: execs[i]'s block. */
  int fused_out;
  float *fuse_block[MAX_EXECUTORS];
  /* per tensor: its buffer is the caller's (not mapped at load) */
  bool *in_place;
  simnpu_tensor_spec in_specs[SIMNPU_IR_MAX_INPUTS];
  simnpu_tensor_spec out_specs[SIMNPU_IR_MAX_OUTPUTS];
  unsigned in_bound[SIMNPU_IR_MAX_INPUTS];
  unsigned out_bound[SIMNPU_IR_MAX_OUTPUTS];
  uint64_t cost;
};

static const char *
section_name (simnpu_section_kind kind)
{
  return kind == SIMNPU_SECTION_PREAMBLE ? "preamble" : "postamble";
}

/* ------------------------------------------------------------------ */
/* The public view                                                      */

/* The IR does not say how a rank-4 public tensor is laid out: the
 * preprocessing record does (the model's layout, its image input's, which
 * its outputs share), else NHWC (the IR's spatial convention). */
static void
fill_ir_spec (const simnpu__graph * g, const simnpu__ir_tensor * t,
    simnpu_tensor_spec * spec)
{
  unsigned i;

  memset (spec, 0, sizeof (*spec));
  spec->name = t->name;
  spec->dtype = SIMNPU_DTYPE_F32;
  if (t->rank != SIMNPU_MAX_DIMS)
    spec->layout = SIMNPU_LAYOUT_NCHW;
  else if (g->has_preprocess)
    spec->layout = g->preprocess.layout;
  else
    spec->layout = SIMNPU_LAYOUT_NHWC;
  spec->n_dims = t->rank;
  for (i = 0; i < t->rank; i++)
    spec->dims[i] = t->dims[i];
  spec->scale = 1.0f;
  spec->zero_point = 0;
  spec->size_bytes = simnpu__ir_tensor_bytes (t);
}

/* A postamble output as the caller gets it: f32, or quantised at the
 * postamble's end when the compile asked for it. */
static void
fill_postamble_out_spec (const simnpu__graph * g, unsigned j,
    simnpu_tensor_spec * spec)
{
  const simnpu__ir_graph *ir = g->postamble;
  const simnpu__ir_tensor *t = &ir->tensors[ir->outputs[j]];

  fill_ir_spec (g, t, spec);
  if (!g->has_postamble_quant
      || g->postamble_quant[j].dtype == SIMNPU_DTYPE_F32)
    return;
  spec->dtype = g->postamble_quant[j].dtype;
  spec->scale = g->postamble_quant[j].scale;
  spec->zero_point = g->postamble_quant[j].zero_point;
  spec->size_bytes = (size_t) simnpu__ir_tensor_elements (t) *
      simnpu_dtype_size (spec->dtype);
}

static void
section_free (simnpu_host_section * s)
{
  unsigned i;

  if (s == NULL)
    return;
  for (i = 0; i < s->n_execs; i++) {
    simnpu__ir_exec_free (s->execs[i]);
    g_free (s->fuse_block[i]);
  }
  g_free (s->in_place);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

/* An executor of the section with its pages mapped: its tensors in one
 * arena planned by their live ranges (the buffers of the tensors bound in
 * place are kept in it as the fallback for a caller's buffer not aligned
 * for floats). */
static simnpu__ir_exec *
exec_new (simnpu_host_section * s, simnpu_error * error)
{
  simnpu__ir_exec *x = simnpu__ir_exec_new_planned (s->graph, error);

  if (x != NULL)
    simnpu__ir_exec_prefault (x, s->in_place);
  return x;
}

/* activations the fused tail applies (simnpu__ir_f32_unary) */
static bool
fusable_op (simnpu__ir_op op)
{
  return op == SIMNPU_IR_SIGMOID || op == SIMNPU_IR_TANH
      || op == SIMNPU_IR_RELU || op == SIMNPU_IR_CLIP;
}

/* The output the run fuses with its quantisation, if any: quantised, made
 * by the last node, a fusable f32 activation whose input is computed
 * (not a section input or output), read by no other node, listed once.
 * Its own buffer is then never used: it is not mapped at load. */
static void
plan_fused_output (simnpu_host_section * s)
{
  const simnpu__ir_graph *ir = s->graph;
  const simnpu__ir_node *last;
  unsigned j, k, i;
  int t, in;

  s->fused_out = -1;
  if (s->kind != SIMNPU_SECTION_POSTAMBLE || ir->n_nodes < 2)
    return;
  last = &ir->nodes[ir->n_nodes - 1];
  if (!fusable_op (last->op) || last->n_outputs != 1 || last->n_inputs != 1)
    return;
  t = last->outputs[0];
  in = last->inputs[0];
  if (in < 0 || ir->tensors[in].dtype != SIMNPU_IR_F32
      || ir->tensors[in].is_const || ir->tensors[t].dtype != SIMNPU_IR_F32)
    return;
  for (j = 0; j < ir->n_inputs; j++)
    if (ir->inputs[j] == t || ir->inputs[j] == in)
      return;
  for (j = 0; j < ir->n_outputs; j++)
    if (ir->outputs[j] == in)
      return;
  for (k = 0; k + 1 < ir->n_nodes; k++)
    for (i = 0; i < ir->nodes[k].n_inputs; i++)
      if (ir->nodes[k].inputs[i] == t)
        return;
  for (j = 0; j < ir->n_outputs; j++) {
    if (ir->outputs[j] != t)
      continue;
    if (s->fused_out >= 0 || s->out_specs[j].dtype == SIMNPU_DTYPE_F32) {
      /* listed twice, or wanted in float */
      s->fused_out = -1;
      return;
    }
    s->fused_out = (int) j;
  }
  if (s->fused_out >= 0)
    s->in_place[t] = true;
}

/* Which inputs and outputs are bound in place: f32 on the caller's side
 * (a quantised output is computed in the executor's buffer and quantised
 * into the caller's), an input no node writes, an output a node writes
 * that is neither an input nor listed twice. */
static void
plan_in_place (simnpu_host_section * s)
{
  const simnpu__ir_graph *ir = s->graph;
  bool pre = s->kind == SIMNPU_SECTION_PREAMBLE;
  unsigned j, k, o;

  s->in_place = g_new0 (bool, MAX (ir->n_tensors, 1));
  for (j = 0; j < ir->n_inputs; j++) {
    int t = ir->inputs[j];
    bool ok = pre || s->in_specs[j].dtype == SIMNPU_DTYPE_F32;
    for (k = 0; k < ir->n_nodes && ok; k++)
      for (o = 0; o < ir->nodes[k].n_outputs; o++)
        if (ir->nodes[k].outputs[o] == t)
          ok = false;
    s->in_place_in[j] = ok;
  }
  for (j = 0; j < ir->n_outputs; j++) {
    int t = ir->outputs[j];
    bool ok = s->out_specs[j].dtype == SIMNPU_DTYPE_F32, made = false;
    for (k = 0; k < ir->n_inputs; k++)
      if (ir->inputs[k] == t)
        ok = false;
    for (k = 0; k < ir->n_outputs; k++)
      if (k != j && ir->outputs[k] == t)
        ok = false;
    for (k = 0; k < ir->n_nodes; k++)
      for (o = 0; o < ir->nodes[k].n_outputs; o++)
        if (ir->nodes[k].outputs[o] == t)
          made = true;
    s->in_place_out[j] = ok && made;
  }
  plan_fused_output (s);
  for (j = 0; j < ir->n_inputs; j++)
    if (s->in_place_in[j])
      s->in_place[ir->inputs[j]] = true;
  for (j = 0; j < ir->n_outputs; j++)
    if (s->in_place_out[j])
      s->in_place[ir->outputs[j]] = true;
}

static int
section_new (const simnpu__graph * g, simnpu_section_kind kind,
    const simnpu_tensor_spec * dev_in, const simnpu_tensor_spec * dev_out,
    simnpu_host_section ** out, simnpu_error * error)
{
  const simnpu__ir_graph *ir = kind == SIMNPU_SECTION_PREAMBLE ?
      g->preamble : g->postamble;
  bool pre = kind == SIMNPU_SECTION_PREAMBLE;
  simnpu_host_section *s;
  simnpu_error sub = { 0 };
  unsigned j;

  s = g_new0 (simnpu_host_section, 1);
  s->kind = kind;
  s->graph = ir;
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  for (j = 0; j < ir->n_inputs; j++) {
    const simnpu__ir_tensor *t = &ir->tensors[ir->inputs[j]];
    if (pre) {
      fill_ir_spec (g, t, &s->in_specs[j]);
      s->in_bound[j] = j;
    } else {
      int k = simnpu__graph_find_io (g, false, t->name);
      s->in_specs[j] = dev_out[k];
      s->in_bound[j] = (unsigned) k;
    }
  }
  for (j = 0; j < ir->n_outputs; j++) {
    const simnpu__ir_tensor *t = &ir->tensors[ir->outputs[j]];
    if (pre) {
      int k = simnpu__graph_find_io (g, true, t->name);
      s->out_specs[j] = dev_in[k];
      s->out_bound[j] = (unsigned) k;
    } else {
      fill_postamble_out_spec (g, j, &s->out_specs[j]);
      s->out_bound[j] = j;
    }
  }
  for (j = 0; j < ir->n_nodes; j++) {
    const simnpu__ir_op_info *info = simnpu__ir_op_get (ir->nodes[j].op);
    if (info != NULL && info->cost != NULL)
      s->cost += info->cost (ir, &ir->nodes[j]);
  }
  plan_in_place (s);
  s->execs[0] = exec_new (s, &sub);
  if (s->execs[0] != NULL) {
    s->n_execs = 1;
    if (s->fused_out >= 0)
      s->fuse_block[0] = g_new0 (float, FUSE_BLOCK);
  } else {
    section_free (s);
    return simnpu__set_error (error, sub.code < 0 ? sub.code :
        SIMNPU_EINTERNAL, "%s '%s': %s", section_name (kind),
        ir->name ? ir->name : "", sub.message);
  }
  *out = s;
  return 0;
}

int
simnpu__host_view_init (simnpu__host_view * v, const simnpu__graph * g,
    const simnpu_tensor_spec * dev_in, const simnpu_tensor_spec * dev_out,
    simnpu_error * error)
{
  bool bound_in[SIMNPU_MAX_IO] = { false };
  bool bound_out[SIMNPU_MAX_IO] = { false };
  unsigned j, k;
  int ret;

  memset (v, 0, sizeof (*v));
  if (g->preamble != NULL) {
    const simnpu__ir_graph *ir = g->preamble;
    for (j = 0; j < ir->n_inputs; j++) {
      fill_ir_spec (g, &ir->tensors[ir->inputs[j]], &v->inputs[v->n_inputs]);
      v->in_bind[v->n_inputs].section = SIMNPU_SECTION_PREAMBLE;
      v->in_bind[v->n_inputs++].index = j;
    }
    for (j = 0; j < ir->n_outputs; j++)
      bound_in[simnpu__graph_find_io (g, true,
              ir->tensors[ir->outputs[j]].name)] = true;
  }
  for (k = 0; k < g->n_inputs; k++) {
    if (bound_in[k])
      continue;
    v->inputs[v->n_inputs] = dev_in[k];
    v->in_bind[v->n_inputs].section = SIMNPU_SECTION_DEVICE;
    v->in_bind[v->n_inputs++].index = k;
  }
  if (g->postamble != NULL) {
    const simnpu__ir_graph *ir = g->postamble;
    for (j = 0; j < ir->n_outputs; j++) {
      fill_postamble_out_spec (g, j, &v->outputs[v->n_outputs]);
      v->out_bind[v->n_outputs].section = SIMNPU_SECTION_POSTAMBLE;
      v->out_bind[v->n_outputs++].index = j;
    }
    for (j = 0; j < ir->n_inputs; j++)
      bound_out[simnpu__graph_find_io (g, false,
              ir->tensors[ir->inputs[j]].name)] = true;
  }
  for (k = 0; k < g->n_outputs; k++) {
    if (bound_out[k])
      continue;
    v->outputs[v->n_outputs] = dev_out[k];
    v->out_bind[v->n_outputs].section = SIMNPU_SECTION_DEVICE;
    v->out_bind[v->n_outputs++].index = k;
  }
  if (g->preamble != NULL && (ret = section_new (g, SIMNPU_SECTION_PREAMBLE,
              dev_in, dev_out, &v->sections[SIMNPU_SECTION_PREAMBLE],
              error)) < 0)
    goto fail;
  if (g->postamble != NULL && (ret = section_new (g,
              SIMNPU_SECTION_POSTAMBLE, dev_in, dev_out,
              &v->sections[SIMNPU_SECTION_POSTAMBLE], error)) < 0)
    goto fail;
  return 0;

fail:
  simnpu__host_view_clear (v);
  return ret;
}

void
simnpu__host_view_clear (simnpu__host_view * v)
{
  unsigned i;

  for (i = 0; i < SIMNPU__N_HOST_SECTIONS; i++) {
    section_free (v->sections[i]);
    v->sections[i] = NULL;
  }
}

/* ------------------------------------------------------------------ */
/* Public API                                                           */

/**
 * simnpu_host_section_get_info:
 * @section: a host section
 * @info: (out): facts about it
 *
 * Returns: 0 or %SIMNPU_EINVAL
 */
int
simnpu_host_section_get_info (simnpu_host_section * s,
    simnpu_host_section_info * info)
{
  if (s == NULL || info == NULL)
    return SIMNPU_EINVAL;
  info->kind = s->kind;
  info->name = s->graph->name ? s->graph->name : "";
  info->n_inputs = s->graph->n_inputs;
  info->n_outputs = s->graph->n_outputs;
  info->n_nodes = s->graph->n_nodes;
  info->cost = s->cost;
  return 0;
}

/**
 * simnpu_host_section_get_input:
 * @section: a host section
 * @index: input index
 * @spec: (out): the buffer simnpu_host_section_run() reads for it
 * @bound_index: (out) (nullable): what the input is bound to: for the
 *   preamble, the model's public input of that index (the preamble's
 *   inputs are the first public inputs, in order); for the postamble, the
 *   device output of that index, whose spec (dtype, quantisation) @spec
 *   repeats, so that the job's output buffer can be passed as is
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such input)
 */
int
simnpu_host_section_get_input (simnpu_host_section * s, unsigned index,
    simnpu_tensor_spec * spec, unsigned *bound_index)
{
  if (s == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= s->graph->n_inputs)
    return SIMNPU_ENOENT;
  *spec = s->in_specs[index];
  if (bound_index)
    *bound_index = s->in_bound[index];
  return 0;
}

/**
 * simnpu_host_section_get_output:
 * @section: a host section
 * @index: output index
 * @spec: (out): the buffer simnpu_host_section_run() writes for it
 * @bound_index: (out) (nullable): what the output is bound to: for the
 *   preamble, the device input of that index, whose spec @spec repeats
 *   (the preamble's float result is quantised into it), so that the
 *   buffer can be submitted as is; for the postamble, the model's public
 *   output of that index (the postamble's outputs are the first public
 *   outputs, in order), whose spec @spec repeats (f32, or u8 / i8 when
 *   the model was compiled with quantised outputs)
 *
 * Returns: 0, %SIMNPU_EINVAL or %SIMNPU_ENOENT (no such output)
 */
int
simnpu_host_section_get_output (simnpu_host_section * s, unsigned index,
    simnpu_tensor_spec * spec, unsigned *bound_index)
{
  if (s == NULL || spec == NULL)
    return SIMNPU_EINVAL;
  if (index >= s->graph->n_outputs)
    return SIMNPU_ENOENT;
  *spec = s->out_specs[index];
  if (bound_index)
    *bound_index = s->out_bound[index];
  return 0;
}

#ifdef HOST_AVX2
/* From element 0 in steps of QUANT_BLOCK, as the scalar loop does element
 * by element: the same multiply then add (no FMA: a contracted x * inv + zp
 * rounds differently), NaN to the zero point, the same clamp, and
 * cvtps2dq's rounding (the default mode: half to even, as lrintf).
 * Returns how many elements it did. */
__attribute__((target ("avx2")))
     static size_t
         from_float_avx2 (const float *src, void *dst, size_t n, float inv,
    float zp, float lo, float hi, bool is_u8)
{
  const __m256 vinv = _mm256_set1_ps (inv), vzp = _mm256_set1_ps (zp);
  const __m256 vlo = _mm256_set1_ps (lo), vhi = _mm256_set1_ps (hi);
  /* undoes the packs' interleaving of the 128-bit lanes */
  const __m256i order = _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7);
  uint8_t *out = dst;
  size_t i;

  for (i = 0; i + QUANT_BLOCK <= n; i += QUANT_BLOCK) {
    __m256i q[QUANT_VECTORS], w01, w23, b;
    unsigned k;
    for (k = 0; k < QUANT_VECTORS; k++) {
      __m256 v = _mm256_loadu_ps (src + i + k * QUANT_LANES);
      v = _mm256_add_ps (_mm256_mul_ps (v, vinv), vzp);
      v = _mm256_blendv_ps (v, vzp, _mm256_cmp_ps (v, v, _CMP_UNORD_Q));
      v = _mm256_min_ps (_mm256_max_ps (v, vlo), vhi);
      q[k] = _mm256_cvtps_epi32 (v);
    }
    /* in range already: the saturating packs only narrow */
    w01 = _mm256_packs_epi32 (q[0], q[1]);
    w23 = _mm256_packs_epi32 (q[2], q[3]);
    b = is_u8 ? _mm256_packus_epi16 (w01, w23) : _mm256_packs_epi16 (w01, w23);
    b = _mm256_permutevar8x32_epi32 (b, order);
    _mm256_storeu_si256 ((__m256i *) (out + i), b);
  }
  return i;
}
#endif

/* Into the device's representation: round half to even, saturate; NaN
 * becomes the zero point. */
static void
from_float (const simnpu_tensor_spec * spec, const float *src, void *dst,
    size_t n)
{
  float inv = 1.0f / spec->scale, lo, hi;
  size_t i = 0;

  if (spec->dtype == SIMNPU_DTYPE_F32) {
    memcpy (dst, src, n * sizeof (float));
    return;
  }
  lo = spec->dtype == SIMNPU_DTYPE_U8 ? U8_MIN : I8_MIN;
  hi = spec->dtype == SIMNPU_DTYPE_U8 ? U8_MAX : I8_MAX;
#ifdef HOST_AVX2
  if (__builtin_cpu_supports ("avx2"))
    i = from_float_avx2 (src, dst, n, inv, (float) spec->zero_point, lo, hi,
        spec->dtype == SIMNPU_DTYPE_U8);
#endif
  for (; i < n; i++) {
    float v = src[i] * inv + (float) spec->zero_point;
    long q;
    if (isnan (v))
      v = (float) spec->zero_point;
    v = CLAMP (v, lo, hi);
    q = lrintf (v);
    if (spec->dtype == SIMNPU_DTYPE_U8)
      ((uint8_t *) dst)[i] = (uint8_t) q;
    else
      ((int8_t *) dst)[i] = (int8_t) q;
  }
}

static void
to_float (const simnpu_tensor_spec * spec, const void *src, float *dst,
    size_t n)
{
  size_t i;

  if (spec->dtype == SIMNPU_DTYPE_F32) {
    memcpy (dst, src, n * sizeof (float));
  } else if (spec->dtype == SIMNPU_DTYPE_U8) {
    for (i = 0; i < n; i++)
      dst[i] = spec->scale * (float) (((const uint8_t *) src)[i] -
          spec->zero_point);
  } else {
    for (i = 0; i < n; i++)
      dst[i] = spec->scale * (float) (((const int8_t *) src)[i] -
          spec->zero_point);
  }
}

static size_t
spec_elements (const simnpu_tensor_spec * spec)
{
  return spec->size_bytes / simnpu_dtype_size (spec->dtype);
}

/* The last node on the fused output, a block at a time into @block, each
 * block quantised into the caller's @dst (one byte per element). */
static void
run_fused (simnpu_host_section * s, simnpu__ir_exec * x, float *block,
    void *dst)
{
  const simnpu__ir_graph *g = s->graph;
  const simnpu__ir_node *last = &g->nodes[g->n_nodes - 1];
  const simnpu_tensor_spec *spec = &s->out_specs[s->fused_out];
  const float *in = simnpu__ir_exec_data (x, last->inputs[0]);
  size_t n = spec_elements (spec), i;

  for (i = 0; i < n; i += FUSE_BLOCK) {
    size_t len = MIN (n - i, (size_t) FUSE_BLOCK);
    simnpu__ir_f32_unary (last->op, &last->attrs, block, in + i, (int64_t) len);
    from_float (spec, block, (uint8_t *) dst + i, len);
  }
}

/**
 * simnpu_host_section_run:
 * @section: a host section
 * @inputs: one buffer per section input, as simnpu_host_section_get_input()
 *   describes it
 * @outputs: one buffer per section output, as
 *   simnpu_host_section_get_output() describes it
 * @error: (nullable): filled on failure
 *
 * Runs the section on the calling thread with the float reference
 * executor, without allocating once the section has as many executors as
 * callers run it at once. The preamble's outputs are quantised into the
 * device inputs' representation (round half to even, saturated), ready
 * for simnpu_job_submit(); the postamble's inputs are the device outputs
 * as a job wrote them, and its outputs are quantised the same way when
 * the model's public outputs are u8 or i8. Float buffers are read and written in place, so
 * inputs and outputs must not overlap.
 *
 * Callers on different threads may run a section at the same time, each
 * on an executor of the section's pool (one is made at load, another the
 * first time a run finds them all busy).
 *
 * Returns: 0, %SIMNPU_EINVAL for missing buffers, %SIMNPU_ENOMEM, or the
 *   executor's error
 */
int
simnpu_host_section_run (simnpu_host_section * s, const void *const *inputs,
    void *const *outputs, simnpu_error * error)
{
  const simnpu__ir_graph *g;
  simnpu__ir_exec *x = NULL;
  void *own_in[SIMNPU_IR_MAX_INPUTS] = { NULL };
  void *own_out[SIMNPU_IR_MAX_OUTPUTS] = { NULL };
  bool pre;
  unsigned j, slot;
  int ret;

  if (s == NULL || inputs == NULL || outputs == NULL)
    return simnpu__set_error (error, SIMNPU_EINVAL, "host section run: "
        "section, inputs and outputs must not be NULL");
  g = s->graph;
  pre = s->kind == SIMNPU_SECTION_PREAMBLE;
  for (j = 0; j < g->n_inputs; j++)
    if (inputs[j] == NULL)
      return simnpu__set_error (error, SIMNPU_EINVAL, "%s: input %u ('%s') "
          "is NULL", section_name (s->kind), j, s->in_specs[j].name);
  for (j = 0; j < g->n_outputs; j++)
    if (outputs[j] == NULL)
      return simnpu__set_error (error, SIMNPU_EINVAL, "%s: output %u ('%s') "
          "is NULL", section_name (s->kind), j, s->out_specs[j].name);

  g_mutex_lock (&s->lock);
  for (;;) {
    for (slot = 0; slot < s->n_execs && s->busy[slot]; slot++);
    if (slot < s->n_execs || s->n_execs < MAX_EXECUTORS)
      break;
    g_cond_wait (&s->cond, &s->lock);
  }
  if (slot == s->n_execs)
    s->n_execs++;
  s->busy[slot] = true;
  x = s->execs[slot];
  g_mutex_unlock (&s->lock);
  if (x == NULL) {
    /* the slot is this run's: made outside the lock, it may take long */
    simnpu__count_job_path_allocation ();
    x = exec_new (s, error);
    g_mutex_lock (&s->lock);
    s->execs[slot] = x;
    if (x != NULL && s->fused_out >= 0 && s->fuse_block[slot] == NULL)
      s->fuse_block[slot] = g_new0 (float, FUSE_BLOCK);
    if (x == NULL) {
      /* an empty slot: the next run there tries again */
      s->busy[slot] = false;
      g_cond_signal (&s->cond);
    }
    g_mutex_unlock (&s->lock);
    if (x == NULL)
      return error != NULL && error->code < 0 ? error->code : SIMNPU_ENOMEM;
  }

  for (j = 0; j < g->n_inputs; j++) {
    const simnpu_tensor_spec *spec = &s->in_specs[j];
    float *dst;
    if (s->in_place_in[j] && FLOAT_ALIGNED (inputs[j])) {
      /* the kernels only read a graph input */
      own_in[j] = simnpu__ir_exec_bind (x, g->inputs[j], (void *) inputs[j]);
      continue;
    }
    dst = simnpu__ir_exec_data (x, g->inputs[j]);
    if (pre)
      memcpy (dst, inputs[j], spec->size_bytes);
    else
      to_float (spec, inputs[j], dst, spec_elements (spec));
  }
  for (j = 0; j < g->n_outputs; j++)
    if (s->in_place_out[j] && FLOAT_ALIGNED (outputs[j]))
      own_out[j] = simnpu__ir_exec_bind (x, g->outputs[j], outputs[j]);
  ret = simnpu__ir_exec_run (x, 0, s->fused_out >= 0 ? g->n_nodes - 1 :
      g->n_nodes, error);
  if (ret == 0 && s->fused_out >= 0)
    run_fused (s, x, s->fuse_block[slot], outputs[s->fused_out]);
  for (j = 0; j < g->n_outputs; j++) {
    const float *src;
    const simnpu_tensor_spec *spec = &s->out_specs[j];
    if (own_out[j] != NULL) {
      simnpu__ir_exec_bind (x, g->outputs[j], own_out[j]);
      continue;
    }
    if (ret < 0 || (int) j == s->fused_out)
      continue;
    src = simnpu__ir_exec_data (x, g->outputs[j]);
    from_float (spec, src, outputs[j], spec_elements (spec));
  }
  for (j = 0; j < g->n_inputs; j++)
    if (own_in[j] != NULL)
      simnpu__ir_exec_bind (x, g->inputs[j], own_in[j]);

  g_mutex_lock (&s->lock);
  s->busy[slot] = false;
  g_cond_signal (&s->cond);
  g_mutex_unlock (&s->lock);
  return ret < 0 ? ret : 0;
}
