/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Data movement in any dtype: depth/space rearrangements, transpose,
 * slice, tile and expand as strided views of the input, concat, split,
 * pad, gather, shape and range. */

#include "ir-exec-private.h"

/* a strided view may split every axis in two (tile) */
#define MAX_VIEW (2 * SIMNPU_IR_MAX_RANK)

/* ------------------------------------------------------------------ */
/* Strided views: dst (contiguous, row-major over dims) gathers
 * src[sum (i_k * strides[k])] */

static unsigned
coalesce_view (unsigned rank, int64_t * dims, int64_t * strides)
{
  unsigned r = 0, i;

  for (i = 0; i < rank; i++) {
    if (dims[i] == 1)
      continue;
    if (r > 0 && strides[r - 1] == strides[i] * dims[i]) {
      dims[r - 1] *= dims[i];
      strides[r - 1] = strides[i];
      continue;
    }
    dims[r] = dims[i];
    strides[r] = strides[i];
    r++;
  }
  return r;
}

/* side of the square blocks of a 2-D float transpose: both sides' lines
 * of one block stay in L1 */
#define TRANSPOSE_BLOCK 16

/* dst [d0][d1] row-major from src[i0 * s0 + i1 * s1], in square blocks
 * so that neither side walks a stride across the whole tensor per
 * element (NCHW <-> NHWC) */
static void
transpose_2d_f32 (float *dst, const float *src, int64_t d0, int64_t s0,
    int64_t d1, int64_t s1)
{
  int64_t i0, i1, j0, j1;

  for (i0 = 0; i0 < d0; i0 += TRANSPOSE_BLOCK) {
    int64_t e0 = MIN (i0 + TRANSPOSE_BLOCK, d0);
    for (i1 = 0; i1 < d1; i1 += TRANSPOSE_BLOCK) {
      int64_t e1 = MIN (i1 + TRANSPOSE_BLOCK, d1);
      for (j0 = i0; j0 < e0; j0++)
        for (j1 = i1; j1 < e1; j1++)
          dst[j0 * d1 + j1] = src[j0 * s0 + j1 * s1];
    }
  }
}

static void
strided_copy (void *dst, const void *src, size_t esize, unsigned rank,
    const int64_t * dims_in, const int64_t * strides_in)
{
  int64_t dims[MAX_VIEW], strides[MAX_VIEW], idx[MAX_VIEW] = { 0 };
  int64_t total = 1, inner, in_stride, off = 0, done;
  uint8_t *d = dst;
  const uint8_t *s = src;
  unsigned i, r;

  for (i = 0; i < rank; i++) {
    total *= dims_in[i];
    dims[i] = dims_in[i];
    strides[i] = strides_in[i];
  }
  if (total == 0)
    return;
  r = coalesce_view (rank, dims, strides);
  if (r == 0) {
    memcpy (d, s, esize);
    return;
  }
  /* a transpose of the two innermost axes, one of them contiguous in the
   * source: blocked, a plane at a time */
  if (esize == sizeof (float) && r >= 2 && strides[r - 1] != 1
      && strides[r - 2] == 1) {
    int64_t plane = dims[r - 2] * dims[r - 1];
    for (done = 0; done < total; done += plane) {
      transpose_2d_f32 ((float *) d, (const float *) s + off, dims[r - 2],
          1, dims[r - 1], strides[r - 1]);
      d += plane * (int64_t) esize;
      for (i = r - 2; i-- > 0;) {
        off += strides[i];
        if (++idx[i] < dims[i])
          break;
        off -= strides[i] * dims[i];
        idx[i] = 0;
      }
    }
    return;
  }
  inner = dims[r - 1];
  in_stride = strides[r - 1];
  for (done = 0; done < total; done += inner) {
    const uint8_t *p = s + off * (int64_t) esize;
    int64_t j;
    if (in_stride == 1) {
      memcpy (d, p, (size_t) inner * esize);
    } else if (esize == sizeof (float)) {
      for (j = 0; j < inner; j++)
        memcpy (d + j * 4, p + j * in_stride * 4, 4);
    } else if (esize == sizeof (int64_t)) {
      for (j = 0; j < inner; j++)
        memcpy (d + j * 8, p + j * in_stride * 8, 8);
    } else {
      for (j = 0; j < inner; j++)
        memcpy (d + j * (int64_t) esize, p + j * in_stride * (int64_t) esize,
            esize);
    }
    d += inner * (int64_t) esize;
    for (i = r - 1; i-- > 0;) {
      off += strides[i];
      if (++idx[i] < dims[i])
        break;
      off -= strides[i] * dims[i];
      idx[i] = 0;
    }
  }
}

