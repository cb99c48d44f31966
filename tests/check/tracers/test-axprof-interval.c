/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axprof's interval=: on a live source, each interval's report counts
 * exactly the frames that reached the sink in it (frames pushed in
 * batches, each batch at the sink before the next interval ends), an
 * idle interval counts none, the intervals tile the run and add up to the
 * EOS report, and json= holds every report as a JSON Lines file that
 * reads back. A live run's RSS is sampled at every interval: a few
 * seconds here, half an hour with GST_AX_STRESS=full. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/ax/ax.h>
#include <glib/gstdio.h>

#include <math.h>
#include <string.h>

#define INTERVAL_S 0.5
#define WAIT_US (60 * G_TIME_SPAN_SECOND)

static gchar *jsonl_path;

typedef struct
{
  GMutex lock;
  GCond cond;
  guint sink_frames;
  guint intervals;
  guint64 interval_frames;
  /* (element-type GstAxReport): every report, in the order posted */
  GPtrArray *reports;
  /* RSS (KiB) at each interval report */
  GArray *rss;
} Watch;

static gdouble
rss_kib (void)
{
  gchar *status = NULL, *line;
  gdouble kib = 0;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return 0;
  line = strstr (status, "VmRSS:");
  if (line)
    kib = g_ascii_strtod (line + strlen ("VmRSS:"), NULL);
  g_free (status);
  return kib;
}

static GstBusSyncReply
on_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Watch *w = user_data;
  const GstStructure *s = gst_message_get_structure (msg);
  GstAxReport *r = NULL;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT || s == NULL ||
      !gst_structure_has_name (s, "axprof-report"))
    return GST_BUS_PASS;
  gst_structure_get (s, "report", GST_AX_TYPE_REPORT, &r, NULL);
  fail_unless (r != NULL);
  g_mutex_lock (&w->lock);
  g_ptr_array_add (w->reports, r);
  if (r->status == GST_AX_REPORT_STATUS_INTERVAL) {
    gdouble kib = rss_kib ();
    guint index = 0;

    w->intervals++;
    w->interval_frames += r->frames;
    g_array_append_val (w->rss, kib);
    fail_unless (gst_structure_get_uint (s, "interval", &index));
    fail_unless_equals_int (index, r->interval_index);
    fail_unless_equals_string (gst_structure_get_string (s, "status"),
        "interval");
  }
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  return GST_BUS_PASS;
}

static GstPadProbeReturn
count_at_sink (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Watch *w = user_data;

  g_mutex_lock (&w->lock);
  w->sink_frames++;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  return GST_PAD_PROBE_OK;
}

static void
watch_init (Watch * w)
{
  memset (w, 0, sizeof (*w));
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
  w->reports = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_ax_report_unref);
  w->rss = g_array_new (FALSE, FALSE, sizeof (gdouble));
}

static void
watch_clear (Watch * w)
{
  g_ptr_array_unref (w->reports);
  g_array_unref (w->rss);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
}

static GstElement *
start (const gchar * desc, Watch * w)
{
  GstElement *pipeline = gst_parse_launch (desc, NULL);
  GstElement *sink;
  GstBus *bus;
  GstPad *pad;

  fail_unless (pipeline != NULL);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, on_message, w, NULL);
  gst_object_unref (bus);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_at_sink, w, NULL);
  gst_object_unref (pad);
  gst_object_unref (sink);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  return pipeline;
}

static void
wait_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
}

static GstPadProbeReturn
on_idle (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint *settled = user_data;

  g_atomic_int_set (settled, 1);
  return GST_PAD_PROBE_REMOVE;
}

/* Waits until the sink has @frames and the queue's push of the last one
 * has returned (so the tracer has counted it at the sink), then for two
 * interval reports more: the first may have been made before, the second
 * was made after. */
