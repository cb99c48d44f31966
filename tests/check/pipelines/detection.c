/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* End to end: videotestsrc pattern=ball through axletterbox, axinference
 * (ball-detector), axnms and axoverlay into an appsink, under the axprof
 * tracer. The true ball box of every frame comes from its pixels before
 * the overlay draws on it (a probe on axoverlay's sink pad keeps a copy).
 *
 * GST_TRACERS must be set before gst_init, hence the own main(). */

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/ax/ax.h>
#include <json-glib/json-glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define N_FRAMES 100
#define MIN_FOLLOWED 95
#define MIN_IOU 0.5
/* The ball of videotestsrc is about 37 px across at any frame size, so
 * the larger the frame, the smaller the ball in the model's tensor: the
 * small size the demos started with and the HD size of the examples. */
static const struct
{
  gint w, h;
} frame_sizes[] = { {320, 240}, {1280, 720} };

/* the size of the current run (set before the pipeline starts) */
static gint frame_w, frame_h;
#define BYTES_PER_PIXEL 3
/* a pixel belongs to the ball when its brightest channel is above this
 * (the ball is white on black, with anti-aliased edges) */
#define BALL_LEVEL 128
#define IDENTITY_TOLERANCE 0.10
/* The identity compares occupancy, measured over the device window (first
 * job start to last job end), with fps, measured from the first buffer to
 * EOS. A live source paces the run at the frame rate, so the two windows
 * differ by one job's head and tail out of the whole run, instead of by
 * the pipeline's start-up, which a free-running 100-frame run would make
 * a sizeable and noisy share. */
#define MODEL "ball-detector"
#define PERCENT 100.0

typedef struct
{
  gint x0, y0, x1, y1;          /* inclusive-exclusive pixel box */
  gboolean found;
} Box;

typedef struct
{
  GMutex lock;
  GPtrArray *before;            /* frame copies before the overlay; each is
                                 * dropped (NULL) once checked, so an HD run
                                 * holds only the frames in flight */
  GArray *truth;                /* Box per frame */
  gchar *json;                  /* the axprof report */
} Capture;

static Box
ball_box (const guint8 * pix, gint stride)
{
  Box b = { frame_w, frame_h, 0, 0, FALSE };
  gint x, y;

  for (y = 0; y < frame_h; y++) {
    const guint8 *row = pix + (gsize) y * stride;
    for (x = 0; x < frame_w; x++) {
      const guint8 *p = row + x * BYTES_PER_PIXEL;
      if (MAX (p[0], MAX (p[1], p[2])) > BALL_LEVEL) {
        b.x0 = MIN (b.x0, x);
        b.y0 = MIN (b.y0, y);
        b.x1 = MAX (b.x1, x + 1);
        b.y1 = MAX (b.y1, y + 1);
        b.found = TRUE;
      }
    }
  }
  return b;
}

static GstPadProbeReturn
before_overlay (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Capture *c = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;
  Box b;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  b = ball_box (map.data, frame_w * BYTES_PER_PIXEL);
  g_mutex_lock (&c->lock);
  g_ptr_array_add (c->before, g_bytes_new (map.data, map.size));
  g_array_append_val (c->truth, b);
  g_mutex_unlock (&c->lock);
  gst_buffer_unmap (buf, &map);
  return GST_PAD_PROBE_OK;
}

static GstBusSyncReply
catch_report (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  Capture *c = user_data;
  const GstStructure *s = gst_message_get_structure (msg);

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT && s
      && gst_structure_has_name (s, "axprof-report")) {
    g_mutex_lock (&c->lock);
    g_free (c->json);
    c->json = g_strdup (gst_structure_get_string (s, "json"));
    g_mutex_unlock (&c->lock);
  }
  return GST_BUS_PASS;
}

static gdouble
iou (gdouble ax0, gdouble ay0, gdouble ax1, gdouble ay1, gdouble bx0,
    gdouble by0, gdouble bx1, gdouble by1)
{
  gdouble iw = MIN (ax1, bx1) - MAX (ax0, bx0);
  gdouble ih = MIN (ay1, by1) - MAX (ay0, by0);
  gdouble inter = MAX (iw, 0) * MAX (ih, 0);
  gdouble uni = (ax1 - ax0) * (ay1 - ay0) + (bx1 - bx0) * (by1 - by0) - inter;

  return uni > 0 ? inter / uni : 0;
}

/* Pixels that differ between the frame before and after the overlay,
 * within the detection's box grown by one pixel (the outline may sit on
 * the edge). */
