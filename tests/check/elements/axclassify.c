/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axclassify with GstHarness on hand-built classifier outputs: the
 * classes land on the region the tensor came from (or the frame), with
 * the labels, activation and output name of the model's metadata, which
 * a stand-in upstream answers as axinference would. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/ax/ax.h>
#include <math.h>

#define FRAME_CAPS "video/x-raw,format=RGB,width=64,height=48"
#define FRAME_W 64
#define FRAME_H 48
#define N_CLASSES 4
#define EXACT 1e-6
#define I8_SCALE (1.0f / 256)
#define I8_ZERO_POINT (-128)

static const gchar *fake_labels[N_CLASSES] = { "angry", "happy", "sad",
  "neutral"
};

static const gchar *fake_decoder;
static GstPadQueryFunction harness_query;

static gboolean
fake_model_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (gst_ax_model_query_is (query)) {
    gst_ax_model_query_set_labels (query, fake_labels, N_CLASSES);
    if (fake_decoder)
      gst_ax_model_query_set_decoder (query, fake_decoder);
    return TRUE;
  }
  return harness_query (pad, parent, query);
}

/* @model: whether a model answers upstream */
static GstHarness *
harness_new (const gchar * props, gboolean model, const gchar * decoder)
{
  gchar *launch = g_strdup_printf ("axclassify %s", props);
  GstHarness *h = gst_harness_new_parse (launch);

  g_free (launch);
  fake_decoder = decoder;
  if (model) {
    harness_query = GST_PAD_QUERYFUNC (h->srcpad);
    gst_pad_set_query_function (h->srcpad, fake_model_query);
  }
  gst_harness_set_src_caps_str (h, FRAME_CAPS);
  return h;
}

static GstAxTensorMeta *
add_f32 (GstBuffer * frame, const gchar * name, guint instance, guint index,
    gint roi_id, const gfloat * v, guint n)
{
  gint64 dims[2] = { 1, n };
  GstBuffer *data = gst_buffer_new_memdup (v, n * sizeof (gfloat));
  GstAxTensorMeta *m = gst_buffer_add_ax_tensor_meta (frame, name,
      GST_AX_TENSOR_ROLE_OUTPUT, GST_AX_TENSOR_DTYPE_F32,
      GST_AX_TENSOR_LAYOUT_NHWC, 2, dims, 1.0f, 0, data);

  fail_unless (m != NULL);
  m->instance = instance;
  m->index = index;
  m->roi_id = roi_id;
  return m;
}

static void
check_class (GstVideoRegionOfInterestMeta * roi, guint rank, guint label_id,
    const gchar * label, gdouble confidence)
{
  GstAxClassification c;

  fail_unless (gst_ax_detection_get_classification (roi, rank, &c),
      "region %d has no class at rank %u", roi->id, rank);
  fail_unless_equals_int (c.label_id, label_id);
  fail_unless_equals_string (c.label, label);
  fail_unless (fabs (c.confidence - confidence) < EXACT,
      "rank %u confidence %g, expected %g", rank, c.confidence, confidence);
}

/* Logits of two regions, softmax (the default without metadata), top-2;
 * a region without a tensor stays unclassified; tensors are removed. */
GST_START_TEST (test_softmax_per_region)
{
  static const gfloat a[N_CLASSES] = { 1.0f, 3.0f, 0.5f, 2.0f };
  static const gfloat b[N_CLASSES] = { -1.0f, 0.0f, 4.0f, 0.0f };
  GstHarness *h = harness_new ("top-k=2", FALSE, NULL);
  GstBuffer *frame = gst_buffer_new_allocate (NULL, FRAME_W * FRAME_H * 3,
      NULL);
  GstVideoRegionOfInterestMeta *r0, *r1, *r2;
  GstAxClassification c;
  gdouble za = 0, zb = 0;
  guint i;

  r0 = gst_buffer_add_video_region_of_interest_meta (frame, "face", 1, 2, 10,
      10);
  r0->id = 5;
  r1 = gst_buffer_add_video_region_of_interest_meta (frame, "face", 20, 2,
      10, 10);
  r1->id = 9;
  r2 = gst_buffer_add_video_region_of_interest_meta (frame, "face", 40, 2,
      10, 10);
  r2->id = 11;
  /* region 9's tensor is instance 0, region 5's instance 1 */
  add_f32 (frame, "scores", 0, 0, 9, b, N_CLASSES);
  add_f32 (frame, "scores", 1, 0, 5, a, N_CLASSES);
  for (i = 0; i < N_CLASSES; i++) {
    za += exp (a[i]);
    zb += exp (b[i]);
  }

  frame = gst_harness_push_and_pull (h, frame);
  r0 = gst_buffer_get_video_region_of_interest_meta_id (frame, 5);
  r1 = gst_buffer_get_video_region_of_interest_meta_id (frame, 9);
  r2 = gst_buffer_get_video_region_of_interest_meta_id (frame, 11);
  fail_unless (r0 && r1 && r2);
  check_class (r0, 0, 1, "class1", exp (3.0) / za);
  check_class (r0, 1, 3, "class3", exp (2.0) / za);
  fail_if (gst_ax_detection_get_classification (r0, 2, &c));
  check_class (r1, 0, 2, "class2", exp (4.0) / zb);
  /* ties go to the lower class */
  check_class (r1, 1, 1, "class1", exp (0.0) / zb);
  fail_if (gst_ax_detection_get_classification (r2, 0, &c));
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (frame,
          GST_AX_TENSOR_ROLE_OUTPUT), 0);
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* An int8 whole-frame tensor of probabilities (the metadata says none),
 * found by the metadata's output name among two outputs: a frame-level
 * classification, labelled from the model. */
