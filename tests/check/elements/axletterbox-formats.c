/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axletterbox on its own: every input format at odd sizes and random
 * shapes against the float reference, the geometry of the letterbox and
 * its options (stretch in roi mode too), quantisation and colorimetry,
 * errors, the tensor pool, roi mode and the 1:1 paths. With a model's
 * input and preprocessing: axletterbox-preprocess.c. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/ax/ax.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "axletterboxreference.h"

#define POOL_FRAMES 20
#define RANDOM_CASES 80
#define RANDOM_MAX_SIDE 50
#define POOL_WARMUP_FRAMES 2
#define MAX_PIXEL 255
#define I8_ZERO_POINT (-128)
/* i8 with zero point -128 at scale 1/255 is u8 with the top bit flipped */
#define SIGN_BIT 0x80

/* Pushes one random frame of @format through a letterbox, checks the
 * tensor against the reference and that the frame came out untouched. */
static void
run_case (const gchar * format, const gchar * colorimetry, const YuvSpec * yuv,
    gint w, gint h, const TensorSpec * t, gboolean centre, gboolean scale_up)
{
  const FormatLayout *f = find_format (format);
  GstHarness *hr = make_harness (t, centre, scale_up);
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED + w * h);
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstCaps *caps;
  GstAxTensorMeta *meta;
  GstAxLetterboxGeometry expect;
  GstMapInfo map;
  guint8 *before;
  gchar *caps_str;

  caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1%s%s", format, w, h, colorimetry ? ",colorimetry=" : "",
      colorimetry ? colorimetry : "");
  caps = gst_caps_from_string (caps_str);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_harness_set_src_caps (hr, caps);

  in = make_random_frame (&info, rand);
  gst_buffer_map (in, &map, GST_MAP_READ);
  before = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (in, &map);

  out = gst_harness_push_and_pull (hr, in);
  fail_unless (out != NULL);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 1);
  meta = gst_buffer_get_ax_tensor_meta_by_role (out, GST_AX_TENSOR_ROLE_INPUT,
      0, 0);
  fail_unless (meta != NULL);
  fail_unless (meta->has_letterbox);
  /* a whole-frame tensor comes from no region */
  fail_unless_equals_int (meta->roi_id, GST_AX_TENSOR_ROI_NONE);
  fail_unless_equals_int (meta->dtype, t->dtype);
  fail_unless_equals_int (meta->n_dims, 4);

  /* the geometry is libgstax's Ultralytics letterbox, or its stretch */
  if (t->stretch) {
    fail_unless (gst_ax_letterbox_geometry_init_stretch (&expect, w, h, t->tw,
            t->th));
    fail_unless (meta->letterbox.stretch);
    fail_unless_equals_float (meta->letterbox.scale_x, (gdouble) t->tw / w);
    fail_unless_equals_float (meta->letterbox.scale_y, (gdouble) t->th / h);
  } else {
    fail_unless (gst_ax_letterbox_geometry_init (&expect, w, h, t->tw, t->th,
            centre, scale_up, t->fill));
    fail_if (meta->letterbox.stretch);
  }
  fail_unless_equals_int (meta->dims[3], t->gray ? 1 : N_CHANNELS);
  fail_unless_equals_int (meta->letterbox.resized_width, expect.resized_width);
  fail_unless_equals_int (meta->letterbox.resized_height,
      expect.resized_height);
  fail_unless_equals_int (meta->letterbox.pad_x, expect.pad_x);
  fail_unless_equals_int (meta->letterbox.pad_y, expect.pad_y);
  fail_unless_equals_int (meta->letterbox.src_width, w);
  fail_unless_equals_int (meta->letterbox.src_height, h);
  fail_unless_equals_int (meta->letterbox.tensor_width, t->tw);
  fail_unless_equals_int (meta->letterbox.tensor_height, t->th);

  GST_INFO ("%s %dx%d -> %dx%d %s", format, w, h, t->tw, t->th,
      t->bilinear ? "bilinear" : "nearest");
  check_tensor (meta, before, &info, f, yuv, t);

  gst_buffer_map (out, &map, GST_MAP_READ);
  fail_unless_equals_int (map.size, info.size);
  fail_unless (memcmp (map.data, before, map.size) == 0);
  gst_buffer_unmap (out, &map);

  gst_buffer_unref (out);
  g_free (before);
  g_free (caps_str);
  g_rand_free (rand);
  gst_harness_teardown (hr);
}