static guint
changed_in_box (GBytes * before, const guint8 * after, gint x0, gint y0,
    gint x1, gint y1)
{
  const guint8 *b = g_bytes_get_data (before, NULL);
  const gint stride = frame_w * BYTES_PER_PIXEL;
  guint n = 0;
  gint x, y;

  x0 = CLAMP (x0 - 1, 0, frame_w);
  y0 = CLAMP (y0 - 1, 0, frame_h);
  x1 = CLAMP (x1 + 1, 0, frame_w);
  y1 = CLAMP (y1 + 1, 0, frame_h);
  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++)
      n += memcmp (b + y * stride + x * BYTES_PER_PIXEL,
          after + y * stride + x * BYTES_PER_PIXEL, BYTES_PER_PIXEL) != 0;
  return n;
}

static JsonObject *
find_by_member (JsonArray * a, const gchar * member, const gchar * value)
{
  guint i;

  for (i = 0; a && i < json_array_get_length (a); i++) {
    JsonObject *o = json_array_get_object_element (a, i);
    if (o && json_object_has_member (o, member)
        && g_strcmp0 (json_object_get_string_member (o, member), value) == 0)
      return o;
  }
  return NULL;
}

static void
check_report (const gchar * json)
{
  JsonParser *parser = json_parser_new ();
  JsonObject *root, *group, *row, *dev, *occupancy;
  JsonArray *flags;
  gboolean device_wait = FALSE;
  gdouble occ, fps, device_ms, lhs, rhs, window_s;
  gint64 n_cores;
  guint i;

  fail_unless (json != NULL, "no axprof report");
  fail_unless (json_parser_load_from_data (parser, json, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));

  group = find_by_member (json_object_get_array_member (root, "groups"),
      "name", MODEL);
  fail_unless (group != NULL, "no group %s in %s", MODEL, json);
  row = find_by_member (json_object_get_array_member (group, "rows"), "name",
      "device wait");
  fail_unless (row != NULL, "no device wait row");
  flags = json_object_get_array_member (row, "flags");
  for (i = 0; i < json_array_get_length (flags); i++)
    device_wait |= g_str_equal (json_array_get_string_element (flags, i),
        "DEVICE WAIT");
  fail_unless (device_wait, "device wait row not flagged DEVICE WAIT");
  fail_unless_equals_int (json_object_get_int_member (row, "count"), N_FRAMES);

  dev = find_by_member (json_object_get_array_member (root, "devices"),
      "group", MODEL);
  fail_unless (dev != NULL, "no device section for %s", MODEL);
  occ = json_object_get_double_member (dev, "occupancy_percent");
  n_cores = json_object_get_int_member (dev, "n_cores");
  device_ms = json_object_get_double_member (dev, "device_ms");
  fail_unless_equals_int (json_object_get_int_member (dev, "jobs"), N_FRAMES);
  /* the rate of jobs over the device's own window (first job's start to
   * the last one's end), which the occupancy is measured over: the run's
   * fps counts from the first buffer, before the model's first job, and
   * drifts from it on a loaded machine */
  occupancy = find_by_member (json_object_get_array_member (root,
          "device_occupancy"), "device", json_object_get_string_member (dev,
          "device"));
  fail_unless (occupancy != NULL, "no device_occupancy entry");
  window_s = json_object_get_double_member (occupancy, "window_s");
  fail_unless (window_s > 0);
  fps = N_FRAMES / window_s;
  lhs = occ / PERCENT * n_cores;
  rhs = fps * device_ms / (gdouble) (GST_SECOND / GST_MSECOND);
  fail_unless (rhs > 0, "fps %f device_ms %f", fps, device_ms);
  fail_unless (fabs (lhs - rhs) <= IDENTITY_TOLERANCE * rhs,
      "occupancy x cores = %f, jobs per second of the device's window x "
      "device_ms = %f", lhs, rhs);
  g_object_unref (parser);
}

static void
bytes_unref0 (gpointer bytes)
{
  if (bytes != NULL)
    g_bytes_unref (bytes);
}

