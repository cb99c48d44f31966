/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The anchor-based SSD decoder (BlazeFace): its metadata (the anchor
 * options, MediaPipe's among them) and tensors; anchors generated from
 * the levels' strides, boxes and keypoints regressed from their centres.
 * A row of the table of decoders. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstaxnmsdecode-private.h"

#include <math.h>

/* regressors before the keypoints: centre x, y, width, height */
#define SSD_BOX_VALUES 4
#define MAX_ANCHORS_PER_CELL 64
/* MediaPipe's SsdAnchorsCalculator: the lowest layer gets three anchors
 * (aspect ratios 1, 2 and 1/2) when reduce_boxes_in_lowest_layer */
#define MEDIAPIPE_LOWEST_LAYER_ANCHORS 3
/* MediaPipe's default interpolated_scale_aspect_ratio: one more anchor
 * per layer */
#define MEDIAPIPE_DEFAULT_INTERPOLATED 1.0

/* Anchors of one SSD level. */
static inline guint
ssd_grid (guint input, guint stride)
{
  return (input + stride - 1) / stride;
}

/* ------------------------------------------------------------------ */
/* Metadata and tensors */

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

  if (!gst_ax_nms_json_get_uint_array (o, "strides", 1, MAX_STRIDE,
          G_N_ELEMENTS (strides), strides, &n_strides, error))
    return FALSE;
  if (n_strides == 0)
    return gst_ax_nms_decode_fail (error,
        "\"anchors\" has no \"strides\"; expected the "
        "stride of each anchor layer");

  if (json_object_has_member (o, "anchors_per_cell")) {
    if (!gst_ax_nms_json_get_uint_array (o, "anchors_per_cell", 1,
            MAX_ANCHORS_PER_CELL, GST_AX_NMS_MAX_LEVELS, per, &n_per, error))
      return FALSE;
    if (n_per != n_strides)
      return gst_ax_nms_decode_fail (error,
          "\"anchors_per_cell\" has %u entries and "
          "\"strides\" %u; expected one per level", n_per, n_strides);
    off = DEFAULT_ANCHOR_OFFSET;
    if (!gst_ax_nms_json_get_float (o, "offset", 0.0, 1.0, &off, error))
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
  if (!gst_ax_nms_json_get_uint (o, "num_layers", 1, G_N_ELEMENTS (strides),
          &num_layers, error))
    return FALSE;
  if (num_layers == 0)
    num_layers = n_strides;
  if (num_layers != n_strides)
    return gst_ax_nms_decode_fail (error,
        "\"num_layers\" is %u and \"strides\" has %u "
        "entries; expected one stride per layer", num_layers, n_strides);
  ratios = json_object_get_member (o, "aspect_ratios");
  if (ratios) {
    JsonArray *a;
    if (!JSON_NODE_HOLDS_ARRAY (ratios))
      return gst_ax_nms_decode_fail (error,
          "\"aspect_ratios\" is not an array; " "expected numbers");
    a = json_node_get_array (ratios);
    n_ratios = json_array_get_length (a);
    for (i = 0; i < n_ratios; i++)
      if (!gst_ax_nms_json_node_is_number (json_array_get_element (a, i))
          || !(json_array_get_double_element (a, i) > 0))
        return gst_ax_nms_decode_fail (error,
            "\"aspect_ratios\"[%u] is not a positive " "number", i);
  }
  if (!gst_ax_nms_json_get_number (o, "interpolated_scale_aspect_ratio", 0.0,
          G_MAXFLOAT, &interp, &found, error))
    return FALSE;
  if (!gst_ax_nms_json_get_bool (o, "reduce_boxes_in_lowest_layer", &reduce,
          error)
      || !gst_ax_nms_json_get_bool (o, "fixed_anchor_size", &fixed, error))
    return FALSE;
  if (!fixed)
    return gst_ax_nms_decode_fail (error,
        "\"fixed_anchor_size\" is not true; axnms "
        "decodes anchors of one fixed size (regressors in input pixels), "
        "expected \"fixed_anchor_size\": true");
  if (json_object_has_member (o, "feature_map_width")
      || json_object_has_member (o, "feature_map_height"))
    return gst_ax_nms_decode_fail (error,
        "\"feature_map_width\" / \"feature_map_height\" "
        "are not supported; the grids are the input size over the strides, "
        "rounded up");
  off = DEFAULT_ANCHOR_OFFSET;
  if (!gst_ax_nms_json_get_float (o, "anchor_offset_x", 0.0, 1.0, &off, error))
    return FALSE;
  p->anchor_offset = off;
  off = DEFAULT_ANCHOR_OFFSET;
  if (!gst_ax_nms_json_get_float (o, "anchor_offset_y", 0.0, 1.0, &off, error))
    return FALSE;
  p->anchor_offset_y = off;
  /* the scales only size the anchors, which fixed_anchor_size ignores */
  if (!gst_ax_nms_json_get_number (o, "min_scale", 0.0, G_MAXFLOAT, &dummy,
          &found, error)
      || !gst_ax_nms_json_get_number (o, "max_scale", 0.0, G_MAXFLOAT, &dummy,
          &found, error))
    return FALSE;
  {
    guint in_w = 0, in_h = 0;
    if (!gst_ax_nms_json_get_uint (o, "input_size_width", 1, MAX_INPUT_SIZE,
            &in_w, error)
        || !gst_ax_nms_json_get_uint (o, "input_size_height", 1, MAX_INPUT_SIZE,
            &in_h, error))
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
      return gst_ax_nms_decode_fail (error, "layer %u has no anchors; expected "
          "\"aspect_ratios\" or \"interpolated_scale_aspect_ratio\" > 0", i);
    if (p->n_levels > 0 && p->strides[p->n_levels - 1] == strides[i]) {
      p->anchors_per_cell[p->n_levels - 1] += n;
    } else {
      if (p->n_levels == GST_AX_NMS_MAX_LEVELS)
        return gst_ax_nms_decode_fail (error, "more than %d distinct strides",
            GST_AX_NMS_MAX_LEVELS);
      p->strides[p->n_levels] = strides[i];
      p->anchors_per_cell[p->n_levels] = n;
      p->n_levels++;
    }
  }
  return TRUE;
}

static gboolean
ssd_parse (GstAxNmsParams * p, JsonObject * o, gchar ** error)
{
  JsonNode *an = json_object_get_member (o, "anchors");
  const gchar *s;
  guint ns, nb;

  if (an == NULL || !JSON_NODE_HOLDS_OBJECT (an))
    return gst_ax_nms_decode_fail (error, "no \"anchors\" object; expected "
        "the anchor options (\"strides\", ...)");
  if (!parse_anchors (p, json_node_get_object (an), error))
    return FALSE;
  if (!gst_ax_nms_json_get_names (p, o, "scores", &ns, error)
      || !gst_ax_nms_json_get_names (p, o, "boxes", &nb, error))
    return FALSE;
  if (ns != nb)
    return gst_ax_nms_decode_fail (error, "\"scores\" names %u tensors and "
        "\"boxes\" %u; expected as many of each", ns, nb);
  if (!gst_ax_nms_json_get_uint (o, "keypoints", 0, GST_AX_NMS_MAX_KEYPOINTS,
          &p->n_keypoints, error))
    return FALSE;
  if (!gst_ax_nms_json_get_string (o, "score_activation", &s, error))
    return FALSE;
  if (s && g_str_equal (s, "sigmoid"))
    p->sigmoid_scores = TRUE;
  else if (s && g_str_equal (s, "none"))
    p->sigmoid_scores = FALSE;
  else if (s)
    return gst_ax_nms_decode_fail (error, "\"score_activation\" is \"%s\"; "
        "expected \"sigmoid\" or \"none\"", s);
  return TRUE;
}

/* a score tensor and a box tensor per group of anchors: the ones named,
 * else all the model's */
static gboolean
ssd_count_inputs (const GstAxNmsParams * p, guint n_metas, guint * n_inputs,
    gchar ** error)
{
  guint n_need;

  if (p->n_input_names)
    n_need = p->n_input_names;
  else
    n_need = MIN (n_metas, GST_AX_NMS_MAX_INPUTS);
  if (n_need == 0 || n_need % 2 != 0)
    return gst_ax_nms_decode_fail (error, "ssd reads a score tensor and a box "
        "tensor per group of anchors; got %u tensors", n_need);
  *n_inputs = n_need;
  return TRUE;
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

static gboolean
ssd_bind (const GstAxNmsParams * p, const GstAxTensorMeta * const *picked,
    const guint * idx, guint n, GstAxNmsInput * inputs, gchar ** error)
{
  const guint k = n / 2;
  guint64 total = 0, expect;
  guint i;

  if (p->n_levels == 0 || p->input_width == 0 || p->input_height == 0)
    return gst_ax_nms_decode_fail (error,
        "ssd needs anchor levels and the input size; "
        "expected \"anchors\" and \"input_size\" in the metadata");
  for (i = 0; i < k; i++) {
    const gint64 *sd, *rd;
    guint ns = gst_ax_nms_decode_inner_dims (picked[i], 2, &sd);
    guint nr = gst_ax_nms_decode_inner_dims (picked[k + i], 2, &rd);
    gchar *ss = gst_ax_nms_decode_shape_string (picked[i]);
    gchar *rs = gst_ax_nms_decode_shape_string (picked[k + i]);
    gint64 na = sd[0], nc = ns == 2 ? sd[1] : 1;
    gboolean ok = TRUE;

    if (ns > 2 || na < 1 || nc < 1 || na > G_MAXINT32 || nc > G_MAXINT32)
      ok = gst_ax_nms_decode_fail (error,
          "score tensor '%s' has shape %s; expected " "[1, anchors, classes]",
          picked[i]->name, ss);
    else if (nr != 2 || rd[0] != na
        || rd[1] < SSD_BOX_VALUES + 2 * (gint64) p->n_keypoints
        || rd[1] > G_MAXINT32)
      ok = gst_ax_nms_decode_fail (error,
          "box tensor '%s' has shape %s; expected [1, " "%" G_GINT64_FORMAT
          ", %u or more] (box centre and size, then "
          "%u keypoints, per anchor of score tensor '%s' %s)",
          picked[k + i]->name, rs, na, SSD_BOX_VALUES + 2 * p->n_keypoints,
          p->n_keypoints, picked[i]->name, ss);
    g_free (ss);
    g_free (rs);
    if (!ok)
      return FALSE;
    gst_ax_nms_decode_input_set (&inputs[i], picked[i], idx[i], na, nc, 0, 0);
    gst_ax_nms_decode_input_set (&inputs[k + i], picked[k + i], idx[k + i], na,
        rd[1], 0, 0);
    total += na;
  }
  expect = ssd_total_anchors (p);
  if (total != expect)
    return gst_ax_nms_decode_fail (error,
        "the score tensors hold %" G_GUINT64_FORMAT
        " anchors; the anchor options give %" G_GUINT64_FORMAT " for a "
        "%ux%u input", total, expect, p->input_width, p->input_height);
  return TRUE;
}

/* ------------------------------------------------------------------ */
/* Decoding */

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

static guint
ssd_run (GstAxNmsWork * w, const GstAxNmsParams * p,
    const GstAxNmsInput * inputs, guint n_inputs, GstAxNmsResult * results,
    guint limit)
{
  const guint k = n_inputs / 2;
  const gfloat thr = p->score_threshold;
  KeypointSource ks = { p, inputs, n_inputs };
  guint total = 0, t, a = 0;

  g_return_val_if_fail (n_inputs >= 2 && n_inputs % 2 == 0, 0);
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
      lut = gst_ax_nms_decode_slot_lut (&w->slots[t], s, p->sigmoid_scores);
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

/* *INDENT-OFF* */
const GstAxNmsDecoder gst_ax_nms_decoder_ssd = {
  .name = "ssd",
  .description = "SSD: per group of anchors, scores [1, anchors, classes] "
      "and regressors [1, anchors, 4 + 2 x keypoints]; anchors from the "
      "model's metadata",
  .parse = ssd_parse,
  .count_inputs = ssd_count_inputs,
  .bind = ssd_bind,
  .run = ssd_run,
};
/* *INDENT-ON* */
