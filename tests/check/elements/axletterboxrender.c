/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* axletterbox's pixel engine on its own, without a pipeline: a context
 * made from a video info and a tensor spec renders known frames into
 * known tensors. */

#include "gstaxletterboxrender.h"

#include <gst/gst.h>
#include <string.h>

#define CHANNELS 3
#define FILL 114
#define RED 200
#define GREEN 100
#define BLUE 30
/* BT.601 limited range: Y 16 is black, 235 white, chroma 128 is gray */
#define Y_BLACK 16
#define Y_WHITE 235
#define CHROMA_ZERO 128
#define SIGN_FLIP 0x80
#define RANDOM_SEED 11

static void
params_init (GstAxLetterboxRenderParams * p, gint w, gint h,
    GstAxTensorDType dtype)
{
  memset (p, 0, sizeof (*p));
  p->width = w;
  p->height = h;
  p->dtype = dtype;
  p->layout = GST_AX_TENSOR_LAYOUT_NHWC;
  gst_ax_model_preprocess_init_default (&p->preprocess);
  p->preprocess.fill = FILL;
  if (dtype == GST_AX_TENSOR_DTYPE_F32) {
    p->scale = 1.0f;
  } else {
    p->scale = 1.0f / 255;
    p->zero_point = dtype == GST_AX_TENSOR_DTYPE_I8 ? G_MININT8 : 0;
  }
  p->bilinear = TRUE;
}

/* A frame of one colour, for RGB-like @format. */
static GstBuffer *
solid_rgb_frame (GstVideoInfo * info, GstVideoFormat format, gint w, gint h)
{
  GstBuffer *buf;
  GstVideoFrame frame;
  gint x, y;

  gst_video_info_set_format (info, format, w, h);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  g_assert_true (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

    for (x = 0; x < w; x++) {
      guint8 *px = row + x * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);

      px[GST_VIDEO_FRAME_COMP_OFFSET (&frame, 0)] = RED;
      px[GST_VIDEO_FRAME_COMP_OFFSET (&frame, 1)] = GREEN;
      px[GST_VIDEO_FRAME_COMP_OFFSET (&frame, 2)] = BLUE;
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

static guint8 *
render (const GstVideoInfo * info, GstBuffer * buf,
    const GstAxLetterboxRenderParams * p, const GstAxLetterboxGeometry * lb)
{
  GstAxLetterboxRender *r = gst_ax_letterbox_render_new (info, p, lb);
  guint8 *tensor = g_malloc (gst_ax_letterbox_render_tensor_size (p));
  GstVideoFrame frame;

  g_assert_nonnull (r);
  g_assert_true (gst_video_frame_map (&frame, info, buf, GST_MAP_READ));
  gst_ax_letterbox_render_frame (r, &frame, tensor);
  gst_video_frame_unmap (&frame);
  gst_ax_letterbox_render_free (r);
  return tensor;
}

/* 8x4 BGRx into a 4x4 u8 RGB tensor: two content rows in the middle of
 * the fill, each pixel the frame's colour in RGB order. */
static void
test_letterbox_rgb (void)
{
  GstVideoInfo info;
  GstAxLetterboxRenderParams p;
  GstAxLetterboxGeometry lb;
  GstBuffer *buf = solid_rgb_frame (&info, GST_VIDEO_FORMAT_BGRx, 8, 4);
  guint8 *t;
  gint x, y;

  params_init (&p, 4, 4, GST_AX_TENSOR_DTYPE_U8);
  g_assert_true (gst_ax_letterbox_geometry_init (&lb, 8, 4, 4, 4, TRUE, TRUE,
          FILL));
  g_assert_cmpint (lb.pad_y, ==, 1);
  t = render (&info, buf, &p, &lb);
  for (y = 0; y < 4; y++) {
    for (x = 0; x < 4; x++) {
      const guint8 *px = t + (y * 4 + x) * CHANNELS;
      const gboolean content = y >= 1 && y < 3;

      g_assert_cmpuint (px[0], ==, content ? RED : FILL);
      g_assert_cmpuint (px[1], ==, content ? GREEN : FILL);
      g_assert_cmpuint (px[2], ==, content ? BLUE : FILL);
    }
  }
  g_free (t);

  /* BGR into i8 (zero point -128): channels swapped, top bit flipped */
  params_init (&p, 4, 4, GST_AX_TENSOR_DTYPE_I8);
  p.preprocess.color = GST_AX_COLOR_ORDER_BGR;
  t = render (&info, buf, &p, &lb);
  g_assert_cmpuint (t[0], ==, FILL ^ SIGN_FLIP);
  g_assert_cmpuint (t[(4 + 1) * CHANNELS], ==, BLUE ^ SIGN_FLIP);
  g_assert_cmpuint (t[(4 + 1) * CHANNELS + 2], ==, RED ^ SIGN_FLIP);
  g_free (t);
  gst_buffer_unref (buf);
}

/* f32 with a mean and std per channel: (p / 255 - mean) / std. */
static void
test_preprocess_f32 (void)
{
  static const gfloat mean[CHANNELS] = { 0.5f, 0.25f, 0.0f };
  static const gfloat std[CHANNELS] = { 0.5f, 2.0f, 1.0f };
  const guint8 colour[CHANNELS] = { RED, GREEN, BLUE };
  GstVideoInfo info;
  GstAxLetterboxRenderParams p;
  GstAxLetterboxGeometry lb;
  GstBuffer *buf = solid_rgb_frame (&info, GST_VIDEO_FORMAT_RGB, 6, 6);
  gfloat *t;
  gint c;

  params_init (&p, 3, 3, GST_AX_TENSOR_DTYPE_F32);
  memcpy (p.preprocess.mean, mean, sizeof (mean));
  memcpy (p.preprocess.std, std, sizeof (std));
  g_assert_true (gst_ax_letterbox_geometry_init_stretch (&lb, 6, 6, 3, 3));
  t = (gfloat *) render (&info, buf, &p, &lb);
  for (c = 0; c < CHANNELS; c++)
    g_assert_cmpfloat_with_epsilon (t[4 * CHANNELS + c],
        (colour[c] / 255.0 - mean[c]) / std[c], 1e-6);
  g_free (t);
  gst_buffer_unref (buf);
}

/* NV12 without colorimetry is BT.601 limited: Y 16 black, 235 white. */
static void
test_nv12_levels (void)
{
  GstVideoInfo info;
  GstAxLetterboxRenderParams p;
  GstAxLetterboxGeometry lb;
  GstBuffer *buf;
  GstVideoFrame frame;
  guint8 *t;
  gint x, y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 8, 8);
  info.colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_UNKNOWN;
  info.colorimetry.range = GST_VIDEO_COLOR_RANGE_UNKNOWN;
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  g_assert_true (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  /* left half black, right half white */
  for (y = 0; y < 8; y++)
    for (x = 0; x < 8; x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x] =
          x < 4 ? Y_BLACK : Y_WHITE;
  for (y = 0; y < 4; y++)
    memset ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 1) +
        y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 1), CHROMA_ZERO, 8);
  gst_video_frame_unmap (&frame);

  params_init (&p, 8, 8, GST_AX_TENSOR_DTYPE_U8);
  g_assert_true (gst_ax_letterbox_geometry_init (&lb, 8, 8, 8, 8, TRUE, TRUE,
          FILL));
  t = render (&info, buf, &p, &lb);
  for (y = 0; y < 8; y++)
    for (x = 0; x < 8; x++)
      g_assert_cmpuint (t[(y * 8 + x) * CHANNELS + 1], ==, x < 4 ? 0 : 255);
  g_free (t);
  gst_buffer_unref (buf);
}

