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

struct _GstAxNmsWork
{
  guint capacity;               /* anchors the arrays below can hold */

  /* per-anchor maximum over classes: biased bytes or floats */
  guint8 *colmax_u8;
  gfloat *colmax_f32;

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
  g_free (w->colmax_u8);
  g_free (w->colmax_f32);
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
  guint n;

  if (n_anchors <= w->capacity)
    return;
  work_free_arrays (w);
  n = n_anchors;
  w->colmax_u8 = g_new (guint8, n);
  w->colmax_f32 = g_new (gfloat, n);
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
  w->kx0 = g_new (gfloat, n);
  w->ky0 = g_new (gfloat, n);
  w->kx1 = g_new (gfloat, n);
  w->ky1 = g_new (gfloat, n);
  w->karea = g_new (gfloat, n);
  w->kclass = g_new (guint32, n);
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

static void
colmax_u8_init (const guint8 * restrict row, guint8 * restrict m, guint n,
    guint8 flip)
{
  guint a;

  for (a = 0; a < n; a++)
    m[a] = row[a] ^ flip;
}

static void
colmax_u8_update (const guint8 * restrict row, guint8 * restrict m, guint n,
    guint8 flip)
{
  guint a;

  for (a = 0; a < n; a++) {
    guint8 v = row[a] ^ flip;
    m[a] = v > m[a] ? v : m[a];
  }
}

static void
colmax_f32_update (const gfloat * restrict row, gfloat * restrict m, guint n)
{
  guint a;

  for (a = 0; a < n; a++)
    m[a] = row[a] > m[a] ? row[a] : m[a];
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

static void
decode_v8_quant (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in)
{
  const guint8 *t = in->data;
  const guint na = in->n_anchors, nc = in->n_classes;
  const guint8 *scores = t + (gsize) YOLOV8_BOX_VALUES * na;
  const guint8 flip = in->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
  const gfloat *lut = w->lut;
  guint8 *m = w->colmax_u8;
  guint first_pass, a, c;

  /* the table increases strictly, so "value > threshold" is "byte >=
   * first_pass" */
  for (first_pass = 0; first_pass < LUT_SIZE; first_pass++)
    if (lut[first_pass] > p->score_threshold)
      break;
  if (first_pass == LUT_SIZE)
    return;

  colmax_u8_init (scores, m, na, flip);
  for (c = 1; c < nc; c++)
    colmax_u8_update (scores + (gsize) c * na, m, na, flip);

  for (a = 0; a < na; a++) {
    guint8 best = m[a];

    if (G_LIKELY (best < first_pass))
      continue;
    for (c = 0; c < nc; c++)
      if ((guint8) (scores[(gsize) c * na + a] ^ flip) == best)
        break;
    push_candidate (w, p, lut[t[a] ^ flip], lut[t[na + a] ^ flip],
        lut[t[2 * (gsize) na + a] ^ flip], lut[t[3 * (gsize) na + a] ^ flip],
        lut[best], c, a);
  }
}

static void
decode_v8_f32 (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * in)
{
  const gfloat *t = in->data;
  const guint na = in->n_anchors, nc = in->n_classes;
  const gfloat *scores = t + (gsize) YOLOV8_BOX_VALUES * na;
  gfloat *m = w->colmax_f32;
  const gfloat thr = p->score_threshold;
  guint a, c;

  memcpy (m, scores, na * sizeof (gfloat));
  for (c = 1; c < nc; c++)
    colmax_f32_update (scores + (gsize) c * na, m, na);

  for (a = 0; a < na; a++) {
    gfloat best = m[a];

    if (G_LIKELY (!(best > thr)) || !isfinite (best))
      continue;
    for (c = 0; c < nc; c++)
      if (scores[(gsize) c * na + a] == best)
        break;
    push_candidate (w, p, t[a], t[na + a], t[2 * (gsize) na + a],
        t[3 * (gsize) na + a], best, c, a);
  }
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

/* Whether a box overlaps any kept box of the same class (of any class if
 * @agnostic) by more than @thr. Written without branches in the loop so
 * that it vectorises. */
static gboolean
overlaps_kept (const gfloat * restrict kx0, const gfloat * restrict ky0,
    const gfloat * restrict kx1, const gfloat * restrict ky1,
    const gfloat * restrict karea, const guint32 * restrict kclass,
    guint nk, gfloat x0, gfloat y0, gfloat x1, gfloat y1, gfloat area,
    guint32 cls, guint32 agnostic, gfloat thr)
{
  guint32 hit = 0;
  guint j;

  for (j = 0; j < nk; j++) {
    gfloat iw = MIN (x1, kx1[j]) - MAX (x0, kx0[j]);
    gfloat ih = MIN (y1, ky1[j]) - MAX (y0, ky0[j]);
    gfloat inter, iou;

    iw = iw > 0.0f ? iw : 0.0f;
    ih = ih > 0.0f ? ih : 0.0f;
    inter = iw * ih;
    iou = inter / (area + karea[j] - inter);
    hit |= (guint32) (iou > thr) & (agnostic | (guint32) (kclass[j] == cls));
  }
  return hit != 0;
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

  for (i = 0; i < w->n_cand && nk < limit; i++) {
    guint k = w->order[i];
    gfloat x0 = w->cx0[k], y0 = w->cy0[k], x1 = w->cx1[k], y1 = w->cy1[k];
    gfloat area = (x1 - x0) * (y1 - y0);

    if (overlaps_kept (w->kx0, w->ky0, w->kx1, w->ky1, w->karea, w->kclass,
            nk, x0, y0, x1, y1, area, w->cclass[k], p->class_agnostic ? 1 : 0,
            p->iou_threshold))
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
  }
  return nk;
}
