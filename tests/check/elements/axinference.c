/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axinference with GstHarness on the compiled ball-detector model (found
 * through GST_AX_MODEL_PATH, set by meson to the build's models dir). */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/ax/ax.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "../../simnpu/host-model-values.h"

#define MODEL "ball-detector"
#define N_FRAMES 16
#define FRAME_CAPS "video/x-raw,format=RGB,width=320,height=240,framerate=30/1"
#define FRAME_W 320
#define FRAME_H 240
#define FLUSH_PTS_OFFSET 1000

static GstAxModelInput
query_model (GstHarness * h)
{
  GstQuery *q = gst_ax_model_query_new ();
  GstAxModelInput in;

  fail_unless (gst_pad_peer_query (h->srcpad, q), "model query unanswered");
  fail_unless (gst_ax_model_query_parse_input (q, &in));
  gst_query_unref (q);
  return in;
}

static gsize
input_bytes (const GstAxModelInput * in)
{
  return (gsize) in->width * in->height * in->channels *
      gst_ax_tensor_dtype_size (in->dtype);
}

/* A frame carrying an input tensor filled from @seed. */
static GstBuffer *
make_frame (const GstAxModelInput * in, guint seed, guint64 pts)
{
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 16, NULL);
  gsize n = input_bytes (in), i;
  GstBuffer *data = gst_buffer_new_allocate (NULL, n, NULL);
  gint64 dims[4] = { 1, in->height, in->width, in->channels };
  GstMapInfo map;
  GstAxTensorMeta *m;
  guint32 x = seed * 2654435761u + 1;

  if (in->layout == GST_AX_TENSOR_LAYOUT_NCHW) {
    dims[1] = in->channels;
    dims[2] = in->height;
    dims[3] = in->width;
  }
  gst_buffer_map (data, &map, GST_MAP_WRITE);
  for (i = 0; i < n; i++) {
    /* xorshift32: cheap, and different for every seed */
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    map.data[i] = x >> 24;
  }
  gst_buffer_unmap (data, &map);

  m = gst_buffer_add_ax_tensor_meta (frame, in->name,
      GST_AX_TENSOR_ROLE_INPUT, in->dtype, in->layout, 4, dims, in->scale,
      in->zero_point, data);
  fail_unless (m != NULL);
  m->has_letterbox =
      gst_ax_letterbox_geometry_init (&m->letterbox, FRAME_W, FRAME_H,
      in->width, in->height, TRUE, TRUE, GST_AX_LETTERBOX_DEFAULT_FILL);
  GST_BUFFER_PTS (frame) = pts;
  return frame;
}

/* Checksum of the output tensors of one instance, in index order. */
static guint32
instance_hash (GstBuffer * frame, guint instance, guint * n_out)
{
  guint32 h = 2166136261u;
  guint idx = 0;
  GstAxTensorMeta *m;

  while ((m = gst_buffer_get_ax_tensor_meta_by_role (frame,
              GST_AX_TENSOR_ROLE_OUTPUT, instance, idx))) {
    GstMapInfo map;
    gsize i;

    fail_unless (gst_buffer_map (m->data, &map, GST_MAP_READ));
    fail_unless (map.size >= gst_ax_tensor_meta_n_bytes (m));
    for (i = 0; i < gst_ax_tensor_meta_n_bytes (m); i++)
      h = (h ^ map.data[i]) * 16777619u;
    gst_buffer_unmap (m->data, &map);
    fail_unless (m->has_letterbox);
    /* outputs live in pooled buffers */
    fail_unless (m->data->pool != NULL);
    idx++;
  }
  *n_out = idx;
  return h;
}

static guint32
outputs_hash (GstBuffer * frame, guint * n_out)
{
  return instance_hash (frame, 0, n_out);
}

static guint
n_outputs_of (GstBuffer * frame)
{
  guint n = 0;

  while (gst_buffer_get_ax_tensor_meta_by_role (frame,
          GST_AX_TENSOR_ROLE_OUTPUT, 0, n))
    n++;
  return n;
}

static GstHarness *
harness_new (const gchar * props)
{
  gchar *launch = g_strdup_printf ("axinference model=" MODEL " %s", props);
  GstHarness *h = gst_harness_new_parse (launch);

  g_free (launch);
  gst_harness_set_src_caps_str (h, FRAME_CAPS);
  return h;
}

