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

GST_START_TEST (test_add_and_iterate)
{
  GstBuffer *frame = gst_buffer_new ();
  GstAxDetection in[3] = {
    {0, 0.9f, 0.10f, 0.20f, 0.30f, 0.40f, "ball"},
    {2, 0.5f, 0.0f, 0.0f, 1.0f, 1.0f, "car"},
    {7, 0.3f, 0.5f, 0.5f, 0.5f, 0.5f, NULL},
  };
  GstAxDetection out;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  guint n = 0;

  for (n = 0; n < 3; n++)
    fail_unless (gst_ax_detection_add (frame, &in[n], 1920, 1080) != NULL);
  /* a foreign ROI without detection params is skipped */
  gst_buffer_add_video_region_of_interest_meta (frame, "face", 1, 2, 3, 4);

  fail_unless_equals_int (gst_ax_detection_count (frame), 3);

  n = 0;
  while (gst_ax_detection_iterate (frame, &state, &out, &roi)) {
    fail_unless_equals_int (out.label_id, in[n].label_id);
    fail_unless_equals_float (out.confidence, in[n].confidence);
    fail_unless_equals_float (out.x_min, in[n].x_min);
    fail_unless_equals_float (out.y_max, in[n].y_max);
    fail_unless_equals_string (g_quark_to_string (roi->roi_type), out.label);
    n++;
  }
  fail_unless_equals_int (n, 3);

  /* pixel rectangle of the first: 0.1..0.3 x 0.2..0.4 of 1920x1080 */
  state = NULL;
  fail_unless (gst_ax_detection_iterate (frame, &state, &out, &roi));
  fail_unless_equals_string (out.label, "ball");
  fail_unless_equals_int (roi->x, 192);
  fail_unless_equals_int (roi->y, 216);
  fail_unless_equals_int (roi->w, 384);
  fail_unless_equals_int (roi->h, 216);

  /* the unnamed class gets a generated label; zero-area stays zero */
  fail_unless (gst_ax_detection_iterate (frame, &state, &out, &roi));
  fail_unless (gst_ax_detection_iterate (frame, &state, &out, &roi));
  fail_unless_equals_string (out.label, "class7");
  fail_unless_equals_int (roi->w, 0);
  fail_unless_equals_int (roi->h, 0);
  fail_if (gst_ax_detection_iterate (frame, &state, &out, &roi));

  gst_buffer_unref (frame);
}

GST_END_TEST;

GST_START_TEST (test_param_structure)
{
  GstBuffer *frame = gst_buffer_new ();
  GstAxDetection det = { 4, 0.75f, 0.25f, 0.5f, 0.75f, 1.0f, "person" };
  GstVideoRegionOfInterestMeta *roi;
  GstStructure *s;
  guint label_id;
  gdouble v;

  roi = gst_ax_detection_add (frame, &det, 640, 480);
  s = gst_video_region_of_interest_meta_get_param (roi, "detection");
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint (s, "label_id", &label_id));
  fail_unless_equals_int (label_id, 4);
  fail_unless (gst_structure_get_double (s, "confidence", &v));
  fail_unless_equals_float (v, 0.75);
  fail_unless (gst_structure_get_double (s, "x_max", &v));
  fail_unless_equals_float (v, 0.75);
  fail_unless_equals_string (gst_structure_get_string (s, "label"), "person");
  fail_unless_equals_string (g_quark_to_string (roi->roi_type), "person");
  fail_unless_equals_int (roi->x, 160);
  fail_unless_equals_int (roi->h, 240);
  gst_buffer_unref (frame);
}

GST_END_TEST;

/* The bindings' form: every detection in one list, copies that outlive
 * the frame. */
