/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The axnms element: its letterbox and labels, the decoder it configures
 * from the model's metadata, its errors, and the real models through it.
 * The decoding engine on its own is tested in axnms-decode.c. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>
#include <gst/ax/ax.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gstaxnmsdecode.h"
#include "axnmsreference.h"
#include "axnmsreal.h"
#include "axnmsmeta.h"

/* --- the element --- */

#define FRAME_W 1280
#define FRAME_H 720
#define TENSOR_SIZE 640

static GstBuffer *
make_frame (GstHarness * h, const gint8 * out, guint na, guint nc,
    gboolean with_input)
{
  GstBuffer *buf = gst_harness_create_buffer (h, 16);
  gint64 odims[3] = { 1, 4 + nc, na };
  gint64 idims[4] = { 1, TENSOR_SIZE, TENSOR_SIZE, 3 };
  GstBuffer *odata = gst_buffer_new_memdup (out, (4 + nc) * na);
  GstAxTensorMeta *m;

  m = gst_buffer_add_ax_tensor_meta (buf, "output0",
      GST_AX_TENSOR_ROLE_OUTPUT, GST_AX_TENSOR_DTYPE_I8,
      GST_AX_TENSOR_LAYOUT_NHWC, 3, odims, 1.0f / 255, -128, odata);
  fail_unless (m != NULL);
  if (with_input) {
    m = gst_buffer_add_ax_tensor_meta (buf, "images",
        GST_AX_TENSOR_ROLE_INPUT, GST_AX_TENSOR_DTYPE_U8,
        GST_AX_TENSOR_LAYOUT_NHWC, 4, idims, 1.0f / 255, 0,
        gst_buffer_new_allocate (NULL, TENSOR_SIZE * TENSOR_SIZE * 3, NULL));
    m->has_letterbox = gst_ax_letterbox_geometry_init (&m->letterbox, FRAME_W,
        FRAME_H, TENSOR_SIZE, TENSOR_SIZE, TRUE, FALSE, 114);
  }
  return buf;
}

/* Two objects in normalised units: class 1 at (0.5, 0.5) size 0.25, class
 * 0 at (0.1, 0.9) size 0.1, each on several anchors; noise elsewhere. */
static void
fill_two_objects (gint8 * t, guint na, guint nc)
{
  guint a;

  memset (t, -128, (4 + nc) * na);
  for (a = 0; a < 6; a++) {
    guint k = 10 + a;
    t[k] = -128 + 128 + (gint) a - 3;   /* x ~ 0.5 */
    t[na + k] = -128 + 128;
    t[2 * na + k] = -128 + 64;
    t[3 * na + k] = -128 + 64;
    t[(4 + 1) * na + k] = -128 + 200 + (gint) a;
    k = 30 + a;
    t[k] = -128 + 26;
    t[na + k] = -128 + 230;
    t[2 * na + k] = -128 + 26;
    t[3 * na + k] = -128 + 26;
    t[(4 + 0) * na + k] = -128 + 150 - (gint) a;
  }
}

