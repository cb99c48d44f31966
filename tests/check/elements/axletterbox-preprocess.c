/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axletterbox driven by the model downstream: its input query (size,
 * type, layout), its stored preprocessing (resize, colour order, fill,
 * scale, mean and std, gray), overrides by properties, renegotiation of
 * caps and of the model. The formats and geometry on their own:
 * axletterbox-formats.c. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/ax/ax.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "axletterboxreference.h"

/* A stand-in for axinference downstream: answers the model input query
 * and leaves everything else to the harness. */
static GstAxModelInput fake_model;
static GstAxModelPreprocess fake_preprocess;
static gboolean fake_has_preprocess;
static GstPadQueryFunction harness_query;
static const gchar *fake_decoder;

static gboolean
fake_model_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (gst_ax_model_query_is (query)) {
    gst_ax_model_query_set_input (query, &fake_model);
    if (fake_has_preprocess)
      gst_ax_model_query_set_preprocess (query, &fake_preprocess);
    if (fake_decoder)
      gst_ax_model_query_set_decoder (query, fake_decoder);
    return TRUE;
  }
  return harness_query (pad, parent, query);
}

static GstHarness *
make_model_harness (const GstAxModelInput * model)
{
  GstHarness *h = gst_harness_new ("axletterbox");

  fake_model = *model;
  fake_has_preprocess = FALSE;
  fake_decoder = NULL;
  harness_query = GST_PAD_QUERYFUNC (h->sinkpad);
  gst_pad_set_query_function (h->sinkpad, fake_model_query);
  return h;
}

/* a model that stores its preprocessing */
static GstHarness *
make_preprocess_harness (const GstAxModelInput * model,
    const GstAxModelPreprocess * pp)
{
  GstHarness *h = make_model_harness (model);

  fake_preprocess = *pp;
  fake_has_preprocess = TRUE;
  return h;
}

/* Sends @caps_str (a renegotiation after the first), then pushes
 * @n_frames random frames and checks each tensor's geometry (a centred,
 * scaled-up letterbox or a stretch) and values against the float
 * reference, and that the frame passes untouched. */
static void
push_check (GstHarness * h, const gchar * caps_str, const YuvSpec * yuv,
    const TensorSpec * t, GRand * rand, guint n_frames)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;
  const FormatLayout *f;
  guint i;

  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  f = find_format (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)));
  gst_harness_set_src_caps (h, caps);
  for (i = 0; i < n_frames; i++) {
    const gint w = GST_VIDEO_INFO_WIDTH (&info);
    const gint hgt = GST_VIDEO_INFO_HEIGHT (&info);
    GstBuffer *in = make_random_frame (&info, rand), *out;
    GstAxTensorMeta *meta;
    GstAxLetterboxGeometry expect;
    GstMapInfo map;
    guint8 *before;

    gst_buffer_map (in, &map, GST_MAP_READ);
    before = g_memdup2 (map.data, map.size);
    gst_buffer_unmap (in, &map);
    out = gst_harness_push_and_pull (h, in);
    fail_unless (out != NULL);
    fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
            GST_AX_TENSOR_ROLE_INPUT), 1);
    meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, 0, 0);
    fail_unless (meta != NULL && meta->has_letterbox);
    fail_unless_equals_int (meta->dtype, t->dtype);
    fail_unless_equals_int (meta->layout, t->layout);
    fail_unless_equals_int (meta->dims[meta->layout ==
            GST_AX_TENSOR_LAYOUT_NHWC ? 3 : 1], t->gray ? 1 : N_CHANNELS);
    fail_unless_equals_uint64 (gst_buffer_get_size (meta->data),
        (gsize) t->tw * t->th * (t->gray ? 1 : N_CHANNELS) *
        (t->dtype == GST_AX_TENSOR_DTYPE_F32 ? sizeof (gfloat) : 1));
    if (t->stretch)
      fail_unless (gst_ax_letterbox_geometry_init_stretch (&expect, w, hgt,
              t->tw, t->th));
    else
      fail_unless (gst_ax_letterbox_geometry_init (&expect, w, hgt, t->tw,
              t->th, TRUE, TRUE, t->fill));
    fail_unless_equals_int (meta->letterbox.stretch, expect.stretch);
    fail_unless_equals_int (meta->letterbox.src_width, w);
    fail_unless_equals_int (meta->letterbox.src_height, hgt);
    fail_unless_equals_int (meta->letterbox.tensor_width, t->tw);
    fail_unless_equals_int (meta->letterbox.tensor_height, t->th);
    fail_unless_equals_int (meta->letterbox.resized_width,
        expect.resized_width);
    fail_unless_equals_int (meta->letterbox.resized_height,
        expect.resized_height);
    fail_unless_equals_int (meta->letterbox.pad_x, expect.pad_x);
    fail_unless_equals_int (meta->letterbox.pad_y, expect.pad_y);
    fail_unless_equals_float (meta->letterbox.scale_x, expect.scale_x);
    fail_unless_equals_float (meta->letterbox.scale_y, expect.scale_y);
    GST_INFO ("%s -> %dx%d%s", caps_str, t->tw, t->th,
        t->stretch ? " stretch" : "");
    check_tensor (meta, before, &info, f, yuv, t);

    gst_buffer_map (out, &map, GST_MAP_READ);
    fail_unless (memcmp (map.data, before, map.size) == 0);
    gst_buffer_unmap (out, &map);
    gst_buffer_unref (out);
    g_free (before);
  }
}