GST_START_TEST (test_get_all)
{
  GstBuffer *frame = gst_buffer_new ();
  GstAxDetection in[2] = {
    {3, 0.75f, 0.25f, 0.5f, 0.5f, 1.0f, "person"},
    {9, 0.5f, 0.0f, 0.0f, 0.1f, 0.1f, NULL},
  };
  GstAxDetection *copy;
  GList *all, *l;
  guint n = 0;

  fail_unless (gst_ax_detection_get_all (frame) == NULL);
  gst_ax_detection_add (frame, &in[0], 640, 480);
  gst_ax_detection_add (frame, &in[1], 640, 480);
  gst_buffer_add_video_region_of_interest_meta (frame, "face", 1, 2, 3, 4);
  all = gst_ax_detection_get_all (frame);
  /* the list holds its own copies: the frame may go first */
  gst_buffer_unref (frame);
  fail_unless_equals_int (g_list_length (all), 2);
  for (l = all; l; l = l->next, n++) {
    GstAxDetection *d = l->data;

    fail_unless_equals_int (d->label_id, in[n].label_id);
    fail_unless_equals_float (d->confidence, in[n].confidence);
    fail_unless_equals_float (d->x_min, in[n].x_min);
    fail_unless_equals_float (d->y_max, in[n].y_max);
  }
  fail_unless_equals_string (((GstAxDetection *) all->data)->label, "person");
  fail_unless_equals_string (((GstAxDetection *) all->next->data)->label,
      "class9");
  copy = gst_ax_detection_copy (all->data);
  fail_unless (copy != all->data);
  fail_unless_equals_int (copy->label_id, 3);
  fail_unless_equals_string (copy->label, "person");
  g_list_free_full (all, (GDestroyNotify) gst_ax_detection_free);
  fail_unless_equals_float (copy->x_min, 0.25f);
  gst_ax_detection_free (copy);
  fail_unless (g_type_is_a (GST_AX_TYPE_DETECTION, G_TYPE_BOXED));
}

GST_END_TEST;

GST_START_TEST (test_copy_keeps_detections)
{
  GstBuffer *frame = gst_buffer_new ();
  GstBuffer *copy;
  GstAxDetection det = { 1, 0.6f, 0.1f, 0.1f, 0.2f, 0.2f, "ball" };

  gst_ax_detection_add (frame, &det, 100, 100);
  copy = gst_buffer_copy (frame);
  fail_unless_equals_int (gst_ax_detection_count (copy), 1);
  gst_buffer_unref (frame);
  gst_buffer_unref (copy);
}

GST_END_TEST;

/* Detections get ids unique on their frame, which copies keep; the
 * classification params are read back by rank. */
GST_START_TEST (test_ids_and_classification)
{
  GstBuffer *frame = gst_buffer_new ();
  GstBuffer *copy;
  GstAxDetection det = { 1, 0.6f, 0.1f, 0.1f, 0.2f, 0.2f, "face" };
  GstAxClassification happy = { 3, 0.75f, "happy" }, sad = { 4, 0.2f, NULL };
  GstAxClassification c;
  GstVideoRegionOfInterestMeta *a, *b, *f;

  fail_unless_equals_int (gst_ax_roi_next_id (frame), 0);
  a = gst_ax_detection_add (frame, &det, 100, 100);
  b = gst_ax_detection_add (frame, &det, 100, 100);
  fail_unless (a->id != b->id);
  /* a foreign ROI with a large id: the next one is above it */
  gst_buffer_add_video_region_of_interest_meta (frame, "x", 0, 0, 1,
      1)->id = 40;
  fail_unless_equals_int (gst_ax_roi_next_id (frame), 41);

  gst_ax_detection_add_classification (b, &happy);
  gst_ax_detection_add_classification (b, &sad);
  fail_if (gst_ax_detection_get_classification (a, 0, &c));
  copy = gst_buffer_copy (frame);
  b = gst_buffer_get_video_region_of_interest_meta_id (copy, b->id);
  fail_unless (b != NULL);
  fail_unless (gst_ax_detection_get_classification (b, 0, &c));
  fail_unless_equals_string (c.label, "happy");
  fail_unless_equals_int (c.label_id, 3);
  fail_unless_equals_float (c.confidence, 0.75f);
  fail_unless (gst_ax_detection_get_classification (b, 1, &c));
  fail_unless_equals_string (c.label, "class4");
  fail_if (gst_ax_detection_get_classification (b, 2, &c));
  /* still a detection */
  fail_unless_equals_int (gst_ax_detection_count (copy), 2);

  /* the frame's own region: made once, not a detection */
  fail_unless (gst_ax_detection_get_frame_roi (frame, FALSE, 0, 0) == NULL);
  f = gst_ax_detection_get_frame_roi (frame, TRUE, 100, 80);
  fail_unless (f != NULL && f->w == 100 && f->h == 80);
  fail_unless_equals_int (f->id, 41);
  fail_unless (gst_ax_detection_get_frame_roi (frame, TRUE, 100, 80) == f);
  fail_unless_equals_int (gst_ax_detection_count (frame), 2);
  gst_buffer_unref (frame);
  gst_buffer_unref (copy);
}

GST_END_TEST;

static Suite *
detection_suite (void)
{
  Suite *s = suite_create ("ax-detection");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_add_and_iterate);
  tcase_add_test (tc, test_param_structure);
  tcase_add_test (tc, test_copy_keeps_detections);
  tcase_add_test (tc, test_get_all);
  tcase_add_test (tc, test_ids_and_classification);
  return s;
}

GST_CHECK_MAIN (detection);
