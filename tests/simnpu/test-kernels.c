/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Each int8 kernel against a straightforward reference implementation of
 * the arithmetic definitions in sim-npu/kernels.c, on random shapes with
 * odd sizes, padding, strides, dilation and groups. Results must agree bit
 * for bit. */

#include "simnpu-private.h"

#include <math.h>
#include <string.h>

#define SEED 20260101
#define N_CONV_CASES 300
#define N_ELTWISE_CASES 200
#define N_POOL_CASES 200
#define N_TRANSPOSE_CASES 200

static GRand *rng;

static int
rand_int (int lo, int hi)
{
  return g_rand_int_range (rng, lo, hi + 1);
}

static void
fill_i8 (int8_t * p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (int8_t) rand_int (-128, 127);
}

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

/* int8 values at the ends of the range, where pairs of products are
 * largest (the 16-bit multiply-add of the AVX2 passes) */
static void
fill_extremes (int8_t * p, size_t n)
{
  static const int8_t ends[] = { -128, -127, 126, 127 };
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = ends[rand_int (0, G_N_ELEMENTS (ends) - 1)];
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

/* ---------------- add / mul ---------------- */

static int8_t
ref_eltwise (bool add, int32_t a, int32_t b, int64_t ma, int64_t mb, int32_t zo)
{
  int64_t v = add ? a * ma + b * mb : (int64_t) a * b * ma;
  int64_t r = (v + (G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1)));
  int64_t q = (r >> SIMNPU_ELTWISE_SHIFT) + zo;

  return (int8_t) CLAMP (q, -128, 127);
}

static void
test_eltwise_bit_exact (void)
{
  int t;

  for (t = 0; t < N_ELTWISE_CASES; t++) {
    int64_t da[4], db[4], dout[4];
    int64_t i0, i1, i2, i3;
    bool add = t % 2 == 0;
    int32_t za = rand_int (-128, 127), zb = rand_int (-128, 127);
    int32_t zo = rand_int (-128, 127);
    int64_t ma = rand_int (1, 1 << 25), mb = rand_int (1, 1 << 25);
    size_t na, nb, no;
    int8_t *a, *b, *out, *ref;
    int d;

    if (!add)
      ma = rand_int (1, 1 << 18);
    for (d = 0; d < 4; d++) {
      dout[d] = rand_int (1, d == 0 ? 2 : 7);
      da[d] = rand_int (0, 3) == 0 ? 1 : dout[d];
      db[d] = rand_int (0, 3) == 0 ? 1 : dout[d];
      if (t % 4 < 2) {
        /* same shapes: the flat path, with multipliers over the whole
         * 32-bit range for add (its split arithmetic) and beyond */
        dout[d] = rand_int (1, d == 0 ? 2 : 23);
        da[d] = db[d] = dout[d];
      }
    }
    if (t % 4 == 0) {
      ma = (int32_t) g_rand_int (rng);
      mb = (int32_t) g_rand_int (rng);
      if (t % 8 == 0)
        mb = G_MAXINT32;
      if (t % 16 == 0)
        ma = G_MININT32;
      if (t % 12 == 0)
        ma = (int64_t) G_MAXINT32 + rand_int (1, 1000);
      if (t % 8 == 4) {
        /* high halves (m >> SHIFT / 2) in 16 bits, either sign: the AVX2
         * multiply-add path, up to its bounds */
        const int32_t half = 1 << (SIMNPU_ELTWISE_SHIFT / 2);
        ma = rand_int (G_MININT16 * half, G_MAXINT16 * half + half - 1);
        mb = rand_int (G_MININT16 * half, G_MAXINT16 * half + half - 1);
        if (t % 24 == 4) {
          ma = G_MAXINT16 * half + half - 1;
          mb = G_MININT16 * half;
        }
      }
    }
    na = da[0] * da[1] * da[2] * da[3];
    nb = db[0] * db[1] * db[2] * db[3];
    no = dout[0] * dout[1] * dout[2] * dout[3];
    a = g_malloc (na);
    b = g_malloc (nb);
    out = g_malloc (no);
    ref = g_malloc (no);
    fill_i8 (a, na);
    fill_i8 (b, nb);
    simnpu__eltwise (add ? SIMNPU_OP_ADD : SIMNPU_OP_MUL, da, a, za, db, b,
        zb, dout, out, zo, ma, mb);
    for (i0 = 0; i0 < dout[0]; i0++)
      for (i1 = 0; i1 < dout[1]; i1++)
        for (i2 = 0; i2 < dout[2]; i2++)
          for (i3 = 0; i3 < dout[3]; i3++) {
            int64_t ia = (((i0 % da[0]) * da[1] + i1 % da[1]) * da[2] +
                i2 % da[2]) * da[3] + i3 % da[3];
            int64_t ib = (((i0 % db[0]) * db[1] + i1 % db[1]) * db[2] +
                i2 % db[2]) * db[3] + i3 % db[3];
            int64_t io = ((i0 * dout[1] + i1) * dout[2] + i2) * dout[3] + i3;
            ref[io] = ref_eltwise (add, a[ia] - za, b[ib] - zb, ma, mb, zo);
          }
    g_assert_cmpmem (out, no, ref, no);
    g_free (a);
    g_free (b);
    g_free (out);
    g_free (ref);
  }
}