/* Odd sizes, shrinking and enlarging, landscape and portrait. */
static const gint odd_sizes[][2] = { {37, 23}, {13, 21}, {7, 5}, {101, 3} };

GST_START_TEST (test_formats_bilinear)
{
  guint i, s;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    for (s = 0; s < G_N_ELEMENTS (odd_sizes); s++)
      run_case (formats[i].name, NULL, &bt601_limited, odd_sizes[s][0],
          odd_sizes[s][1], &u8_rgb_bilinear, TRUE, TRUE);
}

GST_END_TEST;

/* Exact 3:1 and 1:1 scales, where every weight is 0 and the element
 * takes its one-tap paths. */
GST_START_TEST (test_formats_integer_ratios)
{
  TensorSpec t = u8_rgb_bilinear;
  guint i;

  t.tw = 33;
  t.th = 33;
  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    run_case (formats[i].name, NULL, &bt601_limited, 99, 33, &t, TRUE, TRUE);
    run_case (formats[i].name, NULL, &bt601_limited, 33, 99, &t, TRUE, TRUE);
    run_case (formats[i].name, NULL, &bt601_limited, 33, 21, &t, TRUE, TRUE);
  }
}

GST_END_TEST;

GST_START_TEST (test_formats_nearest)
{
  TensorSpec t = u8_rgb_bilinear;
  guint i, s;

  t.bilinear = FALSE;
  t.tw = 31;
  t.th = 27;
  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    for (s = 0; s < G_N_ELEMENTS (odd_sizes); s++)
      run_case (formats[i].name, NULL, &bt601_limited, odd_sizes[s][0],
          odd_sizes[s][1], &t, TRUE, TRUE);
}

GST_END_TEST;

/* Random shapes from a fixed seed, down to one pixel, with every option;
 * each must match the reference. */
