/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axnms's decoding engine (gstaxnmsdecode.h) against a literal
 * reference: decode every anchor and class in float, qsort, O(n^2) greedy
 * NMS. The fast decoder must give the same boxes, bit for bit, in the same
 * order. Also the decoder metadata (JSON) and the binding of output
 * tensors. The element itself is tested in axnms.c. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/ax/ax.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gstaxnmsdecode.h"
#include "axnmsreference.h"
#include "axnmsmeta.h"

#define REF_MAX 20000

static void
params_default (GstAxNmsParams * p, GstAxNmsDecodeKind kind)
{
  gst_ax_nms_params_init (p);
  p->kind = kind;
  p->box_format = GST_AX_NMS_BOX_XYWH;
  p->score_threshold = 0.25f;
  p->iou_threshold = 0.45f;
  p->max_detections = 300;
  p->class_agnostic = FALSE;
  p->box_scale_x = 1.0f;
  p->box_scale_y = 1.0f;
}

/* Runs both and asserts identical output; returns the detection count. */
static guint
check_same (GstAxNmsWork * w, const GstAxNmsParams * p, const RefTensor * t)
{
  GstAxNmsInput in;
  GstAxNmsResult *res = g_new (GstAxNmsResult, REF_MAX);
  RefDet *ref = g_new (RefDet, REF_MAX);
  guint n, nr, i;

  in.data = t->data;
  in.dtype = t->dtype;
  in.scale = t->scale;
  in.zero_point = t->zp;
  in.n_anchors = t->na;
  in.n_classes = t->nc;

  n = gst_ax_nms_run (w, p, &in, res, REF_MAX);
  nr = ref_run (p, t, ref);
  fail_unless_equals_int (n, nr);
  for (i = 0; i < n; i++) {
    fail_unless (res[i].anchor == ref[i].anchor, "det %u: anchor %u vs %u",
        i, res[i].anchor, ref[i].anchor);
    fail_unless_equals_int (res[i].class_id, ref[i].cls);
    fail_unless (res[i].score == ref[i].score);
    fail_unless (res[i].x0 == ref[i].x0 && res[i].y0 == ref[i].y0
        && res[i].x1 == ref[i].x1 && res[i].y1 == ref[i].y1);
  }
  g_free (res);
  g_free (ref);
  return n;
}

static gsize
dtype_size (GstAxTensorDType d)
{
  return gst_ax_tensor_dtype_size (d);
}

/* Random tensor whose boxes cluster, so NMS has work to do. Scores are
 * uniform in the dtype's range, thinned by @sparsity. */
static gpointer
make_random (GRand * rng, const RefTensor * t, gdouble sparsity,
    gdouble box_unit)
{
  gsize n = (gsize) t->na * (t->nc + (t->kind == GST_AX_NMS_DECODE_YOLOV8 ?
          4 : 5));
  gpointer data = g_malloc (n * dtype_size (t->dtype));
  guint a, j, nv = t->nc + (t->kind == GST_AX_NMS_DECODE_YOLOV8 ? 4 : 5);

  for (a = 0; a < t->na; a++) {
    for (j = 0; j < nv; j++) {
      gsize idx = t->kind == GST_AX_NMS_DECODE_YOLOV8 ?
          (gsize) j * t->na + a : (gsize) a * nv + j;
      gdouble v;

      if (j < 4) {
        /* 8 cluster centres; sizes 5..40 */
        v = j < 2 ? (a % 8) * 6.0 + g_rand_double_range (rng, -2, 2)
            : g_rand_double_range (rng, 5, 40);
        v *= box_unit;
      } else {
        v = g_rand_double (rng) < sparsity ? 0.0 : g_rand_double (rng);
      }
      if (t->dtype == GST_AX_TENSOR_DTYPE_F32) {
        ((gfloat *) data)[idx] = v;
      } else {
        gint q = (gint) lrint (v / t->scale) + t->zp;
        if (t->dtype == GST_AX_TENSOR_DTYPE_I8)
          ((gint8 *) data)[idx] = CLAMP (q, G_MININT8, G_MAXINT8);
        else
          ((guint8 *) data)[idx] = CLAMP (q, 0, G_MAXUINT8);
      }
    }
  }
  return data;
}