/* maximum and minimum: every path of the flat kernel (byte-wise with one
 * quantisation, 32-bit split multipliers, 64-bit beyond) and the
 * broadcast one against the 64-bit definition */
static void
test_minmax_bit_exact (void)
{
  const int64_t unit = G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT;
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  int t;

  for (t = 0; t < N_ELTWISE_CASES; t++) {
    bool is_max = t % 2 == 0, flat = t % 3 != 0;
    int32_t za = rand_int (-128, 127), zb = rand_int (-128, 127);
    int32_t zo = rand_int (-128, 127);
    int64_t ma = rand_int (1, G_MAXINT32 - 1), mb = rand_int (1, 1 << 25);
    int64_t da[4], db[4], dout[4], i0, i1, i2, i3;
    size_t na, nb, no;
    int8_t *a, *b, *out, *ref;
    int d;

    if (t % 5 == 0) {
      ma = mb = unit;
      za = zb = zo;
    } else if (t % 7 == 0) {
      ma = (int64_t) G_MAXINT32 + rand_int (1, 1 << 20);
    }
    for (d = 0; d < 4; d++) {
      dout[d] = rand_int (1, d == 0 ? 2 : 9);
      da[d] = flat || rand_int (0, 2) ? dout[d] : 1;
      db[d] = flat || rand_int (0, 2) ? dout[d] : 1;
    }
    na = da[0] * da[1] * da[2] * da[3];
    nb = db[0] * db[1] * db[2] * db[3];
    no = dout[0] * dout[1] * dout[2] * dout[3];
    a = g_malloc (na);
    b = g_malloc (nb);
    out = g_malloc (no);
    ref = g_malloc (no);
    fill_i8 (a, na);
    fill_i8 (b, nb);
    simnpu__eltwise (is_max ? SIMNPU_OP_MAXIMUM : SIMNPU_OP_MINIMUM, da, a,
        za, db, b, zb, dout, out, zo, ma, mb);
    for (i0 = 0; i0 < dout[0]; i0++)
      for (i1 = 0; i1 < dout[1]; i1++)
        for (i2 = 0; i2 < dout[2]; i2++)
          for (i3 = 0; i3 < dout[3]; i3++) {
            int64_t ia = (((i0 % da[0]) * da[1] + i1 % da[1]) * da[2] +
                i2 % da[2]) * da[3] + i3 % da[3];
            int64_t ib = (((i0 % db[0]) * db[1] + i1 % db[1]) * db[2] +
                i2 % db[2]) * db[3] + i3 % db[3];
            int64_t io = ((i0 * dout[1] + i1) * dout[2] + i2) * dout[3] + i3;
            int64_t va = (a[ia] - za) * ma, vb = (b[ib] - zb) * mb;
            int64_t v = is_max ? MAX (va, vb) : MIN (va, vb);
            ref[io] = (int8_t) CLAMP (((v + round) >> SIMNPU_ELTWISE_SHIFT)
                + zo, -128, 127);
          }
    g_assert_cmpmem (out, no, ref, no);
    g_free (a);
    g_free (b);
    g_free (out);
    g_free (ref);
  }
}

/* ---------------- transpose ---------------- */

/* Random rank-4 permutations, one dimension often long enough for the
 * shuffled gathers of the strided innermost run (strides 2..8 among
 * others), against a plain index loop. */
static void
test_transpose (void)
{
  int t;

  for (t = 0; t < N_TRANSPOSE_CASES; t++) {
    int64_t din[4], dout[4], stride[4], ps[4];
    int perm[4] = { 0, 1, 2, 3 };
    int64_t i0, i1, i2, i3;
    size_t n;
    int8_t *in, *out, *ref;
    int d;

    for (d = 3; d > 0; d--) {
      int e = rand_int (0, d), tmp = perm[d];
      perm[d] = perm[e];
      perm[e] = tmp;
    }
    for (d = 0; d < 4; d++)
      din[d] = rand_int (1, 6);
    /* the output's innermost run, long enough to take the fast gather */
    din[perm[3]] = rand_int (1, 120);
    stride[3] = 1;
    for (d = 2; d >= 0; d--)
      stride[d] = stride[d + 1] * din[d + 1];
    for (d = 0; d < 4; d++) {
      dout[d] = din[perm[d]];
      ps[d] = stride[perm[d]];
    }
    n = din[0] * din[1] * din[2] * din[3];
    in = g_malloc (n);
    out = g_malloc (n);
    ref = g_malloc (n);
    fill_i8 (in, n);
    simnpu__transpose (in, ps, dout, out);
    for (i0 = 0; i0 < dout[0]; i0++)
      for (i1 = 0; i1 < dout[1]; i1++)
        for (i2 = 0; i2 < dout[2]; i2++)
          for (i3 = 0; i3 < dout[3]; i3++)
            ref[((i0 * dout[1] + i1) * dout[2] + i2) * dout[3] + i3] =
                in[i0 * ps[0] + i1 * ps[1] + i2 * ps[2] + i3 * ps[3]];
    g_assert_cmpmem (out, n, ref, n);
    g_free (in);
    g_free (out);
    g_free (ref);
  }
}

