/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* Ground-truth tests of the axprof tracer. The tracer is switched on in
 * main() before gst_check_init(), as GST_TRACERS must be set before
 * gst_init(). */

#include "axproftest.h"
#include "axtestelements.h"

#include <gst/ax/ax.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define TOLERANCE 0.10
#define SLEEP_MS 5.0
#define BURN_MS 3.0
#define PAGES 64
#define QUEUE_MAX 5
#define DEVICE_MS 8.0
#define DEVICE_CORES 4
#define DEVICE_IN_FLIGHT 2
#define DEVICE_FRAMES 60
/* The machine is shared with parallel builds and tests: a sleeping or
 * burning thread can be preempted or woken late, which is real wall time
 * the tracer must (and does) report. So the fastest call must match the
 * ground truth within TOLERANCE, and the mean may exceed it by this
 * factor. */
#define PREEMPTION_SLACK 4.0
/* CPU of a call outside the element's own measurement: the base class and
 * the hooks, which ThreadSanitizer runs 5-15x slower (more on a busy
 * machine, where it also faults its shadow pages in slowly) */
#ifdef __SANITIZE_THREAD__
#define CALL_SLACK_MS 0.5
#else
#define CALL_SLACK_MS 0.05
#endif

static gchar *out_dir;

static gdouble
member (JsonObject * o, const gchar * name)
{
  fail_unless (o != NULL);
  fail_unless (json_object_has_member (o, name), "no member %s", name);
  return json_object_get_double_member (o, name);
}

static void
assert_within (gdouble value, gdouble expected, gdouble tolerance,
    const gchar * what)
{
  fail_unless (fabs (value - expected) <= tolerance * expected,
      "%s is %.3f, expected %.3f +- %.0f%%", what, value, expected,
      tolerance * 100);
}

