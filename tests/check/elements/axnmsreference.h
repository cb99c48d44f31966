/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The literal definition of axnms's output, for its tests and bench only
 * (never compiled into the plugin): decode every anchor and class in
 * float, qsort, O(n^2) greedy NMS. Shares no code with gstaxnmsdecode.c;
 * the fast path must match it bit for bit. */

#ifndef __AX_NMS_REFERENCE_H__
#define __AX_NMS_REFERENCE_H__

#include <math.h>
#include <stdlib.h>

#include "gstaxnmsdecode.h"

typedef struct
{
  gfloat x0, y0, x1, y1, score;
  guint cls, anchor;
  guint n_kp;
  gfloat kp[2 * GST_AX_NMS_MAX_KEYPOINTS];
} RefDet;

typedef struct
{
  GstAxNmsDecodeKind kind;
  GstAxTensorDType dtype;
  gconstpointer data;
  gfloat scale;
  gint32 zp;
  guint na, nc;
} RefTensor;

static inline gfloat
ref_value (const RefTensor * t, guint anchor, guint j)
{
  gsize idx = t->kind == GST_AX_NMS_DECODE_YOLOV8 ?
      (gsize) j * t->na + anchor : (gsize) anchor * (t->nc + 5) + j;

  switch (t->dtype) {
    case GST_AX_TENSOR_DTYPE_F32:
      return ((const gfloat *) t->data)[idx];
    case GST_AX_TENSOR_DTYPE_I8:
      return t->scale * (gfloat) ((gint) ((const gint8 *) t->data)[idx] -
          t->zp);
    default:
      return t->scale * (gfloat) ((gint) ((const guint8 *) t->data)[idx] -
          t->zp);
  }
}

static inline int
ref_cmp (const void *pa, const void *pb)
{
  const RefDet *a = pa, *b = pb;

  if (a->score != b->score)
    return a->score > b->score ? -1 : 1;
  return a->anchor < b->anchor ? -1 : (a->anchor > b->anchor);
}

static inline gfloat
ref_iou (const RefDet * a, const RefDet * b)
{
  gfloat iw = MIN (a->x1, b->x1) - MAX (a->x0, b->x0);
  gfloat ih = MIN (a->y1, b->y1) - MAX (a->y0, b->y0);
  gfloat aa = (a->x1 - a->x0) * (a->y1 - a->y0);
  gfloat ab = (b->x1 - b->x0) * (b->y1 - b->y0);
  gfloat inter;

  iw = iw > 0.0f ? iw : 0.0f;
  ih = ih > 0.0f ? ih : 0.0f;
  inter = iw * ih;
  return inter / (aa + ab - inter);
}

