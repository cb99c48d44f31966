/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Normalisation (softmax, batchnorm) and reductions over axes (reduce_*,
 * argmax, argmin). */

#include "ir-exec-private.h"

/* ------------------------------------------------------------------ */
/* Normalisation, reductions */

int
simnpu__ir_run_softmax (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const float *in = din (x, n, 0);
  float *o = dout (x, n, 0);
  int64_t outer, len, inner, a, b, i;
  bool log_sm = n->op == SIMNPU_IR_LOG_SOFTMAX;

  axis_view (tin (x, n, 0), (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (b = 0; b < inner; b++) {
      const float *p = in + a * len * inner + b;
      float *q = o + a * len * inner + b;
      float mx = -INFINITY, sum = 0;
      for (i = 0; i < len; i++)
        mx = p[i * inner] > mx ? p[i * inner] : mx;
      for (i = 0; i < len; i++) {
        float e = expf (p[i * inner] - mx);
        sum += e;
        if (!log_sm)
          q[i * inner] = e;
      }
      if (log_sm) {
        float l = logf (sum);
        for (i = 0; i < len; i++)
          q[i * inner] = p[i * inner] - mx - l;
      } else {
        float inv = 1.0f / sum;
        for (i = 0; i < len; i++)
          q[i * inner] *= inv;
      }
    }
  }
  return 0;
}

int
simnpu__ir_run_batchnorm (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  const float *in = din (x, n, 0), *scale = din (x, n, 1);
  const float *bias = din (x, n, 2), *mean = din (x, n, 3);
  const float *var = din (x, n, 4);
  const unsigned id = (unsigned) (n - x->g->nodes);
  int64_t c = t->dims[t->rank - 1], rows, r, i;
  float *o = dout (x, n, 0), *mul = x->scratch[id], *add = mul + c;

  rows = c > 0 ? elems (t) / c : 0;
  for (i = 0; i < c; i++) {
    mul[i] = scale[i] / sqrtf (var[i] + n->attrs.f[0]);
    add[i] = bias[i] - mean[i] * mul[i];
  }
  for (r = 0; r < rows; r++) {
    const float *p = in + r * c;
    float *q = o + r * c;
    for (i = 0; i < c; i++)
      q[i] = p[i] * mul[i] + add[i];
  }
  return 0;
}

/* inner elements whose sums one pass of a block reduction keeps (on the
 * stack) */
#define REDUCE_ACC 256

/* The common f32 reductions as [outer, reduced, inner] blocks (after
 * merging neighbouring axes of the same kind), the inner loop over
 * contiguous kept elements; false when the axes do not form one such
 * block. Accumulates into o, which holds the identities. */
IR_CLONES static bool
reduce_f32_blocks (simnpu__ir_op op, const simnpu__ir_tensor * t,
    const bool *mask, const float *in, float *o)
{
  int64_t size[SIMNPU_IR_MAX_RANK], outer = 1, red = 1, inner = 1, a, r, i;
  int64_t i0;
  bool red_axis[SIMNPU_IR_MAX_RANK];
  unsigned d, ng = 0, g = 0;

  for (d = 0; d < t->rank; d++) {
    if (t->dims[d] == 1)
      continue;
    if (ng > 0 && red_axis[ng - 1] == mask[d]) {
      size[ng - 1] *= t->dims[d];
      continue;
    }
    size[ng] = t->dims[d];
    red_axis[ng++] = mask[d];
  }
  if (g < ng && !red_axis[g])
    outer = size[g++];
  if (g < ng && red_axis[g])
    red = size[g++];
  if (g < ng && !red_axis[g])
    inner = size[g++];
  if (g != ng)
    return false;
  if (op == SIMNPU_IR_REDUCE_SUM || op == SIMNPU_IR_REDUCE_MEAN) {
    /* in double, as average pooling: a float running sum over a large
     * axis (a global mean of 64x64) loses the addends' low bits */
    for (a = 0; a < outer; a++)
      for (i0 = 0; i0 < inner; i0 += REDUCE_ACC) {
        const int64_t cn = MIN (REDUCE_ACC, inner - i0);
        double acc[REDUCE_ACC];
        for (i = 0; i < cn; i++)
          acc[i] = 0.0;
        for (r = 0; r < red; r++) {
          const float *p = in + (a * red + r) * inner + i0;
          for (i = 0; i < cn; i++)
            acc[i] += p[i];
        }
        for (i = 0; i < cn; i++)
          o[a * inner + i0 + i] = (float) acc[i];
      }
    return true;
  }
  for (a = 0; a < outer; a++) {
    float *q = o + a * inner;
    for (r = 0; r < red; r++) {
      const float *p = in + (a * red + r) * inner;
      switch (op) {
        case SIMNPU_IR_REDUCE_MAX:
          for (i = 0; i < inner; i++)
            q[i] = p[i] > q[i] || isnan (p[i]) ? p[i] : q[i];
          break;
        case SIMNPU_IR_REDUCE_MIN:
          for (i = 0; i < inner; i++)
            q[i] = p[i] < q[i] || isnan (p[i]) ? p[i] : q[i];
          break;
        case SIMNPU_IR_REDUCE_PROD:
          for (i = 0; i < inner; i++)
            q[i] *= p[i];
          break;
        default:
          for (i = 0; i < inner; i++)
            q[i] += p[i];
          break;
      }
    }
  }
  return true;
}

int
simnpu__ir_run_reduce (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const void *in = din (x, n, 0);
  void *o = dout (x, n, 0);
  bool mask[SIMNPU_IR_MAX_RANK] = { false };
  int64_t ost[SIMNPU_IR_MAX_RANK], dims[SIMNPU_IR_MAX_RANK];
  int64_t idx[SIMNPU_IR_MAX_RANK] = { 0 }, s = 1, total = elems (t);
  int64_t n_out = elems (to), count, off = 0, e, i;
  const bool f = t->dtype == SIMNPU_IR_F32;
  unsigned d;

  for (d = 0; d < t->rank; d++)
    mask[d] = n->attrs.n_ints == 0;
  for (i = 0; i < n->attrs.n_ints; i++) {
    int64_t ax = n->attrs.ints[i];
    mask[ax < 0 ? ax + t->rank : ax] = true;
  }
  for (d = t->rank; d-- > 0;) {
    dims[d] = t->dims[d];
    ost[d] = mask[d] ? 0 : s;
    if (!mask[d])
      s *= t->dims[d];
  }
  count = n_out > 0 ? total / n_out : 0;
  /* identities of each reduction */
  for (i = 0; i < n_out; i++) {
    switch (n->op) {
      case SIMNPU_IR_REDUCE_MAX:
        if (f)
          ((float *) o)[i] = -INFINITY;
        else
          store_int (t->dtype, o, i, t->dtype == SIMNPU_IR_U8 ? 0
              : t->dtype == SIMNPU_IR_I8 ? G_MININT8
              : t->dtype == SIMNPU_IR_I32 ? G_MININT32 : G_MININT64);
        break;
      case SIMNPU_IR_REDUCE_MIN:
        if (f)
          ((float *) o)[i] = INFINITY;
        else
          store_int (t->dtype, o, i, t->dtype == SIMNPU_IR_U8 ? G_MAXUINT8
              : t->dtype == SIMNPU_IR_I8 ? G_MAXINT8
              : t->dtype == SIMNPU_IR_I32 ? G_MAXINT32 : G_MAXINT64);
        break;
      case SIMNPU_IR_REDUCE_PROD:
        if (f)
          ((float *) o)[i] = 1;
        else
          store_int (t->dtype, o, i, 1);
        break;
      default:
        if (f)
          ((float *) o)[i] = 0;
        else
          store_int (t->dtype, o, i, 0);
        break;
    }
  }
  if (f && reduce_f32_blocks (n->op, t, mask, in, o))
    total = 0;
  for (e = 0; e < total; e++) {
    if (f) {
      float v = ((const float *) in)[e], *r = (float *) o + off;
      switch (n->op) {
        case SIMNPU_IR_REDUCE_MAX:
          *r = v > *r || isnan (v) ? v : *r;
          break;
        case SIMNPU_IR_REDUCE_MIN:
          *r = v < *r || isnan (v) ? v : *r;
          break;
        case SIMNPU_IR_REDUCE_PROD:
          *r *= v;
          break;
        default:
          *r += v;
          break;
      }
    } else {
      int64_t v = load_int (t->dtype, in, e), r = load_int (t->dtype, o, off);
      switch (n->op) {
        case SIMNPU_IR_REDUCE_MAX:
          r = MAX (r, v);
          break;
        case SIMNPU_IR_REDUCE_MIN:
          r = MIN (r, v);
          break;
        case SIMNPU_IR_REDUCE_PROD:
          r = int_binary (SIMNPU_IR_MUL, r, v);
          break;
        default:
          r = int_binary (SIMNPU_IR_ADD, r, v);
          break;
      }
      store_int (t->dtype, o, off, r);
    }
    for (d = t->rank; d-- > 0;) {
      off += ost[d];
      if (++idx[d] < dims[d])
        break;
      off -= ost[d] * dims[d];
      idx[d] = 0;
    }
  }
  if (n->op == SIMNPU_IR_REDUCE_MEAN && count > 0) {
    for (i = 0; i < n_out; i++) {
      if (f)
        ((float *) o)[i] /= (float) count;
      else
        store_int (t->dtype, o, i, load_int (t->dtype, o, i) / count);
    }
  } else if (n->op == SIMNPU_IR_REDUCE_MEAN && f) {
    for (i = 0; i < n_out; i++)
      ((float *) o)[i] = NAN;
  }
  return 0;
}

int
simnpu__ir_run_arg (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  const void *in = din (x, n, 0);
  int64_t *o = dout (x, n, 0);
  int64_t outer, len, inner, a, b, i;
  const bool is_max = n->op == SIMNPU_IR_ARGMAX;

  axis_view (t, (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (b = 0; b < inner; b++) {
      int64_t base = a * len * inner + b, best = 0;
      double bv = load_f64 (t->dtype, in, base);
      for (i = 1; i < len; i++) {
        double v = load_f64 (t->dtype, in, base + i * inner);
        /* strict: the first index wins ties */
        if (is_max ? v > bv : v < bv) {
          bv = v;
          best = i;
        }
      }
      o[a * inner + b] = best;
    }
  }
  return 0;
}