/* ---------------- copy_box (concat, split, slice) ---------------- */

static void
test_copy_box (void)
{
  int t;

  for (t = 0; t < N_POOL_CASES; t++) {
    int64_t sd[4], dd[4], sb[4], db[4], size[4];
    int64_t i0, i1, i2, i3;
    bool whole = t % 2 == 0;
    bool identity = t % 3 != 0;
    int32_t zp_in = identity ? 0 : rand_int (-128, 127);
    int32_t zp_out = identity ? 0 : rand_int (-128, 127);
    int64_t mult = identity ? G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT :
        (int64_t) rand_int (1, 1 << 26);
    size_t ns, nd;
    int8_t *src, *dst, *ref;
    int d;

    for (d = 0; d < 4; d++) {
      sd[d] = rand_int (1, d == 0 ? 2 : 9);
      dd[d] = whole && (d == 1 || d == 2) ? sd[d] : rand_int (1, 9);
      if (d == 0)
        dd[d] = sd[d];
      size[d] = rand_int (1, (int) MIN (sd[d], dd[d]));
      if (whole && d < 3)
        size[d] = sd[d];
      sb[d] = rand_int (0, (int) (sd[d] - size[d]));
      db[d] = rand_int (0, (int) (dd[d] - size[d]));
      if (whole && d < 3)
        sb[d] = db[d] = 0;
    }
    if (t % 4 == 0) {
      /* a whole source tensor into a channel slice (a concat) */
      dd[3] = rand_int (1, 9);
      sd[3] = size[3] = rand_int (1, (int) dd[3]);
      sb[3] = 0;
      db[3] = rand_int (0, (int) (dd[3] - size[3]));
    }
    ns = sd[0] * sd[1] * sd[2] * sd[3];
    nd = dd[0] * dd[1] * dd[2] * dd[3];
    src = g_malloc (ns);
    dst = g_malloc (nd);
    ref = g_malloc (nd);
    fill_i8 (src, ns);
    fill_i8 (dst, nd);
    memcpy (ref, dst, nd);
    simnpu__copy_box (src, sd, sb, dst, dd, db, size, zp_in, zp_out, mult);
    for (i0 = 0; i0 < size[0]; i0++)
      for (i1 = 0; i1 < size[1]; i1++)
        for (i2 = 0; i2 < size[2]; i2++)
          for (i3 = 0; i3 < size[3]; i3++) {
            int64_t v = src[(((sb[0] + i0) * sd[1] + sb[1] + i1) * sd[2]
                    + sb[2] + i2) * sd[3] + sb[3] + i3];
            int64_t q = (((v - zp_in) * mult + (G_GINT64_CONSTANT (1) <<
                        (SIMNPU_ELTWISE_SHIFT - 1))) >> SIMNPU_ELTWISE_SHIFT)
                + zp_out;
            ref[(((db[0] + i0) * dd[1] + db[1] + i1) * dd[2] + db[2] + i2)
                * dd[3] + db[3] + i3] = (int8_t) CLAMP (q, -128, 127);
          }
    g_assert_cmpmem (dst, nd, ref, nd);
    g_free (src);
    g_free (dst);
    g_free (ref);
  }
}

/* ---------------- pools ---------------- */

