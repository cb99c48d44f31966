/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The shipped ball-detector on 100 frames of videotestsrc pattern=ball:
 * the frames are letterboxed here (the GStreamer elements live
 * elsewhere), run through libsimnpu, and the top detection is compared
 * with the ball's true box measured from the frame's pixels. */

#include <gst/check/gstcheck.h>
#include <simnpu/simnpu.h>
#include <math.h>
#include <string.h>

#define N_FRAMES 100
#define MIN_GOOD_FRAMES 95
#define MIN_IOU 0.5
#define FRAME_W 320
#define FRAME_H 240
#define BYTES_PER_PIXEL 3
#define PAD_VALUE 114
/* a pixel belongs to the ball when its brightest channel exceeds this */
#define BALL_THRESHOLD 128
#define IN_FLIGHT 4
#define JOB_TIMEOUT_NS (G_GINT64_CONSTANT (10) * 1000000000)

typedef struct
{
  double x0, y0, x1, y1;
} Box;

typedef struct
{
  guint8 *frames;
  guint n;
} Capture;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Capture * cap)
{
  GstMapInfo map;

  if (cap->n >= N_FRAMES || !gst_buffer_map (buf, &map, GST_MAP_READ))
    return;
  fail_unless_equals_int (map.size, FRAME_W * FRAME_H * BYTES_PER_PIXEL);
  memcpy (cap->frames + (gsize) cap->n * map.size, map.data, map.size);
  cap->n++;
  gst_buffer_unmap (buf, &map);
}

static void
capture_frames (Capture * cap)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch ("videotestsrc pattern=ball "
      "num-buffers=100 ! video/x-raw,format=RGB,width=320,height=240 ! "
      "fakesink name=sink signal-handoffs=true sync=false", &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;

  fail_unless (pipe != NULL, "pipeline: %s", err ? err->message : "?");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), cap);
  gst_object_unref (sink);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (pipe);
  msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  fail_unless_equals_int (cap->n, N_FRAMES);
}

/* The true ball box: the bounding box of the bright pixels, as edges
 * (pixel x covers [x, x + 1)). */
static Box
true_box (const guint8 * frame)
{
  int x, y, x0 = FRAME_W, y0 = FRAME_H, x1 = -1, y1 = -1;

  for (y = 0; y < FRAME_H; y++)
    for (x = 0; x < FRAME_W; x++) {
      const guint8 *p = frame + (y * FRAME_W + x) * BYTES_PER_PIXEL;
      if (MAX (p[0], MAX (p[1], p[2])) > BALL_THRESHOLD) {
        x0 = MIN (x0, x);
        y0 = MIN (y0, y);
        x1 = MAX (x1, x);
        y1 = MAX (y1, y);
      }
    }
  fail_unless (x1 >= 0, "no ball in the frame");
  return (Box) {
  x0, y0, x1 + 1, y1 + 1};
}

typedef struct
{
  int size;
  double scale;
  int resized_w, resized_h, pad_x, pad_y;
} Letterbox;

/* Ultralytics-style letterbox: keep aspect ratio, centre, pad 114;
 * bilinear resampling with pixel centres at +0.5. */
static void
letterbox (const guint8 * frame, const Letterbox * lb, guint8 * out)
{
  int x, y, c;

  memset (out, PAD_VALUE, (gsize) lb->size * lb->size * BYTES_PER_PIXEL);
  for (y = 0; y < lb->resized_h; y++) {
    double sy = (y + 0.5) / lb->scale - 0.5;
    int y0 = CLAMP ((int) floor (sy), 0, FRAME_H - 1);
    int y1 = MIN (y0 + 1, FRAME_H - 1);
    double fy = CLAMP (sy - y0, 0.0, 1.0);
    for (x = 0; x < lb->resized_w; x++) {
      double sx = (x + 0.5) / lb->scale - 0.5;
      int x0 = CLAMP ((int) floor (sx), 0, FRAME_W - 1);
      int x1 = MIN (x0 + 1, FRAME_W - 1);
      double fx = CLAMP (sx - x0, 0.0, 1.0);
      guint8 *dst = out + ((y + lb->pad_y) * lb->size + x + lb->pad_x) *
          BYTES_PER_PIXEL;
      for (c = 0; c < BYTES_PER_PIXEL; c++) {
        double a = frame[(y0 * FRAME_W + x0) * 3 + c];
        double b = frame[(y0 * FRAME_W + x1) * 3 + c];
        double d = frame[(y1 * FRAME_W + x0) * 3 + c];
        double e = frame[(y1 * FRAME_W + x1) * 3 + c];
        double v = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) +
            e * fx) * fy;
        dst[c] = (guint8) CLAMP (lround (v), 0, 255);
      }
    }
  }
}

