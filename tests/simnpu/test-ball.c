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
#define BYTES_PER_PIXEL 3
#define PAD_VALUE 114
/* a pixel belongs to the ball when its brightest channel exceeds this */
#define BALL_THRESHOLD 128
#define IN_FLIGHT 4
#define JOB_TIMEOUT_NS (G_GINT64_CONSTANT (10) * 1000000000)
/* synthetic blobs: discs of these diameters, in tensor pixels */
#define BLOB_MIN_PX 6
#define BLOB_MAX_PX 60
#define BLOB_STEP_PX 3
#define BLOB_LEVEL 230
#define BLOB_BACKGROUND 20
#define BLOB_SEED 4242

/* frame sizes of videotestsrc pattern=ball the detector must handle: the
 * ball is about 37 px across at each of them */
static const struct
{
  int w, h;
} frame_sizes[] = { {320, 240}, {640, 480}, {1280, 720}, {1920, 1080} };

typedef struct
{
  double x0, y0, x1, y1;
} Box;

typedef struct
{
  int size;
  double scale;
  int resized_w, resized_h, pad_x, pad_y;
} Letterbox;

typedef struct
{
  int frame_w, frame_h;
  Letterbox lb;
  gsize input_bytes;
  guint8 *inputs;               /* letterboxed tensors, one per frame */
  Box truth[N_FRAMES];
  guint n;
} Capture;

/* The true ball box: the bounding box of the bright pixels, as edges
 * (pixel x covers [x, x + 1)). */
static Box
true_box (const guint8 * frame, int fw, int fh, int stride)
{
  int x, y, x0 = fw, y0 = fh, x1 = -1, y1 = -1;

  for (y = 0; y < fh; y++)
    for (x = 0; x < fw; x++) {
      const guint8 *p = frame + y * stride + x * BYTES_PER_PIXEL;
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

static void
letterbox_init (Letterbox * lb, int size, int fw, int fh)
{
  lb->size = size;
  lb->scale = MIN ((double) size / fw, (double) size / fh);
  lb->resized_w = (int) lround (fw * lb->scale);
  lb->resized_h = (int) lround (fh * lb->scale);
  lb->pad_x = (size - lb->resized_w) / 2;
  lb->pad_y = (size - lb->resized_h) / 2;
}

/* Ultralytics-style letterbox: keep aspect ratio, centre, pad 114;
 * bilinear resampling with pixel centres at +0.5. */
static void
letterbox (const guint8 * frame, int fw, int fh, int stride,
    const Letterbox * lb, guint8 * out)
{
  int x, y, c;

  memset (out, PAD_VALUE, (gsize) lb->size * lb->size * BYTES_PER_PIXEL);
  for (y = 0; y < lb->resized_h; y++) {
    double sy = (y + 0.5) / lb->scale - 0.5;
    int y0 = CLAMP ((int) floor (sy), 0, fh - 1);
    int y1 = MIN (y0 + 1, fh - 1);
    double fy = CLAMP (sy - y0, 0.0, 1.0);
    for (x = 0; x < lb->resized_w; x++) {
      double sx = (x + 0.5) / lb->scale - 0.5;
      int x0 = CLAMP ((int) floor (sx), 0, fw - 1);
      int x1 = MIN (x0 + 1, fw - 1);
      double fx = CLAMP (sx - x0, 0.0, 1.0);
      guint8 *dst = out + ((y + lb->pad_y) * lb->size + x + lb->pad_x) *
          BYTES_PER_PIXEL;
      for (c = 0; c < BYTES_PER_PIXEL; c++) {
        double a = frame[y0 * stride + x0 * 3 + c];
        double b = frame[y0 * stride + x1 * 3 + c];
        double d = frame[y1 * stride + x0 * 3 + c];
        double e = frame[y1 * stride + x1 * 3 + c];
        double v = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) +
            e * fx) * fy;
        dst[c] = (guint8) CLAMP (lround (v), 0, 255);
      }
    }
  }
}

