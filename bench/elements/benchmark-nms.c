/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Decode + NMS of a YOLOv8n-640 head, [1, 84, 8400] int8 with scale 1/255
 * and zero point -128, against the literal reference (float decode of
 * every value, qsort, O(n^2) NMS) in the same run.
 *
 * Synthetic tensor, fixed seed: background scores sigmoid(N(-8, 1.5)) for
 * every class and anchor (dense variant: N(-6, 1.5)); 20 objects, each on
 * 10 to 40 neighbouring anchors of one grid level scoring U(0.30, 0.95) for
 * its class, with boxes jittered by about 4% around the object. Boxes are
 * normalised (0..1) so that they share the scores' quantisation. */

#include <glib.h>
#include <gst/gst.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gstaxnmsdecode.h"
#include "axnmsreference.h"
#include "axnmsreal.h"

#define N_CLASSES 80
#define N_ANCHORS 8400
#define N_ROWS (4 + N_CLASSES)
#define INPUT_SIZE 640
#define SCALE (1.0f / 255)
#define ZERO_POINT (-128)
#define N_OBJECTS 20
#define MIN_OBJ_ANCHORS 10
#define MAX_OBJ_ANCHORS 40
#define OBJ_SCORE_MIN 0.30
#define OBJ_SCORE_MAX 0.95
#define JITTER 0.04
#define BG_MEAN_SPARSE (-8.0)
#define BG_MEAN_DENSE (-6.0)
#define BG_STDDEV 1.5
#define SEED 20260101
#define FAST_ITERS 2000
#define REF_ITERS 30
#define MAX_RESULTS 300
#define TARGET_MEDIAN_MS 0.1
#define TARGET_RATIO 10.0

/* YOLOv8 strides 8, 16, 32 at 640: 80x80, 40x40, 20x20 anchors */
static const guint grid_sizes[] = { 80, 40, 20 };

static gdouble
gauss (GRand * r)
{
  gdouble u1 = g_rand_double_range (r, 1e-12, 1.0), u2 = g_rand_double (r);

  return sqrt (-2.0 * log (u1)) * cos (2.0 * G_PI * u2);
}

static gint8
quant (gdouble v)
{
  gdouble q = nearbyint (v / SCALE) + ZERO_POINT;

  return (gint8) CLAMP (q, G_MININT8, G_MAXINT8);
}

static void
fill_tensor (gint8 * t, gdouble bg_mean, GRand * r)
{
  guint a, c, g, o, base = 0;

  /* background boxes: a small box on each anchor's cell */
  for (g = 0; g < G_N_ELEMENTS (grid_sizes); g++) {
    guint n = grid_sizes[g];
    for (a = 0; a < n * n; a++) {
      guint k = base + a;
      t[0 * N_ANCHORS + k] = quant ((a % n + 0.5) / n);
      t[1 * N_ANCHORS + k] = quant ((a / n + 0.5) / n);
      t[2 * N_ANCHORS + k] = quant (g_rand_double_range (r, 0.5, 3.0) / n);
      t[3 * N_ANCHORS + k] = quant (g_rand_double_range (r, 0.5, 3.0) / n);
    }
    base += n * n;
  }
  for (c = 0; c < N_CLASSES; c++)
    for (a = 0; a < N_ANCHORS; a++) {
      gdouble x = bg_mean + BG_STDDEV * gauss (r);
      t[(4 + c) * N_ANCHORS + a] = quant (1.0 / (1.0 + exp (-x)));
    }

  for (o = 0; o < N_OBJECTS; o++) {
    guint cls = g_rand_int_range (r, 0, N_CLASSES);
    guint level = g_rand_int_range (r, 0, G_N_ELEMENTS (grid_sizes));
    guint n = grid_sizes[level], off = 0, k, count, side;
    gdouble w = g_rand_double_range (r, 0.05, 0.4);
    gdouble h = g_rand_double_range (r, 0.05, 0.4);
    gdouble cx = g_rand_double_range (r, w / 2, 1 - w / 2);
    gdouble cy = g_rand_double_range (r, h / 2, 1 - h / 2);
    gint gx = (gint) (cx * n), gy = (gint) (cy * n);

    for (g = 0; g < level; g++)
      off += grid_sizes[g] * grid_sizes[g];
    count = g_rand_int_range (r, MIN_OBJ_ANCHORS, MAX_OBJ_ANCHORS + 1);
    side = (guint) ceil (sqrt (count));
    for (k = 0; k < count; k++) {
      gint ax = CLAMP (gx - (gint) side / 2 + (gint) (k % side), 0,
          (gint) n - 1);
      gint ay = CLAMP (gy - (gint) side / 2 + (gint) (k / side), 0,
          (gint) n - 1);
      guint idx = off + ay * n + ax;

      t[0 * N_ANCHORS + idx] = quant (cx + w * g_rand_double_range (r,
              -JITTER, JITTER));
      t[1 * N_ANCHORS + idx] = quant (cy + h * g_rand_double_range (r,
              -JITTER, JITTER));
      t[2 * N_ANCHORS + idx] = quant (w * (1 + g_rand_double_range (r,
                  -JITTER, JITTER)));
      t[3 * N_ANCHORS + idx] = quant (h * (1 + g_rand_double_range (r,
                  -JITTER, JITTER)));
      t[(4 + cls) * N_ANCHORS + idx] = quant (g_rand_double_range (r,
              OBJ_SCORE_MIN, OBJ_SCORE_MAX));
    }
  }
}

