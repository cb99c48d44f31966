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

#include <json-glib/json-glib.h>
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

typedef struct
{
  gboolean valid;
  GstAxTensorDType dtype;
  gfloat scale;
  gint32 zp;
  gboolean sigmoid;
  gfloat lut[LUT_SIZE];
} LutSlot;

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

  /* tables of the other decoders, one per input slot: the value (or its
   * sigmoid) of each biased byte */
  LutSlot slots[GST_AX_NMS_MAX_INPUTS];

  /* weighted NMS: candidates already merged into a kept box, by rank */
  guint8 *consumed;
  /* the hits of the heat-map block being visited */
  guint64 scan_mask;
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
  g_free (w->consumed);
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
  w->consumed = g_new (guint8, n);
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

/* Keypoints of an anchor, for decoders that have them (SSD). */
typedef struct
{
  const GstAxNmsParams *params;
  const GstAxNmsInput *inputs;
  guint n_inputs;
} KeypointSource;

static void keypoints_of (const KeypointSource * ks, guint anchor, gfloat * kp);

/* Greedy NMS over the candidates order[0..n) (best first), up to @limit
 * results. */
static guint
suppress_hard (GstAxNmsWork * w, const GstAxNmsParams * p,
    const guint32 * order, guint n, const KeypointSource * ks,
    GstAxNmsResult * results, guint limit)
{
  guint i, nk = 0;

  kept_pad_block (w, 0);
  for (i = 0; i < n && nk < limit; i++) {
    guint k = order[i];
    gfloat x0 = w->cx0[k], y0 = w->cy0[k], x1 = w->cx1[k], y1 = w->cy1[k];
    gfloat area = (x1 - x0) * (y1 - y0);
    GstAxNmsResult *r = &results[nk];

    if (overlaps_kept (w, nk, x0, y0, x1, y1, area, w->cclass[k],
            p->class_agnostic, p->iou_threshold))
      continue;
    w->kx0[nk] = x0;
    w->ky0[nk] = y0;
    w->kx1[nk] = x1;
    w->ky1[nk] = y1;
    w->karea[nk] = area;
    w->kclass[nk] = w->cclass[k];
    r->x0 = x0;
    r->y0 = y0;
    r->x1 = x1;
    r->y1 = y1;
    r->score = w->cscore[k];
    r->class_id = w->cclass[k];
    r->anchor = w->canchor[k];
    r->n_keypoints = 0;
    if (ks && ks->params->n_keypoints > 0) {
      r->n_keypoints = ks->params->n_keypoints;
      keypoints_of (ks, r->anchor, r->keypoints);
    }
    nk++;
    if (nk % IOU_BLOCK == 0)
      kept_pad_block (w, nk);
  }
  return nk;
}

static inline gfloat
box_iou (gfloat ax0, gfloat ay0, gfloat ax1, gfloat ay1, gfloat bx0,
    gfloat by0, gfloat bx1, gfloat by1)
{
  gfloat iw = MIN (ax1, bx1) - MAX (ax0, bx0);
  gfloat ih = MIN (ay1, by1) - MAX (ay0, by0);
  gfloat aa = (ax1 - ax0) * (ay1 - ay0);
  gfloat ab = (bx1 - bx0) * (by1 - by0);
  gfloat inter;

  iw = iw > 0.0f ? iw : 0.0f;
  ih = ih > 0.0f ? ih : 0.0f;
  inter = iw * ih;
  return inter / (aa + ab - inter);
}

/* MediaPipe's weighted NMS: the best remaining candidate takes every
 * remaining one (itself included) that overlaps it by more than the
 * threshold, and becomes their score-weighted mean (corners and
 * keypoints), keeping its own score. */
static guint
suppress_weighted (GstAxNmsWork * w, const GstAxNmsParams * p,
    const guint32 * order, guint n, const KeypointSource * ks,
    GstAxNmsResult * results, guint limit)
{
  const guint nkp = ks ? ks->params->n_keypoints : 0;
  gfloat kp[2 * GST_AX_NMS_MAX_KEYPOINTS];
  guint i, j, q, nk = 0;

  memset (w->consumed, 0, n);
  for (i = 0; i < n && nk < limit; i++) {
    guint k = order[i];
    gfloat x0, y0, x1, y1, total = 0, sx0 = 0, sy0 = 0, sx1 = 0, sy1 = 0;
    gfloat skp[2 * GST_AX_NMS_MAX_KEYPOINTS] = { 0 };
    GstAxNmsResult *r = &results[nk];

    if (w->consumed[i])
      continue;
    x0 = w->cx0[k];
    y0 = w->cy0[k];
    x1 = w->cx1[k];
    y1 = w->cy1[k];
    for (j = i; j < n; j++) {
      guint m = order[j];
      gfloat s;

      if (w->consumed[j])
        continue;
      if (j != i) {
        if (!p->class_agnostic && w->cclass[m] != w->cclass[k])
          continue;
        if (!(box_iou (w->cx0[m], w->cy0[m], w->cx1[m], w->cy1[m], x0, y0,
                    x1, y1) > p->iou_threshold))
          continue;
      }
      w->consumed[j] = 1;
      s = w->cscore[m];
      total += s;
      sx0 += w->cx0[m] * s;
      sy0 += w->cy0[m] * s;
      sx1 += w->cx1[m] * s;
      sy1 += w->cy1[m] * s;
      if (nkp > 0) {
        keypoints_of (ks, w->canchor[m], kp);
        for (q = 0; q < 2 * nkp; q++)
          skp[q] += kp[q] * s;
      }
    }
    r->x0 = sx0 / total;
    r->y0 = sy0 / total;
    r->x1 = sx1 / total;
    r->y1 = sy1 / total;
    r->score = w->cscore[k];
    r->class_id = w->cclass[k];
    r->anchor = w->canchor[k];
    r->n_keypoints = nkp;
    for (q = 0; q < 2 * nkp; q++)
      r->keypoints[q] = skp[q] / total;
    nk++;
  }
  return nk;
}

static guint
suppress (GstAxNmsWork * w, const GstAxNmsParams * p, const guint32 * order,
    guint n, const KeypointSource * ks, GstAxNmsResult * results, guint limit)
{
  if (p->suppression == GST_AX_NMS_SUPPRESS_WEIGHTED)
    return suppress_weighted (w, p, order, n, ks, results, limit);
  return suppress_hard (w, p, order, n, ks, results, limit);
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
  return suppress (w, p, w->order, w->n_cand, NULL, results, limit);
}

/* ------------------------------------------------------------------ */
/* Parameters */

