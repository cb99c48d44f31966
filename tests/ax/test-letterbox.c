/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <gst/ax/ax.h>
#include <math.h>

#define ROUND_TRIP_TOLERANCE_PX 1e-4

typedef struct
{
  gint sw, sh, tw, th;
  gint resized_w, resized_h, pad_left, pad_top, pad_right, pad_bottom;
} LetterboxCase;

/* Expected values worked out by hand from the Ultralytics rule. */
static const LetterboxCase cases[] = {
  {1920, 1080, 640, 640, 640, 360, 0, 140, 0, 140},
  {1919, 1079, 640, 640, 640, 360, 0, 140, 0, 140},
  {1079, 1919, 640, 640, 360, 640, 140, 0, 140, 0},
  {1280, 720, 640, 384, 640, 360, 0, 12, 0, 12},
  {100, 51, 64, 64, 64, 33, 0, 15, 0, 16},
  {51, 100, 64, 64, 33, 64, 15, 0, 16, 0},
  {1, 1, 640, 640, 640, 640, 0, 0, 0, 0},
  {1, 1, 3, 2, 2, 2, 0, 0, 1, 0},
  {640, 640, 640, 640, 640, 640, 0, 0, 0, 0},
};

GST_START_TEST (test_ultralytics_geometry)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const LetterboxCase *c = &cases[i];
    GstAxLetterbox lb;

    fail_unless (gst_ax_letterbox_init (&lb, c->sw, c->sh, c->tw, c->th,
            TRUE, TRUE, GST_AX_LETTERBOX_DEFAULT_FILL));
    GST_INFO ("case %u: %dx%d -> %dx%d", i, c->sw, c->sh, c->tw, c->th);
    fail_unless_equals_int (lb.resized_width, c->resized_w);
    fail_unless_equals_int (lb.resized_height, c->resized_h);
    fail_unless_equals_int (lb.pad_x, c->pad_left);
    fail_unless_equals_int (lb.pad_y, c->pad_top);
    fail_unless_equals_int (lb.tensor_width - lb.resized_width - lb.pad_x,
        c->pad_right);
    fail_unless_equals_int (lb.tensor_height - lb.resized_height - lb.pad_y,
        c->pad_bottom);
    fail_unless_equals_int (lb.fill, 114);
  }
}

GST_END_TEST;

GST_START_TEST (test_no_scale_up_and_top_left)
{
  GstAxLetterbox lb;

  fail_unless (gst_ax_letterbox_init (&lb, 320, 240, 640, 640, TRUE, FALSE, 0));
  fail_unless_equals_float (lb.scale, 1.0);
  fail_unless_equals_int (lb.resized_width, 320);
  fail_unless_equals_int (lb.pad_x, 160);
  fail_unless_equals_int (lb.pad_y, 200);

  fail_unless (gst_ax_letterbox_init (&lb, 1920, 1080, 640, 640, FALSE, TRUE,
          0));
  fail_unless_equals_int (lb.pad_x, 0);
  fail_unless_equals_int (lb.pad_y, 0);
  fail_unless_equals_int (lb.resized_height, 360);

  fail_if (gst_ax_letterbox_init (&lb, 0, 10, 640, 640, TRUE, TRUE, 0));
  fail_if (gst_ax_letterbox_init (&lb, 10, 10, 640, -1, TRUE, TRUE, 0));
}

GST_END_TEST;

static void
check_round_trip (const GstAxLetterbox * lb)
{
  static const gdouble fractions[] = { 0.0, 0.013, 0.25, 0.5, 0.731, 1.0 };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (fractions); i++) {
    for (j = 0; j < G_N_ELEMENTS (fractions); j++) {
      gdouble sx = lb->src_x + fractions[i] * lb->src_width;
      gdouble sy = lb->src_y + fractions[j] * lb->src_height;
      gdouble tx, ty, bx, by;
      gdouble box[4] = { sx, sy, sx + 3.5, sy + 1.25 }, tbox[4], back[4];
      guint k;

      gst_ax_letterbox_to_tensor (lb, sx, sy, &tx, &ty);
      gst_ax_letterbox_to_source (lb, tx, ty, &bx, &by);
      fail_unless (fabs (bx - sx) < ROUND_TRIP_TOLERANCE_PX,
          "x %f -> %f -> %f", sx, tx, bx);
      fail_unless (fabs (by - sy) < ROUND_TRIP_TOLERANCE_PX,
          "y %f -> %f -> %f", sy, ty, by);
      /* points of the source map inside the content area */
      fail_unless (tx >= lb->pad_x - ROUND_TRIP_TOLERANCE_PX);
      fail_unless (ty >= lb->pad_y - ROUND_TRIP_TOLERANCE_PX);
      fail_unless (tx <= lb->pad_x + lb->src_width * lb->scale + 1e-6);

      gst_ax_letterbox_box_to_tensor (lb, box, tbox);
      gst_ax_letterbox_box_to_source (lb, tbox, back, 0, 0);
      for (k = 0; k < 4; k++)
        fail_unless (fabs (back[k] - box[k]) < ROUND_TRIP_TOLERANCE_PX);
    }
  }
}

GST_START_TEST (test_round_trips)
{
  static const gint sizes[][2] = {
    {1, 1}, {1919, 1079}, {1079, 1919}, {1920, 1080}, {3, 1000}, {1000, 3},
    {641, 479}, {17, 13},
  };
  static const gint tensors[][2] = { {640, 640}, {320, 192}, {63, 65} };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    for (j = 0; j < G_N_ELEMENTS (tensors); j++) {
      GstAxLetterbox lb;

      fail_unless (gst_ax_letterbox_init (&lb, sizes[i][0], sizes[i][1],
              tensors[j][0], tensors[j][1], TRUE, TRUE, 114));
      check_round_trip (&lb);
      /* the same through a crop of a larger frame */
      lb.src_x = 37;
      lb.src_y = 11;
      check_round_trip (&lb);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_box_clamp)
{
  GstAxLetterbox lb;
  const gdouble tbox[4] = { -5.0, 100.0, 700.0, 400.0 };
  const gdouble tbox2[4] = { 10.0, 150.0, 20.0, 400.0 };
  gdouble sbox[4];

  fail_unless (gst_ax_letterbox_init (&lb, 1920, 1080, 640, 640, TRUE, TRUE,
          114));
  gst_ax_letterbox_box_to_source (&lb, tbox, sbox, 1920, 1080);
  fail_unless_equals_float (sbox[0], 0.0);
  fail_unless_equals_float (sbox[1], 0.0);
  fail_unless_equals_float (sbox[2], 1920.0);
  fail_unless (fabs (sbox[3] - (400.0 - 140.0) * 3.0) < 1e-9);
  gst_ax_letterbox_box_to_source (&lb, tbox2, sbox, 1920, 1080);
  fail_unless (fabs (sbox[0] - 30.0) < 1e-9);
  fail_unless (fabs (sbox[1] - 30.0) < 1e-9);
}

GST_END_TEST;

static Suite *
letterbox_suite (void)
{
  Suite *s = suite_create ("ax-letterbox");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ultralytics_geometry);
  tcase_add_test (tc, test_no_scale_up_and_top_left);
  tcase_add_test (tc, test_round_trips);
  tcase_add_test (tc, test_box_clamp);
  return s;
}

GST_CHECK_MAIN (letterbox);