GST_START_TEST (test_detection_pipeline)
{
  Capture c;
  GstElement *pipeline, *overlay, *sink;
  GstPad *pad;
  GstBus *bus;
  GstMessage *msg;
  guint frame = 0, followed = 0, drawn = 0, with_truth = 0, detected = 0;
  GError *err = NULL;
  gchar *desc;

  frame_w = frame_sizes[__i__].w;
  frame_h = frame_sizes[__i__].h;
  g_mutex_init (&c.lock);
  c.before = g_ptr_array_new_with_free_func (bytes_unref0);
  c.truth = g_array_new (FALSE, FALSE, sizeof (Box));
  c.json = NULL;

  desc = g_strdup_printf ("videotestsrc pattern=ball is-live=true "
      "num-buffers=%d ! video/x-raw,format=RGB,width=%d,height=%d,"
      "framerate=30/1 ! axletterbox ! axinference model=" MODEL
      " ! axnms ! axoverlay name=ov ! appsink name=sink sync=false",
      N_FRAMES, frame_w, frame_h);
  pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (pipeline != NULL, "%s", err ? err->message : "");
  overlay = gst_bin_get_by_name (GST_BIN (pipeline), "ov");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  pad = gst_element_get_static_pad (overlay, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, before_overlay, &c, NULL);
  gst_object_unref (pad);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, catch_report, &c, NULL);

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);

  for (;;) {
    GstSample *sample = gst_app_sink_pull_sample (GST_APP_SINK (sink));
    GstBuffer *buf;
    GstMapInfo map;
    GstAxDetection det;
    GstVideoRegionOfInterestMeta *roi;
    gpointer state = NULL;
    Box t;

    if (sample == NULL)
      break;
    buf = gst_sample_get_buffer (sample);
    g_mutex_lock (&c.lock);
    fail_unless (frame < c.truth->len);
    t = g_array_index (c.truth, Box, frame);
    g_mutex_unlock (&c.lock);
    with_truth += t.found;

    /* the best detection is the first */
    if (t.found && gst_ax_detection_iterate (buf, &state, &det, &roi)) {
      gdouble v = iou (det.x_min * frame_w, det.y_min * frame_h,
          det.x_max * frame_w, det.y_max * frame_h, t.x0, t.y0, t.x1, t.y1);

      detected++;
      /* the labels come from the model through the model query */
      fail_unless_equals_string (det.label, "ball");
      GST_INFO ("frame %u true %d,%d-%d,%d det %.1f,%.1f-%.1f,%.1f "
          "conf %.2f iou %.2f", frame, t.x0, t.y0, t.x1, t.y1,
          det.x_min * frame_w, det.y_min * frame_h, det.x_max * frame_w,
          det.y_max * frame_h, det.confidence, v);
      if (v >= MIN_IOU)
        followed++;
      fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
      g_mutex_lock (&c.lock);
      drawn += changed_in_box (g_ptr_array_index (c.before, frame), map.data,
          roi->x, roi->y, roi->x + roi->w, roi->y + roi->h) > 0;
      g_mutex_unlock (&c.lock);
      gst_buffer_unmap (buf, &map);
    }
    g_mutex_lock (&c.lock);
    g_clear_pointer (&g_ptr_array_index (c.before, frame), g_bytes_unref);
    g_mutex_unlock (&c.lock);
    gst_sample_unref (sample);
    frame++;
  }
  fail_unless_equals_int (frame, N_FRAMES);

  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);

  fail_unless_equals_int (with_truth, N_FRAMES);
  fail_unless (followed >= MIN_FOLLOWED, "%dx%d: the detections followed "
      "the ball on %u of %u frames", frame_w, frame_h, followed, N_FRAMES);
  g_print ("detection pipeline at %dx%d: followed the ball on %u of %u "
      "frames\n", frame_w, frame_h, followed, N_FRAMES);
  fail_unless_equals_int (drawn, detected);
  check_report (c.json);

  gst_object_unref (bus);
  gst_object_unref (overlay);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_ptr_array_unref (c.before);
  g_array_unref (c.truth);
  g_free (c.json);
  g_mutex_clear (&c.lock);
}

GST_END_TEST;

static Suite *
detection_suite (void)
{
  Suite *s = suite_create ("detection");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_detection_pipeline, 0,
      G_N_ELEMENTS (frame_sizes));
  return s;
}

int
main (int argc, char **argv)
{
  gchar *dir = g_dir_make_tmp ("detection-XXXXXX", NULL);
  gchar *tracers, *report;
  int ret;

  /* the text report goes to a file so that the test output stays short */
  report = g_build_filename (dir, "report.txt", NULL);
  tracers = g_strdup_printf ("axprof(file=%s)", report);
  g_setenv ("GST_TRACERS", tracers, TRUE);
  g_free (tracers);
  gst_check_init (&argc, &argv);
  ret = gst_check_run_suite (detection_suite (), "detection", __FILE__);
  g_unlink (report);
  g_rmdir (dir);
  g_free (report);
  g_free (dir);
  return ret;
}
