/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The conv2d kernels (the portable one and the fast dense and depthwise
 * ones behind the seam of sim-npu/kernels/kernels-private.h) against a
 * straightforward reference implementation of the arithmetic definitions
 * in sim-npu/kernels/kernels-private.h, on random shapes with odd sizes,
 * padding, strides, dilation and groups. Results must agree bit for bit.
 * test-kernels-vector.c checks the other kernels. */

#include "test-kernels-util.h"

#include <math.h>
#include <string.h>

#define N_CONV_CASES 300

/* ---------------- conv2d ---------------- */

static int8_t
ref_requant (int64_t acc, float scale, int32_t zp, int32_t lo, int32_t hi)
{
  float x = (float) acc * scale;
  int32_t q;

  if (x < -1048576.0f)
    x = -1048576.0f;
  if (x > 1048576.0f)
    x = 1048576.0f;
  q = (int32_t) lrintf (x) + zp;
  if (q < lo)
    q = lo;
  if (q > hi)
    q = hi;
  return (int8_t) q;
}

static void
ref_conv (const simnpu__conv_params * p, const int8_t * in,
    const int8_t * w, const int32_t * bias, const float *scales, int8_t * out)
{
  int icg = p->ic / p->groups, ocg = p->oc / p->groups;
  int n, oy, ox, o, ky, kx, c;

  for (n = 0; n < p->n; n++)
    for (oy = 0; oy < p->oh; oy++)
      for (ox = 0; ox < p->ow; ox++)
        for (o = 0; o < p->oc; o++) {
          int g = o / ocg;
          int64_t acc = bias[o];
          for (ky = 0; ky < p->kh; ky++)
            for (kx = 0; kx < p->kw; kx++)
              for (c = 0; c < icg; c++) {
                int iy = oy * p->sh - p->pt + ky * p->dh;
                int ix = ox * p->sw - p->pl + kx * p->dw;
                int32_t x;
                if (iy < 0 || iy >= p->ih || ix < 0 || ix >= p->iw)
                  continue;
                x = in[((n * p->ih + iy) * p->iw + ix) * p->ic + g * icg + c];
                acc += (int64_t) (x - p->in_zp) *
                    w[((o * p->kh + ky) * p->kw + kx) * icg + c];
              }
          out[((n * p->oh + oy) * p->ow + ox) * p->oc + o] =
              ref_requant (acc, scales[o], p->out_zp, p->act_min, p->act_max);
        }
}

/* Runs simnpu__conv2d on random data for p (weights zero with
 * probability zero_percent / 100, as in designed filters; inputs and
 * weights only at the ends of the int8 range if extremes) and compares it
 * with the reference. */
static void
check_conv (simnpu__conv_params * p, int t, int zero_percent, bool extremes)
{
  int icg, klen, o, k;
  size_t in_n, w_n, out_n, i;
  int8_t *in, *w, *out, *ref, *scratch;
  int32_t *bias, *folded;
  float *scales;

  icg = p->ic / p->groups;
  klen = p->kh * p->kw * icg;
  in_n = (size_t) p->n * p->ih * p->iw * p->ic;
  w_n = (size_t) p->oc * klen;
  out_n = (size_t) p->n * p->oh * p->ow * p->oc;
  in = g_malloc (in_n);
  w = g_malloc (w_n);
  out = g_malloc (out_n);
  ref = g_malloc (out_n);
  bias = g_new (int32_t, p->oc);
  folded = g_new (int32_t, p->oc);
  scales = g_new (float, p->oc);
  scratch = g_malloc (simnpu__conv2d_scratch_bytes (p));
  if (extremes) {
    fill_extremes (in, in_n);
    fill_extremes (w, w_n);
  } else {
    fill_i8 (in, in_n);
    fill_i8 (w, w_n);
  }
  for (i = 0; i < w_n; i++)
    if (rand_int (0, 99) < zero_percent)
      w[i] = 0;
  for (o = 0; o < p->oc; o++) {
    int64_t sum = 0;
    bias[o] = rand_int (-20000, 20000);
    scales[o] = (float) (g_rand_double_range (rng, 1e-4, 3e-2));
    for (k = 0; k < klen; k++)
      sum += w[o * klen + k];
    folded[o] = (int32_t) (bias[o] - p->in_zp * sum);
  }

  simnpu__conv2d_portable (p, in, w, folded, scales, out, scratch);
  ref_conv (p, in, w, bias, scales, ref);
  if (memcmp (out, ref, out_n) != 0) {
    for (i = 0; i < out_n && out[i] == ref[i]; i++);
    g_error ("conv case %d (n%d %dx%dx%d k%dx%d s%dx%d d%dx%d p%d,%d g%d "
        "oc%d, %d%% zero weights%s): element %zu is %d, reference %d", t,
        p->n, p->ih, p->iw, p->ic, p->kh, p->kw, p->sh, p->sw, p->dh, p->dw,
        p->pt, p->pl, p->groups, p->oc, zero_percent,
        extremes ? ", extreme values" : "", i, out[i], ref[i]);
  }
  g_free (in);
  g_free (w);
  g_free (out);
  g_free (ref);
  g_free (bias);
  g_free (folded);
  g_free (scales);
  g_free (scratch);
}

