/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The axprof tracer on real streams: end-to-end latency matched through
 * DTS-only demuxers, decoders that allocate new buffers and videorate,
 * sink buffers that cannot be matched counted, decodebin's children in
 * the pipeline group, and the verdict when the simulator cannot keep pace
 * with its device model. The tracer is switched on in main() before
 * gst_check_init(), as GST_TRACERS must be set before gst_init(). */

#include "axproftest.h"
#include "axtestelements.h"

#include <glib/gstdio.h>
#include <string.h>

#define DTS_FRAMES 25
#define FRAME_DURATION_MS 10
#define AVI_FRAMES 15
/* filesrc reads of vtest.avi: the first ~13 are the headers and index,
 * each further one a frame (identity eos-after does not stop decodebin's
 * stream reliably, a short file read does) */
#define REAL_READS 30
#define MODEL_READS 16
/* far beyond any frame's duration: a timeline nothing entered on */
#define FOREIGN_OFFSET_MS 3600000
#define DEVICE_FRAMES 20

static gchar *out_dir;

static gint64
latency_n (AxProfReport * r)
{
  JsonObject *lat = json_object_get_object_member (r->root, "latency");

  fail_unless (lat != NULL, "%s", r->text);
  return json_object_has_member (lat, "n") ?
      json_object_get_int_member (lat, "n") : 0;
}

static gint64
latency_unmatched (AxProfReport * r)
{
  JsonObject *lat = json_object_get_object_member (r->root, "latency");

  fail_unless (json_object_has_member (lat, "unmatched"), "%s", r->text);
  return json_object_get_int_member (lat, "unmatched");
}

static gint64
sink_frames (AxProfReport * r)
{
  return json_object_get_int_member (json_object_get_object_member (r->root,
          "throughput"), "frames");
}

/* Every buffer at the sink has its latency, none unmatched. */
static void
assert_all_matched (AxProfReport * r, gint64 frames)
{
  fail_unless_equals_int (sink_frames (r), frames);
  fail_unless_equals_int (latency_n (r), frames);
  fail_unless_equals_int (latency_unmatched (r), 0);
  fail_unless (strstr (r->text, "UNMATCHED") == NULL, "%s", r->text);
}

static const gchar *
verdict_constraint (AxProfReport * r)
{
  JsonObject *v = json_object_get_object_member (r->root, "verdict");

  fail_unless (v != NULL, "%s", r->text);
  return json_object_get_string_member (v, "constraint");
}

/* A group whose name starts with @prefix, or NULL. */
static JsonObject *
group_with_prefix (AxProfReport * r, const gchar * prefix)
{
  JsonArray *groups = json_object_get_array_member (r->root, "groups");
  guint i;

  for (i = 0; groups && i < json_array_get_length (groups); i++) {
    JsonObject *g = json_array_get_object_element (groups, i);

    if (g_str_has_prefix (json_object_get_string_member (g, "name"), prefix))
      return g;
  }
  return NULL;
}

static JsonObject *
row_with_prefix (JsonObject * group, const gchar * prefix)
{
  JsonArray *rows = json_object_get_array_member (group, "rows");
  guint i;

  for (i = 0; rows && i < json_array_get_length (rows); i++) {
    JsonObject *row = json_array_get_object_element (rows, i);

    if (g_str_has_prefix (json_object_get_string_member (row, "name"), prefix))
      return row;
  }
  return NULL;
}

/* Pushes DTS_FRAMES DTS-only buffers (as avidemux does) through
 * @description, which starts with "appsrc name=src". */
