/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The verdict and the figures it rests on, on the pipelines where they
 * were once wrong: a slow element after axinference (the in-flight depth
 * counts the finished frames held in the window), decodebin with axnms
 * and axoverlay on the output thread, a stock source's faults against its
 * frame size, an input-selector's idle branch, time-scale=0, and the
 * machine-readable verdict on the bus. Few frames each: the suite also
 * runs under sanitizers. */

#include "axproftest.h"
#include "axtestelements.h"

#include <gst/ax/ax.h>
#include <gst/ax/gstax-private.h>
#include <string.h>

#define WINDOW 8
#define SLOW_FRAMES 40
/* identity sleep-time, in us: far slower than ball-detector on the host,
 * also under the sanitizers on a loaded machine (the window must fill) */
#define SLOW_SLEEP_US 50000
/* the window drains at the end of the run: a share of it stays full */
#define FULL_WINDOW_SHARE 0.75
#define DECODE_FRAMES 30
#define STOCK_FRAMES 20
#define SCALE0_FRAMES 10
#define SELECTOR_FRAMES 60
#define EXACT_FRAMES 120

static gdouble
member (JsonObject * o, const gchar * name)
{
  fail_unless (o != NULL);
  fail_unless (json_object_has_member (o, name), "no member %s", name);
  return json_object_get_double_member (o, name);
}

static gdouble
row_total (AxProfReport * r, const gchar * name)
{
  JsonObject *row = ax_prof_find_row (r->root, "pipeline", name);

  fail_unless (row != NULL, "no row %s:\n%s", name, r->text);
  return member (row, "total_ms");
}

static JsonObject *
verdict_of (AxProfReport * r)
{
  JsonObject *v = json_object_get_object_member (r->root, "verdict");

  fail_unless (v != NULL, "%s", r->text);
  return v;
}

static JsonObject *
first_device (AxProfReport * r)
{
  JsonArray *devices = json_object_get_array_member (r->root, "devices");

  fail_unless (devices != NULL && json_array_get_length (devices) == 1,
      "%s", r->text);
  return json_array_get_object_element (devices, 0);
}

/* A slow element after axinference: the window fills with finished
 * frames, the depth says so, and the verdict names the element, not the
 * submission loop (it said "0.4 in flight of 64"). */
GST_START_TEST (test_slow_element_after_inference)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=320,height=240 ! axletterbox ! "
      "axinference model=ball-detector in-flight=%d ! "
      "identity name=slow sleep-time=%d ! fakesink", SLOW_FRAMES, WINDOW,
      SLOW_SLEEP_US);
  AxProfReport *r = ax_prof_run (desc);
  JsonObject *d = first_device (r), *v = verdict_of (r);
  gchar *header = g_strdup_printf ("streamed at in_flight=%d", WINDOW);

  fail_unless (member (d, "depth") >= FULL_WINDOW_SHARE * WINDOW,
      "depth %.2f of %d:\n%s", member (d, "depth"), WINDOW, r->text);
  /* a frame leaves the window when the output thread takes it */
  fail_unless (member (d, "depth") <= WINDOW + 1e-6,
      "depth %.2f over the window of %d:\n%s", member (d, "depth"), WINDOW,
      r->text);
  fail_unless (member (d, "held_depth") >= 0.5 * member (d, "depth"),
      "%s", r->text);
  fail_unless_equals_string (json_object_get_string_member (v, "kind"),
      "backpressure");
  fail_unless_equals_string (json_object_get_string_member (v, "element"),
      "slow");
  fail_unless (strstr (json_object_get_string_member (v, "constraint"),
          "submission") == NULL, "%s", r->text);
  /* the bus message carries the same machine-readable verdict */
  fail_unless_equals_string (r->verdict_kind, "backpressure");
  fail_unless_equals_string (r->verdict_element, "slow");
  /* the section headers state the window the run streamed at */
  fail_unless (strstr (r->text, "Per-operator/stage time (ms; streamed at "
          "in_flight=8;") != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "Host/device wall-time share (streamed at "
          "in_flight=8;") != NULL, "%s", r->text);
  fail_unless (strstr (r->text, header) != NULL);
  g_free (header);
  g_free (desc);
  ax_prof_report_free (r);
}