GST_START_TEST (test_random_matches_reference)
{
  static const GstAxTensorDType dtypes[] = { GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_DTYPE_U8, GST_AX_TENSOR_DTYPE_F32
  };
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GRand *rng = g_rand_new_with_seed (12345);
  guint iter, total = 0;

  for (iter = 0; iter < 120; iter++) {
    RefTensor t;
    GstAxNmsParams p;
    gpointer data;

    t.kind = iter % 2 ? GST_AX_NMS_DECODE_YOLOV5 : GST_AX_NMS_DECODE_YOLOV8;
    t.dtype = dtypes[(iter / 2) % 3];
    t.nc = g_rand_int_range (rng, 1, 12);
    t.na = g_rand_int_range (rng, 1, 1500);
    /* one scale per tensor: quantised boxes are normalised, so that they
     * share the 0..1 range of the scores */
    t.scale = t.dtype == GST_AX_TENSOR_DTYPE_F32 ? 1.0f : 1.0f / 200;
    t.zp = t.dtype == GST_AX_TENSOR_DTYPE_I8 ? -100 : 3;
    data = make_random (rng, &t, g_rand_double_range (rng, 0.5, 0.99),
        t.dtype == GST_AX_TENSOR_DTYPE_F32 ? 1.0 : 0.01);
    t.data = data;

    params_default (&p, t.kind);
    p.box_format = (iter / 6) % 2 ? GST_AX_NMS_BOX_LTRB : GST_AX_NMS_BOX_XYWH;
    p.class_agnostic = (iter / 12) % 2;
    p.score_threshold = g_rand_double_range (rng, 0.0, 0.9);
    p.iou_threshold = g_rand_double_range (rng, 0.1, 0.9);
    p.max_detections = g_rand_int_range (rng, 1, 400);
    if (t.dtype != GST_AX_TENSOR_DTYPE_F32) {
      p.box_scale_x = 640.0f;
      p.box_scale_y = 480.0f;
    }
    total += check_same (w, &p, &t);
    g_free (data);
  }
  /* the cases are not all empty */
  fail_unless (total > 500, "only %u detections in total", total);
  g_rand_free (rng);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_no_candidates)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  gint8 data[(4 + 3) * 50];
  RefTensor t = { GST_AX_NMS_DECODE_YOLOV8, GST_AX_TENSOR_DTYPE_I8, data,
    1.0f / 255, -128, 50, 3
  };
  GstAxNmsParams p;

  /* every score at exactly the threshold's level or below */
  memset (data, -128 + 63, sizeof (data));
  params_default (&p, t.kind);
  fail_unless_equals_int (check_same (w, &p, &t), 0);
  t.kind = GST_AX_NMS_DECODE_YOLOV5;
  t.na = 50 * 7 / 8;
  fail_unless_equals_int (check_same (w, &p, &t), 0);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_all_above_threshold)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  const guint na = 8400, nc = 3;
  gfloat *data = g_new (gfloat, (4 + nc) * na);
  RefTensor t = { GST_AX_NMS_DECODE_YOLOV8, GST_AX_TENSOR_DTYPE_F32, data,
    1.0f, 0, na, nc
  };
  GstAxNmsParams p;
  guint a, c;

  /* a grid of disjoint boxes, every one a candidate */
  for (a = 0; a < na; a++) {
    data[a] = (a % 100) * 10.0f + 4;
    data[na + a] = (a / 100) * 10.0f + 4;
    data[2 * na + a] = 8.0f;
    data[3 * na + a] = 8.0f;
    for (c = 0; c < nc; c++)
      data[(4 + c) * na + a] = 0.3f + 0.6f * ((a * 7 + c * 13) % 101) / 100;
  }
  params_default (&p, t.kind);
  fail_unless_equals_int (check_same (w, &p, &t), 300);
  p.max_detections = 100000;
  fail_unless_equals_int (check_same (w, &p, &t), na);
  g_free (data);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_nan_inf)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GRand *rng = g_rand_new_with_seed (7);
  const gfloat specials[] = { NAN, INFINITY, -INFINITY, -NAN };
  guint iter;

  for (iter = 0; iter < 20; iter++) {
    RefTensor t;
    GstAxNmsParams p;
    gfloat *data;
    guint i, n, total;

    t.kind = iter % 2 ? GST_AX_NMS_DECODE_YOLOV5 : GST_AX_NMS_DECODE_YOLOV8;
    t.dtype = GST_AX_TENSOR_DTYPE_F32;
    t.scale = 1.0f;
    t.zp = 0;
    t.nc = g_rand_int_range (rng, 1, 6);
    t.na = g_rand_int_range (rng, 100, 600);
    data = make_random (rng, &t, 0.3, 1.0);
    total = t.na * (t.nc + (iter % 2 ? 5 : 4));
    n = total / 10;
    for (i = 0; i < n; i++)
      data[g_rand_int_range (rng, 0, total)] =
          specials[g_rand_int_range (rng, 0, G_N_ELEMENTS (specials))];
    t.data = data;
    params_default (&p, t.kind);
    p.score_threshold = 0.1f;
    check_same (w, &p, &t);
    g_free (data);
  }
  g_rand_free (rng);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_identical_boxes)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  const guint na = 64, nc = 2;
  gfloat data[(4 + 2) * 64];
  RefTensor t = { GST_AX_NMS_DECODE_YOLOV8, GST_AX_TENSOR_DTYPE_F32, data,
    1.0f, 0, na, nc
  };
  GstAxNmsParams p;
  GstAxNmsResult res[4];
  GstAxNmsInput in = { data, GST_AX_TENSOR_DTYPE_F32, 1.0f, 0, na, nc };
  guint a;

  /* the same box everywhere with the same score; classes alternate */
  for (a = 0; a < na; a++) {
    data[a] = 100;
    data[na + a] = 50;
    data[2 * na + a] = 20;
    data[3 * na + a] = 10;
    data[4 * na + a] = a % 2 ? 0.1f : 0.8f;
    data[5 * na + a] = a % 2 ? 0.8f : 0.1f;
  }
  params_default (&p, t.kind);
  fail_unless_equals_int (check_same (w, &p, &t), 2);
  /* ties go to the lowest anchor, one per class */
  fail_unless_equals_int (gst_ax_nms_run (w, &p, &in, res, 4), 2);
  fail_unless_equals_int (res[0].anchor, 0);
  fail_unless_equals_int (res[0].class_id, 0);
  fail_unless_equals_int (res[1].anchor, 1);
  fail_unless_equals_int (res[1].class_id, 1);
  fail_unless_equals_float (res[0].x0, 90.0f);
  fail_unless_equals_float (res[0].y1, 55.0f);
  p.class_agnostic = TRUE;
  fail_unless_equals_int (check_same (w, &p, &t), 1);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_zero_area_boxes)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  const guint na = 40, nc = 1;
  guint8 data[(5 + 1) * 40];
  RefTensor t = { GST_AX_NMS_DECODE_YOLOV5, GST_AX_TENSOR_DTYPE_U8, data,
    1.0f / 255, 0, na, nc
  };
  GstAxNmsParams p;
  guint a;

  /* zero width and height at one point: IoU is 0/0, never a suppression */
  for (a = 0; a < na; a++) {
    data[a * 6 + 0] = 100;
    data[a * 6 + 1] = 100;
    data[a * 6 + 2] = 0;
    data[a * 6 + 3] = 0;
    data[a * 6 + 4] = 255;
    data[a * 6 + 5] = 200 + (a % 50);
  }
  params_default (&p, t.kind);
  fail_unless_equals_int (check_same (w, &p, &t), na);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_invalid_tensors)
{
  GstBuffer *frame = gst_buffer_new ();
  gint64 dims3[3] = { 1, 4, 100 }, dims_ok[3] = { 1, 7, 100 };
  GstAxTensorMeta *m;
  GstAxNmsInput in;
  gchar *err = NULL;

  m = gst_buffer_add_ax_tensor_meta (frame, "out", GST_AX_TENSOR_ROLE_OUTPUT,
      GST_AX_TENSOR_DTYPE_I8, GST_AX_TENSOR_LAYOUT_NHWC, 3, dims3, 0.1f, 0,
      gst_buffer_new_allocate (NULL, 400, NULL));
  fail_if (gst_ax_nms_input_from_meta (m, GST_AX_NMS_DECODE_YOLOV8, &in, &err));
  fail_unless (strstr (err, "[4 + classes, anchors]") != NULL, "%s", err);
  g_free (err);

  m = gst_buffer_add_ax_tensor_meta (frame, "q", GST_AX_TENSOR_ROLE_OUTPUT,
      GST_AX_TENSOR_DTYPE_I8, GST_AX_TENSOR_LAYOUT_NHWC, 3, dims_ok, 0.0f, 0,
      gst_buffer_new_allocate (NULL, 700, NULL));
  fail_if (gst_ax_nms_input_from_meta (m, GST_AX_NMS_DECODE_YOLOV8, &in, &err));
  fail_unless (strstr (err, "positive scale") != NULL, "%s", err);
  g_free (err);

  fail_unless (gst_ax_nms_input_from_meta (m, GST_AX_NMS_DECODE_YOLOV5, &in,
          &err) == FALSE);
  g_free (err);
  gst_buffer_unref (frame);
}