static AxProfReport *
run_dts_only (const gchar * description)
{
  GPtrArray *reports = g_ptr_array_new ();
  GstElement *p = gst_parse_launch (description, NULL);
  GstElement *src;
  GstMessage *msg;
  GstFlowReturn ret;
  GstCaps *caps;
  AxProfReport *r;
  guint i;

  fail_unless (p != NULL, "cannot parse '%s'", description);
  src = gst_bin_get_by_name (GST_BIN (p), "src");
  ax_prof_watch (p, reports);
  caps = gst_caps_new_empty_simple ("application/x-t");
  g_object_set (src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < DTS_FRAMES; i++) {
    GstBuffer *b = gst_buffer_new_allocate (NULL, 16, NULL);

    GST_BUFFER_DTS (b) = i * FRAME_DURATION_MS * GST_MSECOND;
    GST_BUFFER_DURATION (b) = FRAME_DURATION_MS * GST_MSECOND;
    g_signal_emit_by_name (src, "push-buffer", b, &ret);
    gst_buffer_unref (b);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_index (reports, 0);
  g_ptr_array_unref (reports);
  gst_object_unref (src);
  gst_object_unref (p);
  return r;
}

/* A DTS-only source, then a decoder that allocates new buffers stamped
 * with PTS: neither buffer identity nor the source's PTS survives, the
 * timeline does. */
GST_START_TEST (test_dts_only_through_decoder)
{
  AxProfReport *r = run_dts_only ("appsrc name=src ! axtestdecode ! queue ! "
      "fakesink");

  assert_all_matched (r, DTS_FRAMES);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* Frames moved onto a timeline nothing entered on cannot be matched:
 * they are counted and reported, not dropped silently. */
GST_START_TEST (test_unmatched_counted)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! axtestdecode "
      "offset-ms=%d ! fakesink", FOREIGN_OFFSET_MS);
  AxProfReport *r = run_dts_only (desc);
  JsonObject *lat = json_object_get_object_member (r->root, "latency");
  gchar *line = g_strdup_printf ("none of the %d sink buffers", DTS_FRAMES);

  fail_unless_equals_int (sink_frames (r), DTS_FRAMES);
  fail_unless_equals_int (latency_unmatched (r), DTS_FRAMES);
  fail_unless (json_object_has_member (lat, "absent"), "%s", r->text);
  fail_unless (strstr (r->text, line) != NULL, "%s", r->text);
  ax_prof_report_free (r);
  g_free (line);
  g_free (desc);
}

GST_END_TEST;

/* Part matched, part not: a tee sends the frames to one sink as they are
 * and to another moved to a foreign timeline. */
GST_START_TEST (test_unmatched_beside_matched)
{
  gchar *desc = g_strdup_printf ("appsrc name=src ! axtestdecode ! tee name=t "
      "t. ! queue ! fakesink t. ! queue ! axtestdecode offset-ms=%d ! "
      "fakesink", FOREIGN_OFFSET_MS);
  AxProfReport *r = run_dts_only (desc);
  gchar *line = g_strdup_printf ("UNMATCHED: %d sink buffers", DTS_FRAMES);

  fail_unless_equals_int (latency_n (r), DTS_FRAMES);
  fail_unless_equals_int (latency_unmatched (r), DTS_FRAMES);
  fail_unless (strstr (r->text, line) != NULL, "%s", r->text);
  ax_prof_report_free (r);
  g_free (line);
  g_free (desc);
}

GST_END_TEST;

/* videorate makes new buffers with new timestamps, duplicates among them:
 * each is matched to the frame it repeats. */