GST_END_TEST;

static gchar *
vtest_path (void)
{
  const gchar *dir = g_getenv ("GST_AX_DATA_DIR");
  gchar *path;

  if (dir == NULL)
    return NULL;
  path = g_build_filename (dir, "opencv", "vtest.avi", NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS) ||
      !gst_registry_check_feature_version (gst_registry_get (), "avdec_mpeg4",
          1, 0, 0)) {
    g_free (path);
    return NULL;
  }
  return path;
}

/* decodebin ! detection with axnms and axoverlay on axinference's output
 * thread, which they limit: the verdict names them, not "axinference0
 * mostly waits". */
GST_START_TEST (test_decodebin_output_thread)
{
  gchar *path = vtest_path ();
  gchar *desc;
  AxProfReport *r;
  JsonObject *v;
  const gchar *element, *constraint;
  gdouble busy;

  if (path == NULL) {
    g_print ("SKIP test_decodebin_output_thread: no vtest.avi in "
        "GST_AX_DATA_DIR or no avdec_mpeg4 (gstreamer1.0-libav)\n");
    return;
  }
  desc = g_strdup_printf ("filesrc location=%s ! decodebin ! "
      "identity eos-after=%d ! videoconvert ! axletterbox ! "
      "axinference model=ball-detector in-flight=%d ! axnms ! axoverlay ! "
      "fakesink", path, DECODE_FRAMES, WINDOW);
  r = ax_prof_run (desc);
  v = verdict_of (r);
  element = json_object_get_string_member (v, "element");
  constraint = json_object_get_string_member (v, "constraint");
  /* axinference's chain waits for room in its window: never the cause */
  fail_unless (strstr (constraint, "axinference0") == NULL, "%s", r->text);
  fail_unless (g_strcmp0 (element, "axinference0") != 0, "%s", r->text);
  /* On a quiet host the output thread's rows take most of the run and
   * are named. On a loaded one (the suite shares the CPU) the simulator
   * or the decoder may fall further behind; the rows are then named only
   * if they still take the run. */
  busy = (row_total (r, "axnms0") + row_total (r, "axoverlay0") +
      row_total (r, "fakesink0")) / (member (json_object_get_object_member
          (r->root, "throughput"), "wall_s") * 1000.0);
  if (busy >= GST_AX_REPORT_OUTPUT_BUSY_RATIO &&
      member (first_device (r), "held_depth") >=
      GST_AX_REPORT_HELD_DEPTH_RATIO * member (first_device (r), "depth")) {
    fail_unless_equals_string (json_object_get_string_member (v, "kind"),
        "backpressure");
    fail_unless (g_strcmp0 (element, "axnms0") == 0 ||
        g_strcmp0 (element, "axoverlay0") == 0, "%s", r->text);
    fail_unless (strstr (constraint, "axoverlay0") != NULL, "%s", r->text);
  } else {
    g_print ("test_decodebin_output_thread: the output thread took %.0f%% "
        "of the run on this host; the naming was not checked\n", 100.0 * busy);
  }
  ax_prof_report_free (r);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* A stock videotestsrc pools its buffers: the dozen faults its create
 * takes per 1.4 MB frame are not allocation. */
GST_START_TEST (test_stock_source_faults)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,format=I420,width=1280,height=720 ! fakesink",
      STOCK_FRAMES);
  AxProfReport *r = ax_prof_run (desc);
  JsonObject *row = ax_prof_find_row (r->root, "pipeline",
      "videotestsrc0 (create)");

  fail_unless (row != NULL, "%s", r->text);
  fail_unless_equals_int (json_object_get_int_member (row, "out_bytes"),
      1280 * 720 * 3 / 2);
  fail_unless (strstr (r->text, "reuse its output buffer") == NULL, "%s",
      r->text);
  g_free (desc);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* time-scale=0 leaves no modelled device time: no fps to give. */