GST_START_TEST (test_random_shapes)
{
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  guint i;

  for (i = 0; i < RANDOM_CASES; i++) {
    TensorSpec t = u8_rgb_bilinear;
    const FormatLayout *f =
        &formats[g_rand_int_range (rand, 0, G_N_ELEMENTS (formats))];
    gint w = g_rand_int_range (rand, 1, RANDOM_MAX_SIDE);
    gint h = g_rand_int_range (rand, 1, RANDOM_MAX_SIDE);
    gboolean centre = g_rand_boolean (rand);
    gboolean scale_up = g_rand_boolean (rand);

    t.tw = g_rand_int_range (rand, 1, RANDOM_MAX_SIDE);
    t.th = g_rand_int_range (rand, 1, RANDOM_MAX_SIDE);
    t.bilinear = g_rand_boolean (rand);
    t.red_pos = g_rand_boolean (rand) ? 2 : 0;
    t.fill = g_rand_int_range (rand, 0, 256);
    GST_INFO ("case %u", i);
    run_case (f->name, NULL, &bt601_limited, w, h, &t, centre, scale_up);
  }
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_bgr_and_quantisation)
{
  TensorSpec t = u8_rgb_bilinear;
  guint i;

  t.red_pos = 2;
  t.tw = 29;
  t.th = 33;
  t.fill = 0;
  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    run_case (formats[i].name, NULL, &bt601_limited, 45, 17, &t, TRUE, TRUE);

  /* int8 with the usual zero point, then an unusual scale that saturates */
  t.dtype = GST_AX_TENSOR_DTYPE_I8;
  t.zero_point = -128;
  t.fill = DEFAULT_FILL;
  run_case ("I420", NULL, &bt601_limited, 45, 17, &t, TRUE, TRUE);
  t.scale = 1.0 / 200.0;
  t.zero_point = -100;
  run_case ("RGB", NULL, &bt601_limited, 45, 17, &t, TRUE, TRUE);

  /* u8 with a scale that is not the identity */
  t.dtype = GST_AX_TENSOR_DTYPE_U8;
  t.scale = 1.0 / 127.0;
  t.zero_point = 3;
  run_case ("NV12", NULL, &bt601_limited, 45, 17, &t, TRUE, TRUE);

  /* float output: pixel / 255 / scale + zero-point */
  t.dtype = GST_AX_TENSOR_DTYPE_F32;
  t.scale = 1.0;
  t.zero_point = 0;
  run_case ("YUY2", NULL, &bt601_limited, 45, 17, &t, TRUE, TRUE);
  t.scale = 0.5;
  t.zero_point = -1;
  run_case ("BGRx", NULL, &bt601_limited, 45, 17, &t, TRUE, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_colorimetry_from_caps)
{
  const YuvSpec bt709_full = { BT709_KR, BT709_KB, TRUE };
  const YuvSpec bt709_limited = { BT709_KR, BT709_KB, FALSE };

  run_case ("NV12", "bt709", &bt709_limited, 39, 25, &u8_rgb_bilinear, TRUE,
      TRUE);
  run_case ("I420", "1:3:5:1", &bt709_full, 39, 25, &u8_rgb_bilinear, TRUE,
      TRUE);
  run_case ("YUY2", "bt601", &bt601_limited, 39, 25, &u8_rgb_bilinear, TRUE,
      TRUE);
}

GST_END_TEST;

GST_START_TEST (test_placement_options)
{
  TensorSpec t = u8_rgb_bilinear;

  /* top-left placement */
  run_case ("RGB", NULL, &bt601_limited, 37, 23, &t, FALSE, TRUE);
  run_case ("NV12", NULL, &bt601_limited, 23, 37, &t, FALSE, TRUE);
  /* no enlarging: a small frame is centred at scale 1 */
  run_case ("BGRx", NULL, &bt601_limited, 13, 9, &t, TRUE, FALSE);
  run_case ("I420", NULL, &bt601_limited, 13, 9, &t, FALSE, FALSE);
}

GST_END_TEST;

/* A flat frame: the content must end exactly where the geometry says. */
GST_START_TEST (test_content_edges)
{
  static const gint sizes[][4] = {
    {1920, 1080, 640, 640}, {1279, 719, 640, 384}, {100, 51, 64, 64},
    {51, 100, 64, 64},
  };
  const guint8 colour[N_CHANNELS] = { 10, 200, 30 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    GstHarness *h = gst_harness_new ("axletterbox");
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstAxTensorMeta *meta;
    GstAxLetterboxGeometry lb;
    GstMapInfo map;
    gint x, y, c;

    g_object_set (h->element, "width", sizes[i][2], "height", sizes[i][3],
        NULL);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, sizes[i][0],
        sizes[i][1]);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    in = gst_buffer_new_allocate (NULL, info.size, NULL);
    gst_buffer_map (in, &map, GST_MAP_WRITE);
    for (y = 0; y < sizes[i][1]; y++)
      for (x = 0; x < sizes[i][0]; x++)
        memcpy (map.data + y * info.stride[0] + x * N_CHANNELS, colour,
            N_CHANNELS);
    gst_buffer_unmap (in, &map);

    out = gst_harness_push_and_pull (h, in);
    meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, 0, 0);
    fail_unless (meta != NULL);
    gst_ax_letterbox_geometry_init (&lb, sizes[i][0], sizes[i][1], sizes[i][2],
        sizes[i][3], TRUE, TRUE, DEFAULT_FILL);
    gst_buffer_map (meta->data, &map, GST_MAP_READ);
    for (y = 0; y < lb.tensor_height; y++) {
      for (x = 0; x < lb.tensor_width; x++) {
        gboolean inside = x >= lb.pad_x && x < lb.pad_x + lb.resized_width
            && y >= lb.pad_y && y < lb.pad_y + lb.resized_height;

        for (c = 0; c < N_CHANNELS; c++) {
          guint8 v = map.data[(y * lb.tensor_width + x) * N_CHANNELS + c];

          if (v != (inside ? colour[c] : DEFAULT_FILL))
            fail ("case %u: (%d,%d) c%d is %u, content %s", i, x, y, c, v,
                inside ? "inside" : "outside");
        }
      }
    }
    gst_buffer_unmap (meta->data, &map);
    gst_buffer_unref (out);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_no_size_is_an_error)
{
  GstHarness *h = gst_harness_new ("axletterbox");
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
  fail_unless (strstr (err->message, "width and height") != NULL,
      "unexpected error: %s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  /* only the height set still needs a model for the width */
  g_object_set (h->element, "height", 32, NULL);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 64 * 48 * 3, NULL)), GST_FLOW_ERROR);
  msg = pop_error (bus);
  fail_unless (msg != NULL);
  gst_message_unref (msg);

  /* and works once both are set */
  g_object_set (h->element, "width", 32, NULL);
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 64 * 48 * 3, NULL)), GST_FLOW_OK);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_short_buffer_is_an_error)
{
  GstHarness *h = gst_harness_new ("axletterbox");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *debug = NULL;

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "width", 32, "height", 32, NULL);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=RGB,width=64,height=48,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 100, NULL)), GST_FLOW_ERROR);
  msg = pop_error (bus);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, &debug);
  fail_unless (strstr (err->message, "map the input frame") != NULL,
      "unexpected error: %s", err->message);
  /* the details name what came and what the caps need */
  fail_unless (strstr (debug, "100 bytes") != NULL, "details: %s", debug);
  fail_unless (strstr (debug, "9216") != NULL, "details: %s", debug);
  g_error_free (err);
  g_free (debug);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_unsupported_format)
{
  GstHarness *h = gst_harness_new ("axletterbox");

  g_object_set (h->element, "width", 32, "height", 32, NULL);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, 64 * 48, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_pool_reuse)
{
  GstHarness *h = gst_harness_new ("axletterbox");
  GstVideoInfo info;
  GHashTable *seen = g_hash_table_new (NULL, NULL);
  guint i, after_warmup = 0;

  g_object_set (h->element, "width", 64, "height", 64, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 99, 55);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));

  for (i = 0; i < POOL_FRAMES; i++) {
    GstBuffer *out = gst_harness_push_and_pull (h,
        gst_buffer_new_allocate (NULL, info.size, NULL));
    GstAxTensorMeta *meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, 0, 0);
    GstMemory *mem = gst_buffer_peek_memory (meta->data, 0);

    if (i >= POOL_WARMUP_FRAMES && !g_hash_table_contains (seen, mem))
      after_warmup++;
    g_hash_table_add (seen, mem);
    /* releasing the frame returns its tensor to the pool */
    gst_buffer_unref (out);
  }
  fail_unless_equals_int (after_warmup, 0);
  fail_unless (g_hash_table_size (seen) <= POOL_WARMUP_FRAMES);
  g_hash_table_unref (seen);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Two frames in flight hold two tensors; a frame with an old input tensor
 * gets it replaced. */