/* Outputs of each seed computed one at a time. */
static void
serial_hashes (guint32 * hashes, guint n)
{
  GstHarness *h = harness_new ("in-flight=1 time-scale=0");
  GstAxModelInput in = query_model (h);
  guint i, n_out;

  for (i = 0; i < n; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h, make_frame (&in, i, i));
    hashes[i] = outputs_hash (out, &n_out);
    fail_unless (n_out >= 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_in_order_with_window)
{
  guint32 expected[N_FRAMES];
  GstHarness *h;
  GstAxModelInput in;
  guint i, n_out;

  serial_hashes (expected, N_FRAMES);
  /* different frames give different outputs, or the check is empty */
  fail_if (expected[0] == expected[1]);

  h = harness_new ("in-flight=4 time-scale=0");
  in = query_model (h);
  for (i = 0; i < N_FRAMES; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&in, i, i)),
        GST_FLOW_OK);
  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i);
    /* each frame carries its own outputs */
    fail_unless_equals_int (outputs_hash (out, &n_out), expected[i]);
    /* the input tensor stays for axnms's letterbox */
    fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
            GST_AX_TENSOR_ROLE_INPUT), 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_eos_drains)
{
  GstHarness *h = harness_new ("in-flight=3");
  GstAxModelInput in = query_model (h);
  GstEvent *ev;
  guint i;

  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&in, i, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* EOS comes out after every frame */
  while ((ev = gst_harness_pull_event (h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  fail_unless (ev != NULL);
  fail_unless_equals_int (gst_harness_buffers_received (h), 6);
  for (i = 0; i < 6; i++) {
    GstBuffer *out = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i);
    fail_unless (gst_buffer_count_ax_tensor_meta (out,
            GST_AX_TENSOR_ROLE_OUTPUT) >= 1);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_flush_mid_stream)
{
  /* device time slowed down so that jobs are still outstanding at the
   * flush */
  GstHarness *h = harness_new ("in-flight=4 time-scale=1000");
  GstAxModelInput in = query_model (h);
  GstBuffer *out, *frames[4];
  GstElement *element;
  GstSegment segment;
  guint i, before;

  for (i = 0; i < 4; i++)
    frames[i] = make_frame (&in, i, i);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (gst_harness_push (h, frames[i]), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  before = gst_harness_buffers_received (h);
  fail_unless (before < 4, "all %u jobs done before the flush", before);
  /* the flush reset the segment */
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));

  element = gst_harness_find_element (h, "axinference");
  g_object_set (element, "time-scale", 0.0, NULL);
  gst_object_unref (element);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&in, i,
                FLUSH_PTS_OFFSET + i)), GST_FLOW_OK);
  /* frames pushed before the flush never come out after it */
  for (i = 0; i < before; i++)
    gst_buffer_unref (gst_harness_pull (h));
  for (i = 0; i < 3; i++) {
    out = gst_harness_pull (h);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), FLUSH_PTS_OFFSET + i);
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_try_pull (h) == NULL);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_passthrough_without_tensor)
{
  GstHarness *h = harness_new ("");
  GstBuffer *in = gst_buffer_new_allocate (NULL, 16, NULL);
  GstBuffer *out;

  GST_BUFFER_PTS (in) = 42;
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 42);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_model_and_latency_queries)
{
  GstHarness *h = harness_new ("");
  GstAxModelInput in = query_model (h);
  GstQuery *q;
  GstClockTime min, max;
  gboolean live;
  gchar *name;
  GstElement *element;

  fail_unless (in.width > 0 && in.height > 0 && in.channels == 3);
  fail_unless_equals_string (in.model_name, MODEL);
  element = gst_harness_find_element (h, "axinference");
  g_object_get (element, "model-name", &name, NULL);
  gst_object_unref (element);
  fail_unless_equals_string (name, MODEL);
  g_free (name);

  gst_harness_set_upstream_latency (h, 5 * GST_MSECOND);
  q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gst_query_parse_latency (q, &live, &min, &max);
  /* the model's device latency comes on top of upstream's */
  fail_unless (min > 5 * GST_MSECOND, "min latency %" GST_TIME_FORMAT,
      GST_TIME_ARGS (min));
  gst_query_unref (q);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Both pads answer the model query, with the input spec and the labels
 * the model carries. */
GST_START_TEST (test_model_query_labels)
{
  GstHarness *h = harness_new ("");
  GstAxModelInput up = query_model (h), down;
  GstQuery *q;
  gchar **labels = NULL;

  /* from upstream (axletterbox's side) */
  q = gst_ax_model_query_new ();
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_ax_model_query_parse_labels (q, &labels));
  fail_unless_equals_int (g_strv_length (labels), 1);
  fail_unless_equals_string (labels[0], "ball");
  g_strfreev (labels);
  gst_query_unref (q);

  /* from downstream (axnms's side): the same answer */
  q = gst_ax_model_query_new ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q),
      "model query unanswered on the src pad");
  fail_unless (gst_ax_model_query_parse_input (q, &down));
  fail_unless_equals_int (down.width, up.width);
  fail_unless_equals_int (down.height, up.height);
  fail_unless_equals_string (down.model_name, MODEL);
  fail_unless (gst_ax_model_query_parse_labels (q, &labels));
  fail_unless_equals_int (g_strv_length (labels), 1);
  fail_unless_equals_string (labels[0], "ball");
  g_strfreev (labels);
  gst_query_unref (q);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gchar *