GST_START_TEST (test_element_letterbox_and_labels)
{
  GstHarness *h;
  gchar *launch;
  const guint na = 64, nc = 3;
  gint8 t[(4 + 3) * 64];
  GstBuffer *out;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  gchar *labels_path;
  GError *err = NULL;
  gint fd;
  GstAxLetterboxGeometry lb;
  gdouble tb[4], sb[4];

  fd = g_file_open_tmp ("axnms-labels-XXXXXX", &labels_path, &err);
  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (labels_path, "cat\nball\ndog\n", -1, NULL));

  /* labels are read when the element starts */
  launch = g_strdup_printf ("axnms labels=\"%s\" box-units=normalized",
      labels_path);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=1280,"
      "height=720,framerate=30/1");
  fill_two_objects (t, na, nc);
  out = gst_harness_push_and_pull (h, make_frame (h, t, na, nc, TRUE));
  fail_unless (out != NULL);

  fail_unless_equals_int (gst_ax_detection_count (out), 2);
  /* tensors consumed */
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 0);

  gst_ax_letterbox_geometry_init (&lb, FRAME_W, FRAME_H, TENSOR_SIZE,
      TENSOR_SIZE, TRUE, FALSE, 114);
  /* best: the ball, anchor 15 (score (200+5)/255), x centre 0.5+2/255 */
  fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
  fail_unless_equals_string (det.label, "ball");
  fail_unless_equals_int (det.label_id, 1);
  fail_unless_equals_float (det.confidence, 205.0f / 255);
  tb[0] = (130.0f / 255 - 64.0f / 255 * 0.5f) * 640;
  tb[1] = (128.0f / 255 - 64.0f / 255 * 0.5f) * 640;
  tb[2] = (130.0f / 255 + 64.0f / 255 * 0.5f) * 640;
  tb[3] = (128.0f / 255 + 64.0f / 255 * 0.5f) * 640;
  gst_ax_letterbox_geometry_box_to_source (&lb, tb, sb, FRAME_W, FRAME_H);
  fail_unless (fabs (det.x_min - sb[0] / FRAME_W) < 1e-6);
  fail_unless (fabs (det.y_min - sb[1] / FRAME_H) < 1e-6);
  fail_unless (fabs (det.x_max - sb[2] / FRAME_W) < 1e-6);
  fail_unless (fabs (det.y_max - sb[3] / FRAME_H) < 1e-6);
  /* the letterbox pads 140 rows at the top of the 640x640 tensor */
  fail_unless_equals_int (roi->y, (gint) lround (sb[1]));
  fail_unless (sb[1] > 0 && sb[3] < FRAME_H);

  /* second: the cat near the bottom-left corner, clamped to the frame */
  fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
  fail_unless_equals_string (det.label, "cat");
  fail_unless_equals_float (det.confidence, 150.0f / 255);
  fail_unless (det.x_min >= 0.0f && det.y_max <= 1.0f);
  fail_unless (!gst_ax_detection_iterate (out, &state, &det, &roi));
  gst_buffer_unref (out);

  gst_harness_teardown (h);
  g_unlink (labels_path);
  g_free (labels_path);
}

GST_END_TEST;

/* A cascade frame: instance 1 is a crop of the frame at (CROP_X, CROP_Y);
 * each instance's boxes go through its own letterbox, and only the
 * tensors of decoded instances are removed. */
#define CROP_X 200
#define CROP_Y 100
#define CROP_W 640
#define CROP_H 360