#define DEFAULT_SCORE_THRESHOLD 0.25f
#define DEFAULT_IOU_THRESHOLD 0.45f
#define DEFAULT_MAX_DETECTIONS 300
#define DEFAULT_PEAK_KERNEL 3
#define DEFAULT_TOP_K 100
#define DEFAULT_ANCHOR_OFFSET 0.5f
/* bounds of what metadata may ask for */
#define MAX_INPUT_SIZE 16384
#define MAX_STRIDE 1024
#define MAX_ANCHORS_PER_CELL 64
#define MAX_TOP_K 100000
#define MAX_DETECTIONS 100000
/* MediaPipe's SsdAnchorsCalculator: the lowest layer gets three anchors
 * (aspect ratios 1, 2 and 1/2) when reduce_boxes_in_lowest_layer */
#define MEDIAPIPE_LOWEST_LAYER_ANCHORS 3
/* MediaPipe's default interpolated_scale_aspect_ratio: one more anchor
 * per layer */
#define MEDIAPIPE_DEFAULT_INTERPOLATED 1.0
/* CenterNet box values per cell: left, top, right, bottom */
#define CENTERNET_BOX_VALUES 4
/* SSD regressors before the keypoints: centre x, y, width, height */
#define SSD_BOX_VALUES 4
/* the peak test's neighbourhood, the only one implemented */
#define PEAK_KERNEL 3

/**
 * gst_ax_nms_params_init:
 * @params: (out): parameters to set
 *
 * Sets every field to its default: YOLOv8, xywh boxes in tensor pixels,
 * score threshold 0.25, IoU threshold 0.45, 300 detections, per-class
 * hard NMS; CenterNet 3x3 peaks and top 100 with the stride taken from
 * the input size; SSD anchor offsets 0.5 and sigmoid scores.
 */
void
gst_ax_nms_params_init (GstAxNmsParams * p)
{
  memset (p, 0, sizeof (*p));
  p->kind = GST_AX_NMS_DECODE_YOLOV8;
  p->box_format = GST_AX_NMS_BOX_XYWH;
  p->score_threshold = DEFAULT_SCORE_THRESHOLD;
  p->iou_threshold = DEFAULT_IOU_THRESHOLD;
  p->max_detections = DEFAULT_MAX_DETECTIONS;
  p->class_agnostic = FALSE;
  p->box_scale_x = 1.0f;
  p->box_scale_y = 1.0f;
  p->suppression = GST_AX_NMS_SUPPRESS_HARD;
  p->stride = 0;
  p->peak_kernel = DEFAULT_PEAK_KERNEL;
  p->top_k = DEFAULT_TOP_K;
  p->anchor_offset = DEFAULT_ANCHOR_OFFSET;
  p->anchor_offset_y = DEFAULT_ANCHOR_OFFSET;
  p->sigmoid_scores = TRUE;
}

static gboolean
json_fail (gchar ** error, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

     static gboolean json_fail (gchar ** error, const gchar * fmt, ...)
{
  va_list ap;

  if (error) {
    va_start (ap, fmt);
    *error = g_strdup_vprintf (fmt, ap);
    va_end (ap);
  }
  return FALSE;
}

static gboolean
node_is_number (JsonNode * n)
{
  GType t;

  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  t = json_node_get_value_type (n);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

/* A number member within [lo, hi]; FALSE with *error if present and bad,
 * TRUE with *found FALSE if absent. */
static gboolean
get_number (JsonObject * o, const gchar * key, gdouble lo, gdouble hi,
    gdouble * out, gboolean * found, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  gdouble v;

  *found = FALSE;
  if (n == NULL)
    return TRUE;
  if (!node_is_number (n))
    return json_fail (error, "\"%s\" is not a number; expected a number "
        "from %g to %g", key, lo, hi);
  v = json_node_get_double (n);
  if (!(v >= lo && v <= hi))
    return json_fail (error, "\"%s\" is %g; expected a number from %g to "
        "%g", key, v, lo, hi);
  *out = v;
  *found = TRUE;
  return TRUE;
}

static gboolean
node_to_uint (JsonNode * n, const gchar * what, guint lo, guint hi,
    guint * out, gchar ** error)
{
  gint64 v;

  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_INT64)
    return json_fail (error, "%s is not an integer; expected an integer "
        "from %u to %u", what, lo, hi);
  v = json_node_get_int (n);
  if (v < lo || v > hi)
    return json_fail (error, "%s is %" G_GINT64_FORMAT "; expected an "
        "integer from %u to %u", what, v, lo, hi);
  *out = (guint) v;
  return TRUE;
}

static gboolean
get_uint (JsonObject * o, const gchar * key, guint lo, guint hi, guint * out,
    gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  gchar *what;
  gboolean ok;

  if (n == NULL)
    return TRUE;
  what = g_strdup_printf ("\"%s\"", key);
  ok = node_to_uint (n, what, lo, hi, out, error);
  g_free (what);
  return ok;
}

static gboolean
get_float (JsonObject * o, const gchar * key, gdouble lo, gdouble hi,
    gfloat * out, gchar ** error)
{
  gdouble v;
  gboolean found;

  if (!get_number (o, key, lo, hi, &v, &found, error))
    return FALSE;
  if (found)
    *out = (gfloat) v;
  return TRUE;
}

static gboolean
get_bool (JsonObject * o, const gchar * key, gboolean * out, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);

  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_BOOLEAN)
    return json_fail (error, "\"%s\" is not a boolean; expected true or "
        "false", key);
  *out = json_node_get_boolean (n);
  return TRUE;
}

/* A string member; NULL if absent; FALSE if not a string. */
static gboolean
get_string (JsonObject * o, const gchar * key, const gchar ** out,
    gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);

  *out = NULL;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (n)
      || json_node_get_value_type (n) != G_TYPE_STRING)
    return json_fail (error, "\"%s\" is not a string", key);
  *out = json_node_get_string (n);
  return TRUE;
}

static gboolean
add_input_name (GstAxNmsParams * p, const gchar * key, const gchar * name,
    gchar ** error)
{
  if (name[0] == '\0')
    return json_fail (error, "\"%s\" names an empty output; expected an "
        "output tensor name", key);
  if (strlen (name) >= GST_AX_NMS_MAX_NAME)
    return json_fail (error, "\"%s\" names an output of %zu bytes; expected "
        "at most %d", key, strlen (name), GST_AX_NMS_MAX_NAME - 1);
  if (p->n_input_names >= GST_AX_NMS_MAX_INPUTS)
    return json_fail (error, "too many outputs named; expected at most %d",
        GST_AX_NMS_MAX_INPUTS);
  g_strlcpy (p->input_names[p->n_input_names++], name, GST_AX_NMS_MAX_NAME);
  return TRUE;
}