static void
test_pool_bit_exact (void)
{
  int t;

  for (t = 0; t < N_POOL_CASES; t++) {
    bool is_max = t % 2 == 0;
    int kh = rand_int (1, 4), kw = rand_int (1, 4);
    int sh = rand_int (1, 3), sw = rand_int (1, 3);
    int pt = rand_int (0, kh - 1), pl = rand_int (0, kw - 1);
    int pb = rand_int (0, kh - 1), pr = rand_int (0, kw - 1);
    int64_t din[4], dout[4];
    int32_t zp = rand_int (-128, 127);

    if (t % 5 < 2) {
      /* the unpadded 2x2 stride-2 fast path, odd sizes included */
      kh = kw = sh = sw = 2;
      pt = pl = pb = pr = 0;
    }
    int64_t n, oy, ox, c;
    size_t ni, no;
    int8_t *in, *out, *ref;

    din[0] = rand_int (1, 2);
    din[1] = rand_int (kh, 17);
    din[2] = rand_int (kw, 17);
    din[3] = rand_int (1, 5);
    dout[0] = din[0];
    dout[1] = (din[1] + pt + pb - kh) / sh + 1;
    dout[2] = (din[2] + pl + pr - kw) / sw + 1;
    dout[3] = din[3];
    ni = din[0] * din[1] * din[2] * din[3];
    no = dout[0] * dout[1] * dout[2] * dout[3];
    in = g_malloc (ni);
    out = g_malloc (no);
    ref = g_malloc (no);
    fill_i8 (in, ni);
    simnpu__pool (is_max, din, in, dout, out, kh, kw, sh, sw, pt, pl, zp);
    for (n = 0; n < dout[0]; n++)
      for (oy = 0; oy < dout[1]; oy++)
        for (ox = 0; ox < dout[2]; ox++)
          for (c = 0; c < dout[3]; c++) {
            int32_t best = -128, sum = 0, count = 0, v;
            int ky, kx;
            for (ky = 0; ky < kh; ky++)
              for (kx = 0; kx < kw; kx++) {
                int64_t iy = oy * sh - pt + ky, ix = ox * sw - pl + kx;
                if (iy < 0 || iy >= din[1] || ix < 0 || ix >= din[2])
                  continue;
                v = in[((n * din[1] + iy) * din[2] + ix) * din[3] + c];
                best = MAX (best, v);
                sum += v - zp;
                count++;
              }
            if (is_max) {
              v = best;
            } else {
              /* round half away from zero */
              double avg = (double) sum / count;
              v = zp + (int32_t) (avg >= 0 ? floor (avg + 0.5) :
                  -floor (-avg + 0.5));
            }
            ref[((n * dout[1] + oy) * dout[2] + ox) * dout[3] + c] =
                (int8_t) CLAMP (v, -128, 127);
          }
    g_assert_cmpmem (out, no, ref, no);
    g_free (in);
    g_free (out);
    g_free (ref);
  }
}

/* ---------------- LUT ops ---------------- */

static void
test_lut_ops (void)
{
  simnpu__op_type types[] = { SIMNPU_OP_RELU, SIMNPU_OP_SIGMOID,
    SIMNPU_OP_SILU
  };
  int8_t lut[256], in[256], out[256];
  unsigned t;
  int i;

  for (i = 0; i < 256; i++)
    in[i] = (int8_t) (i - 128);
  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    float si = 0.05f, so = t == 1 ? 1.0f / 256 : 0.04f;
    int32_t zi = 3, zo = t == 1 ? -128 : -20;
    simnpu__build_lut (types[t], si, zi, so, zo, lut);
    simnpu__lut (lut, in, out, 256);
    for (i = 0; i < 256; i++) {
      double x = (double) si * (in[i] - zi), y, r;
      if (types[t] == SIMNPU_OP_RELU)
        y = x > 0 ? x : 0;
      else if (types[t] == SIMNPU_OP_SIGMOID)
        y = 1.0 / (1.0 + exp (-x));
      else
        y = x / (1.0 + exp (-x));
      r = CLAMP (round (y / so) + zo, -128, 127);
      g_assert_cmpint (out[i], ==, (int) r);
    }
  }
}

static void
test_requant_copy (void)
{
  int8_t in[100], out[100];
  int i, t;

  fill_i8 (in, sizeof (in));
  /* scale ratio 0.5, zero point -10 -> 20 */
  simnpu__requant_copy (in, out, sizeof (in), -10, 20,
      G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1));
  for (i = 0; i < 100; i++) {
    int64_t v = ((int64_t) (in[i] + 10) * (1 << (SIMNPU_ELTWISE_SHIFT - 1)) +
        (1 << (SIMNPU_ELTWISE_SHIFT - 1))) >> SIMNPU_ELTWISE_SHIFT;
    g_assert_cmpint (out[i], ==, CLAMP (v + 20, -128, 127));
  }
  /* multipliers over the 32-bit split path's range and beyond it */
  for (t = 0; t < 64; t++) {
    int32_t zi = rand_int (-128, 127), zo = rand_int (-128, 127);
    int64_t m = t % 8 == 7 ? (int64_t) G_MAXINT32 + rand_int (1, 1 << 20) :
        t % 8 == 6 ? G_MAXINT32 : rand_int (0, G_MAXINT32 - 1);
    fill_i8 (in, sizeof (in));
    simnpu__requant_copy (in, out, sizeof (in), zi, zo, m);
    for (i = 0; i < 100; i++) {
      int64_t v = ((int64_t) (in[i] - zi) * m +
          (1 << (SIMNPU_ELTWISE_SHIFT - 1))) >> SIMNPU_ELTWISE_SHIFT;
      g_assert_cmpint (out[i], ==, CLAMP (v + zo, -128, 127));
    }
  }
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