/* Frames are letterboxed as they arrive, so a 1080p run keeps only the
 * small tensors. */
static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Capture * cap)
{
  GstMapInfo map;
  int stride = GST_ROUND_UP_4 (cap->frame_w * BYTES_PER_PIXEL);

  if (cap->n >= N_FRAMES || !gst_buffer_map (buf, &map, GST_MAP_READ))
    return;
  fail_unless (map.size >= (gsize) stride * cap->frame_h);
  cap->truth[cap->n] = true_box (map.data, cap->frame_w, cap->frame_h, stride);
  letterbox (map.data, cap->frame_w, cap->frame_h, stride, &cap->lb,
      cap->inputs + (gsize) cap->n * cap->input_bytes);
  cap->n++;
  gst_buffer_unmap (buf, &map);
}

static void
capture_frames (Capture * cap)
{
  GError *err = NULL;
  gchar *desc = g_strdup_printf ("videotestsrc pattern=ball "
      "num-buffers=%d ! video/x-raw,format=RGB,width=%d,height=%d ! "
      "fakesink name=sink signal-handoffs=true sync=false", N_FRAMES,
      cap->frame_w, cap->frame_h);
  GstElement *pipe = gst_parse_launch (desc, &err);
  GstElement *sink;
  GstBus *bus;
  GstMessage *msg;

  g_free (desc);
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

/* element i of an output tensor, dequantised */
static double
out_value (const void *out, const simnpu_tensor_spec * spec, gsize i)
{
  if (spec->dtype == SIMNPU_DTYPE_F32)
    return ((const float *) out)[i];
  if (spec->dtype == SIMNPU_DTYPE_U8)
    return spec->scale * (((const guint8 *) out)[i] - spec->zero_point);
  return spec->scale * (((const gint8 *) out)[i] - spec->zero_point);
}

/* Decodes [1, 4 + nc, anchors]: the anchor with the highest score (the
 * first one on ties), mapped back to frame coordinates. */
static Box
top_detection (const void *out, const simnpu_tensor_spec * spec,
    const Letterbox * lb, double *score)
{
  gsize anchors = (gsize) spec->dims[2], a, best = 0;
  double cx, cy, w, h;

  for (a = 1; a < anchors; a++)
    if (out_value (out, spec, 4 * anchors + a) >
        out_value (out, spec, 4 * anchors + best))
      best = a;
  *score = out_value (out, spec, 4 * anchors + best);
  cx = out_value (out, spec, 0 * anchors + best);
  cy = out_value (out, spec, 1 * anchors + best);
  w = out_value (out, spec, 2 * anchors + best);
  h = out_value (out, spec, 3 * anchors + best);
  return (Box) {
  (cx - w / 2 - lb->pad_x) / lb->scale, (cy - h / 2 - lb->pad_y) / lb->scale,
        (cx + w / 2 - lb->pad_x) / lb->scale,
        (cy + h / 2 - lb->pad_y) / lb->scale};
}

static simnpu_model *
open_ball_detector (const char *profile, simnpu_device ** dev,
    simnpu_tensor_spec * in_spec, simnpu_tensor_spec * out_spec)
{
  simnpu_error error = { 0 };
  simnpu_model *model;
  gchar *path = g_build_filename (g_getenv ("GST_AX_MODEL_PATH"),
      "ball-detector.axm", NULL);

  fail_unless (simnpu_device_open (profile, dev, &error) == 0, "%s",
      error.message);
  fail_unless (simnpu_device_set_time_scale (*dev, 0.0) == 0);
  fail_unless (simnpu_model_load (*dev, path, &model, &error) == 0, "%s",
      error.message);
  g_free (path);
  fail_unless (simnpu_model_get_input (model, 0, in_spec) == 0);
  fail_unless (simnpu_model_get_output (model, 0, out_spec) == 0);
  fail_unless_equals_int (in_spec->dtype, SIMNPU_DTYPE_U8);
  fail_unless_equals_int (in_spec->layout, SIMNPU_LAYOUT_NHWC);
  fail_unless_equals_int (in_spec->dims[1], in_spec->dims[2]);
  fail_unless_equals_int (in_spec->dims[3], 3);
  fail_unless_equals_int (out_spec->n_dims, 3);
  fail_unless_equals_int (out_spec->dims[1], 5);
  return model;
}

/* Runs n tensors through the model, IN_FLIGHT at a time. */
static void
run_jobs (simnpu_model * model, const guint8 * inputs, gsize in_bytes,
    guint8 * outputs, gsize out_bytes, int n)
{
  simnpu_error error = { 0 };
  simnpu_job **jobs = g_new0 (simnpu_job *, n);
  int i;

  for (i = 0; i < n; i++) {
    simnpu_input_buffer in;
    simnpu_output_buffer out;
    in.data = inputs + (gsize) i *in_bytes;
    in.size_bytes = in_bytes;
    out.data = outputs + (gsize) i *out_bytes;
    out.size_bytes = out_bytes;
    if (i >= IN_FLIGHT)
      fail_unless_equals_int (simnpu_job_wait (jobs[i - IN_FLIGHT],
              JOB_TIMEOUT_NS, NULL), 0);
    fail_unless (simnpu_job_submit (model, &in, 1, &out, 1, NULL, NULL,
            &jobs[i], &error) == 0, "%s", error.message);
  }
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (simnpu_job_wait (jobs[i], JOB_TIMEOUT_NS, NULL), 0);
    simnpu_job_free (jobs[i]);
  }
  g_free (jobs);
}

