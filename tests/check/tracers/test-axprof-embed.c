/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axprof embedded in an application: enabled from code without
 * GST_TRACERS (main() checks the calls fail before and work after
 * gst_ax_profiler_enable()), the report as data on the bus and its JSON
 * read back, a profiled section that counts exactly the frames pushed in
 * it, sections while buffers flow, and print=false writing nothing to
 * stdout. */

#include "axproftest.h"
#include "reportcheck.h"

#include <gst/app/gstappsrc.h>
#include <glib/gstdio.h>
#include <gst/ax/ax.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define WIDTH 64
#define HEIGHT 48
#define CHANNELS 3
#define FPS 30
#define FRAMES_BEFORE 5
#define FRAMES_IN_SECTION 7
#define FRAMES_AFTER 3
#define WAIT_TIMEOUT (60 * G_TIME_SPAN_SECOND)
#define FLOWING_FRAMES 200
#define FLOWING_SECTION_US 2000
#define MARKER "ax-test-marker"
#define MODEL_PIPELINE "appsrc name=src format=time ! queue name=q ! " \
  "axletterbox ! axinference model=ball-detector ! axnms name=nms ! " \
  "fakesink name=sink"

/* What reached the sink, counted by a probe on its pad: a marker event
 * arrives after the streaming thread returned from every buffer before
 * it, so the tracer has recorded them all. */
typedef struct
{
  GMutex lock;
  GCond cond;
  guint buffers;
  guint markers;
} SinkCount;

static GstPadProbeReturn
count_at_sink (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  SinkCount *c = user_data;

  g_mutex_lock (&c->lock);
  if (info->type & GST_PAD_PROBE_TYPE_BUFFER) {
    c->buffers++;
  } else {
    GstEvent *ev = GST_PAD_PROBE_INFO_EVENT (info);

    if (GST_EVENT_TYPE (ev) == GST_EVENT_CUSTOM_DOWNSTREAM &&
        gst_event_has_name (ev, MARKER))
      c->markers++;
  }
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  return GST_PAD_PROBE_OK;
}

static void
push_frames (GstElement * src, guint first, guint n)
{
  guint i;

  for (i = first; i < first + n; i++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, WIDTH * HEIGHT * CHANNELS,
        NULL);

    gst_buffer_memset (buf, 0, (guint8) (i * 16), WIDTH * HEIGHT * CHANNELS);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, FPS);
    GST_BUFFER_DURATION (buf) = GST_SECOND / FPS;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
        GST_FLOW_OK);
  }
}

/* Pushes @n frames and a marker, and waits until the marker reached the
 * sink: then the frames have been through the whole pipeline. */
static void
run_frames (GstElement * src, SinkCount * c, guint from, guint n)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_TIMEOUT;
  guint markers, expected = from + n;

  g_mutex_lock (&c->lock);
  markers = c->markers;
  g_mutex_unlock (&c->lock);
  push_frames (src, from, n);
  fail_unless (gst_element_send_event (src,
          gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty (MARKER))));
  g_mutex_lock (&c->lock);
  while (c->markers == markers)
    fail_unless (g_cond_wait_until (&c->cond, &c->lock, deadline),
        "the marker did not reach the sink");
  fail_unless_equals_int (c->buffers, expected);
  g_mutex_unlock (&c->lock);
}

static const GstAxReportRow *
find_row (const GstAxReport * r, const gchar * name)
{
  guint i, j;

  for (i = 0; i < r->groups->len; i++) {
    const GstAxReportGroup *g = g_ptr_array_index (r->groups, i);

    for (j = 0; j < g->rows->len; j++) {
      const GstAxReportRow *row = &g_array_index (g->rows, GstAxReportRow, j);

      if (g_strcmp0 (row->name, name) == 0)
        return row;
    }
  }
  return NULL;
}

static GstAxReport *
report_of_message (GstMessage * msg)
{
  const GstStructure *s = gst_message_get_structure (msg);
  GstAxReport *r = NULL;

  fail_unless (s != NULL && gst_structure_has_name (s, "axprof-report"));
  fail_unless (gst_structure_get (s, "report", GST_AX_TYPE_REPORT, &r, NULL));
  return r;
}

static GstElement *
start_model_pipeline (SinkCount * c)
{
  GstElement *pipeline = gst_parse_launch (MODEL_PIPELINE, NULL);
  GstElement *src, *sink;
  GstCaps *caps;
  GstPad *pad;

  fail_unless (pipeline != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING, "RGB",
      "width", G_TYPE_INT, WIDTH, "height", G_TYPE_INT, HEIGHT,
      "framerate", GST_TYPE_FRACTION, FPS, 1, NULL);
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);
  gst_object_unref (src);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
      GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_at_sink, c, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  return pipeline;
}