GST_END_TEST;

/* --- CenterNet and SSD against the reference --- */

static void
fail_unless_same_results (const GstAxNmsResult * res, guint n,
    const RefDet * ref, guint nr)
{
  guint i, q;

  fail_unless_equals_int (n, nr);
  for (i = 0; i < n; i++) {
    fail_unless (res[i].anchor == ref[i].anchor, "det %u: anchor %u vs %u",
        i, res[i].anchor, ref[i].anchor);
    fail_unless_equals_int (res[i].class_id, ref[i].cls);
    fail_unless (res[i].score == ref[i].score, "det %u: score %.9g vs %.9g",
        i, res[i].score, ref[i].score);
    fail_unless (res[i].x0 == ref[i].x0 && res[i].y0 == ref[i].y0
        && res[i].x1 == ref[i].x1 && res[i].y1 == ref[i].y1,
        "det %u: box %g,%g-%g,%g vs %g,%g-%g,%g", i, res[i].x0, res[i].y0,
        res[i].x1, res[i].y1, ref[i].x0, ref[i].y0, ref[i].x1, ref[i].y1);
    fail_unless_equals_int (res[i].n_keypoints, ref[i].n_kp);
    for (q = 0; q < 2 * ref[i].n_kp; q++)
      fail_unless (res[i].keypoints[q] == ref[i].kp[q], "det %u kp %u: %g vs "
          "%g", i, q, res[i].keypoints[q], ref[i].kp[q]);
  }
}

/* Stores real value @v at element @i of a tensor of @d's type. */
static void
store (const RefData * d, gpointer data, gsize i, gdouble v)
{
  if (d->dtype == GST_AX_TENSOR_DTYPE_F32) {
    ((gfloat *) data)[i] = v;
  } else {
    gint q = (gint) lrint (v / d->scale) + d->zp;
    if (d->dtype == GST_AX_TENSOR_DTYPE_I8)
      ((gint8 *) data)[i] = CLAMP (q, G_MININT8, G_MAXINT8);
    else
      ((guint8 *) data)[i] = CLAMP (q, 0, G_MAXUINT8);
  }
}

static const GstAxTensorDType all_dtypes[] = { GST_AX_TENSOR_DTYPE_I8,
  GST_AX_TENSOR_DTYPE_U8, GST_AX_TENSOR_DTYPE_F32
};

static void
random_quant (GRand * rng, RefData * d, GstAxTensorDType dtype, gdouble unit)
{
  d->dtype = dtype;
  d->scale = dtype == GST_AX_TENSOR_DTYPE_F32 ? 1.0f : unit *
      g_rand_double_range (rng, 0.5, 2.0);
  d->zp = dtype == GST_AX_TENSOR_DTYPE_I8 ? g_rand_int_range (rng, -128, 0)
      : dtype == GST_AX_TENSOR_DTYPE_U8 ? g_rand_int_range (rng, 0, 20) : 0;
}

