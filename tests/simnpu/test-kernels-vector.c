/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The int8 kernels of the vector unit (element-wise ops, tables,
 * requantising copies, pools, mean, boxes, transpose, pad) against
 * straightforward reference implementations of the arithmetic
 * definitions in sim-npu/kernels/kernels-private.h, on random shapes, on the
 * AVX2 and the portable paths. Results must agree bit for bit.
 * test-kernels-conv.c checks conv2d. */

#include "test-kernels-util.h"

#include <math.h>
#include <string.h>

#define N_ELTWISE_CASES 200
#define N_POOL_CASES 200
#define N_TRANSPOSE_CASES 200

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
  g_test_add_func ("/simnpu/kernels/eltwise", test_eltwise_bit_exact);
  g_test_add_func ("/simnpu/kernels/minmax", test_minmax_bit_exact);
  g_test_add_func ("/simnpu/kernels/pool", test_pool_bit_exact);
  g_test_add_func ("/simnpu/kernels/copy-box", test_copy_box);
  g_test_add_func ("/simnpu/kernels/transpose", test_transpose);
  g_test_add_func ("/simnpu/kernels/lut", test_lut_ops);
  g_test_add_func ("/simnpu/kernels/requant-copy", test_requant_copy);
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