static inline guint
ref_run (const GstAxNmsParams * p, const RefTensor * t, RefDet * out)
{
  RefDet *cand = g_new (RefDet, t->na);
  gfloat *s = g_new (gfloat, t->nc);
  gboolean *sup;
  guint n = 0, a, c, i, j, nk = 0;

  for (a = 0; a < t->na; a++) {
    gfloat best, obj = 0.0f, b[4];
    guint bc = 0;
    RefDet d;

    if (t->kind == GST_AX_NMS_DECODE_YOLOV8) {
      for (c = 0; c < t->nc; c++)
        s[c] = ref_value (t, a, 4 + c);
    } else {
      obj = ref_value (t, a, 4);
      for (c = 0; c < t->nc; c++)
        s[c] = obj * ref_value (t, a, 5 + c);
    }
    best = s[0];
    for (c = 1; c < t->nc; c++)
      if (s[c] > best) {
        best = s[c];
        bc = c;
      }
    if (t->kind == GST_AX_NMS_DECODE_YOLOV5 && !(obj > p->score_threshold))
      continue;
    if (!(best > p->score_threshold) || !isfinite (best))
      continue;
    for (c = 0; c < 4; c++)
      b[c] = ref_value (t, a, c);
    if (p->box_format == GST_AX_NMS_BOX_XYWH) {
      d.x0 = (b[0] - b[2] * 0.5f) * p->box_scale_x;
      d.y0 = (b[1] - b[3] * 0.5f) * p->box_scale_y;
      d.x1 = (b[0] + b[2] * 0.5f) * p->box_scale_x;
      d.y1 = (b[1] + b[3] * 0.5f) * p->box_scale_y;
    } else {
      d.x0 = b[0] * p->box_scale_x;
      d.y0 = b[1] * p->box_scale_y;
      d.x1 = b[2] * p->box_scale_x;
      d.y1 = b[3] * p->box_scale_y;
    }
    if (!isfinite (d.x0) || !isfinite (d.y0) || !isfinite (d.x1)
        || !isfinite (d.y1))
      continue;
    d.score = best;
    d.cls = bc;
    d.anchor = a;
    d.n_kp = 0;
    cand[n++] = d;
  }
  qsort (cand, n, sizeof (RefDet), ref_cmp);

  sup = g_new0 (gboolean, n);
  for (i = 0; i < n && nk < p->max_detections; i++) {
    if (sup[i])
      continue;
    out[nk++] = cand[i];
    for (j = i + 1; j < n; j++)
      if ((p->class_agnostic || cand[j].cls == cand[i].cls)
          && ref_iou (&cand[j], &cand[i]) > p->iou_threshold)
        sup[j] = TRUE;
  }
  g_free (sup);
  g_free (s);
  g_free (cand);
  return nk;
}

/* ------------------------------------------------------------------ */
/* CenterNet and SSD, literally */

/* One tensor's data and quantisation. */
typedef struct
{
  GstAxTensorDType dtype;
  gconstpointer data;
  gfloat scale;
  gint32 zp;
} RefData;

static inline gfloat
ref_at (const RefData * d, gsize i)
{
  switch (d->dtype) {
    case GST_AX_TENSOR_DTYPE_F32:
      return ((const gfloat *) d->data)[i];
    case GST_AX_TENSOR_DTYPE_I8:
      return d->scale * (gfloat) ((gint) ((const gint8 *) d->data)[i] -
          d->zp);
    default:
      return d->scale * (gfloat) ((gint) ((const guint8 *) d->data)[i] -
          d->zp);
  }
}

/* score descending, then anchor, then class */
static inline int
ref_cmp_cls (const void *pa, const void *pb)
{
  const RefDet *a = pa, *b = pb;

  if (a->score != b->score)
    return a->score > b->score ? -1 : 1;
  if (a->anchor != b->anchor)
    return a->anchor < b->anchor ? -1 : 1;
  return a->cls < b->cls ? -1 : (a->cls > b->cls);
}

/* Greedy NMS of @cand (sorted, best first) into @out. */
static inline guint
ref_nms_hard (const GstAxNmsParams * p, const RefDet * cand, guint n,
    RefDet * out)
{
  gboolean *sup = g_new0 (gboolean, n + 1);
  guint i, j, nk = 0;

  for (i = 0; i < n && nk < p->max_detections; i++) {
    if (sup[i])
      continue;
    out[nk++] = cand[i];
    for (j = i + 1; j < n; j++)
      if ((p->class_agnostic || cand[j].cls == cand[i].cls)
          && ref_iou (&cand[j], &cand[i]) > p->iou_threshold)
        sup[j] = TRUE;
  }
  g_free (sup);
  return nk;
}

/* MediaPipe's WeightedNonMaxSuppression, as written there: take the best
 * remaining detection; every remaining detection that overlaps it by more
 * than the threshold (and it) is a candidate, the others remain; the
 * output is the candidates' score-weighted mean of corners and keypoints,
 * with the best one's score. */
