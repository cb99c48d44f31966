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
#include <float.h>
#include <math.h>
#include <string.h>

/* Tolerances of the float reference, in output steps. */
#define PIXEL_TOLERANCE 1
#define N_CHANNELS 3
#define DEFAULT_FILL 114
#define RANDOM_SEED 20260
#define POOL_FRAMES 20
#define RANDOM_CASES 80
#define RANDOM_MAX_SIDE 50
#define POOL_WARMUP_FRAMES 2
#define MAX_PIXEL 255
#define I8_ZERO_POINT (-128)
/* i8 with zero point -128 at scale 1/255 is u8 with the top bit flipped */
#define SIGN_BIT 0x80
#define BT601_KR 0.299
#define BT601_KB 0.114
#define BT709_KR 0.2126
#define BT709_KB 0.0722

/* Where each component (R, G, B or Y, U, V) lives; written here from the
 * formats' definitions rather than taken from GStreamer's tables. */
typedef struct
{
  gint plane, pstride, poffset, wsub, hsub;
} CompLayout;

typedef struct
{
  const gchar *name;
  gboolean yuv;
  CompLayout comp[N_CHANNELS];
} FormatLayout;

static const FormatLayout formats[] = {
  {"RGB", FALSE, {{0, 3, 0, 0, 0}, {0, 3, 1, 0, 0}, {0, 3, 2, 0, 0}}},
  {"BGR", FALSE, {{0, 3, 2, 0, 0}, {0, 3, 1, 0, 0}, {0, 3, 0, 0, 0}}},
  {"RGBx", FALSE, {{0, 4, 0, 0, 0}, {0, 4, 1, 0, 0}, {0, 4, 2, 0, 0}}},
  {"BGRx", FALSE, {{0, 4, 2, 0, 0}, {0, 4, 1, 0, 0}, {0, 4, 0, 0, 0}}},
  {"RGBA", FALSE, {{0, 4, 0, 0, 0}, {0, 4, 1, 0, 0}, {0, 4, 2, 0, 0}}},
  {"BGRA", FALSE, {{0, 4, 2, 0, 0}, {0, 4, 1, 0, 0}, {0, 4, 0, 0, 0}}},
  {"NV12", TRUE, {{0, 1, 0, 0, 0}, {1, 2, 0, 1, 1}, {1, 2, 1, 1, 1}}},
  {"I420", TRUE, {{0, 1, 0, 0, 0}, {1, 1, 0, 1, 1}, {2, 1, 0, 1, 1}}},
  {"YUY2", TRUE, {{0, 2, 0, 0, 0}, {0, 4, 1, 1, 0}, {0, 4, 3, 1, 0}}},
};

typedef struct
{
  gdouble kr, kb;
  gboolean full_range;
} YuvSpec;

static const YuvSpec bt601_limited = { BT601_KR, BT601_KB, FALSE };

typedef struct
{
  gint tw, th;
  gboolean bilinear;
  gint red_pos;                 /* 0 for rgb, 2 for bgr */
  GstAxTensorDType dtype;
  GstAxTensorLayout layout;
  gdouble scale;
  gint zero_point;
  guint8 fill;
  /* the model's preprocessing; pscale 0 is the default (pixel / 255,
   * mean 0, std 1) */
  gboolean stretch;
  gboolean gray;
  gdouble pscale;
  gdouble mean[N_CHANNELS];
  gdouble std[N_CHANNELS];
} TensorSpec;

/* the float reference tolerates one more step where the element rounds
 * the luma of rounded RGB bytes */
#define GRAY_TOLERANCE 1.5
#define F32_PAD_STEPS 1e-4
#define LUMA_R 0.299
#define LUMA_G 0.587
#define LUMA_B 0.114

static const FormatLayout *
find_format (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    if (!strcmp (formats[i].name, name))
      return &formats[i];
  g_assert_not_reached ();
  return NULL;
}

