/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* An NCHW ONNX model end to end: `axletterbox ! axinference ! axnms` on
 * the detector tests/simnpu/make-nchw-model.c writes (input images
 * [1, 3, 32, 32], as PyTorch exports it; ImageNet's mean and std; a
 * YOLOv8-style head with one anchor per 4x4 cell, scoring red cells),
 * compiled by the build. axletterbox must write the planar, int8 tensor
 * the model's input spec asks for, with the stored preprocessing and the
 * letterbox, and axnms must find the red cells of each frame. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/ax/ax.h>
#include <math.h>

#define FRAME_W 64
#define FRAME_H 32
#define FRAME_CAPS "video/x-raw,format=RGB,width=64,height=32,framerate=30/1"
#define SIZE 32
#define CHANNELS 3
#define CELL 4
/* the 64x32 frame lands at half size in rows 8..23 of the 32x32 input */
#define PAD_ROWS 8
#define FILL 114
#define MAX_PIXEL 255.0
#define N_FRAMES 2

static const double mean[CHANNELS] = { 0.485, 0.456, 0.406 };
static const double std_dev[CHANNELS] = { 0.229, 0.224, 0.225 };

/* a red rectangle of each frame, in frame pixels: x, y, width, height */
static const gint red_rect[N_FRAMES][4] = {
  {16, 8, 16, 16},
  {40, 0, 16, 8},
};

/* the detections each frame must give: the red cells, 8x8 frame pixels */
static const guint expected_boxes[N_FRAMES] = { 4, 2 };

static GstBuffer *
make_frame (guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, FRAME_W * FRAME_H * 3,
      NULL);
  GstMapInfo map;
  gint x, y;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  memset (map.data, 0, map.size);
  for (y = red_rect[i][1]; y < red_rect[i][1] + red_rect[i][3]; y++)
    for (x = red_rect[i][0]; x < red_rect[i][0] + red_rect[i][2]; x++)
      map.data[(y * FRAME_W + x) * 3] = 255;
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = i * GST_SECOND / 30;
  return buf;
}

/* channel c of pixel value p as the model's preprocessing makes it */
static double
normalised (guint8 p, guint c)
{
  return (p / MAX_PIXEL - mean[c]) / std_dev[c];
}

/* the tensor's value at (x, y) of plane c, dequantised */
static double
tensor_at (const GstAxTensorMeta * t, const GstMapInfo * map, guint c,
    guint x, guint y)
{
  const gint8 *q = (const gint8 *) map->data;

  return t->scale * (q[(c * SIZE + y) * SIZE + x] - t->zero_point);
}

static void
check_pixel (const GstAxTensorMeta * t, const GstMapInfo * map, guint x,
    guint y, const guint8 * rgb)
{
  guint c;

  for (c = 0; c < CHANNELS; c++) {
    double want = normalised (rgb[c], c), got = tensor_at (t, map, c, x, y);
    /* rounded to the nearest step */
    if (fabs (got - want) > t->scale * 0.5 + 1e-4)
      fail ("plane %u at (%u, %u): %g, expected %g (scale %g)", c, x, y, got,
          want, t->scale);
  }
}