/* row-major element strides of a shape */
static void
contiguous_strides (unsigned rank, const int64_t * dims, int64_t * strides)
{
  int64_t s = 1;
  unsigned i;

  for (i = rank; i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
}

/* ------------------------------------------------------------------ */
/* Data movement, any dtype */

int
simnpu__ir_run_depth_to_space (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t bs = n->attrs.ints[0], nb = t->dims[0], h = t->dims[1];
  int64_t w = t->dims[2], c = t->dims[3], oc = c / (bs * bs);
  /* output viewed as [N, H, bs, W, bs, C'] */
  int64_t dims[6] = { nb, h, bs, w, bs, oc };
  int64_t st[6] = { h * w * c, w * c, 0, c, 0, 0 };

  if (n->attrs.mode == 0) {
    /* DCR: input channel (i * bs + j) * C' + c */
    st[2] = bs * oc;
    st[4] = oc;
    st[5] = 1;
  } else {
    /* CRD: input channel c * bs * bs + i * bs + j */
    st[2] = bs;
    st[4] = 1;
    st[5] = bs * bs;
  }
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), 6, dims, st);
  return 0;
}

int
simnpu__ir_run_space_to_depth (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t bs = n->attrs.ints[0], nb = t->dims[0], h = t->dims[1];
  int64_t w = t->dims[2], c = t->dims[3];
  /* output [N, H/bs, W/bs, bs, bs, C]: channel (i * bs + j) * C + c */
  int64_t dims[6] = { nb, h / bs, w / bs, bs, bs, c };
  int64_t st[6] = { h * w * c, bs * w * c, bs * c, w * c, c, 1 };

  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), 6, dims, st);
  return 0;
}

int
simnpu__ir_run_transpose (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], ost[SIMNPU_IR_MAX_RANK];
  unsigned i;

  contiguous_strides (t->rank, t->dims, st);
  for (i = 0; i < t->rank; i++)
    ost[i] = st[n->attrs.ints[i]];
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), to->rank, to->dims, ost);
  return 0;
}

int
simnpu__ir_run_concat (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *to = tout (x, n, 0);
  size_t es = simnpu__ir_dtype_size (to->dtype);
  int64_t outer, len, inner, a;
  uint8_t *o = dout (x, n, 0);
  unsigned i;

  axis_view (to, (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (i = 0; i < n->n_inputs; i++) {
      const simnpu__ir_tensor *t = tin (x, n, i);
      size_t row = (size_t) (t->dims[n->attrs.axis] * inner) * es;
      memcpy (o, (const uint8_t *) din (x, n, i) + (size_t) a * row, row);
      o += row;
    }
  }
  return 0;
}

int
simnpu__ir_run_split (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  size_t es = simnpu__ir_dtype_size (t->dtype);
  int64_t outer, len, inner, a;
  const uint8_t *in = din (x, n, 0);
  unsigned i;

  axis_view (t, (unsigned) n->attrs.axis, &outer, &len, &inner);
  for (a = 0; a < outer; a++) {
    for (i = 0; i < n->n_outputs; i++) {
      size_t row = (size_t) (n->attrs.ints[i] * inner) * es;
      memcpy ((uint8_t *) dout (x, n, i) + (size_t) a * row, in, row);
      in += row;
    }
  }
  return 0;
}

int
simnpu__ir_run_slice (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], ost[SIMNPU_IR_MAX_RANK], base = 0;
  size_t es = simnpu__ir_dtype_size (t->dtype);
  unsigned i, r = t->rank;

  if (elems (to) == 0)
    return 0;
  contiguous_strides (r, t->dims, st);
  for (i = 0; i < r; i++) {
    int64_t first, step = n->attrs.steps[i] == 0 ? 1 : n->attrs.steps[i];
    simnpu__ir_slice_len (t->dims[i], n->attrs.ints[i], n->attrs.ints[r + i],
        step, &first);
    base += first * st[i];
    /* a one-element axis never steps (its step may be huge) */
    ost[i] = to->dims[i] > 1 ? st[i] * step : 0;
  }
  strided_copy (dout (x, n, 0), (const uint8_t *) din (x, n, 0) + base *
      (int64_t) es, es, r, to->dims, ost);
  return 0;
}

