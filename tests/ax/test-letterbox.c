/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/ax/ax.h>
#include <math.h>
#include <string.h>

#define ROUND_TRIP_TOLERANCE_PX 1e-4

typedef struct
{
  gint sw, sh, tw, th;
  gint resized_w, resized_h, pad_left, pad_top, pad_right, pad_bottom;
} LetterboxCase;

/* Expected values worked out by hand from the Ultralytics rule. */
static const LetterboxCase cases[] = {
  {1920, 1080, 640, 640, 640, 360, 0, 140, 0, 140},
  {1919, 1079, 640, 640, 640, 360, 0, 140, 0, 140},
  {1079, 1919, 640, 640, 360, 640, 140, 0, 140, 0},
  {1280, 720, 640, 384, 640, 360, 0, 12, 0, 12},
  {100, 51, 64, 64, 64, 33, 0, 15, 0, 16},
  {51, 100, 64, 64, 33, 64, 15, 0, 16, 0},
  {1, 1, 640, 640, 640, 640, 0, 0, 0, 0},
  {1, 1, 3, 2, 2, 2, 0, 0, 1, 0},
  {640, 640, 640, 640, 640, 640, 0, 0, 0, 0},
};

GST_START_TEST (test_ultralytics_geometry)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    const LetterboxCase *c = &cases[i];
    GstAxLetterboxGeometry lb;

    fail_unless (gst_ax_letterbox_geometry_init (&lb, c->sw, c->sh, c->tw,
            c->th, TRUE, TRUE, GST_AX_LETTERBOX_DEFAULT_FILL));
    GST_INFO ("case %u: %dx%d -> %dx%d", i, c->sw, c->sh, c->tw, c->th);
    fail_unless_equals_int (lb.resized_width, c->resized_w);
    fail_unless_equals_int (lb.resized_height, c->resized_h);
    fail_unless_equals_int (lb.pad_x, c->pad_left);
    fail_unless_equals_int (lb.pad_y, c->pad_top);
    fail_unless_equals_int (lb.tensor_width - lb.resized_width - lb.pad_x,
        c->pad_right);
    fail_unless_equals_int (lb.tensor_height - lb.resized_height - lb.pad_y,
        c->pad_bottom);
    fail_unless_equals_int (lb.fill, 114);
  }
}

GST_END_TEST;

GST_START_TEST (test_no_scale_up_and_top_left)
{
  GstAxLetterboxGeometry lb;

  fail_unless (gst_ax_letterbox_geometry_init (&lb, 320, 240, 640, 640, TRUE,
          FALSE, 0));
  fail_unless_equals_float (lb.scale, 1.0);
  fail_unless_equals_int (lb.resized_width, 320);
  fail_unless_equals_int (lb.pad_x, 160);
  fail_unless_equals_int (lb.pad_y, 200);

  fail_unless (gst_ax_letterbox_geometry_init (&lb, 1920, 1080, 640, 640, FALSE,
          TRUE, 0));
  fail_unless_equals_int (lb.pad_x, 0);
  fail_unless_equals_int (lb.pad_y, 0);
  fail_unless_equals_int (lb.resized_height, 360);

  fail_if (gst_ax_letterbox_geometry_init (&lb, 0, 10, 640, 640, TRUE, TRUE,
          0));
  fail_if (gst_ax_letterbox_geometry_init (&lb, 10, 10, 640, -1, TRUE, TRUE,
          0));
}

GST_END_TEST;

static void
check_round_trip (const GstAxLetterboxGeometry * lb)
{
  static const gdouble fractions[] = { 0.0, 0.013, 0.25, 0.5, 0.731, 1.0 };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (fractions); i++) {
    for (j = 0; j < G_N_ELEMENTS (fractions); j++) {
      gdouble sx = lb->src_x + fractions[i] * lb->src_width;
      gdouble sy = lb->src_y + fractions[j] * lb->src_height;
      gdouble tx, ty, bx, by;
      gdouble box[4] = { sx, sy, sx + 3.5, sy + 1.25 }, tbox[4], back[4];
      guint k;

      gst_ax_letterbox_geometry_to_tensor (lb, sx, sy, &tx, &ty);
      gst_ax_letterbox_geometry_to_source (lb, tx, ty, &bx, &by);
      fail_unless (fabs (bx - sx) < ROUND_TRIP_TOLERANCE_PX,
          "x %f -> %f -> %f", sx, tx, bx);
      fail_unless (fabs (by - sy) < ROUND_TRIP_TOLERANCE_PX,
          "y %f -> %f -> %f", sy, ty, by);
      /* points of the source map inside the content area */
      fail_unless (tx >= lb->pad_x - ROUND_TRIP_TOLERANCE_PX);
      fail_unless (ty >= lb->pad_y - ROUND_TRIP_TOLERANCE_PX);
      fail_unless (tx <= lb->pad_x + lb->resized_width + 1e-6);
      fail_unless (ty <= lb->pad_y + lb->resized_height + 1e-6);

      gst_ax_letterbox_geometry_box_to_tensor (lb, box, tbox);
      gst_ax_letterbox_geometry_box_to_source (lb, tbox, back, 0, 0);
      for (k = 0; k < 4; k++)
        fail_unless (fabs (back[k] - box[k]) < ROUND_TRIP_TOLERANCE_PX);
    }
  }
}

