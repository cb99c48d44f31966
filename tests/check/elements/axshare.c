/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axinference elements sharing one simulated device through the
 * "ax.device" GstContext: two branches of a tee and two elements in
 * sequence share one, device-id=1 asks for a second, a context the
 * application sets is used by two pipelines, and state cycles neither
 * leak the device nor reuse a closed one. The device-handle property
 * names the device an element uses. */

#include <gst/check/gstcheck.h>

#define CONTEXT_TYPE "ax.device"
#define N_FRAMES 4
#define N_CYCLES 3
#define RUN_TIMEOUT (60 * GST_SECOND)

#define SOURCE "videotestsrc num-buffers=4 ! " \
  "video/x-raw,format=RGB,width=64,height=48,framerate=30/1 ! "
#define BRANCHES(id_b) SOURCE "tee name=t ! queue ! axletterbox ! " \
  "axinference name=a model=ball-detector model-name=ball-a ! " \
  "fakesink name=sa signal-handoffs=true t. ! queue ! axletterbox ! " \
  "axinference name=b model=ball-detector model-name=ball-b " id_b " ! " \
  "fakesink name=sb signal-handoffs=true"

static void
count_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad,
    gpointer user_data)
{
  g_atomic_int_inc ((gint *) user_data);
}

static void
watch_sink (GstElement * pipeline, const gchar * name, gint * count)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);

  fail_unless (sink != NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (count_handoff), count);
  gst_object_unref (sink);
}

static guint
unwatch_sink (GstElement * pipeline, const gchar * name, gint * count)
{
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipeline), name);
  guint n = g_signal_handlers_disconnect_matched (sink, G_SIGNAL_MATCH_DATA,
      0, 0, NULL, NULL, count);

  gst_object_unref (sink);
  return n;
}

static GstElement *
parse (const gchar * description)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (description, &err);

  fail_unless (pipeline != NULL, "cannot parse '%s': %s", description,
      err ? err->message : "?");
  return pipeline;
}