static GstBuffer *
make_random_frame (const GstVideoInfo * info, GRand * rand)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* Samples a component of the frame at a luma-grid position (pixel centres
 * at i + 0.5), clamped to the region [rx, rx + rw) x [ry, ry + rh). */
static gdouble
ref_sample (const guint8 * data, const GstVideoInfo * info,
    const CompLayout * c, gdouble lx, gdouble ly, gint rx, gint ry,
    gint rw, gint rh, gboolean bilinear)
{
  const guint8 *plane = data + GST_VIDEO_INFO_PLANE_OFFSET (info, c->plane);
  const gint stride = GST_VIDEO_INFO_PLANE_STRIDE (info, c->plane);
  const gint sx = 1 << c->wsub, sy = 1 << c->hsub;
  const gint comp_w = (GST_VIDEO_INFO_WIDTH (info) + sx - 1) / sx;
  const gint comp_h = (GST_VIDEO_INFO_HEIGHT (info) + sy - 1) / sy;
  const gint lo_x = rx / sx, hi_x = MIN ((rx + rw - 1) / sx, comp_w - 1);
  const gint lo_y = ry / sy, hi_y = MIN ((ry + rh - 1) / sy, comp_h - 1);
#define PX(X, Y) ((gdouble) plane[(Y) * stride + (X) * c->pstride + c->poffset])

  if (bilinear) {
    gdouble px = CLAMP (lx / sx - 0.5, (gdouble) lo_x, (gdouble) hi_x);
    gdouble py = CLAMP (ly / sy - 0.5, (gdouble) lo_y, (gdouble) hi_y);
    gint x0 = (gint) floor (px), y0 = (gint) floor (py);
    gint x1 = MIN (x0 + 1, hi_x), y1 = MIN (y0 + 1, hi_y);
    gdouble fx = px - x0, fy = py - y0;
    gdouble top = PX (x0, y0) * (1 - fx) + PX (x1, y0) * fx;
    gdouble bottom = PX (x0, y1) * (1 - fx) + PX (x1, y1) * fx;

    return top * (1 - fy) + bottom * fy;
  } else {
    gint x = CLAMP ((gint) floor (lx / sx), lo_x, hi_x);
    gint y = CLAMP ((gint) floor (ly / sy), lo_y, hi_y);

    return PX (x, y);
  }
#undef PX
}

static void
ref_rgb (const guint8 * data, const GstVideoInfo * info,
    const FormatLayout * f, const YuvSpec * yuv, gdouble lx, gdouble ly,
    gint rx, gint ry, gint rw, gint rh, gboolean bilinear, gdouble rgb[3])
{
  gdouble v[N_CHANNELS];
  gint c;

  for (c = 0; c < N_CHANNELS; c++)
    v[c] = ref_sample (data, info, &f->comp[c], lx, ly, rx, ry, rw, rh,
        bilinear);
  if (!f->yuv) {
    memcpy (rgb, v, sizeof (v));
    return;
  } else {
    gdouble yn, pb, pr, kg = 1 - yuv->kr - yuv->kb;

    if (yuv->full_range) {
      yn = v[0] / 255.0;
      pb = (v[1] - 128) / 255.0;
      pr = (v[2] - 128) / 255.0;
    } else {
      yn = (v[0] - 16) / 219.0;
      pb = (v[1] - 128) / 224.0;
      pr = (v[2] - 128) / 224.0;
    }
    rgb[0] = yn + 2 * (1 - yuv->kr) * pr;
    rgb[2] = yn + 2 * (1 - yuv->kb) * pb;
    rgb[1] = (yn - yuv->kr * rgb[0] - yuv->kb * rgb[2]) / kg;
    for (c = 0; c < N_CHANNELS; c++)
      rgb[c] = CLAMP (rgb[c] * 255.0, 0.0, 255.0);
  }
}