static GstMessage *
wait_eos_report (GstElement * pipeline, GstAxReport ** eos_report)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  *eos_report = NULL;
  while ((msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      if (gst_message_has_name (msg, "axprof-report"))
        *eos_report = report_of_message (msg);
      gst_message_unref (msg);
      continue;
    }
    break;
  }
  gst_object_unref (bus);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  return msg;
}

GST_START_TEST (test_section_counts_its_frames)
{
  SinkCount c = { 0, };
  GstElement *pipeline = start_model_pipeline (&c);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  GstAxReport *r, *eos_report;
  const GstAxReportRow *sink, *nms;
  GError *err = NULL;

  run_frames (src, &c, 0, FRAMES_BEFORE);
  fail_unless (gst_ax_profiler_start (pipeline, &err), "%s",
      err ? err->message : "?");
  run_frames (src, &c, FRAMES_BEFORE, FRAMES_IN_SECTION);
  r = gst_ax_profiler_stop (pipeline, &err);
  fail_unless (r != NULL, "%s", err ? err->message : "?");

  fail_unless_equals_int (r->status, GST_AX_REPORT_STATUS_SECTION);
  /* the signal's return handed over the one reference */
  fail_unless_equals_int (g_atomic_int_get (&r->ref_count), 1);
  fail_unless (r->refusal == NULL, "%s", r->refusal);
  sink = find_row (r, "sink");
  nms = find_row (r, "nms");
  fail_unless (sink != NULL && nms != NULL);
  fail_unless_equals_int (sink->count, FRAMES_IN_SECTION);
  fail_unless_equals_int (nms->count, FRAMES_IN_SECTION);
  fail_unless_equals_int (r->frames, FRAMES_IN_SECTION);
  fail_unless (r->wall_s > 0 && r->fps > 0);
  fail_unless_equals_int (r->latency.n, FRAMES_IN_SECTION);
  fail_unless (r->devices_absent == NULL && r->devices->len == 1);
  fail_unless_equals_int (g_array_index (r->devices, GstAxReportDevice,
          0).jobs, FRAMES_IN_SECTION);
  fail_unless_equals_int (r->device_occupancy->len, 1);
  fail_unless (r->queues_absent == NULL && r->queues->len == 1);
  fail_unless (r->constraint != NULL && r->verdict != NULL);
  {
    GstAxReportVerdict *stored = gst_ax_report_get_verdict (r);
    GstAxReportVerdict *made = gst_ax_report_make_verdict (r);
    guint i;

    fail_unless_equals_string (stored->text, made->text);
    fail_unless_equals_int (stored->steps->len, made->steps->len);
    for (i = 0; i < made->steps->len; i++)
      fail_unless_equals_string (g_ptr_array_index (stored->steps, i),
          g_ptr_array_index (made->steps, i));
    gst_ax_report_verdict_free (stored);
    gst_ax_report_verdict_free (made);
  }
  ax_assert_report_round_trip (r);
  gst_ax_report_unref (r);

  /* a second stop has no section to end */
  fail_unless (gst_ax_profiler_stop (pipeline, &err) == NULL);
  fail_unless (g_error_matches (err, GST_AX_PROFILER_ERROR,
          GST_AX_PROFILER_ERROR_NO_SECTION), "%s", err->message);
  g_clear_error (&err);

  /* the EOS report counts from the section's start */
  run_frames (src, &c, FRAMES_BEFORE + FRAMES_IN_SECTION, FRAMES_AFTER);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_message_unref (wait_eos_report (pipeline, &eos_report));
  fail_unless (eos_report != NULL);
  fail_unless_equals_int (eos_report->status, GST_AX_REPORT_STATUS_EOS);
  fail_unless_equals_int (eos_report->frames, FRAMES_IN_SECTION + FRAMES_AFTER);
  gst_ax_report_unref (eos_report);

  gst_object_unref (src);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  g_mutex_clear (&c.lock);
  g_cond_clear (&c.cond);
}

GST_END_TEST;

/* Sections started and stopped while buffers flow: each report covers at
 * most what ran, and nothing the streaming threads touch breaks. */