static void
run_to_eos (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no EOS within the timeout");
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    fail ("error from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        err->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
}

static guint64
device_handle (GstElement * pipeline, const gchar * name)
{
  GstElement *e = gst_bin_get_by_name (GST_BIN (pipeline), name);
  guint64 handle = 0;

  fail_unless (e != NULL);
  g_object_get (e, "device-handle", &handle, NULL);
  gst_object_unref (e);
  return handle;
}

/* The device a context carries, not reffed. */
static GObject *
context_device (GstContext * context)
{
  const GValue *v;

  fail_unless (context != NULL);
  fail_unless_equals_string (gst_context_get_context_type (context),
      CONTEXT_TYPE);
  v = gst_structure_get_value (gst_context_get_structure (context), "device");
  fail_unless (v != NULL && G_VALUE_HOLDS_OBJECT (v));
  return g_value_get_object (v);
}

/* Two branches of a tee, whose elements cannot reach each other by a
 * query: the second finds the first's device through the pipeline, which
 * kept the context the first posted. Both models ran all their frames. */
GST_START_TEST (test_tee_branches_share)
{
  GstElement *p = parse (BRANCHES (""));
  gint na = 0, nb = 0;
  guint64 ha, hb;

  watch_sink (p, "sa", &na);
  watch_sink (p, "sb", &nb);
  run_to_eos (p);
  ha = device_handle (p, "a");
  hb = device_handle (p, "b");
  fail_unless (ha != 0);
  fail_unless_equals_uint64 (ha, hb);
  fail_unless_equals_int (na, N_FRAMES);
  fail_unless_equals_int (nb, N_FRAMES);
  gst_element_set_state (p, GST_STATE_NULL);
  fail_unless_equals_uint64 (device_handle (p, "a"), 0);
  gst_object_unref (p);
}

GST_END_TEST;

/* Two models in sequence: the upstream one finds the downstream one's
 * device with the context query along the link. */
GST_START_TEST (test_sequence_shares)
{
  GstElement *p = parse (SOURCE "axletterbox ! axinference name=a "
      "model=ball-detector model-name=ball-a ! axinference name=b "
      "model=ball-detector model-name=ball-b ! fakesink");

  run_to_eos (p);
  fail_unless (device_handle (p, "a") != 0);
  fail_unless_equals_uint64 (device_handle (p, "a"), device_handle (p, "b"));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

/* Another device-id, or another device string, is another chip. */
GST_START_TEST (test_device_id_separates)
{
  GstElement *p = parse (BRANCHES ("device-id=1"));
  GstElement *q = parse (BRANCHES ("device=metis:cores=2"));

  run_to_eos (p);
  fail_unless (device_handle (p, "a") != 0);
  fail_unless (device_handle (p, "b") != 0);
  fail_unless (device_handle (p, "a") != device_handle (p, "b"));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);

  run_to_eos (q);
  fail_unless (device_handle (q, "a") != device_handle (q, "b"));
  gst_element_set_state (q, GST_STATE_NULL);
  gst_object_unref (q);
}

GST_END_TEST;

/* The application takes the context the first pipeline posted and sets
 * it on the second before it starts: both use one device. Without it,
 * the second opens its own. */
GST_START_TEST (test_app_context_across_pipelines)
{
  GstElement *p1 = parse (SOURCE "axletterbox ! axinference name=a "
      "model=ball-detector ! fakesink");
  GstElement *p2 = parse (SOURCE "axletterbox ! axinference name=b "
      "model=ball-detector model-name=other ! fakesink");
  GstElement *p3 = parse (SOURCE "axletterbox ! axinference name=c "
      "model=ball-detector ! fakesink");
  GstContext *context;
  GObject *device;

  fail_unless (gst_element_set_state (p1, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  context = gst_element_get_context (p1, CONTEXT_TYPE);
  device = context_device (context);
  gst_element_set_context (p2, context);

  run_to_eos (p1);
  run_to_eos (p2);
  run_to_eos (p3);
  fail_unless (device_handle (p1, "a") != 0);
  fail_unless_equals_uint64 (device_handle (p1, "a"), device_handle (p2, "b"));
  fail_unless (device_handle (p3, "c") != device_handle (p1, "a"));
  /* the context the application holds is the one in use */
  gst_context_unref (context);
  context = gst_element_get_context (p2, CONTEXT_TYPE);
  fail_unless (context_device (context) == device);
  gst_context_unref (context);

  gst_element_set_state (p1, GST_STATE_NULL);
  gst_element_set_state (p2, GST_STATE_NULL);
  gst_element_set_state (p3, GST_STATE_NULL);
  gst_object_unref (p1);
  gst_object_unref (p2);
  gst_object_unref (p3);
}

GST_END_TEST;

static void
device_gone (gpointer data, GObject * where_the_object_was)
{
  *(gboolean *) data = TRUE;
}

/* PLAYING -> NULL -> PLAYING with a shared device: each run shares one
 * device, which closes when the pipeline reaches NULL. */
GST_START_TEST (test_state_cycles)
{
  GstElement *p = parse (BRANCHES (""));
  guint cycle;

  for (cycle = 0; cycle < N_CYCLES; cycle++) {
    gboolean gone = FALSE;
    GstContext *context;
    gint na = 0, nb = 0;

    fail_unless (gst_element_set_state (p, GST_STATE_READY) ==
        GST_STATE_CHANGE_SUCCESS);
    context = gst_element_get_context (p, CONTEXT_TYPE);
    g_object_weak_ref (context_device (context), device_gone, &gone);
    gst_context_unref (context);

    watch_sink (p, "sa", &na);
    watch_sink (p, "sb", &nb);
    run_to_eos (p);
    fail_unless_equals_uint64 (device_handle (p, "a"), device_handle (p, "b"));
    fail_unless_equals_int (na, N_FRAMES);
    fail_unless_equals_int (nb, N_FRAMES);
    fail_if (gone);
    gst_element_set_state (p, GST_STATE_NULL);
    fail_unless (gone, "the device outlived the pipeline in cycle %u", cycle);
    fail_unless_equals_int (unwatch_sink (p, "sa", &na), 1);
    fail_unless_equals_int (unwatch_sink (p, "sb", &nb), 1);
  }
  gst_object_unref (p);
}

GST_END_TEST;

/* One user of a shared device stops (its model unloaded) while the other
 * streams on: the other runs all its frames, and the device closes only
 * with its last user. */
GST_START_TEST (test_one_user_stops_other_streams)
{
  GstElement *p1 = parse (SOURCE "axletterbox ! axinference name=a "
      "model=ball-detector ! fakesink");
  /* live, so that it is still streaming when the first one stops */
  GstElement *p2 = parse ("videotestsrc is-live=true num-buffers=40 ! "
      "video/x-raw,format=RGB,width=64,height=48,framerate=60/1 ! "
      "axletterbox ! axinference name=b model=ball-detector "
      "model-name=other ! fakesink name=sb signal-handoffs=true");
  gboolean gone = FALSE;
  GstContext *context;
  GstBus *bus;
  GstMessage *msg;
  gint nb = 0;

  fail_unless (gst_element_set_state (p1, GST_STATE_READY) ==
      GST_STATE_CHANGE_SUCCESS);
  context = gst_element_get_context (p1, CONTEXT_TYPE);
  g_object_weak_ref (context_device (context), device_gone, &gone);
  gst_element_set_context (p2, context);
  gst_context_unref (context);
  watch_sink (p2, "sb", &nb);

  fail_unless (gst_element_set_state (p2, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  run_to_eos (p1);
  fail_unless_equals_uint64 (device_handle (p1, "a"), device_handle (p2, "b"));
  gst_element_set_state (p1, GST_STATE_NULL);
  fail_if (gone, "the device closed while another element used it");

  bus = gst_element_get_bus (p2);
  msg = gst_bus_timed_pop_filtered (bus, RUN_TIMEOUT,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  fail_unless_equals_int (nb, 40);
  fail_if (gone);
  gst_element_set_state (p2, GST_STATE_NULL);
  fail_unless (gone, "the device outlived its last user");
  gst_object_unref (p1);
  gst_object_unref (p2);
}

GST_END_TEST;

static Suite *
axshare_suite (void)
{
  Suite *s = suite_create ("axshare");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_tee_branches_share);
  tcase_add_test (tc, test_sequence_shares);
  tcase_add_test (tc, test_device_id_separates);
  tcase_add_test (tc, test_app_context_across_pipelines);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_one_user_stops_other_streams);
  return s;
}

GST_CHECK_MAIN (axshare);
