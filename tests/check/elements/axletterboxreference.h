/* gst-ax
 * Copyright (C) 2026 gst-ax developers
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2 of the License, or (at your option) any later version.
 */

/* The float reference of axletterbox's test programs: where each
 * format's components lie, sampling, colour conversion, the model's
 * preprocessing and quantisation, the check of a tensor against it, and
 * the harness and frame helpers both programs use. */

#ifndef __AX_LETTERBOX_REFERENCE_H__
#define __AX_LETTERBOX_REFERENCE_H__

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

static inline const FormatLayout *
find_format (const gchar * name)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++)
    if (!strcmp (formats[i].name, name))
      return &formats[i];
  g_assert_not_reached ();
  return NULL;
}

static inline GstBuffer *
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
static inline gdouble
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

static inline void
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
static inline gdouble
ref_preprocess (const TensorSpec * t, gint c, gdouble pixel)
{
  if (t->pscale == 0.0)
    return pixel / 255.0;
  return (pixel * t->pscale - t->mean[c]) / t->std[c];
}

/* one pixel unit in tensor channel @c, in real values */
static inline gdouble
ref_pixel_step (const TensorSpec * t, gint c)
{
  return t->pscale == 0.0 ? 1.0 / 255.0 : fabs (t->pscale / t->std[c]);
}

static inline gdouble
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

static inline gdouble
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
static inline void
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

static inline GstHarness *
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

static const TensorSpec u8_rgb_bilinear = {
  32, 32, TRUE, 0, GST_AX_TENSOR_DTYPE_U8, GST_AX_TENSOR_LAYOUT_NHWC,
  1.0 / 255.0, 0, DEFAULT_FILL
};

static inline GstMessage *
pop_error (GstBus * bus)
{
  return gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
}

#endif /* __AX_LETTERBOX_REFERENCE_H__ */