/* source index of padded index i along an axis of d elements, or -1 for
 * the constant */
static int64_t
pad_map (int64_t i, int64_t d, int mode)
{
  int64_t period;

  if (i >= 0 && i < d)
    return i;
  switch (mode) {
    case SIMNPU_IR_PAD_EDGE:
      return i < 0 ? 0 : d - 1;
    case SIMNPU_IR_PAD_REFLECT:
      if (d == 1)
        return 0;
      period = 2 * (d - 1);
      i %= period;
      if (i < 0)
        i += period;
      return i >= d ? period - i : i;
    default:
      return -1;
  }
}

int
simnpu__ir_run_pad (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  const int64_t *ints = n->attrs.ints;
  size_t es = simnpu__ir_dtype_size (t->dtype);
  int64_t st[SIMNPU_IR_MAX_RANK], idx[SIMNPU_IR_MAX_RANK] = { 0 };
  /* per axis, as ONNX: negative pads crop first (keeping kept elements
   * from first), then the kept part is padded by pad */
  int64_t first[SIMNPU_IR_MAX_RANK], kept[SIMNPU_IR_MAX_RANK];
  int64_t pad[SIMNPU_IR_MAX_RANK];
  int64_t total = elems (to), inner, done, j, lo, hi;
  const uint8_t *in = din (x, n, 0);
  uint8_t *o = dout (x, n, 0), value[sizeof (int64_t)];
  unsigned r = t->rank, d;
  const int mode = n->attrs.mode;

  if (total == 0)
    return 0;
  if (t->dtype == SIMNPU_IR_F32)
    memcpy (value, &n->attrs.f[0], sizeof (float));
  else
    store_int (t->dtype, value, 0, f2i (n->attrs.f[0]));
  if (r == 0) {
    memcpy (o, in, es);
    return 0;
  }
  contiguous_strides (r, t->dims, st);
  for (d = 0; d < r; d++) {
    first[d] = MAX (0, -ints[d]);
    kept[d] = t->dims[d] + MIN (ints[d], 0) + MIN (ints[r + d], 0);
    pad[d] = MAX (ints[d], 0);
  }
  inner = to->dims[r - 1];
  /* the output positions of the last axis that copy straight */
  lo = pad[r - 1];
  hi = lo + MAX (kept[r - 1], 0);
  for (done = 0; done < total; done += inner) {
    int64_t src = 0;
    bool constant = false;
    for (d = 0; d + 1 < r; d++) {
      int64_t s = pad_map (idx[d] - pad[d], kept[d], mode);
      if (s < 0)
        constant = true;
      else
        src += (first[d] + s) * st[d];
    }
    src += first[r - 1];
    for (j = 0; j < inner; j++) {
      int64_t s;
      if (j == lo && !constant && hi > lo) {
        memcpy (o + j * (int64_t) es, in + src * (int64_t) es,
            (size_t) (hi - lo) * es);
        j = hi - 1;
        continue;
      }
      s = constant ? -1 : pad_map (j - lo, kept[r - 1], mode);
      memcpy (o + j * (int64_t) es, s < 0 ? value : in + (src + s) *
          (int64_t) es, es);
    }
    o += inner * (int64_t) es;
    for (d = r - 1; d-- > 0;) {
      if (++idx[d] < to->dims[d])
        break;
      idx[d] = 0;
    }
  }
  return 0;
}

