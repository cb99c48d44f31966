/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Decoding and NMS for axnms.
 *
 * The result is defined by a plain algorithm, which the tests implement
 * literally: dequantise every value as scale * (q - zero_point) in float;
 * per anchor take the best class (the first one on ties); an anchor is a
 * candidate if its score is finite and above the threshold (YOLOv5: the
 * objectness too) and its four corners are finite; sort candidates by
 * score, descending, then by anchor, ascending; keep greedily every
 * candidate whose IoU with every kept box of its class (of any class when
 * class-agnostic) is not above the IoU threshold, up to max-detections.
 *
 * The fast path computes the same thing. For quantised tensors the
 * dequantisation is a strictly increasing 256-entry table, so the
 * per-anchor maximum and the threshold test run on the raw bytes (biased
 * to unsigned so that SSE2's unsigned byte max applies); floats are only
 * made for the few anchors that pass. Sorting is a stable radix sort on
 * the score's bit pattern, which orders positive floats like their
 * values. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode.h"

#include <math.h>
#include <string.h>

#define LUT_SIZE 256
/* XORing an int8 with this maps it to uint8 with the same order */
#define INT8_BIAS 0x80
/* YOLOv8 rows / YOLOv5 columns before the class scores */
#define YOLOV8_BOX_VALUES 4
#define YOLOV5_BOX_VALUES 4
#define YOLOV5_OBJECTNESS 4
#define YOLOV5_CLASS_OFFSET 5
/* below this many candidates an insertion sort beats four radix passes */
#define INSERTION_SORT_MAX 48
#define RADIX_BITS 8
#define RADIX_BUCKETS (1 << RADIX_BITS)
#define RADIX_PASSES (32 / RADIX_BITS)
/* keeps every q - zero_point exact in a float */
#define MAX_ABS_ZERO_POINT 65536
#define NO_CLASS G_MAXUINT32
/* an f32 anchor whose first class score is NaN: the reference's running
 * maximum starts at NaN and never changes, so it is never a candidate */
#define DEAD_ANCHOR (G_MAXUINT32 - 1)
/* bytes tested per vector step of the threshold scan */
#define VEC_BYTES 16
#define SCAN_BLOCK_BYTES (4 * VEC_BYTES)
#define SCAN_BLOCK_FLOATS (SCAN_BLOCK_BYTES / 4)
/* kept boxes are tested against a candidate this many at a time: one
 * F32x4 */
#define IOU_BLOCK 4

typedef guint8 U8x16 __attribute__((vector_size (VEC_BYTES)));
typedef gfloat F32x4 __attribute__((vector_size (VEC_BYTES)));
typedef gint32 I32x4 __attribute__((vector_size (VEC_BYTES)));
typedef guint64 U64x2 __attribute__((vector_size (VEC_BYTES)));

struct _GstAxNmsWork
{
  guint capacity;               /* anchors the arrays below can hold */

  /* per-anchor best class among the scores above the threshold:
   * best_class[a] is NO_CLASS until a hit; best_u8 / best_f32 hold its
   * (biased) score. Only touched anchors are reset after a frame. */
  guint32 *best_class;
  guint8 *best_u8;
  gfloat *best_f32;
  guint64 *touched;             /* one bit per anchor */
  guint n_touched_words;

  /* candidates, in anchor order */
  guint n_cand;
  gfloat *cx0, *cy0, *cx1, *cy1, *cscore;
  guint32 *cclass, *canchor;

  /* sort keys and permutation, with scratch for the radix passes */
  guint32 *key, *key_tmp, *order, *order_tmp;

  /* kept boxes, in output order */
  gfloat *kx0, *ky0, *kx1, *ky1, *karea;
  guint32 *kclass;

  /* dequantisation table, valid for lut_dtype / lut_scale / lut_zp */
  gboolean lut_valid;
  GstAxTensorDType lut_dtype;
  gfloat lut_scale;
  gint32 lut_zp;
  gfloat lut[LUT_SIZE];
};

GstAxNmsWork *
gst_ax_nms_work_new (void)
{
  return g_new0 (GstAxNmsWork, 1);
}

static void
work_free_arrays (GstAxNmsWork * w)
{
  g_free (w->best_class);
  g_free (w->best_u8);
  g_free (w->best_f32);
  g_free (w->touched);
  g_free (w->cx0);
  g_free (w->cy0);
  g_free (w->cx1);
  g_free (w->cy1);
  g_free (w->cscore);
  g_free (w->cclass);
  g_free (w->canchor);
  g_free (w->key);
  g_free (w->key_tmp);
  g_free (w->order);
  g_free (w->order_tmp);
  g_free (w->kx0);
  g_free (w->ky0);
  g_free (w->kx1);
  g_free (w->ky1);
  g_free (w->karea);
  g_free (w->kclass);
}

void
gst_ax_nms_work_free (GstAxNmsWork * work)
{
  if (work == NULL)
    return;
  work_free_arrays (work);
  g_free (work);
}

/* Grows the arrays only when a larger tensor arrives, so a stream of
 * same-shaped tensors allocates once. */
static void
work_ensure (GstAxNmsWork * w, guint n_anchors)
{
  guint n, i;

  if (n_anchors <= w->capacity)
    return;
  work_free_arrays (w);
  n = n_anchors;
  w->best_class = g_new (guint32, n);
  for (i = 0; i < n; i++)
    w->best_class[i] = NO_CLASS;
  w->best_u8 = g_new (guint8, n);
  w->best_f32 = g_new (gfloat, n);
  w->n_touched_words = (n + 63) / 64;
  w->touched = g_new0 (guint64, w->n_touched_words);
  w->cx0 = g_new (gfloat, n);
  w->cy0 = g_new (gfloat, n);
  w->cx1 = g_new (gfloat, n);
  w->cy1 = g_new (gfloat, n);
  w->cscore = g_new (gfloat, n);
  w->cclass = g_new (guint32, n);
  w->canchor = g_new (guint32, n);
  w->key = g_new (guint32, n);
  w->key_tmp = g_new (guint32, n);
  w->order = g_new (guint32, n);
  w->order_tmp = g_new (guint32, n);
  /* room for a partial block of padding after the last kept box */
  w->kx0 = g_new (gfloat, n + IOU_BLOCK);
  w->ky0 = g_new (gfloat, n + IOU_BLOCK);
  w->kx1 = g_new (gfloat, n + IOU_BLOCK);
  w->ky1 = g_new (gfloat, n + IOU_BLOCK);
  w->karea = g_new (gfloat, n + IOU_BLOCK);
  w->kclass = g_new (guint32, n + IOU_BLOCK);
  w->capacity = n;
}

static inline gint
raw_int (GstAxTensorDType dtype, guint8 b)
{
  return dtype == GST_AX_TENSOR_DTYPE_I8 ? (gint) (gint8) b : (gint) b;
}

/* Fills lut[b] with the value of the byte b (biased for int8, so that b
 * orders like the value). Returns FALSE if two levels are not distinct
 * finite floats, which would break the ordering the fast path relies on. */
static gboolean
lut_build (gfloat * lut, GstAxTensorDType dtype, gfloat scale, gint32 zp)
{
  guint b;
  guint8 flip = dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;

  for (b = 0; b < LUT_SIZE; b++)
    lut[b] = scale * (gfloat) (raw_int (dtype, (guint8) (b ^ flip)) - zp);
  for (b = 0; b < LUT_SIZE; b++) {
    if (!isfinite (lut[b]))
      return FALSE;
    if (b > 0 && !(lut[b] > lut[b - 1]))
      return FALSE;
  }
  return TRUE;
}

static const gchar *
dtype_name (GstAxTensorDType dtype)
{
  return gst_ax_tensor_dtype_to_string (dtype);
}

/**
 * gst_ax_nms_input_from_meta:
 * @meta: a model output tensor
 * @kind: how to read it
 * @input: (out): the validated view
 * @error: (out) (optional): what was wrong, to free with g_free()
 *
 * Returns: %FALSE if the tensor cannot be decoded as @kind
 */
gboolean
gst_ax_nms_input_from_meta (const GstAxTensorMeta * meta,
    GstAxNmsDecodeKind kind, GstAxNmsInput * input, gchar ** error)
{
  gint64 rows, cols;
  guint lead = 0, i;
  gfloat lut[LUT_SIZE];

  /* leading 1s are batch dimensions of size one */
  while (meta->n_dims - lead > 2 && meta->dims[lead] == 1)
    lead++;
  if (meta->n_dims - lead != 2) {
    GString *s = g_string_new (NULL);
    for (i = 0; i < meta->n_dims; i++)
      g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "",
          meta->dims[i]);
    if (error)
      *error = g_strdup_printf ("tensor '%s' has shape [%s]; expected "
          "%s", meta->name, s->str, kind == GST_AX_NMS_DECODE_YOLOV8 ?
          "[1, 4 + classes, anchors]" : "[1, anchors, 5 + classes]");
    g_string_free (s, TRUE);
    return FALSE;
  }
  rows = meta->dims[lead];
  cols = meta->dims[lead + 1];

  if (kind == GST_AX_NMS_DECODE_YOLOV8) {
    if (rows <= YOLOV8_BOX_VALUES || cols < 1 || cols > G_MAXINT32) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' is [%" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT "]; yolov8 expects [4 + classes, anchors] with "
            "at least one class and one anchor", meta->name, rows, cols);
      return FALSE;
    }
    input->n_classes = rows - YOLOV8_BOX_VALUES;
    input->n_anchors = cols;
  } else {
    if (cols <= YOLOV5_CLASS_OFFSET || rows < 1 || rows > G_MAXINT32) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' is [%" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT "]; yolov5 expects [anchors, 5 + classes] with "
            "at least one class and one anchor", meta->name, rows, cols);
      return FALSE;
    }
    input->n_classes = cols - YOLOV5_CLASS_OFFSET;
    input->n_anchors = rows;
  }

  input->dtype = meta->dtype;
  input->scale = meta->scale;
  input->zero_point = meta->zero_point;
  if (meta->dtype != GST_AX_TENSOR_DTYPE_F32) {
    if (!(meta->scale > 0.0f) || !isfinite (meta->scale)
        || ABS (meta->zero_point) > MAX_ABS_ZERO_POINT
        || !lut_build (lut, meta->dtype, meta->scale, meta->zero_point)) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' (%s) has quantisation scale "
            "%g and zero point %d; expected a positive scale and a zero "
            "point within +-%d that give 256 distinct finite levels",
            meta->name, dtype_name (meta->dtype), meta->scale,
            meta->zero_point, MAX_ABS_ZERO_POINT);
      return FALSE;
    }
  }
  input->data = NULL;
  return TRUE;
}