GST_START_TEST (test_held_tensors_and_replacement)
{
  GstHarness *h = gst_harness_new ("axletterbox");
  GstVideoInfo info;
  GstBuffer *a, *b, *c;
  GstAxTensorMeta *ma, *mb;

  g_object_set (h->element, "width", 16, "height", 16, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, 20, 10);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  a = gst_harness_push_and_pull (h, gst_buffer_new_allocate (NULL, info.size,
          NULL));
  b = gst_harness_push_and_pull (h, gst_buffer_new_allocate (NULL, info.size,
          NULL));
  ma = gst_buffer_get_ax_tensor_meta_by_role (a, GST_AX_TENSOR_ROLE_INPUT, 0,
      0);
  mb = gst_buffer_get_ax_tensor_meta_by_role (b, GST_AX_TENSOR_ROLE_INPUT, 0,
      0);
  fail_unless (gst_buffer_peek_memory (ma->data, 0) !=
      gst_buffer_peek_memory (mb->data, 0));

  c = gst_harness_push_and_pull (h, a);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (c,
          GST_AX_TENSOR_ROLE_INPUT), 1);
  gst_buffer_unref (b);
  gst_buffer_unref (c);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_roi_mode)
{
  GstHarness *h = gst_harness_new ("axletterbox");
  TensorSpec t = u8_rgb_bilinear;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMapInfo map;
  guint8 *before;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  static const guint rois[][4] = {
    {5, 7, 21, 13}, {40, 2, 9, 30}, {60, 30, 100, 100}
  };
  const gchar *labels[] = { "ball", "cat", "ball" };
  GstVideoRegionOfInterestMeta *roi;
  gint ids[3];
  guint i;

  t.tw = 24;
  t.th = 20;
  g_object_set (h->element, "width", t.tw, "height", t.th, "roi-mode", TRUE,
      NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 71, 45);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));

  in = make_random_frame (&info, rand);
  for (i = 0; i < G_N_ELEMENTS (rois); i++)
    gst_buffer_add_video_region_of_interest_meta (in, labels[i], rois[i][0],
        rois[i][1], rois[i][2], rois[i][3]);
  gst_buffer_map (in, &map, GST_MAP_READ);
  before = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (in, &map);

  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 3);
  for (i = 0; i < G_N_ELEMENTS (rois); i++) {
    GstAxTensorMeta *meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, i, 0);
    GstAxLetterboxGeometry lb;
    /* the last region runs off the frame and is clipped to it */
    gint rw = MIN (rois[i][0] + rois[i][2], 71) - rois[i][0];
    gint rh = MIN (rois[i][1] + rois[i][3], 45) - rois[i][1];

    fail_unless (meta != NULL);
    gst_ax_letterbox_geometry_init (&lb, rw, rh, t.tw, t.th, TRUE, TRUE,
        DEFAULT_FILL);
    fail_unless_equals_int (meta->letterbox.src_x, rois[i][0]);
    fail_unless_equals_int (meta->letterbox.src_y, rois[i][1]);
    fail_unless_equals_int (meta->letterbox.src_width, rw);
    fail_unless_equals_int (meta->letterbox.src_height, rh);
    fail_unless_equals_int (meta->letterbox.resized_width, lb.resized_width);
    fail_unless_equals_int (meta->letterbox.pad_y, lb.pad_y);
    check_tensor (meta, before, &info, find_format ("NV12"), &bt601_limited,
        &t);
    /* the regions all had id 0: each got its own, which its tensor has */
    roi = gst_buffer_get_video_region_of_interest_meta_id (out, meta->roi_id);
    fail_unless (roi != NULL, "no region with the tensor's id %d",
        meta->roi_id);
    fail_unless_equals_int (roi->x, rois[i][0]);
    fail_unless_equals_int (roi->y, rois[i][1]);
    ids[i] = meta->roi_id;
  }
  fail_unless (ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2]);
  gst_buffer_unref (out);

  /* a frame without regions passes without a tensor */
  out = gst_harness_push_and_pull (h, gst_buffer_new_allocate (NULL,
          info.size, NULL));
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 0);
  gst_buffer_unref (out);

  /* only the chosen class */
  g_object_set (h->element, "roi-classes", "cat", NULL);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 1);
  fail_unless_equals_int (gst_buffer_get_ax_tensor_meta_by_role (out,
          GST_AX_TENSOR_ROLE_INPUT, 0, 0)->letterbox.src_x, 40);
  gst_buffer_unref (out);

  gst_buffer_unref (in);
  g_free (before);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes a random @format frame of @w x @h into a @w x @h u8 or i8 tensor
 * (1:1, no padding); returns the frame out, @in is the frame pushed (the
 * caller's ref) and @before its bytes. */
static GstBuffer *
push_one_to_one (const gchar * format, gint w, gint h, const gchar * order,
    const gchar * dtype, GstBuffer ** in, guint8 ** before, GstVideoInfo * info)
{
  GstHarness *hr = gst_harness_new ("axletterbox");
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED + w);
  GstMapInfo map;
  GstBuffer *out;

  g_object_set (hr->element, "width", w, "height", h, "method", 1, NULL);
  gst_util_set_object_arg (G_OBJECT (hr->element), "dtype", dtype);
  if (!strcmp (dtype, "i8"))
    g_object_set (hr->element, "scale", 1.0 / MAX_PIXEL, "zero-point",
        I8_ZERO_POINT, NULL);
  gst_util_set_object_arg (G_OBJECT (hr->element), "channel-order", order);
  gst_video_info_set_format (info, gst_video_format_from_string (format), w, h);
  gst_harness_set_src_caps (hr, gst_video_info_to_caps (info));
  *in = make_random_frame (info, rand);
  gst_buffer_map (*in, &map, GST_MAP_READ);
  *before = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (*in, &map);
  out = gst_harness_push_and_pull (hr, gst_buffer_ref (*in));
  fail_unless (out != NULL);
  g_rand_free (rand);
  gst_harness_teardown (hr);
  return out;
}

