/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The report model as data: its boxed, reference-counted type, exact
 * latency statistics from samples, and a serial pass's latency in the
 * rendered text and JSON. */

#include <gst/check/gstcheck.h>
#include <gst/ax/gstaxreport.h>
#include <math.h>
#include <string.h>

#define EPS 1e-9

GST_START_TEST (test_boxed_refcount)
{
  GstAxReport *r = gst_ax_report_new ();
  GstStructure *s;
  GstAxReport *got = NULL;

  r->pipeline = g_strdup ("pipeline0");
  s = gst_structure_new ("axprof-report", "report", GST_AX_TYPE_REPORT, r,
      NULL);
  /* the structure holds its own reference */
  gst_ax_report_unref (r);
  fail_unless (gst_structure_get (s, "report", GST_AX_TYPE_REPORT, &got, NULL));
  fail_unless (got == r);
  fail_unless_equals_string (got->pipeline, "pipeline0");
  gst_structure_free (s);
  /* still alive through the reference gst_structure_get() gave */
  fail_unless_equals_string (got->pipeline, "pipeline0");
  gst_ax_report_unref (got);
}

GST_END_TEST;

/* The rows as a list of dictionaries (aa{sv}), in the report's order,
 * with the JSON's member names. */
GST_START_TEST (test_get_rows)
{
  GstAxReport *r = gst_ax_report_new ();
  GstAxReportGroup *g = gst_ax_report_add_group (r, "ball-detector");
  GstAxReportRow *row;
  GVariant *rows, *d;
  const gchar *s;
  gdouble mean;
  guint64 count;

  rows = gst_ax_report_get_rows (r);
  fail_unless (g_variant_is_of_type (rows, G_VARIANT_TYPE ("aa{sv}")));
  fail_unless_equals_int (g_variant_n_children (rows), 0);
  g_variant_unref (rows);

  row = gst_ax_report_group_add_row (g, "device wait");
  row->count = 30;
  row->total_ms = 60;
  row->mean_ms = 2;
  row->element = g_strdup ("inference");
  row->kind = GST_AX_REPORT_ROW_KIND_REPORTED;
  row->flags = GST_AX_REPORT_ROW_FLAG_DEVICE_WAIT;
  row = gst_ax_report_group_add_row (g, "postamble");
  row->count = 30;
  row->total_ms = 15;
  row->mean_ms = 0.5;
  row->cpu_ms = 0.5;
  gst_ax_report_finish_groups (r);

  rows = gst_ax_report_get_rows (r);
  fail_if (g_variant_is_floating (rows));
  fail_unless_equals_int (g_variant_n_children (rows), 2);
  d = g_variant_get_child_value (rows, 0);
  fail_unless (g_variant_lookup (d, "group", "&s", &s));
  fail_unless_equals_string (s, "ball-detector");
  fail_unless (g_variant_lookup (d, "name", "&s", &s));
  fail_unless_equals_string (s, "device wait");
  fail_unless (g_variant_lookup (d, "kind", "&s", &s));
  fail_unless_equals_string (s, "reported");
  fail_unless (g_variant_lookup (d, "element", "&s", &s));
  fail_unless_equals_string (s, "inference");
  fail_unless (g_variant_lookup (d, "flags", "&s", &s));
  fail_unless_equals_string (s, "DEVICE WAIT");
  fail_unless (g_variant_lookup (d, "count", "t", &count));
  fail_unless_equals_int (count, 30);
  fail_unless (g_variant_lookup (d, "mean_ms", "d", &mean));
  fail_unless (fabs (mean - 2) < EPS);
  g_variant_unref (d);
  d = g_variant_get_child_value (rows, 1);
  fail_unless (g_variant_lookup (d, "name", "&s", &s));
  fail_unless_equals_string (s, "postamble");
  fail_unless (g_variant_lookup (d, "cpu_ms", "d", &mean));
  fail_unless (fabs (mean - 0.5) < EPS);
  /* a row without an element has no "element" */
  fail_if (g_variant_lookup (d, "element", "&s", &s));
  g_variant_unref (d);
  g_variant_unref (rows);

  /* streams and threads through their accessors */
  r->wall_s = 2;
  fail_unless_equals_int (gst_ax_report_get_n_streams (r), 0);
  gst_ax_report_add_stream (r, "stream 1", "sink1", 50);
  fail_unless_equals_int (gst_ax_report_get_n_streams (r), 1);
  fail_unless_equals_string (gst_ax_report_get_stream (r, 0)->sink, "sink1");
  fail_unless_equals_int (gst_ax_report_get_stream (r, 0)->frames, 50);
  fail_unless (fabs (gst_ax_report_get_stream (r, 0)->fps - 25) < EPS);
  fail_unless_equals_int (gst_ax_report_get_n_threads (r), 0);
  {
    GstAxReportThread t = { g_strdup ("src:src"), 42, g_strdup ("streaming"),
      g_strdup ("src"), 12.5, 3
    };

    g_array_append_val (r->threads, t);
  }
  fail_unless_equals_int (gst_ax_report_get_n_threads (r), 1);
  fail_unless_equals_int (gst_ax_report_get_thread (r, 0)->tid, 42);
  fail_unless (fabs (gst_ax_report_get_thread (r, 0)->cpu_ms - 12.5) < EPS);
  gst_ax_report_unref (r);
}

GST_END_TEST;