GST_START_TEST (test_centernet_matches_reference)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GRand *rng = g_rand_new_with_seed (777);
  GstAxNmsResult *res = g_new (GstAxNmsResult, REF_MAX);
  RefDet *ref = g_new (RefDet, REF_MAX);
  guint iter, total = 0;

  for (iter = 0; iter < 300; iter++) {
    GstAxNmsParams p;
    GstAxNmsInput in[2];
    RefData hd, bd;
    guint H = g_rand_int_range (rng, 1, 24), W = g_rand_int_range (rng, 1, 24);
    guint nc = g_rand_int_range (rng, 1, 7), c, cell, n, nr;
    gsize nh = (gsize) H * W * nc;
    gpointer heat, wh;
    gdouble sparsity = g_rand_double_range (rng, 0.3, 0.999);
    gboolean plateau = g_rand_boolean (rng);

    random_quant (rng, &hd, all_dtypes[iter % 3], 1.0 / 250);
    random_quant (rng, &bd, all_dtypes[(iter / 3) % 3], 0.25);
    heat = g_malloc (nh * gst_ax_tensor_dtype_size (hd.dtype));
    wh = g_malloc ((gsize) H * W * 4 * gst_ax_tensor_dtype_size (bd.dtype));
    for (cell = 0; cell < H * W; cell++) {
      for (c = 0; c < nc; c++) {
        gdouble v = g_rand_double (rng) < sparsity ? 0.01 : g_rand_double (rng);
        /* coarse levels make ties between neighbours */
        if (plateau)
          v = floor (v * 4) / 4;
        store (&hd, heat, (gsize) cell * nc + c, v);
      }
      for (c = 0; c < 4; c++)
        store (&bd, wh, (gsize) cell * 4 + c, g_rand_double_range (rng, 0, 30));
    }
    hd.data = heat;
    bd.data = wh;

    gst_ax_nms_params_init (&p);
    p.kind = GST_AX_NMS_DECODE_CENTERNET;
    p.score_threshold = g_rand_double_range (rng, 0.0, 0.6);
    /* every level above the threshold, even the lowest byte */
    if (iter % 7 == 6 && hd.dtype != GST_AX_TENSOR_DTYPE_F32) {
      hd.zp = hd.dtype == GST_AX_TENSOR_DTYPE_I8 ? -200 : -70;
      p.score_threshold = 0.0f;
    }
    p.iou_threshold = g_rand_double_range (rng, 0.1, 0.7);
    /* small top-k: the candidate list is cut back while scanning */
    p.top_k = g_rand_int_range (rng, 1, 40);
    p.max_detections = g_rand_int_range (rng, 1, 60);
    p.class_agnostic = g_rand_boolean (rng);
    p.suppression = iter % 4 == 3 ? GST_AX_NMS_SUPPRESS_WEIGHTED :
        GST_AX_NMS_SUPPRESS_HARD;
    if (g_rand_boolean (rng))
      p.stride = g_rand_int_range (rng, 1, 9);
    else
      p.input_width = W * 4;

    in[0].data = heat;
    in[0].dtype = hd.dtype;
    in[0].scale = hd.scale;
    in[0].zero_point = hd.zp;
    in[0].n_anchors = H * W;
    in[0].n_classes = nc;
    in[0].height = H;
    in[0].width = W;
    in[1] = in[0];
    in[1].data = wh;
    in[1].dtype = bd.dtype;
    in[1].scale = bd.scale;
    in[1].zero_point = bd.zp;
    in[1].n_classes = 4;

    n = gst_ax_nms_run_multi (w, &p, in, 2, res, REF_MAX);
    nr = ref_centernet (&p, &hd, &bd, H, W, nc, ref);
    fail_unless_same_results (res, n, ref, nr);
    total += n;
    g_free (heat);
    g_free (wh);
  }
  fail_unless (total > 500, "only %u detections in all", total);
  g_free (res);
  g_free (ref);
  g_rand_free (rng);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