int
simnpu__ir_run_gather (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *ti = tin (x, n, 1);
  size_t es = simnpu__ir_dtype_size (t->dtype);
  int64_t outer, len, inner, a, j, n_idx = elems (ti);
  const uint8_t *in = din (x, n, 0);
  const void *idx = din (x, n, 1);
  uint8_t *o = dout (x, n, 0);
  size_t row;

  axis_view (t, (unsigned) n->attrs.axis, &outer, &len, &inner);
  row = (size_t) inner *es;
  for (j = 0; j < n_idx; j++) {
    int64_t v = load_int (ti->dtype, idx, j);
    if (v < -len || v >= len)
      return run_error (error, SIMNPU_EINVAL, n, "index out of range");
  }
  for (a = 0; a < outer; a++) {
    for (j = 0; j < n_idx; j++) {
      int64_t v = load_int (ti->dtype, idx, j);
      if (v < 0)
        v += len;
      memcpy (o, in + ((size_t) (a * len + v)) * row, row);
      o += row;
    }
  }
  return 0;
}

int
simnpu__ir_run_tile (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], dims[MAX_VIEW], vst[MAX_VIEW];
  unsigned i;

  /* each axis d as [repeats, d] with the repeat axis not moving */
  contiguous_strides (t->rank, t->dims, st);
  for (i = 0; i < t->rank; i++) {
    dims[2 * i] = n->attrs.ints[i];
    vst[2 * i] = 0;
    dims[2 * i + 1] = t->dims[i];
    vst[2 * i + 1] = st[i];
  }
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), 2 * t->rank, dims, vst);
  return 0;
}

int
simnpu__ir_run_expand (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t st[SIMNPU_IR_MAX_RANK], vst[SIMNPU_IR_MAX_RANK];
  unsigned i, off = to->rank - t->rank;

  contiguous_strides (t->rank, t->dims, st);
  for (i = 0; i < to->rank; i++)
    vst[i] = i < off || t->dims[i - off] == 1 ? 0 : st[i - off];
  strided_copy (dout (x, n, 0), din (x, n, 0),
      simnpu__ir_dtype_size (t->dtype), to->rank, to->dims, vst);
  return 0;
}

int
simnpu__ir_run_shape (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0);
  int64_t *o = dout (x, n, 0);
  unsigned i;

  for (i = 0; i < t->rank; i++)
    o[i] = t->dims[i];
  return 0;
}

int
simnpu__ir_run_range (simnpu__ir_exec * x, const simnpu__ir_node * n,
    simnpu_error * error)
{
  const simnpu__ir_tensor *t = tin (x, n, 0), *to = tout (x, n, 0);
  int64_t len = elems (to), i;
  void *o = dout (x, n, 0);

  if (t->dtype == SIMNPU_IR_F32) {
    float s = *(const float *) din (x, n, 0);
    float d = *(const float *) din (x, n, 2);
    for (i = 0; i < len; i++)
      ((float *) o)[i] = s + (float) i *d;
  } else {
    int64_t s = load_int (t->dtype, din (x, n, 0), 0);
    int64_t d = load_int (t->dtype, din (x, n, 2), 0);
    for (i = 0; i < len; i++)
      store_int (t->dtype, o, i, (int64_t) ((uint64_t) s +
              (uint64_t) i * (uint64_t) d));
  }
  return 0;
}