GST_START_TEST (test_identity_sleep_blocked)
{
  AxProfReport *r = ax_prof_run ("fakesrc num-buffers=20 ! "
      "identity name=slow sleep-time=5000 ! fakesink");
  JsonObject *row = ax_prof_find_row (r->root, "pipeline", "slow");

  fail_unless (row != NULL, "no row for identity:\n%s", r->text);
  assert_within (member (row, "min_ms"), SLEEP_MS, TOLERANCE, "min");
  fail_unless (member (row, "mean_ms") >= SLEEP_MS * (1 - TOLERANCE) &&
      member (row, "mean_ms") <= SLEEP_MS * PREEMPTION_SLACK, "mean %.3f",
      member (row, "mean_ms"));
  fail_unless (member (row, "cpu_ms") < 0.5, "cpu %.3f ms",
      member (row, "cpu_ms"));
  fail_unless (ax_prof_row_has_flag (row, "BLOCKED") ||
      ax_prof_row_has_flag (row, "STRONGLY BLOCKED"), "%s", r->text);
  fail_unless_equals_int (json_object_get_int_member (row, "count"), 20);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* CPU must match the burn; wall must match the wall the element itself
 * measured around its burns (on an idle machine the two are equal; on a
 * loaded one the burner is preempted and both the element and the tracer
 * see the longer wall). */
GST_START_TEST (test_cpu_burner)
{
  GstElement *pipeline, *burn;
  AxProfReport *r = ax_prof_run_full ("fakesrc num-buffers=30 ! "
      "axtestburn name=burn burn-us=3000 ! fakesink", &pipeline);
  JsonObject *row = ax_prof_find_row (r->root, "pipeline", "burn");
  guint64 wall_ns, cpu_ns;
  guint calls;
  gdouble own_mean_ms, own_cpu_ms;

  burn = gst_bin_get_by_name (GST_BIN (pipeline), "burn");
  g_object_get (burn, "wall-ns", &wall_ns, "cpu-ns", &cpu_ns, "calls",
      &calls, NULL);
  gst_object_unref (burn);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  fail_unless (row != NULL, "%s", r->text);
  fail_unless_equals_int (json_object_get_int_member (row, "count"), calls);
  /* the burner burnt its budget on the thread CPU clock, and the row's CPU
   * is what the burner itself measured around its burn, plus the call
   * outside it (the base class, the hooks) */
  own_cpu_ms = cpu_ns / 1e6 / calls;
  fail_unless (own_cpu_ms >= BURN_MS * (1 - TOLERANCE), "burnt %.3f ms",
      own_cpu_ms);
  fail_unless (member (row, "cpu_ms") >= own_cpu_ms * (1 - TOLERANCE) &&
      member (row, "cpu_ms") <= own_cpu_ms * (1 + TOLERANCE) + CALL_SLACK_MS,
      "cpu is %.3f ms, the burner's own %.3f ms", member (row, "cpu_ms"),
      own_cpu_ms);
  own_mean_ms = wall_ns / 1e6 / calls;
  assert_within (member (row, "mean_ms"), own_mean_ms, TOLERANCE,
      "wall against the element's own measurement");
  if (own_mean_ms <= BURN_MS * (1 + TOLERANCE)) {
    assert_within (member (row, "mean_ms"), BURN_MS, TOLERANCE, "wall");
    fail_if (ax_prof_row_has_flag (row, "BLOCKED"));
  }
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_page_toucher)
{
  AxProfReport *r = ax_prof_run ("fakesrc num-buffers=20 ! "
      "axtesttouch name=touch pages=64 ! fakesink");
  JsonObject *row = ax_prof_find_row (r->root, "pipeline", "touch");

  fail_unless (row != NULL, "%s", r->text);
#ifdef __SANITIZE_THREAD__
  /* ThreadSanitizer faults in the shadow pages of each page touched, so
   * the count is larger; the row must still have counted some */
  fail_unless (member (row, "faults") >= PAGES, "%s", r->text);
#else
  assert_within (member (row, "faults"), PAGES, TOLERANCE, "faults");
#endif
  /* the reader named is the one this process reads with; the fallback
   * when the environment asks for it */
  fail_unless (r->usage_reader != NULL);
  fail_unless_equals_string (r->usage_reader,
      gst_ax_probe_thread_usage_reader () == GST_AX_PROBE_USAGE_PERF ?
      "perf" : "rusage");
  if (g_strcmp0 (g_getenv ("GST_AX_PROBE_USAGE"), "rusage") == 0)
    fail_unless_equals_string (r->usage_reader, "rusage");
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_queue_slow_sink)
{
  AxProfReport *r = ax_prof_run ("fakesrc num-buffers=60 ! queue name=q "
      "max-size-buffers=5 max-size-bytes=0 max-size-time=0 ! "
      "identity sleep-time=2000 ! fakesink");
  JsonObject *q = ax_prof_find_queue (r->root, "q");
  JsonObject *verdict = json_object_get_object_member (r->root, "verdict");

  fail_unless (q != NULL, "%s", r->text);
  fail_unless (member (q, "mean") >= QUEUE_MAX * (1 - 2 * TOLERANCE),
      "mean depth %.2f:\n%s", member (q, "mean"), r->text);
  fail_unless_equals_int (json_object_get_int_member (q, "max_size_buffers"),
      QUEUE_MAX);
  fail_unless (member (q, "max") == QUEUE_MAX);
  fail_unless (strstr (json_object_get_string_member (verdict, "constraint"),
          "back-pressure") != NULL, "%s", r->text);
  /* the machine-readable twin names the same queue and the slow element */
  fail_unless_equals_string (json_object_get_string_member (verdict, "kind"),
      "backpressure");
  fail_unless_equals_string (json_object_get_string_member (verdict, "queue"),
      "q");
  fail_unless_equals_string (json_object_get_string_member (verdict,
          "element"), "identity0");
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_slow_source)
{
  AxProfReport *r = ax_prof_run ("videotestsrc name=camera is-live=true "
      "num-buffers=30 ! video/x-raw,width=64,height=48,framerate=100/1 ! "
      "queue name=q ! fakesink");
  JsonObject *q = ax_prof_find_queue (r->root, "q");
  JsonObject *verdict = json_object_get_object_member (r->root, "verdict");
  const gchar *constraint;

  fail_unless (q != NULL, "%s", r->text);
  fail_unless (member (q, "mean") < 0.5, "mean depth %.2f", member (q, "mean"));
  /* the pipeline keeps pace with its live source: not source starvation */
  constraint = json_object_get_string_member (verdict, "constraint");
  fail_unless (strstr (constraint, "keeps pace with its live source "
          "camera") != NULL, "%s", r->text);
  fail_unless_equals_string (json_object_get_string_member (verdict, "kind"),
      "live-paced");
  fail_unless_equals_string (json_object_get_string_member (verdict,
          "element"), "camera");
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_latency_delay_queue_tee)
{
  AxProfReport *r = ax_prof_run ("videotestsrc num-buffers=40 ! "
      "video/x-raw,format=I420,width=64,height=48 ! "
      "identity sleep-time=5000 ! videoconvert ! video/x-raw,format=RGB ! "
      "queue ! tee name=t t. ! queue ! fakesink t. ! queue ! fakesink");
  JsonObject *lat = json_object_get_object_member (r->root, "latency");

  fail_unless (json_object_has_member (lat, "n"), "%s", r->text);
  /* each of the two sinks counts every buffer */
  fail_unless_equals_int (json_object_get_int_member (lat, "n"), 80);
  fail_unless (member (lat, "min_ms") >= SLEEP_MS, "%s", r->text);
  fail_unless (member (lat, "p50_ms") <= SLEEP_MS * PREEMPTION_SLACK, "%s",
      r->text);
  fail_unless (json_node_is_null (json_object_get_member (lat, "p999_ms")));
  fail_unless (strstr (r->text, "p99.9 n/a(<1000)") != NULL);
  ax_prof_report_free (r);
}

GST_END_TEST;

#define DEVICE_LAUNCH "videotestsrc num-buffers=60 ! " \
    "video/x-raw,width=64,height=48 ! axtestdevice name=dev " \
    "model-name=testnet device-ms=8 cores=4 in-flight=2 ! fakesink"

static AxProfReport *
run_device (void)
{
  return ax_prof_run (DEVICE_LAUNCH);
}

/* The element keeps its own books of the jobs it ran: the ground truth.
 * The nominal values (2 of 4 cores, 2 in flight) are only reached when
 * the element's threads wake up in time, which a loaded machine delays,
 * so they are checked as upper bounds only. */

GST_START_TEST (test_device_sections)
{
  GstElement *pipeline, *dev;
  AxProfReport *r = ax_prof_run_full (DEVICE_LAUNCH, &pipeline);
  guint64 busy_ns, window_ns, host_ns;
  JsonObject *row = ax_prof_find_row (r->root, "testnet", "device wait");
  JsonArray *devices;
  JsonObject *d;
  gdouble occupancy_expected;

  fail_unless (ax_prof_find_group (r->root, "testnet") != NULL, "%s", r->text);
  fail_unless (row != NULL, "%s", r->text);
  fail_unless (ax_prof_row_has_flag (row, "DEVICE WAIT"));
  fail_if (ax_prof_row_has_flag (row, "BLOCKED"));
  fail_unless_equals_int (json_object_get_int_member (row, "count"),
      DEVICE_FRAMES);
  fail_unless (ax_prof_find_row (r->root, "testnet", "host copy in"));
  fail_unless (ax_prof_find_row (r->root, "testnet", "dequant"));
  fail_unless (strstr (r->text, "DEVICE WAIT") != NULL);

  devices = json_object_get_array_member (r->root, "devices");
  fail_unless (devices != NULL, "%s", r->text);
  fail_unless_equals_int (json_array_get_length (devices), 1);
  d = json_array_get_object_element (devices, 0);
  fail_unless_equals_int (json_object_get_int_member (d, "n_cores"),
      DEVICE_CORES);
  fail_unless_equals_int (json_object_get_int_member (d, "in_flight_window"),
      DEVICE_IN_FLIGHT);
  fail_unless_equals_int (json_object_get_int_member (d, "jobs"),
      DEVICE_FRAMES);
  assert_within (member (d, "device_ms"), DEVICE_MS, TOLERANCE, "device_ms");

  dev = gst_bin_get_by_name (GST_BIN (pipeline), "dev");
  g_object_get (dev, "busy-ns", &busy_ns, "window-ns", &window_ns,
      "host-ns", &host_ns, NULL);
  gst_object_unref (dev);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  fail_unless (window_ns > 0);
  assert_within (member (d, "occupancy_percent"),
      100.0 * busy_ns / (DEVICE_CORES * (gdouble) window_ns), TOLERANCE,
      "occupancy against the element's own books");
  assert_within (member (d, "depth"), (gdouble) (busy_ns + host_ns) /
      window_ns, TOLERANCE, "depth against the element's own books");
  /* at most two jobs of one core each outstanding on four cores: a
   * loaded host only lowers the figures (it takes longer between jobs),
   * so the bounds are structural, not timings */
  occupancy_expected = 100.0 * DEVICE_IN_FLIGHT / DEVICE_CORES;
  fail_unless (member (d, "occupancy_percent") > 0 &&
      member (d, "occupancy_percent") <= occupancy_expected *
      (1 + TOLERANCE), "occupancy %.1f%% with %d jobs in flight on %d cores",
      member (d, "occupancy_percent"), DEVICE_IN_FLIGHT, DEVICE_CORES);
  fail_unless (member (d, "depth") > 0 && member (d, "depth") <=
      DEVICE_IN_FLIGHT * (1 + TOLERANCE), "depth %.2f with a window of %d",
      member (d, "depth"), DEVICE_IN_FLIGHT);
  fail_unless (strstr (r->text, "Occupancy (") != NULL);
  fail_unless (strstr (r->text, "Device throughput (") != NULL);
  fail_unless (strstr (r->text, "Host/device wall-time share (") != NULL);
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_no_device_says_why)
{
  AxProfReport *r = ax_prof_run ("fakesrc num-buffers=5 ! fakesink");

  fail_unless (strstr (r->text, "Occupancy: no device in this pipeline") !=
      NULL, "%s", r->text);
  fail_unless (strstr (r->text, "Device throughput: no device") != NULL);
  fail_unless (strstr (r->text, "Queue depth: no queue") != NULL);
  fail_unless (json_object_has_member (json_object_get_object_member
          (r->root, "devices"), "absent"));
  ax_prof_report_free (r);
}

GST_END_TEST;

/* Every number printed in the text comes from the same model as the
 * JSON: rebuild the text lines from the JSON and find them. */
GST_START_TEST (test_json_and_text_agree)
{
  AxProfReport *r = run_device ();
  JsonArray *groups = json_object_get_array_member (r->root, "groups");
  JsonObject *tp = json_object_get_object_member (r->root, "throughput");
  JsonObject *lat = json_object_get_object_member (r->root, "latency");
  gchar *line;
  guint i, j;

  fail_unless (json_array_get_length (groups) >= 2);
  for (i = 0; i < json_array_get_length (groups); i++) {
    JsonObject *g = json_array_get_object_element (groups, i);
    JsonArray *rows = json_object_get_array_member (g, "rows");

    /* and its cost per frame, total / frames, as a cascade needs */
    fail_unless (fabs (member (g, "ms_per_frame") - member (g, "total_ms") /
            member (tp, "frames")) < 1e-6);
    line = g_strdup_printf ("  %-33s%10.2f ms total (%.1f%% of profiled, "
        "%.2f ms per frame)\n", json_object_get_string_member (g, "name"),
        member (g, "total_ms"), member (g, "percent"),
        member (g, "ms_per_frame"));
    fail_unless (strstr (r->text, line) != NULL, "missing '%s' in\n%s", line,
        r->text);
    g_free (line);
    for (j = 0; j < json_array_get_length (rows); j++) {
      JsonObject *row = json_array_get_object_element (rows, j);

      line = g_strdup_printf ("    %-35s%8.2f%9.2f%9.0f%9.2f%9.2f%8"
          G_GINT64_FORMAT, json_object_get_string_member (row, "name"),
          member (row, "mean_ms"), member (row, "cpu_ms"),
          member (row, "faults"), member (row, "min_ms"),
          member (row, "max_ms"), json_object_get_int_member (row, "count"));
      fail_unless (strstr (r->text, line) != NULL, "missing '%s' in\n%s",
          line, r->text);
      g_free (line);
    }
  }
  line = g_strdup_printf ("%" G_GINT64_FORMAT " frames in %.2f s  ->  %.1f "
      "fps", json_object_get_int_member (tp, "frames"), member (tp,
          "wall_s"), member (tp, "fps"));
  fail_unless (strstr (r->text, line) != NULL, "missing '%s'", line);
  g_free (line);
  line = g_strdup_printf ("min %.2f  mean %.2f  p50 %.2f  p95 %.2f  p99 %.2f",
      member (lat, "min_ms"), member (lat, "mean_ms"), member (lat, "p50_ms"),
      member (lat, "p95_ms"), member (lat, "p99_ms"));
  fail_unless (strstr (r->text, line) != NULL, "missing '%s'", line);
  g_free (line);
  fail_unless_equals_string (json_object_get_string_member (r->root,
          "schema"), GST_AX_REPORT_SCHEMA);
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_report_files)
{
  AxProfReport *r = ax_prof_run ("fakesrc num-buffers=5 ! "
      "identity name=filecheck ! fakesink");
  gchar *path = g_build_filename (out_dir, "report.txt", NULL);
  gchar *contents = NULL, *json_path;
  gboolean found_json = FALSE;
  guint n;

  fail_unless (g_file_get_contents (path, &contents, NULL, NULL));
  fail_unless (strstr (contents, r->text) != NULL);
  g_free (contents);
  g_free (path);
  for (n = 1; !found_json; n++) {
    json_path = n == 1 ? g_build_filename (out_dir, "report.json", NULL) :
        g_strdup_printf ("%s/report.json.%u", out_dir, n);
    if (!g_file_get_contents (json_path, &contents, NULL, NULL)) {
      g_free (json_path);
      break;
    }
    found_json = strcmp (contents, r->json) == 0;
    g_free (contents);
    g_free (json_path);
  }
  fail_unless (found_json, "the JSON file does not hold the report");
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_two_pipelines)
{
  GPtrArray *ra = g_ptr_array_new (), *rb = g_ptr_array_new ();
  GstElement *a = gst_parse_launch ("videotestsrc num-buffers=20 ! "
      "identity name=only_in_a ! fakesink", NULL);
  GstElement *b = gst_parse_launch ("videotestsrc num-buffers=30 ! "
      "identity name=only_in_b ! fakesink", NULL);
  GstMessage *msg;
  GstBus *bus;
  AxProfReport *r;

  gst_object_set_name (GST_OBJECT (a), "first");
  gst_object_set_name (GST_OBJECT (b), "second");
  ax_prof_watch (a, ra);
  ax_prof_watch (b, rb);
  gst_element_set_state (a, GST_STATE_PLAYING);
  gst_element_set_state (b, GST_STATE_PLAYING);
  bus = gst_element_get_bus (a);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_object_unref (bus);
  bus = gst_element_get_bus (b);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (a, GST_STATE_NULL);
  gst_element_set_state (b, GST_STATE_NULL);

  fail_unless_equals_int (ra->len, 1);
  fail_unless_equals_int (rb->len, 1);
  r = g_ptr_array_index (ra, 0);
  fail_unless_equals_string (r->pipeline, "first");
  fail_unless (ax_prof_find_row (r->root, NULL, "only_in_a") != NULL);
  fail_unless (ax_prof_find_row (r->root, NULL, "only_in_b") == NULL);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"), 20);
  ax_prof_report_free (r);
  r = g_ptr_array_index (rb, 0);
  fail_unless_equals_string (r->pipeline, "second");
  fail_unless (ax_prof_find_row (r->root, NULL, "only_in_b") != NULL);
  fail_unless (ax_prof_find_row (r->root, NULL, "only_in_a") == NULL);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"), 30);
  ax_prof_report_free (r);

  g_ptr_array_unref (ra);
  g_ptr_array_unref (rb);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_null_without_eos_and_on_demand)
{
  GPtrArray *reports = g_ptr_array_new ();
  GstElement *p = gst_parse_launch ("videotestsrc is-live=true ! "
      "video/x-raw,width=64,height=48,framerate=100/1 ! fakesink name=sink",
      NULL);
  GstAxReport *now;
  AxProfReport *r;
  gchar *text;

  ax_prof_watch (p, reports);
  fail_unless (gst_element_set_state (p, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  g_usleep (300 * G_TIME_SPAN_MILLISECOND);

  now = gst_ax_report_get_for_pipeline (p);
  fail_unless (now != NULL);
  fail_unless_equals_int (now->status, GST_AX_REPORT_STATUS_RUNNING);
  fail_unless (now->frames > 0);
  text = gst_ax_report_to_text (now);
  fail_unless (strstr (text, "on demand") != NULL, "%s", text);
  g_free (text);
  gst_ax_report_free (now);
  fail_unless_equals_int (reports->len, 0);

  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_index (reports, 0);
  fail_unless_equals_string (r->status, "cut-short");
  fail_unless (strstr (r->text, "CUT SHORT") != NULL, "%s", r->text);
  fail_unless (json_object_get_int_member (json_object_get_object_member
          (r->root, "throughput"), "frames") > 0);
  ax_prof_report_free (r);
  g_ptr_array_unref (reports);
  gst_object_unref (p);
}

GST_END_TEST;

GST_START_TEST (test_tee_multiqueue_compositor)
{
  AxProfReport *r = ax_prof_run ("videotestsrc num-buffers=30 ! "
      "video/x-raw,width=160,height=120,framerate=30/1 ! tee name=t "
      "t. ! queue ! mq.sink_0  t. ! queue ! mq.sink_1 "
      "multiqueue name=mq  mq.src_0 ! comp.sink_0  mq.src_1 ! comp.sink_1 "
      "compositor name=comp ! videoconvert ! fakesink");

  fail_unless (ax_prof_find_row (r->root, "pipeline", "comp") != NULL ||
      ax_prof_find_row (r->root, "pipeline", "comp (loop)") != NULL,
      "%s", r->text);
  fail_unless (ax_prof_find_queue (r->root, "mq:0") != NULL, "%s", r->text);
  fail_unless (ax_prof_find_queue (r->root, "mq:1") != NULL, "%s", r->text);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"), 30);
  fail_unless (json_object_get_int_member (json_object_get_object_member
          (r->root, "latency"), "n") > 0, "%s", r->text);
  ax_prof_report_free (r);
}

GST_END_TEST;

GST_START_TEST (test_bin_as_sink_groups)
{
  AxProfReport *r = ax_prof_run ("videotestsrc num-buffers=20 ! "
      "video/x-raw,width=64,height=48 ! identity name=outside ! "
      "( name=sinkbin queue name=inq ! fakesink name=insink )");

  fail_unless (ax_prof_find_group (r->root, "sinkbin") != NULL, "%s", r->text);
  fail_unless (ax_prof_find_row (r->root, "sinkbin", "inq") != NULL);
  fail_unless (ax_prof_find_row (r->root, "sinkbin", "insink") != NULL);
  fail_unless (ax_prof_find_row (r->root, "pipeline", "outside") != NULL);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "latency"), "n"), 20);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* The timeline's pipeline: a queue's level, a device of 4 cores with 2
 * jobs in flight, each job's submission flagged. */
#define TIMELINE_MODEL "timelinenet"
#define TIMELINE_LAUNCH "videotestsrc num-buffers=16 ! " \
    "video/x-raw,width=64,height=48 ! queue name=tlq ! axtestdevice " \
    "model-name=" TIMELINE_MODEL " device-ms=2 cores=4 in-flight=2 ! " \
    "fakesink"
#define NS_PER_US 1000.0

typedef struct
{
  gint64 ts;
  gint64 end;
  const gchar *name;
} TlSlice;

/* Perfetto's JSON importer reads µs and truncates to whole ns. */
static gint64
tl_ns (JsonObject * e, const gchar * member)
{
  return (gint64) (json_object_get_double_member (e, member) * NS_PER_US);
}

static gint
compare_tl_slices (gconstpointer a, gconstpointer b)
{
  const TlSlice *x = a, *y = b;

  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->end > y->end ? -1 : (x->end < y->end);
}

static gchar *
tl_key (gint64 pid, gint64 tid)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, pid, tid);
}

