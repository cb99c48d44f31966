/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The CenterNet decoder: its metadata and tensors; the heat-map's values
 * above the threshold that are 3x3 peaks, the top k of them, their boxes
 * from the distances. A row of the table of decoders. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>
#include <string.h>

/* the most peaks metadata may ask for */
#define MAX_TOP_K 100000
/* box values per cell: left, top, right, bottom */
#define CENTERNET_BOX_VALUES 4
/* the peak test's neighbourhood, the only one implemented */
#define PEAK_KERNEL 3

/* The stride of a CenterNet grid: the metadata's, else the input size
 * over the grid. 0 if neither is known. */
static inline guint
centernet_stride (const GstAxNmsParams * p, guint width)
{
  if (p->stride)
    return p->stride;
  if (p->input_width && width && p->input_width % width == 0)
    return p->input_width / width;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Metadata and tensors */

static gboolean
centernet_parse (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  guint nh, nb;

  if (!gst_ax_nms_json_get_names (p, o, "heatmap", &nh, error)
      || !gst_ax_nms_json_get_names (p, o, "boxes", &nb, error))
    return FALSE;
  if (nh > 1 || nb > 1 || nh != nb)
    return gst_ax_nms_decode_fail (error, "\"heatmap\" and \"boxes\" name %u "
        "and %u tensors; expected one each (or neither, for the outputs in "
        "order)", nh, nb);
  if (!gst_ax_nms_json_get_uint (o, "stride", 1, MAX_STRIDE, &p->stride, error)
      || !gst_ax_nms_json_get_uint (o, "peak_kernel", 1, PEAK_KERNEL,
          &p->peak_kernel, error)
      || !gst_ax_nms_json_get_uint (o, "top_k", 1, MAX_TOP_K, &p->top_k, error))
    return FALSE;
  if (p->peak_kernel != PEAK_KERNEL)
    return gst_ax_nms_decode_fail (error, "\"peak_kernel\" is %u; expected "
        "%d (a 3x3 peak test)", p->peak_kernel, PEAK_KERNEL);
  return TRUE;
}

/* the heat-map and the distances */
static gboolean
centernet_count_inputs (const GstAxNmsParams * p, guint n_metas,
    guint * n_inputs, gchar ** error)
{
  *n_inputs = 2;
  return TRUE;
}

static gboolean
centernet_bind (const GstAxNmsParams * p,
    const GstAxTensorMeta * const *picked, const guint * idx, guint n,
    GstAxNmsInput * inputs, gchar ** error)
{
  const gint64 *hd, *bd;
  guint nh = gst_ax_nms_decode_inner_dims (picked[0], 3, &hd);
  guint nb = gst_ax_nms_decode_inner_dims (picked[1], 3, &bd);
  gchar *hs = gst_ax_nms_decode_shape_string (picked[0]);
  gchar *bs = gst_ax_nms_decode_shape_string (picked[1]);
  gboolean ok = TRUE;

  /* the heat-map is scanned channels-last; a planar one would be read
   * as garbage */
  if (picked[0]->n_dims == 4 && picked[0]->layout == GST_AX_TENSOR_LAYOUT_NCHW)
    ok = gst_ax_nms_decode_fail (error,
        "heat-map '%s' %s is NCHW (planar); the centernet decoder reads "
        "NHWC [1, height, width, classes]: end the model with a transpose "
        "to NHWC", picked[0]->name, hs);
  else if (picked[1]->n_dims == 4
      && picked[1]->layout == GST_AX_TENSOR_LAYOUT_NCHW)
    ok = gst_ax_nms_decode_fail (error,
        "box tensor '%s' %s is NCHW (planar); the centernet decoder reads "
        "NHWC [1, height, width, 4]: end the model with a transpose to NHWC",
        picked[1]->name, bs);
  else if (nh != 3 || hd[0] < 1 || hd[1] < 1 || hd[2] < 1
      || hd[0] * hd[1] * hd[2] > G_MAXINT32)
    ok = gst_ax_nms_decode_fail (error,
        "heat-map '%s' has shape %s; expected [1, " "height, width, classes]",
        picked[0]->name, hs);
  else if (nb != 3 || bd[0] != hd[0] || bd[1] != hd[1]
      || bd[2] != CENTERNET_BOX_VALUES)
    ok = gst_ax_nms_decode_fail (error,
        "box tensor '%s' has shape %s; expected [1, " "%" G_GINT64_FORMAT ", %"
        G_GINT64_FORMAT ", 4] (left, top, "
        "right, bottom per cell of heat-map '%s' %s)", picked[1]->name, bs,
        hd[0], hd[1], picked[0]->name, hs);
  else if (centernet_stride (p, hd[1]) == 0)
    ok = gst_ax_nms_decode_fail (error,
        "no stride for heat-map '%s' %s; expected "
        "\"stride\" in the metadata or an input width that is a multiple "
        "of the grid width (input width %u)", picked[0]->name, hs,
        p->input_width);
  g_free (hs);
  g_free (bs);
  if (!ok)
    return FALSE;
  gst_ax_nms_decode_input_set (&inputs[0], picked[0], idx[0], hd[0] * hd[1],
      hd[2], hd[0], hd[1]);
  gst_ax_nms_decode_input_set (&inputs[1], picked[1], idx[1], hd[0] * hd[1],
      CENTERNET_BOX_VALUES, hd[0], hd[1]);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Decoding */

/* Keeps the @top_k best candidates (score, then push order) in that
 * order; returns the score a later candidate must beat. */
static gfloat
centernet_compact (GstAxNmsWork * w, guint top_k)
{
  guint r;
  gfloat *tf;
  guint32 *tu;

  gst_ax_nms_decode_sort_candidates (w);
  for (r = 0; r < top_k; r++) {
    guint k = w->order[r];
    w->cx0[r] = w->cscore[k];
    w->cclass[r] = w->canchor[k];
  }
  tf = w->cscore;
  w->cscore = w->cx0;
  w->cx0 = tf;
  tu = w->canchor;
  w->canchor = w->cclass;
  w->cclass = tu;
  w->n_cand = top_k;
  return w->cscore[top_k - 1];
}

static inline void
centernet_push (GstAxNmsWork * w, gfloat score, guint32 idx)
{
  w->cscore[w->n_cand] = score;
  w->canchor[w->n_cand] = idx;
  w->n_cand++;
}

/* Whether no 3x3 neighbour of element @i (cell @x, @y, class channel)
 * has a greater biased byte than @b. */
static inline gboolean
peak_u8 (const guint8 * t, guint8 flip, guint W, guint H, guint nc, guint x,
    guint y, gsize i, guint8 b)
{
  gint dy, dx;

  for (dy = -1; dy <= 1; dy++) {
    gint yy = (gint) y + dy;
    if (yy < 0 || yy >= (gint) H)
      continue;
    for (dx = -1; dx <= 1; dx++) {
      gint xx = (gint) x + dx;
      if (xx < 0 || xx >= (gint) W || (dx == 0 && dy == 0))
        continue;
      if ((guint8) (t[(gssize) i + ((gssize) dy * W + dx) * nc] ^ flip) > b)
        return FALSE;
    }
  }
  return TRUE;
}

static inline gboolean
peak_f32 (const gfloat * t, guint W, guint H, guint nc, guint x, guint y,
    gsize i, gfloat v)
{
  gint dy, dx;

  for (dy = -1; dy <= 1; dy++) {
    gint yy = (gint) y + dy;
    if (yy < 0 || yy >= (gint) H)
      continue;
    for (dx = -1; dx <= 1; dx++) {
      gint xx = (gint) x + dx;
      gfloat n;
      if (xx < 0 || xx >= (gint) W || (dx == 0 && dy == 0))
        continue;
      memcpy (&n, t + (gssize) i + ((gssize) dy * W + dx) * nc, sizeof n);
      if (n > v)
        return FALSE;
    }
  }
  return TRUE;
}

typedef gsize (*NextBlockU8) (const guint8 * t, gsize blk, gsize n_blk,
    guint8 flip, guint first_pass, guint64 * mask);
typedef gsize (*NextBlockF32) (const gfloat * t, gsize blk, gsize n_blk,
    gfloat thr, guint64 * mask);

static gsize
next_block_u8_generic (const guint8 * t, gsize blk, gsize n_blk, guint8 flip,
    guint first_pass, guint64 * mask)
{
  U8x16 flipv, tv;
  guint j;

  for (j = 0; j < VEC_BYTES; j++) {
    flipv[j] = flip;
    tv[j] = first_pass;
  }
  for (; blk < n_blk; blk++) {
    const guint8 *bp = t + blk * CN_BLOCK_U8;
    guint64 m = 0;

    if (G_LIKELY (!block_any_u8 (bp, flipv, tv)))
      continue;
    for (j = 0; j < CN_BLOCK_U8; j++)
      if ((guint8) (bp[j] ^ flip) >= first_pass)
        m |= G_GUINT64_CONSTANT (1) << j;
    *mask = m;
    return blk;
  }
  return n_blk;
}

static gsize
next_block_f32_generic (const gfloat * t, gsize blk, gsize n_blk, gfloat thr,
    guint64 * mask)
{
  F32x4 tv = { thr, thr, thr, thr };
  guint j;

  for (; blk < n_blk; blk++) {
    const gfloat *bp = t + blk * CN_BLOCK_F32;
    guint64 m = 0;

    if (G_LIKELY (!block_any_f32 (bp, tv) && !block_any_f32 (bp +
                SCAN_BLOCK_FLOATS, tv)))
      continue;
    for (j = 0; j < CN_BLOCK_F32; j++) {
      gfloat v;
      memcpy (&v, bp + j, sizeof v);
      if (v > thr)
        m |= G_GUINT64_CONSTANT (1) << j;
    }
    *mask = m;
    return blk;
  }
  return n_blk;
}

static gboolean
have_avx2 (void)
{
#ifdef HAVE_AVX2_KERNELS
  static gint cached = -1;

  if (G_UNLIKELY (cached < 0))
    cached = __builtin_cpu_supports ("avx2") ? 1 : 0;
  return cached == 1;
#else
  return FALSE;
#endif
}

static NextBlockU8
pick_next_block_u8 (void)
{
#ifdef HAVE_AVX2_KERNELS
  if (have_avx2 ())
    return gst_ax_nms_decode_next_block_u8_avx2;
#endif
  return next_block_u8_generic;
}

static NextBlockF32
pick_next_block_f32 (void)
{
#ifdef HAVE_AVX2_KERNELS
  if (have_avx2 ())
    return gst_ax_nms_decode_next_block_f32_avx2;
#endif
  return next_block_f32_generic;
}

/* A value of the heat-map above the threshold: the peak test, then the
 * candidate list. Returns FALSE when no later value can enter the top k. */
static inline gboolean
centernet_hit_u8 (GstAxNmsWork * w, const GstAxNmsInput * in, guint8 flip,
    const gfloat * lut, gsize i, guint * first_pass, guint top_k, guint cap)
{
  const guint8 *t = in->data;
  const guint W = in->width, nc = in->n_classes;
  guint8 b = t[i] ^ flip;
  guint cell, x, y;

  if (b < *first_pass)
    return TRUE;
  cell = i / nc;
  y = cell / W;
  x = cell - y * W;
  if (!peak_u8 (t, flip, W, in->height, nc, x, y, i, b))
    return TRUE;
  if (w->n_cand == cap) {
    *first_pass =
        gst_ax_nms_decode_lut_first_above (lut, centernet_compact (w, top_k));
    if (*first_pass == LUT_SIZE)
      return FALSE;
    if (b < *first_pass)
      return TRUE;
  }
  centernet_push (w, lut[b], i);
  return TRUE;
}

static void
centernet_scan_quant (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in, guint top_k, guint cap)
{
  const guint8 *t = in->data;
  const gsize n = (gsize) in->width * in->height * in->n_classes;
  const gsize n_blk = n / CN_BLOCK_U8;
  const guint8 flip = in->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
  const gfloat *lut = gst_ax_nms_decode_slot_lut (&w->slots[0], in, FALSE);
  const NextBlockU8 next = pick_next_block_u8 ();
  guint first_pass =
      gst_ax_nms_decode_lut_first_above (lut, p->score_threshold);
  gsize blk = 0, i;

  if (first_pass == LUT_SIZE)
    return;
  /* the AVX2 compare cannot say ">= 0": everything passes */
  while ((blk = (first_pass ? next : next_block_u8_generic) (t, blk, n_blk,
              flip, first_pass, &w->scan_mask)) < n_blk) {
    guint64 m = w->scan_mask;

    while (m) {
      i = blk * CN_BLOCK_U8 + __builtin_ctzll (m);
      m &= m - 1;
      if (!centernet_hit_u8 (w, in, flip, lut, i, &first_pass, top_k, cap))
        return;
    }
    blk++;
  }
  for (i = n_blk * CN_BLOCK_U8; i < n; i++)
    if (!centernet_hit_u8 (w, in, flip, lut, i, &first_pass, top_k, cap))
      return;
}

static inline void
centernet_hit_f32 (GstAxNmsWork * w, const GstAxNmsInput * in, gsize i,
    gfloat * thr, guint top_k, guint cap)
{
  const gfloat *t = in->data;
  const guint W = in->width, nc = in->n_classes;
  guint cell, x, y;
  gfloat v;

  memcpy (&v, t + i, sizeof v);
  if (!(v > *thr) || !isfinite (v))
    return;
  cell = i / nc;
  y = cell / W;
  x = cell - y * W;
  if (!peak_f32 (t, W, in->height, nc, x, y, i, v))
    return;
  if (w->n_cand == cap) {
    *thr = centernet_compact (w, top_k);
    if (!(v > *thr))
      return;
  }
  centernet_push (w, v, i);
}

static void
centernet_scan_f32 (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in, guint top_k, guint cap)
{
  const gfloat *t = in->data;
  const gsize n = (gsize) in->width * in->height * in->n_classes;
  const gsize n_blk = n / CN_BLOCK_F32;
  const NextBlockF32 next = pick_next_block_f32 ();
  gfloat thr = p->score_threshold;
  gsize blk = 0, i;

  while ((blk = next (t, blk, n_blk, thr, &w->scan_mask)) < n_blk) {
    guint64 m = w->scan_mask;

    while (m) {
      i = blk * CN_BLOCK_F32 + __builtin_ctzll (m);
      m &= m - 1;
      centernet_hit_f32 (w, in, i, &thr, top_k, cap);
    }
    blk++;
  }
  for (i = n_blk * CN_BLOCK_F32; i < n; i++)
    centernet_hit_f32 (w, in, i, &thr, top_k, cap);
}

/* Room for this many candidates per top-k before the list is cut back */
#define CENTERNET_CAND_FACTOR 4

static guint
centernet_run (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint limit)
{
  const GstAxNmsInput *h, *bx;
  guint W, nc, stride, top_k, cap;
  guint r, nv = 0, n_top;

  g_return_val_if_fail (n_inputs == 2, 0);
  h = &inputs[0];
  bx = &inputs[1];
  W = h->width;
  nc = h->n_classes;
  stride = centernet_stride (p, W);
  top_k = p->top_k ? p->top_k : MAX_TOP_K;
  cap = CENTERNET_CAND_FACTOR * top_k;
  gst_ax_nms_decode_work_ensure (w, cap);
  w->n_cand = 0;
  if (stride == 0)
    return 0;
  if (h->dtype == GST_AX_TENSOR_DTYPE_F32)
    centernet_scan_f32 (w, p, h, top_k, cap);
  else
    centernet_scan_quant (w, p, h, top_k, cap);
  if (w->n_cand == 0)
    return 0;
  gst_ax_nms_decode_sort_candidates (w);
  n_top = MIN (w->n_cand, top_k);

  for (r = 0; r < n_top; r++) {
    guint k = w->order[r];
    guint32 idx = w->canchor[k];
    guint cell = idx / nc, c = idx - cell * nc;
    guint y = cell / W, x = cell - y * W;
    gsize o = (gsize) cell * CENTERNET_BOX_VALUES;
    gfloat px = (gfloat) (stride * x), py = (gfloat) (stride * y);
    gfloat x0 = (px - value_at (bx, o)) * p->box_scale_x;
    gfloat y0 = (py - value_at (bx, o + 1)) * p->box_scale_y;
    gfloat x1 = (px + value_at (bx, o + 2)) * p->box_scale_x;
    gfloat y1 = (py + value_at (bx, o + 3)) * p->box_scale_y;

    if (!isfinite (x0) || !isfinite (y0) || !isfinite (x1) || !isfinite (y1))
      continue;
    w->cx0[k] = x0;
    w->cy0[k] = y0;
    w->cx1[k] = x1;
    w->cy1[k] = y1;
    w->cclass[k] = c;
    w->canchor[k] = cell;
    w->order[nv++] = k;
  }
  return gst_ax_nms_decode_suppress (w, p, w->order, nv, NULL, results, limit);
}

/* *INDENT-OFF* */
const GstAxNmsDecoder gst_ax_nms_decoder_centernet = {
  .name = "centernet",
  .description = "CenterNet: heat-map [1, H, W, classes] and distances "
      "[1, H, W, 4]; 3x3 peaks, top-k",
  .parse = centernet_parse,
  .count_inputs = centernet_count_inputs,
  .bind = centernet_bind,
  .run = centernet_run,
};
/* *INDENT-ON* */