GST_START_TEST (test_element_two_instances)
{
  GstHarness *h = gst_harness_new_parse ("axnms box-units=normalized");
  const guint na = 64, nc = 3;
  gint8 t[(4 + 3) * 64];
  gint64 odims[3] = { 1, 4 + 3, 64 };
  gint64 idims[4] = { 1, TENSOR_SIZE, TENSOR_SIZE, 3 };
  GstBuffer *buf, *out;
  GstAxTensorMeta *m;
  GstAxDetection det;
  GstAxLetterboxGeometry lb0, lb1;
  gpointer state = NULL;
  gdouble tb[4], sb[4];
  guint n = 0;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=1280,"
      "height=720,framerate=30/1");
  fill_two_objects (t, na, nc);
  buf = make_frame (h, t, na, nc, TRUE);
  lb0 = gst_buffer_get_ax_tensor_meta_by_role (buf, GST_AX_TENSOR_ROLE_INPUT,
      0, 0)->letterbox;
  m = gst_buffer_add_ax_tensor_meta (buf, "output0",
      GST_AX_TENSOR_ROLE_OUTPUT, GST_AX_TENSOR_DTYPE_I8,
      GST_AX_TENSOR_LAYOUT_NHWC, 3, odims, 1.0f / 255, -128,
      gst_buffer_new_memdup (t, sizeof (t)));
  m->instance = 1;
  m = gst_buffer_add_ax_tensor_meta (buf, "images",
      GST_AX_TENSOR_ROLE_INPUT, GST_AX_TENSOR_DTYPE_U8,
      GST_AX_TENSOR_LAYOUT_NHWC, 4, idims, 1.0f / 255, 0,
      gst_buffer_new_allocate (NULL, TENSOR_SIZE * TENSOR_SIZE * 3, NULL));
  m->instance = 1;
  m->has_letterbox =
      gst_ax_letterbox_geometry_init (&m->letterbox, CROP_W, CROP_H,
      TENSOR_SIZE, TENSOR_SIZE, TRUE, FALSE, 114);
  m->letterbox.src_x = CROP_X;
  m->letterbox.src_y = CROP_Y;
  lb1 = m->letterbox;
  /* an input of a third instance without outputs stays */
  m = gst_buffer_add_ax_tensor_meta (buf, "images",
      GST_AX_TENSOR_ROLE_INPUT, GST_AX_TENSOR_DTYPE_U8,
      GST_AX_TENSOR_LAYOUT_NHWC, 4, idims, 1.0f / 255, 0,
      gst_buffer_new_allocate (NULL, TENSOR_SIZE * TENSOR_SIZE * 3, NULL));
  m->instance = 2;

  out = gst_harness_push_and_pull (h, buf);
  fail_unless_equals_int (gst_ax_detection_count (out), 4);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 1);

  /* the ball of each instance, through its own geometry */
  tb[0] = (130.0f / 255 - 64.0f / 255 * 0.5f) * 640;
  tb[1] = (128.0f / 255 - 64.0f / 255 * 0.5f) * 640;
  tb[2] = (130.0f / 255 + 64.0f / 255 * 0.5f) * 640;
  tb[3] = (128.0f / 255 + 64.0f / 255 * 0.5f) * 640;
  while (gst_ax_detection_iterate (out, &state, &det, NULL)) {
    if (det.label_id != 1)
      continue;
    gst_ax_letterbox_geometry_box_to_source (n == 0 ? &lb0 : &lb1, tb, sb,
        FRAME_W, FRAME_H);
    fail_unless (fabs (det.x_min - sb[0] / FRAME_W) < 1e-6);
    fail_unless (fabs (det.y_max - sb[3] / FRAME_H) < 1e-6);
    n++;
  }
  fail_unless_equals_int (n, 2);
  /* the crop's ball is not the full frame's ball */
  fail_unless (lb0.scale != lb1.scale);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_element_keep_tensors_and_no_letterbox)
{
  GstHarness *h = gst_harness_new ("axnms");
  const guint na = 64, nc = 3;
  gint8 t[(4 + 3) * 64];
  GstBuffer *out;
  GstAxDetection det;
  gpointer state = NULL;

  g_object_set (h->element, "keep-tensors", TRUE, "class-agnostic", TRUE,
      "score-threshold", 0.7f, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=1280,"
      "height=720,framerate=30/1");
  fill_two_objects (t, na, nc);
  /* pixel units without a letterbox: boxes are frame pixels near (0,0) */
  out = gst_harness_push_and_pull (h, make_frame (h, t, na, nc, FALSE));
  fail_unless_equals_int (gst_ax_detection_count (out), 1);
  fail_unless (gst_ax_detection_iterate (out, &state, &det, NULL));
  fail_unless_equals_string (det.label, "class1");
  fail_unless (fabs (det.x_max - (130.0 / 255 + 32.0 / 255) / FRAME_W) < 1e-6);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 1);
  gst_buffer_unref (out);

  /* frames without tensors pass untouched */
  out = gst_harness_push_and_pull (h, gst_harness_create_buffer (h, 16));
  fail_unless_equals_int (gst_ax_detection_count (out), 0);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_element_bad_shape_errors)
{
  GstHarness *h = gst_harness_new ("axnms");
  gint8 t[(4 + 3) * 64];

  memset (t, 0, sizeof (t));
  g_object_set (h->element, "decode", 1, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=1280,"
      "height=720,framerate=30/1");
  /* yolov5 needs more than 5 columns */
  {
    GstBuffer *buf = gst_harness_create_buffer (h, 16);
    gint64 dims[3] = { 1, 64, 5 };
    gst_buffer_add_ax_tensor_meta (buf, "output0", GST_AX_TENSOR_ROLE_OUTPUT,
        GST_AX_TENSOR_DTYPE_I8, GST_AX_TENSOR_LAYOUT_NHWC, 3, dims, 0.1f, 0,
        gst_buffer_new_memdup (t, 5 * 64));
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_element_missing_labels_file)
{
  GstElement *e = gst_element_factory_make ("axnms", NULL);

  g_object_set (e, "labels", "/nonexistent/labels.txt", NULL);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (e);
}

GST_END_TEST;

/* Without a labels file axnms asks upstream for the model's labels: the
 * ball-detector's detections read "ball"; a labels file still wins. */
static void
check_ball_labels (const gchar * nms, const gchar * label)
{
  gchar *launch = g_strdup_printf ("axletterbox ! axinference "
      "model=ball-detector ! %s", nms);
  GstHarness *h = gst_harness_new_parse (launch);
  guint i;

  g_free (launch);
  gst_harness_add_src_parse (h, "videotestsrc pattern=ball ! capsfilter "
      "caps=video/x-raw,format=RGB,width=1280,height=720,framerate=30/1",
      FALSE);
  for (i = 0; i < 5; i++) {
    GstBuffer *out;
    GstAxDetection det;
    GstVideoRegionOfInterestMeta *roi;
    gpointer state = NULL;

    fail_unless_equals_int (gst_harness_push_from_src (h), GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless_equals_int (gst_ax_detection_count (out), 1);
    fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
    fail_unless_equals_string (det.label, label);
    fail_unless_equals_int (det.label_id, 0);
    /* a continuous score, not the 0 / 0.5 / 1 of a shared int8 scale */
    fail_unless (det.confidence > 0.5f && det.confidence < 1.0f,
        "confidence %f", det.confidence);
    /* the ball is about 37 px across at any frame size */
    fail_unless (roi->w > 25 && roi->w < 50, "width %u", roi->w);
    fail_unless (roi->h > 25 && roi->h < 50, "height %u", roi->h);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);
}

GST_START_TEST (test_element_model_labels)
{
  gchar *labels_path, *nms;
  gint fd;

  check_ball_labels ("axnms", "ball");

  fd = g_file_open_tmp ("axnms-labels-XXXXXX", &labels_path, NULL);
  fail_unless (fd >= 0);
  close (fd);
  fail_unless (g_file_set_contents (labels_path, "sphere\n", -1, NULL));
  nms = g_strdup_printf ("axnms labels=\"%s\"", labels_path);
  check_ball_labels (nms, "sphere");
  g_free (nms);
  g_unlink (labels_path);
  g_free (labels_path);
}

GST_END_TEST;

/* --- the element configured by the model's metadata --- */

typedef struct
{
  const gchar *decoder;
  const gchar *const *labels;
  guint n_labels;
  guint answered;
} FakeModel;

/* Answers the model query that axnms sends upstream, as axinference
 * would. */
static GstPadProbeReturn
answer_model_query (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  FakeModel *fm = user_data;
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  if (!gst_ax_model_query_is (q))
    return GST_PAD_PROBE_OK;
  if (fm->labels)
    gst_ax_model_query_set_labels (q, fm->labels, fm->n_labels);
  if (fm->decoder)
    gst_ax_model_query_set_decoder (q, fm->decoder);
  fm->answered++;
  return GST_PAD_PROBE_HANDLED;
}

static GstHarness *
harness_with_model (const gchar * name, FakeModel * fm, gint width, gint height)
{
  GstHarness *h = gst_harness_new (name);
  GstPad *sink = gst_element_get_static_pad (h->element, "sink");
  gchar *caps;

  gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
      answer_model_query, fm, NULL);
  gst_object_unref (sink);
  caps = g_strdup_printf ("video/x-raw,format=RGB,width=%d,height=%d,"
      "framerate=30/1", width, height);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  return h;
}

/* The frame's input tensor (data unused) with geometry @lb. */
static void
add_input_tensor (GstBuffer * buf, const GstAxLetterboxGeometry * lb)
{
  gint64 dims[4] = { 1, lb->tensor_height, lb->tensor_width, 3 };
  GstAxTensorMeta *m = gst_buffer_add_ax_tensor_meta (buf, "image",
      GST_AX_TENSOR_ROLE_INPUT, GST_AX_TENSOR_DTYPE_I8,
      GST_AX_TENSOR_LAYOUT_NHWC, 4, dims, 1.0f, 0,
      gst_buffer_new_allocate (NULL, (gsize) lb->tensor_width *
          lb->tensor_height * 3, NULL));

  m->letterbox = *lb;
  m->has_letterbox = TRUE;
}

#define CN_FRAME_W 1024
#define CN_FRAME_H 768
#define CN_GRID 128
#define CN_CLASSES 3
#define CN_HEAT_SCALE (1.0f / 256)
#define CN_HEAT_ZP (-128)

static const gchar *const cn_labels[] = { "cat", "dog", "person" };

static const gchar cn_decoder[] = "{\"type\": \"centernet\", "
    "\"input_size\": [512, 512], \"heatmap\": \"hm\", \"boxes\": \"wh\", "
    "\"stride\": 4, \"top_k\": 100, \"score_threshold\": 0.3, "
    "\"iou_threshold\": 0.5}";

/* A frame with a CenterNet head: a person peak (0.75) at cell (40, 60),
 * a dog (0.5) at (100, 20), a cat at 0.28 (under the metadata's 0.3, over
 * the property default 0.25) at (10, 10). */
static GstBuffer *
centernet_frame (GstHarness * h, GstAxLetterboxGeometry * lb)
{
  GstBuffer *buf = gst_harness_create_buffer (h, 16);
  static const gint64 hd[4] = { 1, CN_GRID, CN_GRID, CN_CLASSES };
  static const gint64 wd[4] = { 1, CN_GRID, CN_GRID, 4 };
  gsize nh = (gsize) CN_GRID * CN_GRID * CN_CLASSES;
  gint8 *heat = g_new (gint8, nh);
  gint8 *wh = g_new0 (gint8, (gsize) CN_GRID * CN_GRID * 4);
  guint j;

  memset (heat, CN_HEAT_ZP, nh);
  heat[(60 * CN_GRID + 40) * CN_CLASSES + 2] = CN_HEAT_ZP + 192;
  heat[(20 * CN_GRID + 100) * CN_CLASSES + 1] = CN_HEAT_ZP + 128;
  heat[(10 * CN_GRID + 10) * CN_CLASSES + 0] = CN_HEAT_ZP + 72;
  for (j = 0; j < 4; j++) {
    wh[(60 * CN_GRID + 40) * 4 + j] = 10 + j * 5;
    wh[(20 * CN_GRID + 100) * 4 + j] = 30;
    wh[(10 * CN_GRID + 10) * 4 + j] = 8;
  }
  add_output (buf, "hm", 0, GST_AX_TENSOR_DTYPE_I8, 4, hd, CN_HEAT_SCALE,
      CN_HEAT_ZP, heat);
  add_output (buf, "wh", 1, GST_AX_TENSOR_DTYPE_I8, 4, wd, 2.0f, 0, wh);
  gst_ax_letterbox_geometry_init_stretch (lb, CN_FRAME_W, CN_FRAME_H, 512, 512);
  add_input_tensor (buf, lb);
  g_free (heat);
  g_free (wh);
  return buf;
}

static void
check_det (const GstAxDetection * det, const GstAxLetterboxGeometry * lb,
    gdouble x0, gdouble y0, gdouble x1, gdouble y1, gint fw, gint fh)
{
  gdouble tb[4] = { x0, y0, x1, y1 }, sb[4];

  gst_ax_letterbox_geometry_box_to_source (lb, tb, sb, fw, fh);
  fail_unless (fabs (det->x_min - sb[0] / fw) < 1e-6, "%f vs %f",
      det->x_min, sb[0] / fw);
  fail_unless (fabs (det->y_min - sb[1] / fh) < 1e-6);
  fail_unless (fabs (det->x_max - sb[2] / fw) < 1e-6);
  fail_unless (fabs (det->y_max - sb[3] / fh) < 1e-6);
}

GST_START_TEST (test_element_centernet_from_metadata)
{
  FakeModel fm = { cn_decoder, cn_labels, 3, 0 };
  GstHarness *h = harness_with_model ("axnms", &fm, CN_FRAME_W, CN_FRAME_H);
  GstAxLetterboxGeometry lb;
  GstBuffer *out;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;

  fail_unless (fm.answered >= 1);
  out = gst_harness_push_and_pull (h, centernet_frame (h, &lb));
  /* the metadata's threshold (0.3), not the property's default */
  fail_unless_equals_int (gst_ax_detection_count (out), 2);
  fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
  fail_unless_equals_string (det.label, "person");
  fail_unless_equals_float (det.confidence, 0.75f);
  /* stretch 1024x768 -> 512x512: x / 0.5, y / (2/3) */
  check_det (&det, &lb, 160 - 20, 240 - 30, 160 + 40, 240 + 50, CN_FRAME_W,
      CN_FRAME_H);
  fail_unless_equals_int (roi->x, 280);
  fail_unless_equals_int (roi->y, 315);
  fail_unless_equals_int (roi->w, 120);
  fail_unless_equals_int (roi->h, 120);
  fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
  fail_unless_equals_string (det.label, "dog");
  fail_unless_equals_float (det.confidence, 0.5f);
  check_det (&det, &lb, 400 - 60, 80 - 60, 400 + 60, 80 + 60, CN_FRAME_W,
      CN_FRAME_H);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  gst_buffer_unref (out);

  /* a property the user sets overrides the metadata */
  g_object_set (h->element, "score-threshold", 0.25f, NULL);
  out = gst_harness_push_and_pull (h, centernet_frame (h, &lb));
  fail_unless_equals_int (gst_ax_detection_count (out), 3);
  gst_buffer_unref (out);
  g_object_set (h->element, "score-threshold", 0.6f, "top-k", 1, NULL);
  out = gst_harness_push_and_pull (h, centernet_frame (h, &lb));
  fail_unless_equals_int (gst_ax_detection_count (out), 1);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static gchar *
pop_error (GstHarness * h, GstBus * bus)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL, *text;

  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, &dbg);
  text = g_strdup_printf ("%s | %s", err->message, dbg);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (msg);
  /* the next case starts with an empty bus */
  gst_bus_set_flushing (bus, TRUE);
  gst_bus_set_flushing (bus, FALSE);
  return text;
}