/* the model's real value of pixel value @pixel in tensor channel @c */
static gdouble
ref_preprocess (const TensorSpec * t, gint c, gdouble pixel)
{
  if (t->pscale == 0.0)
    return pixel / 255.0;
  return (pixel * t->pscale - t->mean[c]) / t->std[c];
}

/* one pixel unit in tensor channel @c, in real values */
static gdouble
ref_pixel_step (const TensorSpec * t, gint c)
{
  return t->pscale == 0.0 ? 1.0 / 255.0 : fabs (t->pscale / t->std[c]);
}

static gdouble
quantise (const TensorSpec * t, gint c, gdouble pixel)
{
  gdouble real = ref_preprocess (t, c, pixel) / t->scale;

  switch (t->dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      return CLAMP (round (real) + t->zero_point, 0, 255);
    case GST_AX_TENSOR_DTYPE_I8:
      return CLAMP (round (real) + t->zero_point, -128, 127);
    default:
      return real + t->zero_point;
  }
}

static gdouble
tensor_value (const GstAxTensorMeta * meta, gint nc, const guint8 * data,
    gint x, gint y, gint c)
{
  const gint tw = meta->letterbox.tensor_width;
  const gint th = meta->letterbox.tensor_height;
  gsize i;

  if (meta->layout == GST_AX_TENSOR_LAYOUT_NHWC)
    i = ((gsize) y * tw + x) * nc + c;
  else
    i = ((gsize) c * th + y) * tw + x;
  switch (meta->dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      return data[i];
    case GST_AX_TENSOR_DTYPE_I8:
      return (gint8) data[i];
    default:
      return ((const gfloat *) data)[i];
  }
}

/* Checks every tensor value against the float reference and every pad
 * value against the quantised fill exactly. */
static void
check_tensor (const GstAxTensorMeta * meta, const guint8 * frame,
    const GstVideoInfo * info, const FormatLayout * f, const YuvSpec * yuv,
    const TensorSpec * t)
{
  const GstAxLetterboxGeometry *lb = &meta->letterbox;
  const gint nc = t->gray ? 1 : N_CHANNELS;
  const gdouble tolerance = t->gray ? GRAY_TOLERANCE : PIXEL_TOLERANCE;
  GstMapInfo map;
  gint x, y, c, n_bad = 0;
  gdouble worst = 0.0;

  fail_unless (gst_buffer_map (meta->data, &map, GST_MAP_READ));
  for (y = 0; y < lb->tensor_height; y++) {
    for (x = 0; x < lb->tensor_width; x++) {
      gboolean inside = x >= lb->pad_x && x < lb->pad_x + lb->resized_width
          && y >= lb->pad_y && y < lb->pad_y + lb->resized_height;
      gdouble rgb[3];

      if (inside) {
        gdouble lx = lb->src_x + (x - lb->pad_x + 0.5) * lb->src_width /
            lb->resized_width;
        gdouble ly = lb->src_y + (y - lb->pad_y + 0.5) * lb->src_height /
            lb->resized_height;

        ref_rgb (frame, info, f, yuv, lx, ly, lb->src_x, lb->src_y,
            lb->src_width, lb->src_height, t->bilinear, rgb);
      }
      for (c = 0; c < nc; c++) {
        gdouble got = tensor_value (meta, nc, map.data, x, y, c);
        const gdouble step = t->dtype == GST_AX_TENSOR_DTYPE_F32 ?
            ref_pixel_step (t, c) / t->scale : 1.0;
        /* the pad pixel is (fill, fill, fill) through the same maths */
        const gdouble pad = t->gray ? (LUMA_R + LUMA_G + LUMA_B) * t->fill :
            t->fill;
        const gdouble qfill = quantise (t, c, pad);
        /* exact for integers (but where gray's luma rounds otherwise);
         * float tensors hold the value rounded to float, from a pixel
         * scale that is 1 / 255 there and its float here */
        const gdouble pad_tolerance = t->dtype == GST_AX_TENSOR_DTYPE_F32 ?
            FLT_EPSILON * MAX (1.0, fabs (qfill)) + F32_PAD_STEPS * step :
            (t->gray ? 1.0 : 0.0);

        if (inside) {
          gint src_c = c == 1 ? 1 : (c == t->red_pos ? 0 : 2);
          gdouble v = t->gray ? LUMA_R * rgb[0] + LUMA_G * rgb[1] +
              LUMA_B * rgb[2] : rgb[src_c];
          gdouble want = quantise (t, c, v);
          gdouble err = fabs (got - want) / step;

          worst = MAX (worst, err);
          if (err > tolerance + 1e-3 && n_bad++ < 5)
            GST_ERROR ("%s (%d,%d) c%d: got %f want %f", f->name, x, y, c,
                got, want);
        } else if (fabs (got - qfill) > pad_tolerance && n_bad++ < 5) {
          GST_ERROR ("%s pad (%d,%d) c%d: got %f want %f", f->name, x, y, c,
              got, qfill);
        }
      }
    }
  }
  gst_buffer_unmap (meta->data, &map);
  GST_INFO ("%s: worst error %.3f steps", f->name, worst);
  fail_unless_equals_int (n_bad, 0);
}

