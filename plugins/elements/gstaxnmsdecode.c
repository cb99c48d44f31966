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

/* This file holds the scratch of a stream (GstAxNmsWork), the
 * dequantisation tables and the entry point that picks the decoder:
 * gstaxnmsdecode-yolo.c, -centernet.c (with its AVX2 scans in -avx2.c)
 * and -ssd.c decode, gstaxnmsdecode-nms.c sorts and suppresses,
 * gstaxnmsdecode-params.c reads the metadata and binds the tensors. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>

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
void
gst_ax_nms_decode_work_ensure (GstAxNmsWork * w, guint n_anchors)
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

/* Fills lut[b] with the value of the byte b (biased for int8, so that b
 * orders like the value). Returns FALSE if two levels are not distinct
 * finite floats, which would break the ordering the fast path relies on. */
gboolean
gst_ax_nms_decode_lut_build (gfloat * lut, GstAxTensorDType dtype, gfloat scale,
    gint32 zp)
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

/* The table of slot @i for @in: values (or their sigmoids) of the biased
 * bytes, non-decreasing. */
const gfloat *
gst_ax_nms_decode_slot_lut (GstAxNmsWork * w, guint i, const GstAxNmsInput * in,
    gboolean sigmoid)
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
guint
gst_ax_nms_decode_lut_first_above (const gfloat * lut, gfloat thr)
{
  guint b;

  for (b = 0; b < LUT_SIZE; b++)
    if (lut[b] > thr)
      break;
  return b;
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
      return gst_ax_nms_decode_run_centernet (w, p, inputs, results, limit);
    case GST_AX_NMS_DECODE_SSD:
      g_return_val_if_fail (n_inputs >= 2 && n_inputs % 2 == 0, 0);
      return gst_ax_nms_decode_run_ssd (w, p, inputs, n_inputs, results, limit);
  }
  return 0;
}