static void
lut_ensure (GstAxNmsWork * w, const GstAxNmsInput * in)
{
  if (w->lut_valid && w->lut_dtype == in->dtype && w->lut_scale == in->scale
      && w->lut_zp == in->zero_point)
    return;
  /* validated by gst_ax_nms_input_from_meta() */
  w->lut_valid = lut_build (w->lut, in->dtype, in->scale, in->zero_point);
  w->lut_dtype = in->dtype;
  w->lut_scale = in->scale;
  w->lut_zp = in->zero_point;
}

/* Appends a candidate if its corners are finite. */
static inline void
push_candidate (GstAxNmsWork * w, const GstAxNmsParams * p, gfloat b0,
    gfloat b1, gfloat b2, gfloat b3, gfloat score, guint cls, guint anchor)
{
  gfloat x0, y0, x1, y1;
  guint n = w->n_cand;

  if (p->box_format == GST_AX_NMS_BOX_XYWH) {
    x0 = (b0 - b2 * 0.5f) * p->box_scale_x;
    y0 = (b1 - b3 * 0.5f) * p->box_scale_y;
    x1 = (b0 + b2 * 0.5f) * p->box_scale_x;
    y1 = (b1 + b3 * 0.5f) * p->box_scale_y;
  } else {
    x0 = b0 * p->box_scale_x;
    y0 = b1 * p->box_scale_y;
    x1 = b2 * p->box_scale_x;
    y1 = b3 * p->box_scale_y;
  }
  if (!isfinite (x0) || !isfinite (y0) || !isfinite (x1) || !isfinite (y1))
    return;
  w->cx0[n] = x0;
  w->cy0[n] = y0;
  w->cx1[n] = x1;
  w->cy1[n] = y1;
  w->cscore[n] = score;
  w->cclass[n] = cls;
  w->canchor[n] = anchor;
  w->n_cand = n + 1;
}