GST_START_TEST (test_round_trips)
{
  static const gint sizes[][2] = {
    {1, 1}, {1919, 1079}, {1079, 1919}, {1920, 1080}, {3, 1000}, {1000, 3},
    {641, 479}, {17, 13},
  };
  static const gint tensors[][2] = { {640, 640}, {320, 192}, {63, 65} };
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (sizes); i++) {
    for (j = 0; j < G_N_ELEMENTS (tensors); j++) {
      GstAxLetterboxGeometry lb;

      fail_unless (gst_ax_letterbox_geometry_init (&lb, sizes[i][0],
              sizes[i][1], tensors[j][0], tensors[j][1], TRUE, TRUE, 114));
      check_round_trip (&lb);
      /* the same through a crop of a larger frame */
      lb.src_x = 37;
      lb.src_y = 11;
      check_round_trip (&lb);
    }
  }
}

GST_END_TEST;

GST_START_TEST (test_box_clamp)
{
  GstAxLetterboxGeometry lb;
  const gdouble tbox[4] = { -5.0, 100.0, 700.0, 400.0 };
  const gdouble tbox2[4] = { 10.0, 150.0, 20.0, 400.0 };
  gdouble sbox[4];

  fail_unless (gst_ax_letterbox_geometry_init (&lb, 1920, 1080, 640, 640, TRUE,
          TRUE, 114));
  gst_ax_letterbox_geometry_box_to_source (&lb, tbox, sbox, 1920, 1080);
  fail_unless_equals_float (sbox[0], 0.0);
  fail_unless_equals_float (sbox[1], 0.0);
  fail_unless_equals_float (sbox[2], 1920.0);
  fail_unless (fabs (sbox[3] - (400.0 - 140.0) * 3.0) < 1e-9);
  gst_ax_letterbox_geometry_box_to_source (&lb, tbox2, sbox, 1920, 1080);
  fail_unless (fabs (sbox[0] - 30.0) < 1e-9);
  fail_unless (fabs (sbox[1] - 30.0) < 1e-9);
}

GST_END_TEST;

/* Bit-exactness of axletterbox's pixels. The reference below is the
 * element's documented bilinear arithmetic written out per tensor value,
 * with no tables shared with the element: taps at pixel centres clamped
 * to the region, the vertical blend of each horizontal tap first, then
 * the horizontal one, all in float; RGB rounded by + 0.5 and truncation,
 * YUV through the BT.601 limited-range matrix of the caps. The element
 * must give exactly these bytes with its vector kernels and with the
 * portable ones (GST_AX_LETTERBOX_PORTABLE), on every format, u8 and s8
 * (the plain top-bit flip, and affine maps: the element's vector kernel
 * against a LUT in double here), at ratios
 * 1:1 to 4:1 with dyadic weights (integer kernels) and odd ones (float
 * kernels). */

#define EXACT_FILL 114
#define EXACT_SEED 20261201
#define MAX_PIXEL 255
#define CHROMA_MID 128.0f
#define PORTABLE_ENV "GST_AX_LETTERBOX_PORTABLE"
#define AFFINE_SCALE 0.0125
#define AFFINE_ZERO_POINT (-7)
#define AFFINE_U8_SCALE 0.005
#define AFFINE_U8_ZERO_POINT 3
#define EXACT_TENSOR 64
#define ROI_FRAME_WIDTH 320
#define ROI_FRAME_HEIGHT 240

typedef struct
{
  const gchar *dtype;
  gdouble scale;                /* 0 for the default */
  gint zero_point;
} ExactQuant;

static const ExactQuant quants[] = {
  {"u8", 0.0, 0},
  {"i8", 0.0, 0},
  {"i8", AFFINE_SCALE, AFFINE_ZERO_POINT},
  {"u8", AFFINE_U8_SCALE, AFFINE_U8_ZERO_POINT},
};

/* the element's quantisation, in double like the element */
static guint8
exact_quantise (const ExactQuant * q, gint v)
{
  const gboolean s8 = strcmp (q->dtype, "i8") == 0;
  const gfloat scale = q->scale > 0.0 ? q->scale : 1.0f / MAX_PIXEL;
  const gint zp = q->scale > 0.0 ? q->zero_point : (s8 ? G_MININT8 : 0);
  const gdouble r = round ((gdouble) v / MAX_PIXEL / scale) + zp;

  if (s8)
    return (guint8) (gint8) CLAMP (r, G_MININT8, G_MAXINT8);
  return (guint8) CLAMP (r, 0, G_MAXUINT8);
}

static void
exact_taps (gdouble luma, gint sub, gint lo, gint hi, gint * i0, gint * i1,
    gfloat * w)
{
  const gdouble pos = luma / sub - 0.5;
  gdouble wd;

  *i0 = (gint) floor (pos);
  wd = pos - *i0;
  if (*i0 < lo || *i0 >= hi) {
    *i0 = CLAMP (*i0, lo, hi);
    wd = 0.0;
  }
  *i1 = wd > 0.0 ? *i0 + 1 : *i0;
  *w = (gfloat) wd;
}

/* component c (R, G, B or Y, U, V) of the region at tensor content pixel
 * (x, y) */