static void
wait_counted_then_intervals (Watch * w, GstElement * pipeline, guint frames,
    guint n)
{
  gint64 end = g_get_monotonic_time () + WAIT_US;
  GstElement *q = gst_bin_get_by_name (GST_BIN (pipeline), "q");
  GstPad *pad = gst_element_get_static_pad (q, "src");
  gint settled = 0;
  guint seen;

  g_mutex_lock (&w->lock);
  while (w->sink_frames < frames)
    fail_unless (g_cond_wait_until (&w->cond, &w->lock, end),
        "the sink got %u of %u frames", w->sink_frames, frames);
  g_mutex_unlock (&w->lock);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_IDLE, on_idle, &settled, NULL);
  while (!g_atomic_int_get (&settled)) {
    fail_unless (g_get_monotonic_time () < end, "the queue never idled");
    g_usleep (1000);
  }
  gst_object_unref (pad);
  gst_object_unref (q);
  g_mutex_lock (&w->lock);
  seen = w->intervals;
  while (w->intervals < seen + n)
    fail_unless (g_cond_wait_until (&w->cond, &w->lock, end),
        "no interval report came");
  g_mutex_unlock (&w->lock);
}

static void
push_frames (GstElement * src, guint first, guint n)
{
  guint i;

  for (i = first; i < first + n; i++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, 64 * 48 * 3, NULL);

    gst_buffer_memset (buf, 0, (guint8) i, 64 * 48 * 3);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src), buf),
        GST_FLOW_OK);
  }
}

/* The interval reports of @w tile the run whose EOS report is the last
 * one, and add up to it. */
static void
check_tiling (Watch * w, guint frames)
{
  GstAxReport *eos = g_ptr_array_index (w->reports, w->reports->len - 1);
  gdouble end_s = 0;
  guint64 sum = 0, latencies = 0;
  guint i;

  fail_unless_equals_int (eos->status, GST_AX_REPORT_STATUS_EOS);
  fail_unless_equals_int (eos->frames, frames);
  fail_unless_equals_int (w->reports->len, w->intervals + 1);
  for (i = 0; i + 1 < w->reports->len; i++) {
    GstAxReport *r = g_ptr_array_index (w->reports, i);
    const GstAxReportRow *sink = gst_ax_report_find_row (r, NULL, "sink", NULL);

    fail_unless_equals_int (r->status, GST_AX_REPORT_STATUS_INTERVAL);
    fail_unless_equals_int (r->interval_index, i + 1);
    fail_unless (fabs (r->interval_start_s - end_s) < 1e-9,
        "interval %u starts at %.9f s, the last ended at %.9f s", i + 1,
        r->interval_start_s, end_s);
    end_s = r->interval_start_s + r->wall_s;
    sum += r->frames;
    /* the sink's row counts the interval's frames; the latency counts a
     * frame when it enters the sink, the row when the sink is done with
     * it, so a frame inside the sink at the interval's end is in this
     * interval's latency and the next one's frames */
    fail_unless_equals_int (sink ? sink->count : 0, r->frames);
    fail_unless (r->latency.n + 1 >= r->frames &&
        r->latency.n <= r->frames + 1, "interval %u: %" G_GUINT64_FORMAT
        " latencies for %" G_GUINT64_FORMAT " frames", i + 1, r->latency.n,
        r->frames);
    latencies += r->latency.n;
    fail_unless (r->constraint != NULL);
  }
  fail_unless_equals_int (sum, frames);
  fail_unless_equals_int (latencies, eos->latency.n);
  fail_unless (fabs (end_s - eos->wall_s) < 1e-6,
      "the intervals end at %.6f s, the run at %.6f s", end_s, eos->wall_s);
}