GST_START_TEST (test_ssd_matches_reference)
{
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GRand *rng = g_rand_new_with_seed (4242);
  GstAxNmsResult *res = g_new (GstAxNmsResult, REF_MAX);
  RefDet *ref = g_new (RefDet, REF_MAX);
  guint iter, total = 0;

  for (iter = 0; iter < 300; iter++) {
    GstAxNmsParams p;
    GstAxNmsInput in[GST_AX_NMS_MAX_INPUTS];
    RefData sd[4], bd[4];
    guint na[4], ncl[4], nv[4];
    gpointer data[8];
    guint l, k, t, a, c, n, nr, all = 0, nc, R;
    gboolean split;

    gst_ax_nms_params_init (&p);
    p.kind = GST_AX_NMS_DECODE_SSD;
    p.n_levels = g_rand_int_range (rng, 1, 4);
    p.input_width = g_rand_int_range (rng, 8, 97);
    p.input_height = g_rand_int_range (rng, 8, 97);
    for (l = 0; l < p.n_levels; l++) {
      p.strides[l] = 4 << g_rand_int_range (rng, 0, 3);
      p.anchors_per_cell[l] = g_rand_int_range (rng, 1, 4);
      all += ((p.input_width + p.strides[l] - 1) / p.strides[l]) *
          ((p.input_height + p.strides[l] - 1) / p.strides[l]) *
          p.anchors_per_cell[l];
    }
    p.anchor_offset = g_rand_boolean (rng) ? 0.5f : 0.25f;
    p.anchor_offset_y = g_rand_boolean (rng) ? 0.5f : 0.0f;
    p.n_keypoints = g_rand_int_range (rng, 0, 7);
    p.sigmoid_scores = g_rand_int_range (rng, 0, 4) != 0;
    p.score_threshold = g_rand_double_range (rng, 0.3, 0.8);
    p.iou_threshold = g_rand_double_range (rng, 0.1, 0.6);
    p.max_detections = g_rand_int_range (rng, 1, 50);
    p.class_agnostic = g_rand_boolean (rng);
    p.suppression = iter % 2 ? GST_AX_NMS_SUPPRESS_WEIGHTED :
        GST_AX_NMS_SUPPRESS_HARD;
    if (g_rand_boolean (rng)) {
      p.box_scale_x = 1.0f / p.input_width;
      p.box_scale_y = 1.0f / p.input_height;
    }
    nc = g_rand_int_range (rng, 1, 4);
    R = 4 + 2 * p.n_keypoints + g_rand_int_range (rng, 0, 2);

    /* one tensor pair for all anchors, or split in up to 3 */
    split = g_rand_boolean (rng);
    k = split ? MIN (3, all) : 1;
    for (t = 0, a = 0; t < k; t++) {
      na[t] = t == k - 1 ? all - a : (guint) g_rand_int_range (rng, 1,
          all - a - (k - 1 - t) + 1);
      a += na[t];
    }
    for (t = 0; t < k; t++) {
      random_quant (rng, &sd[t], all_dtypes[(iter + t) % 3],
          p.sigmoid_scores ? 1.0 / 20 : 1.0 / 250);
      random_quant (rng, &bd[t], all_dtypes[(iter / 3 + t) % 3], 0.25);
      ncl[t] = nc;
      nv[t] = R;
      data[t] = g_malloc ((gsize) na[t] * nc *
          gst_ax_tensor_dtype_size (sd[t].dtype));
      data[k + t] = g_malloc ((gsize) na[t] * R *
          gst_ax_tensor_dtype_size (bd[t].dtype));
      for (a = 0; a < na[t]; a++) {
        for (c = 0; c < nc; c++) {
          gdouble s = g_rand_double (rng) < 0.7 ? 0.05 : g_rand_double (rng);
          if (p.sigmoid_scores)
            s = log (s / (1 - s));
          store (&sd[t], data[t], (gsize) a * nc + c, s);
        }
        for (c = 0; c < R; c++)
          store (&bd[t], data[k + t], (gsize) a * R + c,
              c == 2 || c == 3 ? g_rand_double_range (rng, 2, 30) :
              g_rand_double_range (rng, -10, 10));
      }
      sd[t].data = data[t];
      bd[t].data = data[k + t];
      in[t].data = data[t];
      in[t].dtype = sd[t].dtype;
      in[t].scale = sd[t].scale;
      in[t].zero_point = sd[t].zp;
      in[t].n_anchors = na[t];
      in[t].n_classes = nc;
      in[t].height = in[t].width = 0;
      in[k + t] = in[t];
      in[k + t].data = data[k + t];
      in[k + t].dtype = bd[t].dtype;
      in[k + t].scale = bd[t].scale;
      in[k + t].zero_point = bd[t].zp;
      in[k + t].n_classes = R;
    }

    n = gst_ax_nms_run_multi (w, &p, in, 2 * k, res, REF_MAX);
    nr = ref_ssd (&p, sd, na, ncl, bd, nv, k, ref);
    fail_unless_same_results (res, n, ref, nr);
    total += n;
    for (t = 0; t < 2 * k; t++)
      g_free (data[t]);
  }
  fail_unless (total > 500, "only %u detections in all", total);
  g_free (res);
  g_free (ref);
  g_rand_free (rng);
  gst_ax_nms_work_free (w);
}

GST_END_TEST;

/* --- decoder metadata --- */

/* The table of decoders has a row at every kind, and the metadata's
 * "type" names each. Members of other decoders are ignored, so one
 * object (with SSD's anchors) reads as any of them. */
GST_START_TEST (test_decoder_table)
{
  GstAxNmsParams p;
  gchar *json, *err = NULL;
  gint k, j;

  for (k = 0; k < GST_AX_NMS_DECODE_N_KINDS; k++) {
    const gchar *name = gst_ax_nms_decode_kind_name (k);

    fail_unless (name != NULL, "no decoder at kind %d", k);
    fail_unless (gst_ax_nms_decode_kind_description (k) != NULL);
    for (j = 0; j < k; j++)
      fail_if (g_str_equal (name, gst_ax_nms_decode_kind_name (j)));
    gst_ax_nms_params_init (&p);
    json = g_strdup_printf ("{\"type\": \"%s\", \"anchors\": "
        "{\"strides\": [8], \"anchors_per_cell\": [2]}}", name);
    fail_unless (gst_ax_nms_params_from_json (&p, json, &err), "%s", err);
    fail_unless_equals_int (p.kind, k);
    g_free (json);
  }
  fail_unless (gst_ax_nms_decode_kind_name (GST_AX_NMS_DECODE_N_KINDS) == NULL);
}

GST_END_TEST;