GST_START_TEST (test_model_query)
{
  GstAxModelInput model = { 48, 40, 3, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NCHW, 1.0f / 128.0f, -3, "images", "fake-model"
  };
  TensorSpec t = { 48, 40, TRUE, 0, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NCHW, 1.0 / 128.0, -3, DEFAULT_FILL
  };
  GstHarness *h = make_model_harness (&model);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstAxTensorMeta *meta;
  GstMapInfo map;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 61, 35);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = make_random_frame (&info, rand);
  gst_buffer_map (in, &map, GST_MAP_READ);
  {
    guint8 *before = g_memdup2 (map.data, map.size);

    gst_buffer_unmap (in, &map);
    out = gst_harness_push_and_pull (h, in);
    meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, 0, 0);
    fail_unless (meta != NULL);
    fail_unless_equals_string (meta->name, "images");
    fail_unless_equals_int (meta->layout, GST_AX_TENSOR_LAYOUT_NCHW);
    fail_unless_equals_int (meta->dtype, GST_AX_TENSOR_DTYPE_I8);
    fail_unless_equals_int (meta->dims[0], 1);
    fail_unless_equals_int (meta->dims[1], 3);
    fail_unless_equals_int (meta->dims[2], 40);
    fail_unless_equals_int (meta->dims[3], 48);
    fail_unless_equals_float (meta->scale, 1.0f / 128.0f);
    fail_unless_equals_int (meta->zero_point, -3);
    /* the colorimetry of NV12 caps made by video-info defaults is bt601 */
    check_tensor (meta, before, &info, find_format ("NV12"), &bt601_limited,
        &t);
    g_free (before);
  }
  gst_buffer_unref (out);

  /* explicit properties win over the model's spec */
  g_object_set (h->element, "width", 20, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "dtype", "u8");
  out = gst_harness_push_and_pull (h, make_random_frame (&info, rand));
  meta = gst_buffer_get_ax_tensor_meta_by_role (out,
      GST_AX_TENSOR_ROLE_INPUT, 0, 0);
  fail_unless_equals_int (meta->dims[3], 20);
  fail_unless_equals_int (meta->dims[2], 40);
  fail_unless_equals_int (meta->dtype, GST_AX_TENSOR_DTYPE_U8);
  fail_unless_equals_float (meta->scale, 1.0f / 255.0f);
  fail_unless_equals_int (meta->zero_point, 0);
  gst_buffer_unref (out);

  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_model_query_f32_nchw)
{
  GstAxModelInput model = { 37, 29, 3, GST_AX_TENSOR_DTYPE_F32,
    GST_AX_TENSOR_LAYOUT_NCHW, 0.5f, 1, "pixels", "float-model"
  };
  TensorSpec t = { 37, 29, TRUE, 2, GST_AX_TENSOR_DTYPE_F32,
    GST_AX_TENSOR_LAYOUT_NCHW, 0.5, 1, 7
  };
  GstHarness *h = make_model_harness (&model);
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstAxTensorMeta *meta;
  GstMapInfo map;
  guint8 *before;

  g_object_set (h->element, "fill", 7, "channel-order", 1, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGRx, 50, 61);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = make_random_frame (&info, rand);
  gst_buffer_map (in, &map, GST_MAP_READ);
  before = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (in, &map);
  out = gst_harness_push_and_pull (h, in);
  meta = gst_buffer_get_ax_tensor_meta_by_role (out,
      GST_AX_TENSOR_ROLE_INPUT, 0, 0);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->dtype, GST_AX_TENSOR_DTYPE_F32);
  fail_unless_equals_int (meta->layout, GST_AX_TENSOR_LAYOUT_NCHW);
  fail_unless_equals_int (meta->dims[1], 3);
  fail_unless_equals_int (meta->dims[2], 29);
  fail_unless_equals_int (meta->dims[3], 37);
  check_tensor (meta, before, &info, find_format ("BGRx"), &bt601_limited, &t);
  gst_buffer_unref (out);
  g_free (before);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_model_wrong_channels)
{
  GstAxModelInput model = { 32, 32, 1, GST_AX_TENSOR_DTYPE_U8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255.0f, 0, "gray", "gray-model"
  };
  GstHarness *h = make_model_harness (&model);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=48,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 64 * 48 * 3, NULL)), GST_FLOW_ERROR);
  msg = pop_error (bus);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (strstr (err->message, "gray-model") != NULL &&
      strstr (err->message, "1 input channels") != NULL,
      "unexpected error: %s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The model's preprocessing, as axinference answers it. */
static void
init_preprocess (GstAxModelPreprocess * pp, GstAxColorOrder color,
    GstAxResizeMode resize, guint8 fill, gfloat scale, gfloat mean, gfloat std)
{
  guint c;

  gst_ax_model_preprocess_init_default (pp);
  pp->color = color;
  pp->resize = resize;
  pp->fill = fill;
  pp->scale = scale;
  for (c = 0; c < N_CHANNELS; c++) {
    pp->mean[c] = mean;
    pp->std[c] = std;
  }
}

/* the reference's copy of a model's preprocessing */
static void
spec_preprocess (TensorSpec * t, const GstAxModelPreprocess * pp)
{
  guint c;

  t->stretch = pp->resize == GST_AX_RESIZE_STRETCH;
  t->gray = pp->color == GST_AX_COLOR_ORDER_GRAY;
  t->red_pos = pp->color == GST_AX_COLOR_ORDER_BGR ? 2 : 0;
  t->fill = pp->fill;
  t->pscale = pp->scale;
  for (c = 0; c < N_CHANNELS; c++) {
    t->mean[c] = pp->mean[c];
    t->std[c] = pp->std[c];
  }
}

#define SD_I420 "video/x-raw,format=I420,width=767,height=575," \
  "framerate=25/1,colorimetry=bt601"

/* CenterNet's preprocessing: stretched, the pixel value itself (scale 1)
 * into an i8 input of scale 1 and zero point -128 (the top-bit flip of
 * the kernels' stores). */
GST_START_TEST (test_preprocess_stretch_scale_one)
{
  GstAxModelInput model = { 64, 48, 3, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f, -128, "input", "centernet-like"
  };
  TensorSpec t = { 64, 48, TRUE, 0, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0, -128, DEFAULT_FILL
  };
  GstAxModelPreprocess pp;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstHarness *h;

  init_preprocess (&pp, GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_STRETCH,
      DEFAULT_FILL, 1.0f, 0.0f, 1.0f);
  spec_preprocess (&t, &pp);
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=RGB,width=97,height=61,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  push_check (h, SD_I420, &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=NV12,width=33,height=100,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);

  /* the same through an affine quantisation that saturates */
  model.scale = 0.75f;
  model.zero_point = -20;
  t.scale = model.scale;
  t.zero_point = model.zero_point;
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=BGRx,width=64,height=48,"
      "framerate=30/1", &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* BlazeFace's: letterbox with fill 0, p / 127.5 - 1. */
GST_START_TEST (test_preprocess_letterbox_mean)
{
  GstAxModelInput model = { 40, 40, 3, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, (gfloat) (1.0 / 127.5), 0, "input",
    "blazeface-like"
  };
  TensorSpec t = { 40, 40, TRUE, 0, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, (gfloat) (1.0 / 127.5), 0, 0
  };
  GstAxModelPreprocess pp;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstHarness *h;

  init_preprocess (&pp, GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_LETTERBOX, 0,
      (gfloat) (1.0 / 127.5), 1.0f, 1.0f);
  spec_preprocess (&t, &pp);
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=NV12,width=61,height=35,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=RGB,width=35,height=61,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  push_check (h, SD_I420, &bt601_limited, &t, rand, 1);

  /* the fill property overrides the model's */
  g_object_set (h->element, "fill", 50, NULL);
  t.fill = 50;
  push_check (h, "video/x-raw,format=RGB,width=35,height=61,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* ImageNet's per-channel mean and std: a table per channel, in every
 * layout and type. */
GST_START_TEST (test_preprocess_per_channel)
{
  static const gfloat mean[N_CHANNELS] = { 0.485f, 0.456f, 0.406f };
  static const gfloat std[N_CHANNELS] = { 0.229f, 0.224f, 0.225f };
  static const struct
  {
    GstAxTensorDType dtype;
    GstAxTensorLayout layout;
    gfloat scale;
    gint zero_point;
  } quants[] = {
    {GST_AX_TENSOR_DTYPE_I8, GST_AX_TENSOR_LAYOUT_NCHW, 0.02f, 3},
    {GST_AX_TENSOR_DTYPE_I8, GST_AX_TENSOR_LAYOUT_NHWC, 0.02f, 3},
    {GST_AX_TENSOR_DTYPE_U8, GST_AX_TENSOR_LAYOUT_NHWC, 0.025f, 100},
    {GST_AX_TENSOR_DTYPE_F32, GST_AX_TENSOR_LAYOUT_NHWC, 1.0f, 0},
    {GST_AX_TENSOR_DTYPE_F32, GST_AX_TENSOR_LAYOUT_NCHW, 0.5f, 1},
  };
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  guint i, c;

  for (i = 0; i < G_N_ELEMENTS (quants); i++) {
    GstAxModelInput model = { 36, 30, 3, quants[i].dtype, quants[i].layout,
      quants[i].scale, quants[i].zero_point, "input", "imagenet-like"
    };
    TensorSpec t = { 36, 30, TRUE, 0, quants[i].dtype, quants[i].layout,
      quants[i].scale, quants[i].zero_point, 0
    };
    GstAxModelPreprocess pp;
    GstHarness *h;

    init_preprocess (&pp, GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_LETTERBOX,
        DEFAULT_FILL, 1.0f / 255.0f, 0.0f, 1.0f);
    for (c = 0; c < N_CHANNELS; c++) {
      pp.mean[c] = mean[c];
      pp.std[c] = std[c];
    }
    spec_preprocess (&t, &pp);
    h = make_preprocess_harness (&model, &pp);
    push_check (h, "video/x-raw,format=BGRx,width=50,height=61,"
        "framerate=30/1", &bt601_limited, &t, rand, 1);
    push_check (h, "video/x-raw,format=NV12,width=61,height=35,"
        "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
    gst_harness_teardown (h);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* A BGR model, then the property overriding its order; a stretch model
 * letterboxed by the property. */
GST_START_TEST (test_preprocess_overrides)
{
  GstAxModelInput model = { 29, 33, 3, GST_AX_TENSOR_DTYPE_U8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255.0f, 0, "input", "bgr-model"
  };
  TensorSpec t = { 29, 33, TRUE, 0, GST_AX_TENSOR_DTYPE_U8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255.0f, 0, 0
  };
  GstAxModelPreprocess pp;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstHarness *h;

  init_preprocess (&pp, GST_AX_COLOR_ORDER_BGR, GST_AX_RESIZE_STRETCH, 9,
      1.0f / 255.0f, 0.0f, 1.0f);
  spec_preprocess (&t, &pp);
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=I420,width=45,height=17,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);

  gst_util_set_object_arg (G_OBJECT (h->element), "channel-order", "rgb");
  t.red_pos = 0;
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);

  gst_util_set_object_arg (G_OBJECT (h->element), "resize", "letterbox");
  t.stretch = FALSE;
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);

  /* back to the model's */
  gst_util_set_object_arg (G_OBJECT (h->element), "resize", "auto");
  gst_util_set_object_arg (G_OBJECT (h->element), "channel-order", "auto");
  t.stretch = TRUE;
  t.red_pos = 2;
  push_check (h, "video/x-raw,format=NV12,width=45,height=17,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* The emotion model's: one gray channel, stretched, p / 255 scaled to
 * -1..1; and gray by the property without a model. */
GST_START_TEST (test_preprocess_gray)
{
  GstAxModelInput model = { 32, 24, 1, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, (gfloat) (1.0 / 127.5), 0, "input",
    "emotion-like"
  };
  TensorSpec t = { 32, 24, TRUE, 0, GST_AX_TENSOR_DTYPE_I8,
    GST_AX_TENSOR_LAYOUT_NHWC, (gfloat) (1.0 / 127.5), 0, 0
  };
  TensorSpec plain = u8_rgb_bilinear;
  GstAxModelPreprocess pp;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstHarness *h;

  init_preprocess (&pp, GST_AX_COLOR_ORDER_GRAY, GST_AX_RESIZE_STRETCH, 0,
      1.0f / 255.0f, 0.5f, 0.5f);
  spec_preprocess (&t, &pp);
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=I420,width=39,height=25,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  /* letterboxed, so that the pad is gray too */
  gst_util_set_object_arg (G_OBJECT (h->element), "resize", "letterbox");
  t.stretch = FALSE;
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);

  /* f32 NCHW */
  model.dtype = t.dtype = GST_AX_TENSOR_DTYPE_F32;
  model.layout = t.layout = GST_AX_TENSOR_LAYOUT_NCHW;
  model.scale = t.scale = 1.0f;
  t.stretch = TRUE;
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=NV12,width=39,height=25,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);

  /* no model: gray by the property, u8 pixel values */
  plain.gray = TRUE;
  h = make_harness (&plain, TRUE, TRUE);
  push_check (h, "video/x-raw,format=BGR,width=45,height=17,framerate=30/1",
      &bt601_limited, &plain, rand, 1);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* A flat frame of pixel value 200 and pads of 0 through the
 * preprocessings, with the values worked out by hand: the model's real
 * value is 200 (CenterNet), 200 / 127.5 - 1 (BlazeFace) or 200 / 255 (the
 * default), quantised by the input's scale and zero point; and a pixel
 * input (sim-npu's compiler folds BlazeFace's preprocessing into a u8
 * input of scale 1/127.5 and zero point 127, the lost half step into a
 * bias) holds the pixel values themselves. */
GST_START_TEST (test_preprocess_flat_values)
{
  static const struct
  {
    GstAxResizeMode resize;
    gfloat pscale, mean, qscale;
    GstAxTensorDType dtype;
    gint zero_point;
    gint want, pad;
  } cases[] = {
    {GST_AX_RESIZE_STRETCH, 1.0f, 0.0f, 1.0f, GST_AX_TENSOR_DTYPE_I8, -128,
        200 - 128, 0},
    /* (200 / 127.5 - 1) / (1 / 64) = 36.39; the pad -1 * 64 */
    {GST_AX_RESIZE_LETTERBOX, 1.0f / 127.5f, 1.0f, 1.0f / 64.0f,
        GST_AX_TENSOR_DTYPE_I8, 0, 36, -64},
    /* 200 / 255 / (1 / 100) + 5 = 83.43 */
    {GST_AX_RESIZE_LETTERBOX, 1.0f / 255.0f, 0.0f, 0.01f,
        GST_AX_TENSOR_DTYPE_I8, 5, 83, 5},
    /* the pixel input: (200 / 127.5 - 1) * 127.5 + 127 would be 199.5 */
    {GST_AX_RESIZE_LETTERBOX, 1.0f / 127.5f, 1.0f, 1.0f / 127.5f,
        GST_AX_TENSOR_DTYPE_U8, 127, 200, 0},
    /* not one: another scale, 36.39 + 100; the pad -64 + 100 */
    {GST_AX_RESIZE_LETTERBOX, 1.0f / 127.5f, 1.0f, 1.0f / 64.0f,
        GST_AX_TENSOR_DTYPE_U8, 100, 136, 36},
  };
  const gint fw = 48, fh = 32, tw = 16, th = 16;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstAxModelInput model = { tw, th, 3, cases[i].dtype,
      GST_AX_TENSOR_LAYOUT_NHWC, cases[i].qscale, cases[i].zero_point,
      "input", "flat"
    };
    const gboolean s8 = cases[i].dtype == GST_AX_TENSOR_DTYPE_I8;
    GstAxModelPreprocess pp;
    GstHarness *h;
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstAxTensorMeta *meta;
    GstMapInfo map;
    gint x, y, c;

    init_preprocess (&pp, GST_AX_COLOR_ORDER_RGB, cases[i].resize, 0,
        cases[i].pscale, cases[i].mean, 1.0f);
    h = make_preprocess_harness (&model, &pp);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, fw, fh);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    in = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_memset (in, 0, 200, info.size);
    out = gst_harness_push_and_pull (h, in);
    meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, 0, 0);
    fail_unless (meta != NULL);
    gst_buffer_map (meta->data, &map, GST_MAP_READ);
    for (y = 0; y < th; y++)
      for (x = 0; x < tw; x++)
        for (c = 0; c < N_CHANNELS; c++) {
          const gboolean inside = y >= meta->letterbox.pad_y &&
              y < meta->letterbox.pad_y + meta->letterbox.resized_height;
          const guint8 b = map.data[(y * tw + x) * N_CHANNELS + c];
          const gint got = s8 ? (gint8) b : b;

          if (got != (inside ? cases[i].want : cases[i].pad))
            fail ("case %u (%d,%d) c%d: %d, want %d", i, x, y, c, got,
                inside ? cases[i].want : cases[i].pad);
        }
    gst_buffer_unmap (meta->data, &map);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Caps renegotiated mid-stream, as decodebin and videoconvert do on real
 * files: other formats, odd sizes (odd chroma), framerates and
 * colorimetry; each frame's tensor must be made from its own caps' tables
 * and geometry. Then a property change resizes the tensor pool. */
GST_START_TEST (test_renegotiation)
{
  const YuvSpec bt709_limited = { BT709_KR, BT709_KB, FALSE };
  TensorSpec t = u8_rgb_bilinear;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstHarness *h;

  t.tw = 48;
  t.th = 40;
  h = make_harness (&t, TRUE, TRUE);
  push_check (h, "video/x-raw,format=RGB,width=64,height=48,framerate=30/1",
      &bt601_limited, &t, rand, 2);
  push_check (h, SD_I420, &bt601_limited, &t, rand, 2);
  /* only the framerate changes, then variable */
  push_check (h, "video/x-raw,format=I420,width=767,height=575,"
      "framerate=15/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=I420,width=767,height=575,"
      "framerate=0/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=NV12,width=1280,height=720,"
      "framerate=30/1,colorimetry=bt709", &bt709_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=NV12,width=767,height=575,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 1);
  push_check (h, "video/x-raw,format=BGRx,width=33,height=99,"
      "framerate=30/1", &bt601_limited, &t, rand, 1);

  /* a new tensor size: a new pool */
  g_object_set (h->element, "width", 24, NULL);
  t.tw = 24;
  push_check (h, "video/x-raw,format=YUY2,width=35,height=27,"
      "framerate=30/1,colorimetry=bt601", &bt601_limited, &t, rand, 2);
  gst_harness_teardown (h);

  /* a stretch model across caps */
  {
    GstAxModelInput model = { 40, 32, 3, GST_AX_TENSOR_DTYPE_I8,
      GST_AX_TENSOR_LAYOUT_NHWC, 1.0f, -128, "input", "stretch-model"
    };
    TensorSpec s = { 40, 32, TRUE, 0, GST_AX_TENSOR_DTYPE_I8,
      GST_AX_TENSOR_LAYOUT_NHWC, 1.0, -128, DEFAULT_FILL
    };
    GstAxModelPreprocess pp;

    init_preprocess (&pp, GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_STRETCH,
        DEFAULT_FILL, 1.0f, 0.0f, 1.0f);
    spec_preprocess (&s, &pp);
    h = make_preprocess_harness (&model, &pp);
    push_check (h, SD_I420, &bt601_limited, &s, rand, 1);
    push_check (h, "video/x-raw,format=NV12,width=1281,height=719,"
        "framerate=30/1,colorimetry=bt709", &bt709_limited, &s, rand, 1);
    push_check (h, "video/x-raw,format=RGB,width=101,height=3,"
        "framerate=30/1", &bt601_limited, &s, rand, 1);
    gst_harness_teardown (h);
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* A reconfigure event from downstream (the model replaced) makes the
 * element ask the model again. */
GST_START_TEST (test_reconfigure_asks_the_model_again)
{
  GstAxModelInput model = { 32, 24, 3, GST_AX_TENSOR_DTYPE_U8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255.0f, 0, "input", "first"
  };
  TensorSpec t = { 32, 24, TRUE, 0, GST_AX_TENSOR_DTYPE_U8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255.0f, 0, DEFAULT_FILL
  };
  GstAxModelPreprocess pp;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  GstHarness *h;

  init_preprocess (&pp, GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_LETTERBOX,
      DEFAULT_FILL, 1.0f / 255.0f, 0.0f, 1.0f);
  spec_preprocess (&t, &pp);
  h = make_preprocess_harness (&model, &pp);
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);

  /* another model: stretch, BGR, p itself into i8 */
  fake_model.width = t.tw = 20;
  fake_model.height = t.th = 20;
  fake_model.dtype = t.dtype = GST_AX_TENSOR_DTYPE_I8;
  fake_model.scale = t.scale = 1.0f;
  fake_model.zero_point = t.zero_point = -128;
  init_preprocess (&fake_preprocess, GST_AX_COLOR_ORDER_BGR,
      GST_AX_RESIZE_STRETCH, DEFAULT_FILL, 1.0f, 0.0f, 1.0f);
  spec_preprocess (&t, &fake_preprocess);
  fail_unless (gst_harness_push_upstream_event (h,
          gst_event_new_reconfigure ()));
  push_check (h, "video/x-raw,format=RGB,width=45,height=17,framerate=30/1",
      &bt601_limited, &t, rand, 1);
  gst_harness_teardown (h);
  g_rand_free (rand);
}

GST_END_TEST;

/* The model's decoder metadata asks for square crops 1.5 times the
 * region's longer side: each crop is that square about the region's
 * centre, moved inside the frame. */
GST_START_TEST (test_roi_mode_model_crop)
{
  GstAxModelInput model = { 16, 16, 3, GST_AX_TENSOR_DTYPE_U8,
    GST_AX_TENSOR_LAYOUT_NHWC, 1.0f / 255, 0, "input", "classifier"
  };
  GstHarness *h = make_model_harness (&model);
  GstVideoInfo info;
  GstBuffer *in, *out;
  /* x, y, w, h, then the crop expected: x, y, side */
  static const guint rois[][7] = {
    {40, 30, 10, 20, 30, 25, 30},       /* inside: centre 45,40 */
    {2, 3, 10, 8, 0, 0, 15},    /* runs off the top-left: moved in */
    {90, 50, 8, 10, 85, 45, 15},        /* off the bottom-right */
  };
  guint i;

  fake_decoder = "{\"type\": \"classification\", "
      "\"crop\": {\"square\": true, \"scale\": 1.5}}";
  g_object_set (h->element, "roi-mode", TRUE, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, 100, 60);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = gst_buffer_new_allocate (NULL, info.size, NULL);
  gst_buffer_memset (in, 0, 0, info.size);
  for (i = 0; i < G_N_ELEMENTS (rois); i++)
    gst_buffer_add_video_region_of_interest_meta (in, "face", rois[i][0],
        rois[i][1], rois[i][2], rois[i][3]);
  /* a whole frame's classification region is not cropped */
  fail_unless (gst_ax_detection_get_frame_roi (in, TRUE, 100, 60) != NULL);
  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 3);
  for (i = 0; i < G_N_ELEMENTS (rois); i++) {
    GstAxTensorMeta *meta = NULL;
    gpointer state = NULL;
    GstVideoRegionOfInterestMeta *roi;

    /* find region i's tensor by its id */
    while ((meta = gst_buffer_iterate_ax_tensor_meta (out, &state,
                GST_AX_TENSOR_ROLE_INPUT))) {
      roi = gst_buffer_get_video_region_of_interest_meta_id (out, meta->roi_id);
      fail_unless (roi != NULL);
      if (roi->x == rois[i][0] && roi->y == rois[i][1])
        break;
    }
    fail_unless (meta != NULL, "no tensor for region %u", i);
    fail_unless_equals_int (meta->letterbox.src_x, rois[i][4]);
    fail_unless_equals_int (meta->letterbox.src_y, rois[i][5]);
    fail_unless_equals_int (meta->letterbox.src_width, rois[i][6]);
    fail_unless_equals_int (meta->letterbox.src_height, rois[i][6]);
  }
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axletterbox_preprocess_suite (void)
{
  Suite *s = suite_create ("axletterbox-preprocess");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_model_query);
  tcase_add_test (tc, test_model_query_f32_nchw);
  tcase_add_test (tc, test_model_wrong_channels);
  tcase_add_test (tc, test_preprocess_stretch_scale_one);
  tcase_add_test (tc, test_preprocess_letterbox_mean);
  tcase_add_test (tc, test_preprocess_per_channel);
  tcase_add_test (tc, test_preprocess_overrides);
  tcase_add_test (tc, test_preprocess_gray);
  tcase_add_test (tc, test_preprocess_flat_values);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_reconfigure_asks_the_model_again);
  tcase_add_test (tc, test_roi_mode_model_crop);
  return s;
}

GST_CHECK_MAIN (axletterbox_preprocess);