static void
set_out_size (simnpu__conv_params * p)
{
  int pb = rand_int (0, 3), pr = rand_int (0, 3);

  p->oh = (p->ih + p->pt + pb - p->dh * (p->kh - 1) - 1) / p->sh + 1;
  p->ow = (p->iw + p->pl + pr - p->dw * (p->kw - 1) - 1) / p->sw + 1;
}

static void
set_quant (simnpu__conv_params * p)
{
  p->in_zp = rand_int (-128, 127);
  p->out_zp = rand_int (-128, 127);
  p->act_min = rand_int (0, 1) ? p->out_zp : -128;
  p->act_max = 127;
  if (rand_int (0, 2) == 0) {
    /* a fused clip (relu6 and the like): any bounds, also inside one
     * step */
    p->act_min = rand_int (-128, 127);
    p->act_max = rand_int (p->act_min, 127);
  }
}

static void
test_conv2d_bit_exact (void)
{
  int t;

  for (t = 0; t < N_CONV_CASES; t++) {
    simnpu__conv_params p = { 0 };
    int icg;

    p.groups = rand_int (0, 3) == 0 ? rand_int (1, 4) : 1;
    icg = rand_int (1, 9);
    p.ic = icg * p.groups;
    p.oc = rand_int (1, 6) * p.groups;
    if (t % 7 == 0) {
      /* depthwise */
      p.groups = p.ic = p.oc = rand_int (1, 12);
    }
    p.n = rand_int (1, 2);
    p.kh = rand_int (1, 5);
    p.kw = rand_int (1, 5);
    p.sh = rand_int (1, 3);
    p.sw = rand_int (1, 3);
    p.dh = rand_int (1, 2);
    p.dw = rand_int (1, 2);
    p.pt = rand_int (0, 3);
    p.pl = rand_int (0, 3);
    p.ih = rand_int (p.dh * (p.kh - 1) + 1, 19);
    p.iw = rand_int (p.dw * (p.kw - 1) + 1, 23);
    set_out_size (&p);
    set_quant (&p);
    check_conv (&p, t, t % 3 == 0 ? 0 : rand_int (0, 90), t % 5 == 4);
  }
}

/* The thin convolutions of designed detectors: 1x1 with few channels
 * (the constant-stride gather and interleave paths, the single fused
 * pass), and 1xK / Kx1 windows on one or two channels, wider than the
 * four-tap passes, with many zero taps, odd sizes, pads and strides. */
static void
test_conv2d_thin_bit_exact (void)
{
  int t;

  for (t = 0; t < N_CONV_CASES; t++) {
    simnpu__conv_params p = { 0 };
    int wide = rand_int (1, 35);

    p.n = 1;
    p.groups = 1;
    p.dh = p.dw = 1;
    switch (t % 3) {
      case 0:
        p.ic = rand_int (1, 9);
        p.oc = rand_int (1, 9);
        p.kh = p.kw = 1;
        p.sh = p.sw = t % 2 ? 1 : rand_int (1, 3);
        p.pt = p.pl = t % 5 == 0 ? rand_int (0, 2) : 0;
        break;
      case 1:
        p.ic = rand_int (1, 2);
        p.oc = rand_int (1, 3);
        p.kh = 1;
        p.kw = wide;
        p.sh = 1;
        p.sw = rand_int (1, 2);
        p.pt = 0;
        p.pl = rand_int (0, wide / 2 + 1);
        break;
      default:
        p.ic = rand_int (1, 2);
        p.oc = rand_int (1, 3);
        p.kh = wide;
        p.kw = 1;
        p.sh = rand_int (1, 2);
        p.sw = 1;
        p.pt = rand_int (0, wide / 2 + 1);
        p.pl = 0;
        break;
    }
    p.ih = rand_int (p.kh, p.kh + 40);
    p.iw = rand_int (p.kw, p.kw + 70);
    set_out_size (&p);
    if (t % 12 == 0) {
      /* a pointwise conv as the graph runs it: one long row, in chunks */
      p.sh = p.sw = 1;
      p.pt = p.pl = 0;
      p.ih = p.oh = 1;
      p.iw = p.ow = rand_int (1, 3) * 2048 + rand_int (-3, 3);
    }
    set_quant (&p);
    check_conv (&p, t, rand_int (0, 2) * 45, t % 4 == 3);
  }
}