static GstAxTensorMeta *
input_tensor (GstBuffer * out, gint w, gint h)
{
  GstAxTensorMeta *meta = gst_buffer_get_ax_tensor_meta_by_role (out,
      GST_AX_TENSOR_ROLE_INPUT, 0, 0);

  fail_unless (meta != NULL);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 1);
  fail_unless (meta->has_letterbox);
  fail_unless_equals_int (meta->layout, GST_AX_TENSOR_LAYOUT_NHWC);
  fail_unless_equals_int (meta->n_dims, 4);
  fail_unless_equals_int (meta->dims[1], h);
  fail_unless_equals_int (meta->dims[2], w);
  fail_unless_equals_int (meta->dims[3], N_CHANNELS);
  fail_unless_equals_int (meta->letterbox.resized_width, w);
  fail_unless_equals_int (meta->letterbox.resized_height, h);
  fail_unless_equals_int (meta->letterbox.pad_x, 0);
  fail_unless_equals_int (meta->letterbox.pad_y, 0);
  fail_unless_equals_int (gst_buffer_get_size (meta->data),
      (gsize) w * h * N_CHANNELS);
  return meta;
}

/* RGB into an RGB u8 tensor of its own size is the frame's bytes: the
 * tensor shares the frame's memory, and a later write to the frame does
 * not reach it. */