/* ---------------- fast memory-bound kernels ---------------- */

#define N_FAST_CASES 400
#define FAST_MAX_RUN 70
#define SPLIT_HALF (1 << (SIMNPU_ELTWISE_SHIFT / 2))

/* a multiplier near the limits of the kernels' paths: the 16-bit high
 * half of the AVX2 multiply-adds (either sign, at and just past its
 * bounds), the int32 range of the split arithmetic, beyond it, small and
 * ordinary ones */
static int64_t
fast_multiplier (void)
{
  switch (rand_int (0, 11)) {
    case 0:
      return (int64_t) G_MAXINT16 *SPLIT_HALF + SPLIT_HALF - 1;
    case 1:
      return (int64_t) G_MININT16 *SPLIT_HALF;
    case 2:
      return (int64_t) (G_MAXINT16 + 1) * SPLIT_HALF + rand_int (0, 9);
    case 3:
      return (int64_t) (G_MININT16 - 1) * SPLIT_HALF + SPLIT_HALF - 1;
    case 4:
      return G_MAXINT32;
    case 5:
      return G_MININT32;
    case 6:
      return (int64_t) G_MAXINT32 + rand_int (1, 1 << 20);
    case 7:
      return rand_int (-SPLIT_HALF, SPLIT_HALF);
    case 8:
      return G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT;
    default:
      return rand_int (-(1 << 26), 1 << 26);
  }
}

static int8_t
ref_elt (simnpu__op_type type, int32_t a, int32_t b, int64_t ma, int64_t mb,
    int32_t zo)
{
  const int64_t round = G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1);
  int64_t v;

  switch (type) {
    case SIMNPU_OP_MUL:
      v = (int64_t) a *b * ma;
      break;
    case SIMNPU_OP_MAXIMUM:
      v = MAX (a * ma, b * mb);
      break;
    case SIMNPU_OP_MINIMUM:
      v = MIN (a * ma, b * mb);
      break;
    default:
      v = a * ma + b * mb;
      break;
  }
  return (int8_t) CLAMP (((v + round) >> SIMNPU_ELTWISE_SHIFT) + zo, -128, 127);
}

/* every element-wise op, flat and broadcast along any dimensions, with
 * runs long enough for the vector kernels and their tails, on the AVX2
 * and the portable paths */
static void
test_eltwise_fast (void)
{
  const simnpu__op_type types[] = { SIMNPU_OP_ADD, SIMNPU_OP_SUB,
    SIMNPU_OP_MUL, SIMNPU_OP_MAXIMUM, SIMNPU_OP_MINIMUM
  };
  int pass, t;

  for (pass = 0; pass < 2; pass++) {
    simnpu__kernels_disable_avx2 (pass == 1);
    for (t = 0; t < N_FAST_CASES; t++) {
      simnpu__op_type type = types[t % G_N_ELEMENTS (types)];
      int32_t za = rand_int (-128, 127), zb = rand_int (-128, 127);
      int32_t zo = rand_int (-128, 127);
      int64_t ma = fast_multiplier (), mb = fast_multiplier ();
      int64_t da[4], db[4], dout[4], i0, i1, i2, i3;
      size_t na, nb, no;
      int8_t *a, *b, *out, *ref;
      int d;

      if (type == SIMNPU_OP_MUL && rand_int (0, 1))
        ma = rand_int (1, 1 << 18);
      if (t % 7 == 0) {
        /* one quantisation throughout: max and min byte-wise */
        ma = mb = G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT;
        za = zb = zo;
      }
      for (d = 0; d < 4; d++) {
        dout[d] = rand_int (1, d == 0 ? 2 : d == 3 ? FAST_MAX_RUN : 6);
        if (t % 3 == 0 || rand_int (0, 2) > 0) {
          da[d] = db[d] = dout[d];
        } else {
          da[d] = rand_int (0, 1) ? 1 : dout[d];
          db[d] = rand_int (0, 1) ? 1 : dout[d];
        }
      }
      na = da[0] * da[1] * da[2] * da[3];
      nb = db[0] * db[1] * db[2] * db[3];
      no = dout[0] * dout[1] * dout[2] * dout[3];
      a = g_malloc (na);
      b = g_malloc (nb);
      out = g_malloc (no);
      ref = g_malloc (no);
      fill_i8 (a, na);
      fill_i8 (b, nb);
      simnpu__eltwise (type, da, a, za, db, b, zb, dout, out, zo, ma, mb);
      for (i0 = 0; i0 < dout[0]; i0++)
        for (i1 = 0; i1 < dout[1]; i1++)
          for (i2 = 0; i2 < dout[2]; i2++)
            for (i3 = 0; i3 < dout[3]; i3++) {
              int64_t ia = (((i0 % da[0]) * da[1] + i1 % da[1]) * da[2] +
                  i2 % da[2]) * da[3] + i3 % da[3];
              int64_t ib = (((i0 % db[0]) * db[1] + i1 % db[1]) * db[2] +
                  i2 % db[2]) * db[3] + i3 % db[3];
              int64_t io = ((i0 * dout[1] + i1) * dout[2] + i2) * dout[3]
                  + i3;
              ref[io] = ref_elt (type, a[ia] - za, b[ib] - zb, ma, mb, zo);
            }
      g_assert_cmpmem (out, no, ref, no);
      g_free (a);
      g_free (b);
      g_free (out);
      g_free (ref);
    }
  }
  simnpu__kernels_disable_avx2 (false);
}