/* ---------------- conv2d: the fast dense kernels ---------------- */

#define N_DENSE_CASES 400
#define DENSE_SEED 20261201
/* the narrowest outputs the dense kernels take (kernels-dense.c), and
 * for one input channel */
#define DENSE_MIN_OC 2
#define DENSE_MIN_OC_ONE_CHANNEL 8
/* at or below both, a conv stays with the portable kernel */
#define DENSE_THIN_MAX_TAPS 8
#define DENSE_THIN_MAX_OC 8
/* the channels of a full panel of the dense kernels */
#define DENSE_PANEL_WIDE 16
/* the requantisation scale and bias bounds the graph allows */
#define DENSE_MAX_SCALE 65535.0
#define DENSE_MAX_BIAS (1 << 30)

static GRand *dense_rng;

static int
dense_int (int lo, int hi)
{
  return g_rand_int_range (dense_rng, lo, hi + 1);
}

/* a per-channel scale: mostly ordinary, sometimes tiny (every output at
 * the zero point) or huge (saturating), as far as the graph allows */
static float
dense_scale (void)
{
  switch (dense_int (0, 5)) {
    case 0:
      return (float) g_rand_double_range (dense_rng, 1e-9, 1e-7);
    case 1:
      return (float) g_rand_double_range (dense_rng, 1.0, DENSE_MAX_SCALE);
    case 2:
      return (float) g_rand_double_range (dense_rng, 1e-6, 1e-3);
    default:
      return (float) g_rand_double_range (dense_rng, 1e-4, 3e-2);
  }
}

/* Runs simnpu__conv2d with the packed weights of the dense kernels on
 * random data and compares it with the reference and with the portable
 * kernel. The fast kernel gets its scratch misaligned on purpose (the
 * portable one keeps pointers there and gets it as allocated), and every
 * buffer has its exact size so that the sanitizers see any read past
 * it. */
static void
check_dense (simnpu__conv_params * p, int t, bool extremes, bool wide_bias)
{
  int klen = p->kh * p->kw * p->ic, o, k;
  size_t in_n = (size_t) p->n * p->ih * p->iw * p->ic;
  size_t w_n = (size_t) p->oc * klen;
  size_t out_n = (size_t) p->n * p->oh * p->ow * p->oc, i;
  size_t packed_n = simnpu__conv2d_packed_bytes (p);
  int8_t *in, *w, *out, *port, *ref, *scratch_mem;
  int32_t *bias, *folded;
  float *scales;
  void *packed;

  g_assert_cmpuint (out_n, >, 0);
  if (packed_n == 0)
    g_error ("dense case %d (%dx%dx%d k%dx%d oc%d): no fast kernel", t,
        p->ih, p->iw, p->ic, p->kh, p->kw, p->oc);
  in = g_malloc (in_n);
  w = g_malloc (w_n);
  out = g_malloc (out_n);
  port = g_malloc (out_n);
  ref = g_malloc (out_n);
  bias = g_new (int32_t, p->oc);
  folded = g_new (int32_t, p->oc);
  scales = g_new (float, p->oc);
  scratch_mem = g_malloc (simnpu__conv2d_scratch_bytes (p) + 1);
  packed = g_aligned_alloc (packed_n, 1, 64);
  for (i = 0; i < in_n; i++)
    in[i] = (int8_t) (extremes ? (dense_int (0, 1) ? -128 : 127) :
        dense_int (-128, 127));
  for (i = 0; i < w_n; i++)
    w[i] = (int8_t) (extremes ? (dense_int (0, 1) ? -128 : 127) :
        dense_int (-128, 127));
  if (!extremes && dense_int (0, 2) == 0)
    for (i = 0; i < w_n; i++)
      if (dense_int (0, 1))
        w[i] = 0;
  for (o = 0; o < p->oc; o++) {
    int64_t sum = 0;
    bias[o] = wide_bias ? dense_int (-DENSE_MAX_BIAS, DENSE_MAX_BIAS) :
        dense_int (-20000, 20000);
    scales[o] = dense_scale ();
    for (k = 0; k < klen; k++)
      sum += w[(size_t) o * klen + k];
    folded[o] = (int32_t) (bias[o] - p->in_zp * sum);
  }
  simnpu__conv2d_pack (p, w, packed);
  /* the fast kernel must not depend on what scratch held before */
  memset (scratch_mem, 0x5a, simnpu__conv2d_scratch_bytes (p) + 1);
  simnpu__conv2d (p, in, w, packed, folded, scales, out, scratch_mem + 1);
  simnpu__conv2d_portable (p, in, w, folded, scales, port, scratch_mem);
  ref_conv (p, in, w, bias, scales, ref);
  if (memcmp (port, ref, out_n) != 0)
    g_error ("dense case %d: the portable kernel is not the reference", t);
  if (memcmp (out, ref, out_n) != 0) {
    for (i = 0; i < out_n && out[i] == ref[i]; i++);
    g_error ("dense case %d (n%d %dx%dx%d k%dx%d s%dx%d d%dx%d p%d,%d oc%d "
        "zp %d,%d act %d..%d%s): element %zu (channel %zu) is %d, "
        "reference %d", t, p->n, p->ih, p->iw, p->ic, p->kh, p->kw, p->sh,
        p->sw, p->dh, p->dw, p->pt, p->pl, p->oc, p->in_zp, p->out_zp,
        p->act_min, p->act_max, extremes ? ", extreme values" : "", i,
        i % p->oc, out[i], ref[i]);
  }
  g_free (in);
  g_free (w);
  g_free (out);
  g_free (port);
  g_free (ref);
  g_free (bias);
  g_free (folded);
  g_free (scales);
  g_free (scratch_mem);
  g_aligned_free (packed);
}