error_message_of (GstElement * e)
{
  GstBus *bus = gst_element_get_bus (e);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL, *text;

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, &dbg);
  text = g_strdup_printf ("%s | %s", err->message, dbg ? dbg : "");
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  return text;
}

static gchar *
fail_to_start (const gchar * model, const gchar * device)
{
  GstElement *e = gst_element_factory_make ("axinference", NULL);
  GstBus *bus = gst_bus_new ();
  gchar *text;

  gst_element_set_bus (e, bus);
  g_object_set (e, "model", model, NULL);
  if (device)
    g_object_set (e, "device", device, NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  text = error_message_of (e);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  return text;
}

GST_START_TEST (test_error_missing_model)
{
  gchar *text = fail_to_start ("no-such-model", NULL);

  fail_unless (strstr (text, "no-such-model") != NULL, "%s", text);
  fail_unless (strstr (text, "looked for") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_error_invalid_model)
{
  gchar *path = NULL, *text;
  gint fd = g_file_open_tmp ("axinference-XXXXXX.axm", &path, NULL);

  fail_unless (fd >= 0);
  fail_unless (write (fd, "not a model at all", 18) == 18);
  close (fd);
  text = fail_to_start (path, NULL);
  fail_unless (strstr (text, "Could not load model") != NULL, "%s", text);
  g_free (text);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* yolov8n is compiled shape-only (estimate-only): it cannot run */
GST_START_TEST (test_error_estimate_only)
{
  gchar *text = fail_to_start ("yolov8n", NULL);

  fail_unless (strstr (text, "no weights") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_error_device)
{
  gchar *text = fail_to_start (MODEL, "no-such-device");

  fail_unless (strstr (text, "no-such-device") != NULL, "%s", text);
  g_free (text);
}

GST_END_TEST;

GST_START_TEST (test_error_tensor_mismatch)
{
  GstHarness *h = harness_new ("");
  GstAxModelInput in = query_model (h);
  GstBus *bus = gst_bus_new ();
  gchar *text, *want;

  gst_element_set_bus (h->element, bus);
  want = g_strdup_printf ("%d", in.width);
  in.width += 2;
  fail_unless_equals_int (gst_harness_push (h, make_frame (&in, 0, 0)),
      GST_FLOW_ERROR);
  text = error_message_of (h->element);
  /* names what was expected and what came */
  fail_unless (strstr (text, "expected") != NULL, "%s", text);
  fail_unless (strstr (text, "got") != NULL, "%s", text);
  fail_unless (strstr (text, want) != NULL, "%s", text);
  g_free (want);
  g_free (text);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- probe reporting --- */

typedef struct
{
  GMutex lock;
  guint copy_in, wait, copy_out, events, devices;
  gboolean wait_flagged, events_ok;
  guint n_cores;
} ProbeCounts;

static void
on_span (const GstAxProbeSpan * span, gpointer user_data)
{
  ProbeCounts *c = user_data;

  g_mutex_lock (&c->lock);
  if (g_strcmp0 (span->group, MODEL) == 0) {
    if (g_str_equal (span->stage, "host copy in"))
      c->copy_in++;
    else if (g_str_equal (span->stage, "device wait")) {
      c->wait++;
      c->wait_flagged &= (span->flags & GST_AX_PROBE_FLAG_DEVICE_WAIT) != 0;
    } else if (g_str_equal (span->stage, "host copy out"))
      c->copy_out++;
  }
  g_mutex_unlock (&c->lock);
}

static void
on_device_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  ProbeCounts *c = user_data;

  g_mutex_lock (&c->lock);
  c->events++;
  /* at time-scale 0 the device interval has no length */
  c->events_ok &= ev->resource < ev->n_resources && ev->end_ns >= ev->start_ns
      && g_strcmp0 (ev->group, MODEL) == 0;
  g_mutex_unlock (&c->lock);
}

static void
on_device (const GstAxProbeDevice * d, gpointer user_data)
{
  ProbeCounts *c = user_data;

  g_mutex_lock (&c->lock);
  c->devices++;
  c->n_cores = d->n_cores;
  g_mutex_unlock (&c->lock);
}

GST_START_TEST (test_probe_reports)
{
  static const GstAxProbeSinkFuncs funcs = { on_span, on_device_event,
    on_device
  };
  ProbeCounts c = { 0 };
  GstHarness *h;
  GstAxModelInput in;
  guint sink, i;

  g_mutex_init (&c.lock);
  c.wait_flagged = TRUE;
  c.events_ok = TRUE;
  sink = gst_ax_probe_add_sink (&funcs, &c);
  h = harness_new ("in-flight=4 time-scale=0");
  in = query_model (h);
  for (i = 0; i < 8; i++)
    gst_buffer_unref (gst_harness_push_and_pull (h, make_frame (&in, i, i)));
  gst_harness_teardown (h);
  gst_ax_probe_remove_sink (sink);

  fail_unless_equals_int (c.copy_in, 8);
  fail_unless_equals_int (c.wait, 8);
  fail_unless_equals_int (c.copy_out, 8);
  fail_unless (c.wait_flagged);
  fail_unless_equals_int (c.events, 8);
  fail_unless (c.events_ok);
  fail_unless (c.devices >= 8 + 1);
  fail_unless (c.n_cores >= 1);
  g_mutex_clear (&c.lock);
}

GST_END_TEST;

/* --- back-pressure, seen through the probe: with in-flight = W, job k is
 * submitted ("host copy in") only after job k - W has ended on the
 * device --- */

#define BP_FRAMES 5
#define BP_WINDOW 2

typedef struct
{
  GMutex lock;
  guint n_submits;
  guint64 submit_ns[BP_FRAMES];
  guint n_ends;
  guint64 end_ns[BP_FRAMES];
} Submits;

static void
bp_span (const GstAxProbeSpan * span, gpointer user_data)
{
  Submits *s = user_data;

  g_mutex_lock (&s->lock);
  if (g_str_equal (span->stage, "host copy in") && s->n_submits < BP_FRAMES)
    s->submit_ns[s->n_submits++] = span->start_ns;
  g_mutex_unlock (&s->lock);
}

static void
bp_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  Submits *s = user_data;

  g_mutex_lock (&s->lock);
  /* events come in frame order, from the streaming thread */
  if (s->n_ends < BP_FRAMES)
    s->end_ns[s->n_ends++] = ev->end_ns;
  g_mutex_unlock (&s->lock);
}

GST_START_TEST (test_back_pressure)
{
  static const GstAxProbeSinkFuncs funcs = { bp_span, bp_event, NULL };
  Submits s = { 0 };
  GstHarness *h;
  GstAxModelInput in;
  GstBuffer *frames[BP_FRAMES];
  guint sink, i;

  g_mutex_init (&s.lock);
  sink = gst_ax_probe_add_sink (&funcs, &s);
  /* device time stretched to milliseconds, so that submitting without
   * waiting would show */
  h = harness_new ("in-flight=" G_STRINGIFY (BP_WINDOW) " time-scale=100");
  in = query_model (h);
  for (i = 0; i < BP_FRAMES; i++)
    frames[i] = make_frame (&in, i, i);
  for (i = 0; i < BP_FRAMES; i++)
    fail_unless_equals_int (gst_harness_push (h, frames[i]), GST_FLOW_OK);
  for (i = 0; i < BP_FRAMES; i++)
    gst_buffer_unref (gst_harness_pull (h));
  gst_harness_teardown (h);
  gst_ax_probe_remove_sink (sink);

  fail_unless_equals_int (s.n_submits, BP_FRAMES);
  fail_unless_equals_int (s.n_ends, BP_FRAMES);
  /* the first window goes out at once */
  fail_unless (s.submit_ns[BP_WINDOW - 1] < s.end_ns[0]);
  for (i = BP_WINDOW; i < BP_FRAMES; i++)
    fail_unless (s.submit_ns[i] >= s.end_ns[i - BP_WINDOW],
        "job %u submitted %" G_GINT64_FORMAT " ns before job %u ended", i,
        (gint64) (s.end_ns[i - BP_WINDOW] - s.submit_ns[i]), i - BP_WINDOW);
  g_mutex_clear (&s.lock);
}

GST_END_TEST;

/* A cascade frame: two input tensors (instances 0 and 1) give one job
 * each, and the outputs carry their input's instance and letterbox. */
GST_START_TEST (test_two_instances)
{
  guint32 expected[2];
  GstHarness *h;
  GstAxModelInput in;
  GstBuffer *frame, *second, *out;
  GstAxTensorMeta *m, *o;
  guint i, n_out;

  serial_hashes (expected, 2);
  h = harness_new ("in-flight=4 time-scale=0");
  in = query_model (h);
  frame = make_frame (&in, 0, 0);
  second = make_frame (&in, 1, 0);
  m = gst_buffer_get_ax_tensor_meta_by_role (second,
      GST_AX_TENSOR_ROLE_INPUT, 0, 0);
  o = gst_buffer_add_ax_tensor_meta (frame, m->name, m->role, m->dtype,
      m->layout, m->n_dims, m->dims, m->scale, m->zero_point,
      gst_buffer_ref (m->data));
  o->instance = 1;
  o->roi_id = 42;
  o->has_letterbox = TRUE;
  o->letterbox = m->letterbox;
  o->letterbox.src_x = 17;
  gst_buffer_unref (second);

  out = gst_harness_push_and_pull (h, frame);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 2 * n_outputs_of (out));
  fail_unless_equals_int (outputs_hash (out, &n_out), expected[0]);
  for (i = 0; i < 2; i++) {
    m = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_OUTPUT, i, 0);
    fail_unless (m != NULL, "no output for instance %u", i);
    fail_unless (m->has_letterbox);
    fail_unless_equals_int (m->letterbox.src_x, i == 1 ? 17 : 0);
    /* the ROI id travels from the input to every output */
    for (n_out = 0; (o = gst_buffer_get_ax_tensor_meta_by_role (out,
                GST_AX_TENSOR_ROLE_OUTPUT, i, n_out)); n_out++)
      fail_unless_equals_int (o->roi_id, i == 1 ? 42 : GST_AX_TENSOR_ROI_NONE);
  }
  /* instance 1's output is what its own input gives */
  fail_unless_equals_int (instance_hash (out, 1, &n_out), expected[1]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* 200 regions of one frame (a crowd) through a window of 1 on a 4-core
 * device: every tensor gets its outputs (with its ROI id), none is
 * dropped, the frame does not deadlock although it has 200 windows'
 * worth of jobs, and never more than one job is on the device at once
 * (before, the whole frame was submitted at once and its jobs ran side
 * by side on the cores). */
#define CROWD_ROIS 200
#define CROWD_WINDOW 1

typedef struct
{
  GMutex lock;
  guint n;
  guint64 start_ns[CROWD_ROIS];
  guint64 end_ns[CROWD_ROIS];
} Intervals;

static void
crowd_event (const GstAxProbeDeviceEvent * ev, gpointer user_data)
{
  Intervals *iv = user_data;

  g_mutex_lock (&iv->lock);
  if (iv->n < CROWD_ROIS) {
    iv->start_ns[iv->n] = ev->start_ns;
    iv->end_ns[iv->n] = ev->end_ns;
  }
  iv->n++;
  g_mutex_unlock (&iv->lock);
}

GST_START_TEST (test_crowd_window)
{
  static const GstAxProbeSinkFuncs funcs = { NULL, crowd_event, NULL };
  static Intervals iv;
  guint32 expected[2];
  GstHarness *h;
  GstAxModelInput in;
  GstBuffer *frame, *seeds[2], *out;
  GstAxTensorMeta *m;
  guint sink, i, j, n_out, max_overlap = 0;

  serial_hashes (expected, 2);
  memset (&iv, 0, sizeof (iv));
  g_mutex_init (&iv.lock);
  h = harness_new ("in-flight=" G_STRINGIFY (CROWD_WINDOW)
      " device=metis time-scale=1");
  in = query_model (h);
  seeds[0] = make_frame (&in, 0, 0);
  seeds[1] = make_frame (&in, 1, 0);
  frame = gst_buffer_new_allocate (NULL, 16, NULL);
  for (i = 0; i < CROWD_ROIS; i++) {
    GstAxTensorMeta *s = gst_buffer_get_ax_tensor_meta_by_role (seeds[i % 2],
        GST_AX_TENSOR_ROLE_INPUT, 0, 0);

    m = gst_buffer_add_ax_tensor_meta (frame, s->name, s->role, s->dtype,
        s->layout, s->n_dims, s->dims, s->scale, s->zero_point,
        gst_buffer_ref (s->data));
    m->instance = i;
    m->roi_id = 1000 + i;
    m->has_letterbox = TRUE;
    m->letterbox = s->letterbox;
  }
  gst_buffer_unref (seeds[0]);
  gst_buffer_unref (seeds[1]);

  sink = gst_ax_probe_add_sink (&funcs, &iv);
  out = gst_harness_push_and_pull (h, frame);
  gst_ax_probe_remove_sink (sink);
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), CROWD_ROIS * n_outputs_of (out));
  for (i = 0; i < CROWD_ROIS; i++) {
    m = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_OUTPUT, i, 0);
    fail_unless (m != NULL, "region %u has no output", i);
    fail_unless_equals_int (m->roi_id, 1000 + i);
  }
  /* the first and last regions computed what their inputs give */
  fail_unless_equals_int (instance_hash (out, 0, &n_out), expected[0]);
  fail_unless_equals_int (instance_hash (out, CROWD_ROIS - 1, &n_out),
      expected[1]);
  gst_buffer_unref (out);
  gst_harness_teardown (h);

  fail_unless_equals_int (iv.n, CROWD_ROIS);
  /* the largest number of jobs on the device at one instant: at some
   * job's start, the jobs that started no later and had not ended */
  for (i = 0; i < CROWD_ROIS; i++) {
    guint here = 0;

    for (j = 0; j < CROWD_ROIS; j++)
      here += iv.start_ns[j] <= iv.start_ns[i] && iv.end_ns[j] > iv.start_ns[i];
    max_overlap = MAX (max_overlap, here);
  }
  GST_INFO ("max overlap %u", max_overlap);
  fail_unless (max_overlap >= 1 && max_overlap <= CROWD_WINDOW,
      "%u jobs on the device at once, window " G_STRINGIFY (CROWD_WINDOW),
      max_overlap);
  g_mutex_clear (&iv.lock);
}