static inline guint
ref_nms_weighted (const GstAxNmsParams * p, const RefDet * cand, guint n,
    RefDet * out)
{
  guint *remained = g_new (guint, n + 1), *remaining = g_new (guint, n + 1);
  guint n_rem = n, i, q, nk = 0;

  for (i = 0; i < n; i++)
    remained[i] = i;
  while (n_rem > 0 && nk < p->max_detections) {
    const RefDet *top = &cand[remained[0]];
    RefDet d = *top;
    gfloat total = 0, x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    gfloat kp[2 * GST_AX_NMS_MAX_KEYPOINTS] = { 0 };
    guint n_next = 0, *t;

    for (i = 0; i < n_rem; i++) {
      const RefDet *c = &cand[remained[i]];
      gboolean take = i == 0 || ((p->class_agnostic || c->cls == top->cls)
          && ref_iou (c, top) > p->iou_threshold);

      if (!take) {
        remaining[n_next++] = remained[i];
        continue;
      }
      total += c->score;
      x0 += c->x0 * c->score;
      y0 += c->y0 * c->score;
      x1 += c->x1 * c->score;
      y1 += c->y1 * c->score;
      for (q = 0; q < 2 * c->n_kp; q++)
        kp[q] += c->kp[q] * c->score;
    }
    d.x0 = x0 / total;
    d.y0 = y0 / total;
    d.x1 = x1 / total;
    d.y1 = y1 / total;
    for (q = 0; q < 2 * d.n_kp; q++)
      d.kp[q] = kp[q] / total;
    out[nk++] = d;
    t = remained;
    remained = remaining;
    remaining = t;
    n_rem = n_next;
  }
  g_free (remained);
  g_free (remaining);
  return nk;
}

static inline guint
ref_nms (const GstAxNmsParams * p, const RefDet * cand, guint n,
    RefDet * out)
{
  if (p->suppression == GST_AX_NMS_SUPPRESS_WEIGHTED)
    return ref_nms_weighted (p, cand, n, out);
  return ref_nms_hard (p, cand, n, out);
}

/* CenterNet: every heat-map value above the threshold that no 3x3
 * neighbour of its class exceeds is a peak; the top_k best peaks (score,
 * then cell, then class); their boxes at the distances of their cell from
 * the point (stride x, stride y); those with finite corners; NMS. */
static inline guint
ref_centernet (const GstAxNmsParams * p, const RefData * heat,
    const RefData * wh, guint H, guint W, guint nc, RefDet * out)
{
  guint stride = p->stride ? p->stride : p->input_width / W;
  RefDet *cand = g_new (RefDet, (gsize) H * W * nc + 1);
  guint n = 0, nv = 0, y, x, c, i, nk;
  gint dy, dx;

  for (y = 0; y < H; y++)
    for (x = 0; x < W; x++)
      for (c = 0; c < nc; c++) {
        gfloat v = ref_at (heat, ((gsize) y * W + x) * nc + c);
        gboolean peak = v > p->score_threshold && isfinite (v);

        for (dy = -1; dy <= 1 && peak; dy++)
          for (dx = -1; dx <= 1 && peak; dx++) {
            gint yy = (gint) y + dy, xx = (gint) x + dx;
            if (yy < 0 || xx < 0 || yy >= (gint) H || xx >= (gint) W)
              continue;
            if (ref_at (heat, ((gsize) yy * W + xx) * nc + c) > v)
              peak = FALSE;
          }
        if (!peak)
          continue;
        cand[n].score = v;
        cand[n].cls = c;
        cand[n].anchor = y * W + x;
        cand[n].n_kp = 0;
        n++;
      }
  qsort (cand, n, sizeof (RefDet), ref_cmp_cls);
  if (p->top_k && n > p->top_k)
    n = p->top_k;
  for (i = 0; i < n; i++) {
    RefDet d = cand[i];
    guint cx = d.anchor % W, cy = d.anchor / W;
    gsize o = (gsize) d.anchor * 4;

    d.x0 = ((gfloat) (stride * cx) - ref_at (wh, o)) * p->box_scale_x;
    d.y0 = ((gfloat) (stride * cy) - ref_at (wh, o + 1)) * p->box_scale_y;
    d.x1 = ((gfloat) (stride * cx) + ref_at (wh, o + 2)) * p->box_scale_x;
    d.y1 = ((gfloat) (stride * cy) + ref_at (wh, o + 3)) * p->box_scale_y;
    if (!isfinite (d.x0) || !isfinite (d.y0) || !isfinite (d.x1)
        || !isfinite (d.y1))
      continue;
    cand[nv++] = d;
  }
  nk = ref_nms (p, cand, nv, out);
  g_free (cand);
  return nk;
}