static void
dense_quant (simnpu__conv_params * p)
{
  p->in_zp = dense_int (-128, 127);
  p->out_zp = dense_int (-128, 127);
  p->act_min = dense_int (0, 1) ? p->out_zp : -128;
  p->act_max = 127;
  if (dense_int (0, 2) == 0) {
    p->act_min = dense_int (-128, 127);
    p->act_max = dense_int (p->act_min, 127);
  }
}

/* Dense and pointwise convs (groups == 1) through the fast kernels, on
 * the shapes they meet: pointwise convs flattened into one long row of
 * odd length as the graph runs them, k x k windows up to 7 with strides,
 * dilation and padding, the three-channel first layer, channel counts
 * that are not multiples of the vector widths; weights -128 included,
 * scales and biases to the graph's limits. */
static void
test_conv2d_dense_fast (void)
{
  int t;

  if (!__builtin_cpu_supports ("avx2")) {
    g_test_skip ("the dense kernels need AVX2");
    return;
  }
  dense_rng = g_rand_new_with_seed (DENSE_SEED);
  for (t = 0; t < N_DENSE_CASES; t++) {
    simnpu__conv_params p = { 0 };
    int pb, pr;

    p.n = dense_int (0, 7) == 0 ? 2 : 1;
    p.groups = 1;
    p.dh = p.dw = 1;
    p.sh = p.sw = 1;
    p.oc = dense_int (0, 3) == 0 ? dense_int (DENSE_MIN_OC, 200) :
        dense_int (DENSE_MIN_OC, 40);
    if (dense_int (0, 4) == 0)
      p.oc = dense_int (DENSE_MIN_OC, 9);
    /* every tenth case has 21 to 28 channels past a multiple of 16, so
     * that the panels of 24, 16 and 8 channels all end partly outside oc
     * in some cases */
    if (t % 10 == 7)
      p.oc = DENSE_PANEL_WIDE * dense_int (0, 3) + dense_int (21, 28);
    switch (t % 4) {
      case 0:
        /* pointwise, as one long row */
        p.ic = dense_int (0, 3) == 0 ? dense_int (100, 700) : dense_int (1, 99);
        p.kh = p.kw = 1;
        p.ih = p.oh = 1;
        p.iw = p.ow = dense_int (1, 600);
        break;
      case 1:
        /* the first layer: few channels, stride 2, SAME-like padding */
        p.ic = dense_int (1, 4);
        p.kh = p.kw = dense_int (0, 2) ? 3 : dense_int (1, 7);
        p.sh = p.sw = dense_int (1, 2);
        p.ih = dense_int (p.kh, 40);
        p.iw = dense_int (p.kw, 40);
        p.pt = dense_int (0, p.kh / 2);
        p.pl = dense_int (0, p.kw / 2);
        break;
      default:
        p.ic = dense_int (1, 48);
        p.kh = dense_int (1, 7);
        p.kw = dense_int (1, 7);
        p.sh = dense_int (1, 3);
        p.sw = dense_int (1, 3);
        p.dh = dense_int (0, 3) == 0 ? dense_int (1, 3) : 1;
        p.dw = dense_int (0, 3) == 0 ? dense_int (1, 3) : 1;
        p.pt = dense_int (0, 3);
        p.pl = dense_int (0, 3);
        /* short rows go through im2row, wide ones (in several chunks
         * for many channels) are read in place */
        p.ih = dense_int (p.dh * (p.kh - 1) + 1, 20);
        p.iw = dense_int (p.dw * (p.kw - 1) + 1, dense_int (0, 1) ? 24 : 90);
        break;
    }
    if (t % 4 != 0) {
      pb = dense_int (0, 3);
      pr = dense_int (0, 3);
      p.oh = (p.ih + p.pt + pb - p.dh * (p.kh - 1) - 1) / p.sh + 1;
      p.ow = (p.iw + p.pl + pr - p.dw * (p.kw - 1) - 1) / p.sw + 1;
    }
    if (p.ic == 1)
      p.oc = MAX (p.oc, DENSE_MIN_OC_ONE_CHANNEL);
    if (p.kh * p.kw * p.ic <= DENSE_THIN_MAX_TAPS && p.oc <= DENSE_THIN_MAX_OC)
      p.oc = DENSE_THIN_MAX_OC + 1;
    dense_quant (&p);
    check_dense (&p, t, t % 9 == 8, t % 5 == 3);
  }
  g_rand_free (dense_rng);
}

