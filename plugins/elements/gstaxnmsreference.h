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

#ifndef __GST_AX_NMS_REFERENCE_H__
#define __GST_AX_NMS_REFERENCE_H__

#include <math.h>
#include <stdlib.h>

#include "gstaxnmsdecode.h"

typedef struct
{
  gfloat x0, y0, x1, y1, score;
  guint cls, anchor;
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

#endif /* __GST_AX_NMS_REFERENCE_H__ */