/* Is @ts inside a slice of @slices (one thread's, sorted)? */
static gboolean
tl_inside (GArray * slices, gint64 ts)
{
  guint i;

  for (i = 0; slices && i < slices->len; i++) {
    TlSlice *s = &g_array_index (slices, TlSlice, i);

    if (s->ts <= ts && ts < s->end)
      return TRUE;
  }
  return FALSE;
}

typedef struct
{
  guint device_jobs;
  guint queue_counters;
  guint in_flight_counters;
  guint flows;
} TlCheck;

/* Checks @path against the Trace Event Format as Perfetto reads it: each
 * thread's complete events nest (none straddles another), no negative
 * time, every process and thread named by an M event, tid 0 unused,
 * flows bound to a slice at both ends. */
static void
check_timeline (const gchar * path, TlCheck * c)
{
  JsonParser *parser = json_parser_new ();
  JsonArray *events;
  GHashTable *named_pids = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, NULL);
  GHashTable *named_tids = g_hash_table_new_full (g_int64_hash,
      g_int64_equal, g_free, NULL);
  GHashTable *threads = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, (GDestroyNotify) g_array_unref);
  GHashTable *flow_starts = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTableIter it;
  gpointer key, value;
  guint i, n;

  fail_unless (json_parser_load_from_file (parser, path, NULL), "%s", path);
  events = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (parser)), "traceEvents");
  fail_unless (events != NULL);
  n = json_array_get_length (events);
  memset (c, 0, sizeof (*c));

  for (i = 0; i < n; i++) {
    JsonObject *e = json_array_get_object_element (events, i);
    const gchar *ph = json_object_get_string_member (e, "ph");
    const gchar *name = json_object_get_string_member (e, "name");
    gint64 pid = json_object_get_int_member (e, "pid");

    fail_unless (name != NULL && pid > 0);
    if (json_object_has_member (e, "tid"))
      fail_if (json_object_get_int_member (e, "tid") == 0,
          "tid 0 is the process's own track: %s", name);
    if (strcmp (ph, "M") == 0) {
      JsonObject *args = json_object_get_object_member (e, "args");

      fail_unless (args != NULL && json_object_get_string_member (args,
              "name")[0] != '\0');
      if (strcmp (name, "process_name") == 0) {
        g_hash_table_add (named_pids, g_memdup2 (&pid, sizeof (pid)));
      } else {
        gint64 tid = json_object_get_int_member (e, "tid");

        fail_unless_equals_string (name, "thread_name");
        g_hash_table_add (named_tids, g_memdup2 (&tid, sizeof (tid)));
      }
    } else {
      fail_unless (tl_ns (e, "ts") >= 0, "%s at %f", name,
          json_object_get_double_member (e, "ts"));
    }
  }

  for (i = 0; i < n; i++) {
    JsonObject *e = json_array_get_object_element (events, i);
    const gchar *ph = json_object_get_string_member (e, "ph");
    const gchar *name = json_object_get_string_member (e, "name");
    gint64 pid = json_object_get_int_member (e, "pid");
    gint64 tid = json_object_has_member (e, "tid") ?
        json_object_get_int_member (e, "tid") : 0;

    fail_unless (g_hash_table_contains (named_pids, &pid),
        "pid %" G_GINT64_FORMAT " has no name", pid);
    if (tid != 0)
      fail_unless (g_hash_table_contains (named_tids, &tid),
          "tid %" G_GINT64_FORMAT " has no name", tid);
    if (strcmp (ph, "X") == 0) {
      TlSlice s;
      gchar *k = tl_key (pid, tid);
      GArray *a = g_hash_table_lookup (threads, k);

      fail_unless (tid != 0);
      s.ts = tl_ns (e, "ts");
      s.end = s.ts + tl_ns (e, "dur");
      s.name = name;
      fail_unless (s.end >= s.ts);
      if (a == NULL) {
        a = g_array_new (FALSE, FALSE, sizeof (TlSlice));
        g_hash_table_insert (threads, k, a);
      } else {
        g_free (k);
      }
      g_array_append_val (a, s);
      if (g_str_has_prefix (name, TIMELINE_MODEL " job "))
        c->device_jobs++;
    } else if (strcmp (ph, "C") == 0) {
      JsonObject *args = json_object_get_object_member (e, "args");

      fail_unless (args != NULL && json_object_get_size (args) == 1);
      if (strcmp (name, "tlq") == 0)
        c->queue_counters++;
      if (strcmp (name, TIMELINE_MODEL " in flight") == 0) {
        c->in_flight_counters++;
        fail_unless (json_object_get_int_member (args, "jobs") >= 0);
      }
    } else if (strcmp (ph, "s") != 0 && strcmp (ph, "f") != 0) {
      fail_unless_equals_string (ph, "M");
    }
  }

  /* nesting per thread */
  g_hash_table_iter_init (&it, threads);
  while (g_hash_table_iter_next (&it, &key, &value)) {
    GArray *a = value, *stack = g_array_new (FALSE, FALSE, sizeof (TlSlice));

    g_array_sort (a, compare_tl_slices);
    for (i = 0; i < a->len; i++) {
      TlSlice *s = &g_array_index (a, TlSlice, i);

      while (stack->len > 0 && g_array_index (stack, TlSlice,
              stack->len - 1).end <= s->ts)
        g_array_set_size (stack, stack->len - 1);
      if (stack->len > 0) {
        TlSlice *top = &g_array_index (stack, TlSlice, stack->len - 1);

        fail_if (s->end > top->end, "on %s, '%s' [%" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT "] straddles '%s' [%" G_GINT64_FORMAT ", %"
            G_GINT64_FORMAT "]", (gchar *) key, s->name, s->ts, s->end,
            top->name, top->ts, top->end);
      }
      g_array_append_val (stack, *s);
    }
    g_array_free (stack, TRUE);
  }

  /* flows: a start and an end per id, each inside a slice of its thread */
  for (i = 0; i < n; i++) {
    JsonObject *e = json_array_get_object_element (events, i);
    const gchar *ph = json_object_get_string_member (e, "ph");
    gchar *k;

    if (strcmp (ph, "s") != 0 && strcmp (ph, "f") != 0)
      continue;
    k = tl_key (json_object_get_int_member (e, "pid"),
        json_object_get_int_member (e, "tid"));
    fail_unless (tl_inside (g_hash_table_lookup (threads, k), tl_ns (e,
                "ts")), "flow %s unbound", ph);
    g_free (k);
    if (ph[0] == 's') {
      gint64 *id = g_new (gint64, 1);

      *id = json_object_get_int_member (e, "id");
      fail_if (g_hash_table_contains (flow_starts, id));
      g_hash_table_add (flow_starts, id);
    } else {
      gint64 id = json_object_get_int_member (e, "id");

      fail_unless_equals_string (json_object_get_string_member (e, "bp"), "e");
      fail_unless (g_hash_table_contains (flow_starts, &id));
      c->flows++;
    }
  }

  g_hash_table_iter_init (&it, flow_starts);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_free (key);
  g_hash_table_destroy (flow_starts);
  g_hash_table_destroy (threads);
  g_hash_table_destroy (named_pids);
  g_hash_table_destroy (named_tids);
  g_object_unref (parser);
}