static double
iou (Box a, Box b)
{
  double iw = MIN (a.x1, b.x1) - MAX (a.x0, b.x0);
  double ih = MIN (a.y1, b.y1) - MAX (a.y0, b.y0);
  double inter, uni;

  if (iw <= 0 || ih <= 0)
    return 0.0;
  inter = iw * ih;
  uni = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return inter / uni;
}

/* Decodes [1, 4 + nc, anchors]: the anchor with the highest score (the
 * first one on ties), mapped back to frame coordinates. */
static Box
top_detection (const gint8 * out, const simnpu_tensor_spec * spec,
    const Letterbox * lb, double *score)
{
  int anchors = (int) spec->dims[2], a, best = 0;
  double s = spec->scale;
  int z = spec->zero_point;
  double cx, cy, w, h;

  for (a = 1; a < anchors; a++)
    if (out[4 * anchors + a] > out[4 * anchors + best])
      best = a;
  *score = s * (out[4 * anchors + best] - z);
  cx = s * (out[0 * anchors + best] - z);
  cy = s * (out[1 * anchors + best] - z);
  w = s * (out[2 * anchors + best] - z);
  h = s * (out[3 * anchors + best] - z);
  return (Box) {
  (cx - w / 2 - lb->pad_x) / lb->scale, (cy - h / 2 - lb->pad_y) / lb->scale,
        (cx + w / 2 - lb->pad_x) / lb->scale,
        (cy + h / 2 - lb->pad_y) / lb->scale};
}

GST_START_TEST (test_ball_detector_finds_the_ball)
{
  Capture cap = { 0 };
  simnpu_error error = { 0 };
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_tensor_spec in_spec, out_spec;
  simnpu_job *jobs[N_FRAMES];
  guint8 *inputs;
  gint8 *outputs;
  gchar *path;
  Letterbox lb;
  simnpu_counters counters;
  int i, good = 0;

  cap.frames = g_malloc ((gsize) N_FRAMES * FRAME_W * FRAME_H * 3);
  capture_frames (&cap);

  path = g_build_filename (g_getenv ("GST_AX_MODEL_PATH"),
      "ball-detector.axm", NULL);
  fail_unless (simnpu_device_open ("metis", &dev, &error) == 0, "%s",
      error.message);
  fail_unless (simnpu_device_set_time_scale (dev, 0.0) == 0);
  fail_unless (simnpu_model_load (dev, path, &model, &error) == 0, "%s",
      error.message);
  g_free (path);
  fail_unless (simnpu_model_get_input (model, 0, &in_spec) == 0);
  fail_unless (simnpu_model_get_output (model, 0, &out_spec) == 0);
  fail_unless_equals_int (in_spec.dtype, SIMNPU_DTYPE_U8);
  fail_unless_equals_int (in_spec.layout, SIMNPU_LAYOUT_NHWC);
  fail_unless_equals_int (in_spec.dims[1], in_spec.dims[2]);
  fail_unless_equals_int (in_spec.dims[3], 3);
  fail_unless_equals_int (out_spec.dtype, SIMNPU_DTYPE_I8);
  fail_unless_equals_int (out_spec.n_dims, 3);
  fail_unless_equals_int (out_spec.dims[1], 5);

  lb.size = (int) in_spec.dims[1];
  lb.scale = MIN ((double) lb.size / FRAME_W, (double) lb.size / FRAME_H);
  lb.resized_w = (int) lround (FRAME_W * lb.scale);
  lb.resized_h = (int) lround (FRAME_H * lb.scale);
  lb.pad_x = (lb.size - lb.resized_w) / 2;
  lb.pad_y = (lb.size - lb.resized_h) / 2;

  inputs = g_malloc ((gsize) N_FRAMES * in_spec.size_bytes);
  outputs = g_malloc ((gsize) N_FRAMES * out_spec.size_bytes);
  for (i = 0; i < N_FRAMES; i++) {
    simnpu_input_buffer in;
    simnpu_output_buffer out;
    letterbox (cap.frames + (gsize) i * FRAME_W * FRAME_H * 3, &lb,
        inputs + (gsize) i * in_spec.size_bytes);
    in.data = inputs + (gsize) i *in_spec.size_bytes;
    in.size_bytes = in_spec.size_bytes;
    out.data = outputs + (gsize) i *out_spec.size_bytes;
    out.size_bytes = out_spec.size_bytes;
    if (i >= IN_FLIGHT)
      fail_unless_equals_int (simnpu_job_wait (jobs[i - IN_FLIGHT],
              JOB_TIMEOUT_NS, NULL), 0);
    fail_unless (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
            &jobs[i], &error) == 0, "%s", error.message);
  }
  for (i = 0; i < N_FRAMES; i++) {
    Box truth, found;
    double score, overlap;
    fail_unless_equals_int (simnpu_job_wait (jobs[i], JOB_TIMEOUT_NS, NULL), 0);
    simnpu_job_free (jobs[i]);
    truth = true_box (cap.frames + (gsize) i * FRAME_W * FRAME_H * 3);
    found = top_detection (outputs + (gsize) i * out_spec.size_bytes,
        &out_spec, &lb, &score);
    overlap = iou (truth, found);
    GST_INFO ("frame %d: truth %.0f,%.0f-%.0f,%.0f found %.1f,%.1f-%.1f,%.1f "
        "score %.2f IoU %.3f", i, truth.x0, truth.y0, truth.x1, truth.y1,
        found.x0, found.y0, found.x1, found.y1, score, overlap);
    if (overlap >= MIN_IOU && score > 0.0)
      good++;
  }
  GST_INFO ("%d of %d frames with IoU >= %.2f", good, N_FRAMES, MIN_IOU);
  g_print ("ball-detector: %d of %d frames with top-detection IoU >= %.2f\n",
      good, N_FRAMES, MIN_IOU);
  fail_unless (good >= MIN_GOOD_FRAMES, "only %d of %d frames found the ball",
      good, N_FRAMES);

  fail_unless (simnpu_device_get_counters (dev, &counters) == 0);
  fail_unless_equals_int (counters.jobs_done, N_FRAMES);

  simnpu_model_unload (model);
  simnpu_device_close (dev);
  g_free (inputs);
  g_free (outputs);
  g_free (cap.frames);
}