static gfloat
exact_sample (const GstVideoFrame * f, const GstAxLetterboxGeometry * lb,
    gint c, gint x, gint y)
{
  const GstVideoFormatInfo *finfo = f->info.finfo;
  const gint wsub = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
  const gint hsub = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
  const gint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
  const gint ps = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
  const gint po = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c);
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (f, plane);
  const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (f, plane);
  const gint cw = GST_VIDEO_FRAME_COMP_WIDTH (f, c);
  const gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (f, c);
  const gdouble fx = (gdouble) lb->src_width / lb->resized_width;
  const gdouble fy = (gdouble) lb->src_height / lb->resized_height;
  gint x0, x1, y0, y1;
  gfloat wx, wy, t0, t1, a, b;

  exact_taps (lb->src_x + (x + 0.5) * fx, wsub, lb->src_x / wsub,
      MIN ((lb->src_x + lb->src_width - 1) / wsub, cw - 1), &x0, &x1, &wx);
  exact_taps (lb->src_y + (y + 0.5) * fy, hsub, lb->src_y / hsub,
      MIN ((lb->src_y + lb->src_height - 1) / hsub, ch - 1), &y0, &y1, &wy);
#define PX(r, i) ((gfloat) data[(gsize) (r) * stride + (i) * ps + po])
  t0 = PX (y0, x0);
  t1 = PX (y0, x1);
  a = t0 + (PX (y1, x0) - t0) * wy;
  b = t1 + (PX (y1, x1) - t1) * wy;
#undef PX
  return a + (b - a) * wx;
}

/* the tensor's RGB (channel order rgb) at a content pixel, 0..255 */
static void
exact_pixel (const GstVideoFrame * f, const GstAxLetterboxGeometry * lb, gint x,
    gint y, guint8 rgb[3])
{
  gfloat v[3];
  gint c;

  for (c = 0; c < 3; c++)
    v[c] = exact_sample (f, lb, c, x, y);
  if (GST_VIDEO_INFO_IS_YUV (&f->info)) {
    gint offset[GST_VIDEO_MAX_COMPONENTS], scale[GST_VIDEO_MAX_COMPONENTS];
    gdouble kr, kb, kg, cg;
    gfloat yg, rv, gu, gv, bu, l, u, w;
    gint32 q[3];

    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT601, &kr, &kb);
    kg = 1.0 - kr - kb;
    gst_video_color_range_offsets (GST_VIDEO_COLOR_RANGE_16_235,
        f->info.finfo, offset, scale);
    yg = (gdouble) MAX_PIXEL / scale[0];
    cg = (gdouble) MAX_PIXEL / scale[1];
    rv = 2.0 * (1.0 - kr) * cg;
    bu = 2.0 * (1.0 - kb) * cg;
    gu = 2.0 * (1.0 - kb) * kb / kg * cg;
    gv = 2.0 * (1.0 - kr) * kr / kg * cg;
    l = (v[0] - (gfloat) offset[0]) * yg + 0.5f;
    u = v[1] - CHROMA_MID;
    w = v[2] - CHROMA_MID;
    q[0] = (gint32) (l + 0.0f * u + rv * w);
    q[1] = (gint32) (l + -gu * u + -gv * w);
    q[2] = (gint32) (l + bu * u + 0.0f * w);
    for (c = 0; c < 3; c++)
      rgb[c] = (guint8) CLAMP (q[c], 0, MAX_PIXEL);
  } else {
    for (c = 0; c < 3; c++)
      rgb[c] = (guint8) (gint32) (v[c] + 0.5f);
  }
}

/* Compares the tensor @data (tw x th, HWC) with the reference for the
 * region of @lb in @frame. */