/* perfetto= writes a timeline that opens cleanly: host threads and the
 * device's cores as named tracks, nested slices, a queue's level and the
 * in-flight depth as counters, a flow from each submission to its job */
GST_START_TEST (test_timeline)
{
  AxProfReport *r = ax_prof_run (TIMELINE_LAUNCH);
  gboolean found = FALSE;
  guint n;

  for (n = 1;; n++) {
    gchar *path = n == 1 ? g_build_filename (out_dir, "trace.json", NULL) :
        g_strdup_printf ("%s/trace.json.%u", out_dir, n);
    TlCheck c;

    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      g_free (path);
      break;
    }
    check_timeline (path, &c);
    g_free (path);
    if (c.device_jobs == 0)
      continue;
    found = TRUE;
    fail_unless (c.queue_counters > 0);
    fail_unless (c.in_flight_counters > 0);
    fail_unless (c.flows > 0);
  }
  fail_unless (found, "no timeline with the device's jobs");
  ax_prof_report_free (r);
}

GST_END_TEST;

#define SHARED_LAUNCH "videotestsrc num-buffers=8 ! " \
    "video/x-raw,width=64,height=48 ! tee name=t " \
    "t. ! queue ! axtestdevice model-name=sharea device-ms=2 cores=2 " \
    "in-flight=2 device-handle=7 ! fakesink " \
    "t. ! queue ! axtestdevice model-name=shareb device-ms=2 cores=2 " \
    "in-flight=2 device-handle=7 ! fakesink"