static void
check_input_tensor (GstBuffer * out, guint i)
{
  static const guint8 red[CHANNELS] = { 255, 0, 0 };
  static const guint8 black[CHANNELS] = { 0, 0, 0 };
  static const guint8 fill[CHANNELS] = { FILL, FILL, FILL };
  GstAxTensorMeta *t = gst_buffer_get_ax_tensor_meta_by_role (out,
      GST_AX_TENSOR_ROLE_INPUT, 0, 0);
  GstMapInfo map;
  guint rx = red_rect[i][0] / 2 + 1, ry = PAD_ROWS + red_rect[i][1] / 2 + 1;

  fail_unless (t != NULL);
  fail_unless_equals_int (t->layout, GST_AX_TENSOR_LAYOUT_NCHW);
  fail_unless_equals_int (t->dtype, GST_AX_TENSOR_DTYPE_I8);
  fail_unless_equals_int (t->n_dims, 4);
  fail_unless_equals_int64 (t->dims[0], 1);
  fail_unless_equals_int64 (t->dims[1], CHANNELS);
  fail_unless_equals_int64 (t->dims[2], SIZE);
  fail_unless_equals_int64 (t->dims[3], SIZE);
  fail_unless (t->scale > 0.0f && t->scale < 0.1f);
  fail_unless_equals_int (gst_buffer_get_size (t->data),
      CHANNELS * SIZE * SIZE);
  fail_unless (gst_buffer_map (t->data, &map, GST_MAP_READ));
  /* inside the red rectangle, on black, in the letterbox's bands */
  check_pixel (t, &map, rx, ry, red);
  check_pixel (t, &map, rx + 2, ry + 2, red);
  check_pixel (t, &map, 0, PAD_ROWS, black);
  check_pixel (t, &map, SIZE - 1, SIZE - PAD_ROWS - 1, black);
  check_pixel (t, &map, 5, 0, fill);
  check_pixel (t, &map, SIZE - 1, SIZE - 1, fill);
  /* planar: plane 0 holds red, planes 1 and 2 do not */
  fail_unless (tensor_at (t, &map, 0, rx, ry) > 2.0);
  fail_unless (tensor_at (t, &map, 1, rx, ry) < -1.5);
  fail_unless (tensor_at (t, &map, 2, rx, ry) < -1.5);
  gst_buffer_unmap (t->data, &map);
}

static void
check_detections (GstBuffer * out, guint i)
{
  GstAxDetection det;
  gpointer state = NULL;
  guint n = 0;
  gdouble area = 0;

  fail_unless_equals_int (gst_ax_detection_count (out), expected_boxes[i]);
  while (gst_ax_detection_iterate (out, &state, &det, NULL)) {
    gdouble x0 = det.x_min * FRAME_W, y0 = det.y_min * FRAME_H;
    gdouble x1 = det.x_max * FRAME_W, y1 = det.y_max * FRAME_H;

    /* one cell: 8x8 frame pixels inside the red rectangle */
    fail_unless (fabs (x1 - x0 - 2 * CELL) < 0.5, "width %g", x1 - x0);
    fail_unless (fabs (y1 - y0 - 2 * CELL) < 0.5, "height %g", y1 - y0);
    fail_unless (x0 > red_rect[i][0] - 0.5 && y0 > red_rect[i][1] - 0.5);
    fail_unless (x1 < red_rect[i][0] + red_rect[i][2] + 0.5);
    fail_unless (y1 < red_rect[i][1] + red_rect[i][3] + 0.5);
    fail_unless (det.confidence > 0.5f);
    area += (x1 - x0) * (y1 - y0);
    n++;
  }
  fail_unless_equals_int (n, expected_boxes[i]);
  /* the cells cover the rectangle */
  fail_unless (fabs (area - red_rect[i][2] * red_rect[i][3]) < 8.0,
      "area %g", area);
}

GST_START_TEST (test_nchw_pipeline)
{
  GstHarness *h = gst_harness_new_parse ("axletterbox ! axinference "
      "model=" NCHW_MODEL_PATH " ! axnms keep-tensors=true");
  GstEvent *ev;
  guint i;

  gst_harness_set_src_caps_str (h, FRAME_CAPS);
  for (i = 0; i < N_FRAMES; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((ev = gst_harness_pull_event (h)) != NULL) {
    gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;

    gst_event_unref (ev);
    if (eos)
      break;
  }
  fail_unless (ev != NULL, "no EOS");
  fail_unless_equals_int (gst_harness_buffers_received (h), N_FRAMES);
  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstAxTensorMeta *o;

    check_input_tensor (out, i);
    o = gst_buffer_get_ax_tensor_meta_by_name (out, "output0");
    fail_unless (o != NULL);
    fail_unless_equals_int (o->n_dims, 3);
    fail_unless_equals_int64 (o->dims[1], 5);
    fail_unless_equals_int64 (o->dims[2], (SIZE / CELL) * (SIZE / CELL));
    check_detections (out, i);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axnchw_suite (void)
{
  Suite *s = suite_create ("axnchw");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_nchw_pipeline);
  return s;
}

GST_CHECK_MAIN (axnchw);