GST_END_TEST;

/* --- host sections: a model with a float preamble (x = 2 image + 1) and
 * postamble (sigmoid), see tests/simnpu/host-model.h: f32 in, its
 * outputs' values out, both sections reported as stages --- */

#define HOST_GROUP "hostmodel"
#define HOST_FRAMES 3
#define HOST_PROB_TOLERANCE 1e-6

typedef struct
{
  GMutex lock;
  guint preamble, postamble, copy_in;
  gboolean stages_flagged;
} HostCounts;

static void
on_host_span (const GstAxProbeSpan * span, gpointer user_data)
{
  HostCounts *c = user_data;

  g_mutex_lock (&c->lock);
  if (g_strcmp0 (span->group, HOST_GROUP) == 0) {
    if (g_str_equal (span->stage, "preamble"))
      c->preamble++;
    else if (g_str_equal (span->stage, "postamble"))
      c->postamble++;
    else if (g_str_equal (span->stage, "host copy in"))
      c->copy_in++;
    if (g_str_equal (span->stage, "preamble")
        || g_str_equal (span->stage, "postamble"))
      c->stages_flagged &= (span->flags & GST_AX_PROBE_FLAG_STAGE) != 0;
  }
  g_mutex_unlock (&c->lock);
}

static GstBuffer *
make_host_frame (const GstAxModelInput * in, const float *values)
{
  GstBuffer *frame = gst_buffer_new_allocate (NULL, 16, NULL);
  GstBuffer *data = gst_buffer_new_allocate (NULL,
      HOST_MODEL_ELEMENTS * sizeof (float), NULL);
  gint64 dims[4];
  guint i;

  for (i = 0; i < 4; i++)
    dims[i] = host_model_dims[i];
  gst_buffer_fill (data, 0, values, HOST_MODEL_ELEMENTS * sizeof (float));
  fail_unless (gst_buffer_add_ax_tensor_meta (frame, in->name,
          GST_AX_TENSOR_ROLE_INPUT, in->dtype, in->layout, 4, dims,
          in->scale, in->zero_point, data) != NULL);
  return frame;
}