static void
compare_tensor (const GstVideoFrame * frame, const GstAxLetterboxGeometry * lb,
    const ExactQuant * q, gboolean bgr, GstBuffer * data, const gchar * what)
{
  const gint tw = lb->tensor_width, th = lb->tensor_height;
  const gsize n = (gsize) tw * th * 3;
  guint8 *want = g_malloc (n);
  GstMapInfo map;
  gsize i;
  gint x, y, c;

  memset (want, exact_quantise (q, EXACT_FILL), n);
  for (y = 0; y < lb->resized_height; y++) {
    for (x = 0; x < lb->resized_width; x++) {
      guint8 rgb[3];
      guint8 *o = want + ((gsize) (y + lb->pad_y) * tw + x + lb->pad_x) * 3;

      exact_pixel (frame, lb, x, y, rgb);
      for (c = 0; c < 3; c++)
        o[c] = exact_quantise (q, rgb[bgr ? 2 - c : c]);
    }
  }

  fail_unless (gst_buffer_map (data, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n);
  for (i = 0; i < n && map.data[i] == want[i]; i++);
  fail_unless (i == n, "%s: tensor byte %" G_GSIZE_FORMAT
      " (x %d y %d c %d) is %u, want %u", what, i, (gint) (i / 3 % tw),
      (gint) (i / 3 / tw), (gint) (i % 3), i < n ? map.data[i] : 0,
      i < n ? want[i] : 0);
  gst_buffer_unmap (data, &map);
  g_free (want);
}

static GstBuffer *
random_frame (GstVideoInfo * info, GstVideoFormat format, gint sw, gint sh,
    GRand * rand)
{
  GstBuffer *in;
  GstMapInfo map;
  gsize i;

  gst_video_info_set_format (info, format, sw, sh);
  info->colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  info->colorimetry.range = GST_VIDEO_COLOR_RANGE_16_235;
  in = gst_buffer_new_allocate (NULL, info->size, NULL);
  gst_buffer_map (in, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) g_rand_int (rand);
  gst_buffer_unmap (in, &map);
  return in;
}

static GstHarness *
exact_harness (gint tw, gint th, const ExactQuant * q, gboolean bgr,
    gboolean portable, gboolean roi, const GstVideoInfo * info)
{
  GstHarness *h;
  gchar *quant, *desc;

  if (portable)
    g_setenv (PORTABLE_ENV, "1", TRUE);
  else
    g_unsetenv (PORTABLE_ENV);
  quant = q->scale > 0.0 ? g_strdup_printf ("scale=%g zero-point=%d",
      q->scale, q->zero_point) : g_strdup ("");
  desc = g_strdup_printf ("axletterbox width=%d height=%d method=bilinear "
      "dtype=%s %s fill=%d channel-order=%s roi-mode=%s", tw, th, q->dtype,
      quant, EXACT_FILL, bgr ? "bgr" : "rgb", roi ? "true" : "false");
  h = gst_harness_new_parse (desc);
  g_unsetenv (PORTABLE_ENV);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  g_free (desc);
  g_free (quant);
  return h;
}

static void
check_exact (GstVideoFormat format, gint sw, gint sh, gint tw, gint th,
    const ExactQuant * q, gboolean bgr, gboolean portable, GRand * rand)
{
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in, *out;
  GstVideoFrame frame;
  GstAxTensorMeta *meta;
  GstAxLetterboxGeometry lb;
  gchar *what;

  in = random_frame (&info, format, sw, sh, rand);
  h = exact_harness (tw, th, q, bgr, portable, FALSE, &info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  meta = gst_buffer_get_ax_tensor_meta_by_role (out, GST_AX_TENSOR_ROLE_INPUT,
      0, 0);
  fail_unless (meta != NULL);

  fail_unless (gst_ax_letterbox_geometry_init (&lb, sw, sh, tw, th, TRUE, TRUE,
          EXACT_FILL));
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  what = g_strdup_printf ("%s %dx%d -> %dx%d %s%s%s %s",
      gst_video_format_to_string (format), sw, sh, tw, th, q->dtype,
      q->scale > 0.0 ? " affine" : "", bgr ? " bgr" : "",
      portable ? "portable" : "vector");
  compare_tensor (&frame, &lb, q, bgr, meta->data, what);
  gst_video_frame_unmap (&frame);

  g_free (what);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

/* Crops of a frame in roi-mode, at odd offsets (chroma taps of a crop
 * starting between two chroma samples). */
static void
check_exact_rois (GstVideoFormat format, const ExactQuant * q,
    gboolean portable, GRand * rand)
{
  static const gint rois[][4] = {
    {37, 11, 160, 90}, {1, 3, 250, 101}, {0, 0, 320, 240}, {200, 100, 64,
        64}, {299, 7, 21, 200},
  };
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in, *out;
  GstVideoFrame frame;
  guint i;

  in = random_frame (&info, format, ROI_FRAME_WIDTH, ROI_FRAME_HEIGHT, rand);
  for (i = 0; i < G_N_ELEMENTS (rois); i++)
    gst_buffer_add_video_region_of_interest_meta (in, "object", rois[i][0],
        rois[i][1], rois[i][2], rois[i][3]);
  h = exact_harness (EXACT_TENSOR, EXACT_TENSOR, q, FALSE, portable, TRUE,
      &info);
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  for (i = 0; i < G_N_ELEMENTS (rois); i++) {
    GstAxTensorMeta *meta = gst_buffer_get_ax_tensor_meta_by_role (out,
        GST_AX_TENSOR_ROLE_INPUT, i, 0);
    GstAxLetterboxGeometry lb;
    gchar *what;

    fail_unless (meta != NULL);
    fail_unless (gst_ax_letterbox_geometry_init (&lb, rois[i][2], rois[i][3],
            EXACT_TENSOR, EXACT_TENSOR, TRUE, TRUE, EXACT_FILL));
    lb.src_x = rois[i][0];
    lb.src_y = rois[i][1];
    what = g_strdup_printf ("%s roi %u %s %s", gst_video_format_to_string
        (format), i, q->dtype, portable ? "portable" : "vector");
    compare_tensor (&frame, &lb, q, FALSE, meta->data, what);
    g_free (what);
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

/* sources against a 64x64 tensor: 1:1, 2:1, 2.5:1, 3:1 and 4:1 (dyadic
 * weights), then odd sizes and ratios (float weights), wide and tall */
static const gint exact_sizes[][2] = {
  {64, 64}, {128, 72}, {160, 90}, {192, 108}, {256, 144},
  {97, 61}, {255, 129}, {61, 203}, {33, 17}, {1, 1}, {250, 250},
};


GST_START_TEST (test_exact_pixels)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_RGBx,
    GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_YUY2,
  };
  GRand *rand = g_rand_new_with_seed (EXACT_SEED);
  guint f, s, q, portable;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (exact_sizes); s++)
      for (q = 0; q < G_N_ELEMENTS (quants); q++)
        for (portable = 0; portable < 2; portable++)
          check_exact (formats[f], exact_sizes[s][0], exact_sizes[s][1],
              EXACT_TENSOR, EXACT_TENSOR, &quants[q], s % 2 == 1, portable,
              rand);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_exact_rois)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420,
  };
  GRand *rand = g_rand_new_with_seed (EXACT_SEED);
  guint f, q, portable;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (q = 0; q < 2; q++)
      for (portable = 0; portable < 2; portable++)
        check_exact_rois (formats[f], &quants[q], portable, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* 1:1 into a tensor of the frame's size: the shared-memory RGB tensor,
 * the fused YUV kernel (2x chroma upsampling) in both channel orders, at
 * widths whose runs end on and off a block */
GST_START_TEST (test_exact_one_to_one)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420,
  };
  static const gint sizes[][2] = {
    {64, 64}, {130, 66}, {66, 130}, {18, 10}, {40, 24},
  };
  GRand *rand = g_rand_new_with_seed (EXACT_SEED);
  guint f, s, q, bgr, portable;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (q = 0; q < G_N_ELEMENTS (quants); q++)
        for (bgr = 0; bgr < 2; bgr++)
          for (portable = 0; portable < 2; portable++)
            check_exact (formats[f], sizes[s][0], sizes[s][1], sizes[s][0],
                sizes[s][1], &quants[q], bgr, portable, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* the benchmark's full-size paths into 640x640, u8 and s8 */
GST_START_TEST (test_exact_full_size)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
  };
  static const gint sizes[][2] = {
    {640, 640}, {1280, 720}, {1600, 900}, {1920, 1080}, {2560, 1440},
    {1919, 1079},
  };
  GRand *rand = g_rand_new_with_seed (EXACT_SEED);
  guint f, s, q;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (q = 0; q < 2; q++)
        check_exact (formats[f], sizes[s][0], sizes[s][1], 640, 640,
            &quants[q], FALSE, FALSE, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* The model's preprocessing folded into the quantisation, and stretch:
 * the same exact reference pixels, then each tensor channel's value
 * (p / d or p * scale, minus the mean, over the std, over the input
 * scale, rounded, plus the zero point) in double as documented, with the
 * pixel scale taken as 1 / d exactly where it is one (1/255, 1/127.5).
 * Gray is the float luma of the RGB bytes. A stand-in for axinference
 * answers the model query. */

#define LUMA_R 0.299f
#define LUMA_G 0.587f
#define LUMA_B 0.114f
#define DIVISOR_TOLERANCE 1e-6

typedef struct
{
  const gchar *name;
  GstAxTensorDType dtype;
  gfloat qscale;
  gint zero_point;
  GstAxColorOrder color;
  GstAxResizeMode resize;
  guint8 fill;
  gfloat scale;
  gfloat mean[3];
  gfloat std[3];
} ExactPre;

static const ExactPre pres[] = {
  {"centernet", GST_AX_TENSOR_DTYPE_I8, 1.0f, -128, GST_AX_COLOR_ORDER_RGB,
      GST_AX_RESIZE_STRETCH, 114, 1.0f, {0, 0, 0}, {1, 1, 1}},
  {"blazeface", GST_AX_TENSOR_DTYPE_I8, (gfloat) (1.0 / 127.5), 0,
        GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_LETTERBOX, 0,
      (gfloat) (1.0 / 127.5), {1, 1, 1}, {1, 1, 1}},
  {"bgr-mean", GST_AX_TENSOR_DTYPE_I8, 1.0f / 64.0f, 2,
        GST_AX_COLOR_ORDER_BGR, GST_AX_RESIZE_STRETCH, 7, 1.0f / 255.0f,
      {0.5f, 0.5f, 0.5f}, {0.25f, 0.25f, 0.25f}},
  {"imagenet", GST_AX_TENSOR_DTYPE_U8, 0.03f, 120, GST_AX_COLOR_ORDER_RGB,
        GST_AX_RESIZE_LETTERBOX, 114, 1.0f / 255.0f,
      {0.485f, 0.456f, 0.406f}, {0.229f, 0.224f, 0.225f}},
  {"gray", GST_AX_TENSOR_DTYPE_I8, (gfloat) (1.0 / 127.5), 0,
        GST_AX_COLOR_ORDER_GRAY, GST_AX_RESIZE_STRETCH, 0, 1.0f / 255.0f,
      {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}},
  {"gray-letterbox", GST_AX_TENSOR_DTYPE_U8, 1.0f / 255.0f, 0,
        GST_AX_COLOR_ORDER_GRAY, GST_AX_RESIZE_LETTERBOX, 114, 1.0f / 255.0f,
      {0, 0, 0}, {1, 1, 1}},
  /* the compiler's pixel inputs, as the shipped BlazeFace and emotion
   * models have them: u8 of scale pixel scale / std, zero point
   * lround (mean / pixel scale) = 127 */
  {"blazeface-u8", GST_AX_TENSOR_DTYPE_U8, (gfloat) (1.0 / 127.5), 127,
        GST_AX_COLOR_ORDER_RGB, GST_AX_RESIZE_LETTERBOX, 0,
      (gfloat) (1.0 / 127.5), {1, 1, 1}, {1, 1, 1}},
  {"emotion-u8", GST_AX_TENSOR_DTYPE_U8, (1.0f / 255.0f) / 0.5f, 127,
        GST_AX_COLOR_ORDER_GRAY, GST_AX_RESIZE_STRETCH, 0, 1.0f / 255.0f,
      {0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}},
};

/* A pixel input's zero point leaves out part of mean / scale (the half
 * of 127.5), which the compiler put in a bias: it is added back before
 * the rounding, so that the tensor holds the pixel value. */
static gdouble
pre_offset (const ExactPre * pre)
{
  const gfloat steps = pre->mean[0] / pre->scale;

  if (pre->dtype != GST_AX_TENSOR_DTYPE_U8 || pre->mean[0] != pre->mean[1]
      || pre->mean[0] != pre->mean[2] || pre->std[0] != pre->std[1]
      || pre->std[0] != pre->std[2] || pre->qscale != pre->scale / pre->std[0]
      || lroundf (steps) != pre->zero_point)
    return 0.0;
  return (gdouble) steps - pre->zero_point;
}

static GstAxModelInput exact_model;
static GstAxModelPreprocess exact_pp;
static GstPadQueryFunction exact_harness_query;

static gboolean
exact_model_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  if (gst_ax_model_query_is (query)) {
    gst_ax_model_query_set_input (query, &exact_model);
    gst_ax_model_query_set_preprocess (query, &exact_pp);
    return TRUE;
  }
  return exact_harness_query (pad, parent, query);
}

static guint8
pre_quantise (const ExactPre * pre, gint c, gfloat p)
{
  const gdouble half_steps = nearbyint (2.0 / pre->scale);
  const gdouble d = half_steps / 2.0;
  const gboolean exact = half_steps >= 1.0 &&
      fabs (d * pre->scale - 1.0) < DIVISOR_TOLERANCE;
  const gdouble v = exact ? p / d : p * (gdouble) pre->scale;
  const gdouble real = (v - (gdouble) pre->mean[c]) / (gdouble) pre->std[c];
  const gdouble q = round (real / (gdouble) pre->qscale + pre_offset (pre)) +
      pre->zero_point;

  if (pre->dtype == GST_AX_TENSOR_DTYPE_I8)
    return (guint8) (gint8) CLAMP (q, G_MININT8, G_MAXINT8);
  return (guint8) CLAMP (q, 0, G_MAXUINT8);
}

static void
pre_pixel (const ExactPre * pre, const guint8 rgb[3], guint8 * out)
{
  gint c;

  if (pre->color == GST_AX_COLOR_ORDER_GRAY) {
    out[0] = pre_quantise (pre, 0, LUMA_R * rgb[0] + LUMA_G * rgb[1] +
        LUMA_B * rgb[2]);
    return;
  }
  for (c = 0; c < 3; c++)
    out[c] = pre_quantise (pre, c, rgb[pre->color == GST_AX_COLOR_ORDER_BGR ?
            2 - c : c]);
}

static void
check_exact_pre (GstVideoFormat format, gint sw, gint sh, gint tw, gint th,
    const ExactPre * pre, gboolean portable, GRand * rand)
{
  const gint nc = pre->color == GST_AX_COLOR_ORDER_GRAY ? 1 : 3;
  const gsize n = (gsize) tw * th * nc;
  const guint8 fill_rgb[3] = { pre->fill, pre->fill, pre->fill };
  GstVideoInfo info;
  GstHarness *h;
  GstBuffer *in, *out;
  GstVideoFrame frame;
  GstAxTensorMeta *meta;
  GstAxLetterboxGeometry lb;
  GstMapInfo map;
  guint8 *want, qfill[3];
  gsize i;
  gint x, y, c;
  gchar *desc;

  in = random_frame (&info, format, sw, sh, rand);
  if (portable)
    g_setenv (PORTABLE_ENV, "1", TRUE);
  else
    g_unsetenv (PORTABLE_ENV);
  h = gst_harness_new_parse ("axletterbox method=bilinear");
  g_unsetenv (PORTABLE_ENV);
  exact_model = (GstAxModelInput) {
  tw, th, nc, pre->dtype, GST_AX_TENSOR_LAYOUT_NHWC, pre->qscale,
        pre->zero_point, "input", pre->name};
  gst_ax_model_preprocess_init_default (&exact_pp);
  exact_pp.color = pre->color;
  exact_pp.resize = pre->resize;
  exact_pp.fill = pre->fill;
  exact_pp.scale = pre->scale;
  memcpy (exact_pp.mean, pre->mean, sizeof (exact_pp.mean));
  memcpy (exact_pp.std, pre->std, sizeof (exact_pp.std));
  exact_harness_query = GST_PAD_QUERYFUNC (h->sinkpad);
  gst_pad_set_query_function (h->sinkpad, exact_model_query);
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
  fail_unless (out != NULL);
  meta = gst_buffer_get_ax_tensor_meta_by_role (out, GST_AX_TENSOR_ROLE_INPUT,
      0, 0);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->dims[3], nc);

  if (pre->resize == GST_AX_RESIZE_STRETCH)
    fail_unless (gst_ax_letterbox_geometry_init_stretch (&lb, sw, sh, tw, th));
  else
    fail_unless (gst_ax_letterbox_geometry_init (&lb, sw, sh, tw, th, TRUE,
            TRUE, pre->fill));
  fail_unless_equals_int (meta->letterbox.stretch, lb.stretch);
  fail_unless_equals_int (meta->letterbox.resized_width, lb.resized_width);
  fail_unless_equals_int (meta->letterbox.resized_height, lb.resized_height);
  fail_unless_equals_int (meta->letterbox.pad_x, lb.pad_x);
  fail_unless_equals_int (meta->letterbox.pad_y, lb.pad_y);

  want = g_malloc (n);
  pre_pixel (pre, fill_rgb, qfill);
  for (i = 0; i < n; i++)
    want[i] = qfill[i % nc];
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  for (y = 0; y < lb.resized_height; y++)
    for (x = 0; x < lb.resized_width; x++) {
      guint8 rgb[3];

      exact_pixel (&frame, &lb, x, y, rgb);
      pre_pixel (pre, rgb, want + ((gsize) (y + lb.pad_y) * tw + x +
              lb.pad_x) * nc);
    }
  gst_video_frame_unmap (&frame);

  desc = g_strdup_printf ("%s %s %dx%d -> %dx%d %s", pre->name,
      gst_video_format_to_string (format), sw, sh, tw, th,
      portable ? "portable" : "vector");
  fail_unless (gst_buffer_map (meta->data, &map, GST_MAP_READ));
  fail_unless_equals_uint64 (map.size, n);
  for (i = 0; i < n && map.data[i] == want[i]; i++);
  c = (gint) (i % nc);
  fail_unless (i == n, "%s: tensor byte %" G_GSIZE_FORMAT
      " (x %d y %d c %d) is %u, want %u", desc, i, (gint) (i / nc % tw),
      (gint) (i / nc / tw), c, i < n ? map.data[i] : 0, i < n ? want[i] : 0);
  gst_buffer_unmap (meta->data, &map);

  g_free (desc);
  g_free (want);
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_harness_teardown (h);
}