static GstHarness *
make_harness (const TensorSpec * t, gboolean centre, gboolean scale_up)
{
  GstHarness *h = gst_harness_new ("axletterbox");

  g_object_set (h->element, "width", t->tw, "height", t->th, "method",
      t->bilinear ? 1 : 0, "fill", (gint) t->fill, "centre", centre,
      "scale-up", scale_up, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "channel-order",
      t->gray ? "gray" : (t->red_pos ? "bgr" : "rgb"));
  gst_util_set_object_arg (G_OBJECT (h->element), "resize",
      t->stretch ? "stretch" : "letterbox");
  switch (t->dtype) {
    case GST_AX_TENSOR_DTYPE_U8:
      gst_util_set_object_arg (G_OBJECT (h->element), "dtype", "u8");
      break;
    case GST_AX_TENSOR_DTYPE_I8:
      gst_util_set_object_arg (G_OBJECT (h->element), "dtype", "i8");
      break;
    case GST_AX_TENSOR_DTYPE_F32:
      gst_util_set_object_arg (G_OBJECT (h->element), "dtype", "f32");
      break;
  }
  g_object_set (h->element, "scale", t->scale, "zero-point", t->zero_point,
      NULL);
  return h;
}

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

static const TensorSpec u8_rgb_bilinear = {
  32, 32, TRUE, 0, GST_AX_TENSOR_DTYPE_U8, GST_AX_TENSOR_LAYOUT_NHWC,
  1.0 / 255.0, 0, DEFAULT_FILL
};

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

static GstMessage *
pop_error (GstBus * bus)
{
  return gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
}

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

static Suite *
axletterbox_suite (void)
{
  Suite *s = suite_create ("axletterbox");
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
  tcase_add_test (tc, test_model_query);
  tcase_add_test (tc, test_model_query_f32_nchw);
  tcase_add_test (tc, test_model_wrong_channels);
  tcase_add_test (tc, test_pool_reuse);
  tcase_add_test (tc, test_held_tensors_and_replacement);
  tcase_add_test (tc, test_roi_mode);
  tcase_add_test (tc, test_roi_mode_model_crop);
  tcase_add_test (tc, test_one_to_one_shares_frame);
  tcase_add_test (tc, test_one_to_one_copies);
  tcase_add_test (tc, test_preprocess_stretch_scale_one);
  tcase_add_test (tc, test_preprocess_letterbox_mean);
  tcase_add_test (tc, test_preprocess_per_channel);
  tcase_add_test (tc, test_preprocess_overrides);
  tcase_add_test (tc, test_preprocess_gray);
  tcase_add_test (tc, test_preprocess_flat_values);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_roi_mode_stretch);
  tcase_add_test (tc, test_reconfigure_asks_the_model_again);
  return s;
}

GST_CHECK_MAIN (axletterbox);