/* The one process of the device's jobs named @model, or 0. */
static gint64
timeline_job_pid (const gchar * path, const gchar * model)
{
  JsonParser *parser = json_parser_new ();
  JsonArray *events;
  gchar *prefix = g_strdup_printf ("%s job ", model);
  gint64 pid = 0;
  guint i;

  fail_unless (json_parser_load_from_file (parser, path, NULL));
  events = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (parser)), "traceEvents");
  for (i = 0; i < json_array_get_length (events); i++) {
    JsonObject *e = json_array_get_object_element (events, i);

    if (strcmp (json_object_get_string_member (e, "ph"), "X") != 0 ||
        !g_str_has_prefix (json_object_get_string_member (e, "name"), prefix))
      continue;
    if (pid == 0)
      pid = json_object_get_int_member (e, "pid");
    fail_unless_equals_int64 (json_object_get_int_member (e, "pid"), pid);
  }
  g_free (prefix);
  g_object_unref (parser);
  return pid;
}

/* Two models on one device: their jobs share the device's process (its
 * cores' tracks), and the timeline stays valid */
GST_START_TEST (test_timeline_shared_device)
{
  AxProfReport *r = ax_prof_run (SHARED_LAUNCH);
  gboolean found = FALSE;
  guint n;

  for (n = 1;; n++) {
    gchar *path = n == 1 ? g_build_filename (out_dir, "trace.json", NULL) :
        g_strdup_printf ("%s/trace.json.%u", out_dir, n);
    TlCheck c;
    gint64 a;

    if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
      g_free (path);
      break;
    }
    check_timeline (path, &c);
    a = timeline_job_pid (path, "sharea");
    if (a != 0) {
      found = TRUE;
      fail_unless_equals_int64 (timeline_job_pid (path, "shareb"), a);
    }
    g_free (path);
  }
  fail_unless (found, "no timeline with the shared device's jobs");
  ax_prof_report_free (r);
}

