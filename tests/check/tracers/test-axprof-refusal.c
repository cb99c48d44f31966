/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The rules of the DEBUG refusal (gst/ax/gstaxdebugcheck.c): decided
 * before the run from the thresholds (the default one, our elements'
 * categories, the core's data flow), then after the run from messages
 * logged at a per-frame rate. The stock latency tracer runs beside axprof
 * here, so that GST_TRACER:7 really logs a record per buffer. */

#include "axproftest.h"

#include <gst/ax/gstax-private.h>
#include <string.h>

#define FRAMES 50
#define PIPELINE "fakesrc name=src num-buffers=50 sizetype=fixed sizemax=64 " \
  "! identity name=work ! fakesink name=sink"
/* not named ax*: those are our elements' */
#define STRAY_CATEGORY "proftest-stray"
#define CHATTY_CATEGORY "proftest-chatty"

GST_DEBUG_CATEGORY_STATIC (stray_debug);
GST_DEBUG_CATEGORY_STATIC (chatty_debug);

static gboolean
refused (AxProfReport * r)
{
  return strstr (r->text, "Error: DEBUG logging is enabled") != NULL;
}

static void
assert_refused (AxProfReport * r, const gchar * why)
{
  fail_unless (refused (r), "not refused:\n%s", r->text);
  fail_unless (strstr (r->text, why) != NULL, "no \"%s\" in:\n%s", why,
      r->text);
  /* what it would have cost, and what to do */
  fail_unless (strstr (r->text, "% of throughput (measured ") != NULL,
      "%s", r->text);
  fail_unless (strstr (r->text, "Rerun without GST_DEBUG") != NULL);
  fail_unless (strstr (r->text, "Per-operator") == NULL, "%s", r->text);
  fail_if (json_node_is_null (json_object_get_member (r->root, "refusal")));
}

static void
assert_reported (AxProfReport * r)
{
  fail_if (refused (r), "refused:\n%s", r->text);
  fail_unless (strstr (r->text, "Per-operator/stage time (") != NULL, "%s",
      r->text);
  fail_unless (strstr (r->text, "ALLOW-DEBUG") == NULL, "%s", r->text);
  fail_unless (ax_prof_find_row (r->root, NULL, "work") != NULL);
}

GST_START_TEST (test_default_threshold_refuses)
{
  AxProfReport *r;

  gst_debug_set_default_threshold (GST_LEVEL_DEBUG);
  r = ax_prof_run (PIPELINE);
  gst_debug_set_default_threshold (GST_LEVEL_WARNING);
  /* the level's name, not its padded column ("DEBUG  )") */
  assert_refused (r, "(the default threshold is DEBUG)");
  ax_prof_report_free (r);
}

GST_END_TEST;

/* axinference is not even in the pipeline, so nothing logs through it:
 * the threshold alone decides, before the run */
GST_START_TEST (test_our_category_refuses_before_run)
{
  AxProfReport *r;
  gchar *why;

  gst_debug_set_threshold_for_name ("axinference", GST_LEVEL_DEBUG);
  why = gst_ax_debug_check_threshold ();
  fail_unless_equals_string (why, "category axinference is at DEBUG");
  g_free (why);
  r = ax_prof_run (PIPELINE);
  gst_debug_unset_threshold_for_name ("axinference");
  assert_refused (r, "(category axinference is at DEBUG)");
  ax_prof_report_free (r);
  why = gst_ax_debug_check_threshold ();
  fail_unless (why == NULL, "%s", why);
}

GST_END_TEST;

GST_START_TEST (test_data_flow_category_refuses)
{
  AxProfReport *r;

  gst_debug_set_threshold_for_name ("GST_SCHEDULING", GST_LEVEL_LOG);
  r = ax_prof_run (PIPELINE);
  gst_debug_unset_threshold_for_name ("GST_SCHEDULING");
  assert_refused (r, "(category GST_SCHEDULING is at LOG)");
  ax_prof_report_free (r);
}

GST_END_TEST;

/* the stock latency tracer's GST_DEBUG=GST_TRACER:7 logs one record per
 * buffer: that is the output the user asked for */
GST_START_TEST (test_tracer_category_does_not_refuse)
{
  AxProfReport *r;
  gchar *why;

  gst_debug_set_threshold_for_name (GST_AX_DEBUG_TRACER_CATEGORY,
      GST_LEVEL_TRACE);
  why = gst_ax_debug_check_threshold ();
  fail_unless (why == NULL, "%s", why);
  r = ax_prof_run (PIPELINE);
  gst_debug_unset_threshold_for_name (GST_AX_DEBUG_TRACER_CATEGORY);
  assert_reported (r);
  ax_prof_report_free (r);
}

GST_END_TEST;

static GstPadProbeReturn
log_once (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  gint *n = user_data;

  if ((*n)++ == 0)
    GST_CAT_DEBUG (stray_debug, "one stray message");
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
log_each (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GST_CAT_DEBUG (chatty_debug, "a message per frame");
  return GST_PAD_PROBE_OK;
}

/* Runs PIPELINE with @callback on the sink's buffers and returns its one
 * report. The bus's sync handler is @handler (which passes the messages
 * on to ax_prof_collect_report() with @reports), or that collector. */
static AxProfReport *
run_with_probe_full (GstPadProbeCallback callback, gpointer data,
    GstBusSyncHandler handler, gpointer handler_data, GPtrArray * reports)
{
  GstElement *pipeline = gst_parse_launch (PIPELINE, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;
  AxProfReport *r;

  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, callback, data, NULL);
  if (handler)
    gst_bus_set_sync_handler (bus, handler, handler_data, NULL);
  else
    ax_prof_watch (pipeline, reports);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless_equals_int (reports->len, 1);
  r = g_ptr_array_index (reports, 0);
  gst_object_unref (bus);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return r;
}

static AxProfReport *
run_with_probe (GstPadProbeCallback callback, gint * n)
{
  GPtrArray *reports = g_ptr_array_new ();
  AxProfReport *r = run_with_probe_full (callback, n, NULL, NULL, reports);

  g_ptr_array_unref (reports);
  return r;
}

GST_START_TEST (test_stray_message_does_not_void)
{
  AxProfReport *r;
  gint n = 0;

  gst_debug_category_set_threshold (stray_debug, GST_LEVEL_DEBUG);
  r = run_with_probe (log_once, &n);
  gst_debug_category_set_threshold (stray_debug, GST_LEVEL_WARNING);
  fail_unless_equals_int (n, FRAMES);
  assert_reported (r);
  ax_prof_report_free (r);
}

GST_END_TEST;

/* a category the thresholds do not watch, caught by what it logged */
GST_START_TEST (test_per_frame_logging_voids)
{
  AxProfReport *r;

  gst_debug_category_set_threshold (chatty_debug, GST_LEVEL_DEBUG);
  r = run_with_probe (log_each, NULL);
  gst_debug_category_set_threshold (chatty_debug, GST_LEVEL_WARNING);
  assert_refused (r, "category " CHATTY_CATEGORY " (and any others) logged "
      "50 messages at DEBUG or above during the run, 1.0 per frame over 50 "
      "frames");
  ax_prof_report_free (r);
}

GST_END_TEST;

/* The preroll buffer is logged while the pipeline is still going to
 * PAUSED: the main thread is held in that change (at the source's own
 * state-changed message) until the streaming thread has logged it. The
 * run's count must include it: 50 messages over 50 frames. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gint logged;
  GPtrArray *reports;
} PrerollGate;

static GstPadProbeReturn
log_each_and_open (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  PrerollGate *g = user_data;

  GST_CAT_DEBUG (chatty_debug, "a message per frame");
  g_mutex_lock (&g->lock);
  g->logged++;
  g_cond_signal (&g->cond);
  g_mutex_unlock (&g->lock);
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
hold_until_preroll_logged (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  PrerollGate *g = user_data;
  GstState old_state, new_state;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_STATE_CHANGED &&
      g_strcmp0 (GST_MESSAGE_SRC_NAME (msg), "src") == 0) {
    gst_message_parse_state_changed (msg, &old_state, &new_state, NULL);
    if (old_state == GST_STATE_READY && new_state == GST_STATE_PAUSED) {
      gint64 until = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

      g_mutex_lock (&g->lock);
      while (g->logged == 0 && g_cond_wait_until (&g->cond, &g->lock, until));
      g_mutex_unlock (&g->lock);
    }
  }
  return ax_prof_collect_report (bus, msg, g->reports);
}

GST_START_TEST (test_preroll_logging_counted)
{
  PrerollGate g = { 0, };
  AxProfReport *r;

  g_mutex_init (&g.lock);
  g_cond_init (&g.cond);
  g.reports = g_ptr_array_new ();
  gst_debug_category_set_threshold (chatty_debug, GST_LEVEL_DEBUG);
  r = run_with_probe_full (log_each_and_open, &g, hold_until_preroll_logged,
      &g, g.reports);
  gst_debug_category_set_threshold (chatty_debug, GST_LEVEL_WARNING);
  fail_unless_equals_int (g.logged, FRAMES);
  assert_refused (r, "logged 50 messages at DEBUG or above during the run, "
      "1.0 per frame over 50 frames");
  ax_prof_report_free (r);
  g_ptr_array_unref (g.reports);
  g_mutex_clear (&g.lock);
  g_cond_clear (&g.cond);
}

GST_END_TEST;

GST_START_TEST (test_rate_rule)
{
  fail_if (gst_ax_debug_logged_per_frame (1, FRAMES));
  fail_if (gst_ax_debug_logged_per_frame (FRAMES - 1, FRAMES));
  fail_unless (gst_ax_debug_logged_per_frame (FRAMES, FRAMES));
  /* a handful of messages never voids, even over fewer frames */
  fail_if (gst_ax_debug_logged_per_frame (GST_AX_DEBUG_MIN_MESSAGES - 1, 1));
  fail_unless (gst_ax_debug_logged_per_frame (GST_AX_DEBUG_MIN_MESSAGES, 0));
}

GST_END_TEST;

static Suite *
axprof_refusal_suite (void)
{
  Suite *s = suite_create ("axprof-refusal");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_default_threshold_refuses);
  tcase_add_test (tc, test_our_category_refuses_before_run);
  tcase_add_test (tc, test_data_flow_category_refuses);
  tcase_add_test (tc, test_tracer_category_does_not_refuse);
  tcase_add_test (tc, test_stray_message_does_not_void);
  tcase_add_test (tc, test_per_frame_logging_voids);
  tcase_add_test (tc, test_preroll_logging_counted);
  tcase_add_test (tc, test_rate_rule);
  return s;
}

int
main (int argc, char **argv)
{
  g_setenv ("GST_TRACERS", "axprof;latency", TRUE);
  g_unsetenv ("GST_DEBUG");
  /* the logging only has to happen, not to be read */
  g_setenv ("GST_DEBUG_FILE", "/dev/null", TRUE);
  gst_check_init (&argc, &argv);
  GST_DEBUG_CATEGORY_INIT (stray_debug, STRAY_CATEGORY, 0, "a stray message");
  GST_DEBUG_CATEGORY_INIT (chatty_debug, CHATTY_CATEGORY, 0,
      "a message per frame");
  return gst_check_run_suite (axprof_refusal_suite (), "axprof-refusal",
      __FILE__);
}