GST_START_TEST (test_element_metadata_errors)
{
  static const gchar missing[] = "{\"type\": \"centernet\", \"heatmap\": "
      "\"tower_0/keypoints\", \"boxes\": \"wh\", \"stride\": 4}";
  FakeModel fm = { missing, NULL, 0, 0 };
  GstHarness *h;
  GstBus *bus = gst_bus_new ();
  GstAxLetterboxGeometry lb;
  gchar *text;

  /* an output the model does not have */
  h = harness_with_model ("axnms", &fm, CN_FRAME_W, CN_FRAME_H);
  gst_element_set_bus (h->element, bus);
  fail_unless_equals_int (gst_harness_push (h, centernet_frame (h, &lb)),
      GST_FLOW_ERROR);
  text = pop_error (h, bus);
  fail_unless (strstr (text, "no output 'tower_0/keypoints'") != NULL
      && strstr (text, "'hm', 'wh'") != NULL
      && strstr (text, "decode=centernet") != NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* a decoder axnms does not have: refused at caps */
  fm.decoder = "{\"type\": \"classification\", \"scores\": \"Identity\"}";
  h = gst_harness_new ("axnms");
  {
    GstPad *sink = gst_element_get_static_pad (h->element, "sink");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
        answer_model_query, &fm, NULL);
    gst_object_unref (sink);
  }
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=64,"
      "height=64,framerate=30/1");
  text = pop_error (h, bus);
  fail_unless (strstr (text, "\"classification\" is not a detector") !=
      NULL && strstr (text, "set decode") != NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);

  /* ... unless decode is set: the metadata is then ignored */
  h = gst_harness_new ("axnms");
  g_object_set (h->element, "decode", GST_AX_NMS_DECODE_CENTERNET, NULL);
  {
    GstPad *sink = gst_element_get_static_pad (h->element, "sink");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
        answer_model_query, &fm, NULL);
    gst_object_unref (sink);
  }
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=1024,"
      "height=768,framerate=30/1");
  {
    GstBuffer *out = gst_harness_push_and_pull (h, centernet_frame (h, &lb));
    /* outputs in order, stride from the tensor size, threshold 0.25 */
    fail_unless_equals_int (gst_ax_detection_count (out), 3);
    gst_buffer_unref (out);
  }
  gst_harness_teardown (h);

  /* metadata of one kind and decode set to another: a YOLO head is not a
   * heat-map */
  fm.decoder = cn_decoder;
  h = gst_harness_new ("axnms");
  g_object_set (h->element, "decode", GST_AX_NMS_DECODE_YOLOV8, NULL);
  {
    GstPad *sink = gst_element_get_static_pad (h->element, "sink");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
        answer_model_query, &fm, NULL);
    gst_object_unref (sink);
  }
  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGB,width=1024,"
      "height=768,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, centernet_frame (h, &lb)),
      GST_FLOW_ERROR);
  text = pop_error (h, bus);
  fail_unless (strstr (text, "tensor 'hm' has shape [1, 128, 128, 3]; "
          "expected [1, 4 + classes, anchors]") != NULL, "%s", text);
  g_free (text);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