/* LUT and requant_copy over lengths with tails, at odd offsets, with
 * multipliers at the limits of each path, on both paths */
static void
test_lut_requant_fast (void)
{
  int pass, t;

  for (pass = 0; pass < 2; pass++) {
    simnpu__kernels_disable_avx2 (pass == 1);
    for (t = 0; t < N_FAST_CASES; t++) {
      size_t n = (size_t) rand_int (0, 3 * FAST_MAX_RUN), off = rand_int (0,
          3), i;
      int8_t lut[256];
      int8_t *in = g_malloc (n + off + 1), *out = g_malloc (n + off + 1);
      int8_t *ref = g_malloc (n + 1);
      int32_t zi = rand_int (-128, 127), zo = rand_int (-128, 127);
      int64_t m = fast_multiplier ();

      fill_i8 (lut, sizeof (lut));
      fill_i8 (in, n + off + 1);
      simnpu__lut (lut, in + off, out + off, n);
      for (i = 0; i < n; i++)
        ref[i] = lut[(uint8_t) (in[off + i] + 128)];
      g_assert_cmpmem (out + off, n, ref, n);
      simnpu__requant_copy (in + off, out + off, n, zi, zo, m);
      for (i = 0; i < n; i++) {
        int64_t v = (((int64_t) (in[off + i] - zi) * m +
                (G_GINT64_CONSTANT (1) << (SIMNPU_ELTWISE_SHIFT - 1)))
            >> SIMNPU_ELTWISE_SHIFT) + zo;
        ref[i] = (int8_t) CLAMP (v, -128, 127);
      }
      g_assert_cmpmem (out + off, n, ref, n);
      g_free (in);
      g_free (out);
      g_free (ref);
    }
  }
  simnpu__kernels_disable_avx2 (false);
}

/* pools over many channels (the vector loops, their overlapping last
 * blocks and tails), the 2x2 fast path, the separable max and the
 * generic windows, on both paths */
static void
test_pool_fast (void)
{
  int pass, t;

  for (pass = 0; pass < 2; pass++) {
    simnpu__kernels_disable_avx2 (pass == 1);
    for (t = 0; t < N_FAST_CASES; t++) {
      bool is_max = t % 2 == 0;
      int kh = rand_int (1, 5), kw = rand_int (1, 5);
      int sh = rand_int (1, 3), sw = rand_int (1, 3);
      int pt = rand_int (0, kh - 1), pl = rand_int (0, kw - 1);
      int pb = rand_int (0, kh - 1), pr = rand_int (0, kw - 1);
      int32_t zp = rand_int (-128, 127);
      int64_t din[4], dout[4], n, oy, ox, c;
      size_t ni, no;
      int8_t *in, *out, *ref;

      if (t % 4 < 2) {
        kh = kw = sh = sw = 2;
        pt = pl = pb = pr = 0;
      }
      din[0] = rand_int (1, 2);
      din[1] = rand_int (kh, 12);
      din[2] = rand_int (kw, 12);
      din[3] = rand_int (1, FAST_MAX_RUN);
      dout[0] = din[0];
      dout[1] = (din[1] + pt + pb - kh) / sh + 1;
      dout[2] = (din[2] + pl + pr - kw) / sw + 1;
      dout[3] = din[3];
      ni = din[0] * din[1] * din[2] * din[3];
      no = dout[0] * dout[1] * dout[2] * dout[3];
      in = g_malloc (ni);
      out = g_malloc (no);
      ref = g_malloc (no);
      fill_i8 (in, ni);
      if (t % 5 == 0)
        fill_extremes (in, ni);
      simnpu__pool (is_max, din, in, dout, out, kh, kw, sh, sw, pt, pl, zp);
      for (n = 0; n < dout[0]; n++)
        for (oy = 0; oy < dout[1]; oy++)
          for (ox = 0; ox < dout[2]; ox++)
            for (c = 0; c < dout[3]; c++) {
              int32_t best = -128, sum = 0, count = 0, v;
              int ky, kx;
              for (ky = 0; ky < kh; ky++)
                for (kx = 0; kx < kw; kx++) {
                  int64_t iy = oy * sh - pt + ky, ix = ox * sw - pl + kx;
                  if (iy < 0 || iy >= din[1] || ix < 0 || ix >= din[2])
                    continue;
                  v = in[((n * din[1] + iy) * din[2] + ix) * din[3] + c];
                  best = MAX (best, v);
                  sum += v - zp;
                  count++;
                }
              if (is_max) {
                v = best;
              } else if (count == 0) {
                v = zp;
              } else {
                double avg = (double) sum / count;
                v = zp + (int32_t) (avg >= 0 ? floor (avg + 0.5) :
                    -floor (-avg + 0.5));
              }
              ref[((n * dout[1] + oy) * dout[2] + ox) * dout[3] + c] =
                  (int8_t) CLAMP (v, -128, 127);
            }
      g_assert_cmpmem (out, no, ref, no);
      g_free (in);
      g_free (out);
      g_free (ref);
    }
  }
  simnpu__kernels_disable_avx2 (false);
}