GST_START_TEST (test_params_from_model_json)
{
  GstAxNmsParams p;
  gchar *json, *err = NULL;

  gst_ax_nms_params_init (&p);
  json = read_model_json ("centernet.decoder.json");
  fail_unless (gst_ax_nms_params_from_json (&p, json, &err), "%s", err);
  g_free (json);
  fail_unless_equals_int (p.kind, GST_AX_NMS_DECODE_CENTERNET);
  fail_unless_equals_int (p.input_width, 512);
  fail_unless_equals_int (p.input_height, 512);
  fail_unless_equals_int (p.stride, 4);
  fail_unless_equals_int (p.top_k, 100);
  fail_unless_equals_int (p.peak_kernel, 3);
  fail_unless_equals_float (p.score_threshold, 0.3f);
  fail_unless_equals_float (p.iou_threshold, 0.5f);
  fail_unless_equals_int (p.n_input_names, 2);
  fail_unless_equals_string (p.input_names[0], "tower_0/keypoints");
  fail_unless_equals_string (p.input_names[1], "tower_0/wh");

  gst_ax_nms_params_init (&p);
  json = read_model_json ("blazeface.decoder.json");
  fail_unless (gst_ax_nms_params_from_json (&p, json, &err), "%s", err);
  g_free (json);
  fail_unless_equals_int (p.kind, GST_AX_NMS_DECODE_SSD);
  fail_unless_equals_int (p.input_width, 256);
  /* MediaPipe's layers of one stride make one level: 896 anchors */
  fail_unless_equals_int (p.n_levels, 2);
  fail_unless_equals_int (p.strides[0], 16);
  fail_unless_equals_int (p.strides[1], 32);
  fail_unless_equals_int (p.anchors_per_cell[0], 2);
  fail_unless_equals_int (p.anchors_per_cell[1], 6);
  fail_unless_equals_float (p.anchor_offset, 0.5f);
  fail_unless_equals_float (p.anchor_offset_y, 0.5f);
  fail_unless_equals_int (p.n_keypoints, 6);
  fail_unless (p.sigmoid_scores);
  fail_unless_equals_int (p.suppression, GST_AX_NMS_SUPPRESS_WEIGHTED);
  fail_unless_equals_int (p.n_input_names, 4);
  fail_unless_equals_string (p.input_names[0], "Identity");
  fail_unless_equals_string (p.input_names[3], "Identity_3");
}

GST_END_TEST;

GST_START_TEST (test_params_json_forms)
{
  GstAxNmsParams p;
  gchar *err = NULL;

  /* the level form of the anchors, and fields kept when not named */
  gst_ax_nms_params_init (&p);
  p.max_detections = 7;
  fail_unless (gst_ax_nms_params_from_json (&p, "{\"type\": \"ssd\", "
          "\"input_size\": [128, 96], \"anchors\": {\"strides\": [8, 16], "
          "\"anchors_per_cell\": [2, 6], \"offset\": 0.25}}", &err), "%s", err);
  fail_unless_equals_int (p.n_levels, 2);
  fail_unless_equals_int (p.anchors_per_cell[1], 6);
  fail_unless_equals_float (p.anchor_offset, 0.25f);
  fail_unless_equals_float (p.anchor_offset_y, 0.25f);
  fail_unless_equals_int (p.input_height, 96);
  fail_unless_equals_int (p.max_detections, 7);
  fail_unless_equals_int (p.n_input_names, 0);

  /* MediaPipe's lowest layer of three boxes, no interpolated anchor */
  gst_ax_nms_params_init (&p);
  fail_unless (gst_ax_nms_params_from_json (&p, "{\"type\": \"ssd\", "
          "\"anchors\": {\"num_layers\": 3, \"strides\": [8, 16, 16], "
          "\"aspect_ratios\": [1.0, 2.0], \"interpolated_scale_aspect_ratio\":"
          " 0, \"reduce_boxes_in_lowest_layer\": true, \"fixed_anchor_size\": "
          "true, \"anchor_offset_x\": 0.5, \"anchor_offset_y\": 0.0, "
          "\"input_size_width\": 64, \"input_size_height\": 32}}", &err),
      "%s", err);
  fail_unless_equals_int (p.n_levels, 2);
  fail_unless_equals_int (p.anchors_per_cell[0], 3);
  fail_unless_equals_int (p.anchors_per_cell[1], 4);
  fail_unless_equals_float (p.anchor_offset_y, 0.0f);
  fail_unless_equals_int (p.input_width, 64);

  gst_ax_nms_params_init (&p);
  fail_unless (gst_ax_nms_params_from_json (&p, "{\"type\": \"yolov5\", "
          "\"box_format\": \"ltrb\", \"class_agnostic\": true, "
          "\"suppression\": \"weighted\", \"max_detections\": 5}", &err),
      "%s", err);
  fail_unless_equals_int (p.kind, GST_AX_NMS_DECODE_YOLOV5);
  fail_unless_equals_int (p.box_format, GST_AX_NMS_BOX_LTRB);
  fail_unless (p.class_agnostic);
  fail_unless_equals_int (p.max_detections, 5);
}

GST_END_TEST;