/* Whether any of the SCAN_BLOCK_BYTES bytes at @p, XOR @flip, is >= @t.
 * Explicit vectors: GCC's -O2 cost model leaves the plain loop scalar. */
static inline gboolean
block_any_u8 (const guint8 * p, U8x16 flip, U8x16 t)
{
  U8x16 v0, v1, v2, v3;
  U64x2 m;

  memcpy (&v0, p, VEC_BYTES);
  memcpy (&v1, p + VEC_BYTES, VEC_BYTES);
  memcpy (&v2, p + 2 * VEC_BYTES, VEC_BYTES);
  memcpy (&v3, p + 3 * VEC_BYTES, VEC_BYTES);
  m = (U64x2) (((v0 ^ flip) >= t) | ((v1 ^ flip) >= t) | ((v2 ^ flip) >= t)
      | ((v3 ^ flip) >= t));
  return (m[0] | m[1]) != 0;
}

static inline gboolean
block_any_f32 (const gfloat * p, F32x4 t)
{
  F32x4 v0, v1, v2, v3;
  I32x4 m;

  memcpy (&v0, p, VEC_BYTES);
  memcpy (&v1, p + 4, VEC_BYTES);
  memcpy (&v2, p + 8, VEC_BYTES);
  memcpy (&v3, p + 12, VEC_BYTES);
  m = (v0 > t) | (v1 > t) | (v2 > t) | (v3 > t);
  return (m[0] | m[1] | m[2] | m[3]) != 0;
}