GST_START_TEST (test_one_to_one_shares_frame)
{
  const gint w = 640, h = 640;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstAxTensorMeta *meta;
  GstMapInfo map, tmap;
  guint8 *before;

  out = push_one_to_one ("RGB", w, h, "rgb", "u8", &in, &before, &info);
  fail_unless_equals_int (GST_VIDEO_INFO_PLANE_STRIDE (&info, 0),
      w * N_CHANNELS);
  meta = input_tensor (out, w, h);
  fail_unless_equals_int (meta->dtype, GST_AX_TENSOR_DTYPE_U8);
  fail_unless (gst_buffer_peek_memory (meta->data, 0) ==
      gst_buffer_peek_memory (in, 0));
  fail_unless (gst_buffer_map (meta->data, &tmap, GST_MAP_READ));
  fail_unless_equals_int (tmap.size, info.size);
  fail_unless (memcmp (tmap.data, before, tmap.size) == 0);
  gst_buffer_unmap (meta->data, &tmap);

  fail_unless (gst_buffer_map (out, &map, GST_MAP_WRITE));
  memset (map.data, 0, map.size);
  gst_buffer_unmap (out, &map);
  fail_unless (gst_buffer_map (meta->data, &tmap, GST_MAP_READ));
  fail_unless (memcmp (tmap.data, before, tmap.size) == 0);
  gst_buffer_unmap (meta->data, &tmap);

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  g_free (before);
}

GST_END_TEST;

/* 1:1 cases whose tensor is not the frame's bytes are rendered into a
 * tensor of their own: rows with stride padding, the other channel order,
 * i8, a 4-byte format. */
GST_START_TEST (test_one_to_one_copies)
{
  static const struct
  {
    const gchar *format, *order, *dtype;
    gint w, h;
  } cases[] = {
    {"RGB", "rgb", "u8", 22, 10},
    {"RGB", "bgr", "u8", 32, 8},
    {"BGR", "bgr", "u8", 22, 6},
    {"RGB", "rgb", "i8", 32, 8},
    {"RGBx", "rgb", "u8", 16, 4},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const gint w = cases[i].w, h = cases[i].h;
    const gboolean swap = strcmp (cases[i].order, "rgb") != 0;
    const gboolean s8 = !strcmp (cases[i].dtype, "i8");
    const FormatLayout *f = find_format (cases[i].format);
    GstVideoInfo info;
    GstBuffer *in, *out;
    GstAxTensorMeta *meta;
    GstMapInfo tmap;
    guint8 *before;
    gint x, y, k;

    out = push_one_to_one (cases[i].format, w, h, cases[i].order,
        cases[i].dtype, &in, &before, &info);
    meta = input_tensor (out, w, h);
    fail_unless (gst_buffer_peek_memory (meta->data, 0) !=
        gst_buffer_peek_memory (in, 0));
    fail_unless (gst_buffer_map (meta->data, &tmap, GST_MAP_READ));
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        for (k = 0; k < N_CHANNELS; k++) {
          const CompLayout *c = &f->comp[swap ? 2 - k : k];
          const guint8 p = before[y * GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) +
              x * c->pstride + c->poffset];

          fail_unless_equals_int (tmap.data[(y * w + x) * N_CHANNELS + k],
              s8 ? p ^ SIGN_BIT : p);
        }
    gst_buffer_unmap (meta->data, &tmap);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    g_free (before);
  }
}

GST_END_TEST;