/* the shipped models' preprocessing and others, letterbox and stretch,
 * vector and portable, at ratios with dyadic weights in one axis and not
 * the other */
GST_START_TEST (test_exact_preprocess)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
  };
  static const gint sizes[][2] = {
    {64, 64}, {128, 72}, {97, 61}, {61, 203}, {33, 17}, {1, 1}, {77, 59},
    /* into 64x48: weights in 1/128 across (the fine integer kernel) */
    {135, 135},
  };
  GRand *rand = g_rand_new_with_seed (EXACT_SEED);
  guint f, s, p, portable;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (p = 0; p < G_N_ELEMENTS (pres); p++)
        for (portable = 0; portable < 2; portable++)
          check_exact_pre (formats[f], sizes[s][0], sizes[s][1],
              EXACT_TENSOR, EXACT_TENSOR * 3 / 4, &pres[p], portable, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* CenterNet's real geometry: vtest's 768x576 and 1080p stretched to
 * 512x512, vector and portable */
GST_START_TEST (test_exact_stretch_full_size)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420,
  };
  static const gint sizes[][2] = { {768, 576}, {1920, 1080} };
  GRand *rand = g_rand_new_with_seed (EXACT_SEED);
  guint f, s, portable;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      for (portable = 0; portable < 2; portable++)
        check_exact_pre (formats[f], sizes[s][0], sizes[s][1], 512, 512,
            &pres[0], portable, rand);
  g_rand_free (rand);
}