static inline gboolean
block_any_nan_f32 (const gfloat * p)
{
  F32x4 v0, v1, v2, v3;
  I32x4 m;

  memcpy (&v0, p, VEC_BYTES);
  memcpy (&v1, p + 4, VEC_BYTES);
  memcpy (&v2, p + 8, VEC_BYTES);
  memcpy (&v3, p + 12, VEC_BYTES);
  m = (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3);
  return (m[0] | m[1] | m[2] | m[3]) != 0;
}

static inline void
touch (GstAxNmsWork * w, guint a)
{
  w->touched[a / 64] |= G_GUINT64_CONSTANT (1) << (a % 64);
}

/* Rows are visited in class order and a hit replaces the best only when
 * strictly greater, so ties go to the first class, as in the reference. */
static inline void
hit_u8 (GstAxNmsWork * w, guint a, guint c, guint8 b)
{
  if (w->best_class[a] == NO_CLASS) {
    w->best_class[a] = c;
    w->best_u8[a] = b;
    touch (w, a);
  } else if (b > w->best_u8[a]) {
    w->best_class[a] = c;
    w->best_u8[a] = b;
  }
}

static inline void
hit_f32 (GstAxNmsWork * w, guint a, guint c, gfloat v)
{
  guint32 bc = w->best_class[a];

  if (bc == NO_CLASS) {
    w->best_class[a] = c;
    w->best_f32[a] = v;
    touch (w, a);
  } else if (bc != DEAD_ANCHOR && v > w->best_f32[a]) {
    w->best_class[a] = c;
    w->best_f32[a] = v;
  }
}