/* roi-mode with a stretch: each crop fills the whole tensor. */
GST_START_TEST (test_roi_mode_stretch)
{
  GstHarness *h = gst_harness_new ("axletterbox");
  TensorSpec t = u8_rgb_bilinear;
  GstVideoInfo info;
  GstBuffer *in, *out;
  GstMapInfo map;
  guint8 *before;
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  static const guint rois[][4] = { {5, 7, 21, 13}, {40, 2, 9, 30} };
  guint i;

  t.tw = 24;
  t.th = 20;
  t.stretch = TRUE;
  g_object_set (h->element, "width", t.tw, "height", t.th, "roi-mode", TRUE,
      NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "resize", "stretch");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 71, 45);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  in = make_random_frame (&info, rand);
  for (i = 0; i < G_N_ELEMENTS (rois); i++)
    gst_buffer_add_video_region_of_interest_meta (in, "object", rois[i][0],
        rois[i][1], rois[i][2], rois[i][3]);
  gst_buffer_map (in, &map, GST_MAP_READ);
  before = g_memdup2 (map.data, map.size);
  gst_buffer_unmap (in, &map);

  out = gst_harness_push_and_pull (h, in);
  fail_unless_equals_int (gst_buffer_count_ax_tensor_meta (out,
          GST_AX_TENSOR_ROLE_INPUT), 2);
  for (i = 0; i < G_N_ELEMENTS (rois); i++) {
    GstAxTensorMeta *meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, i, 0);

    fail_unless (meta != NULL);
    fail_unless (meta->letterbox.stretch);
    fail_unless_equals_int (meta->letterbox.src_x, rois[i][0]);
    fail_unless_equals_int (meta->letterbox.src_y, rois[i][1]);
    fail_unless_equals_int (meta->letterbox.resized_width, t.tw);
    fail_unless_equals_int (meta->letterbox.resized_height, t.th);
    fail_unless_equals_float (meta->letterbox.scale_x,
        (gdouble) t.tw / rois[i][2]);
    fail_unless_equals_float (meta->letterbox.scale_y,
        (gdouble) t.th / rois[i][3]);
    check_tensor (meta, before, &info, find_format ("I420"), &bt601_limited,
        &t);
  }
  gst_buffer_unref (out);

  /* gray crops, as the emotion model takes faces */
  gst_util_set_object_arg (G_OBJECT (h->element), "channel-order", "gray");
  t.gray = TRUE;
  in = gst_buffer_new_wrapped (g_memdup2 (before, info.size), info.size);
  for (i = 0; i < G_N_ELEMENTS (rois); i++)
    gst_buffer_add_video_region_of_interest_meta (in, "object", rois[i][0],
        rois[i][1], rois[i][2], rois[i][3]);
  out = gst_harness_push_and_pull (h, in);
  for (i = 0; i < G_N_ELEMENTS (rois); i++) {
    GstAxTensorMeta *meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, i, 0);

    fail_unless (meta != NULL);
    fail_unless_equals_int (meta->dims[3], 1);
    fail_unless_equals_int (meta->letterbox.src_x, rois[i][0]);
    check_tensor (meta, before, &info, find_format ("I420"), &bt601_limited,
        &t);
  }
  gst_buffer_unref (out);
  g_free (before);
  g_rand_free (rand);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
axletterbox_formats_suite (void)
{
  Suite *s = suite_create ("axletterbox-formats");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_formats_bilinear);
  tcase_add_test (tc, test_formats_integer_ratios);
  tcase_add_test (tc, test_formats_nearest);
  tcase_add_test (tc, test_random_shapes);
  tcase_add_test (tc, test_bgr_and_quantisation);
  tcase_add_test (tc, test_colorimetry_from_caps);
  tcase_add_test (tc, test_placement_options);
  tcase_add_test (tc, test_content_edges);
  tcase_add_test (tc, test_no_size_is_an_error);
  tcase_add_test (tc, test_short_buffer_is_an_error);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_pool_reuse);
  tcase_add_test (tc, test_held_tensors_and_replacement);
  tcase_add_test (tc, test_roi_mode);
  tcase_add_test (tc, test_one_to_one_shares_frame);
  tcase_add_test (tc, test_one_to_one_copies);
  tcase_add_test (tc, test_roi_mode_stretch);
  return s;
}

GST_CHECK_MAIN (axletterbox_formats);
