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
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gstaxnmsdecode.h"
#include "gstaxnmsreference.h"

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
  GstAxNmsParams p = { GST_AX_NMS_DECODE_YOLOV8, GST_AX_NMS_BOX_XYWH,
    0.25f, 0.45f, MAX_RESULTS, FALSE, INPUT_SIZE, INPUT_SIZE
  };
  GstAxNmsInput in = { NULL, GST_AX_TENSOR_DTYPE_I8, SCALE, ZERO_POINT,
    N_ANCHORS, N_CLASSES
  };
  RefTensor rt = { GST_AX_NMS_DECODE_YOLOV8, GST_AX_TENSOR_DTYPE_I8, NULL,
    SCALE, ZERO_POINT, N_ANCHORS, N_CLASSES
  };
  guint i, n = 0, nr = 0;
  gdouble fm, rm;
  gboolean ok = TRUE, same;

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

int
main (int argc, char **argv)
{
  gboolean ok = TRUE;

  ok &= run_case ("sparse", BG_MEAN_SPARSE, TRUE);
  ok &= run_case ("dense", BG_MEAN_DENSE, FALSE);
  return ok ? 0 : 1;
}