/* Visits the touched anchors in ascending order, resetting them. */
#define FOREACH_TOUCHED_BEGIN(w, a) \
  { \
    guint _wi; \
    for (_wi = 0; _wi < (w)->n_touched_words; _wi++) { \
      guint64 _bits = (w)->touched[_wi]; \
      (w)->touched[_wi] = 0; \
      while (_bits) { \
        guint a = _wi * 64 + __builtin_ctzll (_bits); \
        _bits &= _bits - 1;
#define FOREACH_TOUCHED_END \
      } \
    } \
  }

static void
decode_v8_quant (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in)
{
  const guint8 *t = in->data;
  const guint na = in->n_anchors, nc = in->n_classes;
  const guint8 *scores = t + (gsize) YOLOV8_BOX_VALUES * na;
  const guint8 flip = in->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
  const gfloat *lut = w->lut;
  const guint n_blocks = na / SCAN_BLOCK_BYTES;
  U8x16 flipv, tv;
  guint first_pass, a, c, i, blk;

  /* the table increases strictly, so "value > threshold" is "biased byte
   * >= first_pass" */
  for (first_pass = 0; first_pass < LUT_SIZE; first_pass++)
    if (lut[first_pass] > p->score_threshold)
      break;
  if (first_pass == LUT_SIZE)
    return;
  for (i = 0; i < VEC_BYTES; i++) {
    flipv[i] = flip;
    tv[i] = first_pass;
  }

  for (c = 0; c < nc; c++) {
    const guint8 *row = scores + (gsize) c * na;

    for (blk = 0; blk < n_blocks; blk++) {
      const guint8 *bp = row + blk * SCAN_BLOCK_BYTES;

      if (G_LIKELY (!block_any_u8 (bp, flipv, tv)))
        continue;
      for (i = 0; i < SCAN_BLOCK_BYTES; i++) {
        guint8 b = bp[i] ^ flip;
        if (b >= first_pass)
          hit_u8 (w, blk * SCAN_BLOCK_BYTES + i, c, b);
      }
    }
    for (a = n_blocks * SCAN_BLOCK_BYTES; a < na; a++) {
      guint8 b = row[a] ^ flip;
      if (b >= first_pass)
        hit_u8 (w, a, c, b);
    }
  }

  FOREACH_TOUCHED_BEGIN (w, a) {
    guint bc = w->best_class[a];

    w->best_class[a] = NO_CLASS;
    push_candidate (w, p, lut[t[a] ^ flip], lut[t[na + a] ^ flip],
        lut[t[2 * (gsize) na + a] ^ flip], lut[t[3 * (gsize) na + a] ^ flip],
        lut[w->best_u8[a]], bc, a);
  }
  FOREACH_TOUCHED_END;
}