GST_START_TEST (test_latency_from_samples)
{
  /* 1..20 ms, shuffled */
  const gdouble ms[] = { 7, 3, 20, 1, 12, 9, 15, 2, 18, 5, 11, 4, 16, 8,
    19, 6, 13, 10, 17, 14
  };
  GstAxReportLatency l;
  gdouble var = 0;
  guint i;

  for (i = 1; i <= 20; i++)
    var += (i - 10.5) * (i - 10.5);
  var /= 20;
  gst_ax_report_latency_from_samples (&l, ms, G_N_ELEMENTS (ms));
  fail_unless_equals_int (l.n, 20);
  fail_unless (fabs (l.min_ms - 1) < EPS);
  fail_unless (fabs (l.max_ms - 20) < EPS);
  fail_unless (fabs (l.mean_ms - 10.5) < EPS);
  /* nearest rank: ceil (0.5 x 20) = the 10th, ceil (0.95 x 20) = the 19th */
  fail_unless (fabs (l.p50_ms - 10) < EPS);
  fail_unless (fabs (l.p95_ms - 19) < EPS);
  fail_unless (fabs (l.p99_ms - 20) < EPS);
  fail_unless (isnan (l.p999_ms));
  fail_unless (fabs (l.stddev_ms - sqrt (var)) < 1e-6);
  fail_unless (fabs (l.jitter_ms - 19) < EPS);

  gst_ax_report_latency_from_samples (&l, NULL, 0);
  fail_unless_equals_int (l.n, 0);
}

GST_END_TEST;

GST_START_TEST (test_serial_latency_rendered)
{
  GstAxReport *r = gst_ax_report_new ();
  const gdouble ms[] = { 2.0, 4.0, 3.0 };
  GstAxReportLatency l;
  gchar *text, *json;

  r->pipeline = g_strdup ("pipeline0");
  r->pacing = g_strdup ("free-running: no live source, no sink syncs");
  r->latency.n = 300;
  r->latency_unmatched = 2;
  gst_ax_report_latency_from_samples (&l, ms, G_N_ELEMENTS (ms));
  gst_ax_report_set_serial_latency (r, &l, NULL);
  text = gst_ax_report_to_text (r);
  json = gst_ax_report_to_json (r);
  fail_unless (strstr (text, "Latency e2e (ms, N=3, serial):\n  min 2.00  "
          "mean 3.00  p50 3.00") != NULL, "%s", text);
  fail_unless (strstr (text, "UNMATCHED") == NULL);
  fail_unless (strstr (json, "\"pass\" : \"serial\"") != NULL, "%s", json);
  g_free (text);
  g_free (json);

  gst_ax_report_set_serial_latency (r, NULL, "no frame reached the sink");
  text = gst_ax_report_to_text (r);
  fail_unless (strstr (text, "Latency e2e (serial): no frame reached the "
          "sink\n") != NULL, "%s", text);
  g_free (text);
  gst_ax_report_unref (r);
}

GST_END_TEST;

/* The first frame is always warm-up; frames after it while they take
 * more than twice the warm half's median, at most a quarter of them. */
GST_START_TEST (test_serial_warmup)
{
  static const gdouble slow_start[] = { 180, 60, 20, 10, 11, 10, 12, 10, 9,
    10, 11, 10
  };
  static const gdouble even[] = { 5, 5, 5, 5 };
  static const gdouble all_slow[] = { 90, 80, 70, 60, 50, 10, 10, 10 };
  static const gdouble one[] = { 42 };
  GstAxReport *r = gst_ax_report_new ();
  GstAxReportLatency l = { 0, };
  guint k = gst_ax_report_serial_warmup (slow_start,
      G_N_ELEMENTS (slow_start));
  gchar *text, *json;
  GstAxReport *back;

  fail_unless_equals_int (k, 2);
  fail_unless_equals_int (gst_ax_report_serial_warmup (even,
          G_N_ELEMENTS (even)), 1);
  /* at most a quarter of 8 */
  fail_unless_equals_int (gst_ax_report_serial_warmup (all_slow,
          G_N_ELEMENTS (all_slow)), 2);
  fail_unless_equals_int (gst_ax_report_serial_warmup (one, 1), 0);

  gst_ax_report_latency_from_samples (&l, slow_start + k,
      G_N_ELEMENTS (slow_start) - k);
  gst_ax_report_set_serial_latency (r, &l, NULL);
  gst_ax_report_set_serial_warmup (r, slow_start, k);
  text = gst_ax_report_to_text (r);
  fail_unless (strstr (text, "Latency e2e (ms, N=10, serial, after 2 warm-up "
          "frames: the first took 180.00 ms, the warm-up 120.00 ms on "
          "average):\n  min 9.00") != NULL, "%s", text);
  json = gst_ax_report_to_json (r);
  back = gst_ax_report_new_from_json (json, NULL);
  fail_unless (back != NULL);
  fail_unless_equals_int (back->latency_warmup_frames, 2);
  fail_unless_equals_float (back->latency_first_frame_ms, 180);
  fail_unless_equals_float (back->latency_warmup_mean_ms, 120);
  gst_ax_report_unref (back);
  g_free (text);
  g_free (json);
  gst_ax_report_unref (r);
}

GST_END_TEST;

static Suite *
report_suite (void)
{
  Suite *s = suite_create ("report");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_boxed_refcount);
  tcase_add_test (tc, test_get_rows);
  tcase_add_test (tc, test_latency_from_samples);
  tcase_add_test (tc, test_serial_latency_rendered);
  tcase_add_test (tc, test_serial_warmup);
  return s;
}

GST_CHECK_MAIN (report);
