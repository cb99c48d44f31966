/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The YOLO decoders (v8: [4 + classes, anchors]; v5: [anchors, 5 +
 * classes]): their metadata and tensor, the best class of each anchor
 * above the threshold, scanned on the raw bytes of a quantised tensor,
 * and gst_ax_nms_run(); two rows of the table of decoders. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>
#include <string.h>

/* YOLOv8 rows / YOLOv5 columns before the class scores */
#define YOLOV8_BOX_VALUES 4
#define YOLOV5_BOX_VALUES 4
#define YOLOV5_OBJECTNESS 4
#define YOLOV5_CLASS_OFFSET 5

/* an f32 anchor whose first class score is NaN: the reference's running
 * maximum starts at NaN and never changes, so it is never a candidate */
#define DEAD_ANCHOR (G_MAXUINT32 - 1)

/* ------------------------------------------------------------------ */
/* Metadata and tensor */

static gboolean
yolo_parse (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  const gchar *s;
  guint n;

  if (!gst_ax_nms_json_get_names (p, o, "output", &n, error))
    return FALSE;
  if (n > 1)
    return gst_ax_nms_decode_fail (error, "\"output\" names %u tensors; "
        "expected the one head", n);
  if (!gst_ax_nms_json_get_string (o, "box_format", &s, error))
    return FALSE;
  if (s && g_str_equal (s, "xywh"))
    p->box_format = GST_AX_NMS_BOX_XYWH;
  else if (s && g_str_equal (s, "ltrb"))
    p->box_format = GST_AX_NMS_BOX_LTRB;
  else if (s)
    return gst_ax_nms_decode_fail (error, "\"box_format\" is \"%s\"; "
        "expected \"xywh\" or \"ltrb\"", s);
  return TRUE;
}

static gboolean
yolo_count_inputs (const GstAxNmsParams * p, guint n_metas, guint * n_inputs,
    gchar ** error)
{
  *n_inputs = 1;
  return TRUE;
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
        || !ZERO_POINT_IN_RANGE (meta->zero_point)
        || !gst_ax_nms_decode_lut_build (lut, meta->dtype, meta->scale,
            meta->zero_point)) {
      if (error)
        *error = g_strdup_printf ("tensor '%s' (%s) has quantisation scale "
            "%g and zero point %d; expected a positive scale and a zero "
            "point within +-%d that give 256 distinct finite levels",
            meta->name, gst_ax_tensor_dtype_to_string (meta->dtype),
            meta->scale, meta->zero_point, MAX_ABS_ZERO_POINT);
      return FALSE;
    }
  }
  input->data = NULL;
  return TRUE;
}

static gboolean
yolo_bind (const GstAxNmsParams * p, const GstAxTensorMeta * const *picked,
    const guint * idx, guint n, GstAxNmsInput * inputs, gchar ** error)
{
  if (!gst_ax_nms_input_from_meta (picked[0], p->kind, &inputs[0], error))
    return FALSE;
  inputs[0].height = inputs[0].width = 0;
  inputs[0].meta_index = idx[0];
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Decoding */

static void
lut_ensure (GstAxNmsWork * w, const GstAxNmsInput * in)
{
  if (w->lut_valid && w->lut_dtype == in->dtype && w->lut_scale == in->scale
      && w->lut_zp == in->zero_point)
    return;
  /* validated by gst_ax_nms_input_from_meta() */
  w->lut_valid =
      gst_ax_nms_decode_lut_build (w->lut, in->dtype, in->scale,
      in->zero_point);
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

  gst_ax_nms_decode_work_ensure (w, in->n_anchors);
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

  gst_ax_nms_decode_sort_candidates (w);
  return gst_ax_nms_decode_suppress (w, p, w->order, w->n_cand, NULL, results,
      limit);
}

static guint
yolo_run (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint limit)
{
  g_return_val_if_fail (n_inputs >= 1, 0);
  return gst_ax_nms_run (w, p, &inputs[0], results, limit);
}

/* *INDENT-OFF* */
const GstAxNmsDecoder gst_ax_nms_decoder_yolov8 = {
  .name = "yolov8",
  .description = "YOLOv8: [1, 4 + classes, anchors], class scores",
  .parse = yolo_parse,
  .count_inputs = yolo_count_inputs,
  .bind = yolo_bind,
  .run = yolo_run,
};

const GstAxNmsDecoder gst_ax_nms_decoder_yolov5 = {
  .name = "yolov5",
  .description = "YOLOv5: [1, anchors, 5 + classes], objectness x class "
      "score",
  .parse = yolo_parse,
  .count_inputs = yolo_count_inputs,
  .bind = yolo_bind,
  .run = yolo_run,
};
/* *INDENT-ON* */