GST_START_TEST (test_interval_counts_exact)
{
  Watch w;
  GstElement *pipeline, *src;
  GstCaps *caps;
  gchar *contents = NULL, **lines;
  GError *err = NULL;
  guint i, n_lines = 0;

  watch_init (&w);
  pipeline = start ("appsrc name=src is-live=true format=time ! "
      "queue name=q ! videoconvert ! video/x-raw,format=I420 ! "
      "fakesink name=sink sync=false", &w);
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  caps = gst_caps_from_string ("video/x-raw,format=RGB,width=64,height=48,"
      "framerate=30/1");
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  gst_caps_unref (caps);

  push_frames (src, 0, 7);
  wait_counted_then_intervals (&w, pipeline, 7, 2);
  fail_unless_equals_int (w.interval_frames, 7);
  /* an interval in which nothing came counts nothing */
  wait_counted_then_intervals (&w, pipeline, 7, 1);
  fail_unless_equals_int (w.interval_frames, 7);
  {
    GstAxReport *idle = g_ptr_array_index (w.reports, w.reports->len - 1);

    fail_unless_equals_int (idle->status, GST_AX_REPORT_STATUS_INTERVAL);
    fail_unless_equals_int (idle->frames, 0);
    fail_unless (idle->fps == 0);
    fail_unless (idle->latency_absent != NULL);
  }

  push_frames (src, 7, 5);
  wait_counted_then_intervals (&w, pipeline, 12, 2);
  fail_unless_equals_int (w.interval_frames, 12);

  push_frames (src, 12, 3);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  wait_eos (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  check_tiling (&w, 15);

  /* json= is a JSON Lines file of every report, which reads back */
  fail_unless (g_file_get_contents (jsonl_path, &contents, NULL, &err), "%s",
      err ? err->message : "?");
  lines = g_strsplit (contents, "\n", -1);
  for (i = 0; lines[i] != NULL; i++) {
    GstAxReport *r, *posted;

    if (*lines[i] == '\0')
      continue;
    fail_unless (n_lines < w.reports->len, "more lines than reports");
    posted = g_ptr_array_index (w.reports, n_lines++);
    r = gst_ax_report_new_from_json (lines[i], &err);
    fail_unless (r != NULL, "line %u: %s", i + 1, err ? err->message : "?");
    fail_unless_equals_int (r->status, posted->status);
    fail_unless_equals_int (r->interval_index, posted->interval_index);
    fail_unless_equals_int (r->frames, posted->frames);
    gst_ax_report_unref (r);
  }
  fail_unless_equals_int (n_lines, w.reports->len);
  g_strfreev (lines);
  g_free (contents);

  gst_object_unref (src);
  gst_object_unref (pipeline);
  watch_clear (&w);
}

GST_END_TEST;

/* A live run reported every interval: memory stays bounded whatever the
 * run's length. Short here; GST_AX_STRESS=full runs half an hour. */
GST_START_TEST (test_interval_live_run)
{
  gboolean full = g_strcmp0 (g_getenv ("GST_AX_STRESS"), "full") == 0;
  guint seconds = full ? 1800 : 4, frames = seconds * 30, i;
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true pattern=ball "
      "num-buffers=%u ! video/x-raw,width=320,height=240,framerate=30/1 ! "
      "queue ! videoconvert ! video/x-raw,format=I420 ! "
      "fakesink name=sink sync=false", frames);
  gdouble base, top, last;
  guint from;
  Watch w;
  GstElement *pipeline;

  watch_init (&w);
  pipeline = start (desc, &w);
  wait_eos (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  check_tiling (&w, frames);
  fail_unless (w.rss->len > 0);
  from = w.rss->len / 4;
  base = top = g_array_index (w.rss, gdouble, from);
  last = g_array_index (w.rss, gdouble, w.rss->len - 1);
  for (i = from; i < w.rss->len; i++)
    top = MAX (top, g_array_index (w.rss, gdouble, i));
  g_print ("interval live run: %u s, %u interval reports; RSS %.0f KiB at "
      "the first, %.0f KiB at a quarter, at most %.0f KiB from there, %.0f "
      "KiB at the last\n", seconds, w.intervals,
      g_array_index (w.rss, gdouble, 0), base, top, last);
  /* a few seconds move the RSS by the allocator's arenas: only the long
   * form bounds its growth */
  if (full)
    fail_unless (top - base < 8192, "RSS rose %.0f KiB over the run",
        top - base);
  gst_object_unref (pipeline);
  watch_clear (&w);
  g_free (desc);
}

GST_END_TEST;

/* A model on the simulated device: the intervals' jobs and device time
 * add up to the run's, and each interval's device time is its models'. */
GST_START_TEST (test_interval_device)
{
  Watch w;
  GstElement *pipeline;
  GstAxReport *eos;
  guint64 jobs = 0;
  gdouble busy_ms = 0;
  guint i, j;

  watch_init (&w);
  pipeline = start ("videotestsrc is-live=true pattern=ball num-buffers=60 ! "
      "video/x-raw,format=RGB,width=64,height=48,framerate=30/1 ! "
      "axletterbox ! axinference model=ball-detector ! axnms ! "
      "fakesink name=sink sync=false", &w);
  wait_eos (pipeline);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  check_tiling (&w, 60);
  eos = g_ptr_array_index (w.reports, w.reports->len - 1);
  fail_unless_equals_int (eos->devices->len, 1);
  fail_unless_equals_int (eos->device_occupancy->len, 1);
  for (i = 0; i + 1 < w.reports->len; i++) {
    GstAxReport *r = g_ptr_array_index (w.reports, i);
    GstAxReportDeviceOccupancy *o;
    gdouble models_ms = 0;

    fail_unless_equals_int (r->devices->len, 1);
    fail_unless_equals_int (r->device_occupancy->len, 1);
    jobs += g_array_index (r->devices, GstAxReportDevice, 0).jobs;
    o = &g_array_index (r->device_occupancy, GstAxReportDeviceOccupancy, 0);
    for (j = 0; j < o->models->len; j++)
      models_ms += g_array_index (o->models, GstAxReportModelShare, j).busy_ms;
    fail_unless (fabs (o->busy_ms - models_ms) <= 1e-6 * MAX (models_ms, 1),
        "interval %u: device busy %.6f ms, its models' %.6f ms", i + 1,
        o->busy_ms, models_ms);
    busy_ms += o->busy_ms;
  }
  fail_unless_equals_int (jobs, g_array_index (eos->devices,
          GstAxReportDevice, 0).jobs);
  fail_unless_equals_int (jobs, 60);
  fail_unless (fabs (busy_ms - g_array_index (eos->device_occupancy,
              GstAxReportDeviceOccupancy, 0).busy_ms) <= 1e-6 * busy_ms,
      "the intervals' device time %.6f ms, the run's %.6f ms", busy_ms,
      g_array_index (eos->device_occupancy, GstAxReportDeviceOccupancy,
          0).busy_ms);
  gst_object_unref (pipeline);
  watch_clear (&w);
}

GST_END_TEST;

static Suite *
axprof_interval_suite (void)
{
  Suite *s = suite_create ("axprof-interval");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 3600);
  tcase_add_test (tc, test_interval_counts_exact);
  tcase_add_test (tc, test_interval_device);
  tcase_add_test (tc, test_interval_live_run);
  return s;
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  gchar *dir, *params;
  gint ret;

  g_unsetenv ("GST_TRACERS");
  gst_check_init (&argc, &argv);
  dir = g_dir_make_tmp ("axprof-interval-XXXXXX", &err);
  if (dir == NULL)
    g_error ("%s", err->message);
  jsonl_path = g_build_filename (dir, "reports.jsonl", NULL);
  params = g_strdup_printf ("print=false,interval=%g,json=\"%s\"", INTERVAL_S,
      jsonl_path);
  if (!gst_ax_profiler_enable (params, &err))
    g_error ("gst_ax_profiler_enable: %s", err->message);
  g_free (params);
  ret = gst_check_run_suite (axprof_interval_suite (), "axprof-interval",
      __FILE__);
  g_unlink (jsonl_path);
  g_rmdir (dir);
  g_free (jsonl_path);
  g_free (dir);
  return ret;
}