GST_END_TEST;

GST_START_TEST (test_ball_detector_ignores_empty_frames)
{
  simnpu_error error = { 0 };
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_tensor_spec in_spec, out_spec;
  simnpu_input_buffer in;
  simnpu_output_buffer out;
  simnpu_job *job;
  guint8 *input;
  gint8 *output;
  gchar *path;
  int a, anchors;

  path = g_build_filename (g_getenv ("GST_AX_MODEL_PATH"),
      "ball-detector.axm", NULL);
  fail_unless (simnpu_device_open ("torq", &dev, &error) == 0);
  fail_unless (simnpu_device_set_time_scale (dev, 0.0) == 0);
  fail_unless (simnpu_model_load (dev, path, &model, &error) == 0, "%s",
      error.message);
  g_free (path);
  simnpu_model_get_input (model, 0, &in_spec);
  simnpu_model_get_output (model, 0, &out_spec);
  /* a letterbox of a black frame: black with grey padding bands */
  input = g_malloc (in_spec.size_bytes);
  output = g_malloc (out_spec.size_bytes);
  memset (input, 0, in_spec.size_bytes);
  memset (input, PAD_VALUE, in_spec.size_bytes / 8);
  in.data = input;
  in.size_bytes = in_spec.size_bytes;
  out.data = output;
  out.size_bytes = out_spec.size_bytes;
  fail_unless (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL, &job,
          &error) == 0);
  fail_unless_equals_int (simnpu_job_wait (job, JOB_TIMEOUT_NS, NULL), 0);
  simnpu_job_free (job);
  anchors = (int) out_spec.dims[2];
  for (a = 0; a < anchors; a++)
    fail_unless_equals_int (output[4 * anchors + a], out_spec.zero_point);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  g_free (input);
  g_free (output);
}

GST_END_TEST;

static Suite *
ball_suite (void)
{
  Suite *s = suite_create ("simnpu-ball");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ball_detector_finds_the_ball);
  tcase_add_test (tc, test_ball_detector_ignores_empty_frames);
  return s;
}

GST_CHECK_MAIN (ball);