/* A string or an array of strings, appended to the input names; *count
 * says how many (0 if absent). */
static gboolean
get_names (GstAxNmsParams * p, JsonObject * o, const gchar * key,
    guint * count, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  JsonArray *a;
  guint i;

  *count = 0;
  if (n == NULL)
    return TRUE;
  if (JSON_NODE_HOLDS_VALUE (n)
      && json_node_get_value_type (n) == G_TYPE_STRING) {
    *count = 1;
    return add_input_name (p, key, json_node_get_string (n), error);
  }
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return json_fail (error, "\"%s\" is neither a string nor an array of "
        "strings; expected output tensor names", key);
  a = json_node_get_array (n);
  if (json_array_get_length (a) == 0)
    return json_fail (error, "\"%s\" is an empty array; expected output "
        "tensor names", key);
  for (i = 0; i < json_array_get_length (a); i++) {
    JsonNode *e = json_array_get_element (a, i);
    if (!JSON_NODE_HOLDS_VALUE (e)
        || json_node_get_value_type (e) != G_TYPE_STRING)
      return json_fail (error, "\"%s\"[%u] is not a string; expected output "
          "tensor names", key, i);
    if (!add_input_name (p, key, json_node_get_string (e), error))
      return FALSE;
  }
  *count = i;
  return TRUE;
}