static void
decode_v8_f32 (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in)
{
  const gfloat *t = in->data;
  const guint na = in->n_anchors, nc = in->n_classes;
  const gfloat *scores = t + (gsize) YOLOV8_BOX_VALUES * na;
  const gfloat thr = p->score_threshold;
  const guint n_blocks = na / SCAN_BLOCK_FLOATS;
  F32x4 tv = { thr, thr, thr, thr };
  guint a, c, i, blk;

  /* anchors whose first score is NaN; they go on the touched list so
   * that they are reset with the others */
  for (blk = 0; blk < n_blocks; blk++) {
    const gfloat *bp = scores + blk * SCAN_BLOCK_FLOATS;

    if (G_LIKELY (!block_any_nan_f32 (bp)))
      continue;
    for (i = 0; i < SCAN_BLOCK_FLOATS; i++)
      if (isnan (bp[i])) {
        w->best_class[blk * SCAN_BLOCK_FLOATS + i] = DEAD_ANCHOR;
        touch (w, blk * SCAN_BLOCK_FLOATS + i);
      }
  }
  for (a = n_blocks * SCAN_BLOCK_FLOATS; a < na; a++)
    if (isnan (scores[a])) {
      w->best_class[a] = DEAD_ANCHOR;
      touch (w, a);
    }

  for (c = 0; c < nc; c++) {
    const gfloat *row = scores + (gsize) c * na;

    for (blk = 0; blk < n_blocks; blk++) {
      const gfloat *bp = row + blk * SCAN_BLOCK_FLOATS;

      if (G_LIKELY (!block_any_f32 (bp, tv)))
        continue;
      for (i = 0; i < SCAN_BLOCK_FLOATS; i++)
        if (bp[i] > thr)
          hit_f32 (w, blk * SCAN_BLOCK_FLOATS + i, c, bp[i]);
    }
    for (a = n_blocks * SCAN_BLOCK_FLOATS; a < na; a++)
      if (row[a] > thr)
        hit_f32 (w, a, c, row[a]);
  }

  FOREACH_TOUCHED_BEGIN (w, a) {
    guint bc = w->best_class[a];
    gfloat best = w->best_f32[a];

    w->best_class[a] = NO_CLASS;
    if (bc == DEAD_ANCHOR || !isfinite (best))
      continue;
    push_candidate (w, p, t[a], t[na + a], t[2 * (gsize) na + a],
        t[3 * (gsize) na + a], best, bc, a);
  }
  FOREACH_TOUCHED_END;
}

static void
decode_v5_quant (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in)
{
  const guint8 *t = in->data;
  const guint na = in->n_anchors, nc = in->n_classes;
  const gsize stride = (gsize) nc + YOLOV5_CLASS_OFFSET;
  const guint8 flip = in->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
  const gfloat *lut = w->lut;
  const gfloat thr = p->score_threshold;
  guint first_pass, a, c;

  for (first_pass = 0; first_pass < LUT_SIZE; first_pass++)
    if (lut[first_pass] > thr)
      break;
  if (first_pass == LUT_SIZE)
    return;

  for (a = 0; a < na; a++) {
    const guint8 *r = t + a * stride;
    gfloat obj, best, s;
    guint bc = 0;

    if (G_LIKELY ((guint8) (r[YOLOV5_OBJECTNESS] ^ flip) < first_pass))
      continue;
    obj = lut[r[YOLOV5_OBJECTNESS] ^ flip];
    best = obj * lut[r[YOLOV5_CLASS_OFFSET] ^ flip];
    for (c = 1; c < nc; c++) {
      s = obj * lut[r[YOLOV5_CLASS_OFFSET + c] ^ flip];
      if (s > best) {
        best = s;
        bc = c;
      }
    }
    if (!(best > thr) || !isfinite (best))
      continue;
    push_candidate (w, p, lut[r[0] ^ flip], lut[r[1] ^ flip],
        lut[r[2] ^ flip], lut[r[3] ^ flip], best, bc, a);
  }
}

static void
decode_v5_f32 (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in)
{
  const gfloat *t = in->data;
  const guint na = in->n_anchors, nc = in->n_classes;
  const gsize stride = (gsize) nc + YOLOV5_CLASS_OFFSET;
  const gfloat thr = p->score_threshold;
  guint a, c;

  for (a = 0; a < na; a++) {
    const gfloat *r = t + a * stride;
    gfloat obj = r[YOLOV5_OBJECTNESS], best, s;
    guint bc = 0;

    if (G_LIKELY (!(obj > thr)))
      continue;
    best = obj * r[YOLOV5_CLASS_OFFSET];
    for (c = 1; c < nc; c++) {
      s = obj * r[YOLOV5_CLASS_OFFSET + c];
      if (s > best) {
        best = s;
        bc = c;
      }
    }
    if (!(best > thr) || !isfinite (best))
      continue;
    push_candidate (w, p, r[0], r[1], r[2], r[3], best, bc, a);
  }
}