/* BlazeFace-shaped SSD through the element: a face on two overlapping
 * anchors of level 0, merged by weighted NMS, boxes and landmarks mapped
 * back through the letterbox. */
#define SSD_FRAME_W 640
#define SSD_FRAME_H 480

GST_START_TEST (test_element_ssd_landmarks)
{
  gchar *decoder = read_model_json ("blazeface.decoder.json");
  static const gchar *const labels[] = { "face" };
  FakeModel fm = { decoder, labels, 1, 0 };
  GstHarness *h = harness_with_model ("axnms", &fm, SSD_FRAME_W,
      SSD_FRAME_H);
  static const gint64 s0[3] = { 1, 512, 1 }, s1[3] = { 1, 384, 1 };
  static const gint64 r0[3] = { 1, 512, 16 }, r1[3] = { 1, 384, 16 };
  gint8 sc0[512], sc1[384], rg0[512 * 16], rg1[384 * 16];
  GstBuffer *buf = gst_harness_create_buffer (h, 16), *out;
  GstAxLetterboxGeometry lb;
  GstAxNmsParams p;
  RefData sd[2], bd[2];
  guint na[2] = { 512, 384 }, ncl[2] = { 1, 1 }, nv[2] = { 16, 16 };
  RefDet ref[4];
  guint nr, j, q;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  gfloat pts[2 * 8];

  memset (sc0, -100, sizeof sc0);
  memset (sc1, -100, sizeof sc1);
  memset (rg0, 0, sizeof rg0);
  memset (rg1, 0, sizeof rg1);
  /* anchors 2 * (5 * 16 + 6) and the one after: cell (6, 5), centre
   * (104, 88); logits 3 and 2 (scale 1) */
  for (j = 0; j < 2; j++) {
    guint a = 2 * (5 * 16 + 6) + j;
    sc0[a] = 3 - j;
    rg0[a * 16 + 0] = 2 + j;    /* centre x offset, scale 1 */
    rg0[a * 16 + 1] = -3;
    rg0[a * 16 + 2] = 40 + 4 * j;
    rg0[a * 16 + 3] = 44;
    for (q = 0; q < 6; q++) {
      rg0[a * 16 + 4 + 2 * q] = -10 + 4 * q + j;
      rg0[a * 16 + 5 + 2 * q] = 5 - q;
    }
  }
  add_output (buf, "Identity", 0, GST_AX_TENSOR_DTYPE_I8, 3, s0, 1.0f, 0, sc0);
  add_output (buf, "Identity_1", 1, GST_AX_TENSOR_DTYPE_I8, 3, s1, 1.0f, 0,
      sc1);
  add_output (buf, "Identity_2", 2, GST_AX_TENSOR_DTYPE_I8, 3, r0, 1.0f, 0,
      rg0);
  add_output (buf, "Identity_3", 3, GST_AX_TENSOR_DTYPE_I8, 3, r1, 1.0f, 0,
      rg1);
  gst_ax_letterbox_geometry_init (&lb, SSD_FRAME_W, SSD_FRAME_H, 256, 256, TRUE,
      TRUE, 0);
  add_input_tensor (buf, &lb);
  out = gst_harness_push_and_pull (h, buf);

  /* what the reference makes of it */
  gst_ax_nms_params_init (&p);
  fail_unless (gst_ax_nms_params_from_json (&p, decoder, NULL));
  sd[0] = (RefData) {
  GST_AX_TENSOR_DTYPE_I8, sc0, 1.0f, 0};
  sd[1] = (RefData) {
  GST_AX_TENSOR_DTYPE_I8, sc1, 1.0f, 0};
  bd[0] = (RefData) {
  GST_AX_TENSOR_DTYPE_I8, rg0, 1.0f, 0};
  bd[1] = (RefData) {
  GST_AX_TENSOR_DTYPE_I8, rg1, 1.0f, 0};
  nr = ref_ssd (&p, sd, na, ncl, bd, nv, 2, ref);
  fail_unless_equals_int (nr, 1);
  /* merged: not the best anchor's own box */
  fail_unless (ref[0].x0 != 104 + 2 - 20.0f);

  fail_unless_equals_int (gst_ax_detection_count (out), 1);
  fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
  fail_unless_equals_string (det.label, "face");
  fail_unless_equals_float (det.confidence, 1.0f / (1.0f + expf (-3.0f)));
  check_det (&det, &lb, ref[0].x0, ref[0].y0, ref[0].x1, ref[0].y1,
      SSD_FRAME_W, SSD_FRAME_H);
  fail_unless_equals_int (gst_ax_detection_get_landmarks (roi, pts, 8), 6);
  for (q = 0; q < 6; q++) {
    gdouble sx, sy;
    gst_ax_letterbox_geometry_to_source (&lb, ref[0].kp[2 * q],
        ref[0].kp[2 * q + 1], &sx, &sy);
    fail_unless (fabs (pts[2 * q] - sx / SSD_FRAME_W) < 1e-6);
    fail_unless (fabs (pts[2 * q + 1] - sy / SSD_FRAME_H) < 1e-6);
  }
  gst_buffer_unref (out);

  /* suppression=hard: the best anchor's own box and landmarks */
  g_object_set (h->element, "suppression", GST_AX_NMS_SUPPRESS_HARD, NULL);
  buf = gst_harness_create_buffer (h, 16);
  add_output (buf, "Identity", 0, GST_AX_TENSOR_DTYPE_I8, 3, s0, 1.0f, 0, sc0);
  add_output (buf, "Identity_1", 1, GST_AX_TENSOR_DTYPE_I8, 3, s1, 1.0f, 0,
      sc1);
  add_output (buf, "Identity_2", 2, GST_AX_TENSOR_DTYPE_I8, 3, r0, 1.0f, 0,
      rg0);
  add_output (buf, "Identity_3", 3, GST_AX_TENSOR_DTYPE_I8, 3, r1, 1.0f, 0,
      rg1);
  add_input_tensor (buf, &lb);
  out = gst_harness_push_and_pull (h, buf);
  state = NULL;
  fail_unless_equals_int (gst_ax_detection_count (out), 1);
  fail_unless (gst_ax_detection_iterate (out, &state, &det, &roi));
  check_det (&det, &lb, 104 + 2 - 20, 88 - 3 - 22, 104 + 2 + 20, 88 - 3 + 22,
      SSD_FRAME_W, SSD_FRAME_H);
  fail_unless_equals_int (gst_ax_detection_get_landmarks (roi, pts, 8), 6);
  {
    gdouble sx, sy;
    gst_ax_letterbox_geometry_to_source (&lb, 104 - 10, 88 + 5, &sx, &sy);
    fail_unless (fabs (pts[0] - sx / SSD_FRAME_W) < 1e-6);
    fail_unless (fabs (pts[1] - sy / SSD_FRAME_H) < 1e-6);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  g_free (decoder);
}

GST_END_TEST;

/* The real models configure axnms themselves: CenterNet-COCO on a
 * vtest.avi frame finds people, BlazeFace on a held-out photo finds faces
 * with six landmarks inside their boxes. Skips without the data. */
static GstBuffer *
real_pipeline_frame (const gchar * model, const gchar * media, guint index)
{
  const gchar *data = g_getenv ("GST_AX_DATA_DIR");
  gchar *path, *launch;
  GstSample *sample;
  GstHarness *h;
  GstBuffer *frame, *out;

  if (data == NULL) {
    GST_INFO ("GST_AX_DATA_DIR is not set: skipping %s", model);
    return NULL;
  }
  path = g_build_filename (data, media, NULL);
  sample = real_load_rgb_frame (path, index);
  g_free (path);
  fail_unless (sample != NULL, "cannot decode %s", media);
  launch = g_strdup_printf ("axinference model=%s ! axnms", model);
  h = gst_harness_new_parse (launch);
  g_free (launch);
  frame = real_model_input (h, sample);
  fail_unless (frame != NULL);
  out = gst_harness_push_and_pull (h, frame);
  gst_harness_teardown (h);
  gst_sample_unref (sample);
  return out;
}

GST_START_TEST (test_real_models_configure_axnms)
{
  GstBuffer *out;
  GstAxDetection det;
  GstVideoRegionOfInterestMeta *roi;
  gpointer state = NULL;
  guint people = 0, faces = 0;
  gfloat pts[2 * 8];

  out = real_pipeline_frame ("centernet-coco", "opencv/vtest.avi", 10);
  if (out == NULL)
    return;
  while (gst_ax_detection_iterate (out, &state, &det, &roi))
    if (g_strcmp0 (det.label, "person") == 0 && det.confidence > 0.3f)
      people++;
  fail_unless (people >= 1, "no person on the vtest.avi frame");
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  gst_buffer_unref (out);

  out = real_pipeline_frame ("blazeface", "face-api/sample5.jpg", 0);
  state = NULL;
  while (gst_ax_detection_iterate (out, &state, &det, &roi)) {
    guint q;

    fail_unless_equals_string (det.label, "face");
    fail_unless_equals_int (gst_ax_detection_get_landmarks (roi, pts, 8), 6);
    /* eyes, nose, mouth and ears lie in or near the face box */
    for (q = 0; q < 6; q++) {
      gfloat margin = 0.5f * (det.x_max - det.x_min);
      fail_unless (pts[2 * q] > det.x_min - margin
          && pts[2 * q] < det.x_max + margin);
      fail_unless (pts[2 * q + 1] > det.y_min - margin
          && pts[2 * q + 1] < det.y_max + margin);
    }
    faces++;
  }
  fail_unless (faces >= 1, "no face on sample5.jpg");
  gst_buffer_unref (out);
}

GST_END_TEST;

static Suite *
axnms_suite (void)
{
  Suite *s = suite_create ("axnms");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_element_letterbox_and_labels);
  tcase_add_test (tc, test_element_model_labels);
  tcase_add_test (tc, test_element_keep_tensors_and_no_letterbox);
  tcase_add_test (tc, test_element_two_instances);
  tcase_add_test (tc, test_element_bad_shape_errors);
  tcase_add_test (tc, test_element_missing_labels_file);
  tcase_add_test (tc, test_element_centernet_from_metadata);
  tcase_add_test (tc, test_element_metadata_errors);
  tcase_add_test (tc, test_element_ssd_landmarks);
  tcase_add_test (tc, test_real_models_configure_axnms);
  return s;
}

GST_CHECK_MAIN (axnms);