GST_END_TEST;

#define RAW_FRAMES 10
#define RAW_FRAME_BYTES (64 * 48 * 3)

/* Pull mode: the parser's task pulls from filesrc; filesrc's getrange is
 * its row, and frames enter the pipeline at the parser's pushes. */
GST_START_TEST (test_pull_mode)
{
  gchar *path = g_build_filename (out_dir, "raw.rgb", NULL);
  gchar *data = g_malloc0 (RAW_FRAMES * RAW_FRAME_BYTES);
  gchar *desc;
  AxProfReport *r;
  JsonObject *row;

  fail_unless (g_file_set_contents (path, data, RAW_FRAMES * RAW_FRAME_BYTES,
          NULL));
  desc = g_strdup_printf ("filesrc name=src location=%s ! rawvideoparse "
      "name=parse width=64 height=48 format=rgb framerate=30/1 ! fakesink",
      path);
  r = ax_prof_run (desc);
  row = ax_prof_find_row (r->root, "pipeline", "src");
  fail_unless (row != NULL, "%s", r->text);
  fail_unless (json_object_get_int_member (row, "count") >= 1);
  row = ax_prof_find_row (r->root, "pipeline", "parse (loop)");
  fail_unless (row != NULL, "%s", r->text);
  fail_unless (ax_prof_row_has_flag (row, "STAGE"));
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"),
      RAW_FRAMES);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "latency"), "n"), RAW_FRAMES);
  ax_prof_report_free (r);
  g_remove (path);
  g_free (desc);
  g_free (data);
  g_free (path);
}