/* Stable sort of the candidates by key, ascending. Candidates arrive in
 * anchor order, so equal scores stay in anchor order. */
static void
sort_candidates (GstAxNmsWork * w)
{
  const guint n = w->n_cand;
  guint32 *key = w->key, *order = w->order;
  guint i, j, pass;

  for (i = 0; i < n; i++) {
    guint32 bits;

    /* scores are finite and > threshold >= 0, hence positive, and the
     * bits of positive floats order like their values */
    memcpy (&bits, &w->cscore[i], sizeof (bits));
    key[i] = ~bits;
    order[i] = i;
  }

  if (n <= INSERTION_SORT_MAX) {
    for (i = 1; i < n; i++) {
      guint32 k = key[i], o = order[i];

      for (j = i; j > 0 && key[j - 1] > k; j--) {
        key[j] = key[j - 1];
        order[j] = order[j - 1];
      }
      key[j] = k;
      order[j] = o;
    }
    return;
  }

  for (pass = 0; pass < RADIX_PASSES; pass++) {
    guint shift = pass * RADIX_BITS;
    guint count[RADIX_BUCKETS] = { 0 };
    guint sum = 0, d;
    guint32 *t;

    for (i = 0; i < n; i++)
      count[(key[i] >> shift) & (RADIX_BUCKETS - 1)]++;
    if (count[(key[0] >> shift) & (RADIX_BUCKETS - 1)] == n)
      continue;
    for (d = 0; d < RADIX_BUCKETS; d++) {
      guint c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (i = 0; i < n; i++) {
      guint dst = count[(key[i] >> shift) & (RADIX_BUCKETS - 1)]++;
      w->key_tmp[dst] = key[i];
      w->order_tmp[dst] = order[i];
    }
    t = key;
    key = w->key_tmp;
    w->key_tmp = t;
    t = order;
    order = w->order_tmp;
    w->order_tmp = t;
  }
  w->key = key;
  w->order = order;
}

static inline F32x4
vload (const gfloat * p)
{
  F32x4 v;

  memcpy (&v, p, sizeof (v));
  return v;
}

/* a < b ? a : b and a > b ? a : b, lane by lane, as the scalar MIN / MAX
 * of the reference */
static inline F32x4
vmin (F32x4 a, F32x4 b)
{
  I32x4 m = a < b;
  return (F32x4) (((I32x4) a & m) | ((I32x4) b & ~m));
}

static inline F32x4
vmax (F32x4 a, F32x4 b)
{
  I32x4 m = a > b;
  return (F32x4) (((I32x4) a & m) | ((I32x4) b & ~m));
}

/* Whether a box overlaps any kept box of the same class (of any class if
 * @agnostic) by more than @thr, with the reference's arithmetic lane by
 * lane. The kept arrays are padded to a whole number of IOU_BLOCKs with
 * inert entries (NaN area, hence NaN IoU). */
static gboolean
overlaps_kept (const GstAxNmsWork * w, guint nk, gfloat x0, gfloat y0,
    gfloat x1, gfloat y1, gfloat area, guint32 cls, gboolean agnostic,
    gfloat thr)
{
  const F32x4 vx0 = { x0, x0, x0, x0 }, vy0 = { y0, y0, y0, y0 };
  const F32x4 vx1 = { x1, x1, x1, x1 }, vy1 = { y1, y1, y1, y1 };
  const F32x4 va = { area, area, area, area }, vt = { thr, thr, thr, thr };
  const F32x4 zero = { 0, 0, 0, 0 };
  const I32x4 vc = { cls, cls, cls, cls };
  const gint32 all = agnostic ? -1 : 0;
  const I32x4 vag = { all, all, all, all };
  guint j;

  for (j = 0; j < nk; j += IOU_BLOCK) {
    F32x4 iw = vmin (vx1, vload (w->kx1 + j)) - vmax (vx0, vload (w->kx0 + j));
    F32x4 ih = vmin (vy1, vload (w->ky1 + j)) - vmax (vy0, vload (w->ky0 + j));
    F32x4 inter, iou;
    I32x4 kc, m;

    iw = (F32x4) ((I32x4) iw & (iw > zero));
    ih = (F32x4) ((I32x4) ih & (ih > zero));
    inter = iw * ih;
    iou = inter / (va + vload (w->karea + j) - inter);
    memcpy (&kc, w->kclass + j, sizeof (kc));
    m = (iou > vt) & (vag | (kc == vc));
    if (m[0] | m[1] | m[2] | m[3])
      return TRUE;
  }
  return FALSE;
}

static void
kept_pad_block (GstAxNmsWork * w, guint from)
{
  guint j;

  for (j = from; j < from + IOU_BLOCK; j++) {
    w->kx0[j] = w->ky0[j] = w->kx1[j] = w->ky1[j] = 0.0f;
    w->karea[j] = NAN;
    w->kclass[j] = NO_CLASS;
  }
}

/**
 * gst_ax_nms_run:
 * @work: per-stream scratch, reused across calls
 * @params: thresholds and formats
 * @input: the validated output tensor with its data
 * @results: (out caller-allocates) (array length=max_results): the
 *   detections in tensor pixels, best first
 * @max_results: room in @results
 *
 * Returns: the number of detections, at most MIN (@max_results,
 *   @params->max_detections)
 */
guint
gst_ax_nms_run (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in, GstAxNmsResult * results, guint max_results)
{
  const guint limit = MIN (max_results, p->max_detections);
  guint i, nk = 0;

  g_return_val_if_fail (p->score_threshold >= 0.0f, 0);

  work_ensure (w, in->n_anchors);
  w->n_cand = 0;
  if (limit == 0)
    return 0;
  if (in->dtype != GST_AX_TENSOR_DTYPE_F32) {
    lut_ensure (w, in);
    if (!w->lut_valid)
      return 0;
  }

  if (p->kind == GST_AX_NMS_DECODE_YOLOV8) {
    if (in->dtype == GST_AX_TENSOR_DTYPE_F32)
      decode_v8_f32 (w, p, in);
    else
      decode_v8_quant (w, p, in);
  } else {
    if (in->dtype == GST_AX_TENSOR_DTYPE_F32)
      decode_v5_f32 (w, p, in);
    else
      decode_v5_quant (w, p, in);
  }
  if (w->n_cand == 0)
    return 0;

  sort_candidates (w);
  kept_pad_block (w, 0);

  for (i = 0; i < w->n_cand && nk < limit; i++) {
    guint k = w->order[i];
    gfloat x0 = w->cx0[k], y0 = w->cy0[k], x1 = w->cx1[k], y1 = w->cy1[k];
    gfloat area = (x1 - x0) * (y1 - y0);

    if (overlaps_kept (w, nk, x0, y0, x1, y1, area, w->cclass[k],
            p->class_agnostic, p->iou_threshold))
      continue;
    w->kx0[nk] = x0;
    w->ky0[nk] = y0;
    w->kx1[nk] = x1;
    w->ky1[nk] = y1;
    w->karea[nk] = area;
    w->kclass[nk] = w->cclass[k];
    results[nk].x0 = x0;
    results[nk].y0 = y0;
    results[nk].x1 = x1;
    results[nk].y1 = y1;
    results[nk].score = w->cscore[k];
    results[nk].class_id = w->cclass[k];
    results[nk].anchor = w->canchor[k];
    nk++;
    if (nk % IOU_BLOCK == 0)
      kept_pad_block (w, nk);
  }
  return nk;
}