GST_START_TEST (test_videorate_duplicates)
{
  AxProfReport *r = ax_prof_run ("videotestsrc num-buffers=10 ! "
      "video/x-raw,width=64,height=48,framerate=10/1 ! videorate ! "
      "video/x-raw,framerate=30/1 ! videoconvert ! fakesink");

  fail_unless (sink_frames (r) > 10, "%s", r->text);
  assert_all_matched (r, sink_frames (r));
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A real demuxer: decodebin on an AVI written here (avidemux pushes
 * DTS-only buffers, jpegdec allocates new ones). decodebin's children
 * are the pipeline's work, not a group of their own. */
GST_START_TEST (test_decodebin_avi)
{
  gchar *path = g_build_filename (out_dir, "clip.avi", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,width=64,height=48,framerate=10/1 ! jpegenc ! avimux ! "
      "filesink location=%s", AVI_FRAMES, path);
  AxProfReport *r = ax_prof_run (desc);
  JsonObject *pipeline;

  ax_prof_report_free (r);
  g_free (desc);
  desc = g_strdup_printf ("filesrc location=%s ! decodebin ! videoconvert ! "
      "queue ! fakesink", path);
  r = ax_prof_run (desc);
  assert_all_matched (r, AVI_FRAMES);
  fail_unless (group_with_prefix (r, "decodebin") == NULL, "%s", r->text);
  pipeline = ax_prof_find_group (r->root, "pipeline");
  fail_unless (pipeline != NULL, "%s", r->text);
  fail_unless (row_with_prefix (pipeline, "avidemux") != NULL, "%s", r->text);
  fail_unless (row_with_prefix (pipeline, "jpegdec") != NULL, "%s", r->text);
  fail_unless (row_with_prefix (pipeline, "multiqueue") != NULL, "%s", r->text);
  ax_prof_report_free (r);
  g_remove (path);
  g_free (desc);
  g_free (path);
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

/* vtest.avi (DivX, DTS-only from avidemux) through decodebin: latency N
 * is every frame at the sink. */
GST_START_TEST (test_vtest_decodebin)
{
  gchar *path = vtest_path ();
  gchar *desc;
  AxProfReport *r;

  if (path == NULL) {
    g_print ("SKIP test_vtest_decodebin: no vtest.avi in GST_AX_DATA_DIR or "
        "no avdec_mpeg4 (gstreamer1.0-libav)\n");
    return;
  }
  desc = g_strdup_printf ("filesrc location=%s num-buffers=%d ! decodebin ! "
      "videoconvert ! fakesink", path, REAL_READS);
  r = ax_prof_run (desc);
  fail_unless (sink_frames (r) > 0, "%s", r->text);
  assert_all_matched (r, sink_frames (r));
  fail_unless (group_with_prefix (r, "decodebin") == NULL, "%s", r->text);
  ax_prof_report_free (r);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* The real model on vtest.avi: its group holds the device wait, the host
 * copies, the preamble and axinference's own rows; decode is in the
 * pipeline group. */
GST_START_TEST (test_vtest_model_groups)
{
  gchar *path = vtest_path ();
  gchar *model = g_build_filename (g_getenv ("GST_AX_MODEL_PATH") ?
      g_getenv ("GST_AX_MODEL_PATH") : ".", "centernet-coco.axm", NULL);
  gchar *desc;
  AxProfReport *r;
  JsonObject *g, *row;

  if (path == NULL || !g_file_test (model, G_FILE_TEST_EXISTS)) {
    g_print ("SKIP test_vtest_model_groups: no vtest.avi, avdec_mpeg4 or "
        "centernet-coco.axm\n");
    g_free (path);
    g_free (model);
    return;
  }
  desc = g_strdup_printf ("filesrc location=%s num-buffers=%d ! decodebin ! "
      "videoconvert ! axletterbox ! axinference model=centernet-coco "
      "in-flight=4 ! fakesink", path, MODEL_READS);
  r = ax_prof_run (desc);
  fail_unless (sink_frames (r) > 0, "%s", r->text);
  assert_all_matched (r, sink_frames (r));
  g = ax_prof_find_group (r->root, "centernet-coco");
  fail_unless (g != NULL, "%s", r->text);
  row = ax_prof_find_row (r->root, "centernet-coco", "device wait");
  fail_unless (row != NULL, "%s", r->text);
  fail_unless (ax_prof_row_has_flag (row, "DEVICE WAIT"), "%s", r->text);
  fail_unless (row_with_prefix (g, "host copy in") != NULL, "%s", r->text);
  fail_unless (row_with_prefix (g, "host copy out") != NULL, "%s", r->text);
  /* CenterNet's first layers run in a float preamble (the compiler's
   * host fallback measured them better there), and the rest on the
   * device (moving its last layers to the host gains nothing): a
   * preamble row, no postamble row */
  fail_unless (row_with_prefix (g, "preamble") != NULL, "%s", r->text);
  fail_unless (row_with_prefix (g, "postamble") == NULL, "%s", r->text);
  fail_unless (row_with_prefix (g, "axinference") != NULL, "%s", r->text);
  fail_unless (group_with_prefix (r, "decodebin") == NULL, "%s", r->text);
  fail_unless (row_with_prefix (ax_prof_find_group (r->root, "pipeline"),
          "avdec") != NULL, "%s", r->text);
  ax_prof_report_free (r);
  g_free (desc);
  g_free (model);
  g_free (path);
}

GST_END_TEST;

#define LAGGING_DEVICE(lag, sim) "videotestsrc num-buffers=20 ! " \
    "video/x-raw,width=64,height=48 ! queue ! axtestdevice " \
    "model-name=testnet device-ms=4 cores=4 in-flight=2 lag-ms=" lag \
    " sim-cpu-ms=" sim " ! fakesink"

/* A simulator slower than its model: the trust step warns with the lag,
 * and the verdict names the functional compute. */
GST_START_TEST (test_simulator_lag_verdict)
{
  AxProfReport *r = ax_prof_run (LAGGING_DEVICE ("6", "10"));
  JsonArray *devices = json_object_get_array_member (r->root, "devices");
  JsonObject *d = json_array_get_object_element (devices, 0);
  gchar *lag = g_strdup_printf ("lagged it by %.1f ms",
      json_object_get_double_member (d, "lag_ms"));

  fail_unless (strstr (r->text, "WARNING: the simulator cannot keep pace "
          "with the device model: testnet") != NULL, "%s", r->text);
  fail_unless (strstr (r->text, lag) != NULL, "%s", r->text);
  fail_unless (strstr (r->text, "Device figures (device_ms, occupancy, "
          "device fps) are the model's; throughput and latency are the "
          "host's") != NULL, "%s", r->text);
  fail_unless (g_str_has_prefix (verdict_constraint (r),
          "the simulator's functional compute (testnet"), "%s", r->text);
  fail_unless (strstr (r->text, "(the model's); host cores used") != NULL,
      "%s", r->text);
  g_free (lag);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* A simulator that keeps pace is not blamed, and no warning is raised. */
GST_START_TEST (test_simulator_keeps_pace)
{
  AxProfReport *r = ax_prof_run (LAGGING_DEVICE ("0", "1"));

  fail_unless (strstr (r->text, "cannot keep pace") == NULL, "%s", r->text);
  fail_if (g_str_has_prefix (verdict_constraint (r), "the simulator"), "%s",
      r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_streams_suite (void)
{
  Suite *s = suite_create ("axprof-streams");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 240);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_dts_only_through_decoder);
  tcase_add_test (tc, test_unmatched_counted);
  tcase_add_test (tc, test_unmatched_beside_matched);
  tcase_add_test (tc, test_videorate_duplicates);
  tcase_add_test (tc, test_decodebin_avi);
  tcase_add_test (tc, test_vtest_decodebin);
  tcase_add_test (tc, test_vtest_model_groups);
  tcase_add_test (tc, test_simulator_lag_verdict);
  tcase_add_test (tc, test_simulator_keeps_pace);
  return s;
}

int
main (int argc, char **argv)
{
  int ret;

  out_dir = g_dir_make_tmp ("axprof-streams-XXXXXX", NULL);
  g_assert (out_dir != NULL);
  g_setenv ("GST_TRACERS", "axprof(file=/dev/null)", TRUE);
  gst_check_init (&argc, &argv);
  ax_test_elements_register ();
  ret = gst_check_run_suite (axprof_streams_suite (), "axprof-streams",
      __FILE__);
  g_rmdir (out_dir);
  g_free (out_dir);
  return ret;
}