GST_START_TEST (test_ball_detector_finds_the_ball)
{
  Capture cap = { 0 };
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_tensor_spec in_spec, out_spec;
  guint8 *outputs;
  simnpu_counters counters;
  double worst = 1.0;
  int i, good = 0;

  cap.frame_w = frame_sizes[__i__].w;
  cap.frame_h = frame_sizes[__i__].h;
  model = open_ball_detector ("metis", &dev, &in_spec, &out_spec);
  letterbox_init (&cap.lb, (int) in_spec.dims[1], cap.frame_w, cap.frame_h);
  cap.input_bytes = in_spec.size_bytes;
  cap.inputs = g_malloc ((gsize) N_FRAMES * in_spec.size_bytes);
  capture_frames (&cap);

  outputs = g_malloc ((gsize) N_FRAMES * out_spec.size_bytes);
  run_jobs (model, cap.inputs, in_spec.size_bytes, outputs,
      out_spec.size_bytes, N_FRAMES);
  for (i = 0; i < N_FRAMES; i++) {
    Box truth = cap.truth[i], found;
    double score, overlap;
    found = top_detection (outputs + (gsize) i * out_spec.size_bytes,
        &out_spec, &cap.lb, &score);
    overlap = iou (truth, found);
    GST_INFO ("frame %d: truth %.0f,%.0f-%.0f,%.0f found %.1f,%.1f-%.1f,%.1f "
        "score %.2f IoU %.3f", i, truth.x0, truth.y0, truth.x1, truth.y1,
        found.x0, found.y0, found.x1, found.y1, score, overlap);
    if (overlap >= MIN_IOU && score > 0.0)
      good++;
    worst = MIN (worst, overlap);
  }
  g_print ("ball-detector at %dx%d: %d of %d frames with top-detection "
      "IoU >= %.2f (lowest %.3f)\n", cap.frame_w, cap.frame_h, good,
      N_FRAMES, MIN_IOU, worst);
  fail_unless (good >= MIN_GOOD_FRAMES, "%dx%d: only %d of %d frames found "
      "the ball", cap.frame_w, cap.frame_h, good, N_FRAMES);

  fail_unless (simnpu_device_get_counters (dev, &counters) == 0);
  fail_unless_equals_int (counters.jobs_done, N_FRAMES);

  simnpu_model_unload (model);
  simnpu_device_close (dev);
  g_free (cap.inputs);
  g_free (outputs);
}

GST_END_TEST;

/* Bright discs of every size from BLOB_MIN_PX to BLOB_MAX_PX tensor pixels
 * at random positions on a dark background, anti-aliased by 4x4
 * supersampling. */