GST_START_TEST (test_sections_while_flowing)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers="
      G_STRINGIFY (FLOWING_FRAMES) " ! video/x-raw,width=64,height=48 ! "
      "queue ! identity name=work ! fakesink name=out", NULL);
  GstBus *bus;
  GstMessage *msg = NULL;
  GError *err = NULL;
  guint sections = 0;

  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while (msg == NULL) {
    GstAxReport *r;

    fail_unless (gst_ax_profiler_start (pipeline, &err), "%s",
        err ? err->message : "?");
    g_usleep (FLOWING_SECTION_US);
    r = gst_ax_profiler_stop (pipeline, &err);
    fail_unless (r != NULL, "%s", err ? err->message : "?");
    fail_unless_equals_int (r->status, GST_AX_REPORT_STATUS_SECTION);
    fail_unless (r->frames <= FLOWING_FRAMES);
    gst_ax_report_unref (r);
    sections++;
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  }
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  fail_unless (sections > 0);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* The bus message's report, its JSON member and the JSON read back all
 * agree, on a report of a real run. */
GST_START_TEST (test_bus_report_round_trip)
{
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=6 ! "
      "video/x-raw,format=RGB,width=64,height=48,framerate=30/1 ! "
      "tee name=t ! queue ! axletterbox ! axinference model=ball-detector "
      "model-name=ball-a ! axnms ! fakesink t. ! queue ! axletterbox ! "
      "axinference model=ball-detector model-name=ball-b ! fakesink", NULL);
  GstAxReport *r;
  const GstStructure *s;
  GstBus *bus;
  GstMessage *msg;
  gchar *json;

  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT);
  s = gst_message_get_structure (msg);
  r = report_of_message (msg);
  json = gst_ax_report_to_json (r);
  fail_unless_equals_string (json, gst_structure_get_string (s, "json"));
  /* two models on one device: the occupancy links must come back */
  fail_unless_equals_int (r->devices->len, 2);
  fail_unless_equals_int (r->device_occupancy->len, 1);
  ax_assert_report_round_trip (r);
  g_free (json);
  gst_ax_report_unref (r);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* print=false (main() enables the tracer with it): a run writes nothing
 * to stdout, and its report still reaches the bus. */
GST_START_TEST (test_print_false_is_quiet)
{
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("axprof-stdout-XXXXXX", &path, NULL);
  gint saved;
  AxProfReport *r;
  gchar *out = NULL;

  fail_unless (fd >= 0);
  fflush (stdout);
  saved = dup (STDOUT_FILENO);
  fail_unless (dup2 (fd, STDOUT_FILENO) >= 0);
  r = ax_prof_run ("videotestsrc num-buffers=4 ! fakesink name=out");
  fflush (stdout);
  fail_unless (dup2 (saved, STDOUT_FILENO) >= 0);
  close (saved);
  close (fd);
  fail_unless (strstr (r->text, "axprof report for") != NULL);
  fail_unless (g_file_get_contents (path, &out, NULL, NULL));
  fail_unless_equals_string (out, "");
  g_unlink (path);
  g_free (path);
  g_free (out);
  ax_prof_report_free (r);
}

GST_END_TEST;

static Suite *
axprof_embed_suite (void)
{
  Suite *s = suite_create ("axprof-embed");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_section_counts_its_frames);
  tcase_add_test (tc, test_sections_while_flowing);
  tcase_add_test (tc, test_bus_report_round_trip);
  tcase_add_test (tc, test_print_false_is_quiet);
  return s;
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  GstElement *pipeline;

  /* the tracer comes from code alone */
  g_unsetenv ("GST_TRACERS");
  gst_check_init (&argc, &argv);

  pipeline = gst_pipeline_new ("before");
  if (gst_ax_profiler_is_enabled () ||
      gst_ax_profiler_start (pipeline, &err) ||
      !g_error_matches (err, GST_AX_PROFILER_ERROR,
          GST_AX_PROFILER_ERROR_NOT_ENABLED))
    g_error ("a profiler call worked without a tracer");
  g_clear_error (&err);
  gst_object_unref (pipeline);

  if (!gst_ax_profiler_enable ("print=false", &err))
    g_error ("gst_ax_profiler_enable: %s", err->message);
  if (!gst_ax_profiler_is_enabled ())
    g_error ("axprof is not active after gst_ax_profiler_enable()");
  /* a second call keeps the tracer it has */
  if (!gst_ax_profiler_enable ("print=true", NULL))
    g_error ("gst_ax_profiler_enable failed a second time");

  return gst_check_run_suite (axprof_embed_suite (), "axprof-embed", __FILE__);
}