GST_START_TEST (test_time_scale_zero)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=320,height=240 ! axletterbox ! "
      "axinference model=ball-detector time-scale=0 ! fakesink",
      SCALE0_FRAMES);
  AxProfReport *r = ax_prof_run (desc);
  JsonObject *d = first_device (r);
  gchar *line = g_strdup_printf ("ball-detector: %d jobs in n/a  ->  n/a fps",
      SCALE0_FRAMES);

  fail_unless (strstr (r->text, line) != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "jobs in 0.00 s") == NULL, "%s", r->text);
  fail_unless (json_object_get_null_member (d, "device_fps"), "%s", r->json);
  g_free (line);
  g_free (desc);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* The branch an input-selector does not pass on is marked and never
 * blamed. */
GST_START_TEST (test_input_selector_idle_branch)
{
  gchar *desc = g_strdup_printf ("input-selector name=sel ! fakesink "
      "videotestsrc name=on num-buffers=%d ! video/x-raw,width=320,height=240 "
      "! queue name=qa ! sel.sink_0 "
      "videotestsrc name=off num-buffers=%d pattern=ball ! "
      "video/x-raw,width=160,height=120 ! queue name=qb ! sel.sink_1",
      SELECTOR_FRAMES, SELECTOR_FRAMES);
  AxProfReport *r = ax_prof_run (desc);
  JsonObject *off = ax_prof_find_row (r->root, "pipeline", "off (create)");
  JsonObject *on = ax_prof_find_row (r->root, "pipeline", "on (create)");
  JsonObject *v = verdict_of (r);
  const gchar *element = json_object_get_string_member (v, "element");
  const gchar *queue = json_object_get_string_member (v, "queue");

  fail_unless (off != NULL && on != NULL, "%s", r->text);
  fail_unless (json_object_get_boolean_member (off, "inactive"), "%s", r->json);
  fail_if (json_object_get_boolean_member (on, "inactive"), "%s", r->json);
  fail_unless (json_object_get_boolean_member (ax_prof_find_row (r->root,
              "pipeline", "qb"), "inactive"));
  fail_if (g_strcmp0 (element, "off") == 0 || g_strcmp0 (element, "qb") == 0,
      "%s", r->text);
  fail_if (g_strcmp0 (queue, "qb") == 0, "%s", r->text);
  g_free (desc);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* Task loops and reported stages count exactly the frames their task
 * pushed: 120 for 120 frames, never one more. */
GST_START_TEST (test_stage_counts_exact)
{
  const gchar *pipeline_rows[] = { "videotestsrc0 (create)", "q0 (pull)",
    "q1 (pull)", "fakesink0"
  };
  const gchar *model_rows[] = { "axinference0", "host copy in",
    "device wait", "host copy out", "axinference0 (loop)"
  };
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=64,height=48 ! queue name=q0 ! axletterbox ! "
      "axinference model=ball-detector time-scale=0 ! queue name=q1 ! "
      "fakesink", EXACT_FRAMES);
  AxProfReport *r = ax_prof_run (desc);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (pipeline_rows); i++) {
    JsonObject *row = ax_prof_find_row (r->root, "pipeline", pipeline_rows[i]);

    fail_unless (row != NULL, "no %s:\n%s", pipeline_rows[i], r->text);
    fail_unless_equals_int (json_object_get_int_member (row, "count"),
        EXACT_FRAMES);
  }
  for (i = 0; i < G_N_ELEMENTS (model_rows); i++) {
    JsonObject *row = ax_prof_find_row (r->root, "ball-detector",
        model_rows[i]);

    fail_unless (row != NULL, "no %s:\n%s", model_rows[i], r->text);
    fail_unless_equals_int (json_object_get_int_member (row, "count"),
        EXACT_FRAMES);
  }
  g_free (desc);
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_verdict_suite (void)
{
  Suite *s = suite_create ("axprof-verdict");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 240);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_slow_element_after_inference);
  tcase_add_test (tc, test_decodebin_output_thread);
  tcase_add_test (tc, test_stock_source_faults);
  tcase_add_test (tc, test_time_scale_zero);
  tcase_add_test (tc, test_input_selector_idle_branch);
  tcase_add_test (tc, test_stage_counts_exact);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  ax_test_elements_register ();
  return gst_check_run_suite (axprof_verdict_suite (), "axprof-verdict",
      __FILE__);
}