GST_END_TEST;

#define LISTS 10
#define BUFFERS_PER_LIST 3

/* Buffer lists: frames count buffers, and a queue's depth stays
 * balanced (in as one list, out buffer by buffer). */
GST_START_TEST (test_buffer_lists)
{
  GPtrArray *reports = g_ptr_array_new ();
  GstElement *p = gst_parse_launch ("appsrc name=src format=time ! "
      "queue name=q ! fakesink", NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (p), "src");
  GstMessage *msg;
  GstFlowReturn ret;
  GstCaps *caps;
  AxProfReport *r;
  JsonObject *q;
  guint i, j;

  ax_prof_watch (p, reports);
  caps = gst_caps_new_empty_simple ("application/x-t");
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (i = 0; i < LISTS; i++) {
    GstBufferList *list = gst_buffer_list_new ();

    for (j = 0; j < BUFFERS_PER_LIST; j++) {
      GstBuffer *b = gst_buffer_new ();

      GST_BUFFER_PTS (b) = (i * BUFFERS_PER_LIST + j) * GST_MSECOND;
      gst_buffer_list_add (list, b);
    }
    g_signal_emit_by_name (src, "push-buffer-list", list, &ret);
    gst_buffer_list_unref (list);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);

  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_index (reports, 0);
  fail_unless_equals_int (json_object_get_int_member
      (json_object_get_object_member (r->root, "throughput"), "frames"),
      LISTS * BUFFERS_PER_LIST);
  q = ax_prof_find_queue (r->root, "q");
  fail_unless (q != NULL, "%s", r->text);
  fail_unless (member (q, "max") <= LISTS * BUFFERS_PER_LIST);
  fail_unless (member (q, "mean") >= 0);
  ax_prof_report_free (r);
  g_ptr_array_unref (reports);
  gst_object_unref (src);
  gst_object_unref (p);
}