GST_START_TEST (test_params_json_malformed)
{
  static const struct
  {
    const gchar *json, *expect;
  } cases[] = {
    {"{\"type\": \"centernet\"", "invalid JSON"},
    {"[1, 2]", "not a JSON object"},
    {"{\"stride\": 4}", "no \"type\""},
    {"{\"type\": 3}", "\"type\" is not a string"},
    {"{\"type\": \"classification\"}", "\"classification\" is not a "
          "detector"},
    {"{\"type\": \"centernet\", \"score_threshold\": \"high\"}",
        "\"score_threshold\" is not a number"},
    {"{\"type\": \"centernet\", \"iou_threshold\": 1.5}",
        "\"iou_threshold\" is 1.5"},
    {"{\"type\": \"centernet\", \"peak_kernel\": 5}", "\"peak_kernel\" is 5"},
    {"{\"type\": \"centernet\", \"top_k\": 0}", "\"top_k\" is 0"},
    {"{\"type\": \"centernet\", \"stride\": 2.5}", "\"stride\" is not an "
          "integer"},
    {"{\"type\": \"centernet\", \"heatmap\": \"a\"}", "expected one each"},
    {"{\"type\": \"centernet\", \"input_size\": [512]}", "[width, height]"},
    {"{\"type\": \"ssd\"}", "no \"anchors\" object"},
    {"{\"type\": \"ssd\", \"anchors\": {}}", "no \"strides\""},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16, 32], "
          "\"anchors_per_cell\": [2]}}", "one per level"},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16], "
          "\"num_layers\": 2, \"fixed_anchor_size\": true}}",
        "one stride per layer"},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16]}}",
        "\"fixed_anchor_size\" is not true"},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16], "
          "\"fixed_anchor_size\": true, \"interpolated_scale_aspect_ratio\": "
          "0}}", "has no anchors"},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16], "
          "\"fixed_anchor_size\": true}, \"scores\": [\"a\", \"b\"], "
          "\"boxes\": \"c\"}", "as many of each"},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16], "
          "\"fixed_anchor_size\": true}, \"keypoints\": 17}",
        "\"keypoints\" is 17"},
    {"{\"type\": \"ssd\", \"anchors\": {\"strides\": [16], "
          "\"fixed_anchor_size\": true}, \"score_activation\": \"relu\"}",
        "\"sigmoid\" or \"none\""},
    {"{\"type\": \"yolov8\", \"suppression\": \"soft\"}",
        "\"hard\" or \"weighted\""},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstAxNmsParams p;
    gchar *err = NULL;

    gst_ax_nms_params_init (&p);
    fail_if (gst_ax_nms_params_from_json (&p, cases[i].json, &err), "%s",
        cases[i].json);
    fail_unless (err != NULL && strstr (err, cases[i].expect) != NULL,
        "%s: got '%s', expected '%s'", cases[i].json, err, cases[i].expect);
    g_free (err);
  }
}

GST_END_TEST;

