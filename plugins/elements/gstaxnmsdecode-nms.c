/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The NMS of every decoder: the stable sort of the candidates by score,
 * then greedy (hard) or MediaPipe's weighted suppression. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>
#include <string.h>

/* below this many candidates an insertion sort beats four radix passes */
#define INSERTION_SORT_MAX 48
#define RADIX_BITS 8
#define RADIX_BUCKETS (1 << RADIX_BITS)
#define RADIX_PASSES (32 / RADIX_BITS)

/* Stable sort of the candidates by key, ascending. Candidates arrive in
 * anchor order, so equal scores stay in anchor order. */
void
gst_ax_nms_decode_sort_candidates (GstAxNmsWork * w)
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
      gst_ax_nms_decode_keypoints_of (ks, r->anchor, r->keypoints);
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
        gst_ax_nms_decode_keypoints_of (ks, w->canchor[m], kp);
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

guint
gst_ax_nms_decode_suppress (GstAxNmsWork * w, const GstAxNmsParams * p,
    const guint32 * order, guint n, const KeypointSource * ks,
    GstAxNmsResult * results, guint limit)
{
  if (p->suppression == GST_AX_NMS_SUPPRESS_WEIGHTED)
    return suppress_weighted (w, p, order, n, ks, results, limit);
  return suppress_hard (w, p, order, n, ks, results, limit);
}