static int
cmp_double (const void *a, const void *b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;

  return x < y ? -1 : x > y;
}

static gdouble
median (gdouble * v, guint n)
{
  qsort (v, n, sizeof (gdouble), cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static guint
count_candidates (const gint8 * t, gfloat thr)
{
  guint a, c, n = 0;

  for (a = 0; a < N_ANCHORS; a++) {
    gfloat best = -1;
    for (c = 0; c < N_CLASSES; c++)
      best = MAX (best, SCALE * (gfloat) (t[(4 + c) * N_ANCHORS + a] -
              ZERO_POINT));
    n += best > thr;
  }
  return n;
}

static gboolean
run_case (const gchar * name, gdouble bg_mean, gboolean check_targets)
{
  GRand *r = g_rand_new_with_seed (SEED);
  gint8 *t = g_new (gint8, (gsize) N_ROWS * N_ANCHORS);
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GstAxNmsResult res[MAX_RESULTS];
  RefDet *ref = g_new (RefDet, MAX_RESULTS);
  gdouble *fast_ms = g_new (gdouble, FAST_ITERS);
  gdouble *ref_ms = g_new (gdouble, REF_ITERS);
  GstAxNmsParams p;
  GstAxNmsInput in = { NULL, GST_AX_TENSOR_DTYPE_I8, SCALE, ZERO_POINT,
    N_ANCHORS, N_CLASSES, 0, 0, 0
  };
  RefTensor rt = { GST_AX_NMS_DECODE_YOLOV8, GST_AX_TENSOR_DTYPE_I8, NULL,
    SCALE, ZERO_POINT, N_ANCHORS, N_CLASSES
  };
  guint i, n = 0, nr = 0;
  gdouble fm, rm;
  gboolean ok = TRUE, same;

  gst_ax_nms_params_init (&p);
  p.box_scale_x = INPUT_SIZE;
  p.box_scale_y = INPUT_SIZE;
  p.max_detections = MAX_RESULTS;
  fill_tensor (t, bg_mean, r);
  in.data = t;
  rt.data = t;

  for (i = 0; i < FAST_ITERS; i++) {
    gint64 t0 = g_get_monotonic_time ();
    gint64 t1;

    n = gst_ax_nms_run (w, &p, &in, res, MAX_RESULTS);
    t1 = g_get_monotonic_time ();
    fast_ms[i] = (t1 - t0) / 1000.0;
  }
  for (i = 0; i < REF_ITERS; i++) {
    gint64 t0 = g_get_monotonic_time ();
    gint64 t1;

    nr = ref_run (&p, &rt, ref);
    t1 = g_get_monotonic_time ();
    ref_ms[i] = (t1 - t0) / 1000.0;
  }
  same = n == nr;
  for (i = 0; same && i < n; i++)
    same = res[i].anchor == ref[i].anchor && res[i].x0 == ref[i].x0
        && res[i].score == ref[i].score;

  fm = median (fast_ms, FAST_ITERS);
  rm = median (ref_ms, REF_ITERS);
  printf ("nms %-6s [1,%d,%d] int8: %u candidates, %u detections, "
      "results %s\n", name, N_ROWS, N_ANCHORS, count_candidates (t,
          p.score_threshold), n, same ? "identical to reference" :
      "DIFFER FROM REFERENCE");
  printf ("nms %-6s axnms decode+NMS median %.4f ms (target <= %.1f ms); "
      "reference (float decode, qsort, O(n^2) NMS) median %.3f ms; "
      "speed-up %.1fx (target >= %.0fx)\n", name, fm, TARGET_MEDIAN_MS, rm,
      rm / fm, TARGET_RATIO);
  if (!same)
    ok = FALSE;
  if (check_targets && (fm > TARGET_MEDIAN_MS || rm / fm < TARGET_RATIO))
    printf ("nms %-6s: target missed\n", name);

  g_free (fast_ms);
  g_free (ref_ms);
  g_free (ref);
  gst_ax_nms_work_free (w);
  g_free (t);
  g_rand_free (r);
  return ok;
}

/* ------------------------------------------------------------------ */
/* CenterNet-COCO: heat-map [1, 128, 128, 80] int8 and distances
 * [1, 128, 128, 4], from the real model on a vtest.avi frame when the
 * data is there, else synthetic with the same sparsity: a background of
 * near-zero scores and a dozen objects, each a Gaussian bump of its class
 * peaking at U(0.3, 0.9). */

#define CN_H 128
#define CN_W 128
#define CN_C 80
#define CN_STRIDE 4
#define CN_HEAT_SCALE (1.0f / 255)
#define CN_HEAT_ZP (-128)
#define CN_WH_SCALE 0.5f
#define CN_WH_ZP (-128)
#define CN_OBJECTS 12
#define CN_BG_MAX 0.02
#define CN_SIGMA_MIN 1.0
#define CN_SIGMA_MAX 3.0
#define CN_FAST_ITERS 400
#define CN_REF_ITERS 10
#define CN_TARGET_MS 0.3
#define CN_FRAME 100
#define SSD_FAST_ITERS 4000
#define SSD_REF_ITERS 200

static gint8
quant_with (gdouble v, gfloat scale, gint zp)
{
  gdouble q = nearbyint (v / scale) + zp;

  return (gint8) CLAMP (q, G_MININT8, G_MAXINT8);
}

static void
centernet_synthetic (gint8 * heat, gint8 * wh, GRand * r)
{
  guint i, o;

  for (i = 0; i < CN_H * CN_W * CN_C; i++)
    heat[i] = quant_with (g_rand_double_range (r, 0, CN_BG_MAX),
        CN_HEAT_SCALE, CN_HEAT_ZP);
  for (i = 0; i < CN_H * CN_W * 4; i++)
    wh[i] = quant_with (g_rand_double_range (r, 2, 60), CN_WH_SCALE, CN_WH_ZP);
  for (o = 0; o < CN_OBJECTS; o++) {
    guint c = g_rand_int_range (r, 0, CN_C);
    gdouble cx = g_rand_double_range (r, 0, CN_W);
    gdouble cy = g_rand_double_range (r, 0, CN_H);
    gdouble sg = g_rand_double_range (r, CN_SIGMA_MIN, CN_SIGMA_MAX);
    gdouble peak = g_rand_double_range (r, 0.3, 0.9);
    gint x, y;

    for (y = 0; y < CN_H; y++)
      for (x = 0; x < CN_W; x++) {
        gdouble d2 = (x - cx) * (x - cx) + (y - cy) * (y - cy);
        gdouble v = peak * exp (-d2 / (2 * sg * sg));
        gsize k = ((gsize) y * CN_W + x) * CN_C + c;
        gint8 q = quant_with (v, CN_HEAT_SCALE, CN_HEAT_ZP);
        if (q > heat[k])
          heat[k] = q;
      }
  }
}

/* The real outputs, or FALSE. */
static gboolean
centernet_real (GstBuffer ** frame, GstAxNmsInput * in, GstMapInfo * maps)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *path, *json = NULL;
  GstSample *sample;
  GstBuffer *out;
  const GstAxTensorMeta *metas[2];
  GstAxNmsParams p;
  guint n, i;

  if (data == NULL)
    return FALSE;
  path = g_build_filename (data, "opencv", "vtest.avi", NULL);
  sample = real_load_rgb_frame (path, CN_FRAME);
  g_free (path);
  if (sample == NULL)
    return FALSE;
  out = real_model_outputs ("centernet-coco", sample);
  gst_sample_unref (sample);
  if (out == NULL)
    return FALSE;
  metas[0] = gst_buffer_get_ax_tensor_meta_by_name (out, "tower_0/keypoints");
  metas[1] = gst_buffer_get_ax_tensor_meta_by_name (out, "tower_0/wh");
  gst_ax_nms_params_init (&p);
  p.kind = GST_AX_NMS_DECODE_CENTERNET;
  p.stride = CN_STRIDE;
  if (metas[0] == NULL || metas[1] == NULL
      || !gst_ax_nms_inputs_from_metas (&p, metas, 2, in, &n, NULL)) {
    gst_buffer_unref (out);
    return FALSE;
  }
  for (i = 0; i < 2; i++) {
    gst_buffer_map (metas[i]->data, &maps[i], GST_MAP_READ);
    in[i].data = maps[i].data;
  }
  g_free (json);
  *frame = out;
  return TRUE;
}

static gboolean
same_results (const GstAxNmsResult * res, guint n, const RefDet * ref, guint nr)
{
  guint i, q;

  if (n != nr)
    return FALSE;
  for (i = 0; i < n; i++) {
    if (res[i].anchor != ref[i].anchor || res[i].class_id != ref[i].cls
        || res[i].score != ref[i].score || res[i].x0 != ref[i].x0
        || res[i].y0 != ref[i].y0 || res[i].x1 != ref[i].x1
        || res[i].y1 != ref[i].y1 || res[i].n_keypoints != ref[i].n_kp)
      return FALSE;
    for (q = 0; q < 2 * ref[i].n_kp; q++)
      if (res[i].keypoints[q] != ref[i].kp[q])
        return FALSE;
  }
  return TRUE;
}

static gdouble
min_of (const gdouble * v, guint n)
{
  gdouble m = v[0];
  guint i;

  for (i = 1; i < n; i++)
    m = MIN (m, v[i]);
  return m;
}

static gboolean
run_centernet (gboolean real)
{
  GRand *r = g_rand_new_with_seed (SEED);
  gint8 *heat = NULL, *wh = NULL;
  GstAxNmsInput in[2];
  GstMapInfo maps[2];
  GstBuffer *frame = NULL;
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GstAxNmsResult res[MAX_RESULTS];
  RefDet *ref = g_new (RefDet, MAX_RESULTS);
  gdouble *fast_ms = g_new (gdouble, CN_FAST_ITERS);
  gdouble *ref_ms = g_new (gdouble, CN_REF_ITERS);
  GstAxNmsParams p;
  RefData hd, bd;
  const gchar *source;
  guint i, n = 0, nr = 0, above = 0;
  gdouble fm, rm, fbest;
  gboolean same;

  if (real && !centernet_real (&frame, in, maps)) {
    printf ("centernet: no data dir or model; real case skipped\n");
    g_rand_free (r);
    g_free (fast_ms);
    g_free (ref_ms);
    g_free (ref);
    gst_ax_nms_work_free (w);
    return TRUE;
  }
  if (real) {
    source = in[0].dtype == GST_AX_TENSOR_DTYPE_F32 ? "real (centernet-coco "
        "on vtest.avi frame 100; the model's heat-map is float: its last "
        "layers run in the host postamble)" : "real (centernet-coco on "
        "vtest.avi frame 100; its host postamble quantises the heat-map)";
  } else {
    source = "synthetic (background U(0, 0.02), 12 Gaussian objects)";
    heat = g_new (gint8, (gsize) CN_H * CN_W * CN_C);
    wh = g_new (gint8, (gsize) CN_H * CN_W * 4);
    centernet_synthetic (heat, wh, r);
    in[0] = (GstAxNmsInput) {
    heat, GST_AX_TENSOR_DTYPE_I8, CN_HEAT_SCALE, CN_HEAT_ZP, CN_H * CN_W,
          CN_C, CN_H, CN_W, 0};
    in[1] = in[0];
    in[1].data = wh;
    in[1].scale = CN_WH_SCALE;
    in[1].zero_point = CN_WH_ZP;
    in[1].n_classes = 4;
  }
  gst_ax_nms_params_init (&p);
  p.kind = GST_AX_NMS_DECODE_CENTERNET;
  p.stride = CN_STRIDE;
  p.top_k = 100;
  p.score_threshold = 0.3f;
  p.iou_threshold = 0.5f;
  hd = (RefData) {
  in[0].dtype, in[0].data, in[0].scale, in[0].zero_point};
  bd = (RefData) {
  in[1].dtype, in[1].data, in[1].scale, in[1].zero_point};

  for (i = 0; i < CN_FAST_ITERS; i++) {
    gint64 t0 = g_get_monotonic_time ();
    n = gst_ax_nms_run_multi (w, &p, in, 2, res, MAX_RESULTS);
    fast_ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
  }
  for (i = 0; i < CN_REF_ITERS; i++) {
    gint64 t0 = g_get_monotonic_time ();
    nr = ref_centernet (&p, &hd, &bd, in[0].height, in[0].width,
        in[0].n_classes, ref);
    ref_ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
  }
  same = same_results (res, n, ref, nr);
  for (i = 0; i < in[0].n_anchors * in[0].n_classes; i++)
    above += ref_at (&hd, i) > p.score_threshold;
  fm = median (fast_ms, CN_FAST_ITERS);
  fbest = min_of (fast_ms, CN_FAST_ITERS);
  rm = median (ref_ms, CN_REF_ITERS);
  printf ("centernet [1,%u,%u,%u] %s heat-map, %s: %u values above %.2f, "
      "%u detections, results %s\n", in[0].height, in[0].width,
      in[0].n_classes, gst_ax_tensor_dtype_to_string (in[0].dtype), source,
      above, p.score_threshold, n, same ? "identical to reference" :
      "DIFFER FROM REFERENCE");
  printf ("centernet axnms decode+top-k+NMS median %.4f ms, best %.4f ms "
      "(target <= %.1f ms on one core); reference (float decode and 3x3 "
      "test of every value, qsort, O(n^2) NMS) median %.3f ms; speed-up "
      "%.1fx\n", fm, fbest, CN_TARGET_MS, rm, rm / fm);
  if (fm > CN_TARGET_MS)
    printf ("centernet: target missed\n");

  if (frame) {
    gst_buffer_unmap (gst_buffer_get_ax_tensor_meta_by_name (frame,
            "tower_0/keypoints")->data, &maps[0]);
    gst_buffer_unmap (gst_buffer_get_ax_tensor_meta_by_name (frame,
            "tower_0/wh")->data, &maps[1]);
    gst_buffer_unref (frame);
  }
  g_free (heat);
  g_free (wh);
  g_free (fast_ms);
  g_free (ref_ms);
  g_free (ref);
  gst_ax_nms_work_free (w);
  g_rand_free (r);
  return same;
}

/* BlazeFace: 896 anchors in two levels (512 at stride 16, 384 at 32),
 * int8 score logits and 16 regressors per anchor; two faces per level,
 * each on 8 consecutive anchors whose regressors agree to 2 px, weighted
 * NMS as MediaPipe runs it. */
#define SSD_SCORE_SCALE 0.1f
#define SSD_REG_SCALE 0.5f
#define SSD_FACES 2

static gboolean
run_ssd (void)
{
  static const guint na[2] = { 512, 384 };
  GRand *r = g_rand_new_with_seed (SEED);
  gint8 *sc[2], *rg[2];
  GstAxNmsInput in[4];
  RefData sd[2], bd[2];
  guint ncl[2] = { 1, 1 }, nv[2] = { 16, 16 };
  GstAxNmsWork *w = gst_ax_nms_work_new ();
  GstAxNmsResult res[MAX_RESULTS];
  RefDet *ref = g_new (RefDet, MAX_RESULTS);
  gdouble *fast_ms = g_new (gdouble, SSD_FAST_ITERS);
  gdouble *ref_ms = g_new (gdouble, SSD_REF_ITERS);
  GstAxNmsParams p;
  gchar *err = NULL;
  guint i, l, f, n = 0, nr = 0;
  gdouble fm, rm;
  gboolean same;

  gst_ax_nms_params_init (&p);
  if (!gst_ax_nms_params_from_json (&p, "{\"type\": \"ssd\", \"input_size\":"
          " [256, 256], \"anchors\": {\"num_layers\": 4, \"strides\": [16, "
          "32, 32, 32], \"aspect_ratios\": [1.0], \"fixed_anchor_size\": "
          "true}, \"keypoints\": 6, \"suppression\": \"weighted\", "
          "\"score_threshold\": 0.5, \"iou_threshold\": 0.3}", &err))
    g_error ("%s", err);
  for (l = 0; l < 2; l++) {
    sc[l] = g_new (gint8, na[l]);
    rg[l] = g_new (gint8, na[l] * 16);
    for (i = 0; i < na[l]; i++)
      sc[l][i] = quant_with (g_rand_double_range (r, -8, -2),
          SSD_SCORE_SCALE, 0);
    for (i = 0; i < na[l] * 16; i++)
      rg[l][i] = quant_with (g_rand_double_range (r, -20, 20),
          SSD_REG_SCALE, 0);
    for (f = 0; f < SSD_FACES; f++) {
      guint a0 = g_rand_int_range (r, 0, na[l] - 8);
      guint q;

      /* neighbouring anchors agree on a face about 40 px across */
      for (i = a0; i < a0 + 8; i++) {
        sc[l][i] = quant_with (g_rand_double_range (r, 0.5, 4),
            SSD_SCORE_SCALE, 0);
        for (q = 0; q < 16; q++)
          rg[l][i * 16 + q] = quant_with ((q == 2 || q == 3 ? 40 : 0) +
              g_rand_double_range (r, -2, 2), SSD_REG_SCALE, 0);
      }
    }
    in[l] = (GstAxNmsInput) {
    sc[l], GST_AX_TENSOR_DTYPE_I8, SSD_SCORE_SCALE, 0, na[l], 1, 0, 0, 0};
    in[2 + l] = (GstAxNmsInput) {
    rg[l], GST_AX_TENSOR_DTYPE_I8, SSD_REG_SCALE, 0, na[l], 16, 0, 0, 0};
    sd[l] = (RefData) {
    GST_AX_TENSOR_DTYPE_I8, sc[l], SSD_SCORE_SCALE, 0};
    bd[l] = (RefData) {
    GST_AX_TENSOR_DTYPE_I8, rg[l], SSD_REG_SCALE, 0};
  }
  for (i = 0; i < SSD_FAST_ITERS; i++) {
    gint64 t0 = g_get_monotonic_time ();
    n = gst_ax_nms_run_multi (w, &p, in, 4, res, MAX_RESULTS);
    fast_ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
  }
  for (i = 0; i < SSD_REF_ITERS; i++) {
    gint64 t0 = g_get_monotonic_time ();
    nr = ref_ssd (&p, sd, na, ncl, bd, nv, 2, ref);
    ref_ms[i] = (g_get_monotonic_time () - t0) / 1000.0;
  }
  same = same_results (res, n, ref, nr);
  fm = median (fast_ms, SSD_FAST_ITERS);
  rm = median (ref_ms, SSD_REF_ITERS);
  printf ("ssd BlazeFace 896 anchors int8, 6 keypoints, weighted NMS: %u "
      "detections, results %s\n", n, same ? "identical to reference" :
      "DIFFER FROM REFERENCE");
  printf ("ssd axnms decode+NMS median %.4f ms; reference (anchors, "
      "sigmoid of every logit, qsort, MediaPipe's weighted NMS as written) "
      "median %.4f ms; speed-up %.1fx\n", fm, rm, rm / fm);
  for (l = 0; l < 2; l++) {
    g_free (sc[l]);
    g_free (rg[l]);
  }
  g_free (fast_ms);
  g_free (ref_ms);
  g_free (ref);
  gst_ax_nms_work_free (w);
  g_rand_free (r);
  return same;
}

int
main (int argc, char **argv)
{
  gboolean ok = TRUE;

  gst_init (&argc, &argv);
  ok &= run_case ("sparse", BG_MEAN_SPARSE, TRUE);
  ok &= run_case ("dense", BG_MEAN_DENSE, FALSE);
  ok &= run_centernet (FALSE);
  ok &= run_centernet (TRUE);
  ok &= run_ssd ();
  return ok ? 0 : 1;
}