/* An array of 1..max unsigned integers within [lo, hi]. */
static gboolean
get_uint_array (JsonObject * o, const gchar * key, guint lo, guint hi,
    guint max, guint * out, guint * count, gchar ** error)
{
  JsonNode *n = json_object_get_member (o, key);
  JsonArray *a;
  guint i, len;

  *count = 0;
  if (n == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return json_fail (error, "\"%s\" is not an array; expected 1 to %u "
        "integers", key, max);
  a = json_node_get_array (n);
  len = json_array_get_length (a);
  if (len < 1 || len > max)
    return json_fail (error, "\"%s\" has %u entries; expected 1 to %u", key,
        len, max);
  for (i = 0; i < len; i++) {
    gchar *what = g_strdup_printf ("\"%s\"[%u]", key, i);
    gboolean ok = node_to_uint (json_array_get_element (a, i), what, lo, hi,
        &out[i], error);
    g_free (what);
    if (!ok)
      return FALSE;
  }
  *count = len;
  return TRUE;
}

static gboolean
parse_input_size (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  guint size[2], n;

  if (!get_uint_array (o, "input_size", 1, MAX_INPUT_SIZE, 2, size, &n, error))
    return FALSE;
  if (n == 0)
    return TRUE;
  if (n != 2)
    return json_fail (error, "\"input_size\" has 1 entry; expected [width, "
        "height]");
  p->input_width = size[0];
  p->input_height = size[1];
  return TRUE;
}

/* The anchors of "anchors": either levels ("strides", "anchors_per_cell",
 * "offset") or MediaPipe's SsdAnchorsCalculatorOptions ("num_layers",
 * "strides", "aspect_ratios", "interpolated_scale_aspect_ratio",
 * "reduce_boxes_in_lowest_layer", "anchor_offset_x", "anchor_offset_y",
 * "fixed_anchor_size"), whose layers of one stride make one level. */
static gboolean
parse_anchors (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  guint strides[GST_AX_NMS_MAX_LEVELS * 4], per[GST_AX_NMS_MAX_LEVELS];
  guint n_strides, n_per, num_layers = 0, i;
  gdouble interp = MEDIAPIPE_DEFAULT_INTERPOLATED, dummy;
  gboolean reduce = FALSE, fixed = FALSE, found;
  guint n_ratios = 0;
  JsonNode *ratios;
  gfloat off;

  if (!get_uint_array (o, "strides", 1, MAX_STRIDE,
          G_N_ELEMENTS (strides), strides, &n_strides, error))
    return FALSE;
  if (n_strides == 0)
    return json_fail (error, "\"anchors\" has no \"strides\"; expected the "
        "stride of each anchor layer");

  if (json_object_has_member (o, "anchors_per_cell")) {
    if (!get_uint_array (o, "anchors_per_cell", 1, MAX_ANCHORS_PER_CELL,
            GST_AX_NMS_MAX_LEVELS, per, &n_per, error))
      return FALSE;
    if (n_per != n_strides)
      return json_fail (error, "\"anchors_per_cell\" has %u entries and "
          "\"strides\" %u; expected one per level", n_per, n_strides);
    off = DEFAULT_ANCHOR_OFFSET;
    if (!get_float (o, "offset", 0.0, 1.0, &off, error))
      return FALSE;
    p->n_levels = n_strides;
    for (i = 0; i < n_strides; i++) {
      p->strides[i] = strides[i];
      p->anchors_per_cell[i] = per[i];
    }
    p->anchor_offset = p->anchor_offset_y = off;
    return TRUE;
  }

  /* MediaPipe's options */
  if (!get_uint (o, "num_layers", 1, G_N_ELEMENTS (strides), &num_layers,
          error))
    return FALSE;
  if (num_layers == 0)
    num_layers = n_strides;
  if (num_layers != n_strides)
    return json_fail (error, "\"num_layers\" is %u and \"strides\" has %u "
        "entries; expected one stride per layer", num_layers, n_strides);
  ratios = json_object_get_member (o, "aspect_ratios");
  if (ratios) {
    JsonArray *a;
    if (!JSON_NODE_HOLDS_ARRAY (ratios))
      return json_fail (error, "\"aspect_ratios\" is not an array; "
          "expected numbers");
    a = json_node_get_array (ratios);
    n_ratios = json_array_get_length (a);
    for (i = 0; i < n_ratios; i++)
      if (!node_is_number (json_array_get_element (a, i))
          || !(json_array_get_double_element (a, i) > 0))
        return json_fail (error, "\"aspect_ratios\"[%u] is not a positive "
            "number", i);
  }
  if (!get_number (o, "interpolated_scale_aspect_ratio", 0.0, G_MAXFLOAT,
          &interp, &found, error))
    return FALSE;
  if (!get_bool (o, "reduce_boxes_in_lowest_layer", &reduce, error)
      || !get_bool (o, "fixed_anchor_size", &fixed, error))
    return FALSE;
  if (!fixed)
    return json_fail (error, "\"fixed_anchor_size\" is not true; axnms "
        "decodes anchors of one fixed size (regressors in input pixels), "
        "expected \"fixed_anchor_size\": true");
  if (json_object_has_member (o, "feature_map_width")
      || json_object_has_member (o, "feature_map_height"))
    return json_fail (error, "\"feature_map_width\" / \"feature_map_height\" "
        "are not supported; the grids are the input size over the strides, "
        "rounded up");
  off = DEFAULT_ANCHOR_OFFSET;
  if (!get_float (o, "anchor_offset_x", 0.0, 1.0, &off, error))
    return FALSE;
  p->anchor_offset = off;
  off = DEFAULT_ANCHOR_OFFSET;
  if (!get_float (o, "anchor_offset_y", 0.0, 1.0, &off, error))
    return FALSE;
  p->anchor_offset_y = off;
  /* the scales only size the anchors, which fixed_anchor_size ignores */
  if (!get_number (o, "min_scale", 0.0, G_MAXFLOAT, &dummy, &found, error)
      || !get_number (o, "max_scale", 0.0, G_MAXFLOAT, &dummy, &found, error))
    return FALSE;
  {
    guint in_w = 0, in_h = 0;
    if (!get_uint (o, "input_size_width", 1, MAX_INPUT_SIZE, &in_w, error)
        || !get_uint (o, "input_size_height", 1, MAX_INPUT_SIZE, &in_h, error))
      return FALSE;
    if (in_w)
      p->input_width = in_w;
    if (in_h)
      p->input_height = in_h;
  }

  p->n_levels = 0;
  for (i = 0; i < num_layers; i++) {
    guint n = (reduce && i == 0) ? MEDIAPIPE_LOWEST_LAYER_ANCHORS :
        n_ratios + (interp > 0.0 ? 1 : 0);

    if (n == 0)
      return json_fail (error, "layer %u has no anchors; expected "
          "\"aspect_ratios\" or \"interpolated_scale_aspect_ratio\" > 0", i);
    if (p->n_levels > 0 && p->strides[p->n_levels - 1] == strides[i]) {
      p->anchors_per_cell[p->n_levels - 1] += n;
    } else {
      if (p->n_levels == GST_AX_NMS_MAX_LEVELS)
        return json_fail (error, "more than %d distinct strides",
            GST_AX_NMS_MAX_LEVELS);
      p->strides[p->n_levels] = strides[i];
      p->anchors_per_cell[p->n_levels] = n;
      p->n_levels++;
    }
  }
  return TRUE;
}

/**
 * gst_ax_nms_params_from_json:
 * @params: parameters to update
 * @decoder_json: the model's decoder metadata, a JSON object
 * @error: (out) (optional): what was wrong, to free with g_free()
 *
 * Reads "type" (yolov8, yolov5, centernet, ssd) and the members of that
 * decoder (see docs/elements-nms-inference.md). On failure @params may be
 * partly updated.
 *
 * Returns: %FALSE for malformed or unsupported metadata
 */
gboolean
gst_ax_nms_params_from_json (GstAxNmsParams * p, const gchar * decoder_json,
    gchar ** error)
{
  JsonParser *parser;
  JsonNode *root;
  JsonObject *o;
  GError *err = NULL;
  const gchar *type, *s;
  gboolean ok = FALSE;
  guint n;

  g_return_val_if_fail (decoder_json != NULL, FALSE);

  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, decoder_json, -1, &err)) {
    json_fail (error, "invalid JSON: %s", err->message);
    g_error_free (err);
    goto done;
  }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root)) {
    json_fail (error, "not a JSON object; expected {\"type\": ...}");
    goto done;
  }
  o = json_node_get_object (root);
  if (!get_string (o, "type", &type, error))
    goto done;
  if (type == NULL) {
    json_fail (error, "no \"type\"; expected \"type\": \"yolov8\", "
        "\"yolov5\", \"centernet\" or \"ssd\"");
    goto done;
  }
  if (g_str_equal (type, "yolov8"))
    p->kind = GST_AX_NMS_DECODE_YOLOV8;
  else if (g_str_equal (type, "yolov5"))
    p->kind = GST_AX_NMS_DECODE_YOLOV5;
  else if (g_str_equal (type, "centernet"))
    p->kind = GST_AX_NMS_DECODE_CENTERNET;
  else if (g_str_equal (type, "ssd"))
    p->kind = GST_AX_NMS_DECODE_SSD;
  else {
    json_fail (error, "decoder type \"%s\" is not a detector axnms "
        "decodes; expected \"yolov8\", \"yolov5\", \"centernet\" or "
        "\"ssd\"", type);
    goto done;
  }

  if (!parse_input_size (p, o, error)
      || !get_float (o, "score_threshold", 0.0, 1.0, &p->score_threshold, error)
      || !get_float (o, "iou_threshold", 0.0, 1.0, &p->iou_threshold, error)
      || !get_uint (o, "max_detections", 1, MAX_DETECTIONS,
          &p->max_detections, error)
      || !get_bool (o, "class_agnostic", &p->class_agnostic, error))
    goto done;
  if (!get_string (o, "suppression", &s, error))
    goto done;
  if (s && g_str_equal (s, "hard"))
    p->suppression = GST_AX_NMS_SUPPRESS_HARD;
  else if (s && g_str_equal (s, "weighted"))
    p->suppression = GST_AX_NMS_SUPPRESS_WEIGHTED;
  else if (s) {
    json_fail (error, "\"suppression\" is \"%s\"; expected \"hard\" or "
        "\"weighted\"", s);
    goto done;
  }

  p->n_input_names = 0;
  switch (p->kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
    case GST_AX_NMS_DECODE_YOLOV5:
      if (!get_names (p, o, "output", &n, error))
        goto done;
      if (n > 1) {
        json_fail (error, "\"output\" names %u tensors; expected the one "
            "head", n);
        goto done;
      }
      if (!get_string (o, "box_format", &s, error))
        goto done;
      if (s && g_str_equal (s, "xywh"))
        p->box_format = GST_AX_NMS_BOX_XYWH;
      else if (s && g_str_equal (s, "ltrb"))
        p->box_format = GST_AX_NMS_BOX_LTRB;
      else if (s) {
        json_fail (error, "\"box_format\" is \"%s\"; expected \"xywh\" or "
            "\"ltrb\"", s);
        goto done;
      }
      break;
    case GST_AX_NMS_DECODE_CENTERNET:{
      guint nh, nb;
      if (!get_names (p, o, "heatmap", &nh, error)
          || !get_names (p, o, "boxes", &nb, error))
        goto done;
      if (nh > 1 || nb > 1 || nh != nb) {
        json_fail (error, "\"heatmap\" and \"boxes\" name %u and %u "
            "tensors; expected one each (or neither, for the outputs in "
            "order)", nh, nb);
        goto done;
      }
      if (!get_uint (o, "stride", 1, MAX_STRIDE, &p->stride, error)
          || !get_uint (o, "peak_kernel", 1, PEAK_KERNEL, &p->peak_kernel,
              error)
          || !get_uint (o, "top_k", 1, MAX_TOP_K, &p->top_k, error))
        goto done;
      if (p->peak_kernel != PEAK_KERNEL) {
        json_fail (error, "\"peak_kernel\" is %u; expected %d (a 3x3 peak "
            "test)", p->peak_kernel, PEAK_KERNEL);
        goto done;
      }
      break;
    }
    case GST_AX_NMS_DECODE_SSD:{
      JsonNode *an = json_object_get_member (o, "anchors");
      guint ns, nb;
      if (an == NULL || !JSON_NODE_HOLDS_OBJECT (an)) {
        json_fail (error, "no \"anchors\" object; expected the anchor "
            "options (\"strides\", ...)");
        goto done;
      }
      if (!parse_anchors (p, json_node_get_object (an), error))
        goto done;
      if (!get_names (p, o, "scores", &ns, error)
          || !get_names (p, o, "boxes", &nb, error))
        goto done;
      if (ns != nb) {
        json_fail (error, "\"scores\" names %u tensors and \"boxes\" %u; "
            "expected as many of each", ns, nb);
        goto done;
      }
      if (!get_uint (o, "keypoints", 0, GST_AX_NMS_MAX_KEYPOINTS,
              &p->n_keypoints, error))
        goto done;
      if (!get_string (o, "score_activation", &s, error))
        goto done;
      if (s && g_str_equal (s, "sigmoid"))
        p->sigmoid_scores = TRUE;
      else if (s && g_str_equal (s, "none"))
        p->sigmoid_scores = FALSE;
      else if (s) {
        json_fail (error, "\"score_activation\" is \"%s\"; expected "
            "\"sigmoid\" or \"none\"", s);
        goto done;
      }
      break;
    }
  }
  ok = TRUE;