GST_END_TEST;

/* Boxes map back exactly: a frame holds a bright rectangle whose edges
 * are linear ramps a few tensor pixels wide, so that the bilinear tensor
 * is linear across them and the half-intensity crossing of a tensor row
 * or column is the edge's image to within the 8-bit rounding. The
 * crossings, as tensor edge coordinates, go back through
 * gst_ax_letterbox_geometry_box_to_source and must land on the rectangle. */

#define MARKER_RAMP_STEPS 4.0
#define MARKER_HALF 127.5
/* 8-bit values on a ramp of 4 tensor pixels put the crossing within 1/64
 * of a tensor pixel, 0.06 frame pixels at 1080p (0.03 measured) */
#define MARKER_TOLERANCE_PX 0.1
#define LUMA_BLACK 16
#define LUMA_RANGE 219
#define CHROMA_NEUTRAL 128

static gdouble
marker_profile (gdouble u, gdouble lo, gdouble hi, gdouble ramp)
{
  const gdouble a = CLAMP ((u - lo) / ramp + 0.5, 0.0, 1.0);
  const gdouble b = CLAMP ((hi - u) / ramp + 0.5, 0.0, 1.0);

  return MIN (a, b);
}

static GstBuffer *
marker_frame (GstVideoInfo * info, GstVideoFormat format, gint w, gint h,
    const gdouble box[4], gdouble ramp_x, gdouble ramp_y)
{
  GstBuffer *buf;
  GstVideoFrame frame;
  gint i, j, p;

  gst_video_info_set_format (info, format, w, h);
  info->colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_BT601;
  info->colorimetry.range = GST_VIDEO_COLOR_RANGE_16_235;
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (p = 1; p < (gint) GST_VIDEO_FRAME_N_PLANES (&frame); p++)
    memset (GST_VIDEO_FRAME_PLANE_DATA (&frame, p), CHROMA_NEUTRAL,
        (gsize) GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p) *
        GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p));
  for (j = 0; j < h; j++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
        (gsize) j * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    const gdouble iy = marker_profile (j + 0.5, box[1], box[3], ramp_y);

    for (i = 0; i < w; i++) {
      const gdouble v = iy * marker_profile (i + 0.5, box[0], box[2],
          ramp_x);

      if (GST_VIDEO_INFO_IS_YUV (info))
        row[i] = (guint8) lround (LUMA_BLACK + LUMA_RANGE * v);
      else
        memset (row + 3 * i, (gint) lround (MAX_PIXEL * v), 3);
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* the tensor's first channel along a row (@step 3) or a column (@step
 * 3 * width) */
static gdouble
marker_value (const guint8 * t, gint i, gint step)
{
  return t[(gsize) i * step];
}

/* the rising and falling half-intensity crossings of a line of @n tensor
 * values, as edge coordinates (pixel i covers [i, i + 1]) */
static void
marker_crossings (const guint8 * t, gint n, gint step, gdouble * lo,
    gdouble * hi)
{
  gint i, j;

  for (i = 1; i < n && marker_value (t, i, step) < MARKER_HALF; i++);
  fail_unless (i < n);
  *lo = (i - 1) + (MARKER_HALF - marker_value (t, i - 1, step)) /
      (marker_value (t, i, step) - marker_value (t, i - 1, step)) + 0.5;
  for (j = n - 2; j >= 0 && marker_value (t, j, step) < MARKER_HALF; j--);
  fail_unless (j >= 0);
  *hi = j + (marker_value (t, j, step) - MARKER_HALF) /
      (marker_value (t, j, step) - marker_value (t, j + 1, step)) + 0.5;
}

GST_START_TEST (test_exact_box_mapping)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_RGB,
  };
  static const struct
  {
    gint w, h;
    gdouble box[4];
  } frames[] = {
    {768, 576, {201.3, 150.7, 452.6, 380.2}},
    {1920, 1080, {503.25, 301.6, 1210.8, 777.35}},
  };
  const gint side = 512;
  gdouble worst = 0.0;
  guint f, s, stretch, portable;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (s = 0; s < G_N_ELEMENTS (frames); s++)
      for (stretch = 0; stretch < 2; stretch++)
        for (portable = 0; portable < 2; portable++) {
          const gint w = frames[s].w, h = frames[s].h;
          const gdouble *box = frames[s].box;
          GstAxLetterboxGeometry lb;
          GstVideoInfo info;
          GstHarness *hr;
          GstBuffer *in, *out;
          GstAxTensorMeta *meta;
          GstMapInfo map;
          gdouble tbox[4], back[4];
          gint mid_x, mid_y, k;
          gchar *desc;

          if (stretch)
            fail_unless (gst_ax_letterbox_geometry_init_stretch (&lb, w, h,
                    side, side));
          else
            fail_unless (gst_ax_letterbox_geometry_init (&lb, w, h, side, side,
                    TRUE, TRUE, EXACT_FILL));
          in = marker_frame (&info, formats[f], w, h, box,
              MARKER_RAMP_STEPS / lb.scale_x, MARKER_RAMP_STEPS / lb.scale_y);
          if (portable)
            g_setenv (PORTABLE_ENV, "1", TRUE);
          desc = g_strdup_printf ("axletterbox width=%d height=%d "
              "dtype=u8 resize=%s", side, side,
              stretch ? "stretch" : "letterbox");
          hr = gst_harness_new_parse (desc);
          g_unsetenv (PORTABLE_ENV);
          g_free (desc);
          gst_harness_set_src_caps (hr, gst_video_info_to_caps (&info));
          out = gst_harness_push_and_pull (hr, in);
          fail_unless (out != NULL);
          meta = gst_buffer_get_ax_tensor_meta_by_role (out,
              GST_AX_TENSOR_ROLE_INPUT, 0, 0);
          fail_unless (meta != NULL);
          fail_unless_equals_int (meta->letterbox.stretch, stretch);
          fail_unless_equals_float (meta->letterbox.scale_x, lb.scale_x);
          fail_unless_equals_float (meta->letterbox.scale_y, lb.scale_y);
          fail_unless_equals_int (meta->letterbox.pad_y, lb.pad_y);

          /* the lines through the marker's middle, where the other axis
           * is at full intensity */
          gst_ax_letterbox_geometry_to_tensor (&meta->letterbox,
              (box[0] + box[2]) / 2, (box[1] + box[3]) / 2, &tbox[0], &tbox[1]);
          mid_x = (gint) tbox[0];
          mid_y = (gint) tbox[1];
          fail_unless (gst_buffer_map (meta->data, &map, GST_MAP_READ));
          marker_crossings (map.data + (gsize) mid_y * side * 3, side, 3,
              &tbox[0], &tbox[2]);
          marker_crossings (map.data + (gsize) mid_x * 3, side, side * 3,
              &tbox[1], &tbox[3]);
          gst_buffer_unmap (meta->data, &map);

          gst_ax_letterbox_geometry_box_to_source (&meta->letterbox, tbox, back,
              w, h);
          for (k = 0; k < 4; k++) {
            const gdouble err = fabs (back[k] - box[k]);

            worst = MAX (worst, err);
            fail_unless (err <= MARKER_TOLERANCE_PX, "%s %dx%d %s %s: edge "
                "%d maps to %.3f, drawn at %.3f", gst_video_format_to_string
                (formats[f]), w, h, stretch ? "stretch" : "letterbox",
                portable ? "portable" : "vector", k, back[k], box[k]);
          }
          gst_buffer_unref (out);
          gst_harness_teardown (hr);
        }
  GST_INFO ("worst box edge error %.4f frame pixels", worst);
}

GST_END_TEST;

static Suite *
letterbox_suite (void)
{
  Suite *s = suite_create ("ax-letterbox");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ultralytics_geometry);
  tcase_add_test (tc, test_no_scale_up_and_top_left);
  tcase_add_test (tc, test_round_trips);
  tcase_add_test (tc, test_box_clamp);
  tcase_add_test (tc, test_exact_pixels);
  tcase_add_test (tc, test_exact_rois);
  tcase_add_test (tc, test_exact_full_size);
  tcase_add_test (tc, test_exact_one_to_one);
  tcase_add_test (tc, test_exact_preprocess);
  tcase_add_test (tc, test_exact_stretch_full_size);
  tcase_add_test (tc, test_exact_box_mapping);
  return s;
}

GST_CHECK_MAIN (letterbox);