GST_START_TEST (test_inputs_from_metas)
{
  GstBuffer *buf = gst_buffer_new ();
  const GstAxTensorMeta *metas[4];
  GstAxNmsInput in[GST_AX_NMS_MAX_INPUTS];
  GstAxNmsParams p;
  gchar *json, *err = NULL;
  guint n;
  static const gint64 s0[3] = { 1, 512, 1 }, s1[3] = { 1, 384, 1 };
  static const gint64 r0[3] = { 1, 512, 16 }, r1[3] = { 1, 384, 16 };
  static const gint64 hm[4] = { 1, 128, 128, 80 }, wh[4] = { 1, 128, 128, 4 };
  static const gint64 bad[4] = { 1, 64, 128, 4 };

  /* BlazeFace: 512 + 384 anchors in two levels */
  metas[0] = add_output (buf, "Identity", 0, GST_AX_TENSOR_DTYPE_I8, 3, s0,
      0.1f, 0, NULL);
  metas[1] = add_output (buf, "Identity_1", 1, GST_AX_TENSOR_DTYPE_I8, 3, s1,
      0.1f, 0, NULL);
  metas[2] = add_output (buf, "Identity_2", 2, GST_AX_TENSOR_DTYPE_I8, 3, r0,
      0.5f, 0, NULL);
  metas[3] = add_output (buf, "Identity_3", 3, GST_AX_TENSOR_DTYPE_I8, 3, r1,
      0.5f, 0, NULL);
  gst_ax_nms_params_init (&p);
  json = read_model_json ("blazeface.decoder.json");
  fail_unless (gst_ax_nms_params_from_json (&p, json, NULL));
  g_free (json);
  fail_unless (gst_ax_nms_inputs_from_metas (&p, metas, 4, in, &n, &err),
      "%s", err);
  fail_unless_equals_int (n, 4);
  fail_unless_equals_int (in[0].n_anchors + in[1].n_anchors, 896);
  fail_unless_equals_int (in[2].n_classes, 16);
  fail_unless_equals_int (in[3].meta_index, 3);
  /* by name, whatever the order of the metas */
  {
    const GstAxTensorMeta *rev[4] = { metas[3], metas[2], metas[1],
      metas[0]
    };
    fail_unless (gst_ax_nms_inputs_from_metas (&p, rev, 4, in, &n, &err),
        "%s", err);
    fail_unless_equals_int (in[0].meta_index, 3);
    fail_unless_equals_int (in[0].n_anchors, 512);
  }
  /* 896 anchors need a 256x256 input */
  p.input_width = 128;
  fail_if (gst_ax_nms_inputs_from_metas (&p, metas, 4, in, &n, &err));
  fail_unless (strstr (err, "896 anchors") != NULL, "%s", err);
  g_free (err);
  p.input_width = 256;
  /* a named output the model does not have */
  g_strlcpy (p.input_names[1], "scores_16", GST_AX_NMS_MAX_NAME);
  fail_if (gst_ax_nms_inputs_from_metas (&p, metas, 4, in, &n, &err));
  fail_unless (strstr (err, "no output 'scores_16'") != NULL
      && strstr (err, "'Identity_1'") != NULL, "%s", err);
  g_free (err);
  /* keypoints the regressors cannot hold */
  g_strlcpy (p.input_names[1], "Identity_1", GST_AX_NMS_MAX_NAME);
  p.n_keypoints = 7;
  fail_if (gst_ax_nms_inputs_from_metas (&p, metas, 4, in, &n, &err));
  fail_unless (strstr (err, "18 or more") != NULL, "%s", err);
  g_free (err);

  /* CenterNet */
  gst_buffer_unref (buf);
  buf = gst_buffer_new ();
  metas[0] = add_output (buf, "tower_0/keypoints", 0, GST_AX_TENSOR_DTYPE_I8,
      4, hm, 1.0f / 255, -128, NULL);
  metas[1] = add_output (buf, "tower_0/wh", 1, GST_AX_TENSOR_DTYPE_I8, 4, wh,
      1.0f, 0, NULL);
  metas[2] = add_output (buf, "other", 2, GST_AX_TENSOR_DTYPE_I8, 4, bad,
      1.0f, 0, NULL);
  gst_ax_nms_params_init (&p);
  json = read_model_json ("centernet.decoder.json");
  fail_unless (gst_ax_nms_params_from_json (&p, json, NULL));
  g_free (json);
  fail_unless (gst_ax_nms_inputs_from_metas (&p, metas, 3, in, &n, &err),
      "%s", err);
  fail_unless_equals_int (n, 2);
  fail_unless_equals_int (in[0].width, 128);
  fail_unless_equals_int (in[0].n_classes, 80);
  /* unnamed: the outputs in order; a box tensor of another grid */
  p.n_input_names = 0;
  metas[1] = metas[2];
  fail_if (gst_ax_nms_inputs_from_metas (&p, metas, 3, in, &n, &err));
  fail_unless (strstr (err, "expected [1, 128, 128, 4]") != NULL, "%s", err);
  g_free (err);
  /* no stride and an input size that does not give one */
  metas[1] = add_output (buf, "wh2", 1, GST_AX_TENSOR_DTYPE_I8, 4, wh, 1.0f,
      0, NULL);
  p.stride = 0;
  p.input_width = 500;
  fail_if (gst_ax_nms_inputs_from_metas (&p, metas, 2, in, &n, &err));
  fail_unless (strstr (err, "no stride") != NULL, "%s", err);
  g_free (err);
  p.input_width = 512;
  fail_unless (gst_ax_nms_inputs_from_metas (&p, metas, 2, in, &n, NULL));
  /* a planar heat-map (an NCHW model's output) is refused, not misread */
  ((GstAxTensorMeta *) metas[0])->layout = GST_AX_TENSOR_LAYOUT_NCHW;
  fail_if (gst_ax_nms_inputs_from_metas (&p, metas, 2, in, &n, &err));
  fail_unless (strstr (err, "is NCHW (planar)") != NULL
      && strstr (err, "tower_0/keypoints") != NULL, "%s", err);
  g_free (err);
  ((GstAxTensorMeta *) metas[0])->layout = GST_AX_TENSOR_LAYOUT_NHWC;
  /* a YOLO head is not a heat-map */
  p.kind = GST_AX_NMS_DECODE_YOLOV8;
  fail_unless (gst_ax_nms_inputs_from_metas (&p, metas, 2, in, &n, &err) ==
      FALSE);
  g_free (err);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* The real outputs of the ball model on videotestsrc pattern=ball: the
 * fast path and the reference agree on every frame, for several
 * settings. */
GST_START_TEST (test_ball_model_outputs)
{
  GstHarness *h = gst_harness_new_parse ("axletterbox ! "
      "axinference model=ball-detector");
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  guint i, total = 0;

  gst_harness_add_src_parse (h, "videotestsrc pattern=ball ! capsfilter "
      "caps=video/x-raw,format=RGB,width=320,height=240,framerate=30/1", FALSE);
  for (i = 0; i < 30; i++) {
    GstBuffer *out;
    GstAxTensorMeta *m;
    GstMapInfo map;
    GstAxNmsInput in;
    GstAxNmsParams p;
    RefTensor t;

    fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
    out = gst_harness_pull (h);
    m = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_OUTPUT, 0, 0);
    fail_unless (m != NULL);
    fail_unless (gst_ax_nms_input_from_meta (m, GST_AX_NMS_DECODE_YOLOV8,
            &in, NULL));
    fail_unless (gst_buffer_map (m->data, &map, GST_MAP_READ));
    t.kind = GST_AX_NMS_DECODE_YOLOV8;
    t.dtype = in.dtype;
    t.data = map.data;
    t.scale = in.scale;
    t.zp = in.zero_point;
    t.na = in.n_anchors;
    t.nc = in.n_classes;

    params_default (&p, t.kind);
    total += check_same (w, &p, &t);
    p.score_threshold = 0.0f;
    p.iou_threshold = 0.1f;
    check_same (w, &p, &t);
    p.class_agnostic = TRUE;
    p.box_format = GST_AX_NMS_BOX_LTRB;
    check_same (w, &p, &t);
    gst_buffer_unmap (m->data, &map);
    gst_buffer_unref (out);
  }
  /* the ball is found on (nearly) every frame */
  fail_unless (total >= 30, "%u detections on 30 frames", total);
  gst_ax_nms_work_free (w);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axnms_decode_suite (void)
{
  Suite *s = suite_create ("axnms-decode");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_random_matches_reference);
  tcase_add_test (tc, test_no_candidates);
  tcase_add_test (tc, test_all_above_threshold);
  tcase_add_test (tc, test_nan_inf);
  tcase_add_test (tc, test_identical_boxes);
  tcase_add_test (tc, test_zero_area_boxes);
  tcase_add_test (tc, test_invalid_tensors);
  tcase_add_test (tc, test_centernet_matches_reference);
  tcase_add_test (tc, test_ssd_matches_reference);
  tcase_add_test (tc, test_decoder_table);
  tcase_add_test (tc, test_params_from_model_json);
  tcase_add_test (tc, test_params_json_forms);
  tcase_add_test (tc, test_params_json_malformed);
  tcase_add_test (tc, test_inputs_from_metas);
  tcase_add_test (tc, test_ball_model_outputs);
  return s;
}

GST_CHECK_MAIN (axnms_decode);