done:
  g_object_unref (parser);
  return ok;
}

/* ------------------------------------------------------------------ */
/* Inputs */

static gchar *
shape_string (const GstAxTensorMeta * m)
{
  GString *s = g_string_new ("[");
  guint i;

  for (i = 0; i < m->n_dims; i++)
    g_string_append_printf (s, "%s%" G_GINT64_FORMAT, i ? ", " : "",
        m->dims[i]);
  g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}

/* The dims after leading batch dimensions of 1, keeping at least @keep. */
static guint
inner_dims (const GstAxTensorMeta * m, guint keep, const gint64 ** dims)
{
  guint lead = 0;

  while (m->n_dims - lead > keep && m->dims[lead] == 1)
    lead++;
  *dims = m->dims + lead;
  return m->n_dims - lead;
}

static gboolean
check_quant (const GstAxTensorMeta * m, gchar ** error)
{
  gfloat lut[LUT_SIZE];

  if (m->dtype == GST_AX_TENSOR_DTYPE_F32)
    return TRUE;
  if (m->dtype != GST_AX_TENSOR_DTYPE_I8 && m->dtype != GST_AX_TENSOR_DTYPE_U8)
    return json_fail (error, "tensor '%s' is %s; expected int8, uint8 or "
        "float32", m->name, dtype_name (m->dtype));
  if (!(m->scale > 0.0f) || !isfinite (m->scale)
      || ABS (m->zero_point) > MAX_ABS_ZERO_POINT
      || !lut_build (lut, m->dtype, m->scale, m->zero_point))
    return json_fail (error, "tensor '%s' (%s) has quantisation scale %g "
        "and zero point %d; expected a positive scale and a zero point "
        "within +-%d that give 256 distinct finite levels", m->name,
        dtype_name (m->dtype), m->scale, m->zero_point, MAX_ABS_ZERO_POINT);
  return TRUE;
}

static void
input_set (GstAxNmsInput * in, const GstAxTensorMeta * m, guint meta_index,
    guint n_anchors, guint n_classes, guint height, guint width)
{
  in->data = NULL;
  in->dtype = m->dtype;
  in->scale = m->scale;
  in->zero_point = m->zero_point;
  in->n_anchors = n_anchors;
  in->n_classes = n_classes;
  in->height = height;
  in->width = width;
  in->meta_index = meta_index;
}

static gchar *
names_of (const GstAxTensorMeta * const *metas, guint n)
{
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++)
    g_string_append_printf (s, "%s'%s'", i ? ", " : "", metas[i]->name);
  if (n == 0)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

/* Anchors of one SSD level. */
static guint
ssd_grid (guint input, guint stride)
{
  return (input + stride - 1) / stride;
}

static guint64
ssd_total_anchors (const GstAxNmsParams * p)
{
  guint64 total = 0;
  guint l;

  for (l = 0; l < p->n_levels; l++)
    total += (guint64) ssd_grid (p->input_width, p->strides[l]) *
        ssd_grid (p->input_height, p->strides[l]) * p->anchors_per_cell[l];
  return total;
}

/* The stride of a CenterNet grid: the metadata's, else the input size
 * over the grid. 0 if neither is known. */
static guint
centernet_stride (const GstAxNmsParams * p, guint width)
{
  if (p->stride)
    return p->stride;
  if (p->input_width && width && p->input_width % width == 0)
    return p->input_width / width;
  return 0;
}

static const gchar *
kind_name (GstAxNmsDecodeKind kind)
{
  switch (kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
      return "yolov8";
    case GST_AX_NMS_DECODE_YOLOV5:
      return "yolov5";
    case GST_AX_NMS_DECODE_CENTERNET:
      return "centernet";
    case GST_AX_NMS_DECODE_SSD:
      return "ssd";
  }
  return "unknown";
}

/**
 * gst_ax_nms_inputs_from_metas:
 * @params: the decoder
 * @metas: (array length=n_metas): a frame's output tensors, in the
 *   model's order
 * @n_metas: their number
 * @inputs: (out caller-allocates) (array fixed-size=8): the inputs the
 *   decoder reads, data unset (map metas[inputs[i].meta_index])
 * @n_inputs: (out): how many
 * @error: (out) (optional): what was wrong, to free with g_free()
 *
 * Returns: %FALSE if a named output is missing or a tensor does not have
 *   the shape, type or quantisation the decoder reads
 */