/* mean over H x W with many channels (the 16-bit partial sums over
 * blocks of positions, at the ends of the int8 range) and tails, on both
 * paths */
static void
test_mean_fast (void)
{
  int pass, t;

  for (pass = 0; pass < 2; pass++) {
    simnpu__kernels_disable_avx2 (pass == 1);
    for (t = 0; t < N_FAST_CASES / 4; t++) {
      int64_t din[4], hw, n, i, c;
      int32_t zi = rand_int (-128, 127), zo = rand_int (-128, 127);
      double rescale = g_rand_double_range (rng, 0.01, 4.0);
      size_t ni, no;
      int8_t *in, *out, *ref;
      int32_t *acc;

      din[0] = rand_int (1, 2);
      din[1] = rand_int (1, 24);
      din[2] = rand_int (1, 24);
      din[3] = rand_int (1, 3 * FAST_MAX_RUN);
      hw = din[1] * din[2];
      ni = din[0] * hw * din[3];
      no = din[0] * din[3];
      in = g_malloc (ni);
      out = g_malloc (no);
      ref = g_malloc (no);
      acc = g_new (int32_t, din[3]);
      if (t % 3 == 0)
        memset (in, t % 2 ? 127 : -128, ni);
      else if (t % 3 == 1)
        fill_extremes (in, ni);
      else
        fill_i8 (in, ni);
      simnpu__mean (din, in, out, acc, zi, zo, rescale);
      for (n = 0; n < din[0]; n++)
        for (c = 0; c < din[3]; c++) {
          int64_t s = 0;
          double r;
          for (i = 0; i < hw; i++)
            s += in[(n * hw + i) * din[3] + c] - zi;
          r = round ((double) s * rescale / (double) hw) + zo;
          ref[n * din[3] + c] = (int8_t) CLAMP (r, -128, 127);
        }
      g_assert_cmpmem (out, no, ref, no);
      g_free (in);
      g_free (out);
      g_free (ref);
      g_free (acc);
    }
  }
  simnpu__kernels_disable_avx2 (false);
}

/* pad on every dimension, constant and edge, requantised or not, on both
 * paths */