GST_START_TEST (test_host_sections)
{
  static const GstAxProbeSinkFuncs funcs = { on_host_span, NULL, NULL };
  HostCounts c = { 0 };
  float image[HOST_MODEL_ELEMENTS], want_prob[HOST_MODEL_ELEMENTS];
  uint8_t want_z[HOST_MODEL_ELEMENTS];
  GstHarness *h;
  GstAxModelInput in;
  guint sink, f, i;

  g_mutex_init (&c.lock);
  c.stages_flagged = TRUE;
  host_model_input (image);
  host_model_expected (image, want_prob, want_z);
  sink = gst_ax_probe_add_sink (&funcs, &c);
  h = gst_harness_new_parse ("axinference model=" HOST_MODEL_PATH
      " model-name=" HOST_GROUP " time-scale=0 in-flight=2");
  gst_harness_set_src_caps_str (h, FRAME_CAPS);
  in = query_model (h);
  /* the model's input is the preamble's */
  fail_unless_equals_int (in.dtype, GST_AX_TENSOR_DTYPE_F32);
  fail_unless_equals_string (in.name, "image");
  fail_unless_equals_int (in.height, host_model_dims[1]);
  fail_unless_equals_int (in.width, host_model_dims[2]);
  fail_unless_equals_int (in.channels, host_model_dims[3]);

  for (f = 0; f < HOST_FRAMES; f++) {
    GstBuffer *out = gst_harness_push_and_pull (h, make_host_frame (&in,
            image));
    GstAxTensorMeta *prob, *z;
    GstMapInfo map;

    fail_unless (out != NULL);
    fail_unless_equals_int (n_outputs_of (out), 2);
    prob = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_OUTPUT, 0, 0);
    z = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_OUTPUT, 0, 1);
    fail_unless_equals_string (prob->name, "prob");
    fail_unless_equals_int (prob->dtype, GST_AX_TENSOR_DTYPE_F32);
    fail_unless_equals_string (z->name, "z");
    fail_unless_equals_int (z->dtype, GST_AX_TENSOR_DTYPE_U8);

    fail_unless (gst_buffer_map (prob->data, &map, GST_MAP_READ));
    fail_unless (map.size >= sizeof (want_prob));
    for (i = 0; i < HOST_MODEL_ELEMENTS; i++) {
      float v;

      memcpy (&v, map.data + i * sizeof (float), sizeof (float));
      fail_unless (fabs (v - want_prob[i]) <= HOST_PROB_TOLERANCE,
          "prob[%u] = %g; expected %g", i, v, want_prob[i]);
    }
    gst_buffer_unmap (prob->data, &map);
    fail_unless (gst_buffer_map (z->data, &map, GST_MAP_READ));
    fail_unless (map.size >= sizeof (want_z));
    for (i = 0; i < HOST_MODEL_ELEMENTS; i++)
      fail_unless_equals_int (map.data[i], want_z[i]);
    gst_buffer_unmap (z->data, &map);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
  gst_ax_probe_remove_sink (sink);

  fail_unless_equals_int (c.preamble, HOST_FRAMES);
  fail_unless_equals_int (c.postamble, HOST_FRAMES);
  fail_unless_equals_int (c.copy_in, HOST_FRAMES);
  fail_unless (c.stages_flagged);
  g_mutex_clear (&c.lock);
}

