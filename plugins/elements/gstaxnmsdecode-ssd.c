/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The anchor-based SSD decoder (BlazeFace): anchors generated from the
 * levels' strides, boxes and keypoints regressed from their centres. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>

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

void
gst_ax_nms_decode_keypoints_of (const KeypointSource * ks, guint anchor,
    gfloat * kp)
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

guint
gst_ax_nms_decode_run_ssd (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint limit)
{
  const guint k = n_inputs / 2;
  const gfloat thr = p->score_threshold;
  KeypointSource ks = { p, inputs, n_inputs };
  guint total = 0, t, a = 0;

  for (t = 0; t < k; t++)
    total += inputs[t].n_anchors;
  gst_ax_nms_decode_work_ensure (w, total);
  w->n_cand = 0;

  for (t = 0; t < k; t++) {
    const GstAxNmsInput *s = &inputs[t], *b = &inputs[k + t];
    const guint nc = s->n_classes, nr = b->n_classes;
    const gboolean quant = s->dtype != GST_AX_TENSOR_DTYPE_F32;
    const gfloat *lut = NULL;
    const guint8 flip = s->dtype == GST_AX_TENSOR_DTYPE_I8 ? INT8_BIAS : 0;
    guint first_pass = 0, row, c;

    if (quant) {
      lut = gst_ax_nms_decode_slot_lut (w, t, s, p->sigmoid_scores);
      first_pass = gst_ax_nms_decode_lut_first_above (lut, thr);
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
  gst_ax_nms_decode_sort_candidates (w);
  return gst_ax_nms_decode_suppress (w, p, w->order, w->n_cand, &ks, results,
      limit);
}