GST_START_TEST (test_ball_detector_finds_blobs)
{
  simnpu_device *dev;
  simnpu_model *model;
  simnpu_tensor_spec in_spec, out_spec;
  Letterbox identity;
  GRand *rand = g_rand_new_with_seed (BLOB_SEED);
  const int ss = 4;
  int n = (BLOB_MAX_PX - BLOB_MIN_PX) / BLOB_STEP_PX + 1, i, size;
  guint8 *inputs, *outputs;
  Box *truth;
  double worst = 1.0;

  model = open_ball_detector ("metis", &dev, &in_spec, &out_spec);
  size = (int) in_spec.dims[1];
  letterbox_init (&identity, size, size, size);
  inputs = g_malloc ((gsize) n * in_spec.size_bytes);
  outputs = g_malloc ((gsize) n * out_spec.size_bytes);
  truth = g_new (Box, n);
  for (i = 0; i < n; i++) {
    double d = BLOB_MIN_PX + i * BLOB_STEP_PX, r = d / 2;
    double cx = g_rand_double_range (rand, r + 1, size - r - 1);
    double cy = g_rand_double_range (rand, r + 1, size - r - 1);
    guint8 *img = inputs + (gsize) i * in_spec.size_bytes;
    int x, y, sx, sy;
    for (y = 0; y < size; y++)
      for (x = 0; x < size; x++) {
        int inside = 0;
        for (sy = 0; sy < ss; sy++)
          for (sx = 0; sx < ss; sx++) {
            double px = x + (sx + 0.5) / ss - cx, py = y + (sy + 0.5) / ss - cy;
            inside += px * px + py * py <= r * r;
          }
        memset (img + ((gsize) y * size + x) * BYTES_PER_PIXEL,
            BLOB_BACKGROUND + (BLOB_LEVEL - BLOB_BACKGROUND) * inside /
            (ss * ss), BYTES_PER_PIXEL);
      }
    truth[i] = (Box) {
    cx - r, cy - r, cx + r, cy + r};
  }
  run_jobs (model, inputs, in_spec.size_bytes, outputs, out_spec.size_bytes, n);
  for (i = 0; i < n; i++) {
    double score, overlap;
    Box found = top_detection (outputs + (gsize) i * out_spec.size_bytes,
        &out_spec, &identity, &score);
    overlap = iou (truth[i], found);
    GST_INFO ("blob %.0f px: truth %.1f,%.1f-%.1f,%.1f found "
        "%.1f,%.1f-%.1f,%.1f score %.2f IoU %.3f",
        truth[i].x1 - truth[i].x0, truth[i].x0, truth[i].y0, truth[i].x1,
        truth[i].y1, found.x0, found.y0, found.x1, found.y1, score, overlap);
    fail_unless (score >= 0.5 && overlap >= MIN_IOU, "blob of %.0f px: "
        "score %.2f IoU %.3f", truth[i].x1 - truth[i].x0, score, overlap);
    worst = MIN (worst, overlap);
  }
  g_print ("ball-detector: %d blobs of %d to %d px, lowest IoU %.3f\n", n,
      BLOB_MIN_PX, BLOB_MAX_PX, worst);
  simnpu_model_unload (model);
  simnpu_device_close (dev);
  g_rand_free (rand);
  g_free (inputs);
  g_free (outputs);
  g_free (truth);
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
  guint8 *output;
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
    fail_unless (out_value (output, &out_spec, 4 * anchors + a) == 0.0,
        "anchor %d scores %g on an empty frame", a,
        out_value (output, &out_spec, 4 * anchors + a));
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
  tcase_add_loop_test (tc, test_ball_detector_finds_the_ball, 0,
      G_N_ELEMENTS (frame_sizes));
  tcase_add_test (tc, test_ball_detector_finds_blobs);
  tcase_add_test (tc, test_ball_detector_ignores_empty_frames);
  return s;
}

GST_CHECK_MAIN (ball);