gboolean
gst_ax_nms_inputs_from_metas (const GstAxNmsParams * p,
    const GstAxTensorMeta * const *metas, guint n_metas,
    GstAxNmsInput * inputs, guint * n_inputs, gchar ** error)
{
  const GstAxTensorMeta *picked[GST_AX_NMS_MAX_INPUTS];
  guint idx[GST_AX_NMS_MAX_INPUTS];
  guint n_need, i, j;

  *n_inputs = 0;
  switch (p->kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
    case GST_AX_NMS_DECODE_YOLOV5:
      n_need = 1;
      break;
    case GST_AX_NMS_DECODE_CENTERNET:
      n_need = 2;
      break;
    default:
      if (p->n_input_names)
        n_need = p->n_input_names;
      else
        n_need = MIN (n_metas, GST_AX_NMS_MAX_INPUTS);
      if (n_need == 0 || n_need % 2 != 0)
        return json_fail (error, "ssd reads a score tensor and a box tensor "
            "per group of anchors; got %u tensors", n_need);
      break;
  }

  if (p->n_input_names) {
    if (p->n_input_names != n_need)
      return json_fail (error, "%u outputs named; %s reads %u",
          p->n_input_names, kind_name (p->kind), n_need);
    for (i = 0; i < n_need; i++) {
      for (j = 0; j < n_metas; j++)
        if (g_strcmp0 (metas[j]->name, p->input_names[i]) == 0)
          break;
      if (j == n_metas) {
        gchar *names = names_of (metas, n_metas);
        json_fail (error, "the model has no output '%s' (the decoder "
            "metadata names it); its outputs are %s", p->input_names[i], names);
        g_free (names);
        return FALSE;
      }
      picked[i] = metas[j];
      idx[i] = j;
    }
  } else {
    if (n_metas < n_need)
      return json_fail (error, "%s reads %u outputs; the model has %u",
          kind_name (p->kind), n_need, n_metas);
    for (i = 0; i < n_need; i++) {
      picked[i] = metas[i];
      idx[i] = i;
    }
  }
  for (i = 0; i < n_need; i++)
    if (!check_quant (picked[i], error))
      return FALSE;

  if (p->kind == GST_AX_NMS_DECODE_YOLOV8
      || p->kind == GST_AX_NMS_DECODE_YOLOV5) {
    if (!gst_ax_nms_input_from_meta (picked[0], p->kind, &inputs[0], error))
      return FALSE;
    inputs[0].height = inputs[0].width = 0;
    inputs[0].meta_index = idx[0];
    *n_inputs = 1;
    return TRUE;
  }

  if (p->kind == GST_AX_NMS_DECODE_CENTERNET) {
    const gint64 *hd, *bd;
    guint nh = inner_dims (picked[0], 3, &hd);
    guint nb = inner_dims (picked[1], 3, &bd);
    gchar *hs = shape_string (picked[0]), *bs = shape_string (picked[1]);
    gboolean ok = TRUE;

    if (nh != 3 || hd[0] < 1 || hd[1] < 1 || hd[2] < 1
        || hd[0] * hd[1] * hd[2] > G_MAXINT32)
      ok = json_fail (error, "heat-map '%s' has shape %s; expected [1, "
          "height, width, classes]", picked[0]->name, hs);
    else if (nb != 3 || bd[0] != hd[0] || bd[1] != hd[1]
        || bd[2] != CENTERNET_BOX_VALUES)
      ok = json_fail (error, "box tensor '%s' has shape %s; expected [1, "
          "%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", 4] (left, top, "
          "right, bottom per cell of heat-map '%s' %s)", picked[1]->name, bs,
          hd[0], hd[1], picked[0]->name, hs);
    else if (centernet_stride (p, hd[1]) == 0)
      ok = json_fail (error, "no stride for heat-map '%s' %s; expected "
          "\"stride\" in the metadata or an input width that is a multiple "
          "of the grid width (input width %u)", picked[0]->name, hs,
          p->input_width);
    g_free (hs);
    g_free (bs);
    if (!ok)
      return FALSE;
    input_set (&inputs[0], picked[0], idx[0], hd[0] * hd[1], hd[2], hd[0],
        hd[1]);
    input_set (&inputs[1], picked[1], idx[1], hd[0] * hd[1],
        CENTERNET_BOX_VALUES, hd[0], hd[1]);
    *n_inputs = 2;
    return TRUE;
  }

  /* SSD */
  {
    const guint k = n_need / 2;
    guint64 total = 0, expect;

    if (p->n_levels == 0 || p->input_width == 0 || p->input_height == 0)
      return json_fail (error, "ssd needs anchor levels and the input size; "
          "expected \"anchors\" and \"input_size\" in the metadata");
    for (i = 0; i < k; i++) {
      const gint64 *sd, *rd;
      guint ns = inner_dims (picked[i], 2, &sd);
      guint nr = inner_dims (picked[k + i], 2, &rd);
      gchar *ss = shape_string (picked[i]), *rs = shape_string (picked[k + i]);
      gint64 na = sd[0], nc = ns == 2 ? sd[1] : 1;
      gboolean ok = TRUE;

      if (ns > 2 || na < 1 || nc < 1 || na > G_MAXINT32 || nc > G_MAXINT32)
        ok = json_fail (error, "score tensor '%s' has shape %s; expected "
            "[1, anchors, classes]", picked[i]->name, ss);
      else if (nr != 2 || rd[0] != na
          || rd[1] < SSD_BOX_VALUES + 2 * (gint64) p->n_keypoints
          || rd[1] > G_MAXINT32)
        ok = json_fail (error, "box tensor '%s' has shape %s; expected [1, "
            "%" G_GINT64_FORMAT ", %u or more] (box centre and size, then "
            "%u keypoints, per anchor of score tensor '%s' %s)",
            picked[k + i]->name, rs, na, SSD_BOX_VALUES + 2 * p->n_keypoints,
            p->n_keypoints, picked[i]->name, ss);
      g_free (ss);
      g_free (rs);
      if (!ok)
        return FALSE;
      input_set (&inputs[i], picked[i], idx[i], na, nc, 0, 0);
      input_set (&inputs[k + i], picked[k + i], idx[k + i], na, rd[1], 0, 0);
      total += na;
    }
    expect = ssd_total_anchors (p);
    if (total != expect)
      return json_fail (error, "the score tensors hold %" G_GUINT64_FORMAT
          " anchors; the anchor options give %" G_GUINT64_FORMAT " for a "
          "%ux%u input", total, expect, p->input_width, p->input_height);
    *n_inputs = n_need;
    return TRUE;
  }
}

/* ------------------------------------------------------------------ */
/* CenterNet and SSD */

static inline gfloat
sigmoidf (gfloat v)
{
  return 1.0f / (1.0f + expf (-v));
}

/* The table of slot @i for @in: values (or their sigmoids) of the biased
 * bytes, non-decreasing. */