static void
test_pad_fast (void)
{
  int pass, t;

  for (pass = 0; pass < 2; pass++) {
    simnpu__kernels_disable_avx2 (pass == 1);
    for (t = 0; t < N_FAST_CASES / 2; t++) {
      int64_t din[4], dout[4], i0, i1, i2, i3;
      int32_t before[4];
      bool edge = t % 2 == 0, identity = t % 3 == 0;
      int32_t zi = identity ? 0 : rand_int (-128, 127);
      int32_t zo = identity ? 0 : rand_int (-128, 127);
      int64_t m = identity ? G_GINT64_CONSTANT (1) << SIMNPU_ELTWISE_SHIFT :
          fast_multiplier ();
      int8_t value = (int8_t) rand_int (-128, 127);
      size_t ni, no;
      int8_t *in, *out, *ref;
      int d;

      for (d = 0; d < 4; d++) {
        din[d] = rand_int (1, d == 0 ? 2 : d == 3 ? 40 : 7);
        before[d] = rand_int (0, 1) ? 0 : rand_int (0, 3);
        dout[d] = din[d] + before[d] + (rand_int (0, 1) ? 0 : rand_int (0, 3));
      }
      ni = din[0] * din[1] * din[2] * din[3];
      no = dout[0] * dout[1] * dout[2] * dout[3];
      in = g_malloc (ni);
      out = g_malloc (no);
      ref = g_malloc (no);
      fill_i8 (in, ni);
      simnpu__pad (din, in, dout, out, before, edge, value, zi, zo, m);
      for (i0 = 0; i0 < dout[0]; i0++)
        for (i1 = 0; i1 < dout[1]; i1++)
          for (i2 = 0; i2 < dout[2]; i2++)
            for (i3 = 0; i3 < dout[3]; i3++) {
              int64_t s[4] = { i0 - before[0], i1 - before[1],
                i2 - before[2], i3 - before[3]
              };
              bool inside = true;
              int8_t v;
              for (d = 0; d < 4; d++) {
                if (s[d] < 0 || s[d] >= din[d])
                  inside = false;
                s[d] = CLAMP (s[d], 0, din[d] - 1);
              }
              if (!inside && !edge) {
                v = value;
              } else {
                int64_t x = in[((s[0] * din[1] + s[1]) * din[2] + s[2])
                    * din[3] + s[3]];
                int64_t q = (((x - zi) * m + (G_GINT64_CONSTANT (1) <<
                            (SIMNPU_ELTWISE_SHIFT - 1))) >>
                    SIMNPU_ELTWISE_SHIFT) + zo;
                v = (int8_t) CLAMP (q, -128, 127);
              }
              ref[((i0 * dout[1] + i1) * dout[2] + i2) * dout[3] + i3] = v;
            }
      g_assert_cmpmem (out, no, ref, no);
      g_free (in);
      g_free (out);
      g_free (ref);
    }
  }
  simnpu__kernels_disable_avx2 (false);
}

/* permutations of tensors large enough for the tiled transposes (whole
 * tiles and edges) against a plain index loop */
static void
test_transpose_fast (void)
{
  int t;

  for (t = 0; t < N_FAST_CASES / 4; t++) {
    int64_t din[4], dout[4], stride[4], ps[4];
    int perm[4] = { 0, 1, 2, 3 };
    int64_t i0, i1, i2, i3;
    size_t n;
    int8_t *in, *out, *ref;
    int d;

    for (d = 3; d > 0; d--) {
      int e = rand_int (0, d), tmp = perm[d];
      perm[d] = perm[e];
      perm[e] = tmp;
    }
    for (d = 0; d < 4; d++)
      din[d] = rand_int (1, 4);
    din[3] = rand_int (1, 50);
    din[perm[3]] = rand_int (1, 50);
    stride[3] = 1;
    for (d = 2; d >= 0; d--)
      stride[d] = stride[d + 1] * din[d + 1];
    for (d = 0; d < 4; d++) {
      dout[d] = din[perm[d]];
      ps[d] = stride[perm[d]];
    }
    n = din[0] * din[1] * din[2] * din[3];
    in = g_malloc (n);
    out = g_malloc (n);
    ref = g_malloc (n);
    fill_i8 (in, n);
    simnpu__transpose (in, ps, dout, out);
    for (i0 = 0; i0 < dout[0]; i0++)
      for (i1 = 0; i1 < dout[1]; i1++)
        for (i2 = 0; i2 < dout[2]; i2++)
          for (i3 = 0; i3 < dout[3]; i3++)
            ref[((i0 * dout[1] + i1) * dout[2] + i2) * dout[3] + i3] =
                in[i0 * ps[0] + i1 * ps[1] + i2 * ps[2] + i3 * ps[3]];
    g_assert_cmpmem (out, n, ref, n);
    g_free (in);
    g_free (out);
    g_free (ref);
  }
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
  g_test_add_func ("/simnpu/kernels/eltwise", test_eltwise_bit_exact);
  g_test_add_func ("/simnpu/kernels/minmax", test_minmax_bit_exact);
  g_test_add_func ("/simnpu/kernels/pool", test_pool_bit_exact);
  g_test_add_func ("/simnpu/kernels/copy-box", test_copy_box);
  g_test_add_func ("/simnpu/kernels/transpose", test_transpose);
  g_test_add_func ("/simnpu/kernels/lut", test_lut_ops);
  g_test_add_func ("/simnpu/kernels/requant-copy", test_requant_copy);
  g_test_add_func ("/simnpu/kernels/conv-depthwise-fast",
      test_conv_depthwise_fast);
  g_test_add_func ("/simnpu/kernels/eltwise-fast", test_eltwise_fast);
  g_test_add_func ("/simnpu/kernels/lut-requant-fast", test_lut_requant_fast);
  g_test_add_func ("/simnpu/kernels/pool-fast", test_pool_fast);
  g_test_add_func ("/simnpu/kernels/mean-fast", test_mean_fast);
  g_test_add_func ("/simnpu/kernels/pad-fast", test_pad_fast);
  g_test_add_func ("/simnpu/kernels/transpose-fast", test_transpose_fast);
  ret = g_test_run ();
  g_rand_free (rng);
  return ret;
}