/* A ROI crop: the region's pixels, not the frame's top-left. */
static void
test_region (void)
{
  GstVideoInfo info;
  GstAxLetterboxRenderParams p;
  GstAxLetterboxRender *r;
  GstAxLetterboxGeometry lb;
  GstBuffer *buf;
  GstVideoFrame frame;
  guint8 tensor[2 * 2 * CHANNELS];
  gint x, y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGB, 8, 8);
  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  g_assert_true (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < 8; y++)
    for (x = 0; x < 8 * CHANNELS; x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0))[y *
          GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + x] = y * 8 + x / 3;
  gst_video_frame_unmap (&frame);

  params_init (&p, 2, 2, GST_AX_TENSOR_DTYPE_U8);
  r = gst_ax_letterbox_render_new (&info, &p, NULL);
  g_assert_true (gst_ax_letterbox_geometry_init (&lb, 2, 2, 2, 2, TRUE, TRUE,
          FILL));
  lb.src_x = 5;
  lb.src_y = 3;
  gst_ax_letterbox_render_set_region (r, &lb);
  g_assert_true (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  gst_ax_letterbox_render_frame (r, &frame, tensor);
  gst_video_frame_unmap (&frame);
  for (y = 0; y < 2; y++)
    for (x = 0; x < 2; x++)
      g_assert_cmpuint (tensor[(y * 2 + x) * CHANNELS], ==,
          (3 + y) * 8 + 5 + x);
  gst_ax_letterbox_render_free (r);
  gst_buffer_unref (buf);
}

/* The AVX2 kernels (where the CPU has them) give the portable bytes. */
static void
test_fast_is_portable (void)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420
  };
  GRand *rand = g_rand_new_with_seed (RANDOM_SEED);
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info;
    GstAxLetterboxRenderParams p;
    GstAxLetterboxGeometry lb;
    GstBuffer *buf;
    GstMapInfo map;
    guint8 *fast, *portable;
    gsize i;

    gst_video_info_set_format (&info, formats[f], 200, 150);
    buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = g_rand_int (rand);
    gst_buffer_unmap (buf, &map);

    params_init (&p, 96, 96, GST_AX_TENSOR_DTYPE_I8);
    g_assert_true (gst_ax_letterbox_geometry_init (&lb, 200, 150, 96, 96, TRUE,
            TRUE, FILL));
    fast = render (&info, buf, &p, &lb);
    p.portable = TRUE;
    portable = render (&info, buf, &p, &lb);
    g_assert_cmpmem (fast, gst_ax_letterbox_render_tensor_size (&p),
        portable, gst_ax_letterbox_render_tensor_size (&p));
    g_free (fast);
    g_free (portable);
    gst_buffer_unref (buf);
  }
  g_rand_free (rand);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/letterboxrender/letterbox-rgb", test_letterbox_rgb);
  g_test_add_func ("/letterboxrender/preprocess-f32", test_preprocess_f32);
  g_test_add_func ("/letterboxrender/nv12-levels", test_nv12_levels);
  g_test_add_func ("/letterboxrender/region", test_region);
  g_test_add_func ("/letterboxrender/fast-is-portable", test_fast_is_portable);
  return g_test_run ();
}