GST_START_TEST (test_int8_frame_level)
{
  static const gint8 q[N_CLASSES] = { -128, 0, 64, -64 };
  static const gfloat other[N_CLASSES] = { 9, 9, 9, 9 };
  GstHarness *h = harness_new ("keep-tensors=true", TRUE,
      "{\"type\": \"classification\", \"scores\": \"probs\", "
      "\"score_activation\": \"none\"}");
  GstBuffer *frame = gst_buffer_new_allocate (NULL, FRAME_W * FRAME_H * 3,
      NULL);
  gint64 dims[2] = { 1, N_CLASSES };
  GstAxTensorMeta *m;
  GstVideoRegionOfInterestMeta *roi;
  GstAxClassification c;

  add_f32 (frame, "embedding", 0, 0, GST_AX_TENSOR_ROI_NONE, other, N_CLASSES);
  m = gst_buffer_add_ax_tensor_meta (frame, "probs",
      GST_AX_TENSOR_ROLE_OUTPUT, GST_AX_TENSOR_DTYPE_I8,
      GST_AX_TENSOR_LAYOUT_NHWC, 2, dims, I8_SCALE, I8_ZERO_POINT,
      gst_buffer_new_memdup (q, sizeof (q)));
  m->index = 1;

  frame = gst_harness_push_and_pull (h, frame);
  roi = gst_ax_detection_get_frame_roi (frame, FALSE, 0, 0);
  fail_unless (roi != NULL, "no frame-level classification");
  fail_unless_equals_string (g_quark_to_string (roi->roi_type),
      GST_AX_FRAME_ROI_TYPE);
  fail_unless_equals_int (roi->w, FRAME_W);
  fail_unless_equals_int (roi->h, FRAME_H);
  /* (64 + 128) / 256 */
  check_class (roi, 0, 2, "sad", 0.75);
  fail_if (gst_ax_detection_get_classification (roi, 1, &c));
  /* not a detection: counted by nobody drawing boxes */
  fail_unless_equals_int (gst_ax_detection_count (frame), 0);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (frame,
          GST_AX_TENSOR_ROLE_OUTPUT), 2);
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* sigmoid from the property, over metadata saying none */
GST_START_TEST (test_sigmoid_property)
{
  static const gfloat v[N_CLASSES] = { 0.0f, -2.0f, 1.0f, 0.5f };
  GstHarness *h = harness_new ("activation=sigmoid top-k=10", TRUE,
      "{\"type\": \"classification\", \"score_activation\": \"none\"}");
  GstBuffer *frame = gst_buffer_new_allocate (NULL, FRAME_W * FRAME_H * 3,
      NULL);
  GstVideoRegionOfInterestMeta *roi;
  GstAxClassification c;

  roi = gst_buffer_add_video_region_of_interest_meta (frame, "face", 0, 0, 4,
      4);
  roi->id = 0;
  add_f32 (frame, "Identity", 0, 0, 0, v, N_CLASSES);
  frame = gst_harness_push_and_pull (h, frame);
  roi = gst_buffer_get_video_region_of_interest_meta_id (frame, 0);
  check_class (roi, 0, 2, "sad", 1.0 / (1.0 + exp (-1.0)));
  check_class (roi, 1, 3, "neutral", 1.0 / (1.0 + exp (-0.5)));
  check_class (roi, 2, 0, "angry", 0.5);
  check_class (roi, 3, 1, "happy", 1.0 / (1.0 + exp (2.0)));
  /* top-k is bounded by the classes */
  fail_if (gst_ax_detection_get_classification (roi, 4, &c));
  gst_buffer_unref (frame);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axclassify_suite (void)
{
  Suite *s = suite_create ("axclassify");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_softmax_per_region);
  tcase_add_test (tc, test_int8_frame_level);
  tcase_add_test (tc, test_sigmoid_property);
  return s;
}

GST_CHECK_MAIN (axclassify);