/* ---------------- depthwise conv2d, fast kernels ---------------- */

#define N_DW_CASES 600
/* the requantisation scales the graph allows, and its bias bound */
#define DW_MIN_SCALE 1e-9
#define DW_MAX_SCALE 65535.0
#define DW_MAX_BIAS (1 << 30)

/* A random depthwise shape: many channels (tails of every size), windows
 * up to 7x7, strides up to 3, dilation, asymmetric padding; small images
 * for wide channels, some tall ones (several bands of rows). */
static void
dw_random_shape (simnpu__conv_params * p, int t)
{
  /* one channel is a dense conv (groups 1) */
  int c = t % 4 == 0 ? rand_int (2, 300) : rand_int (2, 40);
  int max_hw = c > 100 ? 14 : (t % 9 == 0 ? 48 : 24);

  p->groups = p->ic = p->oc = c;
  p->n = rand_int (0, 5) == 0 ? 2 : 1;
  p->kh = rand_int (1, 7);
  p->kw = rand_int (0, 3) == 0 ? rand_int (1, 7) : p->kh;
  p->sh = rand_int (1, 3);
  p->sw = rand_int (0, 3) == 0 ? rand_int (1, 3) : p->sh;
  p->dh = rand_int (0, 3) == 0 ? 2 : 1;
  p->dw = rand_int (0, 3) == 0 ? 2 : 1;
  /* now and then more padding than the window, whole rows of it */
  p->pt = rand_int (0, t % 11 == 0 ? p->kh + 2 : p->kh);
  p->pl = rand_int (0, t % 11 == 0 ? p->kw + 2 : p->kw);
  p->ih = rand_int (p->dh * (p->kh - 1) + 1, MAX (max_hw,
          p->dh * (p->kh - 1) + 1));
  p->iw = rand_int (p->dw * (p->kw - 1) + 1, MAX (max_hw,
          p->dw * (p->kw - 1) + 1));
  set_out_size (p);
  set_quant (p);
}

/* simnpu__conv2d with weights packed by simnpu__conv2d_pack against the
 * reference and the portable kernel on random depthwise shapes, with the
 * extreme values the 16-bit multiply-adds must take (weights and inputs of
 * -128, biases up to 2^30, scales at the graph's limits). */