/* SSD: anchors level by level, row by row, anchors_per_cell per cell,
 * centred at ((x + offset_x) W / grid_w, (y + offset_y) H / grid_h),
 * grid = ceil (input / stride); the k score tensors then the k box
 * tensors cover them in order. Score = best class (sigmoid of the logit
 * if asked), candidate above the threshold; box centre = anchor centre +
 * regressors 0, 1, size = regressors 2, 3; keypoint q = anchor centre +
 * regressors 4 + 2q, 5 + 2q. */
static inline guint
ref_ssd (const GstAxNmsParams * p, const RefData * scores,
    const guint * n_anchors, const guint * n_classes, const RefData * boxes,
    const guint * n_values, guint k, RefDet * out)
{
  guint total = 0, n = 0, l, y, x, j, t, a = 0, c, q, nk;
  RefDet *cand;

  for (t = 0; t < k; t++)
    total += n_anchors[t];
  cand = g_new (RefDet, total + 1);
  for (l = 0; l < p->n_levels; l++) {
    guint gw = (p->input_width + p->strides[l] - 1) / p->strides[l];
    guint gh = (p->input_height + p->strides[l] - 1) / p->strides[l];

    for (y = 0; y < gh; y++)
      for (x = 0; x < gw; x++)
        for (j = 0; j < p->anchors_per_cell[l]; j++, a++) {
          gfloat ax = (gfloat) ((x + (gdouble) p->anchor_offset) *
              p->input_width / gw);
          gfloat ay = (gfloat) ((y + (gdouble) p->anchor_offset_y) *
              p->input_height / gh);
          guint row = a, ti = 0;
          gfloat best = 0, r[4];
          guint bc = 0;
          RefDet d;

          while (row >= n_anchors[ti]) {
            row -= n_anchors[ti];
            ti++;
          }
          for (c = 0; c < n_classes[ti]; c++) {
            gfloat v = ref_at (&scores[ti], (gsize) row * n_classes[ti] + c);
            if (p->sigmoid_scores)
              v = 1.0f / (1.0f + expf (-v));
            if (c == 0 || v > best) {
              best = v;
              bc = c;
            }
          }
          if (!(best > p->score_threshold) || !isfinite (best))
            continue;
          for (q = 0; q < 4; q++)
            r[q] = ref_at (&boxes[ti], (gsize) row * n_values[ti] + q);
          d.x0 = (ax + r[0] - r[2] * 0.5f) * p->box_scale_x;
          d.y0 = (ay + r[1] - r[3] * 0.5f) * p->box_scale_y;
          d.x1 = (ax + r[0] + r[2] * 0.5f) * p->box_scale_x;
          d.y1 = (ay + r[1] + r[3] * 0.5f) * p->box_scale_y;
          if (!isfinite (d.x0) || !isfinite (d.y0) || !isfinite (d.x1)
              || !isfinite (d.y1))
            continue;
          d.score = best;
          d.cls = bc;
          d.anchor = a;
          d.n_kp = p->n_keypoints;
          for (q = 0; q < p->n_keypoints; q++) {
            d.kp[2 * q] = (ax + ref_at (&boxes[ti], (gsize) row * n_values[ti]
                    + 4 + 2 * q)) * p->box_scale_x;
            d.kp[2 * q + 1] = (ay + ref_at (&boxes[ti], (gsize) row *
                    n_values[ti] + 5 + 2 * q)) * p->box_scale_y;
          }
          cand[n++] = d;
        }
  }
  qsort (cand, n, sizeof (RefDet), ref_cmp);
  nk = ref_nms (p, cand, n, out);
  g_free (cand);
  return nk;
}

#endif /* __AX_NMS_REFERENCE_H__ */