static const gfloat *
slot_lut (GstAxNmsWork * w, guint i, const GstAxNmsInput * in, gboolean sigmoid)
{
  LutSlot *s = &w->slots[i];
  guint8 flip = in->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
  guint b;

  if (s->valid && s->dtype == in->dtype && s->scale == in->scale
      && s->zp == in->zero_point && s->sigmoid == sigmoid)
    return s->lut;
  for (b = 0; b < LUT_SIZE; b++) {
    gfloat v = in->scale * (gfloat) (raw_int (in->dtype, (guint8) (b ^ flip))
        - in->zero_point);
    s->lut[b] = sigmoid ? sigmoidf (v) : v;
  }
  s->valid = TRUE;
  s->dtype = in->dtype;
  s->scale = in->scale;
  s->zp = in->zero_point;
  s->sigmoid = sigmoid;
  return s->lut;
}

/* The first biased byte whose value is above @thr (LUT_SIZE if none). */
static guint
lut_first_above (const gfloat * lut, gfloat thr)
{
  guint b;

  for (b = 0; b < LUT_SIZE; b++)
    if (lut[b] > thr)
      break;
  return b;
}

/* The value at element @i of a tensor, dequantised. */
static inline gfloat
value_at (const GstAxNmsInput * in, gsize i)
{
  switch (in->dtype) {
    case GST_AX_TENSOR_DTYPE_F32:{
      gfloat v;
      memcpy (&v, (const guint8 *) in->data + i * sizeof (gfloat), sizeof v);
      return v;
    }
    case GST_AX_TENSOR_DTYPE_I8:
      return in->scale * (gfloat) ((gint) ((const gint8 *) in->data)[i]
          - in->zero_point);
    default:
      return in->scale * (gfloat) ((gint) ((const guint8 *) in->data)[i]
          - in->zero_point);
  }
}

/* Keeps the @top_k best candidates (score, then push order) in that
 * order; returns the score a later candidate must beat. */
static gfloat
centernet_compact (GstAxNmsWork * w, guint top_k)
{
  guint r;
  gfloat *tf;
  guint32 *tu;

  sort_candidates (w);
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

/* The threshold scans of the heat-map look at blocks of SCAN_BLOCK_BYTES
 * bytes (int8) or SCAN_BLOCK_FLOATS floats and return a bit mask of the
 * values that pass, so that the few hits are visited with ctz. The AVX2
 * versions loop over blocks themselves, returning at the first block with
 * a hit. */
#define CN_BLOCK_U8 64
#define CN_BLOCK_F32 32

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

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_AVX2_KERNELS 1

__attribute__((target ("avx2")))
     static gsize
         next_block_u8_avx2 (const guint8 * t, gsize blk, gsize n_blk,
    guint8 flip, guint first_pass, guint64 * mask)
{
  /* biased byte >= first_pass <=> signed byte (raw ^ flip ^ 0x80) >
   * first_pass - 129 */
  const __m256i tov = _mm256_set1_epi8 ((gchar) (flip ^ INT8_BIAS));
  const __m256i thv = _mm256_set1_epi8 ((gchar) ((gint) first_pass - 129));

  for (; blk < n_blk; blk++) {
    const guint8 *bp = t + blk * CN_BLOCK_U8;
    __m256i a = _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) bp),
        tov);
    __m256i b = _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *)
            (bp + 32)), tov);
    __m256i ga = _mm256_cmpgt_epi8 (a, thv), gb = _mm256_cmpgt_epi8 (b, thv);

    if (G_LIKELY (_mm256_testz_si256 (_mm256_or_si256 (ga, gb),
                _mm256_or_si256 (ga, gb))))
      continue;
    *mask = (guint64) (guint32) _mm256_movemask_epi8 (ga)
        | ((guint64) (guint32) _mm256_movemask_epi8 (gb) << 32);
    return blk;
  }
  return n_blk;
}

__attribute__((target ("avx2")))
     static gsize
         next_block_f32_avx2 (const gfloat * t, gsize blk, gsize n_blk,
    gfloat thr, guint64 * mask)
{
  const __m256 tv = _mm256_set1_ps (thr);

  for (; blk < n_blk; blk++) {
    const gfloat *bp = t + blk * CN_BLOCK_F32;
    __m256 c0 = _mm256_cmp_ps (_mm256_loadu_ps (bp), tv, _CMP_GT_OQ);
    __m256 c1 = _mm256_cmp_ps (_mm256_loadu_ps (bp + 8), tv, _CMP_GT_OQ);
    __m256 c2 = _mm256_cmp_ps (_mm256_loadu_ps (bp + 16), tv, _CMP_GT_OQ);
    __m256 c3 = _mm256_cmp_ps (_mm256_loadu_ps (bp + 24), tv, _CMP_GT_OQ);
    __m256 any = _mm256_or_ps (_mm256_or_ps (c0, c1), _mm256_or_ps (c2, c3));

    if (G_LIKELY (_mm256_testz_ps (any, any)))
      continue;
    *mask = (guint64) _mm256_movemask_ps (c0)
        | ((guint64) _mm256_movemask_ps (c1) << 8)
        | ((guint64) _mm256_movemask_ps (c2) << 16)
        | ((guint64) _mm256_movemask_ps (c3) << 24);
    return blk;
  }
  return n_blk;
}
#endif

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
    return next_block_u8_avx2;
#endif
  return next_block_u8_generic;
}