static void
test_conv_depthwise_fast (void)
{
  int t, taken = 0;

  if (!__builtin_cpu_supports ("avx2")) {
    g_test_skip ("no AVX2: no fast depthwise kernel");
    return;
  }
  for (t = 0; t < N_DW_CASES; t++) {
    simnpu__conv_params p = { 0 };
    size_t in_n, w_n, out_n, i, packed_bytes;
    int8_t *in, *w, *out, *port, *ref, *scratch;
    int32_t *bias, *folded;
    float *scales;
    void *packed;
    int o, k, klen;

    dw_random_shape (&p, t);
    klen = p.kh * p.kw;
    in_n = (size_t) p.n * p.ih * p.iw * p.ic;
    w_n = (size_t) p.oc * klen;
    out_n = (size_t) p.n * p.oh * p.ow * p.oc;
    packed_bytes = simnpu__conv2d_packed_bytes (&p);
    g_assert_cmpuint (packed_bytes, >, 0);
    taken++;
    in = g_malloc (in_n);
    w = g_malloc (w_n);
    out = g_malloc (out_n);
    port = g_malloc (out_n);
    ref = g_malloc (out_n);
    bias = g_new (int32_t, p.oc);
    folded = g_new (int32_t, p.oc);
    scales = g_new (float, p.oc);
    scratch = g_malloc (simnpu__conv2d_scratch_bytes (&p));
    packed = g_aligned_alloc (packed_bytes, 1, 64);
    if (t % 5 == 4) {
      fill_extremes (in, in_n);
      fill_extremes (w, w_n);
    } else {
      fill_i8 (in, in_n);
      fill_i8 (w, w_n);
    }
    if (t % 3 == 1)
      for (i = 0; i < w_n; i++)
        if (rand_int (0, 1))
          w[i] = 0;
    for (o = 0; o < p.oc; o++) {
      int64_t sum = 0;
      switch (rand_int (0, 3)) {
        case 0:
          bias[o] = rand_int (-DW_MAX_BIAS, DW_MAX_BIAS);
          break;
        case 1:
          bias[o] = rand_int (0, 1) ? DW_MAX_BIAS : -DW_MAX_BIAS;
          break;
        default:
          bias[o] = rand_int (-20000, 20000);
          break;
      }
      switch (rand_int (0, 4)) {
        case 0:
          /* log-uniform over the whole range */
          scales[o] = (float) exp (g_rand_double_range (rng,
                  log (DW_MIN_SCALE), log (DW_MAX_SCALE)));
          break;
        case 1:
          scales[o] = rand_int (0, 1) ? (float) DW_MIN_SCALE :
              (float) DW_MAX_SCALE;
          break;
        default:
          scales[o] = (float) g_rand_double_range (rng, 1e-5, 3e-2);
          break;
      }
      for (k = 0; k < klen; k++)
        sum += w[o * klen + k];
      folded[o] = (int32_t) (bias[o] - p.in_zp * sum);
    }
    simnpu__conv2d_pack (&p, w, packed);
    simnpu__conv2d (&p, in, w, packed, folded, scales, out, scratch);
    simnpu__conv2d_portable (&p, in, w, folded, scales, port, scratch);
    ref_conv (&p, in, w, bias, scales, ref);
    for (i = 0; i < out_n; i++)
      if (out[i] != ref[i] || port[i] != ref[i])
        g_error ("depthwise case %d (n%d %dx%dx%d k%dx%d s%dx%d d%dx%d "
            "p%d,%d out %dx%d zp %d,%d act %d..%d): element %zu (channel "
            "%zu) is %d, portable %d, reference %d", t, p.n, p.ih, p.iw,
            p.ic, p.kh, p.kw, p.sh, p.sw, p.dh, p.dw, p.pt, p.pl, p.oh, p.ow,
            p.in_zp, p.out_zp, p.act_min, p.act_max, i, i % p.oc, out[i],
            port[i], ref[i]);
    g_free (in);
    g_free (w);
    g_free (out);
    g_free (port);
    g_free (ref);
    g_free (bias);
    g_free (folded);
    g_free (scales);
    g_free (scratch);
    g_aligned_free (packed);
  }
  g_assert_cmpint (taken, ==, N_DW_CASES);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  rng = g_rand_new_with_seed (SEED);
  g_test_add_func ("/simnpu/kernels/conv2d", test_conv2d_bit_exact);
  g_test_add_func ("/simnpu/kernels/conv2d-thin", test_conv2d_thin_bit_exact);
  g_test_add_func ("/simnpu/kernels/conv-dense-fast", test_conv2d_dense_fast);
  g_test_add_func ("/simnpu/kernels/conv-depthwise-fast",
      test_conv_depthwise_fast);
  ret = g_test_run ();
  g_rand_free (rng);
  return ret;
}