GST_END_TEST;

/* A harness drives an element through pads that have no parent: those
 * pads are skipped and the element itself is still measured. */
GST_START_TEST (test_harness_unparented_pads)
{
  GstHarness *h = gst_harness_new ("identity");
  GstAxReport *report;
  GstAxReportGroup *g;
  guint i;
  guint64 count = 0;

  gst_harness_set_src_caps_str (h, "application/x-test");
  for (i = 0; i < 5; i++)
    gst_buffer_unref (gst_harness_push_and_pull (h, gst_buffer_new ()));
  report = gst_ax_report_get_for_pipeline (h->element);
  fail_unless (report != NULL);
  fail_unless (report->groups->len >= 1);
  g = g_ptr_array_index (report->groups, 0);
  for (i = 0; i < g->rows->len; i++) {
    GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, i);

    if (g_strcmp0 (row->name, GST_ELEMENT_NAME (h->element)) == 0)
      count = row->count;
  }
  fail_unless_equals_int (count, 5);
  gst_ax_report_free (report);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axprof_suite (void)
{
  Suite *s = suite_create ("axprof");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_identity_sleep_blocked);
  tcase_add_test (tc, test_cpu_burner);
  tcase_add_test (tc, test_page_toucher);
  tcase_add_test (tc, test_queue_slow_sink);
  tcase_add_test (tc, test_slow_source);
  tcase_add_test (tc, test_latency_delay_queue_tee);
  tcase_add_test (tc, test_device_sections);
  tcase_add_test (tc, test_no_device_says_why);
  tcase_add_test (tc, test_json_and_text_agree);
  tcase_add_test (tc, test_report_files);
  tcase_add_test (tc, test_two_pipelines);
  tcase_add_test (tc, test_null_without_eos_and_on_demand);
  tcase_add_test (tc, test_tee_multiqueue_compositor);
  tcase_add_test (tc, test_bin_as_sink_groups);
  tcase_add_test (tc, test_harness_unparented_pads);
  tcase_add_test (tc, test_timeline);
  tcase_add_test (tc, test_timeline_shared_device);
  tcase_add_test (tc, test_buffer_lists);
  tcase_add_test (tc, test_pull_mode);
  return s;
}

static void
remove_outputs (void)
{
  GDir *dir = g_dir_open (out_dir, 0, NULL);
  const gchar *name;

  while (dir && (name = g_dir_read_name (dir)) != NULL) {
    gchar *path = g_build_filename (out_dir, name, NULL);

    g_remove (path);
    g_free (path);
  }
  if (dir)
    g_dir_close (dir);
  g_rmdir (out_dir);
}

int
main (int argc, char **argv)
{
  gchar *tracers;
  int ret;

  out_dir = g_dir_make_tmp ("axprof-test-XXXXXX", NULL);
  g_assert (out_dir != NULL);
  tracers = g_strdup_printf ("axprof(file=%s/report.txt,json=%s/report.json,"
      "perfetto=%s/trace.json)", out_dir, out_dir, out_dir);
  g_setenv ("GST_TRACERS", tracers, TRUE);
  g_free (tracers);
  gst_check_init (&argc, &argv);
  ax_test_elements_register ();
  ret = gst_check_run_suite (axprof_suite (), "axprof", __FILE__);
  /* AXPROF_TEST_KEEP_OUTPUT=1 keeps the reports for reading */
  if (g_getenv ("AXPROF_TEST_KEEP_OUTPUT"))
    g_print ("reports kept in %s\n", out_dir);
  else
    remove_outputs ();
  g_free (out_dir);
  return ret;
}