static NextBlockF32
pick_next_block_f32 (void)
{
#ifdef HAVE_AVX2_KERNELS
  if (have_avx2 ())
    return next_block_f32_avx2;
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
    *first_pass = lut_first_above (lut, centernet_compact (w, top_k));
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
  const gfloat *lut = slot_lut (w, 0, in, FALSE);
  const NextBlockU8 next = pick_next_block_u8 ();
  guint first_pass = lut_first_above (lut, p->score_threshold);
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
run_centernet (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, GstAxNmsResult * results, guint limit)
{
  const GstAxNmsInput *h = &inputs[0], *bx = &inputs[1];
  const guint W = h->width, nc = h->n_classes;
  const guint stride = centernet_stride (p, W);
  const guint top_k = p->top_k ? p->top_k : MAX_TOP_K;
  const guint cap = CENTERNET_CAND_FACTOR * top_k;
  guint r, nv = 0, n_top;

  work_ensure (w, cap);
  w->n_cand = 0;
  if (stride == 0)
    return 0;
  if (h->dtype == GST_AX_TENSOR_DTYPE_F32)
    centernet_scan_f32 (w, p, h, top_k, cap);
  else
    centernet_scan_quant (w, p, h, top_k, cap);
  if (w->n_cand == 0)
    return 0;
  sort_candidates (w);
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
  return suppress (w, p, w->order, nv, NULL, results, limit);
}

/* The centre of SSD anchor @a in input pixels; FALSE past the last. */
static gboolean
ssd_anchor_centre (const GstAxNmsParams * p, guint a, gfloat * cx, gfloat * cy)
{
  guint l;

  for (l = 0; l < p->n_levels; l++) {
    guint gw = ssd_grid (p->input_width, p->strides[l]);
    guint gh = ssd_grid (p->input_height, p->strides[l]);
    guint n = gw * gh * p->anchors_per_cell[l];

    if (a < n) {
      guint cell = a / p->anchors_per_cell[l];
      guint y = cell / gw, x = cell - y * gw;
      *cx = (gfloat) ((x + (gdouble) p->anchor_offset) * p->input_width / gw);
      *cy = (gfloat) ((y + (gdouble) p->anchor_offset_y) * p->input_height /
          gh);
      return TRUE;
    }
    a -= n;
  }
  return FALSE;
}

/* The box tensor holding anchor @a, and its row there. */
static const GstAxNmsInput *
ssd_box_input (const GstAxNmsInput * inputs, guint n_inputs, guint a,
    guint * row)
{
  const guint k = n_inputs / 2;
  guint t;

  for (t = 0; t < k; t++) {
    if (a < inputs[t].n_anchors) {
      *row = a;
      return &inputs[k + t];
    }
    a -= inputs[t].n_anchors;
  }
  return NULL;
}

static void
keypoints_of (const KeypointSource * ks, guint anchor, gfloat * kp)
{
  const GstAxNmsParams *p = ks->params;
  const GstAxNmsInput *in;
  gfloat cx = 0, cy = 0;
  guint row = 0, q;
  gsize o;

  in = ssd_box_input (ks->inputs, ks->n_inputs, anchor, &row);
  ssd_anchor_centre (p, anchor, &cx, &cy);
  o = (gsize) row *in->n_classes + SSD_BOX_VALUES;
  for (q = 0; q < p->n_keypoints; q++) {
    kp[2 * q] = (cx + value_at (in, o + 2 * q)) * p->box_scale_x;
    kp[2 * q + 1] = (cy + value_at (in, o + 2 * q + 1)) * p->box_scale_y;
  }
}

static guint
run_ssd (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint limit)
{
  const guint k = n_inputs / 2;
  const gfloat thr = p->score_threshold;
  KeypointSource ks = { p, inputs, n_inputs };
  guint total = 0, t, a = 0;

  for (t = 0; t < k; t++)
    total += inputs[t].n_anchors;
  work_ensure (w, total);
  w->n_cand = 0;

  for (t = 0; t < k; t++) {
    const GstAxNmsInput *s = &inputs[t], *b = &inputs[k + t];
    const guint nc = s->n_classes, nr = b->n_classes;
    const gboolean quant = s->dtype != GST_AX_TENSOR_DTYPE_F32;
    const gfloat *lut = NULL;
    const guint8 flip = s->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
    guint first_pass = 0, row, c;

    if (quant) {
      lut = slot_lut (w, t, s, p->sigmoid_scores);
      first_pass = lut_first_above (lut, thr);
      if (first_pass == LUT_SIZE) {
        a += s->n_anchors;
        continue;
      }
    }
    for (row = 0; row < s->n_anchors; row++, a++) {
      gsize so = (gsize) row * nc, bo = (gsize) row *nr;
      gfloat best, acx, acy, cx, cy, hw, hh;
      guint bc = 0;

      if (quant) {
        const guint8 *sd = (const guint8 *) s->data + so;
        guint8 mx = 0;
        for (c = 0; c < nc; c++)
          mx = MAX (mx, (guint8) (sd[c] ^ flip));
        if (G_LIKELY (mx < first_pass))
          continue;
        best = lut[sd[0] ^ flip];
        for (c = 1; c < nc; c++)
          if (lut[sd[c] ^ flip] > best) {
            best = lut[sd[c] ^ flip];
            bc = c;
          }
      } else {
        best = value_at (s, so);
        if (p->sigmoid_scores)
          best = sigmoidf (best);
        for (c = 1; c < nc; c++) {
          gfloat v = value_at (s, so + c);
          if (p->sigmoid_scores)
            v = sigmoidf (v);
          if (v > best) {
            best = v;
            bc = c;
          }
        }
      }
      if (!(best > thr) || !isfinite (best))
        continue;
      ssd_anchor_centre (p, a, &acx, &acy);
      cx = acx + value_at (b, bo);
      cy = acy + value_at (b, bo + 1);
      hw = value_at (b, bo + 2) * 0.5f;
      hh = value_at (b, bo + 3) * 0.5f;
      {
        gfloat x0 = (cx - hw) * p->box_scale_x, y0 = (cy - hh) * p->box_scale_y;
        gfloat x1 = (cx + hw) * p->box_scale_x, y1 = (cy + hh) * p->box_scale_y;
        guint n = w->n_cand;
        if (!isfinite (x0) || !isfinite (y0) || !isfinite (x1)
            || !isfinite (y1))
          continue;
        w->cx0[n] = x0;
        w->cy0[n] = y0;
        w->cx1[n] = x1;
        w->cy1[n] = y1;
        w->cscore[n] = best;
        w->cclass[n] = bc;
        w->canchor[n] = a;
        w->n_cand = n + 1;
      }
    }
  }
  if (w->n_cand == 0)
    return 0;
  sort_candidates (w);
  return suppress (w, p, w->order, w->n_cand, &ks, results, limit);
}

/**
 * gst_ax_nms_run_multi:
 * @work: per-stream scratch, reused across calls
 * @params: the decoder
 * @inputs: (array length=n_inputs): from gst_ax_nms_inputs_from_metas(),
 *   with their data
 * @n_inputs: their number
 * @results: (out caller-allocates) (array length=max_results): the
 *   detections in tensor pixels, best first
 * @max_results: room in @results
 *
 * Returns: the number of detections, at most MIN (@max_results,
 *   @params->max_detections)
 */
guint
gst_ax_nms_run_multi (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint max_results)
{
  const guint limit = MIN (max_results, p->max_detections);

  g_return_val_if_fail (p->score_threshold >= 0.0f, 0);
  if (limit == 0)
    return 0;

  switch (p->kind) {
    case GST_AX_NMS_DECODE_YOLOV8:
    case GST_AX_NMS_DECODE_YOLOV5:
      g_return_val_if_fail (n_inputs >= 1, 0);
      return gst_ax_nms_run (w, p, &inputs[0], results, max_results);
    case GST_AX_NMS_DECODE_CENTERNET:
      g_return_val_if_fail (n_inputs == 2, 0);
      return run_centernet (w, p, inputs, results, limit);
    case GST_AX_NMS_DECODE_SSD:
      g_return_val_if_fail (n_inputs >= 2 && n_inputs % 2 == 0, 0);
      return run_ssd (w, p, inputs, n_inputs, results, limit);
  }
  return 0;
}