GST_END_TEST;

/* profile-host that cannot be written: a warning naming the path, on the
 * bus before the EOS leaves the element, where an application still
 * reads it */
GST_START_TEST (test_profile_write_error)
{
  GstHarness *h = harness_new ("in-flight=2 time-scale=0 "
      "profile-host=/dev/full");
  GstBus *bus = gst_bus_new ();
  GstAxModelInput in;
  GstMessage *msg;
  GstEvent *ev;
  GError *err = NULL;
  gchar *dbg = NULL;
  guint i;

  gst_element_set_bus (h->element, bus);
  in = query_model (h);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&in, i, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((ev = gst_harness_pull_event (h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  fail_unless (ev != NULL);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning before EOS");
  gst_message_parse_warning (msg, &err, &dbg);
  fail_unless (strstr (err->message, "/dev/full") != NULL, "%s", err->message);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_harness_teardown (h);
  /* reported once, not again when the device closes */
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  gst_object_unref (bus);
}

GST_END_TEST;

/* profile-host onto the model (by its name, or a hard link to it) fails
 * to start with "output is the same file as input", and the model keeps
 * its bytes: the runtime CSV would be written over it */
GST_START_TEST (test_profile_onto_model)
{
  gchar *dir = g_dir_make_tmp ("axinference-XXXXXX", NULL);
  gchar *model = g_build_filename (dir, "model.axm", NULL);
  gchar *linked = g_build_filename (dir, "linked.axm", NULL);
  const gchar *profiles[] = { model, linked };
  gchar *before = NULL, *after = NULL;
  gsize before_len = 0, after_len = 0;
  guint i;

  fail_unless (dir != NULL);
  fail_unless (g_file_get_contents (HOST_MODEL_PATH, &before, &before_len,
          NULL));
  fail_unless (g_file_set_contents (model, before, before_len, NULL));
  fail_unless_equals_int (link (model, linked), 0);
  for (i = 0; i < G_N_ELEMENTS (profiles); i++) {
    GstElement *e = gst_element_factory_make ("axinference", NULL);
    GstBus *bus = gst_bus_new ();
    gchar *text;

    gst_element_set_bus (e, bus);
    g_object_set (e, "model", model, "profile-host", profiles[i], NULL);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
        GST_STATE_CHANGE_FAILURE);
    text = error_message_of (e);
    fail_unless (strstr (text, "output is the same file as input") != NULL,
        "%s", text);
    fail_unless (strstr (text, model) != NULL, "%s", text);
    g_free (text);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
    fail_unless (g_file_get_contents (model, &after, &after_len, NULL));
    fail_unless (after_len == before_len
        && memcmp (after, before, before_len) == 0,
        "the model was written over");
    g_free (after);
  }
  g_unlink (linked);
  g_unlink (model);
  g_rmdir (dir);
  g_free (before);
  g_free (linked);
  g_free (model);
  g_free (dir);
}

GST_END_TEST;

static Suite *
axinference_suite (void)
{
  Suite *s = suite_create ("axinference");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_in_order_with_window);
  tcase_add_test (tc, test_eos_drains);
  tcase_add_test (tc, test_flush_mid_stream);
  tcase_add_test (tc, test_passthrough_without_tensor);
  tcase_add_test (tc, test_model_and_latency_queries);
  tcase_add_test (tc, test_model_query_labels);
  tcase_add_test (tc, test_error_missing_model);
  tcase_add_test (tc, test_error_invalid_model);
  tcase_add_test (tc, test_error_device);
  tcase_add_test (tc, test_error_estimate_only);
  tcase_add_test (tc, test_error_tensor_mismatch);
  tcase_add_test (tc, test_probe_reports);
  tcase_add_test (tc, test_back_pressure);
  tcase_add_test (tc, test_two_instances);
  tcase_add_test (tc, test_crowd_window);
  tcase_add_test (tc, test_host_sections);
  tcase_add_test (tc, test_profile_write_error);
  tcase_add_test (tc, test_profile_onto_model);
  return s;
}

GST_CHECK_MAIN (axinference);
